//! The Terraform/OpenTofu CLI configuration (spec §8, §10): which files are read, the
//! `host` blocks that replace service discovery, where registry tokens come from, the
//! `provider_installation` block, and OpenTofu's OCI credentials blocks.
//!
//! - [`locations`](self) decides which files are read, for Terraform and for OpenTofu;
//! - `hcl1` reads the HCL v1 files (`.terraformrc`, `*.tfrc`) into a JSON-shaped tree;
//!   JSON files (`*.tfrc.json`) are read with [`tfsum_vocab::json`], which keeps method order;
//! - `credentials` holds [`Token`] and the `TF_TOKEN_*` / `credentials` precedence;
//! - [`installation`] validates `provider_installation` blocks (`oci_mirror` included);
//! - [`oci`] reads `oci_credentials` and `oci_default_credentials` blocks;
//! - this file merges the files ([`load`]) and pulls out `host` and `credentials`.
//!
//! `plugin_cache_dir`, `credentials_helper` and anything else are accepted and ignored.
//! Nothing here reads the process environment: [`Env`] is a value, captured by
//! `crate::commands::settings::Environment`.

mod credentials;
mod hcl1;
pub mod installation;
mod locations;
pub(crate) mod oci;
pub mod render;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use tfsum_vocab::addr::Hostname;
use tfsum_vocab::json::JsonNode;

pub use credentials::{ConfiguredToken, CredentialSource, Token};
pub use installation::{MethodLocation, ProviderInstallation, ProviderPattern};
pub(crate) use oci::{OciCredential, OciCredentialsBlock, OciDefaultCredentialsBlock};

/// The environment values the CLI configuration depends on, captured once.
#[derive(Clone, Default)]
pub struct Env {
    /// Environment variables (at least `TF_CLI_CONFIG_FILE`, `TERRAFORM_CONFIG`,
    /// `XDG_CONFIG_HOME`, `APPDATA` and every `TF_TOKEN_*`).
    pub vars: BTreeMap<String, String>,
    /// The home directory (`$HOME`, else the OS user database).
    pub home: Option<PathBuf>,
    /// Read OpenTofu's file locations (`~/.tofurc`, XDG) instead of Terraform's.
    pub opentofu: bool,
}

impl Env {
    /// A variable's value, treating empty as unset (as Terraform does for these).
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

impl fmt::Debug for Env {
    /// Lists variable names only: `TF_TOKEN_*` values are secrets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Env")
            .field("vars", &self.vars.keys().collect::<Vec<_>>())
            .field("home", &self.home)
            .field("opentofu", &self.opentofu)
            .finish()
    }
}

/// The services a `host` block forces for one hostname, in place of discovery.
#[derive(Debug, Clone, PartialEq)]
pub struct HostServices {
    /// Service ID (`providers.v1`) to its value as written (normally a URL string).
    pub services: BTreeMap<String, serde_json::Value>,
    /// The file the block came from, for messages.
    pub file: PathBuf,
}

/// The parts of the CLI configuration tfsum uses, merged over all files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CliConfig {
    /// Forced services per host (`host` blocks); later files win per host.
    pub hosts: BTreeMap<Hostname, HostServices>,
    /// `credentials` blocks per host; later files win per host.
    pub credentials: BTreeMap<Hostname, ConfiguredToken>,
    /// Every `provider_installation` block, in file order. Terraform uses only the first
    /// ([`CliConfig::provider_installation`]).
    pub installations: Vec<ProviderInstallation>,
    /// OpenTofu's `oci_credentials` blocks, in file order (a prefix at most once).
    pub oci_credentials: Vec<OciCredentialsBlock>,
    /// OpenTofu's `oci_default_credentials` block (at most one).
    pub oci_default_credentials: Vec<OciDefaultCredentialsBlock>,
    /// The files that were read, in the order they were merged.
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CliConfigError {
    #[error("cannot read CLI configuration {}: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("cannot parse CLI configuration {}: {message}", path.display())]
    Parse { path: PathBuf, message: String },
    #[error("invalid CLI configuration {}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

/// Reads the CLI configuration the way `terraform` (or `tofu`) would find it.
///
/// `TF_CLI_CONFIG_FILE`, else `TERRAFORM_CONFIG`, names one file and then the config
/// directory is skipped; a missing named file is a warning, as in Terraform. Otherwise
/// the main file (`~/.terraformrc`; for OpenTofu `~/.tofurc`, `~/.terraformrc`, or
/// `$XDG_CONFIG_HOME/opentofu/tofurc`) is read if present, then every `*.tfrc` and
/// `*.tfrc.json` in the config directory in name order (which covers
/// `credentials.tfrc.json`).
///
/// Unlike Terraform, which carries on after a broken file, an unreadable or unparsable
/// file is an error: silently losing a `host` override would send requests elsewhere.
pub fn load(env: &Env) -> Result<(CliConfig, Vec<CliConfigWarning>), CliConfigError> {
    let mut config = CliConfig::default();
    let mut warnings = Vec::new();

    let forced = ["TF_CLI_CONFIG_FILE", "TERRAFORM_CONFIG"]
        .into_iter()
        .find_map(|name| Some((name, env.var(name)?)));
    if let Some((variable, file)) = forced {
        let path = PathBuf::from(file);
        if path.is_file() {
            config.merge(load_file(&path)?);
            oci::validate(&config.oci_credentials, &config.oci_default_credentials)?;
            warn_extra_installations(&config, &mut warnings);
        } else {
            warnings.push(CliConfigWarning::Missing {
                file: path,
                variable,
            });
        }
        return Ok((config, warnings));
    }

    if let Some(main) = locations::main_file(env) {
        if main.is_file() {
            config.merge(load_file(&main)?);
        }
    }
    if let Some(dir) = locations::config_dir(env) {
        if dir.is_dir() {
            for path in locations::config_dir_files(&dir)? {
                config.merge(load_file(&path)?);
            }
        }
    }
    oci::validate(&config.oci_credentials, &config.oci_default_credentials)?;
    warn_extra_installations(&config, &mut warnings);
    Ok((config, warnings))
}

/// What reading the CLI configuration noticed that stopped nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CliConfigWarning {
    /// `TF_CLI_CONFIG_FILE` (or `TERRAFORM_CONFIG`) names a file that does not exist.
    #[error("the CLI configuration file {} named by {variable} does not exist; continuing without it", file.display())]
    Missing {
        file: PathBuf,
        variable: &'static str,
    },
    /// A second `provider_installation` block, ignored as Terraform ignores it.
    #[error("only one provider_installation block is allowed; the one in {} is ignored in favour of the one in {}", ignored.display(), kept.display())]
    ExtraInstallation { ignored: PathBuf, kept: PathBuf },
}

fn warn_extra_installations(config: &CliConfig, warnings: &mut Vec<CliConfigWarning>) {
    if let [first, rest @ ..] = config.installations.as_slice() {
        for extra in rest {
            warnings.push(CliConfigWarning::ExtraInstallation {
                ignored: extra.file.clone(),
                kept: first.file.clone(),
            });
        }
    }
}

impl CliConfig {
    /// Merges a later file over this configuration: entries for the same host are
    /// replaced whole (`Config.Merge`).
    pub fn merge(&mut self, later: CliConfig) {
        self.hosts.extend(later.hosts);
        self.credentials.extend(later.credentials);
        self.installations.extend(later.installations);
        self.oci_credentials.extend(later.oci_credentials);
        self.oci_default_credentials
            .extend(later.oci_default_credentials);
        self.files.extend(later.files);
    }

    /// The `provider_installation` block in effect: the first one read, as in Terraform
    /// (which warns about the others; [`load`] does too).
    pub fn provider_installation(&self) -> Option<&ProviderInstallation> {
        self.installations.first()
    }
}

/// Reads and parses one file, HCL or JSON by its extension.
pub fn load_file(path: &Path) -> Result<CliConfig, CliConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| CliConfigError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let is_json = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".json"));
    let parse_err = |message: String| CliConfigError::Parse {
        path: path.to_path_buf(),
        message,
    };
    let (tree, installations) = if is_json {
        let root = JsonNode::parse(&text).map_err(|e| {
            parse_err(format!(
                "line {}, column {}: {}",
                e.line, e.column, e.message
            ))
        })?;
        (
            root.to_value(),
            installation::json_blocks(&root).map_err(parse_err)?,
        )
    } else {
        let body = hcl1::parse(&text).map_err(parse_err)?;
        (hcl1::body_to_tree(&body), installation::hcl_blocks(&body))
    };
    let mut config = from_tree(&tree, path)?;
    for methods in installations {
        config
            .installations
            .push(installation::from_blocks(methods, path)?);
    }
    Ok(config)
}

/// Pulls `host` and `credentials` out of a parsed file. Block collections may be an
/// object (`{"host": {"example.com": {…}}}`) or a list of such objects (HCL v1 JSON and
/// repeated blocks); later entries win.
fn from_tree(tree: &serde_json::Value, path: &Path) -> Result<CliConfig, CliConfigError> {
    let invalid = |message: String| CliConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let Some(top) = tree.as_object() else {
        return Err(invalid("the top level must be an object".to_string()));
    };
    let mut config = CliConfig {
        files: vec![path.to_path_buf()],
        oci_credentials: oci::credentials_blocks(top, path)?,
        oci_default_credentials: oci::default_blocks(top, path)?,
        ..CliConfig::default()
    };

    for (name, body) in labelled_blocks(top.get("host")) {
        let host = Hostname::parse(&name).map_err(|e| {
            invalid(format!(
                "the host {name:?} block has an invalid hostname: {e}"
            ))
        })?;
        let services = match body.get("services") {
            None | Some(serde_json::Value::Null) => BTreeMap::new(),
            Some(value) => merged_objects(value)
                .ok_or_else(|| invalid(format!("host {name:?}: services must be a map")))?,
        };
        config.hosts.insert(
            host,
            HostServices {
                services,
                file: path.to_path_buf(),
            },
        );
    }

    for (name, body) in labelled_blocks(top.get("credentials")) {
        let host = Hostname::parse(&name).map_err(|e| {
            invalid(format!(
                "the credentials {name:?} block has an invalid hostname: {e}"
            ))
        })?;
        // A block without a token carries no credentials (HostCredentialsFromMap).
        if let Some(token) = body.get("token").and_then(|t| t.as_str()) {
            config.credentials.insert(
                host,
                ConfiguredToken {
                    token: Token::new(token),
                    file: path.to_path_buf(),
                },
            );
        }
    }
    Ok(config)
}

/// `(label, body)` pairs of a labelled block collection, in file order.
fn labelled_blocks(
    value: Option<&serde_json::Value>,
) -> Vec<(String, serde_json::Map<String, serde_json::Value>)> {
    let mut out = Vec::new();
    let objects: Vec<&serde_json::Value> = match value {
        Some(serde_json::Value::Array(items)) => items.iter().collect(),
        Some(other) => vec![other],
        None => Vec::new(),
    };
    for object in objects {
        let Some(object) = object.as_object() else {
            continue;
        };
        for (label, body) in object {
            if let Some(body) = merged_objects(body) {
                out.push((label.clone(), body.into_iter().collect()));
            }
        }
    }
    out
}

/// An object, or a list of objects merged in order (a repeated nested block).
pub(super) fn merged_objects(
    value: &serde_json::Value,
) -> Option<BTreeMap<String, serde_json::Value>> {
    match value {
        serde_json::Value::Object(map) => {
            Some(map.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        }
        serde_json::Value::Array(items) => {
            let mut merged = BTreeMap::new();
            for item in items {
                merged.extend(merged_objects(item)?);
            }
            Some(merged)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str) -> Hostname {
        Hostname::parse(name).unwrap()
    }

    fn env_with(home: &Path, vars: &[(&str, &str)], opentofu: bool) -> Env {
        Env {
            vars: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            home: Some(home.to_path_buf()),
            opentofu,
        }
    }

    #[test]
    fn reads_terraformrc_and_config_dir_in_order() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join(".terraformrc"),
            r#"
# HCL v1 style, with things tfsum ignores
plugin_cache_dir = "$HOME/.terraform.d/plugin-cache"
disable_checkpoint = true

host "Example.COM:443" {
  services = {
    "providers.v1" = "https://example.com/main/"
  }
}

host "second.example" {
  services {
    "providers.v1" = "/v1/providers/"
    "modules.v1"   = "/v1/modules/"
  }
}

credentials "app.terraform.io" {
  token = "main-token"
}

credentials "café.fr" {
  token = "idn-token"
}

credentials_helper "example" {
  args = ["--flag"]
}

provider_installation {
  filesystem_mirror {
    path    = "/usr/share/terraform/providers"
    include = ["example.com/*/*"]
  }
  network_mirror {
    url = "https://mirror.example/providers/"
  }
  dev_overrides {
    "hashicorp/null" = "/home/u/dev/null"
  }
  direct {
    exclude = ["example.com/*/*"]
  }
}
"#,
        )
        .unwrap();
        let dir = home.path().join(".terraform.d");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(
            dir.join("credentials.tfrc.json"),
            r#"{"credentials":{"app.terraform.io":{"token":"json-token"}}}"#,
        )
        .unwrap();
        std::fs::write(
            dir.join("z-hosts.tfrc"),
            "host \"example.com\" {\n  services = { \"providers.v1\" = \"https://example.com/later/\" }\n}\n",
        )
        .unwrap();
        std::fs::write(dir.join("ignored.txt"), "not { hcl").unwrap();

        let (config, warnings) = load(&env_with(home.path(), &[], false)).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(
            config.files,
            vec![
                home.path().join(".terraformrc"),
                dir.join("credentials.tfrc.json"),
                dir.join("z-hosts.tfrc"),
            ]
        );
        let services = |h: &str| {
            config.hosts[&host(h)].services["providers.v1"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(services("example.com"), "https://example.com/later/");
        assert_eq!(services("second.example"), "/v1/providers/");
        assert_eq!(
            config.credentials[&host("app.terraform.io")].token.expose(),
            "json-token"
        );
        assert_eq!(
            config.credentials[&host("café.fr")].token.expose(),
            "idn-token"
        );
    }

    #[test]
    fn cli_config_file_variable_replaces_the_config_dir() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join(".terraformrc"),
            "credentials \"a.example\" { token = \"home\" }\n",
        )
        .unwrap();
        let custom = home.path().join("custom.tfrc");
        std::fs::write(
            &custom,
            "credentials \"b.example\" { token = \"custom\" }\n",
        )
        .unwrap();

        let custom_str = custom.to_str().unwrap();
        for var in ["TF_CLI_CONFIG_FILE", "TERRAFORM_CONFIG"] {
            let (config, warnings) =
                load(&env_with(home.path(), &[(var, custom_str)], false)).unwrap();
            assert!(warnings.is_empty());
            assert_eq!(config.files, vec![custom.clone()], "{var}");
            assert!(config.credentials.contains_key(&host("b.example")));
            assert!(!config.credentials.contains_key(&host("a.example")));
        }

        let missing = home.path().join("missing.tfrc");
        for var in ["TF_CLI_CONFIG_FILE", "TERRAFORM_CONFIG"] {
            let vars = [(var, missing.to_str().unwrap())];
            let (config, warnings) = load(&env_with(home.path(), &vars, false)).unwrap();
            assert!(config.files.is_empty());
            assert_eq!(warnings.len(), 1);
            assert_eq!(
                warnings[0],
                CliConfigWarning::Missing {
                    file: missing.clone(),
                    variable: var,
                }
            );
            let want = format!("missing.tfrc named by {var} does not exist");
            assert!(warnings[0].to_string().contains(&want), "{}", warnings[0]);
        }
    }

    #[test]
    fn opentofu_file_locations() {
        // ~/.tofurc wins over ~/.terraformrc.
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join(".terraformrc"),
            "credentials \"a.example\" { token = \"tf\" }\n",
        )
        .unwrap();
        let (config, _) = load(&env_with(home.path(), &[], true)).unwrap();
        assert_eq!(config.files, vec![home.path().join(".terraformrc")]);
        std::fs::write(
            home.path().join(".tofurc"),
            "credentials \"a.example\" { token = \"tofu\" }\n",
        )
        .unwrap();
        let (config, _) = load(&env_with(home.path(), &[], true)).unwrap();
        assert_eq!(config.files, vec![home.path().join(".tofurc")]);

        // A fresh install with XDG_CONFIG_HOME uses $XDG_CONFIG_HOME/opentofu/.
        let fresh = tempfile::tempdir().unwrap();
        let xdg = fresh.path().join("xdg");
        std::fs::create_dir_all(xdg.join("opentofu")).unwrap();
        std::fs::write(
            xdg.join("opentofu/tofurc"),
            "credentials \"x.example\" { token = \"xdg\" }\n",
        )
        .unwrap();
        std::fs::write(
            xdg.join("opentofu/extra.tfrc.json"),
            r#"{"host":[{"x.example":{"services":{"providers.v1":"https://x.example/p/"}}}]}"#,
        )
        .unwrap();
        let env = env_with(
            fresh.path(),
            &[("XDG_CONFIG_HOME", xdg.to_str().unwrap())],
            true,
        );
        let (config, _) = load(&env).unwrap();
        assert_eq!(
            config.files,
            vec![
                xdg.join("opentofu/tofurc"),
                xdg.join("opentofu/extra.tfrc.json")
            ]
        );
        assert!(config.hosts.contains_key(&host("x.example")));
        // Terraform itself ignores XDG.
        let (config, _) = load(&Env {
            opentofu: false,
            ..env
        })
        .unwrap();
        assert!(config.files.is_empty());
    }

    #[test]
    fn rejects_broken_files() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(".terraformrc");
        let cases = [
            ("host \"a..example\" {\n}\n", "invalid hostname"),
            (
                "credentials \"xn--caf-dma.fr\" { token = \"t\" }\n",
                "invalid hostname",
            ),
            (
                "host \"a.example\" { services = \"nope\" }\n",
                "services must be a map",
            ),
            ("this is { not hcl", "cannot parse"),
        ];
        for (text, want) in cases {
            std::fs::write(&path, text).unwrap();
            let err = load(&env_with(home.path(), &[], false)).unwrap_err();
            assert!(err.to_string().contains(want), "{text:?}: {err}");
        }
    }

    /// Method order is kept, in HCL (including the v1 quoted-key form that needs the
    /// rewrite) and in JSON; only the first block is used, the others are warned about.
    #[test]
    fn provider_installation_blocks() {
        let home = tempfile::tempdir().unwrap();
        let hcl = r#"
provider_installation {
  oci_mirror {
    repository_template = "registry.example/p/${namespace}/${type}"
    include             = ["registry.opentofu.org/*/*"]
  }
  network_mirror {
    url     = "https://mirror.example/"
    include = ["example.com/*/*"]
  }
  filesystem_mirror {
    path    = "/opt/providers"
    exclude = ["hashicorp/aws"]
  }
  dev_overrides {
    "hashicorp/null" = "/home/u/null"
  }
  direct {}
}
"#;
        let json = r#"{"provider_installation": [{
            "network_mirror": {"url": "https://z.example/"},
            "direct": [{"exclude": ["a/b"]}, {"include": ["c/d"]}],
            "filesystem_mirror": {"path": "/a"}
        }]}"#;
        let describe = |inst: &ProviderInstallation| -> Vec<String> {
            inst.methods
                .iter()
                .map(|m| {
                    let location = match &m.location {
                        MethodLocation::Direct => "direct".to_string(),
                        MethodLocation::FilesystemMirror(p) => format!("fs {}", p.display()),
                        MethodLocation::NetworkMirror(u) => format!("net {u}"),
                        MethodLocation::OciMirror(t) => format!("oci {t}"),
                        MethodLocation::DevOverrides(o) => format!("dev {o:?}"),
                    };
                    format!("{location} +{} -{}", m.include.len(), m.exclude.len())
                })
                .collect()
        };
        std::fs::write(home.path().join(".terraformrc"), hcl).unwrap();
        let dir = home.path().join(".terraform.d");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("mirrors.tfrc.json"), json).unwrap();
        let (config, warnings) = load(&env_with(home.path(), &[], false)).unwrap();
        assert_eq!(config.installations.len(), 2);
        assert_eq!(
            describe(config.provider_installation().unwrap()),
            [
                "oci registry.example/p/${namespace}/${type} +1 -0",
                "net https://mirror.example/ +1 -0",
                "fs /opt/providers +0 -1",
                "dev {\"hashicorp/null\": \"/home/u/null\"} +0 -0",
                "direct +0 -0",
            ]
        );
        assert_eq!(
            describe(&config.installations[1]),
            [
                "net https://z.example/ +0 -0",
                "direct +0 -1",
                "direct +1 -0",
                "fs /a +0 -0",
            ]
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(matches!(
            warnings[0],
            CliConfigWarning::ExtraInstallation { .. }
        ));
        assert!(warnings[0]
            .to_string()
            .contains("only one provider_installation block"));

        for (text, want) in [
            (
                "provider_installation {\n  mirror {}\n}\n",
                "unknown provider installation method \"mirror\"",
            ),
            (
                "provider_installation {\n  filesystem_mirror {}\n}\n",
                "filesystem_mirror requires a path",
            ),
            (
                "provider_installation {\n  network_mirror {\n    url = 1\n  }\n}\n",
                "url must be a string",
            ),
            (
                "provider_installation {\n  direct {\n    include = [\"aws\"]\n  }\n}\n",
                "invalid provider matching pattern \"aws\"",
            ),
            (
                "provider_installation {\n  oci_mirror {\n    include = [\"a/b\"]\n  }\n}\n",
                "oci_mirror: the \"repository_template\" argument is required",
            ),
        ] {
            std::fs::write(home.path().join(".terraformrc"), text).unwrap();
            std::fs::remove_file(dir.join("mirrors.tfrc.json")).ok();
            let err = load(&env_with(home.path(), &[], false)).unwrap_err();
            assert!(err.to_string().contains(want), "{text:?}: {err}");
        }
    }
}
