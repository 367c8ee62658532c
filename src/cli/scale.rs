//! `iogauge scale WORKLOAD`: the throughput-versus-response-time curve of
//! a workload (`run`, `tpcb`, `laddis`), closed or open loop, with the knee searched,
//! the best throughput under a response-time constraint, and the
//! Universal Scalability Law fitted to a closed loop.

use super::common::{self, OutputArgs, Status};
use super::progress::{self, Bar};
use super::{laddis, run, tpcb};
use crate::measure::LatencySummary;
use crate::measure::curve::{self, Constraint, Curve, Load, Plan, Sample, Stat};
use crate::measure::interval::Stopper;
use crate::report::RunResult;
use crate::runner::signals;
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

/// What `scale` runs.
#[derive(clap::Subcommand, Debug)]
pub enum Workload {
    /// The generic workload (its flags as 'iogauge run'); the load is its workers (-p).
    Run(run::Args),
    /// TPC-B (its flags as 'iogauge tpcb'); the load is its terminals.
    Tpcb(tpcb::Args),
    /// LADDIS (its flags as 'iogauge laddis'); the load is its processes, or the NFS ops/s offered.
    Laddis(laddis::Args),
}

impl super::Cmd for Args {
    fn main(self) -> Result<Status> {
        main(self)
    }
    fn output(&self) -> Option<OutputArgs> {
        Some(self.workload.out().clone())
    }
}

/// One repetition of a workload at one load: the sample and its result.
type Measured = (Sample, RunResult);

impl Workload {
    fn name(&self) -> &'static str {
        match self {
            Workload::Run(_) => "run",
            Workload::Tpcb(_) => "tpcb",
            Workload::Laddis(_) => "laddis",
        }
    }

    /// What the throughput counts, singular (for messages).
    fn unit_name(&self) -> &'static str {
        match self {
            Workload::Run(_) => "request",
            Workload::Tpcb(_) => "transaction",
            Workload::Laddis(_) => "NFS operation",
        }
    }

    /// The unit of throughput.
    fn unit(&self) -> &'static str {
        match self {
            Workload::Run(_) => "req/s",
            Workload::Tpcb(_) => "tx/s",
            Workload::Laddis(_) => "ops/s",
        }
    }

    /// The files the workload reads.
    fn inputs(&self) -> common::Paths {
        match self {
            Workload::Laddis(a) => a.inputs(),
            Workload::Run(_) | Workload::Tpcb(_) => common::Paths::new(),
        }
    }

    fn out(&self) -> &OutputArgs {
        match self {
            Workload::Run(a) => &a.out,
            Workload::Tpcb(a) => &a.out,
            Workload::Laddis(a) => &a.out,
        }
    }

    /// The workload's `--check`: check everything, measure nothing.
    fn check_only(&self) -> bool {
        match self {
            Workload::Run(a) => a.check.check,
            Workload::Tpcb(a) => a.check.check,
            Workload::Laddis(a) => a.check.check,
        }
    }

    /// The workload's own concurrency (the workers sharing an open loop's rate).
    fn workers(&self) -> usize {
        match self {
            Workload::Run(a) => a.processes,
            Workload::Tpcb(a) => a.terminals,
            Workload::Laddis(a) => a.procs,
        }
    }

    /// Refuse workload flags that scale sets itself.
    fn check(&self, open: bool) -> Result<()> {
        let load = match self {
            Workload::Run(a) => &a.load,
            Workload::Tpcb(a) => &a.load,
            Workload::Laddis(a) => &a.load,
        };
        if load.rate.is_some() {
            crate::usage!(
                "--rate: scale sets the rate of each point; give the rates to scale with --rates LIST|auto"
            );
        }
        if open && load.thinktime.is_some() {
            crate::usage!("--thinktime: an open loop (--rates) has no think time");
        }
        let (flag, default, given) = match self {
            Workload::Run(a) => ("-p/--processes", 1, a.processes),
            Workload::Tpcb(a) => ("--terminals", 4, a.terminals),
            Workload::Laddis(a) => ("--procs", 4, a.procs),
        };
        if !open && given != default {
            crate::usage!(
                "{flag} {given}: in a closed loop scale sets the number of workers itself (1, 2, 4, … --max-procs); {flag} is for an open loop (--rates), where the workers share the rate"
            );
        }
        if let Workload::Run(a) = self {
            if a.ops.is_some() {
                crate::usage!(
                    "--ops: each repetition of a point runs for --duration; scale takes no op budget"
                );
            }
            // the run's own checks, once, before anything is measured
            a.spec()?;
            a.setup()?;
        }
        if let Workload::Laddis(a) = self {
            a.options()?.check().map_err(crate::error::UsageError)?;
        }
        Ok(())
    }

    /// Measure one repetition at `load`.
    fn measure(
        &self,
        load: Load,
        rep: usize,
        arrivals_seed: u64,
        progress: bool,
    ) -> Result<Measured> {
        let per = |d: Option<Duration>| d.unwrap_or(Duration::from_secs(2));
        // each repetition its own request stream and arrival schedule
        let seed_of = |seed: u64| seed.wrapping_add(rep as u64);
        let arrivals_seed = seed_of(arrivals_seed);
        match self {
            Workload::Run(a) => {
                let mut spec = a.spec()?;
                spec.seed = seed_of(spec.seed);
                let setup = a.setup()?;
                let mut pace = a.load.pace(arrivals_seed)?;
                match load {
                    Load::Closed(n) => spec.processes = n,
                    Load::Open(r) => pace.rate = Some(r),
                }
                let rule = crate::runner::StopRule {
                    duration: Some(per(a.duration)),
                    ramp: a.ramp,
                    pace,
                    ..Default::default()
                };
                let bar = Bar::new(
                    &format!("run {}", load.label()),
                    rule.duration,
                    None,
                    progress,
                );
                let procs = a.workers_as == run::WorkersAs::Processes;
                let r = crate::runner::generic::run_generic(
                    &spec,
                    &setup,
                    rule,
                    &a.dir,
                    procs,
                    progress::sink(&bar),
                )?;
                drop(bar);
                let lat = request_times(&r);
                let throughput = r
                    .metrics
                    .get("requests_per_s")
                    .and_then(|v| v.as_f64())
                    .unwrap_or(0.0);
                // the requests: its reads and writes
                let completed = ["read", "write"]
                    .iter()
                    .filter_map(|k| r.ops.get(*k))
                    .map(|o| o.count)
                    .sum();
                Ok((sample(&r, throughput, completed, &lat), r))
            }
            Workload::Tpcb(a) => {
                let mut o = tpcb_options(a)?;
                o.duration = per(a.duration);
                o.seed = seed_of(o.seed);
                o.pace.seed = arrivals_seed;
                match load {
                    Load::Closed(n) => o.terminals = n,
                    Load::Open(r) => o.pace.rate = Some(r),
                }
                let bar = Bar::new(
                    &format!("tpcb {}", load.label()),
                    Some(o.duration),
                    None,
                    progress,
                );
                let rep = crate::suites::tpcb::run::run(&o, progress::sink(&bar))?;
                drop(bar);
                if rep.sums.as_ref().is_some_and(|s| !s.consistent()) {
                    anyhow::bail!(
                        "tpcb at {}: the database is inconsistent after the run",
                        load.label()
                    );
                }
                Ok((sample_of_tpcb(&rep), rep.result))
            }
            Workload::Laddis(a) => {
                let mut o = a.options()?;
                o.seed = seed_of(o.seed);
                let mut pace = a.load.pace(arrivals_seed)?;
                match load {
                    Load::Closed(n) => o.procs = n,
                    Load::Open(r) => {
                        pace.rate = Some(r);
                        // LADDIS's rule: the file set grows with the load asked
                        if a.claim.is_none() {
                            o.claim = r;
                        }
                    }
                }
                let rule = crate::runner::StopRule {
                    duration: Some(per(a.duration)),
                    pace,
                    ..Default::default()
                };
                let bar = Bar::new(
                    &format!("laddis {}", load.label()),
                    rule.duration,
                    None,
                    progress,
                );
                let rep = crate::suites::laddis::run::run(&o, rule, progress::sink(&bar))?;
                drop(bar);
                let r = rep.result;
                let lat = request_times(&r);
                let f = &rep.figures;
                Ok((sample(&r, f.ops_per_s, f.nfs_ops, &lat), r))
            }
        }
    }
}

fn tpcb_options(a: &tpcb::Args) -> Result<crate::suites::tpcb::run::Options> {
    a.options()
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
fn sample(r: &RunResult, throughput: f64, completed: u64, lat: &LatencySummary) -> Sample {
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
    let out = a.workload.out().clone();
    let mut paths = a.workload.inputs();
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
    a.workload.check(open)?;
    if a.workload.check_only() {
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
        let (s, _) = w.measure(Load::Closed(w.workers()), 0, arrivals_seed, progress)?;
        if signals::interrupted() {
            common::interrupted_line(false);
            return Ok(Status::Interrupted);
        }
        if s.throughput <= 0.0 {
            anyhow::bail!("the closed-loop probe completed no request; give --rates LIST");
        }
        first_rate = s.throughput / 8.0;
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
        unit: w.unit_name(),
    };
    let mut results: Vec<(Load, RunResult)> = Vec::new();
    // the point that failed, as far as it got: the base of the result when
    // no point was measured
    let mut failed: Option<(Load, RunResult)> = None;
    let mut failure: Option<anyhow::Error> = None;
    let curve = curve::search(
        &plan,
        |load, rep| -> Result<Sample> {
            let (s, r) = w
                .measure(load, rep, arrivals_seed, progress)
                .inspect_err(|_| {
                    failed = crate::runner::setup::take_unfinished().map(|r| (load, r));
                })?;
            if let Some(e) = &r.error {
                let e = format!("{} at {}: {e}", w.name(), load.label());
                failed = Some((load, r));
                anyhow::bail!(e);
            }
            results.push((load, r));
            Ok(s)
        },
        &signals::interrupted,
        |p| {
            if progress {
                eprintln!("  {}", point_line(p, w.unit()));
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
                constraint,
                peak: None,
                best: None,
                stopped: "failed".into(),
                usl: None,
            }
        }
    };
    let unit = w.unit();
    let scale_config = serde_json::json!({
        "max_procs": a.max_procs,
        "rates": a.rates,
        "target_ci": a.target_ci,
        "confidence": a.confidence,
        "min_reps": a.min_reps,
        "max_reps": a.max_reps,
        "max_points": a.max_points,
        "auto_rates_from": (first_rate > 0.0).then(|| serde_json::json!({
            "closed_loop_workers": w.workers(),
            "throughput": first_rate * 8.0,
            "first_rate": first_rate,
        })),
    });
    let mut result = curve_result(w.name(), scale_config, &curve, &results, unit)?;
    if let Some(e) = failure {
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
            w.workers()
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

/// The result document: the chosen point's last repetition as the base
/// (its environment, summary and op table), the curve in the metrics.
pub(super) fn curve_result(
    workload: &str,
    scale_config: serde_json::Value,
    c: &Curve,
    results: &[(Load, RunResult)],
    unit: &str,
) -> Result<RunResult> {
    let chosen = c.best.or(c.peak).map(|i| c.points[i].load);
    let base = chosen
        .and_then(|l| results.iter().rev().find(|(load, _)| *load == l))
        .or(results.last())
        .map(|(_, r)| r.clone());
    let Some(mut r) = base else {
        anyhow::bail!("no point of the curve was measured");
    };
    let workload_config = std::mem::take(&mut r.config);
    r.benchmark = "scale".into();
    let open = c.points.iter().any(|p| matches!(p.load, Load::Open(_)));
    let mut config = serde_json::json!({
        "workload": workload,
        "workload_config": workload_config,
        "loop": if open { "open" } else { "closed" },
        "constraint": c.constraint,
        "chosen_point": chosen,
        "summary_is": "the chosen point's last repetition",
    });
    if let (Some(m), serde_json::Value::Object(extra)) = (config.as_object_mut(), scale_config) {
        m.extend(extra);
    }
    r.config = config;
    r.metric("unit", unit);
    r.metric("curve", c);
    let get = |i: Option<usize>| i.map(|i| &c.points[i]);
    if let Some(p) = get(c.peak) {
        r.metric("peak_throughput", p.mean.throughput);
        r.metric("peak_load", p.load);
    }
    if let Some(p) = get(c.best) {
        r.metric("best_throughput", p.mean.throughput);
        r.metric("best_load", p.load);
    }
    if let Some(f) = &c.usl {
        r.metric("usl", f);
    }
    Ok(r)
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
    if let (Workload::Tpcb(t), Some(i)) = (&a.workload, c.best.or(c.peak)) {
        let tps = c.points[i].mean.throughput;
        let sized = crate::suites::tpcb::db::Scale::new(t.tps_scale).max_tps() as f64;
        if tps > sized {
            let _ = writeln!(
                s,
                "  note: TPC-B lets a database report at most the tps it is sized for ({sized:.0} here); {tps:.0} tx/s needs --tps-scale {:.0} or more",
                tps.ceil()
            );
        }
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
