//! `tfsum verify`: each hash of a lock file is vouched for by the registry (a line of
//! the signed SHA256SUMS, or the `h1:` of a published package) or named with its
//! file:line; a version the registry does not publish is its own verdict; nothing is
//! written; every package is hashed once, through the cache.

use std::process::Output;

use crate::harness::{self, Repo, LOCK};

/// `tfsum verify ARGS -r .` with the repository's cache.
fn verify(repo: &Repo, args: &[&str]) -> Output {
    let mut all = vec!["verify"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-r", "."]);
    harness::run(
        repo.path(),
        &repo.cli_config(),
        &repo.cache(),
        &all,
        harness::FAST_RETRIES,
    )
}

/// The 1-based line of `needle` in `text`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("{needle} not in\n{text}"))
}

/// `root`'s lock file with `hash` added as the first item of `provider`'s hashes.
fn plant(repo: &Repo, root: &str, provider: &str, hash: &str) -> String {
    let text = repo.lock(root).expect("lock file");
    let block = text
        .find(&format!("/{provider}\" {{"))
        .expect("provider block");
    let at = block + text[block..].find("hashes = [\n").expect("hashes") + "hashes = [\n".len();
    let planted = format!("{}    \"{hash}\",\n{}", &text[..at], &text[at..]);
    repo.write(&format!("{root}/{LOCK}"), &planted);
    planted
}

/// Four lock files, one per verdict: genuine, a planted `h1:`, a planted `zh:`, a
/// version the registry does not publish. Each gets its verdict, with file:line,
/// provider and version; the run exits 1; no lock file changes.
#[test]
fn every_verdict() {
    let registry = harness::registry();
    let handle = registry.handle();
    let repo = Repo::new(
        &handle,
        &[
            ("genuine/main.tf", &harness::main_tf(&[("null", "3.2.1")])),
            (
                "h1/main.tf",
                &harness::main_tf(&[("null", "3.2.1"), ("random", "3.6.0")]),
            ),
            ("zh/main.tf", &harness::main_tf(&[("random", "3.6.0")])),
        ],
    );
    let locked = repo.lock_all(&["linux_amd64"], &[], &[]);
    assert!(locked.status.success(), "{}", harness::text(&locked));

    let genuine = verify(&repo, &[]);
    assert_eq!(
        genuine.status.code(),
        Some(0),
        "{}",
        harness::text(&genuine)
    );

    let planted_h1 = "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    let h1_text = plant(&repo, "h1", "random", planted_h1);
    let planted_zh = format!("zh:{}", "0".repeat(64));
    let zh_text = plant(&repo, "zh", "random", &planted_zh);
    let host = handle.host();
    repo.write(
        &format!("missing/{LOCK}"),
        &format!(
            "# This file is maintained automatically by \"terraform init\".\n\
             # Manual edits may be lost in future updates.\n\n\
             provider \"{host}/hashicorp/null\" {{\n  version = \"9.9.9\"\n  hashes = [\n    \"{planted_h1}\",\n  ]\n}}\n"
        ),
    );
    let before = repo.snapshot();

    let run = verify(&repo, &[]);
    let out = harness::text(&run);
    assert_eq!(run.status.code(), Some(1), "{out}");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("verified  ./genuine/.terraform.lock.hcl"),
        "{out}"
    );
    let h1_line = line_of(&h1_text, planted_h1);
    assert!(
        stdout.contains(&format!(
            "./h1/.terraform.lock.hcl:{h1_line}: {host}/hashicorp/random 3.6.0: {planted_h1} is vouched for by nobody: it is not the h1: of any package published for it (darwin_arm64, linux_amd64)"
        )),
        "{out}"
    );
    let zh_line = line_of(&zh_text, &planted_zh);
    assert!(
        stdout.contains(&format!(
            "./zh/.terraform.lock.hcl:{zh_line}: {host}/hashicorp/random 3.6.0: {planted_zh} is vouched for by nobody: it is not a line of the version's signed SHA256SUMS"
        )),
        "{out}"
    );
    assert!(
        stdout.contains(&format!(
            "./missing/.terraform.lock.hcl:4: {host}/hashicorp/null 9.9.9: this version is not published (newest available: 3.2.1, 3.2.0)"
        )),
        "{out}"
    );
    // Only the planted hashes are findings: h1/ also holds genuine null and random
    // entries.
    assert_eq!(stdout.matches("vouched for by nobody").count(), 2, "{out}");
    assert!(
        stdout.contains("4 lock files: 1 verified, 3 failed (3 findings)"),
        "{out}"
    );
    assert_eq!(repo.snapshot(), before, "verify wrote something");

    // JSON: the same verdicts, typed.
    let json = verify(&repo, &["--format", "json"]);
    assert_eq!(json.status.code(), Some(1), "{}", harness::text(&json));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    let kinds: Vec<(String, String, u64)> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| {
            let path = f["path"].as_str().unwrap_or("").to_string();
            f["findings"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |x| {
                    (
                        path.clone(),
                        x["kind"].as_str().unwrap_or("").to_string(),
                        x["line"].as_u64().unwrap_or(0),
                    )
                })
        })
        .collect();
    assert_eq!(
        kinds,
        [
            (
                "./h1/.terraform.lock.hcl".to_string(),
                "unvouched".to_string(),
                h1_line as u64
            ),
            (
                "./missing/.terraform.lock.hcl".to_string(),
                "version_missing".to_string(),
                4
            ),
            (
                "./zh/.terraform.lock.hcl".to_string(),
                "unvouched".to_string(),
                zh_line as u64
            ),
        ]
    );
    assert_eq!(doc["ok"], false);

    // docs/verify.md shows exactly these fields.
    let documented: serde_json::Value =
        serde_json::from_str(&crate::cli::doc_block("docs/verify.md", "## JSON", "json"))
            .expect("documented report");
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v.as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    let failed_file = |d: &serde_json::Value| -> serde_json::Value {
        d["files"]
            .as_array()
            .and_then(|files| {
                files
                    .iter()
                    .find(|f| f["findings"][0]["kind"] == "unvouched")
            })
            .cloned()
            .expect("a file with an unvouched hash")
    };
    for (actual, doc) in [
        (&doc, &documented),
        (&doc["stats"], &documented["stats"]),
        (&failed_file(&doc), &failed_file(&documented)),
        (
            &failed_file(&doc)["findings"][0],
            &failed_file(&documented)["findings"][0],
        ),
    ] {
        assert_eq!(keys(actual), keys(doc));
    }
}

/// Every platform the signed SHA256SUMS lists is hashed, each package once: a cold
/// cache downloads each zip once however many lock files name the version, and a
/// second run downloads nothing.
#[test]
fn each_package_hashed_once_through_the_cache() {
    let registry = harness::registry();
    let handle = registry.handle();
    let repo = Repo::two_roots(&handle);
    let locked = repo.lock_all(&["linux_amd64"], &["--no-cache"], &[]);
    assert!(locked.status.success(), "{}", harness::text(&locked));
    handle.reset_counts();

    let first = verify(&repo, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", harness::text(&first));
    // null 3.2.1 and random 3.6.0, two platforms each; random is in both lock files.
    assert_eq!(handle.count(".zip"), 4, "{:?}", handle.requests());
    // Each version's SHA256SUMS once: listing its platforms caches it for the hashing.
    assert_eq!(handle.count("_SHA256SUMS"), 2, "{:?}", handle.requests());
    handle.reset_counts();
    let second = verify(&repo, &[]);
    assert_eq!(second.status.code(), Some(0), "{}", harness::text(&second));
    assert_eq!(handle.count(".zip"), 0, "{:?}", handle.requests());
}

/// A tampered package (its zip no longer matches the signed SHA256SUMS) cannot vouch
/// for anything: the entry is reported as not checkable, and the run fails.
#[test]
fn a_package_that_does_not_verify_is_reported() {
    let registry = harness::registry();
    let handle = registry.handle();
    let repo = Repo::new(
        &handle,
        &[("a/main.tf", &harness::main_tf(&[("null", "3.2.1")]))],
    );
    let locked = repo.lock_all(&["linux_amd64"], &["--no-cache"], &[]);
    assert!(locked.status.success(), "{}", harness::text(&locked));
    handle.corrupt_zip("hashicorp", "null", "3.2.1", "darwin_arm64");
    let run = verify(&repo, &["--no-cache"]);
    let out = harness::text(&run);
    assert_eq!(run.status.code(), Some(1), "{out}");
    assert!(out.contains("./a/.terraform.lock.hcl:4: "), "{out}");
    assert!(out.contains("3.2.1: cannot be checked: "), "{out}");
}

/// With `--fs-mirror`, the `h1:` of the packages the mirror holds vouch for a lock file
/// written from that mirror, and a planted `h1:` is still found; the registry is never
/// asked.
#[test]
fn against_a_filesystem_mirror() {
    let registry = harness::registry();
    let handle = registry.handle();
    let repo = Repo::new(
        &handle,
        &[("a/main.tf", &harness::main_tf(&[("null", "3.2.1")]))],
    );
    let mirror = tempfile::TempDir::new().expect("mirror dir");
    for platform in ["linux_amd64", "darwin_arm64"] {
        let name = handle.zip_filename("hashicorp", "null", "3.2.1", platform);
        let dir = mirror.path().join(handle.host()).join("hashicorp/null");
        std::fs::create_dir_all(&dir).expect("mirror layout");
        std::fs::write(
            dir.join(name),
            handle.zip("hashicorp", "null", "3.2.1", platform),
        )
        .expect("mirror zip");
    }
    let flag = format!("--fs-mirror={}", mirror.path().display());
    let locked = repo.lock_all(&["linux_amd64"], &[&flag], &[]);
    assert!(locked.status.success(), "{}", harness::text(&locked));
    handle.reset_counts();

    let clean = verify(&repo, &[&flag]);
    assert_eq!(clean.status.code(), Some(0), "{}", harness::text(&clean));

    let planted = "h1:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=";
    let text = plant(&repo, "a", "null", planted);
    let run = verify(&repo, &[&flag]);
    let out = harness::text(&run);
    assert_eq!(run.status.code(), Some(1), "{out}");
    assert!(
        out.contains(&format!(
            "./a/.terraform.lock.hcl:{}: {}/hashicorp/null 3.2.1: {planted} is vouched for by nobody: it is not the h1: of any package published for it (",
            line_of(&text, planted),
            handle.host()
        )),
        "{out}"
    );
    assert_eq!(handle.requests().len(), 0, "the registry was asked");
}

/// A Terraform and an OpenTofu lock file that lock the same provider version share one
/// check: on a cold cache each published package is downloaded once, and each
/// provider's version list is fetched once (not once to find the version and again to
/// find its platforms).
#[test]
fn terraform_and_opentofu_files_share_one_check() {
    let registry = harness::registry();
    let handle = registry.handle();
    let repo = Repo::new(
        &handle,
        &[("tf/main.tf", &harness::main_tf(&[("null", "3.2.1")]))],
    );
    let locked = repo.lock_all(&["linux_amd64"], &["--no-cache"], &[]);
    assert!(locked.status.success(), "{}", harness::text(&locked));
    repo.write("tofu/main.tf", &harness::main_tf(&[("null", "3.2.1")]));
    let tofu = harness::run(
        repo.path(),
        &repo.cli_config(),
        &repo.cache(),
        &[
            "lock",
            "--no-cache",
            "--flavor=opentofu",
            "--platform=linux_amd64",
            "tofu",
        ],
        harness::FAST_RETRIES,
    );
    assert!(tofu.status.success(), "{}", harness::text(&tofu));
    let tofu_lock = repo.lock("tofu").expect("tofu lock file");
    assert!(tofu_lock.contains("tofu init"), "{tofu_lock}");
    handle.reset_counts();

    // The lock runs kept no hash in the cache: it is cold.
    let run = verify(&repo, &[]);
    assert_eq!(run.status.code(), Some(0), "{}", harness::text(&run));
    // null 3.2.1 is published for two platforms: two zips, one SHA256SUMS, one list.
    assert_eq!(handle.count(".zip"), 2, "{:?}", handle.requests());
    assert_eq!(handle.count("_SHA256SUMS"), 1, "{:?}", handle.requests());
    assert_eq!(handle.count("/versions"), 1, "{:?}", handle.requests());
}
