//! The process's limits, checked before a run starts: a run with more
//! workers than the system lets it start, or more open files than it may
//! hold, fails at once with the limit named, not after minutes of layout.

use crate::error::UsageError;

/// Descriptors a run keeps for itself beside its workers' (standard
/// streams, the progress bar, result files, shared regions).
const SPARE_FDS: u64 = 64;

/// Raise the soft limit of open files to the hard limit; return the limit.
pub fn raise_nofile() -> u64 {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut r = getrlimit(Resource::Nofile);
    if r.current < r.maximum {
        let want = rustix::process::Rlimit {
            current: r.maximum,
            maximum: r.maximum,
        };
        if setrlimit(Resource::Nofile, want).is_ok() {
            r.current = r.maximum;
        }
    }
    r.current.unwrap_or(u64::MAX)
}

/// The most threads or processes this user may run, from RLIMIT_NPROC and
/// the kernel's threads-max.
fn max_tasks(workers: u64) -> u64 {
    let nproc = rustix::process::getrlimit(rustix::process::Resource::Nproc)
        .current
        .unwrap_or(u64::MAX);
    // the kernel's limit is in the tens of thousands: read it only when it
    // could matter (a start-up cost for every short run otherwise)
    if workers < 1000 {
        return nproc;
    }
    let kernel = std::fs::read_to_string("/proc/sys/kernel/threads-max")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(u64::MAX);
    nproc.min(kernel)
}

/// Check that `workers` threads (or processes), each holding `fds` files
/// open, fit the limits. Threads share one descriptor table; processes
/// have one each.
pub fn check(workers: usize, fds: u64, processes: bool) -> Result<(), UsageError> {
    let workers = workers as u64;
    let tasks = max_tasks(workers);
    // the running tasks of this user count too: keep a margin of 64
    if workers.saturating_add(64) > tasks {
        return Err(UsageError::new(format!(
            "{workers} workers is more than this system lets one user start ({tasks}: the lower of ulimit -u and /proc/sys/kernel/threads-max); use fewer workers"
        )));
    }
    let limit = raise_nofile();
    let need = if processes {
        fds
    } else {
        workers.saturating_mul(fds)
    } + SPARE_FDS;
    if need > limit {
        return Err(UsageError::new(format!(
            "{workers} workers with {fds} open file{} each need {need} descriptors{}, more than the open-file limit ({limit}, ulimit -n); use fewer workers or files",
            if fds == 1 { "" } else { "s" },
            if processes { " per process" } else { "" }
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_fits_passes_and_what_does_not_names_the_limit() {
        check(4, 2, false).unwrap();
        let e = check(1 << 40, 1, false).unwrap_err().to_string();
        assert!(e.contains("ulimit -u"), "{e}");
        let limit = raise_nofile();
        if limit < (1 << 30) {
            let n = (limit / 2) as usize;
            let e = check(n.min(1000), limit, false).unwrap_err().to_string();
            assert!(e.contains("open-file limit"), "{e}");
            // processes each have their own table
            check(2, limit - SPARE_FDS, true).unwrap();
        }
    }
}
