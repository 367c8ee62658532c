//! IOStone (Park & Lipton 1987; C/II Park, Becker & Lipton 1990).
//!
//! [`plan`] says what the programs do, draw for draw; this module does it
//! through an engine and times it. As in the originals, everything before the
//! first timed transfer (C/1: writing the 4 MiB file; C/II: creating 396
//! files and 8 spacers, then reading the spacers to flush the cache) is set-up
//! and not timed. The metric is the original's — C/1: 400 000 / elapsed s;
//! C/II: 2 000 000 / elapsed s — but elapsed is measured in nanoseconds, not
//! with `time()`'s whole seconds, which on any machine of the last thirty
//! years reads 0.

pub mod plan;
pub mod report;
pub mod survey;

use crate::engine::{Choice, EngineSpec, FileId, OpenHow, Req};
use crate::error::UsageError;
use crate::measure::OpKind;
use crate::report::RunResult;
use crate::runner::{self, Ctx, Placement, Progress, StopRule, Worker};
use crate::runner::{Io, Tx};
use crate::session::Setup;
use anyhow::{Context, Result};
use plan::{C2Plan, Dir, Transfer};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Version C/1 (12/10/86), the program as published: one 4 MiB file.
    C1,
    /// Version C/II (06/27/90): 396 files in 4 shuffled sets, open/close per access.
    C2,
}

/// How `random()` is seeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Seeding {
    /// srandom(34710373), as C/II does.
    Srandom,
    /// The C/1 listing as printed (random(SEED) does not seed).
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

/// One IOStone run as asked.
#[derive(Clone, Debug)]
pub struct Options {
    pub variant: Variant,
    pub seeding: Seeding,
    pub scale: u64,
    /// Parent of the work directory.
    pub dir: PathBuf,
    pub engine: Choice,
    pub direct: bool,
}

impl Options {
    /// The original's defaults in `dir`: the `sync` engine (lseek and
    /// read/write, as the C programs), srandom seeding, scale 1.
    pub fn new(variant: Variant, dir: &Path) -> Options {
        Options {
            variant,
            seeding: Seeding::Srandom,
            scale: 1,
            dir: dir.to_path_buf(),
            engine: Choice::SYNC,
            direct: false,
        }
    }

    /// What the engine cannot do of the run, in one line: IOStone writes
    /// its files from empty, so an engine that cannot grow a file is
    /// refused, as is one the flags ask too much of.
    pub fn check(&self) -> Result<(), String> {
        self.engine
            .check_grows("IOStone writes its files from empty", "sync or psync")?;
        EngineSpec::new(self.engine).direct(self.direct).check()
    }

    /// The bytes the run writes.
    pub fn data_bytes(&self) -> u64 {
        match self.variant {
            Variant::C1 => plan::c1_file_size(self.scale),
            Variant::C2 => (983_040 + plan::C2_NSPACERS as u64 * plan::C2_SPACER_SIZE) * self.scale,
        }
    }
}

/// Run IOStone as `o` says and return its result (`iostones_per_s` in the
/// metrics). Nothing is left behind.
pub fn run(o: &Options, progress: &dyn Progress) -> Result<RunResult> {
    // one request at a time: IOStone's stream is a program's sequence of
    // calls, each waiting for the last
    o.check().map_err(UsageError)?;
    let spec = EngineSpec::new(o.engine).direct(o.direct);
    let config = Plan {
        variant: o.variant,
        seeding: o.seeding,
        scale: o.scale,
        engine: o.engine,
        direct: o.direct,
        data_bytes: o.data_bytes(),
        direct_note: o.direct.then(|| {
            "O_DIRECT: transfers below 512 B are raised to 512 B and offsets aligned to 512 B"
                .into()
        }),
    };
    let setup = Setup::new("iostone", &o.dir)
        .data(o.data_bytes())
        .fake(o.engine.is_fake())
        .workers(1, 2, false)
        .config(config);
    let session = setup.begin()?;
    let payload = Payload {
        spec,
        variant: o.variant,
        scale: o.scale,
        seeding: o.seeding,
        paths: lay_out(o, &spec, session.dir())?,
    };
    let (mut result, _) = session.run_workers::<IoStone>(
        StopRule::default(),
        &payload,
        1,
        Placement::Threads,
        progress,
    )?;
    result.set_figures(&Figures {
        iostones_per_s: iostones_per_s(o.variant, o.scale, result.elapsed_s),
    });
    Ok(result)
}

/// IOStone, typed: its plan, its figure and its report.
pub struct IoStone;

/// What an IOStone result's `config` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    pub variant: Variant,
    pub seeding: Seeding,
    pub scale: u64,
    pub engine: Choice,
    pub direct: bool,
    /// The bytes the run writes.
    pub data_bytes: u64,
    /// What O_DIRECT changes (null without it).
    pub direct_note: Option<String>,
}

/// IOStone's figure.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "iostoneFigures")]
pub struct Figures {
    /// C/1: 400 000 × scale / elapsed s; C/II: 2 000 000 × scale / elapsed s.
    pub iostones_per_s: f64,
}

impl crate::suites::Benchmark for IoStone {
    const NAME: &'static str = "iostone";
    type Plan = Plan;
    type Figures = Figures;
    fn classic(plan: &Plan, _: &Figures, result: &RunResult) -> String {
        report::render(plan, result)
    }
}

/// IOStone's figure: CONST·ITER·scale / elapsed seconds. The C/II scale
/// factor keeps iostones comparable when `--scale` multiplies the sets.
pub fn iostones_per_s(variant: Variant, scale: u64, elapsed_s: f64) -> f64 {
    let work = match variant {
        Variant::C1 => plan::C1_CONST * plan::ITER as u64,
        Variant::C2 => plan::C2_CONST * plan::ITER as u64 * scale,
    };
    if elapsed_s > 0.0 {
        work as f64 / elapsed_s
    } else {
        0.0
    }
}

/// Under O_DIRECT, transfers must be whole sectors: IOStone's 256-byte
/// transfers are raised to `align` bytes and offsets aligned down to it.
/// Without O_DIRECT `align` is 1 and nothing changes.
pub const DIRECT_SECTOR: u32 = 512;

fn transfer_req(file: FileId, dir: Dir, offset: u64, len: u32, align: u32) -> Req {
    let (offset, len) = (offset - offset % align as u64, len.max(align));
    match dir {
        Dir::Read => Req::read(file, offset, len),
        Dir::Write => Req::write(file, offset, len),
    }
}

/// What IOStone's one worker is built from: the engine, the program and
/// the files [`lay_out`] made.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Payload {
    pub spec: EngineSpec,
    pub variant: Variant,
    pub scale: u64,
    pub seeding: Seeding,
    /// C/1: its file; C/II: the files in the plan's creation order.
    pub paths: Vec<PathBuf>,
}

/// The untimed prepare: make the program's files in `dir` and return
/// their paths. C/1 writes its file through the engine (zeros, 4 KiB at
/// a time, as the program does); C/II creates the files and reads the
/// spacers through.
fn lay_out(o: &Options, spec: &EngineSpec, dir: &Path) -> Result<Vec<PathBuf>> {
    match o.variant {
        Variant::C1 => {
            let path = dir.join("iostone_temp_file");
            let mut engine = Io::new(spec, 1, 64 << 10, 0)?;
            let file = engine.open(&path, OpenHow::CREATE)?;
            engine.buf_mut(0).fill(0);
            let blk = plan::C1_INIT_BLOCK;
            for i in 0..plan::c1_file_size(o.scale) / blk as u64 {
                engine.exec_named(Req::write(file, i * blk as u64, blk))?;
            }
            engine.close(file)?;
            Ok(vec![path])
        }
        Variant::C2 => {
            let plan = plan::c2_plan(o.scale, o.seeding.into());
            let paths: Vec<PathBuf> = plan
                .create_order
                .iter()
                .map(|f| dir.join(&f.name))
                .collect();
            if !o.engine.is_fake() {
                create_c2_files(&plan, &paths)?;
            }
            Ok(paths)
        }
    }
}

/// C/II's files, each written as the program does, then the program's
/// cache flush: every spacer read through once.
fn create_c2_files(plan: &C2Plan, paths: &[PathBuf]) -> Result<()> {
    let zeros = vec![0u8; plan::C2_BUFFER_SIZE as usize];
    for (f, p) in plan.create_order.iter().zip(paths) {
        let mut file =
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?;
        let (count, len) = f.creation_writes();
        for _ in 0..count {
            file.write_all(&zeros[..len as usize])
                .with_context(|| format!("cannot write {}", p.display()))?;
        }
    }
    for i in plan.spacers() {
        let mut s = std::fs::File::open(&paths[i])?;
        std::io::copy(&mut s, &mut std::io::sink())?;
    }
    Ok(())
}

/// IOStone has one worker, a program: it shares nothing.
impl runner::Workers for IoStone {
    const KIND: &'static str = "iostone";
    type Payload = Payload;
    type Worker = IoStoneWorker;
    fn workers(p: &Payload, range: Range<usize>) -> Result<Vec<IoStoneWorker>> {
        anyhow::ensure!(range.end <= 1, "IOStone has one worker, not {}", range.end);
        range.map(|_| IoStoneWorker::new(p)).collect()
    }
}

/// IOStone's one worker: its engine and its program, set up.
pub struct IoStoneWorker {
    engine: Io,
    program: Program,
    align: u32,
}

/// What a program times, once set up.
enum Program {
    /// C/1: the transfers on one file.
    C1 {
        file: FileId,
        transfers: Vec<Transfer>,
    },
    /// C/II: every access opens the file, transfers it whole from offset
    /// 0 in 16 KiB pieces (or one piece if smaller), and closes it.
    C2 { plan: C2Plan, paths: Vec<PathBuf> },
}

impl IoStoneWorker {
    /// The engine and the program over the laid-out files. C/1's file is
    /// unlinked right after opening, so it vanishes with the process.
    fn new(p: &Payload) -> Result<IoStoneWorker> {
        let mut engine = Io::new(&p.spec, 1, 64 << 10, 0)?;
        let seeding = p.seeding.into();
        let program = match p.variant {
            Variant::C1 => {
                let path = p.paths.first().context("no IOStone file in the payload")?;
                let file = engine.open(path, OpenHow::READ_WRITE)?;
                engine
                    .unlink(path)
                    .with_context(|| format!("cannot unlink {}", path.display()))?;
                Program::C1 {
                    file,
                    transfers: plan::c1_transfers(p.scale, seeding),
                }
            }
            Variant::C2 => Program::C2 {
                plan: plan::c2_plan(p.scale, seeding),
                paths: p.paths.clone(),
            },
        };
        engine.buf_mut(0).fill(0);
        Ok(IoStoneWorker {
            engine,
            program,
            align: if p.spec.direct { DIRECT_SECTOR } else { 1 },
        })
    }
}

impl Worker for IoStoneWorker {
    fn kinds(&self) -> &[OpKind] {
        match self.program {
            Program::C1 { .. } => &[OpKind::Read, OpKind::Write],
            Program::C2 { .. } => &[OpKind::Read, OpKind::Write, OpKind::Open, OpKind::Close],
        }
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let align = self.align;
        match &self.program {
            Program::C1 { file, transfers } => {
                let mut transfers = transfers.iter();
                self.engine.transact(ctx, &mut |tx: &mut Tx| {
                    let Some(t) = transfers.next() else {
                        return Ok(false);
                    };
                    tx.exec(transfer_req(*file, t.dir, t.offset, t.len, align))?;
                    Ok(true)
                })
            }
            Program::C2 { plan, paths } => {
                let mut accesses = plan.accesses.iter();
                self.engine.transact(ctx, &mut |tx: &mut Tx| {
                    let Some(a) = accesses.next() else {
                        return Ok(false);
                    };
                    let f = tx
                        .open(&paths[a.file], OpenHow::READ_WRITE)
                        .context("cannot open")?;
                    for k in 0..a.transfers {
                        let off = k as u64 * a.transfer_len as u64;
                        tx.exec(transfer_req(f, a.dir, off, a.transfer_len, align))?;
                    }
                    tx.close(f)?;
                    Ok(true)
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::NoProgress;

    #[test]
    fn a_worker_built_from_the_serialized_payload_does_what_a_run_does() {
        for variant in [Variant::C1, Variant::C2] {
            let d = tempfile::tempdir().unwrap();
            let o = Options::new(variant, d.path());
            let spec = EngineSpec::new(o.engine);
            let payload = Payload {
                spec,
                variant,
                scale: 1,
                seeding: o.seeding,
                paths: lay_out(&o, &spec, d.path()).unwrap(),
            };
            let bytes = serde_json::to_vec(&payload).unwrap();
            let w = runner::workers::build::<IoStone>(&bytes, 0).unwrap();
            assert!(runner::workers::build::<IoStone>(&bytes, 1).is_err());
            let alone = runner::run(StopRule::default(), vec![w], &NoProgress);
            assert!(alone.complete, "{:?}", alone.error);
            let ran = tempfile::tempdir().unwrap();
            let r = run(&Options::new(variant, ran.path()), &NoProgress).unwrap();
            for k in [OpKind::Read, OpKind::Write, OpKind::Open, OpKind::Close] {
                let n = alone.stats.kind(k).map_or(0, |s| s.count);
                assert_eq!(n, r.ops.get(k.name()).map_or(0, |s| s.count), "{k:?}");
            }
            assert!(r.ops["read"].count > 0);
        }
    }

    #[test]
    fn metric_is_the_originals() {
        assert_eq!(iostones_per_s(Variant::C1, 1, 4.0), 100_000.0);
        assert_eq!(iostones_per_s(Variant::C1, 8, 4.0), 100_000.0);
        assert_eq!(iostones_per_s(Variant::C2, 1, 2.0), 1_000_000.0);
        assert_eq!(iostones_per_s(Variant::C2, 2, 2.0), 2_000_000.0);
    }
}
