//! [`HttpError`]: every way an HTTP request can fail, as a value that says what tfsum
//! was doing, which URL it asked (without credentials), and what came back.
//!
//! Errors are `Clone` because a failed service discovery is cached and handed to every
//! caller that asks for the same host during the run (spec §5.1).

use std::fmt;
use std::time::Duration;

use url::Url;

use tfsum_vocab::addr::Hostname;
use tfsum_vocab::url::SafeUrl;

use crate::cliconfig::CredentialSource;
use crate::retry::Retryable;

/// What went wrong below HTTP. The kind decides whether a retry can help
/// ([`is_transient`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// The TCP or TLS connection could not be set up.
    Connect,
    /// No response, or no body bytes, within the configured time.
    Timeout,
    /// The response body broke off (reset, or fewer bytes than `Content-Length`).
    Body,
    /// The request failed on an established connection (closed before a response).
    Request,
    /// Too many redirects, or a redirect to an unusable location.
    Redirect,
    /// Anything else the HTTP stack reports; not retried.
    Other,
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TransportKind::Connect => "connection failed",
            TransportKind::Timeout => "timed out",
            TransportKind::Body => "response body interrupted",
            TransportKind::Request => "request failed",
            TransportKind::Redirect => "redirect failed",
            TransportKind::Other => "HTTP error",
        })
    }
}

/// An HTTP status with its reason phrase, for messages ("404 Not Found").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status(pub u16);

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reason = reqwest::StatusCode::from_u16(self.0)
            .ok()
            .and_then(|s| s.canonical_reason());
        match reason {
            Some(reason) => write!(f, "{} {reason}", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

/// Which credential, if any, went with a refused request; shown in 401/403 messages so
/// the user knows which token to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriedCredential(pub Option<CredentialSource>);

impl fmt::Display for TriedCredential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(source) => write!(f, "the token {source} was sent"),
            None => f.write_str(
                "no credentials are configured for this host (set TF_TOKEN_<host> or add a credentials block to the CLI configuration)",
            ),
        }
    }
}

/// Everything that can go wrong with one HTTP request: discovery, registry JSON, downloads.
///
/// `what` fields describe the operation ("listing versions of provider …") so the message
/// stands alone when shown at the top of the program.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HttpError {
    /// 401 or 403 from discovery or a registry endpoint (spec §5.2).
    #[error("{what}: host {host} refused the request (GET {url}: {status}); {credential}")]
    Unauthorized {
        what: String,
        host: Hostname,
        url: SafeUrl,
        status: Status,
        credential: TriedCredential,
    },

    /// Any other unexpected status. `retry_after` is the server's `Retry-After`, if any.
    #[error("{what}: GET {url}: unexpected HTTP status {status}")]
    Status {
        what: String,
        url: SafeUrl,
        status: Status,
        retry_after: Option<Duration>,
    },

    /// No HTTP status to speak of: connection, timeout, broken body.
    #[error("{what}: GET {url}: {kind}: {message}")]
    Transport {
        what: String,
        url: SafeUrl,
        kind: TransportKind,
        message: String,
    },

    /// A 200 response whose content tfsum cannot use.
    #[error("{what}: GET {url}: invalid response: {reason}")]
    InvalidResponse {
        what: String,
        url: SafeUrl,
        reason: String,
    },

    /// The body is larger than tfsum accepts for this kind of document.
    #[error("{what}: GET {url}: response body is larger than {limit} bytes")]
    TooLarge {
        what: String,
        url: SafeUrl,
        limit: usize,
    },

    /// A URL that cannot be used: a bad service URL, a bad scheme, a bad path segment.
    #[error("{what}: {reason}")]
    InvalidUrl { what: String, reason: String },

    /// The client itself could not be built (for example an unreadable extra root CA).
    #[error("cannot set up the HTTP client: {0}")]
    Setup(String),
}

impl HttpError {
    /// The HTTP status the server answered with, when there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            HttpError::Unauthorized { status, .. } | HttpError::Status { status, .. } => {
                Some(status.0)
            }
            _ => None,
        }
    }

    /// The URL the request went to (without credentials), when there was one.
    pub(crate) fn url(&self) -> Option<&SafeUrl> {
        match self {
            HttpError::Unauthorized { url, .. }
            | HttpError::Status { url, .. }
            | HttpError::Transport { url, .. }
            | HttpError::InvalidResponse { url, .. }
            | HttpError::TooLarge { url, .. } => Some(url),
            HttpError::InvalidUrl { .. } | HttpError::Setup(_) => None,
        }
    }

    /// Turns a reqwest failure into a transport error naming `url`, classified by kind.
    pub(crate) fn from_reqwest(what: &str, url: &Url, err: &reqwest::Error) -> HttpError {
        let kind = if err.is_timeout() {
            TransportKind::Timeout
        } else if err.is_connect() {
            TransportKind::Connect
        } else if err.is_redirect() {
            TransportKind::Redirect
        } else if err.is_body() || err.is_decode() {
            TransportKind::Body
        } else if err.is_request() {
            TransportKind::Request
        } else {
            TransportKind::Other
        };
        HttpError::Transport {
            what: what.to_string(),
            url: SafeUrl::new(url),
            kind,
            message: error_chain(err),
        }
    }
}

/// The error and its sources on one line; reqwest's top-level message alone ("error
/// sending request") does not say what happened. reqwest strips URLs from the messages
/// below, and credentials are never put into URLs by tfsum.
fn error_chain(err: &reqwest::Error) -> String {
    let without_url = format!("{}", WithoutUrl(err));
    let mut text = without_url;
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// reqwest's Display appends ` for url (…)`; the URL is printed by [`HttpError`]
/// already, in its safe form, so this drops it.
struct WithoutUrl<'a>(&'a reqwest::Error);

impl fmt::Display for WithoutUrl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let full = self.0.to_string();
        let shown = match full.find(" for url (") {
            Some(at) => &full[..at],
            None => full.as_str(),
        };
        f.write_str(shown)
    }
}

/// Whether another attempt might succeed where this one failed.
pub(crate) fn is_transient(err: &HttpError) -> bool {
    match err {
        HttpError::Status { status, .. } => crate::retry::is_transient_status(status.0),
        HttpError::Transport { kind, .. } => kind.is_transient(),
        _ => false,
    }
}

impl TransportKind {
    /// Whether another attempt might get through: a connection, a wait or a body that
    /// failed, not a redirect or an error of the client itself.
    pub(crate) fn is_transient(self) -> bool {
        match self {
            TransportKind::Connect
            | TransportKind::Timeout
            | TransportKind::Body
            | TransportKind::Request => true,
            TransportKind::Redirect | TransportKind::Other => false,
        }
    }
}

impl Retryable for HttpError {
    fn is_transient(&self) -> bool {
        is_transient(self)
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            HttpError::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status_error(status: u16, retry_after: Option<Duration>) -> HttpError {
        HttpError::Status {
            what: "test".to_string(),
            url: SafeUrl::new(&Url::parse("http://127.0.0.1/").unwrap()),
            status: Status(status),
            retry_after,
        }
    }

    /// Every status from 100 to 599, as ranges of equal behaviour (uv's retry test does
    /// the same against a mock server; the client tests check that the client really
    /// follows this classifier).
    #[test]
    fn status_classification_table() {
        let mut rows: Vec<(u16, u16, bool)> = Vec::new();
        for status in 100..=599u16 {
            let retried = is_transient(&status_error(status, None));
            match rows.last_mut() {
                Some((_, end, r)) if *r == retried && *end + 1 == status => *end = status,
                _ => rows.push((status, status, retried)),
            }
        }
        let table: Vec<String> = rows
            .iter()
            .map(|(start, end, retried)| {
                let what = if *retried { "retried" } else { "final" };
                if start == end {
                    format!("{start}: {what}")
                } else {
                    format!("{start}-{end}: {what}")
                }
            })
            .collect();
        assert_eq!(
            table,
            [
                "100-407: final",
                "408: retried",
                "409-428: final",
                "429: retried",
                "430-499: final",
                "500-599: retried",
            ]
        );
    }

    #[test]
    fn transport_classification() {
        let url = SafeUrl::new(&url::Url::parse("http://127.0.0.1/").unwrap());
        let cases = [
            (TransportKind::Connect, true),
            (TransportKind::Timeout, true),
            (TransportKind::Body, true),
            (TransportKind::Request, true),
            (TransportKind::Redirect, false),
            (TransportKind::Other, false),
        ];
        for (kind, want) in cases {
            let err = HttpError::Transport {
                what: "test".to_string(),
                url: url.clone(),
                kind,
                message: String::new(),
            };
            assert_eq!(is_transient(&err), want, "{kind:?}");
        }
    }

    #[test]
    fn status_shows_reason() {
        assert_eq!(Status(404).to_string(), "404 Not Found");
        assert_eq!(Status(599).to_string(), "599");
    }
}
