//! IOStone in the survey: C/1 and C/II at their defaults.

use crate::suites::iostone::{self, Options, Variant};
use crate::suites::survey::{Ctx, Row};
use anyhow::Result;

/// IOStone C/1 and C/II as published.
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    for (variant, name) in [(Variant::C1, "iostone C/1"), (Variant::C2, "iostone C/II")] {
        if crate::runner::signals::interrupted() {
            break;
        }
        let r = iostone::run(&Options::new(variant, ctx.dir), &crate::runner::NoProgress)?;
        emit(Row::metric(name, "iostones_per_s", "iostones/s", r));
    }
    Ok(())
}
