//! IOBENCH in the survey: its defaults.

use crate::suites::iobench::{self, Config, Mode};
use crate::suites::survey::{Ctx, Row};
use anyhow::Result;

/// IOBENCH's defaults, users as processes, for the survey's time per workload.
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let r = iobench::run_for(&Config::default(), Mode::Processes, ctx.per, ctx.dir)?;
    emit(Row::metric(
        "iobench (defaults)",
        "transactions_per_s",
        "tx/s",
        r,
    ));
    Ok(())
}
