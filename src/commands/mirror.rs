//! `tfsum mirror DIR`: every provider package the roots' lock files lock, for every
//! platform asked, placed in `DIR` checked and whole, so that `terraform init` in every
//! root can run in parallel from it (as a plugin cache or a filesystem mirror) with no
//! download, no race on a shared cache, and no lock file touched. With `--layout oci`
//! (`tfsum mirror oci://HOST/PREFIX`) the same packages are pushed to an OCI registry
//! instead, as OpenTofu's `oci_mirror` reads them (`stages::publish`).
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
use crate::commands::settings::{MirrorSettings, MirrorTarget};
use tfsum_disk::provider_dir::ProviderDir;
use tfsum_net::cliconfig;
use tfsum_report::mirror::{MirrorReport, MirrorRun};
use tfsum_report::publish::PublishReport;
use tfsum_sources::oci::publish::OciTarget;
use tfsum_stages::discover;
use tfsum_stages::load::Loaded;
use tfsum_stages::root::Root;
use tfsum_vocab::addr::ProviderAddr;
use tfsum_vocab::lockfile::Flavor;
use tfsum_vocab::progress::Progress;

/// What `tfsum mirror` did: filled a directory, or pushed to an OCI registry.
pub(crate) enum MirrorOutcome {
    Dir(MirrorReport),
    Oci(PublishReport),
}

impl MirrorOutcome {
    pub(crate) fn is_failure(&self) -> bool {
        match self {
            MirrorOutcome::Dir(report) => report.is_failure(),
            MirrorOutcome::Oci(report) => report.is_failure(),
        }
    }
}

/// Runs `tfsum mirror`.
pub(crate) async fn run(
    settings: &MirrorSettings,
    progress: Arc<dyn Progress>,
) -> Result<MirrorOutcome, FatalError> {
    let started = Instant::now();
    let services = settings.sources.services(progress.clone())?;
    let targets = Targets::new(&settings.paths, settings.recursive)?;
    let discovery = discover::discover(&targets.search, targets.recursive, &settings.ignore)?;
    let options = targets.load_options(settings.sources.flavor, &settings.values);
    let pipeline = Pipeline::new(&services, options, &settings.platforms, progress.as_ref());
    let keep = |root: &Root<Loaded>| targets.affects(root);
    let (dir, layout) = match &settings.target {
        MirrorTarget::Dir { dir, layout } => (dir, *layout),
        MirrorTarget::Oci(template) => {
            let access = services.oci.clone().ok_or(FatalError::OciOffline)?;
            let target = OciTarget::new(template.clone(), access);
            let (versions, roots, warnings) = pipeline.publish(discovery, keep, &target).await;
            let mut report = PublishReport {
                template: template.to_string(),
                versions,
                installation_block: String::new(),
                run: MirrorRun {
                    platforms: settings.platforms.clone(),
                    roots,
                    warnings,
                    stats: services.sources.stats(),
                    ..MirrorRun::default()
                },
            };
            let hcl = template.to_hcl();
            report.installation_block =
                cliconfig::render::oci_installation(&hcl, &report.mirrored());
            if let Some(file) = &settings.cli_config {
                let written = write_oci_cli_config(settings, &report, &hcl, file);
                report.run.cli_config = Some((file.clone(), written));
            }
            report.run.elapsed = started.elapsed();
            return Ok(MirrorOutcome::Oci(report));
        }
    };
    let limits = settings.sources.zip_limits.clone();
    let opened = ProviderDir::open(dir, layout, limits).map_err(FatalError::Mirror)?;
    let mut report = pipeline.mirror(discovery, keep, Arc::new(opened)).await;
    if let Some(file) = &settings.cli_config {
        let written = write_cli_config(settings, &report, file);
        report.run.cli_config = Some((file.clone(), written));
    }
    report.run.stats = services.sources.stats();
    report.run.elapsed = started.elapsed();
    Ok(MirrorOutcome::Dir(report))
}

/// Writes the CLI configuration that installs the pushed providers from the OCI
/// registry: the user's OpenTofu configuration plus an `oci_mirror` in front.
fn write_oci_cli_config(
    settings: &MirrorSettings,
    report: &PublishReport,
    template: &str,
    file: &Path,
) -> Result<(), String> {
    let env = settings.sources.environment.cli_config(true);
    let (config, _) = cliconfig::load(&env).map_err(|e| e.to_string())?;
    let text = cliconfig::render::with_oci_mirror(&config, template, &report.mirrored());
    write_private(&text, file)
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
    write_private(&text, file)
}

/// Writes a CLI configuration: it may hold tokens, so private (0600), whole or not at
/// all.
fn write_private(text: &str, file: &Path) -> Result<(), String> {
    let parent = file.parent().unwrap_or(Path::new("."));
    let mut staged = tfsum_disk::leftovers::TempFile::new_in(parent)
        .map_err(|e| format!("{}: {e}", parent.display()))?;
    std::io::Write::write_all(staged.as_file_mut(), text.as_bytes())
        .and_then(|()| staged.as_file().sync_all())
        .map_err(|e| format!("{}: {e}", file.display()))?;
    staged
        .rename_to(file)
        .map_err(|(e, _)| format!("{}: {e}", file.display()))
}
