//! Command-line definitions: the only module that knows about flags. [`crate::commands::settings`]
//! layers them over the environment and the settings files into plain values.
//!
//! Settings that a team shares (platforms, ignore paths, jobs, flavor, …) are `Option`s
//! here with no clap default: `None` means "not given on the command line", so the
//! environment, then the settings files, then the built-in default decide.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;

use tfsum_vocab::addr::Platform;

/// The `lock` exit codes, shown by `tfsum --help` and `tfsum lock --help`.
macro_rules! lock_exit_status {
    () => {
        "Exit status:
  0  every root succeeded (with --check: and every lock file is up to date)
  1  a root failed, or (with --check) a lock file is missing or out of date, or
     (with --fail-on-write) a lock file was created or updated
  2  usage error: bad flag, bad .tfsum.toml, a PATH that does not exist
  130  interrupted (SIGINT/SIGTERM); every lock file is either unchanged or fully written"
    };
}

const EXIT_STATUS: &str = lock_exit_status!();

const LOCK_HELP: &str = concat!(
    "\
Examples:
  # Lock one root module for Linux CI and Apple-silicon laptops
  tfsum lock --platform linux_amd64 --platform darwin_arm64 ./envs/prod

  # Every root module below the current directory, skipping examples/
  tfsum lock -r --platform linux_amd64,darwin_arm64 -i '^examples/' .

  # CI: fail (exit 1) and show a diff when any lock file is missing or stale
  tfsum lock -r --check .

  # pre-commit: lock only the roots whose configuration contains these files
  tfsum lock modules/network/versions.tf envs/prod/main.tf

  # Move every provider to the newest version its constraints allow
  tfsum lock -r --upgrade .

  # pre-commit hook: write, but fail naming each lock file written, so it gets staged
  tfsum lock --fail-on-write envs/prod/main.tf

  # Run again only the roots that failed last time (in this directory)
  tfsum lock --retry-failed

  # Module sources from variables (Terraform 1.15 const, OpenTofu): give their values
  tfsum lock --var-file envs/prod.tfvars --var module_ref=v1.4.0 envs/prod

  # Machine-readable outcome
  tfsum lock -r --format json . > report.json

Root modules (with -r): a directory with Terraform files is a root when it has a
.terraform.lock.hcl, a backend or cloud block, or when no other discovered module
calls it as a local module (source = \"./...\" or \"../...\"). Child-only modules get no
lock file. A Terragrunt unit (terragrunt.hcl) is a root, and so is a Terraform Stack
(*.tfcomponent.hcl): one lock file in the stack's directory, holding its
required_providers as `terraform stacks providers-lock` writes it; the modules its
components source are not roots. With no platform given, a stack also locks
linux_amd64, where HCP Terraform runs it. When a PATH is a file, tfsum searches the
current directory and locks the roots whose configuration (own directory, local
modules, Terragrunt unit, stack) holds one of the files.

A module source or version written as an expression is evaluated as `init` evaluates
it (Terraform 1.15: const variables only; OpenTofu: any variable): values come from
TF_VAR_*, terraform.tfvars, *.auto.tfvars, the var files .tfsum.toml assigns to the root
([[var_files]]), then --var and --var-file in order.

Settings come from, lowest precedence first: your own <config dir>/tfsum/config.toml,
the repository's .tfsum.toml (searched from the current directory up to the repository
root), environment variables, flags. Only your own file, TFSUM_CACHE_DIR or --cache-dir
may say where the hash cache is: a repository's file may not.

Environment:
  TFSUM_PLATFORMS, TFSUM_JOBS, TFSUM_PER_HOST, TFSUM_CACHE_DIR, TFSUM_FLAVOR,
  TFSUM_VERSIONS_TTL, TFSUM_CONFIG   as the flags of the same name
  TFSUM_HTTP_TIMEOUT_SECS, TFSUM_RETRIES, TFSUM_RETRY_DELAY_SECS,
  TFSUM_RETRY_MAX_WAIT_SECS          network timeouts and retries
  TFSUM_MAX_PACKAGE_BYTES, TFSUM_MAX_PACKAGE_ENTRIES   caps on one provider package
  SSL_CERT_FILE, SSL_CERT_DIR        extra trusted CAs, as for Terraform
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY  proxies, as for Terraform
  TF_CLI_CONFIG_FILE, TF_TOKEN_<host>  Terraform's CLI configuration and credentials

",
    lock_exit_status!()
);

const MIRROR_HELP: &str = "\
Examples:
  # Every package the lock files below envs/ lock, for this machine, into a directory
  tfsum mirror -r ~/.cache/tf-providers envs/

  # Then init every root in parallel from it: no download, no race, no lock file touched
  export TF_PLUGIN_CACHE_DIR=~/.cache/tf-providers
  find envs -name .terraform.lock.hcl -execdir terraform init -input=false \\; # or xargs -P 16

  # Or use it as a filesystem mirror (no registry request at all) through a CLI
  # configuration written for it
  tfsum mirror -r --cli-config tf-mirror.tfrc ~/.cache/tf-providers envs/
  TF_CLI_CONFIG_FILE=tf-mirror.tfrc terragrunt run --all init

  # A static network mirror for Linux and Apple-silicon machines
  tfsum mirror -r --layout packed --platform linux_amd64,darwin_arm64 ./public envs/

  # OpenTofu's OCI registry mirror (oci_mirror), filled from CI; prints the
  # provider_installation block to use (--cli-config FILE writes it)
  tfsum mirror -r --platform linux_amd64,darwin_arm64 oci://registry.example.com/providers .

  # Inside the air gap: a provider directory from that OCI mirror
  tfsum mirror -r --oci-mirror 'registry.example.com/providers/{namespace}/{type}' DIR .

Each package is checked before it is placed: the zip against the registry's signed
SHA256SUMS, the unpacked files against the h1: the lock files record. It is unpacked
beside the directory and renamed into place, so Terraform reading the directory meanwhile
never sees half a package; an entry already there whose h1: a lock file records is left
alone. A root with providers but no lock file fails (run tfsum lock first).

With --layout oci (an oci://HOST/PREFIX target implies it) each version is pushed to the
repository PREFIX/NAMESPACE/TYPE, tag VERSION, as OpenTofu's oci_mirror reads it: an index
with one image manifest per platform whose archive/zip layer is the registry's zip, byte
for byte, checked first against the signed SHA256SUMS and the lock files. Blobs the
registry has are not uploaded again; a tag holding the same zips is left alone, one
holding others is refused (exit 1), never overwritten; more platforms extend a tag.
Credentials: OpenTofu's oci_credentials blocks, then the containers/Docker auth files.

Exit status:
  0  every package is in the directory and matches every lock file that locks it
  1  a package could not be fetched or placed, a lock file records no hash of it, or a
     root has no lock file
  2  usage error";

const FMT_HELP: &str = "\
Examples:
  # Rewrite the lock file in the current directory in canonical form
  tfsum fmt

  # Every lock file below envs/, after resolving merge conflicts by hand
  tfsum fmt -r envs/

  # CI: exit 1 and show a diff when a lock file is not canonical
  tfsum fmt --check -r .

fmt only changes layout (order, duplicates, spacing, canonical constraints): it adds or
drops no provider, version or hash, and never touches the network. A file that cannot
be parsed (or still holds conflict markers) is reported and left as it is.

Exit status:
  0  every file is canonical (or was rewritten)
  1  a file could not be formatted, or (with --check) a file is not canonical
  2  usage error";

const HASH_HELP: &str = "\
Examples:
  # Both hashes of a downloaded provider package
  tfsum hash terraform-provider-null_3.2.1_linux_amd64.zip

  # h1: of an unpacked provider, e.g. from .terraform/providers/
  tfsum hash .terraform/providers/registry.terraform.io/hashicorp/null/3.2.1/linux_amd64

Output is one `HASH  PATH` line per hash: for a zip its h1: (of the files it unpacks to)
and zh: (sha256 of the zip itself); for a directory its h1:. These are the values a lock
file records, computed as Terraform computes them.

Exit status:
  0  every path was hashed
  1  a path could not be read or hashed (the others still are)
  2  usage error";

const MERGE_DRIVER_HELP: &str = "\
Examples:
  # Once per clone (or with --global for every repository): register the driver
  git config merge.tfsum.name 'tfsum lock-file merge'
  git config merge.tfsum.driver 'tfsum merge-driver %O %A %B %P'

  # In .gitattributes (committed): send every lock file to it
  .terraform.lock.hcl merge=tfsum

  # By hand: merge their.hcl into ours.hcl against base.hcl
  tfsum merge-driver base.hcl ours.hcl their.hcl

Git passes the common ancestor's version (%O, empty when both sides added the file), ours
(%A, which receives the result), theirs (%B) and the path in the repository (%P). Each
provider merges on its own, against the ancestor:
  changed on one side only           that side's entry (added, removed or edited)
  same version on both sides         union of the hashes
  different versions                 the side that moved it, or the higher version when
                                     both did, as long as the merged constraints allow it;
                                     with that side's hashes
  constraints changed on both sides  conflict
  removed on one side, version or    conflict (only hashes changed: removed)
  constraints changed on the other
  terraform/tofu header changed on both sides   conflict
The result is always a canonical lock file; for a conflict it keeps our side and names
each undecided provider on stderr. Settle the configuration, then run `tfsum lock` (it
recomputes constraints and hashes) and `git add` the file. Nothing is downloaded.

The driver sees lock files, not configuration: a clean merge can still miss a provider
the merged configuration needs (or keep one it no longer needs). Run `tfsum lock --check`
after merging.

Exit status:
  0  merged cleanly; OURS holds the result
  1  conflict: OURS holds a valid lock file with our side of each conflict; git marks the
     file conflicted
  2  usage error, or an input that cannot be read or is not a valid lock file (for
     example it holds conflict markers): OURS is left unchanged";

const VERIFY_HELP: &str = "\
Examples:
  # CI on every pull request that touches a lock file
  tfsum verify -r .

  # One lock file, machine-readable
  tfsum verify --format json envs/prod/.terraform.lock.hcl

  # Against the packages your mirror serves instead of the registries
  tfsum verify -r --net-mirror https://mirror.example/providers/ .

For every provider entry, the version must be published, every zh: must be a line of
the version's SHA256SUMS whose signature verifies (as `lock` checks it), and every h1:
must be the h1: of one of the version's packages: every platform the signed SHA256SUMS
lists (or the configured mirror holds). Each package is hashed once, through the same
cache as `lock`. A hash nobody vouches for is named with FILE:LINE, provider and version.
Lock files are only read, never written.

Exit status:
  0  every hash of every lock file is vouched for
  1  a hash nobody vouches for, a version that is not published, a package that could
     not be checked, or a lock file that cannot be read
  2  usage error: bad flag, bad .tfsum.toml, a PATH that does not exist";

const UPGRADE_HELP: &str = "\
Examples:
  # Move every root to aws 6.x: edit the constraints, relock every root they touch
  tfsum upgrade provider aws '~> 6.0' -r --platform linux_amd64,darwin_arm64 .

  # The newest published version, keeping each constraint's operator (~> 5.31 -> ~> 6.2)
  tfsum upgrade provider hashicorp/aws --strategy bump -r .

  # A registry module, and every call of a git repository's modules
  tfsum upgrade module terraform-aws-modules/vpc/aws 5.1.0 -r .
  tfsum upgrade module git::https://github.com/org/modules.git 1.4.0 -r .

  # required_version in the files Terraform reads (upgrade opentofu: OpenTofu's)
  tfsum upgrade terraform '>= 1.9, < 2.0' -r .

  # CI: exit 1 when anything would change; write nothing
  tfsum upgrade provider aws latest --check -r .

What is edited: required_providers entries (object and string form) and provider
blocks' version (provider), module calls' version or ?ref= tag (module),
required_version (terraform, opentofu); in .tf, .tofu, .tf.json and .tofu.json files of
every module directory the searched roots use (their local modules) or -r finds; never
under .terraform/. Only the value changes; trailing comments that terraform fmt aligned
stay aligned. NAME is a local name (aws) or a source address (hashicorp/aws, compared as
Terraform compares addresses); SOURCE names a registry module or a git repository (all
its //subdirs unless one is given), or with --match regex a pattern. A PATH that reads as
a constraint needs ./ in front.

CONSTRAINT is written as given; omitted or `latest`, it is the newest published stable
version, applied by --strategy: pin writes the version, bump moves each lower bound to
it, widen moves only the upper bounds past it. A git ref takes an exact version and keeps
its own spelling (v1.2.3 or 1.2.3).

Then, unless --no-lock, every root whose module tree holds an edit is relocked in the
same run, as tfsum lock would (same flags, same cache). A constraint no published version
satisfies, or a root that cannot be relocked, stops the run before anything is written;
otherwise every edited file and lock file is replaced, all or none. With --no-lock and a
CONSTRAINT, nothing is fetched: the constraint is only checked for syntax.

Exit status:
  0  done (or nothing to change)
  1  a constraint no version satisfies, a root that cannot be relocked, a file that
     cannot be read or written (nothing is written then), or (with --check) something
     would change
  2  usage error: bad flag, bad constraint, a PATH that does not exist";

const UPGRADE_FORMS_HELP: &str = "\
Examples:
  tfsum upgrade provider aws '~> 6.0' -r .
  tfsum upgrade provider hashicorp/aws latest --strategy bump -r .
  tfsum upgrade module terraform-aws-modules/vpc/aws 5.1.0 -r .
  tfsum upgrade terraform '>= 1.9, < 2.0' -r .

Each edits the constraints where they are declared, then relocks every root they touch
(unless --no-lock). `tfsum upgrade provider --help` says what is edited, how, and what
the exit status means.";

const OUTDATED_HELP: &str = "\
Examples:
  # Where the repository stands
  tfsum outdated -r .

  # For an issue or a pull-request comment; for programs
  tfsum outdated -r --format markdown .
  tfsum outdated -r --format json . > outdated.json

  # CI: exit 1 when anything is behind
  tfsum outdated -r --exit-code .

For every provider the roots require and every remote module they call: the version
locked (providers: the lock files; modules: what resolution picks), the newest the
constraints allow, the newest published stable version, where the constraints are
declared (file:line), and which roots use it. One row per provider or module and
locked version, sorted by how far behind (major, then minor, then patch). Version lists
come through the same cache as lock; nothing is written.

Exit status:
  0  done (with --exit-code: nothing is behind)
  1  a root or a version list could not be read, or (with --exit-code) something is
     behind its newest published version
  2  usage error";

const COMPLETIONS_HELP: &str = "\
Examples:
  # bash (current shell)
  source <(tfsum completions bash)

  # zsh: put _tfsum on your $fpath
  tfsum completions zsh > ~/.zfunc/_tfsum

  # fish
  tfsum completions fish > ~/.config/fish/completions/tfsum.fish

  # Regenerate the files checked into the repository
  tfsum completions --write-all completions/

Exit status:
  0  printed (or written)
  1  a file could not be written
  2  usage error";

/// Keep Terraform and OpenTofu dependency lock files correct for every platform.
#[derive(Debug, Parser)]
#[command(
    name = "tfsum",
    version,
    about,
    propagate_version = true,
    after_long_help = EXIT_STATUS
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

/// The command tree as clap sees it: every subcommand and flag, for the test that holds
/// the manual to it (`tests/it/docs.rs`).
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

#[derive(Debug, Args)]
pub(crate) struct GlobalArgs {
    /// Print only what needs attention: errors, and what fails or would change
    #[arg(
        short,
        long,
        global = true,
        conflicts_with = "verbose",
        help_heading = "Global options"
    )]
    pub quiet: bool,

    /// Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)
    #[arg(
        short,
        long,
        global = true,
        action = clap::ArgAction::Count,
        help_heading = "Global options"
    )]
    pub verbose: u8,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Write .terraform.lock.hcl for root modules, with hashes for every platform
    #[command(after_long_help = LOCK_HELP)]
    Lock(LockArgs),

    /// Rewrite existing lock files in canonical form, offline
    #[command(after_long_help = FMT_HELP)]
    Fmt(FmtArgs),

    /// Print the h1: and zh: hashes of a provider zip or unpacked provider directory
    #[command(after_long_help = HASH_HELP)]
    Hash(HashArgs),

    /// Check that every hash in existing lock files is vouched for by the registry or
    /// mirror; writes nothing
    #[command(after_long_help = VERIFY_HELP)]
    Verify(VerifyArgs),

    /// Merge two edited lock files three-way: a git merge driver, offline
    #[command(after_long_help = MERGE_DRIVER_HELP)]
    MergeDriver(MergeDriverArgs),

    /// Move version constraints across the repository and relock in the same run
    #[command(subcommand, after_long_help = UPGRADE_FORMS_HELP)]
    Upgrade(UpgradeCommand),

    /// Show which providers and modules are behind their newest versions; writes nothing
    #[command(after_long_help = OUTDATED_HELP)]
    Outdated(OutdatedArgs),

    /// Fill a provider directory with every locked package, verified, for race-free
    /// parallel `init` (a plugin cache or filesystem mirror), or push them to an OCI
    /// registry as OpenTofu's oci_mirror reads them
    #[command(after_long_help = MIRROR_HELP)]
    Mirror(MirrorArgs),

    /// Print a shell completion script
    #[command(after_long_help = COMPLETIONS_HELP)]
    Completions(CompletionsArgs),

    /// Print the man page (roff) or write one page per command into a directory
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub(crate) struct LockArgs {
    /// Root module directories (with -r: directories to search); files switch to
    /// changed-files mode [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Search the paths recursively for root modules
    #[arg(short, long)]
    pub recursive: bool,

    /// Write nothing; exit 1 and show a diff when a lock file is missing or out of date
    #[arg(long)]
    pub check: bool,

    /// Write as usual, but exit 1 naming each lock file created or updated (for
    /// pre-commit, which misses new files); a run that writes nothing exits 0
    #[arg(long)]
    pub fail_on_write: bool,

    /// Re-run only the roots that failed in the last run from this directory
    #[arg(long, conflicts_with_all = ["paths", "recursive"])]
    pub retry_failed: bool,

    /// Report format on stdout
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    #[command(flatten)]
    pub platforms: PlatformArgs,

    #[command(flatten)]
    pub roots: RootArgs,

    /// Choose the newest allowed version even when the locked one still satisfies the
    /// constraints
    #[arg(long)]
    pub upgrade: bool,

    /// Also fill this provider directory (as `tfsum mirror DIR`) with every locked
    /// package for the platforms locked, unpacking what the run downloads
    #[arg(long, value_name = "DIR", conflicts_with = "check")]
    pub mirror: Option<PathBuf>,

    /// Neither read nor update the configuration index kept in the cache: read every
    /// configuration file of the trees searched again (TFSUM_INDEX=false)
    #[arg(long)]
    pub no_index: bool,

    #[command(flatten)]
    pub values: ValueArgs,

    #[command(flatten)]
    pub sources: SourceArgs,
}

/// The platforms a command locks or installs (`lock`, `mirror`, `upgrade`).
#[derive(Debug, Args)]
pub(crate) struct PlatformArgs {
    /// Target platform OS_ARCH; repeat or separate with commas [default: this machine's]
    #[arg(long = "platform", value_name = "OS_ARCH", value_delimiter = ',')]
    pub platforms: Vec<Platform>,
}

/// Which roots a command reads, and as what (`lock`, `mirror`, `upgrade`, `outdated`).
#[derive(Debug, Args)]
pub(crate) struct RootArgs {
    /// Skip paths matching this regular expression (relative to the searched path, with /)
    #[arg(short = 'i', long = "ignore-path", value_name = "REGEX")]
    pub ignore_paths: Vec<String>,

    /// Read every root as this flavor, and that tool's CLI configuration [default:
    /// detected per root]
    #[arg(long, value_enum)]
    pub flavor: Option<FlavorArg>,
}

/// `tfsum mirror`: a directory to fill, the roots of `lock`, and its package sources.
#[derive(Debug, Args)]
pub(crate) struct MirrorArgs {
    /// The provider directory to fill (created if missing); with --layout oci, the
    /// OCI registry to push to: oci://HOST/PREFIX, HOST with its port if any
    /// (repositories PREFIX/NAMESPACE/TYPE, or a template such as
    /// oci://HOST/p/{hostname}/{namespace}/{type})
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// Root module directories (with -r: directories to search) [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Search the paths recursively for root modules
    #[arg(short, long)]
    pub recursive: bool,

    #[command(flatten)]
    pub platforms: PlatformArgs,

    #[command(flatten)]
    pub roots: RootArgs,

    /// unpacked: HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/ (a plugin cache or filesystem
    /// mirror); packed: zips and JSON indexes, as terraform providers mirror writes them;
    /// oci: push to an OCI registry as OpenTofu's oci_mirror reads it [default: unpacked,
    /// oci for an oci:// target]
    #[arg(long, value_enum)]
    pub layout: Option<LayoutArg>,

    /// Also write a complete CLI configuration to FILE: yours, plus a
    /// provider_installation block that installs the mirrored providers from DIR (with
    /// --layout oci: an oci_mirror block)
    #[arg(long, value_name = "FILE")]
    pub cli_config: Option<PathBuf>,

    /// Report format on stdout
    #[arg(long, value_enum, default_value_t = MirrorFormat::Text)]
    pub format: MirrorFormat,

    #[command(flatten)]
    pub values: ValueArgs,

    #[command(flatten)]
    pub sources: SourceArgs,
}

/// `tfsum mirror --layout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LayoutArg {
    Unpacked,
    Packed,
    Oci,
}

/// `tfsum mirror --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum MirrorFormat {
    /// One line per package installed or failing, then a summary
    Text,
    /// One JSON document
    Json,
}

/// Where packages come from and how they are fetched and cached: the flags `lock` and
/// `verify` share (one settings layer builds both commands' sources from them).
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct SourceArgs {
    /// Maximum concurrent downloads [default: 8]
    #[arg(
        short,
        long,
        value_name = "N",
        value_parser = clap::value_parser!(usize)
    )]
    pub jobs: Option<usize>,

    /// Maximum concurrent requests to one host [default: 6]
    #[arg(long, value_name = "N")]
    pub per_host: Option<usize>,

    /// Directory of the persistent hash cache [default: the OS cache dir + /tfsum]
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,

    /// Do not read or write the persistent hash cache
    #[arg(long, conflicts_with = "offline")]
    pub no_cache: bool,

    /// Use only the cache: make no network requests
    #[arg(long)]
    pub offline: bool,

    /// The organisation's shared hash cache, read on a local miss and written by a run
    /// holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file://
    /// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)
    #[arg(long, value_name = "URL", conflicts_with = "offline")]
    pub shared_cache: Option<String>,

    /// Do not use a shared cache, whatever the environment or config.toml say
    #[arg(long, conflicts_with = "shared_cache")]
    pub no_shared_cache: bool,

    /// Also write to the shared cache what the local cache already holds, to prefill it
    /// for the providers and platforms of this run (needs the signing key)
    #[arg(long, conflicts_with = "no_shared_cache")]
    pub fill_shared_cache: bool,

    /// How long a cached version list, and the commit a git ref was last listed at, stay
    /// fresh, in seconds [default: 300]
    #[arg(long, value_name = "SECONDS")]
    pub versions_ttl: Option<u64>,

    /// Read settings from this file instead of searching for .tfsum.toml
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Ignore the repository's .tfsum.toml
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,

    /// Take every package from this filesystem mirror instead of the registries (as
    /// terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes
    #[arg(long, value_name = "DIR", conflicts_with = "net_mirror")]
    pub fs_mirror: Option<PathBuf>,

    /// Take every package from this https network mirror instead of the registries (as
    /// terraform providers lock -net-mirror); a mirror vouches only for h1: hashes
    #[arg(long, value_name = "URL", conflicts_with = "offline")]
    pub net_mirror: Option<String>,

    /// Take packages where the CLI configuration's provider_installation block says
    /// (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init
    /// does
    #[arg(long, conflicts_with_all = ["fs_mirror", "net_mirror"])]
    pub use_cli_config_installation: bool,

    /// Take every package from this OpenTofu OCI registry mirror instead of the
    /// registries (as tofu providers lock -oci-mirror): a template such as
    /// registry.example/providers/{namespace}/{type}; records h1: and zh: per platform
    #[arg(
        long,
        value_name = "TEMPLATE",
        conflicts_with_all = ["fs_mirror", "net_mirror", "use_cli_config_installation", "offline"]
    )]
    pub oci_mirror: Option<String>,
}

/// `tfsum verify`: the paths of `fmt` and the package-source flags of `lock`.
#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// Lock files, or directories holding one (with -r: directories to search) [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Find every .terraform.lock.hcl below the directories
    #[arg(short, long)]
    pub recursive: bool,

    /// Report format on stdout
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    #[command(flatten)]
    pub values: ValueArgs,

    #[command(flatten)]
    pub sources: SourceArgs,
}

/// What `tfsum upgrade` moves.
#[derive(Debug, Subcommand)]
pub(crate) enum UpgradeCommand {
    /// required_providers entries and provider blocks of one provider
    #[command(after_long_help = UPGRADE_HELP)]
    Provider(UpgradeProviderArgs),

    /// The version (registry) or ?ref= tag (git) of module calls
    #[command(after_long_help = UPGRADE_HELP)]
    Module(UpgradeModuleArgs),

    /// required_version in the files Terraform reads (.tf, .tf.json)
    #[command(after_long_help = UPGRADE_HELP)]
    Terraform(UpgradeCoreArgs),

    /// required_version in the files OpenTofu reads (.tofu, .tofu.json, and .tf files
    /// without a .tofu twin)
    #[command(after_long_help = UPGRADE_HELP)]
    Opentofu(UpgradeCoreArgs),
}

#[derive(Debug, Args)]
pub(crate) struct UpgradeProviderArgs {
    /// A local name (aws) or a source address (hashicorp/aws, registry.terraform.io/hashicorp/aws)
    #[arg(value_name = "NAME")]
    pub name: String,

    /// The new constraint, written as given (6.0.0, '~> 6.0') [default: latest]
    #[arg(value_name = "CONSTRAINT")]
    pub constraint: Option<String>,

    /// Directories to search (with -r: below them), or configuration files [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// How CONSTRAINT omitted or `latest` changes each constraint [default: pin]
    #[arg(long, value_enum)]
    pub strategy: Option<StrategyArg>,

    #[command(flatten)]
    pub options: UpgradeOptions,
}

#[derive(Debug, Args)]
pub(crate) struct UpgradeModuleArgs {
    /// A registry module (terraform-aws-modules/vpc/aws) or a git repository (a git:: or
    /// github.com source); with --match regex a regular expression
    #[arg(value_name = "SOURCE")]
    pub source: String,

    /// The new constraint (registry) or version (git ref) [default: latest]
    #[arg(value_name = "CONSTRAINT")]
    pub constraint: Option<String>,

    /// Directories to search (with -r: below them), or configuration files [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// How SOURCE selects module calls
    #[arg(long = "match", value_enum, default_value_t = MatchArg::Full)]
    pub match_type: MatchArg,

    /// How CONSTRAINT omitted or `latest` changes each constraint [default: pin]
    #[arg(long, value_enum)]
    pub strategy: Option<StrategyArg>,

    #[command(flatten)]
    pub options: UpgradeOptions,
}

#[derive(Debug, Args)]
pub(crate) struct UpgradeCoreArgs {
    /// The new required_version, written as given (1.9.0, '>= 1.9, < 2.0')
    #[arg(value_name = "CONSTRAINT")]
    pub constraint: String,

    /// Directories to search (with -r: below them), or configuration files [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub options: UpgradeOptions,
}

/// Values for the variables that module `source` and `version` expressions read
/// (Terraform 1.15 `const` variables, OpenTofu's early evaluation), as `terraform init`
/// takes them: after `TF_VAR_*`, `terraform.tfvars` and `*.auto.tfvars`, in command-line
/// order.
#[derive(Debug, Args, Default)]
pub(crate) struct ValueArgs {
    /// Set a root module variable, as `terraform init -var`; repeatable. A root that does
    /// not declare NAME ignores it
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,

    /// Read variable values from a .tfvars or .tfvars.json file, as `terraform init
    /// -var-file`; repeatable
    #[arg(long = "var-file", value_name = "FILE")]
    pub var_files: Vec<PathBuf>,

    /// `--var` and `--var-file` in the order given (later wins), filled by
    /// [`Cli::parse_ordered`].
    #[arg(skip)]
    pub ordered: Vec<GivenValue>,
}

/// One `--var` or `--var-file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GivenValue {
    Var(String, String),
    File(PathBuf),
}

fn parse_var(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.to_string()))
        }
        _ => Err(format!("{text:?} is not NAME=VALUE")),
    }
}

impl ValueArgs {
    /// Puts `--var` and `--var-file` back in command-line order: clap keeps each flag's
    /// values apart, and which comes last decides a value given both ways.
    fn order(&mut self, matches: &clap::ArgMatches) {
        let indices = |id: &str| -> Vec<usize> {
            matches
                .indices_of(id)
                .map(|i| i.collect())
                .unwrap_or_default()
        };
        let vars = indices("vars").into_iter().zip(
            self.vars
                .iter()
                .map(|(n, v)| GivenValue::Var(n.clone(), v.clone())),
        );
        let files = indices("var_files")
            .into_iter()
            .zip(self.var_files.iter().cloned().map(GivenValue::File));
        let mut all: Vec<(usize, GivenValue)> = vars.chain(files).collect();
        all.sort_by_key(|(i, _)| *i);
        self.ordered = all.into_iter().map(|(_, v)| v).collect();
    }
}

impl Cli {
    /// Parses the command line, with `--var` and `--var-file` in their given order.
    pub(crate) fn parse_ordered() -> Cli {
        use clap::{CommandFactory, FromArgMatches};
        let matches = Cli::command().get_matches();
        let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
        if let Some((_, sub)) = matches.subcommand() {
            match &mut cli.command {
                Command::Lock(args) => args.values.order(sub),
                Command::Verify(args) => args.values.order(sub),
                Command::Outdated(args) => args.values.order(sub),
                Command::Mirror(args) => args.values.order(sub),
                Command::Upgrade(upgrade) => {
                    if let Some((_, inner)) = sub.subcommand() {
                        let options = match upgrade {
                            UpgradeCommand::Provider(a) => &mut a.options,
                            UpgradeCommand::Module(a) => &mut a.options,
                            UpgradeCommand::Terraform(a) | UpgradeCommand::Opentofu(a) => {
                                &mut a.options
                            }
                        };
                        options.values.order(inner);
                    }
                }
                _ => {}
            }
        }
        cli
    }
}

/// The flags every `upgrade` subcommand takes: how the edit is made and the lock flags
/// of the relock.
#[derive(Debug, Args)]
pub(crate) struct UpgradeOptions {
    /// Search the paths recursively for module directories and root modules
    #[arg(short, long)]
    pub recursive: bool,

    /// Write nothing; exit 1 when a constraint or a lock file would change
    #[arg(long)]
    pub check: bool,

    /// Edit the constraints only; relock nothing
    #[arg(long)]
    pub no_lock: bool,

    /// Report format on stdout
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    #[command(flatten)]
    pub platforms: PlatformArgs,

    #[command(flatten)]
    pub roots: RootArgs,

    #[command(flatten)]
    pub values: ValueArgs,

    #[command(flatten)]
    pub sources: SourceArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum StrategyArg {
    /// Write the version: ~> 5.31 becomes 6.2.0
    Pin,
    /// Keep the operators, move the lower bounds: ~> 5.31 becomes ~> 6.2
    Bump,
    /// Keep the lower bounds, extend the upper ones: < 6.0 becomes < 7.0
    Widen,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum MatchArg {
    /// The same registry module or git repository (any //subdir unless SOURCE gives one)
    Full,
    /// SOURCE is a regular expression searched in each source without its ref
    Regex,
}

#[derive(Debug, Args)]
pub(crate) struct OutdatedArgs {
    /// Root module directories (with -r: directories to search) [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Search the paths recursively for root modules
    #[arg(short, long)]
    pub recursive: bool,

    /// Report format on stdout
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Exit 1 when a provider or module is behind its newest published version
    #[arg(long)]
    pub exit_code: bool,

    #[command(flatten)]
    pub roots: RootArgs,

    #[command(flatten)]
    pub values: ValueArgs,

    #[command(flatten)]
    pub sources: SourceArgs,
}

#[derive(Debug, Args)]
pub(crate) struct FmtArgs {
    /// Lock files, or directories holding one (with -r: directories to search) [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Find every .terraform.lock.hcl below the directories
    #[arg(short, long)]
    pub recursive: bool,

    /// Write nothing; exit 1 and show a diff when a file is not canonical
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Args)]
pub(crate) struct HashArgs {
    /// Provider zip files or unpacked provider directories
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct MergeDriverArgs {
    /// The common ancestor's version (git's %O); an empty file when there is none
    #[arg(value_name = "BASE")]
    pub base: PathBuf,

    /// Our version (%A); replaced by the merged file
    #[arg(value_name = "OURS")]
    pub ours: PathBuf,

    /// Their version (%B)
    #[arg(value_name = "THEIRS")]
    pub theirs: PathBuf,

    /// The file's path in the repository (%P), for messages [default: OURS]
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to print completions for
    #[arg(value_enum, required_unless_present = "write_all")]
    pub shell: Option<Shell>,

    /// Write the completion files for every supported shell into DIR
    #[arg(long, value_name = "DIR", conflicts_with = "shell")]
    pub write_all: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Write tfsum.1 and one page per subcommand (tfsum-lock.1, …) into DIR instead of
    /// printing tfsum.1
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FlavorArg {
    Terraform,
    Opentofu,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// For people and logs: one line per root or file, details indented, a summary
    Text,
    /// One JSON document (schema in docs/json-report.md)
    Json,
    /// For a pull-request comment or $GITHUB_STEP_SUMMARY: what changes or fails
    Markdown,
}

/// The shells `completions --write-all` generates for, with the file name each one's
/// loader looks for.
pub(crate) const COMPLETION_FILES: &[(Shell, &str)] = &[
    (Shell::Bash, "tfsum.bash"),
    (Shell::Elvish, "tfsum.elv"),
    (Shell::Fish, "tfsum.fish"),
    (Shell::PowerShell, "_tfsum.ps1"),
    (Shell::Zsh, "_tfsum"),
];
