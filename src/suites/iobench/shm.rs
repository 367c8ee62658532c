//! The shared region: what the controller and the users (threads or
//! processes) share. It is one anonymous memory file (the runner's
//! [`SharedMem`]: memfd_create(2)),
//! mapped MAP_SHARED by the controller and handed to user processes as an
//! inherited descriptor, so it lives in RAM and disappears with the last
//! process that maps it: there is nothing to clean up.
//!
//! Layout (every part starts on its own cache line; nothing is written by
//! two users except the lock words and the per-file lock counters, which
//! IOBENCH's lock manager shares by design):
//!
//! | part | size |
//! | --- | --- |
//! | header: magic, sizes, the stop word, the violation count | 4 KiB |
//! | per file: locks taken, active, max active | 64 B × F |
//! | per user: reserved | 64 B × U |
//! | lock words: 0 free, else holder + 1 | 4 B × F × L |
//! | witness words (`--verify-locks` only) | 4 B × F × L |
//! | reserved for a plan | its length |

use crate::runner::procs::SharedMem;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

const MAGIC: u64 = u64::from_le_bytes(*b"IOBENCH5");
const LINE: usize = 64;
const HEADER: usize = 4096;

/// `stop` value: a waiter for a lock gives up at once (the runner hurries
/// the users: Ctrl-C, or the end delay is over). Starting, stopping and the
/// gate are the runner's; the region holds only the lock manager.
pub const NOW: u32 = 2;

#[repr(C)]
struct Header {
    magic: u64,
    len: u64,
    users: u32,
    files: u32,
    locks: u64,
    verify: u32,
    _pad: u32,
    plan_len: u64,
    go: AtomicU32,
    stop: AtomicU32,
    t0_ns: AtomicU64,
    ready: AtomicU32,
    violations: AtomicU64,
    /// Variant 1: the ioserver's request and reply queues (System V ids),
    /// whether a busy lock is answered "busy" (SLEEP > 0) rather than
    /// queued, and whether the server is up.
    server_req_q: AtomicI32,
    server_rep_q: AtomicI32,
    server_busy: AtomicU32,
    server_ready: AtomicU32,
    /// The server's counters ([`Counter`]); it alone writes them.
    server: [AtomicU64; COUNTERS],
}

/// What the ioserver counts, for the results file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    /// Lock requests received (retries after "busy" included).
    LockRequests,
    /// Granted at once, and granted to a queued waiter on a release.
    GrantedAtOnce,
    GrantedAfterWait,
    /// Answered "busy" (SLEEP > 0: the user sleeps and asks again).
    Busy,
    Unlocks,
    /// Dead users whose locks the controller asked the server to free.
    Releases,
    /// Waiters answered "stopped" (Ctrl-C, or the end delay was over).
    Stopped,
    /// Unlocks by a user that did not hold the lock, and unknown requests.
    Bad,
    /// Wall time from receiving a request to sending its answers.
    ServiceNs,
    /// Requests of every kind.
    Messages,
}

const COUNTERS: usize = 10;

/// Per-file counters of the lock manager.
#[repr(C, align(64))]
pub struct FileLocks {
    pub taken: AtomicU64,
    pub active: AtomicU32,
    pub max_active: AtomicU32,
}

#[derive(Clone, Copy, Debug)]
struct Layout {
    files_off: usize,
    locks_off: usize,
    witness_off: usize,
    plan_off: usize,
    len: usize,
}

impl Layout {
    fn new(users: u32, files: u32, locks: u64, verify: bool, plan_len: usize) -> Layout {
        let up = |x: usize| x.div_ceil(LINE) * LINE;
        let files_off = HEADER;
        // the users' cells of IOBENCH 5.0's layout stay reserved
        let locks_off = files_off + (files as usize + users as usize) * LINE;
        let words = files as usize * locks as usize * 4;
        let witness_off = up(locks_off + words);
        let plan_off = up(witness_off + if verify { words } else { 0 });
        Layout {
            files_off,
            locks_off,
            witness_off,
            plan_off,
            len: plan_off + plan_len,
        }
    }
}

/// The mapped region. `Sync`: everything shared in it is atomic.
pub struct Shm {
    mem: SharedMem,
    ptr: *mut u8,
    layout: Layout,
    files: u32,
    locks: u64,
    verify: bool,
}

// SAFETY: the mapping is valid for the life of `Shm`; all shared access goes
// through atomics (or the plan bytes, written once before anyone reads them).
unsafe impl Send for Shm {}
// SAFETY: as above.
unsafe impl Sync for Shm {}

impl Shm {
    fn new(mem: SharedMem, layout: Layout, files: u32, locks: u64, verify: bool) -> Shm {
        Shm {
            ptr: mem.ptr(),
            mem,
            layout,
            files,
            locks,
            verify,
        }
    }

    /// Make the region for `users` users on `files` files of `locks` locks
    /// each, holding `plan` (read by user processes).
    pub fn create(
        users: u32,
        files: u32,
        locks: u64,
        verify: bool,
        plan: &[u8],
    ) -> io::Result<Shm> {
        let layout = Layout::new(users, files, locks, verify, plan.len());
        let mem = SharedMem::create(c"iogauge-iobench", layout.len)?;
        let shm = Shm::new(mem, layout, files, locks, verify);
        let ptr = shm.ptr;
        // SAFETY: the header lies inside the fresh, zeroed mapping, which no
        // one else sees yet.
        unsafe {
            let h = &mut *(ptr as *mut Header);
            h.magic = MAGIC;
            h.len = layout.len as u64;
            h.users = users;
            h.files = files;
            h.locks = locks;
            h.verify = verify as u32;
            h.plan_len = plan.len() as u64;
            std::ptr::copy_nonoverlapping(plan.as_ptr(), ptr.add(layout.plan_off), plan.len());
        }
        Ok(shm)
    }

    /// Map the region a controller made, from an inherited descriptor.
    pub fn attach(fd: RawFd) -> io::Result<Shm> {
        let mem = SharedMem::attach(fd)?;
        let (ptr, len) = (mem.ptr(), mem.len());
        if len < HEADER {
            return Err(io::Error::other("the shared region is too small"));
        }
        // SAFETY: the header lies in the mapping; the controller wrote it
        // before this process existed.
        let h = unsafe { &*(ptr as *const Header) };
        let ok = h.magic == MAGIC && h.len as usize == len;
        let (users, files, locks, verify, plan_len) = (
            h.users,
            h.files,
            h.locks,
            h.verify != 0,
            h.plan_len as usize,
        );
        let layout = Layout::new(users, files, locks, verify, plan_len);
        let shm = Shm::new(mem, layout, files, locks, verify);
        if !ok || layout.len != len {
            return Err(io::Error::other(
                "the shared region is not an IOBENCH region",
            ));
        }
        Ok(shm)
    }

    pub fn fd(&self) -> RawFd {
        self.mem.fd()
    }

    fn header(&self) -> &Header {
        // SAFETY: the header is at the start of the live mapping.
        unsafe { &*(self.ptr as *const Header) }
    }

    pub fn file(&self, f: u32) -> &FileLocks {
        assert!(f < self.files);
        // SAFETY: in bounds (checked), aligned to 64, zero is a valid value.
        unsafe { &*(self.ptr.add(self.layout.files_off + f as usize * LINE) as *const FileLocks) }
    }

    #[inline]
    fn word(&self, off: usize, f: u32, l: u64) -> &AtomicU32 {
        debug_assert!(f < self.files && l < self.locks);
        let i = f as usize * self.locks as usize + l as usize;
        // SAFETY: `i` < files × locks (callers pass file < F and lock < L),
        // 4-byte aligned, zero is a valid value.
        unsafe { &*(self.ptr.add(off + i * 4) as *const AtomicU32) }
    }

    fn lock_word(&self, f: u32, l: u64) -> &AtomicU32 {
        self.word(self.layout.locks_off, f, l)
    }

    fn witness(&self, f: u32, l: u64) -> &AtomicU32 {
        self.word(self.layout.witness_off, f, l)
    }

    #[inline]
    pub fn stop(&self) -> u32 {
        self.header().stop.load(Ordering::Relaxed)
    }

    pub fn set_stop(&self, v: u32) {
        self.header().stop.fetch_max(v, Ordering::Relaxed);
    }

    /// Overlapping holders seen by `--verify-locks`.
    pub fn violations(&self) -> u64 {
        self.header().violations.load(Ordering::Acquire)
    }

    /// Take lock `l` of file `f` for `holder`: spin (`sleep` zero) or sleep
    /// `sleep` between tries. Returns false, without the lock, when the run
    /// is stopped with [`NOW`] meanwhile.
    #[inline]
    pub fn lock(&self, f: u32, l: u64, holder: u32, sleep: Duration) -> bool {
        let w = self.lock_word(f, l);
        let me = holder + 1;
        let mut tries = 0u32;
        loop {
            if w.load(Ordering::Relaxed) == 0
                && w.compare_exchange_weak(0, me, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                break;
            }
            if self.stop() == NOW {
                return false;
            }
            tries = tries.wrapping_add(1);
            if sleep.is_zero() {
                if tries < 100 {
                    std::hint::spin_loop();
                } else {
                    // let a descheduled holder run on a busy machine
                    // SAFETY: no preconditions.
                    unsafe { libc::sched_yield() };
                }
            } else {
                self.sleep_unless_stopped(sleep);
            }
        }
        self.count_grant(f);
        self.witness_take(f, l, holder);
        true
    }

    /// `--verify-locks`: `holder` now holds lock `l` of file `f`; another
    /// holder there is a violation.
    #[inline]
    pub fn witness_take(&self, f: u32, l: u64, holder: u32) {
        if self.verify && self.witness(f, l).swap(holder + 1, Ordering::SeqCst) != 0 {
            self.header().violations.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// `--verify-locks`: `holder` gives lock `l` of file `f` back; if it was
    /// not the holder, that is a violation.
    #[inline]
    pub fn witness_give(&self, f: u32, l: u64, holder: u32) {
        if self.verify && self.witness(f, l).swap(0, Ordering::SeqCst) != holder + 1 {
            self.header().violations.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Give back lock `l` of file `f` that `holder` took.
    #[inline]
    pub fn unlock(&self, f: u32, l: u64, holder: u32) {
        self.witness_give(f, l, holder);
        self.count_release(f);
        self.lock_word(f, l).store(0, Ordering::Release);
    }

    /// The lock manager's bookkeeping of a lock of file `f` granted (by
    /// the users themselves, or in Variant 1 by the ioserver).
    #[inline]
    pub fn count_grant(&self, f: u32) {
        let fc = self.file(f);
        fc.taken.fetch_add(1, Ordering::Relaxed);
        let active = fc.active.fetch_add(1, Ordering::Relaxed) + 1;
        if active > fc.max_active.load(Ordering::Relaxed) {
            fc.max_active.fetch_max(active, Ordering::Relaxed);
        }
    }

    /// A lock of file `f` given back: counted down before the lock is
    /// free, so `active` never exceeds the holders.
    #[inline]
    pub fn count_release(&self, f: u32) {
        let _ = self
            .file(f)
            .active
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |a| a.checked_sub(1));
    }

    /// Variant 1: where the ioserver listens and answers, and how it treats
    /// a busy lock. Set before the server and the users start.
    pub fn set_server(&self, req_q: i32, rep_q: i32, busy: bool) {
        let h = self.header();
        h.server_req_q.store(req_q, Ordering::Release);
        h.server_rep_q.store(rep_q, Ordering::Release);
        h.server_busy.store(busy as u32, Ordering::Release);
    }

    /// The ioserver's request and reply queues, and whether it answers "busy".
    pub fn server_queues(&self) -> (i32, i32, bool) {
        let h = self.header();
        (
            h.server_req_q.load(Ordering::Acquire),
            h.server_rep_q.load(Ordering::Acquire),
            h.server_busy.load(Ordering::Acquire) != 0,
        )
    }

    pub fn set_server_ready(&self) {
        self.header().server_ready.store(1, Ordering::Release);
    }

    pub fn server_ready(&self) -> bool {
        self.header().server_ready.load(Ordering::Acquire) != 0
    }

    /// Add to one of the server's counters (the server is their one writer).
    #[inline]
    pub fn server_add(&self, c: Counter, n: u64) {
        self.header().server[c as usize].fetch_add(n, Ordering::Relaxed);
    }

    pub fn server_count(&self, c: Counter) -> u64 {
        self.header().server[c as usize].load(Ordering::Acquire)
    }

    pub fn files(&self) -> u32 {
        self.files
    }

    pub fn locks(&self) -> u64 {
        self.locks
    }

    /// `--verify-locks` without locking: mark the start and end of a record
    /// access, so that overlapping accesses are seen (the check of the check).
    pub fn witness_enter(&self, f: u32, l: u64, holder: u32) {
        if self.witness(f, l).swap(holder + 1, Ordering::SeqCst) != 0 {
            self.header().violations.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn witness_leave(&self, f: u32, l: u64, holder: u32) {
        let _ =
            self.witness(f, l)
                .compare_exchange(holder + 1, 0, Ordering::SeqCst, Ordering::Relaxed);
    }

    /// Free every lock a dead user still held; returns how many.
    pub fn release_all_of(&self, holder: u32) -> u64 {
        let me = holder + 1;
        let mut n = 0;
        for f in 0..self.files {
            for l in 0..self.locks {
                if self.verify {
                    let _ = self.witness(f, l).compare_exchange(
                        me,
                        0,
                        Ordering::SeqCst,
                        Ordering::Relaxed,
                    );
                }
                if self
                    .lock_word(f, l)
                    .compare_exchange(me, 0, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok()
                {
                    self.count_release(f);
                    n += 1;
                }
            }
        }
        n
    }

    pub fn sleep_unless_stopped(&self, d: Duration) {
        let end = std::time::Instant::now() + d;
        loop {
            let now = std::time::Instant::now();
            if now >= end || self.stop() == NOW {
                return;
            }
            std::thread::sleep((end - now).min(Duration::from_millis(50)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn a_region_round_trips_through_its_descriptor() {
        let s = Shm::create(3, 2, 5, false, b"{\"x\":1}").unwrap();
        s.file(1).taken.store(42, Ordering::Relaxed);
        // SAFETY: dup of a valid descriptor.
        let dup = unsafe { libc::dup(s.fd()) };
        let t = Shm::attach(dup).unwrap();
        assert_eq!((t.files, t.locks), (2, 5));
        assert_eq!(t.file(1).taken.load(Ordering::Relaxed), 42);
        // a lock taken through one mapping is held in the other
        assert!(t.lock(1, 4, 2, Duration::ZERO));
        assert_eq!(s.file(1).active.load(Ordering::Relaxed), 1);
        assert_eq!(s.release_all_of(2), 1);
    }

    /// L = 1 and many users: never two holders at once. Each holder checks
    /// a cell of its own beside the lock manager's bookkeeping.
    #[test]
    fn one_lock_many_users_never_two_holders() {
        let users = 16u32;
        let s = Shm::create(users, 1, 1, true, b"").unwrap();
        let holder = AtomicU32::new(0);
        let overlaps = AtomicU64::new(0);
        let done = AtomicBool::new(false);
        std::thread::scope(|sc| {
            for u in 0..users {
                let (s, holder, overlaps, done) = (&s, &holder, &overlaps, &done);
                sc.spawn(move || {
                    let mut n = 0u64;
                    while !done.load(Ordering::Relaxed) || n < 200 {
                        assert!(s.lock(0, 0, u, Duration::ZERO));
                        if holder.swap(u + 1, Ordering::SeqCst) != 0 {
                            overlaps.fetch_add(1, Ordering::Relaxed);
                        }
                        for i in 0..50u32 {
                            std::hint::black_box(i);
                        }
                        if holder.swap(0, Ordering::SeqCst) != u + 1 {
                            overlaps.fetch_add(1, Ordering::Relaxed);
                        }
                        s.unlock(0, 0, u);
                        n += 1;
                    }
                    n
                });
            }
            std::thread::sleep(Duration::from_millis(200));
            done.store(true, Ordering::Relaxed);
        });
        assert_eq!(overlaps.load(Ordering::Relaxed), 0);
        assert_eq!(s.violations(), 0);
        let f = s.file(0);
        assert!(f.taken.load(Ordering::Relaxed) >= 200 * users as u64);
        assert_eq!(f.max_active.load(Ordering::Relaxed), 1);
        assert_eq!(f.active.load(Ordering::Relaxed), 0);
    }

    /// The witness catches overlapping accesses when nothing locks.
    #[test]
    fn the_witness_sees_unlocked_overlap() {
        let s = Shm::create(2, 1, 1, true, b"").unwrap();
        s.witness_enter(0, 0, 0);
        s.witness_enter(0, 0, 1);
        assert_eq!(s.violations(), 1);
    }

    #[test]
    fn a_dead_holders_locks_are_released() {
        let s = Shm::create(2, 2, 3, false, b"").unwrap();
        assert!(s.lock(0, 1, 0, Duration::ZERO));
        assert!(s.lock(1, 2, 0, Duration::ZERO));
        assert_eq!(s.release_all_of(1), 0);
        assert_eq!(s.release_all_of(0), 2);
        assert_eq!(s.file(0).active.load(Ordering::Relaxed), 0);
        assert!(s.lock(0, 1, 1, Duration::ZERO));
    }

    #[test]
    fn a_waiter_gives_up_when_stopped_now() {
        let s = Shm::create(2, 1, 1, false, b"").unwrap();
        assert!(s.lock(0, 0, 0, Duration::ZERO));
        std::thread::scope(|sc| {
            let h = sc.spawn(|| s.lock(0, 0, 1, Duration::from_millis(500)));
            std::thread::sleep(Duration::from_millis(50));
            s.set_stop(NOW);
            assert!(!h.join().unwrap());
        });
    }
}
