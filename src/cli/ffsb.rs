//! `iogauge ffsb PROFILE`: FFSB 6.0-rc2 profiles, FFSB's report, and
//! iogauge's latency percentiles and JSON.

use super::common::{self, OutputArgs, Status};
use super::survey::{Ctx, Row};
use crate::engine::Choice;
use crate::error::UsageError;
use crate::measure::Outcome as RunOutcome;
use crate::report::{RunResult, now_rfc3339};
use crate::suites::ffsb::bench::{self, Options, Tell};
use crate::suites::ffsb::profile::{Op, Profile};
use crate::suites::ffsb::results::Outcome;
use crate::suites::ffsb::{parse, report};
use anyhow::Result;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// FFSB: file sets built (and aged) before the run, then thread groups
/// running weighted mixes of fifteen file operations for a fixed time,
/// as an FFSB 6.0 profile file describes them.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The FFSB profile file (examples/ffsb/ has FFSB's own and models of real loads).
    #[arg(value_name = "PROFILE")]
    pub profile: PathBuf,
    /// Put every file system of the profile here instead of its `location` (one file system: DIR itself; several: DIR/fs0, DIR/fs1, …, made by the run). DIR must exist.
    #[arg(long, value_name = "DIR")]
    pub location: Option<PathBuf>,
    /// Run for this long instead of the profile's `time` (e.g. 10s; 0 builds the file sets only).
    #[arg(long, value_name = "DURATION", value_parser = common::duration_arg)]
    pub time: Option<std::time::Duration>,
    /// Seed of every thread's random bytes, used as FFSB uses its own (FFSB reads them from /dev/urandom, so its runs cannot be repeated; iogauge's can).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Let `agefs=1` fill the file system up to `desired_util` (without it such a profile is refused).
    #[arg(long)]
    pub allow_aging: bool,
    /// The most aging may write (K, M, G are powers of 1024); a target that needs more is refused.
    #[arg(long, value_name = "SIZE", default_value = "4G", value_parser = common::size_arg)]
    pub max_age_bytes: u64,
    /// I/O engine ('iogauge engines' describes each).
    #[arg(long, value_name = "NAME", value_parser = engine_arg)]
    pub engine: Option<Choice>,
    #[command(flatten)]
    pub load: super::common::LoadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub check: common::CheckArgs,
}

impl super::Cmd for Args {
    const DEFAULT_ENGINE: Option<&'static str> = Some("psync");
    // FFSB's file sets need real files: not null
    const ENGINES: Option<&'static [Choice]> =
        Some(&[Choice::PSYNC, Choice::SYNC, Choice::BUFFERED]);
    fn main(self) -> Result<Status> {
        main(self)
    }
    fn output(&self) -> Option<OutputArgs> {
        Some(self.out.clone())
    }
}

fn engine_arg(s: &str) -> Result<Choice, String> {
    common::engine_among(s, <Args as super::Cmd>::ENGINES.unwrap_or_default())
}

/// The profile as the run will use it: parsed, relocated, its time set.
fn load(a: &Args) -> Result<Profile> {
    let mut p = parse::load(&a.profile).map_err(|e| UsageError::new(e.to_string()))?;
    if let Some(dir) = &a.location {
        p.relocate(dir);
    }
    if let Some(t) = a.time {
        p.time = u32::try_from(t.as_secs()).unwrap_or(u32::MAX);
        if p.time == 0 && !t.is_zero() {
            crate::usage!("--time {t:?}: FFSB's time is whole seconds; give at least 1s");
        }
    }
    Ok(p)
}

/// Prints FFSB's lines as the run goes.
struct Live<'a>(&'a OutputArgs);
impl Tell for Live<'_> {
    fn say(&self, line: &str) {
        self.0.say(&format!("{line}\n"));
    }
}

/// The utilisation of the file system holding `path` (or its nearest
/// existing parent): used blocks over all blocks.
fn util(path: &Path) -> f64 {
    let mut p = path;
    while !p.exists() {
        match p.parent() {
            Some(q) => p = q,
            None => return 0.0,
        }
    }
    match rustix::fs::statvfs(p) {
        Ok(s) if s.f_blocks > 0 => (s.f_blocks - s.f_bfree) as f64 / s.f_blocks as f64,
        _ => 0.0,
    }
}

/// Everything before the run: the version, time, warnings, each thread
/// group's and file system's settings.
fn settings(p: &Profile) -> String {
    let mut s = report::opening(p);
    for w in &p.warnings {
        s += w;
        s.push('\n');
    }
    s += &report::groups_config(p);
    for fs in &p.filesystems {
        s += &report::fs_config(p, fs, util(&fs.location));
    }
    s
}

pub fn main(a: Args) -> Result<Status> {
    if let Some(dir) = &a.location {
        crate::runner::workdir::check_dir(dir)
            .map_err(|e| UsageError::new(e.at(&format!("--location {}", dir.display()))))?;
    }
    let profile = load(&a)?;
    let mut paths = common::Paths::new();
    paths.input(format!("the profile {}", a.profile.display()), &a.profile);
    for fs in &profile.filesystems {
        for sub in ["data", "meta"] {
            let d = fs.location.join(sub);
            paths.removed(d.display().to_string(), &d);
        }
        if fs.run_makes_location {
            paths.removed(fs.location.display().to_string(), &fs.location);
        }
    }
    a.out.check_with(&mut paths)?;
    let engine = a.engine.unwrap_or(Choice::PSYNC);
    crate::engine::EngineSpec::new(engine)
        .direct(profile.directio)
        .check()
        .map_err(UsageError)?;
    let o = Options {
        profile,
        seed: a.seed,
        max_age_bytes: a.max_age_bytes,
        allow_aging: a.allow_aging,
        engine,
        pace: a.load.pace(a.seed)?,
    };
    bench::check(&o).map_err(UsageError)?;
    if a.check.check {
        return Ok(common::checked(&a.profile.display().to_string()));
    }
    let started = now_rfc3339();
    a.out.say(&settings(&o.profile));
    let outcome = match bench::run(&o, &Live(&a.out)) {
        Ok(x) => x,
        Err(e) if !crate::error::is_usage(&e) => {
            // the file sets could not be made: the result says why
            let mut r = begun(&o, started);
            r.complete = false;
            r.error = Some(crate::error::cause(&e));
            return common::finish(&a.out, &r, "");
        }
        Err(e) => return Err(e),
    };
    let result = result_of(&o, &outcome, started);
    let mut text = String::new();
    if o.profile.time > 0 {
        text += &report::results(&o.profile, &outcome);
        if let Some(ol) = &result.summary.open_loop {
            text += &format!(
                "\niogauge extension, not FFSB: open loop, {:.1} operations/s offered ({} arrivals), {:.1} issued, {} never issued; FFSB's latencies above are service times, the response times are in the JSON\n",
                ol.rate_offered,
                o.pace.arrivals.name(),
                ol.rate_issued,
                ol.missed
            );
        } else if let Some(t) = o.pace.think {
            text += &format!(
                "\niogauge extension, not FFSB: each thread thinks {t:?} ({}) before each operation\n",
                o.pace.arrivals.name()
            );
        }
        text += &report::details(&outcome);
    } else {
        text += "Setup complete, exiting\n";
    }
    common::finish(&a.out, &result, &text)
}

/// iogauge's result: the run's system calls as op kinds, and in `metrics`
/// FFSB's figures per thread group and in total, with each operation's
/// latency percentiles.
fn result_of(o: &Options, out: &Outcome, started: String) -> RunResult {
    let run = RunOutcome {
        stats: out.stats.clone(),
        per_worker: Vec::new(),
        // every thread of every thread group
        workers: o
            .profile
            .threadgroups
            .iter()
            .map(|t| t.num_threads as usize)
            .sum(),
        worker_ns: 0,
        elapsed: out.elapsed,
        cpu: out.cpu,
        complete: out.complete,
        interrupted: out.interrupted,
        error: out.error.as_ref().map(|e| anyhow::anyhow!("{e}")),
        extras: vec![Value::Null],
        failures: vec![None],
    };
    let mut r = begun(o, started).with_outcome(&run);
    let secs = out.elapsed.as_secs_f64().max(f64::MIN_POSITIVE);
    let mut total = crate::suites::ffsb::results::GroupResult::new(0);
    let mut groups = Vec::new();
    for g in &out.groups {
        groups.push(group_json(g, secs));
        total.merge(g);
    }
    let t = group_json(&total, secs);
    r.metric("transactions_per_s", t["transactions_per_s"].clone());
    r.metric("read_bytes_per_s", t["read_bytes_per_s"].clone());
    r.metric("write_bytes_per_s", t["write_bytes_per_s"].clone());
    r.metric("total", t);
    r.metric("threadgroups", groups);
    r.metric(
        "filesystems",
        out.setup
            .iter()
            .map(|f| {
                json!({
                    "location": f.location,
                    "reused": f.reused,
                    "files": f.files,
                    "bytes": f.bytes,
                    "aged_bytes": f.aged_bytes,
                    "util_before": f.util_before,
                    "util_after": f.util_after,
                    "setup_s": f.secs,
                })
            })
            .collect::<Vec<_>>(),
    );
    r
}

/// The result as the run began: its configuration and environment.
fn begun(o: &Options, started: String) -> RunResult {
    let p = &o.profile;
    let first = p
        .filesystems
        .first()
        .map_or_else(|| PathBuf::from("."), |f| f.location.clone());
    let env = crate::env::detect(&existing(&first));
    let config = json!({
        "profile": p.source,
        "seed": o.seed,
        "engine": o.engine,
        "max_age_bytes": o.max_age_bytes,
        "allow_aging": o.allow_aging,
        "pace": o.pace,
        "settings": p,
    });
    RunResult::new("ffsb", config, env, started)
}

/// The nearest existing directory at or above `p`.
fn existing(p: &Path) -> PathBuf {
    let mut q = p.to_path_buf();
    while !q.exists() {
        match q.parent() {
            Some(x) => q = x.to_path_buf(),
            None => return PathBuf::from("."),
        }
    }
    q
}

/// One thread group's (or the total's) figures: per operation, FFSB's
/// counters, shares and throughput, and the latency of one operation.
fn group_json(g: &crate::suites::ffsb::results::GroupResult, secs: f64) -> Value {
    let tx: u64 = g.ops.iter().map(|o| o.transactions).sum();
    let inv: u64 = g.ops.iter().map(|o| o.invocations).sum();
    let read: u64 = g.ops.iter().map(|o| o.read_bytes).sum();
    let written: u64 = g.ops.iter().map(|o| o.write_bytes).sum();
    let mut ops = serde_json::Map::new();
    for op in Op::ALL {
        let o = g.op(op);
        if o.invocations == 0 {
            continue;
        }
        ops.insert(
            op.name().into(),
            json!({
                "transactions": o.transactions,
                "transactions_per_s": o.transactions as f64 / secs,
                "trans_share": o.transactions as f64 / tx.max(1) as f64,
                "invocations": o.invocations,
                "op_weight_share": o.invocations as f64 / inv.max(1) as f64,
                "read_bytes": o.read_bytes,
                "write_bytes": o.write_bytes,
                "bytes_per_s": (o.read_bytes + o.write_bytes) as f64 / secs,
                "latency_ns": o.latency.summary(),
            }),
        );
    }
    let calls: serde_json::Map<String, Value> = g
        .calls
        .iter()
        .map(|(k, c)| {
            (
                k.name().to_string(),
                json!({
                    "calls": c.calls,
                    "min_ns": if c.calls > 0 { c.min_ns } else { 0 },
                    "max_ns": c.max_ns,
                    "mean_ns": c.total_ns as f64 / c.calls.max(1) as f64,
                    "buckets": c.buckets,
                }),
            )
        })
        .collect();
    json!({
        "threads": g.threads,
        "transactions": tx,
        "transactions_per_s": tx as f64 / secs,
        "read_bytes_per_s": read as f64 / secs,
        "write_bytes_per_s": written as f64 / secs,
        "ops": ops,
        "syscalls": calls,
    })
}

/// The short form: a small file set of 16–64 KiB files and a mixed
/// four-thread group (reads, whole-file reads, writes, creates, appends,
/// deletes, stats) for a few seconds, in the survey's directory.
pub fn survey(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let secs = if ctx.quick { 2 } else { 5 };
    let text = format!(
        "# iogauge survey: a small mixed file-server load\ntime={secs}\ndirectio=0\n[filesystem0]\n\tlocation={}\n\tnum_files={}\n\tnum_dirs=10\n\tmin_filesize=16k\n\tmax_filesize=64k\n[end0]\n[threadgroup0]\n\tnum_threads=4\n\tread_weight=4\n\treadall_weight=2\n\twrite_weight=2\n\tcreate_weight=1\n\tappend_weight=1\n\tdelete_weight=1\n\tstat_weight=1\n\tread_size=16k\n\tread_blocksize=4k\n\twrite_size=16k\n\twrite_blocksize=4k\n[end0]\n",
        "survey",
        if ctx.quick { 200 } else { 1000 }
    );
    let mut profile = parse::parse(&text, Path::new("survey.ffsb"))
        .map_err(|e| anyhow::anyhow!("internal error: the survey's profile: {e}"))?;
    // the location: a work directory of the survey's own, gone at the end
    let work = crate::runner::WorkDir::create(ctx.dir, "ffsb-survey")
        .map_err(|e| UsageError::new(e.to_string()))?;
    profile.filesystems[0].location = work.path().to_path_buf();
    let o = Options {
        profile,
        seed: 1,
        max_age_bytes: 0,
        allow_aging: false,
        engine: Choice::PSYNC,
        pace: crate::runner::Pace::default(),
    };
    bench::check(&o).map_err(UsageError)?;
    let started = now_rfc3339();
    let out = bench::run(&o, &bench::Quiet)?;
    let result = result_of(&o, &out, started);
    let tps = result.metrics["transactions_per_s"].as_f64().unwrap_or(0.0);
    emit(Row::new(
        "ffsb (mixed small files, 4 threads)",
        tps,
        "tx/s",
        result,
    ));
    Ok(())
}
