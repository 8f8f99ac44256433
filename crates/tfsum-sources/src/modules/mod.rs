//! Remote modules as a package source: getting the code a `module` call names, once.
//!
//! The load stage follows module calls to gather provider requirements. Local calls are
//! directories next to the caller; remote ones (registry, git, archives) are fetched
//! here, as `terraform init` would fetch them, but at most once per run and, when the
//! identity is immutable, once ever (docs/spec/modules.md has the protocol facts). The
//! grammar they start from is the vocabulary's: source addresses (Terraform 1.0.3's
//! rules and Terragrunt's `tfr://`) in [`tfsum_vocab::module_source`], module versions
//! and the installer's version choice in [`tfsum_vocab::goversion`].
//!
//! - [`fetcher`] is the [`ModuleFetcher`]: dispatch by source kind, the shared download
//!   semaphore, `--offline` and statistics in `fetcher/mod.rs`; the per-run memo
//!   (`memo.rs`), registry modules (`registry.rs`, through
//!   [`tfsum_net::registry::RegistryClient`]), git sources (`from_git.rs`), http(s)
//!   archives and `X-Terraform-Get` pages (`http.rs`, through [`tfsum_net::http::Http`]),
//!   and where packages are kept (`store.rs`).
//! - [`git`] asks a repository for refs, a shallow fetch and the configuration files of
//!   a commit, through the runner of [`tfsum_net::git`]; [`archive`] reads archives;
//!   [`package`] checks what they contain (no escapes) and keeps only configuration files.
//! - [`error`] is [`ModuleError`], which names the source and keeps the cause as a value.
//! - [`cache`] is the module namespace of the one persistent cache
//!   ([`tfsum_disk::cache::Cache`]); [`git_objects`] checks cached git packages against
//!   their commit id.
//! - whether an existing `.terraform/modules/modules.json` entry still stands for a
//!   call, as `init` without `-upgrade` decides, is `tfsum_config::manifest`'s.
//!
//! A fetched package is a directory of configuration files; a caller loads it like any
//! module directory. Local calls inside it resolve with [`resolve_in_package`], which
//! refuses paths that leave the package.

pub mod archive;
pub(crate) mod cache;
pub(crate) mod error;
pub(crate) mod fetcher;
pub(crate) mod git;
pub(crate) mod git_objects;
pub(crate) mod package;

pub use archive::ArchiveLimits;
pub use error::ModuleError;
pub(crate) use error::{FetchError, KeepError, LocationError, PackageFault};
pub use fetcher::{FetchedModule, FetcherOptions, ModuleFetcher, ModuleStats};
pub use package::resolve_in_package;
