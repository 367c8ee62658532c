//! One Sdet load point: N script runners, each in its own directory with
//! its own small set of sources (made untimed), run scripts back to back
//! for a set time; the throughput is the scripts completed per hour.
//!
//! ```text
//!   Setup: one directory per runner, 8 sources of 2–8 KiB each (untimed)
//!   runner (processes, or threads): N × { while next_request: one script }
//!     a script: K commands drawn from the mix (script.rs), each op recorded,
//!     then its own leftover files removed; the whole recorded as a
//!     transaction (its latency: the script's time)
//!   the work directory is removed
//! ```
//!
//! A script under way when the time is up is abandoned: only scripts
//! completed within the measured time count.

use super::Sdet;
use super::script::{self, Command};
use crate::error::UsageError;
use crate::measure::clock::now_ns;
use crate::measure::{LatencySummary, OpKind};
use crate::report::RunResult;
use crate::runner::{self, Ctx, Placement, Progress, StopRule, Worker};
use crate::session::Setup;
use crate::workload::{Prng, below, worker_rng};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Sources each script runner starts with.
pub const SOURCES: usize = 8;
/// Size range of a source, bytes.
pub const SOURCE_MIN: u64 = 2 * 1024;
pub const SOURCE_MAX: u64 = 8 * 1024;
/// Size range of a file made by `create`, bytes.
pub const CREATE_MIN: u64 = 1024;
pub const CREATE_MAX: u64 = 8 * 1024;
/// Compile CPU per byte of source read, by default (1 µs: a 10 KiB
/// compile burns 10 ms).
pub const DEFAULT_CPU_NS_PER_BYTE: u64 = 1000;
/// Most CPU per byte accepted (a 10 KiB compile would burn 10 s).
pub const MAX_CPU_NS_PER_BYTE: u64 = 1_000_000;
/// Formatting costs this fraction of compiling, per byte.
pub const FORMAT_CPU_DIVISOR: u64 = 4;
/// Most concurrent scripts.
pub const MAX_SCRIPTS: usize = 4096;
/// The name of a script runner in the runner's process mode.
pub const PROCESS_KIND: &str = "sdet-script";

/// How Sdet runs, beside the concurrency and the duration of a point.
#[derive(Clone, Debug)]
pub struct Options {
    /// Commands per script.
    pub commands: usize,
    /// Compile CPU per byte of source read, ns.
    pub cpu_ns_per_byte: u64,
    pub seed: u64,
    /// Script runners as processes (the default) or threads.
    pub processes: bool,
    /// Parent of the work directory.
    pub dir: PathBuf,
}

impl Options {
    /// The defaults: 30 commands, 1 µs of compile CPU per byte, seed 1,
    /// processes.
    pub fn new(dir: &Path) -> Options {
        Options {
            commands: script::DEFAULT_COMMANDS,
            cpu_ns_per_byte: DEFAULT_CPU_NS_PER_BYTE,
            seed: 1,
            processes: true,
            dir: dir.to_path_buf(),
        }
    }

    /// Refuse what cannot run, naming the flag to change.
    pub fn check(&self) -> Result<(), String> {
        if !(script::MIN_COMMANDS..=script::MAX_COMMANDS).contains(&self.commands) {
            return Err(format!(
                "--commands {}: a script has {} to {} commands (fewer leave a delete with no file of its own)",
                self.commands,
                script::MIN_COMMANDS,
                script::MAX_COMMANDS
            ));
        }
        if self.cpu_ns_per_byte > MAX_CPU_NS_PER_BYTE {
            return Err(format!(
                "--cpu-ns-per-byte {}: at most {MAX_CPU_NS_PER_BYTE} (a 10 KiB compile would burn 10 s)",
                self.cpu_ns_per_byte
            ));
        }
        Ok(())
    }

    /// The most one runner's directory holds: its sources, an object and
    /// a formatted copy of each, and every command of a script making an
    /// 8 KiB file.
    fn bytes_per_runner(&self) -> u64 {
        let sources = SOURCES as u64 * SOURCE_MAX;
        // an object holds half of up to three sources
        let objects = SOURCES as u64 * SOURCE_MAX * 3 / 2;
        sources + objects + sources + self.commands as u64 * CREATE_MAX.max(SOURCE_MAX)
    }
}

/// What a script runner is built from (the process mode's payload).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// Each runner's directory.
    pub dirs: Vec<PathBuf>,
    pub commands: usize,
    pub cpu_ns_per_byte: u64,
    pub seed: u64,
}

/// Each script runner has its own directory and draws: they share nothing.
impl runner::Workers for Sdet {
    const KIND: &'static str = PROCESS_KIND;
    type Payload = Plan;
    type Worker = ScriptRunner;
    fn workers(p: &Plan, range: std::ops::Range<usize>) -> Result<Vec<ScriptRunner>> {
        range.map(|i| ScriptRunner::new(p, i)).collect()
    }
}

fn source_name(i: usize) -> String {
    format!("src{i}.c")
}

/// `len` bytes of text: lowercase words, spaces and lines of about 60.
fn text(rng: &mut Prng, len: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(len);
    let mut col = 0;
    while v.len() < len {
        let r = below(rng, 64) as u8;
        let c = if col >= 56 && r < 16 {
            b'\n'
        } else if r < 10 {
            b' '
        } else {
            b'a' + r % 26
        };
        col = if c == b'\n' { 0 } else { col + 1 };
        v.push(c);
    }
    if let Some(last) = v.last_mut() {
        *last = b'\n';
    }
    v
}

/// Make runner `index`'s directory and sources under `parent` (untimed).
fn make_sources(dir: &Path, seed: u64, index: usize) -> Result<()> {
    std::fs::create_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // a stream apart from the scripts' (seed + 1 of the same worker)
    let mut rng = worker_rng(seed.wrapping_add(0x5DE7), index);
    for i in 0..SOURCES {
        let len = SOURCE_MIN + below(&mut rng, SOURCE_MAX - SOURCE_MIN + 1);
        let p = dir.join(source_name(i));
        std::fs::write(&p, text(&mut rng, len as usize))
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(())
}

/// The untimed prepare: each runner's directory and sources under `work`.
/// `None` when Ctrl-C arrived meanwhile.
fn prepare(o: &Options, workers: usize, work: &Path) -> Result<Option<Plan>> {
    let mut dirs = Vec::with_capacity(workers);
    for i in 0..workers {
        if runner::signals::interrupted() {
            return Ok(None);
        }
        let d = work.join(format!("script.{i}"));
        make_sources(&d, o.seed, i)?;
        dirs.push(d);
    }
    Ok(Some(Plan {
        dirs,
        commands: o.commands,
        cpu_ns_per_byte: o.cpu_ns_per_byte,
        seed: o.seed,
    }))
}

/// Count, total and longest time of one command, over a runner's run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    pub count: u64,
    pub total_ns: u64,
    pub max_ns: u64,
}

impl Tally {
    fn add(&mut self, ns: u64) {
        self.count += 1;
        self.total_ns += ns;
        self.max_ns = self.max_ns.max(ns);
    }

    fn merge(&mut self, o: &Tally) {
        self.count += o.count;
        self.total_ns += o.total_ns;
        self.max_ns = self.max_ns.max(o.max_ns);
    }
}

/// What a runner hands back: its commands' tallies and scripts abandoned.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Record {
    tallies: [Tally; 8],
    abandoned: u64,
}

const KINDS: &[OpKind] = &[
    OpKind::Read,
    OpKind::Write,
    OpKind::Create,
    OpKind::Delete,
    OpKind::Stat,
    OpKind::Readdir,
    OpKind::Cpu,
    OpKind::Transaction,
];

/// One script runner: scripts back to back in its own directory.
pub struct ScriptRunner {
    dir: PathBuf,
    sources: Vec<PathBuf>,
    rng: Prng,
    commands: usize,
    cpu_ns_per_byte: u64,
    /// Files this script made (create, copy) and has not deleted.
    made: Vec<PathBuf>,
    /// Files made so far, for new names.
    serial: u64,
    record: Record,
}

impl ScriptRunner {
    pub fn new(p: &Plan, index: usize) -> Result<ScriptRunner> {
        let dir = p
            .dirs
            .get(index)
            .with_context(|| format!("script runner {index} has no directory in the plan"))?
            .clone();
        let sources = (0..SOURCES).map(|i| dir.join(source_name(i))).collect();
        Ok(ScriptRunner {
            dir,
            sources,
            rng: worker_rng(p.seed, index),
            commands: p.commands,
            cpu_ns_per_byte: p.cpu_ns_per_byte,
            made: Vec::new(),
            serial: 0,
            record: Record::default(),
        })
    }

    fn pick_source(&mut self) -> usize {
        below(&mut self.rng, SOURCES as u64) as usize
    }

    fn pick_path(&mut self) -> PathBuf {
        let i = self.pick_source();
        self.sources[i].clone()
    }

    fn read(&self, ctx: &mut Ctx, p: &Path) -> Result<Vec<u8>> {
        let t = now_ns();
        let data = std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?;
        let done = now_ns();
        ctx.record_op(OpKind::Read, done - t, data.len() as u64, done);
        Ok(data)
    }

    /// Create (or truncate) `p` and write `data`: a create, then a write.
    fn write_new(&self, ctx: &mut Ctx, p: &Path, data: &[u8]) -> Result<()> {
        let t = now_ns();
        let mut f =
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?;
        let mid = now_ns();
        ctx.record_op(OpKind::Create, mid - t, 0, mid);
        f.write_all(data)
            .with_context(|| format!("cannot write {}", p.display()))?;
        drop(f);
        let done = now_ns();
        ctx.record_op(OpKind::Write, done - mid, data.len() as u64, done);
        Ok(())
    }

    fn stat(&self, ctx: &mut Ctx, p: &Path) -> Result<u64> {
        let t = now_ns();
        let m =
            std::fs::symlink_metadata(p).with_context(|| format!("cannot stat {}", p.display()))?;
        let done = now_ns();
        ctx.record_op(OpKind::Stat, done - t, 0, done);
        Ok(m.len())
    }

    fn delete(&self, ctx: &mut Ctx, p: &Path) -> Result<()> {
        let t = now_ns();
        std::fs::remove_file(p).with_context(|| format!("cannot remove {}", p.display()))?;
        let done = now_ns();
        ctx.record_op(OpKind::Delete, done - t, 0, done);
        Ok(())
    }

    /// Burn the CPU of `bytes` at `per_byte` ns each, recorded as CPU.
    fn burn(&self, ctx: &mut Ctx, bytes: u64, per_byte: u64) {
        let ns = bytes.saturating_mul(per_byte);
        if ns == 0 {
            return;
        }
        let t = now_ns();
        script::burn(ns, &|| ctx.stopped());
        let done = now_ns();
        ctx.record_op(OpKind::Cpu, done - t, 0, done);
    }

    fn new_name(&mut self) -> PathBuf {
        self.serial += 1;
        self.dir.join(format!("tmp.{}", self.serial))
    }

    fn exec(&mut self, ctx: &mut Ctx, c: Command) -> Result<()> {
        match c {
            Command::Edit => {
                let p = self.pick_path();
                let mut data = self.read(ctx, &p)?;
                // change 1–64 bytes at one place, as a small edit
                let n = 1 + below(&mut self.rng, 64) as usize;
                let at = below(&mut self.rng, data.len().saturating_sub(n).max(1) as u64) as usize;
                let new = text(&mut self.rng, n);
                let end = (at + n).min(data.len());
                data[at..end].copy_from_slice(&new[..end - at]);
                // the editor writes the whole buffer back
                let t = now_ns();
                std::fs::write(&p, &data)
                    .with_context(|| format!("cannot write {}", p.display()))?;
                let done = now_ns();
                ctx.record_op(OpKind::Write, done - t, data.len() as u64, done);
            }
            Command::Compile => {
                let first = self.pick_source();
                let n = 1 + below(&mut self.rng, 3) as usize;
                let mut bytes = 0u64;
                for k in 0..n {
                    let p = self.sources[(first + k) % SOURCES].clone();
                    bytes += self.read(ctx, &p)?.len() as u64;
                }
                self.burn(ctx, bytes, self.cpu_ns_per_byte);
                let obj = self.dir.join(format!("src{first}.o"));
                let code = text(&mut self.rng, (bytes / 2).max(1) as usize);
                self.write_new(ctx, &obj, &code)?;
            }
            Command::Format => {
                let i = self.pick_source();
                let src = self.sources[i].clone();
                let data = self.read(ctx, &src)?;
                self.burn(
                    ctx,
                    data.len() as u64,
                    self.cpu_ns_per_byte / FORMAT_CPU_DIVISOR,
                );
                // nroff-like: each line's first letter capitalised
                let mut out = data;
                let mut start = true;
                for b in out.iter_mut() {
                    if start && b.is_ascii_lowercase() {
                        *b = b.to_ascii_uppercase();
                    }
                    start = *b == b'\n';
                }
                self.write_new(ctx, &self.dir.join(format!("src{i}.fmt")), &out)?;
            }
            Command::Copy => {
                let src = self.pick_path();
                let data = self.read(ctx, &src)?;
                let p = self.new_name();
                self.write_new(ctx, &p, &data)?;
                self.made.push(p);
            }
            Command::Create => {
                let len = CREATE_MIN + below(&mut self.rng, CREATE_MAX - CREATE_MIN + 1);
                let data = text(&mut self.rng, len as usize);
                let p = self.new_name();
                self.write_new(ctx, &p, &data)?;
                self.made.push(p);
            }
            Command::Delete => {
                // a script's deletes always follow a file of its own (script.rs)
                if !self.made.is_empty() {
                    let i = below(&mut self.rng, self.made.len() as u64) as usize;
                    let p = self.made.swap_remove(i);
                    self.delete(ctx, &p)?;
                }
            }
            Command::List => {
                let t = now_ns();
                let names: Vec<PathBuf> = std::fs::read_dir(&self.dir)
                    .and_then(|rd| rd.map(|e| e.map(|e| e.path())).collect())
                    .with_context(|| format!("cannot list {}", self.dir.display()))?;
                let done = now_ns();
                ctx.record_op(OpKind::Readdir, done - t, 0, done);
                for p in &names {
                    self.stat(ctx, p)?;
                }
            }
            Command::Misc => {
                let p = self.pick_path();
                self.stat(ctx, &p)?;
                let data = self.read(ctx, &p)?;
                std::hint::black_box(data.iter().filter(|&&b| b == b'\n').count());
            }
        }
        Ok(())
    }

    /// Run one script, recorded as a transaction; `Ok(false)` when the run
    /// stopped in the middle of it (it is abandoned, and the runner is done).
    fn script(&mut self, ctx: &mut Ctx) -> Result<bool> {
        let cmds = script::script(self.commands, &mut self.rng);
        let t0 = now_ns();
        let mut done_all = true;
        for c in cmds {
            if ctx.stopped() {
                done_all = false;
                break;
            }
            let t = now_ns();
            self.exec(ctx, c)?;
            self.record.tallies[c.index()].add(now_ns() - t);
        }
        // the script tidies up what it made and did not delete
        for p in std::mem::take(&mut self.made) {
            if done_all {
                self.delete(ctx, &p)?;
            } else {
                let _ = std::fs::remove_file(&p);
            }
        }
        if !done_all {
            self.record.abandoned += 1;
            return Ok(false);
        }
        let done = now_ns();
        ctx.record_op(OpKind::Transaction, done - t0, 0, done);
        Ok(true)
    }
}

impl Worker for ScriptRunner {
    fn kinds(&self) -> &[OpKind] {
        KINDS
    }

    /// One script a transaction.
    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        ctx.transact(|ctx| self.script(ctx))
    }

    fn finish(&mut self) -> serde_json::Value {
        serde_json::to_value(&self.record).unwrap_or_default()
    }
}

/// One command's figures over a point.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "sdetCommand")]
pub struct CommandFigures {
    /// The command (`edit`, `compile`, ...).
    pub command: String,
    /// Its share of the mix (the table), 0 to 1.
    pub share: f64,
    /// Times it ran.
    pub count: u64,
    /// Its mean time, ns.
    pub mean_ns: f64,
    /// Its longest time, ns.
    pub max_ns: u64,
}

/// The figures of a load point: its result's `metrics`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "sdetPoint")]
pub struct Figures {
    /// Scripts completed in the measured time.
    pub scripts: u64,
    /// Scripts completed per hour.
    pub scripts_per_hour: f64,
    /// Mean time of a completed script, s.
    pub mean_script_s: f64,
    /// Median script time, s.
    pub p50_script_s: f64,
    /// 90th percentile of the script times, s.
    pub p90_script_s: f64,
    /// 99th percentile of the script times, s.
    pub p99_script_s: f64,
    /// Share of the script runners' time inside I/O calls.
    pub io_time_fraction: f64,
    /// Concurrent scripts.
    pub scripts_at_once: usize,
    /// Scripts under way when the time was up (not counted).
    pub abandoned_scripts: u64,
    /// Each command of the mix, in the table's order.
    pub commands: Vec<CommandFigures>,
    /// The scripts' times, ns (`mean`, `stddev`, `min`, `max`, `p50` ...
    /// `p9999`; absent when none was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Value>")]
    pub script_time_ns: Option<LatencySummary>,
}

/// What a point's result holds in `config`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointPlan {
    pub scripts_at_once: usize,
    pub duration_s: f64,
    pub commands_per_script: usize,
    pub cpu_ns_per_byte: u64,
    pub format_cpu_ns_per_byte: u64,
    pub seed: u64,
    /// `processes` or `threads`.
    pub workers_as: String,
    pub sources_per_script_runner: usize,
    /// The smallest and largest source, bytes.
    pub source_bytes: [u64; 2],
    /// Each command's share of the mix, percent.
    pub mix_percent: BTreeMap<String, u32>,
}

/// What a point gives.
pub struct Report {
    /// The document `--json` writes for this point.
    pub result: RunResult,
    pub figures: Figures,
}

/// Run `workers` concurrent scripts for `duration`, as `o` says. Nothing is
/// left behind.
pub fn run_point(
    o: &Options,
    workers: usize,
    duration: Duration,
    progress: &dyn Progress,
) -> Result<Report> {
    o.check().map_err(UsageError)?;
    if workers == 0 || workers > MAX_SCRIPTS {
        return Err(
            UsageError::new(format!("{workers} concurrent scripts: 1 to {MAX_SCRIPTS}")).into(),
        );
    }
    if duration.is_zero() {
        return Err(UsageError::new("--duration must be longer than 0").into());
    }
    let config = PointPlan {
        scripts_at_once: workers,
        duration_s: duration.as_secs_f64(),
        commands_per_script: o.commands,
        cpu_ns_per_byte: o.cpu_ns_per_byte,
        format_cpu_ns_per_byte: o.cpu_ns_per_byte / FORMAT_CPU_DIVISOR,
        seed: o.seed,
        workers_as: workers_as(o.processes).to_string(),
        sources_per_script_runner: SOURCES,
        source_bytes: [SOURCE_MIN, SOURCE_MAX],
        mix_percent: script::MIX
            .iter()
            .map(|(c, p)| (c.name().to_string(), *p))
            .collect(),
    };
    let session = Setup::new("sdet", &o.dir)
        .data(o.bytes_per_runner() * workers as u64)
        .workers(workers, 4, o.processes)
        .config(config)
        .begin()?;
    progress.status(&format!(
        "making {workers} script directories of {SOURCES} sources (untimed)"
    ));
    let Some(plan) = prepare(o, workers, session.dir())? else {
        return Ok(Report {
            result: session.interrupted(),
            figures: Figures::default(),
        });
    };
    let rule = StopRule {
        duration: Some(duration),
        ..Default::default()
    };
    progress.status(&format!("{workers} concurrent scripts"));
    let outcome = runner::run_workers::<Sdet>(
        rule,
        &plan,
        workers,
        Placement::of(o.processes),
        progress,
        &runner::NoWatch,
    )?;
    let mut result = session.finish(&outcome);
    let mut record = Record::default();
    for r in outcome.records::<Record>().into_iter().flatten() {
        for (a, b) in record.tallies.iter_mut().zip(&r.tallies) {
            a.merge(b);
        }
        record.abandoned += r.abandoned;
    }
    let figures = figures(&outcome, &result, workers, &record);
    result.set_figures(&figures);
    Ok(Report { result, figures })
}

fn figures(
    outcome: &runner::Outcome,
    result: &RunResult,
    workers: usize,
    record: &Record,
) -> Figures {
    let commands = Command::ALL
        .iter()
        .map(|&c| {
            let t = &record.tallies[c.index()];
            CommandFigures {
                command: c.name().to_string(),
                share: script::share(c),
                count: t.count,
                mean_ns: if t.count > 0 {
                    t.total_ns as f64 / t.count as f64
                } else {
                    0.0
                },
                max_ns: t.max_ns,
            }
        })
        .collect();
    let mut f = Figures {
        scripts_at_once: workers,
        io_time_fraction: result.summary.io_time_fraction,
        abandoned_scripts: record.abandoned,
        commands,
        ..Default::default()
    };
    if let Some(k) = outcome
        .stats
        .kind(OpKind::Transaction)
        .filter(|k| k.count > 0)
    {
        let s = |ns: u64| ns as f64 / 1e9;
        f.scripts = k.count;
        f.scripts_per_hour = if result.elapsed_s > 0.0 {
            k.count as f64 * 3600.0 / result.elapsed_s
        } else {
            0.0
        };
        f.mean_script_s = k.mean_ns() / 1e9;
        f.p50_script_s = s(k.percentile_ns(50.0));
        f.p90_script_s = s(k.percentile_ns(90.0));
        f.p99_script_s = s(k.percentile_ns(99.0));
    }
    f.script_time_ns = outcome.stats.kind(OpKind::Transaction).map(|k| k.summary());
    f
}

/// How a point runs its scripts, as its config says it.
pub fn workers_as(processes: bool) -> &'static str {
    if processes { "processes" } else { "threads" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_in_threads_completes_scripts_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let o = Options {
            processes: false,
            commands: 12,
            cpu_ns_per_byte: 100,
            ..Options::new(dir.path())
        };
        let rep = run_point(&o, 2, Duration::from_millis(300), &runner::NoProgress).unwrap();
        let f = &rep.figures;
        assert!(f.scripts > 0, "{f:?}");
        assert!(f.scripts_per_hour > 0.0);
        assert!(f.mean_script_s > 0.0);
        let total: u64 = f.commands.iter().map(|c| c.count).sum();
        assert!(total >= f.scripts * 12, "{f:?}");
        assert!(rep.result.ops.contains_key("cpu"));
        assert!(rep.result.ops.contains_key("readdir"));
        assert_eq!(rep.result.ops["transaction"].count, f.scripts);
        assert_eq!(rep.result.figures::<Figures>().unwrap(), *f);
        assert!(rep.result.error.is_none(), "{:?}", rep.result.error);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn runners_built_from_the_serialized_payload_make_the_same_draws() {
        let dir = tempfile::tempdir().unwrap();
        let o = Options {
            commands: 12,
            cpu_ns_per_byte: 0,
            ..Options::new(dir.path())
        };
        let plan = prepare(&o, 2, dir.path()).unwrap().unwrap();
        let bytes = serde_json::to_vec(&plan).unwrap();
        let rule = StopRule {
            ops: Some(200),
            ..Default::default()
        };
        let mut group = <Sdet as runner::Workers>::workers(&plan, 0..2).unwrap();
        let alone = runner::workers::build::<Sdet>(&bytes, 1).unwrap();
        // both runners draw their scripts and commands from their own rng
        let a = runner::run(rule, vec![group.pop().unwrap()], &runner::NoProgress);
        for d in &plan.dirs {
            std::fs::remove_dir_all(d).unwrap();
        }
        let plan = prepare(&o, 2, dir.path()).unwrap().unwrap();
        assert_eq!(serde_json::to_vec(&plan).unwrap(), bytes);
        let b = runner::run(rule, vec![alone], &runner::NoProgress);
        assert!(a.complete && b.complete, "{:?} {:?}", a.error, b.error);
        for k in KINDS {
            let n = |o: &runner::Outcome| o.stats.kind(*k).map_or(0, |s| s.count);
            assert_eq!(n(&a), n(&b), "{k:?}");
        }
        assert!(a.stats.kind(OpKind::Transaction).unwrap().count > 0);
        let counts = |o: &runner::Outcome| -> Vec<u64> {
            let r = o.records::<Record>().remove(0).unwrap();
            r.tallies.iter().map(|t| t.count).collect()
        };
        assert_eq!(counts(&a), counts(&b));
        assert!(runner::workers::build::<Sdet>(&bytes, 2).is_err());
    }

    #[test]
    fn bad_options_are_refused() {
        let o = Options::new(Path::new("."));
        o.check().unwrap();
        let bad: [fn(&mut Options); 3] = [
            |o| o.commands = script::MIN_COMMANDS - 1,
            |o| o.commands = script::MAX_COMMANDS + 1,
            |o| o.cpu_ns_per_byte = MAX_CPU_NS_PER_BYTE + 1,
        ];
        for change in bad {
            let mut b = o.clone();
            change(&mut b);
            assert!(b.check().is_err(), "{b:?}");
        }
    }
}
