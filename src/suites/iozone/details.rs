//! What iogauge prints after IOzone's own report: the line that ends it,
//! -R's tables, and iogauge's details (each test's operations with their
//! latency percentiles).

use super::exec::Report;
use super::flags::{Config, Mode};
use super::{report, run, throughput};
use crate::engine::Choice;
use crate::report::text::tail_cells;
use std::fmt::Write;
use std::path::PathBuf;

/// The text after the run: IOzone's closing line and -R's tables in
/// IOzone's order, the heatmaps drawn (`heatmaps`: how many, where; or
/// that throughput mode has none when `--plot` was asked), iogauge's
/// details, and where -w kept the files.
pub fn closing(
    cfg: &Config,
    engine: Choice,
    rep: &Report,
    heatmaps: Option<&(usize, PathBuf)>,
    plot_asked: bool,
) -> String {
    // IOzone ends single and auto mode with this line and then prints -R's
    // tables; throughput mode prints its -R table first
    let done = "\niozone test complete.\n";
    let mut text = if rep.throughput.is_some() {
        String::new()
    } else {
        done.to_string()
    };
    if let Some(o) = &rep.single {
        if cfg.excel {
            text += &report::excel_text(&o.table);
        }
        if let Some((n, dir)) = heatmaps {
            let _ = writeln!(text, "\niogauge: {n} heatmaps in {}", dir.display());
        }
        text += &single_details(cfg, engine, o);
    }
    if let Some(t) = &rep.throughput {
        if cfg.excel {
            text += &report::throughput_excel_text(&throughput::table(cfg, t));
        }
        text += done;
        if plot_asked {
            text +=
                "\niogauge: --plot draws auto and single mode's tables; throughput mode has none\n";
        }
        text += &throughput_details(cfg, engine, t);
    }
    if let Some(k) = &rep.kept {
        let _ = writeln!(
            text,
            "iogauge: -w: the test files are kept in {}",
            k.display()
        );
    }
    text
}

/// One line per op kind: count and latency percentiles.
fn kind_lines(s: &mut String, head: &str, st: &crate::measure::WorkerStats) {
    let mut first = true;
    for (k, ks) in st.kinds().filter(|(_, k)| k.count > 0) {
        let l = ks.summary();
        let lead = if first { head } else { "" };
        first = false;
        let _ = writeln!(
            s,
            "  {lead:<16} {:<6} {:>10} {}",
            k.name(),
            ks.count,
            tail_cells(&l)
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

/// Each test's operations over every cell it ran in.
fn single_details(cfg: &Config, engine: Choice, o: &run::Outcome) -> String {
    let mut s = details_head(cfg, engine);
    if !o.complete {
        let why = o.error.as_deref().unwrap_or("interrupted");
        let _ = writeln!(s, "  INCOMPLETE RUN ({why}): the tables hold what ran");
    }
    for c in o.table.sections() {
        if let Some(st) = o.stats.get(&c) {
            kind_lines(&mut s, c.name(), st);
        }
    }
    if cfg.mode() == Mode::Auto {
        let _ = writeln!(
            s,
            "  (latencies of each test over all {} cells; --json has every cell)",
            o.table.rows.iter().filter(|r| !r.is_skipped()).count()
        );
    }
    s
}

/// Each phase's operations, per child count.
fn throughput_details(cfg: &Config, engine: Choice, t: &throughput::Outcome) -> String {
    let mut s = details_head(cfg, engine);
    if !t.complete {
        let why = t.error.as_deref().unwrap_or("interrupted");
        let _ = writeln!(s, "  INCOMPLETE RUN ({why}): the figures cover what ran");
    }
    for run in &t.runs {
        let _ = writeln!(s, "  {} children:", run.children);
        for p in &run.phases {
            kind_lines(&mut s, p.result.phase.label(), &p.stats);
        }
    }
    s
}
