//! How busy the machine was while a run was measured: the CPU time the
//! whole machine spent (the first `cpu` line of `/proc/stat`), what of it
//! iogauge itself used (getrusage, its worker processes included), time a
//! hypervisor stole, and the load average (`/proc/loadavg`).
//!
//! The runner takes a [`Snapshot`] when the measured phase begins and
//! ends it with [`Snapshot::end`]; a run of several phases adds them up
//! ([`MachineLoad::add`]).
//!
//! ```text
//!   /proc/stat "cpu" line, in clock ticks (USER_HZ, 100 per second):
//!   user nice system idle iowait irq softirq steal guest guest_nice
//!   └─── busy ────┘  └─ idle ─┘   └ (kernel ┘   │    (already in user)
//!                                   work for      └ stolen by the hypervisor
//!                                   devices)
//!   others = busy − iogauge's own user + system (never below 0)
//! ```
//!
//! `irq` and `softirq` are left out of `busy`: they are mostly the
//! completions of iogauge's own I/O, charged to no process. Kernel threads
//! that write back iogauge's dirty pages count as other processes; a
//! threshold well above their share keeps them from raising a warning on
//! their own.

use super::CpuTimes;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The aggregate CPU times of `/proc/stat`, in clock ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTicks {
    /// user + nice + system: tasks running.
    pub busy: u64,
    /// idle + iowait.
    pub idle: u64,
    /// irq + softirq.
    pub irq: u64,
    pub steal: u64,
}

impl CpuTicks {
    /// Every tick counted: busy, idle, interrupts and steal.
    pub fn total(&self) -> u64 {
        self.busy + self.idle + self.irq + self.steal
    }

    fn since(&self, earlier: &CpuTicks) -> CpuTicks {
        CpuTicks {
            busy: self.busy.saturating_sub(earlier.busy),
            idle: self.idle.saturating_sub(earlier.idle),
            irq: self.irq.saturating_sub(earlier.irq),
            steal: self.steal.saturating_sub(earlier.steal),
        }
    }
}

/// The first line of `/proc/stat` (`cpu  user nice system idle iowait irq
/// softirq steal ...`); `None` when it is not there or not numbers. Older
/// kernels give fewer columns: the missing ones are 0.
pub fn parse_stat(text: &str) -> Option<CpuTicks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    if v.len() < 4 {
        return None;
    }
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    Some(CpuTicks {
        busy: at(0) + at(1) + at(2),
        idle: at(3) + at(4),
        irq: at(5) + at(6),
        steal: at(7),
    })
}

/// The one-minute load average, the first field of `/proc/loadavg`.
pub fn parse_loadavg(text: &str) -> Option<f64> {
    text.split_whitespace()
        .next()?
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
}

/// Clock ticks per second of `/proc/stat` (USER_HZ).
fn ticks_per_s() -> f64 {
    // SAFETY: sysconf reads a constant of the system; no memory is passed.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 { hz as f64 } else { 100.0 }
}

/// What the machine did while runs were measured, summed over their
/// measured phases. All zero when nothing was measured (or `/proc/stat`
/// could not be read).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MachineLoad {
    /// Wall time the figures cover: the measured phases, s.
    pub wall_s: f64,
    /// CPU time the machine had over that time (wall × CPUs), s.
    pub capacity_s: f64,
    /// CPU time spent running tasks (user, nice and system), s.
    pub busy_s: f64,
    /// Of `busy_s`, iogauge's own (its threads and worker processes), s.
    pub own_s: f64,
    /// CPU time taken by the hypervisor for other guests, s.
    pub steal_s: f64,
    /// The one-minute load average at the end of each phase, weighted by
    /// the phase's wall time.
    pub load_avg: f64,
}

impl MachineLoad {
    /// CPU time other processes used: busy minus iogauge's own, s.
    pub fn others_s(&self) -> f64 {
        (self.busy_s - self.own_s).max(0.0)
    }

    /// Other processes' CPU as cores kept busy on average.
    pub fn others_cores(&self) -> f64 {
        if self.wall_s > 0.0 {
            self.others_s() / self.wall_s
        } else {
            0.0
        }
    }

    /// CPUs the figures saw (capacity over wall time).
    pub fn cpus(&self) -> f64 {
        if self.wall_s > 0.0 {
            self.capacity_s / self.wall_s
        } else {
            0.0
        }
    }

    /// Share of the capacity stolen, 0 to 1.
    pub fn steal_share(&self) -> f64 {
        if self.capacity_s > 0.0 {
            self.steal_s / self.capacity_s
        } else {
            0.0
        }
    }

    /// Nothing measured.
    pub fn is_empty(&self) -> bool {
        self.capacity_s <= 0.0
    }

    /// Add another phase's figures (a run of several phases).
    pub fn add(&mut self, other: &MachineLoad) {
        let wall = self.wall_s + other.wall_s;
        self.load_avg = if wall > 0.0 {
            (self.load_avg * self.wall_s + other.load_avg * other.wall_s) / wall
        } else {
            0.0
        };
        self.wall_s = wall;
        self.capacity_s += other.capacity_s;
        self.busy_s += other.busy_s;
        self.own_s += other.own_s;
        self.steal_s += other.steal_s;
    }

    /// The figures of one phase from the ticks at its two ends, the wall
    /// time between them, iogauge's CPU in it and the load average at its
    /// end.
    pub fn of_phase(
        ticks: CpuTicks,
        hz: f64,
        wall: Duration,
        own: &CpuTimes,
        load_avg: f64,
    ) -> MachineLoad {
        let s = |t: u64| t as f64 / hz;
        MachineLoad {
            wall_s: wall.as_secs_f64(),
            capacity_s: s(ticks.total()),
            busy_s: s(ticks.busy),
            own_s: (own.user + own.sys).as_secs_f64(),
            steal_s: s(ticks.steal),
            load_avg,
        }
    }
}

/// The machine at the start of a measured phase.
#[derive(Clone, Copy, Debug)]
pub struct Snapshot {
    ticks: Option<CpuTicks>,
    at: Instant,
}

fn read_ticks() -> Option<CpuTicks> {
    parse_stat(&std::fs::read_to_string("/proc/stat").ok()?)
}

impl Snapshot {
    pub fn now() -> Snapshot {
        Snapshot {
            ticks: read_ticks(),
            at: Instant::now(),
        }
    }

    /// The phase's figures, now that it ended; `own` is iogauge's CPU time
    /// in it. Empty when `/proc/stat` could not be read.
    pub fn end(&self, own: &CpuTimes) -> MachineLoad {
        let (Some(a), Some(b)) = (self.ticks, read_ticks()) else {
            return MachineLoad::default();
        };
        let load = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|t| parse_loadavg(&t))
            .unwrap_or(0.0);
        MachineLoad::of_phase(b.since(&a), ticks_per_s(), self.at.elapsed(), own, load)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_parse_into_busy_idle_interrupts_and_steal() {
        let text = "cpu  40108 5 4311 41173 413 7 58 36 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 1\n";
        assert_eq!(
            parse_stat(text),
            Some(CpuTicks {
                busy: 40108 + 5 + 4311,
                idle: 41173 + 413,
                irq: 7 + 58,
                steal: 36,
            })
        );
        // an old kernel's four columns
        assert_eq!(
            parse_stat("cpu 1 2 3 4\n"),
            Some(CpuTicks {
                busy: 6,
                idle: 4,
                irq: 0,
                steal: 0
            })
        );
        assert_eq!(parse_stat("cpu0 1 2 3 4\n"), None);
        assert_eq!(parse_stat("cpu 1 2 x 4\n"), None);
        assert_eq!(parse_stat("cpu 1 2\n"), None);
        assert_eq!(parse_loadavg("1.63 1.05 0.48 3/97 9862\n"), Some(1.63));
        assert_eq!(parse_loadavg("nan 1 1"), None);
        assert_eq!(parse_loadavg(""), None);
    }

    #[test]
    fn a_phase_in_seconds_and_phases_added() {
        // 2 CPUs for 1 s at 100 ticks a second: 200 ticks
        let ticks = CpuTicks {
            busy: 150,
            idle: 30,
            irq: 0,
            steal: 20,
        };
        let own = CpuTimes {
            user: Duration::from_millis(400),
            sys: Duration::from_millis(100),
            ..Default::default()
        };
        let a = MachineLoad::of_phase(ticks, 100.0, Duration::from_secs(1), &own, 3.0);
        assert_eq!(a.capacity_s, 2.0);
        assert_eq!(a.busy_s, 1.5);
        assert_eq!(a.others_s(), 1.0);
        assert_eq!(a.others_cores(), 1.0);
        assert_eq!(a.cpus(), 2.0);
        assert_eq!(a.steal_share(), 0.1);
        // iogauge counted more than the ticks saw: others are 0, not negative
        let busy_self = MachineLoad {
            own_s: 2.0,
            ..a.clone()
        };
        assert_eq!(busy_self.others_s(), 0.0);
        let mut sum = MachineLoad::default();
        assert!(sum.is_empty());
        sum.add(&a);
        let b = MachineLoad {
            wall_s: 3.0,
            capacity_s: 6.0,
            load_avg: 1.0,
            ..MachineLoad::default()
        };
        sum.add(&b);
        assert_eq!(sum.wall_s, 4.0);
        assert_eq!(sum.capacity_s, 8.0);
        assert_eq!(sum.load_avg, 1.5);
        assert_eq!(sum.steal_share(), 0.025);
    }

    #[test]
    fn a_snapshot_of_this_machine_covers_its_cpus() {
        let s = Snapshot::now();
        let t = Instant::now();
        while t.elapsed() < Duration::from_millis(60) {
            std::hint::black_box(t.elapsed());
        }
        let m = s.end(&CpuTimes::default());
        if std::fs::metadata("/proc/stat").is_ok() {
            assert!(m.wall_s >= 0.06, "{m:?}");
            assert!(m.capacity_s > 0.0 && m.busy_s > 0.0, "{m:?}");
        }
    }
}
