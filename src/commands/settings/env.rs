//! The process environment: captured once by the binary ([`Environment::capture`]) and
//! read only here. Every variable tfsum itself understands is named in this file:
//!
//! | variable                     | sets                                               |
//! |------------------------------|----------------------------------------------------|
//! | `TFSUM_PLATFORMS`, `TFSUM_JOBS`, `TFSUM_PER_HOST`, `TFSUM_CACHE_DIR`, `TFSUM_FLAVOR`, `TFSUM_VERSIONS_TTL`, `TFSUM_CONFIG` | as their flags ([`super`]) |
//! | `TFSUM_HTTP_TIMEOUT_SECS`    | connect, request and stream-idle timeouts           |
//! | `TFSUM_DOWNLOAD_DEADLINE_SECS` | the longest one download may take, retries included |
//! | `TFSUM_RETRIES`              | retries after the first attempt (0: none)           |
//! | `TFSUM_RETRY_DELAY_SECS`     | first backoff delay (doubled per retry, capped)     |
//! | `TFSUM_RETRY_MAX_WAIT_SECS`  | the longest `Retry-After` honoured                  |
//! | `TFSUM_MAX_PACKAGE_BYTES`    | total unpacked bytes of one provider package        |
//! | `TFSUM_MAX_PACKAGE_ENTRIES`  | files in one provider package                       |
//! | `SSL_CERT_FILE`, `SSL_CERT_DIR` | trusted roots, as Go programs read them          |
//! | `HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY` (and lower case) | proxies, as Go reads them |
//! | `TFSUM_SHARED_CACHE*`        | the shared cache ([`super::shared`])                |
//! | `AWS_*`, `GOOGLE_*`, `AZURE_*`, `AZURITE_*` | the shared cache's credential chains |
//! | `TFSUM_TEST_WRITE_DELAY_MS`  | testing only: a pause inside every file replacement |
//! | `TFSUM_TEST_OCI_PLAIN_HTTP`  | testing only: `1` lets OCI registries on a loopback address be reached over plain HTTP |
//! | `XDG_RUNTIME_DIR`, `XDG_CONFIG_HOME`, `PATH` | where OpenTofu's OCI credentials files and helpers are looked for |
//!
//! Terraform's own variables (`TF_CLI_CONFIG_FILE`, `TF_TOKEN_*`, …) are read by
//! [`tfsum_net::cliconfig`] from the same captured values; `TF_VAR_*` and `TF_WORKSPACE`
//! give module `source`/`version` expressions their variables, as they give Terraform's. Seconds may be fractional
//! (`0.2`); an unparsable value is an error naming the variable.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use url::Url;

use tfsum_net::cliconfig;
use tfsum_net::http::{HttpConfig, Proxies, Trust};
use tfsum_net::oci::{OciEnv, OciOptions};
use tfsum_vocab::hash::ZipLimits;

use super::SettingsError;

/// The process environment as values.
#[derive(Clone, Default)]
pub(crate) struct Environment {
    vars: BTreeMap<String, String>,
    home: Option<PathBuf>,
    config_dir: Option<PathBuf>,
    cache_dir: Option<PathBuf>,
}

impl std::fmt::Debug for Environment {
    /// Names only: `TF_TOKEN_*` values are secrets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Environment")
            .field("vars", &self.vars.keys().collect::<Vec<_>>())
            .field("home", &self.home)
            .finish()
    }
}

impl Environment {
    /// The real environment (variables that are not UTF-8 are left out) and the user's
    /// home, config and cache directories.
    pub(crate) fn capture() -> Environment {
        let vars: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        // Terraform prefers $HOME and falls back to the user database (spec §8).
        let home = vars
            .get("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(dirs::home_dir);
        Environment {
            vars,
            home,
            config_dir: dirs::config_dir(),
            cache_dir: dirs::cache_dir(),
        }
    }

    /// An environment made of `vars` alone, for tests: the user directories derive from
    /// `HOME` and the XDG variables as on Linux.
    #[cfg(test)]
    pub(crate) fn from_vars<'a>(vars: impl IntoIterator<Item = (&'a str, &'a str)>) -> Environment {
        let vars: BTreeMap<String, String> = vars
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let home = vars.get("HOME").map(PathBuf::from);
        let xdg = |name: &str, fallback: &str| {
            vars.get(name)
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(fallback)))
        };
        Environment {
            config_dir: xdg("XDG_CONFIG_HOME", ".config"),
            cache_dir: xdg("XDG_CACHE_HOME", ".cache"),
            home,
            vars,
        }
    }

    /// A variable's value; empty counts as unset.
    pub(crate) fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// The `TF_VAR_NAME` variables, by `NAME` (an empty value is a value: Terraform
    /// passes it on).
    pub(crate) fn terraform_variables(&self) -> BTreeMap<String, String> {
        self.vars
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix("TF_VAR_")?.to_string(), v.clone())))
            .filter(|(name, _)| !name.is_empty())
            .collect()
    }

    /// Every variable whose name starts with one of `prefixes`, for the cloud credential
    /// chains of the shared cache.
    pub(crate) fn vars_with_prefixes(&self, prefixes: &[&str]) -> Vec<(String, String)> {
        self.vars
            .iter()
            .filter(|(k, _)| prefixes.iter().any(|p| k.starts_with(p)))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// The user's home directory.
    pub(crate) fn home(&self) -> Option<&std::path::Path> {
        self.home.as_deref()
    }

    /// The user's configuration directory (where `tfsum/config.toml` lives).
    pub(crate) fn config_dir(&self) -> Option<&std::path::Path> {
        self.config_dir.as_deref()
    }

    /// The default hash cache: the user's cache directory + `tfsum`.
    pub(crate) fn default_cache_dir(&self) -> Option<PathBuf> {
        self.cache_dir.as_ref().map(|d| d.join("tfsum"))
    }

    /// What OpenTofu's OCI credentials policy reads: the variables that place the
    /// containers auth files and credential helpers, the home directory, and Go's name
    /// of this operating system.
    pub(crate) fn oci_env(&self) -> OciEnv {
        let vars = ["XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "PATH"]
            .iter()
            .filter_map(|name| Some((name.to_string(), self.vars.get(*name)?.clone())))
            .collect();
        OciEnv {
            vars,
            home: self.home.clone(),
            os: tfsum_vocab::addr::Platform::current().os,
        }
    }

    /// The OCI client's options: OpenTofu's, but for the tests' plain-HTTP loopback
    /// registries (`TFSUM_TEST_OCI_PLAIN_HTTP=1`).
    pub(crate) fn oci_options(&self) -> Result<OciOptions, SettingsError> {
        let plain_http_loopback = match self.var("TFSUM_TEST_OCI_PLAIN_HTTP") {
            None | Some("0") => false,
            Some("1") => true,
            Some(other) => {
                return Err(SettingsError::env(
                    "TFSUM_TEST_OCI_PLAIN_HTTP",
                    other,
                    "1 or 0",
                ))
            }
        };
        Ok(OciOptions {
            plain_http_loopback,
            ..OciOptions::default()
        })
    }

    /// What the CLI configuration reader needs: the variables and the home directory.
    pub(crate) fn cli_config(&self, opentofu: bool) -> cliconfig::Env {
        cliconfig::Env {
            vars: self.vars.clone(),
            home: self.home.clone(),
            opentofu,
        }
    }

    fn parsed<T>(&self, name: &str, what: &str) -> Result<Option<T>, SettingsError>
    where
        T: std::str::FromStr,
    {
        match self.var(name) {
            None => Ok(None),
            Some(raw) => raw
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| SettingsError::env(name, raw, what)),
        }
    }

    pub(super) fn seconds(&self, name: &str) -> Result<Option<Duration>, SettingsError> {
        let Some(raw) = self.var(name) else {
            return Ok(None);
        };
        raw.trim()
            .parse::<f64>()
            .ok()
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .map(Some)
            .ok_or_else(|| SettingsError::env(name, raw, "a number of seconds"))
    }

    /// An environment value standing in for a flag: `TFSUM_JOBS` for `--jobs`.
    pub(super) fn flag<T: std::str::FromStr>(
        &self,
        name: &str,
        what: &str,
    ) -> Result<Option<T>, SettingsError> {
        self.parsed(name, what)
    }

    /// HTTP behaviour: timeouts and retries (`TFSUM_*`), trusted roots (`SSL_*`) and
    /// proxies.
    pub(super) fn http(&self, per_host: usize) -> Result<HttpConfig, SettingsError> {
        let mut http = HttpConfig {
            per_host,
            trust: self.trust(),
            proxies: self.proxies()?,
            ..HttpConfig::default()
        };
        if let Some(timeout) = self.seconds("TFSUM_HTTP_TIMEOUT_SECS")? {
            http.connect_timeout = timeout;
            http.request_timeout = timeout;
            http.stream_idle_timeout = timeout;
        }
        if let Some(deadline) = self.seconds("TFSUM_DOWNLOAD_DEADLINE_SECS")? {
            http.download_deadline = deadline;
        }
        if let Some(retries) = self.parsed::<u32>("TFSUM_RETRIES", "a whole number")? {
            http.retry.max_attempts = retries.saturating_add(1);
        }
        if let Some(delay) = self.seconds("TFSUM_RETRY_DELAY_SECS")? {
            http.retry.base_delay = delay;
            http.retry.max_delay = http.retry.max_delay.max(delay);
        }
        if let Some(wait) = self.seconds("TFSUM_RETRY_MAX_WAIT_SECS")? {
            http.retry.max_retry_after = wait;
        }
        Ok(http)
    }

    /// `SSL_CERT_FILE` replaces the system store's bundle; `SSL_CERT_DIR` (a list, like
    /// `PATH`) replaces its directories (Go's `crypto/x509`).
    fn trust(&self) -> Trust {
        Trust {
            cert_file: self.var("SSL_CERT_FILE").map(PathBuf::from),
            cert_dirs: self
                .var("SSL_CERT_DIR")
                .map(|dirs| std::env::split_paths(dirs).collect()),
            ..Trust::default()
        }
    }

    /// `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY`, upper case first, as Go reads them.
    fn proxies(&self) -> Result<Proxies, SettingsError> {
        let either = |upper: &str, lower: &str| {
            self.var(upper)
                .map(|v| (upper.to_string(), v))
                .or_else(|| self.var(lower).map(|v| (lower.to_string(), v)))
        };
        let url = |found: Option<(String, &str)>| -> Result<Option<Url>, SettingsError> {
            let Some((name, raw)) = found else {
                return Ok(None);
            };
            // Go accepts a bare `host:port` and means http.
            let full = if raw.contains("://") {
                raw.to_string()
            } else {
                format!("http://{raw}")
            };
            Url::parse(&full)
                .map(Some)
                .map_err(|e| SettingsError::env(&name, raw, &format!("a proxy URL ({e})")))
        };
        Ok(Proxies {
            https: url(either("HTTPS_PROXY", "https_proxy"))?,
            http: url(either("HTTP_PROXY", "http_proxy"))?,
            no_proxy: either("NO_PROXY", "no_proxy")
                .map(|(_, v)| v.split(',').map(str::to_string).collect())
                .unwrap_or_default(),
        })
    }

    /// Caps on one provider package (the zip-bomb guard).
    pub(super) fn zip_limits(&self) -> Result<ZipLimits, SettingsError> {
        let mut limits = ZipLimits::default();
        if let Some(bytes) = self.parsed("TFSUM_MAX_PACKAGE_BYTES", "a number of bytes")? {
            limits.max_uncompressed_bytes = bytes;
        }
        if let Some(entries) = self.parsed("TFSUM_MAX_PACKAGE_ENTRIES", "a whole number")? {
            limits.max_entries = entries;
        }
        Ok(limits)
    }

    /// Testing only: a pause inside every file replacement, so a test can interrupt tfsum
    /// while a write is under way.
    pub(super) fn write_delay(&self) -> Result<Duration, SettingsError> {
        Ok(self
            .parsed::<u64>("TFSUM_TEST_WRITE_DELAY_MS", "a number of milliseconds")?
            .map(Duration::from_millis)
            .unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_knobs() {
        let env = Environment::from_vars([
            ("TFSUM_HTTP_TIMEOUT_SECS", "0.25"),
            ("TFSUM_RETRIES", "0"),
            ("TFSUM_RETRY_DELAY_SECS", "0.01"),
            ("TFSUM_RETRY_MAX_WAIT_SECS", "2"),
            ("SSL_CERT_FILE", "/corp/ca.pem"),
            ("SSL_CERT_DIR", "/a:/b"),
            ("https_proxy", "proxy.corp:3128"),
            ("NO_PROXY", "internal.corp,10.0.0.0/8"),
        ]);
        let http = env.http(3).unwrap();
        assert_eq!(http.request_timeout, Duration::from_millis(250));
        assert_eq!(http.connect_timeout, Duration::from_millis(250));
        assert_eq!(http.stream_idle_timeout, Duration::from_millis(250));
        assert_eq!(http.retry.max_attempts, 1);
        assert_eq!(http.retry.base_delay, Duration::from_millis(10));
        assert_eq!(http.retry.max_retry_after, Duration::from_secs(2));
        assert_eq!(http.per_host, 3);
        assert_eq!(http.trust.cert_file, Some(PathBuf::from("/corp/ca.pem")));
        assert_eq!(
            http.trust.cert_dirs,
            Some(vec![PathBuf::from("/a"), PathBuf::from("/b")])
        );
        assert_eq!(
            http.proxies.https.as_ref().map(Url::as_str),
            Some("http://proxy.corp:3128/")
        );
        assert_eq!(http.proxies.no_proxy, ["internal.corp", "10.0.0.0/8"]);

        let untouched = Environment::from_vars([]).http(6).unwrap();
        assert_eq!(untouched.retry, HttpConfig::default().retry);
        assert!(untouched.trust.cert_file.is_none() && untouched.proxies.https.is_none());
    }

    /// Each unusable value is an error that names the variable.
    #[test]
    fn bad_values_name_the_variable() {
        for (name, value) in [
            ("TFSUM_HTTP_TIMEOUT_SECS", "-1"),
            ("TFSUM_HTTP_TIMEOUT_SECS", "soon"),
            ("TFSUM_RETRIES", "1.5"),
            ("TFSUM_RETRY_DELAY_SECS", "inf"),
            ("HTTPS_PROXY", "http://[bad"),
        ] {
            let err = Environment::from_vars([(name, value)]).http(6).unwrap_err();
            assert!(err.to_string().starts_with(name), "{err}");
        }
        for (name, value) in [
            ("TFSUM_MAX_PACKAGE_BYTES", "1e3"),
            ("TFSUM_MAX_PACKAGE_ENTRIES", "many"),
        ] {
            let err = Environment::from_vars([(name, value)])
                .zip_limits()
                .unwrap_err();
            assert!(err.to_string().starts_with(name), "{err}");
        }
        let limits = Environment::from_vars([
            ("TFSUM_MAX_PACKAGE_BYTES", "1000"),
            ("TFSUM_MAX_PACKAGE_ENTRIES", "3"),
        ])
        .zip_limits()
        .unwrap();
        assert_eq!(
            (limits.max_uncompressed_bytes, limits.max_entries),
            (1000, 3)
        );
    }
}
