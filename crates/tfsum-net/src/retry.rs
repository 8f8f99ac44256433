//! The retry policy, in one place: which failures are worth another attempt, and how
//! long to wait before it.
//!
//! Terraform retries registry JSON requests through go-retryablehttp (one retry by
//! default, spec §5.2), which retries connection errors, 429 and 5xx except 501, and
//! honours `Retry-After` on 429/503. tfsum fetches many more documents per run than one
//! `terraform init`, and a CI job failing on one flaky answer is costly, so it retries a
//! little more: every 5xx (a CDN in front of a registry answers 501/502/504 on bad days
//! too), 408, 429, connection failures, timeouts and bodies cut mid-stream. Other 4xx
//! answers are the server's final word and fail at once.
//!
//! JSON documents, SHA256SUMS and signatures are retried as whole requests by the
//! transport ([`crate::http::transport`]); a streamed zip download is retried as a whole
//! download-and-hash by [`crate::download`], because hashing must restart from the first
//! byte. Both go through the one loop here, [`retrying`].

use std::time::{Duration, SystemTime};

/// How many times to try and how long to wait in between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Total attempts including the first; 1 means no retries.
    pub max_attempts: u32,
    /// The wait before the first retry; doubled for each further one.
    pub base_delay: Duration,
    /// The longest computed backoff (before jitter).
    pub max_delay: Duration,
    /// The longest wait tfsum accepts from a server's `Retry-After`; longer requests are
    /// cut to this, so a misconfigured server cannot stall a run for an hour.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(10),
            max_retry_after: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `retry` (1 for the first retry), given the server's
    /// `Retry-After`, if any.
    ///
    /// A server's `Retry-After` wins (capped at `max_retry_after`); otherwise exponential
    /// backoff with "equal jitter": half the delay fixed, half random, so that parallel
    /// downloads that failed together do not come back together.
    pub fn delay_for(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.max_retry_after);
        }
        let exponent = retry.saturating_sub(1).min(30);
        let backoff = self
            .base_delay
            .saturating_mul(1u32 << exponent)
            .min(self.max_delay);
        let half = backoff / 2;
        half + half.mul_f64(fastrand::f64())
    }
}

/// Whether an HTTP status is worth retrying: 408 Request Timeout, 429 Too Many Requests
/// and every 5xx. Everything else (1xx/3xx that reached us, other 4xx) is final.
pub(crate) fn is_transient_status(status: u16) -> bool {
    matches!(status, 408 | 429 | 500..=599)
}

/// A failure the retry loop can judge: worth another attempt or not, and how long the
/// server asked to wait.
pub trait Retryable {
    fn is_transient(&self) -> bool;
    fn retry_after(&self) -> Option<Duration> {
        None
    }
}

/// The last error of [`retrying`] and how many attempts were made.
#[derive(Debug)]
pub struct GaveUp<E> {
    pub error: E,
    pub attempts: u32,
}

/// Runs `attempt` until it succeeds, fails permanently, or the policy's attempts are
/// used up. The one retry loop: JSON documents retry whole requests through it, and
/// streamed downloads retry a whole download-and-hash through it.
pub async fn retrying<T, E, F, Fut>(policy: &RetryPolicy, mut attempt: F) -> Result<T, GaveUp<E>>
where
    E: Retryable,
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
{
    let mut attempts = 0u32;
    loop {
        attempts += 1;
        match attempt().await {
            Ok(value) => return Ok(value),
            Err(error) if attempts < policy.max_attempts.max(1) && error.is_transient() => {
                tokio::time::sleep(policy.delay_for(attempts, error.retry_after())).await;
            }
            Err(error) => return Err(GaveUp { error, attempts }),
        }
    }
}

/// Parses a `Retry-After` value: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
/// A date in the past means "now". Garbage is ignored (normal backoff applies).
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_values() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let cases = [
            ("0", Some(0)),
            ("7", Some(7)),
            (" 12 ", Some(12)),
            ("Sun, 06 Nov 1994 08:49:57 GMT", Some(20)),
            ("Sun, 06 Nov 1994 08:00:00 GMT", Some(0)),
            ("soon", None),
            ("-1", None),
        ];
        for (value, want) in cases {
            assert_eq!(
                parse_retry_after(value, now),
                want.map(Duration::from_secs),
                "{value}"
            );
        }
    }

    #[test]
    fn delays_grow_cap_and_honour_retry_after() {
        let policy = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(800),
            max_retry_after: Duration::from_secs(30),
        };
        for (retry, full) in [(1, 100), (2, 200), (3, 400), (4, 800), (9, 800)] {
            let delay = policy.delay_for(retry, None);
            let full = Duration::from_millis(full);
            assert!(
                delay >= full / 2 && delay <= full,
                "retry {retry}: {delay:?}"
            );
        }
        assert_eq!(
            policy.delay_for(1, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(
            policy.delay_for(1, Some(Duration::from_secs(3600))),
            Duration::from_secs(30)
        );
    }
}
