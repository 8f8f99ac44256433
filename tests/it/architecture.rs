//! The shape of the code, checked: the layers of `src/` (docs/design.md, "Layers") are used
//! only downward, the stages only in pipeline order, the module graph has no cycle, and
//! every "spec §" a comment cites is a section that exists in `docs/spec/`.
//!
//! The import graph is read from the source text: each `crate::…` and `super::…` path in
//! a line that is not a comment, resolved to the module file it names (following a
//! `mod.rs`'s re-exports to the module that defines the item). An inline `mod tests` is a
//! module of its own, a child of the file's module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;

use crate::support::terraform::repo_root;

/// Top to bottom: a layer may use the ones after it.
const LAYERS: [&str; 8] = [
    "commands", "report", "stages", "config", "sources", "net", "disk", "vocab",
];

/// The pipeline, last stage first: a stage may use the ones after it. A root and the
/// ways it stops, and the warnings, are below every stage.
const STAGES: [&str; 7] = [
    "write", "hash", "resolve", "load", "discover", "root", "warning",
];

type Module = Vec<String>;

struct Source {
    module: Module,
    path: PathBuf,
    text: String,
}

fn sources() -> Vec<Source> {
    let src = repo_root().join("src");
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(&src).sort_by_file_name() {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let rel = path.strip_prefix(&src).unwrap().with_extension("");
        let mut module: Module = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        if module.last().map(String::as_str) == Some("mod") {
            module.pop();
        }
        if module == ["lib"] || module == ["main"] {
            continue;
        }
        out.push(Source {
            module,
            path: path.to_path_buf(),
            text: std::fs::read_to_string(path).unwrap(),
        });
    }
    out
}

/// Every module edge `from → to` with the line that makes it.
fn edges(sources: &[Source]) -> BTreeMap<(String, String), String> {
    let modules: BTreeSet<Module> = sources.iter().map(|s| s.module.clone()).collect();
    let reexports = reexports(sources);
    let path_re = Regex::new(r"\b(crate|super)((?:::super)*)::([a-z_]\w*(?:::\w+)*)").unwrap();
    let group_re = Regex::new(r"\b(crate|super)::\{([^}]*)\}").unwrap();
    let tests_re = Regex::new(r"^mod tests\s*\{").unwrap();
    let mut out = BTreeMap::new();
    for source in sources {
        let mut current = source.module.clone();
        for (index, line) in source.text.lines().enumerate() {
            let trimmed = line.trim();
            if trimmed.starts_with("//") {
                continue;
            }
            if tests_re.is_match(trimmed) {
                current = source.module.clone();
                current.push("tests".to_string());
            }
            let mut targets: Vec<Module> = Vec::new();
            for caps in path_re.captures_iter(line) {
                let rest: Module = caps[3].split("::").map(str::to_string).collect();
                let supers = 1 + caps[2].matches("super").count();
                targets.push(absolute(&caps[1], supers, &current, rest));
            }
            for caps in group_re.captures_iter(line) {
                for item in caps[2].split(',') {
                    let item = item.split(" as ").next().unwrap_or("").trim();
                    if item.is_empty() || item == "self" {
                        continue;
                    }
                    let rest: Module = item.split("::").map(str::to_string).collect();
                    targets.push(absolute(&caps[1], 1, &current, rest));
                }
            }
            for target in targets {
                let Some(to) = resolve(&target, &modules, &reexports) else {
                    continue;
                };
                let (from, to) = (current.join("::"), to.join("::"));
                let related = from == to
                    || from.starts_with(&format!("{to}::"))
                    || to.starts_with(&format!("{from}::"));
                if !related {
                    let at = format!("{}:{}", source.path.display(), index + 1);
                    out.entry((from, to)).or_insert(at);
                }
            }
        }
    }
    out
}

fn absolute(kind: &str, supers: usize, current: &Module, rest: Module) -> Module {
    match kind {
        "crate" => rest,
        _ => {
            let keep = current.len().saturating_sub(supers);
            current[..keep].iter().cloned().chain(rest).collect()
        }
    }
}

/// Per module, the items its `pub use` lines re-export and the module they come from.
fn reexports(sources: &[Source]) -> BTreeMap<Module, BTreeMap<String, Module>> {
    let use_re = Regex::new(
        r"pub(?:\([a-z]+\))? use ((?:crate|self|super)?(?:::)?[\w:]*?)::(\{[^}]*\}|\w+);",
    )
    .unwrap();
    let mut out: BTreeMap<Module, BTreeMap<String, Module>> = BTreeMap::new();
    for source in sources {
        for caps in use_re.captures_iter(&source.text) {
            let base: Vec<&str> = caps[1].split("::").filter(|p| !p.is_empty()).collect();
            let target: Module = match base.first() {
                Some(&"crate") => base[1..].iter().map(|s| s.to_string()).collect(),
                Some(&"super") => {
                    let parent = &source.module[..source.module.len().saturating_sub(1)];
                    parent
                        .iter()
                        .cloned()
                        .chain(base[1..].iter().map(|s| s.to_string()))
                        .collect()
                }
                Some(&"self") => source
                    .module
                    .iter()
                    .cloned()
                    .chain(base[1..].iter().map(|s| s.to_string()))
                    .collect(),
                _ => source
                    .module
                    .iter()
                    .cloned()
                    .chain(base.iter().map(|s| s.to_string()))
                    .collect(),
            };
            for item in caps[2].trim_matches(|c| c == '{' || c == '}').split(',') {
                let name = item.rsplit(" as ").next().unwrap_or("").trim();
                if !name.is_empty() {
                    out.entry(source.module.clone())
                        .or_default()
                        .insert(name.to_string(), target.clone());
                }
            }
        }
    }
    out
}

/// The module a path names: its longest prefix that is a module, or the module a
/// re-export of its next segment points to.
fn resolve(
    path: &Module,
    modules: &BTreeSet<Module>,
    reexports: &BTreeMap<Module, BTreeMap<String, Module>>,
) -> Option<Module> {
    let found = (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|prefix| modules.contains(prefix))?;
    let next = path.get(found.len());
    let via = next.and_then(|item| reexports.get(&found)?.get(item));
    match via {
        Some(target) => (1..=target.len())
            .rev()
            .map(|n| target[..n].to_vec())
            .find(|prefix| modules.contains(prefix))
            .or(Some(found)),
        None => Some(found),
    }
}

fn rank(order: &[&str], name: &str) -> Option<usize> {
    order.iter().position(|l| *l == name)
}

#[test]
fn layers_are_used_only_downward_and_stages_in_pipeline_order() {
    let edges = edges(&sources());
    let mut wrong = Vec::new();
    for ((from, to), at) in &edges {
        let (f, t): (Vec<&str>, Vec<&str>) = (from.split("::").collect(), to.split("::").collect());
        if let (Some(a), Some(b)) = (rank(&LAYERS, f[0]), rank(&LAYERS, t[0])) {
            if b < a {
                wrong.push(format!("{at}: {from} uses {to}, a layer above it"));
            }
        }
        if f[0] == "stages" && t[0] == "stages" && f.len() > 1 && t.len() > 1 {
            if let (Some(a), Some(b)) = (rank(&STAGES, f[1]), rank(&STAGES, t[1])) {
                if b < a {
                    wrong.push(format!("{at}: {from} uses {to}, a later stage"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The checker must see the edges it judges: the pipeline's own uses are among them.
    assert!(edges.contains_key(&("stages::write".into(), "stages::root".into())));
    assert!(edges.contains_key(&("commands::lock".into(), "stages::load".into())));
}

#[test]
fn the_module_graph_has_no_cycle() {
    let edges = edges(&sources());
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
    let mut cycles = Vec::new();
    for &node in graph.keys() {
        if !state.contains_key(node) {
            visit(node, &graph, &mut state, &mut Vec::new(), &mut cycles);
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The headings of a spec file, as section numbers: `## 5. …` → `5`, `### 5.4 …` → `5.4`.
fn sections(file: &Path) -> BTreeSet<String> {
    let heading = Regex::new(r"^#{2,4} (\d+(?:\.\d+)*)\.? ").unwrap();
    std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .lines()
        .filter_map(|line| heading.captures(line).map(|c| c[1].to_string()))
        .collect()
}

#[test]
fn every_spec_reference_names_a_section_that_exists() {
    let root = repo_root();
    let spec_dir = root.join("docs/spec");
    // "spec §5.4", "spec §1.2–1.7", "docs/spec/modules.md §7".
    let reference =
        Regex::new(r"(docs/spec/[\w-]+\.md |spec )§(\d+(?:\.\d+)*)(?:[–-](\d+(?:\.\d+)*))?")
            .unwrap();
    let mut checked = 0;
    let mut missing = Vec::new();
    for dir in ["src", "tests", "benches", "docs", "fuzz/fuzz_targets"] {
        for entry in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name() {
            let entry = entry.unwrap();
            let is_text = matches!(
                entry.path().extension().and_then(|e| e.to_str()),
                Some("rs" | "md")
            );
            if !entry.file_type().is_file() || !is_text {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            for (index, line) in text.lines().enumerate() {
                for caps in reference.captures_iter(line) {
                    let file = match caps[1].trim() {
                        "spec" => spec_dir.join("lock-file.md"),
                        named => root.join(named),
                    };
                    let known = sections(&file);
                    for section in [caps.get(2), caps.get(3)].into_iter().flatten() {
                        checked += 1;
                        if !known.contains(section.as_str()) {
                            missing.push(format!(
                                "{}:{}: {} has no section {}",
                                entry.path().strip_prefix(&root).unwrap().display(),
                                index + 1,
                                file.strip_prefix(&root).unwrap().display(),
                                section.as_str()
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    assert!(
        checked > 150,
        "only {checked} references found: is the pattern right?"
    );
}
