//! One provider zip downloaded and hashed while it streams (spec §2.1, §2.2), retried
//! from the first byte on transient failures. The registry source
//! ([`crate::sources::registry`]) and the network mirror ([`crate::sources::net`]) both
//! fetch packages through here.
//!
//! The body goes through a bounded channel into a blocking task running
//! [`hash_zip_stream`], so memory stays bounded whatever the zip's size and hashing
//! overlaps the network. Each attempt starts a fresh hasher. No credentials are sent:
//! package URLs are plain downloads (spec §11 item 12).

use std::io::Read;

use bytes::Bytes;
use futures::StreamExt as _;
use tokio::sync::mpsc;
use url::Url;

use crate::net::registry::{Http, RegistryError};
use crate::net::retry::{self, Retryable};
use crate::vocab::hash::zipstream::{hash_zip_stream, ZipHashes, ZipLimits};
use crate::vocab::progress::Progress;

/// The most zip bytes accepted for one package: its allowed unpacked size, plus room
/// for deflate's worst-case growth (well under 1/64), local headers and the directory.
/// A zip larger than that is refused while it streams instead of being read to its
/// (possibly endless) end; bytes skipped inside an entry count towards no other limit.
pub(crate) fn max_download_bytes(limits: &ZipLimits) -> u64 {
    limits
        .max_uncompressed_bytes
        .saturating_add(limits.max_uncompressed_bytes / 64)
        .saturating_add(limits.max_directory_bytes.saturating_mul(2))
        .saturating_add(1 << 20)
}

/// Downloads `url` and returns the zip's SHA-256, size and the `h1:` it unpacks to,
/// reporting progress under `label`. Transient failures restart the whole download (and
/// the hash) from the first byte, under the run's retry policy. The error names the URL
/// and, after retries, how many attempts were made.
pub(crate) async fn download_and_hash(
    http: &Http,
    url: &Url,
    limits: &ZipLimits,
    progress: &dyn Progress,
    label: &str,
) -> Result<ZipHashes, String> {
    retry::retrying(http.retry_policy(), || {
        download_once(http, url, limits, progress, label)
    })
    .await
    .map_err(|gave_up| match gave_up.error {
        Failure::Transport(e) if gave_up.attempts > 1 && e.is_transient() => {
            format!("{e} (gave up after {} attempts)", gave_up.attempts)
        }
        Failure::Transport(e) => e.to_string(),
        Failure::Package(message) => message,
    })
}

/// Why one attempt failed: the transport (perhaps worth another attempt), or the package
/// itself (too large, not a valid zip), which another attempt cannot change.
enum Failure {
    Transport(RegistryError),
    Package(String),
}

impl Retryable for Failure {
    fn is_transient(&self) -> bool {
        matches!(self, Failure::Transport(e) if e.is_transient())
    }

    fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            Failure::Transport(e) => e.retry_after(),
            Failure::Package(_) => None,
        }
    }
}

async fn download_once(
    http: &Http,
    url: &Url,
    limits: &ZipLimits,
    progress: &dyn Progress,
    label: &str,
) -> Result<ZipHashes, Failure> {
    let (len, stream) = http.get_stream(url).await.map_err(Failure::Transport)?;
    let cap = max_download_bytes(limits);
    let too_large = || {
        Failure::Package(format!(
            "{url}: the package is larger than the limit of {cap} bytes"
        ))
    };
    if len.is_some_and(|n| n > cap) {
        return Err(too_large());
    }
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    let hasher_limits = limits.clone();
    let hasher = tokio::task::spawn_blocking(move || {
        hash_zip_stream(
            ChannelReader {
                rx,
                current: Bytes::new(),
            },
            &hasher_limits,
        )
    });
    progress.download_started(label, len);
    let mut stream = std::pin::pin!(stream);
    let mut stream_error = None;
    let mut received = 0u64;
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(bytes) => {
                received += bytes.len() as u64;
                if received > cap {
                    drop(tx);
                    let _ = hasher.await;
                    return Err(too_large());
                }
                progress.download_progress(label, bytes.len() as u64);
                if tx.send(bytes).await.is_err() {
                    break; // the hasher stopped early: its error explains why
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
        .map_err(|e| Failure::Package(format!("hashing task failed: {e}")))?;
    // A body cut short also makes the hasher fail; the transport error is the cause.
    if let Some(e) = stream_error {
        return Err(Failure::Transport(e));
    }
    hashed.map_err(|e| Failure::Package(format!("{url}: {e}")))
}

/// A blocking `Read` over chunks arriving on a channel: the bridge between the async
/// download and the synchronous zip hasher. The channel is bounded, so a slow hasher
/// slows the download instead of buffering the zip.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::registry::test_support::{serve, test_config};
    use crate::vocab::progress::NoProgress;

    /// A zip whose one entry claims almost 4 GiB of compressed data: a deflate stream of
    /// one byte, then padding the hasher skips without counting it as unpacked bytes.
    /// Served endlessly and without a `Content-Length`, only the download cap stops it.
    #[tokio::test]
    async fn an_endless_body_is_cut_off_at_the_cap() {
        use axum::body::Body;
        use axum::routing::get;
        use std::io::Write as _;
        let mut deflated =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        deflated.write_all(b"x").unwrap();
        let deflated = deflated.finish().unwrap();
        let mut head = Vec::new();
        head.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        head.extend_from_slice(&[20, 0, 0, 0, 8, 0, 0, 0, 0, 0]); // version, flags, deflate, time, date
        head.extend_from_slice(&crc32fast::hash(b"x").to_le_bytes());
        head.extend_from_slice(&0xFFFF_FFF0u32.to_le_bytes()); // compressed size
        head.extend_from_slice(&1u32.to_le_bytes()); // uncompressed size
        head.extend_from_slice(&[1, 0, 0, 0]); // name length, extra length
        head.push(b'a');
        head.extend_from_slice(&deflated);
        let head = Bytes::from(head);
        let endless = axum::Router::new().route(
            "/pkg.zip",
            get(move || {
                let head = head.clone();
                async move {
                    let padding = futures::stream::repeat_with(|| {
                        Ok::<_, std::io::Error>(Bytes::from(vec![0u8; 64 * 1024]))
                    });
                    let body = futures::stream::once(async move { Ok(head) }).chain(padding);
                    Body::from_stream(body)
                }
            }),
        );
        let (addr, _) = serve(endless).await;
        let url = Url::parse(&format!("http://{addr}/pkg.zip")).unwrap();
        let limits = ZipLimits {
            max_uncompressed_bytes: 1 << 20,
            max_entries: 10,
            max_directory_bytes: 1 << 16,
        };
        let http = Http::new(test_config());
        let cut = tokio::time::timeout(
            std::time::Duration::from_secs(30),
            download_and_hash(&http, &url, &limits, &NoProgress, "pkg"),
        )
        .await
        .expect("the download is cut off, not read to its end");
        let err = cut.unwrap_err();
        let cap = max_download_bytes(&limits);
        assert!(
            err.ends_with(&format!(
                "the package is larger than the limit of {cap} bytes"
            )),
            "{err}"
        );
    }

    #[test]
    fn download_cap_covers_the_unpacked_limit_and_never_overflows() {
        let limits = ZipLimits::default();
        assert!(max_download_bytes(&limits) > limits.max_uncompressed_bytes);
        let huge = ZipLimits {
            max_uncompressed_bytes: u64::MAX,
            max_entries: usize::MAX,
            max_directory_bytes: u64::MAX,
        };
        assert_eq!(max_download_bytes(&huge), u64::MAX);
    }
}
