//! The threads the stages spread roots over: one per core, each with a stack on which the
//! HCL parser never needs a fresh segment.
//!
//! Rayon's own threads have 2 MiB stacks, less than [`config::PARSE_STACK`], so every
//! file parsed on one would map, fault in and unmap a new stack segment
//! (`config::hcl`): on two cores that costs more than the parse itself, all of it in the
//! kernel. The pool here is built once, on first use.

use std::sync::OnceLock;

use rayon::{ThreadPool, ThreadPoolBuilder};

use tfsum_config as config;

/// Stack of each worker: the parser's reserve and room for the stage's own frames.
const WORKER_STACK: usize = config::PARSE_STACK + (4 << 20);

/// Runs `work` inside the pool, so that the rayon iterators it uses run on the pool's
/// threads. Without a pool (the system refused threads) `work` runs on rayon's
/// default threads, which is only slower.
pub fn run<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    static POOL: OnceLock<Option<ThreadPool>> = OnceLock::new();
    let pool = POOL.get_or_init(|| {
        ThreadPoolBuilder::new()
            .thread_name(|index| format!("tfsum-roots-{index}"))
            .stack_size(WORKER_STACK)
            .build()
            .ok()
    });
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Frees `value` on a thread of its own. What a stage built for thousands of roots (the
/// parsed modules, the directory listings) takes tens of milliseconds to free, which the
/// next stage need not wait for. Only for plain data: nothing in `value` may do more than
/// free memory when dropped, since the process may exit before the thread runs.
pub fn drop_aside<T: Send + 'static>(value: T) {
    // When no thread can be started, the closure (and `value` in it) is dropped here.
    let _ = std::thread::Builder::new()
        .name("tfsum-free".to_string())
        .spawn(move || drop(value));
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    /// What is set aside is freed, on another thread than the caller's.
    #[test]
    fn what_is_set_aside_is_freed_elsewhere() {
        struct Signals(mpsc::Sender<std::thread::ThreadId>);
        impl Drop for Signals {
            fn drop(&mut self) {
                let _ = self.0.send(std::thread::current().id());
            }
        }
        let (tx, rx) = mpsc::channel();
        super::drop_aside(Signals(tx));
        let freed_on = rx.recv_timeout(Duration::from_secs(10)).expect("freed");
        assert_ne!(freed_on, std::thread::current().id());
    }
}
