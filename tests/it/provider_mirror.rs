//! `tfsum mirror`: the provider directory that parallel `terraform init` reads, proven
//! with real Terraform v1.0.3: filled once (by two racing runs), then ≥ 8 inits at once
//! over ≥ 20 roots as a plugin cache (no package download, no lock file changed) and as
//! a filesystem mirror through the written CLI configuration (no registry request at
//! all); a damaged entry replaced, a lock file's wrong `h1:` refused, a killed run
//! leaving nothing half-made.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Arc, Mutex};

use crate::harness::{leftovers, run, text, Repo, FAST_RETRIES, LOCK};
use crate::support::fake_registry::{FakeRegistry, RegistryHandle};
use crate::support::terraform;

const PLATFORMS: &[&str] = &["linux_amd64", "darwin_arm64"];
const ROOTS: usize = 24;
const PARALLEL_INITS: usize = 8;

fn registry() -> FakeRegistry {
    FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(PLATFORMS)
        .provider("hashicorp", "random")
        .version("3.6.0")
        .platforms(PLATFORMS)
        .provider("hashicorp", "aws")
        .version("5.31.0")
        .platforms(PLATFORMS)
        .payload(256 << 10)
        .start()
}

/// `ROOTS` roots over three providers in three combinations, each locked for
/// `linux_amd64` (this machine, the oracle's platform) and `darwin_arm64`.
fn locked_repo(registry: &RegistryHandle) -> Repo {
    let combos: [&[(&str, &str)]; 3] = [
        &[("null", "3.2.1"), ("random", "3.6.0")],
        &[("aws", "~> 5.0"), ("random", "3.6.0")],
        &[("aws", "5.31.0"), ("null", "~> 3.2"), ("random", ">= 3.0")],
    ];
    let files: Vec<(String, String)> = (0..ROOTS)
        .map(|i| {
            let path = format!("envs/root{i:02}/main.tf");
            (path, crate::harness::main_tf(combos[i % 3]))
        })
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = Repo::new(registry, &files);
    let locked = repo.lock_all(PLATFORMS, &[], &[]);
    assert!(locked.status.success(), "{}", text(&locked));
    repo
}

fn mirror(repo: &Repo, dir: &Path, extra: &[&str]) -> Output {
    let dir = dir.to_string_lossy();
    let mut args = vec!["mirror", "-r", "--platform", "linux_amd64", dir.as_ref()];
    args.extend_from_slice(extra);
    args.push(".");
    run(
        repo.path(),
        &repo.cli_config(),
        &repo.cache(),
        &args,
        FAST_RETRIES,
    )
}

fn roots(repo: &Repo) -> Vec<PathBuf> {
    (0..ROOTS)
        .map(|i| repo.path().join(format!("envs/root{i:02}")))
        .collect()
}

/// `terraform init` in every root, `PARALLEL_INITS` at a time; the failures' output.
fn init_all(roots: &[PathBuf], cli_config: &Path, env: &[(&str, &str)]) -> Vec<String> {
    let queue = Arc::new(Mutex::new(roots.to_vec()));
    let failures = Arc::new(Mutex::new(Vec::new()));
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL_INITS {
            let (queue, failures) = (queue.clone(), failures.clone());
            scope.spawn(move || loop {
                let Some(root) = queue.lock().unwrap().pop() else {
                    return;
                };
                let args = ["init", "-backend=false", "-input=false", "-no-color"];
                let output = terraform::run_with(&root, cli_config, &args, env);
                if !output.status.success() {
                    failures.lock().unwrap().push(format!(
                        "{}: {}",
                        root.display(),
                        terraform::combined_output(&output)
                    ));
                }
            });
        }
    });
    let failures = failures.lock().unwrap().clone();
    failures
}

fn lock_files(repo: &Repo) -> Vec<(PathBuf, Vec<u8>)> {
    roots(repo)
        .into_iter()
        .map(|r| {
            let bytes = std::fs::read(r.join(LOCK)).unwrap();
            (r, bytes)
        })
        .collect()
}

/// The `h1:` of an unpacked package directory, by the tests' own dirhash.
fn h1_of_dir(dir: &Path) -> String {
    let files: Vec<(String, Vec<u8>)> = crate::harness::snapshot(dir)
        .into_iter()
        .filter(|(name, _)| !name.ends_with('/'))
        .collect();
    crate::support::dirhash::h1(&files)
}

/// Each (type, version) of `hashicorp` is in `dir` for linux_amd64, whole.
fn assert_placed(dir: &Path, handle: &RegistryHandle, packages: &[(&str, &str)]) {
    for (ty, v) in packages {
        let entry = dir
            .join(handle.host())
            .join("hashicorp")
            .join(ty)
            .join(v)
            .join("linux_amd64");
        let want = handle.expected_h1("hashicorp", ty, v, "linux_amd64");
        assert_eq!(h1_of_dir(&entry), want, "{ty} {v}");
    }
}

/// Every entry below `dir` (relative paths of files), for "nothing half-made" checks.
fn files_below(dir: &Path) -> Vec<String> {
    crate::harness::snapshot(dir)
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn parallel_init_reads_the_filled_directory_without_downloads_or_registry() {
    let registry = registry();
    let handle = registry.handle();
    let repo = locked_repo(&handle);
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("providers");
    let config = scratch.path().join("mirror.tfrc");

    // Two runs race to fill the directory; both succeed and agree.
    let (a, b) = std::thread::scope(|scope| {
        let a = scope.spawn(|| mirror(&repo, &dir, &[]));
        let b = scope.spawn(|| mirror(&repo, &dir, &[]));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert!(a.status.success(), "{}", text(&a));
    assert!(b.status.success(), "{}", text(&b));
    // A third run finds everything present, downloads nothing, and writes the CLI
    // configuration.
    handle.reset_counts();
    let config_arg = config.to_string_lossy().into_owned();
    let third = mirror(&repo, &dir, &["--cli-config", &config_arg]);
    assert!(third.status.success(), "{}", text(&third));
    let summary = String::from_utf8_lossy(&third.stdout);
    assert!(
        summary.contains("3 packages for linux_amd64") && summary.contains("3 present"),
        "{summary}"
    );
    assert_eq!(handle.count(".zip"), 0, "{:?}", handle.requests());
    assert_placed(
        &dir,
        &handle,
        &[("null", "3.2.1"), ("random", "3.6.0"), ("aws", "5.31.0")],
    );
    assert!(
        leftovers(scratch.path()).is_empty(),
        "{:?}",
        files_below(scratch.path())
    );
    assert!(!scratch.path().join(".providers.tfsum-staging").exists());

    // As a plugin cache: parallel inits download no package and change no lock file.
    let before = lock_files(&repo);
    handle.reset_counts();
    let cache = dir.to_string_lossy().into_owned();
    let failed = init_all(
        &roots(&repo),
        &repo.cli_config(),
        &[("TF_PLUGIN_CACHE_DIR", &cache)],
    );
    assert!(
        failed.is_empty(),
        "{} inits failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
    assert_eq!(handle.count(".zip"), 0, "packages downloaded");
    assert_eq!(lock_files(&repo), before, "a lock file changed");

    // As a filesystem mirror through the written configuration: no request at all.
    for root in roots(&repo) {
        std::fs::remove_dir_all(root.join(".terraform")).unwrap();
    }
    handle.reset_counts();
    let failed = init_all(&roots(&repo), &config, &[]);
    assert!(
        failed.is_empty(),
        "{} inits failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
    assert!(handle.requests().is_empty(), "{:?}", handle.requests());
    assert_eq!(lock_files(&repo), before, "a lock file changed");
}

#[test]
fn damaged_entries_are_replaced_and_unrecorded_packages_refused() {
    let registry = registry();
    let handle = registry.handle();
    let repo = locked_repo(&handle);
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("providers");
    let first = mirror(&repo, &dir, &[]);
    assert!(first.status.success(), "{}", text(&first));

    // A binary cut short (a copy interrupted by hand) is replaced.
    let null = dir
        .join(handle.host())
        .join("hashicorp/null/3.2.1/linux_amd64");
    let binary = std::fs::read_dir(&null)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&binary, b"half").unwrap();
    let again = mirror(&repo, &dir, &[]);
    assert!(again.status.success(), "{}", text(&again));
    let out = String::from_utf8_lossy(&again.stdout);
    assert!(
        out.contains("replaced") && out.contains("null 3.2.1 linux_amd64"),
        "{out}"
    );
    assert_eq!(
        h1_of_dir(&null),
        handle.expected_h1("hashicorp", "null", "3.2.1", "linux_amd64")
    );

    // A lock file whose h1: for the platform is not the package's fails that package,
    // naming the lock file; nothing is placed.
    let aws_h1 = handle.expected_h1("hashicorp", "aws", "5.31.0", "linux_amd64");
    let bogus = format!("h1:{}", "A".repeat(43) + "=");
    for root in roots(&repo) {
        let path = root.join(LOCK);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace(&aws_h1, &bogus)).unwrap();
    }
    let aws = dir
        .join(handle.host())
        .join("hashicorp/aws/5.31.0/linux_amd64");
    std::fs::remove_dir_all(&aws).unwrap();
    let refused = mirror(&repo, &dir, &[]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    let out = String::from_utf8_lossy(&refused.stdout);
    assert!(
        out.contains("failed     ") && out.contains("aws 5.31.0 linux_amd64"),
        "{out}"
    );
    assert!(out.contains("no lock file records its h1:"), "{out}");
    assert!(out.contains("envs/root01/.terraform.lock.hcl"), "{out}");
    assert!(!aws.exists(), "an unrecorded package was placed");
    assert!(leftovers(scratch.path()).is_empty());
}

#[test]
fn a_killed_run_leaves_nothing_half_made_and_the_next_cleans_up() {
    let registry = registry();
    let handle = registry.handle();
    let repo = locked_repo(&handle);
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("providers");
    // Slow downloads: the kill lands while packages stream into staging.
    handle.set_bandwidth(Some(256 << 10));
    let dir_arg = dir.to_string_lossy().into_owned();
    let mut child = crate::tfsum::command(repo.path(), &repo.cli_config(), scratch.path())
        .env("TFSUM_CACHE_DIR", repo.cache())
        .args(["mirror", "-r", "--platform", "linux_amd64", &dir_arg, "."])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let staging = scratch.path().join(".providers.tfsum-staging");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !std::fs::read_dir(&staging).is_ok_and(|mut d| d.next().is_some()) {
        assert!(
            std::time::Instant::now() < deadline,
            "nothing was ever staged"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    handle.set_bandwidth(None);

    // Whatever is in the directory is whole; the rest sits in staging.
    for (ns, ty, v) in [
        ("hashicorp", "null", "3.2.1"),
        ("hashicorp", "random", "3.6.0"),
        ("hashicorp", "aws", "5.31.0"),
    ] {
        let entry = dir
            .join(handle.host())
            .join(ns)
            .join(ty)
            .join(v)
            .join("linux_amd64");
        if entry.exists() {
            assert_eq!(
                h1_of_dir(&entry),
                handle.expected_h1(ns, ty, v, "linux_amd64")
            );
        }
    }
    assert!(leftovers(&dir).is_empty(), "{:?}", files_below(&dir));
    assert!(
        !leftovers(&staging).is_empty(),
        "the kill left nothing to clean"
    );

    let next = mirror(&repo, &dir, &[]);
    assert!(next.status.success(), "{}", text(&next));
    assert!(!staging.exists(), "{:?}", files_below(scratch.path()));
    assert!(leftovers(scratch.path()).is_empty());
}

/// `lock --mirror` locks and fills in one run, unpacking the zips it downloaded for
/// hashing: each package is fetched once, and the directory serves every root.
#[test]
fn lock_with_mirror_downloads_each_package_once() {
    let registry = registry();
    let handle = registry.handle();
    let files: Vec<(String, String)> = (0..4)
        .map(|i| {
            let providers: &[(&str, &str)] = &[("null", "3.2.1"), ("aws", "5.31.0")];
            (format!("r{i}/main.tf"), crate::harness::main_tf(providers))
        })
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = Repo::new(&handle, &files);
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("providers");
    let dir_arg = dir.to_string_lossy().into_owned();
    let locked = repo.lock_all(&["linux_amd64"], &["--mirror", &dir_arg], &[]);
    assert!(locked.status.success(), "{}", text(&locked));
    assert_eq!(handle.count(".zip"), 2, "{:?}", handle.requests());
    let out = String::from_utf8_lossy(&locked.stdout);
    assert!(
        out.contains("2 packages for linux_amd64") && out.contains("2 installed"),
        "{out}"
    );
    assert_placed(&dir, &handle, &[("null", "3.2.1"), ("aws", "5.31.0")]);
    assert!(repo.lock("r0").is_some());
    assert!(
        leftovers(scratch.path()).is_empty(),
        "{:?}",
        files_below(scratch.path())
    );
    assert!(!scratch.path().join(".providers.tfsum-staging").exists());
}

/// OpenTofu roots (`.tofu` files, OpenTofu lock files) and Terragrunt units are found and
/// mirrored as `lock` finds them; a root with providers but no lock file is named.
#[test]
fn opentofu_roots_and_terragrunt_units_are_mirrored() {
    let registry = registry();
    let handle = registry.handle();
    let repo = Repo::new(
        &handle,
        &[
            (
                "tofu/main.tofu",
                &crate::harness::main_tf(&[("null", "3.2.1")]),
            ),
            (
                "live/unit/terragrunt.hcl",
                "terraform {\n  source = \"../../modules/app\"\n}\n",
            ),
            (
                "modules/app/main.tf",
                &crate::harness::main_tf(&[("random", "3.6.0")]),
            ),
        ],
    );
    let locked = repo.lock_all(&["linux_amd64"], &[], &[]);
    assert!(locked.status.success(), "{}", text(&locked));
    assert!(
        repo.lock("tofu").unwrap().contains("tofu init"),
        "{:?}",
        repo.lock("tofu")
    );
    assert!(repo.lock("live/unit").is_some());
    repo.write(
        "later/main.tf",
        &crate::harness::main_tf(&[("aws", "5.31.0")]),
    );

    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("providers");
    let out = mirror(&repo, &dir, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("later") && stdout.contains("no lock file"),
        "{stdout}"
    );
    assert!(
        stdout.contains("2 packages for linux_amd64") && stdout.contains("2 installed"),
        "{stdout}"
    );
    assert_placed(&dir, &handle, &[("null", "3.2.1"), ("random", "3.6.0")]);
}

/// `--layout packed` writes what `terraform providers mirror` (v1.0.3) writes for the
/// same packages: the same zips and byte-identical JSON indexes.
#[test]
fn packed_layout_equals_terraform_providers_mirror() {
    let registry = registry();
    let handle = registry.handle();
    let repo = Repo::new(
        &handle,
        &[(
            "root/main.tf",
            &crate::harness::main_tf(&[("null", "3.2.1"), ("random", "3.6.0")]),
        )],
    );
    let locked = repo.lock_all(&["linux_amd64"], &[], &[]);
    assert!(locked.status.success(), "{}", text(&locked));
    let scratch = tempfile::tempdir().unwrap();
    let ours = scratch.path().join("ours");
    let out = mirror(&repo, &ours, &["--layout", "packed"]);
    assert!(out.status.success(), "{}", text(&out));
    let theirs = scratch.path().join("theirs");
    let theirs_arg = theirs.to_string_lossy().into_owned();
    let tf = terraform::run(
        &repo.path().join("root"),
        &repo.cli_config(),
        &["providers", "mirror", "-platform=linux_amd64", &theirs_arg],
    );
    terraform::assert_success(&tf, "terraform providers mirror");
    assert_eq!(
        crate::harness::snapshot(&ours),
        crate::harness::snapshot(&theirs)
    );
}
