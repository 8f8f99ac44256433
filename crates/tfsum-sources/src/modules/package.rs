//! A fetched module package as tfsum keeps it: the configuration files (`*.tf`,
//! `*.tf.json`, `*.tofu`, `*.tofu.json`) and every directory, nothing else.
//!
//! Archives and git trees are untrusted, so nothing from them touches the disk until it
//! has been checked here, in memory ([`PackageTree`]). [`clean_entry_path`] is the one
//! place every entry name (tar, zip, git) passes:
//!
//! - an entry path must be relative, may not contain `..`, and must be a plain name on
//!   every operating system tfsum runs on ([`names`]): no `\`, `:`, Windows device names
//!   or characters Windows refuses, at most 4096 bytes;
//! - a symlink may not point outside the package (absolute target, or `..` past the
//!   root), and is never created: a link to a configuration file becomes a copy of it, a
//!   link to a directory a copy of that directory's configuration;
//! - entries (directories implied by deeper names included) and kept bytes are capped
//!   ([`super::ArchiveLimits`]), and so is the tree the copies make: symlinks count
//!   toward the same entry and byte caps, so a few links cannot multiply a package;
//! - paths held in memory and the work of resolving symlinks are bounded too.
//!
//! [`Materialized::write_to`] then writes plain files and directories into a fresh
//! staging directory, which the cache renames into place. The same module resolves the
//! paths a caller asks for inside a package: the `//subdir` (with go-getter's glob
//! patterns, [`glob`]) and local `./…` calls, neither of which may leave the package.

mod glob;
mod names;

use std::collections::{btree_map, BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tfsum_vocab::paths::{is_config_file_name, normalize_path};

use glob::{glob_match, BadPattern};
pub(crate) use names::MAX_PATH_BYTES;

/// Bytes of paths one package may hold in memory, in its tree and again in what
/// materializes: far above real repositories (100 000 paths of 300 bytes), far below
/// what would strain memory.
const MAX_TOTAL_PATH_BYTES: usize = 32 << 20;

/// Bytes of paths looked up while resolving the symlinks of one package; real packages
/// need a few hundred KiB.
const MAX_RESOLVE_BYTES: usize = 256 << 20;

/// Why a module package's content is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContentError {
    #[error("entry {0:?} has an absolute path")]
    AbsolutePath(String),
    #[error("entry {0:?} contains \"..\"")]
    DotDot(String),
    #[error("entry {entry:?} is not a safe name on every operating system: {reason}")]
    UnsafeName { entry: String, reason: String },
    #[error("entry {start:?}… has a name of {len} bytes, longer than {MAX_PATH_BYTES}")]
    NameTooLong { start: String, len: usize },
    #[error("symlink {link:?} points outside the package (to {target:?})")]
    SymlinkEscapes { link: String, target: String },
    #[error("symlink {0:?} is part of a loop or too long a chain")]
    SymlinkLoop(String),
    #[error(
        "symlink {link:?} names a configuration file but points to {target:?}, which is not one"
    )]
    SymlinkToUnkept { link: String, target: String },
    #[error("entry {0:?} is both a file and a directory")]
    Conflict(String),
    #[error("more than {0} entries")]
    TooManyEntries(usize),
    #[error("entry names of more than {0} bytes in total")]
    PathsTooLong(usize),
    #[error("configuration files larger than {0} bytes in total")]
    TooLarge(u64),
    #[error("more than {0} entries once symlinks are copied")]
    CopiesTooMany(usize),
    #[error("configuration files larger than {0} bytes in total once symlinks are copied")]
    CopiesTooLarge(u64),
    #[error("symlinks that take more than {MAX_RESOLVE_BYTES} bytes of lookups to resolve")]
    SymlinksTooComplex,
    #[error("the package is empty")]
    Empty,
}

#[derive(Debug, Clone)]
enum Node {
    Dir,
    /// A regular file; the content only for configuration files.
    File(Option<Arc<Vec<u8>>>),
    Symlink(String),
}

/// The checked, in-memory view of a package while it is being read.
#[derive(Debug, Default)]
pub(crate) struct PackageTree {
    nodes: BTreeMap<String, Node>,
    entries: usize,
    path_bytes: usize,
    kept_bytes: u64,
    max_entries: usize,
    max_kept_bytes: u64,
}

/// A package ready to be written: directories and configuration files only.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Materialized {
    pub dirs: BTreeSet<String>,
    pub files: BTreeMap<String, Arc<Vec<u8>>>,
}

/// Checks an entry name and returns it cleaned (`./a//b/` → `a/b`); `""` is the root.
/// Every entry of every package (archive or git tree) goes through here.
pub(crate) fn clean_entry_path(raw: &str) -> Result<String, ContentError> {
    if raw.starts_with('/') || raw.contains('\0') {
        return Err(ContentError::AbsolutePath(raw.to_string()));
    }
    if raw.len() > MAX_PATH_BYTES {
        return Err(name_too_long(raw));
    }
    let mut parts = Vec::new();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(ContentError::DotDot(raw.to_string())),
            other => parts.push(other),
        }
    }
    if let Some(reason) = names::unportable_name(raw) {
        return Err(ContentError::UnsafeName {
            entry: raw.to_string(),
            reason,
        });
    }
    Ok(parts.join("/"))
}

fn name_too_long(name: &str) -> ContentError {
    let mut end = 64.min(name.len());
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    ContentError::NameTooLong {
        start: name[..end].to_string(),
        len: name.len(),
    }
}

/// Whether tfsum keeps a file's content: configuration files, and the `.hcl` files of
/// Terragrunt (a stack's unit or stack source is a directory holding `terragrunt.hcl`,
/// `terragrunt.stack.hcl`, `terragrunt.values.hcl`, files they read, and perhaps a
/// `.terraform.lock.hcl` that generation would copy).
pub(crate) fn is_kept(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    is_config_file_name(name) || (name.ends_with(".hcl") && name.len() > ".hcl".len())
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(p, _)| p)
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else if name.is_empty() {
        dir.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// A symlink's target as a package path, or `None` when it leaves the package.
fn link_target(link: &str, target: &str) -> Option<String> {
    if target.starts_with('/') || target.starts_with('\\') {
        return None;
    }
    let mut parts: Vec<&str> = parent(link).split('/').filter(|p| !p.is_empty()).collect();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// What materializing may still spend.
struct Budget {
    entries_left: usize,
    bytes: u64,
    path_bytes: usize,
    resolve_bytes: usize,
}

impl PackageTree {
    pub(crate) fn new(max_entries: usize, max_kept_bytes: u64) -> PackageTree {
        PackageTree {
            max_entries,
            max_kept_bytes,
            ..PackageTree::default()
        }
    }

    /// How many more bytes of configuration the package may keep.
    pub(crate) fn kept_room(&self) -> u64 {
        self.max_kept_bytes.saturating_sub(self.kept_bytes)
    }

    fn count(&mut self) -> Result<(), ContentError> {
        self.entries += 1;
        if self.entries > self.max_entries {
            return Err(ContentError::TooManyEntries(self.max_entries));
        }
        Ok(())
    }

    /// Stores a node; a new path counts toward the entry and path-bytes caps (a
    /// directory implied by a deeper name is an entry too).
    fn insert(&mut self, path: String, node: Node) -> Result<(), ContentError> {
        let full = self.nodes.len() >= self.max_entries;
        match self.nodes.entry(path) {
            btree_map::Entry::Occupied(mut slot) => {
                slot.insert(node);
            }
            btree_map::Entry::Vacant(slot) => {
                if full {
                    return Err(ContentError::TooManyEntries(self.max_entries));
                }
                self.path_bytes += slot.key().len();
                if self.path_bytes > MAX_TOTAL_PATH_BYTES {
                    return Err(ContentError::PathsTooLong(MAX_TOTAL_PATH_BYTES));
                }
                slot.insert(node);
            }
        }
        Ok(())
    }

    /// Records `path` and its ancestors as directories.
    pub(crate) fn add_dir(&mut self, raw: &str) -> Result<(), ContentError> {
        self.count()?;
        let path = clean_entry_path(raw)?;
        self.ensure_dirs(&path, raw)
    }

    /// Makes `path` and its ancestors directories. Every node's ancestors are
    /// directories, so the search stops at the deepest one that exists.
    fn ensure_dirs(&mut self, path: &str, raw: &str) -> Result<(), ContentError> {
        let mut missing = Vec::new();
        let mut current = path;
        while !current.is_empty() {
            match self.nodes.get(current) {
                Some(Node::Dir) => break,
                Some(_) => return Err(ContentError::Conflict(raw.to_string())),
                None => {
                    missing.push(current);
                    current = parent(current);
                }
            }
        }
        for dir in missing.into_iter().rev() {
            self.insert(dir.to_string(), Node::Dir)?;
        }
        Ok(())
    }

    /// Records a regular file; `content` is read only for kept files (see [`is_kept`]),
    /// so callers pass `None` for the others. A later entry of the same name wins, as
    /// when unpacking.
    pub(crate) fn add_file(
        &mut self,
        raw: &str,
        content: Option<Vec<u8>>,
    ) -> Result<(), ContentError> {
        self.count()?;
        let path = clean_entry_path(raw)?;
        if path.is_empty() {
            return Err(ContentError::Conflict(raw.to_string()));
        }
        self.ensure_dirs(parent(&path), raw)?;
        if matches!(self.nodes.get(&path), Some(Node::Dir)) {
            return Err(ContentError::Conflict(raw.to_string()));
        }
        let content = match content {
            Some(bytes) if is_kept(&path) => {
                self.kept_bytes += bytes.len() as u64;
                if self.kept_bytes > self.max_kept_bytes {
                    return Err(ContentError::TooLarge(self.max_kept_bytes));
                }
                Some(Arc::new(bytes))
            }
            _ => None,
        };
        self.insert(path, Node::File(content))
    }

    /// Records a symlink, refusing one whose target leaves the package.
    pub(crate) fn add_symlink(&mut self, raw: &str, target: &str) -> Result<(), ContentError> {
        self.count()?;
        let path = clean_entry_path(raw)?;
        if path.is_empty() || matches!(self.nodes.get(&path), Some(Node::Dir)) {
            return Err(ContentError::Conflict(raw.to_string()));
        }
        if target.len() > MAX_PATH_BYTES {
            return Err(name_too_long(target));
        }
        if link_target(&path, target).is_none() {
            return Err(ContentError::SymlinkEscapes {
                link: path,
                target: target.to_string(),
            });
        }
        self.ensure_dirs(parent(&path), raw)?;
        self.insert(path, Node::Symlink(target.to_string()))
    }

    /// Follows symlinks in every component of `path`. `None` for a path that does not
    /// exist (a dangling link).
    fn resolve(
        &self,
        path: &str,
        hops: &mut u32,
        budget: &mut Budget,
    ) -> Result<Option<String>, ContentError> {
        let mut current = String::new();
        for part in path.split('/').filter(|p| !p.is_empty()) {
            let candidate = join(&current, part);
            budget.resolve_bytes += candidate.len();
            if budget.resolve_bytes > MAX_RESOLVE_BYTES {
                return Err(ContentError::SymlinksTooComplex);
            }
            match self.nodes.get(&candidate) {
                None => return Ok(None),
                Some(Node::Symlink(target)) => {
                    *hops += 1;
                    if *hops > 40 {
                        return Err(ContentError::SymlinkLoop(candidate));
                    }
                    let Some(target_path) = link_target(&candidate, target) else {
                        return Err(ContentError::SymlinkEscapes {
                            link: candidate,
                            target: target.clone(),
                        });
                    };
                    match self.resolve(&target_path, hops, budget)? {
                        Some(resolved) => current = resolved,
                        None => return Ok(None),
                    }
                }
                Some(_) => current = candidate,
            }
        }
        Ok(Some(current))
    }

    /// Resolves every symlink and returns what tfsum keeps. The copies symlinks make
    /// count toward the package's caps: entries (`max_entries`), configuration bytes
    /// (`max_kept_bytes`) and path bytes, so that what is written stays within them.
    pub(crate) fn materialize(&self) -> Result<Materialized, ContentError> {
        if self.nodes.is_empty() {
            return Err(ContentError::Empty);
        }
        let mut out = Materialized::default();
        let mut budget = Budget {
            entries_left: self.max_entries,
            bytes: 0,
            path_bytes: 0,
            resolve_bytes: 0,
        };
        for (path, node) in &self.nodes {
            self.place(path, path, node, &mut out, &mut budget, 0)?;
        }
        Ok(out)
    }

    /// Puts `node` (found at `src`) into `out` at `dst`, expanding symlinks.
    fn place(
        &self,
        dst: &str,
        src: &str,
        node: &Node,
        out: &mut Materialized,
        budget: &mut Budget,
        depth: u32,
    ) -> Result<(), ContentError> {
        if budget.entries_left == 0 {
            return Err(ContentError::CopiesTooMany(self.max_entries));
        }
        budget.entries_left -= 1;
        match node {
            Node::Dir => self.put_dir(dst, out, budget)?,
            Node::File(Some(content)) => self.put_file(dst, content, out, budget)?,
            Node::File(None) => {}
            Node::Symlink(target) => {
                if depth > 8 {
                    return Err(ContentError::SymlinkLoop(src.to_string()));
                }
                let mut hops = 0;
                let Some(resolved) = self.resolve(src, &mut hops, budget)? else {
                    return Ok(()); // dangling: nothing to read there
                };
                match self.nodes.get(&resolved) {
                    Some(Node::File(Some(content))) if is_kept(dst) => {
                        self.put_file(dst, content, out, budget)?;
                    }
                    Some(Node::File(None)) if is_kept(dst) => {
                        return Err(ContentError::SymlinkToUnkept {
                            link: src.to_string(),
                            target: target.clone(),
                        })
                    }
                    Some(Node::Dir) | None if resolved.is_empty() || self.is_dir(&resolved) => {
                        self.put_dir(dst, out, budget)?;
                        // A link to its own ancestor would copy itself without end;
                        // nothing a module call can name needs it, so it stays empty.
                        if resolved.is_empty() || src.starts_with(&format!("{resolved}/")) {
                            return Ok(());
                        }
                        let prefix = format!("{resolved}/");
                        for (path, child) in self.nodes.range(prefix.clone()..) {
                            let Some(rest) = path.strip_prefix(&prefix) else {
                                break;
                            };
                            self.place(&join(dst, rest), path, child, out, budget, depth + 1)?;
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn put_dir(
        &self,
        dst: &str,
        out: &mut Materialized,
        budget: &mut Budget,
    ) -> Result<(), ContentError> {
        self.charge_path(dst, budget)?;
        out.dirs.insert(dst.to_string());
        Ok(())
    }

    fn put_file(
        &self,
        dst: &str,
        content: &Arc<Vec<u8>>,
        out: &mut Materialized,
        budget: &mut Budget,
    ) -> Result<(), ContentError> {
        self.charge_path(dst, budget)?;
        budget.bytes += content.len() as u64;
        if budget.bytes > self.max_kept_bytes {
            return Err(ContentError::CopiesTooLarge(self.max_kept_bytes));
        }
        out.files.insert(dst.to_string(), content.clone());
        Ok(())
    }

    /// Copies under a symlinked directory get longer paths than any entry had.
    fn charge_path(&self, dst: &str, budget: &mut Budget) -> Result<(), ContentError> {
        if dst.len() > MAX_PATH_BYTES {
            return Err(name_too_long(dst));
        }
        budget.path_bytes += dst.len();
        if budget.path_bytes > MAX_TOTAL_PATH_BYTES {
            return Err(ContentError::PathsTooLong(MAX_TOTAL_PATH_BYTES));
        }
        Ok(())
    }

    fn is_dir(&self, path: &str) -> bool {
        matches!(self.nodes.get(path), Some(Node::Dir))
    }
}

impl Materialized {
    /// The directory `subdir` names in this package (go-getter's glob rules, as
    /// [`find_subdir`]), as a package path (`""`: the root).
    pub(crate) fn find_dir(&self, subdir: &str) -> Result<String, SubdirError> {
        resolve_subdir(self, subdir)
    }

    /// Writes the package under `root` (which must exist and be empty).
    pub(crate) fn write_to(&self, root: &Path) -> std::io::Result<()> {
        for dir in &self.dirs {
            std::fs::create_dir_all(root.join(dir))?;
        }
        for (path, content) in &self.files {
            let file = root.join(path);
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(file, content.as_slice())?;
        }
        Ok(())
    }
}

/// A path inside a package that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubdirError {
    #[error("subdirectory {0:?} leaves the package")]
    Escapes(String),
    #[error("subdirectory {0:?} not found in the package")]
    NotFound(String),
    #[error("subdirectory {0:?} matches more than one path in the package")]
    Ambiguous(String),
    #[error("subdirectory {0:?} is not a valid pattern (syntax error in pattern)")]
    BadPattern(String),
    #[error("subdirectory {subdir:?} is not a safe path on every operating system: {reason}")]
    Unsafe { subdir: String, reason: String },
    /// The directory found lies outside the package's root (through a link).
    #[error("{0:?} leaves the package")]
    Outside(String),
}

/// The components of a `//subdir`, checked: none may leave the package, each pattern
/// must be well-formed (as `filepath.Glob` checks first), and a literal name must be
/// one the package could hold (on Windows, `C:` or `a\..\..` would leave it when
/// joined).
fn subdir_parts(subdir: &str) -> Result<Vec<&str>, SubdirError> {
    if subdir.starts_with('/') || subdir.contains('\0') {
        return Err(SubdirError::Escapes(subdir.to_string()));
    }
    let mut parts = Vec::new();
    for part in subdir.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(SubdirError::Escapes(subdir.to_string())),
            part if has_glob_meta(part) => {
                glob_match(part, "")
                    .map_err(|BadPattern| SubdirError::BadPattern(subdir.to_string()))?;
                parts.push(part);
            }
            part => {
                if let Some(reason) = names::unportable_component(part) {
                    return Err(SubdirError::Unsafe {
                        subdir: subdir.to_string(),
                        reason,
                    });
                }
                parts.push(part);
            }
        }
    }
    Ok(parts)
}

/// The directory `subdir` names below `root`, with go-getter's `SubdirGlob` rules:
/// each component may be a `filepath.Match` pattern, and a pattern must match exactly
/// one path. Unlike go-getter, a subdir may not leave the package.
pub(crate) fn find_subdir(root: &Path, subdir: &str) -> Result<PathBuf, SubdirError> {
    resolve_subdir(&OnDisk(root), subdir)
}

/// A package as a `//subdir` is looked up in: one component at a time, from its root.
/// The package in memory ([`Materialized`]) and the package written to disk
/// ([`OnDisk`]) answer the same questions; [`resolve_subdir`] asks them.
trait SubdirLookup {
    type Dir;
    fn root(&self) -> Self::Dir;
    /// `dir/name`, when the package has it.
    fn named(&self, dir: &Self::Dir, name: &str) -> Option<Self::Dir>;
    /// The entries of `dir` whose names `pattern` matches, in name order.
    fn matching(&self, dir: &Self::Dir, pattern: &str) -> Vec<Self::Dir>;
}

/// go-getter's `SubdirGlob` over any package: each component a name or a pattern, and
/// exactly one path at the end.
fn resolve_subdir<L: SubdirLookup>(package: &L, subdir: &str) -> Result<L::Dir, SubdirError> {
    let parts = subdir_parts(subdir)?;
    let mut candidates = vec![package.root()];
    for part in parts {
        candidates = candidates
            .iter()
            .flat_map(|dir| {
                if has_glob_meta(part) {
                    package.matching(dir, part)
                } else {
                    package.named(dir, part).into_iter().collect()
                }
            })
            .collect();
    }
    match candidates.len() {
        0 => Err(SubdirError::NotFound(subdir.to_string())),
        1 => Ok(candidates.remove(0)),
        _ => Err(SubdirError::Ambiguous(subdir.to_string())),
    }
}

/// In memory, only directories are candidates.
impl SubdirLookup for Materialized {
    type Dir = String;

    fn root(&self) -> String {
        String::new()
    }

    fn named(&self, dir: &String, name: &str) -> Option<String> {
        let path = join(dir, name);
        self.dirs.contains(&path).then_some(path)
    }

    fn matching(&self, dir: &String, pattern: &str) -> Vec<String> {
        // The directories below `dir` are one contiguous range of the set, and the
        // candidates of one level are disjoint, so a level reads each directory at
        // most once.
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        self.dirs
            .range(prefix.clone()..)
            .map_while(|path| Some((path, path.strip_prefix(&prefix)?)))
            .filter(|(_, rest)| !rest.contains('/') && glob_match(pattern, rest) == Ok(true))
            .map(|(path, _)| path.clone())
            .collect()
    }
}

/// A package written below a directory; any entry is a candidate (a file fails later,
/// as "not a directory").
struct OnDisk<'a>(&'a Path);

impl SubdirLookup for OnDisk<'_> {
    type Dir = PathBuf;

    fn root(&self) -> PathBuf {
        self.0.to_path_buf()
    }

    fn named(&self, dir: &PathBuf, name: &str) -> Option<PathBuf> {
        let path = dir.join(name);
        std::fs::symlink_metadata(&path).is_ok().then_some(path)
    }

    fn matching(&self, dir: &PathBuf, pattern: &str) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| glob_match(pattern, name) == Ok(true))
            .collect();
        names.sort();
        names.into_iter().map(|name| dir.join(name)).collect()
    }
}

/// Go's `hasMeta` (Unix): whether a component is a pattern rather than a name.
fn has_glob_meta(part: &str) -> bool {
    part.contains(['*', '?', '[', '\\'])
}

/// Resolves a local call (`./x`, `../x`) made by a module at `module_dir`, which lies in
/// the package at `package_root`. The result may not leave the package: Terraform 1.0.3
/// would look in `.terraform/modules/<that path>` (another call's download, or
/// nothing) and later versions refuse the call (docs/spec/modules.md §5).
pub fn resolve_in_package(
    package_root: &Path,
    module_dir: &Path,
    source: &str,
) -> Result<PathBuf, SubdirError> {
    let target = normalize_path(&module_dir.join(source.replace('\\', "/")));
    let root = normalize_path(package_root);
    if target.starts_with(&root) {
        Ok(target)
    } else {
        Err(SubdirError::Escapes(source.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> PackageTree {
        PackageTree::new(1000, 1 << 20)
    }

    #[test]
    fn entry_paths() {
        for (raw, want) in [
            ("a/b.tf", Ok("a/b.tf")),
            ("./a//b/", Ok("a/b")),
            ("", Ok("")),
            (
                "/etc/passwd",
                Err(ContentError::AbsolutePath("/etc/passwd".into())),
            ),
            ("a/../../x", Err(ContentError::DotDot("a/../../x".into()))),
            ("../x.tf", Err(ContentError::DotDot("../x.tf".into()))),
            ("a/b..c.tf", Ok("a/b..c.tf")),
        ] {
            assert_eq!(clean_entry_path(raw), want.map(str::to_string), "{raw}");
        }
    }

    /// Names that are paths, devices or streams on Windows are refused on every system,
    /// naming the entry; so is a name longer than `PATH_MAX`.
    #[test]
    fn names_unsafe_on_any_system_are_refused_with_the_entry() {
        for raw in [
            "sub\\..\\..\\x.tf",
            "C:/Windows/x.tf",
            "C:x.tf",
            "mod/CON",
            "mod/nul.tf",
            "mod/aux.tf.json",
            "COM1/main.tf",
            "lpt9",
            "main.tf:hidden",
            "mod./main.tf",
            "mod /main.tf",
        ] {
            let want = format!("entry {raw:?} is not a safe name on every operating system");
            let mut t = tree();
            for err in [
                t.add_file(raw, Some(b"x".to_vec())).unwrap_err(),
                t.add_file(raw, None).unwrap_err(),
                t.add_dir(raw).unwrap_err(),
                t.add_symlink(raw, "main.tf").unwrap_err(),
            ] {
                assert!(
                    matches!(err, ContentError::UnsafeName { .. }),
                    "{raw}: {err}"
                );
                assert!(err.to_string().starts_with(&want), "{err}");
            }
        }
        let long = format!("{}/x.tf", "d/".repeat(2100));
        let err = clean_entry_path(&long).unwrap_err();
        assert!(matches!(err, ContentError::NameTooLong { len, .. } if len == long.len()));
        assert!(err.to_string().contains("longer than 4096"), "{err}");
    }

    #[test]
    fn keeps_only_configuration_and_directories() {
        let mut t = tree();
        t.add_file("pkg/main.tf", Some(b"a".to_vec())).unwrap();
        t.add_file("pkg/x.tf.json", Some(b"{}".to_vec())).unwrap();
        t.add_file("pkg/README.md", Some(b"no".to_vec())).unwrap();
        t.add_file("pkg/.hidden.tf", Some(b"no".to_vec())).unwrap();
        t.add_file("pkg/terragrunt.hcl", Some(b"t".to_vec()))
            .unwrap();
        t.add_file("pkg/.hcl", Some(b"no".to_vec())).unwrap();
        t.add_dir("pkg/empty/").unwrap();
        let m = t.materialize().unwrap();
        assert_eq!(
            m.files.keys().cloned().collect::<Vec<_>>(),
            vec!["pkg/main.tf", "pkg/terragrunt.hcl", "pkg/x.tf.json"]
        );
        assert_eq!(
            m.dirs.iter().cloned().collect::<Vec<_>>(),
            vec!["pkg", "pkg/empty"]
        );
    }

    #[test]
    fn symlinks_inside_are_copied_and_escapes_refused() {
        let mut t = tree();
        t.add_file("shared/versions.tf", Some(b"v".to_vec()))
            .unwrap();
        t.add_file("shared/data.bin", None).unwrap();
        t.add_symlink("mod/versions.tf", "../shared/versions.tf")
            .unwrap();
        t.add_symlink("alias", "shared").unwrap();
        t.add_symlink("dangling.tf", "nowhere.tf").unwrap();
        t.add_symlink("self", ".").unwrap();
        let m = t.materialize().unwrap();
        assert_eq!(m.files["mod/versions.tf"].as_slice(), b"v");
        assert_eq!(m.files["alias/versions.tf"].as_slice(), b"v");
        assert!(!m.files.contains_key("dangling.tf"));

        for (link, target) in [("a.tf", "/etc/passwd"), ("d/x", "../../up"), ("y", "..")] {
            let err = tree().add_symlink(link, target).unwrap_err();
            assert!(
                matches!(err, ContentError::SymlinkEscapes { .. }),
                "{link} -> {target}: {err}"
            );
        }

        let mut t = tree();
        t.add_file("data.bin", None).unwrap();
        t.add_symlink("main.tf", "data.bin").unwrap();
        assert!(matches!(
            t.materialize(),
            Err(ContentError::SymlinkToUnkept { .. })
        ));

        let mut t = tree();
        t.add_symlink("a", "b").unwrap();
        t.add_symlink("b", "a").unwrap();
        t.add_symlink("main.tf", "a/x.tf").unwrap();
        assert!(matches!(t.materialize(), Err(ContentError::SymlinkLoop(_))));
    }

    /// One 2 MiB file and 150 links to its directory would materialize 302 MiB: the
    /// copies count toward the byte cap, and toward the entry cap.
    #[test]
    fn symlink_copies_count_toward_the_caps() {
        let caps = crate::modules::ArchiveLimits::default();
        let amplified = |links: usize, max_entries: usize, max_bytes: u64| {
            let mut t = PackageTree::new(max_entries, max_bytes);
            t.add_file("shared/big.tf", Some(vec![b'#'; 2 << 20]))
                .unwrap();
            for i in 0..links {
                t.add_symlink(&format!("l{i}"), "shared").unwrap();
            }
            t.materialize()
        };
        assert_eq!(
            amplified(150, caps.max_entries, caps.max_config_bytes),
            Err(ContentError::CopiesTooLarge(caps.max_config_bytes))
        );
        let small = amplified(3, caps.max_entries, caps.max_config_bytes).unwrap();
        assert_eq!(small.files.len(), 4);
        // Entries: 2 nodes + 10 links fit in 12, but their copies (2 each) do not.
        assert_eq!(
            amplified(10, 12, u64::MAX),
            Err(ContentError::CopiesTooMany(12))
        );
        // Links to links to directories multiply too.
        let mut t = PackageTree::new(100_000, 1 << 20);
        t.add_file("d0/x.tf", Some(vec![0; 1000])).unwrap();
        for level in 1..8 {
            for i in 0..4 {
                t.add_symlink(&format!("d{level}/l{i}"), &format!("../d{}", level - 1))
                    .unwrap();
            }
        }
        assert_eq!(t.materialize(), Err(ContentError::CopiesTooLarge(1 << 20)));
    }

    /// Directories implied by deep names are entries: they cannot bypass the cap.
    #[test]
    fn implied_directories_count_as_entries() {
        let mut t = PackageTree::new(10, 1 << 20);
        let deep = format!("{}x.tf", "d/".repeat(20));
        assert_eq!(
            t.add_file(&deep, None),
            Err(ContentError::TooManyEntries(10))
        );
        let mut t = PackageTree::new(10, 1 << 20);
        t.add_file(&format!("{}x.tf", "d/".repeat(9)), None)
            .unwrap();
        assert_eq!(t.nodes.len(), 10);
    }

    #[test]
    fn limits_and_conflicts() {
        let mut t = PackageTree::new(2, 10);
        t.add_file("a.tf", Some(vec![0; 6])).unwrap();
        assert_eq!(
            t.add_file("b.tf", Some(vec![0; 6])),
            Err(ContentError::TooLarge(10))
        );
        assert_eq!(t.add_dir("c"), Err(ContentError::TooManyEntries(2)));

        let mut t = tree();
        t.add_file("a", None).unwrap();
        assert!(matches!(
            t.add_file("a/b.tf", Some(vec![])),
            Err(ContentError::Conflict(_))
        ));
        assert_eq!(tree().materialize(), Err(ContentError::Empty));
    }

    #[test]
    fn find_dir_in_memory() {
        let mut t = tree();
        t.add_dir("org-repo-1a2b/modules/vpc").unwrap();
        t.add_dir("two/a").unwrap();
        t.add_dir("two/b").unwrap();
        let m = t.materialize().unwrap();
        assert_eq!(m.find_dir("").unwrap(), "");
        assert_eq!(
            m.find_dir("*").unwrap_err(),
            SubdirError::Ambiguous("*".into())
        );
        assert_eq!(
            m.find_dir("org-*/modules").unwrap(),
            "org-repo-1a2b/modules"
        );
        assert_eq!(
            m.find_dir("two/c").unwrap_err(),
            SubdirError::NotFound("two/c".into())
        );
        assert_eq!(
            m.find_dir("../x").unwrap_err(),
            SubdirError::Escapes("../x".into())
        );
        assert_eq!(
            m.find_dir("two/[").unwrap_err(),
            SubdirError::BadPattern("two/[".into())
        );
        // Malformed even where an earlier component already matches nothing.
        assert_eq!(
            m.find_dir("nope/a[").unwrap_err(),
            SubdirError::BadPattern("nope/a[".into())
        );
        for unsafe_subdir in ["C:", "two/nul", "a:b/c"] {
            assert!(
                matches!(m.find_dir(unsafe_subdir), Err(SubdirError::Unsafe { .. })),
                "{unsafe_subdir}"
            );
        }
        // An escaped meta character names itself.
        assert_eq!(m.find_dir("tw\\o/\\a").unwrap(), "two/a");
    }

    /// `*/*/…` over a wide, deep tree and a star-heavy pattern against long names
    /// (through `X-Terraform-Get`, both come from a server) answer at once.
    #[test]
    fn finding_a_subdir_is_not_exponential_or_quadratic() {
        let mut t = PackageTree::new(100_000, 1 << 20);
        for i in 0..20_000 {
            t.add_dir(&format!("top{}/mid{i}/leaf", i % 100)).unwrap();
        }
        t.add_dir(&format!("{}/x", "a".repeat(100))).unwrap();
        let m = t.materialize().unwrap();
        let started = std::time::Instant::now();
        assert_eq!(
            m.find_dir("*/*/*").unwrap_err(),
            SubdirError::Ambiguous("*/*/*".into())
        );
        assert_eq!(m.find_dir("top7/mid1207/*").unwrap(), "top7/mid1207/leaf");
        let stars = format!("{}b", "*a".repeat(12));
        assert_eq!(
            m.find_dir(&stars).unwrap_err(),
            SubdirError::NotFound(stars.clone())
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn subdirs_and_local_calls_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("org-repo-abc/modules/vpc")).unwrap();
        std::fs::create_dir_all(root.join("two/a")).unwrap();
        std::fs::create_dir_all(root.join("two/b")).unwrap();
        assert_eq!(find_subdir(root, "").unwrap(), root);
        assert_eq!(
            find_subdir(root, "*/modules/vpc").unwrap(),
            root.join("org-repo-abc/modules/vpc")
        );
        assert_eq!(
            find_subdir(root, "two/*"),
            Err(SubdirError::Ambiguous("two/*".into()))
        );
        assert_eq!(
            find_subdir(root, "nope"),
            Err(SubdirError::NotFound("nope".into()))
        );
        assert_eq!(
            find_subdir(root, "../x"),
            Err(SubdirError::Escapes("../x".into()))
        );
        let stars = format!("{}b", "*a".repeat(12));
        std::fs::create_dir(root.join("a".repeat(100))).unwrap();
        assert_eq!(
            find_subdir(root, &stars),
            Err(SubdirError::NotFound(stars.clone()))
        );
        assert!(matches!(
            find_subdir(root, "C:"),
            Err(SubdirError::Unsafe { .. })
        ));
        assert_eq!(
            find_subdir(root, "two/[a"),
            Err(SubdirError::BadPattern("two/[a".into()))
        );

        let pkg = Path::new("/cache/pkg");
        assert_eq!(
            resolve_in_package(pkg, &pkg.join("modules/a"), "../b").unwrap(),
            pkg.join("modules/b")
        );
        assert_eq!(
            resolve_in_package(pkg, pkg, "../sibling"),
            Err(SubdirError::Escapes("../sibling".into()))
        );
        assert!(resolve_in_package(pkg, &pkg.join("a"), "..\\..\\x").is_err());
    }
}
