//! What a registry's 401 asks for: the `WWW-Authenticate` challenges ([`Challenge`]) and
//! the token scopes of the distribution auth protocol ([`Scopes`]).
//!
//! Parsing follows ORAS-Go's `parseChallenge` (`registry/remote/auth/challenge.go:63-130`
//! at oras-go v2.6.2): RFC 7235 auth-params, tokens or quoted strings, schemes compared
//! case-insensitively. ORAS reads only the first challenge of the first header; this
//! reads every challenge of every header and the client answers the first Basic or
//! Bearer one, which is the same choice whenever ORAS can make one, and still works for
//! a registry that offers `Negotiate` first.
//!
//! Scopes are merged as ORAS's `CleanScopes` does (`registry/remote/auth/scope.go`):
//! one entry per resource, actions united and sorted, `*` absorbing the rest, the
//! entries sorted; the joined list is the token cache's key.

use std::collections::{BTreeMap, BTreeSet};

/// An authentication scheme the client can answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Scheme {
    Basic,
    Bearer,
}

impl Scheme {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Scheme::Basic => "Basic",
            Scheme::Bearer => "Bearer",
        }
    }
}

/// One challenge: a scheme the client knows, with its parameters (names lower-cased).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub scheme: Scheme,
    pub params: BTreeMap<String, String>,
}

impl Challenge {
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.params
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// The first Basic or Bearer challenge among all `WWW-Authenticate` values.
pub(crate) fn first_known<'a>(headers: impl IntoIterator<Item = &'a str>) -> Option<Challenge> {
    headers
        .into_iter()
        .flat_map(parse_all)
        .find_map(|(scheme, params)| {
            let scheme = if scheme.eq_ignore_ascii_case("basic") {
                Scheme::Basic
            } else if scheme.eq_ignore_ascii_case("bearer") {
                Scheme::Bearer
            } else {
                return None;
            };
            Some(Challenge { scheme, params })
        })
}

/// Every challenge of one header value: `scheme [token68 | param=value, …]`, challenges
/// and parameters both separated by commas. Parsing stops where the value breaks the
/// grammar (a parameter before any scheme, an unterminated quoted string).
pub(crate) fn parse_all(header: &str) -> Vec<(String, BTreeMap<String, String>)> {
    let mut found: Vec<(String, BTreeMap<String, String>)> = Vec::new();
    let mut rest = header;
    // Just after a scheme and a space: a token68 may follow instead of parameters.
    let mut after_scheme = false;
    loop {
        let trimmed = skip_separators(rest);
        if rest[..rest.len() - trimmed.len()].contains(',') {
            after_scheme = false;
        }
        rest = trimmed;
        let (name, after_name) = token(rest);
        if name.is_empty() {
            return found;
        }
        if let Some(value) = skip_space(after_name).strip_prefix('=') {
            let value = skip_space(value);
            let parsed = match value.strip_prefix('"') {
                Some(quoted) => quoted_string(quoted),
                None => {
                    let (token_value, after) = token(value);
                    (!token_value.is_empty()).then(|| (token_value.to_string(), after))
                }
            };
            match (parsed, found.last_mut()) {
                (Some((value, after)), Some((_, params))) => {
                    params.insert(name.to_ascii_lowercase(), value);
                    rest = after;
                }
                // `Basic dXNlcg==`: a token68 with its padding.
                (None, _) if after_scheme => rest = skip_past_comma(value),
                _ => return found,
            }
            after_scheme = false;
        } else if after_scheme {
            // A token68 (`Basic dXNlcjpwYXNz`); what follows a comma is the next challenge.
            rest = skip_past_comma(rest);
            after_scheme = false;
        } else {
            found.push((name.to_string(), BTreeMap::new()));
            rest = after_name;
            after_scheme = after_name.starts_with([' ', '\t']);
        }
    }
}

fn skip_past_comma(s: &str) -> &str {
    s.split_once(',').map_or("", |(_, rest)| rest)
}

/// RFC 7230 `tchar`.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn token(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !is_token_char(c)).unwrap_or(s.len());
    s.split_at(end)
}

fn skip_space(s: &str) -> &str {
    s.trim_start_matches([' ', '\t'])
}

fn skip_separators(s: &str) -> &str {
    s.trim_start_matches([' ', '\t', ','])
}

/// The rest of a quoted string after its opening `"`: the value with `\` escapes
/// removed, and what follows the closing quote.
fn quoted_string(s: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((value, &s[i + 1..])),
            '\\' => value.push(chars.next()?.1),
            c => value.push(c),
        }
    }
    None
}

/// A set of token scopes, `repository:<name>:<actions>` and the like, kept merged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct Scopes(BTreeSet<String>);

impl Scopes {
    /// `repository:<repository>:<actions>`.
    pub(crate) fn repository(repository: &str, actions: &[&str]) -> Scopes {
        let mut scopes = Scopes::default();
        scopes.add(&format!("repository:{repository}:{}", actions.join(",")));
        scopes
    }

    /// Adds the space-separated scopes of a challenge's `scope` parameter.
    pub(crate) fn add_all(&mut self, scopes: &str) {
        for scope in scopes.split(' ').filter(|s| !s.is_empty()) {
            self.add(scope);
        }
    }

    /// Adds one scope, merging its actions into an entry for the same resource.
    pub(crate) fn add(&mut self, scope: &str) {
        let Some((resource, actions)) = split_scope(scope) else {
            self.0.insert(scope.to_string());
            return;
        };
        let existing = self
            .0
            .iter()
            .find(|s| split_scope(s).is_some_and(|(r, _)| r == resource))
            .cloned();
        let old_actions = existing
            .as_deref()
            .and_then(split_scope)
            .map_or("", |(_, old)| old);
        let merged: BTreeSet<&str> = actions
            .split(',')
            .chain(old_actions.split(','))
            .filter(|a| !a.is_empty())
            .collect();
        if merged.is_empty() {
            return;
        }
        let actions = if merged.contains("*") {
            "*".to_string()
        } else {
            merged.into_iter().collect::<Vec<_>>().join(",")
        };
        let merged_scope = format!("{resource}:{actions}");
        if let Some(existing) = &existing {
            self.0.remove(existing);
        }
        self.0.insert(merged_scope);
    }

    pub(crate) fn merge(&mut self, other: &Scopes) {
        for scope in &other.0 {
            self.add(scope);
        }
    }

    /// The scopes in order, for `scope=` query parameters.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// The scopes joined by spaces: the OAuth2 `scope` field and the cache key.
    pub(crate) fn joined(&self) -> String {
        self.iter().collect::<Vec<_>>().join(" ")
    }
}

/// `type:name:actions` → (`type:name`, `actions`); a name may hold colons (a registry
/// with a port in some scope types), so the actions are after the last one.
fn split_scope(scope: &str) -> Option<(&str, &str)> {
    let (resource_type, _) = scope.split_once(':')?;
    let (resource, actions) = scope.rsplit_once(':')?;
    (resource.len() > resource_type.len()).then_some((resource, actions))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// Header values as registries send them, and what is read from each.
    #[test]
    fn challenge_table() {
        // A header value, and each challenge read from it: scheme and parameters.
        type Row = (
            &'static str,
            &'static [(&'static str, &'static [(&'static str, &'static str)])],
        );
        let cases: &[Row] = &[
            (
                r#"Basic realm="tfsum-test""#,
                &[("Basic", &[("realm", "tfsum-test")])],
            ),
            ("basic", &[("basic", &[])]),
            (
                r#"Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/alpine:pull""#,
                &[(
                    "Bearer",
                    &[
                        ("realm", "https://auth.docker.io/token"),
                        ("service", "registry.docker.io"),
                        ("scope", "repository:library/alpine:pull"),
                    ],
                )],
            ),
            (
                r#"BEARER Realm = "https://r/t" , Service=reg, scope="a:b:pull a:c:push""#,
                &[(
                    "BEARER",
                    &[
                        ("realm", "https://r/t"),
                        ("service", "reg"),
                        ("scope", "a:b:pull a:c:push"),
                    ],
                )],
            ),
            (
                r#"Bearer realm="with \"quotes\" and, comma""#,
                &[("Bearer", &[("realm", r#"with "quotes" and, comma"#)])],
            ),
            (
                r#"Negotiate, Basic realm="x", Bearer realm="https://t/""#,
                &[
                    ("Negotiate", &[]),
                    ("Basic", &[("realm", "x")]),
                    ("Bearer", &[("realm", "https://t/")]),
                ],
            ),
            (
                r#"Basic dXNlcjpwYXNz, Bearer realm="https://t/""#,
                &[("Basic", &[]), ("Bearer", &[("realm", "https://t/")])],
            ),
            (r#"Bearer realm="unterminated"#, &[("Bearer", &[])]),
            ("", &[]),
            ("  ,  ", &[]),
        ];
        for (header, want) in cases {
            let got = parse_all(header);
            let want: Vec<(String, BTreeMap<String, String>)> = want
                .iter()
                .map(|(scheme, p)| (scheme.to_string(), params(p)))
                .collect();
            assert_eq!(got, want, "{header}");
        }
    }

    #[test]
    fn first_known_challenge_wins() {
        let chosen = first_known([
            "Negotiate",
            r#"Bearer realm="https://t/",service=s, Basic realm="b""#,
        ])
        .unwrap();
        assert_eq!(chosen.scheme, Scheme::Bearer);
        assert_eq!(chosen.param("service"), Some("s"));
        assert_eq!(chosen.param("scope"), None);
        assert_eq!(first_known(["Digest realm=x", "Negotiate"]), None);
    }

    #[test]
    fn scopes_merge_as_oras_cleans_them() {
        let mut scopes = Scopes::repository("a/b", &["pull"]);
        scopes.add_all("repository:a/b:push repository:c:pull  registry:catalog:*");
        assert_eq!(
            scopes.joined(),
            "registry:catalog:* repository:a/b:pull,push repository:c:pull"
        );
        scopes.add("repository:a/b:*");
        scopes.add("repository:c:");
        scopes.add("odd");
        assert_eq!(
            scopes.joined(),
            "odd registry:catalog:* repository:a/b:* repository:c:pull"
        );
        let mut again = Scopes::repository("a/b", &["push", "pull", "pull"]);
        again.merge(&Scopes::repository("a/b", &["pull"]));
        assert_eq!(again.joined(), "repository:a/b:pull,push");
        assert_eq!(
            Scopes::repository("host:5000/x", &["pull"]).joined(),
            "repository:host:5000/x:pull"
        );
    }
}
