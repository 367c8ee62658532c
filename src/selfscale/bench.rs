//! Measuring one workload of the self-scaling benchmark, adaptively.
//!
//! The data are laid out once, at the largest uniqueBytes of the run, in a
//! work directory that the [`Bench`] creates and removes. A workload with a
//! smaller uniqueBytes touches only the first uniqueBytes of the file (its
//! generator never looks further), so the sweep needs no new layout per
//! point. Where the page cache is in play, each point starts from the cache
//! state of a freshly written file of its uniqueBytes (untimed): what
//! earlier points dirtied is written back, the pages past the point's
//! uniqueBytes are dropped, and a prefix that fits in the page cache is
//! written again sequentially (the layout's bytes, 1 MiB at a time, synced)
//! so that it starts cached as a file written sequentially is. Without
//! this, a small point would run in a cache that the layout and the large
//! points before it filled, dirtied and broke into 4 KiB pages; on ext4
//! with large folios such a cache, or one read back sequentially, served
//! 4 KiB writes at half the speed of a freshly written file. A point whose
//! uniqueBytes exceeds the page cache's bound (the memory cgroup's limit)
//! starts as a freshly written file of that size does: nothing cached but
//! its last bytes, up to the bound, written again and synced. Without
//! this, such a point ran in what the points before it left: on ext4 under
//! a 1 GiB bound, 1 MiB requests over 1.5 GiB ran at 1 577 MB/s from a
//! fresh file's cache and at 930–1 160 MB/s after a point of 512 B
//! requests had filled the cache with scattered 4 KiB pages.
//!
//! A point is measured in batches of a fixed length (0.25 s by default):
//! the workers of the point are made once and run batch after batch
//! through [`runner::run`], continuing their request streams. The first
//! batch warms up and is not counted. Each later batch gives one throughput
//! sample; the point stops when the 95 % confidence interval of the mean
//! (Student's t over the batch samples) is narrower than the target
//! (± 3 % by default) after at least `min_batches`, or when the time cap is
//! reached (after at least one counted batch), and records the precision it
//! reached. A batch in which no operation completed (it ended before a
//! worker was scheduled) is not a sample and is not counted. The estimate is the
//! counted bytes over the counted time (reads and writes, 10^6 B/s).
//! Batches next to each other are not independent (caches, write-back), so
//! the interval is a lower bound on the true uncertainty; the validation's
//! repeatability error measures the rest.

use super::explore::Oracle;
use super::model::{Point, Workload};
use crate::engine::{FsyncPolicy, OpenHow};
use crate::measure::interval::mean_ci;
use crate::measure::{CpuTimes, OpKind, TimeSeries, WorkerStats};
use crate::report::RunResult;
use crate::runner::{self, Ctx, Outcome, StopRule, Worker};
use crate::session::Session;
use crate::session::generic::{GenericWorker, IoSetup, layout, stamp_chunk};
use crate::workload::generic::GenericSpec;
use anyhow::{Context, Result};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The layout's request size, and the size of a prefix's rewrites.
const CHUNK: u64 = 1 << 20;

/// How precisely each point is measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Precision {
    /// Target relative half-width of the 95 % confidence interval.
    pub target: f64,
    pub batch: Duration,
    /// Counted batches needed before the target may stop a point.
    pub min_batches: u32,
    /// Time cap of one point, warm-up batch included.
    pub cap: Duration,
}

/// The run's observer ([`crate::runner::Progress`]: a phase or point
/// begins with `status`, a line worth telling, such as what was picked or
/// skipped, is `say`) and the self-scaling benchmark's own event.
pub trait Observer: crate::runner::Progress {
    /// A point was measured.
    fn measured(&self, _label: &str, _p: &Point) {}
}

pub struct Quiet;
impl crate::runner::Progress for Quiet {}
impl Observer for Quiet {}

/// The measurement set-up.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub dir: PathBuf,
    pub setup: IoSetup,
    pub size_cv: f64,
    pub seed: u64,
    pub align: u64,
    /// Where every point's random requests go (`--distribution`, an
    /// extension of the method; uniform by default).
    pub distribution: crate::workload::dist::Dist,
    /// The largest uniqueBytes any point will use.
    pub max_bytes: u64,
    pub precision: Precision,
    /// Write a prefix again (untimed) before measuring when it is at most
    /// this large (it fits in the page cache); `None`: never (O_DIRECT,
    /// tmpfs, null).
    pub warm_limit: Option<u64>,
    /// The page cache's bound (the memory cgroup's limit), when there is
    /// one: a point past `warm_limit` then starts with the last this many
    /// bytes of its uniqueBytes cached, as a freshly written file would;
    /// `None`: it starts from what the points before it left.
    pub cache_bytes: Option<u64>,
}

/// Relative half-width of the 95 % confidence interval of the mean of
/// `samples` (infinite for fewer than two, or when the mean is not
/// positive).
pub fn rel_half_width(samples: &[f64]) -> f64 {
    match mean_ci(samples, 0.95) {
        Some(ci) if ci.mean > 0.0 => ci.relative_half_width(),
        _ => f64::INFINITY,
    }
}

/// A worker lent to one batch: the same worker runs batch after batch.
struct Lend<'a>(&'a mut GenericWorker);

impl Worker for Lend<'_> {
    fn kinds(&self) -> &[OpKind] {
        self.0.kinds()
    }
    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        self.0.run(ctx)
    }
}

/// The data, the work directory and the totals of every counted batch.
pub struct Bench<'a> {
    cfg: BenchConfig,
    paths: Vec<PathBuf>,
    file_size: u64,
    /// Bytes at the start of the file believed to be in the page cache.
    warm: u64,
    observer: &'a dyn Observer,
    total: WorkerStats,
    measured_ns: u128,
    worker_ns: u128,
    cpu: CpuTimes,
    /// How busy the machine was over the counted batches.
    machine: crate::measure::machine::MachineLoad,
    /// Per second of counted time, the counted batches of all points laid
    /// end to end.
    series: TimeSeries,
    max_workers: usize,
    // dropped last: the files go with it
    work: Session,
}

impl<'a> Bench<'a> {
    /// Make the work directory and lay the data out (untimed). `None` when
    /// Ctrl-C arrived during the layout (the directory is gone again).
    pub fn new(cfg: BenchConfig, observer: &'a dyn Observer) -> Result<Option<Bench<'a>>> {
        let spec = GenericSpec {
            unique_bytes: cfg.max_bytes,
            size_mean: cfg.align,
            size_cv: 0.0,
            read_frac: 0.5,
            trim_frac: 0.0,
            seq_frac: 0.5,
            processes: 1,
            files: 1,
            align: cfg.align,
            seed: cfg.seed,
            distribution: Default::default(),
        };
        spec.validate().map_err(crate::error::UsageError)?;
        let work = crate::session::Setup::new("selfscale", &cfg.dir)
            .label(&cfg.dir.display().to_string())
            .data(spec.total_bytes())
            .fake(cfg.setup.engine.is_fake())
            .begin()?;
        observer.status(&format!(
            "laying out {} (untimed)",
            super::model::short_bytes(spec.total_bytes())
        ));
        let Some(paths) = layout(&spec, &cfg.setup, work.dir())? else {
            return Ok(None);
        };
        // the layout leaves the end of the file cached: nothing at the start
        Ok(Some(Bench {
            file_size: spec.file_size(),
            cfg,
            paths,
            warm: 0,
            observer,
            total: WorkerStats::default(),
            measured_ns: 0,
            worker_ns: 0,
            cpu: CpuTimes::default(),
            machine: Default::default(),
            series: TimeSeries::default(),
            max_workers: 1,
            work,
        }))
    }

    pub fn config(&self) -> &BenchConfig {
        &self.cfg
    }

    /// The generic workload spec of `w` (uniqueBytes clipped to the data).
    pub fn spec(&self, w: &Workload) -> GenericSpec {
        let a = self.cfg.align;
        let u = w.unique_bytes.min(self.file_size);
        GenericSpec {
            unique_bytes: (u - u % a).max(a),
            size_mean: w.size_mean.max(1),
            size_cv: self.cfg.size_cv,
            read_frac: w.read_frac,
            trim_frac: 0.0,
            seq_frac: w.seq_frac,
            processes: w.process_num.max(1) as usize,
            files: 1,
            align: a,
            seed: self.cfg.seed,
            distribution: self.cfg.distribution.clone(),
        }
    }

    /// Bring the page cache to the state a freshly written file of `u`
    /// bytes would leave: nothing dirty, nothing cached past `u`, and the
    /// first `u` bytes cached as the write path caches them, when they fit
    /// (see the module's comment).
    fn prepare(&mut self, u: u64) -> Result<bool> {
        let Some(limit) = self.cfg.warm_limit else {
            return Ok(true);
        };
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.paths[0])
            .with_context(|| format!("cannot open {}", self.paths[0].display()))?;
        // what earlier points wrote goes to the device now, not during
        // this point's batches
        self.sync(&f)?;
        // Below `keep` the cache holds what the write path put there; from
        // it on, whatever the earlier points left (after a point that
        // churned the cache: small pieces read in at random, which on a
        // file system with large folios, such as ext4, serve small writes at
        // half the speed and copies at a little less). Drop it.
        let keep = if u > limit {
            u
        } else {
            self.warm.min(u) / CHUNK * CHUNK
        };
        if keep < self.file_size {
            drop_cache(&f, keep);
        }
        if u > limit {
            // this point churns the cache: nothing can be assumed after it
            self.warm = 0;
            if let Some(cap) = self.cfg.cache_bytes {
                // what a freshly written file of u bytes leaves: its last
                // bytes cached, up to the bound (the bound's reclaim trims
                // what does not fit), nothing before them
                drop_cache(&f, 0);
                return self.rewrite(&f, u.saturating_sub(cap) / CHUNK * CHUNK, u);
            }
            return Ok(true);
        }
        if keep < u && !self.rewrite(&f, keep, u)? {
            return Ok(false);
        }
        self.warm = u;
        Ok(true)
    }

    /// Write bytes `from..to` of the data file `f` again, as the layout
    /// wrote them, and sync them; false on Ctrl-C.
    fn rewrite(&self, f: &std::fs::File, from: u64, to: u64) -> Result<bool> {
        // Write what is missing again, in the layout's 1 MiB requests and
        // with the layout's bytes, and sync it: reading it back would cache
        // it in the pieces readahead makes, and on ext4 4 KiB writes into
        // those ran at half the speed (1 044 against 2 129 MB/s, 128 MiB,
        // two threads, half reads).
        let mut buf = vec![0u8; CHUNK as usize];
        crate::data::fill_random(&mut buf, self.cfg.seed);
        let mut off = from;
        while off < to {
            if runner::signals::interrupted() {
                return Ok(false);
            }
            stamp_chunk(&mut buf, off / CHUNK);
            let n = (to - off).min(CHUNK) as usize;
            f.write_all_at(&buf[..n], off)
                .with_context(|| format!("cannot write {}", self.paths[0].display()))?;
            off += n as u64;
        }
        self.sync(f)?;
        Ok(true)
    }

    /// fdatasync the data file `f`.
    fn sync(&self, f: &std::fs::File) -> Result<()> {
        f.sync_data()
            .with_context(|| format!("cannot fsync {}", self.paths[0].display()))
    }

    /// Totals over every counted batch, as a result document. The time
    /// series is per second of counted time, the batches of all points laid
    /// end to end (a batch lands in the second its start falls in).
    pub fn result(
        &self,
        benchmark: &str,
        config: impl serde::Serialize,
        environment: crate::env::Environment,
        started: String,
        complete: bool,
    ) -> RunResult {
        let outcome = Outcome {
            stats: self.total.clone(),
            per_worker: Vec::new(),
            workers: self.max_workers,
            worker_ns: self.worker_ns,
            elapsed: Duration::from_nanos(self.measured_ns.min(u64::MAX as u128) as u64),
            cpu: self.cpu,
            complete,
            interrupted: runner::signals::interrupted(),
            error: None,
            extras: Vec::new(),
            failures: Vec::new(),
            engine_modes: Vec::new(),
            pinned: Vec::new(),
            machine: self.machine.clone(),
        };
        let mut r = RunResult::new(benchmark, config, environment, started).with_outcome(&outcome);
        r.timeseries.interval_s = 1.0;
        r.timeseries.ops = self.series.ops().to_vec();
        r.timeseries.bytes = self.series.bytes().to_vec();
        // the last second is as partial as the counted time says
        let full = r.timeseries.ops.len().saturating_sub(1) as f64;
        r.timeseries.last_interval_s = (r.elapsed_s - full).clamp(0.0, 1.0);
        r
    }

    /// Add a counted batch to the run's totals: its statistics, its time
    /// series (continuing the counted time so far), its CPU time and its
    /// worker count (`processes`).
    fn keep(&mut self, o: &mut Outcome, processes: usize) {
        // the batch's seconds continue the counted time so far
        let offset = self.measured_ns.min(u64::MAX as u128) as u64;
        for (i, (&n, &b)) in o
            .stats
            .series
            .ops()
            .iter()
            .zip(o.stats.series.bytes())
            .enumerate()
        {
            self.series.add(offset + i as u64 * 1_000_000_000, n, b);
        }
        o.stats.series.clear();
        self.total.merge(&o.stats);
        self.measured_ns += o.elapsed.as_nanos();
        self.worker_ns += o.elapsed.as_nanos() * processes as u128;
        self.cpu.user += o.cpu.user;
        self.cpu.sys += o.cpu.sys;
        self.cpu.max_rss_kib = self.cpu.max_rss_kib.max(o.cpu.max_rss_kib);
        self.machine.add(&o.machine);
        self.max_workers = self.max_workers.max(processes);
    }

    /// Where the data live (for messages).
    pub fn work_path(&self) -> &std::path::Path {
        self.work.dir()
    }
}

impl Oracle for Bench<'_> {
    fn measure(&mut self, w: &Workload, label: &str) -> Result<Option<Point>> {
        self.observer.status(label);
        let spec = self.spec(w);
        spec.validate().map_err(crate::error::UsageError)?;
        if !self.prepare(spec.total_bytes())? {
            return Ok(None);
        }
        let mut workers = (0..spec.processes)
            .map(|i| {
                GenericWorker::new(&spec, &self.cfg.setup, &self.paths, OpenHow::READ_WRITE, i)
            })
            .collect::<Result<Vec<_>>>()?;
        let prec = self.cfg.precision;
        let rule = StopRule {
            duration: Some(prec.batch),
            ..Default::default()
        };
        let started = Instant::now();
        let mut tally = Tally::default();
        let mut first = true;
        let mut empty = 0u32;
        let converged = loop {
            let lent: Vec<Lend> = workers.iter_mut().map(Lend).collect();
            let mut o = runner::run(rule, lent, &runner::NoProgress);
            if let Some(e) = o.error.take() {
                return Err(e.context(format!("while measuring {}", w.describe())));
            }
            if o.interrupted {
                return Ok(None);
            }
            let capped = started.elapsed() >= prec.cap;
            let batch_ops: u64 = o
                .stats
                .kinds()
                .filter(|(k, _)| k.direction().is_some())
                .map(|(_, k)| k.count)
                .sum();
            if batch_ops == 0 {
                // the batch ended before a worker got to run (a very short
                // batch on a busy machine): it measured nothing, and is
                // not a sample of zero throughput
                empty += 1;
                if empty >= 1000 {
                    anyhow::bail!("no operation completed in 1000 batches of {}", w.describe());
                }
                continue;
            }
            if first {
                first = false;
                if !capped {
                    continue;
                }
            }
            tally.add(&o, batch_ops);
            self.keep(&mut o, spec.processes);
            let hw = rel_half_width(&tally.rates);
            if tally.rates.len() as u32 >= prec.min_batches.max(2) && hw <= prec.target {
                break true;
            }
            if started.elapsed() >= prec.cap {
                break false;
            }
        };
        let p = tally.point(w, converged);
        self.observer.measured(label, &p);
        Ok(Some(p))
    }
}

/// The counted batches of one point: their throughputs (bytes/s) and
/// their sums.
#[derive(Default)]
struct Tally {
    rates: Vec<f64>,
    bytes: u64,
    ops: u64,
    rbytes: u64,
    wbytes: u64,
    secs: f64,
}

impl Tally {
    /// Count batch `o`, which completed `ops` reads and writes.
    fn add(&mut self, o: &Outcome, ops: u64) {
        let s = o.elapsed.as_secs_f64();
        let r = o.stats.bytes(crate::measure::Direction::Read);
        let wr = o.stats.bytes(crate::measure::Direction::Write);
        if s > 0.0 {
            self.rates.push((r + wr) as f64 / s);
        }
        self.bytes += r + wr;
        self.rbytes += r;
        self.wbytes += wr;
        self.ops += ops;
        self.secs += s;
    }

    /// The point the batches measured of `w`: the counted bytes over the
    /// counted time, the batches' spread as its precision.
    fn point(&self, w: &Workload, converged: bool) -> Point {
        let secs = self.secs;
        let per_s = |x: u64| if secs > 0.0 { x as f64 / secs } else { 0.0 };
        Point {
            workload: *w,
            mb_per_s: per_s(self.bytes) / 1e6,
            iops: per_s(self.ops),
            read_mb_per_s: per_s(self.rbytes) / 1e6,
            write_mb_per_s: per_s(self.wbytes) / 1e6,
            mean_request_bytes: if self.ops > 0 {
                self.bytes as f64 / self.ops as f64
            } else {
                0.0
            },
            rel_half_width: rel_half_width(&self.rates).min(9.99),
            batches: self.rates.len() as u32,
            seconds: secs,
            converged,
        }
    }
}

/// Drop the cached pages of `f` from byte `from` to its end (clean pages
/// only: the caller has synced).
fn drop_cache(f: &std::fs::File, from: u64) {
    // SAFETY: a valid open descriptor; advice has no memory effects.
    unsafe {
        libc::posix_fadvise(
            std::os::fd::AsRawFd::as_raw_fd(f),
            from as libc::off_t,
            0,
            libc::POSIX_FADV_DONTNEED,
        )
    };
}

/// What selfscale can run with: fsync never or every=N.
pub fn check_fsync(p: FsyncPolicy) -> Result<(), String> {
    match p {
        FsyncPolicy::End => Err(
            "--fsync end has no meaning for selfscale (its points run in short batches); use never or every=N"
                .into(),
        ),
        _ => Ok(()),
    }
}

/// MemAvailable from /proc/meminfo, in bytes (0 when unknown).
pub fn mem_available() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            let rest = l.strip_prefix("MemAvailable:")?;
            rest.split_whitespace().next()?.parse::<u64>().ok()
        })
        .map_or(0, |kib| kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_width_of_a_known_sample() {
        // mean 10, sd √(4/3) over 4 samples: t(0.975, 3) = 3.18245 · sd/2 / 10
        let s = [9.0, 11.0, 9.0, 11.0];
        let sd = (4.0f64 / 3.0).sqrt();
        let want = 3.182446305284263 * sd / 2.0 / 10.0;
        assert!((rel_half_width(&s) - want).abs() < 1e-12);
        assert!(rel_half_width(&[5.0]).is_infinite());
        assert!(rel_half_width(&[0.0, 0.0]).is_infinite());
        assert_eq!(rel_half_width(&[5.0, 5.0, 5.0]), 0.0);
    }

    /// Which 4 KiB pages of `f`'s first `len` bytes are in the page cache.
    fn resident(f: &std::fs::File, len: u64) -> Vec<bool> {
        use std::os::fd::AsRawFd;
        let pages = len.div_ceil(4096) as usize;
        let mut v = vec![0u8; pages];
        // SAFETY: a read-only shared mapping of an open file, never
        // touched (mincore does not fault pages in), unmapped before return.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                len as usize,
                libc::PROT_READ,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            );
            assert_ne!(p, libc::MAP_FAILED, "mmap");
            assert_eq!(libc::mincore(p, len as usize, v.as_mut_ptr()), 0, "mincore");
            libc::munmap(p, len as usize);
        }
        v.into_iter().map(|b| b & 1 == 1).collect()
    }

    /// (first, last) cached MiB of `r`, and how many 4 KiB pages are.
    fn span(r: &[bool]) -> (Option<usize>, Option<usize>, usize) {
        let mib = |i: usize| (i * 4096) >> 20;
        (
            r.iter().position(|&b| b).map(mib),
            r.iter().rposition(|&b| b).map(mib),
            r.iter().filter(|&&b| b).count(),
        )
    }

    #[test]
    fn each_point_starts_from_a_fresh_files_cache() {
        let dir = tempfile::tempdir().unwrap();
        if crate::env::detect(dir.path()).fs_type == "tmpfs" {
            eprintln!(
                "skipped: the temporary directory is on tmpfs, which has no page cache to drop"
            );
            return;
        }
        const MIB: u64 = 1 << 20;
        let cfg = |cache: Option<u64>| BenchConfig {
            dir: dir.path().to_path_buf(),
            setup: IoSetup {
                engine: crate::engine::Choice::parse("psync").unwrap(),
                direct: false,
                iodepth: 1,
                queue: Default::default(),
                fsync: FsyncPolicy::Never,
                fdatasync: false,
                cold: false,
                noatime: false,
            },
            size_cv: 0.0,
            seed: 1,
            align: 512,
            distribution: Default::default(),
            max_bytes: 32 * MIB,
            precision: Precision {
                target: 0.5,
                batch: Duration::from_millis(5),
                min_batches: 2,
                cap: Duration::from_millis(50),
            },
            warm_limit: Some(4 * MIB),
            cache_bytes: cache,
        };
        // bounded: past the bound, only the last 8 MiB of the point's
        // 24 MiB; within it, the point's first 2 MiB
        let mut b = Bench::new(cfg(Some(8 * MIB)), &Quiet).unwrap().unwrap();
        let f = std::fs::File::open(&b.paths[0]).unwrap();
        assert!(b.prepare(24 * MIB).unwrap());
        let pages = (8 * MIB / 4096) as usize;
        assert_eq!(span(&resident(&f, 32 * MIB)), (Some(16), Some(23), pages));
        assert!(b.prepare(2 * MIB).unwrap());
        let pages = (2 * MIB / 4096) as usize;
        assert_eq!(span(&resident(&f, 32 * MIB)), (Some(0), Some(1), pages));
        // the data are the layout's, rewritten or not
        let mut got = vec![0u8; 4096];
        f.read_exact_at(&mut got, 20 * MIB).unwrap();
        let mut want = vec![0u8; CHUNK as usize];
        crate::data::fill_random(&mut want, 1);
        stamp_chunk(&mut want, 20);
        assert_eq!(got, want[..4096]);
        drop(f);
        drop(b);
        // unbounded: a point past the cache keeps what was there and
        // drops what lies past it
        let mut b = Bench::new(cfg(None), &Quiet).unwrap().unwrap();
        let f = std::fs::File::open(&b.paths[0]).unwrap();
        assert!(b.prepare(2 * MIB).unwrap());
        assert!(b.prepare(24 * MIB).unwrap());
        let r = resident(&f, 32 * MIB);
        assert!(r[..(2 * MIB / 4096) as usize].iter().all(|&x| x));
        assert!(r[(24 * MIB / 4096) as usize..].iter().all(|&x| !x));
    }

    #[test]
    fn fsync_end_is_refused() {
        assert!(check_fsync(FsyncPolicy::End).is_err());
        assert!(check_fsync(FsyncPolicy::Every(4)).is_ok());
    }
}
