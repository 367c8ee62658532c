//! The runner: N workers that start together behind a barrier and stop on an
//! op budget, a duration, an error or a signal, with an optional ramp whose
//! ops are not counted.
//!
//! Layout and prefill happen before [`run`] and are never timed. Inside the
//! timed loop a worker touches only its own [`Ctx`]: its stats, its op budget
//! and one relaxed atomic load of the stop flag per op. The main thread keeps
//! time, turns Ctrl-C into the stop flag, and draws the progress bar from
//! counters each worker publishes every few hundred ops.

mod fdtable;
pub mod histlog;
pub mod io;
pub mod iolog;
pub mod limits;
pub mod live;
pub mod names;
pub mod pace;
pub mod pin;
pub mod procs;
pub mod signals;
pub mod tx;
pub mod workdir;
pub mod workers;

pub use io::{Io, Source};
pub use pace::{Arrivals, ByteCap, CapProcess, Pace};
pub use tx::{Transactions, Tx};
pub use workdir::WorkDir;
pub use workers::{Placement, Workers, run_workers};

use crate::engine::Completion;
pub use crate::measure::Outcome;
use crate::measure::clock::now_ns;
use crate::measure::machine::{MachineLoad, Snapshot};
use crate::measure::{CpuTimes, OpKind, WorkerStats};
use anyhow::Result;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex, OnceLock};
use std::time::Duration;

/// When the timed phase ends.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StopRule {
    /// Total ops over all workers (split evenly), not counting fsyncs and
    /// whole transactions; `None` = no budget.
    pub ops: Option<u64>,
    /// Wall time of the measured phase (after the ramp).
    pub duration: Option<Duration>,
    /// Time at the start whose ops are done but not counted.
    pub ramp: Option<Duration>,
    /// After the stop, how long workers may take to finish what they are
    /// doing before they are hurried ([`Ctx::hurry`], [`Watch::hurry`]) and,
    /// as processes, killed. Default: 5 s.
    pub grace: Option<Duration>,
    /// When requests are issued: back to back (the default), after a think
    /// time, or at a rate (open loop). Honoured by workers that ask for
    /// their turn with [`Ctx::next_request`].
    pub pace: Pace,
    /// Which CPUs each worker runs on and where its memory goes; set by
    /// each worker as it starts ([`pin`]).
    pub pin: pin::Pinning,
}

impl StopRule {
    /// The op budget of worker `i` of `n`: the total split evenly, the
    /// first `total mod n` workers one more.
    pub fn budget(&self, i: usize, n: usize) -> u64 {
        match self.ops {
            Some(total) => total / n as u64 + u64::from((i as u64) < total % n as u64),
            None => u64::MAX,
        }
    }

    pub fn grace(&self) -> Duration {
        self.grace.unwrap_or(Duration::from_secs(5))
    }
}

/// What a suite is told while its workers run; every method defaults to
/// nothing. Called from the runner's controlling thread.
pub trait Watch: Sync {
    /// The run must end at once (Ctrl-C, or the grace after the stop is
    /// over): wake whatever the workers wait on.
    fn hurry(&self) {}
    /// Worker `i` died (a process killed or crashed): give back what it held.
    fn dead(&self, _i: usize) {}
    /// Each turn of the controlling loop (at least every 20 ms), with the
    /// ops the workers have done: true stops the run as its deadline would
    /// (another MPI rank finished first, under `--stonewall`).
    fn poll(&self, _done_ops: u64) -> bool {
        false
    }
    /// [`Watch::poll`] with the bytes done as well: what the controlling
    /// loop calls. A watch that needs only the ops implements `poll`.
    fn poll_done(&self, done: Done) -> bool {
        self.poll(done.ops)
    }
    /// Whether [`Watch::poll`] must be called: a run that is polled always
    /// has a controlling loop, even with one worker.
    fn polled(&self) -> bool {
        false
    }
}

/// Two watches told everything in turn: a benchmark's and the MPI job's.
pub struct Both<'a>(pub &'a dyn Watch, pub &'a dyn Watch);

impl Watch for Both<'_> {
    fn hurry(&self) {
        self.0.hurry();
        self.1.hurry();
    }
    fn dead(&self, i: usize) {
        self.0.dead(i);
        self.1.dead(i);
    }
    fn poll(&self, done_ops: u64) -> bool {
        self.poll_done(Done {
            ops: done_ops,
            bytes: 0,
        })
    }
    fn poll_done(&self, done: Done) -> bool {
        // both are polled every turn, whatever the first says
        let a = self.0.poll_done(done);
        self.1.poll_done(done) || a
    }
    fn polled(&self) -> bool {
        self.0.polled() || self.1.polled()
    }
}

/// When the last run's measured phase began (clock ns, after its ramp):
/// where an MPI rank's phase starts on its own clock.
static LAST_T0: AtomicU64 = AtomicU64::new(0);

/// The start of the measured phase of the last run this process made
/// (clock ns; 0 before any).
pub fn last_t0() -> u64 {
    LAST_T0.load(Ordering::Relaxed)
}

pub(crate) fn set_last_t0(t0: u64) {
    LAST_T0.store(t0, Ordering::Relaxed);
}

/// What the workers of a run have done in its measured phase, as last
/// published (every 256 ops each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Done {
    pub ops: u64,
    pub bytes: u64,
}

/// The longest a worker goes without publishing while it completes ops.
const PUBLISH_NS: u64 = 10_000_000;

/// What one worker publishes for the controlling thread: its ops and bytes
/// in the measured phase, two relaxed stores every 256 ops.
#[derive(Debug, Default)]
pub(crate) struct Published {
    ops: AtomicU64,
    bytes: AtomicU64,
}

impl Published {
    pub(crate) fn load(&self) -> Done {
        Done {
            ops: self.ops.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }
}

/// The sum of what `cells` published.
pub(crate) fn total<'a>(cells: impl Iterator<Item = &'a Published>) -> Done {
    cells.fold(Done::default(), |a, c| {
        let d = c.load();
        Done {
            ops: a.ops + d.ops,
            bytes: a.bytes + d.bytes,
        }
    })
}

/// A watch that needs telling nothing.
pub struct NoWatch;
impl Watch for NoWatch {}

/// A worker's view of the run. Cheap to consult in the hot loop.
/// An open loop's next arrival, for a driver with requests in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Turn {
    /// It was due and is taken: issue a request now.
    Due,
    /// It falls at this clock time.
    Later(u64),
    /// No more: the schedule, the op budget or the run is over.
    Over,
}

pub struct Ctx<'a> {
    pub index: usize,
    pub stats: WorkerStats,
    stop: &'a AtomicBool,
    hurry: &'a AtomicBool,
    progress: &'a Published,
    /// Start of measurement (the end of the ramp), in clock ns.
    t0_ns: u64,
    measuring: bool,
    ops_left: u64,
    done: u64,
    /// Bytes of the measured phase (published with `done`).
    bytes_done: u64,
    /// Publish at the first op done after this (clock ns).
    publish_ns: u64,
    pacer: Option<pace::Pacer>,
    /// Intended start of the request under way (open loop), clock ns; 0
    /// when there is none.
    arrival_ns: u64,
    /// When a paced worker found the run over (clock ns; 0 before).
    end_ns: u64,
    /// The bandwidth caps ([`Pace::cap`]), if any.
    capper: Option<pace::Capper>,
    /// fio's per-I/O logs, when the worker keeps them ([`Worker::io_log`]).
    log: Option<Box<iolog::IoLog>>,
}

impl<'a> Ctx<'a> {
    /// Worker `index`, whose run began at `began_ns` (clock); `pace` is the
    /// pace it follows with the share (i of n) of it the worker holds.
    #[allow(clippy::too_many_arguments)]
    fn new(
        index: usize,
        mut stats: WorkerStats,
        flags: (&'a AtomicBool, &'a AtomicBool),
        progress: &'a Published,
        began_ns: u64,
        ramp_ns: u64,
        budget: u64,
        pace: (&Pace, usize, usize),
        duration: Option<Duration>,
    ) -> Ctx<'a> {
        // the pace, and which share of it this worker holds: (i, n) of the
        // run's, or (0, 1) of a pace of the worker's own
        let (pace, share_i, share_n) = pace;
        let mut pacer = pace.pacer(share_i, share_n, began_ns);
        if let (Some(p), Some(d)) = (pacer.as_mut(), duration) {
            // saturating: a schedule that ends past the clock's range never ends
            let d = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
            p.end_at(began_ns.saturating_add(ramp_ns).saturating_add(d));
        }
        if pacer.is_some() {
            pace::tight_timers();
        }
        if pacer.as_ref().is_some_and(pace::Pacer::is_open) {
            stats.expect_responses(pace.rate.unwrap_or(0.0) / share_n.max(1) as f64);
        }
        if let Some(ns) = histlog::interval_ns() {
            stats.log_intervals(ns);
        }
        let capper = pace.cap.capper(share_i, share_n, pace.seed, began_ns);
        if capper.is_some() {
            pace::tight_timers();
        }
        Ctx {
            index,
            stats,
            stop: flags.0,
            hurry: flags.1,
            progress,
            t0_ns: began_ns + ramp_ns,
            measuring: ramp_ns == 0,
            ops_left: budget,
            done: 0,
            bytes_done: 0,
            publish_ns: 0,
            pacer,
            arrival_ns: 0,
            end_ns: 0,
            capper,
            log: None,
        }
    }

    /// Whether a bandwidth cap holds this worker back.
    #[inline]
    pub(crate) fn is_capped(&self) -> bool {
        self.capper.is_some()
    }

    /// Bandwidth cap: when a request of `kind` may go (clock ns), at
    /// once when none holds it back.
    pub(crate) fn cap_due(&self, kind: OpKind) -> u64 {
        let now = now_ns();
        self.capper.as_ref().map_or(now, |c| c.due(kind, now))
    }

    /// Bandwidth cap: a request of `kind` moving `len` bytes goes now.
    pub(crate) fn cap_take(&mut self, kind: OpKind, len: u64) {
        if let Some(c) = self.capper.as_mut() {
            c.take(kind, len, now_ns());
        }
    }

    /// Bandwidth cap: wait until a request of `kind` moving `len` bytes
    /// may go, and take its turn; false when the run stopped meanwhile.
    pub(crate) fn cap_wait(&mut self, kind: OpKind, len: u64) -> bool {
        let at = self.cap_due(kind);
        if pace::sleep_until(at, self.stop).is_err() {
            return false;
        }
        self.cap_take(kind, len);
        true
    }

    /// Whether the worker should issue another request, after waiting for
    /// its turn: its intended start in an open loop, a think time in a
    /// closed one ([`StopRule::pace`]); at once when unpaced. A worker that
    /// issues requests in a loop asks this at the top of each; the ops it
    /// records until the next ask belong to this request, and in an open
    /// loop their response times run from its intended start.
    #[inline]
    pub fn next_request(&mut self) -> bool {
        if self.pacer.is_none() {
            return self.keep_going();
        }
        self.wait_turn()
    }

    #[inline(never)]
    fn wait_turn(&mut self) -> bool {
        if !self.keep_going() {
            // arrivals due before now were never issued (if any: the
            // worker was behind)
            self.end_ns = now_ns();
            return false;
        }
        let Some(p) = self.pacer.as_mut() else {
            return true;
        };
        match p.wait(self.stop) {
            Ok(Some(at)) => {
                self.arrival_ns = at;
                if at >= self.t0_ns {
                    self.stats.arrivals.issued += 1;
                }
                true
            }
            Ok(None) => true,
            // stopped in the wait: the stop may have come before the wait
            // looked at the clock, with the worker behind, so the arrivals
            // due before now are counted as for any stop (none when it was
            // ahead of the schedule)
            Err(pace::Stopped) => {
                self.end_ns = now_ns();
                false
            }
        }
    }

    /// Whether this worker runs an open loop (a schedule of arrivals).
    pub(crate) fn is_open(&self) -> bool {
        self.pacer.as_ref().is_some_and(pace::Pacer::is_open)
    }

    /// Whether this worker waits before requests (an open loop or think
    /// times): a driver submits what it queued before such a wait.
    pub(crate) fn is_paced(&self) -> bool {
        self.pacer.is_some()
    }

    /// Open loop with requests in flight ([`crate::runner::io`]): take the
    /// next arrival if it is due, without waiting. `in_flight` data
    /// requests count against the op budget. `woke` is when the driver
    /// last came back from waiting for an arrival (0: it has not waited
    /// since the last one was taken).
    pub(crate) fn open_turn(&mut self, in_flight: u64, woke: &mut u64) -> Turn {
        let now = now_ns();
        let Some(p) = self.pacer.as_mut().filter(|p| p.is_open()) else {
            return Turn::Over;
        };
        let at = p.next_at();
        if self.ops_left <= in_flight || self.stop.load(Ordering::Relaxed) || at >= p.end_ns() {
            self.end_ns = now;
            return Turn::Over;
        }
        if at > now {
            return Turn::Later(at);
        }
        p.take();
        // the response runs from the intended start, however late the
        // request goes out (a late one waited for a slot: that is
        // queueing), unless the driver waited for it and woke late: that
        // is the system's wake-up latency, as at depth 1
        self.arrival_ns = at.max(std::mem::take(woke));
        if at >= self.t0_ns {
            self.stats.arrivals.issued += 1;
        }
        Turn::Due
    }

    /// Sleep until clock `at_ns`, or until the run is stopped.
    pub(crate) fn sleep_until(&self, at_ns: u64) {
        let _ = pace::sleep_until(at_ns, self.stop);
    }

    /// Open loop: when the response time of the request under way started
    /// (its intended start, or when its worker woke for it); `None` in a
    /// closed loop. For suites that keep response times of their own.
    pub fn response_start_ns(&self) -> Option<u64> {
        (self.arrival_ns != 0).then_some(self.arrival_ns)
    }

    /// When this worker's measured phase ended, given that it returned at
    /// clock `end`: `None` if it never left the ramp. An open loop whose
    /// schedule ran out ends at the end of the schedule, not at its last
    /// completion: the time after the last arrival is part of the run (it
    /// offered nothing then), and a rate over a shorter time would
    /// overstate what was asked for.
    fn measured_end(&self, end: u64) -> Option<u64> {
        if !self.measuring {
            return None;
        }
        Some(match &self.pacer {
            Some(p) if p.schedule_over() => end.max(p.end_ns()),
            _ => end,
        })
    }

    /// After the run: the arrivals scheduled before the worker stopped, and
    /// within the measured phase, that were never issued (an open loop
    /// that fell behind). A worker that notices the stop late does not
    /// count the arrivals after the end as missed.
    fn settle_arrivals(&mut self) {
        if let Some(p) = &self.pacer
            && self.end_ns > self.t0_ns
        {
            let end = self.end_ns.min(p.end_ns());
            self.stats.arrivals.missed += p.missed_before(end);
        }
    }

    /// Whether a driven worker may issue another request with
    /// `in_flight` data requests not yet complete (they count against the
    /// op budget), after waiting for its turn as [`Ctx::next_request`].
    #[inline]
    pub fn may_issue(&mut self, in_flight: u64) -> bool {
        self.ops_left > in_flight && self.next_request()
    }

    /// Whether the worker should issue another op.
    #[inline]
    pub fn keep_going(&self) -> bool {
        self.ops_left > 0 && !self.stop.load(Ordering::Relaxed)
    }

    /// Whether the run was asked to stop (signal, error, time).
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Stop the run: every worker ends as at its deadline (fio's
    /// `exitall`, one job's end ending the others).
    pub fn stop_run(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether the run must end at once: Ctrl-C, or the grace after the
    /// stop is over. A worker waiting on something (a lock) gives up.
    pub fn hurry(&self) -> bool {
        self.hurry.load(Ordering::Relaxed)
    }

    /// The stop and hurry flags, for waits outside the worker's own loop.
    pub fn flags(&self) -> (&AtomicBool, &AtomicBool) {
        (self.stop, self.hurry)
    }

    /// Publish progress for a worker that counts in its own units (IOBENCH's
    /// transactions) rather than through [`Ctx::record_op`].
    #[inline]
    pub fn publish(&mut self, done: u64) {
        self.progress.ops.store(done, Ordering::Relaxed);
    }

    /// Record a finished engine operation.
    #[inline(always)]
    pub fn record(&mut self, c: &Completion) {
        self.record_op(c.req.kind, c.lat_ns, c.bytes, c.done_ns);
        if self.log.is_some() {
            self.log_io(c, 1);
        }
    }

    /// Whether this worker keeps fio's per-I/O logs: a driver then records
    /// each request on its own, never a run of them at once.
    #[inline(always)]
    pub(crate) fn logs_io(&self) -> bool {
        self.log.is_some()
    }

    /// `n` requests alike, just recorded, in the per-I/O logs (unless
    /// they fell in the ramp).
    #[inline(never)]
    fn log_io(&mut self, c: &Completion, n: u64) {
        if let Some(l) = &mut self.log
            && self.measuring
        {
            l.record(c, n, c.done_ns.saturating_sub(self.t0_ns));
        }
    }

    /// After the worker's run: its per-I/O logs, closed at the end of its
    /// measured phase (`end`, clock ns; `None` if it never left the ramp),
    /// handed to [`iolog::keep`].
    fn keep_log(&mut self, end: Option<u64>) {
        if let Some(mut l) = self.log.take() {
            l.finish(end.map(|e| e.saturating_sub(self.t0_ns)));
            iolog::keep(*l);
        }
    }

    /// Record `n` finished requests alike (the same kind, latency, split,
    /// bytes each and end, as a batch of page-cache hits submitted by one
    /// call and reaped by one), whose intended start (open loop) was
    /// `arrival_ns` (0: none; with one, `n` is 1), for a driver with
    /// several in flight. `busy_ns` is what they added to the worker's time
    /// in I/O (the part of their latency no earlier request in flight
    /// covered).
    #[inline(always)]
    pub fn record_from(&mut self, c: &Completion, n: u64, arrival_ns: u64, busy_ns: u64) {
        let current = std::mem::replace(&mut self.arrival_ns, arrival_ns);
        self.record_busy(c.req.kind, c.lat_ns, n, c.bytes * n, c.done_ns, busy_ns);
        if c.sub_ns != crate::engine::SUB_NONE && self.measuring {
            let comp = c.lat_ns.saturating_sub(c.sub_ns);
            self.stats.record_split(c.req.kind, c.sub_ns, comp, n);
        }
        if self.log.is_some() {
            self.log_io(c, n);
        }
        self.arrival_ns = current;
    }

    /// Record an operation timed by the caller (metadata ops, transactions).
    #[inline(always)]
    pub fn record_op(&mut self, kind: OpKind, lat_ns: u64, bytes: u64, done_ns: u64) {
        self.record_busy(kind, lat_ns, 1, bytes, done_ns, lat_ns);
    }

    /// `n` ops of `kind`, `bytes` in all.
    #[inline(always)]
    fn record_busy(
        &mut self,
        kind: OpKind,
        lat_ns: u64,
        n: u64,
        bytes: u64,
        done_ns: u64,
        busy_ns: u64,
    ) {
        if !self.measuring {
            if done_ns < self.t0_ns {
                return;
            }
            // the ramp is over: forget it (allocates nothing)
            self.stats.reset();
            self.measuring = true;
        }
        let at = done_ns.saturating_sub(self.t0_ns);
        if n == 1 {
            self.stats.record_busy(kind, lat_ns, bytes, at, busy_ns);
        } else {
            self.stats
                .record_busy_n(kind, lat_ns, n, bytes, at, busy_ns);
        }
        if self.arrival_ns != 0 {
            self.stats
                .record_response(kind, done_ns.saturating_sub(self.arrival_ns));
        }
        // the op budget counts the workload's own ops; syncs and whole
        // transactions come on top (as fio's number_ios counts I/O units)
        if !matches!(kind, OpKind::Transaction | OpKind::Fsync) {
            self.ops_left = self.ops_left.saturating_sub(n);
            let before = self.done;
            self.done += n;
            self.bytes_done += bytes;
            // every 256 ops, and at least every 10 ms of a slow run (large
            // blocks, a disk seeking) so that per-second samples hold more
            // than one publication
            if (before ^ self.done) >> 8 != 0 || done_ns >= self.publish_ns {
                self.progress.ops.store(self.done, Ordering::Relaxed);
                self.progress
                    .bytes
                    .store(self.bytes_done, Ordering::Relaxed);
                self.publish_ns = done_ns + PUBLISH_NS;
            }
        }
    }

    /// The start of measurement (clock ns), for suites that time phases themselves.
    pub fn t0_ns(&self) -> u64 {
        self.t0_ns
    }
}

/// Something that runs on one worker thread until told to stop.
pub trait Worker: Send {
    /// Op kinds this worker records, so their histograms exist before timing.
    fn kinds(&self) -> &[OpKind];
    /// The timed loop. Return when `ctx.keep_going()` turns false or the
    /// work is done.
    fn run(&mut self, ctx: &mut Ctx) -> Result<()>;
    /// After the run (untimed): what the worker hands back beside its
    /// stats, e.g. a suite's own records ([`Outcome::extras`]).
    fn finish(&mut self) -> serde_json::Value {
        serde_json::Value::Null
    }
    /// Whether the worker's thread takes its own copy of the descriptor
    /// table (see [`fdtable`]): faster system calls, but every descriptor
    /// open at the start is then held by every worker until it ends. So only
    /// for a worker whose files' last close means nothing during the run: no
    /// pipe it waits on for an end of file, no file another worker expects
    /// freed when it closes its own.
    fn own_fd_table(&self) -> bool {
        false
    }
    /// After the run: how the worker's engine was set up
    /// ([`crate::engine::Engine::mode`]), for the result.
    fn engine_mode(&self) -> Option<String> {
        None
    }
    /// A pace of the worker's own (fio's per-job `rate`, `rate_iops`,
    /// `thinktime`), held whole by this worker, instead of its share of
    /// [`StopRule::pace`]. Threads only: process workers take the run's.
    fn pace(&self) -> Option<Pace> {
        None
    }
    /// Before the run (untimed): the fio logs worker `index` keeps
    /// ([`iolog`]), `None` for none. By default, what [`iolog::enable`]
    /// asked of every worker; a suite with logs of its own per worker (a
    /// fio job's) says them here. Logs are kept by workers that run as
    /// threads; a worker process keeps none.
    fn io_log(&self, index: usize) -> Option<iolog::LogSpec> {
        iolog::planned(index)
    }
    /// Where this worker runs when it is not where the run's
    /// [`StopRule::pin`] puts every worker (a fio job's own
    /// `cpus_allowed` among other jobs' in one run): its thread, or its
    /// process once the worker is built, is pinned with it as it starts.
    fn pinning(&self) -> Option<pin::Pinning> {
        None
    }
    /// An op budget of the worker's own (fio's per-job `number_ios`),
    /// instead of its share of [`StopRule::ops`]; counted as that is.
    fn op_budget(&self) -> Option<u64> {
        None
    }
    /// How long after the run's start the worker starts (fio's
    /// `startdelay`): its ramp, pace and measured phase begin then. A run
    /// stopped before then never starts it. Threads only.
    fn start_delay(&self) -> Duration {
        Duration::ZERO
    }
    /// Whether the worker's error stops the run (the default): a worker
    /// that says no ends alone and the others go on (a fio job, whose
    /// error ends others only under `exitall_on_error`). The run's
    /// outcome still carries the error.
    fn error_stops_run(&self) -> bool {
        true
    }
}

impl Worker for Box<dyn Worker> {
    fn kinds(&self) -> &[OpKind] {
        (**self).kinds()
    }
    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        (**self).run(ctx)
    }
    fn finish(&mut self) -> serde_json::Value {
        (**self).finish()
    }
    fn own_fd_table(&self) -> bool {
        (**self).own_fd_table()
    }
    fn engine_mode(&self) -> Option<String> {
        (**self).engine_mode()
    }
    fn pace(&self) -> Option<Pace> {
        (**self).pace()
    }
    fn io_log(&self, index: usize) -> Option<iolog::LogSpec> {
        (**self).io_log(index)
    }
    fn pinning(&self) -> Option<pin::Pinning> {
        (**self).pinning()
    }
    fn op_budget(&self) -> Option<u64> {
        (**self).op_budget()
    }
    fn start_delay(&self) -> Duration {
        (**self).start_delay()
    }
    fn error_stops_run(&self) -> bool {
        (**self).error_stops_run()
    }
}

/// What a run tells as it goes: the one observer of every benchmark, for
/// the progress display and the lines a benchmark prints as it works.
/// Every method defaults to nothing. A benchmark with events of its own
/// (IOzone's rows, selfscale's points) extends it.
pub trait Progress: Sync {
    /// What happens before the timed phase (layout, prefill).
    fn status(&self, _what: &str) {}
    /// A line the benchmark tells as it happens, from the thread that
    /// started the run: bonnie's stderr lines, FFSB's set-up and timing
    /// lines (`creating new fileset <loc>`, `fs setup took N secs`), what
    /// selfscale picked or skipped.
    fn say(&self, _line: &str) {}
    fn tick(&self, _done_ops: u64, _elapsed: Duration) {}
    /// Whether ticks show anywhere; a run nobody watches may skip them.
    fn shown(&self) -> bool {
        true
    }
}

pub struct NoProgress;
impl Progress for NoProgress {
    fn shown(&self) -> bool {
        false
    }
}

/// Run `workers` under `rule`, each on its own thread.
///
/// One worker with nothing for the main thread to do (no duration or ramp
/// to keep, no progress shown) runs on the calling thread instead: a short
/// run (PostMark's defaults last 10 ms) then pays neither the thread's
/// start nor the wake-up of an idle CPU at its end (0.5 ms in a VM), and
/// glibc's system-call wrappers stay on their single-threaded path.
pub fn run<W: Worker>(rule: StopRule, workers: Vec<W>, progress: &dyn Progress) -> Outcome {
    run_with(rule, workers, progress, &NoWatch)
}

/// [`run`], telling `watch` when the workers must hurry.
pub fn run_with<W: Worker>(
    rule: StopRule,
    mut workers: Vec<W>,
    progress: &dyn Progress,
    watch: &dyn Watch,
) -> Outcome {
    let n = workers.len();
    if n == 1
        && rule.duration.is_none()
        && rule.ramp.unwrap_or_default().is_zero()
        && !rule.pace.is_paced()
        && workers[0].pace().is_none()
        && !progress.shown()
        && !watch.polled()
        && !rule.pin.is_set()
        && workers.iter().all(|w| w.pinning().is_none())
        && workers[0].start_delay().is_zero()
    {
        let w = workers.pop().expect("one worker");
        return run_here(rule.ops, w);
    }
    let shared = Shared {
        stop: AtomicBool::new(false),
        hurry: AtomicBool::new(false),
        finished: AtomicUsize::new(0),
        counters: (0..n).map(|_| Padded::default()).collect(),
        barrier: Barrier::new(n + 1),
        start: OnceLock::new(),
        main_thread: std::thread::current(),
        orphans: Mutex::new(Vec::new()),
    };
    let ramp = rule.ramp.unwrap_or_default();
    let (t0, (cpu_at_t0, machine_at_t0), results) = std::thread::scope(|s| {
        let handles: Vec<_> = workers
            .into_iter()
            .enumerate()
            .map(|(i, w)| {
                let budget = rule.budget(i, n);
                let (rule, shared) = (&rule, &shared);
                s.spawn(move || work(i, w, budget, rule, shared))
            })
            .collect();

        let cpu_start = (CpuTimes::now(), Snapshot::now());
        let began = now_ns();
        shared.start.set(began).expect("set once");
        shared.barrier.wait();
        let t0 = began + ramp.as_nanos() as u64;
        set_last_t0(t0);
        let cpu_at_t0 = oversee(&rule, &shared, t0, cpu_start, progress, watch);
        let results: Vec<Ended> = handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|p| {
                    (
                        WorkerStats::default(),
                        None,
                        Some(anyhow::anyhow!("internal error: {}", panic_text(&*p))),
                        serde_json::Value::Null,
                        None,
                        None,
                    )
                })
            })
            .collect();
        (t0, cpu_at_t0, results)
    });
    let cpu = CpuTimes::now().since(&cpu_at_t0);
    let machine = machine_at_t0.end(&cpu);
    fdtable::close_orphans(
        &shared
            .orphans
            .into_inner()
            .unwrap_or_else(|p| p.into_inner()),
    );
    let mut o = merge_ended(results, t0, cpu);
    o.machine = machine;
    o
}

/// What the workers of a threaded run share with the controlling thread.
struct Shared {
    stop: AtomicBool,
    hurry: AtomicBool,
    /// Workers that have returned.
    finished: AtomicUsize,
    /// Each worker's ops done, for the progress line.
    counters: Vec<Padded>,
    /// The workers and the controlling thread, at the start.
    barrier: Barrier,
    /// When the run began (clock ns), set before the barrier opens.
    start: OnceLock<u64>,
    /// The last worker to finish wakes it at once.
    main_thread: std::thread::Thread,
    /// Descriptors the workers closed in their own tables, to close in the
    /// process's (see [`fdtable`]).
    orphans: Mutex<Vec<fdtable::Open>>,
}

/// What a worker hands back: its stats, when its measured phase ended,
/// its error, its extra, its engine's mode and where it was pinned.
type Ended = (
    WorkerStats,
    Option<u64>,
    Option<anyhow::Error>,
    serde_json::Value,
    Option<String>,
    Option<crate::measure::placed::Placed>,
);

/// Worker `i`'s thread: ready before the barrier, run from it on.
fn work<W: Worker>(i: usize, mut w: W, budget: u64, rule: &StopRule, sh: &Shared) -> Ended {
    let n = sh.counters.len();
    let placed = pin_worker(&w.pinning().unwrap_or(rule.pin), i);
    let table = if w.own_fd_table() {
        fdtable::unshare()
    } else {
        None
    };
    let stats = WorkerStats::new(w.kinds());
    let own_pace = w.pace();
    let budget = w.op_budget().unwrap_or(budget);
    let log = w.io_log(i).map(|s| Box::new(iolog::IoLog::new(s, budget)));
    let delay = u64::try_from(w.start_delay().as_nanos()).unwrap_or(u64::MAX);
    sh.barrier.wait();
    let mut began = *sh
        .start
        .get()
        .expect("start is set before the barrier opens");
    // a late start: everything of the worker's counts from it; a run
    // stopped meanwhile never starts the worker
    let mut skip = false;
    if delay > 0 {
        began = began.saturating_add(delay);
        skip = pace::sleep_until(began, &sh.stop).is_err();
    }
    let mut ctx = Ctx::new(
        i,
        stats,
        (&sh.stop, &sh.hurry),
        &sh.counters[i].0,
        began,
        rule.ramp.unwrap_or_default().as_nanos() as u64,
        budget,
        match &own_pace {
            Some(p) => (p, 0, 1),
            None => (&rule.pace, i, n),
        },
        rule.duration,
    );
    ctx.log = log;
    let (r, placed) = match placed {
        Ok(p) if skip => (Ok(()), p),
        Ok(p) => (w.run(&mut ctx), p),
        Err(e) => (Err(e), None),
    };
    let end = now_ns();
    ctx.settle_arrivals();
    if r.is_err() && w.error_stops_run() {
        sh.stop.store(true, Ordering::Relaxed);
    }
    if sh.finished.fetch_add(1, Ordering::Release) + 1 == n {
        sh.main_thread.unpark();
    }
    let measured = if skip { None } else { ctx.measured_end(end) };
    ctx.keep_log(measured);
    let extra = w.finish();
    let mode = w.engine_mode();
    drop(w);
    if let Some(start) = table {
        let closed = fdtable::closed_since(&start);
        let mut o = sh.orphans.lock().unwrap_or_else(|p| p.into_inner());
        o.extend(closed);
    }
    (ctx.stats, measured, r.err(), extra, mode, placed)
}

/// Pin the calling thread as worker `i`, when `pin` pins anything: where
/// it was placed, or why it could not be (the worker then fails without
/// running).
fn pin_worker(pin: &pin::Pinning, i: usize) -> Result<Option<crate::measure::placed::Placed>> {
    if !pin.is_set() {
        return Ok(None);
    }
    Ok(Some(pin.place(i)?))
}

/// The controlling thread from the start until every worker has returned:
/// stop the run at the deadline (`t0`, after the ramp, plus the duration)
/// or on Ctrl-C, hurry it after the grace, show progress. Returns the CPU
/// times and the machine's snapshot at `t0` (`cpu_start`'s when there is
/// no ramp).
fn oversee(
    rule: &StopRule,
    sh: &Shared,
    t0: u64,
    cpu_start: (CpuTimes, Snapshot),
    progress: &dyn Progress,
    watch: &dyn Watch,
) -> (CpuTimes, Snapshot) {
    let n = sh.counters.len();
    let deadline = rule
        .duration
        .map(|d| t0.saturating_add(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)));
    let mut ramp_cpu_taken = rule.ramp.unwrap_or_default().is_zero();
    let mut cpu_at_t0 = cpu_start;
    let mut stopped_at: Option<u64> = None;
    // an MPI stonewall goes through two turns (rank 0's, then the other
    // rank's) before a rank stops: short turns keep it within 100 ms
    let turn: u64 = if watch.polled() {
        5_000_000
    } else {
        20_000_000
    };
    loop {
        // wake at the deadline, not up to a nap after it
        let nap = deadline
            .filter(|_| !sh.stop.load(Ordering::Relaxed))
            .map_or(turn, |d| d.saturating_sub(now_ns()).clamp(100_000, turn));
        std::thread::park_timeout(Duration::from_nanos(nap));
        let now = now_ns();
        if !ramp_cpu_taken && now >= t0 {
            cpu_at_t0 = (CpuTimes::now(), Snapshot::now());
            ramp_cpu_taken = true;
        }
        if sh.finished.load(Ordering::Acquire) == n {
            return cpu_at_t0;
        }
        let done = total(sh.counters.iter().map(|c| &c.0));
        if signals::interrupted() || deadline.is_some_and(|d| now >= d) || watch.poll_done(done) {
            sh.stop.store(true, Ordering::Relaxed);
        }
        if sh.stop.load(Ordering::Relaxed) {
            let at = *stopped_at.get_or_insert(now);
            let late = now.saturating_sub(at) >= rule.grace().as_nanos() as u64;
            if (signals::interrupted() || late) && !sh.hurry.swap(true, Ordering::Relaxed) {
                watch.hurry();
            }
        }
        progress.tick(done.ops, Duration::from_nanos(now.saturating_sub(t0)));
    }
}

/// The outcome from what the workers handed back, timed from `t0`.
fn merge_ended(mut results: Vec<Ended>, t0: u64, cpu: CpuTimes) -> Outcome {
    let n = results.len();
    let end = results.iter().filter_map(|r| r.1).max().unwrap_or(t0);
    let elapsed = Duration::from_nanos(end.saturating_sub(t0));
    histlog::collect(results.iter_mut().map(|r| &mut r.0), t0, elapsed);
    let mut stats = WorkerStats::default();
    let mut per_worker = Vec::with_capacity(n);
    let mut error = None;
    let mut extras = Vec::with_capacity(n);
    let mut failures = Vec::with_capacity(n);
    let mut modes = Vec::with_capacity(n);
    let mut pinned = Vec::new();
    for (s, _, e, x, m, p) in results {
        pinned.extend(p);
        if n == 1 {
            // one worker: its stats are the whole (no copy of its histograms)
            stats = s;
        } else {
            stats.merge(&s);
            per_worker.push(s);
        }
        failures.push(e.as_ref().map(crate::error::cause));
        extras.push(x);
        modes.push(m);
        if error.is_none() {
            error = e;
        }
    }
    let mut o = outcome(stats, per_worker, n, elapsed, cpu, error, extras, failures);
    o.engine_modes = modes;
    o.pinned = pinned;
    o
}

/// The outcome of a run of `workers` that reached them: complete unless a
/// signal or an error cut it short.
#[allow(clippy::too_many_arguments)]
fn outcome(
    stats: WorkerStats,
    per_worker: Vec<WorkerStats>,
    workers: usize,
    elapsed: Duration,
    cpu: CpuTimes,
    error: Option<anyhow::Error>,
    extras: Vec<serde_json::Value>,
    failures: Vec<Option<String>>,
) -> Outcome {
    let interrupted = signals::interrupted();
    Outcome {
        stats,
        per_worker,
        workers,
        worker_ns: 0,
        elapsed,
        cpu,
        complete: !interrupted && error.is_none(),
        interrupted,
        error,
        extras,
        failures,
        engine_modes: Vec::new(),
        pinned: Vec::new(),
        machine: MachineLoad::default(),
    }
}

pub(crate) fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a worker panicked".into())
}

/// One worker on the calling thread; Ctrl-C reaches it through the signal
/// flag, which it polls as its stop flag.
fn run_here<W: Worker>(ops: Option<u64>, mut w: W) -> Outcome {
    let local = AtomicBool::new(false);
    let stop = signals::flag().unwrap_or(&local);
    // Ctrl-C is the only stop here, and it means at once
    let counter = Published::default();
    let stats = WorkerStats::new(w.kinds());
    let budget = w.op_budget().or(ops).unwrap_or(u64::MAX);
    let log = w.io_log(0).map(|s| Box::new(iolog::IoLog::new(s, budget)));
    let cpu_start = CpuTimes::now();
    let machine_start = Snapshot::now();
    let t0 = now_ns();
    set_last_t0(t0);
    let mut ctx = Ctx::new(
        0,
        stats,
        (stop, stop),
        &counter,
        t0,
        0,
        budget,
        (&Pace::default(), 0, 1),
        None,
    );
    ctx.log = log;
    // a panic is an error of this run, as a worker thread's would be
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.run(&mut ctx)))
        .unwrap_or_else(|p| Err(anyhow::anyhow!("internal error: {}", panic_text(&*p))));
    let end = now_ns();
    let cpu = CpuTimes::now().since(&cpu_start);
    let machine = machine_start.end(&cpu);
    let measured = ctx.measured_end(end);
    ctx.keep_log(measured);
    let interrupted = signals::interrupted();
    let error = r.err();
    let extra = w.finish();
    let mode = w.engine_mode();
    let elapsed = Duration::from_nanos(end.saturating_sub(t0));
    histlog::collect([&mut ctx.stats], t0, elapsed);
    Outcome {
        stats: ctx.stats,
        per_worker: Vec::new(),
        workers: 1,
        worker_ns: 0,
        elapsed,
        cpu,
        complete: !interrupted && error.is_none(),
        interrupted,
        failures: vec![error.as_ref().map(crate::error::cause)],
        error,
        extras: vec![extra],
        engine_modes: vec![mode],
        pinned: Vec::new(),
        machine,
    }
}

/// A counter on its own cache line, so workers never share one.
#[derive(Default)]
#[repr(align(128))]
struct Padded(Published);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{self, FileId, Req};

    /// Issues one read per request, asking for its turn when `paced` (else
    /// only whether to go on).
    struct Reader {
        io: Io,
        paced: bool,
    }
    impl Worker for Reader {
        fn kinds(&self) -> &[OpKind] {
            &[OpKind::Read]
        }
        fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
            while if self.paced {
                ctx.next_request()
            } else {
                ctx.keep_going()
            } {
                let c = self.io.exec(Req::read(FileId(0), 0, 512))?;
                ctx.record(&c);
            }
            Ok(())
        }
    }

    fn null_workers(n: usize) -> Vec<Reader> {
        (0..n)
            .map(|_| Reader {
                io: Io::test(engine::Choice::NULL, 4096),
                paced: false,
            })
            .collect()
    }

    #[test]
    fn op_budget_is_split_exactly() {
        let rule = StopRule {
            ops: Some(10_001),
            ..Default::default()
        };
        let o = run(rule, null_workers(3), &NoProgress);
        assert!(o.complete);
        assert_eq!(o.stats.total_ops(), 10_001);
        let each: Vec<u64> = o.per_worker.iter().map(|s| s.total_ops()).collect();
        assert_eq!(each, [3334, 3334, 3333]);
    }

    struct Panics;
    impl Worker for Panics {
        fn kinds(&self) -> &[OpKind] {
            &[]
        }
        fn run(&mut self, _ctx: &mut Ctx) -> Result<()> {
            panic!("worker bug")
        }
    }

    /// Tells which thread it ran on.
    struct Tell(std::sync::mpsc::Sender<std::thread::ThreadId>);
    impl Worker for Tell {
        fn kinds(&self) -> &[OpKind] {
            &[]
        }
        fn run(&mut self, _ctx: &mut Ctx) -> Result<()> {
            self.0.send(std::thread::current().id()).unwrap();
            Ok(())
        }
    }

    struct Shown;
    impl Progress for Shown {}

    /// Pinned to a CPU of its own when it says one.
    struct OwnPin(Option<usize>);
    impl Worker for OwnPin {
        fn kinds(&self) -> &[OpKind] {
            &[]
        }
        fn run(&mut self, _ctx: &mut Ctx) -> Result<()> {
            Ok(())
        }
        fn pinning(&self) -> Option<pin::Pinning> {
            self.0.map(|c| pin::Pinning {
                cpus: Some(crate::measure::placed::IdSet::only(c)),
                ..Default::default()
            })
        }
    }

    #[test]
    fn a_worker_placed_on_its_own_is_pinned_there_and_the_caller_never() {
        let before = pin::affinity().unwrap();
        let cpu = before.nth(0).unwrap();
        let o = run(
            StopRule::default(),
            vec![OwnPin(None), OwnPin(Some(cpu))],
            &NoProgress,
        );
        assert!(o.complete);
        assert_eq!(o.pinned.len(), 1, "{:?}", o.pinned);
        assert_eq!(o.pinned[0].worker, 1);
        assert_eq!(o.pinned[0].cpus.to_string(), cpu.to_string());
        // alone, it gets a thread of its own: the calling thread stays as it was
        let o = run(StopRule::default(), vec![OwnPin(Some(cpu))], &NoProgress);
        assert_eq!(o.pinned.len(), 1);
        assert_eq!(pin::affinity().unwrap(), before);
    }

    #[test]
    fn one_worker_runs_on_the_calling_thread_unless_the_main_thread_has_work() {
        let here = std::thread::current().id();
        let ran_on = |rule: StopRule, progress: &dyn Progress| {
            let (tx, rx) = std::sync::mpsc::channel();
            let o = run(rule, vec![Tell(tx)], progress);
            assert!(o.complete);
            rx.recv().unwrap()
        };
        assert_eq!(ran_on(StopRule::default(), &NoProgress), here);
        let timed = StopRule {
            duration: Some(Duration::from_millis(1)),
            ..Default::default()
        };
        assert_ne!(ran_on(timed, &NoProgress), here);
        assert_ne!(ran_on(StopRule::default(), &Shown), here);
    }

    #[test]
    fn a_panic_in_a_worker_on_the_calling_thread_is_an_error() {
        let o = run(StopRule::default(), vec![Panics], &NoProgress);
        assert!(!o.complete);
        let e = o.error.expect("an error").to_string();
        assert!(e.contains("worker bug"), "{e}");
    }

    #[test]
    fn duration_stops_the_run_and_ramp_is_not_counted() {
        let rule = StopRule {
            duration: Some(Duration::from_millis(200)),
            ramp: Some(Duration::from_millis(100)),
            ..Default::default()
        };
        let t = std::time::Instant::now();
        let o = run(rule, null_workers(2), &NoProgress);
        let wall = t.elapsed();
        assert!(o.complete);
        assert!(
            wall >= Duration::from_millis(300) && wall < Duration::from_secs(2),
            "{wall:?}"
        );
        assert!(
            o.elapsed >= Duration::from_millis(190) && o.elapsed < Duration::from_millis(400),
            "{:?}",
            o.elapsed
        );
        // every counted op finished inside the measured window
        assert!(o.stats.series.ops().len() <= 1);
        assert!(o.stats.total_ops() > 0);
    }

    struct Failing;
    impl Worker for Failing {
        fn kinds(&self) -> &[OpKind] {
            &[]
        }
        fn run(&mut self, _ctx: &mut Ctx) -> Result<()> {
            anyhow::bail!("disk on fire")
        }
    }

    #[test]
    fn a_worker_error_stops_the_run() {
        let rule = StopRule {
            duration: Some(Duration::from_secs(30)),
            ..Default::default()
        };
        let t = std::time::Instant::now();
        let o = run(rule, vec![Failing], &NoProgress);
        assert!(t.elapsed() < Duration::from_secs(2));
        assert!(!o.complete);
        assert!(o.error.unwrap().to_string().contains("fire"));
    }

    /// A test engine: the null engine, except that its `stall_at`th call
    /// takes `stall` (a device that hangs once).
    struct Stalls {
        calls: u64,
        stall_at: u64,
        stall: Duration,
        path: std::path::PathBuf,
        buf: Vec<u8>,
    }

    impl engine::Engine for Stalls {
        fn info(&self) -> &'static engine::EngineInfo {
            engine::Choice::NULL.info()
        }
        fn open(&mut self, _p: &std::path::Path, _h: engine::OpenHow) -> std::io::Result<FileId> {
            Ok(FileId(0))
        }
        fn close(&mut self, _f: FileId) -> std::io::Result<()> {
            Ok(())
        }
        fn queue(&mut self, req: Req) -> std::io::Result<engine::Queued> {
            self.calls += 1;
            let stall = (self.calls == self.stall_at).then_some(self.stall);
            engine::timed(req, || {
                if let Some(d) = stall {
                    std::thread::sleep(d);
                }
                Ok(req.len as usize)
            })
            .map(engine::Queued::Done)
        }
        fn buf_mut(&mut self, _slot: u16) -> &mut [u8] {
            &mut self.buf
        }
        fn path(&self, _f: FileId) -> &std::path::Path {
            &self.path
        }
    }

    fn stalling(stall_at: u64) -> Reader {
        let stalls = Stalls {
            calls: 0,
            stall_at,
            stall: Duration::from_secs(1),
            path: "stalls".into(),
            buf: vec![0; 512],
        };
        Reader {
            io: Io::with_engine(Box::new(stalls), 1),
            paced: true,
        }
    }

    fn open_loop(rate: f64, arrivals: Arrivals) -> Pace {
        Pace {
            rate: Some(rate),
            arrivals,
            seed: 1,
            ..Default::default()
        }
    }

    #[test]
    fn an_open_loop_charges_the_stall_to_every_request_scheduled_during_it() {
        // 1000 requests/s; the 300th call hangs for 1 s
        let rule = StopRule {
            duration: Some(Duration::from_millis(2500)),
            pace: open_loop(1000.0, Arrivals::Uniform),
            ..Default::default()
        };
        let o = run(rule, vec![stalling(300)], &NoProgress);
        assert!(o.complete);
        let service = o.stats.kind(OpKind::Read).unwrap();
        let resp = o.stats.response(OpKind::Read).expect("response times");
        assert_eq!(service.count, resp.count);
        // the service times hold one stall; the response times hold the
        // stall for the ~1000 requests scheduled while it lasted, each
        // waiting from its intended start: 1 s, 999 ms, ... down to ~0
        let n = resp.count as f64;
        let slow = |k: &crate::measure::KindStats, over_ns: u64| {
            let below = k.hist.count_between(0, over_ns);
            k.count - below
        };
        assert_eq!(slow(service, 100_000_000), 1, "one stalled call");
        // (a loaded machine may add a few more: a late wake-up also waits)
        let queued = slow(resp, 1_000_000);
        assert!(
            (900..=1300).contains(&queued),
            "{queued} requests waited over 1 ms, of {n}"
        );
        // the p99 includes the stall (over 40 % of requests were behind it)
        assert!(
            resp.percentile_ns(99.0) > 900_000_000,
            "{}",
            resp.percentile_ns(99.0)
        );
        // waits spread evenly from 1 s down to 0 over the top 40 %
        let p80 = resp.percentile_ns(80.0);
        assert!((350_000_000..650_000_000).contains(&p80), "{p80}");
        // the whole schedule is accounted for, and was caught up: what a
        // starved machine leaves unissued at the very end is counted missed
        let a = &o.stats.arrivals;
        assert!((2490..=2515).contains(&(a.issued + a.missed)), "{a:?}");
        assert!(a.missed <= 25, "{a:?}");
    }

    #[test]
    fn a_closed_loop_sees_the_stall_once() {
        let rule = StopRule {
            duration: Some(Duration::from_millis(1500)),
            ..Default::default()
        };
        let o = run(rule, vec![stalling(300)], &NoProgress);
        let service = o.stats.kind(OpKind::Read).unwrap();
        assert!(o.stats.response(OpKind::Read).is_none());
        assert_eq!(
            service.max_ns / 100_000_000,
            10,
            "the stall is there: {}",
            service.max_ns
        );
        // ... as one op among hundreds of thousands: the p99 never sees it
        assert!(service.count > 10_000, "{}", service.count);
        assert!(
            service.percentile_ns(99.0) < 1_000_000,
            "{}",
            service.percentile_ns(99.0)
        );
    }

    #[test]
    fn the_rate_is_held_when_the_storage_keeps_up() {
        for arrivals in [Arrivals::Uniform, Arrivals::Poisson] {
            let rule = StopRule {
                duration: Some(Duration::from_secs(2)),
                pace: open_loop(4000.0, arrivals),
                ..Default::default()
            };
            let o = run(rule, null_workers_paced(2), &NoProgress);
            assert!(o.complete);
            let a = o.stats.arrivals;
            assert_eq!(a.rate, 4000.0);
            // none behind but for the few a descheduled worker can find
            // due at the stop on a loaded machine (3 of 7962 seen at a
            // load of 12 on 2 cores)
            assert!(a.missed <= a.issued / 1000, "{arrivals:?}: {a:?}");
            let issued = a.issued as f64 / o.elapsed.as_secs_f64();
            // uniform: exact to the request; Poisson: the count of a
            // Poisson process of mean 8000 (sd 0.0112), within 4 sd
            let tol = if arrivals == Arrivals::Uniform {
                0.01
            } else {
                0.045
            };
            assert!(
                (issued / 4000.0 - 1.0).abs() < tol,
                "{arrivals:?}: {issued} requests/s issued"
            );
            // and the ops done are the requests issued
            assert_eq!(o.stats.total_ops(), a.issued);
        }
    }

    #[test]
    fn poisson_gaps_are_exponential() {
        // mean and coefficient of variation of a worker's gaps: 1 for
        // exponential gaps, 0 for uniform ones
        for (arrivals, cv) in [(Arrivals::Poisson, 1.0), (Arrivals::Uniform, 0.0)] {
            let mut p = open_loop(1000.0, arrivals).pacer(0, 1, 0).unwrap();
            let stop = AtomicBool::new(false);
            // far in the past: no waiting, only drawing
            let mut prev = p.advance_for_test(&stop);
            let (mut n, mut sum, mut sumsq) = (0f64, 0f64, 0f64);
            for _ in 0..100_000 {
                let at = p.advance_for_test(&stop);
                let g = (at - prev) as f64;
                prev = at;
                n += 1.0;
                sum += g;
                sumsq += g * g;
            }
            let mean = sum / n;
            let sd = (sumsq / n - mean * mean).max(0.0).sqrt();
            assert!(
                (mean / 1e6 - 1.0).abs() < 0.01,
                "{arrivals:?}: mean gap {mean}"
            );
            assert!(
                (sd / mean - cv).abs() < 0.02,
                "{arrivals:?}: cv {}",
                sd / mean
            );
        }
    }

    fn null_workers_paced(n: usize) -> Vec<Reader> {
        (0..n).map(|_| stalling(u64::MAX)).collect()
    }
}
