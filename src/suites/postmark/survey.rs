//! PostMark in the survey: its 1.53 defaults.

use crate::suites::postmark::config::{Config, Location};
use crate::suites::postmark::exec::{self, ExecOptions};
use crate::suites::survey::{Ctx, Row};
use anyhow::Result;

/// PostMark 1.53's defaults (500 files, 500 transactions) in the surveyed
/// directory.
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let cfg = Config {
        locations: vec![Location {
            path: ctx.dir.display().to_string(),
            weight: 1,
        }],
        ..Default::default()
    };
    let r = exec::measure(&cfg, &ExecOptions::default())?;
    emit(Row::metric(
        "postmark (1.53 defaults)",
        "transactions_per_s",
        "tx/s",
        r,
    ));
    Ok(())
}
