//! `iogauge sdet`: SPEC SDM's Sdet, scripts per hour against the number of
//! concurrent scripts, through the load-curve search of `iogauge scale`.

use super::common::{self, OutputArgs, Status};
use super::progress::{self, Bar};
use super::survey::{Ctx, Row};
use crate::measure::curve::{self, Curve, Load, Plan, Sample, Stat};
use crate::measure::interval::Stopper;
use crate::report::RunResult;
use crate::runner::signals;
use crate::suites::sdet::run::{self as sdet, Options};
use crate::suites::sdet::script;
use crate::units::fmt_ns;
use anyhow::Result;
use std::fmt::Write;
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
}

impl super::Cmd for Args {
    fn main(self) -> Result<Status> {
        main(self)
    }
    fn output(&self) -> Option<OutputArgs> {
        Some(self.out.clone())
    }
}

/// A whole number, 0 included (the range is checked with a message of
/// its own).
fn count_or_zero(s: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .map_err(|_| format!("'{s}' is not a whole number"))
}

/// The unit of Sdet's throughput.
const UNIT: &str = "scripts/h";

impl Args {
    fn options(&self) -> Options {
        Options {
            commands: self.commands,
            cpu_ns_per_byte: self.cpu_ns_per_byte,
            seed: self.seed,
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

/// A sample of one point: scripts per hour and the scripts' times.
pub fn sample_of(rep: &sdet::Report) -> Sample {
    let f = &rep.figures;
    Sample {
        throughput: f.scripts_per_hour,
        completed: f.scripts,
        mean_s: f.mean_script_s,
        p90_s: f.p90_script_s,
        p99_s: f.p99_script_s,
        io_time_fraction: f.io_time_fraction,
        cpu_util: rep.result.summary.cpu_util,
        ..Default::default()
    }
}

/// Measure `n` concurrent scripts for `duration`.
fn measure(o: &Options, n: usize, duration: Duration, show: bool) -> Result<(Sample, RunResult)> {
    let bar = Bar::new(&format!("sdet N={n}"), Some(duration), None, show);
    let rep = sdet::run_point(o, n, duration, progress::sink(&bar))?;
    drop(bar);
    Ok((sample_of(&rep), rep.result))
}

pub fn main(a: Args) -> Result<Status> {
    let mut paths = common::Paths::new();
    if let Some(p) = &a.plot {
        common::check_output("--plot", p)?;
        paths.output(format!("--plot {}", p.display()), p);
    }
    a.out.check_with(&mut paths)?;
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
    let stopper = a.stopper()?;
    let show = a.out.progress();
    let plan = Plan {
        max_procs: a.max_procs,
        rates: Vec::new(),
        open: false,
        first_rate: 0.0,
        constraint: None,
        stopper,
        // the doubling steps, and a few more to bisect around the peak
        max_points: 16,
        flat: 0.05,
        unit: "script",
    };
    let mut results: Vec<(Load, RunResult)> = Vec::new();
    // the point that failed, as far as it got: the base of the result when
    // no point was measured
    let mut failed: Option<(Load, RunResult)> = None;
    let mut failure: Option<anyhow::Error> = None;
    let curve = curve::search(
        &plan,
        |load, rep| -> Result<Sample> {
            let mut o = o.clone();
            // each repetition its own scripts
            o.seed = o.seed.wrapping_add(rep as u64);
            let (s, r) =
                measure(&o, load.value() as usize, a.duration, show).inspect_err(|_| {
                    failed = crate::runner::setup::take_unfinished().map(|r| (load, r));
                })?;
            if let Some(e) = &r.error {
                let e = format!("sdet at {}: {e}", load.label());
                failed = Some((load, r));
                anyhow::bail!(e);
            }
            results.push((load, r));
            Ok(s)
        },
        &signals::interrupted,
        |p| {
            if show {
                eprintln!("  {}", point_line(p));
            }
        },
    );
    let curve = match curve {
        // no point measured: nothing to report but why
        Ok(c) if c.points.is_empty() && !signals::interrupted() => {
            failure = Some(anyhow::anyhow!("{}", c.stopped));
            c
        }
        Ok(c) => c,
        Err(e) => {
            if results.is_empty() {
                match failed {
                    Some(f) => results.push(f),
                    None => return Err(e),
                }
            }
            failure = Some(e);
            Curve {
                points: Vec::new(),
                constraint: None,
                peak: None,
                best: None,
                stopped: "failed".into(),
                usl: None,
            }
        }
    };
    let config = serde_json::json!({
        "max_procs": a.max_procs,
        "duration_s": a.duration.as_secs_f64(),
        "max_reps": a.max_reps,
        "target_ci": a.target_ci,
        "commands_per_script": a.commands,
        "cpu_ns_per_byte": a.cpu_ns_per_byte,
        "seed": a.seed,
        "workers_as": if a.threads { "threads" } else { "processes" },
    });
    let mut result = super::scale::curve_result("sdet", config, &curve, &results, UNIT)?;
    result.benchmark = "sdet".into();
    if let Some(p) = curve.peak.map(|i| &curve.points[i]) {
        result.metric("peak_scripts_per_hour", p.mean.throughput);
        result.metric("peak_concurrency", p.load.value() as usize);
    }
    if let Some(e) = failure {
        result.complete = false;
        result.error = Some(crate::error::cause(&e));
    }
    if signals::interrupted() {
        result.complete = false;
    }
    let mut report = render(&a, &curve, &result);
    if let Some(path) = &a.plot
        && !curve.points.is_empty()
    {
        crate::report::plot::curve::write(path, &curve, "iogauge sdet", UNIT, Stat::Mean)?;
        let _ = writeln!(report, "plot: {}", path.display());
    }
    common::finish(&a.out, &result, &report)
}

/// One point, one line: concurrency, scripts/h ± CI, mean script time,
/// I/O share, repetitions.
fn point_line(p: &curve::Point) -> String {
    let ci = p.throughput_ci.map_or(String::from("-"), |c| {
        format!("±{:.1}%", c.relative_half_width() * 100.0)
    });
    let m = &p.mean;
    format!(
        "{:>11} {:>13.0} {:>7} {:>12} {:>8.3} {:>5}",
        p.load.value() as usize,
        m.throughput,
        ci,
        fmt_ns(m.mean_s * 1e9),
        m.io_time_fraction,
        p.reps.len()
    )
}

/// The text report: Sdet's curve, its peak, and the command mix at the peak.
fn render(a: &Args, c: &Curve, r: &RunResult) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Sdet (SPEC SDM, iogauge's model): scripts of {} commands, concurrent scripts as {}, {} per point",
        a.commands,
        if a.threads { "threads" } else { "processes" },
        fmt_ns(a.duration.as_secs_f64() * 1e9)
    );
    let _ = writeln!(
        s,
        "\n  {:>11} {:>13} {:>7} {:>12} {:>8} {:>5}",
        "concurrency", UNIT, "CI", "mean script", "io_time", "reps"
    );
    for p in &c.points {
        let _ = writeln!(s, "  {}", point_line(p));
    }
    let _ = writeln!(s, "\n  stopped: {}", c.stopped);
    match c.peak.map(|i| &c.points[i]) {
        Some(p) => {
            let _ = writeln!(
                s,
                "  peak:    {:.0} {UNIT} at concurrency {} (mean script {})",
                p.mean.throughput,
                p.load.value() as usize,
                fmt_ns(p.mean.mean_s * 1e9)
            );
        }
        None => s += "  peak:    none measured\n",
    }
    if let Some(f) = &c.usl {
        let _ = writeln!(s, "  USL fit: {}", f.summary(UNIT));
        let _ = writeln!(s, "  USL predicts {}", f.shape(UNIT));
    }
    if let Some(cmds) = r.metrics.get("commands").and_then(|v| v.as_array())
        && !cmds.is_empty()
        && c.peak.is_some()
    {
        let total: u64 = cmds.iter().filter_map(|c| c["count"].as_u64()).sum();
        s += "\n  commands at the peak (the mix: docs/sdet.md)\n";
        let _ = writeln!(
            s,
            "  {:<8} {:>6} {:>8} {:>8} {:>12} {:>12}",
            "command", "table", "share", "count", "mean", "max"
        );
        for cm in cmds {
            let count = cm["count"].as_u64().unwrap_or(0);
            let _ = writeln!(
                s,
                "  {:<8} {:>5.0}% {:>7.1}% {:>8} {:>12} {:>12}",
                cm["command"].as_str().unwrap_or(""),
                cm["share"].as_f64().unwrap_or(0.0) * 100.0,
                count as f64 * 100.0 / total.max(1) as f64,
                count,
                fmt_ns(cm["mean_ns"].as_f64().unwrap_or(0.0)),
                fmt_ns(cm["max_ns"].as_f64().unwrap_or(0.0))
            );
        }
    }
    s += "\nnote: SPEC's scripts and utilities are not reproduced; the command mix is iogauge's model of them (docs/sdet.md)\n";
    if !r.complete && signals::interrupted() {
        s += "note: interrupted; the curve holds the points measured so far\n";
    }
    s
}

/// Three points, N = 1, 2, 4, of 0.5 s each (0.3 s with --quick); one row
/// in scripts/h.
pub fn survey(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    survey_as(ctx, true, emit)
}

/// The survey form with the scripts as processes or threads (a unit test
/// runs in a test binary, which cannot start iogauge's worker processes).
fn survey_as(ctx: &Ctx, processes: bool, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let per = Duration::from_millis(if ctx.quick { 300 } else { 500 });
    let o = Options {
        processes,
        ..Options::new(ctx.dir)
    };
    let row = super::scale::survey_curve("sdet (dev scripts)", "sdet", UNIT, "script", |n| {
        measure(&o, n, per, ctx.progress)
    })?;
    emit(row);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_survey_form_gives_a_three_point_curve_in_scripts_per_hour_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx::quick_in(dir.path());
        let mut rows = Vec::new();
        survey_as(&ctx, false, &mut |r| rows.push(r)).unwrap();
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!(row.name, "sdet (dev scripts), peak of N=1,2,4");
        assert!(row.name.chars().count() <= 38);
        assert_eq!(row.unit, "scripts/h");
        assert!(row.figure > 0.0);
        let note = row.note.as_deref().unwrap();
        if note.contains("no script completed at N=4") {
            // a loaded machine: four scripts at once did not finish one in
            // 0.3 s, and that point is no measurement
            let pts = row.result.metrics["curve"]["points"].as_array().unwrap();
            assert_eq!(pts.len(), 2, "{note}");
        } else {
            crate::cli::scale::assert_three_point_row(row);
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
