//! Gives the memory glibc's allocator holds free back to the system, every few seconds
//! while `repo-mapper mcp` runs (issue 23).
//!
//! glibc keeps one arena per thread that ever allocated (up to 8 per core) and returns
//! freed memory from an arena only at its top. The server runs each session on its own
//! threads, so over an hour of the soak its resident size crept from 117 to 448 MiB, of
//! which `malloc_trim(0)` gave back 150 MiB at once. Trimming from a thread of its own
//! keeps that off every call's path. Other allocators and platforms need nothing here.
//!
//! Trimming alone still let the server drift (quarters of 254 / 272 / 282 / 289 MiB over
//! 55 minutes): an arena's free chunks below its top stay resident. So the server also
//! caps the arenas at one per core before its first thread starts; more arenas than
//! cores buy no parallelism, only more places for free memory to sit.

use std::time::Duration;

/// How often the free memory is given back.
const EVERY: Duration = Duration::from_secs(5);

/// Caps glibc's arenas at one per core and starts the trimming thread (on Linux with
/// glibc; elsewhere nothing). Call it before the server starts any thread.
pub(crate) fn start() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        limit_arenas(cores.max(2));
        let spawned = std::thread::Builder::new()
            .name("malloc-trim".into())
            .spawn(|| {
                loop {
                    std::thread::sleep(EVERY);
                    trim();
                }
            });
        if let Err(e) = spawned {
            tracing::debug!("not trimming the allocator's free memory: {e}");
        }
    }
}

/// `malloc_trim(0)`: every arena's free pages back to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn trim() {
    // SAFETY: malloc_trim takes no pointers and is thread-safe (it locks each arena).
    unsafe {
        libc::malloc_trim(0);
    }
}

/// `mallopt(M_ARENA_MAX, n)`: threads beyond `n` arenas share the existing ones.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn limit_arenas(n: usize) {
    let n = libc::c_int::try_from(n).unwrap_or(libc::c_int::MAX);
    // SAFETY: mallopt takes no pointers; it is called before the server's threads start.
    let set = unsafe { libc::mallopt(libc::M_ARENA_MAX, n) };
    if set == 0 {
        tracing::debug!("glibc did not accept M_ARENA_MAX = {n}");
    }
}
