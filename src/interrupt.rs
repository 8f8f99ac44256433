//! Interrupts (SIGINT, SIGTERM) without half-written files.
//!
//! Every file tfsum replaces is written to a temporary file and renamed into place
//! while holding [`write_guard`]. The handler installed by [`install`] takes the same
//! guard before it exits, so an interrupt that arrives during a write waits for the
//! rename (or the temporary file's removal) to finish, and no write starts after it.
//! Downloads in flight are simply abandoned: they write nothing until verified.

use std::sync::{Mutex, MutexGuard};

/// The exit status after an interrupt, as shells report SIGINT (128 + 2).
pub const EXIT_INTERRUPTED: i32 = 130;

static WRITES: Mutex<()> = Mutex::new(());

/// Held for the whole create-temp → write → rename sequence of one file.
pub fn write_guard() -> MutexGuard<'static, ()> {
    // A panic while writing poisons the lock; the guard protects no data, so go on.
    WRITES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Installs the handler on the current tokio runtime. Call once per process.
pub fn install() {
    tokio::spawn(async {
        wait_for_signal().await;
        // Blocks until a write in progress completes; never released: we exit.
        let _guard = write_guard();
        eprintln!("tfsum: interrupted; every lock file is either unchanged or fully written");
        std::process::exit(EXIT_INTERRUPTED);
    });
}

#[cfg(unix)]
async fn wait_for_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        // Without handlers the default action (terminate) applies; nothing to wait for.
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => {}
        _ = term.recv() => {}
    }
}

#[cfg(not(unix))]
async fn wait_for_signal() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}
