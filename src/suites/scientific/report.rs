//! The scientific workloads' report: one classic line per phase with the
//! notes on what the figures measured, then iogauge's details.

use super::{Figures, Phase, Plan};
use crate::report::{RunResult, text};
use crate::units::fmt_bytes;
use std::fmt::Write;

/// The two classic lines, the notes on what the figures measured, and
/// iogauge's details of each phase, from a result.
pub fn render(o: &Plan, f: &Figures, r: &RunResult) -> String {
    let mut s = classic_lines(o, f, r);
    let last = o.last_request_bytes;
    let _ = writeln!(
        s,
        "\niogauge details: scientific, engine {}{}{}, {} {} in requests of {}{}, final fsync of the write {}, cache {}",
        o.engine,
        if o.direct { " (O_DIRECT)" } else { "" },
        if o.iodepth > 1 {
            format!(", {} requests in flight", o.iodepth)
        } else {
            String::new()
        },
        match &r.environment.block_device {
            Some(d) => format!("device {}, its first", d.describe()),
            None => "file".to_string(),
        },
        fmt_bytes(o.size_bytes),
        fmt_bytes(o.request_bytes),
        if last != o.request_bytes {
            format!(" (the last of {})", fmt_bytes(last))
        } else {
            String::new()
        },
        if o.fsync { "timed" } else { "left out" },
        o.cache.name()
    );
    let ran: Vec<Phase> = o
        .phase
        .list()
        .iter()
        .copied()
        .filter(|&p| f.phases.get(p).is_some())
        .collect();
    if ran.is_empty() {
        s += &text::render(r);
    }
    for p in ran {
        let _ = writeln!(s, "\n{} phase:", p.name());
        s += &text::render(&f.phases.get(p).map(|ph| ph.result()).unwrap_or_default());
    }
    s
}

/// `Large file write: X MB/s (N requests of R, ..., cache: C)` and the
/// same for the read, then one line per caveat.
pub fn classic_lines(o: &Plan, f: &Figures, r: &RunResult) -> String {
    let (requests, last) = (o.requests, o.last_request_bytes);
    // "800 requests of 128.00 KiB", or with a short last one "9 requests:
    // 8 of 128.00 KiB and 1 of 4.00 KiB"
    let sizes = if last == o.request_bytes || requests < 2 {
        format!("of {}", fmt_bytes(last))
    } else {
        format!(
            "{} of {} and 1 of {}",
            requests - 1,
            fmt_bytes(o.request_bytes),
            fmt_bytes(last)
        )
    };
    let cache = o.cache;
    let width = o
        .phase
        .list()
        .iter()
        .map(|p| p.title().len())
        .max()
        .unwrap_or(0)
        + 1;
    let mut s = String::new();
    for &phase in o.phase.list() {
        let label = format!("{}:", phase.title());
        let Some(p) = f.phases.get(phase) else {
            let _ = writeln!(s, "{label:<width$} not run (the run stopped before it)");
            continue;
        };
        let done = p.requests;
        let count = if done == requests && p.complete {
            format!("{requests} requests")
        } else {
            format!("{done} of {requests} requests")
        };
        let sep = if sizes.starts_with("of") { " " } else { ": " };
        let fsync = match phase {
            Phase::Write if o.fsync => ", fsync timed",
            Phase::Write => ", no fsync",
            Phase::Read => "",
        };
        let _ = writeln!(
            s,
            "{label:<width$} {:.1} MB/s ({count}{sep}{sizes}{fsync}, cache: {})",
            p.mb_per_s,
            cache.name()
        );
    }
    if o.engine.is_fake() {
        let _ = writeln!(
            s,
            "note: engine {}: no I/O was done; the figures are iogauge's own cost",
            o.engine
        );
    } else {
        let ran = |phase| f.phases.get(phase).is_some();
        if ran(Phase::Write) && !o.fsync && !o.direct {
            s += "note: the write ended in the page cache (--no-fsync): a memory figure, not a disk figure\n";
        }
        if ran(Phase::Read) && cache == super::Cache::Warm {
            s += "note: the file was in the page cache when read: a memory figure, not a disk figure (--direct, or --drop-caches as root, reads from the disk)\n";
        }
    }
    if !r.complete && f.interrupted {
        s += "note: interrupted; the figures cover what ran\n";
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::OpSummary;
    use crate::suites::scientific::{Options, PhaseResult, figures};

    fn phase(phase: Phase, requests: u64, mb: f64, complete: bool) -> PhaseResult {
        let mut r = RunResult::new("scientific", (), Default::default(), "t".into());
        r.complete = complete;
        let op = OpSummary {
            count: requests,
            ..Default::default()
        };
        r.ops.insert(phase.name().into(), op);
        PhaseResult {
            phase,
            mb_per_s: mb,
            result: r,
        }
    }

    /// The classic lines of a run of `o` whose phases were `phases`.
    fn lines_of(o: &Options, phases: &[PhaseResult], complete: bool) -> String {
        let mut result = RunResult::new("scientific", (), Default::default(), "t".into());
        result.complete = complete;
        classic_lines(&o.plan(), &figures(o, phases), &result)
    }

    #[test]
    fn the_classic_lines_give_each_figure_with_its_requests_and_cache() {
        let o = Options::new(std::path::Path::new("."));
        let phases = [
            phase(Phase::Write, 800, 412.34, true),
            phase(Phase::Read, 800, 1523.0, true),
        ];
        let t = lines_of(&o, &phases, true);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            "Large file write: 412.3 MB/s (800 requests of 128.00 KiB, fsync timed, cache: warm)"
        );
        assert_eq!(
            lines[1],
            "Large file read:  1523.0 MB/s (800 requests of 128.00 KiB, cache: warm)"
        );
        assert!(lines[2].starts_with("note: the file was in the page cache"));
        assert_eq!(lines.len(), 3);
        // O_DIRECT: no caveat
        let direct = Options {
            direct: true,
            ..o.clone()
        };
        let t = lines_of(&direct, &phases, true);
        assert!(t.contains("cache: direct") && !t.contains("note:"), "{t}");
    }

    #[test]
    fn a_phase_cut_short_or_not_run_says_so() {
        let o = Options {
            fsync: false,
            ..Options::new(std::path::Path::new("."))
        };
        let t = lines_of(&o, &[phase(Phase::Write, 300, 100.0, false)], false);
        assert!(
            t.contains("Large file write: 100.0 MB/s (300 of 800 requests of 128.00 KiB, no fsync"),
            "{t}"
        );
        assert!(t.contains("Large file read:  not run"), "{t}");
        assert!(t.contains("note: the write ended in the page cache"), "{t}");
        assert!(
            !t.contains("when read"),
            "no read, no caveat of a read: {t}"
        );
    }
}
