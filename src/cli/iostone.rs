//! `iogauge iostone`: IOStone C/1 (default) or C/II.

use super::common::{self, EngineArgs, OutputArgs, Status};
use super::progress;
use crate::engine::Choice;
use crate::suites::iostone::{self, Options, Seeding, Variant};
use anyhow::Result;
use std::path::PathBuf;

/// IOStone: random reads and writes of nine transfer sizes, two reads to one
/// write, in the proportions of the file-system traces of the 1980s.
/// C/1 (the default, Park & Lipton 1987) does 4608 transfers on one 4 MiB
/// file; C/II (1990, what Chen & Patterson measured) opens and closes one of
/// 396 small files around every access.
#[derive(clap::Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct Args {
    /// Which version: c1 (1986, one 4 MiB file) or c2 (1990, 396 files, open/close per access).
    #[arg(long, value_enum, default_value = "c1")]
    pub variant: Variant,
    /// srandom: srandom(34710373) as C/II does; literal: the C/1 listing as printed (random(SEED) does not seed).
    #[arg(long, value_enum, default_value = "srandom")]
    pub seeding: Seeding,
    /// Multiply the data by K with the same mix (C/1: a K× larger file; C/II: K× as many file sets). 4 MB fits in any cache.
    #[arg(long, default_value_t = 1, value_name = "K", value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub scale: u64,
    /// Parent of the run's work directory (created and removed by the run).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

common::cmd!(out, {
    const DEFAULT_ENGINE: Option<&'static str> = Some("sync");
    // IOStone writes its files from empty: not mmap
    const ENGINES: Option<&'static [Choice]> = Some(&[
        Choice::PSYNC,
        Choice::SYNC,
        Choice::BUFFERED,
        Choice::NULL,
        Choice::NULLQ,
        Choice::IO_URING,
        Choice::LIBAIO,
        Choice::PVSYNC,
        Choice::PVSYNC2,
    ]);
});

impl Args {
    fn options(&self) -> Options {
        Options {
            variant: self.variant,
            seeding: self.seeding,
            scale: self.scale,
            dir: self.dir.clone(),
            engine: self.engine.choice(Choice::SYNC),
            direct: self.engine.direct,
        }
    }
}

pub fn main(a: Args) -> Result<Status> {
    a.out.check()?;
    let o = a.options();
    let r = progress::with_bar("iostone", None, None, a.out.progress(), |p| {
        iostone::run(&o, p)
    })?;
    common::finish_with::<iostone::IoStone>(&a.out, &r)
}
