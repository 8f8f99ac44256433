//! The `provider_installation` block (spec §8): installation methods in order, each with
//! the providers it is for. Read here from both file formats and validated; the sources
//! of the hash stage (`tfsum_sources`) route providers by it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tfsum_vocab::addr::{Hostname, ProviderAddr, TERRAFORM_REGISTRY};
use tfsum_vocab::json::{JsonKind, JsonNode};

use super::hcl1::{body_to_tree, expr_to_json};
use super::{merged_objects, CliConfigError};

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
    /// OpenTofu's `oci_mirror { repository_template = … }`, the template as written (an
    /// HCL string template over `hostname`, `namespace` and `type`); it is parsed and
    /// checked where it is used (`tfsum_sources::oci`), as the network mirror's URL is.
    OciMirror(String),
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

/// A `provider_installation` block as `(method name, method body)` pairs in file order.
pub(super) type MethodBlocks = Vec<(String, serde_json::Value)>;

/// The `provider_installation` blocks of an HCL file. A method may appear as a block or,
/// after the quoted-key rewrite (`dev_overrides = { … }`), as an attribute.
pub(super) fn hcl_blocks(body: &hcl::Body) -> Vec<MethodBlocks> {
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
/// their keys. The block may be an object or a list of objects; a method's value an
/// object or a list of objects (repeated).
pub(super) fn json_blocks(root: &JsonNode) -> Result<Vec<MethodBlocks>, String> {
    let mut blocks = Vec::new();
    for member in root.members().filter(|m| m.name == "provider_installation") {
        let items: Vec<&JsonNode> = match &member.value.kind {
            JsonKind::Array(items) => items.iter().collect(),
            _ => vec![&member.value],
        };
        for item in items {
            let JsonKind::Object(_) = &item.kind else {
                return Err("provider_installation must be an object or a list of objects".into());
            };
            let mut block = Vec::new();
            for method in item.members() {
                match &method.value.kind {
                    JsonKind::Array(values) => {
                        block.extend(values.iter().map(|v| (method.name.clone(), v.to_value())))
                    }
                    _ => block.push((method.name.clone(), method.value.to_value())),
                }
            }
            blocks.push(block);
        }
    }
    Ok(blocks)
}

/// Validates one block's methods (`decodeProviderInstallationFromConfig`).
pub(super) fn from_blocks(
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
            // `repository_template` is required and may not be empty
            // (`decodeOCIMirrorInstallationMethodBlock`, OpenTofu v1.12.6
            // `internal/command/cliconfig/provider_installation.go:332-357`).
            "oci_mirror" => match string("repository_template")? {
                Some(t) if !t.is_empty() => MethodLocation::OciMirror(t),
                _ => {
                    return Err(invalid(
                        "oci_mirror: the \"repository_template\" argument is required".to_string(),
                    ))
                }
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
