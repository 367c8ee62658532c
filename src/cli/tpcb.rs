//! `iogauge tpcb`: one load point of TPC-B's debit-credit transaction.

use super::common::{self, Status};
use super::progress;
use super::scale;
use crate::engine::Choice;
use crate::suites::tpcb::load::TpcbPoint;
use crate::suites::tpcb::run::{self as tpcb, Options};
use anyhow::Result;
use std::path::PathBuf;
use std::time::Duration;

/// TPC-B (1990): the debit-credit transaction. Makes a bank's record files
/// (untimed: one branch, 10 tellers and 100 000 accounts of 100 B per tps
/// of --tps-scale), runs --terminals terminals that issue transactions back
/// to back for --duration, each committing with an fsync of the history
/// file, then checks that the balances and the history agree. Reports tps,
/// the response-time histogram, and whether 90 % of the transactions
/// finished within 2 s. One load point: TPC-B's maximum tps is the best of
/// several.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The tps the database is sized for: N branches, each with 10 tellers and 100 000 accounts (10 MB of account records per branch).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = count_u32, allow_hyphen_values = true)]
    pub tps_scale: u32,
    /// Concurrent terminals (one thread each), issuing transactions back to back with no think time.
    #[arg(long, default_value = "4", value_name = "N", value_parser = common::count_arg, allow_hyphen_values = true)]
    pub terminals: usize,
    /// How long the terminals run (e.g. 10s, 2m; a plain number is seconds). Default 10s; under 'iogauge scale', each repetition of a point, default 2s.
    #[arg(long, value_name = "TIME", value_parser = common::duration_arg, allow_hyphen_values = true)]
    pub duration: Option<Duration>,
    /// fsync the history file at each commit (on: TPC-B's durable commit; off: commits end in the page cache).
    #[arg(long, default_value = "on", value_name = "on|off", value_parser = common::on_off, action = clap::ArgAction::Set)]
    pub commit_sync: bool,
    /// Seed of the terminals' choices of teller, account and amount (terminal k draws stream k).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    /// Parent of the run's work directory (created and removed by the run).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    /// I/O engine ('iogauge engines' describes each).
    #[arg(long, value_name = "NAME", value_parser = common::engine_among::<Args>)]
    pub engine: Option<Choice>,
    /// Not offered: TPC-B's 100-byte records cannot be moved with O_DIRECT; kept to say so.
    #[arg(long, hide = true)]
    pub direct: bool,
    #[command(flatten)]
    pub run: common::PointArgs,
    #[command(flatten)]
    pub cluster: common::ClusterArgs,
}

common::cmd!(run.out, {
    const DEFAULT_ENGINE: Option<&'static str> = Some("psync");
    // buffered keeps writes from the other terminals, null does no I/O
    const ENGINES: Option<&'static [Choice]> = Some(&[
        Choice::PSYNC,
        Choice::SYNC,
        Choice::IO_URING,
        Choice::LIBAIO,
        Choice::PVSYNC,
        Choice::PVSYNC2,
    ]);
    const LOAD_ABOUT: Option<&'static str> =
        Some("TPC-B (its flags as 'iogauge tpcb'); the load is its terminals.");
    fn load_point(self) -> Option<scale::Point> {
        let flags = scale::PointFlags {
            args: self.run.clone(),
            depth: 1,
            workers: ("--terminals", 4, self.terminals),
            inputs: common::Paths::new(),
        };
        let point = self.options().map(|o| Options {
            duration: scale::repetition(self.duration),
            ..o
        });
        Some(scale::Point::new(flags, point.map(TpcbPoint)))
    }
});

fn count_u32(s: &str) -> Result<u32, String> {
    let n = common::count_arg(s)?;
    u32::try_from(n).map_err(|_| format!("{n} is too large"))
}

impl Args {
    pub fn options(&self) -> Result<Options> {
        Ok(Options {
            tps_scale: self.tps_scale,
            terminals: self.terminals,
            duration: self.duration.unwrap_or(Duration::from_secs(10)),
            commit_sync: self.commit_sync,
            seed: crate::cluster::seed(self.seed),
            engine: self.engine.unwrap_or(Choice::PSYNC),
            dir: self.dir.clone(),
            pace: self
                .run
                .load
                .pace_uncapped(crate::cluster::seed(self.seed), "tpcb")?,
        })
    }
}

pub fn main(a: Args) -> Result<Status> {
    a.run.out.check()?;
    a.cluster.apply()?;
    if a.direct {
        crate::usage!(
            "--direct: TPC-B's 100-byte records cannot be read or written with O_DIRECT (it needs whole 4 KiB blocks)"
        );
    }
    let o = a.options()?;
    o.check().map_err(crate::error::UsageError)?;
    if a.run.check.check {
        tpcb::check(&o)?;
        return Ok(common::checked("iogauge tpcb"));
    }
    let rep = progress::with_bar("tpcb", Some(o.duration), None, a.run.out.progress(), |p| {
        tpcb::run(&o, p)
    })?;
    common::finish_with::<tpcb::Tpcb>(&a.run.out, &rep.result)
}
