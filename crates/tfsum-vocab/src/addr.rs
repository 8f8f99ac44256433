//! Provider source addresses and platforms (spec §3, §9).
//!
//! A [`ProviderAddr`] is always fully qualified and normalised: the hostname in its
//! comparison form (lowercase ASCII / punycode, `:443` dropped), namespace and type case
//! folded. It prints in display form (Unicode hostname), which is what lock files use as
//! the block label, and it orders the way Terraform sorts lock-file blocks.

use std::fmt;
use std::str::FromStr;

use crate::version::Version;

/// The default registry host for Terraform.
pub const TERRAFORM_REGISTRY: &str = "registry.terraform.io";
/// The default registry host for OpenTofu (spec §10).
pub const OPENTOFU_REGISTRY: &str = "registry.opentofu.org";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddrError {
    #[error("invalid provider source {source_str:?}: {reason}")]
    Source { source_str: String, reason: String },
    #[error("invalid hostname {host:?}: {reason}")]
    Hostname { host: String, reason: String },
    #[error("invalid platform {0:?}: must be OS_ARCH, for example linux_amd64")]
    Platform(String),
}

/// A registry hostname in comparison form (`svchost.ForComparison`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hostname(String);

impl Hostname {
    /// Normalises user input: splits off a port (dropping `:443`), rejects `xn--` labels
    /// (Unicode must be given), then lowercases and punycode-encodes the rest.
    pub fn parse(given: &str) -> Result<Hostname, AddrError> {
        let err = |reason: &str| AddrError::Hostname {
            host: given.to_string(),
            reason: reason.to_string(),
        };
        if given.is_empty() {
            return Err(err("empty hostname"));
        }
        let lower = given.to_ascii_lowercase();
        if lower == "http" || lower == "https" || given.contains("://") {
            return Err(err("not a hostname; give a hostname, not a full URL"));
        }
        let (name, port) = match given.rsplit_once(':') {
            Some((name, port)) => {
                let port: u16 = port.parse().map_err(|_| err("invalid port number"))?;
                (name, if port == 443 { None } else { Some(port) })
            }
            None => (given, None),
        };
        if name.split('.').any(|label| label.is_empty()) {
            return Err(err("hostname labels must not be empty"));
        }
        if name
            .split('.')
            .any(|label| label.to_ascii_lowercase().starts_with("xn--"))
        {
            return Err(err(
                "hostnames must be given in Unicode form, not as punycode (xn--)",
            ));
        }
        // Lowercase letters, digits, dashes and dots are their own IDNA form; most
        // hostnames are only those, and lock files name one per provider.
        let ascii = if name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
        {
            name.to_string()
        } else {
            idna::domain_to_ascii(name).map_err(|_| err("not a valid hostname"))?
        };
        Ok(Hostname(match port {
            Some(port) => format!("{ascii}:{port}"),
            None => ascii,
        }))
    }

    /// The comparison form: lowercase ASCII, punycode, with `:port` when not 443.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The display form (`ForDisplay`): punycode labels turned back into Unicode.
    pub fn display(&self) -> String {
        if !self.0.split('.').any(|label| label.starts_with("xn--")) {
            return self.0.clone();
        }
        let (name, port) = match self.0.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (self.0.as_str(), None),
        };
        let (unicode, result) = idna::domain_to_unicode(name);
        let name = if result.is_ok() {
            unicode
        } else {
            name.to_string()
        };
        match port {
            Some(port) => format!("{name}:{port}"),
            None => name,
        }
    }
}

impl fmt::Display for Hostname {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

/// A fully qualified provider address. Field order gives Terraform's `Provider.LessThan`
/// ordering: hostname (comparison form), namespace, type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProviderAddr {
    pub hostname: Hostname,
    pub namespace: String,
    pub r#type: String,
}

impl ProviderAddr {
    /// Parses a `source` string `[hostname/][namespace/]type` with `default_host` for
    /// short forms; a missing namespace becomes `hashicorp` (`ParseProviderSourceString`).
    pub fn parse(source: &str, default_host: &str) -> Result<ProviderAddr, AddrError> {
        let err = |reason: String| AddrError::Source {
            source_str: source.to_string(),
            reason,
        };
        let parts: Vec<&str> = source.split('/').collect();
        if parts.len() > 3 {
            return Err(err(
                "expected at most three parts: [HOSTNAME/]NAMESPACE/TYPE".to_string(),
            ));
        }
        if parts.iter().any(|p| p.is_empty()) {
            return Err(err("source address parts must not be empty".to_string()));
        }
        let (host, namespace, ty) = match parts.as_slice() {
            [ty] => (default_host, "hashicorp", *ty),
            [ns, ty] => (default_host, *ns, *ty),
            [host, ns, ty] => (*host, *ns, *ty),
            _ => unreachable!("split yields at least one part"),
        };
        let hostname = Hostname::parse(host).map_err(|e| err(e.to_string()))?;
        let namespace = if namespace == "-" {
            if hostname.as_str() != TERRAFORM_REGISTRY {
                return Err(err(
                    "the legacy namespace \"-\" is only allowed on registry.terraform.io"
                        .to_string(),
                ));
            }
            "-".to_string()
        } else {
            parse_part(namespace).map_err(|r| err(format!("invalid namespace: {r}")))?
        };
        let r#type = parse_part(ty).map_err(|r| err(format!("invalid provider type: {r}")))?;
        if let Some(rest) = r#type.strip_prefix("terraform-provider-") {
            return Err(err(format!(
                "provider type must not start with \"terraform-provider-\"; did you mean {rest:?}?"
            )));
        }
        if r#type.starts_with("terraform-") {
            return Err(err(
                "provider type must not start with \"terraform-\"".to_string()
            ));
        }
        Ok(ProviderAddr {
            hostname,
            namespace,
            r#type,
        })
    }

    /// The provider implied by a local name with no `required_providers` entry
    /// (`ImpliedProviderForUnqualifiedType`): `terraform` is the built-in provider.
    pub fn implied(local_name: &str, default_host: &str) -> Result<ProviderAddr, AddrError> {
        if local_name == "terraform" {
            return Ok(ProviderAddr::builtin_terraform());
        }
        ProviderAddr::parse(&format!("hashicorp/{local_name}"), default_host)
    }

    pub fn builtin_terraform() -> ProviderAddr {
        ProviderAddr {
            hostname: Hostname("terraform.io".to_string()),
            namespace: "builtin".to_string(),
            r#type: "terraform".to_string(),
        }
    }

    /// Built-in and legacy providers never appear in lock files (`ProviderIsLockable`).
    pub fn is_lockable(&self) -> bool {
        let builtin = self.hostname.as_str() == "terraform.io" && self.namespace == "builtin";
        !(builtin || self.namespace == "-")
    }
}

impl fmt::Display for ProviderAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.hostname, self.namespace, self.r#type)
    }
}

/// `ParseProviderPart`: non-empty, no `.` or `--`, letters/digits/`-` (and `_` inside,
/// as newer registry-address releases allow), case folded.
fn parse_part(given: &str) -> Result<String, String> {
    if given.is_empty() {
        return Err("must not be empty".to_string());
    }
    if given.contains('.') {
        return Err("dots are not allowed".to_string());
    }
    if given.contains("--") {
        return Err("cannot use multiple consecutive dashes".to_string());
    }
    let folded = if given.is_ascii() {
        given.to_ascii_lowercase()
    } else {
        let (unicode, result) = idna::domain_to_unicode(given);
        result.map_err(|_| "must contain only letters, digits, and dashes".to_string())?;
        unicode
    };
    if folded.starts_with('-') || folded.ends_with('-') {
        return Err("must not begin or end with a dash".to_string());
    }
    if folded.starts_with('_') || folded.ends_with('_') {
        return Err("must not begin or end with an underscore".to_string());
    }
    if !folded
        .chars()
        .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    {
        return Err("must contain only letters, digits, and dashes".to_string());
    }
    Ok(folded)
}

/// A target platform `OS_ARCH` (`getproviders.ParsePlatform`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Platform {
    pub os: String,
    pub arch: String,
}

impl Platform {
    /// The platform tfsum itself runs on, named the way Go names it.
    /// Where HCP Terraform runs: the platform a Terraform Stack's lock file holds besides
    /// the machine's own when no platform is given.
    pub fn hcp_terraform() -> Platform {
        Platform {
            os: "linux".to_string(),
            arch: "amd64".to_string(),
        }
    }

    pub fn current() -> Platform {
        let os = match std::env::consts::OS {
            "macos" => "darwin",
            other => other,
        };
        let arch = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            "x86" => "386",
            "arm" => "arm",
            other => other,
        };
        Platform {
            os: os.to_string(),
            arch: arch.to_string(),
        }
    }
}

impl FromStr for Platform {
    type Err = AddrError;
    fn from_str(s: &str) -> Result<Platform, AddrError> {
        let mut parts = s.split('_');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(os), Some(arch), None)
                if !os.is_empty() && !arch.is_empty() && !s.chars().any(char::is_whitespace) =>
            {
                Ok(Platform {
                    os: os.to_string(),
                    arch: arch.to_string(),
                })
            }
            _ => Err(AddrError::Platform(s.to_string())),
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.os, self.arch)
    }
}

/// One provider package: a version of a provider, built for one platform.
#[derive(Debug, Clone, Copy)]
pub struct PlatformPackage<'a> {
    pub provider: &'a ProviderAddr,
    pub version: &'a Version,
    pub platform: &'a Platform,
}

impl fmt::Display for PlatformPackage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.provider, self.version, self.platform)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_sources() {
        let cases = [
            ("aws", "registry.terraform.io/hashicorp/aws"),
            ("hashicorp/aws", "registry.terraform.io/hashicorp/aws"),
            ("HashiCorp/AWS", "registry.terraform.io/hashicorp/aws"),
            (
                "registry.Terraform.io/HashiCorp/AWS",
                "registry.terraform.io/hashicorp/aws",
            ),
            ("example.com:443/foo/bar", "example.com/foo/bar"),
            ("localhost:8080/foo/bar", "localhost:8080/foo/bar"),
            ("localhost:08080/foo/bar", "localhost:8080/foo/bar"),
            ("café.fr/foo/bar", "café.fr/foo/bar"),
            ("terraform", "registry.terraform.io/hashicorp/terraform"),
        ];
        for (given, want) in cases {
            let addr = ProviderAddr::parse(given, TERRAFORM_REGISTRY).unwrap();
            assert_eq!(addr.to_string(), want, "{given}");
        }
        let idn = ProviderAddr::parse("café.fr/foo/bar", TERRAFORM_REGISTRY).unwrap();
        assert_eq!(idn.hostname.as_str(), "xn--caf-dma.fr");
    }

    /// The shortcut for plain ASCII hostnames gives what IDNA processing gives, both
    /// ways.
    #[test]
    fn plain_hostnames_are_their_own_idna_form() {
        for name in [
            "registry.terraform.io",
            "a-b.example",
            "x--y.example",
            "-edge-.example",
            "127.0.0.1",
            "localhost",
            "9.example",
        ] {
            let parsed = Hostname::parse(name).unwrap();
            assert_eq!(
                parsed.as_str(),
                idna::domain_to_ascii(name).unwrap(),
                "{name}"
            );
            assert_eq!(parsed.display(), idna::domain_to_unicode(name).0, "{name}");
        }
        let port = Hostname::parse("Example.COM:8443").unwrap();
        assert_eq!(
            (port.as_str(), port.display().as_str()),
            ("example.com:8443", "example.com:8443")
        );
        let idn = Hostname::parse("Café.fr").unwrap();
        assert_eq!(
            (idn.as_str(), idn.display().as_str()),
            ("xn--caf-dma.fr", "café.fr")
        );
    }

    #[test]
    fn rejects_bad_sources() {
        for bad in [
            "a/b/c/d",
            "/aws",
            "hashicorp/terraform-provider-aws",
            "xn--caf-dma.fr/foo/bar",
            "example.com/-/foo",
            "foo.bar/baz",
            "ha--shi/aws",
            "https/hashicorp/aws",
        ] {
            assert!(
                ProviderAddr::parse(bad, TERRAFORM_REGISTRY).is_err(),
                "{bad} should be rejected"
            );
        }
    }

    #[test]
    fn implied_and_lockable() {
        let tf = ProviderAddr::implied("terraform", TERRAFORM_REGISTRY).unwrap();
        assert!(!tf.is_lockable());
        let aws = ProviderAddr::implied("aws", OPENTOFU_REGISTRY).unwrap();
        assert_eq!(aws.to_string(), "registry.opentofu.org/hashicorp/aws");
        assert!(aws.is_lockable());
        let legacy = ProviderAddr::parse("-/aws", TERRAFORM_REGISTRY).unwrap();
        assert!(!legacy.is_lockable());
    }

    #[test]
    fn platforms() {
        assert_eq!(
            "linux_amd64".parse::<Platform>().unwrap().to_string(),
            "linux_amd64"
        );
        for bad in ["linux", "linux_amd64_v2", "_amd64", "linux_", "linux amd64"] {
            assert!(bad.parse::<Platform>().is_err(), "{bad}");
        }
    }
}
