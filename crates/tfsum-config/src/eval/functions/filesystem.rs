//! Paths and files: `abspath`, `basename`, `dirname`, `pathexpand`, `file`,
//! `filebase64`, `fileexists`, `fileset`, the `file…` hashes, `templatefile` and
//! `templatestring` (Terraform `internal/lang/funcs/filesystem.go` and `string.go`).
//!
//! A repository's files are untrusted (docs/design.md, "Trust model"), so every read
//! goes through [`resolve`]: the path is expanded (`~`), joined to the base directory,
//! cleaned as Go's `filepath.Clean` cleans it, then resolved through symlinks, and it
//! must lie inside one of [`Ctx::readable`]'s trees. Whatever is outside is refused with
//! one message, whether it exists or not, and is never opened. Files are read up to
//! [`MAX_FILE`] bytes, and only regular files (a FIFO would block the read).

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use super::crypto::Hash;
use super::encoding::BASE64;
use super::{check_items, object_arg, string_arg, Ctx, Def};
use crate::eval::value::Value;
use crate::eval::{evaluate, references, Allow, EvalError, Lookup, Scope};
use base64::Engine;

/// The largest file a function reads.
const MAX_FILE: u64 = 4 << 20;

/// `path` with a leading `~` replaced by the home directory (go-homedir's `Expand`).
fn expand_home(path: &str) -> Result<PathBuf, String> {
    let Some(rest) = path.strip_prefix('~') else {
        return Ok(PathBuf::from(path));
    };
    if !rest.is_empty() && !rest.starts_with(std::path::is_separator) {
        return Err("failed to expand ~: cannot expand user-specific home dir".into());
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(dirs::home_dir)
        .ok_or("failed to expand ~: the home directory is not known")?;
    let rest = rest.trim_start_matches(std::path::is_separator);
    Ok(if rest.is_empty() {
        home
    } else {
        home.join(rest)
    })
}

/// `path` cleaned lexically (Go's `filepath.Clean`): `.` dropped, `..` taking the
/// previous component away (never above the root).
fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let can_pop = matches!(out.components().next_back(), Some(Component::Normal(_)));
                if can_pop {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// `path` as the functions read it: home expanded, joined to the base directory, cleaned.
fn full_path(ctx: &Ctx<'_>, path: &str) -> Result<PathBuf, String> {
    let expanded = expand_home(path)?;
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        absolute_base(ctx).join(expanded)
    };
    Ok(clean(&joined))
}

/// The base directory as an absolute path.
fn absolute_base(ctx: &Ctx<'_>) -> PathBuf {
    if ctx.base_dir.is_absolute() {
        ctx.base_dir.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(ctx.base_dir))
            .unwrap_or_else(|_| ctx.base_dir.to_path_buf())
    }
}

/// `path` with symlinks resolved as far as it exists (the rest appended as written), so
/// that a path which does not exist yet can still be placed inside or outside a tree.
fn resolve_existing(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = fs::canonicalize(&existing) {
            let mut out = canonical;
            out.extend(rest.iter().rev());
            return out;
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Where `path` really is, if that is inside the readable trees; the refusal names the
/// path as given and as resolved.
fn resolve(ctx: &Ctx<'_>, path: &str) -> Result<PathBuf, String> {
    let full = full_path(ctx, path)?;
    let outside = || {
        format!(
            "{} is outside the trees tfsum reads files in (the repository being checked), so it is not read",
            full.display()
        )
    };
    if ctx.readable.is_empty() {
        return Err(format!(
            "{} cannot be read: tfsum reads no files while evaluating this expression",
            full.display()
        ));
    }
    let real = resolve_existing(&full);
    let inside = ctx.readable.iter().any(|root| {
        let root = fs::canonicalize(root).unwrap_or_else(|_| clean(root));
        real.starts_with(&root)
    });
    if inside {
        Ok(real)
    } else {
        Err(outside())
    }
}

/// The bytes of the regular file at `path` (inside the trees, at most [`MAX_FILE`]).
fn read_file(ctx: &Ctx<'_>, path: &str) -> Result<Vec<u8>, String> {
    let real = resolve(ctx, path)?;
    let shown = full_path(ctx, path)?;
    let meta = match fs::metadata(&real) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "no file exists at {}; this function works only with files that are distributed as part of the configuration source code, so if this file will be created by a resource in this configuration you must instead obtain this result from an attribute of that resource",
                shown.display()
            ))
        }
        Err(e) => return Err(format!("failed to read file: {e}")),
    };
    if meta.is_dir() {
        return Err(format!(
            "failed to read file: {} is a directory",
            shown.display()
        ));
    }
    if !meta.is_file() {
        return Err(format!(
            "failed to read file: {} is not a regular file",
            shown.display()
        ));
    }
    if meta.len() > MAX_FILE {
        return Err(format!(
            "{} is {} bytes long; tfsum reads files of at most {MAX_FILE} bytes in expressions",
            shown.display(),
            meta.len()
        ));
    }
    let mut bytes = Vec::new();
    fs::File::open(&real)
        .and_then(|f| f.take(MAX_FILE + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("failed to read file: {e}"))?;
    if bytes.len() as u64 > MAX_FILE {
        return Err(format!(
            "{} is longer than the {MAX_FILE} bytes tfsum reads in expressions",
            shown.display()
        ));
    }
    Ok(bytes)
}

/// The text of the file at `path`, which must be UTF-8.
fn read_text(ctx: &Ctx<'_>, path: &str) -> Result<String, String> {
    String::from_utf8(read_file(ctx, path)?).map_err(|_| {
        format!(
            "contents of {path} are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead"
        )
    })
}

pub(super) fn file(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    read_text(ctx, &string_arg(&args, 0)?).map(Value::String)
}

pub(super) fn filebase64(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let bytes = read_file(ctx, &string_arg(&args, 0)?)?;
    Ok(Value::String(BASE64.encode(bytes)))
}

fn file_hash(ctx: &Ctx<'_>, args: &[Value], hash: Hash, base64: bool) -> Result<Value, String> {
    let bytes = read_file(ctx, &string_arg(args, 0)?)?;
    Ok(if base64 {
        hash.base64(&bytes)
    } else {
        hash.hex(&bytes)
    })
}

pub(super) fn filemd5(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    file_hash(ctx, &args, Hash::Md5, false)
}

pub(super) fn filesha1(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    file_hash(ctx, &args, Hash::Sha1, false)
}

pub(super) fn filesha256(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    file_hash(ctx, &args, Hash::Sha256, false)
}

pub(super) fn filesha512(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    file_hash(ctx, &args, Hash::Sha512, false)
}

pub(super) fn filebase64sha256(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    file_hash(ctx, &args, Hash::Sha256, true)
}

pub(super) fn filebase64sha512(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    file_hash(ctx, &args, Hash::Sha512, true)
}

/// `fileexists(path)`: whether a regular file is there (a directory is an error).
pub(super) fn fileexists(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let path = string_arg(&args, 0)?;
    let real = resolve(ctx, &path)?;
    let shown = full_path(ctx, &path)?;
    match fs::metadata(&real) {
        Ok(meta) if meta.is_file() => Ok(Value::Bool(true)),
        Ok(meta) if meta.is_dir() => Err(format!("{} is a directory, not a file", shown.display())),
        Ok(_) => Err(format!("{} is not a regular file", shown.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Value::Bool(false)),
        Err(_) => Err(format!("failed to stat {}", shown.display())),
    }
}

/// Whether a glob segment has pattern characters.
fn is_pattern(segment: &str) -> bool {
    segment.contains(['*', '?', '[', '{', '\\'])
}

/// Whether `name` (one path segment) matches the glob `pattern`: `*`, `?`, `[…]` (with
/// `^` or `!` negation and ranges), `{a,b}` and `\` escapes, as doublestar reads them.
fn segment_matches(pattern: &[char], name: &[char]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some(('*', rest)) => (0..=name.len()).any(|i| segment_matches(rest, &name[i..])),
        Some(('?', rest)) => !name.is_empty() && segment_matches(rest, &name[1..]),
        Some(('\\', rest)) => match (rest.split_first(), name.split_first()) {
            (Some((p, prest)), Some((n, nrest))) => p == n && segment_matches(prest, nrest),
            _ => false,
        },
        Some(('[', rest)) => {
            let Some((c, name_rest)) = name.split_first() else {
                return false;
            };
            let Some(end) = rest.iter().skip(1).position(|x| *x == ']').map(|i| i + 1) else {
                return false;
            };
            let (class, after) = (&rest[..end], &rest[end + 1..]);
            let (negated, class) = match class.split_first() {
                Some(('^' | '!', inner)) => (true, inner),
                _ => (false, class),
            };
            let mut hit = false;
            let mut i = 0;
            while i < class.len() {
                if i + 2 < class.len() && class[i + 1] == '-' {
                    hit |= class[i] <= *c && *c <= class[i + 2];
                    i += 3;
                } else {
                    hit |= class[i] == *c;
                    i += 1;
                }
            }
            hit != negated && segment_matches(after, name_rest)
        }
        Some(('{', rest)) => {
            let Some(end) = rest.iter().position(|x| *x == '}') else {
                return false;
            };
            let after = &rest[end + 1..];
            rest[..end].split(|x| *x == ',').any(|alt| {
                let mut joined = alt.to_vec();
                joined.extend_from_slice(after);
                segment_matches(&joined, name)
            })
        }
        Some((p, rest)) => name.first() == Some(p) && segment_matches(rest, &name[1..]),
    }
}

/// Whether the path `segments` match the glob `pattern` segments (`**` for any number of
/// directories).
fn path_matches(pattern: &[Vec<char>], segments: &[Vec<char>]) -> bool {
    match pattern.split_first() {
        None => segments.is_empty(),
        Some((p, rest)) if p.iter().collect::<String>() == "**" => {
            (0..=segments.len()).any(|i| path_matches(rest, &segments[i..]))
        }
        Some((p, rest)) => match segments.split_first() {
            Some((s, srest)) => segment_matches(p, s) && path_matches(rest, srest),
            None => false,
        },
    }
}

/// `to` relative to `from` (both clean and absolute), with `/` between segments.
fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

/// `fileset(path, pattern)`: the regular files under `path` whose path relative to it
/// matches `pattern`, as a sorted set with `/` separators.
pub(super) fn fileset(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let dir = string_arg(&args, 0)?;
    let pattern = string_arg(&args, 1)?;
    let root = full_path(ctx, &dir)?;
    let full = clean(&root.join(&pattern));
    // The walk starts at the pattern's fixed leading directories.
    let mut start = PathBuf::new();
    let mut rest: Vec<Vec<char>> = Vec::new();
    for component in full.components() {
        let text = component.as_os_str().to_string_lossy();
        if rest.is_empty() && !is_pattern(&text) {
            start.push(component.as_os_str());
        } else {
            rest.push(text.chars().collect());
        }
    }
    let real_start = resolve(ctx, &start.to_string_lossy())?;
    let mut found = Vec::new();
    if rest.is_empty() {
        if fs::metadata(&real_start).is_ok_and(|m| m.is_file()) {
            found.push(relative(&root, &start));
        }
        return Ok(Value::set_of(
            found.into_iter().map(Value::String).collect(),
        ));
    }
    if !real_start.is_dir() {
        return Ok(Value::List(Vec::new()));
    }
    let walk = walkdir::WalkDir::new(&real_start)
        .follow_links(false)
        .min_depth(1)
        .max_depth(64);
    for (seen, entry) in walk.into_iter().enumerate() {
        check_items(seen)?;
        let Ok(entry) = entry else { continue };
        let Ok(rel) = entry.path().strip_prefix(&real_start) else {
            continue;
        };
        let segments: Vec<Vec<char>> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().chars().collect())
            .collect();
        if !path_matches(&rest, &segments) {
            continue;
        }
        // A symlink counts when it leads to a regular file inside the trees.
        let regular = if entry.path_is_symlink() {
            resolve(ctx, &entry.path().to_string_lossy())
                .ok()
                .and_then(|real| fs::metadata(real).ok())
                .is_some_and(|m| m.is_file())
        } else {
            entry.file_type().is_file()
        };
        if regular {
            found.push(relative(&root, &start.join(rel)));
        }
    }
    Ok(Value::set_of(
        found.into_iter().map(Value::String).collect(),
    ))
}

/// `abspath(path)`: `path` joined to the base directory when relative, cleaned, with `/`
/// separators.
pub(super) fn abspath(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let path = PathBuf::from(string_arg(&args, 0)?);
    let joined = if path.is_absolute() {
        path
    } else {
        absolute_base(ctx).join(path)
    };
    Ok(Value::String(
        clean(&joined).to_string_lossy().replace('\\', "/"),
    ))
}

/// `pathexpand(path)`: a leading `~` replaced by the home directory (nothing is read).
pub(super) fn pathexpand(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let path = string_arg(&args, 0)?;
    Ok(Value::String(
        expand_home(&path)?.to_string_lossy().into_owned(),
    ))
}

/// Go's `filepath.Base`: the last element, trailing separators ignored.
pub(super) fn basename(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let path = string_arg(&args, 0)?;
    if path.is_empty() {
        return Ok(Value::string("."));
    }
    let trimmed = path.trim_end_matches(std::path::is_separator);
    if trimmed.is_empty() {
        return Ok(Value::string(&path[..1]));
    }
    let base = trimmed
        .rsplit(std::path::is_separator)
        .next()
        .unwrap_or(trimmed);
    Ok(Value::string(base))
}

/// Go's `filepath.Dir`: everything before the last element, cleaned.
pub(super) fn dirname(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let path = string_arg(&args, 0)?;
    let dir = match path.rfind(std::path::is_separator) {
        Some(i) => &path[..=i],
        None => "",
    };
    Ok(Value::String(
        clean(Path::new(dir)).to_string_lossy().into_owned(),
    ))
}

/// The scope a template is rendered in: its variables alone, with the table's
/// functions less those Terraform takes away inside templates.
struct TemplateScope<'a> {
    vars: BTreeMap<String, Value>,
    files: Ctx<'a>,
    /// `templatestring` may not read files; `templatefile` may.
    filesystem: bool,
}

impl Scope for TemplateScope<'_> {
    fn lookup(&self, name: &str, _attr: Option<&str>) -> Result<Lookup, EvalError> {
        self.vars
            .get(name)
            .cloned()
            .map(Lookup::Whole)
            .ok_or_else(|| EvalError::Other(format!("vars map does not contain key {name:?}")))
    }

    fn allow(&self, def: &Def) -> Allow {
        if matches!(def.name, "templatefile" | "templatestring") {
            return Allow::Refuse(format!(
                "cannot recursively call {} from inside another template function",
                def.name
            ));
        }
        if def.filesystem && !self.filesystem {
            return Allow::Refuse(format!(
                "cannot use filesystem access functions like {} in templatestring templates; consider passing the function result as a template variable instead",
                def.name
            ));
        }
        // The caller's rule for impure functions is not known here; Terraform's init
        // (where tfsum's answers matter) has them unknown.
        if def.impure {
            return Allow::Unknown(format!("{}() is not known before apply", def.name).into());
        }
        Allow::Run
    }

    fn files(&self) -> Ctx<'_> {
        Ctx {
            base_dir: self.files.base_dir,
            readable: self.files.readable,
        }
    }
}

/// Whether `name` is an HCL identifier.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// Renders template `text` with `vars` (argument 2 of the call).
fn render(ctx: &Ctx<'_>, text: &str, vars: &[Value], filesystem: bool) -> Result<Value, String> {
    let vars = match vars.get(1) {
        Some(Value::Object(_)) => object_arg(vars, 1)?,
        _ => return Err("invalid vars value: must be a map".into()),
    };
    if let Some(bad) = vars.keys().find(|k| !is_identifier(k)) {
        return Err(format!(
            "invalid template variable name {bad:?}: must start with a letter, followed by zero or more letters, digits, and underscores"
        ));
    }
    let template: hcl::template::Template =
        text.parse().map_err(|e| format!("invalid template: {e}"))?;
    // A template that is one interpolation alone is that value, as in Terraform.
    let expr = match template.elements() {
        [hcl::template::Element::Interpolation(interp)] => interp.expr.clone(),
        _ => hcl::Expression::TemplateExpr(Box::new(hcl::expr::TemplateExpr::Heredoc(
            hcl::expr::Heredoc::new(hcl::Identifier::unchecked("EOT"), text),
        ))),
    };
    for (root, _) in references(&expr) {
        if !vars.contains_key(&root) {
            return Err(format!("vars map does not contain key {root:?}"));
        }
    }
    let scope = TemplateScope {
        vars,
        files: Ctx {
            base_dir: ctx.base_dir,
            readable: ctx.readable,
        },
        filesystem,
    };
    evaluate(&expr, &scope).map_err(|e| e.to_string())
}

/// `templatefile(path, vars)`: the file rendered as a template whose only names are
/// `vars`.
pub(super) fn templatefile(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = read_text(ctx, &string_arg(&args, 0)?)?;
    render(ctx, &text, &args, true)
}

/// `templatestring(template, vars)`: a string rendered as a template, without the
/// filesystem functions. Terraform also insists that the first argument be a plain
/// reference (not a literal template); the evaluator does not show this body the
/// expression, so that rule is not checked here.
pub(super) fn templatestring(ctx: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = match args.first() {
        Some(Value::String(s)) => s.clone(),
        _ => return Err("invalid template value: a string is required".into()),
    };
    let value = render(ctx, &text, &args, false)?;
    match value {
        Value::Unknown(_) | Value::String(_) => Ok(value),
        Value::Marked(..) => Ok(value),
        other => other.as_string().map(Value::String).ok_or_else(|| {
            format!(
                "invalid template result: cannot convert {} to string",
                other.type_name()
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use crate::eval::functions::tests::{b, check_in, list, n, s, strs, Case, TestScope};
    use crate::eval::value::Value;

    /// Cases from Terraform `internal/lang/funcs/filesystem_test.go` (path functions).
    #[test]
    fn path_functions() {
        let home = std::env::var("HOME").unwrap_or_default();
        let expanded = format!("{home}/foo");
        let cases: Vec<Case> = vec![
            ("basename(\"testdata/hello.txt\")", Ok(s("hello.txt"))),
            ("basename(\"hello.txt\")", Ok(s("hello.txt"))),
            ("basename(\"\")", Ok(s("."))),
            ("basename(\"/\")", Ok(s("/"))),
            ("basename(\"a/b/\")", Ok(s("b"))),
            ("dirname(\"testdata/hello.txt\")", Ok(s("testdata"))),
            ("dirname(\"testdata/foo/hello.txt\")", Ok(s("testdata/foo"))),
            ("dirname(\"hello.txt\")", Ok(s("."))),
            ("dirname(\"\")", Ok(s("."))),
            ("dirname(\"/hello.txt\")", Ok(s("/"))),
            ("dirname(\"a/../b/c\")", Ok(s("b"))),
            ("abspath(\"/tmp/../etc/x\")", Ok(s("/etc/x"))),
            ("abspath(\"sub/./x\")", Ok(s("/base/sub/x"))),
            ("abspath(\"../x\")", Ok(s("/x"))),
            ("pathexpand(\"/a/b\")", Ok(s("/a/b"))),
            ("pathexpand(\"a\")", Ok(s("a"))),
            (
                "pathexpand(\"~user/x\")",
                Err("cannot expand user-specific home dir"),
            ),
        ];
        let leaked: &'static str = Box::leak(expanded.into_boxed_str());
        let mut cases = cases;
        cases.push(("pathexpand(\"~/foo\")", Ok(s(leaked))));
        check_in(&TestScope::new(Path::new("/base"), Vec::new()), &cases);
    }

    /// A tree with a file, a subdirectory, a symlink out of the tree and one inside it,
    /// and a secret beside the tree.
    fn tree() -> (tempfile::TempDir, TestScope) {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = dir.path().join("repo");
        fs::create_dir_all(repo.join("mod/sub")).expect("mkdir");
        fs::write(repo.join("hello.txt"), "Hello World").expect("write");
        fs::write(repo.join("mod/a.tf"), "a").expect("write");
        fs::write(repo.join("mod/sub/b.tf"), "b").expect("write");
        fs::write(repo.join("mod/sub/c.txt"), "c").expect("write");
        fs::write(
            repo.join("mod/tpl.tmpl"),
            "Hello, ${name}!\n%{ for x in list ~}\n- ${x}\n%{ endfor ~}\n",
        )
        .expect("write");
        fs::write(repo.join("mod/only.tmpl"), "${list}").expect("write");
        fs::write(
            repo.join("mod/rec.tmpl"),
            "${templatefile(\"tpl.tmpl\", {})}",
        )
        .expect("write");
        fs::write(repo.join("mod/esc.tmpl"), "a\\nb $${x}").expect("write");
        fs::write(repo.join("latin1.bin"), [0xe9u8]).expect("write");
        fs::write(dir.path().join("secret.txt"), "secret").expect("write");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret.txt"), repo.join("mod/leak.txt"))
                .expect("symlink");
            std::os::unix::fs::symlink(repo.join("hello.txt"), repo.join("mod/hello-link.txt"))
                .expect("symlink");
            std::os::unix::fs::symlink(dir.path(), repo.join("mod/up")).expect("symlink");
        }
        let mut scope = TestScope::new(&repo.join("mod"), vec![repo.clone()]);
        scope.vars.insert(
            "secret_path".into(),
            s(&dir.path().join("secret.txt").to_string_lossy()),
        );
        (dir, scope)
    }

    /// Cases from Terraform `internal/lang/funcs/filesystem_test.go`, in a tree of our
    /// own, and the jail around it.
    #[test]
    fn file_functions() {
        let (_dir, scope) = tree();
        let cases: &[Case] = &[
            ("file(\"../hello.txt\")", Ok(s("Hello World"))),
            ("file(\"a.tf\")", Ok(s("a"))),
            ("file(\"sub/../a.tf\")", Ok(s("a"))),
            ("file(\"nope.txt\")", Err("no file exists at")),
            ("file(\"../latin1.bin\")", Err("are not valid UTF-8; use the filebase64 function")),
            ("file(\"sub\")", Err("is a directory")),
            ("filebase64(\"../hello.txt\")", Ok(s("SGVsbG8gV29ybGQ="))),
            ("filebase64(\"../latin1.bin\")", Ok(s("6Q=="))),
            ("filemd5(\"../hello.txt\")", Ok(s("b10a8db164e0754105b7a99be72e3fe5"))),
            ("filesha1(\"../hello.txt\")", Ok(s("0a4d55a8d778e5022fab701977c5d840bbc486d0"))),
            ("filesha256(\"../hello.txt\")", Ok(s("a591a6d40bf420404a011733cfb7b190d62c65bf0bcda32b57b277d9ad9f146e"))),
            ("filesha512(\"../hello.txt\")", Ok(s("2c74fd17edafd80e8447b0d46741ee243b7eb74dd2149a0ab1b9246fb30382f27e853d8585719e0e67cbda0daa8f51671064615d645ae27acb15bfb1447f459b"))),
            ("filebase64sha256(\"../hello.txt\")", Ok(s("pZGm1Av0IEBKARczz7exkNYsZb8LzaMrV7J32a2fFG4="))),
            ("filebase64sha512(\"../hello.txt\")", Ok(s("LHT9F+2v2A6ER7DUZ0HuJDt+t03SFJoKsbkkb7MDgvJ+hT2FhXGeDmfL2g2qj1FnEGRhXWRa4nrLFb+xRH9Fmw=="))),
            ("fileexists(\"a.tf\")", Ok(b(true))),
            ("fileexists(\"nope.tf\")", Ok(b(false))),
            ("fileexists(\"sub\")", Err("is a directory, not a file")),
            ("fileset(\".\", \"*.tf\")", Ok(strs(&["a.tf"]))),
            ("fileset(\".\", \"**/*.tf\")", Ok(strs(&["a.tf", "sub/b.tf"]))),
            ("fileset(\".\", \"sub/*\")", Ok(strs(&["sub/b.tf", "sub/c.txt"]))),
            ("fileset(\".\", \"sub/{b,c}.*\")", Ok(strs(&["sub/b.tf", "sub/c.txt"]))),
            ("fileset(\".\", \"sub/[a-b].tf\")", Ok(strs(&["sub/b.tf"]))),
            ("fileset(\".\", \"sub/?.txt\")", Ok(strs(&["sub/c.txt"]))),
            ("fileset(\"sub\", \"*\")", Ok(strs(&["b.tf", "c.txt"]))),
            ("fileset(\".\", \"a.tf\")", Ok(strs(&["a.tf"]))),
            ("fileset(\".\", \"nope/*\")", Ok(list(vec![]))),
            ("fileset(\".\", \"*.nope\")", Ok(list(vec![]))),
            ("fileset(\".\", \"../*.txt\")", Ok(strs(&["../hello.txt"]))),
            (
                "templatefile(\"tpl.tmpl\", { name = \"Jodie\", list = [\"a\", \"b\"] })",
                Ok(s("Hello, Jodie!\n- a\n- b\n")),
            ),
            ("templatefile(\"only.tmpl\", { list = [1, 2] })", Ok(list(vec![n(1.0), n(2.0)]))),
            ("templatefile(\"esc.tmpl\", {})", Ok(s("a\\nb ${x}"))),
            ("templatefile(\"tpl.tmpl\", { name = \"J\" })", Err("vars map does not contain key \"list\"")),
            ("templatefile(\"tpl.tmpl\", \"x\")", Err("invalid vars value: must be a map")),
            ("templatefile(\"rec.tmpl\", {})", Err("cannot recursively call templatefile from inside another template function")),
            ("templatefile(\"only.tmpl\", { \"not valid\" = 1 })", Err("invalid template variable name \"not valid\"")),
            ("templatestring(\"Hi $${name}\", { name = \"x\" })", Ok(s("Hi x"))),
            ("templatestring(\"$${file(\\\"a.tf\\\")}\", {})", Err("cannot use filesystem access functions like file in templatestring templates")),
            ("templatestring(1, {})", Err("invalid template value: a string is required")),
            ("templatestring(\"$${n}\", { n = 1 })", Ok(s("1"))),
            ("templatestring(\"$${timestamp()}\", {})", Ok(Value::unknown("timestamp() is not known before apply"))),
            ("templatestring(\"$${a\", {})", Err("invalid template")),
        ];
        check_in(&scope, cases);
    }

    /// Nothing outside the readable trees is read, however the path gets there.
    #[test]
    fn files_outside_the_trees_are_refused() {
        let (_dir, scope) = tree();
        let mut cases: Vec<Case> = vec![
            (
                "file(\"../../secret.txt\")",
                Err("is outside the trees tfsum reads"),
            ),
            (
                "file(var.secret_path)",
                Err("is outside the trees tfsum reads"),
            ),
            (
                "fileexists(\"../../secret.txt\")",
                Err("is outside the trees tfsum reads"),
            ),
            (
                "fileexists(\"../../nothing-here\")",
                Err("is outside the trees tfsum reads"),
            ),
            (
                "file(\"/etc/passwd\")",
                Err("/etc/passwd is outside the trees tfsum reads"),
            ),
            (
                "file(\"~/.aws/credentials\")",
                Err("is outside the trees tfsum reads"),
            ),
            (
                "fileset(\"../..\", \"*.txt\")",
                Err("is outside the trees tfsum reads"),
            ),
            (
                "fileset(\".\", \"../../*.txt\")",
                Err("is outside the trees tfsum reads"),
            ),
            (
                "templatefile(\"../../secret.txt\", {})",
                Err("is outside the trees tfsum reads"),
            ),
            (
                "filesha256(\"/etc/hostname\")",
                Err("is outside the trees tfsum reads"),
            ),
        ];
        if cfg!(unix) {
            cases.extend([
                (
                    "file(\"leak.txt\")",
                    Err("leak.txt is outside the trees tfsum reads"),
                ),
                (
                    "filemd5(\"up/secret.txt\")",
                    Err("is outside the trees tfsum reads"),
                ),
                ("file(\"hello-link.txt\")", Ok(s("Hello World"))),
                ("fileset(\".\", \"*.txt\")", Ok(strs(&["hello-link.txt"]))),
                ("fileset(\".\", \"**/secret.txt\")", Ok(list(vec![]))),
            ]);
        }
        check_in(&scope, &cases);
        // With no readable tree, nothing is read at all.
        let closed = TestScope::new(&scope.base, Vec::new());
        check_in(
            &closed,
            &[
                (
                    "file(\"a.tf\")",
                    Err("tfsum reads no files while evaluating this expression"),
                ),
                ("fileexists(\"a.tf\")", Err("tfsum reads no files")),
                ("fileset(\".\", \"*\")", Err("tfsum reads no files")),
            ],
        );
    }

    /// Files past the size limit are refused, not read.
    #[test]
    fn large_files_are_refused() {
        let (dir, scope) = tree();
        let big = dir.path().join("repo/mod/big.txt");
        fs::write(&big, vec![b'x'; (super::MAX_FILE + 1) as usize]).expect("write");
        check_in(
            &scope,
            &[(
                "file(\"big.txt\")",
                Err("tfsum reads files of at most 4194304 bytes"),
            )],
        );
    }
}
