//! CPU time of the process, from getrusage(2).

use std::time::Duration;

/// User and system CPU time consumed so far, with peak resident memory,
/// context switches and page faults (what fio's `cpu` line shows).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuTimes {
    pub user: Duration,
    pub sys: Duration,
    /// Peak resident set size in KiB (`ru_maxrss`).
    pub max_rss_kib: u64,
    /// Context switches, voluntary and not (`ru_nvcsw + ru_nivcsw`).
    pub ctx_switches: u64,
    /// Page faults that read from storage (`ru_majflt`).
    pub major_faults: u64,
    /// Page faults served without I/O (`ru_minflt`).
    pub minor_faults: u64,
}

fn tv(t: libc::timeval) -> Duration {
    Duration::new(t.tv_sec.max(0) as u64, (t.tv_usec.max(0) as u32) * 1000)
}

impl CpuTimes {
    /// This process, all its threads.
    pub fn now() -> Self {
        Self::of(libc::RUSAGE_SELF)
    }

    /// The calling thread alone (a seeker thread's own CPU).
    pub fn thread() -> Self {
        Self::of(libc::RUSAGE_THREAD)
    }

    /// Children this process has waited for (worker processes).
    pub fn children() -> Self {
        Self::of(libc::RUSAGE_CHILDREN)
    }

    fn of(who: libc::c_int) -> Self {
        // SAFETY: getrusage only writes the struct we hand it; a zeroed
        // rusage is a valid value of that plain-data type.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `u` is a valid, writable rusage; `who` is RUSAGE_SELF,
        // RUSAGE_THREAD or RUSAGE_CHILDREN, which never fail.
        unsafe { libc::getrusage(who, &mut u) };
        CpuTimes {
            user: tv(u.ru_utime),
            sys: tv(u.ru_stime),
            max_rss_kib: u.ru_maxrss.max(0) as u64,
            ctx_switches: (u.ru_nvcsw.max(0) + u.ru_nivcsw.max(0)) as u64,
            major_faults: u.ru_majflt.max(0) as u64,
            minor_faults: u.ru_minflt.max(0) as u64,
        }
    }

    /// CPU consumed between `earlier` and `self` (peak RSS is `self`'s).
    pub fn since(&self, earlier: &CpuTimes) -> CpuTimes {
        CpuTimes {
            user: self.user.saturating_sub(earlier.user),
            sys: self.sys.saturating_sub(earlier.sys),
            max_rss_kib: self.max_rss_kib,
            ctx_switches: self.ctx_switches.saturating_sub(earlier.ctx_switches),
            major_faults: self.major_faults.saturating_sub(earlier.major_faults),
            minor_faults: self.minor_faults.saturating_sub(earlier.minor_faults),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_loop_costs_user_time() {
        // spin until 30 ms of CPU are counted (on a loaded machine the
        // wall time it takes is longer), giving up after 10 s of wall time
        let a = CpuTimes::now();
        let t = std::time::Instant::now();
        let mut x = 0u64;
        let mut d = CpuTimes::now().since(&a);
        while d.user + d.sys < Duration::from_millis(30) && t.elapsed() < Duration::from_secs(10) {
            for _ in 0..10_000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
            d = CpuTimes::now().since(&a);
        }
        assert!(d.user + d.sys >= Duration::from_millis(30), "{d:?}");
        assert!(d.user > Duration::ZERO, "{d:?}");
        assert!(d.max_rss_kib > 0);
        // a sleep is a voluntary switch; touching new pages, minor faults
        let before = CpuTimes::thread();
        std::thread::sleep(Duration::from_millis(2));
        let pages = vec![1u8; 1 << 22];
        std::hint::black_box(&pages);
        let after = CpuTimes::thread().since(&before);
        assert!(after.ctx_switches >= 1, "{after:?}");
        assert!(after.minor_faults >= 1, "{after:?}");
    }
}
