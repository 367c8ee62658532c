//! The scientific workloads in the survey: a row per phase.

use crate::suites::scientific::{self, Cache, Options, Phase};
use crate::suites::survey::{Ctx, DeviceWatch, Row};
use anyhow::Result;

/// Both workloads at a smaller size: 64 MiB (16 MiB with --quick) in
/// 128 KiB requests, through O_DIRECT where the directory takes it.
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let o = Options {
        size: if ctx.quick { 16 << 20 } else { 64 << 20 },
        direct: ctx.direct_ok,
        ..Options::new(ctx.dir)
    };
    let (requests, _) = scientific::split(o.size, o.request);
    let watch = o.direct.then(|| DeviceWatch::start(ctx.dir));
    let rep = ctx.with_bar("scientific", None, Some(requests), |p| {
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
        ctx.fell_back(&mut row);
        emit(row);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::survey::quick_rows;

    /// The short form: two rows, each with its own phase's result (a
    /// typed scientific result), and nothing left in the directory.
    #[test]
    fn the_survey_form_gives_a_write_row_and_a_read_row() {
        let rows = quick_rows(form);
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
