//! Unit tests over the fixture Terragrunt repository `testdata/terragrunt/repo/`.
//!
//! The fixture lives inside tfsum's own git repository, so every test passes the fixture
//! directory as the repository root instead of asking [`find_repo_root`].

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::eval::{context, evaluate, with_scope, Includes, Locals, ResolvedInclude, Scope};
use super::parse::parse_text;
use super::*;
use crate::paths;
use crate::tree::LocalModules;
use tfsum_vocab::addr::TERRAFORM_REGISTRY;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the repository")
        .join("testdata/terragrunt/repo")
}

fn rel(path: &Path) -> String {
    let base = repo();
    paths::slash(path.strip_prefix(&base).unwrap_or(path))
}

/// One unit's outcome as lines: the source, the overlay (name ← origin:line), then each
/// requirement as `ADDRESS [CONSTRAINT @ FILE:LINE] (DECLARING DIR)`.
fn describe(unit: &str) -> Vec<String> {
    let config = match load_unit(&repo().join(unit), &repo()) {
        Ok(config) => config,
        Err(e) => {
            return vec![format!(
                "error: {}",
                e.to_string().replace(&paths::slash(&repo()), "<repo>")
            )]
        }
    };
    assert_eq!(
        config.lock_file(),
        repo().join(unit).join(".terraform.lock.hcl")
    );
    let mut out = vec![match &config.source {
        UnitSource::Local(dir) => format!("local {}", rel(dir)),
        UnitSource::Remote { text, .. } => format!("remote {text}"),
        UnitSource::Fetched { text, dir } => format!("fetched {text} in {}", rel(dir)),
        UnitSource::None => "none".to_string(),
    }];
    for file in &config.overlay {
        out.push(format!(
            "overlay {} <- {}:{}",
            file.name,
            rel(&file.origin),
            file.first_line
        ));
    }
    let values = crate::early::ValueInputs::default();
    let inputs =
        crate::early::RootInputs::new(crate::early::Rules::Terraform, &config.unit_dir, &values);
    match unit_requirements(
        &config,
        TERRAFORM_REGISTRY,
        &inputs,
        &mut LocalModules {
            default_host: TERRAFORM_REGISTRY,
        },
    ) {
        Ok(tree) => {
            if tree.pending > 0 {
                out.push(format!("waiting for {} remote module(s)", tree.pending));
            }
            for r in &tree.requirements {
                let constraint = r
                    .constraint
                    .as_ref()
                    .map(|c| format!(" {:?} @ {}:{}", c.text, rel(&c.at.file), c.at.line))
                    .unwrap_or_default();
                out.push(format!("{}{constraint} ({})", r.addr, rel(&r.declared_in)));
            }
            for w in &tree.warnings {
                out.push(format!("warning: {w}"));
            }
        }
        Err(e) => out.push(format!("requirements error: {e}")),
    }
    out
}

#[test]
fn units_and_their_requirements() {
    let cases: &[(&str, &[&str])] = &[
        (
            // root.hcl: source "${get_repo_root()}/modules//${path_relative_to_include()}"
            // and a generated versions.tf; the module calls ../net.
            "live/app",
            &[
                "local modules/app",
                "overlay versions.tf <- live/root.hcl:24",
                "registry.terraform.io/hashicorp/null \">= 3.0.0\" @ modules/net/main.tf:5 (modules/net)",
                "registry.terraform.io/hashicorp/random \"~> 3.5\" @ live/root.hcl:28 (modules/app)",
            ],
        ),
        (
            // Own `//` source with an ignored ?ref=, own generate "versions" (<<-EOF).
            "live/db",
            &[
                "local modules/db",
                "overlay versions.tf <- live/db/terragrunt.hcl:15",
                "registry.terraform.io/hashicorp/tls \"4.0.5\" @ live/db/terragrunt.hcl:19 (modules/db)",
            ],
        ),
        (
            // A plain relative source; the unit's providers.tf is copied over the module.
            "live/relative",
            &[
                "local modules/vpc",
                "overlay providers.tf <- live/relative/providers.tf:1",
                "registry.terraform.io/hashicorp/aws \"~> 5.0\" @ modules/vpc/main.tf:5 (modules/vpc)",
                "registry.terraform.io/hashicorp/google (modules/vpc)",
            ],
        ),
        (
            // No source; the generated versions.tf replaces the one a previous run left
            // (it carries Terragrunt's signature); disabled and non-.tf files are dropped.
            "live/plain",
            &[
                "none",
                "overlay versions.tf <- live/plain/terragrunt.hcl:6",
                "registry.terraform.io/hashicorp/local \"2.4.0\" @ live/plain/terragrunt.hcl:10 (live/plain)",
            ],
        ),
        (
            // A remote source waits for the fetcher; the copy an earlier `terragrunt init`
            // left in .terragrunt-cache is never read (it may be stale).
            "live/cached",
            &[
                "remote git::https://github.com/acme/infrastructure-modules.git//vpc?ref=v1.0.0",
                "waiting for 1 remote module(s)",
            ],
        ),
        (
            // Two includes, one exposed: include.common.locals feeds the source, which
            // wins over root.hcl's; a disabled generate "versions" overrides root.hcl's.
            "live/exposed",
            &[
                "local modules/vpc",
                "registry.terraform.io/hashicorp/aws \"~> 5.0\" @ modules/vpc/main.tf:5 (modules/vpc)",
            ],
        ),
        (
            // Legacy bare include of find_in_parent_folders() and get_parent_terragrunt_dir().
            "live/legacy/child",
            &[
                "local modules/net",
                "registry.terraform.io/hashicorp/null \">= 3.0.0\" @ modules/net/main.tf:5 (modules/net)",
            ],
        ),
        (
            "live/git",
            &[
                "remote git::https://github.com/acme/infrastructure-modules.git//vpc?ref=v1.0.0",
                "waiting for 1 remote module(s)",
            ],
        ),
        (
            "live/broken",
            &["error: <repo>/live/broken/terragrunt.hcl:8:1: syntax error: invalid block body; expected `}`, newline or identifier"],
        ),
        (
            // The unsupported function is reported at the local that uses it.
            "live/unsupported",
            &["error: <repo>/live/unsupported/terragrunt.hcl:6: terraform.source is not known: get_env(\"MODULES_DIR\") is not called by tfsum, which reads no environment, command output or secret into a repository's configuration"],
        ),
    ];
    for (unit, want) in cases {
        assert_eq!(describe(unit), *want, "{unit}");
    }
}

/// A remote source is parsed as Terragrunt reads it, ready for the fetcher; one it cannot
/// read fails the unit at the line that set it.
#[test]
fn remote_sources_are_parsed_for_the_fetcher() {
    let unit = load_unit(&repo().join("live/git"), &repo()).unwrap();
    let UnitSource::Remote { source, .. } = &unit.source else {
        panic!("{:?}", unit.source)
    };
    assert_eq!(
        source.source.to_string(),
        "git::https://github.com/acme/infrastructure-modules.git//vpc?ref=v1.0.0"
    );
    assert_eq!(unit.module_dir(), None);

    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("terragrunt.hcl"),
        "\nterraform {\n  source = \"tfr:///acme/vpc/aws\"\n}\n",
    )
    .unwrap();
    let err = load_unit(tmp.path(), tmp.path()).unwrap_err().to_string();
    assert!(
        err.contains("terragrunt.hcl:3: terraform.source \"tfr:///acme/vpc/aws\": ")
            && err.contains("needs ?version="),
        "{err}"
    );
}

#[test]
fn finds_units_but_not_include_parents() {
    let root = repo();
    let candidates = |ignore: &[regex::Regex]| -> Vec<std::path::PathBuf> {
        tfsum_disk::walk::walk(&root, ignore)
            .unit_dirs
            .into_iter()
            .collect()
    };
    let found = find_units(&candidates(&[]), true);
    let found: Vec<String> = found.iter().map(|d| rel(d)).collect();
    // live/legacy is only an include parent; nothing under .terragrunt-cache counts.
    assert_eq!(
        found,
        [
            "live/app",
            "live/broken",
            "live/cached",
            "live/db",
            "live/exposed",
            "live/git",
            "live/legacy/child",
            "live/plain",
            "live/relative",
            "live/unsupported",
        ]
    );

    let ignore = [regex::Regex::new("^live/(git|broken)$").unwrap()];
    assert_eq!(find_units(&candidates(&ignore), true).len(), 8);

    // Named explicitly, a parent is a unit by the user's say-so.
    let legacy = tfsum_vocab::paths::normalize_path(&root.join("live/legacy"));
    assert_eq!(find_units(std::slice::from_ref(&legacy), false), [legacy]);
}

/// Every path function, evaluated for live/app both in the unit itself and in root.hcl
/// included by it.
#[test]
fn functions_answer_for_the_unit() {
    let repo_abs = paths::absolute(&repo());
    let unit_dir = repo_abs.join("live/app");
    let root_hcl = ResolvedInclude {
        label: "root".into(),
        path: repo_abs.join("live/root.hcl"),
    };
    let text = r#"
locals {
  tg_dir    = get_terragrunt_dir()
  orig_dir  = get_original_terragrunt_dir()
  parent    = get_parent_terragrunt_dir()
  repo      = get_repo_root()
  from_repo = get_path_from_repo_root()
  to_repo   = get_path_to_repo_root()
  to_inc    = path_relative_to_include()
  from_inc  = path_relative_from_include()
  root      = find_in_parent_folders("root.hcl")
  fallback  = find_in_parent_folders("nope.hcl", "none")
  common    = read_terragrunt_config("../_common/vpc.hcl").locals.unit_name
  fmt       = format("%s//%s", "a", lower("VPC"))
  joined    = join("/", split(",", "x,y"))
  base      = "${basename("/a/b/")}:${dirname("a/b/c")}:${trimsuffix(trimprefix(trimspace(" xay "), "x"), "y")}"
  swapped   = replace(upper("ab"), "A", "z")
}
"#;
    let file = parse_text(&unit_dir.join("terragrunt.hcl"), text).unwrap();
    let r = paths::slash(&repo_abs);
    let eval_in = |includes: Includes| {
        let scope = Scope {
            file: unit_dir.join("terragrunt.hcl"),
            config_path: unit_dir.join("terragrunt.hcl"),
            unit_dir: unit_dir.clone(),
            repo_root: repo_abs.clone(),
            includes,
            line: Default::default(),
        };
        let locals = with_scope(scope, || Locals::evaluate(&file.locals, &[])).unwrap();
        assert!(locals.failed.is_empty(), "{:?}", locals.failed);
        let mut got: Vec<(String, String)> = locals
            .values
            .iter()
            .map(|(k, v)| (k.clone(), v.as_string().unwrap_or_default()))
            .collect();
        got.sort();
        got
    };
    let expected = |to_inc: &str, from_inc: &str, parent: &str| {
        let mut want: Vec<(String, String)> = [
            ("tg_dir", format!("{r}/live/app")),
            ("orig_dir", format!("{r}/live/app")),
            ("parent", parent.to_string()),
            ("repo", r.clone()),
            ("from_repo", "live/app".into()),
            ("to_repo", "../..".into()),
            ("to_inc", to_inc.into()),
            ("from_inc", from_inc.into()),
            ("root", format!("{r}/live/root.hcl")),
            ("fallback", "none".into()),
            // read_terragrunt_config evaluates the file as its own config path.
            ("common", "_common".into()),
            ("fmt", "a//vpc".into()),
            ("joined", "x/y".into()),
            ("base", "b:a/b:a".into()),
            ("swapped", "zB".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        want.sort();
        want
    };
    // In root.hcl for live/app, and in live/app with its one include: the same answers.
    let in_parent = expected("app", "..", &format!("{r}/live"));
    assert_eq!(eval_in(Includes::Original(root_hcl.clone())), in_parent);
    assert_eq!(eval_in(Includes::Current(vec![root_hcl])), in_parent);
    // Without includes the include functions answer for the unit itself.
    assert_eq!(
        eval_in(Includes::Current(Vec::new())),
        expected(".", ".", &format!("{r}/live/app"))
    );

    // get_env is not called: its value is unknown, also inside a template, and says why.
    for text in [r#"get_env("X")"#, r#""${get_env("X")}//vpc""#] {
        let expr: hcl::Expression = text.parse().unwrap();
        let value = evaluate(&expr, &context(&[])).expect(text);
        let cause = value.first_unknown().cloned().flatten().unwrap_or_default();
        assert!(
            cause.contains("get_env(\"X\") is not called by tfsum"),
            "{text}: {value:?}"
        );
    }
    // A function neither Terragrunt nor Terraform has is named.
    let expr: hcl::Expression = "no_such_function(1)".parse().unwrap();
    assert_eq!(
        evaluate(&expr, &context(&[])),
        Err(eval::EvalFailure::UnsupportedFunction(
            "no_such_function".into()
        ))
    );

    // Outside any scope, functions fail instead of guessing.
    let expr: hcl::Expression = "get_repo_root()".parse().unwrap();
    assert!(evaluate(&expr, &context(&[])).is_err());
}

#[test]
fn repo_root_is_found_upward() {
    let tmp = tempfile::tempdir().unwrap();
    let unit = tmp.path().join("live/prod/app");
    std::fs::create_dir_all(&unit).unwrap();
    assert_eq!(find_repo_root(&unit), normalize_path(&unit));
    std::fs::create_dir_all(tmp.path().join(".git")).unwrap();
    assert_eq!(find_repo_root(&unit), normalize_path(tmp.path()));
}

/// A relative unit path gives relative module paths, so they match plain discovery's.
#[test]
fn paths_keep_the_callers_style() {
    let cwd = std::env::current_dir().unwrap();
    let Ok(rel_unit) = repo()
        .join("live/relative")
        .strip_prefix(&cwd)
        .map(Path::to_path_buf)
    else {
        return; // tests not run from the crate directory
    };
    let config = load_unit(&rel_unit, &repo()).unwrap();
    assert_eq!(
        config.source,
        UnitSource::Local(PathBuf::from("testdata/terragrunt/repo/modules/vpc"))
    );
}

/// Writes `files` (path, content) under a temporary repository and loads `unit` in it:
/// `ok` and the source, or the error with the repository's path left out.
fn load_generated(files: &[(String, String)], unit: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let path = tmp.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    let base = format!("{}/", paths::slash(tmp.path()));
    match load_unit(&tmp.path().join(unit), tmp.path()) {
        Ok(config) => format!("ok: {:?}", config.source).replace(&base, ""),
        Err(e) => e.to_string().replace(&base, ""),
    }
}

/// Files to write: (path below the repository, content).
type Files = Vec<(String, String)>;

fn files(list: &[(&str, &str)]) -> Files {
    list.iter()
        .map(|(p, c)| (p.to_string(), c.to_string()))
        .collect()
}

/// `locals { NAME = read_terragrunt_config("FILE") … }` for each (name, file).
fn reads(list: &[(&str, &str)]) -> String {
    let body: String = list
        .iter()
        .map(|(name, file)| format!("  {name} = read_terragrunt_config(\"{file}\")\n"))
        .collect();
    format!("locals {{\n{body}}}\n")
}

/// A chain of `depth` files below `u/`: `terragrunt.hcl` reads `f1.hcl`, which reads
/// `f2.hcl`, …; each read is wrapped in `wrap` nested `for` expressions and each file
/// also holds a local nested `nest` levels deep, so the stack is as deep as hcl-edit
/// lets one file go.
fn read_chain(depth: usize, wrap: usize, nest: usize) -> Files {
    let deep = |inner: &str, levels: usize| {
        format!(
            "{}{inner}{}",
            "[for x in ".repeat(levels),
            " : x]".repeat(levels)
        )
    };
    let mut out = Vec::new();
    for i in 0..=depth {
        let name = match i {
            0 => "u/terragrunt.hcl".to_string(),
            i => format!("u/f{i}.hcl"),
        };
        let read = match i {
            i if i < depth => format!("[read_terragrunt_config(\"f{}.hcl\")]", i + 1),
            _ => "[1]".to_string(),
        };
        let text = format!(
            "locals {{\n  next = {}\n  deep = {}\n}}\n",
            deep(&read, wrap),
            deep("[1]", nest)
        );
        out.push((name, text));
    }
    out
}

/// Terragrunt files that would recurse forever, fan out exponentially, nest without end
/// or grow values without end: each unit fails with the chain or the limit, or (fan-out,
/// a parent reading itself for the unit) loads.
#[test]
fn recursion_and_limits_fail_the_unit() {
    let mut fanout = Vec::new();
    for level in 0..16 {
        let this = match level {
            0 => "u/terragrunt.hcl".to_string(),
            n => format!("u/f{n}.hcl"),
        };
        let next = format!("f{}.hcl", level + 1);
        let four = [
            ("a", next.as_str()),
            ("b", &next),
            ("c", &next),
            ("d", &next),
        ];
        fanout.push((this, reads(&four)));
    }
    fanout.push(("u/f16.hcl".into(), "locals {\n  leaf = 1\n}\n".into()));
    let mut doubling = String::from("locals {\n  s0 = \"0123456789abcdef\"\n");
    for i in 1..=20 {
        doubling.push_str(&format!(
            "  s{i} = \"${{local.s{}}}${{local.s{}}}\"\n",
            i - 1,
            i - 1
        ));
    }
    doubling.push_str("}\nterraform {\n  source = \"../m/${local.s20}\"\n}\n");
    let mut wrapping = String::from("locals {\n  v0 = 1\n");
    for i in 1..=300 {
        wrapping.push_str(&format!("  v{i} = [local.v{}]\n", i - 1));
    }
    wrapping.push_str("}\nterraform {\n  source = \"../m/${local.v300[0]}\"\n}\n");

    let cases: Vec<(&str, Files, String)> = vec![
        (
            "reads itself",
            files(&[("u/terragrunt.hcl", &reads(&[("me", "terragrunt.hcl")]))]),
            "u/terragrunt.hcl:2: read_terragrunt_config cycle: u/terragrunt.hcl:2 → u/terragrunt.hcl".into(),
        ),
        (
            "two files read each other, through a directory name",
            files(&[
                ("u/terragrunt.hcl", &reads(&[("x", "1"), ("c", "../c/common.hcl")])),
                ("c/common.hcl", &reads(&[("back", "../u")])),
            ]),
            "c/common.hcl:2: read_terragrunt_config cycle: u/terragrunt.hcl:3 → c/common.hcl:2 → u/terragrunt.hcl".into(),
        ),
        (
            "a read file reads itself",
            files(&[
                ("u/terragrunt.hcl", &reads(&[("c", "common.hcl")])),
                ("u/common.hcl", &reads(&[("again", "common.hcl")])),
            ]),
            "u/common.hcl:2: read_terragrunt_config cycle: u/terragrunt.hcl:2 → u/common.hcl:2 → u/common.hcl".into(),
        ),
        (
            // In the parent the config path is the unit's; read, root.hcl finds no
            // root.hcl above itself and the read ends.
            "a parent reads itself for the unit",
            files(&[
                ("root.hcl", "locals {\n  me = read_terragrunt_config(find_in_parent_folders(\"root.hcl\"))\n}\nterraform {\n  source = \"../m\"\n}\n"),
                ("u/terragrunt.hcl", "include \"root\" {\n  path = find_in_parent_folders(\"root.hcl\")\n}\n"),
                ("m/main.tf", ""),
            ]),
            "ok: Local(\"m\")".into(),
        ),
        (
            "a parent's reads come back to it",
            files(&[
                ("root.hcl", &reads(&[("c", "${get_parent_terragrunt_dir()}/common.hcl")])),
                ("common.hcl", &reads(&[("root", "root.hcl")])),
                ("u/terragrunt.hcl", "include \"root\" {\n  path = \"../root.hcl\"\n}\n"),
            ]),
            "root.hcl:2: read_terragrunt_config cycle: root.hcl:2 → common.hcl:2 → root.hcl:2 → common.hcl".into(),
        ),
        (
            "an include path that reads itself",
            files(&[(
                "u/terragrunt.hcl",
                "include \"x\" {\n  path = read_terragrunt_config(\"terragrunt.hcl\").locals.p\n}\n",
            )]),
            "u/terragrunt.hcl:2: read_terragrunt_config cycle: u/terragrunt.hcl:2 → u/terragrunt.hcl".into(),
        ),
        (
            "includes itself",
            files(&[("u/terragrunt.hcl", "\ninclude \"self\" {\n  path = \"terragrunt.hcl\"\n}\n")]),
            "u/terragrunt.hcl:2: include cycle: u/terragrunt.hcl includes itself".into(),
        ),
        (
            "locals refer to each other",
            files(&[(
                "u/terragrunt.hcl",
                "locals {\n  a = local.b\n  b = \"${local.c}/x\"\n  c = local.a\n  d = local.a\n}\nterraform {\n  source = local.d\n}\n",
            )]),
            "u/terragrunt.hcl:2: the locals refer to each other: local.a → local.b → local.c → local.a".into(),
        ),
        (
            "a local uses itself",
            files(&[("u/terragrunt.hcl", "locals {\n  a = local.a\n}\nterraform {\n  source = local.a\n}\n")]),
            "u/terragrunt.hcl:2: the locals refer to each other: local.a → local.a".into(),
        ),
        (
            // 4^16 reads without remembering results.
            "reads fan out",
            fanout,
            "ok: None".into(),
        ),
        (
            "the deepest chain of reads",
            read_chain(limits::MAX_READ_DEPTH, 2, 2),
            "ok: None".into(),
        ),
        (
            "one read too deep",
            read_chain(limits::MAX_READ_DEPTH + 1, 2, 2),
            format!(
                "u/f16.hcl:2: read_terragrunt_config nests more than 16 files deep: u/terragrunt.hcl:2 → {} → u/f17.hcl",
                (1..=16).map(|i| format!("u/f{i}.hcl:2")).collect::<Vec<_>>().join(" → ")
            ),
        ),
        (
            "nested deeper than hcl-edit parses",
            files(&[("u/terragrunt.hcl", &format!("locals {{\n  a = {}1{}\n}}\n", "[".repeat(50_000), "]".repeat(50_000)))]),
            "u/terragrunt.hcl:2:71: syntax error: invalid nesting depth; expected at most 64 nested levels".into(),
        ),
        (
            "a string doubled by each local",
            files(&[("u/terragrunt.hcl", &doubling)]),
            "u/terragrunt.hcl:18: the value is larger than 1 MiB".into(),
        ),
        (
            "a list wrapped by each local",
            files(&[("u/terragrunt.hcl", &wrapping)]),
            "u/terragrunt.hcl:258: the value nests lists and objects more than 256 levels deep".into(),
        ),
        (
            // Or a link to /proc/kcore.
            "a file larger than tfsum reads",
            files(&[("u/terragrunt.hcl", &format!("# {}\n", "x".repeat(4 << 20)))]),
            "u/terragrunt.hcl: cannot read: larger than 4 MiB, more than tfsum reads of a Terragrunt unit's file".into(),
        ),
        (
            "replace that multiplies",
            files(&[(
                "u/terragrunt.hcl",
                &format!(
                    "locals {{\n  s = \"{}\"\n}}\nterraform {{\n  source = replace(local.s, \"\", local.s)\n}}\n",
                    "x".repeat(4096)
                ),
            )]),
            "u/terragrunt.hcl:5: the value is larger than 1 MiB".into(),
        ),
    ];
    for (name, files, want) in &cases {
        assert_eq!(load_generated(files, "u"), *want, "{name}");
    }
}

/// The deepest input the limits allow fits in a quarter of the evaluation thread's stack:
/// the most files `read_terragrunt_config` may nest, each read inside the deepest `for`
/// nesting hcl-edit parses, each file holding one more such local.
#[test]
fn the_deepest_input_fits_a_quarter_of_the_stack() {
    let tmp = tempfile::tempdir().unwrap();
    for (path, content) in read_chain(limits::MAX_READ_DEPTH, 61, 62) {
        let path = tmp.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    let unit = tmp.path().join("u");
    let loaded = limits::on_stack(limits::EVAL_STACK_SIZE / 4, || {
        load_unit_here(&unit, tmp.path(), None).map(|c| c.source)
    })
    .unwrap();
    assert_eq!(loaded.unwrap(), UnitSource::None);
}
