//! The organisation's shared cache: where it is, whose `h1:` entries to believe, and the
//! key that lets this run write. Like the cache directory, these come only from the user:
//! `--shared-cache`, the environment, or the user's own `config.toml`; a repository's
//! `.tfsum.toml` may set none of them ([`super::file`]).
//!
//! | variable                              | sets                                          |
//! |---------------------------------------|-----------------------------------------------|
//! | `TFSUM_SHARED_CACHE`                  | the URL, as `--shared-cache`                  |
//! | `TFSUM_SHARED_CACHE_TRUSTED_KEYS`     | public keys whose `h1:` entries are believed (space or comma separated) |
//! | `TFSUM_SHARED_CACHE_SIGNING_KEY`      | the writer's private key (PKCS#8 PEM); its holder writes |
//! | `TFSUM_SHARED_CACHE_SIGNING_KEY_FILE` | the same, read from a file                    |
//! | `TFSUM_SHARED_CACHE_ALLOW_HTTP`       | `1`: plain `http://` beyond the loopback interface |
//! | `TFSUM_SHARED_CACHE_TIMEOUT_SECS`     | the longest one request may take [default: 10] |

use std::time::Duration;

use url::Url;

use crate::commands::cli::SourceArgs;
use crate::net::shared_store::StoreOptions;
use crate::sources::registry::shared::{TrustedKey, WriterKey};

use super::{Environment, FileSettings, SettingsError};

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The shared cache of a run, validated.
#[derive(Debug, Clone)]
pub(crate) struct SharedSettings {
    pub store: StoreOptions,
    pub trusted: Vec<TrustedKey>,
    pub writer: Option<WriterKey>,
}

/// The shared cache the flags, the environment and the user's file name; `None` when
/// none does, or `--no-shared-cache`.
pub(super) fn settings(
    args: &SourceArgs,
    file: &FileSettings,
    env: &Environment,
) -> Result<Option<SharedSettings>, SettingsError> {
    if args.no_shared_cache {
        return Ok(None);
    }
    let (raw, from) = match (&args.shared_cache, env.var("TFSUM_SHARED_CACHE")) {
        (Some(url), _) => (url.clone(), "--shared-cache"),
        (None, Some(url)) => (url.to_string(), "TFSUM_SHARED_CACHE"),
        (None, None) => match &file.shared_cache {
            Some(url) => (url.clone(), "shared_cache"),
            None => return Ok(None),
        },
    };
    let url = Url::parse(&raw)
        .map_err(|e| SettingsError::Flag(format!("{from}: {raw:?} is not a URL: {e}")))?;
    let mut trusted = Vec::new();
    let mut trust = |text: &str, from: &str| -> Result<(), SettingsError> {
        let key = TrustedKey::parse(text).map_err(|e| {
            SettingsError::Flag(format!(
                "{from}: {text:?} is not an Ed25519 public key: {e}"
            ))
        })?;
        trusted.push(key);
        Ok(())
    };
    if let Some(keys) = env.var("TFSUM_SHARED_CACHE_TRUSTED_KEYS") {
        for key in keys.split([' ', ',', '\n', '\t']).filter(|k| !k.is_empty()) {
            trust(key, "TFSUM_SHARED_CACHE_TRUSTED_KEYS")?;
        }
    }
    for key in file.shared_cache_trusted_keys.iter().flatten() {
        trust(key, "shared_cache_trusted_keys")?;
    }
    let writer = match (
        env.var("TFSUM_SHARED_CACHE_SIGNING_KEY"),
        env.var("TFSUM_SHARED_CACHE_SIGNING_KEY_FILE"),
    ) {
        (Some(pem), _) => Some(writer_key(pem, "TFSUM_SHARED_CACHE_SIGNING_KEY")?),
        (None, Some(path)) => {
            let pem = std::fs::read_to_string(path).map_err(|e| {
                SettingsError::Flag(format!("TFSUM_SHARED_CACHE_SIGNING_KEY_FILE: {path}: {e}"))
            })?;
            Some(writer_key(&pem, "TFSUM_SHARED_CACHE_SIGNING_KEY_FILE")?)
        }
        (None, None) => None,
    };
    let allow_http = match env.var("TFSUM_SHARED_CACHE_ALLOW_HTTP") {
        Some("1" | "true") => true,
        Some("0" | "false") => false,
        Some(other) => {
            return Err(SettingsError::env(
                "TFSUM_SHARED_CACHE_ALLOW_HTTP",
                other,
                "1 or 0",
            ))
        }
        None => file.shared_cache_allow_http.unwrap_or(false),
    };
    let deadline = env
        .seconds("TFSUM_SHARED_CACHE_TIMEOUT_SECS")?
        .unwrap_or(DEFAULT_TIMEOUT);
    Ok(Some(SharedSettings {
        store: StoreOptions {
            url,
            vars: env.vars_with_prefixes(&["AWS_", "GOOGLE_", "AZURE_"]),
            allow_http,
            deadline,
        },
        trusted,
        writer,
    }))
}

/// The private key, named by where it came from when it does not parse (never quoted:
/// it is a secret).
fn writer_key(pem: &str, from: &str) -> Result<WriterKey, SettingsError> {
    WriterKey::parse(pem).map_err(|e| SettingsError::Flag(format!("{from}: {e}")))
}
