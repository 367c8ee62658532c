//! The clock: CLOCK_MONOTONIC in nanoseconds as a plain `u64`.
//!
//! This is the clock `std::time::Instant` reads (clock_gettime through the
//! vDSO, no system call), without Instant's seconds-and-nanoseconds
//! arithmetic: a timestamp is one integer and an interval one subtraction,
//! which halves the cost of timing an operation.

/// Nanoseconds on the monotonic clock since an arbitrary origin (boot).
#[inline(always)]
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// CPU time the calling thread has used (user and system), ns
/// (CLOCK_THREAD_CPUTIME_ID): for a benchmark's own CPU work.
pub fn thread_cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_and_agrees_with_instant() {
        let (a, i) = (now_ns(), std::time::Instant::now());
        std::thread::sleep(std::time::Duration::from_millis(20));
        let (b, j) = (now_ns(), std::time::Instant::now());
        let ours = b - a;
        let std = j.duration_since(i).as_nanos() as u64;
        assert!(ours >= 20_000_000);
        assert!(ours.abs_diff(std) < 1_000_000, "{ours} vs {std}");
    }
}
