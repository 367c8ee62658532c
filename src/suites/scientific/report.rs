//! The scientific workloads' report: one classic line per phase with the
//! notes on what the figures measured, then iogauge's details.

use super::{Cache, Options, Phase, Report, split};
use crate::report::text;
use crate::suites::classic;
use crate::units::fmt_bytes;
use std::fmt::Write;

/// The two classic lines, the notes on what the figures measured, and
/// iogauge's details of each phase.
pub fn render(o: &Options, rep: &Report) -> String {
    let mut s = classic_lines(o, rep);
    let (_, last) = split(o.size.max(1), o.request.max(1));
    let _ = writeln!(
        s,
        "\niogauge details: scientific, engine {}{}{}, file {} in requests of {}{}, final fsync of the write {}, cache {}",
        o.engine,
        if o.direct { " (O_DIRECT)" } else { "" },
        if o.iodepth > 1 {
            format!(", {} requests in flight", o.iodepth)
        } else {
            String::new()
        },
        fmt_bytes(o.size),
        fmt_bytes(o.request),
        if last != o.request {
            format!(" (the last of {})", fmt_bytes(last))
        } else {
            String::new()
        },
        if o.fsync { "timed" } else { "left out" },
        o.cache().name()
    );
    if rep.phases.is_empty() {
        s += &text::render(&rep.result);
    }
    for p in &rep.phases {
        let _ = writeln!(s, "\n{} phase:", p.phase.name());
        s += &text::render(&p.result);
    }
    s
}

/// `Large file write: X MB/s (N requests of R, ..., cache: C)` and the
/// same for the read, then one line per caveat.
pub fn classic_lines(o: &Options, rep: &Report) -> String {
    let (requests, last) = split(o.size, o.request);
    // "800 requests of 128.00 KiB", or with a short last one "9 requests:
    // 8 of 128.00 KiB and 1 of 4.00 KiB"
    let sizes = if last == o.request || requests < 2 {
        format!("of {}", fmt_bytes(last))
    } else {
        format!(
            "{} of {} and 1 of {}",
            requests - 1,
            fmt_bytes(o.request),
            fmt_bytes(last)
        )
    };
    let cache = o.cache();
    let width = o
        .phases
        .list()
        .iter()
        .map(|p| p.title().len())
        .max()
        .unwrap_or(0)
        + 1;
    let mut s = String::new();
    for &phase in o.phases.list() {
        let label = format!("{}:", phase.title());
        let Some(p) = rep.phases.iter().find(|p| p.phase == phase) else {
            let _ = writeln!(s, "{label:<width$} not run (the run stopped before it)");
            continue;
        };
        let done = p.requests();
        let count = if done == requests && p.result.complete {
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
            p.mb_per_s(),
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
        let ran = |phase| rep.phases.iter().any(|p| p.phase == phase);
        if ran(Phase::Write) && !o.fsync && !o.direct {
            s += "note: the write ended in the page cache (--no-fsync): a memory figure, not a disk figure\n";
        }
        if ran(Phase::Read) && cache == Cache::Warm {
            s += "note: the file was in the page cache when read: a memory figure, not a disk figure (--direct, or --drop-caches as root, reads from the disk)\n";
        }
    }
    s += classic::interrupted_note(&rep.result);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{OpSummary, RunResult};
    use crate::suites::scientific::PhaseResult;

    fn phase(phase: Phase, requests: u64, mb: f64, complete: bool) -> PhaseResult {
        let mut r = RunResult::new("scientific", (), Default::default(), "t".into());
        r.complete = complete;
        let op = OpSummary {
            count: requests,
            ..Default::default()
        };
        r.ops.insert(phase.name().into(), op);
        r.metric("mb_per_s", mb);
        PhaseResult { phase, result: r }
    }

    fn report_of(phases: Vec<PhaseResult>, complete: bool) -> Report {
        let mut result = RunResult::new("scientific", (), Default::default(), "t".into());
        result.complete = complete;
        Report { result, phases }
    }

    #[test]
    fn the_classic_lines_give_each_figure_with_its_requests_and_cache() {
        let o = Options::new(std::path::Path::new("."));
        let rep = report_of(
            vec![
                phase(Phase::Write, 800, 412.34, true),
                phase(Phase::Read, 800, 1523.0, true),
            ],
            true,
        );
        let t = classic_lines(&o, &rep);
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
        let t = classic_lines(&direct, &rep);
        assert!(t.contains("cache: direct") && !t.contains("note:"), "{t}");
    }

    #[test]
    fn a_phase_cut_short_or_not_run_says_so() {
        let o = Options {
            fsync: false,
            ..Options::new(std::path::Path::new("."))
        };
        let rep = report_of(vec![phase(Phase::Write, 300, 100.0, false)], false);
        let t = classic_lines(&o, &rep);
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
