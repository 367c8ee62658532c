//! Sdet's curve: scripts per hour against concurrent scripts, searched
//! as `iogauge scale` searches a load curve, and its report.

use super::run::{self, Figures, Options, PointPlan};
use crate::measure::curve::{Axis, Constraint, Curve, Load, Plan, Point, Sample, UslFit};
use crate::measure::interval::Stopper;
use crate::report::RunResult;
use crate::runner::signals;
use crate::suites::curve;
use crate::units::fmt_ns;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::PathBuf;
use std::time::Duration;

/// The unit of Sdet's throughput.
pub const UNIT: &str = "scripts/h";

/// A curve's plan: each point's scripts, the most of them at once, how
/// long a point runs and when it is measured well enough.
#[derive(Clone, Debug)]
pub struct CurveOptions {
    pub point: Options,
    /// The highest number of concurrent scripts tried (1, 2, 4, …).
    pub max_procs: usize,
    /// How long each repetition of a point runs.
    pub duration: Duration,
    pub max_reps: usize,
    pub target_ci: f64,
    /// When a point is measured well enough; `None`: one run each.
    pub stopper: Option<Stopper>,
    /// Where the curve's plot is written (`--plot`).
    pub plot: Option<PathBuf>,
}

/// The curve as asked: what `iogauge sdet` adds to the search's keys in
/// the result's `config`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Asked {
    pub max_procs: usize,
    /// How long each repetition of a point runs.
    pub duration_s: f64,
    pub max_reps: usize,
    pub target_ci: f64,
    pub commands_per_script: usize,
    pub cpu_ns_per_byte: u64,
    pub seed: u64,
    /// `processes` or `threads`.
    pub workers_as: String,
    /// Where the curve's plot was written (absent without `--plot`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plot: Option<String>,
}

/// What an Sdet result's `config` holds: the search's keys
/// ([`curve::curve_result`]) and the curve as asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePlan {
    /// `sdet`.
    pub workload: String,
    /// The config of the point the result is based on.
    pub workload_config: PointPlan,
    /// `closed`: the load is the number of concurrent scripts.
    pub r#loop: String,
    pub constraint: Option<Constraint>,
    pub chosen_point: Option<Load>,
    pub summary_is: String,
    #[serde(flatten)]
    pub asked: Asked,
}

/// What an Sdet result's `metrics` hold: the curve, its peak, and the
/// figures of the point the result is based on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "sdetFigures")]
pub struct CurveFigures {
    /// The figures of the peak's last repetition (absent when the point
    /// the result is based on measured nothing).
    #[serde(flatten)]
    pub point: Option<Figures>,
    /// The throughput's unit: `scripts/h`.
    pub unit: String,
    /// Every point measured: its concurrency, repetitions, means in
    /// scripts/h and seconds, and why the search stopped.
    #[schemars(with = "serde_json::Value")]
    pub curve: Curve,
    /// The highest throughput, scripts/h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_throughput: Option<f64>,
    /// Its load (`{"loop": "closed", "value": N}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Value>")]
    pub peak_load: Option<Load>,
    /// The highest throughput that meets the constraint (without one: the
    /// peak), scripts/h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_throughput: Option<f64>,
    /// Its load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Value>")]
    pub best_load: Option<Load>,
    /// The Universal Scalability Law fitted to four concurrencies or more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Value>")]
    pub usl: Option<UslFit>,
    /// The peak, scripts/h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_scripts_per_hour: Option<f64>,
    /// Concurrent scripts at the peak.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_concurrency: Option<usize>,
}

/// What a curve gives: the curve and its result document.
pub struct CurveReport {
    pub curve: Curve,
    pub result: RunResult,
}

/// A sample of one point: scripts per hour and the scripts' times.
pub fn sample_of(rep: &run::Report) -> Sample {
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

/// Run the curve: `point(o, n, duration)` measures `n` concurrent scripts
/// once (each repetition with its own seed); `seen` hears of each point as
/// it is measured.
pub fn run(
    c: &CurveOptions,
    mut point: impl FnMut(&Options, usize, Duration) -> Result<run::Report>,
    seen: impl FnMut(&Point),
) -> Result<CurveReport> {
    let plan = Plan {
        max_procs: c.max_procs,
        least: 1,
        axis: Axis::Workers,
        rates: Vec::new(),
        open: false,
        first_rate: 0.0,
        constraint: None,
        stopper: c.stopper,
        // the doubling steps, and a few more to bisect around the peak
        max_points: 16,
        flat: 0.05,
        unit: "script",
    };
    let searched = curve::search(
        &plan,
        "sdet",
        |load, rep| {
            let mut o = c.point.clone();
            // each repetition its own scripts
            o.seed = o.seed.wrapping_add(rep as u64);
            let r = point(&o, load.value() as usize, c.duration)?;
            // under MPI every rank steers by the job's sample (rank 0's,
            // merged), so that all take the same next point
            let sample = crate::cluster::share_json(sample_of(&r))?;
            Ok((sample, r.result))
        },
        seen,
    )?;
    let curve = searched.curve;
    let asked = Asked {
        max_procs: c.max_procs,
        duration_s: c.duration.as_secs_f64(),
        max_reps: c.max_reps,
        target_ci: c.target_ci,
        commands_per_script: c.point.commands,
        cpu_ns_per_byte: c.point.cpu_ns_per_byte,
        seed: c.point.seed,
        workers_as: run::workers_as(c.point.processes).to_string(),
        plot: c.plot.as_ref().map(|p| p.display().to_string()),
    };
    let config = serde_json::to_value(asked).context("cannot serialise Sdet's plan")?;
    let mut result = curve::curve_result("sdet", config, &curve, &searched.results, UNIT)?;
    result.benchmark = "sdet".into();
    // the search's figures, typed, and Sdet's own names for the peak
    let mut figures: CurveFigures = result
        .figures()
        .context("the curve's result does not hold Sdet's figures")?;
    if let Some(p) = curve.peak.map(|i| &curve.points[i]) {
        figures.peak_scripts_per_hour = Some(p.mean.throughput);
        figures.peak_concurrency = Some(p.load.value() as usize);
    }
    result.set_figures(&figures);
    if let Some(e) = searched.failure {
        result.complete = false;
        result.error = Some(crate::error::cause(&e));
    }
    if signals::interrupted() {
        result.complete = false;
    }
    Ok(CurveReport { curve, result })
}

/// One point, one line: concurrency, scripts/h ± CI, mean script time,
/// I/O share, repetitions.
pub fn point_line(p: &Point) -> String {
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

/// The text report: Sdet's curve, its peak, the command mix at the peak,
/// and where the plot went.
pub fn render(plan: &CurvePlan, f: &CurveFigures, r: &RunResult) -> String {
    let asked = &plan.asked;
    let curve = &f.curve;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Sdet (SPEC SDM, iogauge's model): scripts of {} commands, concurrent scripts as {}, {} per point",
        asked.commands_per_script,
        asked.workers_as,
        fmt_ns(asked.duration_s * 1e9)
    );
    let _ = writeln!(
        s,
        "\n  {:>11} {:>13} {:>7} {:>12} {:>8} {:>5}",
        "concurrency", UNIT, "CI", "mean script", "io_time", "reps"
    );
    for p in &curve.points {
        let _ = writeln!(s, "  {}", point_line(p));
    }
    let _ = writeln!(s, "\n  stopped: {}", curve.stopped);
    match curve.peak.map(|i| &curve.points[i]) {
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
    if let Some(u) = &curve.usl {
        let _ = writeln!(s, "  USL fit: {}", u.summary(UNIT));
        let _ = writeln!(s, "  USL predicts {}", u.shape(UNIT));
    }
    if let Some(p) = &f.point
        && curve.peak.is_some()
    {
        s += &commands(p);
    }
    s += "\nnote: SPEC's scripts and utilities are not reproduced; the command mix is iogauge's model of them (docs/sdet.md)\n";
    if !r.complete && signals::interrupted() {
        s += "note: interrupted; the curve holds the points measured so far\n";
    }
    if let Some(path) = &asked.plot
        && !curve.points.is_empty()
    {
        let _ = writeln!(s, "plot: {path}");
    }
    if let Some(c) = &r.cluster {
        s += &c.render();
    }
    s
}

/// The commands run at the peak: each one's share of the mix and of what
/// ran, its count and times (empty when none ran).
fn commands(f: &Figures) -> String {
    let mut s = String::new();
    if f.commands.is_empty() {
        return s;
    }
    let total: u64 = f.commands.iter().map(|c| c.count).sum();
    s += "\n  commands at the peak (the mix: docs/sdet.md)\n";
    let _ = writeln!(
        s,
        "  {:<8} {:>6} {:>8} {:>8} {:>12} {:>12}",
        "command", "table", "share", "count", "mean", "max"
    );
    for cm in &f.commands {
        let _ = writeln!(
            s,
            "  {:<8} {:>5.0}% {:>7.1}% {:>8} {:>12} {:>12}",
            cm.command,
            cm.share * 100.0,
            cm.count as f64 * 100.0 / total.max(1) as f64,
            cm.count,
            fmt_ns(cm.mean_ns),
            fmt_ns(cm.max_ns as f64)
        );
    }
    s
}
