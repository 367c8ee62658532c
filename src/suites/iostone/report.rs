//! IOStone's report: the original program's closing lines, then iogauge's
//! details.

use super::{Plan, Variant, iostones_per_s};
use crate::report::{RunResult, text};

/// The original program's closing lines, with the elapsed time in full.
pub fn classic_lines(o: &Plan, r: &RunResult) -> String {
    let stones = iostones_per_s(o.variant, o.scale, r.elapsed_s);
    match o.variant {
        Variant::C1 => format!(
            "total time = {:.6}\nThis machine benchmarks at {} iostones/second\n",
            r.elapsed_s, stones as u64
        ),
        Variant::C2 => {
            let ms = (r.elapsed_s * 1000.0) as u64;
            format!(
                "Total elapsed time is {} seconds and {} milliseconds.\nThis machine benchmarks at {:.0} iostones/sec.\n",
                ms / 1000,
                ms % 1000,
                stones
            )
        }
    }
}

/// The closing lines, then the version, engine and scale and iogauge's
/// tables of the run.
pub fn render(o: &Plan, r: &RunResult) -> String {
    let mut s = classic_lines(o, r);
    s += &format!(
        "\niogauge details: IOStone {}, engine {}{}, scale {}\n",
        match o.variant {
            Variant::C1 => "C/1",
            Variant::C2 => "C/II",
        },
        o.engine,
        if o.direct {
            ", O_DIRECT (256 B transfers raised to 512 B)"
        } else {
            ""
        },
        o.scale
    );
    s += &text::render(r);
    s
}
