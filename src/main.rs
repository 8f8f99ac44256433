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
    // Freed memory goes back to the system 10 ms after it was freed, not mimalloc's
    // default second (v3): a run of well under a second otherwise kept most of what it
    // ever freed, and building the configuration index over 3,000 roots peaked at 113 MB
    // instead of 92, no faster. MIMALLOC_PURGE_DELAY, when set, still decides.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: mi_option_set stores one number in mimalloc's option table; 15 is
        // mi_option_purge_delay in mimalloc.h (v2 and v3), which libmimalloc-sys does
        // not name.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10) };
    }
    tfsum::main()
}

/// `mi_option_purge_delay` in mimalloc.h's `mi_option_t`.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
