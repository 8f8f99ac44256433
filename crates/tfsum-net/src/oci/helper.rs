//! Docker credential helpers: `docker-credential-<name> get`, the server URL on stdin,
//! `{"ServerURL","Username","Secret"}` on stdout — the protocol ORAS-Go's "native
//! store" speaks for OpenTofu (`registry/remote/credentials/native_store.go:81-101` and
//! `internal/executer/executer.go:45-71` at oras-go v2.6.2;
//! `cmd/tofu/oci_distribution.go:184-258` at OpenTofu v1.12.6).
//!
//! - The program is looked for on the `PATH` of [`OciEnv`], not the process's, so tests
//!   can put a fake helper first; it runs with the process's environment otherwise
//!   (helpers need `HOME`, `DBUS_SESSION_BUS_ADDRESS` and the like).
//! - A failed run whose output is `credentials not found in native keychain` means "no
//!   credentials for this host": requests go anonymously, as ORAS does.
//! - An answer with the username `<token>` is an identity token, which OpenTofu refuses;
//!   so does tfsum.
//! - It is killed after a timeout, and at most 64 KiB of its output is read. Its output
//!   is never quoted in an error unless the run failed, and then only its first 200
//!   characters (helpers print their error message there).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};

use crate::cliconfig::Token;

use super::credentials::{Credentials, CredentialsError, HelperName, OciEnv};

/// The most of a helper's stdout (and of its stderr) that is read.
const MAX_OUTPUT: u64 = 64 * 1024;

/// ORAS's message for "no credentials for this server" (`native_store.go:32`).
const NOT_FOUND: &str = "credentials not found in native keychain";

/// The username a helper gives for an identity token (`native_store.go:31`).
const IDENTITY_TOKEN_USER: &str = "<token>";

#[derive(serde::Deserialize)]
struct Answer {
    #[serde(rename = "Username", default)]
    username: String,
    #[serde(rename = "Secret", default)]
    secret: String,
}

/// Asks `helper` for the credentials of `server_url`. `None`: it has none.
pub(crate) async fn get(
    helper: &HelperName,
    server_url: &str,
    env: &OciEnv,
    timeout: Duration,
) -> Result<Option<Credentials>, CredentialsError> {
    let program = find(&helper.program(), env).ok_or_else(|| CredentialsError::HelperNotFound {
        helper: helper.clone(),
    })?;
    let run_error = |e: std::io::Error| CredentialsError::HelperRun {
        helper: helper.clone(),
        reason: e.to_string(),
    };
    let mut child = tokio::process::Command::new(&program)
        .arg("get")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(run_error)?;
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(CredentialsError::HelperRun {
            helper: helper.clone(),
            reason: "its standard streams could not be opened".to_string(),
        });
    };
    let work = async {
        // A helper that exits without reading its input is not an error here; its
        // exit status says what happened.
        let _ = stdin.write_all(server_url.as_bytes()).await;
        drop(stdin);
        let (out, _err, status) =
            tokio::join!(read_capped(stdout), read_capped(stderr), child.wait());
        Ok::<_, std::io::Error>((out?, status?))
    };
    let ((out, truncated), status) = tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| CredentialsError::HelperTimeout {
            helper: helper.clone(),
            after: timeout,
        })?
        .map_err(run_error)?;
    if !status.success() {
        let message: String = String::from_utf8_lossy(&out)
            .trim()
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(200)
            .collect();
        if message == NOT_FOUND {
            return Ok(None);
        }
        return Err(CredentialsError::HelperFailed {
            helper: helper.clone(),
            status: status.to_string(),
            message,
        });
    }
    if truncated {
        return Err(CredentialsError::HelperOutput {
            helper: helper.clone(),
            reason: format!("more than {MAX_OUTPUT} bytes of output"),
        });
    }
    let answer: Answer =
        serde_json::from_slice(&out).map_err(|e| CredentialsError::HelperOutput {
            helper: helper.clone(),
            reason: format!(
                "not a JSON object with Username and Secret ({:?} at line {}, column {})",
                e.classify(),
                e.line(),
                e.column()
            ),
        })?;
    if answer.username == IDENTITY_TOKEN_USER {
        return Err(CredentialsError::HelperIdentityToken {
            helper: helper.clone(),
        });
    }
    if answer.username.is_empty() && answer.secret.is_empty() {
        return Ok(None);
    }
    Ok(Some(Credentials::Basic {
        username: answer.username,
        password: Token::new(answer.secret),
    }))
}

/// Reads up to [`MAX_OUTPUT`] bytes, then drains the rest so the helper is not
/// blocked on a full pipe; says whether there was more.
async fn read_capped(stream: impl AsyncRead + Unpin) -> std::io::Result<(Vec<u8>, bool)> {
    let mut kept = Vec::new();
    let mut limited = stream.take(MAX_OUTPUT);
    limited.read_to_end(&mut kept).await?;
    let mut rest = limited.into_inner();
    let extra = tokio::io::copy(&mut rest, &mut tokio::io::sink()).await?;
    Ok((kept, extra > 0))
}

/// The first executable named `program` in the directories of `PATH`.
fn find(program: &str, env: &OciEnv) -> Option<PathBuf> {
    let path = env.var("PATH")?;
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .flat_map(|dir| candidates(&dir, program))
        .find(|file| is_executable(file))
}

fn candidates(dir: &Path, program: &str) -> Vec<PathBuf> {
    if cfg!(windows) {
        vec![dir.join(format!("{program}.exe")), dir.join(program)]
    } else {
        vec![dir.join(program)]
    }
}

#[cfg(unix)]
fn is_executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(file: &Path) -> bool {
    file.is_file()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A helper script named `docker-credential-<name>` in a directory of its own.
    fn fake(dir: &Path, name: &str, body: &str) -> HelperName {
        use std::os::unix::fs::PermissionsExt as _;
        let file = dir.join(format!("docker-credential-{name}"));
        std::fs::write(&file, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        HelperName::parse(name).unwrap()
    }

    /// Each way a helper can answer, and what becomes of it.
    #[tokio::test]
    async fn helper_answers_table() {
        let dir = tempfile::tempdir().unwrap();
        let env = OciEnv {
            vars: [(
                "PATH".to_string(),
                format!("/nonexistent:{}", dir.path().display()),
            )]
            .into(),
            home: None,
            os: "linux".into(),
        };
        let cases: &[(&str, &str, &str)] = &[
            (
                "echoes",
                // The server URL comes on stdin, and the action as the argument.
                r#"read url; [ "$1" = get ] || exit 3; printf '{"ServerURL":"%s","Username":"u-%s","Secret":"s3cret"}' "$url" "$url""#,
                "Basic u-https://registry.example",
            ),
            ("empty", r#"echo '{"Username":"","Secret":""}'"#, "none"),
            (
                "missing",
                "echo 'credentials not found in native keychain'; exit 1",
                "none",
            ),
            (
                "failing",
                "echo 'keychain locked'; echo 'noise' >&2; exit 2",
                "error: credential helper docker-credential-failing failed (exit status: 2): keychain locked",
            ),
            (
                "identity",
                r#"echo '{"Username":"<token>","Secret":"s3cret"}'"#,
                "error: credential helper docker-credential-identity answered with an identity token (username <token>); only a username and password are accepted from a helper",
            ),
            (
                "garbage",
                "echo 's3cret is not json'",
                "error: credential helper docker-credential-garbage answered something unusable: not a JSON object with Username and Secret (Syntax at line 1, column 1)",
            ),
            (
                "chatty",
                "head -c 100000 /dev/zero",
                "error: credential helper docker-credential-chatty answered something unusable: more than 65536 bytes of output",
            ),
            (
                "slow",
                "sleep 5",
                "error: credential helper docker-credential-slow gave no answer within 300ms",
            ),
        ];
        for (name, body, want) in cases {
            let helper = fake(dir.path(), name, body);
            let got = get(
                &helper,
                "https://registry.example",
                &env,
                Duration::from_millis(300),
            )
            .await;
            let shown = match got {
                Ok(Some(Credentials::Basic { username, password })) => {
                    assert_eq!(password.expose(), "s3cret");
                    format!("Basic {username}")
                }
                Ok(Some(other)) => format!("{other:?}"),
                Ok(None) => "none".to_string(),
                Err(e) => format!("error: {e}"),
            };
            assert_eq!(shown, *want, "{name}");
        }
        let absent = get(
            &HelperName::parse("absent").unwrap(),
            "https://registry.example",
            &env,
            Duration::from_secs(1),
        )
        .await
        .unwrap_err();
        assert_eq!(
            absent.to_string(),
            "credential helper docker-credential-absent was not found on PATH"
        );
    }
}
