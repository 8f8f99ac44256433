//! The two [`Progress`] front ends the binary uses besides [`tfsum_vocab::progress::NoProgress`]:
//!
//! - [`TerminalProgress`]: indicatif bars on stderr while a person watches — package
//!   bytes with rate, packages downloaded/from cache, roots written. Cleared when the run
//!   ends, so only the report stays on screen.
//! - [`LogProgress`]: the same events as `tracing` debug lines, for `-v`.
//!
//! Off a terminal (CI, Renovate, pre-commit) the binary uses neither: the report alone,
//! one line per root, is the output, so logs stay short and identical run to run.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use tfsum_vocab::progress::Progress;

/// Progress bars on stderr.
pub struct TerminalProgress {
    packages: ProgressBar,
    roots: ProgressBar,
    started: AtomicU64,
    finished: AtomicU64,
    failed: AtomicU64,
    cached: AtomicU64,
}

impl TerminalProgress {
    pub fn new() -> TerminalProgress {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let packages = multi.add(ProgressBar::new(0));
        packages.set_style(
            ProgressStyle::with_template(
                "{spinner} packages {msg} [{bar:25}] {bytes}/{total_bytes} {binary_bytes_per_sec} {elapsed}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        packages.set_message("0 downloaded, 0 from cache");
        packages.enable_steady_tick(Duration::from_millis(120));
        let roots = multi.add(ProgressBar::new_spinner());
        roots.set_style(
            ProgressStyle::with_template("{spinner} roots {pos} written {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        TerminalProgress {
            packages,
            roots,
            started: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            cached: AtomicU64::new(0),
        }
    }

    /// Removes the bars, before the report is printed.
    pub fn finish(&self) {
        self.packages.finish_and_clear();
        self.roots.finish_and_clear();
    }

    fn update_message(&self) {
        let started = self.started.load(Ordering::Relaxed);
        let finished = self.finished.load(Ordering::Relaxed);
        let failed = self.failed.load(Ordering::Relaxed);
        let cached = self.cached.load(Ordering::Relaxed);
        let failed = if failed > 0 {
            format!(", {failed} failed")
        } else {
            String::new()
        };
        self.packages.set_message(format!(
            "{finished}/{started} downloaded{failed}, {cached} from cache"
        ));
    }
}

impl Default for TerminalProgress {
    fn default() -> Self {
        TerminalProgress::new()
    }
}

impl Progress for TerminalProgress {
    fn download_started(&self, _package: &str, total: Option<u64>) {
        self.started.fetch_add(1, Ordering::Relaxed);
        if let Some(total) = total {
            self.packages.inc_length(total);
        }
        self.update_message();
    }

    fn download_progress(&self, _package: &str, bytes: u64) {
        self.packages.inc(bytes);
    }

    fn download_finished(&self, _package: &str, ok: bool) {
        self.finished.fetch_add(1, Ordering::Relaxed);
        if !ok {
            self.failed.fetch_add(1, Ordering::Relaxed);
        }
        self.update_message();
    }

    fn cache_hit(&self, _package: &str) {
        self.cached.fetch_add(1, Ordering::Relaxed);
        self.update_message();
    }

    fn root_done(&self, dir: &Path, outcome: &str) {
        self.roots.inc(1);
        self.roots
            .set_message(format!("({outcome} {})", dir.display()));
    }
}

/// Every event as a `tracing` debug line (`-v`).
pub struct LogProgress;

impl Progress for LogProgress {
    fn download_started(&self, package: &str, total: Option<u64>) {
        tracing::debug!(package, bytes = total, "download started");
    }

    fn download_finished(&self, package: &str, ok: bool) {
        if ok {
            tracing::debug!(package, "downloaded and hashed");
        } else {
            tracing::debug!(package, "download failed");
        }
    }

    fn cache_hit(&self, package: &str) {
        tracing::debug!(package, "all hashes from the cache");
    }

    fn root_done(&self, dir: &Path, outcome: &str) {
        tracing::debug!(dir = %dir.display(), outcome, "root done");
    }
}
