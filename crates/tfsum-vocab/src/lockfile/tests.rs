//! Golden and table tests for lock files (spec §1, §9; vectors/lockfiles, VECTORS.md §D).

use std::collections::BTreeSet;

use super::*;
use crate::addr::{OPENTOFU_REGISTRY, TERRAFORM_REGISTRY};

fn addr(s: &str) -> ProviderAddr {
    ProviderAddr::parse(s, TERRAFORM_REGISTRY).unwrap()
}

fn hashes(list: &[&str]) -> BTreeSet<Hash> {
    list.iter().map(|h| Hash::parse(h).unwrap()).collect()
}

fn lock(version: &str, constraints: &str, hash_list: &[&str]) -> ProviderLock {
    ProviderLock {
        version: Version::parse(version).unwrap(),
        constraints: Constraints::parse_ruby_style(constraints).unwrap(),
        hashes: hashes(hash_list),
    }
}

/// Every expected-output vector must survive parse → render byte for byte.
#[test]
fn golden_files_round_trip() {
    let files: [(&str, &str, Flavor); 9] = [
        (
            "real_tf_e2e_null_template",
            include_str!("../../../../testdata/lockfiles/real_tf_e2e_null_template.terraform.lock.hcl"),
            Flavor::Terraform,
        ),
        (
            "real_tf_equivalence_tfcoremock",
            include_str!("../../../../testdata/lockfiles/real_tf_equivalence_tfcoremock.terraform.lock.hcl"
            ),
            Flavor::Terraform,
        ),
        (
            "tf_TestInit_providerLockFileReadonly_updated",
            include_str!("../../../../testdata/lockfiles/tf_TestInit_providerLockFileReadonly_updated.terraform.lock.hcl"),
            Flavor::Terraform,
        ),
        (
            "tf_TestInit_providerLockFile_expected",
            include_str!("../../../../testdata/lockfiles/tf_TestInit_providerLockFile_expected.terraform.lock.hcl"
            ),
            Flavor::Terraform,
        ),
        (
            "tf_TestProvidersLock_append_expected",
            include_str!("../../../../testdata/lockfiles/tf_TestProvidersLock_append_expected.terraform.lock.hcl"
            ),
            Flavor::Terraform,
        ),
        (
            "tf_TestProvidersLock_basic_expected",
            include_str!("../../../../testdata/lockfiles/tf_TestProvidersLock_basic_expected.terraform.lock.hcl"
            ),
            Flavor::Terraform,
        ),
        (
            "tf_TestSaveLocksToFile_expected",
            include_str!("../../../../testdata/lockfiles/tf_TestSaveLocksToFile_expected.terraform.lock.hcl"
            ),
            Flavor::Terraform,
        ),
        (
            "tf_empty_locks",
            include_str!("../../../../testdata/lockfiles/tf_empty_locks.terraform.lock.hcl"),
            Flavor::Terraform,
        ),
        (
            "tofu_TestProvidersLock_basic_expected",
            include_str!("../../../../testdata/lockfiles/tofu_TestProvidersLock_basic_expected.terraform.lock.hcl"
            ),
            Flavor::OpenTofu,
        ),
    ];
    for (name, text, flavor) in files {
        let parsed =
            parse(text, flavor.default_registry()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(parsed.flavor, flavor, "{name}");
        pretty_assertions::assert_eq!(parsed.render(), text, "{name}");
        // Canonical files take the fast path, which reads what the HCL parser reads.
        let fast = super::canonical::parse(text, flavor.default_registry())
            .unwrap_or_else(|| panic!("{name}: not read by the fast path"));
        let (full, _) = parse_located(text, flavor.default_registry()).unwrap();
        assert_eq!(fast, full, "{name}");
    }
}

/// Anything but the canonical form is left to the HCL parser, which reads it or names the
/// problem: the fast path never accepts what it would reject, nor reads it differently.
#[test]
fn the_fast_path_takes_only_canonical_files() {
    let canonical = "\
# This file is maintained automatically by \"terraform init\".
# Manual edits may be lost in future updates.

provider \"registry.terraform.io/hashicorp/null\" {
  version     = \"3.2.1\"
  constraints = \"~> 3.1\"
  hashes = [
    \"h1:aaaa\",
    \"zh:bbbb\",
  ]
}
";
    let fast = |text: &str| super::canonical::parse(text, TERRAFORM_REGISTRY);
    let full = |text: &str| parse_located(text, TERRAFORM_REGISTRY).map(|(lock, _)| lock);
    assert_eq!(fast(canonical), Some(full(canonical).unwrap()));
    let readable = [
        canonical.replace("}\n", "} # kept by hand\n"),
        canonical.replace(
            "    \"h1:aaaa\",\n    \"zh:bbbb\",",
            "    \"zh:bbbb\",\n    \"h1:aaaa\",",
        ),
        canonical.replace("\n\nprovider", "\nprovider"),
        canonical.replace("version     =", "version =    "),
        canonical.replace("\n", "\r\n"),
        canonical.replace("h1:aaaa", "h1:a\\u0061aa"),
    ];
    for text in &readable {
        assert_eq!(fast(text), None, "{text}");
        full(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    let invalid = [
        canonical.replace("3.2.1", "3.2"),
        canonical.replace("~> 3.1", "~>3.1"),
        canonical.replace("hashicorp/null", "null"),
        canonical.replace(
            "  hashes = [\n    \"h1:aaaa\",\n    \"zh:bbbb\",\n  ]\n",
            "  hashes = [\n  ]\n",
        ),
        format!(
            "{canonical}{}",
            &canonical[canonical.find("\nprovider").unwrap()..]
        ),
    ];
    for text in &invalid {
        assert_eq!(fast(text), None, "{text}");
        assert!(full(text).is_err(), "{text}");
    }
}

/// `TestSaveLocksToFile` (spec §1.4), built from its inputs rather than parsed.
#[test]
fn save_locks_to_file_from_inputs() {
    let mut file = LockFile::new(Flavor::Terraform);
    file.providers.insert(
        addr("test/foo"),
        lock(
            "1.0.0",
            ">= 1.0.0",
            &[
                "test:cccccccccccccccccccccccccccccccccccccccccccccccc",
                "test:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
                "test:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            ],
        ),
    );
    file.providers
        .insert(addr("test/bar"), lock("1.2.0", "~> 1", &[]));
    file.providers
        .insert(addr("test/baz"), lock("1.2.0", "", &[]));
    file.providers
        .insert(addr("test/boo"), lock("1.2.0", "1.2", &[]));
    pretty_assertions::assert_eq!(
        file.render(),
        include_str!(
            "../../../../testdata/lockfiles/tf_TestSaveLocksToFile_expected.terraform.lock.hcl"
        )
    );
}

#[test]
fn empty_lock_is_two_header_lines() {
    assert_eq!(
        LockFile::new(Flavor::Terraform).render(),
        "# This file is maintained automatically by \"terraform init\".\n# Manual edits may be lost in future updates.\n"
    );
    assert_eq!(
        LockFile::new(Flavor::OpenTofu).render(),
        "# This file is maintained automatically by \"tofu init\".\n# Manual edits may be lost in future updates.\n"
    );
    let empty = parse("", TERRAFORM_REGISTRY).unwrap();
    assert_eq!(empty, LockFile::new(Flavor::Terraform));
}

/// Terraform's `valid-provider-locks.hcl`: odd spacing, no header, blank lines in a block.
#[test]
fn parses_valid_fixture() {
    let text = include_str!("../../../../testdata/lockfiles/tf_parse_valid-provider-locks.hcl");
    let file = parse(text, TERRAFORM_REGISTRY).unwrap();
    assert_eq!(file.flavor, Flavor::Terraform);
    let want = [
        ("terraform.io/test/version-only", lock("1.0.0", "", &[])),
        (
            "terraform.io/test/version-and-constraints",
            lock("1.2.0", "~> 1.2", &[]),
        ),
        (
            "terraform.io/test/all-the-things",
            lock(
                "3.0.10",
                ">= 3.0.2",
                &[
                    "test:placeholder-hash-1",
                    "test:placeholder-hash-2",
                    "test:placeholder-hash-3",
                ],
            ),
        ),
    ];
    assert_eq!(file.providers.len(), want.len());
    for (label, want) in want {
        assert_eq!(file.providers.get(&addr(label)), Some(&want), "{label}");
    }
}

/// Terraform's `invalid-versions.hcl`: each `# ERROR: <summary>` comment names the
/// problem expected on its line.
#[test]
fn rejects_invalid_versions_fixture() {
    let text = include_str!("../../../../testdata/lockfiles/tf_parse_invalid-versions.hcl");
    let want: Vec<(usize, String)> = text
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            line.split_once("# ERROR: ")
                .map(|(_, summary)| (i + 1, summary.to_string()))
        })
        .collect();
    assert_eq!(want.len(), 7);
    let err = parse(text, TERRAFORM_REGISTRY).unwrap_err();
    let got: Vec<(usize, String)> = err
        .problems
        .iter()
        .map(|p| (p.line, p.summary.clone()))
        .collect();
    assert_eq!(got, want, "{err}");
    // Details say what is wrong.
    assert!(err.problems[1]
        .detail
        .contains("a \"v\" prefix should not be used"));
    assert!(err.problems[2]
        .detail
        .contains("Must be written as \"1.0.0\""));
}

/// Validation of spec §1.8, one row per rule: (file, expected (line, summary) list).
#[test]
fn validation_problems() {
    let p = |label: &str, body: &str| format!("provider \"{label}\" {{\n{body}}}\n");
    let ok_body = "  version = \"1.0.0\"\n";
    let cases: Vec<(String, Vec<(usize, &str)>)> = vec![
        (
            p("registry.terraform.io/HashiCorp/aws", ok_body),
            vec![(1, "Non-normalized provider source address")],
        ),
        (
            p("hashicorp/aws", ok_body),
            vec![(1, "Non-normalized provider source address")],
        ),
        (
            p("registry.terraform.io:443/hashicorp/aws", ok_body),
            vec![(1, "Non-normalized provider source address")],
        ),
        (
            p("not/a/valid/address", ok_body),
            vec![(1, "Invalid provider source address")],
        ),
        (
            p("terraform.io/builtin/terraform", ok_body),
            vec![(1, "Invalid provider source address")],
        ),
        (
            format!(
                "{}\n{}",
                p("registry.terraform.io/hashicorp/aws", ok_body),
                p("registry.terraform.io/hashicorp/aws", ok_body)
            ),
            vec![(5, "Duplicate provider lock")],
        ),
        (
            p(
                "registry.terraform.io/hashicorp/aws",
                "  version = \"1.0.0\"\n  constraints = \">= 1.0\"\n",
            ),
            vec![(3, "Invalid provider version constraints")],
        ),
        (
            p(
                "registry.terraform.io/hashicorp/aws",
                "  version = \"1.0.0\"\n  constraints = \"=> 1.0\"\n",
            ),
            vec![(3, "Invalid provider version constraints")],
        ),
        (
            p(
                "registry.terraform.io/hashicorp/aws",
                "  version = \"1.0.0\"\n  hashes = []\n",
            ),
            vec![(3, "Invalid provider hash set")],
        ),
        (
            p(
                "registry.terraform.io/hashicorp/aws",
                "  version = \"1.0.0\"\n  hashes = \"h1:abc\"\n",
            ),
            vec![(3, "Invalid provider hash set")],
        ),
        (
            p(
                "registry.terraform.io/hashicorp/aws",
                "  version = \"1.0.0\"\n  hashes = [\n    \"h1:ok\",\n    \"nocolon\",\n    42,\n  ]\n",
            ),
            vec![
                (5, "Invalid provider hash string"),
                (6, "Invalid provider hash string"),
            ],
        ),
        (
            p(
                "registry.terraform.io/hashicorp/aws",
                "  version = \"1.0.0\"\n  extra = 1\n",
            ),
            vec![(3, "Unsupported argument")],
        ),
        (
            p(
                "registry.terraform.io/hashicorp/aws",
                "  version = \"1.0.0\"\n  version = \"1.0.0\"\n",
            ),
            vec![(3, "Invalid HCL syntax")],
        ),
        (
            p(
                "registry.terraform.io/hashicorp/aws",
                "  version = \"1.0.0\"\n  nested {\n  }\n",
            ),
            vec![(3, "Unsupported block type")],
        ),
        (
            p("registry.terraform.io/hashicorp/aws", "  version = 1\n"),
            vec![(2, "Invalid provider version number")],
        ),
        ("foo = 1\n".to_string(), vec![(1, "Unsupported argument")]),
        (
            "\n\nresource \"a\" \"b\" {}\n".to_string(),
            vec![(3, "Unsupported block type")],
        ),
        (
            "provider {\n}\n".to_string(),
            vec![
                (1, "Missing name for provider"),
                (1, "Missing required argument"),
            ],
        ),
        (
            "provider \"a/b\" \"c\" {\n  version = \"1.0.0\"\n}\n".to_string(),
            vec![(1, "Extraneous label for provider")],
        ),
        (
            "provider \"registry.terraform.io/hashicorp/aws\" {\n  version = \"1.0.0\"\n"
                .to_string(),
            vec![(2, "Invalid HCL syntax")],
        ),
    ];
    for (text, want) in cases {
        let got: Vec<(usize, String)> = match parse(&text, TERRAFORM_REGISTRY) {
            Ok(file) => panic!("should fail:\n{text}\nparsed: {file:?}"),
            Err(e) => e
                .problems
                .into_iter()
                .map(|p| (p.line, p.summary))
                .collect(),
        };
        let want: Vec<(usize, String)> =
            want.into_iter().map(|(l, s)| (l, s.to_string())).collect();
        assert_eq!(got, want, "\n{text}");
    }
}

/// Accepted on read though never written: comments, module blocks, null constraints,
/// unknown hash schemes, a hand-edited header, one-line blocks.
#[test]
fn lenient_reading() {
    let text = r#"
// leading comment
module "child" {
  anything = true
}
/* block comment */ provider "registry.terraform.io/hashicorp/aws" { version = "5.0.0" }
provider "registry.opentofu.org/hashicorp/null" {
  version     = "3.2.1-beta.1+build.7" # trailing
  constraints = null
  hashes      = ["zh:00", "h1:invalid", "h1:invalid", "weird:x"]
}
"#;
    let file = parse(text, OPENTOFU_REGISTRY).unwrap();
    assert_eq!(file.flavor, Flavor::Terraform);
    assert_eq!(file.providers.len(), 2);
    let null = &file.providers[&addr("registry.opentofu.org/hashicorp/null")];
    assert_eq!(null.version.to_string(), "3.2.1-beta.1+build.7");
    assert!(null.constraints.is_empty());
    assert_eq!(null.hashes, hashes(&["h1:invalid", "weird:x", "zh:00"]));
    let tofu = "# This file is maintained automatically by \"tofu init\".\n";
    assert_eq!(
        parse(tofu, OPENTOFU_REGISTRY).unwrap().flavor,
        Flavor::OpenTofu
    );
    assert_eq!(Flavor::OpenTofu.default_registry(), OPENTOFU_REGISTRY);
    assert_eq!(Flavor::Terraform.default_registry(), TERRAFORM_REGISTRY);
}

#[test]
fn provider_order_and_label_escaping() {
    let mut file = LockFile::new(Flavor::Terraform);
    for source in [
        "registry.terraform.io/hashicorp/null",
        "example.com/zed/aws",
        "registry.terraform.io/hashicorp/aws",
        "localhost:8080/foo/bar",
        "café.fr/foo/bar",
    ] {
        file.providers.insert(addr(source), lock("1.0.0", "", &[]));
    }
    let labels: Vec<String> = file
        .render()
        .lines()
        .filter_map(|l| l.strip_prefix("provider "))
        .map(str::to_string)
        .collect();
    // Sorted by the punycode hostname (xn--caf-dma.fr) but printed in Unicode.
    assert_eq!(
        labels,
        [
            "\"example.com/zed/aws\" {",
            "\"localhost:8080/foo/bar\" {",
            "\"registry.terraform.io/hashicorp/aws\" {",
            "\"registry.terraform.io/hashicorp/null\" {",
            "\"café.fr/foo/bar\" {",
        ]
    );
    let reparsed = parse(&file.render(), TERRAFORM_REGISTRY).unwrap();
    assert_eq!(reparsed, file);
}

/// `providers lock` merge (spec §9) reproduces `TestProvidersLock/append`.
#[test]
fn merge_keeps_old_hashes_for_same_version() {
    let old = lock("1.0.0", "", &["h1:invalid"]);
    let new_h1 = Hash::parse("h1:7MjN4eFisdTv4tlhXH5hL4QQd39Jy4baPhFxwAd/EFE=").unwrap();
    let merged = merge_providers_lock(
        Some(&old),
        Version::parse("1.0.0").unwrap(),
        Constraints::default(),
        [new_h1.clone()],
    );
    let mut file = LockFile::new(Flavor::Terraform);
    file.providers.insert(addr("hashicorp/test"), merged);
    assert_eq!(
        file.render(),
        include_str!("../../../../testdata/lockfiles/tf_TestProvidersLock_append_expected.terraform.lock.hcl"
        )
    );

    // A different version keeps only the new hashes; constraints always come from now.
    let upgraded = merge_providers_lock(
        Some(&old),
        Version::parse("1.1.0").unwrap(),
        Constraints::parse("~> 1.1").unwrap(),
        [new_h1.clone()],
    );
    assert_eq!(upgraded, lock("1.1.0", "~> 1.1", &[new_h1.as_str()]));
    // No old entry.
    let fresh = merge_providers_lock(
        None,
        Version::parse("1.0.0").unwrap(),
        Constraints::default(),
        Vec::new(),
    );
    assert!(fresh.hashes.is_empty());
}

/// Constraints gathered from the configuration in any order, repeated, are kept in the
/// form a lock file is read back in: the merged file equals the file it renders to, read
/// again, so a root whose file is already right is not rendered again (issue 25).
#[test]
fn merged_constraints_equal_the_file_read_back() {
    let merged = merge_providers_lock(
        None,
        Version::parse("3.2.1").unwrap(),
        Constraints::parse_ruby_style("< 4.0, >= 3.0, ~> 3.1, >= 3.0").unwrap(),
        [Hash::parse("h1:a").unwrap()],
    );
    let mut file = LockFile::new(Flavor::Terraform);
    file.providers.insert(addr("hashicorp/null"), merged);
    let text = file.render();
    assert!(
        text.contains("constraints = \">= 3.0.0, ~> 3.1, < 4.0.0\""),
        "{text}"
    );
    let (back, canonical) = read_noting_form(text.as_bytes(), None).unwrap();
    assert!(canonical);
    assert_eq!(back, file);
}

#[test]
fn flavor_from_the_header() {
    let cases = [
        ("", Flavor::Terraform),
        ("# maintained by \"terraform init\".\n", Flavor::Terraform),
        (
            "# maintained by \"tofu init\".\n# Manual\n\nprovider \"x\" {",
            Flavor::OpenTofu,
        ),
        ("\n  # by tofu init\r\n", Flavor::OpenTofu),
        ("provider \"x\" {\n# tofu init\n", Flavor::Terraform),
        ("# tofu\u{a0}init\n", Flavor::Terraform),
        ("// x\n\u{2003}\n# tofu init", Flavor::OpenTofu),
    ];
    for (src, flavor) in cases {
        assert_eq!(Flavor::from_header(src), flavor, "{src:?}");
        assert_eq!(Flavor::from_header_bytes(src.as_bytes()), flavor, "{src:?}");
    }
    // Invalid UTF-8 in or after the header does not hide it.
    let bytes = b"# by tofu init \xff\n\nprovider \"x\" {\n  \xfe\n}\n";
    assert_eq!(Flavor::from_header_bytes(bytes), Flavor::OpenTofu);
    assert_eq!(
        Flavor::from_header_bytes(b"\xff\n# tofu init\n"),
        Flavor::Terraform
    );
}

/// `parse_located` gives the line of each provider block and each hash, as the file
/// has them (not sorted), and a hash listed twice at its first line.
#[test]
fn parse_located_names_the_lines() {
    let src = "# header\n\nprovider \"registry.terraform.io/hashicorp/null\" {\n  version = \"3.2.1\"\n  hashes = [\n    \"zh:bb\",\n    \"h1:aa\",\n    \"zh:bb\",\n  ]\n}\n";
    let (lock, lines) = parse_located(src, crate::addr::TERRAFORM_REGISTRY).unwrap();
    let addr = lock.providers.keys().next().unwrap().clone();
    assert_eq!(lines.providers[&addr], 3);
    let at = |h: &str| lines.hashes[&(addr.clone(), Hash::parse(h).unwrap())];
    assert_eq!((at("zh:bb"), at("h1:aa")), (6, 7));
}
