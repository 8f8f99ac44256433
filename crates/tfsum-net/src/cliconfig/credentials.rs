//! Registry credentials (spec §8): `credentials` blocks and `TF_TOKEN_*` variables, and
//! the [`Token`] type that keeps a secret out of every log line and message.

use std::fmt;
use std::path::PathBuf;

use tfsum_vocab::addr::Hostname;

use super::{CliConfig, Env};

/// A registry token. Its `Debug` and `Display` never show the value, so a token cannot
/// leak through a log line or an error message by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    pub fn new(value: impl Into<String>) -> Token {
        Token(value.into())
    }

    /// The secret itself, for the `Authorization` header only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// Where a token came from; shown when a registry refuses it (spec §8 precedence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialSource {
    /// A `TF_TOKEN_…` environment variable, by its exact name.
    EnvVar(String),
    /// A `credentials "host" { token = … }` block (or `credentials.tfrc.json`) in a file.
    CredentialsBlock(PathBuf),
}

impl fmt::Display for CredentialSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CredentialSource::EnvVar(name) => write!(f, "from {name}"),
            CredentialSource::CredentialsBlock(path) => {
                write!(f, "from credentials block in {}", path.display())
            }
        }
    }
}

/// A token from a `credentials` block.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfiguredToken {
    pub token: Token,
    pub file: PathBuf,
}

impl CliConfig {
    /// The token for `host` and where it came from: a `TF_TOKEN_*` variable first, then
    /// a `credentials` block (spec §8; credential helpers are not supported).
    pub fn token_for(&self, host: &Hostname, env: &Env) -> Option<(Token, CredentialSource)> {
        // Several variables can name the same host (Unicode and punycode spellings);
        // the last in name order wins, deterministically.
        let from_env =
            env.vars.iter().rev().find(|(name, value)| {
                !value.is_empty() && token_var_host(name).as_ref() == Some(host)
            });
        if let Some((name, value)) = from_env {
            return Some((
                Token::new(value.clone()),
                CredentialSource::EnvVar(name.clone()),
            ));
        }
        self.credentials.get(host).map(|c| {
            (
                c.token.clone(),
                CredentialSource::CredentialsBlock(c.file.clone()),
            )
        })
    }
}

/// The host a `TF_TOKEN_…` variable name stands for, if it is a valid one.
///
/// Mangling (spec §8): after the prefix, `__` becomes `-`, then `_` becomes `.`. The
/// result may be punycode or Unicode: it is shown in Unicode first (`ForDisplay`) and
/// then normalised (`ForComparison`), so both spellings name the same host.
pub(crate) fn token_var_host(name: &str) -> Option<Hostname> {
    let raw = name.strip_prefix("TF_TOKEN_")?;
    let demangled = raw.replace("__", "-").replace('_', ".");
    let (host, port) = match demangled.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (demangled.as_str(), None),
    };
    let (unicode, result) = idna::domain_to_unicode(host);
    result.ok()?;
    let display = match port {
        Some(port) => format!("{unicode}:{port}"),
        None => unicode,
    };
    Hostname::parse(&display).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str) -> Hostname {
        Hostname::parse(name).unwrap()
    }

    #[test]
    fn token_variable_mangling() {
        let cases = [
            ("TF_TOKEN_app_terraform_io", Some("app.terraform.io")),
            ("TF_TOKEN_xn____caf__dma_fr", Some("xn--caf-dma.fr")),
            ("TF_TOKEN_café_fr", Some("xn--caf-dma.fr")),
            (
                "TF_TOKEN_my__registry_example_com",
                Some("my-registry.example.com"),
            ),
            ("TF_TOKEN_APP_TERRAFORM_IO", Some("app.terraform.io")),
            ("TF_TOKEN_localhost:8443", Some("localhost:8443")),
            ("TF_TOKEN_example_com:443", Some("example.com")),
            ("TF_TOKEN_", None),
            ("TF_TOKEN__example_com", None),
            ("TF_TOKEN_example_com_", None),
            ("TF_TOKEN_bad:port", None),
            ("TF_TOKENS_example_com", None),
            ("OTHER_app_terraform_io", None),
        ];
        for (name, want) in cases {
            let got = token_var_host(name);
            assert_eq!(got.as_ref().map(Hostname::as_str), want, "{name}");
        }
    }

    #[test]
    fn token_precedence_env_over_block() {
        let file = PathBuf::from("/home/u/.terraformrc");
        let mut config = CliConfig::default();
        config.credentials.insert(
            host("app.terraform.io"),
            ConfiguredToken {
                token: Token::new("from-block"),
                file: file.clone(),
            },
        );
        config.credentials.insert(
            host("other.example"),
            ConfiguredToken {
                token: Token::new("other-block"),
                file: file.clone(),
            },
        );
        let env = Env {
            vars: [(
                "TF_TOKEN_app_terraform_io".to_string(),
                "from-env".to_string(),
            )]
            .into_iter()
            .collect(),
            ..Env::default()
        };
        let (token, source) = config.token_for(&host("app.terraform.io"), &env).unwrap();
        assert_eq!(token.expose(), "from-env");
        assert_eq!(source.to_string(), "from TF_TOKEN_app_terraform_io");
        let (token, source) = config.token_for(&host("other.example"), &env).unwrap();
        assert_eq!(token.expose(), "other-block");
        assert_eq!(
            source.to_string(),
            "from credentials block in /home/u/.terraformrc"
        );
        assert!(config.token_for(&host("none.example"), &env).is_none());
        assert!(!format!("{config:?}{env:?}").contains("from-"));
    }
}
