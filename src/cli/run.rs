//! `iogauge run`: the generic five-parameter workload.

use super::common::{self, EngineArgs, OutputArgs, Status};
use super::progress::{self, Bar};
use crate::report::text;
use crate::runner::StopRule;
use crate::workload::exec::{IoSetup, run_generic};
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
    #[arg(long, default_value = "64M", value_name = "SIZE", value_parser = common::size_arg)]
    pub unique_bytes: u64,
    /// Mean request size; sizes are gamma-distributed around it (see --size-cv).
    #[arg(long, default_value = "20K", value_name = "SIZE", value_parser = common::size_arg)]
    pub size_mean: u64,
    /// Coefficient of variation of request sizes (1 = exponential, 0 = fixed).
    #[arg(long, default_value_t = 1.0, value_name = "X")]
    pub size_cv: f64,
    /// Request sizes and offsets are multiples of this (default 512 B; 4 KiB with --direct).
    #[arg(long, value_name = "SIZE", value_parser = common::size_arg)]
    pub align: Option<u64>,
    /// Share of requests that read (the rest write).
    #[arg(long, default_value = "0.5", value_name = "F", value_parser = common::fraction_arg)]
    pub read_frac: f64,
    /// Share of requests that start where the worker's previous request ended.
    #[arg(long, default_value = "0.5", value_name = "F", value_parser = common::fraction_arg)]
    pub seq_frac: f64,
    /// Concurrent workers (threads), each with its own sequential stream.
    #[arg(long, short = 'p', default_value_t = 1, value_name = "N")]
    pub processes: usize,
    /// Spread the unique bytes over N files of equal size.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub files: u32,
    /// Measure for this long (e.g. 30s, 2m; a plain number is seconds). Default 10s unless --ops.
    #[arg(long, value_name = "TIME", value_parser = common::duration_arg)]
    pub duration: Option<Duration>,
    /// Stop after N reads and writes in all (fsyncs come on top), instead of a duration.
    #[arg(long, value_name = "N")]
    pub ops: Option<u64>,
    /// Run this long first without counting (e.g. 5s).
    #[arg(long, value_name = "TIME", value_parser = common::duration_arg)]
    pub ramp: Option<Duration>,
    /// Seed of the request stream: the same seed issues the same requests.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    /// Drop the files from the page cache after prefill, so the run starts cold.
    #[arg(long)]
    pub cold: bool,
    /// Parent of the run's work directory (created and removed by the run).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

impl Args {
    pub fn spec(&self) -> Result<GenericSpec> {
        let min_align = self.engine.min_align();
        let align = self.align.unwrap_or(512.max(min_align));
        if !align.is_multiple_of(min_align) {
            crate::usage!("--align {align} must be a multiple of 4096 with --direct");
        }
        let spec = GenericSpec {
            unique_bytes: self.unique_bytes,
            size_mean: self.size_mean,
            size_cv: self.size_cv,
            read_frac: self.read_frac,
            seq_frac: self.seq_frac,
            processes: self.processes,
            files: self.files,
            align,
            seed: self.seed,
        };
        spec.validate().map_err(super::UsageError)?;
        Ok(spec)
    }

    pub fn setup(&self) -> IoSetup {
        IoSetup {
            engine: self.engine.name("psync").to_string(),
            direct: self.engine.direct,
            fsync: self.engine.fsync,
            fdatasync: self.engine.fdatasync,
            cold: self.cold,
        }
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
        })
    }
}

/// A one-line description of a generic workload.
pub fn describe(spec: &GenericSpec, setup: &IoSetup) -> String {
    use crate::workload::units::fmt_bytes;
    format!(
        "uniqueBytes {} in {} file{}, sizeMean {} (cv {}), readFrac {}, seqFrac {}, processNum {}; engine {}{}",
        fmt_bytes(spec.unique_bytes),
        spec.files,
        if spec.files == 1 { "" } else { "s" },
        fmt_bytes(spec.size_mean),
        spec.size_cv,
        spec.read_frac,
        spec.seq_frac,
        spec.processes,
        setup.engine,
        if setup.direct { ", O_DIRECT" } else { "" }
    )
}

pub fn main(a: Args) -> Result<Status> {
    a.out.check()?;
    let spec = a.spec()?;
    let setup = a.setup();
    a.engine.check("psync")?;
    let rule = a.rule()?;
    let bar = Bar::new("run", rule.duration, rule.ops, a.out.progress());
    let result = run_generic(&spec, &setup, rule, &a.dir, progress::sink(&bar))?;
    drop(bar);
    let mut report = format!("iogauge run: {}\n", describe(&spec, &setup));
    report += &text::render(&result);
    common::finish(&a.out, &result, &report)
}
