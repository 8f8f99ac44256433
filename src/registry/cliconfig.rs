//! The Terraform/OpenTofu CLI configuration (spec §8, §10): which files are read, the
//! `host` blocks that replace service discovery, and where registry tokens come from.
//!
//! The files are HCL **v1** (`.terraformrc`, `*.tfrc`) or JSON (`*.tfrc.json`). hcl-rs
//! parses HCL v2, which accepts the usual v1 files; the one v1 form it rejects, a
//! nested block whose body has quoted keys (`services { "providers.v1" = … }`,
//! `dev_overrides { "hashicorp/null" = … }`), is rewritten into the equivalent
//! attribute form before a second attempt.
//!
//! Read: `host`, `credentials` and `provider_installation` (whose methods keep their
//! order, which decides where a package comes from, so they are read from the parsed
//! file in order rather than from the key-sorted tree). `plugin_cache_dir`,
//! `credentials_helper` and anything else are accepted and ignored.
//!
//! Nothing here reads the process environment except [`Env::from_process`], so tests
//! describe the environment as a value.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::addr::{Hostname, ProviderAddr, TERRAFORM_REGISTRY};

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
    /// Every `provider_installation` block, in file order. Terraform uses only the first
    /// ([`CliConfig::provider_installation`]).
    pub installations: Vec<ProviderInstallation>,
    /// The files that were read, in the order they were merged.
    pub files: Vec<PathBuf>,
}

/// A `provider_installation` block (spec §8): installation methods in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderInstallation {
    pub methods: Vec<InstallationMethod>,
    /// The file the block came from, for messages.
    pub file: PathBuf,
}

/// One method of a `provider_installation` block and the providers it is for.
#[derive(Debug, Clone, PartialEq)]
pub struct InstallationMethod {
    pub location: MethodLocation,
    pub include: Vec<ProviderPattern>,
    pub exclude: Vec<ProviderPattern>,
}

/// Where a method installs from.
#[derive(Debug, Clone, PartialEq)]
pub enum MethodLocation {
    /// `direct`: the provider's origin registry.
    Direct,
    /// `filesystem_mirror { path = … }`
    FilesystemMirror(PathBuf),
    /// `network_mirror { url = … }`, as written; https is checked where it is used.
    NetworkMirror(String),
    /// `dev_overrides`: provider source to local directory. Terraform keeps no lock
    /// entries for overridden providers, so a lock tool can only point them out.
    DevOverrides(BTreeMap<String, String>),
}

/// The hostname part of a [`ProviderPattern`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPattern {
    /// No hostname given: the default registry of the flavor in use.
    Default,
    /// `*`
    Any,
    Exact(Hostname),
}

/// An `include`/`exclude` pattern `[HOST/]NAMESPACE/TYPE` (spec §8); `None` is `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderPattern {
    pub host: HostPattern,
    pub namespace: Option<String>,
    pub r#type: Option<String>,
}

impl ProviderPattern {
    /// `ParseMultiSourceMatchingPatterns`: two or three parts; `*` may be the type; the
    /// namespace only if the type is too; the host only if both are.
    pub fn parse(given: &str) -> Result<ProviderPattern, String> {
        let err = |reason: &str| format!("invalid provider matching pattern {given:?}: {reason}");
        let parts: Vec<&str> = given.split('/').collect();
        let (host, namespace, ty) = match parts.as_slice() {
            [ns, ty] => (None, *ns, *ty),
            [host, ns, ty] => (Some(*host), *ns, *ty),
            _ => return Err(err("must have either two or three slash-separated parts")),
        };
        let host = match host {
            None => HostPattern::Default,
            Some("*") => HostPattern::Any,
            Some(h) => HostPattern::Exact(
                Hostname::parse(h).map_err(|e| err(&format!("invalid hostname: {e}")))?,
            ),
        };
        let wild_ns = namespace == "*";
        let wild_ty = ty == "*";
        if wild_ns && !wild_ty {
            return Err(err(
                "the provider type must be a wildcard when the namespace is",
            ));
        }
        if host == HostPattern::Any && !wild_ns {
            return Err(err(
                "the namespace and type must be wildcards when the hostname is",
            ));
        }
        // Validate and case-fold the concrete parts the way source addresses are.
        let probe = format!(
            "{}/{}",
            if wild_ns { "x" } else { namespace },
            if wild_ty { "x" } else { ty }
        );
        let parsed =
            ProviderAddr::parse(&probe, TERRAFORM_REGISTRY).map_err(|e| err(&e.to_string()))?;
        Ok(ProviderPattern {
            host,
            namespace: (!wild_ns).then_some(parsed.namespace),
            r#type: (!wild_ty).then_some(parsed.r#type),
        })
    }

    pub fn matches(&self, provider: &ProviderAddr, default_host: &str) -> bool {
        let host = match &self.host {
            HostPattern::Any => true,
            HostPattern::Default => provider.hostname.as_str() == default_host,
            HostPattern::Exact(h) => *h == provider.hostname,
        };
        host && self
            .namespace
            .as_ref()
            .is_none_or(|n| *n == provider.namespace)
            && self.r#type.as_ref().is_none_or(|t| *t == provider.r#type)
    }
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
            warn_extra_installations(&config, &mut warnings);
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
    warn_extra_installations(&config, &mut warnings);
    Ok((config, warnings))
}

fn warn_extra_installations(config: &CliConfig, warnings: &mut Vec<String>) {
    if let [first, rest @ ..] = config.installations.as_slice() {
        for extra in rest {
            warnings.push(format!(
                "only one provider_installation block is allowed; the one in {} is ignored in favour of the one in {}",
                extra.file.display(),
                first.file.display()
            ));
        }
    }
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
        self.installations.extend(later.installations);
        self.files.extend(later.files);
    }

    /// The `provider_installation` block in effect: the first one read, as in Terraform
    /// (which warns about the others; [`load`] does too).
    pub fn provider_installation(&self) -> Option<&ProviderInstallation> {
        self.installations.first()
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
    let parse_err = |message: String| CliConfigError::Parse {
        path: path.to_path_buf(),
        message,
    };
    let (tree, installations) = if is_json {
        let tree = serde_json::from_str::<serde_json::Value>(&text)
            .map_err(|e| parse_err(e.to_string()))?;
        (tree, json_installation_blocks(&text).map_err(parse_err)?)
    } else {
        let body = parse_hcl(&text).map_err(parse_err)?;
        (body_to_tree(&body), hcl_installation_blocks(&body))
    };
    let mut config = from_tree(&tree, path)?;
    for methods in installations {
        config
            .installations
            .push(installation_from_blocks(methods, path)?);
    }
    Ok(config)
}

/// A `provider_installation` block as `(method name, method body)` pairs in file order.
type MethodBlocks = Vec<(String, serde_json::Value)>;

/// The `provider_installation` blocks of an HCL file. A method may appear as a block or,
/// after the quoted-key rewrite (`dev_overrides = { … }`), as an attribute.
fn hcl_installation_blocks(body: &hcl::Body) -> Vec<MethodBlocks> {
    body.blocks()
        .filter(|b| b.identifier.as_str() == "provider_installation")
        .map(|block| {
            block
                .body
                .iter()
                .map(|structure| match structure {
                    hcl::Structure::Block(b) => (b.identifier.to_string(), body_to_tree(&b.body)),
                    hcl::Structure::Attribute(a) => (a.key.to_string(), expr_to_json(&a.expr)),
                })
                .collect()
        })
        .collect()
}

/// The `provider_installation` blocks of a `.tfrc.json` file, methods in the order of
/// their keys (which `serde_json::Value` would sort away). The block may be an object or
/// a list of objects; a method's value an object or a list of objects (repeated).
fn json_installation_blocks(text: &str) -> Result<Vec<MethodBlocks>, String> {
    let Ordered::Object(top) = serde_json::from_str::<Ordered>(text).map_err(|e| e.to_string())?
    else {
        return Ok(Vec::new()); // from_tree reports a top level that is not an object
    };
    let mut blocks = Vec::new();
    for (key, value) in top {
        if key != "provider_installation" {
            continue;
        }
        let items = match value {
            Ordered::Array(items) => items,
            other => vec![other],
        };
        for item in items {
            let Ordered::Object(methods) = item else {
                return Err("provider_installation must be an object or a list of objects".into());
            };
            let mut block = Vec::new();
            for (name, value) in methods {
                match value {
                    Ordered::Array(items) => {
                        block.extend(items.into_iter().map(|v| (name.clone(), v.into_value())))
                    }
                    other => block.push((name, other.into_value())),
                }
            }
            blocks.push(block);
        }
    }
    Ok(blocks)
}

/// A JSON value whose objects keep their keys in document order.
enum Ordered {
    Object(Vec<(String, Ordered)>),
    Array(Vec<Ordered>),
    Scalar(serde_json::Value),
}

impl Ordered {
    fn into_value(self) -> serde_json::Value {
        match self {
            Ordered::Object(entries) => serde_json::Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, v.into_value()))
                    .collect(),
            ),
            Ordered::Array(items) => {
                serde_json::Value::Array(items.into_iter().map(Ordered::into_value).collect())
            }
            Ordered::Scalar(value) => value,
        }
    }
}

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Ordered;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Ordered>()? {
                    entries.push(entry);
                }
                Ok(Ordered::Object(entries))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Ordered, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Ordered>()? {
                    items.push(item);
                }
                Ok(Ordered::Array(items))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(v.into()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(v.into()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(v.into()))
            }
            fn visit_unit<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(serde_json::Value::Null))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Validates one block's methods (`decodeProviderInstallationFromConfig`).
fn installation_from_blocks(
    methods: MethodBlocks,
    path: &Path,
) -> Result<ProviderInstallation, CliConfigError> {
    let invalid = |message: String| CliConfigError::Invalid {
        path: path.to_path_buf(),
        message: format!("provider_installation: {message}"),
    };
    let mut out = Vec::new();
    for (name, body) in methods {
        let Some(body) = merged_objects(&body) else {
            return Err(invalid(format!("{name} must be a block")));
        };
        let string = |key: &str| -> Result<Option<String>, CliConfigError> {
            match body.get(key) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(invalid(format!("{name}: {key} must be a string"))),
            }
        };
        let patterns = |key: &str| -> Result<Vec<ProviderPattern>, CliConfigError> {
            match body.get(key) {
                None | Some(serde_json::Value::Null) => Ok(Vec::new()),
                Some(serde_json::Value::Array(items)) => items
                    .iter()
                    .map(|item| {
                        item.as_str()
                            .ok_or_else(|| format!("{key} must be a list of strings"))
                            .and_then(ProviderPattern::parse)
                            .map_err(|e| invalid(format!("{name}: {e}")))
                    })
                    .collect(),
                Some(_) => Err(invalid(format!("{name}: {key} must be a list of strings"))),
            }
        };
        let location = match name.as_str() {
            "direct" => MethodLocation::Direct,
            "filesystem_mirror" => match string("path")? {
                Some(p) => MethodLocation::FilesystemMirror(PathBuf::from(p)),
                None => return Err(invalid("filesystem_mirror requires a path".to_string())),
            },
            "network_mirror" => match string("url")? {
                Some(u) => MethodLocation::NetworkMirror(u),
                None => return Err(invalid("network_mirror requires a url".to_string())),
            },
            "dev_overrides" => MethodLocation::DevOverrides(
                body.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect(),
            ),
            other => {
                return Err(invalid(format!(
                    "unknown provider installation method {other:?}"
                )))
            }
        };
        let (include, exclude) = match location {
            MethodLocation::DevOverrides(_) => (Vec::new(), Vec::new()),
            _ => (patterns("include")?, patterns("exclude")?),
        };
        out.push(InstallationMethod {
            location,
            include,
            exclude,
        });
    }
    Ok(ProviderInstallation {
        methods: out,
        file: path.to_path_buf(),
    })
}

/// Parses HCL v1 text (see [`quoted_key_blocks_as_attributes`] for the one v1 form
/// that needs help). [`body_to_tree`] turns the result into a JSON-shaped tree:
/// attributes become keys, and a block `name "label" { … }` becomes
/// `name: [{ "label": { … } }]`, which is also how HCL v1's JSON form may write
/// blocks, so both formats share [`from_tree`].
fn parse_hcl(text: &str) -> Result<hcl::Body, String> {
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
    Ok(body)
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

    /// Patterns (spec §8): which spellings parse, and what each matches.
    #[test]
    fn provider_patterns() {
        let providers = [
            "registry.terraform.io/hashicorp/aws",
            "registry.terraform.io/acme/aws",
            "example.com/hashicorp/aws",
        ];
        let cases = [
            ("hashicorp/aws", Ok("yes no no")),
            ("HashiCorp/AWS", Ok("yes no no")),
            ("hashicorp/*", Ok("yes no no")),
            ("*/*", Ok("yes yes no")),
            ("example.com/*/*", Ok("no no yes")),
            ("Example.COM:443/hashicorp/aws", Ok("no no yes")),
            ("*/*/*", Ok("yes yes yes")),
            (
                "*/aws",
                Err("the provider type must be a wildcard when the namespace is"),
            ),
            (
                "*/hashicorp/*",
                Err("the namespace and type must be wildcards when the hostname is"),
            ),
            (
                "aws",
                Err("must have either two or three slash-separated parts"),
            ),
            (
                "a/b/c/d",
                Err("must have either two or three slash-separated parts"),
            ),
            ("xn--caf-dma.fr/a/b", Err("invalid hostname")),
            ("hashicorp/a.b", Err("dots are not allowed")),
        ];
        for (pattern, want) in cases {
            match (ProviderPattern::parse(pattern), want) {
                (Ok(parsed), Ok(want)) => {
                    let got: Vec<&str> = providers
                        .iter()
                        .map(|p| {
                            let addr = ProviderAddr::parse(p, TERRAFORM_REGISTRY).unwrap();
                            if parsed.matches(&addr, TERRAFORM_REGISTRY) {
                                "yes"
                            } else {
                                "no"
                            }
                        })
                        .collect();
                    assert_eq!(got.join(" "), want, "{pattern}");
                }
                (Err(e), Err(want)) => assert!(e.contains(want), "{pattern}: {e}"),
                (got, want) => panic!("{pattern}: got {got:?}, want {want:?}"),
            }
        }
        // Without a hostname a pattern means the flavor's default registry.
        let tofu = ProviderAddr::parse("hashicorp/aws", "registry.opentofu.org").unwrap();
        let pattern = ProviderPattern::parse("hashicorp/aws").unwrap();
        assert!(pattern.matches(&tofu, "registry.opentofu.org"));
        assert!(!pattern.matches(&tofu, TERRAFORM_REGISTRY));
    }

    /// Method order is kept, in HCL (including the v1 quoted-key form that needs the
    /// rewrite) and in JSON; only the first block is used, the others are warned about.
    #[test]
    fn provider_installation_blocks() {
        let home = tempfile::tempdir().unwrap();
        let hcl = r#"
provider_installation {
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
        assert!(warnings[0].contains("only one provider_installation block"));

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
        ] {
            std::fs::write(home.path().join(".terraformrc"), text).unwrap();
            std::fs::remove_file(dir.join("mirrors.tfrc.json")).ok();
            let err = load(&env_with(home.path(), &[], false)).unwrap_err();
            assert!(err.to_string().contains(want), "{text:?}: {err}");
        }
    }
}
