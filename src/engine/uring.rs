//! `io_uring`: requests go into an io_uring(7) submission queue, one
//! system call submits a batch, and completions are reaped as the kernel
//! posts them, in any order. Each request's `user_data` is its buffer slot,
//! which matches a completion to its request.
//!
//! The ring asks for SINGLE_ISSUER, DEFER_TASKRUN (with TASKRUN_FLAG),
//! COOP_TASKRUN and NO_SQARRAY, and drops them in that order where the
//! kernel refuses one (EINVAL), as fio does; [`Engine::mode`] says which
//! stuck. It is made on the thread that builds the engine but used on the
//! worker's, and a SINGLE_ISSUER ring belongs to the thread that enables
//! it: so it starts disabled (R_DISABLED) and the first request enables it
//! on the worker's thread, which then registers the ring's descriptor and
//! enters the kernel through that index, sparing a file lookup per call.

use super::psync::unsupported;
use super::*;
use crate::error::refused;
use io_uring::{EnterFlags, IoUring, opcode, squeue, types};
use std::collections::VecDeque;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};

pub const INFO: EngineInfo = EngineInfo {
    name: "io_uring",
    doc: "io_uring(7): up to --iodepth reads, writes and fsyncs in flight, submitted in one system call per batch and reaped as they complete (fio's io_uring)",
    caps: Caps {
        sync: false,
        queued: true,
        direct: true,
        fake: false,
        buffered: false,
        registered: true,
        sqpoll: true,
        polled: true,
        polled_share: false,
        nowait: true,
        uncached: true,
        grows_files: true,
    },
    make: |o| Ok(Box::new(Uring::new(o)?)),
};

/// A request in flight: when its batch was issued and when the kernel
/// took it (0 until then, [`SUB_NONE`] when a kernel thread takes it).
struct Flight {
    req: Req,
    issued_ns: u64,
    accepted_ns: u64,
}

/// The setup flags that stuck (the kernel refused the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mode {
    /// SINGLE_ISSUER with R_DISABLED: enabled by the first request.
    single_issuer: bool,
    /// DEFER_TASKRUN with TASKRUN_FLAG: completions are posted only when
    /// this thread enters the kernel, and a flag says when to.
    defer_taskrun: bool,
    coop_taskrun: bool,
    no_sqarray: bool,
    sqpoll: bool,
    iopoll: bool,
}

/// In the submission order of `pending`: the cancel request, which has no
/// slot.
const CANCEL_SLOT: u16 = u16::MAX;
/// The cancel request's `user_data`.
const CANCEL_TAG: u64 = u64::MAX;

/// io_uring_register(2) opcodes the crate does not expose usably: it keeps
/// a registered ring's index in a `Submitter` that is made anew per call.
const IORING_REGISTER_RING_FDS: libc::c_long = 20;
const IORING_UNREGISTER_RING_FDS: libc::c_long = 21;

/// How long the SQ polling thread spins without work before it sleeps.
const SQPOLL_IDLE_MS: u32 = 1000;

/// Registered file table size: enough for any benchmark's open files at
/// once; files beyond it go unregistered.
const FIXED_FILES: u32 = 256;

/// The kernel's `struct io_uring_rsrc_update`.
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

/// The kernel's `struct io_uring_getevents_arg` (IORING_ENTER_EXT_ARG).
#[repr(C)]
struct GeteventsArg {
    sigmask: u64,
    sigmask_sz: u32,
    min_wait_usec: u32,
    ts: u64,
}

/// The kernel's `struct __kernel_timespec`.
#[repr(C)]
struct KernelTimespec {
    tv_sec: i64,
    tv_nsec: i64,
}

pub struct Uring {
    ring: IoUring,
    files: FileTable<File>,
    bufs: Vec<AlignedBuf>,
    /// By buffer slot: the request using it, while in flight.
    flight: Vec<Option<Flight>>,
    /// Slots in the submission queue that the kernel has not taken yet,
    /// in the order queued (the kernel takes entries in order).
    pending: VecDeque<u16>,
    /// Queued and not yet reaped (submitted or not).
    in_flight: usize,
    depth: usize,
    /// How data files are opened (O_DIRECT, O_NOATIME).
    file_mode: FileMode,
    datasync: bool,
    /// Requests name their buffer by index (slot) among the registered.
    fixed_bufs: bool,
    /// Size of the registered file table (0: none); a file whose id is
    /// below it is registered at open and named by that id.
    fixed_files: u32,
    /// RWF_NOWAIT and RWF_DONTCACHE, as asked, on every read and write.
    rw_flags: i32,
    mode: Mode,
    /// Enabled on the worker's thread (see the module's doc).
    enabled: bool,
    /// What io_uring_enter is given: the ring's descriptor, or its
    /// registered index with IORING_ENTER_REGISTERED_RING in
    /// `enter_flags`.
    enter_fd: i32,
    enter_flags: u32,
    /// The issue stamp of the batch being queued.
    batch_ns: u64,
}

impl Uring {
    fn new(o: &EngineOpts) -> io::Result<Uring> {
        let slots = o.slots.max(o.depth).max(1);
        let depth = usize::from(o.depth.max(1));
        // the default completion queue (twice the submission queue) holds
        // every completion of a full queue and the cancel request's
        let (ring, mode) = build(depth.next_power_of_two() as u32, &o.queue)?;
        let mut bufs = buffer::slots(slots, o.max_len, o.seed);
        if o.queue.fixed_bufs {
            let iovecs: Vec<libc::iovec> = bufs
                .iter_mut()
                .map(|b| libc::iovec {
                    iov_base: b.as_mut_ptr().cast(),
                    iov_len: b.len(),
                })
                .collect();
            // SAFETY: each iovec spans one buffer, a heap allocation kept
            // in `bufs` and neither moved nor freed before the ring is
            // dropped (`ring` is the first field, dropped before `bufs`).
            unsafe { ring.submitter().register_buffers(&iovecs) }.map_err(|e| {
                if e.raw_os_error() == Some(libc::ENOMEM) {
                    io::Error::new(
                        e.kind(),
                        "registering the buffers exceeds the locked-memory limit (RLIMIT_MEMLOCK, `ulimit -l`)",
                    )
                } else {
                    io::Error::new(e.kind(), format!("registering the buffers: {e}"))
                }
            })?;
        }
        let fixed_files = if o.queue.register_files {
            ring.submitter()
                .register_files_sparse(FIXED_FILES)
                .map_err(|e| io::Error::new(e.kind(), format!("registering files: {e}")))?;
            FIXED_FILES
        } else {
            0
        };
        let mut rw_flags = 0;
        if o.queue.nowait {
            rw_flags |= libc::RWF_NOWAIT;
        }
        if o.queue.uncached {
            rw_flags |= libc::RWF_DONTCACHE;
        }
        Ok(Uring {
            enter_fd: ring.as_raw_fd(),
            ring,
            files: FileTable::default(),
            bufs,
            flight: (0..slots).map(|_| None).collect(),
            pending: VecDeque::with_capacity(depth + 1),
            in_flight: 0,
            depth,
            file_mode: o.file_mode(),
            datasync: o.datasync,
            fixed_bufs: o.queue.fixed_bufs,
            fixed_files,
            rw_flags,
            mode,
            enabled: !mode.single_issuer,
            enter_flags: 0,
            batch_ns: 0,
        })
    }

    /// The setup flags that stuck and whether the ring's descriptor is
    /// registered, for the run's report: e.g. `SINGLE_ISSUER|DEFER_TASKRUN|
    /// TASKRUN_FLAG|COOP_TASKRUN|NO_SQARRAY, registered ring`.
    fn mode_text(&self) -> String {
        let m = self.mode;
        let flags: Vec<&str> = [
            (m.single_issuer, "SINGLE_ISSUER"),
            (m.defer_taskrun, "DEFER_TASKRUN|TASKRUN_FLAG"),
            (m.coop_taskrun, "COOP_TASKRUN"),
            (m.no_sqarray, "NO_SQARRAY"),
            (m.sqpoll, "SQPOLL"),
            (m.iopoll, "IOPOLL"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        let ring = if self.enter_flags != 0 {
            "registered ring"
        } else {
            "ring by descriptor"
        };
        match flags.as_slice() {
            [] => format!("no setup flags, {ring}"),
            f => format!("{}, {ring}", f.join("|")),
        }
    }

    /// The buffer of `req`'s slot, which must exist, be free and hold
    /// `req.len` bytes.
    #[inline]
    fn free_buf(&mut self, req: &Req) -> io::Result<*mut u8> {
        let slot = usize::from(req.slot);
        match self.flight.get(slot) {
            Some(None) => {}
            Some(Some(_)) => {
                return Err(io::Error::other(format!(
                    "io_uring: buffer slot {slot} is queued while still in flight"
                )));
            }
            None => {
                return Err(io::Error::other(format!(
                    "io_uring: buffer slot {slot} does not exist ({} slots)",
                    self.flight.len()
                )));
            }
        }
        let buf = &mut self.bufs[slot];
        if req.len as usize > buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "io_uring: a request of {} B is larger than its buffer ({} B)",
                    req.len,
                    buf.len()
                ),
            ));
        }
        Ok(buf.as_mut_ptr())
    }

    /// The submission entry of `req` on file `fd` with buffer `ptr`,
    /// naming the file by its registered index where it has one.
    #[inline]
    fn entry(&self, req: &Req, fd: types::Fd, ptr: *mut u8) -> io::Result<squeue::Entry> {
        let (fixed_bufs, datasync, rw) = (self.fixed_bufs, self.datasync, self.rw_flags);
        // one entry for either kind of file (registered or not: two types)
        macro_rules! entry {
            ($fd:expr) => {
                match (req.kind, fixed_bufs) {
                    (OpKind::Read, false) => opcode::Read::new($fd, ptr, req.len)
                        .offset(req.offset)
                        .rw_flags(rw)
                        .build(),
                    (OpKind::Read, true) => opcode::ReadFixed::new($fd, ptr, req.len, req.slot)
                        .offset(req.offset)
                        .rw_flags(rw)
                        .build(),
                    (OpKind::Write | OpKind::Append, false) => {
                        opcode::Write::new($fd, ptr, req.len)
                            .offset(req.offset)
                            .rw_flags(rw)
                            .build()
                    }
                    (OpKind::Write | OpKind::Append, true) => {
                        opcode::WriteFixed::new($fd, ptr, req.len, req.slot)
                            .offset(req.offset)
                            .rw_flags(rw)
                            .build()
                    }
                    (OpKind::Fsync, _) => opcode::Fsync::new($fd)
                        .flags(if datasync {
                            types::FsyncFlags::DATASYNC
                        } else {
                            types::FsyncFlags::empty()
                        })
                        .build(),
                    // IORING_OP_FALLOCATE: a hole punched in a regular file
                    // (block devices are discarded in `queue`)
                    (OpKind::Trim, _) => opcode::Fallocate::new($fd, u64::from(req.len))
                        .offset(req.offset)
                        .mode(libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE)
                        .build(),
                    (k, _) => return Err(unsupported(k)),
                }
            };
        }
        let sqe = if req.file.0 < self.fixed_files {
            entry!(types::Fixed(req.file.0))
        } else {
            entry!(fd)
        };
        Ok(sqe.user_data(u64::from(req.slot)))
    }

    /// Count `req`, just pushed to the submission queue, as in flight.
    #[inline]
    fn mark_in_flight(&mut self, req: Req) {
        // one clock read per batch: the first request queued since the
        // last submit stamps them all
        if self.pending.is_empty() {
            self.batch_ns = now_ns();
        }
        let accepted_ns = if self.mode.sqpoll {
            SUB_NONE
        } else {
            self.pending.push_back(req.slot);
            0
        };
        self.flight[usize::from(req.slot)] = Some(Flight {
            req,
            issued_ns: self.batch_ns,
            accepted_ns,
        });
        self.in_flight += 1;
    }

    /// Enable the ring on this thread, which becomes its single issuer,
    /// and register its descriptor here (registrations are per thread).
    /// Once, at the first request.
    #[cold]
    fn enable(&mut self) -> io::Result<()> {
        if self.mode.single_issuer {
            self.ring
                .submitter()
                .register_enable_rings()
                .map_err(|e| io::Error::new(e.kind(), format!("enabling the io_uring: {e}")))?;
        }
        self.enabled = true;
        let mut up = RsrcUpdate {
            offset: u32::MAX,
            resv: 0,
            data: self.ring.as_raw_fd() as u64,
        };
        // SAFETY: `up` is one valid io_uring_rsrc_update the kernel reads
        // and writes (the index it chose) during the call.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_uring_register,
                self.ring.as_raw_fd() as libc::c_long,
                IORING_REGISTER_RING_FDS,
                &mut up as *mut RsrcUpdate,
                1 as libc::c_long,
            )
        };
        // a kernel before 5.18, or every index of this thread taken: enter
        // by descriptor
        if r == 1 {
            self.enter_fd = up.offset as i32;
            self.enter_flags = EnterFlags::REGISTERED_RING.bits();
        }
        Ok(())
    }

    #[inline]
    fn ready(&mut self) -> io::Result<()> {
        if self.enabled { Ok(()) } else { self.enable() }
    }

    /// io_uring_enter(2) through the registered index when there is one:
    /// submit `to_submit` entries, wait for `min` completions. Returns how
    /// many entries the kernel took.
    fn enter(&self, to_submit: usize, min: usize, flags: EnterFlags) -> io::Result<usize> {
        // SAFETY: no argument pointer goes with these flags; `enter_fd`
        // is this ring's descriptor or its registered index.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                self.enter_fd as libc::c_long,
                to_submit as libc::c_long,
                min as libc::c_long,
                (flags.bits() | self.enter_flags) as libc::c_long,
                std::ptr::null::<libc::c_void>(),
                0 as libc::c_long,
            )
        };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(r as usize)
        }
    }

    /// [`Uring::enter`] waiting at most `timeout_ns` (EXT_ARG, Linux 5.11).
    fn enter_timeout(&self, to_submit: usize, min: usize, timeout_ns: u64) -> io::Result<usize> {
        if !self.ring.params().is_feature_ext_arg() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "io_uring: a wait with a deadline needs Linux 5.11 (IORING_ENTER_EXT_ARG)",
            ));
        }
        let ts = KernelTimespec {
            tv_sec: (timeout_ns / 1_000_000_000) as i64,
            tv_nsec: (timeout_ns % 1_000_000_000) as i64,
        };
        let arg = GeteventsArg {
            sigmask: 0,
            sigmask_sz: 0,
            min_wait_usec: 0,
            ts: &ts as *const KernelTimespec as u64,
        };
        let flags = EnterFlags::GETEVENTS | EnterFlags::EXT_ARG;
        // SAFETY: `arg` and the timespec it points to live across the
        // call, and the size passed is `arg`'s.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                self.enter_fd as libc::c_long,
                to_submit as libc::c_long,
                min as libc::c_long,
                (flags.bits() | self.enter_flags) as libc::c_long,
                &arg as *const GeteventsArg,
                std::mem::size_of::<GeteventsArg>() as libc::c_long,
            )
        };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(r as usize)
        }
    }

    /// The first `n` pending entries were taken by the kernel at `now`.
    fn accept(&mut self, n: usize, now: u64) {
        for slot in self.pending.drain(..n.min(self.pending.len())) {
            if let Some(Some(f)) = self.flight.get_mut(usize::from(slot)) {
                f.accepted_ns = now;
            }
        }
    }

    /// Submit what is pending and wait for `min` completions, until
    /// `timeout_ns` at most. A signal, the deadline or a full completion
    /// queue ends the wait early: the caller drains and looks again.
    fn wait(&mut self, min: usize, timeout_ns: Option<u64>) -> io::Result<()> {
        let to_submit = self.pending.len();
        let r = match timeout_ns {
            None => self.enter(to_submit, min, EnterFlags::GETEVENTS),
            Some(t) => self.enter_timeout(to_submit, min, t),
        };
        match r {
            Ok(n) => {
                if n > 0 && to_submit > 0 {
                    self.accept(n, now_ns());
                }
                Ok(())
            }
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EINTR | libc::ETIME | libc::EAGAIN | libc::EBUSY)
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Under SQ polling, wait until the queue has room. The kernel thread
    /// moves the queue's head only after the batch it took: a page-cache
    /// hit in that batch completes, and is reaped, before its entry is
    /// given back, so a free slot does not mean a free entry.
    fn wait_for_room(&mut self) -> io::Result<()> {
        while self.ring.submission().is_full() {
            let mut flags = EnterFlags::SQ_WAIT;
            if self.ring.submission().need_wakeup() {
                flags |= EnterFlags::SQ_WAKEUP;
            }
            match self.enter(0, 0, flags) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Whether completions may be waiting in the kernel with none posted:
    /// polled rings post only when polled, and without DEFER_TASKRUN's
    /// flag there is no telling.
    fn must_enter(&mut self) -> bool {
        self.mode.iopoll
            || (!self.mode.sqpoll && !self.mode.defer_taskrun)
            || self.ring.submission().taskrun()
    }

    /// Take every completion the kernel has posted into `out`; a failed
    /// request with its errno in `err`.
    fn drain(&mut self, out: &mut Vec<Completion>) -> io::Result<usize> {
        let mut cq = self.ring.completion();
        if cq.is_empty() {
            return Ok(0);
        }
        let now = now_ns();
        let (mut n, mut stray) = (0, None);
        for cqe in &mut cq {
            let tag = cqe.user_data();
            if tag == CANCEL_TAG {
                continue;
            }
            let Some(f) = self.flight.get_mut(tag as usize).and_then(Option::take) else {
                stray = Some(tag);
                continue;
            };
            self.in_flight -= 1;
            let res = cqe.result();
            out.push(Completion {
                req: f.req,
                // a fallocate returns 0: a trim moved its whole length
                bytes: match f.req.kind {
                    OpKind::Trim if res >= 0 => u64::from(f.req.len),
                    _ => res.max(0) as u64,
                },
                lat_ns: now.saturating_sub(f.issued_ns),
                done_ns: now,
                sub_ns: match f.accepted_ns {
                    0 | SUB_NONE => SUB_NONE,
                    at => at.saturating_sub(f.issued_ns),
                },
                err: if res < 0 { -res } else { 0 },
            });
            n += 1;
        }
        match stray {
            Some(slot) => Err(io::Error::other(format!(
                "io_uring: a completion for buffer slot {slot}, which has nothing in flight"
            ))),
            None => Ok(n),
        }
    }

    /// Reap at least `min`, or what there is by clock `deadline_ns`.
    fn reap_by(
        &mut self,
        min: usize,
        deadline_ns: Option<u64>,
        out: &mut Vec<Completion>,
    ) -> io::Result<usize> {
        if min > self.in_flight {
            return Err(io::Error::other(format!(
                "io_uring: asked to reap {min} with {} in flight",
                self.in_flight
            )));
        }
        self.ready()?;
        let mut n = self.drain(out)?;
        if n == 0 && min == 0 && self.in_flight > 0 && self.must_enter() {
            self.wait(0, None)?;
            n += self.drain(out)?;
        }
        while n < min {
            let timeout = match deadline_ns {
                None => None,
                Some(d) => match d.checked_sub(now_ns()) {
                    Some(left) if left > 0 => Some(left),
                    _ => break,
                },
            };
            self.wait(min - n, timeout)?;
            n += self.drain(out)?;
        }
        Ok(n)
    }

    /// An fsync on a polled ring, which takes only pollable requests:
    /// fsync(2) once nothing is in flight (fio does the same).
    /// A trim of a block device, done at once: io_uring has no discard for
    /// a plain descriptor (its fallocate zeroes a device's blocks instead).
    fn discard_now(&mut self, req: Req) -> io::Result<Queued> {
        let fd = self.files.get(req.file)?.as_raw_fd();
        timed(req, || trim_fd(fd, TrimBy::Discard, req.offset, req.len))
            .map(Queued::Done)
            .map_err(|e| {
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                request_failed(&req, self.files.path(req.file), errno)
            })
    }

    fn fsync_now(&mut self, req: Req) -> io::Result<Queued> {
        if self.in_flight > 0 {
            return Ok(Queued::Busy);
        }
        let datasync = self.datasync;
        let f = self.files.get(req.file)?;
        let c = timed(req, || {
            if datasync {
                f.sync_data()
            } else {
                f.sync_all()
            }
            .map(|()| 0)
        })
        .map_err(|e| {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            request_failed(&req, self.files.path(req.file), errno)
        })?;
        Ok(Queued::Done(c))
    }
}

/// Make the ring with the flags `q` asks for and the ones iogauge wants,
/// dropping the wanted ones in turn where the kernel refuses (EINVAL).
fn build(entries: u32, q: &QueueOpts) -> io::Result<(IoUring, Mode)> {
    // SQ polling is refused with DEFER_TASKRUN or COOP_TASKRUN (EINVAL)
    let mut mode = Mode {
        single_issuer: true,
        defer_taskrun: !q.sqpoll,
        coop_taskrun: !q.sqpoll,
        no_sqarray: true,
        sqpoll: q.sqpoll,
        iopoll: q.hipri,
    };
    loop {
        let mut b = IoUring::builder();
        if mode.single_issuer {
            b.setup_single_issuer().setup_r_disabled();
        }
        if mode.defer_taskrun {
            b.setup_defer_taskrun().setup_taskrun_flag();
        }
        if mode.coop_taskrun {
            b.setup_coop_taskrun();
        }
        if mode.no_sqarray {
            b.setup_no_sqarray();
        }
        if mode.iopoll {
            b.setup_iopoll();
        }
        if mode.sqpoll {
            b.setup_sqpoll(SQPOLL_IDLE_MS);
            if let Some(cpu) = q.sqpoll_cpu {
                b.setup_sqpoll_cpu(u32::from(cpu));
            }
        }
        match b.build(entries) {
            Ok(ring) => return Ok((ring, mode)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                if mode.defer_taskrun {
                    mode.defer_taskrun = false;
                } else if mode.coop_taskrun {
                    mode.coop_taskrun = false;
                } else if mode.no_sqarray {
                    mode.no_sqarray = false;
                } else if mode.single_issuer {
                    mode.single_issuer = false;
                } else {
                    return Err(refused_flags(e, q));
                }
            }
            Err(e) => return Err(setup_failed(e)),
        }
    }
}

/// The kernel refused a ring even with no flag iogauge could drop: name
/// the flags the user asked for.
fn refused_flags(e: io::Error, q: &QueueOpts) -> io::Error {
    let asked: Vec<String> = [
        q.sqpoll.then(|| "--sqthread-poll".to_owned()),
        q.sqpoll_cpu
            .map(|c| format!("--sqthread-cpu {c} (is CPU {c} online?)")),
        q.hipri.then(|| "--hipri".to_owned()),
    ]
    .into_iter()
    .flatten()
    .collect();
    match asked.as_slice() {
        [] => setup_failed(e),
        a => io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "io_uring_setup refused {} (EINVAL): the kernel cannot set the ring up so",
                a.join(" with ")
            ),
        ),
    }
}

/// Refuse `--hipri` on a file whose device cannot poll: one line naming
/// the device's `/sys/block/X/queue/io_poll`.
fn check_polls(path: &Path, f: &File) -> io::Result<()> {
    let st = f.metadata()?;
    let dev = if st.file_type().is_block_device() {
        st.rdev()
    } else {
        st.dev()
    };
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let refuse = |why: String| Err(refused(format!("--hipri: {why}; run without --hipri")));
    if major == 0 {
        return refuse(format!(
            "{} is on a file system without a block device of its own (tmpfs, overlayfs, NFS, btrfs), which cannot poll for completions",
            path.display()
        ));
    }
    let dir = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    let disk = if dir.join("partition").exists() {
        dir.join("..")
    } else {
        dir
    };
    let name = std::fs::canonicalize(&disk)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| format!("{major}:{minor}"));
    let polls = std::fs::read_to_string(disk.join("queue/io_poll"));
    match polls.as_deref().map(str::trim) {
        Ok("1") => Ok(()),
        Ok(v) => refuse(format!(
            "the device holding {} ({name}) cannot poll for completions (/sys/block/{name}/queue/io_poll is {v}; NVMe polls only with poll queues, nvme.poll_queues=N)",
            path.display()
        )),
        Err(e) => refuse(format!(
            "the device holding {} ({name}) does not say whether it polls (/sys/block/{name}/queue/io_poll: {e})",
            path.display()
        )),
    }
}

/// Refuse `--uncached` on a file whose kernel or file system does no
/// uncached buffered I/O: a one-byte RWF_DONTCACHE read says (one of no
/// bytes is not checked by the kernel).
pub(super) fn check_uncached(path: &Path, f: &File) -> io::Result<()> {
    let probe = |fd: i32| {
        let mut byte = 0u8;
        let iov = libc::iovec {
            iov_base: (&mut byte as *mut u8).cast(),
            iov_len: 1,
        };
        // SAFETY: `iov` spans one byte on the stack, live across the call.
        let r = unsafe { libc::preadv2(fd, &iov, 1, 0, libc::RWF_DONTCACHE) };
        if r < 0 {
            io::Error::last_os_error().raw_os_error()
        } else {
            None
        }
    };
    let mut errno = probe(f.as_raw_fd());
    if errno == Some(libc::EBADF) {
        // opened for writing only: ask through a reading descriptor
        errno = File::open(path).ok().and_then(|r| probe(r.as_raw_fd()));
    }
    match errno {
        Some(libc::EOPNOTSUPP | libc::EINVAL) => Err(refused(format!(
            "--uncached: the kernel (6.14+) or the file system holding {} does not do uncached buffered I/O (RWF_DONTCACHE); run without --uncached",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// io_uring_setup(2) failed: say why in one line, naming the sysctl that
/// turns io_uring off (Linux 6.6+) where the kernel refused.
fn setup_failed(e: io::Error) -> io::Error {
    let sysctl = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled").ok();
    match refusal(e.raw_os_error(), sysctl.as_deref().map(str::trim)) {
        Some(why) => io::Error::new(io::ErrorKind::PermissionDenied, why),
        None => io::Error::new(e.kind(), format!("io_uring_setup failed: {e}")),
    }
}

/// Why the kernel refused io_uring (`errno` ENOSYS or EPERM), given the
/// value of `kernel.io_uring_disabled` if it exists.
fn refusal(errno: Option<i32>, disabled: Option<&str>) -> Option<String> {
    let value = disabled.unwrap_or("absent");
    Some(match (errno?, disabled) {
        (libc::EPERM, Some("2")) => {
            "io_uring is disabled here (sysctl kernel.io_uring_disabled = 2); use --engine libaio or psync"
                .to_owned()
        }
        (libc::EPERM, Some("1")) => {
            "io_uring is open only to the group kernel.io_uring_group here (sysctl kernel.io_uring_disabled = 1); use --engine libaio or psync"
                .to_owned()
        }
        (libc::EPERM, _) => format!(
            "io_uring_setup refused (EPERM) with sysctl kernel.io_uring_disabled {value}: a seccomp filter (a container's default profile) blocks it; use --engine libaio or psync"
        ),
        (libc::ENOSYS, _) => format!(
            "this kernel has no io_uring (ENOSYS; sysctl kernel.io_uring_disabled {value}); use --engine libaio or psync"
        ),
        _ => return None,
    })
}

impl Engine for Uring {
    fn info(&self) -> &'static EngineInfo {
        &INFO
    }

    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        let f = open_file_as(path, how, self.file_mode)?;
        if self.mode.iopoll {
            check_polls(path, &f)?;
        }
        if self.rw_flags & libc::RWF_DONTCACHE != 0 {
            check_uncached(path, &f)?;
        }
        let fd = f.as_raw_fd();
        let id = self.files.insert(f, path);
        if id.0 < self.fixed_files
            && let Err(e) = self.ring.submitter().register_files_update(id.0, &[fd])
        {
            self.files.remove(id)?;
            return Err(io::Error::new(
                e.kind(),
                format!("registering {}: {e}", path.display()),
            ));
        }
        Ok(id)
    }

    fn close(&mut self, file: FileId) -> io::Result<()> {
        if self.flight.iter().flatten().any(|f| f.req.file == file) {
            return Err(io::Error::other(format!(
                "io_uring: {} is closed with requests on it in flight",
                self.files.path(file).display()
            )));
        }
        if file.0 < self.fixed_files {
            self.ring.submitter().register_files_update(file.0, &[-1])?;
        }
        self.files.remove(file).map(drop)
    }

    fn queue(&mut self, req: Req) -> io::Result<Queued> {
        self.ready()?;
        if self.in_flight >= self.depth {
            return Ok(Queued::Busy);
        }
        if self.mode.iopoll && req.kind == OpKind::Fsync {
            return self.fsync_now(req);
        }
        if req.kind == OpKind::Trim && TrimBy::of(self.files.get(req.file)?)? == TrimBy::Discard {
            return self.discard_now(req);
        }
        let fd = types::Fd(self.files.get(req.file)?.as_raw_fd());
        let ptr = self.free_buf(&req)?;
        let sqe = self.entry(&req, fd, ptr)?;
        if self.mode.sqpoll {
            self.wait_for_room()?;
        }
        // SAFETY: the entry points into the buffer of `req.slot` (checked
        // to hold `req.len` bytes), a heap allocation that neither moves
        // nor is freed while the request is in flight: the slot is marked
        // busy below and not queued again until its completion is reaped,
        // and Drop reaps every request before the buffers go (or leaks
        // them). The file stays open as long: `close` refuses a file with
        // requests in flight.
        unsafe { self.ring.submission().push(&sqe) }
            .map_err(|_| io::Error::other("io_uring: the submission queue is full"))?;
        self.mark_in_flight(req);
        Ok(Queued::InFlight)
    }

    fn commit(&mut self) -> io::Result<()> {
        self.ready()?;
        if self.mode.sqpoll {
            // the kernel thread takes the entries by itself, unless asleep
            if self.ring.submission().need_wakeup() {
                self.enter(0, 0, EnterFlags::SQ_WAKEUP)?;
            }
            return Ok(());
        }
        while !self.pending.is_empty() {
            // GETEVENTS runs deferred completions, so that requests done
            // inside the call (page-cache hits) are in the queue on return
            match self.enter(self.pending.len(), 0, EnterFlags::GETEVENTS) {
                Ok(n) => self.accept(n, now_ns()),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                // the kernel is out of room for completions: reaping
                // makes some, and the next submit takes the rest
                Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::EBUSY)) => {
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        self.reap_by(min, None, out)
    }

    fn reap_until(
        &mut self,
        min: usize,
        deadline_ns: u64,
        out: &mut Vec<Completion>,
    ) -> io::Result<usize> {
        self.reap_by(min, Some(deadline_ns), out)
    }

    fn cancel(&mut self) -> io::Result<()> {
        self.ready()?;
        if self.in_flight == 0 {
            return Ok(());
        }
        // the submission queue holds `depth` entries: empty it first
        self.commit()?;
        let sqe = opcode::AsyncCancel2::new(types::CancelBuilder::any())
            .build()
            .user_data(CANCEL_TAG);
        // SAFETY: a cancel entry points to no memory.
        unsafe { self.ring.submission().push(&sqe) }
            .map_err(|_| io::Error::other("io_uring: no room to queue a cancel"))?;
        if !self.mode.sqpoll {
            self.pending.push_back(CANCEL_SLOT);
        }
        self.commit()
    }

    fn in_flight(&self) -> usize {
        self.in_flight
    }

    fn mode(&self) -> Option<String> {
        Some(self.mode_text())
    }

    fn buf_mut(&mut self, slot: u16) -> &mut [u8] {
        &mut self.bufs[usize::from(slot)]
    }

    fn path(&self, file: FileId) -> &Path {
        self.files.path(file)
    }
}

/// How long Drop waits for cancelled requests before it leaks their
/// buffers.
const DROP_WAIT_NS: u64 = 5_000_000_000;

impl Drop for Uring {
    /// The kernel may still write into a buffer of a request in flight:
    /// cancel what is, wait for each before the buffers are freed, and if
    /// that fails (or this is not the ring's thread) leak the buffers
    /// rather than free them under the kernel.
    fn drop(&mut self) {
        if self.in_flight > 0 {
            let deadline = now_ns() + DROP_WAIT_NS;
            let mut out = Vec::new();
            let mut ok = self.cancel().is_ok();
            while ok && self.in_flight > 0 && now_ns() < deadline {
                out.clear();
                ok = self.reap_until(self.in_flight, deadline, &mut out).is_ok();
            }
            if self.in_flight > 0 {
                std::mem::forget(std::mem::take(&mut self.bufs));
            }
        }
        if self.enter_flags != 0 {
            let up = RsrcUpdate {
                offset: self.enter_fd as u32,
                resv: 0,
                data: 0,
            };
            // SAFETY: `up` is one valid io_uring_rsrc_update, read during
            // the call. A registration holds the ring open until its
            // thread ends: drop it (from another thread this fails, and
            // the thread's end does it).
            unsafe {
                libc::syscall(
                    libc::SYS_io_uring_register,
                    self.ring.as_raw_fd() as libc::c_long,
                    IORING_UNREGISTER_RING_FDS,
                    &up as *const RsrcUpdate,
                    1 as libc::c_long,
                )
            };
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::testkit::{file_with, opts};
    use super::*;

    /// `len` bytes that differ at every offset (up to 2^32), so a block
    /// read from the wrong place or into the wrong slot shows.
    fn pattern(len: usize) -> Vec<u8> {
        (0..len as u32)
            .map(|i| (i ^ (i >> 8) ^ (i >> 16).wrapping_mul(31)) as u8)
            .collect()
    }

    #[test]
    fn depth_32_keeps_32_in_flight_and_no_more() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_with(dir.path(), &pattern(1 << 20));
        let mut e = Uring::new(&EngineOpts {
            slots: 33,
            ..opts(32, false)
        })
        .unwrap();
        let f = e.open(&path, OpenHow::READ).unwrap();
        let read = |slot: u16| Req {
            slot,
            ..Req::read(f, u64::from(slot) * 4096, 4096)
        };
        for slot in 0..32 {
            assert!(matches!(e.queue(read(slot)).unwrap(), Queued::InFlight));
        }
        assert_eq!(e.in_flight, 32);
        // a free slot, but the queue is full
        assert!(matches!(e.queue(read(32)).unwrap(), Queued::Busy));
        // a slot in flight is refused
        e.in_flight -= 1;
        assert!(e.queue(read(0)).is_err());
        e.in_flight += 1;
        e.commit().unwrap();
        let mut out = Vec::new();
        let n = e.reap(1, &mut out).unwrap();
        assert!(n >= 1 && n == out.len());
        assert_eq!(e.in_flight, 32 - n);
        // the slots reaped are free again, and fill the queue again
        for c in &out {
            assert!(matches!(
                e.queue(read(c.req.slot)).unwrap(),
                Queued::InFlight
            ));
        }
        assert_eq!(e.in_flight, 32);
        e.commit().unwrap();
        out.clear();
        assert_eq!(e.reap(32, &mut out).unwrap(), 32);
        assert_eq!(e.in_flight, 0);
        assert!(e.reap(1, &mut out).is_err(), "nothing left to reap");
    }

    /// Random blocks read at depth 32, each completion checked against
    /// the bytes at its own offset; buffered and O_DIRECT, with files and
    /// buffers registered or not.
    #[test]
    fn every_completion_is_matched_to_its_request() {
        let size = 4 << 20;
        let data = pattern(size);
        let dir = tempfile::tempdir().unwrap();
        let path = file_with(dir.path(), &data);
        for (direct, registered) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut e = Uring::new(&EngineOpts {
                queue: QueueOpts {
                    fixed_bufs: registered,
                    register_files: registered,
                    ..QueueOpts::default()
                },
                ..opts(32, direct)
            })
            .unwrap();
            assert_eq!(e.fixed_files > 0, registered);
            let f = e.open(&path, OpenHow::READ).unwrap();
            let mut free: Vec<u16> = (0..32).collect();
            let (mut rng, mut issued, mut done, mut deepest) = (0x9e37_79b9_7f4a_7c15u64, 0, 0, 0);
            let mut out = Vec::new();
            while done < 2000 {
                while issued < 2000 && !free.is_empty() {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    let block = rng % (size as u64 / 4096);
                    let req = Req {
                        slot: free.pop().unwrap(),
                        ..Req::read(f, block * 4096, 4096)
                    };
                    e.buf_mut(req.slot).fill(0);
                    assert!(matches!(e.queue(req).unwrap(), Queued::InFlight));
                    issued += 1;
                    deepest = deepest.max(e.in_flight);
                }
                e.commit().unwrap();
                out.clear();
                e.reap(1, &mut out).unwrap();
                for c in &out {
                    let at = c.req.offset as usize;
                    assert_eq!(c.bytes, 4096);
                    assert!(
                        e.buf_mut(c.req.slot)[..4096] == data[at..at + 4096],
                        "direct {direct}, registered {registered}: the bytes of slot {} are not those at offset {at}",
                        c.req.slot
                    );
                    assert!(c.done_ns > 0 && c.lat_ns > 0);
                    free.push(c.req.slot);
                    done += 1;
                }
            }
            assert_eq!(deepest, 32, "direct {direct}, registered {registered}");
        }
    }

    #[test]
    fn writes_fsync_and_a_short_read_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        // the second round also with registered files and buffers
        for datasync in [false, true] {
            let o = EngineOpts {
                datasync,
                queue: QueueOpts {
                    fixed_bufs: datasync,
                    register_files: datasync,
                    ..QueueOpts::default()
                },
                ..opts(4, false)
            };
            let mut e = Uring::new(&o).unwrap();
            let f = e.open(&path, OpenHow::CREATE).unwrap();
            let data = pattern(8192 + 100);
            e.buf_mut(0)[..4096].copy_from_slice(&data[..4096]);
            e.buf_mut(1)[..4096].copy_from_slice(&data[4096..8192]);
            e.buf_mut(2)[..100].copy_from_slice(&data[8192..]);
            for (slot, off, len) in [(0, 0, 4096), (1, 4096, 4096), (2, 8192, 100)] {
                let req = Req {
                    slot,
                    ..Req::write(f, off, len)
                };
                assert!(matches!(e.queue(req).unwrap(), Queued::InFlight));
            }
            e.commit().unwrap();
            let mut out = Vec::new();
            assert_eq!(e.reap(3, &mut out).unwrap(), 3);
            assert!(out.iter().all(|c| c.bytes == u64::from(c.req.len)));
            let c = e.exec(Req::fsync(f)).unwrap();
            assert_eq!((c.req.kind, c.bytes), (OpKind::Fsync, 0));
            assert_eq!(std::fs::read(&path).unwrap(), data);
            // a read across the end is short, one past it empty
            assert_eq!(e.exec(Req::read(f, 4096, 4096)).unwrap().bytes, 4096);
            assert_eq!(e.exec(Req::read(f, 8192, 4096)).unwrap().bytes, 100);
            assert_eq!(&e.buf_mut(0)[..100], &data[8192..]);
            assert_eq!(e.exec(Req::read(f, 16384, 4096)).unwrap().bytes, 0);
            e.close(f).unwrap();
        }
    }

    #[test]
    fn a_failed_request_is_named_and_frees_its_slot() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_with(dir.path(), &pattern(4096));
        let mut e = Uring::new(&opts(2, false)).unwrap();
        let f = e.open(&path, OpenHow::READ).unwrap();
        let err = e.exec(Req::write(f, 512, 100)).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!(
                "write of 100 B at offset 512 in {}: ",
                path.display()
            )),
            "{msg}"
        );
        assert_eq!(e.in_flight, 0);
        assert!(e.flight.iter().all(Option::is_none));
        assert_eq!(e.exec(Req::read(f, 0, 4096)).unwrap().bytes, 4096);
    }

    #[test]
    fn a_refused_io_uring_names_the_sysctl() {
        for (errno, value) in [
            (libc::EPERM, Some("2")),
            (libc::EPERM, Some("1")),
            (libc::EPERM, Some("0")),
            (libc::EPERM, None),
            (libc::ENOSYS, None),
        ] {
            let why = refusal(Some(errno), value).unwrap();
            assert!(why.contains("kernel.io_uring_disabled"), "{why}");
            assert!(!why.contains('\n'), "{why}");
        }
        assert!(refusal(Some(libc::EINVAL), Some("0")).is_none());
        assert!(refusal(None, None).is_none());
    }

    /// A directory on a disk file system (O_DIRECT, uncached I/O and the
    /// page cache behave as on a real run; /tmp may be tmpfs).
    fn disk_dir() -> tempfile::TempDir {
        tempfile::tempdir_in("/var/tmp").unwrap()
    }

    /// A FIFO opened for reading and writing: opening does not block,
    /// and a read of it stays in flight until someone writes.
    fn fifo(dir: &Path) -> PathBuf {
        let path = dir.join("fifo");
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a NUL-terminated path that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        path
    }

    /// Drop `path`'s pages from the page cache, so that the next buffered
    /// read of it must go to the disk.
    fn evict(path: &Path) {
        let f = File::open(path).unwrap();
        f.sync_all().unwrap();
        // SAFETY: a plain call on an open descriptor.
        let r = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        assert_eq!(r, 0);
    }

    /// A request the kernel fails comes back as a completion with its
    /// errno: the slot is free again and the engine holds nothing.
    #[test]
    fn a_failure_is_a_completion_with_its_errno_and_slot() {
        let dir = disk_dir();
        let path = file_with(dir.path(), &pattern(8192));
        let mut e = Uring::new(&opts(2, false)).unwrap();
        let wo = e.open(&path, OpenHow::WRITE_ONLY).unwrap();
        let ro = e.open(&path, OpenHow::READ).unwrap();
        e.queue(Req::read(wo, 0, 4096)).unwrap();
        e.queue(Req {
            slot: 1,
            ..Req::read(ro, 4096, 4096)
        })
        .unwrap();
        e.commit().unwrap();
        let mut out = Vec::new();
        assert_eq!(e.reap(2, &mut out).unwrap(), 2);
        out.sort_by_key(|c| c.req.slot);
        assert_eq!((out[0].err, out[0].bytes), (libc::EBADF, 0));
        assert_eq!((out[1].err, out[1].bytes), (0, 4096));
        assert_eq!(e.in_flight(), 0);
        // both slots take requests again
        assert_eq!(e.exec(Req::read(ro, 0, 4096)).unwrap().bytes, 4096);
        let err = e.exec(Req::read(wo, 0, 4096)).unwrap_err();
        assert!(
            err.to_string().contains("read of 4096 B at offset 0"),
            "{err}"
        );
    }

    /// Each completion carries its submission time (issued → the submit
    /// call returned), within its total latency.
    #[test]
    fn submission_is_measured_and_within_the_total() {
        let dir = disk_dir();
        let path = file_with(dir.path(), &pattern(1 << 20));
        for direct in [false, true] {
            let mut e = Uring::new(&opts(16, direct)).unwrap();
            let f = e.open(&path, OpenHow::READ).unwrap();
            for slot in 0..16 {
                let req = Req {
                    slot,
                    ..Req::read(f, u64::from(slot) * 8192, 4096)
                };
                e.queue(req).unwrap();
            }
            e.commit().unwrap();
            let mut out = Vec::new();
            e.reap(16, &mut out).unwrap();
            for c in &out {
                assert_ne!(c.sub_ns, SUB_NONE, "direct {direct}");
                assert!(c.sub_ns > 0 && c.sub_ns <= c.lat_ns, "{c:?}");
            }
            // one batch: one issue stamp
            let issued: Vec<u64> = out.iter().map(|c| c.done_ns - c.lat_ns).collect();
            assert!(issued.iter().all(|&t| t == issued[0]), "{issued:?}");
        }
    }

    /// A read of an empty FIFO never completes: `reap_until` comes back
    /// by its deadline with nothing, and `reap(0)` at once.
    #[test]
    fn reap_until_returns_by_its_deadline() {
        let dir = disk_dir();
        let path = fifo(dir.path());
        let mut e = Uring::new(&opts(1, false)).unwrap();
        let f = e.open(&path, OpenHow::READ_WRITE).unwrap();
        e.queue(Req::read(f, 0, 100)).unwrap();
        e.commit().unwrap();
        let mut out = Vec::new();
        assert_eq!(e.reap(0, &mut out).unwrap(), 0);
        let t0 = now_ns();
        assert_eq!(e.reap_until(1, t0 + 50_000_000, &mut out).unwrap(), 0);
        let waited = now_ns() - t0;
        assert!(
            (45_000_000..1_000_000_000).contains(&waited),
            "waited {waited} ns"
        );
        assert_eq!(e.in_flight(), 1);
        // a deadline already past does not wait
        assert_eq!(e.reap_until(1, t0, &mut out).unwrap(), 0);
        e.cancel().unwrap();
        assert_eq!(e.reap(1, &mut out).unwrap(), 1);
        assert_eq!(out[0].err, libc::ECANCELED);
    }

    /// 128 reads of an empty FIFO in flight: one cancel ends each once,
    /// with ECANCELED, and leaves nothing in flight; the engine then works.
    #[test]
    fn cancel_ends_every_request_once() {
        let dir = disk_dir();
        let path = fifo(dir.path());
        let mut e = Uring::new(&opts(128, false)).unwrap();
        let f = e.open(&path, OpenHow::READ_WRITE).unwrap();
        for slot in 0..128 {
            let req = Req {
                slot,
                ..Req::read(f, 0, 100)
            };
            assert!(matches!(e.queue(req).unwrap(), Queued::InFlight));
        }
        e.commit().unwrap();
        let mut out = Vec::new();
        assert_eq!(e.reap(0, &mut out).unwrap(), 0);
        assert_eq!(e.in_flight(), 128);
        e.cancel().unwrap();
        let deadline = now_ns() + 5_000_000_000;
        while e.in_flight() > 0 && now_ns() < deadline {
            e.reap_until(e.in_flight(), deadline, &mut out).unwrap();
        }
        assert_eq!(out.len(), 128);
        assert!(
            out.iter().all(|c| c.err == libc::ECANCELED),
            "all cancelled"
        );
        let mut slots: Vec<u16> = out.iter().map(|c| c.req.slot).collect();
        slots.sort_unstable();
        assert_eq!(slots, (0..128).collect::<Vec<_>>(), "each once");
        assert_eq!(e.in_flight(), 0);
        // the FIFO still works through the engine
        e.buf_mut(0)[..3].copy_from_slice(b"abc");
        assert_eq!(e.exec(Req::write(f, 0, 3)).unwrap().bytes, 3);
        assert_eq!(e.exec(Req::read(f, 0, 100)).unwrap().bytes, 3);
    }

    /// The ring is made here and used on another thread, as a worker uses
    /// it: SINGLE_ISSUER binds it to that thread when it is first used.
    #[test]
    fn a_single_issuer_ring_made_here_works_on_another_thread() {
        let dir = disk_dir();
        let data = pattern(1 << 20);
        let path = file_with(dir.path(), &data);
        let mut e = Uring::new(&opts(8, true)).unwrap();
        let mode = e.mode_text();
        assert!(
            mode.starts_with("SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG|COOP_TASKRUN|NO_SQARRAY"),
            "{mode}"
        );
        let f = e.open(&path, OpenHow::READ).unwrap();
        let e = std::thread::spawn(move || {
            let mut out = Vec::new();
            for round in 0..4u64 {
                for slot in 0..8 {
                    let req = Req {
                        slot,
                        ..Req::read(f, (round * 8 + u64::from(slot)) * 4096, 4096)
                    };
                    e.queue(req).unwrap();
                }
                e.commit().unwrap();
                // completions come only when polled: reap(0) until all are in
                out.clear();
                while out.len() < 8 {
                    e.reap(0, &mut out).unwrap();
                }
                for c in &out {
                    let at = c.req.offset as usize;
                    assert_eq!(c.err, 0);
                    assert!(e.buf_mut(c.req.slot)[..4096] == data[at..at + 4096]);
                }
            }
            e
        })
        .join()
        .unwrap();
        assert!(
            e.mode_text().ends_with("registered ring"),
            "{}",
            e.mode_text()
        );
    }

    /// SQ polling: a kernel thread takes the requests, so submission is
    /// not measured; the data is right.
    #[test]
    fn sq_polling_reads_without_a_submission_time() {
        let dir = disk_dir();
        let data = pattern(1 << 20);
        let path = file_with(dir.path(), &data);
        let mut e = Uring::new(&EngineOpts {
            queue: QueueOpts {
                sqpoll: true,
                ..QueueOpts::default()
            },
            ..opts(8, true)
        })
        .unwrap();
        assert!(e.mode_text().contains("SQPOLL"), "{}", e.mode_text());
        let f = e.open(&path, OpenHow::READ).unwrap();
        for slot in 0..8 {
            e.queue(Req {
                slot,
                ..Req::read(f, u64::from(slot) * 4096, 4096)
            })
            .unwrap();
        }
        e.commit().unwrap();
        let mut out = Vec::new();
        e.reap(8, &mut out).unwrap();
        for c in &out {
            assert_eq!((c.err, c.sub_ns), (0, SUB_NONE));
            let at = c.req.offset as usize;
            assert!(e.buf_mut(c.req.slot)[..4096] == data[at..at + 4096]);
        }
    }

    /// --hipri on a device that cannot poll is refused in one line that
    /// names its io_poll setting; on tmpfs, that it has no device.
    #[test]
    fn hipri_is_refused_where_the_device_cannot_poll() {
        let polled = EngineOpts {
            queue: QueueOpts {
                hipri: true,
                ..QueueOpts::default()
            },
            ..opts(4, true)
        };
        let shm = tempfile::tempdir_in("/dev/shm").unwrap();
        let mut e = Uring::new(&polled).unwrap();
        assert!(e.mode_text().contains("IOPOLL"), "{}", e.mode_text());
        let err = e
            .open(&file_with(shm.path(), &[0; 4096]), OpenHow::READ)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("--hipri: ") && err.contains("without a block device"),
            "{err}"
        );
        let dir = disk_dir();
        let path = file_with(dir.path(), &[0; 4096]);
        match e.open(&path, OpenHow::READ) {
            Err(err) => {
                let err = err.to_string();
                assert!(
                    err.starts_with("--hipri: the device holding")
                        && err.contains("/queue/io_poll is 0")
                        && !err.contains('\n'),
                    "{err}"
                );
            }
            Ok(_) => eprintln!("skipped: the device under /var/tmp polls"),
        }
    }

    /// --uncached: refused on tmpfs, which has no uncached I/O; on a disk
    /// file system, reads are right and leave the file out of the cache.
    #[test]
    fn uncached_reads_work_on_disk_and_are_refused_on_tmpfs() {
        let uncached = EngineOpts {
            queue: QueueOpts {
                uncached: true,
                ..QueueOpts::default()
            },
            ..opts(4, false)
        };
        let shm = tempfile::tempdir_in("/dev/shm").unwrap();
        let mut e = Uring::new(&uncached).unwrap();
        let err = e
            .open(&file_with(shm.path(), &[1; 4096]), OpenHow::READ)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("--uncached: the kernel (6.14+) or the file system holding")
                && err.contains("RWF_DONTCACHE"),
            "{err}"
        );
        let dir = disk_dir();
        let data = pattern(64 << 10);
        let path = file_with(dir.path(), &data);
        evict(&path);
        let f = e.open(&path, OpenHow::READ).unwrap();
        for block in 0..16u64 {
            let c = e.exec(Req::read(f, block * 4096, 4096)).unwrap();
            assert_eq!(c.bytes, 4096);
            let at = block as usize * 4096;
            assert!(e.buf_mut(0)[..4096] == data[at..at + 4096]);
        }
        assert_eq!(resident_pages(&path), 0, "uncached reads leave no pages");
    }

    /// How many of `path`'s pages are in the page cache (mincore(2)).
    pub(crate) fn resident_pages(path: &Path) -> usize {
        let f = File::open(path).unwrap();
        let len = f.metadata().unwrap().len() as usize;
        // SAFETY: a read-only shared mapping of an open file, unmapped
        // below; `vec` has one byte per page for mincore to fill.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            );
            assert_ne!(p, libc::MAP_FAILED);
            let mut vec = vec![0u8; len.div_ceil(4096)];
            assert_eq!(libc::mincore(p, len, vec.as_mut_ptr()), 0);
            libc::munmap(p, len);
            vec.iter().filter(|&&b| b & 1 != 0).count()
        }
    }

    /// --nowait: a read that would wait for the disk comes back at once
    /// with EAGAIN; one of cached pages is done.
    #[test]
    fn nowait_reads_that_would_block_come_back_with_eagain() {
        let dir = disk_dir();
        let data = pattern(64 << 10);
        let path = file_with(dir.path(), &data);
        evict(&path);
        let mut e = Uring::new(&EngineOpts {
            queue: QueueOpts {
                nowait: true,
                ..QueueOpts::default()
            },
            ..opts(2, false)
        })
        .unwrap();
        let f = e.open(&path, OpenHow::READ).unwrap();
        e.queue(Req::read(f, 32768, 4096)).unwrap();
        e.commit().unwrap();
        let mut out = Vec::new();
        e.reap(1, &mut out).unwrap();
        assert_eq!((out[0].err, out[0].bytes), (libc::EAGAIN, 0));
        // cached now (read without the flag): done
        std::fs::read(&path).unwrap();
        let c = e.exec(Req::read(f, 32768, 4096)).unwrap();
        assert_eq!((c.err, c.bytes), (0, 4096));
    }
}
