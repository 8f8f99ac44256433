//! The Terraform/OpenTofu CLI configuration (spec §8, §10): which files are read, the
//! `host` blocks that replace service discovery, and where registry tokens come from.
//!
//! The files are HCL **v1** (`.terraformrc`, `*.tfrc`) or JSON (`*.tfrc.json`). hcl-rs
//! parses HCL v2, which accepts the usual v1 files; the one v1 form it rejects, a
//! nested block whose body has quoted keys (`services { "providers.v1" = … }`,
//! `dev_overrides { "hashicorp/null" = … }`), is rewritten into the equivalent
//! attribute form before a second attempt.
//!
//! Only `host` and `credentials` are read; `provider_installation`, `plugin_cache_dir`,
//! `credentials_helper` and anything else are accepted and ignored for now.
//!
//! Nothing here reads the process environment except [`Env::from_process`], so tests
//! describe the environment as a value.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::addr::Hostname;

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
    /// Captures the process environment. The only function in this module that looks at
    /// the real environment.
    pub fn from_process(opentofu: bool) -> Env {
        let vars: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        // Terraform prefers $HOME and falls back to the user database (spec §8).
        let home = vars
            .get("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(dirs::home_dir);
        Env {
            vars,
            home,
            opentofu,
        }
    }

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

/// A token from a `credentials` block.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfiguredToken {
    pub token: Token,
    pub file: PathBuf,
}

/// The parts of the CLI configuration tfsum uses, merged over all files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CliConfig {
    /// Forced services per host (`host` blocks); later files win per host.
    pub hosts: BTreeMap<Hostname, HostServices>,
    /// `credentials` blocks per host; later files win per host.
    pub credentials: BTreeMap<Hostname, ConfiguredToken>,
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
pub fn load(env: &Env) -> Result<(CliConfig, Vec<String>), CliConfigError> {
    let mut config = CliConfig::default();
    let mut warnings = Vec::new();

    let forced = env
        .var("TF_CLI_CONFIG_FILE")
        .or_else(|| env.var("TERRAFORM_CONFIG"));
    if let Some(file) = forced {
        let path = PathBuf::from(file);
        if path.is_file() {
            config.merge(load_file(&path)?);
        } else {
            warnings.push(format!(
                "the CLI configuration file {} named by the environment does not exist; continuing without it",
                path.display()
            ));
        }
        return Ok((config, warnings));
    }

    if let Some(main) = main_file(env) {
        if main.is_file() {
            config.merge(load_file(&main)?);
        }
    }
    if let Some(dir) = config_dir(env) {
        if dir.is_dir() {
            for path in config_dir_files(&dir)? {
                config.merge(load_file(&path)?);
            }
        }
    }
    Ok((config, warnings))
}

/// The main configuration file for the tool being imitated (spec §8, §10).
fn main_file(env: &Env) -> Option<PathBuf> {
    if cfg!(windows) {
        let appdata = PathBuf::from(env.var("APPDATA")?);
        let legacy = appdata.join("terraform.rc");
        if env.opentofu {
            let new = appdata.join("tofu.rc");
            return Some(if !new.exists() && legacy.exists() {
                legacy
            } else {
                new
            });
        }
        return Some(legacy);
    }
    let home = env.home.as_ref()?;
    let legacy = home.join(".terraformrc");
    if !env.opentofu {
        return Some(legacy);
    }
    let new = home.join(".tofurc");
    match env.var("XDG_CONFIG_HOME") {
        // A fresh OpenTofu install with XDG set uses the XDG location.
        Some(xdg) if !new.exists() && !legacy.exists() => {
            Some(Path::new(xdg).join("opentofu").join("tofurc"))
        }
        _ if !new.exists() && legacy.exists() => Some(legacy),
        _ => Some(new),
    }
}

/// The configuration directory (`~/.terraform.d`; OpenTofu falls back to
/// `$XDG_CONFIG_HOME/opentofu` when that does not exist).
fn config_dir(env: &Env) -> Option<PathBuf> {
    if cfg!(windows) {
        return Some(PathBuf::from(env.var("APPDATA")?).join("terraform.d"));
    }
    let dir = env.home.as_ref()?.join(".terraform.d");
    if env.opentofu && !dir.exists() {
        if let Some(xdg) = env.var("XDG_CONFIG_HOME") {
            return Some(Path::new(xdg).join("opentofu"));
        }
    }
    Some(dir)
}

/// `*.tfrc` and `*.tfrc.json` in `dir`, sorted by name like Go's `ioutil.ReadDir`.
fn config_dir_files(dir: &Path) -> Result<Vec<PathBuf>, CliConfigError> {
    let read_err = |e: std::io::Error| CliConfigError::Read {
        path: dir.to_path_buf(),
        message: e.to_string(),
    };
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(read_err)? {
        let entry = entry.map_err(read_err)?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if (name.ends_with(".tfrc") || name.ends_with(".tfrc.json")) && !name.starts_with('.') {
            names.push(name);
        }
    }
    names.sort();
    Ok(names.into_iter().map(|n| dir.join(n)).collect())
}

impl CliConfig {
    /// Merges a later file over this configuration: entries for the same host are
    /// replaced whole (`Config.Merge`).
    pub fn merge(&mut self, later: CliConfig) {
        self.hosts.extend(later.hosts);
        self.credentials.extend(later.credentials);
        self.files.extend(later.files);
    }

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
pub fn token_var_host(name: &str) -> Option<Hostname> {
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
    let tree = if is_json {
        serde_json::from_str::<serde_json::Value>(&text).map_err(|e| CliConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?
    } else {
        parse_hcl(&text).map_err(|message| CliConfigError::Parse {
            path: path.to_path_buf(),
            message,
        })?
    };
    from_tree(&tree, path)
}

/// Parses HCL v1 text into a JSON-shaped tree: attributes become keys, and a block
/// `name "label" { … }` becomes `name: [{ "label": { … } }]`, which is also how HCL v1's
/// JSON form may write blocks, so both formats share [`from_tree`].
fn parse_hcl(text: &str) -> Result<serde_json::Value, String> {
    let body = match hcl::parse(text) {
        Ok(body) => body,
        Err(first) => {
            let rewritten = quoted_key_blocks_as_attributes(text);
            if rewritten == text {
                return Err(first.to_string());
            }
            hcl::parse(&rewritten).map_err(|_| first.to_string())?
        }
    };
    Ok(body_to_tree(&body))
}

/// HCL v1 lets a label-less block have quoted keys (`services { "providers.v1" = … }`);
/// HCL v2 only allows that inside an object expression. Rewrites such a `name {` into
/// `name = {`, which means the same thing to the v1 decoder Terraform uses. Only blocks
/// whose first entry is a quoted key (or that are empty) are rewritten, so real nested
/// blocks such as `network_mirror { url = … }` keep their block form.
fn quoted_key_blocks_as_attributes(text: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len() + 16);
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let ident_len = trimmed
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(trimmed.len());
        let (ident, rest) = trimmed.split_at(ident_len);
        let after = rest.trim_start();
        let Some(inner) = after.strip_prefix('{') else {
            out.push_str(line);
            continue;
        };
        let inner = inner.trim();
        let first_entry = if inner.is_empty() {
            // The body starts on a later line: look at its first meaningful line.
            lines[index + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !(l.is_empty() || l.starts_with('#') || l.starts_with("//")))
                .unwrap_or("")
        } else {
            inner
        };
        if !ident.is_empty() && (first_entry.starts_with('"') || first_entry.starts_with('}')) {
            out.push_str(indent);
            out.push_str(ident);
            out.push_str(" = ");
            out.push_str(after);
        } else {
            out.push_str(line);
        }
    }
    out
}

fn body_to_tree(body: &hcl::Body) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for structure in body.iter() {
        match structure {
            hcl::Structure::Attribute(attr) => {
                map.insert(attr.key.to_string(), expr_to_json(&attr.expr));
            }
            hcl::Structure::Block(block) => {
                let mut value = body_to_tree(&block.body);
                for label in block.labels.iter().rev() {
                    let mut wrapped = serde_json::Map::new();
                    wrapped.insert(label.as_str().to_string(), value);
                    value = serde_json::Value::Object(wrapped);
                }
                let entry = map
                    .entry(block.identifier.to_string())
                    .or_insert_with(|| serde_json::Value::Array(Vec::new()));
                match entry {
                    serde_json::Value::Array(items) => items.push(value),
                    other => *other = serde_json::Value::Array(vec![value]),
                }
            }
        }
    }
    serde_json::Value::Object(map)
}

/// Literal values only; anything computed (function calls, references) becomes null,
/// since HCL v1 has no such expressions and tfsum reads only strings.
fn expr_to_json(expr: &hcl::Expression) -> serde_json::Value {
    use hcl::Expression as E;
    match expr {
        E::Null => serde_json::Value::Null,
        E::Bool(b) => serde_json::Value::Bool(*b),
        E::Number(n) => serde_json::to_value(n).unwrap_or(serde_json::Value::Null),
        E::String(s) => serde_json::Value::String(s.clone()),
        E::TemplateExpr(t) => serde_json::Value::String(t.to_string()),
        E::Array(items) => serde_json::Value::Array(items.iter().map(expr_to_json).collect()),
        E::Object(object) => {
            let mut map = serde_json::Map::new();
            for (key, value) in object {
                let key = match key {
                    hcl::ObjectKey::Identifier(id) => id.to_string(),
                    hcl::ObjectKey::Expression(E::String(s)) => s.clone(),
                    hcl::ObjectKey::Expression(other) => match expr_to_json(other) {
                        serde_json::Value::String(s) => s,
                        _ => continue,
                    },
                    _ => continue,
                };
                map.insert(key, expr_to_json(value));
            }
            serde_json::Value::Object(map)
        }
        _ => serde_json::Value::Null,
    }
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
fn merged_objects(value: &serde_json::Value) -> Option<BTreeMap<String, serde_json::Value>> {
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
        let (config, warnings) = load(&env_with(
            home.path(),
            &[("TF_CLI_CONFIG_FILE", missing.to_str().unwrap())],
            false,
        ))
        .unwrap();
        assert!(config.files.is_empty());
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("missing.tfrc"), "{}", warnings[0]);
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
}
