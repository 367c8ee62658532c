//! `iogauge run`: the generic five-parameter workload.

use super::common::{self, DepthArgs, EngineArgs, LoadArgs, OutputArgs, Status, SyncArgs};
use super::progress::{self, Bar};
use super::scale::{self, LoadPoint, Measured, PointFlags, Rep};
use super::survey::{Ctx, DeviceWatch, Row};
use crate::engine::{Choice, FsyncPolicy};
use crate::measure::curve::Load;
use crate::runner::StopRule;
use crate::session::generic::{GenericRun, IoSetup, RunFigures, describe, run_generic};
use crate::workload::generic::GenericSpec;
use anyhow::Result;
use std::path::PathBuf;
use std::time::Duration;

/// Chen & Patterson's workload model: uniqueBytes, sizeMean, readFrac,
/// seqFrac and processNum (Proc. IEEE 1993, §IX-B1). The files are laid out
/// and filled with incompressible data before timing; the run stops after
/// --duration (default 10 s) or --ops.
#[derive(clap::Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct Args {
    /// Total bytes the workload touches, spread over --files files.
    #[arg(long, default_value = "64M", value_name = "SIZE", value_parser = common::size_arg, allow_hyphen_values = true)]
    pub unique_bytes: u64,
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
    /// Share of requests that start where the worker's previous request ended.
    #[arg(long, default_value = "0.5", value_name = "F", value_parser = common::fraction_arg)]
    pub seq_frac: f64,
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
    /// Run the workers as threads of one process (default) or as processes of their own.
    #[arg(long, value_enum, default_value = "threads", value_name = "HOW")]
    pub workers_as: WorkersAs,
    /// Parent of the run's work directory (created and removed by the run).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub depth: DepthArgs,
    #[command(flatten)]
    pub sync: SyncArgs,
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub check: common::CheckArgs,
}

/// How the workers run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WorkersAs {
    Threads,
    Processes,
}

impl super::Cmd for Args {
    const DEFAULT_ENGINE: Option<&'static str> = Some("psync");
    const LOAD_ABOUT: Option<&'static str> =
        Some("The generic workload (its flags as 'iogauge run'); the load is its workers (-p).");
    fn main(self) -> anyhow::Result<Status> {
        main(self)
    }
    fn output(&self) -> Option<OutputArgs> {
        Some(self.out.clone())
    }
    fn load_point(self) -> Option<Box<dyn LoadPoint>> {
        Some(Box::new(self))
    }
}

impl LoadPoint for Args {
    fn flags(&self) -> PointFlags<'_> {
        PointFlags {
            unit_name: "request",
            unit: "req/s",
            out: &self.out,
            check_only: self.check.check,
            load: &self.load,
            workers: ("-p/--processes", 1, self.processes),
            inputs: common::Paths::new(),
        }
    }
    fn check(&self) -> Result<()> {
        if self.ops.is_some() {
            crate::usage!(
                "--ops: each repetition of a point runs for --duration; scale takes no op budget"
            );
        }
        // the run's own checks, once, before anything is measured
        self.spec()?;
        self.setup()?;
        Ok(())
    }
    fn measure(&self, r: &Rep) -> Result<Measured> {
        let (load, progress) = (r.load, r.progress);
        // each repetition its own request stream and arrival schedule
        let mut spec = self.spec()?;
        spec.seed = r.seed(spec.seed);
        let setup = self.setup()?;
        let mut pace = self.load.pace(r.arrivals())?;
        match load {
            Load::Closed(n) => spec.processes = n,
            Load::Open(r) => pace.rate = Some(r),
        }
        let rule = StopRule {
            duration: Some(scale::repetition(self.duration)),
            ramp: self.ramp,
            pace,
            ..Default::default()
        };
        let bar = Bar::new(
            &format!("run {}", load.label()),
            rule.duration,
            None,
            progress,
        );
        let procs = self.workers_as == WorkersAs::Processes;
        let r = run_generic(&spec, &setup, rule, &self.dir, procs, progress::sink(&bar))?;
        drop(bar);
        let throughput = r.figures::<RunFigures>()?.requests_per_s;
        // the requests: its reads and writes
        let completed = ["read", "write"]
            .iter()
            .filter_map(|k| r.ops.get(*k))
            .map(|o| o.count)
            .sum();
        Ok((scale::sample_of(&r, throughput, completed), r))
    }
}

impl Args {
    pub fn spec(&self) -> Result<GenericSpec> {
        let engine = self.engine.spec(Choice::PSYNC)?;
        let align = self.align.unwrap_or(512.max(engine.align()));
        engine
            .aligned("--direct: --align", align)
            .map_err(crate::error::UsageError)?;
        let spec = GenericSpec {
            unique_bytes: self.unique_bytes,
            size_mean: self.size_mean,
            size_cv: self.size_cv,
            read_frac: self.read_frac,
            seq_frac: self.seq_frac,
            processes: self.processes,
            files: u32::try_from(self.files).map_err(|_| {
                crate::error::UsageError::new(format!("--files {} is too many", self.files))
            })?,
            align,
            seed: self.seed,
        };
        spec.validate().map_err(crate::error::UsageError)?;
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
            fsync: self.sync.fsync,
            fdatasync: self.sync.fdatasync,
            cold: self.cold,
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
            pace: self.load.pace(self.seed)?,
            ..Default::default()
        })
    }
}

pub fn main(a: Args) -> Result<Status> {
    a.out.check()?;
    let spec = a.spec()?;
    let setup = a.setup()?;
    let rule = a.rule()?;
    let procs = a.workers_as == WorkersAs::Processes;
    if a.check.check {
        crate::session::generic::check_generic(&spec, &setup, &a.dir, procs)?;
        return Ok(common::checked(&format!(
            "iogauge run: {}",
            describe(&spec, &setup)
        )));
    }
    let bar = Bar::new("run", rule.duration, rule.ops, a.out.progress());
    let result = run_generic(&spec, &setup, rule, &a.dir, procs, progress::sink(&bar))?;
    drop(bar);
    common::finish_with::<GenericRun>(&a.out, &result)
}

/// The sequential write of the survey (twice as much without --quick):
/// the most any short form writes, which the survey checks room for
/// before its first row.
const SURVEY_WRITE: u64 = 256 << 20;

/// The most data one short form of the survey writes.
pub fn survey_largest(quick: bool) -> u64 {
    SURVEY_WRITE * if quick { 1 } else { 2 }
}

/// The survey's points of the generic workload: cached 4 KiB random reads,
/// Chen & Patterson's focal mix, a sequential write (O_DIRECT where the
/// file system takes it, else buffered with an fsync every 16 MiB) and
/// O_DIRECT 4 KiB random reads.
pub fn survey(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let scale = if ctx.quick { 1 } else { 2 };
    let spec = |unique: u64, mean: u64, cv: f64, read: f64, seq: f64, align: u64| GenericSpec {
        unique_bytes: unique * scale,
        size_mean: mean,
        size_cv: cv,
        read_frac: read,
        seq_frac: seq,
        processes: 1,
        files: 1,
        align,
        seed: 1,
    };
    let setup = |direct: bool, fsync: FsyncPolicy| IoSetup {
        engine: Choice::PSYNC,
        direct,
        iodepth: 1,
        fsync,
        fdatasync: false,
        cold: false,
    };
    // each point: its name, and its name when its O_DIRECT I/O turns out
    // not to have reached a disk (decided from the device's counters)
    let mut points = vec![
        (
            "cached 4 KiB random read",
            "",
            spec(128 << 20, 4096, 0.0, 1.0, 0.0, 4096),
            setup(false, FsyncPolicy::Never),
        ),
        (
            "focal mix (20K, r.5, s.5)",
            "",
            spec(32 << 20, 20 << 10, 1.0, 0.5, 0.5, 512),
            setup(false, FsyncPolicy::Never),
        ),
    ];
    if ctx.direct_ok {
        points.push((
            "O_DIRECT 1 MiB sequential write",
            "1 MiB seq. write, not to disk",
            spec(SURVEY_WRITE, 1 << 20, 0.0, 0.0, 1.0, 4096),
            setup(true, FsyncPolicy::Never),
        ));
        points.push((
            "O_DIRECT 4 KiB random read",
            "4 KiB random read, not from disk",
            spec(128 << 20, 4096, 0.0, 1.0, 0.0, 4096),
            setup(true, FsyncPolicy::Never),
        ));
    } else {
        points.push((
            "1 MiB seq. write, fsync/16 MiB",
            "",
            spec(SURVEY_WRITE, 1 << 20, 0.0, 0.0, 1.0, 4096),
            setup(false, FsyncPolicy::Every(16)),
        ));
    }
    for (name, elsewhere, spec, setup) in points {
        if crate::runner::signals::interrupted() {
            break;
        }
        let rule = StopRule {
            duration: Some(ctx.per),
            ..Default::default()
        };
        let bar = Bar::new(name, Some(ctx.per), None, ctx.progress);
        let watch = setup.direct.then(|| DeviceWatch::start(ctx.dir));
        let mut r = run_generic(&spec, &setup, rule, ctx.dir, false, progress::sink(&bar))?;
        drop(bar);
        let why = watch
            .and_then(|w| w.not_to_disk(ctx.dir, r.summary.bytes_read, r.summary.bytes_written));
        let (fig, unit) = if spec.size_mean >= 1 << 20 {
            (
                (r.summary.read_bytes_per_s + r.summary.write_bytes_per_s) / 1e6,
                "MB/s",
            )
        } else {
            (r.summary.ops_per_s, "IO/s")
        };
        let name = if why.is_some() { elsewhere } else { name };
        if let Some(w) = &why {
            r.metric("not_to_disk", w);
        }
        let mut row = Row::new(format!("run: {name}"), fig, unit, r);
        row.note = why;
        emit(row);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 33: on tmpfs, which takes O_DIRECT and serves it from memory,
    /// the survey called memory speed "O_DIRECT 4 KiB random read". The
    /// rows are named from what the device did, not from the file system.
    #[test]
    fn the_survey_names_o_direct_rows_from_what_the_device_did() {
        let shm = std::path::Path::new("/dev/shm");
        let on_tmpfs = crate::env::mount_for(shm).is_some_and(|m| m.fs_type == "tmpfs");
        if !on_tmpfs || !crate::env::supports_direct(shm).unwrap_or(false) {
            println!("skipped: no tmpfs at /dev/shm that takes O_DIRECT (Linux 6.6 on)");
            return;
        }
        let dir = tempfile::tempdir_in(shm).unwrap();
        let ctx = Ctx {
            per: Duration::from_millis(100),
            ..Ctx::quick_in(dir.path())
        };
        assert!(ctx.direct_ok);
        let mut rows = Vec::new();
        survey(&ctx, &mut |r| rows.push(r)).unwrap();
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names[2..],
            [
                "run: 1 MiB seq. write, not to disk",
                "run: 4 KiB random read, not from disk"
            ],
            "{names:?}"
        );
        for r in &rows[2..] {
            let note = r.note.as_deref().unwrap();
            assert!(note.contains("tmpfs has no block device"), "{note}");
            assert_eq!(r.result.metrics["not_to_disk"], note);
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
