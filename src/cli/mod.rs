//! The command line: one file per subcommand, one table of them
//! ([`COMMANDS`]), the flags they share, and how errors become exit codes
//! (0 done; 1 the run failed; 2 bad usage or input; 3 --verify found a
//! wrong unit; 130 interrupted).
//!
//! The table drives everything that lists commands: the subcommands clap
//! parses, `iogauge` with no command, `--help`, the survey (each benchmark's
//! short form, in table order) and the docs index test. Adding a benchmark
//! is its folder in `suites/`, its file here, and one line of the table.

mod andrew;
mod bonnie;
mod common;
mod compare;
mod device;
mod engines;
mod ffsb;
mod fio;
mod iobench;
mod iostone;
mod iozone;
mod laddis;
mod pin;
mod postmark;
mod progress;
mod repeat;
mod report;
mod run;
mod scale;
mod scientific;
mod sdet;
mod selfscale;
mod shell;
mod show;
pub mod survey;
mod tpcb;
mod verify;
mod worker;

pub use common::{EngineArgs, OutputArgs, Status, SyncArgs};

use crate::suites::benchmark::survey_of;
use clap::{ArgMatches, FromArgMatches};
use std::process::ExitCode;

/// Every command, in the order help and the survey show them.
#[rustfmt::skip]
pub const COMMANDS: &[Entry] = &[
    tool::<survey::Args>("survey", "Run a short form of every benchmark and print a one-page scorecard.", "docs/survey.md"),
    bench::<run::Args>("run", "The generic workload: Chen & Patterson's five parameters.", "docs/run.md", survey_of("run")),
    bench::<iostone::Args>("iostone", "IOStone (Park & Lipton 1987; C/II 1990): random transfers of nine sizes.", "docs/iostone.md", survey_of("iostone")),
    bench::<postmark::Args>("postmark", "PostMark 1.53 (Katcher 1997): small-file create/read/append/delete, its command language and report.", "docs/postmark.md", survey_of("postmark")),
    bench::<iobench::Args>("iobench", "IOBENCH (Wolman & Olson 1989): multi-user transactions with locks and CPU work.", "docs/iobench.md", survey_of("iobench")),
    bench::<bonnie::Args>("bonnie", "Bonnie (Bray 1996, as Chen & Patterson ran it) and bonnie++ 2.00a (--flavor bonnie++): per-char and block I/O, rewrite, seeks, small files.", "docs/bonnie.md", survey_of("bonnie")),
    bench::<iozone::Args>("iozone", "IOzone 3.489 (Norcott & Capps) with IOzone's own flags: its tests, auto mode (-a), throughput mode (-t), -R and -b reports.", "docs/iozone.md", survey_of("iozone")),
    bench::<ffsb::Args>("ffsb", "FFSB 6.0-rc2 (IBM): profile files of file sets, aging and thread groups of weighted file operations, its report.", "docs/ffsb.md", survey_of("ffsb")),
    bench::<scientific::Args>("scientific", "Chen & Patterson's scientific workloads: a large file written and read sequentially in large requests.", "docs/scientific.md", survey_of("scientific")),
    bench::<tpcb::Args>("tpcb", "TPC-B (1990): the debit-credit transaction on a bank's record files, tps and response times at one load point.", "docs/tpcb.md", survey_of("tpcb")),
    bench::<laddis::Args>("laddis", "LADDIS (SPEC SFS 1.0, 1993) and nhfsstone: an NFS v2 operation mix as local calls over a scaled file set, NFS ops/s and average response time at one load point.", "docs/laddis.md", survey_of("laddis")),
    bench::<andrew::Args>("andrew", "The Andrew benchmark (CMU 1987, as Chen & Patterson ran it): copy, scan, read and compile a small source tree; each phase's seconds and share of I/O.", "docs/andrew.md", survey_of("andrew")),
    bench::<sdet::Args>("sdet", "Sdet (SPEC SDM, 1991): concurrent scripts of software-development commands (edit, compile, format, copy, create, delete, list), scripts per hour against concurrency and its peak.", "docs/sdet.md", survey_of("sdet")),
    tool::<scale::Args>("scale", "Throughput against response time: a workload (any with a load point: run, tpcb, laddis) at rising load, closed or open loop, its knee, the best throughput under a response-time constraint, the Universal Scalability Law.", "docs/scale.md"),
    bench::<selfscale::Args>("selfscale", "Chen & Patterson's self-scaling benchmark: finds the performance regions and focal points by itself and models throughput.", "docs/selfscale.md", survey_of("selfscale")),
    tool::<selfscale::PredictArgs>("predict", "Predict the throughput of workloads from a selfscale model (the product of its single-parameter curves).", "docs/selfscale.md"),
    tool::<fio::Args>("fio", "fio's job files and --name=… --rw=… command lines, read as fio reads them; --parse-only shows each job resolved, with where every value came from.", "docs/fio.md"),
    tool::<compare::Args>("compare", "Compare two results or two --repeat series metric by metric: change, significance (Welch's t-test or a block bootstrap), and an exit code for CI (--fail-if-slower).", "docs/compare.md"),
    tool::<report::Args>("report", "Make one self-contained HTML page of saved results (and fio's JSON output): headline figures, classic reports, latency percentiles, throughput over time, graphs; several runs side by side.", "docs/report.md"),
    tool::<show::Args>("show", "Print a saved result's report again (from --json), as the benchmark printed it.", "docs/measurement.md"),
    tool::<shell::Completions>("completions", "Print a completion script for bash, zsh, fish, elvish or powershell.", "docs/shell.md"),
    tool::<shell::Man>("man", "Print iogauge's manual page, or a command's, or write every page (--dir).", "docs/shell.md"),
    tool::<engines::Args>("engines", "List the I/O engines and what each does.", "docs/measurement.md"),
    hidden::<worker::Args>("worker", "One worker process of a run (started by iogauge itself, not by hand)."),
];

/// A subcommand's arguments and what it does with them.
pub trait Cmd: clap::Args + FromArgMatches {
    /// The engine used without `--engine`, named in the command's help.
    const DEFAULT_ENGINE: Option<&'static str> = None;
    /// The engines the command can run on, when not every engine of the
    /// table: its help offers only these.
    const ENGINES: Option<&'static [crate::engine::Choice]> = None;
    /// When the command has a load point: the line `iogauge scale`'s help
    /// gives it as one of scale's workloads.
    const LOAD_ABOUT: Option<&'static str> = None;
    fn main(self) -> anyhow::Result<Status>;
    /// The command at a load point, for `iogauge scale` (with
    /// [`Cmd::LOAD_ABOUT`]).
    fn load_point(self) -> Option<scale::Point> {
        None
    }
    /// Where the command writes its result: a run that fails still writes
    /// one there ([`common::write_failure`]). `None`: it writes no result.
    fn output(&self) -> Option<OutputArgs> {
        None
    }
}

/// What the table says of a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A benchmark: it measures, and the survey may run its short form.
    Benchmark,
    /// A command around the benchmarks (survey, predict, engines).
    Tool,
    /// Started by iogauge itself; not shown.
    Hidden,
}

/// One line of the command table.
pub struct Entry {
    pub name: &'static str,
    /// One line for `iogauge` with no command and `--help`.
    pub about: &'static str,
    /// The docs page a user reads about it.
    pub doc: Option<&'static str>,
    pub kind: Kind,
    /// Its short form in `iogauge survey`; `None`: not in the survey.
    pub survey: Option<survey::Form>,
    /// The engines `--engine` takes (`None`: all of the table).
    pub engines: Option<&'static [crate::engine::Choice]>,
    /// Its load point, when it has one: scale's help line, and how the
    /// point is made from the command's own flags.
    pub load: Option<(&'static str, LoadFn)>,
    command: fn() -> clap::Command,
    run: fn(&'static str, &ArgMatches) -> anyhow::Result<Status>,
}

/// Makes a command's load point from its parsed flags.
pub type LoadFn = fn(&ArgMatches) -> Result<scale::Point, clap::Error>;

impl Entry {
    /// The clap command of this entry, with its name and about line.
    pub fn command(&self) -> clap::Command {
        let mut c = (self.command)().name(self.name).about(self.about);
        if self.kind == Kind::Hidden {
            c = c.hide(true);
        }
        // repetitions are for benchmarks; tools that share their output
        // flags refuse them (cli/repeat.rs)
        if self.kind != Kind::Benchmark && c.get_arguments().any(|a| a.get_id() == "repeat") {
            c = c
                .mut_arg("repeat", |a| a.hide(true))
                .mut_arg("cv_warn", |a| a.hide(true));
        }
        c
    }
}

const fn entry<A: Cmd>(
    name: &'static str,
    about: &'static str,
    doc: Option<&'static str>,
    kind: Kind,
    survey: Option<survey::Form>,
) -> Entry {
    Entry {
        name,
        about,
        doc,
        kind,
        survey,
        engines: A::ENGINES,
        load: match A::LOAD_ABOUT {
            Some(about) => Some((about, load_of::<A> as LoadFn)),
            None => None,
        },
        command: command_of::<A>,
        run: run_of::<A>,
    }
}

const fn bench<A: Cmd>(
    name: &'static str,
    about: &'static str,
    doc: &'static str,
    survey: Option<survey::Form>,
) -> Entry {
    entry::<A>(name, about, Some(doc), Kind::Benchmark, survey)
}

const fn tool<A: Cmd>(name: &'static str, about: &'static str, doc: &'static str) -> Entry {
    entry::<A>(name, about, Some(doc), Kind::Tool, None)
}

const fn hidden<A: Cmd>(name: &'static str, about: &'static str) -> Entry {
    entry::<A>(name, about, None, Kind::Hidden, None)
}

fn command_of<A: Cmd>() -> clap::Command {
    let c = A::augment_args(clap::Command::new("command"));
    match A::DEFAULT_ENGINE {
        Some(d) if c.get_arguments().any(|a| a.get_id() == "engine") => c.mut_arg("engine", |a| {
            let names = match A::ENGINES {
                Some(list) => list.iter().map(|e| e.name()).collect::<Vec<_>>().join(", "),
                None => crate::engine::names(),
            };
            a.help(format!(
                "I/O engine: {names} ('iogauge engines' describes each). Default: {d}."
            ))
        }),
        _ => c,
    }
}

fn load_of<A: Cmd>(m: &ArgMatches) -> Result<scale::Point, clap::Error> {
    A::from_arg_matches(m)?.load_point().ok_or_else(|| {
        clap::Error::raw(
            clap::error::ErrorKind::InvalidSubcommand,
            "this command has no load point",
        )
    })
}

/// Run the command; when it fails at run time, its result is written all
/// the same (`complete: false`, with the cause) before the cause is shown.
fn run_of<A: Cmd>(name: &'static str, m: &ArgMatches) -> anyhow::Result<Status> {
    let a = A::from_arg_matches(m).map_err(|e| crate::error::UsageError::new(e.to_string()))?;
    let out = a.output();
    if let Some(o) = &out {
        o.live.apply(name, o)?;
        o.start_hist_log()?;
        // --repeat N: the command N times, one document for the series
        if let Some(n) = o.repeat.repeat {
            let entry = COMMANDS.iter().find(|e| e.name == name);
            return repeat::run::<A>(entry.expect("run_of runs commands of the table"), m, o, n);
        }
    }
    if let Some(p) = out.as_ref().and_then(|o| o.json.as_deref()) {
        crate::report::export::expect_provisional(p);
    }
    let r = a.main();
    // a verdict the command's result did not carry is not lost
    if let Some(v) = crate::runner::live::take_verdict().filter(|v| !v.phases.is_empty()) {
        eprint!("{}", v.describe());
    }
    if let (Err(e), Some(out)) = (&r, out)
        && !crate::error::is_usage(e)
        && !is_broken_pipe(e)
    {
        common::write_failure(&out, name, e);
    }
    crate::report::export::end_provisional();
    r
}

const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("IOGAUGE_COMMIT"),
    ")"
);

const ABOUT: &str = "iogauge: storage and file-system benchmarks you can trust.";
const LONG_ABOUT: &str = "iogauge: storage and file-system benchmarks you can trust.

Every command times each operation in nanoseconds into HDR histograms, records CPU use, the share of time spent in I/O and throughput over time, and the machine, file system and mount options it ran on. `--json PATH` writes all of it; the text report goes to stdout.";

/// The whole command line, built from the table.
pub fn command() -> clap::Command {
    command_of_entries(COMMANDS.iter())
}

/// [`command`] without the hidden commands (the worker iogauge starts
/// itself): what completion scripts and manual pages offer.
pub fn visible_command() -> clap::Command {
    command_of_entries(COMMANDS.iter().filter(|e| e.kind != Kind::Hidden))
}

fn command_of_entries<'a>(entries: impl Iterator<Item = &'a Entry>) -> clap::Command {
    clap::Command::new("iogauge")
        .version(LONG_VERSION)
        .about(ABOUT)
        .long_about(LONG_ABOUT)
        .propagate_version(true)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommands(entries.map(Entry::command))
}

/// The commands a user sees, one per line, for `iogauge` with no command.
pub fn command_list() -> String {
    let width = COMMANDS.iter().map(|e| e.name.len()).max().unwrap_or(0);
    COMMANDS
        .iter()
        .filter(|e| e.kind != Kind::Hidden)
        .map(|e| format!("  {:<width$}  {}\n", e.name, e.about))
        .collect()
}

/// Parse the command line, run the command, map the outcome to an exit code.
pub fn main() -> ExitCode {
    crate::runner::signals::install();
    let matches = match command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            use clap::error::ErrorKind;
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = e.print();
                    ExitCode::SUCCESS
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                | ErrorKind::MissingSubcommand
                    if let Some((name, subs)) = missing_subcommand() =>
                {
                    eprintln!(
                        "iogauge: 'iogauge {name}' needs one of its commands: {subs} (see 'iogauge {name} --help')"
                    );
                    ExitCode::from(2)
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                | ErrorKind::MissingSubcommand => {
                    eprintln!(
                        "iogauge: a command is required (see 'iogauge --help'):\n{}",
                        command_list()
                    );
                    ExitCode::from(2)
                }
                _ => {
                    // point at the command's own help when one was named
                    let sub = std::env::args()
                        .nth(1)
                        .filter(|a| {
                            COMMANDS
                                .iter()
                                .any(|e| e.kind != Kind::Hidden && e.name == a)
                        })
                        .map(|a| format!("{a} "))
                        .unwrap_or_default();
                    eprintln!(
                        "iogauge: {} (see 'iogauge {sub}--help')",
                        crate::error::shown(&clap_line(&e))
                    );
                    ExitCode::from(2)
                }
            };
        }
    };
    let (name, sub) = matches.subcommand().expect("a subcommand is required");
    let entry = COMMANDS
        .iter()
        .find(|e| e.name == name)
        .expect("clap only accepts commands of the table");
    // under mpirun: join the job (a worker process is a rank's child)
    if entry.kind != Kind::Hidden
        && let Err(e) = crate::cluster::init(entry.name)
    {
        return exit_code(Err(e));
    }
    let code = exit_code((entry.run)(entry.name, sub));
    crate::cluster::finish();
    code
}

/// A command named without the subcommand it needs (`iogauge scale`):
/// its name and its own subcommands, to list those and not the top level's.
fn missing_subcommand() -> Option<(String, String)> {
    let name = std::env::args().nth(1)?;
    let cmd = command();
    let sub = cmd.find_subcommand(&name)?;
    let subs: Vec<&str> = sub
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name())
        .collect();
    (!subs.is_empty()).then(|| (name, subs.join(", ")))
}

/// Clap's message as one line: what is wrong, with the argument's name.
fn clap_line(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = e.to_string();
    let first = text.lines().next().unwrap_or("bad usage");
    let first = first.strip_prefix("error: ").unwrap_or(first).to_string();
    let ctx = |k: ContextKind| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(v)) => Some(v.join(", ")),
        _ => None,
    };
    match e.kind() {
        // clap puts the names on the lines after the first
        ErrorKind::MissingRequiredArgument => match ctx(ContextKind::InvalidArg) {
            Some(args) => format!("missing required argument: {args}"),
            None => first,
        },
        ErrorKind::InvalidValue => {
            match (ctx(ContextKind::InvalidValue), ctx(ContextKind::InvalidArg)) {
                (Some(v), Some(arg)) => {
                    let valid = ctx(ContextKind::ValidValue)
                        .map(|v| format!("; the values are: {v}"))
                        .unwrap_or_default();
                    format!("invalid value '{v}' for {arg}{valid}")
                }
                _ => first,
            }
        }
        _ => first,
    }
}

fn exit_code(result: anyhow::Result<Status>) -> ExitCode {
    match result {
        // a work directory it could not remove was named on stderr
        Ok(Status::Done) if crate::runner::workdir::left_behind() > 0 => ExitCode::from(1),
        Ok(Status::Done) => ExitCode::SUCCESS,
        Ok(Status::Failed) => ExitCode::from(1),
        Ok(Status::Interrupted) => ExitCode::from(130),
        Ok(Status::Mismatch) => ExitCode::from(3),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            // one line, whatever the causes hold
            let msg = crate::error::shown(&crate::error::cause(&e));
            eprintln!("iogauge: {msg}");
            if crate::error::is_usage(&e) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_is_well_formed() {
        command().debug_assert();
    }

    #[test]
    fn the_table_has_unique_names_and_every_visible_command_a_doc() {
        let mut names: Vec<&str> = COMMANDS.iter().map(|e| e.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), COMMANDS.len());
        for e in COMMANDS {
            assert!(!e.about.is_empty() && !e.about.contains('\n'), "{}", e.name);
            if e.kind != Kind::Hidden {
                assert!(e.doc.is_some(), "{} has no docs page", e.name);
            }
            if e.kind != Kind::Benchmark {
                assert!(
                    e.survey.is_none(),
                    "{}: only benchmarks join the survey",
                    e.name
                );
            }
        }
    }

    /// The docs index: every page the table names exists, and the README
    /// lists every visible command with its page.
    #[test]
    fn docs_index_matches_the_table() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        for e in COMMANDS.iter().filter(|e| e.kind != Kind::Hidden) {
            let doc = e.doc.unwrap();
            assert!(
                root.join(doc).is_file(),
                "{} names {doc}, which is missing",
                e.name
            );
            assert!(
                readme.contains(&format!("`iogauge {}", e.name)),
                "the README does not list 'iogauge {}'",
                e.name
            );
            assert!(readme.contains(doc), "the README does not link {doc}");
        }
    }

    /// Every flag of every subcommand says what it does.
    #[test]
    fn every_flag_has_help() {
        for sub in command().get_subcommands() {
            for arg in sub.get_arguments() {
                if arg.get_id() == "help" || arg.get_id() == "version" {
                    continue;
                }
                assert!(
                    arg.get_help().is_some(),
                    "{} --{} has no help",
                    sub.get_name(),
                    arg.get_id()
                );
            }
        }
    }

    /// Help lists the engines from the table, only those the command
    /// takes, and each command's own default.
    #[test]
    fn engine_help_comes_from_the_table() {
        for entry in COMMANDS {
            let sub = entry.command();
            if let Some(a) = sub.get_arguments().find(|a| a.get_id() == "engine") {
                let h = a.get_help().unwrap().to_string();
                let names = h.split(" ('iogauge engines'").next().unwrap();
                for e in crate::engine::ENGINES {
                    let takes = entry
                        .engines
                        .is_none_or(|list| list.iter().any(|c| c.name() == e.name));
                    assert_eq!(names.contains(e.name), takes, "{}: {h}", sub.get_name());
                }
                assert!(!h.contains(" for run, "), "{}: {h}", sub.get_name());
            }
        }
    }

    /// Issue 33: a command's help offers no engine the command refuses
    /// whatever else is asked (tpcb offered buffered and null, ffsb null).
    #[test]
    fn help_offers_no_engine_the_command_always_refuses() {
        use crate::engine::Choice;
        let tpcb = |engine| {
            crate::suites::tpcb::run::Options {
                engine,
                ..crate::suites::tpcb::run::Options::new(std::path::Path::new("."))
            }
            .check()
        };
        let iostone = |engine| {
            crate::suites::iostone::Options {
                engine,
                ..crate::suites::iostone::Options::new(
                    crate::suites::iostone::Variant::C1,
                    std::path::Path::new("."),
                )
            }
            .check()
        };
        for entry in COMMANDS.iter().filter(|e| e.engines.is_some()) {
            for info in crate::engine::ENGINES {
                let c = Choice::parse(info.name).unwrap();
                let offered = entry.engines.unwrap().iter().any(|o| o.name() == c.name());
                let refused = match entry.name {
                    "tpcb" => tpcb(c).is_err(),
                    "ffsb" => c.is_fake() || !c.caps().grows_files,
                    "postmark" => postmark::check_engine(c).is_err(),
                    "iostone" => iostone(c).is_err(),
                    other => panic!("{other}: say here how it refuses engines"),
                };
                assert_eq!(offered, !refused, "{} --engine {}", entry.name, c.name());
            }
        }
    }
}
