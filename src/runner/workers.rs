//! Workers built from plain data.
//!
//! A benchmark's timed phase is N workers. Before it, the benchmark's
//! untimed prepare lays out what they need (files, a database) and writes
//! down what a worker is built from: the payload, plain serde data (the
//! plan, paths, seeds). Every worker is then built from the payload and
//! its index, so the same worker runs as a thread, as a process of the
//! runner's process mode (which hands the payload to each child) or, on
//! many machines, as one rank's share.
//!
//! ```text
//!   prepare (untimed) ──> payload ──> W::workers(payload, 0..n) ──> threads
//!                                └──> serialized ──> child i: W::workers(payload, i..i+1)
//! ```

use super::procs::{self, ProcessSpec};
use super::{Outcome, Progress, StopRule, Watch, Worker};
use anyhow::{Context, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::ops::Range;
use std::os::fd::RawFd;

/// The workers of a benchmark's timed phase, built from a payload.
pub trait Workers {
    /// The name a process spec gives this kind of worker; unique among
    /// the benchmarks' kinds.
    const KIND: &'static str;
    /// What every worker of a run is built from.
    type Payload: Serialize + DeserializeOwned;
    type Worker: Worker;
    /// Workers `range` of the run, built from `payload` (untimed: their
    /// engines, open files, generators). Workers built by one call may
    /// share memory (FFSB's threads share their file sets, TPC-B's
    /// terminals their database's locks); a benchmark whose workers share
    /// nothing may run them as processes, each built alone.
    fn workers(payload: &Self::Payload, range: Range<usize>) -> Result<Vec<Self::Worker>>;
}

/// Where the workers of a run go.
#[derive(Clone, Copy, Debug)]
pub enum Placement<'a> {
    /// Threads of this process (workers built together).
    Threads,
    /// One process each, inheriting descriptors `inherit`.
    Processes { inherit: &'a [RawFd] },
}

impl Placement<'_> {
    /// Processes when `processes`, else threads.
    pub fn of(processes: bool) -> Placement<'static> {
        if processes {
            Placement::Processes { inherit: &[] }
        } else {
            Placement::Threads
        }
    }
}

/// Run `n` workers of `W` built from `payload` under `rule`. Building a
/// worker fails the run before anything is timed; on processes, a child's
/// failure to build is in the outcome like any worker's error.
pub fn run_workers<W: Workers>(
    rule: StopRule,
    payload: &W::Payload,
    n: usize,
    placement: Placement,
    progress: &dyn Progress,
    watch: &dyn Watch,
) -> Result<Outcome> {
    let live = super::live::begin(&rule)?;
    let live: &dyn Watch = match &live {
        Some(l) => l,
        None => &super::NoWatch,
    };
    let mut here = |job: &dyn Watch| {
        run_here::<W>(
            rule,
            payload,
            n,
            placement,
            progress,
            &super::Both(watch, &super::Both(live, job)),
        )
    };
    match PHASE.get() {
        Some(phase) => phase(&mut here),
        None => here(&super::NoWatch),
    }
}

/// Runs one timed phase with the workers of this process: `here` runs
/// them, polling the watch it is handed.
pub type Phase = fn(here: &mut dyn FnMut(&dyn Watch) -> Result<Outcome>) -> Result<Outcome>;

static PHASE: std::sync::OnceLock<Phase> = std::sync::OnceLock::new();

/// Make every timed phase `phase`'s: an MPI rank's phases are the job's
/// (they start together and rank 0's outcome is every rank's).
pub fn set_phase(phase: Phase) {
    let _ = PHASE.set(phase);
}

/// [`run_workers`] on this machine alone (one MPI rank's share).
fn run_here<W: Workers>(
    rule: StopRule,
    payload: &W::Payload,
    n: usize,
    placement: Placement,
    progress: &dyn Progress,
    watch: &dyn Watch,
) -> Result<Outcome> {
    match placement {
        Placement::Threads => {
            // built where the workers will run, under their memory policy
            let workers = rule
                .pin
                .around(|| W::workers(payload, 0..n))
                .context("cannot pin the thread that builds the workers")??;
            Ok(super::run_with(rule, workers, progress, watch))
        }
        Placement::Processes { inherit } => {
            let bytes = serde_json::to_vec(payload)
                .with_context(|| format!("cannot encode the {} workers' payload", W::KIND))?;
            let spec = ProcessSpec {
                kind: W::KIND,
                payload: &bytes,
                workers: n,
                inherit,
            };
            procs::run(rule, &spec, progress, watch)
        }
    }
}

/// Worker `index` of `W` from a serialized payload: a worker process's
/// side of [`run_workers`].
pub fn build<W: Workers + 'static>(payload: &[u8], index: usize) -> Result<Box<dyn Worker>>
where
    W::Worker: 'static,
{
    let p: W::Payload = serde_json::from_slice(payload)
        .with_context(|| format!("cannot read the {} worker's payload", W::KIND))?;
    let w = W::workers(&p, index..index + 1)?
        .pop()
        .with_context(|| format!("the {} payload built no worker {index}", W::KIND))?;
    Ok(Box::new(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::OpKind;
    use crate::runner::{Ctx, NoProgress, NoWatch};

    /// Workers that each record `payload.ops[index]` reads of 1 byte.
    struct Counted;
    struct Counter(u64);

    impl Worker for Counter {
        fn kinds(&self) -> &[OpKind] {
            &[OpKind::Read]
        }
        fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
            for _ in 0..self.0 {
                ctx.record_op(OpKind::Read, 10, 1, crate::measure::clock::now_ns());
            }
            Ok(())
        }
    }

    impl Workers for Counted {
        const KIND: &'static str = "test-counted";
        type Payload = Vec<u64>;
        type Worker = Counter;
        fn workers(p: &Vec<u64>, range: Range<usize>) -> Result<Vec<Counter>> {
            range
                .map(|i| {
                    p.get(i)
                        .map(|&n| Counter(n))
                        .with_context(|| format!("no worker {i}"))
                })
                .collect()
        }
    }

    #[test]
    fn threads_are_built_from_the_payload() {
        let o = run_workers::<Counted>(
            StopRule::default(),
            &vec![3, 4, 5],
            3,
            Placement::Threads,
            &NoProgress,
            &NoWatch,
        )
        .unwrap();
        assert_eq!(o.stats.total_ops(), 12);
        assert!(o.error.is_none());
    }

    #[test]
    fn a_worker_is_built_alone_from_the_serialized_payload() {
        let bytes = serde_json::to_vec(&vec![3u64, 4, 5]).unwrap();
        let w = build::<Counted>(&bytes, 1).unwrap();
        let o = crate::runner::run(StopRule::default(), vec![w], &NoProgress);
        assert_eq!(o.stats.total_ops(), 4);
        let e = build::<Counted>(&bytes, 7).err().unwrap();
        assert_eq!(e.to_string(), "no worker 7");
        let e = build::<Counted>(b"{", 0).err().unwrap();
        assert!(e.to_string().contains("test-counted"), "{e}");
    }

    #[test]
    fn a_worker_that_cannot_be_built_fails_before_the_run() {
        let e = run_workers::<Counted>(
            StopRule::default(),
            &vec![1],
            2,
            Placement::Threads,
            &NoProgress,
            &NoWatch,
        )
        .err()
        .unwrap();
        assert_eq!(e.to_string(), "no worker 1");
    }
}
