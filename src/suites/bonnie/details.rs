//! What iogauge prints of a Bonnie or bonnie++ run: the program's own
//! report with iogauge's notes, then iogauge's figures per test.

use super::{Figures, Flavor, Options, Test, report};
use crate::report::RunResult;
use crate::report::text::tail_cells;
use std::fmt::Write;

/// What the command prints of a run: the text report (on stderr under
/// bonnie++'s -q) and bonnie++'s CSV line (on stdout). Without -x the text
/// is the program's report and iogauge's details; with -x it is Bonnie's
/// table alone, or nothing for bonnie++, whose CSV line stands for the run.
pub fn printed(o: &Options, f: &Figures, r: &RunResult) -> (String, String) {
    let text = match (o.runs, o.flavor) {
        (None, _) => classic(o, f) + &details(o, f, r),
        (Some(_), Flavor::Bonnie) => classic(o, f),
        (Some(_), Flavor::BonniePlusPlus) => String::new(),
    };
    let csv = f.csv.as_ref().map(|c| format!("{c}\n")).unwrap_or_default();
    (text, csv)
}

/// The program's own report: Bonnie's table or HTML row (-html), or
/// bonnie++'s text tables; then the notes on the page cache and on -D.
pub fn classic(o: &Options, f: &Figures) -> String {
    let mut s = match o.flavor {
        Flavor::Bonnie if o.html => report::classic_html(o, f),
        Flavor::Bonnie => report::classic_text(o, f),
        Flavor::BonniePlusPlus => report::pp_text(o, f),
    };
    for note in [&f.page_cache_note, &f.direct_note].into_iter().flatten() {
        s += note;
        s.push('\n');
    }
    s
}

/// iogauge's figures per test: rate, CPU, time, share of time in I/O, and
/// each op kind's latency percentiles.
pub fn details(o: &Options, f: &Figures, r: &RunResult) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\niogauge details: {}, engine {}{}, file {} in {} chunks, seed {}",
        report::flavor_name(o.flavor),
        o.engine,
        if o.direct { " (O_DIRECT)" } else { "" },
        crate::units::fmt_bytes(o.file_bytes()),
        crate::units::fmt_bytes(u64::from(o.chunk)),
        o.seed.label()
    );
    if !r.complete {
        let why = r.error.as_deref().unwrap_or("interrupted");
        let _ = writeln!(s, "  INCOMPLETE RUN ({why}): figures cover what ran");
    }
    let _ = writeln!(
        s,
        "  {:<18} {:>16} {:>5} {:>9} {:>6}  {:<7} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "test", "rate", "%CPU", "elapsed", "in I/O", "op", "count", "p50", "p99", "p99.9", "max"
    );
    for t in Test::ALL {
        let Some(m) = f.test(t) else { continue };
        let mut first = true;
        for (k, ks) in &m.ops {
            let head = if first {
                format!(
                    "{:<18} {:>16} {:>5.0} {:>7.3} s {:>5.0}%",
                    t.title(),
                    format!("{:.0} {}", m.rate, t.unit()),
                    m.cpu_percent,
                    m.elapsed_s,
                    m.io_time_fraction * 100.0
                )
            } else {
                " ".repeat(18 + 1 + 16 + 1 + 5 + 1 + 9 + 1 + 6)
            };
            first = false;
            let _ = writeln!(
                s,
                "  {head}  {:<7} {:>9} {}",
                k.name(),
                ks.count,
                tail_cells(&ks.latency_ns)
            );
        }
    }
    let _ = write!(
        s,
        "  whole run: {:.3} s, {} ops",
        r.elapsed_s, r.summary.ops
    );
    if o.flavor.is_pp()
        && Test::ALL
            .into_iter()
            .filter_map(|t| f.test(t))
            .any(|m| m.under_min_time)
    {
        let _ = write!(
            s,
            "; bonnie++ prints +++++ for tests under {} s, iogauge's rates are above",
            report::MIN_TIME
        );
    }
    s.push('\n');
    s
}
