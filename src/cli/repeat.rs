//! `--repeat N`: any benchmark run N times in a row, one document for all.
//!
//! Each run is the command as given, its arguments built again from the
//! command line; a benchmark with a `--seed` (or bonnie's `-z`) gets the
//! given seed plus k − 1 on run k, so the runs issue different request
//! streams and each can be run again alone with its seed. While a run goes
//! the exporters keep its document instead of writing it
//! ([`export::capture_begin`]); the series' document
//! ([`Repeats`]: every run's document, then the spread of each headline
//! metric) is written after each run, so a failure or Ctrl-C keeps the
//! runs done so far.

use super::common::{self, OutputArgs, Status};
use super::{Cmd, Entry};
use crate::report::export;
use crate::report::repeats::{self, Repeats};
use anyhow::{Context, Result};
use clap::ArgMatches;
use std::ffi::OsString;
use std::fmt::Write;

/// The confidence of the intervals of the summary.
const CONFIDENCE: f64 = 0.95;

/// The seed the command line gives `m`, and whether it is 32-bit.
fn given_seed(m: &ArgMatches) -> Option<(u64, bool)> {
    if let Ok(Some(s)) = m.try_get_one::<u64>("seed") {
        return Some((*s, false));
    }
    if let Ok(Some(s)) = m.try_get_one::<u32>("seed") {
        return Some((u64::from(*s), true));
    }
    None
}

/// Run k's seed (k from 1): the given one, then one more each run.
pub fn derived_seed(given: u64, narrow: bool, k: u32) -> u64 {
    if narrow {
        u64::from((given as u32).wrapping_add(k - 1))
    } else {
        given.wrapping_add(u64::from(k - 1))
    }
}

/// The command's arguments for a run with `seed`: the command line again,
/// with the seed flag added last (the last one counts).
fn matches_with_seed(entry: &Entry, seed: u64) -> Result<ArgMatches> {
    let cmd = entry.command().args_override_self(true);
    let arg = cmd
        .get_arguments()
        .find(|a| a.get_id() == "seed")
        .context("the command has no seed flag")?;
    let flag = match (arg.get_long(), arg.get_short()) {
        (Some(l), _) => format!("--{l}"),
        (None, Some(c)) => format!("-{c}"),
        (None, None) => anyhow::bail!("the seed flag has no name"),
    };
    // the subcommand's own arguments, as given
    let mut argv: Vec<OsString> = std::env::args_os().skip(1).collect();
    let at = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
    argv.splice(
        at..at,
        [OsString::from(flag), OsString::from(seed.to_string())],
    );
    cmd.try_get_matches_from(argv)
        .map_err(|e| crate::error::UsageError::new(e.to_string()).into())
}

/// Run `A` `n` times and write the series' document.
pub fn run<A: Cmd>(entry: &Entry, m: &ArgMatches, out: &OutputArgs, n: u32) -> Result<Status> {
    if crate::cluster::active() || crate::cluster::launched_ranks().is_some_and(|r| r > 1) {
        crate::usage!(
            "--repeat: not under mpirun; start the job N times instead (each rank's seed comes from --seed)"
        );
    }
    if entry.kind != super::Kind::Benchmark {
        crate::usage!(
            "--repeat is for benchmarks; '{}' is not one (see 'iogauge --help')",
            entry.name
        );
    }
    out.check()?;
    let seed = given_seed(m);
    let mut doc = Repeats::new(entry.name, n, CONFIDENCE, out.repeat.cv_warn);
    let mut status = Status::Done;
    let mut failure = None;
    for k in 1..=n {
        if k > 1 && crate::runner::signals::interrupted() {
            status = Status::Interrupted;
            break;
        }
        let run_seed = seed.map(|(s, narrow)| derived_seed(s, narrow, k));
        let a = match run_seed {
            Some(s) if k > 1 => A::from_arg_matches(&matches_with_seed(entry, s)?),
            _ => A::from_arg_matches(m),
        }
        .map_err(|e| crate::error::UsageError::new(e.to_string()))?;
        out.say(&format!(
            "{}{}",
            if k > 1 { "\n" } else { "" },
            repeats::header(k, n, run_seed)
        ));
        common::forget_written();
        export::capture_begin();
        let r = a.main();
        if let Err(e) = &r
            && !crate::error::is_usage(e)
            && !super::is_broken_pipe(e)
        {
            common::write_failure(out, entry.name, e);
        }
        let captured = export::capture_end();
        match r {
            Err(e) if crate::error::is_usage(&e) && doc.runs.is_empty() => return Err(e),
            Err(e) => {
                doc.error = Some(format!("run {k}: {}", crate::error::cause(&e)));
                failure = Some(e);
            }
            Ok(s) => status = s,
        }
        if let Some(d) = captured {
            doc.runs.push(repeats::Repeat {
                index: k,
                seed: run_seed,
                document: d,
            });
        }
        if failure.is_some() || status != Status::Done {
            break;
        }
        if k < n {
            // the series so far, to files (stdout gets it once, at the end)
            doc.compute_stats();
            write(out, &doc, false)?;
        }
    }
    doc.complete = failure.is_none()
        && status == Status::Done
        && doc.runs.len() == n as usize
        && doc
            .runs
            .iter()
            .all(|r| r.document.get("complete").and_then(|c| c.as_bool()) == Some(true));
    if doc.error.is_none() && status == Status::Interrupted {
        doc.error = Some(format!("interrupted after {} of {n} runs", doc.runs.len()));
    }
    doc.compute_stats();
    let mut text = format!("\n{}", doc.summary());
    for w in doc.warnings() {
        let _ = writeln!(text, "warning: {w}");
    }
    out.say(&text);
    write(out, &doc, true)?;
    match failure {
        Some(e) => Err(e),
        None => Ok(status),
    }
}

/// Write the series' document to each output asked for (`-` only when
/// `last`).
fn write(out: &OutputArgs, doc: &Repeats, last: bool) -> Result<()> {
    if let Some(p) = &out.json
        && (last || p.as_os_str() != "-")
    {
        let mut text = serde_json::to_vec_pretty(doc).context("cannot serialise the result")?;
        text.push(b'\n');
        export::emit(p, &text, "json")?;
    }
    if let Some(p) = &out.csv
        && (last || p.as_os_str() != "-")
    {
        export::emit(p, doc.csv().as_bytes(), "csv")?;
    }
    Ok(())
}

/// What `iogauge show` prints of a repeats document: each run's classic
/// report under its header, then the summary.
pub fn show(doc: serde_json::Value) -> Result<String> {
    let r: Repeats = serde_json::from_value(doc).context("not an iogauge repeats document")?;
    let mut s = String::new();
    for run in &r.runs {
        s += &repeats::header(run.index, r.repeats, run.seed);
        s += &crate::suites::benchmark::show(run.document.clone())
            .with_context(|| format!("run {}", run.index))?;
        s.push('\n');
    }
    s += &r.summary();
    for w in r.warnings() {
        let _ = writeln!(s, "warning: {w}");
    }
    if let Some(e) = &r.error {
        let _ = writeln!(s, "the series stopped short: {e}");
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_follow_the_given_one() {
        assert_eq!(derived_seed(7, false, 1), 7);
        assert_eq!(derived_seed(7, false, 3), 9);
        assert_eq!(derived_seed(u64::MAX, false, 2), 0);
        assert_eq!(derived_seed(u64::from(u32::MAX), true, 2), 0);
    }

    /// Every benchmark of the table takes --repeat, and no tool shows it.
    #[test]
    fn every_benchmark_takes_repeat() {
        for e in super::super::COMMANDS {
            let c = e.command();
            let arg = c.get_arguments().find(|a| a.get_id() == "repeat");
            match e.kind {
                super::super::Kind::Benchmark => {
                    assert!(
                        arg.is_some_and(|a| !a.is_hide_set()),
                        "{} has no --repeat",
                        e.name
                    )
                }
                _ => assert!(
                    arg.is_none_or(|a| a.is_hide_set()),
                    "{} shows --repeat",
                    e.name
                ),
            }
        }
    }
}
