//! [`OciAccess`]: the run's way to an [`OciClient`], made on first use. Most runs never
//! speak to an OCI registry, and making the client reads the Docker-style credentials
//! files; so the files are read (and a broken one warned about) only by a run that
//! needs a registry. The CLI configuration's blocks ([`OciCredentialsBlock`],
//! [`OciDefaultCredentialsBlock`]) are turned into the policy's values at once, so a
//! bad label or helper name is an error of the configuration, named with its file.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use crate::cliconfig::{OciCredential, OciCredentialsBlock, OciDefaultCredentialsBlock};
use crate::http::Http;

use super::client::{OciClient, OciOptions};
use super::credentials::{
    AmbientFiles, ConfiguredCredential, Credentials, CredentialsEntry, CredentialsError,
    DefaultCredentials, HelperName, OciEnv,
};
use super::policy::{CredentialsSource, CredentialsWarning};
use super::reference::RepositoryPrefix;

/// Why the CLI configuration's OCI blocks cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid CLI configuration {}: {message}", file.display())]
pub struct OciConfigError {
    pub file: PathBuf,
    pub message: String,
}

/// What the client is made of.
#[derive(Clone)]
struct Inputs {
    http: Http,
    entries: Vec<CredentialsEntry>,
    defaults: DefaultCredentials,
    env: OciEnv,
    options: OciOptions,
}

/// The run's OCI client, made on first use; clone it freely.
#[derive(Clone)]
pub struct OciAccess {
    inner: Arc<Inner>,
}

struct Inner {
    inputs: Inputs,
    client: OnceLock<Result<Arc<OciClient>, CredentialsError>>,
    warnings: Mutex<Vec<CredentialsWarning>>,
}

impl std::fmt::Debug for OciAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OciAccess").finish_non_exhaustive()
    }
}

impl OciAccess {
    /// Access over the run's HTTP client, with the CLI configuration's OCI blocks.
    pub fn new(
        http: Http,
        blocks: &[OciCredentialsBlock],
        defaults: Option<&OciDefaultCredentialsBlock>,
        env: OciEnv,
        options: OciOptions,
    ) -> Result<OciAccess, OciConfigError> {
        let entries = blocks.iter().map(entry).collect::<Result<Vec<_>, _>>()?;
        let defaults = match defaults {
            Some(block) => default_credentials(block)?,
            None => DefaultCredentials::default(),
        };
        Ok(OciAccess {
            inner: Arc::new(Inner {
                inputs: Inputs {
                    http,
                    entries,
                    defaults,
                    env,
                    options,
                },
                client: OnceLock::new(),
                warnings: Mutex::default(),
            }),
        })
    }

    /// The client, made now if it was not yet: the credentials files are read once.
    /// A file the CLI configuration names that cannot be read is an error, every
    /// time it is asked.
    pub fn client(&self) -> Result<Arc<OciClient>, CredentialsError> {
        self.inner
            .client
            .get_or_init(|| {
                let Inputs {
                    http,
                    entries,
                    defaults,
                    env,
                    options,
                } = self.inner.inputs.clone();
                let (source, warnings) = CredentialsSource::new(entries, &defaults, &env)?;
                if let Ok(mut kept) = self.inner.warnings.lock() {
                    kept.extend(warnings);
                }
                Ok(Arc::new(OciClient::new(http, source, env, options)))
            })
            .clone()
    }

    /// The Docker-style files skipped when the client was made (none if it was not).
    pub fn warnings(&self) -> Vec<CredentialsWarning> {
        self.inner
            .warnings
            .lock()
            .map(|w| w.clone())
            .unwrap_or_default()
    }
}

fn entry(block: &OciCredentialsBlock) -> Result<CredentialsEntry, OciConfigError> {
    let refuse = |message: String| OciConfigError {
        file: block.file.clone(),
        message: format!("the oci_credentials {:?} block {message}", block.prefix),
    };
    let prefix = RepositoryPrefix::parse(&block.prefix)
        .map_err(|e| refuse(format!("has an invalid block label: {e}")))?;
    let credential = match &block.credential {
        OciCredential::Basic { username, password } => {
            ConfiguredCredential::Static(Credentials::Basic {
                username: username.clone(),
                password: password.clone(),
            })
        }
        OciCredential::OAuth {
            access_token,
            refresh_token,
        } => ConfiguredCredential::Static(Credentials::OAuth {
            access_token: access_token.clone(),
            refresh_token: refresh_token.clone(),
        }),
        OciCredential::Helper(name) => ConfiguredCredential::Helper(
            HelperName::parse(name).map_err(|e| refuse(format!("names {e}")))?,
        ),
    };
    CredentialsEntry::new(prefix, credential, Some(block.file.clone()))
        .map_err(|e| refuse(format!("cannot be used: {e}")))
}

fn default_credentials(
    block: &OciDefaultCredentialsBlock,
) -> Result<DefaultCredentials, OciConfigError> {
    let ambient = match (&block.config_files, block.discover_ambient) {
        (_, false) => AmbientFiles::Off,
        (None, true) => AmbientFiles::Search,
        (Some(files), true) if files.is_empty() => AmbientFiles::Off,
        (Some(files), true) => AmbientFiles::Fixed(files.clone()),
    };
    let helper = block
        .helper
        .as_deref()
        .map(HelperName::parse)
        .transpose()
        .map_err(|e| OciConfigError {
            file: block.file.clone(),
            message: format!("the oci_default_credentials block names {e}"),
        })?;
    Ok(DefaultCredentials { ambient, helper })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cliconfig::Token;
    use crate::http::test_support::test_config;

    fn block(prefix: &str, credential: OciCredential) -> OciCredentialsBlock {
        OciCredentialsBlock {
            prefix: prefix.to_string(),
            credential,
            file: PathBuf::from("/home/u/.tofurc"),
        }
    }

    /// Blocks become the policy's values, or an error naming the file and block; the
    /// credentials files are read only when the client is first asked for.
    #[test]
    fn blocks_become_policy_values_and_files_are_read_late() {
        let good = [
            block(
                "ghcr.io/acme",
                OciCredential::Basic {
                    username: "u".into(),
                    password: Token::new("p"),
                },
            ),
            block("example.com", OciCredential::Helper("pass".into())),
        ];
        let dir = tempfile::tempdir().unwrap();
        let named = dir.path().join("missing.json");
        let defaults = OciDefaultCredentialsBlock {
            discover_ambient: true,
            config_files: Some(vec![named.clone()]),
            helper: None,
            file: PathBuf::from("/home/u/.tofurc"),
        };
        let env = OciEnv::default();
        let access = OciAccess::new(
            Http::new(test_config()),
            &good,
            Some(&defaults),
            env.clone(),
            OciOptions::default(),
        )
        .expect("valid blocks");
        // Made on first use: the named file is missing, which is an error then.
        let err = access.client().unwrap_err();
        assert!(err.to_string().contains("missing.json"), "{err}");

        for (bad, want) in [
            (
                block("Example.com/Upper", OciCredential::Helper("pass".into())),
                "invalid block label",
            ),
            (
                block("example.com/a", OciCredential::Helper("pass".into())),
                "whole registries only",
            ),
            (
                block("example.com", OciCredential::Helper("a/b".into())),
                "invalid Docker credential helper name",
            ),
        ] {
            let err = OciAccess::new(
                Http::new(test_config()),
                &[bad],
                None,
                env.clone(),
                OciOptions::default(),
            )
            .unwrap_err();
            assert!(err.to_string().contains(want), "{err}");
            assert!(err.to_string().contains(".tofurc"), "{err}");
        }
        let off = OciDefaultCredentialsBlock {
            discover_ambient: true,
            config_files: Some(Vec::new()),
            helper: Some("desktop".into()),
            file: PathBuf::from("/x"),
        };
        assert_eq!(
            default_credentials(&off).unwrap().ambient,
            AmbientFiles::Off
        );
    }
}
