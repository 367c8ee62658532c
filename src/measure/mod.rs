//! The measurement core: what every benchmark records and how records merge.
//!
//! Each worker owns a [`WorkerStats`]; nothing in it is shared, locked or
//! allocated while a run is timed (histograms for the op kinds a workload
//! declares are created before the start barrier). After the workers join,
//! their stats merge into one with [`WorkerStats::merge`]: counts and sums add,
//! histograms add bucket by bucket, time series add second by second.
//!
//! Latencies are `u64` nanoseconds. The histogram (HDR, 1 ns … 1 h, 3
//! significant digits) bounds the error of any percentile to 0.1 % of the
//! value; count, sum, sum of squares, min and max are kept exactly beside it,
//! so mean, stddev, min and max are exact.

pub mod clock;
pub mod compact;
mod cpu;
pub mod curve;
pub mod depth;
pub mod histlog;
pub mod interval;
pub mod machine;
pub mod placed;
mod series;
pub mod significance;
pub mod steady;
pub mod usl;

pub use cpu::CpuTimes;
pub use series::TimeSeries;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Highest latency the histograms track: one hour in nanoseconds. Longer
/// operations are recorded as one hour (and counted exactly in `max`).
pub const MAX_LATENCY_NS: u64 = 3_600_000_000_000;
/// Significant decimal digits kept by the latency histograms.
pub const SIG_DIGITS: u8 = 3;
/// Highest latency a new histogram covers before it grows. The bucket
/// boundaries do not depend on it (only on the lowest value and the
/// digits), so growing changes no percentile; it keeps a new histogram at
/// 48 KiB instead of 264 KiB, which a short run (PostMark's defaults last
/// 10 ms) would otherwise spend zeroing and faulting in, several per worker.
const INITIAL_MAX_NS: u64 = 1 << 14;

/// The kinds of operation a benchmark issues and times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Read,
    Write,
    Append,
    /// Discard a range: its blocks are freed (a hole punched in a file,
    /// BLKDISCARD on a block device) and read back as zeros. fio's trim.
    Trim,
    Create,
    Delete,
    Open,
    Close,
    Stat,
    Fsync,
    Readdir,
    Rename,
    /// mkdir(2): a directory made (not a file: not a create).
    Mkdir,
    /// rmdir(2): a directory removed (not a file: not a delete).
    Rmdir,
    Lock,
    Unlock,
    Cpu,
    /// A whole transaction of a suite (PostMark, IOBENCH): its latency spans
    /// the operations inside it, which are counted on their own as well.
    Transaction,
}

impl OpKind {
    pub const ALL: [OpKind; 18] = [
        OpKind::Read,
        OpKind::Write,
        OpKind::Append,
        OpKind::Trim,
        OpKind::Create,
        OpKind::Delete,
        OpKind::Open,
        OpKind::Close,
        OpKind::Stat,
        OpKind::Fsync,
        OpKind::Readdir,
        OpKind::Rename,
        OpKind::Mkdir,
        OpKind::Rmdir,
        OpKind::Lock,
        OpKind::Unlock,
        OpKind::Cpu,
        OpKind::Transaction,
    ];
    pub const COUNT: usize = Self::ALL.len();

    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Append => "append",
            OpKind::Trim => "trim",
            OpKind::Create => "create",
            OpKind::Delete => "delete",
            OpKind::Open => "open",
            OpKind::Close => "close",
            OpKind::Stat => "stat",
            OpKind::Fsync => "fsync",
            OpKind::Readdir => "readdir",
            OpKind::Rename => "rename",
            OpKind::Mkdir => "mkdir",
            OpKind::Rmdir => "rmdir",
            OpKind::Lock => "lock",
            OpKind::Unlock => "unlock",
            OpKind::Cpu => "cpu",
            OpKind::Transaction => "transaction",
        }
    }

    /// Whether this kind is an I/O: a data or metadata call on the file
    /// system (read, write, create, stat, fsync, …). Locks, CPU work and
    /// whole transactions are not: a transaction's I/O is counted through
    /// its own operations. The one rule behind every summary's `ops`,
    /// `ops_per_s` ("IO/s"), time series and `io_time_fraction`.
    pub fn is_io(self) -> bool {
        !matches!(
            self,
            OpKind::Cpu | OpKind::Transaction | OpKind::Lock | OpKind::Unlock
        )
    }

    /// Whether this kind moves data (its bytes count as read or written).
    pub fn direction(self) -> Option<Direction> {
        match self {
            OpKind::Read => Some(Direction::Read),
            // a create writes the file's initial data (PostMark)
            OpKind::Write | OpKind::Append | OpKind::Create => Some(Direction::Write),
            _ => None,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Read,
    Write,
}

/// Exact moments and a histogram for one op kind.
#[derive(Clone, Debug)]
pub struct KindStats {
    pub count: u64,
    pub bytes: u64,
    pub sum_ns: u128,
    pub sumsq_ns: u128,
    pub min_ns: u64,
    pub max_ns: u64,
    pub hist: Histogram<u64>,
}

impl Default for KindStats {
    fn default() -> Self {
        Self::new()
    }
}

impl KindStats {
    pub fn new() -> Self {
        KindStats {
            count: 0,
            bytes: 0,
            sum_ns: 0,
            sumsq_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            hist: {
                let mut h = Histogram::new_with_bounds(1, INITIAL_MAX_NS, SIG_DIGITS)
                    .expect("static histogram bounds are valid");
                h.auto(true);
                h
            },
        }
    }

    /// Adds `n` samples of `lat_ns` to the histogram alone (not to the
    /// moments), growing it up to [`MAX_LATENCY_NS`] as needed.
    #[inline(always)]
    pub fn record_hist_n(&mut self, lat_ns: u64, n: u64) {
        let v = lat_ns.clamp(1, MAX_LATENCY_NS);
        if self.hist.record_n(v, n).is_err() {
            // only if a resize could not allocate: keep the count, clamped
            self.hist.saturating_record_n(v, n);
        }
    }

    #[inline(always)]
    pub fn record(&mut self, lat_ns: u64, bytes: u64) {
        self.count += 1;
        self.bytes += bytes;
        self.sum_ns += lat_ns as u128;
        self.sumsq_ns += (lat_ns as u128) * (lat_ns as u128);
        self.min_ns = self.min_ns.min(lat_ns);
        self.max_ns = self.max_ns.max(lat_ns);
        self.record_hist_n(lat_ns, 1);
    }

    /// `n` ops of `lat_ns` each, moving `bytes` in all: for calls timed as
    /// a batch (one clock read per batch instead of two per call).
    pub fn record_n(&mut self, lat_ns: u64, n: u64, bytes: u64) {
        if n == 0 {
            return;
        }
        self.count += n;
        self.bytes += bytes;
        self.sum_ns += lat_ns as u128 * n as u128;
        self.sumsq_ns += (lat_ns as u128) * (lat_ns as u128) * n as u128;
        self.min_ns = self.min_ns.min(lat_ns);
        self.max_ns = self.max_ns.max(lat_ns);
        self.record_hist_n(lat_ns, n);
    }

    pub fn merge(&mut self, other: &KindStats) {
        self.count += other.count;
        self.bytes += other.bytes;
        self.sum_ns += other.sum_ns;
        self.sumsq_ns += other.sumsq_ns;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
        self.hist
            .add(&other.hist)
            .expect("histograms of equal precision grow to add");
    }

    pub fn reset(&mut self) {
        self.count = 0;
        self.bytes = 0;
        self.sum_ns = 0;
        self.sumsq_ns = 0;
        self.min_ns = u64::MAX;
        self.max_ns = 0;
        self.hist.reset();
    }

    fn moments(&self) -> Moments {
        Moments {
            count: self.count,
            sum: self.sum_ns,
            sumsq: self.sumsq_ns,
        }
    }

    pub fn mean_ns(&self) -> f64 {
        self.moments().mean_ns()
    }

    /// Population standard deviation, exact (see [`Moments::stddev_ns`]).
    pub fn stddev_ns(&self) -> f64 {
        self.moments().stddev_ns()
    }

    /// The `q`th percentile. The histogram answers with the highest value
    /// equivalent to the bucket's (up to 0.1 % above the true value); the
    /// exact min and max bound it, so no percentile is printed above the
    /// max or below the min.
    pub fn percentile_ns(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        self.clamp(self.hist.value_at_quantile(q / 100.0))
    }

    fn clamp(&self, v: u64) -> u64 {
        v.clamp(self.min_ns.min(self.max_ns), self.max_ns)
    }

    pub fn summary(&self) -> LatencySummary {
        // one pass over the buckets for all six (same values as percentile_ns)
        let mut p = [0u64; 6];
        if self.count > 0 {
            let qs = [0.50, 0.90, 0.95, 0.99, 0.999, 0.9999];
            for (slot, v) in p.iter_mut().zip(self.hist.value_at_quantiles(qs)) {
                *slot = self.clamp(v);
            }
        }
        LatencySummary {
            mean: self.mean_ns(),
            stddev: self.stddev_ns(),
            min: if self.count == 0 { 0 } else { self.min_ns },
            max: self.max_ns,
            p50: p[0],
            p90: p[1],
            p95: p[2],
            p99: p[3],
            p999: p[4],
            p9999: p[5],
        }
    }
}

/// Count, Σx and Σx² of latencies: mean and population standard deviation
/// from exact sums.
#[derive(Clone, Copy, Debug, Default)]
pub struct Moments {
    pub count: u64,
    pub sum: u128,
    pub sumsq: u128,
}

impl Moments {
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// Population standard deviation, exact: n·Σx² − (Σx)² is computed in
    /// integers when it fits, so small spreads around large means keep
    /// their digits.
    pub fn stddev_ns(&self) -> f64 {
        if self.count < 2 {
            return 0.0;
        }
        let n = self.count as u128;
        match (n.checked_mul(self.sumsq), self.sum.checked_mul(self.sum)) {
            (Some(a), Some(b)) => (a.saturating_sub(b) as f64 / (n as f64 * n as f64)).sqrt(),
            _ => {
                let m = self.mean_ns();
                (self.sumsq as f64 / n as f64 - m * m).max(0.0).sqrt()
            }
        }
    }
}

/// Latency figures of one op kind, in nanoseconds.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[schemars(rename = "latencySummary")]
pub struct LatencySummary {
    /// Mean, ns (exact, from the sum).
    pub mean: f64,
    /// Standard deviation, ns (exact, from the sums).
    pub stddev: f64,
    /// Smallest, ns (exact).
    pub min: u64,
    /// Largest, ns (exact).
    pub max: u64,
    /// Median, ns (HDR histogram, 3 significant digits).
    pub p50: u64,
    /// 90th percentile, ns.
    pub p90: u64,
    /// 95th percentile, ns.
    pub p95: u64,
    /// 99th percentile, ns.
    pub p99: u64,
    /// 99.9th percentile, ns.
    pub p999: u64,
    /// 99.99th percentile, ns.
    pub p9999: u64,
}

/// Everything one worker measured. Merge workers with [`WorkerStats::merge`].
#[derive(Clone, Debug)]
pub struct WorkerStats {
    kinds: [Option<Box<KindStats>>; OpKind::COUNT],
    /// Open loop: response times per kind, from each request's intended
    /// start (the `kinds` hold service times, from the actual start).
    responses: [Option<Box<KindStats>>; OpKind::COUNT],
    /// Queued engines: per kind, the time from issue to the kernel's
    /// acceptance (the submitting call returned) ...
    submissions: [Option<Box<KindStats>>; OpKind::COUNT],
    /// ... and from acceptance to the reap; `kinds` holds the total.
    completions: [Option<Box<KindStats>>; OpKind::COUNT],
    /// Requests cancelled in flight (Ctrl-C with a queue), never recorded.
    pub cancelled: u64,
    /// Requests refused because they would block (`--nowait`), never
    /// recorded.
    pub would_block: u64,
    /// Nanoseconds spent inside I/O calls (kinds with [`OpKind::is_io`]).
    pub io_ns: u128,
    pub series: TimeSeries,
    /// Open loop: the schedule offered and how much of it was issued.
    pub arrivals: Arrivals,
    /// How many requests were in flight at each issue.
    pub depths: depth::Depths,
    /// Latency histograms per interval and kind (`--log-hist`), only when
    /// asked for ([`WorkerStats::log_intervals`]). Not merged by
    /// [`WorkerStats::merge`]: the runner takes each worker's and merges
    /// them by interval per timed phase.
    pub intervals: Option<Box<histlog::IntervalHists>>,
}

/// What an open loop offered and issued. Zero in a closed loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Arrivals {
    /// Requests per second offered (the workers' shares add up).
    pub rate: f64,
    /// Requests issued whose intended start fell in the measured phase.
    pub issued: u64,
    /// Requests scheduled before the end but never issued (the run fell
    /// behind its schedule).
    pub missed: u64,
}

impl Default for WorkerStats {
    fn default() -> Self {
        Self::new(&[])
    }
}

impl WorkerStats {
    /// Stats with histograms made ahead of time for `kinds`, so that the
    /// first op of each kind does not allocate inside the timed loop.
    pub fn new(kinds: &[OpKind]) -> Self {
        let mut s = WorkerStats {
            kinds: Default::default(),
            responses: Default::default(),
            submissions: Default::default(),
            completions: Default::default(),
            cancelled: 0,
            would_block: 0,
            io_ns: 0,
            series: TimeSeries::with_capacity(3600),
            arrivals: Arrivals::default(),
            depths: depth::Depths::default(),
            intervals: None,
        };
        for &k in kinds {
            s.kinds[k.index()] = Some(Box::new(KindStats::new()));
        }
        s
    }

    /// Keep latency histograms per interval of `interval_ns` too (made
    /// ahead for the kinds declared so far).
    pub fn log_intervals(&mut self, interval_ns: u64) {
        let kinds: Vec<OpKind> = OpKind::ALL
            .into_iter()
            .filter(|k| self.kinds[k.index()].is_some())
            .collect();
        self.intervals = Some(Box::new(histlog::IntervalHists::new(interval_ns, &kinds)));
    }

    /// Record one completed op of `kind` that took `lat_ns` and moved
    /// `bytes`, finishing `at_ns` after the start of measurement.
    #[inline(always)]
    pub fn record(&mut self, kind: OpKind, lat_ns: u64, bytes: u64, at_ns: u64) {
        self.record_busy(kind, lat_ns, bytes, at_ns, lat_ns);
    }

    /// [`WorkerStats::record`] of an op that overlapped others of the same
    /// worker (a queue depth above 1): `busy_ns` is the time it added to
    /// the worker's time in I/O, the part of its latency no earlier op
    /// already covered.
    #[inline(always)]
    pub fn record_busy(&mut self, kind: OpKind, lat_ns: u64, bytes: u64, at_ns: u64, busy_ns: u64) {
        match &mut self.kinds[kind.index()] {
            Some(k) => k.record(lat_ns, bytes),
            slot => slot
                .insert(Box::new(KindStats::new()))
                .record(lat_ns, bytes),
        }
        if let Some(iv) = &mut self.intervals {
            iv.record(kind, lat_ns, 1, at_ns);
        }
        if kind.is_io() {
            self.io_ns += busy_ns as u128;
            self.series.add(at_ns, 1, bytes);
        }
    }

    /// `n` ops of `kind` alike (the same latency, `bytes` in all, done at
    /// `at_ns`) that added `busy_ns` to the time in I/O between them: a
    /// queued engine's batch of page-cache hits, submitted by one call and
    /// reaped by one, is recorded once with its count.
    pub fn record_busy_n(
        &mut self,
        kind: OpKind,
        lat_ns: u64,
        n: u64,
        bytes: u64,
        at_ns: u64,
        busy_ns: u64,
    ) {
        self.kinds[kind.index()]
            .get_or_insert_with(|| Box::new(KindStats::new()))
            .record_n(lat_ns, n, bytes);
        if let Some(iv) = &mut self.intervals {
            iv.record(kind, lat_ns, n, at_ns);
        }
        if kind.is_io() {
            self.io_ns += busy_ns as u128;
            self.series.add(at_ns, n, bytes);
        }
    }

    /// Prepare for an open loop offering `rate` requests per second: a
    /// response-time histogram beside each declared kind's, made before
    /// the timed loop.
    pub fn expect_responses(&mut self, rate: f64) {
        self.arrivals.rate = rate;
        for (slot, k) in self.responses.iter_mut().zip(self.kinds.iter()) {
            if k.is_some() && slot.is_none() {
                *slot = Some(Box::new(KindStats::new()));
            }
        }
    }

    /// Record the response time of an op (open loop): from the intended
    /// start of the request it belongs to until it finished.
    #[inline(always)]
    pub fn record_response(&mut self, kind: OpKind, resp_ns: u64) {
        self.responses[kind.index()]
            .get_or_insert_with(|| Box::new(KindStats::new()))
            .record(resp_ns, 0);
    }

    /// Split the latency of `n` queued requests alike: `sub_ns` from issue
    /// to the kernel's acceptance, `comp_ns` from there to the reap.
    #[inline(always)]
    pub fn record_split(&mut self, kind: OpKind, sub_ns: u64, comp_ns: u64, n: u64) {
        let i = kind.index();
        let sub = self.submissions[i].get_or_insert_with(|| Box::new(KindStats::new()));
        sub.record_n(sub_ns, n, 0);
        let comp = self.completions[i].get_or_insert_with(|| Box::new(KindStats::new()));
        comp.record_n(comp_ns, n, 0);
    }

    /// Submission times of `kind` (queued engines), if any were recorded.
    pub fn submission(&self, kind: OpKind) -> Option<&KindStats> {
        self.submissions[kind.index()]
            .as_deref()
            .filter(|k| k.count > 0)
    }

    /// Completion times of `kind` (queued engines), if any were recorded.
    pub fn completion(&self, kind: OpKind) -> Option<&KindStats> {
        self.completions[kind.index()]
            .as_deref()
            .filter(|k| k.count > 0)
    }

    /// Response times of `kind` (open loop), if any were recorded.
    pub fn response(&self, kind: OpKind) -> Option<&KindStats> {
        self.responses[kind.index()]
            .as_deref()
            .filter(|k| k.count > 0)
    }

    /// `n` ops of `kind` timed as one batch: each gets the batch's mean
    /// latency `lat_ns`; `bytes` in all, the last finishing `at_ns` after
    /// the start of measurement.
    pub fn record_n(&mut self, kind: OpKind, lat_ns: u64, n: u64, bytes: u64, at_ns: u64) {
        self.kinds[kind.index()]
            .get_or_insert_with(|| Box::new(KindStats::new()))
            .record_n(lat_ns, n, bytes);
        if n > 0
            && let Some(iv) = &mut self.intervals
        {
            iv.record(kind, lat_ns, n, at_ns);
        }
        if kind.is_io() {
            self.io_ns += lat_ns as u128 * n as u128;
            self.series.add(at_ns, n, bytes);
        }
    }

    pub fn kind(&self, kind: OpKind) -> Option<&KindStats> {
        self.kinds[kind.index()].as_deref().filter(|k| k.count > 0)
    }

    /// The kinds with at least one op, in [`OpKind::ALL`] order.
    pub fn kinds(&self) -> impl Iterator<Item = (OpKind, &KindStats)> {
        OpKind::ALL
            .iter()
            .filter_map(|&k| self.kind(k).map(|s| (k, s)))
    }

    /// Forget everything recorded so far (the end of a ramp); allocates nothing.
    pub fn reset(&mut self) {
        for k in self
            .kinds
            .iter_mut()
            .chain(self.responses.iter_mut())
            .chain(self.submissions.iter_mut())
            .chain(self.completions.iter_mut())
            .flatten()
        {
            k.reset();
        }
        self.cancelled = 0;
        self.would_block = 0;
        self.io_ns = 0;
        self.series.clear();
        self.arrivals.issued = 0;
        self.arrivals.missed = 0;
        self.depths = depth::Depths::default();
        if let Some(iv) = &mut self.intervals {
            iv.reset();
        }
    }

    pub fn merge(&mut self, other: &WorkerStats) {
        self.merge_at(other, 0);
    }

    /// [`WorkerStats::merge`] of a run that began `offset_ns` after this
    /// one: its time series lands that much later (a suite's phases, run
    /// one after another, as one result).
    pub fn merge_at(&mut self, other: &WorkerStats, offset_ns: u64) {
        let pairs = self.kinds.iter_mut().zip(other.kinds.iter());
        let responses = self.responses.iter_mut().zip(other.responses.iter());
        let subs = self.submissions.iter_mut().zip(other.submissions.iter());
        let comps = self.completions.iter_mut().zip(other.completions.iter());
        for (mine, theirs) in pairs.chain(responses).chain(subs).chain(comps) {
            if let Some(t) = theirs {
                mine.get_or_insert_with(|| Box::new(KindStats::new()))
                    .merge(t);
            }
        }
        self.cancelled += other.cancelled;
        self.would_block += other.would_block;
        self.io_ns += other.io_ns;
        self.series.merge_at(&other.series, offset_ns);
        self.arrivals.rate += other.arrivals.rate;
        self.arrivals.issued += other.arrivals.issued;
        self.arrivals.missed += other.arrivals.missed;
        self.depths.merge(&other.depths);
    }

    /// Add a whole kind's stats at once (its time series is the caller's),
    /// for suites that keep compact records of their own while timed and
    /// convert them after the run (IOBENCH with a thousand users).
    pub fn merge_kind(&mut self, kind: OpKind, stats: &KindStats) {
        self.kinds[kind.index()]
            .get_or_insert_with(|| Box::new(KindStats::new()))
            .merge(stats);
        if kind.is_io() {
            self.io_ns += stats.sum_ns;
        }
    }

    /// The kinds `pick` chooses merged into one: their service times, and
    /// their response times (empty in a closed loop). A workload's
    /// requests as one distribution, whatever kinds they were.
    pub fn combined(&self, pick: impl Fn(OpKind) -> bool) -> (KindStats, KindStats) {
        let (mut service, mut response) = (KindStats::new(), KindStats::new());
        for k in OpKind::ALL.into_iter().filter(|&k| pick(k)) {
            if let Some(s) = self.kind(k) {
                service.merge(s);
            }
            if let Some(s) = self.response(k) {
                response.merge(s);
            }
        }
        (service, response)
    }

    /// Operations counted in the summary: the I/Os ([`OpKind::is_io`]).
    pub fn total_ops(&self) -> u64 {
        self.kinds()
            .filter(|(k, _)| k.is_io())
            .map(|(_, s)| s.count)
            .sum()
    }

    pub fn bytes(&self, dir: Direction) -> u64 {
        self.kinds()
            .filter(|(k, _)| k.direction() == Some(dir))
            .map(|(_, s)| s.bytes)
            .sum()
    }
}

/// [`WorkerStats`] as plain data, to cross a process boundary (a worker
/// process hands its stats to the parent); each kind's stats travel as
/// [`KindStats`] do (see its `Serialize`), so stats merged from processes
/// equal stats merged from threads, bucket by bucket. The u128 sum travels
/// as a decimal string.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct StatsWire {
    pub kinds: Vec<KindWire>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub responses: Vec<KindWire>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub submissions: Vec<KindWire>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub completions: Vec<KindWire>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cancelled: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub would_block: u64,
    pub io_ns: String,
    pub series_ops: Vec<u64>,
    pub series_bytes: Vec<u64>,
    #[serde(default)]
    pub arrivals: Arrivals,
    #[serde(default)]
    pub depths: depth::Depths,
    /// `--log-hist`: the interval (ns; 0 when none were kept) and the
    /// interval histograms.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub interval_ns: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<histlog::Packed>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One op kind's stats on the wire.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KindWire {
    pub kind: OpKind,
    #[serde(flatten)]
    pub stats: KindStats,
}

/// [`KindStats`] as plain data. The histogram travels as its non-empty
/// buckets, each as (the bucket's highest equivalent value, count):
/// recorded again into a histogram of the same precision they land in the
/// same buckets. u128 sums travel as decimal strings.
#[derive(Serialize, Deserialize)]
struct KindPlain {
    count: u64,
    bytes: u64,
    sum_ns: String,
    sumsq_ns: String,
    min_ns: u64,
    max_ns: u64,
    buckets: Vec<(u64, u64)>,
}

impl Serialize for KindStats {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        KindPlain {
            count: self.count,
            bytes: self.bytes,
            sum_ns: self.sum_ns.to_string(),
            sumsq_ns: self.sumsq_ns.to_string(),
            min_ns: self.min_ns,
            max_ns: self.max_ns,
            buckets: self
                .hist
                .iter_recorded()
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for KindStats {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<KindStats, D::Error> {
        let p = KindPlain::deserialize(d)?;
        let mut k = KindStats::new();
        k.count = p.count;
        k.bytes = p.bytes;
        k.sum_ns = count(&p.sum_ns).map_err(serde::de::Error::custom)?;
        k.sumsq_ns = count(&p.sumsq_ns).map_err(serde::de::Error::custom)?;
        k.min_ns = p.min_ns;
        k.max_ns = p.max_ns;
        for (v, n) in p.buckets {
            k.record_hist_n(v, n);
        }
        Ok(k)
    }
}

/// A u128 count from its decimal string.
fn count(s: &str) -> Result<u128, String> {
    s.parse().map_err(|_| format!("'{s}' is not a count"))
}

impl WorkerStats {
    /// The stats as plain data (see [`StatsWire`]).
    pub fn to_wire(&self) -> StatsWire {
        StatsWire {
            kinds: wire_kinds(&self.kinds),
            responses: wire_kinds(&self.responses),
            submissions: wire_kinds(&self.submissions),
            completions: wire_kinds(&self.completions),
            cancelled: self.cancelled,
            would_block: self.would_block,
            io_ns: self.io_ns.to_string(),
            series_ops: self.series.ops().to_vec(),
            series_bytes: self.series.bytes().to_vec(),
            arrivals: self.arrivals,
            depths: self.depths,
            interval_ns: self.intervals.as_ref().map_or(0, |i| i.interval_ns()),
            intervals: self
                .intervals
                .as_ref()
                .map(|i| i.packed())
                .unwrap_or_default(),
        }
    }

    /// The stats back from plain data.
    pub fn from_wire(w: &StatsWire) -> Result<WorkerStats, String> {
        let mut st = WorkerStats::new(&[]);
        let arrays = [
            (&w.kinds, &mut st.kinds),
            (&w.responses, &mut st.responses),
            (&w.submissions, &mut st.submissions),
            (&w.completions, &mut st.completions),
        ];
        for (wire, slots) in arrays {
            for k in wire {
                slots[k.kind.index()] = Some(Box::new(k.stats.clone()));
            }
        }
        st.arrivals = w.arrivals;
        st.depths = w.depths;
        st.cancelled = w.cancelled;
        st.would_block = w.would_block;
        st.io_ns = count(&w.io_ns)?;
        if w.interval_ns > 0 {
            st.intervals = Some(Box::new(histlog::IntervalHists::from_packed(
                w.interval_ns,
                w.intervals.clone(),
            )));
        }
        for (i, (&o, &b)) in w.series_ops.iter().zip(&w.series_bytes).enumerate() {
            if o > 0 || b > 0 {
                st.series.add(i as u64 * series::INTERVAL_NS, o, b);
            }
        }
        Ok(st)
    }
}

/// Plain-data form of one array of kind stats.
fn wire_kinds(slots: &[Option<Box<KindStats>>; OpKind::COUNT]) -> Vec<KindWire> {
    OpKind::ALL
        .iter()
        .filter_map(|&k| slots[k.index()].as_deref().map(|s| (k, s)))
        .map(|(kind, s)| KindWire {
            kind,
            stats: s.clone(),
        })
        .collect()
}

/// What a run measured.
pub struct Outcome {
    /// All workers merged.
    pub stats: WorkerStats,
    /// Each worker's own stats, in worker order; empty when there is one
    /// worker (`stats` are its stats).
    pub per_worker: Vec<WorkerStats>,
    /// Workers that ran (threads, processes, users); for a run of phases
    /// with different numbers of workers, the most at once.
    pub workers: usize,
    /// The workers' time, ns: over a run of phases, Σ elapsed × workers of
    /// each; 0 when it is simply `elapsed` × `workers`. The denominator
    /// of `io_time_fraction`.
    pub worker_ns: u128,
    /// The measured phase: end of ramp to the last worker's end (to the
    /// end of the schedule, for an open loop that ran out of arrivals).
    pub elapsed: std::time::Duration,
    pub cpu: CpuTimes,
    /// False when a signal or an error cut the run short.
    pub complete: bool,
    pub interrupted: bool,
    /// The first worker error, if any.
    pub error: Option<anyhow::Error>,
    /// What each worker handed back when it finished ([`Null`] when
    /// nothing), in worker order: a suite's own records (IOBENCH's users).
    ///
    /// [`Null`]: serde_json::Value::Null
    pub extras: Vec<serde_json::Value>,
    /// Why each worker failed, if it did (its error, or how its process
    /// died), in worker order.
    pub failures: Vec<Option<String>>,
    /// How each worker's engine was set up, where it says
    /// ([`crate::engine::Engine::mode`]), in worker order; empty when no
    /// worker was asked.
    pub engine_modes: Vec<Option<String>>,
    /// Where each worker was pinned, as it read it back
    /// ([`crate::runner::pin`]), in worker order; empty when the run pinned
    /// nothing (a worker that never got so far is missing).
    pub pinned: Vec<placed::Placed>,
    /// How busy the machine was over the measured phase (other processes,
    /// steal, load average); empty when not measured.
    pub machine: machine::MachineLoad,
}

impl Outcome {
    /// Each worker's record ([`Outcome::extras`]) read back as the type
    /// its worker wrote, in worker order: `None` where a worker handed
    /// back nothing (it never ran, or its process died).
    pub fn records<T: serde::de::DeserializeOwned>(&self) -> Vec<Option<T>> {
        self.extras
            .iter()
            .map(|x| (!x.is_null()).then(|| T::deserialize(x).ok()).flatten())
            .collect()
    }

    /// The workers' time, ns: [`Outcome::worker_ns`] when set, else
    /// elapsed × workers (at least one).
    pub fn worker_time_ns(&self) -> u128 {
        if self.worker_ns > 0 {
            self.worker_ns
        } else {
            self.elapsed.as_nanos() * self.workers.max(1) as u128
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator for test data (SplitMix64).
    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn stats_cross_a_process_boundary_unchanged() {
        let mut state = 7u64;
        let mut a = WorkerStats::new(&[OpKind::Read, OpKind::Write]);
        for i in 0..20_000u64 {
            let lat = splitmix(&mut state) % 5_000_000 + 1;
            let kind = if i % 3 == 0 {
                OpKind::Write
            } else {
                OpKind::Read
            };
            a.record(kind, lat, 4096, i * 200_000);
        }
        let wire = a.to_wire();
        let text = serde_json::to_string(&wire).unwrap();
        let back = WorkerStats::from_wire(&serde_json::from_str(&text).unwrap()).unwrap();
        assert_eq!(back.io_ns, a.io_ns);
        assert_eq!(back.series, a.series);
        for (k, s) in a.kinds() {
            let b = back.kind(k).unwrap();
            assert_eq!(
                (b.count, b.bytes, b.sum_ns, b.sumsq_ns),
                (s.count, s.bytes, s.sum_ns, s.sumsq_ns)
            );
            assert_eq!(b.summary(), s.summary());
            // bucket by bucket
            let x: Vec<_> = s
                .hist
                .iter_recorded()
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect();
            let y: Vec<_> = b
                .hist
                .iter_recorded()
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect();
            assert_eq!(x, y);
        }
        // merged from the wire = merged directly
        let mut m1 = WorkerStats::default();
        m1.merge(&a);
        m1.merge(&a);
        let mut m2 = WorkerStats::default();
        m2.merge(&back);
        m2.merge(&back);
        assert_eq!(
            m1.kind(OpKind::Read).unwrap().summary(),
            m2.kind(OpKind::Read).unwrap().summary()
        );
    }

    #[test]
    fn percentiles_never_pass_the_exact_extremes() {
        // 59 700 ns falls in a bucket whose highest equivalent value is above it
        let mut k = KindStats::new();
        for _ in 0..10_000 {
            k.record(59_700, 0);
        }
        let s = k.summary();
        assert_eq!(s.max, 59_700);
        for p in [s.p50, s.p90, s.p95, s.p99, s.p999, s.p9999] {
            assert_eq!(p, 59_700);
        }
        assert_eq!(k.percentile_ns(99.99), 59_700);
        let mut k = KindStats::new();
        k.record(1_000_001, 0);
        k.record(1_000_003, 0);
        assert!(k.summary().p50 >= 1_000_001 && k.summary().p9999 <= 1_000_003);
    }

    #[test]
    fn summary_percentiles_equal_the_single_ones() {
        let mut st = 11u64;
        let mut k = KindStats::new();
        for _ in 0..10_000 {
            k.record(splitmix(&mut st) % 5_000_000 + 1, 0);
        }
        let s = k.summary();
        let got = [s.p50, s.p90, s.p95, s.p99, s.p999, s.p9999];
        let want = [50.0, 90.0, 95.0, 99.0, 99.9, 99.99].map(|q| k.percentile_ns(q));
        assert_eq!(got, want);
        assert_eq!(KindStats::new().summary().p99, 0);
    }

    #[test]
    fn histograms_grow_without_changing_buckets() {
        // a fresh histogram starts small and grows to an hour on demand
        let mut small = KindStats::new();
        let before = small.hist.distinct_values();
        for v in [5_000u64, 2_000_000_000, MAX_LATENCY_NS, MAX_LATENCY_NS * 10] {
            small.record(v, 0);
        }
        assert!(small.hist.distinct_values() > before);
        // the same samples in a histogram made at full size from the start
        let mut full = Histogram::<u64>::new_with_bounds(1, MAX_LATENCY_NS, SIG_DIGITS).unwrap();
        for v in [5_000u64, 2_000_000_000, MAX_LATENCY_NS, MAX_LATENCY_NS] {
            full.record(v).unwrap();
        }
        for q in [0.1, 0.3, 0.5, 0.7, 1.0] {
            assert_eq!(
                small.hist.value_at_quantile(q),
                full.value_at_quantile(q),
                "q {q}"
            );
        }
        assert_eq!(small.max_ns, MAX_LATENCY_NS * 10, "the exact max is kept");
        // merging a grown histogram into a fresh one grows it
        let mut fresh = KindStats::new();
        fresh.record(700, 0);
        fresh.merge(&small);
        assert_eq!(fresh.count, 5);
        assert_eq!(fresh.hist.len(), 5);
        assert_eq!(fresh.percentile_ns(100.0), full.value_at_quantile(1.0));
        assert_eq!(fresh.percentile_ns(10.0), 700);
    }

    #[test]
    fn percentiles_match_sorted_samples_within_hdr_precision() {
        let mut st = 7u64;
        let mut k = KindStats::new();
        let mut raw = Vec::new();
        for _ in 0..100_000 {
            // log-uniform over 100 ns … 10 ms, like real latencies
            let u = (splitmix(&mut st) >> 11) as f64 / (1u64 << 53) as f64;
            let v = (100.0 * (1e5f64).powf(u)) as u64;
            raw.push(v);
            k.record(v, 4096);
        }
        raw.sort_unstable();
        for q in [50.0, 90.0, 95.0, 99.0, 99.9, 99.99] {
            let idx = ((q / 100.0) * raw.len() as f64).ceil() as usize - 1;
            let exact = raw[idx] as f64;
            let got = k.percentile_ns(q) as f64;
            assert!(
                (got - exact).abs() <= exact * 0.001 + 1.0,
                "p{q}: hdr {got} vs sorted {exact}"
            );
        }
        assert_eq!(k.min_ns, raw[0]);
        assert_eq!(k.max_ns, *raw.last().unwrap());
        let mean = raw.iter().map(|&v| v as f64).sum::<f64>() / raw.len() as f64;
        assert!((k.mean_ns() - mean).abs() < 1e-6 * mean);
        let var = raw.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / raw.len() as f64;
        assert!((k.stddev_ns() - var.sqrt()).abs() < 1e-6 * var.sqrt());
    }

    #[test]
    fn stddev_keeps_digits_for_small_spread() {
        let mut k = KindStats::new();
        for v in [1_000_000_000u64, 1_000_000_002] {
            k.record(v, 0);
        }
        assert_eq!(k.mean_ns(), 1_000_000_001.0);
        assert_eq!(k.stddev_ns(), 1.0);
    }

    #[test]
    fn merge_equals_recording_everything_in_one() {
        let mut a = WorkerStats::new(&[OpKind::Read]);
        let mut b = WorkerStats::new(&[]);
        let mut all = WorkerStats::new(&[]);
        for i in 1..=1000u64 {
            let (kind, target) = if i % 3 == 0 {
                (OpKind::Write, &mut b)
            } else {
                (OpKind::Read, &mut a)
            };
            target.record(kind, i * 10, 512, i * 3_000_000);
            all.record(kind, i * 10, 512, i * 3_000_000);
        }
        a.merge(&b);
        assert_eq!(a.total_ops(), 1000);
        assert_eq!(
            a.bytes(Direction::Read) + a.bytes(Direction::Write),
            512_000
        );
        for kind in [OpKind::Read, OpKind::Write] {
            let (x, y) = (a.kind(kind).unwrap(), all.kind(kind).unwrap());
            assert_eq!(x.summary(), y.summary());
        }
        assert_eq!(a.io_ns, all.io_ns);
        assert_eq!(a.series, all.series);
        assert_eq!(a.series.ops().iter().sum::<u64>(), 1000);
    }

    #[test]
    fn reset_forgets_but_keeps_histograms() {
        let mut s = WorkerStats::new(&[OpKind::Read]);
        s.record(OpKind::Read, 100, 1, 0);
        s.reset();
        assert_eq!(s.total_ops(), 0);
        assert!(s.kind(OpKind::Read).is_none());
        s.record(OpKind::Read, 200, 1, 0);
        let k = s.kind(OpKind::Read).unwrap();
        assert_eq!((k.count, k.min_ns, k.max_ns), (1, 200, 200));
        assert_eq!(k.percentile_ns(50.0), 200);
    }

    #[test]
    fn merge_kind_equals_recording() {
        let (mut a, mut b) = (WorkerStats::new(&[]), WorkerStats::new(&[]));
        let mut k = KindStats::new();
        for v in [100u64, 200, 300] {
            a.record(OpKind::Read, v, 10, 0);
            k.record(v, 10);
        }
        b.merge_kind(OpKind::Read, &k);
        assert_eq!(
            b.kind(OpKind::Read).unwrap().summary(),
            a.kind(OpKind::Read).unwrap().summary()
        );
        assert_eq!(b.io_ns, a.io_ns);
        b.merge_kind(OpKind::Transaction, &k);
        assert_eq!(b.io_ns, a.io_ns, "transactions are not I/O time");
    }

    #[test]
    fn only_io_kinds_are_ops() {
        let mut s = WorkerStats::new(&[]);
        s.record(OpKind::Transaction, 1000, 0, 0);
        s.record(OpKind::Read, 400, 10, 0);
        s.record(OpKind::Cpu, 500, 0, 0);
        s.record(OpKind::Lock, 300, 0, 0);
        s.record(OpKind::Unlock, 200, 0, 0);
        s.record(OpKind::Mkdir, 100, 0, 0);
        assert_eq!(s.io_ns, 500);
        // issue 33: locks and CPU work are no I/O, in the count as in the
        // time and the per-second series
        assert_eq!(s.total_ops(), 2);
        assert_eq!(s.series.ops(), &[2]);
    }
}

/// A per-I/O log file a run wrote (fio's `write_lat_log` and the others):
/// where, which log, how many lines.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoLogFile {
    /// The file, as given (relative to the current directory as in fio).
    pub path: String,
    /// Which log: lat, clat, slat, bw or iops.
    pub log: String,
    /// Lines written.
    pub lines: u64,
}
