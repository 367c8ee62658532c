//! `libaio`: Linux native asynchronous I/O (io_setup, io_submit,
//! io_getevents) through raw system calls, as fio's libaio engine does it
//! but without the C library. Requests wait in `queue` until `commit`
//! hands the batch to the kernel in one io_submit; `reap` collects their
//! events, matched to requests by buffer slot (the iocb's `aio_data`).
//!
//! Only O_DIRECT reads and writes are truly asynchronous: buffered ones
//! are done inside io_submit, so their latency is spent there (submission).
//!
//! Events are read from the kernel's completion ring in user space first,
//! as fio does (no system call when some are there), and only then waited
//! for with io_getevents. A request the kernel refuses, at io_submit or in
//! its event, comes back as a completion with its errno.

use super::psync::unsupported;
use super::*;
use std::sync::atomic::{AtomicU32, Ordering};

pub const INFO: EngineInfo = EngineInfo {
    name: "libaio",
    doc: "Linux native AIO (io_submit/io_getevents): up to --iodepth requests in flight, submitted in batches (fio's libaio); asynchronous only with --direct; the depth is bounded by sysctl fs.aio-max-nr",
    caps: Caps {
        sync: false,
        queued: true,
        direct: true,
        fake: false,
        buffered: false,
        nowait: true,
        grows_files: true,
        ..Caps::NONE
    },
    make: |o| Ok(Box::new(Aio::new(o)?)),
};

/// The kernel's `struct iocb` (linux/aio_abi.h, x86_64 little-endian).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    /// Given back in the event's `data`: the request's buffer slot.
    aio_data: u64,
    /// Written by the kernel during io_submit.
    aio_key: u32,
    aio_rw_flags: i32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    /// Must be 0, or io_submit refuses the iocb (EINVAL).
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// The kernel's `struct io_event`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    /// Bytes moved, or a negative errno.
    res: i64,
    res2: i64,
}

// The kernel ABI, checked when compiling: a wrong offset would hand the
// kernel garbage (or our buffer's address as a length).
const _: () = {
    assert!(std::mem::size_of::<Iocb>() == 64);
    assert!(std::mem::offset_of!(Iocb, aio_data) == 0);
    assert!(std::mem::offset_of!(Iocb, aio_key) == 8);
    assert!(std::mem::offset_of!(Iocb, aio_rw_flags) == 12);
    assert!(std::mem::offset_of!(Iocb, aio_lio_opcode) == 16);
    assert!(std::mem::offset_of!(Iocb, aio_reqprio) == 18);
    assert!(std::mem::offset_of!(Iocb, aio_fildes) == 20);
    assert!(std::mem::offset_of!(Iocb, aio_buf) == 24);
    assert!(std::mem::offset_of!(Iocb, aio_nbytes) == 32);
    assert!(std::mem::offset_of!(Iocb, aio_offset) == 40);
    assert!(std::mem::offset_of!(Iocb, aio_reserved2) == 48);
    assert!(std::mem::offset_of!(Iocb, aio_flags) == 56);
    assert!(std::mem::offset_of!(Iocb, aio_resfd) == 60);
    assert!(std::mem::size_of::<IoEvent>() == 32);
    assert!(std::mem::offset_of!(IoEvent, data) == 0);
    assert!(std::mem::offset_of!(IoEvent, res) == 16);
    assert!(std::mem::size_of::<AioRing>() == 32);
};

/// The header of the kernel's completion ring (`struct aio_ring`), at the
/// context's address; `nr` events follow at `header_length`.
#[repr(C)]
struct AioRing {
    id: u32,
    nr: u32,
    /// Next event to read: written by whoever reads (here, or the kernel
    /// in io_getevents).
    head: AtomicU32,
    /// Next event the kernel writes.
    tail: AtomicU32,
    magic: u32,
    compat_features: u32,
    incompat_features: u32,
    header_length: u32,
}

/// The ring layout this reader knows; another means io_getevents only.
const AIO_RING_MAGIC: u32 = 0xa10a_10a1;

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
const IOCB_CMD_FSYNC: u16 = 2;
const IOCB_CMD_FDSYNC: u16 = 3;

const AIO_MAX_NR: &str = "/proc/sys/fs/aio-max-nr";

/// A request handed to the kernel (or about to be): when its batch was
/// queued, and when io_submit took it (0 until then).
#[derive(Clone, Copy)]
struct Flight {
    req: Req,
    issued_ns: u64,
    accepted_ns: u64,
}

pub struct Aio {
    /// The kernel's AIO context (the address of its completion ring).
    ctx: libc::c_ulong,
    files: FileTable<File>,
    bufs: Vec<AlignedBuf>,
    /// One iocb per buffer slot; never resized, so pointers to them stay
    /// valid.
    iocbs: Vec<Iocb>,
    /// By buffer slot: the request queued or in flight there.
    flight: Vec<Option<Flight>>,
    /// Slots queued but not yet submitted, in order.
    pending: Vec<u16>,
    /// The pointer array io_submit reads, rebuilt from `pending`.
    ptrs: Vec<*mut Iocb>,
    events: Vec<IoEvent>,
    /// Completions reaped while committing (io_submit found the kernel
    /// out of room) or refused by io_submit, delivered by the next `reap`.
    ready: Vec<Completion>,
    /// Submitted and not yet reaped.
    in_flight: usize,
    depth: usize,
    /// How data files are opened (O_DIRECT, O_NOATIME).
    mode: FileMode,
    datasync: bool,
    /// RWF_NOWAIT on reads and writes (`--nowait`), or 0.
    rw_flags: i32,
    /// Whether this batch is timed ([`untimed`] is off), and its issue
    /// stamp: one clock read at its first request.
    timed: bool,
    batch_ns: u64,
}

// SAFETY: the raw pointers in `ptrs` point into `iocbs`, which Aio owns;
// they are only used by the thread that holds the Aio, inside io_submit.
// The AIO context is a process-wide kernel object usable from any thread.
unsafe impl Send for Aio {}

/// A system call's result as io::Result.
fn sys(r: libc::c_long) -> io::Result<usize> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

fn aio_max_nr() -> Option<u64> {
    std::fs::read_to_string(AIO_MAX_NR)
        .ok()
        .and_then(|s| s.trim().parse().ok())
}

/// Refuse a depth the system's AIO limit cannot hold.
fn check_depth(depth: usize, max: Option<u64>) -> io::Result<()> {
    match max {
        Some(max) if depth as u64 > max => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "--iodepth {depth} is more than sysctl fs.aio-max-nr ({max}) allows; raise it or lower the depth"
            ),
        )),
        _ => Ok(()),
    }
}

impl Aio {
    fn new(o: &EngineOpts) -> io::Result<Aio> {
        let depth = usize::from(o.depth.max(1));
        let slots = usize::from(o.slots.max(o.depth).max(1));
        let max = aio_max_nr();
        check_depth(depth, max)?;
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes the new context to `ctx`, a valid
        // c_ulong that is 0 as the kernel requires.
        let r = unsafe { libc::syscall(libc::SYS_io_setup, depth as libc::c_long, &mut ctx) };
        sys(r).map_err(|e| match e.raw_os_error() {
            Some(libc::EAGAIN) => io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!(
                    "io_setup({depth}): the system's AIO requests (sysctl fs.aio-max-nr = {}) are used up; raise it or lower --iodepth or the workers",
                    max.map_or("?".to_string(), |m| m.to_string())
                ),
            ),
            Some(libc::ENOSYS) => io::Error::new(
                io::ErrorKind::Unsupported,
                "this kernel has no native AIO (io_setup: ENOSYS)",
            ),
            _ => io::Error::new(e.kind(), format!("io_setup({depth}): {e}")),
        })?;
        Ok(Aio {
            ctx,
            files: FileTable::default(),
            bufs: buffer::slots(slots as u16, o.max_len, o.seed),
            iocbs: vec![Iocb::default(); slots],
            flight: vec![None; slots],
            pending: Vec::with_capacity(depth),
            ptrs: Vec::with_capacity(depth),
            events: vec![IoEvent::default(); depth],
            ready: Vec::new(),
            in_flight: 0,
            depth,
            mode: o.file_mode(),
            datasync: o.datasync,
            rw_flags: if o.queue.nowait { libc::RWF_NOWAIT } else { 0 },
            timed: true,
            batch_ns: 0,
        })
    }

    /// The clock now, or 0 when this batch is untimed.
    fn now(&self) -> u64 {
        if self.timed { now_ns() } else { 0 }
    }

    /// Deliver the event of `ev` into `out`; false if its slot has no
    /// request in flight.
    fn complete(&mut self, ev: &IoEvent, now: u64, out: &mut Vec<Completion>) -> bool {
        let Some(f) = self.flight.get_mut(ev.data as usize).and_then(Option::take) else {
            return false;
        };
        self.in_flight -= 1;
        out.push(Completion {
            req: f.req,
            bytes: ev.res.max(0) as u64,
            lat_ns: now.saturating_sub(f.issued_ns),
            done_ns: now,
            sub_ns: if f.accepted_ns == 0 {
                SUB_NONE
            } else {
                f.accepted_ns.saturating_sub(f.issued_ns)
            },
            err: if ev.res < 0 { -ev.res as i32 } else { 0 },
        });
        true
    }

    fn stray(slot: u64) -> io::Error {
        io::Error::other(format!(
            "libaio: an event for buffer slot {slot}, which has no request in flight"
        ))
    }

    /// Take the events the kernel has written to the completion ring,
    /// without a system call (fio's user-space reap).
    fn user_reap(&mut self, out: &mut Vec<Completion>) -> io::Result<usize> {
        // SAFETY: `ctx` is the address at which io_setup mapped the
        // context's ring into this process; it stays mapped until
        // io_destroy (Drop). The kernel changes only `tail` (atomic) and
        // the events behind it while we read.
        let ring = unsafe { &*(self.ctx as *const AioRing) };
        if ring.magic != AIO_RING_MAGIC || ring.incompat_features != 0 || ring.nr == 0 {
            return Ok(0);
        }
        let mut head = ring.head.load(Ordering::Relaxed);
        let tail = ring.tail.load(Ordering::Acquire);
        if head == tail {
            return Ok(0);
        }
        let events = (self.ctx as usize + ring.header_length as usize) as *const IoEvent;
        let (now, mut n, mut stray) = (self.now(), 0, None);
        while head != tail {
            // SAFETY: `head` < `nr`, and the ring holds `nr` events after
            // its header; the kernel wrote this one before it moved
            // `tail` past it (read with Acquire).
            let ev = unsafe { events.add(head as usize).read() };
            if self.complete(&ev, now, out) {
                n += 1;
            } else {
                stray = Some(ev.data);
            }
            head = (head + 1) % ring.nr;
        }
        // the kernel reuses the events before `head`
        ring.head.store(head, Ordering::Release);
        match stray {
            Some(slot) => Err(Self::stray(slot)),
            None => Ok(n),
        }
    }

    /// Wait for at least `min` events (until `timeout_ns` at most) and
    /// deliver them. A signal ends the wait early with none.
    fn get_events(
        &mut self,
        min: usize,
        timeout_ns: Option<u64>,
        out: &mut Vec<Completion>,
    ) -> io::Result<usize> {
        let ts = timeout_ns.map(|t| libc::timespec {
            tv_sec: (t / 1_000_000_000) as libc::time_t,
            tv_nsec: (t % 1_000_000_000) as libc::c_long,
        });
        let tsp = ts
            .as_ref()
            .map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: `events` holds `in_flight` (≤ depth = its length)
        // entries for the kernel to write; `tsp` is null (wait) or points
        // to `ts`, live across the call.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_getevents,
                self.ctx,
                min as libc::c_long,
                self.in_flight as libc::c_long,
                self.events.as_mut_ptr(),
                tsp,
            )
        };
        let got = match sys(r) {
            Ok(n) => n,
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => 0,
            Err(e) => return Err(io::Error::new(e.kind(), format!("io_getevents: {e}"))),
        };
        let now = self.now();
        for i in 0..got {
            let ev = self.events[i];
            if !self.complete(&ev, now, out) {
                return Err(Self::stray(ev.data));
            }
        }
        Ok(got)
    }

    /// Reap at least `min`, or what there is by clock `deadline_ns`.
    fn reap_by(
        &mut self,
        min: usize,
        deadline_ns: Option<u64>,
        out: &mut Vec<Completion>,
    ) -> io::Result<usize> {
        let mut n = self.ready.len();
        out.append(&mut self.ready);
        if min > n + self.in_flight {
            return Err(io::Error::other(format!(
                "libaio: asked to reap {min} with {} submitted",
                n + self.in_flight
            )));
        }
        if self.in_flight > 0 {
            n += self.user_reap(out)?;
        }
        while n < min {
            let timeout = match deadline_ns {
                None => None,
                Some(d) => match d.checked_sub(now_ns()) {
                    Some(left) if left > 0 => Some(left),
                    _ => break,
                },
            };
            n += self.get_events(min - n, timeout, out)?;
        }
        Ok(n)
    }
}

impl Aio {
    /// A trim, done at once inside `queue`: the kernel's AIO has no
    /// discard or fallocate command, so the request is a plain
    /// fallocate(2) or BLKDISCARD call and completes as a synchronous
    /// engine's would (what is in flight stays in flight).
    fn trim_now(&mut self, req: Req) -> io::Result<Queued> {
        use std::os::fd::AsRawFd;
        let f = self.files.get(req.file)?;
        let by = TrimBy::of(f)?;
        let fd = f.as_raw_fd();
        timed(req, || trim_fd(fd, by, req.offset, req.len))
            .map(Queued::Done)
            .map_err(|e| {
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                request_failed(&req, self.files.path(req.file), errno)
            })
    }
}

impl Engine for Aio {
    fn info(&self) -> &'static EngineInfo {
        &INFO
    }

    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        let f = open_file_as(path, how, self.mode)?;
        Ok(self.files.insert(f, path))
    }

    fn close(&mut self, file: FileId) -> io::Result<()> {
        self.files.remove(file).map(drop)
    }

    fn queue(&mut self, req: Req) -> io::Result<Queued> {
        use std::os::fd::AsRawFd;
        if self.in_flight + self.pending.len() >= self.depth {
            return Ok(Queued::Busy);
        }
        let slot = usize::from(req.slot);
        match self.flight.get(slot) {
            Some(None) => {}
            Some(Some(_)) => {
                return Err(io::Error::other(format!(
                    "libaio: buffer slot {slot} is queued while still in flight"
                )));
            }
            None => {
                return Err(io::Error::other(format!(
                    "libaio: buffer slot {slot} does not exist ({} slots)",
                    self.flight.len()
                )));
            }
        }
        if req.kind == OpKind::Trim {
            return self.trim_now(req);
        }
        let fd = self.files.get(req.file)?.as_raw_fd() as u32;
        let (opcode, buf, nbytes, offset) = match req.kind {
            OpKind::Read | OpKind::Write | OpKind::Append => {
                let buf = &self.bufs[slot];
                if req.len as usize > buf.len() {
                    return Err(io::Error::other(format!(
                        "libaio: {} B do not fit buffer slot {slot} of {} B",
                        req.len,
                        buf.len()
                    )));
                }
                let op = if req.kind == OpKind::Read {
                    IOCB_CMD_PREAD
                } else {
                    IOCB_CMD_PWRITE
                };
                (
                    op,
                    buf.as_ptr() as u64,
                    u64::from(req.len),
                    req.offset as i64,
                )
            }
            // the kernel refuses an fsync iocb with a buffer, length or
            // offset (EINVAL)
            OpKind::Fsync if self.datasync => (IOCB_CMD_FDSYNC, 0, 0, 0),
            OpKind::Fsync => (IOCB_CMD_FSYNC, 0, 0, 0),
            k => return Err(unsupported(k)),
        };
        // the kernel refuses flags on an fsync too
        let rw_flags = if buf == 0 { 0 } else { self.rw_flags };
        self.iocbs[slot] = Iocb {
            aio_data: u64::from(req.slot),
            aio_rw_flags: rw_flags,
            aio_lio_opcode: opcode,
            aio_fildes: fd,
            aio_buf: buf,
            aio_nbytes: nbytes,
            aio_offset: offset,
            ..Iocb::default()
        };
        if self.pending.is_empty() {
            self.timed = !UNTIMED.get();
            self.batch_ns = self.now();
        }
        self.flight[slot] = Some(Flight {
            req,
            issued_ns: self.batch_ns,
            accepted_ns: 0,
        });
        self.pending.push(req.slot);
        Ok(Queued::InFlight)
    }

    fn commit(&mut self) -> io::Result<()> {
        let mut done = 0;
        while done < self.pending.len() {
            self.ptrs.clear();
            let base = self.iocbs.as_mut_ptr();
            // SAFETY: every pending slot indexes `iocbs` (checked in queue).
            self.ptrs.extend(
                self.pending[done..]
                    .iter()
                    .map(|&s| unsafe { base.add(usize::from(s)) }),
            );
            // SAFETY: `ptrs` holds valid iocbs whose buffers (`bufs`) and
            // files live until their events are reaped or the context is
            // destroyed (Drop), which waits for them.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    self.ptrs.len() as libc::c_long,
                    self.ptrs.as_mut_ptr(),
                )
            };
            match sys(r) {
                // fewer than asked: the next call submits the rest, or
                // fails with why the first of them was refused
                Ok(n) => {
                    // one clock read: the batch was accepted now
                    let now = self.now();
                    for &s in &self.pending[done..done + n] {
                        if let Some(f) = self.flight[usize::from(s)].as_mut() {
                            f.accepted_ns = now;
                        }
                    }
                    done += n;
                    self.in_flight += n;
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) if e.raw_os_error() == Some(libc::EAGAIN) && self.in_flight > 0 => {
                    let mut ready = std::mem::take(&mut self.ready);
                    let r = self.get_events(1, None, &mut ready);
                    self.ready = ready;
                    if let Err(e) = r {
                        self.pending.drain(..done);
                        return Err(e);
                    }
                }
                // the first request left was refused: it completes with
                // the errno, and the rest go on
                Err(e) => {
                    let slot = self.pending[done];
                    done += 1;
                    if let Some(f) = self.flight[usize::from(slot)].take() {
                        let now = self.now();
                        self.ready.push(Completion {
                            req: f.req,
                            bytes: 0,
                            lat_ns: now.saturating_sub(f.issued_ns),
                            done_ns: now,
                            sub_ns: SUB_NONE,
                            err: e.raw_os_error().unwrap_or(libc::EIO),
                        });
                    }
                }
            }
        }
        self.pending.clear();
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

    fn in_flight(&self) -> usize {
        self.in_flight + self.pending.len() + self.ready.len()
    }

    fn buf_mut(&mut self, slot: u16) -> &mut [u8] {
        &mut self.bufs[usize::from(slot)]
    }

    fn path(&self, file: FileId) -> &Path {
        self.files.path(file)
    }
}

impl Drop for Aio {
    fn drop(&mut self) {
        // io_destroy waits for the requests still in flight, so the
        // buffers (dropped after this) outlive them.
        // SAFETY: `ctx` came from io_setup and is destroyed once.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{file_with, opts};
    use super::*;

    fn engine(depth: u16, direct: bool) -> Box<dyn Engine> {
        Choice::parse("libaio")
            .unwrap()
            .make(&opts(depth, direct))
            .unwrap()
    }

    /// The byte at `pos` of the test file.
    fn byte(pos: u64) -> u8 {
        (pos.wrapping_mul(2654435761) >> 7) as u8
    }

    /// A file of `blocks` 4 KiB blocks of known bytes.
    fn known_file(dir: &Path, blocks: u64) -> PathBuf {
        let data: Vec<u8> = (0..blocks * 4096).map(byte).collect();
        file_with(dir, &data)
    }

    /// At depth 32 with O_DIRECT: 32 reads in flight and a 33rd refused,
    /// every completion matched to its request, the bytes those of the
    /// file at the random offsets asked.
    #[test]
    fn reads_at_depth_32_match_their_requests_and_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = known_file(dir.path(), 256);
        let mut e = engine(32, true);
        let f = e.open(&path, OpenHow::READ).unwrap();
        let mut rng = 0x9e3779b97f4a7c15u64;
        let mut next_offset = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % 256) * 4096
        };
        let mut out = Vec::new();
        let mut checked = 0;
        for _round in 0..20 {
            for slot in 0..32u16 {
                let r = Req {
                    slot,
                    ..Req::read(f, next_offset(), 4096)
                };
                assert!(matches!(e.queue(r).unwrap(), Queued::InFlight));
            }
            // never more than the depth
            assert!(matches!(
                e.queue(Req::read(f, 0, 4096)).unwrap(),
                Queued::Busy
            ));
            e.commit().unwrap();
            assert!(matches!(
                e.queue(Req::read(f, 0, 4096)).unwrap(),
                Queued::Busy
            ));
            out.clear();
            let mut n = 0;
            while n < 32 {
                n += e.reap(1, &mut out).unwrap();
            }
            assert_eq!(out.len(), 32);
            let mut slots: Vec<u16> = out.iter().map(|c| c.req.slot).collect();
            slots.sort_unstable();
            assert_eq!(slots, (0..32).collect::<Vec<_>>(), "each request once");
            for c in &out {
                assert_eq!(c.bytes, 4096);
                assert!(c.done_ns > 0 && c.done_ns >= c.lat_ns);
                let want: Vec<u8> = (c.req.offset..c.req.offset + 4096).map(byte).collect();
                assert!(
                    e.buf_mut(c.req.slot)[..4096] == want[..],
                    "slot {} holds offset {}",
                    c.req.slot,
                    c.req.offset
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 640);
        // nothing is left: a reap of none returns at once
        assert_eq!(e.reap(0, &mut out).unwrap(), 0);
    }

    #[test]
    fn writes_and_fsync_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        for datasync in [false, true] {
            let mut e = Choice::parse("libaio")
                .unwrap()
                .make(&EngineOpts {
                    depth: 4,
                    slots: 4,
                    max_len: 8192,
                    datasync,
                    ..Default::default()
                })
                .unwrap();
            let path = dir.path().join(format!("w{datasync}"));
            let f = e.open(&path, OpenHow::CREATE).unwrap();
            let pattern: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 3) as u8).collect();
            e.buf_mut(0)[..8192].copy_from_slice(&pattern);
            assert_eq!(e.exec(Req::write(f, 0, 8192)).unwrap().bytes, 8192);
            assert_eq!(e.exec(Req::fsync(f)).unwrap().bytes, 0);
            e.buf_mut(0).fill(0);
            assert_eq!(e.exec(Req::read(f, 4096, 4096)).unwrap().bytes, 4096);
            assert_eq!(&e.buf_mut(0)[..4096], &pattern[4096..]);
            // a read at the end is short, not an error
            assert_eq!(e.exec(Req::read(f, 8000, 4096)).unwrap().bytes, 192);
            e.close(f).unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), pattern);
        }
    }

    /// A directory on a disk file system (O_DIRECT and the page cache
    /// behave as on a real run).
    fn disk_dir() -> tempfile::TempDir {
        tempfile::tempdir_in("/var/tmp").unwrap()
    }

    fn aio(depth: u16, direct: bool, nowait: bool) -> Aio {
        Aio::new(&EngineOpts {
            queue: QueueOpts {
                nowait,
                ..QueueOpts::default()
            },
            ..opts(depth, direct)
        })
        .unwrap()
    }

    /// Requests the kernel fails, at io_submit (a read of a file open for
    /// writing only) or in the event (an O_DIRECT read at an offset no
    /// block starts at), come back as completions with their errno,
    /// their slots free; the one between them is done.
    #[test]
    fn failures_are_completions_with_their_errno_and_slot() {
        let dir = disk_dir();
        let path = known_file(dir.path(), 4);
        let mut e = aio(3, true, false);
        let wo = e.open(&path, OpenHow::WRITE_ONLY).unwrap();
        let ro = e.open(&path, OpenHow::READ).unwrap();
        e.queue(Req::read(wo, 0, 4096)).unwrap();
        e.queue(Req {
            slot: 1,
            ..Req::read(ro, 4096, 4096)
        })
        .unwrap();
        e.queue(Req {
            slot: 2,
            ..Req::read(ro, 1, 4096)
        })
        .unwrap();
        e.commit().unwrap();
        let mut out = Vec::new();
        let mut n = 0;
        while n < 3 {
            n += e.reap(1, &mut out).unwrap();
        }
        out.sort_by_key(|c| c.req.slot);
        let got: Vec<(i32, u64)> = out.iter().map(|c| (c.err, c.bytes)).collect();
        assert_eq!(got, [(libc::EBADF, 0), (0, 4096), (libc::EINVAL, 0)]);
        assert_eq!(e.in_flight(), 0);
        // every slot takes a request again; exec names a failed one
        assert_eq!(e.exec(Req::read(ro, 0, 4096)).unwrap().bytes, 4096);
        let err = e.exec(Req::read(ro, 1, 4096)).unwrap_err().to_string();
        assert!(err.starts_with("read of 4096 B at offset 1 in"), "{err}");
    }

    /// Submission (issued → io_submit returned) is measured, one issue
    /// stamp per batch, within the total.
    #[test]
    fn submission_is_measured_and_within_the_total() {
        let dir = disk_dir();
        let path = known_file(dir.path(), 64);
        let mut e = aio(16, true, false);
        let f = e.open(&path, OpenHow::READ).unwrap();
        for slot in 0..16 {
            e.queue(Req {
                slot,
                ..Req::read(f, u64::from(slot) * 8192, 4096)
            })
            .unwrap();
        }
        assert_eq!(e.in_flight(), 16);
        e.commit().unwrap();
        let mut out = Vec::new();
        e.reap(16, &mut out).unwrap();
        for c in &out {
            assert!(
                c.sub_ns != SUB_NONE && c.sub_ns > 0 && c.sub_ns <= c.lat_ns,
                "{c:?}"
            );
        }
        let issued: Vec<u64> = out.iter().map(|c| c.done_ns - c.lat_ns).collect();
        assert!(issued.iter().all(|&t| t == issued[0]), "{issued:?}");
        assert_eq!(e.in_flight(), 0);
    }

    /// Events already in the ring are read without io_getevents.
    #[test]
    fn the_user_space_reap_takes_what_the_ring_holds() {
        let dir = disk_dir();
        let path = known_file(dir.path(), 64);
        let mut e = aio(8, true, false);
        let f = e.open(&path, OpenHow::READ).unwrap();
        for round in 0..3u64 {
            for slot in 0..8 {
                e.queue(Req {
                    slot,
                    ..Req::read(f, (round * 8 + u64::from(slot)) * 4096, 4096)
                })
                .unwrap();
            }
            e.commit().unwrap();
            let mut out = Vec::new();
            let deadline = now_ns() + 5_000_000_000;
            while out.len() < 8 && now_ns() < deadline {
                e.user_reap(&mut out).unwrap();
            }
            assert_eq!(out.len(), 8);
            for c in &out {
                let want: Vec<u8> = (c.req.offset..c.req.offset + 4096).map(byte).collect();
                assert!(e.buf_mut(c.req.slot)[..4096] == want[..]);
            }
            assert_eq!(e.in_flight(), 0);
        }
    }

    /// `reap_until` returns once `min` are in, before its deadline, and
    /// at once when the deadline has passed. (No libaio request stays
    /// pending for sure: a FIFO read is done inside io_submit, and this
    /// kernel refuses IOCB_CMD_POLL.)
    #[test]
    fn reap_until_returns_with_min_or_at_its_deadline() {
        let dir = disk_dir();
        let path = known_file(dir.path(), 64);
        let mut e = aio(16, true, false);
        let f = e.open(&path, OpenHow::READ).unwrap();
        let mut out = Vec::new();
        for slot in 0..16 {
            e.queue(Req {
                slot,
                ..Req::read(f, u64::from(slot) * 4096, 4096)
            })
            .unwrap();
        }
        e.commit().unwrap();
        let t0 = now_ns();
        let past = e.reap_until(16, t0 - 1, &mut out).unwrap();
        assert!(now_ns() - t0 < 50_000_000, "a past deadline waits not");
        assert_eq!(past, out.len());
        let deadline = now_ns() + 10_000_000_000;
        e.reap_until(16 - past, deadline, &mut out).unwrap();
        assert!(now_ns() < deadline);
        assert_eq!(out.len(), 16);
        assert_eq!(e.in_flight(), 0);
    }

    /// --nowait: a buffered read that would wait for the disk comes back
    /// with EAGAIN in its event; one of cached pages is done.
    #[test]
    fn nowait_reads_that_would_block_come_back_with_eagain() {
        use std::os::fd::AsRawFd;
        let dir = disk_dir();
        let path = known_file(dir.path(), 16);
        let file = File::open(&path).unwrap();
        file.sync_all().unwrap();
        // SAFETY: a plain call on an open descriptor.
        let r = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        assert_eq!(r, 0);
        let mut e = aio(2, false, true);
        let f = e.open(&path, OpenHow::READ).unwrap();
        e.queue(Req::read(f, 32768, 4096)).unwrap();
        e.commit().unwrap();
        let mut out = Vec::new();
        e.reap(1, &mut out).unwrap();
        assert_eq!((out[0].err, out[0].bytes), (libc::EAGAIN, 0));
        std::fs::read(&path).unwrap();
        let c = e.exec(Req::read(f, 32768, 4096)).unwrap();
        assert_eq!((c.err, c.bytes), (0, 4096));
    }

    #[test]
    fn a_depth_over_the_system_limit_is_refused_naming_the_sysctl() {
        let e = check_depth(64, Some(16)).unwrap_err().to_string();
        assert!(
            e.contains("--iodepth 64") && e.contains("fs.aio-max-nr (16)"),
            "{e}"
        );
        assert!(check_depth(16, Some(16)).is_ok());
        assert!(
            check_depth(4096, None).is_ok(),
            "no sysctl: io_setup decides"
        );
    }
}
