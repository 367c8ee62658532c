//! Andrew in the survey: a small generated tree.

use crate::suites::andrew::{self, Options};
use crate::suites::survey::{Ctx, Row};
use anyhow::Result;

/// The generated tree, 4 copies, the default CPU cost (1 copy with
/// --quick): one row, the total time in s (lower is better).
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let scale = if ctx.quick { 1 } else { 4 };
    let o = Options {
        scale,
        ..Options::new(ctx.dir)
    };
    let rep = ctx.with_bar("andrew", None, None, |p| andrew::run(&o, p))?;
    emit(Row::metric(
        format!("andrew (generated tree, scale {scale})"),
        "total_s",
        "s",
        rep.result,
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::survey::quick_rows;

    #[test]
    fn the_survey_form_gives_one_row_in_seconds_and_leaves_nothing() {
        let rows = quick_rows(form);
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!(row.name, "andrew (generated tree, scale 1)");
        assert_eq!(row.unit, "s");
        assert!(row.figure > 0.0 && row.figure < 2.0, "{}", row.figure);
        assert!(row.result.complete);
    }
}
