//! `iogauge run`: the generic five-parameter workload.

use super::common::{self, DepthArgs, EngineArgs, Status, SyncArgs};
use super::progress::{self, Bar};
use super::scale;
use crate::engine::Choice;
use crate::runner::StopRule;
use crate::session::generic::{GenericRun, IoSetup, Target, UserFile, describe};
use crate::suites::run::load::GenericPoint;
use crate::workload::generic::GenericSpec;
use anyhow::Result;
use std::path::PathBuf;
use std::time::Duration;

/// Chen & Patterson's workload model: uniqueBytes, sizeMean, readFrac,
/// seqFrac and processNum (Proc. IEEE 1993, §IX-B1). The files are laid out
/// and filled with incompressible data before timing (or --file names one
/// that exists); the run stops after --duration (default 10 s) or --ops.
#[derive(clap::Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct Args {
    /// Total bytes the workload touches, spread over --files files (default 64M; with --file or --device, its size).
    #[arg(long, value_name = "SIZE", value_parser = common::size_arg, allow_hyphen_values = true)]
    pub unique_bytes: Option<u64>,
    /// Mean request size; sizes are gamma-distributed around it (see --size-cv).
    #[arg(long, default_value = "20K", value_name = "SIZE", value_parser = common::size_arg, allow_hyphen_values = true)]
    pub size_mean: u64,
    /// Coefficient of variation of request sizes (1 = exponential, 0 = fixed).
    #[arg(long, default_value_t = 1.0, value_name = "X")]
    pub size_cv: f64,
    /// Request sizes and offsets are multiples of this (default 512 B; 4 KiB with --direct).
    #[arg(long, value_name = "SIZE", value_parser = common::size_arg, allow_hyphen_values = true)]
    pub align: Option<u64>,
    /// Share of requests that read (the rest write).
    #[arg(long, default_value = "0.5", value_name = "F", value_parser = common::fraction_arg)]
    pub read_frac: f64,
    /// Share of requests that trim: discard their range (a hole punched in the file, BLKDISCARD on a device), so it reads as zeros; --read-frac plus this is at most 1, writes are the rest.
    #[arg(long, default_value = "0", value_name = "F", value_parser = common::fraction_arg)]
    pub trim_frac: f64,
    /// Share of requests that start where the worker's previous request ended.
    #[arg(long, default_value = "0.5", value_name = "F", value_parser = common::fraction_arg)]
    pub seq_frac: f64,
    /// Where random (non-sequential) requests go, in fio's random_distribution syntax: random (uniform), zipf:θ[:centre], pareto:h[:centre], normal:σ[:centre], zoned:a/s:…, zoned_abs:a/SIZE:… (docs/run.md).
    #[arg(long, default_value = "random", value_name = "SPEC", value_parser = crate::workload::dist::parse)]
    pub distribution: crate::workload::dist::Dist,
    /// Concurrent workers (threads), each with its own sequential stream.
    #[arg(long, short = 'p', default_value = "1", value_name = "N", value_parser = common::count_arg)]
    pub processes: usize,
    /// Spread the unique bytes over N files of equal size.
    #[arg(long, default_value = "1", value_name = "N", value_parser = common::count_arg)]
    pub files: usize,
    /// Measure for this long (e.g. 30s, 2m; a plain number is seconds). Default 10s unless --ops.
    #[arg(long, value_name = "TIME", value_parser = common::duration_arg, allow_hyphen_values = true)]
    pub duration: Option<Duration>,
    /// Stop after N reads and writes in all (fsyncs come on top), instead of a duration.
    #[arg(long, value_name = "N")]
    pub ops: Option<u64>,
    /// Run this long first without counting (e.g. 5s).
    #[arg(long, value_name = "TIME", value_parser = common::duration_arg, allow_hyphen_values = true)]
    pub ramp: Option<Duration>,
    /// Seed of the request stream: the same seed issues the same requests.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    /// Drop the files from the page cache after prefill, so the run starts cold.
    #[arg(long)]
    pub cold: bool,
    /// Open the data files with O_NOATIME: reads leave their access times alone (as t/io_uring does).
    #[arg(long)]
    pub noatime: bool,
    /// Run the workers as threads of one process (default) or as processes of their own.
    #[arg(long, value_enum, default_value = "threads", value_name = "HOW")]
    pub workers_as: WorkersAs,
    /// Parent of the run's work directory (created and removed by the run).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    /// Work on this existing regular file instead of laying out files: no prefill, never truncated or removed; read-only unless --allow-write.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["dir", "device"])]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub device: super::device::DeviceArgs,
    /// Let the run write to the --file (--read-frac below 1 overwrites its bytes).
    #[arg(long, requires = "file")]
    pub allow_write: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub depth: DepthArgs,
    #[command(flatten)]
    pub sync: SyncArgs,
    #[command(flatten)]
    pub pin: super::pin::PinArgs,
    #[command(flatten)]
    pub run: common::PointArgs,
    /// Under mpirun: the ranks share one file in --dir (IOR's N-to-1), rank r working in bytes [r·U, (r+1)·U) of it, U = --unique-bytes.
    #[arg(
        long,
        conflicts_with_all = ["file", "device"],
        help_heading = "Many clients (under mpirun)"
    )]
    pub shared_file: bool,
    #[command(flatten)]
    pub cluster: common::ClusterArgs,
    #[command(flatten)]
    pub verify: super::verify::VerifyArgs,
    #[command(flatten)]
    pub logs: LogArgs,
    /// Check every unit of a file set kept by --verify --keep against its manifest, or of a directory a killed --verify-crash run left against its journal; change nothing, and report (exit code 3 when a unit is wrong).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["verify", "verify_crash", "file", "device", "shared_file"], help_heading = "Verification")]
    pub verify_only: Option<PathBuf>,
}

/// fio's per-I/O logs (write_lat_log, write_bw_log, write_iops_log,
/// log_avg_msec), in fio's format (docs/logs.md).
#[derive(clap::Args, Debug, Clone, Default)]
#[command(next_help_heading = "fio's per-I/O logs")]
pub struct LogArgs {
    /// Write fio's latency logs PREFIX_lat.N.log, PREFIX_clat.N.log and PREFIX_slat.N.log (ns; N the worker's number from 1), relative to the current directory as fio's write_lat_log.
    #[arg(long, value_name = "PREFIX", value_parser = log_prefix_arg)]
    pub write_lat_log: Option<PathBuf>,
    /// Write fio's bandwidth log PREFIX_bw.N.log (KiB/s), as fio's write_bw_log.
    #[arg(long, value_name = "PREFIX", value_parser = log_prefix_arg)]
    pub write_bw_log: Option<PathBuf>,
    /// Write fio's IOPS log PREFIX_iops.N.log, as fio's write_iops_log.
    #[arg(long, value_name = "PREFIX", value_parser = log_prefix_arg)]
    pub write_iops_log: Option<PathBuf>,
    /// fio's log_avg_msec: one line per window of N ms and data direction (the window's mean latency, its bandwidth and IOPS) instead of one per I/O; 0 (the default) logs every I/O.
    #[arg(long, value_name = "N", value_parser = log_avg_msec_arg)]
    pub log_avg_msec: Option<u64>,
    /// fio's log_max_value: with --log-avg-msec, each window's largest latency instead of its mean.
    #[arg(long)]
    pub log_max_value: bool,
    /// fio's log_offset: each line of a per-I/O log holds the request's offset in bytes too.
    #[arg(long)]
    pub log_offset: bool,
}

/// `--write-*-log`: a file name prefix, not empty, not a directory.
fn log_prefix_arg(s: &str) -> Result<PathBuf, String> {
    if s.is_empty() {
        return Err("the prefix is empty; give one, e.g. 'job' for job_lat.1.log".into());
    }
    if s == "-" || s.ends_with('/') {
        return Err(format!(
            "'{}' names no file; give a prefix such as 'job' or 'logs/job'",
            crate::error::shown(s)
        ));
    }
    Ok(PathBuf::from(s))
}

/// `--log-avg-msec`: a whole number of ms, as fio's int.
fn log_avg_msec_arg(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if n <= i32::MAX as u64 => Ok(n),
        Ok(n) => Err(format!("{n} ms is longer than fio takes ({} ms)", i32::MAX)),
        Err(_) => Err(format!(
            "'{}' is not a whole number of milliseconds",
            crate::error::shown(s)
        )),
    }
}

impl LogArgs {
    /// Whether a log is asked for.
    pub fn any(&self) -> bool {
        self.write_lat_log.is_some() || self.write_bw_log.is_some() || self.write_iops_log.is_some()
    }

    /// The logs asked for, as job 1's (worker `i` writes job `i + 1`'s);
    /// refused when an option would do nothing.
    pub fn spec(&self) -> Result<Option<crate::runner::iolog::LogSpec>> {
        let avg = self.log_avg_msec.unwrap_or(0);
        if !self.any() {
            for (given, flag) in [
                (self.log_avg_msec.is_some(), "--log-avg-msec"),
                (self.log_max_value, "--log-max-value"),
                (self.log_offset, "--log-offset"),
            ] {
                if given {
                    crate::usage!(
                        "{flag} shapes fio's per-I/O logs, and none is asked for: add --write-lat-log, --write-bw-log or --write-iops-log"
                    );
                }
            }
            return Ok(None);
        }
        if self.log_max_value && avg == 0 {
            crate::usage!(
                "--log-max-value takes the largest latency of each --log-avg-msec window; give --log-avg-msec N (without it every I/O has its own line)"
            );
        }
        if self.log_offset && avg > 0 {
            crate::usage!(
                "--log-offset: a --log-avg-msec window has no offset (fio writes 0); drop one of them"
            );
        }
        Ok(Some(crate::runner::iolog::LogSpec {
            avg_msec: avg,
            max_value: self.log_max_value,
            offset: self.log_offset,
            ..crate::runner::iolog::LogSpec::new(
                self.write_lat_log.clone(),
                self.write_bw_log.clone(),
                self.write_iops_log.clone(),
            )
        }))
    }

    /// Refuse, before any work, log files that cannot be written or that
    /// are another output of the run (`workers` write one set each), and
    /// add them to `paths`.
    pub fn outputs(&self, workers: usize, paths: &mut common::Paths) -> Result<()> {
        let Some(spec) = self.spec()? else {
            return Ok(());
        };
        for i in 0..workers {
            for (kind, p) in spec.for_job(i as u32 + 1).files() {
                let flag = match kind {
                    crate::runner::iolog::LogKind::Bw => "--write-bw-log",
                    crate::runner::iolog::LogKind::Iops => "--write-iops-log",
                    _ => "--write-lat-log",
                };
                common::check_output(flag, &p)?;
                paths.output(format!("{flag} ({})", p.display()), &p);
            }
        }
        Ok(())
    }
}

/// How the workers run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WorkersAs {
    Threads,
    Processes,
}

common::cmd!(run.out, {
    const DEFAULT_ENGINE: Option<&'static str> = Some("psync");
    const LOAD_ABOUT: Option<&'static str> =
        Some("The generic workload (its flags as 'iogauge run'); the load is its workers (-p).");
    fn load_point(self) -> Option<scale::Point> {
        let flags = scale::PointFlags {
            args: self.run.clone(),
            workers: ("-p/--processes", 1, self.processes),
            depth: self.depth.iodepth,
            inputs: self.inputs(),
        };
        Some(scale::Point::new(flags, self.point()))
    }
});

impl Args {
    /// The workload at a load point, refused as its own run refuses it.
    fn point(&self) -> Result<GenericPoint> {
        if self.logs.any() {
            crate::usage!(
                "--write-lat-log, --write-bw-log and --write-iops-log log one run; scale makes many: log a single 'iogauge run' instead"
            );
        }
        if self.ops.is_some() {
            crate::usage!(
                "--ops: each repetition of a point runs for --duration; scale takes no op budget"
            );
        }
        let target = self.target()?;
        Ok(GenericPoint {
            spec: self.spec(&target)?,
            setup: self.setup()?,
            duration: scale::repetition(self.duration),
            ramp: self.ramp,
            pace: self.run.load.pace(self.seed())?,
            target,
            processes: self.workers_as == WorkersAs::Processes,
            pin: self.pin.pinning()?,
        })
    }

    /// The files the run reads that are not its own: the --file.
    fn inputs(&self) -> common::Paths {
        let mut paths = common::Paths::new();
        if let Some(f) = &self.file {
            paths.input(format!("--file {}", f.display()), f);
        }
        if let Some(d) = &self.device.device {
            paths.input(format!("--device {}", d.display()), d);
        }
        paths
    }

    /// This rank's seed (the given one outside an MPI job).
    fn seed(&self) -> u64 {
        crate::cluster::seed(self.seed)
    }

    /// Where the run does its I/O: the --file, checked, a work directory
    /// under --dir, or the file the ranks share there.
    pub fn target(&self) -> Result<Target> {
        if self.shared_file {
            crate::cluster::require("--shared-file")?;
            return Ok(Target::Shared(self.dir.clone()));
        }
        if let Some(dev) = self.device.check(
            self.read_frac < 1.0,
            self.engine.direct,
            "give --read-frac 1 to read only",
        )? {
            return Ok(Target::File(UserFile::on_device(dev)));
        }
        match &self.file {
            Some(f) => Ok(Target::File(UserFile::check(
                f,
                self.allow_write,
                self.engine.direct,
            )?)),
            None => Ok(Target::Layout(self.dir.clone())),
        }
    }
}

impl Args {
    pub fn spec(&self, target: &Target) -> Result<GenericSpec> {
        self.verify.check()?;
        if self.verify.on() && self.trim_frac > 0.0 {
            crate::usage!(
                "--verify with --trim-frac {}: the checker does not know that trimmed blocks read as zeros; verify without trims",
                self.trim_frac
            );
        }
        let engine = self.engine.spec(Choice::PSYNC)?;
        let align = self
            .verify
            .align(self.align.unwrap_or(512.max(engine.align())));
        engine
            .aligned("--direct: --align", align)
            .map_err(crate::error::UsageError)?;
        let unique_bytes = match target {
            Target::File(f) => {
                if f.bytes < align {
                    crate::usage!(
                        "{} {} holds {}, less than one request (--align {})",
                        f.flag(),
                        crate::error::shown_path(&f.path),
                        crate::units::fmt_bytes(f.bytes),
                        crate::units::fmt_bytes(align)
                    );
                }
                self.unique_bytes.unwrap_or(f.bytes)
            }
            Target::Layout(_) | Target::Shared(_) => self.unique_bytes.unwrap_or(64 << 20),
        };
        let spec = GenericSpec {
            unique_bytes,
            size_mean: self.size_mean,
            size_cv: self.size_cv,
            read_frac: self.read_frac,
            trim_frac: self.trim_frac,
            seq_frac: self.seq_frac,
            processes: self.processes,
            files: u32::try_from(self.files).map_err(|_| {
                crate::error::UsageError::new(format!("--files {} is too many", self.files))
            })?,
            align,
            seed: self.seed(),
            distribution: self.distribution.clone(),
        };
        spec.validate().map_err(crate::error::UsageError)?;
        if let Target::File(f) = target
            && self.size_mean > spec.file_size()
        {
            crate::usage!(
                "--size-mean {} is larger than the {} of {} {} the run may use; requests cannot be larger than that",
                crate::units::fmt_bytes(self.size_mean),
                crate::units::fmt_bytes(spec.file_size()),
                f.flag(),
                crate::error::shown_path(&f.path)
            );
        }
        if self.size_mean > spec.file_size() {
            crate::usage!(
                "--size-mean {} is larger than each file ({}: --unique-bytes over --files); requests cannot be larger than the file",
                crate::units::fmt_bytes(self.size_mean),
                crate::units::fmt_bytes(spec.file_size())
            );
        }
        Ok(spec)
    }

    pub fn setup(&self) -> anyhow::Result<IoSetup> {
        self.sync.check()?;
        let spec = self.engine.spec_at(Choice::PSYNC, &self.depth)?;
        Ok(IoSetup {
            engine: spec.choice,
            direct: spec.direct,
            iodepth: spec.depth,
            queue: spec.queue,
            fsync: self.sync.fsync,
            fdatasync: self.sync.fdatasync,
            cold: self.cold,
            noatime: self.noatime,
        })
    }

    pub fn rule(&self) -> Result<StopRule> {
        if self.ops == Some(0) {
            crate::usage!("--ops must be at least 1");
        }
        let duration = match (self.duration, self.ops) {
            (Some(d), _) if d.is_zero() => crate::usage!("--duration must be longer than 0"),
            (d, Some(_)) => d,
            (Some(d), None) => Some(d),
            (None, None) => Some(Duration::from_secs(10)),
        };
        Ok(StopRule {
            ops: self.ops,
            duration,
            ramp: self.ramp,
            pace: self.run.load.pace(self.seed())?,
            pin: self.pin.pinning()?,
            ..Default::default()
        })
    }
}

pub fn main(a: Args) -> Result<Status> {
    if let Some(dir) = &a.verify_only {
        if a.logs.any() {
            crate::usage!("--verify-only runs no I/O to log; drop --write-*-log");
        }
        return super::verify::verify_only(dir, &a.run.out);
    }
    let mut paths = a.inputs();
    a.logs.outputs(a.processes, &mut paths)?;
    a.run.out.check_with(&mut paths)?;
    let logs = a.logs.spec()?;
    if logs.is_some() {
        if a.workers_as == WorkersAs::Processes {
            crate::usage!(
                "--write-*-log: fio's logs are kept by workers that run as threads; drop --workers-as processes"
            );
        }
        if crate::cluster::launched_ranks().is_some() {
            crate::usage!(
                "--write-*-log is not available under mpirun (every rank would write the same files); log each machine on its own without mpirun"
            );
        }
    }
    a.cluster.apply()?;
    let target = a.target()?;
    let spec = a.spec(&target)?;
    let setup = a.setup()?;
    let rule = a.rule()?;
    let procs = a.workers_as == WorkersAs::Processes;
    let verify = a.verify.plan();
    if a.run.check.check {
        crate::session::generic::check_generic(&spec, &setup, &target, procs)?;
        if let Some(v) = &verify {
            crate::session::generic::check_verify(&spec, &setup, &target, v)?;
        }
        let pinned = match rule.pin.describe() {
            d if d.is_empty() => d,
            d => format!("; pinned: {d}"),
        };
        return Ok(common::checked(&format!(
            "iogauge run: {}{pinned}",
            describe(&spec, &setup, target.file())
        )));
    }
    if let Some(spec) = logs {
        crate::runner::iolog::enable(spec);
    }
    let bar = Bar::new("run", rule.duration, rule.ops, a.run.out.progress());
    let mut result = crate::session::generic::run_generic_verified(
        &spec,
        &setup,
        rule,
        &target,
        procs,
        progress::sink(&bar),
        verify,
    )?;
    drop(bar);
    if let Some(v) = result.verify.clone() {
        super::verify::add_metrics(&mut result, &v);
    }
    if a.logs.any() {
        // written after the run, untimed, as fio writes its logs at exit
        result.io_logs = crate::runner::iolog::write(&crate::runner::iolog::take())?;
    }
    common::finish_with::<GenericRun>(&a.run.out, &result)
}
