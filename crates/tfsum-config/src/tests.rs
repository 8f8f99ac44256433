//! Loader and module-tree tests over the fixture directories in `testdata/config/`.
//!
//! Requirements are rendered one per line as `ADDRESS [CONSTRAINT @ FILE:LINE] (DIR)` so a
//! whole module's outcome reads as one table.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pretty_assertions::assert_eq;

use super::tree::{
    find_roots, module_tree_requirements, ModuleReader, Remote, TreeRequirements,
    MAX_MODULE_INSTANCES,
};
use super::*;
use tfsum_sources::modules::{FetchedModule, ModuleError};
use tfsum_vocab::addr::OPENTOFU_REGISTRY;
use tfsum_vocab::addr::TERRAFORM_REGISTRY;
use tfsum_vocab::module_source::ModuleSource as RemoteSource;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the repository")
        .join("testdata/config")
}

fn rel(path: &Path) -> String {
    let base = fixtures();
    path.strip_prefix(&base)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

fn render(reqs: &[Requirement]) -> Vec<String> {
    reqs.iter()
        .map(|r| {
            let constraint = match &r.constraint {
                Some(c) => format!(
                    " {:?} @ {}:{}",
                    c.text,
                    c.at.file.file_name().unwrap_or_default().to_string_lossy(),
                    c.at.line
                ),
                None => String::new(),
            };
            format!("{}{} ({})", r.addr, constraint, rel(&r.declared_in))
        })
        .collect()
}

fn load(rel_dir: &str, host: &str) -> Result<Module, ConfigError> {
    load_module(&fixtures().join(rel_dir), host)
}

#[test]
fn module_requirements() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "load/legacy",
            TERRAFORM_REGISTRY,
            &[
                r#"example.com/acme/mycloud ">= 1.2, < 2.0" @ main.tf:10 (load/legacy)"#,
                r#"registry.terraform.io/hashicorp/aws "3.74.0" @ main.tf:23 (load/legacy)"#,
                r#"registry.terraform.io/hashicorp/aws "~> 3.0" @ main.tf:4 (load/legacy)"#,
                "registry.terraform.io/hashicorp/dns (load/legacy)",
                r#"registry.terraform.io/hashicorp/google "~> 4.1" @ main.tf:17 (load/legacy)"#,
                "registry.terraform.io/hashicorp/http (load/legacy)",
                "registry.terraform.io/hashicorp/null (load/legacy)",
                "registry.terraform.io/hashicorp/random (load/legacy)",
                "registry.terraform.io/hashicorp/tls (load/legacy)",
                "terraform.io/builtin/terraform (load/legacy)",
            ],
        ),
        (
            "load/json",
            TERRAFORM_REGISTRY,
            &[
                r#"registry.terraform.io/hashicorp/aws ">= 5.1" @ main.tf.json:17 (load/json)"#,
                r#"registry.terraform.io/hashicorp/aws "~> 5.0" @ main.tf.json:8 (load/json)"#,
                "registry.terraform.io/hashicorp/external (load/json)",
                r#"registry.terraform.io/hashicorp/legacy "1.2.3" @ main.tf.json:10 (load/json)"#,
                "registry.terraform.io/hashicorp/local (load/json)",
                "registry.terraform.io/hashicorp/random (load/json)",
            ],
        ),
        (
            "load/override",
            TERRAFORM_REGISTRY,
            &[
                "example.com/acme/aws (load/override)",
                r#"registry.terraform.io/hashicorp/random "3.2.0" @ override.tf:11 (load/override)"#,
                r#"registry.terraform.io/hashicorp/random ">= 3.5" @ z_override.tf.json:4 (load/override)"#,
                "registry.terraform.io/hashicorp/special (load/override)",
            ],
        ),
        (
            "load/tofu",
            TERRAFORM_REGISTRY,
            &[
                r#"registry.terraform.io/hashicorp/aws "~> 5.0" @ versions.tf.json:1 (load/tofu)"#,
                "registry.terraform.io/hashicorp/random (load/tofu)",
            ],
        ),
        (
            "load/tofu",
            OPENTOFU_REGISTRY,
            &[
                r#"registry.opentofu.org/hashicorp/google "~> 6.0" @ versions.tofu.json:1 (load/tofu)"#,
                "registry.opentofu.org/hashicorp/random (load/tofu)",
            ],
        ),
        (
            "load/tofu-only",
            OPENTOFU_REGISTRY,
            &["registry.opentofu.org/hashicorp/random (load/tofu-only)"],
        ),
        ("load/backend", TERRAFORM_REGISTRY, &[]),
    ];
    for (dir, host, want) in cases {
        let module = load(dir, host).unwrap_or_else(|e| panic!("{dir}: {e}"));
        assert_eq!(render(&module.requirements()), *want, "{dir} with {host}");
    }
}

#[test]
fn module_shape() {
    let legacy = load("load/legacy", TERRAFORM_REGISTRY).unwrap();
    let names: Vec<_> = legacy.implied_local_names.iter().cloned().collect();
    // `azurerm` (import into a child module) and `aws` for the import into a declared
    // resource are not implied; `google` comes from its provider block.
    assert_eq!(
        names,
        [
            "aws",
            "google",
            "http",
            "mycloud",
            "null",
            "random",
            "terraform",
            "tls"
        ]
    );
    assert!(!legacy.has_backend);
    let rp: Vec<_> = legacy
        .required_providers
        .iter()
        .map(|r| (r.local_name.as_str(), r.addr.to_string(), r.at.line))
        .collect();
    assert_eq!(
        rp,
        [
            ("aws", "registry.terraform.io/hashicorp/aws".to_string(), 4),
            ("dns", "registry.terraform.io/hashicorp/dns".to_string(), 5),
            ("mycloud", "example.com/acme/mycloud".to_string(), 8),
        ]
    );
    let blocks: Vec<_> = legacy
        .provider_blocks
        .iter()
        .map(|b| (b.local_name.as_str(), b.alias.as_deref(), b.at.line))
        .collect();
    assert_eq!(blocks, [("aws", Some("west"), 21), ("google", None, 16)]);
    assert_eq!(
        legacy
            .provider_for_local_name("terraform")
            .map(|a| a.is_lockable()),
        Some(false)
    );

    let json = load("load/json", TERRAFORM_REGISTRY).unwrap();
    let files: Vec<_> = json.files.iter().map(|f| rel(f)).collect();
    assert_eq!(files, ["load/json/extra.tf", "load/json/main.tf.json"]);
    let call = &json.module_calls[0];
    assert_eq!(
        (call.name.as_str(), call.source.as_str(), call.at.line),
        ("child", "./child", 32)
    );
    assert_eq!(
        call.local_dir(&json.dir),
        Some(fixtures().join("load/json/child"))
    );

    let over = load("load/override", TERRAFORM_REGISTRY).unwrap();
    assert!(over.has_backend, "backend from an override file");
    assert_eq!(over.module_calls[0].source, "./new");
    let files: Vec<_> = over.files.iter().map(|f| rel(f)).collect();
    assert_eq!(
        files,
        [
            "load/override/main.tf",
            "load/override/override.tf",
            "load/override/z_override.tf.json"
        ]
    );

    assert!(
        load("load/backend", TERRAFORM_REGISTRY)
            .unwrap()
            .has_backend
    );

    let tofu = load("load/tofu", OPENTOFU_REGISTRY).unwrap();
    let files: Vec<_> = tofu.files.iter().map(|f| rel(f)).collect();
    assert_eq!(
        files,
        [
            "load/tofu/main.tofu",
            "load/tofu/shared.tf",
            "load/tofu/versions.tofu.json"
        ]
    );
}

#[test]
fn module_sources() {
    let call = |source: &str, literal: bool| ModuleCall {
        name: "m".to_string(),
        source: source.to_string(),
        literal,
        version: None,
        written: Default::default(),
        at: Location {
            file: PathBuf::from("main.tf").into(),
            line: 1,
        },
    };
    let caller = Path::new("envs/prod");
    let local = |p: &str| Some(PathBuf::from(p));
    let cases = [
        ("./vpc", true, local("envs/prod/vpc")),
        ("../../modules/vpc", true, local("modules/vpc")),
        (".\\win", true, local("envs/prod/win")),
        ("terraform-aws-modules/vpc/aws", true, None),
        ("app.terraform.io/acme/vpc/aws", true, None),
        ("git::https://example.com/vpc.git?ref=v1", true, None),
        ("github.com/acme/vpc", true, None),
        ("s3::https://bucket/vpc.zip", true, None),
        ("modules/vpc", true, None),
        ("/abs/vpc", true, None),
        ("\"${local.base}/vpc\"", false, None),
    ];
    for (source, literal, want) in cases {
        assert_eq!(call(source, literal).local_dir(caller), want, "{source}");
    }
}

#[test]
fn load_errors_name_file_and_line() {
    let cases: &[(&str, &str, &str)] = &[
        ("load/malformed", TERRAFORM_REGISTRY, "load/malformed/main.tf:10:"),
        ("load/malformed-json", TERRAFORM_REGISTRY, "load/malformed-json/main.tf.json:4:"),
        (
            "load/bad-source",
            TERRAFORM_REGISTRY,
            "load/bad-source/main.tf:4: invalid provider source \"a/b/c/d\": expected at most three parts",
        ),
        (
            "load/duplicate-rp",
            TERRAFORM_REGISTRY,
            "load/duplicate-rp/b.tf:4: duplicate required_providers block; a module may have only one, and it was already declared at ",
        ),
        (
            "load/override-missing",
            TERRAFORM_REGISTRY,
            "load/override-missing/override.tf:1: override for resource \"aws_instance\" \"b\", but no primary file declares it",
        ),
        (
            "load/tofu-only",
            TERRAFORM_REGISTRY,
            "load/tofu-only: no Terraform (*.tf, *.tf.json) configuration files in this directory; its *.tofu files are read only by OpenTofu",
        ),
        ("load/does-not-exist", TERRAFORM_REGISTRY, "load/does-not-exist: cannot read: "),
    ];
    for (dir, host, want) in cases {
        let err = load(dir, host).expect_err(dir).to_string();
        let shown = err.replace(&format!("{}/", fixtures().display()), "");
        assert!(
            shown.starts_with(want),
            "{dir}:\n got: {shown}\nwant: {want}…"
        );
    }
    let dup = load("load/duplicate-rp", TERRAFORM_REGISTRY)
        .unwrap_err()
        .to_string();
    assert!(dup.ends_with("duplicate-rp/a.tf:2"), "{dup}");
}

/// The tree walk's reader in these tests: modules parsed once each (as the lock run's
/// loader does), every directory asked for recorded, remote calls answered by `remote`.
struct TestReader<F> {
    cache: HashMap<PathBuf, Arc<Module>>,
    loaded: Vec<PathBuf>,
    remote: F,
}

fn reader() -> TestReader<impl FnMut(&RemoteSource, Option<&str>) -> Remote> {
    reader_with(|_: &RemoteSource, _: Option<&str>| Remote::Pending)
}

fn reader_with<F: FnMut(&RemoteSource, Option<&str>) -> Remote>(remote: F) -> TestReader<F> {
    TestReader {
        cache: HashMap::new(),
        loaded: Vec::new(),
        remote,
    }
}

impl<F: FnMut(&RemoteSource, Option<&str>) -> Remote> ModuleReader for TestReader<F> {
    fn load(&mut self, dir: &Path) -> Result<Arc<Module>, ConfigError> {
        self.loaded.push(dir.to_path_buf());
        if let Some(module) = self.cache.get(dir) {
            return Ok(module.clone());
        }
        let module = Arc::new(load_module(dir, TERRAFORM_REGISTRY)?);
        self.cache.insert(dir.to_path_buf(), module.clone());
        Ok(module)
    }

    fn remote(&mut self, source: &RemoteSource, version: Option<&str>) -> Remote {
        (self.remote)(source, version)
    }
}

fn walk(root: &Path, reader: &mut impl ModuleReader) -> Result<TreeRequirements, ConfigError> {
    let values = crate::early::ValueInputs::default();
    let inputs = crate::early::RootInputs::new(crate::early::Rules::Terraform, root, &values);
    module_tree_requirements(root, TERRAFORM_REGISTRY, &inputs, reader)
}

/// One row of [`tree_requirements`]: a root, then what its tree should yield.
struct TreeCase {
    root: &'static str,
    requirements: &'static [&'static str],
    modules: &'static [&'static str],
    warnings: &'static [&'static str],
    /// Remote calls left waiting for the fetcher.
    pending: usize,
}

#[test]
fn tree_requirements() {
    let cases: &[TreeCase] = &[
        TreeCase {
            root: "tree/envs/prod",
            requirements: &[
                "registry.terraform.io/hashicorp/aws (tree/modules/network/subnet)",
                r#"registry.terraform.io/hashicorp/aws ">= 4.0" @ main.tf:5 (tree/modules/network)"#,
                r#"registry.terraform.io/hashicorp/aws "~> 5.0" @ main.tf:9 (tree/envs/prod)"#,
                r#"registry.terraform.io/hashicorp/random "~> 3.5" @ main.tf:5 (tree/modules/shared)"#,
                "registry.terraform.io/hashicorp/time (tree/modules/locked)",
            ],
            modules: &[
                "tree/envs/prod",
                "tree/modules/locked",
                "tree/modules/network",
                "tree/modules/network/subnet",
                "tree/modules/shared",
            ],
            warnings: &[],
            pending: 0,
        },
        TreeCase {
            root: "remote/with-manifest",
            requirements: &[
                r#"registry.terraform.io/hashicorp/aws ">= 5.0" @ main.tf:5 (remote/with-manifest/.terraform/modules/vpc)"#,
                "registry.terraform.io/hashicorp/random (remote/with-manifest/.terraform/modules/vpc/modules/endpoints)",
            ],
            modules: &[
                "remote/with-manifest",
                "remote/with-manifest/.terraform/modules/vpc",
                "remote/with-manifest/.terraform/modules/vpc/modules/endpoints",
            ],
            // "dns" is not in modules.json: it is fetched.
            warnings: &[],
            pending: 1,
        },
        TreeCase {
            root: "remote/without-manifest",
            requirements: &[],
            modules: &["remote/without-manifest"],
            warnings: &[],
            pending: 2,
        },
    ];
    let strip = |s: String| s.replace(&format!("{}/", fixtures().display()), "");
    for case in cases {
        let TreeCase {
            root,
            requirements: want_reqs,
            modules: want_modules,
            warnings: want_warnings,
            pending,
        } = case;
        let mut reader = reader();
        let tree =
            walk(&fixtures().join(root), &mut reader).unwrap_or_else(|e| panic!("{root}: {e}"));
        assert_eq!(tree.pending, *pending, "{root}");
        assert_eq!(render(&tree.requirements), *want_reqs, "{root}");
        let modules: Vec<_> = tree.modules.iter().map(|m| rel(m)).collect();
        assert_eq!(modules, *want_modules, "{root}");
        let warnings: Vec<_> = tree.warnings.iter().map(|w| strip(w.to_string())).collect();
        assert_eq!(warnings, *want_warnings, "{root}");
        // Every path handed to the loader is normalised.
        for dir in &reader.loaded {
            assert_eq!(*dir, tfsum_vocab::paths::normalize_path(dir));
        }
    }
}

/// A module call cycle fails the root naming the chain of calls (Terraform 1.0.3 follows
/// it until the instance key is too long for a file name and fails); so do calls nested
/// deeper than any tree Terraform can install, and calls that fan out exponentially. The
/// chain of 1000 modules must not overflow the test thread's stack.
#[test]
fn tree_fails_on_cycles_depth_and_fan_out() {
    let module = |calls: &[(&str, &str)]| -> String {
        calls
            .iter()
            .map(|(name, source)| format!("module \"{name}\" {{\n  source = \"{source}\"\n}}\n"))
            .collect()
    };
    let tmp = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = tmp.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("itself/main.tf", &module(&[("me", "./")]));
    for i in 0..1000 {
        write(
            &format!("deep/m{i}/main.tf"),
            &module(&[("next", &format!("../m{}", i + 1))]),
        );
    }
    write("deep/m1000/main.tf", "");
    for i in 0..40 {
        let next = format!("../f{}", i + 1);
        write(
            &format!("fan/f{i}/main.tf"),
            &module(&[("x", &next), ("y", &next)]),
        );
    }
    write("fan/f40/main.tf", "");

    let mut reader = reader();
    let mut outcome = |root: &Path| -> String {
        match walk(root, &mut reader) {
            Ok(tree) => format!("ok: {} modules", tree.modules.len()),
            Err(e) => e
                .to_string()
                .replace(&format!("{}/", tmp.path().display()), "")
                .replace(&format!("{}/", fixtures().display()), ""),
        }
    };
    let cases = [
        (
            fixtures().join("tree/envs/dev"),
            "tree/modules/cycle-b/main.tf:1: module cycle: tree/envs/dev/main.tf:5 module \"loop\" → tree/modules/cycle-a/main.tf:1 module \"b\" → tree/modules/cycle-b/main.tf:1 module \"a\" → tree/modules/cycle-a".to_string(),
        ),
        (
            tmp.path().join("itself"),
            "itself/main.tf:1: module cycle: itself/main.tf:1 module \"me\" → itself".to_string(),
        ),
        (
            tmp.path().join("deep/m0"),
            "deep/m128/main.tf:1: module calls nest more than 128 deep: deep/m0/main.tf:1 module \"next\" → … → deep/m128/main.tf:1 module \"next\" → deep/m129".to_string(),
        ),
        // The deepest tree allowed: 128 calls below the root.
        (tmp.path().join("deep/m872"), "ok: 129 modules".to_string()),
        (
            tmp.path().join("fan/f0"),
            format!("fan/f39/main.tf:1: the module tree has more than {MAX_MODULE_INSTANCES} module calls (a module is walked once per call that reaches it)"),
        ),
    ];
    for (root, want) in cases {
        assert_eq!(outcome(&root), want, "{}", root.display());
    }
}

#[test]
fn tree_errors_name_the_module_call() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("main.tf"),
        "\nmodule \"gone\" {\n  source = \"./missing\"\n}\n",
    )
    .unwrap();
    let err = walk(tmp.path(), &mut reader()).unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.contains("main.tf:2: module \"gone\" (source \"./missing\"): ")
            && shown.contains("missing: cannot read"),
        "{shown}"
    );

    std::fs::create_dir_all(tmp.path().join(".terraform/modules")).unwrap();
    std::fs::write(
        tmp.path().join(".terraform/modules/modules.json"),
        "{\"Modules\": [}",
    )
    .unwrap();
    let err = walk(tmp.path(), &mut reader()).unwrap_err();
    assert!(err.to_string().contains("modules.json:1:"), "{err}");
}

/// Terraform (v1.0.3, checked) loads a called directory without `.tf` files as an empty
/// module; so does the tree walk, with a warning, where a missing directory is an error.
#[test]
fn tree_treats_a_called_directory_without_configuration_as_empty() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("main.tf"),
        "resource \"null_resource\" \"x\" {}\n\nmodule \"c\" {\n  source = \"./child\"\n}\n",
    )
    .unwrap();
    std::fs::create_dir(tmp.path().join("child")).unwrap();
    std::fs::write(
        tmp.path().join("child/main.tofu"),
        "resource \"aws_vpc\" \"v\" {}\n",
    )
    .unwrap();
    let tree = walk(tmp.path(), &mut reader()).unwrap();
    assert_eq!(
        render(&tree.requirements).len(),
        1,
        "{:?}",
        tree.requirements
    );
    assert_eq!(tree.modules.len(), 2, "{:?}", tree.modules);
    let warning = tree
        .warnings
        .iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        warning.contains("main.tf:3: module \"c\" (source \"./child\") is empty")
            && warning.contains("read only by OpenTofu"),
        "{warning}"
    );
}

#[test]
fn roots() {
    let root = fixtures().join("tree");
    let found_dirs: Vec<_> = tfsum_disk::walk::walk(&root, &[])
        .module_dirs
        .into_iter()
        .collect();
    let load_all = |skip: &[&str]| {
        let mut modules = Vec::new();
        let mut failed = Vec::new();
        for dir in &found_dirs {
            if skip.iter().any(|s| dir.ends_with(s)) {
                failed.push(dir.clone());
            } else {
                let module = load_module(dir, TERRAFORM_REGISTRY).unwrap();
                modules.push((dir.clone(), Arc::new(module)));
            }
        }
        (modules, failed)
    };
    let want = [
        "tree/envs/dev",
        "tree/envs/prod",
        "tree/envs/prod/bootstrap",
        // Called by envs/prod, but it has a lock file.
        "tree/modules/locked",
    ];
    let cases: [&[&str]; 2] = [
        &[],
        // Both callers of modules/network fail to parse: the text scan still sees the call.
        &["envs/dev", "envs/prod"],
    ];
    for skip in cases {
        let (modules, failed) = load_all(skip);
        let roots: Vec<_> = find_roots(&modules, &failed)
            .iter()
            .map(|r| rel(r))
            .collect();
        assert_eq!(roots, want, "unloadable: {skip:?}");
    }

    // A called module with a backend block is a root too.
    let tmp = tempfile::tempdir().unwrap();
    let (caller, callee) = (tmp.path().join("a"), tmp.path().join("b"));
    std::fs::create_dir_all(&caller).unwrap();
    std::fs::create_dir_all(&callee).unwrap();
    std::fs::write(
        caller.join("main.tf"),
        "module \"b\" {\n  source = \"../b\"\n}\n",
    )
    .unwrap();
    std::fs::write(
        callee.join("main.tf"),
        "terraform {\n  backend \"local\" {}\n}\n",
    )
    .unwrap();
    let modules: Vec<_> = [&caller, &callee]
        .into_iter()
        .map(|d| {
            (
                d.clone(),
                Arc::new(load_module(d, TERRAFORM_REGISTRY).unwrap()),
            )
        })
        .collect();
    assert_eq!(find_roots(&modules, &[]), [caller.clone(), callee.clone()]);
    std::fs::write(callee.join("main.tf"), "").unwrap();
    let modules: Vec<_> = [&caller, &callee]
        .into_iter()
        .map(|d| {
            (
                d.clone(),
                Arc::new(load_module(d, TERRAFORM_REGISTRY).unwrap()),
            )
        })
        .collect();
    assert_eq!(find_roots(&modules, &[]), [caller]);
}

/// Writes `files` (path, text) under a new temporary directory.
fn tree_of(files: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = tmp.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    tmp
}

/// Remote calls go to the reader with their version argument; the fetched module's
/// local calls are followed inside its package, its providers join the root's, and a
/// local call that climbs out of the package fails the root naming the call.
#[test]
fn tree_follows_fetched_modules_inside_their_package() {
    let tmp = tree_of(&[
        (
            "root/main.tf",
            "module \"net\" {\n  source  = \"acme/net/aws\"\n  version = \"~> 1.0\"\n}\n",
        ),
        (
            "pkg/modules/vpc/main.tf",
            "module \"shared\" {\n  source = \"../shared\"\n}\n",
        ),
        (
            "pkg/modules/shared/main.tf",
            "terraform {\n  required_providers {\n    null = { source = \"hashicorp/null\" }\n  }\n}\n",
        ),
        (
            "bad/main.tf",
            "module \"out\" {\n  source = \"../root\"\n}\n",
        ),
    ]);
    let base = tmp.path().to_path_buf();
    let fetched = |package: &str, dir: &str| {
        Remote::Fetched(FetchedModule {
            package_root: base.join(package),
            dir: base.join(dir),
            version: Some("1.0.4".into()),
            identity: "registry.terraform.io/acme/net/aws 1.0.4".into(),
        })
    };
    let mut asked = Vec::new();
    let mut reader = reader_with(|source: &RemoteSource, version: Option<&str>| {
        asked.push((source.to_string(), version.map(str::to_string)));
        fetched("pkg", "pkg/modules/vpc")
    });
    let tree = walk(&base.join("root"), &mut reader).unwrap();
    drop(reader);
    assert_eq!(
        asked,
        [(
            "registry.terraform.io/acme/net/aws".to_string(),
            Some("~> 1.0".to_string())
        )]
    );
    assert_eq!(tree.pending, 0);
    let providers: Vec<_> = tree
        .requirements
        .iter()
        .map(|r| r.addr.to_string())
        .collect();
    assert_eq!(providers, ["registry.terraform.io/hashicorp/null"]);

    let mut escaping = reader_with(|_: &RemoteSource, _: Option<&str>| fetched("bad", "bad"));
    let err = walk(&base.join("root"), &mut escaping)
        .unwrap_err()
        .to_string();
    assert!(err.contains("bad/main.tf:1"), "{err}");
    assert!(err.contains("module \"out\""), "{err}");
}

/// A call tfsum cannot follow fails the root with the call's file and line: a fetch
/// that failed, a version argument on a local call, a source that is an expression.
#[test]
fn tree_fails_on_calls_it_cannot_follow() {
    let failed = tree_of(&[(
        "main.tf",
        "module \"net\" {\n  source = \"git::https://example.com/net.git\"\n}\n",
    )]);
    let mut failing = reader_with(|_: &RemoteSource, _: Option<&str>| {
        Remote::Failed(ModuleError::Offline {
            what: "https://example.com/net.git".into(),
        })
    });
    let err = walk(failed.path(), &mut failing).unwrap_err();
    assert!(matches!(err, ConfigError::RemoteModule { .. }), "{err:?}");
    assert!(
        err.to_string().contains("main.tf:1: module \"net\""),
        "{err}"
    );

    let versioned = tree_of(&[(
        "main.tf",
        "module \"x\" {\n  source  = \"./x\"\n  version = \"1.0.0\"\n}\n",
    )]);
    let err = walk(versioned.path(), &mut reader())
        .unwrap_err()
        .to_string();
    assert!(err.contains("main.tf:1"), "{err}");
    assert!(
        err.contains("cannot apply a version constraint to module \"x\""),
        "{err}"
    );

    let dynamic = tree_of(&[(
        "main.tf",
        "variable \"src\" {}\nmodule \"y\" {\n  source = var.src\n}\n",
    )]);
    let err = walk(dynamic.path(), &mut reader()).unwrap_err().to_string();
    assert!(err.contains("main.tf:3: module \"y\": source"), "{err}");
    assert!(
        err.contains("`var.src` is not declared `const = true`"),
        "{err}"
    );
}

/// `modules.json` speaks for remote calls only inside `.terraform/modules`: an entry
/// pointing elsewhere is ignored and the call fetched instead.
#[test]
fn tree_ignores_manifest_dirs_outside_terraform_modules() {
    let tmp = tree_of(&[
        (
            "root/main.tf",
            "module \"net\" {\n  source = \"acme/net/aws\"\n}\n",
        ),
        (
            "root/.terraform/modules/modules.json",
            r#"{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"net","Source":"acme/net/aws","Version":"1.0.0","Dir":"../elsewhere"}]}"#,
        ),
        (
            "elsewhere/main.tf",
            "terraform {\n  required_providers {\n    evil = { source = \"evil/evil\" }\n  }\n}\n",
        ),
    ]);
    let tree = walk(&tmp.path().join("root"), &mut reader()).unwrap();
    assert!(tree.requirements.is_empty(), "{:?}", tree.requirements);
    assert_eq!(tree.pending, 1);
}

/// The confinement to `.terraform/modules` holds on resolved paths: a committed symlink
/// `.terraform` (manifest and modules elsewhere) or `.terraform/modules/NAME` (a module
/// directory elsewhere) is not followed; the call is fetched instead.
#[cfg(unix)]
#[test]
fn tree_ignores_symlinks_out_of_terraform_modules() {
    let evil =
        "terraform {\n  required_providers {\n    evil = { source = \"evil/evil\" }\n  }\n}\n";
    let manifest = r#"{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"net","Source":"acme/net/aws","Version":"1.0.0","Dir":".terraform/modules/net"}]}"#;
    let call = "module \"net\" {\n  source = \"acme/net/aws\"\n}\n";
    for shape in ["data dir", "module dir"] {
        let tmp = tree_of(&[
            ("root/main.tf", call),
            ("outside/modules/modules.json", manifest),
            ("outside/modules/net/main.tf", evil),
        ]);
        let root = tmp.path().join("root");
        let outside = tmp.path().join("outside");
        if shape == "data dir" {
            std::os::unix::fs::symlink(&outside, root.join(".terraform")).unwrap();
        } else {
            std::fs::create_dir_all(root.join(".terraform/modules")).unwrap();
            std::fs::write(root.join(".terraform/modules/modules.json"), manifest).unwrap();
            std::os::unix::fs::symlink(
                outside.join("modules/net"),
                root.join(".terraform/modules/net"),
            )
            .unwrap();
        }
        let tree = walk(&root, &mut reader()).unwrap();
        assert!(
            tree.requirements.is_empty(),
            "{shape}: {:?}",
            tree.requirements
        );
        assert_eq!(tree.pending, 1, "{shape}");
    }
}

/// The call limit counts calls still waiting to be fetched, so a root with more remote
/// calls than the limit fails before the fetcher is asked for any of them.
#[test]
fn call_limit_is_checked_before_fetching() {
    let calls: String = (0..=crate::tree::MAX_MODULE_INSTANCES)
        .map(|i| format!("module \"m{i}\" {{\n  source = \"https://127.0.0.1:9/m{i}.zip\"\n}}\n"))
        .collect();
    let tmp = tree_of(&[("main.tf", &calls)]);
    let mut asked = 0usize;
    let err = walk(
        tmp.path(),
        &mut reader_with(|_: &RemoteSource, _: Option<&str>| {
            asked += 1;
            Remote::Pending
        }),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("more than 10000 module calls"), "{err}");
    assert_eq!(asked, crate::tree::MAX_MODULE_INSTANCES, "{err}");
}
