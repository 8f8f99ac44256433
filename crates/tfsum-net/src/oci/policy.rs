//! Which credentials go to which OCI repository: OpenTofu's policy.
//!
//! [`CredentialsSource`] holds, in OpenTofu's order of precedence
//! (`internal/command/cliconfig/oci_credentials.go:39-112` at v1.12.6):
//!
//! 1. the explicit entries (`oci_credentials "<host>[/path]"` blocks);
//! 2. the default helper of `oci_default_credentials`, for any repository;
//! 3. the Docker-style files ([`crate::oci::docker_config`]): `auths`,
//!    `credHelpers`, `credsStore`, unless `discover_ambient_credentials = false`.
//!
//! For a repository the most specific match wins: `host/a/b` over `host/a` over `host`
//! over a global helper; between equals the earliest source
//! (`ociauthconfig/credentials_configs.go:44-66`, `credentials_specificity.go`). The
//! choice ([`Selected`]) is made before any helper runs, as in OpenTofu; asking the
//! helper ([`crate::oci::helper`]) is a separate step ([`Selected::credentials`]).

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use super::credentials::{
    AmbientFiles, ConfiguredCredential, CredentialOrigin, Credentials, CredentialsEntry,
    CredentialsError, DefaultCredentials, HelperName, OciEnv, Selected, Selection, Specificity,
};
use super::docker_config::{self, DockerConfig};
use super::helper;
use super::reference::RepositoryAddr;

impl Selected {
    /// The credentials, running the helper if the source is one. `None`: the helper
    /// has none for this host, so requests go without.
    pub(crate) async fn credentials(
        &self,
        env: &OciEnv,
        timeout: Duration,
    ) -> Result<Option<Credentials>, CredentialsError> {
        match &self.selection {
            Selection::Static(credentials) => Ok(Some(credentials.clone())),
            Selection::Helper { helper, server_url } => {
                helper::get(helper, server_url, env, timeout).await
            }
        }
    }
}

/// One source of credentials in precedence order.
#[derive(Debug, Clone)]
enum Config {
    Entry(CredentialsEntry),
    DefaultHelper(HelperName),
    File(DockerConfig),
}

/// A problem with a Docker-style file found by searching, which is skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialsWarning {
    pub file: PathBuf,
    pub reason: String,
}

impl fmt::Display for CredentialsWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ignoring OCI credentials in {}: {}",
            self.file.display(),
            self.reason
        )
    }
}

/// Every source of OCI credentials of a run, in precedence order.
#[derive(Debug, Clone, Default)]
pub(crate) struct CredentialsSource {
    configs: Vec<Config>,
}

impl CredentialsSource {
    /// The policy from the CLI configuration's entries and defaults, reading the
    /// Docker-style files now. Broken files found by searching become warnings; a named
    /// file that cannot be read or parsed is an error.
    pub(crate) fn new(
        entries: Vec<CredentialsEntry>,
        defaults: &DefaultCredentials,
        env: &OciEnv,
    ) -> Result<(CredentialsSource, Vec<CredentialsWarning>), CredentialsError> {
        let mut configs: Vec<Config> = entries.into_iter().map(Config::Entry).collect();
        if let Some(helper) = &defaults.helper {
            configs.push(Config::DefaultHelper(helper.clone()));
        }
        let mut warnings = Vec::new();
        match &defaults.ambient {
            AmbientFiles::Off => {}
            AmbientFiles::Fixed(files) => {
                for file in files {
                    configs.push(Config::File(docker_config::read(file)?));
                }
            }
            AmbientFiles::Search => {
                for file in docker_config::search_locations(env) {
                    match docker_config::read(&file) {
                        Ok(config) => configs.push(Config::File(config)),
                        Err(CredentialsError::FileRead {
                            not_found: true, ..
                        }) => {}
                        Err(e) => warnings.push(CredentialsWarning {
                            file,
                            reason: e.to_string(),
                        }),
                    }
                }
            }
        }
        Ok((CredentialsSource { configs }, warnings))
    }

    /// The most specific source for `addr`, the earliest among equals; `None` when no
    /// source covers it (requests go anonymously). A malformed `auths` entry that
    /// matches fails the lookup when another source was found, as in OpenTofu
    /// (`credentials_configs.go:44-66`).
    pub(crate) fn select(
        &self,
        addr: &RepositoryAddr,
    ) -> Result<Option<Selected>, CredentialsError> {
        let mut best: Option<Selected> = None;
        let mut first_error = None;
        for config in &self.configs {
            for candidate in candidates(config, addr) {
                match candidate {
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                    Ok(found) => {
                        if best
                            .as_ref()
                            .is_none_or(|b| found.specificity > b.specificity)
                        {
                            best = Some(found);
                        }
                    }
                }
            }
        }
        match (best, first_error) {
            (None, _) => Ok(None),
            (Some(_), Some(e)) => Err(e),
            (Some(best), None) => Ok(Some(best)),
        }
    }
}

fn helper_url(addr: &RepositoryAddr) -> String {
    format!("https://{}", addr.registry())
}

/// What one source offers for `addr`, as OpenTofu's `CredentialsSourcesForRepository`.
fn candidates(config: &Config, addr: &RepositoryAddr) -> Vec<Result<Selected, CredentialsError>> {
    match config {
        Config::Entry(entry) => {
            let Some(segments) = entry.prefix().matched_segments(addr) else {
                return Vec::new();
            };
            let selection = match entry.credential() {
                ConfiguredCredential::Static(credentials) => Selection::Static(credentials.clone()),
                ConfiguredCredential::Helper(helper) => Selection::Helper {
                    helper: helper.clone(),
                    server_url: helper_url(addr),
                },
            };
            vec![Ok(Selected {
                specificity: Specificity::repository(segments),
                selection,
                origin: CredentialOrigin::Block {
                    prefix: entry.prefix().to_string(),
                    file: entry.file().cloned(),
                },
            })]
        }
        Config::DefaultHelper(helper) => vec![Ok(Selected {
            specificity: Specificity::GLOBAL,
            selection: Selection::Helper {
                helper: helper.clone(),
                server_url: helper_url(addr),
            },
            origin: CredentialOrigin::DefaultHelper(helper.clone()),
        })],
        Config::File(file) => file.candidates(addr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cliconfig::Token;
    use crate::oci::reference::RepositoryPrefix;

    fn basic(user: &str) -> ConfiguredCredential {
        ConfiguredCredential::Static(Credentials::Basic {
            username: user.to_string(),
            password: Token::new("secret"),
        })
    }

    fn entry(prefix: &str, credential: ConfiguredCredential) -> CredentialsEntry {
        CredentialsEntry::new(RepositoryPrefix::parse(prefix).unwrap(), credential, None).unwrap()
    }

    fn describe(selected: &Option<Selected>) -> String {
        match selected {
            None => "anonymous".to_string(),
            Some(s) => match &s.selection {
                Selection::Static(Credentials::Basic { username, .. }) => {
                    format!("{username} ({:?})", s.specificity)
                }
                Selection::Static(Credentials::OAuth { .. }) => "oauth".to_string(),
                Selection::Helper { helper, server_url } => format!("helper {helper} {server_url}"),
            },
        }
    }

    /// The specificity rules, one repository at a time, over one set of sources:
    /// explicit blocks, a default helper, and one Docker-style file.
    #[test]
    fn specificity_table() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.json");
        let auth = |s: &str| {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD.encode(s)
        };
        std::fs::write(
            &file,
            serde_json::json!({
                "auths": {
                    "example.com": {"auth": auth("file-host:pw")},
                    "example.com/a/b/c": {"auth": auth("file-abc:pw")},
                    "other.example": {"auth": auth("file-other:pw")},
                    "https://index.docker.io/v1/": {"auth": auth("never:pw")},
                },
                "credHelpers": {"helped.example": "pass"},
                "credsStore": "desktop",
            })
            .to_string(),
        )
        .unwrap();
        let entries = vec![
            entry("example.com/a", basic("block-a")),
            entry("example.com/a/b", basic("block-ab")),
            entry("example.com/a/b/c", basic("block-abc")),
            entry("registry.example", basic("block-registry")),
        ];
        let defaults = DefaultCredentials {
            ambient: AmbientFiles::Fixed(vec![file]),
            helper: Some(HelperName::parse("global").unwrap()),
        };
        let (source, warnings) =
            CredentialsSource::new(entries, &defaults, &OciEnv::default()).unwrap();
        assert!(warnings.is_empty());
        let cases = [
            // The deepest prefix wins, across sources.
            ("example.com/a/b/c/d", "block-abc (Specificity(5))"),
            ("example.com/a/b/x", "block-ab (Specificity(4))"),
            ("example.com/a/x", "block-a (Specificity(3))"),
            // A registry-wide entry beats the global helpers.
            ("example.com/z", "file-host (Specificity(2))"),
            ("registry.example/x", "block-registry (Specificity(2))"),
            // credHelpers is registry-wide, credsStore and the default helper global;
            // between the two global ones the earlier (the default helper) wins.
            ("helped.example/x", "helper pass https://helped.example"),
            ("nothing.example/x", "helper global https://nothing.example"),
        ];
        for (addr, want) in cases {
            let addr = RepositoryAddr::parse(addr).unwrap();
            assert_eq!(describe(&source.select(&addr).unwrap()), want, "{addr}");
        }
    }

    /// Equal specificity: the first source wins (explicit blocks before files).
    #[test]
    fn ties_go_to_the_earliest_source() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("auth.json");
        std::fs::write(
            &file,
            r#"{"auths":{"example.com/a":{"auth":"ZmlsZTpwdw=="}}}"#,
        )
        .unwrap();
        let defaults = DefaultCredentials {
            ambient: AmbientFiles::Fixed(vec![file.clone()]),
            helper: None,
        };
        let entries = vec![
            entry("example.com/a", basic("first")),
            entry("example.com/a", basic("second")),
        ];
        let (source, _) = CredentialsSource::new(entries, &defaults, &OciEnv::default()).unwrap();
        let addr = RepositoryAddr::parse("example.com/a/b").unwrap();
        let chosen = source.select(&addr).unwrap().unwrap();
        assert_eq!(describe(&Some(chosen.clone())), "first (Specificity(3))");
        assert_eq!(
            chosen.origin.to_string(),
            "from the oci_credentials \"example.com/a\" block"
        );
        let (files_only, _) =
            CredentialsSource::new(Vec::new(), &defaults, &OciEnv::default()).unwrap();
        let chosen = files_only.select(&addr).unwrap().unwrap();
        assert_eq!(describe(&Some(chosen.clone())), "file (Specificity(3))");
        assert_eq!(
            chosen.origin.to_string(),
            format!(
                "from the \"auths\" entry \"example.com/a\" in {}",
                file.display()
            )
        );
        assert!(CredentialsSource::default()
            .select(&addr)
            .unwrap()
            .is_none());
    }
}
