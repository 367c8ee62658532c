//! The controller (the paper's `iomain`): lay out the files, start U users
//! (processes by default, threads on request), open the start gate, stop them
//! after the duration, and collect what they measured — also when a user
//! dies (it is counted as failed; the locks it held are given back) and when
//! Ctrl-C or SIGTERM arrives (every user is stopped within a second, user
//! processes that do not stop are killed, files are removed).

use super::config::Config;
use super::result::IoBench;
use super::server::{Server, ServerEnd};
use super::shm::{self, Shm};
use super::user::{self, Plan, User, UserRecord, UserThread};
use crate::engine::Choice;
use crate::error::UsageError;
use crate::measure::CpuTimes;
use crate::runner::names::{self, Place};
use crate::runner::{self, Placement, Progress, StopRule, Watch, signals};
use crate::session::{Session, Setup};
use anyhow::{Context, Result};
use serde::Serialize;
use std::io::Write;
use std::ops::Range;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How users run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// One process per user, as IOBENCH's `iouser` (iogauge re-executes
    /// itself in a hidden worker mode).
    Processes,
    /// One thread per user, in the controller's process.
    Threads,
}

impl Mode {
    /// What users are, as the reports say it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Processes => "processes",
            Mode::Threads => "threads",
        }
    }
}

/// A metering command run in the background for the whole run (`-u`).
#[derive(Clone, Debug)]
pub struct Metering {
    pub command: String,
    pub file: PathBuf,
}

/// One IOBENCH run: the parameters and how to run them.
#[derive(Clone, Debug)]
pub struct RunSpec {
    pub config: Config,
    /// The engine (`sync` by default: lseek + read/write, as IOBENCH).
    pub engine: Choice,
    pub direct: bool,
    pub mode: Mode,
    /// Overrides DURATION (minutes).
    pub duration: Option<Duration>,
    /// Parent of the work directory.
    pub dir: PathBuf,
    pub seed: u64,
    /// Record lock holders beside the lock manager and count overlaps.
    pub verify_locks: bool,
    pub metering: Option<Metering>,
    /// Variant 1: locking is done in the ioserver process.
    pub server: bool,
    /// `--allow-outside`: an absolute FILEk makes a new file there.
    pub allow_outside: bool,
    /// `--allow-existing`: an absolute FILEk may name a file that exists,
    /// used as it is.
    pub allow_existing: bool,
}

impl RunSpec {
    /// The given config, threads or processes, the default engine, for `duration`.
    pub fn new(config: Config, mode: Mode, duration: Option<Duration>, dir: &Path) -> Self {
        RunSpec {
            config,
            engine: Choice::SYNC,
            direct: false,
            mode,
            duration,
            dir: dir.to_path_buf(),
            seed: 1,
            verify_locks: false,
            metering: None,
            server: false,
            allow_outside: false,
            allow_existing: false,
        }
    }

    pub fn duration(&self) -> Duration {
        self.duration
            .unwrap_or_else(|| Duration::from_secs_f64(self.config.duration * 60.0))
    }
}

/// A user's end: its record, and why it failed if it did.
#[derive(Debug)]
pub struct UserEnd {
    pub record: UserRecord,
    /// `None`: completed normally.
    pub failure: Option<String>,
}

/// The lock manager's counters of one file.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct FileLockStats {
    pub taken: u64,
    pub max_active: u32,
}

/// What a run did, for the reports.
pub struct Run {
    pub spec: RunSpec,
    pub plan: Plan,
    pub users: Vec<UserEnd>,
    pub locks: Vec<FileLockStats>,
    pub started_at: String,
    pub started_unix: i64,
    /// The measured interval: the start gate to the last user's end.
    pub elapsed: Duration,
    pub complete: bool,
    pub interrupted: bool,
    /// Why the run failed as a whole (all users failed).
    pub error: Option<String>,
    /// CPU of the timed phase: controller and users.
    pub cpu: CpuTimes,
    pub controller_rss_kib: u64,
    pub cp_load_s: f64,
    pub violations: Option<u64>,
    pub environment: crate::env::Environment,
    /// The paths as the results file prints them.
    pub paths: Vec<PathBuf>,
    /// Users set up but never started (interrupted during set-up).
    pub started: bool,
    /// Variant 1: what the ioserver did.
    pub server: Option<ServerEnd>,
}

impl Run {
    /// IOBENCH's variant: 1 with locking in the ioserver, else 0.
    pub fn variant(&self) -> u32 {
        u32::from(self.spec.server)
    }
}

/// Files the run created outside its work directory (FILEk paths that did
/// not exist): removed when dropped, and only those.
struct Created(Vec<PathBuf>);

impl Drop for Created {
    fn drop(&mut self) {
        for p in self.0.iter().rev() {
            if let Err(e) = std::fs::remove_file(p)
                && e.kind() != std::io::ErrorKind::NotFound
            {
                eprintln!("iogauge: could not remove {}: {e}", p.display());
            }
        }
    }
}

/// The metering command, in a process group of its own so that the whole
/// pipeline (`sh -c 'vmstat 1'`) stops with it.
struct Meter(Option<Child>);

impl Meter {
    fn start(m: &Metering) -> Result<Meter> {
        let out = std::fs::File::create(&m.file)
            .with_context(|| format!("cannot create the usage file {}", m.file.display()))?;
        let err = out.try_clone()?;
        let child = Command::new("sh")
            .arg("-c")
            .arg(&m.command)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0)
            .spawn()
            .with_context(|| format!("cannot run the metering command '{}'", m.command))?;
        Ok(Meter(Some(child)))
    }

    fn stop(&mut self) {
        let Some(mut c) = self.0.take() else { return };
        let pg = c.id() as libc::pid_t;
        // SAFETY: signalling the process group we created for the meter.
        unsafe { libc::killpg(pg, libc::SIGTERM) };
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(1) {
            if let Ok(Some(_)) = c.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // SAFETY: as above.
        unsafe { libc::killpg(pg, libc::SIGKILL) };
        let _ = c.wait();
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        self.stop();
    }
}

/// File units per user: all F files when descriptors allow.
fn file_units(mode: Mode, users: u32, files: u32, limit: u64) -> u32 {
    let spare = limit.saturating_sub(64);
    let per = match mode {
        Mode::Threads => spare / users as u64,
        Mode::Processes => spare,
    };
    per.clamp(1, files as u64) as u32
}

/// Estimated memory of the users' records, to refuse what cannot fit.
fn user_bytes(plan: &Plan) -> u64 {
    let kinds = 2
        + u64::from(plan.config.writes > 0)
        + u64::from(plan.locking)
        + u64::from(plan.work_per_read > 0)
        + 2 * u64::from(plan.units < plan.config.files);
    kinds * crate::measure::compact::BUCKETS as u64 * 4
        + plan.config.files as u64 * 80
        + plan.series_secs as u64 * 16
        + 64 * 1024
        + plan.config.reclen as u64
}

/// Create and fill the files that do not exist (untimed). Returns false
/// when Ctrl-C arrived meanwhile.
fn layout(paths: &[(PathBuf, bool)], bytes: u64, seed: u64, created: &mut Created) -> Result<bool> {
    const CHUNK: usize = 1 << 20;
    let mut buf = vec![0u8; CHUNK.min(bytes as usize).max(1)];
    crate::data::fill_random(&mut buf, seed);
    let mut chunk_no = 0u64;
    for (p, create) in paths {
        if !create {
            continue;
        }
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(p)
            .with_context(|| format!("cannot create {}", p.display()))?;
        created.0.push(p.clone());
        let mut left = bytes;
        while left > 0 {
            if signals::interrupted() {
                return Ok(false);
            }
            for blk in buf.chunks_mut(4096) {
                if blk.len() >= 16 {
                    blk[8..16].copy_from_slice(&chunk_no.to_le_bytes());
                }
            }
            chunk_no += 1;
            let n = left.min(buf.len() as u64) as usize;
            f.write_all(&buf[..n])
                .with_context(|| format!("cannot write {}", p.display()))?;
            left -= n as u64;
        }
        f.sync_all()
            .with_context(|| format!("cannot fsync {}", p.display()))?;
    }
    Ok(true)
}

/// Decide each file's path and whether the run creates it, by the one
/// rule of [`names::place`]: FILEk is a file in the work directory; an
/// absolute FILEk only with `--allow-outside`, and one that exists only
/// with `--allow-existing` (it must then be a regular file large enough).
/// Files the control file does not name go into the work directory
/// (`None` here, `FILEk` there); the bytes the run creates outside it are
/// returned per directory.
#[allow(clippy::type_complexity)]
fn plan_paths(
    spec: &RunSpec,
    fake: bool,
) -> Result<(Vec<Option<(Place, bool)>>, Vec<(PathBuf, u64)>)> {
    let cfg = &spec.config;
    let need = cfg.file_bytes();
    let allow = names::Allow {
        outside: Some(("--allow-outside", spec.allow_outside)),
        existing: Some(("--allow-existing", spec.allow_existing)),
    };
    let mut out = Vec::with_capacity(cfg.files as usize);
    let mut per_dir: Vec<(PathBuf, u64)> = Vec::new();
    let mut placed: Vec<(String, Place)> = Vec::new();
    let mut defaults: Vec<(String, Place)> = Vec::new();
    for k in 0..cfg.files {
        let Some(s) = cfg.paths.get(&k) else {
            let default = Place::Work(PathBuf::from(format!("FILE{k}")));
            defaults.push((format!("file {k}'s default name FILE{k}"), default));
            out.push(None);
            continue;
        };
        let what = cfg
            .path_origins
            .get(&k)
            .cloned()
            .unwrap_or_else(|| format!("FILE{k} = {s}"));
        let place = names::place(&what, Path::new(s), allow).map_err(UsageError)?;
        placed.push((what.clone(), place.clone()));
        let create = match &place {
            Place::Work(_) => !fake,
            Place::Outside { path, exists } => {
                if *exists {
                    let len = std::fs::metadata(path).map_or(0, |m| m.len());
                    if len < need {
                        crate::usage!(
                            "{what}: the file holds {len} bytes, fewer than NRECS × RECLEN = {need}; iogauge does not grow files it did not create: name another"
                        );
                    }
                } else if !fake {
                    let dir = crate::runner::names::dir_of(path).to_path_buf();
                    match per_dir.iter_mut().find(|(d, _)| *d == dir) {
                        Some((_, n)) => *n += need,
                        None => per_dir.push((dir, need)),
                    }
                }
                !exists && !fake
            }
        };
        out.push(Some((place, create)));
    }
    // a clash names the control file's line, after the default it meets
    names::distinct(defaults.iter().chain(&placed).map(|(w, p)| (w.as_str(), p)))
        .map_err(UsageError)?;
    Ok((out, per_dir))
}

/// What the controller waits for between phases.
fn wait_interruptible(d: Duration) -> bool {
    let end = Instant::now() + d;
    while Instant::now() < end {
        if signals::interrupted() {
            return false;
        }
        std::thread::sleep((end - Instant::now()).min(Duration::from_millis(20)));
    }
    !signals::interrupted()
}

/// Run IOBENCH as `spec` says. Everything the run created is gone when this
/// returns; the result says whether it completed.
pub fn execute(spec: &RunSpec, progress: &dyn Progress) -> Result<Run> {
    let cfg = &spec.config;
    check(spec)?;
    let started_unix = unix_now();
    let (work, files) = begin(spec)?;
    let plan = user_plan(spec, &files, work.dir());
    check_memory(&plan, work.environment())?;
    let mut created = Created(Vec::new());
    let mut run = Run {
        spec: spec.clone(),
        plan: plan.clone(),
        users: Vec::new(),
        locks: vec![FileLockStats::default(); cfg.files as usize],
        started_at: work.started_at().to_string(),
        started_unix,
        elapsed: Duration::ZERO,
        complete: false,
        interrupted: false,
        error: None,
        cpu: CpuTimes::default(),
        controller_rss_kib: 0,
        cp_load_s: user::cp_load_per_cycle(cfg.work),
        violations: None,
        environment: work.environment().clone(),
        paths: plan.paths.clone(),
        started: false,
        server: None,
    };
    let Some(shm) = prepare(&plan, &files, spec.seed, &mut created)?.map(Arc::new) else {
        run.interrupted = true;
        return Ok(run);
    };
    let mut meter = match &spec.metering {
        Some(m) => Meter::start(m)?,
        None => Meter(None),
    };
    // START minutes before the users start (the paper's start delay)
    if cfg.start > 0.0 && !wait_interruptible(Duration::from_secs_f64(cfg.start * 60.0)) {
        run.interrupted = true;
        return Ok(run);
    }
    let server = if spec.server {
        Some(Server::start(&shm, cfg.users, plan.sleep_ns > 0)?)
    } else {
        None
    };
    let payload = UserPayload {
        plan,
        shm_fd: shm.fd(),
        processes: spec.mode == Mode::Processes,
    };
    let outcome = run_users(spec, &payload, &shm, server.as_ref(), progress)?;
    let stopped = Instant::now();
    run.server = server.map(Server::finish);
    collect(&mut run, &outcome);
    end_delay(&run, &mut meter, stopped);
    read_locks(&mut run, &shm);
    settle(&mut run);
    drop(shm);
    drop(created);
    drop(work);
    Ok(run)
}

/// The untimed prepare: create and fill the files the run makes, then the
/// lock manager's region the users share. `None` when Ctrl-C arrived
/// meanwhile.
fn prepare(
    plan: &Plan,
    files: &[(PathBuf, bool)],
    seed: u64,
    created: &mut Created,
) -> Result<Option<Shm>> {
    let c = &plan.config;
    if !layout(files, c.file_bytes(), seed, created)? {
        return Ok(None);
    }
    let shm_locks = if plan.locking || plan.verify {
        plan.locks
    } else {
        0
    };
    let shm = Shm::create(c.users, c.files, shm_locks, plan.verify, b"")
        .context("cannot make the shared memory region")?;
    Ok(Some(shm))
}

/// Refuse what cannot run, before anything is made.
fn check(spec: &RunSpec) -> Result<()> {
    let cfg = &spec.config;
    if spec.server && !cfg.locking() {
        crate::usage!(
            "--server does the locking in the ioserver, and SLEEP = -1 turns locking off: drop one of them"
        );
    }
    let engine = crate::engine::EngineSpec::new(spec.engine).direct(spec.direct);
    engine
        .aligned("--direct: RECLEN", u64::from(cfg.reclen))
        .and_then(|()| engine.check())
        .map_err(UsageError)?;
    if spec.duration().is_zero() {
        crate::usage!("the duration must be longer than 0");
    }
    Ok(())
}

/// Begin the session (the work directory, the space checks) and decide
/// each file's path and whether the run creates it.
fn begin(spec: &RunSpec) -> Result<(Session, Vec<(PathBuf, bool)>)> {
    let cfg = &spec.config;
    let fake = spec.engine.is_fake();
    let (named, elsewhere) = plan_paths(spec, fake)?;
    let in_work = named.iter().filter(|n| n.is_none()).count() as u64;
    let mut setup = Setup::new("iobench", &spec.dir)
        .data(in_work * cfg.file_bytes())
        .fake(fake)
        .workers(
            cfg.users as usize,
            cfg.files as u64,
            spec.mode == Mode::Processes,
        );
    for (d, n) in &elsewhere {
        setup = setup.also(d, *n);
    }
    let session = setup.begin()?;
    let files = named
        .into_iter()
        .enumerate()
        .map(|(k, n)| match n {
            Some((place, create)) => (place.path_in(session.dir()), create),
            None => (session.dir().join(format!("FILE{k}")), !fake),
        })
        .collect();
    Ok((session, files))
}

/// What every user needs to know.
fn user_plan(spec: &RunSpec, files: &[(PathBuf, bool)], work_dir: &Path) -> Plan {
    let cfg = &spec.config;
    let nofile = crate::runner::limits::raise_nofile();
    Plan {
        config: cfg.clone(),
        locks: cfg.effective_locks(),
        locking: cfg.locking(),
        sleep_ns: (cfg.sleep.max(0.0) * 1e9) as u64,
        work_per_read: cfg.work_per_read(),
        paths: files.iter().map(|(p, _)| p.clone()).collect(),
        engine: spec.engine,
        direct: spec.direct,
        seed: spec.seed,
        units: file_units(spec.mode, cfg.users, cfg.files, nofile),
        series_secs: spec.duration().as_secs() as usize + 3,
        work_dir: work_dir.to_path_buf(),
        verify: spec.verify_locks,
        server: spec.server,
    }
}

/// Refuse users whose records would take more than half the memory.
fn check_memory(plan: &Plan, env: &crate::env::Environment) -> Result<()> {
    let need = user_bytes(plan) * plan.config.users as u64;
    if env.memory_bytes > 0 && need > env.memory_bytes / 2 {
        crate::usage!(
            "USERS = {} with FILES = {} needs about {} for the users' records, more than half the memory ({}); use fewer users or files",
            plan.config.users,
            plan.config.files,
            crate::units::fmt_bytes(need),
            crate::units::fmt_bytes(env.memory_bytes)
        );
    }
    Ok(())
}

/// Start the users (threads or processes), open the gate, stop them after
/// the duration and wait for them.
fn run_users(
    spec: &RunSpec,
    payload: &UserPayload,
    shm: &Shm,
    server: Option<&Server>,
    progress: &dyn Progress,
) -> Result<runner::Outcome> {
    let rule = StopRule {
        duration: Some(spec.duration()),
        // the users finish the transaction in hand: END minutes (at least
        // 5 s) before they are hurried, and as processes killed
        grace: Some(Duration::from_secs_f64((spec.config.end * 60.0).max(5.0))),
        ..Default::default()
    };
    let placement = match spec.mode {
        Mode::Threads => Placement::Threads,
        Mode::Processes => Placement::Processes {
            inherit: &[payload.shm_fd],
        },
    };
    runner::run_workers::<IoBench>(
        rule,
        payload,
        payload.plan.config.users as usize,
        placement,
        progress,
        &LockWatch(shm, server),
    )
}

/// Each user's end from the runner's outcome: its record, or a failed one
/// when it left none.
fn collect(run: &mut Run, outcome: &runner::Outcome) {
    run.interrupted = outcome.interrupted;
    let records = outcome.records::<UserRecord>();
    run.started = !(outcome.interrupted && records.iter().all(Option::is_none));
    run.cpu = outcome.cpu;
    run.elapsed = outcome.elapsed;
    run.users = (0..run.plan.config.users as usize)
        .map(|i| {
            let failure = outcome.failures.get(i).cloned().flatten();
            match records.get(i).cloned().flatten() {
                Some(rec) => UserEnd {
                    failure: rec.error.clone().or(failure),
                    record: rec,
                },
                None => {
                    let why = failure.unwrap_or_else(|| "ended without a record".into());
                    UserEnd {
                        record: UserRecord::failed(&run.plan, i as u32, why.clone()),
                        failure: Some(why),
                    }
                }
            }
        })
        .collect();
}

/// The lock manager's counters, and the lock check's count.
fn read_locks(run: &mut Run, shm: &Shm) {
    for (f, l) in run.locks.iter_mut().enumerate() {
        let c = shm.file(f as u32);
        l.taken = c.taken.load(Ordering::Acquire);
        l.max_active = c.max_active.load(Ordering::Acquire);
    }
    if run.plan.verify {
        run.violations = Some(shm.violations());
    }
}

/// The controller's memory, and how the run ended: never started, failed
/// (the ioserver died, every user failed) or complete.
fn settle(run: &mut Run) {
    run.controller_rss_kib = CpuTimes::now().max_rss_kib;
    if !run.started {
        // interrupted before the gate opened: no user ran, none failed
        run.users.clear();
        run.elapsed = Duration::ZERO;
        run.cpu = CpuTimes {
            max_rss_kib: run.cpu.max_rss_kib,
            ..Default::default()
        };
    }
    let ok = run.users.iter().filter(|u| u.failure.is_none()).count();
    if let Some(s) = run.server.as_ref().filter(|s| s.died.is_some()) {
        run.error = Some(format!(
            "the ioserver (pid {}) died during the run ({}) after {} lock requests; the users stopped with it",
            s.pid,
            s.died.as_deref().unwrap_or_default(),
            s.lock_requests
        ));
    } else if run.started && ok == 0 && !run.interrupted {
        let (who, why) = run
            .users
            .iter()
            .find_map(|u| Some((u.record.user, u.failure.clone()?)))
            .unwrap_or_default();
        run.error = Some(format!("every user failed; user {who}: {why}"));
    }
    run.complete = run.started && !run.interrupted && run.error.is_none();
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The runner's news for the lock manager: hurry wakes lock waiters, a
/// dead user's locks are given back (by the ioserver in Variant 1).
struct LockWatch<'a>(&'a Shm, Option<&'a Server>);

impl Watch for LockWatch<'_> {
    fn hurry(&self) {
        self.0.set_stop(shm::NOW);
        if let Some(s) = self.1 {
            s.hurry();
        }
    }

    fn dead(&self, i: usize) {
        match self.1 {
            Some(s) => s.release(i as u32),
            None => {
                self.0.release_all_of(i as u32);
            }
        }
    }
}

/// END's other use: with metering on, keep it running for the end delay.
fn end_delay(run: &Run, meter: &mut Meter, stopped: Instant) {
    if meter.0.is_some() && !run.interrupted {
        let end = Duration::from_secs_f64(run.spec.config.end * 60.0);
        let left = end.saturating_sub(stopped.elapsed());
        wait_interruptible(left);
    }
    meter.stop();
}

/// The name of IOBENCH's user in the runner's process mode.
pub const PROCESS_KIND: &str = "iobench-user";

/// What every user is built from: the plan, the lock manager's region (a
/// descriptor that user processes inherit and user threads map again) and
/// whether users are processes.
#[derive(Serialize, serde::Deserialize)]
pub struct UserPayload {
    plan: Plan,
    shm_fd: i32,
    processes: bool,
}

/// IOBENCH's users. Those of one call share the plan and one mapping of
/// the region; users built alone share the region itself (it is the
/// lock manager, shared by design), so each may run as a process.
impl runner::Workers for IoBench {
    const KIND: &'static str = PROCESS_KIND;
    type Payload = UserPayload;
    type Worker = UserThread;

    fn workers(p: &UserPayload, range: Range<usize>) -> Result<Vec<UserThread>> {
        // SAFETY: dup of the region's descriptor, which the controller
        // keeps open for the run (and hands down to user processes).
        let fd = unsafe { libc::dup(p.shm_fd) };
        if fd < 0 {
            anyhow::bail!(
                "the lock manager's region was not handed down: {}",
                std::io::Error::last_os_error()
            );
        }
        let shm = Arc::new(Shm::attach(fd).context("cannot map the lock manager's region")?);
        let plan = Arc::new(p.plan.clone());
        range
            .map(|i| {
                let me = i as u32;
                match User::new(Arc::clone(&plan), Arc::clone(&shm), me, p.processes) {
                    Ok(u) => Ok(UserThread::Ready(Box::new(u))),
                    // a process that cannot set up fails as a worker; a
                    // thread hands back its failed record, the others run
                    Err(e) if p.processes => Err(anyhow::Error::msg(e)),
                    Err(e) => Ok(UserThread::Failed(Box::new(UserRecord::failed(
                        &plan, me, e,
                    )))),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::{NoProgress, Worker};

    /// Every user's record of a run: ran, no failure, and its ops add up
    /// to its transactions (3 reads, 1 write, 3 locks each).
    fn cycles_of(o: &runner::Outcome, users: usize) -> Vec<u64> {
        let recs = o.records::<UserRecord>();
        assert_eq!(recs.len(), users);
        recs.into_iter()
            .map(|r| {
                let r = r.expect("a record per user");
                assert_eq!(r.error, None);
                assert!(r.cycles > 0);
                assert_eq!(r.transaction.count, r.cycles);
                assert_eq!(r.read.count, 3 * r.cycles);
                assert_eq!(r.write.as_ref().unwrap().count, r.cycles);
                assert_eq!(r.lock.as_ref().unwrap().count, 3 * r.cycles);
                r.cycles
            })
            .collect()
    }

    /// Users built from the serialized payload, each alone (as a process
    /// builds its own), measure what users built together as threads do,
    /// and take their locks in the same region.
    #[test]
    fn users_are_built_from_the_payload() {
        let dir = tempfile::tempdir().unwrap();
        let spec = RunSpec::new(
            super::super::tests::small(3),
            Mode::Threads,
            None,
            dir.path(),
        );
        let (work, files) = begin(&spec).unwrap();
        let plan = user_plan(&spec, &files, work.dir());
        let mut created = Created(Vec::new());
        let shm = prepare(&plan, &files, 1, &mut created).unwrap().unwrap();
        let payload = UserPayload {
            plan,
            shm_fd: shm.fd(),
            processes: false,
        };
        let bytes = serde_json::to_vec(&payload).unwrap();
        let back: UserPayload = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back.plan, payload.plan);
        assert_eq!((back.shm_fd, back.processes), (shm.fd(), false));

        let rule = StopRule {
            duration: Some(Duration::from_millis(200)),
            ..Default::default()
        };
        let watch = LockWatch(&shm, None);
        let threads = runner::run_workers::<IoBench>(
            rule,
            &payload,
            3,
            Placement::Threads,
            &NoProgress,
            &watch,
        )
        .unwrap();
        let alone: Vec<Box<dyn Worker>> = (0..3)
            .map(|i| runner::workers::build::<IoBench>(&bytes, i).unwrap())
            .collect();
        let apart = runner::run_with(rule, alone, &NoProgress, &watch);
        let cycles: u64 = [threads, apart].iter().flat_map(|o| cycles_of(o, 3)).sum();
        let taken: u64 = (0..3)
            .map(|f| shm.file(f).taken.load(Ordering::Acquire))
            .sum();
        assert_eq!(taken, 3 * cycles);
    }

    #[test]
    fn units_share_the_descriptors() {
        assert_eq!(file_units(Mode::Threads, 1000, 16, 20000), 16);
        assert_eq!(file_units(Mode::Threads, 1000, 16, 1024), 1);
        assert_eq!(file_units(Mode::Threads, 10, 400, 1024), 96);
        assert_eq!(file_units(Mode::Processes, 1000, 16, 1024), 16);
    }
}
