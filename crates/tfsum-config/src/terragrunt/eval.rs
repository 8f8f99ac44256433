//! Evaluating Terragrunt expressions: the functions units use to name their source module,
//! and the `local`/`include` variables.
//!
//! Expressions are evaluated by tfsum's one evaluator ([`crate::eval`], which also
//! holds Terraform's built-in functions, all of which Terragrunt offers too); this file is
//! the Terragrunt scope over it ([`Context`]): its names and its own functions. The
//! facts those functions answer from (which file is being evaluated, for which unit,
//! through which include) live in a thread-local [`Scope`] stack for the duration of one
//! evaluation ([`with_scope`]). The stack is what lets `read_terragrunt_config` evaluate
//! another file from inside a call.
//!
//! Semantics follow Terragrunt's `config/config_helpers.go`: every path function answers
//! for the *unit* (`TerragruntConfigPath`), also while a parent file pulled in by `include`
//! is evaluated; `path_relative_to_include()` and friends then use that include
//! (`TrackInclude.Original`). Paths are absolute and use `/`, as Terragrunt's are.
//!
//! `read_terragrunt_config` can make evaluation recurse: a file that reads itself, two
//! files that read each other, or reads that fan out (each file reading the next twice).
//! One outermost [`with_scope`] is a *session*: a read of a file already on the scope
//! stack (the same file for the same config path) is a cycle, a read deeper than
//! [`MAX_READ_DEPTH`] is refused, and either aborts the whole session ([`Abort`]), so the
//! unit fails naming the chain of files; each file's result is remembered for the session,
//! so fan-out costs one evaluation per file.
//!
//! Only functions that are pure, or that read the repository's own files, are provided: no
//! `get_env`, `run_cmd`, `sops_decrypt_file` or AWS lookups. A value that needs one of
//! those fails with [`EvalFailure::UnsupportedFunction`] naming it, but only when it is
//! actually needed (see [`Locals`]). The filesystem functions (`file()`, …) read only
//! inside the repository.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use hcl::Expression;

use crate::eval::value::Value;
use crate::eval::{self as expr_eval, Ctx, EvalError, Lookup};

/// An object's attributes.
pub(crate) type Map = BTreeMap<String, Value>;

/// The value the evaluator and the Terragrunt reader share.
type EvalValue = Value;

use super::limits::{check_value, MAX_READ_DEPTH};
use super::parse::{parse_file, LocalDecl, TgFile};
use crate::paths::{relative_path, slash};

/// The `include` a function call answers for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResolvedInclude {
    /// The block label; `""` for a legacy bare `include {}`.
    pub label: String,
    /// The included file, absolute and normalised.
    pub path: PathBuf,
}

/// Which includes the path functions see (Terragrunt's `TrackInclude`).
#[derive(Debug, Clone)]
pub(crate) enum Includes {
    /// Evaluating a unit's own file: `path_relative_to_include("root")` picks by label.
    Current(Vec<ResolvedInclude>),
    /// Evaluating a parent file for one include of the unit.
    Original(ResolvedInclude),
}

/// What the functions of one evaluation answer from.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    /// The file whose expressions are evaluated: the unit's `terragrunt.hcl`, an included
    /// parent, or a file `read_terragrunt_config` reads. Absolute.
    pub file: PathBuf,
    /// Terragrunt's `TerragruntConfigPath`: the unit's `terragrunt.hcl`, or the file that
    /// `read_terragrunt_config` is reading. Absolute.
    pub config_path: PathBuf,
    /// The unit directory (Terragrunt's `WorkingDir`), absolute.
    pub unit_dir: PathBuf,
    /// What `get_repo_root()` answers, absolute.
    pub repo_root: PathBuf,
    pub includes: Includes,
    /// The line of `file` being evaluated ([`at_line`]), for the chain of an [`Abort`].
    pub line: Cell<usize>,
}

/// Why a whole session stopped: a `read_terragrunt_config` that could never finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Abort {
    pub kind: AbortKind,
    /// The files being evaluated, outermost first, each with the line that read the next.
    pub callers: Vec<(PathBuf, usize)>,
    /// The file the last caller asked to read.
    pub target: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AbortKind {
    /// `target` is already being evaluated, for the same config path.
    Cycle,
    /// [`MAX_READ_DEPTH`] files are already being read.
    TooDeep,
}

/// What the nested scopes of one outermost [`with_scope`] share.
#[derive(Default)]
struct Session {
    /// Results of `read_terragrunt_config` by file. Within a session the result depends
    /// on the file alone (the unit and the repository root are fixed), so each file is
    /// evaluated once however often it is read.
    reads: HashMap<PathBuf, Result<Value, String>>,
    abort: Option<Abort>,
}

thread_local! {
    static SCOPES: RefCell<Vec<Rc<Scope>>> = const { RefCell::new(Vec::new()) };
    static SESSION: RefCell<Session> = RefCell::default();
}

/// Runs `f` with `scope` as the innermost scope for function calls; the outermost call
/// opens a session. `Err` when a read in the session was aborted: `f`'s result is then
/// incomplete and dropped.
pub(crate) fn with_scope<T>(scope: Scope, f: impl FnOnce() -> T) -> Result<T, Abort> {
    struct Pop {
        outermost: bool,
    }
    impl Drop for Pop {
        fn drop(&mut self) {
            SCOPES.with(|s| {
                s.borrow_mut().pop();
            });
            if self.outermost {
                SESSION.with(RefCell::take);
            }
        }
    }
    let outermost = SCOPES.with(|s| {
        let mut scopes = s.borrow_mut();
        scopes.push(Rc::new(scope));
        scopes.len() == 1
    });
    let _pop = Pop { outermost };
    let value = f();
    match SESSION.with(|s| s.borrow().abort.clone()) {
        Some(abort) => Err(abort),
        None => Ok(value),
    }
}

/// Records which line of the innermost scope's file is being evaluated.
pub(crate) fn at_line(line: usize) {
    SCOPES.with(|s| {
        if let Some(scope) = s.borrow().last() {
            scope.line.set(line);
        }
    });
}

fn aborted() -> bool {
    SESSION.with(|s| s.borrow().abort.is_some())
}

/// The innermost scope. Fails once the session is aborted, so that evaluation unwinds
/// without doing more work.
fn current() -> Result<Rc<Scope>, String> {
    if aborted() {
        return Err("evaluation stopped".to_string());
    }
    SCOPES
        .with(|s| s.borrow().last().cloned())
        .ok_or_else(|| "called outside a Terragrunt evaluation".to_string())
}

/// Why an expression could not be evaluated, before a file and line are attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EvalFailure {
    UnsupportedFunction(String),
    Other(String),
}

/// The Terragrunt functions tfsum implements (besides Terraform's built-ins), for
/// messages.
pub(crate) const SUPPORTED_FUNCTIONS: &[&str] = &[
    "find_in_parent_folders",
    "get_terragrunt_dir",
    "get_original_terragrunt_dir",
    "get_parent_terragrunt_dir",
    "get_repo_root",
    "get_path_from_repo_root",
    "get_path_to_repo_root",
    "path_relative_to_include",
    "path_relative_from_include",
    "read_terragrunt_config",
    "and Terraform's built-in functions",
];

/// A Terragrunt function: evaluated arguments to a value, or why not.
type TgFunction = fn(&[EvalValue]) -> Result<EvalValue, String>;

/// Terragrunt's own functions, by name.
fn own_function(name: &str) -> Option<TgFunction> {
    let f: TgFunction = match name {
        "find_in_parent_folders" => find_in_parent_folders,
        "get_terragrunt_dir" => get_terragrunt_dir,
        "get_original_terragrunt_dir" => get_original_terragrunt_dir,
        "get_parent_terragrunt_dir" => get_parent_terragrunt_dir,
        "get_repo_root" => get_repo_root,
        "get_path_from_repo_root" => get_path_from_repo_root,
        "get_path_to_repo_root" => get_path_to_repo_root,
        "path_relative_to_include" => path_relative_to_include,
        "path_relative_from_include" => path_relative_from_include,
        "read_terragrunt_config" => read_terragrunt_config,
        _ => return None,
    };
    Some(f)
}

/// The names one Terragrunt evaluation sees (`local`, `include`, `values`, …) and its
/// functions: the scope of [`crate::eval`] for Terragrunt files.
pub(crate) struct Context {
    vars: Vec<(String, EvalValue)>,
    /// Write unknown interpolations of templates as [`UNKNOWN_TEXT`].
    placeholder: bool,
    /// Where the filesystem functions may read: the repository.
    readable: Vec<PathBuf>,
    base_dir: PathBuf,
}

/// A context holding the given variables (and every function).
pub(crate) fn context(vars: &[(&str, Value)]) -> Context {
    let mut ctx = Context {
        vars: Vec::new(),
        placeholder: false,
        readable: Vec::new(),
        base_dir: PathBuf::from("."),
    };
    if let Ok(scope) = current() {
        ctx.readable = vec![scope.repo_root.clone()];
        ctx.base_dir = config_dir(&scope);
    }
    for (name, value) in vars {
        ctx.declare_var(name, value);
    }
    ctx
}

impl Context {
    /// This context, writing unknown values into templates as [`UNKNOWN_TEXT`]: for the
    /// contents of a `generate` block, which tfsum reads only for the providers, modules
    /// and constraints it declares (a `get_env()` in a provider's arguments changes none).
    pub(crate) fn placeholders(mut self) -> Context {
        self.placeholder = true;
        self
    }

    /// Declares (or replaces) the variable `name`.
    pub(crate) fn declare_var(&mut self, name: &str, value: &Value) {
        let value = value.clone();
        match self.vars.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.vars.push((name.to_string(), value)),
        }
    }
}

impl expr_eval::Scope for Context {
    fn lookup(&self, name: &str, _attr: Option<&str>) -> Result<Lookup, EvalError> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| Lookup::Whole(v.clone()))
            .ok_or_else(|| EvalError::UnknownName(name.to_string()))
    }

    fn own_function(&self, name: &str, args: &[EvalValue]) -> Option<Result<EvalValue, EvalError>> {
        if NOT_READ.contains(&name) {
            let first = match args.first() {
                Some(EvalValue::String(s)) => format!("{s:?}"),
                _ => String::new(),
            };
            return Some(Ok(EvalValue::unknown(format!(
                "{name}({first}) is not called by tfsum, which reads no environment, command output or secret into a repository's configuration"
            ))));
        }
        let f = own_function(name)?;
        Some(f(args).map_err(|message| EvalError::Other(format!("{name}: {message}"))))
    }

    fn files(&self) -> Ctx<'_> {
        Ctx {
            base_dir: &self.base_dir,
            readable: &self.readable,
        }
    }

    fn unknown_in_template(&self) -> Option<&str> {
        self.placeholder.then_some(UNKNOWN_TEXT)
    }
}

/// What an unknown value becomes in the text of a `generate` block ([`Context::placeholders`]):
/// an identifier, so that it parses wherever an expression or a string part may stand,
/// and a name no provider, version or source can be.
pub(crate) const UNKNOWN_TEXT: &str = "__tfsum_unknown__";

/// Evaluates `expr` in `ctx`, classifying a failure.
pub(crate) fn evaluate(expr: &Expression, ctx: &Context) -> Result<Value, EvalFailure> {
    let value = expr_eval::evaluate(expr, ctx).map_err(|error| match error {
        EvalError::UnknownFunction(name) => EvalFailure::UnsupportedFunction(name),
        // hcl-rs's wording, which `Locals::explain` follows to the failed local.
        EvalError::UnknownName(name) => EvalFailure::Other(format!("undefined variable `{name}`")),
        EvalError::Other(message) => EvalFailure::Other(undefined_local(message)),
    })?;
    let value = value.unmark_deep();
    // The function table allows larger results than a Terragrunt value may be.
    check_value(&value).map_err(EvalFailure::Other)?;
    Ok(value)
}

/// A missing `local.NAME` named in backticks, as [`Locals::explain`] looks for it.
fn undefined_local(message: String) -> String {
    const MISSING: &str = "does not have an attribute named \"";
    match message.find(MISSING) {
        Some(at) => {
            let rest = &message[at + MISSING.len()..];
            let name = rest.split('"').next().unwrap_or_default();
            format!("{message} (`{name}`)")
        }
        None => message,
    }
}

/// The `locals` of one file, evaluated as far as they can be.
///
/// Locals are evaluated in the order of their `local.NAME` references (a local may use
/// locals declared after it), then again in rounds until a round makes no progress (for
/// references that name no local, like `local[key]`). One that still fails is kept with
/// its failure and reported only if a value tfsum needs refers to it: a `get_env` in a
/// local that only feeds `inputs` must not stop a unit from being locked. Locals that
/// refer to each other fail naming the cycle.
#[derive(Debug, Default, Clone)]
pub(crate) struct Locals {
    pub values: Map,
    /// Local name → (line, failure).
    pub failed: BTreeMap<String, (usize, EvalFailure)>,
}

impl Locals {
    pub(super) fn evaluate(locals: &[LocalDecl], extra_vars: &[(&str, Value)]) -> Locals {
        let mut out = Locals::default();
        let mut pending = dependency_order(locals);
        let mut ctx = context(extra_vars);
        while !aborted() {
            let before = pending.len();
            let mut still = Vec::new();
            for local in pending {
                at_line(local.line);
                ctx.declare_var("local", &out.visible_to(local));
                let value = evaluate(&local.expr, &ctx).and_then(|value| {
                    check_value(&value)
                        .map(|()| value)
                        .map_err(EvalFailure::Other)
                });
                match value {
                    Ok(value) => {
                        out.values.insert(local.name.clone(), value);
                        out.failed.remove(&local.name);
                    }
                    Err(failure) => {
                        out.failed.insert(local.name.clone(), (local.line, failure));
                        still.push(local);
                    }
                }
            }
            pending = still;
            if pending.is_empty() || pending.len() == before {
                break;
            }
        }
        out.name_cycles(&pending);
        out
    }

    /// The `local` object for `local`'s expression: only the locals it names, so that a
    /// file's evaluation does not copy every value once per local.
    fn visible_to(&self, local: &LocalDecl) -> Value {
        let Some(uses) = &local.uses else {
            return Value::Object(self.values.clone());
        };
        Value::Object(
            uses.iter()
                .filter_map(|name| Some((name.clone(), self.values.get(name)?.clone())))
                .collect(),
        )
    }

    /// Gives each of the `stuck` locals that lies on a cycle of `local.` references a
    /// failure naming the cycle. (Locals behind one fail on a reference to it, which
    /// [`Locals::explain`] follows.) Depth-first, without recursion: a file may hold
    /// thousands of locals.
    fn name_cycles(&mut self, stuck: &[&LocalDecl]) {
        let index: HashMap<&str, usize> = stuck
            .iter()
            .enumerate()
            .map(|(i, l)| (l.name.as_str(), i))
            .collect();
        let edges: Vec<Vec<usize>> = stuck
            .iter()
            .map(|l| {
                let uses = l.uses.iter().flatten();
                uses.filter_map(|name| index.get(name.as_str()).copied())
                    .collect()
            })
            .collect();
        // 0: not seen, 1: on the path, 2: done.
        let mut state = vec![0u8; stuck.len()];
        let mut cycles: Vec<Vec<usize>> = Vec::new();
        for start in 0..stuck.len() {
            if state[start] != 0 {
                continue;
            }
            let mut path: Vec<(usize, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some((node, next)) = path.last_mut() {
                let node = *node;
                let Some(&to) = edges[node].get(*next) else {
                    state[node] = 2;
                    path.pop();
                    continue;
                };
                *next += 1;
                match state[to] {
                    0 => {
                        state[to] = 1;
                        path.push((to, 0));
                    }
                    1 => {
                        let from = path.iter().position(|&(n, _)| n == to).unwrap_or(0);
                        cycles.push(path[from..].iter().map(|&(n, _)| n).collect());
                    }
                    _ => {}
                }
            }
        }
        for cycle in cycles {
            let mut names: Vec<String> = cycle
                .iter()
                .map(|&i| format!("local.{}", stuck[i].name))
                .collect();
            names.push(names[0].clone());
            let message = format!("the locals refer to each other: {}", names.join(" → "));
            for i in cycle {
                if let Some((_, failure)) = self.failed.get_mut(&stuck[i].name) {
                    *failure = EvalFailure::Other(message.clone());
                }
            }
        }
    }

    /// Explains `failure` of a needed expression: when it stems from a failed local (hcl-rs
    /// quotes the missing key in backticks), that local's own failure and line are the
    /// useful answer, followed through locals that failed on other failed locals (each
    /// at most once: they may form a cycle).
    pub(super) fn explain(&self, failure: EvalFailure) -> (Option<usize>, EvalFailure) {
        let mut line = None;
        let mut failure = failure;
        let mut seen = BTreeSet::new();
        while let EvalFailure::Other(message) = &failure {
            let cause = message
                .split('`')
                .skip(1)
                .step_by(2)
                .find_map(|quoted| self.failed.get_key_value(quoted))
                .filter(|(name, _)| !seen.contains(name.as_str()));
            let Some((name, (at, inner))) = cause else {
                break;
            };
            seen.insert(name.as_str());
            line = Some(*at);
            failure = inner.clone();
        }
        (line, failure)
    }
}

/// `locals` ordered so that each comes after the locals it names (file order among
/// equals); those on or behind a cycle last, in file order.
fn dependency_order(locals: &[LocalDecl]) -> Vec<&LocalDecl> {
    let index: HashMap<&str, usize> = locals
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name.as_str(), i))
        .collect();
    let mut waiting = vec![0usize; locals.len()];
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); locals.len()];
    for (i, local) in locals.iter().enumerate() {
        for name in local.uses.iter().flatten() {
            if let Some(&used) = index.get(name.as_str()) {
                waiting[i] += 1;
                users[used].push(i);
            }
        }
    }
    let mut ready: BTreeSet<usize> = (0..locals.len()).filter(|&i| waiting[i] == 0).collect();
    let mut placed = vec![false; locals.len()];
    let mut order = Vec::with_capacity(locals.len());
    while let Some(i) = ready.pop_first() {
        placed[i] = true;
        order.push(&locals[i]);
        for &user in &users[i] {
            waiting[user] -= 1;
            if waiting[user] == 0 {
                ready.insert(user);
            }
        }
    }
    order.extend(
        locals
            .iter()
            .zip(&placed)
            .filter(|(_, &placed)| !placed)
            .map(|(local, _)| local),
    );
    order
}

fn string_arg(args: &[EvalValue], i: usize) -> Result<&str, String> {
    match args.get(i) {
        Some(EvalValue::String(s)) => Ok(s),
        _ => Err(format!("argument {} must be a string", i + 1)),
    }
}

fn string_args(args: &[EvalValue]) -> Result<Vec<String>, String> {
    args.iter()
        .map(|v| match v {
            EvalValue::String(s) => Ok(s.clone()),
            _ => Err("arguments must be strings".to_string()),
        })
        .collect()
}

/// Terragrunt functions whose values tfsum does not read: a repository's files must not
/// carry the environment, a command's output or a secret to the hosts its sources name.
/// They are unknown: where a needed value depends on one, the unit fails saying so; in a
/// `generate` block's text it stands as [`UNKNOWN_TEXT`].
const NOT_READ: &[&str] = &[
    "get_env",
    "run_cmd",
    "sops_decrypt_file",
    "get_aws_account_id",
    "get_aws_account_alias",
    "get_aws_caller_identity_arn",
    "get_aws_caller_identity_user_id",
];

fn path_value(path: &Path) -> EvalValue {
    EvalValue::String(slash(path))
}

fn config_dir(scope: &Scope) -> PathBuf {
    scope
        .config_path
        .parent()
        .map_or_else(|| scope.config_path.clone(), Path::to_path_buf)
}

/// `find_in_parent_folders(name?, fallback?)`: the nearest `name` (default
/// `terragrunt.hcl`) in the folders *above* the directory of the file being evaluated for
/// (the unit's, also inside an included parent). `name` may hold a sub-path
/// (`"common/region.hcl"`). Terragrunt checks at most 100 folders.
fn find_in_parent_folders(args: &[EvalValue]) -> Result<EvalValue, String> {
    let scope = current()?;
    let params = string_args(args)?;
    if params.len() > 2 {
        return Err(format!("takes 0, 1 or 2 arguments, got {}", params.len()));
    }
    let name = params
        .first()
        .filter(|n| !n.is_empty())
        .cloned()
        .unwrap_or_else(|| super::UNIT_FILE_NAME.to_string());
    let mut dir = config_dir(&scope);
    for _ in 0..100 {
        let Some(parent) = dir.parent() else { break };
        let candidate = parent.join(&name);
        // Terragrunt's `util.FileExists` is a stat: a directory counts too (stacks name
        // their unit sources with `find_in_parent_folders("units")`).
        if super::virtual_dirs::real(&candidate).exists() {
            return Ok(path_value(&candidate));
        }
        dir = parent.to_path_buf();
    }
    match params.get(1) {
        Some(fallback) => Ok(EvalValue::String(fallback.clone())),
        None => Err(format!(
            "no {name:?} found in any folder above {}",
            config_dir(&scope).display()
        )),
    }
}

fn get_terragrunt_dir(_: &[EvalValue]) -> Result<EvalValue, String> {
    Ok(path_value(&config_dir(&*current()?)))
}

fn get_original_terragrunt_dir(_: &[EvalValue]) -> Result<EvalValue, String> {
    Ok(path_value(&current()?.unit_dir))
}

fn get_repo_root(_: &[EvalValue]) -> Result<EvalValue, String> {
    Ok(path_value(&current()?.repo_root))
}

fn get_path_from_repo_root(_: &[EvalValue]) -> Result<EvalValue, String> {
    let scope = current()?;
    Ok(path_value(&relative_path(
        &scope.unit_dir,
        &scope.repo_root,
    )))
}

fn get_path_to_repo_root(_: &[EvalValue]) -> Result<EvalValue, String> {
    let scope = current()?;
    Ok(path_value(&relative_path(
        &scope.repo_root,
        &scope.unit_dir,
    )))
}

/// Terragrunt's `getSelectedIncludeBlock`: inside a parent, the include being evaluated;
/// in the unit, none, the only one, or the one whose label is given.
fn selected_include(scope: &Scope, params: &[String]) -> Result<Option<ResolvedInclude>, String> {
    match &scope.includes {
        Includes::Original(include) => Ok(Some(include.clone())),
        Includes::Current(list) if list.len() <= 1 => Ok(list.first().cloned()),
        Includes::Current(list) => {
            let [label] = params else {
                return Err("the unit has several include blocks; name one".to_string());
            };
            list.iter()
                .find(|i| &i.label == label)
                .cloned()
                .map(Some)
                .ok_or_else(|| format!("no include block labelled {label:?}"))
        }
    }
}

fn include_dir(include: &ResolvedInclude) -> PathBuf {
    include
        .path
        .parent()
        .map_or_else(|| include.path.clone(), Path::to_path_buf)
}

/// The unit directory relative to the included file's directory (`envs/prod/vpc`).
fn path_relative_to_include(args: &[EvalValue]) -> Result<EvalValue, String> {
    let scope = current()?;
    let Some(include) = selected_include(&scope, &string_args(args)?)? else {
        return Ok(EvalValue::String(".".into()));
    };
    Ok(path_value(&relative_path(
        &config_dir(&scope),
        &include_dir(&include),
    )))
}

/// The included file's directory relative to the unit directory (`../../..`).
fn path_relative_from_include(args: &[EvalValue]) -> Result<EvalValue, String> {
    let scope = current()?;
    let Some(include) = selected_include(&scope, &string_args(args)?)? else {
        return Ok(EvalValue::String(".".into()));
    };
    Ok(path_value(&relative_path(
        &include_dir(&include),
        &config_dir(&scope),
    )))
}

fn get_parent_terragrunt_dir(args: &[EvalValue]) -> Result<EvalValue, String> {
    let scope = current()?;
    let dir = match selected_include(&scope, &string_args(args)?)? {
        Some(include) => include_dir(&include),
        None => config_dir(&scope),
    };
    Ok(path_value(&dir))
}

/// `read_terragrunt_config(path, default?)`: the file's `locals` (as far as they evaluate)
/// as `{ locals = {…} }`, evaluated with the file itself as the config path, as Terragrunt
/// does. Its other blocks are not read. A cycle or a chain deeper than [`MAX_READ_DEPTH`]
/// aborts the session.
fn read_terragrunt_config(args: &[EvalValue]) -> Result<EvalValue, String> {
    let scope = current()?;
    let given = string_arg(args, 0)?;
    let mut path = config_dir(&scope).join(given);
    if super::virtual_dirs::real(&path).is_dir() {
        path = path.join(super::UNIT_FILE_NAME);
    }
    let path = tfsum_vocab::paths::normalize_path(&path);
    if !super::virtual_dirs::real(&path).is_file() {
        return match args.get(1) {
            Some(default) => Ok(default.clone()),
            None => Err(format!("{} does not exist", path.display())),
        };
    }
    if let Some(known) = SESSION.with(|s| s.borrow().reads.get(&path).cloned()) {
        return known;
    }
    let (callers, cycle) = SCOPES.with(|s| {
        let scopes = s.borrow();
        let callers: Vec<(PathBuf, usize)> = scopes
            .iter()
            .map(|scope| (scope.file.clone(), scope.line.get()))
            .collect();
        let cycle = scopes
            .iter()
            .any(|scope| scope.file == path && scope.config_path == path);
        (callers, cycle)
    });
    // Every scope but the outermost is a read.
    let kind = if cycle {
        Some(AbortKind::Cycle)
    } else if callers.len() > MAX_READ_DEPTH {
        Some(AbortKind::TooDeep)
    } else {
        None
    };
    if let Some(kind) = kind {
        let abort = Abort {
            kind,
            callers,
            target: path,
        };
        SESSION.with(|s| s.borrow_mut().abort = Some(abort));
        return Err("evaluation stopped".to_string());
    }
    let result = read_locals(&path, &scope);
    SESSION.with(|s| s.borrow_mut().reads.insert(path, result.clone()));
    result
}

fn read_locals(path: &Path, scope: &Scope) -> Result<Value, String> {
    let file: TgFile = parse_file(path).map_err(|e| e.to_string())?;
    let inner = Scope {
        file: path.to_path_buf(),
        config_path: path.to_path_buf(),
        unit_dir: scope.unit_dir.clone(),
        repo_root: scope.repo_root.clone(),
        includes: Includes::Current(Vec::new()),
        line: Cell::default(),
    };
    let locals = with_scope(inner, || Locals::evaluate(&file.locals, &[]))
        .map_err(|_| "evaluation stopped".to_string())?;
    let mut out = Map::new();
    out.insert("locals".to_string(), Value::Object(locals.values));
    Ok(Value::Object(out))
}
