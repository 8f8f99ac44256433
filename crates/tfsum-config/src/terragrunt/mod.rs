//! Terragrunt units: the Terraform configuration a `terragrunt.hcl` stands for, so each
//! unit gets a complete lock file of its own (issue 8).
//!
//! A **unit** is a directory holding `terragrunt.hcl` ([`find_units`]). When
//! Terragrunt runs one it builds a working directory: the module named by
//! `terraform { source = … }` (from the unit or an included parent), the unit directory's
//! own files copied over it, and the files of `generate` blocks written into it. Then it
//! runs Terraform there and copies `.terraform.lock.hcl` back next to `terragrunt.hcl`.
//! tfsum builds no working directory; it describes one ([`UnitConfig`]: a module directory
//! plus in-memory [`OverlayFile`]s) and loads it with
//! [`crate::load_module_with_overlay`] ([`unit_requirements`]). **The lock file of
//! a unit belongs in the unit directory** ([`UnitConfig::lock_file`]), which is where
//! Terragrunt reads it from and copies it back to.
//!
//! The parts:
//!
//! * `parse` reads one Terragrunt file into includes, locals, source and generate blocks;
//! * `eval` evaluates them with Terragrunt's functions (`get_repo_root()`,
//!   `find_in_parent_folders()`, `path_relative_to_include()`, …);
//! * `source` classifies the source: a local directory, or a remote source the load
//!   stage fetches like a module source (`tfsum_sources::modules`);
//! * `generate` lays the unit's files and generated files over the module (`if_exists`);
//! * `units` finds units under the given paths;
//! * `limits` bounds what a hostile file can make evaluation do (stack, read depth,
//!   value size), and runs evaluation on a thread whose stack fits those bounds;
//! * this file ties them together in [`load_unit`].
//!
//! Include semantics follow Terragrunt's `config/include.go`: a parent file is evaluated
//! *for the unit* (its `get_terragrunt_dir()` is the unit's directory, its
//! `path_relative_to_include()` the unit's path below the parent); the unit's own
//! `terraform.source` wins over its parents', and of several includes the later one wins;
//! `generate` blocks merge by label the same way; `merge_strategy = "no_merge"` leaves a
//! parent out; locals are per file and never merged. A relative local source is relative
//! to the unit directory even when a parent sets it (Terragrunt hands it to go-getter
//! with the unit directory as the working directory). An included file may not include
//! another (Terragrunt allows one level). `include` paths are evaluated before `locals`,
//! as in Terragrunt, so they can use functions but not locals. With `expose = true` the
//! unit can read `include.<label>.locals.…` (and `include.<label>.terraform.source`).
//!
//! Not modelled: `terragrunt.hcl.json`, `read_terragrunt_config` of anything but `locals`,
//! `dependency` outputs, `get_env`/`run_cmd` (they fail with
//! [`TerragruntError::UnsupportedFunction`] when a needed value uses them), `download_dir`
//! (the cache is looked for in the unit directory only), and `skip`/`exclude`.

mod eval;
mod generate;
mod limits;
mod parse;
mod source;
pub mod stack;
mod units;
mod virtual_dirs;
pub(crate) mod written;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::eval::value::Value;
use eval::Map;

use crate::parsed::ParsedFiles;
use crate::tree::{
    module_tree_requirements, ModuleReader, Remote, TreeRequirements, LOCK_FILE_NAME,
};
use crate::{load_module_with_overlay, ConfigError, Module, OverlayFile};
use tfsum_disk::walk::Listings;
use tfsum_vocab::module_source::{ModuleSource as RemoteSource, TerragruntSource};
use tfsum_vocab::paths::normalize_path;

use crate::paths::{absolute, in_style_of};
use eval::{
    at_line, with_scope, Abort, AbortKind, EvalFailure, Includes, Locals, ResolvedInclude, Scope,
};
use generate::Generated;
use parse::{parse_file, Expr, TgFile};
use source::Classified;

pub use limits::{with_edited, EditedTexts};
pub use tfsum_vocab::paths::UNIT_FILE_NAME;
pub use units::find_units;
pub use written::WrittenSource;

/// The repository root for `get_repo_root()`: the nearest directory at or above `start`
/// that holds `.git` (a directory, or a file for worktrees and submodules), else `start`.
/// Returned in the style of `start` (relative stays relative to the current directory).
/// Terragrunt asks `git rev-parse --show-toplevel`; looking for `.git` gives the same
/// answer without running git.
pub fn find_repo_root(start: &Path) -> PathBuf {
    match tfsum_disk::walk::repository_root(&absolute(start)) {
        Some(root) => in_style_of(&root, start),
        None => normalize_path(start),
    }
}

/// Where a unit's Terraform configuration lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnitSource {
    /// A local `terraform.source`: the module directory (the `//` form joined, `?ref=`
    /// dropped).
    Local(PathBuf),
    /// A remote `terraform.source` (`git::`, `tfr://`, registry hosts, https), to be
    /// fetched like a module source and then given to [`UnitConfig::fetched`].
    Remote {
        /// As evaluated.
        text: String,
        source: TerragruntSource,
    },
    /// A remote source after fetching: `dir` is the module's directory in the module
    /// cache.
    Fetched { text: String, dir: PathBuf },
    /// No `terraform.source`: the unit directory itself holds the `.tf` files.
    None,
}

/// A unit's effective Terraform configuration, ready for [`unit_requirements`].
#[derive(Debug, Clone, PartialEq)]
pub struct UnitConfig {
    /// The unit directory, normalised, in the style it was given: where its lock file
    /// goes. For a unit a stack generates, its generated directory, which need not exist.
    pub unit_dir: PathBuf,
    /// Where the unit's own files are: `unit_dir`, or for a generated unit its source.
    pub files_dir: PathBuf,
    pub source: UnitSource,
    /// Files laid over the module directory as Terragrunt's working copy has them: the
    /// unit directory's own configuration files (when there is a source) and the files of
    /// `generate` blocks, after `if_exists` was applied. Sorted by name. Empty until a
    /// remote source is fetched: `if_exists` depends on the module's files.
    pub overlay: Vec<OverlayFile>,
    generated: Vec<Generated>,
    /// For a unit a stack generates: the directories whose files define it (the stack
    /// files' directories, the unit's source), so that changing one relocks it.
    pub defined_by: Vec<PathBuf>,
    /// For a unit a stack generates: the stack directory of the repository it comes
    /// from, below which its generated directory may be created for the lock file.
    pub create_below: Option<PathBuf>,
    /// `inputs`, merged over the includes as `terraform.source` is: what Terragrunt
    /// passes the module as `TF_VAR_` variables, which module sources may read. An
    /// input that could not be evaluated keeps its reason.
    pub inputs: BTreeMap<String, UnitInput>,
    /// The sources that decide what it locks, with where their versions are written:
    /// the `source` of each stack block that generated it (outermost first), then its
    /// own `terraform.source`.
    pub sources: Vec<WrittenSource>,
}

/// One entry of a unit's `inputs`.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitInput {
    pub value: Result<Value, String>,
    /// Where it is set.
    pub at: crate::Location,
}

impl UnitConfig {
    /// The directory whose module (with [`UnitConfig::overlay`] applied) is the unit's
    /// root module; `None` while a remote source waits to be fetched.
    pub fn module_dir(&self) -> Option<&Path> {
        match &self.source {
            UnitSource::Local(dir) | UnitSource::Fetched { dir, .. } => Some(dir),
            UnitSource::None => Some(&self.files_dir),
            UnitSource::Remote { .. } => None,
        }
    }

    /// The unit once its remote source was fetched into `dir`.
    pub fn fetched(&self, dir: PathBuf) -> Result<UnitConfig, TerragruntError> {
        let text = match &self.source {
            UnitSource::Remote { text, .. } | UnitSource::Fetched { text, .. } => text.clone(),
            UnitSource::Local(_) | UnitSource::None => return Ok(self.clone()),
        };
        let mut unit = self.clone();
        unit.source = UnitSource::Fetched { text, dir };
        unit.with_overlay()
    }

    fn with_overlay(mut self) -> Result<UnitConfig, TerragruntError> {
        if let Some(dir) = self.module_dir() {
            self.overlay = generate::overlay(&self.files_dir, dir, &self.generated)?;
        }
        Ok(self)
    }

    /// Where the unit's lock file goes: next to `terragrunt.hcl`, never in the module
    /// directory (which other units may share).
    pub fn lock_file(&self) -> PathBuf {
        self.unit_dir.join(LOCK_FILE_NAME)
    }
}

/// Why a unit could not be loaded. Each names the file (and line where there is one).
#[derive(Debug, thiserror::Error)]
pub enum TerragruntError {
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}:{column}: syntax error: {message}", file.display())]
    Syntax {
        file: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{}:{line}: function {name}() is not supported by tfsum (supported: {})",
        file.display(),
        eval::SUPPORTED_FUNCTIONS.join(", ")
    )]
    UnsupportedFunction {
        file: PathBuf,
        line: usize,
        name: String,
    },
    #[error("{}:{line}: {message}", file.display())]
    Invalid {
        file: PathBuf,
        line: usize,
        message: String,
    },
    #[error(
        "{}:{line}: terraform.source {:?} points to {}, which is not a directory",
        file.display(),
        tfsum_vocab::module_source::redacted_source(module_source),
        dir.display()
    )]
    MissingSource {
        file: PathBuf,
        line: usize,
        module_source: String,
        dir: PathBuf,
    },
    #[error("{}:{line}: terraform.source {:?}: {error}", file.display(), tfsum_vocab::module_source::redacted_source(module_source))]
    BadSource {
        file: PathBuf,
        line: usize,
        module_source: String,
        error: tfsum_vocab::module_source::SourceError,
    },
    #[error(
        "{}:{line}: generate {label:?}: {} already exists and if_exists = {if_exists:?}",
        file.display(),
        path.display()
    )]
    GenerateConflict {
        file: PathBuf,
        line: usize,
        label: String,
        path: PathBuf,
        if_exists: String,
    },
    /// `read_terragrunt_config` reached a file that was already being evaluated; `chain`
    /// runs from the unit's file to the file read again.
    #[error("{}:{line}: read_terragrunt_config cycle: {chain}", file.display())]
    ReadCycle {
        file: PathBuf,
        line: usize,
        chain: String,
    },
    #[error(
        "{}:{line}: read_terragrunt_config nests more than {} files deep: {chain}",
        file.display(),
        limits::MAX_READ_DEPTH
    )]
    ReadTooDeep {
        file: PathBuf,
        line: usize,
        chain: String,
    },
    #[error("{}:{line}: include cycle: {} includes itself", file.display(), file.display())]
    IncludeCycle { file: PathBuf, line: usize },
    /// Evaluation runs on a thread of its own ([`limits`]); the system refused one.
    #[error("{}: cannot start a thread to evaluate it: {source}", path.display())]
    Thread {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl TerragruntError {
    /// The error for an aborted evaluation, its paths shown as `style` gives them.
    fn aborted(abort: Abort, style: impl Fn(&Path) -> PathBuf) -> TerragruntError {
        let mut chain: Vec<String> = abort
            .callers
            .iter()
            .map(|(file, line)| format!("{}:{line}", style(file).display()))
            .collect();
        chain.push(style(&abort.target).display().to_string());
        let chain = chain.join(" → ");
        let (file, line) = abort
            .callers
            .last()
            .map_or((abort.target.clone(), 0), |(file, line)| {
                (file.clone(), *line)
            });
        let file = style(&file);
        match abort.kind {
            AbortKind::Cycle => TerragruntError::ReadCycle { file, line, chain },
            AbortKind::TooDeep => TerragruntError::ReadTooDeep { file, line, chain },
        }
    }
}

/// Reads the unit in `unit_dir`: its `terragrunt.hcl`, the files it includes, its source
/// and generated files. `repo_root` is what `get_repo_root()` answers (normally
/// [`find_repo_root`] of the unit; tests pass a fixture root).
///
/// A remote source is left for the caller to fetch ([`UnitSource::Remote`]).
/// Runs on a thread of its own (see `limits`), so any input fails with an error instead
/// of overflowing the caller's stack.
pub fn load_unit(unit_dir: &Path, repo_root: &Path) -> Result<UnitConfig, TerragruntError> {
    load_unit_at(unit_dir, repo_root, None, &[])
}

/// A unit a Terragrunt stack generates at `unit_dir` (which need not exist) from its
/// source, read as Terragrunt reads it there ([`stack`]): `values` is what the stack gives
/// it (`terragrunt.values.hcl`), and `mappings` say where each generated directory's
/// files really are.
pub fn load_generated_unit(
    unit_dir: &Path,
    repo_root: &Path,
    component: &stack::Component,
    mappings: &[virtual_dirs::Mapping],
) -> Result<UnitConfig, TerragruntError> {
    let given = Given {
        values: component.values.as_ref(),
        values_written: &component.values_written,
        autoinclude: Some(&component.autoinclude),
    };
    limits::on_eval_stack(|| {
        virtual_dirs::with_mappings(mappings, || load_unit_merged(unit_dir, repo_root, &given))
    })
    .unwrap_or_else(|source| {
        Err(TerragruntError::Thread {
            path: unit_dir.join(UNIT_FILE_NAME),
            source,
        })
    })
}

fn load_unit_at(
    unit_dir: &Path,
    repo_root: &Path,
    values: Option<&Value>,
    mappings: &[virtual_dirs::Mapping],
) -> Result<UnitConfig, TerragruntError> {
    limits::on_eval_stack(|| {
        virtual_dirs::with_mappings(mappings, || load_unit_here(unit_dir, repo_root, values))
    })
    .unwrap_or_else(|source| {
        Err(TerragruntError::Thread {
            path: unit_dir.join(UNIT_FILE_NAME),
            source,
        })
    })
}

fn load_unit_here(
    unit_dir: &Path,
    repo_root: &Path,
    values: Option<&Value>,
) -> Result<UnitConfig, TerragruntError> {
    let given = Given {
        values,
        values_written: &BTreeMap::new(),
        autoinclude: None,
    };
    load_unit_merged(unit_dir, repo_root, &given)
}

/// What a stack gives a unit it generates: `values` (and where each is written), and
/// an `autoinclude` block.
struct Given<'a> {
    values: Option<&'a Value>,
    values_written: &'a BTreeMap<String, crate::early::Traced>,
    autoinclude: Option<&'a stack::AutoInclude>,
}

/// [`load_unit_here`], with a stack's `autoinclude` merged over the unit's own
/// configuration (it wins: its `generate` blocks by label, its `terraform.source`).
fn load_unit_merged(
    unit_dir: &Path,
    repo_root: &Path,
    given: &Given<'_>,
) -> Result<UnitConfig, TerragruntError> {
    let unit = UnitFiles::new(unit_dir, repo_root, given.values);
    let file = parse_file(&unit.config_file)?;
    let includes = unit.includes(&file)?;
    let parents = unit.parents(&includes)?;
    let own = unit.evaluate(&file, &includes, &parents)?;

    // Merge: the unit over later includes over earlier ones.
    let merged = parents
        .into_iter()
        .filter(|(include, _, _)| include.merge != "no_merge")
        .map(|(_, file, parent)| (file, parent))
        .chain(std::iter::once((file, own)));
    let mut source: Option<(PathBuf, usize, Result<String, TerragruntError>)> = None;
    let mut version: Option<crate::early::Traced> = None;
    let mut generates: BTreeMap<String, Result<Option<Generated>, TerragruntError>> =
        BTreeMap::new();
    let mut inputs = BTreeMap::new();
    for (file, evaluated) in merged {
        if let (Some(expr), Some(value)) = (&file.source, evaluated.source) {
            source = Some((file.path.clone(), expr.line, value));
            version = file.source_version.as_ref().map(|shape| {
                written::resolve(
                    &shape.written,
                    &file.local_shapes,
                    given.values_written,
                    "terraform.source",
                )
            });
        }
        generates.extend(evaluated.generates);
        inputs.extend(evaluated.inputs);
    }
    if let Some(autoinclude) = given.autoinclude {
        for generated in &autoinclude.generates {
            generates.insert(generated.label.clone(), Ok(Some(generated.clone())));
        }
        if let Some((text, file, line, traced)) = &autoinclude.source {
            source = Some((file.clone(), *line, Ok(text.clone())));
            version = Some(traced.clone());
        }
    }
    let generated: Vec<Generated> = generates
        .into_values()
        .filter_map(Result::transpose)
        .collect::<Result<_, _>>()?;

    let style = |abs: &Path| unit.style(abs);
    let mut sources = Vec::new();
    let source = match source {
        None => UnitSource::None,
        Some((file, line, value)) => {
            let text = value?;
            let written = WrittenSource {
                what: "terraform.source".to_string(),
                at: crate::Location {
                    file: file.clone().into(),
                    line,
                },
                text: text.clone(),
                version: version.unwrap_or_else(|| Err("it is not written in a file".into())),
            };
            sources.push(written.styled(style));
            unit_source(text, &unit.unit_abs, file, line, style)?
        }
    };
    let files_dir = match virtual_dirs::real(&unit.unit_abs) {
        real if real == unit.unit_abs => unit.unit_dir.clone(),
        real => real,
    };
    UnitConfig {
        unit_dir: unit.unit_dir,
        files_dir,
        source,
        overlay: Vec::new(),
        generated,
        defined_by: Vec::new(),
        create_below: None,
        inputs,
        sources,
    }
    .with_overlay()
}

/// One unit being read: where it is, and how its paths are shown (in the style the
/// caller gave the unit's directory, relative or absolute).
struct UnitFiles {
    unit_dir: PathBuf,
    unit_abs: PathBuf,
    repo_abs: PathBuf,
    config_file: PathBuf,
    /// `values` for a unit a stack generates (its `terragrunt.values.hcl`).
    values: Option<Value>,
}

/// An include of the unit, its parsed file and that file evaluated for the unit.
type Parent<'i> = (&'i IncludeSetting, TgFile, Evaluated);

impl UnitFiles {
    fn new(unit_dir: &Path, repo_root: &Path, values: Option<&Value>) -> UnitFiles {
        let unit_dir = normalize_path(unit_dir);
        UnitFiles {
            unit_abs: absolute(&unit_dir),
            repo_abs: absolute(repo_root),
            config_file: unit_dir.join(UNIT_FILE_NAME),
            unit_dir,
            values: values.cloned(),
        }
    }

    /// The variables every file of the unit sees besides its locals: `values`, when a
    /// stack gives the unit some.
    fn vars(&self) -> Vec<(&'static str, Value)> {
        self.values
            .iter()
            .map(|values| ("values", values.clone()))
            .collect()
    }

    fn style(&self, abs: &Path) -> PathBuf {
        in_style_of(abs, &self.unit_dir)
    }

    fn aborted(&self, abort: Abort) -> TerragruntError {
        TerragruntError::aborted(abort, |abs| self.style(abs))
    }

    /// The evaluation scope of `file` (the unit's or a parent's) for this unit.
    fn scope(&self, file: &Path, includes: Includes) -> Scope {
        Scope {
            file: absolute(file),
            config_path: self.unit_abs.join(UNIT_FILE_NAME),
            unit_dir: self.unit_abs.clone(),
            repo_root: self.repo_abs.clone(),
            includes,
            line: Cell::default(),
        }
    }

    /// The unit's `include` blocks, resolved. Their paths may use functions but not
    /// locals, so they come first.
    fn includes(&self, unit: &TgFile) -> Result<Vec<IncludeSetting>, TerragruntError> {
        let mut includes = Vec::new();
        for decl in &unit.includes {
            let scope = self.scope(&self.config_file, Includes::Current(Vec::new()));
            let vars = self.vars();
            let setting = with_scope(scope, || include_setting(unit, decl, &self.unit_abs, &vars))
                .map_err(|abort| self.aborted(abort))??;
            if setting.resolved.path == self.unit_abs.join(UNIT_FILE_NAME) {
                return Err(TerragruntError::IncludeCycle {
                    file: self.config_file.clone(),
                    line: decl.line,
                });
            }
            includes.push(setting);
        }
        Ok(includes)
    }

    /// Each included parent, evaluated for the unit through its include.
    fn parents<'i>(
        &self,
        includes: &'i [IncludeSetting],
    ) -> Result<Vec<Parent<'i>>, TerragruntError> {
        let mut parents = Vec::new();
        for include in includes {
            let path = self.style(&include.resolved.path);
            let file = parse_file(&path)?;
            if let Some(nested) = file.includes.first() {
                return Err(TerragruntError::Invalid {
                    file: file.path.clone(),
                    line: nested.line,
                    message: format!(
                        "included by {} but has an include block itself; Terragrunt allows one level of include",
                        self.config_file.display()
                    ),
                });
            }
            let scope = self.scope(&path, Includes::Original(include.resolved.clone()));
            let parent = with_scope(scope, || Evaluated::of(&file, &self.vars()))
                .map_err(|abort| self.aborted(abort))?;
            parents.push((include, file, parent));
        }
        Ok(parents)
    }

    /// The unit's own file, with `include.<label>` for the parents it exposes.
    fn evaluate(
        &self,
        unit: &TgFile,
        includes: &[IncludeSetting],
        parents: &[Parent<'_>],
    ) -> Result<Evaluated, TerragruntError> {
        let include_var = exposed(parents);
        let mut vars: Vec<(&str, Value)> =
            include_var.iter().map(|v| ("include", v.clone())).collect();
        vars.extend(self.vars());
        let resolved = includes.iter().map(|i| i.resolved.clone()).collect();
        let scope = self.scope(&self.config_file, Includes::Current(resolved));
        with_scope(scope, || Evaluated::of(unit, &vars)).map_err(|abort| self.aborted(abort))
    }
}

/// Where a `terraform.source` evaluated to `text` (set at `file:line`) points.
fn unit_source(
    text: String,
    unit_abs: &Path,
    file: PathBuf,
    line: usize,
    style: impl Fn(&Path) -> PathBuf,
) -> Result<UnitSource, TerragruntError> {
    match source::classify(&text, unit_abs) {
        Ok(Classified::Local(dir)) if virtual_dirs::real(&dir).is_dir() => {
            // A generated unit's `.` is its source directory.
            let real = virtual_dirs::real(&dir);
            Ok(UnitSource::Local(if real == dir {
                style(&dir)
            } else {
                real
            }))
        }
        Ok(Classified::Local(dir)) => Err(TerragruntError::MissingSource {
            file,
            line,
            module_source: text,
            dir: style(&dir),
        }),
        Ok(Classified::Remote(source)) => Ok(UnitSource::Remote { text, source }),
        Err(error) => Err(TerragruntError::BadSource {
            file,
            line,
            module_source: text,
            error,
        }),
    }
}

/// The provider requirements of the unit's root module with its whole module tree
/// (`config::tree`): the module directory loaded with the overlay, everything else
/// through `reader` (so modules shared with plain roots or other units load once). The
/// result is what the unit's lock file, [`UnitConfig::lock_file`], must satisfy. A unit
/// whose remote source is not fetched yet requires nothing so far but waits
/// (`pending`).
pub fn unit_requirements(
    unit: &UnitConfig,
    default_host: &str,
    inputs: &crate::early::RootInputs<'_>,
    reader: &mut impl ModuleReader,
) -> Result<TreeRequirements, ConfigError> {
    let Some(root) = unit.module_dir().map(normalize_path) else {
        return Ok(TreeRequirements {
            pending: 1,
            ..TreeRequirements::default()
        });
    };
    let mut overlaid = Overlaid {
        root: root.clone(),
        default_host,
        overlay: &unit.overlay,
        inner: reader,
    };
    module_tree_requirements(&root, default_host, inputs, &mut overlaid)
}

/// Reads the unit's module directory with its overlay, everything else as `inner` does.
struct Overlaid<'a, R> {
    root: PathBuf,
    default_host: &'a str,
    overlay: &'a [OverlayFile],
    inner: &'a mut R,
}

impl<R: ModuleReader> ModuleReader for Overlaid<'_, R> {
    fn load(&mut self, dir: &Path) -> Result<Arc<Module>, ConfigError> {
        if normalize_path(dir) == self.root {
            load_module_with_overlay(
                dir,
                self.default_host,
                self.overlay,
                &Listings::default(),
                &ParsedFiles::default(),
            )
            .map(Arc::new)
        } else {
            self.inner.load(dir)
        }
    }

    fn remote(&mut self, source: &RemoteSource, version: Option<&str>) -> Remote {
        self.inner.remote(source, version)
    }
}

/// One include block after its own attributes were evaluated.
struct IncludeSetting {
    resolved: ResolvedInclude,
    merge: String,
    expose: bool,
}

fn include_setting(
    unit: &TgFile,
    decl: &parse::IncludeDecl,
    unit_abs: &Path,
    vars: &[(&str, Value)],
) -> Result<IncludeSetting, TerragruntError> {
    let no_locals = Locals::default();
    let Some(path_expr) = &decl.path else {
        return Err(TerragruntError::Invalid {
            file: unit.path.clone(),
            line: decl.line,
            message: "include block without a path".into(),
        });
    };
    let path = eval_string(unit, path_expr, &no_locals, vars, "include path")?;
    let merge = match &decl.merge_strategy {
        Some(expr) => eval_string(unit, expr, &no_locals, vars, "merge_strategy")?,
        None => "shallow".to_string(),
    };
    if !matches!(merge.as_str(), "no_merge" | "shallow" | "deep") {
        return Err(TerragruntError::Invalid {
            file: unit.path.clone(),
            line: decl.line,
            message: format!(
                "merge_strategy {merge:?} is not one of \"no_merge\", \"shallow\", \"deep\""
            ),
        });
    }
    let expose = match &decl.expose {
        Some(expr) => eval_bool(unit, expr, &no_locals, vars, "expose")?,
        None => false,
    };
    Ok(IncludeSetting {
        resolved: ResolvedInclude {
            label: decl.label.clone(),
            path: normalize_path(&unit_abs.join(path)),
        },
        merge,
        expose,
    })
}

/// One file's source, generate blocks and inputs, each evaluated on its own so that a
/// failure only matters when the value survives the merge (and, for an input, is read).
struct Evaluated {
    locals: Locals,
    source: Option<Result<String, TerragruntError>>,
    generates: BTreeMap<String, Result<Option<Generated>, TerragruntError>>,
    inputs: BTreeMap<String, UnitInput>,
}

impl Evaluated {
    fn of(file: &TgFile, vars: &[(&str, Value)]) -> Evaluated {
        let locals = Locals::evaluate(&file.locals, vars);
        let source = file
            .source
            .as_ref()
            .map(|expr| eval_string(file, expr, &locals, vars, "terraform.source"));
        let generates = file
            .generates
            .iter()
            .map(|g| (g.label.clone(), eval_generate(file, g, &locals, vars)))
            .collect();
        let inputs = eval_inputs(file, &locals, vars);
        Evaluated {
            locals,
            source,
            generates,
            inputs,
        }
    }
}

/// A file's `inputs`, entry by entry.
fn eval_inputs(
    file: &TgFile,
    locals: &Locals,
    vars: &[(&str, Value)],
) -> BTreeMap<String, UnitInput> {
    let at = |line: usize| crate::Location {
        file: file.path.clone().into(),
        line,
    };
    let mut out = BTreeMap::new();
    for (name, expr) in &file.inputs {
        let value = eval_value(file, expr, locals, vars).map_err(|e| e.to_string());
        match (name, value) {
            (Some(name), value) => {
                out.insert(
                    name.clone(),
                    UnitInput {
                        value,
                        at: at(expr.line),
                    },
                );
            }
            (None, Ok(Value::Object(map))) => {
                for (name, value) in map {
                    out.insert(
                        name,
                        UnitInput {
                            value: Ok(value),
                            at: at(expr.line),
                        },
                    );
                }
            }
            // `inputs = local.x` that fails or is not an object: no entry can be told.
            (None, _) => {}
        }
    }
    out
}

/// The `include` variable for the unit: exposed parents' `locals` and
/// `terraform.source`, under their label (a bare include is `include` itself).
fn exposed(parents: &[Parent<'_>]) -> Option<Value> {
    let mut by_label = Map::new();
    let mut bare = None;
    for (include, _, parent) in parents.iter().filter(|(i, _, _)| i.expose) {
        let mut object = Map::new();
        object.insert(
            "locals".to_string(),
            Value::Object(parent.locals.values.clone()),
        );
        if let Some(Ok(source)) = &parent.source {
            let mut terraform = Map::new();
            terraform.insert("source".to_string(), Value::String(source.clone()));
            object.insert("terraform".to_string(), Value::Object(terraform));
        }
        if include.resolved.label.is_empty() {
            bare = Some(Value::Object(object));
        } else {
            by_label.insert(include.resolved.label.clone(), Value::Object(object));
        }
    }
    match bare {
        Some(value) => Some(value),
        None if by_label.is_empty() => None,
        None => Some(Value::Object(by_label)),
    }
}

fn eval_generate(
    file: &TgFile,
    decl: &parse::GenerateDecl,
    locals: &Locals,
    vars: &[(&str, Value)],
) -> Result<Option<Generated>, TerragruntError> {
    if let Some(expr) = &decl.disable {
        if eval_bool(file, expr, locals, vars, "disable")? {
            return Ok(None);
        }
    }
    let required = |expr: &Option<Expr>, name: &str| -> Result<String, TerragruntError> {
        match expr {
            Some(expr) => eval_string(file, expr, locals, vars, name),
            None => Err(TerragruntError::Invalid {
                file: file.path.clone(),
                line: decl.line,
                message: format!("generate {:?} has no {name}", decl.label),
            }),
        }
    };
    Ok(Some(Generated {
        label: decl.label.clone(),
        path: required(&decl.path, "path")?,
        if_exists: required(&decl.if_exists, "if_exists")?,
        contents: match &decl.contents {
            Some(expr) => eval_contents(file, expr, locals, vars)?,
            None => required(&decl.contents, "contents")?,
        },
        declared_in: file.path.clone(),
        line: decl.line,
        contents_first_line: decl.contents_first_line,
    }))
}

fn eval_value(
    file: &TgFile,
    expr: &Expr,
    locals: &Locals,
    vars: &[(&str, Value)],
) -> Result<Value, TerragruntError> {
    let mut all: Vec<(&str, Value)> = vars.to_vec();
    all.push(("local", Value::Object(locals.values.clone())));
    let ctx = eval::context(&all);
    at_line(expr.line);
    eval::evaluate(&expr.expr, &ctx).map_err(|failure| failed(file, expr, locals, failure))
}

/// The error of a failed evaluation, at the failed local it stems from if any.
fn failed(file: &TgFile, expr: &Expr, locals: &Locals, failure: EvalFailure) -> TerragruntError {
    let (line, failure) = locals.explain(failure);
    let line = line.unwrap_or(expr.line);
    let file = file.path.clone();
    match failure {
        EvalFailure::UnsupportedFunction(name) => {
            TerragruntError::UnsupportedFunction { file, line, name }
        }
        EvalFailure::Other(message) => TerragruntError::Invalid {
            file,
            line,
            message,
        },
    }
}

fn eval_string(
    file: &TgFile,
    expr: &Expr,
    locals: &Locals,
    vars: &[(&str, Value)],
    what: &str,
) -> Result<String, TerragruntError> {
    match known(file, expr, eval_value(file, expr, locals, vars)?, what)? {
        Value::String(s) => Ok(s),
        other => Err(TerragruntError::Invalid {
            file: file.path.clone(),
            line: expr.line,
            message: format!("{what} must be a string, got {other}"),
        }),
    }
}

/// `value`, when it is wholly known; else the error naming what made it unknown.
fn known(file: &TgFile, expr: &Expr, value: Value, what: &str) -> Result<Value, TerragruntError> {
    match value.first_unknown() {
        None => Ok(value),
        Some(cause) => Err(TerragruntError::Invalid {
            file: file.path.clone(),
            line: expr.line,
            message: format!(
                "{what} is not known: {}",
                cause
                    .as_deref()
                    .unwrap_or("it depends on a value tfsum cannot evaluate")
            ),
        }),
    }
}

/// A `generate` block's `contents`: unknown values (a `get_env()` in a provider's
/// arguments) written as [`eval::UNKNOWN_TEXT`], since the file is read only for what it
/// declares.
fn eval_contents(
    file: &TgFile,
    expr: &Expr,
    locals: &Locals,
    vars: &[(&str, Value)],
) -> Result<String, TerragruntError> {
    let mut all: Vec<(&str, Value)> = vars.to_vec();
    all.push(("local", Value::Object(locals.values.clone())));
    let ctx = eval::context(&all).placeholders();
    at_line(expr.line);
    let value =
        eval::evaluate(&expr.expr, &ctx).map_err(|failure| failed(file, expr, locals, failure))?;
    match known(file, expr, value, "contents")? {
        Value::String(s) => Ok(s),
        other => Err(TerragruntError::Invalid {
            file: file.path.clone(),
            line: expr.line,
            message: format!("contents must be a string, got {other}"),
        }),
    }
}

fn eval_bool(
    file: &TgFile,
    expr: &Expr,
    locals: &Locals,
    vars: &[(&str, Value)],
    what: &str,
) -> Result<bool, TerragruntError> {
    match known(file, expr, eval_value(file, expr, locals, vars)?, what)? {
        Value::Bool(b) => Ok(b),
        other => Err(TerragruntError::Invalid {
            file: file.path.clone(),
            line: expr.line,
            message: format!("{what} must be a bool, got {other}"),
        }),
    }
}

#[cfg(test)]
mod tests;
