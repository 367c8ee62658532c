//! LADDIS in the survey: a three-point curve.

use crate::runner::StopRule;
use crate::suites::laddis::run::{self as laddis, Options};
use crate::suites::load::sample_of;
use crate::suites::survey::survey_curve;
use crate::suites::survey::{Ctx, Row};
use anyhow::Result;
use std::time::Duration;

/// An 8 MiB file set, the nhfsstone mix: a three-point curve (1, 2 and 4
/// processes, 0.7 s each; 0.4 s with --quick), one row in ops/s.
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let per = Duration::from_millis(if ctx.quick { 400 } else { 700 });
    let row = survey_curve(
        "laddis (nhfsstone)",
        "laddis",
        "ops/s",
        "NFS operation",
        |n| {
            let o = Options {
                fileset: Some(8 << 20),
                procs: n,
                ..Options::new(ctx.dir)
            };
            let rule = StopRule {
                duration: Some(per),
                ..Default::default()
            };
            let rep = ctx.with_bar(&format!("laddis N={n}"), Some(per), None, |p| {
                laddis::run(&o, rule, p)
            })?;
            let s = sample_of(&rep.result, rep.figures.nfs_ops_per_s, rep.figures.nfs_ops);
            Ok((s, rep.result))
        },
    )?;
    emit(row);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::survey::{assert_three_point_row, quick_rows};

    #[test]
    fn the_survey_form_gives_a_three_point_curve_in_ops_per_s_and_leaves_nothing() {
        let rows = quick_rows(form);
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!(row.unit, "ops/s");
        assert!(row.figure > 0.0);
        assert_three_point_row(row);
    }
}
