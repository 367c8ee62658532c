//! Running a [`Plan`]: the files made (untimed), then each stage's jobs
//! as workers of one run of iogauge's runner, each with its own engine,
//! request stream ([`FioSource`]) and pace. What a stage measured comes
//! back as the runner's [`Outcome`] with each job's own span and CPU.

use super::job::RwKind;
use super::plan::{BsDraw, JobPlan, Origin, Plan};
use crate::engine::{FileId, OpenHow, Req};
use crate::measure::clock::now_ns;
use crate::measure::{CpuTimes, OpKind};
use crate::runner::{self, Ctx, Io, Outcome, Pace, Progress, Source, StopRule, Worker};
use crate::workload::dist::{self, Dist, Sampler};
use crate::workload::{Prng, below, worker_rng};
use anyhow::{Context, Result};
use rand_xoshiro::rand_core::Rng;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::PathBuf;

/// Every block of a region once, in a random order, pass after pass (fio's
/// random map): a keyed Feistel permutation of the next power of four at
/// or above the block count, walking past numbers outside it.
#[derive(Clone, Debug)]
pub struct Perm {
    n: u64,
    half: u32,
    keys: [u64; 4],
    i: u64,
}

impl Perm {
    pub fn new(n: u64, rng: &mut Prng) -> Perm {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half = bits.div_ceil(2).max(1);
        let mut p = Perm {
            n: n.max(1),
            half,
            keys: [0; 4],
            i: 0,
        };
        p.rekey(rng);
        p
    }

    fn rekey(&mut self, rng: &mut Prng) {
        for k in &mut self.keys {
            *k = rng.next_u64();
        }
        self.i = 0;
    }

    #[inline]
    fn permute(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half) - 1;
        let (mut l, mut r) = (x >> self.half, x & mask);
        for k in self.keys {
            let mut f = r.wrapping_add(k).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            f ^= f >> 29;
            f = f.wrapping_mul(0xbf58_476d_1ce4_e5b9);
            f ^= f >> 32;
            (l, r) = (r, l ^ (f & mask));
        }
        (l << self.half) | r
    }

    /// The next block; after every block was given once, a new order.
    #[inline]
    pub fn next(&mut self, rng: &mut Prng) -> u64 {
        let domain = 1u64 << (2 * self.half);
        loop {
            if self.i >= domain {
                self.rekey(rng);
            }
            let y = self.permute(self.i);
            self.i += 1;
            if y < self.n {
                return y;
            }
        }
    }
}

/// A job's state in one of its files.
#[derive(Clone, Debug)]
struct FileState {
    id: FileId,
    start: u64,
    len: u64,
    /// Next sequential offset per direction (in the region).
    pos: [u64; 3],
    perm: Option<(Perm, u64)>,
    sampler: Option<(Sampler, u64)>,
    /// `rw=rand…:N`: sequential requests left before a new random offset,
    /// and where the next one starts.
    seq_left: u32,
    seq_next: u64,
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
    /// Alignment of random offsets per direction (the smallest block).
    ba: [u64; 3],
    seq_nr: u32,
    seq_add: u64,
    /// Bytes left to move (counted after the ramp); `None`: time-based.
    left: Option<u64>,
    /// The job's own end (clock ns), when the stage's is later.
    pub deadline: Option<u64>,
    /// The bytes count from here on (clock ns, the end of the ramp).
    counting_from: u64,
    counting: bool,
    sync_every: Option<u64>,
    writes: u64,
    owed: Option<Req>,
}

impl FioSource {
    pub fn new(p: &JobPlan, ids: &[FileId]) -> Result<FioSource, String> {
        let mut rng = worker_rng(p.seed, p.index);
        let ba = [0, 1, 2].map(|d| p.bs[d].min().max(1));
        let random = p.job.rw.kind.is_random();
        let dirs = p.dirs();
        let fixed_bs = (0..3)
            .filter(|&d| dirs[d])
            .find_map(|d| match p.bs[d] {
                BsDraw::Fixed(b) => Some(b),
                _ => None,
            })
            .unwrap_or(ba[0]);
        let mut files = Vec::with_capacity(ids.len());
        for (r, &id) in p.regions.iter().zip(ids) {
            let perm = (random && p.random_map).then(|| {
                let n = (r.len / fixed_bs).max(1);
                (Perm::new(n, &mut rng), fixed_bs)
            });
            let sampler = match (&p.dist, random) {
                (Dist::Random, _) | (_, false) => None,
                (d, true) => {
                    let unit = (0..3)
                        .filter(|&x| dirs[x])
                        .map(|x| ba[x])
                        .min()
                        .unwrap_or(ba[0]);
                    let n = (r.len / unit).max(1);
                    Some((Sampler::new(d, n, unit, &mut rng)?, unit))
                }
            };
            files.push(FileState {
                id,
                start: r.start,
                len: r.len,
                pos: [0; 3],
                perm,
                sampler,
                seq_left: 0,
                seq_next: 0,
            });
        }
        Ok(FioSource {
            rng,
            files,
            next_file: 0,
            kind: p.job.rw.kind,
            random,
            rwmixread: u64::from(p.job.rwmixread),
            bs: p.bs.clone(),
            ba,
            seq_nr: p.job.rw.seq_nr.max(1),
            seq_add: u64::try_from(p.job.rw.seq_add).unwrap_or(0),
            left: p.budget,
            deadline: None,
            counting_from: 0,
            counting: true,
            sync_every: p.sync_every,
            writes: 0,
            owed: None,
        })
    }

    /// Bytes count once the clock passes `t0` (the end of the ramp).
    pub fn count_from(&mut self, t0: u64) {
        self.counting_from = t0;
        self.counting = now_ns() >= t0;
    }

    #[inline]
    fn direction(&mut self) -> usize {
        match self.kind {
            RwKind::Read | RwKind::RandRead => 0,
            RwKind::Write | RwKind::RandWrite | RwKind::TrimWrite => 1,
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

    /// A random offset in file `fi` for `len` bytes of direction `d`.
    #[inline]
    fn random_offset(&mut self, fi: usize, d: usize, len: u64) -> u64 {
        let f = &mut self.files[fi];
        let ba = self.ba[d];
        let room = f.len - len;
        let off = if let Some((perm, unit)) = f.perm.as_mut() {
            perm.next(&mut self.rng) * *unit
        } else if let Some((s, unit)) = f.sampler.as_mut() {
            let dir = match d {
                0 => dist::Dir::Read,
                1 => dist::Dir::Write,
                _ => dist::Dir::Trim,
            };
            s.next(&mut self.rng, dir) * *unit
        } else {
            below(&mut self.rng, room / ba + 1) * ba
        };
        if off > room { room / ba * ba } else { off }
    }
}

impl Source for FioSource {
    #[inline]
    fn next(&mut self) -> Option<Req> {
        if let Some(d) = self.deadline
            && now_ns() >= d
        {
            return None;
        }
        if !self.counting && now_ns() >= self.counting_from {
            self.counting = true;
        }
        if self.left == Some(0) {
            return None;
        }
        let d = self.direction();
        let mut len = self.bs[d].draw(&mut self.rng);
        let fi = self.next_file;
        self.next_file = if fi + 1 == self.files.len() {
            0
        } else {
            fi + 1
        };
        len = len.min(self.files[fi].len);
        if let (Some(left), true) = (self.left, self.counting)
            && len > left
        {
            len = left;
        }
        let off = if self.random {
            let f = &mut self.files[fi];
            if f.seq_left > 0 && f.seq_next + len <= f.len {
                f.seq_left -= 1;
                f.seq_next
            } else {
                f.seq_left = self.seq_nr - 1;
                self.random_offset(fi, d, len)
            }
        } else {
            let f = &mut self.files[fi];
            let mut off = f.pos[d];
            if off + len > f.len {
                off = 0;
            }
            f.pos[d] = off + len + self.seq_add;
            off
        };
        let f = &mut self.files[fi];
        f.seq_next = off + len;
        if self.counting
            && let Some(left) = self.left.as_mut()
        {
            *left -= len;
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
        Some(Req {
            kind,
            file: f.id,
            offset: f.start + off,
            len: len as u32,
            slot: 0,
        })
    }

    #[inline]
    fn owed(&mut self) -> Option<Req> {
        self.owed.take()
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
}

impl FioWorker {
    /// Job `p`'s worker, its files opened; `stage_runtime` is when the
    /// runner stops the stage (the job keeps its own end when earlier).
    pub fn new(p: &JobPlan, plan: &Plan, stage_runtime: Option<u64>) -> Result<FioWorker> {
        let max = p.max_len() as usize;
        let depth = p.engine.depth.max(1);
        let mut io = Io::new(&p.engine, depth, max, p.seed ^ p.index as u64)?;
        let dirs = p.dirs();
        let how = if dirs[1] || dirs[2] {
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
        let src = FioSource::new(p, &ids).map_err(crate::error::UsageError::new)?;
        let mut kinds = Vec::new();
        for (d, k) in [OpKind::Read, OpKind::Write, OpKind::Trim]
            .into_iter()
            .enumerate()
        {
            if dirs[d] {
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
            files: ids,
            kinds,
            end_fsync: p.job.end_fsync,
            pace: p.pace,
            own_runtime: own.filter(|r| stage_runtime != Some(*r)),
            span: Span::default(),
        })
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

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let t0 = ctx.t0_ns();
        self.src.count_from(t0);
        self.src.deadline = self.own_runtime.map(|r| t0.saturating_add(r));
        let cpu = CpuTimes::thread();
        let r = self.io.drive(ctx, &mut self.src);
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
        };
        r
    }

    fn finish(&mut self) -> serde_json::Value {
        serde_json::to_value(self.span).unwrap_or(serde_json::Value::Null)
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
/// that appeared meanwhile), filled with data when a job reads it, else
/// given its size (as fio lays out files). Untimed.
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
        if f.read {
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
            file.sync_all()
                .with_context(|| format!("cannot fsync {}", f.path.display()))?;
        } else {
            file.set_len(f.size)
                .with_context(|| format!("cannot size {}", f.path.display()))?;
        }
    }
    Ok(())
}

/// Drop the regular files' pages from the page cache before a stage (fio's
/// `invalidate=1`, its default): buffered reads then start cold.
pub fn invalidate(plan: &Plan, stage: &[JobPlan]) {
    for p in stage {
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
}

/// Run one stage's jobs together.
pub fn run_stage(plan: &Plan, stage: &[JobPlan], progress: &dyn Progress) -> Result<StageOutcome> {
    let runtimes: Vec<Option<u64>> = stage
        .iter()
        .map(|p| p.runtime.map(|r| r.as_nanos() as u64))
        .collect();
    let stage_runtime = if runtimes.iter().all(Option::is_some) {
        runtimes.iter().flatten().max().copied()
    } else {
        None
    };
    let mut workers = Vec::with_capacity(stage.len());
    for p in stage {
        workers.push(FioWorker::new(p, plan, stage_runtime)?);
    }
    invalidate(plan, stage);
    let ramp = stage[0].job.ramp_time_ns;
    let rule = StopRule {
        ops: None,
        duration: stage_runtime.map(std::time::Duration::from_nanos),
        ramp: (ramp != 0).then(|| std::time::Duration::from_nanos(ramp)),
        ..Default::default()
    };
    let outcome = runner::run(rule, workers, progress);
    let spans = outcome
        .extras
        .iter()
        .map(|v| serde_json::from_value(v.clone()).unwrap_or_default())
        .collect();
    Ok(StageOutcome { outcome, spans })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_random_map_gives_every_block_once_per_pass() {
        let mut rng = worker_rng(7, 0);
        for n in [1u64, 2, 3, 5, 64, 1000, 4097] {
            let mut p = Perm::new(n, &mut rng);
            for _pass in 0..2 {
                let mut seen = vec![false; n as usize];
                for _ in 0..n {
                    let b = p.next(&mut rng);
                    assert!(!seen[b as usize], "n {n}: block {b} twice");
                    seen[b as usize] = true;
                }
            }
        }
        // not the identity
        let mut p = Perm::new(1000, &mut rng);
        let first: Vec<u64> = (0..10).map(|_| p.next(&mut rng)).collect();
        assert_ne!(first, (0..10).collect::<Vec<u64>>());
    }
}
