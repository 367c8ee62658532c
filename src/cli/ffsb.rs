//! `iogauge ffsb PROFILE`: FFSB 6.0-rc2 profiles, FFSB's report, and
//! iogauge's latency percentiles and JSON.

use super::common::{self, OutputArgs, Status};
use crate::engine::Choice;
use crate::error::UsageError;
use crate::report::now_rfc3339;
use crate::runner::Progress;
use crate::suites::ffsb::bench::{self, Options};
use crate::suites::ffsb::profile::Profile;
use crate::suites::ffsb::{figures, parse, report};
use anyhow::Result;
use std::path::PathBuf;

/// FFSB: file sets built (and aged) before the run, then thread groups
/// running weighted mixes of fifteen file operations for a fixed time,
/// as an FFSB 6.0 profile file describes them.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The FFSB profile file (examples/ffsb/ has FFSB's own and models of real loads).
    #[arg(value_name = "PROFILE")]
    pub profile: PathBuf,
    /// Put every file system of the profile here instead of its `location` (one file system: DIR itself; several: DIR/fs0, DIR/fs1, …, made by the run). DIR must exist.
    #[arg(long, value_name = "DIR")]
    pub location: Option<PathBuf>,
    /// Run for this long instead of the profile's `time` (e.g. 10s; 0 builds the file sets only).
    #[arg(long, value_name = "DURATION", value_parser = common::duration_arg)]
    pub time: Option<std::time::Duration>,
    /// Seed of every thread's random bytes, used as FFSB uses its own (FFSB reads them from /dev/urandom, so its runs cannot be repeated; iogauge's can).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Let `agefs=1` fill the file system up to `desired_util` (without it such a profile is refused).
    #[arg(long)]
    pub allow_aging: bool,
    /// The most aging may write (K, M, G are powers of 1024); a target that needs more is refused.
    #[arg(long, value_name = "SIZE", default_value = "4G", value_parser = common::size_arg)]
    pub max_age_bytes: u64,
    /// I/O engine ('iogauge engines' describes each).
    #[arg(long, value_name = "NAME", value_parser = common::engine_among::<Args>)]
    pub engine: Option<Choice>,
    #[command(flatten)]
    pub run: common::PointArgs,
    #[command(flatten)]
    pub cluster: common::ClusterArgs,
}

common::cmd!(run.out, {
    const DEFAULT_ENGINE: Option<&'static str> = Some("psync");
    // FFSB's file sets need real files: not null
    const ENGINES: Option<&'static [Choice]> = Some(&[
        Choice::PSYNC,
        Choice::SYNC,
        Choice::BUFFERED,
        Choice::IO_URING,
        Choice::LIBAIO,
        Choice::PVSYNC,
        Choice::PVSYNC2,
    ]);
});

/// The profile as the run will use it: parsed, relocated, its time set.
fn load(a: &Args) -> Result<Profile> {
    let mut p = parse::load(&a.profile).map_err(|e| UsageError::new(e.to_string()))?;
    if let Some(dir) = &a.location {
        p.relocate(dir);
    }
    if crate::cluster::active() {
        // each rank's file sets in a directory of its own in each location
        p.per_rank(&format!(
            "iogauge-ffsb-{}",
            crate::cluster::dir_tag().trim_end_matches('-')
        ));
    }
    if let Some(t) = a.time {
        p.time = u32::try_from(t.as_secs()).unwrap_or(u32::MAX);
        if p.time == 0 && !t.is_zero() {
            crate::usage!("--time {t:?}: FFSB's time is whole seconds; give at least 1s");
        }
    }
    Ok(p)
}

/// Prints FFSB's lines as the run goes.
struct Live<'a>(&'a OutputArgs);
impl Progress for Live<'_> {
    fn say(&self, line: &str) {
        self.0.say(&format!("{line}\n"));
    }
}

pub fn main(a: Args) -> Result<Status> {
    a.cluster.apply()?;
    if let Some(dir) = &a.location {
        crate::runner::workdir::check_dir(dir)
            .map_err(|e| UsageError::new(e.at(&format!("--location {}", dir.display()))))?;
    }
    let profile = load(&a)?;
    let mut paths = common::Paths::new();
    paths.input(format!("the profile {}", a.profile.display()), &a.profile);
    for fs in &profile.filesystems {
        for sub in ["data", "meta"] {
            let d = fs.location.join(sub);
            paths.removed(d.display().to_string(), &d);
        }
        if fs.run_makes_location {
            paths.removed(fs.location.display().to_string(), &fs.location);
        }
    }
    a.run.out.check_with(&mut paths)?;
    let engine = a.engine.unwrap_or(Choice::PSYNC);
    crate::engine::EngineSpec::new(engine)
        .direct(profile.directio)
        .check()
        .map_err(UsageError)?;
    let o = Options {
        profile,
        seed: crate::cluster::seed(a.seed),
        max_age_bytes: a.max_age_bytes,
        allow_aging: a.allow_aging,
        engine,
        pace: a
            .run
            .load
            .pace_uncapped(crate::cluster::seed(a.seed), "ffsb")?,
    };
    bench::check(&o).map_err(UsageError)?;
    if a.run.check.check {
        return Ok(common::checked(&a.profile.display().to_string()));
    }
    let started = now_rfc3339();
    a.run.out.say(&report::settings(&o.profile));
    let outcome = match bench::run(&o, &Live(&a.run.out)) {
        Ok(x) => x,
        Err(e) if !crate::error::is_usage(&e) => {
            // the file sets could not be made: the result says why
            let mut r = figures::begun(&o, started);
            r.complete = false;
            r.error = Some(crate::error::cause(&e));
            return common::finish(&a.run.out, &r, "");
        }
        Err(e) => return Err(e),
    };
    let (result, _) = figures::result_of(&o, &outcome, started);
    common::finish_with::<figures::Ffsb>(&a.run.out, &result)
}
