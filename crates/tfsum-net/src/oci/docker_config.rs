//! Docker-style credentials files (containers' `auth.json`, Docker's `config.json`,
//! the old `~/.dockercfg`) as OpenTofu reads them: where it looks, and the three things
//! it takes from them.
//!
//! - Search order (`internal/command/cliconfig/ociauthconfig/docker_cli_credentials_config.go:259-286`
//!   at v1.12.6): `$XDG_RUNTIME_DIR/containers/auth.json` on Linux, or
//!   `~/.config/containers/auth.json` on macOS and Windows; then
//!   `$XDG_CONFIG_HOME/containers/auth.json` (default `~/.config`);
//!   `~/.docker/config.json`; `~/.dockercfg`. A path equal to the one before it is read
//!   once. `$DOCKER_CONFIG` and `$REGISTRY_AUTH_FILE` are not honoured (OpenTofu does not).
//! - Contents (`:105-181`, `:188-200`): `auths.<key>.auth` (base64 of
//!   `username:password`; null or empty entries are skipped, as tools write them when a
//!   helper holds the secret), `credHelpers.<host>` and `credsStore`. `identitytoken`
//!   and everything else are ignored. A key is a host or `host/path-prefix`
//!   ([`RepositoryPrefix`]); URL-shaped keys (`https://index.docker.io/v1/`) never match.
//!   Helpers are asked about `https://<host>`.
//!
//! As with Go's `encoding/json` reading into OpenTofu's struct, an `auth` that is not
//! base64 makes the whole file unreadable; one without a `:` fails only the lookups it
//! matches.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine as _;

use crate::cliconfig::Token;

use super::credentials::{
    CredentialOrigin, Credentials, CredentialsError, HelperName, OciEnv, Selected, Selection,
    Specificity,
};
use super::reference::{RepositoryAddr, RepositoryPrefix};

/// The largest credentials file read: far above any real one.
const MAX_FILE: u64 = 4 << 20;

/// One file's `auths`, `credHelpers` and `credsStore`.
#[derive(Debug, Clone)]
pub(crate) struct DockerConfig {
    file: PathBuf,
    /// Keys in sorted order (Go's map order is random; for ties within one file the
    /// first key wins here).
    auths: Vec<(String, Option<(String, Token)>)>,
    cred_helpers: BTreeMap<String, String>,
    creds_store: Option<String>,
}

#[derive(serde::Deserialize)]
struct Raw {
    #[serde(default)]
    auths: Option<BTreeMap<String, Option<RawAuth>>>,
    #[serde(default, rename = "credHelpers")]
    cred_helpers: Option<BTreeMap<String, Option<String>>>,
    #[serde(default, rename = "credsStore")]
    creds_store: Option<String>,
}

#[derive(serde::Deserialize)]
struct RawAuth {
    #[serde(default)]
    auth: Option<String>,
}

/// The files to try, in order, with consecutive duplicates removed.
pub(crate) fn search_locations(env: &OciEnv) -> Vec<PathBuf> {
    let home = env.home.clone();
    let under_home = |parts: &[&str]| {
        home.as_ref().map(|home| {
            let mut path = home.clone();
            path.extend(parts);
            path
        })
    };
    let mut paths = Vec::new();
    match env.os.as_str() {
        "linux" => {
            if let Some(run) = env.var("XDG_RUNTIME_DIR") {
                paths.push(Path::new(run).join("containers").join("auth.json"));
            }
        }
        "darwin" | "windows" => paths.extend(under_home(&[".config", "containers", "auth.json"])),
        _ => {}
    }
    let config_home = match env.var("XDG_CONFIG_HOME") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => under_home(&[".config"]),
    };
    paths.extend(config_home.map(|dir| dir.join("containers").join("auth.json")));
    paths.extend(under_home(&[".docker", "config.json"]));
    paths.extend(under_home(&[".dockercfg"]));
    paths.dedup();
    paths
}

/// Reads and parses one file.
pub(crate) fn read(file: &Path) -> Result<DockerConfig, CredentialsError> {
    let read_error = |e: std::io::Error| CredentialsError::FileRead {
        file: file.to_path_buf(),
        reason: e.to_string(),
        not_found: e.kind() == std::io::ErrorKind::NotFound,
    };
    let metadata = std::fs::metadata(file).map_err(read_error)?;
    if metadata.len() > MAX_FILE {
        return Err(CredentialsError::FileParse {
            file: file.to_path_buf(),
            reason: format!("larger than {MAX_FILE} bytes"),
        });
    }
    let bytes = std::fs::read(file).map_err(read_error)?;
    parse(file, &bytes)
}

/// Parses a file's contents. Messages name the line and column, never the text: a
/// broken file may hold secrets.
pub(crate) fn parse(file: &Path, bytes: &[u8]) -> Result<DockerConfig, CredentialsError> {
    let broken = |reason: String| CredentialsError::FileParse {
        file: file.to_path_buf(),
        reason,
    };
    let raw: Raw = serde_json::from_slice(bytes).map_err(|e| {
        broken(format!(
            "invalid JSON or unexpected value ({:?} at line {}, column {})",
            e.classify(),
            e.line(),
            e.column()
        ))
    })?;
    let mut auths = Vec::new();
    for (key, entry) in raw.auths.unwrap_or_default() {
        let Some(encoded) = entry.and_then(|e| e.auth).filter(|a| !a.is_empty()) else {
            continue;
        };
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(encoded.trim())
            .map_err(|_| broken(format!("the \"auths\" entry {key:?} is not base64")))?;
        let text = String::from_utf8_lossy(&decoded);
        let pair = text
            .split_once(':')
            .map(|(user, password)| (user.to_string(), Token::new(password)));
        auths.push((key, pair));
    }
    Ok(DockerConfig {
        file: file.to_path_buf(),
        auths,
        cred_helpers: raw
            .cred_helpers
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(host, helper)| Some((host, helper.filter(|h| !h.is_empty())?)))
            .collect(),
        creds_store: raw.creds_store.filter(|s| !s.is_empty()),
    })
}

impl DockerConfig {
    /// What this file offers for `addr`: matching `auths` entries, then its
    /// `credHelpers` entry for the host, then `credsStore`.
    pub(crate) fn candidates(
        &self,
        addr: &RepositoryAddr,
    ) -> Vec<Result<Selected, CredentialsError>> {
        let mut found = Vec::new();
        for (key, pair) in &self.auths {
            let Ok(prefix) = RepositoryPrefix::parse(key) else {
                continue;
            };
            let Some(segments) = prefix.matched_segments(addr) else {
                continue;
            };
            found.push(match pair {
                Some((username, password)) => Ok(Selected {
                    specificity: Specificity::repository(segments),
                    selection: Selection::Static(Credentials::Basic {
                        username: username.clone(),
                        password: password.clone(),
                    }),
                    origin: CredentialOrigin::AuthsEntry {
                        file: self.file.clone(),
                        key: key.clone(),
                    },
                }),
                None => Err(CredentialsError::AuthsEntry {
                    file: self.file.clone(),
                    key: key.clone(),
                }),
            });
        }
        let server_url = format!("https://{}", addr.registry());
        let helpers = [
            (
                self.cred_helpers.get(addr.registry()),
                Specificity::REGISTRY,
            ),
            (self.creds_store.as_ref(), Specificity::GLOBAL),
        ];
        for (name, specificity) in helpers {
            let Some(name) = name else { continue };
            found.push(HelperName::parse(name).map(|helper| Selected {
                specificity,
                selection: Selection::Helper {
                    helper: helper.clone(),
                    server_url: server_url.clone(),
                },
                origin: CredentialOrigin::FileHelper {
                    file: self.file.clone(),
                    helper,
                },
            }));
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(os: &str, vars: &[(&str, &str)], home: Option<&str>) -> OciEnv {
        OciEnv {
            vars: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            home: home.map(PathBuf::from),
            os: os.to_string(),
        }
    }

    fn shown(paths: Vec<PathBuf>) -> Vec<String> {
        paths.iter().map(|p| p.display().to_string()).collect()
    }

    /// OpenTofu's search order per operating system.
    #[test]
    fn search_order() {
        let linux = env(
            "linux",
            &[
                ("XDG_RUNTIME_DIR", "/run/user/1000"),
                ("XDG_CONFIG_HOME", "/cfg"),
            ],
            Some("/home/u"),
        );
        assert_eq!(
            shown(search_locations(&linux)),
            [
                "/run/user/1000/containers/auth.json",
                "/cfg/containers/auth.json",
                "/home/u/.docker/config.json",
                "/home/u/.dockercfg",
            ]
        );
        let bare_linux = env("linux", &[("XDG_RUNTIME_DIR", "")], Some("/home/u"));
        assert_eq!(
            shown(search_locations(&bare_linux)),
            [
                "/home/u/.config/containers/auth.json",
                "/home/u/.docker/config.json",
                "/home/u/.dockercfg",
            ]
        );
        // On macOS the first two are the same file; it is read once.
        let mac = env("darwin", &[], Some("/Users/u"));
        assert_eq!(
            shown(search_locations(&mac)),
            [
                "/Users/u/.config/containers/auth.json",
                "/Users/u/.docker/config.json",
                "/Users/u/.dockercfg",
            ]
        );
        let homeless = env("linux", &[("XDG_CONFIG_HOME", "/cfg")], None);
        assert_eq!(
            shown(search_locations(&homeless)),
            ["/cfg/containers/auth.json"]
        );
    }

    fn describe(results: Vec<Result<Selected, CredentialsError>>) -> Vec<String> {
        results
            .into_iter()
            .map(|r| match r {
                Ok(Selected {
                    selection: Selection::Static(Credentials::Basic { username, password }),
                    specificity,
                    ..
                }) => format!("{username}:{} {specificity:?}", password.expose()),
                Ok(Selected {
                    selection: Selection::Helper { helper, server_url },
                    specificity,
                    ..
                }) => format!("helper {helper} {server_url} {specificity:?}"),
                Ok(other) => format!("{other:?}"),
                Err(e) => format!("error: {e}"),
            })
            .collect()
    }

    /// What a file yields for a repository, entry by entry.
    #[test]
    fn file_contents_table() {
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let text = serde_json::json!({
            "auths": {
                "ghcr.io": {"auth": b64("alice:pa:ss")},
                "ghcr.io/org": {"auth": b64("bob:pw"), "identitytoken": "ignored"},
                "ghcr.io/org/repo/deeper": {"auth": b64("carol:pw")},
                "ghcr.io/other": {"auth": b64("dave:pw")},
                "ghcr.io/org/broken": {"auth": b64("no-colon")},
                "https://index.docker.io/v1/": {"auth": b64("eve:pw")},
                "helper-held.example": {},
                "null.example": null,
                "empty.example": {"auth": ""},
            },
            "credHelpers": {"ghcr.io": "gh", "quay.io": "", "bad.example": "../x"},
            "credsStore": "osxkeychain",
            "HttpHeaders": {"X": "y"},
        })
        .to_string();
        let config = parse(Path::new("/home/u/.docker/config.json"), text.as_bytes()).unwrap();
        let at = |addr: &str| describe(config.candidates(&RepositoryAddr::parse(addr).unwrap()));
        assert_eq!(
            at("ghcr.io/org/repo"),
            [
                "alice:pa:ss Specificity(2)",
                "bob:pw Specificity(3)",
                "helper gh https://ghcr.io Specificity(2)",
                "helper osxkeychain https://ghcr.io Specificity(1)",
            ]
        );
        assert_eq!(
            at("ghcr.io/org/broken/x"),
            [
                "alice:pa:ss Specificity(2)",
                "bob:pw Specificity(3)",
                "error: the \"auths\" entry \"ghcr.io/org/broken\" in /home/u/.docker/config.json is not base64 of username:password",
                "helper gh https://ghcr.io Specificity(2)",
                "helper osxkeychain https://ghcr.io Specificity(1)",
            ]
        );
        assert_eq!(
            at("quay.io/x"),
            ["helper osxkeychain https://quay.io Specificity(1)"]
        );
        assert_eq!(at("bad.example/x")[0], "error: invalid Docker credential helper name \"../x\": it must be a non-empty name without '/' or '\\', used as docker-credential-<name>");
        assert_eq!(
            at("helper-held.example/x"),
            ["helper osxkeychain https://helper-held.example Specificity(1)"]
        );
    }

    #[test]
    fn broken_files_do_not_quote_their_contents() {
        let path = Path::new("/x/auth.json");
        for text in [
            r#"{"auths": "s3cret-text"}"#,
            r#"{"auths": {"h": {"auth": "!!s3cret!!"}}}"#,
            "not json s3cret",
            r#"{"credsStore": 5}"#,
        ] {
            let err = parse(path, text.as_bytes()).unwrap_err();
            assert!(matches!(err, CredentialsError::FileParse { .. }), "{text}");
            assert!(!err.to_string().contains("s3cret"), "{err}");
        }
        // Unknown fields and a missing object are fine.
        assert!(parse(path, br#"{"experimental": "enabled"}"#).is_ok());
        let missing = read(Path::new("/nonexistent/tfsum/auth.json")).unwrap_err();
        assert!(matches!(
            missing,
            CredentialsError::FileRead {
                not_found: true,
                ..
            }
        ));
    }
}
