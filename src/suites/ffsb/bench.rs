//! The run of an FFSB profile: the file sets, aging, and the thread
//! groups, as FFSB 6.0-rc2 does them.
//!
//! ```text
//!   check(options)        every refusal, before anything is written
//!   run(options, tell):
//!     per file system, in order (untimed):
//!       reuse=1 and an earlier iogauge set matches exactly → take it
//!       else: rm data/ meta/ (only iogauge's: the marker), mkdir data/,
//!             data/datadir<i>, meta/; agefs → age; the initial files
//!     time=0 → done
//!     sync, callout, all threads of all groups start together (runner),
//!     each: { op by weight; file system; op; op_delay } until `time`;
//!     sync; remove what the run made (reuse=1 keeps its set)
//! ```
//!
//! How each operation reaches the kernel (data through the engine, one
//! file open at a time, direct I/O with `directio=1`; the rest by this
//! module; every call timed on the same clock):
//!
//! | op | calls (transactions: each read/write call, 1 for the others) |
//! | --- | --- |
//! | read | open O_RDONLY; `read_size` in `read_blocksize` reads from a random start; or `read_size/read_blocksize` reads at random offsets (`read_random`); or reads from 0 `read_skipsize` apart (`read_skip`); close |
//! | readall | open O_RDONLY; the whole file in `read_blocksize` reads; close |
//! | write, write_fsync | open O_WRONLY; `write_size` from a random start, or `write_size/write_blocksize` writes at random offsets (`write_random`); fsync; close |
//! | writeall, writeall_fsync | open O_WRONLY; the whole file in `write_blocksize` writes; fsync; close |
//! | append, append_fsync | open O_WRONLY\|O_APPEND; `write_size` in `write_blocksize` writes; fsync; close |
//! | create, create_fsync | open O_CREAT\|O_RDWR\|O_TRUNC (a hole's name first); a size by the file system's rule in `write_blocksize` writes; fsync; close |
//! | delete | unlink a random file (never the last) |
//! | stat | stat(2) a random file |
//! | open_close | open O_RDONLY; close |
//! | createdir | mkdir `data/datadir<k>` |
//! | metaop | in `meta/`: mkdir two `metafile<n>`, rmdir a random one, rename a random one (+`a`) |
//!
//! Random offsets are uniform in `[0, size − length)`, on 4 KiB
//! boundaries with `alignio` or `directio`. The offsets are the engine's
//! (pread/pwrite with psync), so no lseek(2) is issued and `[stats]`
//! counts none.
//!
//! Where iogauge differs from FFSB 6.0-rc2, and why:
//! - it counts what really happened: every read and write call is a
//!   transaction (FFSB leaves out a read's short last call) and the bytes
//!   are those moved (FFSB's write counts the whole file's size);
//! - each thread's random bytes (FFSB: 20 KiB of /dev/urandom, used over
//!   and over) come from xoshiro256++ seeded by `--seed`, the group and
//!   the thread, so runs repeat; they are used as FFSB uses them, biased
//!   modulo included (see [`rand`]), so the operations come in FFSB's
//!   shares, not exactly the weights';
//! - a delete with one file left does nothing and counts nothing (FFSB
//!   dies on an assertion); an operation that finds no file at all stops
//!   the run with FFSB's "No more files to operate on" as its error;
//! - createdir's directory takes files only once it exists (FFSB counts it
//!   first, and a create may pick it before the mkdir: ENOENT, exit);
//!   createdir prints nothing (FFSB prints `dirnum: N` each time);
//! - a file's size is kept in the file list, not read with stat(2) inside
//!   each operation;
//! - `[stats]` counts the open of a create as `create` (FFSB has the row
//!   but counts it as `open`), and keeps nanoseconds, so `msec_range`s
//!   compare exactly (FFSB truncates to µs); the ranges keep the order
//!   declared;
//! - the run ends when `time` seconds have passed, at the end of the
//!   operations then in progress (FFSB polls each second: up to 1 s more);
//!   the elapsed time runs from the start to the last thread's end,
//!   without the final sync;
//! - `init_size` counts the bytes written (FFSB's comparison is muddled);
//! - aging needs `--allow-aging` and at most `--max-age-bytes`, polls the
//!   utilisation every 100 ms or sooner (FFSB: every second, after a first
//!   second of aging even when the target is met), and stops with an
//!   error if it writes its limit first; an aging thread group with an
//!   operation other than create, append, delete and their fsync forms is
//!   refused (FFSB has no files for those while it ages, and crashes);
//! - profiles that make FFSB stop or crash are refused before anything is
//!   written: a file smaller than `read_size` or `write_size`, O_DIRECT
//!   with sizes that are not multiples of 4 KiB (with `directio`, sizes
//!   drawn from `[min, max)` are multiples of 4 KiB too);
//! - it removes its files at the end (unless `reuse=1`), and never what it
//!   did not make.

mod files;
mod rand;
mod setup;
mod thread;
mod workers;

#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use crate::engine::Choice;
use crate::error::UsageError;
use crate::runner::{self, NoProgress, NoWatch, Placement, Progress, StopRule, signals};
use crate::suites::ffsb::figures::Ffsb;
use crate::suites::ffsb::profile::Profile;
use crate::suites::ffsb::results::{GroupResult, Outcome};

pub use setup::MARKER;
pub use workers::{AgePlan, Aging, Setting, ThreadPlan};

/// The most bytes aging may write unless told otherwise: 4 GiB.
pub const DEFAULT_MAX_AGE_BYTES: u64 = 4 << 30;

/// How to run a profile.
#[derive(Debug, Clone)]
pub struct Options {
    pub profile: Profile,
    /// Seeds every thread's PRNG (with its group and number).
    pub seed: u64,
    /// Aging may write at most this many bytes (default 4 GiB).
    pub max_age_bytes: u64,
    /// `agefs=1` fills the file system: only with this set.
    pub allow_aging: bool,
    /// The engine of the data operations (default psync).
    pub engine: Choice,
    /// An iogauge extension, off by default: the threads' operations at a
    /// rate (open loop) or after a think time; FFSB's own `op_delay`
    /// still applies.
    pub pace: runner::Pace,
}

impl Options {
    /// `profile` with the defaults: seed 0, 4 GiB of aging at most, no
    /// aging allowed, psync.
    pub fn new(profile: Profile) -> Options {
        Options {
            profile,
            seed: 0,
            max_age_bytes: DEFAULT_MAX_AGE_BYTES,
            allow_aging: false,
            engine: Choice::PSYNC,
            pace: runner::Pace::default(),
        }
    }
}

impl Options {
    /// What the threads are built from, beside the file lists.
    fn setting(&self) -> Setting {
        Setting {
            profile: self.profile.clone(),
            engine: self.engine,
            seed: self.seed,
        }
    }
}

/// Every refusal, before anything is written; each is one line.
pub fn check(o: &Options) -> Result<(), String> {
    setup::check(o)
}

/// Run the profile: build (or reuse) the file sets, age, run the thread
/// groups for `time` seconds, clean up. A refusal of [`check`] is an
/// [`UsageError`]; anything that stops the run later (an I/O error, no
/// space, Ctrl-C) is in the [`Outcome`], with what was measured until then.
pub fn run(o: &Options, tell: &dyn Progress) -> anyhow::Result<Outcome> {
    check(o).map_err(UsageError::new)?;
    let p = &o.profile;
    let states: Vec<files::FsState> = p
        .filesystems
        .iter()
        .map(|fs| files::FsState::new(fs, p.directio))
        .collect();
    let mut places = setup::Places::default();
    let mut out = Outcome {
        groups: p
            .threadgroups
            .iter()
            .map(|tg| GroupResult::new(tg.num_threads))
            .collect(),
        ..Default::default()
    };
    let began = Instant::now();
    for (i, st) in states.iter().enumerate() {
        match setup::prepare(o, i, st, &mut places, tell) {
            Ok(s) => out.setup.push(s),
            Err((s, halt)) => {
                out.setup.push(s);
                match halt {
                    setup::Halt::Interrupted => out.interrupted = true,
                    setup::Halt::Failed(e) => out.error = Some(e),
                }
                break;
            }
        }
    }
    tell.say(&format!("fs setup took {} secs", began.elapsed().as_secs()));
    if out.interrupted || out.error.is_some() {
        return Ok(finish(out, places));
    }
    if p.time == 0 {
        tell.say("Setup complete, exiting");
        out.complete = true;
        places.ok();
        return Ok(finish(out, places));
    }
    let plan = ThreadPlan {
        setting: o.setting(),
        data: states.iter().map(|st| st.data.state()).collect(),
    };
    if let Err(e) = bench(o, &plan, &mut out, tell) {
        out.error = Some(e);
    }
    if out.complete {
        places.ok();
    }
    Ok(finish(out, places))
}

/// Clean up; what could not be removed becomes the error if there is
/// none yet.
fn finish(mut out: Outcome, mut places: setup::Places) -> Outcome {
    places.clean();
    if !places.errors.is_empty() && out.error.is_none() {
        out.error = Some(places.errors.join("; "));
        out.complete = false;
    }
    places.errors.clear();
    out
}

/// sync(2), timed and told as FFSB does.
fn sync(tell: &dyn Progress) {
    let t = Instant::now();
    rustix::fs::sync();
    tell.say(&format!("Syncing()...{} sec", t.elapsed().as_secs()));
}

/// Now as ctime(3) prints it.
fn ctime_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    crate::suites::iobench::report::ctime(secs, true)
}

/// The timed part: sync, callout, the thread groups, sync.
fn bench(
    o: &Options,
    plan: &ThreadPlan,
    out: &mut Outcome,
    tell: &dyn Progress,
) -> Result<(), String> {
    let p = &o.profile;
    sync(tell);
    if let Some(cmd) = &p.callout {
        tell.say("executing callout: ");
        tell.say(&format!(" {cmd}"));
        std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(cmd)
            .status()
            .map_err(|e| format!("cannot run the callout '{cmd}': {e}"))?;
    }
    if signals::interrupted() {
        out.interrupted = true;
        return Ok(());
    }
    // each thread's group, in worker order
    let owner: Vec<usize> = (p.threadgroups.iter().enumerate())
        .flat_map(|(g, tg)| std::iter::repeat_n(g, tg.num_threads as usize))
        .collect();
    tell.say(&format!("Starting Actual Benchmark At: {}", ctime_now()));
    tell.say("");
    let rule = StopRule {
        duration: Some(Duration::from_secs(u64::from(p.time))),
        pace: o.pace,
        ..Default::default()
    };
    let r = runner::run_workers::<Ffsb>(
        rule,
        plan,
        owner.len(),
        Placement::Threads,
        &NoProgress,
        &NoWatch,
    )
    .map_err(|e| crate::error::cause(&e))?;
    sync(tell);
    tell.say(&format!("FFSB benchmark finished   at: {}", ctime_now()));
    tell.say("");
    // rank 0 of an MPI job has every rank's threads, rank after rank
    let ranks = crate::cluster::merged_ranks();
    let mut groups: Vec<GroupResult> = p.threadgroups.iter().map(|_| GroupResult::new(0)).collect();
    let owners = owner.iter().cycle().take(owner.len() * ranks);
    for (res, &g) in r.records::<GroupResult>().into_iter().zip(owners) {
        if let Some(res) = res {
            groups[g].merge(&res);
        }
    }
    for (g, tg) in groups.iter_mut().zip(&p.threadgroups) {
        g.threads = tg.num_threads * ranks as u32;
    }
    out.groups = groups;
    out.elapsed = r.elapsed;
    out.cpu = r.cpu;
    out.machine = r.machine;
    out.stats = r.stats;
    out.interrupted = r.interrupted;
    out.error = r.error.map(|e| crate::error::cause(&e));
    out.complete = r.complete;
    out.engine_modes = r.engine_modes;
    Ok(())
}
