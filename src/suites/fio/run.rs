//! Running a [`Plan`]: the files made (untimed), then each stage's jobs
//! as workers of one run of iogauge's runner, each with its own engine,
//! request stream ([`FioSource`]) and pace. What a stage measured comes
//! back as the runner's [`Outcome`] with each job's own span and CPU.

use super::job::ExitWhat;
use super::job::{Fallocate, RwKind};
use super::plan::{BsDraw, Exit, JobPlan, MinRate, Origin, Plan, Think};
use crate::engine::{FileId, OpenHow, Req};
use crate::measure::clock::now_ns;
use crate::measure::{CpuTimes, OpKind};
use crate::runner::{self, Ctx, Io, Outcome, Pace, Progress, Source, StopRule, Worker};
use crate::workload::dist::{self, Dist, Sampler};
use crate::workload::{Prng, below, worker_rng};
use anyhow::{Context, Result};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// fio's random map: one bit per block of the smallest request size. A
/// random request starts at a block drawn uniformly, or, when that one was
/// done this pass, at the next block not done (wrapping around), and is
/// cut short at the first block already done after it; when every block is
/// done, the pass is over.
#[derive(Clone, Debug)]
pub struct RandMap {
    bits: Vec<u64>,
    n: u64,
    used: u64,
}

impl RandMap {
    pub fn new(n: u64) -> RandMap {
        let n = n.max(1);
        RandMap {
            bits: vec![0; n.div_ceil(64) as usize],
            n,
            used: 0,
        }
    }

    #[inline]
    fn is_set(&self, b: u64) -> bool {
        self.bits[(b / 64) as usize] & (1 << (b % 64)) != 0
    }

    /// The first block not done at or after `b`, wrapping around.
    fn next_free(&self, b: u64) -> Option<u64> {
        let words = self.bits.len() as u64;
        let (w0, bit0) = (b / 64, b % 64);
        for k in 0..=words {
            let w = (w0 + k) % words;
            let mut free = !self.bits[w as usize];
            if k == 0 {
                free &= !0u64 << bit0;
            }
            if w == words - 1 && !self.n.is_multiple_of(64) {
                free &= (1u64 << (self.n % 64)) - 1;
            }
            if free != 0 {
                return Some(w * 64 + u64::from(free.trailing_zeros()));
            }
        }
        None
    }

    /// A block to start at; `None` when the pass is over.
    #[inline]
    pub fn pick(&mut self, rng: &mut Prng) -> Option<u64> {
        if self.used >= self.n {
            return None;
        }
        let b = below(rng, self.n);
        if self.is_set(b) {
            self.next_free(b)
        } else {
            Some(b)
        }
    }

    /// Mark up to `nr` blocks from `b` done, stopping at one done already
    /// (or the end); how many were marked.
    #[inline]
    pub fn mark(&mut self, b: u64, nr: u64) -> u64 {
        let mut k = 0;
        while k < nr && b + k < self.n && !self.is_set(b + k) {
            let x = b + k;
            self.bits[(x / 64) as usize] |= 1 << (x % 64);
            k += 1;
        }
        self.used += k;
        k
    }

    pub fn reset(&mut self) {
        self.bits.fill(0);
        self.used = 0;
    }
}

/// A job's state in one of its files.
#[derive(Debug)]
struct FileState {
    id: FileId,
    start: u64,
    len: u64,
    /// Next sequential offset per direction (in the region).
    pos: [u64; 3],
    map: Option<RandMap>,
    sampler: Option<(Sampler, u64)>,
    /// `rw=rand…:N`: sequential requests left before a new random offset,
    /// and where the next one starts.
    seq_left: u32,
    seq_next: u64,
    /// A descriptor to drop the region's pages by (buffered jobs only).
    cache: Option<std::fs::File>,
    /// Backwards: fio's `last_pos` per direction (the end of the last
    /// request, in the file), and the file's size.
    last: [u64; 3],
    real: u64,
    /// trimwrite: the trim just issued (offset in the region, length),
    /// whose blocks the next write of this file covers.
    trimmed: Option<(u64, u64)>,
    /// Done for this pass: its next sequential request did not fit in
    /// its region (fio's file done).
    done: bool,
}

/// fio's `get_next_seq_offset` with a negative skip of `back` bytes:
/// the next offset in the file (not the region) after the request that
/// ended at `last`, in the region that starts at `start`, `io_size` long,
/// of a file of `real` bytes; `None` where fio finds no next offset (the
/// job's end). The first request is at the region's start; the next one
/// wraps to its end, less the skip, and each goes down from there.
/// `reset`: fio's time-based rewind of a job with one file. fio's own
/// arithmetic is kept, unsigned wrap and all: with an offset, the wrap
/// lands `start` bytes higher than the region's end less the skip.
pub fn back_step(
    last: &mut u64,
    start: u64,
    io_size: u64,
    real: u64,
    back: u64,
    reset: bool,
) -> Option<u64> {
    if reset && *last >= io_size.saturating_add(start) {
        *last = start;
    }
    if *last >= real {
        return None;
    }
    let end = io_size.min(real);
    if *last == start && start != 0 {
        *last = end;
    }
    let mut pos = last.wrapping_sub(start);
    if pos != 0 {
        pos = pos.wrapping_sub(back);
        if pos >= real {
            pos = end.wrapping_sub(back);
        }
    }
    let abs = pos.wrapping_add(start);
    (abs < real).then_some(abs)
}

/// A job's think times as fio's `handle_thinktime` takes them: after
/// every `blocks` blocks (issued, or completed) or once `iotime` passed,
/// the queue drains and the job spins, then sleeps, the think time.
#[derive(Clone, Debug)]
pub struct Thinker {
    spec: Think,
    issued: u64,
    completed: u64,
    /// The block count at the last think.
    last_blocks: u64,
    /// When the last think ended (clock ns).
    last_at: u64,
    /// A think is due; the count it was decided at.
    due: Option<u64>,
}

impl Thinker {
    pub fn new(spec: Think) -> Thinker {
        Thinker {
            spec,
            issued: 0,
            completed: 0,
            last_blocks: 0,
            last_at: now_ns(),
            due: None,
        }
    }

    /// Whether the job thinks before its next request (fio asks after
    /// each request it issued: the same point).
    #[inline]
    fn check(&mut self) -> bool {
        let mut stall = false;
        if self.spec.iotime_ns != 0 {
            if now_ns().saturating_sub(self.last_at) >= self.spec.iotime_ns {
                stall = true;
            } else if self.spec.blocks == 0 {
                return false;
            }
        }
        let b = if self.spec.issue {
            self.issued
        } else {
            self.completed
        };
        if self.spec.blocks != 0 && b >= self.last_blocks + self.spec.blocks {
            stall = true;
        }
        if stall {
            self.due = Some(b);
        }
        stall
    }

    /// Think now, nothing in flight: spin `spin`, sleep the rest of the
    /// think time, ending at `end` (clock ns) or at the run's stop.
    pub fn think(&mut self, ctx: &Ctx, end: u64) {
        let Some(b) = self.due.take() else {
            return;
        };
        let t = now_ns();
        let spin_to = t.saturating_add(self.spec.spin_ns).min(end);
        while now_ns() < spin_to && !ctx.stopped() {
            std::hint::spin_loop();
        }
        let spun = now_ns().saturating_sub(t);
        let left = self.spec.total_ns.saturating_sub(spun);
        if left > 0 && !ctx.stopped() {
            ctx.sleep_until(now_ns().saturating_add(left).min(end));
        }
        self.last_blocks = b;
        self.last_at = now_ns();
    }
}

/// The requests of one fio job, as fio's `get_next_offset`,
/// `get_next_buflen` and `get_rw_ddir` make them.
pub struct FioSource {
    rng: Prng,
    files: Vec<FileState>,
    next_file: usize,
    kind: RwKind,
    random: bool,
    /// Percent of mixed requests that read.
    rwmixread: u64,
    bs: [BsDraw; 3],
    /// Alignment of random offsets per direction (`ba`, by default the
    /// smallest block).
    ba: [u64; 3],
    /// The smallest block per direction.
    min_bs: [u64; 3],
    /// The random map's block (the smallest request of any direction).
    unit: u64,
    seq_nr: u32,
    seq_add: u64,
    /// A negative skip's size (fio's negative `ddir_seq_add`); 0: forwards.
    back: u64,
    time_based: bool,
    /// trimwrite / randtrimwrite: each trim followed by a write of its
    /// blocks.
    trimwrite: bool,
    /// Think times, when the job has them.
    pub think: Option<Thinker>,
    /// Bytes left to issue (counted after the ramp; fio's issue limit,
    /// `loops` times `io_size` or `size`); `None`: time-based. A request
    /// is never cut to it: the last may go past it, as in fio.
    left: Option<u64>,
    /// The job's bytes: `left` at the start.
    budget: u64,
    /// fio's `loops`: passes made whatever they move, and passes made.
    loops: u32,
    passes: u32,
    /// The bytes of one loop (`io_size`, or `size`): past `loops` passes,
    /// another is made while fewer were issued, by a block at least.
    loop_bytes: u64,
    /// The largest request.
    max_bs: u64,
    /// The job has `io_size`: passes go on after its files are done.
    io_size: bool,
    /// Bytes of one pass over the regions, and what is left of this one:
    /// at its end fio closes and opens the files again, which drops their
    /// pages (buffered) and clears the random maps.
    pass: u64,
    pass_left: u64,
    /// The job's own end (clock ns), when the stage's is later.
    pub deadline: Option<u64>,
    /// The bytes count from here on (clock ns, the end of the ramp).
    counting_from: u64,
    counting: bool,
    sync_every: Option<u64>,
    writes: u64,
    owed: Option<Req>,
    /// End at the end of each pass (a verified job verifies then).
    pub stop_at_pass_end: bool,
    /// What its writes carry (fio's buffer options; suites::fio::buffers).
    fill: super::buffers::Fill,
    /// Its group's end under `exitall` (the flags, its group's index).
    halt: Option<(Arc<Halt>, usize)>,
    /// The least rates it must keep.
    min_rate: Option<Box<RateCheck>>,
}

impl FioSource {
    pub fn new(p: &JobPlan, plan: &Plan, ids: &[FileId]) -> Result<FioSource, String> {
        let mut rng = worker_rng(p.seed, p.index);
        // fio's `ba`, by default the direction's smallest block
        let align = [p.job.ba.read, p.job.ba.write, p.job.ba.trim];
        let ba = [0, 1, 2].map(|d| match align[d] {
            0 => p.bs[d].min().max(1),
            a => a,
        });
        let random = p.job.rw.kind.is_random();
        let dirs = p.dirs();
        let unit = (0..3)
            .filter(|&d| dirs[d])
            .map(|d| ba[d])
            .min()
            .unwrap_or(ba[0]);
        let mut files = Vec::with_capacity(ids.len());
        for (r, &id) in p.regions.iter().zip(ids) {
            let map = (random && p.random_map).then(|| RandMap::new(r.len / unit));
            let sampler = match (&p.dist, random) {
                (Dist::Random, _) | (_, false) => None,
                (d, true) => {
                    let n = (r.len / unit).max(1);
                    Some((Sampler::new(d, n, unit, &mut rng)?, unit))
                }
            };
            let f = &plan.files[r.file];
            // fio drops a buffered file's pages at each new pass
            let cache =
                if p.engine.direct || !p.job.invalidate || matches!(f.origin, Origin::Device(_)) {
                    None
                } else {
                    std::fs::File::open(&f.path).ok()
                };
            files.push(FileState {
                id,
                start: r.start,
                len: r.len,
                pos: [0; 3],
                map,
                sampler,
                seq_left: 0,
                seq_next: 0,
                cache,
                last: [r.start; 3],
                real: f.size,
                trimmed: None,
                done: false,
            });
        }
        let trimwrite = matches!(p.job.rw.kind, RwKind::TrimWrite | RwKind::RandTrimWrite);
        // a trimwrite pass trims every byte and writes it
        let pass: u64 =
            p.regions.iter().map(|r| r.len).sum::<u64>() * if trimwrite { 2 } else { 1 };
        Ok(FioSource {
            rng,
            files,
            next_file: 0,
            kind: p.job.rw.kind,
            random,
            rwmixread: u64::from(p.job.rwmixread),
            bs: p.bs.clone(),
            ba,
            min_bs: [0, 1, 2].map(|d| p.bs[d].min().max(1)),
            unit,
            seq_nr: p.job.rw.seq_nr.max(1),
            seq_add: u64::try_from(p.job.rw.seq_add).unwrap_or(0),
            back: if p.job.rw.seq_add < 0 {
                p.job.rw.seq_add.unsigned_abs()
            } else {
                0
            },
            time_based: p.budget.is_none(),
            trimwrite,
            think: p.think.map(Thinker::new),
            left: p.budget,
            budget: p.budget.unwrap_or(0),
            loops: p.job.loops.max(1),
            passes: 0,
            loop_bytes: p.budget.unwrap_or(0) / u64::from(p.job.loops.max(1)),
            max_bs: p.max_len(),
            io_size: p.job.io_size.is_some(),
            pass,
            pass_left: pass,
            deadline: None,
            counting_from: 0,
            counting: true,
            sync_every: p.sync_every,
            writes: 0,
            owed: None,
            stop_at_pass_end: false,
            fill: super::buffers::Fill::new(p),
            halt: None,
            min_rate: p.min_rate.map(|m| Box::new(RateCheck::new(m, &p.job.name))),
        })
    }

    /// Start the next pass (after a verify phase).
    pub fn begin_pass(&mut self) {
        self.new_pass();
    }

    /// Whether the job moved all its bytes.
    pub fn budget_done(&self) -> bool {
        self.left == Some(0)
    }

    /// Whether the job's own runtime is over.
    pub fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| now_ns() >= d)
    }

    /// Bytes count once the clock passes `t0` (the end of the ramp).
    pub fn count_from(&mut self, t0: u64) {
        self.counting_from = t0;
        self.counting = now_ns() >= t0;
        if let Some(m) = self.min_rate.as_mut() {
            m.start_ns = t0;
        }
        if let Some(t) = self.think.as_mut() {
            t.last_at = now_ns();
        }
    }

    /// Whether the source stopped for a think time (not at its end).
    pub fn thinking(&self) -> bool {
        self.think.as_ref().is_some_and(|t| t.due.is_some())
    }

    /// A sequential offset in file `fi` (in its region) for a request of
    /// direction `d`, `len` long; `None`: fio's end of the file.
    #[inline]
    fn seq_offset(&mut self, fi: usize, d: usize, len: u64) -> Option<u64> {
        let one = self.files.len() == 1;
        let f = &mut self.files[fi];
        if self.back != 0 {
            let abs = back_step(
                &mut f.last[d],
                f.start,
                f.len,
                f.real,
                self.back,
                self.time_based && one,
            )?;
            f.last[d] = abs + len;
            return Some(abs - f.start);
        }
        let mut off = f.pos[d];
        if off + len > f.len {
            off = 0;
        }
        f.pos[d] = off + len + self.seq_add;
        Some(off)
    }

    #[inline]
    fn direction(&mut self) -> usize {
        match self.kind {
            RwKind::Read | RwKind::RandRead => 0,
            RwKind::Write | RwKind::RandWrite => 1,
            // the trim before each write: see `next`
            RwKind::TrimWrite | RwKind::RandTrimWrite => 2,
            RwKind::Trim | RwKind::RandTrim => 2,
            RwKind::ReadWrite | RwKind::RandRw => {
                if below(&mut self.rng, 100) < self.rwmixread {
                    0
                } else {
                    1
                }
            }
        }
    }

    /// The end of a pass: start the next one as fio's new loop does, its
    /// files' pages dropped, its maps and positions cleared.
    #[cold]
    fn new_pass(&mut self) {
        for f in &mut self.files {
            if let Some(c) = &f.cache {
                // SAFETY: advice on an open descriptor; a failure leaves
                // the pages cached, nothing else.
                unsafe {
                    libc::posix_fadvise(
                        c.as_raw_fd(),
                        f.start as libc::off_t,
                        f.len as libc::off_t,
                        libc::POSIX_FADV_DONTNEED,
                    );
                }
            }
            if let Some(m) = f.map.as_mut() {
                m.reset();
            }
            f.pos = [0; 3];
            f.seq_left = 0;
            f.done = false;
        }
        self.next_file = 0;
        self.pass_left = self.pass;
    }

    /// The end of a pass: whether the job goes on (a new pass begun) or
    /// ends, as fio's `keep_running`: `loops` passes whatever they moved
    /// (while bytes are left to issue), then more while fewer than a
    /// loop's bytes were issued, by a block at least, unless the pass
    /// ended with its files done (no block left in them) and the job has
    /// no `io_size`. A verified job stops at each pass end; when it should
    /// not go on, its budget is spent.
    #[cold]
    fn pass_over(&mut self, files_done: bool) -> bool {
        let go = match self.left {
            None => true,
            Some(left) => {
                self.passes += 1;
                let issued = self.budget - left;
                if self.passes < self.loops {
                    left > 0
                } else {
                    issued < self.loop_bytes
                        && self.loop_bytes - issued >= self.max_bs
                        && (self.io_size || !files_done)
                }
            }
        };
        if self.stop_at_pass_end {
            self.pass_left = 0;
            if !go {
                self.left = Some(0);
            }
            return false;
        }
        if go {
            self.new_pass();
        }
        go
    }

    /// A random offset in file `fi` for a request of direction `d`, and
    /// its length (cut short by the random map); `None`: the map is full.
    #[inline]
    fn random_offset(&mut self, fi: usize, d: usize, len: u64) -> Option<(u64, u64)> {
        let f = &mut self.files[fi];
        let ba = self.ba[d];
        let room = f.len - len;
        if let Some(map) = f.map.as_mut() {
            let b = map.pick(&mut self.rng)?;
            let off = b * self.unit;
            let len = len.min(f.len - off);
            let marked = map.mark(b, len.div_ceil(self.unit));
            return Some((off, len.min(marked * self.unit)));
        }
        let off = if let Some((s, unit)) = f.sampler.as_mut() {
            let dir = match d {
                0 => dist::Dir::Read,
                1 => dist::Dir::Write,
                _ => dist::Dir::Trim,
            };
            s.next(&mut self.rng, dir) * *unit
        } else {
            below(&mut self.rng, room / ba + 1) * ba
        };
        Some((if off > room { room / ba * ba } else { off }, len))
    }
}

impl Source for FioSource {
    /// fio scrambles or refills each write by default (buffers::Fill).
    const FILLS: bool = true;

    #[inline]
    fn fill(&mut self, req: &Req, buf: &mut [u8]) {
        self.fill.fill(req, buf);
    }

    #[inline]
    fn fills(&self) -> bool {
        self.fill.active()
    }

    #[inline]
    fn next(&mut self) -> Option<Req> {
        if let Some(d) = self.deadline
            && now_ns() >= d
        {
            return None;
        }
        if let Some((h, g)) = &self.halt
            && h.ended(*g)
        {
            return None;
        }
        if !self.counting && now_ns() >= self.counting_from {
            self.counting = true;
        }
        // fio thinks after a request, the last one too
        if let Some(t) = self.think.as_mut()
            && t.check()
        {
            return None;
        }
        if self.left == Some(0) {
            return None;
        }
        if self.pass_left == 0 && !self.pass_over(false) {
            return None;
        }
        // files take turns; a file done this pass is passed over
        let n = self.files.len();
        let mut fi = self.next_file;
        while self.files[fi].done {
            fi = if fi + 1 == n { 0 } else { fi + 1 };
        }
        self.next_file = if fi + 1 == n { 0 } else { fi + 1 };
        if self.trimwrite
            && let Some((off, len)) = self.files[fi].trimmed.take()
        {
            return self.trimmed_write(fi, off, len);
        }
        let d = self.direction();
        let mut len = self.bs[d].draw(&mut self.rng);
        len = len.min(self.files[fi].len);
        let off = if self.random {
            let f = &mut self.files[fi];
            if f.seq_left > 0 && f.seq_next + len <= f.len {
                f.seq_left -= 1;
                f.seq_next
            } else {
                f.seq_left = self.seq_nr - 1;
                match self.random_offset(fi, d, len) {
                    Some((off, l)) => {
                        len = l;
                        off
                    }
                    None => {
                        // this file's map is full: the pass is over
                        if !self.pass_over(true) {
                            return None;
                        }
                        return self.next();
                    }
                }
            }
        } else if self.back != 0 {
            self.seq_offset(fi, d, len)?
        } else {
            // as fio's get_next_buflen: a request that does not fit before
            // the region's end is drawn again while the smallest fits; when
            // none fits, the file is done for this pass
            let f = &mut self.files[fi];
            let mut off = f.pos[d];
            // fio wraps a skipping stream that passed the file's end
            if self.seq_add > 0 && off >= f.real {
                off = 0;
                f.pos[d] = 0;
            }
            if off + self.min_bs[d] > f.len {
                f.done = true;
                if self.files.iter().all(|f| f.done) && !self.pass_over(true) {
                    return None;
                }
                return self.next();
            }
            while off + len > f.len {
                len = self.bs[d].draw(&mut self.rng);
            }
            self.seq_offset(fi, d, len)?
        };
        Some(self.emit(fi, d, off, len))
    }

    #[inline]
    fn owed(&mut self) -> Option<Req> {
        self.owed.take()
    }

    #[inline]
    fn done(&mut self, c: &crate::engine::Completion) -> anyhow::Result<()> {
        if let Some(t) = self.think.as_mut()
            && c.req.kind != OpKind::Fsync
        {
            t.completed += 1;
        }
        if let Some(m) = self.min_rate.as_mut() {
            m.completed(c)?;
        }
        Ok(())
    }
}

impl FioSource {
    /// trimwrite: the write of the blocks file `fi`'s last trim covered
    /// (`off` in its region, `len` long), as fio's `get_next_block` and
    /// `get_next_buflen` give it.
    #[inline]
    fn trimmed_write(&mut self, fi: usize, off: u64, mut len: u64) -> Option<Req> {
        if let (Some(left), true) = (self.left, self.counting)
            && len > left
        {
            len = left;
        }
        Some(self.emit(fi, 1, off, len))
    }

    /// The request of direction `d` at `off` in file `fi`'s region, `len`
    /// long, counted.
    #[inline]
    fn emit(&mut self, fi: usize, d: usize, off: u64, len: u64) -> Req {
        let f = &mut self.files[fi];
        f.seq_next = off + len;
        if self.trimwrite && d == 2 {
            f.trimmed = Some((off, len));
        }
        if let Some(t) = self.think.as_mut() {
            t.issued += 1;
        }
        self.pass_left = self.pass_left.saturating_sub(len);
        if self.counting
            && let Some(left) = self.left.as_mut()
        {
            *left = left.saturating_sub(len);
        }
        let kind = match d {
            0 => OpKind::Read,
            1 => OpKind::Write,
            _ => OpKind::Trim,
        };
        if d == 1
            && let Some(n) = self.sync_every
        {
            self.writes += 1;
            if self.writes.is_multiple_of(n) {
                self.owed = Some(Req::fsync(f.id));
            }
        }
        Req {
            kind,
            file: f.id,
            offset: f.start + off,
            len: len as u32,
            slot: 0,
        }
    }
}

/// fio's `check_min_rate`: after a settling time of 2 s from the start
/// of its measured phase, every `rate_cycle` a job compares what each
/// direction moved since the last look against its least rate, and ends
/// in error (EIO) below it. A direction is looked at once it moved bytes.
#[derive(Clone, Debug)]
pub struct RateCheck {
    min: MinRate,
    name: String,
    /// The start of the job's measured phase (clock ns).
    start_ns: u64,
    bytes: [u64; 3],
    blocks: [u64; 3],
    last_bytes: [u64; 3],
    last_blocks: [u64; 3],
    last_ns: [u64; 3],
}

/// fio's settling time before the first look at the least rates.
const RATE_SETTLE_NS: u64 = 2_000_000_000;

impl RateCheck {
    pub fn new(min: MinRate, name: &str) -> RateCheck {
        RateCheck {
            min,
            name: name.to_string(),
            start_ns: 0,
            bytes: [0; 3],
            blocks: [0; 3],
            last_bytes: [0; 3],
            last_blocks: [0; 3],
            last_ns: [0; 3],
        }
    }

    /// A request completed; the error when a least rate is not met.
    pub fn completed(&mut self, c: &crate::engine::Completion) -> Result<()> {
        let d = match c.req.kind {
            OpKind::Read => 0,
            OpKind::Write => 1,
            OpKind::Trim => 2,
            _ => return Ok(()),
        };
        if c.done_ns < self.start_ns {
            return Ok(());
        }
        self.bytes[d] += c.bytes;
        self.blocks[d] += 1;
        for d in 0..3 {
            if self.bytes[d] > 0
                && let Some(why) = self.look(d, c.done_ns)
            {
                // fio says it as it happens (log_err), whatever else runs
                eprintln!("{why}");
                return Err(
                    anyhow::Error::new(std::io::Error::from_raw_os_error(libc::EIO)).context(why),
                );
            }
        }
        Ok(())
    }

    /// Direction `d` at clock `now`: fio's message when it fell below.
    fn look(&mut self, d: usize, now: u64) -> Option<String> {
        let (min_bytes, min_iops) = (self.min.bytes[d], self.min.iops[d]);
        if min_bytes == 0 && min_iops == 0 {
            return None;
        }
        if now.saturating_sub(self.start_ns) < RATE_SETTLE_NS {
            return None;
        }
        if self.last_bytes[d] != 0 || self.last_blocks[d] != 0 {
            // whole milliseconds, as fio's mtime_since
            let spent_ms = now.saturating_sub(self.last_ns[d]) / 1_000_000;
            if spent_ms == 0 || spent_ms * 1_000_000 < self.min.cycle_ns {
                return None;
            }
            if min_bytes != 0 {
                let rate = (self.bytes[d] - self.last_bytes[d]) * 1000 / spent_ms;
                if rate < min_bytes {
                    return Some(format!(
                        "{}: rate_min={min_bytes}B/s not met, got {rate}B/s",
                        self.name
                    ));
                }
            } else {
                let rate = (self.blocks[d] - self.last_blocks[d]) * 1000 / spent_ms;
                if rate < min_iops {
                    return Some(format!(
                        "{}: rate_iops_min={min_iops} not met, got {rate} IOPS",
                        self.name
                    ));
                }
            }
        }
        self.last_bytes[d] = self.bytes[d];
        self.last_blocks[d] = self.blocks[d];
        self.last_ns[d] = now;
        None
    }
}

/// The ends of a stage's reporting groups under fio's `exitall` (and
/// `exitall_on_error`): a job that ends sets its group's, or every
/// group's (`exit_what=stonewall`, `all`); a job whose group ended
/// issues nothing more (one relaxed load per request, only in a stage
/// where a job can end others).
#[derive(Debug)]
pub struct Halt {
    groups: Vec<u32>,
    ended: Vec<AtomicBool>,
    /// `exit_what=all` fired: the stages after this one never start.
    all: AtomicBool,
}

impl Halt {
    pub fn new(stage: &[JobPlan]) -> Halt {
        let mut groups: Vec<u32> = stage.iter().map(|p| p.job.group).collect();
        groups.sort_unstable();
        groups.dedup();
        Halt {
            ended: groups.iter().map(|_| AtomicBool::new(false)).collect(),
            groups,
            all: AtomicBool::new(false),
        }
    }

    /// The index of reporting group `g`.
    pub fn index(&self, g: u32) -> usize {
        self.groups.iter().position(|&x| x == g).unwrap_or(0)
    }

    #[inline]
    pub fn ended(&self, g: usize) -> bool {
        self.ended[g].load(Ordering::Relaxed)
    }

    /// A job of group `g` ended with `what`: whether every group of the
    /// stage has now ended.
    pub fn end(&self, what: ExitWhat, g: usize) -> bool {
        match what {
            ExitWhat::Group => self.ended[g].store(true, Ordering::Relaxed),
            ExitWhat::Stonewall | ExitWhat::All => {
                for e in &self.ended {
                    e.store(true, Ordering::Relaxed);
                }
                if what == ExitWhat::All {
                    self.all.store(true, Ordering::Relaxed);
                }
            }
        }
        self.ended.iter().all(|e| e.load(Ordering::Relaxed))
    }

    /// Whether a job ended every job of the run (`exit_what=all`).
    pub fn ended_all(&self) -> bool {
        self.all.load(Ordering::Relaxed)
    }
}

/// What a job's worker hands back beside its stats.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Span {
    /// Its measured phase: from the end of the ramp to its last request.
    pub runtime_ns: u64,
    /// Its own thread's CPU over the run.
    pub user_ns: u64,
    pub sys_ns: u64,
    /// Its thread's context switches and page faults over the run.
    #[serde(default)]
    pub ctx: u64,
    #[serde(default)]
    pub majf: u64,
    #[serde(default)]
    pub minf: u64,
    /// A verified job: its time in write passes, and in verify phases
    /// plus write passes when it reads there too (fio's write and read
    /// runtimes).
    #[serde(default)]
    pub phases: Option<(u64, u64)>,
}

/// One job's worker.
pub struct FioWorker {
    io: Io,
    src: FioSource,
    files: Vec<FileId>,
    kinds: Vec<OpKind>,
    end_fsync: bool,
    pace: Option<Pace>,
    /// Its own runtime, when the stage runs longer.
    own_runtime: Option<u64>,
    span: Span,
    /// fio's per-I/O logs the job asked for.
    log: Option<crate::runner::iolog::LogSpec>,
    /// Where it runs, when the job says.
    pin: Option<crate::runner::pin::Pinning>,
    /// `verify=`: its checked units and verify phase.
    verify: Option<Box<super::verify::Checker>>,
    max_len: usize,
    /// The job's own requests read (rw, randrw).
    reads: bool,
    /// How long after the stage's start it starts.
    start_delay: Duration,
    /// Its own request budget (`number_ios`).
    number_ios: Option<u64>,
    /// What its end ends beside it (`exitall`, `exitall_on_error`), and
    /// the stage's group ends with its group's index.
    exit: Option<Exit>,
    halt: Option<(Arc<Halt>, usize)>,
}

impl FioWorker {
    /// Job `p`'s worker, its files opened; `stage_runtime` is when the
    /// runner stops the stage (the job keeps its own end when earlier).
    /// `at` is its place in the stage (the runner's worker number).
    pub fn new(
        p: &JobPlan,
        plan: &Plan,
        stage_runtime: Option<u64>,
        at: usize,
    ) -> Result<FioWorker> {
        let max = p.max_len() as usize;
        let depth = p.engine.depth.max(1);
        let mut io = Io::new(&p.engine, depth, max, p.seed ^ p.index as u64)?;
        if let Some(low) = p.depth_low {
            io.drain_to(usize::from(low));
        }
        let dirs = p.dirs();
        let verify_only = p.verify.is_some_and(|v| v.only);
        let how = if (dirs[1] || dirs[2]) && !verify_only {
            OpenHow::READ_WRITE
        } else {
            OpenHow::READ
        };
        let mut ids = Vec::with_capacity(p.regions.len());
        for r in &p.regions {
            let path = &plan.files[r.file].path;
            ids.push(
                io.open(path, how)
                    .with_context(|| format!("cannot open {}", path.display()))?,
            );
        }
        let src = FioSource::new(p, plan, &ids).map_err(crate::error::UsageError::new)?;
        let mut kinds = Vec::new();
        for (d, k) in [OpKind::Read, OpKind::Write, OpKind::Trim]
            .into_iter()
            .enumerate()
        {
            // a verify phase reads
            if dirs[d] || (d == 0 && p.verify.is_some_and(|v| v.phase)) {
                kinds.push(k);
            }
        }
        if p.sync_every.is_some() || p.job.end_fsync {
            kinds.push(OpKind::Fsync);
        }
        let own = p.runtime.map(|r| r.as_nanos() as u64);
        Ok(FioWorker {
            io,
            src,
            files: ids.clone(),
            kinds,
            end_fsync: p.job.end_fsync,
            pace: p.pace,
            own_runtime: own.filter(|r| stage_runtime != Some(*r)),
            span: Span::default(),
            // fio numbers its jobs from 1, in the order they run
            log: p.job.log_spec(p.index as u32 + 1),
            // split counts the job's number, where the runner counts `at`
            pin: p.pin.map(|x| x.first_worker(p.index - at)),
            verify: p
                .verify
                .map(|v| Box::new(super::verify::Checker::new(p, plan, &ids, v))),
            max_len: max,
            reads: dirs[0],
            start_delay: Duration::ZERO,
            number_ios: p.number_ios,
            exit: p.exit,
            halt: None,
        })
    }

    /// Start `delay` after the stage (with a runtime of its own, then,
    /// from its start), and watch the stage's group ends `halt`, if any.
    pub fn control(&mut self, p: &JobPlan, delay: Duration, halt: Option<&Arc<Halt>>) {
        self.start_delay = delay;
        if !delay.is_zero() {
            self.own_runtime = p.runtime.map(|r| r.as_nanos() as u64);
        }
        if let Some(h) = halt {
            let g = h.index(p.job.group);
            self.halt = Some((Arc::clone(h), g));
            self.src.halt = Some((Arc::clone(h), g));
        }
    }

    /// This job ended (in error when `failed`): end the jobs its exit
    /// says, and the whole stage when none is left.
    fn ended(&self, ctx: &Ctx, failed: bool) {
        let (Some(e), Some((h, g))) = (self.exit, self.halt.as_ref()) else {
            return;
        };
        if (e.always || failed) && h.end(e.what, *g) {
            ctx.stop_run();
        }
    }
}

impl FioWorker {
    /// Drive the job's requests; with think times, the source stops at
    /// each think, the driver returns with nothing in flight (fio drains
    /// the queue before it thinks), the job thinks, and driving resumes.
    /// A think is no request's latency: none is in flight.
    fn drive_thinking(&mut self, ctx: &mut Ctx) -> Result<()> {
        loop {
            self.io.drive(ctx, &mut self.src)?;
            if !self.src.thinking() || ctx.stopped() || runner::signals::interrupted() {
                return Ok(());
            }
            let end = self.src.deadline.unwrap_or(u64::MAX);
            if let Some(t) = self.src.think.as_mut() {
                t.think(ctx, end);
            }
        }
    }
}

impl Worker for FioWorker {
    fn kinds(&self) -> &[OpKind] {
        &self.kinds
    }

    fn own_fd_table(&self) -> bool {
        true
    }

    fn engine_mode(&self) -> Option<String> {
        self.io.mode()
    }

    fn pace(&self) -> Option<Pace> {
        self.pace
    }

    fn io_log(&self, _index: usize) -> Option<crate::runner::iolog::LogSpec> {
        self.log.clone()
    }

    fn pinning(&self) -> Option<crate::runner::pin::Pinning> {
        self.pin
    }

    fn op_budget(&self) -> Option<u64> {
        self.number_ios
    }

    fn start_delay(&self) -> Duration {
        self.start_delay
    }

    fn error_stops_run(&self) -> bool {
        false
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        // its group ended before it started: it never starts (fio's
        // "killed by other thread")
        if let Some((h, g)) = &self.halt
            && h.ended(*g)
        {
            return Ok(());
        }
        let t0 = ctx.t0_ns();
        self.src.count_from(t0);
        self.src.deadline = self.own_runtime.map(|r| t0.saturating_add(r));
        let cpu = CpuTimes::thread();
        // a verified job's passes are driven by its verify phase (a think
        // time with verify is refused when planned)
        let r = match self.verify.as_deref_mut() {
            None => self.drive_thinking(ctx),
            Some(c) => {
                super::verify::run_job(&mut self.io, ctx, &mut self.src, c, t0, self.max_len)
            }
        };
        if r.is_ok() && self.end_fsync && !runner::signals::interrupted() {
            for &f in &self.files {
                let c = self.io.exec_named(Req::fsync(f))?;
                ctx.record(&c);
            }
        }
        let used = CpuTimes::thread().since(&cpu);
        self.span = Span {
            runtime_ns: now_ns().saturating_sub(t0),
            user_ns: used.user.as_nanos() as u64,
            sys_ns: used.sys.as_nanos() as u64,
            ctx: used.ctx_switches,
            majf: used.major_faults,
            minf: used.minor_faults,
            phases: self.verify.as_deref().filter(|c| c.spec.phase).map(|c| {
                let reads = if self.reads { c.write_ns } else { 0 };
                (c.write_ns, c.verify_ns + reads)
            }),
        };
        self.ended(ctx, r.is_err());
        r
    }

    fn finish(&mut self) -> serde_json::Value {
        let mut v = serde_json::to_value(self.span).unwrap_or(serde_json::Value::Null);
        if let (Some(c), Some(o)) = (self.verify.as_deref(), v.as_object_mut()) {
            o.insert(
                "verify".into(),
                serde_json::to_value(c.report()).unwrap_or_default(),
            );
        }
        v
    }
}

/// The files the run created, removed when it is dropped (unless kept).
pub struct Made {
    pub paths: Vec<PathBuf>,
    pub keep: bool,
}

impl Drop for Made {
    fn drop(&mut self) {
        if self.keep {
            return;
        }
        for p in &self.paths {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Make the files the plan creates: each made new (`O_EXCL`: never one
/// that appeared meanwhile), given its blocks as `fallocate` says, then
/// filled with data when a job reads it (or writes it with `overwrite`)
/// and fsynced (`create_fsync`), as fio lays out files. A file no job
/// fills is given its size without data. Untimed.
pub fn make_files(plan: &Plan, made: &mut Made, progress: &dyn Progress) -> Result<()> {
    let mut buf = vec![0u8; 1 << 20];
    for (n, f) in plan.files.iter().enumerate() {
        if !matches!(f.origin, Origin::Create) {
            continue;
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&f.path)
            .with_context(|| format!("cannot create {}", f.path.display()))?;
        made.paths.push(f.path.clone());
        allocate(&file, f.size, f.fallocate).with_context(|| {
            format!("cannot allocate {} bytes for {}", f.size, f.path.display())
        })?;
        file.set_len(f.size)
            .with_context(|| format!("cannot size {}", f.path.display()))?;
        if !f.fill {
            continue;
        }
        progress.status(&format!("laying out {}", f.path.display()));
        let mut left = f.size;
        let mut chunk = 0u64;
        while left > 0 {
            if runner::signals::interrupted() {
                return Ok(());
            }
            crate::data::fill_random(&mut buf, chunk ^ ((n as u64) << 40));
            chunk += 1;
            let k = left.min(buf.len() as u64) as usize;
            file.write_all(&buf[..k])
                .with_context(|| format!("cannot write {}", f.path.display()))?;
            left -= k as u64;
        }
        if f.create_fsync {
            file.sync_all()
                .with_context(|| format!("cannot fsync {}", f.path.display()))?;
        }
    }
    Ok(())
}

/// Give a new, empty file `size` bytes of blocks as fio's `fallocate`
/// mode does. `native` and `keep` on a file system without fallocate(2)
/// leave the file sparse, as fio does; running out of space is an error.
fn allocate(file: &std::fs::File, size: u64, mode: Fallocate) -> std::io::Result<()> {
    if size == 0 {
        return Ok(());
    }
    let len =
        libc::off_t::try_from(size).map_err(|_| std::io::Error::from_raw_os_error(libc::EFBIG))?;
    let fd = file.as_raw_fd();
    let r = match mode {
        Fallocate::None | Fallocate::Truncate => return Ok(()),
        // SAFETY: fallocate(2) on an open descriptor of ours.
        Fallocate::Native => unsafe { libc::fallocate(fd, 0, 0, len) },
        // SAFETY: as above.
        Fallocate::Keep => unsafe { libc::fallocate(fd, libc::FALLOC_FL_KEEP_SIZE, 0, len) },
        Fallocate::Posix => {
            // SAFETY: posix_fallocate(3) on an open descriptor of ours;
            // it returns the error number instead of setting errno.
            match unsafe { libc::posix_fallocate(fd, 0, len) } {
                0 => return Ok(()),
                e => return Err(std::io::Error::from_raw_os_error(e)),
            }
        }
    };
    if r == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EOPNOTSUPP | libc::ENOSYS) => Ok(()),
        _ => Err(e),
    }
}

/// Drop the regular files' pages from the page cache before a stage (fio's
/// `invalidate=1`, its default): buffered reads then start cold.
pub fn invalidate(plan: &Plan, stage: &[JobPlan]) {
    for p in stage.iter().filter(|p| p.job.invalidate) {
        for r in &p.regions {
            let f = &plan.files[r.file];
            if matches!(f.origin, Origin::Device(_)) {
                continue;
            }
            if let Ok(file) = std::fs::File::open(&f.path) {
                // SAFETY: posix_fadvise on an open descriptor only advises
                // the kernel; a failure changes nothing.
                unsafe {
                    libc::posix_fadvise(
                        file.as_raw_fd(),
                        r.start as libc::off_t,
                        r.len as libc::off_t,
                        libc::POSIX_FADV_DONTNEED,
                    );
                }
            }
        }
    }
}

/// What one stage measured.
pub struct StageOutcome {
    pub outcome: Outcome,
    /// Each job's span, in the stage's order.
    pub spans: Vec<Span>,
    /// The per-I/O logs its jobs kept, to be written after the last stage
    /// (a log file several jobs share holds each one's lines in turn).
    pub logs: Vec<crate::runner::iolog::IoLog>,
    /// What each verified job's verify found, in the stage's order.
    pub verify: Vec<Option<super::verify::JobVerify>>,
    /// What the steady-state detection found, when the stage asked for it.
    pub steady: Option<super::steady::SsReport>,
    /// A job ended every job of the run (`exitall` with
    /// `exit_what=all`): no later stage runs.
    pub ended_all: bool,
}

/// When the first stage of this process's run began (clock ns): fio
/// counts `startdelay` from its start of the run (its genesis), not from
/// the stage's, so a delayed job after a stonewall starts late only if
/// the stages before took less than its delay.
static GENESIS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

/// Each job's start after the stage's (`startdelay`, less what the run
/// already took), and the stage's runtime: the latest of each job's
/// delay plus runtime, when every job has a runtime.
fn schedule(stage: &[JobPlan], elapsed_ns: u64) -> (Vec<Duration>, Option<u64>) {
    let delays: Vec<Duration> = stage
        .iter()
        .map(|p| {
            let d = u64::try_from(p.start_delay.as_nanos()).unwrap_or(u64::MAX);
            Duration::from_nanos(d.saturating_sub(elapsed_ns))
        })
        .collect();
    let ends: Option<Vec<u64>> = stage
        .iter()
        .zip(&delays)
        .map(|(p, d)| {
            p.runtime
                .map(|r| (r.as_nanos() as u64).saturating_add(d.as_nanos() as u64))
        })
        .collect();
    (delays, ends.and_then(|e| e.into_iter().max()))
}

/// Run one stage's jobs together.
pub fn run_stage(plan: &Plan, stage: &[JobPlan], progress: &dyn Progress) -> Result<StageOutcome> {
    let now = now_ns();
    let genesis = *GENESIS.get_or_init(|| now);
    let (delays, stage_runtime) = schedule(stage, now.saturating_sub(genesis));
    let halt = stage
        .iter()
        .any(|p| p.exit.is_some())
        .then(|| Arc::new(Halt::new(stage)));
    let mut workers = Vec::with_capacity(stage.len());
    for (at, p) in stage.iter().enumerate() {
        let mut w = FioWorker::new(p, plan, stage_runtime, at)?;
        w.control(p, delays[at], halt.as_ref());
        workers.push(w);
    }
    invalidate(plan, stage);
    let ramp = stage[0].job.ramp_time_ns;
    let rule = StopRule {
        ops: None,
        duration: stage_runtime.map(std::time::Duration::from_nanos),
        ramp: (ramp != 0).then(|| std::time::Duration::from_nanos(ramp)),
        ..Default::default()
    };
    let steady = super::steady::stage_settings(stage)
        .map_err(crate::error::UsageError::new)?
        .map(super::steady::SsWatch::new);
    let outcome = match &steady {
        Some(w) => runner::run_with(rule, workers, progress, w),
        None => runner::run(rule, workers, progress),
    };
    let spans = outcome
        .extras
        .iter()
        .map(|v| serde_json::from_value(v.clone()).unwrap_or_default())
        .collect();
    let verify = outcome
        .extras
        .iter()
        .map(|v| {
            v.get("verify")
                .and_then(|x| serde_json::from_value(x.clone()).ok())
        })
        .collect();
    Ok(StageOutcome {
        steady: steady.map(|w| w.report(stage[0].job.kb_base)),
        ended_all: halt.as_ref().is_some_and(|h| h.ended_all()),
        verify,
        outcome,
        spans,
        logs: crate::runner::iolog::take(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_random_map_gives_every_block_once_per_pass() {
        let mut rng = worker_rng(7, 0);
        for n in [1u64, 2, 3, 5, 64, 65, 1000, 4097] {
            let mut m = RandMap::new(n);
            for _pass in 0..2 {
                let mut seen = vec![false; n as usize];
                while let Some(b) = m.pick(&mut rng) {
                    assert_eq!(m.mark(b, 1), 1);
                    assert!(!seen[b as usize], "n {n}: block {b} twice");
                    seen[b as usize] = true;
                }
                assert!(seen.iter().all(|s| *s), "n {n}: a block never given");
                m.reset();
            }
        }
    }

    /// A request longer than a block is cut at the first block done (fio's
    /// axmap_set_nr), and the search for a free block wraps around.
    #[test]
    fn the_random_map_cuts_requests_at_blocks_done() {
        let mut m = RandMap::new(130);
        assert_eq!(m.mark(10, 1), 1);
        assert_eq!(m.mark(5, 16), 5, "stops before block 10");
        assert_eq!(m.mark(128, 16), 2, "stops at the end");
        assert_eq!(m.next_free(5), Some(11));
        for b in 11..128 {
            m.mark(b, 1);
        }
        assert_eq!(m.next_free(100), Some(0), "wraps");
        for b in 0..5 {
            m.mark(b, 1);
        }
        assert_eq!(m.next_free(0), None);
        assert_eq!(m.pick(&mut worker_rng(1, 0)), None);
    }

    /// The offsets `back_step` gives, KiB, for requests of `len` KiB.
    fn backwards(start: u64, size: u64, real: u64, back: u64, len: u64, n: usize) -> Vec<u64> {
        let k = 1024;
        let mut last = start * k;
        let mut out = Vec::new();
        for _ in 0..n {
            match back_step(&mut last, start * k, size * k, real * k, back * k, false) {
                Some(off) => {
                    out.push(off / k);
                    last = off + len * k;
                }
                None => break,
            }
        }
        out
    }

    /// The offsets fio 3.33 gives (its write_iolog, ioengine=null) for a
    /// negative skip: the first request at the region's start, the next
    /// at its end less the skip, then down; with an offset, fio's wrap
    /// lands `offset` higher than the region's end less the skip.
    #[test]
    fn backwards_offsets_are_fios() {
        assert_eq!(
            backwards(0, 64, 64, 8, 4, 17),
            [
                0, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0, 56
            ]
        );
        assert_eq!(
            backwards(0, 64, 64, 12, 4, 9),
            [0, 52, 44, 36, 28, 20, 12, 4, 52]
        );
        assert_eq!(
            backwards(0, 32, 32, 16, 4, 6),
            [0, 16, 4, 16, 4, 16],
            "rw=read:-16k, size=32k"
        );
        assert_eq!(backwards(0, 64, 64, 4, 4, 3), [0, 0, 0], "skip = block");
        assert_eq!(backwards(0, 64, 64, 6, 4, 4), [0, 58, 56, 54]);
        // offset=16k size=32k in a 64 KiB file
        assert_eq!(
            backwards(16, 32, 64, 8, 4, 9),
            [24, 20, 16, 40, 36, 32, 28, 24, 20]
        );
        // bsrange 4k-8k: an 8 KiB request that ends at the file's end ends
        // the job (fio: 0/4, 24/8, then no offset)
        let mut last = 0;
        assert_eq!(
            back_step(&mut last, 0, 32 << 10, 32 << 10, 8 << 10, false),
            Some(0)
        );
        last = 4 << 10;
        assert_eq!(
            back_step(&mut last, 0, 32 << 10, 32 << 10, 8 << 10, false),
            Some(24 << 10)
        );
        last = 32 << 10;
        assert_eq!(
            back_step(&mut last, 0, 32 << 10, 32 << 10, 8 << 10, false),
            None
        );
        // time-based with one file: back to the start instead
        assert_eq!(
            back_step(&mut last, 0, 32 << 10, 32 << 10, 8 << 10, true),
            Some(0)
        );
    }

    /// With fio's map, bssplit=4k/50:16k/30:64k/20 gives a mean request
    /// near 11.7 KiB, not the split's 19.6 KiB (fio 3.33 measured 11,710 B
    /// on the null engine): larger requests are cut where the map is done.
    #[test]
    fn the_map_shortens_a_bssplit_as_fio() {
        let split = BsDraw::Split(vec![(65536, 20), (16384, 50), (4096, 100)]);
        let mut rng = worker_rng(3, 0);
        let (unit, n) = (4096u64, 262_144u64);
        let mut m = RandMap::new(n);
        let (mut bytes, mut ios) = (0u64, 0u64);
        while let Some(b) = m.pick(&mut rng) {
            let len = split.draw(&mut rng).min((n - b) * unit);
            let marked = m.mark(b, len.div_ceil(unit));
            bytes += len.min(marked * unit);
            ios += 1;
        }
        assert_eq!(bytes, n * unit, "every block once");
        let mean = bytes as f64 / ios as f64;
        assert!((11_000.0..12_500.0).contains(&mean), "mean {mean}");
    }

    fn completion(kind: OpKind, bytes: u64, done_ns: u64) -> crate::engine::Completion {
        crate::engine::Completion {
            req: Req {
                kind,
                file: FileId(0),
                offset: 0,
                len: bytes as u32,
                slot: 0,
            },
            bytes,
            lat_ns: 0,
            done_ns,
            sub_ns: crate::engine::SUB_NONE,
            err: 0,
        }
    }

    /// fio's check_min_rate: nothing for 2 s, then a first look that only
    /// notes the counts, then a rate over each cycle (whole ms).
    #[test]
    fn the_least_rate_is_checked_as_fio_checks_it() {
        let ms = 1_000_000u64;
        let min = MinRate {
            bytes: [0; 3],
            iops: [100, 0, 0],
            cycle_ns: 1000 * ms,
        };
        let mut c = RateCheck::new(min, "x");
        c.start_ns = 10 * ms;
        // 50 IOPS for 2.5 s: nothing until 2 s, the first look at 2 s
        // notes, the next one 1 s later fails
        let mut t = 10 * ms;
        let mut failed = None;
        for _ in 0..400 {
            t += 20 * ms;
            if let Err(e) = c.completed(&completion(OpKind::Read, 4096, t)) {
                failed = Some((t - 10 * ms, format!("{e:#}")));
                break;
            }
        }
        let (at, why) = failed.expect("fails");
        assert_eq!(at, 3000 * ms, "fails one cycle after the first look");
        assert!(
            why.starts_with("x: rate_iops_min=100 not met, got 50 IOPS"),
            "{why}"
        );
        // a direction without a least rate, and syncs, are never looked at
        let mut c = RateCheck::new(min, "x");
        for k in 1..400 {
            c.completed(&completion(OpKind::Write, 4096, k * 20 * ms))
                .unwrap();
            c.completed(&completion(OpKind::Fsync, 0, k * 20 * ms))
                .unwrap();
        }
        // bytes: 4 KiB every 10 ms is 409,600 B/s
        let min = MinRate {
            bytes: [0, 500_000, 0],
            iops: [0; 3],
            cycle_ns: 500 * ms,
        };
        let mut c = RateCheck::new(min, "w");
        let e = (1..1000)
            .find_map(|k| {
                c.completed(&completion(OpKind::Write, 4096, k * 10 * ms))
                    .err()
            })
            .expect("fails");
        assert!(
            format!("{e}").starts_with("w: rate_min=500000B/s not met, got 409600B/s"),
            "{e}"
        );
    }

    /// exit_what: a group ends its own group; stonewall and all end every
    /// group of the stage, and all the run.
    #[test]
    fn halting_ends_the_groups_exit_what_names() {
        let h = Halt {
            groups: vec![0, 3],
            ended: vec![AtomicBool::new(false), AtomicBool::new(false)],
            all: AtomicBool::new(false),
        };
        assert_eq!(h.index(3), 1);
        assert!(!h.end(ExitWhat::Group, 1), "group 0 runs on");
        assert!(h.ended(1) && !h.ended(0));
        assert!(h.end(ExitWhat::Group, 0));
        assert!(!h.ended_all());
        let h = Halt {
            groups: vec![0, 1],
            ended: vec![AtomicBool::new(false), AtomicBool::new(false)],
            all: AtomicBool::new(false),
        };
        assert!(h.end(ExitWhat::Stonewall, 0) && !h.ended_all());
        assert!(h.end(ExitWhat::All, 0) && h.ended_all());
    }
}
