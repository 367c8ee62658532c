//! What iogauge prints after IOzone's own report: the line that ends it,
//! -R's tables, and iogauge's details (each test's operations with their
//! latency percentiles), from a result's plan and figures.

use super::figures::{Figures, OpFigures, Plan, ThroughputRun};
use super::flags::{Config, Mode};
use super::report::{self, Table};
use super::throughput;
use crate::engine::Choice;
use crate::measure::OpKind;
use crate::report::RunResult;
use crate::report::text::tail_cells;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

/// The text after the run: IOzone's closing line and -R's tables in
/// IOzone's order, the heatmaps drawn (`heatmaps`: how many, where; or
/// that throughput mode has none when `--plot` was asked), iogauge's
/// details, and where -w kept the files. `table` is single and auto
/// mode's ([`Figures::table`]).
pub fn closing(
    cfg: &Config,
    plan: &Plan,
    f: &Figures,
    table: Option<&Table>,
    heatmaps: Option<&(usize, PathBuf)>,
    r: &RunResult,
) -> String {
    // IOzone ends single and auto mode with this line and then prints -R's
    // tables; throughput mode prints its -R table first
    let done = "\niozone test complete.\n";
    let mut text = if f.throughput.is_some() {
        String::new()
    } else {
        done.to_string()
    };
    if let Some(t) = table {
        if cfg.excel {
            text += &report::excel_text(t);
        }
        if let Some((n, dir)) = heatmaps {
            let _ = writeln!(text, "\niogauge: {n} heatmaps in {}", dir.display());
        }
        text += &single_details(cfg, plan.engine, f, t, r);
    }
    if let Some(runs) = &f.throughput {
        if cfg.excel {
            text += &report::throughput_excel_text(&throughput::table(cfg, runs));
        }
        text += done;
        if plan.plot.is_some() {
            text +=
                "\niogauge: --plot draws auto and single mode's tables; throughput mode has none\n";
        }
        text += &throughput_details(cfg, plan.engine, runs, r);
    }
    if let Some(k) = &f.kept {
        let _ = writeln!(
            text,
            "iogauge: -w: the test files are kept in {}",
            k.display()
        );
    }
    text
}

/// One line per op kind: count and latency percentiles.
fn kind_lines(s: &mut String, head: &str, ops: &BTreeMap<OpKind, OpFigures>) {
    let mut first = true;
    for (k, o) in ops {
        let lead = if first { head } else { "" };
        first = false;
        let _ = writeln!(
            s,
            "  {lead:<16} {:<6} {:>10} {}",
            k.name(),
            o.count,
            tail_cells(&o.latency_ns)
        );
    }
}

fn details_head(cfg: &Config, engine: Choice) -> String {
    let mut s = format!(
        "\niogauge details: IOzone {} mode, engine {engine}{}{}",
        match cfg.mode() {
            Mode::Single => "single",
            Mode::Auto => "auto",
            Mode::Throughput => "throughput",
        },
        if cfg.direct { " (O_DIRECT)" } else { "" },
        if cfg.sync { " (O_SYNC)" } else { "" },
    );
    s.push('\n');
    let _ = writeln!(
        s,
        "  {:<16} {:<6} {:>10} {:>9} {:>9} {:>9} {:>9}",
        "test", "op", "count", "p50", "p99", "p99.9", "max"
    );
    s
}

/// The line of a run that did not end: why, and what the tables hold.
fn incomplete(s: &mut String, r: &RunResult, what: &str) {
    if !r.complete {
        let why = r.error.as_deref().unwrap_or("interrupted");
        let _ = writeln!(s, "  INCOMPLETE RUN ({why}): {what}");
    }
}

/// Each test's operations over every cell it ran in.
fn single_details(cfg: &Config, engine: Choice, f: &Figures, t: &Table, r: &RunResult) -> String {
    let mut s = details_head(cfg, engine);
    incomplete(&mut s, r, "the tables hold what ran");
    let tests = f.tests.as_ref();
    for c in t.sections() {
        if let Some(ops) = tests.and_then(|m| m.get(c.name())?.ops.as_ref()) {
            kind_lines(&mut s, c.name(), ops);
        }
    }
    if cfg.mode() == Mode::Auto {
        let _ = writeln!(
            s,
            "  (latencies of each test over all {} cells; --json has every cell)",
            t.rows.iter().filter(|r| !r.is_skipped()).count()
        );
    }
    s
}

/// Each phase's operations, per child count.
fn throughput_details(
    cfg: &Config,
    engine: Choice,
    runs: &[ThroughputRun],
    r: &RunResult,
) -> String {
    let mut s = details_head(cfg, engine);
    incomplete(&mut s, r, "the figures cover what ran");
    for run in runs {
        let _ = writeln!(s, "  {} children:", run.children);
        for p in &run.phases {
            kind_lines(&mut s, p.phase.label(), &p.ops);
        }
    }
    s
}
