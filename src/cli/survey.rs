//! `iogauge survey`: the short form of every benchmark in the command
//! table, in table order, and a one-page scorecard.

use super::common::{OutputArgs, Status};
use super::{COMMANDS, Kind};
use crate::env::Environment;
use crate::report::{Collection, Entry, RunResult};
use crate::runner::{Progress, signals};
pub use crate::suites::survey::Form;
use crate::suites::survey::{Bars, Ctx, Row};
use crate::units::fmt_ns;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Measure the directory with a short form of every benchmark: the generic
/// workload at a few telling points (cached random reads, Chen & Patterson's
/// focal mix, a sequential write, O_DIRECT random reads), IOStone C/1 and
/// C/II, PostMark's and IOBENCH's defaults and a short self-scaling pass.
/// Prints a scorecard; writes every result to the JSON.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The directory to measure (the runs work in a subdirectory they remove).
    #[arg(default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    /// Keep the whole survey under a minute (2 s per workload instead of 10 s, smaller files).
    #[arg(long)]
    pub quick: bool,
    /// Where the self-scaling pass writes its model and graphs (default: beside --json, NAME-selfscale/; without either, they are not kept).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}

super::common::cmd!(output);

/// Draws a survey form's or a load point's progress bar on stderr
/// ([`crate::suites::survey::Bars`]).
pub fn bar(label: &str, duration: Option<Duration>, ops: Option<u64>) -> Box<dyn Progress> {
    match super::progress::Bar::new(label, duration, ops, true) {
        Some(b) => Box::new(b),
        None => Box::new(crate::runner::NoProgress),
    }
}

/// Widths of the scorecard's columns.
const NAME_W: usize = 38;
const FIG_W: usize = 20;
const LAT_W: usize = 10;

fn header() -> String {
    format!(
        "  {:<NAME_W$} {:>FIG_W$} {:>LAT_W$} {:>LAT_W$} {:>5}  {}\n",
        "benchmark", "figure", "p50", "p99", "io%", "of"
    )
}

/// Whose latency stands beside a figure: one unit of it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Per {
    /// A request of the workload (`metrics.request_response_ns`, else
    /// `request_latency_ns`): a read or a write.
    Request,
    /// The requests that moved the bytes: as [`Per::Request`], else the
    /// one data kind of the result (read, write or append).
    Data,
    /// A whole transaction (`ops.transaction`), named `of`: a PostMark or
    /// TPC-B transaction, an Sdet script.
    Transaction(&'static str),
    /// One op kind.
    Kind(&'static str),
    /// The unit has no latency of its own measured.
    Nothing,
}

/// A unit of the scorecard's figures.
struct Unit {
    unit: &'static str,
    means: &'static str,
    lower_is_better: bool,
    per: Per,
}

/// Every unit a short form may give its figure in.
const UNITS: &[Unit] = &[
    Unit {
        unit: "IO/s",
        means: "I/O calls (reads and writes) per second",
        lower_is_better: false,
        per: Per::Request,
    },
    Unit {
        unit: "MB/s",
        means: "10^6 bytes read or written per second",
        lower_is_better: false,
        per: Per::Data,
    },
    Unit {
        unit: "iostones/s",
        means: "IOStone's figure: its weighted mix of operations per second",
        lower_is_better: false,
        per: Per::Nothing,
    },
    Unit {
        unit: "tx/s",
        means: "transactions per second (PostMark, IOBENCH, FFSB's calls, TPC-B)",
        lower_is_better: false,
        per: Per::Transaction("transaction"),
    },
    Unit {
        unit: "seeks/s",
        means: "bonnie++'s random seeks per second (a read, one in ten written back)",
        lower_is_better: false,
        per: Per::Nothing,
    },
    Unit {
        unit: "files/s",
        means: "files created per second",
        lower_is_better: false,
        per: Per::Kind("create"),
    },
    Unit {
        unit: "ops/s",
        means: "LADDIS's NFS operations per second",
        lower_is_better: false,
        per: Per::Request,
    },
    Unit {
        unit: "scripts/h",
        means: "Sdet's scripts completed per hour",
        lower_is_better: false,
        per: Per::Transaction("script"),
    },
    Unit {
        unit: "s",
        means: "seconds: Andrew's time for its five phases",
        lower_is_better: true,
        per: Per::Nothing,
    },
];

fn unit_of(unit: &str) -> Option<&'static Unit> {
    UNITS.iter().find(|u| u.unit == unit)
}

/// The latency beside a row: what it is one of, and its p50 and p99 (ns).
/// An open loop's response time, else the service time; `None` when the
/// row's unit has none measured.
fn latency_of(r: &RunResult, unit: &str) -> Option<(&'static str, u64, u64)> {
    use crate::measure::LatencySummary;
    let metric = |k: &str| {
        r.metrics
            .get(k)
            .and_then(|v| serde_json::from_value::<LatencySummary>(v.clone()).ok())
    };
    let request = || {
        metric("request_response_ns")
            .or_else(|| metric("request_latency_ns"))
            .map(|l| ("request", l))
    };
    let kind = |k: &'static str, of: &'static str| {
        r.ops
            .get(k)
            .filter(|o| o.count > 0)
            .map(|o| (of, o.response_ns.clone().unwrap_or(o.latency_ns.clone())))
    };
    let (of, l) = match unit_of(unit)?.per {
        Per::Request => request(),
        Per::Data => request().or_else(|| {
            let data: Vec<&'static str> = ["read", "write", "append"]
                .into_iter()
                .filter(|k| r.ops.get(*k).is_some_and(|o| o.count > 0))
                .collect();
            match data[..] {
                [k] => kind(k, k),
                // a mix of kinds, and no latency of its requests together
                _ => None,
            }
        }),
        Per::Transaction(of) => kind("transaction", of),
        Per::Kind(k) => kind(k, k),
        Per::Nothing => None,
    }?;
    Some((of, l.p50, l.p99))
}

/// The legend: every unit the rows showed, in the order first shown, and
/// what the latency columns are.
fn legend(units: &[&str]) -> String {
    let mut s = String::from("\n  figure: the benchmark's own headline, in\n");
    let mut seen: Vec<&str> = Vec::new();
    for &u in units {
        if seen.contains(&u) {
            continue;
        }
        seen.push(u);
        match unit_of(u) {
            Some(x) => {
                s += &format!(
                    "    {:<10}  {}{}\n",
                    x.unit,
                    x.means,
                    if x.lower_is_better {
                        " (lower is better)"
                    } else {
                        ""
                    }
                )
            }
            None => s += &format!("    {u}\n"),
        }
    }
    let lower: Vec<&str> = seen
        .iter()
        .filter(|u| unit_of(u).is_some_and(|x| x.lower_is_better))
        .copied()
        .collect();
    s += &if lower.is_empty() {
        "    higher is better for each of them.\n".to_string()
    } else {
        format!(
            "    higher is better, except {} (lower is better).\n",
            lower.join(", ")
        )
    };
    s += "  p50, p99: latency of one unit of the figure, named under 'of' (a request, a transaction,\n       a script, a create; an open loop's from each request's intended start); '-' where the\n       unit has no latency of its own (iostones, seeks, FFSB's transactions, Andrew's
       seconds, the MB/s of a mix of reads and writes).\n";
    s += "  io%: share of the workers' time spent inside I/O calls (locks and CPU work are not I/O);\n       near 100 % the run measures the storage, well below it measures CPU, locks or think\n       time as well.\n";
    s
}

fn line(row: &Row) -> String {
    if let Some(why) = &row.not_measured {
        return not_measured_line(&row.name, why);
    }
    entry_line(
        &row.name,
        row.figure,
        row.unit,
        &row.result,
        row.note.as_deref(),
    )
}

/// A row's line of the scorecard, and its note under it.
fn entry_line(name: &str, figure: f64, unit: &str, r: &RunResult, note: Option<&str>) -> String {
    let (p50, p99, of) = latency_of(r, unit)
        .map_or(("-".into(), "-".into(), ""), |(k, p50, p99)| {
            (fmt_ns(p50 as f64), fmt_ns(p99 as f64), k)
        });
    let mut s = format!(
        "  {:<NAME_W$} {:>FIG_W$} {:>LAT_W$} {:>LAT_W$} {:>4.0}%  {}{}\n",
        name,
        format!("{} {}", human(figure), unit),
        p50,
        p99,
        r.summary.io_time_fraction * 100.0,
        of,
        if r.complete { "" } else { "  (incomplete)" }
    );
    if let Some(n) = note {
        s += &format!("  {:<NAME_W$} {n}\n", "");
    }
    // the row's warnings under it, by code (explained once at the end; the
    // JSON and `iogauge show` of the row's result give each in full)
    if !r.warnings.is_empty() {
        let codes: Vec<&str> = r.warnings.iter().map(|w| w.code.as_str()).collect();
        s += &format!("  {:<NAME_W$} warning: {}\n", "", codes.join(", "));
    }
    s
}

/// What each warning code of the scorecard's rows means, once.
fn warning_legend(codes: &[String]) -> String {
    let mut seen: Vec<&str> = codes.iter().map(String::as_str).collect();
    seen.sort_unstable();
    seen.dedup();
    if seen.is_empty() {
        return String::new();
    }
    let mut s = String::from("  warnings (each row's own figures are in its JSON result):\n");
    for code in seen {
        let what = match code {
            "fits_page_cache" => {
                "its data fit in the page cache: reads may have come from memory, not the disk"
            }
            "short_run" => {
                "measured for under 1 s: start-up weighs on the figure (the quick forms are short by design)"
            }
            "cpu_bound" => {
                "under half of the workers' time was in I/O: the figure measures CPU as much as storage"
            }
            "busy_machine" => {
                "other processes or the hypervisor (steal) took CPU while it was measured"
            }
            "direct_refused" | "direct_fallback" => {
                "O_DIRECT was refused: it ran through the page cache"
            }
            _ => "see docs/measurement.md",
        };
        s += &format!("    {code:<16} {what}\n");
    }
    s
}

/// The scorecard's title and column heads.
fn title(env: &Environment, quick: bool) -> String {
    format!(
        "iogauge survey of {} ({} on {}, {}){}\n\n{}",
        env.target_dir,
        env.fs_type,
        env.device,
        env.mount_options,
        if quick { ", quick" } else { "" },
        header()
    )
}

/// The benchmarks the survey has no short form of, for its last line.
fn not_in_survey() -> Vec<&'static str> {
    COMMANDS
        .iter()
        .filter(|e| e.kind == Kind::Benchmark && e.survey.is_none())
        .map(|e| e.name)
        .collect()
}

/// The closing lines: the legend and the benchmarks left out.
fn closing(units: &[&str], codes: &[String], skipped: &[&str]) -> String {
    let mut s = legend(units);
    s += &warning_legend(codes);
    if !skipped.is_empty() {
        s += &format!(
            "  not in the survey (no short form): {}\n",
            skipped.join(", ")
        );
    }
    s
}

/// The scorecard of a saved survey, as the survey printed it (without the
/// lines naming the files it wrote).
pub fn scorecard(c: &Collection) -> Result<String> {
    let env: Environment = serde_json::from_value(
        c.extra
            .get("environment")
            .cloned()
            .context("a survey without its environment")?,
    )
    .context("the survey's environment")?;
    let quick = c
        .extra
        .get("quick")
        .and_then(|q| q.as_bool())
        .unwrap_or(false);
    let mut s = title(&env, quick);
    let mut units = Vec::new();
    let codes: Vec<String> = c
        .entries
        .iter()
        .flat_map(|e| e.result.warnings.iter().map(|w| w.code.clone()))
        .collect();
    for e in &c.entries {
        match (e.figure, &e.unit) {
            (Some(figure), Some(unit)) => {
                s += &entry_line(&e.name, figure, unit, &e.result, e.note.as_deref());
                units.push(unit.as_str());
            }
            (None, _) if e.result.error.is_none() && e.note.is_some() => {
                s += &not_measured_line(&e.name, e.note.as_deref().unwrap_or_default());
            }
            _ => s += &failed_line(&e.name, e.result.error.as_deref().unwrap_or("no figure")),
        }
    }
    Ok(s + &closing(&units, &codes, &not_in_survey()))
}

/// Where the self-scaling pass writes: `--out`, else beside the JSON
/// (`scratch.json` → `scratch-selfscale/`); `None`: nowhere kept.
fn selfscale_dir(a: &Args) -> Option<PathBuf> {
    model_dir(a.out.as_deref(), a.output.json.as_deref())
}

fn model_dir(out: Option<&Path>, json: Option<&Path>) -> Option<PathBuf> {
    if let Some(o) = out {
        return Some(o.to_path_buf());
    }
    match json {
        Some(j) if j.as_os_str() != "-" => {
            let stem = j.file_stem().and_then(|s| s.to_str()).unwrap_or("survey");
            Some(j.with_file_name(format!("{stem}-selfscale")))
        }
        _ => None,
    }
}

pub fn main(a: Args) -> Result<Status> {
    check_places(&a)?;
    let keep = selfscale_dir(&a);
    let temp;
    let out = match &keep {
        Some(p) => {
            if p.exists() && !p.is_dir() {
                crate::usage!(
                    "{} is a file; the self-scaling pass needs a directory there (--out)",
                    p.display()
                );
            }
            p.clone()
        }
        None => {
            temp = crate::runner::WorkDir::create(&std::env::temp_dir(), "survey-model")
                .map_err(|e| crate::error::UsageError::new(e.to_string()))?;
            temp.path().to_path_buf()
        }
    };
    let per = Duration::from_secs(if a.quick { 2 } else { 10 });
    let ctx = Ctx {
        dir: &a.dir,
        quick: a.quick,
        per,
        direct_ok: crate::env::supports_direct(&a.dir).unwrap_or(false),
        out: &out,
        keep_out: keep.is_some(),
        bars: a.output.progress().then_some(bar as Bars),
    };
    let environment = crate::env::detect(&a.dir);
    let mut survey = Collection::new("iogauge/survey/v1", Vec::new());
    survey.set("quick", a.quick);
    survey.set("environment", &environment);
    let env = &environment;
    a.output.say(&title(env, a.quick));
    let mut t = Tally {
        survey,
        failures: Vec::new(),
        units: Vec::new(),
    };
    t.run_forms(&a, &ctx, &environment);
    t.close(&a)
}

/// The files the survey writes besides its result, checked with it; the
/// parent's name in the runs' messages; room for the largest short form,
/// before the scorecard begins.
fn check_places(a: &Args) -> Result<()> {
    let mut paths = super::common::Paths::new();
    if let Some(o) = selfscale_dir(a) {
        for f in crate::selfscale::MODEL_FILES {
            let p = o.join(f);
            paths.output(format!("the self-scaling pass's {}", p.display()), &p);
        }
    }
    a.output.check_with(&mut paths)?;
    // the runs' messages name the directory as it was given
    let label = format!("DIR {}", crate::error::shown_path(&a.dir));
    crate::session::name_parent(&a.dir, &label);
    crate::session::Setup::new("survey", &a.dir)
        .data(crate::suites::run::survey::largest(a.quick))
        .check()?;
    Ok(())
}

/// The survey as it goes: its document, each failure as "name: cause" in
/// the order they came, the benchmarks with no short form, the units shown.
struct Tally {
    survey: Collection,
    failures: Vec<String>,
    units: Vec<&'static str>,
}

impl Tally {
    /// Run each benchmark's short form, a line of the scorecard per row,
    /// until the end or an interruption.
    fn run_forms(&mut self, a: &Args, ctx: &Ctx, environment: &Environment) {
        for entry in COMMANDS.iter().filter(|e| e.kind == Kind::Benchmark) {
            let Some(form) = entry.survey else {
                continue;
            };
            if signals::interrupted() {
                break;
            }
            if let Err(e) = form(ctx, &mut |row: Row| self.row(a, row)) {
                if signals::interrupted() {
                    break;
                }
                self.failed(a, entry.name, &e, environment);
            }
        }
    }

    /// A row: its line, its entry, the document written again.
    fn row(&mut self, a: &Args, row: Row) {
        a.output.say(&line(&row));
        if row.not_measured.is_none() {
            self.units.push(row.unit);
        }
        if let Some(e) = &row.result.error {
            self.failures.push(format!("{}: {e}", row.name));
        }
        for (k, v) in &row.extra {
            self.survey.set(k, v);
        }
        // a row not measured has no figure; its note is why
        let (figure, unit, note) = match row.not_measured {
            Some(why) => (None, None, Some(why)),
            None => (Some(row.figure), Some(row.unit.to_string()), row.note),
        };
        self.survey.push(Entry {
            name: row.name,
            figure,
            unit,
            note,
            result: row.result,
        });
        // written after every row: a later failure loses nothing
        let _ = a.output.write_files(&self.survey);
    }

    /// A short form that failed (out of space, an I/O error, a refusal of
    /// the place) is this entry's failure, not bad usage: its entry says
    /// why, and the survey goes on.
    fn failed(&mut self, a: &Args, name: &'static str, e: &anyhow::Error, env: &Environment) {
        let cause = crate::error::cause(e);
        let r = failed_result(name, cause.clone(), || env.clone());
        a.output.say(&failed_line(name, &cause));
        self.failures.push(format!("{name}: {cause}"));
        self.survey.push(Entry::new(name, r));
        let _ = a.output.write_files(&self.survey);
    }

    /// The end: the document's state, the legend, the files written, the
    /// exit status.
    fn close(mut self, a: &Args) -> Result<Status> {
        let survey = &mut self.survey;
        if signals::interrupted() {
            survey.complete = false;
        }
        if let Some(first) = self.failures.first() {
            survey.complete = false;
            survey.error = Some(match self.failures.len() {
                1 => first.clone(),
                n => format!("{n} benchmarks failed; the first, {first}"),
            });
        }
        let codes: Vec<String> = survey
            .entries
            .iter()
            .flat_map(|e| e.result.warnings.iter().map(|w| w.code.clone()))
            .collect();
        a.output
            .say(&closing(&self.units, &codes, &not_in_survey()));
        a.output.write(&*survey)?;
        for (_, p) in a.output.targets() {
            if p.as_os_str() != "-" {
                a.output.say(&format!("wrote {}\n", p.display()));
            }
        }
        Ok(if signals::interrupted() {
            super::common::interrupted_line(a.output.any());
            Status::Interrupted
        } else if let Some(e) = &survey.error {
            eprintln!("iogauge: {e}");
            Status::Failed
        } else {
            Status::Done
        })
    }
}

/// The result of a `benchmark` run that failed with `cause`: the run's
/// own, as far as it got, or an empty one in `env` when it made none.
pub(super) fn failed_result(
    benchmark: &str,
    cause: String,
    env: impl FnOnce() -> Environment,
) -> RunResult {
    let mut r = crate::session::take_unfinished()
        .filter(|r| r.benchmark == benchmark)
        .unwrap_or_else(|| {
            RunResult::new(
                benchmark,
                serde_json::json!({}),
                env(),
                crate::report::now_rfc3339(),
            )
        });
    r.complete = false;
    r.error = Some(cause);
    r
}

/// The scorecard's line for a benchmark whose short form failed.
fn failed_line(name: &str, cause: &str) -> String {
    format!("  {name:<NAME_W$} FAILED: {cause}\n")
}

/// The scorecard's line for a row this machine or directory cannot
/// measure.
fn not_measured_line(name: &str, why: &str) -> String {
    format!("  {name:<NAME_W$} not measured: {why}\n")
}

/// 691234 → "691k", 1.2e8 → "120M", 812.3 → "812".
fn human(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2}G", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e4 {
        format!("{:.0}k", x / 1e3)
    } else if x >= 10.0 {
        format!("{x:.0}")
    } else {
        // small figures (Andrew's seconds) keep their digits
        format!("{x:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_goes_to_out_else_beside_the_json_file() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            model_dir(None, Some(Path::new("runs/s.json"))),
            Some(p("runs/s-selfscale"))
        );
        assert_eq!(
            model_dir(Some(Path::new("m")), Some(Path::new("s.json"))),
            Some(p("m"))
        );
        assert_eq!(model_dir(None, Some(Path::new("-"))), None);
        assert_eq!(model_dir(None, None), None);
    }

    #[test]
    fn rows_keep_the_columns_aligned() {
        let r = RunResult {
            complete: true,
            ..Default::default()
        };
        // the longest name the survey prints
        let mut row = Row::new("run: O_DIRECT 1 MiB sequential write", 123_456.0, "IO/s", r);
        row.note = Some("a note".into());
        let h = header();
        let l = line(&row);
        let first = l.lines().next().unwrap();
        // the io% column ends where the header's does
        assert_eq!(
            h.find("io%").unwrap() + 3,
            first.find('%').unwrap() + 1,
            "\n{h}{l}"
        );
        assert!(l.lines().nth(1).unwrap().trim_start().starts_with("a note"));
    }

    /// A row the machine cannot measure (no io_uring nor libaio, no
    /// O_DIRECT) says why in its place, live and when shown again.
    #[test]
    fn a_row_not_measured_says_why_in_its_place() {
        let name = "run: O_DIRECT 4 KiB random read, QD32";
        let why = "the directory refuses O_DIRECT";
        let row = Row::not_measured(name, why.into(), RunResult::default());
        let expected = format!("  {name:<NAME_W$} not measured: {why}\n");
        assert_eq!(line(&row), expected);
        let mut c = Collection::new("iogauge/survey/v1", Vec::new());
        let env = crate::env::detect(Path::new("."));
        c.extra
            .insert("environment".into(), serde_json::to_value(env).unwrap());
        c.entries.push(Entry {
            note: Some(why.into()),
            ..Entry::new(name, RunResult::default())
        });
        let card = scorecard(&c).unwrap();
        assert!(card.contains(&expected), "{card}");
        assert!(!card.contains("FAILED"), "{card}");
    }

    fn with_ops(ops: &[(&str, u64, u64)]) -> RunResult {
        let mut r = RunResult {
            complete: true,
            ..Default::default()
        };
        for &(k, p50, p99) in ops {
            let mut o = crate::report::OpSummary {
                count: 10,
                ..Default::default()
            };
            o.latency_ns.p50 = p50;
            o.latency_ns.p99 = p99;
            r.ops.insert(k.into(), o);
        }
        r
    }

    /// Issue 33: beside TPC-B's tx/s the scorecard showed the p50 of a read
    /// call; a row's latency is its own unit's.
    #[test]
    fn a_row_shows_the_latency_of_its_own_unit() {
        let tpcb = with_ops(&[
            ("read", 640, 1_500),
            ("lock", 100, 200),
            ("transaction", 5_000_000, 9_000_000),
        ]);
        let l = line(&Row::new("tpcb", 52_000.0, "tx/s", tpcb.clone()));
        assert!(l.contains("5.00 ms") && l.contains("9.00 ms"), "{l}");
        assert!(l.trim_end().ends_with("transaction"), "{l}");
        // Sdet's scripts are its transactions
        let l = line(&Row::new("sdet", 9.0, "scripts/h", tpcb.clone()));
        assert!(l.trim_end().ends_with("script"), "{l}");
        // no unit of its own: no latency
        for unit in ["s", "iostones/s", "seeks/s"] {
            let l = line(&Row::new("x", 1.0, unit, tpcb.clone()));
            assert!(
                !l.contains("ms") && l.matches(" - ").count() >= 1,
                "{unit}: {l}"
            );
        }
        // a request: the workload's own metric, reads and writes together
        let mut run = with_ops(&[("read", 1_000, 2_000), ("write", 3_000, 4_000)]);
        let req = crate::measure::LatencySummary {
            p50: 1_500,
            p99: 3_900,
            ..Default::default()
        };
        run.metric("request_latency_ns", &req);
        let l = line(&Row::new("run", 1.0, "IO/s", run.clone()));
        assert!(
            l.contains("1.5 µs") && l.trim_end().ends_with("request"),
            "{l}"
        );
        // MB/s of a mix without that metric: no single kind to show
        run.metrics.clear();
        let l = line(&Row::new("mix", 1.0, "MB/s", run));
        assert!(!l.contains("µs"), "{l}");
        // MB/s of one kind: that kind's
        let l = line(&Row::new(
            "w",
            1.0,
            "MB/s",
            with_ops(&[("write", 3_000, 4_000), ("fsync", 9, 9)]),
        ));
        assert!(
            l.contains("3.0 µs") && l.trim_end().ends_with("write"),
            "{l}"
        );
        let l = line(&Row::new(
            "c",
            1.0,
            "files/s",
            with_ops(&[("create", 4_800, 10_100)]),
        ));
        assert!(l.trim_end().ends_with("create"), "{l}");
    }

    #[test]
    fn the_legend_covers_every_unit_shown_and_says_which_are_lower_is_better() {
        let units: Vec<&str> = UNITS.iter().map(|u| u.unit).collect();
        let l = legend(&units);
        for u in &units {
            assert!(l.contains(&format!("    {u:<10}  ")), "{u}: {l}");
        }
        assert!(
            l.contains("Andrew's time for its five phases (lower is better)"),
            "{l}"
        );
        assert!(
            l.contains("higher is better, except s (lower is better)"),
            "{l}"
        );
        let only = legend(&["IO/s", "IO/s", "tx/s"]);
        assert_eq!(only.matches("IO/s").count(), 1, "{only}");
        assert!(!only.contains("scripts/h") && only.contains("higher is better for each"));
    }
}
