//! [`OciError`]: every way an OCI registry request can fail, naming the registry, the
//! repository, the reference and the rule broken; and the distribution error body
//! (`{"errors":[{"code":…,"message":…}]}`) read into [`ErrorCodes`], which decide
//! whether a failure means "not there" ([`OciError::is_not_found`]) or "not allowed"
//! (`OciError::is_auth`).
//!
//! The classification is OpenTofu's: a repository answering 404, `NAME_UNKNOWN` or
//! `NAME_INVALID` is "provider not found", so other installation methods still answer,
//! while `UNAUTHORIZED`, `DENIED` and the rest are hard errors
//! (`internal/getproviders/oci_registry_mirror_source.go:193-273` at v1.12.6). The body
//! is read as ORAS reads it (`registry/remote/internal/errutil/errutil.go:23-40` and
//! `registry/remote/errcode/errors.go` at oras-go v2.6.2): at most 8 KiB, and a body that
//! is not the error JSON simply has no codes.

use std::fmt;
use std::time::Duration;

use reqwest::{Method, Url};

use crate::download::SinkError;
use crate::http::error::Status;
use crate::http::{HttpError, TransportKind};
use crate::retry::{is_transient_status, Retryable};
use tfsum_vocab::url::SafeUrl;

use super::credentials::{CredentialOrigin, CredentialsError};
use super::reference::{ContentFault, Digest, NameError, Reference, RepositoryAddr};

/// The most of an error body that is read.
pub(crate) const MAX_ERROR_BODY: usize = 8 * 1024;

/// One code from a distribution error body. Codes outside the specification's list
/// are kept as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorCode {
    BlobUnknown,
    BlobUploadInvalid,
    BlobUploadUnknown,
    DigestInvalid,
    ManifestBlobUnknown,
    ManifestInvalid,
    ManifestUnknown,
    NameInvalid,
    NameUnknown,
    SizeInvalid,
    Unauthorized,
    Denied,
    Unsupported,
    TooManyRequests,
    Other(String),
}

impl ErrorCode {
    fn parse(code: &str) -> ErrorCode {
        match code {
            "BLOB_UNKNOWN" => ErrorCode::BlobUnknown,
            "BLOB_UPLOAD_INVALID" => ErrorCode::BlobUploadInvalid,
            "BLOB_UPLOAD_UNKNOWN" => ErrorCode::BlobUploadUnknown,
            "DIGEST_INVALID" => ErrorCode::DigestInvalid,
            "MANIFEST_BLOB_UNKNOWN" => ErrorCode::ManifestBlobUnknown,
            "MANIFEST_INVALID" => ErrorCode::ManifestInvalid,
            "MANIFEST_UNKNOWN" => ErrorCode::ManifestUnknown,
            "NAME_INVALID" => ErrorCode::NameInvalid,
            "NAME_UNKNOWN" => ErrorCode::NameUnknown,
            "SIZE_INVALID" => ErrorCode::SizeInvalid,
            "UNAUTHORIZED" => ErrorCode::Unauthorized,
            "DENIED" => ErrorCode::Denied,
            "UNSUPPORTED" => ErrorCode::Unsupported,
            "TOOMANYREQUESTS" => ErrorCode::TooManyRequests,
            other => ErrorCode::Other(other.to_string()),
        }
    }

    fn as_str(&self) -> &str {
        match self {
            ErrorCode::BlobUnknown => "BLOB_UNKNOWN",
            ErrorCode::BlobUploadInvalid => "BLOB_UPLOAD_INVALID",
            ErrorCode::BlobUploadUnknown => "BLOB_UPLOAD_UNKNOWN",
            ErrorCode::DigestInvalid => "DIGEST_INVALID",
            ErrorCode::ManifestBlobUnknown => "MANIFEST_BLOB_UNKNOWN",
            ErrorCode::ManifestInvalid => "MANIFEST_INVALID",
            ErrorCode::ManifestUnknown => "MANIFEST_UNKNOWN",
            ErrorCode::NameInvalid => "NAME_INVALID",
            ErrorCode::NameUnknown => "NAME_UNKNOWN",
            ErrorCode::SizeInvalid => "SIZE_INVALID",
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::Denied => "DENIED",
            ErrorCode::Unsupported => "UNSUPPORTED",
            ErrorCode::TooManyRequests => "TOOMANYREQUESTS",
            ErrorCode::Other(code) => code,
        }
    }
}

/// The codes and messages of a distribution error body, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorCodes(pub Vec<(ErrorCode, String)>);

#[derive(serde::Deserialize)]
struct Body {
    #[serde(default)]
    errors: Vec<Entry>,
}

#[derive(serde::Deserialize)]
struct Entry {
    #[serde(default)]
    code: String,
    #[serde(default)]
    message: String,
}

impl ErrorCodes {
    /// Reads an error body; anything that is not one has no codes.
    pub(crate) fn parse(body: &[u8]) -> ErrorCodes {
        let body = &body[..body.len().min(MAX_ERROR_BODY)];
        let Ok(parsed) = serde_json::from_slice::<Body>(body) else {
            return ErrorCodes::default();
        };
        ErrorCodes(
            parsed
                .errors
                .into_iter()
                .map(|e| (ErrorCode::parse(&e.code), shorten(&e.message)))
                .collect(),
        )
    }

    pub(crate) fn contains(&self, code: &ErrorCode) -> bool {
        self.0.iter().any(|(c, _)| c == code)
    }
}

/// A server's message, on one line and not endless.
fn shorten(message: &str) -> String {
    let line: String = message
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(200)
        .collect();
    line.trim().to_string()
}

impl fmt::Display for ErrorCodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (code, message)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            f.write_str(code.as_str())?;
            if !message.is_empty() {
                write!(f, " ({message})")?;
            }
        }
        Ok(())
    }
}

/// What the client was doing, for messages; with the repository it names the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    ListTags,
    Resolve(Reference),
    FetchManifest(Digest),
    FetchBlob(Digest),
    BlobExists(Digest),
    UploadBlob(Digest),
    PutManifest(Reference),
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operation::ListTags => f.write_str("listing tags"),
            Operation::Resolve(reference) => write!(f, "resolving {reference}"),
            Operation::FetchManifest(digest) => write!(f, "fetching manifest {digest}"),
            Operation::FetchBlob(digest) => write!(f, "fetching blob {digest}"),
            Operation::BlobExists(digest) => write!(f, "checking for blob {digest}"),
            Operation::UploadBlob(digest) => write!(f, "uploading blob {digest}"),
            Operation::PutManifest(reference) => write!(f, "pushing manifest {reference}"),
        }
    }
}

/// An operation on one repository: "resolving 1.0.0 in example.com/providers/x".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub repository: RepositoryAddr,
    pub operation: Operation,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in {}", self.operation, self.repository)
    }
}

/// Which credentials went with a refused request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tried(pub Option<CredentialOrigin>);

impl fmt::Display for Tried {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(origin) => write!(f, "credentials {origin} were used"),
            None => f.write_str(
                "no credentials are configured for this repository (oci_credentials blocks, \
                 or the containers/Docker auth files)",
            ),
        }
    }
}

/// How the bearer-token dance failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenFault {
    /// The token endpoint answered with another status than 200.
    Status { status: Status, codes: ErrorCodes },
    /// 200, but no usable token in the body.
    Body(String),
    /// The realm may not be used (not https, a private address, unparsable).
    Realm(String),
}

impl fmt::Display for TokenFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenFault::Status { status, codes } if codes.0.is_empty() => {
                write!(f, "the token service answered {status}")
            }
            TokenFault::Status { status, codes } => {
                write!(f, "the token service answered {status}: {codes}")
            }
            TokenFault::Body(reason) => {
                write!(f, "the token service's answer is unusable: {reason}")
            }
            TokenFault::Realm(reason) => f.write_str(reason),
        }
    }
}

/// Everything that can go wrong with a registry request.
#[derive(Debug, thiserror::Error)]
pub enum OciError {
    /// A name that cannot be used (an address, tag or digest).
    #[error(transparent)]
    Name(#[from] NameError),

    /// The repository, manifest or blob does not exist: 404, or `NAME_UNKNOWN`,
    /// `NAME_INVALID`, `MANIFEST_UNKNOWN`, `BLOB_UNKNOWN`.
    #[error("{target}: not found ({method} {url}: {status}{})", codes_suffix(.codes))]
    NotFound {
        target: Box<Target>,
        method: Method,
        url: SafeUrl,
        status: Status,
        codes: ErrorCodes,
    },

    /// 401 or 403 after authenticating, or `UNAUTHORIZED`/`DENIED`.
    #[error("{target}: the registry refused access ({method} {url}: {status}{}); {tried}", codes_suffix(.codes))]
    Unauthorized {
        target: Box<Target>,
        method: Method,
        url: SafeUrl,
        status: Status,
        codes: ErrorCodes,
        tried: Tried,
    },

    /// Any other status the operation does not expect.
    #[error("{target}: {method} {url}: unexpected HTTP status {status}{}", codes_suffix(.codes))]
    Status {
        target: Box<Target>,
        method: Method,
        url: SafeUrl,
        status: Status,
        codes: ErrorCodes,
        retry_after: Option<Duration>,
    },

    /// The request itself failed (connection, timeout, body cut).
    #[error("{target}: {method} {url}: {kind}: {message}")]
    Transport {
        target: Box<Target>,
        method: Method,
        url: SafeUrl,
        kind: TransportKind,
        message: String,
    },

    /// The HTTP client could not be built (an unreadable `SSL_CERT_FILE`, say).
    #[error("{target}: cannot set up the HTTP client: {reason}")]
    Setup { target: Box<Target>, reason: String },

    /// A challenge the client cannot answer: Basic without credentials, or credentials
    /// of the wrong kind.
    #[error("{target}: the registry asks for {scheme} authentication, but {reason}")]
    Challenge {
        target: Box<Target>,
        scheme: &'static str,
        reason: &'static str,
    },

    /// Getting a bearer token failed.
    #[error("{target}: getting a token from {realm} failed: {fault}; {tried}")]
    Token {
        target: Box<Target>,
        realm: String,
        fault: TokenFault,
        tried: Tried,
    },

    /// The credentials for the repository could not be had (a helper failed).
    #[error("{target}: {source}")]
    Credentials {
        target: Box<Target>,
        #[source]
        source: CredentialsError,
    },

    /// A 2xx answer that breaks the protocol: a missing header, another media type.
    #[error("{target}: {method} {url}: invalid response: {rule}")]
    InvalidResponse {
        target: Box<Target>,
        method: Method,
        url: SafeUrl,
        rule: String,
    },

    /// Content larger than tfsum accepts for it.
    #[error("{target}: {size} bytes is more than the {limit} bytes accepted")]
    TooLarge {
        target: Box<Target>,
        size: u64,
        limit: u64,
    },

    /// Content that is not what its descriptor says.
    #[error("{target}: {url}: {fault}")]
    Content {
        target: Box<Target>,
        url: SafeUrl,
        fault: ContentFault,
    },

    /// What the blob was streamed into refused it (a zip that does not hash) or could
    /// not take it (a full disk).
    #[error("{target}: {error}")]
    Sink {
        target: Box<Target>,
        #[source]
        error: SinkError,
    },
}

fn codes_suffix(codes: &ErrorCodes) -> String {
    if codes.0.is_empty() {
        String::new()
    } else {
        format!(", {codes}")
    }
}

impl OciError {
    /// The repository, manifest or blob is not there; another source may have it.
    pub fn is_not_found(&self) -> bool {
        matches!(self, OciError::NotFound { .. })
    }

    /// A manifest refused because what it names is not (whole) in the registry yet:
    /// `MANIFEST_BLOB_UNKNOWN`, `BLOB_UNKNOWN` or `DIGEST_INVALID`. Distribution's
    /// filesystem storage lets a reader see a blob that another client is writing at
    /// the same moment; a manifest naming it is refused so until that write ends, and
    /// accepted after. A writer racing others may try again.
    pub fn names_unfinished_content(&self) -> bool {
        match self {
            OciError::Status { codes, .. } => [
                ErrorCode::ManifestBlobUnknown,
                ErrorCode::BlobUnknown,
                ErrorCode::DigestInvalid,
            ]
            .iter()
            .any(|code| codes.contains(code)),
            _ => false,
        }
    }

    /// The registry refused who we are (or are not): a configuration problem, not a
    /// missing package.
    #[cfg(test)]
    pub(crate) fn is_auth(&self) -> bool {
        matches!(
            self,
            OciError::Unauthorized { .. } | OciError::Challenge { .. } | OciError::Token { .. }
        )
    }
}

/// A request that got no answer, classified by kind (the HTTP client's rules:
/// [`HttpError::from_reqwest`]).
pub(crate) fn transport(
    target: &Target,
    method: &Method,
    url: &Url,
    err: &reqwest::Error,
) -> OciError {
    let (kind, message) = match HttpError::from_reqwest("", url, err) {
        HttpError::Transport { kind, message, .. } => (kind, message),
        other => (TransportKind::Other, other.to_string()),
    };
    OciError::Transport {
        target: Box::new(target.clone()),
        method: method.clone(),
        url: SafeUrl::new(url),
        kind,
        message,
    }
}

/// No complete answer within `after`.
pub(crate) fn timed_out(target: &Target, method: &Method, url: &Url, after: Duration) -> OciError {
    OciError::Transport {
        target: Box::new(target.clone()),
        method: method.clone(),
        url: SafeUrl::new(url),
        kind: TransportKind::Timeout,
        message: format!("no complete response within {after:?}"),
    }
}

/// A non-success answer, classified: not found, refused, or another status.
pub(crate) fn classify(
    target: &Target,
    method: &Method,
    url: &Url,
    status: u16,
    retry_after: Option<Duration>,
    body: &[u8],
    tried: Tried,
) -> OciError {
    let codes = ErrorCodes::parse(body);
    let target = Box::new(target.clone());
    let method = method.clone();
    let url = SafeUrl::new(url);
    let status_code = Status(status);
    let not_found = status == 404
        || [
            ErrorCode::NameUnknown,
            ErrorCode::NameInvalid,
            ErrorCode::ManifestUnknown,
            ErrorCode::BlobUnknown,
        ]
        .iter()
        .any(|code| codes.contains(code));
    let refused = status == 401
        || status == 403
        || codes.contains(&ErrorCode::Unauthorized)
        || codes.contains(&ErrorCode::Denied);
    // A refusal wins over "unknown": registries answer NAME_UNKNOWN to hide private
    // repositories only with 404, and 401/403 must not read as "not there".
    if refused {
        OciError::Unauthorized {
            target,
            method,
            url,
            status: status_code,
            codes,
            tried,
        }
    } else if not_found {
        OciError::NotFound {
            target,
            method,
            url,
            status: status_code,
            codes,
        }
    } else {
        OciError::Status {
            target,
            method,
            url,
            status: status_code,
            codes,
            retry_after,
        }
    }
}

impl Retryable for OciError {
    fn is_transient(&self) -> bool {
        match self {
            OciError::Status { status, .. } => is_transient_status(status.0),
            OciError::Transport { kind, .. } => kind.is_transient(),
            OciError::Token {
                fault: TokenFault::Status { status, .. },
                ..
            } => is_transient_status(status.0),
            _ => false,
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            OciError::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        Target {
            repository: RepositoryAddr::parse("example.com/a/b").unwrap(),
            operation: Operation::ListTags,
        }
    }

    #[test]
    fn error_bodies() {
        let body = br#"{"errors":[{"code":"NAME_UNKNOWN","message":"repository name not known to registry","detail":{"name":"x"}},{"code":"X_CUSTOM"}]}"#;
        let codes = ErrorCodes::parse(body);
        assert_eq!(
            codes.0,
            [
                (
                    ErrorCode::NameUnknown,
                    "repository name not known to registry".to_string()
                ),
                (ErrorCode::Other("X_CUSTOM".into()), String::new())
            ]
        );
        assert_eq!(
            codes.to_string(),
            "NAME_UNKNOWN (repository name not known to registry); X_CUSTOM"
        );
        assert_eq!(
            ErrorCodes::parse(b"<html>nope</html>"),
            ErrorCodes::default()
        );
        assert_eq!(ErrorCodes::parse(b"{}"), ErrorCodes::default());
        let long = format!(
            r#"{{"errors":[{{"code":"DENIED","message":"{}\n"}}]}}"#,
            "x".repeat(500)
        );
        assert_eq!(ErrorCodes::parse(long.as_bytes()).0[0].1.len(), 200);
    }

    /// Which answers mean "not there", which "not allowed", which neither.
    #[test]
    fn classification_table() {
        let url = Url::parse("https://example.com/v2/a/b/tags/list").unwrap();
        let body = |code: &str| format!(r#"{{"errors":[{{"code":"{code}"}}]}}"#);
        let cases: &[(u16, &str, &str)] = &[
            (404, "", "not found"),
            (404, &body("NAME_UNKNOWN"), "not found"),
            (400, &body("NAME_INVALID"), "not found"),
            (404, &body("MANIFEST_UNKNOWN"), "not found"),
            (404, &body("BLOB_UNKNOWN"), "not found"),
            (401, "", "auth"),
            (403, "", "auth"),
            (401, &body("UNAUTHORIZED"), "auth"),
            (403, &body("DENIED"), "auth"),
            (404, &body("DENIED"), "auth"),
            (400, &body("MANIFEST_INVALID"), "other"),
            (500, "", "other"),
            (429, &body("TOOMANYREQUESTS"), "other"),
        ];
        for (status, body, want) in cases {
            let err = classify(
                &target(),
                &Method::GET,
                &url,
                *status,
                None,
                body.as_bytes(),
                Tried(None),
            );
            let got = if err.is_not_found() {
                "not found"
            } else if err.is_auth() {
                "auth"
            } else {
                "other"
            };
            assert_eq!(got, *want, "{status} {body}: {err}");
        }
        let err = classify(
            &target(),
            &Method::GET,
            &url,
            404,
            None,
            body("NAME_UNKNOWN").as_bytes(),
            Tried(None),
        );
        assert_eq!(
            err.to_string(),
            "listing tags in example.com/a/b: not found (GET https://example.com/v2/a/b/tags/list: 404 Not Found, NAME_UNKNOWN)"
        );
    }
}
