//! Workers as processes: the runner's process mode.
//!
//! The parent makes one shared region (an anonymous memory file,
//! memfd_create(2), mapped MAP_SHARED) and one pipe per child, starts N
//! children by executing iogauge again in its hidden `worker` mode with the
//! region's descriptor and the write end of its pipe, and from then on
//! everything goes through the region's atomics, as it would between
//! threads:
//!
//! ```text
//!  parent                               child i (iogauge worker --fd F --index i --report-fd W)
//!  ──────                               ───────
//!  region: header, cells, payload  ──>  map it; build the worker from the
//!  spawn N children, a pipe each         payload (untimed); cell i = READY
//!  wait until all READY (or dead)       wait on the gate (futex)
//!  t0; gate = GO  ────────────────────> run with a Ctx on the region's stop
//!  watch: time, Ctrl-C, deaths,          and hurry flags and cell i's counter
//!    progress from the cells            send the report down the pipe (stats
//!  stop; after the grace: hurry,          as plain data, end time, error,
//!    then kill the rest                   extra); cell i = DONE; exit
//!  merge the reports read from the pipes
//! ```
//!
//! The reports never touch a file system: the one under test may be full or
//! failing, and a worker's figures and its own error must still come back.
//! Stats come back as [`StatsWire`]: histograms bucket by bucket, so a run
//! merged from processes equals the same run merged from threads. CPU time
//! is the parent's own plus its reaped children's (getrusage
//! RUSAGE_CHILDREN). A child never outlives the parent (PR_SET_PDEATHSIG)
//! and ignores Ctrl-C at the terminal: the parent decides when it stops.

use super::{Ctx, Outcome, Progress, StopRule, Watch, Worker, panic_text, signals};
use crate::measure::clock::now_ns;
use crate::measure::{CpuTimes, StatsWire, WorkerStats};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const MAGIC: u64 = u64::from_le_bytes(*b"IOGWORK1");
const HEADER: usize = 4096;
const CELL: usize = 128;
const _: () = assert!(std::mem::size_of::<Header>() <= HEADER);

/// Gate values.
const WAIT: u32 = 0;
const GO: u32 = 1;
const ABORT: u32 = 2;

/// Cell states.
const READY: u32 = 1;
const DONE: u32 = 3;

#[repr(C)]
struct Header {
    magic: u64,
    len: u64,
    workers: u64,
    kind_len: u64,
    payload_len: u64,
    payload_off: u64,
    ramp_ns: u64,
    ops: u64,
    has_ops: u64,
    /// The pace: rate as f64 bits (0: closed loop), arrivals (0 Poisson, 1
    /// uniform), think time in ns (0: none), seed.
    rate_bits: u64,
    arrivals: u64,
    think_ns: u64,
    pace_seed: u64,
    /// The bandwidth caps (total, read, write, trim) as f64 bits (0: none),
    /// and their process (0 linear, 1 Poisson).
    cap_bits: [u64; 4],
    cap_poisson: u64,
    /// The measured phase's length in ns (0: none).
    duration_ns: u64,
    /// `--log-hist`'s interval in ns (0: no interval histograms).
    log_interval_ns: u64,
    /// Where the workers are pinned ([`super::pin::Pinning::to_wire`]).
    pin: super::pin::Wire,
    gate: AtomicU32,
    _pad: u32,
    t0_ns: AtomicU64,
    stop: AtomicBool,
    hurry: AtomicBool,
}

#[repr(C, align(128))]
struct Cell {
    state: AtomicU32,
    progress: super::Published,
}

/// Shared memory for cooperating processes: an anonymous memory file
/// (memfd_create(2)) mapped MAP_SHARED. It lives in RAM and goes with the
/// last process that maps it: there is nothing to clean up. The descriptor
/// is close-on-exec; a child gets it only where its spawn clears the flag.
pub struct SharedMem {
    ptr: *mut u8,
    len: usize,
    fd: OwnedFd,
}

// SAFETY: the mapping lives as long as the SharedMem; what is shared in it
// is the users' business (atomics, or bytes written before any reader).
unsafe impl Send for SharedMem {}
// SAFETY: as above.
unsafe impl Sync for SharedMem {}

impl Drop for SharedMem {
    fn drop(&mut self) {
        // SAFETY: ptr/len come from one successful mmap, unmapped once.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

fn map(fd: RawFd, len: usize) -> io::Result<*mut u8> {
    // SAFETY: a fresh shared mapping of a descriptor we own, len > 0.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(p.cast())
}

impl SharedMem {
    /// `len` zeroed bytes (`len` > 0).
    pub fn create(name: &std::ffi::CStr, len: usize) -> io::Result<SharedMem> {
        // SAFETY: a NUL-terminated name.
        let raw = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a new descriptor nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: a valid descriptor; the length fits off_t.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let ptr = map(fd.as_raw_fd(), len)?;
        Ok(SharedMem { ptr, len, fd })
    }

    /// Map the memory another process made, from an inherited descriptor
    /// (owned from now on).
    pub fn attach(fd: RawFd) -> io::Result<SharedMem> {
        // SAFETY: the parent handed this descriptor down for us to own.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: fstat writes into the zeroed struct.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: a valid descriptor and buffer.
        if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let len = st.st_size as usize;
        if len == 0 {
            return Err(io::Error::other("the shared memory is empty"));
        }
        let ptr = map(fd.as_raw_fd(), len)?;
        Ok(SharedMem { ptr, len, fd })
    }

    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// The shared region of one process run.
pub struct Region {
    mem: SharedMem,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: shared words are atomics; the rest is written once before any
// child exists.
unsafe impl Send for Region {}
// SAFETY: as above.
unsafe impl Sync for Region {}

impl Region {
    fn create(workers: usize, kind: &str, payload: &[u8], rule: &StopRule) -> io::Result<Region> {
        let payload_off = HEADER + workers * CELL;
        let len = payload_off + kind.len() + payload.len();
        let mem = SharedMem::create(c"iogauge-run", len)?;
        let ptr = mem.ptr();
        let r = Region { mem, ptr, len };
        // SAFETY: the header and the bytes after the cells lie inside the
        // fresh zeroed mapping, which nobody else sees yet.
        unsafe {
            let h = &mut *(ptr as *mut Header);
            h.magic = MAGIC;
            h.len = len as u64;
            h.workers = workers as u64;
            h.kind_len = kind.len() as u64;
            h.payload_len = payload.len() as u64;
            h.payload_off = payload_off as u64;
            h.ramp_ns = rule.ramp.unwrap_or_default().as_nanos() as u64;
            h.ops = rule.ops.unwrap_or(0);
            h.has_ops = u64::from(rule.ops.is_some());
            h.rate_bits = rule.pace.rate.map_or(0, f64::to_bits);
            h.arrivals = u64::from(rule.pace.arrivals == super::Arrivals::Uniform);
            h.think_ns = rule.pace.think.map_or(0, |t| t.as_nanos() as u64);
            h.pace_seed = rule.pace.seed;
            let c = rule.pace.cap;
            h.cap_bits = [c.total, c.read, c.write, c.trim].map(|r| r.map_or(0, f64::to_bits));
            h.cap_poisson = u64::from(c.process == super::CapProcess::Poisson);
            h.duration_ns = rule.duration.map_or(0, |d| d.as_nanos() as u64);
            h.log_interval_ns = super::histlog::interval_ns().unwrap_or(0);
            h.pin = rule.pin.to_wire();
            let mut at = ptr.add(payload_off);
            for part in [kind.as_bytes(), payload] {
                std::ptr::copy_nonoverlapping(part.as_ptr(), at, part.len());
                at = at.add(part.len());
            }
        }
        Ok(r)
    }

    fn attach(fd: RawFd) -> io::Result<Region> {
        let mem = SharedMem::attach(fd)?;
        let (ptr, len) = (mem.ptr(), mem.len());
        if len < HEADER {
            return Err(io::Error::other("the run's shared region is too small"));
        }
        let r = Region { mem, ptr, len };
        let h = r.header();
        if h.magic != MAGIC || h.len as usize != len {
            return Err(io::Error::other("not a shared region of an iogauge run"));
        }
        Ok(r)
    }

    fn header(&self) -> &Header {
        // SAFETY: the header is at the start of the live mapping.
        unsafe { &*(self.ptr as *const Header) }
    }

    fn workers(&self) -> usize {
        self.header().workers as usize
    }

    fn cell(&self, i: usize) -> &Cell {
        assert!(i < self.workers());
        // SAFETY: in bounds (checked), 128-aligned, zero is a valid Cell.
        unsafe { &*(self.ptr.add(HEADER + i * CELL) as *const Cell) }
    }

    fn bytes(&self, skip: u64, len: u64) -> &[u8] {
        let off = self.header().payload_off + skip;
        assert!((off + len) as usize <= self.len);
        // SAFETY: in bounds (checked); written before any child existed.
        unsafe { std::slice::from_raw_parts(self.ptr.add(off as usize), len as usize) }
    }

    fn kind(&self) -> &str {
        std::str::from_utf8(self.bytes(0, self.header().kind_len)).unwrap_or("")
    }

    fn payload(&self) -> &[u8] {
        let h = self.header();
        self.bytes(h.kind_len, h.payload_len)
    }

    fn set_gate(&self, v: u32) {
        self.header().gate.store(v, Ordering::Release);
        futex_wake(&self.header().gate);
    }
}

/// Sleep until `word` is no longer `expected`, or `timeout` passes.
pub(crate) fn futex_wait(word: &AtomicU32, expected: u32, timeout: Duration) {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: FUTEX_WAIT on a live, aligned u32 with a valid timespec; it
    // only sleeps (shared, not PRIVATE: the word may be in a shared mapping).
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            &ts as *const libc::timespec,
        );
    }
}

/// Wake everyone sleeping on `word`.
pub(crate) fn futex_wake(word: &AtomicU32) {
    // SAFETY: FUTEX_WAKE on a live, aligned u32 only wakes sleepers.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE, i32::MAX);
    }
}

/// What the parent asks of a process run.
pub struct ProcessSpec<'a> {
    /// Which worker the children build (a name the `worker` command knows).
    pub kind: &'a str,
    /// What each child builds its worker from (the suite's plan, as bytes).
    pub payload: &'a [u8],
    pub workers: usize,
    /// Further descriptors the children inherit (a suite's own shared memory).
    pub inherit: &'a [RawFd],
}

/// What a child sends the parent down its pipe when it ends.
#[derive(Serialize, Deserialize)]
struct Report {
    stats: StatsWire,
    /// When its measured phase ended (clock ns), if it reached it.
    end_ns: Option<u64>,
    error: Option<String>,
    extra: serde_json::Value,
    /// How its engine was set up ([`super::Worker::engine_mode`]).
    #[serde(default)]
    engine_mode: Option<String>,
    /// Where it was pinned, as it read it back.
    #[serde(default)]
    placed: Option<crate::measure::placed::Placed>,
}

/// A pipe, both ends close-on-exec: (read end, write end).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    Ok(rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?)
}

/// Read every child's report from its pipe, all pipes at once (poll(2)),
/// so that no child blocks on a full pipe while the parent watches the run.
/// A pipe ends when its child closes it or dies; the thread returns each
/// pipe's bytes once all have ended.
fn collect(pipes: Vec<OwnedFd>) -> std::thread::JoinHandle<Vec<Vec<u8>>> {
    std::thread::spawn(move || {
        let mut got = vec![Vec::new(); pipes.len()];
        let mut open: Vec<Option<std::fs::File>> = pipes
            .into_iter()
            .map(|fd| Some(std::fs::File::from(fd)))
            .collect();
        let mut chunk = vec![0u8; 64 << 10];
        loop {
            let (mut polled, mut which) = (Vec::new(), Vec::new());
            for (i, f) in open.iter().enumerate() {
                if let Some(f) = f {
                    polled.push(libc::pollfd {
                        fd: f.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    });
                    which.push(i);
                }
            }
            if polled.is_empty() {
                return got;
            }
            // SAFETY: a valid array of pollfd of the length given.
            let r = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, -1) };
            if r < 0 {
                if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return got;
            }
            for (p, &i) in polled.iter().zip(&which) {
                if p.revents == 0 {
                    continue;
                }
                let f = open[i].as_mut().expect("polled pipes are open");
                match io::Read::read(f, &mut chunk) {
                    Ok(0) => open[i] = None,
                    Ok(k) => got[i].extend_from_slice(&chunk[..k]),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => open[i] = None,
                }
            }
        }
    })
}

/// Children, killed and reaped when dropped, however the run ends.
struct Children(Vec<Option<Child>>);

impl Drop for Children {
    fn drop(&mut self) {
        for c in self.0.iter_mut().flatten() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn spawn(region: &Region, i: usize, inherit: &[RawFd], report: RawFd) -> io::Result<Child> {
    let fd = region.mem.fd();
    let keep: Vec<RawFd> = [fd, report]
        .into_iter()
        .chain(inherit.iter().copied())
        .collect();
    let mut cmd = own_child(keep)?;
    cmd.arg("worker")
        .arg("--fd")
        .arg(fd.to_string())
        .arg("--index")
        .arg(i.to_string())
        .arg("--report-fd")
        .arg(report.to_string());
    cmd.spawn()
}

/// Start a service of a run beside its workers (IOBENCH's ioserver):
/// `iogauge worker --service NAME --fd FD`, which inherits `fd`, dies
/// with this process and ignores Ctrl-C at the terminal, as workers do.
/// The caller reaps it.
pub fn spawn_service(name: &str, fd: RawFd) -> io::Result<Child> {
    let mut cmd = own_child(vec![fd])?;
    cmd.arg("worker")
        .arg("--service")
        .arg(name)
        .arg("--fd")
        .arg(fd.to_string());
    cmd.spawn()
}

/// iogauge run again as a child that inherits `keep`, has no stdin or
/// stdout, shares stderr, and never outlives this process.
fn own_child(keep: Vec<RawFd>) -> io::Result<Command> {
    let exe = std::env::current_exe()?;
    let parent = std::process::id() as libc::pid_t;
    let mut cmd = Command::new(exe);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    // SAFETY: only async-signal-safe calls (fcntl, prctl, getppid) between
    // fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            for &d in &keep {
                let flags = libc::fcntl(d, libc::F_GETFD);
                if flags < 0 || libc::fcntl(d, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            // a worker never outlives the run
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                return Err(io::Error::other("the parent is gone"));
            }
            Ok(())
        });
    }
    Ok(cmd)
}

/// A child's signals: Ctrl-C at the terminal reaches the whole group, and
/// the parent decides when the run stops.
pub fn ignore_terminal_signals() {
    // SAFETY: setting dispositions to SIG_IGN / SIG_DFL has no preconditions.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
    }
}

/// Run `spec.workers` workers as processes under `rule`.
///
/// Errors before the start (no region, a child that cannot start) are
/// returned; anything after is in the [`Outcome`]: a worker's error or
/// death in `failures`, the first of them in `error`.
pub fn run(
    rule: StopRule,
    spec: &ProcessSpec,
    progress: &dyn Progress,
    watch: &dyn Watch,
) -> Result<Outcome> {
    let n = spec.workers;
    let region = Region::create(n, spec.kind, spec.payload, &rule)
        .context("cannot make the shared region for the worker processes")?;
    let h = region.header();
    let Some((mut kids, pipes)) = spawn_all(&region, spec)? else {
        return Ok(interrupted_before_start(n));
    };
    let mail = collect(pipes);
    let mut ended = Ended {
        status: vec![None; n],
        killed: vec![None; n],
    };
    if !all_ready(&region, &mut kids, &mut ended.status, watch) {
        return Ok(interrupted_before_start(n));
    }
    let cpu0 = CpuTimes::now();
    let kids0 = CpuTimes::children();
    let machine0 = crate::measure::machine::Snapshot::now();
    let began = now_ns();
    h.t0_ns.store(began, Ordering::Release);
    region.set_gate(GO);
    let t0 = began + h.ramp_ns;
    super::set_last_t0(t0);
    oversee(&region, &rule, t0, &mut kids, &mut ended, progress, watch);
    let cpu = {
        let own = CpuTimes::now().since(&cpu0);
        let kids = CpuTimes::children().since(&kids0);
        CpuTimes {
            user: own.user + kids.user,
            sys: own.sys + kids.sys,
            max_rss_kib: own.max_rss_kib.max(kids.max_rss_kib),
            ctx_switches: own.ctx_switches + kids.ctx_switches,
            major_faults: own.major_faults + kids.major_faults,
            minor_faults: own.minor_faults + kids.minor_faults,
        }
    };
    let machine = machine0.end(&cpu);
    // every child has ended or was killed: every pipe is closed
    let reports = mail.join().map_err(|_| {
        anyhow::anyhow!("internal error: the reader of the workers' reports panicked")
    })?;
    let mut o = merge_reports(&reports, &ended, t0, cpu)?;
    o.machine = machine;
    Ok(o)
}

/// How each child ended: its exit status once reaped, and why the parent
/// killed it, if it did.
struct Ended {
    status: Vec<Option<std::process::ExitStatus>>,
    killed: Vec<Option<String>>,
}

impl Ended {
    /// What became of child `i`, which sent no report.
    fn died(&self, i: usize) -> String {
        let how = match self.status[i] {
            Some(st) => match st.signal() {
                Some(sig) => format!("killed by signal {sig}{}", signal_name(sig)),
                None => format!("exited with status {}", st.code().unwrap_or(-1)),
            },
            None => "did not end".to_string(),
        };
        self.killed[i].clone().unwrap_or(how)
    }
}

/// What a signal that ends a process is, for the message: " (SIGKILL:
/// ...)" and the like, or nothing for others.
fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGKILL => " (SIGKILL: by another process or the out-of-memory killer)",
        libc::SIGTERM => " (SIGTERM)",
        libc::SIGSEGV => " (SIGSEGV: a crash)",
        libc::SIGBUS => " (SIGBUS: a mapped file could not be read or written)",
        libc::SIGABRT => " (SIGABRT: it aborted)",
        libc::SIGILL => " (SIGILL: an instruction this CPU lacks)",
        libc::SIGFPE => " (SIGFPE)",
        libc::SIGHUP => " (SIGHUP)",
        libc::SIGINT => " (SIGINT)",
        libc::SIGPIPE => " (SIGPIPE)",
        _ => "",
    }
}

/// Start the children, a pipe each: the children and the read ends, or
/// `None` when Ctrl-C came first (the gate then says abort).
fn spawn_all(region: &Region, spec: &ProcessSpec) -> Result<Option<(Children, Vec<OwnedFd>)>> {
    let n = spec.workers;
    let mut kids = Children(Vec::with_capacity(n));
    let mut pipes = Vec::with_capacity(n);
    for i in 0..n {
        if signals::interrupted() {
            region.set_gate(ABORT);
            return Ok(None);
        }
        let started = pipe().and_then(|(read, write)| {
            // the child holds the only write end: its death ends the pipe
            spawn(region, i, spec.inherit, write.as_raw_fd()).map(|c| (c, read))
        });
        match started {
            Ok((c, read)) => {
                kids.0.push(Some(c));
                pipes.push(read);
            }
            Err(e) => {
                region.set_gate(ABORT);
                anyhow::bail!(
                    "cannot start worker process {i} of {n}: {e} (try fewer workers, or threads)"
                );
            }
        }
    }
    Ok(Some((kids, pipes)))
}

/// Wait until every child is ready (or already gone); false when Ctrl-C
/// came first (the gate then says abort).
fn all_ready(
    region: &Region,
    kids: &mut Children,
    status: &mut [Option<std::process::ExitStatus>],
    watch: &dyn Watch,
) -> bool {
    let n = region.workers();
    loop {
        if signals::interrupted() {
            region.set_gate(ABORT);
            return false;
        }
        reap(kids, status, watch);
        let settled = (0..n)
            .filter(|&i| {
                status[i].is_some() || region.cell(i).state.load(Ordering::Acquire) >= READY
            })
            .count();
        if settled == n {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Watch the run from its start until every child has ended: stop it at
/// the deadline (`t0`, after the ramp, plus the duration) or on Ctrl-C,
/// hurry it after the grace, and kill what still runs half a second after
/// that; show progress from the cells meanwhile.
fn oversee(
    region: &Region,
    rule: &StopRule,
    t0: u64,
    kids: &mut Children,
    ended: &mut Ended,
    progress: &dyn Progress,
    watch: &dyn Watch,
) {
    let (n, h) = (region.workers(), region.header());
    let deadline = rule.duration.map(|d| t0 + d.as_nanos() as u64);
    let mut stopped: Option<Instant> = None;
    let mut hurried: Option<Instant> = None;
    loop {
        std::thread::sleep(Duration::from_millis(10));
        let now = now_ns();
        reap(kids, &mut ended.status, watch);
        if ended.status.iter().all(Option::is_some) {
            break;
        }
        let done = super::total((0..n).map(|i| &region.cell(i).progress));
        // a child that died (killed, crashed) stops the others at once, as
        // a worker's error does: the run has failed
        let died = ended.status.iter().flatten().any(|st| !st.success());
        if died
            || signals::interrupted()
            || deadline.is_some_and(|d| now >= d)
            || watch.poll_done(done)
        {
            h.stop.store(true, Ordering::Relaxed);
        }
        if h.stop.load(Ordering::Relaxed) {
            let at = *stopped.get_or_insert_with(Instant::now);
            if hurried.is_none() && (signals::interrupted() || at.elapsed() >= rule.grace()) {
                hurried = Some(Instant::now());
                h.hurry.store(true, Ordering::Relaxed);
                watch.hurry();
            }
            // hurried and still not done after half a second: killed
            if hurried.is_some_and(|t| t.elapsed() >= Duration::from_millis(500)) {
                kill_the_rest(kids, ended, watch);
                break;
            }
        }
        progress.tick(done.ops, Duration::from_nanos(now.saturating_sub(t0)));
    }
}

/// Kill and reap every child still running, noting why.
fn kill_the_rest(kids: &mut Children, ended: &mut Ended, watch: &dyn Watch) {
    for (i, slot) in kids.0.iter_mut().enumerate() {
        if ended.status[i].is_none()
            && let Some(c) = slot.as_mut()
        {
            let _ = c.kill();
            if let Ok(st) = c.wait() {
                ended.status[i] = Some(st);
            }
            *slot = None;
            ended.killed[i] = Some("did not stop after the run; killed".into());
            watch.dead(i);
        }
    }
}

/// The outcome from the children's `reports` (one a child, in order; a
/// child that sent none failed as `ended` says), timed from `t0`.
fn merge_reports(reports: &[Vec<u8>], ended: &Ended, t0: u64, cpu: CpuTimes) -> Result<Outcome> {
    let n = reports.len();
    let mut all = Vec::with_capacity(n);
    let mut stats = WorkerStats::default();
    let mut per_worker = Vec::with_capacity(n);
    let (mut extras, mut failures) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut modes = Vec::with_capacity(n);
    let mut pinned = Vec::new();
    let mut end = t0;
    for (i, bytes) in reports.iter().enumerate() {
        let rep: Option<Report> = serde_json::from_slice(bytes).ok();
        let (s, failure, extra, mode) = match rep {
            Some(r) => {
                let s = WorkerStats::from_wire(&r.stats)
                    .map_err(|e| anyhow::anyhow!("worker process {i} sent damaged stats: {e}"))?;
                if let Some(e) = r.end_ns {
                    end = end.max(e);
                }
                pinned.extend(r.placed);
                (s, r.error, r.extra, r.engine_mode)
            }
            None => (
                WorkerStats::default(),
                Some(match n {
                    1 => ended.died(i),
                    _ => format!("{}; the other workers were stopped", ended.died(i)),
                }),
                serde_json::Value::Null,
                None,
            ),
        };
        all.push(s);
        failures.push(failure);
        extras.push(extra);
        modes.push(mode);
    }
    let elapsed = Duration::from_nanos(end.saturating_sub(t0));
    super::histlog::collect(all.iter_mut(), t0, elapsed);
    for s in all {
        if n == 1 {
            stats = s;
        } else {
            stats.merge(&s);
            per_worker.push(s);
        }
    }
    let error = failures.iter().enumerate().find_map(|(i, f)| {
        f.as_ref()
            .map(|e| anyhow::anyhow!("worker process {i}: {e}"))
    });
    let mut o = super::outcome(stats, per_worker, n, elapsed, cpu, error, extras, failures);
    o.engine_modes = modes;
    o.pinned = pinned;
    Ok(o)
}

fn interrupted_before_start(n: usize) -> Outcome {
    Outcome {
        stats: WorkerStats::default(),
        per_worker: Vec::new(),
        workers: n,
        worker_ns: 0,
        elapsed: Duration::ZERO,
        cpu: CpuTimes::default(),
        complete: false,
        interrupted: true,
        error: None,
        extras: vec![serde_json::Value::Null; n],
        failures: vec![None; n],
        engine_modes: Vec::new(),
        pinned: Vec::new(),
        machine: Default::default(),
    }
}

/// Reap exited children; tell `watch` of those that died without success.
fn reap(kids: &mut Children, status: &mut [Option<std::process::ExitStatus>], watch: &dyn Watch) {
    for (i, slot) in kids.0.iter_mut().enumerate() {
        if let Some(c) = slot
            && let Ok(Some(st)) = c.try_wait()
        {
            status[i] = Some(st);
            *slot = None;
            if !st.success() {
                watch.dead(i);
            }
        }
    }
}

/// How a child builds its worker: from the run's kind, payload and the
/// worker's index.
pub type Build = dyn Fn(&str, &[u8], usize) -> Result<Box<dyn Worker>>;

/// The child's side: map the region from `fd`, build worker `index` with
/// `build(kind, payload, index)`, run it behind the gate, and send the
/// report down the pipe `report` (its write end, owned from now on): its
/// stats, and its own error if it failed, also one that came before the
/// run. Returns whether the worker completed without error.
pub fn child(fd: RawFd, report: RawFd, index: usize, build: &Build) -> Result<bool> {
    ignore_terminal_signals();
    // SAFETY: the parent handed down this write end for us to own.
    let report = unsafe { OwnedFd::from_raw_fd(report) };
    // what the worker starts (a shell, a metering command) must not hold
    // the pipe open after this process ends
    // SAFETY: F_SETFD on a descriptor we own.
    unsafe { libc::fcntl(report.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
    let (rep, ok) = match work(fd, index, build) {
        Ok(Some(done)) => done,
        // the run was called off before the gate opened
        Ok(None) => return Ok(false),
        Err(e) => (Report::failed(&e), false),
    };
    let mut pipe = std::fs::File::from(report);
    let bytes = serde_json::to_vec(&rep).context("cannot encode the worker's report")?;
    io::Write::write_all(&mut pipe, &bytes)
        .context("cannot send the worker's report to the parent")?;
    drop(pipe);
    Ok(ok)
}

impl Report {
    /// The report of a worker that failed before it measured anything.
    fn failed(e: &anyhow::Error) -> Report {
        Report {
            stats: WorkerStats::default().to_wire(),
            end_ns: None,
            error: Some(crate::error::cause(e)),
            extra: serde_json::Value::Null,
            engine_mode: None,
            placed: None,
        }
    }
}

/// Worker `index` of the run in the region `fd`, built and run: its report
/// and whether it completed; `None` when the run was called off first.
fn work(fd: RawFd, index: usize, build: &Build) -> Result<Option<(Report, bool)>> {
    let region = Region::attach(fd).context("cannot map the run's shared region")?;
    let n = region.workers();
    if index >= n {
        anyhow::bail!("worker {index} is not in this run of {n} workers");
    }
    let h = region.header();
    let cell = region.cell(index);
    // DONE once the report is on its way (the caller sends it next)
    let done = |rep: Report, ok: bool| {
        cell.state.store(DONE, Ordering::Release);
        Ok(Some((rep, ok)))
    };
    // pinned before it is built: its buffers go where its memory policy says
    let placed = match super::pin_worker(&super::pin::Pinning::from_wire(&h.pin), index) {
        Ok(p) => p,
        Err(e) => return done(Report::failed(&e), false),
    };
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        build(region.kind(), region.payload(), index)
    }))
    .unwrap_or_else(|p| Err(anyhow::anyhow!("internal error: {}", panic_text(&*p))));
    let mut w = match built {
        Ok(w) => w,
        Err(e) => return done(Report::failed(&e), false),
    };
    // a worker placed on its own is pinned again, now that it is built
    let placed = match w.pinning() {
        Some(own) => match super::pin_worker(&own, index) {
            Ok(p) => p,
            Err(e) => return done(Report::failed(&e), false),
        },
        None => placed,
    };
    let stats = WorkerStats::new(w.kinds());
    cell.state.store(READY, Ordering::Release);
    loop {
        match h.gate.load(Ordering::Acquire) {
            WAIT => futex_wait(&h.gate, WAIT, Duration::from_millis(100)),
            GO => break,
            _ => return Ok(None),
        }
    }
    let began = h.t0_ns.load(Ordering::Acquire);
    let rule = StopRule {
        ops: (h.has_ops != 0).then_some(h.ops),
        ..Default::default()
    };
    let pace = super::Pace {
        rate: (h.rate_bits != 0).then(|| f64::from_bits(h.rate_bits)),
        arrivals: if h.arrivals == 1 {
            super::Arrivals::Uniform
        } else {
            super::Arrivals::Poisson
        },
        think: (h.think_ns != 0).then(|| Duration::from_nanos(h.think_ns)),
        seed: h.pace_seed,
        cap: {
            let [total, read, write, trim] =
                h.cap_bits.map(|b| (b != 0).then(|| f64::from_bits(b)));
            super::ByteCap {
                total,
                read,
                write,
                trim,
                process: if h.cap_poisson == 1 {
                    super::CapProcess::Poisson
                } else {
                    super::CapProcess::Linear
                },
            }
        },
    };
    let mut ctx = Ctx::new(
        index,
        stats,
        (&h.stop, &h.hurry),
        &cell.progress,
        began,
        h.ramp_ns,
        rule.budget(index, n),
        (&pace, index, n),
        (h.duration_ns != 0).then(|| Duration::from_nanos(h.duration_ns)),
    );
    if h.log_interval_ns != 0 {
        ctx.stats.log_intervals(h.log_interval_ns);
    }
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.run(&mut ctx)))
        .unwrap_or_else(|p| Err(anyhow::anyhow!("internal error: {}", panic_text(&*p))));
    let end = now_ns();
    ctx.settle_arrivals();
    if r.is_err() {
        h.stop.store(true, Ordering::Relaxed);
    }
    let extra = w.finish();
    let ok = r.is_ok();
    done(
        Report {
            stats: ctx.stats.to_wire(),
            end_ns: ctx.measured_end(end),
            error: r.err().map(|e| crate::error::cause(&e)),
            extra,
            engine_mode: w.engine_mode(),
            placed,
        },
        ok,
    )
}
