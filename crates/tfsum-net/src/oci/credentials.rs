//! OCI credentials and where they come from, as values: the environment the policy
//! reads ([`OciEnv`]), [`Credentials`] themselves, the CLI configuration's blocks
//! ([`CredentialsEntry`], `oci_credentials`; [`DefaultCredentials`],
//! `oci_default_credentials`), and what the policy ([`crate::oci::policy`]) chooses
//! for a repository ([`Selected`]: how specific, what, from where).
//!
//! The blocks are OpenTofu's (`internal/command/cliconfig/oci_credentials.go` at
//! v1.12.6): exactly one of a username and password, an access and refresh token, or a
//! Docker credential helper, the helper for a whole registry only (`:480-590`); they
//! are parsed by the CLI configuration's reader and arrive here as values. Secrets are
//! [`Token`]s, which never print; nothing here reads the process environment.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::cliconfig::Token;

use super::reference::RepositoryPrefix;

/// What the credentials policy reads from its surroundings, captured once.
#[derive(Clone, Default)]
pub struct OciEnv {
    /// `XDG_RUNTIME_DIR`, `XDG_CONFIG_HOME` (the containers auth files) and `PATH`
    /// (where credential helpers are looked for); others are ignored.
    pub vars: BTreeMap<String, String>,
    /// The home directory (`$HOME`).
    pub home: Option<PathBuf>,
    /// Go's name of the operating system (`linux`, `darwin`, `windows`): the search
    /// order of the auth files depends on it.
    pub os: String,
}

impl OciEnv {
    /// A variable's value; empty counts as unset, as OpenTofu reads them.
    pub(crate) fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

impl fmt::Debug for OciEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OciEnv")
            .field("vars", &self.vars.keys().collect::<Vec<_>>())
            .field("home", &self.home)
            .field("os", &self.os)
            .finish()
    }
}

/// Credentials as the registry protocol uses them.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Credentials {
    /// For Basic challenges, and for the distribution token endpoint.
    Basic { username: String, password: Token },
    /// An OAuth-style pair: the access token is sent as it is; the refresh token is
    /// traded for access tokens when no access token is set.
    OAuth {
        access_token: Token,
        refresh_token: Token,
    },
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Credentials::Basic { username, .. } => f
                .debug_struct("Basic")
                .field("username", username)
                .field("password", &"<redacted>")
                .finish(),
            Credentials::OAuth { .. } => f.write_str("OAuth(<redacted>)"),
        }
    }
}

/// The name of a Docker credential helper: `pass` for `docker-credential-pass`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelperName(String);

impl HelperName {
    /// A non-empty name without path separators (`validDockerCredentialHelperName`,
    /// `oci_credentials.go:713-728`): it becomes part of an executable's file name.
    pub(crate) fn parse(given: &str) -> Result<HelperName, CredentialsError> {
        if given.is_empty() || given.contains(['/', '\\']) {
            return Err(CredentialsError::HelperName {
                given: given.to_string(),
            });
        }
        Ok(HelperName(given.to_string()))
    }

    /// `docker-credential-<name>`.
    pub(crate) fn program(&self) -> String {
        format!("docker-credential-{}", self.0)
    }
}

impl fmt::Display for HelperName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What an `oci_credentials` block configures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConfiguredCredential {
    Static(Credentials),
    Helper(HelperName),
}

/// One `oci_credentials "<prefix>" { … }` block, as a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CredentialsEntry {
    prefix: RepositoryPrefix,
    credential: ConfiguredCredential,
    /// The file the block is in, for messages.
    file: Option<PathBuf>,
}

impl CredentialsEntry {
    /// A block's contents; a helper may serve a whole host only
    /// (`oci_credentials.go:560-571`).
    pub(crate) fn new(
        prefix: RepositoryPrefix,
        credential: ConfiguredCredential,
        file: Option<PathBuf>,
    ) -> Result<CredentialsEntry, CredentialsError> {
        if matches!(credential, ConfiguredCredential::Helper(_)) && prefix.path().is_some() {
            return Err(CredentialsError::HelperWithPath {
                prefix: prefix.to_string(),
            });
        }
        Ok(CredentialsEntry {
            prefix,
            credential,
            file,
        })
    }

    pub(crate) fn prefix(&self) -> &RepositoryPrefix {
        &self.prefix
    }

    pub(crate) fn credential(&self) -> &ConfiguredCredential {
        &self.credential
    }

    pub(crate) fn file(&self) -> Option<&PathBuf> {
        self.file.as_ref()
    }
}

/// Where the Docker-style files come from (`docker_style_config_files`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum AmbientFiles {
    /// OpenTofu's search locations; unreadable or broken files are skipped with a
    /// warning, since other tools own them.
    #[default]
    Search,
    /// Exactly these files; each must exist and parse (the operator named them).
    Fixed(Vec<PathBuf>),
    /// None (`discover_ambient_credentials = false`, or an empty list).
    Off,
}

/// The `oci_default_credentials` block, as a value; its default is the block's absence.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct DefaultCredentials {
    pub ambient: AmbientFiles,
    /// `docker_credentials_helper`: the helper for any repository nothing more specific
    /// covers.
    pub helper: Option<HelperName>,
}

/// How closely a source matches a repository; higher wins
/// (`ociauthconfig/credentials_specificity.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Specificity(u32);

impl Specificity {
    /// Any repository of any registry (a global helper, `credsStore`).
    pub(crate) const GLOBAL: Specificity = Specificity(1);
    /// Every repository of one registry.
    pub(crate) const REGISTRY: Specificity = Specificity(2);

    /// A registry and `segments` leading path segments (0 is [`Specificity::REGISTRY`]).
    pub(crate) fn repository(segments: usize) -> Specificity {
        let segments = u32::try_from(segments).unwrap_or(u32::MAX - 2);
        Specificity(2u32.saturating_add(segments))
    }
}

/// Where chosen credentials came from; shown when a registry refuses them. Never holds
/// a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialOrigin {
    /// An `oci_credentials` block.
    Block {
        prefix: String,
        file: Option<PathBuf>,
    },
    /// The helper of `oci_default_credentials`.
    DefaultHelper(HelperName),
    /// An `auths` entry of a Docker-style file.
    AuthsEntry { file: PathBuf, key: String },
    /// `credHelpers` (one host) or `credsStore` (every host) of a Docker-style file.
    FileHelper { file: PathBuf, helper: HelperName },
}

impl fmt::Display for CredentialOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CredentialOrigin::Block { prefix, file } => {
                write!(f, "from the oci_credentials {prefix:?} block")?;
                match file {
                    Some(file) => write!(f, " in {}", file.display()),
                    None => Ok(()),
                }
            }
            CredentialOrigin::DefaultHelper(helper) => write!(
                f,
                "from docker-credential-{helper} (oci_default_credentials)"
            ),
            CredentialOrigin::AuthsEntry { file, key } => {
                write!(f, "from the \"auths\" entry {key:?} in {}", file.display())
            }
            CredentialOrigin::FileHelper { file, helper } => {
                write!(
                    f,
                    "from docker-credential-{helper} (named in {})",
                    file.display()
                )
            }
        }
    }
}

/// What a chosen source gives: credentials, or a helper to ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Selection {
    Static(Credentials),
    /// The helper, and the server URL it is asked about (`https://<host>`).
    Helper {
        helper: HelperName,
        server_url: String,
    },
}

/// The source chosen for one repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selected {
    pub specificity: Specificity,
    pub selection: Selection,
    pub origin: CredentialOrigin,
}

/// Why credentials could not be had. Never holds a secret: a helper's output and a
/// file's contents are described, not quoted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CredentialsError {
    #[error("invalid Docker credential helper name {given:?}: it must be a non-empty name without '/' or '\\', used as docker-credential-<name>")]
    HelperName { given: String },

    #[error("oci_credentials {prefix:?}: docker_credentials_helper serves whole registries only, not a repository path")]
    HelperWithPath { prefix: String },

    #[error("cannot read {}: {reason}", .file.display())]
    FileRead {
        file: PathBuf,
        reason: String,
        not_found: bool,
    },

    #[error("{} is not a valid Docker-style credentials file: {reason}", .file.display())]
    FileParse { file: PathBuf, reason: String },

    #[error("the \"auths\" entry {key:?} in {} is not base64 of username:password", .file.display())]
    AuthsEntry { file: PathBuf, key: String },

    #[error("credential helper docker-credential-{helper} was not found on PATH")]
    HelperNotFound { helper: HelperName },

    #[error("credential helper docker-credential-{helper} could not run: {reason}")]
    HelperRun { helper: HelperName, reason: String },

    #[error("credential helper docker-credential-{helper} gave no answer within {after:?}")]
    HelperTimeout { helper: HelperName, after: Duration },

    #[error("credential helper docker-credential-{helper} failed ({status}){}", if .message.is_empty() { String::new() } else { format!(": {}", .message) })]
    HelperFailed {
        helper: HelperName,
        status: String,
        message: String,
    },

    #[error("credential helper docker-credential-{helper} answered something unusable: {reason}")]
    HelperOutput { helper: HelperName, reason: String },

    /// OpenTofu refuses identity tokens from helpers (`cmd/tofu/oci_distribution.go:234-244`).
    #[error("credential helper docker-credential-{helper} answered with an identity token (username <token>); only a username and password are accepted from a helper")]
    HelperIdentityToken { helper: HelperName },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic(user: &str) -> ConfiguredCredential {
        ConfiguredCredential::Static(Credentials::Basic {
            username: user.to_string(),
            password: Token::new("secret"),
        })
    }

    fn entry(prefix: &str, credential: ConfiguredCredential) -> CredentialsEntry {
        CredentialsEntry::new(RepositoryPrefix::parse(prefix).unwrap(), credential, None).unwrap()
    }

    #[test]
    fn entries_are_checked_and_secrets_do_not_print() {
        let prefix = RepositoryPrefix::parse("example.com/a").unwrap();
        let helper = ConfiguredCredential::Helper(HelperName::parse("pass").unwrap());
        assert!(matches!(
            CredentialsEntry::new(prefix, helper, None),
            Err(CredentialsError::HelperWithPath { .. })
        ));
        for bad in ["", "a/b", "a\\b"] {
            assert!(HelperName::parse(bad).is_err(), "{bad:?}");
        }
        let oauth = entry(
            "example.com",
            ConfiguredCredential::Static(Credentials::OAuth {
                access_token: Token::new("access-secret"),
                refresh_token: Token::new("refresh-secret"),
            }),
        );
        let shown = format!("{oauth:?} {:?}", entry("example.com", basic("user")));
        assert!(!shown.contains("secret"), "{shown}");
        assert!(shown.contains("user"), "{shown}");
    }
}
