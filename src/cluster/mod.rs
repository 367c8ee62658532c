//! Many clients: the ranks of an MPI job run one benchmark together.
//!
//! `mpirun -np N iogauge BENCH …` starts N copies of iogauge with the same
//! command line. Each copy (a rank) prepares its own share in its own work
//! directory under the shared directory, and every timed phase of the
//! benchmark becomes one phase of the job:
//!
//! ```text
//!  every rank                          rank 0
//!  ──────────                          ──────
//!  barrier; clocks against rank 0      offsets and their bounds
//!  its workers run (threads or         first rank done: under --stonewall,
//!    processes), polled each turn  <──   tells every rank to stop
//!  done: tells rank 0, waits for       every rank done: ends the phase
//!    the end of the phase
//!  clocks again; its report (stats  ─> merges: counts summed, histograms
//!    bucket by bucket, times)            added, elapsed = last end − first
//!                                        start, series by wall-clock window,
//!                                        each rank's and host's figures
//! ```
//!
//! Rank 0's merged outcome looks to the benchmark like one run of all the
//! ranks' workers, so each benchmark's figures and report come out of the
//! same code as on one machine; the other ranks print and write nothing.
//! Without the `mpi` feature, or outside mpirun, none of this runs.
//!
//! A rank that dies: mpirun stops the others with SIGTERM (then SIGKILL a
//! second later). Each survivor writes what it measured next to the shared
//! directory; rank 0 merges what arrived, names the ranks that did not
//! report, and writes the partial result.

#[cfg(feature = "mpi")]
mod backend;
pub mod merge;

pub use merge::{Phase, RankReport, Section};

use crate::runner::{NoWatch, Outcome, Watch};
#[cfg(feature = "mpi")]
use anyhow::Context;
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The commands that run across ranks.
pub const COMMANDS: &[&str] = &[
    "run", "postmark", "ffsb", "iozone", "laddis", "tpcb", "sdet", "scale",
];

/// What a job's ranks were told on their command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Opts {
    /// Stop every rank when the first finishes its budget.
    pub stonewall: bool,
    /// With `stonewall`: the others go on to their whole budget; the
    /// amount each had done at the stonewall is recorded.
    pub wear_out: bool,
}

impl Opts {
    /// How the result names the stonewall setting.
    pub fn name(&self) -> &'static str {
        match (self.stonewall, self.wear_out) {
            (false, _) => "off",
            (true, false) => "stop",
            (true, true) => "wear-out",
        }
    }
}

static OPTS: Mutex<Opts> = Mutex::new(Opts {
    stonewall: false,
    wear_out: false,
});

/// Set the job's options (the command's `--stonewall`, `--wear-out`).
pub fn configure(o: Opts) {
    *OPTS.lock().unwrap_or_else(|p| p.into_inner()) = o;
}

pub fn opts() -> Opts {
    *OPTS.lock().unwrap_or_else(|p| p.into_inner())
}

/// This process's place in the job.
#[derive(Clone, Debug)]
pub struct Job {
    pub rank: usize,
    pub size: usize,
    /// Each rank's host, in rank order.
    pub hosts: Vec<String>,
    /// Rank 0's id for the job: names the partial reports of a job.
    pub id: String,
}

static JOB: OnceLock<Job> = OnceLock::new();

/// The job, when this process is a rank of one (built with MPI and
/// started by mpirun).
pub fn job() -> Option<&'static Job> {
    JOB.get()
}

/// Whether timed phases are the job's.
pub fn active() -> bool {
    JOB.get().is_some()
}

pub fn rank() -> usize {
    JOB.get().map_or(0, |j| j.rank)
}

pub fn ranks() -> usize {
    JOB.get().map_or(1, |j| j.size)
}

/// Whether this process prints and writes the result: rank 0, or no job.
pub fn is_root() -> bool {
    rank() == 0
}

/// How many ranks the launcher says it started, from its environment
/// (Open MPI, MPICH/PMI, PMIx); `None` outside one.
pub fn launched_ranks() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse().ok())
}

/// Join the job, if mpirun started this process, before the command runs:
/// a command that cannot run across ranks, or a build without MPI under
/// a launcher of several ranks, is refused in one line. Ranks other than
/// 0 print nothing on stdout from here on.
pub fn init(command: &str) -> Result<()> {
    let Some(n) = launched_ranks() else {
        return Ok(());
    };
    if n > 1 && !COMMANDS.contains(&command) {
        crate::usage!(
            "'{command}' does not run across MPI ranks (mpirun started {n}); these do: {}",
            COMMANDS.join(", ")
        );
    }
    join(command, n)
}

#[cfg(feature = "mpi")]
fn join(_command: &str, _n: usize) -> Result<()> {
    let job = backend::init()?;
    if job.rank != 0 {
        quiet_stdout();
    }
    let _ = JOB.set(job);
    Ok(())
}

#[cfg(not(feature = "mpi"))]
fn join(_command: &str, n: usize) -> Result<()> {
    if n > 1 {
        crate::usage!(
            "mpirun started {n} copies, but this iogauge was built without MPI (build it with --features mpi)"
        );
    }
    Ok(())
}

/// Leave the job (MPI_Finalize), after the command.
pub fn finish() {
    #[cfg(feature = "mpi")]
    if active() {
        backend::finish();
    }
}

/// The refusal of an MPI option (`flag`) where it cannot work: a build
/// without MPI, or a process mpirun did not start.
pub fn require(flag: &str) -> Result<()> {
    if !cfg!(feature = "mpi") {
        crate::usage!("{flag}: this iogauge was built without MPI (build it with --features mpi)");
    }
    if !active() {
        crate::usage!("{flag} works across MPI ranks: start iogauge with mpirun");
    }
    Ok(())
}

#[cfg(feature = "mpi")]
/// Send this process's stdout to /dev/null: a rank's report would repeat
/// rank 0's, with its own share's figures.
fn quiet_stdout() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        use std::os::fd::AsRawFd;
        // SAFETY: dup2 onto stdout of a descriptor we hold open.
        unsafe { libc::dup2(null.as_raw_fd(), libc::STDOUT_FILENO) };
    }
}

/// One timed phase: `local` runs this rank's workers, polling the watch it
/// is handed. On rank 0 the outcome is every rank's merged; on the others,
/// their own. Outside a job it is `local` alone.
pub fn phase(local: &mut dyn FnMut(&dyn Watch) -> Result<Outcome>) -> Result<Outcome> {
    #[cfg(feature = "mpi")]
    if let Some(job) = job() {
        return backend::phase(job, local);
    }
    local(&NoWatch)
}

/// Rank 0's `value`, on every rank: a collective, called by every rank at
/// the same point; `value` itself outside a job. What depends on measured
/// figures (scale's next load) is decided from rank 0's, which are the
/// job's, so that every rank goes on to the same phases.
pub fn from_root<T: serde::Serialize + serde::de::DeserializeOwned>(value: T) -> Result<T> {
    #[cfg(feature = "mpi")]
    if active() {
        let bytes = serde_json::to_vec(&value).context("cannot encode rank 0's value")?;
        let bytes = backend::broadcast(bytes);
        return serde_json::from_slice(&bytes).context("cannot read rank 0's value");
    }
    Ok(value)
}

/// The directory the job's ranks share (the first work directory's
/// parent): where survivors leave their partial reports for rank 0.
static SHARED: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Note where a work directory was made; the first is the shared one.
pub fn note_parent(dir: &Path) {
    if !active() {
        return;
    }
    let mut s = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    if s.is_none() {
        *s = Some(dir.to_path_buf());
    }
}

/// Where rank `rank` leaves its partial report, if the shared directory
/// is known.
pub fn partial_path(job: &Job, rank: usize) -> Option<PathBuf> {
    let dir = SHARED.lock().unwrap_or_else(|p| p.into_inner()).clone()?;
    Some(dir.join(format!(".iogauge-{}-rank{rank}.partial.json", job.id)))
}

/// The tag work directories of a rank carry: `r3` (empty outside a job).
pub fn dir_tag() -> String {
    match job() {
        Some(j) => format!("{}r{}-", j.id, j.rank),
        None => String::new(),
    }
}

/// Every phase the job merged, in order.
static PHASES: Mutex<Vec<Phase>> = Mutex::new(Vec::new());

#[cfg(feature = "mpi")]
pub(crate) fn push_phase(p: Phase) {
    PHASES.lock().unwrap_or_else(|p| p.into_inner()).push(p);
}

/// The result's `cluster` section: the job and every phase merged so far
/// (rank 0 of a job; `None` otherwise).
pub fn section() -> Option<Section> {
    let job = job()?;
    if job.rank != 0 {
        return None;
    }
    let phases = PHASES.lock().unwrap_or_else(|p| p.into_inner()).clone();
    Some(Section::new(job, opts(), phases))
}
