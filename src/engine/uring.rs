//! `io_uring`: requests go into an io_uring(7) submission queue, one
//! system call submits a batch, and completions are reaped as the kernel
//! posts them, in any order. Each request's `user_data` is its buffer slot,
//! which matches a completion to its request.
//!
//! The ring is made on the thread that builds the engine and used on the
//! worker's thread, so it is set up without SINGLE_ISSUER (which binds a
//! ring to the thread that made it).

use super::psync::unsupported;
use super::*;
use io_uring::{IoUring, opcode, types};
use std::os::fd::AsRawFd;

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
        ..Caps::NONE
    },
    make: |o| Ok(Box::new(Uring::new(o)?)),
};

/// A request in flight and when it was queued.
struct Flight {
    req: Req,
    issued_ns: u64,
}

pub struct Uring {
    ring: IoUring,
    files: FileTable<File>,
    bufs: Vec<AlignedBuf>,
    /// By buffer slot: the request using it, while in flight.
    flight: Vec<Option<Flight>>,
    /// Queued and not yet reaped (submitted or not).
    in_flight: usize,
    depth: usize,
    direct: bool,
    datasync: bool,
    /// Requests name their buffer by index (slot) among the registered.
    fixed_bufs: bool,
    /// Size of the registered file table (0: none); a file whose id is
    /// below it is registered at open and named by that id.
    fixed_files: u32,
}

/// Registered file table size: enough for any benchmark's open files at
/// once; files beyond it go unregistered.
const FIXED_FILES: u32 = 256;

impl Uring {
    fn new(o: &EngineOpts) -> io::Result<Uring> {
        let slots = o.slots.max(o.depth).max(1);
        let depth = usize::from(o.depth.max(1));
        // the default completion queue (twice the submission queue) holds
        // every completion of a full queue
        let ring = IoUring::builder()
            .build(depth.next_power_of_two() as u32)
            .map_err(setup_failed)?;
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
        Ok(Uring {
            ring,
            files: FileTable::default(),
            bufs,
            flight: (0..slots).map(|_| None).collect(),
            in_flight: 0,
            depth,
            direct: o.direct,
            datasync: o.datasync,
            fixed_bufs: o.queue.fixed_bufs,
            fixed_files,
        })
    }

    /// Take every completion the kernel has posted into `out`. A failed
    /// request goes into `out` too (0 bytes), so that its slot is freed,
    /// and its error, named with the request, is returned; the first one
    /// if several failed.
    fn drain(&mut self, out: &mut Vec<Completion>) -> (usize, Option<io::Error>) {
        let mut cq = self.ring.completion();
        if cq.is_empty() {
            return (0, None);
        }
        let now = now_ns();
        let (mut n, mut failed) = (0, None);
        for cqe in &mut cq {
            let slot = cqe.user_data() as usize;
            let Some(f) = self.flight.get_mut(slot).and_then(Option::take) else {
                failed.get_or_insert_with(|| {
                    io::Error::other(format!(
                        "io_uring: a completion for buffer slot {slot}, which has nothing in flight"
                    ))
                });
                continue;
            };
            self.in_flight -= 1;
            let res = cqe.result();
            if res < 0 {
                failed.get_or_insert_with(|| {
                    request_failed(&f.req, self.files.path(f.req.file), -res)
                });
            }
            out.push(Completion {
                req: f.req,
                bytes: res.max(0) as u64,
                lat_ns: now.saturating_sub(f.issued_ns),
                done_ns: now,
                sub_ns: SUB_NONE,
                err: 0,
            });
            n += 1;
        }
        (n, failed)
    }

    /// Submit what is queued and wait for `want` completions (0: do not
    /// wait). A signal ends the wait early, which the caller's loop repeats.
    fn wait(&self, want: usize) -> io::Result<()> {
        match self.ring.submit_and_wait(want) {
            Err(e) if e.raw_os_error() != Some(libc::EINTR) => Err(e),
            _ => Ok(()),
        }
    }
}

/// The error of a request the kernel failed with `errno`, naming the
/// request and its file.
fn request_failed(req: &Req, path: &Path, errno: i32) -> io::Error {
    let cause = io::Error::from_raw_os_error(errno);
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
            "io_uring is disabled here (sysctl kernel.io_uring_disabled = 2); use --engine psync"
                .to_owned()
        }
        (libc::EPERM, Some("1")) => {
            "io_uring is open only to the group kernel.io_uring_group here (sysctl kernel.io_uring_disabled = 1); use --engine psync"
                .to_owned()
        }
        (libc::EPERM, _) => format!(
            "io_uring_setup refused (EPERM) with sysctl kernel.io_uring_disabled {value}: a seccomp filter (a container's default profile) blocks it; use --engine psync"
        ),
        (libc::ENOSYS, _) => format!(
            "this kernel has no io_uring (ENOSYS; sysctl kernel.io_uring_disabled {value}); use --engine psync"
        ),
        _ => return None,
    })
}

impl Engine for Uring {
    fn info(&self) -> &'static EngineInfo {
        &INFO
    }

    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        let f = open_file(path, how, self.direct)?;
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
        if self.in_flight >= self.depth {
            return Ok(Queued::Busy);
        }
        let fd = types::Fd(self.files.get(req.file)?.as_raw_fd());
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
        let (ptr, fixed_bufs, datasync) = (buf.as_mut_ptr(), self.fixed_bufs, self.datasync);
        // one entry for either kind of file (registered or not: two types)
        macro_rules! entry {
            ($fd:expr) => {
                match (req.kind, fixed_bufs) {
                    (OpKind::Read, false) => opcode::Read::new($fd, ptr, req.len)
                        .offset(req.offset)
                        .build(),
                    (OpKind::Read, true) => opcode::ReadFixed::new($fd, ptr, req.len, req.slot)
                        .offset(req.offset)
                        .build(),
                    (OpKind::Write | OpKind::Append, false) => {
                        opcode::Write::new($fd, ptr, req.len)
                            .offset(req.offset)
                            .build()
                    }
                    (OpKind::Write | OpKind::Append, true) => {
                        opcode::WriteFixed::new($fd, ptr, req.len, req.slot)
                            .offset(req.offset)
                            .build()
                    }
                    (OpKind::Fsync, _) => opcode::Fsync::new($fd)
                        .flags(if datasync {
                            types::FsyncFlags::DATASYNC
                        } else {
                            types::FsyncFlags::empty()
                        })
                        .build(),
                    (k, _) => return Err(unsupported(k)),
                }
            };
        }
        let sqe = if req.file.0 < self.fixed_files {
            entry!(types::Fixed(req.file.0))
        } else {
            entry!(fd)
        }
        .user_data(slot as u64);
        // SAFETY: the entry points into the buffer of `slot` (checked to
        // hold `req.len` bytes), a heap allocation that neither moves nor is
        // freed while the request is in flight: the slot is marked busy
        // below and not queued again until its completion is reaped, and
        // Drop reaps every request before the buffers go. The file stays
        // open as long: `close` refuses a file with requests in flight.
        unsafe { self.ring.submission().push(&sqe) }
            .map_err(|_| io::Error::other("io_uring: the submission queue is full"))?;
        self.flight[slot] = Some(Flight {
            req,
            issued_ns: now_ns(),
        });
        self.in_flight += 1;
        Ok(Queued::InFlight)
    }

    fn commit(&mut self) -> io::Result<()> {
        while !self.ring.submission().is_empty() {
            match self.ring.submit() {
                Ok(_) => {}
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
        if min > self.in_flight {
            return Err(io::Error::other(format!(
                "io_uring: asked to reap {min} with {} in flight",
                self.in_flight
            )));
        }
        let (mut n, failed) = self.drain(out);
        if let Some(e) = failed {
            return Err(e);
        }
        // with `min` 0, one system call lets the kernel post what finished
        let mut first = min == 0 && n == 0 && self.in_flight > 0;
        while n < min || first {
            self.wait(min - n)?;
            let (got, failed) = self.drain(out);
            n += got;
            if let Some(e) = failed {
                return Err(e);
            }
            first = false;
        }
        Ok(n)
    }

    fn buf_mut(&mut self, slot: u16) -> &mut [u8] {
        &mut self.bufs[usize::from(slot)]
    }

    fn path(&self, file: FileId) -> &Path {
        self.files.path(file)
    }
}

impl Drop for Uring {
    /// The kernel may still write into a buffer of a request in flight:
    /// wait for each before the buffers are freed, and if waiting fails,
    /// leak the buffers rather than free them under the kernel.
    fn drop(&mut self) {
        let mut out = Vec::new();
        while self.in_flight > 0 {
            out.clear();
            let _ = self.drain(&mut out);
            if self.in_flight == 0 {
                break;
            }
            if self.wait(self.in_flight).is_err() {
                std::mem::forget(std::mem::take(&mut self.bufs));
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(depth: u16, direct: bool) -> EngineOpts {
        EngineOpts {
            depth,
            slots: depth,
            max_len: 4096,
            direct,
            ..Default::default()
        }
    }

    /// `len` bytes that differ at every offset (up to 2^32), so a block
    /// read from the wrong place or into the wrong slot shows.
    fn pattern(len: usize) -> Vec<u8> {
        (0..len as u32)
            .map(|i| (i ^ (i >> 8) ^ (i >> 16).wrapping_mul(31)) as u8)
            .collect()
    }

    fn file_with(dir: &Path, data: &[u8]) -> PathBuf {
        let path = dir.join("data");
        std::fs::write(&path, data).unwrap();
        path
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
}
