//! Random seeks: seekers take tickets from a pipe, each ticket one seek
//! and read of a chunk; every tenth also dirties the chunk and writes it
//! back.
//!
//! Bonnie: 3 processes; the parent writes 4000 one-byte tickets of 1, then
//! one 0 per seeker; each seeker draws its chunk from its own `random()`
//! and rewrites its 1st, 11th, 21st… chunk. bonnie++: 5 threads; the
//! parent draws every ticket from the run's generator before the start (a
//! ticket divisible by ten is sent negative: an update), then one
//! `INT_MIN` per seeker. Both measure from the first seeker's start to the
//! last one's end; the CPU is each seeker's own, summed.

use super::io::{Copies, make_engine};
use super::{Flavor, IO_KINDS, Measured, Options, Rand, max_latency, measured};
use crate::engine::{Choice, Engine, FileId, OpenHow, Req};
use crate::measure::clock::now_ns;
use crate::measure::{CpuTimes, OpKind};
use crate::runner::{self, Ctx, Worker, procs};
use crate::workload::bsd_random::BsdRandom;
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The worker kind of Bonnie's seeker processes.
pub const PROCESS_KIND: &str = "bonnie-seek";

/// bonnie++'s end-of-work ticket.
const END: i32 = i32::MIN;

/// What every seeker needs, as it crosses to a seeker process.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct SeekPlan {
    flavor: Flavor,
    engine: Choice,
    direct: bool,
    chunk: u32,
    chunks: u64,
    sync_writes: bool,
    seekers: u32,
    seed: u32,
    /// Each copy's file and the read end of its ticket pipe.
    paths: Vec<PathBuf>,
    fds: Vec<RawFd>,
}

pub struct SeekWorker {
    engine: Box<dyn Engine>,
    file: FileId,
    path: PathBuf,
    tickets: RawFd,
    flavor: Flavor,
    chunk: usize,
    chunks: u64,
    sync_writes: bool,
    /// Bonnie's seeker's own `random()`.
    rng: BsdRandom,
    done: u64,
    latency: u64,
    cpu: CpuTimes,
}

impl SeekWorker {
    /// Seeker `i` (of all copies): open the file (untimed).
    fn new(p: &SeekPlan, i: usize) -> Result<SeekWorker> {
        let copy = i / p.seekers as usize;
        let o = crate::engine::EngineOpts {
            direct: p.direct,
            depth: 1,
            max_len: p.chunk as usize,
            datasync: false,
            seed: 0,
        };
        let mut engine = make_engine(p.engine, &o)?;
        let path = p.paths[copy].clone();
        let file = engine
            .open(&path, OpenHow::READ_WRITE)
            .context("random seeks: cannot open")?;
        Ok(SeekWorker {
            engine,
            file,
            path,
            tickets: p.fds[copy],
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
        })
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

    fn io(&mut self, ctx: &mut Ctx, req: Req) -> Result<u64> {
        let c = self.engine.exec(req).with_context(|| {
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
        ctx.record(&c);
        Ok(c.bytes)
    }

    fn seek(&mut self, ctx: &mut Ctx, chunk_no: u64, update: bool) -> Result<()> {
        let off = chunk_no * self.chunk as u64;
        let got = self.io(ctx, Req::read(self.file, off, self.chunk as u32))? as usize;
        if self.flavor.is_pp() && got != self.chunk {
            bail!("random seeks: Can't read a full block, only got {got} bytes");
        }
        if !update {
            return Ok(());
        }
        let buf = self.engine.buf_mut(0);
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
        self.io(ctx, Req::write(self.file, off, len as u32))?;
        if self.sync_writes {
            self.io(ctx, Req::fsync(self.file))?;
        }
        Ok(())
    }
}

impl Worker for SeekWorker {
    fn kinds(&self) -> &[OpKind] {
        IO_KINDS
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let c0 = CpuTimes::thread();
        while ctx.keep_going() {
            let Some((chunk, update)) = self.ticket()? else {
                break;
            };
            let t = now_ns();
            self.seek(ctx, chunk, update)?;
            self.latency = self.latency.max(now_ns() - t);
            self.done += 1;
        }
        if self.flavor.is_pp() {
            self.io(ctx, Req::fsync(self.file))?;
        }
        self.engine
            .close(self.file)
            .with_context(|| format!("random seeks: closing {}", self.path.display()))?;
        self.cpu = CpuTimes::thread().since(&c0);
        Ok(())
    }

    fn finish(&mut self) -> serde_json::Value {
        serde_json::json!({
            "latency_ns": self.latency,
            "seeks": self.done,
            "cpu_user_ns": self.cpu.user.as_nanos() as u64,
            "cpu_sys_ns": self.cpu.sys.as_nanos() as u64,
        })
    }
}

/// A seeker process's worker, from the parent's plan.
pub fn process_worker(payload: &[u8], index: usize) -> Result<SeekWorker> {
    let plan: SeekPlan = serde_json::from_slice(payload).context("a bad seek plan")?;
    SeekWorker::new(&plan, index)
}

/// The seekers' CPU: each one's own, summed.
fn seekers_cpu(o: &runner::Outcome) -> CpuTimes {
    let sum = |key: &str| {
        Duration::from_nanos(
            o.extras
                .iter()
                .filter_map(|x| x.get(key).and_then(|v| v.as_u64()))
                .sum(),
        )
    };
    CpuTimes {
        user: sum("cpu_user_ns"),
        sys: sum("cpu_sys_ns"),
        max_rss_kib: 0,
    }
}

/// The seeks the seekers did.
fn seeks_done(o: &runner::Outcome) -> u64 {
    o.extras
        .iter()
        .filter_map(|x| x.get("seeks").and_then(|v| v.as_u64()))
        .sum()
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

/// A pipe big enough for `bytes` where the system allows.
fn ticket_pipe(bytes: usize) -> Result<(OwnedFd, OwnedFd)> {
    let (r, w) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
        .context("random seeks: cannot make the ticket pipe")?;
    // the seekers never wait for a ticket when all fit (up to
    // /proc/sys/fs/pipe-max-size); more are fed while they run
    let _ = rustix::pipe::fcntl_setpipe_size(&w, bytes.max(4096));
    Ok((r, w))
}

/// Run the seeks of every copy at once.
pub(super) fn run(
    o: &Options,
    copies: &mut Copies,
    rand: &mut Rand,
) -> Result<(Measured, Option<anyhow::Error>, bool)> {
    let paths: Vec<PathBuf> = copies.files().map(Path::to_path_buf).collect();
    let mut reads = Vec::new();
    let mut feeds = Vec::new();
    for _ in &paths {
        let t = tickets(o, rand);
        let (r, w) = ticket_pipe(t.len())?;
        reads.push(r);
        feeds.push((w, t));
    }
    let plan = SeekPlan {
        flavor: o.flavor,
        engine: o.engine,
        direct: o.direct,
        chunk: o.chunk,
        chunks: o.chunks(),
        sync_writes: o.sync_writes,
        seekers: o.seekers,
        seed: match &o.seed {
            super::Seed::Num(n) => *n,
            super::Seed::File { values, .. } => values[0],
        },
        fds: reads.iter().map(|r| r.as_raw_fd()).collect(),
        paths,
    };
    let n = o.workers();
    std::thread::scope(|s| {
        // the feeders end when their tickets are in, or when the pipe's
        // readers are gone (the run is over: EPIPE)
        let feeders: Vec<_> = feeds
            .into_iter()
            .map(|(w, t)| {
                s.spawn(move || {
                    let mut f = std::fs::File::from(w);
                    let _ = f.write_all(&t);
                })
            })
            .collect();
        let result = if o.seek_processes {
            let payload = serde_json::to_vec(&plan)?;
            let fds = plan.fds.clone();
            let spec = procs::ProcessSpec {
                kind: PROCESS_KIND,
                payload: &payload,
                workers: n,
                inherit: &fds,
            };
            let outcome = procs::run(
                runner::StopRule::default(),
                &spec,
                &runner::NoProgress,
                &runner::NoWatch,
            );
            outcome.map(|oc| measured(oc, n, seeks_done, seekers_cpu, max_latency))
        } else {
            let workers = (0..n)
                .map(|i| SeekWorker::new(&plan, i))
                .collect::<Result<Vec<_>>>();
            workers.map(|w| super::run_phase(w, seeks_done, seekers_cpu, max_latency))
        };
        drop(reads);
        for f in feeders {
            let _ = f.join();
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
