//! A benchmark's short form in `iogauge survey`: the hook a benchmark
//! gives in its entry of the benchmark table ([`super::Entry::survey`]),
//! what the form is given and the rows it hands back. The survey command
//! runs the forms in table order and prints the scorecard.

use crate::measure::curve::{self, Axis, Plan, Sample};
use crate::report::RunResult;
use crate::runner::{NoProgress, Progress, signals};
use crate::suites::curve::curve_result;
use crate::suites::load::Units;
use anyhow::Result;
use std::path::Path;
use std::time::Duration;

/// What a benchmark's short form is given.
pub struct Ctx<'a> {
    pub dir: &'a Path,
    pub quick: bool,
    /// How long one timed workload runs.
    pub per: Duration,
    /// Whether `dir` takes O_DIRECT.
    pub direct_ok: bool,
    /// Where the self-scaling pass writes its model and graphs.
    pub out: &'a Path,
    /// Whether `out` is kept after the survey (else a temporary directory).
    pub keep_out: bool,
    /// How to draw a progress bar; `None`: none drawn.
    pub bars: Option<Bars>,
}

impl<'a> Ctx<'a> {
    /// A quick, silent context in `dir` (tests of the short forms).
    #[cfg(test)]
    pub fn quick_in(dir: &'a Path) -> Ctx<'a> {
        Ctx {
            dir,
            quick: true,
            per: Duration::from_secs(1),
            direct_ok: crate::env::supports_direct(dir).unwrap_or(false),
            out: dir,
            keep_out: false,
            bars: None,
        }
    }

    /// Run `f` with a progress bar (by time over `duration`, else by
    /// `ops`, else a spinner) when the survey draws them; the bar is gone
    /// when `f` returns.
    pub fn with_bar<T>(
        &self,
        label: &str,
        duration: Option<Duration>,
        ops: Option<u64>,
        f: impl FnOnce(&dyn Progress) -> T,
    ) -> T {
        with_bar(self.bars, label, duration, ops, f)
    }

    /// A row of a form that uses O_DIRECT where the directory takes it:
    /// when it does not, the row went through the page cache instead, and
    /// its result says so (`direct_fallback`).
    pub fn fell_back(&self, row: &mut Row) {
        if !self.direct_ok {
            row.result.warn(crate::report::warn::Warning::new(
                "direct_fallback",
                "the directory refuses O_DIRECT, so this ran through the page cache instead: its figures may be memory's, not the disk's",
            ));
        }
    }
}

/// Makes a progress bar: its label, the length of the measured phase (by
/// time) or its op budget (by ops). The command line draws them; a form
/// or a load point only says what it measures.
pub type Bars = fn(&str, Option<Duration>, Option<u64>) -> Box<dyn Progress>;

/// Run `f` with a bar of `bars`, or silently without.
pub fn with_bar<T>(
    bars: Option<Bars>,
    label: &str,
    duration: Option<Duration>,
    ops: Option<u64>,
    f: impl FnOnce(&dyn Progress) -> T,
) -> T {
    match bars {
        Some(new) => {
            let bar = new(label, duration, ops);
            f(bar.as_ref())
        }
        None => f(&NoProgress),
    }
}

/// The rows of a short form run quickly in a directory of its own, which
/// it must leave empty (tests of the short forms).
#[cfg(test)]
pub fn quick_rows(form: impl FnOnce(&Ctx, &mut dyn FnMut(Row)) -> Result<()>) -> Vec<Row> {
    let dir = tempfile::tempdir().unwrap();
    let ctx = Ctx::quick_in(dir.path());
    let mut rows = Vec::new();
    form(&ctx, &mut |r| rows.push(r)).unwrap();
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "the form left {left:?}");
    rows
}

/// One line of the scorecard and the result behind it.
pub struct Row {
    pub name: String,
    pub figure: f64,
    pub unit: &'static str,
    pub result: RunResult,
    /// A second line under the row (the self-scaling pass's regions).
    pub note: Option<String>,
    /// Collection fields the form adds (the model's path).
    pub extra: Vec<(&'static str, serde_json::Value)>,
    /// The row could not be measured here, and why (its figure means
    /// nothing): the scorecard says so in its place, and the survey goes
    /// on.
    pub not_measured: Option<String>,
}

impl Row {
    pub fn new(name: impl Into<String>, figure: f64, unit: &'static str, result: RunResult) -> Row {
        Row {
            name: name.into(),
            figure,
            unit,
            result,
            note: None,
            extra: Vec::new(),
            not_measured: None,
        }
    }

    /// A row this machine or directory cannot measure, `why` in one line;
    /// `result` says what it would have run.
    pub fn not_measured(name: impl Into<String>, why: String, result: RunResult) -> Row {
        Row {
            not_measured: Some(why),
            ..Row::new(name, 0.0, "", result)
        }
    }

    /// A row whose figure is the result's metric `metric`.
    pub fn metric(
        name: impl Into<String>,
        metric: &str,
        unit: &'static str,
        result: RunResult,
    ) -> Row {
        let figure = result
            .metrics
            .get(metric)
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        Row::new(name, figure, unit, result)
    }
}

/// Whether a form's O_DIRECT I/O reached a disk, judged from what the
/// block device under the directory did meanwhile, not from the file
/// system's name: tmpfs takes O_DIRECT (Linux 6.6 on) and serves it from
/// memory, and some file systems fall back to the page cache for it.
pub struct DeviceWatch {
    before: Option<crate::env::DeviceIo>,
    fs_type: String,
}

impl DeviceWatch {
    /// Start watching the device under `dir`.
    pub fn start(dir: &Path) -> DeviceWatch {
        DeviceWatch {
            before: crate::env::device_io(dir),
            fs_type: crate::env::mount_for(dir)
                .map(|m| m.fs_type)
                .unwrap_or_default(),
        }
    }

    /// After a form that read `read` and wrote `written` bytes: `None` when
    /// the device moved at least half as much as the form did in the same
    /// direction (the I/O went to the disk), else a line saying what
    /// happened instead. The device's counters are the whole device's, so
    /// other I/O at the same time can only make it look busier.
    pub fn not_to_disk(&self, dir: &Path, read: u64, written: u64) -> Option<String> {
        let Some(before) = self.before else {
            return Some(format!(
                "O_DIRECT was taken, but {} has no block device: this I/O reached no disk",
                if self.fs_type.is_empty() {
                    "the directory"
                } else {
                    &self.fs_type
                }
            ));
        };
        let moved = crate::env::device_io(dir)?.since(&before);
        let device = moved.read_bytes.min(read) + moved.written_bytes.min(written);
        if 2 * device >= read + written {
            return None;
        }
        Some(format!(
            "O_DIRECT was taken, but the block device moved {} of the {} this did: the rest never reached the disk",
            crate::units::fmt_bytes(device),
            crate::units::fmt_bytes(read + written)
        ))
    }
}

/// A benchmark's short form: run, and hand each row to `emit` as soon as
/// it is measured.
pub type Form = fn(&Ctx, &mut dyn FnMut(Row)) -> Result<()>;

/// A survey's short form of a load curve: one repetition at 1, 2 and 4
/// workers, closed loop; one row with the peak, the three points in its
/// note. `measure(n)` runs the workload with n workers; `unit_name` says
/// what its throughput counts (`script`).
pub fn survey_curve(
    name: &str,
    workload: &str,
    unit: &'static str,
    unit_name: &'static str,
    mut measure: impl FnMut(usize) -> Result<(Sample, RunResult)>,
) -> Result<Row> {
    let plan = Plan {
        max_procs: 4,
        least: 1,
        axis: Axis::Workers,
        rates: Vec::new(),
        open: false,
        first_rate: 0.0,
        constraint: None,
        stopper: None,
        max_points: 3,
        flat: 0.05,
        unit: unit_name,
    };
    let mut results = Vec::new();
    let curve = curve::search(
        &plan,
        |load, _| -> Result<Sample> {
            let (s, r) = measure(load.value() as usize)?;
            if let Some(e) = &r.error {
                anyhow::bail!("{workload} at {}: {e}", load.label());
            }
            results.push((load, r));
            Ok(s)
        },
        &signals::interrupted,
        |_| {},
    )?;
    let form = serde_json::json!({"form": "survey: N = 1, 2, 4, one repetition each"});
    let mut r = curve_result(workload, form, &curve, &results, unit)?;
    if curve.points.is_empty() && !signals::interrupted() {
        // nothing measured: the row says so instead of showing a 0
        r.complete = false;
        r.error = Some(curve.stopped.clone());
    }
    let peak = curve.peak.map(|i| &curve.points[i]);
    let mut row = Row::new(
        format!("{name}, peak of N=1,2,4"),
        peak.map_or(0.0, |p| p.mean.throughput),
        unit,
        r,
    );
    let mut points: Vec<String> = curve
        .points
        .iter()
        .map(|p| {
            format!(
                "{} {:.0} (io {:.2})",
                p.load.label(),
                p.mean.throughput,
                p.mean.io_time_fraction
            )
        })
        .collect();
    if curve.stopped.starts_with("no ") {
        // the load at which nothing completed: the stop reason names it
        points.push(curve.stopped.clone());
    }
    row.note = Some(points.join(", "));
    Ok(row)
}

/// The short form of a timed load curve (TPC-B's, LADDIS's): N = 1, 2
/// and 4, each `run(n, per, progress)` for `per` = 0.7 s (0.4 s with
/// --quick) under a bar `workload N=n`; its one row goes to `emit`.
pub fn timed_curve(
    ctx: &Ctx,
    name: &str,
    workload: &str,
    units: Units,
    emit: &mut dyn FnMut(Row),
    mut run: impl FnMut(usize, Duration, &dyn Progress) -> Result<(Sample, RunResult)>,
) -> Result<()> {
    let per = Duration::from_millis(if ctx.quick { 400 } else { 700 });
    let row = survey_curve(name, workload, units.unit, units.unit_name, |n| {
        ctx.with_bar(&format!("{workload} N={n}"), Some(per), None, |p| {
            run(n, per, p)
        })
    })?;
    emit(row);
    Ok(())
}

/// The one row of a three-point short form run quickly: in `unit`, its
/// figure above 0, its points those of [`assert_three_point_row`].
#[cfg(test)]
pub fn quick_curve_row(form: Form, unit: &str) -> Row {
    let mut rows = quick_rows(form);
    assert_eq!(rows.len(), 1);
    let row = rows.pop().unwrap();
    assert_eq!(row.unit, unit);
    assert!(row.figure > 0.0);
    assert_three_point_row(&row);
    row
}

/// A short form's row is a three-point curve: N = 1, 2, 4, its figure the
/// peak, the points on its note with their io_time_fraction.
#[cfg(test)]
pub fn assert_three_point_row(row: &Row) {
    let pts = row.result.metrics["curve"]["points"].as_array().unwrap();
    let loads: Vec<f64> = pts
        .iter()
        .map(|p| p["load"]["value"].as_f64().unwrap())
        .collect();
    assert_eq!(loads, [1.0, 2.0, 4.0]);
    let peak = pts
        .iter()
        .map(|p| p["mean"]["throughput"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(peak > 0.0);
    assert_eq!(row.figure, peak);
    let note = row.note.as_deref().unwrap();
    assert!(
        note.contains("N=1") && note.contains("N=4") && note.contains("io "),
        "{note}"
    );
}
