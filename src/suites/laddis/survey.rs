//! LADDIS in the survey: a three-point curve.

use crate::runner::StopRule;
use crate::suites::laddis::load::{UNITS, sample_of};
use crate::suites::laddis::run::{self as laddis, Options};
use crate::suites::survey::{Ctx, Row, timed_curve};
use anyhow::Result;

/// An 8 MiB file set, the nhfsstone mix: a three-point curve (1, 2 and 4
/// processes, 0.7 s each; 0.4 s with --quick), one row in ops/s.
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    timed_curve(
        ctx,
        "laddis (nhfsstone)",
        "laddis",
        UNITS,
        emit,
        |n, per, p| {
            let o = Options {
                fileset: Some(8 << 20),
                procs: n,
                ..Options::new(ctx.dir)
            };
            let rule = StopRule {
                duration: Some(per),
                ..Default::default()
            };
            let rep = laddis::run(&o, rule, p)?;
            Ok((sample_of(&rep), rep.result))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::survey::quick_curve_row;

    #[test]
    fn the_survey_form_gives_a_three_point_curve_in_ops_per_s_and_leaves_nothing() {
        quick_curve_row(form, "ops/s");
    }
}
