//! IOzone in the survey: a small auto grid.

use crate::error::UsageError;
use crate::suites::iozone::exec::{self, Exec};
use crate::suites::iozone::flags;
use crate::suites::iozone::report::Column;
use crate::suites::iozone::run;
use crate::suites::survey::{Ctx, DeviceWatch, Row};
use anyhow::Result;
use std::time::Duration;

/// The short form: a small auto-mode grid of write, read, random read and
/// random write; the scorecard shows the largest file's figures at 64 kB
/// records (the JSON has every cell).
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let (max, flags) = if ctx.quick {
        ("4m", "-a -n 1m -g 4m -y 16k -q 256k -i 0 -i 1 -i 2")
    } else {
        ("16m", "-a -n 1m -g 16m -y 4k -q 1m -i 0 -i 1 -i 2")
    };
    let mut args: Vec<String> = flags.split(' ').map(String::from).collect();
    if ctx.direct_ok {
        args.push("-I".into());
    }
    let cfg = flags::parse(&args).map_err(UsageError)?.config;
    let how = format!("iozone {}", args.join(" "));
    let short = format!("iozone -a{}", if ctx.direct_ok { " -I" } else { "" });
    let x = Exec {
        dir: ctx.dir,
        engine: run::DEFAULT_ENGINE,
        queued: None,
        settle: Duration::ZERO,
        command_line: how,
        allow_outside: false,
        plot: None,
        verify: None,
        device: None,
    };
    let watch = ctx.direct_ok.then(|| DeviceWatch::start(ctx.dir));
    let rep = exec::execute(&cfg, &x, &exec::Quiet)?;
    let Some(o) = &rep.single else {
        return Ok(());
    };
    // -I: whether its I/O reached a disk at all, over the whole grid
    let s = &rep.result.summary;
    let why = watch.and_then(|w| w.not_to_disk(ctx.dir, s.bytes_read, s.bytes_written));
    let largest = o.table.rows.iter().map(|r| r.kb).max().unwrap_or(0);
    let row = o
        .table
        .rows
        .iter()
        .find(|r| r.kb == largest && r.reclen_kb == 64 && !r.values.is_empty());
    for (c, label) in [
        (Column::Write, "write"),
        (Column::Read, "read"),
        (Column::RandRead, "random read"),
        (Column::RandWrite, "random write"),
    ] {
        let Some(v) = row.and_then(|r| r.values.get(&c)) else {
            continue;
        };
        let result = exec::column_result(&rep, c);
        let mut row = Row::new(
            format!("{short}: {label} {max}/64k"),
            // kB/s (KiB) as the scorecard's MB/s (10^6 B/s)
            *v as f64 * 1024.0 / 1e6,
            "MB/s",
            result,
        );
        if let Some(w) = &why {
            row.result.metric("not_to_disk", w);
            row.note = Some(w.clone());
        }
        ctx.fell_back(&mut row);
        emit(row);
    }
    Ok(())
}
