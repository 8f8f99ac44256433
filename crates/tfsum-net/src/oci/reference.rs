//! Names in an OCI registry: a repository's address ([`RepositoryAddr`],
//! `host[:port]/path`), a credentials prefix ([`RepositoryPrefix`], `host[/path]`), a
//! manifest [`Reference`] (tag or digest) and a [`Digest`] (sha256 only), with the
//! [`DigestCheck`] that verifies content against one while it streams.
//!
//! The grammar is ORAS-Go's, which OpenTofu parses repository addresses with
//! (`internal/command/cliconfig/ociauthconfig/repository_addr.go:27-62` at v1.12.6):
//! the registry must be a bare URL authority (`registry/reference.go:194-199` at
//! oras-go v2.6.2), the repository path distribution's `<name>` rule (`:38`), a tag
//! `[\w][\w.-]{0,127}` (`:44`), and an address that carries a `:tag` or `@digest` is
//! refused. Only `sha256` digests are accepted, as OpenTofu accepts no other
//! (`internal/getproviders/package_location_oci_blob_archive.go:273-285`).

use std::fmt;
use std::net::Ipv6Addr;
use std::sync::LazyLock;

use regex::Regex;
use sha2::{Digest as _, Sha256};

/// Why a name was refused; the caller adds which name it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid OCI {kind} {given:?}: {rule}")]
pub struct NameError {
    /// "repository address", "tag", "digest", …
    pub kind: &'static str,
    pub given: String,
    /// The rule it breaks.
    pub rule: &'static str,
}

fn refuse(kind: &'static str, given: &str, rule: &'static str) -> NameError {
    NameError {
        kind,
        given: given.to_string(),
        rule,
    }
}

/// distribution's repository name rule (oras-go v2.6.2 `registry/reference.go:38`):
/// lower-case path components joined by `/`, separators `.`, `_`, `__` or dashes.
static REPOSITORY: LazyLock<Regex> = LazyLock::new(|| {
    let component = r"[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*";
    let pattern = format!("^{component}(?:/{component})*$");
    Regex::new(&pattern).unwrap_or_else(|e| panic!("constant regex {pattern:?}: {e}"))
});

/// The tag rule shared by the OCI and Docker specifications (`registry/reference.go:44`).
static TAG: LazyLock<Regex> = LazyLock::new(|| {
    let pattern = r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$";
    Regex::new(pattern).unwrap_or_else(|e| panic!("constant regex {pattern:?}: {e}"))
});

/// Checks a registry name, `host[:port]`, and returns it in lower case.
///
/// ORAS accepts what Go's URL parser takes as the whole authority of `dummy://<name>`;
/// this accepts the names that can reach a registry: DNS names and IPv4 addresses
/// (letters, digits, `-`, `_`, `.` in non-empty labels), bracketed IPv6 addresses, and an
/// optional decimal port. Host names compare case-insensitively, so the name is kept in
/// lower case (OpenTofu compares them as given; a credentials key written in capitals
/// matches here and not there).
fn registry_name(given: &str) -> Result<String, NameError> {
    let bad = |rule| refuse("registry", given, rule);
    let (host, port) = match given.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => (host, Some(port)),
        _ => (given, None),
    };
    if let Some(port) = port {
        let valid = !port.is_empty()
            && port.len() <= 5
            && port.bytes().all(|b| b.is_ascii_digit())
            && port.parse::<u32>().is_ok_and(|p| (1..=65535).contains(&p));
        if !valid {
            return Err(bad("the port must be a number from 1 to 65535"));
        }
    }
    if let Some(inner) = host.strip_prefix('[') {
        let Some(inner) = inner.strip_suffix(']') else {
            return Err(bad("an IPv6 address must be closed with ]"));
        };
        if inner.parse::<Ipv6Addr>().is_err() {
            return Err(bad("not an IPv6 address"));
        }
    } else {
        if host.is_empty() {
            return Err(bad("the registry host name is empty"));
        }
        let label_ok = |label: &str| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        };
        if !host.split('.').all(label_ok) {
            return Err(bad(
                "a host name is letters, digits, '-' and '_' in non-empty dot-separated labels",
            ));
        }
    }
    Ok(given.to_ascii_lowercase())
}

fn repository_path(given: &str, whole: &str) -> Result<String, NameError> {
    if REPOSITORY.is_match(given) {
        Ok(given.to_string())
    } else {
        Err(refuse(
            "repository address",
            whole,
            "the repository path must be lower-case letters and digits in '/'-separated \
             components, joined within a component by '.', '_', '__' or dashes",
        ))
    }
}

/// One repository in one registry: `example.com:5000/opentofu-providers/hashicorp/tls`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RepositoryAddr {
    registry: String,
    repository: String,
}

impl RepositoryAddr {
    /// Parses `host[:port]/repository/path`. A `:tag` or `@digest` suffix is refused:
    /// an address names a repository, not an artifact in it.
    pub fn parse(given: &str) -> Result<RepositoryAddr, NameError> {
        let Some((registry, path)) = given.split_once('/') else {
            return Err(refuse(
                "repository address",
                given,
                "it must be a registry host name, '/', and a repository path",
            ));
        };
        if path.contains('@') || path.contains(':') {
            return Err(refuse(
                "repository address",
                given,
                "a tag or digest is not allowed here, only the repository",
            ));
        }
        RepositoryAddr::new(registry, path).map_err(|mut e| {
            e.given = given.to_string();
            e
        })
    }

    /// The repository `repository` in the registry `registry` (`host[:port]`).
    pub fn new(registry: &str, repository: &str) -> Result<RepositoryAddr, NameError> {
        let whole = format!("{registry}/{repository}");
        Ok(RepositoryAddr {
            registry: registry_name(registry)?,
            repository: repository_path(repository, &whole)?,
        })
    }

    /// The registry as configured, `host[:port]`: what credentials are looked up for.
    pub(crate) fn registry(&self) -> &str {
        &self.registry
    }

    /// The repository path within the registry.
    pub fn repository(&self) -> &str {
        &self.repository
    }

    /// The host requests go to: the registry, except Docker Hub's `docker.io`, which
    /// serves the API at `registry-1.docker.io` (oras-go v2.6.2
    /// `registry/reference.go:240-245`).
    pub fn request_host(&self) -> &str {
        if self.registry == "docker.io" {
            "registry-1.docker.io"
        } else {
            &self.registry
        }
    }

    /// The host without its port, for deciding whether plain HTTP may be used.
    pub(crate) fn host_name(&self) -> &str {
        let host = self.request_host();
        match host.rsplit_once(':') {
            Some((name, port)) if !port.contains(']') => name,
            _ => host,
        }
    }

    /// The same registry, another repository (for mounting a blob from it).
    pub(crate) fn sibling(&self, repository: &str) -> Result<RepositoryAddr, NameError> {
        RepositoryAddr::new(&self.registry, repository)
    }
}

impl fmt::Display for RepositoryAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.registry, self.repository)
    }
}

/// The key of a credentials entry: a registry alone, or a registry and a leading part of
/// repository paths (`ghcr.io/my-org`), as `oci_credentials` block labels and the
/// `auths` keys of containers' `auth.json` are written
/// (`ParseRepositoryAddressPrefix`, `repository_addr.go:27-62`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepositoryPrefix {
    registry: String,
    path: Option<String>,
}

impl RepositoryPrefix {
    pub(crate) fn parse(given: &str) -> Result<RepositoryPrefix, NameError> {
        if given.contains('/') {
            let addr = RepositoryAddr::parse(given)?;
            return Ok(RepositoryPrefix {
                registry: addr.registry,
                path: Some(addr.repository),
            });
        }
        Ok(RepositoryPrefix {
            registry: registry_name(given)?,
            path: None,
        })
    }

    /// The path prefix, if the key names one.
    pub(crate) fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// How many leading path segments of `addr` this prefix matches, if it matches:
    /// `Some(0)` for a registry-wide key; `None` for another registry or a path that is
    /// not a whole-segment prefix (`ContainersAuthPropertyNameMatch`,
    /// `docker_cli_credentials_config.go:202-257`).
    pub(crate) fn matched_segments(&self, addr: &RepositoryAddr) -> Option<usize> {
        if self.registry != addr.registry {
            return None;
        }
        let Some(path) = &self.path else {
            return Some(0);
        };
        let want: Vec<&str> = addr.repository.split('/').collect();
        let got: Vec<&str> = path.split('/').collect();
        (got.len() <= want.len() && want[..got.len()] == got[..]).then_some(got.len())
    }
}

impl fmt::Display for RepositoryPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{}/{path}", self.registry),
            None => f.write_str(&self.registry),
        }
    }
}

/// A `sha256:<64 lower-case hex digits>` content digest.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Digest([u8; 32]);

impl Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest(Sha256::digest(bytes).into())
    }

    /// Parses `sha256:<hex>`. Other algorithms are refused: OpenTofu verifies only
    /// sha256, and a lock file's `zh:` is a sha256.
    pub fn parse(given: &str) -> Result<Digest, NameError> {
        let Some((algorithm, hex)) = given.split_once(':') else {
            return Err(refuse("digest", given, "a digest is <algorithm>:<hex>"));
        };
        if algorithm != "sha256" {
            return Err(refuse("digest", given, "only sha256 digests are supported"));
        }
        let valid_hex = hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        let mut bytes = [0u8; 32];
        if !valid_hex || hex::decode_to_slice(hex, &mut bytes).is_err() {
            return Err(refuse(
                "digest",
                given,
                "a sha256 digest has 64 lower-case hexadecimal digits",
            ));
        }
        Ok(Digest(bytes))
    }

    /// The 64 hex digits, without `sha256:` (what a `zh:` hash records).
    pub fn hex(&self) -> String {
        hex::encode(self.0)
    }

    /// The SHA-256 itself.
    pub fn sha256(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sha256:{}", self.hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({self})")
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Digest, D::Error> {
        let text = String::deserialize(deserializer)?;
        Digest::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A tag: `1.2.3`, `1.0.0_beta`, `latest`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tag(String);

impl Tag {
    pub fn parse(given: &str) -> Result<Tag, NameError> {
        if TAG.is_match(given) {
            Ok(Tag(given.to_string()))
        } else {
            Err(refuse(
                "tag",
                given,
                "a tag is 1 to 128 letters, digits, '_', '.' and '-', not starting with '.' or '-'",
            ))
        }
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a manifest is asked for by: a tag, or a digest.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Reference {
    Tag(Tag),
    Digest(Digest),
}

impl Reference {
    /// A digest if it has a `:`, else a tag (`ValidateReference`, `registry/reference.go:227-237`).
    #[cfg(test)]
    pub(crate) fn parse(given: &str) -> Result<Reference, NameError> {
        if given.contains(':') {
            Digest::parse(given).map(Reference::Digest)
        } else {
            Tag::parse(given).map(Reference::Tag)
        }
    }

    /// The digest, for a digest reference.
    pub(crate) fn digest(&self) -> Option<Digest> {
        match self {
            Reference::Digest(digest) => Some(*digest),
            Reference::Tag(_) => None,
        }
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reference::Tag(tag) => tag.fmt(f),
            Reference::Digest(digest) => digest.fmt(f),
        }
    }
}

/// Content checked against a descriptor as it arrives: at most `size` bytes, and at the
/// end exactly `size` bytes whose sha256 is the digest.
pub(crate) struct DigestCheck {
    expected: Digest,
    size: u64,
    seen: u64,
    hasher: Sha256,
}

/// How content failed its descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentFault {
    /// More bytes than the descriptor's size (`seen` counts up to the first excess chunk).
    TooLong { size: u64, seen: u64 },
    /// Fewer bytes than the descriptor's size.
    TooShort { size: u64, seen: u64 },
    /// The right length, another digest.
    Mismatch { expected: Digest, actual: Digest },
}

impl fmt::Display for ContentFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContentFault::TooLong { size, seen } => {
                write!(f, "more than the {size} bytes announced ({seen} so far)")
            }
            ContentFault::TooShort { size, seen } => {
                write!(f, "{seen} bytes where {size} were announced")
            }
            ContentFault::Mismatch { expected, actual } => {
                write!(f, "the content's digest is {actual}, not {expected}")
            }
        }
    }
}

impl DigestCheck {
    pub(crate) fn new(expected: Digest, size: u64) -> DigestCheck {
        DigestCheck {
            expected,
            size,
            seen: 0,
            hasher: Sha256::new(),
        }
    }

    /// Takes the next chunk; fails as soon as the content is longer than announced.
    pub(crate) fn update(&mut self, chunk: &[u8]) -> Result<(), ContentFault> {
        self.seen += chunk.len() as u64;
        if self.seen > self.size {
            return Err(ContentFault::TooLong {
                size: self.size,
                seen: self.seen,
            });
        }
        self.hasher.update(chunk);
        Ok(())
    }

    /// The verdict once the content has ended.
    pub(crate) fn finish(self) -> Result<Digest, ContentFault> {
        if self.seen != self.size {
            return Err(ContentFault::TooShort {
                size: self.size,
                seen: self.seen,
            });
        }
        let actual = Digest(self.hasher.finalize().into());
        if actual != self.expected {
            return Err(ContentFault::Mismatch {
                expected: self.expected,
                actual,
            });
        }
        Ok(actual)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Repository addresses as ORAS parses them for OpenTofu, one row per rule.
    #[test]
    fn repository_addresses() {
        // An address, and its (registry, repository) or what the error says.
        type Row = (
            &'static str,
            Result<(&'static str, &'static str), &'static str>,
        );
        let cases: &[Row] = &[
            ("example.com/foo", Ok(("example.com", "foo"))),
            ("Example.COM/foo/bar", Ok(("example.com", "foo/bar"))),
            ("localhost:5000/a/b/c", Ok(("localhost:5000", "a/b/c"))),
            ("127.0.0.1:443/x", Ok(("127.0.0.1:443", "x"))),
            ("[::1]:5000/x", Ok(("[::1]:5000", "x"))),
            ("[::1]/x", Ok(("[::1]", "x"))),
            (
                "ghcr.io/a.b/c_d/e__f/g--h",
                Ok(("ghcr.io", "a.b/c_d/e__f/g--h")),
            ),
            ("example.com", Err("registry host name, '/'")),
            ("example.com/Foo", Err("lower-case")),
            ("example.com/foo/", Err("lower-case")),
            ("example.com//foo", Err("lower-case")),
            ("example.com/-foo", Err("lower-case")),
            ("example.com/foo._bar", Err("lower-case")),
            ("example.com/foo:1.0", Err("a tag or digest is not allowed")),
            (
                "example.com/foo@sha256:00",
                Err("a tag or digest is not allowed"),
            ),
            ("example.com:0/foo", Err("port")),
            ("example.com:99999/foo", Err("port")),
            ("example.com:http/foo", Err("port")),
            ("exa mple.com/foo", Err("host name")),
            ("user@example.com/foo", Err("host name")),
            ("example..com/foo", Err("host name")),
            ("/foo", Err("host name is empty")),
            ("[::g]/foo", Err("IPv6")),
        ];
        for (given, want) in cases {
            let got = RepositoryAddr::parse(given);
            match (want, &got) {
                (Ok((registry, repository)), Ok(addr)) => {
                    assert_eq!(
                        (addr.registry(), addr.repository()),
                        (*registry, *repository)
                    );
                }
                (Err(rule), Err(e)) => assert!(e.to_string().contains(rule), "{given}: {e}"),
                _ => panic!("{given}: {got:?}"),
            }
        }
        let hub = RepositoryAddr::parse("docker.io/library/x").unwrap();
        assert_eq!(hub.request_host(), "registry-1.docker.io");
        let local = RepositoryAddr::parse("localhost:5000/x").unwrap();
        assert_eq!(local.host_name(), "localhost");
        assert_eq!(local.to_string(), "localhost:5000/x");
    }

    #[test]
    fn prefixes_match_whole_leading_segments() {
        let addr = RepositoryAddr::parse("example.com/a/b/c").unwrap();
        let cases = [
            ("example.com", Some(0)),
            ("example.com/a", Some(1)),
            ("example.com/a/b", Some(2)),
            ("example.com/a/b/c", Some(3)),
            ("example.com/a/b/c/d", None),
            ("example.com/a/bc", None),
            ("example.com/ab", None),
            ("example.com:443/a", None),
            ("other.example.com", None),
        ];
        for (prefix, want) in cases {
            let prefix = RepositoryPrefix::parse(prefix).unwrap();
            assert_eq!(prefix.matched_segments(&addr), want, "{prefix}");
        }
        assert!(RepositoryPrefix::parse("https://index.docker.io/v1/").is_err());
        assert!(RepositoryPrefix::parse("example.com/a:tag").is_err());
    }

    #[test]
    fn references_and_digests() {
        let hex = "a".repeat(64);
        assert_eq!(
            Reference::parse("1.0.0_beta").unwrap(),
            Reference::Tag(Tag("1.0.0_beta".into()))
        );
        let digest = Reference::parse(&format!("sha256:{hex}")).unwrap();
        assert_eq!(digest.to_string(), format!("sha256:{hex}"));
        for bad in [
            "",
            ".hidden",
            "-x",
            "a/b",
            &"x".repeat(129),
            "sha512:abcd",
            "sha256:ABC",
            &format!("sha256:{}", "A".repeat(64)),
            &format!("sha256:{}", "a".repeat(63)),
        ] {
            assert!(Reference::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Reference::parse(&"x".repeat(128)).is_ok());
        assert_eq!(
            Digest::of(b"{}").to_string(),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    #[test]
    fn digest_check_table() {
        let body = b"hello, registry";
        let right = Digest::of(body);
        let wrong = Digest::of(b"something else");
        let size = body.len() as u64;
        let run = |expected: Digest, size: u64, chunks: &[&[u8]]| {
            let mut check = DigestCheck::new(expected, size);
            for chunk in chunks {
                check.update(chunk)?;
            }
            check.finish()
        };
        assert_eq!(run(right, size, &[&body[..5], &body[5..]]), Ok(right));
        assert_eq!(
            run(wrong, size, &[body]),
            Err(ContentFault::Mismatch {
                expected: wrong,
                actual: right
            })
        );
        assert_eq!(
            run(right, size - 1, &[&body[..5], &body[5..]]),
            Err(ContentFault::TooLong {
                size: size - 1,
                seen: size
            })
        );
        assert_eq!(
            run(right, size + 1, &[body]),
            Err(ContentFault::TooShort {
                size: size + 1,
                seen: size
            })
        );
    }
}
