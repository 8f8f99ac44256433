//! The function table: Terraform's built-in functions, which OpenTofu shares, and which
//! Terragrunt's files may call beside its own (`crate::terragrunt::eval`).
//!
//! One table for every scope: a caller says which functions its scope forbids or answers
//! itself ([`super::Scope::own_function`] and [`super::Scope::allow`]); the table never changes. Each entry follows the
//! function's definition in Terraform's `internal/lang/funcs/` and go-cty's
//! `cty/function/stdlib/` (the file named on each group), with the same results and the
//! same refusals, for the values this evaluator has.
//!
//! What every function shares is done here, once ([`call`]): arguments counted against
//! the definition, marks taken off the arguments and put back on the result (cty's
//! default), and an unknown argument giving an unknown result (unless the function says it
//! handles unknowns itself). `try` and `can` are not here: their arguments must not be
//! evaluated first, so the evaluator implements them ([`super::Evaluator`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::value::{Marks, Value};

mod collections;
mod conversion;
mod crypto;
mod datetime;
mod encoding;
mod filesystem;
mod format;
mod network;
mod numeric;
mod regex;
mod strings;
mod yaml;

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

/// Every function, by name (sorted, for [`find`]'s binary search): Terraform v1.15's
/// `internal/lang/functions.go` without `try` and `can` (module docs) and with
/// `plantimestamp`, which Terraform adds outside the console.
static TABLE: &[Def] = &[
    Def::new("abs", 1, numeric::abs),
    Def::new("abspath", 1, filesystem::abspath),
    Def::new("alltrue", 1, collections::alltrue),
    Def::new("anytrue", 1, collections::anytrue),
    Def::new("base64decode", 1, encoding::base64decode),
    Def::new("base64encode", 1, encoding::base64encode),
    Def::new("base64gzip", 1, encoding::base64gzip),
    Def::new("base64sha256", 1, crypto::base64sha256),
    Def::new("base64sha512", 1, crypto::base64sha512),
    Def::new("basename", 1, filesystem::basename),
    Def::new("bcrypt", 1, crypto::bcrypt).variadic().impure(),
    Def::new("ceil", 1, numeric::ceil),
    Def::new("chomp", 1, strings::chomp),
    Def::new("chunklist", 2, collections::chunklist),
    Def::new("cidrhost", 2, network::cidrhost),
    Def::new("cidrnetmask", 1, network::cidrnetmask),
    Def::new("cidrsubnet", 3, network::cidrsubnet),
    Def::new("cidrsubnets", 1, network::cidrsubnets).variadic(),
    Def::new("coalesce", 0, collections::coalesce).variadic(),
    Def::new("coalescelist", 0, collections::coalescelist).variadic(),
    Def::new("compact", 1, collections::compact),
    Def::new("concat", 0, collections::concat).variadic(),
    Def::new("contains", 2, collections::contains),
    Def::new("convert", 2, conversion::convert),
    Def::new("csvdecode", 1, encoding::csvdecode),
    Def::new("dirname", 1, filesystem::dirname),
    Def::new("distinct", 1, collections::distinct),
    Def::new("element", 2, collections::element),
    Def::new("endswith", 2, strings::endswith),
    Def::new("ephemeralasnull", 1, conversion::ephemeralasnull)
        .handles_marks()
        .allows_unknown(),
    Def::new("file", 1, filesystem::file).filesystem(),
    Def::new("filebase64", 1, filesystem::filebase64).filesystem(),
    Def::new("filebase64sha256", 1, filesystem::filebase64sha256).filesystem(),
    Def::new("filebase64sha512", 1, filesystem::filebase64sha512).filesystem(),
    Def::new("fileexists", 1, filesystem::fileexists).filesystem(),
    Def::new("filemd5", 1, filesystem::filemd5).filesystem(),
    Def::new("fileset", 2, filesystem::fileset).filesystem(),
    Def::new("filesha1", 1, filesystem::filesha1).filesystem(),
    Def::new("filesha256", 1, filesystem::filesha256).filesystem(),
    Def::new("filesha512", 1, filesystem::filesha512).filesystem(),
    Def::new("flatten", 1, collections::flatten),
    Def::new("floor", 1, numeric::floor),
    Def::new("format", 1, format::format).variadic(),
    Def::new("formatdate", 2, datetime::formatdate),
    Def::new("formatlist", 1, format::formatlist).variadic(),
    Def::new("indent", 2, strings::indent),
    Def::new("index", 2, collections::index),
    Def::new("issensitive", 1, conversion::issensitive)
        .handles_marks()
        .allows_unknown(),
    Def::new("join", 1, strings::join).variadic(),
    Def::new("jsondecode", 1, encoding::jsondecode),
    Def::new("jsonencode", 1, encoding::jsonencode),
    Def::new("keys", 1, collections::keys),
    Def::new("length", 1, collections::length).allows_unknown(),
    Def::new("list", 0, collections::list)
        .variadic()
        .allows_unknown(),
    Def::new("log", 2, numeric::log),
    Def::new("lookup", 2, collections::lookup)
        .variadic()
        .handles_marks(),
    Def::new("lower", 1, strings::lower),
    Def::new("map", 0, collections::map)
        .variadic()
        .allows_unknown(),
    Def::new("matchkeys", 3, collections::matchkeys),
    Def::new("max", 0, numeric::max).variadic(),
    Def::new("md5", 1, crypto::md5),
    Def::new("merge", 0, collections::merge).variadic(),
    Def::new("min", 0, numeric::min).variadic(),
    Def::new("nonsensitive", 1, conversion::nonsensitive)
        .handles_marks()
        .allows_unknown(),
    Def::new("one", 1, collections::one),
    Def::new("parseint", 2, numeric::parseint),
    Def::new("pathexpand", 1, filesystem::pathexpand),
    Def::new("plantimestamp", 0, datetime::plantimestamp).impure(),
    Def::new("pow", 2, numeric::pow),
    Def::new("range", 0, collections::range).variadic(),
    Def::new("regex", 2, regex::regex),
    Def::new("regexall", 2, regex::regexall),
    Def::new("replace", 3, regex::replace),
    Def::new("reverse", 1, collections::reverse),
    Def::new("rsadecrypt", 2, crypto::rsadecrypt),
    Def::new("sensitive", 1, conversion::sensitive)
        .handles_marks()
        .allows_unknown(),
    Def::new("setintersection", 1, collections::setintersection).variadic(),
    Def::new("setproduct", 0, collections::setproduct).variadic(),
    Def::new("setsubtract", 2, collections::setsubtract),
    Def::new("setunion", 1, collections::setunion).variadic(),
    Def::new("sha1", 1, crypto::sha1),
    Def::new("sha256", 1, crypto::sha256),
    Def::new("sha512", 1, crypto::sha512),
    Def::new("signum", 1, numeric::signum),
    Def::new("slice", 3, collections::slice),
    Def::new("sort", 1, collections::sort),
    Def::new("split", 2, strings::split),
    Def::new("startswith", 2, strings::startswith),
    Def::new("strcontains", 2, strings::strcontains),
    Def::new("strrev", 1, strings::strrev),
    Def::new("substr", 3, strings::substr),
    Def::new("sum", 1, collections::sum),
    Def::new("templatefile", 2, filesystem::templatefile).filesystem(),
    Def::new("templatestring", 2, filesystem::templatestring),
    Def::new("textdecodebase64", 2, encoding::textdecodebase64),
    Def::new("textencodebase64", 2, encoding::textencodebase64),
    Def::new("timeadd", 2, datetime::timeadd),
    Def::new("timecmp", 2, datetime::timecmp),
    Def::new("timestamp", 0, datetime::timestamp).impure(),
    Def::new("title", 1, strings::title),
    Def::new("tobool", 1, conversion::tobool).handles_marks(),
    Def::new("tolist", 1, conversion::tolist).handles_marks(),
    Def::new("tomap", 1, conversion::tomap).handles_marks(),
    Def::new("tonumber", 1, conversion::tonumber).handles_marks(),
    Def::new("toset", 1, conversion::toset).handles_marks(),
    Def::new("tostring", 1, conversion::tostring).handles_marks(),
    Def::new("transpose", 1, collections::transpose),
    Def::new("trim", 2, strings::trim),
    Def::new("trimprefix", 2, strings::trimprefix),
    Def::new("trimspace", 1, strings::trimspace),
    Def::new("trimsuffix", 2, strings::trimsuffix),
    Def::new("upper", 1, strings::upper),
    Def::new("urlencode", 1, encoding::urlencode),
    Def::new("uuid", 0, crypto::uuid).impure(),
    Def::new("uuidv5", 2, crypto::uuidv5),
    Def::new("values", 1, collections::values),
    Def::new("yamldecode", 1, yaml::yamldecode),
    Def::new("yamlencode", 1, yaml::yamlencode),
    Def::new("zipmap", 2, collections::zipmap),
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
            if wanted == 1 { "" } else { "s" },
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

/// The most elements a function builds (`range`, `setproduct`, `chunklist`, …) and the
/// longest text it writes (`indent`, `format`'s widths, `base64decode`, …): cty has no
/// ceiling, but an expression must not take the process's memory.
pub(crate) const MAX_ITEMS: usize = 1 << 20;
pub(crate) const MAX_BYTES: usize = 64 << 20;

/// An error when `n` elements would pass [`MAX_ITEMS`].
pub(crate) fn check_items(n: usize) -> Result<(), String> {
    if n > MAX_ITEMS {
        return Err(format!(
            "the result would have {n} elements, more than the {MAX_ITEMS} tfsum builds"
        ));
    }
    Ok(())
}

/// An error when a text of `n` bytes would pass [`MAX_BYTES`].
pub(crate) fn check_bytes(n: usize) -> Result<(), String> {
    if n > MAX_BYTES {
        return Err(format!(
            "the result would be {n} bytes long, more than the {MAX_BYTES} tfsum builds"
        ));
    }
    Ok(())
}

/// Argument `i`, which [`call`]'s count check guarantees for the fixed parameters.
pub(crate) fn arg(args: &[Value], i: usize) -> Result<&Value, String> {
    args.get(i)
        .ok_or_else(|| format!("argument {} is missing", i + 1))
}

/// The string in argument `i`, converting a number or bool as HCL does.
pub(crate) fn string_arg(args: &[Value], i: usize) -> Result<String, String> {
    match arg(args, i)? {
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

/// `value` converted to a number as cty converts (a string in decimal notation).
pub(crate) fn to_number(value: &Value) -> Option<f64> {
    match value.unmarked().0 {
        Value::Number(n) => Some(*n),
        Value::String(s) => parse_decimal(s),
        _ => None,
    }
}

/// A string in the decimal notation cty reads (`12`, `-1.5`, `1e3`): no spaces, no
/// hexadecimal, no `inf` or `nan`.
pub(crate) fn parse_decimal(text: &str) -> Option<f64> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        || !digits
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    text.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// The number in argument `i` (a numeric string converts).
pub(crate) fn number_arg(args: &[Value], i: usize) -> Result<f64, String> {
    match arg(args, i)? {
        Value::Null => Err(format!("argument {} must not be null", i + 1)),
        Value::String(s) => parse_decimal(s).ok_or_else(|| {
            format!(
                "argument {}: a number is required, and {s:?} is not one",
                i + 1
            )
        }),
        other => to_number(other).ok_or_else(|| {
            format!(
                "argument {}: a number is required, not {}",
                i + 1,
                other.type_name()
            )
        }),
    }
}

/// The whole number in argument `i`.
pub(crate) fn int_arg(args: &[Value], i: usize) -> Result<i64, String> {
    let n = number_arg(args, i)?;
    if n.fract() != 0.0 || !n.is_finite() || n.abs() > 9.0e15 {
        return Err(format!("argument {} must be a whole number", i + 1));
    }
    Ok(n as i64)
}

/// The elements of the list, tuple or set in argument `i`.
pub(crate) fn list_arg(args: &[Value], i: usize) -> Result<Vec<Value>, String> {
    match arg(args, i)? {
        Value::List(items) => Ok(items.clone()),
        Value::Null => Err(format!("argument {} must not be null", i + 1)),
        other => Err(format!(
            "argument {}: a list is required, not {}",
            i + 1,
            other.type_name()
        )),
    }
}

/// The attributes of the map or object in argument `i`.
pub(crate) fn object_arg(args: &[Value], i: usize) -> Result<BTreeMap<String, Value>, String> {
    match arg(args, i)? {
        Value::Object(attrs) => Ok(attrs.clone()),
        Value::Null => Err(format!("argument {} must not be null", i + 1)),
        other => Err(format!(
            "argument {}: a map is required, not {}",
            i + 1,
            other.type_name()
        )),
    }
}

/// The strings of the list in argument `i` (`list(string)`: numbers and bools convert,
/// null elements are refused).
pub(crate) fn string_list_arg(args: &[Value], i: usize) -> Result<Vec<String>, String> {
    list_arg(args, i)?
        .iter()
        .map(|item| match item {
            Value::Null => Err(format!("argument {}: the list must not hold null", i + 1)),
            other => other.as_string().ok_or_else(|| {
                format!(
                    "argument {}: a list of strings is required, and it holds a {}",
                    i + 1,
                    other.type_name()
                )
            }),
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    //! The table's own checks, and what the function tests share: a scope of fixed
    //! values and a table of `(expression, result or part of the error)` cases.

    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::eval::{evaluate, EvalError, Lookup, Scope};

    /// One case: an expression and its value, or words its error contains.
    pub(crate) type Case = (&'static str, Result<Value, &'static str>);

    pub(crate) fn n(x: f64) -> Value {
        Value::Number(x)
    }

    pub(crate) fn s(x: &str) -> Value {
        Value::string(x)
    }

    pub(crate) fn b(x: bool) -> Value {
        Value::Bool(x)
    }

    pub(crate) fn list(items: Vec<Value>) -> Value {
        Value::List(items)
    }

    pub(crate) fn strs(items: &[&str]) -> Value {
        Value::List(items.iter().map(|x| Value::string(*x)).collect())
    }

    pub(crate) fn obj(attrs: &[(&str, Value)]) -> Value {
        Value::Object(
            attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    /// `var.*` for the cases: a sensitive string, an ephemeral one, an unknown.
    pub(crate) struct TestScope {
        pub base: PathBuf,
        pub readable: Vec<PathBuf>,
        pub vars: BTreeMap<String, Value>,
    }

    impl TestScope {
        pub(crate) fn new(base: &Path, readable: Vec<PathBuf>) -> TestScope {
            let vars = BTreeMap::from([
                ("secret".to_string(), s("s").mark(Marks::SENSITIVE)),
                (
                    "secret_list".to_string(),
                    list(vec![s("a")]).mark(Marks::SENSITIVE),
                ),
                ("ephemeral".to_string(), s("e").mark(Marks::EPHEMERAL)),
                (
                    "unknown".to_string(),
                    Value::unknown("var.unknown is not const"),
                ),
            ]);
            TestScope {
                base: base.to_path_buf(),
                readable,
                vars,
            }
        }
    }

    impl Scope for TestScope {
        fn lookup(&self, name: &str, attr: Option<&str>) -> Result<Lookup, EvalError> {
            match (name, attr) {
                ("var", Some(attr)) => self
                    .vars
                    .get(attr)
                    .cloned()
                    .map(Lookup::Attr)
                    .ok_or_else(|| EvalError::UnknownName(format!("var.{attr}"))),
                _ => Err(EvalError::UnknownName(name.to_string())),
            }
        }

        fn files(&self) -> Ctx<'_> {
            Ctx {
                base_dir: &self.base,
                readable: &self.readable,
            }
        }
    }

    /// Evaluates each case in `scope` and compares.
    pub(crate) fn check_in(scope: &TestScope, cases: &[Case]) {
        let mut failures = Vec::new();
        for (text, want) in cases {
            let expr: hcl::Expression = match text.parse() {
                Ok(expr) => expr,
                Err(e) => {
                    failures.push(format!("{text}: does not parse: {e}"));
                    continue;
                }
            };
            let got = evaluate(&expr, scope);
            match (want, &got) {
                (Ok(want), Ok(got)) if want == got => {}
                (Err(words), Err(e)) if e.to_string().contains(words) => {}
                _ => failures.push(format!("{text}: want {want:?}, got {got:?}")),
            }
        }
        assert!(
            failures.is_empty(),
            "{} failed:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }

    /// [`check_in`] with a scope that reads no file.
    pub(crate) fn check(cases: &[Case]) {
        check_in(&TestScope::new(Path::new("."), Vec::new()), cases);
    }

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

    /// Terraform v1.15's built-in functions (`internal/lang/functions.go`), less the two
    /// the evaluator implements, plus `plantimestamp`: every one is in the table.
    #[test]
    fn every_terraform_function_is_in_the_table() {
        let names = "abs abspath alltrue anytrue basename base64decode base64encode base64gzip \
            base64sha256 base64sha512 bcrypt ceil chomp cidrhost cidrnetmask cidrsubnet \
            cidrsubnets coalesce coalescelist compact concat contains convert csvdecode dirname \
            distinct element endswith ephemeralasnull chunklist file fileexists fileset \
            filebase64 filebase64sha256 filebase64sha512 filemd5 filesha1 filesha256 filesha512 \
            flatten floor format formatdate formatlist indent index join jsondecode jsonencode \
            keys length list log lookup lower map matchkeys max md5 merge min one parseint \
            pathexpand pow range regex regexall replace reverse rsadecrypt sensitive \
            nonsensitive issensitive setintersection setproduct setsubtract setunion sha1 sha256 \
            sha512 signum slice sort split startswith strcontains strrev substr sum templatefile \
            templatestring textdecodebase64 textencodebase64 timestamp timeadd timecmp title \
            tostring tonumber tobool toset tolist tomap transpose trim trimprefix trimspace \
            trimsuffix upper urlencode uuid uuidv5 values yamldecode yamlencode zipmap \
            plantimestamp";
        let missing: Vec<&str> = names
            .split_whitespace()
            .filter(|n| find(n).is_none())
            .collect();
        assert!(missing.is_empty(), "missing: {missing:?}");
        assert_eq!(TABLE.len(), names.split_whitespace().count());
        for name in ["timestamp", "uuid", "bcrypt", "plantimestamp"] {
            assert!(find(name).is_some_and(|d| d.impure), "{name}");
        }
        assert!(find("core::upper").is_some());
    }

    /// What [`call`] does for every function: counts, marks, unknowns.
    #[test]
    fn calls_share_counting_marks_and_unknowns() {
        check(&[
            ("upper(var.secret)", Ok(s("S").mark(Marks::SENSITIVE))),
            (
                "upper(var.unknown)",
                Ok(Value::unknown("var.unknown is not const")),
            ),
            ("length([var.unknown])", Ok(n(1.0))),
            (
                "length(var.unknown)",
                Ok(Value::unknown("var.unknown is not const")),
            ),
            ("upper()", Err("takes 1 argument, not 0")),
            ("format()", Err("takes at least 1 argument, not 0")),
        ]);
    }
}
