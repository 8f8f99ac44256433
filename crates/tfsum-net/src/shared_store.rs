//! The organisation's shared cache as storage: small immutable objects under one URL
//! (`s3://`, `gs://`, `az://`, `https://` as WebDAV servers serve it, `file://`), read
//! and written through `object_store` with each cloud's own credential chain.
//!
//! The store is an optimisation a run must never depend on. Every request has a
//! deadline; the first request that fails for another reason than "not there" marks the
//! store down for the rest of the run (one warning, no more requests), and a refused
//! write stops further writes only. What an object says is not trusted here: the
//! registry source checks every object it reads (`sources::registry::shared`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use object_store::client::{HttpClient, HttpConnector};
use object_store::path::Path as ObjectPath;
use object_store::{ClientConfigKey, ClientOptions, ObjectStore, PutMode, PutOptions, RetryConfig};
use url::Url;

use crate::http::HttpConfig;

/// Largest object read: entries are a few KiB; a SHA256SUMS with its keys stays far below.
const MAX_OBJECT_BYTES: usize = 4 << 20;

/// Where the shared cache is and how to reach it; plain values from the settings.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    pub url: Url,
    /// The environment the cloud credential chains read (`AWS_*`, `GOOGLE_*`, `AZURE_*`).
    pub vars: Vec<(String, String)>,
    /// Plain `http://` to a host that is not the loopback interface.
    pub allow_http: bool,
    /// The longest one request may take, retries included.
    pub deadline: Duration,
}

/// A shared cache URL tfsum cannot use; the run stops before anything is locked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the shared cache URL {url}: unsupported scheme {scheme:?}; use s3://, gs://, az://, https:// or file://")]
    Scheme { url: String, scheme: String },
    #[error("the shared cache URL {url}: plain http:// is allowed only to the loopback interface; use https://, or allow it with TFSUM_SHARED_CACHE_ALLOW_HTTP=1 or shared_cache_allow_http = true in your own config.toml")]
    PlainHttp { url: String },
    #[error("the shared cache URL {url}: {message}")]
    Invalid { url: String, message: String },
}

/// What a read found.
#[derive(Debug)]
pub enum Fetched {
    Found(Vec<u8>),
    Missing,
    /// The store is down (now or earlier in the run), or the object was too large.
    Unavailable,
}

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    Written,
    /// Someone wrote it first (a conditional create found it).
    AlreadyThere,
    /// Not written: the store is down or refuses writes (already warned about).
    Failed,
}

/// What went wrong with the shared cache in a run; the run went on without it, or
/// without the object. `store` is the cache's URL as reports show it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SharedWarning {
    #[error("shared cache {store} unavailable ({what}); this run continues without it")]
    Unavailable { store: String, what: String },
    #[error(
        "shared cache {store}: writing {key}: {error}; nothing more is written to it in this run"
    )]
    WriteFailed {
        store: String,
        key: String,
        error: String,
    },
    #[error("shared cache {store}: {key} is larger than {MAX_OBJECT_BYTES} bytes; ignored")]
    TooLarge { store: String, key: String },
    /// An object that was read but not believed.
    #[error("shared cache {store}: ignored {key}: {why}")]
    Ignored {
        store: String,
        key: String,
        why: String,
    },
}

/// One shared cache, for one run.
pub struct SharedStore {
    store: Arc<dyn ObjectStore>,
    prefix: Vec<String>,
    /// The URL as the reports show it (credentials removed).
    shown: String,
    deadline: Duration,
    /// Whether the store refuses a create of an object that exists (S3, GCS, Azure,
    /// files); a plain HTTP server overwrites, which identical content makes harmless.
    conditional: bool,
    down: AtomicBool,
    /// Until one request has been answered, requests go one at a time: a store that is
    /// down or stalls then costs one deadline, not one per package in flight.
    answered: AtomicBool,
    first: tokio::sync::Mutex<()>,
    no_writes: AtomicBool,
    warnings: Mutex<Vec<SharedWarning>>,
}

impl std::fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedStore")
            .field("url", &self.shown)
            .finish()
    }
}

impl SharedStore {
    /// Builds the client for `options.url` over the run's HTTP settings. Nothing is
    /// requested yet.
    pub fn open(options: &StoreOptions, http: &HttpConfig) -> Result<SharedStore, StoreError> {
        let opening = Opening {
            options,
            http,
            shown: shown(&options.url),
        };
        let Built {
            store,
            prefix,
            conditional,
        } = opening.store()?;
        Ok(SharedStore {
            store,
            prefix,
            shown: opening.shown,
            deadline: options.deadline,
            conditional,
            down: AtomicBool::new(false),
            answered: AtomicBool::new(false),
            first: tokio::sync::Mutex::new(()),
            no_writes: AtomicBool::new(false),
            warnings: Mutex::default(),
        })
    }

    /// The URL as reports show it.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// What went wrong with the store during the run, one warning per problem.
    pub fn warnings(&self) -> Vec<SharedWarning> {
        self.warnings.lock().map(|w| w.clone()).unwrap_or_default()
    }

    /// Warns once about a problem with the store, or with what it held.
    pub fn warn(&self, warning: SharedWarning) {
        if let Ok(mut warnings) = self.warnings.lock() {
            if !warnings.contains(&warning) {
                warnings.push(warning);
            }
        }
    }

    /// The object at `key` (`/`-separated, below the URL's path), within the deadline.
    pub async fn get(&self, key: &str) -> Fetched {
        let _first = self.first_request().await;
        if self.down.load(Ordering::Relaxed) {
            return Fetched::Unavailable;
        }
        let location = self.location(key);
        let read = async {
            let result = self.store.get(&location).await?;
            let mut stream = result.into_stream();
            let mut bytes = Vec::new();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk?;
                if bytes.len() + chunk.len() > MAX_OBJECT_BYTES {
                    return Ok(None);
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok::<_, object_store::Error>(Some(bytes))
        };
        let answer = tokio::time::timeout(self.deadline, read).await;
        if matches!(
            answer,
            Ok(Ok(_) | Err(object_store::Error::NotFound { .. }))
        ) {
            self.answered.store(true, Ordering::Relaxed);
        }
        match answer {
            Ok(Ok(Some(bytes))) => Fetched::Found(bytes),
            Ok(Ok(None)) => {
                self.warn(SharedWarning::TooLarge {
                    store: self.shown.clone(),
                    key: key.to_string(),
                });
                Fetched::Unavailable
            }
            Ok(Err(object_store::Error::NotFound { .. })) => Fetched::Missing,
            Ok(Err(e)) => self.fail(&format!("reading {key}: {}", one_line(&e))),
            Err(_) => self.fail(&format!(
                "reading {key}: no answer within {} s",
                self.deadline.as_secs_f64()
            )),
        }
    }

    /// Stores `bytes` at `key`: created only if absent where the store can tell, unless
    /// `replace` (an object that was there and failed its checks).
    pub async fn put(&self, key: &str, bytes: Vec<u8>, replace: bool) -> Stored {
        let _first = self.first_request().await;
        if self.down.load(Ordering::Relaxed) || self.no_writes.load(Ordering::Relaxed) {
            return Stored::Failed;
        }
        let mode = if self.conditional && !replace {
            PutMode::Create
        } else {
            PutMode::Overwrite
        };
        let options = PutOptions {
            mode,
            ..PutOptions::default()
        };
        let location = self.location(key);
        let write = self.store.put_opts(&location, bytes.into(), options);
        let answer = tokio::time::timeout(self.deadline, write).await;
        if answer.is_ok() {
            self.answered.store(true, Ordering::Relaxed);
        }
        match answer {
            Ok(Ok(_)) => Stored::Written,
            Ok(Err(object_store::Error::AlreadyExists { .. })) => Stored::AlreadyThere,
            Ok(Err(e)) => {
                self.no_writes.store(true, Ordering::Relaxed);
                self.warn(SharedWarning::WriteFailed {
                    store: self.shown.clone(),
                    key: key.to_string(),
                    error: one_line(&e),
                });
                Stored::Failed
            }
            Err(_) => {
                self.fail(&format!(
                    "writing {key}: no answer within {} s",
                    self.deadline.as_secs_f64()
                ));
                Stored::Failed
            }
        }
    }

    /// Holds the one-at-a-time gate until the store has answered once.
    async fn first_request(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        if self.answered.load(Ordering::Relaxed) {
            return None;
        }
        let guard = self.first.lock().await;
        (!self.answered.load(Ordering::Relaxed)).then_some(guard)
    }

    fn location(&self, key: &str) -> ObjectPath {
        ObjectPath::from_iter(
            self.prefix
                .iter()
                .map(String::as_str)
                .chain(key.split('/').filter(|s| !s.is_empty())),
        )
    }

    /// Marks the store down for the rest of the run.
    fn fail(&self, what: &str) -> Fetched {
        self.down.store(true, Ordering::Relaxed);
        self.warn(SharedWarning::Unavailable {
            store: self.shown.clone(),
            what: what.to_string(),
        });
        Fetched::Unavailable
    }
}

/// A store being built for [`SharedStore::open`]: the settings every scheme's builder
/// takes its part of.
struct Opening<'a> {
    options: &'a StoreOptions,
    http: &'a HttpConfig,
    /// The URL as errors show it.
    shown: String,
}

/// A built store, the path below the bucket its objects live under, and whether it
/// refuses a create of an object that exists.
struct Built {
    store: Arc<dyn ObjectStore>,
    prefix: Vec<String>,
    conditional: bool,
}

/// One cloud's store (`$builder`): the variables of its `$prefix`, the URL, the
/// deadlines; a prefix below the bucket; creates that refuse an existing object. A macro
/// because the clouds' builders share these methods but no trait.
macro_rules! cloud_store {
    ($opening:expr, $builder:expr, $prefix:literal, $endpoint:expr) => {{
        let opening: &Opening<'_> = $opening;
        let mut builder = $builder;
        for (key, value) in opening.vars($prefix) {
            if let Ok(config) = key.parse() {
                builder = builder.with_config(config, value);
            }
        }
        let store = builder
            .with_url(opening.options.url.as_str())
            .with_client_options(opening.client($endpoint)?)
            .with_http_connector(Connector(opening.http.clone()))
            .with_retry(opening.retry())
            .build()
            .map_err(|e| opening.invalid(e))?;
        Built {
            store: Arc::new(store),
            prefix: opening.path_prefix(),
            conditional: true,
        }
    }};
}

impl Opening<'_> {
    /// The store the URL's scheme names.
    fn store(&self) -> Result<Built, StoreError> {
        match self.options.url.scheme() {
            "s3" => {
                let endpoint = self.endpoint("AWS_", &["aws_endpoint_url", "aws_endpoint"]);
                let builder = object_store::aws::AmazonS3Builder::new();
                Ok(cloud_store!(self, builder, "AWS_", endpoint.as_deref()))
            }
            "gs" => {
                let builder = object_store::gcp::GoogleCloudStorageBuilder::new();
                Ok(cloud_store!(self, builder, "GOOGLE_", None))
            }
            "az" | "azure" | "abfs" | "abfss" => {
                let endpoint = self.azure_endpoint();
                let builder = object_store::azure::MicrosoftAzureBuilder::new();
                Ok(cloud_store!(self, builder, "AZURE_", endpoint.as_deref()))
            }
            "https" | "http" => self.http_store(),
            "file" => self.file_store(),
            other => Err(StoreError::Scheme {
                url: self.shown.clone(),
                scheme: other.to_string(),
            }),
        }
    }

    /// A plain HTTP server's store: objects at the URL's path, and a create overwrites.
    fn http_store(&self) -> Result<Built, StoreError> {
        let url = self.options.url.as_str();
        let store = object_store::http::HttpBuilder::new()
            .with_url(url)
            .with_client_options(self.client(Some(url))?)
            .with_http_connector(Connector(self.http.clone()))
            .with_retry(self.retry())
            .build()
            .map_err(|e| self.invalid(e))?;
        Ok(Built {
            store: Arc::new(store),
            prefix: Vec::new(),
            conditional: false,
        })
    }

    /// A local directory's store, the directory created when missing.
    fn file_store(&self) -> Result<Built, StoreError> {
        let dir = self
            .options
            .url
            .to_file_path()
            .map_err(|()| StoreError::Invalid {
                url: self.shown.clone(),
                message: "not a local path".to_string(),
            })?;
        std::fs::create_dir_all(&dir).map_err(|e| StoreError::Invalid {
            url: self.shown.clone(),
            message: e.to_string(),
        })?;
        let store = object_store::local::LocalFileSystem::new_with_prefix(&dir)
            .map_err(|e| self.invalid(e))?;
        Ok(Built {
            store: Arc::new(store),
            prefix: Vec::new(),
            conditional: true,
        })
    }

    /// The variables starting with `prefix`, named as the builders' config keys are
    /// (lower case).
    fn vars(&self, prefix: &str) -> Vec<(String, String)> {
        self.options
            .vars
            .iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
            .collect()
    }

    /// The first of `keys` among the variables of `prefix`: the endpoint a cloud's
    /// variables name.
    fn endpoint(&self, prefix: &str, keys: &[&str]) -> Option<String> {
        self.vars(prefix)
            .into_iter()
            .find(|(k, _)| keys.contains(&k.as_str()))
            .map(|(_, v)| v)
    }

    /// Azure's endpoint; the emulator (Azurite) is plain HTTP, held to the same rule.
    fn azure_endpoint(&self) -> Option<String> {
        let emulator = self
            .vars("AZURE_")
            .iter()
            .any(|(k, v)| k == "azure_storage_use_emulator" && v.eq_ignore_ascii_case("true"));
        if !emulator {
            return self.endpoint("AZURE_", &["azure_storage_endpoint", "azure_endpoint"]);
        }
        Some(
            self.options
                .vars
                .iter()
                .find(|(k, _)| k == "AZURITE_BLOB_STORAGE_URL")
                .map_or("http://127.0.0.1:10000".to_string(), |(_, v)| v.clone()),
        )
    }

    /// The client options for a store at `endpoint`: plain HTTP only to the loopback
    /// interface unless allowed, and the run's deadlines.
    fn client(&self, endpoint: Option<&str>) -> Result<ClientOptions, StoreError> {
        let plain = endpoint.is_some_and(|e| e.starts_with("http://"));
        if plain && !self.options.allow_http && !endpoint.is_some_and(is_loopback) {
            return Err(StoreError::PlainHttp {
                url: self.shown.clone(),
            });
        }
        Ok(ClientOptions::new()
            .with_allow_http(plain)
            .with_timeout(self.options.deadline)
            .with_connect_timeout(self.options.deadline.min(self.http.connect_timeout)))
    }

    /// One retry, within the deadline.
    fn retry(&self) -> RetryConfig {
        RetryConfig {
            max_retries: 1,
            retry_timeout: self.options.deadline,
            ..RetryConfig::default()
        }
    }

    /// The URL's path, the objects' place below the bucket.
    fn path_prefix(&self) -> Vec<String> {
        self.options
            .url
            .path_segments()
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }

    fn invalid(&self, e: object_store::Error) -> StoreError {
        StoreError::Invalid {
            url: self.shown.clone(),
            message: e.to_string(),
        }
    }
}

/// `object_store`'s client factory over tfsum's: trust roots and proxies from the run's
/// [`HttpConfig`] (its own client would read neither `SSL_CERT_FILE`/`SSL_CERT_DIR` nor
/// tfsum's `NO_PROXY` rules, so a store behind a TLS-inspecting proxy failed where the
/// registry worked), and from `object_store` what it asks of each client: the deadlines,
/// plain HTTP (also for the clouds' metadata servers), HTTP/1.
#[derive(Debug)]
struct Connector(HttpConfig);

impl HttpConnector for Connector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let setting = |key: ClientConfigKey| options.get_config_value(&key);
        let duration =
            |key: ClientConfigKey| setting(key).and_then(|d| humantime::parse_duration(&d).ok());
        let generic = |message: String| object_store::Error::Generic {
            store: "shared cache",
            source: message.into(),
        };
        let mut builder = self
            .0
            .client_builder()
            .map_err(generic)?
            .https_only(setting(ClientConfigKey::AllowHttp).as_deref() != Some("true"))
            // Sizes are read from `Content-Length`; compression would hide them.
            .no_gzip()
            .no_brotli()
            .no_zstd()
            .no_deflate();
        if let Some(timeout) = duration(ClientConfigKey::Timeout) {
            builder = builder.timeout(timeout);
        }
        if let Some(timeout) = duration(ClientConfigKey::ConnectTimeout) {
            builder = builder.connect_timeout(timeout);
        }
        if setting(ClientConfigKey::Http1Only).as_deref() == Some("true") {
            builder = builder.http1_only();
        }
        let client = builder.build().map_err(|e| generic(e.to_string()))?;
        Ok(HttpClient::new(client))
    }
}

/// Whether an `http://` URL points at the loopback interface.
fn is_loopback(url: &str) -> bool {
    let Ok(url) = Url::parse(url) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// The URL without credentials or query (a pre-signed URL's signature is a secret).
fn shown(url: &Url) -> String {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.to_string()
}

/// An error on one line: `object_store` nests sources with newlines.
fn one_line(error: &object_store::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        let inner_text = inner.to_string();
        if !text.contains(&inner_text) {
            text.push_str(": ");
            text.push_str(&inner_text);
        }
        source = inner.source();
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(options: &StoreOptions) -> Result<SharedStore, StoreError> {
        SharedStore::open(options, &HttpConfig::default())
    }

    fn options(url: &str) -> StoreOptions {
        StoreOptions {
            url: Url::parse(url).unwrap(),
            vars: vec![
                ("AWS_ACCESS_KEY_ID".into(), "a".into()),
                ("AWS_SECRET_ACCESS_KEY".into(), "b".into()),
                ("AWS_REGION".into(), "us-east-1".into()),
            ],
            allow_http: false,
            deadline: Duration::from_secs(2),
        }
    }

    #[test]
    fn plain_http_only_to_loopback_unless_allowed() {
        assert!(open(&options("http://127.0.0.1:9/cache")).is_ok());
        assert!(open(&options("http://localhost:9/cache")).is_ok());
        let far = open(&options("http://cache.example.com/x"));
        assert!(matches!(far, Err(StoreError::PlainHttp { .. })), "{far:?}");
        let mut allowed = options("http://cache.example.com/x");
        allowed.allow_http = true;
        assert!(open(&allowed).is_ok());
        let mut s3 = options("s3://bucket/prefix");
        s3.vars
            .push(("AWS_ENDPOINT_URL".into(), "http://minio.example.com".into()));
        assert!(matches!(open(&s3), Err(StoreError::PlainHttp { .. })));
        assert!(matches!(
            open(&options("ftp://x/y")),
            Err(StoreError::Scheme { .. })
        ));
    }

    /// The store's client is built from the run's trust roots: an `SSL_CERT_FILE` that
    /// cannot be read stops it as it stops the registry's.
    #[test]
    fn the_store_client_takes_the_runs_trust_roots() {
        let http = HttpConfig {
            trust: crate::http::Trust {
                cert_file: Some("/nonexistent/tfsum-ca.pem".into()),
                system: false,
                ..Default::default()
            },
            ..HttpConfig::default()
        };
        for url in ["https://cache.example.com/c/", "s3://bucket/prefix"] {
            let err = SharedStore::open(&options(url), &http).unwrap_err();
            assert!(err.to_string().contains("SSL_CERT_FILE"), "{url}: {err}");
        }
    }

    #[test]
    fn credentials_in_the_url_are_not_shown() {
        let store = open(&options("https://user:secret@cache.example.com/c?sig=1")).unwrap();
        assert_eq!(store.shown(), "https://cache.example.com/c");
    }

    #[tokio::test]
    async fn files_round_trip_and_create_is_conditional() {
        let dir = tempfile::tempdir().unwrap();
        let url = Url::from_directory_path(dir.path()).unwrap();
        let store = open(&options(url.as_str())).unwrap();
        assert!(matches!(store.get("v1/a/b.json").await, Fetched::Missing));
        assert_eq!(
            store.put("v1/a/b.json", b"one".to_vec(), false).await,
            Stored::Written
        );
        assert_eq!(
            store.put("v1/a/b.json", b"two".to_vec(), false).await,
            Stored::AlreadyThere
        );
        assert!(matches!(store.get("v1/a/b.json").await, Fetched::Found(b) if b == b"one"));
        assert_eq!(
            store.put("v1/a/b.json", b"two".to_vec(), true).await,
            Stored::Written
        );
        assert!(matches!(store.get("v1/a/b.json").await, Fetched::Found(b) if b == b"two"));
        assert!(store.warnings().is_empty());
    }

    #[tokio::test]
    async fn an_unreachable_store_is_asked_once() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let store = open(&options(&format!("http://127.0.0.1:{port}/c"))).unwrap();
        assert!(matches!(store.get("a").await, Fetched::Unavailable));
        assert!(matches!(store.get("b").await, Fetched::Unavailable));
        assert_eq!(store.put("c", b"x".to_vec(), false).await, Stored::Failed);
        let warnings = store.warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            matches!(&warnings[0], SharedWarning::Unavailable { .. }),
            "{warnings:?}"
        );
        assert!(
            warnings[0].to_string().contains("unavailable"),
            "{warnings:?}"
        );
    }
}
