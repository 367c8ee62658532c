//! The Andrew benchmark's report: Chen & Patterson's table, the five
//! phases with their counts, then iogauge's details.

use super::phases::PhaseStats;
use super::{Options, Report};
use crate::suites::classic;
use crate::units::fmt_bytes;
use std::fmt::Write;

fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

fn fig8_row(s: &mut String, label: &str, p: &PhaseStats) {
    let _ = writeln!(
        s,
        "  {label:<16} {:>10.4} {:>7.1} % {:>10.4}{}",
        secs(p.wall_ns),
        p.io_fraction() * 100.0,
        secs(p.cpu_ns),
        if p.complete { "" } else { "  (incomplete)" }
    );
}

/// Chen & Patterson's table, the five phases with their counts, then
/// iogauge's details.
pub fn render(o: &Options, rep: &Report) -> String {
    let r = &rep.result;
    let plan = &rep.plan;
    let mut s = String::new();
    let tree = match &o.tree {
        Some(t) => format!("{}", t.display()),
        None => format!("generated (seed {})", o.seed),
    };
    let _ = writeln!(
        s,
        "Andrew: tree {tree}: {} files, {} directories, {}; {} cop{}; compile cost {} ns/byte{}",
        plan.files.len(),
        plan.dirs.len() + 1,
        fmt_bytes(plan.bytes()),
        o.scale,
        if o.scale == 1 { "y" } else { "ies" },
        o.cpu_ns_per_byte,
        if o.cold { "; cold cache" } else { "" }
    );
    s += "\n                      time (s)    I/O    CPU (s)\n";
    fig8_row(&mut s, "Copy phase", &rep.copy_phase());
    fig8_row(&mut s, "Compile phase", &rep.compile_phase());
    fig8_row(&mut s, "Total", &rep.total());
    s += "\n  phase        time (s)    I/O  mkdir  create   open   stat readdir   bytes read  bytes written\n";
    for p in &rep.phases {
        let _ = writeln!(
            s,
            "  {:<9} {:>11.4} {:>5.1} % {:>6} {:>7} {:>6} {:>6} {:>7} {:>12} {:>14}{}",
            p.name,
            secs(p.wall_ns),
            p.io_fraction() * 100.0,
            p.mkdir,
            p.create,
            p.open,
            p.stat,
            p.readdir,
            p.bytes_read,
            p.bytes_written,
            if p.complete { "" } else { "  (interrupted)" }
        );
    }
    for n in &plan.notes {
        let _ = writeln!(s, "note: --tree: {n}");
    }
    if !o.cold {
        s += "note: the copy is read back from the page cache (use --cold, or a large --scale, to read it from the device)\n";
    }
    let details = format!(
        "andrew, {} cop{} of {} files, seed {}",
        o.scale,
        if o.scale == 1 { "y" } else { "ies" },
        plan.files.len(),
        o.seed
    );
    classic::close(&mut s, r, &details);
    s
}
