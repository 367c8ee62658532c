//! FFSB in the survey: a small mixed file-server load.

use crate::engine::Choice;
use crate::error::UsageError;
use crate::report::now_rfc3339;
use crate::runner::NoProgress;
use crate::suites::ffsb::bench::{self, Options};
use crate::suites::ffsb::{figures, parse};
use crate::suites::survey::{Ctx, Row};
use anyhow::Result;
use std::path::Path;

/// The short form: a small file set of 16–64 KiB files and a mixed
/// four-thread group (reads, whole-file reads, writes, creates, appends,
/// deletes, stats) for a few seconds, in the survey's directory.
pub fn form(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let secs = if ctx.quick { 2 } else { 5 };
    let text = format!(
        "# iogauge survey: a small mixed file-server load\ntime={secs}\ndirectio=0\n[filesystem0]\n\tlocation={}\n\tnum_files={}\n\tnum_dirs=10\n\tmin_filesize=16k\n\tmax_filesize=64k\n[end0]\n[threadgroup0]\n\tnum_threads=4\n\tread_weight=4\n\treadall_weight=2\n\twrite_weight=2\n\tcreate_weight=1\n\tappend_weight=1\n\tdelete_weight=1\n\tstat_weight=1\n\tread_size=16k\n\tread_blocksize=4k\n\twrite_size=16k\n\twrite_blocksize=4k\n[end0]\n",
        "survey",
        if ctx.quick { 200 } else { 1000 }
    );
    let mut profile = parse::parse(&text, Path::new("survey.ffsb"))
        .map_err(|e| anyhow::anyhow!("internal error: the survey's profile: {e}"))?;
    // the location: a work directory of the survey's own, gone at the end
    let work = crate::runner::WorkDir::create(ctx.dir, "ffsb-survey")
        .map_err(|e| UsageError::new(e.to_string()))?;
    profile.filesystems[0].location = work.path().to_path_buf();
    let o = Options {
        profile,
        seed: 1,
        max_age_bytes: 0,
        allow_aging: false,
        engine: Choice::PSYNC,
        pace: crate::runner::Pace::default(),
    };
    bench::check(&o).map_err(UsageError)?;
    let started = now_rfc3339();
    let out = bench::run(&o, &NoProgress)?;
    let (result, figures) = figures::result_of(&o, &out, started);
    emit(Row::new(
        "ffsb (mixed small files, 4 threads)",
        figures.total.transactions_per_s,
        "tx/s",
        result,
    ));
    Ok(())
}
