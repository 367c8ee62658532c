//! What fio's jobs do, decided before anything is opened: each job's
//! files and the part of each it works in, its engine, block sizes, byte
//! budget, pace and syncs, and the stages the jobs run in (docs/fio.md,
//! "How a job runs"). Every refusal names the option's file:line.
//!
//! - **Files.** Without `filename`, a job has `nrfiles` files of its own,
//!   `NAME.CLONE.N` in `directory` (the current directory by default),
//!   each of `filesize` or `size / nrfiles` bytes. `filename` names files
//!   (`:`-separated) that every clone shares; a name under `/dev` is a
//!   block device, checked as `--device` is. A file that does not exist is
//!   created by the run (with `O_EXCL`) and removed after it, unless
//!   `--keep-files`; one that exists is the user's: read as it is, written
//!   only with `--allow-write`, never extended, truncated or removed.
//! - **Where.** Each file's region starts at `offset` (bytes, or a share
//!   of the file) plus `offset_increment` times the clone's number, and is
//!   the file's share of `size` long (to the end of an existing file
//!   without `size`).
//! - **How much.** Without `time_based`, a job moves `size` bytes
//!   `loops` times (reads and writes together), or stops at `runtime`
//!   first; with it, it runs `runtime` wrapping around its regions.
//! - **Stages.** Jobs run together until one has `stonewall` (or
//!   `wait_for`, which iogauge takes as a stonewall when it names the only
//!   job running before it): that job starts once all before it ended.

use super::job::{ExitWhat, FadviseHint, Fallocate, IoEngine, Job, Place, RateProcess, RwKind};
use super::value::SizeOrPct;
use crate::engine::{Access, Choice, EngineSpec, QueueOpts};
use crate::env::device::{self, BlockDevice};
use crate::error::shown_path;
use crate::runner::{Arrivals, ByteCap, CapProcess, Pace};
use crate::workload::dist::{self, Dist};
use crate::workload::{Prng, below};
use std::collections::HashMap;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the user allows beside the jobs (iogauge's own flags).
#[derive(Clone, Copy, Debug, Default)]
pub struct Allow {
    /// Write to regular files that exist already (`--allow-write`).
    pub write: bool,
    /// Write to block devices (`--allow-destroy`).
    pub destroy: bool,
    /// Use a device that is mounted or holds a signature (`--force`).
    pub force: bool,
}

/// Where a data file comes from.
#[derive(Clone, Debug)]
pub enum Origin {
    /// The run creates it, and removes it after (unless kept).
    Create,
    /// A regular file that exists: the user's.
    Existing,
    /// A block device, checked.
    Device(BlockDevice),
}

/// A data file of the run, shared by every job that names it.
#[derive(Clone, Debug)]
pub struct FileEntry {
    pub path: PathBuf,
    /// Bytes it holds (or, created, must hold).
    pub size: u64,
    pub origin: Origin,
    /// Some job reads it: a created file is filled with data first.
    pub read: bool,
    /// Some job writes or trims it.
    pub write: bool,
    /// A created file is filled with data first: some job reads it, or
    /// writes it with `overwrite` (fio's new layout).
    pub fill: bool,
    /// How a created file gets its blocks (`fallocate` of the job that
    /// named it first).
    pub fallocate: Fallocate,
    /// fsync a created file once laid out (`create_fsync`).
    pub create_fsync: bool,
}

/// A job's part of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// Index in [`Plan::files`].
    pub file: usize,
    pub start: u64,
    pub len: u64,
}

/// How a direction's request sizes are drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BsDraw {
    Fixed(u64),
    /// fio's `bsrange`: uniform in [lo, hi], rounded down to a multiple of
    /// lo when lo is a power of two.
    Range(u64, u64),
    /// fio's `bssplit`: each size with its cumulative share, percent.
    Split(Vec<(u64, u32)>),
}

impl BsDraw {
    pub fn min(&self) -> u64 {
        match self {
            BsDraw::Fixed(b) | BsDraw::Range(b, _) => *b,
            BsDraw::Split(v) => v.iter().map(|s| s.0).min().unwrap_or(1),
        }
    }

    pub fn max(&self) -> u64 {
        match self {
            BsDraw::Fixed(b) | BsDraw::Range(_, b) => *b,
            BsDraw::Split(v) => v.iter().map(|s| s.0).max().unwrap_or(1),
        }
    }

    /// One size, as fio's `get_next_buflen` draws it.
    #[inline]
    pub fn draw(&self, rng: &mut Prng) -> u64 {
        match self {
            BsDraw::Fixed(b) => *b,
            BsDraw::Range(lo, hi) => {
                let b = lo + below(rng, hi - lo + 1);
                if lo.is_power_of_two() {
                    b & !(lo - 1)
                } else {
                    b
                }
            }
            BsDraw::Split(v) => {
                let p = 1 + below(rng, 100) as u32;
                v.iter().find(|s| p <= s.1).or(v.last()).map_or(1, |s| s.0)
            }
        }
    }
}

/// One job (or clone) as it will run.
#[derive(Clone, Debug)]
pub struct JobPlan {
    pub job: Job,
    /// fio's thread number less one: the job's place among all jobs run.
    pub index: usize,
    pub regions: Vec<Region>,
    pub engine: EngineSpec,
    /// Per direction (read, write, trim).
    pub bs: [BsDraw; 3],
    /// Bytes to move in all (`size` × `loops`); `None`: time-based.
    pub budget: Option<u64>,
    /// The job's own runtime limit; `None`: none.
    pub runtime: Option<Duration>,
    pub pace: Option<Pace>,
    /// fio's think times (`thinktime` and its options); `None`: none.
    pub think: Option<Think>,
    /// Drain the queue to this depth once it is full before queueing
    /// again (fio's `iodepth_low`); `None`: refill at once.
    pub depth_low: Option<u16>,
    /// A sync after every N writes (fdatasync with the engine's datasync).
    pub sync_every: Option<u64>,
    pub dist: Dist,
    /// Each block once per pass before any twice (fio's random map, in
    /// blocks of the smallest request).
    pub random_map: bool,
    /// The seed of its offsets and sizes.
    pub seed: u64,
    /// Where it runs (`cpus_allowed`, `cpus_allowed_policy`,
    /// `numa_cpu_nodes`, `numa_mem_policy`), split counted over every
    /// job as fio numbers its threads; `None`: where it is.
    pub pin: Option<crate::runner::pin::Pinning>,
    /// fio's verify phase (`verify=`), when the job has one.
    pub verify: Option<super::verify::VerifySpec>,
    /// How long after the run's start the job starts (`startdelay`, a
    /// range drawn once per job).
    pub start_delay: Duration,
    /// The job ends after this many requests (fio's `number_ios` times
    /// `loops`, twice that for trimwrite); `None`: no such end.
    pub number_ios: Option<u64>,
    /// The least rates the job must keep (`rate_min`, `rate_iops_min`).
    pub min_rate: Option<MinRate>,
    /// The jobs that end with this one (fio's `exitall` anywhere, or
    /// `exitall_on_error` when it fails); `None`: none.
    pub exit: Option<Exit>,
}

/// What a job's end ends beside it (fio's `fio_terminate_threads`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exit {
    /// Which jobs (`exit_what`).
    pub what: ExitWhat,
    /// Whenever the job ends (`exitall`), or only when it fails
    /// (`exitall_on_error`).
    pub always: bool,
}

/// fio's least rates, per direction (read, write, trim): a job below one,
/// averaged over a cycle, ends in error (fio's `check_min_rate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinRate {
    /// Bytes per second; 0: none.
    pub bytes: [u64; 3],
    /// I/Os per second; 0: none.
    pub iops: [u64; 3],
    /// The cycle, ns (`rate_cycle`).
    pub cycle_ns: u64,
}

impl JobPlan {
    /// Whether the job reads, writes, trims.
    pub fn dirs(&self) -> [bool; 3] {
        dirs_of(self.job.rw.kind, self.job.rwmixread)
    }

    /// The largest request it issues.
    pub fn max_len(&self) -> u64 {
        let d = self.dirs();
        (0..3)
            .filter(|&i| d[i])
            .map(|i| self.bs[i].max())
            .max()
            .unwrap_or(4096)
    }
}

/// Which directions a pattern issues.
pub fn dirs_of(kind: RwKind, rwmixread: u32) -> [bool; 3] {
    match kind {
        RwKind::Read | RwKind::RandRead => [true, false, false],
        RwKind::Write | RwKind::RandWrite => [false, true, false],
        RwKind::Trim | RwKind::RandTrim => [false, false, true],
        RwKind::ReadWrite | RwKind::RandRw => [rwmixread > 0, rwmixread < 100, false],
        RwKind::TrimWrite | RwKind::RandTrimWrite => [false, true, true],
    }
}

/// Everything a run of the jobs needs.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub files: Vec<FileEntry>,
    /// Jobs that run together, stage after stage.
    pub stages: Vec<Vec<JobPlan>>,
    /// What iogauge does otherwise than fio would, said before the run.
    pub notes: Vec<String>,
}

/// Where option `opt` of `job` was set, or the job's header.
pub fn place(job: &Job, opt: &str) -> Place {
    job.origin
        .get(opt)
        .map_or_else(|| job.at.clone(), |(p, _)| p.clone())
}

/// A refusal at `opt` of `job`.
fn refuse(job: &Job, opt: &str, why: impl std::fmt::Display) -> String {
    format!("{}: {why}", place(job, opt))
}

/// The report options that iogauge cannot follow with the job's per-I/O
/// logs: fio leaves out of them what `disable_*` and `stats=0` turn off,
/// iogauge's logs record every request.
fn report_options_with_logs(j: &Job) -> Result<(), String> {
    let lat_log = j.write_lat_log.is_some();
    let any_log = lat_log || j.write_bw_log.is_some() || j.write_iops_log.is_some();
    if !j.stats && any_log {
        return Err(refuse(
            j,
            "stats",
            "stats=0 with write_*_log: fio then logs nothing, iogauge's logs record every request; drop one of them",
        ));
    }
    for (on, name) in [
        (j.disable_lat, "disable_lat"),
        (j.disable_clat, "disable_clat"),
        (j.disable_slat, "disable_slat"),
    ] {
        if on && lat_log {
            return Err(refuse(
                j,
                name,
                format!(
                    "{name}=1 with write_lat_log: fio leaves that latency out of its lat/clat/slat logs, iogauge's logs keep all three; drop one of them"
                ),
            ));
        }
    }
    if j.disable_bw && j.write_bw_log.is_some() && j.log_avg_msec == 0 {
        return Err(refuse(
            j,
            "disable_bw_measurement",
            "disable_bw_measurement=1 with a per-I/O write_bw_log (log_avg_msec=0): fio then leaves that log empty, iogauge writes it; set log_avg_msec or drop one of them",
        ));
    }
    Ok(())
}

/// fio's `filename` list: `:` separates, `\:` is a colon.
pub fn split_names(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\\' if it.peek() == Some(&':') => {
                it.next();
                out.last_mut().expect("one").push(':');
            }
            ':' => out.push(String::new()),
            c => out.last_mut().expect("one").push(c),
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// The engine fio's `ioengine` names, and a note when iogauge runs it as
/// another.
fn engine_of(job: &Job) -> (Choice, Option<String>) {
    let queued = job.iodepth > 1;
    match job.ioengine {
        IoEngine::Psync => (Choice::PSYNC, None),
        IoEngine::Sync => (Choice::SYNC, None),
        IoEngine::Pvsync => (Choice::PVSYNC, None),
        IoEngine::Pvsync2 => (Choice::PVSYNC2, None),
        IoEngine::IoUring => (Choice::IO_URING, None),
        IoEngine::Libaio => (Choice::LIBAIO, None),
        IoEngine::Mmap => (Choice::MMAP, None),
        IoEngine::Null if queued => (Choice::NULLQ, None),
        IoEngine::Null => (Choice::NULL, None),
    }
}

/// pvsync2's flags (`hipri`, `hipri_percentage`, `nowait`, `uncached`) as
/// the engine takes them, as fio's `fio_pvsyncio2_queue` sets them: no
/// RWF_DONTCACHE with O_DIRECT, no RWF_HIPRI share without `hipri`. A
/// request `nowait` turns away ends the run, as it ends fio's job.
fn pvsync2_of(j: &Job, notes: &mut Vec<String>) -> Result<QueueOpts, String> {
    let uncached = j.uncached && !j.direct;
    if uncached {
        if !crate::engine::kernel_has_dontcache() {
            return Err(refuse(
                j,
                "uncached",
                format!(
                    "uncached asks RWF_DONTCACHE of the kernel, which has it from Linux 6.14 on (this one is {})",
                    crate::engine::kernel_release()
                ),
            ));
        }
        if j.clone == 0 {
            notes.push(format!(
                "{}: uncached sets RWF_DONTCACHE (0x80, Linux 6.14+), as fio does since 3.40; fio 3.33 sends 0x40, its RWF_UNCACHED, which no kernel took and Linux 6.11+ reads as RWF_ATOMIC (its reads then fail with EOPNOTSUPP)",
                place(j, "uncached")
            ));
        }
    }
    let share = u8::try_from(j.hipri_percentage).unwrap_or(100);
    Ok(QueueOpts {
        hipri: j.hipri,
        hipri_percentage: (j.hipri && share != 100).then_some(share),
        nowait: j.nowait,
        uncached,
        eagain_fails: j.nowait,
        ..Default::default()
    })
}

/// The options iogauge reads but runs only at fio's default: a job that
/// sets another value is refused there.
fn defaults_only(job: &Job) -> Result<(), String> {
    rw_refusal(job)?;
    if job.fsync != 0 && job.fdatasync != 0 {
        return Err(refuse(
            job,
            "fdatasync",
            "fsync and fdatasync together are not supported: give one",
        ));
    }
    if job
        .directory
        .as_deref()
        .is_some_and(|d| split_names(d).len() > 1)
    {
        return Err(refuse(
            job,
            "directory",
            "several directories (':'-separated) are not supported",
        ));
    }
    if job.time_based && job.runtime_ns == 0 {
        return Err(refuse(
            job,
            "time_based",
            "time_based needs a runtime: give runtime=",
        ));
    }
    Ok(())
}

/// What iogauge does not run of `rw`: a negative skip smaller than a
/// block (fio then steps forward over blocks it read), and a trimwrite
/// whose trims and writes differ in size (fio then lets the two drift
/// apart).
fn rw_refusal(job: &Job) -> Result<(), String> {
    let text = || job.origin.get("rw").map_or("rw", |o| o.1.as_str());
    let bs = bs_of(job);
    if job.rw.seq_add < 0 && !job.rw.kind.is_random() {
        let largest = bs.iter().map(BsDraw::max).max().unwrap_or(1);
        if job.rw.seq_add.unsigned_abs() < largest {
            return Err(refuse(
                job,
                "rw",
                format!(
                    "{}: a backwards skip smaller than the largest block ({largest} bytes) is not supported (fio then steps forwards over blocks it just read)",
                    text()
                ),
            ));
        }
    }
    if matches!(job.rw.kind, RwKind::TrimWrite | RwKind::RandTrimWrite) && bs[1] != bs[2] {
        return Err(refuse(
            job,
            "rw",
            format!(
                "{}: trims and writes of different block sizes are not supported: give them one bs",
                text()
            ),
        ));
    }
    Ok(())
}

/// fio's think time, as `handle_thinktime` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Think {
    /// The whole think time, ns.
    pub total_ns: u64,
    /// The part of it spent spinning the CPU (the rest sleeps), ns.
    pub spin_ns: u64,
    /// Think after this many blocks since the last think (0: only by time).
    pub blocks: u64,
    /// Count issued blocks, not completed ones.
    pub issue: bool,
    /// Think once this long passed since the last think, ns; 0: never.
    pub iotime_ns: u64,
}

/// A job's think time: `None` without `thinktime`.
fn think_of(job: &Job) -> Option<Think> {
    if job.thinktime_ns == 0 {
        return None;
    }
    // fio: with thinktime_iotime and no thinktime_blocks set, time alone
    // decides (the default of one block would think after each)
    let by_time_only = job.thinktime_iotime_ns != 0 && !job.origin.contains_key("thinktime_blocks");
    Some(Think {
        total_ns: job.thinktime_ns,
        spin_ns: job.thinktime_spin_ns,
        blocks: if by_time_only {
            0
        } else {
            u64::from(job.thinktime_blocks)
        },
        issue: job.thinktime_blocks_issue,
        iotime_ns: job.thinktime_iotime_ns,
    })
}

/// fio's `iodepth_low`: 0 or more than the depth is the depth (no drain).
fn depth_low_of(job: &Job, depth: u16) -> Option<u16> {
    let low = job.iodepth_low;
    (low != 0 && low < u32::from(depth)).then_some(low as u16)
}

/// The pace of a job's own: `rate` and `rate_iops` as a byte cap per
/// direction (fio turns IOPS into bytes with the smallest block).
fn pace_of(job: &Job, bs: &[BsDraw; 3]) -> Result<Option<Pace>, String> {
    let mut cap = ByteCap {
        process: match job.rate_process {
            RateProcess::Linear => CapProcess::Linear,
            RateProcess::Poisson => CapProcess::Poisson,
        },
        ..Default::default()
    };
    let lanes = [&mut cap.read, &mut cap.write, &mut cap.trim];
    let rate = [job.rate.read, job.rate.write, job.rate.trim];
    let iops = [job.rate_iops.read, job.rate_iops.write, job.rate_iops.trim];
    for (d, lane) in lanes.into_iter().enumerate() {
        if rate[d] != 0 && iops[d] != 0 {
            return Err(refuse(
                job,
                "rate_iops",
                "rate and rate_iops of the same direction together: give one",
            ));
        }
        if rate[d] != 0 {
            *lane = Some(rate[d] as f64);
        } else if iops[d] != 0 {
            *lane = Some(iops[d] as f64 * bs[d].min() as f64);
        }
    }
    if job.thinktime_ns != 0 && !cap.is_none() {
        return Err(refuse(
            job,
            "thinktime",
            "thinktime with rate or rate_iops is not supported: give one",
        ));
    }
    if cap.is_none() {
        return Ok(None);
    }
    let pace = Pace {
        rate: None,
        arrivals: Arrivals::Uniform,
        think: None,
        seed: job.randseed,
        cap,
    };
    pace.check().map_err(|e| refuse(job, "rate", e))?;
    Ok(Some(pace))
}

/// Block sizes per direction.
fn bs_of(job: &Job) -> [BsDraw; 3] {
    let pick = |d: usize| -> BsDraw {
        if let Some(s) = &job.bssplit {
            let list = [&s.read, &s.write, &s.trim][d];
            let mut sum = 0;
            return BsDraw::Split(
                list.iter()
                    .map(|b| {
                        sum += b.percent;
                        (b.bs, sum)
                    })
                    .collect(),
            );
        }
        if let Some(r) = &job.bsrange {
            let (lo, hi) = [r.read, r.write, r.trim][d];
            if lo != hi {
                return BsDraw::Range(lo, hi);
            }
            return BsDraw::Fixed(lo);
        }
        BsDraw::Fixed([job.bs.read, job.bs.write, job.bs.trim][d])
    };
    [pick(0), pick(1), pick(2)]
}

/// Bytes of `v` out of `whole`.
fn bytes_of(v: SizeOrPct, whole: Option<u64>) -> Option<u64> {
    match v {
        SizeOrPct::Bytes(b) => Some(b),
        SizeOrPct::Percent(p) => whole.map(|w| (w as u128 * u128::from(p) / 100) as u64),
    }
}

/// The files of the run, by path, as jobs name them.
struct Files {
    list: Vec<FileEntry>,
    by_path: HashMap<PathBuf, usize>,
}

impl Files {
    /// The entry of `path`: what is there now, looked at once.
    fn entry(&mut self, path: &Path, job: &Job, allow: Allow) -> Result<usize, String> {
        if let Some(&i) = self.by_path.get(path) {
            return Ok(i);
        }
        let at = if job.filename.is_some() {
            "filename"
        } else {
            "directory"
        };
        let name = shown_path(path);
        let (size, origin) = match std::fs::metadata(path) {
            Ok(md) if md.file_type().is_block_device() => {
                let writes = {
                    let d = dirs_of(job.rw.kind, job.rwmixread);
                    d[1] || d[2]
                };
                let dev = device::check(
                    path,
                    device::Access {
                        write: writes,
                        allow_destroy: allow.destroy,
                        force: allow.force,
                        direct: job.direct,
                    },
                )
                .map_err(|why| {
                    let hint = match why {
                        device::Refusal::Destroy(_) => {
                            ", or run with --allow-destroy to let the job write to it"
                        }
                        _ => "",
                    };
                    refuse(job, at, format!("{name}: {why}{hint}"))
                })?;
                for n in &dev.notes {
                    eprintln!("iogauge: note: {name} {n}");
                }
                (dev.bytes, Origin::Device(dev))
            }
            Ok(md) if md.is_file() => (md.len(), Origin::Existing),
            Ok(_) => {
                return Err(refuse(
                    job,
                    at,
                    format!("{name} is neither a regular file nor a block device"),
                ));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && path.starts_with("/dev") => {
                return Err(refuse(job, at, format!("{name}: no such device")));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let parent = crate::runner::names::dir_of(path);
                if !parent.is_dir() {
                    return Err(refuse(
                        job,
                        at,
                        format!(
                            "cannot create {name}: its directory {} does not exist",
                            shown_path(parent)
                        ),
                    ));
                }
                (0, Origin::Create)
            }
            Err(e) => {
                return Err(refuse(
                    job,
                    at,
                    format!("{name}: {}", crate::error::io_reason(&e)),
                ));
            }
        };
        self.list.push(FileEntry {
            path: path.to_path_buf(),
            size,
            origin,
            read: false,
            write: false,
            fill: false,
            fallocate: job.fallocate,
            create_fsync: job.create_fsync,
        });
        self.by_path.insert(path.to_path_buf(), self.list.len() - 1);
        Ok(self.list.len() - 1)
    }
}

/// The paths job `j` works on.
fn paths_of(j: &Job) -> Vec<PathBuf> {
    let dir = j.directory.as_deref().map(Path::new);
    let under = |n: &str| -> PathBuf {
        let p = Path::new(n);
        match dir {
            Some(d) if p.is_relative() => d.join(p),
            _ => p.to_path_buf(),
        }
    };
    match &j.filename {
        Some(f) => split_names(f).iter().map(|n| under(n)).collect(),
        None => (0..j.nrfiles)
            .map(|i| under(&format!("{}.{}.{}", j.name, j.clone, i)))
            .collect(),
    }
}

/// Plan the run of `jobs` (in the order fio runs them).
pub fn plan(jobs: &[Job], allow: Allow) -> Result<Plan, String> {
    let mut files = Files {
        list: Vec::new(),
        by_path: HashMap::new(),
    };
    let mut out = Plan::default();
    let mut stage: Vec<JobPlan> = Vec::new();
    let mut topology: Option<crate::runner::pin::Topology> = None;
    // fio's exitall is the run's: named by any job, every job's end ends
    // others (each by its own exit_what)
    let exitall = jobs.iter().any(|j| j.exitall);
    for (index, j) in jobs.iter().enumerate() {
        defaults_only(j)?;
        if j.clone == 0 && j.number_ios != 0 && j.time_based {
            out.notes.push(format!(
                "{}: number_ios with time_based: the job runs to its runtime whatever the count, as in fio",
                place(j, "number_ios")
            ));
        }
        report_options_with_logs(j)?;
        let (choice, note) = engine_of(j);
        if let Some(n) = note
            && j.clone == 0
        {
            out.notes.push(n);
        }
        if j.clone == 0 {
            if j.gtod_reduce {
                out.notes.push(format!(
                    "{}: gtod_reduce: iogauge measures every latency anyway (two clock reads per request, about 40 ns), and reports them",
                    place(j, "gtod_reduce")
                ));
            }
            for o in &j.profile_options {
                out.notes.push(format!(
                    "{}: {o} is an option of fio's built-in profiles (tiobench, act): without profile= it does nothing, in fio as here",
                    place(j, o)
                ));
            }
        }
        let queued = choice.caps().queued;
        if j.iodepth > 1 && !queued && j.clone == 0 {
            out.notes.push(format!(
                "{}: ioengine={} issues one request at a time; iodepth={} is capped at 1, as fio does",
                place(j, "iodepth"),
                j.ioengine.name(),
                j.iodepth
            ));
        }
        let depth = if queued { j.iodepth } else { 1 };
        let depth = u16::try_from(depth).map_err(|_| {
            refuse(
                j,
                "iodepth",
                format!("iodepth={depth}: at most {}", u16::MAX),
            )
        })?;
        let batch =
            |v: u32| u16::try_from(if v == 0 { j.iodepth } else { v }.min(u32::from(depth)));
        let min_reap =
            u16::try_from(j.iodepth_batch_complete_min.clamp(1, u32::from(depth))).unwrap_or(depth);
        let queue = QueueOpts {
            batch: batch(j.iodepth_batch).unwrap_or(depth),
            // a full queue waits for one at least (0 too: fio then waits
            // for one when full, and iogauge waits only when full)
            batch_complete: min_reap,
            // fio's default takes as many per wait as it waits for: one
            batch_complete_max: match j.iodepth_batch_complete_max {
                0 => min_reap,
                m => batch(m).unwrap_or(depth).max(min_reap),
            },
            ..Default::default()
        };
        let d = dirs_of(j.rw.kind, j.rwmixread);
        let pattern = if j.rw.kind.is_random() {
            Access::Random
        } else {
            Access::Sequential
        };
        // the advice of fadvise_hint; the mmap engine's madvise follows
        // `access` too, where fio's follows the pattern
        let access = match j.fadvise_hint {
            FadviseHint::None | FadviseHint::Pattern => pattern,
            FadviseHint::Random => Access::Random,
            FadviseHint::Sequential => Access::Sequential,
        };
        if choice == Choice::MMAP && access != pattern {
            return Err(refuse(
                j,
                "fadvise_hint",
                format!(
                    "fadvise_hint={} with ioengine=mmap on a {} pattern is not supported: iogauge's mmap engine advises the mapping as the file",
                    j.fadvise_hint.name(),
                    if pattern == Access::Random {
                        "random"
                    } else {
                        "sequential"
                    }
                ),
            ));
        }
        let queue = if queued {
            queue
        } else if choice == Choice::PVSYNC2 {
            pvsync2_of(j, &mut out.notes)?
        } else {
            QueueOpts::default()
        };
        let engine = EngineSpec::new(choice)
            .direct(j.direct)
            .depth(depth)
            .queue(queue)
            .datasync(j.fdatasync != 0)
            .access(access)
            .fadvise(j.fadvise_hint != FadviseHint::None);
        engine.check().map_err(|e| refuse(j, "ioengine", e))?;
        let bs = bs_of(j);
        // every request slot holds the largest block: refuse what no
        // memory holds (the same bound as the scientific workloads')
        let largest = (0..3)
            .filter(|&x| d[x])
            .map(|x| bs[x].max())
            .max()
            .unwrap_or(0);
        if largest > crate::suites::scientific::MAX_REQUEST {
            return Err(refuse(
                j,
                if j.bssplit.is_some() {
                    "bssplit"
                } else if j.bsrange.is_some() {
                    "bsrange"
                } else {
                    "bs"
                },
                format!(
                    "a block of {} is more than iogauge issues at once ({})",
                    crate::units::fmt_bytes(largest),
                    crate::units::fmt_bytes(crate::suites::scientific::MAX_REQUEST)
                ),
            ));
        }
        let slots = largest.saturating_mul(u64::from(depth));
        let room = crate::env::mem_total() / 2;
        if room > 0 && slots > room {
            return Err(refuse(
                j,
                "iodepth",
                format!(
                    "iodepth={depth} buffers of {} need {}, more than half of this machine's memory",
                    crate::units::fmt_bytes(largest),
                    crate::units::fmt_bytes(slots)
                ),
            ));
        }
        // files and regions
        let paths = paths_of(j);
        let nfiles = paths.len() as u64;
        let mut idx = Vec::with_capacity(paths.len());
        for p in &paths {
            let i = files.entry(p, j, allow)?;
            let e = &mut files.list[i];
            // verify_only reads back what an earlier run wrote
            e.read |= d[0] || j.verify_only;
            e.write |= (d[1] || d[2]) && !j.verify_only;
            e.fill |= e.read || (d[1] && j.overwrite);
            idx.push(i);
        }
        let existing: Vec<Option<u64>> = idx
            .iter()
            .map(|&i| match files.list[i].origin {
                Origin::Create => None,
                _ => Some(files.list[i].size),
            })
            .collect();
        let total_size = match j.size {
            Some(SizeOrPct::Bytes(b)) => Some(b),
            Some(SizeOrPct::Percent(p)) => {
                if existing.iter().any(Option::is_none) {
                    return Err(refuse(
                        j,
                        "size",
                        format!(
                            "size={p}% needs files that exist: {} does not",
                            shown_path(
                                &files.list
                                    [idx[existing.iter().position(Option::is_none).unwrap_or(0)]]
                                .path
                            )
                        ),
                    ));
                }
                Some(
                    existing
                        .iter()
                        .flatten()
                        .map(|s| s * u64::from(p) / 100)
                        .sum(),
                )
            }
            None => None,
        };
        let mut rng = crate::workload::worker_rng(j.randseed, index);
        let mut regions = Vec::with_capacity(idx.len());
        for (k, &fi) in idx.iter().enumerate() {
            let have = existing[k];
            let file_len = match (j.filesize, total_size) {
                (Some((lo, hi)), _) => Some(if lo == hi {
                    lo
                } else {
                    lo + below(&mut rng, hi - lo + 1)
                }),
                (None, Some(t)) => Some(t / nfiles),
                (None, None) => None,
            };
            let base = bytes_of(j.offset, have).ok_or_else(|| {
                refuse(j, "offset", "an offset in percent needs a file that exists")
            })?;
            let inc = bytes_of(j.offset_increment, have).ok_or_else(|| {
                refuse(
                    j,
                    "offset_increment",
                    "an offset_increment in percent needs a file that exists",
                )
            })?;
            let start = base.saturating_add(inc.saturating_mul(u64::from(j.clone)));
            let len = match (file_len, have) {
                (Some(l), _) => l,
                (None, Some(h)) => h.saturating_sub(start),
                (None, None) => {
                    return Err(refuse(
                        j,
                        "size",
                        format!(
                            "{} does not exist: give size= (or filesize=) for the job to create it",
                            shown_path(&files.list[fi].path)
                        ),
                    ));
                }
            };
            let min_bs = (0..3)
                .filter(|&x| d[x])
                .map(|x| bs[x].min())
                .min()
                .unwrap_or(1);
            if len < min_bs {
                return Err(refuse(
                    j,
                    "size",
                    format!(
                        "{} gets {len} bytes from offset {start}, less than one {min_bs}-byte block",
                        shown_path(&files.list[fi].path)
                    ),
                ));
            }
            let end = start
                .checked_add(len)
                .ok_or_else(|| refuse(j, "offset", "the offset and size go past 2^64 bytes"))?;
            let e = &mut files.list[fi];
            match &e.origin {
                Origin::Create => e.size = e.size.max(end),
                Origin::Existing | Origin::Device(_) if end > e.size => {
                    return Err(refuse(
                        j,
                        if j.size.is_some() { "size" } else { "offset" },
                        format!(
                            "{} holds {} bytes; the job's part of it ends at byte {end} (iogauge does not extend a file it did not create)",
                            shown_path(&e.path),
                            e.size
                        ),
                    ));
                }
                _ => {}
            }
            if matches!(e.origin, Origin::Existing)
                && (d[1] || d[2])
                && !j.verify_only
                && !allow.write
            {
                return Err(refuse(
                    j,
                    if j.filename.is_some() {
                        "filename"
                    } else {
                        "rw"
                    },
                    format!(
                        "{} exists and the job would write to it: run with --allow-write to let it, or remove the file",
                        shown_path(&e.path)
                    ),
                ));
            }
            regions.push(Region {
                file: fi,
                start,
                len,
            });
        }
        let io_size: u64 = match total_size {
            Some(t) if j.filesize.is_none() => t,
            _ => regions.iter().map(|r| r.len).sum(),
        };
        // fio's io_size: the bytes of a loop, passes over the regions
        // repeated (or cut short) to move them
        let loop_bytes = match j.io_size {
            None => io_size,
            Some(SizeOrPct::Bytes(b)) => b,
            Some(SizeOrPct::Percent(p)) => {
                let b = (u128::from(io_size) * u128::from(p) / 100) as u64;
                let unit = (0..3)
                    .filter(|&x| d[x])
                    .map(|x| bs[x].min())
                    .min()
                    .unwrap_or(1);
                b - b % unit
            }
        };
        if j.io_size.is_some() && loop_bytes == 0 {
            return Err(refuse(j, "io_size", "io_size comes to 0 bytes"));
        }
        if j.io_size.is_some() && loop_bytes != io_size && j.verify != "0" {
            return Err(refuse(
                j,
                "io_size",
                format!(
                    "io_size={} with verify is not supported: the verify phase checks one pass of {io_size} bytes",
                    loop_bytes
                ),
            ));
        }
        // a trimwrite trims each byte, then writes it: twice the bytes
        let twice = if d[1] && d[2] { 2 } else { 1 };
        let budget = (!j.time_based).then(|| {
            loop_bytes
                .saturating_mul(u64::from(j.loops.max(1)))
                .saturating_mul(twice)
        });
        let dist =
            dist::parse(&j.random_distribution).map_err(|e| refuse(j, "random_distribution", e))?;
        // fio's random map covers any block sizes (in blocks of the
        // smallest); a skewed distribution draws without it
        // fio's lfsr visits each block once per pass without a map, also
        // with norandommap: the random map does the same here
        let lfsr = j.random_generator == "lfsr";
        let random_map =
            j.rw.kind.is_random() && (!j.norandommap || lfsr) && matches!(dist, Dist::Random);
        if random_map {
            let ba = [j.ba.read, j.ba.write, j.ba.trim];
            if (0..3).any(|x| d[x] && ba[x] != 0 && ba[x] != bs[x].min()) {
                return Err(refuse(
                    j,
                    "ba",
                    "ba other than the smallest block with fio's random map or lfsr is not supported (fio's map then counts blocks of one size and offsets of the other): add norandommap",
                ));
            }
        }
        if j.clone == 0 && j.origin.contains_key("random_generator") {
            out.notes.push(format!(
                "{}: random_generator={}: iogauge draws offsets from its own generator (fio's sequence is not reproduced){}",
                place(j, "random_generator"),
                j.random_generator,
                if lfsr {
                    "; each block once per pass, as lfsr, by the random map"
                } else {
                    ""
                }
            ));
        }
        let seed = if j.randrepeat {
            j.randseed
        } else {
            crate::measure::clock::now_ns() ^ u64::from(std::process::id())
        };
        let req = j.pin_request();
        let pin = if req == crate::runner::pin::PinRequest::default() {
            None
        } else {
            if topology.is_none() {
                topology = Some(crate::runner::pin::Topology::detect().map_err(|e| {
                    refuse(
                        j,
                        "cpus_allowed",
                        format!(
                            "cannot read this machine's CPUs and nodes: {}",
                            crate::error::io_reason(&e)
                        ),
                    )
                })?);
            }
            let topo = topology.as_ref().expect("detected above");
            use crate::runner::pin::{Pinning, Refusal};
            let p = Pinning::resolve(&req, topo).map_err(|r| match r {
                Refusal::Cpus(w) => refuse(j, "cpus_allowed", w),
                Refusal::CpuNodes(w) => refuse(j, "numa_cpu_nodes", w),
                Refusal::MemNodes(w) => refuse(j, "numa_mem_policy", w),
            })?;
            p.is_set().then_some(p)
        };
        super::buffers::check(j)?;
        let verify = super::verify::spec(j, &bs, &regions, io_size, seed, random_map)?;
        if verify.is_some() && j.verify_async != 0 && j.clone == 0 {
            out.notes.push(format!(
                "{}: verify_async={}: iogauge checks each verify read in the job's own thread as it completes (the same checks, no offload threads)",
                place(j, "verify_async"),
                j.verify_async
            ));
        }
        let think = think_of(j);
        if verify.as_ref().is_some_and(|v| v.phase) && think.is_some() {
            return Err(refuse(
                j,
                "thinktime",
                "thinktime with verify is not supported: the verify phase drives the writes without pauses",
            ));
        }
        let (start_delay, number_ios, min_rate) = control_of(j, seed, index, verify.is_some())?;
        let exit = match (exitall, j.exitall_on_error) {
            (true, _) => Some(Exit {
                what: j.exit_what,
                always: true,
            }),
            (false, true) => Some(Exit {
                what: j.exit_what,
                always: false,
            }),
            (false, false) => None,
        };
        let plan = JobPlan {
            start_delay,
            number_ios,
            min_rate,
            exit,
            verify,
            pin,
            job: j.clone(),
            index,
            regions,
            engine,
            pace: pace_of(j, &bs)?,
            think,
            depth_low: depth_low_of(j, depth),
            bs,
            budget,
            runtime: (j.runtime_ns != 0).then(|| Duration::from_nanos(j.runtime_ns)),
            sync_every: match (j.fsync, j.fdatasync) {
                (0, 0) => None,
                (0, n) | (n, _) => Some(u64::from(n)),
            },
            dist,
            random_map,
            seed,
        };
        // a stonewall (or a wait_for that is one) starts a new stage
        let waits = j.stonewall && j.clone == 0;
        if let Some(w) = &j.wait_for
            && j.clone == 0
            && !stage.is_empty()
            && !stage.iter().all(|p| &p.job.name == w)
        {
            return Err(refuse(
                j,
                "wait_for",
                format!(
                    "wait_for={w} while other jobs run beside {w}: iogauge runs jobs in stages; give stonewall to wait for all of them"
                ),
            ));
        }
        if (waits || (j.wait_for.is_some() && j.clone == 0)) && !stage.is_empty() {
            out.stages.push(std::mem::take(&mut stage));
        }
        stage.push(plan);
    }
    if !stage.is_empty() {
        out.stages.push(stage);
    }
    for st in &out.stages {
        let ramps: Vec<u64> = st.iter().map(|p| p.job.ramp_time_ns).collect();
        if ramps.iter().any(|r| *r != ramps[0]) {
            let j = &st[ramps.iter().position(|r| *r != ramps[0]).unwrap_or(0)].job;
            return Err(refuse(
                j,
                "ramp_time",
                "jobs that run together with different ramp_time are not supported: give them one ramp_time",
            ));
        }
    }
    for st in &out.stages {
        super::steady::stage_settings(st)?;
    }
    super::verify::check_stages(&out.stages, &files.list)?;
    out.files = files.list;
    Ok(out)
}

/// A job's start and stop controls: its start delay (a range drawn from
/// its seed and number), its request budget and its least rates.
fn control_of(
    j: &Job,
    seed: u64,
    index: usize,
    verified: bool,
) -> Result<(Duration, Option<u64>, Option<MinRate>), String> {
    let (lo, hi) = j.startdelay_ns;
    let delay = if hi > lo {
        let mut rng = crate::workload::worker_rng(seed ^ 0x5741_5254, index);
        lo + below(&mut rng, hi - lo + 1)
    } else {
        lo
    };
    // fio ignores number_ios in a time-based job (its loop runs on to the
    // runtime whatever the count)
    let number_ios = if j.number_ios == 0 || j.time_based {
        None
    } else {
        if verified {
            return Err(refuse(
                j,
                "number_ios",
                "number_ios with verify is not supported: the verify phase reads what the writes wrote",
            ));
        }
        let twice = matches!(j.rw.kind, RwKind::TrimWrite | RwKind::RandTrimWrite);
        Some(
            j.number_ios
                .saturating_mul(u64::from(j.loops.max(1)))
                .saturating_mul(if twice { 2 } else { 1 }),
        )
    };
    let bytes = [j.rate_min.read, j.rate_min.write, j.rate_min.trim];
    let iops = [
        j.rate_iops_min.read,
        j.rate_iops_min.write,
        j.rate_iops_min.trim,
    ];
    if bytes.iter().any(|&b| b != 0) && iops.iter().any(|&b| b != 0) {
        return Err(refuse(
            j,
            "rate_iops_min",
            "rate_min and rate_iops_min are mutually exclusive (as in fio): give one",
        ));
    }
    let rate = [j.rate.read, j.rate.write, j.rate.trim];
    let rate_iops = [j.rate_iops.read, j.rate_iops.write, j.rate_iops.trim];
    for d in 0..3 {
        if (rate[d] != 0 && rate[d] < bytes[d]) || (rate_iops[d] != 0 && rate_iops[d] < iops[d]) {
            let opt = if bytes[d] != 0 {
                "rate_min"
            } else {
                "rate_iops_min"
            };
            return Err(refuse(
                j,
                opt,
                format!(
                    "the least {} rate is above the job's rate cap (fio: minimum rate exceeds rate)",
                    ["read", "write", "trim"][d]
                ),
            ));
        }
    }
    let min_rate = (bytes.iter().chain(&iops).any(|&x| x != 0)).then(|| MinRate {
        bytes,
        iops,
        cycle_ns: j.rate_cycle_ms.saturating_mul(1_000_000),
    });
    Ok((Duration::from_nanos(delay), number_ios, min_rate))
}

/// The default text of `rw` for the report (`randrw`, `read`, …).
pub fn rw_text(j: &Job) -> String {
    j.rw.to_string()
}

/// fio's bs pairs for the header: (min, max) per direction.
pub fn bs_pairs(p: &JobPlan) -> [(u64, u64); 3] {
    [0, 1, 2].map(|d| (p.bs[d].min(), p.bs[d].max()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::fio::jobfile::{self, Machine, Settings};

    fn jobs(text: &str) -> Vec<Job> {
        let env = |_: &str| None;
        let body = text.as_bytes().to_vec();
        let read = move |_: &Path| Ok(body.clone());
        let s = Settings {
            sections: vec![],
            ignore_unsupported: false,
            env: &env,
            machine: Machine {
                ncpus: 2,
                pagesize: 4096,
                mb_memory: 1024,
            },
            read: &read,
        };
        jobfile::parse(&[], &[PathBuf::from("t.fio")], &s)
            .unwrap()
            .jobs
    }

    fn planned(text: &str) -> Result<Plan, String> {
        plan(&jobs(text), Allow::default())
    }

    #[test]
    fn names_split_on_colons_but_not_escaped_ones() {
        assert_eq!(split_names("a:b\\:c::d"), vec!["a", "b:c", "d"]);
        assert_eq!(split_names("/dev/sda"), vec!["/dev/sda"]);
    }

    #[test]
    fn default_files_are_name_clone_number_in_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let p = planned(&format!(
            "[global]\ndirectory={d}\nsize=64k\n[a]\nnrfiles=2\nnumjobs=2\nrw=randread\n"
        ))
        .unwrap();
        let names: Vec<String> = p
            .files
            .iter()
            .map(|f| f.path.file_name().unwrap().to_string_lossy().into())
            .collect();
        assert_eq!(names, vec!["a.0.0", "a.0.1", "a.1.0", "a.1.1"]);
        assert!(
            p.files
                .iter()
                .all(|f| f.size == 32 << 10 && f.read && !f.write)
        );
        assert_eq!(p.stages.len(), 1);
        assert_eq!(p.stages[0].len(), 2);
        assert_eq!(p.stages[0][0].budget, Some(64 << 10));
        assert!(p.stages[0][0].random_map);
    }

    #[test]
    fn stonewall_makes_stages_and_offsets_grow_per_clone() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let p = planned(&format!(
            "[global]\ndirectory={d}\nfilename=shared\nsize=1m\n[w]\nrw=write\nnumjobs=2\noffset_increment=1m\n[r]\nstonewall\nrw=read\nbs=64k\n"
        ))
        .unwrap();
        assert_eq!(p.files.len(), 1);
        assert_eq!(p.files[0].size, 2 << 20, "two clones, 1 MiB apart");
        assert!(p.files[0].read && p.files[0].write);
        assert_eq!(p.stages.len(), 2);
        let starts: Vec<u64> = p.stages[0].iter().map(|j| j.regions[0].start).collect();
        assert_eq!(starts, vec![0, 1 << 20]);
        assert_eq!(p.stages[1][0].bs[0], BsDraw::Fixed(64 << 10));
    }

    /// pvsync and pvsync2 run as themselves; pvsync2's options become its
    /// flags as fio sets them: no share without hipri, no RWF_DONTCACHE
    /// with O_DIRECT, a nowait EAGAIN that ends the job.
    #[test]
    fn pvsync2_options_become_its_flags() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let engine = |opts: &str| {
            let p = planned(&format!("[j]\ndirectory={d}\nsize=64k\n{opts}")).unwrap();
            (p.stages[0][0].engine, p.notes)
        };
        let (e, notes) = engine("ioengine=pvsync\n");
        assert_eq!((e.choice, e.queue), (Choice::PVSYNC, QueueOpts::default()));
        assert!(notes.is_empty(), "{notes:?}");
        let (e, _) = engine("ioengine=pvsync2\nhipri\nhipri_percentage=30\nnowait=1\n");
        assert_eq!(e.choice, Choice::PVSYNC2);
        let want = QueueOpts {
            hipri: true,
            hipri_percentage: Some(30),
            nowait: true,
            eagain_fails: true,
            ..Default::default()
        };
        assert_eq!(e.queue, want);
        // a share alone asks nothing, as in fio; 100 is every request
        let (e, _) = engine("ioengine=pvsync2\nhipri_percentage=30\n");
        assert_eq!(e.queue, QueueOpts::default());
        let (e, _) = engine("ioengine=pvsync2\nhipri\nhipri_percentage=100\n");
        assert_eq!((e.queue.hipri, e.queue.hipri_percentage), (true, None));
        // RWF_DONTCACHE on buffered I/O only
        let (e, _) = engine("ioengine=pvsync2\nuncached=1\ndirect=1\n");
        assert!(!e.queue.uncached && e.direct);
        let p = planned(&format!(
            "[j]\ndirectory={d}\nsize=64k\nioengine=pvsync2\nuncached=1\n"
        ));
        if crate::engine::kernel_has_dontcache() {
            let p = p.unwrap();
            assert!(p.stages[0][0].engine.queue.uncached);
            assert!(
                p.notes[0].contains("uncached sets RWF_DONTCACHE"),
                "{:?}",
                p.notes
            );
        } else {
            let e = p.unwrap_err();
            assert!(e.contains(":5: uncached asks RWF_DONTCACHE"), "{e}");
        }
    }

    #[test]
    fn rate_iops_is_a_byte_cap_at_the_smallest_block() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let p = planned(&format!(
            "[j]\ndirectory={d}\nsize=1m\nrw=randrw\nbs=4k,8k\nrate_iops=100,50\n"
        ))
        .unwrap();
        let cap = p.stages[0][0].pace.unwrap().cap;
        assert_eq!(cap.read, Some(409_600.0));
        assert_eq!(cap.write, Some(409_600.0));
        assert!(p.stages[0][0].random_map, "the map is in 4 KiB blocks");
    }

    #[test]
    fn what_cannot_run_is_refused_at_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let e = planned(&format!("[j]\ndirectory={d}\nrw=read\n")).unwrap_err();
        assert!(
            e.starts_with("t.fio:1: ") && e.contains("give size="),
            "{e}"
        );
        let e = planned(&format!("[j]\ndirectory={d}\nsize=1m\nverify=crc32c\n")).unwrap_err();
        assert!(e.starts_with("t.fio:4: "), "{e}");
        let e = planned(&format!("[j]\ndirectory={d}\nsize=1m\ntime_based\n")).unwrap_err();
        assert!(e.contains("needs a runtime"), "{e}");
        let e = planned(&format!(
            "[a]\ndirectory={d}\nsize=1m\n[b]\ndirectory={d}\nsize=1m\n[c]\ndirectory={d}\nsize=1m\nwait_for=a\n"
        ))
        .unwrap_err();
        assert!(
            e.starts_with("t.fio:10: ") && e.contains("stonewall"),
            "{e}"
        );
        // a file of the user's is not written without --allow-write
        std::fs::write(dir.path().join("mine"), vec![0u8; 1 << 20]).unwrap();
        let e = planned(&format!("[j]\ndirectory={d}\nfilename=mine\nrw=write\n")).unwrap_err();
        assert!(e.contains("--allow-write"), "{e}");
        // nor extended
        let e = planned(&format!("[j]\ndirectory={d}\nfilename=mine\nsize=2m\n")).unwrap_err();
        assert!(e.contains("does not extend"), "{e}");
        // but read, whole, without a size
        let p = planned(&format!("[j]\ndirectory={d}\nfilename=mine\n")).unwrap();
        assert_eq!(p.stages[0][0].regions[0].len, 1 << 20);
        assert!(matches!(p.files[0].origin, Origin::Existing));
    }

    #[test]
    fn verify_takes_fios_interval_and_order() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let v = |extra: &str| {
            planned(&format!(
                "[j]\ndirectory={d}\nsize=1m\nrw=randwrite\nverify=md5\n{extra}\n"
            ))
            .map(|p| p.stages[0][0].verify.unwrap())
        };
        let s = v("").unwrap();
        assert_eq!(
            (s.unit, s.phase, s.sorted, s.only),
            (4096, true, false, false)
        );
        assert!(v("norandommap").unwrap().sorted, "writes may overlap");
        assert!(v("random_distribution=zipf:1.2").unwrap().sorted);
        assert_eq!(v("bssplit=8k/50:64k/50").unwrap().unit, 8192);
        assert_eq!(v("bs=16k\nverify_interval=4k").unwrap().unit, 4096);
        assert!(!v("do_verify=0").unwrap().phase);
        // the seed is the job's: another name, another payload
        let a = v("").unwrap().seed;
        let b = planned(&format!(
            "[k]\ndirectory={d}\nsize=1m\nrw=randwrite\nverify=md5\n"
        ))
        .unwrap()
        .stages[0][0]
            .verify
            .unwrap()
            .seed;
        assert_ne!(a, b);
        // fio falls back to the block when the interval does not divide it
        assert_eq!(v("verify_interval=100").unwrap().unit, 4096);
        let e = v("bs=1000").unwrap_err();
        assert!(
            e.starts_with("t.fio:6: ") && e.contains("multiple of 512"),
            "{e}"
        );
    }

    #[test]
    fn think_times_depth_low_and_patterns_plan_as_fio() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let one = |extra: &str| {
            planned(&format!("[j]\ndirectory={d}\nsize=64k\n{extra}"))
                .map(|p| p.stages[0][0].clone())
        };
        let j = one("thinktime=1ms\nthinktime_spin=200\nthinktime_blocks=8\n").unwrap();
        assert_eq!(
            j.think,
            Some(Think {
                total_ns: 1_000_000,
                spin_ns: 200_000,
                blocks: 8,
                issue: false,
                iotime_ns: 0
            })
        );
        assert!(j.pace.is_none(), "a think time is not the runner's pace");
        // thinktime_iotime alone: time decides, not the default 1 block
        let j = one("thinktime=1ms\nthinktime_iotime=2\nthinktime_blocks_type=issue\n").unwrap();
        let t = j.think.unwrap();
        assert_eq!((t.blocks, t.iotime_ns, t.issue), (0, 2_000_000_000, true));
        assert!(one("thinktime_blocks=8\n").unwrap().think.is_none());
        // iodepth_low: 0 or at least the depth is no drain
        let j = one("ioengine=libaio\niodepth=16\niodepth_low=4\n").unwrap();
        assert_eq!(j.depth_low, Some(4));
        assert_eq!(
            one("ioengine=libaio\niodepth=16\niodepth_low=32\n")
                .unwrap()
                .depth_low,
            None
        );
        assert_eq!(
            one("iodepth=16\niodepth_low=4\n").unwrap().depth_low,
            None,
            "psync: depth 1"
        );
        // trimwrite moves twice the bytes: each trimmed, then written
        let j = one("rw=trimwrite\n").unwrap();
        assert_eq!((j.dirs(), j.budget), ([false, true, true], Some(128 << 10)));
        assert!(one("rw=randtrimwrite\n").unwrap().random_map);
        let e = one("rw=trimwrite\nbs=4k,8k,4k\n").unwrap_err();
        assert!(e.starts_with("t.fio:4: ") && e.contains("one bs"), "{e}");
        let e = one("rw=read:-2k\n").unwrap_err();
        assert!(e.contains("smaller than the largest block"), "{e}");
        assert_eq!(one("rw=read:-8k\n").unwrap().job.rw.seq_add, -8192);
    }

    #[test]
    fn block_sizes_draw_as_fio_does() {
        let mut rng = crate::workload::worker_rng(1, 0);
        let r = BsDraw::Range(4096, 65536);
        for _ in 0..1000 {
            let b = r.draw(&mut rng);
            assert!((4096..=65536).contains(&b) && b.is_multiple_of(4096), "{b}");
        }
        let s = BsDraw::Split(vec![(4096, 10), (65536, 100)]);
        let small = (0..10_000).filter(|_| s.draw(&mut rng) == 4096).count();
        assert!((800..1200).contains(&small), "{small}");
    }

    /// number_ios times loops, twice for trimwrite, none when time-based;
    /// a startdelay range drawn inside it; exitall anywhere is the run's.
    #[test]
    fn start_and_stop_controls_are_planned_as_fio_runs_them() {
        let p = planned(
            "[global]\nioengine=null\nsize=1m\nnumber_ios=100\n[a]\nloops=3\n\
             [b]\nrw=trimwrite\n[c]\ntime_based\nruntime=1\n\
             [d]\nstartdelay=1-2\nexitall\nexit_what=stonewall\n[e]\nexitall_on_error\nnumber_ios=0\n",
        )
        .unwrap();
        let st = &p.stages[0];
        let n: Vec<Option<u64>> = st.iter().map(|j| j.number_ios).collect();
        assert_eq!(n, [Some(300), Some(200), None, Some(100), None]);
        let d = st[3].start_delay;
        assert!(
            d >= Duration::from_secs(1) && d <= Duration::from_secs(2),
            "{d:?}"
        );
        assert!(st[0].start_delay.is_zero());
        // exitall in job d holds for all; each keeps its own exit_what
        assert!(st.iter().all(|j| j.exit.is_some_and(|e| e.always)));
        assert_eq!(st[3].exit.unwrap().what, ExitWhat::Stonewall);
        assert_eq!(st[0].exit.unwrap().what, ExitWhat::Group);
        let p =
            planned("[a]\nioengine=null\nsize=1m\nexitall_on_error\nrate_iops_min=5\n").unwrap();
        let a = &p.stages[0][0];
        assert_eq!(a.exit.map(|e| e.always), Some(false));
        assert_eq!(a.min_rate.unwrap().iops, [5, 5, 5]);
        assert_eq!(a.min_rate.unwrap().cycle_ns, 1_000_000_000);
        assert!(planned("[a]\nsize=1m\nrw=write\nverify=md5\nnumber_ios=5\n").is_err());
    }
}
