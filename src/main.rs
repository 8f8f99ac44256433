//! The `tfsum` binary: parse arguments, run the library, map the outcome to an exit
//! code (0 all roots succeeded, 1 some root failed, 2 usage error).

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser as _;

use tfsum::addr::Platform;
use tfsum::cache::Cache;
use tfsum::cli::{Cli, Command, FlavorArg, LockArgs};
use tfsum::hash::zipstream::ZipLimits;
use tfsum::index::IndexOptions;
use tfsum::lock::{self, LockOptions};
use tfsum::lockfile::Flavor;
use tfsum::registry::{cliconfig, ClientConfig, RegistryClient};

const EXIT_FAILED: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Lock(args) => lock_command(args),
    }
}

fn usage_error(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(EXIT_USAGE)
}

fn lock_command(args: LockArgs) -> ExitCode {
    let mut ignore = Vec::new();
    for pattern in &args.ignore_paths {
        match regex::Regex::new(pattern) {
            Ok(re) => ignore.push(re),
            Err(e) => return usage_error(format!("invalid --ignore-path {pattern:?}: {e}")),
        }
    }
    let mut platforms = args.platforms.clone();
    if platforms.is_empty() {
        let current = Platform::current();
        eprintln!("note: no --platform given; locking for this machine's platform, {current}");
        platforms.push(current);
    }
    platforms.sort();
    platforms.dedup();
    let cache = if args.no_cache {
        Cache::disabled()
    } else {
        match args.cache_dir.clone().or_else(Cache::default_dir) {
            Some(dir) => Cache::new(dir),
            None => Cache::disabled(),
        }
    };
    let flavor = args.flavor.map(|f| match f {
        FlavorArg::Terraform => Flavor::Terraform,
        FlavorArg::Opentofu => Flavor::OpenTofu,
    });

    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let client = if args.offline {
        None
    } else {
        let env = cliconfig::Env::from_process(flavor == Some(Flavor::OpenTofu));
        let (config, warnings) = match cliconfig::load(&env) {
            Ok(loaded) => loaded,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_FAILED);
            }
        };
        for w in warnings {
            eprintln!("warning: {w}");
        }
        match RegistryClient::new(ClientConfig::default(), config, env) {
            Ok(client) => Some(client),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_FAILED);
            }
        }
    };
    let options = LockOptions {
        paths: args.paths.clone(),
        recursive: args.recursive,
        ignore,
        platforms,
        upgrade: args.upgrade,
        flavor,
        cache,
        offline: args.offline,
        versions_ttl: Duration::from_secs(args.versions_ttl),
        index: IndexOptions {
            jobs: args.jobs,
            per_host: args.per_host,
            offline: args.offline,
            zip_limits: ZipLimits::default(),
        },
        client,
        check: false,
        progress: std::sync::Arc::new(tfsum::progress::NoProgress),
    };
    let report = match runtime.block_on(lock::run(options)) {
        Ok(report) => report,
        Err(e) => return usage_error(e),
    };
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = tfsum::report::print_text(&report, &mut stdout) {
        eprintln!("error: cannot write the report: {e}");
        return ExitCode::from(EXIT_FAILED);
    }
    if report.is_failure() {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    }
}
