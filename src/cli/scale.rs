//! `iogauge scale WORKLOAD`: the throughput-versus-response-time curve of
//! a workload (any command with a load point: `run`, `tpcb`, `laddis`),
//! closed or open loop, with the knee searched,
//! the best throughput under a response-time constraint, and the
//! Universal Scalability Law fitted to a closed loop.

use super::common::{self, OutputArgs, Status};
use crate::measure::curve::{self, Axis, Constraint, Curve, Load, Plan, Stat};
use crate::measure::interval::Stopper;
use crate::runner::signals;
use crate::suites::curve::{Searched, curve_result};
use crate::suites::load::{self, LoadPoint, Measured, Rep};
use crate::suites::survey::Bars;
use crate::units::fmt_ns;
use anyhow::Result;
use std::fmt::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Throughput against response time: runs WORKLOAD at rising load — a
/// closed loop of 1, 2, 4, … workers (up to --max-procs), or of its workers
/// each keeping 1, 2, 4, … requests in flight (--axis depth, up to
/// --max-depth), or an open loop at rising rates (--rates) — until throughput stops rising, the rate is
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
    /// What a closed loop raises: its workers, or the requests each of the workload's workers keeps in flight (its --iodepth; a queued engine).
    #[arg(
        long,
        global = true,
        value_enum,
        default_value = "workers",
        value_name = "AXIS"
    )]
    pub axis: Axis,
    /// Depth axis: the highest queue depth tried (1, 2, 4, … up to N).
    #[arg(long, global = true, default_value = "128", value_name = "N", value_parser = common::depth_arg)]
    pub max_depth: u16,
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
        Some(self.workload.flags().args.out.clone())
    }
}

/// What scale reads of a workload's own flags.
pub struct PointFlags {
    /// Its load, result files and `--check` (check everything, measure
    /// nothing).
    pub args: common::PointArgs,
    /// The flag that sets its own concurrency, the flag's default, and
    /// what was given (the workers sharing an open loop's rate).
    pub workers: (&'static str, usize, usize),
    /// Its --iodepth as given (1 where it has none).
    pub depth: u16,
    /// The files the workload reads.
    pub inputs: common::Paths,
}

/// A command at a load point ([`super::Cmd::load_point`], with
/// [`super::Cmd::LOAD_ABOUT`]): its flags, and the benchmark's point they
/// make, or why they make none (said where the point's own refusals are).
pub struct Point {
    flags: PointFlags,
    point: Option<Result<Box<dyn LoadPoint>>>,
}

impl Point {
    pub fn new<P: LoadPoint + 'static>(flags: PointFlags, point: Result<P>) -> Point {
        Point {
            flags,
            point: Some(point.map(|p| Box::new(p) as Box<dyn LoadPoint>)),
        }
    }
}

/// What `scale` runs: a command of the command table that has a load point.
pub struct Workload {
    name: &'static str,
    point: Point,
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

impl Workload {
    fn flags(&self) -> &PointFlags {
        &self.point.flags
    }

    /// The workload's own concurrency (the workers sharing an open loop's rate).
    fn concurrency(&self) -> usize {
        self.flags().workers.2
    }

    /// Refuse workload flags that scale sets itself, then the workload's
    /// own refusals and those of the depth axis up to `max_depth`; its
    /// point, once.
    fn checked_point(
        &mut self,
        open: bool,
        axis: Axis,
        max_depth: u16,
    ) -> Result<Box<dyn LoadPoint>> {
        let f = self.flags();
        let depth = axis == Axis::Depth;
        if depth && open {
            crate::usage!(
                "--axis depth: an open loop (--rates) raises the offered rate; give the workload's --iodepth for its depth instead"
            );
        }
        if depth && f.depth != 1 {
            crate::usage!(
                "--iodepth {}: on the depth axis scale sets the depth of each point itself (1, 2, 4, … --max-depth)",
                f.depth
            );
        }
        let load = &f.args.load;
        if load.rate.is_some() {
            crate::usage!(
                "--rate: scale sets the rate of each point; give the rates to scale with --rates LIST|auto"
            );
        }
        if open && load.thinktime.is_some() {
            crate::usage!("--thinktime: an open loop (--rates) has no think time");
        }
        let (flag, default, given) = f.workers;
        if !open && !depth && given != default {
            crate::usage!(
                "{flag} {given}: in a closed loop scale sets the number of workers itself (1, 2, 4, … --max-procs); {flag} is for an open loop (--rates), where the workers share the rate"
            );
        }
        let point = self.point.point.take().expect("a point is taken once")?;
        point.check()?;
        if depth && let Err(why) = point.queues(max_depth) {
            crate::usage!("--axis depth: {} {why}", self.name);
        }
        Ok(point)
    }
}

/// The length of one repetition: the workload's --duration, 2 s without.
pub fn repetition(d: Option<Duration>) -> Duration {
    d.unwrap_or(Duration::from_secs(2))
}

impl Args {
    /// The closed loop's highest load on its axis.
    fn top(&self) -> usize {
        match self.axis {
            Axis::Workers => self.max_procs,
            Axis::Depth => usize::from(self.max_depth),
        }
    }

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

pub fn main(mut a: Args) -> Result<Status> {
    let out = a.workload.flags().args.out.clone();
    let mut paths = std::mem::take(&mut a.workload.point.flags.inputs);
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
    let ranks = crate::cluster::ranks();
    let spans = !open && a.axis == Axis::Workers;
    if spans && a.max_procs < ranks {
        crate::usage!(
            "--max-procs {}: under mpirun a point's workers are shared out between the {ranks} ranks; give {ranks} or more",
            a.max_procs
        );
    }
    if !open && a.axis == Axis::Workers {
        // the closed loop may go up to --max-procs workers
        crate::runner::limits::check(a.max_procs, 1, false)
            .map_err(|e| crate::error::UsageError::new(format!("--max-procs: {e}")))?;
    }
    let point = a.workload.checked_point(open, a.axis, a.max_depth)?;
    let name = a.workload.name;
    if a.workload.flags().args.check.check {
        return Ok(common::checked(&format!("iogauge scale {name}")));
    }
    let progress = out.progress();
    let bars = progress.then_some(super::survey::bar as Bars);
    let arrivals_seed = 1;
    // the workload's own workers on each rank
    let workers = a.workload.concurrency() * ranks;
    let measure = |load: Load, rep: usize| -> Result<Measured> {
        measure_rep(point.as_ref(), load, rep, arrivals_seed, bars)
    };
    // open loop, auto: an eighth of what one closed-loop point gets
    let mut first_rate = 0.0;
    if rates.as_ref().is_some_and(Vec::is_empty) {
        match probe(&measure, Load::Closed(workers))? {
            Some(t) => first_rate = t / 8.0,
            None => {
                common::interrupted_line(false);
                return Ok(Status::Interrupted);
            }
        }
    }
    let units = point.units();
    let plan = Plan {
        max_procs: a.top(),
        least: if spans { ranks } else { 1 },
        axis: a.axis,
        rates: rates.clone().unwrap_or_default(),
        open,
        first_rate,
        constraint,
        stopper,
        max_points: a.max_points,
        flat: 0.05,
        unit: units.unit_name,
    };
    let searched = crate::suites::curve::search(&plan, name, measure, |p| {
        if progress {
            eprintln!("  {}", point_line(p, units.unit));
        }
    })?;
    let report = Report {
        point: point.as_ref(),
        unit: units.unit,
        first_rate,
        workers,
        constraint,
    };
    report.finish(&a, &out, searched)
}

/// What the end of a curve reports, beside the curve itself.
struct Report<'a> {
    point: &'a dyn LoadPoint,
    unit: &'static str,
    /// Where --rates auto started (0: it did not), from a closed loop of
    /// `workers`.
    first_rate: f64,
    workers: usize,
    constraint: Option<Constraint>,
}

impl Report<'_> {
    /// The curve's result and report, the plot, the files written.
    fn finish(&self, a: &Args, out: &OutputArgs, searched: Searched) -> Result<Status> {
        let (name, unit, first_rate) = (a.workload.name, self.unit, self.first_rate);
        let curve = searched.curve;
        let config = a.config(first_rate, self.workers);
        let mut result = curve_result(name, config, &curve, &searched.results, unit)?;
        if let Some(e) = searched.failure {
            result.complete = false;
            result.error = Some(crate::error::cause(&e));
        }
        if signals::interrupted() {
            result.complete = false;
        }
        // under mpirun: every repetition's phase, not the chosen one's alone
        if let Some(job) = crate::cluster::section() {
            result.cluster = Some(job);
        }
        let mut report = render(a, self.point, &curve, unit);
        if first_rate > 0.0 {
            let _ = writeln!(
                report,
                "  rates: from an eighth of {:.1} {unit}, measured once in a closed loop of {} workers",
                first_rate * 8.0,
                self.workers
            );
        }
        if let Some(path) = &a.plot
            && !curve.points.is_empty()
        {
            let stat = self.constraint.map_or(Stat::Mean, |c| c.stat);
            let title = format!("iogauge scale {name}");
            crate::report::plot::curve::write(path, &curve, &title, unit, stat)?;
            let _ = writeln!(report, "plot: {}", path.display());
        }
        common::finish(out, &result, &report)
    }
}

impl Args {
    /// The curve's `config`: scale's own flags, and where --rates auto
    /// started (`first_rate`, from a closed loop of `workers`).
    fn config(&self, first_rate: f64, workers: usize) -> serde_json::Value {
        let mut c = serde_json::json!({
            "axis": self.axis,
            "max_procs": self.max_procs,
            "max_depth": (self.axis == Axis::Depth).then_some(self.max_depth),
            "rates": self.rates,
            "target_ci": self.target_ci,
            "confidence": self.confidence,
            "min_reps": self.min_reps,
            "max_reps": self.max_reps,
            "max_points": self.max_points,
            "auto_rates_from": (first_rate > 0.0).then(|| serde_json::json!({
                "closed_loop_workers": workers,
                "throughput": first_rate * 8.0,
                "first_rate": first_rate,
            })),
        });
        let ranks = crate::cluster::ranks();
        if ranks > 1 {
            c["mpi_ranks"] = ranks.into();
            c["loads"] = JOB_WIDE.into();
        }
        c
    }
}

/// One repetition at `load`, the job's under mpirun: each rank measures its
/// part ([`load::share`]), and every rank goes on with rank 0's sample and
/// error, which are the job's, so that all take the same next point.
fn measure_rep(
    point: &dyn LoadPoint,
    load: Load,
    rep: usize,
    arrivals_seed: u64,
    bars: Option<Bars>,
) -> Result<Measured> {
    let (rank, ranks) = (crate::cluster::rank(), crate::cluster::ranks());
    let (sample, mut result) = point.measure(&Rep {
        load: load::share(load, rank, ranks),
        job: load,
        rep,
        arrivals_seed,
        bars,
    })?;
    let (sample, error) = crate::cluster::share_json((sample, result.error.take()))?;
    result.error = error;
    Ok((sample, result))
}

/// `--rates auto`: the throughput of one closed-loop repetition at the
/// workload's own concurrency (`first`); `None` when Ctrl-C cut it short.
fn probe(measure: &dyn Fn(Load, usize) -> Result<Measured>, first: Load) -> Result<Option<f64>> {
    let (s, _) = measure(first, 0)?;
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
fn render(a: &Args, point: &dyn LoadPoint, c: &Curve, unit: &str) -> String {
    let mut s = String::new();
    let open = c.points.iter().any(|p| matches!(p.load, Load::Open(_)));
    title(&mut s, a, c, open);
    let _ = writeln!(
        s,
        "\n  {:<10} {:>12} {:<5} {:>7} {:>10} {:>10} {:>10} {:>7} {:>4}  constraint",
        "load", "throughput", "", "CI", "mean", "p90", "p99", "io_time", "reps"
    );
    for p in &c.points {
        let _ = writeln!(s, "  {}", point_line(p, unit));
    }
    let _ = writeln!(s, "\n  stopped: {}", c.stopped);
    maxima(&mut s, point, c, unit);
    usl_lines(&mut s, a, c, unit, open);
    s
}

/// What a load is under mpirun.
const JOB_WIDE: &str = "job-wide: a point's workers are shared out between the ranks (the remainder to the low ranks), an open loop's rate split evenly; its throughput and response times are all ranks' together";

/// The report's first line: the workload, how the load rises, and the
/// constraint; under mpirun, a line on what the loads are.
fn title(s: &mut String, a: &Args, c: &Curve, open: bool) {
    let _ = writeln!(
        s,
        "iogauge scale {}: {}{}",
        a.workload.name,
        match a.axis {
            _ if open =>
                "open loop, rising offered rate (response times from each request's intended start)"
                    .to_string(),
            Axis::Workers => "closed loop, rising number of workers".to_string(),
            Axis::Depth => format!(
                "closed loop of {} worker{}, rising queue depth (QD: requests each keeps in flight)",
                a.workload.concurrency(),
                if a.workload.concurrency() == 1 {
                    ""
                } else {
                    "s"
                }
            ),
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
    let ranks = crate::cluster::ranks();
    if ranks > 1 {
        let _ = writeln!(s, "  loads across {ranks} MPI ranks, {JOB_WIDE}");
    }
}

/// The peak, the maximum under the constraint, and the workload's note on
/// the better of the two.
fn maxima(s: &mut String, point: &dyn LoadPoint, c: &Curve, unit: &str) {
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
        (Some(_), None) => *s += "  maximum under the constraint: none; no point met it\n",
        (None, _) => {}
    }
    if let Some(i) = c.best.or(c.peak)
        && let Some(note) = point.note(c.points[i].mean.throughput)
    {
        let _ = writeln!(s, "  note: {note}");
    }
}

/// The Universal Scalability Law's fit and what it predicts, or why a
/// closed-loop curve has none.
fn usl_lines(s: &mut String, a: &Args, c: &Curve, unit: &str, open: bool) {
    match &c.usl {
        Some(f) => {
            // the law's N is the load on the curve's axis
            let n_is = match a.axis {
                Axis::Depth if !open => " (N: the queue depth)",
                _ => "",
            };
            let _ = writeln!(s, "  USL fit{n_is}: {}", f.summary(unit));
            let _ = writeln!(
                s,
                "  USL predicts {}{}",
                f.shape(unit),
                if f.peak_concurrency.is_some_and(|n| n > a.top() as f64) {
                    match a.axis {
                        Axis::Workers => " (the peak is beyond --max-procs: not measured)",
                        Axis::Depth => " (the peak is beyond --max-depth: not measured)",
                    }
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
}
