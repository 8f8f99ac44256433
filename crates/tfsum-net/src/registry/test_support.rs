//! What the registry tests share beyond the HTTP test servers of
//! `crate::http::test_support`: a client and a CLI configuration that points a host
//! at a test server.

use std::path::PathBuf;

use super::client::RegistryClient;
use crate::cliconfig::{CliConfig, ConfiguredToken, Env, HostServices, Token};
use crate::http::{Http, HttpConfig};
use tfsum_vocab::addr::Hostname;

/// A CLI configuration forcing `host`'s `providers.v1` to `base`, with an optional
/// credentials-block token.
pub(crate) fn forced(host: &str, base: &str, token: Option<&str>) -> CliConfig {
    let host = Hostname::parse(host).unwrap();
    let mut cli = CliConfig::default();
    cli.hosts.insert(
        host.clone(),
        HostServices {
            services: [("providers.v1".to_string(), serde_json::json!(base))]
                .into_iter()
                .collect(),
            file: PathBuf::from("/test/.terraformrc"),
        },
    );
    if let Some(token) = token {
        cli.credentials.insert(
            host,
            ConfiguredToken {
                token: Token::new(token),
                file: PathBuf::from("/test/.terraformrc"),
            },
        );
    }
    cli
}

pub(crate) fn client(config: HttpConfig, cli: CliConfig, env: Env) -> RegistryClient {
    RegistryClient::new(Http::new(config), cli, env)
}
