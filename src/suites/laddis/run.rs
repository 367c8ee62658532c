//! One LADDIS load point: `procs` load-generating processes (threads here)
//! draw NFS operations from the mix and issue each as the local system call
//! a client turns into it, on a file set made untimed beforehand.
//!
//! ```text
//!   Setup (space for the set and its 10 % growth, descriptors for the
//!          working set)
//!     └─ fileset::build (untimed): files, directories, links, names
//!   runner: procs × { next_request; draw an op; its local call } until
//!           the time is up, at --rate (open loop) or back to back
//!   the work directory is removed
//! ```
//!
//! Each request is one NFS operation. The runner records it under the
//! nearest [`OpKind`] (lookup, getattr, setattr, readlink and fsstat as
//! `stat`; read; write as `write` or `append`; create, link, symlink and
//! mkdir as `create`; remove and rmdir as `delete`; rename; readdir), and
//! each worker also keeps its own statistics per NFS operation, handed back
//! through [`Worker::finish`]. Operations without a local call (null, root,
//! wrcache) are counted as issued, with a time of 0, and nothing is called.
//!
//! The figures: NFS ops/s and the average response time (in an open loop
//! from each request's intended start, else the service time); LADDIS's
//! single figure is the highest throughput whose average response time is
//! at most 50 ms, so the report says whether this point meets it.

use super::fileset::{self, FAILED_LOOKUP_PERCENT, ProcSet};
use super::mix::{APPEND_SHARE, BLOCK_BYTES, Mix, NfsOp, fileset_bytes, transfer_size};
use crate::data::fill_random;
use crate::error::UsageError;
use crate::measure::clock::now_ns;
use crate::measure::{KindStats, LatencySummary, OpKind};
use crate::report::RunResult;
use crate::runner::{self, Arrivals, Ctx, NoWatch, Placement, Progress, StopRule, Worker};
use crate::session::Setup;
use crate::units::fmt_bytes;
use crate::workload::{Prng, below, worker_rng};
use anyhow::{Context, Result};
use rand_xoshiro::rand_core::Rng;
use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, CWD, Mode, OFlags, Timespec, Timestamps};
use rustix::io::Errno;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ffi::CString;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// LADDIS's response-time limit: its single figure is the highest
/// throughput whose average response time is at most this.
pub const LIMIT_MS: f64 = 50.0;
/// Most load-generating processes.
pub const MAX_PROCS: usize = 1024;
/// The load a file set is sized for when none is given: 10 NFS ops/s.
pub const DEFAULT_CLAIM: f64 = 10.0;
/// The set's size with `--scaling off` when none is given.
pub const DEFAULT_FILESET: u64 = 64 << 20;
/// Descriptors a process holds beside its working set (a directory read,
/// a create, the syncfs).
const SPARE_FDS: u64 = 4;

/// One load point as asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// Load-generating processes (one thread each); on many clients, on
    /// each (SPEC's processes per client).
    pub procs: usize,
    /// On many clients: `Some(n)`, the server's `n` processes shared out
    /// between the clients, remainders to the low ranks (`iogauge scale`'s
    /// load across ranks), instead of `procs` on each.
    pub spread: Option<usize>,
    /// The NFS ops/s the file set is sized for (5.4 MiB each).
    pub claim: f64,
    /// `Some(bytes)`: the set's size, not scaled with the claim
    /// (`--scaling off`).
    pub fileset: Option<u64>,
    pub mix: Mix,
    pub seed: u64,
    /// Parent of the work directory.
    pub dir: PathBuf,
}

impl Options {
    /// 4 processes, a set sized for 10 ops/s, the nhfsstone mix.
    pub fn new(dir: &Path) -> Options {
        Options {
            procs: 4,
            spread: None,
            claim: DEFAULT_CLAIM,
            fileset: None,
            mix: Mix::nhfsstone(),
            seed: 1,
            dir: dir.to_path_buf(),
        }
    }

    /// The file set's size in bytes.
    pub fn fileset_bytes(&self) -> u64 {
        self.fileset.unwrap_or_else(|| fileset_bytes(self.claim))
    }

    /// Each client's processes, in rank order (one client outside an MPI
    /// job).
    pub fn layout(&self) -> Vec<usize> {
        let clients = crate::cluster::ranks();
        match self.spread {
            Some(n) => (0..clients)
                .map(|c| n / clients + usize::from(c < n % clients))
                .collect(),
            None => vec![self.procs; clients],
        }
    }

    /// This client's processes: the server's processes `first..end`.
    pub fn mine(&self) -> Range<usize> {
        let layout = self.layout();
        let rank = crate::cluster::rank().min(layout.len() - 1);
        let first = layout[..rank].iter().sum();
        first..first + layout[rank]
    }

    /// Refuse what cannot run, naming the flag to change.
    pub fn check(&self) -> Result<(), String> {
        if self.procs == 0 || self.procs > MAX_PROCS {
            return Err(format!(
                "--procs {}: 1 to {MAX_PROCS} processes",
                self.procs
            ));
        }
        let layout = self.layout();
        if let Some(n) = self.spread
            && (layout.contains(&0) || layout.iter().any(|&p| p > MAX_PROCS))
        {
            return Err(format!(
                "{n} processes over {} clients: 1 to {MAX_PROCS} on each",
                layout.len()
            ));
        }
        let all: usize = layout.iter().sum();
        if !(self.claim.is_finite() && self.claim > 0.0) {
            return Err(format!(
                "--claim {}: give the NFS ops/s the file set is sized for, above 0",
                self.claim
            ));
        }
        let bytes = self.fileset_bytes();
        let clients = layout.len();
        let least = fileset::MIN_BYTES_PER_PROC * all as u64;
        if bytes < least {
            let what = match self.fileset {
                Some(_) => "--fileset".to_string(),
                None => format!("--claim {} (5.4 MiB per op/s)", self.claim),
            };
            let who = if clients > 1 {
                format!("{all} processes on {clients} clients")
            } else {
                format!("{all} processes")
            };
            return Err(format!(
                "{what} gives a file set of {}, less than the {} that {who} need (64 KiB each); give a larger set or fewer --procs",
                fmt_bytes(bytes),
                fmt_bytes(least),
            ));
        }
        Ok(())
    }
}

/// What a process does with a pool of names that may or may not exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Absent,
    File,
    Link,
    Symlink,
}

/// One NFS operation's statistics in one process.
#[derive(Debug)]
struct OpStats {
    service: KindStats,
    /// Open loop: from the request's intended start.
    response: KindStats,
    /// Calls that returned an error (failed lookups are meant to).
    failed: u64,
}

/// What every load-generating process of a load point is built from: the
/// mix, each process's share of the file set made before timing
/// ([`prepare`]), the seed, and whether the times run from each request's
/// intended start (open loop).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Clients {
    pub mix: Mix,
    pub sets: Vec<ProcSet>,
    pub seed: u64,
    /// The server's index of the first process (on many clients, client
    /// `c`'s first is `c × procs`): process `k` draws stream `first + k`.
    pub first: usize,
    pub open_loop: bool,
}

/// Each process works in its own share of the set and shares nothing
/// with the others.
impl runner::Workers for super::Laddis {
    const KIND: &'static str = "laddis";
    type Payload = Clients;
    type Worker = Client;
    fn workers(p: &Clients, range: Range<usize>) -> Result<Vec<Client>> {
        range
            .map(|i| {
                let set = p
                    .sets
                    .get(i)
                    .with_context(|| format!("the file set has no share for process {i}"))?;
                let k = p.first + i;
                let rng = worker_rng(p.seed, k);
                Client::new(set.clone(), &p.mix, rng, p.seed ^ k as u64, p.open_loop)
            })
            .collect()
    }
}

/// One load-generating process.
pub struct Client {
    set: ProcSet,
    /// The working set, open for reading and writing.
    fds: Vec<OwnedFd>,
    /// Each working file's length now and at the start.
    len: Vec<u64>,
    base: Vec<u64>,
    /// Bytes appends added, and how many they may add.
    grown: u64,
    growth_limit: u64,
    names: Vec<Slot>,
    empty: Vec<bool>,
    mix: Mix,
    rng: Prng,
    wbuf: Vec<u8>,
    rbuf: Vec<u8>,
    dbuf: Vec<MaybeUninit<u8>>,
    lbuf: Vec<u8>,
    ops: Vec<Option<Box<OpStats>>>,
    open_loop: bool,
}

/// The op kinds a process records.
const KINDS: &[OpKind] = &[
    OpKind::Stat,
    OpKind::Read,
    OpKind::Write,
    OpKind::Append,
    OpKind::Create,
    OpKind::Delete,
    OpKind::Rename,
    OpKind::Readdir,
    OpKind::Mkdir,
    OpKind::Rmdir,
];

/// The kind the runner records an NFS operation under.
pub fn kind_of(op: NfsOp, append: bool) -> Option<OpKind> {
    Some(match op {
        NfsOp::Null | NfsOp::Root | NfsOp::WrCache => return None,
        NfsOp::GetAttr | NfsOp::SetAttr | NfsOp::Lookup | NfsOp::ReadLink | NfsOp::FsStat => {
            OpKind::Stat
        }
        NfsOp::Read => OpKind::Read,
        NfsOp::Write if append => OpKind::Append,
        NfsOp::Write => OpKind::Write,
        NfsOp::Create | NfsOp::Link | NfsOp::Symlink => OpKind::Create,
        NfsOp::Mkdir => OpKind::Mkdir,
        NfsOp::Remove => OpKind::Delete,
        NfsOp::Rmdir => OpKind::Rmdir,
        NfsOp::Rename => OpKind::Rename,
        NfsOp::ReadDir => OpKind::Readdir,
    })
}

/// A finished call: its outcome, service time and end.
struct Done {
    kind: OpKind,
    lat_ns: u64,
    done_ns: u64,
    bytes: u64,
    failed: bool,
}

/// Whether `r` failed with an error the call was expected to meet
/// (`Ok(true)`), succeeded (`Ok(false)`) or failed otherwise (`Err`).
fn outcome<T>(r: rustix::io::Result<T>, expected: &[Errno], what: &CString) -> Result<bool> {
    match r {
        Ok(_) => Ok(false),
        Err(e) if expected.contains(&e) => Ok(true),
        Err(e) => {
            Err(std::io::Error::from(e)).with_context(|| format!("{}", what.to_string_lossy()))
        }
    }
}

impl Client {
    fn new(set: ProcSet, mix: &Mix, rng: Prng, seed: u64, open_loop: bool) -> Result<Client> {
        let mut fds = Vec::with_capacity(set.working.len());
        for &w in &set.working {
            let p = &set.files[w];
            let fd = rustix::fs::open(p.as_c_str(), OFlags::RDWR | OFlags::CLOEXEC, Mode::empty())
                .map_err(std::io::Error::from)
                .with_context(|| format!("opening {}", p.to_string_lossy()))?;
            fds.push(fd);
        }
        let base: Vec<u64> = set.working.iter().map(|&w| set.sizes[w]).collect();
        let total: u64 = set.sizes.iter().sum();
        let mut wbuf = vec![0u8; 64 * 1024];
        fill_random(&mut wbuf, seed);
        let names = (0..set.names.len())
            .map(|k| {
                if fileset::exists_at_start(k) {
                    Slot::File
                } else {
                    Slot::Absent
                }
            })
            .collect();
        let empty = (0..set.empty_dirs.len())
            .map(fileset::exists_at_start)
            .collect();
        let ops = NfsOp::ALL
            .iter()
            .map(|&op| {
                (mix.weight(op) > 0).then(|| {
                    Box::new(OpStats {
                        service: KindStats::new(),
                        response: KindStats::new(),
                        failed: 0,
                    })
                })
            })
            .collect();
        Ok(Client {
            fds,
            len: base.clone(),
            base,
            grown: 0,
            growth_limit: (total * fileset::DELTA_PERCENT / 100).max(u64::from(BLOCK_BYTES)),
            names,
            empty,
            mix: mix.clone(),
            rng,
            wbuf,
            rbuf: vec![0u8; BLOCK_BYTES as usize],
            dbuf: vec![MaybeUninit::uninit(); 32 * 1024],
            lbuf: vec![0u8; 4096],
            ops,
            open_loop,
            set,
        })
    }

    fn pick(&mut self, n: usize) -> usize {
        below(&mut self.rng, n as u64) as usize
    }

    /// A slot of `pool` that `want` accepts, searched from a random start
    /// (as SFS picks its files); `None` when there is none.
    fn find<T: Copy>(rng: &mut Prng, pool: &[T], want: impl Fn(T) -> bool) -> Option<usize> {
        let n = pool.len();
        if n == 0 {
            return None;
        }
        let start = below(rng, n as u64) as usize;
        (0..n).map(|k| (start + k) % n).find(|&i| want(pool[i]))
    }

    /// Issue one NFS operation; `None` for one without a local call.
    fn call(&mut self, op: NfsOp) -> Result<Option<Done>> {
        let kind = match kind_of(op, false) {
            Some(k) => k,
            None => return Ok(None),
        };
        match op {
            NfsOp::Null | NfsOp::Root | NfsOp::WrCache => Ok(None),
            NfsOp::Lookup => self.lookup(kind),
            NfsOp::GetAttr => self.get_attr(kind),
            NfsOp::SetAttr => self.set_attr(kind),
            NfsOp::ReadLink => self.read_link(kind),
            NfsOp::Read => self.read(kind),
            NfsOp::Write => self.write(),
            NfsOp::Create => self.create(kind),
            NfsOp::Remove => self.remove(kind),
            NfsOp::Rename => self.rename(kind),
            NfsOp::Link | NfsOp::Symlink => self.link(kind, op),
            NfsOp::Mkdir | NfsOp::Rmdir => self.mkdir_or_rmdir(kind, op),
            NfsOp::ReadDir => self.read_dir(kind),
            NfsOp::FsStat => self.fs_stat(kind),
        }
    }

    /// Look up a file name; some are of missing files, as in the mix.
    fn lookup(&mut self, kind: OpKind) -> Result<Option<Done>> {
        if below(&mut self.rng, 100) < FAILED_LOOKUP_PERCENT {
            let i = self.pick(self.set.missing.len());
            let p = &self.set.missing[i];
            let t = now_ns();
            let r = rustix::fs::stat(p.as_c_str());
            return self.done(kind, t, 0, outcome(r, &[Errno::NOENT], p)?);
        }
        let i = self.pick(self.set.files.len());
        let p = &self.set.files[i];
        let t = now_ns();
        let r = rustix::fs::stat(p.as_c_str());
        self.done(kind, t, 0, outcome(r, &[], p)?)
    }

    /// The attributes of an open working file.
    fn get_attr(&mut self, kind: OpKind) -> Result<Option<Done>> {
        let w = self.pick(self.fds.len());
        let t = now_ns();
        let r = rustix::fs::fstat(&self.fds[w]);
        self.done(
            kind,
            t,
            0,
            outcome(r, &[], &self.set.files[self.set.working[w]])?,
        )
    }

    /// Change a file's mode or times.
    fn set_attr(&mut self, kind: OpKind) -> Result<Option<Done>> {
        let i = self.pick(self.set.files.len());
        let chmod = self.rng.next_u64() & 1 == 0;
        let p = &self.set.files[i];
        let t = now_ns();
        let r = if chmod {
            rustix::fs::chmod(p.as_c_str(), Mode::from_raw_mode(0o640 | (i as u32 & 4)))
        } else {
            let now = Timespec {
                tv_sec: 0,
                tv_nsec: rustix::fs::UTIME_NOW,
            };
            let ts = Timestamps {
                last_access: now,
                last_modification: now,
            };
            rustix::fs::utimensat(CWD, p.as_c_str(), &ts, AtFlags::empty())
        };
        self.done(kind, t, 0, outcome(r, &[], p)?)
    }

    /// Read a symbolic link.
    fn read_link(&mut self, kind: OpKind) -> Result<Option<Done>> {
        let i = self.pick(self.set.symlinks.len());
        let p = &self.set.symlinks[i];
        let t = now_ns();
        let r = rustix::fs::readlinkat_raw(CWD, p.as_c_str(), &mut self.lbuf[..]);
        self.done(kind, t, 0, outcome(r, &[], p)?)
    }

    /// Read from a working file at a 1 KiB-aligned offset.
    fn read(&mut self, kind: OpKind) -> Result<Option<Done>> {
        let w = self.pick(self.fds.len());
        let n = u64::from(transfer_size(self.rng.next_u64()));
        let len = self.len[w];
        let off = if len > n {
            below(&mut self.rng, (len - n) / 1024 + 1) * 1024
        } else {
            0
        };
        let t = now_ns();
        let r = rustix::io::pread(&self.fds[w], &mut self.rbuf[..n as usize], off);
        let end = now_ns();
        let p = &self.set.files[self.set.working[w]];
        let got = match r {
            Ok(k) => k as u64,
            Err(e) => {
                return Err(std::io::Error::from(e))
                    .with_context(|| format!("reading {}", p.to_string_lossy()));
            }
        };
        Ok(Some(Done {
            kind,
            lat_ns: end.saturating_sub(t),
            done_ns: end,
            bytes: got,
            failed: false,
        }))
    }

    /// Write to a working file, or append, holding the set within its growth.
    fn write(&mut self) -> Result<Option<Done>> {
        let w = self.pick(self.fds.len());
        let n = u64::from(transfer_size(self.rng.next_u64()));
        let append = unit(&mut self.rng) < APPEND_SHARE;
        if append && self.grown + n > self.growth_limit {
            // hold the set within its growth: cut this file back
            let extra = self.len[w] - self.base[w];
            if extra > 0 {
                rustix::fs::ftruncate(&self.fds[w], self.base[w])
                    .map_err(std::io::Error::from)
                    .context("cutting a file back to its starting length")?;
                self.grown -= extra;
                self.len[w] = self.base[w];
            }
        }
        let len = self.len[w];
        let off = if append {
            len
        } else if len > n {
            below(&mut self.rng, (len - n) / 1024 + 1) * 1024
        } else {
            0
        };
        let s = self.pick(self.wbuf.len() - n as usize + 1);
        let kind = if append {
            OpKind::Append
        } else {
            OpKind::Write
        };
        let t = now_ns();
        let r = rustix::io::pwrite(&self.fds[w], &self.wbuf[s..s + n as usize], off);
        let end = now_ns();
        let k = match r {
            Ok(k) => k as u64,
            Err(e) => {
                let p = &self.set.files[self.set.working[w]];
                return Err(std::io::Error::from(e))
                    .with_context(|| format!("writing {}", p.to_string_lossy()));
            }
        };
        let new_len = len.max(off + k);
        self.grown += new_len - len;
        self.len[w] = new_len;
        Ok(Some(Done {
            kind,
            lat_ns: end.saturating_sub(t),
            done_ns: end,
            bytes: k,
            failed: false,
        }))
    }

    /// Create a name that does not exist (else re-create an empty one).
    fn create(&mut self, kind: OpKind) -> Result<Option<Done>> {
        let (i, flags) = match Self::find(&mut self.rng, &self.names, |s| s == Slot::Absent) {
            Some(i) => (i, OFlags::EXCL),
            // every name exists: re-create an empty one (NFS v2's
            // CREATE of an existing name truncates it)
            None => match Self::find(&mut self.rng, &self.names, |s| s == Slot::File) {
                Some(i) => (i, OFlags::TRUNC),
                None => (self.pick(self.names.len()), OFlags::EXCL),
            },
        };
        let p = &self.set.names[i];
        let t = now_ns();
        let r = rustix::fs::open(
            p.as_c_str(),
            OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC | flags,
            Mode::from_raw_mode(0o644),
        )
        .map(drop);
        let failed = outcome(r, &[Errno::EXIST], p)?;
        if !failed {
            self.names[i] = Slot::File;
        }
        self.done(kind, t, 0, failed)
    }

    /// Remove a name that exists.
    fn remove(&mut self, kind: OpKind) -> Result<Option<Done>> {
        let i = Self::find(&mut self.rng, &self.names, |s| s != Slot::Absent)
            .unwrap_or_else(|| self.pick(self.names.len()));
        let p = &self.set.names[i];
        let t = now_ns();
        let r = rustix::fs::unlink(p.as_c_str());
        let failed = outcome(r, &[Errno::NOENT], p)?;
        self.names[i] = Slot::Absent;
        self.done(kind, t, 0, failed)
    }

    /// Rename a name that exists, to one that does not if there is one.
    fn rename(&mut self, kind: OpKind) -> Result<Option<Done>> {
        let from = Self::find(&mut self.rng, &self.names, |s| s != Slot::Absent)
            .unwrap_or_else(|| self.pick(self.names.len()));
        // to a name that does not exist, else onto another that does
        let to = Self::find(&mut self.rng, &self.names, |s| s == Slot::Absent)
            .or_else(|| {
                let n = self.names.len();
                (n > 1).then(|| (from + 1 + self.pick(n - 1)) % n)
            })
            .unwrap_or(from);
        let (a, b) = (&self.set.names[from], &self.set.names[to]);
        let t = now_ns();
        let r = rustix::fs::rename(a.as_c_str(), b.as_c_str());
        let failed = outcome(r, &[Errno::NOENT], a)?;
        if !failed && from != to {
            self.names[to] = self.names[from];
            self.names[from] = Slot::Absent;
        }
        self.done(kind, t, 0, failed)
    }

    /// A hard or symbolic link to a file, at a name that does not exist.
    fn link(&mut self, kind: OpKind, op: NfsOp) -> Result<Option<Done>> {
        let i = Self::find(&mut self.rng, &self.names, |s| s == Slot::Absent)
            .unwrap_or_else(|| self.pick(self.names.len()));
        let j = self.pick(self.set.files.len());
        let (target, p) = (&self.set.files[j], &self.set.names[i]);
        let t = now_ns();
        let r = if op == NfsOp::Link {
            rustix::fs::link(target.as_c_str(), p.as_c_str())
        } else {
            rustix::fs::symlink(target.as_c_str(), p.as_c_str())
        };
        let failed = outcome(r, &[Errno::EXIST], p)?;
        if !failed {
            self.names[i] = if op == NfsOp::Link {
                Slot::Link
            } else {
                Slot::Symlink
            };
        }
        self.done(kind, t, 0, failed)
    }

    /// Make an empty directory, or remove one.
    fn mkdir_or_rmdir(&mut self, kind: OpKind, op: NfsOp) -> Result<Option<Done>> {
        let make = op == NfsOp::Mkdir;
        let i = Self::find(&mut self.rng, &self.empty, |e| e != make)
            .unwrap_or_else(|| self.pick(self.empty.len()));
        let p = &self.set.empty_dirs[i];
        let t = now_ns();
        let r = if make {
            rustix::fs::mkdir(p.as_c_str(), Mode::from_raw_mode(0o755))
        } else {
            rustix::fs::rmdir(p.as_c_str())
        };
        let failed = outcome(r, &[Errno::EXIST, Errno::NOENT], p)?;
        self.empty[i] = make;
        self.done(kind, t, 0, failed)
    }

    /// Read a whole directory.
    fn read_dir(&mut self, kind: OpKind) -> Result<Option<Done>> {
        let i = self.pick(self.set.dirs.len());
        let p = &self.set.dirs[i];
        let t = now_ns();
        let r = read_dir(p, &mut self.dbuf);
        let failed = outcome(r, &[], p)?;
        self.done(kind, t, 0, failed)
    }

    /// The file system's statistics.
    fn fs_stat(&mut self, kind: OpKind) -> Result<Option<Done>> {
        let p = &self.set.root;
        let t = now_ns();
        let r = rustix::fs::statvfs(p.as_c_str());
        let failed = outcome(r, &[], p)?;
        self.done(kind, t, 0, failed)
    }

    /// A metadata call that began at `t` ends now.
    fn done(&self, kind: OpKind, t: u64, bytes: u64, failed: bool) -> Result<Option<Done>> {
        let end = now_ns();
        Ok(Some(Done {
            kind,
            lat_ns: end.saturating_sub(t),
            done_ns: end,
            bytes,
            failed,
        }))
    }

    fn record(&mut self, ctx: &mut Ctx, op: NfsOp, d: Option<Done>) {
        let Some(s) = self.ops[op.index()].as_deref_mut() else {
            return;
        };
        let Some(d) = d else {
            // no local call: issued, at no cost
            s.service.record(0, 0);
            if self.open_loop {
                s.response.record(0, 0);
            }
            return;
        };
        ctx.record_op(d.kind, d.lat_ns, d.bytes, d.done_ns);
        s.service.record(d.lat_ns, d.bytes);
        if let Some(start) = ctx.response_start_ns() {
            s.response.record(d.done_ns.saturating_sub(start), 0);
        }
        s.failed += u64::from(d.failed);
    }
}

fn unit(r: &mut Prng) -> f64 {
    crate::workload::unit_f64(r)
}

/// Read a whole directory (open, every entry, close).
fn read_dir(p: &CString, buf: &mut [MaybeUninit<u8>]) -> rustix::io::Result<usize> {
    let fd = rustix::fs::open(
        p.as_c_str(),
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let mut dir = rustix::fs::RawDir::new(&fd, buf);
    let mut n = 0;
    while let Some(e) = dir.next() {
        e?;
        n += 1;
    }
    Ok(n)
}

impl Worker for Client {
    fn kinds(&self) -> &[OpKind] {
        KINDS
    }

    /// One NFS operation a transaction.
    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        ctx.transact(|ctx| {
            let op = self.mix.choose(self.rng.next_u64());
            let d = self.call(op)?;
            self.record(ctx, op, d);
            Ok(true)
        })
    }

    fn finish(&mut self) -> serde_json::Value {
        let v: Vec<OpWire> = NfsOp::ALL
            .iter()
            .filter_map(|&op| {
                let s = self.ops[op.index()].as_deref()?;
                Some(OpWire {
                    op: op.name().to_string(),
                    failed: s.failed,
                    service: s.service.clone(),
                    response: self.open_loop.then(|| s.response.clone()),
                })
            })
            .collect();
        serde_json::to_value(v).unwrap_or_default()
    }
}

/// One NFS operation as a process hands it back.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct OpWire {
    op: String,
    failed: u64,
    service: KindStats,
    response: Option<KindStats>,
}

/// One NFS operation's line of the report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "laddisOp")]
pub struct OpFigure {
    /// The NFS operation (`lookup`, `read`, ...).
    pub op: String,
    /// Its share of the mix, percent.
    pub mix_pct: u32,
    /// Its share of the operations issued, percent.
    pub actual_pct: f64,
    /// Times it was issued.
    pub count: u64,
    /// Calls that returned an error (lookups of missing names are meant to).
    pub failed: u64,
    /// Mean time, ms: response time in an open loop, else service time.
    pub mean_ms: f64,
    /// 90th percentile of the same time, ms.
    pub p90_ms: f64,
}

/// What the times are measured from.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "laddisBasis")]
pub enum Basis {
    /// Open loop: from each request's intended start.
    Response,
    /// Closed loop: from the call's start.
    #[default]
    Service,
}

/// What a LADDIS result's `config` holds: the load point as run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Load-generating processes (on many clients, the first client's).
    pub procs: usize,
    /// The NFS ops/s the file set is sized for.
    pub claim_ops_per_s: f64,
    /// Whether the set was sized from the claim (else `--fileset`).
    pub scaling: bool,
    pub fileset_bytes: u64,
    /// `nhfsstone`, `sfs2` or the mix file's path.
    pub mix: String,
    /// Each operation's percentage, for those in the mix.
    pub mix_table: BTreeMap<String, u32>,
    pub duration_s: Option<f64>,
    /// Open loop: NFS ops/s offered.
    pub rate: Option<f64>,
    pub arrivals: Arrivals,
    /// Closed loop: the mean think time.
    pub thinktime_s: Option<f64>,
    pub seed: u64,
}

impl Plan {
    fn of(o: &Options, rule: &StopRule) -> Plan {
        Plan {
            procs: o.mine().len(),
            claim_ops_per_s: o.claim,
            scaling: o.fileset.is_none(),
            fileset_bytes: o.fileset_bytes(),
            mix: o.mix.name().to_string(),
            mix_table: NfsOp::ALL
                .iter()
                .filter(|&&op| o.mix.weight(op) > 0)
                .map(|&op| (op.name().to_string(), o.mix.weight(op)))
                .collect(),
            duration_s: rule.duration.map(|d| d.as_secs_f64()),
            rate: rule.pace.rate,
            arrivals: rule.pace.arrivals,
            thinktime_s: rule.pace.think.map(|t| t.as_secs_f64()),
            seed: o.seed,
        }
    }
}

/// The figures of a load point: a LADDIS result's `metrics`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "laddisFigures")]
pub struct Figures {
    /// NFS operations issued (those without a local call included).
    pub nfs_ops: u64,
    /// NFS operations per second of the run.
    pub nfs_ops_per_s: f64,
    /// Average response time, ms: from the intended start in an open loop,
    /// else the service time.
    pub mean_response_ms: f64,
    /// What the times are measured from.
    pub response_basis: Basis,
    /// Whether the average response time is at most 50 ms (false when
    /// nothing ran).
    pub meets_50ms: bool,
    /// One line per operation of the mix, in NFS procedure order.
    pub per_op: Vec<OpFigure>,
    /// Load-generating processes (on many clients, all of them).
    pub procs: usize,
    /// The NFS ops/s the file set is sized for.
    pub claim_ops_per_s: f64,
    /// The file set's size, bytes.
    pub fileset_bytes: u64,
    /// Files in the set.
    pub files: usize,
    /// Files in the processes' working sets (those read and written).
    pub working_set_files: usize,
    /// The mix: `nhfsstone`, `sfs2` or the mix file's path.
    pub mix: String,
    /// Every NFS operation the runner recorded as one distribution of
    /// service times, ns (`mean`, `stddev`, `min`, `max`, `p50` ... `p9999`).
    #[schemars(with = "serde_json::Value")]
    pub request_latency_ns: LatencySummary,
    /// Open loop: the same of response times, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Value>")]
    pub request_response_ns: Option<LatencySummary>,
    /// On many clients (the ranks of an MPI job, more than one): each
    /// client's part, in rank order; the figures above are the server's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<ClientFigure>,
}

/// One client's part of a load point run by many clients: a LADDIS
/// result's `metrics.clients[]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "laddisClient")]
pub struct ClientFigure {
    /// Its MPI rank.
    pub rank: usize,
    /// Its host.
    pub host: String,
    /// Its load-generating processes.
    pub procs: usize,
    /// Open loop: its share of the NFS ops/s offered to the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_ops_per_s: Option<f64>,
    /// Its part of the file set, bytes.
    pub fileset_bytes: u64,
    /// Files in its part of the file set.
    pub files: usize,
    /// Files in its working set.
    pub working_set_files: usize,
    /// NFS operations it issued.
    pub nfs_ops: u64,
    /// Its NFS operations over its own measured time.
    pub nfs_ops_per_s: f64,
    /// Its average response time, ms (as the server's).
    pub mean_response_ms: f64,
}

/// A client's part of the file set, as planned.
#[derive(Clone, Copy, Debug)]
struct Part {
    bytes: u64,
    files: usize,
    working: usize,
}

impl Part {
    fn of(p: &fileset::Plan) -> Part {
        Part {
            bytes: p.bytes(),
            files: p.files(),
            working: p.working_files(),
        }
    }
}

/// Every client's part of the file set, in rank order, given this one's
/// (`own`): on rank 0 of a job, the others' planned again (their sizes
/// only); elsewhere, `own` alone.
fn parts(o: &Options, own: &fileset::Plan) -> Vec<Part> {
    let (rank, clients) = (crate::cluster::rank(), crate::cluster::ranks());
    if clients == 1 || rank != 0 {
        return vec![Part::of(own)];
    }
    let layout = o.layout();
    let all = layout.iter().sum();
    let mut first = 0;
    layout
        .iter()
        .enumerate()
        .map(|(c, &n)| {
            let procs = first..first + n;
            first += n;
            match c {
                0 => Part::of(own),
                _ => Part::of(&fileset::plan_client(o.fileset_bytes(), all, procs, o.seed)),
            }
        })
        .collect()
}

/// The average time of the NFS operations of `ops`, ns, and their count
/// (response times in an open loop, else service times).
fn mean_of(ops: &[OpWire], open: bool) -> (f64, u64) {
    let (mut sum, mut n) = (0.0, 0u64);
    for w in ops {
        let k = match (&w.response, open) {
            (Some(r), true) => r,
            _ => &w.service,
        };
        sum += k.mean_ns() * k.count as f64;
        n += w.service.count;
    }
    (if n > 0 { sum / n as f64 } else { 0.0 }, n)
}

/// Each client's figures, from the job's phase in `result` (rank 0 of a
/// job of more than one rank; empty otherwise): its processes' records
/// are the merged outcome's, in rank order, so many to a rank as it had
/// workers.
fn client_figures(
    parts: &[Part],
    rate: Option<f64>,
    result: &RunResult,
    outcome: &runner::Outcome,
) -> Vec<ClientFigure> {
    let Some(phase) = result.cluster.as_ref().and_then(|c| c.phases.last()) else {
        return Vec::new();
    };
    if parts.len() < 2 {
        return Vec::new();
    }
    let open = result.summary.open_loop.is_some();
    let records = outcome.records::<Vec<OpWire>>();
    let mut next = 0;
    phase
        .per_rank
        .iter()
        .map(|r| {
            let mine = records.get(next..next + r.workers).unwrap_or_default();
            next += r.workers;
            let ops: Vec<OpWire> = mine.iter().flatten().flatten().cloned().collect();
            let (mean_ns, nfs_ops) = mean_of(&ops, open);
            let part = parts.get(r.rank);
            let secs = r.end_s - r.start_s;
            ClientFigure {
                rank: r.rank,
                host: r.host.clone(),
                procs: r.workers,
                offered_ops_per_s: rate.map(|x| x / parts.len() as f64),
                fileset_bytes: part.map_or(0, |p| p.bytes),
                files: part.map_or(0, |p| p.files),
                working_set_files: part.map_or(0, |p| p.working),
                nfs_ops,
                nfs_ops_per_s: if secs > 0.0 {
                    nfs_ops as f64 / secs
                } else {
                    0.0
                },
                mean_response_ms: mean_ns / 1e6,
            }
        })
        .collect()
}

/// Merge what the processes handed back, per NFS operation.
fn merge_ops(outcome: &runner::Outcome) -> Vec<(NfsOp, KindStats, Option<KindStats>, u64)> {
    let mut out: Vec<(NfsOp, KindStats, Option<KindStats>, u64)> = Vec::new();
    for v in outcome.records::<Vec<OpWire>>().into_iter().flatten() {
        for w in v {
            let Some(op) = NfsOp::from_name(&w.op) else {
                continue;
            };
            match out.iter_mut().find(|e| e.0 == op) {
                Some(e) => {
                    e.1.merge(&w.service);
                    if let Some(r) = &w.response {
                        e.2.get_or_insert_with(KindStats::new).merge(r);
                    }
                    e.3 += w.failed;
                }
                None => out.push((op, w.service, w.response, w.failed)),
            }
        }
    }
    out.sort_by_key(|e| e.0);
    out
}

impl Figures {
    /// The figures before anything ran: the load point and its file set
    /// (every client's part).
    fn of_set(o: &Options, parts: &[Part], open: bool) -> Figures {
        Figures {
            response_basis: if open {
                Basis::Response
            } else {
                Basis::Service
            },
            procs: o.layout().iter().sum(),
            claim_ops_per_s: o.claim,
            fileset_bytes: o.fileset_bytes(),
            files: parts.iter().map(|p| p.files).sum(),
            working_set_files: parts.iter().map(|p| p.working).sum(),
            mix: o.mix.name().to_string(),
            ..Figures::default()
        }
    }

    /// The figures of a run over the file set's `parts`: what the
    /// processes handed back and the runner recorded (every client's, on
    /// rank 0 of a job).
    fn of(
        o: &Options,
        parts: &[Part],
        rate: Option<f64>,
        result: &RunResult,
        outcome: &runner::Outcome,
    ) -> Figures {
        let ms = |ns: f64| ns / 1e6;
        let open = result.summary.open_loop.is_some();
        let mix = &o.mix;
        let ops = merge_ops(outcome);
        let nfs_ops: u64 = ops.iter().map(|e| e.1.count).sum();
        let per_op = NfsOp::ALL
            .iter()
            .filter(|&&op| mix.weight(op) > 0)
            .map(|&op| {
                let e = ops.iter().find(|e| e.0 == op);
                let count = e.map_or(0, |e| e.1.count);
                let k = e.and_then(|e| if open { e.2.as_ref() } else { Some(&e.1) });
                OpFigure {
                    op: op.name().to_string(),
                    mix_pct: mix.weight(op),
                    actual_pct: if nfs_ops > 0 {
                        count as f64 * 100.0 / nfs_ops as f64
                    } else {
                        0.0
                    },
                    count,
                    failed: e.map_or(0, |e| e.3),
                    mean_ms: k.map_or(0.0, |k| ms(k.mean_ns())),
                    p90_ms: k.map_or(0.0, |k| ms(k.percentile_ns(90.0) as f64)),
                }
            })
            .collect();
        // the average over every op the runner recorded (ops without a
        // local call count with a time of 0)
        let sum_ns: f64 = result
            .ops
            .values()
            .map(|o| {
                let mean = match (&o.response_ns, open) {
                    (Some(r), true) => r.mean,
                    _ => o.latency_ns.mean,
                };
                mean * o.count as f64
            })
            .sum();
        let mean_response_ms = if nfs_ops > 0 {
            ms(sum_ns / nfs_ops as f64)
        } else {
            0.0
        };
        // every NFS op as one distribution (scale's response times)
        let (service, response) = outcome.stats.combined(|_| true);
        Figures {
            nfs_ops,
            nfs_ops_per_s: if result.elapsed_s > 0.0 {
                nfs_ops as f64 / result.elapsed_s
            } else {
                0.0
            },
            mean_response_ms,
            meets_50ms: nfs_ops > 0 && mean_response_ms <= LIMIT_MS,
            per_op,
            request_latency_ns: service.summary(),
            request_response_ns: (response.count > 0).then(|| response.summary()),
            clients: client_figures(parts, rate, result, outcome),
            ..Figures::of_set(o, parts, open)
        }
    }
}

/// What a run gives.
pub struct Report {
    /// The document `--json` writes.
    pub result: RunResult,
    /// Its figures, as its `metrics` hold them.
    pub figures: Figures,
}

/// Check a load point as [`run`] does before it draws the file set's plan
/// (which for a large --claim takes seconds and much memory): the options,
/// the pace, then the space, inodes and descriptors the set needs, from
/// its size alone (on many clients, this client's part).
pub fn check(o: &Options, rule: &StopRule) -> Result<()> {
    o.check().map_err(UsageError)?;
    rule.pace.check().map_err(UsageError)?;
    let (all, mine) = (o.layout().iter().sum::<usize>(), o.mine().len());
    let per_proc = o.fileset_bytes() / all.max(1) as u64 + 1;
    let bytes = per_proc * mine as u64;
    let (files, working) = fileset::floors(per_proc);
    Setup::new("laddis", &o.dir)
        .data(bytes + bytes * fileset::DELTA_PERCENT / 100)
        .entries(files * mine as u64)
        .workers(mine, working + SPARE_FDS, false)
        .check()
}

/// The untimed prepare: the file set `set` made in `dir`, and what the
/// processes are built from; `None` when Ctrl-C came meanwhile.
pub fn prepare(
    o: &Options,
    set: &fileset::Plan,
    dir: &Path,
    open_loop: bool,
) -> Result<Option<Clients>> {
    let Some(sets) = fileset::build(dir, set, o.seed)? else {
        return Ok(None);
    };
    Ok(Some(Clients {
        mix: o.mix.clone(),
        sets,
        seed: o.seed,
        first: o.mine().start,
        open_loop,
    }))
}

/// Client `client` of `clients`'s rule: its share of the rate offered to
/// the server (split evenly), and arrival streams of its own (client 0
/// keeps the seed's).
fn client_rule(mut rule: StopRule, client: usize, clients: usize) -> StopRule {
    if let Some(rate) = rule.pace.rate {
        rule.pace.rate = Some(rate / clients as f64);
    }
    rule.pace.seed ^= 0xd1b5_4a32_d192_ed03u64.wrapping_mul(client as u64);
    rule
}

/// Run one load point as `o` says, under `rule` (its duration and pace:
/// back to back, with think time, or at a rate). Nothing is left behind.
///
/// On many clients (the ranks of an MPI job, as LADDIS ran on several
/// machines) `o` and `rule` are the server's: each client runs its
/// processes ([`Options::layout`]) over its part of the file set ([`fileset::plan_client`]) at
/// its share of the rate, and rank 0's figures are the server's, with a
/// line per client.
pub fn run(o: &Options, rule: StopRule, progress: &dyn Progress) -> Result<Report> {
    check(o, &rule)?;
    let bytes = o.fileset_bytes();
    let (client, ranks) = (crate::cluster::rank(), crate::cluster::ranks());
    let (all, mine) = (o.layout().iter().sum(), o.mine());
    let procs = mine.len();
    let set = fileset::plan_client(bytes, all, mine, o.seed);
    let part = set.bytes();
    // the set, its growth, and a 4 KiB block for every other entry
    let data = part + part * fileset::DELTA_PERCENT / 100 + set.other_entries() as u64 * 4096;
    let session = Setup::new("laddis", &o.dir)
        .data(data)
        .entries((set.files() + set.other_entries()) as u64)
        .workers(procs, set.max_working() as u64 + SPARE_FDS, false)
        .config(Plan::of(o, &rule))
        .begin()?;
    progress.status(&format!(
        "creating the file set: {} in {} files (untimed)",
        fmt_bytes(part),
        set.files()
    ));
    let open_loop = rule.pace.is_open();
    // interrupted before the run: the load point and its set, nothing measured
    let empty = |session: crate::session::Session| {
        let figures = Figures::of_set(o, &parts(o, &set), open_loop);
        let mut result = session.interrupted();
        result.set_figures(&figures);
        Report { result, figures }
    };
    let Some(clients) = prepare(o, &set, session.dir(), open_loop)? else {
        return Ok(empty(session));
    };
    progress.status(&format!("{procs} processes"));
    let outcome = runner::run_workers::<super::Laddis>(
        client_rule(rule, client, ranks),
        &clients,
        procs,
        Placement::Threads,
        progress,
        &NoWatch,
    )?;
    let mut result = session.finish(&outcome);
    let figures = Figures::of(o, &parts(o, &set), rule.pace.rate, &result, &outcome);
    result.set_figures(&figures);
    Ok(Report { result, figures })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::NoProgress;
    use crate::suites::laddis::mix::NOPS;
    use rand_xoshiro::rand_core::SeedableRng;
    use std::time::Duration;

    /// The op a process draws follows the mix, within 1 % over 10 000 draws.
    #[test]
    fn the_op_drawn_follows_the_mix() {
        for mix in [Mix::nhfsstone(), Mix::sfs2()] {
            let mut rng = worker_rng(7, 0);
            let mut counts = [0u32; NOPS];
            for _ in 0..10_000 {
                counts[mix.choose(rng.next_u64()).index()] += 1;
            }
            for op in NfsOp::ALL {
                let got = f64::from(counts[op.index()]) / 10_000.0;
                assert!(
                    (got - mix.share(op)).abs() <= 0.01,
                    "{}: {op} {got}",
                    mix.name()
                );
            }
        }
    }

    #[test]
    fn every_op_maps_to_a_kind_unless_it_has_no_local_call() {
        for op in NfsOp::ALL {
            assert_eq!(kind_of(op, false).is_some(), op.has_local_call(), "{op}");
        }
        assert_eq!(kind_of(NfsOp::Write, true), Some(OpKind::Append));
        assert_eq!(kind_of(NfsOp::Lookup, false), Some(OpKind::Stat));
        for op in NfsOp::ALL {
            if let Some(k) = kind_of(op, false) {
                assert!(KINDS.contains(&k), "{op}: {k:?}");
            }
        }
    }

    #[test]
    fn bad_options_are_refused() {
        let o = Options::new(Path::new("."));
        o.check().unwrap();
        let bad: [fn(&mut Options); 5] = [
            |o| o.procs = 0,
            |o| o.claim = 0.0,
            |o| o.claim = f64::NAN,
            |o| o.fileset = Some(1000),
            |o| o.claim = 0.01,
        ];
        for change in bad {
            let mut b = o.clone();
            change(&mut b);
            assert!(b.check().is_err(), "{b:?}");
        }
        assert_eq!(o.fileset_bytes(), fileset_bytes(10.0));
    }

    /// A process runs every operation of every kind against a real set,
    /// and keeps the set's names and sizes consistent with its records.
    #[test]
    fn every_operation_runs_and_the_set_stays_whole() {
        let d = tempfile::tempdir().unwrap();
        let plan = fileset::plan(1 << 20, 1, 9);
        let sets = fileset::build(d.path(), &plan, 9).unwrap().unwrap();
        let text: String = NfsOp::ALL
            .iter()
            .filter(|op| op.has_local_call())
            .map(|op| format!("{op} {}\n", if *op == NfsOp::Lookup { 26 } else { 5 }))
            .collect();
        let mix = Mix::parse(&format!("{text}null 4\n"), Path::new("all.mix")).unwrap();
        let c = Client::new(
            sets.into_iter().next().unwrap(),
            &mix,
            Prng::seed_from_u64(1),
            1,
            false,
        )
        .unwrap();
        let rule = StopRule {
            ops: Some(20_000),
            ..Default::default()
        };
        let outcome = runner::run(rule, vec![c], &NoProgress);
        assert!(outcome.complete, "{:?}", outcome.error);
        let ops = merge_ops(&outcome);
        let issued: u64 = ops.iter().map(|e| e.1.count).sum();
        // the budget counts recorded ops; null ops come on top
        assert!(issued >= 20_000);
        for op in NfsOp::ALL.iter().filter(|&&op| mix.weight(op) > 0) {
            let e = ops.iter().find(|e| e.0 == *op).expect("every op ran");
            assert!(e.1.count > 0, "{op}");
            if *op == NfsOp::Lookup {
                let share = e.3 as f64 / e.1.count as f64;
                assert!((share - 0.35).abs() < 0.05, "failed lookups {share}");
            }
        }
    }

    /// Processes built one by one from the serialized payload, as worker
    /// processes build them, issue what threads built together issue, on
    /// a set made alike.
    #[test]
    fn processes_built_from_the_payload_measure_what_threads_measure() {
        use crate::runner::{NoProgress, Outcome};
        use crate::suites::laddis::Laddis;
        let o = Options {
            procs: 2,
            seed: 9,
            ..Options::new(Path::new("."))
        };
        let set = fileset::plan(1 << 20, 2, 9);
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let made = |d: &Path| prepare(&o, &set, d, false).unwrap().unwrap();
        let rule = StopRule {
            ops: Some(4000),
            ..Default::default()
        };
        let threads = runner::run_workers::<Laddis>(
            rule,
            &made(a.path()),
            2,
            Placement::Threads,
            &NoProgress,
            &NoWatch,
        )
        .unwrap();
        let bytes = serde_json::to_vec(&made(b.path())).unwrap();
        let built = (0..2)
            .map(|i| runner::workers::build::<Laddis>(&bytes, i).unwrap())
            .collect();
        let processes = runner::run(rule, built, &NoProgress);
        let count = |o: &Outcome, k: OpKind| o.stats.kind(k).map_or(0, |s| s.count);
        for &k in KINDS {
            assert_eq!(count(&threads, k), count(&processes, k), "{k:?}");
        }
        assert!(processes.error.is_none(), "{:?}", processes.error);
        let per_op = |o: &Outcome| {
            let ops = merge_ops(o).into_iter();
            ops.map(|e| (e.0, e.1.count, e.3)).collect::<Vec<_>>()
        };
        assert_eq!(per_op(&threads), per_op(&processes));
        assert!(processes.stats.total_ops() >= 4000);
    }

    #[test]
    fn a_short_run_reports_the_figures() {
        let d = tempfile::tempdir().unwrap();
        let o = Options {
            procs: 2,
            fileset: Some(1 << 20),
            ..Options::new(d.path())
        };
        let rule = StopRule {
            duration: Some(Duration::from_millis(300)),
            ..Default::default()
        };
        let rep = run(&o, rule, &NoProgress).unwrap();
        assert!(rep.result.complete);
        let f = &rep.figures;
        assert!(f.nfs_ops > 0 && f.nfs_ops_per_s > 0.0);
        assert_eq!(f.response_basis, Basis::Service);
        assert_eq!(f.meets_50ms, f.mean_response_ms <= LIMIT_MS);
        assert_eq!(rep.result.figures::<Figures>().unwrap(), *f);
        assert_eq!(f.per_op.len(), 10);
        let counted: u64 = f.per_op.iter().map(|p| p.count).sum();
        assert_eq!(counted, f.nfs_ops);
        assert_eq!(rep.result.summary.ops, f.nfs_ops);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }
}
