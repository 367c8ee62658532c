//! Variant 1: locking in the `ioserver`, a process of its own that owns the
//! lock table and serves the users' lock requests over System V message
//! queues, as the paper's Figure 1 run did.
//!
//! ```text
//!  user k                              ioserver
//!  ──────                              ────────
//!  LOCK(file, lock) ──request queue──> free: grant; held: queue the user
//!  wait for type k+1 <──reply queue─── (SLEEP > 0: answer BUSY instead)
//!  read, work, write
//!  UNLOCK(file, lock) ───────────────> free it; grant the first waiter
//!  (no answer)
//! ```
//!
//! One request queue (type 1, so first come first served) and one reply
//! queue (type = user + 1, so each user takes only its own answers). The
//! reply queue is separate so that a full request queue can never block the
//! server's answers. An unlock needs no answer: the user's next request
//! comes after it in the same queue. The server keeps the lock manager's
//! per-file counters in the shared region, as users do in Variant 0, and
//! its own counters beside them.
//!
//! Ending: at the normal end the controller sends STOP behind every
//! pending request; on Ctrl-C or when the end delay is over it removes the
//! queues, which wakes every waiter at once (`EIDRM`) and ends the server.
//! If the server dies, the controller removes the queues too, so no user
//! waits for an answer that will not come; the run ends, marked failed.
//! If the controller dies (even by SIGKILL), the server removes them and
//! ends; queues left by a run whose server died with it are removed by the
//! next `--server` run ([`msgq::reclaim`]).

use super::msgq::{self, Queues};
use super::shm::{self, Counter, Shm};
use crate::measure::clock::now_ns;
use anyhow::{Context, Result};
use std::collections::{HashMap, VecDeque};
use std::os::fd::RawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The service's name for `iogauge worker --service`.
pub const SERVICE: &str = "iobench-server";

/// Requests.
const LOCK: u32 = 1;
const UNLOCK: u32 = 2;
/// The controller: user `user` died; free what it held or waited for.
const RELEASE: u32 = 3;
/// The controller: answer what is queued before this, then end.
const STOP: u32 = 4;

/// Answers.
const GRANTED: u32 = 1;
const BUSY: u32 = 2;

const REQ_BYTES: usize = 24;
const REP_BYTES: usize = 8;
const REQ_TYPE: i64 = 1;

/// One request, 24 bytes on the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub op: u32,
    pub user: u32,
    pub file: u32,
    pub lock: u64,
}

impl Request {
    fn encode(self) -> [u8; REQ_BYTES] {
        let mut b = [0u8; REQ_BYTES];
        b[0..4].copy_from_slice(&self.op.to_le_bytes());
        b[4..8].copy_from_slice(&self.user.to_le_bytes());
        b[8..12].copy_from_slice(&self.file.to_le_bytes());
        b[16..24].copy_from_slice(&self.lock.to_le_bytes());
        b
    }

    fn decode(b: [u8; REQ_BYTES]) -> Request {
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        Request {
            op: u32_at(0),
            user: u32_at(4),
            file: u32_at(8),
            lock: u64::from_le_bytes(b[16..24].try_into().expect("8 bytes")),
        }
    }
}

fn answer(status: u32) -> [u8; REP_BYTES] {
    let mut b = [0u8; REP_BYTES];
    b[0..4].copy_from_slice(&status.to_le_bytes());
    b
}

/// The server's lock table: each lock's holder, and the users waiting for
/// it in the order they asked.
pub struct LockTable {
    files: u32,
    locks: u64,
    /// 0 free, else the holder + 1.
    holder: Vec<u32>,
    waiters: HashMap<usize, VecDeque<u32>>,
    /// SLEEP > 0: a busy lock is answered BUSY, not queued.
    busy: bool,
}

impl LockTable {
    pub fn new(files: u32, locks: u64, busy: bool) -> Self {
        LockTable {
            files,
            locks,
            holder: vec![0; files as usize * locks as usize],
            waiters: HashMap::new(),
            busy,
        }
    }

    fn slot(&self, file: u32, lock: u64) -> Option<usize> {
        (file < self.files && lock < self.locks)
            .then(|| file as usize * self.locks as usize + lock as usize)
    }

    /// Serve one request: the lock manager's counters go to `shm`, the
    /// answers to `reply(user, status)`.
    pub fn handle(&mut self, r: Request, shm: &Shm, reply: &mut dyn FnMut(u32, u32)) {
        match r.op {
            LOCK => {
                shm.server_add(Counter::LockRequests, 1);
                let Some(i) = self.slot(r.file, r.lock) else {
                    shm.server_add(Counter::Bad, 1);
                    return;
                };
                if self.holder[i] == 0 {
                    self.holder[i] = r.user + 1;
                    shm.count_grant(r.file);
                    shm.server_add(Counter::GrantedAtOnce, 1);
                    reply(r.user, GRANTED);
                } else if self.busy {
                    shm.server_add(Counter::Busy, 1);
                    reply(r.user, BUSY);
                } else {
                    self.waiters.entry(i).or_default().push_back(r.user);
                }
            }
            UNLOCK => match self.slot(r.file, r.lock) {
                Some(i) if self.holder[i] == r.user + 1 => {
                    shm.server_add(Counter::Unlocks, 1);
                    self.free(i, r.file, shm, reply);
                }
                _ => shm.server_add(Counter::Bad, 1),
            },
            RELEASE => {
                shm.server_add(Counter::Releases, 1);
                let me = r.user + 1;
                for q in self.waiters.values_mut() {
                    q.retain(|&u| u != r.user);
                }
                for i in 0..self.holder.len() {
                    if self.holder[i] == me {
                        let file = (i / self.locks as usize) as u32;
                        self.free(i, file, shm, reply);
                    }
                }
            }
            _ => shm.server_add(Counter::Bad, 1),
        }
    }

    /// Free lock slot `i` of `file`, and hand it to the first waiter.
    fn free(&mut self, i: usize, file: u32, shm: &Shm, reply: &mut dyn FnMut(u32, u32)) {
        shm.count_release(file);
        self.holder[i] = 0;
        let next = self.waiters.get_mut(&i).and_then(VecDeque::pop_front);
        if let Some(u) = next {
            self.holder[i] = u + 1;
            shm.count_grant(file);
            shm.server_add(Counter::GrantedAfterWait, 1);
            reply(u, GRANTED);
        }
        if self.waiters.get(&i).is_some_and(VecDeque::is_empty) {
            self.waiters.remove(&i);
        }
    }
}

/// The ioserver's process: serve requests until STOP or until the queues
/// are removed.
pub fn serve(fd: RawFd) -> Result<()> {
    // SAFETY: dup of a descriptor the controller handed down for this run.
    let fd = unsafe { libc::dup(fd) };
    if fd < 0 {
        anyhow::bail!(
            "the lock manager's region was not handed down: {}",
            std::io::Error::last_os_error()
        );
    }
    let shm = Shm::attach(fd).context("cannot map the lock manager's region")?;
    let (req_q, rep_q, busy) = shm.server_queues();
    // the queues go with the controller, even one killed with SIGKILL
    msgq::on_parent_death([req_q, rep_q]).context("cannot watch for the controller's end")?;
    let mut table = LockTable::new(shm.files(), shm.locks(), busy);
    shm.set_server_ready();
    loop {
        let text = match msgq::recv::<REQ_BYTES>(req_q, REQ_TYPE) {
            Ok((_, t)) => t,
            Err(e) if msgq::gone(&e) => return Ok(()),
            Err(e) => anyhow::bail!("ioserver: cannot receive a request: {e}"),
        };
        let t = now_ns();
        let r = Request::decode(text);
        if r.op == STOP {
            return Ok(());
        }
        let mut failed = None;
        table.handle(r, &shm, &mut |user, status| {
            if failed.is_none()
                && let Err(e) = msgq::send(rep_q, user as i64 + 1, answer(status), false)
            {
                failed = Some(e);
            }
        });
        match failed {
            Some(e) if msgq::gone(&e) => return Ok(()),
            Some(e) => anyhow::bail!("ioserver: cannot answer a request: {e}"),
            None => {}
        }
        shm.server_add(Counter::ServiceNs, now_ns() - t);
        shm.server_add(Counter::Messages, 1);
    }
}

/// A user's side of Variant 1.
pub struct Client {
    req_q: i32,
    rep_q: i32,
    me: u32,
    sleep: Duration,
}

impl Client {
    pub fn new(shm: &Shm, me: u32, sleep: Duration) -> Client {
        let (req_q, rep_q, _) = shm.server_queues();
        Client {
            req_q,
            rep_q,
            me,
            sleep,
        }
    }

    /// Ask the server for lock `lock` of `file` until granted. Ok(false):
    /// the run stopped meanwhile (the queues are gone: Ctrl-C, the end
    /// delay, or the server died), so the transaction is abandoned.
    /// `requests` counts what was sent (retries after BUSY included).
    pub fn lock(
        &self,
        file: u32,
        lock: u64,
        shm: &Shm,
        requests: &mut u64,
    ) -> Result<bool, String> {
        let req = Request {
            op: LOCK,
            user: self.me,
            file,
            lock,
        };
        loop {
            *requests += 1;
            if let Err(e) = msgq::send(self.req_q, REQ_TYPE, req.encode(), false) {
                return lost(e);
            }
            let status = match msgq::recv::<REP_BYTES>(self.rep_q, self.me as i64 + 1) {
                Ok((_, a)) => u32::from_le_bytes(a[0..4].try_into().expect("4 bytes")),
                Err(e) => return lost(e),
            };
            match status {
                GRANTED => return Ok(true),
                BUSY => {
                    if shm.stop() == shm::NOW {
                        return Ok(false);
                    }
                    shm.sleep_unless_stopped(self.sleep);
                }
                s => return Err(format!("the ioserver answered {s}, which is no answer")),
            }
        }
    }

    /// Give the lock back (no answer is awaited).
    pub fn unlock(&self, file: u32, lock: u64) -> Result<(), String> {
        let req = Request {
            op: UNLOCK,
            user: self.me,
            file,
            lock,
        };
        match msgq::send(self.req_q, REQ_TYPE, req.encode(), false) {
            Ok(()) => Ok(()),
            Err(e) => lost(e).map(|_| ()),
        }
    }
}

fn lost(e: std::io::Error) -> Result<bool, String> {
    if msgq::gone(&e) {
        Ok(false)
    } else {
        Err(format!("a request to the ioserver failed: {e}"))
    }
}

/// How the server process ended.
#[derive(Clone, Copy, Debug, Default)]
struct Exit {
    status: i32,
    user_ns: u64,
    sys_ns: u64,
    /// It ended before the controller asked it to.
    early: bool,
}

/// What the server did, for the reports.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[schemars(rename = "iobenchServer")]
pub struct ServerEnd {
    /// The ioserver's process id.
    pub pid: u32,
    /// The request and reply queues' ids (removed at the end).
    pub queue_ids: [i32; 2],
    /// User CPU time of the server process over its life (wait4(2)), in s.
    pub cpu_user_s: f64,
    /// System CPU time of the server process over its life, in s.
    pub cpu_sys_s: f64,
    /// Lock requests received.
    pub lock_requests: u64,
    /// Lock requests granted at once.
    pub granted_at_once: u64,
    /// Lock requests granted after waiting.
    pub granted_after_wait: u64,
    /// Lock requests answered "busy".
    pub busy: u64,
    /// Unlocks of a lock the user held.
    pub unlocks: u64,
    /// Dead users whose locks it gave back.
    pub releases: u64,
    /// Requests it refused: an unknown operation, a lock that does not
    /// exist, an unlock of a lock the user does not hold.
    pub bad: u64,
    /// Messages received.
    pub messages: u64,
    /// Mean wall time from a request's arrival to its answers, in s.
    pub mean_service_s: f64,
    /// Set when the server ended before the run asked it to.
    pub died: Option<String>,
}

impl ServerEnd {
    pub fn cp_s(&self) -> f64 {
        self.cpu_user_s + self.cpu_sys_s
    }
}

/// The controller's handle on the running server.
pub struct Server {
    pid: i32,
    ids: [i32; 2],
    queues: Queues,
    closing: Arc<AtomicBool>,
    monitor: Option<JoinHandle<Exit>>,
    shm: Arc<Shm>,
}

impl Server {
    /// Make the queues, start the server process and wait until it serves.
    pub fn start(shm: &Arc<Shm>, users: u32, busy: bool) -> Result<Server> {
        // what runs killed with their ioserver left
        msgq::reclaim();
        let mut queues = Queues(Vec::new());
        for _ in 0..2 {
            let id = msgq::create().context(
                "cannot make a System V message queue for the ioserver (see /proc/sys/kernel/msgmni)",
            )?;
            queues.0.push(id);
        }
        let ids = [queues.0[0], queues.0[1]];
        // room for two requests and an answer per user
        msgq::grow(ids[0], 2 * REQ_BYTES * users as usize + msgq::TAG_BYTES);
        msgq::grow(ids[1], 2 * REP_BYTES * users as usize + msgq::TAG_BYTES);
        shm.set_server(ids[0], ids[1], busy);
        let child = crate::runner::procs::spawn_service(SERVICE, shm.fd())
            .context("cannot start the ioserver process")?;
        let pid = child.id() as i32;
        // reaped by the monitor with wait4(2), which gives its CPU time
        drop(child);
        let closing = Arc::new(AtomicBool::new(false));
        let monitor = {
            let (closing, shm) = (Arc::clone(&closing), Arc::clone(shm));
            std::thread::Builder::new()
                .name("ioserver-watch".into())
                .spawn(move || {
                    let mut exit = reap(pid);
                    if !closing.load(Ordering::Acquire) {
                        // it died under the run: nobody may wait for its answers
                        exit.early = true;
                        shm.set_stop(shm::NOW);
                        ids.iter().for_each(|&q| msgq::remove(q));
                    }
                    exit
                })
                .context("cannot start the thread that watches the ioserver")?
        };
        let mut s = Server {
            pid,
            ids,
            queues,
            closing,
            monitor: Some(monitor),
            shm: Arc::clone(shm),
        };
        let t = Instant::now();
        while !shm.server_ready() {
            if s.monitor.as_ref().is_some_and(JoinHandle::is_finished) {
                let end = s.end();
                anyhow::bail!(
                    "the ioserver ended before serving: {}",
                    end.died.unwrap_or_default()
                );
            }
            if t.elapsed() > Duration::from_secs(10) {
                anyhow::bail!("the ioserver did not start within 10 s");
            }
            if crate::runner::signals::interrupted() {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(s)
    }

    /// The run must end at once: remove the queues, which wakes every user
    /// waiting for an answer and ends the server.
    pub fn hurry(&self) {
        self.closing.store(true, Ordering::Release);
        self.ids.iter().for_each(|&q| msgq::remove(q));
    }

    /// User `user` died: the server frees what it held.
    pub fn release(&self, user: u32) {
        let req = Request {
            op: RELEASE,
            user,
            file: 0,
            lock: 0,
        };
        // never block the controller on a full queue for long
        self.send(req, Duration::from_secs(1));
    }

    /// Send `req` to the server, retrying a full queue for up to `limit`.
    fn send(&self, req: Request, limit: Duration) {
        let t = Instant::now();
        while let Err(e) = msgq::send(self.ids[0], REQ_TYPE, req.encode(), true) {
            if e.kind() != std::io::ErrorKind::WouldBlock || t.elapsed() > limit {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The run is over: the server answers what is queued, then ends.
    pub fn finish(mut self) -> ServerEnd {
        self.closing.store(true, Ordering::Release);
        let stop = Request {
            op: STOP,
            user: 0,
            file: 0,
            lock: 0,
        };
        self.send(stop, Duration::from_secs(2));
        self.end()
    }

    /// Wait for the server (2 s, then the queues go, then it is killed),
    /// and read what it counted.
    fn end(&mut self) -> ServerEnd {
        let Some(m) = self.monitor.take() else {
            return ServerEnd::default();
        };
        let t = Instant::now();
        while !m.is_finished() && t.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(1));
        }
        self.queues.remove_all();
        let t = Instant::now();
        while !m.is_finished() && t.elapsed() < Duration::from_secs(1) {
            std::thread::sleep(Duration::from_millis(1));
        }
        if !m.is_finished() {
            // SAFETY: the pid is our unreaped child (the monitor reaps it).
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
        }
        let exit = m.join().unwrap_or_default();
        let c = |k| self.shm.server_count(k);
        let messages = c(Counter::Messages);
        ServerEnd {
            pid: self.pid as u32,
            queue_ids: self.ids,
            cpu_user_s: exit.user_ns as f64 / 1e9,
            cpu_sys_s: exit.sys_ns as f64 / 1e9,
            lock_requests: c(Counter::LockRequests),
            granted_at_once: c(Counter::GrantedAtOnce),
            granted_after_wait: c(Counter::GrantedAfterWait),
            busy: c(Counter::Busy),
            unlocks: c(Counter::Unlocks),
            releases: c(Counter::Releases),
            bad: c(Counter::Bad),
            messages,
            mean_service_s: if messages > 0 {
                c(Counter::ServiceNs) as f64 / 1e9 / messages as f64
            } else {
                0.0
            },
            died: exit.early.then(|| how(exit.status)),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.monitor.is_some() {
            self.closing.store(true, Ordering::Release);
            self.end();
        }
    }
}

/// Wait for child `pid` to end; its status and CPU time.
fn reap(pid: i32) -> Exit {
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: valid pointers; `pid` is our child.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r == pid {
            break;
        }
        if r < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return Exit::default();
    }
    let ns =
        |t: libc::timeval| t.tv_sec.max(0) as u64 * 1_000_000_000 + t.tv_usec.max(0) as u64 * 1000;
    Exit {
        status,
        user_ns: ns(ru.ru_utime),
        sys_ns: ns(ru.ru_stime),
        early: false,
    }
}

/// A wait status in words.
fn how(status: i32) -> String {
    if libc::WIFSIGNALED(status) {
        format!("killed by signal {}", libc::WTERMSIG(status))
    } else {
        format!("exited with status {}", libc::WEXITSTATUS(status))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(
        t: &mut LockTable,
        shm: &Shm,
        op: u32,
        user: u32,
        file: u32,
        lock: u64,
    ) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let r = Request {
            op,
            user,
            file,
            lock,
        };
        assert_eq!(Request::decode(r.encode()), r);
        t.handle(r, shm, &mut |u, s| out.push((u, s)));
        out
    }

    #[test]
    fn waiters_are_granted_in_order_and_counted() {
        let shm = Shm::create(4, 2, 3, false, b"").unwrap();
        let mut t = LockTable::new(2, 3, false);
        assert_eq!(run(&mut t, &shm, LOCK, 0, 1, 2), vec![(0, GRANTED)]);
        assert!(run(&mut t, &shm, LOCK, 1, 1, 2).is_empty());
        assert!(run(&mut t, &shm, LOCK, 2, 1, 2).is_empty());
        assert_eq!(run(&mut t, &shm, LOCK, 3, 0, 2), vec![(3, GRANTED)]);
        let f = shm.file(1);
        assert_eq!(f.active.load(Ordering::Relaxed), 1);
        assert_eq!(run(&mut t, &shm, UNLOCK, 0, 1, 2), vec![(1, GRANTED)]);
        // not the holder: refused and counted
        assert!(run(&mut t, &shm, UNLOCK, 0, 1, 2).is_empty());
        assert_eq!(shm.server_count(Counter::Bad), 1);
        assert_eq!(run(&mut t, &shm, UNLOCK, 1, 1, 2), vec![(2, GRANTED)]);
        assert!(run(&mut t, &shm, UNLOCK, 2, 1, 2).is_empty());
        assert_eq!(f.taken.load(Ordering::Relaxed), 3);
        assert_eq!(f.max_active.load(Ordering::Relaxed), 1);
        assert_eq!(f.active.load(Ordering::Relaxed), 0);
        assert_eq!(shm.server_count(Counter::LockRequests), 4);
        assert_eq!(shm.server_count(Counter::GrantedAtOnce), 2);
        assert_eq!(shm.server_count(Counter::GrantedAfterWait), 2);
        assert_eq!(shm.server_count(Counter::Unlocks), 3);
        // out of range: refused, not a panic
        assert!(run(&mut t, &shm, LOCK, 0, 9, 0).is_empty());
        assert!(run(&mut t, &shm, 77, 0, 0, 0).is_empty());
        assert_eq!(shm.server_count(Counter::Bad), 3);
    }

    #[test]
    fn sleep_mode_answers_busy() {
        let shm = Shm::create(2, 1, 1, false, b"").unwrap();
        let mut t = LockTable::new(1, 1, true);
        assert_eq!(run(&mut t, &shm, LOCK, 0, 0, 0), vec![(0, GRANTED)]);
        assert_eq!(run(&mut t, &shm, LOCK, 1, 0, 0), vec![(1, BUSY)]);
        assert!(run(&mut t, &shm, UNLOCK, 0, 0, 0).is_empty());
        assert_eq!(run(&mut t, &shm, LOCK, 1, 0, 0), vec![(1, GRANTED)]);
        assert_eq!(shm.server_count(Counter::Busy), 1);
    }

    #[test]
    fn a_dead_users_locks_and_waits_are_released() {
        let shm = Shm::create(3, 1, 2, false, b"").unwrap();
        let mut t = LockTable::new(1, 2, false);
        run(&mut t, &shm, LOCK, 0, 0, 0);
        run(&mut t, &shm, LOCK, 0, 0, 1);
        run(&mut t, &shm, LOCK, 1, 0, 0);
        run(&mut t, &shm, LOCK, 2, 0, 0);
        // user 1 dies waiting; user 0 dies holding two locks
        assert!(run(&mut t, &shm, RELEASE, 1, 0, 0).is_empty());
        assert_eq!(run(&mut t, &shm, RELEASE, 0, 0, 0), vec![(2, GRANTED)]);
        assert_eq!(shm.file(0).active.load(Ordering::Relaxed), 1);
        assert_eq!(run(&mut t, &shm, LOCK, 1, 0, 1), vec![(1, GRANTED)]);
    }
}
