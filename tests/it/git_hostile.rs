//! Git module sources on a hostile checkout and against hostile servers (issue 20):
//! a checkout that plants git configuration where git would look for it runs nothing;
//! the user's own configuration still applies; a tree that lists hundreds of millions of
//! paths, a ref list past the cap and a server that never answers each fail their root
//! with a clear error, in bounded memory and time, leaving no git process behind.
//!
//! Each test failed against the git runner before issue 20's fix.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;
use tfsum::internals::{parse_source, FetcherOptions, GitOptions, ModuleFetcher, RetryPolicy};

use crate::harness::{self, text, FAST_RETRIES};
use crate::support::fake_registry::FakeRegistry;
use crate::support::git_http::{hermetic_git_env, GitServer};

/// A module repository whose `main.tf` needs `hashicorp/null`, tagged `v1`.
fn null_module(server: &GitServer, registry: &FakeRegistry, name: &str) -> String {
    let repo = server.repo(name);
    repo.write(
        "main.tf",
        &harness::main_tf(&[("null", "3.2.1")]).replace("{{REGISTRY}}", &registry.host()),
    );
    repo.commit("v1");
    repo.tag("v1");
    server.url(name)
}

fn calls(source: &str) -> String {
    format!("module \"m\" {{\n  source = \"{source}\"\n}}\n")
}

/// `tfsum lock -r --format=json --platform=linux_amd64 TARGET` in `cwd`, with the
/// repository's cache and CLI configuration, `env` on top.
fn lock_json(repo: &harness::Repo, cwd: &Path, target: &str, env: &[(&str, &str)]) -> Output {
    harness::run(
        cwd,
        &repo.cli_config(),
        &repo.cache(),
        &[
            "lock",
            "-r",
            "--format=json",
            "--platform=linux_amd64",
            target,
        ],
        &[FAST_RETRIES, env].concat(),
    )
}

/// Outcome and detail of the root whose directory ends in `root`.
fn outcome(out: &Output, root: &str) -> (String, String) {
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: not a JSON report:\n{}", text(out)));
    let found = report["roots"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| {
            r["dir"]
                .as_str()
                .is_some_and(|d| d == root || d.ends_with(&format!("/{root}")))
        })
        .unwrap_or_else(|| panic!("no root {root} in\n{}", text(out)));
    (
        found["outcome"].as_str().unwrap_or_default().to_string(),
        found["detail"].as_str().unwrap_or_default().to_string(),
    )
}

/// Makes `dir` a git directory to git, from plain files a checkout can hold: `HEAD`,
/// `objects/`, `refs/` and a `config` that runs `marker`-writing commands through
/// `core.sshCommand` and an `insteadOf` rule turning `http://` into `ext::`.
fn plant_git_dir(dir: &Path, marker: &Path) {
    let marker = marker.to_str().expect("utf-8 marker path");
    std::fs::create_dir_all(dir.join("objects/info")).unwrap();
    std::fs::create_dir_all(dir.join("refs/heads")).unwrap();
    std::fs::write(dir.join("objects/info/.keep"), "").unwrap();
    std::fs::write(dir.join("refs/heads/.keep"), "").unwrap();
    std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(
        dir.join("config"),
        format!(
            "[core]\n\trepositoryformatversion = 0\n\tbare = true\n\
             \tsshCommand = echo ssh >> {marker}; false\n\
             [protocol \"ext\"]\n\tallow = always\n\
             [url \"ext::sh -c echo% ext>>{marker}% #\"]\n\tinsteadOf = http://\n"
        ),
    )
    .unwrap();
}

/// A git configuration planted where git looks for one (the working directory is a git
/// directory; a directory above it is; `GIT_DIR` names one, as in a git hook) is never
/// read: no command runs, the roots that use the git server lock normally, and an ssh
/// source fails with ssh's own error.
#[test]
fn planted_git_config_in_the_working_directory_runs_nothing() {
    let registry = harness::registry();
    let server = GitServer::start();
    let url = null_module(&server, &registry, "net");
    let outside = TempDir::new().unwrap();
    let marker = outside.path().join("marker");
    let http = calls(&format!("git::{url}?ref=v1"));
    let ssh = calls("git::ssh://git@127.0.0.1:9/acme/net.git?ref=v1");

    // (scenario, directory made a git dir, working directory, target, environment)
    let scenarios: [(&str, &str, &str, &str, bool); 4] = [
        (
            "a root is a git dir",
            "infra/prod",
            "infra/prod",
            "../..",
            false,
        ),
        ("an unpacked archive's top", "", "", ".", false),
        ("above the working directory", "", "app", "..", false),
        ("GIT_DIR names it", "planted", "", ".", true),
    ];
    for (scenario, planted, cwd, target, git_dir_env) in scenarios {
        let repo = harness::Repo::new(
            &registry,
            &[
                ("app/main.tf", &http),
                ("infra/prod/main.tf", &http),
                ("ssh/main.tf", &ssh),
            ],
        );
        let planted = repo.path().join(planted);
        plant_git_dir(&planted, &marker);
        let planted_str = planted.to_string_lossy().into_owned();
        let env: Vec<(&str, &str)> = if git_dir_env {
            vec![("GIT_DIR", &planted_str), ("GIT_WORK_TREE", &planted_str)]
        } else {
            Vec::new()
        };
        let out = lock_json(&repo, &repo.path().join(cwd), target, &env);
        assert!(
            !marker.exists(),
            "{scenario}: a planted command ran ({:?}):\n{}",
            std::fs::read_to_string(&marker),
            text(&out)
        );
        assert_eq!(out.status.code(), Some(1), "{scenario}:\n{}", text(&out));
        for root in ["app", "infra/prod"] {
            let (outcome, detail) = outcome(&out, root);
            assert_eq!(outcome, "created", "{scenario}: {root}: {detail}");
        }
        let (outcome, detail) = outcome(&out, "ssh");
        assert_eq!(outcome, "failed", "{scenario}: ssh: {detail}");
        assert!(
            detail.contains("ssh/main.tf:1")
                && detail.contains("git::ssh://git@127.0.0.1:9/acme/net.git")
                && detail.contains("listing the refs"),
            "{scenario}: {detail}"
        );
    }
}

/// The user's global configuration still applies (an `insteadOf` rule sends a made-up
/// host to the git server), but cannot enable a transport a source may not use: an
/// `ext::` rule fails its root and runs nothing.
#[test]
fn the_users_global_git_config_applies_but_not_ext() {
    let registry = harness::registry();
    let server = GitServer::start();
    let url = null_module(&server, &registry, "net");
    let outside = TempDir::new().unwrap();
    let marker = outside.path().join("marker");
    let repo = harness::Repo::new(
        &registry,
        &[
            (
                "mapped/main.tf",
                &calls("git::https://git.example.invalid/net.git?ref=v1"),
            ),
            (
                "ext/main.tf",
                &calls("git::https://ext.example.invalid/net.git?ref=v1"),
            ),
        ],
    );
    let base = url.trim_end_matches("net.git");
    let home = repo.cache().parent().unwrap().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join(".gitconfig"),
        format!(
            "[url \"{base}\"]\n\tinsteadOf = https://git.example.invalid/\n\
             [protocol \"ext\"]\n\tallow = always\n\
             [url \"ext::sh -c echo% ext>>{}% #\"]\n\tinsteadOf = https://ext.example.invalid/\n",
            marker.display()
        ),
    )
    .unwrap();
    let out = lock_json(&repo, repo.path(), ".", &[]);
    assert!(!marker.exists(), "the ext:: command ran:\n{}", text(&out));
    let (mapped, detail) = outcome(&out, "mapped");
    assert_eq!(mapped, "created", "{detail}");
    let (ext, detail) = outcome(&out, "ext");
    assert_eq!(ext, "failed", "{detail}");
    assert!(
        detail.contains("git::https://ext.example.invalid/net.git")
            && detail.contains("transport 'ext' not allowed"),
        "{detail}"
    );
}

/// Runs `git ARGS` in `dir` hermetically with `input` on standard input.
fn git_with_input(dir: &Path, args: &[&str], input: &str) -> String {
    let mut child = Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(hermetic_git_env())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository `name` whose `v1` is a tree of `depth` levels, each naming the level
/// below `width` times, over one `main.tf`: `width^depth` paths from a few objects.
fn tree_bomb(server: &GitServer, name: &str, width: usize, depth: usize) -> String {
    let repo = server.repo(name);
    let work = &repo.work;
    let blob = git_with_input(work, &["hash-object", "-w", "--stdin"], "# leaf\n");
    let mut tree = git_with_input(work, &["mktree"], &format!("100644 blob {blob}\tmain.tf\n"));
    for _ in 0..depth {
        let entries: String = (0..width)
            .map(|i| format!("040000 tree {tree}\td{i:02}\n"))
            .collect();
        tree = git_with_input(work, &["mktree"], &entries);
    }
    let commit = git_with_input(work, &["commit-tree", &tree, "-m", "bomb"], "");
    git_with_input(work, &["update-ref", "refs/heads/main", &commit], "");
    repo.tag("v1");
    server.url(name)
}

/// `tfsum ARGS` as [`harness::run`] runs it, under an address-space limit of `limit`
/// bytes (`prlimit`, which every git it runs inherits), with its peak resident memory
/// (`VmHWM`, polled while it runs). Not `wait4`'s: a child spawned from this test
/// process starts its `ru_maxrss` at this process's own peak (the kernel carries the
/// old address space's high-water mark across `exec`), which the other tests running
/// beside it push past 200 MB.
fn run_limited(repo: &harness::Repo, args: &[&str], limit: u64, time: Duration) -> (Output, u64) {
    let scratch = repo.cache().parent().unwrap().to_path_buf();
    let mut inner = crate::tfsum::command(repo.path(), &repo.cli_config(), &scratch);
    inner.args(args);
    let cache = repo.cache();
    let mut envs = vec![("TFSUM_CACHE_DIR", cache.to_str().unwrap())];
    envs.extend_from_slice(FAST_RETRIES);
    let mut outer = Command::new("prlimit");
    outer
        .arg(format!("--as={limit}"))
        .arg("--")
        .arg(inner.get_program())
        .args(inner.get_args())
        .current_dir(repo.path())
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in inner.get_envs() {
        if let Some(value) = value {
            outer.env(key, value);
        }
    }
    outer.envs(envs.iter().copied());
    let mut child = outer.spawn().expect("prlimit (util-linux)");
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    // A watchdog: polled, so a run past `time` is killed and fails the test.
    let started = Instant::now();
    let mut peak = 0;
    let status = loop {
        peak = peak.max(crate::tfsum::peak_rss(child.id()).unwrap_or(0));
        if let Some(status) = child.try_wait().expect("waiting for tfsum") {
            break status;
        }
        if started.elapsed() > time {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tfsum {args:?} ran longer than {time:?} and was killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    (out, peak)
}

const MIB: u64 = 1 << 20;

/// Locks two roots, `name` calling `url` and `fine` calling a good module, under a
/// 1 GiB address-space limit: `fine` must be locked, `name` must fail, and the peak
/// resident memory stay under 200 MB, within 30 s (a watchdog kills a longer run).
/// Returns `name`'s detail.
fn lock_beside_a_fine_root(
    server: &GitServer,
    registry: &FakeRegistry,
    name: &str,
    url: &str,
) -> String {
    let fine = null_module(server, registry, "fine");
    let repo = harness::Repo::new(
        registry,
        &[
            (
                &format!("{name}/main.tf"),
                &calls(&format!("git::{url}?ref=v1")),
            ),
            ("fine/main.tf", &calls(&format!("git::{fine}?ref=v1"))),
        ],
    );
    let started = Instant::now();
    let (out, peak) = run_limited(
        &repo,
        &["lock", "-r", "--format=json", "--platform=linux_amd64", "."],
        1 << 30,
        Duration::from_secs(30),
    );
    let elapsed = started.elapsed();
    eprintln!("{name}: {elapsed:?}, peak RSS {} MiB", peak / MIB);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let (outcome_fine, detail) = outcome(&out, "fine");
    assert_eq!(outcome_fine, "created", "{detail}");
    let (outcome, detail) = outcome(&out, name);
    assert_eq!(outcome, "failed", "{detail}");
    assert!(peak > 0 && peak < 200 * MIB, "peak RSS {peak} bytes");
    detail
}

/// A tree of 8 levels each naming the next 12 times (430 million paths, 10 objects)
/// fails its root at the entry cap, with tfsum under a 1 GiB address-space limit and
/// well under 200 MB resident, in seconds; the other root is locked.
#[test]
fn a_tree_bomb_fails_closed_in_bounded_memory_and_time() {
    let registry = harness::registry();
    let server = GitServer::start();
    let bomb = tree_bomb(&server, "bomb", 12, 8);
    let detail = lock_beside_a_fine_root(&server, &registry, "bomb", &bomb);
    assert!(
        detail.contains("bomb.git") && detail.contains("more than 100000 entries"),
        "{detail}"
    );
}

/// A repository advertising more refs than the cap (200 000) fails its root naming the
/// cap, in bounded memory; the other root is locked.
#[test]
fn a_ref_list_past_the_cap_fails_its_root() {
    let registry = harness::registry();
    let server = GitServer::start();
    let many = null_module(&server, &registry, "many");
    let bare = server.existing("many").bare;
    let commit = crate::support::git_http::git(&bare, &["rev-parse", "refs/heads/main"]);
    let mut packed = String::with_capacity(200_001 * 64);
    for i in 0..200_001 {
        packed.push_str(&format!("{commit} refs/tags/t{i:06}\n"));
    }
    std::fs::write(bare.join("packed-refs"), packed).unwrap();
    let detail = lock_beside_a_fine_root(&server, &registry, "many", &many);
    assert!(
        detail.contains("many.git") && detail.contains("more than 200000 refs"),
        "{detail}"
    );
}

/// Processes whose command line names `needle` (a loopback port), other than this one.
fn processes_naming(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let me = std::process::id().to_string();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == me || !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(needle) {
            found.push(format!("{name}: {cmdline}"));
        }
    }
    found
}

/// A server that accepts connections, reads the request and never answers.
struct Stall {
    port: u16,
    connections: Arc<AtomicUsize>,
}

impl Stall {
    fn start() -> Stall {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&connections);
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming().flatten() {
                count.fetch_add(1, Ordering::SeqCst);
                let mut reader = stream.try_clone().unwrap();
                std::thread::spawn(move || {
                    let mut sink = [0u8; 1024];
                    while matches!(reader.read(&mut sink), Ok(1..)) {}
                });
                held.push(stream);
            }
        });
        Stall { port, connections }
    }
}

/// Fetches `git::URL?ref=v1` with a fetcher that has no registry client and runs git
/// hermetically with `git`'s deadlines and caps (first backoff 10 ms); returns the
/// error and the time it took. A fetch still running after `limit` fails the test (a
/// watchdog, not a check once it returns).
async fn fetch_failure(url: &str, git: GitOptions, limit: Duration) -> (String, Duration) {
    let cache = TempDir::new().unwrap();
    let fetcher = ModuleFetcher::new(
        None,
        FetcherOptions {
            cache_root: Some(cache.path().to_path_buf()),
            git: GitOptions {
                env: hermetic_git_env()
                    .into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
                retry: RetryPolicy {
                    base_delay: Duration::from_millis(10),
                    ..git.retry.clone()
                },
                ..git
            },
            ..FetcherOptions::default()
        },
    );
    let source = parse_source(&format!("git::{url}?ref=v1")).unwrap();
    let started = Instant::now();
    let Ok(fetched) = tokio::time::timeout(limit, fetcher.fetch(&source, None)).await else {
        panic!("the fetch ran longer than {limit:?}");
    };
    let err = fetched
        .map(|m| m.dir)
        .expect_err("the fetch must fail")
        .to_string();
    (err, started.elapsed())
}

/// A git server that never answers: the command is stopped at its deadline (2 s
/// here), not retried, and neither git nor its HTTP helper is left running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_git_server_hits_the_deadline_once() {
    let stall = Stall::start();
    let url = format!("http://127.0.0.1:{}/stalled.git", stall.port);
    let git = GitOptions {
        timeout: Duration::from_secs(2),
        ..GitOptions::default()
    };
    let (err, elapsed) = fetch_failure(&url, git, Duration::from_secs(5)).await;
    eprintln!("stalled server: {elapsed:?}: {err}");
    assert!(
        err.contains("stalled.git") && err.contains("did not finish within 2s"),
        "{err}"
    );
    assert_eq!(stall.connections.load(Ordering::SeqCst), 1, "retried");
    let needle = format!("127.0.0.1:{}", stall.port);
    let mut left = processes_naming(&needle);
    for _ in 0..20 {
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = processes_naming(&needle);
    }
    assert!(left.is_empty(), "left running: {left:?}");
}

/// A server that keeps failing with 503 (transient) is retried only while the step's
/// deadline (1.5 s here) lasts, however many attempts the policy would allow; the
/// error says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_stop_at_the_step_deadline() {
    let server = GitServer::start();
    let registry = harness::registry();
    let url = null_module(&server, &registry, "flaky");
    server.fail_next(100_000, 503);
    let git = GitOptions {
        step_timeout: Duration::from_millis(1500),
        retry: RetryPolicy {
            max_attempts: 1000,
            max_delay: Duration::from_millis(100),
            ..RetryPolicy::default()
        },
        ..GitOptions::default()
    };
    let (err, elapsed) = fetch_failure(&url, git, Duration::from_secs(4)).await;
    eprintln!(
        "always 503: {elapsed:?}, {} requests: {err}",
        server.requests().len()
    );
    // Between attempts the step ends with the last failure; during one (a loaded
    // machine) the attempt itself is stopped at the step's deadline.
    let between = err.contains("no success within 1.5s, retries included") && err.contains("503");
    let during = err.contains("did not finish within 1.5s");
    assert!(err.contains("flaky.git") && (between || during), "{err}");
    assert!(server.requests().len() > 2, "retried");
}
