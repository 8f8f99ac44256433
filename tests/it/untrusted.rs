//! An untrusted checkout, tried as an attacker would: a repository's files may choose what
//! is locked, never what is trusted, where tfsum writes, or how it reaches the network.
//! Each test here is one attack (or one corporate network) from the untrusted-checkout
//! review; each failed against the code that review looked at.

use std::net::SocketAddr;

use crate::harness::{self, run, text, Repo, FAST_RETRIES, LOCK};
use crate::support::fake_registry::FakeRegistry;
use crate::support::proxy::Proxy;

const PLATFORMS: &[&str] = &["darwin_arm64", "linux_amd64"];

/// A checkout that carries its own `.tfsum.toml` pointing `cache_dir` at a cache of
/// forged hashes in the repository: refused before anything is read or written, with and
/// without `--check`.
#[test]
fn a_repository_cannot_choose_the_cache() {
    let registry = harness::registry();
    let repo = Repo::two_roots(&registry);
    repo.write(".tfsum.toml", "cache_dir = \".cache\"\n");
    let forged = ".cache/v2/packages/x/hashicorp/null/3.2.1/linux_amd64.json";
    repo.write(forged, "{\"check\":\"\",\"entry\":{}}");
    let before = repo.snapshot();
    for extra in [&[][..], &["--check"][..]] {
        let out = repo.lock_all(PLATFORMS, extra, &[]);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", text(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(".tfsum.toml:1: cache_dir cannot be set in a repository's .tfsum.toml"),
            "{stderr}"
        );
        assert_eq!(repo.snapshot(), before, "{extra:?}: something was written");
    }
    assert!(registry.requests().is_empty());
}

/// A lock file that is a link leading out of the repository fails its root, naming the
/// link and its target; the outside file is untouched and the other roots are written. A
/// link to a lock file inside the repository (a lock shared between environments) is
/// written through.
#[cfg(unix)]
#[test]
fn lock_file_links_stay_inside_the_tree() {
    let registry = harness::registry();
    let repo = Repo::new(
        &registry,
        &[
            ("a/main.tf", &harness::main_tf(&[("null", "3.2.1")])),
            ("b/main.tf", &harness::main_tf(&[("null", "3.2.1")])),
            ("shared/main.tf", &harness::main_tf(&[("null", "3.2.1")])),
            ("c/main.tf", &harness::main_tf(&[("null", "3.2.1")])),
        ],
    );
    let outside = tempfile::TempDir::new().expect("outside");
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "precious\n").expect("victim");
    std::os::unix::fs::symlink(&victim, repo.path().join("b").join(LOCK)).expect("link");
    std::fs::write(repo.path().join("shared").join(LOCK), "").expect("shared lock");
    std::os::unix::fs::symlink(
        "../shared/.terraform.lock.hcl",
        repo.path().join("c").join(LOCK),
    )
    .expect("inner link");

    let out = repo.lock_all(PLATFORMS, &[], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    let report = harness::root_report(&out, "b");
    assert!(report.starts_with("failed"), "{report}");
    let victim_real = std::fs::canonicalize(&victim).unwrap();
    assert!(
        report.contains("b/.terraform.lock.hcl is a symbolic link to")
            && report.contains(&victim_real.display().to_string()),
        "{report}"
    );
    assert!(repo.lock("a").is_some_and(|l| l.contains("3.2.1")));
    // c's link now leads to the shared lock file, written once for both.
    assert!(std::fs::symlink_metadata(repo.path().join("c").join(LOCK))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(repo.lock("shared").is_some_and(|l| l.contains("3.2.1")));
}

/// A link planted where a cache entry will be written is replaced by the entry; what it
/// pointed at is untouched.
#[cfg(unix)]
#[test]
fn cache_writes_never_follow_links() {
    let registry = harness::registry();
    let repo = Repo::two_roots(&registry);
    let outside = tempfile::TempDir::new().expect("outside");
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "precious\n").expect("victim");
    let entry_in = |layout: &str| {
        repo.cache()
            .join(layout)
            .join("packages")
            .join(registry.host().replace(':', "_"))
            .join("hashicorp/null/3.2.1/linux_amd64.json")
    };
    // Planted in this layout and the one before (which older tfsum followed).
    for layout in ["v1", "v2"] {
        let entry = entry_in(layout);
        std::fs::create_dir_all(entry.parent().unwrap()).expect("entry dir");
        std::os::unix::fs::symlink(&victim, &entry).expect("planted link");
    }
    let entry = entry_in("v2");

    let out = repo.lock_all(PLATFORMS, &[], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(!std::fs::symlink_metadata(&entry)
        .unwrap()
        .file_type()
        .is_symlink());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("ignoring the cache entry") && stdout.contains("symbolic link"),
        "{stdout}"
    );
}

/// OpenTofu's `packages` map speaks for packages nobody downloaded; only `tofu init`
/// believes it. A Terraform root downloads every platform and records what it hashed; an
/// OpenTofu root takes the map's word, as OpenTofu does.
#[test]
fn the_packages_map_is_for_opentofu_roots_only() {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(PLATFORMS)
        .start();
    registry.set_packages_map(true);
    let forged = "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    registry.forge_packages_map_h1("hashicorp", "null", "3.2.1", "linux_amd64", forged);
    let config = harness::main_tf(&[("null", "3.2.1")]);
    let repo = Repo::new(
        &registry,
        &[("terraform/main.tf", &config), ("tofu/main.tofu", &config)],
    );
    let out = repo.lock_all(PLATFORMS, &[], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let terraform = repo.lock("terraform").expect("terraform lock");
    let real = registry.expected_h1("hashicorp", "null", "3.2.1", "linux_amd64");
    assert!(
        terraform.contains(&real) && !terraform.contains(forged),
        "{terraform}"
    );
    let tofu = repo.lock("tofu").expect("tofu lock");
    assert!(tofu.contains(forged), "{tofu}");
}

/// The CA of a TLS-inspecting proxy lives in the system's certificate directory, which
/// `SSL_CERT_DIR` names: an https registry signed by it is trusted.
#[test]
fn a_ca_in_ssl_cert_dir_is_trusted() {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(PLATFORMS)
        .tls()
        .start();
    let repo = Repo::new(
        &registry,
        &[("a/main.tf", &harness::main_tf(&[("null", "3.2.1")]))],
    );
    let certs = tempfile::TempDir::new().expect("cert dir");
    std::fs::copy(
        crate::support::fake_registry::test_ca_path(),
        certs.path().join("corporate-proxy.crt"),
    )
    .expect("copy CA");
    let dir = certs.path().to_string_lossy().into_owned();
    let out = repo.lock_all(PLATFORMS, &[], &[("SSL_CERT_DIR", &dir)]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(repo.lock("a").is_some());

    // Without it the certificate is unknown, and the root fails naming the host.
    let fresh = Repo::new(
        &registry,
        &[("a/main.tf", &harness::main_tf(&[("null", "3.2.1")]))],
    );
    let empty = tempfile::TempDir::new().expect("empty cert dir");
    let empty = empty.path().to_string_lossy().into_owned();
    let out = fresh.lock_all(PLATFORMS, &[], &[("SSL_CERT_DIR", &empty)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

/// A registry only a proxy can reach (its name resolves nowhere else): `HTTPS_PROXY` and
/// `HTTP_PROXY` carry the requests through it, and `NO_PROXY` keeps them off it.
#[test]
fn registries_through_a_proxy() {
    for tls in [true, false] {
        let builder = FakeRegistry::builder()
            .provider("hashicorp", "null")
            .version("3.2.1")
            .platforms(PLATFORMS);
        let registry = if tls { builder.tls() } else { builder }.start();
        let addr: SocketAddr = registry.host().parse().expect("registry address");
        let name = format!("registry.test:{}", addr.port());
        let proxy = Proxy::start(&[(name.as_str(), addr)]);
        let scheme = if tls { "https" } else { "http" };
        let repo = Repo::new(&registry, &[]);
        repo.write(
            "a/main.tf",
            &format!(
                "terraform {{\n  required_providers {{\n    null = {{\n      source  = \"{name}/hashicorp/null\"\n      version = \"3.2.1\"\n    }}\n  }}\n}}\n"
            ),
        );
        std::fs::write(
            repo.cli_config(),
            format!("host \"{name}\" {{\n  services = {{\n    \"providers.v1\" = \"{scheme}://{name}/v1/providers/\"\n  }}\n}}\n"),
        )
        .expect("cli config");
        let ca = crate::support::fake_registry::test_ca_path();
        let ca = ca.to_string_lossy();
        let variable = if tls { "HTTPS_PROXY" } else { "HTTP_PROXY" };
        let lock = |no_proxy: &str| {
            let env = [
                (variable, proxy.url()),
                ("NO_PROXY", no_proxy.to_string()),
                ("SSL_CERT_FILE", ca.to_string()),
            ];
            let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
            lock_in(&repo, &env)
        };
        let out = lock("");
        assert!(out.status.success(), "{scheme}: {}", text(&out));
        let seen = proxy.seen();
        let want = if tls {
            format!("CONNECT {name} ")
        } else {
            format!("GET {scheme}://{name}/v1/providers/hashicorp/null/")
        };
        assert!(
            seen.iter().any(|l| l.starts_with(&want)),
            "{scheme}: {seen:?}"
        );

        std::fs::remove_file(repo.path().join("a").join(LOCK)).expect("remove lock");
        let before = proxy.seen().len();
        let out = lock("registry.test");
        assert_eq!(out.status.code(), Some(1), "{scheme}: {}", text(&out));
        assert_eq!(proxy.seen().len(), before, "{scheme}: NO_PROXY ignored");
    }
}

/// `tfsum lock -r .` for `repo` with its cache, without the harness's `NO_PROXY=*`.
fn lock_in(repo: &Repo, env: &[(&str, &str)]) -> std::process::Output {
    let mut args = vec!["lock".to_string(), "-r".to_string()];
    args.extend(PLATFORMS.iter().map(|p| format!("--platform={p}")));
    args.extend(["--no-cache".to_string(), ".".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut all = FAST_RETRIES.to_vec();
    all.extend_from_slice(env);
    run(repo.path(), &repo.cli_config(), &repo.cache(), &args, &all)
}
