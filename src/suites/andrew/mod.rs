//! The Andrew benchmark (Howard et al., CMU, 1987), as Chen & Patterson
//! (1993) ran it: copy a small source tree, examine and read the copy,
//! then compile it.
//!
//! ```text
//!   Setup (space for the source, the copies, objects and outputs)
//!     └─ the source tree (untimed): generated in WORK/src, or --tree DIR
//!   runner, one worker: MakeDir, Copy, ScanDir, ReadAll, Make (phases)
//!   the work directory is removed
//! ```
//!
//! The figures are Chen & Patterson's (Fig. 8): the *copy phase* (MakeDir
//! through ReadAll) and the *compile phase* (Make), each with its seconds
//! and the share of them spent inside I/O calls, and their total.

pub mod phases;
pub mod report;
pub mod survey;
pub mod tree;

use crate::error::UsageError;
use crate::report::RunResult;
use crate::runner::{self, Placement, Progress, StopRule};
use crate::session::Setup;
use anyhow::{Context, Result};
use phases::{PhaseFigures, PhaseStats, Phases};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// CPU cost of compiling, ns per source byte: 1 µs, a compiler at about
/// 1 MB of C source per CPU second (the order of `cc -O` on a current
/// core). The Make phase of the generated tree then burns about 0.15 s
/// against well under a millisecond of cached I/O: mostly CPU, as in
/// Chen & Patterson's Fig. 8.
pub const DEFAULT_CPU_NS_PER_BYTE: f64 = 1000.0;
/// The most --cpu-ns-per-byte takes (1 s per byte).
pub const MAX_CPU_NS_PER_BYTE: f64 = 1e9;
/// The most copies --scale makes.
pub const MAX_SCALE: usize = 100_000;

/// One run as asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// A real tree to copy (only read); `None`: the generated tree.
    pub tree: Option<PathBuf>,
    /// Copies of the tree, side by side.
    pub scale: usize,
    pub seed: u64,
    pub cpu_ns_per_byte: f64,
    /// Drop the source before the Copy phase and the copy after it from
    /// the page cache.
    pub cold: bool,
    /// Parent of the work directory.
    pub dir: PathBuf,
}

impl Options {
    /// The generated tree once, seed 1, the default CPU cost.
    pub fn new(dir: &Path) -> Options {
        Options {
            tree: None,
            scale: 1,
            seed: 1,
            cpu_ns_per_byte: DEFAULT_CPU_NS_PER_BYTE,
            cold: false,
            dir: dir.to_path_buf(),
        }
    }

    /// Refuse what cannot run, naming the flag to change.
    pub fn check(&self) -> Result<(), String> {
        if self.scale == 0 || self.scale > MAX_SCALE {
            return Err(format!("--scale {}: 1 to {MAX_SCALE} copies", self.scale));
        }
        let c = self.cpu_ns_per_byte;
        if !c.is_finite() || !(0.0..=MAX_CPU_NS_PER_BYTE).contains(&c) {
            return Err(format!(
                "--cpu-ns-per-byte {c}: 0 to {MAX_CPU_NS_PER_BYTE} ns per byte"
            ));
        }
        Ok(())
    }
}

/// What a run gives.
pub struct Report {
    /// The document `--json` writes.
    pub result: RunResult,
    /// The tree it copied.
    pub tree: tree::Plan,
    /// The phases that began, in order (the last may be partial).
    pub phases: Vec<PhaseStats>,
}

impl Report {
    /// MakeDir through ReadAll.
    pub fn copy_phase(&self) -> PhaseStats {
        section("copy", &self.phases[..self.phases.len().min(4)])
    }

    /// Make.
    pub fn compile_phase(&self) -> PhaseStats {
        section("compile", self.phases.get(4..).unwrap_or(&[]))
    }

    pub fn total(&self) -> PhaseStats {
        section("total", &self.phases)
    }

    /// The figures of the run, `scale` copies of the tree.
    fn figures(&self, scale: usize) -> Figures {
        let (copy, compile, total) = (self.copy_phase(), self.compile_phase(), self.total());
        Figures {
            copy_phase_s: copy.wall_ns as f64 / 1e9,
            compile_phase_s: compile.wall_ns as f64 / 1e9,
            total_s: total.wall_ns as f64 / 1e9,
            copy_phase: copy.figures(),
            compile_phase: compile.figures(),
            total: total.figures(),
            phases: self.phases.iter().map(PhaseStats::figures).collect(),
            scale,
            files_copied: self.tree.files.len() * scale,
            notes: self.tree.notes.clone(),
        }
    }
}

/// Andrew, typed: its plan, its figures and its report.
pub struct Andrew;

/// What an Andrew result's `config` holds: the run as asked and the tree
/// it copies.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// `generated`, or the directory of --tree.
    pub tree: String,
    /// The tree was generated from `seed` (false: --tree).
    pub generated: bool,
    /// Copies of the tree, side by side.
    pub scale: usize,
    /// Seed of the generated tree.
    pub seed: u64,
    /// CPU time the Make phase burns per source byte, in ns.
    pub cpu_ns_per_byte: f64,
    /// The source and the copy dropped from the page cache.
    pub cold: bool,
    /// Files of the tree.
    pub files: usize,
    /// Directories of the tree, its top one included.
    pub dirs: usize,
    /// Bytes of the tree.
    pub tree_bytes: u64,
    /// Sources the Make phase compiles.
    pub sources: usize,
    /// Bytes of those sources.
    pub source_bytes: u64,
}

/// Andrew's figures: Chen & Patterson's copy and compile phases, their
/// total, and each phase.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "andrewFigures")]
pub struct Figures {
    /// The copy phase (MakeDir, Copy, ScanDir, ReadAll), in seconds.
    pub copy_phase_s: f64,
    /// The compile phase (Make), in seconds.
    pub compile_phase_s: f64,
    /// Both, in seconds.
    pub total_s: f64,
    /// The copy phase's figures.
    pub copy_phase: PhaseFigures,
    /// The compile phase's figures.
    pub compile_phase: PhaseFigures,
    /// The figures of the whole run.
    pub total: PhaseFigures,
    /// The phases that began, in order (the last may be partial).
    pub phases: Vec<PhaseFigures>,
    /// Copies of the tree.
    pub scale: usize,
    /// Files copied, over all copies.
    pub files_copied: usize,
    /// What --tree left out or changed, one line each (absent when nothing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl crate::suites::Benchmark for Andrew {
    const NAME: &'static str = "andrew";
    type Plan = Plan;
    type Figures = Figures;
    fn classic(plan: &Plan, figures: &Figures, result: &RunResult) -> String {
        report::render(plan, figures, result)
    }
}

fn section(name: &str, of: &[PhaseStats]) -> PhaseStats {
    let mut s = PhaseStats {
        name: name.to_string(),
        ..Default::default()
    };
    for p in of {
        s.add(p);
    }
    let want = if name == "compile" {
        1
    } else if name == "copy" {
        4
    } else {
        5
    };
    s.complete = of.len() == want && of.iter().all(|p| p.complete);
    s
}

/// Drop the files of a tree from the page cache (a generated source is
/// written back first; a `--tree` is only opened for reading).
fn drop_cache(plan: &tree::Plan, root: &Path, ours: bool) -> Result<()> {
    use std::os::fd::AsRawFd;
    for f in &plan.files {
        let file = std::fs::File::open(root.join(&f.rel))?;
        if ours {
            file.sync_data()?;
        }
        // SAFETY: a valid open descriptor; advice has no memory effects.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    }
    Ok(())
}

/// What Andrew's one worker, the five phases, is built from: the tree,
/// where it is read from and where its copies go.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Payload {
    pub plan: tree::Plan,
    /// The source tree (generated, or --tree).
    pub src: PathBuf,
    /// The existing directory the copies go into.
    pub dst: PathBuf,
    pub scale: usize,
    pub cpu_ns_per_byte: f64,
    pub cold: bool,
}

/// The untimed prepare in the work directory `work`: the generated source
/// tree (none with --tree), the empty target and, with --cold, the source
/// dropped from the page cache.
fn prepare(o: &Options, plan: tree::Plan, work: &Path, progress: &dyn Progress) -> Result<Payload> {
    let src = match &o.tree {
        Some(t) => t.clone(),
        None => {
            progress.status("generating the source tree (untimed)");
            let s = work.join("src");
            std::fs::create_dir(&s).with_context(|| format!("cannot create {}", s.display()))?;
            plan.write(o.seed, &s)
                .context("generating the source tree")?;
            s
        }
    };
    let dst = work.join("dst");
    std::fs::create_dir(&dst).with_context(|| format!("cannot create {}", dst.display()))?;
    if o.cold {
        drop_cache(&plan, &src, o.tree.is_none())
            .context("--cold: dropping the source from the page cache")?;
    }
    Ok(Payload {
        plan,
        src,
        dst,
        scale: o.scale,
        cpu_ns_per_byte: o.cpu_ns_per_byte,
        cold: o.cold,
    })
}

/// Andrew has one worker, which shares nothing.
impl runner::Workers for Andrew {
    const KIND: &'static str = "andrew";
    type Payload = Payload;
    type Worker = Phases;
    fn workers(p: &Payload, range: std::ops::Range<usize>) -> Result<Vec<Phases>> {
        anyhow::ensure!(range.end <= 1, "Andrew has one worker, not {}", range.end);
        Ok(range
            .map(|_| Phases::new(&p.plan, &p.src, &p.dst, p.scale, p.cpu_ns_per_byte, p.cold))
            .collect())
    }
}

/// Run Andrew as `o` says. Nothing is left behind; a `--tree` is only read.
pub fn run(o: &Options, progress: &dyn Progress) -> Result<Report> {
    o.check().map_err(UsageError)?;
    let plan = match &o.tree {
        Some(t) => tree::Plan::scan(t).map_err(UsageError)?,
        None => tree::Plan::generated(o.seed),
    };
    let made = plan.bytes() * 2 + plan.object_bytes() * 2;
    // a block per file and directory at least
    let blocks = (plan.files.len() * 2 + plan.dirs.len() + 2) as u64 * 4096;
    let own_src = if o.tree.is_some() {
        0
    } else {
        plan.bytes() + blocks
    };
    let config = Plan {
        tree: o
            .tree
            .as_ref()
            .map_or("generated".to_string(), |t| t.display().to_string()),
        generated: o.tree.is_none(),
        scale: o.scale,
        seed: o.seed,
        cpu_ns_per_byte: o.cpu_ns_per_byte,
        cold: o.cold,
        files: plan.files.len(),
        dirs: plan.dirs.len() + 1,
        tree_bytes: plan.bytes(),
        sources: plan.sources(),
        source_bytes: plan.source_bytes(),
    };
    let session = Setup::new("andrew", &o.dir)
        .data(own_src + o.scale as u64 * (made + blocks))
        .workers(1, 4, false)
        .config(&config)
        .begin()?;
    let payload = prepare(o, plan, session.dir(), progress)?;
    if runner::signals::interrupted() {
        let mut rep = Report {
            result: session.interrupted(),
            tree: payload.plan,
            phases: Vec::new(),
        };
        rep.result.set_figures(&rep.figures(o.scale));
        return Ok(rep);
    }
    progress.status("MakeDir, Copy, ScanDir, ReadAll, Make");
    let (result, outcome) = session.run_workers::<Andrew>(
        StopRule::default(),
        &payload,
        1,
        Placement::Threads,
        progress,
    )?;
    let phases: Vec<PhaseStats> = outcome
        .records()
        .into_iter()
        .next()
        .flatten()
        .unwrap_or_default();
    let mut rep = Report {
        result,
        tree: payload.plan,
        phases,
    };
    rep.result.set_figures(&rep.figures(o.scale));
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_options_are_refused() {
        let o = Options::new(Path::new("."));
        o.check().unwrap();
        for b in [
            Options {
                scale: 0,
                ..o.clone()
            },
            Options {
                cpu_ns_per_byte: -1.0,
                ..o.clone()
            },
            Options {
                cpu_ns_per_byte: f64::NAN,
                ..o.clone()
            },
        ] {
            assert!(b.check().is_err(), "{b:?}");
        }
    }

    #[test]
    fn the_worker_built_from_the_serialized_payload_does_what_a_run_does() {
        let d = tempfile::tempdir().unwrap();
        let o = Options {
            cpu_ns_per_byte: 0.0,
            ..Options::new(d.path())
        };
        let plan = tree::Plan::generated(o.seed);
        let payload = prepare(&o, plan, d.path(), &runner::NoProgress).unwrap();
        let bytes = serde_json::to_vec(&payload).unwrap();
        let w = runner::workers::build::<Andrew>(&bytes, 0).unwrap();
        assert!(runner::workers::build::<Andrew>(&bytes, 1).is_err());
        let alone = runner::run(StopRule::default(), vec![w], &runner::NoProgress);
        let phases = alone.records::<Vec<PhaseStats>>().remove(0).unwrap();
        let ran = tempfile::tempdir().unwrap();
        let rep = run(
            &Options {
                dir: ran.path().to_path_buf(),
                ..o
            },
            &runner::NoProgress,
        )
        .unwrap();
        let calls = |p: &[PhaseStats]| -> Vec<(String, bool, phases::Calls)> {
            p.iter()
                .map(|p| (p.name.clone(), p.complete, p.calls.clone()))
                .collect()
        };
        assert_eq!(calls(&phases), calls(&rep.phases));
        assert_eq!(phases.len(), 5);
    }

    #[test]
    fn a_run_gives_five_phases_and_leaves_nothing() {
        let d = tempfile::tempdir().unwrap();
        let o = Options {
            cpu_ns_per_byte: 10.0,
            scale: 2,
            ..Options::new(d.path())
        };
        let rep = run(&o, &runner::NoProgress).unwrap();
        assert!(rep.result.complete);
        assert_eq!(rep.phases.len(), 5);
        let t = rep.total();
        assert!(t.complete);
        assert_eq!(
            t.wall_ns,
            rep.copy_phase().wall_ns + rep.compile_phase().wall_ns
        );
        assert_eq!(rep.phases[1].calls.bytes_written, 2 * tree::TREE_BYTES);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }
}
