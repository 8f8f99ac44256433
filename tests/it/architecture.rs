//! The shape of the code, checked where Cargo cannot check it. The layers are crates
//! (docs/design.md, "Layers"): a crate can only name the crates it depends on, so Cargo
//! holds most of the layering, and [`crates_depend_only_on_the_layers_below`] holds the
//! rest (no crate depends on a higher one, configuration never on the network). Inside
//! a crate this file checks what no manifest says: the stages are used only in pipeline
//! order, and no crate's module graph has a cycle. (The house docs/design.md draws from
//! the crates is `docs::design`'s.)
//!
//! The import graph of a crate is read from the syntax tree (`syn`), not from lines of
//! text. Every file of the crate is parsed, and two kinds of path become edges:
//!
//! * every leaf of every `use` tree, at any depth of `{…}` groups, with `crate`, `super`
//!   (repeated), `self`, renames and globs, at module level or inside a function;
//! * every path that starts with `crate::`, `super::`, `self::`, a child module or a name
//!   a `use` brought in, wherever it stands: expressions, types, patterns, trait bounds,
//!   and the tokens of macro calls and attributes (`format!(…, crate::x::y())`,
//!   `#[error(…, crate::x::y(…))]`).
//!
//! Each path is resolved to the module it names: the deepest module on it, then through
//! the `use` declarations of that module (re-exports, and the private imports a child
//! reaches through `super::`) to the module that defines the item. An inline `mod` is a
//! module of its own, a child of the one it stands in. A module's uses of its own
//! ancestors and descendants are not edges.
//!
//! `every_import_form_is_seen` plants one violation of each form in a small in-memory
//! crate, and `every_import_form_planted_in_the_stages_is_found` the eight forms of issue
//! 36 in a copy of the stages crate; each fails if the checker lets any of them pass.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};

use crate::support::terraform::repo_root;

/// The layers, top to bottom: a crate may depend on the ones after it. `tfsum` is the
/// commands and the binary (`src/`); the others are `crates/tfsum-NAME`.
pub(crate) const CRATES: [&str; 8] = [
    "tfsum",
    "tfsum-report",
    "tfsum-stages",
    "tfsum-config",
    "tfsum-sources",
    "tfsum-net",
    "tfsum-disk",
    "tfsum-vocab",
];

/// Pairs of crates kept apart although the first is above the second: configuration
/// reads module sources through their grammar (`tfsum_vocab::module_source`), never
/// through the network.
const APART: [(&str, &str); 1] = [("tfsum-config", "tfsum-net")];

/// Where a crate's sources are, below the repository.
pub(crate) fn src_dir(krate: &str) -> String {
    match krate {
        "tfsum" => "src".to_string(),
        other => format!("crates/{other}/src"),
    }
}

/// The pipeline, last stage first: a stage may use the ones after it. `install` (`lock
/// --mirror`, `mirror`) takes the lock files `write` wrote, and `publish` (`mirror
/// --layout oci`) the lock files as `install` reads them. `index`, the configuration
/// index of a `lock` run, decides before `discover` and `load` what they may skip and
/// learns after `write` which lock files it left unchanged, so it comes after `write`:
/// it may use every stage it asks or learns from, and none uses it (`load` asks it
/// through `load::Prior`, a trait `load` defines). A root and the ways it stops, the
/// warnings and the thread pool are below every stage.
const STAGES: [&str; 11] = [
    "publish", "install", "index", "write", "hash", "resolve", "load", "discover", "root",
    "warning", "parallel",
];

/// A module's path below the crate root: `["write", "diff"]`; the root is `[]`.
pub(crate) type Module = Vec<String>;

/// One file of the tree.
pub(crate) struct Source {
    /// The file as reported: `crates/tfsum-stages/src/write/mod.rs`.
    pub(crate) shown: String,
    pub(crate) module: Module,
    pub(crate) text: String,
    /// The directory a `#[path = …]` on a `mod` item is relative to (none in memory).
    dir: Option<PathBuf>,
}

/// The module a file below a crate's `src/` is: `write.rs` and `write/mod.rs` are
/// `write`, `lib.rs` is the root; `main.rs` is another crate's root.
fn module_of(rel: &Path) -> Option<Module> {
    let mut module: Module = rel
        .with_extension("")
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    match module.last().map(String::as_str) {
        Some("main") if module.len() == 1 => None,
        Some("lib") if module.len() == 1 => Some(Vec::new()),
        Some("mod") => {
            module.pop();
            Some(module)
        }
        _ => Some(module),
    }
}

/// Every `.rs` file of the crate whose sources are in `dir` (below the repository).
pub(crate) fn sources(dir: &str) -> Vec<Source> {
    let root = repo_root();
    let src = root.join(dir);
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(&src).sort_by_file_name() {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let Some(module) = module_of(path.strip_prefix(&src).unwrap()) else {
            continue;
        };
        out.push(Source {
            shown: path.strip_prefix(&root).unwrap().display().to_string(),
            module,
            text: std::fs::read_to_string(path).unwrap(),
            dir: path.parent().map(Path::to_path_buf),
        });
    }
    out
}

/// An in-memory stages crate: (path below its `src/`, text).
fn tree(files: &[(&str, String)]) -> Vec<Source> {
    files
        .iter()
        .map(|(rel, text)| Source {
            shown: format!("crates/tfsum-stages/src/{rel}"),
            module: module_of(Path::new(rel)).expect("a library file"),
            text: text.clone(),
            dir: None,
        })
        .collect()
}

fn parse(shown: &str, text: &str) -> syn::File {
    syn::parse_file(text).unwrap_or_else(|e| {
        let at = e.span().start();
        panic!("{shown}:{}:{}: {e}", at.line, at.column + 1)
    })
}

/// The file a `mod name;` with `#[path = "…"]` stands for, read from disk.
fn path_attribute(item: &syn::ItemMod, dir: Option<&Path>) -> Option<(PathBuf, String)> {
    let dir = dir?;
    item.attrs.iter().find_map(|attr| {
        let syn::Meta::NameValue(nv) = &attr.meta else {
            return None;
        };
        if !nv.path.is_ident("path") {
            return None;
        }
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = &nv.value
        else {
            return None;
        };
        let file = dir.join(s.value());
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        Some((file, text))
    })
}

/// One leaf of a `use` tree: the path as written (`["super", "hash", "Hashes"]`), the name
/// it binds (none for a glob), and the line it stands on.
struct Leaf {
    path: Vec<String>,
    name: Option<String>,
    line: usize,
}

fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Leaf>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => out.push(leaf(prefix, &n.ident, None)),
        syn::UseTree::Rename(r) => out.push(leaf(prefix, &r.ident, Some(&r.rename))),
        syn::UseTree::Glob(g) => out.push(Leaf {
            path: prefix.clone(),
            name: None,
            line: g.star_token.spans[0].start().line,
        }),
        syn::UseTree::Group(g) => {
            for item in &g.items {
                flatten(item, prefix, out);
            }
        }
    }
}

/// `a::b::C` binds `C`, `a::b::{self}` binds `b`, `a::b::C as D` binds `D`.
fn leaf(prefix: &[String], ident: &syn::Ident, rename: Option<&syn::Ident>) -> Leaf {
    let mut path = prefix.to_vec();
    let name = if ident == "self" {
        path.last().cloned().unwrap_or_default()
    } else {
        path.push(ident.to_string());
        ident.to_string()
    };
    Leaf {
        path,
        name: Some(rename.map_or(name, ToString::to_string)),
        line: ident.span().start().line,
    }
}

/// What a module declares at its top level: the items it defines, and what its `use`
/// items bring in (paths as written, relative to the module).
#[derive(Default)]
struct Scope {
    items: BTreeSet<String>,
    imports: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
}

/// The crate's modules, file and inline, with their scopes.
struct Crate {
    scopes: BTreeMap<Module, Scope>,
}

impl Crate {
    fn new(sources: &[Source], files: &[syn::File]) -> Crate {
        let mut krate = Crate {
            scopes: BTreeMap::new(),
        };
        for (source, file) in sources.iter().zip(files) {
            krate.declare(&source.module, &file.items, source.dir.as_deref());
        }
        krate
    }

    fn declare(&mut self, module: &Module, items: &[syn::Item], dir: Option<&Path>) {
        self.scopes.entry(module.clone()).or_default();
        for item in items {
            let name = match item {
                syn::Item::Const(i) => Some(&i.ident),
                syn::Item::Enum(i) => Some(&i.ident),
                syn::Item::ExternCrate(i) => Some(i.rename.as_ref().map_or(&i.ident, |r| &r.1)),
                syn::Item::Fn(i) => Some(&i.sig.ident),
                syn::Item::Macro(i) => i.ident.as_ref(),
                syn::Item::Static(i) => Some(&i.ident),
                syn::Item::Struct(i) => Some(&i.ident),
                syn::Item::Trait(i) => Some(&i.ident),
                syn::Item::TraitAlias(i) => Some(&i.ident),
                syn::Item::Type(i) => Some(&i.ident),
                syn::Item::Union(i) => Some(&i.ident),
                syn::Item::Mod(m) => {
                    let mut child = module.clone();
                    child.push(m.ident.to_string());
                    if let Some((_, content)) = &m.content {
                        self.declare(&child, content, dir);
                    } else if let Some((file, text)) = path_attribute(m, dir) {
                        let parsed = parse(&file.display().to_string(), &text);
                        self.declare(&child, &parsed.items, file.parent());
                    }
                    None
                }
                syn::Item::Use(u) => {
                    if u.leading_colon.is_none() {
                        let mut leaves = Vec::new();
                        flatten(&u.tree, &mut Vec::new(), &mut leaves);
                        let scope = self.scopes.get_mut(module).unwrap();
                        for leaf in leaves {
                            match leaf.name {
                                Some(name) => {
                                    scope.imports.insert(name, leaf.path);
                                }
                                None => scope.globs.push(leaf.path),
                            }
                        }
                    }
                    None
                }
                _ => None,
            };
            if let Some(name) = name {
                let scope = self.scopes.get_mut(module).unwrap();
                scope.items.insert(name.to_string());
            }
        }
    }

    fn child(&self, module: &[String], name: &str) -> Option<Module> {
        let mut child = module.to_vec();
        child.push(name.to_string());
        self.scopes.contains_key(&child).then_some(child)
    }

    /// Whether a path written in `at` that starts with `first` is one of this crate's.
    fn is_ours(&self, first: &str, at: &[String]) -> bool {
        matches!(first, "crate" | "super" | "self")
            || self.child(at, first).is_some()
            || self
                .scopes
                .get(at)
                .is_some_and(|s| s.imports.contains_key(first))
    }

    /// A path as written in module `at`, from the crate root; none when it leaves the
    /// crate (`std::…`, another crate, too many `super`s).
    fn absolute(&self, raw: &[String], at: &[String], depth: usize) -> Option<Module> {
        let first = raw.first()?;
        match first.as_str() {
            "crate" => Some(raw[1..].to_vec()),
            "self" | "super" => {
                let mut base = at.to_vec();
                let mut rest = raw;
                if rest[0] == "self" {
                    rest = &rest[1..];
                }
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                Some(base)
            }
            name => {
                let joined = |base: &[String], rest: &[String]| -> Module {
                    base.iter().chain(rest).cloned().collect()
                };
                if self.child(at, name).is_some() {
                    return Some(joined(at, raw));
                }
                let scope = self.scopes.get(at)?;
                if let Some(target) = scope.imports.get(name) {
                    if depth > 16 || target == raw {
                        return None;
                    }
                    let base = self.absolute(target, at, depth + 1)?;
                    return Some(joined(&base, &raw[1..]));
                }
                if scope.items.contains(name) {
                    return Some(joined(at, raw));
                }
                None
            }
        }
    }

    /// Whether module `at` has `name`: an item, an import or a child module.
    fn has(&self, at: &[String], name: &str) -> bool {
        self.child(at, name).is_some()
            || self
                .scopes
                .get(at)
                .is_some_and(|s| s.items.contains(name) || s.imports.contains_key(name))
    }

    /// The deepest module on an absolute path, as written.
    fn deepest(&self, path: &[String]) -> Module {
        let mut current: Module = Vec::new();
        for segment in path {
            match self.child(&current, segment) {
                Some(child) => current = child,
                None => break,
            }
        }
        current
    }

    /// The module an absolute path names: the deepest module on it, followed through the
    /// `use` items (and globs) of the module where it stops to the module that defines
    /// the item.
    fn resolve(&self, path: &[String], depth: usize) -> Module {
        let mut current: Module = Vec::new();
        for (index, segment) in path.iter().enumerate() {
            if let Some(child) = self.child(&current, segment) {
                current = child;
                continue;
            }
            let Some(scope) = self.scopes.get(&current) else {
                break;
            };
            if scope.items.contains(segment) || depth > 16 {
                break;
            }
            if let Some(target) = scope.imports.get(segment) {
                if let Some(base) = self.absolute(target, &current, depth + 1) {
                    let next: Module = base.into_iter().chain(path[index + 1..].to_vec()).collect();
                    return self.resolve(&next, depth + 1);
                }
                break;
            }
            for glob in &scope.globs {
                let Some(base) = self.absolute(glob, &current, depth + 1) else {
                    continue;
                };
                if self.scopes.contains_key(&base) && self.has(&base, segment) {
                    let next: Module = base.into_iter().chain(path[index..].to_vec()).collect();
                    return self.resolve(&next, depth + 1);
                }
            }
            break;
        }
        current
    }
}

/// A path of this crate found in a module: where, and the absolute path it names.
struct Found {
    from: Module,
    path: Module,
    at: String,
}

/// Walks one file's syntax tree and collects every path of the crate in it.
struct Collector<'a> {
    krate: &'a Crate,
    shown: String,
    dir: Option<PathBuf>,
    module: Module,
    found: Vec<Found>,
}

impl Collector<'_> {
    fn record(&mut self, raw: &[String], line: usize) {
        if let Some(path) = self.krate.absolute(raw, &self.module, 0) {
            self.found.push(Found {
                from: self.module.clone(),
                path,
                at: format!("{}:{line}", self.shown),
            });
        }
    }

    fn record_use(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        let mut leaves = Vec::new();
        flatten(tree, prefix, &mut leaves);
        for leaf in leaves {
            self.record(&leaf.path, leaf.line);
        }
    }

    /// The paths in the tokens of a macro call or an attribute: `crate :: a :: b`, also
    /// after `$`, and a `{…}` group after `::` read as a `use` group.
    fn scan(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let colons = |at: usize| {
            matches!(
                (trees.get(at), trees.get(at + 1)),
                (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                    if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
            )
        };
        let mut index = 0;
        while index < trees.len() {
            match &trees[index] {
                TokenTree::Group(group) => {
                    self.scan(group.stream());
                    index += 1;
                }
                TokenTree::Ident(first)
                    if colons(index + 1)
                        && !(index >= 2 && colons(index - 2))
                        && self.krate.is_ours(&first.to_string(), &self.module) =>
                {
                    let line = first.span().start().line;
                    let mut raw = vec![first.to_string()];
                    let mut next = index + 1;
                    let mut group = None;
                    while colons(next) {
                        match trees.get(next + 2) {
                            Some(TokenTree::Ident(segment)) => {
                                raw.push(segment.to_string());
                                next += 3;
                            }
                            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                                group = Some(g.stream());
                                next += 3;
                                break;
                            }
                            _ => break,
                        }
                    }
                    match group {
                        Some(stream) => {
                            let items =
                                Punctuated::<syn::UseTree, syn::Token![,]>::parse_terminated
                                    .parse2(stream)
                                    .unwrap_or_default();
                            for item in &items {
                                self.record_use(item, &mut raw.clone());
                            }
                        }
                        None => self.record(&raw, line),
                    }
                    index = next;
                }
                _ => index += 1,
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        for attr in &item.attrs {
            self.visit_attribute(attr);
        }
        self.module.push(item.ident.to_string());
        if let Some((_, content)) = &item.content {
            for inner in content {
                self.visit_item(inner);
            }
        } else if let Some((file, text)) = path_attribute(item, self.dir.as_deref()) {
            let parsed = parse(&file.display().to_string(), &text);
            let shown = std::mem::replace(&mut self.shown, file.display().to_string());
            let dir = std::mem::replace(&mut self.dir, file.parent().map(Path::to_path_buf));
            self.visit_file(&parsed);
            self.shown = shown;
            self.dir = dir;
        }
        self.module.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        for attr in &item.attrs {
            self.visit_attribute(attr);
        }
        if item.leading_colon.is_none() {
            self.record_use(&item.tree, &mut Vec::new());
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() && path.segments.len() >= 2 {
            let first = path.segments[0].ident.to_string();
            if self.krate.is_ours(&first, &self.module) {
                let raw: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
                self.record(&raw, path.segments[0].ident.span().start().line);
            }
        }
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        visit::visit_macro(self, mac);
        self.scan(mac.tokens.clone());
    }

    fn visit_meta_list(&mut self, list: &'ast syn::MetaList) {
        visit::visit_meta_list(self, list);
        self.scan(list.tokens.clone());
    }
}

/// Module edges `from → to`, each with the first place that makes it.
type Edges = BTreeMap<(String, String), String>;

/// Every module edge of a tree.
fn edges(sources: &[Source]) -> Edges {
    let files: Vec<syn::File> = sources.iter().map(|s| parse(&s.shown, &s.text)).collect();
    let krate = Crate::new(sources, &files);
    let mut out = BTreeMap::new();
    for (source, file) in sources.iter().zip(&files) {
        let mut collector = Collector {
            krate: &krate,
            shown: source.shown.clone(),
            dir: source.dir.clone(),
            module: source.module.clone(),
            found: Vec::new(),
        };
        collector.visit_file(file);
        for found in collector.found {
            // The module that defines the item, and the one the path itself names when
            // that is another (a re-export): the path depends on both.
            let defined = krate.resolve(&found.path, 0);
            let named = krate.deepest(&found.path);
            for to in [defined, named] {
                let related = found.from.starts_with(&to) || to.starts_with(&found.from);
                if !related {
                    out.entry((found.from.join("::"), to.join("::")))
                        .or_insert_with(|| found.at.clone());
                }
            }
        }
    }
    out
}

/// The edges of the stages crate, read once for the tests here.
fn stage_edges() -> &'static Edges {
    static EDGES: OnceLock<Edges> = OnceLock::new();
    EDGES.get_or_init(|| edges(&sources(&src_dir("tfsum-stages"))))
}

fn rank(order: &[&str], name: &str) -> Option<usize> {
    order.iter().position(|l| *l == name)
}

/// The edges of the stages crate that run back along the pipeline.
fn wrong_way(edges: &Edges) -> Vec<String> {
    let mut wrong = Vec::new();
    for ((from, to), at) in edges {
        let (f, t): (Vec<&str>, Vec<&str>) = (from.split("::").collect(), to.split("::").collect());
        if let (Some(a), Some(b)) = (rank(&STAGES, f[0]), rank(&STAGES, t[0])) {
            if b < a {
                wrong.push(format!("{at}: {from} uses {to}, a later stage"));
            }
        }
    }
    wrong
}

/// The cycles of the module graph, each as `a -> b -> a`.
fn cycles(edges: &Edges) -> Vec<String> {
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        graph.entry(from).or_default().push(to);
    }
    // Depth-first search; a back edge closes a cycle.
    fn visit<'a>(
        node: &'a str,
        graph: &BTreeMap<&'a str, Vec<&'a str>>,
        state: &mut BTreeMap<&'a str, bool>,
        stack: &mut Vec<&'a str>,
        cycles: &mut Vec<String>,
    ) {
        state.insert(node, false);
        stack.push(node);
        for &next in graph.get(node).into_iter().flatten() {
            match state.get(next) {
                None => visit(next, graph, state, stack, cycles),
                Some(false) => {
                    let start = stack.iter().position(|n| *n == next).unwrap_or(0);
                    let mut cycle: Vec<&str> = stack[start..].to_vec();
                    cycle.push(next);
                    cycles.push(cycle.join(" -> "));
                }
                Some(true) => {}
            }
        }
        stack.pop();
        state.insert(node, true);
    }
    let mut state = BTreeMap::new();
    let mut found = Vec::new();
    for &node in graph.keys() {
        if !state.contains_key(node) {
            visit(node, &graph, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
}

#[test]
fn stages_are_used_in_pipeline_order() {
    let edges = stage_edges();
    let wrong = wrong_way(edges);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The checker must see the edges it judges: the pipeline's own uses are among them.
    for (from, to) in [
        ("write", "root"),
        ("load", "discover"),
        ("write", "resolve"),
    ] {
        assert!(
            edges.contains_key(&(from.into(), to.into())),
            "no edge {from} -> {to}"
        );
    }
}

#[test]
fn no_crate_has_a_module_cycle() {
    let mut found = Vec::new();
    for krate in CRATES {
        let cycles = cycles(&edges(&sources(&src_dir(krate))));
        found.extend(cycles.into_iter().map(|c| format!("{krate}: {c}")));
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

/// The layer crates a manifest depends on (`[dependencies]`, target tables too; not
/// `[dev-dependencies]`, whose test doubles may come from anywhere below).
fn layer_dependencies(manifest: &str) -> Vec<String> {
    let table: toml::Table = toml::from_str(manifest).expect("a Cargo manifest");
    let mut tables: Vec<&toml::Table> = Vec::new();
    if let Some(deps) = table.get("dependencies").and_then(|d| d.as_table()) {
        tables.push(deps);
    }
    if let Some(targets) = table.get("target").and_then(|t| t.as_table()) {
        for target in targets.values() {
            if let Some(deps) = target.get("dependencies").and_then(|d| d.as_table()) {
                tables.push(deps);
            }
        }
    }
    tables
        .into_iter()
        .flat_map(|t| t.keys())
        .filter(|name| CRATES.contains(&name.as_str()))
        .cloned()
        .collect()
}

/// The dependencies of `krate` (its manifest's text) that run up a layer or join a pair
/// kept apart.
fn upward(krate: &str, manifest: &str) -> Vec<String> {
    let rank_of = |name: &str| rank(&CRATES, name).unwrap_or(usize::MAX);
    layer_dependencies(manifest)
        .into_iter()
        .filter_map(|dep| {
            if rank_of(&dep) <= rank_of(krate) {
                Some(format!("{krate} depends on {dep}, a layer at or above it"))
            } else if APART.contains(&(krate, dep.as_str())) {
                Some(format!(
                    "{krate} depends on {dep}; {krate} must not use {dep}"
                ))
            } else {
                None
            }
        })
        .collect()
}

/// The workspace's crates are exactly the layers, and each depends only on layers
/// below it (configuration not on the network): the layering, read from the manifests
/// Cargo builds with. Planted upward dependencies must be found.
#[test]
fn crates_depend_only_on_the_layers_below() {
    let root = repo_root();
    let mut members: Vec<String> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    members.sort();
    let mut layers: Vec<String> = CRATES[1..].iter().map(ToString::to_string).collect();
    layers.sort();
    assert_eq!(
        members, layers,
        "crates/ holds exactly the layers below tfsum"
    );
    let mut wrong = Vec::new();
    for krate in CRATES {
        let manifest = match krate {
            "tfsum" => root.join("Cargo.toml"),
            other => root.join("crates").join(other).join("Cargo.toml"),
        };
        let text = std::fs::read_to_string(&manifest).unwrap();
        let deps = layer_dependencies(&text);
        if krate != "tfsum-vocab" {
            assert!(!deps.is_empty(), "{krate}: no layer found in {text}");
        }
        wrong.extend(upward(krate, &text));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    for (krate, manifest, expected) in [
        (
            "tfsum-disk",
            "[dependencies]\ntfsum-vocab = { workspace = true }\ntfsum-stages = { workspace = true }\n",
            "tfsum-disk depends on tfsum-stages, a layer at or above it",
        ),
        (
            "tfsum-net",
            "[target.'cfg(unix)'.dependencies]\ntfsum-report = { path = \"../tfsum-report\" }\n",
            "tfsum-net depends on tfsum-report, a layer at or above it",
        ),
        (
            "tfsum-config",
            "[dependencies]\ntfsum-net = { workspace = true }\n",
            "tfsum-config must not use tfsum-net",
        ),
    ] {
        let found = upward(krate, manifest);
        assert!(
            found.iter().any(|w| w.contains(expected)),
            "{expected}: {found:?}"
        );
    }
}

/// A small stages crate that keeps every rule; each planted violation is added to one of
/// its files. `write` comes after `hash`, which comes after `discover`, then `root` and
/// `warning` (see [`STAGES`]).
fn clean_tree() -> Vec<(&'static str, String)> {
    [
        (
            "lib.rs",
            "pub mod discover;\npub mod hash;\npub mod root;\npub mod warning;\npub mod write;\n\
             pub use write::Report as Written;\n",
        ),
        ("root.rs", "pub struct Root;\n"),
        ("warning.rs", "pub mod kinds;\npub mod more;\n"),
        ("warning/kinds.rs", "pub struct Kind;\n"),
        ("warning/more.rs", "pub struct More;\n"),
        (
            "discover.rs",
            "use crate::root::Root;\npub fn discover() -> Root {\n    Root\n}\n",
        ),
        (
            "hash.rs",
            "use super::root::Root;\nuse crate::warning::kinds::Kind;\npub struct Hashes;\n\
             pub fn hash(_: &Root, _: Kind) -> Hashes {\n    Hashes\n}\n",
        ),
        (
            "write.rs",
            "use super::hash::Hashes;\npub use crate::root::Root as Start;\npub struct Report;\n\
             pub fn write(_: Hashes) -> Report {\n    Report\n}\n\
             impl Report {\n    pub fn new() -> Self {\n        Report\n    }\n}\n",
        ),
    ]
    .into_iter()
    .map(|(path, text)| (path, text.to_string()))
    .collect()
}

/// One planted violation: its form, the file it goes into, the code, and what the checker
/// must report.
const PLANTED: &[(&str, &str, &str, &str)] = &[
    (
        "a single-line use",
        "discover.rs",
        "use crate::write::Report;\n",
        "discover uses write, a later stage",
    ),
    (
        "a multi-line group (as rustfmt writes it)",
        "root.rs",
        "use crate::{\n    warning::kinds::Kind,\n    hash::Hashes,\n};\n",
        "root uses hash, a later stage",
    ),
    (
        "a nested group",
        "warning/kinds.rs",
        "use crate::{warning::{more::More}, write::{Report}};\n",
        "warning::kinds uses write, a later stage",
    ),
    (
        "an item after an inner `}`",
        "root.rs",
        "use crate::{warning::{kinds::Kind}, discover::discover};\n",
        "root uses discover, a later stage",
    ),
    (
        "super::super::{…}",
        "warning/kinds.rs",
        "use super::super::{hash::Hashes};\n",
        "warning::kinds uses hash, a later stage",
    ),
    (
        "a group after a module path",
        "hash.rs",
        "use crate::write::{Report};\n",
        "hash uses write, a later stage",
    ),
    (
        "an inline crate:: path without use",
        "root.rs",
        "pub fn client() {\n    let _ = crate::write::Report::new();\n}\n",
        "root uses write, a later stage",
    ),
    (
        "a renamed import",
        "discover.rs",
        "use crate::hash::{Hashes as Client};\n",
        "discover uses hash, a later stage",
    ),
    (
        "a renamed module, used through its new name",
        "hash.rs",
        "use crate::write as out;\npub fn f(_: out::Report) {}\n",
        "hash uses write, a later stage",
    ),
    (
        "a glob",
        "root.rs",
        "use crate::hash::*;\n",
        "root uses hash, a later stage",
    ),
    (
        "self in a group",
        "discover.rs",
        "use crate::hash::{self};\n",
        "discover uses hash, a later stage",
    ),
    (
        "a re-export, followed to the module that defines the item",
        "hash.rs",
        "use crate::Written;\n",
        "hash uses write, a later stage",
    ),
    (
        "an item a later stage re-exports from an earlier one",
        "discover.rs",
        "use crate::write::Start as S;\n",
        "discover uses write, a later stage",
    ),
    (
        "a module brought in by use, then a path through it",
        "root.rs",
        "use crate::hash;\npub fn f() {\n    hash::hash(todo!(), todo!());\n}\n",
        "root uses hash, a later stage",
    ),
    (
        "an inline super:: path",
        "root.rs",
        "pub fn f() -> super::hash::Hashes {\n    todo!()\n}\n",
        "root uses hash, a later stage",
    ),
    (
        "a path split over lines",
        "discover.rs",
        "pub fn f() {\n    crate::write\n        ::Report::new();\n}\n",
        "discover uses write, a later stage",
    ),
    (
        "a use inside a function body",
        "warning/more.rs",
        "pub fn f() {\n    use crate::discover::discover;\n}\n",
        "warning::more uses discover, a later stage",
    ),
    (
        "a path inside a macro call",
        "root.rs",
        "pub fn f() {\n    println!(\"{:?}\", crate::hash::Hashes);\n}\n",
        "root uses hash, a later stage",
    ),
    (
        "a use group inside a macro call",
        "root.rs",
        "thread_local! {\n    static C: () = { use crate::{hash::Hashes}; };\n}\n",
        "root uses hash, a later stage",
    ),
    (
        "a path inside an attribute",
        "root.rs",
        "#[derive(thiserror::Error)]\n#[error(\"{}\", crate::write::Report)]\npub struct Stop;\n",
        "root uses write, a later stage",
    ),
    (
        "a use in an inline module",
        "warning.rs",
        "#[cfg(test)]\nmod tests {\n    use crate::write::Report;\n}\n",
        "warning::tests uses write, a later stage",
    ),
    (
        "a cycle inside a stage",
        "warning/kinds.rs",
        "use super::more::More;\n",
        "cycle",
    ),
];

/// What the checker reports for a tree: wrong-way edges, then cycles.
fn problems(sources: &[Source]) -> Vec<String> {
    let edges = edges(sources);
    let mut out = wrong_way(&edges);
    out.extend(cycles(&edges).into_iter().map(|c| format!("cycle: {c}")));
    out
}

#[test]
fn every_import_form_is_seen() {
    let clean = clean_tree();
    let base = problems(&tree(&clean));
    assert!(base.is_empty(), "the clean tree: {}", base.join("\n"));
    let base_edges = edges(&tree(&clean));
    for (from, to) in [
        ("write", "hash"),
        ("write", "root"),
        ("hash", "warning::kinds"),
        ("discover", "root"),
    ] {
        assert!(
            base_edges.contains_key(&(from.into(), to.into())),
            "the clean tree has no edge {from} -> {to}: {base_edges:?}"
        );
    }
    let mut missed = Vec::new();
    for &(form, file, code, expected) in PLANTED {
        let mut files = clean.clone();
        // The other half of the planted cycle.
        if expected == "cycle" {
            let more = files.iter_mut().find(|(p, _)| *p == "warning/more.rs");
            more.unwrap().1.push_str("use super::kinds::Kind;\n");
        }
        let target = files.iter_mut().find(|(p, _)| *p == file).unwrap();
        target.1.push_str(code);
        let found = problems(&tree(&files));
        if !found.iter().any(|p| p.contains(expected)) {
            missed.push(format!(
                "{form} in {file} passed: wanted \"{expected}\", got {found:?}"
            ));
        }
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// The eight forms of issue 36, planted in a copy of the stages crate (one file each; the
/// items need not exist, a path ends in the deepest module on it).
const PLANTED_IN_STAGES: &[(&str, &str, &str)] = &[
    (
        "root.rs",
        "use crate::write::Planted;\n",
        "root uses write, a later stage",
    ),
    (
        "warning.rs",
        "use crate::{\n    root::Planted,\n    load::Planted,\n};\n",
        "warning uses load, a later stage",
    ),
    (
        "parallel.rs",
        "use crate::{root::{Planted}, hash::{Planted}};\n",
        "parallel uses hash, a later stage",
    ),
    (
        "discover.rs",
        "use crate::{root::{Planted}, resolve::Planted};\n",
        "discover uses resolve, a later stage",
    ),
    (
        "resolve/plan.rs",
        "use super::super::{root::Planted, write::Planted};\n",
        "resolve::plan uses write, a later stage",
    ),
    (
        "load/mod.rs",
        "use crate::{write::{Planted}};\n",
        "load uses write, a later stage",
    ),
    (
        "hash.rs",
        "pub(crate) fn planted() {\n    crate::install::Planted::new();\n}\n",
        "hash uses install, a later stage",
    ),
    (
        "discover.rs",
        "use crate::publish::{Planted as Renamed};\n",
        "discover uses publish, a later stage",
    ),
];

#[test]
fn every_import_form_planted_in_the_stages_is_found() {
    let dir = src_dir("tfsum-stages");
    let mut sources = sources(&dir);
    for (file, code, _) in PLANTED_IN_STAGES {
        let shown = format!("{dir}/{file}");
        let source = sources.iter_mut().find(|s| s.shown == shown);
        let source = source.unwrap_or_else(|| panic!("no {shown} to plant in: choose another"));
        source.text.push_str(code);
    }
    let found = wrong_way(&edges(&sources));
    let missed: Vec<&str> = PLANTED_IN_STAGES
        .iter()
        .filter(|(_, _, expected)| !found.iter().any(|p| p.ends_with(expected)))
        .map(|(_, code, _)| *code)
        .collect();
    assert!(missed.is_empty(), "passed: {missed:?}\nfound: {found:#?}");
}
