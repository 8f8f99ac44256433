//! Command-line definitions. This is the only module that knows about flags: it turns
//! them into plain option values for the library ([`crate::lock::LockOptions`]).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::addr::Platform;

const LOCK_EXAMPLES: &str = "\
Examples:
  # Lock one root module for Linux CI and Apple-silicon laptops
  tfsum lock --platform linux_amd64 --platform darwin_arm64 ./envs/prod

  # Every root module below the current directory, skipping examples/
  tfsum lock -r --platform linux_amd64,darwin_arm64 -i '^examples/' .

  # Move every provider to the newest version its constraints allow
  tfsum lock -r --upgrade --platform linux_amd64 .

Root modules (with -r): a directory with Terraform files is a root when it has a
.terraform.lock.hcl, a backend or cloud block, or when no other discovered module
calls it as a local module (source = \"./...\" or \"../...\"). Child-only modules get no
lock file.

Exit status: 0 every root succeeded, 1 at least one root failed, 2 usage error.";

/// Keep Terraform and OpenTofu dependency lock files correct for every platform.
#[derive(Debug, Parser)]
#[command(name = "tfsum", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write .terraform.lock.hcl for root modules, with hashes for every platform
    #[command(after_long_help = LOCK_EXAMPLES)]
    Lock(LockArgs),
}

#[derive(Debug, Args)]
pub struct LockArgs {
    /// Root module directories (with -r: directories to search)
    #[arg(value_name = "PATH", default_value = ".")]
    pub paths: Vec<PathBuf>,

    /// Search the paths recursively for root modules
    #[arg(short, long)]
    pub recursive: bool,

    /// Target platform OS_ARCH; repeat or separate with commas [default: this machine's]
    #[arg(long = "platform", value_name = "OS_ARCH", value_delimiter = ',')]
    pub platforms: Vec<Platform>,

    /// Skip paths matching this regular expression (relative to the searched path, with /)
    #[arg(short = 'i', long = "ignore-path", value_name = "REGEX")]
    pub ignore_paths: Vec<String>,

    /// Choose the newest allowed version even when the locked one still satisfies the
    /// constraints
    #[arg(long)]
    pub upgrade: bool,

    /// Lock file flavor for new files: terraform or opentofu [default: detected per root]
    #[arg(long, value_enum)]
    pub flavor: Option<FlavorArg>,

    /// Maximum concurrent downloads
    #[arg(short, long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,

    /// Maximum concurrent requests to one host
    #[arg(long, value_name = "N", default_value_t = 6)]
    pub per_host: usize,

    /// Directory of the persistent hash cache [default: the OS cache dir + /tfsum]
    #[arg(long, env = "TFSUM_CACHE_DIR", value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,

    /// Do not read or write the persistent hash cache
    #[arg(long, conflicts_with = "offline")]
    pub no_cache: bool,

    /// Use only the cache: make no network requests
    #[arg(long)]
    pub offline: bool,

    /// How long a cached provider version list stays fresh, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub versions_ttl: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FlavorArg {
    Terraform,
    Opentofu,
}
