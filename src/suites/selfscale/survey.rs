//! The self-scaling benchmark in the survey: a short pass.

use crate::selfscale;
use crate::suites::survey::{Ctx, Row};
use anyhow::Result;

/// A short self-scaling pass: the regions, a focal point, the curves. Its
/// model is kept where the survey was told (`--out`, or beside `--json`).
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let pass = selfscale::short_pass(ctx.dir, ctx.out, ctx.quick, &selfscale::Quiet)?;
    let fig = pass.result.summary.read_bytes_per_s + pass.result.summary.write_bytes_per_s;
    let mut row = Row::new("selfscale (short pass)", fig / 1e6, "MB/s", pass.result);
    let mut note = pass.line;
    if ctx.keep_out {
        note += &format!("; model in {}", ctx.out.display());
        row.extra.push((
            "selfscale_model",
            serde_json::Value::String(pass.model_path.display().to_string()),
        ));
    }
    row.note = Some(note);
    if !pass.complete {
        row.result.complete = false;
    }
    emit(row);
    Ok(())
}
