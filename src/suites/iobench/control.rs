//! The controller (the paper's `iomain`): lay out the files, start U users
//! (processes by default, threads on request), open the start gate, stop them
//! after the duration, and collect what they measured — also when a user
//! dies (it is counted as failed; the locks it held are given back) and when
//! Ctrl-C or SIGTERM arrives (every user is stopped within a second, user
//! processes that do not stop are killed, files are removed).

use super::config::Config;
use super::shm::{self, Shm};
use super::user::{self, Plan, UserRecord};
use crate::engine::Choice;
use crate::error::UsageError;
use crate::measure::CpuTimes;
use crate::measure::clock::now_ns;
use crate::runner::{Progress, Setup, signals};
use anyhow::{Context, Result};
use serde::Serialize;
use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How users run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// One process per user, as IOBENCH's `iouser` (iogauge re-executes
    /// itself in a hidden worker mode).
    Processes,
    /// One thread per user, in the controller's process.
    Threads,
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

/// User processes: killed and reaped when dropped, however the run ends.
struct Procs(Vec<Option<Child>>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in self.0.iter_mut().flatten() {
            let _ = c.kill();
            let _ = c.wait();
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
        + u64::from(plan.writes > 0)
        + u64::from(plan.locking)
        + u64::from(plan.work_per_read > 0)
        + 2 * u64::from(plan.units < plan.files);
    kinds * super::hist::BUCKETS as u64 * 4
        + plan.files as u64 * 80
        + plan.series_secs as u64 * 16
        + 64 * 1024
        + plan.reclen as u64
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

/// Decide each file's path and whether the run creates it; check that
/// existing files are regular and large enough. Files the control file does
/// not name go into the work directory (`None` here, `FILEk` there); the
/// bytes the run creates outside it are returned per directory.
#[allow(clippy::type_complexity)]
fn plan_paths(
    cfg: &Config,
    fake: bool,
) -> Result<(Vec<Option<(PathBuf, bool)>>, Vec<(PathBuf, u64)>)> {
    let need = cfg.file_bytes();
    let mut out = Vec::with_capacity(cfg.files as usize);
    let mut per_dir: Vec<(PathBuf, u64)> = Vec::new();
    for k in 0..cfg.files {
        let Some(s) = cfg.paths.get(&k) else {
            out.push(None);
            continue;
        };
        let p = PathBuf::from(s);
        if fake {
            out.push(Some((p, false)));
            continue;
        }
        let create = match std::fs::metadata(&p) {
            Ok(md) => {
                if !md.is_file() {
                    crate::usage!(
                        "FILE{k} = {}: exists and is not a regular file; name a file or a path that does not exist",
                        p.display()
                    );
                }
                if md.len() < need {
                    crate::usage!(
                        "FILE{k} = {}: exists and holds {} bytes, fewer than NRECS × RECLEN = {need}; iogauge does not grow files it did not create: remove it or name another path",
                        p.display(),
                        md.len()
                    );
                }
                false
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let dir = p
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .unwrap_or(Path::new("."))
                    .to_path_buf();
                if !dir.is_dir() {
                    crate::usage!(
                        "FILE{k} = {}: the directory {} does not exist",
                        p.display(),
                        dir.display()
                    );
                }
                match per_dir.iter_mut().find(|(d, _)| *d == dir) {
                    Some((_, n)) => *n += need,
                    None => per_dir.push((dir, need)),
                }
                true
            }
            Err(e) => crate::usage!("FILE{k} = {}: {e}", p.display()),
        };
        out.push(Some((p, create)));
    }
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
    if spec.direct && !(cfg.reclen as usize).is_multiple_of(crate::engine::DIRECT_ALIGN) {
        crate::usage!(
            "--direct needs RECLEN to be a multiple of 4096 (it is {})",
            cfg.reclen
        );
    }
    spec.engine
        .check(&crate::engine::EngineOpts {
            direct: spec.direct,
            max_len: cfg.reclen as usize,
            ..Default::default()
        })
        .map_err(UsageError)?;
    let fake = spec.engine.is_fake();
    let duration = spec.duration();
    if duration.is_zero() {
        crate::usage!("the duration must be longer than 0");
    }
    let started_unix = unix_now();
    let (named, elsewhere) = plan_paths(cfg, fake)?;
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
    let started_at = session.started_at().to_string();
    let environment = session.environment().clone();
    let files: Vec<(PathBuf, bool)> = named
        .into_iter()
        .enumerate()
        .map(|(k, n)| n.unwrap_or_else(|| (session.dir().join(format!("FILE{k}")), !fake)))
        .collect();
    let work = session;
    let nofile = crate::runner::limits::raise_nofile();
    let plan = Plan {
        users: cfg.users,
        files: cfg.files,
        nrecs: cfg.nrecs,
        reclen: cfg.reclen,
        reads: cfg.reads,
        writes: cfg.writes,
        locks: cfg.effective_locks(),
        locking: cfg.locking(),
        sleep_ns: (cfg.sleep.max(0.0) * 1e9) as u64,
        work_per_read: cfg.work_per_read(),
        paths: files.iter().map(|(p, _)| p.clone()).collect(),
        engine: spec.engine,
        direct: spec.direct,
        seed: spec.seed,
        units: file_units(spec.mode, cfg.users, cfg.files, nofile),
        series_secs: duration.as_secs() as usize + 3,
        work_dir: work.dir().to_path_buf(),
        verify: spec.verify_locks,
    };
    let need = user_bytes(&plan) * plan.users as u64;
    if environment.memory_bytes > 0 && need > environment.memory_bytes / 2 {
        crate::usage!(
            "USERS = {} with FILES = {} needs about {} for the users' records, more than half the memory ({}); use fewer users or files",
            cfg.users,
            cfg.files,
            crate::units::fmt_bytes(need),
            crate::units::fmt_bytes(environment.memory_bytes)
        );
    }
    let mut created = Created(Vec::new());
    let mut run = Run {
        spec: spec.clone(),
        plan: plan.clone(),
        users: Vec::new(),
        locks: vec![FileLockStats::default(); cfg.files as usize],
        started_at,
        started_unix,
        elapsed: Duration::ZERO,
        complete: false,
        interrupted: false,
        error: None,
        cpu: CpuTimes::default(),
        controller_rss_kib: 0,
        cp_load_s: user::cp_load_per_cycle(cfg.work),
        violations: None,
        environment,
        paths: plan.paths.clone(),
        started: false,
    };
    if !layout(&files, cfg.file_bytes(), spec.seed, &mut created)? {
        run.interrupted = true;
        return Ok(run);
    }
    let plan_json = serde_json::to_vec(&plan).context("cannot serialise the plan")?;
    let shm_locks = if plan.locking || plan.verify {
        plan.locks
    } else {
        0
    };
    let shm = Shm::create(plan.users, plan.files, shm_locks, plan.verify, &plan_json)
        .context("cannot make the shared memory region")?;
    let meter = match &spec.metering {
        Some(m) => Meter::start(m)?,
        None => Meter(None),
    };
    match spec.mode {
        Mode::Threads => run_threads(&mut run, &shm, meter, progress)?,
        Mode::Processes => run_processes(&mut run, &shm, meter, progress)?,
    }
    for (f, l) in run.locks.iter_mut().enumerate() {
        let c = shm.file(f as u32);
        l.taken = c.taken.load(Ordering::Acquire);
        l.max_active = c.max_active.load(Ordering::Acquire);
    }
    if plan.verify {
        run.violations = Some(shm.violations());
    }
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
    if run.started && ok == 0 && !run.interrupted {
        let (who, why) = run
            .users
            .iter()
            .find_map(|u| Some((u.record.user, u.failure.clone()?)))
            .unwrap_or_default();
        run.error = Some(format!("every user failed; user {who}: {why}"));
    }
    run.complete = run.started && !run.interrupted && run.error.is_none();
    drop(shm);
    drop(created);
    drop(work);
    Ok(run)
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// How the controller looks at its users, whatever they are.
trait Users {
    /// Look again (reap exited processes).
    fn refresh(&mut self, shm: &Shm);
    /// Whether user `i` has ended (exited, or finished its loop).
    fn is_ended(&self, shm: &Shm, i: usize) -> bool;
    /// Force the rest to end (processes are killed; threads cannot be).
    fn kill_rest(&mut self, why: &str);

    fn ended(&mut self, shm: &Shm) -> usize {
        self.refresh(shm);
        (0..shm.users() as usize)
            .filter(|&i| self.is_ended(shm, i))
            .count()
    }
}

/// Wait until every user is ready (or gone). False when interrupted.
fn wait_ready(shm: &Shm, users: &mut dyn Users) -> bool {
    let n = shm.users() as usize;
    loop {
        if signals::interrupted() {
            return false;
        }
        users.refresh(shm);
        let settled = (0..n)
            .filter(|&i| {
                shm.user(i as u32).state.load(Ordering::Acquire) >= shm::STATE_READY
                    || users.is_ended(shm, i)
            })
            .count();
        if settled >= n {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Wait the start delay, open the gate, watch the run, stop it. Returns t0
/// and whether Ctrl-C or SIGTERM arrived.
fn timed_phase(
    run: &mut Run,
    shm: &Shm,
    users: &mut dyn Users,
    progress: &dyn Progress,
) -> (u64, bool) {
    let cfg = &run.spec.config;
    let n = shm.users() as usize;
    if cfg.start > 0.0 && !wait_interruptible(Duration::from_secs_f64(cfg.start * 60.0)) {
        return (now_ns(), true);
    }
    let t0 = now_ns();
    shm.set_t0_ns(t0);
    shm.set_go(shm::GO);
    run.started = true;
    let deadline = t0 + run.spec.duration().as_nanos() as u64;
    let mut interrupted = false;
    loop {
        std::thread::sleep(Duration::from_millis(20));
        let now = now_ns();
        if signals::interrupted() {
            shm.set_stop(shm::NOW);
            interrupted = true;
            break;
        }
        if now >= deadline {
            shm.set_stop(shm::FINISH);
            break;
        }
        if users.ended(shm) >= n {
            break;
        }
        let done: u64 = (0..n as u32)
            .map(|u| shm.user(u).cycles.load(Ordering::Relaxed))
            .sum();
        progress.tick(done, Duration::from_nanos(now - t0));
    }
    // the users finish the transaction in hand; a grace of END minutes (at
    // least 5 s; half a second after Ctrl-C) before the rest are killed
    let grace = if interrupted {
        Duration::from_millis(500)
    } else {
        Duration::from_secs_f64((cfg.end * 60.0).max(5.0))
    };
    let t = Instant::now();
    while users.ended(shm) < n {
        if !interrupted && signals::interrupted() {
            interrupted = true;
            shm.set_stop(shm::NOW);
        }
        let limit = if interrupted {
            Duration::from_millis(500)
        } else {
            grace
        };
        if t.elapsed() >= limit {
            shm.set_stop(shm::NOW);
            users.kill_rest("did not stop within the end delay after the run; killed");
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    (t0, interrupted)
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

struct ThreadUsers<'s> {
    handles: Vec<Option<std::thread::ScopedJoinHandle<'s, UserRecord>>>,
    ends: Vec<Option<UserEnd>>,
}

impl Users for ThreadUsers<'_> {
    fn refresh(&mut self, _shm: &Shm) {}

    fn is_ended(&self, shm: &Shm, i: usize) -> bool {
        self.handles[i].as_ref().is_none_or(|h| h.is_finished())
            || shm.user(i as u32).state.load(Ordering::Acquire) == shm::STATE_DONE
    }

    fn kill_rest(&mut self, _why: &str) {
        // a thread cannot be killed: it stops at its next lock try or
        // transaction; the controller waits for it
    }
}

fn run_threads(run: &mut Run, shm: &Shm, mut meter: Meter, progress: &dyn Progress) -> Result<()> {
    let plan = run.plan.clone();
    let n = plan.users as usize;
    let mut cpu_t0 = CpuTimes::now();
    let result: Result<()> = std::thread::scope(|s| {
        let mut users = ThreadUsers {
            handles: Vec::with_capacity(n),
            ends: (0..n).map(|_| None).collect(),
        };
        for i in 0..n as u32 {
            let plan = &plan;
            let h = std::thread::Builder::new()
                .name(format!("iobench-user-{i}"))
                .stack_size(256 << 10)
                .spawn_scoped(s, move || user::run_user(plan, shm, i));
            match h {
                Ok(h) => users.handles.push(Some(h)),
                Err(e) => {
                    shm.set_go(shm::ABORT);
                    return Err(anyhow::anyhow!(
                        "cannot start user thread {i} of {n}: {e} (try fewer USERS)"
                    ));
                }
            }
        }
        if !wait_ready(shm, &mut users) {
            shm.set_go(shm::ABORT);
            shm.set_stop(shm::NOW);
            run.interrupted = true;
            return Ok(());
        }
        cpu_t0 = CpuTimes::now();
        let (t0, interrupted) = timed_phase(run, shm, &mut users, progress);
        let stopped = Instant::now();
        if !run.started {
            shm.set_go(shm::ABORT);
        }
        run.interrupted = interrupted;
        for (i, h) in users.handles.iter_mut().enumerate() {
            let Some(h) = h.take() else { continue };
            let end = match h.join() {
                Ok(rec) => {
                    let failure = rec.error.clone();
                    UserEnd {
                        record: rec,
                        failure,
                    }
                }
                Err(p) => UserEnd {
                    record: UserRecord::failed(&plan, i as u32, String::new()),
                    failure: Some(format!("panicked: {}", panic_text(&p))),
                },
            };
            users.ends[i] = Some(end);
        }
        run.cpu = CpuTimes::now().since(&cpu_t0);
        end_delay(run, &mut meter, stopped);
        run.users = users.ends.into_iter().flatten().collect();
        finish_times(run, t0);
        Ok(())
    });
    result
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a user panicked".into())
}

/// The measured interval: t0 to the last completed user's end.
fn finish_times(run: &mut Run, t0: u64) {
    let end = run
        .users
        .iter()
        .filter(|u| u.failure.is_none())
        .map(|u| u.record.end_ns)
        .max()
        .unwrap_or_else(now_ns);
    run.elapsed = Duration::from_nanos(end.saturating_sub(t0));
}

struct ProcUsers<'a> {
    procs: &'a mut Procs,
    /// How each ended: exit status text, or None while running.
    status: Vec<Option<std::process::ExitStatus>>,
    killed: Vec<Option<String>>,
    shm: &'a Shm,
}

/// Whether some child has exited and waits to be reaped (one system call,
/// instead of one per user).
fn a_child_exited() -> bool {
    // SAFETY: waitid writes the zeroed siginfo we pass; WNOWAIT leaves the
    // child to be reaped by its owner.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let r = libc::waitid(
            libc::P_ALL,
            0,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        r != 0 || info.si_pid() != 0
    }
}

impl ProcUsers<'_> {
    fn reap(&mut self) {
        if !a_child_exited() {
            return;
        }
        for i in 0..self.status.len() {
            if self.status[i].is_some() {
                continue;
            }
            if let Some(c) = self.procs.0[i].as_mut()
                && let Ok(Some(st)) = c.try_wait()
            {
                self.status[i] = Some(st);
                self.procs.0[i] = None;
                if !st.success() {
                    // a dead user may hold locks: give them back
                    self.shm.release_all_of(i as u32);
                }
            }
        }
    }
}

impl Users for ProcUsers<'_> {
    fn refresh(&mut self, _shm: &Shm) {
        self.reap();
    }

    fn is_ended(&self, _shm: &Shm, i: usize) -> bool {
        self.status[i].is_some()
    }

    fn kill_rest(&mut self, why: &str) {
        for i in 0..self.status.len() {
            if self.status[i].is_none()
                && let Some(c) = self.procs.0[i].as_mut()
            {
                let _ = c.kill();
                if let Ok(st) = c.wait() {
                    self.status[i] = Some(st);
                }
                self.procs.0[i] = None;
                self.killed[i] = Some(why.to_string());
                self.shm.release_all_of(i as u32);
            }
        }
    }
}

fn spawn_user(shm: &Shm, i: u32) -> std::io::Result<Child> {
    let exe = std::env::current_exe()?;
    let fd = shm.fd();
    let parent = std::process::id() as libc::pid_t;
    let mut cmd = Command::new(exe);
    cmd.arg("iobench-user")
        .arg("--shm-fd")
        .arg(fd.to_string())
        .arg("--user")
        .arg(i.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    // SAFETY: only async-signal-safe calls (fcntl, prctl, getppid) between
    // fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            // hand the region's descriptor to this child only
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags < 0 || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // a user never outlives the controller
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                return Err(std::io::Error::other("the controller is gone"));
            }
            Ok(())
        });
    }
    cmd.spawn()
}

fn run_processes(
    run: &mut Run,
    shm: &Shm,
    mut meter: Meter,
    progress: &dyn Progress,
) -> Result<()> {
    let plan = run.plan.clone();
    let n = plan.users as usize;
    let mut procs = Procs(Vec::with_capacity(n));
    for i in 0..n as u32 {
        if signals::interrupted() {
            run.interrupted = true;
            shm.set_go(shm::ABORT);
            return Ok(());
        }
        match spawn_user(shm, i) {
            Ok(c) => procs.0.push(Some(c)),
            Err(e) => {
                shm.set_go(shm::ABORT);
                anyhow::bail!(
                    "cannot start user process {i} of {n}: {e} (try fewer USERS or --threads)"
                );
            }
        }
    }
    let mut users = ProcUsers {
        procs: &mut procs,
        status: vec![None; n],
        killed: vec![None; n],
        shm,
    };
    if !wait_ready(shm, &mut users) {
        shm.set_go(shm::ABORT);
        shm.set_stop(shm::NOW);
        run.interrupted = true;
        return Ok(());
    }
    let self0 = CpuTimes::now();
    let (t0, interrupted) = timed_phase(run, shm, &mut users, progress);
    let stopped = Instant::now();
    if !run.started {
        shm.set_go(shm::ABORT);
    }
    run.interrupted = interrupted;
    // every user has ended (or was killed): read their records
    users.ended(shm);
    let status = std::mem::take(&mut users.status);
    let killed = std::mem::take(&mut users.killed);
    let controller = CpuTimes::now().since(&self0);
    end_delay(run, &mut meter, stopped);
    let mut ends = Vec::with_capacity(n);
    for i in 0..n {
        let path = plan.work_dir.join(format!("user.{i}.json"));
        let rec: Option<UserRecord> = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let cycles = shm.user(i as u32).cycles.load(Ordering::Acquire);
        let why_dead = || {
            let how = match status[i] {
                Some(st) => match st.signal() {
                    Some(sig) => format!("killed by signal {sig}"),
                    None => format!("exited with status {}", st.code().unwrap_or(-1)),
                },
                None => "did not end".into(),
            };
            let how = killed[i].clone().unwrap_or(how);
            format!("{how} after {cycles} cycles")
        };
        let end = match rec {
            Some(r) if status[i].is_some_and(|s| s.success()) => {
                let failure = r.error.clone();
                UserEnd { record: r, failure }
            }
            Some(r) => UserEnd {
                failure: Some(r.error.clone().unwrap_or_else(why_dead)),
                record: r,
            },
            None => {
                let mut r = UserRecord::failed(&plan, i as u32, why_dead());
                r.cycles = cycles;
                UserEnd {
                    failure: r.error.clone(),
                    record: r,
                }
            }
        };
        ends.push(end);
    }
    run.users = ends;
    let mut cpu = controller;
    for u in run.users.iter().filter(|u| u.failure.is_none()) {
        cpu.user += Duration::from_nanos(u.record.cpu_user_ns);
        cpu.sys += Duration::from_nanos(u.record.cpu_sys_ns);
    }
    run.cpu = cpu;
    finish_times(run, t0);
    Ok(())
}

/// The hidden worker mode: one user process. Maps the region from `fd`,
/// runs user `me`, leaves its record in the work directory. Exit code 0
/// when the user completed, 1 when it failed (the record says why).
pub fn user_process(fd: i32, me: u32) -> Result<bool> {
    // Ctrl-C at the terminal reaches the whole process group: the controller
    // decides when users stop. A SIGTERM sent to a user kills it.
    // SAFETY: setting dispositions to SIG_IGN / SIG_DFL has no preconditions.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
    }
    let shm = Shm::attach(fd).context("cannot map the shared region")?;
    let plan: Plan = serde_json::from_slice(shm.plan()).context("cannot read the plan")?;
    if me >= plan.users {
        anyhow::bail!("user {me} is not in this run of {} users", plan.users);
    }
    let mut rec = user::run_user(&plan, &shm, me);
    rec.max_rss_kib = user::process_max_rss_kib();
    rec.pss_kib = user::process_pss_kib();
    let ok = rec.error.is_none();
    let path = plan.work_dir.join(format!("user.{me}.json"));
    let tmp = plan.work_dir.join(format!("user.{me}.json.tmp"));
    std::fs::write(&tmp, serde_json::to_vec(&rec)?)
        .and_then(|_| std::fs::rename(&tmp, &path))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_share_the_descriptors() {
        assert_eq!(file_units(Mode::Threads, 1000, 16, 20000), 16);
        assert_eq!(file_units(Mode::Threads, 1000, 16, 1024), 1);
        assert_eq!(file_units(Mode::Threads, 10, 400, 1024), 96);
        assert_eq!(file_units(Mode::Processes, 1000, 16, 1024), 16);
    }
}
