//! Terragrunt stacks: a `terragrunt.stack.hcl` lists `unit` and `stack` blocks, and
//! `terragrunt stack generate` copies each one's `source` into a directory of its own,
//! where Terragrunt then runs it (`../shared/research/terragrunt-stacks.md`, which cites
//! `gruntwork-io/terragrunt` `pkg/config/stack.go` for every rule below).
//!
//! tfsum generates nothing. It evaluates a stack file ([`evaluate_stack`]) into its
//! components: where each is generated ([`generated_dir`]: `<stack dir>/.terragrunt-stack/
//! <path>`, or `<stack dir>/<path>` with `no_dot_terragrunt_stack = true`), where its
//! source is, and the `values` it gets. A nested stack is evaluated again at its
//! generated location, with its block's `values`; a unit is read as if its
//! `terragrunt.hcl` sat at its generated directory ([`super::load_generated_unit`]). The
//! load stage drives this, fetching remote sources between rounds
//! (`tfsum_stages::load`); the lock file of a generated unit goes into its generated
//! directory, where Terragrunt reads it and copies it back after `init`.
//!
//! The stack file's schema is strict (an unknown top-level block or attribute is an
//! error, `stack.go`'s `StackConfigFile`); inside a `unit` or `stack` block unknown
//! attributes are ignored as Terragrunt's `remain` body ignores them. Its names:
//! `local.*`, `values.*` (the stack's own values, when it has any), `unit.NAME.path` and
//! `stack.NAME.path` (the absolute generated directory of each sibling component), and
//! Terragrunt's functions and Terraform's built-ins, answering for the stack file
//! (`get_terragrunt_dir()` is its directory).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::{Component as PathPart, Path, PathBuf};

use hcl::Expression;

use super::eval::Map;
use crate::eval::value::Value;
use hcl_edit::structure::{Block, Body};
use hcl_edit::Span;

use super::eval::{with_scope, Includes, Locals, Scope};
use super::parse::{Expr, LocalDecl, TgFile};
use super::source::{classify, Classified};
use super::virtual_dirs::real;
pub use super::virtual_dirs::Mapping;
use super::written::{self, SourceVersion, Written};
use super::{eval_bool, eval_string, eval_value, TerragruntError};
use crate::early::Traced;
use crate::paths::absolute;
use crate::Location;
use tfsum_vocab::module_source::TerragruntSource;
use tfsum_vocab::paths::{normalize_path, STACK_DIR_NAME, STACK_FILE_NAME};
use tfsum_vocab::text::LineIndex;

/// How deep stacks may nest: Terragrunt has no bound, but a chain of stacks this deep is
/// a mistake (each level adds a `.terragrunt-stack/` to every path).
pub const MAX_STACK_DEPTH: usize = 16;

/// The file beside a generated component that holds its `values`.
pub(crate) const VALUES_FILE_NAME: &str = "terragrunt.values.hcl";

/// Whether a block makes a unit or a nested stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Unit,
    Stack,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Unit => "unit",
            Kind::Stack => "stack",
        }
    }
}

/// A `unit` or `stack` block, unevaluated.
#[derive(Debug, Clone)]
struct ComponentDecl {
    kind: Kind,
    name: String,
    line: usize,
    source: Option<Expr>,
    path: Option<Expr>,
    values: Option<Expr>,
    no_dot: Option<Expr>,
    no_validation: Option<Expr>,
    enabled: Option<Expr>,
    /// An `expansion` block (`--experiment block-iteration`), which tfsum does not expand.
    expansion: Option<usize>,
    /// An `autoinclude` block: configuration merged into the generated unit, over its
    /// own (`02-blocks.mdx`, "autoinclude"); only its `generate` blocks and
    /// `terraform.source` can change what the unit locks.
    autoinclude: Option<TgFile>,
    /// Where the version of `source` is written, and each of `values` (when it is an
    /// object constructor) ([`super::written`]).
    source_version: Option<SourceVersion>,
    values_shapes: Option<BTreeMap<String, Written>>,
}

/// A stack file's parts, unevaluated.
#[derive(Debug, Clone)]
struct StackDecl {
    /// The file read (for a nested stack, in its source).
    path: PathBuf,
    locals: Vec<LocalDecl>,
    local_shapes: BTreeMap<String, Written>,
    includes: Vec<(String, usize, Option<Expr>)>,
    components: Vec<ComponentDecl>,
}

/// Where a stack is evaluated.
#[derive(Debug, Clone)]
pub struct StackSite {
    /// The directory holding `terragrunt.stack.hcl` as Terragrunt sees it: on disk for a
    /// stack of the repository, its generated directory for a nested one. In the style
    /// the caller gave it (relative stays relative).
    pub dir: PathBuf,
    /// `values` of a nested stack (its `terragrunt.values.hcl`); for a stack of the
    /// repository, read from the file beside it if there is one.
    pub values: Option<Value>,
    /// The generated directories above and at this stack, and where their files are.
    pub mappings: Vec<Mapping>,
    /// The stack files (as read) of the stacks that generated this one, outermost first.
    pub chain: Vec<PathBuf>,
    /// Where each of `values` is written as one literal string, when it is: in the
    /// block of the stack that generated this one.
    pub values_written: BTreeMap<String, Traced>,
    /// The remote sources of the stack blocks that generated this one, outermost first.
    pub generated_by: Vec<super::WrittenSource>,
}

/// Where a component's files come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A directory on disk (absolute).
    Local(PathBuf),
    /// A source to fetch first.
    Remote(TerragruntSource),
}

/// One `unit` or `stack` block, evaluated.
#[derive(Debug, Clone)]
pub struct Component {
    pub kind: Kind,
    pub name: String,
    /// `no_dot_terragrunt_stack` or `no_validation`: generation does not check that the
    /// copy holds a `terragrunt.hcl` (or `terragrunt.stack.hcl`), `stack.go:670-710`.
    pub unchecked: bool,
    /// Where `stack generate` puts it, in the style of the stack's directory.
    pub dir: PathBuf,
    /// As written (evaluated), for messages.
    pub source_text: String,
    pub source: Source,
    /// What it gets as `values`; `None` when the block gives none.
    pub values: Option<Value>,
    /// The stack file (as read) and the block's line.
    pub file: PathBuf,
    pub line: usize,
    /// What its `autoinclude` block merges into the unit, evaluated in the stack.
    pub autoinclude: AutoInclude,
    /// Where `source` is written, and where its version (a remote source's `?ref=`) is
    /// written as one literal, or why it is not.
    pub source_at: Location,
    pub source_version: Traced,
    /// Where each of `values` is written as one literal string, when it is.
    pub values_written: BTreeMap<String, Traced>,
}

/// The parts of an `autoinclude` block that decide what a unit locks, evaluated where
/// the stack file is (its locals, values, `unit.*.path`), and merged over the unit's own
/// configuration when it is read.
#[derive(Debug, Clone, Default)]
pub struct AutoInclude {
    pub generates: Vec<super::generate::Generated>,
    /// `terraform { source = … }`, with where it is written and where its version is.
    pub source: Option<(String, PathBuf, usize, Traced)>,
}

impl Component {
    /// Its source with where its version is written, when it is a remote source (a
    /// version to look up and move).
    pub fn written_source(&self) -> Option<super::WrittenSource> {
        let Source::Remote(_) = &self.source else {
            return None;
        };
        Some(super::WrittenSource {
            what: format!("the source of {} {:?}", self.kind.word(), self.name),
            at: self.source_at.clone(),
            text: self.source_text.clone(),
            version: self.source_version.clone(),
        })
    }

    /// Terragrunt's check after the copy (`stack.go:676-710`): the generated directory of
    /// a unit must hold `terragrunt.hcl`, of a stack `terragrunt.stack.hcl`; `source` is
    /// where its files come from. `Ok(false)`: an unchecked copy without one, which is
    /// no unit (nothing to lock).
    pub fn validate(&self, source: &Path) -> Result<bool, TerragruntError> {
        let (file, kind) = match self.kind {
            Kind::Unit => (super::UNIT_FILE_NAME, "unit"),
            Kind::Stack => (STACK_FILE_NAME, "stack"),
        };
        if source.join(file).is_file() {
            return Ok(true);
        }
        if self.unchecked {
            return Ok(false);
        }
        Err(invalid(
            &self.file,
            self.line,
            format!(
                "validation failed for {kind} {:?} at path {}: expected {kind} to generate with {file} file at root of generated directory (its source {} has none)",
                self.name,
                self.dir.display(),
                source.display()
            ),
        ))
    }
}

/// Evaluates the stack at `site`: its components, enabled ones only, in file order.
/// Fails, naming the stack file and line, on anything Terragrunt rejects: an unknown
/// block, a `path` that is empty, absolute or leaves the stack directory, two components
/// of a kind with one name or one generated path, a source that is missing, a value that
/// cannot be evaluated.
pub fn evaluate_stack(
    site: &StackSite,
    repo_root: &Path,
) -> Result<Vec<Component>, TerragruntError> {
    super::limits::on_eval_stack(|| {
        super::virtual_dirs::with_mappings(&site.mappings, || evaluate_here(site, repo_root))
    })
    .unwrap_or_else(|source| {
        Err(TerragruntError::Thread {
            path: site.dir.join(STACK_FILE_NAME),
            source,
        })
    })
}

fn evaluate_here(site: &StackSite, repo_root: &Path) -> Result<Vec<Component>, TerragruntError> {
    let dir_abs = absolute(&site.dir);
    let file_abs = dir_abs.join(STACK_FILE_NAME);
    let decl = parse_stack_file(&file_abs)?;
    if site.chain.contains(&decl.path) {
        let mut chain: Vec<String> = site.chain.iter().map(|p| p.display().to_string()).collect();
        chain.push(decl.path.display().to_string());
        return Err(invalid(
            &decl.path,
            1,
            format!("stack cycle: {}", chain.join(" → ")),
        ));
    }
    let values = match &site.values {
        Some(values) => Some(values.clone()),
        None => read_values(&dir_abs.join(VALUES_FILE_NAME))?,
    };
    let scope = || Scope {
        file: file_abs.clone(),
        config_path: file_abs.clone(),
        unit_dir: dir_abs.clone(),
        repo_root: absolute(repo_root),
        includes: Includes::Current(Vec::new()),
        line: Cell::default(),
    };
    let abort = |abort: super::eval::Abort| TerragruntError::aborted(abort, Path::to_path_buf);
    with_scope(scope(), || {
        let mut vars: Vec<(&str, Value)> = Vec::new();
        if let Some(values) = &values {
            vars.push(("values", values.clone()));
        }
        let locals = Locals::evaluate(&decl.locals, &vars);
        let file = as_file(&decl);
        let mut components = decl.components.clone();
        for (label, line, path) in &decl.includes {
            components.extend(included(&file, &dir_abs, label, *line, path.as_ref(), &locals, &vars)?);
        }
        check_names(&decl.path, &components)?;
        // Paths first: `unit.NAME.path` and `stack.NAME.path` name them.
        let mut placed = Vec::new();
        for component in &components {
            if let Some(expr) = &component.enabled {
                if !eval_bool(&file, expr, &locals, &vars, "enabled")? {
                    continue;
                }
            }
            if let Some(line) = component.expansion {
                return Err(invalid(
                    &decl.path,
                    line,
                    format!(
                        "{} {:?}: `expansion` needs Terragrunt's block-iteration experiment, which tfsum does not expand",
                        component.kind.word(),
                        component.name
                    ),
                ));
            }
            let dest = placement(&file, component, &locals, &vars, &dir_abs)?;
            placed.push((component, dest));
        }
        check_paths(&decl.path, &placed)?;
        vars.push(("unit", paths_of(&placed, Kind::Unit)));
        vars.push(("stack", paths_of(&placed, Kind::Stack)));
        placed
            .into_iter()
            .map(|(component, dest)| {
                let at = Placed {
                    stack_dir: &site.dir,
                    dir_abs: &dir_abs,
                    values_written: &site.values_written,
                };
                evaluated(&file, component, dest, &locals, &vars, &at)
            })
            .collect()
    })
    .map_err(abort)?
}

/// `values` from a `terragrunt.values.hcl`: its attributes, literal values
/// (`stack.go`'s `ReadValues`); `None` when there is no such file.
fn read_values(path: &Path) -> Result<Option<Value>, TerragruntError> {
    let real_path = real(path);
    if !real_path.is_file() {
        return Ok(None);
    }
    let file = super::parse::parse_attributes(&real_path)?;
    let ctx = super::eval::context(&[]);
    let mut values = Map::new();
    for (name, expr) in file {
        let value = super::eval::evaluate(&expr.expr, &ctx).map_err(|e| {
            invalid(
                &real_path,
                expr.line,
                format!("cannot evaluate {name}: {e:?}"),
            )
        })?;
        values.insert(name, value);
    }
    Ok(Some(Value::Object(values)))
}

/// A stack file read into its parts.
fn parse_stack_file(path: &Path) -> Result<StackDecl, TerragruntError> {
    let path = real(path);
    let text = super::limits::read_file(&path).map_err(|source| TerragruntError::Read {
        path: path.clone(),
        source,
    })?;
    let (body, parsed) = crate::parse_hcl_body(&text).map_err(|e| TerragruntError::Syntax {
        file: path.clone(),
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let lines = LineIndex::new(parsed);
    let shapes = written::Reader {
        file: &path,
        lines: &lines,
        base: text.len() - parsed.len(),
    };
    let line_of = |span: Option<std::ops::Range<usize>>| lines.line_of(span);
    if let Some(attr) = body.attributes().next() {
        return Err(invalid(
            &path,
            line_of(attr.span()),
            format!(
                "unsupported argument {:?}: a stack file holds only locals, include, unit and stack blocks",
                attr.key.as_str()
            ),
        ));
    }
    let mut decl = StackDecl {
        path: path.clone(),
        locals: Vec::new(),
        local_shapes: BTreeMap::new(),
        includes: Vec::new(),
        components: Vec::new(),
    };
    let mut locals_at: Option<usize> = None;
    for block in body.blocks() {
        let line = line_of(block.span());
        let labels: Vec<&str> = block.labels.iter().map(|l| l.as_str()).collect();
        match (block.ident.as_str(), labels.as_slice()) {
            ("locals", []) => {
                if let Some(first) = locals_at {
                    return Err(invalid(
                        &path,
                        line,
                        format!("a stack file may have one locals block; the first is at line {first}"),
                    ));
                }
                locals_at = Some(line);
                decl.locals = super::parse::locals_of(&block.body, &lines);
                decl.local_shapes = super::parse::local_shapes(&block.body, &shapes);
            }
            ("include", [label]) => decl.includes.push((
                label.to_string(),
                line,
                expr_of(&block.body, "path", &lines),
            )),
            ("unit", [name]) => decl
                .components
                .push(component(Kind::Unit, name, line, &block.body, &shapes)?),
            ("stack", [name]) => decl
                .components
                .push(component(Kind::Stack, name, line, &block.body, &shapes)?),
            (ident @ ("unit" | "stack" | "include"), _) => {
                return Err(invalid(&path, line, format!("a {ident} block takes exactly one label")))
            }
            (other, _) => {
                return Err(invalid(
                    &path,
                    line,
                    format!("unsupported block type {other:?}: a stack file holds only locals, include, unit and stack blocks"),
                ))
            }
        }
    }
    Ok(decl)
}

fn expr_of(body: &Body, name: &str, lines: &LineIndex) -> Option<Expr> {
    body.get_attribute(name).map(|attr| Expr {
        expr: Expression::from(attr.value.clone()),
        line: lines.line_of(attr.span()),
    })
}

fn component(
    kind: Kind,
    name: &str,
    line: usize,
    body: &Body,
    shapes: &written::Reader<'_>,
) -> Result<ComponentDecl, TerragruntError> {
    let (path, lines) = (shapes.file, shapes.lines);
    let expansion = body
        .get_blocks("expansion")
        .next()
        .map(|b: &Block| lines.line_of(b.span()));
    let autoinclude = match body.get_blocks("autoinclude").next() {
        Some(block) => Some(super::parse::read_body(
            path,
            &block.body,
            lines,
            shapes.base,
        )?),
        None => None,
    };
    Ok(ComponentDecl {
        kind,
        name: name.to_string(),
        line,
        source: expr_of(body, "source", lines),
        path: expr_of(body, "path", lines),
        values: expr_of(body, "values", lines),
        no_dot: expr_of(body, "no_dot_terragrunt_stack", lines),
        no_validation: expr_of(body, "no_validation", lines),
        enabled: expr_of(body, "enabled", lines),
        expansion,
        autoinclude,
        source_version: body
            .get_attribute("source")
            .map(|attr| shapes.source(&attr.value)),
        values_shapes: body
            .get_attribute("values")
            .and_then(|attr| shapes.object(&attr.value)),
    })
}

/// The stack file as the Terragrunt helpers take one (they name its path in errors).
fn as_file(decl: &StackDecl) -> TgFile {
    TgFile {
        path: decl.path.clone(),
        includes: Vec::new(),
        locals: decl.locals.clone(),
        source: None,
        generates: Vec::new(),
        inputs: Vec::new(),
        source_version: None,
        local_shapes: decl.local_shapes.clone(),
    }
}

fn invalid(file: &Path, line: usize, message: String) -> TerragruntError {
    TerragruntError::Invalid {
        file: file.to_path_buf(),
        line,
        message,
    }
}

/// The components of an included file (`include "NAME" { path = … }`, since Terragrunt
/// 1.1): relative to the stack's directory, holding no locals or includes of its own.
fn included(
    file: &TgFile,
    dir_abs: &Path,
    label: &str,
    line: usize,
    path: Option<&Expr>,
    locals: &Locals,
    vars: &[(&str, Value)],
) -> Result<Vec<ComponentDecl>, TerragruntError> {
    let Some(path) = path else {
        return Err(invalid(
            &file.path,
            line,
            format!("include {label:?} has no path"),
        ));
    };
    let target = eval_string(file, path, locals, vars, "include path")?;
    let target = normalize_path(&dir_abs.join(target));
    let decl = parse_stack_file(&target)?;
    if !decl.locals.is_empty() || !decl.includes.is_empty() {
        return Err(invalid(
            &decl.path,
            1,
            format!(
                "included by {} (include {label:?}), so it may not have locals or include blocks",
                file.path.display()
            ),
        ));
    }
    Ok(decl.components)
}

/// Two components of one kind with one name (`stack_validation.go`).
fn check_names(file: &Path, components: &[ComponentDecl]) -> Result<(), TerragruntError> {
    let mut seen: BTreeMap<(&str, Kind), usize> = BTreeMap::new();
    for c in components {
        if let Some(first) = seen.insert((&c.name, c.kind), c.line) {
            return Err(invalid(
                file,
                c.line,
                format!(
                    "duplicate {} name {:?}; the first is at line {first}",
                    c.kind.word(),
                    c.name
                ),
            ));
        }
    }
    Ok(())
}

/// Two components generated into one directory (`stack_validation.go`).
fn check_paths(file: &Path, placed: &[(&ComponentDecl, PathBuf)]) -> Result<(), TerragruntError> {
    let mut seen: BTreeMap<&Path, &ComponentDecl> = BTreeMap::new();
    for (c, dest) in placed {
        if let Some(first) = seen.insert(dest, c) {
            return Err(invalid(
                file,
                c.line,
                format!(
                    "{} {:?} is generated into {}, as {} {:?} at line {} is",
                    c.kind.word(),
                    c.name,
                    dest.display(),
                    first.kind.word(),
                    first.name,
                    first.line
                ),
            ));
        }
    }
    Ok(())
}

/// Ord for the name map.
impl PartialOrd for Kind {
    fn partial_cmp(&self, other: &Kind) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Kind {
    fn cmp(&self, other: &Kind) -> std::cmp::Ordering {
        self.word().cmp(other.word())
    }
}

/// Where a component is generated (absolute): `stack.go`'s `resolveDestPath`.
fn placement(
    file: &TgFile,
    c: &ComponentDecl,
    locals: &Locals,
    vars: &[(&str, Value)],
    dir_abs: &Path,
) -> Result<PathBuf, TerragruntError> {
    let what = format!("{} {:?}", c.kind.word(), c.name);
    let Some(path_expr) = &c.path else {
        return Err(invalid(&file.path, c.line, format!("{what} has no path")));
    };
    let path = eval_string(file, path_expr, locals, vars, "path")?;
    let no_dot = match &c.no_dot {
        Some(expr) => eval_bool(file, expr, locals, vars, "no_dot_terragrunt_stack")?,
        None => false,
    };
    generated_dir(dir_abs, &path, no_dot)
        .map_err(|message| invalid(&file.path, path_expr.line, format!("{what}: {message}")))
}

/// The directory a component with `path` is generated into, below the stack directory
/// `stack_dir`: `<stack_dir>/.terragrunt-stack/<path>`, or `<stack_dir>/<path>` with
/// `no_dot_terragrunt_stack`. The path must be relative, not empty, and stay inside.
pub(crate) fn generated_dir(stack_dir: &Path, path: &str, no_dot: bool) -> Result<PathBuf, String> {
    if path.trim().is_empty() {
        return Err("path must not be empty".into());
    }
    let given = Path::new(path);
    if given.is_absolute() || path.starts_with('/') || path.starts_with('\\') {
        return Err(format!("path {path:?} must be relative"));
    }
    let base = if no_dot {
        normalize_path(stack_dir)
    } else {
        normalize_path(&stack_dir.join(STACK_DIR_NAME))
    };
    let dest = normalize_path(&base.join(given));
    let inside = dest.strip_prefix(&base).is_ok()
        && !dest.components().any(|c| matches!(c, PathPart::ParentDir));
    if !inside || dest == base {
        return Err(format!("path {path:?} is outside of the stack directory"));
    }
    Ok(dest)
}

/// `unit` or `stack`: each component's `{ path = "<absolute generated dir>" }` by name.
fn paths_of(placed: &[(&ComponentDecl, PathBuf)], kind: Kind) -> Value {
    let mut out = Map::new();
    for (c, dest) in placed.iter().filter(|(c, _)| c.kind == kind) {
        let mut entry = Map::new();
        entry.insert("path".to_string(), Value::String(crate::paths::slash(dest)));
        out.insert(c.name.clone(), Value::Object(entry));
    }
    Value::Object(out)
}

/// A placed component's source and values.
/// The stack a component is evaluated in: its directory (as given, and absolute), and
/// where the values it was given are written.
struct Placed<'a> {
    stack_dir: &'a Path,
    dir_abs: &'a Path,
    values_written: &'a BTreeMap<String, Traced>,
}

fn evaluated(
    file: &TgFile,
    c: &ComponentDecl,
    dest: PathBuf,
    locals: &Locals,
    vars: &[(&str, Value)],
    at: &Placed<'_>,
) -> Result<Component, TerragruntError> {
    let (stack_dir, dir_abs) = (at.stack_dir, at.dir_abs);
    let trace = |version: &Option<SourceVersion>, what: &str| match version {
        Some(version) => written::resolve(
            &version.written,
            &file.local_shapes,
            at.values_written,
            what,
        ),
        None => Err("it has no source".to_string()),
    };
    let what = format!("{} {:?}", c.kind.word(), c.name);
    let Some(source_expr) = &c.source else {
        return Err(invalid(&file.path, c.line, format!("{what} has no source")));
    };
    let text = eval_string(file, source_expr, locals, vars, "source")?;
    let source = match classify(&text, dir_abs) {
        Ok(Classified::Local(dir)) => {
            let on_disk = real(&dir);
            if !on_disk.is_dir() {
                return Err(invalid(
                    &file.path,
                    source_expr.line,
                    format!(
                        "{what}: source {text:?} is {}, which is not a directory",
                        on_disk.display()
                    ),
                ));
            }
            Source::Local(on_disk)
        }
        Ok(Classified::Remote(remote)) => Source::Remote(remote),
        Err(error) => {
            return Err(TerragruntError::BadSource {
                file: file.path.clone(),
                line: source_expr.line,
                module_source: text,
                error,
            })
        }
    };
    let values = match &c.values {
        None => None,
        Some(expr) => match eval_value(file, expr, locals, vars)? {
            Value::Null => None,
            object @ Value::Object(_) => Some(object),
            other => {
                return Err(invalid(
                    &file.path,
                    expr.line,
                    format!("{what}: values must be an object or a map, not {other}"),
                ))
            }
        },
    };
    let flag = |expr: &Option<Expr>, what: &str| -> Result<bool, TerragruntError> {
        match expr {
            Some(expr) => eval_bool(file, expr, locals, vars, what),
            None => Ok(false),
        }
    };
    let unchecked =
        flag(&c.no_dot, "no_dot_terragrunt_stack")? || flag(&c.no_validation, "no_validation")?;
    let mut autoinclude = AutoInclude::default();
    if let Some(block) = &c.autoinclude {
        for generate in &block.generates {
            if let Some(generated) = super::eval_generate(file, generate, locals, vars)? {
                autoinclude.generates.push(generated);
            }
        }
        if let Some(expr) = &block.source {
            let text = eval_string(file, expr, locals, vars, "terraform.source")?;
            let version = trace(&block.source_version, "terraform.source");
            autoinclude.source = Some((text, file.path.clone(), expr.line, version));
        }
    }
    let values_written = c
        .values_shapes
        .iter()
        .flatten()
        .map(|(key, shape)| {
            let what = format!("values.{key} of {what}");
            let traced = written::resolve(shape, &file.local_shapes, at.values_written, &what);
            (key.clone(), traced)
        })
        .collect();
    let relative = dest.strip_prefix(dir_abs).unwrap_or(&dest).to_path_buf();
    Ok(Component {
        kind: c.kind,
        name: c.name.clone(),
        unchecked,
        dir: normalize_path(&stack_dir.join(relative)),
        source_text: text,
        source,
        values,
        file: file.path.clone(),
        line: c.line,
        autoinclude,
        source_at: Location {
            file: file.path.clone().into(),
            line: source_expr.line,
        },
        source_version: trace(&c.source_version, &format!("the source of {what}")),
        values_written,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `stack.go`'s `resolveDestPath`, and fixtures `stacks/errors/{absolute-path,
    /// relative-path-outside-of-stack, unit-empty-path}`.
    #[test]
    fn generated_directories() {
        let stack = Path::new("/live");
        let ok = [
            ("app", false, "/live/.terragrunt-stack/app"),
            (
                "chicks/chick-1",
                false,
                "/live/.terragrunt-stack/chicks/chick-1",
            ),
            ("app", true, "/live/app"),
            ("./a/../b", false, "/live/.terragrunt-stack/b"),
        ];
        for (path, no_dot, want) in ok {
            assert_eq!(
                generated_dir(stack, path, no_dot),
                Ok(PathBuf::from(want)),
                "{path}"
            );
        }
        let refused = [
            ("", "must not be empty"),
            ("/abs", "must be relative"),
            ("../outside", "outside of the stack directory"),
            ("a/../..", "outside of the stack directory"),
            (".", "outside of the stack directory"),
        ];
        for (path, why) in refused {
            let error = generated_dir(stack, path, false).expect_err(path);
            assert!(error.contains(why), "{path}: {error}");
        }
        assert!(generated_dir(stack, "..", true).is_err());
    }
}
