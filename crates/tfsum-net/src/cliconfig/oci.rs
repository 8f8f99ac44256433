//! OpenTofu's OCI credentials blocks, as written: `oci_credentials "<host>[/path]" { … }`
//! and `oci_default_credentials { … }` (OpenTofu v1.12.6
//! `internal/command/cliconfig/oci_credentials.go`). Read here from both file formats and
//! checked for shape; what the labels and helper names mean, and which credentials
//! go to which repository, is the OCI transport's ([`crate::oci::credentials`],
//! [`crate::oci::policy`]), which turns these values into its own.

use std::path::{Path, PathBuf};

use super::credentials::Token;
use super::CliConfigError;

/// One `oci_credentials` block.
#[derive(Debug, Clone, PartialEq)]
pub struct OciCredentialsBlock {
    /// The label: a registry host, or a host and a repository path prefix.
    pub prefix: String,
    pub credential: OciCredential,
    /// The file the block is in.
    pub file: PathBuf,
}

/// The one group of arguments an `oci_credentials` block sets
/// (`decodeOCICredentialsBlockBody`, `oci_credentials.go:480-590`).
#[derive(Debug, Clone, PartialEq)]
pub enum OciCredential {
    /// `username` and `password`.
    Basic { username: String, password: Token },
    /// `access_token` and `refresh_token`.
    OAuth {
        access_token: Token,
        refresh_token: Token,
    },
    /// `docker_credentials_helper`: the helper's name, as written.
    Helper(String),
}

/// The `oci_default_credentials` block (`decodeOCIDefaultCredentialsBlockBody`,
/// `oci_credentials.go:247-325`).
#[derive(Debug, Clone, PartialEq)]
pub struct OciDefaultCredentialsBlock {
    /// `discover_ambient_credentials` (default true).
    pub discover_ambient: bool,
    /// `docker_style_config_files`, relative paths resolved against the file's
    /// directory; `Some(empty)` is "none", `None` is OpenTofu's search locations.
    pub config_files: Option<Vec<PathBuf>>,
    /// `docker_credentials_helper`, as written.
    pub helper: Option<String>,
    pub file: PathBuf,
}

/// The `oci_credentials` blocks of a parsed file, in file order.
pub(super) fn credentials_blocks(
    top: &serde_json::Map<String, serde_json::Value>,
    path: &Path,
) -> Result<Vec<OciCredentialsBlock>, CliConfigError> {
    let invalid = |message: String| CliConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let mut blocks = Vec::new();
    for (prefix, body) in super::labelled_blocks(top.get("oci_credentials")) {
        let string = |key: &str| -> Result<Option<String>, CliConfigError> {
            match body.get(key) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(invalid(format!(
                    "oci_credentials {prefix:?}: {key} must be a string"
                ))),
            }
        };
        let (username, password) = (string("username")?, string("password")?);
        let (access, refresh) = (string("access_token")?, string("refresh_token")?);
        let helper = string("docker_credentials_helper")?;
        let basic = username.is_some() || password.is_some();
        let oauth = access.is_some() || refresh.is_some();
        let groups = [basic, oauth, helper.is_some()]
            .iter()
            .filter(|set| **set)
            .count();
        let refuse = |rule: &str| {
            Err(invalid(format!(
                "the oci_credentials {prefix:?} block {rule}"
            )))
        };
        if groups == 0 {
            return refuse("must set either username+password, access_token+refresh_token, or docker_credentials_helper");
        }
        if groups > 1 {
            return refuse("must set only one group out of username+password, access_token+refresh_token, or docker_credentials_helper");
        }
        let credential = match (username, password, access, refresh, helper) {
            (Some(username), Some(password), ..) => OciCredential::Basic {
                username,
                password: Token::new(&password),
            },
            (_, _, Some(access), Some(refresh), _) => OciCredential::OAuth {
                access_token: Token::new(&access),
                refresh_token: Token::new(&refresh),
            },
            (.., Some(helper)) => OciCredential::Helper(helper),
            _ if basic => {
                return refuse("must set both username and password together when using static credentials")
            }
            _ => {
                return refuse("must set both access_token and refresh_token together when using OAuth-style credentials")
            }
        };
        blocks.push(OciCredentialsBlock {
            prefix,
            credential,
            file: path.to_path_buf(),
        });
    }
    Ok(blocks)
}

/// The `oci_default_credentials` blocks of a parsed file (more than one in the whole
/// configuration is an error, checked once the files are merged).
pub(super) fn default_blocks(
    top: &serde_json::Map<String, serde_json::Value>,
    path: &Path,
) -> Result<Vec<OciDefaultCredentialsBlock>, CliConfigError> {
    let invalid = |message: String| CliConfigError::Invalid {
        path: path.to_path_buf(),
        message: format!("oci_default_credentials: {message}"),
    };
    let bodies: Vec<&serde_json::Value> = match top.get("oci_default_credentials") {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::Array(items)) => items.iter().collect(),
        Some(other) => vec![other],
    };
    let base = path.parent().unwrap_or(Path::new(""));
    let mut blocks = Vec::new();
    for body in bodies {
        let Some(body) = body.as_object() else {
            return Err(invalid("it must be a block".to_string()));
        };
        let discover_ambient = match body.get("discover_ambient_credentials") {
            None | Some(serde_json::Value::Null) => true,
            Some(serde_json::Value::Bool(b)) => *b,
            Some(_) => {
                return Err(invalid(
                    "discover_ambient_credentials must be true or false".to_string(),
                ))
            }
        };
        let config_files = match body.get("docker_style_config_files") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|item| {
                        item.as_str().map(|p| base.join(p)).ok_or_else(|| {
                            invalid("docker_style_config_files must be a list of strings".into())
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(_) => {
                return Err(invalid(
                    "docker_style_config_files must be a list of strings".to_string(),
                ))
            }
        };
        let helper = match body.get("docker_credentials_helper") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(_) => {
                return Err(invalid(
                    "docker_credentials_helper must be a string".to_string(),
                ))
            }
        };
        // `docker_style_config_files` modifies discovery, so it cannot go with
        // discovery off (`oci_credentials.go:311-322`).
        if !discover_ambient && config_files.is_some() {
            return Err(invalid(
                "it disables discovery of ambient credentials, but also sets docker_style_config_files, which is relevant only when ambient credentials discovery is enabled".to_string(),
            ));
        }
        blocks.push(OciDefaultCredentialsBlock {
            discover_ambient,
            config_files,
            helper,
            file: path.to_path_buf(),
        });
    }
    Ok(blocks)
}

/// The checks made once every file is merged (`Config.Validate`, `cliconfig.go:382-401`):
/// at most one `oci_default_credentials` block, and no two `oci_credentials` blocks for
/// the same prefix.
pub(super) fn validate(
    credentials: &[OciCredentialsBlock],
    defaults: &[OciDefaultCredentialsBlock],
) -> Result<(), CliConfigError> {
    if let [_, second, ..] = defaults {
        return Err(CliConfigError::Invalid {
            path: second.file.clone(),
            message: "no more than one oci_default_credentials block may be specified".into(),
        });
    }
    for (i, block) in credentials.iter().enumerate() {
        if credentials[..i].iter().any(|b| b.prefix == block.prefix) {
            return Err(CliConfigError::Invalid {
                path: block.file.clone(),
                message: format!("duplicate oci_credentials block for {:?}", block.prefix),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<super::super::CliConfig, CliConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oci.tfrc");
        std::fs::write(&path, text).unwrap();
        super::super::load_file(&path)
    }

    /// Every shape OpenTofu's decoder accepts, and each rule it refuses with.
    #[test]
    fn blocks_and_their_rules() {
        let config = load(
            r#"
oci_credentials "ghcr.io/acme" {
  username = "me"
  password = "secret"
}
oci_credentials "example.com" {
  access_token  = "a"
  refresh_token = "r"
}
oci_credentials "registry.example" {
  docker_credentials_helper = "pass"
}
oci_default_credentials {
  docker_style_config_files = ["auth.json", "/etc/containers/auth.json"]
  docker_credentials_helper = "desktop"
}
"#,
        )
        .unwrap();
        let shown: Vec<String> = config
            .oci_credentials
            .iter()
            .map(|b| match &b.credential {
                OciCredential::Basic { username, .. } => format!("{} basic {username}", b.prefix),
                OciCredential::OAuth { .. } => format!("{} oauth", b.prefix),
                OciCredential::Helper(h) => format!("{} helper {h}", b.prefix),
            })
            .collect();
        assert_eq!(
            shown,
            [
                "ghcr.io/acme basic me",
                "example.com oauth",
                "registry.example helper pass"
            ]
        );
        assert!(!format!("{:?}", config.oci_credentials).contains("secret"));
        let defaults = &config.oci_default_credentials[0];
        assert!(defaults.discover_ambient);
        let files = defaults.config_files.as_ref().unwrap();
        assert!(files[0].is_absolute() && files[0].ends_with("auth.json"));
        assert_eq!(files[1], Path::new("/etc/containers/auth.json"));
        assert_eq!(defaults.helper.as_deref(), Some("desktop"));

        let json = r#"{"oci_credentials": {"a.example": {"username": "u", "password": "p"}},
                       "oci_default_credentials": [{"discover_ambient_credentials": false}]}"#;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.tfrc.json");
        std::fs::write(&path, json).unwrap();
        let config = super::super::load_file(&path).unwrap();
        assert_eq!(config.oci_credentials[0].prefix, "a.example");
        assert!(!config.oci_default_credentials[0].discover_ambient);

        for (text, want) in [
            ("oci_credentials \"a\" {}\n", "must set either"),
            (
                "oci_credentials \"a\" {\n username = \"u\"\n access_token = \"t\"\n}\n",
                "only one group",
            ),
            (
                "oci_credentials \"a\" {\n username = \"u\"\n}\n",
                "both username and password",
            ),
            (
                "oci_credentials \"a\" {\n refresh_token = \"r\"\n}\n",
                "both access_token and refresh_token",
            ),
            (
                "oci_default_credentials {\n discover_ambient_credentials = false\n docker_style_config_files = []\n}\n",
                "disables discovery",
            ),
            (
                "oci_default_credentials {}\noci_default_credentials {}\n",
                "no more than one oci_default_credentials",
            ),
            (
                "oci_credentials \"a\" {\n docker_credentials_helper = \"x\"\n}\noci_credentials \"a\" {\n docker_credentials_helper = \"y\"\n}\n",
                "duplicate oci_credentials block for \"a\"",
            ),
        ] {
            let err = load(text).map(|c| {
                validate(&c.oci_credentials, &c.oci_default_credentials)
            });
            let message = match err {
                Err(e) | Ok(Err(e)) => e.to_string(),
                Ok(Ok(())) => panic!("{text:?} was accepted"),
            };
            assert!(message.contains(want), "{text:?}: {message}");
        }
    }
}
