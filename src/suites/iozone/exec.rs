//! One IOzone run from start to end, the way every iogauge benchmark runs:
//! the checks and the work directory ([`Setup`]), the run itself (single
//! and auto mode through [`run`], throughput mode through
//! [`throughput`]), then iogauge's result with every figure and each
//! test's latency percentiles.
//!
//! Where the files go: a `-f` or `-F` name (IOzone's default `iozone.tmp`
//! and `iozone.DUMMY.<i>` among them) is a file in the run's work
//! directory under `--dir`, by the one rule of [`names::place`]: a name
//! that climbs out (`../x`) or has a directory part is refused, and an
//! absolute one only with `--allow-outside`, where it must not exist yet
//! (iogauge removes only the files it made). With `-w` the files stay,
//! and the work directory with them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::Value;

use super::figures::{Cell, Columns, Figures, Plan, TestFigures, ThroughputRun};
use super::flags::{Config, Mode};
use super::report::{self, Column, Resolutions, Row};
use super::{run, throughput};
use crate::engine::{Choice, EngineSpec};
use crate::error::UsageError;
use crate::measure::{CpuTimes, Outcome, WorkerStats};
use crate::report::RunResult;
use crate::runner::names::{self, Place};
use crate::runner::{Progress, signals};
use crate::session::Setup;

/// How a run is made, beyond IOzone's flags.
#[derive(Debug, Clone)]
pub struct Exec<'a> {
    /// Parent of the run's work directory.
    pub dir: &'a Path,
    pub engine: Choice,
    /// `-H`/`-k`: the queued engine of the asynchronous passes.
    pub queued: Option<Choice>,
    /// Throughput mode's pause after the sync between phases (IOzone: 2 s).
    pub settle: Duration,
    /// The command line as the user gave it (for the reports).
    pub command_line: String,
    /// `--allow-outside`: absolute `-f`/`-F` names make new files there.
    pub allow_outside: bool,
    /// `--plot`: where the heatmaps go (the plan records it).
    pub plot: Option<PathBuf>,
    /// `--verify`: records written are made of checked units, records
    /// read are checked.
    pub verify: Option<crate::session::generic::VerifyPlan>,
    /// `--device`: the raw block device the test file is (the config's
    /// `file` is its path, and `device` is set).
    pub device: Option<crate::env::device::BlockDevice>,
}

/// What the caller hears while the run goes on (untimed): the run's
/// observer ([`Progress`]; which cell and test starts is its `status`) and
/// IOzone's own events.
pub trait Hooks: Progress {
    /// Every check passed and the work directory is made: the run starts,
    /// and IOzone prints `preamble`.
    fn begun(&self, _preamble: &str) {}
    /// A cell of single or auto mode is done: its row of the table.
    fn row(&self, _row: &Row) {}
    /// Throughput mode: a child count begins or ends, or a phase ended.
    fn throughput(&self, _e: &throughput::Event) {}
}

/// Hooks that do nothing.
pub struct Quiet;
impl Progress for Quiet {}
impl Hooks for Quiet {}

/// What a run gives back.
pub struct Report {
    /// iogauge's result: the whole run, every cell and every test.
    pub result: RunResult,
    /// The result's figures, as written into it.
    pub figures: Figures,
    /// Single and auto mode: IOzone's figures and each column's stats.
    pub single: Option<run::Outcome>,
    /// Throughput mode: each child count's phases.
    pub throughput: Option<throughput::Outcome>,
}

/// Where each test file goes (the one file, or each child's), by the one
/// rule of [`names::place`]; refused before anything is written: a name
/// that leaves the work directory, an absolute one without
/// `--allow-outside`, one where something already exists, two alike.
pub fn check_files(cfg: &Config, allow_outside: bool) -> Result<Vec<(String, Place)>, String> {
    let named: Vec<(&str, PathBuf)> = if cfg.mode() == Mode::Throughput {
        (0..cfg.max_children() as usize)
            .map(|i| ("-F", cfg.child_file(i)))
            .collect()
    } else {
        vec![("-f", cfg.file.clone())]
    };
    let allow = names::Allow {
        outside: Some(("--allow-outside", allow_outside)),
        existing: None,
    };
    let mut placed = Vec::with_capacity(named.len());
    for (flag, p) in named {
        let what = format!("{flag} {}", p.display());
        let place = names::place(&what, &p, allow)?;
        placed.push((what, place));
    }
    names::distinct(placed.iter().map(|(w, p)| (w.as_str(), p)))?;
    Ok(placed)
}

/// The most data on disk at once: the largest file (one per child in
/// throughput mode), and the files outside the work directory.
fn data_bytes(cfg: &Config, files: &[(String, Place)]) -> (u64, Vec<(PathBuf, u64)>) {
    let per = if cfg.mode() == Mode::Throughput {
        cfg.single_file_kb() * 1024
    } else {
        super::grid::runs(cfg)
            .iter()
            .map(|r| r.file_kb)
            .max()
            .unwrap_or(cfg.single_file_kb())
            * 1024
    };
    let mut inside = 0;
    let mut outside: Vec<(PathBuf, u64)> = Vec::new();
    for (_, f) in files {
        match f {
            Place::Outside { path, .. } => {
                let parent = crate::runner::names::dir_of(path).to_path_buf();
                outside.push((parent, per));
            }
            Place::Work(_) => inside += per,
        }
    }
    (inside, outside)
}

/// Check a run of `cfg` as [`execute`] does before it makes anything
/// (`iogauge iozone --check`).
pub fn check(cfg: &Config, x: &Exec) -> Result<()> {
    setup_of(cfg, x)?.check()
}

/// What `--verify` refuses ([`run::check_verify`]), as a usage error.
fn check_verify(cfg: &Config, x: &Exec) -> Result<()> {
    if let Some(v) = &x.verify {
        crate::session::generic::check_interval(v.unit)?;
        run::check_verify(cfg, x.engine, v).map_err(UsageError)?;
    }
    Ok(())
}

/// What a run refuses of the files and the engine, then its set-up.
fn setup_of(cfg: &Config, x: &Exec) -> Result<Setup> {
    check_verify(cfg, x)?;
    let files = match x.device {
        Some(_) => Vec::new(),
        None => check_files(cfg, x.allow_outside).map_err(UsageError)?,
    };
    let fake = x.engine.is_fake();
    // on a device the tests write inside it; on a file, the write test
    // (always the first) writes it from empty
    if x.device.is_none() {
        x.engine
            .check_grows(
                "IOzone's write test writes its file from empty",
                "sync or psync, or --device",
            )
            .map_err(UsageError)?;
    }
    EngineSpec::new(x.engine)
        .direct(cfg.direct)
        .check()
        .map_err(UsageError)?;
    if let (Some(q), Some(a)) = (x.queued, cfg.async_io) {
        EngineSpec::new(q)
            .direct(cfg.direct)
            .depth(a.depth)
            .check()
            .map_err(|e| UsageError(format!("{}: {e}", a.flag())))?;
    }
    let (inside, outside) = data_bytes(cfg, &files);
    let throughput = cfg.mode() == Mode::Throughput;
    let workers = if throughput {
        cfg.max_children() as usize
    } else {
        1
    };
    let mut setup = match &x.device {
        Some(d) => Setup::on_device("iozone", d),
        None => Setup::new("iozone", x.dir).data(inside),
    }
    .fake(fake)
    .workers(workers, 2, throughput && !cfg.threads)
    .config(Plan {
        verify: x.verify,
        ..Plan::new(
            cfg,
            &x.command_line,
            x.engine,
            x.queued.filter(|_| cfg.async_io.is_some()),
            x.settle.as_secs_f64(),
            x.plot.clone(),
        )
    });
    for (d, n) in outside {
        setup = setup.also(&d, n);
    }
    Ok(setup)
}

/// Runs `cfg` as [`Exec`] says; see the module doc.
pub fn execute(cfg: &Config, x: &Exec, hooks: &dyn Hooks) -> Result<Report> {
    let throughput = cfg.mode() == Mode::Throughput;
    let mut session = setup_of(cfg, x)?.begin()?;
    let began = report::ctime(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
    );
    let res = Resolutions::of_this_system(cfg.cpu_util);
    let kept = cfg.keep_files.then(|| {
        session.keep();
        session.dir().to_path_buf()
    });
    hooks.begun(&report::preamble_with(cfg, &x.command_line, &began, res));
    let mut figures = Figures {
        mode: cfg.mode(),
        units: cfg.unit,
        cells: None,
        skipped_cells: None,
        tests: None,
        single: Columns::default(),
        throughput: None,
        counts_begun: None,
        began,
        time_resolution_s: res.time_s,
        cpu_resolution_s: cfg.cpu_util.then_some(res.cpu_s),
        kept,
    };
    let cpu0 = CpuTimes::now();
    let cpu0_children = CpuTimes::children();
    let t0 = Instant::now();
    // a device's path is absolute: the directory it is joined to is moot
    let dir = match &x.device {
        Some(d) => d.path.parent().unwrap_or(Path::new("/")).to_path_buf(),
        None => session.dir().to_path_buf(),
    };
    if throughput {
        let mut begun = 0;
        let mut on_event = |e: throughput::Event| {
            if let throughput::Event::Begin(_) = e {
                begun += 1;
            }
            hooks.throughput(&e);
        };
        let o = throughput::run(cfg, &dir, x.engine, x.settle, &|_| {}, &mut on_event)?;
        let merged = merge_throughput(&o, &cpu_since(cpu0, cpu0_children));
        let mut result = session.finish(&merged);
        figures.throughput = Some(ThroughputRun::all(&o, cfg.cpu_util));
        figures.counts_begun = Some(begun);
        result.set_figures(&figures);
        return Ok(Report {
            result,
            figures,
            single: None,
            throughput: Some(o),
        });
    }
    let status = |s: &str| hooks.status(s);
    let o = run::run_live(cfg, &dir, x.engine, x.queued, x.verify, &status, &mut |r| {
        hooks.row(r)
    })?;
    let mut whole = WorkerStats::default();
    for s in o.stats.values() {
        whole.merge(s);
    }
    // the one process's time in its timed passes: the whole run's wall
    // time also holds the untimed layout and syncs between tests
    let timed: u128 = o.timed.values().map(|(d, _)| d.as_nanos()).sum();
    let merged = Outcome {
        stats: whole,
        per_worker: Vec::new(),
        workers: 1,
        worker_ns: timed,
        elapsed: t0.elapsed(),
        cpu: cpu_since(cpu0, cpu0_children),
        complete: o.complete,
        interrupted: o.interrupted,
        error: o.error.as_ref().map(|e| anyhow::anyhow!("{e}")),
        extras: vec![Value::Null],
        failures: vec![None],
        engine_modes: vec![o.engine_mode.clone()],
        pinned: Vec::new(),
        machine: Default::default(),
    };
    let mut result = session.finish(&merged);
    result.verify = o.verify.clone();
    single_figures(&mut figures, cfg, &o);
    result.set_figures(&figures);
    Ok(Report {
        result,
        figures,
        single: Some(o),
        throughput: None,
    })
}

/// CPU time since the start, this process's and its reaped children's.
fn cpu_since(own: CpuTimes, children: CpuTimes) -> CpuTimes {
    let (now, kids) = (CpuTimes::now(), CpuTimes::children());
    CpuTimes {
        user: (now.user + kids.user).saturating_sub(own.user + children.user),
        sys: (now.sys + kids.sys).saturating_sub(own.sys + children.sys),
        max_rss_kib: now.max_rss_kib.max(kids.max_rss_kib),
        ..Default::default()
    }
}

/// Single and auto mode: `cells` (every cell measured), `tests` (per
/// column: cells, ops and latency percentiles of each op kind), and in
/// single mode the figure of each column.
fn single_figures(f: &mut Figures, cfg: &Config, o: &run::Outcome) {
    let t = &o.table;
    f.cells = Some(
        t.rows
            .iter()
            .filter(|r| !r.is_skipped())
            .map(Cell::of)
            .collect(),
    );
    f.skipped_cells = Some(t.rows.iter().filter(|r| r.is_skipped()).count());
    let mut tests = BTreeMap::new();
    for c in t.sections() {
        let measured = t.rows.iter().filter(|r| r.values.contains_key(&c)).count();
        tests.insert(
            c.name().to_string(),
            TestFigures {
                title: c.title().into(),
                cells: measured,
                ops: o.stats.get(&c).map(super::figures::ops_of),
            },
        );
    }
    f.tests = Some(tests);
    if cfg.mode() == Mode::Single {
        for c in t.sections() {
            if let Some(row) = t.rows.iter().find(|r| r.values.contains_key(&c)) {
                f.single.set(c, row.cell(c));
            }
        }
    }
}

/// Throughput mode's phases, one after another: counts and histograms
/// add, each phase's time series follows the one before, elapsed is the
/// sum of the phases' wall times (the pauses between them left out).
fn merge_throughput(o: &throughput::Outcome, cpu: &CpuTimes) -> Outcome {
    let mut stats = WorkerStats::default();
    let mut at = 0u64;
    let (mut workers, mut worker_ns) = (1, 0u128);
    for run in &o.runs {
        for p in &run.phases {
            stats.merge_at(&p.stats, at);
            at += (p.wall_s * 1e9) as u64;
            // every rank's children, on rank 0 of an MPI job
            let children = run.children.max(1) as usize * crate::cluster::merged_ranks();
            workers = workers.max(children);
            worker_ns += (p.wall_s * 1e9) as u128 * children as u128;
        }
    }
    Outcome {
        stats,
        per_worker: Vec::new(),
        workers,
        worker_ns,
        elapsed: Duration::from_nanos(at),
        cpu: *cpu,
        complete: o.complete,
        interrupted: o.interrupted || signals::interrupted(),
        error: o.error.as_ref().map(|e| anyhow::anyhow!("{e}")),
        extras: vec![Value::Null],
        failures: vec![None],
        engine_modes: Vec::new(),
        pinned: Vec::new(),
        machine: Default::default(),
    }
}

/// The result of one column of single or auto mode: the whole run's
/// result with that test's operations, its timed passes' time and CPU.
pub fn column_result(rep: &Report, c: Column) -> RunResult {
    let Some(o) = &rep.single else {
        return rep.result.clone();
    };
    let Some(st) = o.stats.get(&c) else {
        return rep.result.clone();
    };
    let (elapsed, cpu) = o.timed.get(&c).copied().unwrap_or_default();
    let part = Outcome {
        stats: st.clone(),
        per_worker: Vec::new(),
        workers: 1,
        worker_ns: 0,
        elapsed,
        cpu,
        complete: rep.result.complete,
        interrupted: false,
        error: None,
        extras: Vec::new(),
        failures: Vec::new(),
        engine_modes: Vec::new(),
        pinned: Vec::new(),
        machine: Default::default(),
    };
    let mut r = rep.result.clone().with_outcome(&part);
    r.error.clone_from(&rep.result.error);
    r
}
