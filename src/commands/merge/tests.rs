use pretty_assertions::assert_eq;

use super::*;
use tfsum_vocab::addr::TERRAFORM_REGISTRY;
use tfsum_vocab::hash::Hash;
use tfsum_vocab::lockfile;

const NULL: &str = "registry.terraform.io/hashicorp/null";

fn addr() -> ProviderAddr {
    ProviderAddr::parse(NULL, TERRAFORM_REGISTRY).unwrap()
}

/// An entry: version, constraints in lock-file form, hashes.
fn entry(version: &str, constraints: &str, hashes: &[&str]) -> Option<ProviderLock> {
    Some(ProviderLock {
        version: Version::parse(version).unwrap(),
        constraints: Constraints::parse_ruby_style(constraints).unwrap(),
        hashes: hashes.iter().map(|h| Hash::parse(h).unwrap()).collect(),
    })
}

/// A file holding `entry` for [`NULL`], or no file.
fn file(entry: &Option<ProviderLock>, present: bool) -> Option<LockFile> {
    present.then(|| {
        let mut lock = LockFile::new(Flavor::Terraform);
        if let Some(entry) = entry {
            lock.providers.insert(addr(), entry.clone());
        }
        lock
    })
}

/// (name, ancestor, ours, theirs, expected).
type Row = (
    &'static str,
    Option<ProviderLock>,
    Option<ProviderLock>,
    Option<ProviderLock>,
    Expect,
);

#[derive(Debug)]
enum Expect {
    /// Merged cleanly into this entry (`None`: removed).
    Clean(Option<ProviderLock>),
    /// Merged cleanly, and this side's hashes for this version were left out.
    Dropped(Option<ProviderLock>, Side, &'static str),
    /// A conflict with this message; the file keeps our entry.
    Conflict(&'static str),
}

/// The whole per-provider table of `merge`: every combination of present/absent in the
/// ancestor, ours and theirs, and of same/different version, constraints and hashes.
#[test]
fn merges_each_provider_three_way() {
    use Expect::*;
    let none = None;
    let base = entry("3.2.0", "~> 3.2", &["h1:a", "zh:x"]);
    let bumped = entry("3.2.1", "~> 3.2", &["h1:n", "zh:y"]);
    let cases: Vec<Row> = vec![
        ("unchanged on both sides", base.clone(), base.clone(), base.clone(), Clean(base.clone())),
        ("removed on both sides", base.clone(), none.clone(), none.clone(), Clean(None)),
        ("the same edit on both sides", base.clone(), bumped.clone(), bumped.clone(), Clean(bumped.clone())),
        (
            "only ours added hashes",
            base.clone(),
            entry("3.2.0", "~> 3.2", &["h1:a", "h1:b", "zh:x"]),
            base.clone(),
            Clean(entry("3.2.0", "~> 3.2", &["h1:a", "h1:b", "zh:x"])),
        ),
        (
            "only ours dropped a hash: a one-sided edit wins",
            base.clone(),
            entry("3.2.0", "~> 3.2", &["h1:a"]),
            base.clone(),
            Clean(entry("3.2.0", "~> 3.2", &["h1:a"])),
        ),
        ("only theirs bumped the version", base.clone(), base.clone(), bumped.clone(), Clean(bumped.clone())),
        ("only ours removed it", base.clone(), none.clone(), base.clone(), Clean(None)),
        ("only theirs added it", none.clone(), none.clone(), bumped.clone(), Clean(bumped.clone())),
        (
            "both added it, same version: union of hashes",
            none.clone(),
            entry("1.0.0", "~> 1.0", &["h1:a", "zh:x"]),
            entry("1.0.0", "~> 1.0", &["h1:b", "zh:x"]),
            Clean(entry("1.0.0", "~> 1.0", &["h1:a", "h1:b", "zh:x"])),
        ),
        (
            "both added hashes to the same version (two new platforms)",
            base.clone(),
            entry("3.2.0", "~> 3.2", &["h1:a", "h1:b", "zh:x"]),
            entry("3.2.0", "~> 3.2", &["h1:a", "h1:c", "zh:x"]),
            Clean(entry("3.2.0", "~> 3.2", &["h1:a", "h1:b", "h1:c", "zh:x"])),
        ),
        (
            "one side dropped a hash the other kept: union",
            base.clone(),
            entry("3.2.0", "~> 3.2", &["h1:a"]),
            entry("3.2.0", "~> 3.2", &["h1:a", "h1:c", "zh:x"]),
            Clean(entry("3.2.0", "~> 3.2", &["h1:a", "h1:c", "zh:x"])),
        ),
        (
            "both bumped to the same version: union of that version's hashes",
            base.clone(),
            entry("3.2.1", "~> 3.2", &["h1:p", "zh:y"]),
            entry("3.2.1", "~> 3.2", &["h1:q", "zh:y"]),
            Clean(entry("3.2.1", "~> 3.2", &["h1:p", "h1:q", "zh:y"])),
        ),
        (
            "ours changed the constraints, theirs only added hashes",
            base.clone(),
            entry("3.2.0", "~> 3.2.0", &["h1:a", "zh:x"]),
            entry("3.2.0", "~> 3.2", &["h1:a", "h1:b", "zh:x"]),
            Clean(entry("3.2.0", "~> 3.2.0", &["h1:a", "h1:b", "zh:x"])),
        ),
        (
            "both changed the constraints to the same value",
            base.clone(),
            entry("3.2.0", ">= 3.0", &["h1:a", "h1:b", "zh:x"]),
            entry("3.2.0", ">= 3.0", &["h1:a", "h1:c", "zh:x"]),
            Clean(entry("3.2.0", ">= 3.0", &["h1:a", "h1:b", "h1:c", "zh:x"])),
        ),
        (
            "ours bumped, theirs added hashes for the old version",
            base.clone(),
            bumped.clone(),
            entry("3.2.0", "~> 3.2", &["h1:a", "h1:w", "zh:x"]),
            Dropped(bumped.clone(), Side::Theirs, "3.2.0"),
        ),
        (
            "theirs bumped, ours added hashes for the old version",
            base.clone(),
            entry("3.2.0", "~> 3.2", &["h1:a", "h1:w", "zh:x"]),
            bumped.clone(),
            Dropped(bumped.clone(), Side::Ours, "3.2.0"),
        ),
        (
            "ours bumped, theirs changed the constraints: the bump stays allowed",
            base.clone(),
            bumped.clone(),
            entry("3.2.0", ">= 3.2", &["h1:a", "zh:x"]),
            Clean(entry("3.2.1", ">= 3.2", &["h1:n", "zh:y"])),
        ),
        (
            "both bumped, differently: the higher version with its hashes",
            base.clone(),
            entry("3.2.1", "~> 3.2", &["h1:p", "zh:y"]),
            entry("3.3.0", "~> 3.2", &["h1:q", "zh:z"]),
            Clean(entry("3.3.0", "~> 3.2", &["h1:q", "zh:z"])),
        ),
        (
            "both added it with different versions: the higher",
            none.clone(),
            entry("1.1.0", "", &["h1:p"]),
            entry("1.0.0", "", &["h1:q"]),
            Clean(entry("1.1.0", "", &["h1:p"])),
        ),
        (
            "only ours moved the version, but theirs' new constraints exclude it",
            entry("3.1.0", ">= 3.0", &["h1:a"]),
            entry("3.3.0", ">= 3.0", &["h1:n"]),
            entry("3.1.0", "~> 3.1.0", &["h1:a", "h1:b"]),
            Clean(entry("3.1.0", "~> 3.1.0", &["h1:a", "h1:b"])),
        ),
        (
            "ours pinned an older version, theirs added hashes: the pin wins",
            entry("3.2.1", "~> 3.0", &["h1:a"]),
            entry("3.1.0", "3.1.0", &["h1:o"]),
            entry("3.2.1", "~> 3.0", &["h1:a", "h1:b"]),
            Dropped(entry("3.1.0", "3.1.0", &["h1:o"]), Side::Theirs, "3.2.1"),
        ),
        (
            "both changed the constraints, differently",
            base.clone(),
            entry("3.2.0", "~> 3.2.0", &["h1:a"]),
            entry("3.3.0", ">= 3.3", &["h1:q"]),
            Conflict("both sides changed the version constraints: ours \"~> 3.2.0\" (3.2.0), theirs \">= 3.3.0\" (3.3.0)"),
        ),
        (
            "both added it with different constraints",
            none.clone(),
            entry("1.0.0", "~> 1.0", &["h1:a"]),
            entry("1.0.0", "", &["h1:a"]),
            Conflict("both sides changed the version constraints: ours \"~> 1.0\" (1.0.0), theirs no constraints (1.0.0)"),
        ),
        (
            "ours removed it, theirs only added hashes",
            base.clone(),
            none.clone(),
            entry("3.2.0", "~> 3.2", &["h1:a", "h1:b", "zh:x"]),
            Clean(None),
        ),
        (
            "ours removed it, theirs bumped it",
            base.clone(),
            none.clone(),
            bumped.clone(),
            Conflict("ours removed it, theirs changed it to \"~> 3.2\" (3.2.1)"),
        ),
        (
            "theirs removed it, ours changed its constraints",
            base.clone(),
            entry("3.2.0", ">= 3.0", &["h1:a", "zh:x"]),
            none.clone(),
            Conflict("theirs removed it, ours changed it to \">= 3.0.0\" (3.2.0)"),
        ),
        (
            "versions their own constraints exclude (hand-edited)",
            none.clone(),
            entry("2.0.0", "~> 1.0", &["h1:a"]),
            entry("2.1.0", "~> 1.0", &["h1:b"]),
            Conflict("the merged constraints \"~> 1.0\" allow neither our version 2.0.0 nor theirs 2.1.0"),
        ),
    ];

    for (name, base, ours, theirs, expect) in cases {
        // Each entry sits in a file; "no entry" is tried both as a file without the
        // provider and as no file at all, which must merge the same.
        for files_present in [true, false] {
            let present = |e: &Option<ProviderLock>| files_present || e.is_some();
            let (b, o, t) = (
                file(&base, present(&base)),
                file(&ours, present(&ours)),
                file(&theirs, present(&theirs)),
            );
            let merged = merge(b.as_ref(), o.as_ref(), t.as_ref());
            let got = merged.lock.providers.get(&addr()).cloned();
            let conflicts: Vec<String> = merged.conflicts.iter().map(|c| c.to_string()).collect();
            let context = format!("{name} (empty files: {files_present})");
            match &expect {
                Clean(want) | Dropped(want, ..) => {
                    assert_eq!(&got, want, "{context}");
                    assert_eq!(conflicts, Vec::<String>::new(), "{context}");
                    let dropped = match &expect {
                        Dropped(want, side, version) => vec![DroppedHashes {
                            addr: addr(),
                            side: *side,
                            version: Version::parse(version).unwrap(),
                            kept: want.as_ref().unwrap().version.clone(),
                        }],
                        _ => vec![],
                    };
                    assert_eq!(merged.dropped, dropped, "{context}");
                    // A clean merge does not depend on which side is ours.
                    let swapped = merge(b.as_ref(), t.as_ref(), o.as_ref());
                    assert_eq!(swapped.lock, merged.lock, "{context}, sides swapped");
                    assert!(swapped.is_clean(), "{context}, sides swapped");
                }
                Conflict(message) => {
                    assert_eq!(conflicts, vec![format!("{NULL}: {message}")], "{context}");
                    assert_eq!(got, ours, "{context}: the file keeps our entry");
                }
            }
        }
    }
}

/// (ancestor, ours, theirs, expected).
type FlavorRow = (
    Option<Flavor>,
    Option<Flavor>,
    Option<Flavor>,
    Result<Flavor, (Flavor, Flavor)>,
);

#[test]
fn merges_the_header_three_way() {
    use Flavor::{OpenTofu as O, Terraform as T};
    let cases: &[FlavorRow] = &[
        (Some(T), Some(T), Some(T), Ok(T)),
        (Some(T), Some(O), Some(T), Ok(O)),
        (Some(T), Some(T), Some(O), Ok(O)),
        (Some(O), Some(T), Some(T), Ok(T)),
        (None, Some(O), Some(O), Ok(O)),
        (None, None, Some(O), Ok(O)),
        (Some(T), None, Some(O), Ok(O)),
        (None, None, None, Ok(T)),
        (None, Some(T), Some(O), Err((T, O))),
        (None, Some(O), Some(T), Err((O, T))),
    ];
    for (base, ours, theirs, want) in cases {
        assert_eq!(
            merge_flavor(*base, *ours, *theirs),
            *want,
            "{base:?} {ours:?} {theirs:?}"
        );
    }
}

/// Whole files: each provider merges on its own, a conflict keeps our entry and our
/// header, and the result renders canonically.
#[test]
fn merges_whole_files_and_keeps_our_side_of_conflicts() {
    let parse = |src: &str| lockfile::parse(src, TERRAFORM_REGISTRY).unwrap();
    let base = parse(
        r#"
provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.30.0"
  constraints = "~> 5.0"
  hashes = ["h1:aws530"]
}
provider "registry.terraform.io/hashicorp/null" {
  version = "3.2.0"
  hashes = ["h1:null320"]
}
provider "registry.terraform.io/hashicorp/random" {
  version = "3.6.0"
}
"#,
    );
    let ours = parse(
        r#"# This file is maintained automatically by "tofu init".
provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.31.0"
  constraints = "~> 5.31"
  hashes = ["h1:aws531"]
}
provider "registry.terraform.io/hashicorp/null" {
  version = "3.2.0"
  hashes = ["h1:null320", "h1:null320win"]
}
provider "registry.terraform.io/hashicorp/random" {
  version = "3.6.0"
}
"#,
    );
    let theirs = parse(
        r#"
provider "registry.terraform.io/hashicorp/aws" {
  version     = "4.67.0"
  constraints = "~> 4.0"
  hashes = ["h1:aws467"]
}
provider "registry.terraform.io/hashicorp/null" {
  version = "3.2.1"
  hashes = ["h1:null321"]
}
provider "registry.terraform.io/acme/widget" {
  version = "1.0.0"
}
"#,
    );
    let merged = merge(Some(&base), Some(&ours), Some(&theirs));
    let conflicts: Vec<String> = merged.conflicts.iter().map(ToString::to_string).collect();
    assert_eq!(
        conflicts,
        ["registry.terraform.io/hashicorp/aws: both sides changed the version constraints: ours \"~> 5.31\" (5.31.0), theirs \"~> 4.0\" (4.67.0)"]
    );
    assert_eq!(
        merged.lock.render(),
        r#"# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/acme/widget" {
  version = "1.0.0"
}

provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.31.0"
  constraints = "~> 5.31"
  hashes = [
    "h1:aws531",
  ]
}

provider "registry.terraform.io/hashicorp/null" {
  version = "3.2.1"
  hashes = [
    "h1:null321",
  ]
}
"#
    );
    assert_eq!(merged.dropped.len(), 1, "{:?}", merged.dropped);

    // Both sides changed the header differently (no ancestor): our header is kept.
    let merged = merge(None, Some(&ours), Some(&theirs));
    assert_eq!(merged.lock.flavor, Flavor::OpenTofu);
    assert!(merged.conflicts.contains(&Conflict::Flavor {
        ours: Flavor::OpenTofu,
        theirs: Flavor::Terraform
    }));
}

/// Three Terraform Stack lock files merge into one of the same form: the stacks header
/// and no constraints, whichever side changed what.
#[test]
fn stack_lock_files_stay_stack_lock_files() {
    let header = "# This file is maintained automatically by \"terraform stacks providers-lock\".\n# Manual edits may be lost in future updates.\n";
    let file = |version: &str| {
        let src = format!(
            "{header}\nprovider \"registry.terraform.io/hashicorp/null\" {{\n  version = \"{version}\"\n  hashes = [\n    \"h1:null{version}\",\n  ]\n}}\n"
        );
        lockfile::parse(&src, TERRAFORM_REGISTRY).unwrap()
    };
    let (base, ours, theirs) = (file("3.2.1"), file("3.2.1"), file("3.2.4"));
    assert_eq!(base.form, tfsum_vocab::lockfile::LockForm::Stack);
    let merged = merge(Some(&base), Some(&ours), Some(&theirs));
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    assert_eq!(merged.lock.form, tfsum_vocab::lockfile::LockForm::Stack);
    let rendered = merged.lock.render();
    assert!(rendered.starts_with(header), "{rendered}");
    assert!(rendered.contains("version = \"3.2.4\""), "{rendered}");
}
