//! URLs as tfsum shows them: never with the credentials a URL can carry.

use std::fmt;

use url::Url;

/// A URL that prints without user name or password, so that error messages and logs
/// never carry credentials embedded in a URL. Boxed to keep the errors that hold one small.
#[derive(Clone, PartialEq, Eq)]
pub struct SafeUrl(Box<Url>);

impl SafeUrl {
    pub fn new(url: &Url) -> SafeUrl {
        SafeUrl(Box::new(url.clone()))
    }

    /// The URL itself, credentials included; for making requests, not for printing.
    pub fn url(&self) -> &Url {
        &self.0
    }
}

impl fmt::Display for SafeUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.username().is_empty() && self.0.password().is_none() {
            return f.write_str(self.0.as_str());
        }
        let mut shown = self.0.clone();
        // Both setters only fail for URLs that cannot carry credentials at all.
        let _ = shown.set_username("");
        let _ = shown.set_password(None);
        f.write_str(shown.as_str())
    }
}

impl fmt::Debug for SafeUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SafeUrl({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_url_hides_userinfo() {
        let url = Url::parse("https://alice:s3cret@example.com/path?q=1").unwrap();
        let safe = SafeUrl::new(&url);
        assert_eq!(safe.to_string(), "https://example.com/path?q=1");
        assert!(!format!("{safe:?}").contains("s3cret"));
        assert_eq!(safe.url(), &url);
    }
}
