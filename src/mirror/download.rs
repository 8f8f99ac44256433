//! One zip downloaded and hashed while it streams, retried from the first byte on
//! transient failures: the mirror's copy of what [`crate::index`] does for registry
//! packages (spec §2.1, §2.2).
//!
//! The body goes through a bounded channel into a blocking task running
//! [`hash_zip_stream`], so memory stays bounded and hashing overlaps the network. No
//! credentials are sent: archive URLs are plain downloads (spec §11 item 12).

use std::io::Read;

use bytes::Bytes;
use futures::StreamExt as _;
use tokio::sync::mpsc;
use url::Url;

use crate::hash::zipstream::{hash_zip_stream, ZipHashes, ZipLimits};
use crate::registry::{retry, RegistryClient, RegistryError};

/// Downloads `url` and returns the zip's SHA-256 and the `h1:` it unpacks to. The
/// error names the URL and, after retries, how many attempts were made.
pub async fn download_and_hash(
    client: &RegistryClient,
    url: &Url,
    limits: &ZipLimits,
) -> Result<ZipHashes, String> {
    let policy = client.retry_policy();
    let mut attempt = 0;
    loop {
        attempt += 1;
        match download_once(client, url, limits).await {
            Ok(hashed) => return Ok(hashed),
            Err(Failure::Transient(e)) if attempt < policy.max_attempts => {
                retry::backoff_delay(policy, attempt, &e).await;
            }
            Err(Failure::Transient(e)) => {
                return Err(format!("{e} (gave up after {attempt} attempts)"))
            }
            Err(Failure::Permanent(message)) => return Err(message),
        }
    }
}

enum Failure {
    Transient(RegistryError),
    Permanent(String),
}

impl Failure {
    fn from_registry(e: RegistryError) -> Failure {
        if retry::is_transient(&e) {
            Failure::Transient(e)
        } else {
            Failure::Permanent(e.to_string())
        }
    }
}

async fn download_once(
    client: &RegistryClient,
    url: &Url,
    limits: &ZipLimits,
) -> Result<ZipHashes, Failure> {
    let (_length, stream) = client
        .get_stream(url)
        .await
        .map_err(Failure::from_registry)?;
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    let limits = limits.clone();
    let hasher = tokio::task::spawn_blocking(move || {
        hash_zip_stream(
            ChannelReader {
                rx,
                current: Bytes::new(),
            },
            &limits,
        )
    });
    let mut stream = std::pin::pin!(stream);
    let mut stream_error = None;
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(bytes) => {
                if tx.send(bytes).await.is_err() {
                    break; // the hasher stopped early; its error says why
                }
            }
            Err(e) => {
                stream_error = Some(e);
                break;
            }
        }
    }
    drop(tx);
    let hashed = hasher
        .await
        .map_err(|e| Failure::Permanent(format!("hashing task failed: {e}")))?;
    // A body cut short makes the hasher fail too; the transport error is the cause.
    if let Some(e) = stream_error {
        return Err(Failure::from_registry(e));
    }
    hashed.map_err(|e| Failure::Permanent(format!("{url}: {e}")))
}

/// A blocking `Read` over chunks arriving on a bounded channel: a slow hasher slows
/// the download instead of buffering the zip.
struct ChannelReader {
    rx: mpsc::Receiver<Bytes>,
    current: Bytes,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_empty() {
            match self.rx.blocking_recv() {
                Some(chunk) => self.current = chunk,
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len());
        buf[..n].copy_from_slice(&self.current[..n]);
        self.current = self.current.slice(n..);
        Ok(n)
    }
}
