//! Module source addresses, read as Terraform 1.0.3 reads them (docs/spec/modules.md §1).
//!
//! A `source` string is tried, in order, as
//!
//! 1. a **local path**: it starts with `./`, `../`, `.\` or `..\`;
//! 2. a **registry address**: `[host/]namespace/name/system[//subdir]` (regsrc's grammar;
//!    `github.com` and `bitbucket.org` are never registry hosts);
//! 3. a **go-getter address**: the `//subdir` is split off, a forced getter (`git::`) is
//!    split off, and a string without a URL scheme goes through go-getter's detectors
//!    in Terraform's order: GitHub, git-over-ssh (`git@host:path`), BitBucket, GCS, S3
//!    and file (an absolute path; a relative one is the "use ./" error).
//!
//! The result says which fetcher gets the package: [`ModuleSource::Git`] (the `git`
//! command), [`ModuleSource::Http`] (an archive, or an `X-Terraform-Get` redirect),
//! [`ModuleSource::Directory`] (an absolute path, read in place), or
//! [`ModuleSource::Unsupported`] for getters tfsum does not implement (`s3`, `gcs`,
//! `hg`). Terragrunt's `terraform.source` has its own entry point,
//! [`parse_terragrunt_source`], which adds `tfr://` and has no registry shorthand.

use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;

use regex::Regex;
use url::Url;

use crate::addr::{Hostname, OPENTOFU_REGISTRY, TERRAFORM_REGISTRY};

/// A parsed module source.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ModuleSource {
    /// `./…` or `../…`, relative to the calling module; kept as written.
    Local(String),
    Registry(RegistryModule),
    Git(GitSource),
    Http(HttpSource),
    /// An absolute directory (`/srv/modules/x`, `file:///srv/modules/x`): go-getter's
    /// file getter uses it in place.
    Directory {
        path: PathBuf,
        subdir: String,
    },
    /// A getter tfsum does not implement; the call can only be followed through
    /// `modules.json`.
    Unsupported {
        getter: String,
        address: String,
    },
    /// OpenTofu's `oci://host/repository[//subdir][?tag=…|?digest=…]`: a module
    /// package in an OCI registry (OpenTofu roots only; Terraform has no such getter).
    Oci(OciSource),
}

/// `oci://<registry>/<repository>[//subdir][?tag=…|?digest=…]` (OpenTofu v1.12.6
/// `internal/getmodules/oci_getter.go:178-276`). The names are checked when the package
/// is fetched, by the OCI transport's grammar; here only the query is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OciSource {
    /// `host[:port]`, as written.
    pub registry: String,
    /// The repository path, as written.
    pub repository: String,
    pub reference: OciReference,
    pub subdir: String,
}

/// Which manifest an `oci://` source names: a tag (`latest` when none is given) or a
/// digest, as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OciReference {
    Tag(String),
    Digest(String),
}

/// `[host/]namespace/name/system[//subdir]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RegistryModule {
    pub host: Hostname,
    /// As written: the registry protocol is case-insensitive, but the URL keeps the case.
    pub namespace: String,
    pub name: String,
    pub system: String,
    /// The `//subdir` the user asked for within the package; empty when none.
    pub subdir: String,
}

/// A git repository as go-getter's git getter sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GitSource {
    /// The URL handed to `git`, without the `ref`, `depth` and `sshkey` parameters.
    pub url: String,
    /// `?ref=`: a tag, a branch or a commit; `None` means the remote's `HEAD`.
    pub reference: Option<String>,
    /// `?depth=`, accepted for compatibility: tfsum always fetches one commit.
    pub depth: Option<u32>,
    pub subdir: String,
}

/// An http(s) URL: an archive, or a page answering with `X-Terraform-Get`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HttpSource {
    /// Without the `archive` parameter.
    pub url: Url,
    /// From `?archive=` or the file extension; `None` asks the URL for `X-Terraform-Get`.
    pub archive: Option<ArchiveFormat>,
    /// go-getter's `?checksum=`: the archive must have this digest.
    pub checksum: Option<Checksum>,
    pub subdir: String,
}

/// An expected archive digest (`?checksum=sha256:…`; go-getter also takes a bare hex
/// value and infers the type from its length).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Checksum {
    Sha256([u8; 32]),
    Sha512(Vec<u8>),
}

/// The archive formats Terraform's module installer unpacks (`goGetterDecompressors`
/// minus the single-file ones, which cannot hold a module directory).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArchiveFormat {
    Zip,
    TarGz,
    TarBz2,
    TarXz,
}

impl ArchiveFormat {
    /// The format as messages name it.
    pub fn name(self) -> &'static str {
        match self {
            ArchiveFormat::Zip => "zip",
            ArchiveFormat::TarGz => "tar.gz",
            ArchiveFormat::TarBz2 => "tar.bz2",
            ArchiveFormat::TarXz => "tar.xz",
        }
    }
}

/// A Terragrunt `terraform.source`, with the exact version a `tfr://` source pins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerragruntSource {
    pub source: ModuleSource,
    /// `?version=` of a `tfr://` source (Terragrunt requires it); `None` otherwise.
    pub version: Option<String>,
}

/// Why a source string cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// Terraform's "Module not found" for a relative path without `./`.
    #[error("the module address {:?} could not be resolved; if you intended a path relative to the current module, use \"./{}\" instead", redacted_source(.0), redacted_source(.0))]
    MaybeRelativePath(String),
    #[error("invalid module source {:?}: {reason}", redacted_source(source_str))]
    Invalid { source_str: String, reason: String },
}

impl SourceError {
    fn invalid(source: &str, reason: impl Into<String>) -> SourceError {
        SourceError::Invalid {
            source_str: source.to_string(),
            reason: reason.into(),
        }
    }
}

/// Parses a `module` block's `source` as Terraform 1.0.3 does (registry addresses
/// without a host mean `registry.terraform.io`).
pub fn parse_source(raw: &str) -> Result<ModuleSource, SourceError> {
    parse_source_for(raw, TERRAFORM_REGISTRY)
}

/// [`parse_source`] with another default registry host, for OpenTofu roots
/// (`registry.opentofu.org`, spec §10). A root whose default registry is OpenTofu's is
/// an OpenTofu root, and only there is `oci://` a source (OpenTofu's getter table,
/// `internal/getmodules/getter.go`); elsewhere it is a scheme go-getter does not know.
pub fn parse_source_for(raw: &str, default_host: &str) -> Result<ModuleSource, SourceError> {
    if is_local_source(raw) {
        return Ok(ModuleSource::Local(raw.to_string()));
    }
    if let Some(module) = parse_registry(raw, default_host) {
        return Ok(ModuleSource::Registry(module));
    }
    let dialect = if default_host == OPENTOFU_REGISTRY {
        Dialect::OpenTofu
    } else {
        Dialect::Terraform
    };
    parse_getter(raw, dialect)
}

/// Parses a go-getter address as the module registry's `X-Terraform-Get` returns it:
/// never local, never another registry address (`getWithGoGetter`). An `oci://`
/// location is followed whichever registry answered it (OpenTofu's RFC lets a module
/// registry point at an OCI package, `rfc/20241206-oci-registries/5-modules.md`).
pub fn parse_package_location(raw: &str) -> Result<ModuleSource, SourceError> {
    parse_getter(raw, Dialect::OpenTofu)
}

/// Parses a Terragrunt `terraform { source = … }`: `tfr://[host]/ns/name/system[//dir]
/// ?version=X`, or a go-getter address (Terragrunt's detectors add GitLab). A relative
/// path is [`ModuleSource::Local`], relative to the unit directory.
pub fn parse_terragrunt_source(raw: &str) -> Result<TerragruntSource, SourceError> {
    let raw = raw.trim();
    if let Some(rest) = raw.strip_prefix("tfr://") {
        return parse_tfr(raw, rest);
    }
    let source = match parse_getter(raw, Dialect::Terragrunt) {
        Err(SourceError::MaybeRelativePath(_)) => ModuleSource::Local(raw.to_string()),
        other => other?,
    };
    Ok(TerragruntSource {
        source,
        version: None,
    })
}

/// Whether a module source is a local path (`addrs.isLocalSourceAddr`).
pub fn is_local_source(raw: &str) -> bool {
    ["./", "../", ".\\", "..\\"]
        .iter()
        .any(|prefix| raw.starts_with(prefix))
}

/// regsrc's `moduleSourceRe` after an optional friendly host.
fn parse_registry(raw: &str, default_host: &str) -> Option<RegistryModule> {
    static HOST: OnceLock<Regex> = OnceLock::new();
    static MODULE: OnceLock<Regex> = OnceLock::new();
    // A host label: ASCII alphanumerics and `-` (not at the ends), or any non-ASCII.
    let host_re = HOST.get_or_init(|| {
        let end = "(?:[0-9A-Za-z]|[^[:ascii:]])";
        let mid = "(?:[0-9A-Za-z-]|[^[:ascii:]])";
        let label = format!("{end}(?:{mid}{{0,61}}{end})?");
        Regex::new(&format!(r"^{label}(?:\.{label})+(?::\d+)?$")).expect("static regex")
    });
    let module_re = MODULE.get_or_init(|| {
        let name = "[0-9A-Za-z](?:[0-9A-Za-z-_]{0,62}[0-9A-Za-z])?";
        Regex::new(&format!(
            r"^({name})/({name})/([0-9a-z]{{1,64}})(?://(.*))?$"
        ))
        .expect("static regex")
    });
    let (first, after) = raw.split_once('/').unwrap_or((raw, ""));
    let (host, rest) = if host_re.is_match(first) {
        // github.com and bitbucket.org addresses are go-getter shorthands (checked
        // against v1.0.3: `github.com/hashicorp/example/aws` is cloned from GitHub).
        let lower = first.to_ascii_lowercase();
        if lower == "github.com" || lower == "bitbucket.org" {
            return None;
        }
        (Hostname::parse(first).ok()?, after)
    } else {
        (Hostname::parse(default_host).ok()?, raw)
    };
    let caps = module_re.captures(rest)?;
    Some(RegistryModule {
        host,
        namespace: caps[1].to_string(),
        name: caps[2].to_string(),
        system: caps[3].to_string(),
        subdir: caps.get(4).map_or("", |m| m.as_str()).to_string(),
    })
}

fn parse_tfr(raw: &str, rest: &str) -> Result<TerragruntSource, SourceError> {
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (host, path) = path.split_once('/').unwrap_or((path, ""));
    let host = if host.is_empty() {
        TERRAFORM_REGISTRY
    } else {
        host
    };
    let host = Hostname::parse(host).map_err(|e| SourceError::invalid(raw, e.to_string()))?;
    let (package, subdir) = match path.find("//") {
        Some(i) => (&path[..i], path[i + 2..].trim_matches('/')),
        None => (path, ""),
    };
    let parts: Vec<&str> = package.split('/').collect();
    let [namespace, name, system] = parts[..] else {
        return Err(SourceError::invalid(
            raw,
            "a tfr:// source needs namespace/name/system after the host",
        ));
    };
    if [namespace, name, system].iter().any(|p| !is_url_segment(p)) {
        return Err(SourceError::invalid(
            raw,
            "namespace, name and system must be plain path segments",
        ));
    }
    let version = url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "version")
        .map(|(_, v)| v.into_owned())
        .filter(|v| !v.is_empty())
        .ok_or_else(|| SourceError::invalid(raw, "a tfr:// source needs ?version="))?;
    Ok(TerragruntSource {
        source: ModuleSource::Registry(RegistryModule {
            host,
            namespace: namespace.to_string(),
            name: name.to_string(),
            system: system.to_string(),
            subdir: subdir.to_string(),
        }),
        version: Some(version),
    })
}

fn is_url_segment(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Terraform,
    /// Terraform's, plus the `oci` getter.
    OpenTofu,
    Terragrunt,
}

/// go-getter's `Detect` followed by the choice of getter (`Client.Get`).
fn parse_getter(raw: &str, dialect: Dialect) -> Result<ModuleSource, SourceError> {
    let (package, subdir) = source_dir_subdir(raw);
    let (forced, rest) = forced_getter(&package);
    let (forced, address, subdir) = if url_scheme(rest).is_some() {
        (forced, rest.to_string(), subdir)
    } else {
        let detected = detect(rest, raw, dialect)?;
        let (detected_forced, detected) = forced_getter(&detected);
        let (detected, detected_subdir) = source_dir_subdir(detected);
        let subdir = join_subdirs(&detected_subdir, &subdir);
        let forced = forced.or(detected_forced).map(str::to_string);
        return classify(raw, forced.as_deref(), &detected, subdir, dialect);
    };
    classify(raw, forced, &address, subdir, dialect)
}

/// Picks the getter: a forced one, else the URL scheme (go-getter's `Getters` map).
fn classify(
    raw: &str,
    forced: Option<&str>,
    address: &str,
    subdir: String,
    dialect: Dialect,
) -> Result<ModuleSource, SourceError> {
    let scheme = url_scheme(address).map(|s| s.to_ascii_lowercase());
    let getter = match forced {
        Some(f) => f.to_ascii_lowercase(),
        None => scheme.clone().unwrap_or_default(),
    };
    match getter.as_str() {
        "git" => git_source(raw, address, subdir),
        "http" | "https" => http_source(raw, address, subdir),
        "file" => {
            let path = match address.strip_prefix("file://") {
                Some(path) => path,
                None => address,
            };
            if !path.starts_with('/') {
                return Err(SourceError::invalid(raw, "a file source must be absolute"));
            }
            Ok(ModuleSource::Directory {
                path: PathBuf::from(path),
                subdir,
            })
        }
        "s3" | "gcs" | "hg" => Ok(ModuleSource::Unsupported {
            getter,
            address: raw.to_string(),
        }),
        "oci" if dialect == Dialect::OpenTofu => {
            if scheme.as_deref() != Some("oci") {
                // `oci::https://…` (`oci_getter.go:186-195`).
                return Err(SourceError::invalid(
                    raw,
                    "oci source type only supports oci URL scheme",
                ));
            }
            oci_source(raw, address, subdir)
        }
        "" => Err(SourceError::invalid(raw, "no URL scheme")),
        other => Err(SourceError::invalid(
            raw,
            format!("download not supported for scheme {other:?}"),
        )),
    }
}

/// `oci://host/repository?tag=…|?digest=…` (`resolveRepositoryRef` and
/// `resolveManifestDescriptor`, `oci_getter.go:178-276`): each argument once, not
/// empty, not both, no other; the tag defaults to `latest`. go-getter's own `archive`
/// argument is refused with OpenTofu's reason (`:136-150`).
fn oci_source(raw: &str, address: &str, subdir: String) -> Result<ModuleSource, SourceError> {
    let url =
        Url::parse(address).map_err(|e| SourceError::invalid(raw, format!("bad URL: {e}")))?;
    let registry = match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_string(),
        (None, _) => {
            return Err(SourceError::invalid(
                raw,
                "oci source type requires an absolute URL",
            ))
        }
    };
    if !url.username().is_empty() || url.password().is_some() {
        return Err(SourceError::invalid(
            raw,
            "credentials for an OCI registry go in the CLI configuration (oci_credentials), not in the source address",
        ));
    }
    let repository = url.path().trim_start_matches('/').to_string();
    let mut tag = None;
    let mut digest = None;
    let mut unsupported = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for (name, value) in url.query_pairs() {
        if seen.contains(&name.to_string()) {
            return Err(SourceError::invalid(
                raw,
                format!("too many {name:?} arguments"),
            ));
        }
        seen.push(name.to_string());
        match name.as_ref() {
            "tag" if value.is_empty() => {
                return Err(SourceError::invalid(raw, "tag argument must not be empty"))
            }
            "digest" if value.is_empty() => {
                return Err(SourceError::invalid(raw, "digest argument must not be empty"))
            }
            "tag" => tag = Some(value.into_owned()),
            "digest" => digest = Some(value.into_owned()),
            "archive" => {
                return Err(SourceError::invalid(
                    raw,
                    "the \"archive\" argument is not allowed for OCI sources, because the archive format is detected automatically from the image manifest",
                ))
            }
            other => unsupported.push(format!("{other:?}")),
        }
    }
    match unsupported.as_slice() {
        [] => {}
        [one] => {
            return Err(SourceError::invalid(
                raw,
                format!("unsupported argument {one}"),
            ))
        }
        many => {
            return Err(SourceError::invalid(
                raw,
                format!("unsupported arguments: {}", many.join(", ")),
            ))
        }
    }
    let reference = match (tag, digest) {
        (Some(_), Some(_)) => {
            return Err(SourceError::invalid(
                raw,
                "cannot set both \"tag\" and \"digest\" arguments",
            ))
        }
        (Some(tag), None) => OciReference::Tag(tag),
        (None, Some(digest)) => OciReference::Digest(digest),
        (None, None) => OciReference::Tag("latest".to_string()),
    };
    Ok(ModuleSource::Oci(OciSource {
        registry,
        repository,
        reference,
        subdir,
    }))
}

fn git_source(raw: &str, address: &str, subdir: String) -> Result<ModuleSource, SourceError> {
    let mut url =
        Url::parse(address).map_err(|e| SourceError::invalid(raw, format!("bad git URL: {e}")))?;
    if !matches!(url.scheme(), "https" | "http" | "ssh" | "git" | "file") {
        return Err(SourceError::invalid(
            raw,
            format!("git over {:?} is not supported", url.scheme()),
        ));
    }
    let mut reference = None;
    let mut depth = None;
    let mut kept = Vec::new();
    for (key, value) in url.query_pairs() {
        match key.as_ref() {
            "ref" => reference = Some(value.into_owned()).filter(|r| !r.is_empty()),
            "depth" => {
                depth = Some(value.parse::<u32>().map_err(|_| {
                    SourceError::invalid(raw, format!("depth {value:?} is not a number"))
                })?)
            }
            "sshkey" => {
                return Err(SourceError::invalid(
                    raw,
                    "the sshkey parameter is not supported; use an SSH agent or ~/.ssh/config",
                ))
            }
            _ => kept.push((key.into_owned(), value.into_owned())),
        }
    }
    if kept.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(kept);
    }
    if let Some(r) = &reference {
        // A ref becomes a command-line argument and a refspec: no options, no spaces.
        if r.starts_with('-') || r.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(SourceError::invalid(raw, format!("invalid ref {r:?}")));
        }
    }
    Ok(ModuleSource::Git(GitSource {
        url: url.to_string(),
        reference,
        depth,
        subdir,
    }))
}

fn http_source(raw: &str, address: &str, subdir: String) -> Result<ModuleSource, SourceError> {
    let mut url =
        Url::parse(address).map_err(|e| SourceError::invalid(raw, format!("bad URL: {e}")))?;
    let mut archive_param = None;
    let mut checksum_param = None;
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter_map(|(k, v)| match k.as_ref() {
            "archive" => {
                archive_param = Some(v.into_owned());
                None
            }
            "checksum" => {
                checksum_param = Some(v.into_owned());
                None
            }
            _ => Some((k.into_owned(), v.into_owned())),
        })
        .collect();
    let checksum = checksum_param
        .map(|value| parse_checksum(&value).map_err(|reason| SourceError::invalid(raw, reason)))
        .transpose()?;
    if archive_param.is_some() || checksum.is_some() {
        if kept.is_empty() {
            url.set_query(None);
        } else {
            url.query_pairs_mut().clear().extend_pairs(kept);
        }
    }
    let key = match archive_param {
        // `archive=false` (any false-ish bool) turns detection off.
        Some(v) if ["0", "f", "F", "false", "FALSE", "False"].contains(&v.as_str()) => None,
        Some(v) => Some(v),
        None => extension_key(url.path()),
    };
    let archive = match key.as_deref() {
        None => None,
        Some("zip") => Some(ArchiveFormat::Zip),
        Some("tar.gz" | "tgz") => Some(ArchiveFormat::TarGz),
        Some("tar.bz2" | "tbz2" | "tar.tbz2") => Some(ArchiveFormat::TarBz2),
        Some("tar.xz" | "txz") => Some(ArchiveFormat::TarXz),
        Some(single @ ("gz" | "bz2" | "xz")) => {
            return Err(SourceError::invalid(
                raw,
                format!("a .{single} file holds a single file, not a module directory"),
            ))
        }
        // An unknown archive type maps to no decompressor in go-getter.
        Some(_) => None,
    };
    if checksum.is_some() && archive.is_none() {
        return Err(SourceError::invalid(
            raw,
            "a checksum can only be checked on an archive (.zip, .tar.gz, … or ?archive=)",
        ));
    }
    Ok(ModuleSource::Http(HttpSource {
        url,
        archive,
        checksum,
        subdir,
    }))
}

/// `type:hex`, or bare hex whose length names the type (go-getter `parseChecksum`).
/// tfsum checks SHA-256 and SHA-512; `md5`, `sha1` and `file:` URLs are refused rather
/// than silently not checked.
fn parse_checksum(value: &str) -> Result<Checksum, String> {
    let (kind, digest) = match value.split_once(':') {
        Some((kind, digest)) => (kind.to_ascii_lowercase(), digest),
        None => match value.len() {
            64 => ("sha256".to_string(), value),
            128 => ("sha512".to_string(), value),
            _ => (String::new(), value),
        },
    };
    let bytes =
        hex::decode(digest).map_err(|_| format!("checksum {value:?} is not hexadecimal"))?;
    match (kind.as_str(), bytes.len()) {
        ("sha256", 32) => {
            let mut sum = [0u8; 32];
            sum.copy_from_slice(&bytes);
            Ok(Checksum::Sha256(sum))
        }
        ("sha512", 64) => Ok(Checksum::Sha512(bytes)),
        ("sha256" | "sha512", _) => Err(format!("checksum {value:?} has the wrong length")),
        _ => Err(format!(
            "checksum {value:?}: tfsum checks sha256 and sha512 checksums only"
        )),
    }
}

/// The longest decompressor key the path ends with (`.tar.gz` beats `.gz`).
fn extension_key(path: &str) -> Option<String> {
    const KEYS: [&str; 10] = [
        "tar.tbz2", "tar.bz2", "tar.gz", "tar.xz", "tbz2", "tgz", "txz", "zip", "bz2", "gz",
    ];
    KEYS.iter()
        .chain(std::iter::once(&"xz"))
        .filter(|k| path.ends_with(&format!(".{k}")))
        .max_by_key(|k| k.len())
        .map(|k| k.to_string())
}

/// go-getter's detectors, in the order Terraform registers them.
fn detect(src: &str, raw: &str, dialect: Dialect) -> Result<String, SourceError> {
    if src.is_empty() {
        return Err(SourceError::invalid(raw, "empty source"));
    }
    let (path, query) = match src.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (src, None),
    };
    let with_query = |url: String| match query {
        Some(q) => format!("{url}?{q}"),
        None => url,
    };
    let hosted = |host: &str, parts: &[&str]| -> Result<String, SourceError> {
        if parts.len() < 3 || parts[1].is_empty() || parts[2].is_empty() {
            return Err(SourceError::invalid(
                raw,
                format!("{host} URLs should be {host}/owner/repository"),
            ));
        }
        let repo = parts[2].strip_suffix(".git").unwrap_or(parts[2]);
        let mut url = format!("https://{host}/{}/{repo}.git", parts[1]);
        if parts.len() > 3 {
            url = format!("{url}//{}", parts[3..].join("/"));
        }
        Ok(format!("git::{}", with_query(url)))
    };
    let parts: Vec<&str> = path.split('/').collect();
    if path.starts_with("github.com/") {
        return hosted("github.com", &parts);
    }
    if dialect == Dialect::Terragrunt && path.starts_with("gitlab.com/") {
        return hosted("gitlab.com", &parts);
    }
    if let Some(ssh) = detect_ssh(src) {
        return Ok(format!("git::{ssh}"));
    }
    // go-getter asks Bitbucket's API whether the repository is git or Mercurial;
    // Bitbucket has served only git since 2020, so tfsum assumes git without asking.
    if path.starts_with("bitbucket.org/") {
        return hosted("bitbucket.org", &parts);
    }
    if src.contains("googleapis.com/") {
        return Ok(format!("gcs::https://{src}"));
    }
    if src.contains(".amazonaws.com/") {
        return Ok(format!("s3::https://{src}"));
    }
    if src.starts_with('/') {
        return Ok(format!("file://{src}"));
    }
    Err(SourceError::MaybeRelativePath(raw.to_string()))
}

/// `git@host:path[?query]` → `ssh://git@host/path[?query]` (go-getter `detectSSH`; the
/// git detector requires the user `git`).
fn detect_ssh(src: &str) -> Option<String> {
    static SSH: OnceLock<Regex> = OnceLock::new();
    let re = SSH.get_or_init(|| Regex::new("^(?:([^@]+)@)?([^:]+):/?(.+)$").expect("static regex"));
    let caps = re.captures(src)?;
    if caps.get(1).map(|m| m.as_str()) != Some("git") {
        return None;
    }
    let host = &caps[2];
    let path = &caps[3];
    Some(format!("ssh://git@{host}/{path}"))
}

/// `getter.SourceDirSubdir`: the first `//` after any `scheme://` and before the query
/// separates the package from a subdirectory; the query stays with the package.
pub(crate) fn source_dir_subdir(src: &str) -> (String, String) {
    let stop = src.find('?').unwrap_or(src.len());
    let offset = src[..stop].find("://").map_or(0, |i| i + 3);
    let Some(i) = src[offset..stop].find("//") else {
        return (src.to_string(), String::new());
    };
    let i = i + offset;
    let mut subdir = src[i + 2..].to_string();
    let mut package = src[..i].to_string();
    if let Some(q) = subdir.find('?') {
        package.push_str(&subdir[q..]);
        subdir.truncate(q);
    }
    (package, subdir)
}

/// `getForcedGetter`: `name::rest` with an alphanumeric name.
fn forced_getter(src: &str) -> (Option<&str>, &str) {
    match src.split_once("::") {
        Some((name, rest))
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            (Some(name), rest)
        }
        _ => (None, src),
    }
}

/// The scheme Go's `url.Parse` would find: letters, then letters, digits, `+-.`, then
/// `:`. An invalid character first means no scheme; so does `git@host:path`.
fn url_scheme(src: &str) -> Option<&str> {
    let colon = src.find(':')?;
    let scheme = &src[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let valid = first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some(scheme)
}

/// A URL for messages: [`redacted_source`] of it.
pub fn redacted(url: &str) -> String {
    redacted_source(url)
}

/// Query parameters whose values are secrets: go-getter's `sshkey` (a private key) and
/// the usual names for tokens and signed-URL signatures.
const SECRET_PARAMETERS: [&str; 9] = [
    "sshkey",
    "token",
    "access_token",
    "private_token",
    "password",
    "secret",
    "signature",
    "x-amz-signature",
    "x-amz-security-token",
];

/// A module source or URL as it may be shown: the one redaction for everything tfsum
/// prints or logs about a source. Works on the text, whatever the source's shape
/// (`git::https://user:pw@h/r.git//sub?ref=v1`, `https://tok@h/m.zip?archive=zip`, a
/// Terragrunt `tfr://` address, a string that does not parse): the password of any
/// `scheme://user:password@` goes, and over http(s) the user name too (a token is
/// often given as the user name); secret query values become `redacted`. The
/// scp-like `git@host:path` holds no secret and stays.
pub fn redacted_source(raw: &str) -> String {
    let Some(scheme_end) = raw.find("://") else {
        return redact_query(raw);
    };
    let scheme = raw[..scheme_end]
        .rsplit("::")
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let authority_start = scheme_end + 3;
    let authority_end = raw[authority_start..]
        .find(['/', '?', '#'])
        .map_or(raw.len(), |i| authority_start + i);
    let authority = &raw[authority_start..authority_end];
    let Some(at) = authority.rfind('@') else {
        return redact_query(raw);
    };
    let userinfo = &authority[..at];
    let kept_user = match (scheme.as_str(), userinfo.split_once(':')) {
        ("http" | "https", _) => None,
        (_, Some((user, _))) => Some(user),
        (_, None) => Some(userinfo),
    };
    let mut out = raw[..authority_start].to_string();
    if let Some(user) = kept_user.filter(|u| !u.is_empty()) {
        out.push_str(user);
        out.push('@');
    }
    out.push_str(&authority[at + 1..]);
    out.push_str(&raw[authority_end..]);
    redact_query(&out)
}

/// `text` (a git error message, say) without the credentials `source` carries, in case
/// the message repeats the URL.
pub fn scrub_credentials(text: &str, source: &str) -> String {
    let Some(scheme_end) = source.find("://") else {
        return text.to_string();
    };
    let rest = &source[scheme_end + 3..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let Some(at) = authority.rfind('@') else {
        return text.to_string();
    };
    let userinfo = &authority[..at];
    let mut out = text.replace(&format!("{userinfo}@"), "");
    for secret in userinfo.split(':').skip(1).chain(std::iter::once(userinfo)) {
        if secret.len() >= 4 {
            out = out.replace(secret, "redacted");
        }
    }
    out
}

fn redact_query(text: &str) -> String {
    let Some(q) = text.find('?') else {
        return text.to_string();
    };
    let (head, query) = text.split_at(q + 1);
    let (query, fragment) = match query.find('#') {
        Some(h) => query.split_at(h),
        None => (query, ""),
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if SECRET_PARAMETERS.contains(&name.to_ascii_lowercase().as_str()) => {
                format!("{name}=redacted")
            }
            _ => pair.to_string(),
        })
        .collect();
    format!("{head}{}{fragment}", pairs.join("&"))
}

/// `filepath.Join(detected, requested)`, both already relative.
fn join_subdirs(first: &str, second: &str) -> String {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => second.to_string(),
        (false, true) => first.to_string(),
        (false, false) => format!("{}/{}", first.trim_end_matches('/'), second),
    }
}

impl RegistryModule {
    /// `host/namespace/name/system`, lowercased: the identity Terraform compares
    /// (`regsrc.Module.Normalized`, with the host always present).
    pub fn package_id(&self) -> String {
        format!(
            "{}/{}/{}/{}",
            self.host.as_str(),
            self.namespace.to_ascii_lowercase(),
            self.name.to_ascii_lowercase(),
            self.system.to_ascii_lowercase()
        )
    }

    /// `namespace/name/system` as written, the path the registry protocol uses.
    pub fn path(&self) -> String {
        format!("{}/{}/{}", self.namespace, self.name, self.system)
    }
}

impl fmt::Display for RegistryModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.host.display(), self.path())?;
        if !self.subdir.is_empty() {
            write!(f, "//{}", self.subdir)?;
        }
        Ok(())
    }
}

impl fmt::Display for ModuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sub = |subdir: &str| {
            if subdir.is_empty() {
                String::new()
            } else {
                format!("//{subdir}")
            }
        };
        match self {
            ModuleSource::Local(path) => f.write_str(path),
            ModuleSource::Registry(m) => write!(f, "{m}"),
            ModuleSource::Git(g) => {
                write!(f, "git::{}{}", redacted(&g.url), sub(&g.subdir))?;
                if let Some(r) = &g.reference {
                    write!(f, "?ref={r}")?;
                }
                Ok(())
            }
            ModuleSource::Http(h) => {
                write!(f, "{}{}", crate::url::SafeUrl::new(&h.url), sub(&h.subdir))
            }
            ModuleSource::Directory { path, subdir } => {
                write!(f, "{}{}", path.display(), sub(subdir))
            }
            ModuleSource::Unsupported { address, .. } => f.write_str(address),
            ModuleSource::Oci(o) => {
                write!(f, "oci://{}/{}{}", o.registry, o.repository, sub(&o.subdir))?;
                match &o.reference {
                    OciReference::Tag(tag) => write!(f, "?tag={tag}"),
                    OciReference::Digest(digest) => write!(f, "?digest={digest}"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg(host: &str, ns: &str, name: &str, system: &str, subdir: &str) -> ModuleSource {
        ModuleSource::Registry(RegistryModule {
            host: Hostname::parse(host).unwrap(),
            namespace: ns.into(),
            name: name.into(),
            system: system.into(),
            subdir: subdir.into(),
        })
    }

    fn git(url: &str, reference: Option<&str>, subdir: &str) -> ModuleSource {
        ModuleSource::Git(GitSource {
            url: url.into(),
            reference: reference.map(str::to_string),
            depth: None,
            subdir: subdir.into(),
        })
    }

    fn http(url: &str, archive: Option<ArchiveFormat>, subdir: &str) -> ModuleSource {
        ModuleSource::Http(HttpSource {
            url: Url::parse(url).unwrap(),
            archive,
            checksum: None,
            subdir: subdir.into(),
        })
    }

    /// The address grammar, case by case. Cases marked "v1.0.3" were checked against
    /// the binary (docs/spec/modules.md §1).
    #[test]
    fn terraform_source_addresses() {
        use ArchiveFormat::*;
        let tr = "registry.terraform.io";
        let cases: Vec<(&str, Result<ModuleSource, &str>)> = vec![
            ("./vpc", Ok(ModuleSource::Local("./vpc".into()))),
            ("../x", Ok(ModuleSource::Local("../x".into()))),
            (".\\win", Ok(ModuleSource::Local(".\\win".into()))),
            (
                "terraform-aws-modules/vpc/aws",
                Ok(reg(tr, "terraform-aws-modules", "vpc", "aws", "")),
            ),
            (
                "hashicorp/consul/aws//modules/agent",
                Ok(reg(tr, "hashicorp", "consul", "aws", "modules/agent")),
            ),
            (
                "app.terraform.io/Acme/Net/aws",
                Ok(reg("app.terraform.io", "Acme", "Net", "aws", "")),
            ),
            (
                "127.0.0.1:8443/ns/name/sys",
                Ok(reg("127.0.0.1:8443", "ns", "name", "sys", "")),
            ),
            (
                "registry.terraform.io:443/ns/name/sys",
                Ok(reg(tr, "ns", "name", "sys", "")),
            ),
            // The system must be lowercase alphanumerics: otherwise not a registry address,
            // and a relative path without ./ (v1.0.3: "Module not found").
            ("ns/name/AWS", Err("could not be resolved")),
            ("ns/name/aws?ref=x", Err("could not be resolved")),
            ("modules/vpc", Err("use \"./modules/vpc\" instead")),
            // Punycode hosts are not registry hosts.
            ("xn--caf-dma.fr/ns/name/sys", Err("could not be resolved")),
            // v1.0.3: GitHub, not the registry.
            (
                "github.com/hashicorp/example/aws",
                Ok(git("https://github.com/hashicorp/example.git", None, "aws")),
            ),
            (
                "github.com/hashicorp/example",
                Ok(git("https://github.com/hashicorp/example.git", None, "")),
            ),
            (
                "github.com/hashicorp/example.git?ref=v1.2.0",
                Ok(git(
                    "https://github.com/hashicorp/example.git",
                    Some("v1.2.0"),
                    "",
                )),
            ),
            (
                "github.com/org/repo//dns?ref=v1",
                Ok(git("https://github.com/org/repo.git", Some("v1"), "dns")),
            ),
            ("github.com/org", Err("github.com URLs should be")),
            (
                "bitbucket.org/org/repo",
                Ok(git("https://bitbucket.org/org/repo.git", None, "")),
            ),
            (
                "git@github.com:org/repo.git",
                Ok(git("ssh://git@github.com/org/repo.git", None, "")),
            ),
            (
                "git@github.com:org/repo.git//sub?ref=main",
                Ok(git(
                    "ssh://git@github.com/org/repo.git",
                    Some("main"),
                    "sub",
                )),
            ),
            // v1.0.3: only the user "git" makes an scp-style address a git one.
            ("bob@example.com:org/repo.git", Err("could not be resolved")),
            (
                "git::https://example.com/acme/tf-modules.git//dns?ref=v1.4.0",
                Ok(git(
                    "https://example.com/acme/tf-modules.git",
                    Some("v1.4.0"),
                    "dns",
                )),
            ),
            (
                "git::ssh://git@example.com/acme/m.git?ref=0123abc&depth=1",
                Ok(ModuleSource::Git(GitSource {
                    url: "ssh://git@example.com/acme/m.git".into(),
                    reference: Some("0123abc".into()),
                    depth: Some(1),
                    subdir: String::new(),
                })),
            ),
            (
                "git::file:///srv/repos/m?ref=v1",
                Ok(git("file:///srv/repos/m", Some("v1"), "")),
            ),
            (
                "git::git@example.com:acme/m.git",
                Ok(git("ssh://git@example.com/acme/m.git", None, "")),
            ),
            (
                "git::https://example.com/m.git?ref=v1&foo=bar",
                Ok(git("https://example.com/m.git?foo=bar", Some("v1"), "")),
            ),
            ("git::https://example.com/m.git?sshkey=abc", Err("sshkey")),
            (
                "git::https://example.com/m.git?ref=--upload-pack=x",
                Err("invalid ref"),
            ),
            (
                "git::https://example.com/m.git?depth=x",
                Err("not a number"),
            ),
            (
                "git://example.com/m.git",
                Ok(git("git://example.com/m.git", None, "")),
            ),
            (
                "https://example.com/m.zip",
                Ok(http("https://example.com/m.zip", Some(Zip), "")),
            ),
            (
                "https://example.com/m.tar.gz//mod",
                Ok(http("https://example.com/m.tar.gz", Some(TarGz), "mod")),
            ),
            (
                "https://example.com/m.tgz",
                Ok(http("https://example.com/m.tgz", Some(TarGz), "")),
            ),
            (
                "https://example.com/m.tar.bz2",
                Ok(http("https://example.com/m.tar.bz2", Some(TarBz2), "")),
            ),
            (
                "https://example.com/m.tar.xz",
                Ok(http("https://example.com/m.tar.xz", Some(TarXz), "")),
            ),
            (
                "https://example.com/get?archive=zip&x=1",
                Ok(http("https://example.com/get?x=1", Some(Zip), "")),
            ),
            (
                "https://example.com/m.zip?archive=false",
                Ok(http("https://example.com/m.zip", None, "")),
            ),
            (
                "https://example.com/tarball/v1//*?archive=tar.gz",
                Ok(http("https://example.com/tarball/v1", Some(TarGz), "*")),
            ),
            (
                "https://example.com/modules/vpc",
                Ok(http("https://example.com/modules/vpc", None, "")),
            ),
            ("https://example.com/m.gz", Err("single file")),
            (
                "https://example.com/m.zip?checksum=md5:d41d8cd98f00b204e9800998ecf8427e",
                Err("sha256 and sha512 checksums only"),
            ),
            (
                "https://example.com/m.zip?checksum=sha256:abcd",
                Err("wrong length"),
            ),
            (
                "https://example.com/page?checksum=sha256:0000000000000000000000000000000000000000000000000000000000000000",
                Err("only be checked on an archive"),
            ),
            (
                "/srv/modules/x",
                Ok(ModuleSource::Directory {
                    path: "/srv/modules/x".into(),
                    subdir: String::new(),
                }),
            ),
            (
                "file:///srv/modules//x",
                Ok(ModuleSource::Directory {
                    path: "/srv/modules".into(),
                    subdir: "x".into(),
                }),
            ),
            (
                "s3::https://s3.amazonaws.com/bucket/m.zip",
                Ok(ModuleSource::Unsupported {
                    getter: "s3".into(),
                    address: "s3::https://s3.amazonaws.com/bucket/m.zip".into(),
                }),
            ),
            (
                "bucket.s3.amazonaws.com/m.zip",
                Ok(ModuleSource::Unsupported {
                    getter: "s3".into(),
                    address: "bucket.s3.amazonaws.com/m.zip".into(),
                }),
            ),
            (
                "gcs::https://www.googleapis.com/storage/v1/b/m.zip",
                Ok(ModuleSource::Unsupported {
                    getter: "gcs".into(),
                    address: "gcs::https://www.googleapis.com/storage/v1/b/m.zip".into(),
                }),
            ),
            (
                "www.googleapis.com/storage/v1/b/m.zip",
                Ok(ModuleSource::Unsupported {
                    getter: "gcs".into(),
                    address: "www.googleapis.com/storage/v1/b/m.zip".into(),
                }),
            ),
            (
                "hg::https://example.com/repo",
                Ok(ModuleSource::Unsupported {
                    getter: "hg".into(),
                    address: "hg::https://example.com/repo".into(),
                }),
            ),
            (
                "ftp://example.com/m.zip",
                Err("download not supported for scheme \"ftp\""),
            ),
            // Terraform's own detectors do not include GitLab: a relative path.
            ("gitlab.com/org/repo", Err("could not be resolved")),
            ("", Err("empty source")),
        ];
        for (raw, want) in cases {
            let got = parse_source(raw);
            match (&got, &want) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{raw}"),
                (Err(e), Err(text)) => assert!(e.to_string().contains(text), "{raw}: {e}"),
                _ => panic!("{raw}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn checksums() {
        let hex64 = "ab".repeat(32);
        for (value, want) in [
            (
                format!("sha256:{hex64}"),
                Some(Checksum::Sha256([0xab; 32])),
            ),
            (
                format!("SHA256:{hex64}"),
                Some(Checksum::Sha256([0xab; 32])),
            ),
            (hex64.clone(), Some(Checksum::Sha256([0xab; 32]))),
            ("cd".repeat(64), Some(Checksum::Sha512(vec![0xcd; 64]))),
            (format!("file:https://x/{hex64}"), None),
            ("sha1:0000".to_string(), None),
        ] {
            assert_eq!(parse_checksum(&value).ok(), want, "{value}");
        }
        let ModuleSource::Http(h) =
            parse_source(&format!("https://e.example/m.tgz?checksum={hex64}&x=1")).unwrap()
        else {
            panic!("http")
        };
        assert_eq!(h.url.as_str(), "https://e.example/m.tgz?x=1");
        assert_eq!(h.checksum, Some(Checksum::Sha256([0xab; 32])));
    }

    #[test]
    fn registry_locations_are_never_registry_or_local() {
        assert_eq!(
            parse_package_location("git::https://github.com/org/terraform-aws-vpc?ref=abc123"),
            Ok(git(
                "https://github.com/org/terraform-aws-vpc",
                Some("abc123"),
                ""
            ))
        );
        assert!(matches!(
            parse_package_location("ns/name/sys"),
            Err(SourceError::MaybeRelativePath(_))
        ));
    }

    #[test]
    fn terragrunt_sources() {
        let tr = "registry.terraform.io";
        type Want = Result<(ModuleSource, Option<&'static str>), &'static str>;
        let cases: Vec<(&str, Want)> = vec![
            (
                "tfr:///terraform-aws-modules/vpc/aws?version=3.3.0",
                Ok((
                    reg(tr, "terraform-aws-modules", "vpc", "aws", ""),
                    Some("3.3.0"),
                )),
            ),
            (
                "tfr://registry.example.com/ns/n/s//modules/x?version=1.0.0",
                Ok((
                    reg("registry.example.com", "ns", "n", "s", "modules/x"),
                    Some("1.0.0"),
                )),
            ),
            ("tfr:///ns/n/s", Err("needs ?version=")),
            ("tfr:///ns/n", Err("namespace/name/system")),
            ("tfr:///ns/../s?version=1", Err("plain path segments")),
            (
                "git::https://example.com/m.git//x?ref=v1",
                Ok((git("https://example.com/m.git", Some("v1"), "x"), None)),
            ),
            (
                "gitlab.com/org/repo//x",
                Ok((git("https://gitlab.com/org/repo.git", None, "x"), None)),
            ),
            (
                "../modules//vpc",
                Ok((ModuleSource::Local("../modules//vpc".into()), None)),
            ),
            (
                "modules/vpc",
                Ok((ModuleSource::Local("modules/vpc".into()), None)),
            ),
            // Terragrunt has no registry shorthand: three segments are a relative path.
            (
                "ns/name/sys",
                Ok((ModuleSource::Local("ns/name/sys".into()), None)),
            ),
        ];
        for (raw, want) in cases {
            let got = parse_terragrunt_source(raw);
            match (&got, want) {
                (Ok(got), Ok((source, version))) => {
                    assert_eq!(got.source, source, "{raw}");
                    assert_eq!(got.version.as_deref(), version, "{raw}");
                }
                (Err(e), Err(text)) => assert!(e.to_string().contains(text), "{raw}: {e}"),
                (got, want) => panic!("{raw}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn subdir_split_matches_go_getter() {
        for (src, package, subdir) in [
            ("https://h/p//s?q=1", "https://h/p?q=1", "s"),
            (
                "git::https://h/p.git//a/b?ref=v1",
                "git::https://h/p.git?ref=v1",
                "a/b",
            ),
            ("https://h/p?x=//y", "https://h/p?x=//y", ""),
            ("file:///abs/path", "file:///abs/path", ""),
            ("git@h:o/r.git//s", "git@h:o/r.git", "s"),
        ] {
            assert_eq!(
                source_dir_subdir(src),
                (package.to_string(), subdir.to_string()),
                "{src}"
            );
        }
    }

    #[test]
    fn opentofu_default_host() {
        let ModuleSource::Registry(m) =
            parse_source_for("acme/vpc/aws", crate::addr::OPENTOFU_REGISTRY).unwrap()
        else {
            panic!("registry")
        };
        assert_eq!(m.package_id(), "registry.opentofu.org/acme/vpc/aws");
    }

    #[test]
    fn registry_identity_is_case_insensitive() {
        let a = parse_source("Acme/VPC/aws").unwrap();
        let b = parse_source("acme/vpc/aws//sub").unwrap();
        let (ModuleSource::Registry(a), ModuleSource::Registry(b)) = (a, b) else {
            panic!("registry")
        };
        assert_eq!(a.package_id(), b.package_id());
        assert_eq!(a.path(), "Acme/VPC/aws");
    }

    /// OpenTofu's `oci://` sources (`internal/getmodules/oci_getter.go:136-276`), one
    /// row per rule; a Terraform root does not know the scheme.
    #[test]
    fn oci_sources() {
        let oci = |registry: &str, repository: &str, reference: OciReference, subdir: &str| {
            ModuleSource::Oci(OciSource {
                registry: registry.into(),
                repository: repository.into(),
                reference,
                subdir: subdir.into(),
            })
        };
        let tag = |t: &str| OciReference::Tag(t.into());
        let digest = format!("sha256:{}", "a".repeat(64));
        let cases: Vec<(String, Result<ModuleSource, &str>)> = vec![
            (
                "oci://example.com/modules/net".into(),
                Ok(oci("example.com", "modules/net", tag("latest"), "")),
            ),
            (
                "oci://example.com:5000/modules/net//sub/dir?tag=1.0.0".into(),
                Ok(oci(
                    "example.com:5000",
                    "modules/net",
                    tag("1.0.0"),
                    "sub/dir",
                )),
            ),
            (
                format!("oci://example.com/net?digest={digest}"),
                Ok(oci(
                    "example.com",
                    "net",
                    OciReference::Digest(digest.clone()),
                    "",
                )),
            ),
            (
                format!("oci://example.com/net?tag=1&digest={digest}"),
                Err("cannot set both \"tag\" and \"digest\" arguments"),
            ),
            (
                "oci://example.com/net?tag=".into(),
                Err("tag argument must not be empty"),
            ),
            (
                "oci://example.com/net?tag=a&tag=b".into(),
                Err("too many \"tag\" arguments"),
            ),
            (
                "oci://example.com/net?ref=x".into(),
                Err("unsupported argument \"ref\""),
            ),
            (
                "oci://example.com/net?ref=x&depth=1".into(),
                Err("unsupported arguments: \"ref\", \"depth\""),
            ),
            (
                "oci://example.com/net?archive=zip".into(),
                Err("the \"archive\" argument is not allowed"),
            ),
            (
                "oci::https://example.com/net".into(),
                Err("only supports oci URL scheme"),
            ),
            ("oci://u:p@example.com/net".into(), Err("oci_credentials")),
        ];
        for (raw, want) in cases {
            let got = parse_source_for(&raw, OPENTOFU_REGISTRY);
            match (&want, &got) {
                (Ok(want), Ok(got)) => assert_eq!(got, want, "{raw}"),
                (Err(rule), Err(e)) => assert!(e.to_string().contains(rule), "{raw}: {e}"),
                _ => panic!("{raw}: {got:?}"),
            }
        }
        let shown = parse_source_for("oci://example.com/net//sub?tag=1.0.0", OPENTOFU_REGISTRY)
            .unwrap()
            .to_string();
        assert_eq!(shown, "oci://example.com/net//sub?tag=1.0.0");
        let err = parse_source("oci://example.com/net")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("download not supported for scheme \"oci\""),
            "{err}"
        );
        assert!(matches!(
            parse_package_location("oci://example.com/net?tag=2"),
            Ok(ModuleSource::Oci(_))
        ));
    }
}
