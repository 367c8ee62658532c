//! `iogauge scale WORKLOAD`: the throughput-versus-response-time curve of
//! a workload (any command with a load point: `run`, `tpcb`, `laddis`),
//! closed or open loop, with the knee searched,
//! the best throughput under a response-time constraint, and the
//! Universal Scalability Law fitted to a closed loop.

use super::common::{self, OutputArgs, Status};
use crate::measure::LatencySummary;
use crate::measure::curve::{self, Constraint, Curve, Load, Plan, Sample, Stat};
use crate::measure::interval::Stopper;
use crate::report::RunResult;
use crate::runner::signals;
use crate::suites::curve::curve_result;
use crate::units::fmt_ns;
use anyhow::Result;
use std::fmt::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Throughput against response time: runs WORKLOAD at rising load — a
/// closed loop of 1, 2, 4, … workers (up to --max-procs), or an open loop
/// at rising rates (--rates) — until throughput stops rising, the rate is
/// not kept or a response-time constraint (--p90-under, --mean-under,
/// --p99-under) is broken; then bisects near the knee. Each point is
/// repeated until its throughput's confidence interval is within
/// --target-ci. Reports the curve, the peak, the highest throughput that
/// meets the constraint, and the Universal Scalability Law fitted to a
/// closed loop with its predicted peak. The workload's own flags follow its
/// name; its --duration is the length of one repetition (default 2s), and
/// its --json/--csv/--quiet write the curve.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub workload: Workload,
    /// Closed loop: the highest number of workers tried (1, 2, 4, … up to N).
    #[arg(long, global = true, default_value = "64", value_name = "N", value_parser = common::count_arg)]
    pub max_procs: usize,
    /// Open loop: offered rates (requests/s, comma-separated, increasing), or 'auto': from an eighth of the closed-loop throughput, doubling.
    #[arg(long, global = true, value_name = "LIST|auto")]
    pub rates: Option<String>,
    /// Constraint: the 90th percentile of response time at most TIME (TPC-B: 2s).
    #[arg(long, global = true, value_name = "TIME", value_parser = common::duration_arg)]
    pub p90_under: Option<Duration>,
    /// Constraint: the mean response time at most TIME (LADDIS: 50ms).
    #[arg(long, global = true, value_name = "TIME", value_parser = common::duration_arg)]
    pub mean_under: Option<Duration>,
    /// Constraint: the 99th percentile of response time at most TIME.
    #[arg(long, global = true, value_name = "TIME", value_parser = common::duration_arg)]
    pub p99_under: Option<Duration>,
    /// Repeat each point until its throughput's confidence interval is within this share of the mean (0.05: ±5 %).
    #[arg(long, global = true, default_value_t = 0.05, value_name = "SHARE")]
    pub target_ci: f64,
    /// Confidence of those intervals.
    #[arg(long, global = true, default_value_t = 0.95, value_name = "P")]
    pub confidence: f64,
    /// Fewest repetitions of a point (at least 2 for an interval, unless --max-reps 1).
    #[arg(long, global = true, default_value_t = 2, value_name = "N")]
    pub min_reps: usize,
    /// Most repetitions of a point, whatever its interval (1: one run per point, no intervals).
    #[arg(long, global = true, default_value_t = 5, value_name = "N")]
    pub max_reps: usize,
    /// Most points measured in all (steps and the knee's bisection).
    #[arg(long, global = true, default_value_t = 16, value_name = "N")]
    pub max_points: usize,
    /// Write the curve as SVG (throughput against response time, as Chen & Patterson's Fig. 2, beside throughput against load with the fitted law).
    #[arg(long, global = true, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

impl super::Cmd for Args {
    fn main(self) -> Result<Status> {
        main(self)
    }
    fn output(&self) -> Option<OutputArgs> {
        Some(self.workload.flags().out.clone())
    }
}

/// One repetition of a workload at one load: the sample and its result.
pub type Measured = (Sample, RunResult);

/// One repetition of a point: its load, and the seeds that give it a
/// request stream and an open loop's schedule of its own.
pub struct Rep {
    pub load: Load,
    /// The repetition's number at its point (0 first).
    pub rep: usize,
    arrivals_seed: u64,
    /// Whether its progress bar is shown.
    pub progress: bool,
}

impl Rep {
    /// The workload's seed `seed`, moved on for this repetition.
    pub fn seed(&self, seed: u64) -> u64 {
        seed.wrapping_add(self.rep as u64)
    }

    /// The open loop's schedule seed of this repetition.
    pub fn arrivals(&self) -> u64 {
        self.seed(self.arrivals_seed)
    }
}

/// What scale reads of a workload's own flags.
pub struct PointFlags<'a> {
    /// What the throughput counts, singular (for messages): `request`.
    pub unit_name: &'static str,
    /// The unit of throughput: `req/s`.
    pub unit: &'static str,
    pub out: &'a OutputArgs,
    /// Its `--check`: check everything, measure nothing.
    pub check_only: bool,
    pub load: &'a common::LoadArgs,
    /// The flag that sets its own concurrency, the flag's default, and
    /// what was given (the workers sharing an open loop's rate).
    pub workers: (&'static str, usize, usize),
    /// The files the workload reads.
    pub inputs: common::Paths,
}

/// A benchmark at one load point: what `scale` needs of it. A command whose
/// arguments give one ([`super::Cmd::load_point`], with
/// [`super::Cmd::LOAD_ABOUT`]) is one of scale's workloads, with its own
/// flags; scale itself names none of them.
pub trait LoadPoint {
    /// What scale reads of the workload's own flags.
    fn flags(&self) -> PointFlags<'_>;
    /// Its own refusals, once, before anything is measured.
    fn check(&self) -> Result<()> {
        Ok(())
    }
    /// One repetition (`r`) at its load.
    fn measure(&self, r: &Rep) -> Result<Measured>;
    /// A line about the chosen point's throughput, where the benchmark has
    /// one to say (TPC-B's sizing rule).
    fn note(&self, _throughput: f64) -> Option<String> {
        None
    }
}

/// What `scale` runs: a command of the command table that has a load point.
pub struct Workload {
    name: &'static str,
    point: Box<dyn LoadPoint>,
}

impl std::fmt::Debug for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The commands that have a load point, with the line scale's help gives
/// each.
fn loadable() -> impl Iterator<Item = (&'static super::Entry, &'static str)> {
    super::COMMANDS
        .iter()
        .filter_map(|e| e.load.map(|(about, _)| (e, about)))
}

impl clap::FromArgMatches for Workload {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let Some((name, sub)) = m.subcommand() else {
            return Err(clap::Error::raw(
                clap::error::ErrorKind::MissingSubcommand,
                "scale needs a workload",
            ));
        };
        let Some((entry, _)) = loadable().find(|(e, _)| e.name == name) else {
            return Err(clap::Error::raw(
                clap::error::ErrorKind::InvalidSubcommand,
                format!("'{name}' has no load point"),
            ));
        };
        let (_, make) = entry.load.expect("a loadable entry");
        Ok(Workload {
            name: entry.name,
            point: make(sub)?,
        })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Subcommand for Workload {
    fn augment_subcommands(cmd: clap::Command) -> clap::Command {
        cmd.subcommand_value_name("WORKLOAD")
            .subcommands(loadable().map(|(e, about)| e.command().about(about)))
    }

    fn augment_subcommands_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_subcommands(cmd)
    }

    fn has_subcommand(name: &str) -> bool {
        loadable().any(|(e, _)| e.name == name)
    }
}

impl std::ops::Deref for Workload {
    type Target = dyn LoadPoint;
    fn deref(&self) -> &(dyn LoadPoint + 'static) {
        self.point.as_ref()
    }
}

impl Workload {
    fn name(&self) -> &'static str {
        self.name
    }

    /// The workload's own concurrency (the workers sharing an open loop's rate).
    fn concurrency(&self) -> usize {
        self.point.flags().workers.2
    }

    /// Refuse workload flags that scale sets itself, then the workload's
    /// own refusals.
    fn check_flags(&self, open: bool) -> Result<()> {
        let f = self.point.flags();
        let load = f.load;
        if load.rate.is_some() {
            crate::usage!(
                "--rate: scale sets the rate of each point; give the rates to scale with --rates LIST|auto"
            );
        }
        if open && load.thinktime.is_some() {
            crate::usage!("--thinktime: an open loop (--rates) has no think time");
        }
        let (flag, default, given) = f.workers;
        if !open && given != default {
            crate::usage!(
                "{flag} {given}: in a closed loop scale sets the number of workers itself (1, 2, 4, … --max-procs); {flag} is for an open loop (--rates), where the workers share the rate"
            );
        }
        self.point.check()
    }
}

/// The length of one repetition: the workload's --duration, 2 s without.
pub fn repetition(d: Option<Duration>) -> Duration {
    d.unwrap_or(Duration::from_secs(2))
}

/// The response times of a result's requests (from the intended start in
/// an open loop), as `run` and `laddis` put them in their metrics.
fn request_times(r: &RunResult) -> LatencySummary {
    r.metrics
        .get("request_response_ns")
        .or(r.metrics.get("request_latency_ns"))
        .and_then(|v| serde_json::from_value::<LatencySummary>(v.clone()).ok())
        .unwrap_or_default()
}

/// A sample from a TPC-B load point: its transactions' response times.
pub fn sample_of_tpcb(rep: &crate::suites::tpcb::run::Report) -> Sample {
    let f = &rep.figures;
    let lat = LatencySummary {
        mean: f.mean_response_s * 1e9,
        p90: (f.p90_response_s * 1e9) as u64,
        p99: (f.p99_response_s * 1e9) as u64,
        ..Default::default()
    };
    sample(&rep.result, f.tps, f.transactions, &lat)
}

/// A sample from a result whose requests' times are in its metrics
/// (`run`, `laddis`), `completed` requests in all.
pub fn sample_of(r: &RunResult, throughput: f64, completed: u64) -> Sample {
    sample(r, throughput, completed, &request_times(r))
}

/// A sample from a repetition's result, which completed `completed` units.
pub fn sample(r: &RunResult, throughput: f64, completed: u64, lat: &LatencySummary) -> Sample {
    let ol = r.summary.open_loop.as_ref();
    Sample {
        throughput,
        completed,
        mean_s: lat.mean / 1e9,
        p90_s: lat.p90 as f64 / 1e9,
        p99_s: lat.p99 as f64 / 1e9,
        io_time_fraction: r.summary.io_time_fraction,
        cpu_util: r.summary.cpu_util,
        issued: ol.map_or(0, |o| o.issued),
        missed: ol.map_or(0, |o| o.missed),
        issued_per_s: ol.map_or(0.0, |o| o.rate_issued),
    }
}

impl Args {
    fn constraint(&self) -> Result<Option<Constraint>> {
        let given: Vec<Constraint> = [
            (Stat::P90, self.p90_under),
            (Stat::Mean, self.mean_under),
            (Stat::P99, self.p99_under),
        ]
        .into_iter()
        .filter_map(|(stat, d)| {
            d.map(|d| Constraint {
                stat,
                limit_s: d.as_secs_f64(),
            })
        })
        .collect();
        match given[..] {
            [] => Ok(None),
            [c] if c.limit_s > 0.0 => Ok(Some(c)),
            [c] => crate::usage!("--{}-under must be longer than 0", c.stat.name()),
            _ => crate::usage!("give one constraint: --p90-under, --mean-under or --p99-under"),
        }
    }

    fn stopper(&self) -> Result<Option<Stopper>> {
        if self.min_reps == 0 || self.max_reps == 0 {
            crate::usage!("--min-reps and --max-reps: at least 1 repetition");
        }
        // (with --max-reps 1 each point is one run, whatever --min-reps)
        if self.max_reps > 1 && self.min_reps > self.max_reps {
            crate::usage!(
                "--min-reps {} is more than --max-reps {}",
                self.min_reps,
                self.max_reps
            );
        }
        // each flag named on its own (the interval's own check names none)
        if !(self.target_ci.is_finite() && self.target_ci > 0.0) {
            crate::usage!(
                "--target-ci {}: give a share of the mean above 0 (0.05: ±5 %)",
                self.target_ci
            );
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            crate::usage!(
                "--confidence {}: give a probability between 0 and 1 (0.95 for 95 %)",
                self.confidence
            );
        }
        if self.max_reps == 1 {
            return Ok(None);
        }
        // the fewest is at least 2 (an interval) and at most the most
        let min = self.min_reps.clamp(2, self.max_reps);
        Stopper::new(self.target_ci, self.confidence, min, self.max_reps)
            .map(Some)
            .map_err(|e| {
                crate::error::UsageError::new(format!("--target-ci/--confidence/--min-reps: {e}"))
                    .into()
            })
    }

    /// The rates of an open loop: `None` for a closed loop, an empty list
    /// for 'auto'.
    fn rates(&self) -> Result<Option<Vec<f64>>> {
        let Some(text) = &self.rates else {
            return Ok(None);
        };
        if text.trim() == "auto" {
            return Ok(Some(Vec::new()));
        }
        let mut rates = Vec::new();
        for part in text.split(',') {
            let r = common::rate_arg(part)
                .map_err(|e| crate::error::UsageError::new(format!("--rates: {e}")))?;
            if rates.last().is_some_and(|&l| r <= l) {
                crate::usage!("--rates {text}: the rates must increase");
            }
            rates.push(r);
        }
        Ok(Some(rates))
    }
}

pub fn main(a: Args) -> Result<Status> {
    let out = a.workload.flags().out.clone();
    let mut paths = a.workload.flags().inputs;
    if let Some(p) = &a.plot {
        common::check_output("--plot", p)?;
        paths.output(format!("--plot {}", p.display()), p);
    }
    out.check_with(&mut paths)?;
    let constraint = a.constraint()?;
    let stopper = a.stopper()?;
    let rates = a.rates()?;
    if a.max_points < 2 {
        crate::usage!(
            "--max-points {}: a curve needs at least 2 points",
            a.max_points
        );
    }
    let open = rates.is_some();
    if !open {
        // the closed loop may go up to --max-procs workers
        crate::runner::limits::check(a.max_procs, 1, false)
            .map_err(|e| crate::error::UsageError::new(format!("--max-procs: {e}")))?;
    }
    a.workload.check_flags(open)?;
    if a.workload.flags().check_only {
        return Ok(common::checked(&format!(
            "iogauge scale {}",
            a.workload.name()
        )));
    }
    let progress = out.progress();
    let w = &a.workload;
    let arrivals_seed = 1;
    // open loop, auto: an eighth of what one closed-loop point gets
    let mut first_rate = 0.0;
    if rates.as_ref().is_some_and(Vec::is_empty) {
        match probe(w, arrivals_seed, progress)? {
            Some(t) => first_rate = t / 8.0,
            None => {
                common::interrupted_line(false);
                return Ok(Status::Interrupted);
            }
        }
    }
    let plan = Plan {
        max_procs: a.max_procs,
        rates: rates.clone().unwrap_or_default(),
        open,
        first_rate,
        constraint,
        stopper,
        max_points: a.max_points,
        flat: 0.05,
        unit: w.flags().unit_name,
    };
    let searched = crate::suites::curve::search(
        &plan,
        w.name(),
        |load, rep| {
            w.measure(&Rep {
                load,
                rep,
                arrivals_seed,
                progress,
            })
        },
        |p| {
            if progress {
                eprintln!("  {}", point_line(p, w.flags().unit));
            }
        },
    )?;
    let curve = searched.curve;
    let unit = w.flags().unit;
    let scale_config = serde_json::json!({
        "max_procs": a.max_procs,
        "rates": a.rates,
        "target_ci": a.target_ci,
        "confidence": a.confidence,
        "min_reps": a.min_reps,
        "max_reps": a.max_reps,
        "max_points": a.max_points,
        "auto_rates_from": (first_rate > 0.0).then(|| serde_json::json!({
            "closed_loop_workers": w.concurrency(),
            "throughput": first_rate * 8.0,
            "first_rate": first_rate,
        })),
    });
    let mut result = curve_result(w.name(), scale_config, &curve, &searched.results, unit)?;
    if let Some(e) = searched.failure {
        result.complete = false;
        result.error = Some(crate::error::cause(&e));
    }
    if signals::interrupted() {
        result.complete = false;
    }
    let mut report = render(&a, &curve, unit);
    if first_rate > 0.0 {
        let _ = writeln!(
            report,
            "  rates: from an eighth of {:.1} {unit}, measured once in a closed loop of {} workers",
            first_rate * 8.0,
            w.concurrency()
        );
    }
    if let Some(path) = &a.plot
        && !curve.points.is_empty()
    {
        let stat = constraint.map_or(Stat::Mean, |c| c.stat);
        let title = format!("iogauge scale {}", w.name());
        crate::report::plot::curve::write(path, &curve, &title, unit, stat)?;
        let _ = writeln!(report, "plot: {}", path.display());
    }
    common::finish(&out, &result, &report)
}

/// `--rates auto`: the throughput of one closed-loop repetition at the
/// workload's own concurrency; `None` when Ctrl-C cut it short.
fn probe(w: &Workload, arrivals_seed: u64, progress: bool) -> Result<Option<f64>> {
    let (s, _) = w.measure(&Rep {
        load: Load::Closed(w.concurrency()),
        rep: 0,
        arrivals_seed,
        progress,
    })?;
    if signals::interrupted() {
        return Ok(None);
    }
    if s.throughput <= 0.0 {
        anyhow::bail!("the closed-loop probe completed no request; give --rates LIST");
    }
    Ok(Some(s.throughput))
}

/// One point, one line: load, throughput ± CI, response times, I/O share.
fn point_line(p: &curve::Point, unit: &str) -> String {
    let ci = p.throughput_ci.map_or(String::from("-"), |c| {
        format!("±{:.1}%", c.relative_half_width() * 100.0)
    });
    let m = &p.mean;
    let ns = |s: f64| fmt_ns(s * 1e9);
    format!(
        "{:<10} {:>12.1} {unit:<5} {:>7} {:>10} {:>10} {:>10} {:>7.3} {:>4}  {}{}",
        p.load.label(),
        m.throughput,
        ci,
        ns(m.mean_s),
        ns(m.p90_s),
        ns(m.p99_s),
        m.io_time_fraction,
        p.reps.len(),
        match p.meets {
            Some(true) => "meets",
            Some(false) => "BREAKS",
            None => "",
        },
        if p.saturated { " (rate not kept)" } else { "" }
    )
}

/// The text report.
fn render(a: &Args, c: &Curve, unit: &str) -> String {
    let mut s = String::new();
    let open = c.points.iter().any(|p| matches!(p.load, Load::Open(_)));
    let _ = writeln!(
        s,
        "iogauge scale {}: {}{}",
        a.workload.name(),
        if open {
            "open loop, rising offered rate (response times from each request's intended start)"
        } else {
            "closed loop, rising number of workers"
        },
        match &c.constraint {
            Some(k) => format!(
                ", constraint {} ≤ {}",
                k.stat.name(),
                fmt_ns(k.limit_s * 1e9)
            ),
            None => String::new(),
        }
    );
    let _ = writeln!(
        s,
        "\n  {:<10} {:>12} {:<5} {:>7} {:>10} {:>10} {:>10} {:>7} {:>4}  constraint",
        "load", "throughput", "", "CI", "mean", "p90", "p99", "io_time", "reps"
    );
    for p in &c.points {
        let _ = writeln!(s, "  {}", point_line(p, unit));
    }
    let _ = writeln!(s, "\n  stopped: {}", c.stopped);
    if let Some(i) = c.peak {
        let p = &c.points[i];
        let _ = writeln!(
            s,
            "  peak:    {:.1} {unit} at {}",
            p.mean.throughput,
            p.load.label()
        );
    }
    match (c.constraint, c.best) {
        (Some(k), Some(i)) => {
            let p = &c.points[i];
            let _ = writeln!(
                s,
                "  maximum under the constraint: {:.1} {unit} at {} ({} {})",
                p.mean.throughput,
                p.load.label(),
                k.stat.name(),
                fmt_ns(p.mean.response(k.stat) * 1e9)
            );
        }
        (Some(_), None) => s += "  maximum under the constraint: none; no point met it\n",
        (None, _) => {}
    }
    if let Some(i) = c.best.or(c.peak)
        && let Some(note) = a.workload.note(c.points[i].mean.throughput)
    {
        let _ = writeln!(s, "  note: {note}");
    }
    match &c.usl {
        Some(f) => {
            let _ = writeln!(s, "  USL fit: {}", f.summary(unit));
            let _ = writeln!(
                s,
                "  USL predicts {}{}",
                f.shape(unit),
                if f.peak_concurrency.is_some_and(|n| n > a.max_procs as f64) {
                    " (the peak is beyond --max-procs: not measured)"
                } else {
                    ""
                }
            );
        }
        None if !open => {
            let n = c.points.len();
            let _ = writeln!(
                s,
                "  USL fit: none; it needs 4 concurrencies or more (more than its 3 parameters), the curve has {n}"
            );
        }
        None => {}
    }
    s
}

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
) -> Result<super::survey::Row> {
    let plan = Plan {
        max_procs: 4,
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
    let mut row = super::survey::Row::new(
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

/// A short form's row is a three-point curve: N = 1, 2, 4, its figure the
/// peak, the points on its note with their io_time_fraction.
#[cfg(test)]
pub fn assert_three_point_row(row: &super::survey::Row) {
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
