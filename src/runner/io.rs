//! The one issue loop. A worker's engine lives in an [`Io`], made by the
//! runner from the benchmark's [`EngineSpec`]; every request of every
//! benchmark goes through it.
//!
//! Two ways in:
//! - [`Io::drive`] keeps up to the spec's depth requests in flight: it asks
//!   a [`Source`] for the next request, queues it, commits, reaps, records
//!   each completion and tells the source. `iogauge run` and the
//!   scientific workloads issue this way.
//! - [`Io::exec`] issues one request and waits for it: for benchmarks whose
//!   semantics are one request at a time (a per-character test, PostMark's
//!   ordered stream, a transaction that reads then writes). Each such
//!   caller says why where it makes its `Io`.
//!
//! A request is timed from its issue to its completion by the engine, and
//! in an open loop also from its intended start ([`Ctx::next_request`]):
//! the driver remembers each in-flight request's intended start by its
//! buffer slot.

use super::{Ctx, Turn};
use crate::engine::{Completion, Engine, EngineInfo, EngineSpec, FileId, OpenHow, Queued, Req};
use crate::error::UsageError;
use crate::measure::OpKind;
use crate::measure::clock::now_ns;
use std::io;
use std::path::Path;

/// How long one wait for stragglers lasts before the driver looks at the
/// run's flags again.
const SETTLE_WAIT_NS: u64 = 50_000_000;

/// How long cancelled requests may take to come back.
const CANCEL_GIVE_UP_NS: u64 = 5_000_000_000;

/// Where a driven worker's requests come from.
pub trait Source {
    /// Whether the source fills write buffers itself ([`Source::fill`]);
    /// the buffers otherwise hold the incompressible bytes the engine was
    /// made with.
    const FILLS: bool = false;

    /// The next request, or `None` when the work is done. The driver sets
    /// the request's buffer slot.
    fn next(&mut self) -> Option<Req>;

    /// Fill the buffer of `req` before it is issued (when
    /// [`Source::FILLS`] and [`Source::fills`]): a source that writes
    /// patterns.
    fn fill(&mut self, _req: &Req, _buf: &mut [u8]) {}

    /// Whether this source fills anything in this run (checked before the
    /// buffer is looked up, so a source that could fill but does not
    /// costs nothing per request).
    fn fills(&self) -> bool {
        Self::FILLS
    }

    /// A request owed to the one before it (a sync after every Nth write):
    /// issued before the next [`Source::next`], without a turn of its own
    /// and whatever the op budget says.
    fn owed(&mut self) -> Option<Req> {
        None
    }

    /// A request completed (after the driver recorded it): a source that
    /// counts looks here.
    fn done(&mut self, _c: &Completion) -> anyhow::Result<()> {
        Ok(())
    }

    /// Whether the source checks what its reads bring back
    /// ([`Source::check`]); a source that does not pays nothing for it.
    const CHECKS: bool = false;

    /// A read completed: `buf` is its whole buffer slot (the first
    /// `c.bytes` bytes were read), handed over before the slot is reused
    /// and before [`Source::done`] (when [`Source::CHECKS`]).
    fn check(&mut self, _c: &Completion, _buf: &[u8]) -> anyhow::Result<()> {
        Ok(())
    }
}

/// A worker's engine and the requests it has in flight.
pub struct Io {
    engine: Box<dyn Engine>,
    depth: usize,
    /// Buffer slots not in flight (driven mode only).
    free: Vec<u16>,
    /// The intended start (open loop) of the request in each slot; 0 when
    /// none.
    arrival: Vec<u64>,
    /// Data requests (not syncs) in flight: they count against the budget.
    data_in_flight: u64,
    /// Submit once this many are queued (0: once every free slot is
    /// filled).
    batch: usize,
    /// Reap at least this many per wait.
    batch_complete: usize,
    /// Take at most this many per wait (0: all there are); the others are
    /// held, and handed out first by the next waits.
    batch_complete_max: usize,
    held: std::collections::VecDeque<Completion>,
    /// Once the queue is full, reap until no more than this many are in
    /// flight before queueing again (fio's `iodepth_low`); the depth: no
    /// drain.
    low: usize,
    /// Requests queued since the last submit.
    uncommitted: usize,
    /// EAGAIN completions are requests refused under `--nowait`.
    nowait: bool,
    /// Until when (clock ns) the completions recorded so far kept the
    /// worker in I/O: time in I/O is the union of the requests' spans, not
    /// the sum of their latencies.
    covered_until: u64,
    done: Vec<Completion>,
}

impl Io {
    /// The engine of `spec`, with `slots` buffers (at least the depth) of
    /// `max_len` bytes filled from `seed`.
    pub fn new(spec: &EngineSpec, slots: u16, max_len: usize, seed: u64) -> Result<Io, UsageError> {
        let engine = spec.make(slots, max_len, seed).map_err(UsageError)?;
        let mut io = Io::with_engine(engine, usize::from(spec.depth));
        io.batch = spec.queue.submit_batch(spec.direct);
        io.batch_complete = usize::from(spec.queue.batch_complete);
        io.batch_complete_max = usize::from(spec.queue.batch_complete_max);
        io.nowait = spec.queue.nowait;
        Ok(io)
    }

    /// An `Io` around an engine made elsewhere (tests that intercept one).
    pub(crate) fn with_engine(engine: Box<dyn Engine>, depth: usize) -> Io {
        let depth = depth.max(1);
        Io {
            engine,
            depth,
            free: (0..depth as u16).rev().collect(),
            arrival: vec![0; depth],
            data_in_flight: 0,
            batch: 0,
            batch_complete: 0,
            batch_complete_max: 0,
            held: std::collections::VecDeque::new(),
            low: depth,
            uncommitted: 0,
            nowait: false,
            covered_until: 0,
            done: Vec::with_capacity(depth),
        }
    }

    /// Once the queue fills, let it drain to `low` requests in flight
    /// before queueing again (fio's `iodepth_low`; at least 0, at most the
    /// depth, which is the default: refill as each completes).
    pub fn drain_to(&mut self, low: usize) {
        self.low = low.min(self.depth);
    }

    pub fn info(&self) -> &'static EngineInfo {
        self.engine.info()
    }

    /// How the engine was set up ([`Engine::mode`]).
    pub fn mode(&self) -> Option<String> {
        self.engine.mode()
    }

    pub fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        self.engine.open(path, how)
    }

    pub fn close(&mut self, file: FileId) -> io::Result<()> {
        self.engine.close(file)
    }

    pub fn buf_mut(&mut self, slot: u16) -> &mut [u8] {
        self.engine.buf_mut(slot)
    }

    pub fn unlink(&mut self, path: &Path) -> io::Result<()> {
        self.engine.unlink(path)
    }

    pub fn path(&self, file: FileId) -> &Path {
        self.engine.path(file)
    }

    /// Issue one request and wait for it, with nothing else in flight.
    #[inline]
    pub fn exec(&mut self, req: Req) -> io::Result<Completion> {
        self.engine.exec(req)
    }

    /// [`Io::exec`], with an error that names the request and its file.
    #[inline]
    pub fn exec_named(&mut self, req: Req) -> anyhow::Result<Completion> {
        match self.engine.exec(req) {
            Ok(c) => Ok(c),
            Err(e) => Err(self.failed(req, e)),
        }
    }

    /// Finish a write the system took only `done` bytes of (see
    /// [`crate::engine::finish_write`]); nothing else may be in flight.
    #[cold]
    pub fn finish_write(&mut self, req: Req, done: u64) -> io::Result<()> {
        crate::engine::finish_write(self.engine.as_mut(), req, done)
    }

    /// Run `src` to its end or the run's stop, keeping up to the depth in
    /// flight, and record every completion in `ctx`. Returns with nothing in
    /// flight. A sync waits for every request before it to complete (as
    /// fio's fsync does), so it covers them. In an open loop, requests go
    /// out at their intended starts while slots are free, and the driver
    /// reaps while it waits for the next one.
    pub fn drive<S: Source>(&mut self, ctx: &mut Ctx, src: &mut S) -> anyhow::Result<()> {
        if self.depth == 1 {
            return self.drive_one(ctx, src);
        }
        let r = if ctx.is_open() {
            self.drive_open(ctx, src)
        } else {
            self.drive_closed(ctx, src)
        };
        // an error leaves requests in flight: cancel and collect them
        // (their buffers must not be freed under the kernel), unrecorded
        if self.in_flight() > 0 {
            let _ = self.settle(ctx, src, false);
        }
        r
    }

    /// Depth 1: each request completes before the next is drawn, so no
    /// slot, arrival or span needs keeping (and no depth is counted: it is
    /// 1 by construction). The hot loop of every synchronous engine.
    #[inline(always)]
    fn drive_one<S: Source>(&mut self, ctx: &mut Ctx, src: &mut S) -> anyhow::Result<()> {
        loop {
            let req = match src.owed() {
                Some(r) => r,
                None if !ctx.may_issue(0) => return Ok(()),
                None => match src.next() {
                    Some(r) => r,
                    None => return Ok(()),
                },
            };
            if ctx.is_capped() && !ctx.cap_wait(req.kind, u64::from(req.len)) {
                return Ok(());
            }
            if S::FILLS && src.fills() {
                src.fill(&req, self.engine.buf_mut(0));
            }
            let mut c = match self.engine.exec(req) {
                Ok(c) => c,
                Err(e) => return Err(self.failed(req, e)),
            };
            if c.req.kind == OpKind::Write && c.bytes < u64::from(c.req.len) {
                c = self.finish_one(c)?;
            }
            ctx.record(&c);
            if S::CHECKS && c.req.kind == OpKind::Read {
                src.check(&c, self.engine.buf_mut(c.req.slot))?;
            }
            src.done(&c)?;
        }
    }

    /// A write the system took in part, finished (nothing else in flight):
    /// its completion as a whole write.
    #[cold]
    fn finish_one(&mut self, c: Completion) -> anyhow::Result<Completion> {
        self.finish_write(c.req, c.bytes)
            .map_err(|e| self.failed(c.req, e))?;
        Ok(Completion {
            bytes: u64::from(c.req.len),
            ..c
        })
    }

    /// Closed loop at depth: fill every free slot, submit, reap, again.
    fn drive_closed<S: Source>(&mut self, ctx: &mut Ctx, src: &mut S) -> anyhow::Result<()> {
        loop {
            let mut exhausted = false;
            while let Some(&slot) = self.free.last() {
                // a think time must not hold queued requests back
                if self.uncommitted > 0 && ctx.is_paced() {
                    self.commit(ctx)?;
                }
                let req = match src.owed() {
                    Some(r) => r,
                    None if !ctx.may_issue(self.data_in_flight) => {
                        exhausted = true;
                        break;
                    }
                    None => match src.next() {
                        Some(r) => r,
                        None => {
                            exhausted = true;
                            break;
                        }
                    },
                };
                self.put(ctx, src, req, slot)?;
            }
            if exhausted || self.in_flight() == 0 || ctx.stopped() {
                return self.settle(ctx, src, true);
            }
            self.commit(ctx)?;
            let full = self.free.is_empty();
            let want = self.batch_complete.clamp(1, self.in_flight());
            self.reap(ctx, src, want)?;
            if full && self.low < self.depth {
                self.drain(ctx, src)?;
            }
        }
    }

    /// A full queue drains to [`Io::drain_to`]'s depth before it is
    /// filled again, as fio's `wait_for_completions` reaps while more
    /// than `iodepth_low` are in flight.
    #[cold]
    fn drain<S: Source>(&mut self, ctx: &mut Ctx, src: &mut S) -> anyhow::Result<()> {
        while self.in_flight() > self.low && !ctx.stopped() {
            let want = self.batch_complete.clamp(1, self.in_flight());
            self.reap(ctx, src, want)?;
        }
        Ok(())
    }

    /// Open loop at depth: a request goes out at its intended start when a
    /// slot is free, and later (its response time still running from the
    /// intended start) when none is; between arrivals the driver reaps,
    /// so completions are stamped when they come, not after a sleep.
    fn drive_open<S: Source>(&mut self, ctx: &mut Ctx, src: &mut S) -> anyhow::Result<()> {
        let mut woke = 0;
        loop {
            if ctx.stopped() {
                return self.settle(ctx, src, true);
            }
            let mut next_at = None;
            while let Some(&slot) = self.free.last() {
                let req = match src.owed() {
                    Some(r) => r,
                    None => match ctx.open_turn(self.data_in_flight, &mut woke) {
                        Turn::Due => match src.next() {
                            Some(r) => r,
                            None => return self.settle(ctx, src, true),
                        },
                        Turn::Later(at) => {
                            next_at = Some(at);
                            break;
                        }
                        Turn::Over => return self.settle(ctx, src, true),
                    },
                };
                self.put(ctx, src, req, slot)?;
            }
            self.commit(ctx)?;
            match next_at {
                // every slot taken: the next arrival waits for one
                None => self.reap(ctx, src, 1)?,
                Some(at) => {
                    if self.in_flight() == 0 {
                        ctx.sleep_until(at);
                    } else {
                        self.reap_until(ctx, src, at)?;
                    }
                    // back from waiting: if the arrival is due now, it was
                    // waited for
                    let now = now_ns();
                    woke = if now >= at { now } else { 0 };
                }
            }
        }
    }

    /// Put `req` in `slot` and issue it; submit when a batch is full.
    #[inline]
    fn put<S: Source>(
        &mut self,
        ctx: &mut Ctx,
        src: &mut S,
        mut req: Req,
        slot: u16,
    ) -> anyhow::Result<()> {
        req.slot = slot;
        if ctx.is_capped() {
            self.wait_cap(ctx, src, &req)?;
        }
        if S::FILLS && src.fills() {
            src.fill(&req, self.engine.buf_mut(slot));
        }
        if req.kind == OpKind::Fsync && self.in_flight() > 0 {
            self.settle(ctx, src, true)?;
        }
        self.issue(ctx, src, req)?;
        if self.batch > 0 && self.uncommitted >= self.batch {
            self.commit(ctx)?;
        }
        Ok(())
    }

    /// Hold `req` back until its bandwidth cap lets it go, reaping what
    /// completes meanwhile (so that completions are stamped when they
    /// come), then take its turn. A stop ends the wait: the request still
    /// goes, and the driver then sees the stop.
    #[cold]
    fn wait_cap<S: Source>(&mut self, ctx: &mut Ctx, src: &mut S, req: &Req) -> anyhow::Result<()> {
        loop {
            let at = ctx.cap_due(req.kind);
            if now_ns() >= at || ctx.stopped() {
                break;
            }
            if self.in_flight() == 0 {
                ctx.sleep_until(at);
            } else {
                self.commit(ctx)?;
                self.reap_until(ctx, src, at)?;
            }
        }
        ctx.cap_take(req.kind, u64::from(req.len));
        Ok(())
    }

    #[inline]
    fn in_flight(&self) -> usize {
        self.depth - self.free.len()
    }

    /// Submit what is queued, counting the batch (fio's `submit` line).
    #[inline]
    fn commit(&mut self, ctx: &mut Ctx) -> io::Result<()> {
        // always asked: an engine the kernel pushed back keeps requests
        // from an earlier commit
        if self.uncommitted > 0 {
            ctx.stats.depths.record_submit(self.uncommitted);
        }
        self.uncommitted = 0;
        self.engine.commit()
    }

    /// Queue `req`; a full engine gives back a completion first.
    #[inline]
    fn issue<S: Source>(&mut self, ctx: &mut Ctx, src: &mut S, req: Req) -> anyhow::Result<()> {
        let slot = usize::from(req.slot);
        self.arrival[slot] = ctx.response_start_ns().unwrap_or(0);
        loop {
            let in_flight = self.in_flight() as u32 + 1;
            match self.engine.queue(req).map_err(|e| self.failed(req, e))? {
                Queued::Done(c) => {
                    // submitted and completed in one call
                    ctx.stats.depths.record(in_flight);
                    ctx.stats.depths.record_submit(1);
                    ctx.stats.depths.record_complete(1);
                    let mut out = std::mem::take(&mut self.done);
                    out.push(c);
                    // as if it had flown: finish_all frees its slot again
                    self.take_slot(&req);
                    let r = self.finish_all(ctx, &mut out, src);
                    self.done = out;
                    return r;
                }
                Queued::InFlight => {
                    ctx.stats.depths.record(in_flight);
                    self.take_slot(&req);
                    self.uncommitted += 1;
                    return Ok(());
                }
                Queued::Busy => {
                    if self.in_flight() == 0 {
                        anyhow::bail!(
                            "engine '{}' refused a request with none in flight",
                            self.engine.info().name
                        );
                    }
                    self.commit(ctx)?;
                    self.reap(ctx, src, 1)?;
                }
            }
        }
    }

    /// `req` took its slot.
    #[inline]
    fn take_slot(&mut self, req: &Req) {
        // the last free slot, unless completions reaped while the engine
        // was busy freed others after it
        if let Some(i) = self.free.iter().rposition(|&s| s == req.slot) {
            self.free.swap_remove(i);
        }
        if req.kind != OpKind::Fsync {
            self.data_in_flight += 1;
        }
    }

    /// Reap at least `min` completions and record them, or fewer if they
    /// take long: the caller looks at the run's flags again (requests that
    /// never complete must not keep a stopped run waiting).
    fn reap<S: Source>(&mut self, ctx: &mut Ctx, src: &mut S, min: usize) -> anyhow::Result<()> {
        let mut out = std::mem::take(&mut self.done);
        // held ones first; the kernel's only for what they leave short
        let n = self.take_held(&mut out);
        let r = if n >= min {
            Ok(n)
        } else {
            self.engine
                .reap_until(min - n, now_ns() + SETTLE_WAIT_NS, &mut out)
                .map(|k| k + n)
        };
        let r = self.hold_over(r, &mut out);
        self.finish_reaped(ctx, src, out, r, true)
    }

    /// Reap what completes until clock `deadline_ns` (at least one, unless
    /// the deadline comes first) and record it.
    fn reap_until<S: Source>(
        &mut self,
        ctx: &mut Ctx,
        src: &mut S,
        deadline_ns: u64,
    ) -> anyhow::Result<()> {
        let mut out = std::mem::take(&mut self.done);
        let r = match self.take_held(&mut out) {
            0 => self.engine.reap_until(1, deadline_ns, &mut out),
            n => Ok(n),
        };
        let r = self.hold_over(r, &mut out);
        self.finish_reaped(ctx, src, out, r, true)
    }

    /// Completions held from an earlier wait, up to the most one wait
    /// takes, into `out`: reaped now, so their latency runs to now (as
    /// when they wait in the kernel's queue). Returns how many.
    #[inline]
    fn take_held(&mut self, out: &mut Vec<Completion>) -> usize {
        if self.held.is_empty() {
            return 0;
        }
        self.take_held_cold(out)
    }

    #[cold]
    fn take_held_cold(&mut self, out: &mut Vec<Completion>) -> usize {
        let n = self
            .held
            .len()
            .min(self.batch_complete_max.max(self.batch_complete).max(1));
        let now = now_ns();
        for mut c in self.held.drain(..n) {
            c.lat_ns += now.saturating_sub(c.done_ns);
            c.done_ns = c.done_ns.max(now);
            out.push(c);
        }
        n
    }

    /// A wait that brought more than the most one takes: the rest held.
    #[inline]
    fn hold_over(&mut self, r: io::Result<usize>, out: &mut Vec<Completion>) -> io::Result<usize> {
        let max = self.batch_complete_max.max(self.batch_complete);
        match r {
            Ok(n) if self.batch_complete_max > 0 && out.len() > max => {
                self.held.extend(out.drain(max..));
                Ok(n.min(max))
            }
            r => r,
        }
    }

    /// What a reap brought back: recorded when `record`, else only freed.
    /// A failed wait frees what came back before it, unrecorded.
    fn finish_reaped<S: Source>(
        &mut self,
        ctx: &mut Ctx,
        src: &mut S,
        mut out: Vec<Completion>,
        reaped: io::Result<usize>,
        record: bool,
    ) -> anyhow::Result<()> {
        let r = match reaped {
            Ok(n) if record => {
                ctx.stats.depths.record_complete(n);
                self.finish_all(ctx, &mut out, src)
            }
            Ok(_) => {
                for c in out.drain(..) {
                    self.release(&c);
                    self.count_refused(ctx, &c);
                }
                Ok(())
            }
            Err(e) => {
                for c in out.drain(..) {
                    self.release(&c);
                }
                Err(e.into())
            }
        };
        self.done = out;
        r
    }

    /// Wait for everything in flight; record it when `record`. When the run
    /// must end at once (Ctrl-C), or when what comes back is not wanted
    /// (after an error), the engine is asked to cancel what is left; every
    /// request still comes back once, and the wait gives up 5 s after that.
    fn settle<S: Source>(
        &mut self,
        ctx: &mut Ctx,
        src: &mut S,
        record: bool,
    ) -> anyhow::Result<()> {
        self.commit(ctx)?;
        if !self.held.is_empty() {
            let mut out = std::mem::take(&mut self.done);
            let mut n = 0;
            while !self.held.is_empty() {
                n += self.take_held(&mut out);
            }
            self.finish_reaped(ctx, src, out, Ok(n), record)?;
        }
        let mut cancelled_at = None;
        while self.in_flight() > 0 {
            let n = self.in_flight();
            let mut out = std::mem::take(&mut self.done);
            let r = self
                .engine
                .reap_until(n, now_ns() + SETTLE_WAIT_NS, &mut out);
            self.finish_reaped(ctx, src, out, r, record)?;
            if self.in_flight() == 0 {
                break;
            }
            match cancelled_at {
                None if !record || ctx.hurry() => {
                    self.engine.cancel()?;
                    cancelled_at = Some(now_ns());
                }
                Some(t) if now_ns() - t > CANCEL_GIVE_UP_NS => anyhow::bail!(
                    "{} requests of engine '{}' still in flight 5 s after they were cancelled",
                    self.in_flight(),
                    self.engine.info().name
                ),
                _ => {}
            }
        }
        Ok(())
    }

    /// Record the completions in `out` and tell the source. A request that
    /// failed frees its slot first; a write the system took only part of
    /// is finished once nothing else is in flight (finishing it issues
    /// more).
    fn finish_all<S: Source>(
        &mut self,
        ctx: &mut Ctx,
        out: &mut Vec<Completion>,
        src: &mut S,
    ) -> anyhow::Result<()> {
        let mut short = Vec::new();
        let mut failed = None;
        // completions alike in a row are recorded once with their count
        let mut run: Option<(Completion, u64)> = None;
        let mut r = Ok(());
        for c in out.drain(..) {
            self.release(&c);
            if c.err != 0 {
                if !self.count_refused(ctx, &c) && failed.is_none() {
                    failed = Some(c);
                }
                continue;
            }
            if c.req.kind == OpKind::Write && c.bytes < u64::from(c.req.len) {
                short.push(c);
                continue;
            }
            let arrival = self.arrival[usize::from(c.req.slot)];
            match &mut run {
                // fio's logs take each request on its own (its offset)
                Some((first, n)) if arrival == 0 && !ctx.logs_io() && alike(first, &c) => *n += 1,
                _ => {
                    if let Some((first, n)) = run.take() {
                        self.record(ctx, &first, n);
                    }
                    if arrival == 0 {
                        run = Some((c, 1));
                    } else {
                        self.record(ctx, &c, 1);
                    }
                }
            }
            if S::CHECKS && c.req.kind == OpKind::Read && r.is_ok() {
                // the slot is free again, but nothing reuses it before
                // this loop ends
                r = src.check(&c, self.engine.buf_mut(c.req.slot));
            }
            if r.is_ok() {
                r = src.done(&c);
            }
        }
        if let Some((first, n)) = run {
            self.record(ctx, &first, n);
        }
        r?;
        if let Some(c) = failed {
            return Err(self.failed(c.req, io::Error::from_raw_os_error(c.err)));
        }
        if !short.is_empty() {
            self.finish_short(ctx, src, short)?;
        }
        Ok(())
    }

    /// Count a request that came back cancelled, or refused under
    /// `--nowait`; false for a real failure.
    #[inline]
    fn count_refused(&self, ctx: &mut Ctx, c: &Completion) -> bool {
        match c.err {
            libc::ECANCELED => ctx.stats.cancelled += 1,
            libc::EAGAIN if self.nowait => ctx.stats.would_block += 1,
            _ => return false,
        }
        true
    }

    #[cold]
    fn finish_short<S: Source>(
        &mut self,
        ctx: &mut Ctx,
        src: &mut S,
        short: Vec<Completion>,
    ) -> anyhow::Result<()> {
        self.settle(ctx, src, true)?;
        for c in short {
            self.finish_write(c.req, c.bytes)
                .map_err(|e| self.failed(c.req, e))?;
            let whole = Completion {
                bytes: u64::from(c.req.len),
                ..c
            };
            self.record(ctx, &whole, 1);
            src.done(&whole)?;
        }
        Ok(())
    }

    /// Record `c`, with the time it added to the worker's time in I/O.
    #[inline]
    fn record(&mut self, ctx: &mut Ctx, c: &Completion, n: u64) {
        let start = c.done_ns.saturating_sub(c.lat_ns);
        let busy = c.done_ns.saturating_sub(start.max(self.covered_until));
        self.covered_until = self.covered_until.max(c.done_ns);
        ctx.record_from(c, n, self.arrival[usize::from(c.req.slot)], busy);
    }

    /// A request left flight: its slot is free again.
    #[inline]
    fn release(&mut self, c: &Completion) {
        self.free.push(c.req.slot);
        if c.req.kind != OpKind::Fsync {
            self.data_in_flight -= 1;
        }
    }

    /// The error of `req`, naming it and its file.
    #[cold]
    pub fn failed(&self, req: Req, e: io::Error) -> anyhow::Error {
        anyhow::Error::new(e).context(format!(
            "{} of {} B at offset {} in {}",
            req.kind.name(),
            req.len,
            req.offset,
            self.engine.path(req.file).display()
        ))
    }
}

/// Whether `b` can be recorded with `a` as one of a run: the same kind,
/// size, latency, split and end (one clock read stamps a submitted batch,
/// one a reaped one).
#[inline]
fn alike(a: &Completion, b: &Completion) -> bool {
    a.lat_ns == b.lat_ns
        && a.done_ns == b.done_ns
        && a.sub_ns == b.sub_ns
        && a.bytes == b.bytes
        && a.req.kind == b.req.kind
}

#[cfg(test)]
impl Io {
    /// For tests: `choice`, one request at a time, one buffer of `max_len`
    /// bytes.
    pub fn test(choice: crate::engine::Choice, max_len: usize) -> Io {
        Io::new(&EngineSpec::new(choice), 1, max_len, 0).expect("a test engine")
    }

    /// For tests: this `Io`'s engine inside another that `f` makes of it.
    pub fn wrap(self, f: impl FnOnce(Box<dyn Engine>) -> Box<dyn Engine>) -> Io {
        let depth = self.depth;
        Io::with_engine(f(self.engine), depth)
    }

    /// For tests: this `Io` with each request handed to `f` first, which
    /// may look at it, change it or refuse it ([`crate::engine::Intercept`]).
    pub fn intercept<F>(self, f: F) -> Io
    where
        F: FnMut(Req) -> io::Result<Req> + Send + 'static,
    {
        let depth = self.depth;
        Io::with_engine(
            Box::new(crate::engine::Intercept::new(self.engine, f)),
            depth,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Choice;
    use crate::runner::{NoProgress, StopRule, Worker};

    /// Reads of 512 B at offsets 0, 512, … until `left` runs out.
    struct Reads {
        file: FileId,
        left: u64,
        next: u64,
        seen: u64,
    }

    impl Source for Reads {
        fn next(&mut self) -> Option<Req> {
            if self.left == 0 {
                return None;
            }
            self.left -= 1;
            self.next += 512;
            Some(Req::read(self.file, self.next - 512, 512))
        }
        fn done(&mut self, c: &Completion) -> anyhow::Result<()> {
            assert_eq!(c.bytes, 512);
            self.seen += 1;
            Ok(())
        }
    }

    struct Driven(Io, Reads);

    impl Worker for Driven {
        fn kinds(&self) -> &[OpKind] {
            &[OpKind::Read]
        }
        fn run(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
            self.0.drive(ctx, &mut self.1)
        }
    }

    fn driven(depth: u16, left: u64) -> Driven {
        let spec = EngineSpec::new(Choice::NULLQ).depth(depth);
        let mut io = Io::new(&spec, 1, 4096, 7).unwrap();
        let file = io.open(Path::new("x"), OpenHow::READ).unwrap();
        Driven(
            io,
            Reads {
                file,
                left,
                next: 0,
                seen: 0,
            },
        )
    }

    /// At depth 32 the driver keeps 32 in flight and never more, whether
    /// the source or the op budget ends the run, and every request is
    /// recorded once.
    #[test]
    fn the_driver_keeps_the_depth_in_flight_and_no_more() {
        for (left, budget) in [(10_000, None), (u64::MAX, Some(5_000))] {
            let rule = StopRule {
                ops: budget,
                ..Default::default()
            };
            let o = crate::runner::run(rule, vec![driven(32, left)], &NoProgress);
            assert!(o.complete, "{:?}", o.error);
            let want = budget.unwrap_or(left);
            assert_eq!(o.stats.kind(OpKind::Read).unwrap().count, want);
            let d = o.stats.depths;
            assert_eq!(d.max, 32, "{d:?}");
            assert_eq!(d.issues[6], 0, "never above 32: {d:?}");
            assert_eq!(d.total(), want);
            // most issues find the queue at least half full (the null
            // queue completes several at once)
            assert!(d.issues[4] + d.issues[5] > want / 2, "{d:?}");
        }
    }

    /// fio's default reaps one completion per wait however many are done:
    /// with `batch_complete_max` 1 the rest wait for the next reaps, so the
    /// queue is refilled one at a time and stays full; every request is
    /// still recorded once, and the last ones are collected at the end.
    #[test]
    fn at_most_max_completions_are_taken_per_wait() {
        for (max, min) in [(0u16, 0u16), (1, 0), (4, 4)] {
            let spec = EngineSpec::new(Choice::NULLQ)
                .depth(16)
                .queue(crate::engine::QueueOpts {
                    batch: 1,
                    batch_complete: min,
                    batch_complete_max: max,
                    ..Default::default()
                });
            let mut io = Io::new(&spec, 1, 4096, 7).unwrap();
            let file = io.open(Path::new("x"), OpenHow::READ).unwrap();
            let reads = Reads {
                file,
                left: 10_000,
                next: 0,
                seen: 0,
            };
            let o = crate::runner::run(StopRule::default(), vec![Driven(io, reads)], &NoProgress);
            assert!(o.complete, "{:?}", o.error);
            assert_eq!(o.stats.kind(OpKind::Read).unwrap().count, 10_000);
            let d = o.stats.depths;
            let waits: u64 = d.completes.iter().sum();
            let submits: u64 = d.submits.iter().sum();
            assert_eq!(submits, 10_000, "one request per submit: {d:?}");
            match max {
                // the null queue completes several at once: taken together
                0 => assert!(d.completes[2] + d.completes[3] > waits / 4, "{d:?}"),
                // one (or four) per wait, all but the two of the final
                // collection (what was held, and what was still out)
                _ => {
                    assert!(d.completes[1] >= waits - 2, "{d:?}");
                    assert!(waits >= 10_000 / u64::from(max) - 16, "{d:?}");
                    // refilled as they complete: the queue stays full (at
                    // 16, fio's bucket 16) or within the batch of it
                    match max {
                        1 => assert!(d.issues[4] > 9_000, "{d:?}"),
                        _ => assert!(d.issues[3] + d.issues[4] > 9_000, "{d:?}"),
                    }
                }
            }
        }
    }

    /// With `drain_to` (fio's `iodepth_low`), a full queue drains to the
    /// low mark before it is filled again: requests go out at depths from
    /// low + 1 to the depth; without it, near the depth.
    #[test]
    fn a_full_queue_drains_to_the_low_mark() {
        let want = 12_000;
        let mut w = driven(16, want);
        w.0.drain_to(4);
        let o = crate::runner::run(StopRule::default(), vec![w], &NoProgress);
        assert!(o.complete, "{:?}", o.error);
        assert_eq!(o.stats.kind(OpKind::Read).unwrap().count, want);
        let d = o.stats.depths;
        // fio's buckets 1, 2-3, 4-7, 8-15, 16-31: issues at 5..16 fall
        // mostly in 4-7 and 8-15, one in twelve in 16-31 (a reap may take
        // the queue below the mark: the engine gives what completed, as
        // fio's getevents does)
        let share = |i: usize| d.issues[i] as f64 / want as f64;
        assert!(share(0) + share(1) < 0.15, "{d:?}");
        assert!(share(2) > 0.15, "{d:?}");
        assert!(share(4) < 0.3, "{d:?}");
        let o = crate::runner::run(StopRule::default(), vec![driven(16, want)], &NoProgress);
        let d = o.stats.depths;
        // without: refilled from where the completions left it (the null
        // queue completes several at once), never drained to 4-7
        let share = |i: usize| d.issues[i] as f64 / want as f64;
        assert!(share(3) + share(4) > 0.9, "{d:?}");
        assert!(share(2) < 0.05, "{d:?}");
    }

    /// Page-cache hits submitted by one call and reaped by one are alike
    /// and recorded as a run: every one still counts once, in the
    /// histogram, the split, the bytes and the time series.
    #[test]
    fn completions_recorded_as_runs_are_each_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let spec = EngineSpec::new(Choice::IO_URING).depth(32);
        let Ok(mut io) = Io::new(&spec, 1, 4096, 7) else {
            eprintln!("skipped: io_uring is refused here");
            return;
        };
        let file = io.open(&path, OpenHow::READ).unwrap();
        let want = 20_000;
        let reads = Reads {
            file,
            left: want,
            next: 0,
            seen: 0,
        };
        // offsets wrap inside the 1 MiB file
        let io = io.intercept(|mut r: Req| {
            r.offset %= 1 << 20;
            Ok(r)
        });
        let o = crate::runner::run(StopRule::default(), vec![Driven(io, reads)], &NoProgress);
        assert!(o.complete, "{:?}", o.error);
        let k = o.stats.kind(OpKind::Read).unwrap();
        assert_eq!((k.count, k.hist.len(), k.bytes), (want, want, want * 512));
        let sub = o.stats.submission(OpKind::Read).unwrap();
        let comp = o.stats.completion(OpKind::Read).unwrap();
        assert_eq!((sub.hist.len(), comp.hist.len()), (want, want));
        assert_eq!(o.stats.series.ops().iter().sum::<u64>(), want);
    }

    /// Depth 1 through the same driver: one at a time, every request
    /// recorded, and no depth counted (1 by construction).
    #[test]
    fn depth_one_issues_one_at_a_time() {
        let rule = StopRule::default();
        let o = crate::runner::run(rule, vec![driven(1, 100)], &NoProgress);
        assert_eq!(o.stats.kind(OpKind::Read).unwrap().count, 100);
        assert_eq!(o.stats.depths.total(), 0);
    }

    /// A write the system takes in part is finished, with others in
    /// flight collected first, and recorded whole.
    #[test]
    fn a_short_write_at_depth_is_finished_and_recorded_whole() {
        struct Writes(FileId, u64);
        impl Source for Writes {
            fn next(&mut self) -> Option<Req> {
                (self.1 < 64).then(|| {
                    self.1 += 1;
                    Req::write(self.0, (self.1 - 1) * 1000, 1000)
                })
            }
        }
        struct W(Io, Writes);
        impl Worker for W {
            fn kinds(&self) -> &[OpKind] {
                &[OpKind::Write]
            }
            fn run(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
                self.0.drive(ctx, &mut self.1)
            }
        }
        let spec = EngineSpec::new(Choice::NULLQ).depth(8);
        let mut n = 0;
        let io = Io::new(&spec, 1, 4096, 1)
            .unwrap()
            .intercept(move |mut r: Req| {
                n += 1;
                // the 10th request goes out short; what finishes it is whole
                if n == 10 {
                    r.len = 300;
                }
                Ok(r)
            });
        let mut io = io;
        let f = io.open(Path::new("w"), OpenHow::CREATE).unwrap();
        let o = crate::runner::run(StopRule::default(), vec![W(io, Writes(f, 0))], &NoProgress);
        assert!(o.complete, "{:?}", o.error);
        let w = o.stats.kind(OpKind::Write).unwrap();
        assert_eq!((w.count, w.bytes), (64, 64_000));
    }
}

#[cfg(test)]
mod stuck_tests {
    use super::*;
    use crate::engine::Choice;
    use crate::runner::{NoProgress, StopRule, Worker};
    use std::time::Duration;

    /// Reads of a FIFO that nobody writes: they never complete.
    struct Stuck(FileId);

    impl Source for Stuck {
        fn next(&mut self) -> Option<Req> {
            Some(Req::read(self.0, 0, 100))
        }
    }

    struct W(Io, Stuck);

    impl Worker for W {
        fn kinds(&self) -> &[OpKind] {
            &[OpKind::Read]
        }
        fn run(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
            self.0.drive(ctx, &mut self.1)
        }
    }

    /// 128 requests that never complete: when the run is hurried (Ctrl-C,
    /// or the grace after the stop), the driver cancels them, each comes
    /// back once and is counted, and the worker ends with nothing in
    /// flight.
    #[test]
    fn requests_that_never_complete_are_cancelled_when_the_run_is_hurried() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let path = dir.path().join("fifo");
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a NUL-terminated path that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let spec = EngineSpec::new(Choice::IO_URING).depth(128);
        let mut io = Io::new(&spec, 1, 4096, 1).unwrap();
        let f = io.open(&path, OpenHow::READ_WRITE).unwrap();
        let rule = StopRule {
            duration: Some(Duration::from_millis(300)),
            grace: Some(Duration::from_millis(200)),
            ..Default::default()
        };
        let t = std::time::Instant::now();
        let o = crate::runner::run(rule, vec![W(io, Stuck(f))], &NoProgress);
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        assert!(o.error.is_none(), "{:?}", o.error);
        assert_eq!(o.stats.cancelled, 128);
        assert!(o.stats.kind(OpKind::Read).is_none());
    }
}
