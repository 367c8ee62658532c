//! Flags shared by several commands, and how a finished run is presented.

use crate::engine::{Choice, EngineSpec, FsyncPolicy, QueueOpts, parse_fsync};
use crate::error::UsageError;
use crate::report::export::{self, Document};
use crate::report::{Collection, RunResult};
pub use crate::runner::names::Paths;
use crate::units;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// How a command ended, for the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Done,
    /// The run failed (I/O error, out of space) after writing what it had.
    Failed,
    /// Ctrl-C or SIGTERM, after cleaning up and writing the partial result.
    Interrupted,
    /// `--verify` found a unit that does not hold what was written (exit
    /// code 3), after writing the result.
    Mismatch,
}

#[derive(clap::Args, Debug, Clone, Default)]
pub struct OutputArgs {
    /// Write the result as JSON to PATH ('-' for stdout; the text report then goes to stderr).
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write the result as CSV to PATH ('-' for stdout): one row per op kind per run, with the headline figures (docs/measurement.md lists the columns).
    #[arg(long, value_name = "PATH")]
    pub csv: Option<PathBuf>,
    /// Write the result as fio's text report to PATH ('-' for stdout), one job per run (docs/fio-output.md).
    #[arg(long, value_name = "PATH")]
    pub fio: Option<PathBuf>,
    /// Write the result as fio's JSON (--output-format=json) to PATH ('-' for stdout), for fio's readers such as fio-plot (docs/fio-output.md).
    #[arg(long, value_name = "PATH")]
    pub fio_json: Option<PathBuf>,
    /// Print no report (errors still go to stderr; --json and --csv are still written).
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub repeat: RepeatArgs,
    #[command(flatten)]
    pub live: LiveArgs,
    #[command(flatten)]
    pub hist: LogHistArgs,
}

/// Repeat a benchmark to see its run-to-run spread (docs/measurement.md).
#[derive(clap::Args, Debug, Clone)]
pub struct RepeatArgs {
    /// Run the benchmark N times, each with its own seed (the given one, then one more each time), print each report and a summary (mean, standard deviation, 95 % interval, CV of each headline metric); --json/--csv get one document of every run and the summary.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10000), help_heading = "Repetitions")]
    pub repeat: Option<u32>,
    /// With --repeat: warn about each headline metric whose coefficient of variation (stddev/mean) passes PCT percent (default 5 %).
    #[arg(long, value_name = "PCT", default_value = "5", value_parser = percent_arg, requires = "repeat", help_heading = "Repetitions")]
    pub cv_warn: f64,
}

impl Default for RepeatArgs {
    fn default() -> Self {
        RepeatArgs {
            repeat: None,
            cv_warn: 5.0,
        }
    }
}

/// A percentage: `5`, `5%` or `0.5`; 0 or more.
pub fn percent_arg(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let t = t.strip_suffix('%').unwrap_or(t).trim();
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Ok(v) => Err(format!("must be a percentage of 0 or more, not {v}")),
        Err(_) => Err(format!("'{s}' is not a percentage (e.g. 5 or 5%)")),
    }
}

/// Live figures while a benchmark runs (docs/measurement.md, "Live status
/// lines" and "Steady state").
#[derive(clap::Args, Debug, Clone, Default)]
pub struct LiveArgs {
    /// Every TIME of each timed phase, print a JSON line of live figures on stdout (ops, bytes, and their rates over the interval); stdout then holds nothing but JSON lines: the report goes to stderr, and --json - writes the result as one last line.
    #[arg(long, value_name = "TIME", value_parser = duration_arg, help_heading = "Live figures")]
    pub status_interval: Option<Duration>,
    /// Stop each timed phase once its per-second IOPS or throughput is steady, with fio's criteria: iops:L, iops_slope:L, bw:L or bw_slope:L, L a percentage of the window's mean (10%) or absolute (ops/s, bytes/s such as 50M; per second for a slope).
    #[arg(long, value_name = "SPEC", value_parser = steady_arg, help_heading = "Live figures")]
    pub steady_state: Option<crate::measure::steady::Spec>,
    /// The rolling window judged by --steady-state, in whole seconds (at least 2). Default: 30s.
    #[arg(long, value_name = "TIME", value_parser = duration_arg, requires = "steady_state", help_heading = "Live figures")]
    pub steady_state_window: Option<Duration>,
    /// Seconds at the start of each timed phase that --steady-state does not look at (whole seconds). Default: 0.
    #[arg(long, value_name = "TIME", value_parser = duration_arg, requires = "steady_state", help_heading = "Live figures")]
    pub steady_state_ramp: Option<Duration>,
    /// With --steady-state: do not stop once steady; run to the end and report each time steady state is reached and left (the window's mean moved by more than the limit from the steady level).
    #[arg(long, requires = "steady_state", help_heading = "Live figures")]
    pub steady_state_hold: bool,
}

/// The steady-state window when none is given: 30 one-second samples, as
/// fio's own steady-state example uses (ss_dur=30s).
pub const STEADY_WINDOW: Duration = Duration::from_secs(30);

fn steady_arg(s: &str) -> Result<crate::measure::steady::Spec, String> {
    crate::measure::steady::Spec::parse(s)
}

/// `d` in whole seconds, for `flag`.
fn whole_seconds(flag: &str, d: Duration) -> Result<u32> {
    if d.subsec_nanos() != 0 || d.as_secs() > u64::from(u32::MAX) {
        crate::usage!(
            "{flag} {}: give whole seconds (steady state is sampled once a second)",
            humantime::format_duration(d)
        );
    }
    Ok(d.as_secs() as u32)
}

impl LiveArgs {
    /// Check the flags and make them every timed phase's (`benchmark`
    /// names the status lines).
    pub fn apply(&self, benchmark: &'static str, out: &OutputArgs) -> Result<()> {
        if self.status_interval.is_none() && self.steady_state.is_none() {
            return Ok(());
        }
        // their measurements are not the runner's timed phases (selfscale
        // times its own), or are many benchmarks' (survey)
        if ["selfscale", "survey"].contains(&benchmark) {
            crate::usage!(
                "--status-interval and --steady-state are not available in '{benchmark}'"
            );
        }
        if let Some(t) = self.status_interval
            && t < Duration::from_millis(10)
        {
            crate::usage!("--status-interval must be at least 10ms");
        }
        let stdout = Some(Path::new("-"));
        for (flag, p) in [
            ("--csv", &out.csv),
            ("--fio", &out.fio),
            ("--fio-json", &out.fio_json),
        ] {
            if self.status_interval.is_some() && p.as_deref() == stdout {
                crate::usage!(
                    "{flag} - cannot share stdout with --status-interval's JSON lines; write it to a file"
                );
            }
        }
        if crate::cluster::launched_ranks().is_some_and(|n| n > 1) {
            crate::usage!(
                "--status-interval and --steady-state do not run under mpirun yet (each rank sees only its own counts)"
            );
        }
        let steady = match self.steady_state {
            Some(spec) => {
                let window = self.steady_state_window.unwrap_or(STEADY_WINDOW);
                let window_s = whole_seconds("--steady-state-window", window)?;
                if window_s < 2 {
                    crate::usage!("--steady-state-window must be at least 2s (two samples)");
                }
                let ramp_s = match self.steady_state_ramp {
                    Some(r) => whole_seconds("--steady-state-ramp", r)?,
                    None => 0,
                };
                Some(crate::measure::steady::Settings {
                    spec,
                    window_s,
                    ramp_s,
                    hold: self.steady_state_hold,
                })
            }
            None => None,
        };
        if self.status_interval.is_some() {
            crate::report::export::compact_stdout();
        }
        crate::runner::live::set(crate::runner::live::Opts {
            benchmark,
            status: self.status_interval,
            steady,
        });
        Ok(())
    }
}

/// `--log-hist`: interval histograms in HdrHistogram's log format. Part of
/// [`OutputArgs`]; a command with output flags of its own (bonnie, IOzone)
/// flattens it beside them.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct LogHistArgs {
    /// Write latency histograms per interval and op kind to FILE, in HdrHistogram's interval log format (one tag per op kind, values in ns), for HdrHistogram's tools (HistogramLogProcessor, HistogramLogAnalyzer).
    #[arg(long, value_name = "FILE")]
    pub log_hist: Option<PathBuf>,
    /// The interval of --log-hist's histograms (default 1s; at least 1ms), fio's log_hist_msec.
    #[arg(long, value_name = "TIME", requires = "log_hist", value_parser = log_hist_interval_arg)]
    pub log_hist_interval: Option<Duration>,
}

/// `--log-hist-interval`: a time of at least 1 ms.
pub fn log_hist_interval_arg(s: &str) -> Result<Duration, String> {
    let d = duration_arg(s)?;
    if d < Duration::from_millis(1) {
        return Err(format!(
            "'{}' is shorter than the shortest interval, 1ms",
            crate::error::shown(s)
        ));
    }
    Ok(d)
}

impl OutputArgs {
    /// Print `text` where the report goes (stdout, or stderr when a result
    /// goes to stdout).
    pub fn say(&self, text: &str) {
        // an MPI job's report is rank 0's to print
        if self.quiet || !crate::cluster::is_root() {
            return;
        }
        if self.result_on_stdout() || self.live.status_interval.is_some() {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }

    /// Whether a result document goes to stdout (`--json -` or `--csv -`).
    pub fn result_on_stdout(&self) -> bool {
        self.targets().iter().any(|(_, p)| p.as_os_str() == "-")
    }

    /// Whether to draw a progress bar (stderr is a terminal and not --quiet).
    pub fn progress(&self) -> bool {
        use std::io::IsTerminal;
        !self.quiet && crate::cluster::is_root() && std::io::stderr().is_terminal()
    }

    /// Whether any result file is asked for.
    pub fn any(&self) -> bool {
        !self.targets().is_empty()
    }

    /// Each exporter asked for, with its path.
    pub fn targets(&self) -> Vec<(&'static dyn export::Exporter, &Path)> {
        let mut v = Vec::new();
        for (flag, p) in [
            ("json", &self.json),
            ("csv", &self.csv),
            ("fio", &self.fio),
            ("fio-json", &self.fio_json),
        ] {
            if let Some(p) = p {
                let e = export::find(flag).expect("every output flag has an exporter");
                v.push((e, p.as_path()));
            }
        }
        v
    }

    /// Refuse, before any work, a result path that cannot be written, or
    /// that is the other's.
    pub fn check(&self) -> Result<()> {
        self.check_with(&mut Paths::new())
    }

    /// [`OutputArgs::check`], and the result paths against the command's
    /// other files (`paths`: its inputs, its other outputs, the
    /// directories it removes).
    pub fn check_with(&self, paths: &mut Paths) -> Result<()> {
        let targets = self.targets();
        let stdout = targets.iter().filter(|(_, p)| p.as_os_str() == "-").count();
        if stdout > 1 {
            crate::usage!("only one of --json, --csv, --fio and --fio-json can go to stdout ('-')");
        }
        for (e, p) in targets {
            let flag = format!("--{}", e.name());
            check_output(&flag, p)?;
            paths.output(format!("{flag} {}", p.display()), p);
        }
        if let Some(p) = &self.hist.log_hist {
            if p.as_os_str() == "-" {
                crate::usage!("--log-hist takes a file, not '-' (stdout)");
            }
            check_output("--log-hist", p)?;
            paths.output(format!("--log-hist {}", p.display()), p);
        }
        paths.check().map_err(UsageError)?;
        Ok(())
    }

    /// Write `doc` with every exporter asked for (and the interval
    /// histograms so far, with `--log-hist`).
    pub fn write<'a>(&self, doc: impl Into<Document<'a>>) -> Result<()> {
        let doc = doc.into();
        keep(&doc, self.result_on_stdout());
        self.write_hist_log()?;
        if export::capture(&doc)? {
            return Ok(());
        }
        for (e, p) in self.targets() {
            export::write(e, &doc, p)?;
        }
        Ok(())
    }

    /// Before the command runs: with `--log-hist`, have every run keep
    /// interval histograms. Refused under mpirun (each rank's would be its
    /// own, and only rank 0 writes).
    pub fn start_hist_log(&self) -> Result<()> {
        if self.hist.log_hist.is_none() {
            return Ok(());
        }
        if crate::cluster::launched_ranks().is_some() {
            crate::usage!(
                "--log-hist is not available under mpirun; run without it, or log each machine on its own without mpirun"
            );
        }
        crate::runner::histlog::enable(
            self.hist
                .log_hist_interval
                .unwrap_or(Duration::from_secs(1)),
        );
        Ok(())
    }

    /// With `--log-hist`: write the interval histograms of the phases run
    /// so far (the whole log again, each time a result is written).
    pub fn write_hist_log(&self) -> Result<()> {
        let Some(p) = &self.hist.log_hist else {
            return Ok(());
        };
        let command = std::env::args().collect::<Vec<_>>().join(" ");
        let mut bytes = Vec::new();
        crate::runner::histlog::with_phases(|phases| {
            crate::measure::histlog::write_log(phases, &crate::error::shown(&command), &mut bytes)
        })
        .context("cannot write the --log-hist log")?;
        export::emit(p, &bytes, "--log-hist")
    }

    /// Write `doc` to the files asked for, not to stdout: for a document
    /// rewritten as it grows (stdout gets it once, at the end).
    pub fn write_files<'a>(&self, doc: impl Into<Document<'a>>) -> Result<()> {
        let doc = doc.into();
        keep(&doc, false);
        self.write_hist_log()?;
        if export::capture(&doc)? {
            return Ok(());
        }
        for (e, p) in self.targets() {
            if p.as_os_str() != "-" {
                export::write(e, &doc, p)?;
            }
        }
        Ok(())
    }
}

/// The options of a run across MPI ranks (`mpirun -np N iogauge …`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ClusterArgs {
    /// Under mpirun: stop every rank when the first has done its budget (IOR's stonewalling); each rank's amount is in the result.
    #[arg(long, help_heading = "Many clients (under mpirun)")]
    pub stonewall: bool,
    /// With --stonewall: the other ranks still finish their whole budget (IOR's wear-out); what all had done at the stonewall is reported beside it.
    #[arg(
        long,
        requires = "stonewall",
        help_heading = "Many clients (under mpirun)"
    )]
    pub wear_out: bool,
}

impl ClusterArgs {
    /// Check the options against the build and the launcher, and hand them
    /// to the job.
    pub fn apply(&self) -> Result<()> {
        if self.stonewall {
            crate::cluster::require("--stonewall")?;
        }
        crate::cluster::configure(crate::cluster::Opts {
            stonewall: self.stonewall,
            wear_out: self.wear_out,
        });
        Ok(())
    }
}

/// A document as last written, kept so that a command that fails after it
/// can write it again with the cause.
enum Kept {
    Run(Box<RunResult>),
    Collection(Collection),
}

/// The last document the command wrote, and whether stdout has it.
static WRITTEN: Mutex<Option<(Kept, bool)>> = Mutex::new(None);

fn keep(doc: &Document, to_stdout: bool) {
    let kept = match doc {
        Document::Run(r) => Kept::Run(Box::new((*r).clone())),
        Document::Collection(c) => Kept::Collection((*c).clone()),
    };
    if let Ok(mut w) = WRITTEN.lock() {
        let before = w.as_ref().is_some_and(|(_, s)| *s);
        *w = Some((kept, to_stdout || before));
    }
}

/// Forget the document last written: the next run of a series starts
/// with none (see [`write_failure`]).
pub fn forget_written() {
    if let Ok(mut w) = WRITTEN.lock() {
        *w = None;
    }
}

/// A command failed at run time (`e`, not bad usage): write its result all
/// the same, `complete: false` with the cause, to every output asked for.
/// That is the document it last wrote, if any (a collection keeps the
/// entries it has); else the run whose set-up failed part-way (its
/// benchmark, configuration and environment); else an empty result of
/// `benchmark`. Writing is best effort: the cause is reported either way.
pub fn write_failure(out: &OutputArgs, benchmark: &str, e: &anyhow::Error) {
    let _ = out.write_hist_log();
    if !out.any() && !export::capturing() {
        return;
    }
    let cause = crate::error::cause(e);
    let last = WRITTEN.lock().ok().and_then(|mut w| w.take());
    let (mut kept, on_stdout) = match last {
        Some(k) => k,
        None => (Kept::Run(Box::new(unfinished(benchmark))), false),
    };
    let doc = match &mut kept {
        Kept::Run(r) => {
            r.complete = false;
            r.error.get_or_insert(cause);
            if let Some(d) = crate::engine::DirectRefused::in_chain(e) {
                r.warn(crate::report::warn::Warning::new(
                    "direct_refused",
                    d.to_string(),
                ));
            }
            Document::Run(r)
        }
        Kept::Collection(c) => {
            c.complete = false;
            c.error.get_or_insert(cause);
            Document::Collection(c)
        }
    };
    if export::capture(&doc).unwrap_or(false) {
        return;
    }
    for (x, p) in out.targets() {
        if p.as_os_str() == "-" && on_stdout {
            continue;
        }
        let _ = export::write(x, &doc, p);
    }
}

/// The result of a run of `benchmark` that failed before it measured: its
/// session's, if one began, else one with nothing but the machine.
fn unfinished(benchmark: &str) -> RunResult {
    crate::session::take_unfinished()
        .filter(|r| r.benchmark == benchmark)
        .unwrap_or_else(|| {
            RunResult::new(
                benchmark,
                serde_json::json!({}),
                crate::env::detect(Path::new(".")),
                crate::report::now_rfc3339(),
            )
        })
}

/// Output of a command whose document is not a run result (predictions):
/// JSON only.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct JsonArgs {
    /// Write the document as JSON to PATH ('-' for stdout; the text then goes to stderr).
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Print no text (errors still go to stderr; --json is still written).
    #[arg(long, short)]
    pub quiet: bool,
}

impl JsonArgs {
    /// Refuse a path that cannot be written, or that is one of the
    /// command's other files (`paths`).
    pub fn check_with(&self, paths: &mut Paths) -> Result<()> {
        if let Some(p) = &self.json {
            check_output("--json", p)?;
            paths.output(format!("--json {}", p.display()), p);
        }
        paths.check().map_err(UsageError)?;
        Ok(())
    }

    pub fn say(&self, text: &str) {
        // an MPI job's report is rank 0's to print
        if self.quiet || !crate::cluster::is_root() {
            return;
        }
        if self.json.as_deref() == Some(Path::new("-")) {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }

    pub fn write(&self, value: &impl serde::Serialize) -> Result<()> {
        match &self.json {
            Some(p) => crate::report::write_json(p, value),
            None => Ok(()),
        }
    }
}

/// Refuse an output path that cannot be written, before any work: its
/// directory missing or not writable, a name too long, a directory in its
/// place. Nothing is created.
pub fn check_output(flag: &str, p: &Path) -> Result<()> {
    if p.as_os_str() == "-" {
        return Ok(());
    }
    let shown = p.display();
    if p.is_dir() {
        crate::usage!("{flag} {shown} is a directory; name a file");
    }
    if let Some(name) = p.file_name()
        && name.len() > 255
    {
        crate::usage!(
            "{flag}: the file name is {} bytes long; file systems take at most 255",
            name.len()
        );
    }
    let dir = crate::runner::names::dir_of(p);
    if !dir.is_dir() {
        crate::usage!(
            "{flag} {shown}: the directory {} does not exist",
            dir.display()
        );
    }
    if let Some(t) = crate::runner::workdir::pseudo_fs(dir) {
        crate::usage!(
            "{flag} {shown}: {} is on {t}, a pseudo file system; name a file on a real one",
            dir.display()
        );
    }
    let target = if p.exists() { p } else { dir };
    let mode = if p.exists() {
        rustix::fs::Access::WRITE_OK
    } else {
        rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK
    };
    if let Err(e) = rustix::fs::access(target, mode) {
        crate::usage!(
            "{flag} {shown}: {} is not writable ({})",
            target.display(),
            crate::runner::workdir::io_reason(&std::io::Error::from(e))
        );
    }
    if let Ok(st) = rustix::fs::statvfs(dir)
        && st.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY)
    {
        crate::usage!(
            "{flag} {shown}: {} is on a read-only file system",
            dir.display()
        );
    }
    Ok(())
}

fn engine_arg(s: &str) -> Result<Choice, String> {
    Choice::parse(s)
}

/// `--engine` of a command `A` that takes only the engines of its
/// [`super::Cmd::ENGINES`]: an unknown name is told those. A known one
/// outside the list is refused with its reason when the run is checked.
pub fn engine_among<A: super::Cmd>(s: &str) -> Result<Choice, String> {
    Choice::parse(s).map_err(|_| {
        let list = A::ENGINES.unwrap_or_default();
        let names: Vec<&str> = list.iter().map(|c| c.name()).collect();
        format!(
            "unknown engine '{}'; the engines are: {}",
            crate::error::shown(s.trim()),
            names.join(", ")
        )
    })
}

/// The engine flags of a command that does data I/O through an engine.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct EngineArgs {
    /// I/O engine ('iogauge engines' describes each).
    #[arg(long, value_name = "NAME", value_parser = engine_arg)]
    pub engine: Option<Choice>,
    /// Open data files with O_DIRECT: page-aligned buffers, offsets and sizes aligned to 4 KiB.
    #[arg(long)]
    pub direct: bool,
}

impl EngineArgs {
    /// The engine chosen, or the command's default.
    pub fn choice(&self, default: Choice) -> Choice {
        self.engine.unwrap_or(default)
    }

    /// The engine spec asked for, checked: one request at a time.
    pub fn spec(&self, default: Choice) -> Result<EngineSpec> {
        let spec = EngineSpec::new(self.choice(default)).direct(self.direct);
        spec.check().map_err(UsageError)?;
        Ok(spec)
    }

    /// Check that the engine can do what was asked.
    pub fn check(&self, default: Choice) -> Result<Choice> {
        Ok(self.spec(default)?.choice)
    }
}

/// `--iodepth`, for a command that keeps several requests in flight.
#[derive(clap::Args, Debug, Clone)]
pub struct DepthArgs {
    /// Requests each worker keeps in flight (above 1 needs a queued engine: 'iogauge engines').
    #[arg(long, default_value = "1", value_name = "N", value_parser = depth_arg)]
    pub iodepth: u16,
    /// Submit once N requests are queued (default: 1 with --direct, else once every free slot is filled).
    #[arg(long, value_name = "N", help_heading = "Queued engines")]
    pub iodepth_batch: Option<u16>,
    /// Reap at least N completions per wait (default 1).
    #[arg(long, value_name = "N", help_heading = "Queued engines")]
    pub iodepth_batch_complete: Option<u16>,
    /// Take at most N completions per wait; the rest wait for the next one (default: all there are).
    #[arg(long, value_name = "N", help_heading = "Queued engines")]
    pub iodepth_batch_complete_max: Option<u16>,
    /// Register the I/O buffers with the kernel once (io_uring).
    #[arg(long, help_heading = "Queued engines")]
    pub fixedbufs: bool,
    /// Register the open files with the kernel (io_uring).
    #[arg(long, help_heading = "Queued engines")]
    pub registerfiles: bool,
    /// A kernel thread polls the submission queue; it spends a core (io_uring).
    #[arg(long, help_heading = "Queued engines")]
    pub sqthread_poll: bool,
    /// Bind the polling thread to this CPU (with --sqthread-poll).
    #[arg(long, value_name = "CPU", help_heading = "Queued engines")]
    pub sqthread_cpu: Option<u16>,
    /// Poll the device for completions; needs --direct and a device with poll queues (io_uring), or set RWF_HIPRI on each request (pvsync2).
    #[arg(long, help_heading = "Queued engines")]
    pub hipri: bool,
    /// With --hipri: set RWF_HIPRI on this share of requests, 0 to 100, drawn per request as fio does (pvsync2; default 100).
    #[arg(long, value_name = "PCT", value_parser = clap::value_parser!(u8).range(0..=100), help_heading = "Queued engines")]
    pub hipri_percentage: Option<u8>,
    /// A request that would block fails instead (RWF_NOWAIT), counted apart (io_uring, libaio, pvsync2).
    #[arg(long, help_heading = "Queued engines")]
    pub nowait: bool,
    /// Buffered I/O that leaves no pages in the page cache (RWF_DONTCACHE; Linux 6.14+; io_uring, pvsync2).
    #[arg(long, help_heading = "Queued engines")]
    pub uncached: bool,
}

impl Default for DepthArgs {
    fn default() -> Self {
        DepthArgs {
            iodepth: 1,
            iodepth_batch: None,
            iodepth_batch_complete: None,
            iodepth_batch_complete_max: None,
            fixedbufs: false,
            registerfiles: false,
            sqthread_poll: false,
            sqthread_cpu: None,
            hipri: false,
            hipri_percentage: None,
            nowait: false,
            uncached: false,
        }
    }
}

impl DepthArgs {
    /// The queued engine's options the flags ask for.
    pub fn queue(&self) -> QueueOpts {
        QueueOpts {
            batch: self.iodepth_batch.unwrap_or(0),
            batch_complete: self.iodepth_batch_complete.unwrap_or(0),
            batch_complete_max: self.iodepth_batch_complete_max.unwrap_or(0),
            fixed_bufs: self.fixedbufs,
            register_files: self.registerfiles,
            sqpoll: self.sqthread_poll,
            sqpoll_cpu: self.sqthread_cpu,
            hipri: self.hipri,
            hipri_percentage: self.hipri_percentage,
            nowait: self.nowait,
            uncached: self.uncached,
            eagain_fails: false,
        }
    }
}

pub fn depth_arg(s: &str) -> Result<u16, String> {
    let max = crate::engine::MAX_DEPTH;
    match s.trim().parse::<u16>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a queue depth: give 1 to {max}")),
    }
}

impl EngineArgs {
    /// [`EngineArgs::spec`] at the depth `depth` asks for, checked.
    pub fn spec_at(&self, default: Choice, depth: &DepthArgs) -> Result<EngineSpec> {
        let spec = EngineSpec::new(self.choice(default))
            .direct(self.direct)
            .depth(depth.iodepth)
            .queue(depth.queue());
        spec.check().map_err(UsageError)?;
        Ok(spec)
    }
}

/// The sync flags of a command that honours them.
#[derive(clap::Args, Debug, Clone)]
pub struct SyncArgs {
    /// When to sync written data: never, end (each file once at the end, timed) or every=N (after every N writes).
    #[arg(long, default_value = "never", value_name = "POLICY", value_parser = parse_fsync)]
    pub fsync: FsyncPolicy,
    /// Sync with fdatasync(2) instead of fsync(2); needs --fsync end or every=N.
    #[arg(long)]
    pub fdatasync: bool,
}

impl Default for SyncArgs {
    fn default() -> Self {
        SyncArgs {
            fsync: FsyncPolicy::Never,
            fdatasync: false,
        }
    }
}

impl SyncArgs {
    /// Refuse --fdatasync without a sync to change.
    pub fn check(&self) -> Result<()> {
        if self.fdatasync && self.fsync == FsyncPolicy::Never {
            crate::usage!(
                "--fdatasync changes how --fsync syncs, and --fsync is never: add --fsync end or --fsync every=N"
            );
        }
        Ok(())
    }
}

/// The load flags of a command whose workers can be paced: an open loop
/// at a rate, or a closed loop with think time.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct LoadArgs {
    /// Open loop: issue requests at this rate (per second, all workers together) whatever the storage does; response times then run from each request's intended start.
    #[arg(long, value_name = "OPS", value_parser = rate_arg, allow_hyphen_values = true)]
    pub rate: Option<f64>,
    /// How requests arrive (--rate) or think times vary (--thinktime): poisson (exponential gaps around the mean) or uniform (equal gaps).
    #[arg(long, value_enum, default_value = "poisson", value_name = "HOW")]
    pub arrivals: ArrivalsArg,
    /// Closed loop: each worker pauses this long (mean) before each request; the pause is not counted in any time.
    #[arg(long, value_name = "TIME", value_parser = duration_arg, allow_hyphen_values = true)]
    pub thinktime: Option<Duration>,
    /// Bandwidth cap in bytes per second, all workers together (each holds its even share): RATE caps reads, writes and trims together, READ,WRITE[,TRIM] each direction (fio's rate=); a worker ahead of its cap waits, latency still runs from issue.
    #[arg(long, value_name = "BYTES/s", value_parser = crate::runner::ByteCap::parse)]
    pub rate_bytes: Option<crate::runner::ByteCap>,
    /// How a capped worker spaces its requests: linear (each request's bytes take their time at the cap) or poisson (exponential gaps with that mean), as fio's rate_process.
    #[arg(
        long,
        value_enum,
        default_value = "linear",
        value_name = "HOW",
        requires = "rate_bytes"
    )]
    pub rate_process: RateProcessArg,
}

/// `--rate-process`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum RateProcessArg {
    #[default]
    Linear,
    Poisson,
}

/// `--arrivals`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ArrivalsArg {
    #[default]
    Poisson,
    Uniform,
}

impl LoadArgs {
    /// The pace these flags ask for, arrival streams seeded from `seed`.
    pub fn pace(&self, seed: u64) -> Result<crate::runner::Pace> {
        let pace = crate::runner::Pace {
            rate: self.rate,
            arrivals: match self.arrivals {
                ArrivalsArg::Poisson => crate::runner::Arrivals::Poisson,
                ArrivalsArg::Uniform => crate::runner::Arrivals::Uniform,
            },
            think: self.thinktime.filter(|t| !t.is_zero()),
            seed,
            cap: self
                .rate_bytes
                .map(|c| crate::runner::ByteCap {
                    process: match self.rate_process {
                        RateProcessArg::Linear => crate::runner::CapProcess::Linear,
                        RateProcessArg::Poisson => crate::runner::CapProcess::Poisson,
                    },
                    ..c
                })
                .unwrap_or_default(),
        };
        pace.check().map_err(crate::error::UsageError)?;
        Ok(pace)
    }

    /// [`LoadArgs::pace`] for a benchmark whose operations do not go
    /// through the runner's queue, where a bandwidth cap cannot be kept:
    /// `--rate-bytes` is refused there rather than ignored.
    pub fn pace_uncapped(&self, seed: u64, command: &str) -> Result<crate::runner::Pace> {
        if self.rate_bytes.is_some() {
            crate::usage!(
                "--rate-bytes: {command} issues its operations one at a time outside the runner's queue, where a bandwidth cap is not kept; cap requests with --rate (ops/s), or bandwidth with 'iogauge run'"
            );
        }
        self.pace(seed)
    }
}

/// A rate in requests per second, above 0 (at most [`units::MAX_RATE`]).
pub fn rate_arg(s: &str) -> Result<f64, String> {
    units::parse_rate(s)
}

pub fn size_arg(s: &str) -> Result<u64, String> {
    units::parse_size(s)
}

pub fn duration_arg(s: &str) -> Result<Duration, String> {
    units::parse_duration(s)
}

pub fn fraction_arg(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "'{}' is not a fraction between 0 and 1",
            crate::error::shown(s)
        )),
    }
}

/// A count of at least 1 (workers, files): "must be positive" for 0 and
/// negative numbers, not clap's "unexpected argument".
pub fn count_arg(s: &str) -> Result<usize, String> {
    match s.trim().parse::<i128>() {
        Ok(n) if n >= 1 && n <= usize::MAX as i128 => Ok(n as usize),
        Ok(n) if n < 1 => Err(format!("must be positive (at least 1), not {n}")),
        _ => Err(format!(
            "'{}' is not a whole number",
            crate::error::shown(s)
        )),
    }
}

/// A switch given as `on` or `off` (`--commit-sync`, `--scaling`).
pub fn on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("'{s}' is not on or off")),
    }
}

/// `--check`: a dry run of the parsing.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CheckArgs {
    /// Only check: read the input files, check every flag and value as a run would before it starts, print one line, and stop; nothing is created, written or run (exit 0, or 2 with the first problem).
    #[arg(long)]
    pub check: bool,
}

impl CheckArgs {
    /// With `--check`, say that `what` passed and stop (`Some(Done)`).
    pub fn done(&self, what: &str) -> Option<Status> {
        self.check.then(|| checked(what))
    }
}

/// The load, result and `--check` flags of a command that runs at one load
/// point: what `iogauge scale` reads of them beside the point itself.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PointArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub check: CheckArgs,
}

/// `impl Cmd for Args` of a command that runs with its module's
/// `main(Args)` and writes its result to the [`OutputArgs`] at `self.PATH`:
/// `cmd!(out)`, or `cmd!(run.out, { ... })` with the impl's other items (a
/// default engine, the engines it takes, its load point).
macro_rules! cmd {
    ($($out:ident).+ $(, { $($item:tt)* })?) => {
        impl super::Cmd for Args {
            $($($item)*)?
            fn main(self) -> anyhow::Result<super::common::Status> {
                main(self)
            }
            fn output(&self) -> Option<super::common::OutputArgs> {
                Some(self.$($out).+.clone())
            }
        }
    };
}
pub(crate) use cmd;

/// The line `--check` ends with when everything passed.
pub fn checked(what: &str) -> Status {
    println!("{}: checked; nothing was run", crate::error::shown(what));
    Status::Done
}

/// Print the report, write the result files, and turn the result into a status.
pub fn finish(out: &OutputArgs, result: &RunResult, report: &str) -> Result<Status> {
    // with --steady-state, each phase's verdict, in the result and after
    // the classic report
    let with;
    let (result, report) = match crate::runner::live::take_verdict() {
        Some(v) => {
            let lines = v.describe();
            with = RunResult {
                steady_state: Some(v),
                ..result.clone()
            };
            (&with, format!("{report}{lines}"))
        }
        None => (result, report.to_string()),
    };
    out.say(&report);
    // after the classic report, on its stream
    if let Some(v) = &result.verify {
        out.say(&v.render());
    }
    out.say(&crate::report::warn::render(result));
    out.write(result)?;
    status_of(out, result)
}

/// [`finish`] with benchmark `B`'s classic report rendered from the
/// result, as `iogauge show` renders it from the saved one. A result whose
/// report cannot be rendered is still written before the error.
pub fn finish_with<B: crate::suites::Benchmark>(
    out: &OutputArgs,
    result: &RunResult,
) -> Result<Status> {
    // an MPI job's figures go in the report too (rank 0's, the job's):
    // every phase so far, where a result made after the first has fewer
    let with;
    let result = match crate::cluster::section() {
        Some(sec) => {
            with = RunResult {
                cluster: Some(sec),
                ..result.clone()
            };
            &with
        }
        None => result,
    };
    match crate::suites::benchmark::classic_of::<B>(result) {
        Ok(report) => finish(out, result, &report),
        Err(e) => {
            out.write(result)?;
            Err(e.context("rendering the report"))
        }
    }
}

/// The status of a written result, with the one line that explains it.
pub fn status_of(out: &OutputArgs, result: &RunResult) -> Result<Status> {
    // wrong data outranks every other ending: it is what the user must see
    if let Some(v) = &result.verify
        && v.mismatches > 0
    {
        eprintln!(
            "iogauge: --verify found {} unit(s) that do not hold what was written{}",
            v.mismatches,
            if v.stopped_at_first {
                " (stopped at the first, --verify-fatal)"
            } else {
                ""
            }
        );
        return Ok(Status::Mismatch);
    }
    if let Some(e) = &result.error {
        eprintln!("iogauge: {}", crate::error::shown(e));
        return Ok(Status::Failed);
    }
    if !result.complete {
        // an MPI rank other than 0 writes no result
        interrupted_line(out.any() && crate::cluster::is_root());
        return Ok(Status::Interrupted);
    }
    Ok(Status::Done)
}

/// Say that the run was interrupted, and whether a partial result was written.
pub fn interrupted_line(written: bool) {
    if !crate::cluster::is_root() {
        // its figures went to rank 0, which writes the result
        eprintln!("iogauge: rank {}: interrupted", crate::cluster::rank());
    } else if written {
        eprintln!("iogauge: interrupted; the partial result was written");
    } else {
        eprintln!("iogauge: interrupted");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions() {
        assert_eq!(fraction_arg("0.25"), Ok(0.25));
        assert_eq!(fraction_arg("1"), Ok(1.0));
        assert!(fraction_arg("1.5").is_err());
        assert!(fraction_arg("-0.1").is_err());
        assert!(fraction_arg("NaN").is_err());
    }

    #[test]
    fn counts() {
        assert_eq!(count_arg("4"), Ok(4));
        assert!(count_arg("0").unwrap_err().contains("must be positive"));
        assert!(count_arg("-1").unwrap_err().contains("must be positive"));
        assert!(count_arg("x").is_err());
    }

    #[test]
    fn output_paths_are_checked_before_work() {
        let d = tempfile::tempdir().unwrap();
        check_output("--json", &d.path().join("r.json")).unwrap();
        check_output("--json", Path::new("-")).unwrap();
        let long = d.path().join("x".repeat(300));
        let e = check_output("--json", &long).unwrap_err().to_string();
        assert!(e.contains("255"), "{e}");
        let e = check_output("--json", &d.path().join("no/r.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
        let e = check_output("--csv", d.path()).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        assert!(std::fs::read_dir(d.path()).unwrap().next().is_none());
    }
}
