//! One fio job, typed: each option of a job file or command line that
//! iogauge takes, read into its value (sizes in bytes, times in
//! nanoseconds, enums for `rw` and `ioengine`, rates per direction) with
//! the place it was set, and fio's default where it was not.
//!
//! [`Job::apply`] takes one `name[=value]` as fio's option table would;
//! the job-file reader ([`super::jobfile`]) calls it in the order fio
//! does and turns its refusals into `FILE:LINE:` messages.

use super::names;
use super::value::{self, KB_BASE, SizeOrPct, TimeUnit};
use crate::measure::placed::IdSet;
use crate::report::fio::{ReportOpts, Unified};
use crate::runner::pin::{self, MemPolicy, PinRequest, Policy};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// Where a value was set: a line of a job file, or an argument of the
/// command line (`line` is then its position, from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub file: String,
    pub line: usize,
}

/// The `file` of a value given on the command line.
pub const COMMAND_LINE: &str = "command line";

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file == COMMAND_LINE {
            write!(f, "command line, argument {}", self.line)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

impl Serialize for Place {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A value per data direction, in fio's order: read, write, trim.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Dir<T> {
    pub read: T,
    pub write: T,
    pub trim: T,
}

impl<T: Clone> Dir<T> {
    pub fn all(v: T) -> Self {
        Dir {
            read: v.clone(),
            write: v.clone(),
            trim: v,
        }
    }
    fn set(&mut self, d: usize, v: T) {
        match d {
            0 => self.read = v,
            1 => self.write = v,
            _ => self.trim = v,
        }
    }
}

/// fio's `rw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RwKind {
    Read,
    Write,
    Trim,
    RandRead,
    RandWrite,
    RandTrim,
    /// `rw` or `readwrite`: mixed sequential reads and writes.
    ReadWrite,
    RandRw,
    /// Sequential trims, each followed by a write of the same blocks.
    TrimWrite,
    /// Random trims, each followed by a write of the same blocks.
    RandTrimWrite,
}

impl RwKind {
    const ALL: [(&'static str, RwKind); 11] = [
        ("read", RwKind::Read),
        ("write", RwKind::Write),
        ("trim", RwKind::Trim),
        ("randread", RwKind::RandRead),
        ("randwrite", RwKind::RandWrite),
        ("randtrim", RwKind::RandTrim),
        ("rw", RwKind::ReadWrite),
        ("readwrite", RwKind::ReadWrite),
        ("randrw", RwKind::RandRw),
        ("trimwrite", RwKind::TrimWrite),
        ("randtrimwrite", RwKind::RandTrimWrite),
    ];
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("read", |(n, _)| n)
    }
    pub fn is_random(self) -> bool {
        matches!(
            self,
            RwKind::RandRead
                | RwKind::RandWrite
                | RwKind::RandTrim
                | RwKind::RandRw
                | RwKind::RandTrimWrite
        )
    }
}

/// `rw` with its `:N` suffix: on a random pattern, the number of I/Os
/// before a new random offset (fio's `ddir_seq_nr`, 1 by default); on a
/// sequential one, the bytes skipped after each I/O (`ddir_seq_add`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rw {
    pub kind: RwKind,
    pub seq_nr: u32,
    /// Negative: backwards (`rw=read:-8k`).
    pub seq_add: i64,
}

impl fmt::Display for Rw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind.name())?;
        if self.kind.is_random() && self.seq_nr != 1 {
            write!(f, ":{}", self.seq_nr)?;
        } else if !self.kind.is_random() && self.seq_add != 0 {
            write!(f, ":{}", self.seq_add)?;
        }
        Ok(())
    }
}

/// The engines a job file may name that iogauge runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IoEngine {
    Psync,
    Sync,
    Pvsync,
    Pvsync2,
    #[serde(rename = "io_uring")]
    IoUring,
    Libaio,
    Mmap,
    Null,
}

impl IoEngine {
    pub const ALL: [(&'static str, IoEngine); 8] = [
        ("psync", IoEngine::Psync),
        ("sync", IoEngine::Sync),
        ("pvsync", IoEngine::Pvsync),
        ("pvsync2", IoEngine::Pvsync2),
        ("io_uring", IoEngine::IoUring),
        ("libaio", IoEngine::Libaio),
        ("mmap", IoEngine::Mmap),
        ("null", IoEngine::Null),
    ];
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("psync", |(n, _)| n)
    }
    /// The engines that keep several I/Os in flight (iodepth > 1 counts).
    pub fn is_async(self) -> bool {
        matches!(self, IoEngine::IoUring | IoEngine::Libaio)
    }
}

/// `rate_process`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RateProcess {
    Linear,
    Poisson,
}

/// `exit_what`: which jobs end with a job that ends under `exitall`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExitWhat {
    /// The jobs of its reporting group (fio's default).
    Group,
    /// Every job running; the jobs after the next stonewall still run.
    Stonewall,
    /// Every job: those not started never start.
    All,
}

impl ExitWhat {
    pub fn name(self) -> &'static str {
        match self {
            ExitWhat::Group => "group",
            ExitWhat::Stonewall => "stonewall",
            ExitWhat::All => "all",
        }
    }
    fn parse(v: &str) -> Result<ExitWhat, String> {
        match v.trim() {
            "group" => Ok(ExitWhat::Group),
            "stonewall" => Ok(ExitWhat::Stonewall),
            "all" => Ok(ExitWhat::All),
            t => Err(format!("'{t}': exit_what is group, stonewall or all")),
        }
    }
}

/// `fallocate`: how a file the run creates is given its blocks before
/// the jobs start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fallocate {
    /// Sparse: blocks come as the jobs write (`none`, `0`).
    None,
    /// fallocate(2), mode 0 (fio's default on Linux); where the file
    /// system does not have it, as `none`.
    Native,
    /// posix_fallocate(3) (`posix`, `1`).
    Posix,
    /// fallocate(2) with FALLOC_FL_KEEP_SIZE (`keep`).
    Keep,
    /// ftruncate(2) only (`truncate`): sparse, as `none`.
    Truncate,
}

impl Fallocate {
    const ALL: [(&'static str, Fallocate); 7] = [
        ("none", Fallocate::None),
        ("native", Fallocate::Native),
        ("posix", Fallocate::Posix),
        ("keep", Fallocate::Keep),
        ("truncate", Fallocate::Truncate),
        ("0", Fallocate::None),
        ("1", Fallocate::Posix),
    ];
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("native", |(n, _)| n)
    }
    fn parse(v: &str) -> Result<Fallocate, String> {
        let t = v.trim();
        Self::ALL
            .iter()
            .find(|(n, _)| *n == t)
            .map(|(_, k)| *k)
            .ok_or_else(|| {
                format!("'{t}': fallocate is none, native, posix, keep, truncate, 0 or 1")
            })
    }
}

/// `fadvise_hint`: the advice given to the kernel on each data file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FadviseHint {
    /// `0`: none.
    None,
    /// `1` (fio's default): RANDOM for a random pattern, else SEQUENTIAL.
    Pattern,
    Random,
    Sequential,
}

impl FadviseHint {
    pub fn name(self) -> &'static str {
        match self {
            FadviseHint::None => "0",
            FadviseHint::Pattern => "1",
            FadviseHint::Random => "random",
            FadviseHint::Sequential => "sequential",
        }
    }
    fn parse(v: &str) -> Result<FadviseHint, String> {
        match v.trim() {
            "0" => Ok(FadviseHint::None),
            "1" => Ok(FadviseHint::Pattern),
            "random" => Ok(FadviseHint::Random),
            "sequential" => Ok(FadviseHint::Sequential),
            "noreuse" => Err("fadvise_hint=noreuse is not supported by iogauge (it takes 0, 1, random or sequential)".into()),
            t => Err(format!("'{t}': fadvise_hint is 0, 1, random, sequential or noreuse")),
        }
    }
}

/// One block size of a `bssplit` and its share in percent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BsShare {
    pub bs: u64,
    pub percent: u32,
}

/// fio's `verify` methods.
pub const VERIFY_METHODS: &[&str] = &[
    "0",
    "md5",
    "crc64",
    "crc32",
    "crc32c-intel",
    "crc32c",
    "crc16",
    "crc7",
    "sha1",
    "sha256",
    "sha512",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "xxhash",
    "meta",
    "pattern",
    "pattern_hdr",
    "null",
];

/// Options whose name is another's (fio's aliases), and the option they
/// are.
const ALIASES: &[(&str, &str)] = &[
    ("readwrite", "rw"),
    ("blocksize", "bs"),
    ("blocksize_range", "bsrange"),
    ("fileoffset", "offset"),
    ("iodepth_batch_submit", "iodepth_batch"),
    ("iodepth_batch_complete", "iodepth_batch_complete_min"),
    ("nr_files", "nrfiles"),
    ("timeout", "runtime"),
    ("allrandrepeat", "randrepeat"),
    ("wait_for_previous", "stonewall"),
    ("io_limit", "io_size"),
    ("blockalign", "ba"),
    ("ss", "steadystate"),
    ("ss_dur", "steadystate_duration"),
    ("ss_ramp", "steadystate_ramp_time"),
    ("ss_interval", "steadystate_check_interval"),
    ("ratemin", "rate_min"),
    ("ratecycle", "rate_cycle"),
    ("disable_bw", "disable_bw_measurement"),
];

/// The options of fio's built-in profiles (`tiobench`, `act`) that are
/// not options of a job: fio takes them in any job file and, without
/// `profile=`, does nothing with them. iogauge takes them the same way,
/// with a note.
pub const PROFILE_OPTIONS: &[&str] = &[
    "block",
    "numruns",
    "dir",
    "threads",
    "device-names",
    "load",
    "test-duration",
    "threads-per-queue",
    "read-req-num-512-blocks",
    "large-block-op-kbytes",
    "prep",
];

/// Every option iogauge takes, by its fio name (aliases in [`ALIASES`];
/// `buffered` sets `direct`). The order is the one `--parse-only` prints.
pub const SUPPORTED: &[&str] = &[
    "description",
    "kb_base",
    "rw",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "bsrange",
    "bssplit",
    "ba",
    "size",
    "filesize",
    "nrfiles",
    "filename",
    "directory",
    "offset",
    "offset_increment",
    "io_size",
    "ioengine",
    "iodepth",
    "iodepth_batch",
    "iodepth_batch_complete_min",
    "iodepth_batch_complete_max",
    "iodepth_low",
    "direct",
    "buffered",
    // pvsync2's own (engine::pvsync; ENGINE_OWN says whose)
    "hipri",
    "hipri_percentage",
    "nowait",
    "uncached",
    "thread",
    "numjobs",
    // where the jobs run (runner::pin)
    "cpus_allowed",
    "cpus_allowed_policy",
    "numa_cpu_nodes",
    "numa_mem_policy",
    "runtime",
    "time_based",
    "ramp_time",
    // fio's steady-state detection (suites::fio::steady)
    "steadystate",
    "steadystate_duration",
    "steadystate_ramp_time",
    "steadystate_check_interval",
    "loops",
    "rate",
    "rate_iops",
    "rate_process",
    "thinktime",
    "thinktime_spin",
    "thinktime_blocks",
    "thinktime_blocks_type",
    "thinktime_iotime",
    "fsync",
    "fdatasync",
    "end_fsync",
    // how created files are laid out, and the page cache
    "fallocate",
    "overwrite",
    "create_fsync",
    "invalidate",
    "fadvise_hint",
    "random_distribution",
    "norandommap",
    "randrepeat",
    "randseed",
    "random_generator",
    "verify",
    // what a job writes: fio's buffer options (suites::fio::buffers::OPTIONS)
    "zero_buffers",
    "refill_buffers",
    "scramble_buffers",
    "buffer_pattern",
    "buffer_compress_percentage",
    "buffer_compress_chunk",
    "dedupe_percentage",
    "dedupe_mode",
    "dedupe_working_set_percentage",
    "verify_pattern",
    // fio's verify phase (suites::fio::verify)
    "do_verify",
    "verify_interval",
    "verify_offset",
    "verify_fatal",
    "verify_only",
    "verify_async",
    "verify_backlog",
    "verify_backlog_batch",
    "group_reporting",
    "stonewall",
    "new_group",
    "wait_for",
    "gtod_reduce",
    // fio's per-I/O logs (crate::runner::iolog)
    "write_lat_log",
    "write_bw_log",
    "write_iops_log",
    "log_avg_msec",
    "log_max_value",
    "log_offset",
    "per_job_logs",
    // when jobs start and stop (startdelay, number_ios, exitall, rate_min)
    "startdelay",
    "number_ios",
    "exitall",
    "exit_what",
    "exitall_on_error",
    "rate_min",
    "rate_iops_min",
    "rate_cycle",
    // what fio's report shows (report::fio::ReportOpts)
    "percentile_list",
    "clat_percentiles",
    "lat_percentiles",
    "slat_percentiles",
    "unified_rw_reporting",
    "disable_lat",
    "disable_clat",
    "disable_slat",
    "disable_bw_measurement",
    "stats",
    "significant_figures",
    "bwavgtime",
    "iopsavgtime",
    "unit_base",
];

/// The options whose value may be left out: a log named after the job.
const OPTIONAL_VALUE: &[&str] = &["write_lat_log", "write_bw_log", "write_iops_log"];

/// The options that take no value (fio's `FIO_OPT_STR_SET`): named alone
/// they mean 1.
const FLAGS: &[&str] = &[
    "hipri",
    "time_based",
    "norandommap",
    "group_reporting",
    "stonewall",
    "new_group",
    "thread",
    // fio's FIO_OPT_STR_SET buffer options
    "zero_buffers",
    "refill_buffers",
    "exitall",
    "exitall_on_error",
];

/// The options of [`SUPPORTED`] that belong to one engine (fio's engine
/// options), and that engine: with another, they are options iogauge does
/// not support.
pub const ENGINE_OWN: &[(&str, IoEngine)] = &[
    ("hipri", IoEngine::Pvsync2),
    ("hipri_percentage", IoEngine::Pvsync2),
    ("nowait", IoEngine::Pvsync2),
    ("uncached", IoEngine::Pvsync2),
];

/// The name `name` is known by in [`SUPPORTED`], if iogauge takes it.
pub fn canonical(name: &str) -> Option<&'static str> {
    let n = ALIASES
        .iter()
        .find(|(a, _)| *a == name)
        .map_or(name, |(_, c)| c);
    SUPPORTED
        .iter()
        .chain(PROFILE_OPTIONS)
        .copied()
        .find(|s| *s == n)
}

/// Whether `name` takes no value.
pub fn is_flag(name: &str) -> bool {
    canonical(name).is_some_and(|c| FLAGS.contains(&c))
}

/// What is wrong with an option name iogauge does not take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotTaken {
    /// fio knows it; iogauge does not run it.
    Unsupported,
    /// fio does not know it either.
    Unknown,
}

/// Whether `name` is taken, a fio option iogauge does not support, or no
/// fio option at all.
pub fn classify(name: &str) -> Result<&'static str, NotTaken> {
    match canonical(name) {
        Some(c) => Ok(c),
        None if names::is_fio_option(name) => Err(NotTaken::Unsupported),
        None => Err(NotTaken::Unknown),
    }
}

/// A fio job, typed. Fields hold fio's defaults until an option sets them;
/// [`Job::origin`] says where each set option came from.
#[derive(Clone, Debug, Serialize)]
pub struct Job {
    /// The section's name (`[name]`, `--name=name`); clones keep it.
    pub name: String,
    /// 0 for the job itself, 1.. for its `numjobs` clones (fio's `$jobnum`).
    pub clone: u32,
    /// The reporting group (fio's `groupid`): a new one starts at a job
    /// with `stonewall` or `new_group` after other jobs.
    pub group: u32,
    /// Where the job starts: its section header or `--name`.
    pub at: Place,
    pub description: Option<String>,
    pub kb_base: u64,
    pub rw: Rw,
    /// The share of reads in a mixed pattern, percent (`rwmixwrite` is
    /// 100 minus it).
    pub rwmixread: u32,
    pub bs: Dir<u64>,
    /// Alignment of random offsets per direction (fio's `ba`); 0: the
    /// direction's smallest block.
    pub ba: Dir<u64>,
    /// `bsrange`: the smallest and largest block per direction.
    pub bsrange: Option<Dir<(u64, u64)>>,
    pub bssplit: Option<Dir<Vec<BsShare>>>,
    pub size: Option<SizeOrPct>,
    /// `filesize`: the smallest and largest file, bytes.
    pub filesize: Option<(u64, u64)>,
    pub nrfiles: u32,
    /// `filename` as written (fio's `:`-separated list, `\:` a colon).
    pub filename: Option<String>,
    pub directory: Option<String>,
    pub offset: SizeOrPct,
    pub offset_increment: SizeOrPct,
    /// Bytes to move per loop instead of `size` (fio's `io_size`).
    pub io_size: Option<SizeOrPct>,
    pub ioengine: IoEngine,
    pub iodepth: u32,
    pub iodepth_batch: u32,
    pub iodepth_batch_complete_min: u32,
    /// 0: as iodepth_batch_complete_min (fio's default).
    pub iodepth_batch_complete_max: u32,
    /// 0: as iodepth (fio's default).
    pub iodepth_low: u32,
    pub direct: bool,
    /// pvsync2's `hipri`: RWF_HIPRI on a share of requests.
    pub hipri: bool,
    /// That share, percent (fio's default 100).
    pub hipri_percentage: u32,
    /// pvsync2's `nowait`: RWF_NOWAIT.
    pub nowait: bool,
    /// pvsync2's `uncached`: RWF_DONTCACHE on buffered requests.
    pub uncached: bool,
    pub thread: bool,
    pub numjobs: u32,
    /// `cpus_allowed`: the CPUs the job's threads may run on (checked
    /// against the machine when the job runs).
    pub cpus_allowed: Option<IdSet>,
    /// `cpus_allowed_policy`: shared (the default) or split.
    pub cpus_allowed_policy: Policy,
    /// `numa_cpu_nodes`: the NUMA nodes whose CPUs the job runs on
    /// ([`pin::ALL_NODES`] for `all`).
    pub numa_cpu_nodes: Option<IdSet>,
    /// `numa_mem_policy`: `bind:NODES`, `local` or `default`.
    pub numa_mem_policy: MemPolicy,
    /// 0: no time limit.
    pub runtime_ns: u64,
    pub time_based: bool,
    pub ramp_time_ns: u64,
    /// `steadystate`: the criterion judged once `steadystate_duration`
    /// is not 0 (fio's default criterion is `iops_slope:0.01%`).
    pub ss: super::steady::SsCriterion,
    /// `steadystate_duration`, `steadystate_ramp_time`,
    /// `steadystate_check_interval` (ns); a duration of 0 judges nothing.
    pub ss_dur_ns: u64,
    pub ss_ramp_ns: u64,
    pub ss_interval_ns: u64,
    pub loops: u32,
    /// Bytes per second per direction; 0: no cap.
    pub rate: Dir<u64>,
    /// I/Os per second per direction; 0: no cap.
    pub rate_iops: Dir<u64>,
    pub rate_process: RateProcess,
    pub thinktime_ns: u64,
    pub thinktime_spin_ns: u64,
    pub thinktime_blocks: u32,
    /// `thinktime_blocks` counts completed blocks (fio's default,
    /// `complete`) or issued ones (`issue`).
    pub thinktime_blocks_issue: bool,
    /// Think once this much time passed since the last think; 0: never.
    pub thinktime_iotime_ns: u64,
    pub fsync: u32,
    pub fdatasync: u32,
    pub end_fsync: bool,
    /// fio's `gtod_reduce`: taken, latencies measured anyway (a note).
    pub gtod_reduce: bool,
    /// Options of fio's profiles the job named (they do nothing).
    pub profile_options: Vec<String>,
    pub fallocate: Fallocate,
    /// A writing job's created file is filled with data first, as for a
    /// reader (fio's `overwrite`).
    pub overwrite: bool,
    /// fsync a created file after laying it out (fio's default, 1).
    pub create_fsync: bool,
    /// Drop the file's pages from the page cache at the start and at each
    /// new pass (fio's default, 1; buffered I/O only).
    pub invalidate: bool,
    pub fadvise_hint: FadviseHint,
    /// As written; read by the workload's distribution parser.
    pub random_distribution: String,
    pub norandommap: bool,
    pub randrepeat: bool,
    pub randseed: u64,
    /// fio's `random_generator`: `tausworthe` (default), `tausworthe64`
    /// or `lfsr`.
    pub random_generator: String,
    pub verify: String,
    /// Run the verify phase after the writes (fio's default, 1).
    pub do_verify: bool,
    /// Bytes per checked unit; 0: fio's default (the write block size).
    pub verify_interval: u64,
    pub verify_offset: u64,
    pub verify_fatal: bool,
    pub verify_only: bool,
    pub verify_async: u32,
    pub verify_backlog: u64,
    pub verify_backlog_batch: u64,
    /// What the job writes (fio's buffer options and `verify_pattern`).
    pub buffers: super::buffers::BufferOpts,
    pub group_reporting: bool,
    pub stonewall: bool,
    pub new_group: bool,
    pub wait_for: Option<String>,
    /// fio's per-I/O logs: each prefix as given, empty for the job's name
    /// (the option named alone); see [`Job::log_spec`].
    pub write_lat_log: Option<String>,
    pub write_bw_log: Option<String>,
    pub write_iops_log: Option<String>,
    /// 0: a line per I/O.
    pub log_avg_msec: u64,
    pub log_max_value: bool,
    pub log_offset: bool,
    pub per_job_logs: bool,
    /// `startdelay`: the least and the most delay before the job starts,
    /// ns (one value: both the same); each job draws its own in between.
    pub startdelay_ns: (u64, u64),
    /// `number_ios`: the job ends after this many requests (reads, writes
    /// and trims; per loop); 0: no such end.
    pub number_ios: u64,
    /// `exitall`: when a job ends, the jobs [`Job::exit_what`] says end.
    pub exitall: bool,
    pub exit_what: ExitWhat,
    /// `exitall_on_error`: as `exitall`, for a job that ends in error.
    pub exitall_on_error: bool,
    /// `rate_min`, bytes per second per direction; 0: none.
    pub rate_min: Dir<u64>,
    /// `rate_iops_min`, I/Os per second per direction; 0: none.
    pub rate_iops_min: Dir<u64>,
    /// `rate_cycle`: the minimum rates are averaged over this, ms.
    pub rate_cycle_ms: u64,
    /// fio's report options ([`Job::report_opts`]): `percentile_list`
    /// sorted with its precision, `None` for fio's default list.
    pub percentile_list: Option<(Vec<f64>, usize)>,
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    pub slat_percentiles: bool,
    pub unified_rw_reporting: Unified,
    pub disable_lat: bool,
    pub disable_clat: bool,
    pub disable_slat: bool,
    /// fio's `disable_bw_measurement`: only its per-I/O bandwidth log
    /// would change, which is refused with it ([`Job::report_opts`]).
    pub disable_bw: bool,
    pub stats: bool,
    pub significant_figures: u32,
    /// `bwavgtime`, `iopsavgtime` in ms; `None`: iogauge's one second.
    pub bwavgtime: Option<u64>,
    pub iopsavgtime: Option<u64>,
    /// Rates in bits (`unit_base=1`) rather than bytes (0, 8).
    pub unit_bits: bool,
    /// Where each option that was set came from, and its text (by the
    /// name in [`SUPPORTED`]).
    pub origin: BTreeMap<&'static str, (Place, String)>,
}

/// The most files a job may have (`nrfiles`).
pub const MAX_FILES: u32 = 1 << 20;

/// The largest count an `int` option of fio takes.
const INT_MAX: u64 = i32::MAX as u64;

impl Job {
    /// A job with fio's defaults.
    pub fn new(name: &str, at: Place) -> Job {
        Job {
            name: name.to_string(),
            clone: 0,
            group: 0,
            at,
            description: None,
            kb_base: KB_BASE,
            rw: Rw {
                kind: RwKind::Read,
                seq_nr: 1,
                seq_add: 0,
            },
            rwmixread: 50,
            bs: Dir::all(4096),
            ba: Dir::all(0),
            bsrange: None,
            bssplit: None,
            size: None,
            filesize: None,
            nrfiles: 1,
            filename: None,
            directory: None,
            offset: SizeOrPct::Bytes(0),
            offset_increment: SizeOrPct::Bytes(0),
            io_size: None,
            ioengine: IoEngine::Psync,
            iodepth: 1,
            iodepth_batch: 1,
            iodepth_batch_complete_min: 1,
            iodepth_batch_complete_max: 0,
            iodepth_low: 0,
            direct: false,
            hipri: false,
            hipri_percentage: 100,
            nowait: false,
            uncached: false,
            thread: false,
            numjobs: 1,
            cpus_allowed: None,
            cpus_allowed_policy: Policy::Shared,
            numa_cpu_nodes: None,
            numa_mem_policy: MemPolicy::Unchanged,
            runtime_ns: 0,
            time_based: false,
            ramp_time_ns: 0,
            ss: super::steady::SsCriterion::default(),
            ss_dur_ns: 0,
            ss_ramp_ns: 0,
            ss_interval_ns: 1_000_000_000,
            loops: 1,
            rate: Dir::all(0),
            rate_iops: Dir::all(0),
            rate_process: RateProcess::Linear,
            thinktime_ns: 0,
            thinktime_spin_ns: 0,
            thinktime_blocks: 1,
            thinktime_blocks_issue: false,
            thinktime_iotime_ns: 0,
            fsync: 0,
            fdatasync: 0,
            end_fsync: false,
            gtod_reduce: false,
            profile_options: Vec::new(),
            fallocate: Fallocate::Native,
            overwrite: false,
            create_fsync: true,
            invalidate: true,
            fadvise_hint: FadviseHint::Pattern,
            random_distribution: "random".into(),
            norandommap: false,
            randrepeat: true,
            randseed: 0x89,
            random_generator: "tausworthe".into(),
            verify: "0".into(),
            do_verify: true,
            verify_interval: 0,
            verify_offset: 0,
            verify_fatal: false,
            verify_only: false,
            verify_async: 0,
            verify_backlog: 0,
            verify_backlog_batch: 0,
            buffers: Default::default(),
            group_reporting: false,
            stonewall: false,
            new_group: false,
            wait_for: None,
            write_lat_log: None,
            write_bw_log: None,
            write_iops_log: None,
            log_avg_msec: 0,
            log_max_value: false,
            log_offset: false,
            per_job_logs: true,
            startdelay_ns: (0, 0),
            number_ios: 0,
            exitall: false,
            exit_what: ExitWhat::Group,
            exitall_on_error: false,
            rate_min: Dir::all(0),
            rate_iops_min: Dir::all(0),
            rate_cycle_ms: 1000,
            percentile_list: None,
            clat_percentiles: true,
            lat_percentiles: false,
            slat_percentiles: false,
            unified_rw_reporting: Unified::Split,
            disable_lat: false,
            disable_clat: false,
            disable_slat: false,
            disable_bw: false,
            stats: true,
            significant_figures: 4,
            bwavgtime: None,
            iopsavgtime: None,
            unit_bits: false,
            origin: BTreeMap::new(),
        }
    }

    /// Set option `name` (a name of [`SUPPORTED`] or an alias) from
    /// `value` (`None`: named alone). The error is the reason, without
    /// the place.
    pub fn apply(&mut self, name: &str, value: Option<&str>, at: &Place) -> Result<(), String> {
        let c =
            canonical(name).ok_or_else(|| format!("'{name}' is not an option iogauge takes"))?;
        let v = match value {
            Some(v) if OPTIONAL_VALUE.contains(&c) => v,
            None if OPTIONAL_VALUE.contains(&c) => "",
            Some(v) if v.trim().is_empty() && !FLAGS.contains(&c) => {
                return Err("an empty value (an unset ${VAR} becomes nothing, as in fio)".into());
            }
            Some(v) => v,
            None if FLAGS.contains(&c) => "1",
            None => return Err(format!("{name} needs a value ({name}=…)")),
        };
        let kb = self.kb_base;
        let int = |s: &str| value::int(s, kb, INT_MAX).map(|n| n as u32);
        match c {
            "description" => self.description = Some(v.to_string()),
            "kb_base" => {
                self.kb_base = match v.trim() {
                    "1024" => 1024,
                    "1000" => 1000,
                    t => return Err(format!("'{t}': kb_base is 1024 or 1000")),
                }
            }
            "rw" => self.rw = rw(v, kb)?,
            "rwmixread" | "rwmixwrite" => {
                let p = value::int(v, kb, 100)
                    .map_err(|e| format!("{e} (a percentage, 0 to 100)"))?
                    as u32;
                self.rwmixread = if c == "rwmixread" { p } else { 100 - p };
            }
            "bs" => {
                let pieces = pieces(v, false, |s| {
                    let b = value::size(s, kb)?;
                    if b == 0 {
                        return Err(format!("'{s}': a block size is at least 1 byte"));
                    }
                    Ok(b)
                })?;
                for (d, p) in value::per_direction(&pieces).into_iter().enumerate() {
                    if let Some(b) = p {
                        self.bs.set(d, b);
                    }
                }
            }
            "ba" => {
                let pieces = pieces(v, false, |s| {
                    let b = value::size(s, kb)?;
                    if b == 0 {
                        return Err(format!("'{s}': an alignment is at least 1 byte"));
                    }
                    Ok(b)
                })?;
                for (d, p) in value::per_direction(&pieces).into_iter().enumerate() {
                    if let Some(b) = p {
                        self.ba.set(d, b);
                    }
                }
            }
            "random_generator" => {
                self.random_generator = match v.trim() {
                    t @ ("tausworthe" | "tausworthe64" | "lfsr") => t.to_string(),
                    t => {
                        return Err(format!(
                            "'{t}': random_generator is tausworthe, lfsr or tausworthe64"
                        ));
                    }
                }
            }
            "bsrange" => {
                let pieces = pieces(v, true, |s| range(s, kb))?;
                let mut r = self
                    .bsrange
                    .clone()
                    .unwrap_or(Dir::all((self.bs.read, self.bs.read)));
                for (d, p) in value::per_direction(&pieces).into_iter().enumerate() {
                    if let Some(x) = p {
                        r.set(d, x);
                    }
                }
                self.bsrange = Some(r);
            }
            "bssplit" => self.bssplit = Some(bssplit(v, kb)?),
            "size" => {
                let s = value::size_or_pct(v, kb)?;
                if s == SizeOrPct::Percent(0) {
                    return Err("a size of 0% is no size".into());
                }
                self.size = Some(s);
            }
            "filesize" => {
                let p = pieces(v, false, |s| value::size(s, kb))?;
                let lo = p.first().copied().flatten();
                let hi = p.get(1).copied().flatten().or(lo);
                match (lo, hi) {
                    (Some(lo), Some(hi)) if lo >= 1 && hi >= lo => self.filesize = Some((lo, hi)),
                    (Some(_), Some(_)) => {
                        return Err(format!(
                            "'{v}': a file size is at least 1 byte, the largest last"
                        ));
                    }
                    _ => return Err(format!("'{v}' is not a file size")),
                }
            }
            "nrfiles" => {
                self.nrfiles = at_least(int(v)?, 1, "nrfiles")?;
                if self.nrfiles > MAX_FILES {
                    return Err(format!("iogauge takes at most {MAX_FILES} files per job"));
                }
            }
            "filename" => self.filename = Some(nonempty(v)?),
            "directory" => self.directory = Some(nonempty(v)?),
            "offset" => self.offset = value::size_or_pct(v, kb)?,
            "offset_increment" => self.offset_increment = value::size_or_pct(v, kb)?,
            "io_size" => self.io_size = Some(value::size_or_pct(v, kb)?),
            "gtod_reduce" => self.gtod_reduce = value::boolean(v)?,
            p if PROFILE_OPTIONS.contains(&p) => {
                if !self.profile_options.iter().any(|o| o == p) {
                    self.profile_options.push(p.to_string());
                }
            }
            "ioengine" => self.ioengine = engine(v)?,
            "iodepth" => self.iodepth = at_least(int(v)?, 1, "iodepth")?,
            "iodepth_batch" => self.iodepth_batch = int(v)?,
            "iodepth_batch_complete_min" => self.iodepth_batch_complete_min = int(v)?,
            "iodepth_batch_complete_max" => self.iodepth_batch_complete_max = int(v)?,
            "iodepth_low" => self.iodepth_low = int(v)?,
            "direct" => self.direct = value::boolean(v)?,
            "buffered" => self.direct = !value::boolean(v)?,
            "hipri" => self.hipri = value::boolean(v)?,
            "hipri_percentage" => {
                self.hipri_percentage = value::int(v, kb, 100)
                    .map_err(|e| format!("{e} (a percentage, 0 to 100)"))?
                    as u32;
            }
            "nowait" => self.nowait = value::boolean(v)?,
            // an int in fio: any other number than 0 asks it
            "uncached" => self.uncached = int(v)? != 0,
            "thread" => self.thread = value::boolean(v)?,
            "numjobs" => self.numjobs = at_least(int(v)?, 1, "numjobs")?,
            "cpus_allowed" => self.cpus_allowed = Some(IdSet::parse_list(v, "CPU")?),
            "cpus_allowed_policy" => {
                self.cpus_allowed_policy = match v.trim() {
                    "shared" => Policy::Shared,
                    "split" => Policy::Split,
                    t => return Err(format!("'{t}': cpus_allowed_policy is shared or split")),
                }
            }
            "numa_cpu_nodes" => self.numa_cpu_nodes = Some(pin::parse_nodes(v)?),
            "numa_mem_policy" => self.numa_mem_policy = pin::parse_mem_policy(v)?,
            "runtime" => self.runtime_ns = time(v, TimeUnit::Seconds)?,
            "time_based" => self.time_based = value::boolean(v)?,
            "ramp_time" => self.ramp_time_ns = time(v, TimeUnit::Seconds)?,
            "steadystate" => self.ss = super::steady::SsCriterion::parse(v, kb)?,
            "steadystate_duration" => self.ss_dur_ns = time(v, TimeUnit::Seconds)?,
            "steadystate_ramp_time" => self.ss_ramp_ns = time(v, TimeUnit::Seconds)?,
            "steadystate_check_interval" => {
                self.ss_interval_ns = time(v, TimeUnit::Seconds)?;
                if self.ss_interval_ns < 1_000_000_000 {
                    return Err(format!(
                        "'{}': the steady-state check interval must be at least 1s (as fio says)",
                        v.trim()
                    ));
                }
            }
            "loops" => self.loops = at_least(int(v)?, 1, "loops")?,
            "rate" | "rate_iops" => {
                let pieces = pieces(v, false, |s| value::size(s, kb))?;
                let dir = if c == "rate" {
                    &mut self.rate
                } else {
                    &mut self.rate_iops
                };
                for (d, p) in value::per_direction(&pieces).into_iter().enumerate() {
                    if let Some(x) = p {
                        dir.set(d, x);
                    }
                }
            }
            "rate_process" => {
                self.rate_process = match v.trim() {
                    "linear" => RateProcess::Linear,
                    "poisson" => RateProcess::Poisson,
                    t => return Err(format!("'{t}': rate_process is linear or poisson")),
                }
            }
            "thinktime" => self.thinktime_ns = time(v, TimeUnit::Micros)?,
            "thinktime_spin" => self.thinktime_spin_ns = time(v, TimeUnit::Micros)?,
            "thinktime_blocks" => self.thinktime_blocks = at_least(int(v)?, 1, "thinktime_blocks")?,
            "thinktime_blocks_type" => {
                self.thinktime_blocks_issue = match v.trim() {
                    "complete" => false,
                    "issue" => true,
                    t => {
                        return Err(format!("'{t}': thinktime_blocks_type is complete or issue"));
                    }
                }
            }
            "thinktime_iotime" => self.thinktime_iotime_ns = time(v, TimeUnit::Seconds)?,
            "fsync" => self.fsync = int(v)?,
            "fdatasync" => self.fdatasync = int(v)?,
            "end_fsync" => self.end_fsync = value::boolean(v)?,
            "fallocate" => self.fallocate = Fallocate::parse(v)?,
            "overwrite" => self.overwrite = value::boolean(v)?,
            "create_fsync" => self.create_fsync = value::boolean(v)?,
            "invalidate" => self.invalidate = value::boolean(v)?,
            "fadvise_hint" => self.fadvise_hint = FadviseHint::parse(v)?,
            "random_distribution" => self.random_distribution = nonempty(v)?.trim().to_string(),
            "norandommap" => self.norandommap = value::boolean(v)?,
            "randrepeat" => self.randrepeat = value::boolean(v)?,
            "randseed" => {
                self.randseed = value::size(v, kb).map_err(|e| format!("{e} (a seed)"))?;
            }
            "verify" => {
                let t = v.trim();
                if !VERIFY_METHODS.contains(&t) {
                    return Err(format!(
                        "'{t}' is not a verify method of fio ({})",
                        VERIFY_METHODS.join(", ")
                    ));
                }
                self.verify = t.to_string();
            }
            "do_verify" => self.do_verify = value::boolean(v)?,
            "verify_interval" => self.verify_interval = value::size(v, kb)?,
            "verify_offset" => self.verify_offset = value::size(v, kb)?,
            "verify_fatal" => self.verify_fatal = value::boolean(v)?,
            "verify_only" => self.verify_only = value::boolean(v)?,
            "verify_async" => self.verify_async = int(v)?,
            "verify_backlog" => self.verify_backlog = value::size(v, kb)?,
            "verify_backlog_batch" => self.verify_backlog_batch = value::size(v, kb)?,
            "group_reporting" => self.group_reporting = value::boolean(v)?,
            "stonewall" => self.stonewall = value::boolean(v)?,
            "new_group" => self.new_group = value::boolean(v)?,
            "wait_for" => self.wait_for = Some(nonempty(v)?),
            "write_lat_log" => self.write_lat_log = Some(v.trim().to_string()),
            "write_bw_log" => self.write_bw_log = Some(v.trim().to_string()),
            "write_iops_log" => self.write_iops_log = Some(v.trim().to_string()),
            "log_avg_msec" => self.log_avg_msec = value::int(v, kb, INT_MAX)?,
            "log_max_value" => self.log_max_value = value::boolean(v)?,
            "log_offset" => self.log_offset = value::boolean(v)?,
            "per_job_logs" => self.per_job_logs = value::boolean(v)?,
            n if super::buffers::OPTIONS.contains(&n) => self.buffers.set(n, v, kb)?,
            "startdelay" => self.startdelay_ns = time_range(v)?,
            "number_ios" => {
                self.number_ios = value::size(v, kb).map_err(|e| format!("{e} (a count)"))?;
            }
            "exitall" => self.exitall = value::boolean(v)?,
            "exit_what" => self.exit_what = ExitWhat::parse(v)?,
            "exitall_on_error" => self.exitall_on_error = value::boolean(v)?,
            "rate_min" | "rate_iops_min" => {
                let int_max = c == "rate_iops_min";
                let pieces = pieces(v, false, |s| {
                    if int_max {
                        value::int(s, kb, INT_MAX)
                    } else {
                        value::size(s, kb)
                    }
                })?;
                let dir = if c == "rate_min" {
                    &mut self.rate_min
                } else {
                    &mut self.rate_iops_min
                };
                for (d, p) in value::per_direction(&pieces).into_iter().enumerate() {
                    if let Some(x) = p {
                        dir.set(d, x);
                    }
                }
            }
            "rate_cycle" => self.rate_cycle_ms = value::int(v, kb, INT_MAX)?,
            "percentile_list" => self.percentile_list = Some(percentile_list(v)?),
            "clat_percentiles" => self.clat_percentiles = value::boolean(v)?,
            "lat_percentiles" => self.lat_percentiles = value::boolean(v)?,
            "slat_percentiles" => self.slat_percentiles = value::boolean(v)?,
            "unified_rw_reporting" => {
                self.unified_rw_reporting = match v.trim() {
                    "none" | "0" => Unified::Split,
                    "mixed" | "1" => Unified::Mixed,
                    "both" => Unified::Both,
                    t => {
                        return Err(format!(
                            "'{t}': unified_rw_reporting is none, mixed or both (or 0, 1)"
                        ));
                    }
                }
            }
            "disable_lat" => self.disable_lat = value::boolean(v)?,
            "disable_clat" => self.disable_clat = value::boolean(v)?,
            "disable_slat" => self.disable_slat = value::boolean(v)?,
            "disable_bw_measurement" => self.disable_bw = value::boolean(v)?,
            "stats" => self.stats = value::boolean(v)?,
            "significant_figures" => {
                let n = int(v)?;
                if !(1..=10).contains(&n) {
                    return Err(format!("significant_figures is 1 to 10, not {n}"));
                }
                self.significant_figures = n;
            }
            "bwavgtime" | "iopsavgtime" => {
                let ms = value::int(v, kb, INT_MAX)?;
                if ms == 0 || ms % 1000 != 0 {
                    return Err(format!(
                        "iogauge counts bytes and I/Os per whole second, so it samples over a multiple of 1000 ms (1000, 2000, …); it cannot sample every {ms} ms as fio would"
                    ));
                }
                if c == "bwavgtime" {
                    self.bwavgtime = Some(ms);
                } else {
                    self.iopsavgtime = Some(ms);
                }
            }
            "unit_base" => {
                self.unit_bits = match v.trim() {
                    "0" | "8" => false,
                    "1" => true,
                    t => return Err(format!("'{t}': unit_base is 0, 8 (bytes) or 1 (bits)")),
                }
            }
            _ => unreachable!("every name of SUPPORTED is handled"),
        }
        let key = if c == "buffered" { "direct" } else { c };
        let text = match value {
            Some(v) => format!("{name}={v}"),
            None => name.to_string(),
        };
        // the pair is one setting: each is where the last of them was set
        if c == "rwmixread" || c == "rwmixwrite" {
            self.origin.insert("rwmixread", (at.clone(), text.clone()));
            self.origin.insert("rwmixwrite", (at.clone(), text));
        } else {
            self.origin.insert(key, (at.clone(), text));
        }
        Ok(())
    }

    /// Whether `name` is an option of another engine than the job's
    /// ([`ENGINE_OWN`]).
    fn foreign(&self, name: &str) -> bool {
        ENGINE_OWN
            .iter()
            .any(|&(n, e)| n == name && e != self.ioengine)
    }

    /// The engine options set for an engine the job does not use, each
    /// with its place and text, in [`SUPPORTED`]'s order.
    pub fn foreign_engine_options(&self) -> Vec<(&'static str, Place, String)> {
        ENGINE_OWN
            .iter()
            .filter(|&&(n, _)| self.foreign(n))
            .filter_map(|&(n, _)| {
                let (at, text) = self.origin.get(n)?;
                Some((n, at.clone(), text.clone()))
            })
            .collect()
    }

    /// Put engine option `name` back at fio's default, as if it had not
    /// been given (an option `--ignore-unsupported` leaves out).
    pub fn unset_engine_option(&mut self, name: &str) {
        let d = Job::new("", self.at.clone());
        match name {
            "hipri" => self.hipri = d.hipri,
            "hipri_percentage" => self.hipri_percentage = d.hipri_percentage,
            "nowait" => self.nowait = d.nowait,
            "uncached" => self.uncached = d.uncached,
            _ => return,
        }
        self.origin.remove(name);
    }

    /// Each option's value as `--parse-only` prints it, in [`SUPPORTED`]'s
    /// order (`buffered` is shown as `direct`).
    pub fn values(&self) -> Vec<(&'static str, String)> {
        let dir = |d: &Dir<u64>| {
            if d.read == d.write && d.write == d.trim {
                d.read.to_string()
            } else {
                format!("{},{},{}", d.read, d.write, d.trim)
            }
        };
        let b = |x: bool| if x { "1" } else { "0" }.to_string();
        let ns = |n: u64| format!("{n} ns");
        let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "(none)".into());
        let mut out = Vec::new();
        for &name in SUPPORTED {
            let v = match name {
                "description" => opt(&self.description),
                "kb_base" => self.kb_base.to_string(),
                "rw" => self.rw.to_string(),
                "rwmixread" => self.rwmixread.to_string(),
                "rwmixwrite" => (100 - self.rwmixread).to_string(),
                "bs" => dir(&self.bs),
                "ba" => {
                    if self.ba == Dir::all(0) {
                        "(none)".into()
                    } else {
                        dir(&self.ba)
                    }
                }
                "random_generator" => self.random_generator.clone(),
                "bsrange" => match &self.bsrange {
                    None => "(none)".into(),
                    Some(r) => [r.read, r.write, r.trim]
                        .iter()
                        .map(|(a, b)| format!("{a}-{b}"))
                        .collect::<Vec<_>>()
                        .join(","),
                },
                "bssplit" => match &self.bssplit {
                    None => "(none)".into(),
                    Some(s) => [&s.read, &s.write, &s.trim]
                        .iter()
                        .map(|v| {
                            v.iter()
                                .map(|x| format!("{}/{}", x.bs, x.percent))
                                .collect::<Vec<_>>()
                                .join(":")
                        })
                        .collect::<Vec<_>>()
                        .join(","),
                },
                "size" => self.size.map_or("(none)".into(), |s| s.to_string()),
                "filesize" => self
                    .filesize
                    .map_or("(none)".into(), |(a, b)| format!("{a}-{b}")),
                "nrfiles" => self.nrfiles.to_string(),
                "filename" => opt(&self.filename),
                "directory" => opt(&self.directory),
                "offset" => self.offset.to_string(),
                "offset_increment" => self.offset_increment.to_string(),
                "io_size" => self.io_size.map_or("(none)".into(), |s| s.to_string()),
                "gtod_reduce" => b(self.gtod_reduce),
                "ioengine" => self.ioengine.name().into(),
                "iodepth" => self.iodepth.to_string(),
                "iodepth_batch" => self.iodepth_batch.to_string(),
                "iodepth_batch_complete_min" => self.iodepth_batch_complete_min.to_string(),
                "iodepth_batch_complete_max" => self.iodepth_batch_complete_max.to_string(),
                "iodepth_low" => self.iodepth_low.to_string(),
                "direct" => b(self.direct),
                "buffered" => continue,
                // shown for the engine they belong to only
                n if self.foreign(n) => continue,
                "hipri" => b(self.hipri),
                "hipri_percentage" => self.hipri_percentage.to_string(),
                "nowait" => b(self.nowait),
                "uncached" => b(self.uncached),
                "thread" => b(self.thread),
                "numjobs" => self.numjobs.to_string(),
                "cpus_allowed" => self.cpus_allowed.map_or("(none)".into(), |c| c.to_string()),
                "cpus_allowed_policy" => self.cpus_allowed_policy.name().into(),
                "numa_cpu_nodes" => match self.numa_cpu_nodes {
                    None => "(none)".into(),
                    Some(n) if n == pin::ALL_NODES => "all".into(),
                    Some(n) => n.to_string(),
                },
                "numa_mem_policy" => self
                    .numa_mem_policy
                    .fio_form()
                    .unwrap_or_else(|| "(none)".into()),
                "runtime" => ns(self.runtime_ns),
                "time_based" => b(self.time_based),
                "ramp_time" => ns(self.ramp_time_ns),
                "steadystate" => self.ss.fio_form(),
                "steadystate_duration" => ns(self.ss_dur_ns),
                "steadystate_ramp_time" => ns(self.ss_ramp_ns),
                "steadystate_check_interval" => ns(self.ss_interval_ns),
                "loops" => self.loops.to_string(),
                "rate" => dir(&self.rate),
                "rate_iops" => dir(&self.rate_iops),
                "rate_process" => match self.rate_process {
                    RateProcess::Linear => "linear".into(),
                    RateProcess::Poisson => "poisson".into(),
                },
                "thinktime" => ns(self.thinktime_ns),
                "thinktime_spin" => ns(self.thinktime_spin_ns),
                "thinktime_blocks" => self.thinktime_blocks.to_string(),
                "thinktime_blocks_type" => if self.thinktime_blocks_issue {
                    "issue"
                } else {
                    "complete"
                }
                .into(),
                "thinktime_iotime" => ns(self.thinktime_iotime_ns),
                "fsync" => self.fsync.to_string(),
                "fdatasync" => self.fdatasync.to_string(),
                "end_fsync" => b(self.end_fsync),
                "fallocate" => self.fallocate.name().into(),
                "overwrite" => b(self.overwrite),
                "create_fsync" => b(self.create_fsync),
                "invalidate" => b(self.invalidate),
                "fadvise_hint" => self.fadvise_hint.name().into(),
                "random_distribution" => self.random_distribution.clone(),
                "norandommap" => b(self.norandommap),
                "randrepeat" => b(self.randrepeat),
                "randseed" => self.randseed.to_string(),
                "verify" => self.verify.clone(),
                "do_verify" => b(self.do_verify),
                "verify_interval" => self.verify_interval.to_string(),
                "verify_offset" => self.verify_offset.to_string(),
                "verify_fatal" => b(self.verify_fatal),
                "verify_only" => b(self.verify_only),
                "verify_async" => self.verify_async.to_string(),
                "verify_backlog" => self.verify_backlog.to_string(),
                "verify_backlog_batch" => self.verify_backlog_batch.to_string(),
                "group_reporting" => b(self.group_reporting),
                "stonewall" => b(self.stonewall),
                "new_group" => b(self.new_group),
                "wait_for" => opt(&self.wait_for),
                "write_lat_log" | "write_bw_log" | "write_iops_log" => {
                    match self.log_prefix(name) {
                        Some(p) => p,
                        None => "(none)".into(),
                    }
                }
                "log_avg_msec" => self.log_avg_msec.to_string(),
                "log_max_value" => b(self.log_max_value),
                "log_offset" => b(self.log_offset),
                "per_job_logs" => b(self.per_job_logs),
                n if super::buffers::OPTIONS.contains(&n) => self.buffers.value(n),
                "startdelay" => match self.startdelay_ns {
                    (lo, hi) if lo == hi => ns(lo),
                    (lo, hi) => format!("{lo}-{hi} ns"),
                },
                "number_ios" => self.number_ios.to_string(),
                "exitall" => b(self.exitall),
                "exit_what" => self.exit_what.name().into(),
                "exitall_on_error" => b(self.exitall_on_error),
                "rate_min" => dir(&self.rate_min),
                "rate_iops_min" => dir(&self.rate_iops_min),
                "rate_cycle" => self.rate_cycle_ms.to_string(),
                "percentile_list" => match &self.percentile_list {
                    // fio's 17, shown short
                    None => "1:5:10:...:99.99".into(),
                    Some((list, precision)) => list
                        .iter()
                        .map(|p| format!("{p:.*}", precision))
                        .collect::<Vec<_>>()
                        .join(":"),
                },
                "clat_percentiles" => b(self.clat_percentiles),
                "lat_percentiles" => b(self.lat_percentiles),
                "slat_percentiles" => b(self.slat_percentiles),
                "unified_rw_reporting" => match self.unified_rw_reporting {
                    Unified::Split => "none",
                    Unified::Mixed => "mixed",
                    Unified::Both => "both",
                }
                .into(),
                "disable_lat" => b(self.disable_lat),
                "disable_clat" => b(self.disable_clat),
                "disable_slat" => b(self.disable_slat),
                "disable_bw_measurement" => b(self.disable_bw),
                "stats" => b(self.stats),
                "significant_figures" => self.significant_figures.to_string(),
                "bwavgtime" => format!("{} ms", self.bwavgtime.unwrap_or(1000)),
                "iopsavgtime" => format!("{} ms", self.iopsavgtime.unwrap_or(1000)),
                "unit_base" => if self.unit_bits { "1" } else { "8" }.into(),
                _ => unreachable!("every name of SUPPORTED is shown"),
            };
            out.push((name, v));
        }
        out
    }

    /// How the job's report looks: its report options as
    /// [`ReportOpts`].
    pub fn report_opts(&self) -> ReportOpts {
        let d = ReportOpts::default();
        let (percentiles, precision) = self
            .percentile_list
            .clone()
            .unwrap_or((d.percentiles, d.precision));
        ReportOpts {
            percentiles,
            precision,
            clat_percentiles: self.clat_percentiles,
            lat_percentiles: self.lat_percentiles,
            slat_percentiles: self.slat_percentiles,
            unified: self.unified_rw_reporting,
            disable_lat: self.disable_lat,
            disable_clat: self.disable_clat,
            disable_slat: self.disable_slat,
            stats: self.stats,
            sig_figs: self.significant_figures as usize,
            bw_avg_ms: self.bwavgtime.unwrap_or(d.bw_avg_ms),
            iops_avg_ms: self.iopsavgtime.unwrap_or(d.iops_avg_ms),
            bits: self.unit_bits,
        }
    }

    /// The prefix of log option `name` (`write_lat_log`, …) if set: as
    /// given, or the job's name when the option was named alone (fio's
    /// `make_log_name`).
    fn log_prefix(&self, name: &str) -> Option<String> {
        let p = match name {
            "write_lat_log" => &self.write_lat_log,
            "write_bw_log" => &self.write_bw_log,
            _ => &self.write_iops_log,
        };
        p.as_ref().map(|p| {
            if p.is_empty() {
                self.name.clone()
            } else {
                p.clone()
            }
        })
    }

    /// The per-I/O logs this job writes as job number `job_no` (fio's
    /// `thread_number`, from 1, over every job and clone), `None` when it
    /// writes none.
    pub fn log_spec(&self, job_no: u32) -> Option<crate::runner::iolog::LogSpec> {
        let spec = crate::runner::iolog::LogSpec {
            avg_msec: self.log_avg_msec,
            max_value: self.log_max_value,
            offset: self.log_offset,
            per_job: self.per_job_logs,
            job_no,
            ..crate::runner::iolog::LogSpec::new(
                self.log_prefix("write_lat_log").map(Into::into),
                self.log_prefix("write_bw_log").map(Into::into),
                self.log_prefix("write_iops_log").map(Into::into),
            )
        };
        spec.any().then_some(spec)
    }

    /// What the job asks of where it runs, for [`Pinning::resolve`]
    /// (`numa_cpu_nodes` narrows `cpus_allowed`, as fio applies both).
    ///
    /// [`Pinning::resolve`]: crate::runner::pin::Pinning::resolve
    pub fn pin_request(&self) -> PinRequest {
        PinRequest {
            cpus: self.cpus_allowed,
            policy: self.cpus_allowed_policy,
            cpu_nodes: self.numa_cpu_nodes,
            mem: self.numa_mem_policy,
        }
    }

    /// The files the job uses, as fio names them: `filename`'s list
    /// (`:`-separated, `\:` a colon in a name), or else
    /// `jobname.jobnum.filenum` for each of `nrfiles`; under `directory`
    /// when given and the name is relative.
    pub fn file_names(&self) -> Vec<String> {
        self.file_names_head(usize::MAX).0
    }

    /// The first `most` of [`Job::file_names`], and how many there are.
    pub fn file_names_head(&self, most: usize) -> (Vec<String>, usize) {
        let total = match &self.filename {
            Some(_) => None,
            None => Some(self.nrfiles as usize),
        };
        let names: Vec<String> = match &self.filename {
            Some(list) => {
                let mut out = vec![String::new()];
                let mut chars = list.chars().peekable();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' if chars.peek() == Some(&':') => {
                            out.last_mut().expect("one").push(':');
                            chars.next();
                        }
                        ':' => out.push(String::new()),
                        c => out.last_mut().expect("one").push(c),
                    }
                }
                out.into_iter().filter(|s| !s.is_empty()).collect()
            }
            None => (0..self.nrfiles)
                .take(most)
                .map(|i| format!("{}.{}.{i}", self.name, self.clone))
                .collect(),
        };
        let total = total.unwrap_or(names.len());
        let names = names.into_iter().take(most);
        let names = match &self.directory {
            Some(d) => names
                .into_iter()
                .map(|n| {
                    if n.starts_with('/') {
                        n
                    } else {
                        format!("{}/{n}", d.split(':').next().unwrap_or(d))
                    }
                })
                .collect(),
            None => names.collect(),
        };
        (names, total)
    }
}

/// fio's `percentile_list`: values from 0 to 100 separated by `:`, at most
/// 20 (`FIO_IO_U_LIST_MAX_LEN`); the list ends at the first 0, as fio
/// counts it, and is sorted. With it, the precision the text shows them
/// with: the most digits after a point among them.
pub fn percentile_list(v: &str) -> Result<(Vec<f64>, usize), String> {
    const MAX_LEN: usize = 20;
    let mut list = Vec::new();
    let mut precision = 0;
    for (i, t) in v.trim().split(':').enumerate() {
        if i >= MAX_LEN {
            return Err(format!("the list exceeding max length {MAX_LEN}"));
        }
        let t = t.trim();
        let x: f64 = t
            .parse()
            .map_err(|_| format!("not a floating point value: {t}"))?;
        if x.is_nan() || x > 100.0 {
            return Err(format!(
                "value out of range: {x:.6} (range max: 100.000000)"
            ));
        }
        if x < 0.0 {
            return Err(format!("value out of range: {x:.6} (range min: 0.000000)"));
        }
        if let Some((_, frac)) = t.split_once('.') {
            precision = precision.max(frac.chars().take_while(char::is_ascii_digit).count());
        }
        list.push(x);
    }
    if let Some(z) = list.iter().position(|&x| x == 0.0) {
        list.truncate(z);
    }
    list.sort_by(f64::total_cmp);
    Ok((list, precision))
}

fn nonempty(v: &str) -> Result<String, String> {
    if v.trim().is_empty() {
        return Err("an empty value".into());
    }
    Ok(v.to_string())
}

fn at_least(n: u32, min: u32, what: &str) -> Result<u32, String> {
    if n < min {
        return Err(format!("{what} is at least {min}"));
    }
    Ok(n)
}

fn time(v: &str, unit: TimeUnit) -> Result<u64, String> {
    value::time_ns(v, unit)
}

/// fio's time range (`startdelay=5-10`, seconds without a unit): one
/// time is both ends; the ends given the other way round are swapped.
fn time_range(v: &str) -> Result<(u64, u64), String> {
    // a '-' after the first character splits (none is negative)
    match v.trim().char_indices().skip(1).find(|&(_, c)| c == '-') {
        Some((at, _)) => {
            let t = v.trim();
            let a = time(&t[..at], TimeUnit::Seconds)?;
            let b = time(&t[at + 1..], TimeUnit::Seconds)?;
            Ok((a.min(b), a.max(b)))
        }
        None => {
            let t = time(v, TimeUnit::Seconds)?;
            Ok((t, t))
        }
    }
}

/// Each piece of `v` read by `f`; an empty piece is `None`.
fn pieces<T>(
    v: &str,
    only_comma: bool,
    f: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<Option<T>>, String> {
    let ps = value::split_pieces(v, only_comma);
    if ps.len() > 3 {
        return Err(format!("'{v}': at most three values (read, write, trim)"));
    }
    let out: Vec<Option<T>> = ps
        .iter()
        .map(|p| {
            if p.trim().is_empty() {
                Ok(None)
            } else {
                f(p).map(Some)
            }
        })
        .collect::<Result<_, _>>()?;
    if out.iter().all(Option::is_none) {
        return Err(format!("'{v}' gives no value"));
    }
    Ok(out)
}

/// `lo-hi` or `lo:hi`, swapped when given the other way round (fio's
/// `FIO_OPT_RANGE`).
fn range(s: &str, kb: u64) -> Result<(u64, u64), String> {
    let (a, b) = s
        .split_once('-')
        .or_else(|| s.split_once(':'))
        .ok_or_else(|| format!("'{s}' is not a range (lo-hi, e.g. 4k-16k)"))?;
    let (a, b) = (value::size(a, kb)?, value::size(b, kb)?);
    if a == 0 || b == 0 {
        return Err(format!("'{s}': a block size is at least 1 byte"));
    }
    Ok((a.min(b), a.max(b)))
}

/// `rw=kind[:N]`, fio's `str_rw_cb`: the name must be one of fio's in
/// full; the suffix after `:` is a count on a random pattern, a size to
/// skip on a sequential one.
fn rw(v: &str, kb: u64) -> Result<Rw, String> {
    let (name, suffix) = match v.split_once(':') {
        Some((n, s)) => (n, Some(s.trim())),
        None => (v, None),
    };
    let name = name.split(',').next().unwrap_or(name).trim();
    let kind = match RwKind::ALL.iter().find(|(n, _)| *n == name) {
        Some((_, k)) => *k,
        None => {
            return Err(format!(
                "'{name}' is not a pattern of fio (read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, trimwrite, randtrimwrite)"
            ));
        }
    };
    let mut r = Rw {
        kind,
        seq_nr: 1,
        seq_add: 0,
    };
    if let Some(s) = suffix {
        if kind.is_random() {
            let n = value::size(s, kb)?;
            if n == 0 || n > u64::from(u32::MAX) {
                return Err(format!(
                    "'{s}': the I/Os per random offset are 1 to {}",
                    u32::MAX
                ));
            }
            r.seq_nr = n as u32;
        } else {
            let (neg, mag) = match s.strip_prefix('-') {
                Some(m) => (true, m),
                None => (false, s),
            };
            let n = value::size(mag, kb)? as i64;
            r.seq_add = if neg { -n } else { n };
        }
    }
    Ok(r)
}

/// `ioengine=name`: an engine iogauge runs, one of fio's it does not, or
/// no engine fio has.
fn engine(v: &str) -> Result<IoEngine, String> {
    let t = v.trim();
    if let Some((_, e)) = IoEngine::ALL.iter().find(|(n, _)| *n == t) {
        return Ok(*e);
    }
    if names::ENGINES.contains(&t) || t.starts_with("external:") {
        return Err(format!(
            "ioengine={t} is not supported by iogauge (it runs {})",
            IoEngine::ALL.map(|(n, _)| n).join(", ")
        ));
    }
    Err(format!("'{t}' is not an I/O engine of fio"))
}

/// `bssplit=bs/pct:bs/pct,…` per direction, fio's `str_split_parse` and
/// `bssplit_ddir`: one list for all directions, two for read and
/// write+trim, three for each; a share left out (or 0) takes an equal part
/// of what the others leave; at most 64 sizes.
fn bssplit(v: &str, kb: u64) -> Result<Dir<Vec<BsShare>>, String> {
    let lists: Vec<&str> = v.splitn(3, ',').collect();
    let one = |s: &str| -> Result<Vec<BsShare>, String> {
        let mut items = Vec::new();
        for piece in s.split(':') {
            if piece.is_empty() {
                break;
            }
            let (b, p) = match piece.split_once('/') {
                Some((b, p)) => {
                    let p = p.trim();
                    let n: u64 = p
                        .parse()
                        .map_err(|_| format!("'{piece}': '{p}' is not a percentage"))?;
                    (
                        b,
                        if n == 0 {
                            None
                        } else {
                            Some(n.min(100) as u32)
                        },
                    )
                }
                None => (piece, None),
            };
            let bs = value::size(b, kb)?;
            if bs == 0 {
                return Err(format!("'{piece}': a block size is at least 1 byte"));
            }
            items.push((bs, p));
            if items.len() > 64 {
                return Err("bssplit takes at most 64 block sizes".into());
            }
        }
        if items.is_empty() {
            return Err(format!("'{v}' names no block size"));
        }
        let given: u32 = items.iter().filter_map(|(_, p)| *p).sum();
        let missing = items.iter().filter(|(_, p)| p.is_none()).count() as u32;
        if given > 100 {
            return Err(format!(
                "'{s}': the shares add up to {given} %, more than 100"
            ));
        }
        let mut out: Vec<BsShare> = items
            .into_iter()
            .map(|(bs, p)| BsShare {
                bs,
                percent: p.unwrap_or_else(|| (100 - given) / missing.max(1)),
            })
            .collect();
        // fio sorts by share, for its lookup
        out.sort_by_key(|s| s.percent);
        Ok(out)
    };
    Ok(match lists.as_slice() {
        [a] => Dir::all(one(a)?),
        [a, b] => {
            let w = one(b)?;
            Dir {
                read: one(a)?,
                write: w.clone(),
                trim: w,
            }
        }
        [a, b, c] => Dir {
            read: one(a)?,
            write: one(b)?,
            trim: one(c)?,
        },
        _ => unreachable!("splitn(3) gives one to three"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> Place {
        Place {
            file: "t.fio".into(),
            line: 1,
        }
    }

    fn job(opts: &[&str]) -> Result<Job, String> {
        let mut j = Job::new("j", at());
        for o in opts {
            let (n, v) = match o.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (*o, None),
            };
            j.apply(n, v, &at())?;
        }
        Ok(j)
    }

    #[test]
    fn percentile_list_read_as_fio_reads_it() {
        assert_eq!(percentile_list("99:99.9").unwrap(), (vec![99.0, 99.9], 1));
        assert_eq!(percentile_list("99.5").unwrap(), (vec![99.5], 1));
        assert_eq!(
            percentile_list("99.99:50:1").unwrap(),
            (vec![1.0, 50.0, 99.99], 2)
        );
        // fio's list ends at its first 0
        assert_eq!(percentile_list("50:0:99").unwrap(), (vec![50.0], 0));
        assert_eq!(percentile_list("100").unwrap(), (vec![100.0], 0));
        let twenty: Vec<String> = (1..=20).map(|i| i.to_string()).collect();
        let twenty = twenty.join(":");
        assert_eq!(percentile_list(&twenty).unwrap().0.len(), 20);
        assert_eq!(
            percentile_list(&format!("{twenty}:21")).unwrap_err(),
            "the list exceeding max length 20"
        );
        assert_eq!(
            percentile_list("100.5").unwrap_err(),
            "value out of range: 100.500000 (range max: 100.000000)"
        );
        assert!(percentile_list("-1").unwrap_err().contains("range min"));
        assert!(percentile_list("nan").is_err());
        assert_eq!(
            percentile_list("50:x").unwrap_err(),
            "not a floating point value: x"
        );
    }

    #[test]
    fn report_options_read_as_fio() {
        let d = job(&[]).unwrap().report_opts();
        assert_eq!(d, ReportOpts::default());
        assert_eq!(d.percentiles.len(), 17);
        let o = job(&[
            "percentile_list=99.9:50",
            "lat_percentiles=1",
            "clat_percentiles=0",
            "slat_percentiles=1",
            "unified_rw_reporting=both",
            "disable_lat=1",
            "disable_clat=1",
            "disable_slat=1",
            "disable_bw=1",
            "stats=0",
            "significant_figures=6",
            "bwavgtime=2000",
            "iopsavgtime=3000",
            "unit_base=1",
        ])
        .unwrap()
        .report_opts();
        assert_eq!((o.percentiles.clone(), o.precision), (vec![50.0, 99.9], 1));
        assert!(o.lat_percentiles && !o.clat_percentiles && o.slat_percentiles);
        assert_eq!(o.unified, Unified::Both);
        assert!(o.disable_lat && o.disable_clat && o.disable_slat && !o.stats);
        assert_eq!((o.sig_figs, o.bw_avg_ms, o.iops_avg_ms), (6, 2000, 3000));
        assert_eq!(o.sample_secs(), (2, 3));
        assert!(o.bits);
        for (v, want) in [
            ("none", Unified::Split),
            ("0", Unified::Split),
            ("mixed", Unified::Mixed),
            ("1", Unified::Mixed),
            ("both", Unified::Both),
        ] {
            let j = job(&[&format!("unified_rw_reporting={v}")]).unwrap();
            assert_eq!(j.unified_rw_reporting, want, "{v}");
        }
        for bad in [
            "unified_rw_reporting=2",
            "significant_figures=0",
            "significant_figures=11",
            "bwavgtime=500",
            "iopsavgtime=0",
            "bwavgtime=1500",
            "unit_base=4",
            "stats=maybe",
        ] {
            assert!(job(&[bad]).is_err(), "{bad}");
        }
        assert!(!job(&["unit_base=8"]).unwrap().report_opts().bits);
    }

    #[test]
    fn layout_and_cache_options_read_as_fio() {
        let j = job(&[]).unwrap();
        assert_eq!(j.fallocate, Fallocate::Native);
        assert!(j.invalidate && j.create_fsync && !j.overwrite);
        assert_eq!(j.fadvise_hint, FadviseHint::Pattern);
        for (v, want) in [
            ("none", Fallocate::None),
            ("0", Fallocate::None),
            ("1", Fallocate::Posix),
            ("posix", Fallocate::Posix),
            ("keep", Fallocate::Keep),
            ("truncate", Fallocate::Truncate),
            ("native", Fallocate::Native),
        ] {
            assert_eq!(job(&[&format!("fallocate={v}")]).unwrap().fallocate, want);
        }
        assert!(job(&["fallocate=2"]).is_err());
        for (v, want) in [
            ("0", FadviseHint::None),
            ("1", FadviseHint::Pattern),
            ("random", FadviseHint::Random),
            ("sequential", FadviseHint::Sequential),
        ] {
            let j = job(&[&format!("fadvise_hint={v}")]).unwrap();
            assert_eq!(j.fadvise_hint, want);
            assert_eq!(j.fadvise_hint.name(), v);
        }
        let e = job(&["fadvise_hint=noreuse"]).unwrap_err();
        assert!(e.contains("not supported"), "{e}");
        let j = job(&["invalidate=0", "overwrite=1", "create_fsync=0"]).unwrap();
        assert!(!j.invalidate && j.overwrite && !j.create_fsync);
    }

    #[test]
    fn defaults_are_fios() {
        let j = job(&[]).unwrap();
        assert_eq!(j.bs, Dir::all(4096));
        assert_eq!(j.rw.kind, RwKind::Read);
        assert_eq!(j.ioengine, IoEngine::Psync);
        assert_eq!(j.iodepth, 1);
        assert_eq!(j.randseed, 0x89);
        assert_eq!(j.rwmixread, 50);
        assert!(j.randrepeat);
        assert_eq!(j.file_names(), vec!["j.0.0"]);
    }

    #[test]
    fn block_sizes_per_direction() {
        assert_eq!(job(&["bs=8k"]).unwrap().bs, Dir::all(8192));
        let j = job(&["bs=4k,8k"]).unwrap();
        assert_eq!((j.bs.read, j.bs.write, j.bs.trim), (4096, 8192, 8192));
        let j = job(&["bs=4k,8k,16k"]).unwrap();
        assert_eq!((j.bs.read, j.bs.write, j.bs.trim), (4096, 8192, 16384));
        let j = job(&["bs=,8k"]).unwrap();
        assert_eq!((j.bs.read, j.bs.write, j.bs.trim), (4096, 8192, 8192));
        assert!(job(&["bs=0"]).is_err());
        assert!(job(&["bs=4k,8k,1k,2k"]).is_err());
        let j = job(&["bsrange=16k-4k"]).unwrap();
        assert_eq!(j.bsrange.unwrap(), Dir::all((4096, 16384)));
        let j = job(&["bsrange=1k-4k,2k:8k"]).unwrap();
        let r = j.bsrange.unwrap();
        assert_eq!(
            (r.read, r.write, r.trim),
            ((1024, 4096), (2048, 8192), (2048, 8192))
        );
        assert!(job(&["bsrange=4k"]).is_err());
    }

    #[test]
    fn bssplit_as_fio() {
        let j = job(&["bssplit=4k/10:64k/50:32k/40"]).unwrap();
        let s = j.bssplit.unwrap();
        let want = vec![
            BsShare {
                bs: 4096,
                percent: 10,
            },
            BsShare {
                bs: 32768,
                percent: 40,
            },
            BsShare {
                bs: 65536,
                percent: 50,
            },
        ];
        assert_eq!(s.read, want);
        assert_eq!(s.trim, want);
        // shares left out split what remains
        let j = job(&["bssplit=4k:8k/50:16k"]).unwrap();
        let p: Vec<u32> = j.bssplit.unwrap().read.iter().map(|s| s.percent).collect();
        assert_eq!(p, vec![25, 25, 50]);
        let j = job(&["bssplit=2k/50:4k/50,4k/90:8k/10"]).unwrap();
        let s = j.bssplit.unwrap();
        assert_eq!(s.read.len(), 2);
        assert_eq!(s.write, s.trim);
        assert_eq!(
            s.write[0],
            BsShare {
                bs: 8192,
                percent: 10
            }
        );
        assert!(job(&["bssplit=4k/60:8k/60"]).is_err());
        assert!(job(&["bssplit=x/10"]).is_err());
    }

    #[test]
    fn patterns() {
        let j = job(&["rw=randread:8"]).unwrap();
        assert_eq!((j.rw.kind, j.rw.seq_nr), (RwKind::RandRead, 8));
        let j = job(&["readwrite=write:4k"]).unwrap();
        assert_eq!((j.rw.kind, j.rw.seq_add), (RwKind::Write, 4096));
        let j = job(&["rw=read:-8k"]).unwrap();
        assert_eq!((j.rw.kind, j.rw.seq_add), (RwKind::Read, -8192));
        assert!(job(&["bs="]).unwrap_err().contains("empty"));
        assert_eq!(job(&["rw=rw"]).unwrap().rw.kind, RwKind::ReadWrite);
        assert_eq!(job(&["rw=trimwrite"]).unwrap().rw.kind, RwKind::TrimWrite);
        assert!(job(&["rw=randread:0"]).is_err());
        assert!(job(&["rw=rand"]).is_err());
        assert_eq!(
            job(&["rw=randtrimwrite"]).unwrap().rw.kind,
            RwKind::RandTrimWrite
        );
        assert_eq!(job(&["rwmixwrite=30"]).unwrap().rwmixread, 70);
        assert!(job(&["rwmixread=101"]).is_err());
    }

    #[test]
    fn pvsync2_options() {
        let j = job(&[
            "ioengine=pvsync2",
            "hipri",
            "hipri_percentage=25",
            "nowait=1",
            "uncached=2",
        ])
        .unwrap();
        assert!(j.hipri && j.nowait && j.uncached);
        assert_eq!(j.hipri_percentage, 25);
        assert!(j.foreign_engine_options().is_empty());
        let d = job(&[]).unwrap();
        assert!(!d.hipri && !d.nowait && !d.uncached);
        assert_eq!(d.hipri_percentage, 100);
        assert!(!job(&["hipri=0"]).unwrap().hipri);
        assert!(!job(&["uncached=0"]).unwrap().uncached);
        for bad in [
            "hipri_percentage=101",
            "hipri_percentage=-1",
            "nowait=yes",
            "hipri=2",
        ] {
            assert!(job(&[bad]).is_err(), "{bad}");
        }
        // another engine's: named, and shown only for pvsync2
        let mut j = job(&["ioengine=io_uring", "hipri", "nowait=1"]).unwrap();
        let names: Vec<_> = j.foreign_engine_options().iter().map(|o| o.0).collect();
        assert_eq!(names, ["hipri", "nowait"]);
        assert!(!j.values().iter().any(|(n, _)| *n == "hipri"));
        j.unset_engine_option("hipri");
        j.unset_engine_option("nowait");
        assert!(!j.hipri && !j.nowait && j.foreign_engine_options().is_empty());
        let shown = job(&["ioengine=pvsync2"]).unwrap().values();
        assert!(shown.contains(&("hipri_percentage", "100".to_string())));
    }

    #[test]
    fn engines() {
        assert_eq!(
            job(&["ioengine=io_uring"]).unwrap().ioengine,
            IoEngine::IoUring
        );
        assert_eq!(
            job(&["ioengine=pvsync2"]).unwrap().ioengine,
            IoEngine::Pvsync2
        );
        assert!(
            job(&["ioengine=posixaio"])
                .unwrap_err()
                .contains("not supported")
        );
        assert!(
            job(&["ioengine=nope"])
                .unwrap_err()
                .contains("not an I/O engine")
        );
    }

    #[test]
    fn times_sizes_and_flags() {
        let j = job(&["runtime=30", "ramp_time=2s", "thinktime=50", "time_based"]).unwrap();
        assert_eq!(j.runtime_ns, 30_000_000_000);
        assert_eq!(j.ramp_time_ns, 2_000_000_000);
        assert_eq!(j.thinktime_ns, 50_000);
        assert!(j.time_based);
        assert_eq!(job(&["timeout=1m"]).unwrap().runtime_ns, 60_000_000_000);
        assert_eq!(
            job(&["size=50%"]).unwrap().size,
            Some(SizeOrPct::Percent(50))
        );
        assert_eq!(
            job(&["filesize=1m-4m"]).unwrap().filesize,
            Some((1 << 20, 4 << 20))
        );
        assert_eq!(
            job(&["filesize=1m"]).unwrap().filesize,
            Some((1 << 20, 1 << 20))
        );
        assert!(job(&["direct=1"]).unwrap().direct);
        assert!(!job(&["direct=1", "buffered=1"]).unwrap().direct);
        assert!(job(&["direct"]).is_err());
        assert!(job(&["direct=2"]).is_err());
        assert_eq!(job(&["iodepth=1k"]).unwrap().iodepth, 1024);
        assert!(job(&["iodepth=0"]).is_err());
        let j = job(&["rate=1m,500k"]).unwrap();
        assert_eq!(
            (j.rate.read, j.rate.write, j.rate.trim),
            (1 << 20, 512_000, 512_000)
        );
        let j = job(&["rate_iops=100"]).unwrap();
        assert_eq!(j.rate_iops, Dir::all(100));
        // kb_base changes what follows it
        let j = job(&["kb_base=1000", "bs=4k"]).unwrap();
        assert_eq!(j.bs.read, 4000);
        assert!(job(&["verify=crc32c"]).is_ok());
        assert!(job(&["verify=crc99"]).is_err());
    }

    #[test]
    fn log_options_are_taken() {
        let j = job(&[]).unwrap();
        assert_eq!(j.log_spec(1), None);
        assert!(j.per_job_logs);
        // named alone: the log is named after the job
        let j = job(&["write_lat_log", "write_iops_log=x/io", "log_avg_msec=250"]).unwrap();
        let s = j.log_spec(3).unwrap();
        assert_eq!(s.lat.as_deref(), Some(std::path::Path::new("j")));
        assert_eq!(s.iops.as_deref(), Some(std::path::Path::new("x/io")));
        assert_eq!(s.bw, None);
        assert_eq!((s.avg_msec, s.job_no, s.per_job), (250, 3, true));
        let shown: Vec<_> = j
            .values()
            .into_iter()
            .filter(|(n, _)| n.contains("log") && !n.contains("backlog"))
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        assert_eq!(
            shown,
            [
                "write_lat_log=j",
                "write_bw_log=(none)",
                "write_iops_log=x/io",
                "log_avg_msec=250",
                "log_max_value=0",
                "log_offset=0",
                "per_job_logs=1"
            ]
        );
        let j = job(&[
            "write_bw_log=",
            "log_offset=1",
            "log_max_value=1",
            "per_job_logs=0",
        ])
        .unwrap();
        let s = j.log_spec(1).unwrap();
        assert_eq!(s.bw.as_deref(), Some(std::path::Path::new("j")));
        assert!(s.offset && s.max_value && !s.per_job);
        assert!(job(&["log_avg_msec=-1"]).is_err());
        assert!(job(&["log_avg_msec=x"]).is_err());
        assert!(job(&["log_offset=maybe"]).is_err());
    }

    #[test]
    fn names_are_classified() {
        assert_eq!(classify("bs"), Ok("bs"));
        assert_eq!(classify("blocksize"), Ok("bs"));
        assert_eq!(classify("cpus_allowed"), Ok("cpus_allowed"));
        assert_eq!(classify("cpumask"), Err(NotTaken::Unsupported));
        assert_eq!(classify("sqthread_poll"), Err(NotTaken::Unsupported));
        assert_eq!(classify("hipri"), Ok("hipri"));
        assert_eq!(classify("blocksz"), Err(NotTaken::Unknown));
        // every option iogauge takes is one of fio's
        for s in SUPPORTED {
            assert!(names::is_fio_option(s), "{s}");
        }
        for (a, c) in ALIASES {
            assert!(names::is_fio_option(a) && SUPPORTED.contains(c), "{a}");
        }
    }

    #[test]
    fn pinning_options_as_fio_writes_them() {
        let j = job(&[
            "cpus_allowed=0-3,6",
            "cpus_allowed_policy=split",
            "numa_cpu_nodes=0-1",
            "numa_mem_policy=bind:1",
        ])
        .unwrap();
        assert_eq!(j.cpus_allowed.unwrap().to_string(), "0-3,6");
        assert_eq!(j.cpus_allowed_policy, Policy::Split);
        assert_eq!(j.numa_cpu_nodes.unwrap().to_string(), "0-1");
        assert_eq!(j.numa_mem_policy, MemPolicy::Bind(IdSet::only(1)));
        let r = j.pin_request();
        assert_eq!((r.cpus, r.policy), (j.cpus_allowed, Policy::Split));
        let shown: BTreeMap<_, _> = j.values().into_iter().collect();
        assert_eq!(shown["cpus_allowed"], "0-3,6");
        assert_eq!(shown["cpus_allowed_policy"], "split");
        assert_eq!(shown["numa_cpu_nodes"], "0-1");
        assert_eq!(shown["numa_mem_policy"], "bind:1");
        let d: BTreeMap<_, _> = job(&[]).unwrap().values().into_iter().collect();
        assert_eq!(
            (
                d["cpus_allowed"].as_str(),
                d["cpus_allowed_policy"].as_str()
            ),
            ("(none)", "shared")
        );
        let j = job(&["numa_cpu_nodes=all", "numa_mem_policy=local"]).unwrap();
        assert_eq!(j.numa_cpu_nodes, Some(pin::ALL_NODES));
        assert_eq!(
            j.values()
                .iter()
                .find(|v| v.0 == "numa_cpu_nodes")
                .unwrap()
                .1,
            "all"
        );
        assert_eq!(j.numa_mem_policy, MemPolicy::Local);
        assert_eq!(
            job(&["numa_mem_policy=default"]).unwrap().numa_mem_policy,
            MemPolicy::Default
        );
        for (bad, says) in [
            ("cpus_allowed=0-", "not a CPU number"),
            ("cpus_allowed=3-1", "runs backwards"),
            ("cpus_allowed_policy=spread", "shared or split"),
            ("numa_cpu_nodes=x", "not a NUMA node number"),
            ("numa_cpu_nodes=!0", "not supported"),
            ("numa_mem_policy=interleave:0", "not supported by iogauge"),
            ("numa_mem_policy=prefer:0", "not supported by iogauge"),
            ("numa_mem_policy=bind", "needs its nodes"),
            ("numa_mem_policy=local:0", "no node list"),
        ] {
            let e = job(&[bad]).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn file_names_as_fio() {
        let mut j = job(&["nrfiles=2", "directory=/d"]).unwrap();
        j.clone = 3;
        assert_eq!(j.file_names(), vec!["/d/j.3.0", "/d/j.3.1"]);
        let j = job(&["nrfiles=1000000"]).unwrap();
        let (names, total) = j.file_names_head(2);
        assert_eq!(names, vec!["j.0.0", "j.0.1"]);
        assert_eq!(total, 1_000_000);
        assert!(job(&["nrfiles=2000000"]).is_err());
        let j = job(&["filename=a\\:b:c:/x"]).unwrap();
        assert_eq!(j.file_names(), vec!["a:b", "c", "/x"]);
    }

    #[test]
    fn start_and_stop_controls_read_as_fio_reads_them() {
        let s = 1_000_000_000;
        assert_eq!(
            job(&["startdelay=5"]).unwrap().startdelay_ns,
            (5 * s, 5 * s)
        );
        assert_eq!(
            job(&["startdelay=5-10"]).unwrap().startdelay_ns,
            (5 * s, 10 * s)
        );
        assert_eq!(
            job(&["startdelay=2s-500ms"]).unwrap().startdelay_ns,
            (s / 2, 2 * s),
            "swapped"
        );
        assert!(job(&["startdelay=1-x"]).is_err());
        assert!(job(&["startdelay=-1"]).is_err());
        assert_eq!(job(&["number_ios=1k"]).unwrap().number_ios, 1024);
        let j = job(&["exitall", "exit_what=stonewall", "exitall_on_error"]).unwrap();
        assert!(j.exitall && j.exitall_on_error);
        assert_eq!(j.exit_what, ExitWhat::Stonewall);
        assert!(job(&["exit_what=everything"]).is_err());
        let j = job(&["ratemin=1m,2m", "ratecycle=500"]).unwrap();
        assert_eq!(
            (j.rate_min.read, j.rate_min.write, j.rate_min.trim),
            (1 << 20, 2 << 20, 2 << 20),
            "the last value given holds for the directions after it, as bs"
        );
        assert_eq!(j.rate_cycle_ms, 500);
        assert!(j.origin.contains_key("rate_min") && j.origin.contains_key("rate_cycle"));
        assert_eq!(job(&["rate_iops_min=,50"]).unwrap().rate_iops_min.write, 50);
        assert_eq!(Job::new("j", at()).rate_cycle_ms, 1000, "fio's default");
    }
}
