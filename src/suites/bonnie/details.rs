//! What iogauge prints of a Bonnie or bonnie++ run: the program's own
//! report with iogauge's notes, then iogauge's figures per test.

use super::{Flavor, Options, Results, Test, direct_note, page_cache_note, report};
use crate::report::RunResult;
use crate::report::text::tail_cells;
use std::fmt::Write;

/// The program's own report: Bonnie's table or HTML row, or bonnie++'s
/// text tables (`html`: Bonnie's HTML row); then the notes on the page
/// cache and on -D.
pub fn classic(o: &Options, results: &Results, html: bool) -> String {
    let mut s = match o.flavor {
        Flavor::Bonnie if html => report::classic_html(o, results),
        Flavor::Bonnie => report::classic_text(o, results),
        Flavor::BonniePlusPlus => report::pp_text(o, results),
    };
    for note in [page_cache_note(o), direct_note(o)].into_iter().flatten() {
        s += &note;
        s.push('\n');
    }
    s
}

/// iogauge's figures per test: rate, CPU, time, share of time in I/O, and
/// each op kind's latency percentiles.
pub fn details(o: &Options, results: &Results, r: &RunResult) -> String {
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
        let Some(m) = results.get(t) else { continue };
        let mut first = true;
        for (k, ks) in m.stats.kinds() {
            let l = ks.summary();
            let head = if first {
                format!(
                    "{:<18} {:>16} {:>5.0} {:>7.3} s {:>5.0}%",
                    t.title(),
                    format!("{:.0} {}", m.rate(t), t.unit()),
                    m.cpu_percent(),
                    m.elapsed.as_secs_f64(),
                    m.io_time_fraction() * 100.0
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
                tail_cells(&l)
            );
        }
    }
    let _ = write!(
        s,
        "  whole run: {:.3} s, {} ops",
        r.elapsed_s, r.summary.ops
    );
    if o.flavor.is_pp()
        && results
            .tests
            .iter()
            .flatten()
            .any(|m| m.elapsed.as_secs_f64() < report::MIN_TIME)
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
