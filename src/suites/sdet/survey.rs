//! Sdet in the survey: a three-point curve.

use crate::suites::sdet::curve::{self, UNIT};
use crate::suites::sdet::run::{self as sdet, Options};
use crate::suites::survey::survey_curve;
use crate::suites::survey::{Ctx, Row};
use anyhow::Result;
use std::time::Duration;

/// Three points, N = 1, 2, 4, of 0.5 s each (0.3 s with --quick); one row
/// in scripts/h.
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    survey_as(ctx, true, emit)
}

/// The survey form with the scripts as processes or threads (a unit test
/// runs in a test binary, which cannot start iogauge's worker processes).
fn survey_as(ctx: &Ctx, processes: bool, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let per = Duration::from_millis(if ctx.quick { 300 } else { 500 });
    let o = Options {
        processes,
        ..Options::new(ctx.dir)
    };
    let row = survey_curve("sdet (dev scripts)", "sdet", UNIT, "script", |n| {
        // a script counts only when it ends inside the repetition; on a
        // loaded machine one can outlast the short form's time, so the
        // time doubles (to four times at most) until one does
        let mut d = per;
        loop {
            let rep = ctx.with_bar(&format!("sdet N={n}"), Some(d), None, |p| {
                sdet::run_point(&o, n, d, p)
            })?;
            let (s, r) = (curve::sample_of(&rep), rep.result);
            if s.completed > 0 || d >= per * 4 || crate::runner::signals::interrupted() {
                return Ok((s, r));
            }
            d *= 2;
        }
    })?;
    emit(row);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::survey::{assert_three_point_row, quick_rows};

    #[test]
    fn the_survey_form_gives_a_three_point_curve_in_scripts_per_hour_and_leaves_nothing() {
        let rows = quick_rows(|c, e| survey_as(c, false, e));
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!(row.name, "sdet (dev scripts), peak of N=1,2,4");
        assert!(row.name.chars().count() <= 38);
        assert_eq!(row.unit, "scripts/h");
        assert!(row.figure > 0.0);
        let note = row.note.as_deref().unwrap();
        if note.contains("no script completed at N=4") {
            // a loaded machine: four scripts at once did not finish one in
            // 0.3 s, and that point is no measurement
            let pts = row.result.metrics["curve"]["points"].as_array().unwrap();
            assert_eq!(pts.len(), 2, "{note}");
        } else {
            assert_three_point_row(row);
        }
    }
}
