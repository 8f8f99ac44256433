//! The organisation's shared cache: where it is, whose `h1:` entries to believe, and the
//! key that lets this run write. Like the cache directory, these come only from the user:
//! `--shared-cache`, the environment, or the user's own `config.toml`; a repository's
//! `.tfsum.toml` may set none of them ([`super::file`]).
//!
//! | variable                              | sets                                          |
//! |---------------------------------------|-----------------------------------------------|
//! | `TFSUM_SHARED_CACHE`                  | the URL, as `--shared-cache`                  |
//! | `TFSUM_SHARED_CACHE_TRUSTED_KEYS`     | public keys whose `h1:` entries are believed: PEM blocks or base64 lines, space or comma separated |
//! | `TFSUM_SHARED_CACHE_SIGNING_KEY`      | the writer's private key (PKCS#8 PEM); its holder writes |
//! | `TFSUM_SHARED_CACHE_SIGNING_KEY_FILE` | the same, read from a file                    |
//! | `TFSUM_SHARED_CACHE_ALLOW_HTTP`       | `1`: plain `http://` beyond the loopback interface |
//! | `TFSUM_SHARED_CACHE_TIMEOUT_SECS`     | the longest one request may take [default: 10] |

use std::time::Duration;

use url::Url;

use crate::commands::cli::SourceArgs;
use tfsum_net::shared_store::StoreOptions;
use tfsum_sources::registry::shared::{TrustedKey, WriterKey};

use super::{Environment, FileSettings, SettingsError};

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The shared cache of a run, validated.
#[derive(Debug, Clone)]
pub(crate) struct SharedSettings {
    pub store: StoreOptions,
    pub trusted: Vec<TrustedKey>,
    pub writer: Option<WriterKey>,
    /// `--fill-shared-cache`: also write what the local cache already had.
    pub fill: bool,
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
    let Some((raw, from)) = named_url(args, file, env) else {
        return if args.fill_shared_cache {
            Err(SettingsError::Flag(
                "--fill-shared-cache: no shared cache is configured (--shared-cache, TFSUM_SHARED_CACHE or shared_cache in your own config.toml)".to_string(),
            ))
        } else {
            Ok(None)
        };
    };
    let url = Url::parse(&raw)
        .map_err(|e| SettingsError::Flag(format!("{from}: {raw:?} is not a URL: {e}")))?;
    let trusted = trusted_keys(file, env)?;
    let writer = signing_key(env)?;
    let allow_http = allow_http(file, env)?;
    let deadline = env
        .seconds("TFSUM_SHARED_CACHE_TIMEOUT_SECS")?
        .unwrap_or(DEFAULT_TIMEOUT);
    if args.fill_shared_cache && writer.is_none() {
        return Err(SettingsError::Flag(
            "--fill-shared-cache writes signed entries: it needs the writer's private key in TFSUM_SHARED_CACHE_SIGNING_KEY or TFSUM_SHARED_CACHE_SIGNING_KEY_FILE".to_string(),
        ));
    }
    Ok(Some(SharedSettings {
        store: StoreOptions {
            url,
            vars: cloud_vars(env),
            allow_http,
            deadline,
        },
        trusted,
        writer,
        fill: args.fill_shared_cache,
    }))
}

/// The shared cache's URL as written, and where: the flag, else the environment, else
/// the user's file.
fn named_url(
    args: &SourceArgs,
    file: &FileSettings,
    env: &Environment,
) -> Option<(String, &'static str)> {
    match (&args.shared_cache, env.var("TFSUM_SHARED_CACHE")) {
        (Some(url), _) => Some((url.clone(), "--shared-cache")),
        (None, Some(url)) => Some((url.to_string(), "TFSUM_SHARED_CACHE")),
        (None, None) => file
            .shared_cache
            .as_ref()
            .map(|url| (url.clone(), "shared_cache")),
    }
}

/// The writers' public keys: the environment's first, then the user's file's.
fn trusted_keys(file: &FileSettings, env: &Environment) -> Result<Vec<TrustedKey>, SettingsError> {
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
        for key in key_texts(keys) {
            trust(key, "TFSUM_SHARED_CACHE_TRUSTED_KEYS")?;
        }
    }
    for key in file.shared_cache_trusted_keys.iter().flatten() {
        trust(key, "shared_cache_trusted_keys")?;
    }
    Ok(trusted)
}

/// The private key this run signs entries with, from the environment (the key, or the
/// file holding it); `None` for a run that only reads.
fn signing_key(env: &Environment) -> Result<Option<WriterKey>, SettingsError> {
    match (
        env.var("TFSUM_SHARED_CACHE_SIGNING_KEY"),
        env.var("TFSUM_SHARED_CACHE_SIGNING_KEY_FILE"),
    ) {
        (Some(pem), _) => Ok(Some(writer_key(pem, "TFSUM_SHARED_CACHE_SIGNING_KEY")?)),
        (None, Some(path)) => {
            let pem = std::fs::read_to_string(path).map_err(|e| {
                SettingsError::Flag(format!("TFSUM_SHARED_CACHE_SIGNING_KEY_FILE: {path}: {e}"))
            })?;
            Ok(Some(writer_key(
                &pem,
                "TFSUM_SHARED_CACHE_SIGNING_KEY_FILE",
            )?))
        }
        (None, None) => Ok(None),
    }
}

/// Whether a plain `http://` shared cache is allowed: the environment, else the user's
/// file, else no.
fn allow_http(file: &FileSettings, env: &Environment) -> Result<bool, SettingsError> {
    match env.var("TFSUM_SHARED_CACHE_ALLOW_HTTP") {
        Some("1" | "true") => Ok(true),
        Some("0" | "false") => Ok(false),
        Some(other) => Err(SettingsError::env(
            "TFSUM_SHARED_CACHE_ALLOW_HTTP",
            other,
            "1 or 0",
        )),
        None => Ok(file.shared_cache_allow_http.unwrap_or(false)),
    }
}

/// The keys of a list as `openssl pkey -pubout` prints them or as one base64 line each,
/// separated by spaces, commas or newlines: a PEM block is one key, whitespace and all
/// (splitting it at its spaces is what made `-----BEGIN` look like a key).
fn key_texts(list: &str) -> Vec<&str> {
    const SEPARATORS: [char; 4] = [' ', ',', '\n', '\t'];
    const END: &str = "-----END";
    let mut keys = Vec::new();
    let mut rest = list.trim_start_matches(|c: char| SEPARATORS.contains(&c) || c == '\r');
    while !rest.is_empty() {
        let len = match rest.strip_prefix("-----BEGIN").and(rest.find(END)) {
            // The footer line ends at the dashes after its label.
            Some(end) => {
                let label = end + END.len();
                rest[label..]
                    .find("-----")
                    .map_or(rest.len(), |dashes| label + dashes + "-----".len())
            }
            None => rest.find(SEPARATORS).unwrap_or(rest.len()),
        };
        keys.push(&rest[..len]);
        rest = rest[len..].trim_start_matches(|c: char| SEPARATORS.contains(&c) || c == '\r');
    }
    keys
}

/// The environment of the cloud credential chains, plus, without `AWS_ACCESS_KEY_ID`,
/// the static keys and region of the AWS profile (`AWS_PROFILE`, else `default`) from the
/// AWS CLI's files. Roles and SSO in a profile are not followed (docs/shared-cache.md says
/// how to export them instead).
fn cloud_vars(env: &Environment) -> Vec<(String, String)> {
    let mut vars = env.vars_with_prefixes(&["AWS_", "GOOGLE_", "AZURE_", "AZURITE_"]);
    if env.var("AWS_ACCESS_KEY_ID").is_some() {
        return vars;
    }
    let profile = env.var("AWS_PROFILE").unwrap_or("default");
    let file = |var: &str, name: &str| {
        env.var(var)
            .map(std::path::PathBuf::from)
            .or_else(|| env.home().map(|h| h.join(".aws").join(name)))
            .and_then(|path| std::fs::read_to_string(path).ok())
    };
    let credentials = file("AWS_SHARED_CREDENTIALS_FILE", "credentials")
        .map(|text| ini_section(&text, profile))
        .unwrap_or_default();
    for (key, var) in [
        ("aws_access_key_id", "AWS_ACCESS_KEY_ID"),
        ("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY"),
        ("aws_session_token", "AWS_SESSION_TOKEN"),
    ] {
        if let Some((_, value)) = credentials.iter().find(|(k, _)| k == key) {
            vars.push((var.to_string(), value.clone()));
        }
    }
    if env.var("AWS_REGION").is_none() && env.var("AWS_DEFAULT_REGION").is_none() {
        let section = if profile == "default" {
            "default".to_string()
        } else {
            format!("profile {profile}")
        };
        let config = file("AWS_CONFIG_FILE", "config")
            .map(|text| ini_section(&text, &section))
            .unwrap_or_default();
        if let Some((_, region)) = config.iter().find(|(k, _)| k == "region") {
            vars.push(("AWS_REGION".to_string(), region.clone()));
        }
    }
    vars
}

/// The `key = value` lines of `[section]` in an INI file as the AWS CLI writes them.
fn ini_section(text: &str, section: &str) -> Vec<(String, String)> {
    let mut inside = false;
    let mut found = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = name.trim() == section;
        } else if let (true, Some((key, value))) = (inside, line.split_once('=')) {
            found.push((key.trim().to_string(), value.trim().to_string()));
        }
    }
    found
}

/// The private key, named by where it came from when it does not parse (never quoted:
/// it is a secret).
fn writer_key(pem: &str, from: &str) -> Result<WriterKey, SettingsError> {
    WriterKey::parse(pem).map_err(|e| SettingsError::Flag(format!("{from}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_aws_profile_supplies_keys_and_region_when_the_environment_does_not() {
        let home = tempfile::tempdir().unwrap();
        let aws = home.path().join(".aws");
        std::fs::create_dir_all(&aws).unwrap();
        std::fs::write(
            aws.join("credentials"),
            "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n\n[ci]\n# comment\naws_access_key_id=C\naws_secret_access_key = CS\naws_session_token = CT\n",
        )
        .unwrap();
        std::fs::write(
            aws.join("config"),
            "[default]\nregion = eu-west-1\n[profile ci]\nregion = us-east-2\n",
        )
        .unwrap();
        let home_text = home.path().to_str().unwrap();
        let get = |vars: &[(String, String)], name: &str| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        };
        let env = Environment::from_vars([("HOME", home_text), ("AWS_PROFILE", "ci")]);
        let vars = cloud_vars(&env);
        assert_eq!(get(&vars, "AWS_ACCESS_KEY_ID").as_deref(), Some("C"));
        assert_eq!(get(&vars, "AWS_SECRET_ACCESS_KEY").as_deref(), Some("CS"));
        assert_eq!(get(&vars, "AWS_SESSION_TOKEN").as_deref(), Some("CT"));
        assert_eq!(get(&vars, "AWS_REGION").as_deref(), Some("us-east-2"));
        let env = Environment::from_vars([("HOME", home_text)]);
        let vars = cloud_vars(&env);
        assert_eq!(get(&vars, "AWS_ACCESS_KEY_ID").as_deref(), Some("D"));
        assert_eq!(get(&vars, "AWS_REGION").as_deref(), Some("eu-west-1"));
        // The environment wins, whole.
        let env = Environment::from_vars([
            ("HOME", home_text),
            ("AWS_ACCESS_KEY_ID", "E"),
            ("AWS_SECRET_ACCESS_KEY", "ES"),
        ]);
        let vars = cloud_vars(&env);
        assert_eq!(get(&vars, "AWS_ACCESS_KEY_ID").as_deref(), Some("E"));
        assert_eq!(get(&vars, "AWS_REGION"), None);
    }

    /// PEM blocks (as `openssl pkey -pubout` prints them, CRLF too) and base64 lines mix
    /// in one variable; the file's list takes either.
    #[test]
    fn trusted_keys_are_pem_blocks_or_base64_lines() {
        use ed25519_dalek::pkcs8::EncodePublicKey;
        let keys: Vec<_> = [1u8, 2, 3]
            .map(|seed| ed25519_dalek::SigningKey::from_bytes(&[seed; 32]).verifying_key())
            .into();
        let pem =
            |key: &ed25519_dalek::VerifyingKey| key.to_public_key_pem(Default::default()).unwrap();
        let line = TrustedKey::parse(&pem(&keys[2])).unwrap().encoded();
        let listed = format!(
            "{}\n{}, {line}\n",
            pem(&keys[0]),
            pem(&keys[1]).replace('\n', "\r\n")
        );
        let expected: Vec<TrustedKey> = keys
            .iter()
            .map(|k| TrustedKey::parse(&pem(k)).unwrap())
            .collect();
        let env = Environment::from_vars([
            ("TFSUM_SHARED_CACHE", "file:///tmp/x"),
            ("TFSUM_SHARED_CACHE_TRUSTED_KEYS", listed.as_str()),
        ]);
        let args = crate::commands::cli::SourceArgs::default();
        let shared = settings(&args, &FileSettings::default(), &env)
            .unwrap()
            .unwrap();
        assert_eq!(shared.trusted, expected);
        let file = FileSettings {
            shared_cache: Some("file:///tmp/x".to_string()),
            shared_cache_trusted_keys: Some(vec![pem(&keys[0]), line]),
            ..FileSettings::default()
        };
        let env = Environment::from_vars([("HOME", "/nonexistent")]);
        let shared = settings(&args, &file, &env).unwrap().unwrap();
        assert_eq!(
            shared.trusted,
            [&expected[0], &expected[2]].map(Clone::clone)
        );
    }

    #[test]
    fn keys_that_do_not_parse_are_named() {
        let env = Environment::from_vars([
            ("TFSUM_SHARED_CACHE", "file:///tmp/x"),
            ("TFSUM_SHARED_CACHE_TRUSTED_KEYS", "nonsense"),
        ]);
        let args = crate::commands::cli::SourceArgs::default();
        let err = settings(&args, &FileSettings::default(), &env).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("TFSUM_SHARED_CACHE_TRUSTED_KEYS: \"nonsense\""),
            "{err}"
        );
        let env = Environment::from_vars([
            ("TFSUM_SHARED_CACHE", "file:///tmp/x"),
            ("TFSUM_SHARED_CACHE_SIGNING_KEY", "secret-not-a-key"),
        ]);
        let err = settings(&args, &FileSettings::default(), &env)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("TFSUM_SHARED_CACHE_SIGNING_KEY: "), "{err}");
        assert!(
            !err.contains("secret-not-a-key"),
            "the secret was printed: {err}"
        );
    }
}
