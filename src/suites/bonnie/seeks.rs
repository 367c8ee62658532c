//! Random seeks: seekers take tickets from one shared pipe, each ticket
//! one seek and read of a chunk; every tenth also dirties the chunk and
//! writes it back.
//!
//! Bonnie: 3 processes; the parent writes 4000 one-byte tickets of 1, then
//! one 0 per seeker; each seeker draws its chunk from its own `random()`
//! and rewrites its 1st, 11th, 21st… chunk. bonnie++: 5 threads; the
//! parent draws every ticket from the run's generator before the start (a
//! ticket divisible by ten is sent negative: an update), then one
//! `INT_MIN` per seeker. Both measure from the first seeker's start to the
//! last one's end; the CPU is each seeker's own, summed.
//!
//! How the tickets flow is part of what a seek costs in the page cache, so
//! iogauge does what both programs do:
//! - the pipe is the system's default (64 KiB); bonnie++'s 4-byte tickets
//!   overflow it from 16384 seeks on, and the parent's one write(2) of
//!   them all then sleeps in the kernel while the seekers read them 4
//!   bytes (Bonnie: 1 byte) at a time, each read taking the pipe's lock
//!   and waking the writer when it finds the pipe full;
//! - the seekers are already asleep in their first read when the tickets
//!   come (the parent waits 3 s, Bonnie 5 s, before writing): the write
//!   wakes one, which wakes the next, and so on, each wake-up a "sync" one
//!   that the scheduler answers by running the woken seeker on the waker's
//!   CPU; so the seekers start crowded on one CPU until the scheduler
//!   spreads them. iogauge's feeder waits until every seeker has said it
//!   is about to read (a byte on a second pipe), lets them fall asleep,
//!   then writes;
//! - a seeker's time starts when it has its first ticket and ends after
//!   its close; the test lasts from the first start to the last end;
//! - bonnie++'s parent then syncs and closes its own descriptor of the
//!   file (2.00a's `Close()`) while the seekers still run; iogauge's feeder
//!   does too, and that sync is one of the test's fsync calls;
//! - each bonnie++ seeker removes the file once it has reported (its
//!   object's destructor unlinks its name), so unless every seeker has
//!   closed the file before the first one removes it, the last one's close
//!   frees the whole file, its page cache and its blocks, inside that
//!   seeker's time: with the file in the page cache, a fixed cost of a
//!   good part of a second (0.45 s for 1 GiB here) in the seek figure.

use super::io::{Copies, make_io};
use super::{Flavor, IO_KINDS, Measured, Options, Rand, max_latency, measured};
use crate::engine::{Choice, FileId, OpenHow, Req};
use crate::measure::clock::now_ns;
use crate::measure::{CpuTimes, OpKind};
use crate::runner::{self, Ctx, Io, Placement, Tx, Worker, Workers};
use crate::workload::bsd_random::BsdRandom;
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::ops::Range;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The worker kind of Bonnie's seeker processes.
pub const PROCESS_KIND: &str = Seekers::KIND;

/// bonnie++'s end-of-work ticket.
const END: i32 = i32::MIN;

/// What every seeker needs, as it crosses to a seeker process.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SeekPlan {
    flavor: Flavor,
    engine: Choice,
    chunk: u32,
    chunks: u64,
    sync_writes: bool,
    seekers: u32,
    seed: u32,
    /// Each copy's file, the read end of its ticket pipe, and the write
    /// end of the pipe on which its seekers say they are about to read.
    paths: Vec<PathBuf>,
    fds: Vec<RawFd>,
    ready: Vec<RawFd>,
}

/// The seekers of every copy. They share no memory: each opens the file
/// and reads its tickets from its copy's pipe, whose descriptors the plan
/// names (a thread's are the parent's, a process inherits them).
pub struct Seekers;

impl Workers for Seekers {
    const KIND: &'static str = "bonnie-seek";
    type Payload = SeekPlan;
    type Worker = SeekWorker;
    fn workers(plan: &SeekPlan, range: Range<usize>) -> Result<Vec<SeekWorker>> {
        range.map(|i| SeekWorker::new(plan, i)).collect()
    }
}

/// A seeker: its engine, and the rest apart so that a seek can borrow
/// both.
pub struct SeekWorker {
    engine: Io,
    seeker: Seeker,
}

/// A seeker's file, its tickets and what it measured.
struct Seeker {
    file: FileId,
    path: PathBuf,
    tickets: RawFd,
    ready: RawFd,
    flavor: Flavor,
    chunk: usize,
    chunks: u64,
    sync_writes: bool,
    /// Bonnie's seeker's own `random()`.
    rng: BsdRandom,
    done: u64,
    latency: u64,
    cpu: CpuTimes,
    /// When it had its first ticket, and when it had closed the file
    /// (clock ns).
    start_ns: u64,
    end_ns: u64,
}

impl SeekWorker {
    /// Seeker `i` (of all copies): open the file (untimed).
    fn new(p: &SeekPlan, i: usize) -> Result<SeekWorker> {
        let copy = i / p.seekers as usize;
        // never O_DIRECT: the seekers open the file as it is (bonnie++
        // 2.00a's -D is for the opens that create it)
        let mut engine = make_io(p.engine, false, p.chunk as usize)?;
        let path = p.paths[copy].clone();
        let file = engine
            .open(&path, OpenHow::READ_WRITE)
            .context("random seeks: cannot open")?;
        let seeker = Seeker {
            file,
            path,
            tickets: p.fds[copy],
            ready: p.ready[copy],
            flavor: p.flavor,
            chunk: p.chunk as usize,
            chunks: p.chunks,
            sync_writes: p.sync_writes,
            // Bonnie seeds each seeker with its pid; iogauge with the run's
            // seed plus the seeker's number, so a run can be repeated
            rng: BsdRandom::new(p.seed.wrapping_add(i as u32)),
            done: 0,
            latency: 0,
            cpu: CpuTimes::default(),
            start_ns: 0,
            end_ns: 0,
        };
        Ok(SeekWorker { engine, seeker })
    }
}

impl Seeker {
    /// Tell the feeder this seeker is about to wait for its first ticket.
    fn say_ready(&self) {
        // SAFETY: the ready pipe's write end stays open for the whole run
        // (the parent keeps it, and a process inherited it).
        let fd = unsafe { BorrowedFd::borrow_raw(self.ready) };
        // a lost byte only makes the feeder wait its time out
        let _ = rustix::io::write(fd, &[1]);
    }

    /// The next ticket: the chunk and whether to update it; `None` at the end.
    fn ticket(&mut self) -> Result<Option<(u64, bool)>> {
        let want = match self.flavor {
            Flavor::Bonnie => 1,
            Flavor::BonniePlusPlus => 4,
        };
        let mut b = [0u8; 4];
        let mut got = 0;
        // SAFETY: the pipe's read end stays open for the whole run (the
        // parent keeps it, and a process inherited it).
        let fd = unsafe { BorrowedFd::borrow_raw(self.tickets) };
        while got < want {
            match rustix::io::read(fd, &mut b[got..want]) {
                Ok(0) => bail!("random seeks: Can't read ticket (the pipe closed)"),
                Ok(n) => got += n,
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => bail!("random seeks: Can't read ticket: {e}"),
            }
        }
        Ok(match self.flavor {
            Flavor::Bonnie => {
                if b[0] == 0 {
                    None
                } else {
                    let chunk = u64::from(self.rng.next()) % self.chunks;
                    let update = self.done.is_multiple_of(10);
                    Some((chunk, update))
                }
            }
            Flavor::BonniePlusPlus => {
                let t = i32::from_ne_bytes(b);
                if t == END {
                    None
                } else {
                    Some((u64::from(t.unsigned_abs()) % self.chunks, t < 0))
                }
            }
        })
    }

    fn io(&self, tx: &mut Tx, req: Req) -> Result<u64> {
        let c = tx.exec_unrecorded(req).with_context(|| {
            format!(
                "random seeks: {} {}",
                match req.kind {
                    OpKind::Read => "reading",
                    OpKind::Fsync => "syncing (fsync)",
                    _ => "writing",
                },
                self.path.display()
            )
        })?;
        tx.ctx.record(&c);
        Ok(c.bytes)
    }

    fn seek(&mut self, tx: &mut Tx, chunk_no: u64, update: bool) -> Result<()> {
        let off = chunk_no * self.chunk as u64;
        let got = self.io(tx, Req::read(self.file, off, self.chunk as u32))? as usize;
        if self.flavor.is_pp() && got != self.chunk {
            bail!("random seeks: Can't read a full block, only got {got} bytes");
        }
        if !update {
            return Ok(());
        }
        let buf = tx.io.buf_mut(0);
        match self.flavor {
            Flavor::Bonnie => {
                // one random int of the block, never the first or last
                let ints = (got / 4).max(3);
                let k = (self.rng.next() as usize % (ints - 2)) + 1;
                let w = &mut buf[k * 4..k * 4 + 4];
                let v = i32::from_ne_bytes([w[0], w[1], w[2], w[3]]).wrapping_sub(1);
                w.copy_from_slice(&v.to_ne_bytes());
            }
            Flavor::BonniePlusPlus => {
                let k = (chunk_no % self.chunk as u64) as usize;
                buf[k] = buf[k].wrapping_sub(1);
            }
        }
        let len = if self.flavor.is_pp() { self.chunk } else { got };
        self.io(tx, Req::write(self.file, off, len as u32))?;
        if self.sync_writes {
            self.io(tx, Req::fsync(self.file))?;
        }
        Ok(())
    }
}

impl Worker for SeekWorker {
    fn kinds(&self) -> &[OpKind] {
        IO_KINDS
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let SeekWorker { engine, seeker: s } = self;
        s.say_ready();
        let mut next = s.ticket()?;
        // the seeker's time starts with its first ticket, as in both programs
        let c0 = CpuTimes::thread();
        s.start_ns = now_ns();
        engine.transact(ctx, &mut |tx: &mut Tx| {
            let Some((chunk, update)) = next else {
                return Ok(false);
            };
            let t = now_ns();
            s.seek(tx, chunk, update)?;
            s.latency = s.latency.max(now_ns() - t);
            s.done += 1;
            next = s.ticket()?;
            Ok(true)
        })?;
        if s.flavor.is_pp() {
            s.io(&mut Tx { io: engine, ctx }, Req::fsync(s.file))?;
        }
        engine
            .close(s.file)
            .with_context(|| format!("random seeks: closing {}", s.path.display()))?;
        s.end_ns = now_ns();
        s.cpu = CpuTimes::thread().since(&c0);
        if s.flavor.is_pp() {
            // bonnie++ 2.00a's seeker object removes the file when it is
            // done (its destructor), so the seeker that closes the file
            // last frees it, page cache and blocks, inside its time
            let _ = engine.unlink(&s.path);
        }
        Ok(())
    }

    fn finish(&mut self) -> serde_json::Value {
        let s = &self.seeker;
        serde_json::to_value(SeekerRecord {
            latency_ns: s.latency,
            seeks: s.done,
            cpu_user_ns: s.cpu.user.as_nanos() as u64,
            cpu_sys_ns: s.cpu.sys.as_nanos() as u64,
            start_ns: s.start_ns,
            end_ns: s.end_ns,
        })
        .unwrap_or_default()
    }
}

/// What a seeker hands back: its slowest seek, its seeks, its own CPU
/// and when it began and ended (clock ns; 0 when it never got there).
#[derive(Serialize, Deserialize)]
struct SeekerRecord {
    latency_ns: u64,
    seeks: u64,
    cpu_user_ns: u64,
    cpu_sys_ns: u64,
    start_ns: u64,
    end_ns: u64,
}

/// The records of the seekers that handed one back.
fn seekers(o: &runner::Outcome) -> Vec<SeekerRecord> {
    o.records::<SeekerRecord>().into_iter().flatten().collect()
}

/// The seekers' CPU: each one's own, summed.
fn seekers_cpu(o: &runner::Outcome) -> CpuTimes {
    let s = seekers(o);
    CpuTimes {
        user: Duration::from_nanos(s.iter().map(|r| r.cpu_user_ns).sum()),
        sys: Duration::from_nanos(s.iter().map(|r| r.cpu_sys_ns).sum()),
        ..Default::default()
    }
}

/// The seekers' time: from the first one's first ticket to the last one's
/// close; `None` unless every seeker got that far.
fn seekers_window(o: &runner::Outcome, n: usize) -> Option<Duration> {
    let s = seekers(o);
    let starts: Vec<u64> = s.iter().map(|r| r.start_ns).filter(|&t| t > 0).collect();
    let ends: Vec<u64> = s.iter().map(|r| r.end_ns).filter(|&t| t > 0).collect();
    if starts.len() != n || ends.len() != n {
        return None;
    }
    let first = *starts.iter().min()?;
    let last = *ends.iter().max()?;
    Some(Duration::from_nanos(last.saturating_sub(first)))
}

/// The seeks the seekers did.
fn seeks_done(o: &runner::Outcome) -> u64 {
    seekers(o).iter().map(|r| r.seeks).sum()
}

/// Each copy's tickets, as the flavour writes them into its pipe.
fn tickets(o: &Options, rand: &mut Rand) -> Vec<u8> {
    match o.flavor {
        Flavor::Bonnie => {
            let mut t = vec![1u8; o.seeks as usize];
            t.resize(o.seeks as usize + o.seekers as usize, 0);
            t
        }
        Flavor::BonniePlusPlus => {
            let mut t = Vec::with_capacity(4 * (o.seeks + o.seekers) as usize);
            for _ in 0..o.seeks {
                let n = rand.num() as i32;
                // -0 is 0: a ticket of 0 is not an update, as in bonnie++
                let v = if n % 10 == 0 { -n } else { n };
                t.extend_from_slice(&v.to_ne_bytes());
            }
            for _ in 0..o.seekers {
                t.extend_from_slice(&END.to_ne_bytes());
            }
            t
        }
    }
}

/// The ticket pipe, of the system's default size, as the programs make it.
fn ticket_pipe() -> Result<(OwnedFd, OwnedFd)> {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
        .context("random seeks: cannot make the ticket pipe")
}

/// How long the feeder waits for its seekers to say they are ready (a
/// seeker that failed to start never does) ...
const READY_TIMEOUT: Duration = Duration::from_secs(2);
/// ... and then for them to fall asleep in their first read.
const SETTLE: Duration = Duration::from_millis(50);

/// What one copy's feeder does: wait until its seekers are waiting for
/// tickets, write the tickets, then (bonnie++) sync and close its own
/// descriptor of the file.
struct Feed {
    pipe: OwnedFd,
    tickets: Vec<u8>,
    file: Option<(std::fs::File, PathBuf)>,
    /// The read end of the seekers' ready pipe, and how many there are.
    ready: OwnedFd,
    seekers: usize,
}

impl Feed {
    /// Until every seeker has said it is about to read, or the time out.
    fn wait_ready(&self) {
        let end = std::time::Instant::now() + READY_TIMEOUT;
        let mut got = 0;
        let mut buf = [0u8; 64];
        while got < self.seekers {
            let left = end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                break;
            }
            let mut p = libc::pollfd {
                fd: self.ready.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = left.as_millis().clamp(1, 1000) as libc::c_int;
            // SAFETY: one valid pollfd, for the length given.
            match unsafe { libc::poll(&mut p, 1, ms) } {
                0 => {}
                n if n > 0 => match rustix::io::read(&self.ready, &mut buf) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => {}
                    Err(_) => break,
                },
                _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
                _ => break,
            }
        }
        std::thread::sleep(SETTLE);
    }

    /// Feed the pipe; the fsync's latency and end (ns) if there was one.
    fn run(self) -> Result<Option<(u64, u64)>> {
        self.wait_ready();
        let mut pipe = std::fs::File::from(self.pipe);
        // one write(2), which sleeps while the pipe is full; it fails only
        // when the seekers are gone (their error says why)
        if pipe.write_all(&self.tickets).is_err() {
            return Ok(None);
        }
        drop(pipe);
        let Some((file, path)) = self.file else {
            return Ok(None);
        };
        let t = now_ns();
        let r = file.sync_all();
        let done = now_ns();
        r.with_context(|| format!("random seeks: Can't sync file {}", path.display()))?;
        drop(file);
        Ok(Some((done - t, done)))
    }
}

/// The test as its `n` seekers measured it: their own window where every
/// seeker reported one.
fn seekers_measured(o: runner::Outcome, n: usize) -> (Measured, Option<anyhow::Error>, bool) {
    let window = seekers_window(&o, n);
    let mut r = measured(o, n, seeks_done, seekers_cpu, max_latency);
    if let Some(w) = window {
        r.0.elapsed = w;
    }
    r
}

/// The seekers, as processes or threads, and what they measured.
fn run_seekers(
    plan: &SeekPlan,
    n: usize,
    as_processes: bool,
) -> Result<(Measured, Option<anyhow::Error>, bool)> {
    let fds: Vec<RawFd> = plan.fds.iter().chain(&plan.ready).copied().collect();
    let placement = if as_processes {
        Placement::Processes { inherit: &fds }
    } else {
        Placement::Threads
    };
    let outcome = runner::run_workers::<Seekers>(
        runner::StopRule::default(),
        plan,
        n,
        placement,
        &runner::NoProgress,
        &runner::NoWatch,
    );
    outcome.map(|oc| seekers_measured(oc, n))
}

/// Run the seeks of every copy at once.
pub(super) fn run(
    o: &Options,
    copies: &mut Copies,
    rand: &mut Rand,
) -> Result<(Measured, Option<anyhow::Error>, bool)> {
    let paths: Vec<PathBuf> = copies.files().map(Path::to_path_buf).collect();
    let mut reads = Vec::new();
    let mut readies = Vec::new();
    let mut feeds = Vec::new();
    for path in &paths {
        let t = tickets(o, rand);
        let (r, w) = ticket_pipe()?;
        let (ready_r, ready_w) = ticket_pipe()?;
        // bonnie++'s parent opens the file before it starts the seekers
        let file = if o.flavor.is_pp() && !o.engine.is_fake() {
            let f = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(path)
                .with_context(|| format!("random seeks: cannot open {}", path.display()))?;
            Some((f, path.clone()))
        } else {
            None
        };
        reads.push(r);
        readies.push(ready_w);
        feeds.push(Feed {
            pipe: w,
            tickets: t,
            file,
            ready: ready_r,
            seekers: o.seekers as usize,
        });
    }
    let plan = SeekPlan {
        flavor: o.flavor,
        engine: o.engine,
        chunk: o.chunk,
        chunks: o.chunks(),
        sync_writes: o.sync_writes,
        seekers: o.seekers,
        seed: match &o.seed {
            super::Seed::Num(n) => *n,
            super::Seed::File { values, .. } => values[0],
        },
        fds: reads.iter().map(|r| r.as_raw_fd()).collect(),
        ready: readies.iter().map(|r| r.as_raw_fd()).collect(),
        paths,
    };
    let n = o.workers();
    let start = now_ns();
    std::thread::scope(|s| {
        // the feeders end when their tickets are in (and bonnie++'s file is
        // synced), or when the pipe's readers are gone (EPIPE)
        let feeders: Vec<_> = feeds
            .into_iter()
            .map(|f| s.spawn(move || f.run()))
            .collect();
        let result = run_seekers(&plan, n, o.seek_processes);
        drop(reads);
        drop(readies);
        let mut result = result;
        for f in feeders {
            let fed = f
                .join()
                .unwrap_or_else(|_| Err(anyhow::anyhow!("random seeks: the feeder panicked")));
            match (fed, &mut result) {
                // the parent's sync is one of the test's calls
                (Ok(Some((lat, end))), Ok((m, _, _))) => {
                    let at = end.saturating_sub(start).min(m.elapsed.as_nanos() as u64);
                    m.stats.record(OpKind::Fsync, lat, 0, at);
                }
                (Err(e), Ok((_, err @ None, _))) => *err = Some(e),
                _ => {}
            }
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bonnie_pp_tickets_mark_every_tenth_value_as_an_update() {
        let mut o = Options::new(Flavor::BonniePlusPlus, Path::new("."), 0);
        o.seeks = 1000;
        o.seed = super::super::Seed::Num(12345);
        let seed = o.seed.clone();
        let mut r = Rand::new(&seed);
        let t = tickets(&o, &mut r);
        assert_eq!(t.len(), 4 * 1005);
        let vals: Vec<i32> = t
            .chunks_exact(4)
            .map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert!(vals[1000..].iter().all(|&v| v == END));
        let mut check = BsdRandom::new(12345);
        for &v in &vals[..1000] {
            let n = check.next() as i32;
            assert_eq!(v, if n % 10 == 0 { -n } else { n });
        }
        let updates = vals[..1000].iter().filter(|&&v| v < 0).count();
        assert!((60..=140).contains(&updates), "{updates}");
    }

    /// The pipe is the system's default, as bonnie++'s: more tickets than
    /// it holds are fed while the seekers read (never all at once).
    #[test]
    fn the_ticket_pipe_has_the_systems_default_size() {
        let (_r, w) = ticket_pipe().unwrap();
        let (_r2, w2) = rustix::pipe::pipe().unwrap();
        let size = rustix::pipe::fcntl_getpipe_size(&w).unwrap();
        assert_eq!(size, rustix::pipe::fcntl_getpipe_size(&w2).unwrap());
        // bonnie++'s 8192 default tickets fit; 65536 do not
        let mut o = Options::new(Flavor::BonniePlusPlus, Path::new("."), 0);
        o.seeks = 65536;
        let t = tickets(&o, &mut Rand::new(&o.seed.clone()));
        assert!(
            t.len() > size,
            "{} bytes of tickets, a pipe of {size}",
            t.len()
        );
    }

    /// The feeder writes nothing until every seeker has said it is about
    /// to read, so that the tickets wake seekers already asleep in their
    /// read, as the programs' parents do after their sleep.
    #[test]
    fn the_feeder_waits_for_its_seekers() {
        let (r, w) = ticket_pipe().unwrap();
        let (ready_r, ready_w) = ticket_pipe().unwrap();
        let feed = Feed {
            pipe: w,
            tickets: vec![7; 100],
            file: None,
            ready: ready_r,
            seekers: 2,
        };
        let feeder = std::thread::spawn(move || feed.run());
        let waiting = |ms: i32| {
            let mut p = libc::pollfd {
                fd: r.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd
            unsafe { libc::poll(&mut p, 1, ms) == 0 }
        };
        rustix::io::write(&ready_w, &[1]).unwrap();
        assert!(waiting(300), "one seeker of two is ready: no ticket yet");
        rustix::io::write(&ready_w, &[1]).unwrap();
        assert!(!waiting(1000), "both ready: the tickets come");
        let mut b = [0u8; 100];
        assert_eq!(rustix::io::read(&r, &mut b).unwrap(), 100);
        assert!(
            feeder.join().unwrap().unwrap().is_none(),
            "no file, no sync"
        );
    }

    /// One copy of 4 chunks in a directory of its own: the plan of its
    /// `seekers` seekers, the feeder of `tickets`, and the pipes' ends
    /// the plan names (open while the test lasts).
    fn one_copy(
        flavor: Flavor,
        seekers: u32,
        tickets: Vec<u8>,
    ) -> (tempfile::TempDir, SeekPlan, Feed, [OwnedFd; 2]) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Bonnie.1");
        std::fs::write(&path, vec![0u8; 4 * 8192]).unwrap();
        let (r, w) = ticket_pipe().unwrap();
        let (ready_r, ready_w) = ticket_pipe().unwrap();
        let plan = SeekPlan {
            flavor,
            engine: Choice::SYNC,
            chunk: 8192,
            chunks: 4,
            sync_writes: false,
            seekers,
            seed: 1,
            paths: vec![path],
            fds: vec![r.as_raw_fd()],
            ready: vec![ready_w.as_raw_fd()],
        };
        let feed = Feed {
            pipe: w,
            tickets,
            file: None,
            ready: ready_r,
            seekers: seekers as usize,
        };
        (dir, plan, feed, [r, ready_w])
    }

    /// A bonnie++ seeker: its time runs from its first ticket to its
    /// close, and it removes the file when done, as 2.00a's seeker object
    /// does; Bonnie's seeker leaves the file.
    #[test]
    fn a_bonnie_pp_seeker_times_itself_and_removes_the_file() {
        for flavor in [Flavor::BonniePlusPlus, Flavor::Bonnie] {
            let mut t = Vec::new();
            match flavor {
                Flavor::BonniePlusPlus => {
                    for v in [1i32, -10, 3, END] {
                        t.extend_from_slice(&v.to_ne_bytes());
                    }
                }
                Flavor::Bonnie => t.extend_from_slice(&[1, 1, 1, 0]),
            }
            let (_dir, plan, feed, _ends) = one_copy(flavor, 1, t);
            let path = plan.paths[0].clone();
            let worker = SeekWorker::new(&plan, 0).unwrap();
            let feeder = std::thread::spawn(move || feed.run());
            let (m, err, _) = seekers_measured(
                runner::run(
                    runner::StopRule::default(),
                    vec![worker],
                    &runner::NoProgress,
                ),
                1,
            );
            assert!(err.is_none(), "{err:?}");
            feeder.join().unwrap().unwrap();
            assert_eq!(m.work, 3);
            assert!(m.elapsed > Duration::ZERO);
            assert_eq!(path.exists(), flavor == Flavor::Bonnie, "{flavor:?}");
        }
    }

    /// Two bonnie++ seekers fed 6 tickets (2 updates), built together
    /// (threads) or each alone from the decoded plan (as processes are):
    /// their seeks, and their reads, writes and fsyncs counted.
    fn two_seekers(alone: bool) -> (u64, Vec<u64>) {
        let tickets = [1i32, -10, 3, 4, -20, 6, END, END];
        let t = tickets.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let (_dir, plan, feed, _ends) = one_copy(Flavor::BonniePlusPlus, 2, t);
        let feeder = std::thread::spawn(move || feed.run());
        let rule = runner::StopRule::default();
        let o = if alone {
            let bytes = serde_json::to_vec(&plan).unwrap();
            let back: SeekPlan = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(serde_json::to_vec(&back).unwrap(), bytes);
            let w: Vec<Box<dyn Worker>> = (0..2)
                .map(|i| runner::workers::build::<Seekers>(&bytes, i).unwrap())
                .collect();
            runner::run(rule, w, &runner::NoProgress)
        } else {
            let (p, n) = (Placement::Threads, &runner::NoProgress);
            runner::run_workers::<Seekers>(rule, &plan, 2, p, n, &runner::NoWatch).unwrap()
        };
        feeder.join().unwrap().unwrap();
        let (m, err, _) = seekers_measured(o, 2);
        assert!(err.is_none(), "{err:?}");
        let counts = IO_KINDS
            .iter()
            .map(|&k| m.stats.kind(k).map_or(0, |s| s.count))
            .collect();
        (m.work, counts)
    }

    #[test]
    fn seekers_built_from_the_decoded_plan_seek_as_threads_do() {
        let threads = two_seekers(false);
        assert_eq!(threads, (6, vec![6, 2, 2]));
        assert_eq!(two_seekers(true), threads);
    }

    #[test]
    fn bonnie_tickets_are_ones_then_a_zero_per_seeker() {
        let o = Options::new(Flavor::Bonnie, Path::new("."), 0);
        let seed = o.seed.clone();
        let t = tickets(&o, &mut Rand::new(&seed));
        assert_eq!(t.len(), 4003);
        assert!(t[..4000].iter().all(|&b| b == 1));
        assert!(t[4000..].iter().all(|&b| b == 0));
    }
}
