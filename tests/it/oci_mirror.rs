//! OpenTofu's OCI registry mirror, end to end against Debian's docker-registry (CNCF
//! distribution, TLS and an htpasswd user; `tests/support/oci_registry.rs`):
//!
//! - `tfsum mirror --layout oci` pushes what the lock files lock; the artifacts are
//!   checked against OpenTofu's reader rules (study §1.3–§1.6) by plain HTTP; a second
//!   push uploads and downloads nothing;
//! - a fresh `tfsum lock --oci-mirror` that reaches only the registry writes, per
//!   platform, the version, constraints and `h1:`/`zh:` Terraform 1.0.3 records from the
//!   provider registry (the blobs are its zips, byte for byte);
//! - the CLI configuration's `oci_mirror` with `direct` adds the registry's signed lines;
//! - a tag holding other bytes is refused by `mirror --layout oci`, by `lock` beside the
//!   origin, and by `mirror DIR` against the lock files, naming repository, tag and rule;
//! - the Bearer flow through the token front;
//! - `oci://` module packages, locked as the same module through git.
//!
//! Skipped when the registry binary is not installed (`make test` installs it).

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest as _, Sha256};

use crate::harness::{run, text, Repo, FAST_RETRIES, LOCK};
use crate::support::fake_registry::{FakeRegistry, RegistryHandle};
use crate::support::oci_registry::{
    BearerFront, Registry, RegistryOptions, TokenPolicy, PASSWORD, USER,
};
use crate::support::terraform;

const PLATFORMS: &[&str] = &["linux_amd64", "darwin_arm64"];
const CA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/registry/tls/ca.pem");
const INDEX: &str = "application/vnd.oci.image.index.v1+json";
const MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";

fn registry() -> FakeRegistry {
    FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(PLATFORMS)
        .provider("hashicorp", "random")
        .version("3.6.0")
        .platforms(&["linux_amd64", "darwin_arm64", "windows_amd64"])
        .start()
}

const MAIN_TF: &str = r#"terraform {
  required_providers {
    null   = { source = "{{REGISTRY}}/hashicorp/null", version = "~> 3.2" }
    random = { source = "{{REGISTRY}}/hashicorp/random", version = "3.6.0" }
  }
}
"#;

fn oci_registry() -> Option<Registry> {
    Registry::start(RegistryOptions {
        tls: true,
        htpasswd: true,
        relative_urls: false,
    })
}

/// The fake registry's host block plus the OCI credentials of `oci` (the htpasswd user).
fn cli_config(registry: &RegistryHandle, oci: &str, extra: &str) -> String {
    format!(
        "{}oci_credentials \"{oci}\" {{\n  username = \"{USER}\"\n  password = \"{PASSWORD}\"\n}}\n{extra}",
        registry.cli_config()
    )
}

/// A checkout of the root whose CLI configuration names `fake` and the credentials of
/// the OCI registry at `oci`, with `extra` after them.
fn checkout(fake: &RegistryHandle, oci: &str, extra: &str) -> Repo {
    let repo = Repo::new(fake, &[("root/main.tf", MAIN_TF)]);
    std::fs::write(repo.cli_config(), cli_config(fake, oci, extra)).unwrap();
    repo
}

/// [`checkout`], locked from `fake` for `platforms`.
fn locked_checkout(fake: &RegistryHandle, oci: &str, extra: &str, platforms: &[&str]) -> Repo {
    let repo = checkout(fake, oci, extra);
    let locked = repo.lock_all(platforms, &[], &[]);
    assert!(locked.status.success(), "{}", text(&locked));
    repo
}

/// `tfsum ARGS` in the repository, trusting the test CA.
fn tfsum(repo: &Repo, args: &[&str]) -> std::process::Output {
    let env = [FAST_RETRIES, &[("SSL_CERT_FILE", CA)]].concat();
    run(repo.path(), &repo.cli_config(), &repo.cache(), args, &env)
}

fn json(output: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", text(output)))
}

/// One provider block of a lock file: version, constraints, hashes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    version: String,
    constraints: Option<String>,
    hashes: BTreeSet<String>,
}

/// The provider blocks of a lock file, by address.
fn entries(lock: &str) -> BTreeMap<String, Entry> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, Entry)> = None;
    for line in lock.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("provider \"") {
            let addr = rest.split('"').next().unwrap_or_default().to_string();
            let entry = Entry {
                version: String::new(),
                constraints: None,
                hashes: BTreeSet::new(),
            };
            current = Some((addr, entry));
        } else if let Some((_, entry)) = current.as_mut() {
            let quoted = || line.split('"').nth(1).unwrap_or_default().to_string();
            if line.starts_with("version") {
                entry.version = quoted();
            } else if line.starts_with("constraints") {
                entry.constraints = Some(quoted());
            } else if line.starts_with('"') {
                entry.hashes.insert(quoted());
            } else if line == "}" {
                let (addr, entry) = current.take().unwrap();
                out.insert(addr, entry);
            }
        }
    }
    out
}

fn zh(zip: &[u8]) -> String {
    format!("zh:{}", hex::encode(Sha256::digest(zip)))
}

/// A client of the registry with the test CA.
fn client() -> reqwest::Client {
    let ca = std::fs::read(CA).unwrap();
    reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(&ca).unwrap())
        .build()
        .unwrap()
}

/// Sends `request` as the htpasswd user from a test's own thread: status, headers,
/// body.
fn send(request: reqwest::RequestBuilder) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let response = request
            .basic_auth(USER, Some(PASSWORD))
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        (status, headers, response.bytes().await.unwrap().to_vec())
    })
}

fn get(url: &str, accept: &str) -> (String, Vec<u8>) {
    let (status, headers, body) = send(client().get(url).header("Accept", accept));
    assert_eq!(status, 200, "{url}");
    let media_type = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    (media_type, body)
}

fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// The version's artifact read as OpenTofu v1.12.6 reads it
/// (`internal/getproviders/oci_registry_mirror_source.go:480-747`,
/// `package_location_oci_blob_archive.go:202-304`): the tag names an index with
/// `mediaType` and `artifactType` set; each platform one image manifest entry with
/// `artifactType` provider-target and its platform; the manifest one `archive/zip`
/// layer whose blob hashes to its digest. Returns each platform's zip.
fn read_as_opentofu(base: &str, repository: &str, tag: &str) -> BTreeMap<String, Vec<u8>> {
    let (media_type, index_bytes) = get(&format!("{base}/v2/{repository}/manifests/{tag}"), INDEX);
    assert_eq!(media_type, INDEX);
    let index: serde_json::Value = serde_json::from_slice(&index_bytes).unwrap();
    assert_eq!(index["schemaVersion"], 2);
    assert_eq!(index["mediaType"], INDEX);
    assert_eq!(index["artifactType"], "application/vnd.opentofu.provider");
    let mut zips = BTreeMap::new();
    for entry in index["manifests"].as_array().unwrap() {
        assert_eq!(entry["mediaType"], MANIFEST);
        assert_eq!(
            entry["artifactType"],
            "application/vnd.opentofu.provider-target"
        );
        let platform = format!(
            "{}_{}",
            entry["platform"]["os"].as_str().unwrap(),
            entry["platform"]["architecture"].as_str().unwrap()
        );
        assert!(entry["platform"].get("os.version").is_none());
        let entry_digest = entry["digest"].as_str().unwrap();
        let (media_type, bytes) = get(
            &format!("{base}/v2/{repository}/manifests/{entry_digest}"),
            MANIFEST,
        );
        assert_eq!(media_type, MANIFEST);
        assert_eq!(digest(&bytes), entry_digest, "manifest digest");
        assert_eq!(entry["size"], bytes.len());
        let manifest: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(manifest["mediaType"], MANIFEST);
        assert_eq!(
            manifest["artifactType"],
            "application/vnd.opentofu.provider-target"
        );
        let zips_in: Vec<&serde_json::Value> = manifest["layers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["mediaType"] == "archive/zip")
            .collect();
        assert_eq!(zips_in.len(), 1, "exactly one archive/zip layer");
        let layer_digest = zips_in[0]["digest"].as_str().unwrap();
        let (_, blob) = get(
            &format!("{base}/v2/{repository}/blobs/{layer_digest}"),
            "*/*",
        );
        assert_eq!(digest(&blob), layer_digest);
        assert_eq!(zips_in[0]["size"], blob.len());
        zips.insert(platform, blob);
    }
    zips
}

/// Push, check, push again, lock from the registry alone, compare with Terraform.
#[test]
fn push_then_lock_from_the_oci_mirror_alone_as_terraform_locks_from_the_registry() {
    let Some(oci) = oci_registry() else {
        return;
    };
    let fake = registry();
    let repo = locked_checkout(&fake, &oci.host(), "", PLATFORMS);

    let target = format!("oci://{}/mirror/providers", oci.host());
    let mut push = vec!["mirror", "-r", "--format", "json", &target, "."];
    push.extend(["--platform", "linux_amd64,darwin_arm64"]);
    let first = tfsum(&repo, &push);
    assert!(first.status.success(), "{}\n{}", text(&first), oci.log());
    let report = json(&first);
    assert_eq!(report["layout"], "oci");
    assert_eq!(report["summary"]["pushed"], 4, "{report:#}");
    assert_eq!(report["summary"]["tags_created"], 2, "{report:#}");
    // Two zips and the empty config per repository.
    assert_eq!(report["summary"]["blobs_uploaded"], 6, "{report:#}");
    let block = report["installation_block"].as_str().unwrap();
    let host = oci.host();
    assert!(
        block.contains(&format!(
            "repository_template = \"{host}/mirror/providers/${{namespace}}/${{type}}\""
        )),
        "{block}"
    );
    assert!(block.contains("direct {\n    exclude = ["), "{block}");

    // What OpenTofu would read: every platform's zip, byte for byte the registry's.
    let version_tags = [("null", "3.2.1"), ("random", "3.6.0")];
    for (ty, version) in version_tags {
        let repository = format!("mirror/providers/hashicorp/{ty}");
        let zips = read_as_opentofu(&oci.base_url(), &repository, version);
        assert_eq!(
            zips.keys().collect::<Vec<_>>(),
            ["darwin_arm64", "linux_amd64"]
        );
        for (platform, zip) in &zips {
            assert_eq!(
                zip.as_slice(),
                &fake.zip("hashicorp", ty, version, platform)[..]
            );
        }
    }

    // Again: nothing uploaded, nothing downloaded, every tag as it was.
    let second = tfsum(&repo, &push);
    assert!(second.status.success(), "{}", text(&second));
    let again = json(&second);
    let summary = &again["summary"];
    assert_eq!(
        (
            &summary["pushed"],
            &summary["present"],
            &summary["blobs_uploaded"],
            &summary["manifests_written"],
            &summary["packages_downloaded"]
        ),
        (&0.into(), &4.into(), &0.into(), &0.into(), &0.into()),
        "{again:#}"
    );
    // A third platform for random extends its tag and keeps the other two.
    let mut wider = push.clone();
    wider.push("--platform=windows_amd64");
    let third = json(&tfsum(&repo, &wider));
    assert_eq!(third["summary"]["tags_extended"], 1, "{third:#}");
    assert_eq!(
        third["summary"]["failed"], 1,
        "null has no windows build: {third:#}"
    );
    let random = read_as_opentofu(
        &oci.base_url(),
        "mirror/providers/hashicorp/random",
        "3.6.0",
    );
    assert_eq!(random.len(), 3);

    // `verify` against the OCI mirror: every hash of the lock file is the digest or
    // the h1: of a blob the mirror serves.
    let verify = tfsum(
        &repo,
        &[
            "verify",
            "--oci-mirror",
            &format!("{host}/mirror/providers/{{namespace}}/{{type}}"),
            "root",
        ],
    );
    assert_eq!(verify.status.code(), Some(1), "{}", text(&verify));
    let stdout = String::from_utf8_lossy(&verify.stdout);
    assert!(
        !stdout.contains("h1:"),
        "only the registry's signed zh: lines of other files are unvouched: {stdout}"
    );

    // A fresh checkout locked from the OCI mirror alone.
    let fresh = checkout(&fake, &oci.host(), "");
    fake.reset_counts();
    let template = format!("{host}/mirror/providers/{{namespace}}/{{type}}");
    let mut lock = vec!["lock", "--oci-mirror", &template, "root"];
    lock.extend(["--platform", "linux_amd64", "--platform", "darwin_arm64"]);
    let out = tfsum(&fresh, &lock);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        fake.requests().is_empty(),
        "the provider registry was asked"
    );
    let from_oci = entries(&fresh.lock("root").unwrap());

    // Terraform 1.0.3 from the provider registry: the same version, constraints and,
    // for the platforms asked, the same h1: and zh:.
    let oracle = terraform::module_dir(&[("main.tf", MAIN_TF)], &fake.host());
    let oracle_cli = oracle.path().join("oracle.tfrc");
    std::fs::write(&oracle_cli, crate::twin::cli_config(&fake)).unwrap();
    let out = terraform::providers_lock(oracle.path(), PLATFORMS, &oracle_cli);
    terraform::assert_success(&out, "terraform providers lock");
    let from_registry = entries(&terraform::read_lock_file(oracle.path()));
    assert_eq!(
        from_oci.keys().collect::<Vec<_>>(),
        from_registry.keys().collect::<Vec<_>>()
    );
    for (addr, oci_entry) in &from_oci {
        let want = &from_registry[addr];
        let ty = addr.rsplit('/').next().unwrap();
        assert_eq!(oci_entry.version, want.version, "{addr}");
        assert_eq!(oci_entry.constraints, want.constraints, "{addr}");
        let mut expected: BTreeSet<String> = want
            .hashes
            .iter()
            .filter(|h| h.starts_with("h1:"))
            .cloned()
            .collect();
        for platform in PLATFORMS {
            let zip = zh(&fake.zip("hashicorp", ty, &want.version, platform));
            assert!(
                want.hashes.contains(&zip),
                "{addr}: Terraform records {zip}"
            );
            expected.insert(zip);
        }
        assert_eq!(oci_entry.hashes, expected, "{addr}");
    }
    // The h1: of each blob is kept: a second lock downloads nothing.
    std::fs::remove_file(fresh.path().join("root").join(LOCK)).unwrap();
    let again = tfsum(&fresh, &[&lock[..], &["--format", "json"]].concat());
    assert!(again.status.success(), "{}", text(&again));
    let report = json(&again);
    assert_eq!(
        entries(&fresh.lock("root").unwrap()),
        from_oci,
        "{report:#}"
    );

    // `--cli-config` writes a configuration that installs them from the registry: with
    // it, `lock --use-cli-config-installation` asks the provider registry nothing.
    let written = fresh.path().join("../oci.tfrc");
    let written_text = written.to_string_lossy();
    let out = tfsum(
        &repo,
        &[&push[..], &["--cli-config", &written_text]].concat(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let config = std::fs::read_to_string(&written).unwrap();
    assert!(
        config.contains("oci_mirror {") && config.contains("oci_credentials"),
        "{config}"
    );
    std::fs::copy(&written, fresh.cli_config()).unwrap();
    std::fs::remove_file(fresh.path().join("root").join(LOCK)).unwrap();
    fake.reset_counts();
    let via_config = [
        "lock",
        "--use-cli-config-installation",
        "--platform",
        "linux_amd64",
        "--platform",
        "darwin_arm64",
        "root",
    ];
    let out = tfsum(&fresh, &via_config);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        fake.requests().is_empty(),
        "the provider registry was asked"
    );
    assert_eq!(entries(&fresh.lock("root").unwrap()), from_oci);

    // `verify` against the mirror vouches for every hash of a lock written from it.
    let verify = tfsum(&fresh, &["verify", "--oci-mirror", &template, "root"]);
    assert!(verify.status.success(), "{}", text(&verify));

    // And `tfsum mirror DIR` fills a provider directory from the OCI mirror.
    let dir = tempfile::tempdir().unwrap();
    let dir_text = dir.path().join("providers").to_string_lossy().into_owned();
    let install = [
        "mirror",
        "--oci-mirror",
        &template,
        "--platform",
        "linux_amd64",
        &dir_text,
        "root",
    ];
    let out = tfsum(&fresh, &install);
    assert!(out.status.success(), "{}", text(&out));
    let installed = dir
        .path()
        .join("providers")
        .join(fake.host())
        .join("hashicorp/null/3.2.1/linux_amd64");
    assert!(installed.is_dir(), "{}", text(&out));
}

/// A tag holding other bytes than the origin's zip: `mirror --layout oci` refuses to
/// touch it; `lock` from the CLI configuration's `oci_mirror` beside `direct` refuses
/// it against the signed SHA256SUMS (and otherwise adds the signed lines); `mirror DIR`
/// from the OCI mirror refuses it against the lock file before downloading; each
/// message names the repository, the tag and the rule.
#[test]
fn a_tag_with_other_bytes_is_refused_everywhere() {
    let Some(oci) = oci_registry() else {
        return;
    };
    let fake = registry();
    let host = oci.host();
    let installation = format!(
        "provider_installation {{\n  oci_mirror {{\n    repository_template = \"{host}/p/${{namespace}}/${{type}}\"\n    include = [\"{}/*/*\"]\n  }}\n  direct {{}}\n}}\n",
        fake.host()
    );
    let repo = locked_checkout(&fake, &host, &installation, &["linux_amd64"]);
    let target = format!("oci://{host}/p");
    let push = ["mirror", "-r", "--platform", "linux_amd64", &target, "."];
    let out = tfsum(&repo, &push);
    assert!(out.status.success(), "{}", text(&out));

    // Beside `direct`, lock records the mirror's hashes and the registry's signed lines.
    let lock = [
        "lock",
        "--use-cli-config-installation",
        "--platform",
        "linux_amd64",
        "root",
    ];
    std::fs::remove_file(repo.path().join("root").join(LOCK)).unwrap();
    let out = tfsum(&repo, &lock);
    assert!(out.status.success(), "{}", text(&out));
    let null = &entries(&repo.lock("root").unwrap())[&fake.source("hashicorp", "null")];
    let signed: BTreeSet<String> = fake
        .expected_zh("hashicorp", "null", "3.2.1")
        .into_iter()
        .collect();
    assert!(signed.is_subset(&null.hashes), "{null:?}");

    // Someone re-zips null 3.2.1 for linux_amd64 and pushes it under the tag.
    let other_zip = {
        let mut zip = fake
            .zip("hashicorp", "null", "3.2.1", "linux_amd64")
            .to_vec();
        zip.extend_from_slice(b"trailing bytes");
        zip
    };
    overwrite_tag(&oci, "p/hashicorp/null", "3.2.1", &other_zip);

    let out = tfsum(&repo, &push);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "{host}/p/hashicorp/null:3.2.1 already holds another package for linux_amd64"
        )),
        "{stdout}"
    );
    assert!(stdout.contains("refused, not overwritten"), "{stdout}");

    let out = tfsum(&repo, &lock);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("is not a line of the origin registry's signed SHA256SUMS"),
        "{stdout}"
    );

    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().join("providers");
    let dir_text = dir.to_string_lossy();
    let template = format!("{host}/p/{{namespace}}/{{type}}");
    let args = [
        "mirror",
        "-r",
        "--oci-mirror",
        &template,
        "--platform",
        "linux_amd64",
        &dir_text,
        ".",
    ];
    let out = tfsum(&repo, &args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "OCI mirror {host}/p/hashicorp/null:3.2.1 (linux_amd64): the package zh:"
        )) && stdout.contains(
            "doesn't match any of the checksums previously recorded in the dependency lock file"
        ),
        "{stdout}"
    );
}

/// Puts `zip` under `tag` as a one-platform provider index (linux_amd64), by hand.
fn overwrite_tag(oci: &Registry, repository: &str, tag: &str, zip: &[u8]) {
    let base = oci.base_url();
    let client = client();
    let upload = |bytes: &[u8]| {
        let (status, headers, _) =
            send(client.post(format!("{base}/v2/{repository}/blobs/uploads/")));
        assert_eq!(status, 202);
        let location = headers["location"].to_str().unwrap().to_string();
        let sep = if location.contains('?') { '&' } else { '?' };
        let put = client
            .put(format!("{location}{sep}digest={}", digest(bytes)))
            .body(bytes.to_vec());
        assert_eq!(send(put).0, 201, "{}", oci.log());
    };
    upload(zip);
    upload(b"{}");
    let manifest = serde_json::json!({
        "schemaVersion": 2, "mediaType": MANIFEST,
        "artifactType": "application/vnd.opentofu.provider-target",
        "config": {"mediaType": "application/vnd.oci.empty.v1+json", "digest": digest(b"{}"), "size": 2},
        "layers": [{"mediaType": "archive/zip", "digest": digest(zip), "size": zip.len()}],
    })
    .to_string();
    let put = |reference: &str, media_type: &str, body: &str| {
        let request = client
            .put(format!("{base}/v2/{repository}/manifests/{reference}"))
            .header("Content-Type", media_type)
            .body(body.to_string());
        assert_eq!(send(request).0, 201, "{}", oci.log());
    };
    put(&digest(manifest.as_bytes()), MANIFEST, &manifest);
    let index = serde_json::json!({
        "schemaVersion": 2, "mediaType": INDEX,
        "artifactType": "application/vnd.opentofu.provider",
        "manifests": [{"mediaType": MANIFEST, "digest": digest(manifest.as_bytes()),
            "size": manifest.len(), "artifactType": "application/vnd.opentofu.provider-target",
            "platform": {"os": "linux", "architecture": "amd64"}}],
    })
    .to_string();
    put(tag, INDEX, &index);
}

/// The Bearer flow: a token service grants pushes to the htpasswd user (the
/// distribution token `GET` with Basic credentials) and pulls to anyone; `lock` pulls
/// anonymously.
#[test]
fn bearer_tokens_push_and_pull() {
    let Some(backend) = Registry::start(RegistryOptions {
        relative_urls: true,
        ..RegistryOptions::default()
    }) else {
        return;
    };
    let front = BearerFront::start(&backend, TokenPolicy::default());
    let fake = registry();
    let repo = locked_checkout(&fake, &front.host, "", &["linux_amd64"]);
    let target = format!("oci://{}/mirror", front.host);
    let out = tfsum(
        &repo,
        &["mirror", "-r", "--platform", "linux_amd64", &target, "."],
    );
    assert!(out.status.success(), "{}", text(&out));

    let fresh = Repo::new(&fake, &[("root/main.tf", MAIN_TF)]);
    let template = format!("{}/mirror/{{namespace}}/{{type}}", front.host);
    let args = [
        "lock",
        "--oci-mirror",
        &template,
        "--platform",
        "linux_amd64",
        "root",
    ];
    let out = tfsum(&fresh, &args);
    assert!(out.status.success(), "{}", text(&out));
    let grants: BTreeSet<String> = front
        .token_requests()
        .into_iter()
        .map(|r| r.grant)
        .collect();
    assert_eq!(
        grants,
        BTreeSet::from(["anonymous".to_string(), "basic".to_string()])
    );
    assert!(front
        .requests()
        .iter()
        .all(|r| r.authorization.as_deref() != Some("Basic")));
}

/// Tags that are not versions are skipped; a version whose tag names something else
/// fails with the rule, naming repository and tag.
#[test]
fn other_tags_are_skipped_and_broken_artifacts_named() {
    let Some(oci) = oci_registry() else {
        return;
    };
    let fake = registry();
    let repo = locked_checkout(&fake, &oci.host(), "", &["linux_amd64"]);
    let host = oci.host();
    let out = tfsum(
        &repo,
        &[
            "mirror",
            "-r",
            "--platform",
            "linux_amd64",
            &format!("oci://{host}/m"),
            ".",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    // `latest` and `v1.2.3` are no versions: ignored. 9.9.9 names an image manifest.
    let zip = fake.zip("hashicorp", "null", "3.2.1", "linux_amd64");
    overwrite_tag(&oci, "m/hashicorp/null", "latest", &zip);
    overwrite_tag(&oci, "m/hashicorp/null", "v1.2.3", &zip);
    let (_, index) = get(
        &format!("{}/v2/m/hashicorp/null/manifests/latest", oci.base_url()),
        INDEX,
    );
    let index: serde_json::Value = serde_json::from_slice(&index).unwrap();
    let manifest_digest = index["manifests"][0]["digest"].as_str().unwrap();
    let (_, manifest) = get(
        &format!(
            "{}/v2/m/hashicorp/null/manifests/{manifest_digest}",
            oci.base_url()
        ),
        MANIFEST,
    );
    let request = client()
        .put(format!(
            "{}/v2/m/hashicorp/null/manifests/9.9.9",
            oci.base_url()
        ))
        .header("Content-Type", MANIFEST)
        .body(manifest);
    assert_eq!(send(request).0, 201);

    let template = format!("{host}/m/{{namespace}}/{{type}}");
    let fresh = checkout(&fake, &host, "");
    let lock = [
        "lock",
        "--oci-mirror",
        &template,
        "--platform",
        "linux_amd64",
        "root",
    ];
    let out = tfsum(&fresh, &lock);
    assert!(out.status.success(), "{}", text(&out));
    let null = &entries(&fresh.lock("root").unwrap())[&fake.source("hashicorp", "null")];
    assert_eq!(null.version, "3.2.1");

    fresh.write(
        "root/main.tf",
        &MAIN_TF.replace("version = \"~> 3.2\"", "version = \"9.9.9\""),
    );
    let out = tfsum(&fresh, &lock);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "OCI mirror {host}/m/hashicorp/null:9.9.9: tag refers directly to image manifest, but OpenTofu providers require an index manifest for multi-platform support"
        )),
        "{stdout}"
    );
}

/// A zip of `files` (path, content), as `zip -r` would make a module package.
fn module_zip(files: &[(&str, String)]) -> Vec<u8> {
    use std::io::Write as _;
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for (path, content) in files {
        out.start_file(*path, options).unwrap();
        out.write_all(content.as_bytes()).unwrap();
    }
    out.finish().unwrap().into_inner()
}

/// Pushes `zip` as an OpenTofu module package under `tag`, as `oras push
/// --artifact-type application/vnd.opentofu.modulepkg … pkg.zip:archive/zip` does
/// (`website/docs/cli/oci_registries/module-package.mdx:87-104`); the manifest's
/// digest.
fn push_module(oci: &Registry, repository: &str, tag: &str, zip: &[u8]) -> String {
    let base = oci.base_url();
    let client = client();
    for blob in [zip, b"{}".as_slice()] {
        let (status, headers, _) =
            send(client.post(format!("{base}/v2/{repository}/blobs/uploads/")));
        assert_eq!(status, 202, "{}", oci.log());
        let location = headers["location"].to_str().unwrap().to_string();
        let sep = if location.contains('?') { '&' } else { '?' };
        let put = client
            .put(format!("{location}{sep}digest={}", digest(blob)))
            .body(blob.to_vec());
        assert_eq!(send(put).0, 201, "{}", oci.log());
    }
    let manifest = serde_json::json!({
        "schemaVersion": 2, "mediaType": MANIFEST,
        "artifactType": "application/vnd.opentofu.modulepkg",
        "config": {"mediaType": "application/vnd.oci.empty.v1+json", "digest": digest(b"{}"), "size": 2, "data": "e30="},
        "layers": [{"mediaType": "archive/zip", "digest": digest(zip), "size": zip.len(),
            "annotations": {"org.opencontainers.image.title": "pkg.zip"}}],
    })
    .to_string();
    let request = client
        .put(format!("{base}/v2/{repository}/manifests/{tag}"))
        .header("Content-Type", MANIFEST)
        .body(manifest.clone());
    assert_eq!(send(request).0, 201, "{}", oci.log());
    digest(manifest.as_bytes())
}

/// OpenTofu's `oci://` module sources: a module pushed as a module package and called
/// by tag, by digest and with a `//subdir` locks exactly as the same module called
/// through git; `version` on such a call is refused with OpenTofu's reason; a
/// Terraform root refuses the scheme, as Terraform does.
#[test]
fn oci_modules_lock_as_the_same_module_through_git() {
    let Some(oci) = oci_registry() else {
        return;
    };
    let fake = registry();
    let host = fake.host();
    let files = [
        (
            "main.tf",
            format!("terraform {{\n  required_providers {{\n    null = {{ source = \"{host}/hashicorp/null\", version = \">= 3.0\" }}\n  }}\n}}\n"),
        ),
        (
            "sub/main.tf",
            format!("terraform {{\n  required_providers {{\n    random = {{ source = \"{host}/hashicorp/random\" }}\n  }}\n}}\n"),
        ),
    ];
    let manifest = push_module(&oci, "modules/net", "1.0.0", &module_zip(&files));

    let git = crate::support::git_http::GitServer::start();
    let repo = git.repo("net");
    for (path, content) in &files {
        repo.write(path, content);
    }
    repo.commit("v1");
    repo.tag("v1.0.0");
    let url = git.url("net");
    let registry_host = oci.host();
    let oci_root = format!(
        "module \"net\" {{\n  source = \"oci://{registry_host}/modules/net?tag=1.0.0\"\n}}\nmodule \"sub\" {{\n  source = \"oci://{registry_host}/modules/net//sub?digest={manifest}\"\n}}\n"
    );
    let git_root = format!(
        "module \"net\" {{\n  source = \"git::{url}?ref=v1.0.0\"\n}}\nmodule \"sub\" {{\n  source = \"git::{url}//sub?ref=v1.0.0\"\n}}\n"
    );
    let versioned = format!(
        "module \"net\" {{\n  source  = \"oci://{registry_host}/modules/net\"\n  version = \"1.0.0\"\n}}\n"
    );
    // A module registry whose download location is the OCI package.
    let modules = crate::support::fake_modules::FakeModuleRegistry::builder()
        .module("acme", "net", "aws")
        .version("1.0.0")
        .file("main.tf", "# replaced by the OCI location\n")
        .location(crate::support::fake_modules::Location::Given(format!(
            "oci://{registry_host}/modules/net?digest={manifest}"
        )))
        .start();
    let via_registry = format!(
        "module \"net\" {{\n  source  = \"{}\"\n  version = \"1.0.0\"\n}}\nmodule \"sub\" {{\n  source = \"git::{url}//sub?ref=v1.0.0\"\n}}\n",
        modules.source("acme", "net", "aws")
    );
    let checkout = Repo::new(
        &fake,
        &[
            ("oci/main.tofu", oci_root.as_str()),
            ("git/main.tofu", git_root.as_str()),
            ("versioned/main.tofu", versioned.as_str()),
            ("registry/main.tofu", via_registry.as_str()),
            ("terraform/main.tf", oci_root.as_str()),
        ],
    );
    let modules_host = modules.cli_config();
    std::fs::write(
        checkout.cli_config(),
        cli_config(&fake, &registry_host, &modules_host),
    )
    .unwrap();
    let git_env: Vec<(String, String)> = crate::support::git_http::hermetic_git_env();
    let mut env: Vec<(&str, &str)> = git_env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    env.extend([("SSL_CERT_FILE", CA)]);
    env.extend_from_slice(FAST_RETRIES);
    let lock = |root: &str| {
        run(
            checkout.path(),
            &checkout.cli_config(),
            &checkout.cache(),
            &["lock", "--platform", "linux_amd64", root],
            &env,
        )
    };
    for root in ["oci", "git", "registry"] {
        let out = lock(root);
        assert!(out.status.success(), "{root}: {}", text(&out));
    }
    let (from_oci, from_git) = (checkout.lock("oci").unwrap(), checkout.lock("git").unwrap());
    assert_eq!(from_oci, from_git);
    assert_eq!(checkout.lock("registry").unwrap(), from_git);
    assert!(from_oci.contains("hashicorp/random") && from_oci.contains("hashicorp/null"));
    assert!(from_oci.starts_with("# This file is maintained automatically by \"tofu init\"."));

    let out = lock("versioned");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("because it doesn't come from a module registry"),
        "{stdout}"
    );

    let out = lock("terraform");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("download not supported for scheme \"oci\""),
        "{stdout}"
    );

    // Pinned by digest, the package is in the module cache: found offline.
    let pinned = format!(
        "module \"sub\" {{\n  source = \"oci://{registry_host}/modules/net//sub?digest={manifest}\"\n}}\n"
    );
    checkout.write("pinned/main.tofu", &pinned);
    let out = run(
        checkout.path(),
        &checkout.cli_config(),
        &checkout.cache(),
        &["lock", "--platform", "linux_amd64", "pinned"],
        &env,
    );
    assert!(out.status.success(), "{}", text(&out));
    drop(oci);
    std::fs::remove_file(checkout.path().join("pinned").join(LOCK)).unwrap();
    let out = run(
        checkout.path(),
        &checkout.cli_config(),
        &checkout.cache(),
        &["lock", "--offline", "--platform", "linux_amd64", "pinned"],
        &env,
    );
    assert!(out.status.success(), "{}", text(&out));
}

/// Many CI jobs at once: runs pushing different platforms of the same versions at the
/// same moment all succeed, and the tags end up with every platform.
#[test]
fn concurrent_pushes_converge_on_every_platform() {
    let Some(oci) = oci_registry() else {
        return;
    };
    let fake = registry();
    let repo = locked_checkout(&fake, &oci.host(), "", PLATFORMS);
    let target = format!("oci://{}/ci", oci.host());
    let outputs: Vec<std::process::Output> = std::thread::scope(|scope| {
        let jobs: Vec<_> = ["linux_amd64", "darwin_arm64", "linux_amd64,darwin_arm64"]
            .into_iter()
            .map(|platforms| {
                let (repo, target) = (&repo, &target);
                scope.spawn(move || {
                    tfsum(
                        repo,
                        &["mirror", "-r", "--platform", platforms, target, "."],
                    )
                })
            })
            .collect();
        jobs.into_iter().map(|j| j.join().unwrap()).collect()
    });
    for out in &outputs {
        assert!(out.status.success(), "{}", text(out));
    }
    for (ty, version) in [("null", "3.2.1"), ("random", "3.6.0")] {
        let zips = read_as_opentofu(&oci.base_url(), &format!("ci/hashicorp/{ty}"), version);
        assert_eq!(
            zips.keys().collect::<Vec<_>>(),
            ["darwin_arm64", "linux_amd64"],
            "{ty}"
        );
    }
}

/// Registries are reached over https only: a plain-HTTP registry fails the push, naming
/// it, unless a test opts in for loopback (`TFSUM_TEST_OCI_PLAIN_HTTP=1`).
#[test]
fn https_only_unless_a_test_opts_in() {
    let Some(plain) = Registry::start(RegistryOptions::default()) else {
        return;
    };
    let fake = registry();
    let repo = Repo::new(&fake, &[("root/main.tf", MAIN_TF)]);
    let locked = repo.lock_all(&["linux_amd64"], &[], &[]);
    assert!(locked.status.success(), "{}", text(&locked));
    let target = format!("oci://{}/plain", plain.host());
    let args = ["mirror", "-r", "--platform", "linux_amd64", &target, "."];
    let refused = tfsum(&repo, &args);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    let stdout = String::from_utf8_lossy(&refused.stdout);
    assert!(
        stdout.contains(&format!("https://{}/v2/plain/hashicorp/", plain.host())),
        "{stdout}"
    );
    let env = [FAST_RETRIES, &[("TFSUM_TEST_OCI_PLAIN_HTTP", "1")]].concat();
    let allowed = run(repo.path(), &repo.cli_config(), &repo.cache(), &args, &env);
    assert!(allowed.status.success(), "{}", text(&allowed));
}
