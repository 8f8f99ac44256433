//! Downloads: one capped, deadline-bounded streaming download with retries, for
//! provider zips and module archives alike.
//!
//! [`download`] streams a URL's body into a [`Sink`] (a provider zip into the hasher,
//! a module archive into a file), retried from the first byte on transient failures,
//! under three bounds, so that no server can make a run unbounded:
//!
//! - **size**: a body larger than the cap is refused while it streams (by its
//!   `Content-Length` first);
//! - **progress**: fewer than [`HttpConfig::min_download_rate`] bytes per second over
//!   any [`HttpConfig::stream_idle_timeout`] window (no bytes at all included) ends the
//!   attempt, so a server dripping a byte every few seconds cannot keep it alive;
//! - **time**: the whole download, retries and their waits included, ends at
//!   [`HttpConfig::download_deadline`]; a timed-out attempt is retried only within it.
//!
//! [`download_and_hash`] is the provider case (spec §2.1, §2.2): the body goes through a
//! bounded channel into a blocking task running [`hash_zip_stream`], so memory stays
//! bounded whatever the zip's size and hashing overlaps the network. No credentials are
//! sent: package URLs are plain downloads (spec §11 item 12).
//!
//! [`HttpConfig::min_download_rate`]: crate::http::HttpConfig::min_download_rate
//! [`HttpConfig::stream_idle_timeout`]: crate::http::HttpConfig::stream_idle_timeout
//! [`HttpConfig::download_deadline`]: crate::http::HttpConfig::download_deadline

use std::future::Future;
use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::StreamExt as _;
use tokio::sync::mpsc;
use url::Url;

use crate::http::{Http, HttpError, TransportKind};
use crate::retry::{self, Retryable};
use tfsum_vocab::hash::zipstream::{hash_zip_stream, ZipHashes, ZipLimits};
use tfsum_vocab::hash::HashError;
use tfsum_vocab::progress::Progress;
use tfsum_vocab::url::SafeUrl;

/// The most zip bytes accepted for one package: its allowed unpacked size, plus room
/// for deflate's worst-case growth (well under 1/64), local headers and the directory.
/// A zip larger than that is refused while it streams instead of being read to its
/// (possibly endless) end; bytes skipped inside an entry count towards no other limit.
pub fn max_download_bytes(limits: &ZipLimits) -> u64 {
    limits
        .max_uncompressed_bytes
        .saturating_add(limits.max_uncompressed_bytes / 64)
        .saturating_add(limits.max_directory_bytes.saturating_mul(2))
        .saturating_add(1 << 20)
}

/// Where one attempt's body goes. A new sink is made for every attempt.
pub trait Sink: Send {
    type Output: Send;
    /// Takes the next chunk; an error ends the download (the content is bad, or the
    /// disk is full), without retries.
    fn write(&mut self, chunk: Bytes) -> impl Future<Output = Result<(), SinkError>> + Send;
    /// The body is complete.
    fn finish(self) -> impl Future<Output = Result<Self::Output, SinkError>> + Send;
    /// The attempt failed in transport; release what the sink holds.
    fn abandon(self) -> impl Future<Output = ()> + Send;
}

/// Why a sink refused a body: the content is not what it must be, or it could not be
/// written where it goes.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SinkError {
    /// The zip does not hash (not a zip, over a limit, an unsafe name).
    #[error("{url}: {error}")]
    Zip {
        url: Box<Url>,
        #[source]
        error: Arc<HashError>,
    },
    /// The zip's end came before the body's.
    #[error("{url}: the zip ended before the download did")]
    EndedEarly { url: Box<Url> },
    /// The task hashing the zip did not finish (it panicked).
    #[error("hashing task failed: {0}")]
    Task(Arc<tokio::task::JoinError>),
    /// Writing the body failed; `doing` says what was being written.
    #[error("{doing}: {error}")]
    Write {
        doing: String,
        #[source]
        error: Arc<std::io::Error>,
    },
    /// The file the body goes to could not be opened.
    #[error(transparent)]
    Open(Arc<std::io::Error>),
}

impl SinkError {
    /// A failed write of the body, `doing` naming what was written.
    pub fn write(doing: impl Into<String>, error: std::io::Error) -> SinkError {
        SinkError::Write {
            doing: doing.into(),
            error: Arc::new(error),
        }
    }
}

/// Why a download failed: the transport (after retries), the content, or the deadline.
#[derive(Debug, Clone)]
pub enum DownloadError {
    Transport {
        error: HttpError,
        attempts: u32,
    },
    Content(SinkError),
    TooLarge {
        url: SafeUrl,
        limit: u64,
    },
    Deadline {
        url: SafeUrl,
        after: Duration,
        attempts: u32,
    },
}

impl std::fmt::Display for DownloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DownloadError::Transport { error, attempts } if *attempts > 1 => {
                write!(f, "{error} (gave up after {attempts} attempts)")
            }
            DownloadError::Transport { error, .. } => write!(f, "{error}"),
            DownloadError::Content(error) => write!(f, "{error}"),
            DownloadError::TooLarge { url, limit } => {
                write!(
                    f,
                    "{url}: the package is larger than the limit of {limit} bytes"
                )
            }
            DownloadError::Deadline {
                url,
                after,
                attempts,
            } => write!(
                f,
                "{url}: the download did not finish within {}s ({attempts} attempts)",
                after.as_secs_f64()
            ),
        }
    }
}

impl std::error::Error for DownloadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DownloadError::Transport { error, .. } => Some(error),
            DownloadError::Content(error) => Some(error),
            DownloadError::TooLarge { .. } | DownloadError::Deadline { .. } => None,
        }
    }
}

/// One attempt's failure, for the retry loop.
enum Failure {
    Transport(HttpError),
    Final(DownloadError),
}

impl Retryable for Failure {
    fn is_transient(&self) -> bool {
        matches!(self, Failure::Transport(e) if e.is_transient())
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            Failure::Transport(e) => e.retry_after(),
            Failure::Final(_) => None,
        }
    }
}

/// Downloads `url` into sinks made by `sink` (one per attempt), under the bounds in
/// the module docs; `max_bytes` caps the body. Progress is reported under `label`.
pub async fn download<S: Sink>(
    http: &Http,
    url: &Url,
    max_bytes: u64,
    progress: &dyn Progress,
    label: &str,
    mut sink: impl FnMut() -> Result<S, SinkError>,
) -> Result<S::Output, DownloadError> {
    let deadline = http.config().download_deadline;
    let started = Instant::now();
    let mut attempts = 0u32;
    let result = retry::retrying(http.retry_policy(), || {
        attempts += 1;
        let made = sink();
        async move {
            let sink = made.map_err(|e| Failure::Final(DownloadError::Content(e)))?;
            let left = deadline.saturating_sub(started.elapsed());
            if left.is_zero() {
                return Err(Failure::Final(DownloadError::Deadline {
                    url: SafeUrl::new(url),
                    after: deadline,
                    attempts: attempts - 1,
                }));
            }
            match tokio::time::timeout(left, attempt(http, url, max_bytes, progress, label, sink))
                .await
            {
                Ok(result) => result,
                Err(_) => Err(Failure::Final(DownloadError::Deadline {
                    url: SafeUrl::new(url),
                    after: deadline,
                    attempts,
                })),
            }
        }
    })
    .await;
    result.map_err(|gave_up| match gave_up.error {
        Failure::Transport(error) => DownloadError::Transport {
            error,
            attempts: gave_up.attempts,
        },
        Failure::Final(e) => e,
    })
}

async fn attempt<S: Sink>(
    http: &Http,
    url: &Url,
    max_bytes: u64,
    progress: &dyn Progress,
    label: &str,
    mut sink: S,
) -> Result<S::Output, Failure> {
    let (len, stream) = match http.get_stream(url).await {
        Ok(got) => got,
        Err(e) => {
            sink.abandon().await;
            return Err(Failure::Transport(e));
        }
    };
    let too_large = || {
        Failure::Final(DownloadError::TooLarge {
            url: SafeUrl::new(url),
            limit: max_bytes,
        })
    };
    if len.is_some_and(|n| n > max_bytes) {
        sink.abandon().await;
        return Err(too_large());
    }
    progress.download_started(label, len);
    let window = http.config().stream_idle_timeout;
    let floor = http
        .config()
        .min_download_rate
        .saturating_mul(window.as_secs().max(1));
    let mut window_start = Instant::now();
    let mut in_window = 0u64;
    let mut received = 0u64;
    let mut stream = std::pin::pin!(stream);
    while let Some(chunk) = stream.next().await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(e) => {
                sink.abandon().await;
                return Err(Failure::Transport(e));
            }
        };
        received += chunk.len() as u64;
        in_window += chunk.len() as u64;
        if received > max_bytes {
            sink.abandon().await;
            return Err(too_large());
        }
        if window_start.elapsed() >= window {
            if in_window < floor {
                sink.abandon().await;
                return Err(Failure::Transport(HttpError::Transport {
                    what: "downloading".to_string(),
                    url: SafeUrl::new(url),
                    kind: TransportKind::Timeout,
                    message: format!(
                        "too slow: {in_window} bytes in {}s, below the minimum of {} bytes per second",
                        window.as_secs_f64(),
                        http.config().min_download_rate
                    ),
                }));
            }
            window_start = Instant::now();
            in_window = 0;
        }
        progress.download_progress(label, chunk.len() as u64);
        if let Err(e) = sink.write(chunk).await {
            return Err(Failure::Final(DownloadError::Content(e)));
        }
    }
    sink.finish()
        .await
        .map_err(|e| Failure::Final(DownloadError::Content(e)))
}

/// Downloads `url` and returns the zip's SHA-256, size and the `h1:` it unpacks to,
/// reporting progress under `label`. The error names the URL and, after retries, how
/// many attempts were made.
pub async fn download_and_hash(
    http: &Http,
    url: &Url,
    limits: &ZipLimits,
    progress: &dyn Progress,
    label: &str,
) -> Result<ZipHashes, DownloadError> {
    let cap = max_download_bytes(limits);
    download(http, url, cap, progress, label, || {
        Ok(HashSink::start(url.clone(), limits.clone()))
    })
    .await
}

/// [`download_and_hash`], also writing the zip to `file` (emptied before each attempt):
/// for `tfsum mirror`, which unpacks the package it hashed instead of fetching it again.
pub async fn download_hash_and_keep(
    http: &Http,
    url: &Url,
    limits: &ZipLimits,
    progress: &dyn Progress,
    label: &str,
    file: &std::fs::File,
) -> Result<ZipHashes, DownloadError> {
    let cap = max_download_bytes(limits);
    download(http, url, cap, progress, label, || {
        use std::io::Seek as _;
        let mut copy = file.try_clone().map_err(|e| SinkError::Open(Arc::new(e)))?;
        copy.set_len(0)
            .and_then(|()| copy.rewind())
            .map_err(|e| SinkError::write("cannot write the package", e))?;
        Ok(KeepSink {
            hash: HashSink::start(url.clone(), limits.clone()),
            file: tokio::fs::File::from_std(copy),
        })
    })
    .await
}

/// A provider zip arriving from elsewhere than a URL download (an OCI blob): hashed
/// while it arrives and, with `keep`, written to that file (emptied first). `url` names
/// the zip in errors.
pub fn zip_sink(
    url: &Url,
    limits: &ZipLimits,
    keep: Option<&std::fs::File>,
) -> Result<ZipSink, SinkError> {
    let hash = HashSink::start(url.clone(), limits.clone());
    let Some(file) = keep else {
        return Ok(ZipSink::Hash(hash));
    };
    use std::io::Seek as _;
    let mut copy = file.try_clone().map_err(|e| SinkError::Open(Arc::new(e)))?;
    copy.set_len(0)
        .and_then(|()| copy.rewind())
        .map_err(|e| SinkError::write("cannot write the package", e))?;
    Ok(ZipSink::Keep(KeepSink {
        hash,
        file: tokio::fs::File::from_std(copy),
    }))
}

/// What [`zip_sink`] makes.
pub enum ZipSink {
    Hash(HashSink),
    Keep(KeepSink),
}

impl Sink for ZipSink {
    type Output = ZipHashes;

    async fn write(&mut self, chunk: Bytes) -> Result<(), SinkError> {
        match self {
            ZipSink::Hash(sink) => sink.write(chunk).await,
            ZipSink::Keep(sink) => sink.write(chunk).await,
        }
    }

    async fn finish(self) -> Result<ZipHashes, SinkError> {
        match self {
            ZipSink::Hash(sink) => sink.finish().await,
            ZipSink::Keep(sink) => sink.finish().await,
        }
    }

    async fn abandon(self) {
        match self {
            ZipSink::Hash(sink) => sink.abandon().await,
            ZipSink::Keep(sink) => sink.abandon().await,
        }
    }
}

/// A provider zip hashed while it arrives and written to a file.
pub struct KeepSink {
    hash: HashSink,
    file: tokio::fs::File,
}

impl Sink for KeepSink {
    type Output = ZipHashes;

    async fn write(&mut self, chunk: Bytes) -> Result<(), SinkError> {
        use tokio::io::AsyncWriteExt as _;
        self.file
            .write_all(&chunk)
            .await
            .map_err(|e| SinkError::write("cannot write the package", e))?;
        self.hash.write(chunk).await
    }

    async fn finish(mut self) -> Result<ZipHashes, SinkError> {
        use tokio::io::AsyncWriteExt as _;
        let written = self.file.flush().await;
        let hashes = self.hash.finish().await?;
        written.map_err(|e| SinkError::write("cannot write the package", e))?;
        Ok(hashes)
    }

    async fn abandon(self) {
        self.hash.abandon().await;
    }
}

/// Chunks a download may run ahead of its hasher. Each chunk keeps the whole read
/// buffer it was cut from (up to hundreds of KB) alive, so this bounds memory per
/// download: at 16, six downloads waiting on slow hashers held 50 MB (issue 25). Two
/// waiting chunks are enough to keep a hasher busy.
const QUEUED_CHUNKS: usize = 2;

/// A provider zip hashed while it arrives.
pub struct HashSink {
    url: Url,
    tx: mpsc::Sender<Bytes>,
    hasher: tokio::task::JoinHandle<Result<ZipHashes, HashError>>,
}

impl HashSink {
    fn start(url: Url, limits: ZipLimits) -> HashSink {
        let (tx, rx) = mpsc::channel::<Bytes>(QUEUED_CHUNKS);
        let hasher = tokio::task::spawn_blocking(move || {
            hash_zip_stream(
                ChannelReader {
                    rx,
                    current: Bytes::new(),
                },
                &limits,
            )
        });
        HashSink { url, tx, hasher }
    }
}

impl Sink for HashSink {
    type Output = ZipHashes;

    async fn write(&mut self, chunk: Bytes) -> Result<(), SinkError> {
        if self.tx.send(chunk).await.is_ok() {
            return Ok(());
        }
        // The hasher stopped early (a bad zip): its error is the cause.
        let url = Box::new(self.url.clone());
        match (&mut self.hasher).await {
            Ok(Err(error)) => Err(SinkError::Zip {
                url,
                error: Arc::new(error),
            }),
            Ok(Ok(_)) => Err(SinkError::EndedEarly { url }),
            Err(e) => Err(SinkError::Task(Arc::new(e))),
        }
    }

    async fn finish(self) -> Result<ZipHashes, SinkError> {
        drop(self.tx);
        let url = Box::new(self.url);
        self.hasher
            .await
            .map_err(|e| SinkError::Task(Arc::new(e)))?
            .map_err(|error| SinkError::Zip {
                url,
                error: Arc::new(error),
            })
    }

    async fn abandon(self) {
        drop(self.tx);
        let _ = self.hasher.await;
    }
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
    use crate::http::test_support::{serve, test_config};
    use std::time::{Duration, Instant};
    use tfsum_vocab::progress::NoProgress;

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
        let err = cut.unwrap_err().to_string();
        let cap = max_download_bytes(&limits);
        assert!(
            err.ends_with(&format!(
                "the package is larger than the limit of {cap} bytes"
            )),
            "{err}"
        );
    }

    /// A server that sends one byte every 100 ms keeps the connection busy but never
    /// finishes: the rate floor ends each attempt, and the deadline the whole download,
    /// retries included, with an error naming the URL.
    #[tokio::test]
    async fn a_dripping_server_is_cut_off_within_the_deadline() {
        use axum::body::Body;
        use axum::routing::get;
        let drip = axum::Router::new().route(
            "/drip.zip",
            get(|| async {
                let body = futures::stream::unfold((), |()| async {
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    Some((Ok::<_, std::io::Error>(Bytes::from_static(b"P")), ()))
                });
                Body::from_stream(body)
            }),
        );
        let (addr, log) = serve(drip).await;
        let url = Url::parse(&format!("http://user:PASSWORD@{addr}/drip.zip")).unwrap();
        let mut config = test_config();
        config.stream_idle_timeout = Duration::from_millis(500);
        config.download_deadline = Duration::from_secs(2);
        config.retry.max_attempts = 100;
        config.retry.base_delay = Duration::from_millis(10);
        let http = Http::new(config);
        let started = Instant::now();
        let err = download_and_hash(&http, &url, &ZipLimits::default(), &NoProgress, "pkg")
            .await
            .unwrap_err()
            .to_string();
        let took = started.elapsed();
        assert!(took < Duration::from_secs(4), "{took:?}");
        assert!(
            err.starts_with(&format!(
                "http://{addr}/drip.zip: the download did not finish within 2s"
            )),
            "{err}"
        );
        assert!(!err.contains("PASSWORD"), "{err}");
        // The rate floor cut the attempts short, and they were retried within the deadline.
        assert!(log.count("/drip.zip") >= 2, "{}", log.count("/drip.zip"));
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
