//! TPC-B in the survey: a three-point curve.

use crate::suites::survey::{Ctx, Row, timed_curve};
use crate::suites::tpcb::load::{UNITS, sample_of};
use crate::suites::tpcb::run::{self as tpcb, Options};
use anyhow::Result;

/// A database for 1 tps, synced commits: a three-point curve (1, 2 and 4
/// terminals, 0.7 s each; 0.4 s with --quick), one row in tx/s.
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    timed_curve(
        ctx,
        "tpcb (synced commits)",
        "tpcb",
        UNITS,
        emit,
        |n, per, p| {
            let o = Options {
                duration: per,
                terminals: n,
                ..Options::new(ctx.dir)
            };
            let rep = tpcb::run(&o, p)?;
            Ok((sample_of(&rep), rep.result))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::survey::quick_curve_row;

    #[test]
    fn the_survey_form_gives_a_three_point_curve_in_tx_per_s_and_leaves_nothing() {
        let row = quick_curve_row(form, "tx/s");
        assert_eq!(row.name, "tpcb (synced commits), peak of N=1,2,4");
        assert_eq!(row.result.metrics["consistent"], true);
    }
}
