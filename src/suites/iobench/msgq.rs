//! System V message queues (msgget(2), msgsnd(2), msgrcv(2)), the IPC the
//! original `ioserver` used: a thin, safe wrapper over fixed-size messages.
//!
//! A queue made with `IPC_PRIVATE` has no key: only processes told its id
//! can use it. It outlives every process until removed, so the controller
//! removes its queues however the run ends ([`Queues`] on drop); removing a
//! queue wakes everyone blocked on it with `EIDRM`.

use std::io;

/// A message of `N` bytes of text after the kernel's type word.
#[repr(C)]
struct Msg<const N: usize> {
    mtype: libc::c_long,
    text: [u8; N],
}

/// Make a private queue readable and writable by this user only.
pub fn create() -> io::Result<i32> {
    // SAFETY: no pointers; IPC_PRIVATE always makes a new queue.
    let id = unsafe { libc::msgget(libc::IPC_PRIVATE, libc::IPC_CREAT | 0o600) };
    if id < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(id)
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
}
