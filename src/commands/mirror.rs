//! `tfsum mirror DIR`: every provider package the roots' lock files lock, for every
//! platform asked, placed in `DIR` checked and whole, so that `terraform init` in every
//! root can run in parallel from it (as a plugin cache or a filesystem mirror) with no
//! download, no race on a shared cache, and no lock file touched.
//!
//! ```text
//! discover ──▶ load ──▶ install
//! (the roots of `lock`, their lock files)   (stages::install, disk::provider_dir)
//! ```
//!
//! It finds roots exactly as `lock` does and reads their lock files; it resolves nothing
//! and writes no lock file. The stages run through the driver of `lock`
//! ([`super::run::Pipeline::mirror`]); `tfsum lock --mirror DIR` runs the install stage
//! after writing, over the lock files it wrote.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::run::Pipeline;
use crate::commands::lock::{FatalError, Targets};
use crate::commands::settings::MirrorSettings;
use crate::disk::provider_dir::ProviderDir;
use crate::net::cliconfig;
use crate::report::mirror::MirrorReport;
use crate::stages::discover;
use crate::stages::load::Loaded;
use crate::stages::root::Root;
use crate::vocab::addr::ProviderAddr;
use crate::vocab::lockfile::Flavor;
use crate::vocab::progress::Progress;

/// Runs `tfsum mirror`.
pub(crate) async fn run(
    settings: &MirrorSettings,
    progress: Arc<dyn Progress>,
) -> Result<MirrorReport, FatalError> {
    let started = Instant::now();
    let services = settings.sources.services(progress.clone())?;
    let targets = Targets::new(&settings.paths, settings.recursive)?;
    let discovery = discover::discover(&targets.search, targets.recursive, &settings.ignore)?;
    let options = targets.load_options(settings.sources.flavor, &settings.values);
    let pipeline = Pipeline::new(&services, options, &settings.platforms, progress.as_ref());
    let limits = settings.sources.zip_limits.clone();
    let opened =
        ProviderDir::open(&settings.dir, settings.layout, limits).map_err(FatalError::Mirror)?;
    let keep = |root: &Root<Loaded>| targets.affects(root);
    let mut report = pipeline.mirror(discovery, keep, Arc::new(opened)).await;
    if let Some(file) = &settings.cli_config {
        let written = write_cli_config(settings, &report, file);
        report.cli_config = Some((file.clone(), written));
    }
    report.stats = services.sources.stats();
    report.elapsed = started.elapsed();
    Ok(report)
}

/// Writes the CLI configuration that installs the mirrored providers from the
/// directory: the user's own (as tfsum read it) plus the mirror. Only providers every
/// platform of which was placed are sent to the mirror.
fn write_cli_config(
    settings: &MirrorSettings,
    report: &MirrorReport,
    file: &Path,
) -> Result<(), String> {
    let env = settings
        .sources
        .environment
        .cli_config(report.opentofu || settings.sources.flavor == Some(Flavor::OpenTofu));
    let (config, _) = cliconfig::load(&env).map_err(|e| e.to_string())?;
    let mut mirrored: Vec<ProviderAddr> = Vec::new();
    for install in &report.packages {
        if !mirrored.contains(&install.provider) {
            mirrored.push(install.provider.clone());
        }
    }
    mirrored.retain(|addr| {
        report
            .packages
            .iter()
            .filter(|i| &i.provider == addr)
            .all(|i| i.outcome.is_ok())
    });
    mirrored.sort();
    let text = cliconfig::render::with_mirror(&config, &report.dir, &mirrored);
    // It may hold tokens: written private (0600), whole or not at all.
    let parent = file.parent().unwrap_or(Path::new("."));
    let mut staged = crate::disk::leftovers::TempFile::new_in(parent)
        .map_err(|e| format!("{}: {e}", parent.display()))?;
    std::io::Write::write_all(staged.as_file_mut(), text.as_bytes())
        .and_then(|()| staged.as_file().sync_all())
        .map_err(|e| format!("{}: {e}", file.display()))?;
    staged
        .rename_to(file)
        .map_err(|(e, _)| format!("{}: {e}", file.display()))
}
