//! The tests of the big file: per-char write and read, block write and
//! read, rewrite. One worker per copy (`-c`), each on its own file.
//!
//! The file is opened before the timer starts and closed (bonnie++: fsync
//! then close) before it stops, as both programs do. Bonnie's per-char
//! tests go through a stdio-like stream whose buffer is one chunk: a
//! function call per byte, one write or read of the kernel per chunk.
//! bonnie++'s issue one read(2) or write(2) per byte.

use super::{Flavor, IO_KINDS, Measured, Options, Test, max_latency, process_cpu, run_phase};
use crate::engine::{Choice, EngineSpec, FileId, OpenHow, Req};
use crate::measure::OpKind;
use crate::measure::clock::now_ns;
use crate::runner::{Ctx, Io, Tx, Worker};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// How the tests of one file are done.
#[derive(Clone, Copy, Debug)]
pub(super) struct Plan {
    pub flavor: Flavor,
    pub chunk: usize,
    /// Chunks of the whole file.
    pub chunks: u64,
    /// Bytes of the per-char tests.
    pub byte_bytes: u64,
    /// fsync after every write (bonnie++ -b).
    pub sync_writes: bool,
}

impl Plan {
    pub fn of(o: &Options) -> Plan {
        Plan {
            flavor: o.flavor,
            chunk: o.chunk as usize,
            chunks: o.chunks(),
            byte_bytes: o.byte_io_bytes(),
            sync_writes: o.sync_writes,
        }
    }

    fn pp(&self) -> bool {
        self.flavor.is_pp()
    }

    /// Chunks of the per-char tests (the last one may be short).
    fn byte_chunks(&self) -> u64 {
        self.byte_bytes.div_ceil(self.chunk as u64)
    }
}

/// The engine of the big file's I/O, one chunk at a time: Bonnie's tests
/// are sequences of one call after another (a per-character test, a
/// rewrite that reads then writes each chunk), so each `Io` issues one
/// request at a time.
pub(super) fn make_io(choice: Choice, direct: bool, chunk: usize) -> Result<Io> {
    let spec = EngineSpec::new(choice).direct(direct);
    Ok(Io::new(&spec, 1, chunk, 0)?)
}

/// Whether `test` opens the file with O_DIRECT: with -D, the block write
/// only. bonnie++ 2.00a adds O_DIRECT where it creates the file (the
/// per-char write and the block write) and opens it as it is for the
/// rest, so its rewrite, block read and seeks go through the page cache;
/// its per-char write then fails (a one-byte O_DIRECT write is refused),
/// where iogauge writes those bytes through the page cache and says so.
pub(super) fn uses_direct(o: &Options, test: Test) -> bool {
    o.direct && test == Test::PutBlock
}

/// One copy's file and its two engines: `create` for the block write
/// (O_DIRECT with -D), `cached` (never O_DIRECT) for the other tests.
pub(super) struct Copy {
    pub path: PathBuf,
    create: Io,
    cached: Io,
    made: bool,
}

pub(super) struct Copies {
    pub copies: Vec<Copy>,
    plan: Plan,
}

impl Copies {
    pub fn new(o: &Options, work: &Path) -> Result<Copies> {
        let pid = std::process::id();
        let copies = (0..o.concurrency)
            .map(|i| {
                let name = if o.concurrency > 1 {
                    format!("Bonnie.{pid}.{i}")
                } else {
                    format!("Bonnie.{pid}")
                };
                Ok(Copy {
                    path: work.join(name),
                    create: make_io(o.engine, uses_direct(o, Test::PutBlock), o.chunk as usize)?,
                    cached: make_io(o.engine, false, o.chunk as usize)?,
                    made: false,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Copies {
            copies,
            plan: Plan::of(o),
        })
    }

    /// Run one of the big file's tests on every copy at once.
    pub fn run(&mut self, test: Test) -> Result<(Measured, Option<anyhow::Error>, bool)> {
        let plan = self.plan;
        let workers = self
            .copies
            .iter_mut()
            .map(|c| IoWorker::new(c, test, plan))
            .collect::<Result<Vec<_>>>()?;
        let work: super::WorkOf = match test {
            Test::Getc | Test::GetBlock => super::bytes_read,
            _ => super::bytes_written,
        };
        Ok(run_phase(workers, work, process_cpu, max_latency))
    }

    /// Remove the files (the work directory goes anyway; this frees the
    /// space before the small-file tests, as the programs do).
    pub fn remove(&mut self) {
        for c in &mut self.copies {
            if c.made {
                let _ = c.cached.unlink(&c.path);
                c.made = false;
            }
        }
    }

    /// The copies' files and their engine for the seeks.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.copies.iter().map(|c| c.path.as_path())
    }
}

/// A test of one copy's file: its engine, and the rest (the open file,
/// what is done to it) apart so that a transaction can borrow both.
struct IoWorker<'a> {
    engine: &'a mut Io,
    big: BigFile<'a>,
}

/// The open file of a test and the longest unit so far.
struct BigFile<'a> {
    path: &'a Path,
    file: FileId,
    test: Test,
    plan: Plan,
    /// The longest unit (a chunk) so far.
    latency: u64,
}

impl<'a> IoWorker<'a> {
    /// Open the file for `test` (untimed): a new one for the writes, the
    /// one there for the rest.
    fn new(c: &'a mut Copy, test: Test, plan: Plan) -> Result<IoWorker<'a>> {
        let create = match (test, plan.flavor) {
            (Test::Putc | Test::PutBlock, _) => true,
            // Bonnie rewrites the file its putc wrote; bonnie++ the block one
            (Test::Rewrite, Flavor::Bonnie) => !c.made,
            _ => false,
        };
        let engine: &mut Io = match test {
            Test::PutBlock => &mut c.create,
            _ => &mut c.cached,
        };
        if create {
            match engine.unlink(&c.path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(e).with_context(|| format!("cannot remove {}", c.path.display()));
                }
                _ => {}
            }
        }
        let how = if create {
            OpenHow::CREATE
        } else {
            OpenHow::READ_WRITE
        };
        let file = engine
            .open(&c.path, how)
            .with_context(|| format!("{}: cannot open", test.title()))?;
        c.made = true;
        // Bonnie's and bonnie++'s block buffer starts as zeros
        engine.buf_mut(0).fill(0);
        Ok(IoWorker {
            engine,
            big: BigFile {
                path: &c.path,
                file,
                test,
                plan,
                latency: 0,
            },
        })
    }
}

impl BigFile<'_> {
    fn fail(&self, what: &str, e: std::io::Error) -> anyhow::Error {
        anyhow::anyhow!("{}: {what} {}: {e}", self.test.title(), self.path.display())
    }

    #[inline]
    fn io(&self, tx: &mut Tx, req: Req) -> Result<u64> {
        match tx.exec_unrecorded(req) {
            Ok(c) => {
                tx.ctx.record(&c);
                Ok(c.bytes)
            }
            Err(e) => Err(self.fail(doing(req.kind), e)),
        }
    }

    fn write_chunk(&self, tx: &mut Tx, off: u64) -> Result<()> {
        let n = self.plan.chunk;
        let req = Req::write(self.file, off, n as u32);
        let done = self.io(tx, req)?;
        if done != n as u64 {
            tx.io
                .finish_write(req, done)
                .map_err(|e| self.fail("writing", e))?;
        }
        if self.plan.sync_writes {
            self.io(tx, Req::fsync(self.file))?;
        }
        Ok(())
    }

    /// bonnie++'s read_block: a whole chunk, or an error.
    fn read_chunk(&self, tx: &mut Tx, off: u64) -> Result<()> {
        let n = self.plan.chunk as u64;
        let got = self.io(tx, Req::read(self.file, off, n as u32))?;
        if got != n {
            bail!(
                "{}: Can't read a full block, only got {got} bytes at {off} of {}",
                self.test.title(),
                self.path.display()
            );
        }
        Ok(())
    }

    /// Close as the flavour does: bonnie++ syncs first (timed).
    fn close(&self, tx: &mut Tx) -> Result<()> {
        if self.plan.pp() {
            self.io(tx, Req::fsync(self.file))?;
        }
        tx.io.close(self.file).map_err(|e| self.fail("closing", e))
    }

    fn note(&mut self, t0: u64) {
        self.latency = self.latency.max(now_ns() - t0);
    }

    /// Dirty the chunk in the buffer: Bonnie adds one to the `k`th int,
    /// bonnie++ to the `k`th byte.
    fn dirty(&self, io: &mut Io, k: &mut usize) {
        let buf = &mut io.buf_mut(0)[..self.plan.chunk];
        match self.plan.flavor {
            Flavor::Bonnie => {
                let ints = buf.len() / 4;
                if *k >= ints {
                    *k = 0;
                }
                let w = &mut buf[*k * 4..*k * 4 + 4];
                let v = i32::from_ne_bytes([w[0], w[1], w[2], w[3]]).wrapping_add(1);
                w.copy_from_slice(&v.to_ne_bytes());
            }
            Flavor::BonniePlusPlus => {
                if *k >= buf.len() {
                    *k = 0;
                }
                buf[*k] = buf[*k].wrapping_add(1);
            }
        }
        *k += 1;
    }

    /// Run `chunk(tx, i)` for chunks `i` from 0 to `chunks`, one
    /// transaction each, while the run goes on.
    fn each_chunk(
        &mut self,
        io: &mut Io,
        ctx: &mut Ctx,
        chunks: u64,
        mut chunk: impl FnMut(&mut Self, &mut Tx, u64) -> Result<()>,
    ) -> Result<()> {
        let mut i = 0;
        io.transact(ctx, &mut |tx: &mut Tx| {
            if i == chunks {
                return Ok(false);
            }
            chunk(self, tx, i)?;
            i += 1;
            Ok(true)
        })
    }

    fn block_write(&mut self, io: &mut Io, ctx: &mut Ctx) -> Result<()> {
        let chunk = self.plan.chunk as u64;
        let mut k = 0;
        self.each_chunk(io, ctx, self.plan.chunks, |f, tx, i| {
            f.dirty(tx.io, &mut k);
            let t = now_ns();
            f.write_chunk(tx, i * chunk)?;
            f.note(t);
            Ok(())
        })?;
        self.close(&mut Tx { io, ctx })
    }

    fn rewrite(&mut self, io: &mut Io, ctx: &mut Ctx) -> Result<()> {
        let chunk = self.plan.chunk as u64;
        let mut k = 0;
        if self.plan.pp() {
            self.each_chunk(io, ctx, self.plan.chunks, |f, tx, i| {
                let t = now_ns();
                f.read_chunk(tx, i * chunk)?;
                f.dirty(tx.io, &mut k);
                f.write_chunk(tx, i * chunk)?;
                f.note(t);
                Ok(())
            })?;
        } else {
            // read; while a whole chunk came: dirty it, write it back, read on
            let mut off = 0;
            let mut t = now_ns();
            let mut got = self.io(&mut Tx { io, ctx }, Req::read(self.file, off, chunk as u32))?;
            io.transact(ctx, &mut |tx: &mut Tx| {
                if got != chunk {
                    return Ok(false);
                }
                self.dirty(tx.io, &mut k);
                self.write_chunk(tx, off)?;
                self.note(t);
                off += chunk;
                t = now_ns();
                got = self.io(tx, Req::read(self.file, off, chunk as u32))?;
                if off / chunk >= self.plan.chunks {
                    // the end (a fake engine never reaches it by itself)
                    got = 0;
                }
                Ok(true)
            })?;
        }
        self.close(&mut Tx { io, ctx })
    }

    fn block_read(&mut self, io: &mut Io, ctx: &mut Ctx) -> Result<()> {
        let chunk = self.plan.chunk as u64;
        if self.plan.pp() {
            self.each_chunk(io, ctx, self.plan.chunks, |f, tx, i| {
                let t = now_ns();
                f.read_chunk(tx, i * chunk)?;
                f.note(t);
                Ok(())
            })?;
        } else {
            // until read returns 0: one more read than there are chunks
            let mut chars = [0u64; 128];
            let mut i = 0;
            let mut ended = false;
            io.transact(ctx, &mut |tx: &mut Tx| {
                if ended {
                    return Ok(false);
                }
                let t = now_ns();
                let got = self.io(tx, Req::read(self.file, i * chunk, chunk as u32))?;
                self.note(t);
                if got == 0 || i == self.plan.chunks {
                    ended = true;
                    return Ok(true);
                }
                let b = tx.io.buf_mut(0);
                chars[usize::from(b[usize::from(b[0]) % b.len()] & 0x7f)] += 1;
                i += 1;
                Ok(true)
            })?;
            std::hint::black_box(&chars);
        }
        self.close(&mut Tx { io, ctx })
    }

    /// bonnie++: one write(2) of one byte per byte. The calls of a chunk
    /// are timed together (two clock reads per call would add a tenth to
    /// what this test measures): each is recorded with the chunk's mean.
    fn putc_syscalls(&mut self, io: &mut Io, ctx: &mut Ctx) -> Result<()> {
        let chunk = self.plan.chunk as u64;
        self.each_chunk(io, ctx, self.plan.byte_chunks(), |f, tx, i| {
            let off = i * chunk;
            let t = now_ns();
            let file = f.file;
            let r = crate::engine::untimed(|| -> std::io::Result<u64> {
                for i in 0..chunk {
                    tx.io.buf_mut(0)[0] = (i & 0x7f) as u8;
                    if tx.exec_unrecorded(Req::write(file, off + i, 1))?.bytes != 1 {
                        return Ok(i);
                    }
                }
                Ok(chunk)
            });
            if f.batch(tx.ctx, OpKind::Write, t, r)? != chunk {
                bail!("Can't write() - disk full? ({})", f.path.display());
            }
            Ok(())
        })?;
        self.close(&mut Tx { io, ctx })
    }

    /// Record a chunk of 1-byte calls begun at `t`; how many succeeded.
    fn batch(
        &mut self,
        ctx: &mut Ctx,
        kind: OpKind,
        t: u64,
        r: std::io::Result<u64>,
    ) -> Result<u64> {
        let end = now_ns();
        let n = r.map_err(|e| self.fail(doing(kind), e))?;
        if let Some(each) = (end - t).checked_div(n) {
            let at = end.saturating_sub(ctx.t0_ns());
            ctx.stats.record_n(kind, each, n, n, at);
        }
        self.latency = self.latency.max(end - t);
        Ok(n)
    }

    /// bonnie++: one read(2) of one byte per byte, timed as the writes are.
    fn getc_syscalls(&mut self, io: &mut Io, ctx: &mut Ctx) -> Result<()> {
        let chunk = self.plan.chunk as u64;
        let mut seen = [0u64; 256];
        self.each_chunk(io, ctx, self.plan.byte_chunks(), |f, tx, i| {
            let off = i * chunk;
            let t = now_ns();
            let file = f.file;
            let seen = &mut seen;
            let r = crate::engine::untimed(|| -> std::io::Result<u64> {
                for i in 0..chunk {
                    if tx.exec_unrecorded(Req::read(file, off + i, 1))?.bytes != 1 {
                        return Ok(i);
                    }
                    seen[usize::from(tx.io.buf_mut(0)[0])] += 1;
                }
                Ok(chunk)
            });
            if f.batch(tx.ctx, OpKind::Read, t, r)? != chunk {
                bail!("Can't read a byte ({})", f.path.display());
            }
            Ok(())
        })?;
        std::hint::black_box(&seen);
        self.close(&mut Tx { io, ctx })
    }

    /// Bonnie: putc() of every byte through a stream of one chunk.
    fn putc_stream(&mut self, io: &mut Io, ctx: &mut Ctx) -> Result<()> {
        let mut s = Stream::new(self.plan.chunk);
        let (chunk, n) = (self.plan.chunk as u64, self.plan.byte_bytes);
        self.each_chunk(io, ctx, self.plan.byte_chunks(), |f, tx, i| {
            let off = i * chunk;
            for i in off..(off + chunk).min(n) {
                s.putc((i & 0x7f) as u8, f, tx)?;
            }
            Ok(())
        })?;
        let tx = &mut Tx { io, ctx };
        s.flush(self, tx)?;
        self.close(tx)
    }

    /// Bonnie: getc() of every byte through a stream of one chunk.
    fn getc_stream(&mut self, io: &mut Io, ctx: &mut Ctx) -> Result<()> {
        let mut s = Stream::new(self.plan.chunk);
        let mut chars = [0u64; 256];
        let (chunk, n) = (self.plan.chunk as u64, self.plan.byte_bytes);
        self.each_chunk(io, ctx, self.plan.byte_chunks(), |f, tx, i| {
            let off = i * chunk;
            for i in off..(off + chunk).min(n) {
                match s.getc(f, tx)? {
                    Some(c) => chars[usize::from(c)] += 1,
                    None => bail!(
                        "per-char read: {} ended after {i} of {n} bytes",
                        f.path.display()
                    ),
                }
            }
            Ok(())
        })?;
        std::hint::black_box(&chars);
        self.close(&mut Tx { io, ctx })
    }
}

/// A stdio stream's buffer: putc and getc cost a call and a byte move;
/// the kernel sees one write or read per chunk.
struct Stream {
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    /// File offset of the buffer's start.
    off: u64,
}

impl Stream {
    fn new(chunk: usize) -> Stream {
        Stream {
            buf: vec![0; chunk],
            pos: 0,
            len: 0,
            off: 0,
        }
    }

    #[inline(never)]
    fn putc(&mut self, c: u8, f: &mut BigFile, tx: &mut Tx) -> Result<()> {
        if self.pos == self.buf.len() {
            self.flush(f, tx)?;
        }
        self.buf[self.pos] = c;
        self.pos += 1;
        Ok(())
    }

    fn flush(&mut self, f: &mut BigFile, tx: &mut Tx) -> Result<()> {
        if self.pos == 0 {
            return Ok(());
        }
        let n = self.pos;
        tx.io.buf_mut(0)[..n].copy_from_slice(&self.buf[..n]);
        let t = now_ns();
        let done = f.io(tx, Req::write(f.file, self.off, n as u32))?;
        f.note(t);
        if done != n as u64 {
            bail!(
                "per-char write: wrote {done} of {n} bytes to {} (disk full?)",
                f.path.display()
            );
        }
        self.off += n as u64;
        self.pos = 0;
        Ok(())
    }

    #[inline(never)]
    fn getc(&mut self, f: &mut BigFile, tx: &mut Tx) -> Result<Option<u8>> {
        if self.pos == self.len {
            let t = now_ns();
            let got = f.io(tx, Req::read(f.file, self.off, self.buf.len() as u32))? as usize;
            f.note(t);
            self.buf[..got].copy_from_slice(&tx.io.buf_mut(0)[..got]);
            self.off += got as u64;
            self.pos = 0;
            self.len = got;
            if got == 0 {
                return Ok(None);
            }
        }
        let c = self.buf[self.pos];
        self.pos += 1;
        Ok(Some(c))
    }
}

impl Worker for IoWorker<'_> {
    fn kinds(&self) -> &[OpKind] {
        IO_KINDS
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let IoWorker { engine, big } = self;
        let io = &mut **engine;
        match (big.test, big.plan.pp()) {
            (Test::Putc, true) => big.putc_syscalls(io, ctx),
            (Test::Putc, false) => big.putc_stream(io, ctx),
            (Test::Getc, true) => big.getc_syscalls(io, ctx),
            (Test::Getc, false) => big.getc_stream(io, ctx),
            (Test::PutBlock, _) => big.block_write(io, ctx),
            (Test::Rewrite, _) => big.rewrite(io, ctx),
            (Test::GetBlock, _) => big.block_read(io, ctx),
            (t, _) => bail!(
                "internal error: {} is not a test of the big file",
                t.title()
            ),
        }
    }

    fn finish(&mut self) -> serde_json::Value {
        super::Slowest::record(self.big.latency)
    }
}

/// What a failed call was doing, for its message.
fn doing(kind: OpKind) -> &'static str {
    match kind {
        OpKind::Read => "reading",
        OpKind::Fsync => "syncing (fsync)",
        _ => "writing",
    }
}
