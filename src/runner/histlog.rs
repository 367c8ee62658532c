//! The interval histograms of this process's timed phases (`--log-hist`).
//!
//! The command turns them on before it runs ([`enable`]); from then on each
//! run of workers (a benchmark's timed phase: PostMark's transactions, one
//! of bonnie's tests, one of IOzone's) has its workers keep latency
//! histograms per interval and kind, and hands them here when it ends,
//! merged by interval, with the wall-clock time its measured phase began.
//! The command takes them ([`take`]) to write the log when it writes its
//! result.

use crate::measure::WorkerStats;
use crate::measure::clock::now_ns;
use crate::measure::histlog::Phase;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// The interval in ns; 0: off.
static INTERVAL_NS: AtomicU64 = AtomicU64::new(0);
static PHASES: Mutex<Vec<Phase>> = Mutex::new(Vec::new());

/// Keep interval histograms of `interval` in every run from now on.
pub fn enable(interval: Duration) {
    let ns = u64::try_from(interval.as_nanos())
        .unwrap_or(u64::MAX)
        .max(1);
    INTERVAL_NS.store(ns, Ordering::Relaxed);
}

/// The interval asked for, in ns (`None`: no log).
pub fn interval_ns() -> Option<u64> {
    match INTERVAL_NS.load(Ordering::Relaxed) {
        0 => None,
        ns => Some(ns),
    }
}

/// Take the workers' interval histograms out of their stats (they do not
/// go in the result) and keep them, merged, as one phase whose measured
/// time began at clock `t0` and lasted `elapsed`.
pub(crate) fn collect<'a>(
    workers: impl IntoIterator<Item = &'a mut WorkerStats>,
    t0: u64,
    elapsed: Duration,
) {
    let Some(interval_ns) = interval_ns() else {
        return;
    };
    let packs = workers
        .into_iter()
        .filter_map(|s| s.intervals.take())
        .flat_map(|i| i.finish());
    let ago = Duration::from_nanos(now_ns().saturating_sub(t0));
    let start = SystemTime::now()
        .checked_sub(ago)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    match Phase::merge(start, elapsed, interval_ns, packs) {
        Ok(p) => PHASES.lock().unwrap_or_else(|p| p.into_inner()).push(p),
        // histograms made here always decode and add; say so if not
        Err(e) => eprintln!("iogauge: --log-hist: a phase is missing from the log: {e}"),
    }
}

/// The phases kept so far, in the order they ran; none are kept after.
pub fn take() -> Vec<Phase> {
    std::mem::take(&mut *PHASES.lock().unwrap_or_else(|p| p.into_inner()))
}

/// `f` of the phases kept so far, in the order they ran.
pub fn with_phases<T>(f: impl FnOnce(&[Phase]) -> T) -> T {
    f(&PHASES.lock().unwrap_or_else(|p| p.into_inner()))
}
