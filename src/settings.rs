//! `.tfsum.toml`, the settings a developer's shell, a pre-commit hook, a Renovate task
//! and CI share, and how they combine with the environment and flags.
//!
//! The file is looked for in the working directory, then each parent, stopping after the
//! repository root (the first directory holding `.git`, a directory or a worktree's
//! file); without a repository the search goes up to the filesystem root. `--config
//! FILE` (or `TFSUM_CONFIG`) names a file instead; `--no-config` skips it.
//!
//! Precedence, lowest first: the file, `TFSUM_*` variables, flags. clap already folds
//! the variables into the flag values (see [`crate::cli`]), so [`LockSettings::resolve`]
//! only has to prefer a command-line value over the file's, and the file's over the
//! built-in default. A list given on the command line replaces the file's list.
//!
//! Every problem in the file is an error that names the file, the key and its line
//! (serde's `deny_unknown_fields` for unknown keys; values are validated while they are
//! deserialized, so `toml` can point at the offending value).

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Deserializer};

use crate::addr::Platform;
use crate::cli::{FlavorArg, LockArgs};
use crate::lockfile::Flavor;

/// The name of the config file.
pub const FILE_NAME: &str = ".tfsum.toml";

const DEFAULT_JOBS: usize = 8;
const DEFAULT_PER_HOST: usize = 6;
const DEFAULT_VERSIONS_TTL: u64 = 300;

/// The keys `.tfsum.toml` may hold; all optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSettings {
    /// `["linux_amd64", "darwin_arm64"]`
    #[serde(default, deserialize_with = "platforms")]
    pub platforms: Option<Vec<Platform>>,
    /// Regular expressions, as `--ignore-path`.
    #[serde(default, deserialize_with = "regexes")]
    pub ignore_paths: Option<Vec<regex::Regex>>,
    pub jobs: Option<NonZeroUsize>,
    pub per_host: Option<NonZeroUsize>,
    /// Relative to the directory holding the file.
    pub cache_dir: Option<PathBuf>,
    pub flavor: Option<FileFlavor>,
    /// Seconds.
    pub versions_ttl: Option<u64>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileFlavor {
    Terraform,
    Opentofu,
}

/// A config file that could not be used. The message names the key and line.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct SettingsError {
    pub path: PathBuf,
    pub message: String,
}

/// The file that was read (if any) and what it says.
#[derive(Debug, Default)]
pub struct Loaded {
    pub path: Option<PathBuf>,
    pub file: FileSettings,
}

/// The nearest `.tfsum.toml` from `start` up to the repository root.
pub fn find(start: &Path) -> Option<PathBuf> {
    for dir in start.ancestors() {
        let candidate = dir.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        if dir.join(".git").exists() {
            return None;
        }
    }
    None
}

/// Reads and validates one config file. A relative `cache_dir` becomes relative to
/// the file's directory, so the setting means the same wherever tfsum runs from.
pub fn load(path: &Path) -> Result<Loaded, SettingsError> {
    let error = |message: String| SettingsError {
        path: path.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
    let mut file: FileSettings =
        toml::from_str(&text).map_err(|e| error(e.to_string().trim_end().to_string()))?;
    if let Some(dir) = file.cache_dir.take() {
        let base = path.parent().unwrap_or(Path::new("."));
        file.cache_dir = Some(base.join(dir));
    }
    Ok(Loaded {
        path: Some(path.to_path_buf()),
        file,
    })
}

/// The file `lock` uses: `--config`/`TFSUM_CONFIG`, else the nearest one, unless
/// `--no-config`.
pub fn load_for(args: &LockArgs, cwd: &Path) -> Result<Loaded, SettingsError> {
    if args.no_config {
        return Ok(Loaded::default());
    }
    match args
        .config
        .as_ref()
        .map(|p| cwd.join(p))
        .or_else(|| find(cwd))
    {
        Some(path) => load(&path),
        None => Ok(Loaded::default()),
    }
}

/// The effective `lock` settings after layering file < environment < flags < defaults.
#[derive(Debug)]
pub struct LockSettings {
    /// Empty when nothing says which platforms: the caller picks this machine's.
    pub platforms: Vec<Platform>,
    pub ignore: Vec<regex::Regex>,
    pub jobs: usize,
    pub per_host: usize,
    /// `None`: the OS default.
    pub cache_dir: Option<PathBuf>,
    pub flavor: Option<Flavor>,
    pub versions_ttl: Duration,
}

impl LockSettings {
    /// Layers the command line (flags and `TFSUM_*`, already merged by clap) over the
    /// file. An invalid `--ignore-path` is an error message naming it.
    pub fn resolve(args: &LockArgs, file: FileSettings) -> Result<LockSettings, String> {
        let ignore = if args.ignore_paths.is_empty() {
            file.ignore_paths.unwrap_or_default()
        } else {
            args.ignore_paths
                .iter()
                .map(|p| {
                    regex::Regex::new(p).map_err(|e| format!("invalid --ignore-path {p:?}: {e}"))
                })
                .collect::<Result<_, _>>()?
        };
        let platforms = if args.platforms.is_empty() {
            file.platforms.unwrap_or_default()
        } else {
            args.platforms.clone()
        };
        let flavor = match args.flavor {
            Some(FlavorArg::Terraform) => Some(Flavor::Terraform),
            Some(FlavorArg::Opentofu) => Some(Flavor::OpenTofu),
            None => file.flavor.map(|f| match f {
                FileFlavor::Terraform => Flavor::Terraform,
                FileFlavor::Opentofu => Flavor::OpenTofu,
            }),
        };
        let positive = |value: Option<usize>, flag: &str| match value {
            Some(0) => Err(format!("{flag} must be at least 1")),
            other => Ok(other),
        };
        Ok(LockSettings {
            platforms,
            ignore,
            jobs: positive(args.jobs, "--jobs")?
                .or(file.jobs.map(NonZeroUsize::get))
                .unwrap_or(DEFAULT_JOBS),
            per_host: positive(args.per_host, "--per-host")?
                .or(file.per_host.map(NonZeroUsize::get))
                .unwrap_or(DEFAULT_PER_HOST),
            cache_dir: args.cache_dir.clone().or(file.cache_dir),
            flavor,
            versions_ttl: Duration::from_secs(
                args.versions_ttl
                    .or(file.versions_ttl)
                    .unwrap_or(DEFAULT_VERSIONS_TTL),
            ),
        })
    }
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
            ("jobs = 0", "jobs"),
            ("jobs = -1", "jobs"),
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
