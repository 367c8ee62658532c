//! `iogauge scientific`: Chen & Patterson's large-file write and read.

use super::common::{self, EngineArgs, OutputArgs, Status};
use super::progress;
use super::survey::{Ctx, DeviceWatch, Row};
use crate::engine::Choice;
use crate::suites::scientific::{self, Cache, Options, Phase, Phases};
use anyhow::Result;
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
    let rep = progress::with_bar("scientific", None, Some(requests), a.out.progress(), |p| {
        scientific::run(&o, p)
    })?;
    common::finish_with::<scientific::Scientific>(&a.out, &rep.result)
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
    let watch = o.direct.then(|| DeviceWatch::start(ctx.dir));
    let rep = progress::with_bar("scientific", None, Some(requests), ctx.progress, |p| {
        scientific::run(&o, p)
    })?;
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
        let mut row = Row::new(name, p.mb_per_s, "MB/s", p.result.clone());
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
    use crate::cli::survey::quick_rows;

    /// The short form: two rows, each with its own phase's result (a
    /// typed scientific result), and nothing left in the directory.
    #[test]
    fn the_survey_form_gives_a_write_row_and_a_read_row() {
        let rows = quick_rows(survey);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["scientific large write", "scientific large read"]);
        for (row, (kind, p)) in rows
            .iter()
            .zip([("write", Phase::Write), ("read", Phase::Read)])
        {
            assert!(row.figure > 0.0 && row.unit == "MB/s", "{}", row.name);
            assert!(row.result.complete);
            // 16 MiB in 128 KiB requests
            assert_eq!(row.result.ops[kind].count, 128);
            assert_eq!(row.result.ops.len(), if kind == "write" { 2 } else { 1 });
            // a scientific result of that phase alone, which show prints
            let plan: scientific::Plan = serde_json::from_value(row.result.config.clone()).unwrap();
            assert_eq!(plan.phase.list(), [p]);
            let f: scientific::Figures = row.result.figures().unwrap();
            assert_eq!(f.phases.get(p).unwrap().mb_per_s, row.figure);
            let shown = crate::suites::benchmark::show_result(&row.result).unwrap();
            assert!(shown.starts_with(p.title()), "{shown}");
        }
    }
}
