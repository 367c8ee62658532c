//! A private file descriptor table for each worker thread.
//!
//! Threads share one table, and while it is shared the kernel looks up each
//! descriptor of a system call on its slow path (`fdget`: a reference taken
//! and dropped on the file, two atomic operations) that a single-threaded
//! process skips. On a page-cached 4 KiB pread that is ~60 ns of ~1 µs.
//! So a worker that allows it ([`super::Worker::own_fd_table`]) starts its
//! thread with `unshare(CLONE_FILES)`: it gets a copy of the table with
//! every descriptor the process had open, its own files among them, and
//! its calls take the fast path.
//!
//! The copy leaves each worker's files open twice: in its own table, where
//! the worker closes them, and in the process's, where nobody would. So the
//! worker lists its table after the unshare and again after it has dropped
//! everything it owned; what went missing it closed, and the controlling
//! thread closes the same descriptors in the process's table
//! ([`close_orphans`]) — an unlinked data file's blocks would otherwise
//! stay allocated until the process exits.

use std::fs;

/// A descriptor and the file behind it: a number alone could be reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Open {
    fd: i32,
    dev: u64,
    ino: u64,
}

fn identity(fd: i32) -> Option<Open> {
    // SAFETY: fstat writes only the struct we pass; a zeroed stat is a
    // valid value of that plain-data type.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is valid and writable; fstat on a number that is not an
    // open descriptor fails with EBADF and touches nothing.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return None;
    }
    Some(Open {
        fd,
        dev: st.st_dev,
        ino: st.st_ino,
    })
}

/// The calling thread's open descriptors, or `None` without /proc. The
/// directory's own descriptor is among them while it is read; it is closed
/// by the time anything compares, and [`close_orphans`] checks identities.
fn listing() -> Option<Vec<Open>> {
    let dir = fs::read_dir("/proc/thread-self/fd").ok()?;
    Some(
        dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .filter_map(identity)
            .collect(),
    )
}

/// Give the calling thread its own copy of the descriptor table; returns
/// what it holds, to compare at the end ([`closed_since`]). `None` (no
/// /proc, or the kernel refused): the thread keeps the shared table, which
/// is slower but right.
pub(super) fn unshare() -> Option<Vec<Open>> {
    // without a listing the process's copies could not be closed: keep the
    // shared table rather than leak them
    listing()?;
    // SAFETY: unshare(CLONE_FILES) only replaces this thread's table with a
    // copy holding the same descriptors; every File the thread owns stays
    // valid under its number.
    if unsafe { libc::unshare(libc::CLONE_FILES) } != 0 {
        return None;
    }
    listing()
}

/// What of `start` the calling thread has closed since: descriptors that
/// are gone, or whose number now names another file.
pub(super) fn closed_since(start: &[Open]) -> Vec<Open> {
    let now = listing().unwrap_or_default();
    start.iter().filter(|o| !now.contains(o)).copied().collect()
}

/// Close, in the calling (controlling) thread's table, the copies of what
/// the workers closed in theirs. A number that no longer names the same file
/// is left alone.
pub(super) fn close_orphans(orphans: &[Open]) {
    for o in orphans {
        if identity(o.fd) == Some(*o) {
            // SAFETY: this descriptor is the process table's copy of one a
            // worker owned and has closed: its owner moved to the worker
            // thread and was dropped there, so nothing in this process uses
            // this number any more.
            unsafe { libc::close(o.fd) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_file_closed_by_a_worker_is_closed_in_the_process_too() {
        let dir = tempfile::tempdir().unwrap();
        let f = fs::File::create(dir.path().join("data")).unwrap();
        let fd = f.as_raw_fd();
        let before = identity(fd).expect("open");
        let orphans = std::thread::spawn(move || {
            let start = unshare().expect("a private table");
            let shared = identity(fd);
            drop(f);
            (shared, closed_since(&start))
        })
        .join()
        .unwrap();
        assert_eq!(orphans.0, Some(before), "the copy holds the file");
        assert!(orphans.1.contains(&before), "{:?}", orphans.1);
        assert_eq!(identity(fd), Some(before), "still open here");
        close_orphans(&orphans.1);
        assert_eq!(identity(fd), None);
    }
}
