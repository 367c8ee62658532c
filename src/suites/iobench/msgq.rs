//! System V message queues (msgget(2), msgsnd(2), msgrcv(2)), the IPC the
//! original `ioserver` used: a thin, safe wrapper over fixed-size messages.
//!
//! A queue made with `IPC_PRIVATE` has no key: only processes told its id
//! can use it. It outlives every process until removed, so the controller
//! removes its queues however the run ends ([`Queues`] on drop); removing a
//! queue wakes everyone blocked on it with `EIDRM`.
//!
//! A controller killed with SIGKILL removes nothing. So that no queue
//! outlives its run for good, each queue carries a tag, its first message
//! ([`TAG_TYPE`], never asked for by the ioserver's traffic): `iogauge`,
//! the process that made it and that process's start time. The ioserver
//! removes the queues when its controller dies ([`on_parent_death`]), and
//! every `--server` run first removes the tagged queues of this user whose
//! maker is gone ([`reclaim`]), in case the ioserver died with it.

use std::io;
use std::sync::atomic::{AtomicI32, Ordering};

/// A message of `N` bytes of text after the kernel's type word.
#[repr(C)]
struct Msg<const N: usize> {
    mtype: libc::c_long,
    text: [u8; N],
}

/// The type of the tag message (the largest a message may have: the
/// ioserver's requests are type 1, its answers type user + 1).
pub const TAG_TYPE: i64 = i64::MAX;
/// Bytes of a tag: `iogauge\0`, the maker's pid, its start time.
pub const TAG_BYTES: usize = 24;
const MAGIC: &[u8; 8] = b"iogauge\0";
/// msgrcv(2)'s flag to copy the message at an index without taking it
/// (Linux, with CONFIG_CHECKPOINT_RESTORE as distribution kernels have).
const MSG_COPY: libc::c_int = 0o40000;

/// A process's start time in clock ticks since boot (`/proc/PID/stat`
/// field 22): with its pid, it names one process for good.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // the command name may hold spaces and parentheses: count after the last ')'
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

fn tag_of(pid: u32, start: u64) -> [u8; TAG_BYTES] {
    let mut t = [0u8; TAG_BYTES];
    t[..8].copy_from_slice(MAGIC);
    t[8..12].copy_from_slice(&pid.to_le_bytes());
    t[16..24].copy_from_slice(&start.to_le_bytes());
    t
}

/// Make a private queue readable and writable by this user only, tagged
/// with this process (see the module doc).
pub fn create() -> io::Result<i32> {
    // SAFETY: no pointers; IPC_PRIVATE always makes a new queue.
    let id = unsafe { libc::msgget(libc::IPC_PRIVATE, libc::IPC_CREAT | 0o600) };
    if id < 0 {
        return Err(io::Error::last_os_error());
    }
    let me = std::process::id();
    let tag = tag_of(me, start_time(me).unwrap_or(0));
    if let Err(e) = send(id, TAG_TYPE, tag, true) {
        remove(id);
        return Err(e);
    }
    Ok(id)
}

/// The queue's first message without taking it, if it is a tag: the
/// maker's pid and start time.
fn peek_tag(id: i32) -> Option<(u32, u64)> {
    let mut m = Msg::<TAG_BYTES> {
        mtype: 0,
        text: [0; TAG_BYTES],
    };
    // SAFETY: `m` has room for TAG_BYTES of text; MSG_NOERROR cuts a
    // longer message; MSG_COPY with index 0 copies the first message and
    // leaves it in the queue.
    let r = unsafe {
        libc::msgrcv(
            id,
            (&mut m as *mut Msg<TAG_BYTES>).cast(),
            TAG_BYTES,
            0,
            libc::IPC_NOWAIT | MSG_COPY | libc::MSG_NOERROR,
        )
    };
    if r != TAG_BYTES as isize || m.mtype != TAG_TYPE || &m.text[..8] != MAGIC {
        return None;
    }
    let pid = u32::from_le_bytes(m.text[8..12].try_into().ok()?);
    let start = u64::from_le_bytes(m.text[16..24].try_into().ok()?);
    Some((pid, start))
}

/// The queues of this user that carry iogauge's tag, with their makers
/// (from /proc/sysvipc/msg: private queues, owned and made by this user).
pub fn tagged() -> Vec<(i32, u32, u64)> {
    let Ok(table) = std::fs::read_to_string("/proc/sysvipc/msg") else {
        return Vec::new();
    };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    let mut out = Vec::new();
    for row in table.lines().skip(1) {
        let f: Vec<&str> = row.split_whitespace().collect();
        if f.len() < 10 {
            continue;
        }
        let num = |i: usize| f[i].parse::<i64>().ok();
        let (Some(key), Some(id), Some(qnum), Some(uid), Some(cuid)) =
            (num(0), num(1), num(4), num(7), num(9))
        else {
            continue;
        };
        if key != 0 || qnum < 1 || uid != i64::from(me) || cuid != i64::from(me) {
            continue;
        }
        if let Some((pid, start)) = peek_tag(id as i32) {
            out.push((id as i32, pid, start));
        }
    }
    out
}

/// Remove the tagged queues whose maker is gone (a run killed with
/// SIGKILL, its ioserver with it); returns how many.
pub fn reclaim() -> usize {
    let mut n = 0;
    for (id, pid, start) in tagged() {
        if start_time(pid) != Some(start) {
            remove(id);
            n += 1;
        }
    }
    n
}

/// The queues a process removes when its parent dies.
static ORPHANED: [AtomicI32; 2] = [AtomicI32::new(-1), AtomicI32::new(-1)];

extern "C" fn remove_orphaned(_: libc::c_int) {
    for q in &ORPHANED {
        let id = q.load(Ordering::Relaxed);
        if id >= 0 {
            // SAFETY: msgctl is a system call, safe in a signal handler.
            unsafe { libc::msgctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
        }
    }
}

/// In a child of the controller (the ioserver): when the controller dies,
/// however it dies, remove `ids`; everyone blocked on them wakes with
/// `EIDRM`. Replaces the child's death signal (SIGKILL) with SIGUSR1.
pub fn on_parent_death(ids: [i32; 2]) -> io::Result<()> {
    for (q, id) in ORPHANED.iter().zip(ids) {
        q.store(id, Ordering::Relaxed);
    }
    // SAFETY: getppid has no preconditions; the handler only calls
    // msgctl; sigaction is given a zeroed struct with the handler set and
    // no SA_RESTART, so a blocked msgrcv returns and sees the queue gone.
    unsafe {
        let parent = libc::getppid();
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = remove_orphaned as *const () as libc::sighandler_t;
        if libc::sigaction(libc::SIGUSR1, &sa, std::ptr::null_mut()) != 0
            || libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGUSR1) != 0
        {
            return Err(io::Error::last_os_error());
        }
        // the parent died before the death signal was set
        if libc::getppid() != parent || parent == 1 {
            remove_orphaned(libc::SIGUSR1);
        }
    }
    Ok(())
}

/// Remove queue `id`; those blocked on it get `EIDRM`. Gone already is fine.
pub fn remove(id: i32) {
    // SAFETY: IPC_RMID takes no buffer.
    unsafe { libc::msgctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
}

/// Let queue `id` hold at least `bytes` of messages (best effort: without
/// privilege the kernel allows up to msgmnb).
pub fn grow(id: i32, bytes: usize) {
    // SAFETY: msqid_ds is plain data; IPC_STAT fills it, IPC_SET reads it.
    unsafe {
        let mut ds: libc::msqid_ds = std::mem::zeroed();
        if libc::msgctl(id, libc::IPC_STAT, &mut ds) == 0 && (ds.msg_qbytes as usize) < bytes {
            ds.msg_qbytes = bytes as _;
            libc::msgctl(id, libc::IPC_SET, &mut ds);
        }
    }
}

/// Whether queue `id` still exists.
#[cfg(test)]
pub fn exists(id: i32) -> bool {
    // SAFETY: as in `grow`.
    unsafe {
        let mut ds: libc::msqid_ds = std::mem::zeroed();
        libc::msgctl(id, libc::IPC_STAT, &mut ds) == 0
    }
}

/// Send `text` as a message of type `mtype` (> 0). Blocks while the queue
/// is full unless `nowait`; an interrupted call is retried.
pub fn send<const N: usize>(id: i32, mtype: i64, text: [u8; N], nowait: bool) -> io::Result<()> {
    let m = Msg::<N> {
        mtype: mtype as libc::c_long,
        text,
    };
    let flags = if nowait { libc::IPC_NOWAIT } else { 0 };
    loop {
        // SAFETY: `m` is a valid message of N text bytes.
        let r = unsafe { libc::msgsnd(id, (&m as *const Msg<N>).cast(), N, flags) };
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Receive the first message of type `mtype` (0: any type); returns its
/// type and text. Blocks until one comes; an interrupted call is retried.
pub fn recv<const N: usize>(id: i32, mtype: i64) -> io::Result<(i64, [u8; N])> {
    let mut m = Msg::<N> {
        mtype: 0,
        text: [0; N],
    };
    loop {
        // SAFETY: `m` has room for N text bytes; longer messages are cut
        // (MSG_NOERROR), never written past it.
        let r = unsafe {
            libc::msgrcv(
                id,
                (&mut m as *mut Msg<N>).cast(),
                N,
                mtype as libc::c_long,
                libc::MSG_NOERROR,
            )
        };
        if r >= 0 {
            return Ok((m.mtype, m.text));
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Whether an error means the queue was removed (`EIDRM`, or `EINVAL`
/// for an id that no longer exists).
pub fn gone(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EIDRM) | Some(libc::EINVAL))
}

/// Queues owned by the controller: removed when dropped, however the run ends.
pub struct Queues(pub Vec<i32>);

impl Queues {
    pub fn remove_all(&mut self) {
        for id in self.0.drain(..) {
            remove(id);
        }
    }
}

impl Drop for Queues {
    fn drop(&mut self) {
        self.remove_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_go_by_type_in_order_and_removal_wakes_the_receiver() {
        let mut q = Queues(vec![create().unwrap()]);
        let id = q.0[0];
        // the tag comes first, and stays
        let me = std::process::id();
        assert_eq!(peek_tag(id), Some((me, start_time(me).unwrap())));
        assert!(tagged().iter().any(|t| t.0 == id && t.1 == me));
        assert_eq!(recv::<TAG_BYTES>(id, TAG_TYPE).unwrap().0, TAG_TYPE);
        assert_eq!(peek_tag(id), None);
        send(id, 7, *b"abcd", false).unwrap();
        send(id, 3, *b"wxyz", false).unwrap();
        send(id, 7, *b"efgh", false).unwrap();
        assert_eq!(recv::<4>(id, 3).unwrap(), (3, *b"wxyz"));
        assert_eq!(recv::<4>(id, 0).unwrap(), (7, *b"abcd"));
        assert_eq!(recv::<4>(id, 7).unwrap(), (7, *b"efgh"));
        // a longer message is cut, not overrun
        send(id, 1, *b"0123456789", false).unwrap();
        assert_eq!(recv::<4>(id, 1).unwrap(), (1, *b"0123"));
        std::thread::scope(|s| {
            let h = s.spawn(|| recv::<4>(id, 0));
            std::thread::sleep(std::time::Duration::from_millis(50));
            q.remove_all();
            let e = h.join().unwrap().unwrap_err();
            assert!(gone(&e), "{e}");
        });
        assert!(!exists(id));
        let e = send(id, 1, *b"late", true).unwrap_err();
        assert!(gone(&e), "{e}");
    }

    #[test]
    fn only_queues_whose_maker_is_gone_are_reclaimed() {
        let live = Queues(vec![create().unwrap()]);
        // a queue as a dead process left it: the tag of a pid that is not running
        // SAFETY: as in `create`.
        let dead = unsafe { libc::msgget(libc::IPC_PRIVATE, libc::IPC_CREAT | 0o600) };
        assert!(dead >= 0);
        send(dead, TAG_TYPE, tag_of(u32::MAX - 1, 7), true).unwrap();
        // an untagged queue (someone else's) is never touched
        // SAFETY: as above.
        let other = unsafe { libc::msgget(libc::IPC_PRIVATE, libc::IPC_CREAT | 0o600) };
        send(other, 1, *b"theirs", true).unwrap();
        assert!(reclaim() >= 1);
        assert!(!exists(dead));
        assert!(exists(live.0[0]) && exists(other));
        remove(other);
    }
}
