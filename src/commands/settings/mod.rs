//! Settings: flags, the environment and settings files, layered once into plain values
//! that the rest of tfsum runs on. Nothing outside this module reads flags or the
//! environment.
//!
//! Precedence, lowest first: the user's `config.toml`, the repository's `.tfsum.toml`,
//! `TFSUM_*` variables, flags, each replacing what the one before said (a list given
//! later replaces the earlier list). The cache directory is the exception: a repository
//! may not choose it ([`mod@file`]).
//!
//! - [`mod@file`]: the two settings files;
//! - [`mod@env`]: the process environment ([`Environment`]) and every variable tfsum reads;
//! - this file: one settings value per mode, each layered by its own function from its
//!   own flags (as ripgrep's `HiArgs`, never a fabricated set of another mode's flags):
//!   [`LockSettings`] ([`lock`]), [`VerifySettings`] ([`verify`]), [`MirrorSettings`]
//!   ([`mirror`]), [`UpgradeSettings`] ([`upgrade`]) and [`OutdatedSettings`]
//!   ([`outdated`]). What they share, where packages come from and how they are fetched
//!   and cached, is [`SourceSettings`], layered by the same code for all of them.
//!
//! [`SourceSettings`] also knows how to make what a run needs: the hash cache, the
//! registry client, the package sources ([`build::Services`] builds them from it).

mod build;
pub(crate) mod env;
pub(crate) mod file;
pub(crate) mod shared;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::commands::cli::{
    FlavorArg, Format, GivenValue, LayoutArg, LockArgs, MirrorArgs, MirrorFormat, OutdatedArgs,
    SourceArgs, UpgradeOptions, ValueArgs, VerifyArgs,
};
use tfsum_config::early::{AssignedFiles, CliValue, ValueInputs};
use tfsum_disk::provider_dir::Layout;
use tfsum_net::http::HttpConfig;
use tfsum_net::oci::OciOptions;
use tfsum_sources::oci::RepositoryTemplate;
use tfsum_vocab::addr::Platform;
use tfsum_vocab::hash::ZipLimits;
use tfsum_vocab::lockfile::Flavor;

pub(crate) use build::Services;
pub(crate) use build::SetupError;
pub(crate) use env::Environment;
pub(crate) use file::{FileSettings, Origin, FILE_NAME};

const DEFAULT_JOBS: usize = 8;
const DEFAULT_PER_HOST: usize = 6;
const DEFAULT_VERSIONS_TTL: u64 = 300;

/// Settings that cannot be used. Each names the file and line, the variable or the flag.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SettingsError {
    #[error("{}: {message}", path.display())]
    File { path: PathBuf, message: String },
    #[error(
        "{}:{line}: cache_dir cannot be set in a repository's {FILE_NAME}: a checkout could point tfsum at a cache of hashes it planted; set it with --cache-dir, TFSUM_CACHE_DIR or cache_dir in your own {}",
        path.display(),
        "<config dir>/tfsum/config.toml"
    )]
    CacheDirInRepository { path: PathBuf, line: usize },
    #[error(
        "{}:{line}: {key} cannot be set in a repository's {FILE_NAME}: a checkout must not choose the shared cache or whose entries are believed; set it with --shared-cache or the TFSUM_SHARED_CACHE* variables, or in your own {}",
        path.display(),
        "<config dir>/tfsum/config.toml"
    )]
    SharedCacheInRepository {
        path: PathBuf,
        line: usize,
        key: &'static str,
    },
    #[error("{name}={value:?} is not {what}")]
    Env {
        name: String,
        value: String,
        what: String,
    },
    #[error("{0}")]
    Flag(String),
}

impl SettingsError {
    fn env(name: &str, value: &str, what: &str) -> SettingsError {
        SettingsError::Env {
            name: name.to_string(),
            value: value.to_string(),
            what: what.to_string(),
        }
    }
}

/// Where provider packages come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PackageSource {
    /// Each provider's origin registry (`terraform providers lock` without flags).
    Registry,
    /// `--fs-mirror DIR`
    FsMirror(PathBuf),
    /// `--net-mirror URL`
    NetMirror(String),
    /// `--use-cli-config-installation`: the CLI configuration's `provider_installation`.
    CliConfig,
    /// `--oci-mirror TEMPLATE`: an OpenTofu OCI registry mirror.
    OciMirror(RepositoryTemplate),
}

/// Everything `tfsum lock` runs on, resolved and validated.
#[derive(Debug)]
pub(crate) struct LockSettings {
    /// Directories (or, in changed-files mode, files) to lock; `.` when none were given.
    pub paths: Vec<PathBuf>,
    pub recursive: bool,
    /// Lock again what failed in the last run from `cwd` (the paths come from its record).
    pub retry_failed: bool,
    /// The directory tfsum runs in: relative paths and the run record are relative to it.
    pub cwd: PathBuf,
    /// Sorted, deduplicated; this machine's platform when nothing else says.
    pub platforms: Vec<Platform>,
    /// True when `platforms` is this machine's because nothing said which.
    pub platforms_defaulted: bool,
    pub ignore: Vec<regex::Regex>,
    pub upgrade: bool,
    pub check: bool,
    /// Exit 1 when a lock file was created or updated (`--fail-on-write`).
    pub fail_on_write: bool,
    pub format: Format,
    pub sources: SourceSettings,
    /// Where module `source`/`version` expressions take their variables' values.
    pub values: ValueInputs,
    /// `--mirror DIR`: also fill this provider directory.
    pub mirror: Option<PathBuf>,
    /// Read and keep the configuration index (`tfsum_disk::index`); false with
    /// `--no-index`, `TFSUM_INDEX=false` or `index = false`.
    pub index: bool,
    /// Testing only (`TFSUM_TEST_WRITE_DELAY_MS`).
    pub write_delay: Duration,
}

/// Everything `tfsum verify` runs on, resolved and validated.
#[derive(Debug)]
pub(crate) struct VerifySettings {
    /// Lock files, or directories holding one; `.` when none were given.
    pub paths: Vec<PathBuf>,
    /// Search the directories for every lock file below them.
    pub recursive: bool,
    pub format: Format,
    pub sources: SourceSettings,
}

/// Where `tfsum mirror` puts the packages.
#[derive(Debug)]
pub(crate) enum MirrorTarget {
    /// A provider directory, in one of Terraform's layouts.
    Dir { dir: PathBuf, layout: Layout },
    /// An OCI registry, repositories named by the template (`oci://HOST/PREFIX`
    /// becomes `HOST/PREFIX/{namespace}/{type}`).
    Oci(RepositoryTemplate),
}

/// Everything `tfsum mirror` runs on, resolved and validated.
#[derive(Debug)]
pub(crate) struct MirrorSettings {
    /// Where the packages go.
    pub target: MirrorTarget,
    /// Where to write a CLI configuration that installs from `dir`.
    pub cli_config: Option<PathBuf>,
    /// Root module directories, or directories to search; `.` when none were given.
    pub paths: Vec<PathBuf>,
    pub recursive: bool,
    /// Sorted, deduplicated: the flag's, else this machine's alone (a machine fills
    /// its own directory; the team's lock platforms are for lock files).
    pub platforms: Vec<Platform>,
    pub ignore: Vec<regex::Regex>,
    pub format: MirrorFormat,
    pub sources: SourceSettings,
    /// Where module `source`/`version` expressions take their variables' values.
    pub values: ValueInputs,
}

/// Everything `tfsum upgrade` runs on besides what it moves (`commands::upgrade::Request`):
/// where to search and edit, and the relock's platforms.
#[derive(Debug)]
pub(crate) struct UpgradeSettings {
    /// Directories to search, or configuration files; `.` when none were given.
    pub paths: Vec<PathBuf>,
    pub recursive: bool,
    pub ignore: Vec<regex::Regex>,
    /// Write nothing; exit 1 when a constraint or a lock file would change.
    pub check: bool,
    pub format: Format,
    /// The relock's platforms: sorted, deduplicated; this machine's when nothing says.
    pub platforms: Vec<Platform>,
    /// True when `platforms` is this machine's because nothing said which.
    pub platforms_defaulted: bool,
    pub sources: SourceSettings,
    /// Where module `source`/`version` expressions take their variables' values.
    pub values: ValueInputs,
    /// Testing only (`TFSUM_TEST_WRITE_DELAY_MS`).
    pub write_delay: Duration,
}

/// Everything `tfsum outdated` runs on, resolved and validated.
#[derive(Debug)]
pub(crate) struct OutdatedSettings {
    /// Root module directories, or directories to search; `.` when none were given.
    pub paths: Vec<PathBuf>,
    pub recursive: bool,
    pub ignore: Vec<regex::Regex>,
    pub format: Format,
    /// Exit 1 when something is behind its newest published version.
    pub exit_code: bool,
    pub sources: SourceSettings,
    /// Where module `source`/`version` expressions take their variables' values.
    pub values: ValueInputs,
}

/// Where provider packages come from and how they are fetched and cached: what every
/// mode that reaches a package source shares.
#[derive(Debug)]
pub(crate) struct SourceSettings {
    pub offline: bool,
    /// The tool whose CLI configuration is read and whose registry a provider pattern
    /// without a hostname means (`--flavor`, `TFSUM_FLAVOR`, `flavor` in a settings
    /// file); `lock` also forces every root's flavor with it. `None`: Terraform's
    /// configuration, and each root's flavor detected.
    pub flavor: Option<Flavor>,
    /// Concurrent package downloads.
    pub jobs: usize,
    /// The hash cache; `None` when there is no cache directory at all.
    pub cache_dir: Option<PathBuf>,
    /// `--no-cache`: the cache is neither read nor written (the run record still lives
    /// in `cache_dir`).
    pub use_cache: bool,
    pub versions_ttl: Duration,
    pub http: HttpConfig,
    pub zip_limits: ZipLimits,
    pub packages: PackageSource,
    /// The environment the CLI configuration is read with.
    pub environment: Environment,
    /// How the OCI client behaves beyond the HTTP settings.
    pub oci: OciOptions,
    /// The settings files that were read, for `-v`.
    pub files: Vec<PathBuf>,
    /// The organisation's shared cache, if the user named one.
    pub shared: Option<shared::SharedSettings>,
}

/// Layers `args`, `environment` and the settings files into the settings of one
/// `tfsum lock` run in `cwd`.
pub(crate) fn lock(
    args: &LockArgs,
    environment: &Environment,
    cwd: &Path,
) -> Result<LockSettings, SettingsError> {
    let (file, files) = read_files(&args.sources, environment, cwd)?;
    let env = environment;
    let (platforms, platforms_defaulted) = platforms(&args.platforms.platforms, env, &file)?;
    Ok(LockSettings {
        paths: paths_or_here(&args.paths),
        recursive: args.recursive,
        retry_failed: args.retry_failed,
        cwd: cwd.to_path_buf(),
        platforms,
        platforms_defaulted,
        ignore: ignore(&args.roots.ignore_paths, &file)?,
        upgrade: args.upgrade,
        check: args.check,
        fail_on_write: args.fail_on_write,
        format: args.format,
        sources: sources(&args.sources, args.roots.flavor, &file, files, env, cwd)?,
        values: values(&args.values, &file, env, cwd),
        mirror: args.mirror.as_ref().map(|dir| cwd.join(dir)),
        index: !args.no_index
            && env
                .flag::<bool>("TFSUM_INDEX", "true or false")?
                .or(file.index)
                .unwrap_or(true),
        write_delay: env.write_delay()?,
    })
}

/// Layers `args`, `environment` and the settings files into the settings of one
/// `tfsum verify` run in `cwd`: the package sources as `lock` would build them.
pub(crate) fn verify(
    args: &VerifyArgs,
    environment: &Environment,
    cwd: &Path,
) -> Result<VerifySettings, SettingsError> {
    let (file, files) = read_files(&args.sources, environment, cwd)?;
    Ok(VerifySettings {
        paths: paths_or_here(&args.paths),
        recursive: args.recursive,
        format: args.format,
        sources: sources(&args.sources, None, &file, files, environment, cwd)?,
    })
}

/// Layers `args`, `environment` and the settings files into the settings of one
/// `tfsum mirror` run in `cwd`: the root finding and package sources of `lock`.
pub(crate) fn mirror(
    args: &MirrorArgs,
    environment: &Environment,
    cwd: &Path,
) -> Result<MirrorSettings, SettingsError> {
    let (file, files) = read_files(&args.sources, environment, cwd)?;
    let env = environment;
    let mut platforms = args.platforms.platforms.clone();
    if platforms.is_empty() {
        platforms.push(Platform::current());
    }
    platforms.sort();
    platforms.dedup();
    Ok(MirrorSettings {
        target: mirror_target(&args.dir, args.layout, cwd)?,
        cli_config: args.cli_config.as_ref().map(|f| cwd.join(f)),
        paths: paths_or_here(&args.paths),
        recursive: args.recursive,
        platforms,
        ignore: ignore(&args.roots.ignore_paths, &file)?,
        format: args.format,
        sources: sources(&args.sources, args.roots.flavor, &file, files, env, cwd)?,
        values: values(&args.values, &file, environment, cwd),
    })
}

/// Layers `options`, `environment` and the settings files into the settings of one
/// `tfsum upgrade` run over `paths` in `cwd`: the root finding, platforms and package
/// sources of `lock`.
pub(crate) fn upgrade(
    options: &UpgradeOptions,
    paths: &[PathBuf],
    environment: &Environment,
    cwd: &Path,
) -> Result<UpgradeSettings, SettingsError> {
    let (file, files) = read_files(&options.sources, environment, cwd)?;
    let (env, roots) = (environment, &options.roots);
    let (platforms, platforms_defaulted) = platforms(&options.platforms.platforms, env, &file)?;
    Ok(UpgradeSettings {
        paths: paths_or_here(paths),
        recursive: options.recursive,
        ignore: ignore(&roots.ignore_paths, &file)?,
        check: options.check,
        format: options.format,
        platforms,
        platforms_defaulted,
        sources: sources(&options.sources, roots.flavor, &file, files, env, cwd)?,
        values: values(&options.values, &file, env, cwd),
        write_delay: env.write_delay()?,
    })
}

/// Layers `args`, `environment` and the settings files into the settings of one
/// `tfsum outdated` run in `cwd`: the root finding and package sources of `lock`.
pub(crate) fn outdated(
    args: &OutdatedArgs,
    environment: &Environment,
    cwd: &Path,
) -> Result<OutdatedSettings, SettingsError> {
    let (file, files) = read_files(&args.sources, environment, cwd)?;
    let env = environment;
    Ok(OutdatedSettings {
        paths: paths_or_here(&args.paths),
        recursive: args.recursive,
        ignore: ignore(&args.roots.ignore_paths, &file)?,
        format: args.format,
        exit_code: args.exit_code,
        sources: sources(&args.sources, args.roots.flavor, &file, files, env, cwd)?,
        values: values(&args.values, &file, environment, cwd),
    })
}

/// Where `tfsum mirror` puts packages: `DIR` in a Terraform layout, or with `--layout
/// oci` (which an `oci://` target implies) the registry it names.
fn mirror_target(
    dir: &Path,
    layout: Option<LayoutArg>,
    cwd: &Path,
) -> Result<MirrorTarget, SettingsError> {
    let oci = dir.to_str().and_then(|d| d.strip_prefix("oci://"));
    match (layout, oci) {
        (Some(LayoutArg::Oci) | None, Some(rest)) => {
            let text = if rest.contains('{') {
                rest.trim_end_matches('/').to_string()
            } else {
                format!("{}/{{namespace}}/{{type}}", rest.trim_end_matches('/'))
            };
            let template = RepositoryTemplate::uri(&text)
                .map_err(|e| SettingsError::Flag(format!("{}: {e}", dir.display())))?;
            Ok(MirrorTarget::Oci(template))
        }
        (Some(LayoutArg::Oci), None) => Err(SettingsError::Flag(format!(
            "--layout oci pushes to an OCI registry: name it as oci://HOST/PREFIX, not {}",
            dir.display()
        ))),
        (Some(layout), Some(_)) => Err(SettingsError::Flag(format!(
            "{} is an OCI registry: it takes --layout oci, not --layout {}",
            dir.display(),
            match layout {
                LayoutArg::Packed => "packed",
                _ => "unpacked",
            }
        ))),
        (layout, None) => Ok(MirrorTarget::Dir {
            dir: cwd.join(dir),
            layout: match layout {
                Some(LayoutArg::Packed) => Layout::Packed,
                _ => Layout::Unpacked,
            },
        }),
    }
}

fn paths_or_here(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    }
}

/// The package-source settings from their flags (`flavor`: the mode's `--flavor`, which
/// `verify` has not), the environment and the settings file.
fn sources(
    args: &SourceArgs,
    flavor_flag: Option<FlavorArg>,
    file: &FileSettings,
    files: Vec<PathBuf>,
    env: &Environment,
    cwd: &Path,
) -> Result<SourceSettings, SettingsError> {
    let jobs = count(args.jobs, "--jobs", env, "TFSUM_JOBS")?
        .or(file.jobs.map(|n| n.get()))
        .unwrap_or(DEFAULT_JOBS);
    let per_host = count(args.per_host, "--per-host", env, "TFSUM_PER_HOST")?
        .or(file.per_host.map(|n| n.get()))
        .unwrap_or(DEFAULT_PER_HOST);
    let versions_ttl = match args.versions_ttl {
        Some(v) => Some(v),
        None => env.flag::<u64>("TFSUM_VERSIONS_TTL", "a number of seconds")?,
    }
    .or(file.versions_ttl)
    .unwrap_or(DEFAULT_VERSIONS_TTL);
    let cache_dir = args
        .cache_dir
        .clone()
        .or_else(|| env.var("TFSUM_CACHE_DIR").map(PathBuf::from))
        .or_else(|| file.cache_dir.clone().map(|d| d.into_inner()))
        .or_else(|| env.default_cache_dir())
        .map(|dir| cwd.join(dir));
    Ok(SourceSettings {
        offline: args.offline,
        flavor: flavor(flavor_flag, env, file)?,
        jobs,
        cache_dir,
        use_cache: !args.no_cache,
        versions_ttl: Duration::from_secs(versions_ttl),
        http: env.http(per_host)?,
        zip_limits: env.zip_limits()?,
        packages: package_source(args)?,
        environment: env.clone(),
        oci: env.oci_options()?,
        files,
        shared: shared::settings(args, file, env)?,
    })
}

/// The platforms (sorted, deduplicated), and whether they are this machine's because
/// nothing said which.
fn platforms(
    given: &[Platform],
    env: &Environment,
    file: &FileSettings,
) -> Result<(Vec<Platform>, bool), SettingsError> {
    let mut platforms = if !given.is_empty() {
        given.to_vec()
    } else if let Some(list) = env.var("TFSUM_PLATFORMS") {
        parse_platforms(list)?
    } else {
        file.platforms.clone().unwrap_or_default()
    };
    let defaulted = platforms.is_empty();
    if defaulted {
        platforms.push(Platform::current());
    }
    platforms.sort();
    platforms.dedup();
    Ok((platforms, defaulted))
}

fn ignore(given: &[String], file: &FileSettings) -> Result<Vec<regex::Regex>, SettingsError> {
    if given.is_empty() {
        return Ok(file.ignore_paths.clone().unwrap_or_default());
    }
    given
        .iter()
        .map(|p| {
            regex::Regex::new(p)
                .map_err(|e| SettingsError::Flag(format!("invalid --ignore-path {p:?}: {e}")))
        })
        .collect()
}

fn flavor(
    flag: Option<FlavorArg>,
    env: &Environment,
    file: &FileSettings,
) -> Result<Option<Flavor>, SettingsError> {
    let given = match (flag, env.var("TFSUM_FLAVOR")) {
        (Some(FlavorArg::Terraform), _) | (None, Some("terraform")) => Some(Flavor::Terraform),
        (Some(FlavorArg::Opentofu), _) | (None, Some("opentofu")) => Some(Flavor::OpenTofu),
        (None, Some(other)) => {
            return Err(SettingsError::env(
                "TFSUM_FLAVOR",
                other,
                "terraform or opentofu",
            ))
        }
        (None, None) => None,
    };
    Ok(given.or(file.flavor.map(|f| match f {
        file::FileFlavor::Terraform => Flavor::Terraform,
        file::FileFlavor::Opentofu => Flavor::OpenTofu,
    })))
}

/// A count given by `flag` (named `name`), else by the variable `var`: at least 1.
fn count(
    flag: Option<usize>,
    name: &str,
    env: &Environment,
    var: &str,
) -> Result<Option<usize>, SettingsError> {
    if flag.is_some() {
        return match flag {
            Some(0) => Err(SettingsError::Flag(format!("{name} must be at least 1"))),
            other => Ok(other),
        };
    }
    match env.flag(var, "a whole number")? {
        Some(0) => Err(SettingsError::Flag(format!(
            "{var}=0: must be at least 1 (the same as {name})"
        ))),
        other => Ok(other),
    }
}

/// The user's file layered under the repository's (unless `--no-config`), and the paths
/// that were read.
fn read_files(
    args: &SourceArgs,
    env: &Environment,
    cwd: &Path,
) -> Result<(FileSettings, Vec<PathBuf>), SettingsError> {
    let mut files = Vec::new();
    let user = match file::user_file(env.config_dir()).filter(|p| p.is_file()) {
        Some(path) => {
            files.push(path.clone());
            file::load(&path, Origin::User)?
        }
        None => FileSettings::default(),
    };
    if args.no_config {
        return Ok((user, files));
    }
    let named = args
        .config
        .clone()
        .or_else(|| env.var("TFSUM_CONFIG").map(PathBuf::from));
    let repository = match named.map(|p| cwd.join(p)).or_else(|| file::find(cwd)) {
        Some(path) => {
            files.push(path.clone());
            file::load(&path, Origin::Repository)?
        }
        None => FileSettings::default(),
    };
    Ok((repository.over(user), files))
}

/// Where variables take their values: `TF_VAR_*` and `TF_WORKSPACE` from the
/// environment, the settings files' `[[var_files]]`, and `--var`/`--var-file` in
/// command-line order (relative to `cwd`). The trees the configuration may read are the
/// run's, filled in when they are known (`commands::lock::Targets::load_options`).
fn values(args: &ValueArgs, file: &FileSettings, env: &Environment, cwd: &Path) -> ValueInputs {
    let assigned = match (&file.var_files, &file.var_files_base) {
        (Some(list), Some(base)) => list
            .iter()
            .map(|entry| AssignedFiles {
                base: base.clone(),
                pattern: entry.roots.clone(),
                files: entry.files.clone(),
                origin: base.join(FILE_NAME).display().to_string(),
            })
            .collect(),
        _ => Vec::new(),
    };
    let cli = args
        .ordered
        .iter()
        .map(|given| match given {
            GivenValue::Var(name, value) => CliValue::Var {
                name: name.clone(),
                value: value.clone(),
            },
            GivenValue::File(path) => CliValue::File(cwd.join(path)),
        })
        .collect();
    ValueInputs {
        env: env.terraform_variables(),
        cli,
        assigned,
        workspace: env.var("TF_WORKSPACE").map(str::to_string),
        readable: Vec::new(),
    }
}

fn parse_platforms(list: &str) -> Result<Vec<Platform>, SettingsError> {
    list.split(',')
        .map(|p| {
            p.trim()
                .parse()
                .map_err(|_| SettingsError::env("TFSUM_PLATFORMS", list, "a list of OS_ARCH"))
        })
        .collect()
}

fn package_source(args: &SourceArgs) -> Result<PackageSource, SettingsError> {
    Ok(if let Some(dir) = &args.fs_mirror {
        PackageSource::FsMirror(dir.clone())
    } else if let Some(url) = &args.net_mirror {
        PackageSource::NetMirror(url.clone())
    } else if let Some(template) = &args.oci_mirror {
        let template = RepositoryTemplate::uri(template)
            .map_err(|e| SettingsError::Flag(format!("--oci-mirror: {e}")))?;
        PackageSource::OciMirror(template)
    } else if args.use_cli_config_installation {
        PackageSource::CliConfig
    } else {
        PackageSource::Registry
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    /// `tfsum COMMAND FLAGS…` as clap parses it.
    fn parse(command: &str, flags: &[&str]) -> crate::commands::cli::Command {
        let mut argv = vec!["tfsum", command];
        argv.extend_from_slice(flags);
        crate::commands::cli::Cli::try_parse_from(argv)
            .unwrap()
            .command
    }

    fn verify_args(flags: &[&str]) -> VerifyArgs {
        match parse("verify", flags) {
            crate::commands::cli::Command::Verify(args) => args,
            other => panic!("not verify: {other:?}"),
        }
    }

    /// `verify` layers the package-source settings exactly as `lock` does, from the same
    /// files, variables and flags, and reads nothing only `lock` uses: a bad
    /// `TFSUM_PLATFORMS` is no error for it.
    #[test]
    fn verify_shares_the_source_settings_of_lock() {
        let tmp = tempfile::TempDir::new().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::write(
            repo.join(FILE_NAME),
            "jobs = 3
flavor = \"opentofu\"\n",
        )
        .unwrap();
        let env = Environment::from_vars([
            ("HOME", tmp.path().to_str().unwrap()),
            ("TFSUM_PER_HOST", "2"),
            ("TFSUM_MAX_PACKAGE_ENTRIES", "7"),
        ]);
        let flags = ["--fs-mirror=m", "--versions-ttl=9", "--cache-dir=c"];
        let locked = lock(&lock_args(&flags), &env, &repo).unwrap().sources;
        let verified = verify(&verify_args(&flags), &env, &repo).unwrap();
        assert_eq!(verified.paths, [PathBuf::from(".")]);
        let verified = verified.sources;
        assert_eq!(verified.jobs, 3);
        assert_eq!(verified.http.per_host, 2);
        assert_eq!(verified.zip_limits.max_entries, 7);
        assert_eq!(verified.flavor, Some(Flavor::OpenTofu));
        assert_eq!(
            verified.packages,
            PackageSource::FsMirror(PathBuf::from("m"))
        );
        assert_eq!(verified.versions_ttl, Duration::from_secs(9));
        assert_eq!(verified.cache_dir, Some(repo.join("c")));
        assert_eq!(format!("{verified:?}"), format!("{locked:?}"));

        let mut vars = vec![("HOME", tmp.path().to_str().unwrap())];
        vars.push(("TFSUM_PLATFORMS", "nonsense"));
        let env = Environment::from_vars(vars);
        assert!(lock(&lock_args(&[]), &env, &repo).is_err());
        assert!(verify(&verify_args(&[]), &env, &repo).is_ok());
    }

    /// `outdated`, `upgrade` and `mirror` layer the package-source settings as `lock`
    /// does, each from its own flags; `outdated` reads no platform, so a bad
    /// `TFSUM_PLATFORMS` is no error for it, while `upgrade` relocks for the platforms
    /// `lock` would.
    #[test]
    fn every_mode_shares_the_source_settings_of_lock() {
        use crate::commands::cli::{Command, UpgradeCommand};
        let tmp = tempfile::TempDir::new().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::write(
            repo.join(FILE_NAME),
            "jobs = 3\nplatforms = [\"linux_arm64\"]\n",
        )
        .unwrap();
        let home = tmp.path().to_str().unwrap();
        let env = Environment::from_vars([("HOME", home), ("TFSUM_PER_HOST", "2")]);
        let flags = ["--flavor=opentofu", "--net-mirror=https://m/", "-i", "^x/"];
        let locked = lock(&lock_args(&flags), &env, &repo).unwrap();
        let outdated_args = match parse("outdated", &flags) {
            Command::Outdated(args) => args,
            other => panic!("not outdated: {other:?}"),
        };
        let mut upgrade_flags = vec!["provider", "aws", "~> 6.0"];
        upgrade_flags.extend_from_slice(&flags);
        let options = match parse("upgrade", &upgrade_flags) {
            Command::Upgrade(UpgradeCommand::Provider(args)) => args.options,
            other => panic!("not upgrade provider: {other:?}"),
        };
        let mut mirror_flags = vec!["dir"];
        mirror_flags.extend_from_slice(&flags);
        let mirror_args = match parse("mirror", &mirror_flags) {
            Command::Mirror(args) => args,
            other => panic!("not mirror: {other:?}"),
        };
        let behind = outdated(&outdated_args, &env, &repo).unwrap();
        let upgraded = upgrade(&options, &[], &env, &repo).unwrap();
        let mirrored = mirror(&mirror_args, &env, &repo).unwrap();
        let want = format!("{:?}", locked.sources);
        assert_eq!(format!("{:?}", behind.sources), want);
        assert_eq!(format!("{:?}", upgraded.sources), want);
        assert_eq!(format!("{:?}", mirrored.sources), want);
        assert_eq!(locked.sources.flavor, Some(Flavor::OpenTofu));
        assert_eq!(behind.paths, [PathBuf::from(".")]);
        assert_eq!(upgraded.paths, [PathBuf::from(".")]);
        assert_eq!(
            format!("{:?}", behind.ignore),
            format!("{:?}", locked.ignore)
        );
        assert_eq!(
            format!("{:?}", upgraded.ignore),
            format!("{:?}", locked.ignore)
        );
        assert_eq!(upgraded.platforms, locked.platforms);
        assert!(!upgraded.platforms_defaulted);

        let env = Environment::from_vars([("HOME", home), ("TFSUM_PLATFORMS", "nonsense")]);
        assert!(upgrade(&options, &[], &env, &repo).is_err());
        assert!(outdated(&outdated_args, &env, &repo).is_ok());
    }

    fn lock_args(flags: &[&str]) -> LockArgs {
        match parse("lock", flags) {
            crate::commands::cli::Command::Lock(args) => args,
            other => panic!("not lock: {other:?}"),
        }
    }

    /// user file < repository file < environment < flags, key by key.
    #[test]
    fn precedence() {
        let tmp = tempfile::TempDir::new().unwrap();
        let home = tmp.path().join("home");
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(home.join(".config/tfsum")).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::write(
            home.join(".config/tfsum/config.toml"),
            "platforms = [\"linux_arm64\"]\njobs = 2\nper_host = 2\ncache_dir = \"cache\"\n",
        )
        .unwrap();
        std::fs::write(
            repo.join(FILE_NAME),
            "platforms = [\"darwin_arm64\"]\njobs = 3\n",
        )
        .unwrap();
        let home_str = home.to_str().unwrap();
        type Row<'a> = (
            &'a [(&'a str, &'a str)],
            &'a [&'a str],
            &'a str,
            usize,
            usize,
        );
        let rows: &[Row] = &[
            (&[], &[], "darwin_arm64", 3, 2),
            (
                &[
                    ("TFSUM_PLATFORMS", "windows_arm64,linux_amd64"),
                    ("TFSUM_JOBS", "4"),
                ],
                &[],
                "linux_amd64 windows_arm64",
                4,
                2,
            ),
            (
                &[("TFSUM_JOBS", "4")],
                &["--jobs=5", "--platform=freebsd_amd64", "--per-host=1"],
                "freebsd_amd64",
                5,
                1,
            ),
            (&[], &["--no-config"], "linux_arm64", 2, 2),
        ];
        for (vars, flags, platforms, jobs, per_host) in rows {
            let mut all = vec![("HOME", home_str)];
            all.extend_from_slice(vars);
            let env = Environment::from_vars(all);
            let settings = lock(&lock_args(flags), &env, &repo).unwrap();
            let got: Vec<String> = settings.platforms.iter().map(|p| p.to_string()).collect();
            assert_eq!(got.join(" "), *platforms, "{vars:?} {flags:?}");
            assert_eq!(settings.sources.jobs, *jobs, "{vars:?} {flags:?}");
            assert_eq!(
                settings.sources.http.per_host, *per_host,
                "{vars:?} {flags:?}"
            );
            let cache = Some(home.join(".config/tfsum/cache"));
            assert_eq!(settings.sources.cache_dir, cache);
        }
        let env = Environment::from_vars([("HOME", home_str), ("TFSUM_CACHE_DIR", "/c")]);
        let settings = lock(&lock_args(&["--platform=linux_amd64"]), &env, &repo).unwrap();
        assert_eq!(settings.sources.cache_dir, Some(PathBuf::from("/c")));
        let settings = lock(&lock_args(&["--cache-dir=flag"]), &env, &repo).unwrap();
        assert_eq!(settings.sources.cache_dir, Some(repo.join("flag")));
    }

    /// With nothing said, the defaults; bad values are errors naming their source.
    #[test]
    fn defaults_and_errors() {
        let tmp = tempfile::TempDir::new().unwrap();
        let env = Environment::from_vars([("HOME", tmp.path().to_str().unwrap())]);
        let settings = lock(&lock_args(&[]), &env, tmp.path()).unwrap();
        assert!(settings.platforms_defaulted);
        assert_eq!(settings.platforms, [Platform::current()]);
        assert_eq!(settings.sources.jobs, DEFAULT_JOBS);
        assert_eq!(settings.sources.http.per_host, DEFAULT_PER_HOST);
        assert_eq!(settings.paths, [PathBuf::from(".")]);
        let cache = Some(tmp.path().join(".cache/tfsum"));
        assert_eq!(settings.sources.cache_dir, cache);
        assert_eq!(settings.sources.packages, PackageSource::Registry);

        for (vars, flags, want) in [
            (
                vec![("TFSUM_JOBS", "0")],
                vec![],
                "TFSUM_JOBS=0: must be at least 1 (the same as --jobs)",
            ),
            (
                vec![("TFSUM_JOBS", "x")],
                vec![],
                "TFSUM_JOBS=\"x\" is not a whole number",
            ),
            (
                vec![],
                vec!["--per-host=0"],
                "--per-host must be at least 1",
            ),
            (
                vec![("TFSUM_PLATFORMS", "linux")],
                vec![],
                "TFSUM_PLATFORMS",
            ),
            (vec![("TFSUM_FLAVOR", "tofu")], vec![], "TFSUM_FLAVOR"),
            (vec![], vec!["-i", "("], "invalid --ignore-path \"(\""),
        ] {
            let mut all = vec![("HOME", tmp.path().to_str().unwrap())];
            all.extend(vars);
            let err = lock(&lock_args(&flags), &Environment::from_vars(all), tmp.path())
                .unwrap_err()
                .to_string();
            assert!(err.contains(want), "{err}");
        }
    }

    /// `tfsum mirror`'s target: a directory in a Terraform layout, or with `--layout
    /// oci` (implied by `oci://`) a registry and its repository template; and
    /// `--oci-mirror`'s template, checked as a level 1 URI template.
    #[test]
    fn mirror_targets_and_oci_mirror_templates() {
        let tmp = tempfile::TempDir::new().unwrap();
        let env = Environment::from_vars([("HOME", tmp.path().to_str().unwrap())]);
        let mirror_args = |flags: &[&str]| match parse("mirror", flags) {
            crate::commands::cli::Command::Mirror(args) => args,
            other => panic!("not mirror: {other:?}"),
        };
        let target = |flags: &[&str]| {
            mirror(&mirror_args(flags), &env, tmp.path())
                .map(|s| match s.target {
                    MirrorTarget::Dir { dir, layout } => format!("{layout:?} {}", dir.display()),
                    MirrorTarget::Oci(template) => format!("oci {template}"),
                })
                .map_err(|e| e.to_string())
        };
        let dir = tmp.path().join("d");
        let cases: Vec<(Vec<&str>, Result<String, &str>)> = vec![
            (vec!["d"], Ok(format!("Unpacked {}", dir.display()))),
            (
                vec!["--layout", "packed", "d"],
                Ok(format!("Packed {}", dir.display())),
            ),
            (
                vec!["oci://registry.example:5000/p/"],
                Ok("oci registry.example:5000/p/{namespace}/{type}".into()),
            ),
            (
                vec![
                    "--layout",
                    "oci",
                    "oci://r.example/p/{hostname}/{namespace}/{type}",
                ],
                Ok("oci r.example/p/{hostname}/{namespace}/{type}".into()),
            ),
            (
                vec!["--layout", "oci", "d"],
                Err("name it as oci://HOST/PREFIX"),
            ),
            (
                vec!["--layout", "packed", "oci://r.example/p"],
                Err("takes --layout oci"),
            ),
            (
                vec!["oci://r.example/{kind}"],
                Err("only {hostname}, {namespace} and {type}"),
            ),
            (
                vec!["oci://r.example"],
                Ok("oci r.example/{namespace}/{type}".into()),
            ),
            (
                vec!["oci://r.example/Upper"],
                Err("does not give a repository address"),
            ),
        ];
        for (flags, want) in cases {
            let got = target(&flags);
            match (&want, &got) {
                (Ok(want), Ok(got)) => assert_eq!(got, want, "{flags:?}"),
                (Err(rule), Err(e)) => assert!(e.contains(rule), "{flags:?}: {e}"),
                _ => panic!("{flags:?}: {got:?}"),
            }
        }
        let locked = lock(
            &lock_args(&["--oci-mirror", "r.example/p/{namespace}/{type}"]),
            &env,
            tmp.path(),
        )
        .unwrap();
        assert!(matches!(
            locked.sources.packages,
            PackageSource::OciMirror(_)
        ));
        let err = lock(
            &lock_args(&["--oci-mirror", "r.example/{+type}"]),
            &env,
            tmp.path(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("--oci-mirror") && err.contains("no operators"),
            "{err}"
        );
        let env = Environment::from_vars([
            ("HOME", tmp.path().to_str().unwrap()),
            ("TFSUM_TEST_OCI_PLAIN_HTTP", "yes"),
        ]);
        let err = lock(&lock_args(&[]), &env, tmp.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("TFSUM_TEST_OCI_PLAIN_HTTP"), "{err}");
    }
}
