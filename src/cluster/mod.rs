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

#[cfg(feature = "mpi")]
use crate::runner::{Outcome, Watch};
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

/// How many ranks' workers a timed phase's outcome holds here: every
/// rank's on rank 0 of a job (merged, in rank order), its own elsewhere.
pub fn merged_ranks() -> usize {
    if is_root() { ranks() } else { 1 }
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
    crate::runner::signals::soft_second_signal();
    let _ = JOB.set(job);
    crate::runner::workdir::set_rank_tag(dir_tag());
    crate::runner::workers::set_phase(phase);
    crate::report::cluster::set_source(section);
    if rank() != 0 {
        quiet_stdout();
        crate::report::export::mute();
    }
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

/// Leave the job (MPI_Finalize), after the command: rank 0 first removes
/// the work directories of ranks that died, once the result is written.
pub fn finish() {
    #[cfg(feature = "mpi")]
    if let Some(job) = job() {
        remove_dead_dirs(job);
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

/// Rank 0's `value` on every rank (outside a job, `value`): what rank 0
/// made and the others must use, such as the bytes of a shared file's
/// path. Every rank calls it at the same point.
pub fn share(value: Vec<u8>) -> Vec<u8> {
    #[cfg(feature = "mpi")]
    if active() {
        return backend::share(value);
    }
    value
}

/// Rank 0's `value` on every rank, through [`share`] as JSON: a decision
/// every rank must take alike (a curve's next load from the job's merged
/// sample, not each rank's own).
pub fn share_json<T: serde::Serialize + serde::de::DeserializeOwned>(value: T) -> Result<T> {
    if !active() {
        return Ok(value);
    }
    let bytes = if is_root() {
        serde_json::to_vec(&value)?
    } else {
        Vec::new()
    };
    Ok(serde_json::from_slice(&share(bytes))?)
}

/// The seed the job's user gave, as [`seed`] last saw it: the result lists
/// each rank's seed from it.
static GIVEN_SEED: Mutex<Option<u64>> = Mutex::new(None);

/// This rank's seed for the user's `seed`: every benchmark draws its
/// requests (and data) from it, so that the ranks of one command line do
/// not all issue the same stream. Rank 0 keeps the user's seed (a run of one
/// rank is the run on one machine); rank r adds r·0x9E3779B97F4A7C15
/// (2^64 over the golden ratio, wrapping), which keeps the ranks' seeds,
/// and the per-worker seeds derived from them by small offsets, apart.
/// The same command on the same number of ranks draws the same streams.
pub fn seed(seed: u64) -> u64 {
    if active() {
        *GIVEN_SEED.lock().unwrap_or_else(|p| p.into_inner()) = Some(seed);
    }
    seed_of(seed, rank())
}

/// Rank `rank`'s seed for the user's `seed` (see [`seed`]).
pub fn seed_of(seed: u64, rank: usize) -> u64 {
    seed.wrapping_add((rank as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Each rank's seed, in rank order, once a benchmark asked [`seed`] for
/// its own (empty before).
pub fn rank_seeds(size: usize) -> Vec<u64> {
    match *GIVEN_SEED.lock().unwrap_or_else(|p| p.into_inner()) {
        Some(s) => (0..size).map(|r| seed_of(s, r)).collect(),
        None => Vec::new(),
    }
}

/// One timed phase of the job, as the runner runs every phase once the
/// job is joined: `local` runs this rank's workers, polling the watch it
/// is handed. On rank 0 the outcome is every rank's merged; on the others,
/// their own.
#[cfg(feature = "mpi")]
fn phase(local: &mut dyn FnMut(&dyn Watch) -> Result<Outcome>) -> Result<Outcome> {
    match job() {
        Some(job) => backend::phase(job, local),
        None => local(&crate::runner::NoWatch),
    }
}

/// Where rank `rank` leaves its partial report: the job's shared
/// directory (where the first work directory was made), once known.
pub fn partial_path(job: &Job, rank: usize) -> Option<PathBuf> {
    let dir = shared_dir()?;
    Some(dir.join(format!(".iogauge-{}-rank{rank}.partial.json", job.id)))
}

/// Ranks that did not report a phase (rank 0).
#[cfg(feature = "mpi")]
static DEAD: Mutex<Vec<usize>> = Mutex::new(Vec::new());

#[cfg(feature = "mpi")]
pub(crate) fn note_dead(ranks: impl IntoIterator<Item = usize>) {
    DEAD.lock().unwrap_or_else(|p| p.into_inner()).extend(ranks);
}

/// A dead rank cannot remove its work directories; rank 0 removes those
/// in the shared directory that carry the job's id and the rank
/// (`iogauge-<tag>-<job>r<rank>-…`: provably the job's). It runs after the
/// result is written, so that mpirun's SIGKILL, a second after its
/// SIGTERM, can cut short the removal of a large file set but never the
/// result.
#[cfg(feature = "mpi")]
fn remove_dead_dirs(job: &Job) {
    let dead = std::mem::take(&mut *DEAD.lock().unwrap_or_else(|p| p.into_inner()));
    let shared = shared_dir();
    let (Some(shared), false) = (shared, dead.is_empty()) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(&shared) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str().filter(|n| n.starts_with("iogauge-")) else {
            continue;
        };
        if let Some(r) = dead
            .iter()
            .find(|r| name.contains(&format!("-{}r{r}-", job.id)))
            && let Err(err) = std::fs::remove_dir_all(e.path())
        {
            eprintln!(
                "iogauge: could not remove rank {r}'s work directory {}: {err}",
                e.path().display()
            );
        }
    }
}

/// What a rank's work directories carry after their tag: `<job>r<rank>-`
/// (empty outside a job).
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
    let envs = ENVIRONMENTS.lock().unwrap_or_else(|p| p.into_inner());
    Some(merge::section(job, opts(), phases, &envs))
}

/// Each host's environment, as the first of its ranks to report it said.
static ENVIRONMENTS: Mutex<std::collections::BTreeMap<String, crate::env::Environment>> =
    Mutex::new(std::collections::BTreeMap::new());

/// Keep the hosts' environments the reports carry.
#[cfg(feature = "mpi")]
pub(crate) fn note_environments(reports: &[RankReport]) {
    let mut m = ENVIRONMENTS.lock().unwrap_or_else(|p| p.into_inner());
    for r in reports {
        if let Some(e) = &r.environment {
            m.entry(r.host.clone()).or_insert_with(|| e.clone());
        }
    }
}

/// The shared directory, once a work directory was made there.
pub(crate) fn shared_dir() -> Option<PathBuf> {
    crate::runner::workdir::first_parent().map(Path::to_path_buf)
}
