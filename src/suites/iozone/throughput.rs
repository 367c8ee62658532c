//! IOzone 3.489's throughput mode (`-t N`, or `-l MIN -u MAX`): N children
//! at once, each on a file of its own, through IOzone's phases, with
//! stonewalling.
//!
//! For each child count, the phases run in IOzone's order ([`Phase::ALL`]:
//! initial write, rewrite, read, re-read, reverse read, stride read, random
//! read, mixed workload, random write, pwrite, pread, fwrite, fread), each
//! only if its `-i` test is selected, the re-tests (rewrite, re-read) not
//! with `-+n`. Every phase starts fresh children, as IOzone forks (or
//! spawns threads) per phase: processes by default, through the runner's
//! process mode (kind [`PROCESS_KIND`], the phase's plan as the payload),
//! threads with `-T`. Between phases the parent calls sync(2) and waits the
//! settle time (IOzone sleeps 2 s). At the end of each child count the
//! files this run created are removed, unless `-w`.
//!
//! A phase, as IOzone's `throughput_test` runs it:
//! - Each child opens its file before the start (untimed) and waits. All
//!   are released together; with `-d US` child `i` starts `i·US` µs after
//!   the release (`(i+1)·US` in the initial write, where IOzone sleeps
//!   before each release rather than after it), and the parent's clock
//!   starts `N·US` µs after it, where IOzone's loop of releases and sleeps
//!   ends (so with `-d` the parent's time leaves out the first children's
//!   head start, as IOzone's does). The parent's clock ends when the last
//!   child is done: [`PhaseResult::parent_secs`].
//! - Each child times itself from its release: its rate is what it moved
//!   (kB, or operations with `-O`) over its own time, with `-e` the fsync
//!   and with `-c` the close inside it; its `actual` is what it moved while
//!   counted.
//! - Stonewalling (unless `-x`): the first child to finish raises a shared
//!   flag, and every other child looks at it before each record. How it
//!   reacts depends on the phase, as in IOzone's thread functions: the
//!   writers (initial write, random write, pwrite, and the writers of the
//!   mixed workload) note their figures at that record (after an fsync
//!   with `-e`; the initial write also closes with `-c`, then reopens
//!   untimed) and go on to the end of the file without counting the rest,
//!   so that the files are whole for the phases after them; the others
//!   (rewrite, the reads) stop there, then do their `-e`/`-c` inside their
//!   time. fwrite and fread neither look at the flag nor raise it: every
//!   child does its whole file. The writers raise the flag as soon as
//!   their loop ends, the others once their time is taken. The flag is an
//!   `AtomicBool` shared by the threads, or a byte of an anonymous shared
//!   mapping (memfd) that the child processes inherit; reading it is one
//!   relaxed load per record.
//! - Latency: every operation a child counts is recorded through its
//!   [`Ctx`] ([`PhaseRun::stats`], all children merged), the `-e` fsync
//!   and the `-c` close included. Operations after a child's stonewall are
//!   not recorded: the stats describe exactly the work the figures count
//!   (their bytes add up to the children's `actual`), and the tail that
//!   the writers finish uncounted runs while the other children have
//!   mostly stopped, so its latencies would describe a lighter load.
//! - CPU (`-+u`): each child's wall time (from its release to the end of
//!   its timed work, the uncounted tail included, as IOzone takes it) and
//!   its CPU time (getrusage(2) of the child's own thread, which the
//!   kernel brings up to date at each scheduler tick, so a phase of a few
//!   milliseconds reads low, as IOzone's does). The phase's
//!   line shows the longest wall time, the children's CPU summed and their
//!   ratio, as IOzone prints them.
//!
//! What each phase issues, as IOzone 3.489's Linux build does: lseek(2) and
//! read(2)/write(2) through the chosen engine for the initial write
//! (O_RDWR|O_CREAT, no truncation), rewrite, read, re-read, reverse read
//! (last record first), stride read (`-j`, IOzone's wrap), random read and
//! write (each child the same shuffle of its records, IOzone's MT19937-64
//! order, each record once); pwrite(2)/pread(2) through `psync`; fwrite(3)
//! and fread(3) with a stream buffer of one record (unbuffered with `-I`,
//! as IOzone does `setvbuf(_IONBF)`), emulated over the chosen engine as
//! the single-mode runner does. `-o` opens with O_SYNC (the reads too, as
//! IOzone does in throughput mode; not the stdio tests, whose fopen(3)
//! cannot); `-I` opens with O_DIRECT (not the stdio tests). In the mixed
//! workload child `i` reads if `i < ⌊pct·N/100⌋` with `-+p pct`, else the
//! even children read and the odd ones write.
//!
//! Where iogauge differs, and why:
//! - Without `-i 0` IOzone has no files for the other phases (its children
//!   fail to open them); iogauge writes each child's file untimed first.
//! - IOzone does not count a record that completes after the flag went up
//!   but still charges its time; iogauge looks at the flag before each
//!   record, so the figures count the records done before that moment over
//!   the time up to it.
//! - IOzone subtracts its timer's resolution from each time; iogauge's
//!   clock counts nanoseconds and subtracts nothing. The parent's time ends
//!   when the last child's work ends, not when the parent has reaped it.
//! - With `-T` IOzone takes each thread's CPU time from getrusage's
//!   RUSAGE_SELF, the whole process's; iogauge takes the thread's own.
//! - IOzone sleeps `-d` with select(2) split oddly into seconds and
//!   microseconds (`-d 100000` sleeps a whole second); iogauge sleeps the
//!   microseconds given.
//! - `-N` (µs per operation) is refused, as IOzone's throughput mode has no
//!   such figure.

use std::io;
use std::ops::Range;
use std::os::fd::{BorrowedFd, IntoRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde::{Deserialize, Serialize};

use super::figures::{ThroughputPhase, ThroughputRun};
use super::flags::{Config, Mode, Unit};
use super::offsets;
use super::report::{
    self, ChildResult, Phase, PhaseResult, ThroughputRow, ThroughputStyle, ThroughputTable, Units,
};
use super::run::{Cell, Role, pass_kinds, write_untimed};
use super::stdio::Stream;
use crate::engine::{self, Choice, EngineSpec, FileId, OpenHow, Req};
use crate::measure::clock::now_ns;
use crate::measure::{CpuTimes, OpKind, WorkerStats};
use crate::runner::{
    self, Ctx, Io, NoProgress, NoWatch, Placement, StopRule, Tx, Worker, Workers, procs, signals,
};

/// The worker kind of IOzone's child processes.
pub const PROCESS_KIND: &str = Children::KIND;

/// One child's times over a phase (`-+u`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ChildTimes {
    /// From its release to the end of its timed work (the uncounted tail
    /// of a stonewalled writer included); never less than its CPU time,
    /// as IOzone raises it.
    pub wall_s: f64,
    /// User and system CPU of the child's own thread.
    pub cpu: CpuTimes,
}

impl ChildTimes {
    /// User + system seconds.
    pub fn cpu_s(&self) -> f64 {
        (self.cpu.user + self.cpu.sys).as_secs_f64()
    }
}

/// One phase with N children.
#[derive(Debug)]
pub struct PhaseRun {
    /// IOzone's figures: each child's rate and transfer, the parent's time.
    pub result: PhaseResult,
    /// Latency of every counted operation, all children merged.
    pub stats: WorkerStats,
    /// The children's CPU over the phase, summed (peak RSS: the run's).
    pub cpu: CpuTimes,
    /// The longest child wall time (IOzone's "Wall time" of `-+u`).
    pub wall_s: f64,
    /// Each child's times, in child order.
    pub child_times: Vec<ChildTimes>,
}

/// The phases of one child count.
#[derive(Debug)]
pub struct Run {
    pub children: u32,
    /// In the order they ran.
    pub phases: Vec<PhaseRun>,
}

/// What a throughput run measured.
#[derive(Debug, Default)]
pub struct Outcome {
    /// One per child count that ran at least one phase, in order.
    pub runs: Vec<Run>,
    /// Every phase of every child count ran to its end.
    pub complete: bool,
    /// Ctrl-C or SIGTERM stopped the run (the phase it cut short has no
    /// figures).
    pub interrupted: bool,
    /// The error that stopped the run, if one did.
    pub error: Option<String>,
}

/// The phases `config` selects, in IOzone's order.
pub fn phases(config: &Config) -> Vec<Phase> {
    let tests = config.tests_to_run();
    Phase::ALL
        .into_iter()
        .filter(|p| tests.iter().any(|t| t.number() == p.test()))
        .filter(|p| !(config.no_retest && matches!(p, Phase::Rewrite | Phase::Reread)))
        .collect()
}

/// Runs throughput mode: for each child count of `config.children`, the
/// selected phases on `config.child_file(i)` inside `dir`, through
/// `engine` (the lseek + read/write and stdio phases; pwrite and pread use
/// `psync` unless the engine is fake). `settle` is the pause after each
/// phase's sync(2). `progress` hears, untimed, which phase starts;
/// `on_phase` gets each phase's figures as soon as it ends.
///
/// A configuration it cannot run is an `Err`; anything that stops the run
/// later (Ctrl-C, an I/O error, a dead child) ends it with what was
/// measured, the files it created removed (unless `-w`), and
/// [`Outcome::interrupted`] or [`Outcome::error`] set.
pub fn run(
    config: &Config,
    dir: &Path,
    engine: Choice,
    settle: Duration,
    progress: &dyn Fn(&str),
    on_event: &mut dyn FnMut(Event),
) -> Result<Outcome> {
    run_with(config, dir, engine, &Children, settle, progress, on_event)
}

/// What a throughput run tells as it goes, in IOzone's order: each child
/// count begins (IOzone's `throughput_test` prints "Each process writes
/// …"), its phases end one by one, and it ends (two blank lines).
pub enum Event<'a> {
    Begin(u32),
    Phase(u32, &'a PhaseRun),
    End(u32),
}

/// What a role's engine needs: O_DIRECT or not, and its largest request.
#[derive(Clone, Copy, Debug)]
pub(super) struct Need {
    pub direct: bool,
    pub max_len: usize,
}

/// The engine of a role: `psync` for pwrite/pread unless `choice` is fake.
/// One request at a time: IOzone's tests are loops of one call after
/// another, each timed or counted on its own.
pub(super) fn make_io(choice: Choice, role: Role, need: Need) -> Result<Io> {
    let c = match role {
        Role::Positional if !choice.is_fake() => Choice::PSYNC,
        _ => choice,
    };
    let spec = EngineSpec::new(c).direct(need.direct);
    Ok(Io::new(&spec, 1, need.max_len, 0)?)
}

/// The children of a phase built from its payload, and the engines of
/// the untimed layout: IOzone's ([`Children`]), or in the tests engines
/// slowed or failing (what slows them is in their payload).
trait Engines: Workers<Worker = ChildWorker> {
    /// The payload of a phase planned as `plan`.
    fn payload(&self, plan: Plan) -> Self::Payload;
    /// Child `child`'s engine for `role`.
    fn make(&self, choice: Choice, role: Role, child: usize, need: Need) -> Result<Io>;
}

/// The children of a phase, each on the engine [`make_io`] makes. Built
/// together (threads) they share one stonewall flag, an `Arc` made by the
/// call; built alone (a process each) each maps the shared memory that
/// the plan's `wall_fd` names and the child inherits.
pub struct Children;

impl Workers for Children {
    const KIND: &'static str = "iozone-child";
    type Payload = Plan;
    type Worker = ChildWorker;
    fn workers(plan: &Plan, range: Range<usize>) -> Result<Vec<ChildWorker>> {
        ChildWorker::group(plan, range, &|role, _, need| {
            make_io(plan.engine, role, need)
        })
    }
}

impl Engines for Children {
    fn payload(&self, plan: Plan) -> Plan {
        plan
    }
    fn make(&self, choice: Choice, role: Role, _child: usize, need: Need) -> Result<Io> {
        make_io(choice, role, need)
    }
}

/// [`run`], with the children and their engines of `kind`.
fn run_with<K: Engines>(
    config: &Config,
    dir: &Path,
    engine: Choice,
    kind: &K,
    settle: Duration,
    progress: &dyn Fn(&str),
    on_event: &mut dyn FnMut(Event),
) -> Result<Outcome> {
    if config.mode() != Mode::Throughput {
        bail!("internal error: the throughput runner was given single or auto mode");
    }
    if config.unit == Unit::UsPerOp {
        bail!("-N (µs/operation) is not supported in throughput mode, as in IOzone; use -O");
    }
    let (file_kb, rec_kb) = (config.single_file_kb(), config.single_record_kb());
    let reclen = u32::try_from(rec_kb * 1024)
        .map_err(|_| anyhow!("a record of {rec_kb} kB is too large"))?;
    let numrecs = file_kb * 1024 / u64::from(reclen);
    if numrecs == 0 {
        bail!("a record of {rec_kb} kB does not fit a file of {file_kb} kB; lower -r or raise -s");
    }
    let mut p = Parent {
        cfg: config,
        dir,
        engine,
        kind,
        settle,
        progress,
        reclen,
        numrecs,
        phases: phases(config),
        started: false,
        out: Outcome::default(),
    };
    for &n in &config.children {
        if p.stopped() {
            break;
        }
        on_event(Event::Begin(n));
        p.children(n, &mut |n, r| on_event(Event::Phase(n, r)));
        on_event(Event::End(n));
    }
    let mut out = p.out;
    out.interrupted |= signals::interrupted();
    out.complete = !out.interrupted && out.error.is_none();
    Ok(out)
}

/// Why a phase did not give figures.
enum Stop {
    Interrupted,
    Failed(anyhow::Error),
}

impl From<anyhow::Error> for Stop {
    fn from(e: anyhow::Error) -> Stop {
        Stop::Failed(e)
    }
}

struct Parent<'a, K> {
    cfg: &'a Config,
    dir: &'a Path,
    engine: Choice,
    kind: &'a K,
    settle: Duration,
    progress: &'a dyn Fn(&str),
    reclen: u32,
    numrecs: u64,
    phases: Vec<Phase>,
    /// A phase has run (the next one settles first).
    started: bool,
    out: Outcome,
}

impl<K: Engines> Parent<'_, K> {
    fn stopped(&self) -> bool {
        self.out.interrupted || self.out.error.is_some()
    }

    fn port(&self, n: u32) -> &'static str {
        match (self.cfg.threads, n) {
            (true, 1) => "thread",
            (true, _) => "threads",
            (false, 1) => "process",
            (false, _) => "processes",
        }
    }

    fn paths(&self, n: u32) -> Vec<PathBuf> {
        (0..n as usize)
            .map(|i| self.dir.join(self.cfg.child_file(i)))
            .collect()
    }

    fn need(&self, role: Role) -> Need {
        Need {
            direct: self.cfg.direct && role != Role::Stdio,
            max_len: self.reclen as usize,
        }
    }

    fn stop(&mut self, s: Stop) {
        match s {
            Stop::Interrupted => self.out.interrupted = true,
            Stop::Failed(e) => {
                if self.out.error.is_none() {
                    self.out.error = Some(crate::error::cause(&e));
                }
            }
        }
    }

    /// Every phase with `n` children, then the files removed.
    fn children(&mut self, n: u32, on_phase: &mut dyn FnMut(u32, &PhaseRun)) {
        let paths = self.paths(n);
        // what exists already is not ours to remove
        let created: Vec<bool> = paths
            .iter()
            .map(|p| std::fs::symlink_metadata(p).is_err())
            .collect();
        let mut run = Run {
            children: n,
            phases: Vec::new(),
        };
        let mut flow = Ok(());
        if !self.phases.contains(&Phase::InitialWrite) {
            flow = self.layout(n, &paths);
        }
        if flow.is_ok() {
            for phase in self.phases.clone() {
                if let Err(s) = self.settle() {
                    flow = Err(s);
                    break;
                }
                (self.progress)(&format!("{n} {}: {}", self.port(n), phase.label()));
                match self.phase(n, phase, &paths) {
                    Ok(r) => {
                        on_phase(n, &r);
                        run.phases.push(r);
                    }
                    Err(s) => {
                        flow = Err(s);
                        break;
                    }
                }
            }
        }
        if let Err(s) = flow {
            self.stop(s);
        }
        if !run.phases.is_empty() {
            self.out.runs.push(run);
        }
        if !self.cfg.keep_files {
            for (p, _) in paths.iter().zip(&created).filter(|(_, c)| **c) {
                match std::fs::remove_file(p) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => {
                        self.stop(Stop::Failed(anyhow!("cannot remove {}: {e}", p.display())));
                    }
                    _ => {}
                }
            }
        }
    }

    /// sync(2) and the settle time before every phase but the first;
    /// Ctrl-C cuts the wait short.
    fn settle(&mut self) -> Result<(), Stop> {
        if !std::mem::replace(&mut self.started, true) {
            return Ok(());
        }
        if !self.engine.is_fake() {
            rustix::fs::sync();
        }
        let end = Instant::now() + self.settle;
        loop {
            if signals::interrupted() {
                return Err(Stop::Interrupted);
            }
            let now = Instant::now();
            if now >= end {
                return Ok(());
            }
            std::thread::sleep((end - now).min(Duration::from_millis(50)));
        }
    }

    /// Each child's file written untimed, for runs without `-i 0`.
    fn layout(&mut self, n: u32, paths: &[PathBuf]) -> Result<(), Stop> {
        (self.progress)(&format!(
            "{n} {}: writing the files (untimed)",
            self.port(n)
        ));
        for (i, path) in paths.iter().enumerate() {
            if signals::interrupted() {
                return Err(Stop::Interrupted);
            }
            let mut e = self
                .kind
                .make(self.engine, Role::Main, i, self.need(Role::Main))?;
            let cell = Cell {
                path,
                reclen: self.reclen,
                numrecs: self.numrecs,
            };
            let how = OpenHow {
                truncate: false,
                ..OpenHow::CREATE
            };
            write_untimed(&mut e, cell, how, None)?;
        }
        Ok(())
    }

    fn plan(&self, n: u32, phase: Phase, paths: &[PathBuf]) -> Plan {
        let c = self.cfg;
        Plan {
            phase: phase_number(phase),
            children: n,
            paths: paths.to_vec(),
            reclen: self.reclen,
            numrecs: self.numrecs,
            engine: self.engine,
            direct: c.direct,
            sync: c.sync,
            flush: c.include_flush,
            close: c.include_close,
            stonewall: c.stonewall,
            stagger_ns: c.stagger_us.saturating_mul(1000),
            stride: c.stride,
            read_pct: c.read_pct,
            wall_fd: None,
        }
    }

    /// One phase with `n` fresh children.
    fn phase(&mut self, n: u32, phase: Phase, paths: &[PathBuf]) -> Result<PhaseRun, Stop> {
        let mut plan = self.plan(n, phase, paths);
        let stagger_ns = plan.stagger_ns;
        let what = format!("{} with {n} {}", phase.label(), self.port(n));
        // processes share the stonewall flag through memory they inherit
        let mem = if self.cfg.threads {
            None
        } else {
            Some(
                procs::SharedMem::create(c"iogauge-iozone-stonewall", 64)
                    .context("cannot make the shared stonewall flag")?,
            )
        };
        plan.wall_fd = mem.as_ref().map(|m| m.fd());
        let inherit: Vec<RawFd> = plan.wall_fd.into_iter().collect();
        let placement = if self.cfg.threads {
            Placement::Threads
        } else {
            Placement::Processes { inherit: &inherit }
        };
        let o = runner::run_workers::<K>(
            StopRule::default(),
            &self.kind.payload(plan),
            n as usize,
            placement,
            &NoProgress,
            &NoWatch,
        )
        .with_context(|| what.clone())?;
        drop(mem);
        if let Some(e) = o.error {
            return Err(Stop::Failed(e.context(what)));
        }
        if o.interrupted || !o.complete {
            return Err(Stop::Interrupted);
        }
        let mut children = Vec::with_capacity(n as usize);
        let mut times = Vec::with_capacity(n as usize);
        for (i, t) in o.records::<Tally>().into_iter().enumerate() {
            let t = t.ok_or_else(|| anyhow!("{what}: child {i} sent no figures"))?;
            if !t.done {
                return Err(Stop::Interrupted);
            }
            let (c, ct) = t.figures(self.reclen, self.cfg.unit == Unit::OpsPerSec);
            children.push(c);
            times.push(ct);
        }
        // rank 0 of an MPI job has every rank's children, in rank order
        let sent = n as usize * crate::cluster::merged_ranks();
        if children.len() != sent {
            return Err(Stop::Failed(anyhow!(
                "{what}: {} of {sent} children sent figures",
                children.len()
            )));
        }
        // the parent's clock starts once the last child is released
        let start_ns = u64::from(n).saturating_mul(stagger_ns);
        let parent_ns = u64::try_from(o.elapsed.as_nanos())
            .unwrap_or(u64::MAX)
            .saturating_sub(start_ns)
            .max(1);
        let cpu = times.iter().fold(CpuTimes::default(), |a, t| CpuTimes {
            user: a.user + t.cpu.user,
            sys: a.sys + t.cpu.sys,
            max_rss_kib: a.max_rss_kib,
            ..Default::default()
        });
        Ok(PhaseRun {
            result: PhaseResult {
                phase,
                children,
                parent_secs: parent_ns as f64 / 1e9,
            },
            stats: o.stats,
            cpu: CpuTimes {
                max_rss_kib: o.cpu.max_rss_kib,
                ..cpu
            },
            wall_s: times.iter().map(|t| t.wall_s).fold(0.0, f64::max),
            child_times: times,
        })
    }
}

/// The throughput `-R`/`-b` table: a row per phase that ran (in IOzone's
/// order), a value per child count run ("Children see", 0 where that
/// phase did not run for that count).
pub fn table(config: &Config, runs: &[ThroughputRun]) -> ThroughputTable {
    let did = |p: Phase| runs.iter().any(|r| r.phases.iter().any(|x| x.phase == p));
    // with -+n IOzone keeps the rewrite and re-read rows, as zeros
    let skipped_retest = |p: Phase| {
        config.no_retest
            && match p {
                Phase::Rewrite => did(Phase::InitialWrite),
                Phase::Reread => did(Phase::Read),
                _ => false,
            }
    };
    let ran: Vec<Phase> = Phase::ALL
        .into_iter()
        .filter(|&p| did(p) || skipped_retest(p))
        .collect();
    // a row per phase, a value per child count (0 where it did not run)
    let rows = |value: &dyn Fn(&ThroughputPhase) -> f64| -> Vec<ThroughputRow> {
        ran.iter()
            .map(|&p| ThroughputRow {
                phase: p,
                values: runs
                    .iter()
                    .map(|r| r.phases.iter().find(|x| x.phase == p).map_or(0.0, value))
                    .collect(),
            })
            .collect()
    };
    ThroughputTable {
        reclen_kb: config.single_record_kb(),
        threads: config.threads,
        units: units(config),
        rows: rows(&|x| x.children_rate),
        // the phases that ran only (IOzone labels its CPU rows by their
        // place in its list of tests, so where a test is missing its
        // labels name the wrong ones; these name the phases measured)
        cpu: if config.cpu_util {
            rows(&|x| cpu_util(x.cpu_s(), x.wall_s.unwrap_or(0.0)))
                .into_iter()
                .filter(|r| did(r.phase))
                .collect()
        } else {
            Vec::new()
        },
    }
}

fn units(config: &Config) -> Units {
    match config.unit {
        Unit::OpsPerSec => Units::OpsPerSec,
        _ => Units::KbPerSec,
    }
}

/// IOzone's `cpu_util`: CPU over wall time, in percent (0 without time).
fn cpu_util(cpu_s: f64, wall_s: f64) -> f64 {
    if wall_s <= 0.0 {
        0.0
    } else {
        100.0 * cpu_s.max(0.0) / wall_s
    }
}

/// The lines IOzone 3.489 prints after a phase: the throughput lines
/// (`-T` says thread, `-O` counts ops), with `-+u` the CPU utilisation
/// line, with `-C` a line per child (with `-+u` its wall and CPU time).
pub fn phase_text(config: &Config, r: &ThroughputPhase) -> String {
    let units = units(config);
    let cpu = config.cpu_util;
    let st = ThroughputStyle {
        threads: config.threads,
        units,
        per_child: config.per_child && !cpu,
    };
    let mut s = report::throughput_text(&r.result(), st);
    if !cpu {
        return s;
    }
    let cpu_s = r.cpu_s();
    let wall = r.wall_s.unwrap_or(0.0);
    // IOzone spells the line with a capital U only after the initial
    // writers, and there only when it has a wall time
    let title = if wall != 0.0 && r.phase == Phase::InitialWrite {
        "CPU Utilization"
    } else {
        "CPU utilization"
    };
    s += &format!(
        "\t{title}: Wall time {wall:8.3}    CPU time {cpu_s:8.3}    CPU utilization {:6.2} %\n\n",
        cpu_util(cpu_s, wall)
    );
    if config.per_child {
        let unit = if units == Units::OpsPerSec {
            "ops"
        } else {
            "kB"
        };
        for (i, c) in r.children.iter().enumerate() {
            let (wall, cpu) = (c.wall_s.unwrap_or(0.0), c.cpu_s.unwrap_or(0.0));
            s += &format!(
                "\tChild[{i}] xfer count = {:10.2} {unit}, Throughput = {:10.2} {unit}/sec, wall={wall:6.3}, cpu={cpu:6.3}, %={:6.2}\n",
                c.xfer,
                c.rate,
                cpu_util(cpu, wall)
            );
        }
    }
    s
}

/// A phase's number in [`Phase::ALL`] (the plan carries it).
fn phase_number(p: Phase) -> u8 {
    Phase::ALL.iter().position(|x| *x == p).unwrap_or(0) as u8
}

/// What every child of a phase needs, as it crosses to a child process.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// Index into [`Phase::ALL`].
    phase: u8,
    children: u32,
    /// Each child's file.
    paths: Vec<PathBuf>,
    reclen: u32,
    numrecs: u64,
    engine: Choice,
    direct: bool,
    sync: bool,
    flush: bool,
    close: bool,
    stonewall: bool,
    /// Between successive releases.
    stagger_ns: u64,
    stride: u64,
    read_pct: Option<u32>,
    /// The shared stonewall flag's memory, inherited (processes only).
    wall_fd: Option<RawFd>,
}

impl Plan {
    fn phase(&self) -> Result<Phase> {
        Phase::ALL
            .get(usize::from(self.phase))
            .copied()
            .ok_or_else(|| anyhow!("no throughput phase {}", self.phase))
    }

    /// Child `i`'s pass.
    fn pass(&self, i: usize) -> Pass {
        let phase = self.phase().unwrap_or_default();
        Pass::of(phase, i, self.children, self.read_pct, self.sync)
    }
}

/// Where the records of a pass go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    /// 0, 1, 2, …
    Seq,
    /// The last record first.
    Back,
    /// `-j` records apart ([`offsets::stride`]).
    Stride,
    /// IOzone's shuffle ([`offsets::random`]).
    Random,
}

/// How a pass meets the stonewall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WallRule {
    /// Stop there (rewrite and the reads).
    Stop,
    /// Note the figures there, then finish the file uncounted (the
    /// writers; `reopen`: with `-c` close and reopen there, as the
    /// initial write does).
    Finish { reopen: bool },
    /// Never look (fwrite, fread).
    Ignore,
}

/// What one child does in a phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pass {
    role: Role,
    write: bool,
    how: OpenHow,
    access: Access,
    wall: WallRule,
}

/// Whether child `i` of `n` reads in the mixed workload.
fn mixed_reader(i: usize, n: u32, read_pct: Option<u32>) -> bool {
    match read_pct {
        Some(pct) => (i as u64) < u64::from(pct) * u64::from(n) / 100,
        None => i.is_multiple_of(2),
    }
}

impl Pass {
    fn of(phase: Phase, i: usize, n: u32, read_pct: Option<u32>, sync: bool) -> Pass {
        let read = OpenHow {
            sync,
            ..OpenHow::READ
        };
        let rw = OpenHow {
            sync,
            ..OpenHow::READ_WRITE
        };
        let create = OpenHow {
            truncate: false,
            sync,
            ..OpenHow::CREATE
        };
        let reader = |role, access| Pass {
            role,
            write: false,
            how: read,
            access,
            wall: WallRule::Stop,
        };
        let writer = |role, how, access, wall| Pass {
            role,
            write: true,
            how,
            access,
            wall,
        };
        let finish = WallRule::Finish { reopen: false };
        match phase {
            Phase::InitialWrite => writer(
                Role::Main,
                create,
                Access::Seq,
                WallRule::Finish { reopen: true },
            ),
            Phase::Rewrite => writer(Role::Main, rw, Access::Seq, WallRule::Stop),
            Phase::Read | Phase::Reread => reader(Role::Main, Access::Seq),
            Phase::ReverseRead => reader(Role::Main, Access::Back),
            Phase::StrideRead => reader(Role::Main, Access::Stride),
            Phase::RandomRead => reader(Role::Main, Access::Random),
            Phase::Mixed if mixed_reader(i, n, read_pct) => reader(Role::Main, Access::Random),
            Phase::Mixed | Phase::RandomWrite => writer(Role::Main, create, Access::Random, finish),
            Phase::Pwrite => writer(Role::Positional, create, Access::Seq, finish),
            Phase::Pread => reader(Role::Positional, Access::Seq),
            // fopen "r+" (the file exists) or "w+": neither truncates
            Phase::Fwrite => writer(
                Role::Stdio,
                OpenHow {
                    truncate: false,
                    ..OpenHow::CREATE
                },
                Access::Seq,
                WallRule::Ignore,
            ),
            Phase::Fread => Pass {
                how: OpenHow::READ,
                wall: WallRule::Ignore,
                ..reader(Role::Stdio, Access::Seq)
            },
        }
    }
}

/// The stonewall flag.
enum Stonewall {
    /// Shared by the threads of one run.
    Local(Arc<AtomicBool>),
    /// The first byte of memory shared with the other child processes.
    Shared(procs::SharedMem),
}

impl Stonewall {
    /// Map the parent's flag from the inherited descriptor `fd` (a copy of
    /// it, so the inherited one stays as it is).
    fn attach(fd: RawFd) -> Result<Stonewall> {
        // SAFETY: `fd` was inherited from the parent for this process's
        // whole life; it is only borrowed here, to copy it.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        let own = rustix::io::fcntl_dupfd_cloexec(borrowed, 0)
            .map_err(|e| anyhow!("cannot use the stonewall flag (descriptor {fd}): {e}"))?;
        let mem = procs::SharedMem::attach(own.into_raw_fd())
            .map_err(|e| anyhow!("cannot map the stonewall flag: {e}"))?;
        Ok(Stonewall::Shared(mem))
    }

    #[inline]
    fn flag(&self) -> &AtomicBool {
        match self {
            Stonewall::Local(f) => f,
            // SAFETY: the mapping is page-aligned, at least one byte long,
            // zeroed (false) when made, lives as long as `self`, and every
            // process touches its first byte only through this atomic.
            Stonewall::Shared(m) => unsafe { AtomicBool::from_ptr(m.ptr().cast()) },
        }
    }
}

/// What a child hands back: counts and times; the parent works out the
/// figures, so they need no rounding on the way.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
struct Tally {
    /// The pass ran (not cut short by Ctrl-C or another child's error).
    done: bool,
    /// Records counted.
    counted: u64,
    /// The counted time: release to the end (or the stonewall).
    secs_ns: u64,
    wall_ns: u64,
    user_ns: u64,
    sys_ns: u64,
}

impl Tally {
    /// IOzone's figures: kB (or operations) and their rate.
    fn figures(&self, reclen: u32, ops: bool) -> (ChildResult, ChildTimes) {
        let amount = if ops {
            self.counted
        } else {
            self.counted * u64::from(reclen / 1024)
        } as f64;
        let secs = self.secs_ns.max(1) as f64 / 1e9;
        let cpu = CpuTimes {
            user: Duration::from_nanos(self.user_ns),
            sys: Duration::from_nanos(self.sys_ns),
            ..Default::default()
        };
        let t = ChildTimes { wall_s: 0.0, cpu };
        let wall_s = (self.wall_ns as f64 / 1e9).max(t.cpu_s());
        (
            ChildResult {
                rate: amount / secs,
                actual: amount,
            },
            ChildTimes { wall_s, ..t },
        )
    }
}

/// One child of a phase: its file opened before the start, its pass, its
/// figures for the parent.
pub struct ChildWorker {
    engine: Io,
    child: Child,
}

/// A child but for its engine, which the runner's loop of transactions
/// borrows.
struct Child {
    pass: Pass,
    path: PathBuf,
    file: FileId,
    open: bool,
    reclen: u32,
    numrecs: u64,
    /// Record numbers in order (random and stride; empty otherwise).
    order: Vec<u64>,
    flush: bool,
    close: bool,
    /// Stonewalling on: this child raises the flag when it is done.
    raise: bool,
    /// After the common release.
    delay_ns: u64,
    wall: Stonewall,
    /// fwrite's stream.
    stream: Option<Stream>,
    tally: Tally,
}

/// An engine maker for a role and child.
type Make<'a> = dyn Fn(Role, usize, Need) -> Result<Io> + 'a;

impl ChildWorker {
    /// Children `range` of `plan` on engines `make` makes, with one
    /// stonewall flag: the plan's shared memory, or else one of their own.
    fn group(plan: &Plan, range: Range<usize>, make: &Make) -> Result<Vec<ChildWorker>> {
        let local = Arc::new(AtomicBool::new(false));
        range
            .map(|i| {
                let wall = match plan.wall_fd {
                    Some(fd) => Stonewall::attach(fd)?,
                    None => Stonewall::Local(Arc::clone(&local)),
                };
                let role = plan.pass(i).role;
                let need = Need {
                    direct: plan.direct && role != Role::Stdio,
                    max_len: plan.reclen as usize,
                };
                ChildWorker::new(plan, i, make(role, i, need)?, wall)
            })
            .collect()
    }

    /// Child `i` of `plan`: its file opened (and for the stdio phases
    /// synced), its record order worked out, all before the start.
    fn new(plan: &Plan, i: usize, mut engine: Io, wall: Stonewall) -> Result<Self> {
        let phase = plan.phase()?;
        let pass = plan.pass(i);
        let path = plan
            .paths
            .get(i)
            .cloned()
            .ok_or_else(|| anyhow!("child {i} has no file in the plan"))?;
        let file = engine
            .open(&path, pass.how)
            .with_context(|| format!("child {i} cannot open its file"))?;
        if pass.role == Role::Stdio
            && let Err(e) = engine::untimed(|| engine.exec(Req::fsync(file)))
        {
            let _ = engine.close(file);
            bail!("child {i}: fsync {}: {e}", path.display());
        }
        let order = match pass.access {
            Access::Random => offsets::random(plan.numrecs),
            Access::Stride => offsets::stride(plan.numrecs, plan.stride),
            Access::Seq | Access::Back => Vec::new(),
        };
        let stream =
            (pass.role == Role::Stdio && pass.write).then(|| Stream::new(plan.reclen, plan.direct));
        let releases = if phase == Phase::InitialWrite {
            i as u64 + 1
        } else {
            i as u64
        };
        let child = Child {
            pass,
            path,
            file,
            open: true,
            reclen: plan.reclen,
            numrecs: plan.numrecs,
            order,
            // fflush of a read stream issues nothing
            flush: plan.flush && (pass.write || pass.role != Role::Stdio),
            close: plan.close,
            raise: plan.stonewall && pass.wall != WallRule::Ignore,
            delay_ns: plan.stagger_ns.saturating_mul(releases),
            wall,
            stream,
            tally: Tally::default(),
        };
        Ok(ChildWorker { engine, child })
    }
}

impl Child {
    /// The phase is named by the parent, which runs the children.
    fn fail(&self, what: &str, e: io::Error) -> anyhow::Error {
        anyhow!("{what} {}: {e}", self.path.display())
    }

    #[inline]
    fn record_at(&self, i: u64) -> u64 {
        match self.pass.access {
            Access::Seq => i,
            Access::Back => self.numrecs - 1 - i,
            Access::Stride | Access::Random => self.order[i as usize],
        }
    }

    /// A writer meets the stonewall: `-e` fsync, `-c` close (the initial
    /// write), both counted; then the time of its figures, and the file
    /// reopened untimed if it was closed.
    fn stonewalled(&mut self, tx: &mut Tx, reopen: bool) -> Result<u64> {
        if self.flush {
            let c = tx
                .exec_unrecorded(Req::fsync(self.file))
                .map_err(|e| self.fail("fsync", e))?;
            tx.ctx.record(&c);
        }
        if !(self.close && reopen) {
            return Ok(now_ns());
        }
        let t = now_ns();
        self.open = false;
        tx.io
            .close(self.file)
            .map_err(|e| self.fail("closing", e))?;
        let done = now_ns();
        tx.ctx.record_op(OpKind::Close, done - t, 0, done);
        self.file = tx
            .io
            .open(&self.path, self.pass.how)
            .map_err(|e| self.fail("reopening", e))?;
        self.open = true;
        Ok(done)
    }

    /// The `-e` fsync and `-c` close at the end, recorded if `counted`.
    fn flush_close(&mut self, engine: &mut Io, ctx: &mut Ctx, counted: bool) -> Result<()> {
        if self.flush {
            let t = now_ns();
            if let Some(s) = self.stream.as_mut() {
                s.fflush(engine, self.file, self.reclen)
                    .map_err(|e| anyhow!("writing {}: {e}", self.path.display()))?;
            }
            engine
                .exec(Req::fsync(self.file))
                .map_err(|e| self.fail("fsync", e))?;
            let done = now_ns();
            if counted {
                ctx.record_op(OpKind::Fsync, done - t, 0, done);
            }
        }
        if self.close {
            let t = now_ns();
            if let Some(s) = self.stream.as_mut() {
                s.fflush(engine, self.file, self.reclen)
                    .map_err(|e| anyhow!("writing {}: {e}", self.path.display()))?;
            }
            self.open = false;
            engine
                .close(self.file)
                .map_err(|e| self.fail("closing", e))?;
            let done = now_ns();
            if counted {
                ctx.record_op(OpKind::Close, done - t, 0, done);
            }
        }
        Ok(())
    }

    /// The pass of an engine phase. `None` when told to stop; else the
    /// records counted and the end of the counted time.
    fn pass(&mut self, engine: &mut Io, ctx: &mut Ctx) -> Result<Option<(u64, u64)>> {
        let rule = self.pass.wall;
        let mut req = Req {
            kind: if self.pass.write {
                OpKind::Write
            } else {
                OpKind::Read
            },
            file: self.file,
            offset: 0,
            len: self.reclen,
            slot: 0,
        };
        let mut counted = 0u64;
        let mut walled: Option<u64> = None;
        // a transaction is one record
        let mut i = 0;
        let mut stonewalled = false;
        engine.transact(ctx, &mut |tx: &mut Tx| {
            if i == self.numrecs {
                return Ok(false);
            }
            if rule != WallRule::Ignore
                && walled.is_none()
                && self.wall.flag().load(Ordering::Relaxed)
            {
                match rule {
                    WallRule::Finish { reopen } => {
                        walled = Some(self.stonewalled(tx, reopen)?);
                        req.file = self.file;
                    }
                    _ => {
                        stonewalled = true;
                        return Ok(false);
                    }
                }
            }
            req.offset = self.record_at(i) * u64::from(self.reclen);
            i += 1;
            self.transfer(tx, req, walled.is_none())?;
            if walled.is_none() {
                counted += 1;
            }
            Ok(true)
        })?;
        if i < self.numrecs && !stonewalled {
            return Ok(None);
        }
        if self.raise && matches!(rule, WallRule::Finish { .. }) {
            self.wall.flag().store(true, Ordering::Relaxed);
        }
        self.flush_close(engine, ctx, walled.is_none())?;
        let end = walled.unwrap_or_else(now_ns);
        if self.raise && rule == WallRule::Stop {
            self.wall.flag().store(true, Ordering::Relaxed);
        }
        Ok(Some((counted, end)))
    }

    /// One record's read or write, recorded if `counted`.
    fn transfer(&self, tx: &mut Tx, req: Req, counted: bool) -> Result<()> {
        let len = u64::from(self.reclen);
        let c = match tx.exec_unrecorded(req) {
            Ok(c) => c,
            Err(e) => {
                let what = if self.pass.write {
                    "writing"
                } else {
                    "reading"
                };
                return Err(self.fail(what, e));
            }
        };
        if counted {
            tx.ctx.record(&c);
        }
        if c.bytes != len {
            if self.pass.write {
                // the rest, to learn why (a full disk says so then)
                tx.io
                    .finish_write(req, c.bytes)
                    .map_err(|e| self.fail("writing", e))?;
            } else {
                bail!(
                    "reading {}: {} of {} bytes at offset {} (short read)",
                    self.path.display(),
                    c.bytes,
                    self.reclen,
                    req.offset,
                );
            }
        }
        Ok(())
    }

    /// The fwrite pass: each fwrite(3) timed whole.
    fn fwrite_pass(&mut self, engine: &mut Io, ctx: &mut Ctx) -> Result<Option<(u64, u64)>> {
        let n = self.reclen;
        let mut counted = 0u64;
        let Some(stream) = self.stream.as_mut() else {
            bail!("internal error: fwrite without a stream");
        };
        let (file, path) = (self.file, &self.path);
        // (run() calls this untimed: each fwrite is timed whole); a
        // transaction is one fwrite
        engine.transact(ctx, &mut |tx: &mut Tx| {
            if counted == self.numrecs {
                return Ok(false);
            }
            let t = now_ns();
            if let Err(e) = stream.fwrite(tx.io, file, n) {
                return Err(anyhow!("writing {}: {e}", path.display()));
            }
            tx.record_since(OpKind::Write, t, u64::from(n));
            counted += 1;
            Ok(true)
        })?;
        if counted < self.numrecs {
            return Ok(None);
        }
        self.flush_close(engine, ctx, true)?;
        Ok(Some((counted, now_ns())))
    }

    /// After the figures (untimed): fflush, fsync and close, if the pass
    /// left the file open.
    fn finish_untimed(&mut self, e: &mut Io) -> Result<()> {
        if !self.open {
            return Ok(());
        }
        self.open = false;
        let (f, n) = (self.file, self.reclen);
        let r = engine::untimed(|| -> io::Result<()> {
            if let Some(s) = self.stream.as_mut() {
                s.fflush(e, f, n)?;
            }
            e.exec(Req::fsync(f)).map(drop)
        });
        let closed = e.close(self.file);
        r.map_err(|e| self.fail("fsync", e))?;
        closed.map_err(|e| self.fail("closing", e))
    }
}

/// Sleep until `t` (clock ns); false if the run stopped meanwhile.
fn wait_until(t: u64, ctx: &Ctx) -> bool {
    loop {
        let now = now_ns();
        if now >= t {
            return true;
        }
        if ctx.stopped() {
            return false;
        }
        std::thread::sleep(Duration::from_nanos((t - now).min(20_000_000)));
    }
}

impl Worker for ChildWorker {
    fn kinds(&self) -> &[OpKind] {
        pass_kinds(self.child.pass.write)
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let ChildWorker { engine, child } = self;
        if !wait_until(ctx.t0_ns().saturating_add(child.delay_ns), ctx) {
            return Ok(());
        }
        let cpu0 = CpuTimes::thread();
        let start = now_ns();
        let timed = if child.stream.is_some() {
            // each fwrite timed whole: the engine reads no clock inside it
            engine::untimed(|| child.fwrite_pass(engine, ctx))?
        } else {
            child.pass(engine, ctx)?
        };
        let Some((counted, end)) = timed else {
            return Ok(());
        };
        let wall_end = now_ns();
        let cpu = CpuTimes::thread().since(&cpu0);
        child.tally = Tally {
            done: true,
            counted,
            secs_ns: end.saturating_sub(start),
            wall_ns: wall_end.saturating_sub(start),
            user_ns: cpu.user.as_nanos() as u64,
            sys_ns: cpu.sys.as_nanos() as u64,
        };
        child.finish_untimed(engine)
    }

    fn finish(&mut self) -> serde_json::Value {
        serde_json::to_value(self.child.tally).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::iozone::flags::parse_with_page_size;

    fn config(line: &str) -> Config {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse_with_page_size(&args, 4096)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .config
    }

    /// An engine that waits `delay` before each data operation, or fails
    /// them.
    fn slowed(inner: Io, delay: Duration, fail: bool) -> Io {
        inner.intercept(move |req: Req| {
            if req.kind != OpKind::Fsync {
                if fail {
                    return Err(io::Error::other("injected failure"));
                }
                std::thread::sleep(delay);
            }
            Ok(req)
        })
    }

    /// Children whose engines wait `delay` before each data operation
    /// (those in `slow`) or fail them (those in `failing`).
    #[derive(Clone, Serialize, Deserialize)]
    struct Slowed {
        slow: Vec<usize>,
        delay: Duration,
        failing: Vec<usize>,
    }

    impl Workers for Slowed {
        const KIND: &'static str = "test-iozone-slowed";
        type Payload = (Plan, Slowed);
        type Worker = ChildWorker;
        fn workers((plan, s): &(Plan, Slowed), range: Range<usize>) -> Result<Vec<ChildWorker>> {
            ChildWorker::group(plan, range, &|role, i, need| {
                s.make(plan.engine, role, i, need)
            })
        }
    }

    impl Engines for Slowed {
        fn payload(&self, plan: Plan) -> (Plan, Slowed) {
            (plan, self.clone())
        }
        fn make(&self, choice: Choice, role: Role, i: usize, need: Need) -> Result<Io> {
            let delay = if self.slow.contains(&i) {
                self.delay
            } else {
                Duration::ZERO
            };
            Ok(slowed(
                make_io(choice, role, need)?,
                delay,
                self.failing.contains(&i),
            ))
        }
    }

    struct Ran {
        out: Outcome,
        seen: Vec<(u32, Phase)>,
        dir: tempfile::TempDir,
    }

    /// Runs `line` (threads) in a temporary directory; children in `slow`
    /// wait `delay` before each operation, children in `failing` fail.
    fn run_slow(line: &str, slow: &[usize], delay: Duration, failing: &[usize]) -> Ran {
        let cfg = config(line);
        assert!(cfg.threads, "{line}: the tests run threads");
        let dir = tempfile::tempdir().unwrap();
        let kind = Slowed {
            slow: slow.to_vec(),
            delay,
            failing: failing.to_vec(),
        };
        let mut seen = Vec::new();
        let out = run_with(
            &cfg,
            dir.path(),
            Choice::SYNC,
            &kind,
            Duration::ZERO,
            &|_| {},
            &mut |e| {
                if let Event::Phase(n, r) = e {
                    seen.push((n, r.result.phase))
                }
            },
        )
        .unwrap();
        Ran { out, seen, dir }
    }

    fn run_ok(line: &str) -> Ran {
        let r = run_slow(line, &[], Duration::ZERO, &[]);
        assert!(r.out.complete, "{line}: {:?}", r.out.error);
        r
    }

    fn files(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn count(r: &PhaseRun, kind: OpKind) -> u64 {
        r.stats.kind(kind).map_or(0, |k| k.count)
    }

    const SMALL: &str = "-s 64k -r 4k";

    #[test]
    fn three_writers_figures_add_up() {
        // -x: every child counts its whole file (with stonewalling a child
        // that starts late may count nothing at all)
        let r = run_ok(&format!("-t 3 -T -i 0 -x {SMALL}"));
        assert_eq!(r.out.runs.len(), 1);
        let run = &r.out.runs[0];
        assert_eq!(run.children, 3);
        let phases: Vec<Phase> = run.phases.iter().map(|p| p.result.phase).collect();
        assert_eq!(phases, [Phase::InitialWrite, Phase::Rewrite]);
        for p in &run.phases {
            let res = &p.result;
            assert_eq!(res.children.len(), 3);
            let sum: f64 = res.children.iter().map(|c| c.rate).sum();
            assert_eq!(res.children_rate(), sum);
            let actual: f64 = res.children.iter().map(|c| c.actual).sum();
            assert_eq!(actual, 3.0 * 64.0);
            assert_eq!(res.parent_rate(), actual / res.parent_secs);
            for c in &res.children {
                assert_eq!(c.actual, 64.0);
                assert!(c.rate > 0.0, "{c:?}");
                // each child's time lies inside the parent's
                assert!(c.actual / c.rate <= res.parent_secs * 1.0001, "{res:?}");
            }
            // the stats hold exactly the counted records
            let w = p.stats.kind(OpKind::Write).unwrap();
            assert_eq!((w.count, w.bytes), (48, 48 * 4096), "{:?}", res.phase);
            assert_eq!(p.child_times.len(), 3);
            assert!(p.wall_s > 0.0);
        }
        assert_eq!(files(r.dir.path()), Vec::<String>::new(), "files removed");
        assert_eq!(r.seen, vec![(3, Phase::InitialWrite), (3, Phase::Rewrite)]);
    }

    #[test]
    fn stonewall_stops_the_counting_of_the_slow_children() {
        let slow = [1, 2];
        let delay = Duration::from_millis(5);
        let line = format!("-t 3 -T -i 0 -i 1 -i 6 -i 7 -+n -w {SMALL}");
        let r = run_slow(&line, &slow, delay, &[]);
        assert!(r.out.complete, "{:?}", r.out.error);
        let run = &r.out.runs[0];
        let got: Vec<Phase> = run.phases.iter().map(|p| p.result.phase).collect();
        assert_eq!(
            got,
            [
                Phase::InitialWrite,
                Phase::Read,
                Phase::Fwrite,
                Phase::Fread
            ]
        );
        let (write, read) = (&run.phases[0], &run.phases[1]);
        for p in [write, read] {
            let c = &p.result.children;
            assert_eq!(c[0].actual, 64.0, "{:?}", p.result);
            for s in slow {
                assert!(c[s].actual < 64.0, "{:?}", p.result);
            }
            assert_eq!(p.result.min_xfer(), c[1].actual.min(c[2].actual));
        }
        // only the counted records are in the stats
        let reads: f64 = read.result.children.iter().map(|c| c.actual).sum();
        assert_eq!(count(read, OpKind::Read) as f64, reads / 4.0);
        let writes: f64 = write.result.children.iter().map(|c| c.actual).sum();
        assert_eq!(count(write, OpKind::Write) as f64, writes / 4.0);
        // fwrite and fread never look at the flag: whole files
        for p in &run.phases[2..] {
            for c in &p.result.children {
                assert_eq!(c.actual, 64.0, "{:?}", p.result);
            }
        }
        // the writers finished their files uncounted
        for i in 0..3 {
            let f = r.dir.path().join(format!("iozone.DUMMY.{i}"));
            assert_eq!(std::fs::metadata(f).unwrap().len(), 64 * 1024);
        }

        // -x: no stonewall, every child counts its whole file
        let r = run_slow(
            &format!("-t 3 -T -i 0 -i 1 -+n -x {SMALL}"),
            &slow,
            delay,
            &[],
        );
        assert!(r.out.complete, "{:?}", r.out.error);
        for p in &r.out.runs[0].phases {
            for c in &p.result.children {
                assert_eq!(c.actual, 64.0, "{:?}", p.result);
            }
            assert_eq!(count(p, OpKind::Write) + count(p, OpKind::Read), 48);
        }
    }

    #[test]
    fn no_retests_skip_rewrite_and_reread() {
        let r = run_ok(&format!("-t 2 -T -i 0 -i 1 -+n {SMALL}"));
        let got: Vec<Phase> = r.seen.iter().map(|s| s.1).collect();
        assert_eq!(got, [Phase::InitialWrite, Phase::Read]);
        let r = run_ok(&format!("-t 2 -T -i 0 -i 1 {SMALL}"));
        let got: Vec<Phase> = r.seen.iter().map(|s| s.1).collect();
        assert_eq!(
            got,
            [
                Phase::InitialWrite,
                Phase::Rewrite,
                Phase::Read,
                Phase::Reread
            ]
        );
    }

    #[test]
    fn every_phase_runs_in_iozones_order() {
        let r = run_ok(&format!("-t 2 -T -E -e -c -x {SMALL}"));
        let got: Vec<Phase> = r.seen.iter().map(|s| s.1).collect();
        assert_eq!(got, Phase::ALL.to_vec());
        for p in &r.out.runs[0].phases {
            let ph = p.result.phase;
            for c in &p.result.children {
                assert!(c.actual > 0.0 && c.rate > 0.0, "{ph:?}: {c:?}");
            }
            // -e and -c: one fsync and one close per child (none for
            // fread: fflush of a read stream issues nothing)
            let fsyncs = if ph == Phase::Fread { 0 } else { 2 };
            assert_eq!(count(p, OpKind::Fsync), fsyncs, "{ph:?}");
            assert_eq!(count(p, OpKind::Close), 2, "{ph:?}");
        }
        for p in &r.out.runs[0].phases {
            for c in &p.result.children {
                assert_eq!(c.actual, 64.0, "{:?}", p.result.phase);
            }
        }
        assert!(files(r.dir.path()).is_empty());
    }

    #[test]
    fn mixed_workload_splits_readers_and_writers() {
        let readers = |n: u32, pct| -> Vec<usize> {
            (0..n as usize)
                .filter(|&i| mixed_reader(i, n, pct))
                .collect()
        };
        assert_eq!(readers(4, None), [0, 2]);
        assert_eq!(readers(4, Some(25)), [0]);
        assert_eq!(readers(4, Some(100)), [0, 1, 2, 3]);
        assert_eq!(readers(3, Some(50)), [0], "⌊50·3/100⌋ = 1");
        let r = run_ok(&format!("-t 2 -T -i 0 -i 8 -+n -x {SMALL}"));
        let mixed = &r.out.runs[0].phases[1];
        assert_eq!(mixed.result.phase, Phase::Mixed);
        assert_eq!(count(mixed, OpKind::Read), 16);
        assert_eq!(count(mixed, OpKind::Write), 16);
    }

    #[test]
    fn keep_files_with_w_and_make_them_without_i_0() {
        let r = run_ok(&format!("-t 2 -T -i 0 -w {SMALL}"));
        assert_eq!(files(r.dir.path()), ["iozone.DUMMY.0", "iozone.DUMMY.1"]);
        // no -i 0: the files are written untimed first, then removed
        let r = run_ok(&format!("-t 2 -T -i 1 -+n -x {SMALL}"));
        let read = &r.out.runs[0].phases[0];
        assert_eq!(read.result.phase, Phase::Read);
        assert_eq!(count(read, OpKind::Write), 0);
        assert_eq!(count(read, OpKind::Read), 32);
        assert!(files(r.dir.path()).is_empty());
    }

    #[test]
    fn a_file_that_was_there_is_left_alone() {
        let cfg = config(&format!("-t 1 -T -i 0 -+n -F mine {SMALL}"));
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("mine"), b"x").unwrap();
        let out = run(
            &cfg,
            dir.path(),
            Choice::SYNC,
            Duration::ZERO,
            &|_| {},
            &mut |_| {},
        )
        .unwrap();
        assert!(out.complete);
        assert_eq!(files(dir.path()), ["mine"]);
    }

    #[test]
    fn table_has_a_row_per_phase_and_a_value_per_child_count() {
        let cfg = config(&format!("-l 1 -u 3 -T -i 0 {SMALL}"));
        let r = run_ok(&format!("-l 1 -u 3 -T -i 0 {SMALL}"));
        assert_eq!(r.out.runs.len(), 3);
        let t = table(&cfg, &ThroughputRun::all(&r.out, false));
        assert_eq!(t.reclen_kb, 4);
        assert!(t.threads);
        let rows: Vec<Phase> = t.rows.iter().map(|r| r.phase).collect();
        assert_eq!(rows, [Phase::InitialWrite, Phase::Rewrite]);
        for (i, row) in t.rows.iter().enumerate() {
            assert_eq!(row.values.len(), 3);
            for (j, v) in row.values.iter().enumerate() {
                assert_eq!(*v, r.out.runs[j].phases[i].result.children_rate());
            }
        }
        let text = report::throughput_excel_text(&t);
        assert!(text.contains("\"  Initial write \""), "{text}");
    }

    #[test]
    fn an_io_error_stops_the_run_and_removes_the_files() {
        let r = run_slow(&format!("-t 2 -T -i 0 {SMALL}"), &[], Duration::ZERO, &[1]);
        assert!(!r.out.complete && !r.out.interrupted);
        let e = r.out.error.unwrap();
        assert!(e.contains("Initial write with 2 threads"), "{e}");
        assert!(e.contains("injected failure"), "{e}");
        assert!(r.out.runs.is_empty());
        assert!(files(r.dir.path()).is_empty());
    }

    #[test]
    fn phase_text_adds_cpu_and_child_lines() {
        let r = run_ok(&format!("-t 2 -T -i 0 -+n -O {SMALL}"));
        let p = &ThroughputPhase::of(&r.out.runs[0].phases[0], true);
        let plain = phase_text(&config("-t 2 -T -O"), p);
        assert!(plain.contains("\tChildren see throughput for  2 initial writers \t= "));
        assert!(plain.contains(" ops/sec\n"));
        assert!(plain.contains("per thread"));
        assert!(!plain.contains("CPU"));
        let c = phase_text(&config("-t 2 -T -O -C"), p);
        assert!(c.contains("\tChild[1] xfer count = "), "{c}");
        assert!(!c.contains("wall="));
        let u = phase_text(&config("-t 2 -T -O -C -+u"), p);
        let cpu_line = u.lines().find(|l| l.contains("CPU")).expect("a CPU line");
        assert!(
            cpu_line.starts_with("\tCPU Utilization: Wall time "),
            "{cpu_line}"
        );
        assert!(u.contains(" %\n\n\tChild[0] xfer count = "), "{u}");
        assert!(u.contains(" ops/sec, wall="), "{u}");
        assert!(u.contains(", %="), "{u}");
        // the CPU line follows "Min xfer", as in IOzone
        let min = u.find("Min xfer").unwrap();
        assert!(min < u.find("CPU Utilization").unwrap());
    }

    #[test]
    fn cpu_utilisation_line_matches_iozone() {
        let mut pr = PhaseRun {
            result: PhaseResult {
                phase: Phase::Read,
                children: vec![ChildResult {
                    rate: 10.0,
                    actual: 5.0,
                }],
                parent_secs: 0.5,
            },
            stats: WorkerStats::default(),
            cpu: CpuTimes::default(),
            wall_s: 2.0,
            child_times: vec![ChildTimes {
                wall_s: 2.0,
                cpu: CpuTimes {
                    user: Duration::from_millis(300),
                    sys: Duration::from_millis(200),
                    ..Default::default()
                },
            }],
        };
        let cfg = config("-t 1 -+u -C");
        let t = phase_text(&cfg, &ThroughputPhase::of(&pr, true));
        // every phase but the initial writers: a small u (IOzone's spelling)
        assert!(t.contains(
            "\tCPU utilization: Wall time    2.000    CPU time    0.500    CPU utilization  25.00 %\n\n"
        ), "{t}");
        assert!(t.contains(
            "\tChild[0] xfer count =       5.00 kB, Throughput =      10.00 kB/sec, wall= 2.000, cpu= 0.500, %= 25.00\n"
        ), "{t}");
        pr.result.phase = Phase::InitialWrite;
        assert!(
            phase_text(&cfg, &ThroughputPhase::of(&pr, true))
                .contains("\tCPU Utilization: Wall time    2.000 ")
        );
        pr.wall_s = 0.0;
        assert!(
            phase_text(&cfg, &ThroughputPhase::of(&pr, true))
                .contains("\tCPU utilization: Wall time    0.000 ")
        );
    }

    /// The initial write of two children of 8 records each in `dir`.
    fn two_writers(dir: &Path, stonewall: bool) -> Plan {
        Plan {
            phase: phase_number(Phase::InitialWrite),
            children: 2,
            paths: vec![dir.join("a"), dir.join("b")],
            reclen: 4096,
            numrecs: 8,
            engine: Choice::SYNC,
            direct: false,
            sync: false,
            flush: true,
            close: false,
            stonewall,
            stagger_ns: 0,
            stride: 17,
            read_pct: None,
            wall_fd: None,
        }
    }

    #[test]
    fn children_built_from_the_decoded_plan_measure_what_threads_do() {
        // without stonewalling every child counts its whole file, so
        // children built alone (as processes are) and together agree
        let dir = tempfile::tempdir().unwrap();
        let plan = two_writers(dir.path(), false);
        let threads = runner::run_workers::<Children>(
            StopRule::default(),
            &plan,
            2,
            Placement::Threads,
            &NoProgress,
            &NoWatch,
        )
        .unwrap();
        let bytes = serde_json::to_vec(&plan).unwrap();
        let back: Plan = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(serde_json::to_vec(&back).unwrap(), bytes);
        let alone: Vec<Box<dyn Worker>> = (0..2)
            .map(|i| runner::workers::build::<Children>(&bytes, i).unwrap())
            .collect();
        let alone = runner::run(StopRule::default(), alone, &NoProgress);
        for o in [&threads, &alone] {
            assert!(o.complete, "{:?}", o.error);
            let w = o.stats.kind(OpKind::Write).unwrap();
            assert_eq!((w.count, w.bytes), (16, 16 * 4096));
            assert_eq!(o.stats.kind(OpKind::Fsync).unwrap().count, 2);
            let t: Vec<Tally> = o.records().into_iter().map(Option::unwrap).collect();
            assert!(t.iter().all(|t| t.done && t.counted == 8), "{t:?}");
        }
    }

    #[test]
    fn a_child_process_worker_builds_from_its_payload() {
        // the parent's side of a process run, without the exec: the plan
        // crosses as bytes and the flag as an inherited descriptor
        let dir = tempfile::tempdir().unwrap();
        let mem = procs::SharedMem::create(c"test-stonewall", 64).unwrap();
        let plan = Plan {
            wall_fd: Some(mem.fd()),
            ..two_writers(dir.path(), true)
        };
        let payload = serde_json::to_vec(&plan).unwrap();
        let workers: Vec<Box<dyn Worker>> = (0..2)
            .map(|i| runner::workers::build::<Children>(&payload, i).unwrap())
            .collect();
        let o = runner::run(StopRule::default(), workers, &NoProgress);
        assert!(o.complete, "{:?}", o.error);
        let flag = Stonewall::Shared(mem);
        assert!(
            flag.flag().load(Ordering::Relaxed),
            "the first to finish raised it"
        );
        let t: Vec<Tally> = o.records().into_iter().map(Option::unwrap).collect();
        assert!(t.iter().all(|t| t.done && t.wall_ns > 0), "{t:?}");
        // the first to finish counted its 8 records (the other may have
        // been stonewalled before its first)
        assert_eq!(t.iter().map(|t| t.counted).max(), Some(8), "{t:?}");
        for f in ["a", "b"] {
            assert_eq!(
                std::fs::metadata(dir.path().join(f)).unwrap().len(),
                8 * 4096
            );
        }
        assert!(runner::workers::build::<Children>(b"{}", 0).is_err());
    }

    #[test]
    fn refuses_what_it_cannot_run() {
        let dir = tempfile::tempdir().unwrap();
        let go = |cfg: &Config| {
            run(
                cfg,
                dir.path(),
                Choice::NULL,
                Duration::ZERO,
                &|_| {},
                &mut |_| {},
            )
        };
        assert!(go(&config("-i 0")).is_err(), "not throughput mode");
        let mut c = config("-t 2");
        c.unit = Unit::UsPerOp;
        let e = go(&c).unwrap_err().to_string();
        assert!(e.contains("-N"), "{e}");
    }

    #[test]
    fn the_null_engine_runs_every_phase_without_files() {
        let cfg = config("-t 3 -T -E -s 1m -r 64k -d 10");
        let dir = tempfile::tempdir().unwrap();
        let mut n = 0;
        let out = run(
            &cfg,
            dir.path(),
            Choice::NULL,
            Duration::ZERO,
            &|_| {},
            &mut |e| {
                if matches!(e, Event::Phase(..)) {
                    n += 1
                }
            },
        )
        .unwrap();
        assert!(out.complete, "{:?}", out.error);
        assert_eq!(n, 13);
        assert!(files(dir.path()).is_empty());
    }
}
