//! Time bounds enforced while a test runs, not checked once it returns: a child that
//! outlives its deadline is killed and the test fails naming it, where a check of
//! `elapsed()` after the call would leave a regression hanging the whole suite.

use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `command` as [`Command::output`] does (stdin closed, stdout and stderr
/// captured), but kills it and fails the test once it has run longer than `limit`.
pub fn output_within(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {:?}: {e}", command.get_program()));
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let status = wait_within(&mut child, limit, &format!("{command:?}"));
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// Waits for `child` (`what`, for the message); once it has run longer than `limit`,
/// kills and reaps it and fails the test.
pub fn wait_within(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            return status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ran longer than {limit:?} and was killed: {what}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
