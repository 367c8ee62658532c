//! `iogauge iobench`: IOBENCH (Wolman & Olson 1989). Its users run as the
//! runner's worker processes (or threads with `--threads`).

use super::common::{self, EngineArgs, OutputArgs, Status};
use super::progress;
use crate::engine::Choice;
use crate::error::UsageError;
use crate::report::{Collection, Entry, RunResult};
use crate::suites::iobench::config::{self, Assignment};
use crate::suites::iobench::{self, Config, Metering, Mode, RunSpec, report};
use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// IOBENCH: U users do as many transactions as they can for M minutes on F
/// files of N records of B bytes, under a lock manager with L locks per
/// file; a transaction is R reads (the last W followed by a write of the
/// same record) with CP units of CPU work. Parameters come from the control
/// file, else the environment (USERS=…), else the defaults (USERS=4 FILES=4
/// NRECS=1024 RECLEN=2048 READS=1 WRITES=1 LOCKS=1000 SLEEP=0 START=0 END=1
/// DURATION=1 WORK=0). Writes the results file (Figure 1 of the paper) and
/// prints a summary.
#[derive(clap::Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct Args {
    /// Control file: free-form 'KEYWORD = value;' assignments; '@path' continues from another file.
    #[arg(value_name = "CONTROL")]
    pub control: Option<PathBuf>,
    /// The results file (the paper's layout).
    #[arg(
        short = 'o',
        long = "output",
        default_value = "iobench.results",
        value_name = "FILE"
    )]
    pub output: PathBuf,
    /// Append the tab-delimited summary line (one per run) to FILE.
    #[arg(short = 's', long = "summary", value_name = "FILE")]
    pub summary: Option<PathBuf>,
    /// Add the response-time distribution table to the results file.
    #[arg(short = 't', long = "table")]
    pub table: bool,
    /// Run a metering command in the background for the whole run (e.g. 'vmstat 1'); its output goes to the usage file.
    #[arg(short = 'u', long = "usage", value_name = "COMMAND")]
    pub usage: Option<String>,
    /// The usage file for -u (default: the results file with the extension .usage).
    #[arg(long, value_name = "FILE")]
    pub usage_file: Option<PathBuf>,
    /// Run for this long instead of DURATION minutes (e.g. 20s, 2m; a plain number is seconds).
    #[arg(long, value_name = "TIME", value_parser = common::duration_arg, allow_hyphen_values = true)]
    pub duration: Option<Duration>,
    /// Users are threads of one process (default: one process per user, as IOBENCH).
    #[arg(long)]
    pub threads: bool,
    /// Run the cross product of the items, first slowest: KEY=v1,v2,... lists and spectrum files (one run per line, e.g. examples/iobench/paper.spectrum). One summary line per run, and the paper's figures.
    #[arg(long, num_args = 1.., value_name = "ITEM")]
    pub spectrum: Vec<String>,
    /// Draw the figures of finished spectra (their --json files; several overlay as series), running nothing.
    #[arg(long, num_args = 1.., value_name = "SPECTRUM.json")]
    pub chart: Vec<PathBuf>,
    /// Where the spectrum's figures go (SVG: iobench-profile.svg and iobench-results*.svg; created if missing).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
    /// Take no parameter from the environment (only the control file and the defaults).
    #[arg(long)]
    pub ignore_env: bool,
    /// Seed of the users' choices of file and record (user k draws stream k).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    /// Parent of the run's work directory (created and removed by the run), where the files go: FILE0... by default, and a FILEk name is a file in it.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    /// Let an absolute FILEk make a new file at that path, outside the work directory (removed at the end).
    #[arg(long)]
    pub allow_outside: bool,
    /// Let an absolute FILEk (with --allow-outside) name a regular file that exists: it is used as it is, its records rewritten with the bytes just read, never grown, truncated or removed.
    #[arg(long, requires = "allow_outside")]
    pub allow_existing: bool,
    /// Variant 1: locking in the ioserver, a process that owns the lock table and serves the users' lock requests over System V message queues.
    #[arg(long)]
    pub server: bool,
    /// Check the lock manager: record each lock's holder beside it and count overlaps (metrics.lock_violations).
    #[arg(long, hide = true)]
    pub verify_locks: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub check: common::CheckArgs,
}

common::cmd!(out, {
    const DEFAULT_ENGINE: Option<&'static str> = Some("sync");
});

fn check_parent(flag: &str, p: &Path) -> Result<()> {
    common::check_output(flag, p)
}

impl Args {
    fn plot_dir(&self) -> PathBuf {
        self.plot.clone().unwrap_or_else(|| PathBuf::from("."))
    }

    fn usage_file(&self) -> PathBuf {
        self.usage_file
            .clone()
            .unwrap_or_else(|| self.output.with_extension("usage"))
    }

    fn check(&self) -> Result<()> {
        self.engine.check(Choice::SYNC)?;
        if self.usage_file.is_some() && self.usage.is_none() {
            crate::usage!(
                "--usage-file names where -u's metering output goes; give -u COMMAND too"
            );
        }
        if !self.chart.is_empty() {
            let what = [
                (self.control.is_some(), "a control file"),
                (!self.spectrum.is_empty(), "--spectrum"),
                (self.out.any(), "--json or --csv"),
                (self.summary.is_some(), "-s"),
                (self.usage.is_some(), "-u"),
            ];
            if let Some((_, w)) = what.iter().find(|(given, _)| *given) {
                crate::usage!(
                    "--chart draws finished spectra and runs nothing, so it takes no {w}; run the spectrum first (--spectrum ... --json FILE), then --chart FILE"
                );
            }
        }
        if self.plot.is_some() && self.chart.is_empty() && self.spectrum.is_empty() {
            crate::usage!(
                "--plot names where a spectrum's figures go; give --spectrum or --chart too"
            );
        }
        if let Some(p) = &self.plot
            && p.exists()
            && !p.is_dir()
        {
            crate::usage!("--plot {}: not a directory", p.display());
        }
        check_parent("-o", &self.output)?;
        if let Some(s) = &self.summary {
            check_parent("-s", s)?;
        }
        if self.usage.is_some() {
            check_parent("--usage-file", &self.usage_file())?;
        }
        if self.duration.is_some_and(|d| d.is_zero()) {
            crate::usage!("--duration must be longer than 0");
        }
        Ok(())
    }

    fn spec(&self, config: Config) -> RunSpec {
        RunSpec {
            config,
            engine: self.engine.choice(Choice::SYNC),
            direct: self.engine.direct,
            mode: if self.threads {
                Mode::Threads
            } else {
                Mode::Processes
            },
            duration: self.duration,
            dir: self.dir.clone(),
            seed: self.seed,
            verify_locks: self.verify_locks,
            server: self.server,
            allow_outside: self.allow_outside,
            allow_existing: self.allow_existing,
            metering: self.usage.as_ref().map(|c| Metering {
                command: c.clone(),
                file: self.usage_file(),
            }),
        }
    }

    /// Every file the command reads or writes besides its data files,
    /// checked together with --json and --csv: the control file and the
    /// files it switches to (`control`), spectrum files, charts, the
    /// results, summary and usage files, the figures.
    fn paths(&self, control: &[Assignment]) -> common::Paths {
        let mut paths = common::Paths::new();
        let mut inputs: Vec<PathBuf> = self.control.iter().cloned().collect();
        for a in control {
            if let config::Origin::File(f, _) = &a.origin
                && !inputs.contains(f)
            {
                inputs.push(f.clone());
            }
        }
        for p in &inputs {
            paths.input(format!("the control file {}", p.display()), p);
        }
        for s in self.spectrum.iter().filter(|s| Path::new(s).exists()) {
            paths.input(format!("the spectrum file {s}"), Path::new(s));
        }
        for c in &self.chart {
            paths.input(format!("--chart {}", c.display()), c);
        }
        if self.chart.is_empty() {
            paths.output(format!("-o {}", self.output.display()), &self.output);
        }
        if let Some(s) = &self.summary {
            paths.output(format!("-s {}", s.display()), s);
        }
        if self.usage.is_some() {
            let u = self.usage_file();
            paths.output(format!("the usage file {}", u.display()), &u);
        }
        if !self.chart.is_empty() || !self.spectrum.is_empty() {
            for name in ["iobench-profile.svg", "iobench-results.svg"] {
                let f = self.plot_dir().join(name);
                paths.output(format!("the figure {}", f.display()), &f);
            }
        }
        paths
    }

    /// [`Args::paths`] and the data files named outside the work
    /// directory (which the run writes), checked with the result files.
    fn check_paths(&self, control: &[Assignment], data: &[(String, PathBuf)]) -> Result<()> {
        let mut paths = self.paths(control);
        for (what, p) in data {
            paths.output(what.clone(), p);
        }
        self.out.check_with(&mut paths)
    }

    fn name(&self) -> String {
        self.control
            .as_ref()
            .map_or_else(|| "iobench".to_string(), |p| p.display().to_string())
    }
}

/// One run: execute, then the results text, summary line and JSON result.
struct Done {
    result: RunResult,
    results_text: String,
    summary_line: String,
    mb: f64,
}

fn one(a: &Args, cfg: Config) -> Result<Done> {
    let spec = a.spec(cfg);
    let run = progress::with_bar(
        "iobench",
        Some(spec.duration()),
        None,
        a.out.progress(),
        |p| iobench::execute(&spec, p),
    )?;
    let figures = iobench::figures_of(&run);
    let result = iobench::result_of(&run, &figures, Some(&a.output));
    let name = a.name();
    let opts = report::TextOpts {
        name: &name,
        summary_file: a.summary.as_deref(),
        table: a.table,
    };
    Ok(Done {
        results_text: report::results_file(&run, &figures, &result, &opts),
        summary_line: report::summary_line(&spec.config, &figures),
        mb: figures.mb_processed,
        result,
    })
}

fn append_summary(a: &Args, line: &str) -> Result<()> {
    if let Some(p) = &a.summary {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .with_context(|| format!("cannot open the summary file {}", p.display()))?;
        writeln!(f, "{line}").with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(())
}

pub fn main(a: Args) -> Result<Status> {
    a.check()?;
    if !a.chart.is_empty() {
        a.check_paths(&[], &[])?;
        return chart(&a);
    }
    let control = match &a.control {
        Some(p) => config::parse_control(p).map_err(UsageError)?,
        None => Vec::new(),
    };
    // the data files outside the work directory, as FILEk names them
    let data: Vec<(String, PathBuf)> = control
        .iter()
        .filter(|x| x.key.starts_with("FILE") && x.key != "FILES")
        .filter(|x| Path::new(&x.value).is_absolute())
        .map(|x| {
            (
                format!("{}: {} = {}", x.origin, x.key, x.value),
                PathBuf::from(&x.value),
            )
        })
        .collect();
    a.check_paths(&control, &data)?;
    let env: &dyn Fn(&str) -> Option<String> = if a.ignore_env {
        &|_| None
    } else {
        &config::real_env
    };
    if !a.spectrum.is_empty() {
        return spectrum(&a, &control, env);
    }
    let cfg = config::resolve(&control, env, &[]).map_err(UsageError)?;
    if let Some(s) = a.check.done(&a.name()) {
        return Ok(s);
    }
    let d = one(&a, cfg)?;
    crate::report::export::write_file(&a.output, d.results_text.as_bytes())
        .with_context(|| format!("cannot write the results file {}", a.output.display()))?;
    append_summary(&a, &d.summary_line)?;
    common::finish_with::<iobench::IoBench>(&a.out, &d.result)
}

fn spectrum(
    a: &Args,
    control: &[Assignment],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Status> {
    let items = a
        .spectrum
        .iter()
        .map(|s| config::spectrum_item(s))
        .collect::<Result<Vec<_>, _>>()
        .map_err(UsageError)?;
    let combos = config::cross_product(&items);
    // refuse a bad combination (WRITES > READS, ...) before anything runs
    let cfgs = combos
        .iter()
        .map(|o| config::check_run(o).and_then(|_| config::resolve(control, env, o)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(UsageError)?;
    if let Some(s) = a
        .check
        .done(&format!("{}, a spectrum of {} runs", a.name(), cfgs.len()))
    {
        return Ok(s);
    }
    let mut collection = Collection::new("iogauge/iobench-spectrum/v1", Vec::new());
    collection.set("spectrum", &a.spectrum);
    std::fs::write(&a.output, "")
        .with_context(|| format!("cannot write the results file {}", a.output.display()))?;
    a.out.say(&format!(
        "IOBENCH spectrum: {} runs\nRUN\t{}\n",
        cfgs.len(),
        report::SUMMARY_HEADER
    ));
    let mut status = Status::Done;
    for (i, (cfg, combo)) in cfgs.into_iter().zip(&combos).enumerate() {
        let label = label_of(combo);
        let d = match one(a, cfg) {
            Ok(d) => d,
            // the first run refused (bad usage): nothing ran
            Err(e) if collection.entries.is_empty() && crate::error::is_usage(&e) => return Err(e),
            // a run that could not start (out of space, an I/O error in
            // its set-up) ends the spectrum: its entry says why
            Err(e) => {
                let cause = crate::error::cause(&e);
                eprintln!("iogauge: spectrum run {} ({label}) failed: {cause}", i + 1);
                let r =
                    super::survey::failed_result("iobench", cause, || crate::env::detect(&a.dir));
                collection.push(Entry::new(label, r));
                status = Status::Failed;
                break;
            }
        };
        let head = format!("##### spectrum run {} of {}: {label}", i + 1, combos.len());
        append_results(a, &head, &d)?;
        a.out.say(&format!("{}\t{}\n", i + 1, d.summary_line));
        if let Some(e) = &d.result.error {
            eprintln!("iogauge: spectrum run {} ({label}) failed: {e}", i + 1);
            status = Status::Failed;
        }
        let interrupted = !d.result.complete && d.result.error.is_none();
        collection.push(Entry {
            name: label,
            figure: Some(d.mb),
            unit: Some("MB".into()),
            note: None,
            result: d.result,
        });
        // each run is written as it ends: a later failure loses nothing
        a.out.write_files(&collection)?;
        if interrupted {
            status = Status::Interrupted;
            break;
        }
    }
    collection.complete = status == Status::Done;
    a.out.write(&collection)?;
    let mut text = format!("Results written to {}\n", a.output.display());
    text += &spectrum_figures(a, &collection)?;
    a.out.say(&text);
    if status == Status::Interrupted {
        common::interrupted_line(true);
    }
    Ok(status)
}

/// One spectrum run's section of the results file, under `head`, and its
/// summary line.
fn append_results(a: &Args, head: &str, d: &Done) -> Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&a.output)
        .with_context(|| format!("cannot write the results file {}", a.output.display()))?;
    write!(f, "{head}\n{}\n", d.results_text)
        .with_context(|| format!("cannot write the results file {}", a.output.display()))?;
    append_summary(a, &d.summary_line)
}

/// The spectrum's figures, named after its --json file, when a run
/// completed; the line that says where they went (or why there are none).
fn spectrum_figures(a: &Args, collection: &Collection) -> Result<String> {
    if !collection.entries.iter().any(|e| e.result.complete) {
        return Ok("No figures: no run completed.\n".into());
    }
    let name = a
        .out
        .json
        .as_deref()
        .filter(|p| p.as_os_str() != "-")
        .and_then(Path::file_stem)
        .map_or_else(
            || "spectrum".to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
    let doc = serde_json::to_value(collection).context("cannot serialise the spectrum")?;
    let series = iobench::series_of(&name, &doc).map_err(anyhow::Error::msg)?;
    write_figures(&a.plot_dir(), &[series])
}

/// `--chart`: the figures of finished spectra, read from their JSON.
fn chart(a: &Args) -> Result<Status> {
    let mut series = Vec::new();
    for path in &a.chart {
        let shown = path.display();
        let how = "--chart reads what --spectrum ... --json FILE writes";
        let text = std::fs::read_to_string(path)
            .map_err(|e| UsageError(format!("--chart {shown}: cannot read it: {e} ({how})")))?;
        let doc: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| UsageError(format!("--chart {shown}: not JSON: {e} ({how})")))?;
        let stem = path
            .file_stem()
            .map_or_else(|| shown.to_string(), |s| s.to_string_lossy().into_owned());
        let s = iobench::series_of(&stem, &doc)
            .map_err(|e| UsageError(format!("--chart {shown}: {e}")))?;
        series.push(s);
    }
    // two files of the same name in different directories: their paths tell them apart
    let stems: Vec<String> = series.iter().map(|s| s.name.clone()).collect();
    for (s, path) in series.iter_mut().zip(&a.chart) {
        if stems.iter().filter(|n| **n == s.name).count() > 1 {
            s.name = path.display().to_string();
        }
    }
    iobench::same_runs(&series).map_err(|e| UsageError(format!("--chart: {e}")))?;
    let text = write_figures(&a.plot_dir(), &series)?;
    a.out.say(&text);
    Ok(Status::Done)
}

/// Draw the figures into `dir` (created if missing); the line that says
/// which files were written.
fn write_figures(dir: &Path, series: &[iobench::Series]) -> Result<String> {
    let figures = iobench::figures(series).map_err(anyhow::Error::msg)?;
    std::fs::create_dir_all(dir).with_context(|| {
        format!(
            "cannot create the directory {} for the figures",
            dir.display()
        )
    })?;
    let mut written = Vec::new();
    for f in figures {
        let path = if dir == Path::new(".") {
            PathBuf::from(&f.file_name)
        } else {
            dir.join(&f.file_name)
        };
        crate::report::export::write_file(&path, f.svg.as_bytes())
            .with_context(|| format!("cannot write the figure {}", path.display()))?;
        written.push(path.display().to_string());
    }
    Ok(format!("Figures written to {}\n", written.join(", ")))
}

/// A spectrum run's name: its parameters, `FILES=4 USERS=50`.
fn label_of(combo: &[config::Assignment]) -> String {
    combo
        .iter()
        .map(|x| format!("{}={}", x.key, x.value))
        .collect::<Vec<_>>()
        .join(" ")
}
