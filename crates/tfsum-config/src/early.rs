//! Early evaluation: a module call's `source` and `version` written as expressions, given
//! the values `init` has for them. Terraform 1.15 and OpenTofu 1.8 both evaluate these
//! before installing anything, by different rules (`../shared/research/early-eval.md`,
//! which cites the upstream lines; docs/spec/modules.md §9):
//!
//! * **Terraform** ([`Rules::Terraform`], `internal/terraform/node_module_install.go`):
//!   only variables declared `const = true` have values; every other variable, and
//!   `terraform.*`, `count`, `each`, resources, module outputs, impure and provider
//!   functions, are unknown, and an unknown `source` or `version` is an error. `source`
//!   may name `var`, `local` and `path` directly, `version` only `var` and `local`. A
//!   child module's const variables take the call's arguments, evaluated in the caller's
//!   scope, eagerly; they must be known.
//! * **OpenTofu** ([`Rules::OpenTofu`], `internal/configs/static_scope.go`): every
//!   variable has its value unless declared `const = false`; `terraform.workspace` and
//!   `tofu.workspace` too; a child's variables are its call's arguments, evaluated in the
//!   caller's scope when used. References that need state are errors.
//!
//! A module *instance* is one place of a module in a root's tree ([`Instance`]): the same
//! directory called twice has two instances with their own values. Names are evaluated
//! lazily and once per instance; nothing here runs for a call whose `source` and
//! `version` are literal strings, which is every call in most repositories.
//!
//! Where values come from, lowest precedence first (`internal/command/arguments/vars.go`,
//! OpenTofu's `meta_vars.go`): `TF_VAR_name`, `terraform.tfvars`, `terraform.tfvars.json`,
//! `*.auto.tfvars` and `*.auto.tfvars.json` in name order, the var files a repository
//! assigns to the root in `.tfsum.toml`, then `--var` and `--var-file` in command-line
//! order; a variable with none takes its default ([`RootInputs`]).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::eval::types::{convert, Type};
use super::eval::{self, Allow, Ctx, Def, EvalError, Lookup, Marks, Scope, Value};
use super::{ConfigError, Location, Module, ModuleCall, Variable, WrittenExpr};
use tfsum_vocab::paths::normalize_path;

/// Files read with other text than they have on disk: `tfsum upgrade`'s edits
/// (`crate::edit::Edited`), which the relock reads var files from.
pub trait TextOverrides {
    /// The text to read for `path`, if it is not the file's own.
    fn text_of(&self, path: &Path) -> Option<&str>;
}

/// Whose rules a root's configuration follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rules {
    Terraform,
    OpenTofu,
}

impl Rules {
    fn tool(self) -> &'static str {
        match self {
            Rules::Terraform => "Terraform",
            Rules::OpenTofu => "OpenTofu",
        }
    }
}

/// A value given on the command line, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CliValue {
    /// `--var NAME=VALUE`.
    Var { name: String, value: String },
    /// `--var-file FILE` (resolved against tfsum's working directory).
    File(PathBuf),
}

/// Var files a repository assigns to some of its roots (`.tfsum.toml`'s `var_files`):
/// roots whose path relative to `base` matches `pattern` read `files` (relative to
/// `base`) as if each were given with `--var-file`.
#[derive(Debug, Clone)]
pub struct AssignedFiles {
    pub base: PathBuf,
    pub pattern: regex::Regex,
    pub files: Vec<PathBuf>,
    /// Where the assignment is written, for messages.
    pub origin: String,
}

/// Where the variables of every root of a run take their values (module docs), and what
/// the filesystem functions may read. Built from the settings once per run.
#[derive(Debug, Clone, Default)]
pub struct ValueInputs {
    /// The environment's `TF_VAR_NAME` variables: name → text.
    pub env: BTreeMap<String, String>,
    pub cli: Vec<CliValue>,
    pub assigned: Vec<AssignedFiles>,
    /// `TF_WORKSPACE`.
    pub workspace: Option<String>,
    /// The trees a configuration's `file()` and friends may read.
    pub readable: Vec<PathBuf>,
}

/// Where a variable's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The environment variable of that name.
    Env(String),
    /// An entry of a var file.
    File(Location),
    /// `--var NAME=VALUE`.
    Flag,
    /// A Terragrunt unit's `inputs` attribute.
    UnitInput(Location),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Env(name) => write!(f, "the environment variable {name}"),
            Origin::File(at) => write!(f, "{at}"),
            Origin::Flag => write!(f, "--var"),
            Origin::UnitInput(at) => write!(f, "the unit's inputs at {at}"),
        }
    }
}

/// A value as given, before the variable's type says how to read it.
#[derive(Debug, Clone)]
enum Given {
    /// Text from `--var` or the environment: the value itself for a string, number or
    /// bool variable, else an expression to parse.
    Text(String),
    /// An expression of a `.tfvars` file (evaluated with no names and no functions).
    Expr(WrittenExpr),
    /// A value of a `.tfvars.json` file or a Terragrunt input.
    Value(Value),
    /// A Terragrunt input that could not be evaluated, and why.
    Failed(String),
}

/// The values given to one root, read when first needed.
#[derive(Debug, Default)]
struct GivenValues {
    by_name: BTreeMap<String, (Given, Origin)>,
}

/// One root's inputs: its directory, the run's [`ValueInputs`], and (read once, when an
/// evaluation first asks) the values its var files give.
pub struct RootInputs<'a> {
    pub rules: Rules,
    /// The root module's directory: where Terraform runs, so where relative paths start.
    pub dir: PathBuf,
    inputs: &'a ValueInputs,
    /// Values a Terragrunt unit passes its module through `TF_VAR_` (its `inputs`),
    /// below the environment's own; an input that could not be evaluated, with why.
    unit_inputs: BTreeMap<String, (Result<Value, String>, Location)>,
    /// The values given, or why they could not be read (a var file's error, as text).
    given: OnceLock<Result<GivenValues, String>>,
    /// The var files read for this root, for changed-files mode.
    files: OnceLock<Vec<PathBuf>>,
    /// Files an upgrade edited, read in place of the files on disk.
    edited: Option<&'a dyn TextOverrides>,
}

impl<'a> RootInputs<'a> {
    pub fn new(rules: Rules, dir: &Path, inputs: &'a ValueInputs) -> RootInputs<'a> {
        RootInputs {
            rules,
            dir: normalize_path(dir),
            inputs,
            unit_inputs: BTreeMap::new(),
            given: OnceLock::new(),
            files: OnceLock::new(),
            edited: None,
        }
    }

    /// Var files read with the text an upgrade gives them.
    pub fn with_edited(mut self, edited: &'a dyn TextOverrides) -> Self {
        self.edited = Some(edited);
        self
    }

    /// A Terragrunt unit's `inputs`, which reach its module as `TF_VAR_` variables.
    pub fn with_unit_inputs(
        mut self,
        inputs: BTreeMap<String, (Result<Value, String>, Location)>,
    ) -> Self {
        self.unit_inputs = inputs;
        self
    }

    /// The var files this root's values come from, once an evaluation needed them (none
    /// before): a changed one may change what the root installs.
    pub fn value_files(&self) -> Vec<PathBuf> {
        if self.given.get().is_none() {
            return Vec::new();
        }
        let mut files = self.candidate_files();
        files.sort();
        files.dedup();
        files
    }

    /// Every var file of this root, in precedence order (lowest first), existing or not
    /// for the assigned and command-line ones.
    fn candidate_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self.files.get().cloned().unwrap_or_default();
        for assigned in &self.inputs.assigned {
            if assigned_to(assigned, &self.dir) {
                files.extend(
                    assigned
                        .files
                        .iter()
                        .map(|f| normalize_path(&assigned.base.join(f))),
                );
            }
        }
        for value in &self.inputs.cli {
            if let CliValue::File(path) = value {
                files.push(normalize_path(path));
            }
        }
        files
    }

    fn given(&self) -> Result<&GivenValues, String> {
        self.given
            .get_or_init(|| self.read_given().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn read_given(&self) -> Result<GivenValues, ConfigError> {
        let mut given = GivenValues::default();
        for (name, (value, at)) in &self.unit_inputs {
            let given_value = match value {
                Ok(value) => Given::Value(value.clone()),
                Err(why) => Given::Failed(why.clone()),
            };
            given
                .by_name
                .insert(name.clone(), (given_value, Origin::UnitInput(at.clone())));
        }
        for (name, text) in &self.inputs.env {
            given.by_name.insert(
                name.clone(),
                (
                    Given::Text(text.clone()),
                    Origin::Env(format!("TF_VAR_{name}")),
                ),
            );
        }
        let mut read = Vec::new();
        for file in auto_files(&self.dir) {
            read_var_file(&file, self.edited, &mut given)?;
            read.push(file);
        }
        for assigned in &self.inputs.assigned {
            if !assigned_to(assigned, &self.dir) {
                continue;
            }
            for file in &assigned.files {
                let path = normalize_path(&assigned.base.join(file));
                if !within(&path, &self.inputs.readable) {
                    return Err(ConfigError::invalid(
                        Location {
                            file: PathBuf::from(&assigned.origin).into(),
                            line: 0,
                        },
                        format!(
                            "the var file {} is outside the trees tfsum reads",
                            path.display()
                        ),
                    ));
                }
                read_var_file(&path, self.edited, &mut given).map_err(|e| match e {
                    ConfigError::Read { path, source } => ConfigError::invalid(
                        Location {
                            file: PathBuf::from(&assigned.origin).into(),
                            line: 0,
                        },
                        format!(
                            "the var file {} it assigns to {}: {source}",
                            path.display(),
                            self.dir.display()
                        ),
                    ),
                    other => other,
                })?;
                read.push(path);
            }
        }
        for value in &self.inputs.cli {
            match value {
                CliValue::Var { name, value } => {
                    given
                        .by_name
                        .insert(name.clone(), (Given::Text(value.clone()), Origin::Flag));
                }
                CliValue::File(path) => {
                    read_var_file(path, self.edited, &mut given)?;
                    read.push(normalize_path(path));
                }
            }
        }
        let _ = self.files.set(read);
        Ok(given)
    }

    /// The workspace OpenTofu names in `terraform.workspace` (`TF_WORKSPACE`, else the
    /// root's `.terraform/environment`, else `default`).
    fn workspace(&self) -> String {
        if let Some(name) = &self.inputs.workspace {
            return name.clone();
        }
        let file = self.dir.join(super::DATA_DIR).join("environment");
        tfsum_disk::read::read_to_string(&file)
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "default".to_string())
    }
}

/// Whether `assigned` names the root in `dir`.
fn assigned_to(assigned: &AssignedFiles, dir: &Path) -> bool {
    let base = super::paths::absolute(&assigned.base);
    let Ok(relative) = super::paths::absolute(dir)
        .strip_prefix(&base)
        .map(Path::to_path_buf)
    else {
        return false;
    };
    let relative = super::paths::slash(&relative);
    let relative = if relative.is_empty() {
        "."
    } else {
        relative.as_str()
    };
    assigned.pattern.is_match(relative)
}

fn within(path: &Path, trees: &[PathBuf]) -> bool {
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    trees.iter().any(|tree| {
        let tree = std::fs::canonicalize(tree).unwrap_or_else(|_| tree.clone());
        canonical.starts_with(&tree)
    })
}

/// `terraform.tfvars`, `terraform.tfvars.json`, then `*.auto.tfvars` and
/// `*.auto.tfvars.json` sorted by name: the files Terraform reads itself from the
/// directory it runs in.
fn auto_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for name in ["terraform.tfvars", "terraform.tfvars.json"] {
        let path = dir.join(name);
        if path.is_file() {
            out.push(path);
        }
    }
    let mut auto: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            (name.ends_with(".auto.tfvars") || name.ends_with(".auto.tfvars.json"))
                && entry.path().is_file()
        })
        .map(|entry| entry.path())
        .collect();
    auto.sort();
    out.extend(auto);
    out
}

/// Reads one var file into `given` (later files replace earlier values).
fn read_var_file(
    path: &Path,
    edited: Option<&dyn TextOverrides>,
    given: &mut GivenValues,
) -> Result<(), ConfigError> {
    let text = match edited.and_then(|e| e.text_of(path)) {
        Some(text) => text.to_string(),
        None => tfsum_disk::read::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?,
    };
    let json = path.extension().is_some_and(|e| e == "json")
        || (!path.to_string_lossy().ends_with(".tfvars") && text.trim_start().starts_with('{'));
    if json {
        let members = super::json::root_members(path, &text, "variables file")?;
        for member in members {
            let at = Location {
                file: path.to_path_buf().into(),
                line: member.line,
            };
            let value = json_value(&member.value);
            given
                .by_name
                .insert(member.name, (Given::Value(value), Origin::File(at)));
        }
        return Ok(());
    }
    let bom = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let (body, text) = super::parse_hcl_body(&text).map_err(|e| ConfigError::Syntax {
        file: path.to_path_buf(),
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let lines = tfsum_vocab::text::LineIndex::new(text);
    for attr in body.attributes() {
        use hcl_edit::Span;
        let at = Location {
            file: path.to_path_buf().into(),
            line: lines.line_of(attr.span()),
        };
        let range = attr.value.span();
        let expr_text = range.clone().and_then(|s| text.get(s)).unwrap_or_default();
        let expr = WrittenExpr {
            text: expr_text.into(),
            at: at.clone(),
            // The byte order mark parse_hcl_body dropped counts in file offsets.
            offset: range.map(|r| r.start + bom),
        };
        given.by_name.insert(
            attr.key.as_str().to_string(),
            (Given::Expr(expr), Origin::File(at)),
        );
    }
    if let Some(block) = body.blocks().next() {
        use hcl_edit::Span;
        return Err(ConfigError::invalid(
            Location {
                file: path.to_path_buf().into(),
                line: lines.line_of(block.span()),
            },
            "a variables file holds only NAME = VALUE assignments, not blocks",
        ));
    }
    Ok(())
}

/// A JSON value as the value it is (a `.tfvars.json` string is a string, not a template).
fn json_value(node: &tfsum_vocab::json::JsonNode) -> Value {
    use tfsum_vocab::json::JsonKind;
    match &node.kind {
        JsonKind::Null => Value::Null,
        JsonKind::Bool(b) => Value::Bool(*b),
        JsonKind::Number(n) => Value::Number(n.parse().unwrap_or(f64::NAN)),
        JsonKind::String(s) => Value::String(s.clone()),
        JsonKind::Array(items) => Value::List(items.iter().map(json_value).collect()),
        JsonKind::Object(members) => Value::Object(
            members
                .iter()
                .map(|m| (m.name.clone(), json_value(&m.value)))
                .collect(),
        ),
    }
}

/// What a call installs once its expressions are evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Evaluated {
    pub source: String,
    /// A non-empty version constraint.
    pub version: Option<String>,
}

/// Which argument of a call was being evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Argument {
    Source,
    Version,
}

impl std::fmt::Display for Argument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Argument::Source => "source",
            Argument::Version => "version",
        })
    }
}

/// One module instance's static values (module docs).
pub(crate) struct Instance<'a> {
    root: &'a RootInputs<'a>,
    module: &'a Module,
    /// Terraform's `path.module`: the module's directory relative to the root's (`.` for
    /// the root, `.terraform/modules/KEY` for a remote module).
    path_module: String,
    /// The caller's instance and the call, for a child.
    caller: Option<(&'a Instance<'a>, &'a ModuleCall)>,
    /// `var.NAME` and `local.NAME` evaluated so far.
    memo: RefCell<HashMap<String, Result<Value, EvalError>>>,
    /// The names being evaluated, innermost last (a name met again is a cycle).
    active: RefCell<Vec<String>>,
}

impl<'a> Instance<'a> {
    pub(crate) fn root(root: &'a RootInputs<'a>, module: &'a Module) -> Instance<'a> {
        Instance {
            root,
            module,
            path_module: ".".to_string(),
            caller: None,
            memo: RefCell::default(),
            active: RefCell::default(),
        }
    }

    /// The instance of `module`, called by `call` from `self`, at `path_module`.
    pub(crate) fn child(
        &'a self,
        call: &'a ModuleCall,
        module: &'a Module,
        path_module: String,
    ) -> Instance<'a> {
        Instance {
            root: self.root,
            module,
            path_module,
            caller: Some((self, call)),
            memo: RefCell::default(),
            active: RefCell::default(),
        }
    }

    /// Terraform's `path.module` for a module at `dir`, installed (when remote) under
    /// `key` with `subdir` inside its package.
    pub(crate) fn path_module_for(&self, dir: &Path, remote: Option<(&str, &Path)>) -> String {
        match remote {
            Some((key, subdir)) => {
                let mut path = format!(".terraform/modules/{key}");
                let subdir = super::paths::slash(subdir);
                if !subdir.is_empty() && subdir != "." {
                    path.push('/');
                    path.push_str(&subdir);
                }
                path
            }
            None => super::paths::slash(&super::paths::relative_path(
                &normalize_path(dir),
                &self.root.dir,
            )),
        }
    }

    /// What `call` installs: its `source` and `version` as literals or evaluated. Errors
    /// name the call, the argument and the rule broken.
    pub(crate) fn evaluate_call(&self, call: &ModuleCall) -> Result<Evaluated, ConfigError> {
        let version = match &call.written.version {
            Some(expr) => self.argument(call, Argument::Version, expr)?,
            None => call.version.clone(),
        };
        let version = version.filter(|v| !v.trim().is_empty());
        let source = match (&call.written.source, call.literal) {
            (Some(expr), false) => {
                self.argument(call, Argument::Source, expr)?
                    .ok_or_else(|| {
                        self.call_error(
                            call,
                            Argument::Source,
                            &call.written.source,
                            "the value is null; a module source is required".into(),
                        )
                    })?
            }
            _ => call.source.clone(),
        };
        Ok(Evaluated { source, version })
    }

    /// One argument's string value; `None` for a null (or, for OpenTofu, unknown)
    /// version.
    fn argument(
        &self,
        call: &ModuleCall,
        argument: Argument,
        written: &WrittenExpr,
    ) -> Result<Option<String>, ConfigError> {
        let fail =
            |message: String| self.call_error(call, argument, &Some(written.clone()), message);
        let expr = written.parse()?;
        if self.root.rules == Rules::Terraform {
            self.check_references(&expr, argument).map_err(&fail)?;
        }
        let value = eval::evaluate(&expr, self).map_err(|e| fail(e.to_string()))?;
        if let Some(cause) = value.first_unknown() {
            if self.root.rules == Rules::OpenTofu && argument == Argument::Version {
                // OpenTofu drops a version constraint it cannot evaluate
                // (`internal/configs/version_constraint.go`).
                return Ok(None);
            }
            let cause = cause
                .as_deref()
                .unwrap_or("it depends on a value that is not known");
            return Err(fail(format!(
                "its value is not known during init: {cause}; {}",
                match self.root.rules {
                    Rules::Terraform => "Terraform 1.15 evaluates only literal values, local values and variables declared `const = true` there",
                    Rules::OpenTofu => "OpenTofu evaluates only values known before anything is planned there",
                }
            )));
        }
        let marks = value.deep_marks();
        if marks.contains(Marks::SENSITIVE) || marks.contains(Marks::EPHEMERAL) {
            let which = if marks.contains(Marks::SENSITIVE) {
                "sensitive"
            } else {
                "ephemeral"
            };
            return Err(fail(format!(
                "its value is derived from a {which} value, which {} does not use in a module {argument}",
                self.root.rules.tool()
            )));
        }
        let value = value.unmark_deep();
        match value {
            Value::Null => Ok(None),
            other => match convert(other, &Type::String) {
                Ok(Value::String(s)) => Ok(Some(s)),
                Ok(_) | Err(_) => Err(fail("incorrect value type: a string is required".into())),
            },
        }
    }

    /// Terraform's check of the references written directly in `source` or `version`
    /// (`node_module_install.go`, "Invalid module source|version").
    fn check_references(&self, expr: &hcl::Expression, argument: Argument) -> Result<(), String> {
        for (root, attr) in eval::references(expr) {
            let allowed = matches!(
                (root.as_str(), argument),
                ("var" | "local", _) | ("path", Argument::Source)
            );
            if !allowed {
                let name = match attr {
                    Some(attr) => format!("{root}.{attr}"),
                    None => root,
                };
                let what = match argument {
                    Argument::Source => "constant input variables, local values and path.*",
                    Argument::Version => "constant input variables and local values",
                };
                return Err(format!(
                    "it refers to {name}, but Terraform allows a module {argument} to refer only to {what}"
                ));
            }
        }
        Ok(())
    }

    fn call_error(
        &self,
        call: &ModuleCall,
        argument: Argument,
        written: &Option<WrittenExpr>,
        message: String,
    ) -> ConfigError {
        let at = written
            .as_ref()
            .map_or_else(|| call.at.clone(), |w| w.at.clone());
        ConfigError::EarlyEval {
            at,
            name: call.name.clone(),
            argument,
            message,
        }
    }

    /// The variables declared `const = true` must have values as soon as the module is
    /// loaded, used or not, and their validations hold (Terraform's init graph keeps
    /// every const variable; OpenTofu 1.12 evaluates them at load): a required one
    /// without a value fails here.
    pub(crate) fn check_constants(&self) -> Result<(), ConfigError> {
        for variable in self.module.variables.values() {
            if variable.constant != Some(true) {
                continue;
            }
            let fail = |message: String| {
                ConfigError::invalid(
                    variable.at.clone(),
                    format!("variable {:?}: {message}", variable.name),
                )
            };
            if self.root.rules == Rules::Terraform {
                if variable.sensitive {
                    return Err(fail("a const variable cannot be sensitive".into()));
                }
                if variable.ephemeral {
                    return Err(fail("a const variable cannot be ephemeral".into()));
                }
            }
            let value = self.variable(variable).map_err(|e| fail(e.to_string()))?;
            if let (Some(cause), Some((_, call))) = (value.first_unknown(), self.caller) {
                let cause = cause.as_deref().unwrap_or("it is not known");
                let at = call
                    .written
                    .args
                    .get(&variable.name)
                    .map_or(call.at.clone(), |a| a.at.clone());
                return Err(ConfigError::invalid(
                    at,
                    format!(
                        "module {:?}: the value for its const variable {:?} must be known during init: {cause}",
                        call.name, variable.name
                    ),
                ));
            }
            if self.root.rules == Rules::Terraform {
                self.validate(variable)?;
            }
        }
        Ok(())
    }

    /// A const variable's `validation` blocks (Terraform runs them during init; one whose
    /// condition is not known yet waits for plan).
    fn validate(&self, variable: &Variable) -> Result<(), ConfigError> {
        for validation in &variable.validations {
            let condition = validation.condition.parse()?;
            let holds = eval::evaluate(&condition, self).map_err(|e| {
                ConfigError::invalid(validation.condition.at.clone(), e.to_string())
            })?;
            if let Value::Bool(false) = holds.unmark().0 {
                let message = validation
                    .error_message
                    .as_ref()
                    .and_then(|m| m.parse().ok())
                    .and_then(|m| eval::evaluate(&m, self).ok())
                    .and_then(|v| v.as_string())
                    .unwrap_or_else(|| "the validation's condition does not hold".to_string());
                return Err(ConfigError::invalid(
                    validation.condition.at.clone(),
                    format!("invalid value for variable {:?}: {message}", variable.name),
                ));
            }
        }
        Ok(())
    }

    /// `var.NAME`, once per instance.
    fn var(&self, name: &str) -> Result<Value, EvalError> {
        let Some(variable) = self.module.variables.get(name) else {
            return Err(EvalError::Other(format!(
                "reference to undeclared input variable: no variable named {name:?} is declared in {}",
                self.module.dir.display()
            )));
        };
        self.memoized(&format!("var.{name}"), || self.variable(variable))
    }

    /// A variable's value by the rules (module docs).
    fn variable(&self, variable: &Variable) -> Result<Value, EvalError> {
        let name = &variable.name;
        match (self.root.rules, variable.constant) {
            (Rules::Terraform, Some(true)) => {}
            (Rules::Terraform, _) => {
                let whose = match self.caller {
                    None => String::new(),
                    Some((_, call)) => format!(" (module {:?})", call.name),
                };
                return Ok(Value::unknown(format!(
                    "`var.{name}`{whose} is not declared `const = true`"
                )));
            }
            (Rules::OpenTofu, Some(false)) => {
                return Err(EvalError::Other(format!(
                "var.{name} is declared `const = false`, so OpenTofu cannot use it before planning"
            )))
            }
            (Rules::OpenTofu, _) => {}
        }
        let ty = match &variable.type_constraint {
            Some(written) => {
                let expr = written
                    .parse()
                    .map_err(|e| EvalError::Other(e.to_string()))?;
                Some(Type::parse(&expr).map_err(|e| {
                    EvalError::Other(format!(
                        "variable {name:?} at {}: invalid type: {e}",
                        written.at
                    ))
                })?)
            }
            None => None,
        };
        let value = match self.caller {
            None => self.root_value(variable, ty.as_ref())?,
            Some((caller, call)) => match call.written.args.get(name) {
                Some(arg) => {
                    let expr = arg.parse().map_err(|e| EvalError::Other(e.to_string()))?;
                    eval::evaluate(&expr, caller).map_err(|e| {
                        EvalError::Other(format!(
                            "the argument {name:?} of module {:?} at {}: {e}",
                            call.name, arg.at
                        ))
                    })?
                }
                None => self.default(variable)?.ok_or_else(|| {
                    EvalError::Other(format!(
                        "module {:?} at {} does not give the required variable {name:?} a value",
                        call.name, call.at
                    ))
                })?,
            },
        };
        let value = match ty {
            Some(ty) => convert(value, &ty).map_err(|e| {
                EvalError::Other(format!("invalid value for variable {name:?}: {e}"))
            })?,
            None => value,
        };
        // `nullable = false`: a null takes the default; without one it is no value
        // (`internal/configs/static_scope.go`, Terraform's `PrepareFinalInputVariableValue`).
        let value = if value.is_null() && !variable.nullable {
            self.default(variable)?.filter(|v| !v.is_null()).ok_or_else(|| {
                EvalError::Other(format!(
                    "no value for required variable {name:?}: it is declared `nullable = false` and has no default, so it may not be set to null"
                ))
            })?
        } else {
            value
        };
        let mut marks = Marks::NONE;
        if variable.sensitive {
            marks = marks.union(Marks::SENSITIVE);
        }
        if variable.ephemeral {
            marks = marks.union(Marks::EPHEMERAL);
        }
        Ok(value.mark(marks))
    }

    /// A root variable's value: given, else its default, else none ("No value for
    /// required variable").
    fn root_value(&self, variable: &Variable, ty: Option<&Type>) -> Result<Value, EvalError> {
        let name = &variable.name;
        let given = self.root.given().map_err(EvalError::Other)?;
        match given.by_name.get(name) {
            Some((Given::Value(value), _)) => Ok(value.clone()),
            Some((Given::Failed(why), origin)) => Err(EvalError::Other(format!(
                "the value of variable {name:?} comes from {origin}, which cannot be evaluated: {why}"
            ))),
            Some((Given::Text(text), origin)) => {
                if Type::parses_literally(ty) {
                    Ok(Value::String(text.clone()))
                } else {
                    let expr: hcl::Expression = text.parse().map_err(|e| {
                        EvalError::Other(format!("the value of variable {name:?} from {origin} is not a valid expression: {e}"))
                    })?;
                    eval::evaluate(&expr, &Constants).map_err(|e| {
                        EvalError::Other(format!("the value of variable {name:?} from {origin}: {e}"))
                    })
                }
            }
            Some((Given::Expr(written), origin)) => {
                let expr = written.parse().map_err(|e| EvalError::Other(e.to_string()))?;
                eval::evaluate(&expr, &Constants).map_err(|e| {
                    EvalError::Other(format!("the value of variable {name:?} at {origin}: {e}"))
                })
            }
            None => self.default(variable)?.ok_or_else(|| {
                EvalError::Other(format!(
                    "no value for required variable {name:?} (declared at {}): give it with `--var {name}=…`, `TF_VAR_{name}` or a `.tfvars` file",
                    variable.at
                ))
            }),
        }
    }

    /// A variable's default, evaluated with no names; `None` when it has none.
    fn default(&self, variable: &Variable) -> Result<Option<Value>, EvalError> {
        match &variable.default {
            None => Ok(None),
            Some(written) => {
                let expr = written
                    .parse()
                    .map_err(|e| EvalError::Other(e.to_string()))?;
                eval::evaluate(&expr, &Constants).map(Some)
            }
        }
    }

    /// `local.NAME`, once per instance.
    fn local(&self, name: &str) -> Result<Value, EvalError> {
        let Some(written) = self.module.locals.get(name) else {
            return Err(EvalError::Other(format!(
                "reference to undeclared local value: no local value named {name:?} is defined in {}",
                self.module.dir.display()
            )));
        };
        self.memoized(&format!("local.{name}"), || {
            let expr = written
                .parse()
                .map_err(|e| EvalError::Other(e.to_string()))?;
            eval::evaluate(&expr, self).map_err(|e| match e {
                // The innermost failing local names itself once.
                EvalError::Other(m) if m.starts_with("in local.") || m.starts_with("circular") => {
                    EvalError::Other(m)
                }
                e => EvalError::Other(format!("in local.{name} ({}): {e}", written.at)),
            })
        })
    }

    fn memoized(
        &self,
        key: &str,
        compute: impl FnOnce() -> Result<Value, EvalError>,
    ) -> Result<Value, EvalError> {
        if let Some(known) = self.memo.borrow().get(key) {
            return known.clone();
        }
        {
            let mut active = self.active.borrow_mut();
            if let Some(at) = active.iter().position(|k| k == key) {
                let mut chain: Vec<String> = active[at..].to_vec();
                chain.push(key.to_string());
                return Err(EvalError::Other(format!(
                    "circular reference: {}",
                    chain.join(" → ")
                )));
            }
            active.push(key.to_string());
        }
        let result = compute();
        self.active.borrow_mut().pop();
        self.memo
            .borrow_mut()
            .insert(key.to_string(), result.clone());
        result
    }

    /// What a reference the rules do not give a value stands for: unknown for Terraform
    /// (the init walk has no value for it), an error for OpenTofu (its static scope).
    fn unavailable(&self, name: String) -> Result<Lookup, EvalError> {
        match self.root.rules {
            Rules::Terraform => Ok(Lookup::Whole(Value::unknown(format!(
                "{name} has no value during init"
            )))),
            Rules::OpenTofu => Err(EvalError::Other(format!(
                "{name} is not available before planning; OpenTofu evaluates module sources and versions from variables, local values, path.* and the workspace name only"
            ))),
        }
    }
}

/// Where a module's version (or git ref) is written as one literal string, when it comes
/// from a variable or a local value: what `tfsum outdated` shows and `tfsum upgrade`
/// edits ([`Instance::version_definition`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub at: Location,
    /// The bytes of the quoted literal in `at.file`, when it can be edited in place.
    pub span: Option<std::ops::Range<usize>>,
    /// The literal's text: the whole version constraint, or the whole source whose
    /// `?ref=` names the version.
    pub text: String,
    /// What it is, for messages: `the default of variable "ref"`, `local.versions.vpc`.
    pub what: String,
}

/// The outcome of following a version to its literal: found, or why it cannot be.
pub(crate) type Traced = Result<Definition, String>;

impl Instance<'_> {
    /// Where the call's version is written, for a call whose `version` (registry) or
    /// `source` (its `?ref=`) is an expression; `None` for a call written literally.
    pub(crate) fn version_definition(&self, call: &ModuleCall) -> Option<Traced> {
        if let Some(version) = &call.written.version {
            return Some(self.trace(version, &[], 0));
        }
        let source = call.written.source.as_ref()?;
        Some(self.trace_ref(source))
    }

    /// A source template whose `?ref=` is one interpolation (`…?ref=${var.ref}`), or a
    /// whole source from one reference.
    fn trace_ref(&self, source: &WrittenExpr) -> Traced {
        let expr = parse_edit(source)?;
        if let hcl_edit::expr::Expression::StringTemplate(template) = &expr {
            let elements: Vec<&hcl_edit::template::Element> = template.iter().collect();
            if let [.., hcl_edit::template::Element::Literal(before), hcl_edit::template::Element::Interpolation(last)] =
                elements.as_slice()
            {
                if before.value().ends_with("ref=") {
                    return self.trace_node(source, &last.expr, &[], 0);
                }
            }
            return Err(format!(
                "the ref in its source {} is not one interpolation at its end (…?ref=${{…}})",
                source.text.trim()
            ));
        }
        self.trace_node(source, &expr, &[], 0)
    }

    /// Where `written` (with `path` applied: attribute names into objects) is one
    /// literal string. `depth` bounds the chase through variables and locals.
    fn trace(&self, written: &WrittenExpr, path: &[String], depth: usize) -> Traced {
        let expr = parse_edit(written)?;
        self.trace_node(written, &expr, path, depth)
    }

    fn trace_node(
        &self,
        written: &WrittenExpr,
        node: &hcl_edit::expr::Expression,
        path: &[String],
        depth: usize,
    ) -> Traced {
        use hcl_edit::expr::{Expression as E, ObjectKey, TraversalOperator as Op};
        use hcl_edit::Span;
        if depth > 16 {
            return Err("it passes through more than 16 variables and locals".into());
        }
        match (node, path) {
            (E::String(s), []) => {
                let range = node.span();
                let line = range.clone().map_or(0, |r| {
                    written.text[..r.start.min(written.text.len())]
                        .matches('\n')
                        .count()
                });
                Ok(Definition {
                    at: Location {
                        file: written.at.file.clone(),
                        line: written.at.line + line,
                    },
                    span: written
                        .offset
                        .zip(range)
                        .map(|(o, r)| o + r.start..o + r.end),
                    text: s.as_str().to_string(),
                    what: String::new(),
                })
            }
            (E::Parenthesis(inner), _) => self.trace_node(written, inner.inner(), path, depth),
            (E::Object(object), [first, rest @ ..]) => {
                let value = object.iter().find_map(|(key, value)| {
                    let name = match key {
                        ObjectKey::Ident(ident) => ident.as_str(),
                        ObjectKey::Expression(E::String(s)) => s.as_str(),
                        ObjectKey::Expression(_) => return None,
                    };
                    (name == first).then_some(value)
                });
                match value {
                    Some(value) => self.trace_node(written, value.expr(), rest, depth),
                    None => Err(format!(
                        "{} has no attribute {first:?} written in it",
                        written.at
                    )),
                }
            }
            (E::Traversal(traversal), _) => {
                let E::Variable(root) = &traversal.expr else {
                    return Err(format!("it is computed ({})", written.text.trim()));
                };
                let mut names = Vec::new();
                for op in &traversal.operators {
                    match op.value() {
                        Op::GetAttr(name) => names.push(name.as_str().to_string()),
                        Op::Index(E::String(key)) => names.push(key.as_str().to_string()),
                        _ => return Err(format!("it is computed ({})", written.text.trim())),
                    }
                }
                let Some((name, inner)) = names.split_first() else {
                    return Err(format!("it is computed ({})", written.text.trim()));
                };
                let mut inner = inner.to_vec();
                inner.extend(path.iter().cloned());
                let found = match root.as_str() {
                    "var" => self.trace_var(name, &inner, depth + 1),
                    "local" => match self.module.locals.get(name) {
                        Some(local) => self.trace(local, &inner, depth + 1),
                        None => Err(format!("local.{name} is not defined")),
                    },
                    other => Err(format!(
                        "it comes from {other}.{name}, which is not written in the configuration"
                    )),
                }?;
                let what = if found.what.is_empty() {
                    format!("{}.{}", root.as_str(), names.join("."))
                } else {
                    found.what.clone()
                };
                Ok(Definition { what, ..found })
            }
            _ => Err(format!(
                "it is computed ({}), not written as one literal string",
                written.text.trim()
            )),
        }
    }

    /// Where `var.NAME` (with `path`) takes its value in this instance.
    fn trace_var(&self, name: &str, path: &[String], depth: usize) -> Traced {
        let variable = self
            .module
            .variables
            .get(name)
            .ok_or_else(|| format!("var.{name} is not declared"))?;
        let from_default = |what: String| -> Traced {
            let default = variable
                .default
                .as_ref()
                .ok_or_else(|| format!("variable {name:?} has no default"))?;
            let found = self.trace(default, path, depth)?;
            Ok(Definition { what, ..found })
        };
        match self.caller {
            Some((caller, call)) => match call.written.args.get(name) {
                Some(arg) => caller.trace(arg, path, depth),
                None => from_default(format!("the default of variable {name:?}")),
            },
            None => {
                let given = self.root.given()?;
                match given.by_name.get(name) {
                    Some((Given::Expr(written), Origin::File(at))) => {
                        let found = self.trace(written, path, depth)?;
                        Ok(Definition {
                            what: format!("{name} in {}", at.file.display()),
                            ..found
                        })
                    }
                    Some((_, origin)) => {
                        Err(format!("var.{name} is given by {origin}; change it there"))
                    }
                    None => from_default(format!("the default of variable {name:?}")),
                }
            }
        }
    }
}

/// `written` parsed with its spans (relative to its text).
fn parse_edit(written: &WrittenExpr) -> Result<hcl_edit::expr::Expression, String> {
    hcl_edit::parser::parse_expr(&written.text)
        .map_err(|e| format!("{}: cannot read {}: {e}", written.at, written.text.trim()))
}

impl Scope for Instance<'_> {
    fn lookup(&self, name: &str, attr: Option<&str>) -> Result<Lookup, EvalError> {
        let named = |attr: Option<&str>| match attr {
            Some(attr) => format!("{name}.{attr}"),
            None => name.to_string(),
        };
        match (name, attr) {
            ("var", Some(attr)) => self.var(attr).map(Lookup::Attr),
            ("local", Some(attr)) => self.local(attr).map(Lookup::Attr),
            ("var" | "local", None) => Err(EvalError::Other(format!(
                "invalid reference: {name} must be followed by a name ({name}.NAME)"
            ))),
            ("path", Some("module")) => Ok(Lookup::Attr(Value::String(self.path_module.clone()))),
            ("path", Some("root")) => Ok(Lookup::Attr(Value::string("."))),
            ("path", Some("cwd")) => Ok(Lookup::Attr(Value::String(super::paths::slash(
                &super::paths::absolute(&self.root.dir),
            )))),
            ("path", other) => Err(EvalError::Other(format!(
                "invalid reference: {} is not one of path.module, path.root and path.cwd",
                named(other)
            ))),
            ("terraform", Some("workspace")) | ("tofu", Some("workspace"))
                if self.root.rules == Rules::OpenTofu =>
            {
                Ok(Lookup::Attr(Value::String(self.root.workspace())))
            }
            _ => self.unavailable(named(attr)),
        }
    }

    fn allow(&self, def: &Def) -> Allow {
        if def.impure && self.root.rules == Rules::Terraform {
            return Allow::Unknown(
                format!("{}() returns a new value on every run", def.name).into(),
            );
        }
        Allow::Run
    }

    fn provider_function(&self, name: &str) -> Result<Value, EvalError> {
        match self.root.rules {
            Rules::Terraform => Ok(Value::unknown(format!(
                "{name} is a provider-defined function, which is not called during init"
            ))),
            Rules::OpenTofu => Err(EvalError::Other(format!(
                "{name} is a provider-defined function, which OpenTofu cannot call before planning"
            ))),
        }
    }

    fn files(&self) -> Ctx<'_> {
        Ctx {
            base_dir: &self.root.dir,
            readable: &self.root.inputs.readable,
        }
    }
}

/// The scope of a value written in a var file or a default: constants only (Terraform
/// evaluates them with no context: no names, no functions).
struct Constants;

impl Scope for Constants {
    fn lookup(&self, name: &str, _: Option<&str>) -> Result<Lookup, EvalError> {
        Err(EvalError::Other(format!(
            "variables are not allowed here: {name} cannot be used in a value that must be constant"
        )))
    }

    fn allow(&self, def: &Def) -> Allow {
        Allow::Refuse(format!(
            "functions may not be called here: {}() cannot be used in a value that must be constant",
            def.name
        ))
    }

    fn files(&self) -> Ctx<'_> {
        Ctx {
            base_dir: Path::new("."),
            readable: &[],
        }
    }
}

#[cfg(test)]
mod tests;
