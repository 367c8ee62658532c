//! `libaio`: Linux native asynchronous I/O (io_setup, io_submit,
//! io_getevents) through raw system calls, as fio's libaio engine does it
//! but without the C library. Requests wait in `queue` until `commit`
//! hands the batch to the kernel in one io_submit; `reap` collects their
//! events, matched to requests by buffer slot (the iocb's `aio_data`).
//!
//! Only O_DIRECT reads and writes are truly asynchronous: buffered ones
//! are done inside io_submit, so their latency is spent there.

use super::psync::unsupported;
use super::*;

pub const INFO: EngineInfo = EngineInfo {
    name: "libaio",
    doc: "Linux native AIO (io_submit/io_getevents): up to --iodepth requests in flight, submitted in batches (fio's libaio); asynchronous only with --direct; the depth is bounded by sysctl fs.aio-max-nr",
    caps: Caps {
        sync: false,
        queued: true,
        direct: true,
        fake: false,
        buffered: false,
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
};

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
const IOCB_CMD_FSYNC: u16 = 2;
const IOCB_CMD_FDSYNC: u16 = 3;

const AIO_MAX_NR: &str = "/proc/sys/fs/aio-max-nr";

/// A request handed to the kernel (or about to be), and when it was queued.
#[derive(Clone, Copy)]
struct Flight {
    req: Req,
    issued_ns: u64,
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
    /// out of room), delivered by the next `reap`.
    ready: Vec<Completion>,
    in_flight: usize,
    depth: usize,
    direct: bool,
    datasync: bool,
    timed: bool,
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
            direct: o.direct,
            datasync: o.datasync,
            timed: true,
        })
    }

    /// `e` as the error of `req`, naming it and its file.
    fn named(&self, req: Req, e: io::Error) -> io::Error {
        io::Error::new(
            e.kind(),
            format!(
                "{} of {} B at offset {} in {}: {e}",
                req.kind.name(),
                req.len,
                req.offset,
                self.files.path(req.file).display()
            ),
        )
    }

    /// Wait for at least `min` events and turn them into completions. The
    /// first failed request is the error, after the others are in `out`.
    fn get_events(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let got = loop {
            // SAFETY: `events` holds `in_flight` (≤ depth = its length)
            // entries for the kernel to write; a null timeout waits.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    min as libc::c_long,
                    self.in_flight as libc::c_long,
                    self.events.as_mut_ptr(),
                    std::ptr::null::<libc::timespec>(),
                )
            };
            match sys(r) {
                Ok(n) => break n,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) => return Err(io::Error::new(e.kind(), format!("io_getevents: {e}"))),
            }
        };
        self.in_flight -= got;
        let now = if self.timed { now_ns() } else { 0 };
        let mut failed = None;
        for i in 0..got {
            let ev = self.events[i];
            let slot = ev.data as usize;
            let Some(f) = self.flight.get_mut(slot).and_then(Option::take) else {
                return Err(io::Error::other(format!(
                    "io_getevents gave an event for slot {slot}, which has no request in flight"
                )));
            };
            if ev.res < 0 {
                let e = io::Error::from_raw_os_error(-ev.res as i32);
                failed.get_or_insert_with(|| self.named(f.req, e));
                continue;
            }
            out.push(Completion {
                req: f.req,
                bytes: ev.res as u64,
                lat_ns: if self.timed {
                    now.saturating_sub(f.issued_ns)
                } else {
                    0
                },
                done_ns: now,
                sub_ns: SUB_NONE,
                err: 0,
            });
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(got),
        }
    }
}

impl Engine for Aio {
    fn info(&self) -> &'static EngineInfo {
        &INFO
    }

    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        let f = open_file(path, how, self.direct)?;
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
        self.iocbs[slot] = Iocb {
            aio_data: u64::from(req.slot),
            aio_lio_opcode: opcode,
            aio_fildes: fd,
            aio_buf: buf,
            aio_nbytes: nbytes,
            aio_offset: offset,
            ..Iocb::default()
        };
        if self.pending.is_empty() {
            self.timed = !UNTIMED.get();
        }
        let issued_ns = if self.timed { now_ns() } else { 0 };
        self.flight[slot] = Some(Flight { req, issued_ns });
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
                    done += n;
                    self.in_flight += n;
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) if e.raw_os_error() == Some(libc::EAGAIN) && self.in_flight > 0 => {
                    let mut ready = std::mem::take(&mut self.ready);
                    let r = self.get_events(1, &mut ready);
                    self.ready = ready;
                    if let Err(e) = r {
                        self.pending.drain(..done);
                        return Err(e);
                    }
                }
                Err(e) => {
                    let slot = self.pending[done];
                    self.pending.drain(..=done);
                    let f = self.flight[usize::from(slot)]
                        .take()
                        .expect("a pending slot has its request");
                    return Err(
                        self.named(f.req, io::Error::new(e.kind(), format!("io_submit: {e}")))
                    );
                }
            }
        }
        self.pending.clear();
        Ok(())
    }

    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let mut n = self.ready.len();
        out.append(&mut self.ready);
        if n >= min && (n > 0 || self.in_flight == 0) {
            return Ok(n);
        }
        let want = min - n.min(min);
        if want > self.in_flight {
            return Err(io::Error::other(format!(
                "libaio: asked to reap {want} with {} submitted",
                self.in_flight
            )));
        }
        n += self.get_events(want, out)?;
        Ok(n)
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
    use super::*;

    fn engine(depth: u16, direct: bool) -> Box<dyn Engine> {
        Choice::parse("libaio")
            .unwrap()
            .make(&EngineOpts {
                direct,
                depth,
                slots: depth,
                max_len: 4096,
                ..Default::default()
            })
            .unwrap()
    }

    /// The byte at `pos` of the test file.
    fn byte(pos: u64) -> u8 {
        (pos.wrapping_mul(2654435761) >> 7) as u8
    }

    /// A file of `blocks` 4 KiB blocks of known bytes.
    fn known_file(dir: &Path, blocks: u64) -> PathBuf {
        let path = dir.join("data");
        let data: Vec<u8> = (0..blocks * 4096).map(byte).collect();
        std::fs::write(&path, data).unwrap();
        path
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

    /// A request the kernel fails in its event (an O_DIRECT read at an
    /// offset no block starts at) is the reap's error, named with the
    /// request; the others of its batch are delivered.
    #[test]
    fn an_error_in_an_event_names_its_request() {
        let dir = tempfile::tempdir().unwrap();
        let path = known_file(dir.path(), 4);
        let mut e = engine(2, true);
        let f = e.open(&path, OpenHow::READ).unwrap();
        e.queue(Req::read(f, 0, 4096)).unwrap();
        e.queue(Req {
            slot: 1,
            ..Req::read(f, 1, 4096)
        })
        .unwrap();
        e.commit().unwrap();
        let mut out = Vec::new();
        let err = e.reap(2, &mut out).unwrap_err();
        let msg = err.to_string();
        assert_eq!(err.raw_os_error(), None, "wrapped with its request");
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{msg}");
        assert!(
            msg.contains("read of 4096 B at offset 1 in") && msg.contains("data"),
            "{msg}"
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].req.offset, 0);
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
