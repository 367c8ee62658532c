//! `iogauge scientific`: Chen & Patterson's large-file write and read.

use super::common::{self, EngineArgs, OutputArgs, Status};
use super::progress::{self, Bar};
use super::survey::{Ctx, DeviceWatch, Row};
use crate::engine::Choice;
use crate::report::text;
use crate::runner::signals;
use crate::suites::scientific::{self, Cache, Options, Phase, Phases, Report};
use crate::units::fmt_bytes;
use anyhow::Result;
use std::fmt::Write;
use std::path::PathBuf;

/// Chen & Patterson's "scientific" workloads (1993): a large file written
/// sequentially in large requests, then read back the same way; the figure
/// of each is MB/s (10^6 B/s). Default: a new file of 100 MiB written in
/// 128 KiB requests with one timed fsync at the end, then read in 128 KiB
/// requests. The report says whether the read came from the page cache.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Size of the file (K, M, G are powers of 1024: the default 100M is 100 MiB). When it is not a multiple of --request, the last request is shorter.
    #[arg(long, default_value = "100M", value_name = "SIZE", value_parser = common::size_arg, allow_hyphen_values = true)]
    pub size: u64,
    /// Bytes per request.
    #[arg(long, default_value = "128K", value_name = "SIZE", value_parser = common::size_arg, allow_hyphen_values = true)]
    pub request: u64,
    /// Which phases to time: write, read (of a file laid out before timing) or both (write, then read the file written).
    #[arg(long, value_enum, default_value = "both", value_name = "PHASE")]
    pub phase: Phases,
    /// Leave the final fsync out of the write phase (by default it is timed, so the write figure counts the data reaching the disk, not only the page cache).
    #[arg(long)]
    pub no_fsync: bool,
    /// Before each phase, sync and drop the page cache (writes 3 to /proc/sys/vm/drop_caches; needs root): the read comes from the disk.
    #[arg(long)]
    pub drop_caches: bool,
    /// Parent of the run's work directory (created and removed by the run).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub depth: common::DepthArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

impl super::Cmd for Args {
    const DEFAULT_ENGINE: Option<&'static str> = Some("psync");
    fn main(self) -> Result<Status> {
        main(self)
    }
    fn output(&self) -> Option<OutputArgs> {
        Some(self.out.clone())
    }
}

impl Args {
    fn options(&self) -> Options {
        Options {
            size: self.size,
            request: self.request,
            phases: self.phase,
            dir: self.dir.clone(),
            engine: self.engine.choice(Choice::PSYNC),
            direct: self.engine.direct,
            iodepth: self.depth.iodepth,
            fsync: !self.no_fsync,
            drop_caches: self.drop_caches,
        }
    }
}

pub fn main(a: Args) -> Result<Status> {
    a.out.check()?;
    let o = a.options();
    o.check().map_err(crate::error::UsageError)?;
    let (requests, _) = scientific::split(o.size.max(1), o.request.max(1));
    let bar = Bar::new("scientific", None, Some(requests), a.out.progress());
    let rep = scientific::run(&o, progress::sink(&bar))?;
    drop(bar);
    common::finish(&a.out, &rep.result, &report(&o, &rep))
}

/// The two classic lines, the notes on what the figures measured, and
/// iogauge's details of each phase.
pub fn report(o: &Options, rep: &Report) -> String {
    let mut s = classic_lines(o, rep);
    let (_, last) = scientific::split(o.size.max(1), o.request.max(1));
    let _ = writeln!(
        s,
        "\niogauge details: scientific, engine {}{}, file {} in requests of {}{}, final fsync of the write {}, cache {}",
        o.engine,
        if o.direct { " (O_DIRECT)" } else { "" },
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
    let (requests, last) = scientific::split(o.size, o.request);
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
    if !rep.result.complete && signals::interrupted() {
        s += "note: interrupted; the figures cover what ran\n";
    }
    s
}

/// Both workloads at a smaller size: 64 MiB (16 MiB with --quick) in
/// 128 KiB requests, through O_DIRECT where the directory takes it.
pub fn survey(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let o = Options {
        size: if ctx.quick { 16 << 20 } else { 64 << 20 },
        direct: ctx.direct_ok,
        ..Options::new(ctx.dir)
    };
    let (requests, _) = scientific::split(o.size, o.request);
    let bar = Bar::new("scientific", None, Some(requests), ctx.progress);
    let watch = o.direct.then(|| DeviceWatch::start(ctx.dir));
    let rep = scientific::run(&o, progress::sink(&bar))?;
    drop(bar);
    // the write's bytes went one way and the read's the other: each phase
    // is judged on its own direction of the device's counters
    let s = &rep.result.summary;
    let why = |phase: Phase| {
        let w = watch.as_ref()?;
        match phase {
            Phase::Write => w.not_to_disk(ctx.dir, 0, s.bytes_written),
            Phase::Read => w.not_to_disk(ctx.dir, s.bytes_read, 0),
        }
    };
    for p in &rep.phases {
        let name = match p.phase {
            Phase::Write => "scientific large write",
            Phase::Read => "scientific large read",
        };
        let mut row = Row::metric(name, "mb_per_s", "MB/s", p.result.clone());
        if p.phase == Phase::Read && o.cache() == Cache::Warm {
            row.note = Some("read from the page cache: a memory figure, not a disk figure".into());
        }
        if let Some(w) = why(p.phase) {
            row.result.metric("not_to_disk", &w);
            row.note = Some(w);
        }
        emit(row);
    }
    Ok(())
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

    /// The short form: two rows, each with its own phase's result, and
    /// nothing left in the directory.
    #[test]
    fn the_survey_form_gives_a_write_row_and_a_read_row() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx::quick_in(dir.path());
        let mut rows = Vec::new();
        survey(&ctx, &mut |r| rows.push(r)).unwrap();
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["scientific large write", "scientific large read"]);
        for (row, kind) in rows.iter().zip(["write", "read"]) {
            assert!(row.figure > 0.0 && row.unit == "MB/s", "{}", row.name);
            assert!(row.result.complete);
            // 16 MiB in 128 KiB requests
            assert_eq!(row.result.ops[kind].count, 128);
            assert_eq!(row.result.ops.len(), if kind == "write" { 2 } else { 1 });
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
