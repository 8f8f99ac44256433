//! The function table: Terraform's built-in functions, which OpenTofu shares, and which
//! Terragrunt's files may call beside its own (`crate::config::terragrunt::eval`).
//!
//! One table for every scope: a caller says which functions its scope forbids or answers
//! itself ([`super::Scope::function`]); the table never changes. Each entry follows the
//! function's definition in Terraform's `internal/lang/funcs/` and go-cty's
//! `cty/function/stdlib/` (the file named on each group), with the same results and the
//! same refusals, for the values this evaluator has.
//!
//! What every function shares is done here, once ([`call`]): arguments counted against
//! the definition, marks taken off the arguments and put back on the result (cty's
//! default), and an unknown argument giving an unknown result (unless the function says it
//! handles unknowns itself). `try` and `can` are not here: their arguments must not be
//! evaluated first, so the evaluator implements them ([`super::Evaluator`]).

use std::path::{Path, PathBuf};

use super::value::{Marks, Value};

mod collections;
mod conversion;
mod encoding;
mod filesystem;
mod numeric;
mod strings;

/// What a function may reach besides its arguments.
pub(crate) struct Ctx<'a> {
    /// Where relative paths of the filesystem functions start: the directory Terraform
    /// runs in (the root module), or the Terragrunt file's directory.
    pub base_dir: &'a Path,
    /// The trees the filesystem functions may read in. A repository's files are untrusted
    /// (docs/design.md, "Trust model"): a module source built from `file("~/.aws/…")`
    /// would carry a secret to whatever host the source names, so anything outside these
    /// trees is refused. Empty: no file may be read.
    pub readable: &'a [PathBuf],
}

/// A function's body: the arguments (marks removed, known unless the definition says
/// otherwise) to a value, or the reason it refuses them (cty's "Invalid function
/// argument" detail).
pub(crate) type Body = fn(&Ctx<'_>, Vec<Value>) -> Result<Value, String>;

/// One function of the table.
pub(crate) struct Def {
    pub name: &'static str,
    /// Parameters before any variadic ones.
    pub params: usize,
    /// Whether more arguments may follow.
    pub variadic: bool,
    /// `timestamp`, `uuid`, `bcrypt`, … : a different result on every call. Terraform's
    /// init walk evaluates only pure functions (the others are unknown there).
    pub impure: bool,
    /// Reads files (`file`, `templatefile`, …).
    pub filesystem: bool,
    /// The body is called with unknown arguments too, and decides itself.
    pub allows_unknown: bool,
    /// The body is called with the arguments' marks (`sensitive`, `nonsensitive`, …),
    /// and the result gets no marks added.
    pub handles_marks: bool,
    pub body: Body,
}

impl Def {
    const fn new(name: &'static str, params: usize, body: Body) -> Def {
        Def {
            name,
            params,
            variadic: false,
            impure: false,
            filesystem: false,
            allows_unknown: false,
            handles_marks: false,
            body,
        }
    }

    const fn variadic(mut self) -> Def {
        self.variadic = true;
        self
    }

    const fn impure(mut self) -> Def {
        self.impure = true;
        self
    }

    const fn filesystem(mut self) -> Def {
        self.filesystem = true;
        self
    }

    const fn allows_unknown(mut self) -> Def {
        self.allows_unknown = true;
        self
    }

    const fn handles_marks(mut self) -> Def {
        self.handles_marks = true;
        self
    }
}

/// Every function, by name (sorted, for [`find`]'s binary search).
static TABLE: &[Def] = &[
    Def::new("lower", 1, strings::lower),
    Def::new("nonsensitive", 1, conversion::nonsensitive)
        .handles_marks()
        .allows_unknown(),
    Def::new("sensitive", 1, conversion::sensitive)
        .handles_marks()
        .allows_unknown(),
    Def::new("upper", 1, strings::upper),
];

/// The function named `name` (a `core::` prefix, Terraform 1.8's spelling of a built-in,
/// is accepted).
pub(crate) fn find(name: &str) -> Option<&'static Def> {
    let name = name.strip_prefix("core::").unwrap_or(name);
    TABLE
        .binary_search_by(|def| def.name.cmp(name))
        .ok()
        .map(|i| &TABLE[i])
}

/// Calls `def` with `args`: the work every function shares (module docs).
pub(crate) fn call(def: &Def, ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let wanted = def.params;
    if args.len() < wanted || (!def.variadic && args.len() > wanted) {
        let count = if def.variadic {
            format!("at least {wanted}")
        } else {
            wanted.to_string()
        };
        return Err(format!(
            "function {:?} takes {count} argument{}, not {}",
            def.name,
            if wanted == 1 && !def.variadic {
                ""
            } else {
                "s"
            },
            args.len()
        ));
    }
    if def.handles_marks {
        return (def.body)(ctx, args);
    }
    let mut marks = Marks::NONE;
    let args: Vec<Value> = args
        .into_iter()
        .map(|arg| {
            marks = marks.union(arg.deep_marks());
            arg.unmark_deep()
        })
        .collect();
    if !def.allows_unknown {
        if let Some(cause) = args.iter().find_map(|a| a.first_unknown()) {
            return Ok(Value::Unknown(cause.clone()).mark(marks));
        }
    }
    (def.body)(ctx, args).map(|v| v.mark(marks))
}

/// The string in argument `i`, converting a number or bool as HCL does.
pub(crate) fn string_arg(args: &[Value], i: usize) -> Result<String, String> {
    let arg = args
        .get(i)
        .ok_or_else(|| format!("argument {} is missing", i + 1))?;
    match arg {
        Value::Null => Err(format!("argument {} must not be null", i + 1)),
        other => other.as_string().ok_or_else(|| {
            format!(
                "argument {}: a string is required, not {}",
                i + 1,
                other.type_name()
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_names_are_unique() {
        for pair in TABLE.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} before {}",
                pair[0].name,
                pair[1].name
            );
        }
    }
}
