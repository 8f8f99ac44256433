//! The JSON reports against `docs/json-report.schema.json` (draft 2020-12, validated
//! with `boon`): real reports of every command, and the manual's JSON examples.

use std::collections::BTreeMap;

use super::examples;
use super::markdown::user_docs;
use crate::support::terraform::repo_root;

/// docs/json-report.schema.json, compiled once at its root and at each definition.
struct ReportSchema {
    schemas: boon::Schemas,
    root: boon::SchemaIndex,
    defs: BTreeMap<String, boon::SchemaIndex>,
}

impl ReportSchema {
    fn load() -> ReportSchema {
        let path = repo_root().join("docs/json-report.schema.json");
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read the schema"))
                .expect("the schema is JSON");
        let id = value["$id"].as_str().expect("the schema's $id").to_string();
        let mut compiler = boon::Compiler::new();
        compiler
            .add_resource(&id, value.clone())
            .expect("add the schema");
        let mut schemas = boon::Schemas::new();
        let root = compiler
            .compile(&id, &mut schemas)
            .expect("compile the schema");
        let defs = value["$defs"]
            .as_object()
            .expect("$defs")
            .keys()
            .map(|name| {
                let index = compiler
                    .compile(&format!("{id}#/$defs/{name}"), &mut schemas)
                    .unwrap_or_else(|e| panic!("compile $defs/{name}: {e}"));
                (name.clone(), index)
            })
            .collect();
        ReportSchema {
            schemas,
            root,
            defs,
        }
    }

    /// Whether `doc` is a valid `def` (and, for a whole report, a valid report).
    fn check(&self, def: &str, doc: &serde_json::Value) -> Result<(), String> {
        let index = *self
            .defs
            .get(def)
            .ok_or_else(|| format!("the schema has no definition {def:?}"))?;
        self.schemas
            .validate(doc, index)
            .map_err(|e| format!("not a valid {def}: {e:#}"))?;
        if doc.get("schema_version").is_some() {
            self.schemas
                .validate(doc, self.root)
                .map_err(|e| format!("not a valid report: {e:#}"))?;
        }
        Ok(())
    }
}

/// Real reports of every command that has one (`lock`, with `--check`, `--mirror` and a
/// shared cache; `verify` with each kind of finding and an unreadable file; `outdated`;
/// `upgrade` with and without the relock; `mirror` in both directory layouts and, when
/// Debian's docker-registry is installed, to an OCI registry) validate against the
/// published schema; and the schema is strict: a report with a field renamed, missing or
/// added does not.
#[test]
fn json_reports_match_the_schema() {
    let schema = ReportSchema::load();
    let registries = examples::Registries::start();
    let sb = examples::Sandbox::new(&registries.handles());
    let out_dir = tempfile::TempDir::new().expect("temporary directory");
    let out = |name: &str| out_dir.path().join(name).to_string_lossy().into_owned();
    sb.write(
        ".tfsum.toml",
        "platforms = [\"linux_amd64\", \"darwin_arm64\"]\n",
    );
    sb.write(
        "envs/a/main.tf",
        &examples::requires(&[("null", "~> 3.1"), ("random", "3.6.0")]),
    );
    sb.write(
        "envs/broken/main.tf",
        &examples::requires(&[("null", ">= 9.0.0")]),
    );
    sb.write(
        "envs/old/main.tf",
        &examples::requires(&[("template", "2.2.0")]),
    );
    sb.write("envs/syntax/main.tf", "terraform {\n");
    sb.write(
        "envs/net/main.tf",
        "module \"vpc\" {\n  source  = \"terraform-aws-modules/vpc/aws\"\n  version = \"~> 5.0\"\n}\n",
    );

    let mut reports: Vec<(String, &str, serde_json::Value)> = Vec::new();
    let mut run = |def: &'static str, args: &[&str], env: &[(&str, &str)], status: i32| {
        let output = sb.tfsum_env(args, env);
        let what = format!("tfsum {}", args.join(" "));
        assert_eq!(
            output.status.code(),
            Some(status),
            "{what}:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{what}: not one JSON document: {e}"));
        reports.push((what, def, doc));
    };
    let shared = format!("file://{}", out("shared"));
    run("lock", &["lock", "-r", "--format", "json", "."], &[], 1);
    run(
        "lock",
        &[
            "lock",
            "--format",
            "json",
            "--shared-cache",
            &shared,
            "envs/a",
        ],
        &[],
        0,
    );
    sb.write("envs/a/main.tf", &examples::requires(&[("null", "3.1.0")]));
    run(
        "lock",
        &["lock", "-r", "--check", "--format", "json", "."],
        &[],
        1,
    );
    let mirror = out("lock-mirror");
    run(
        "lock",
        &["lock", "--format", "json", "--mirror", &mirror, "envs/a"],
        &[],
        0,
    );
    run(
        "outdated",
        &["outdated", "-r", "--format", "json", "."],
        &[],
        1,
    );
    run(
        "upgrade",
        &[
            "upgrade", "provider", "null", "latest", "--format", "json", "envs/a",
        ],
        &[],
        0,
    );
    run(
        "upgrade",
        &[
            "upgrade",
            "provider",
            "null",
            "3.2.0",
            "--no-lock",
            "--check",
            "--format",
            "json",
            "envs/a",
        ],
        &[],
        1,
    );
    let dir = out("providers");
    let rc = out("mirror.tfrc");
    run(
        "mirror",
        &[
            "mirror",
            "-r",
            "--format",
            "json",
            "--cli-config",
            &rc,
            &dir,
            ".",
        ],
        &[],
        1,
    );
    run(
        "mirror",
        &[
            "mirror",
            "--format",
            "json",
            "--layout",
            "packed",
            &out("packed"),
            "envs/a",
        ],
        &[],
        0,
    );
    // verify: a planted h1:, an unpublished version, one no source could check (offline,
    // with an empty cache), a file that is not a lock file.
    let lock = std::fs::read_to_string(sb.repo().join("envs/a/.terraform.lock.hcl")).expect("lock");
    sb.write(
        "envs/a/.terraform.lock.hcl",
        &lock.replacen(
            "hashes = [\n",
            "hashes = [\n    \"h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\",\n",
            1,
        ),
    );
    sb.write(
        "envs/nine/.terraform.lock.hcl",
        &lock.replace("3.2.1", "9.9.9"),
    );
    sb.write("envs/garbage/.terraform.lock.hcl", "provider {\n");
    run("verify", &["verify", "-r", "--format", "json", "."], &[], 1);
    let empty = out("empty-cache");
    run(
        "verify",
        &[
            "verify",
            "--offline",
            "--cache-dir",
            &empty,
            "--format",
            "json",
            "envs/a",
        ],
        &[],
        1,
    );
    let oci = crate::support::oci_registry::Registry::start(Default::default());
    if let Some(oci) = &oci {
        let target = format!("oci://{}/providers", oci.host());
        run(
            "mirror_oci",
            &[
                "mirror",
                "--format",
                "json",
                "--platform",
                "linux_amd64",
                &target,
                "envs/a",
            ],
            &[("TFSUM_TEST_OCI_PLAIN_HTTP", "1")],
            0,
        );
    }

    let mut problems = Vec::new();
    for (what, def, doc) in &reports {
        if let Err(e) = schema.check(def, doc) {
            problems.push(format!("{what}: {e}\n{doc:#}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    // What the runs covered: each kind of root outcome, finding and change.
    let all =
        serde_json::to_string(&reports.iter().map(|r| &r.2).collect::<Vec<_>>()).expect("JSON");
    for needle in [
        "\"outcome\":\"created\"",
        "\"outcome\":\"failed\"",
        "\"kind\":\"unvouched\"",
        "\"kind\":\"version_missing\"",
        "\"kind\":\"unchecked\"",
        "\"kind\":\"version_changed\"",
        "\"kind\":\"hashes_added\"",
        "\"packages_from_shared_cache\"",
        "\"mirror\":{",
        "\"failed\":[{",
    ] {
        assert!(all.contains(needle), "no report holds {needle}");
    }

    // Strict: a renamed, a missing and an extra field are each refused.
    let (_, _, lock) = &reports[0];
    let mut renamed = lock.clone();
    let roots = renamed
        .as_object_mut()
        .expect("object")
        .remove("roots")
        .expect("roots");
    renamed["rootz"] = roots;
    let mut missing = lock.clone();
    missing["stats"]
        .as_object_mut()
        .expect("stats")
        .remove("sums_fetched");
    let mut extra = lock.clone();
    extra["roots"][0]["new_field"] = serde_json::Value::Null;
    for (what, doc) in [("renamed", renamed), ("missing", missing), ("extra", extra)] {
        assert!(
            schema.check("lock", &doc).is_err(),
            "the schema accepts a {what} field"
        );
    }
}

/// The JSON examples of the manual (```` ```json ```` blocks marked
/// `<!-- example: schema=NAME -->`, `NAME[]` for a list of them) validate against the
/// schema's definition NAME.
#[test]
fn documented_json_matches_the_schema() {
    let schema = ReportSchema::load();
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in user_docs() {
        for block in doc.blocks().into_iter().filter(|b| b.info == "json") {
            let Some(def) = block.attr("schema") else {
                continue;
            };
            let at = format!("{}:{}", doc.name(), block.fence_line + 1);
            let value: serde_json::Value = match serde_json::from_str(&block.body()) {
                Ok(value) => value,
                Err(e) => {
                    problems.push(format!("{at}: not JSON: {e}"));
                    continue;
                }
            };
            let items = match def.strip_suffix("[]") {
                Some(def) => value
                    .as_array()
                    .map(|a| a.iter().map(|v| (def, v.clone())).collect())
                    .unwrap_or_else(|| vec![(def, serde_json::Value::Null)]),
                None => vec![(def.as_str(), value)],
            };
            for (def, item) in items {
                checked += 1;
                if let Err(e) = schema.check(def, &item) {
                    problems.push(format!("{at}: {e}"));
                }
            }
        }
    }
    assert!(checked >= 10, "only {checked} documented JSON values found");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
