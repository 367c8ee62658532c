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
use serde::Serialize;
use serde_json::{Value, json};

use super::flags::{Config, Mode, Unit};
use super::report::{Column, Row, Table};
use super::{run, throughput};
use crate::engine::{Choice, EngineSpec};
use crate::error::UsageError;
use crate::measure::{CpuTimes, LatencySummary, Outcome, WorkerStats};
use crate::report::RunResult;
use crate::runner::names::{self, Place};
use crate::runner::{Progress, Setup, signals};

/// How a run is made, beyond IOzone's flags.
#[derive(Debug, Clone)]
pub struct Exec<'a> {
    /// Parent of the run's work directory.
    pub dir: &'a Path,
    pub engine: Choice,
    /// Throughput mode's pause after the sync between phases (IOzone: 2 s).
    pub settle: Duration,
    /// The command line as the user gave it (for the reports).
    pub command_line: String,
    /// `--allow-outside`: absolute `-f`/`-F` names make new files there.
    pub allow_outside: bool,
}

/// What the caller hears while the run goes on (untimed): the run's
/// observer ([`Progress`]; which cell and test starts is its `status`) and
/// IOzone's own events.
pub trait Hooks: Progress {
    /// Every check passed and the work directory is made: the run starts.
    fn begun(&self) {}
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
    /// Single and auto mode: IOzone's figures and each column's stats.
    pub single: Option<run::Outcome>,
    /// Throughput mode: each child count's phases.
    pub throughput: Option<throughput::Outcome>,
    /// With `-w`: where the files were left.
    pub kept: Option<PathBuf>,
}

impl Report {
    /// The figure of `col` in single mode (the one cell), if it ran.
    pub fn single_figure(&self, col: Column) -> Option<u64> {
        let t = &self.single.as_ref()?.table;
        t.rows
            .iter()
            .find(|r| r.values.contains_key(&col))
            .map(|r| r.cell(col))
    }
}

/// The unit of the figures, as iogauge's JSON names it.
pub fn unit_name(u: Unit) -> &'static str {
    match u {
        Unit::KbPerSec => "kB/s",
        Unit::OpsPerSec => "ops/s",
        Unit::UsPerOp => "us/op",
    }
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

/// The configuration as the result records it.
fn config_json(cfg: &Config, x: &Exec) -> Value {
    json!({
        "command_line": x.command_line,
        "mode": mode_name(cfg.mode()),
        "tests": cfg.tests.iter().map(|t| t.number()).collect::<Vec<_>>(),
        "file_kb": cfg.file_kb,
        "record_kb": cfg.record_kb,
        "min_file_kb": cfg.min_file_kb,
        "max_file_kb": cfg.max_file_kb,
        "min_record_kb": cfg.min_record_kb,
        "max_record_kb": cfg.max_record_kb,
        "crossover": !cfg.no_crossover,
        "multiplier": cfg.multiplier,
        "include_flush": cfg.include_flush,
        "include_close": cfg.include_close,
        "direct": cfg.direct,
        "o_sync": cfg.sync,
        "no_retest": cfg.no_retest,
        "keep_files": cfg.keep_files,
        "purge": cfg.purge,
        "remount": cfg.remount,
        "file": cfg.file,
        "children": cfg.children,
        "threads": cfg.threads,
        "stonewall": cfg.stonewall,
        "stagger_us": cfg.stagger_us,
        "read_pct": cfg.read_pct,
        "stride": cfg.stride,
        "units": unit_name(cfg.unit),
        "engine": x.engine,
        "settle_s": x.settle.as_secs_f64(),
    })
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Single => "single",
        Mode::Auto => "auto",
        Mode::Throughput => "throughput",
    }
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
                let parent = path.parent().unwrap_or(Path::new("/")).to_path_buf();
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

/// What a run refuses of the files and the engine, then its set-up.
fn setup_of(cfg: &Config, x: &Exec) -> Result<Setup> {
    let files = check_files(cfg, x.allow_outside).map_err(UsageError)?;
    let fake = x.engine.is_fake();
    EngineSpec::new(x.engine)
        .direct(cfg.direct)
        .check()
        .map_err(UsageError)?;
    let (inside, outside) = data_bytes(cfg, &files);
    let throughput = cfg.mode() == Mode::Throughput;
    let workers = if throughput {
        cfg.max_children() as usize
    } else {
        1
    };
    let mut setup = Setup::new("iozone", x.dir)
        .data(inside)
        .fake(fake)
        .workers(workers, 2, throughput && !cfg.threads)
        .config(config_json(cfg, x));
    for (d, n) in outside {
        setup = setup.also(&d, n);
    }
    Ok(setup)
}

/// Runs `cfg` as [`Exec`] says; see the module doc.
pub fn execute(cfg: &Config, x: &Exec, hooks: &dyn Hooks) -> Result<Report> {
    let throughput = cfg.mode() == Mode::Throughput;
    let mut session = setup_of(cfg, x)?.begin()?;
    let kept = cfg.keep_files.then(|| {
        session.keep();
        session.dir().to_path_buf()
    });
    hooks.begun();
    let cpu0 = CpuTimes::now();
    let cpu0_children = CpuTimes::children();
    let t0 = Instant::now();
    let dir = session.dir().to_path_buf();
    if throughput {
        let mut on_event = |e: throughput::Event| hooks.throughput(&e);
        let o = throughput::run(cfg, &dir, x.engine, x.settle, &|_| {}, &mut on_event)?;
        let merged = merge_throughput(&o, &cpu_since(cpu0, cpu0_children));
        let mut result = session.finish(&merged);
        throughput_metrics(&mut result, cfg, &o);
        return Ok(Report {
            result,
            single: None,
            throughput: Some(o),
            kept,
        });
    }
    let status = |s: &str| hooks.status(s);
    let o = run::run_live(cfg, &dir, x.engine, &status, &mut |r| hooks.row(r))?;
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
    };
    let mut result = session.finish(&merged);
    single_metrics(&mut result, cfg, &o);
    Ok(Report {
        result,
        single: Some(o),
        throughput: None,
        kept,
    })
}

/// CPU time since the start, this process's and its reaped children's.
fn cpu_since(own: CpuTimes, children: CpuTimes) -> CpuTimes {
    let (now, kids) = (CpuTimes::now(), CpuTimes::children());
    CpuTimes {
        user: (now.user + kids.user).saturating_sub(own.user + children.user),
        sys: (now.sys + kids.sys).saturating_sub(own.sys + children.sys),
        max_rss_kib: now.max_rss_kib.max(kids.max_rss_kib),
    }
}

/// Each op kind's count, bytes and latency percentiles.
#[derive(Serialize)]
struct KindSummary {
    count: u64,
    bytes: u64,
    latency_ns: LatencySummary,
}

fn kinds_json(st: &WorkerStats) -> Value {
    let m: BTreeMap<&str, KindSummary> = st
        .kinds()
        .filter(|(_, k)| k.count > 0)
        .map(|(kind, k)| {
            (
                kind.name(),
                KindSummary {
                    count: k.count,
                    bytes: k.bytes,
                    latency_ns: k.summary(),
                },
            )
        })
        .collect();
    serde_json::to_value(m).unwrap_or_default()
}

/// One cell as the JSON holds it: sizes and each figure by column name.
fn cell_json(r: &Row) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("file_kb".into(), r.kb.into());
    m.insert("reclen_kb".into(), r.reclen_kb.into());
    for (c, v) in &r.values {
        m.insert(c.name().into(), (*v).into());
    }
    Value::Object(m)
}

/// Single and auto mode: `cells` (every cell measured), `tests` (per
/// column: cells, ops and latency percentiles of each op kind), the
/// figure of each column in single mode, the units.
fn single_metrics(r: &mut RunResult, cfg: &Config, o: &run::Outcome) {
    let t: &Table = &o.table;
    r.metric("mode", mode_name(cfg.mode()));
    r.metric("units", unit_name(cfg.unit));
    let cells: Vec<Value> = t
        .rows
        .iter()
        .filter(|r| !r.is_skipped())
        .map(cell_json)
        .collect();
    r.metric("cells", cells);
    r.metric(
        "skipped_cells",
        t.rows.iter().filter(|r| r.is_skipped()).count(),
    );
    let mut tests = serde_json::Map::new();
    for c in t.sections() {
        let measured = t.rows.iter().filter(|r| r.values.contains_key(&c)).count();
        let mut e = serde_json::Map::new();
        e.insert("title".into(), c.title().into());
        e.insert("cells".into(), measured.into());
        if let Some(st) = o.stats.get(&c) {
            e.insert("ops".into(), kinds_json(st));
        }
        tests.insert(c.name().into(), Value::Object(e));
    }
    r.metric("tests", tests);
    if cfg.mode() == Mode::Single {
        for c in t.sections() {
            if let Some(row) = t.rows.iter().find(|r| r.values.contains_key(&c)) {
                r.metric(c.name(), row.cell(c));
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
            let children = run.children.max(1) as usize;
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
    }
}

/// Throughput mode: per child count, per phase, IOzone's figures, each
/// child's, and the latency percentiles of the children's operations.
fn throughput_metrics(r: &mut RunResult, cfg: &Config, o: &throughput::Outcome) {
    r.metric("mode", "throughput");
    r.metric("units", unit_name(cfg.unit));
    let runs: Vec<Value> = o
        .runs
        .iter()
        .map(|run| {
            let phases: Vec<Value> = run
                .phases
                .iter()
                .map(|p| {
                    let res = &p.result;
                    json!({
                        "phase": res.phase.label(),
                        "children_rate": res.children_rate(),
                        "parent_rate": res.parent_rate(),
                        "min_rate": res.min_rate(),
                        "max_rate": res.max_rate(),
                        "avg_rate": res.avg_rate(),
                        "min_xfer": res.min_xfer(),
                        "parent_s": res.parent_secs,
                        "children": res.children.iter().map(|c| json!({"rate": c.rate, "xfer": c.actual})).collect::<Vec<_>>(),
                        "ops": kinds_json(&p.stats),
                    })
                })
                .collect();
            json!({"children": run.children, "phases": phases})
        })
        .collect();
    r.metric("throughput", runs);
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
    };
    let mut r = rep.result.clone().with_outcome(&part);
    r.error.clone_from(&rep.result.error);
    r
}
