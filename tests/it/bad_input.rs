//! Bad input, end to end: a corpus of broken configurations (`testdata/bad/`) and of
//! hostile or broken provider packages, each locked next to a healthy root. Every case
//! must fail its own root only, with a message naming the file and line where there is
//! one (or the package and URL), and leave every file as it was.

use std::path::Path;

use pretty_assertions::assert_eq;

use crate::harness::{self, leftovers, root_report, text, Repo};
use crate::support::dirhash;
use crate::support::fake_registry::FakeRegistry;
use crate::support::terraform::{repo_root, REGISTRY_PLACEHOLDER};

const PLATFORM: &str = "linux_amd64";

/// Copies `testdata/bad/NAME` into the repository as `NAME/`, keeping symbolic links as
/// links and replacing the registry placeholder in regular files.
fn copy_case(name: &str, repo: &Repo, host: &str) {
    fn copy(from: &Path, to: &Path, host: &str) {
        std::fs::create_dir_all(to).expect("create case directory");
        for entry in std::fs::read_dir(from).expect("read case directory") {
            let entry = entry.expect("entry");
            let (source, target) = (entry.path(), to.join(entry.file_name()));
            let kind = entry.file_type().expect("file type");
            if kind.is_symlink() {
                let link = std::fs::read_link(&source).expect("read link");
                std::os::unix::fs::symlink(link, &target).expect("make link");
            } else if kind.is_dir() {
                copy(&source, &target, host);
            } else {
                let bytes = std::fs::read(&source).expect("read case file");
                let text = String::from_utf8(bytes).expect("case files are UTF-8");
                std::fs::write(&target, text.replace(REGISTRY_PLACEHOLDER, host))
                    .expect("write case file");
            }
        }
    }
    copy(
        &repo_root().join("testdata/bad").join(name),
        &repo.path().join(name),
        host,
    );
}

/// What a case must end in.
enum Want {
    /// The root fails and its report contains every string (`{{REGISTRY}}` replaced).
    Failed(&'static [&'static str]),
    /// The root is locked (the input is odd but valid).
    Created,
}

#[test]
fn bad_configurations_fail_their_root_only() {
    let registry = harness::registry();
    let host = registry.host();
    // (case under testdata/bad/, expected outcome)
    let cases: &[(&str, Want)] = &[
        ("hcl-syntax", Want::Failed(&["hcl-syntax/main.tf:9:"])),
        (
            "hcl-multiline-string",
            Want::Failed(&[
                "hcl-multiline-string/main.tf:4:",
                "quoted strings cannot span lines",
            ]),
        ),
        (
            "hcl-heredoc-unterminated",
            Want::Failed(&[
                "hcl-heredoc-unterminated/main.tf:3:",
                "heredoc end delimiter",
            ]),
        ),
        (
            "json-syntax",
            Want::Failed(&["json-syntax/main.tf.json:5:", "syntax error"]),
        ),
        (
            "invalid-source",
            Want::Failed(&[
                "invalid-source/main.tf:4",
                "\"{{REGISTRY}}/hashi corp/null\"",
            ]),
        ),
        (
            "constraint-v-prefix",
            Want::Failed(&["constraint-v-prefix/main.tf:5", "v3.2"]),
        ),
        (
            "constraint-double-space",
            Want::Failed(&["constraint-double-space/main.tf:5", ">=  3.2"]),
        ),
        (
            "constraint-four-parts",
            Want::Failed(&["constraint-four-parts/main.tf:5", "3.2.1.4"]),
        ),
        // Terraform: "Invalid required_providers object"; a misspelt `version` would
        // otherwise lock without the constraint.
        (
            "required-providers-misspelt",
            Want::Failed(&[
                "required-providers-misspelt/main.tf:5:",
                "invalid required_providers object \"random\": it has \"versoin\"",
            ]),
        ),
        (
            "required-providers-json",
            Want::Failed(&[
                "required-providers-json/main.tf.json:6:",
                "it has \"versoin\"",
            ]),
        ),
        // Terraform: "Unexpected \"random\" block: Blocks are not allowed here."
        (
            "required-providers-block",
            Want::Failed(&[
                "required-providers-block/main.tf:3:",
                "unexpected \"random\" block in required_providers",
            ]),
        ),
        (
            "malformed-lock",
            Want::Failed(&[
                "malformed-lock/.terraform.lock.hcl: line 8",
                "the lock file was left untouched",
            ]),
        ),
        (
            "lock-wrong-version",
            Want::Failed(&[
                "lock-wrong-version/.terraform.lock.hcl: line 5",
                "\"v\" prefix",
                "the lock file was left untouched",
            ]),
        ),
        (
            "lock-is-directory",
            Want::Failed(&["lock-is-directory/.terraform.lock.hcl", "directory"]),
        ),
        (
            "file-symlink-loop",
            Want::Failed(&["file-symlink-loop/loop.tf: cannot read", "symbolic links"]),
        ),
        // Terraform 1.0.3 follows the cycle until a module key is too long for a file name.
        (
            "module-cycle",
            Want::Failed(&["module-cycle/b/main.tf:1: module cycle: module-cycle/main.tf:10 module \"a\" → module-cycle/a/main.tf:1 module \"b\" → module-cycle/b/main.tf:1 module \"a\" → module-cycle/a"]),
        ),
        // A directory link back up the tree is not followed: no hang, no error.
        ("symlink-loop", Want::Created),
    ];

    let repo = Repo::new(
        &registry,
        &[("good/main.tf", &harness::main_tf(&[("random", "3.6.0")]))],
    );
    for (name, _) in cases {
        copy_case(name, &repo, &host);
    }
    let before = repo.snapshot();
    let out = repo.lock_all(&[PLATFORM], &[], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));

    let mut changed: Vec<String> = Vec::new();
    for (name, want) in cases {
        let report = root_report(&out, name);
        match want {
            Want::Failed(words) => {
                assert!(report.starts_with("failed"), "{name}:\n{}", text(&out));
                for word in *words {
                    let word = word.replace(REGISTRY_PLACEHOLDER, &host);
                    assert!(
                        report.contains(&word),
                        "{name}: {word:?} missing from\n{report}"
                    );
                }
            }
            Want::Created => {
                assert!(report.starts_with("created"), "{name}:\n{}", text(&out));
                changed.push(format!("{name}/{}", harness::LOCK));
            }
        }
    }
    assert!(
        root_report(&out, "good").starts_with("created"),
        "{}",
        text(&out)
    );
    changed.push(format!("good/{}", harness::LOCK));

    // Nothing else changed: every byte of every failed root is as it was.
    let after = repo.snapshot();
    let unchanged = |files: &[(String, Vec<u8>)]| -> Vec<(String, Vec<u8>)> {
        files
            .iter()
            .filter(|(path, _)| !changed.contains(path))
            .cloned()
            .collect()
    };
    assert_eq!(unchanged(&after), unchanged(&before));
    assert_eq!(leftovers(repo.path()), Vec::<String>::new());
}

/// An archive holding only the end-of-central-directory record.
fn empty_zip() -> Vec<u8> {
    let mut zip = vec![0x50, 0x4b, 0x05, 0x06];
    zip.extend_from_slice(&[0; 18]);
    zip
}

#[test]
fn hostile_packages_fail_their_root_only() {
    let zeros = vec![0u8; 4 << 20];
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "random")
        .version("3.6.0")
        .provider("evil", "dotdot")
        .version("1.0.0")
        .binary()
        .file("../escape", "out\n")
        .provider("evil", "absolute")
        .version("1.0.0")
        .binary()
        .file("/etc/passwd", "root\n")
        .provider("evil", "newline")
        .version("1.0.0")
        .binary()
        .file("two\nlines", "x\n")
        .provider("evil", "bomb")
        .version("1.0.0")
        .file("terraform-provider-bomb", zeros.clone())
        .provider("evil", "entries")
        .version("1.0.0")
        .binary()
        .file("a", "a\n")
        .file("b", "b\n")
        .provider("evil", "empty")
        .version("1.0.0")
        .raw_zip(empty_zip())
        .provider("evil", "dupe")
        .version("1.0.0")
        .file("terraform-provider-dupe", "first\n")
        .file("terraform-provider-dupe", "second\n")
        .start();
    let host = registry.host();
    let tf = |ty: &str| {
        format!(
            "terraform {{\n  required_providers {{\n    {ty} = {{\n      source  = \"{host}/evil/{ty}\"\n      version = \"1.0.0\"\n    }}\n  }}\n}}\n"
        )
    };
    // (provider type, words its root's report must contain)
    let cases: &[(&str, &[&str])] = &[
        ("dotdot", &["\"../escape\"", "'..'"]),
        ("absolute", &["\"/etc/passwd\"", "absolute path"]),
        (
            "newline",
            &["\"two\\nlines\"", "newlines are not supported"],
        ),
        ("bomb", &["limit of 1048576 uncompressed bytes"]),
        ("entries", &["limit of 2 entries"]),
        ("empty", &["contains no files"]),
    ];
    let mut files: Vec<(String, String)> = cases
        .iter()
        .map(|(ty, _)| (format!("{ty}/main.tf"), tf(ty)))
        .collect();
    files.push(("dupe/main.tf".to_string(), tf("dupe")));
    files.push((
        "good/main.tf".to_string(),
        harness::main_tf(&[("random", "3.6.0")]),
    ));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = Repo::new(&registry, &files);
    let out = repo.lock_all(
        &[PLATFORM],
        &[],
        &[
            ("TFSUM_MAX_PACKAGE_BYTES", "1048576"),
            ("TFSUM_MAX_PACKAGE_ENTRIES", "2"),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    for (ty, words) in cases {
        let report = root_report(&out, ty);
        assert!(report.starts_with("failed"), "{ty}:\n{}", text(&out));
        let url = format!(
            "{}/files/evil/{ty}/1.0.0/terraform-provider-{ty}_1.0.0_{PLATFORM}.zip",
            registry.base_url()
        );
        let package = format!("{host}/evil/{ty} 1.0.0 ({PLATFORM})");
        for word in [package.as_str(), url.as_str()].iter().chain(*words) {
            assert!(
                report.contains(word),
                "{ty}: {word:?} missing from\n{report}"
            );
        }
        assert_eq!(repo.lock(ty), None, "{ty}");
        // The zip bomb is refused while it streams, so it was not retried either.
        assert_eq!(
            registry.count(&url.replace(&registry.base_url(), "")),
            1,
            "{ty}"
        );
    }

    // Duplicate names are what Terraform accepts: the later entry wins (spec §2.1).
    let dupe = repo.lock("dupe").expect("lock of dupe");
    let h1 = dirhash::h1(&[("terraform-provider-dupe".to_string(), b"second\n".to_vec())]);
    assert!(dupe.contains(&h1), "{h1} missing from\n{dupe}");
    assert!(repo.lock("good").is_some(), "{}", text(&out));
    assert_eq!(leftovers(repo.path()), Vec::<String>::new());
    // Nothing of a refused package reached the cache.
    for (ty, _) in cases {
        let entry = repo
            .cache()
            .join("v2/packages")
            .join(host.replace(':', "_"))
            .join(format!("evil/{ty}/1.0.0/{PLATFORM}.json"));
        assert!(!entry.exists(), "{ty}");
    }
}
