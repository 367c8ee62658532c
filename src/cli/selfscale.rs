//! `iogauge selfscale` (Chen & Patterson's self-scaling benchmark, its
//! validation and refinement) and `iogauge predict` (predicted performance
//! from a model file).

use super::common::{self, EngineArgs, OutputArgs, Status, SyncArgs};
use crate::engine::{Choice, FsyncPolicy};
use crate::error::UsageError;
use crate::runner::signals;
use crate::selfscale::model::{Model, Param, Workload, short_bytes};
use crate::selfscale::{self, MemoryLimit, Observer, Options, ValidateOptions};
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Explore the five-parameter workload space by itself: sweep uniqueBytes
/// to find the performance regions (CPU caches, file cache, device) and
/// their boundaries, choose a focal vector per region, and measure one
/// curve per parameter there. Writes model.json, summary.txt and one SVG
/// per parameter per region into --out, and the summary on stdout. With
/// --validate N, measures N random workloads and reports how well the model
/// predicts them.
#[derive(clap::Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct Args {
    /// The directory to measure (the runs work in a subdirectory they create and remove).
    #[arg(default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    /// Where to write the model, the summary and the graphs (default ./selfscale-<timestamp>/).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// A coarser, faster pass (about 3 minutes): the same sweep, fewer points per curve and per cliff, ±5 % or 1.2 s per point (batches of 0.1 s), a page-cache bound of 512M, at most 2 regions.
    #[arg(long)]
    pub quick: bool,
    /// Largest uniqueBytes of the sweep (default: what this machine allows; the output says what it picked).
    #[arg(long, value_name = "SIZE", value_parser = common::size_arg, allow_hyphen_values = true)]
    pub max_bytes: Option<u64>,
    /// Smallest uniqueBytes of the sweep (default 1M).
    #[arg(long, value_name = "SIZE", value_parser = common::size_arg, allow_hyphen_values = true)]
    pub min_bytes: Option<u64>,
    /// Bound the page cache with a memory cgroup (v2 memory.max, else v1 memory.limit_in_bytes; needs root): a size, or 'off'. Default: 1G (512M with --quick) where cgroups allow it.
    #[arg(long, value_name = "SIZE|off", value_parser = memory_limit_arg)]
    pub memory_limit: Option<MemoryLimit>,
    /// Coefficient of variation of request sizes (1 = exponential, the paper's; 0 = fixed).
    #[arg(long, value_name = "X", value_parser = size_cv_arg, allow_hyphen_values = true)]
    pub size_cv: Option<f64>,
    /// Seed of the request streams; with --validate, also of the random workloads.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = seed_arg, allow_hyphen_values = true)]
    pub seed: u64,
    /// Extension, off by default: every point's random requests draw their block from this distribution (fio's random_distribution syntax: zipf:1.2, pareto:0.2, normal:10, zoned:60/10:40/90, …); recorded in the model, and predict refuses to mix models of different skews.
    #[arg(long, value_name = "SPEC", value_parser = crate::workload::dist::parse)]
    pub distribution: Option<crate::workload::dist::Dist>,
    /// Stop a point once its 95 % confidence interval is within ±F of the estimate (default 0.03; 0.05 with --quick).
    #[arg(long, value_name = "F", value_parser = common::fraction_arg)]
    pub precision: Option<f64>,
    /// Time cap of one point (default 4s; 1.2s with --quick).
    #[arg(long, value_name = "TIME", value_parser = common::duration_arg, allow_hyphen_values = true)]
    pub point_time: Option<Duration>,
    /// At most N performance regions (default 3; 2 with --quick).
    #[arg(long, value_name = "N", value_parser = regions_arg, allow_hyphen_values = true)]
    pub max_regions: Option<usize>,
    /// Measure N workloads drawn at random over the model's space (each twice) and compare them with its predictions; with --model, the model of an earlier run, otherwise one built first.
    #[arg(long, value_name = "N", value_parser = validate_arg, allow_hyphen_values = true)]
    pub validate: Option<usize>,
    /// The model to validate: the model.json of an earlier 'iogauge selfscale'.
    #[arg(long, value_name = "MODEL.json")]
    pub model: Option<PathBuf>,
    /// With --validate: measure up to K more points where pairs of parameters interact, add two-parameter corrections, and report the error before and after.
    #[arg(long, value_name = "K", value_parser = refine_arg, allow_hyphen_values = true)]
    pub refine: Option<usize>,
    /// With --validate: single-number benchmarks to compare with and draw on the scatter plot: an iogauge result JSON, a survey JSON (each of its benchmarks), or NAME=MB/s. Repeatable.
    #[arg(long, value_name = "FILE|NAME=MB/s")]
    pub baseline: Vec<String>,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub depth: common::DepthArgs,
    #[command(flatten)]
    pub sync: SyncArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

common::cmd!(output, {
    const DEFAULT_ENGINE: Option<&'static str> = Some("psync");
});

impl super::Cmd for PredictArgs {
    fn main(self) -> Result<Status> {
        predict_main(self)
    }
}

/// `off`, `none`, `0` or a size.
fn memory_limit_arg(s: &str) -> Result<MemoryLimit, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "off" | "none" | "0" => Ok(MemoryLimit::Off),
        "auto" => Ok(MemoryLimit::Auto),
        _ => common::size_arg(s)
            .map(MemoryLimit::Bytes)
            .map_err(|_| format!("'{s}' is not a size (like 512M or 2G), off (no bound) or auto")),
    }
}

/// A whole number from `lo` to `hi`; the message names the range.
fn whole(s: &str, lo: u64, hi: u64) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a whole number from {lo} to {hi}")),
    }
}

fn seed_arg(s: &str) -> Result<u64, String> {
    whole(s, 0, u64::MAX)
}

fn regions_arg(s: &str) -> Result<usize, String> {
    whole(s, 1, 6).map(|n| n as usize)
}

fn validate_arg(s: &str) -> Result<usize, String> {
    whole(s, 1, 10_000).map(|n| n as usize)
}

fn refine_arg(s: &str) -> Result<usize, String> {
    whole(s, 0, 1000).map(|n| n as usize)
}

/// `--size-cv`: a number ≥ 0.
fn size_cv_arg(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!(
            "'{s}' is not a number ≥ 0 (1 = exponential sizes, 0 = fixed)"
        )),
    }
}

/// The progress display: which curve and point the run is on, and the
/// lines noted as a run or a validation begins (what was picked, on stderr).
struct Progress {
    bar: Option<ProgressBar>,
    points: AtomicUsize,
    quiet: bool,
}

impl Progress {
    fn new(enabled: bool, quiet: bool) -> Progress {
        let bar = enabled.then(|| {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} {elapsed_precise} {prefix} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        Progress {
            bar,
            points: AtomicUsize::new(0),
            quiet,
        }
    }

    /// A line on stderr, above the bar.
    fn line(&self, s: &str) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(b) => b.suspend(|| eprintln!("{s}")),
            None => eprintln!("{s}"),
        }
    }
}

impl crate::runner::Progress for Progress {
    fn status(&self, label: &str) {
        if let Some(b) = &self.bar {
            b.set_message(label.to_string());
        }
    }
    fn say(&self, line: &str) {
        self.line(&format!("  {line}"));
    }
}

impl Observer for Progress {
    fn measured(&self, _label: &str, p: &selfscale::Point) {
        let n = self.points.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(b) = &self.bar {
            b.set_prefix(format!(
                "[{n} points, last {:.0} MB/s ±{:.1}%]",
                p.mb_per_s,
                p.rel_half_width * 100.0
            ));
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Args {
    fn options(&self) -> Result<Options> {
        if self.sync.fsync == FsyncPolicy::End {
            crate::usage!(
                "--fsync end has no meaning for selfscale (its points run in short batches); use never or every=N"
            );
        }
        self.sync.check()?;
        let mut o = Options::new(&self.dir);
        o.quick = self.quick;
        o.min_bytes = self.min_bytes;
        o.max_bytes = self.max_bytes;
        o.memory_limit = self.memory_limit.unwrap_or(MemoryLimit::Auto);
        o.engine = self.engine.choice(Choice::PSYNC);
        o.direct = self.engine.direct;
        o.iodepth = self.depth.iodepth;
        o.queue = self.depth.queue();
        o.fsync = self.sync.fsync;
        o.fdatasync = self.sync.fdatasync;
        o.size_cv = self.size_cv.unwrap_or(1.0);
        o.seed = self.seed;
        o.distribution = self.distribution.clone().unwrap_or_default();
        o.precision = self.precision;
        o.point_time = self.point_time;
        o.max_regions = self.max_regions;
        Ok(o)
    }

    /// Flags that choose how to measure; a validation takes those of its model.
    fn measurement_flags(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        let mut add = |set: bool, name: &'static str| {
            if set {
                v.push(name);
            }
        };
        add(self.quick, "--quick");
        add(self.max_bytes.is_some(), "--max-bytes");
        add(self.min_bytes.is_some(), "--min-bytes");
        add(self.memory_limit.is_some(), "--memory-limit");
        add(self.size_cv.is_some(), "--size-cv");
        add(self.distribution.is_some(), "--distribution");
        add(self.precision.is_some(), "--precision");
        add(self.point_time.is_some(), "--point-time");
        add(self.max_regions.is_some(), "--max-regions");
        add(self.engine.engine.is_some(), "--engine");
        add(self.engine.direct, "--direct");
        add(self.depth.iodepth != 1, "--iodepth");
        add(
            !self.depth.queue().is_default(),
            "--iodepth-batch and the queued engine's flags",
        );
        add(self.sync.fsync != FsyncPolicy::Never, "--fsync");
        add(self.sync.fdatasync, "--fdatasync");
        v
    }
}

/// Baselines: `NAME=MB/s`; an iogauge result JSON (its benchmark name and
/// reads + writes per second); or a survey JSON (each entry that moved
/// data, under its scorecard name).
fn baseline(s: &str) -> Result<Vec<(String, f64)>> {
    if let Some((name, v)) = s.split_once('=')
        && !Path::new(s).exists()
    {
        let mb: f64 = v.trim().parse().map_err(|_| {
            UsageError::new(format!("--baseline {s}: '{v}' is not a number of MB/s"))
        })?;
        if !(mb.is_finite() && mb > 0.0) {
            crate::usage!("--baseline {s}: the throughput must be positive");
        }
        return Ok(vec![(name.trim().to_string(), mb)]);
    }
    let text =
        std::fs::read_to_string(s).map_err(|e| UsageError::new(format!("--baseline {s}: {e}")))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| UsageError::new(format!("--baseline {s}: not JSON ({e})")))?;
    let mb = |r: &serde_json::Value| {
        let rd = r["summary"]["read_bytes_per_s"].as_f64()?;
        let wr = r["summary"]["write_bytes_per_s"].as_f64()?;
        (rd + wr > 0.0).then_some((rd + wr) / 1e6)
    };
    let out: Vec<(String, f64)> = match v["entries"].as_array() {
        Some(entries) => entries
            .iter()
            .filter(|e| !e["name"].as_str().unwrap_or("").starts_with("selfscale"))
            .filter_map(|e| Some((e["name"].as_str()?.to_string(), mb(&e["result"])?)))
            .collect(),
        None => mb(&v)
            .map(|x| (v["benchmark"].as_str().unwrap_or("baseline").to_string(), x))
            .into_iter()
            .collect(),
    };
    if out.is_empty() {
        crate::usage!(
            "--baseline {s}: neither an iogauge result nor a survey with a throughput (summary.read_bytes_per_s)"
        );
    }
    Ok(out)
}

pub fn main(a: Args) -> Result<Status> {
    check_paths(&a)?;
    // the runs' messages name the directory as it was given
    crate::session::name_parent(&a.dir, &format!("DIR {}", crate::error::shown_path(&a.dir)));
    check_flags(&a)?;
    let mut baselines = Vec::new();
    for b in &a.baseline {
        baselines.extend(baseline(b)?);
    }
    let progress = Progress::new(a.output.progress(), a.output.quiet);
    // stderr: stdout carries the summary (or the JSON)
    let say_err = |s: &str| progress.line(s);
    // The set-up lines go to stderr as the run begins (through the
    // observer's notes); the summary that repeats them goes where the report
    // goes. Where both land on the same terminal or file, the summary leaves
    // them out, so that they are printed once.
    let shown_already = a.output.result_on_stdout() || same_file_out_err();
    let report = |text: &str, brief: &str| a.output.say(if shown_already { brief } else { text });
    let warnings = |r: &crate::report::RunResult| a.output.say(&crate::report::warn::render(r));

    // the model: loaded or built
    let (model, model_path) = match &a.model {
        Some(p) => {
            let flags = a.measurement_flags();
            if !flags.is_empty() {
                crate::usage!(
                    "{}: a validation measures with the settings of its model; drop {}",
                    flags.join(", "),
                    if flags.len() == 1 { "it" } else { "them" }
                );
            }
            (Model::load(p)?, p.clone())
        }
        None => {
            let setup = selfscale::choose(&a.options()?)?;
            let out = selfscale::make_out_dir(a.out.as_deref(), "selfscale")?;
            say_err(&format!(
                "iogauge selfscale: writing into {}",
                out.display()
            ));
            let built = selfscale::run(&setup, &out, &progress)?;
            if a.validate.is_none() {
                drop(progress);
                report(&built.text, &built.brief);
                warnings(&built.result);
                a.output.write(&built.result)?;
                return finish(built.error, built.model.complete);
            }
            report(&built.text, &built.brief);
            warnings(&built.result);
            let st = status_of(&built.error, built.model.complete);
            if let Some(e) = &built.error {
                eprintln!("iogauge: {}", crate::error::cause(e));
            }
            if st != Status::Done || !built.model.usable() {
                drop(progress);
                a.output.write(&built.result)?;
                if st == Status::Done {
                    crate::usage!("the model has no measured region to validate");
                }
                return Ok(st);
            }
            (built.model, out.join("model.json"))
        }
    };

    validate(&a, &model, model_path, baselines, progress, &report)
}

/// Refuse input files that cannot be read and output files that cannot be
/// written, before any work.
fn check_paths(a: &Args) -> Result<()> {
    let mut paths = common::Paths::new();
    if let Some(m) = &a.model {
        paths.input(format!("--model {}", m.display()), m);
    }
    for b in a.baseline.iter().filter(|b| Path::new(b).is_file()) {
        paths.input(format!("--baseline {b}"), Path::new(b));
    }
    if let (Some(o), None) = (&a.out, &a.model) {
        for f in selfscale::MODEL_FILES {
            let p = o.join(f);
            paths.output(format!("--out {}", p.display()), &p);
        }
    }
    a.output.check_with(&mut paths)
}

/// Refuse the flags that only make sense with `--validate`.
fn check_flags(a: &Args) -> Result<()> {
    if a.refine.is_some() && a.validate.is_none() {
        crate::usage!(
            "--refine needs --validate N (the corrections are chosen from the validation's errors)"
        );
    }
    if a.model.is_some() && a.validate.is_none() {
        crate::usage!(
            "--model is for --validate; to predict workloads from a model use 'iogauge predict MODEL.json'"
        );
    }
    if !a.baseline.is_empty() && a.validate.is_none() {
        crate::usage!("--baseline is for --validate (it is drawn on the scatter plot)");
    }
    Ok(())
}

/// Validate `model` (saved at `model_path`) as `a` asks, against
/// `baselines`; `report` prints the report. The status of the whole run.
fn validate(
    a: &Args,
    model: &Model,
    model_path: PathBuf,
    baselines: Vec<(String, f64)>,
    progress: Progress,
    report: &dyn Fn(&str, &str),
) -> Result<Status> {
    let out = match (&a.model, &a.out) {
        (None, _) => crate::runner::names::dir_of(&model_path).to_path_buf(),
        (Some(_), o) => selfscale::make_out_dir(o.as_deref(), "selfscale-validate")?,
    };
    let vo = ValidateOptions {
        dir: a.dir.clone(),
        n: a.validate.unwrap_or(0),
        seed: a.seed,
        refine: a.refine.unwrap_or(0),
        baselines,
        model_path,
    };
    progress.line(&format!(
        "iogauge selfscale --validate: writing into {}",
        out.display()
    ));
    let v = selfscale::validate_model(model, &vo, &out, &progress)?;
    drop(progress);
    report(&v.text, &v.brief);
    a.output.write(&v.result)?;
    if let Some(e) = &v.error {
        eprintln!("iogauge: {}", crate::error::cause(e));
    }
    let status = status_of(&v.error, v.complete);
    if status == Status::Interrupted {
        eprintln!("iogauge: interrupted; the partial results were written");
    }
    Ok(status)
}

/// Whether stdout and stderr are the same terminal or file (`2>&1`, or a
/// terminal for both).
fn same_file_out_err() -> bool {
    match (
        rustix::fs::fstat(std::io::stdout()),
        rustix::fs::fstat(std::io::stderr()),
    ) {
        (Ok(o), Ok(e)) => o.st_dev == e.st_dev && o.st_ino == e.st_ino,
        _ => false,
    }
}

fn status_of(error: &Option<anyhow::Error>, complete: bool) -> Status {
    if error.is_some() {
        Status::Failed
    } else if !complete {
        if signals::interrupted() {
            Status::Interrupted
        } else {
            Status::Failed
        }
    } else {
        Status::Done
    }
}

fn finish(error: Option<anyhow::Error>, complete: bool) -> Result<Status> {
    let st = status_of(&error, complete);
    if let Some(e) = error {
        eprintln!("iogauge: {}", crate::error::cause(&e));
    } else if st == Status::Interrupted {
        eprintln!("iogauge: interrupted; the partial model was written (\"complete\": false)");
    }
    Ok(st)
}

// ------------------------------------------------------------------ predict

/// Predict the throughput of workloads from a self-scaling model, as the
/// product of its single-parameter curves (the paper's shape-independence
/// assumption): the region is chosen by uniqueBytes, each curve is
/// interpolated (on a log scale for sizes and counts), and the ratios to the
/// focal point are multiplied.
#[derive(clap::Args, Debug)]
pub struct PredictArgs {
    /// The model file that 'iogauge selfscale' wrote (model.json).
    #[arg(value_name = "MODEL.json")]
    pub model: PathBuf,
    /// A workload, e.g. uniqueBytes=64M,sizeMean=20K,readFrac=0.5,seqFrac=0.5,processNum=1 (a parameter left out takes its region's focal value; without uniqueBytes, the region is the one the model's uniqueBytes sweep ran at). Repeatable.
    #[arg(long, value_name = "SPEC")]
    pub workload: Vec<String>,
    /// Workloads from a CSV file: a header naming the parameters (uniqueBytes,sizeMean,...), then one workload a line (parameters left out as for --workload).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// The random-offset distribution of the workloads (default random, uniform): a model predicts only workloads of the distribution it was measured with (selfscale --distribution), and any other is refused.
    #[arg(long, value_name = "SPEC", value_parser = crate::workload::dist::parse)]
    pub distribution: Option<crate::workload::dist::Dist>,
    #[command(flatten)]
    pub out: common::JsonArgs,
}

/// A workload as given: the parameters named, the others unset.
type Partial = [Option<f64>; 5];

fn index(p: Param) -> usize {
    Param::ALL.iter().position(|&q| q == p).unwrap_or(0)
}

/// Parse one value of parameter `p`.
fn value(p: Param, s: &str) -> Result<f64, String> {
    match p {
        Param::UniqueBytes | Param::SizeMean => {
            let v = common::size_arg(s)?;
            if v == 0 {
                return Err(format!("{} must be positive", p.name()));
            }
            Ok(v as f64)
        }
        Param::ReadFrac | Param::SeqFrac => common::fraction_arg(s),
        Param::ProcessNum => match s.trim().parse::<u32>() {
            Ok(n) if n >= 1 => Ok(n as f64),
            _ => Err(format!("'{s}' is not a process count (a whole number ≥ 1)")),
        },
    }
}

/// `uniqueBytes=64M,sizeMean=20K,...`
pub fn parse_workload(s: &str) -> Result<Partial, String> {
    let mut w: Partial = [None; 5];
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| format!("'{part}' is not NAME=VALUE"))?;
        let p = Param::parse(k).ok_or_else(|| {
            format!(
                "unknown parameter '{k}': use uniqueBytes, sizeMean, readFrac, seqFrac, processNum"
            )
        })?;
        if w[index(p)].is_some() {
            return Err(format!("{} is given twice", p.name()));
        }
        w[index(p)] = Some(value(p, v)?);
    }
    if w.iter().all(Option::is_none) {
        return Err("no parameter given: name at least one, as NAME=VALUE".into());
    }
    Ok(w)
}

/// The workloads of a CSV file; errors name the file and line.
pub fn parse_csv(path: &Path, text: &str) -> Result<Vec<Partial>, String> {
    let mut header: Option<Vec<Param>> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = |m: String| format!("{}:{}: {m}", path.display(), i + 1);
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = l.split(',').map(str::trim).collect();
        match &header {
            None => {
                let mut h = Vec::new();
                for c in &cells {
                    let p = Param::parse(c).ok_or_else(|| {
                        at(format!(
                            "unknown column '{c}': the header names the parameters (uniqueBytes, sizeMean, readFrac, seqFrac, processNum)"
                        ))
                    })?;
                    if h.contains(&p) {
                        return Err(at(format!("{} is named twice", p.name())));
                    }
                    h.push(p);
                }
                header = Some(h);
            }
            Some(h) => {
                if cells.len() != h.len() {
                    return Err(at(format!(
                        "{} values for {} columns",
                        cells.len(),
                        h.len()
                    )));
                }
                let mut w: Partial = [None; 5];
                for (p, c) in h.iter().zip(&cells) {
                    w[index(*p)] = Some(value(*p, c).map_err(at)?);
                }
                out.push(w);
            }
        }
    }
    if out.is_empty() {
        return Err(format!("{}: no workloads", path.display()));
    }
    Ok(out)
}

/// Fill what a workload leaves out with its region's focal values; the
/// region is uniqueBytes's, or without it the one of the model's sweep
/// point (the workload its uniqueBytes sweep held the others at).
fn complete(m: &Model, w: &Partial) -> Workload {
    let u = w[index(Param::UniqueBytes)].map_or(m.sweep.fixed.unique_bytes, |u| u as u64);
    let focal = m
        .region_index(u)
        .map(|i| m.regions[i].focal)
        .unwrap_or(m.sweep.fixed);
    let mut out = focal;
    for p in Param::ALL {
        if let Some(v) = w[index(p)] {
            out = p.with(&out, v);
        }
    }
    out
}

#[derive(serde::Serialize)]
struct Predicted {
    workload: Workload,
    region: usize,
    predicted_mb_per_s: f64,
    predicted_iops: f64,
    /// The parameters outside the model's measured ranges (see
    /// [`crate::selfscale::model::Ranges::extrapolations`]); empty when
    /// the prediction interpolates.
    warnings: Vec<String>,
    /// The median and 75th-percentile relative error of the model's own
    /// validation (null when it was not validated).
    expected_median_error: Option<f64>,
    expected_p75_error: Option<f64>,
}

pub fn predict_main(a: PredictArgs) -> Result<Status> {
    let mut paths = common::Paths::new();
    paths.input(format!("the model {}", a.model.display()), &a.model);
    if let Some(c) = &a.csv {
        paths.input(format!("--csv {}", c.display()), c);
    }
    a.out.check_with(&mut paths)?;
    let model = Model::load(&a.model)?;
    same_skew(&model, a.distribution.clone().unwrap_or_default())?;
    let partials = workloads(&a)?;
    let out = predictions(&model, &partials)?;
    // on stderr, where --json - leaves the text too; --quiet keeps them
    // in the JSON only
    if !a.out.quiet {
        for (i, p) in out.iter().enumerate() {
            for w in &p.warnings {
                if out.len() == 1 {
                    eprintln!("iogauge: warning: {w}");
                } else {
                    eprintln!("iogauge: warning: workload {}: {w}", i + 1);
                }
            }
        }
    }
    a.out.say(&prediction_text(&a.model, &model, &out));
    a.out.write(&out)?;
    Ok(Status::Done)
}

/// A model measured with one random-offset distribution (`selfscale
/// --distribution`) says nothing of workloads of another: refuse the mix.
fn same_skew(model: &Model, asked: crate::workload::dist::Dist) -> Result<()> {
    let measured = &model.settings.distribution;
    if *measured != asked {
        crate::usage!(
            "the model was measured with random offsets {measured}, the workloads asked for have {asked}; a model predicts only its own distribution (give predict --distribution {measured}, or measure a model with selfscale --distribution {asked})"
        );
    }
    Ok(())
}

/// The workloads `--workload` and `--csv` name, as given (what they leave
/// out is filled in later); at least one.
fn workloads(a: &PredictArgs) -> Result<Vec<Partial>> {
    let mut partials = Vec::new();
    for s in &a.workload {
        partials
            .push(parse_workload(s).map_err(|e| UsageError::new(format!("--workload {s}: {e}")))?);
    }
    if let Some(p) = &a.csv {
        let text = std::fs::read_to_string(p)
            .map_err(|e| UsageError::new(format!("--csv {}: {e}", p.display())))?;
        partials.extend(parse_csv(p, &text).map_err(UsageError)?);
    }
    if partials.is_empty() {
        crate::usage!("name at least one workload with --workload or --csv");
    }
    Ok(partials)
}

/// Each workload completed with its region's focal values and predicted by
/// `model`.
fn predictions(model: &Model, partials: &[Partial]) -> Result<Vec<Predicted>> {
    let mut out = Vec::new();
    for w in partials {
        let w = complete(model, w);
        let p = model.prediction(&w).map_err(UsageError)?;
        out.push(Predicted {
            workload: w,
            region: p.region,
            predicted_mb_per_s: p.mb_per_s,
            predicted_iops: p.iops,
            warnings: model.ranges.extrapolations(&w),
            expected_median_error: model.validation.as_ref().map(|v| v.median_error),
            expected_p75_error: model.validation.as_ref().map(|v| v.p75_error),
        });
    }
    Ok(out)
}

/// The predictions as a table, under where the model (`path`) was measured
/// and over the error its validation expects.
fn prediction_text(path: &Path, model: &Model, out: &[Predicted]) -> String {
    let mut text = format!(
        "predicted by {} ({} on {}, measured {}{}):\n{:>12} {:>9} {:>8} {:>7} {:>10} {:>6} {:>12} {:>12}\n",
        path.display(),
        model.environment.fs_type,
        model.settings.dir,
        model.started_at,
        if model.complete {
            String::new()
        } else {
            "; an INCOMPLETE model".to_string()
        } + &if model.settings.distribution.is_random() {
            String::new()
        } else {
            format!("; random offsets {}", model.settings.distribution)
        },
        "uniqueBytes",
        "sizeMean",
        "readFrac",
        "seqFrac",
        "processNum",
        "region",
        "MB/s",
        "IO/s"
    );
    for p in out {
        let w = &p.workload;
        text += &format!(
            "{:>12} {:>9} {:>8} {:>7} {:>10} {:>6} {:>12.2} {:>12.0}\n",
            short_bytes(w.unique_bytes),
            short_bytes(w.size_mean),
            w.read_frac,
            w.seq_frac,
            w.process_num,
            p.region,
            p.predicted_mb_per_s,
            p.predicted_iops
        );
    }
    text += &match &model.validation {
        Some(v) => format!(
            "expected error: median {:.1} %, 75th percentile {:.1} % (the model's validation on {} random workloads{}; the machine's own repeatability {:.1} %){}\n",
            v.median_error * 100.0,
            v.p75_error * 100.0,
            v.workloads,
            if v.refined { ", after --refine" } else { "" },
            v.repeatability_error * 100.0,
            if out.iter().any(|p| !p.warnings.is_empty()) {
                "; more where a workload extrapolates"
            } else {
                ""
            }
        ),
        None => "expected error: unknown (the model was not validated: iogauge selfscale --validate N measures it)\n".to_string(),
    };
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workload_specs() {
        let w =
            parse_workload("uniqueBytes=64M, sizeMean=20K,readFrac=0.25,seq-frac=1,processNum=3")
                .unwrap();
        assert_eq!(
            w,
            [
                Some(64.0 * 1048576.0),
                Some(20480.0),
                Some(0.25),
                Some(1.0),
                Some(3.0)
            ]
        );
        // a left-out uniqueBytes takes the sweep's region (predict_main)
        assert_eq!(
            parse_workload("sizeMean=4K"),
            Ok([None, Some(4096.0), None, None, None])
        );
        assert!(parse_workload(",").unwrap_err().contains("no parameter"));
        assert!(parse_workload("uniqueBytes=1M,readFrac=2").is_err());
        assert!(
            parse_workload("uniqueBytes=1M,color=red")
                .unwrap_err()
                .contains("unknown")
        );
        assert!(
            parse_workload("uniqueBytes=1M,uniqueBytes=2M")
                .unwrap_err()
                .contains("twice")
        );
        assert!(parse_workload("uniqueBytes=1M,processNum=0").is_err());
    }

    #[test]
    fn csv_errors_name_the_line() {
        let p = Path::new("w.csv");
        let ok = parse_csv(p, "# workloads\nuniqueBytes,processNum\n64M,2\n\n1G,1\n").unwrap();
        assert_eq!(ok.len(), 2);
        let e = parse_csv(p, "uniqueBytes,readFrac\n64M,0.5\n1G,7\n").unwrap_err();
        assert!(e.starts_with("w.csv:3:"), "{e}");
        let e = parse_csv(p, "uniqueBytes,bogus\n").unwrap_err();
        assert!(e.starts_with("w.csv:1:"), "{e}");
        assert!(
            parse_csv(p, "uniqueBytes\n")
                .unwrap_err()
                .contains("no workloads")
        );
    }

    #[test]
    fn memory_limits() {
        assert_eq!(memory_limit_arg("off"), Ok(MemoryLimit::Off));
        assert_eq!(memory_limit_arg("1G"), Ok(MemoryLimit::Bytes(1 << 30)));
        assert_eq!(
            memory_limit_arg("lots").unwrap_err(),
            "'lots' is not a size (like 512M or 2G), off (no bound) or auto"
        );
    }

    #[test]
    fn counts_name_their_range() {
        assert_eq!(regions_arg("3"), Ok(3));
        assert_eq!(
            regions_arg("7").unwrap_err(),
            "'7' is not a whole number from 1 to 6"
        );
        assert!(validate_arg("0").unwrap_err().contains("from 1 to 10000"));
        assert_eq!(refine_arg("0"), Ok(0));
        assert!(refine_arg("x").unwrap_err().contains("from 0 to 1000"));
        assert!(seed_arg("-1").is_err());
        assert_eq!(size_cv_arg("0"), Ok(0.0));
        assert!(size_cv_arg("-1").unwrap_err().contains("≥ 0"));
    }
}
