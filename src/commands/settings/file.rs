//! The settings files: a repository's `.tfsum.toml`, which a developer's shell, a
//! pre-commit hook, a Renovate task and CI share, and the user's own
//! `<config dir>/tfsum/config.toml`.
//!
//! The repository file is looked for in the working directory, then each parent, stopping
//! after the repository root (the first directory holding `.git`, a directory or a
//! worktree's file); without a repository the search goes up to the filesystem root.
//! `--config FILE` (or `TFSUM_CONFIG`) names a file instead; `--no-config` skips it.
//!
//! A repository is untrusted input (tfsum runs on pull requests), so its file may choose
//! what to lock, never what to trust: `cache_dir` is refused there. Only the user's own
//! file, the environment or a flag may say where the hash cache is.
//!
//! Every problem in a file is an error that names the file, the key and its line
//! (serde's `deny_unknown_fields` for unknown keys; values are validated while they are
//! deserialized, so `toml` can point at the offending value).

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};

use tfsum_vocab::addr::Platform;

use super::SettingsError;

/// The name of the repository's settings file.
pub(crate) const FILE_NAME: &str = ".tfsum.toml";

/// The keys a settings file may hold; all optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileSettings {
    /// `["linux_amd64", "darwin_arm64"]`
    #[serde(default, deserialize_with = "platforms")]
    pub platforms: Option<Vec<Platform>>,
    /// Regular expressions, as `--ignore-path`.
    #[serde(default, deserialize_with = "regexes")]
    pub ignore_paths: Option<Vec<regex::Regex>>,
    #[serde(default, deserialize_with = "count")]
    pub jobs: Option<NonZeroUsize>,
    #[serde(default, deserialize_with = "count")]
    pub per_host: Option<NonZeroUsize>,
    /// Only in the user's file; relative to the directory holding it.
    pub cache_dir: Option<toml::Spanned<PathBuf>>,
    pub flavor: Option<FileFlavor>,
    /// Seconds.
    pub versions_ttl: Option<u64>,
    /// `false`: `tfsum lock` neither reads nor writes the configuration index.
    pub index: Option<bool>,
    /// Only in the user's file: the shared cache URL.
    pub shared_cache: Option<String>,
    /// Only in the user's file: public keys whose `h1:` entries are believed.
    pub shared_cache_trusted_keys: Option<Vec<String>>,
    /// Only in the user's file: plain `http://` beyond the loopback interface.
    pub shared_cache_allow_http: Option<bool>,
    /// Var files for the roots that match (module `source`/`version` expressions read
    /// their variables), `[[var_files]]` tables in order; paths relative to the file's
    /// directory, which [`load`] records in `var_files_base`.
    pub var_files: Option<Vec<VarFiles>>,
    #[serde(skip)]
    pub var_files_base: Option<PathBuf>,
}

/// Deserializes a settings file from `deserializer` and drops it: what the docs test
/// (`tests/it/docs.rs`) drives with a deserializer that records the keys serde asks for,
/// so the list of keys comes from these structs, never from a copy.
pub fn deserialize_settings<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
    FileSettings::deserialize(deserializer).map(drop)
}

/// One `[[var_files]]` table: `roots` is a regular expression over a root's path relative
/// to the settings file's directory (`/`-separated, `.` for that directory itself).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VarFiles {
    #[serde(deserialize_with = "regex")]
    pub roots: regex::Regex,
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FileFlavor {
    Terraform,
    Opentofu,
}

/// Whose file it is, which decides what it may set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// `.tfsum.toml` found in (or named for) the checkout: untrusted.
    Repository,
    /// `<config dir>/tfsum/config.toml`: the user's own.
    User,
}

impl FileSettings {
    /// Layers `self` (the repository's file) over `user` (the user's file): a key the
    /// repository sets wins, except `cache_dir`, which only the user's file may set.
    pub(crate) fn over(self, user: FileSettings) -> FileSettings {
        FileSettings {
            platforms: self.platforms.or(user.platforms),
            ignore_paths: self.ignore_paths.or(user.ignore_paths),
            jobs: self.jobs.or(user.jobs),
            per_host: self.per_host.or(user.per_host),
            cache_dir: user.cache_dir,
            flavor: self.flavor.or(user.flavor),
            versions_ttl: self.versions_ttl.or(user.versions_ttl),
            index: self.index.or(user.index),
            shared_cache: user.shared_cache,
            shared_cache_trusted_keys: user.shared_cache_trusted_keys,
            shared_cache_allow_http: user.shared_cache_allow_http,
            var_files: self.var_files.or(user.var_files),
            var_files_base: self.var_files_base.or(user.var_files_base),
        }
    }
}

/// The nearest `.tfsum.toml` from `start` up to the repository root.
pub(crate) fn find(start: &Path) -> Option<PathBuf> {
    let top = tfsum_disk::walk::repository_root(start);
    let start = tfsum_vocab::paths::normalize_path(&std::path::absolute(start).ok()?);
    for dir in start.ancestors() {
        let candidate = dir.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        if Some(dir) == top.as_deref() {
            return None;
        }
    }
    None
}

/// Where the user's own settings live: `$XDG_CONFIG_HOME/tfsum/config.toml` on Linux,
/// `~/Library/Application Support/tfsum/config.toml` on macOS, `%APPDATA%\tfsum\…`.
pub(crate) fn user_file(config_dir: Option<&Path>) -> Option<PathBuf> {
    Some(config_dir?.join("tfsum").join("config.toml"))
}

/// Reads and validates one settings file. A relative `cache_dir` in the user's file is
/// relative to that file's directory; in a repository's file it is refused.
pub(crate) fn load(path: &Path, origin: Origin) -> Result<FileSettings, SettingsError> {
    let error = |message: String| SettingsError::File {
        path: path.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
    let mut file: FileSettings =
        toml::from_str(&text).map_err(|e| error(e.to_string().trim_end().to_string()))?;
    if origin == Origin::Repository {
        refuse_shared_cache_keys(&file, &text, path)?;
    }
    if let Some(dir) = file.cache_dir.take() {
        if origin == Origin::Repository {
            let line = text[..dir.span().start.min(text.len())]
                .lines()
                .count()
                .max(1);
            return Err(SettingsError::CacheDirInRepository {
                path: path.to_path_buf(),
                line,
            });
        }
        let span = dir.span();
        let base = path.parent().unwrap_or(Path::new("."));
        file.cache_dir = Some(toml::Spanned::new(span, base.join(dir.into_inner())));
    }
    if file.var_files.is_some() {
        file.var_files_base = Some(path.parent().unwrap_or(Path::new(".")).to_path_buf());
    }
    Ok(file)
}

/// A repository's file naming the shared cache or its keys: refused, for the reason
/// `cache_dir` is (a checkout must not choose what its lock files are believed from).
fn refuse_shared_cache_keys(
    file: &FileSettings,
    text: &str,
    path: &Path,
) -> Result<(), SettingsError> {
    let set = [
        ("shared_cache", file.shared_cache.is_some()),
        (
            "shared_cache_trusted_keys",
            file.shared_cache_trusted_keys.is_some(),
        ),
        (
            "shared_cache_allow_http",
            file.shared_cache_allow_http.is_some(),
        ),
    ];
    let Some((key, _)) = set.into_iter().find(|(_, set)| *set) else {
        return Ok(());
    };
    let line = text
        .lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1);
    Err(SettingsError::SharedCacheInRepository {
        path: path.to_path_buf(),
        line,
        key,
    })
}

fn platforms<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Platform>>, D::Error> {
    let raw: Vec<String> = Vec::deserialize(d)?;
    raw.iter()
        .map(|s| {
            s.parse::<Platform>().map_err(|_| {
                serde::de::Error::custom(format!(
                    "invalid platform {s:?}: expected OS_ARCH, such as \"linux_amd64\""
                ))
            })
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

/// A whole number of at least 1, said in the file's terms rather than the type's.
fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<NonZeroUsize>, D::Error> {
    let n = i64::deserialize(d)?;
    usize::try_from(n)
        .ok()
        .and_then(NonZeroUsize::new)
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom(format!("{n}: must be at least 1")))
}

fn regexes<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<regex::Regex>>, D::Error> {
    let raw: Vec<String> = Vec::deserialize(d)?;
    raw.iter()
        .map(|s| {
            regex::Regex::new(s).map_err(|e| {
                serde::de::Error::custom(format!("invalid regular expression {s:?}: {e}"))
            })
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

fn regex<'de, D: Deserializer<'de>>(d: D) -> Result<regex::Regex, D::Error> {
    let raw = String::deserialize(d)?;
    regex::Regex::new(&raw)
        .map_err(|e| serde::de::Error::custom(format!("invalid regular expression {raw:?}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<FileSettings, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn every_key_parses() {
        let file = parse(
            r#"
platforms = ["linux_amd64", "darwin_arm64"]
ignore_paths = ["^examples/"]
jobs = 4
per_host = 2
cache_dir = "cache"
flavor = "opentofu"
versions_ttl = 60
"#,
        )
        .unwrap();
        let platforms: Vec<String> = file
            .platforms
            .unwrap()
            .iter()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(platforms, ["linux_amd64", "darwin_arm64"]);
        assert_eq!(file.jobs.map(NonZeroUsize::get), Some(4));
        assert_eq!(file.per_host.map(NonZeroUsize::get), Some(2));
        assert!(matches!(file.flavor, Some(FileFlavor::Opentofu)));
        assert_eq!(file.versions_ttl, Some(60));
    }

    /// Each bad file is refused with a message naming the key (and the reason).
    #[test]
    fn bad_files_name_the_key() {
        let cases = [
            ("platform = [\"linux_amd64\"]", "unknown field `platform`"),
            ("platforms = [\"linux\"]", "invalid platform \"linux\""),
            ("platforms = \"linux_amd64\"", "platforms"),
            ("ignore_paths = [\"(\"]", "invalid regular expression \"(\""),
            ("jobs = 0", "0: must be at least 1"),
            ("jobs = -1", "-1: must be at least 1"),
            ("per_host = 0", "0: must be at least 1"),
            ("flavor = \"tofu\"", "unknown variant `tofu`"),
            ("versions_ttl = \"5m\"", "versions_ttl"),
            ("[lock]\njobs = 1", "unknown field `lock`"),
        ];
        for (text, want) in cases {
            let err = parse(text).expect_err(text);
            assert!(err.contains(want), "{text:?}: {err}");
            assert!(err.contains("line 1"), "{text:?}: {err}");
        }
    }

    /// A repository's file may not choose the cache; the user's own file may, relative to
    /// itself.
    #[test]
    fn cache_dir_only_from_the_users_file() {
        let tmp = tempfile::TempDir::new().unwrap();
        let path = tmp.path().join(FILE_NAME);
        std::fs::write(&path, "jobs = 2\n\ncache_dir = \"planted\"\n").unwrap();
        let err = load(&path, Origin::Repository).unwrap_err().to_string();
        assert!(err.contains(&format!("{}:3", path.display())), "{err}");
        assert!(err.contains("TFSUM_CACHE_DIR"), "{err}");
        let user = load(&path, Origin::User).unwrap();
        assert_eq!(
            user.cache_dir.map(|d| d.into_inner()),
            Some(tmp.path().join("planted"))
        );
    }

    #[test]
    fn search_stops_at_the_repository_root() {
        let tmp = tempfile::TempDir::new().unwrap();
        let repo = tmp.path().join("repo");
        let deep = repo.join("envs/prod");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(tmp.path().join(FILE_NAME), "").unwrap();
        // Outside any repository the search goes up to the file above.
        assert_eq!(find(&deep), Some(tmp.path().join(FILE_NAME)));
        // A repository root bounds it.
        std::fs::create_dir(repo.join(".git")).unwrap();
        assert_eq!(find(&deep), None);
        std::fs::write(repo.join(FILE_NAME), "").unwrap();
        assert_eq!(find(&deep), Some(repo.join(FILE_NAME)));
        std::fs::write(deep.join(FILE_NAME), "").unwrap();
        assert_eq!(find(&deep), Some(deep.join(FILE_NAME)));
    }
}
