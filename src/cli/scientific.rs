//! `iogauge scientific`: Chen & Patterson's large-file write and read.

use super::common::{self, EngineArgs, OutputArgs, Status};
use super::progress;
use crate::engine::Choice;
use crate::suites::scientific::{self, Options, Phases};
use anyhow::Result;
use std::path::PathBuf;

/// Chen & Patterson's "scientific" workloads (1993): a large file written
/// sequentially in large requests, then read back the same way; the figure
/// of each is MB/s (10^6 B/s). Default: a new file of 100 MiB written in
/// 128 KiB requests with one timed fsync at the end, then read in 128 KiB
/// requests. The report says whether the read came from the page cache.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Size of the file (K, M, G are powers of 1024: the default 100M is 100 MiB; with --device, the device's size). When it is not a multiple of --request, the last request is shorter.
    #[arg(long, value_name = "SIZE", value_parser = common::size_arg, allow_hyphen_values = true)]
    pub size: Option<u64>,
    /// Bytes per request.
    #[arg(long, default_value = "128K", value_name = "SIZE", value_parser = common::size_arg, allow_hyphen_values = true)]
    pub request: u64,
    /// Which phases to time: write, read (of a file laid out before timing) or both (write, then read the file written).
    #[arg(long, value_enum, default_value = "both", value_name = "PHASE")]
    pub phase: Phases,
    /// Leave the final fsync out of the write phase (by default it is timed, so the write figure counts the data reaching the disk, not only the page cache).
    #[arg(long)]
    pub no_fsync: bool,
    /// Before each phase, sync and drop the page cache (writes 3 to /proc/sys/vm/drop_caches; needs root): the read comes from the disk.
    #[arg(long)]
    pub drop_caches: bool,
    /// Parent of the run's work directory (created and removed by the run).
    #[arg(
        long,
        default_value = ".",
        value_name = "DIR",
        conflicts_with = "device"
    )]
    pub dir: PathBuf,
    #[command(flatten)]
    pub device: super::device::DeviceArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub depth: common::DepthArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub verify: super::verify::VerifyArgs,
}

common::cmd!(out, {
    const DEFAULT_ENGINE: Option<&'static str> = Some("psync");
});

impl Args {
    fn options(&self) -> Result<Options> {
        let device = self.device.check(
            self.phase != Phases::Read,
            self.engine.direct,
            "give --phase read to read only",
        )?;
        Ok(Options {
            size: self
                .size
                .or(device.as_ref().map(|d| d.bytes))
                .unwrap_or(scientific::DEFAULT_SIZE),
            request: self.request,
            phases: self.phase,
            dir: self.dir.clone(),
            engine: self.engine.choice(Choice::PSYNC),
            direct: self.engine.direct,
            iodepth: self.depth.iodepth,
            queue: self.depth.queue(),
            fsync: !self.no_fsync,
            drop_caches: self.drop_caches,
            verify: self.verify.plan(),
            device,
        })
    }
}

pub fn main(a: Args) -> Result<Status> {
    a.out.check()?;
    a.verify.check()?;
    let o = a.options()?;
    o.check().map_err(crate::error::UsageError)?;
    let (requests, _) = scientific::split(o.size.max(1), o.request.max(1));
    let rep = progress::with_bar("scientific", None, Some(requests), a.out.progress(), |p| {
        scientific::run(&o, p)
    })?;
    common::finish_with::<scientific::Scientific>(&a.out, &rep.result)
}
