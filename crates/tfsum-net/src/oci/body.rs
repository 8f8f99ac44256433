//! Reading a registry response's body whole, never more than a limit: manifests, tag
//! lists, token answers, error bodies. (Blobs stream through
//! [`crate::oci::client`] instead, checked as they arrive.)

use bytes::{Bytes, BytesMut};

/// Why a body could not be read.
#[derive(Debug)]
pub(crate) enum BodyFault {
    /// More than the limit (announced by `Content-Length`, or counted).
    TooLarge { size: u64 },
    /// The connection failed while reading.
    Transport(reqwest::Error),
}

/// The body of `response`, refused as soon as it is known to exceed `limit`.
pub(crate) async fn read_capped(
    mut response: reqwest::Response,
    limit: u64,
) -> Result<Bytes, BodyFault> {
    if let Some(size) = announced_length(&response).filter(|n| *n > limit) {
        return Err(BodyFault::TooLarge { size });
    }
    let mut body = BytesMut::new();
    while let Some(chunk) = response.chunk().await.map_err(BodyFault::Transport)? {
        let size = body.len() as u64 + chunk.len() as u64;
        if size > limit {
            return Err(BodyFault::TooLarge { size });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// An error body, for its codes; whatever cannot be read is no body.
pub(crate) async fn error_body(response: reqwest::Response) -> Bytes {
    read_capped(response, super::error::MAX_ERROR_BODY as u64)
        .await
        .unwrap_or_default()
}

/// The `Content-Length` header as sent. (reqwest's `content_length()` is the body's
/// size hint, 0 for every answer to HEAD.)
pub(crate) fn announced_length(response: &reqwest::Response) -> Option<u64> {
    response
        .headers()
        .get(reqwest::header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}
