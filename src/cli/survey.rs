//! `iogauge survey`: the short form of every benchmark in the command
//! table, in table order, and a one-page scorecard.

use super::common::{OutputArgs, Status};
use super::{COMMANDS, Kind};
use crate::report::{Collection, Entry, RunResult};
use crate::runner::signals;
use crate::units::fmt_ns;
use anyhow::Result;
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

impl super::Cmd for Args {
    fn main(self) -> Result<Status> {
        main(self)
    }
    fn output(&self) -> Option<OutputArgs> {
        Some(self.output.clone())
    }
}

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
    /// Draw progress bars.
    pub progress: bool,
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
            progress: false,
        }
    }
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

/// A benchmark's short form: run, and hand each row to `emit` as soon as
/// it is measured.
pub type Form = fn(&Ctx, &mut dyn FnMut(Row)) -> Result<()>;

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

/// The operation whose latency a row shows: reads, else writes, else the
/// first kind measured.
fn latency_of(r: &RunResult) -> Option<(&str, &crate::report::OpSummary)> {
    ["read", "write", "transaction"]
        .iter()
        .find_map(|k| r.ops.get_key_value(*k))
        .or_else(|| r.ops.iter().next())
        .map(|(k, v)| (k.as_str(), v))
}

fn line(row: &Row) -> String {
    let r = &row.result;
    let (p50, p99, of) = latency_of(r).map_or(("-".into(), "-".into(), ""), |(k, o)| {
        (
            fmt_ns(o.latency_ns.p50 as f64),
            fmt_ns(o.latency_ns.p99 as f64),
            k,
        )
    });
    let mut s = format!(
        "  {:<NAME_W$} {:>FIG_W$} {:>LAT_W$} {:>LAT_W$} {:>4.0}%  {}{}\n",
        row.name,
        format!("{} {}", human(row.figure), row.unit),
        p50,
        p99,
        r.summary.io_time_fraction * 100.0,
        of,
        if r.complete { "" } else { "  (incomplete)" }
    );
    if let Some(n) = &row.note {
        s += &format!("  {:<NAME_W$} {n}\n", "");
    }
    s
}

const LEGEND: &str = "\n  figure: the benchmark's own headline (IO/s, MB/s = 10^6 B/s, iostones/s, transactions/s).\n  p50, p99: latency of the operation named under 'of' (reads, else writes, else transactions).\n  io%: share of the workers' time spent inside I/O calls; near 100 % the run measures the storage,\n       well below it measures CPU, locks or think time as well.\n";

/// Where the self-scaling pass writes: `--out`, else beside the JSON
/// (`scratch.json` → `scratch-selfscale/`); `None`: nowhere kept.
fn selfscale_dir(a: &Args) -> Option<PathBuf> {
    if let Some(o) = &a.out {
        return Some(o.clone());
    }
    match &a.output.json {
        Some(j) if j.as_os_str() != "-" => {
            let stem = j.file_stem().and_then(|s| s.to_str()).unwrap_or("survey");
            Some(j.with_file_name(format!("{stem}-selfscale")))
        }
        _ => None,
    }
}

pub fn main(a: Args) -> Result<Status> {
    a.output.check()?;
    crate::runner::workdir::check_dir(&a.dir)
        .map_err(|e| crate::error::UsageError::new(e.to_string()))?;
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
        progress: a.output.progress(),
    };
    let environment = crate::env::detect(&a.dir);
    let mut survey = Collection::new("iogauge/survey/v1", Vec::new());
    survey.set("quick", a.quick);
    survey.set("environment", &environment);
    let env = &environment;
    a.output.say(&format!(
        "iogauge survey of {} ({} on {}, {}){}\n\n{}",
        env.target_dir,
        env.fs_type,
        env.device,
        env.mount_options,
        if a.quick { ", quick" } else { "" },
        header()
    ));
    // each failure as "name: cause", in the order they came
    let mut failures: Vec<String> = Vec::new();
    let mut skipped = Vec::new();
    for entry in COMMANDS.iter().filter(|e| e.kind == Kind::Benchmark) {
        let Some(form) = entry.survey else {
            skipped.push(entry.name);
            continue;
        };
        if signals::interrupted() {
            break;
        }
        let mut emit = |row: Row| {
            a.output.say(&line(&row));
            if let Some(e) = &row.result.error {
                failures.push(format!("{}: {e}", row.name));
            }
            for (k, v) in &row.extra {
                survey.set(k, v);
            }
            survey.push(Entry {
                name: row.name,
                figure: Some(row.figure),
                unit: Some(row.unit.to_string()),
                result: row.result,
            });
            // written after every row: a later failure loses nothing
            let _ = a.output.write_files(&survey);
        };
        if let Err(e) = form(&ctx, &mut emit) {
            if signals::interrupted() {
                break;
            }
            // a short form that fails (out of space, an I/O error, a
            // refusal of the place) is this entry's failure, not bad usage:
            // its entry says why, and the survey goes on
            let cause = crate::error::cause(&e);
            let mut r = crate::runner::setup::take_unfinished()
                .filter(|r| r.benchmark == entry.name)
                .unwrap_or_else(|| {
                    RunResult::new(
                        entry.name,
                        serde_json::json!({}),
                        environment.clone(),
                        crate::report::now_rfc3339(),
                    )
                });
            r.complete = false;
            r.error = Some(cause.clone());
            a.output.say(&failed_line(entry.name, &cause));
            failures.push(format!("{}: {cause}", entry.name));
            survey.push(Entry::new(entry.name, r));
            let _ = a.output.write_files(&survey);
        }
    }
    if signals::interrupted() {
        survey.complete = false;
    }
    if let Some(first) = failures.first() {
        survey.complete = false;
        survey.error = Some(match failures.len() {
            1 => first.clone(),
            n => format!("{n} benchmarks failed; the first, {first}"),
        });
    }
    a.output.say(LEGEND);
    if !skipped.is_empty() {
        a.output.say(&format!(
            "  not in the survey (no short form): {}\n",
            skipped.join(", ")
        ));
    }
    a.output.write(&survey)?;
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

/// The scorecard's line for a benchmark whose short form failed.
fn failed_line(name: &str, cause: &str) -> String {
    format!("  {name:<NAME_W$} FAILED: {cause}\n")
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
}
