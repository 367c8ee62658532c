//! Open and closed loops: when a worker may issue its next request.
//!
//! A closed loop (the default) issues the next request as soon as the last
//! one is done, after an optional think time. An open loop issues requests
//! at a rate, whatever the storage does: each request has an *intended*
//! start, drawn from a Poisson process (exponential gaps) or a uniform one
//! (equal gaps), and its response time runs from that intended start, so
//! that a request queued behind a slow one is charged for its wait (the
//! coordinated omission a closed loop commits). The service time, from the
//! actual start, is kept beside it.
//!
//! The rate is shared evenly between the workers, each with its own arrival
//! stream (together a Poisson process of the whole rate, since a sum of
//! independent Poisson processes is one), and an arrival waits for its own
//! worker: N single-server queues, as wrk2 and fio pace their clients.
//! Intended starts are absolute times from the start of the run, so a late
//! wake-up delays one request, never the schedule.
//!
//! The schedule is kept in whole nanoseconds of the clock, with the
//! fraction of a nanosecond carried from one gap to the next: a float
//! schedule stalls once its step falls below the float's resolution at the
//! clock's value (0.016 ns after a day of uptime, so a gap of 0.001 ns, a
//! rate of 10¹² per second, never moved it). The interval of one
//! worker is therefore at least a nanosecond: a rate above [`MAX_RATE`]
//! requests per second is refused (leave the rate out for requests back to
//! back).

use crate::measure::clock::now_ns;
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How arrivals (open loop) or think times (closed loop) are spaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Exponential gaps (think times) around the mean: a Poisson process.
    #[default]
    Poisson,
    /// Equal gaps (fixed think times).
    Uniform,
}

impl Arrivals {
    pub fn name(self) -> &'static str {
        match self {
            Arrivals::Poisson => "poisson",
            Arrivals::Uniform => "uniform",
        }
    }
}

/// The load a run offers. The default is a closed loop without think time.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pace {
    /// Open loop: requests per second over all workers together.
    pub rate: Option<f64>,
    pub arrivals: Arrivals,
    /// Closed loop: mean pause before each request, not counted as its time.
    pub think: Option<Duration>,
    /// Seed of the arrival streams (worker `i` draws stream `i`).
    pub seed: u64,
    /// A bandwidth cap (closed loop; fio's `rate`): none by default.
    #[serde(default, skip_serializing_if = "ByteCap::is_none")]
    pub cap: ByteCap,
}

/// A bandwidth cap, in bytes per second of all workers together (each
/// worker holds its even share): fio's `rate`. Not an open loop: requests
/// still go out as soon as the storage and the cap allow, and their
/// latency runs from their issue. A worker about to issue a request of a
/// capped direction waits until the bytes it issued before in that
/// direction are due at the cap; `total` caps reads, writes and trims
/// together, the others one direction each (fio's `rate=r,w,t`), and a
/// request waits for every cap it falls under.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ByteCap {
    /// Bytes per second of every direction together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// Bytes per second of reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<f64>,
    /// Bytes per second of writes (appends and creates too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<f64>,
    /// Bytes per second of trims.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<f64>,
    /// How the requests are spaced under the cap.
    #[serde(default)]
    pub process: CapProcess,
}

/// How a capped worker spaces its requests (fio's `rate_process`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CapProcess {
    /// Each request's bytes take their exact time at the cap.
    #[default]
    Linear,
    /// Exponential gaps with that mean: a Poisson process of requests.
    Poisson,
}

impl CapProcess {
    pub fn name(self) -> &'static str {
        match self {
            CapProcess::Linear => "linear",
            CapProcess::Poisson => "poisson",
        }
    }
}

/// How far behind its cap a worker may fall and still catch up: a worker
/// that was held back longer (the storage was slower than the cap) goes
/// on from this far behind, so that a stall is followed by a burst of at
/// most this long above the cap.
pub const CAP_SLACK_NS: u64 = 50_000_000;

impl ByteCap {
    /// No cap at all.
    pub fn is_none(&self) -> bool {
        self.total.is_none() && self.read.is_none() && self.write.is_none() && self.trim.is_none()
    }

    /// The caps in one line, for reports: `8.00 MiB/s of reads, 2.00
    /// MiB/s of writes (all workers together, linear)`.
    pub fn describe(&self) -> String {
        let rate = |v: f64| format!("{}/s", crate::units::fmt_bytes(v.round() as u64));
        let mut parts = Vec::new();
        if let Some(t) = self.total {
            parts.push(format!("{} of reads, writes and trims together", rate(t)));
        }
        for (v, what) in [
            (self.read, "reads"),
            (self.write, "writes"),
            (self.trim, "trims"),
        ] {
            if let Some(v) = v {
                parts.push(format!("{} of {what}", rate(v)));
            }
        }
        format!(
            "{} (all workers together, {})",
            parts.join(", "),
            self.process.name()
        )
    }

    /// The caps by lane: total, read, write, trim.
    fn lanes(&self) -> [Option<f64>; 4] {
        [self.total, self.read, self.write, self.trim]
    }

    /// What is wrong with the cap, if anything (`flag` names it).
    pub fn check(&self, flag: &str) -> Result<(), String> {
        for r in self.lanes().into_iter().flatten() {
            if !(r.is_finite() && r >= 1.0) {
                return Err(format!("{flag} {r}: a cap is at least 1 byte per second"));
            }
        }
        Ok(())
    }

    /// Parse a cap as given on the command line: `RATE` caps every
    /// direction together, `R,W[,T]` each direction on its own (fio's
    /// syntax, a part left empty leaves that direction alone). A rate is
    /// a size per second: `50M`, `1.5G`, `4096`.
    pub fn parse(s: &str) -> Result<ByteCap, String> {
        let one = |p: &str| -> Result<Option<f64>, String> {
            let p = p.trim();
            if p.is_empty() {
                return Ok(None);
            }
            let p = p.strip_suffix("/s").unwrap_or(p);
            let v = crate::units::parse_size(p).map_err(|e| {
                format!("'{p}' is not a byte rate (a size per second, e.g. 50M): {e}")
            })?;
            if v == 0 {
                return Err(
                    "a cap of 0 bytes per second stops every request; give at least 1".into(),
                );
            }
            Ok(Some(v as f64))
        };
        let parts: Vec<&str> = s.split(',').collect();
        let cap = match parts.as_slice() {
            [t] => ByteCap {
                total: one(t)?,
                ..ByteCap::default()
            },
            [r, w] => ByteCap {
                read: one(r)?,
                write: one(w)?,
                ..ByteCap::default()
            },
            [r, w, t] => ByteCap {
                read: one(r)?,
                write: one(w)?,
                trim: one(t)?,
                ..ByteCap::default()
            },
            _ => {
                return Err(format!(
                    "'{s}': give one rate (all directions together) or READ,WRITE[,TRIM]"
                ));
            }
        };
        if cap.is_none() {
            return Err(format!("'{s}' caps nothing: give at least one rate"));
        }
        Ok(cap)
    }

    /// The capper of one worker of `workers`, from clock `start_ns`.
    pub fn capper(&self, index: usize, workers: usize, seed: u64, start_ns: u64) -> Option<Capper> {
        if self.is_none() {
            return None;
        }
        let share = workers.max(1) as f64;
        Some(Capper {
            lanes: self.lanes().map(|r| {
                r.map(|r| Lane {
                    ns_per_byte: 1e9 * share / r,
                    next_ns: start_ns,
                    carry: 0.0,
                })
            }),
            poisson: self.process == CapProcess::Poisson,
            rng: Xoshiro256PlusPlus::seed_from_u64(
                seed ^ 0x6a09_e667_f3bc_c909u64.wrapping_mul(index as u64 + 1),
            ),
        })
    }
}

/// One cap's schedule in a worker.
#[derive(Clone, Copy, Debug)]
struct Lane {
    ns_per_byte: f64,
    /// When the next request under this cap may go (clock ns).
    next_ns: u64,
    /// The fraction of a nanosecond owed to `next_ns`.
    carry: f64,
}

/// One worker's bandwidth caps ([`ByteCap`]).
#[derive(Clone, Debug)]
pub struct Capper {
    /// total, read, write, trim
    lanes: [Option<Lane>; 4],
    poisson: bool,
    rng: Xoshiro256PlusPlus,
}

impl Capper {
    /// The lanes a request of `kind` falls under: total and its direction.
    fn lanes_of(kind: crate::measure::OpKind) -> Option<[usize; 2]> {
        use crate::measure::OpKind;
        match kind {
            OpKind::Read => Some([0, 1]),
            OpKind::Write | OpKind::Append | OpKind::Create => Some([0, 2]),
            OpKind::Trim => Some([0, 3]),
            _ => None,
        }
    }

    /// When a request of `kind` may go, seen at clock `now`: `now` if it
    /// may go at once (it moves no bytes, or is under no cap).
    pub fn due(&self, kind: crate::measure::OpKind, now: u64) -> u64 {
        let Some(ls) = Self::lanes_of(kind) else {
            return now;
        };
        ls.iter()
            .filter_map(|&i| self.lanes[i].as_ref())
            .map(|l| l.next_ns)
            .fold(now, u64::max)
    }

    /// A request of `kind` moving `len` bytes goes at clock `now`: move
    /// its caps' schedules on by its time at each cap.
    pub fn take(&mut self, kind: crate::measure::OpKind, len: u64, now: u64) {
        let Some(ls) = Self::lanes_of(kind) else {
            return;
        };
        let draw = if self.poisson {
            // u in (0, 1]: -ln u is exponential with mean 1
            let u = ((self.rng.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64);
            -u.ln()
        } else {
            1.0
        };
        for i in ls {
            if let Some(l) = self.lanes[i].as_mut() {
                let from = l.next_ns.max(now.saturating_sub(CAP_SLACK_NS));
                let g = len as f64 * l.ns_per_byte * draw + l.carry;
                let whole = g.floor();
                l.carry = g - whole;
                l.next_ns = from.saturating_add(whole as u64);
            }
        }
    }
}

/// The highest rate an open loop takes, requests per second: one request
/// per nanosecond, the schedule's resolution.
pub const MAX_RATE: f64 = 1e9;

/// A worker that fell this many arrivals behind has the rest of its missed
/// arrivals estimated (the expected count of its stream over the time
/// left) instead of drawn one by one.
const MISSED_DRAWN: u64 = 1 << 20;

impl Pace {
    /// Whether requests come at a rate rather than back to back.
    pub fn is_open(&self) -> bool {
        self.rate.is_some()
    }

    /// Whether there is anything to pace at all.
    pub fn is_paced(&self) -> bool {
        self.rate.is_some() || self.think.is_some_and(|t| !t.is_zero())
    }

    /// What is wrong with this pace, if anything.
    pub fn check(&self) -> Result<(), String> {
        if let Some(r) = self.rate
            && !(r.is_finite() && r > 0.0)
        {
            return Err(format!(
                "--rate {r} must be a number of requests per second above 0"
            ));
        }
        if let Some(r) = self.rate
            && r > MAX_RATE
        {
            return Err(format!(
                "--rate {r}: at most {MAX_RATE:e} requests per second (the schedule counts whole nanoseconds); leave --rate out to issue requests back to back"
            ));
        }
        self.cap.check("--rate-bytes")?;
        if self.rate.is_some() && !self.cap.is_none() {
            return Err(
                "--rate and --rate-bytes exclude each other: an open loop offers its requests whatever the storage does; a cap holds a closed loop back".into(),
            );
        }
        if self.rate.is_some() && self.think.is_some() {
            return Err(
                "--rate and --thinktime exclude each other: an open loop has no think time".into(),
            );
        }
        Ok(())
    }

    /// The pacer of worker `index` of `workers`, whose run starts at
    /// `start_ns`; `None` for an unpaced closed loop.
    pub fn pacer(&self, index: usize, workers: usize, start_ns: u64) -> Option<Pacer> {
        if !self.is_paced() {
            return None;
        }
        let rng = Xoshiro256PlusPlus::seed_from_u64(
            self.seed ^ 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(index as u64 + 1),
        );
        let mut p = Pacer {
            arrivals: self.arrivals,
            mean_ns: 0.0,
            think_ns: 0.0,
            next_ns: start_ns,
            carry: 0.0,
            rng,
            end_ns: u64::MAX,
        };
        match (self.rate, self.think) {
            (Some(rate), _) => {
                // at least 1 ns: [`Pace::check`] refuses faster rates
                p.mean_ns = (1e9 * workers.max(1) as f64 / rate.min(MAX_RATE)).max(1.0);
                // the first arrival: uniform streams interleave evenly,
                // Poisson ones start with a gap like any other
                let first = match self.arrivals {
                    Arrivals::Uniform => p.mean_ns * index as f64 / workers.max(1) as f64,
                    Arrivals::Poisson => p.gap(),
                };
                p.advance_by(first);
            }
            (None, Some(t)) => p.think_ns = t.as_nanos() as f64,
            (None, None) => unreachable!("is_paced"),
        }
        Some(p)
    }
}

/// One worker's arrival stream (open loop) or think times (closed loop).
#[derive(Clone, Debug)]
pub struct Pacer {
    arrivals: Arrivals,
    /// Mean gap between this worker's arrivals (open loop), ns.
    mean_ns: f64,
    /// Mean think time (closed loop), ns.
    think_ns: f64,
    /// Intended start of the next arrival, clock ns.
    next_ns: u64,
    /// The fraction of a nanosecond the schedule owes `next_ns`, in
    /// [0, 1): equal gaps of 2.5 ns go 2, 3, 2, 3, … and never drift.
    carry: f64,
    rng: Xoshiro256PlusPlus,
    /// The end of the measured phase (clock ns): arrivals at or after it
    /// are not the run's, and the worker stops instead of waiting for them.
    end_ns: u64,
}

/// The longest single sleep while waiting, so that a stop is noticed soon.
const NAP_NS: u64 = 20_000_000;

/// Waits shorter than this spin instead of sleeping.
const SPIN_NS: u64 = 50_000;

impl Pacer {
    fn gap(&mut self) -> f64 {
        let mean = if self.mean_ns > 0.0 {
            self.mean_ns
        } else {
            self.think_ns
        };
        match self.arrivals {
            Arrivals::Uniform => mean,
            Arrivals::Poisson => {
                // u in (0, 1]: -ln u is exponential with mean 1
                let u = ((self.rng.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64);
                -mean * u.ln()
            }
        }
    }

    /// Move the schedule on by `gap_ns` (whole nanoseconds, the fraction
    /// carried to the next gap).
    fn advance_by(&mut self, gap_ns: f64) {
        let g = gap_ns + self.carry;
        let whole = g.floor();
        self.carry = g - whole;
        self.next_ns = self.next_ns.saturating_add(whole as u64);
    }

    /// Draw the next gap and move the schedule on by it.
    fn step(&mut self) {
        let g = self.gap();
        self.advance_by(g);
    }

    /// The run ends at `end_ns` (clock): no arrival at or after it is
    /// waited for, so a paced worker ends with its schedule, not a nap later.
    pub fn end_at(&mut self, end_ns: u64) {
        self.end_ns = end_ns;
    }

    /// Whether this pacer runs an open loop (a schedule of arrivals).
    pub fn is_open(&self) -> bool {
        self.mean_ns > 0.0
    }

    /// Wait for the next request's turn. Open loop: until its intended
    /// start, and returns when its response time starts: the intended
    /// start if the worker was behind (the request waited for it: that is
    /// queueing), else the moment the worker woke (a sleep that ends a few
    /// microseconds late is the system's wake-up latency, not queueing).
    /// Closed loop: waits a think time and returns `None`. `Err` when
    /// `stop` was raised meanwhile.
    pub fn wait(&mut self, stop: &AtomicBool) -> Result<Option<u64>, Stopped> {
        if self.is_open() {
            let at = self.next_ns;
            if at >= self.end_ns {
                return Err(Stopped);
            }
            self.step();
            Ok(Some(sleep_until(at, stop)?.max(at)))
        } else {
            let think = self.gap() as u64;
            sleep_until(now_ns().saturating_add(think), stop)?;
            Ok(None)
        }
    }

    /// Open loop: the intended start of the next arrival (clock ns).
    pub fn next_at(&self) -> u64 {
        self.next_ns
    }

    /// Open loop: take the next arrival without waiting (a driver that
    /// reaps while it waits for it); its intended start.
    pub fn take(&mut self) -> u64 {
        let at = self.next_ns;
        self.step();
        at
    }

    /// Take the next arrival without waiting (tests of the schedule).
    #[cfg(test)]
    pub fn advance_for_test(&mut self, _stop: &AtomicBool) -> u64 {
        let at = self.next_ns;
        self.step();
        at
    }

    /// Whether the schedule ended the run: the next arrival falls at or
    /// after the end of the measured phase (open loop with a duration).
    pub fn schedule_over(&self) -> bool {
        self.is_open() && self.end_ns != u64::MAX && self.next_ns >= self.end_ns
    }

    /// The end of the measured phase this pacer was told (clock ns;
    /// `u64::MAX` when none).
    pub fn end_ns(&self) -> u64 {
        self.end_ns
    }

    /// How many arrivals of the schedule not yet taken fall before
    /// `end_ns` (open loop): the requests a run that fell behind never
    /// issued. Drawn on a copy of the stream, after the run: the first
    /// [`MISSED_DRAWN`] one by one, the rest as their expected count over
    /// the time left (exact for uniform arrivals, the Poisson stream's
    /// mean for Poisson ones), so that a stream hopelessly behind costs
    /// milliseconds, not minutes.
    pub fn missed_before(&self, end_ns: u64) -> u64 {
        if !self.is_open() {
            return 0;
        }
        let mut copy = self.clone();
        let mut n = 0u64;
        while copy.next_ns < end_ns {
            if n == MISSED_DRAWN {
                let left = (end_ns - copy.next_ns) as f64 - copy.carry;
                return n + (left / copy.mean_ns).ceil().max(0.0) as u64;
            }
            n += 1;
            copy.step();
        }
        n
    }
}

/// The run was told to stop while a worker waited for its turn.
#[derive(Debug)]
pub struct Stopped;

/// Make this thread's sleeps end on time: Linux lets a sleep overrun by
/// the thread's timer slack (50 µs by default), which an open loop would
/// charge to every response time. Best effort.
pub fn tight_timers() {
    // SAFETY: PR_SET_TIMERSLACK takes a value and touches no memory.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}

/// Sleep until clock time `at_ns` in naps of at most [`NAP_NS`]; `Err` as
/// soon as `stop` is raised. Returns when it woke having slept, or 0 when
/// `at_ns` had already passed.
pub(crate) fn sleep_until(at_ns: u64, stop: &AtomicBool) -> Result<u64, Stopped> {
    let mut slept = false;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(Stopped);
        }
        let now = now_ns();
        if now >= at_ns {
            return Ok(if slept { now } else { 0 });
        }
        let left = at_ns - now;
        if left < SPIN_NS {
            // a sleep this short costs more than it waits (a wake-up
            // takes tens of µs in a VM): spin the rest, still counted as
            // having slept, since the worker was ahead of the schedule
            while now_ns() < at_ns {
                std::hint::spin_loop();
            }
        } else {
            std::thread::sleep(Duration::from_nanos(left.min(NAP_NS)));
        }
        slept = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(rate: f64, arrivals: Arrivals) -> Pace {
        Pace {
            rate: Some(rate),
            arrivals,
            seed: 7,
            ..Default::default()
        }
    }

    #[test]
    fn a_rate_above_one_request_per_nanosecond_is_refused() {
        let e = open(1e12, Arrivals::Poisson).check().unwrap_err();
        assert!(
            e.contains("--rate 1000000000000") && e.contains("1e9"),
            "{e}"
        );
        open(MAX_RATE, Arrivals::Poisson).check().unwrap();
    }

    #[test]
    fn the_schedule_moves_on_at_any_clock_value() {
        // 2^60 ns: a float's step there is 256 ns, and a 1 ns gap was lost
        let start = 1u64 << 60;
        let stop = AtomicBool::new(false);
        let mut p = open(MAX_RATE, Arrivals::Uniform)
            .pacer(0, 1, start)
            .unwrap();
        let first = p.advance_for_test(&stop);
        for _ in 0..999 {
            p.advance_for_test(&stop);
        }
        assert_eq!(p.advance_for_test(&stop) - first, 1000);
        // fractional gaps carry: 2.5 ns go 2, 3, 2, 3
        let mut p = open(4e8, Arrivals::Uniform).pacer(0, 1, start).unwrap();
        let at: Vec<u64> = (0..5).map(|_| p.advance_for_test(&stop) - start).collect();
        assert_eq!(at, [0, 2, 5, 7, 10]);
    }

    #[test]
    fn a_stream_far_behind_counts_its_missed_arrivals_at_once() {
        for arrivals in [Arrivals::Uniform, Arrivals::Poisson] {
            // 1e9 requests/s, never issued, over 10 s: 1e10 missed
            let p = open(MAX_RATE, arrivals).pacer(0, 1, 0).unwrap();
            let t = std::time::Instant::now();
            let missed = p.missed_before(10_000_000_000);
            assert!(
                t.elapsed() < std::time::Duration::from_secs(2),
                "{arrivals:?}: {:?}",
                t.elapsed()
            );
            let want = 1e10;
            assert!(
                (missed as f64 / want - 1.0).abs() < 1e-3,
                "{arrivals:?}: {missed}"
            );
            if arrivals == Arrivals::Uniform {
                assert_eq!(missed, 10_000_000_000);
            }
        }
    }

    #[test]
    fn byte_caps_parse_as_fio_writes_them() {
        let c = ByteCap::parse("50M").unwrap();
        assert_eq!(c.total, Some(f64::from(50u32 << 20)));
        assert_eq!((c.read, c.write, c.trim), (None, None, None));
        let c = ByteCap::parse("8M,2M").unwrap();
        assert_eq!(
            (c.read, c.write),
            (Some(8.0 * 1048576.0), Some(2.0 * 1048576.0))
        );
        assert_eq!((c.total, c.trim), (None, None));
        // an empty part leaves its direction alone; "/s" may follow
        let c = ByteCap::parse(",4096/s,1K").unwrap();
        assert_eq!(
            (c.read, c.write, c.trim),
            (None, Some(4096.0), Some(1024.0))
        );
        assert_eq!(c.process, CapProcess::Linear);
        for (bad, says) in [
            ("0", "stops every request"),
            (",", "caps nothing"),
            ("1M,2M,3M,4M", "READ,WRITE[,TRIM]"),
            ("fast", "not a byte rate"),
        ] {
            let e = ByteCap::parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        assert!(ByteCap::default().is_none());
        assert!(ByteCap::default().capper(0, 1, 0, 0).is_none());
    }

    #[test]
    fn a_cap_is_described_in_one_line() {
        let c = ByteCap::parse("8M,2M").unwrap();
        assert_eq!(
            c.describe(),
            "8.00 MiB/s of reads, 2.00 MiB/s of writes (all workers together, linear)"
        );
        let c = ByteCap {
            process: CapProcess::Poisson,
            ..ByteCap::parse("100G").unwrap()
        };
        assert_eq!(
            c.describe(),
            "100.00 GiB/s of reads, writes and trims together (all workers together, poisson)"
        );
    }

    /// The linear schedule: each request's bytes take their time at the
    /// worker's share of the cap, a request waits only for the caps it
    /// falls under, and a worker far behind goes on from 50 ms back.
    #[test]
    fn a_linear_cap_spaces_requests_by_their_bytes() {
        use crate::measure::OpKind::{Fsync, Read, Trim, Write};
        let start = 1_000_000_000u64;
        // 1000 B/s shared by 2 workers: 500 B/s each, 2 ms a byte
        let cap = ByteCap::parse("1000").unwrap();
        let mut c = cap.capper(0, 2, 1, start).unwrap();
        assert_eq!(c.due(Read, start), start);
        c.take(Read, 100, start);
        assert_eq!(c.due(Write, start), start + 200_000_000);
        assert_eq!(c.due(Trim, start), start + 200_000_000);
        // an fsync moves no bytes: never held back
        assert_eq!(c.due(Fsync, start + 1), start + 1);
        // issued late, at 250 ms: due from its turn, 200 ms + 2 ms
        c.take(Write, 1, start + 250_000_000);
        assert_eq!(c.due(Read, start), start + 202_000_000);
        // per direction: a read waits for reads only
        let mut c = ByteCap::parse("1000,10")
            .unwrap()
            .capper(0, 1, 1, start)
            .unwrap();
        c.take(Write, 10, start);
        assert_eq!(c.due(Write, start), start + 1_000_000_000);
        assert_eq!(c.due(Read, start), start);
        c.take(Read, 500, start);
        assert_eq!(c.due(Read, start), start + 500_000_000);
        assert_eq!(c.due(Trim, start), start, "no trim cap");
        // a worker held back by slow storage goes on from 50 ms behind
        let mut c = cap.capper(0, 1, 1, start).unwrap();
        let late = start + 10_000_000_000;
        c.take(Read, 100, late);
        assert_eq!(c.due(Read, late), late - CAP_SLACK_NS + 100_000_000);
        // fractions of a nanosecond carry: 3 B/s is 333333333.33 ns a byte
        let mut c = ByteCap::parse("3").unwrap().capper(0, 1, 1, 0).unwrap();
        for _ in 0..3 {
            c.take(Read, 1, 0);
        }
        assert_eq!(c.due(Read, 0), 999_999_999);
    }

    /// The poisson process: exponential gaps of the linear one's mean, so
    /// over many requests the same bytes per second, with a spread.
    #[test]
    fn a_poisson_cap_keeps_the_mean_with_exponential_gaps() {
        use crate::measure::OpKind::Read;
        let cap = ByteCap {
            process: CapProcess::Poisson,
            ..ByteCap::parse("1000000").unwrap()
        };
        let mut c = cap.capper(0, 1, 42, 0).unwrap();
        let n = 100_000u64;
        let mut gaps = Vec::with_capacity(n as usize);
        let mut last = 0;
        for _ in 0..n {
            let at = c.due(Read, 0);
            c.take(Read, 1000, at);
            let next = c.due(Read, 0);
            gaps.push((next - last) as f64);
            last = next;
        }
        // 1000 B at 1 MB/s: 1 ms mean; exponential: sd = mean
        let mean = gaps.iter().sum::<f64>() / n as f64;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!((mean / 1e6 - 1.0).abs() < 0.01, "{mean}");
        assert!((sd / mean - 1.0).abs() < 0.02, "{sd} {mean}");
        // the same seed draws the same gaps
        let mut a = cap.capper(3, 4, 42, 0).unwrap();
        let mut b = cap.capper(3, 4, 42, 0).unwrap();
        a.take(Read, 1000, 0);
        b.take(Read, 1000, 0);
        assert_eq!(a.due(Read, 0), b.due(Read, 0));
    }
}
