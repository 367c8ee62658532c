//! One FFSB thread: choose an operation by weight, choose a file system,
//! do the operation, sleep `op_delay`, until the run stops.
//!
//! Data goes through the engine (one file open at a time, the engine's
//! one buffer slot, which holds `max(read_blocksize, write_blocksize)`
//! bytes, page-aligned for O_DIRECT); opens, closes and the metadata calls
//! (stat, unlink, mkdir, rmdir, rename) are made here and timed here on the
//! same clock. Every call is recorded in the thread's [`Ctx`] stats under
//! iogauge's op kinds and, for a group with `[stats]`, in its per-syscall
//! figures; every operation is counted in its [`OpTally`] with its latency
//! from the first call to the last (open to close). Nothing is allocated
//! per operation: paths are built in two reused buffers.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Result, anyhow};

use super::files::{FileList, FsState, Pick, Picked, SizeRule, Want};
use super::rand::RandBytes;
use super::setup::{Usage, bytes_to_reach};
use crate::engine::{FileId, OpenHow, Req};
use crate::measure::OpKind;
use crate::measure::clock::now_ns;
use crate::runner::Io;
use crate::runner::workdir::io_reason;
use crate::runner::{Ctx, Transactions, Tx, Worker};
use crate::suites::ffsb::profile::{Op, Syscall, ThreadGroup};
use crate::suites::ffsb::results::{CallStats, GroupResult, OpTally};
use serde::{Deserialize, Serialize};

/// The op kinds a thread records.
pub(super) const KINDS: [OpKind; 12] = [
    OpKind::Read,
    OpKind::Write,
    OpKind::Append,
    OpKind::Open,
    OpKind::Close,
    OpKind::Create,
    OpKind::Delete,
    OpKind::Stat,
    OpKind::Fsync,
    OpKind::Rename,
    OpKind::Mkdir,
    OpKind::Rmdir,
];

/// FFSB's choice of operation (`tg_get_op`): `n = 1 +
/// getrandom(Σweights)`, then the weights walked in [`Op::ALL`] order,
/// subtracting, until `n` fits. FFSB's `getrandom` is biased towards low
/// values ([`RandBytes::below`]), so the operations early in that order
/// with their weights among the low values run more often than their
/// weights say; iogauge keeps the bias.
#[derive(Clone, Copy, Debug)]
pub(super) struct Chooser {
    weights: [u32; 15],
    total: u32,
}

impl Chooser {
    pub fn new(tg: &ThreadGroup) -> Chooser {
        Chooser {
            weights: tg.weights,
            // the parser refuses a sum above u32::MAX
            total: u32::try_from(tg.total_weight()).unwrap_or(u32::MAX),
        }
    }

    #[inline]
    pub fn pick(&self, rng: &mut RandBytes) -> Op {
        let mut n = 1 + u64::from(rng.below(self.total));
        for op in Op::ALL {
            let w = u64::from(self.weights[op.index()]);
            if n <= w {
                return op;
            }
            n -= w;
        }
        // only when every weight is 0, which the checks refuse
        Op::Read
    }
}

/// How far aging has come, shared by the aging threads: bytes written,
/// and whether the file system is full enough (or aging wrote its limit).
/// The utilisation is read with statvfs(2) at most every 100 ms, and
/// sooner once the bytes written since the last reading reach half of
/// what was missing then, so the target is passed by little.
pub(super) struct AgeCtl {
    dir: PathBuf,
    target: f64,
    max_bytes: u64,
    pub written: AtomicU64,
    next_poll: AtomicU64,
    last_poll_ns: AtomicU64,
    pub done: AtomicBool,
    /// Aging wrote more than `max_bytes` before reaching the target.
    pub over: AtomicBool,
    pub failed: Mutex<Option<String>>,
}

/// Polls at least this often while aging.
const AGE_POLL_NS: u64 = 100_000_000;
/// ... and no more often than every this many bytes.
const AGE_POLL_MIN_STEP: u64 = 64 << 10;

impl AgeCtl {
    pub fn new(dir: &Path, target: f64, max_bytes: u64, written: u64) -> AgeCtl {
        AgeCtl {
            dir: dir.to_path_buf(),
            target,
            max_bytes,
            written: AtomicU64::new(written),
            next_poll: AtomicU64::new(0),
            last_poll_ns: AtomicU64::new(0),
            done: AtomicBool::new(false),
            over: AtomicBool::new(false),
            failed: Mutex::new(None),
        }
    }

    /// Read the utilisation now; true once aging is done.
    pub fn poll(&self) -> bool {
        let written = self.written.load(Ordering::Relaxed);
        self.last_poll_ns.store(now_ns(), Ordering::Relaxed);
        match Usage::of(&self.dir) {
            Ok(u) if u.util() >= self.target => self.done.store(true, Ordering::Relaxed),
            Ok(u) => {
                let missing = bytes_to_reach(self.target, &u);
                self.next_poll.store(
                    written + (missing / 2).max(AGE_POLL_MIN_STEP),
                    Ordering::Relaxed,
                );
            }
            Err(e) => {
                *self.failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!(
                    "cannot read the utilisation of {}: {}",
                    self.dir.display(),
                    io_reason(&e)
                ));
                self.done.store(true, Ordering::Relaxed);
            }
        }
        self.done.load(Ordering::Relaxed)
    }

    /// An aging operation wrote `bytes`.
    fn wrote(&self, bytes: u64) {
        let w = self.written.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if w > self.max_bytes {
            self.over.store(true, Ordering::Relaxed);
            self.done.store(true, Ordering::Relaxed);
            return;
        }
        let since = now_ns().saturating_sub(self.last_poll_ns.load(Ordering::Relaxed));
        if w >= self.next_poll.load(Ordering::Relaxed) || since >= AGE_POLL_NS {
            self.poll();
        }
    }

    fn is_done(&self) -> bool {
        self.done.load(Ordering::Relaxed)
    }

    /// Where aging ended (or stands).
    pub fn end(&self) -> AgeEnd {
        AgeEnd {
            written: self.written.load(Ordering::Relaxed),
            over: self.over.load(Ordering::Relaxed),
            failed: self
                .failed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        }
    }
}

/// Where aging ended: what an aging thread hands back.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgeEnd {
    /// Bytes written, the fill files' included.
    pub written: u64,
    /// It wrote more than its limit before reaching the target.
    pub over: bool,
    /// Why the utilisation could not be read.
    pub failed: Option<String>,
}

/// What a thread is given; the file systems and the aging are shared by
/// the threads of a run.
pub(super) struct Params {
    pub tg: Arc<ThreadGroup>,
    /// The file systems it may work on (all of the profile's, or the one
    /// being aged).
    pub fss: Arc<[FsState]>,
    /// `bindfs`: the index of its only file system.
    pub bind: Option<usize>,
    /// Aging: create, append and delete work on the fill files, and the
    /// thread stops when aging is done.
    pub age: Option<Arc<AgeCtl>>,
    /// Random offsets on 4 KiB boundaries (`alignio`, `directio`).
    pub aligned: bool,
    /// The thread's random bytes ([`super::rand::THREAD_BYTES`] of them).
    pub rng: RandBytes,
    pub engine: Io,
}

/// One operation's figures.
#[derive(Clone, Copy, Debug, Default)]
struct Done {
    lat_ns: u64,
    calls: u64,
    bytes: u64,
}

impl Done {
    /// An operation of one call that moved no data.
    fn call(lat_ns: u64) -> Done {
        Done {
            lat_ns,
            calls: 1,
            bytes: 0,
        }
    }
}

/// The read or write calls of one operation.
#[derive(Clone, Copy, Debug)]
enum Plan {
    /// `len` bytes from `start` in blocks of `bs` (the last one shorter).
    Seq { start: u64, len: u64, bs: u64 },
    /// `n` blocks of `bs` at random offsets in `[0, range)`.
    Random { n: u64, range: u64, bs: u64 },
    /// `n` blocks of `bs` from 0, `skip` bytes apart, then `last` bytes.
    Skip {
        n: u64,
        bs: u64,
        skip: u64,
        last: u64,
    },
}

/// One thread: when it ends it hands back its counters as a
/// [`GroupResult`] of one thread, or, aging, an [`AgeEnd`].
pub struct Thread {
    engine: Io,
    work: Work,
}

/// All of a thread but its engine, which the runner lends each of its
/// operations ([`Transactions`]).
struct Work {
    tg: Arc<ThreadGroup>,
    chooser: Chooser,
    fss: Arc<[FsState]>,
    bind: Option<usize>,
    age: Option<Arc<AgeCtl>>,
    aligned: bool,
    rng: RandBytes,
    /// The path operated on, and a rename's new name.
    path: Vec<u8>,
    path2: Vec<u8>,
    ops: Vec<OpTally>,
    /// `[stats]`: per syscall (by `Syscall as usize`), `None` when ignored.
    calls: [Option<CallStats>; 8],
    ranges_ns: Vec<(u64, u64)>,
    /// Bytes written by the operations so far.
    written: u64,
}

/// A `msec_range` in nanoseconds (FFSB truncates to µs; iogauge keeps ns).
pub(super) fn range_ns((lo, hi): (f64, f64)) -> (u64, u64) {
    let ns = |ms: f64| (ms * 1e6).round().max(0.0) as u64;
    (ns(lo), ns(hi))
}

impl Thread {
    pub(super) fn new(p: Params) -> Thread {
        let mut calls: [Option<CallStats>; 8] = Default::default();
        let mut ranges_ns = Vec::new();
        if let Some(st) = p.tg.stats.as_ref().filter(|s| s.enable_stats) {
            if st.enable_range {
                ranges_ns = st.ranges_ms.iter().copied().map(range_ns).collect();
            }
            for s in Syscall::ALL {
                if !st.ignore.contains(&s) {
                    calls[s as usize] = Some(CallStats::new(ranges_ns.len()));
                }
            }
        }
        let work = Work {
            chooser: Chooser::new(&p.tg),
            tg: p.tg,
            fss: p.fss,
            bind: p.bind,
            age: p.age,
            aligned: p.aligned,
            rng: p.rng,
            path: Vec::with_capacity(512),
            path2: Vec::with_capacity(512),
            ops: vec![OpTally::default(); Op::ALL.len()],
            calls,
            ranges_ns,
            written: 0,
        };
        Thread {
            engine: p.engine,
            work,
        }
    }
}

/// One FFSB operation a transaction, until aging is done (or the run
/// stops).
impl Transactions for Work {
    fn next(&mut self, tx: &mut Tx) -> Result<bool> {
        if self.aged() {
            return Ok(false);
        }
        let fss = Arc::clone(&self.fss);
        let op = self.chooser.pick(&mut self.rng);
        let i = match self.bind {
            Some(i) => i,
            None => self.rng.below(fss.len() as u32) as usize,
        };
        let before = self.written;
        self.op(tx, op, &fss[i])?;
        if let Some(age) = &self.age {
            age.wrote(self.written - before);
        }
        if self.tg.op_delay_ms > 0 {
            self.pause(tx.ctx);
        }
        Ok(true)
    }
}

impl Work {
    fn aged(&self) -> bool {
        self.age.as_deref().is_some_and(AgeCtl::is_done)
    }

    /// `op_delay`, cut short when the run stops.
    fn pause(&self, ctx: &Ctx) {
        let end = now_ns() + u64::from(self.tg.op_delay_ms) * 1_000_000;
        loop {
            let now = now_ns();
            if now >= end || ctx.stopped() || self.aged() {
                return;
            }
            std::thread::sleep(Duration::from_nanos((end - now).min(50_000_000)));
        }
    }

    fn op(&mut self, tx: &mut Tx, op: Op, fs: &FsState) -> Result<()> {
        // aging sends create, append and delete to the fill files
        let list = if self.age.is_some() && op.ages() {
            &fs.fill
        } else {
            &fs.data
        };
        match op {
            Op::Read => self.read(tx, list),
            Op::ReadAll => self.read_all(tx, list),
            Op::Write => self.write(tx, list, op, false),
            Op::WriteFsync => self.write(tx, list, op, true),
            Op::WriteAll => self.write_all(tx, list, op, false),
            Op::WriteAllFsync => self.write_all(tx, list, op, true),
            Op::Create => self.create(tx, list, &fs.sizes, op, false),
            Op::CreateFsync => self.create(tx, list, &fs.sizes, op, true),
            Op::Append => self.append(tx, list, op, false),
            Op::AppendFsync => self.append(tx, list, op, true),
            Op::Delete => self.delete(tx, list),
            Op::Stat => self.stat(tx, list),
            Op::OpenClose => self.open_close(tx, list),
            Op::CreateDir => self.create_dir(tx, &fs.data),
            Op::MetaOp => self.metaop(tx, &fs.meta),
        }
    }

    /// A file of `list` for `want`; `None` when there is nothing to do.
    /// An empty list is an error for the data operations (FFSB stops with
    /// "No more files to operate on").
    fn pick(
        &mut self,
        ctx: &Ctx,
        list: &FileList,
        want: Want,
        empty_is_error: bool,
    ) -> Result<Option<Picked>> {
        let (stop, hurry) = ctx.flags();
        let age = self.age.as_deref();
        let give_up = || {
            stop.load(Ordering::Relaxed)
                || hurry.load(Ordering::Relaxed)
                || age.is_some_and(AgeCtl::is_done)
        };
        match list.pick(&mut self.rng, want, &give_up) {
            Pick::Got(p) => Ok(Some(p)),
            Pick::Skip => Ok(None),
            Pick::Empty if empty_is_error => Err(anyhow!(
                "No more files to operate on in {}, try making more initial files or fewer delete operations",
                list.base().display()
            )),
            Pick::Empty => Ok(None),
        }
    }

    /// Pick a file, run `body` on it (its path in `self.path`), let it go,
    /// count the operation.
    fn on_file(
        &mut self,
        tx: &mut Tx,
        list: &FileList,
        want: Want,
        op: Op,
        body: impl FnOnce(&mut Self, &mut Tx, &Picked) -> Result<Done>,
    ) -> Result<()> {
        let Some(p) = self.pick(tx.ctx, list, want, true)? else {
            return Ok(());
        };
        list.path(&mut self.path, &p, 0);
        let r = body(self, tx, &p);
        match want {
            Want::Read => list.release_read(p.idx),
            Want::Write => list.release_write(p.idx),
            Want::Delete | Want::Remove => list.removed(p.idx),
        }
        self.count(op, r?);
        Ok(())
    }

    fn count(&mut self, op: Op, d: Done) {
        let t = &mut self.ops[op.index()];
        t.transactions += d.calls;
        t.invocations += 1;
        if matches!(op, Op::Read | Op::ReadAll) {
            t.read_bytes += d.bytes;
        } else {
            t.write_bytes += d.bytes;
            self.written += d.bytes;
        }
        t.latency.record(d.lat_ns, d.bytes);
    }

    #[inline]
    fn call(&mut self, s: Syscall, ns: u64) {
        if let Some(c) = self.calls[s as usize].as_mut() {
            c.record(ns, &self.ranges_ns);
        }
    }

    fn path(&self) -> &Path {
        Path::new(OsStr::from_bytes(&self.path))
    }

    /// A random offset in `[0, range)`, on a 4 KiB boundary when aligned.
    #[inline]
    fn offset(&mut self, range: u64) -> u64 {
        if self.aligned {
            self.rng.below64(range / 4096) * 4096
        } else {
            self.rng.below64(range)
        }
    }

    #[cold]
    fn failed(&self, what: &str, e: &std::io::Error, name_path: bool) -> anyhow::Error {
        let full = matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT));
        let space = if full { "out of space: " } else { "" };
        if name_path {
            anyhow!("{space}{what} {}: {}", self.path().display(), io_reason(e))
        } else {
            anyhow!("{space}{what}: {}", io_reason(e))
        }
    }

    /// Open `self.path` through the engine; the open is timed from the
    /// returned instant, which starts the operation's latency.
    fn open(&mut self, tx: &mut Tx, how: OpenHow, create: bool) -> Result<(FileId, u64)> {
        let t = now_ns();
        let r = tx.io.open(Path::new(OsStr::from_bytes(&self.path)), how);
        let done = now_ns();
        match r {
            Ok(fid) => {
                let (kind, sys) = if create {
                    (OpKind::Create, Syscall::Create)
                } else {
                    (OpKind::Open, Syscall::Open)
                };
                tx.ctx.record_op(kind, done - t, 0, done);
                self.call(sys, done - t);
                Ok((fid, t))
            }
            Err(e) => Err(self.failed("open", &e, false)),
        }
    }

    /// Close; returns when it ended.
    fn close(&mut self, tx: &mut Tx, fid: FileId) -> Result<u64> {
        let t = now_ns();
        let r = tx.io.close(fid);
        let done = now_ns();
        r.map_err(|e| self.failed("close", &e, true))?;
        tx.ctx.record_op(OpKind::Close, done - t, 0, done);
        self.call(Syscall::Close, done - t);
        Ok(done)
    }

    /// One read or write call; a short write is an error (out of space).
    #[inline]
    fn io(&mut self, tx: &mut Tx, fid: FileId, kind: OpKind, off: u64, len: u64) -> Result<u64> {
        let req = Req {
            kind,
            file: fid,
            offset: off,
            len: len as u32,
            slot: 0,
        };
        let c = match tx.io.exec(req) {
            Ok(c) => c,
            Err(e) => return Err(self.failed(kind.name(), &e, true)),
        };
        tx.ctx.record(&c);
        let sys = if kind == OpKind::Read {
            Syscall::Read
        } else {
            Syscall::Write
        };
        self.call(sys, c.lat_ns);
        if kind != OpKind::Read && c.bytes < len {
            return Err(anyhow!(
                "out of space: wrote {} of {len} bytes to {}",
                c.bytes,
                self.path().display()
            ));
        }
        Ok(c.bytes)
    }

    /// The calls of `plan`: (calls, bytes).
    fn transfer(
        &mut self,
        tx: &mut Tx,
        fid: FileId,
        kind: OpKind,
        plan: Plan,
    ) -> Result<(u64, u64)> {
        let (mut calls, mut bytes) = (0, 0);
        match plan {
            Plan::Seq { start, len, bs } => {
                let (mut off, mut left) = (start, len);
                while left > 0 {
                    let n = left.min(bs);
                    let got = self.io(tx, fid, kind, off, n)?;
                    calls += 1;
                    bytes += got;
                    if got < n {
                        break; // end of file
                    }
                    off += n;
                    left -= n;
                }
            }
            Plan::Random { n, range, bs } => {
                for _ in 0..n {
                    let off = self.offset(range);
                    bytes += self.io(tx, fid, kind, off, bs)?;
                    calls += 1;
                }
            }
            Plan::Skip { n, bs, skip, last } => {
                let mut off = 0;
                for _ in 0..n {
                    bytes += self.io(tx, fid, kind, off, bs)?;
                    calls += 1;
                    off += bs + skip;
                }
                if last > 0 {
                    bytes += self.io(tx, fid, kind, off, last)?;
                    calls += 1;
                }
            }
        }
        Ok((calls, bytes))
    }

    /// Open, do `plan`, fsync if asked, close.
    fn whole(
        &mut self,
        tx: &mut Tx,
        how: OpenHow,
        kind: OpKind,
        plan: Plan,
        fsync: bool,
        create: bool,
    ) -> Result<Done> {
        let (fid, t0) = self.open(tx, how, create)?;
        let r = self.transfer(tx, fid, kind, plan).and_then(|d| {
            if fsync {
                let c = tx
                    .io
                    .exec(Req::fsync(fid))
                    .map_err(|e| self.failed("fsync", &e, true))?;
                tx.ctx.record(&c);
            }
            Ok(d)
        });
        let end = self.close(tx, fid);
        let (calls, bytes) = r?;
        Ok(Done {
            lat_ns: end? - t0,
            calls,
            bytes,
        })
    }

    fn rbs(&self) -> u64 {
        u64::from(self.tg.read_blocksize).max(1)
    }

    fn wbs(&self) -> u64 {
        u64::from(self.tg.write_blocksize).max(1)
    }

    /// `size` bytes of a file of `file` bytes in blocks of `bs`: from a
    /// random start, or (`random`) `size / bs` blocks at random offsets.
    fn span(&mut self, random: bool, size: u64, bs: u64, file: u64) -> Plan {
        if random {
            return Plan::Random {
                n: size / bs,
                range: file.saturating_sub(bs),
                bs,
            };
        }
        let len = size.min(file);
        let range = file - len;
        let start = if range > 0 { self.offset(range) } else { 0 };
        Plan::Seq { start, len, bs }
    }

    /// read: `read_size` from a random start; or `read_size /
    /// read_blocksize` blocks at random offsets (`read_random`); or blocks
    /// from 0 with `read_skipsize` gaps (`read_skip`).
    fn read(&mut self, tx: &mut Tx, list: &FileList) -> Result<()> {
        self.on_file(tx, list, Want::Read, Op::Read, |t, tx, p| {
            let (bs, size, random) = (t.rbs(), t.tg.read_size, t.tg.read_random);
            let plan = if t.tg.read_skip && !random {
                Plan::Skip {
                    n: size / bs,
                    bs,
                    skip: u64::from(t.tg.read_skipsize),
                    last: size % bs,
                }
            } else {
                t.span(random, size, bs, p.size)
            };
            t.whole(tx, OpenHow::READ, OpKind::Read, plan, false, false)
        })
    }

    /// readall: the whole file in `read_blocksize` reads.
    fn read_all(&mut self, tx: &mut Tx, list: &FileList) -> Result<()> {
        self.on_file(tx, list, Want::Read, Op::ReadAll, |t, tx, p| {
            let plan = Plan::Seq {
                start: 0,
                len: p.size,
                bs: t.rbs(),
            };
            t.whole(tx, OpenHow::READ, OpKind::Read, plan, false, false)
        })
    }

    /// write(_fsync): O_WRONLY, `write_size` from a random start, or
    /// `write_size / write_blocksize` blocks at random offsets.
    fn write(&mut self, tx: &mut Tx, list: &FileList, op: Op, fsync: bool) -> Result<()> {
        self.on_file(tx, list, Want::Read, op, |t, tx, p| {
            let bs = t.wbs();
            let plan = t.span(t.tg.write_random, t.tg.write_size, bs, p.size);
            t.whole(tx, WRITE_ONLY, OpKind::Write, plan, fsync, false)
        })
    }

    /// writeall(_fsync): the whole file in `write_blocksize` writes.
    fn write_all(&mut self, tx: &mut Tx, list: &FileList, op: Op, fsync: bool) -> Result<()> {
        self.on_file(tx, list, Want::Read, op, |t, tx, p| {
            let plan = Plan::Seq {
                start: 0,
                len: p.size,
                bs: t.wbs(),
            };
            t.whole(tx, WRITE_ONLY, OpKind::Write, plan, fsync, false)
        })
    }

    /// append(_fsync): O_WRONLY|O_APPEND, `write_size` in
    /// `write_blocksize` writes (the kernel puts them at the end).
    fn append(&mut self, tx: &mut Tx, list: &FileList, op: Op, fsync: bool) -> Result<()> {
        self.on_file(tx, list, Want::Read, op, |t, tx, p| {
            let plan = Plan::Seq {
                start: 0,
                len: t.tg.write_size,
                bs: t.wbs(),
            };
            let d = t.whole(tx, APPEND, OpKind::Append, plan, fsync, false);
            if let Ok(d) = &d {
                list.grow(p.idx, d.bytes);
            }
            d
        })
    }

    /// create(_fsync): a new file (a hole's name first) of a size by the
    /// file system's rule, O_CREAT|O_RDWR|O_TRUNC, in `write_blocksize`
    /// writes. Others see it once it is written.
    fn create(
        &mut self,
        tx: &mut Tx,
        list: &FileList,
        sizes: &SizeRule,
        op: Op,
        fsync: bool,
    ) -> Result<()> {
        let size = sizes.draw(&mut self.rng);
        let p = list.add(&mut self.rng, size);
        list.path(&mut self.path, &p, 0);
        let plan = Plan::Seq {
            start: 0,
            len: size,
            bs: self.wbs(),
        };
        match self.whole(tx, OpenHow::CREATE, OpKind::Write, plan, fsync, true) {
            Ok(d) => {
                list.created(p.idx, d.bytes);
                self.count(op, d);
                Ok(())
            }
            Err(e) => {
                list.abandon(p.idx);
                Err(e)
            }
        }
    }

    /// delete: unlink a random file, never the last one (FFSB dies on an
    /// assertion there; iogauge does nothing and counts nothing).
    fn delete(&mut self, tx: &mut Tx, list: &FileList) -> Result<()> {
        self.on_file(tx, list, Want::Delete, Op::Delete, |t, tx, _| {
            t.path_call(tx, OpKind::Delete, Syscall::Unlink, "unlink", |p| {
                std::fs::remove_file(p)
            })
        })
    }

    /// stat: stat(2) a random file.
    fn stat(&mut self, tx: &mut Tx, list: &FileList) -> Result<()> {
        self.on_file(tx, list, Want::Read, Op::Stat, |t, tx, _| {
            t.path_call(tx, OpKind::Stat, Syscall::Stat, "stat", |p| {
                rustix::fs::stat(p).map(drop).map_err(Into::into)
            })
        })
    }

    /// One call on `self.path` (`what` in an error), timed and recorded as
    /// `kind` and `sys`: an operation of its own.
    fn path_call(
        &mut self,
        tx: &mut Tx,
        kind: OpKind,
        sys: Syscall,
        what: &str,
        call: impl FnOnce(&Path) -> std::io::Result<()>,
    ) -> Result<Done> {
        let t0 = now_ns();
        let r = call(self.path());
        let done = now_ns();
        r.map_err(|e| self.failed(what, &e, true))?;
        tx.ctx.record_op(kind, done - t0, 0, done);
        self.call(sys, done - t0);
        Ok(Done::call(done - t0))
    }

    /// open_close: open O_RDONLY (O_DIRECT with directio) and close.
    fn open_close(&mut self, tx: &mut Tx, list: &FileList) -> Result<()> {
        self.on_file(tx, list, Want::Read, Op::OpenClose, |t, tx, _| {
            let (fid, t0) = t.open(tx, OpenHow::READ, false)?;
            let end = t.close(tx, fid)?;
            Ok(Done::call(end - t0))
        })
    }

    /// mkdir(2) of `self.path`, timed and recorded as a mkdir.
    fn mkdir(&mut self, tx: &mut Tx) -> Result<()> {
        let t0 = now_ns();
        let r = std::fs::DirBuilder::new().mode(0o700).create(self.path());
        let done = now_ns();
        r.map_err(|e| self.failed("mkdir", &e, true))?;
        tx.ctx.record_op(OpKind::Mkdir, done - t0, 0, done);
        Ok(())
    }

    /// createdir: mkdir `data/datadir<k>`; later files may go there.
    fn create_dir(&mut self, tx: &mut Tx, data: &FileList) -> Result<()> {
        let k = data.reserve_dir();
        data.dir_path(&mut self.path, k);
        let t0 = now_ns();
        self.mkdir(tx)?;
        data.dir_ready(k);
        self.count(Op::CreateDir, Done::call(now_ns() - t0));
        Ok(())
    }

    /// metaop, in `meta/`: mkdir two new directories, rmdir a random one,
    /// rename a random one (its name gains an `a`).
    fn metaop(&mut self, tx: &mut Tx, meta: &FileList) -> Result<()> {
        let t0 = now_ns();
        for _ in 0..2 {
            let p = meta.add(&mut self.rng, 0);
            meta.path(&mut self.path, &p, 0);
            if let Err(e) = self.mkdir(tx) {
                meta.abandon(p.idx);
                return Err(e);
            }
            meta.created(p.idx, 0);
        }
        if let Some(p) = self.pick(tx.ctx, meta, Want::Remove, false)? {
            meta.path(&mut self.path, &p, 0);
            let t = now_ns();
            let r = std::fs::remove_dir(self.path());
            let done = now_ns();
            meta.removed(p.idx);
            r.map_err(|e| self.failed("rmdir", &e, true))?;
            tx.ctx.record_op(OpKind::Rmdir, done - t, 0, done);
        }
        if let Some(p) = self.pick(tx.ctx, meta, Want::Write, false)? {
            meta.path(&mut self.path, &p, 0);
            meta.path(&mut self.path2, &p, 1);
            let t = now_ns();
            let r = std::fs::rename(
                Path::new(OsStr::from_bytes(&self.path)),
                Path::new(OsStr::from_bytes(&self.path2)),
            );
            let done = now_ns();
            match r {
                Ok(()) => meta.renamed(p.idx),
                Err(e) => {
                    meta.release_write(p.idx);
                    return Err(self.failed("rename", &e, true));
                }
            }
            tx.ctx.record_op(OpKind::Rename, done - t, 0, done);
        }
        self.count(Op::MetaOp, Done::call(now_ns() - t0));
        Ok(())
    }

    /// The thread's counters as a group of one.
    fn result(&mut self) -> GroupResult {
        let mut g = GroupResult::new(1);
        g.ops = std::mem::take(&mut self.ops);
        for s in Syscall::ALL {
            if let Some(c) = self.calls[s as usize].take().filter(|c| c.calls > 0) {
                g.calls.insert(s, c);
            }
        }
        g
    }
}

/// O_WRONLY, no truncation (FFSB's write and writeall).
const WRITE_ONLY: OpenHow = OpenHow::WRITE_ONLY;

/// O_WRONLY|O_APPEND.
const APPEND: OpenHow = OpenHow {
    append: true,
    ..OpenHow::WRITE_ONLY
};

impl Worker for Thread {
    fn kinds(&self) -> &[OpKind] {
        &KINDS
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let Thread { engine, work } = self;
        engine.transact(ctx, work)
    }

    fn engine_mode(&self) -> Option<String> {
        self.engine.mode()
    }

    fn finish(&mut self) -> serde_json::Value {
        let end = match &self.work.age {
            Some(age) => serde_json::to_value(age.end()),
            None => serde_json::to_value(self.work.result()),
        };
        end.unwrap_or_default()
    }
}
