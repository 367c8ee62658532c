//! The Andrew benchmark's report: Chen & Patterson's table, the five
//! phases with their counts, then iogauge's details.

use super::phases::PhaseFigures;
use super::{Figures, Plan};
use crate::report::RunResult;
use crate::suites::classic;
use crate::units::fmt_bytes;
use std::fmt::Write;

fn fig8_row(s: &mut String, label: &str, p: &PhaseFigures) {
    let _ = writeln!(
        s,
        "  {label:<16} {:>10.4} {:>7.1} % {:>10.4}{}",
        p.wall_s,
        p.io_time_fraction * 100.0,
        p.cpu_s,
        if p.complete { "" } else { "  (incomplete)" }
    );
}

/// Chen & Patterson's table, the five phases with their counts, then
/// iogauge's details.
pub fn render(o: &Plan, f: &Figures, r: &RunResult) -> String {
    let mut s = String::new();
    let tree = if o.generated {
        format!("generated (seed {})", o.seed)
    } else {
        o.tree.clone()
    };
    let _ = writeln!(
        s,
        "Andrew: tree {tree}: {} files, {} directories, {}; {} cop{}; compile cost {} ns/byte{}",
        o.files,
        o.dirs,
        fmt_bytes(o.tree_bytes),
        o.scale,
        if o.scale == 1 { "y" } else { "ies" },
        o.cpu_ns_per_byte,
        if o.cold { "; cold cache" } else { "" }
    );
    s += "\n                      time (s)    I/O    CPU (s)\n";
    fig8_row(&mut s, "Copy phase", &f.copy_phase);
    fig8_row(&mut s, "Compile phase", &f.compile_phase);
    fig8_row(&mut s, "Total", &f.total);
    s += "\n  phase        time (s)    I/O  mkdir  create   open   stat readdir   bytes read  bytes written\n";
    for p in &f.phases {
        let _ = writeln!(
            s,
            "  {:<9} {:>11.4} {:>5.1} % {:>6} {:>7} {:>6} {:>6} {:>7} {:>12} {:>14}{}",
            p.name,
            p.wall_s,
            p.io_time_fraction * 100.0,
            p.calls.mkdir,
            p.calls.create,
            p.calls.open,
            p.calls.stat,
            p.calls.readdir,
            p.calls.bytes_read,
            p.calls.bytes_written,
            if p.complete { "" } else { "  (interrupted)" }
        );
    }
    for n in &f.notes {
        let _ = writeln!(s, "note: --tree: {n}");
    }
    if !o.cold {
        s += "note: the copy is read back from the page cache (use --cold, or a large --scale, to read it from the device)\n";
    }
    let details = format!(
        "andrew, {} cop{} of {} files, seed {}",
        o.scale,
        if o.scale == 1 { "y" } else { "ies" },
        o.files,
        o.seed
    );
    classic::close(&mut s, r, &details);
    s
}
