//! Engines: how operations reach the kernel.
//!
//! One trait, [`Engine`], and one table, [`ENGINES`]. Data operations go
//! through fio's queue → reap model: [`Engine::queue`] either completes the
//! operation at once (synchronous engines return `Some(Completion)`) or takes
//! it into flight (a queued engine such as io_uring returns `None`), and
//! [`Engine::reap`] collects finished ones. Callers written against this model
//! drive any engine at any depth; [`Engine::exec`] is the shorthand for one
//! operation at a time.
//!
//! Each engine owns its I/O buffers: `depth` slots of `max_len` bytes,
//! page-aligned (O_DIRECT needs that), filled with incompressible bytes when
//! the engine is made. An operation names its slot, so buffers outlive the
//! operation as queued engines require.

mod aio;
mod buffer;
mod buffered;
mod mmap;
mod null;
mod nullq;
mod psync;
mod pvsync;
mod sync;
#[cfg(test)]
mod testkit;
mod uring;

pub use buffer::AlignedBuf;
pub use pvsync::{kernel_has_dontcache, kernel_release};

use crate::measure::OpKind;
use crate::measure::clock::now_ns;
use serde::Serialize;
use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// A file opened through an engine: an index into its file table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId(pub u32);

/// How to open a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenHow {
    pub read: bool,
    pub write: bool,
    pub create: bool,
    pub truncate: bool,
    pub append: bool,
    /// O_SYNC: each write returns once its data and metadata are on the
    /// device (IOzone's `-o`).
    pub sync: bool,
}

impl OpenHow {
    pub const READ: OpenHow = OpenHow {
        read: true,
        write: false,
        create: false,
        truncate: false,
        append: false,
        sync: false,
    };
    pub const READ_WRITE: OpenHow = OpenHow {
        read: true,
        write: true,
        create: false,
        truncate: false,
        append: false,
        sync: false,
    };
    /// O_WRONLY, no truncation.
    pub const WRITE_ONLY: OpenHow = OpenHow {
        read: false,
        write: true,
        create: false,
        truncate: false,
        append: false,
        sync: false,
    };
    pub const CREATE: OpenHow = OpenHow {
        read: true,
        write: true,
        create: true,
        truncate: true,
        append: false,
        sync: false,
    };
}

/// One data operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Req {
    pub kind: OpKind,
    pub file: FileId,
    pub offset: u64,
    pub len: u32,
    /// Which buffer slot to read into or write from (`0..depth`).
    pub slot: u16,
}

impl Req {
    pub fn read(file: FileId, offset: u64, len: u32) -> Req {
        Req {
            kind: OpKind::Read,
            file,
            offset,
            len,
            slot: 0,
        }
    }

    pub fn write(file: FileId, offset: u64, len: u32) -> Req {
        Req {
            kind: OpKind::Write,
            ..Req::read(file, offset, len)
        }
    }

    pub fn trim(file: FileId, offset: u64, len: u32) -> Req {
        Req {
            kind: OpKind::Trim,
            ..Req::read(file, offset, len)
        }
    }

    pub fn fsync(file: FileId) -> Req {
        Req {
            kind: OpKind::Fsync,
            ..Req::read(file, 0, 0)
        }
    }
}

/// A finished operation and how long it took.
#[derive(Clone, Copy, Debug)]
pub struct Completion {
    pub req: Req,
    /// Bytes transferred (may be short at end of file).
    pub bytes: u64,
    /// Issued → reaped (fio's `lat`); for a synchronous engine, the call.
    pub lat_ns: u64,
    /// When it finished, on [`crate::measure::clock::now_ns`]'s clock.
    pub done_ns: u64,
    /// Issued → accepted by the kernel (its submitting call returned;
    /// fio's `slat`), or [`SUB_NONE`]: a synchronous engine, or one that
    /// cannot see it (a kernel thread polls the queue).
    pub sub_ns: u64,
    /// 0, or the errno the request failed with. A queued engine delivers a
    /// failure with its request, so the driver frees its slot first.
    pub err: i32,
}

/// [`Completion::sub_ns`] when submission was not measured.
pub const SUB_NONE: u64 = u64::MAX;

impl Completion {
    /// A request finished by a synchronous call that took `lat_ns` and
    /// ended at `done_ns`.
    #[inline(always)]
    pub fn sync(req: Req, bytes: u64, lat_ns: u64, done_ns: u64) -> Completion {
        Completion {
            req,
            bytes,
            lat_ns,
            done_ns,
            sub_ns: SUB_NONE,
            err: 0,
        }
    }
}

/// What [`Engine::queue`] did with a request.
#[derive(Clone, Copy, Debug)]
pub enum Queued {
    /// It completed at once (every request of a synchronous engine).
    Done(Completion),
    /// It is in flight; [`Engine::reap`] delivers it after [`Engine::commit`].
    InFlight,
    /// The engine cannot take another request now: reap one, then queue
    /// it again.
    Busy,
}

/// What an engine can do; checked before a run starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Caps {
    /// Completes every operation inside `queue`.
    pub sync: bool,
    /// Keeps more than one request in flight (a queue depth above 1).
    pub queued: bool,
    /// Can open files with O_DIRECT.
    pub direct: bool,
    /// Does no I/O at all (for measuring iogauge itself).
    pub fake: bool,
    /// Keeps a user-space buffer (stdio-like): `fsync` flushes it first.
    pub buffered: bool,
    /// Can register buffers and files with the kernel (`--fixedbufs`,
    /// `--registerfiles`).
    pub registered: bool,
    /// Can have a kernel thread poll the submission queue
    /// (`--sqthread-poll`).
    pub sqpoll: bool,
    /// Can poll for completions instead of waiting for interrupts
    /// (`--hipri`).
    pub polled: bool,
    /// Can ask for polling on a share of its requests
    /// (`--hipri-percentage`).
    pub polled_share: bool,
    /// Can ask that a request fail rather than block (`--nowait`).
    pub nowait: bool,
    /// Can do uncached buffered I/O (`--uncached`, RWF_DONTCACHE).
    pub uncached: bool,
    /// Can write past the end of a file, growing it (fio's engines without
    /// FIO_NOEXTEND). A mapping cannot: the mmap engine writes only inside
    /// a file's size, so a workload that creates, appends to or extends
    /// files asks this first ([`Choice::check_grows`]).
    pub grows_files: bool,
}

impl Caps {
    /// Nothing at all; engines name what they can on top of it.
    pub const NONE: Caps = Caps {
        sync: false,
        queued: false,
        direct: false,
        fake: false,
        buffered: false,
        registered: false,
        sqpoll: false,
        polled: false,
        polled_share: false,
        nowait: false,
        uncached: false,
        grows_files: false,
    };
}

/// How a queued engine submits and reaps, beyond its depth: fio's
/// io_uring and libaio options. The default is what iogauge does without
/// them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct QueueOpts {
    /// Submit once this many requests are queued (`--iodepth-batch`);
    /// 0 is the default: one at a time with O_DIRECT, else once every free
    /// slot is filled (see [`QueueOpts::submit_batch`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub batch: u16,
    /// Reap at least this many completions per wait
    /// (`--iodepth-batch-complete`); 0 waits for one.
    #[serde(skip_serializing_if = "is_zero")]
    pub batch_complete: u16,
    /// Take at most this many completions per wait
    /// (`--iodepth-batch-complete-max`, fio's `iodepth_batch_complete_max`);
    /// 0: every one that is there. The rest wait for the next reap, as
    /// they would in the kernel.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub batch_complete_max: u16,
    /// Register the buffers with the kernel once: it then maps no pages
    /// per request.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fixed_bufs: bool,
    /// Register open files with the kernel: it then takes no file
    /// reference per request.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub register_files: bool,
    /// A kernel thread polls the submission queue (it spends a core).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sqpoll: bool,
    /// The CPU the polling thread is bound to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sqpoll_cpu: Option<u16>,
    /// Poll the device for completions (O_DIRECT on a device with poll
    /// queues).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hipri: bool,
    /// Ask for polling on this share of requests, percent, drawn per
    /// request as fio's pvsync2 draws it (`--hipri-percentage`); None:
    /// every one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hipri_percentage: Option<u8>,
    /// RWF_NOWAIT: a request that would block fails with EAGAIN instead.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nowait: bool,
    /// RWF_DONTCACHE: buffered I/O that leaves no pages in the cache.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub uncached: bool,
    /// Under `nowait`, a request turned away with EAGAIN fails the run (as
    /// a fio job with pvsync2 ends) instead of being counted apart.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub eagain_fails: bool,
}

fn is_zero(n: &u16) -> bool {
    *n == 0
}

impl QueueOpts {
    /// Requests queued before a submitting call (0: every free slot).
    /// The default is one with O_DIRECT, as fio's: measured on a virtio
    /// disk, 4 KiB random reads at depth 32, IOPS fell as the batch grew
    /// (batch 1: 75k, 8: 70k, 16: 65k, 32: 61k; io_uring and libaio
    /// alike). Buffered requests mostly hit the page cache inside the
    /// submitting call, so there the default fills every free slot and
    /// saves the calls (1.6 to 2.0 times the IOPS of one call each).
    pub fn submit_batch(&self, direct: bool) -> usize {
        match self.batch {
            0 if direct => 1,
            b => usize::from(b),
        }
    }

    pub fn is_default(&self) -> bool {
        *self == QueueOpts::default()
    }

    /// Refuse what `engine` (its `caps`) cannot do, or what makes no sense
    /// at `depth` or with `direct`: one line naming the flag.
    fn check(&self, name: &str, caps: Caps, depth: u16, direct: bool) -> Result<(), String> {
        type Has = fn(&Caps) -> bool;
        let wants: [(bool, &str, &str, Has); 7] = [
            (self.fixed_bufs, "--fixedbufs", "registered buffers", |c| {
                c.registered
            }),
            (
                self.register_files,
                "--registerfiles",
                "registered files",
                |c| c.registered,
            ),
            (
                self.sqpoll,
                "--sqthread-poll",
                "submission-queue polling",
                |c| c.sqpoll,
            ),
            (self.hipri, "--hipri", "polled completions", |c| c.polled),
            (
                self.hipri_percentage.is_some(),
                "--hipri-percentage",
                "polling on a share of requests",
                |c| c.polled_share,
            ),
            (self.nowait, "--nowait", "non-blocking requests", |c| {
                c.nowait
            }),
            (self.uncached, "--uncached", "uncached buffered I/O", |c| {
                c.uncached
            }),
        ];
        if let Some(&(_, flag, what, has)) = wants.iter().find(|w| w.0 && !(w.3)(&caps)) {
            let who: Vec<_> = ENGINES
                .iter()
                .filter(|e| has(&e.caps))
                .map(|e| e.name)
                .collect();
            return Err(match who.as_slice() {
                [] => format!("{flag}: no engine here has {what}"),
                [one] => format!("{flag}: engine '{name}' has no {what} ({one} has)"),
                _ => format!(
                    "{flag}: engine '{name}' has no {what} ({} have)",
                    who.join(", ")
                ),
            });
        }
        for (n, flag) in [
            (self.batch, "--iodepth-batch"),
            (self.batch_complete, "--iodepth-batch-complete"),
            (self.batch_complete_max, "--iodepth-batch-complete-max"),
        ] {
            if n > depth {
                return Err(format!(
                    "{flag} {n}: more than --iodepth {depth}; give 0 to {depth}"
                ));
            }
        }
        if self.sqpoll_cpu.is_some() && !self.sqpoll {
            return Err("--sqthread-cpu: needs --sqthread-poll".into());
        }
        if let Some(p) = self.hipri_percentage {
            if p > 100 {
                return Err(format!(
                    "--hipri-percentage {p}: a share of requests, 0 to 100"
                ));
            }
            if !self.hipri {
                return Err(
                    "--hipri-percentage: a share of the requests --hipri polls; add --hipri".into(),
                );
            }
        }
        // a queued engine's polling ring refuses buffered files; a
        // synchronous engine's RWF_HIPRI is taken and does nothing there
        if self.hipri && !direct && caps.queued {
            return Err(
                "--hipri: polled completions need --direct (the page cache does not poll)".into(),
            );
        }
        if self.uncached && direct {
            return Err("--uncached: O_DIRECT bypasses the cache already; give one of --uncached and --direct".into());
        }
        Ok(())
    }
}

/// How a workload walks its files, for engines that can tell the kernel
/// (madvise(2) on a mapping, as fio's mmap engine does by `rw=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// A mix, or not known: no advice.
    #[default]
    Normal,
    /// Every request follows the one before.
    Sequential,
    /// Every request goes to a random offset.
    Random,
}

impl Access {
    /// The pattern of a workload whose requests are sequential with
    /// chance `seq_frac`: all, none, or a mix.
    pub fn of_seq_frac(seq_frac: f64) -> Access {
        if seq_frac >= 1.0 {
            Access::Sequential
        } else if seq_frac <= 0.0 {
            Access::Random
        } else {
            Access::Normal
        }
    }

    pub fn is_normal(&self) -> bool {
        *self == Access::Normal
    }
}

/// How the engine is made: an [`EngineSpec`] and what the worker needs
/// of its buffers. Only the runner makes engines ([`crate::runner::Io`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineOpts {
    /// Open data files with O_DIRECT.
    pub direct: bool,
    /// Requests in flight at once (1 for synchronous engines).
    pub depth: u16,
    /// Buffer slots (at least `depth`): a worker that keeps several
    /// buffers (PostMark's read and write) asks for more.
    pub slots: u16,
    /// Largest transfer; each buffer slot holds this many bytes.
    pub max_len: usize,
    /// Use fdatasync(2) where an Fsync op asks for a sync.
    pub datasync: bool,
    /// Seed for the buffer contents.
    pub seed: u64,
    /// How a queued engine submits and reaps.
    pub queue: QueueOpts,
    /// Open data files with O_NOATIME: reads leave access times alone.
    pub noatime: bool,
    /// How the workload walks its files (advice to the kernel).
    pub access: Access,
    /// Tell the kernel `access` for every data file opened
    /// (posix_fadvise, fio's `fadvise_hint`).
    pub fadvise: bool,
}

impl EngineOpts {
    /// How the engine opens data files.
    pub fn file_mode(&self) -> FileMode {
        FileMode {
            direct: self.direct,
            noatime: self.noatime,
            advise: if self.fadvise {
                self.access
            } else {
                Access::Normal
            },
        }
    }
}

impl Default for EngineOpts {
    fn default() -> Self {
        EngineOpts {
            direct: false,
            depth: 1,
            slots: 1,
            max_len: 64 << 10,
            datasync: false,
            seed: 0,
            queue: QueueOpts::default(),
            noatime: false,
            access: Access::Normal,
            fadvise: false,
        }
    }
}

/// The deepest queue an engine is asked for (io_uring's rings and fio's
/// iodepth go higher, but no benchmark here needs more).
pub const MAX_DEPTH: u16 = 4096;

/// How a benchmark's engine is made, chosen once (from the command line, a
/// control file or a model) and carried in its plan. The runner makes the
/// engine from it in each worker ([`crate::runner::Io`]); a benchmark never
/// makes one itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct EngineSpec {
    pub choice: Choice,
    /// Open data files with O_DIRECT.
    pub direct: bool,
    /// Requests in flight at once; 1 issues one at a time.
    pub depth: u16,
    /// fdatasync(2) where a request asks for a sync.
    pub datasync: bool,
    /// How a queued engine submits and reaps (its flags).
    #[serde(default, skip_serializing_if = "QueueOpts::is_default")]
    pub queue: QueueOpts,
    /// Open data files with O_NOATIME (`--noatime`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub noatime: bool,
    /// How the workload walks its files, told to engines that advise the
    /// kernel (mmap).
    #[serde(default, skip_serializing_if = "Access::is_normal")]
    pub access: Access,
    /// Advise the kernel of `access` on every data file opened
    /// (posix_fadvise RANDOM or SEQUENTIAL: fio's `fadvise_hint`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fadvise: bool,
}

impl EngineSpec {
    /// `choice`, buffered I/O, one request at a time, fsync(2).
    pub fn new(choice: Choice) -> EngineSpec {
        EngineSpec {
            choice,
            direct: false,
            depth: 1,
            datasync: false,
            queue: QueueOpts::default(),
            noatime: false,
            access: Access::Normal,
            fadvise: false,
        }
    }

    pub fn access(self, access: Access) -> EngineSpec {
        EngineSpec { access, ..self }
    }

    /// Advise the kernel of the access pattern on open (fio's default).
    pub fn fadvise(self, fadvise: bool) -> EngineSpec {
        EngineSpec { fadvise, ..self }
    }

    pub fn direct(self, direct: bool) -> EngineSpec {
        EngineSpec { direct, ..self }
    }

    pub fn noatime(self, noatime: bool) -> EngineSpec {
        EngineSpec { noatime, ..self }
    }

    pub fn depth(self, depth: u16) -> EngineSpec {
        EngineSpec { depth, ..self }
    }

    pub fn datasync(self, datasync: bool) -> EngineSpec {
        EngineSpec { datasync, ..self }
    }

    pub fn queue(self, queue: QueueOpts) -> EngineSpec {
        EngineSpec { queue, ..self }
    }

    /// Whether the engine can do what the spec asks: the one place that
    /// checks an engine's capabilities.
    pub fn check(&self) -> Result<(), String> {
        let (name, caps) = (self.choice.name(), self.choice.caps());
        if self.direct && !caps.direct {
            return Err(format!(
                "engine '{name}' cannot do O_DIRECT I/O; use psync or sync"
            ));
        }
        if self.depth == 0 || self.depth > MAX_DEPTH {
            return Err(format!(
                "--iodepth {}: give 1 to {MAX_DEPTH} requests in flight",
                self.depth
            ));
        }
        if self.depth > 1 && !caps.queued {
            let queued: Vec<_> = ENGINES
                .iter()
                .filter(|e| e.caps.queued)
                .map(|e| e.name)
                .collect();
            return Err(format!(
                "--iodepth {}: engine '{name}' completes each request before the next is issued; a depth above 1 needs a queued engine ({})",
                self.depth,
                queued.join(", ")
            ));
        }
        self.queue.check(name, caps, self.depth, self.direct)
    }

    /// The alignment O_DIRECT asks of buffers, offsets and lengths: 1 when
    /// the spec does not use it.
    pub fn align(&self) -> u64 {
        if self.direct { DIRECT_ALIGN as u64 } else { 1 }
    }

    /// Refuse a size a request moves (`what`, named as the user gave it)
    /// that O_DIRECT cannot move: the one statement of the rule.
    pub fn aligned(&self, what: &str, value: u64) -> Result<(), String> {
        let a = self.align();
        if value.is_multiple_of(a) {
            return Ok(());
        }
        Err(format!(
            "{what} is {value} B; O_DIRECT moves whole blocks of {a} B: give a multiple of {a}"
        ))
    }

    /// Make the engine, checking the spec first: `slots` buffers (at
    /// least the depth) of `max_len` bytes filled from `seed`. For the
    /// runner, which makes every engine ([`crate::runner::Io`]).
    pub(crate) fn make(
        &self,
        slots: u16,
        max_len: usize,
        seed: u64,
    ) -> Result<Box<dyn Engine>, String> {
        self.check()?;
        self.choice.make(&self.opts(slots, max_len, seed))
    }

    /// The options the engine is made with: `slots` buffers (at least the
    /// depth) of `max_len` bytes filled from `seed`.
    pub(crate) fn opts(&self, slots: u16, max_len: usize, seed: u64) -> EngineOpts {
        EngineOpts {
            direct: self.direct,
            depth: self.depth,
            slots: slots.max(self.depth),
            max_len,
            datasync: self.datasync,
            seed,
            queue: self.queue,
            noatime: self.noatime,
            access: self.access,
            fadvise: self.fadvise,
        }
    }
}

/// When to call fsync(2) (or fdatasync(2) with --fdatasync).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FsyncPolicy {
    Never,
    /// Once per file when the worker finishes (timed, inside the run).
    End,
    /// After every N writes of a worker, on the file just written.
    Every(u64),
}

pub fn parse_fsync(s: &str) -> Result<FsyncPolicy, String> {
    match s {
        "never" => Ok(FsyncPolicy::Never),
        "end" => Ok(FsyncPolicy::End),
        _ => match s.strip_prefix("every=").map(str::parse::<u64>) {
            Some(Ok(n)) if n > 0 => Ok(FsyncPolicy::Every(n)),
            _ => Err(format!(
                "'{s}' is not an fsync policy: use never, end or every=N (N ≥ 1)"
            )),
        },
    }
}

/// Alignment for O_DIRECT buffers, offsets and lengths.
pub const DIRECT_ALIGN: usize = 4096;

pub trait Engine: Send {
    fn info(&self) -> &'static EngineInfo;

    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId>;

    /// Close a file (a buffered engine flushes it first).
    fn close(&mut self, file: FileId) -> io::Result<()>;

    /// Start one data operation: done at once, in flight, or refused
    /// because the engine is full.
    fn queue(&mut self, req: Req) -> io::Result<Queued>;

    /// Submit what `queue` took (a no-op for synchronous engines).
    fn commit(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// Wait for at least `min` queued operations and append them to `out`.
    /// A request that failed comes back as a completion with its `err`
    /// set; `Err` means the wait itself failed.
    fn reap(&mut self, _min: usize, _out: &mut Vec<Completion>) -> io::Result<usize> {
        Ok(0)
    }

    /// [`Engine::reap`], but back by clock `deadline_ns` at the latest
    /// with what it has (an open loop's next arrival, a stop).
    fn reap_until(
        &mut self,
        min: usize,
        _deadline_ns: u64,
        out: &mut Vec<Completion>,
    ) -> io::Result<usize> {
        self.reap(min, out)
    }

    /// Ask the kernel to cancel what is in flight. Every request still
    /// completes once: cancelled ones with `err` ECANCELED.
    fn cancel(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// Requests queued and not yet reaped, as the engine counts them.
    fn in_flight(&self) -> usize {
        0
    }

    /// How the engine was set up where that can differ from what was asked
    /// (io_uring: the setup flags the kernel took), for the run's report.
    fn mode(&self) -> Option<String> {
        None
    }

    /// The buffer of `slot`, to fill before a write or inspect after a read.
    fn buf_mut(&mut self, slot: u16) -> &mut [u8];

    /// Remove a file. Engines that do no I/O do nothing.
    fn unlink(&mut self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }

    /// The path a file was opened with, for error messages.
    fn path(&self, file: FileId) -> &Path;

    /// Run one operation to completion, with nothing else in flight.
    fn exec(&mut self, req: Req) -> io::Result<Completion> {
        match self.queue(req)? {
            Queued::Done(c) => return Ok(c),
            Queued::InFlight => {}
            Queued::Busy => {
                return Err(io::Error::other(
                    "engine refused a request with none in flight",
                ));
            }
        }
        self.commit()?;
        let mut out = Vec::with_capacity(1);
        self.reap(1, &mut out)?;
        let c = out
            .pop()
            .ok_or_else(|| io::Error::other("engine reaped no completion"))?;
        if c.err != 0 {
            return Err(request_failed(&c.req, self.path(c.req.file), c.err));
        }
        Ok(c)
    }
}

/// The error of a request the kernel failed with `errno`, naming the
/// request and its file.
#[cold]
pub(crate) fn request_failed(req: &Req, path: &Path, errno: i32) -> io::Error {
    let cause = io::Error::from_raw_os_error(errno);
    if req.kind == OpKind::Trim && errno == libc::EOPNOTSUPP {
        return io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "trim of {} B at offset {} in {}: the file system cannot punch holes (EOPNOTSUPP); run on one that can (ext4, xfs, btrfs, tmpfs) or leave trims out",
                req.len,
                req.offset,
                path.display()
            ),
        );
    }
    let what = if req.kind == OpKind::Fsync {
        format!("fsync of {}", path.display())
    } else {
        format!(
            "{} of {} B at offset {} in {}",
            req.kind.name(),
            req.len,
            req.offset,
            path.display()
        )
    };
    io::Error::new(cause.kind(), format!("{what}: {cause}"))
}

/// BLKDISCARD, `_IO(0x12, 119)` in linux/fs.h: discard a byte range of a
/// block device (its argument is `[offset, length]`).
const BLKDISCARD: libc::c_ulong = 0x1277;

/// How a file takes a trim: a hole punched in a regular file, or a
/// discard of a block device's range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TrimBy {
    Punch,
    Discard,
}

impl TrimBy {
    /// How `f` is trimmed: BLKDISCARD when it is a block device (S_ISBLK),
    /// else a punched hole. Asked before the trim's clock starts.
    pub(crate) fn of(f: &File) -> io::Result<TrimBy> {
        use std::os::unix::fs::FileTypeExt;
        Ok(if f.metadata()?.file_type().is_block_device() {
            TrimBy::Discard
        } else {
            TrimBy::Punch
        })
    }
}

/// Discard `len` bytes at `offset` of `fd`, which then read as zeros:
/// fallocate(2) with FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE on a
/// regular file (the size stays), the BLKDISCARD ioctl on a block device.
/// The length trimmed, as a transfer's is.
pub(crate) fn trim_fd(
    fd: std::os::fd::RawFd,
    by: TrimBy,
    offset: u64,
    len: u32,
) -> io::Result<usize> {
    let r = match by {
        TrimBy::Punch => {
            // SAFETY: fallocate on a descriptor the caller holds open; it
            // touches no memory of ours.
            unsafe {
                libc::fallocate(
                    fd,
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    offset as libc::off_t,
                    libc::off_t::from(len),
                )
            }
        }
        TrimBy::Discard => {
            let range: [u64; 2] = [offset, u64::from(len)];
            // SAFETY: BLKDISCARD reads two u64s from the pointer, which
            // points at `range`, alive for the call.
            unsafe { libc::ioctl(fd, BLKDISCARD as _, range.as_ptr()) }
        }
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(len as usize)
}

/// Why a write came back short. The system takes part of a write when the
/// disk fills (or a quota or a size limit is reached) and gives the reason
/// only to the next call: write the rest of `req` (`done` bytes of it
/// went) until a call fails or the write is whole. `Err` is the real cause
/// (ENOSPC, EDQUOT, EFBIG), `Ok` a write finished in more calls. The
/// buffer of `req.slot` is as it was, afterwards.
#[cold]
pub fn finish_write(engine: &mut dyn Engine, req: Req, done: u64) -> io::Result<()> {
    let len = req.len as usize;
    let data = engine.buf_mut(req.slot)[..len].to_vec();
    let mut done = done as usize;
    let r = loop {
        if done >= len {
            break Ok(());
        }
        let rest = &data[done..];
        engine.buf_mut(req.slot)[..rest.len()].copy_from_slice(rest);
        let next = Req {
            offset: req.offset + done as u64,
            len: rest.len() as u32,
            ..req
        };
        match engine.exec(next) {
            Ok(c) if c.bytes == 0 => {
                break Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    format!("the system took {done} of {len} bytes, then none, and gave no error"),
                ));
            }
            Ok(c) => done += c.bytes as usize,
            Err(e) => break Err(e),
        }
    };
    engine.buf_mut(req.slot)[..len].copy_from_slice(&data);
    r
}

/// An entry of the engine table.
pub struct EngineInfo {
    pub name: &'static str,
    pub doc: &'static str,
    pub caps: Caps,
    pub make: fn(&EngineOpts) -> io::Result<Box<dyn Engine>>,
}

/// Every engine iogauge has.
pub const ENGINES: &[EngineInfo] = &[
    psync::INFO,
    sync::INFO,
    buffered::INFO,
    null::INFO,
    nullq::INFO,
    uring::INFO,
    aio::INFO,
    mmap::INFO,
    pvsync::INFO,
    pvsync::INFO2,
];

fn find(name: &str) -> Option<&'static EngineInfo> {
    ENGINES.iter().find(|e| e.name == name)
}

/// The names of all engines, for help and error messages.
pub fn names() -> String {
    ENGINES
        .iter()
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// An engine of the table, chosen once (by the command line, a control
/// file or a model) and passed around typed: nothing after the choice
/// looks a name up again. Serialises as its name.
#[derive(Clone, Copy)]
pub struct Choice(&'static EngineInfo);

impl Choice {
    pub const PSYNC: Choice = Choice(&ENGINES[0]);
    pub const SYNC: Choice = Choice(&ENGINES[1]);
    pub const BUFFERED: Choice = Choice(&ENGINES[2]);
    pub const NULL: Choice = Choice(&ENGINES[3]);
    pub const NULLQ: Choice = Choice(&ENGINES[4]);
    pub const IO_URING: Choice = Choice(&ENGINES[5]);
    pub const LIBAIO: Choice = Choice(&ENGINES[6]);
    pub const MMAP: Choice = Choice(&ENGINES[7]);
    pub const PVSYNC: Choice = Choice(&ENGINES[8]);
    pub const PVSYNC2: Choice = Choice(&ENGINES[9]);

    /// The engine called `name`; the one place that knows the names.
    pub fn parse(name: &str) -> Result<Choice, String> {
        find(name.trim())
            .map(Choice)
            .ok_or_else(|| format!("unknown engine '{name}'; the engines are: {}", names()))
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    pub fn info(self) -> &'static EngineInfo {
        self.0
    }

    pub fn caps(self) -> Caps {
        self.0.caps
    }

    /// Does no I/O at all (needs no space, touches no file).
    pub fn is_fake(self) -> bool {
        self.0.caps.fake
    }

    /// Refuse an engine that cannot write past the end of a file for a
    /// workload that must: `why` says what grows files there ("PostMark's
    /// creates and appends grow files"), `instead` what to use. One line.
    pub fn check_grows(self, why: &str, instead: &str) -> Result<(), String> {
        if self.0.caps.grows_files {
            return Ok(());
        }
        Err(format!(
            "engine '{}' cannot write past the end of a file, and {why}; use {instead}",
            self.0.name
        ))
    }

    /// Make the engine with `opts` (the runner's [`EngineSpec::make`]).
    fn make(self, opts: &EngineOpts) -> Result<Box<dyn Engine>, String> {
        (self.0.make)(opts).map_err(|e| format!("cannot set up engine '{}': {e}", self.0.name))
    }
}

impl PartialEq for Choice {
    fn eq(&self, other: &Choice) -> bool {
        self.0.name == other.0.name
    }
}
impl Eq for Choice {}

impl std::fmt::Debug for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

impl std::fmt::Display for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

impl Serialize for Choice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name)
    }
}

impl<'de> serde::Deserialize<'de> for Choice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Choice, D::Error> {
        let name = String::deserialize(d)?;
        Choice::parse(&name).map_err(serde::de::Error::custom)
    }
}

/// Open a real file as the kernel-backed engines do: the one place that
/// asks for O_DIRECT and O_SYNC (IOzone's vectored tests, which no engine
/// has, open theirs here too).
pub fn open_file(path: &Path, how: OpenHow, direct: bool) -> io::Result<File> {
    open_file_as(
        path,
        how,
        FileMode {
            direct,
            noatime: false,
            advise: Access::Normal,
        },
    )
}

/// How an engine opens data files, beyond what each open asks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileMode {
    /// O_DIRECT: around the page cache.
    pub direct: bool,
    /// O_NOATIME: reads do not update the access time (t/io_uring always
    /// asks it; the kernel grants it to the file's owner and to root).
    pub noatime: bool,
    /// Advise the kernel of this pattern on open (Normal: no advice).
    pub advise: Access,
}

/// [`open_file`] with O_NOATIME where `mode` asks it, and the access
/// pattern advised.
pub fn open_file_as(path: &Path, how: OpenHow, mode: FileMode) -> io::Result<File> {
    let f = open_plain(path, how, mode)?;
    let advice = match mode.advise {
        Access::Normal => None,
        Access::Random => Some(libc::POSIX_FADV_RANDOM),
        Access::Sequential => Some(libc::POSIX_FADV_SEQUENTIAL),
    };
    if let Some(a) = advice {
        use std::os::unix::io::AsRawFd;
        // SAFETY: advice on an open descriptor; a failure changes nothing
        // but the kernel's readahead, as without it.
        unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, a) };
    }
    Ok(f)
}

fn open_plain(path: &Path, how: OpenHow, mode: FileMode) -> io::Result<File> {
    let FileMode {
        direct, noatime, ..
    } = mode;
    let mut o = std::fs::OpenOptions::new();
    o.read(how.read)
        .write(how.write || how.append)
        .create(how.create)
        .truncate(how.truncate)
        .append(how.append)
        .mode(0o644);
    let mut flags = 0;
    if direct {
        flags |= libc::O_DIRECT;
    }
    if how.sync {
        flags |= libc::O_SYNC;
    }
    if noatime {
        flags |= libc::O_NOATIME;
    }
    o.custom_flags(flags);
    o.open(path).map_err(|e| {
        if noatime && e.raw_os_error() == Some(libc::EPERM) {
            crate::error::refused(format!(
                "--noatime: the kernel refused O_NOATIME on {} (EPERM): only the file's owner or root may ask it",
                crate::error::shown_path(path)
            ))
        } else if direct && e.raw_os_error() == Some(libc::EINVAL) {
            io::Error::new(
                io::ErrorKind::Unsupported,
                DirectRefused(path.to_path_buf()),
            )
        } else {
            io::Error::new(e.kind(), format!("{}: {e}", path.display()))
        }
    })
}

/// The file system refused to open a file with O_DIRECT (EINVAL): the
/// cause inside the `io::Error` an open returns, which a command finds
/// again ([`DirectRefused::in_chain`]) to say so in its result.
#[derive(Debug)]
pub struct DirectRefused(pub PathBuf);

impl std::fmt::Display for DirectRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the file system holding {} refuses O_DIRECT (as tmpfs did before Linux 6.6); run without --direct or pick another --dir",
            self.0.display()
        )
    }
}

impl std::error::Error for DirectRefused {}

impl DirectRefused {
    /// The refusal in an error's chain, if it holds one.
    pub fn in_chain(e: &anyhow::Error) -> Option<&DirectRefused> {
        e.chain().find_map(|c| {
            c.downcast_ref::<DirectRefused>().or_else(|| {
                c.downcast_ref::<io::Error>()
                    .and_then(|io| io.get_ref())
                    .and_then(|i| i.downcast_ref::<DirectRefused>())
            })
        })
    }
}

/// A table of open files shared by the kernel-backed engines. A slot's
/// path buffer is kept when its file closes and reused by the next open, so
/// opening and closing files one after another (PostMark) allocates nothing.
pub(crate) struct FileTable<T> {
    files: Vec<Option<T>>,
    paths: Vec<PathBuf>,
    free: Vec<u32>,
}

impl<T> Default for FileTable<T> {
    fn default() -> Self {
        FileTable {
            files: Vec::new(),
            paths: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> FileTable<T> {
    pub fn insert(&mut self, f: T, path: &Path) -> FileId {
        if let Some(i) = self.free.pop() {
            self.files[i as usize] = Some(f);
            let p = self.paths[i as usize].as_mut_os_string();
            p.clear();
            p.push(path.as_os_str());
            FileId(i)
        } else {
            self.files.push(Some(f));
            self.paths.push(path.to_path_buf());
            FileId(self.files.len() as u32 - 1)
        }
    }

    #[inline]
    pub fn get(&mut self, id: FileId) -> io::Result<&mut T> {
        match self.files.get_mut(id.0 as usize) {
            Some(Some(f)) => Ok(f),
            _ => Err(bad_file(id)),
        }
    }

    pub fn remove(&mut self, id: FileId) -> io::Result<T> {
        match self.files.get_mut(id.0 as usize).and_then(Option::take) {
            Some(f) => {
                self.free.push(id.0);
                Ok(f)
            }
            None => Err(bad_file(id)),
        }
    }

    pub fn path(&self, id: FileId) -> &Path {
        match self.files.get(id.0 as usize) {
            Some(Some(_)) => &self.paths[id.0 as usize],
            _ => Path::new("?"),
        }
    }
}

fn bad_file(id: FileId) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("file id {} is not open", id.0),
    )
}

thread_local! {
    /// Set by [`untimed`]: the engines on this thread skip their clock reads.
    static UNTIMED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` with per-operation timing off on this thread: the engines then
/// complete operations with `lat_ns` and `done_ns` 0 instead of reading the
/// clock before and after each. For callers that time whole sequences of
/// operations themselves (PostMark times each file from open to close), so
/// that the clock reads are neither a cost nor inside their measurement.
pub fn untimed<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            UNTIMED.set(self.0);
        }
    }
    let _restore = Restore(UNTIMED.replace(true));
    f()
}

/// Time one synchronous call and wrap its result as a completion.
#[inline]
pub(crate) fn timed(req: Req, f: impl FnOnce() -> io::Result<usize>) -> io::Result<Completion> {
    if UNTIMED.get() {
        return Ok(Completion::sync(req, f()? as u64, 0, 0));
    }
    let t0 = now_ns();
    let n = f()?;
    let done_ns = now_ns();
    Ok(Completion::sync(req, n as u64, done_ns - t0, done_ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fsync_policies() {
        assert_eq!(parse_fsync("never"), Ok(FsyncPolicy::Never));
        assert_eq!(parse_fsync("end"), Ok(FsyncPolicy::End));
        assert_eq!(parse_fsync("every=16"), Ok(FsyncPolicy::Every(16)));
        for bad in ["every=0", "every=x", "always", ""] {
            assert!(parse_fsync(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_default_batch_is_one_with_o_direct_else_every_free_slot() {
        let q = QueueOpts::default();
        assert_eq!(q.submit_batch(true), 1);
        assert_eq!(q.submit_batch(false), 0);
        let q = QueueOpts {
            batch: 8,
            ..QueueOpts::default()
        };
        assert_eq!((q.submit_batch(true), q.submit_batch(false)), (8, 8));
    }

    #[test]
    fn engine_table_is_sound() {
        let mut names: Vec<_> = ENGINES.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ENGINES.len(), "engine names are unique");
        for e in ENGINES {
            assert!(!e.doc.is_empty(), "{} has docs", e.name);
            let eng = (e.make)(&EngineOpts::default()).unwrap();
            assert_eq!(eng.info().name, e.name);
        }
    }

    #[test]
    fn capability_checks_refuse_what_an_engine_cannot_do() {
        let spec = |name: &str| EngineSpec::new(Choice::parse(name).unwrap());
        let e = spec("buffered").direct(true).check().unwrap_err();
        assert!(e.contains("O_DIRECT"), "{e}");
        assert!(spec("psync").direct(true).check().is_ok());
        // a depth above 1 needs a queued engine, and the refusal names them
        let e = spec("psync").depth(8).check().unwrap_err();
        assert!(e.contains("--iodepth 8") && e.contains("nullq"), "{e}");
        assert!(spec("nullq").depth(32).check().is_ok());
        assert!(spec("nullq").depth(0).check().is_err());
        assert!(spec("nullq").depth(MAX_DEPTH + 1).check().is_err());
        // alignment is the spec's: 4 KiB under O_DIRECT, anything without
        assert_eq!(spec("psync").align(), 1);
        assert!(spec("psync").aligned("--request", 1000).is_ok());
        let e = spec("psync")
            .direct(true)
            .aligned("--request", 1000)
            .unwrap_err();
        assert!(
            e.contains("--request is 1000 B") && e.contains("4096"),
            "{e}"
        );
        assert!(spec("psync").direct(true).aligned("x", 8192).is_ok());
        assert!(Choice::parse("nope").unwrap_err().contains("psync"));
        // the table's names parse; the engines are listed in the refusal
        for e in ENGINES {
            assert_eq!(Choice::parse(e.name).unwrap().name(), e.name);
        }
        assert_eq!(serde_json::to_string(&Choice::SYNC).unwrap(), "\"sync\"");
        let back: Choice = serde_json::from_str("\"null\"").unwrap();
        assert!(back.is_fake() && back == Choice::NULL);
        assert!(serde_json::from_str::<Choice>("\"nope\"").is_err());
    }

    /// nullq keeps at most `depth` in flight, completes them out of order
    /// after polls, and refuses a buffer slot that is still in flight.
    #[test]
    fn the_queued_test_engine_holds_its_depth_and_completes_out_of_order() {
        let o = EngineOpts {
            depth: 4,
            slots: 4,
            ..Default::default()
        };
        let mut e = make("nullq", &o).unwrap();
        let f = e.open(Path::new("x"), OpenHow::CREATE).unwrap();
        for slot in 0..4u16 {
            let r = Req {
                slot,
                ..Req::read(f, u64::from(slot) * 100, 100)
            };
            assert!(matches!(e.queue(r).unwrap(), Queued::InFlight));
        }
        assert!(matches!(e.queue(Req::read(f, 0, 1)).unwrap(), Queued::Busy));
        e.commit().unwrap();
        let mut out = Vec::new();
        let mut polls = 0;
        while out.len() < 4 {
            e.reap(0, &mut out).unwrap();
            polls += 1;
        }
        assert!(polls > 1, "completions wait for polls");
        let mut offsets: Vec<u64> = out.iter().map(|c| c.req.offset).collect();
        let done_order = offsets.clone();
        offsets.sort_unstable();
        assert_eq!(offsets, [0, 100, 200, 300]);
        // the engine's order is its own (seeded): not the order queued for
        // this seed
        assert_ne!(done_order, offsets, "out of order");
        // a slot in flight cannot be queued again
        e.queue(Req::read(f, 0, 1)).unwrap();
        assert!(e.queue(Req::read(f, 0, 1)).is_err());
        // reap asks no more than is committed
        assert!(e.reap(2, &mut out).is_err());
    }

    fn make(name: &str, o: &EngineOpts) -> Result<Box<dyn Engine>, String> {
        Choice::parse(name)?.make(o)
    }

    /// Every kernel-backed engine writes and reads back the same bytes.
    #[test]
    fn engines_round_trip_data() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["psync", "sync", "buffered", "pvsync", "pvsync2"] {
            let mut e = make(name, &EngineOpts::default()).unwrap();
            let path = dir.path().join(name);
            let f = e.open(&path, OpenHow::CREATE).unwrap();
            let pattern: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 3) as u8).collect();
            e.buf_mut(0)[..8192].copy_from_slice(&pattern);
            assert_eq!(e.exec(Req::write(f, 0, 8192)).unwrap().bytes, 8192);
            assert_eq!(e.exec(Req::write(f, 8192, 100)).unwrap().bytes, 100);
            e.exec(Req::fsync(f)).unwrap();
            e.buf_mut(0).fill(0);
            let c = e.exec(Req::read(f, 4096, 4096)).unwrap();
            assert_eq!(c.bytes, 4096);
            assert_eq!(&e.buf_mut(0)[..4096], &pattern[4096..8192], "{name}");
            // a read past the end is short, not an error
            assert_eq!(
                e.exec(Req::read(f, 8192, 4096)).unwrap().bytes,
                100,
                "{name}"
            );
            e.close(f).unwrap();
            assert_eq!(std::fs::metadata(&path).unwrap().len(), 8292, "{name}");
        }
    }

    /// The table says which engines grow files, and they do: a write past
    /// the end of a new, empty file extends it through every engine that
    /// claims `grows_files` and is refused by the others, whose
    /// `check_grows` refuses them in one line.
    #[test]
    fn grows_files_says_what_a_write_past_the_end_does() {
        let dir = tempfile::tempdir().unwrap();
        let mut refused = 0;
        for info in ENGINES {
            let c = Choice(info);
            let mut e = match c.make(&EngineOpts::default()) {
                Ok(e) => e,
                Err(why) => {
                    println!("skipped {}: {why}", info.name);
                    continue;
                }
            };
            let path = dir.path().join(info.name);
            let f = e.open(&path, OpenHow::CREATE).unwrap();
            let r = e.exec(Req::write(f, 0, 4096));
            e.close(f).unwrap();
            let grows = info.caps.grows_files;
            assert_eq!(r.is_ok(), grows, "{}: {r:?}", info.name);
            if grows && !info.caps.fake {
                assert_eq!(std::fs::metadata(&path).unwrap().len(), 4096);
            }
            match c.check_grows("its files grow", "psync") {
                Ok(()) => assert!(grows, "{}", info.name),
                Err(e) => {
                    assert!(!grows, "{}", info.name);
                    assert!(!e.contains('\n'), "{e}");
                    assert_eq!(
                        e,
                        format!(
                            "engine '{}' cannot write past the end of a file, and its files grow; use psync",
                            info.name
                        )
                    );
                    refused += 1;
                }
            }
        }
        assert_eq!(refused, 1, "mmap is the one engine that cannot");
        assert!(!Choice::MMAP.caps().grows_files);
    }

    #[test]
    fn untimed_operations_read_no_clock() {
        let mut e = make("null", &EngineOpts::default()).unwrap();
        let f = e.open(Path::new("x"), OpenHow::CREATE).unwrap();
        let c = untimed(|| e.exec(Req::write(f, 0, 100)).unwrap());
        assert_eq!((c.bytes, c.lat_ns, c.done_ns), (100, 0, 0));
        // timing is back after the closure
        assert!(e.exec(Req::write(f, 0, 100)).unwrap().done_ns > 0);
    }

    #[test]
    fn null_engine_touches_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = make("null", &EngineOpts::default()).unwrap();
        let f = e.open(&dir.path().join("x"), OpenHow::CREATE).unwrap();
        assert_eq!(e.exec(Req::write(f, 0, 4096)).unwrap().bytes, 4096);
        e.close(f).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

/// For tests: an engine that hands each request to `f` before `inner` gets
/// it. `f` may look at it, change it, or refuse it with an error. A
/// completion names the request as it was asked for, so a length `f` cut
/// shows as the system taking part of a write.
#[cfg(test)]
pub struct Intercept<F> {
    inner: Box<dyn Engine>,
    f: F,
    /// Told each open, close and unlink before `inner` does it.
    files: Option<FileHook>,
    /// The request as asked, by buffer slot, while it is in flight.
    asked: Vec<Option<Req>>,
}

/// What [`Intercept`] tells of each call on files.
#[cfg(test)]
type FileHook = Box<dyn FnMut(FileCall) + Send>;

/// A call on files that [`Intercept`] tells its `files` hook.
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
pub enum FileCall<'a> {
    Open(&'a Path, OpenHow),
    Close(FileId),
    Unlink(&'a Path),
}

#[cfg(test)]
impl<F> Intercept<F> {
    pub fn new(inner: Box<dyn Engine>, f: F) -> Intercept<F> {
        Intercept {
            inner,
            f,
            files: None,
            asked: Vec::new(),
        }
    }

    /// Tell `hook` each open, close and unlink too.
    pub fn files(mut self, hook: impl FnMut(FileCall) + Send + 'static) -> Intercept<F> {
        self.files = Some(Box::new(hook));
        self
    }

    fn tell(&mut self, call: FileCall) {
        if let Some(h) = self.files.as_mut() {
            h(call);
        }
    }

    fn as_asked(&mut self, mut c: Completion) -> Completion {
        if let Some(r) = self
            .asked
            .get_mut(usize::from(c.req.slot))
            .and_then(Option::take)
        {
            c.req = r;
        }
        c
    }
}

#[cfg(test)]
impl<F: FnMut(Req) -> io::Result<Req> + Send> Engine for Intercept<F> {
    fn info(&self) -> &'static EngineInfo {
        self.inner.info()
    }
    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        self.tell(FileCall::Open(path, how));
        self.inner.open(path, how)
    }
    fn close(&mut self, file: FileId) -> io::Result<()> {
        self.tell(FileCall::Close(file));
        self.inner.close(file)
    }
    fn queue(&mut self, asked: Req) -> io::Result<Queued> {
        let req = (self.f)(asked)?;
        let slot = usize::from(req.slot);
        if self.asked.len() <= slot {
            self.asked.resize(slot + 1, None);
        }
        self.asked[slot] = Some(asked);
        Ok(match self.inner.queue(req)? {
            Queued::Done(c) => Queued::Done(self.as_asked(c)),
            q => q,
        })
    }
    fn commit(&mut self) -> io::Result<()> {
        self.inner.commit()
    }
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let from = out.len();
        let n = self.inner.reap(min, out)?;
        for c in &mut out[from..] {
            *c = self.as_asked(*c);
        }
        Ok(n)
    }
    fn reap_until(
        &mut self,
        min: usize,
        deadline_ns: u64,
        out: &mut Vec<Completion>,
    ) -> io::Result<usize> {
        let from = out.len();
        let n = self.inner.reap_until(min, deadline_ns, out)?;
        for c in &mut out[from..] {
            *c = self.as_asked(*c);
        }
        Ok(n)
    }
    fn cancel(&mut self) -> io::Result<()> {
        self.inner.cancel()
    }
    fn in_flight(&self) -> usize {
        self.inner.in_flight()
    }
    fn buf_mut(&mut self, slot: u16) -> &mut [u8] {
        self.inner.buf_mut(slot)
    }
    fn unlink(&mut self, path: &Path) -> io::Result<()> {
        self.tell(FileCall::Unlink(path));
        self.inner.unlink(path)
    }
    fn path(&self, file: FileId) -> &Path {
        self.inner.path(file)
    }
}

#[cfg(test)]
mod finish_write_tests {
    use super::*;

    /// An engine that takes 18 bytes of the first write, then refuses
    /// every call with `then` (or passes them on).
    fn short(then: Option<i32>) -> (tempfile::TempDir, Box<dyn Engine>, FileId) {
        let d = tempfile::tempdir().unwrap();
        let inner = Choice::PSYNC
            .make(&EngineOpts {
                max_len: 4096,
                ..Default::default()
            })
            .unwrap();
        let mut calls = 0;
        let mut e: Box<dyn Engine> = Box::new(Intercept::new(inner, move |mut req: Req| {
            calls += 1;
            match (calls, then) {
                (1, _) => req.len = 18,
                (_, Some(errno)) => return Err(io::Error::from_raw_os_error(errno)),
                _ => {}
            }
            Ok(req)
        }));
        let f = e.open(&d.path().join("f"), OpenHow::CREATE).unwrap();
        (d, e, f)
    }

    #[test]
    fn a_short_write_is_named_by_the_next_calls_error() {
        let (_d, mut e, f) = short(Some(libc::ENOSPC));
        let req = Req::write(f, 0, 50);
        let c = e.exec(req).unwrap();
        assert_eq!(c.bytes, 18);
        let err = finish_write(e.as_mut(), req, c.bytes).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOSPC));
    }

    #[test]
    fn a_short_write_finished_by_more_calls_is_whole() {
        let (d, mut e, f) = short(None);
        for (i, b) in e.buf_mut(0)[..50].iter_mut().enumerate() {
            *b = i as u8;
        }
        let req = Req::write(f, 0, 50);
        let c = e.exec(req).unwrap();
        finish_write(e.as_mut(), req, c.bytes).unwrap();
        let want: Vec<u8> = (0..50).collect();
        assert_eq!(std::fs::read(d.path().join("f")).unwrap(), want);
        // the caller's buffer is as it was
        assert_eq!(&e.buf_mut(0)[..50], &want[..]);
    }
}
