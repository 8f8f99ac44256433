//! The `tfsum` binary: everything is in the library, whose [`tfsum::main`] parses the
//! arguments, runs the command and returns the exit code.

/// mimalloc: a warm run over thousands of roots reads, parses and frees millions of
/// small values on every core, and glibc's allocator spent a fifth of such a run in
/// `malloc`/`free` and in growing its per-thread heaps a page at a time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // No transparent huge pages for this process: mimalloc's heaps are large mappings
    // touched sparsely, and with THP on ("always", as many distributions ship it) every
    // touch made 2 MiB resident (a 3,000-root run: 100 MB instead of 70).
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_THP_DISABLE takes plain integers and only sets a flag of
    // this process.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    tfsum::main()
}
