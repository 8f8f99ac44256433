//! Where a repository stands (`tfsum outdated`): for each provider and remote module,
//! the version locked, the newest the constraints allow, the newest published, where the
//! constraints are declared and which roots use it ([`OutdatedReport`]); printed as one
//! table (text), one JSON document (schema in `docs/outdated.md`) or markdown.

use std::cmp::Reverse;
use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use super::{code, kind_suffix, plural};
use tfsum_stages::root::RootKind;

/// Bumped on any incompatible change to the JSON document.
pub(crate) const OUTDATED_SCHEMA_VERSION: u32 = 1;

/// How far a version is behind the newest published one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Behind {
    /// At the newest version.
    None,
    Patch,
    Minor,
    Major,
    /// Something is missing (no lock entry, no version list).
    Unknown,
}

impl Behind {
    /// For the sort: the further behind, the higher; unknown between current and behind.
    fn rank(self) -> u8 {
        match self {
            Behind::None => 0,
            Behind::Unknown => 1,
            Behind::Patch => 2,
            Behind::Minor => 3,
            Behind::Major => 4,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Behind::None => "-",
            Behind::Patch => "patch",
            Behind::Minor => "minor",
            Behind::Major => "major",
            Behind::Unknown => "?",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    Provider,
    Module,
}

/// One place a constraint is declared.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct DeclaredAt {
    pub file: String,
    pub line: usize,
    pub constraint: String,
    /// For a module whose version comes from a variable or a local value: how the call
    /// reaches this place (`var.ref of module "iam" at main.tf:4`), or why no one place
    /// holds it. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

/// One provider or module at one locked version and one newest allowed version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    pub kind: ItemKind,
    /// A provider address, a registry module, or a git repository.
    pub name: String,
    /// Providers: the version the lock files hold (`None`: not locked yet). Modules: the
    /// version resolution picks (registry) or the ref names (git).
    pub locked: Option<String>,
    /// The newest published version the roots' constraints allow.
    pub allowed: Option<String>,
    /// The newest published stable version.
    pub latest: Option<String>,
    pub behind: Behind,
    /// Parts behind (major, minor, patch), for the sort; not printed.
    #[serde(skip)]
    pub distance: (u64, u64, u64),
    pub declared: Vec<DeclaredAt>,
    pub roots: Vec<PathBuf>,
}

/// A root that could not be read, so its versions are unknown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedRoot {
    pub root: PathBuf,
    #[serde(serialize_with = "kind_json")]
    pub kind: RootKind,
    pub error: String,
}

/// A root the report covers, and what kind of root it is: `items[].roots` name roots by
/// directory, and a Terraform Stack's directory looks like any other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadRoot {
    pub dir: PathBuf,
    /// In JSON `module`, `terragrunt_unit`, `terragrunt_stack` or `terraform_stack`, as
    /// in `tfsum lock`'s report ([`super::kind_word`]).
    #[serde(serialize_with = "kind_json")]
    pub kind: RootKind,
}

fn kind_json<S: serde::Serializer>(kind: &RootKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(super::kind_word(*kind))
}

#[derive(Debug, Default)]
pub struct OutdatedReport {
    pub items: Vec<Item>,
    /// Every root read, loaded or failed, in path order.
    pub roots: Vec<ReadRoot>,
    pub failed: Vec<FailedRoot>,
    pub warnings: Vec<String>,
}

impl OutdatedReport {
    /// Most behind first: major, minor, patch, then by how many versions, then by name,
    /// locked and allowed version (rows of one name differ in those); roots by path.
    pub fn sort(&mut self) {
        self.roots.sort_by(|a, b| a.dir.cmp(&b.dir));
        self.items.sort_by(|a, b| {
            let key = |i: &Item| (Reverse(i.behind.rank()), Reverse(i.distance));
            fn name(i: &Item) -> (ItemKind, &str, Option<&str>, Option<&str>) {
                (i.kind, &i.name, i.locked.as_deref(), i.allowed.as_deref())
            }
            key(a).cmp(&key(b)).then_with(|| name(a).cmp(&name(b)))
        });
    }

    pub(crate) fn behind(&self) -> usize {
        self.items
            .iter()
            .filter(|i| matches!(i.behind, Behind::Major | Behind::Minor | Behind::Patch))
            .count()
    }

    /// Exit 1: a root or a list could not be read, or (with `exit_code`) something is
    /// behind.
    pub fn is_failure(&self, exit_code: bool) -> bool {
        !self.failed.is_empty()
            || self.items.iter().any(|i| i.latest.is_none())
            || (exit_code && self.behind() > 0)
    }

    fn summary(&self) -> String {
        let count = |kind| self.items.iter().filter(|i| i.kind == kind).count();
        let tally = |level| self.items.iter().filter(|i| i.behind == level).count();
        let (providers, modules) = (count(ItemKind::Provider), count(ItemKind::Module));
        format!(
            "{providers} {}, {modules} {}: {} behind ({} major, {} minor, {} patch){}",
            plural(providers, "provider row", "provider rows"),
            plural(modules, "module row", "module rows"),
            self.behind(),
            tally(Behind::Major),
            tally(Behind::Minor),
            tally(Behind::Patch),
            if self.failed.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} {} failed",
                    self.failed.len(),
                    plural(self.failed.len(), "root", "roots")
                )
            }
        )
    }
}

fn or_dash(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("-")
}

/// `main.tf:3 "~> 5.0"` for the first place, and how many more.
fn declared_cell(item: &Item) -> String {
    match item.declared.split_first() {
        None => "-".to_string(),
        Some((first, rest)) => {
            let more = if rest.is_empty() {
                String::new()
            } else {
                format!(" (+{} more)", rest.len())
            };
            let via = first
                .via
                .as_ref()
                .map(|via| format!(" ({via})"))
                .unwrap_or_default();
            format!(
                "{}:{} {:?}{via}{more}",
                first.file, first.line, first.constraint
            )
        }
    }
}

fn name_cell(item: &Item) -> String {
    match item.kind {
        ItemKind::Provider => item.name.clone(),
        ItemKind::Module => format!("{} (module)", item.name),
    }
}

/// Writes the table: one row per item, the columns padded to the widest cell.
pub fn print_outdated_text(report: &OutdatedReport, out: &mut impl Write) -> std::io::Result<()> {
    let header = [
        "NAME", "LOCKED", "ALLOWED", "LATEST", "BEHIND", "ROOTS", "DECLARED",
    ];
    let rows: Vec<[String; 7]> = report
        .items
        .iter()
        .map(|i| {
            [
                name_cell(i),
                or_dash(&i.locked).to_string(),
                or_dash(&i.allowed).to_string(),
                or_dash(&i.latest).to_string(),
                i.behind.word().to_string(),
                i.roots.len().to_string(),
                declared_cell(i),
            ]
        })
        .collect();
    if !rows.is_empty() {
        let mut widths = header.map(|h| h.chars().count());
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: Vec<&str>| {
            let padded: Vec<String> = cells
                .iter()
                .zip(widths)
                .map(|(c, w)| format!("{c:<w$}"))
                .collect();
            padded.join("  ").trim_end().to_string()
        };
        writeln!(out, "{}", line(header.to_vec()))?;
        for row in &rows {
            writeln!(out, "{}", line(row.iter().map(String::as_str).collect()))?;
        }
    }
    for failed in &report.failed {
        writeln!(
            out,
            "failed: {}{}: {}",
            failed.root.display(),
            kind_suffix(failed.kind),
            failed.error
        )?;
    }
    for warning in &report.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    writeln!(out, "{}", report.summary())
}

#[derive(Serialize)]
struct JsonOutdated<'a> {
    schema_version: u32,
    ok: bool,
    behind: usize,
    items: &'a [Item],
    roots: &'a [ReadRoot],
    failed: &'a [FailedRoot],
    warnings: &'a [String],
}

/// Writes the JSON document (schema in `docs/outdated.md`), then a newline.
pub fn print_outdated_json(
    report: &OutdatedReport,
    exit_code: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let doc = JsonOutdated {
        schema_version: OUTDATED_SCHEMA_VERSION,
        ok: !report.is_failure(exit_code),
        behind: report.behind(),
        items: &report.items,
        roots: &report.roots,
        failed: &report.failed,
        warnings: &report.warnings,
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

/// Writes the markdown table for an issue or a pull-request comment; names from the
/// repository are in code spans.
pub fn print_outdated_markdown(
    report: &OutdatedReport,
    out: &mut impl Write,
) -> std::io::Result<()> {
    writeln!(out, "### tfsum outdated\n")?;
    writeln!(out, "{}\n", report.summary())?;
    if !report.items.is_empty() {
        writeln!(
            out,
            "| Name | Locked | Allowed | Latest | Behind | Roots | Declared |"
        )?;
        writeln!(out, "|---|---|---|---|---|---|---|")?;
        for i in &report.items {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                code(&name_cell(i)),
                code(or_dash(&i.locked)),
                code(or_dash(&i.allowed)),
                code(or_dash(&i.latest)),
                i.behind.word(),
                i.roots.len(),
                code(&declared_cell(i)),
            )?;
        }
    }
    for failed in &report.failed {
        writeln!(
            out,
            "\n- failed: {}{} {}",
            code(&failed.root.display().to_string()),
            kind_suffix(failed.kind),
            code(&failed.error)
        )?;
    }
    Ok(())
}
