//! The commands, and the entry point that runs them: [`main`] parses the arguments
//! ([`cli`]), builds the settings from them, the environment and the settings files
//! ([`settings`]), runs the command, prints its report ([`tfsum_report`]) and maps the
//! outcome to an exit code.
//!
//! Exit codes (also in `--help` and docs/exit-codes.md): 0 success; 1 a root (or file) failed, or a
//! `--check` found something to change; 2 usage error (bad flag, bad settings, a PATH that
//! does not exist); 130 interrupted. clap exits 2 on its own for flag errors.

pub(crate) mod cli;
pub(crate) mod fmt;
pub(crate) mod lock;
pub(crate) mod merge;
pub(crate) mod mirror;
pub(crate) mod outdated;
pub(crate) mod run;
pub(crate) mod settings;
pub(crate) mod upgrade;
pub(crate) mod verify;

use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;
use std::sync::Arc;

use clap::CommandFactory as _;

use cli::{
    Cli, Command, CompletionsArgs, FmtArgs, Format, HashArgs, LockArgs, ManArgs, MirrorArgs,
    MirrorFormat, VerifyArgs,
};
use fmt::{self as lockfmt, FmtOptions};
use mirror::MirrorOutcome;
use settings::{Environment, LockSettings};
use tfsum_report::progress_bar::{LogProgress, TerminalProgress};
use tfsum_report::{self as report, Verbosity};
use tfsum_vocab::progress::{NoProgress, Progress};

const EXIT_FAILED: u8 = 1;
const EXIT_USAGE: u8 = 2;
/// As shells report SIGINT (128 + 2).
const EXIT_INTERRUPTED: i32 = 130;

/// The `tfsum` command line: parses the arguments, runs the command, prints its report
/// and returns the exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse_ordered();
    let logging = init_tracing(cli.global.verbose);
    let verbosity = if cli.global.quiet {
        Verbosity::Quiet
    } else {
        Verbosity::Normal
    };
    match cli.command {
        Command::Lock(args) => lock(args, verbosity, logging),
        Command::Fmt(args) => fmt(args, verbosity),
        Command::Verify(args) => verify(args, verbosity),
        Command::Hash(args) => hash(args),
        Command::MergeDriver(args) => merge_driver(args, verbosity),
        Command::Upgrade(command) => upgrade::main(command, verbosity, logging),
        Command::Outdated(args) => outdated::main(args, verbosity, logging),
        Command::Mirror(args) => mirror_command(args, verbosity, logging),
        Command::Completions(args) => completions(args),
        Command::Man(args) => man(args),
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

/// Runs a command's job on a new runtime, showing progress as bars on a terminal, as log
/// lines with `-v`, else not at all; the bars are cleared once it is done. With
/// `interruptible`, Ctrl-C stops the run between writes (see `exit_on_interrupt`).
pub(crate) fn run_with_progress<F: std::future::Future>(
    verbosity: Verbosity,
    logging: bool,
    interruptible: bool,
    job: impl FnOnce(Arc<dyn Progress>) -> F,
) -> Result<F::Output, ExitCode> {
    let runtime = runtime()?;
    let bars = (!logging && verbosity != Verbosity::Quiet && std::io::stderr().is_terminal())
        .then(|| Arc::new(TerminalProgress::new()));
    let progress: Arc<dyn Progress> = match (&bars, logging) {
        (Some(bars), _) => bars.clone(),
        (None, true) => Arc::new(LogProgress),
        (None, false) => Arc::new(NoProgress),
    };
    let output = runtime.block_on(async {
        if interruptible {
            tokio::spawn(exit_on_interrupt());
        }
        job(progress).await
    });
    if let Some(bars) = &bars {
        bars.finish();
    }
    Ok(output)
}

fn exit(code: u8, msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(code)
}

fn note(verbosity: Verbosity, msg: impl std::fmt::Display) {
    if verbosity != Verbosity::Quiet {
        eprintln!("note: {msg}");
    }
}

fn lock(args: LockArgs, verbosity: Verbosity, logging: bool) -> ExitCode {
    let mut settings = match settings_here(&args, settings::lock) {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    tracing::debug!(files = ?settings.sources.files, "settings files read");
    tracing::debug!(?settings, "effective settings");
    tfsum_disk::atomic::set_test_delay(settings.write_delay);
    if settings.retry_failed {
        if let Err(code) = retry_failed(&mut settings, verbosity) {
            return code;
        }
    }
    if settings.platforms_defaulted {
        let current = &settings.platforms[0];
        note(verbosity, format!("no platform given (--platform, TFSUM_PLATFORMS or .tfsum.toml); locking for this machine's platform, {current} (and linux_amd64 for Terraform Stacks, where HCP Terraform runs them)"));
    }
    let result = run_with_progress(verbosity, logging, true, |progress| {
        lock::run(&settings, progress)
    });
    let report = match result {
        Err(code) => return code,
        Ok(Ok(report)) => report,
        Ok(Err(e)) if e.is_usage() => return exit(EXIT_USAGE, e),
        Ok(Err(e)) => return exit(EXIT_FAILED, e),
    };
    if settings.format == Format::Text {
        // Best effort, as the notes: stderr that cannot be written changes nothing.
        let _ = report::print_environment_warnings(&report, verbosity, &mut std::io::stderr());
        if report.roots.is_empty() {
            note(verbosity, no_roots_hint(&settings.paths));
        }
    }
    let mut stdout = report_stdout();
    let printed = match settings.format {
        Format::Text => report::print_text(&report, verbosity, &mut stdout),
        Format::Json => report::print_json(&report, &mut stdout),
        Format::Markdown => report::print_markdown(&report, &mut stdout),
    };
    let printed = match (&report.mirror, settings.format) {
        (Some(mirror), Format::Text) => {
            printed.and_then(|()| report::mirror::print_text(mirror, verbosity, &mut stdout))
        }
        _ => printed,
    };
    let printed = printed.and_then(|()| stdout.flush());
    if report.fail_on_write {
        print_written(&report.written());
    }
    finish(printed, report.is_failure())
}

/// Why a recursive run found nothing to lock (without `-r`, a directory with no
/// configuration is an error already).
fn no_roots_hint(paths: &[std::path::PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    format!(
        "no root module found in or below {} (a root module is a directory holding .tf, \
         .tf.json or .tofu files, or a terragrunt.hcl unit)",
        shown.join(", ")
    )
}

/// `--fail-on-write`: names the lock files written, as a formatter names the files it
/// changed, so that they are staged before the next commit. Shown even with `-q`: it is
/// why the run fails.
fn print_written(written: &[std::path::PathBuf]) {
    if written.is_empty() {
        return;
    }
    let s = if written.len() == 1 { "" } else { "s" };
    eprintln!("error: lock file{s} written (--fail-on-write); stage and commit again:");
    for path in written {
        eprintln!("  {}", path.display());
    }
}

/// A mode's settings, layered by `layer` (one of [`settings`]' functions) from `args`,
/// the environment and the settings files, relative to the current directory; a usage
/// error exits 2.
fn settings_here<A: ?Sized, S>(
    args: &A,
    layer: impl FnOnce(&A, &Environment, &std::path::Path) -> Result<S, settings::SettingsError>,
) -> Result<S, ExitCode> {
    layer(args, &Environment::capture(), &current_dir()?).map_err(|e| exit(EXIT_USAGE, e))
}

fn current_dir() -> Result<std::path::PathBuf, ExitCode> {
    std::env::current_dir().map_err(|e| {
        exit(
            EXIT_FAILED,
            format!("cannot read the current directory: {e}"),
        )
    })
}

fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| exit(EXIT_FAILED, format!("cannot start the async runtime: {e}")))
}

/// The exit code once the report is printed: 1 when it could not be written or says
/// something failed.
fn finish(printed: std::io::Result<()>, failed: bool) -> ExitCode {
    if let Err(e) = printed {
        return exit(EXIT_FAILED, format!("cannot write the report: {e}"));
    }
    if failed {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    }
}

/// `tfsum verify`: exit 0 when every hash is vouched for, 1 when not (or a file cannot
/// be read or checked), 2 on a usage error.
fn verify(args: VerifyArgs, verbosity: Verbosity) -> ExitCode {
    let settings = match settings_here(&args, settings::verify) {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let result = runtime.block_on(verify::run(&settings, Arc::new(NoProgress)));
    let report = match result {
        Ok(report) => report,
        Err(e) if e.is_usage() => return exit(EXIT_USAGE, e),
        Err(e) => return exit(EXIT_FAILED, e),
    };
    let mut stdout = report_stdout();
    let printed = match settings.format {
        Format::Text => {
            report::verify::print_text(&report, verbosity == Verbosity::Quiet, &mut stdout)
        }
        Format::Json => report::verify::print_json(&report, &mut stdout),
        Format::Markdown => report::verify::print_markdown(&report, &mut stdout),
    };
    finish(printed.and_then(|()| stdout.flush()), report.is_failure())
}

/// `tfsum mirror`: exit 0 when every package is in place and matches every lock file
/// locking it, 1 when not, 2 on a usage error.
fn mirror_command(args: MirrorArgs, verbosity: Verbosity, logging: bool) -> ExitCode {
    let settings = match settings_here(&args, settings::mirror) {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    let result = run_with_progress(verbosity, logging, true, |progress| {
        mirror::run(&settings, progress)
    });
    let report = match result {
        Err(code) => return code,
        Ok(Ok(report)) => report,
        Ok(Err(e)) if e.is_usage() => return exit(EXIT_USAGE, e),
        Ok(Err(e)) => return exit(EXIT_FAILED, e),
    };
    let mut stdout = report_stdout();
    let printed = match (&report, settings.format) {
        (MirrorOutcome::Dir(r), MirrorFormat::Text) => {
            report::mirror::print_text(r, verbosity, &mut stdout)
        }
        (MirrorOutcome::Dir(r), MirrorFormat::Json) => {
            report::json::print_mirror_json(r, &mut stdout)
        }
        (MirrorOutcome::Oci(r), MirrorFormat::Text) => {
            report::publish::print_text(r, verbosity, &mut stdout)
        }
        (MirrorOutcome::Oci(r), MirrorFormat::Json) => {
            report::json::print_publish_json(r, &mut stdout)
        }
    };
    let printed = printed.and_then(|()| stdout.flush());
    if let (MirrorOutcome::Dir(r), MirrorFormat::Text) = (&report, settings.format) {
        if !r.is_failure() {
            note(verbosity, report::mirror::usage_hint(r));
        }
    }
    finish(printed, report.is_failure())
}

/// Points `settings` at the roots that failed last time; `Err` with the exit code when
/// there is nothing to retry (0) or no record to read (2).
fn retry_failed(settings: &mut LockSettings, verbosity: Verbosity) -> Result<(), ExitCode> {
    let (paths, notes) = lock::roots_to_retry(settings).map_err(|e| exit(EXIT_USAGE, e))?;
    notes.iter().for_each(|n| note(verbosity, n));
    if paths.is_empty() {
        let cwd = settings.cwd.display();
        note(
            verbosity,
            format!("nothing to retry: no root failed in the last run from {cwd}"),
        );
        return Err(ExitCode::SUCCESS);
    }
    let s = if paths.len() == 1 { "" } else { "s" };
    note(
        verbosity,
        format!("retrying {} root{s} that failed last time", paths.len()),
    );
    (settings.paths, settings.recursive) = (paths, false);
    Ok(())
}

/// On SIGINT or SIGTERM: wait for a file replacement under way (the write guard), then
/// exit 130, so every lock file is either its old self or fully written.
async fn exit_on_interrupt() {
    wait_for_signal().await;
    // Never released: the process ends holding it, so no write starts after this.
    let _guard = tfsum_disk::atomic::interrupt();
    eprintln!("tfsum: interrupted; every lock file is either unchanged or fully written");
    std::process::exit(EXIT_INTERRUPTED);
}

#[cfg(unix)]
async fn wait_for_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        // Without handlers the default action (terminate) applies; nothing to wait for.
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => {}
        _ = term.recv() => {}
    }
}

#[cfg(not(unix))]
async fn wait_for_signal() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

fn fmt(args: FmtArgs, verbosity: Verbosity) -> ExitCode {
    // A path that does not exist is a usage error, as for `lock` and `verify`.
    if let Some(missing) = args
        .paths
        .iter()
        .find(|p| std::fs::symlink_metadata(p).is_err())
    {
        return exit(
            EXIT_USAGE,
            format!("{}: no such file or directory", missing.display()),
        );
    }
    let report = lockfmt::run(&FmtOptions {
        paths: args.paths,
        recursive: args.recursive,
        check: args.check,
    });
    let mut stdout = report_stdout();
    let printed = report::fmt::print_fmt(&report, args.check, verbosity, &mut stdout)
        .and_then(|()| stdout.flush());
    if let Err(e) = printed {
        return exit(EXIT_FAILED, format!("cannot write the report: {e}"));
    }
    if report.has_failures() || (args.check && report.has_changes()) {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    }
}

/// Where a command's report goes: stdout, buffered, so that a report of thousands of
/// roots is a few writes rather than one per line. The caller flushes it and reports a
/// failure to write.
pub(crate) fn report_stdout() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(64 << 10, std::io::stdout().lock())
}

/// `HASH  PATH` lines: `h1:` and `zh:` for a zip, `h1:` for a directory.
fn hash(args: HashArgs) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    let mut code = ExitCode::SUCCESS;
    for path in &args.paths {
        match tfsum_vocab::hash::hash_path(path) {
            Ok(hashes) => {
                for h in hashes {
                    if writeln!(stdout, "{h}  {}", path.display()).is_err() {
                        return ExitCode::from(EXIT_FAILED);
                    }
                }
            }
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                code = ExitCode::from(EXIT_FAILED);
            }
        }
    }
    code
}

/// Exit 0 merged, 1 conflict left in OURS, 2 an input unreadable (OURS untouched).
fn merge_driver(args: cli::MergeDriverArgs, verbosity: Verbosity) -> ExitCode {
    use merge::driver;
    let files = driver::DriverFiles {
        base: args.base,
        ours: args.ours,
        theirs: args.theirs,
        path: args.path,
    };
    match driver::run(&files) {
        Ok(report) if report.is_clean() => {
            if verbosity != Verbosity::Quiet {
                eprint!("{report}");
            }
            ExitCode::SUCCESS
        }
        Ok(report) => {
            eprint!("{report}");
            ExitCode::from(EXIT_FAILED)
        }
        Err(e) => exit(EXIT_USAGE, e),
    }
}

fn completions(args: CompletionsArgs) -> ExitCode {
    let script = |shell| {
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "tfsum", &mut out);
        out
    };
    if let Some(dir) = args.write_all {
        for (shell, name) in cli::COMPLETION_FILES {
            let path = dir.join(name);
            let written =
                std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, script(*shell)));
            if let Err(e) = written {
                return exit(EXIT_FAILED, format!("{}: {e}", path.display()));
            }
            println!("wrote {}", path.display());
        }
        return ExitCode::SUCCESS;
    }
    let Some(shell) = args.shell else {
        return exit(EXIT_USAGE, "name a shell, or use --write-all DIR");
    };
    match std::io::stdout().lock().write_all(&script(shell)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => exit(EXIT_FAILED, e),
    }
}

fn man(args: ManArgs) -> ExitCode {
    let command = Cli::command();
    let result = match args.output {
        Some(dir) => {
            std::fs::create_dir_all(&dir).and_then(|()| clap_mangen::generate_to(command, &dir))
        }
        None => clap_mangen::Man::new(command).render(&mut std::io::stdout().lock()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => exit(EXIT_FAILED, e),
    }
}
