//! The threads the stages spread roots over: one per core, each with a stack on which the
//! HCL parser never needs a fresh segment.
//!
//! Rayon's own threads have 2 MiB stacks, less than [`config::PARSE_STACK`], so every
//! file parsed on one would map, fault in and unmap a new stack segment
//! (`config::hcl`): on two cores that costs more than the parse itself, all of it in the
//! kernel. The pool here is built once, on first use.

use std::sync::OnceLock;

use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::config;

/// Stack of each worker: the parser's reserve and room for the stage's own frames.
const WORKER_STACK: usize = config::PARSE_STACK + (4 << 20);

/// Runs `work` inside the pool, so that the rayon iterators it uses run on the pool's
/// threads. Without a pool (the system refused threads) `work` runs on rayon's
/// default threads, which is only slower.
pub(crate) fn run<R: Send>(work: impl FnOnce() -> R + Send) -> R {
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
