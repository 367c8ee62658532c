//! FFSB 6.0-rc2's report, in its layout: the settings echoed before the
//! run (each thread group, each file system), then per thread group (and
//! in total when there are several) the table of operations, the
//! throughput, the `[stats]` latencies with their ranges, and the CPU
//! lines. The formats are FFSB's printf formats (`%.3g` sizes, `%6.3lf%%`
//! shares, `%05f` milliseconds); [`cg`] reproduces C's `%g`.
//!
//! Where iogauge's report differs (each said in the docs):
//! - the version line names iogauge's implementation;
//! - `msec_range` buckets are listed in the order declared (FFSB rc2
//!   lists them reversed);
//! - the write operation's throughput counts the bytes written (FFSB rc2
//!   counted the whole file); a short last read is counted as a
//!   transaction;
//! - below FFSB's report, iogauge's latency percentiles of each operation.

use std::fmt::Write;

use super::figures::{Figures, GroupFigures, OpFigures, Plan};
use super::profile::{FileSystem, Op, Profile, Syscall, ThreadGroup};
use crate::report::RunResult;
use crate::report::text::tail_cells;
use std::path::Path;

/// The version line's version.
pub const VERSION: &str = "6.0-RC2";

/// C's `printf("%.Pg", x)`: `p` significant digits, trailing zeros
/// removed, exponent form when the exponent is below -4 or not below `p`.
pub fn cg(x: f64, p: usize) -> String {
    let p = p.max(1);
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    // the exponent after rounding to p digits
    let e_form = format!("{:.*e}", p - 1, x);
    let (mant, exp) = e_form.split_once('e').unwrap_or((&e_form, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let mant = trim_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// FFSB's `ffsb_printsize`: `%.3g` and B, KB, MB or GB (powers of 1024).
pub fn size(bytes: f64) -> String {
    const K: f64 = 1024.0;
    if bytes >= K * K * K {
        format!("{}GB", cg(bytes / (K * K * K), 3))
    } else if bytes >= K * K {
        format!("{}MB", cg(bytes / (K * K), 3))
    } else if bytes >= K {
        format!("{}KB", cg(bytes / K, 3))
    } else {
        format!("{}B", cg(bytes, 3))
    }
}

/// One `name = value` line of FFSB's settings, the name padded as FFSB
/// pads it.
fn setting(s: &mut String, lead: &str, name: &str, value: impl std::fmt::Display) {
    let _ = writeln!(s, "{lead}\t {name:<17}= {value}");
}

/// A setting in bytes, followed by its size in FFSB's units.
fn size_line(s: &mut String, lead: &str, name: &str, bytes: u64) {
    let sized = format_args!("{bytes}\t({})", size(bytes as f64));
    setting(s, lead, name, sized);
}

/// The opening lines: version, benchmark time.
pub fn opening(p: &Profile) -> String {
    let mut s = format!("FFSB version {VERSION} (iogauge) started\n\n");
    if p.time > 0 {
        let _ = writeln!(s, "benchmark time = {}", p.time);
    } else {
        s += "Only creating the fileset, not running benchmark.\n";
    }
    s
}

/// A thread group's settings as FFSB echoes them (`tg_print_config`).
fn group_config(s: &mut String, tg: &ThreadGroup, bound: Option<usize>, lead: &str) {
    let on = |b: bool| if b { "on" } else { "off" };
    setting(s, lead, "num_threads", tg.num_threads);
    let _ = writeln!(s, "{lead}\t");
    setting(s, lead, "read_random", on(tg.read_random));
    size_line(s, lead, "read_size", tg.read_size);
    size_line(s, lead, "read_blocksize", u64::from(tg.read_blocksize));
    setting(s, lead, "read_skip", on(tg.read_skip));
    size_line(s, lead, "read_skipsize", u64::from(tg.read_skipsize));
    let _ = writeln!(s, "{lead}\t");
    setting(s, lead, "write_random", on(tg.write_random));
    size_line(s, lead, "write_size", tg.write_size);
    setting(s, lead, "fsync_file", u8::from(tg.fsync_file));
    size_line(s, lead, "write_blocksize", u64::from(tg.write_blocksize));
    setting(s, lead, "wait time", tg.op_delay_ms);
    if let Some(i) = bound {
        let _ = writeln!(s, "{lead}\t");
        let _ = writeln!(s, "{lead}\t bound to fs {i}");
    }
    let _ = writeln!(s, "{lead}\t");
    let _ = writeln!(s, "{lead}\t op weights");
    let sum = tg.total_weight().max(1) as f32;
    for op in Op::ALL {
        let w = tg.weight(op);
        let _ = writeln!(
            s,
            "{lead}\t {:>20} = {w} ({:.2}%)",
            op.name(),
            100.0 * w as f32 / sum
        );
    }
    let _ = writeln!(s, "{lead}\t");
}

/// Which file system a thread group is bound to (`bindfs`), by index.
fn bound_to(p: &Profile, tg: &ThreadGroup) -> Option<usize> {
    let b = tg.bindfs.as_ref()?;
    p.filesystems.iter().position(|f| &f.location == b)
}

/// Every thread group's settings (`ThreadGroup <i>`).
pub fn groups_config(p: &Profile) -> String {
    let mut s = String::new();
    for (i, tg) in p.threadgroups.iter().enumerate() {
        let _ = writeln!(s, "ThreadGroup {i}");
        s += "================\n";
        group_config(&mut s, tg, bound_to(p, tg), "");
    }
    s
}

/// One file system's settings (`fs_print_config`), with its utilisation
/// now (a fraction).
pub fn fs_config(p: &Profile, fs: &FileSystem, util: f64) -> String {
    let on = |b: bool| if b { "on" } else { "off" };
    let mut s = format!("FileSystem {}\n==========\n", fs.location.display());
    setting(&mut s, "", "num_dirs", fs.num_dirs);
    setting(&mut s, "", "starting files", fs.num_files);
    s += "\t\n";
    if fs.size_weights.is_empty() {
        size_line(&mut s, "", "min file size", fs.min_filesize);
        size_line(&mut s, "", "max file size", fs.max_filesize);
    } else {
        // last given first: the order FFSB keeps them in, and draws them by
        s += "\t Fileset weight:\n";
        let sum: u64 = fs.size_weights.iter().map(|w| u64::from(w.1)).sum();
        for (bytes, w) in fs.size_weights.iter().rev() {
            let _ = writeln!(
                s,
                "\t\t {bytes:12} ({:>6}) -> {w} ({:.2}%)",
                size(*bytes as f64),
                *w as f32 / sum.max(1) as f32 * 100.0
            );
        }
    }
    setting(&mut s, "", "directio", on(p.directio));
    setting(&mut s, "", "alignedio", on(p.alignio || p.directio));
    setting(&mut s, "", "bufferedio", on(p.bufferio));
    s += "\t\n";
    let _ = writeln!(s, "\t aging is {}", on(fs.agefs));
    let _ = writeln!(s, "\t current utilization = {:.2}%", util * 100.0);
    if fs.agefs {
        let _ = writeln!(
            s,
            "\t desired utilization = {:.2}%",
            fs.desired_util * 100.0
        );
        s += "\t \n";
        if let Some(tg) = &fs.age_group {
            let _ = writeln!(s, "\t Aging ThreadGroup for fs {}", fs.location.display());
            s += "\t ================\n";
            group_config(&mut s, tg, None, "");
        }
    }
    s += "\t\n";
    s
}

/// The figures of each operation that ran, in FFSB's order.
fn ops(g: &GroupFigures) -> impl Iterator<Item = (Op, &OpFigures)> {
    Op::ALL
        .into_iter()
        .filter_map(|op| Some((op, g.ops.get(op.name())?)))
}

/// FFSB's table of one set of results over `secs` (`print_results`).
pub fn table(g: &GroupFigures, secs: f64) -> String {
    let secs = if secs > 0.0 { secs } else { f64::MIN_POSITIVE };
    let total_ops = g.transactions;
    let total_weight: u64 = g.ops.values().map(|o| o.invocations).sum();
    let mut s = String::from(
        "             Op Name   Transactions\t Trans/sec\t% Trans\t    % Op Weight\t   Throughput\n",
    );
    s += "             =======   ============\t =========\t=======\t    ===========\t   ==========\n";
    for (op, o) in ops(g) {
        if o.transactions == 0 {
            continue;
        }
        let tput = if op.moves_data() {
            format!("{}/sec", size((o.read_bytes + o.write_bytes) as f64 / secs))
        } else {
            "NA".into()
        };
        let _ = writeln!(
            s,
            "{:>20} : {:12}\t{:10.2}\t{:6.3}%\t\t{:6.3}%\t  {tput:>11}",
            op.name(),
            o.transactions,
            o.transactions as f64 / secs,
            100.0 * o.transactions as f64 / total_ops.max(1) as f64,
            100.0 * o.invocations as f64 / total_weight.max(1) as f64,
        );
    }
    let _ = write!(
        s,
        "-\n{:.2} Transactions per Second\n\n",
        total_ops as f64 / secs
    );
    let read: u64 = g.ops.values().map(|o| o.read_bytes).sum();
    let written: u64 = g.ops.values().map(|o| o.write_bytes).sum();
    if read > 0 || written > 0 {
        s += "Throughput Results\n===================\n";
    }
    if read > 0 {
        let _ = writeln!(s, "Read Throughput: {}/sec", size(read as f64 / secs));
    }
    if written > 0 {
        let _ = writeln!(s, "Write Throughput: {}/sec", size(written as f64 / secs));
    }
    s
}

/// The `[stats]` table of a thread group (`ffsb_statsd_print`), ranges in
/// the order declared.
pub fn stats_table(tg: &ThreadGroup, g: &GroupFigures) -> String {
    let Some(st) = &tg.stats else {
        return String::new();
    };
    let mut s = String::from("\nSystem Call Latency statistics in millisecs\n=====\n");
    s += "\t\tMin\t\tAvg\t\tMax\t\tTotal Calls\n";
    s += "\t\t========\t========\t========\t============\n";
    for call in Syscall::ALL {
        let Some(c) = g.syscalls.get(call.name()).filter(|c| c.calls > 0) else {
            continue;
        };
        let ms = |ns: u64| ns as f64 / 1e6;
        let _ = writeln!(
            s,
            "[{:>7}]\t{:.6}\t{:.6}\t{:.6}\t{:12}",
            call.name(),
            ms(c.min_ns),
            c.total_ns as f64 / 1e6 / c.calls as f64,
            ms(c.max_ns),
            c.calls
        );
        if st.ranges_ms.is_empty() || !st.enable_range {
            s += "   -\n";
            continue;
        }
        for (i, ((a, b), n)) in st.ranges_ms.iter().zip(&c.buckets).enumerate() {
            let _ = writeln!(s, "\t\t msec_range[{i}]\t{a:.6} - {b:.6} : {n:8}");
        }
        s.push('\n');
    }
    s
}

/// From "Results:" to the CPU lines: per thread group (or "Total Results"
/// alone when there is one), then the total.
pub fn results(p: &Profile, f: &Figures, r: &RunResult) -> String {
    let secs = r.elapsed_s;
    let mut s = String::from("Results:\n");
    let _ = write!(s, "Benchmark took {secs:.2} sec\n\n");
    let single = f.threadgroups.len() == 1;
    for (i, (g, tg)) in f.threadgroups.iter().zip(&p.threadgroups).enumerate() {
        if single {
            s += "Total Results\n";
        } else {
            let _ = writeln!(s, "ThreadGroup {i}");
        }
        s += "===============\n";
        s += &table(g, secs);
        if tg.stats.as_ref().is_some_and(|st| st.enable_stats) {
            s += &stats_table(tg, g);
        }
        s.push('\n');
    }
    if !single {
        s += "Total Results\n===============\n";
        s += &table(&f.total, secs);
    }
    let (user, sys) = (r.summary.cpu_user_s, r.summary.cpu_sys_s);
    let pct = |x: f64| if secs > 0.0 { 100.0 * x / secs } else { 0.0 };
    s += "\n\n";
    let _ = writeln!(s, "{:.1}% User   Time", pct(user));
    let _ = writeln!(s, "{:.1}% System Time", pct(sys));
    let _ = writeln!(s, "{:.1}% CPU Utilization", pct(user + sys));
    s
}

/// iogauge's figures below FFSB's: per thread group, per operation that
/// ran, the count and p50/p99/p99.9/max of one invocation, open to close.
pub fn details(f: &Figures, r: &RunResult) -> String {
    let mut s = String::from("\niogauge details: latency of one operation (open to close)\n");
    let _ = writeln!(
        s,
        "  {:<6} {:<15} {:>10} {:>9} {:>9} {:>9} {:>9}",
        "group", "op", "count", "p50", "p99", "p99.9", "max"
    );
    for (i, g) in f.threadgroups.iter().enumerate() {
        for (op, t) in ops(g).filter(|(_, t)| t.invocations > 0) {
            let _ = writeln!(
                s,
                "  {i:<6} {:<15} {:>10} {}",
                op.name(),
                t.invocations,
                tail_cells(&t.latency_ns)
            );
        }
    }
    if !r.complete {
        let why = r.error.as_deref().unwrap_or("interrupted");
        let _ = writeln!(s, "  INCOMPLETE RUN ({why}): the figures cover what ran");
    }
    s
}

/// The utilisation of the file system holding `path` (or its nearest
/// existing parent): used blocks over all blocks.
fn util(path: &Path) -> f64 {
    let mut p = path;
    while !p.exists() {
        match p.parent() {
            Some(q) => p = q,
            None => return 0.0,
        }
    }
    match rustix::fs::statvfs(p) {
        Ok(s) if s.f_blocks > 0 => (s.f_blocks - s.f_bfree) as f64 / s.f_blocks as f64,
        _ => 0.0,
    }
}

/// Everything before the run: the version, time, warnings, each thread
/// group's and file system's settings.
pub fn settings(p: &Profile) -> String {
    let mut s = opening(p);
    for w in &p.warnings {
        s += w;
        s.push('\n');
    }
    s += &groups_config(p);
    for fs in &p.filesystems {
        s += &fs_config(p, fs, util(&fs.location));
    }
    s
}

/// What follows the run: FFSB's results (or its line for a run of the
/// set-up only), how an open loop or think time differed from FFSB, and
/// iogauge's latency percentiles.
pub fn render(o: &Plan, f: &Figures, result: &RunResult) -> String {
    let mut text = String::new();
    if o.settings.time > 0 {
        text += &results(&o.settings, f, result);
        if let Some(ol) = &result.summary.open_loop {
            text += &format!(
                "\niogauge extension, not FFSB: open loop, {:.1} operations/s offered ({} arrivals), {:.1} issued, {} never issued; FFSB's latencies above are service times, the response times are in the JSON\n",
                ol.rate_offered,
                o.pace.arrivals.name(),
                ol.rate_issued,
                ol.missed
            );
        } else if let Some(t) = o.pace.think {
            text += &format!(
                "\niogauge extension, not FFSB: each thread thinks {t:?} ({}) before each operation\n",
                o.pace.arrivals.name()
            );
        }
        text += &details(f, result);
        if let Some(c) = &result.cluster {
            text += &c.render();
        }
    } else {
        text += "Setup complete, exiting\n";
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::ffsb::results::{GroupResult, OpTally};

    /// Against glibc's printf("%.3g").
    #[test]
    fn cg_is_cs_percent_g() {
        for (x, want) in [
            (340.0, "340"),
            (193.4, "193"),
            (15.13, "15.1"),
            (1.0234, "1.02"),
            (0.5, "0.5"),
            (1000.0, "1e+03"),
            (999.6, "1e+03"),
            (12345.0, "1.23e+04"),
            (0.0001234, "0.000123"),
            (0.00001234, "1.23e-05"),
            (0.0, "0"),
            (3.86, "3.86"),
            (5.96, "5.96"),
            (999.5, "1e+03"),
            (0.00012345, "0.000123"),
            (99.95, "100"),
            (9.995, "9.99"),
            (1.5e-5, "1.5e-05"),
            (123456789.0, "1.23e+08"),
            (0.1, "0.1"),
            (100.0, "100"),
            (1e-4, "0.0001"),
            (0.000099996, "0.0001"),
        ] {
            assert_eq!(cg(x, 3), want, "{x}");
        }
    }

    #[test]
    fn sizes_are_ffsbs() {
        for (bytes, want) in [
            (40960.0, "40KB"),
            (4096.0, "4KB"),
            (0.0, "0B"),
            (33554432.0, "32MB"),
            (1.02 * 1024.0 * 1024.0 * 1024.0, "1.02GB"),
            (356515840.0, "340MB"),
        ] {
            assert_eq!(size(bytes), want, "{bytes}");
        }
    }

    #[test]
    fn table_matches_ffsbs_layout() {
        let mut r = GroupResult::new(4);
        let set = |r: &mut GroupResult, op: Op, tx: u64, inv: u64, rb: u64, wb: u64| {
            r.ops[op.index()] = OpTally {
                transactions: tx,
                invocations: inv,
                read_bytes: rb,
                write_bytes: wb,
                ..OpTally::default()
            };
        };
        set(&mut r, Op::ReadAll, 191483, 1000, 356515840 * 2, 0);
        set(&mut r, Op::Delete, 879, 1066, 0, 0);
        let t = table(&GroupFigures::of(&r, 2.0), 2.0);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            "             Op Name   Transactions\t Trans/sec\t% Trans\t    % Op Weight\t   Throughput"
        );
        assert_eq!(
            lines[2],
            "             readall :       191483\t  95741.50\t99.543%\t\t48.403%\t    340MB/sec"
        );
        assert_eq!(
            lines[3],
            "              delete :          879\t    439.50\t 0.457%\t\t51.597%\t           NA"
        );
        assert_eq!(lines[4], "-");
        assert_eq!(lines[5], "96181.00 Transactions per Second");
        assert_eq!(lines[7], "Throughput Results");
        assert_eq!(lines[9], "Read Throughput: 340MB/sec");
        assert_eq!(lines.len(), 10);
    }
}

#[cfg(test)]
mod golden {
    use super::*;

    /// The thread group's echo of FFSB's profile_everything, against the
    /// text FFSB 6.0-rc2 printed for it.
    #[test]
    fn group_settings_match_ffsbs_echo() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let p =
            crate::suites::ffsb::parse::load(&root.join("examples/ffsb/profile_everything.ffsb"))
                .unwrap();
        let want =
            std::fs::read_to_string(root.join("tests/fixtures/ffsb/profile_everything.tg.txt"))
                .unwrap();
        assert_eq!(groups_config(&p), want);
    }
}
