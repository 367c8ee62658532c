//! bonnie++ in the survey: block I/O, seeks and creates.

use crate::runner::NoProgress;
use crate::suites::bonnie::{self, Flavor, Options, Seed, Test};
use crate::suites::survey::{Ctx, DeviceWatch, Row};
use anyhow::Result;

/// bonnie++ as its users run it, on a small file (O_DIRECT where the file
/// system allows, so the figures are the disk's): block write, block read,
/// seeks and file creates, each row with that test's own latencies.
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let mut o = Options::new(Flavor::BonniePlusPlus, ctx.dir, 0);
    o.size_mib = if ctx.quick { 16 } else { 64 };
    o.byte_io_mib = 0;
    o.direct = ctx.direct_ok;
    o.seeks = if ctx.quick { 2048 } else { 8192 };
    o.files = bonnie::parse_file_tests("1").map_err(crate::error::UsageError)?;
    o.seed = Seed::Num(1);
    let watch = o.direct.then(|| DeviceWatch::start(ctx.dir));
    let (r, results) = bonnie::run(&o, &NoProgress)?;
    // -D: whether its I/O reached a disk at all, over the whole run
    let why =
        watch.and_then(|w| w.not_to_disk(ctx.dir, r.summary.bytes_read, r.summary.bytes_written));
    let how = format!(
        "bonnie++ -s {}{}",
        o.size_mib,
        if o.direct { " -D" } else { "" }
    );
    for (t, label, unit, scale) in [
        // KiB/s as the scorecard's MB/s (10^6 B/s)
        (Test::PutBlock, "block write", "MB/s", 1024.0 / 1e6),
        (Test::GetBlock, "block read", "MB/s", 1024.0 / 1e6),
        (Test::Seeks, "seeks", "seeks/s", 1.0),
        (Test::SeqCreate, "creates (-n 1)", "files/s", 1.0),
    ] {
        if let Some(m) = results.get(t) {
            let mut row = Row::new(
                format!("{how}: {label}"),
                m.rate(t) * scale,
                unit,
                bonnie::test_result(&r, m),
            );
            if let Some(w) = &why {
                row.result.metric("not_to_disk", w);
                row.note = Some(w.clone());
            }
            ctx.fell_back(&mut row);
            emit(row);
        }
    }
    Ok(())
}
