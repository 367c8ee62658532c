//! `iogauge sdet`: SPEC SDM's Sdet, scripts per hour against the number of
//! concurrent scripts, through the load-curve search of `iogauge scale`.

use super::common::{self, OutputArgs, Status};
use super::progress;
use crate::measure::curve::Stat;
use crate::measure::interval::Stopper;
use crate::suites::sdet::curve::{self, CurveOptions, UNIT};
use crate::suites::sdet::run::{self as sdet, Options};
use crate::suites::sdet::{Sdet, script};
use anyhow::Result;
use std::path::PathBuf;
use std::time::Duration;

/// Sdet (SPEC SDM, 1991): concurrent scripts of software-development
/// commands (edit, compile, format, copy, create, delete, list, small
/// utilities) in a random order, each script runner in its own directory
/// with a few KiB-sized sources made untimed. Runs 1, 2, 4, … concurrent
/// scripts (up to --max-procs) for --duration each until the throughput,
/// completed scripts per hour, stops rising; reports the curve and its
/// peak. Scripts run as processes (--threads: threads).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The highest number of concurrent scripts tried (1, 2, 4, … up to N).
    #[arg(long, default_value = "16", value_name = "N", value_parser = common::count_arg, allow_hyphen_values = true)]
    pub max_procs: usize,
    /// How long each point (one concurrency) runs, e.g. 5s, 1m; a plain number is seconds.
    #[arg(long, default_value = "5s", value_name = "TIME", value_parser = common::duration_arg, allow_hyphen_values = true)]
    pub duration: Duration,
    /// Seed of the scripts' commands and files (script runner k draws stream k).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    /// Commands per script (10 to 10000), drawn from the mix in docs/sdet.md.
    #[arg(long, default_value_t = script::DEFAULT_COMMANDS, value_name = "K", value_parser = count_or_zero, allow_hyphen_values = true)]
    pub commands: usize,
    /// CPU a compile burns per byte of source it reads, in ns of thread CPU time (a format burns a quarter of it).
    #[arg(long, default_value_t = sdet::DEFAULT_CPU_NS_PER_BYTE, value_name = "NS")]
    pub cpu_ns_per_byte: u64,
    /// Run the scripts as threads of one process instead of processes.
    #[arg(long)]
    pub threads: bool,
    /// Repeat each point until its throughput's confidence interval is within --target-ci, at most N times (1: one run per point, no intervals).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub max_reps: usize,
    /// With --max-reps 2 or more: the confidence interval (95 %) sought, as a share of the mean (0.05: ±5 %).
    #[arg(long, default_value_t = 0.05, value_name = "SHARE")]
    pub target_ci: f64,
    /// Write the curve as SVG (throughput against script time, beside throughput against concurrency).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Parent of the run's work directory (created and removed by each point).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub cluster: common::ClusterArgs,
}

common::cmd!(out);

/// A whole number, 0 included (the range is checked with a message of
/// its own).
fn count_or_zero(s: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .map_err(|_| format!("'{s}' is not a whole number"))
}

impl Args {
    fn options(&self) -> Options {
        Options {
            commands: self.commands,
            cpu_ns_per_byte: self.cpu_ns_per_byte,
            seed: crate::cluster::seed(self.seed),
            processes: !self.threads,
            dir: self.dir.clone(),
        }
    }

    fn stopper(&self) -> Result<Option<Stopper>> {
        if self.max_reps == 0 {
            crate::usage!("--max-reps 0: at least 1 repetition");
        }
        if self.max_reps == 1 {
            return Ok(None);
        }
        Stopper::new(self.target_ci, 0.95, 2, self.max_reps)
            .map(Some)
            .map_err(|e| crate::error::UsageError::new(format!("--target-ci: {e}")).into())
    }
}

/// Run `n` concurrent scripts for `duration`, under a progress bar.
fn point(o: &Options, n: usize, duration: Duration, show: bool) -> Result<sdet::Report> {
    progress::with_bar(&format!("sdet N={n}"), Some(duration), None, show, |p| {
        sdet::run_point(o, n, duration, p)
    })
}

pub fn main(a: Args) -> Result<Status> {
    let mut paths = common::Paths::new();
    if let Some(p) = &a.plot {
        common::check_output("--plot", p)?;
        paths.output(format!("--plot {}", p.display()), p);
    }
    a.out.check_with(&mut paths)?;
    a.cluster.apply()?;
    let o = a.options();
    o.check().map_err(crate::error::UsageError)?;
    if a.duration.is_zero() {
        crate::usage!("--duration must be longer than 0");
    }
    if a.max_procs > sdet::MAX_SCRIPTS {
        crate::usage!(
            "--max-procs {}: at most {} concurrent scripts",
            a.max_procs,
            sdet::MAX_SCRIPTS
        );
    }
    let c = CurveOptions {
        point: o,
        max_procs: a.max_procs,
        duration: a.duration,
        max_reps: a.max_reps,
        target_ci: a.target_ci,
        stopper: a.stopper()?,
        plot: a.plot.clone(),
    };
    let show = a.out.progress();
    let rep = curve::run(
        &c,
        |o, n, d| point(o, n, d, show),
        |p| {
            if show {
                eprintln!("  {}", curve::point_line(p));
            }
        },
    )?;
    if let Some(path) = &a.plot
        && !rep.curve.points.is_empty()
    {
        crate::report::plot::curve::write(path, &rep.curve, "iogauge sdet", UNIT, Stat::Mean)?;
    }
    common::finish_with::<Sdet>(&a.out, &rep.result)
}
