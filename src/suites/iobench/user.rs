//! One IOBENCH user (the paper's `iouser`): the transaction loop, the same
//! code whether the user is a thread of the controller or a process of its
//! own.
//!
//! A transaction (a "cycle") is R iterations; each picks a random file and a
//! random record, takes the record's lock (record r → lock r mod L), reads
//! the record, burns CP·1000/R null-loop iterations, and — in the last W
//! iterations — writes the record back; then unlocks. Everything a user
//! records is its own (no sharing, no allocation while timed) except the
//! lock manager's words and counters, which IOBENCH shares by design, and
//! the user's progress cell.

use super::config::Config;
use super::server::Client;
use super::shm::Shm;
use crate::engine::{EngineSpec, FileId, OpenHow, Req};
use crate::measure::OpKind;
use crate::measure::clock::now_ns;
use crate::measure::compact::KindRec;
use crate::runner::Io;
use crate::runner::{Ctx, Tx, Worker};
use crate::workload::{Prng, below, worker_rng};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Buckets of the response-time distribution table: whole seconds 0…24 and
/// more than 24.
pub const DIST_BUCKETS: usize = 26;

/// What every user needs to know: the parameters and what the controller
/// made of them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Plan {
    pub config: Config,
    /// Lock words per file (min(L, N)).
    pub locks: u64,
    pub locking: bool,
    pub sleep_ns: u64,
    pub work_per_read: u64,
    pub paths: Vec<PathBuf>,
    pub engine: crate::engine::Choice,
    pub direct: bool,
    pub seed: u64,
    /// Files a user may hold open at once (IOBENCH's "file units").
    pub units: u32,
    /// Seconds the per-second series is sized for.
    pub series_secs: usize,
    /// Where process users leave their records.
    pub work_dir: PathBuf,
    pub verify: bool,
    /// Variant 1: locks are asked of the ioserver.
    #[serde(default)]
    pub server: bool,
}

/// One file as one user saw it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FileRec {
    /// Records read (= locks taken with locking on).
    pub uses: u64,
    /// Opens and closes forced by running out of file units.
    pub opens: u64,
    pub closes: u64,
    pub read_sum_ns: u128,
    pub read_sumsq_ns: u128,
    pub read_max_ns: u64,
    pub read_max_record: u64,
}

/// Everything one user measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UserRecord {
    pub user: u32,
    /// Transactions completed.
    pub cycles: u64,
    /// CPU time of the user (its thread) while timed.
    pub cpu_user_ns: u64,
    pub cpu_sys_ns: u64,
    /// Wall time inside read and write calls.
    pub io_ns: u128,
    pub opens: u64,
    pub closes: u64,
    /// When the user started and stopped (monotonic clock, ns).
    pub start_ns: u64,
    pub end_ns: u64,
    /// When it started, in seconds since the Unix epoch.
    pub start_unix: i64,
    pub files: Vec<FileRec>,
    pub read: KindRec,
    pub write: Option<KindRec>,
    pub lock: Option<KindRec>,
    pub cpu: Option<KindRec>,
    pub open: Option<KindRec>,
    pub close: Option<KindRec>,
    pub transaction: KindRec,
    /// Transactions by whole seconds of response time (0…24, >24).
    pub dist: Vec<u64>,
    /// Ops (every kind but transactions) and bytes per second since t0.
    pub sec_ops: Vec<u64>,
    pub sec_bytes: Vec<u64>,
    /// Peak RSS of a user process (KiB); 0 for threads.
    pub max_rss_kib: u64,
    /// Proportional set size of a user process at its end (KiB): its share
    /// of pages shared with the other users (the binary), counted once.
    #[serde(default)]
    pub pss_kib: u64,
    /// Why the user stopped early, if it did.
    pub error: Option<String>,
    /// Lock requests made: one per lock in Variant 0; in Variant 1 every
    /// request sent to the ioserver (retries after "busy" included).
    #[serde(default)]
    pub lock_requests: u64,
    /// CPU time (the thread's CPU clock) of the CP work of the completed
    /// transactions sampled (every [`CPU_SAMPLE`]th: reading the clock is
    /// a system call), and how many they were.
    #[serde(default)]
    pub work_cpu_ns: u64,
    #[serde(default)]
    pub work_sampled: u64,
}

/// Every this many transactions of a user, the CPU time of its CP work is
/// read (2 system calls of about 0.5 µs per burst of work).
pub const CPU_SAMPLE: u64 = 8;

impl UserRecord {
    fn new(plan: &Plan, user: u32) -> Self {
        let opt = |on: bool| on.then(KindRec::new);
        let short = plan.units < plan.config.files;
        UserRecord {
            user,
            cycles: 0,
            cpu_user_ns: 0,
            cpu_sys_ns: 0,
            io_ns: 0,
            opens: 0,
            closes: 0,
            start_ns: 0,
            end_ns: 0,
            start_unix: 0,
            files: vec![FileRec::default(); plan.config.files as usize],
            read: KindRec::new(),
            write: opt(plan.config.writes > 0),
            lock: opt(plan.locking),
            cpu: opt(plan.work_per_read > 0),
            open: opt(short),
            close: opt(short),
            transaction: KindRec::new(),
            dist: vec![0; DIST_BUCKETS],
            sec_ops: vec![0; plan.series_secs],
            sec_bytes: vec![0; plan.series_secs],
            max_rss_kib: 0,
            pss_kib: 0,
            error: None,
            lock_requests: 0,
            work_cpu_ns: 0,
            work_sampled: 0,
        }
    }

    /// A user that never ran (failed to start, or was killed).
    pub fn failed(plan: &Plan, user: u32, why: String) -> Self {
        let mut r = UserRecord::new(plan, user);
        r.error = Some(why);
        r
    }

    pub fn duration_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

/// The per-second series, with the current bucket cached (no division per op).
struct Ticker {
    t0: u64,
    cur: usize,
    cur_start: u64,
    cur_end: u64,
}

impl Ticker {
    #[inline]
    fn tick(&mut self, rec: &mut UserRecord, done_ns: u64, bytes: u64) {
        let at = done_ns.saturating_sub(self.t0);
        if at < self.cur_start || at >= self.cur_end {
            self.seek(rec, at);
        }
        rec.sec_ops[self.cur] += 1;
        rec.sec_bytes[self.cur] += bytes;
    }

    #[cold]
    fn seek(&mut self, rec: &mut UserRecord, at: u64) {
        let i = (at / 1_000_000_000) as usize;
        if i >= rec.sec_ops.len() {
            rec.sec_ops.resize(i + 1, 0);
            rec.sec_bytes.resize(i + 1, 0);
        }
        self.cur = i;
        self.cur_start = i as u64 * 1_000_000_000;
        self.cur_end = self.cur_start + 1_000_000_000;
    }
}

/// CP work: a null loop of `iters` iterations the compiler cannot remove.
#[inline(never)]
pub fn burn(iters: u64) {
    let mut i = 0u64;
    while i < iters {
        std::hint::black_box(i);
        i += 1;
    }
}

/// Seconds the CP work of one transaction (CP·1000 iterations) takes here:
/// the fastest of three timings (of at most 10⁷ iterations, scaled).
pub fn cp_load_per_cycle(work: u64) -> f64 {
    let iters = work * 1000;
    if iters == 0 {
        return 0.0;
    }
    let probe = iters.min(10_000_000);
    let best = (0..3)
        .map(|_| {
            let t = now_ns();
            burn(probe);
            now_ns() - t
        })
        .min()
        .unwrap_or(0);
    best as f64 / 1e9 * iters as f64 / probe as f64
}

/// User and system CPU time of the calling thread, in ns.
pub fn thread_cpu_ns() -> (u64, u64) {
    // SAFETY: getrusage writes the zeroed plain-data struct we pass.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid rusage; RUSAGE_THREAD exists on Linux.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    let ns =
        |t: libc::timeval| t.tv_sec.max(0) as u64 * 1_000_000_000 + t.tv_usec.max(0) as u64 * 1000;
    (ns(u.ru_utime), ns(u.ru_stime))
}

/// The calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), in ns.
#[inline]
fn thread_cpu_clock_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Peak RSS of this process (KiB).
pub fn process_max_rss_kib() -> u64 {
    crate::measure::CpuTimes::now().max_rss_kib
}

/// Proportional set size of this process now (KiB), 0 if unknown.
pub fn process_pss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/smaps_rollup")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("Pss:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// A user ready to run: engine made, files open. A [`Worker`] of the
/// runner, as a thread or as a process of its own.
pub struct User {
    /// The engine, apart from the rest: the runner's issue loop lends it
    /// to each transaction ([`Io::transact`]).
    engine: Io,
    state: State,
    /// A process of its own: its record carries the process's memory.
    as_process: bool,
}

/// What a user keeps from one transaction to the next.
struct State {
    plan: Arc<Plan>,
    shm: Arc<Shm>,
    me: u32,
    open: Vec<Option<FileId>>,
    ring: VecDeque<u32>,
    rng: Prng,
    rec: UserRecord,
    /// Variant 1: the way to the ioserver.
    client: Option<Client>,
    /// CPU time of the CP work of the transaction in hand, when sampled.
    tx_work_ns: u64,
    sample_cpu: bool,
}

impl User {
    /// Make the engine and open the first files (untimed).
    pub fn new(plan: Arc<Plan>, shm: Arc<Shm>, me: u32, as_process: bool) -> Result<Self, String> {
        // one request at a time: a transaction reads, then writes the
        // record it read, under a lock
        let spec = EngineSpec::new(plan.engine).direct(plan.direct);
        let mut engine = Io::new(&spec, 1, plan.config.reclen as usize, plan.seed ^ me as u64)
            .map_err(|e| e.0)?;
        let (files, units, seed) = (plan.config.files, plan.units, plan.seed);
        let rec = UserRecord::new(&plan, me);
        let client = (plan.server && plan.locking)
            .then(|| Client::new(&shm, me, Duration::from_nanos(plan.sleep_ns)));
        let mut state = State {
            plan,
            shm,
            me,
            open: vec![None; files as usize],
            ring: VecDeque::with_capacity(units as usize + 1),
            rng: worker_rng(seed, me as usize),
            rec,
            client,
            tx_work_ns: 0,
            sample_cpu: false,
        };
        for f in 0..units.min(files) {
            let id = state.open_file(&mut engine, f)?;
            state.open[f as usize] = Some(id);
            state.ring.push_back(f);
        }
        Ok(User {
            engine,
            state,
            as_process,
        })
    }

    /// Run until stopped (the runner opened the gate), into the record.
    fn run_user(&mut self, ctx: &mut Ctx) {
        let t0 = ctx.t0_ns();
        let (u0, s0) = thread_cpu_ns();
        let User { engine, state, .. } = self;
        state.rec.start_unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        state.rec.start_ns = now_ns();
        let mut tk = Ticker {
            t0,
            cur: 0,
            cur_start: 0,
            cur_end: 0,
        };
        let (plan, shm) = (Arc::clone(&state.plan), Arc::clone(&state.shm));
        let r = engine.transact(ctx, &mut |tx: &mut Tx| {
            state
                .transaction(tx, &plan, &shm, &mut tk)
                .map_err(anyhow::Error::msg)
        });
        let rec = &mut state.rec;
        rec.end_ns = now_ns();
        let (u1, s1) = thread_cpu_ns();
        rec.cpu_user_ns = u1.saturating_sub(u0);
        rec.cpu_sys_ns = s1.saturating_sub(s0);
        if let Err(e) = r {
            rec.error = Some(e.to_string());
        }
    }
}

impl State {
    fn open_file(&self, io: &mut Io, f: u32) -> Result<FileId, String> {
        let p = &self.plan.paths[f as usize];
        io.open(p, OpenHow::READ_WRITE)
            .map_err(|e| format!("cannot open {}", crate::runner::workdir::io_reason(&e)))
    }

    /// The file's id, opening it (and closing the oldest open file when all
    /// units are taken) if need be. Those opens and closes are counted.
    #[inline]
    fn file(&mut self, io: &mut Io, f: u32, tk: &mut Ticker) -> Result<FileId, String> {
        if let Some(id) = self.open[f as usize] {
            return Ok(id);
        }
        self.swap_in(io, f, tk)
    }

    #[cold]
    fn swap_in(&mut self, io: &mut Io, f: u32, tk: &mut Ticker) -> Result<FileId, String> {
        if self.ring.len() >= self.plan.units as usize
            && let Some(old) = self.ring.pop_front()
            && let Some(id) = self.open[old as usize].take()
        {
            let t = now_ns();
            io.close(id)
                .map_err(|e| format!("cannot close file {old}: {e}"))?;
            self.count_swap(tk, old, t, true);
        }
        let t = now_ns();
        let id = self.open_file(io, f)?;
        self.count_swap(tk, f, t, false);
        self.open[f as usize] = Some(id);
        self.ring.push_back(f);
        Ok(id)
    }

    /// Count a close (or an open) of file `f` forced by the file units,
    /// begun at `t` and just done.
    fn count_swap(&mut self, tk: &mut Ticker, f: u32, t: u64, close: bool) {
        let d = now_ns();
        let rec = &mut self.rec;
        let kind = if close { &mut rec.close } else { &mut rec.open };
        if let Some(k) = kind {
            k.record(d - t, 0);
        }
        tk.tick(rec, d, 0);
        let file = &mut rec.files[f as usize];
        if close {
            rec.closes += 1;
            file.closes += 1;
        } else {
            rec.opens += 1;
            file.opens += 1;
        }
    }

    /// One transaction (a cycle) through `tx`: `Ok(false)` when it was
    /// abandoned, stopped at once while waiting for a lock.
    fn transaction(
        &mut self,
        tx: &mut Tx,
        p: &Plan,
        shm: &Shm,
        tk: &mut Ticker,
    ) -> Result<bool, String> {
        let sleep = Duration::from_nanos(p.sleep_ns);
        let c = &p.config;
        let first_write = c.reads - c.writes;
        let began = now_ns();
        self.tx_work_ns = 0;
        self.sample_cpu = self.rec.cycles.is_multiple_of(CPU_SAMPLE);
        for i in 0..c.reads {
            let f = below(&mut self.rng, c.files as u64) as u32;
            let r = below(&mut self.rng, c.nrecs);
            let id = self.file(tx.io, f, tk)?;
            let l = r % p.locks;
            if p.locking {
                let t = now_ns();
                let got = match &self.client {
                    Some(c) => {
                        let got = c.lock(f, l, shm, &mut self.rec.lock_requests)?;
                        if got {
                            shm.witness_take(f, l, self.me);
                        }
                        got
                    }
                    None => {
                        self.rec.lock_requests += 1;
                        shm.lock(f, l, self.me, sleep)
                    }
                };
                if !got {
                    // stopped at once while waiting: the transaction is abandoned
                    return Ok(false);
                }
                let d = now_ns();
                if let Some(k) = &mut self.rec.lock {
                    k.record(d - t, 0);
                }
                // a lock is not an I/O: not in the per-second I/O series
            } else if p.verify {
                shm.witness_enter(f, l, self.me);
            }
            let res = self.access(tx.io, f, id, r, i >= first_write, tk);
            if p.locking {
                match &self.client {
                    Some(c) => {
                        shm.witness_give(f, l, self.me);
                        c.unlock(f, l)?;
                    }
                    None => shm.unlock(f, l, self.me),
                }
            } else if p.verify {
                shm.witness_leave(f, l, self.me);
            }
            res?;
        }
        let lat = now_ns() - began;
        self.rec.transaction.record(lat, 0);
        self.rec.dist[((lat / 1_000_000_000) as usize).min(DIST_BUCKETS - 1)] += 1;
        self.rec.cycles += 1;
        if self.sample_cpu {
            self.rec.work_cpu_ns += self.tx_work_ns;
            self.rec.work_sampled += 1;
        }
        tx.ctx.publish(self.rec.cycles);
        Ok(true)
    }

    /// Read record `r` of file `f`, burn the work, write it back if asked.
    #[inline]
    fn access(
        &mut self,
        io: &mut Io,
        f: u32,
        id: FileId,
        r: u64,
        write: bool,
        tk: &mut Ticker,
    ) -> Result<(), String> {
        let b = self.plan.config.reclen as u64;
        let c = io
            .exec(Req::read(id, r * b, b as u32))
            .map_err(|e| self.failed("read", f, r, e))?;
        if c.bytes != b {
            return Err(format!(
                "read of record {r} in {} returned {} of {b} bytes (the file is shorter than NRECS × RECLEN)",
                self.plan.paths[f as usize].display(),
                c.bytes
            ));
        }
        self.rec.read.record(c.lat_ns, c.bytes);
        self.rec.io_ns += c.lat_ns as u128;
        let fr = &mut self.rec.files[f as usize];
        fr.uses += 1;
        fr.read_sum_ns += c.lat_ns as u128;
        fr.read_sumsq_ns += c.lat_ns as u128 * c.lat_ns as u128;
        if c.lat_ns > fr.read_max_ns {
            fr.read_max_ns = c.lat_ns;
            fr.read_max_record = r;
        }
        tk.tick(&mut self.rec, c.done_ns, c.bytes);
        if self.plan.work_per_read > 0 {
            let t = now_ns();
            if self.sample_cpu {
                let c = thread_cpu_clock_ns();
                burn(self.plan.work_per_read);
                self.tx_work_ns += thread_cpu_clock_ns().saturating_sub(c);
            } else {
                burn(self.plan.work_per_read);
            }
            let d = now_ns();
            if let Some(k) = &mut self.rec.cpu {
                k.record(d - t, 0);
            }
        }
        if write {
            let c = io
                .exec(Req::write(id, r * b, b as u32))
                .map_err(|e| self.failed("write", f, r, e))?;
            if let Some(k) = &mut self.rec.write {
                k.record(c.lat_ns, c.bytes);
            }
            self.rec.io_ns += c.lat_ns as u128;
            tk.tick(&mut self.rec, c.done_ns, c.bytes);
        }
        Ok(())
    }

    #[cold]
    fn failed(&self, what: &str, f: u32, r: u64, e: std::io::Error) -> String {
        format!(
            "{what} of record {r} in {}: {e}",
            self.plan.paths[f as usize].display()
        )
    }
}

impl Worker for User {
    fn kinds(&self) -> &[OpKind] {
        // a user keeps records of its own (IOBENCH's table needs them)
        &[]
    }

    fn run(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        // a user's failure is in its record: the other users go on
        self.run_user(ctx);
        Ok(())
    }

    fn finish(&mut self) -> serde_json::Value {
        let rec = &mut self.state.rec;
        if self.as_process {
            rec.max_rss_kib = process_max_rss_kib();
            rec.pss_kib = process_pss_kib();
        }
        serde_json::to_value(&*rec).unwrap_or_default()
    }
}

/// A user thread: ready, or failed in its set-up (it then runs nothing and
/// hands back its failed record).
pub enum UserThread {
    Ready(Box<User>),
    Failed(Box<UserRecord>),
}

impl Worker for UserThread {
    fn kinds(&self) -> &[OpKind] {
        &[]
    }

    fn run(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        match self {
            UserThread::Ready(u) => u.run(ctx),
            UserThread::Failed(_) => Ok(()),
        }
    }

    fn finish(&mut self) -> serde_json::Value {
        match self {
            UserThread::Ready(u) => u.finish(),
            UserThread::Failed(r) => serde_json::to_value(&**r).unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burn_takes_time_in_proportion() {
        let t = now_ns();
        burn(2_000_000);
        let a = now_ns() - t;
        assert!(a > 100_000, "2M iterations in {a} ns: the loop was removed");
        assert!(cp_load_per_cycle(0) == 0.0);
        assert!(cp_load_per_cycle(100) > 0.0);
    }
}
