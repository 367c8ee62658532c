//! `iogauge iozone`: IOzone 3.489, driven by IOzone's own flags, with its
//! text tables, `-R` and `-b` reports, and iogauge's JSON, CSV and
//! heatmaps beside them.

use super::common::{OutputArgs, Status};
use crate::engine::Choice;
use crate::error::UsageError;
use crate::suites::iozone::exec::{self, Exec, Hooks};
use crate::suites::iozone::figures::{IoZone, ThroughputPhase};
use crate::suites::iozone::flags::{self, Config, FLAGS};
use crate::suites::iozone::report::{self, Column};
use crate::suites::iozone::{heatmaps, run, throughput};
use anyhow::Result;
use clap::{ArgMatches, FromArgMatches};
use std::fmt::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

/// IOzone's tests (write, read, random, backwards, record rewrite, stride,
/// stdio, pread/pwrite, vectored) on one file size and record size, over
/// a grid of them (-a), or in N children at once (-t), with IOzone's flags.
#[derive(clap::Args, Debug, Default)]
pub struct Opts {
    /// IOzone's flags, as IOzone takes them (e.g. -a, or -i 0 -i 1 -s 64m -r 64k); the list is below.
    #[arg(value_name = "IOZONE_FLAGS", num_args = 0.., allow_hyphen_values = true, trailing_var_arg = true)]
    pub flags: Vec<String>,
    /// Parent of the run's work directory, where the test files go (-f and -F name files inside it).
    #[arg(
        long,
        default_value = ".",
        value_name = "DIR",
        conflicts_with = "device"
    )]
    pub dir: PathBuf,
    /// Let an absolute -f or -F name make its file at that path, outside the work directory (the path must not exist; the file is removed at the end).
    #[arg(long, conflicts_with = "device")]
    pub allow_outside: bool,
    #[command(flatten)]
    pub device: super::device::DeviceArgs,
    /// I/O engine ('iogauge engines' describes each); with -H/-k, that of the asynchronous passes too (default io_uring, else libaio).
    #[arg(long, value_name = "NAME", value_parser = Choice::parse)]
    pub engine: Option<Choice>,
    /// Draw one SVG heatmap per test (file size × record size, the figures as colours) into DIR.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
    /// Throughput mode: the pause after the sync between phases (IOzone sleeps 2 s).
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = super::common::duration_arg)]
    pub settle: Duration,
    /// Write the result as JSON to PATH ('-' for stdout; the reports then go to stderr): every cell, and each test's latency percentiles.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write iogauge's CSV to PATH ('-' for stdout): one row per op kind, with the headline figures.
    #[arg(long, value_name = "PATH")]
    pub csv: Option<PathBuf>,
    /// Print no report (errors still go to stderr; --json, --csv, -b and --plot are still written).
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub repeat: super::common::RepeatArgs,
    #[command(flatten)]
    pub hist: super::common::LogHistArgs,
    #[command(flatten)]
    pub check: super::common::CheckArgs,
    // --stonewall is iogauge's, across ranks; IOzone's -x (no stonewall)
    // is about the children of one rank
    #[command(flatten)]
    pub cluster: super::common::ClusterArgs,
    #[command(flatten)]
    pub verify: super::verify::VerifyArgs,
}

/// [`Opts`] with IOzone's flag list as the help's epilogue.
#[derive(Debug, Default)]
pub struct Args(pub Opts);

impl clap::FromArgMatches for Args {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        Opts::from_arg_matches(m).map(Args)
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(m)
    }
}

impl clap::Args for Args {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        Opts::augment_args(cmd).after_help(flag_help())
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Opts::augment_args_for_update(cmd).after_help(flag_help())
    }
}

/// The IOzone flags iogauge takes, one per line.
fn flag_help() -> String {
    let mut s = String::from("IOzone's flags (sizes in kB, or with k, m, g):\n");
    for f in FLAGS {
        let name = match f.value {
            Some(v) => format!("-{} {v}", f.name),
            None => format!("-{}", f.name),
        };
        let _ = writeln!(s, "  {name:<14} {}", f.help);
    }
    s += "\nExamples: iogauge iozone -a\n          iogauge iozone -i 0 -i 1 -i 2 -s 64m -r 64k -e\n          iogauge iozone -t 4 -i 0 -i 1 -s 16m -r 64k -R -b out.xlsx";
    s
}

impl super::Cmd for Args {
    const DEFAULT_ENGINE: Option<&'static str> = Some("sync");
    fn main(self) -> Result<Status> {
        main(self.0)
    }
    fn output(&self) -> Option<OutputArgs> {
        // --json may come after IOzone's flags
        let parsed = flags::parse(&self.0.flags).ok()?;
        let given = Opts {
            json: self.0.json.clone(),
            csv: self.0.csv.clone(),
            quiet: self.0.quiet,
            hist: self.0.hist.clone(),
            ..Default::default()
        };
        Some(given.with_late(&parsed.passthrough).ok()?.out())
    }
}

impl Opts {
    /// The long options that came after IOzone's flags (the flag parser
    /// hands them back), parsed as if they had come first.
    fn with_late(mut self, late: &[String]) -> Result<Opts> {
        if late.is_empty() {
            return Ok(self);
        }
        let cmd = <Opts as clap::Args>::augment_args(clap::Command::new("iozone"));
        let m = cmd
            .try_get_matches_from(std::iter::once("iozone".to_string()).chain(late.iter().cloned()))
            .map_err(|e| {
                use clap::error::ErrorKind;
                match e.kind() {
                    ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                        UsageError::new("put --help first: iogauge iozone --help")
                    }
                    _ => UsageError::new(
                        e.to_string()
                            .lines()
                            .next()
                            .unwrap_or("bad option")
                            .trim_start_matches("error: ")
                            .to_string(),
                    ),
                }
            })?;
        let mut late_opts =
            Opts::from_arg_matches(&m).map_err(|e| UsageError::new(e.to_string()))?;
        if !late_opts.flags.is_empty() {
            crate::usage!(
                "unexpected '{}' after the long options: IOzone's flags come before --json, --dir and the like, or after them",
                late_opts.flags[0]
            );
        }
        let given = |id: &str| m.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
        if given("dir") {
            self.dir = late_opts.dir;
        }
        if given("engine") {
            self.engine = late_opts.engine.take();
        }
        self.allow_outside |= late_opts.allow_outside;
        if given("device") {
            self.device.device = late_opts.device.device.take();
        }
        self.device.allow_destroy |= late_opts.device.allow_destroy;
        self.device.force |= late_opts.device.force;
        if self.device.device.is_some() && (self.allow_outside || given("dir")) {
            crate::usage!(
                "--device: the device is the test file; --dir and --allow-outside place files, so drop them"
            );
        }
        if given("plot") {
            self.plot = late_opts.plot.take();
        }
        if given("settle") {
            self.settle = late_opts.settle;
        }
        if given("json") {
            self.json = late_opts.json.take();
        }
        if given("csv") {
            self.csv = late_opts.csv.take();
        }
        if given("log_hist") {
            self.hist.log_hist = late_opts.hist.log_hist.take();
        }
        if given("log_hist_interval") {
            self.hist.log_hist_interval = late_opts.hist.log_hist_interval.take();
        }
        self.quiet |= late_opts.quiet;
        if given("repeat") {
            self.repeat.repeat = late_opts.repeat.repeat;
        }
        if given("cv_warn") {
            self.repeat.cv_warn = late_opts.repeat.cv_warn;
        }
        self.check.check |= late_opts.check.check;
        self.verify.verify |= late_opts.verify.verify;
        self.verify.verify_crash |= late_opts.verify.verify_crash;
        self.verify.verify_fatal |= late_opts.verify.verify_fatal;
        self.verify.keep |= late_opts.verify.keep;
        if given("verify_interval") {
            self.verify.verify_interval = late_opts.verify.verify_interval;
        }
        self.cluster.stonewall |= late_opts.cluster.stonewall;
        self.cluster.wear_out |= late_opts.cluster.wear_out;
        Ok(self)
    }

    fn out(&self) -> OutputArgs {
        OutputArgs {
            json: self.json.clone(),
            csv: self.csv.clone(),
            fio: None,
            fio_json: None,
            quiet: self.quiet,
            repeat: self.repeat.clone(),
            live: Default::default(),
            hist: self.hist.clone(),
        }
    }
}

/// The command line as the reports show it.
fn command_line() -> String {
    std::env::args().collect::<Vec<_>>().join(" ")
}

/// Prints IOzone's report as the run goes, as IOzone does: its preamble,
/// then each row or each phase as it ends. The report rendered from the
/// result at the end starts with what was printed; the rest follows.
struct Live<'a> {
    out: &'a OutputArgs,
    cfg: &'a Config,
    /// The table's columns (the tests selected).
    selected: Vec<Column>,
    /// What has been printed so far.
    printed: Mutex<String>,
}

impl Live<'_> {
    fn say(&self, text: &str) {
        self.out.say(text);
        self.printed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_str(text);
    }
}

impl crate::runner::Progress for Live<'_> {}

impl Hooks for Live<'_> {
    fn begun(&self, preamble: &str) {
        self.say(preamble);
    }
    fn row(&self, r: &report::Row) {
        if !r.is_skipped() {
            self.say(&report::row_line(r, &self.selected, self.cfg.extended));
        }
    }
    fn throughput(&self, e: &throughput::Event) {
        match e {
            throughput::Event::Begin(_) => self.say(&report::throughput_intro(
                self.cfg.threads,
                self.cfg.single_file_kb(),
                self.cfg.single_record_kb(),
            )),
            throughput::Event::Phase(_, p) => self.say(&throughput::phase_text(
                self.cfg,
                &ThroughputPhase::of(p, self.cfg.cpu_util),
            )),
            // the end of IOzone's throughput_test
            throughput::Event::End(_) => self.say("\n\n"),
        }
    }
}

pub fn main(a: Opts) -> Result<Status> {
    let parsed = flags::parse(&a.flags).map_err(UsageError)?;
    let a = a.with_late(&parsed.passthrough)?;
    let mut cfg = parsed.config;
    let device = on_device(&a, &mut cfg)?;
    a.cluster.apply()?;
    if crate::cluster::ranks() > 1 && cfg.children.is_empty() {
        crate::usage!(
            "iozone runs across MPI ranks in throughput mode only (-t N: each rank its N children); drop mpirun, or give -t"
        );
    }
    let out = a.out();
    let mut paths = super::common::Paths::new();
    if let Some(b) = &cfg.workbook {
        if !crate::report::xlsx::AVAILABLE {
            crate::usage!(
                "-b {}: this iogauge was built without the XLSX writer (the 'xlsx' feature, on by default); -R prints the same tables",
                b.display()
            );
        }
        super::common::check_output("-b", b)?;
        paths.output(format!("-b {}", b.display()), b);
    }
    if let Some(p) = &a.plot {
        if p.exists() && !p.is_dir() {
            crate::usage!("--plot {}: not a directory", p.display());
        }
        for c in cfg.tests.iter().flat_map(|t| Column::for_test(t.number())) {
            let f = p.join(heatmaps::file_name(c));
            paths.output(format!("--plot {}", f.display()), &f);
        }
    }
    if device.is_some() {
        paths.input(
            format!("--device {}", cfg.file.display()),
            &cfg.file.clone(),
        );
    }
    let files = match device {
        Some(_) => Vec::new(),
        None => exec::check_files(&cfg, a.allow_outside).map_err(UsageError)?,
    };
    for (what, place) in files {
        if let crate::runner::names::Place::Outside { path, .. } = place {
            paths.output(what, &path);
        }
    }
    out.check_with(&mut paths)?;
    let engine = a.engine.unwrap_or(run::DEFAULT_ENGINE);
    // -H/-k: the engine given, else io_uring, else libaio
    let queued = match (cfg.async_io, a.engine) {
        (None, _) => None,
        (Some(_), Some(e)) => Some(e),
        (Some(q), None) => Some(
            crate::suites::queued::pick(cfg.direct, q.depth)
                .map_err(|e| UsageError(format!("{}: {e}", q.flag())))?,
        ),
    };
    let x = Exec {
        dir: &a.dir,
        engine,
        queued,
        settle: a.settle,
        command_line: command_line(),
        allow_outside: a.allow_outside,
        plot: a.plot.clone(),
        verify: a.verify.plan(),
        device,
    };
    run::check_remount(&cfg, &a.dir).map_err(UsageError)?;
    if a.check.check {
        exec::check(&cfg, &x)?;
        return Ok(super::common::checked("iogauge iozone"));
    }
    let live = Live {
        out: &out,
        cfg: &cfg,
        selected: cfg
            .tests
            .iter()
            .flat_map(|t| Column::for_test(t.number()))
            .collect(),
        printed: Mutex::new(String::new()),
    };
    let mut rep = exec::execute(&cfg, &x, &live)?;
    if let Some(v) = rep.result.verify.clone() {
        super::verify::add_metrics(&mut rep.result, &v);
    }
    write_files(&a, &cfg, &rep, &x.command_line)?;
    // the report from the result: what was printed as the run went, and
    // the rest
    let report = match crate::suites::benchmark::classic_of::<IoZone>(&rep.result) {
        Ok(r) => r,
        Err(e) => {
            out.write(&rep.result)?;
            return Err(e.context("rendering the report"));
        }
    };
    let printed = live.printed.into_inner().unwrap_or_else(|e| e.into_inner());
    let Some(rest) = report.strip_prefix(printed.as_str()) else {
        out.write(&rep.result)?;
        anyhow::bail!(
            "internal error: the report rendered from the result differs from the one printed as the run went"
        );
    };
    out.say(rest);
    if let Some(d) = &rep.result.environment.block_device {
        out.say(&format!("iogauge: on block device {}\n", d.describe()));
    }
    if let Some(v) = &rep.result.verify {
        out.say(&v.render());
    }
    out.say(&crate::report::warn::render(&rep.result));
    out.write(&rep.result)?;
    super::common::status_of(&out, &rep.result)
}

/// `--device`: the device checked for the tests `cfg` runs (writing ones
/// need --allow-destroy), made the test file; `None` without it. Refused:
/// throughput mode (a file per child), -f, -w, -U, a file larger than the
/// device, and under -I a record that is not whole logical blocks.
fn on_device(a: &Opts, cfg: &mut Config) -> Result<Option<crate::env::device::BlockDevice>> {
    use crate::suites::iozone::flags::{DEFAULT_FILE, Mode, Test};
    let Some(path) = &a.device.device else {
        return Ok(None);
    };
    let name = crate::error::shown_path(path);
    if cfg.mode() == Mode::Throughput {
        crate::usage!(
            "--device {name}: throughput mode (-t) gives every child a file of its own, and a device is one; run -t on files in --dir, or drop -t"
        );
    }
    if cfg.file != std::path::Path::new(DEFAULT_FILE) {
        crate::usage!(
            "-f {} with --device {name}: the device is the test file; drop -f",
            cfg.file.display()
        );
    }
    if cfg.keep_files {
        crate::usage!(
            "-w with --device {name}: a device is never removed, so there is nothing to keep; drop -w"
        );
    }
    if let Some(m) = &cfg.remount {
        crate::usage!(
            "-U {} with --device {name}: the test runs on the raw device, under no mount; drop -U",
            m.display()
        );
    }
    let writes = cfg.tests.iter().any(|t| {
        matches!(
            t,
            Test::Write
                | Test::RandomRw
                | Test::RecordRewrite
                | Test::Fwrite
                | Test::RandomMix
                | Test::Pwrite
                | Test::Pwritev
        )
    });
    let Some(dev) = a.device.check(
        writes,
        cfg.direct,
        "run only the tests that read (-i 1, 3, 5, 7, and 10 and 12 with -E)",
    )?
    else {
        return Ok(None);
    };
    let rows = crate::suites::iozone::grid::runs(cfg);
    let largest = rows.iter().map(|r| r.file_kb).max().unwrap_or(0) * 1024;
    if largest > dev.bytes {
        crate::usage!(
            "--device {name} holds {}, less than the largest file the run tests ({}); give -s (or -g in auto mode) of at most {} kB",
            crate::units::fmt_bytes(dev.bytes),
            crate::units::fmt_bytes(largest),
            dev.bytes / 1024
        );
    }
    if cfg.direct
        && let Some(r) = rows
            .iter()
            .flat_map(|r| r.records_kb.iter())
            .find(|&&r| !dev.direct_fits(r * 1024))
    {
        crate::usage!(
            "-I: a record of {r} kB is not whole logical blocks of --device {name} ({} B); give -r of a multiple of {} kB",
            dev.logical_block_bytes,
            (dev.logical_block_bytes / 1024).max(1)
        );
    }
    cfg.file = dev.path.clone();
    cfg.device = true;
    Ok(Some(dev))
}

/// After the run: IOzone's -b workbook and iogauge's heatmaps (single and
/// auto mode, --plot).
fn write_files(a: &Opts, cfg: &Config, rep: &exec::Report, command_line: &str) -> Result<()> {
    if let Some(o) = &rep.single {
        if let Some(b) = &cfg.workbook {
            report::write_workbook(b, &o.table, command_line).map_err(anyhow::Error::msg)?;
        }
        if let Some(dir) = &a.plot {
            heatmaps::write_heatmaps(dir, &o.table, command_line).map_err(anyhow::Error::msg)?;
        }
    }
    if let (Some(runs), Some(b)) = (&rep.figures.throughput, &cfg.workbook) {
        report::write_throughput_workbook(b, &throughput::table(cfg, runs), command_line)
            .map_err(anyhow::Error::msg)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_list_names_every_flag() {
        let h = flag_help();
        for f in FLAGS {
            assert!(h.contains(&format!("-{}", f.name)), "{}", f.name);
        }
    }

    #[test]
    fn long_options_after_iozone_flags_are_taken() {
        let o = Opts::default()
            .with_late(&["--json".into(), "x.json".into(), "--dir=/tmp".into()])
            .unwrap();
        assert_eq!(o.json, Some(PathBuf::from("x.json")));
        assert_eq!(o.dir, PathBuf::from("/tmp"));
        let e = Opts::default()
            .with_late(&["--bogus".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--bogus"), "{e}");
    }
}
