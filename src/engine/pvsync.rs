//! `pvsync` and `pvsync2`: one preadv/pwritev (or preadv2/pwritev2) of a
//! single vector per operation, as fio's engines of those names
//! (`engines/sync.c`, `fio_pvsyncio_queue` and `fio_pvsyncio2_queue`).
//!
//! `pvsync2` passes per-request flags (`preadv2(2)`):
//!
//! - `RWF_HIPRI` (`--hipri`, fio's `hipri`) on each request, or on a share
//!   of them (`--hipri-percentage`, fio's `hipri_percentage`) drawn as fio
//!   draws it: `rand_between(1, 100) <= percentage` from fio's Tausworthe
//!   generator (taus88) seeded with 1 when the engine starts, one draw per
//!   request of any kind, whatever the job's `randseed`. The kernel polls
//!   only O_DIRECT requests to a device with poll queues; elsewhere it
//!   takes the flag and completes the request as usual (fio runs the same).
//! - `RWF_NOWAIT` (`--nowait`, fio's `nowait`): a request that would block
//!   fails with EAGAIN. Under `run` it is counted apart (`would_block`), as
//!   with io_uring and libaio; a fio job ends on it, as fio's does.
//! - `RWF_DONTCACHE` (`--uncached`, fio's `uncached`) on buffered requests:
//!   they leave no pages in the page cache (Linux 6.14+, and a file system
//!   that does it, checked when each file opens).
//!
//! The vector is built on the stack for each call: nothing is allocated per
//! request.

use super::psync::{sync_file, unsupported};
use super::*;
use std::os::fd::AsRawFd;

const CAPS: Caps = Caps {
    sync: true,
    queued: false,
    direct: true,
    fake: false,
    buffered: false,
    grows_files: true,
    ..Caps::NONE
};

pub const INFO: EngineInfo = EngineInfo {
    name: "pvsync",
    doc: "preadv(2)/pwritev(2) of one vector at the operation's offset: one system call per operation (fio's pvsync)",
    caps: CAPS,
    make: |o| Ok(Box::new(Pvsync::<false>::new(o))),
};

pub const INFO2: EngineInfo = EngineInfo {
    name: "pvsync2",
    doc: "preadv2(2)/pwritev2(2) of one vector with per-request flags: RWF_HIPRI (--hipri, on --hipri-percentage of requests), RWF_NOWAIT (--nowait), RWF_DONTCACHE (--uncached); one system call per operation (fio's pvsync2)",
    caps: Caps {
        polled: true,
        polled_share: true,
        nowait: true,
        uncached: true,
        ..CAPS
    },
    make: |o| Ok(Box::new(Pvsync::<true>::new(o))),
};

/// The kernel's release, as uname(2) gives it.
pub fn kernel_release() -> String {
    rustix::system::uname()
        .release()
        .to_string_lossy()
        .into_owned()
}

/// Whether the running kernel has RWF_DONTCACHE (Linux 6.14 on); a file
/// system may still refuse it (checked when a file opens).
pub fn kernel_has_dontcache() -> bool {
    release_at_least(&kernel_release(), (6, 14))
}

/// Whether release `r` ("6.18.44-fc") is `v` (major, minor) or later.
fn release_at_least(r: &str, v: (u32, u32)) -> bool {
    let mut n = r
        .split(|c: char| !c.is_ascii_digit())
        .map(|p| p.parse::<u32>().unwrap_or(0));
    (n.next().unwrap_or(0), n.next().unwrap_or(0)) >= v
}

/// fio's `frand_state` of 32 bits (`lib/rand.h`): L'Ecuyer's maximally
/// equidistributed combined Tausworthe generator, taus88.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Taus88 {
    s: [u32; 3],
}

impl Taus88 {
    /// fio's `__init_rand32(state, seed)`. Its first LCG input is written
    /// `(2^31) + (2^17) + (2^7)` in C, where `^` is exclusive or: 53.
    pub(crate) fn new(seed: u32) -> Taus88 {
        let lcg = |x: u32| x.wrapping_mul(69069) ^ seed;
        let at_least = |x: u32, m: u32| if x < m { x + m } else { x };
        let s1 = at_least(lcg((2 ^ 31) + (2 ^ 17) + (2 ^ 7)), 1);
        let s2 = at_least(lcg(s1), 7);
        let s3 = at_least(lcg(s2), 15);
        let mut t = Taus88 { s: [s1, s2, s3] };
        for _ in 0..6 {
            t.next_u32();
        }
        t
    }

    /// fio's `__rand32`.
    #[inline]
    pub(crate) fn next_u32(&mut self) -> u32 {
        #[inline(always)]
        fn step(s: u32, a: u32, b: u32, c: u32, d: u32) -> u32 {
            ((s & c) << d) ^ (((s << a) ^ s) >> b)
        }
        let [s1, s2, s3] = &mut self.s;
        *s1 = step(*s1, 13, 19, 4294967294, 12);
        *s2 = step(*s2, 2, 25, 4294967288, 4);
        *s3 = step(*s3, 3, 11, 4294967280, 17);
        *s1 ^ *s2 ^ *s3
    }

    /// fio's `rand_between(state, 1, 100)`: `1 + rand32_upto(state, 99)`,
    /// which scales the draw by 100 / 2^32 and truncates.
    #[inline]
    pub(crate) fn one_to_100(&mut self) -> u32 {
        let r = self.next_u32();
        1 + (100.0 * (f64::from(r) / 4294967296.0)) as u32
    }
}

/// The flags of each pvsync2 request: fixed ones, and RWF_HIPRI on a
/// share drawn per request.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RwFlags {
    /// RWF_NOWAIT and RWF_DONTCACHE as asked.
    fixed: i32,
    /// Draw RWF_HIPRI per request (fio's `hipri`).
    hipri: bool,
    /// Set it where the draw (1 to 100) is at most this.
    percentage: u32,
    rng: Taus88,
}

impl RwFlags {
    /// What `q` asks of requests; RWF_DONTCACHE only without O_DIRECT, as
    /// fio sets it.
    pub(crate) fn of(q: &QueueOpts, direct: bool) -> RwFlags {
        let mut fixed = 0;
        if q.nowait {
            fixed |= libc::RWF_NOWAIT;
        }
        if q.uncached && !direct {
            fixed |= libc::RWF_DONTCACHE;
        }
        RwFlags {
            fixed,
            hipri: q.hipri,
            percentage: q.hipri_percentage.map_or(100, u32::from),
            rng: Taus88::new(1),
        }
    }

    /// The next request's flags (fio draws for every request, whatever its
    /// kind, before it looks at the kind).
    #[inline]
    pub(crate) fn next(&mut self) -> i32 {
        if self.hipri && self.rng.one_to_100() <= self.percentage {
            self.fixed | libc::RWF_HIPRI
        } else {
            self.fixed
        }
    }
}

/// `pvsync` (`V2` false) or `pvsync2` (`V2` true).
pub struct Pvsync<const V2: bool> {
    files: FileTable<File>,
    bufs: Vec<AlignedBuf>,
    /// How data files are opened (O_DIRECT, O_NOATIME).
    mode: FileMode,
    datasync: bool,
    flags: RwFlags,
    /// A request refused with EAGAIN fails the run (fio's jobs) instead
    /// of completing with its errno for the runner to count.
    eagain_fails: bool,
}

impl<const V2: bool> Pvsync<V2> {
    fn new(o: &EngineOpts) -> Self {
        Pvsync {
            files: FileTable::default(),
            bufs: buffer::slots(o.slots, o.max_len, o.seed),
            mode: o.file_mode(),
            datasync: o.datasync,
            flags: RwFlags::of(&o.queue, o.direct),
            eagain_fails: o.queue.eagain_fails,
        }
    }

    /// A failed read or write: one that RWF_NOWAIT turned away completes
    /// with EAGAIN for the runner to count, unless it fails the run as a
    /// fio job's does (with EAGAIN, fio's `err=11`); others fail.
    #[cold]
    fn refused(&self, req: Req, e: io::Error) -> io::Result<Queued> {
        let nowait = V2 && self.flags.fixed & libc::RWF_NOWAIT != 0;
        if nowait && !self.eagain_fails && e.raw_os_error() == Some(libc::EAGAIN) {
            return Ok(Queued::Done(Completion {
                err: libc::EAGAIN,
                ..Completion::sync(req, 0, 0, 0)
            }));
        }
        Err(e)
    }
}

/// One preadv(2), or preadv2(2) with `flags` when `V2`, of `buf` at `offset`.
#[inline(always)]
fn readv<const V2: bool>(fd: i32, buf: &mut [u8], offset: u64, flags: i32) -> io::Result<usize> {
    let iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: `iov` spans `buf`, borrowed mutably across the call.
    let r = unsafe {
        if V2 {
            libc::preadv2(fd, &iov, 1, offset as libc::off_t, flags)
        } else {
            libc::preadv(fd, &iov, 1, offset as libc::off_t)
        }
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// One pwritev(2), or pwritev2(2) with `flags` when `V2`, of `buf` at
/// `offset`.
#[inline(always)]
fn writev<const V2: bool>(fd: i32, buf: &[u8], offset: u64, flags: i32) -> io::Result<usize> {
    let iov = libc::iovec {
        iov_base: buf.as_ptr().cast_mut().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: `iov` spans `buf`, which the kernel only reads, borrowed
    // across the call.
    let r = unsafe {
        if V2 {
            libc::pwritev2(fd, &iov, 1, offset as libc::off_t, flags)
        } else {
            libc::pwritev(fd, &iov, 1, offset as libc::off_t)
        }
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

impl<const V2: bool> Engine for Pvsync<V2> {
    fn info(&self) -> &'static EngineInfo {
        if V2 { &INFO2 } else { &INFO }
    }

    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        let f = open_file_as(path, how, self.mode)?;
        if V2 && self.flags.fixed & libc::RWF_DONTCACHE != 0 {
            super::uring::check_uncached(path, &f)?;
        }
        Ok(self.files.insert(f, path))
    }

    fn close(&mut self, file: FileId) -> io::Result<()> {
        self.files.remove(file).map(drop)
    }

    #[inline]
    fn queue(&mut self, req: Req) -> io::Result<Queued> {
        let flags = if V2 { self.flags.next() } else { 0 };
        let f = self.files.get(req.file)?;
        let fd = f.as_raw_fd();
        let buf = &mut self.bufs[req.slot as usize][..req.len as usize];
        let datasync = self.datasync;
        let c = match req.kind {
            OpKind::Read => timed(req, || readv::<V2>(fd, buf, req.offset, flags)),
            OpKind::Write | OpKind::Append => {
                timed(req, || writev::<V2>(fd, buf, req.offset, flags))
            }
            OpKind::Fsync => return timed(req, || sync_file(f, datasync)).map(Queued::Done),
            OpKind::Trim => {
                let by = TrimBy::of(f)?;
                return timed(req, || trim_fd(fd, by, req.offset, req.len)).map(Queued::Done);
            }
            k => return Err(unsupported(k)),
        };
        match c {
            Ok(c) => Ok(Queued::Done(c)),
            Err(e) => self.refused(req, e),
        }
    }

    fn buf_mut(&mut self, slot: u16) -> &mut [u8] {
        &mut self.bufs[slot as usize]
    }

    fn path(&self, file: FileId) -> &Path {
        self.files.path(file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The share of RWF_HIPRI fio 3.33 gave the first 20 reads of a job
    /// with `--ioengine=pvsync2 --hipri --hipri_percentage=50`, as strace
    /// showed them (H: RWF_HIPRI, .: no flag).
    #[test]
    fn hipri_share_is_drawn_as_fio_draws_it() {
        let q = QueueOpts {
            hipri: true,
            hipri_percentage: Some(50),
            ..Default::default()
        };
        let mut f = RwFlags::of(&q, true);
        let got: String = (0..20)
            .map(|_| {
                if f.next() == libc::RWF_HIPRI {
                    'H'
                } else {
                    '.'
                }
            })
            .collect();
        assert_eq!(got, ".......HHH..H..HH...");
    }

    #[test]
    fn kernel_releases_compare() {
        assert!(release_at_least("6.18.44-fc-v669", (6, 14)));
        assert!(release_at_least("6.14.0", (6, 14)));
        assert!(!release_at_least("6.13.12-arch1", (6, 14)));
        assert!(!release_at_least("5.15.0-91-generic", (6, 14)));
        assert!(release_at_least("7.0", (6, 14)));
        assert!(!release_at_least("", (6, 14)));
    }

    #[test]
    fn taus88_starts_as_fios() {
        let mut t = Taus88::new(1);
        // C: (2^31)+(2^17)+(2^7) is 29+19+5
        assert_eq!((2 ^ 31) + (2 ^ 17) + (2 ^ 7), 53);
        let draws: Vec<u32> = (0..1000).map(|_| t.one_to_100()).collect();
        assert!(draws.iter().all(|d| (1..=100).contains(d)));
        // about half at most 50
        let low = draws.iter().filter(|&&d| d <= 50).count();
        assert!((430..=570).contains(&low), "{low}");
        // seeded the same, the same stream
        let mut a = Taus88::new(1);
        let mut b = Taus88::new(1);
        assert!((0..100).all(|_| a.next_u32() == b.next_u32()));
        assert_ne!(Taus88::new(1), Taus88::new(2));
    }

    #[test]
    fn flags_map_the_options() {
        let of = |q: QueueOpts, direct: bool| RwFlags::of(&q, direct).next();
        assert_eq!(of(QueueOpts::default(), false), 0);
        let nowait = QueueOpts {
            nowait: true,
            ..Default::default()
        };
        assert_eq!(of(nowait, false), libc::RWF_NOWAIT);
        let uncached = QueueOpts {
            uncached: true,
            ..Default::default()
        };
        assert_eq!(of(uncached, false), libc::RWF_DONTCACHE);
        // fio sets RWF_DONTCACHE on buffered requests only
        assert_eq!(of(uncached, true), 0);
        let hipri = QueueOpts {
            hipri: true,
            ..Default::default()
        };
        // the default share is every request
        let mut f = RwFlags::of(&hipri, true);
        assert!((0..200).all(|_| f.next() == libc::RWF_HIPRI));
        let none = QueueOpts {
            hipri_percentage: Some(0),
            ..hipri
        };
        let mut f = RwFlags::of(&none, true);
        assert!((0..200).all(|_| f.next() == 0));
        let all = QueueOpts {
            nowait: true,
            uncached: true,
            ..hipri
        };
        assert_eq!(
            of(all, false),
            libc::RWF_HIPRI | libc::RWF_NOWAIT | libc::RWF_DONTCACHE
        );
        // a share without hipri sets nothing (fio draws only with hipri)
        let share = QueueOpts {
            hipri_percentage: Some(100),
            ..Default::default()
        };
        assert_eq!(of(share, true), 0);
    }

    fn opts(q: QueueOpts) -> EngineOpts {
        EngineOpts {
            max_len: 8192,
            queue: q,
            ..Default::default()
        }
    }

    /// Both engines write and read back the same bytes, short at the end
    /// of the file, and sync and trim as psync does.
    #[test]
    fn both_round_trip_data() {
        let dir = tempfile::tempdir().unwrap();
        for info in [&INFO, &INFO2] {
            let mut e = (info.make)(&opts(QueueOpts::default())).unwrap();
            assert_eq!(e.info().name, info.name);
            let path = dir.path().join(info.name);
            let f = e.open(&path, OpenHow::CREATE).unwrap();
            let pattern: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 3) as u8).collect();
            e.buf_mut(0)[..8192].copy_from_slice(&pattern);
            assert_eq!(e.exec(Req::write(f, 0, 8192)).unwrap().bytes, 8192);
            e.exec(Req::fsync(f)).unwrap();
            e.buf_mut(0).fill(0);
            assert_eq!(e.exec(Req::read(f, 4096, 4096)).unwrap().bytes, 4096);
            assert_eq!(&e.buf_mut(0)[..4096], &pattern[4096..]);
            assert_eq!(e.exec(Req::read(f, 8000, 4096)).unwrap().bytes, 192);
            let c = e.exec(Req::trim(f, 0, 4096)).unwrap();
            assert_eq!(c.bytes, 4096);
            e.buf_mut(0).fill(1);
            e.exec(Req::read(f, 0, 4096)).unwrap();
            assert!(e.buf_mut(0)[..4096].iter().all(|&b| b == 0), "trimmed");
            e.close(f).unwrap();
            assert_eq!(std::fs::metadata(&path).unwrap().len(), 8192);
        }
    }

    /// A file of `len` bytes in a directory on a disk file system (/tmp
    /// may be tmpfs), out of the page cache.
    fn cold_file(len: usize) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let path = dir.path().join("cold");
        std::fs::write(&path, vec![7u8; len]).unwrap();
        let f = File::open(&path).unwrap();
        f.sync_all().unwrap();
        // SAFETY: advice on an open descriptor.
        unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        (dir, path)
    }

    /// --nowait: a read that would wait for the disk completes at once with
    /// EAGAIN, or fails when the run asks that (a fio job); one of cached
    /// pages is done.
    #[test]
    fn nowait_reads_that_would_block_come_back_with_eagain() {
        let q = QueueOpts {
            nowait: true,
            ..Default::default()
        };
        let (_d, path) = cold_file(1 << 20);
        let mut e = (INFO2.make)(&opts(q)).unwrap();
        let f = e.open(&path, OpenHow::READ).unwrap();
        match e.queue(Req::read(f, 512 << 10, 4096)).unwrap() {
            Queued::Done(c) if c.err == libc::EAGAIN => assert_eq!(c.bytes, 0),
            Queued::Done(c) => {
                println!("skipped: the pages stayed cached ({} B read)", c.bytes);
                return;
            }
            q => panic!("{q:?}"),
        }
        let mut e = (INFO2.make)(&opts(QueueOpts {
            eagain_fails: true,
            ..q
        }))
        .unwrap();
        let f = e.open(&path, OpenHow::READ).unwrap();
        let err = e.queue(Req::read(f, 600 << 10, 4096)).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EAGAIN), "{err}");
        // cached now: done
        std::fs::read(&path).unwrap();
        let c = e.exec(Req::read(f, 600 << 10, 4096)).unwrap();
        assert_eq!(c.bytes, 4096);
    }

    /// --uncached: reads of a cold file leave no pages in the page cache
    /// where the kernel and file system do it; refused on open elsewhere.
    #[test]
    fn uncached_reads_leave_no_pages() {
        let q = QueueOpts {
            uncached: true,
            ..Default::default()
        };
        let (_d, path) = cold_file(64 << 10);
        let mut e = (INFO2.make)(&opts(q)).unwrap();
        let f = match e.open(&path, OpenHow::READ) {
            Ok(f) => f,
            Err(err) => {
                assert!(err.to_string().contains("RWF_DONTCACHE"), "{err}");
                println!("skipped: {err}");
                return;
            }
        };
        for i in 0..8 {
            e.exec(Req::read(f, i * 8192, 8192)).unwrap();
        }
        assert_eq!(super::super::uring::tests::resident_pages(&path), 0);
    }
}
