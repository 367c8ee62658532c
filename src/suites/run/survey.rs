//! The generic workload in the survey: a few telling points.

use crate::engine::{Choice, FsyncPolicy};
use crate::report::RunResult;
use crate::runner::StopRule;
use crate::session::generic::{IoSetup, Target, run_generic};
use crate::suites::survey::{Ctx, DeviceWatch, Row};
use crate::workload::generic::GenericSpec;
use anyhow::Result;

/// The sequential write of the survey (twice as much without --quick):
/// the most any short form writes, which the survey checks room for
/// before its first row.
const SURVEY_WRITE: u64 = 256 << 20;

/// The most data one short form of the survey writes.
pub fn largest(quick: bool) -> u64 {
    SURVEY_WRITE * if quick { 1 } else { 2 }
}

/// The depth of the survey's queued random-read row.
const QUEUED_DEPTH: u16 = 32;

/// The name of the queued random-read row.
const QUEUED_ROW: &str = "O_DIRECT 4 KiB random read, QD32";

/// One point of the survey: its name, its name when its O_DIRECT I/O
/// turns out not to have reached a disk (decided from the device's
/// counters), and what it runs.
struct Point {
    name: &'static str,
    elsewhere: &'static str,
    spec: GenericSpec,
    setup: IoSetup,
}

/// The survey's points of the generic workload: cached 4 KiB random reads,
/// Chen & Patterson's focal mix, a sequential write (O_DIRECT where the
/// file system takes it, else buffered with an fsync every 16 MiB) and
/// O_DIRECT 4 KiB random reads, one at a time and 32 in flight (io_uring,
/// else libaio; where neither works, or O_DIRECT does not, that row says
/// why instead of a figure).
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    // the queued row's engine, or why it has none here
    let queued = if ctx.direct_ok {
        crate::suites::queued::pick(true, QUEUED_DEPTH)
    } else {
        Err("the directory refuses O_DIRECT".to_string())
    };
    for point in points(ctx, queued.as_ref().ok().copied()) {
        if crate::runner::signals::interrupted() {
            break;
        }
        emit(measure(ctx, &point)?);
    }
    if let Err(why) = queued
        && !crate::runner::signals::interrupted()
    {
        emit(queued_not_measured(ctx, why));
    }
    Ok(())
}

/// The points to run in `ctx`: the O_DIRECT ones where the directory takes
/// O_DIRECT, the queued one only with an engine (`queued`) for it.
fn points(ctx: &Ctx, queued: Option<Choice>) -> Vec<Point> {
    let scale = if ctx.quick { 1 } else { 2 };
    let spec = |unique: u64, mean: u64, cv: f64, read: f64, seq: f64, align: u64| GenericSpec {
        unique_bytes: unique * scale,
        size_mean: mean,
        size_cv: cv,
        read_frac: read,
        trim_frac: 0.0,
        seq_frac: seq,
        processes: 1,
        files: 1,
        align,
        seed: 1,
        distribution: crate::workload::dist::Dist::Random,
    };
    let setup = |direct: bool, fsync: FsyncPolicy| IoSetup {
        engine: Choice::PSYNC,
        direct,
        iodepth: 1,
        queue: Default::default(),
        fsync,
        fdatasync: false,
        cold: false,
        noatime: false,
    };
    let mut points = vec![
        Point {
            name: "cached 4 KiB random read",
            elsewhere: "",
            spec: spec(128 << 20, 4096, 0.0, 1.0, 0.0, 4096),
            setup: setup(false, FsyncPolicy::Never),
        },
        Point {
            name: "focal mix (20K, r.5, s.5)",
            elsewhere: "",
            spec: spec(32 << 20, 20 << 10, 1.0, 0.5, 0.5, 512),
            setup: setup(false, FsyncPolicy::Never),
        },
    ];
    if !ctx.direct_ok {
        points.push(Point {
            name: "1 MiB seq. write, fsync/16 MiB",
            elsewhere: "",
            spec: spec(SURVEY_WRITE, 1 << 20, 0.0, 0.0, 1.0, 4096),
            setup: setup(false, FsyncPolicy::Every(16)),
        });
        return points;
    }
    points.push(Point {
        name: "O_DIRECT 1 MiB sequential write",
        elsewhere: "1 MiB seq. write, not to disk",
        spec: spec(SURVEY_WRITE, 1 << 20, 0.0, 0.0, 1.0, 4096),
        setup: setup(true, FsyncPolicy::Never),
    });
    points.push(Point {
        name: "O_DIRECT 4 KiB random read",
        elsewhere: "4 KiB random read, not from disk",
        spec: spec(128 << 20, 4096, 0.0, 1.0, 0.0, 4096),
        setup: setup(true, FsyncPolicy::Never),
    });
    if let Some(engine) = queued {
        points.push(Point {
            name: QUEUED_ROW,
            elsewhere: "4 KiB reads QD32, not from disk",
            spec: spec(128 << 20, 4096, 0.0, 1.0, 0.0, 4096),
            setup: IoSetup {
                engine,
                iodepth: QUEUED_DEPTH,
                ..setup(true, FsyncPolicy::Never)
            },
        });
    }
    points
}

/// Runs one point for `ctx.per` and makes its row: MB/s for 1 MiB
/// requests, else IO/s; an O_DIRECT point that did not reach the disk is
/// renamed and says why.
fn measure(ctx: &Ctx, point: &Point) -> Result<Row> {
    let rule = StopRule {
        duration: Some(ctx.per),
        ..Default::default()
    };
    let watch = point.setup.direct.then(|| DeviceWatch::start(ctx.dir));
    let mut r = ctx.with_bar(point.name, Some(ctx.per), None, |p| {
        run_generic(
            &point.spec,
            &point.setup,
            rule,
            &Target::Layout(ctx.dir.to_path_buf()),
            false,
            p,
        )
    })?;
    let why =
        watch.and_then(|w| w.not_to_disk(ctx.dir, r.summary.bytes_read, r.summary.bytes_written));
    let (fig, unit) = if point.spec.size_mean >= 1 << 20 {
        (
            (r.summary.read_bytes_per_s + r.summary.write_bytes_per_s) / 1e6,
            "MB/s",
        )
    } else {
        (r.summary.ops_per_s, "IO/s")
    };
    let name = if why.is_some() {
        point.elsewhere
    } else {
        point.name
    };
    if let Some(w) = &why {
        r.metric("not_to_disk", w);
    }
    let mut row = Row::new(format!("run: {name}"), fig, unit, r);
    row.note = why;
    Ok(row)
}

/// The queued row where no engine could run it: what it asked for, and
/// `why` in place of a figure.
fn queued_not_measured(ctx: &Ctx, why: String) -> Row {
    let asked = serde_json::json!({
        "engine": "io_uring or libaio",
        "direct": true,
        "iodepth": QUEUED_DEPTH,
    });
    let mut r = RunResult::new(
        "run",
        asked,
        crate::env::detect(ctx.dir),
        crate::report::now_rfc3339(),
    );
    r.complete = false;
    Row::not_measured(format!("run: {QUEUED_ROW}"), why, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Issue 33: on tmpfs, which takes O_DIRECT and serves it from memory,
    /// the survey called memory speed "O_DIRECT 4 KiB random read". The
    /// rows are named from what the device did, not from the file system.
    #[test]
    fn the_survey_names_o_direct_rows_from_what_the_device_did() {
        let shm = std::path::Path::new("/dev/shm");
        let on_tmpfs = crate::env::mount_for(shm).is_some_and(|m| m.fs_type == "tmpfs");
        if !on_tmpfs || !crate::env::supports_direct(shm).unwrap_or(false) {
            println!("skipped: no tmpfs at /dev/shm that takes O_DIRECT (Linux 6.6 on)");
            return;
        }
        let dir = tempfile::tempdir_in(shm).unwrap();
        let ctx = Ctx {
            per: Duration::from_millis(100),
            ..Ctx::quick_in(dir.path())
        };
        assert!(ctx.direct_ok);
        let mut rows = Vec::new();
        form(&ctx, &mut |r| rows.push(r)).unwrap();
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names[2..4],
            [
                "run: 1 MiB seq. write, not to disk",
                "run: 4 KiB random read, not from disk"
            ],
            "{names:?}"
        );
        // the depth-32 row, measured (io_uring or libaio) or saying why not
        let qd32 = &rows[4];
        if let Some(why) = &qd32.not_measured {
            assert_eq!(qd32.name, format!("run: {QUEUED_ROW}"));
            assert!(why.contains("io_uring") && why.contains("libaio"), "{why}");
        } else {
            assert_eq!(qd32.name, "run: 4 KiB reads QD32, not from disk");
        }
        for r in rows[2..].iter().filter(|r| r.not_measured.is_none()) {
            let note = r.note.as_deref().unwrap();
            assert!(note.contains("tmpfs has no block device"), "{note}");
            assert_eq!(r.result.metrics["not_to_disk"], note);
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
