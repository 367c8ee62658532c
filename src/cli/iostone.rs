//! `iogauge iostone`: IOStone C/1 (default) or C/II.

use super::common::{self, EngineArgs, OutputArgs, Status};
use super::progress::{self, Bar};
use crate::report::{RunResult, now_rfc3339, text};
use crate::runner::{self, StopRule, WorkDir};
use crate::suites::iostone::{C1Worker, C2Worker, Variant, iostones_per_s, plan};
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Seeding {
    Srandom,
    Literal,
}

impl From<Seeding> for plan::Seeding {
    fn from(s: Seeding) -> Self {
        match s {
            Seeding::Srandom => plan::Seeding::Srandom,
            Seeding::Literal => plan::Seeding::Literal,
        }
    }
}

/// Run IOStone and return its result (also used by the survey).
pub fn measure(a: &Args) -> Result<RunResult> {
    a.engine.check("sync")?;
    if a.engine.fsync != crate::engine::FsyncPolicy::Never {
        crate::usage!("iostone issues no fsync of its own; --fsync applies to run");
    }
    let started = now_rfc3339();
    let need = match a.variant {
        Variant::C1 => plan::c1_file_size(a.scale),
        Variant::C2 => (983_040 + plan::C2_NSPACERS as u64 * plan::C2_SPACER_SIZE) * a.scale,
    };
    let work = WorkDir::create(&a.dir, "iostone")?;
    if !a.engine.is_fake("sync") {
        runner::ensure_space(&a.dir, need)?;
    }
    let environment = crate::env::detect(work.path());
    let config = serde_json::json!({
        "variant": a.variant, "seeding": a.seeding, "scale": a.scale,
        "engine": a.engine.name("sync"), "direct": a.engine.direct, "data_bytes": need,
        "direct_note": a.engine.direct.then_some("O_DIRECT: transfers below 512 B are raised to 512 B and offsets aligned to 512 B"),
    });
    let result = RunResult::new("iostone", config, environment, started);
    let engine = a.engine.make("sync", 64 << 10, 0)?;
    let align = if a.engine.direct {
        crate::suites::iostone::DIRECT_SECTOR
    } else {
        1
    };
    let bar = Bar::new("iostone", None, None, a.out.progress());
    let outcome = match a.variant {
        Variant::C1 => {
            let w = C1Worker::new(engine, work.path(), a.scale, a.seeding.into(), align)?;
            runner::run(StopRule::default(), vec![w], progress::sink(&bar))
        }
        Variant::C2 => {
            let w = C2Worker::new(engine, work.path(), a.scale, a.seeding.into(), align)?;
            runner::run(StopRule::default(), vec![w], progress::sink(&bar))
        }
    };
    drop(bar);
    drop(work);
    let mut result = result.with_outcome(&outcome);
    result.metric(
        "iostones_per_s",
        iostones_per_s(a.variant, a.scale, result.elapsed_s),
    );
    Ok(result)
}

/// The original program's closing lines, with the elapsed time in full.
pub fn classic_lines(variant: Variant, r: &RunResult) -> String {
    let stones = r
        .metrics
        .get("iostones_per_s")
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0);
    match variant {
        Variant::C1 => format!(
            "total time = {:.6}\nThis machine benchmarks at {} iostones/second\n",
            r.elapsed_s, stones as u64
        ),
        Variant::C2 => {
            let ms = (r.elapsed_s * 1000.0) as u64;
            format!(
                "Total elapsed time is {} seconds and {} milliseconds.\nThis machine benchmarks at {:.0} iostones/sec.\n",
                ms / 1000,
                ms % 1000,
                stones
            )
        }
    }
}

pub fn main(a: Args) -> Result<Status> {
    a.out.check()?;
    let r = measure(&a)?;
    let mut report = classic_lines(a.variant, &r);
    report += &format!(
        "\niogauge details: IOStone {}, engine {}{}, scale {}\n",
        match a.variant {
            Variant::C1 => "C/1",
            Variant::C2 => "C/II",
        },
        a.engine.name("sync"),
        if a.engine.direct {
            ", O_DIRECT (256 B transfers raised to 512 B)"
        } else {
            ""
        },
        a.scale
    );
    report += &text::render(&r);
    common::finish(&a.out, &r, &report)
}
