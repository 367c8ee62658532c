//! The one run path: what every benchmark repeats around its timed phase.
//!
//! ```text
//!   Setup::new(bench, parent)        what the run needs: data bytes, workers,
//!      .data(..).workers(..)         descriptors, its configuration
//!      .begin()?           ──>  checks, in this order: each directory
//!                                (missing, not a directory, pseudo or
//!                                read-only file system, not writable), free
//!                                space for the data and one reserve, memory
//!                                for tmpfs, free inodes, then the process's
//!                                limits (tasks, open files) (`.check()`
//!                                stops here); then makes the work directory
//!                                (a guard) and records the environment and
//!                                the start time: a Session
//!   session.run(rule, workers)  ──>  runner: barrier, stop rule, signals
//!                                ──>  (RunResult, Outcome); the work
//!                                directory is gone when it returns
//! ```
//!
//! A benchmark supplies its workers (or measures its own way and hands the
//! [`Outcome`] to [`Session::finish`]), its headline metrics and its
//! classic text; nothing else of the path is written twice.

pub mod generic;
pub mod verified;

use crate::env::Environment;
use crate::error::UsageError;
use crate::report::{RunResult, now_rfc3339};
use crate::runner::workdir::{self, SetupError, WorkDir};
use crate::runner::{Outcome, Progress, StopRule, Worker};
use crate::units::fmt_bytes;
use anyhow::Result;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Debug)]
struct Place {
    parent: PathBuf,
    label: String,
    data: u64,
    /// Files, directories and links made there.
    entries: u64,
}

/// What a run needs before it starts.
#[derive(Debug)]
pub struct Setup {
    benchmark: String,
    /// Where work directories are made: the parent, how messages name it
    /// (`--dir /x`), and the data written there.
    places: Vec<Place>,
    fake: bool,
    config: serde_json::Value,
    /// Space needed outside the work directory (files the user named).
    elsewhere: Vec<(PathBuf, u64)>,
    workers: usize,
    fds_per_worker: u64,
    processes: bool,
    /// The existing file the run works on instead of a work directory.
    file: Option<PathBuf>,
    /// The block device the run works on (`--device`).
    device: Option<crate::env::device::BlockDevice>,
}

/// Directories a command took as something else than `--dir` (the
/// survey's and selfscale's positional DIR), with how messages name them.
static NAMED: std::sync::Mutex<Vec<(PathBuf, String)>> = std::sync::Mutex::new(Vec::new());

/// Say that `dir` is named `label` in messages (`DIR /mnt/x`): for a
/// command whose directory is not `--dir`, and whose runs go through
/// benchmarks that do not know it.
pub fn name_parent(dir: &Path, label: &str) {
    if let Ok(mut v) = NAMED.lock() {
        v.push((dir.to_path_buf(), label.to_string()));
    }
}

/// How messages name `dir`: as [`name_parent`] said, else `--dir DIR`.
pub fn parent_label(dir: &Path) -> String {
    NAMED
        .lock()
        .ok()
        .and_then(|v| {
            v.iter()
                .rev()
                .find(|(d, _)| d == dir)
                .map(|(_, l)| l.clone())
        })
        .unwrap_or_else(|| format!("--dir {}", crate::error::shown_path(dir)))
}

impl Setup {
    /// A run of `benchmark` in a work directory under `parent`.
    pub fn new(benchmark: &str, parent: &Path) -> Setup {
        Setup {
            benchmark: benchmark.to_string(),
            places: vec![Place {
                parent: parent.to_path_buf(),
                label: parent_label(parent),
                data: 0,
                entries: 0,
            }],
            fake: false,
            config: serde_json::json!({}),
            elsewhere: Vec::new(),
            workers: 1,
            fds_per_worker: 1,
            processes: false,
            file: None,
            device: None,
        }
    }

    /// A run of `benchmark` on an existing file the user named: no work
    /// directory is made (so [`Session::dir`] has none to give), nothing is
    /// written beside the file, and the environment is that of the file's
    /// file system.
    pub fn on_file(benchmark: &str, file: &Path) -> Setup {
        let mut s = Setup::new(benchmark, file.parent().unwrap_or(file));
        s.places.clear();
        s.file = Some(file.to_path_buf());
        s
    }

    /// A run of `benchmark` on a raw block device ([`crate::env::device::check`]
    /// passed it): as [`Setup::on_file`], and the environment is the
    /// device's, with no file system.
    pub fn on_device(benchmark: &str, dev: &crate::env::device::BlockDevice) -> Setup {
        let mut s = Setup::on_file(benchmark, &dev.path);
        s.device = Some(dev.clone());
        s
    }

    /// How messages name the parent (default `--dir PARENT`).
    pub fn label(mut self, label: &str) -> Setup {
        self.places[0].label = label.to_string();
        self
    }

    /// The most data the run writes into its work directory.
    pub fn data(mut self, bytes: u64) -> Setup {
        self.places[0].data = bytes;
        self
    }

    /// The most files, directories and links the run makes in its work
    /// directory: checked against the free inodes.
    pub fn entries(mut self, n: u64) -> Setup {
        self.places[0].entries = n;
        self
    }

    /// One more work directory, under `parent` (named `label` in messages),
    /// that will hold `bytes` (PostMark's locations).
    pub fn also_workdir(mut self, parent: &Path, label: &str, bytes: u64) -> Setup {
        self.places.push(Place {
            parent: parent.to_path_buf(),
            label: label.to_string(),
            data: bytes,
            entries: 0,
        });
        self
    }

    /// The engine does no I/O: no space is needed.
    pub fn fake(mut self, fake: bool) -> Setup {
        self.fake = fake;
        self
    }

    /// The configuration the result records (after defaults).
    pub fn config(mut self, config: impl Serialize) -> Setup {
        self.config = serde_json::to_value(config).unwrap_or_default();
        self
    }

    /// `bytes` more will be written in `dir`, outside the work directory.
    pub fn also(mut self, dir: &Path, bytes: u64) -> Setup {
        match self.elsewhere.iter_mut().find(|(d, _)| d == dir) {
            Some((_, n)) => *n += bytes,
            None => self.elsewhere.push((dir.to_path_buf(), bytes)),
        }
        self
    }

    /// `n` workers, each holding `fds` descriptors open, as threads or as
    /// processes: checked against the process's limits before anything
    /// is written.
    pub fn workers(mut self, n: usize, fds: u64, processes: bool) -> Setup {
        self.workers = n;
        self.fds_per_worker = fds;
        self.processes = processes;
        self
    }

    /// Check everything that [`Setup::begin`] checks, and make nothing:
    /// for a command's `--check`, and for a benchmark that must know the
    /// run can start before it plans (a plan can be large).
    pub fn check(&self) -> Result<()> {
        self.checks().map(|_| ())
    }

    /// The checks, in order; returns each place's mount.
    fn checks(&self) -> Result<Vec<Option<crate::env::MountInfo>>> {
        // each place's mount, looked up once (a read of /proc/self/mountinfo)
        let mounts: Vec<_> = self
            .places
            .iter()
            .map(|p| crate::env::mount_for(&p.parent))
            .collect();
        for (p, m) in self.places.iter().zip(&mounts) {
            let usage = |e: SetupError| UsageError::new(e.at(&p.label));
            workdir::check_dir_on(&p.parent, m.as_ref()).map_err(usage)?;
        }
        if !self.fake {
            // places on one file system share its free space: sum them
            let mut by_fs: Vec<(u64, usize, u64)> = Vec::new();
            for (i, p) in self.places.iter().enumerate() {
                let dev = std::fs::metadata(&p.parent)
                    .map_or(0, |m| std::os::unix::fs::MetadataExt::dev(&m));
                match by_fs.iter_mut().find(|(d, _, _)| *d == dev) {
                    Some((_, _, n)) => *n += p.data,
                    None => by_fs.push((dev, i, p.data)),
                }
            }
            for (_, i, n) in by_fs {
                let p = &self.places[i];
                check_room_on(&p.parent, n, mounts[i].as_ref())
                    .map_err(|e| UsageError::new(e.at(&p.label)))?;
            }
            for p in &self.places {
                // the work directory and its owner marker are two more
                workdir::check_inodes(&p.parent, p.entries + 2)
                    .map_err(|e| UsageError::new(e.at(&p.label)))?;
            }
            for (d, n) in &self.elsewhere {
                check_room(d, *n).map_err(|e| UsageError::new(e.to_string()))?;
            }
        }
        // after the space: a run too large for the disk is told so first
        crate::runner::limits::check(self.workers, self.fds_per_worker, self.processes)?;
        Ok(mounts)
    }

    /// Make the work directory and check everything that can be checked
    /// before the first write. Every refusal is a [`UsageError`] naming
    /// its cause.
    pub fn begin(self) -> Result<Session> {
        // a result left by an earlier set-up of this process is not this one's
        let _ = take_unfinished();
        let mounts = self.checks()?;
        let started = now_rfc3339();
        let mut work = Vec::with_capacity(self.places.len());
        for p in &self.places {
            let w = WorkDir::create(&p.parent, &self.benchmark)
                .map_err(|e| UsageError::new(e.at(&p.label)))?;
            work.push(w);
        }
        let environment = match &self.file {
            Some(_) if let Some(d) = &self.device => crate::env::detect_device(d),
            Some(f) => crate::env::detect_on(f.parent().unwrap_or(f), crate::env::mount_for(f)),
            // the work directory is on its parent's file system
            None => crate::env::detect_on(work[0].path(), mounts[0].clone()),
        };
        let mut result = RunResult::new(&self.benchmark, self.config, environment, started);
        // the data laid out in the work directories: what the run touches,
        // unless the benchmark says better (RunResult::set_working_set)
        let data: u64 = self.places.iter().map(|p| p.data).sum();
        if !self.fake && data > 0 {
            result.working_set = Some(crate::report::warn::WorkingSet {
                bytes: data,
                cache_bytes: crate::env::cache_room(),
                in_memory: mounts
                    .iter()
                    .flatten()
                    .any(|m| matches!(m.fs_type.as_str(), "tmpfs" | "ramfs")),
            });
        }
        // a process killed from here on still leaves a result that says so
        crate::report::export::write_provisional(&result);
        Ok(Session {
            result,
            work,
            closed: false,
            began: Began::now(),
        })
    }
}

/// The result of the last session dropped before it was closed (its
/// set-up failed part-way, say a layout out of space), as it began.
static UNFINISHED: Mutex<Option<RunResult>> = Mutex::new(None);

/// The benchmark, configuration, environment and start of the last run
/// whose session ended before it was closed, if no run began since: what a
/// command that failed in its set-up still writes (`complete: false`, with
/// the cause).
pub fn take_unfinished() -> Option<RunResult> {
    UNFINISHED.lock().ok()?.take()
}

/// Free space for `data` and the reserve, and on a file system kept in
/// memory (tmpfs, ramfs), memory for it too.
pub fn check_room(dir: &Path, data: u64) -> Result<(), SetupError> {
    check_room_on(dir, data, crate::env::mount_for(dir).as_ref())
}

/// [`check_room`] with the mount of `dir` already looked up.
fn check_room_on(
    dir: &Path,
    data: u64,
    mount: Option<&crate::env::MountInfo>,
) -> Result<(), SetupError> {
    workdir::check_space(dir, data)?;
    if let Some(m) = mount
        && matches!(m.fs_type.as_str(), "tmpfs" | "ramfs")
    {
        let avail = crate::env::mem_available();
        let keep = 1u64 << 30;
        let want = data + workdir::reserve(data);
        if avail > 0 && want + keep > avail {
            return Err(SetupError::Unusable {
                path: dir.to_path_buf(),
                reason: format!(
                    "is on {}, which keeps files in memory: the data and its reserve need {}, and only {} of memory is available (1 GiB of it is left to the system); use a smaller data size or a directory on a disk",
                    m.fs_type,
                    fmt_bytes(want),
                    fmt_bytes(avail.saturating_sub(keep))
                ),
            });
        }
    }
    Ok(())
}

/// A run that has begun: its work directory exists, its result holds the
/// environment, the configuration and the start time.
pub struct Session {
    result: RunResult,
    // dropped last: the files go with them
    work: Vec<WorkDir>,
    /// Finished or interrupted: the result was handed on.
    closed: bool,
    /// The machine and iogauge's CPU when the session began.
    began: Began,
}

/// The machine's and this process's CPU times at a moment.
struct Began {
    machine: crate::measure::machine::Snapshot,
    own: crate::measure::CpuTimes,
    children: crate::measure::CpuTimes,
}

impl Began {
    fn now() -> Began {
        Began {
            machine: crate::measure::machine::Snapshot::now(),
            own: crate::measure::CpuTimes::now(),
            children: crate::measure::CpuTimes::children(),
        }
    }

    /// How busy the machine was since, against iogauge's own CPU.
    fn machine_since(&self) -> crate::measure::machine::MachineLoad {
        use crate::measure::CpuTimes;
        let own = CpuTimes::now().since(&self.own);
        let kids = CpuTimes::children().since(&self.children);
        let both = CpuTimes {
            user: own.user + kids.user,
            sys: own.sys + kids.sys,
            ..Default::default()
        };
        self.machine.end(&both)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.closed
            && let Ok(mut u) = UNFINISHED.lock()
        {
            *u = Some(std::mem::take(&mut self.result));
        }
    }
}

impl Session {
    /// The work directory (everything in it is removed at the end); not
    /// to be asked of a run [`Setup::on_file`], which has none.
    pub fn dir(&self) -> &Path {
        self.work[0].path()
    }

    /// Leave the work directory in place at the end (`--keep`): its files
    /// are for a later `--verify-only`.
    pub fn keep_dir(&mut self) {
        if let Some(w) = self.work.first_mut() {
            w.keep();
        }
    }

    /// Every work directory, in the order the set-up named them.
    pub fn dirs(&self) -> Vec<&Path> {
        self.work.iter().map(|w| w.path()).collect()
    }

    /// When the run began (RFC 3339).
    pub fn started_at(&self) -> &str {
        &self.result.started_at
    }

    pub fn environment(&self) -> &Environment {
        &self.result.environment
    }

    /// Leave the work directories and what is in them when the run ends
    /// (a benchmark's own "keep the files" option).
    pub fn keep(&mut self) {
        for w in &mut self.work {
            w.keep();
        }
    }

    /// The result so far, to add to its configuration.
    pub fn result_mut(&mut self) -> &mut RunResult {
        &mut self.result
    }

    /// Run `workers` under `rule`, remove the work directory, and return
    /// the filled result with what the runner measured.
    pub fn run<W: Worker>(
        self,
        rule: StopRule,
        workers: Vec<W>,
        progress: &dyn Progress,
    ) -> (RunResult, Outcome) {
        let outcome = crate::runner::run(rule, workers, progress);
        (self.finish(&outcome), outcome)
    }

    /// Build `n` workers of `W` from `payload` and run them as
    /// [`run`](Self::run) does, on threads or as processes.
    pub fn run_workers<W: crate::runner::Workers>(
        self,
        rule: StopRule,
        payload: &W::Payload,
        n: usize,
        placement: crate::runner::Placement,
        progress: &dyn Progress,
    ) -> Result<(RunResult, Outcome)> {
        let outcome = crate::runner::run_workers::<W>(
            rule,
            payload,
            n,
            placement,
            progress,
            &crate::runner::NoWatch,
        )?;
        Ok((self.finish(&outcome), outcome))
    }

    /// Close the run with an outcome measured another way (process users
    /// of their own, batches): the work directory goes, the result is filled.
    ///
    /// A run measured outside the runner brings no figures of how busy
    /// the machine was: the session's, from its start to now, stand in.
    pub fn finish(mut self, outcome: &Outcome) -> RunResult {
        let whole = outcome
            .machine
            .is_empty()
            .then(|| self.began.machine_since());
        let mut result = self.close();
        if let Some(m) = whole.filter(|m| !m.is_empty()) {
            result.summary.machine = Some(m);
        }
        result.with_outcome(outcome)
    }

    /// Remove the work directories; the result, handed on.
    fn close(&mut self) -> RunResult {
        self.closed = true;
        drop(std::mem::take(&mut self.work));
        std::mem::take(&mut self.result)
    }

    /// Close a run stopped (Ctrl-C) before any worker ran: nothing measured.
    pub fn interrupted(mut self) -> RunResult {
        let mut result = self.close();
        result.complete = false;
        result
    }
}

/// The whole path in one call: begin, `prepare` the workers in the work
/// directory (untimed; `None` when Ctrl-C arrived meanwhile), run them,
/// clean up. The outcome is `None` when nothing ran.
pub fn execute<W: Worker>(
    setup: Setup,
    rule: StopRule,
    progress: &dyn Progress,
    prepare: impl FnOnce(&Path) -> Result<Option<Vec<W>>>,
) -> Result<(RunResult, Option<Outcome>)> {
    let session = setup.begin()?;
    let Some(workers) = prepare(session.dir())? else {
        return Ok((session.interrupted(), None));
    };
    let (result, outcome) = session.run(rule, workers, progress);
    Ok((result, Some(outcome)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{self, FileId, Req};
    use crate::measure::OpKind;
    use crate::runner::Io;

    struct Reads(Io);
    impl Worker for Reads {
        fn kinds(&self) -> &[OpKind] {
            &[OpKind::Read]
        }
        fn run(&mut self, ctx: &mut crate::runner::Ctx) -> Result<()> {
            self.0.transact(ctx, &mut |tx: &mut crate::runner::Tx| {
                tx.exec(Req::read(FileId(0), 0, 512))?;
                Ok(true)
            })
        }
    }

    #[test]
    fn the_path_makes_measures_and_removes() {
        let parent = tempfile::tempdir().unwrap();
        let setup = Setup::new("t", parent.path())
            .data(1 << 20)
            .config(serde_json::json!({"k": 1}));
        let mut seen = PathBuf::new();
        let rule = StopRule {
            ops: Some(1000),
            ..Default::default()
        };
        let (r, o) = execute(setup, rule, &crate::runner::NoProgress, |dir| {
            seen = dir.to_path_buf();
            assert!(dir.is_dir());
            let e = Io::test(engine::Choice::NULL, 4096);
            Ok(Some(vec![Reads(e)]))
        })
        .unwrap();
        assert!(o.is_some());
        assert!(!seen.exists(), "the work directory is removed");
        assert_eq!(r.benchmark, "t");
        assert_eq!(r.config["k"], 1);
        assert_eq!(r.summary.ops, 1000);
        assert!(r.complete);
        assert!(!r.environment.kernel.is_empty());
    }

    #[test]
    fn refusals_are_usage_errors_naming_the_place() {
        let e = Setup::new("t", Path::new("/proc")).begin().err().unwrap();
        assert!(crate::error::is_usage(&e));
        let s = e.to_string();
        assert!(s.starts_with("--dir /proc") && s.contains("pseudo"), "{s}");
        let parent = tempfile::tempdir().unwrap();
        let e = Setup::new("t", parent.path())
            .label("DIR")
            .data(u64::MAX / 4)
            .begin()
            .err()
            .unwrap();
        assert!(e.to_string().starts_with("DIR: not enough space"), "{e}");
        // nothing was made
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
        // the null engine needs no space
        Setup::new("t", parent.path())
            .data(u64::MAX / 4)
            .fake(true)
            .begin()
            .unwrap();
    }

    #[test]
    fn interrupted_before_the_workers_is_incomplete_and_clean() {
        let parent = tempfile::tempdir().unwrap();
        let (r, o) = execute::<Reads>(
            Setup::new("t", parent.path()),
            StopRule::default(),
            &crate::runner::NoProgress,
            |_| Ok(None),
        )
        .unwrap();
        assert!(o.is_none());
        assert!(!r.complete);
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
    }
}
