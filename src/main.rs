//! The `tfsum` binary: parse arguments, layer the config file and environment under
//! them, run the library, print the outcome and map it to an exit code.
//!
//! Exit codes (also in `--help` and README): 0 success; 1 a root (or file) failed, or a
//! `--check` found something to change; 2 usage error (bad flag, bad `.tfsum.toml`, a
//! PATH that does not exist). clap exits 2 on its own for flag errors.

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{CommandFactory as _, Parser as _};

use tfsum::addr::Platform;
use tfsum::cache::Cache;
use tfsum::cli::{
    Cli, Command, CompletionsArgs, FmtArgs, Format, HashArgs, LockArgs, ManArgs, COMPLETION_FILES,
};
use tfsum::fmt::{self as lockfmt, FmtOptions};
use tfsum::hash::{self, ZipLimits};
use tfsum::index::{zip_limits_with_env, IndexOptions};
use tfsum::lock::{self, LockOptions};
use tfsum::lockfile::Flavor;
use tfsum::mirror::{FsMirror, NetMirror, Source, Sources};
use tfsum::progress::{NoProgress, Progress};
use tfsum::progress_bar::{LogProgress, TerminalProgress};
use tfsum::registry::cliconfig::ProviderInstallation;
use tfsum::registry::{cliconfig, ClientConfig, RegistryClient};
use tfsum::report::{self, Verbosity};
use tfsum::settings::{self, LockSettings};
use tfsum::state::{self, RunState};

const EXIT_FAILED: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let logging = init_tracing(cli.global.verbose);
    let global = Global {
        verbosity: if cli.global.quiet {
            Verbosity::Quiet
        } else {
            Verbosity::Normal
        },
        logging,
    };
    match cli.command {
        Command::Lock(args) => lock_command(args, &global),
        Command::Fmt(args) => fmt_command(args, &global),
        Command::Hash(args) => hash_command(args),
        Command::MergeDriver(args) => merge_driver_command(args, &global),
        Command::Completions(args) => completions_command(args),
        Command::Man(args) => man_command(args),
    }
}

/// What the global flags decided.
struct Global {
    verbosity: Verbosity,
    /// A tracing subscriber is installed (`-v` or `RUST_LOG`).
    logging: bool,
}

impl Global {
    fn note(&self, msg: impl std::fmt::Display) {
        if self.verbosity != Verbosity::Quiet {
            eprintln!("note: {msg}");
        }
    }
}

/// Installs a stderr subscriber when `RUST_LOG` is set (it wins) or `-v` is given:
/// `-v` shows tfsum's debug events, `-vv` its trace events and the HTTP client's.
fn init_tracing(verbose: u8) -> bool {
    let filter = match std::env::var("RUST_LOG") {
        Ok(value) if !value.trim().is_empty() => value,
        _ => match verbose {
            0 => return false,
            1 => "tfsum=debug".to_string(),
            _ => "tfsum=trace,reqwest=debug".to_string(),
        },
    };
    let filter = match tracing_subscriber::EnvFilter::try_new(&filter) {
        Ok(filter) => filter,
        Err(e) => {
            eprintln!("warning: ignoring RUST_LOG={filter:?}: {e}");
            return false;
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
    true
}

fn usage_error(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(EXIT_USAGE)
}

fn failure(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(EXIT_FAILED)
}

fn lock_command(args: LockArgs, global: &Global) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => return failure(format!("cannot read the current directory: {e}")),
    };
    let loaded = match settings::load_for(&args, &cwd) {
        Ok(loaded) => loaded,
        Err(e) => return usage_error(e),
    };
    match &loaded.path {
        Some(path) => tracing::debug!(config = %path.display(), "read settings"),
        None => tracing::debug!("no {} found", settings::FILE_NAME),
    }
    let mut settings = match LockSettings::resolve(&args, loaded.file) {
        Ok(settings) => settings,
        Err(e) => return usage_error(e),
    };
    tracing::debug!(?settings, "effective settings");
    let cache_dir = settings.cache_dir.clone().or_else(Cache::default_dir);
    let cache = match (&cache_dir, args.no_cache) {
        (Some(dir), false) => Cache::new(dir.clone()),
        _ => Cache::disabled(),
    };
    // The run record lives in the cache dir even with --no-cache: it is not a hash fact.
    let state_file = cache_dir.as_deref().map(|dir| state::path(dir, &cwd));

    let (paths, recursive) = if args.retry_failed {
        match paths_to_retry(state_file.as_deref(), &cwd, global) {
            Ok(Some(paths)) => (paths, false),
            Ok(None) => return ExitCode::SUCCESS,
            Err(code) => return code,
        }
    } else if args.paths.is_empty() {
        (vec![PathBuf::from(".")], args.recursive)
    } else {
        (args.paths.clone(), args.recursive)
    };

    if settings.platforms.is_empty() {
        let current = Platform::current();
        global.note(format!(
            "no platform given (--platform, TFSUM_PLATFORMS or .tfsum.toml); locking for this machine's platform, {current}"
        ));
        settings.platforms.push(current);
    }
    settings.platforms.sort();
    settings.platforms.dedup();

    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return failure(format!("cannot start the async runtime: {e}")),
    };
    if args.fs_mirror.is_some() && args.net_mirror.is_some() {
        // Terraform's words (spec §9).
        return usage_error("the --fs-mirror and --net-mirror options are mutually exclusive");
    }
    if args.offline && args.net_mirror.is_some() {
        return usage_error("--net-mirror needs the network; it cannot be used with --offline");
    }
    // Like Go programs (Terraform included), trust the CA bundle SSL_CERT_FILE names; here
    // in addition to the built-in roots.
    let env_var = |name: &str| std::env::var(name).ok();
    let mut client_config = match ClientConfig::builtin().with_env(env_var) {
        Ok(config) => config,
        Err(e) => return usage_error(e),
    };
    let zip_limits = match zip_limits_with_env(ZipLimits::default(), env_var) {
        Ok(limits) => limits,
        Err(e) => return usage_error(e),
    };
    if let Some(path) = std::env::var_os("SSL_CERT_FILE").filter(|p| !p.is_empty()) {
        match std::fs::read(&path) {
            Ok(pem) => client_config.extra_root_certs.push(pem),
            Err(e) => {
                let path = std::path::Path::new(&path).display().to_string();
                return usage_error(format!("cannot read SSL_CERT_FILE {path}: {e}"));
            }
        }
    }
    let (client, installation) = if args.offline && !args.use_cli_config_installation {
        (None, None)
    } else {
        match registry_client(settings.flavor, client_config, global) {
            Ok((client, installation)) => (Some(client).filter(|_| !args.offline), installation),
            Err(code) => return code,
        }
    };
    let sources = match package_sources(
        &args,
        client.as_ref(),
        installation,
        settings.flavor,
        settings.jobs,
        global,
    ) {
        Ok(sources) => sources,
        Err(code) => return code,
    };

    let terminal = if global.logging || global.verbosity == Verbosity::Quiet {
        None
    } else if std::io::stderr().is_terminal() {
        Some(Arc::new(TerminalProgress::new()))
    } else {
        None
    };
    let progress: Arc<dyn Progress> = match (&terminal, global.logging) {
        (Some(bars), _) => bars.clone(),
        (None, true) => Arc::new(LogProgress),
        (None, false) => Arc::new(NoProgress),
    };

    let options = LockOptions {
        paths,
        recursive,
        ignore: settings.ignore,
        platforms: settings.platforms,
        upgrade: args.upgrade,
        flavor: settings.flavor,
        cache,
        offline: args.offline,
        versions_ttl: settings.versions_ttl,
        index: IndexOptions {
            jobs: settings.jobs,
            per_host: settings.per_host,
            offline: args.offline,
            zip_limits,
        },
        client,
        sources,
        check: args.check,
        progress,
    };
    let result = runtime.block_on(lock::run(options));
    if let Some(bars) = &terminal {
        bars.finish();
    }
    let report = match result {
        Ok(report) => report,
        Err(e) => return usage_error(e),
    };

    if let Some(file) = &state_file {
        let record = RunState::from_report(&cwd, &report);
        match state::save(file, &record) {
            Ok(()) => tracing::debug!(state = %file.display(), "saved the run record"),
            Err(e) => eprintln!(
                "warning: cannot save the run record for --retry-failed to {}: {e}",
                file.display()
            ),
        }
    }

    let mut stdout = std::io::stdout().lock();
    let printed = match args.format {
        Format::Text => report::print_text(&report, global.verbosity, &mut stdout),
        Format::Json => report::print_json(&report, &mut stdout),
    };
    if let Err(e) = printed.and_then(|()| stdout.flush()) {
        return failure(format!("cannot write the report: {e}"));
    }
    if report.is_failure() {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    }
}

/// The roots to lock again for `--retry-failed`; `Ok(None)` when nothing failed (the
/// command then succeeds without doing anything).
fn paths_to_retry(
    state_file: Option<&Path>,
    cwd: &Path,
    global: &Global,
) -> Result<Option<Vec<PathBuf>>, ExitCode> {
    let Some(file) = state_file else {
        return Err(usage_error(
            "--retry-failed needs a cache directory to read the last run from; set --cache-dir",
        ));
    };
    let record = match state::load(file, cwd) {
        Ok(Some(record)) => record,
        Ok(None) => {
            return Err(usage_error(format!(
                "--retry-failed: no earlier `tfsum lock` run from {} is recorded (looked in {})",
                cwd.display(),
                file.display()
            )))
        }
        Err(e) => return Err(usage_error(format!("--retry-failed: {e}"))),
    };
    let mut paths = Vec::new();
    for dir in record.failed() {
        if dir.exists() {
            paths.push(dir);
        } else {
            global.note(format!(
                "{} failed last time but no longer exists; skipped",
                dir.display()
            ));
        }
    }
    if paths.is_empty() {
        global.note(format!(
            "nothing to retry: no root failed in the last run from {}",
            cwd.display()
        ));
        return Ok(None);
    }
    global.note(format!(
        "retrying {} root{} that failed last time",
        paths.len(),
        if paths.len() == 1 { "" } else { "s" }
    ));
    Ok(Some(paths))
}

/// The registry client, and the CLI configuration's `provider_installation` block.
fn registry_client(
    flavor: Option<Flavor>,
    client_config: ClientConfig,
    global: &Global,
) -> Result<(RegistryClient, Option<ProviderInstallation>), ExitCode> {
    let env = cliconfig::Env::from_process(flavor == Some(Flavor::OpenTofu));
    let (config, warnings) = cliconfig::load(&env).map_err(failure)?;
    if global.verbosity != Verbosity::Quiet {
        for w in warnings {
            eprintln!("warning: {w}");
        }
    }
    let installation = config.provider_installation().cloned();
    let client = RegistryClient::new(client_config, config, env).map_err(failure)?;
    Ok((client, installation))
}

/// Where packages come from: the registries, or the mirror the flags name.
fn package_sources(
    args: &LockArgs,
    client: Option<&RegistryClient>,
    installation: Option<ProviderInstallation>,
    flavor: Option<Flavor>,
    jobs: usize,
    global: &Global,
) -> Result<Sources, ExitCode> {
    if let Some(dir) = &args.fs_mirror {
        let mirror = FsMirror::scan(dir).map_err(usage_error)?;
        if global.verbosity != Verbosity::Quiet {
            for w in mirror.warnings() {
                eprintln!("warning: {w}");
            }
        }
        return Ok(Sources::only(Source::FsMirror(Arc::new(mirror))));
    }
    if let (Some(url), Some(client)) = (&args.net_mirror, client) {
        let mirror = NetMirror::new(url, client.clone()).map_err(usage_error)?;
        return Ok(Sources::only(Source::NetMirror(Arc::new(
            mirror.with_jobs(jobs),
        ))));
    }
    if !args.use_cli_config_installation {
        return Ok(Sources::registry());
    }
    let default_host = flavor.unwrap_or(Flavor::Terraform).default_registry();
    let Some(installation) = installation else {
        global.note("the CLI configuration has no provider_installation block; every provider comes from its registry".to_string());
        return Ok(Sources::registry());
    };
    let (sources, warnings) =
        Sources::from_installation(&installation, client, default_host).map_err(usage_error)?;
    if global.verbosity != Verbosity::Quiet {
        for w in warnings {
            eprintln!("warning: {w}");
        }
    }
    Ok(sources)
}

fn fmt_command(args: FmtArgs, global: &Global) -> ExitCode {
    let report = lockfmt::run(&FmtOptions {
        paths: args.paths,
        recursive: args.recursive,
        check: args.check,
    });
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = report::print_fmt(&report, args.check, global.verbosity, &mut stdout) {
        return failure(format!("cannot write the report: {e}"));
    }
    if report.has_failures() || (args.check && report.has_changes()) {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    }
}

/// `HASH  PATH` lines: `h1:` and `zh:` for a zip, `h1:` for a directory.
fn hash_command(args: HashArgs) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    let mut ok = true;
    for path in &args.paths {
        let hashes = match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => hash::h1_dir(path).map(|h1| vec![h1]),
            Ok(_) => {
                hash::hash_zip_file(path, &ZipLimits::default()).map(|z| vec![z.h1.clone(), z.zh()])
            }
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                ok = false;
                continue;
            }
        };
        match hashes {
            Ok(hashes) => {
                for h in hashes {
                    if writeln!(stdout, "{h}  {}", path.display()).is_err() {
                        return ExitCode::from(EXIT_FAILED);
                    }
                }
            }
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                ok = false;
            }
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAILED)
    }
}

/// Exit 0 merged, 1 conflict left in OURS, 2 an input unreadable (OURS untouched).
fn merge_driver_command(args: tfsum::cli::MergeDriverArgs, global: &Global) -> ExitCode {
    use tfsum::merge::driver;
    let files = driver::DriverFiles {
        base: args.base,
        ours: args.ours,
        theirs: args.theirs,
        path: args.path,
    };
    match driver::run(&files) {
        Ok(report) if report.is_clean() => {
            if global.verbosity != Verbosity::Quiet {
                eprint!("{report}");
            }
            ExitCode::SUCCESS
        }
        Ok(report) => {
            eprint!("{report}");
            ExitCode::from(EXIT_FAILED)
        }
        Err(e) => usage_error(e),
    }
}

/// The completion script for one shell.
fn completion_script(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "tfsum", &mut out);
    out
}

fn completions_command(args: CompletionsArgs) -> ExitCode {
    if let Some(dir) = args.write_all {
        if let Err(e) = std::fs::create_dir_all(&dir) {
            return failure(format!("{}: {e}", dir.display()));
        }
        for (shell, name) in COMPLETION_FILES {
            let path = dir.join(name);
            if let Err(e) = std::fs::write(&path, completion_script(*shell)) {
                return failure(format!("{}: {e}", path.display()));
            }
            println!("wrote {}", path.display());
        }
        return ExitCode::SUCCESS;
    }
    let Some(shell) = args.shell else {
        return usage_error("name a shell, or use --write-all DIR");
    };
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(&completion_script(shell)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => failure(e),
    }
}

fn man_command(args: ManArgs) -> ExitCode {
    let command = Cli::command();
    let result = match args.output {
        Some(dir) => {
            std::fs::create_dir_all(&dir).and_then(|()| clap_mangen::generate_to(command, &dir))
        }
        None => clap_mangen::Man::new(command).render(&mut std::io::stdout().lock()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => failure(e),
    }
}
