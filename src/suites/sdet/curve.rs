//! Sdet's curve: scripts per hour against concurrent scripts, searched
//! as `iogauge scale` searches a load curve, and its report.

use super::run::{self, Figures, Options};
use crate::measure::curve::{Curve, Load, Plan, Point, Sample};
use crate::measure::interval::Stopper;
use crate::report::RunResult;
use crate::runner::signals;
use crate::suites::curve;
use crate::units::fmt_ns;
use anyhow::Result;
use std::fmt::Write;
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
}

/// What a curve gives: the curve, its result document, and the figures of
/// the run the document is based on (the peak's last repetition).
pub struct CurveReport {
    pub curve: Curve,
    pub result: RunResult,
    pub figures: Option<Figures>,
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
    // each measured run's figures, beside the results the search keeps
    let mut figures: Vec<(Load, Figures)> = Vec::new();
    let searched = curve::search(
        &plan,
        "sdet",
        |load, rep| {
            let mut o = c.point.clone();
            // each repetition its own scripts
            o.seed = o.seed.wrapping_add(rep as u64);
            let r = point(&o, load.value() as usize, c.duration)?;
            if r.result.error.is_none() {
                figures.push((load, r.figures.clone()));
            }
            Ok((sample_of(&r), r.result))
        },
        seen,
    )?;
    let curve = searched.curve;
    let config = serde_json::json!({
        "max_procs": c.max_procs,
        "duration_s": c.duration.as_secs_f64(),
        "max_reps": c.max_reps,
        "target_ci": c.target_ci,
        "commands_per_script": c.point.commands,
        "cpu_ns_per_byte": c.point.cpu_ns_per_byte,
        "seed": c.point.seed,
        "workers_as": if c.point.processes { "processes" } else { "threads" },
    });
    let mut result = curve::curve_result("sdet", config, &curve, &searched.results, UNIT)?;
    result.benchmark = "sdet".into();
    if let Some(p) = curve.peak.map(|i| &curve.points[i]) {
        result.metric("peak_scripts_per_hour", p.mean.throughput);
        result.metric("peak_concurrency", p.load.value() as usize);
    }
    if let Some(e) = searched.failure {
        result.complete = false;
        result.error = Some(crate::error::cause(&e));
    }
    if signals::interrupted() {
        result.complete = false;
    }
    let figures = curve::chosen(&curve).and_then(|l| {
        figures
            .into_iter()
            .rev()
            .find(|(load, _)| *load == l)
            .map(|(_, f)| f)
    });
    Ok(CurveReport {
        curve,
        result,
        figures,
    })
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

/// The text report: Sdet's curve, its peak, and the command mix at the peak.
pub fn render(c: &CurveOptions, rep: &CurveReport) -> String {
    let curve = &rep.curve;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Sdet (SPEC SDM, iogauge's model): scripts of {} commands, concurrent scripts as {}, {} per point",
        c.point.commands,
        if c.point.processes {
            "processes"
        } else {
            "threads"
        },
        fmt_ns(c.duration.as_secs_f64() * 1e9)
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
    if let Some(f) = &curve.usl {
        let _ = writeln!(s, "  USL fit: {}", f.summary(UNIT));
        let _ = writeln!(s, "  USL predicts {}", f.shape(UNIT));
    }
    if let Some(f) = &rep.figures
        && curve.peak.is_some()
    {
        s += &commands(f);
    }
    s += "\nnote: SPEC's scripts and utilities are not reproduced; the command mix is iogauge's model of them (docs/sdet.md)\n";
    if !rep.result.complete && signals::interrupted() {
        s += "note: interrupted; the curve holds the points measured so far\n";
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
