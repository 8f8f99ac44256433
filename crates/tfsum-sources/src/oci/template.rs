//! Which OCI repository holds a provider: a [`RepositoryTemplate`] over the provider's
//! `hostname`, `namespace` and `type`, in either of OpenTofu's two syntaxes:
//!
//! - the CLI configuration's `oci_mirror { repository_template = … }`: an HCL string
//!   template (`example.com/providers/${namespace}/${type}`), checked when it is read
//!   as OpenTofu checks it (`prepareOCIMirrorRepositoryMapping`, v1.12.6
//!   `internal/command/cliconfig/provider_installation.go:396-550`): only those three
//!   symbols, each referenced unless every `include` pattern pins that part of the
//!   address to one value, and a sample address must come out as `host/repository`;
//! - `--oci-mirror` and `tfsum mirror --layout oci`: an RFC 6570 level 1 URI template
//!   (`example.com/providers/{namespace}/{type}`), as 1.13's `tofu providers lock
//!   -oci-mirror` takes it (`internal/command/providers_lock.go:151-174` at 1.13 dev),
//!   values percent-encoded except RFC 3986's unreserved characters
//!   (opentofu/svchost `uritemplates/encode.go:13-44`). tfsum refuses a name other than
//!   the three, where RFC 6570 would expand it to nothing.
//!
//! Either way the result is parsed as a repository address ([`RepositoryAddr`]), so a
//! provider whose name makes an invalid repository (upper case cannot: addresses are
//! folded) is an error naming the template.

use std::fmt;

use tfsum_net::cliconfig::installation::HostPattern;
use tfsum_net::cliconfig::ProviderPattern;
use tfsum_net::oci::RepositoryAddr;
use tfsum_vocab::addr::ProviderAddr;

/// A provider → repository mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepositoryTemplate {
    /// As written.
    text: String,
    syntax: Syntax,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Syntax {
    /// An HCL template, parsed.
    Hcl(HclTemplate),
    /// `{name}` placeholders between literal parts.
    Uri(Vec<UriPart>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct HclTemplate(hcl::Template);

#[derive(Debug, Clone, PartialEq, Eq)]
enum UriPart {
    Literal(String),
    Var(Var),
}

/// The three symbols a template may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Var {
    Hostname,
    Namespace,
    Type,
}

impl Var {
    const ALL: [Var; 3] = [Var::Hostname, Var::Namespace, Var::Type];

    fn name(self) -> &'static str {
        match self {
            Var::Hostname => "hostname",
            Var::Namespace => "namespace",
            Var::Type => "type",
        }
    }

    fn parse(name: &str) -> Option<Var> {
        Var::ALL.into_iter().find(|v| v.name() == name)
    }

    fn of(self, provider: &ProviderAddr) -> &str {
        match self {
            Var::Hostname => provider.hostname.as_str(),
            Var::Namespace => &provider.namespace,
            Var::Type => &provider.r#type,
        }
    }
}

/// Why a template cannot be used, or cannot map a provider.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("invalid OCI repository template {template:?}: {reason}")]
    Invalid { template: String, reason: String },
    #[error("the OCI repository template {template:?} gives {given:?} for {provider}, which is not a repository address: {reason}")]
    Address {
        template: String,
        provider: String,
        given: String,
        reason: String,
    },
}

impl RepositoryTemplate {
    /// The CLI configuration's `repository_template`, checked against the method's
    /// `include` patterns (`default_host`: what a pattern without a hostname means).
    pub(crate) fn hcl(
        text: &str,
        include: &[ProviderPattern],
        default_host: &str,
    ) -> Result<RepositoryTemplate, TemplateError> {
        let invalid = |reason: String| TemplateError::Invalid {
            template: text.to_string(),
            reason,
        };
        let parsed: hcl::Template = text
            .parse()
            .map_err(|e: hcl::Error| invalid(format!("not an HCL template: {e}")))?;
        let template = RepositoryTemplate {
            text: text.to_string(),
            syntax: Syntax::Hcl(HclTemplate(parsed)),
        };
        // Which symbols it references: a symbol is referenced when changing its value
        // changes the result (evaluation also refuses any other symbol and any
        // function, as OpenTofu's context declares neither).
        let sample = |n: usize| {
            ["example.com", "example-namespace", "example-type"].map(|v| format!("{v}{n}"))
        };
        let base = template.render(&sample(0)).map_err(invalid)?;
        for (i, var) in Var::ALL.into_iter().enumerate() {
            let mut other = sample(0);
            other[i] = sample(1)[i].clone();
            let referenced = template.render(&other).map_err(invalid)? != base;
            if !referenced && !pinned(include, var, default_host) {
                let unless = match var {
                    Var::Hostname => {
                        "the \"include\" argument selects exactly one registry hostname"
                    }
                    Var::Namespace => {
                        "the \"include\" argument selects exactly one provider namespace"
                    }
                    Var::Type => "the \"include\" argument selects exactly one provider",
                };
                return Err(invalid(format!(
                    "it must refer to the \"{}\" symbol unless {unless}",
                    var.name()
                )));
            }
        }
        let example = template
            .render(&["example.com", "example-namespace", "example-type"].map(String::from))
            .map_err(invalid)?;
        RepositoryAddr::parse(&example).map_err(|_| {
            invalid("it must generate a valid OCI repository address, including a registry hostname followed by a slash and then a repository name".to_string())
        })?;
        Ok(template)
    }

    /// A level 1 URI template (`--oci-mirror`, `tfsum mirror --layout oci`).
    pub fn uri(text: &str) -> Result<RepositoryTemplate, TemplateError> {
        let invalid = |reason: &str| TemplateError::Invalid {
            template: text.to_string(),
            reason: reason.to_string(),
        };
        let mut parts = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            match rest.find(['{', '}']) {
                None => {
                    parts.push(UriPart::Literal(rest.to_string()));
                    rest = "";
                }
                Some(i) if rest.as_bytes()[i] == b'}' => {
                    return Err(invalid("a '}' closes no expression"));
                }
                Some(i) => {
                    if i > 0 {
                        parts.push(UriPart::Literal(rest[..i].to_string()));
                    }
                    let after = &rest[i + 1..];
                    let Some(end) = after.find('}') else {
                        return Err(invalid("an expression is not closed with '}'"));
                    };
                    let name = &after[..end];
                    let var = Var::parse(name).ok_or_else(|| {
                        if name.starts_with(['+', '#', '.', '/', ';', '?', '&']) {
                            invalid("only level 1 expressions such as {namespace} are allowed, no operators")
                        } else {
                            invalid("only {hostname}, {namespace} and {type} are available")
                        }
                    })?;
                    parts.push(UriPart::Var(var));
                    rest = &after[end + 1..];
                }
            }
        }
        let template = RepositoryTemplate {
            text: text.to_string(),
            syntax: Syntax::Uri(parts),
        };
        let example = template
            .render(&["example.com", "example-namespace", "example-type"].map(String::from))
            .map_err(|e| invalid(&e))?;
        RepositoryAddr::parse(&example).map_err(|e| {
            invalid(&format!(
                "it does not give a repository address: {}",
                e.rule
            ))
        })?;
        Ok(template)
    }

    /// The template in the CLI configuration's syntax, for an `oci_mirror` block that
    /// names the same repositories: an HCL template is itself; a URI template's
    /// placeholders become `${…}` (a literal `$` or `%` is escaped). The values of
    /// the HCL form are not percent-encoded, so the two agree for every provider whose
    /// address needs no encoding, which is every valid one.
    pub fn to_hcl(&self) -> String {
        match &self.syntax {
            Syntax::Hcl(_) => self.text.clone(),
            Syntax::Uri(parts) => parts
                .iter()
                .map(|part| match part {
                    UriPart::Literal(text) => text.replace("${", "$${").replace("%{", "%%{"),
                    UriPart::Var(var) => format!("${{{}}}", var.name()),
                })
                .collect(),
        }
    }

    /// The repository that holds `provider`.
    pub(crate) fn repository(
        &self,
        provider: &ProviderAddr,
    ) -> Result<RepositoryAddr, TemplateError> {
        let values = Var::ALL.map(|v| v.of(provider).to_string());
        let given = self
            .render(&values)
            .map_err(|reason| TemplateError::Invalid {
                template: self.text.clone(),
                reason,
            })?;
        RepositoryAddr::parse(&given).map_err(|e| TemplateError::Address {
            template: self.text.clone(),
            provider: provider.to_string(),
            given,
            reason: e.rule.to_string(),
        })
    }

    /// The template with `values` (hostname, namespace, type).
    fn render(&self, values: &[String; 3]) -> Result<String, String> {
        match &self.syntax {
            Syntax::Hcl(HclTemplate(template)) => {
                use hcl::eval::Evaluate as _;
                let mut context = hcl::eval::Context::new();
                for (var, value) in Var::ALL.iter().zip(values) {
                    context.declare_var(var.name(), value.as_str());
                }
                template.evaluate(&context).map_err(|e| {
                    let shown = e.to_string();
                    if shown.contains("undefined variable") {
                        format!(
                            "{shown}; only \"hostname\", \"namespace\" and \"type\" are available"
                        )
                    } else {
                        shown
                    }
                })
            }
            Syntax::Uri(parts) => Ok(parts
                .iter()
                .map(|part| match part {
                    UriPart::Literal(text) => text.clone(),
                    UriPart::Var(var) => percent_encode(&values[*var as usize]),
                })
                .collect()),
        }
    }
}

impl fmt::Display for RepositoryTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Whether every `include` pattern names the same single value for `var`
/// (a template need not reference it then).
fn pinned(include: &[ProviderPattern], var: Var, default_host: &str) -> bool {
    let values: Vec<Option<String>> = include
        .iter()
        .map(|p| match var {
            Var::Hostname => match &p.host {
                HostPattern::Exact(host) => Some(host.as_str().to_string()),
                HostPattern::Default => Some(default_host.to_string()),
                HostPattern::Any => None,
            },
            Var::Namespace => p.namespace.clone(),
            Var::Type => p.r#type.clone(),
        })
        .collect();
    match values.first() {
        Some(Some(first)) => values.iter().all(|v| v.as_deref() == Some(first)),
        _ => false,
    }
}

/// RFC 6570 simple expansion: every byte but RFC 3986's unreserved characters
/// percent-encoded (upper-case hex).
fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfsum_vocab::addr::TERRAFORM_REGISTRY;

    fn provider(source: &str) -> ProviderAddr {
        ProviderAddr::parse(source, TERRAFORM_REGISTRY).unwrap()
    }

    fn patterns(list: &[&str]) -> Vec<ProviderPattern> {
        list.iter()
            .map(|p| ProviderPattern::parse(p).unwrap())
            .collect()
    }

    /// OpenTofu's checks of `repository_template`, one row per rule, and what a valid
    /// template maps `hashicorp/aws` to.
    #[test]
    fn hcl_templates() {
        let aws = provider("hashicorp/aws");
        // (template, include patterns, repository for hashicorp/aws or the error)
        let cases: &[(&str, &[&str], Result<&str, &str>)] = &[
            (
                "example.com/p/${namespace}/${type}",
                &[],
                Err("must refer to the \"hostname\" symbol"),
            ),
            (
                "example.com/p/${namespace}/${type}",
                &["registry.terraform.io/*/*"],
                Ok("example.com/p/hashicorp/aws"),
            ),
            (
                "example.com/${hostname}/${namespace}/${type}",
                &[],
                Ok("example.com/registry.terraform.io/hashicorp/aws"),
            ),
            (
                "example.com:5000/mirror/${type}",
                &["registry.terraform.io/hashicorp/*"],
                Ok("example.com:5000/mirror/aws"),
            ),
            (
                "example.com/mirror/${type}",
                &["hashicorp/*"],
                Ok("example.com/mirror/aws"),
            ),
            (
                "example.com/${hostname}/${type}",
                &[],
                Err("must refer to the \"namespace\" symbol"),
            ),
            (
                "example.com/${hostname}/${namespace}",
                &["registry.terraform.io/hashicorp/aws", "registry.terraform.io/hashicorp/null"],
                Err("must refer to the \"type\" symbol"),
            ),
            (
                "example.com/${hostname}/${namespace}",
                &["registry.terraform.io/hashicorp/aws"],
                Ok("example.com/registry.terraform.io/hashicorp"),
            ),
            (
                "example.com/${hostname}/${namespace}/${kind}",
                &[],
                Err("only \"hostname\", \"namespace\" and \"type\" are available"),
            ),
            (
                "example.com/${upper(hostname)}/${namespace}/${type}",
                &[],
                Err("upper"),
            ),
            (
                "%{ if namespace == \"hashicorp\" }example.com/hc%{ else }example.com/other%{ endif }/${hostname}/${namespace}/${type}",
                &[],
                Ok("example.com/hc/registry.terraform.io/hashicorp/aws"),
            ),
            (
                "${hostname}${namespace}${type}",
                &[],
                Err("must generate a valid OCI repository address"),
            ),
            ("example.com/${", &[], Err("not an HCL template")),
        ];
        for (text, include, want) in cases {
            let got = RepositoryTemplate::hcl(text, &patterns(include), TERRAFORM_REGISTRY)
                .and_then(|t| t.repository(&aws).map(|r| r.to_string()));
            match (want, &got) {
                (Ok(want), Ok(got)) => assert_eq!(got, want, "{text}"),
                (Err(rule), Err(e)) => assert!(e.to_string().contains(rule), "{text}: {e}"),
                _ => panic!("{text}: {got:?}"),
            }
        }
    }

    /// Level 1 URI templates as 1.13's -oci-mirror takes them, and their HCL twins.
    #[test]
    fn uri_templates() {
        let aws = provider("hashicorp/aws");
        let cases: &[(&str, Result<&str, &str>)] = &[
            (
                "example.com/p/{namespace}/{type}",
                Ok("example.com/p/hashicorp/aws"),
            ),
            (
                "localhost:5000/{hostname}/{namespace}/{type}",
                Ok("localhost:5000/registry.terraform.io/hashicorp/aws"),
            ),
            (
                "{hostname}/{namespace}/{type}",
                Ok("registry.terraform.io/hashicorp/aws"),
            ),
            ("example.com/{+namespace}/{type}", Err("no operators")),
            (
                "example.com/{kind}/{type}",
                Err("only {hostname}, {namespace} and {type}"),
            ),
            ("example.com/{namespace/{type}", Err("only {hostname}")),
            ("example.com/{namespace", Err("not closed")),
            ("example.com/namespace}", Err("closes no expression")),
            ("example.com", Err("does not give a repository address")),
        ];
        for (text, want) in cases {
            let got = RepositoryTemplate::uri(text)
                .and_then(|t| t.repository(&aws).map(|r| r.to_string()));
            match (want, &got) {
                (Ok(want), Ok(got)) => assert_eq!(got, want, "{text}"),
                (Err(rule), Err(e)) => assert!(e.to_string().contains(rule), "{text}: {e}"),
                _ => panic!("{text}: {got:?}"),
            }
        }
        let uri = RepositoryTemplate::uri("example.com/p/{namespace}/{type}").unwrap();
        assert_eq!(uri.to_hcl(), "example.com/p/${namespace}/${type}");
        let hcl = RepositoryTemplate::hcl(
            &uri.to_hcl(),
            &patterns(&["registry.terraform.io/*/*"]),
            TERRAFORM_REGISTRY,
        )
        .unwrap();
        assert_eq!(hcl.repository(&aws), uri.repository(&aws));
        assert_eq!(percent_encode("host:5000"), "host%3A5000");
        // A port in {hostname} is encoded, as in OpenTofu, and no longer an address.
        let port = provider("127.0.0.1:8443/hashicorp/aws");
        let err = RepositoryTemplate::uri("{hostname}/{namespace}/{type}")
            .unwrap()
            .repository(&port)
            .unwrap_err();
        assert!(err.to_string().contains("127.0.0.1%3A8443"), "{err}");
    }
}
