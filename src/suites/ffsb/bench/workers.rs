//! The threads of a run, built from plain data: the profile, the engine,
//! the seed and the file lists the untimed set-up laid out.
//!
//! The threads of one run share their file systems' lists (and, aging,
//! how far aging has come), as FFSB's threads do: a create takes a hole
//! another thread's delete left, a reader never meets a file being
//! deleted. The lists live in an [`Arc`] made by the one
//! [`runner::Workers::workers`] call that builds them all; a thread built
//! alone (a process of its own) would have lists of its own and collide
//! with the others on disk, so these workers run as threads only.

use std::ops::Range;
use std::sync::Arc;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::files::{FsState, ListState};
use super::rand::{RandBytes, THREAD_BYTES};
use super::setup::bound_fs;
use super::thread::{AgeCtl, Params, Thread};
use crate::engine::{Choice, EngineSpec};
use crate::runner::{self, Io};
use crate::suites::ffsb::figures::Ffsb;
use crate::suites::ffsb::profile::{FileSystem, Profile, ThreadGroup};
use crate::workload::worker_rng;

/// Salt of the benchmark threads' PRNG streams, one per group.
const GROUP_SALT: u64 = 0x9E37_79B9_7F4A_7C15;
/// Salt of the aging threads' PRNG streams.
pub(super) const AGE_SALT: u64 = 0x4147_494e_4754_4752;

/// What both kinds of thread are built from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Setting {
    /// The profile as the run uses it (relocated, its time set).
    pub profile: Profile,
    /// The engine of the data operations.
    pub engine: Choice,
    /// `--seed`: every thread's PRNG is seeded from it.
    pub seed: u64,
}

impl Setting {
    /// A thread of `tg` on `fss` (only `fss[bind]` when bound), aging with
    /// `age`: one request at a time (an FFSB operation is a sequence of
    /// calls on one file: open, reads or writes, close).
    fn thread(
        &self,
        tg: &Arc<ThreadGroup>,
        fss: &Arc<[FsState]>,
        bind: Option<usize>,
        age: Option<Arc<AgeCtl>>,
        seeds: Seeds,
    ) -> Result<Thread> {
        let p = &self.profile;
        let spec = EngineSpec::new(self.engine).direct(p.directio);
        let max_len = tg.read_blocksize.max(tg.write_blocksize).max(1) as usize;
        Ok(Thread::new(Params {
            tg: Arc::clone(tg),
            fss: Arc::clone(fss),
            bind,
            age,
            aligned: p.directio || p.alignio,
            rng: RandBytes::new(&mut worker_rng(seeds.rng, seeds.index), THREAD_BYTES),
            engine: Io::new(&spec, 1, max_len, seeds.engine)?,
        }))
    }
}

/// A thread's seeds: its engine's, and its PRNG stream's (`rng`, jumped
/// `index` times).
#[derive(Clone, Copy)]
struct Seeds {
    engine: u64,
    rng: u64,
    index: usize,
}

/// What the threads of the timed phase are built from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThreadPlan {
    #[serde(flatten)]
    pub setting: Setting,
    /// Each file system's data files as the set-up left them, in the
    /// profile's order (`meta/` starts empty; the fill files are aging's).
    pub data: Vec<ListState>,
}

/// The threads of every thread group, in the profile's order; worker `i`
/// is thread `i` counted across the groups. Each hands back its counters
/// ([`crate::suites::ffsb::results::GroupResult`] of one thread). They
/// share their file systems: threads only (see the module's doc).
impl runner::Workers for Ffsb {
    const KIND: &'static str = "ffsb";
    type Payload = ThreadPlan;
    type Worker = Thread;
    fn workers(plan: &ThreadPlan, range: Range<usize>) -> Result<Vec<Thread>> {
        let s = &plan.setting;
        let p = &s.profile;
        let fss: Arc<[FsState]> = p
            .filesystems
            .iter()
            .zip(&plan.data)
            .map(|(fs, data)| {
                let st = FsState::new(fs, p.directio);
                st.data.restore(data.clone());
                st
            })
            .collect();
        let mut threads = Vec::with_capacity(range.len());
        let mut i = 0;
        for (g, tg) in p.threadgroups.iter().enumerate() {
            let shared = Arc::new(tg.clone());
            let bind = bound_fs(p, tg);
            let seed = s.seed ^ GROUP_SALT.wrapping_mul(g as u64 + 1);
            for t in 0..tg.num_threads as usize {
                if range.contains(&i) {
                    let seeds = Seeds {
                        engine: seed.wrapping_add(t as u64),
                        rng: seed,
                        index: t,
                    };
                    threads.push(s.thread(&shared, &fss, bind, None, seeds)?);
                }
                i += 1;
            }
        }
        anyhow::ensure!(
            threads.len() == range.len(),
            "the profile has {i} threads, not {}",
            range.end
        );
        Ok(threads)
    }
}

/// The aging threads of one file system.
pub struct Aging;

/// What the aging threads of one file system are built from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AgePlan {
    #[serde(flatten)]
    pub setting: Setting,
    /// The file system aged: its index in the profile.
    pub fs: usize,
    /// Aging may write at most this many bytes.
    pub max_bytes: u64,
    /// Bytes written before the threads start (the fill files).
    pub written: u64,
    /// The fill files the threads create, append to and delete.
    pub fill: ListState,
}

impl AgePlan {
    /// The file system aged and its aging thread group.
    fn aged(&self) -> Result<(&FileSystem, &ThreadGroup)> {
        let fs = (self.setting.profile.filesystems.get(self.fs))
            .with_context(|| format!("the profile has no file system {}", self.fs))?;
        let tg = fs
            .age_group
            .as_ref()
            .with_context(|| format!("{} has no aging thread group", fs.location.display()))?;
        Ok((fs, tg))
    }
}

/// The aging thread group of a file system, until it is `desired_util`
/// full. Each hands back where aging ended
/// ([`super::thread::AgeEnd`]). They share the file system's fill files
/// and the count of bytes written: threads only (see the module's doc).
impl runner::Workers for Aging {
    const KIND: &'static str = "ffsb-age";
    type Payload = AgePlan;
    type Worker = Thread;
    fn workers(plan: &AgePlan, range: Range<usize>) -> Result<Vec<Thread>> {
        let (fs, tg) = plan.aged()?;
        let s = &plan.setting;
        let st = FsState::new(fs, s.profile.directio);
        st.fill.restore(plan.fill.clone());
        let fss: Arc<[FsState]> = Arc::new([st]);
        let ctl = Arc::new(AgeCtl::new(
            &fs.location,
            fs.desired_util,
            plan.max_bytes,
            plan.written,
        ));
        // the first reading, which sets when the threads read it again
        ctl.poll();
        let shared = Arc::new(tg.clone());
        range
            .map(|t| {
                anyhow::ensure!(t < tg.num_threads as usize, "no aging thread {t}");
                let seeds = Seeds {
                    engine: s.seed ^ AGE_SALT ^ t as u64,
                    rng: s.seed ^ AGE_SALT ^ ((plan.fs as u64) << 32),
                    index: t,
                };
                s.thread(&shared, &fss, None, Some(Arc::clone(&ctl)), seeds)
            })
            .collect()
    }
}
