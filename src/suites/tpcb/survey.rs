//! TPC-B in the survey: a three-point curve.

use crate::suites::survey::survey_curve;
use crate::suites::survey::{Ctx, Row};
use crate::suites::tpcb::load::sample_of;
use crate::suites::tpcb::run::{self as tpcb, Options};
use anyhow::Result;
use std::time::Duration;

/// A database for 1 tps, synced commits: a three-point curve (1, 2 and 4
/// terminals, 0.7 s each; 0.4 s with --quick), one row in tx/s.
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let per = Duration::from_millis(if ctx.quick { 400 } else { 700 });
    let row = survey_curve(
        "tpcb (synced commits)",
        "tpcb",
        "tx/s",
        "transaction",
        |n| {
            let o = Options {
                duration: per,
                terminals: n,
                ..Options::new(ctx.dir)
            };
            let rep = ctx.with_bar(&format!("tpcb N={n}"), Some(per), None, |p| {
                tpcb::run(&o, p)
            })?;
            let s = sample_of(&rep);
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
    fn the_survey_form_gives_a_three_point_curve_in_tx_per_s_and_leaves_nothing() {
        let rows = quick_rows(form);
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!(row.name, "tpcb (synced commits), peak of N=1,2,4");
        assert_eq!(row.unit, "tx/s");
        assert!(row.figure > 0.0);
        assert_eq!(row.result.metrics["consistent"], true);
        assert_three_point_row(row);
    }
}
