//! The job over MPI (the `mpi` crate over the system's Open MPI). Every MPI
//! call is made from the thread that started the command, which is also
//! the thread that oversees a run (MPI_THREAD_FUNNELED).
//!
//! A phase's messages:
//! - clocks: each rank in turn exchanges [`ROUNDS`] timestamps with rank 0
//!   (blocking send and receive); the round with the shortest trip gives
//!   the offset, half that trip its bound;
//! - `DONE`: a rank whose workers have all returned tells rank 0 (16 bytes);
//! - the end word: one non-blocking broadcast from rank 0, posted by every
//!   rank at the start, fired by rank 0 at the first `DONE` under
//!   `--stonewall` (stop, or wear-out) or once every rank is done;
//! - the reports: lengths, then one variable-count gather to rank 0.

use super::merge::{Gather, Offset, RankReport};
use super::{Job, Opts};
use crate::measure::clock::now_ns;
use crate::runner::{Outcome, Watch, signals};
use anyhow::{Context, Result};
use mpi::datatype::PartitionMut;
use mpi::environment::{Threading, Universe};
use mpi::request::{Request, StaticScope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const ROUNDS: usize = 8;
const TAG_CLOCK: i32 = 0x10;
const TAG_DONE: i32 = 0x11;
/// Host names travel in fixed slots of this many bytes.
const HOST: usize = 256;

/// End words.
const END: u64 = 1;
const STOP: u64 = 2;

/// How long rank 0 waits for the survivors' partial reports after a
/// signal (Open MPI kills a job's ranks 1 s after its SIGTERM).
const PARTIAL_WAIT: Duration = Duration::from_millis(500);

/// The universe, kept until [`finish`] finalizes MPI.
struct Held(#[allow(dead_code)] Universe);
// SAFETY: only ever touched from the thread that made it (init, finish).
unsafe impl Send for Held {}
static UNIVERSE: Mutex<Option<Held>> = Mutex::new(None);

fn world() -> SimpleCommunicator {
    SimpleCommunicator::world()
}

pub fn init() -> Result<Job> {
    let (universe, _) = mpi::initialize_with_threading(Threading::Funneled)
        .context("MPI could not be initialized (MPI_Init_thread failed)")?;
    let w = universe.world();
    let (rank, size) = (w.rank() as usize, w.size() as usize);
    let host = mpi::environment::processor_name()
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| {
            let uts = rustix::system::uname();
            uts.nodename().to_string_lossy().into_owned()
        });
    let mut slot = [0u8; HOST];
    let n = host.len().min(HOST);
    slot[..n].copy_from_slice(&host.as_bytes()[..n]);
    let root = w.process_at_rank(0);
    let hosts = if rank == 0 {
        let mut all = vec![0u8; HOST * size];
        root.gather_into_root(&slot[..], &mut all[..]);
        all.chunks(HOST)
            .map(|c| {
                let end = c.iter().position(|&b| b == 0).unwrap_or(HOST);
                String::from_utf8_lossy(&c[..end]).into_owned()
            })
            .collect()
    } else {
        root.gather_into(&slot[..]);
        vec![host]
    };
    let mut id = [now_ns() ^ u64::from(std::process::id()) << 32];
    root.broadcast_into(&mut id[..]);
    *UNIVERSE.lock().unwrap_or_else(|p| p.into_inner()) = Some(Held(universe));
    Ok(Job {
        rank,
        size,
        hosts,
        id: format!("{:08x}", id[0] as u32),
    })
}

pub fn finish() {
    drop(UNIVERSE.lock().unwrap_or_else(|p| p.into_inner()).take());
}

/// Rank `job.rank`'s clock against rank 0's.
fn clocks(w: &SimpleCommunicator, job: &Job) -> Offset {
    if job.rank == 0 {
        for r in 1..job.size {
            let p = w.process_at_rank(r as i32);
            for _ in 0..ROUNDS {
                let (_t, _) = p.receive_with_tag::<u64>(TAG_CLOCK);
                p.send_with_tag(&now_ns(), TAG_CLOCK);
            }
        }
        return Offset::default();
    }
    let root = w.process_at_rank(0);
    let mut best = Offset {
        offset_ns: 0,
        bound_ns: u64::MAX,
    };
    for _ in 0..ROUNDS {
        let t1 = now_ns();
        root.send_with_tag(&t1, TAG_CLOCK);
        let (tr, _) = root.receive_with_tag::<u64>(TAG_CLOCK);
        let t2 = now_ns();
        let half = (t2 - t1) / 2;
        if half < best.bound_ns {
            best = Offset {
                offset_ns: tr as i64 - (t1 + half) as i64,
                bound_ns: half,
            };
        }
    }
    best
}

/// A request MPI still holds; only the main thread touches it.
struct Pending(Request<'static, [u64; 2], StaticScope>);
// SAFETY: made, tested and completed on the thread that runs the phase.
unsafe impl Send for Pending {}

/// A phase's coordination, as the run's watch sees it.
struct Coord {
    rank: usize,
    size: usize,
    opts: Opts,
    state: Mutex<State>,
}

struct State {
    /// The end word's broadcast, until it completes.
    word: &'static mut [u64; 2],
    bcast: Option<Pending>,
    /// What the end word said, once it came (rank 0: once fired).
    ended: Option<u64>,
    /// Rank 0: the ranks done.
    done: Vec<bool>,
    stonewall_ops: Option<u64>,
}

impl Coord {
    fn new(job: &Job, opts: Opts) -> Coord {
        let word: &'static mut [u64; 2] = Box::leak(Box::new([0; 2]));
        let mut st = State {
            word,
            bcast: None,
            ended: None,
            done: vec![false; job.size],
            stonewall_ops: None,
        };
        if job.rank != 0 {
            // SAFETY of the reborrow: the buffer is leaked ('static) and
            // only read through the request's completion.
            let buf: &'static mut [u64; 2] = unsafe { &mut *(st.word as *mut [u64; 2]) };
            let req = world()
                .process_at_rank(0)
                .immediate_broadcast_into(StaticScope, buf);
            st.bcast = Some(Pending(req));
        }
        Coord {
            rank: job.rank,
            size: job.size,
            opts,
            state: Mutex::new(st),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Rank 0: take the `DONE`s that came; fire the end word when due.
    fn root_turn(&self, st: &mut State) {
        let w = world();
        while let Some(status) = w.any_process().immediate_probe_with_tag(TAG_DONE) {
            let src = status.source_rank();
            let (_end, _) = w.process_at_rank(src).receive_with_tag::<u64>(TAG_DONE);
            if let Some(d) = st.done.get_mut(src as usize) {
                *d = true;
            }
        }
        if st.ended.is_none() {
            let any = st.done.iter().any(|&d| d);
            let all = st.done.iter().all(|&d| d);
            let kind = if self.opts.stonewall && any {
                Some(STOP)
            } else if all {
                Some(END)
            } else {
                None
            };
            if let Some(k) = kind {
                st.word[0] = k;
                st.word[1] = now_ns();
                // SAFETY: the buffer is leaked (static); rank 0 never touches it
                // again while the broadcast may read it
                let buf: &'static mut [u64; 2] = unsafe { &mut *(st.word as *mut [u64; 2]) };
                let req = w
                    .process_at_rank(0)
                    .immediate_broadcast_into(StaticScope, buf);
                st.bcast = Some(Pending(req));
                st.ended = Some(k);
            }
        }
        test(st);
    }

    /// Another rank: whether the end word came.
    fn rank_turn(&self, st: &mut State) {
        if st.ended.is_none() && test(st) {
            st.ended = Some(st.word[0]);
        }
    }

    fn turn(&self) -> Option<u64> {
        let mut st = self.lock();
        if self.rank == 0 {
            self.root_turn(&mut st);
        } else {
            self.rank_turn(&mut st);
        }
        st.ended
    }
}

/// Test the broadcast; true once it has completed (or none is pending).
fn test(st: &mut State) -> bool {
    match st.bcast.take() {
        None => true,
        Some(Pending(r)) => match r.test() {
            Ok(_) => true,
            Err(r) => {
                st.bcast = Some(Pending(r));
                false
            }
        },
    }
}

impl Watch for Coord {
    fn poll(&self, done_ops: u64) -> bool {
        if self.turn() != Some(STOP) {
            return false;
        }
        let mut st = self.lock();
        st.stonewall_ops.get_or_insert(done_ops);
        !self.opts.wear_out
    }
    fn polled(&self) -> bool {
        self.size > 1
    }
}

static PHASE: AtomicU64 = AtomicU64::new(0);

pub fn phase(job: &Job, local: &mut dyn FnMut(&dyn Watch) -> Result<Outcome>) -> Result<Outcome> {
    let w = world();
    PHASE.fetch_add(1, Ordering::Relaxed);
    w.barrier();
    let clock_start = clocks(&w, job);
    let coord = Coord::new(job, super::opts());
    start_together(&w, clock_start);
    let o = local(&coord)?;
    let start = crate::runner::last_t0();
    // job.hosts[0] is this rank's host on every rank but 0, and rank 0's there
    let mut report = RankReport::of(job.rank, &job.hosts[0], &o, start);
    report.clock_start = clock_start;
    if !wait_for_end(job, &coord, &o) {
        return Ok(abandon(job, coord, report, o));
    }
    report.stonewall_ops = coord.lock().stonewall_ops;
    if let Some(Pending(r)) = coord.lock().bcast.take() {
        r.wait();
    }
    report.clock_end = clocks(&w, job);
    let (reports, gather) = gather(&w, job, &report)?;
    if job.rank != 0 {
        return Ok(o);
    }
    let (merged, mut phase) = super::merge::merge(reports, &job.hosts)?;
    phase.gather = Some(gather);
    super::push_phase(phase);
    Ok(merged)
}

/// Rank 0's `bytes` on every rank: their length, then them.
pub fn broadcast(mut bytes: Vec<u8>) -> Vec<u8> {
    let w = world();
    let root = w.process_at_rank(0);
    let mut len = [bytes.len() as u64];
    root.broadcast_into(&mut len[..]);
    bytes.resize(len[0] as usize, 0);
    root.broadcast_into(&mut bytes[..]);
    bytes
}

/// Every rank waits for the same instant (rank 0's clock), sleeping, not
/// spinning in a barrier that would take the CPU from ranks still
/// arriving: rank 0 names it 2 ms after every rank has its clock.
fn start_together(w: &SimpleCommunicator, clock: Offset) {
    let mut go = [now_ns() + 2_000_000];
    w.process_at_rank(0).broadcast_into(&mut go[..]);
    let at = go[0].saturating_add_signed(-clock.offset_ns);
    loop {
        let now = now_ns();
        if now >= at {
            break;
        }
        let left = at - now;
        if left > 200_000 {
            std::thread::sleep(Duration::from_nanos(left - 100_000));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// After this rank's workers: tell rank 0, wait for the end word. False
/// when a signal came first (the job is going down).
fn wait_for_end(job: &Job, coord: &Coord, o: &Outcome) -> bool {
    if signals::interrupted() {
        return false;
    }
    let total = o.stats.total_ops();
    if job.rank == 0 {
        coord.lock().done[0] = true;
    } else {
        world()
            .process_at_rank(0)
            .send_with_tag(&now_ns(), TAG_DONE);
    }
    loop {
        if let Some(k) = coord.turn() {
            let mut st = coord.lock();
            if k == STOP {
                st.stonewall_ops.get_or_insert(total);
            }
            // rank 0 goes on until every rank is done
            if job.rank != 0 || st.done.iter().all(|&d| d) {
                return true;
            }
        }
        if signals::interrupted() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Every rank's report to rank 0: lengths, then the bytes.
fn gather(
    w: &SimpleCommunicator,
    job: &Job,
    report: &RankReport,
) -> Result<(Vec<RankReport>, Gather)> {
    let bytes = serde_json::to_vec(report).context("cannot encode this rank's report")?;
    let root = w.process_at_rank(0);
    let len = [i32::try_from(bytes.len()).context("a rank's report is over 2 GiB")?];
    let began = Instant::now();
    if job.rank != 0 {
        root.gather_into(&len[..]);
        root.gather_varcount_into(&bytes[..]);
        return Ok((Vec::new(), Gather::default()));
    }
    let mut lens = vec![0i32; job.size];
    root.gather_into_root(&len[..], &mut lens[..]);
    let displs: Vec<i32> = lens
        .iter()
        .scan(0i32, |acc, &n| {
            let at = *acc;
            *acc += n;
            Some(at)
        })
        .collect();
    let total: usize = lens.iter().map(|&n| n as usize).sum();
    let mut all = vec![0u8; total];
    {
        let mut part = PartitionMut::new(&mut all[..], &lens[..], &displs[..]);
        root.gather_varcount_into_root(&bytes[..], &mut part);
    }
    let seconds = began.elapsed().as_secs_f64();
    let mut reports = Vec::with_capacity(job.size);
    for (i, (&at, &n)) in displs.iter().zip(&lens).enumerate() {
        let slice = &all[at as usize..(at + n) as usize];
        reports.push(
            serde_json::from_slice(slice)
                .with_context(|| format!("rank {i}'s report cannot be read"))?,
        );
    }
    Ok((
        reports,
        Gather {
            bytes: total as u64,
            max_rank_bytes: lens.iter().map(|&n| n as u64).max().unwrap_or(0),
            seconds,
        },
    ))
}

/// The job is going down (a signal: mpirun's SIGTERM after a rank died,
/// or Ctrl-C): no more collectives. Another rank leaves its report in the
/// shared directory; rank 0 merges its own with those that come in time
/// and names the ranks that did not report.
fn abandon(job: &Job, coord: Coord, report: RankReport, o: Outcome) -> Outcome {
    // MPI may still write the broadcast's buffer: never free it
    if let Some(p) = coord.lock().bcast.take() {
        std::mem::forget(p);
    }
    if job.rank != 0 {
        match super::partial_path(job, job.rank) {
            Some(p) => match serde_json::to_vec(&report)
                .map_err(anyhow::Error::from)
                .and_then(|b| Ok(std::fs::write(&p, b)?))
            {
                Ok(()) => {}
                Err(e) => eprintln!(
                    "iogauge: rank {}: cannot leave its partial report at {}: {e}",
                    job.rank,
                    p.display()
                ),
            },
            None => eprintln!(
                "iogauge: rank {}: stopped before its work directory existed; it has nothing to report",
                job.rank
            ),
        }
        return o;
    }
    let mut reports = vec![report];
    let deadline = Instant::now() + PARTIAL_WAIT;
    let mut want: Vec<usize> = (1..job.size).collect();
    while !want.is_empty() && Instant::now() < deadline {
        want.retain(|&r| {
            let Some(p) = super::partial_path(job, r) else {
                return true;
            };
            let Ok(b) = std::fs::read(&p) else {
                return true;
            };
            match serde_json::from_slice::<RankReport>(&b) {
                Ok(rep) => {
                    let _ = std::fs::remove_file(&p);
                    reports.push(rep);
                    false
                }
                // still being written
                Err(_) => true,
            }
        });
        std::thread::sleep(Duration::from_millis(5));
    }
    match super::merge::merge(reports, &job.hosts) {
        Ok((merged, phase)) => {
            if let Some(e) = &merged.error {
                eprintln!("iogauge: {e}");
            }
            super::push_phase(phase);
            merged
        }
        Err(e) => {
            eprintln!("iogauge: the ranks' partial reports cannot be merged: {e}");
            o
        }
    }
}
