//! Chen & Patterson's Self-Scaling Benchmark with Predicted Performance
//! (Proc. IEEE 81(8), 1993, §IX-B; docs/selfscale.md).
//!
//! - [`explore`]: sweep uniqueBytes, find the regions ([`regions`]), pick
//!   each region's focal vector ([`focal`]) and measure one curve per
//!   parameter;
//! - [`bench`]: measure one workload adaptively (until the confidence
//!   interval is narrow enough or a time cap), on data laid out once;
//! - [`cgroup`]: bound the page cache with a memory cgroup, so the device
//!   region is reached without writing twice the machine's memory;
//! - [`model`]: the model file; [`predict`]: the product of
//!   single-parameter ratios; [`validate`]: random workloads measured twice
//!   and predicted (Fig. 20–21); [`refine`]: two-parameter corrections;
//! - [`graphs`] and [`summary`]: the graphs (drawn by
//!   [`crate::report::plot::workload`]) and the text.
//!
//! [`run`] builds a model into an output directory, [`validate_model`]
//! validates one, and [`short_pass`] is the survey's quick look.

pub mod bench;
pub mod cgroup;
pub mod explore;
pub mod focal;
pub mod graphs;
pub mod model;
pub mod predict;
pub mod refine;
pub mod regions;
pub mod result;
pub mod summary;
pub mod validate;

#[cfg(test)]
pub(crate) mod tests;

pub use bench::{Observer, Quiet};
pub use model::{Model, Param, Point, Workload};
pub use result::SelfScale;

use crate::engine::FsyncPolicy;
use crate::error::UsageError;
use crate::report::RunResult;
use crate::report::plot::workload::scatter_svg;
use crate::session::generic::IoSetup;
use anyhow::Result;
use bench::{Bench, BenchConfig, Precision};
use explore::Plan;
use model::{Ranges, Settings, short_bytes};
use serde_json::json;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
/// Counted batches a point needs before its interval may stop it.
const MIN_BATCHES: u32 = 4;

/// `--memory-limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryLimit {
    /// Bound the page cache when this machine allows (the default).
    Auto,
    Off,
    Bytes(u64),
}

/// What the user asked for (after parsing, before looking at the machine).
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub dir: PathBuf,
    pub quick: bool,
    pub min_bytes: Option<u64>,
    pub max_bytes: Option<u64>,
    pub memory_limit: MemoryLimit,
    pub engine: crate::engine::Choice,
    pub direct: bool,
    /// Requests each worker keeps in flight.
    pub iodepth: u16,
    /// The queued engine's flags.
    pub queue: crate::engine::QueueOpts,
    pub fsync: FsyncPolicy,
    pub fdatasync: bool,
    pub size_cv: f64,
    pub seed: u64,
    /// An extension of the method: every point's random requests draw
    /// their block from this distribution (uniform by default).
    pub distribution: crate::workload::dist::Dist,
    pub precision: Option<f64>,
    pub point_time: Option<Duration>,
    pub max_regions: Option<usize>,
    /// Measure the curves where parameters interact: the processNum curve
    /// again at readFrac 0 and 1 in every region (processes and writers),
    /// the readFrac, seqFrac and processNum curves again with 4 KiB
    /// requests in every region, and the sweep again at readFrac 0 and 1,
    /// with a process per CPU and with 256 KiB requests; on by default.
    pub interactions: bool,
}

impl Options {
    pub fn new(dir: &Path) -> Options {
        Options {
            dir: dir.to_path_buf(),
            quick: false,
            min_bytes: None,
            max_bytes: None,
            memory_limit: MemoryLimit::Auto,
            engine: crate::engine::Choice::PSYNC,
            direct: false,
            fsync: FsyncPolicy::Never,
            fdatasync: false,
            iodepth: 1,
            queue: Default::default(),
            size_cv: 1.0,
            seed: 1,
            distribution: Default::default(),
            precision: None,
            point_time: None,
            max_regions: None,
            interactions: true,
        }
    }
}

/// The choices made for this machine, and the lines that say why.
#[derive(Clone, Debug)]
pub struct Setup {
    pub settings: Settings,
    pub plan: Plan,
    pub bench: BenchConfig,
    pub ranges: Ranges,
    /// The page-cache bound to enter, and whether the user asked for it.
    pub memory_limit: Option<(u64, bool)>,
    pub environment: crate::env::Environment,
    pub lines: Vec<String>,
}

fn fsync_name(p: FsyncPolicy) -> String {
    match p {
        FsyncPolicy::Never => "never".into(),
        FsyncPolicy::End => "end".into(),
        FsyncPolicy::Every(n) => format!("every={n}"),
    }
}

/// Round down to a multiple of `step` (at least `step`).
fn floor_to(x: u64, step: u64) -> u64 {
    (x - x % step).max(step)
}

/// How each point prepares the page cache (see [`bench`]): the largest
/// uniqueBytes written again before a point, and the bound past which a
/// point starts from a fresh file's tail; both `None` where no page cache
/// is in play (O_DIRECT, the null engine, tmpfs). `bound`: the memory
/// cgroup's limit, `None` for the machine's whole memory.
fn cache_prep(
    direct: bool,
    fake: bool,
    memory_fs: bool,
    bound: Option<u64>,
) -> (Option<u64>, Option<u64>) {
    if direct || fake || memory_fs {
        (None, None)
    } else {
        match bound {
            Some(l) => (Some(l / 10 * 8), Some(l)),
            None => (Some(bench::mem_available() / 2), None),
        }
    }
}

/// Look at the machine and the directory and decide everything: the
/// page-cache bound, the sweep, the precision. Bad combinations are usage
/// errors.
pub fn choose(o: &Options) -> Result<Setup> {
    check_options(o)?;
    let fake = o.engine.is_fake();
    let environment = crate::env::detect(&o.dir);
    let memory_fs = matches!(environment.fs_type.as_str(), "tmpfs" | "ramfs");
    let align: u64 = if o.direct { 4096 } else { 512 };
    let q = o.quick;
    let mem = environment.memory_bytes;
    let mut lines = Vec::new();
    let no_cache = no_cache(o, memory_fs);
    let memory_limit = memory_limit(o, no_cache, mem, &mut lines)?;
    let limit = memory_limit.map(|m| m.0);
    let size_max = size_max(q, limit, align);
    let (min_bytes, max_bytes, why) = sweep_range(o, memory_fs, limit, mem, align)?;
    let precision = precision(o);
    let cpus = environment.cpus.max(1) as u32;
    let max_regions = o.max_regions.unwrap_or(if q { 2 } else { 3 });
    let plan = plan(
        o,
        [min_bytes, max_bytes],
        align,
        size_max,
        cpus,
        max_regions,
        precision.target,
    );
    let ranges = Ranges {
        unique_bytes: [min_bytes, max_bytes],
        size_mean: [align.max(512), size_max],
        read_frac: [0.0, 1.0],
        seq_frac: [0.0, 1.0],
        process_num: [1, 4 * cpus],
    };
    let settings = settings(o, &precision, align, max_regions, &plan, &environment);
    lines.insert(0, workload_line(o));
    lines.extend(page_cache_line(memory_limit, no_cache, mem));
    lines.extend(plan_lines(&plan, &ranges, &precision, &why));
    // the bound anticipated; `run` sets it again once the cgroup is entered
    let (warm_limit, cache_bytes) = cache_prep(o.direct, fake, memory_fs, limit);
    let bench = BenchConfig {
        dir: o.dir.clone(),
        setup: IoSetup {
            engine: o.engine,
            direct: o.direct,
            iodepth: o.iodepth,
            queue: o.queue,
            fsync: o.fsync,
            fdatasync: o.fdatasync,
            cold: false,
            noatime: false,
        },
        size_cv: o.size_cv,
        seed: o.seed,
        align,
        distribution: o.distribution.clone(),
        max_bytes,
        precision,
        warm_limit,
        cache_bytes,
    };
    Ok(Setup {
        settings,
        plan,
        bench,
        ranges,
        memory_limit,
        environment,
        lines,
    })
}

/// The settings the model file records: the options and the choices made
/// (no page-cache bound yet: `run` sets it once the cgroup is entered).
fn settings(
    o: &Options,
    precision: &Precision,
    align: u64,
    max_regions: usize,
    plan: &Plan,
    environment: &crate::env::Environment,
) -> Settings {
    Settings {
        engine: o.engine.name().to_string(),
        direct: o.direct,
        iodepth: o.iodepth,
        queue: o.queue,
        fsync: fsync_name(o.fsync),
        fdatasync: o.fdatasync,
        size_cv: o.size_cv,
        seed: o.seed,
        align,
        distribution: o.distribution.clone(),
        memory_limit: None,
        memory_limit_via: None,
        quick: o.quick,
        precision: precision.target,
        point_time_s: precision.cap.as_secs_f64(),
        batch_s: precision.batch.as_secs_f64(),
        max_regions,
        tolerance: plan.tolerance,
        dir: environment.target_dir.clone(),
    }
}

/// The largest mean request size of the sweep: 2 MiB quick, else 4 MiB,
/// less under a page-cache bound.
fn size_max(quick: bool, limit: Option<u64>, align: u64) -> u64 {
    let top: u64 = if quick { 2 * MIB } else { 4 * MIB };
    match limit {
        // 8 workers × 16·sizeMean of buffers stay under half the limit
        Some(l) => floor_to(top.min(l / 256), align).max(64 << 10),
        None => top,
    }
}

/// The options that are usage errors: a directory that cannot be worked
/// in, an engine that cannot run as asked, values out of range, and
/// `--direct` where the file system refuses O_DIRECT.
fn check_options(o: &Options) -> Result<()> {
    crate::runner::workdir::check_dir(&o.dir).map_err(|e| UsageError::new(e.to_string()))?;
    crate::engine::EngineSpec::new(o.engine)
        .direct(o.direct)
        .depth(o.iodepth)
        .queue(o.queue)
        .check()
        .map_err(UsageError)?;
    bench::check_fsync(o.fsync).map_err(UsageError)?;
    if !(o.size_cv.is_finite() && o.size_cv >= 0.0) {
        crate::usage!("--size-cv must be ≥ 0, not {}", o.size_cv);
    }
    if let Some(p) = o.precision
        && !(p > 0.0 && p < 1.0)
    {
        crate::usage!("--precision must be between 0 and 1 (0.03 is ±3 %), not {p}");
    }
    if o.point_time.is_some_and(|t| t < Duration::from_millis(20)) {
        crate::usage!("--point-time must be at least 20ms");
    }
    if let Some(r) = o.max_regions
        && !(1..=6).contains(&r)
    {
        crate::usage!("--max-regions must be between 1 and 6, not {r}");
    }
    if o.direct && !o.engine.is_fake() && !crate::env::supports_direct(&o.dir).unwrap_or(false) {
        crate::usage!(
            "{} does not accept O_DIRECT (its file system refuses it); drop --direct",
            o.dir.display()
        );
    }
    Ok(())
}

/// Why no page cache is in play, when none is (`memory_fs`: the directory
/// is on tmpfs or ramfs).
fn no_cache(o: &Options, memory_fs: bool) -> Option<&'static str> {
    if o.direct {
        Some("--direct bypasses the page cache")
    } else if o.engine.is_fake() {
        Some("the null engine does no I/O")
    } else if memory_fs {
        Some(
            "tmpfs files are the page cache: a cgroup limit below their size ends in the OOM killer",
        )
    } else {
        None
    }
}

/// The page-cache bound to enter, and whether the user asked for it: the
/// one `--memory-limit` names, or by default a quarter of the machine's
/// memory `mem` (64 MiB steps, 256 MiB … 1 GiB; 512 MiB with `--quick`)
/// where a cgroup can bound it. A default that cannot be had is a line in
/// `lines`; a bound asked for that cannot is a usage error.
fn memory_limit(
    o: &Options,
    no_cache: Option<&str>,
    mem: u64,
    lines: &mut Vec<String>,
) -> Result<Option<(u64, bool)>> {
    let default_limit = {
        let d = if o.quick { 512 * MIB } else { GIB };
        if mem > 0 {
            floor_to(d.min(mem / 4), 64 * MIB).max(256 * MIB)
        } else {
            d
        }
    };
    Ok(match (o.memory_limit, no_cache) {
        (MemoryLimit::Bytes(_), Some(why)) => {
            crate::usage!("--memory-limit cannot be used here: {why}; use --memory-limit off")
        }
        (MemoryLimit::Bytes(b), None) => {
            if b < 256 * MIB {
                crate::usage!(
                    "--memory-limit must be at least 256M (the workers' buffers need room), not {}",
                    short_bytes(b)
                );
            }
            if mem > 0 && b >= mem {
                crate::usage!(
                    "--memory-limit {} is not below the machine's memory ({}): it would bound nothing",
                    short_bytes(b),
                    short_bytes(mem)
                );
            }
            let p = cgroup::probe();
            if p.found.is_none() {
                crate::usage!(
                    "--memory-limit: neither cgroup v2 nor v1 can bound the page cache here: {}",
                    p.reason()
                );
            }
            Some((floor_to(b, 4096), true))
        }
        (MemoryLimit::Off, _) => None,
        (MemoryLimit::Auto, Some(_)) => None,
        (MemoryLimit::Auto, None) => {
            let p = cgroup::probe();
            match p.found {
                Some(_) => Some((default_limit, false)),
                None => {
                    lines.push(format!(
                        "page cache: not bounded: {} (as root, --memory-limit SIZE bounds it with a memory cgroup)",
                        p.reason()
                    ));
                    None
                }
            }
        }
    })
}

/// The sweep's smallest and largest uniqueBytes, and why the largest:
/// beyond the page-cache bound `limit` to reach the device, within the
/// free space and memory. Too narrow a sweep, or too little room for it,
/// is a usage error.
fn sweep_range(
    o: &Options,
    memory_fs: bool,
    limit: Option<u64>,
    mem: u64,
    align: u64,
) -> Result<(u64, u64, String)> {
    let (q, fake) = (o.quick, o.engine.is_fake());
    let free = crate::env::free_bytes(&o.dir).unwrap_or(0);
    let avail = bench::mem_available();
    let (max_bytes, why) = match o.max_bytes {
        Some(b) => (b, "--max-bytes".to_string()),
        None => {
            if fake {
                (64 * MIB, "the null engine does no I/O".into())
            } else if memory_fs {
                let cap = if q { 256 * MIB } else { GIB };
                (
                    cap.min(free / 4).min(avail / 4),
                    "tmpfs holds it in memory: at most a quarter of what is free".into(),
                )
            } else if o.direct {
                let cap = if q { GIB } else { 4 * GIB };
                (cap.min(free / 4), "--direct: no cache to exceed".into())
            } else if let Some(l) = limit {
                (
                    (4 * l).min(free / 2),
                    format!(
                        "4 × the page-cache bound of {}, to reach the device",
                        short_bytes(l)
                    ),
                )
            } else {
                let cap = if q { GIB } else { 4 * GIB };
                let b = cap.min(avail / 2).min(free / 4);
                (
                    b,
                    format!(
                        "the page cache is unbounded and the machine has {} of memory: the device region is out of reach (use --memory-limit or --direct)",
                        short_bytes(mem)
                    ),
                )
            }
        }
    };
    let max_bytes = if max_bytes >= MIB {
        floor_to(max_bytes, MIB)
    } else {
        floor_to(max_bytes, align)
    };
    let min_bytes = o.min_bytes.unwrap_or(MIB);
    if min_bytes < align.max(4096) {
        crate::usage!(
            "--min-bytes must be at least 4K, not {}",
            short_bytes(min_bytes)
        );
    }
    if max_bytes < 4 * min_bytes {
        crate::usage!(
            "the sweep needs --max-bytes at least 4 × --min-bytes ({}), not {}{}",
            short_bytes(4 * min_bytes),
            short_bytes(max_bytes),
            if o.max_bytes.is_none() {
                " (too little free space or memory?)"
            } else {
                ""
            }
        );
    }
    if !fake {
        // the same check as every run's, tmpfs's memory included
        crate::session::check_room(&o.dir, max_bytes).map_err(|e| {
            UsageError::new(format!(
                "{} (the sweep lays out {}{})",
                e,
                short_bytes(max_bytes),
                if o.max_bytes.is_some() {
                    ", --max-bytes"
                } else {
                    ""
                }
            ))
        })?;
    }
    Ok((min_bytes, max_bytes, why))
}

/// How precisely each point is measured: `--precision` and `--point-time`,
/// or the defaults (±3 % within 4 s; ±5 % within 1.2 s with `--quick`).
fn precision(o: &Options) -> Precision {
    let q = o.quick;
    let target = o.precision.unwrap_or(if q { 0.05 } else { 0.03 });
    let cap = o
        .point_time
        .unwrap_or(Duration::from_secs_f64(if q { 1.2 } else { 4.0 }));
    // `--quick`'s points are short: with batches of 0.1 s, four of them
    // and the warm-up take 0.5 s, against 0.8 s for three of 0.2 s, and
    // reach a narrower interval (Student's t with 3 degrees of freedom
    // against 2: 3.18 · √2 / 2 = 2.25 against 4.30 / √3 = 2.48, in units of
    // a 0.2 s batch's deviation, if the batches are independent)
    let batch = Duration::from_secs_f64(if q { 0.1 } else { 0.25 }).min(cap / 4);
    Precision {
        target,
        batch,
        min_batches: MIN_BATCHES,
        cap,
    }
}

/// The exploration's plan: the sweep over `bytes` (smallest, largest), the
/// curves' grids up to `size_max` and 4 × `cpus` processes, and how
/// regions, focal points and drift are judged at precision `target`.
fn plan(
    o: &Options,
    bytes: [u64; 2],
    align: u64,
    size_max: u64,
    cpus: u32,
    max_regions: usize,
    target: f64,
) -> Plan {
    let q = o.quick;
    let start = Workload {
        unique_bytes: bytes[0],
        size_mean: 16 << 10,
        read_frac: 0.5,
        seq_frac: 0.5,
        process_num: 1,
    };
    Plan {
        min_bytes: bytes[0],
        max_bytes: bytes[1],
        // ×2 in both: with ×4 a cached ramp falls as steeply as a cliff
        sweep_factor: 2.0,
        align,
        size_max,
        proc_max: 4 * cpus,
        start,
        tolerance: 0.2,
        // a region spans at most 2×, so its focal uniqueBytes (the
        // geometric middle) is within √2 of every level in it: a ramp
        // from the CPU caches to memory (tmpfs 15 → 4.9 GB/s from 1 to
        // 256 MiB, ext4's page cache 8.1 → 3.0) is two regions
        span_max: 2.0,
        max_regions,
        max_rounds: if q { 2 } else { 3 },
        // a cliff is bracketed to a quarter of a doubling in quick mode
        // too: workloads within the bracket are in neither region's
        // measured range (ext4 under 1 GiB: 728 MiB cached, 1 GiB on the
        // device, and 944 MiB still cached)
        bisections: if q { 2 } else { 3 },
        ramp_rounds: if q { 1 } else { 3 },
        drift_tolerance: (3.0 * target).max(0.1),
        quick: q,
        interactions: o.interactions,
        sweep_procs: cpus.max(2),
        // ext4's page cache, 45 → 182 MiB: 16 KiB requests with one
        // process 4 145 → 3 367 MB/s, 256 KiB with two 23 932 → 10 189
        sweep_size: (256 << 10).min(size_max),
        // the smallest request size of the grid that is practical (4 KiB,
        // a page), as a multiple of the alignment
        small_size: (4u64 << 10).max(align).min(size_max),
    }
}

/// The set-up's first line: the engine and how requests are made.
fn workload_line(o: &Options) -> String {
    format!(
        "workload: engine {}{}, {}, fsync {}, size cv {}, seed {}{}",
        o.engine,
        if o.iodepth > 1 {
            format!(" ({} requests in flight per worker)", o.iodepth)
        } else {
            String::new()
        },
        if o.direct { "O_DIRECT" } else { "buffered I/O" },
        fsync_name(o.fsync),
        o.size_cv,
        o.seed,
        if o.distribution.is_random() {
            String::new()
        } else {
            format!(
                ", random offsets {} (an extension: the method draws them uniformly)",
                o.distribution
            )
        }
    )
}

/// The page-cache bound and who chose it, or why there is none (None when
/// [`memory_limit`] already said why).
fn page_cache_line(
    memory_limit: Option<(u64, bool)>,
    no_cache: Option<&str>,
    mem: u64,
) -> Option<String> {
    if let Some((l, explicit)) = memory_limit {
        Some(format!(
            "page cache: bounded to {} by a memory cgroup ({}{})",
            short_bytes(l),
            if explicit {
                "--memory-limit"
            } else {
                "picked: cgroups are available"
            },
            if explicit {
                String::new()
            } else {
                format!(
                    ", the machine has {}; --memory-limit SIZE or off changes it",
                    short_bytes(mem)
                )
            }
        ))
    } else {
        no_cache.map(|why| format!("page cache: not bounded ({why})"))
    }
}

/// The set-up's lines on the sweep (`why` its largest uniqueBytes), the
/// curves and the precision.
fn plan_lines(plan: &Plan, ranges: &Ranges, precision: &Precision, why: &str) -> [String; 3] {
    [
        format!(
            "sweep: uniqueBytes {} … {} in steps of ×{} ({why})",
            short_bytes(plan.min_bytes),
            short_bytes(plan.max_bytes),
            plan.sweep_factor
        ),
        format!(
            "curves: sizeMean {} … {}, readFrac and seqFrac 0 … 1, processNum 1 … {}; at most {} regions",
            short_bytes(ranges.size_mean[0]),
            short_bytes(plan.size_max),
            plan.proc_max,
            plan.max_regions
        ),
        format!(
            "precision: each point until ±{}% (95% confidence, batches of {} s) or {} s",
            precision.target * 100.0,
            precision.batch.as_secs_f64(),
            precision.cap.as_secs_f64()
        ),
    ]
}

/// Enter the memory cgroup of `limit`, if any. An automatic bound that
/// cannot be set is given up with a note; one the user asked for is an
/// error.
fn enter_cgroup(
    limit: Option<(u64, bool)>,
    notes: &mut Vec<String>,
) -> Result<Option<cgroup::MemoryCgroup>> {
    let Some((l, explicit)) = limit else {
        return Ok(None);
    };
    match cgroup::MemoryCgroup::enter(l) {
        Ok(g) => Ok(Some(g)),
        Err(e) if explicit => Err(anyhow::anyhow!("--memory-limit: {e}")),
        Err(e) => {
            notes.push(format!("page cache: NOT bounded after all: {e}"));
            Ok(None)
        }
    }
}

/// A model built into an output directory.
pub struct Built {
    pub model: Model,
    /// The totals of every measurement, as a result document.
    pub result: RunResult,
    /// The summary (summary.txt).
    pub text: String,
    /// The summary without the set-up lines that were given to the
    /// observer's `note` as the run began: what to print where those lines
    /// were shown already.
    pub brief: String,
    pub files: Vec<String>,
    /// The error that stopped the run, if one did (the partial model and
    /// its files are written all the same).
    pub error: Option<anyhow::Error>,
}

fn timestamp_name(prefix: &str) -> String {
    let t = crate::report::now_rfc3339(); // 2026-11-21T10:11:12Z
    let d: String = t.chars().filter(|c| c.is_ascii_digit()).collect();
    if d.len() >= 14 {
        format!("{prefix}-{}-{}", &d[..8], &d[8..14])
    } else {
        format!("{prefix}-{d}")
    }
}

/// Create the output directory: `out`, or `./<prefix>-<timestamp>/`. An
/// existing directory is used as it is (files in it are overwritten).
pub fn make_out_dir(out: Option<&Path>, prefix: &str) -> Result<PathBuf> {
    let p = match out {
        Some(p) => p.to_path_buf(),
        None => {
            let base = PathBuf::from(timestamp_name(prefix));
            let mut p = base.clone();
            let mut n = 2;
            while p.exists() {
                p = PathBuf::from(format!("{}-{n}", base.display()));
                n += 1;
            }
            p
        }
    };
    if p.is_file() {
        crate::usage!("--out {} is a file; name a directory", p.display());
    }
    std::fs::create_dir_all(&p)
        .map_err(|e| UsageError::new(format!("--out {}: cannot create it: {e}", p.display())))?;
    Ok(p)
}

/// The files a self-scaling run always writes into its output directory
/// (beside one graph per parameter per region).
pub const MODEL_FILES: [&str; 2] = ["model.json", "summary.txt"];

/// Write model.json and the graphs into `out`; the names of the files
/// the run writes there, summary.txt's included.
fn write_model(m: &Model, out: &Path) -> Result<Vec<String>> {
    m.save(&out.join("model.json"))?;
    let mut files = vec!["model.json".to_string(), "summary.txt".to_string()];
    files.extend(graphs::model_graphs(out, m)?);
    Ok(files)
}

/// Build a model of `setup`'s directory into `out` (which exists).
pub fn run(setup: &Setup, out: &Path, observer: &dyn Observer) -> Result<Built> {
    let t0 = Instant::now();
    let started = crate::report::now_rfc3339();
    let mut lines = setup.lines.clone();
    let guard = enter_cgroup(setup.memory_limit, &mut lines)?;
    let settings = bounded_settings(setup, guard.as_ref(), &mut lines);
    let mut model = Model::new(
        setup.environment.clone(),
        settings.clone(),
        setup.ranges.clone(),
        setup.plan.start,
    );
    model.notes = lines.clone();
    for l in &lines {
        observer.say(l);
    }
    let plan = result::Plan {
        settings: settings.clone(),
        ranges: setup.ranges.clone(),
    };
    let limit = guard.as_ref().map(|g| g.limit());
    let (result, error) = explore_with_bench(setup, &plan, &mut model, limit, &started, observer);
    if let Some(g) = &guard
        && let Some(peak) = g.peak()
    {
        model.notes.push(format!(
            "the memory cgroup held at most {} (its limit {})",
            short_bytes(peak),
            short_bytes(g.limit())
        ));
    }
    drop(guard);
    model.elapsed_s = t0.elapsed().as_secs_f64();
    // an error before any measurement is the caller's to report (usage
    // errors keep their exit code)
    if model.points.is_empty()
        && let Some(e) = error
    {
        return Err(e);
    }
    let mut result = result.unwrap_or_else(|| {
        RunResult::new(
            "selfscale",
            &plan,
            setup.environment.clone(),
            started.clone(),
        )
    });
    result.complete = model.complete;
    if let Some(e) = &error {
        result.error = Some(crate::error::cause(e));
    }
    let files = write_model(&model, out)?;
    result.set_figures(&result::Figures::of(
        &model,
        &out.join("model.json"),
        &lines,
        &files,
    ));
    // rendered from the result, as `iogauge show` renders it
    let text = result::summary_of(&result, true)?;
    let summary_txt = out.join("summary.txt");
    crate::report::export::write_file(&summary_txt, text.as_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", summary_txt.display()))?;
    let brief = result::summary_of(&result, false)?;
    Ok(Built {
        model,
        result,
        text,
        brief,
        files,
        error,
    })
}

/// The settings as measured: the memory cgroup's bound, when the workers
/// run in one (named in `lines`).
fn bounded_settings(
    setup: &Setup,
    guard: Option<&cgroup::MemoryCgroup>,
    lines: &mut Vec<String>,
) -> Settings {
    let mut settings = setup.settings.clone();
    if let Some(g) = guard {
        settings.memory_limit = Some(g.limit());
        settings.memory_limit_via = Some(g.version().via().to_string());
        lines.push(format!(
            "page cache: {} in {} set to {}",
            g.version().via(),
            g.path().display(),
            short_bytes(g.limit())
        ));
    }
    settings
}

/// Explore into `model` with the benchmark (the page cache bounded by
/// `limit`, the cgroup's): the result of what it measured, none when the
/// benchmark could not start, and the error that stopped it.
fn explore_with_bench(
    setup: &Setup,
    plan: &result::Plan,
    model: &mut Model,
    limit: Option<u64>,
    started: &str,
    observer: &dyn Observer,
) -> (Option<RunResult>, Option<anyhow::Error>) {
    let mut bench = setup.bench.clone();
    if bench.warm_limit.is_some() {
        // the bound as entered (an automatic one that could not be set
        // leaves the machine's whole memory to the cache)
        (bench.warm_limit, bench.cache_bytes) = cache_prep(false, false, false, limit);
    }
    match Bench::new(bench, observer) {
        Ok(Some(mut b)) => {
            let error = explore::explore(&setup.plan, &mut b, model).err();
            if error.is_some() {
                model.complete = false;
            }
            let result = b.result(
                "selfscale",
                plan,
                setup.environment.clone(),
                started.to_string(),
                model.complete,
            );
            (Some(result), error)
        }
        Ok(None) => (None, None),
        Err(e) => (None, Some(e)),
    }
}

/// What `--validate` was asked.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidateOptions {
    pub dir: PathBuf,
    pub n: usize,
    pub seed: u64,
    pub refine: usize,
    /// Single-number benchmarks to compare with: (name, MB/s).
    pub baselines: Vec<(String, f64)>,
    pub model_path: PathBuf,
}

/// A validation, written into an output directory.
pub struct Validated {
    pub cases: Vec<validate::Case>,
    pub before: validate::Metrics,
    pub after: Option<validate::Metrics>,
    pub refined: Option<Model>,
    pub result: RunResult,
    /// The report (validation.txt).
    pub text: String,
    /// The report without its opening lines, which were given to the
    /// observer's `note` as the validation began.
    pub brief: String,
    pub files: Vec<String>,
    pub complete: bool,
    pub error: Option<anyhow::Error>,
}

/// The bench a model was measured with, in `dir`.
fn bench_for(model: &Model, dir: &Path) -> Result<(BenchConfig, bool)> {
    let s = &model.settings;
    let fsync = crate::engine::parse_fsync(&s.fsync).map_err(UsageError)?;
    bench::check_fsync(fsync).map_err(UsageError)?;
    let engine = crate::engine::Choice::parse(&s.engine)
        .map_err(|e| UsageError::new(format!("the model's settings: {e}")))?;
    let env = crate::env::detect(dir);
    let memory_fs = matches!(env.fs_type.as_str(), "tmpfs" | "ramfs");
    let (warm_limit, cache_bytes) =
        cache_prep(s.direct, engine.is_fake(), memory_fs, s.memory_limit);
    let precision = Precision {
        target: s.precision,
        batch: Duration::from_secs_f64(s.batch_s.max(0.01)),
        min_batches: MIN_BATCHES,
        cap: Duration::from_secs_f64(s.point_time_s.max(0.02)),
    };
    Ok((
        BenchConfig {
            dir: dir.to_path_buf(),
            setup: IoSetup {
                engine,
                direct: s.direct,
                iodepth: s.iodepth,
                queue: s.queue,
                fsync,
                fdatasync: s.fdatasync,
                cold: false,
                noatime: false,
            },
            size_cv: s.size_cv,
            seed: s.seed,
            align: s.align,
            distribution: s.distribution.clone(),
            max_bytes: model.ranges.unique_bytes[1],
            precision,
            // validation enters the model's bound or stops
            warm_limit,
            cache_bytes,
        },
        engine.is_fake(),
    ))
}

/// How the machine a model was measured on (`then`) differs from this one
/// (`now`) in what sets its regions and levels: CPUs, their caches, memory,
/// kernel; `None` when it does not (a field either side does not know is
/// not compared).
fn machine_differs(
    then: &crate::env::Environment,
    now: &crate::env::Environment,
) -> Option<String> {
    let mut d = Vec::new();
    let differs = |a: &str, b: &str| !a.is_empty() && !b.is_empty() && a != b;
    if then.cpus != 0 && now.cpus != 0 && then.cpus != now.cpus {
        d.push(format!("{} CPUs, now {}", then.cpus, now.cpus));
    }
    if differs(&then.cpu_model, &now.cpu_model) {
        d.push(format!("CPU {}, now {}", then.cpu_model, now.cpu_model));
    }
    if differs(&then.cpu_caches, &now.cpu_caches) {
        d.push(format!(
            "caches {}, now {}",
            then.cpu_caches, now.cpu_caches
        ));
    }
    // MemTotal moves a little with the kernel's reservations
    let (a, b) = (then.memory_bytes as f64, now.memory_bytes as f64);
    if a > 0.0 && b > 0.0 && (a - b).abs() > 0.02 * a.max(b) {
        d.push(format!(
            "{} memory, now {}",
            short_bytes(then.memory_bytes),
            short_bytes(now.memory_bytes)
        ));
    }
    if differs(&then.kernel, &now.kernel) {
        d.push(format!("kernel {}, now {}", then.kernel, now.kernel));
    }
    (!d.is_empty()).then(|| d.join("; "))
}

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

/// Validate `model` on `vo.n` random workloads measured in `vo.dir`, and
/// refine it when asked; writes validation.json, validation.txt,
/// scatter.svg (and with --refine model-refined.json and scatter-refined.svg)
/// into `out`.
pub fn validate_model(
    model: &Model,
    vo: &ValidateOptions,
    out: &Path,
    observer: &dyn Observer,
) -> Result<Validated> {
    let t0 = Instant::now();
    let started = crate::report::now_rfc3339();
    let md = std::fs::metadata(&vo.dir)
        .map_err(|e| UsageError::new(format!("{}: {e}", vo.dir.display())))?;
    if !md.is_dir() {
        crate::usage!("{} is not a directory", vo.dir.display());
    }
    let (cfg, fake) = bench_for(model, &vo.dir)?;
    if !fake {
        check_space(&vo.dir, cfg.max_bytes)?;
    }
    let env = crate::env::detect(&vo.dir);
    let mut lines = opening_lines(model, vo, &env);
    let limit = model.settings.memory_limit.map(|l| (l, true));
    let guard = enter_cgroup(limit, &mut lines)?;
    if let Some(g) = &guard {
        lines.push(format!(
            "page cache: bounded to {} as when the model was measured ({})",
            short_bytes(g.limit()),
            g.version().via()
        ));
    }
    lines.push(draw_line(model, vo));
    for l in &lines {
        observer.say(l);
    }
    let workloads = validate::draw(model, vo.n, vo.seed);
    let config = json!({
        "model": vo.model_path.display().to_string(),
        "workloads": vo.n,
        "seed": vo.seed,
        "refine": vo.refine,
        "settings": model.settings,
    });
    let mut v = Trial::default();
    let result = match Bench::new(cfg, observer) {
        Ok(Some(mut b)) => {
            v.measure(model, vo, &workloads, &mut b);
            Some(b.result(
                "selfscale-validate",
                config.clone(),
                env.clone(),
                started.clone(),
                v.complete,
            ))
        }
        Ok(None) => None,
        Err(e) => {
            v.error = Some(e);
            None
        }
    };
    drop(guard);
    if v.cases.is_empty()
        && let Some(e) = v.error
    {
        return Err(e);
    }
    let mut result = result
        .unwrap_or_else(|| RunResult::new("selfscale-validate", config, env.clone(), started));
    result.complete = v.complete && v.error.is_none();
    if let Some(e) = &v.error {
        result.error = Some(crate::error::cause(e));
    }
    let corr = refine::correlations(&v.cases);
    let base_err = validation_metrics(&mut result, vo, &v, &corr);
    let head: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let mut t = validation_text(&v, vo, result.complete, &base_err, corr);
    let files = validation_files(model, vo, out, &v, result.complete)?;
    let _ = writeln!(
        t,
        "\nfiles: {} ({:.0} s)",
        files.join(", "),
        t0.elapsed().as_secs_f64()
    );
    let brief = t;
    let t = head + &brief;
    write_report(out, &result, &t)?;
    Ok(Validated {
        cases: v.cases,
        before: v.before,
        after: v.after,
        refined: v.refined,
        result,
        text: t,
        brief,
        files,
        complete: v.complete,
        error: v.error,
    })
}

/// validation.json (`result`) and validation.txt (`text`) into `out`.
fn write_report(out: &Path, result: &RunResult, text: &str) -> Result<()> {
    crate::report::write_json(&out.join("validation.json"), result)?;
    crate::report::export::write_file(&out.join("validation.txt"), text.as_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.join("validation.txt").display()))
}

/// Refuse a validation in `dir` when the model's largest uniqueBytes
/// (`max_bytes`) and a margin would not fit in its free space.
fn check_space(dir: &Path, max_bytes: u64) -> Result<()> {
    let free = crate::env::free_bytes(dir).unwrap_or(0);
    if max_bytes + (max_bytes / 100).max(16 * MIB) > free {
        crate::usage!(
            "not enough space in {}: validation lays out {} (the model's largest uniqueBytes) and {} is free",
            dir.display(),
            short_bytes(max_bytes),
            short_bytes(free)
        );
    }
    Ok(())
}

/// The validation's first lines: which model, measured where, and how this
/// directory and machine differ from those it was measured on.
fn opening_lines(
    model: &Model,
    vo: &ValidateOptions,
    env: &crate::env::Environment,
) -> Vec<String> {
    let mut lines = vec![format!(
        "validation of {} (measured {} in {}) in {}",
        vo.model_path.display(),
        model.started_at,
        model.settings.dir,
        env.target_dir
    )];
    if env.target_dir != model.settings.dir && env.fs_type != model.environment.fs_type {
        lines.push(format!(
            "NOTE: the model was measured on {} ({}); this directory is {}",
            model.environment.fs_type, model.settings.dir, env.fs_type
        ));
    }
    if let Some(d) = machine_differs(&model.environment, env) {
        lines.push(format!(
            "NOTE: the model was measured on another machine ({d}): its regions and levels may not hold here"
        ));
    }
    lines
}

/// The line saying how the workloads are drawn: how many, the seed, the
/// model's ranges.
fn draw_line(model: &Model, vo: &ValidateOptions) -> String {
    let g = &model.ranges;
    format!(
        "{} workloads drawn at random (seed {}) over uniqueBytes {} … {}, sizeMean {} … {}, readFrac {} … {}, seqFrac {} … {}, processNum {} … {}; each measured twice",
        vo.n,
        vo.seed,
        short_bytes(g.unique_bytes[0]),
        short_bytes(g.unique_bytes[1]),
        short_bytes(g.size_mean[0]),
        short_bytes(g.size_mean[1]),
        g.read_frac[0],
        g.read_frac[1],
        g.seq_frac[0],
        g.seq_frac[1],
        g.process_num[0],
        g.process_num[1]
    )
}

/// What a validation measured, and the refinement when one was asked and
/// the validation finished.
#[derive(Default)]
struct Trial {
    cases: Vec<validate::Case>,
    complete: bool,
    error: Option<anyhow::Error>,
    before: validate::Metrics,
    /// The largest interactions the errors suggest (with --refine).
    interactions: Vec<refine::Interaction>,
    /// Corners measured by the refinement.
    chosen: usize,
    after: Option<validate::Metrics>,
    refined: Option<Model>,
}

impl Trial {
    /// Measure `workloads` twice with `bench` and predict them with
    /// `model`; then, with `vo.refine`, refine a copy of the model with the
    /// corners the errors point at and predict again.
    fn measure(
        &mut self,
        model: &Model,
        vo: &ValidateOptions,
        workloads: &[Workload],
        b: &mut Bench,
    ) {
        match validate::run(model, b, workloads, true) {
            Ok((c, done)) => {
                self.cases = c;
                self.complete = done;
            }
            Err(e) => self.error = Some(e),
        }
        self.before = validate::metrics(&self.cases);
        if !(self.complete && vo.refine > 0 && self.error.is_none()) {
            return;
        }
        self.interactions = refine::interactions(model, &self.cases);
        let noise = (2.0 * self.before.repeatability_error).max(0.05);
        let mut m2 = model.clone();
        match refine::refine(&mut m2, &self.cases, vo.refine, noise, b) {
            Ok((done, chosen)) => {
                self.chosen = chosen.len();
                self.complete = done;
                let mut c2 = self.cases.clone();
                for c in &mut c2 {
                    c.repredict(&m2);
                }
                self.after = Some(validate::metrics(&c2));
                self.refined = Some(m2);
                if done {
                    self.cases = c2;
                }
            }
            Err(e) => self.error = Some(e),
        }
    }
}

/// The validation's metrics into `result`: Fig. 21's on the model as
/// given, the single-number baselines, every workload, the error's
/// correlations with each parameter (`corr`), the refinement. Returns the
/// baselines' errors.
fn validation_metrics(
    result: &mut RunResult,
    vo: &ValidateOptions,
    v: &Trial,
    corr: &[(Param, f64)],
) -> Vec<serde_json::Value> {
    let (before, cases) = (&v.before, &v.cases);
    result.metric("median_error", before.median_error);
    result.metric("p75_error", before.p75_error);
    result.metric("enhanced_error", before.enhanced_error);
    result.metric("repeatability_error", before.repeatability_error);
    result.metric("median_error_vs_both", before.median_error_vs_both);
    result.metric("enhanced_workloads", before.enhanced_workloads);
    result.metric("best_constant_error", before.best_constant_error);
    result.metric("best_constant_mb_per_s", before.best_constant_mb_per_s);
    let base_err: Vec<serde_json::Value> = vo
        .baselines
        .iter()
        .map(|(n, mb)| json!({"name": n, "mb_per_s": mb, "median_error": validate::constant_error(cases, *mb)}))
        .collect();
    result.metric("baselines", &base_err);
    // the separable prediction stays in each case; with --refine the
    // predicted figures are the refined model's
    let refined = v.refined.as_ref();
    let rows: Vec<serde_json::Value> = cases
        .iter()
        .map(|c| {
            json!({
                "workload": c.workload,
                "region": c.region,
                "in_transition": c.in_transition,
                "measured_mb_per_s": c.measured.mb_per_s,
                "measured_iops": c.measured.iops,
                "measured_rel_half_width": c.measured.rel_half_width,
                "repeat_mb_per_s": c.repeat.as_ref().map(|p| p.mb_per_s),
                "predicted_mb_per_s": c.separable_mb_per_s,
                "predicted_iops": c.separable_iops,
                "refined_mb_per_s": refined.map(|_| c.predicted_mb_per_s),
                "error": validate::rel_error(c.separable_mb_per_s, c.measured.mb_per_s),
                "refined_error": refined.map(|_| c.error),
                "repeat_error": c.repeat_error,
            })
        })
        .collect();
    result.metric("workloads", &rows);
    result.metric(
        "error_correlation",
        corr.iter()
            .map(|(p, r)| json!({"param": p.name(), "r": r}))
            .collect::<Vec<_>>(),
    );
    if vo.refine > 0 {
        result.metric(
            "refine",
            json!({
                "asked": vo.refine,
                "measured": v.chosen,
                "before": before,
                "after": v.after,
                "interactions": v.interactions.iter().take(10).collect::<Vec<_>>(),
                "corrections": refined.map(|m| &m.corrections),
            }),
        );
    }
    base_err
}

/// The validation's report below its opening lines: the errors beside
/// Chen & Patterson's, the baselines, what the errors follow, the
/// refinement, and every workload (`base_err`: the baselines' errors,
/// `corr`: the errors' correlations with each parameter).
fn validation_text(
    v: &Trial,
    vo: &ValidateOptions,
    complete: bool,
    base_err: &[serde_json::Value],
    mut corr: Vec<(Param, f64)>,
) -> String {
    let (before, cases) = (&v.before, &v.cases);
    let mut t = String::new();
    if !complete {
        let _ = writeln!(
            t,
            "\nINCOMPLETE: only {} workloads were measured{}.",
            cases.len(),
            if cases.iter().any(|c| c.repeat.is_none()) {
                " (some once)"
            } else {
                ""
            }
        );
    }
    error_table(&mut t, before, base_err);
    corr.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    let _ = writeln!(
        t,
        "\nthe size of the errors follows: {}",
        corr.iter()
            .map(|(p, r)| format!("{} (r = {r:+.2})", p.name()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if vo.refine > 0 {
        refine_text(&mut t, v, vo.refine);
    }
    cases_table(&mut t, cases, v.refined.is_some());
    t
}

/// The errors of this run beside the paper's (Fig. 20-21), and each
/// baseline's.
fn error_table(t: &mut String, before: &validate::Metrics, base_err: &[serde_json::Value]) {
    let row = |t: &mut String, name: &str, value: &str, paper: &str| {
        let _ = writeln!(t, "{name:<28} {value:>10}   {paper}");
    };
    t.push('\n');
    row(t, "", "this run", "Chen & Patterson (Fig. 20-21)");
    row(t, "median error", &pct(before.median_error), "10-14 %");
    row(
        t,
        "75th-percentile error",
        &pct(before.p75_error),
        "15 % (SPARCstation 1+)",
    );
    row(
        t,
        &format!("enhanced error ({} wl.)", before.enhanced_workloads),
        &pct(before.enhanced_error),
        "7-10 % (without the thrashing region)",
    );
    row(
        t,
        "repeatability error",
        &pct(before.repeatability_error),
        "2-5 %",
    );
    row(
        t,
        "median error, mean of both",
        &pct(before.median_error_vs_both),
        "(against the mean of the two measurements)",
    );
    row(
        t,
        "best single number",
        &pct(before.best_constant_error),
        &format!(
            "50-65 % (Andrew, IOStone, Bonnie); here {:.1} MB/s",
            before.best_constant_mb_per_s
        ),
    );
    for b in base_err {
        let _ = writeln!(
            t,
            "{:<28} {:>10}   {:.1} MB/s",
            b["name"].as_str().unwrap_or(""),
            pct(b["median_error"].as_f64().unwrap_or(0.0)),
            b["mb_per_s"].as_f64().unwrap_or(0.0)
        );
    }
}

/// The largest interactions and what the refinement (up to `asked`
/// corners) did to the errors.
fn refine_text(t: &mut String, v: &Trial, asked: usize) {
    let before = &v.before;
    let _ = writeln!(
        t,
        "\nlargest interactions (region, pair, side of the focal values, workloads, error at the corner):"
    );
    for it in v.interactions.iter().take(5) {
        let _ = writeln!(
            t,
            "  {}: {} workloads, {:+.1} %",
            it.describe(),
            it.workloads,
            (it.gamma.exp() - 1.0) * 100.0
        );
    }
    match &v.after {
        Some(a) => {
            let _ = writeln!(
                t,
                "refine: measured {} of up to {asked} corners; median error {} → {}, 75th percentile {} → {}, enhanced {} → {}, against the mean of both {} → {}",
                v.chosen,
                pct(before.median_error),
                pct(a.median_error),
                pct(before.p75_error),
                pct(a.p75_error),
                pct(before.enhanced_error),
                pct(a.enhanced_error),
                pct(before.median_error_vs_both),
                pct(a.median_error_vs_both)
            );
        }
        None => {
            let _ = writeln!(t, "refine: not done (the validation did not finish)");
        }
    }
}

/// A line per workload: measured, repeated, predicted, the error (and the
/// refined model's when there is one).
fn cases_table(t: &mut String, cases: &[validate::Case], refined: bool) {
    let _ = writeln!(
        t,
        "\n{:>3} {:>11} {:>9} {:>5} {:>5} {:>3} {:>3} {:>10} {:>10} {:>10} {:>7}{}",
        "#",
        "uniqueBytes",
        "sizeMean",
        "read",
        "seq",
        "p",
        "reg",
        "measured",
        "repeat",
        "predicted",
        "error",
        if refined { "    refined  error" } else { "" }
    );
    for (i, c) in cases.iter().enumerate() {
        let _ = writeln!(
            t,
            "{:>3} {:>11} {:>9} {:>5} {:>5} {:>3} {:>3}{} {:>10.1} {:>10} {:>10.1} {:>7}{}",
            i + 1,
            short_bytes(c.workload.unique_bytes),
            short_bytes(c.workload.size_mean),
            c.workload.read_frac,
            c.workload.seq_frac,
            c.workload.process_num,
            c.region,
            if c.in_transition { "*" } else { " " },
            c.measured.mb_per_s,
            c.repeat
                .as_ref()
                .map_or("-".into(), |p| format!("{:.1}", p.mb_per_s)),
            c.separable_mb_per_s,
            pct(validate::rel_error(
                c.separable_mb_per_s,
                c.measured.mb_per_s
            )),
            if refined {
                format!(" {:>10.1} {:>6}", c.predicted_mb_per_s, pct(c.error))
            } else {
                String::new()
            }
        );
    }
    let _ = writeln!(
        t,
        "(* in a thrashing zone: left out of the enhanced error; MB/s = 10^6 B/s of reads + writes)"
    );
}

/// The validation's files besides its report: the scatter of the separable
/// prediction, the model saved with its expected error when the validation
/// finished (`complete`), and the refined model and its scatter. Returns
/// every file's name, the report's two first.
fn validation_files(
    model: &Model,
    vo: &ValidateOptions,
    out: &Path,
    v: &Trial,
    complete: bool,
) -> Result<Vec<String>> {
    let mut files = vec!["validation.json".to_string(), "validation.txt".to_string()];
    let sep_cases: Vec<validate::Case> = v
        .cases
        .iter()
        .map(|c| {
            let mut c = c.clone();
            c.predicted_mb_per_s = c.separable_mb_per_s;
            c
        })
        .collect();
    scatter_svg(
        &out.join("scatter.svg"),
        &format!(
            "predicted vs measured: median error {}",
            pct(v.before.median_error)
        ),
        &graphs::predicted(&sep_cases),
        &vo.baselines,
    )?;
    files.push("scatter.svg".into());
    // the model carries its expected error from now on (predict prints it)
    let expected = |m: &validate::Metrics, refined: bool| model::Expected {
        workloads: m.workloads,
        median_error: m.median_error,
        p75_error: m.p75_error,
        repeatability_error: m.repeatability_error,
        refined,
    };
    if complete && v.before.workloads > 0 {
        let mut m = model.clone();
        m.validation = Some(expected(&v.before, false));
        m.save(&vo.model_path)?;
    }
    if let (Some(m2), Some(a)) = (&v.refined, &v.after) {
        let mut m2 = m2.clone();
        m2.validation = Some(expected(a, true));
        m2.save(&out.join("model-refined.json"))?;
        scatter_svg(
            &out.join("scatter-refined.svg"),
            &format!("refined model: median error {}", pct(a.median_error)),
            &graphs::predicted(&v.cases),
            &vo.baselines,
        )?;
        files.push("model-refined.json".into());
        files.push("scatter-refined.svg".into());
    }
    Ok(files)
}

/// The survey's short self-scaling pass.
pub struct ShortPass {
    /// The totals of the pass as a result document, with the model's
    /// headline figures in `metrics`.
    pub result: RunResult,
    /// One line for the scorecard.
    pub line: String,
    pub complete: bool,
    pub model_path: PathBuf,
}

/// A short self-scaling pass for `iogauge survey`: the uniqueBytes sweep
/// and the focal curves at reduced precision (±10 %, at most 0.5 s a
/// point; 0.3 s with `quick`), no page-cache bound, at most 256 MiB of data
/// (64 MiB with `quick`). Writes model.json, summary.txt and the graphs
/// into `out` (created if missing). About 30 s (quick) to 90 s.
pub fn short_pass(
    dir: &Path,
    out: &Path,
    quick: bool,
    observer: &dyn Observer,
) -> Result<ShortPass> {
    let mut o = Options::new(dir);
    o.quick = true;
    o.memory_limit = MemoryLimit::Off;
    o.precision = Some(0.10);
    o.point_time = Some(Duration::from_millis(if quick { 300 } else { 500 }));
    o.max_regions = Some(if quick { 1 } else { 2 });
    // a short look: the separable model only
    o.interactions = false;
    let auto = choose(&o)?;
    let cap = if quick { 64 * MIB } else { 256 * MIB };
    if auto.plan.max_bytes > cap {
        o.max_bytes = Some(cap);
    }
    let setup = choose(&o)?;
    std::fs::create_dir_all(out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    let built = run(&setup, out, observer)?;
    let m = &built.model;
    let mut parts = vec![format!("{} region(s)", m.regions.len())];
    for b in m.boundaries.iter().filter(|b| b.cliff) {
        parts.push(format!("{} {}", b.label, short_bytes(b.unique_bytes)));
    }
    for r in &m.regions {
        if let Some(fp) = &r.focal_point {
            parts.push(format!(
                "region {} focal {} {} p{} → {:.0} MB/s",
                r.number,
                short_bytes(r.focal.unique_bytes),
                short_bytes(r.focal.size_mean),
                r.focal.process_num,
                fp.mb_per_s
            ));
        }
    }
    let mut result = built.result;
    if let Some(e) = built.error {
        result.error = Some(crate::error::cause(&e));
    }
    Ok(ShortPass {
        complete: m.complete,
        line: format!("selfscale: {}", parts.join("; ")),
        result,
        model_path: out.join("model.json"),
    })
}
