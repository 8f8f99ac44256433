//! The JSON report of `tfsum lock` ([`print_json`]), and the parts `tfsum verify`'s shares
//! with it: warnings and errors as their text plus their kind and the data they name
//! ([`warnings`], [`errors`]). The schema is in docs/json-report.md; fields are
//! only ever added within a `schema_version`.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::mirror::{counts, word, Counts, MirrorReport, MirrorRun};
use super::publish::{self, PublishCounts, PublishReport};
use super::{detail, RunReport, JSON_SCHEMA_VERSION};
use tfsum_config::ConfigError;
use tfsum_disk::provider_dir::Layout;
use tfsum_sources::{PackageError, VersionsError};
use tfsum_stages::root::{RootError, SelectionError};
use tfsum_stages::warning::Warning;
use tfsum_stages::write::changes::ProviderChange;
use tfsum_stages::write::Change;

#[derive(Serialize)]
struct JsonReport<'a> {
    schema_version: u32,
    check: bool,
    ok: bool,
    roots: Vec<JsonRoot<'a>>,
    warnings: Vec<String>,
    warning_details: Vec<JsonWarning>,
    stats: JsonStats,
    elapsed_ms: u64,
    /// `--mirror DIR`: the `tfsum mirror` report of the directory (docs/mirror.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    mirror: Option<serde_json::Value>,
}

#[derive(Serialize)]
struct JsonRoot<'a> {
    dir: String,
    kind: &'static str,
    outcome: &'static str,
    detail: Option<String>,
    diff: Option<&'a str>,
    /// Added in schema 1 without a bump: a new field breaks no reader.
    changes: &'a [ProviderChange],
    /// Why it failed, one item per cause; empty unless it failed.
    errors: Vec<FailureCause>,
}

#[derive(Serialize)]
struct JsonStats {
    roots: usize,
    created: usize,
    updated: usize,
    unchanged: usize,
    /// Always 0: no root is skipped since remote Terragrunt sources are fetched. Kept
    /// so that schema 1 readers find every field they were promised.
    skipped: usize,
    failed: usize,
    packages_downloaded: u64,
    packages_from_cache: u64,
    packages_from_mirror: u64,
    bytes_downloaded: u64,
    sums_fetched: u64,
    modules_fetched: usize,
    modules_from_cache: usize,
    #[serde(flatten)]
    shared: Option<SharedJson>,
}

/// The shared cache's counters, present only when a shared cache was configured.
#[derive(Serialize)]
pub(crate) struct SharedJson {
    packages_from_shared_cache: u64,
    written_to_shared_cache: u64,
    rejected_by_signature: u64,
}

impl From<tfsum_sources::SharedStats> for SharedJson {
    fn from(stats: tfsum_sources::SharedStats) -> SharedJson {
        SharedJson {
            packages_from_shared_cache: stats.read,
            written_to_shared_cache: stats.written,
            rejected_by_signature: stats.rejected,
        }
    }
}

/// Writes the JSON report (one document, then a newline).
pub fn print_json(report: &RunReport, out: &mut impl Write) -> std::io::Result<()> {
    let stats = &report.stats;
    let (warnings, warning_details) = self::warnings(&report.warnings);
    let doc = JsonReport {
        mirror: report.mirror.as_ref().map(mirror_json),
        schema_version: JSON_SCHEMA_VERSION,
        check: report.check,
        ok: !report.is_failure(),
        roots: report
            .roots
            .iter()
            .map(|root| {
                let lines = detail(&root.outcome, report.check);
                let shown = report.check || root.outcome.error().is_some();
                JsonRoot {
                    dir: root.dir.to_string_lossy().into_owned(),
                    kind: super::kind_word(root.kind),
                    outcome: root.outcome.record_word(),
                    detail: (shown && !lines.is_empty()).then(|| lines.join("\n")),
                    diff: root.outcome.diff(),
                    changes: root.outcome.changes(),
                    errors: root.outcome.error().map(errors).unwrap_or_default(),
                }
            })
            .collect(),
        warnings,
        warning_details,
        stats: JsonStats {
            roots: report.roots.len(),
            created: report.count(Change::Created),
            updated: report.count(Change::Updated),
            unchanged: report.count(Change::Unchanged),
            skipped: 0,
            failed: report.failed(),
            packages_downloaded: stats.packages_downloaded,
            packages_from_cache: stats.packages_from_cache,
            packages_from_mirror: stats.packages_from_mirror,
            bytes_downloaded: stats.zip_bytes_downloaded,
            sums_fetched: stats.sums_fetched,
            modules_fetched: report.modules.modules_fetched,
            modules_from_cache: report.modules.modules_from_cache,
            shared: stats.shared.map(Into::into),
        },
        elapsed_ms: u64::try_from(report.elapsed.as_millis()).unwrap_or(u64::MAX),
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

/// A warning beside its text: its kind and what it is about. Every field is present,
/// `null` when the warning has no such thing.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub(crate) struct JsonWarning {
    kind: &'static str,
    message: String,
    file: Option<String>,
    line: Option<usize>,
    provider: Option<String>,
}

/// The warnings as text (the schema's `warnings`) and with their kind and location
/// (`warning_details`), in the same order.
pub(crate) fn warnings(warnings: &[Warning]) -> (Vec<String>, Vec<JsonWarning>) {
    let details = warnings
        .iter()
        .map(|w| JsonWarning {
            kind: w.kind(),
            message: w.to_string(),
            file: w.path().map(lossy),
            line: w.line(),
            provider: w.provider().map(ToString::to_string),
        })
        .collect();
    (warnings.iter().map(ToString::to_string).collect(), details)
}

/// One cause of a root's failure: its kind, its text, and what it names. Every field is
/// present, `null` when the cause has no such thing.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub(crate) struct FailureCause {
    kind: &'static str,
    message: String,
    file: Option<String>,
    line: Option<usize>,
    provider: Option<String>,
    version: Option<String>,
    platform: Option<String>,
    url: Option<String>,
}

/// The causes of a root's failure: one per provider that could not be chosen or package
/// that could not be hashed, else one.
pub(crate) fn errors(error: &RootError) -> Vec<FailureCause> {
    let one = |kind, file: Option<&Path>, line| {
        vec![FailureCause {
            kind,
            message: error.to_string(),
            file: file.map(lossy),
            line,
            ..FailureCause::default()
        }]
    };
    match error {
        RootError::Config(e) => {
            let (file, line) = config_location(e);
            one("configuration", Some(file), line)
        }
        RootError::Terragrunt(_) => one("terragrunt", None, None),
        RootError::UnitSource { unit, .. } => one("unit_source", Some(unit), None),
        RootError::LockFile { path, .. } => one("lock_file", Some(path), None),
        RootError::Link(e) => one("lock_file_link", Some(&e.link), None),
        RootError::Constraint(e) => {
            let mut found = one("constraint", Some(&e.at.file), Some(e.at.line));
            found[0].provider = Some(e.provider.to_string());
            found
        }
        RootError::Stack { problems, .. } => problems
            .iter()
            .map(|e| {
                let (file, line) = config_location(e);
                FailureCause {
                    kind: "stack_check",
                    message: e.to_string(),
                    file: Some(lossy(file)),
                    line,
                    ..FailureCause::default()
                }
            })
            .collect(),
        RootError::Selection(list) => list.iter().map(selection).collect(),
        RootError::Packages(list) => list.iter().map(package).collect(),
        RootError::Write { path, .. } => one("write", Some(path), None),
    }
}

fn selection(error: &SelectionError) -> FailureCause {
    match error {
        SelectionError::VersionList(e) => versions(e),
        SelectionError::NoMatch(no_match) => {
            let declared = no_match.declared.first();
            FailureCause {
                kind: "no_matching_version",
                message: error.to_string(),
                file: declared.map(|d| lossy(&d.file)),
                line: declared.map(|d| d.line),
                provider: Some(no_match.provider.to_string()),
                version: no_match.locked.as_ref().map(ToString::to_string),
                ..FailureCause::default()
            }
        }
    }
}

fn versions(error: &VersionsError) -> FailureCause {
    let provider = match error {
        VersionsError::Offline { provider }
        | VersionsError::NoMethod { provider }
        | VersionsError::NotFound { provider, .. } => Some(provider.to_string()),
        VersionsError::Registry(_) | VersionsError::Mirror(_) => None,
    };
    FailureCause {
        kind: error.kind(),
        message: error.to_string(),
        provider,
        url: error.url(),
        ..FailureCause::default()
    }
}

fn package(error: &PackageError) -> FailureCause {
    FailureCause {
        kind: error.kind(),
        message: error.to_string(),
        provider: Some(error.provider.to_string()),
        version: Some(error.version.to_string()),
        platform: error.platform.as_ref().map(ToString::to_string),
        url: error.url(),
        ..FailureCause::default()
    }
}

/// The file (or directory) and line a configuration error names.
fn config_location(error: &ConfigError) -> (&Path, Option<usize>) {
    match error {
        ConfigError::Read { path, .. } => (path, None),
        ConfigError::NoConfiguration { dir, .. } => (dir, None),
        ConfigError::Syntax { file, line, .. } => (file, Some(*line)),
        ConfigError::ProviderSource { at, .. }
        | ConfigError::Invalid { at, .. }
        | ConfigError::RemoteModule { at, .. }
        | ConfigError::ModuleCall { at, .. }
        | ConfigError::Component { at, .. }
        | ConfigError::RemoteComponent { at, .. }
        | ConfigError::EarlyEval { at, .. } => (&at.file, Some(at.line)),
    }
}

fn lossy(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfsum_config::Location;
    use tfsum_net::download::DownloadError;
    use tfsum_sources::testing::hashicorp;
    use tfsum_sources::{PackageProblem, SourceWarning};
    use tfsum_vocab::version::Version;

    /// Each cause of a failure is one item, with its kind and what it names; a warning
    /// has its kind and location beside its text.
    #[test]
    fn errors_and_warnings_name_what_they_are_about() {
        let null = hashicorp("null");
        let version = Version::new(3, 2, 1);
        let linux = "linux_amd64".parse().unwrap();
        let url = url::Url::parse("https://example.com/null.zip").unwrap();
        let download = PackageProblem::Download {
            url: url.clone(),
            error: Box::new(DownloadError::Content(
                tfsum_net::download::SinkError::Open(std::sync::Arc::new(std::io::Error::other(
                    "connection reset",
                ))),
            )),
        };
        let offline = VersionsError::Offline {
            provider: hashicorp("random"),
        };
        let failed = RootError::Packages(vec![PackageError::new(
            &null,
            &version,
            Some(&linux),
            download,
        )]);
        let selection = RootError::Selection(vec![SelectionError::VersionList(offline)]);
        let syntax = RootError::Config(ConfigError::Invalid {
            at: Location {
                file: Path::new("main.tf").into(),
                line: 3,
            },
            message: "bad".to_string(),
        });
        let got: Vec<FailureCause> = [failed, selection, syntax]
            .iter()
            .flat_map(errors)
            .collect();
        let want = [
            FailureCause {
                kind: "download",
                message: "registry.terraform.io/hashicorp/null 3.2.1 (linux_amd64): connection reset".to_string(),
                provider: Some(null.to_string()),
                version: Some("3.2.1".to_string()),
                platform: Some("linux_amd64".to_string()),
                url: Some(url.to_string()),
                ..FailureCause::default()
            },
            FailureCause {
                kind: "offline",
                message: "offline, and the cache holds no version list for registry.terraform.io/hashicorp/random".to_string(),
                provider: Some(hashicorp("random").to_string()),
                ..FailureCause::default()
            },
            FailureCause {
                kind: "configuration",
                message: "main.tf:3: bad".to_string(),
                file: Some("main.tf".to_string()),
                line: Some(3),
                ..FailureCause::default()
            },
        ];
        assert_eq!(got, want);

        let skipped = Warning::Source(SourceWarning::FsMirrorSkipped {
            path: "m/x.zip".into(),
            reason: tfsum_sources::error::SkipReason::NoFields,
        });
        let (text, details) = warnings(&[skipped]);
        assert_eq!(
            text,
            ["filesystem mirror: m/x.zip: the name does not include version, target OS and architecture; skipped"]
        );
        assert_eq!(
            details,
            [JsonWarning {
                kind: "fs_mirror_entry_skipped",
                message: text[0].clone(),
                file: Some("m/x.zip".to_string()),
                line: None,
                provider: None,
            }]
        );
    }
}

// ---- `tfsum mirror` ----------------------------------------------------------------

#[derive(Serialize)]
struct JsonMirror {
    schema_version: u32,
    dir: String,
    layout: &'static str,
    platforms: Vec<String>,
    packages: Vec<JsonMirrorPackage>,
    roots: Vec<JsonMirrorRoot>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cli_config: Option<JsonMirrorCliConfig>,
    warnings: Vec<String>,
    warning_details: Vec<JsonWarning>,
    summary: JsonMirrorSummary<Counts>,
}

#[derive(Serialize)]
struct JsonMirrorPackage {
    provider: String,
    version: String,
    platform: String,
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// Lock files that lock this version but record no hash of the package.
    unmatched_lock_files: Vec<String>,
}

#[derive(Serialize)]
struct JsonMirrorRoot {
    dir: String,
    error: String,
}

#[derive(Serialize)]
struct JsonMirrorCliConfig {
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// A mirror report's summary: its own counts, then what every mirror run counts.
#[derive(Serialize)]
struct JsonMirrorSummary<C> {
    #[serde(flatten)]
    counts: C,
    root_failures: usize,
    packages_downloaded: u64,
    bytes_downloaded: u64,
    elapsed_seconds: f64,
}

/// What both mirror reports' JSON takes from their [`MirrorRun`], each part in its
/// place of the document.
struct JsonMirrorRun {
    platforms: Vec<String>,
    roots: Vec<JsonMirrorRoot>,
    cli_config: Option<JsonMirrorCliConfig>,
    warnings: Vec<String>,
    warning_details: Vec<JsonWarning>,
}

impl JsonMirrorRun {
    fn of(run: &MirrorRun) -> JsonMirrorRun {
        let lossy = |p: &std::path::Path| p.to_string_lossy().into_owned();
        let (warnings, warning_details) = self::warnings(&run.warnings);
        JsonMirrorRun {
            platforms: run.platforms.iter().map(ToString::to_string).collect(),
            roots: run
                .roots
                .iter()
                .map(|(dir, e)| JsonMirrorRoot {
                    dir: lossy(dir),
                    error: e.to_string(),
                })
                .collect(),
            cli_config: run
                .cli_config
                .as_ref()
                .map(|(path, r)| JsonMirrorCliConfig {
                    path: lossy(path),
                    error: r.as_ref().err().cloned(),
                }),
            warnings,
            warning_details,
        }
    }
}

impl<C> JsonMirrorSummary<C> {
    fn of(counts: C, run: &MirrorRun) -> JsonMirrorSummary<C> {
        JsonMirrorSummary {
            counts,
            root_failures: run.roots.len(),
            packages_downloaded: run.stats.packages_downloaded,
            bytes_downloaded: run.stats.zip_bytes_downloaded,
            elapsed_seconds: run.elapsed.as_secs_f64(),
        }
    }
}

/// `tfsum mirror`'s JSON report: one document (docs/mirror.md).
pub fn print_mirror_json(report: &MirrorReport, out: &mut impl Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &mirror_json(report))?;
    writeln!(out)
}

/// The JSON report as a value (also the `mirror` member of `lock --mirror`'s report).
pub(crate) fn mirror_json(report: &MirrorReport) -> serde_json::Value {
    let lossy = |p: &std::path::Path| p.to_string_lossy().into_owned();
    let run = JsonMirrorRun::of(&report.run);
    let doc = JsonMirror {
        schema_version: JSON_SCHEMA_VERSION,
        dir: lossy(&report.dir),
        layout: match report.layout {
            Layout::Unpacked => "unpacked",
            Layout::Packed => "packed",
        },
        platforms: run.platforms,
        packages: report
            .packages
            .iter()
            .map(|i| JsonMirrorPackage {
                provider: i.provider.to_string(),
                version: i.version.to_string(),
                platform: i.platform.to_string(),
                outcome: word(i),
                error: i.outcome.as_ref().err().map(ToString::to_string),
                unmatched_lock_files: i.unmatched.iter().map(|p| lossy(p)).collect(),
            })
            .collect(),
        roots: run.roots,
        cli_config: run.cli_config,
        warnings: run.warnings,
        warning_details: run.warning_details,
        summary: JsonMirrorSummary::of(counts(report), &report.run),
    };
    serde_json::to_value(doc).unwrap_or_default()
}

// ---- `tfsum mirror --layout oci` ---------------------------------------------------

#[derive(Serialize)]
struct JsonPublish {
    schema_version: u32,
    layout: &'static str,
    repository_template: String,
    platforms: Vec<String>,
    versions: Vec<JsonPublishVersion>,
    roots: Vec<JsonMirrorRoot>,
    installation_block: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    cli_config: Option<JsonMirrorCliConfig>,
    warnings: Vec<String>,
    warning_details: Vec<JsonWarning>,
    summary: JsonMirrorSummary<PublishCounts>,
}

#[derive(Serialize)]
struct JsonPublishVersion {
    provider: String,
    version: String,
    reference: Option<String>,
    tag: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    platforms: Vec<JsonPublishPlatform>,
}

#[derive(Serialize)]
struct JsonPublishPlatform {
    platform: String,
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// `tfsum mirror --layout oci`'s JSON report: one document (docs/mirror.md).
pub fn print_publish_json(report: &PublishReport, out: &mut impl Write) -> std::io::Result<()> {
    let run = JsonMirrorRun::of(&report.run);
    let doc = JsonPublish {
        schema_version: JSON_SCHEMA_VERSION,
        layout: "oci",
        repository_template: report.template.clone(),
        platforms: run.platforms,
        versions: report
            .versions
            .iter()
            .map(|v| JsonPublishVersion {
                provider: v.provider.to_string(),
                version: v.version.to_string(),
                reference: v.reference.clone(),
                tag: publish::tag_word(&v.tag),
                error: v.tag.as_ref().err().map(ToString::to_string),
                platforms: v
                    .platforms
                    .iter()
                    .map(|p| JsonPublishPlatform {
                        platform: p.platform.to_string(),
                        outcome: publish::word(&p.outcome),
                        error: p.outcome.as_ref().err().map(ToString::to_string),
                    })
                    .collect(),
            })
            .collect(),
        roots: run.roots,
        installation_block: report.installation_block.clone(),
        cli_config: run.cli_config,
        warnings: run.warnings,
        warning_details: run.warning_details,
        summary: JsonMirrorSummary::of(report.counts(), &report.run),
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
