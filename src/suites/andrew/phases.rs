//! Andrew's five phases on one worker, one after another:
//!
//! ```text
//!   MakeDir  mkdir each directory of each copy            mkdir
//!   Copy     per file: open src, read, create dst,        open, read,
//!            write, close both                            create, write, close
//!   (--cold: untimed, each copied file synced and dropped from the page cache)
//!   ScanDir  list each directory, stat each file          readdir, stat
//!   ReadAll  per file: open, read every byte, close       open, read, close
//!   Make     per copy: read the Makefiles; per source:    open, read, close,
//!            open, read, close, burn CPU (size × cost),   cpu, create, write,
//!            create X.o (half the size), write, close;    close
//!            link: read every object, write the output
//! ```
//!
//! Every operation goes through [`Ctx::record_op`]; each phase also keeps
//! its own counts ([`PhaseStats`]). Paths are made before the timed run,
//! so the per-file loops allocate nothing (std's file calls build short
//! paths on the stack).

use super::tree::{FileKind, Plan, object_size};
use crate::measure::OpKind;
use crate::measure::clock::{now_ns, thread_cpu_ns};
use crate::runner::{Ctx, Worker};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The phases, in order.
pub const PHASES: [&str; 5] = ["MakeDir", "Copy", "ScanDir", "ReadAll", "Make"];
/// The linked output in each copy's root.
pub const OUTPUT: &str = "andrew.out";
/// Buffer of the reads and writes: files are read in calls of at most this.
pub const BUF: usize = 64 << 10;

const KINDS: &[OpKind] = &[
    OpKind::Mkdir,
    OpKind::Create,
    OpKind::Open,
    OpKind::Read,
    OpKind::Write,
    OpKind::Close,
    OpKind::Stat,
    OpKind::Readdir,
    OpKind::Cpu,
];

/// What one phase did. Times in ns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseStats {
    pub name: String,
    /// It ran to its end (false: interrupted in it, or never begun).
    pub complete: bool,
    pub wall_ns: u64,
    /// Σ latency of its I/O operations ([`OpKind::is_io`]).
    pub io_ns: u64,
    /// The worker thread's CPU time in the phase (user + system).
    pub cpu_ns: u64,
    /// Wall time of its CPU burns (the Make phase's compiling).
    pub burn_ns: u64,
    #[serde(flatten)]
    pub calls: Calls,
}

/// A phase (or a section of phases) in the result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "andrewPhase")]
pub struct PhaseFigures {
    /// `MakeDir`, `Copy`, `ScanDir`, `ReadAll` or `Make`; for a section
    /// `copy`, `compile` or `total`.
    pub name: String,
    /// It ran to its end (false: interrupted in it, or never begun).
    pub complete: bool,
    /// Its wall time, in seconds.
    pub wall_s: f64,
    /// Seconds inside its I/O calls.
    pub io_s: f64,
    /// The share of its wall time spent inside I/O calls (0 to 1).
    pub io_time_fraction: f64,
    /// The worker thread's CPU time in it (user and system), in seconds.
    pub cpu_s: f64,
    /// Wall time of its CPU burns (the Make phase's compiling), in seconds.
    pub cpu_burn_s: f64,
    #[serde(flatten)]
    pub calls: Calls,
}

/// What a phase called, and the bytes it moved.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Calls {
    /// Directories made.
    pub mkdir: u64,
    /// Files created.
    pub create: u64,
    /// Files opened.
    pub open: u64,
    /// Files closed.
    pub close: u64,
    /// Files stat'ed.
    pub stat: u64,
    /// Directories listed.
    pub readdir: u64,
    /// read(2) calls.
    pub reads: u64,
    /// write(2) calls.
    pub writes: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// CPU burns (one per source compiled).
    pub cpu_ops: u64,
}

impl Calls {
    fn add(&mut self, o: &Calls) {
        self.mkdir += o.mkdir;
        self.create += o.create;
        self.open += o.open;
        self.close += o.close;
        self.stat += o.stat;
        self.readdir += o.readdir;
        self.reads += o.reads;
        self.writes += o.writes;
        self.bytes_read += o.bytes_read;
        self.bytes_written += o.bytes_written;
        self.cpu_ops += o.cpu_ops;
    }
}

impl PhaseStats {
    fn new(name: &str) -> PhaseStats {
        PhaseStats {
            name: name.to_string(),
            ..Default::default()
        }
    }

    /// Add `o` (a section: several phases).
    pub fn add(&mut self, o: &PhaseStats) {
        self.wall_ns += o.wall_ns;
        self.io_ns += o.io_ns;
        self.cpu_ns += o.cpu_ns;
        self.burn_ns += o.burn_ns;
        self.calls.add(&o.calls);
    }

    /// Share of the wall time spent inside I/O calls.
    pub fn io_fraction(&self) -> f64 {
        if self.wall_ns == 0 {
            0.0
        } else {
            self.io_ns as f64 / self.wall_ns as f64
        }
    }

    /// Its figures for the result, in seconds.
    pub fn figures(&self) -> PhaseFigures {
        let s = |ns: u64| ns as f64 / 1e9;
        PhaseFigures {
            name: self.name.clone(),
            complete: self.complete,
            wall_s: s(self.wall_ns),
            io_s: s(self.io_ns),
            io_time_fraction: self.io_fraction(),
            cpu_s: s(self.cpu_ns),
            cpu_burn_s: s(self.burn_ns),
            calls: self.calls.clone(),
        }
    }

    /// Time one operation begun at `t0` (clock ns), record it.
    #[inline]
    fn op(&mut self, ctx: &mut Ctx, kind: OpKind, t0: u64, bytes: u64) {
        let done = now_ns();
        let lat = done.saturating_sub(t0);
        ctx.record_op(kind, lat, bytes, done);
        if kind.is_io() {
            self.io_ns += lat;
        }
        match kind {
            OpKind::Mkdir => self.calls.mkdir += 1,
            OpKind::Create => self.calls.create += 1,
            OpKind::Open => self.calls.open += 1,
            OpKind::Close => self.calls.close += 1,
            OpKind::Stat => self.calls.stat += 1,
            OpKind::Readdir => self.calls.readdir += 1,
            OpKind::Read => {
                self.calls.reads += 1;
                self.calls.bytes_read += bytes;
            }
            OpKind::Write => {
                self.calls.writes += 1;
                self.calls.bytes_written += bytes;
            }
            OpKind::Cpu => {
                self.calls.cpu_ops += 1;
                self.burn_ns += lat;
            }
            _ => {}
        }
    }
}

/// Spin until the calling thread has used `ns` of CPU time, or `stop`
/// says so (checked about every microsecond). Returns the CPU time used.
pub fn burn(ns: u64, stop: impl Fn() -> bool) -> u64 {
    let start = thread_cpu_ns();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    loop {
        for _ in 0..256 {
            x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
        }
        let used = thread_cpu_ns().saturating_sub(start);
        if used >= ns || stop() {
            return used;
        }
    }
}

/// One file of the copy: where it comes from, where it goes.
struct FileJob {
    src: PathBuf,
    dst: PathBuf,
    size: u64,
}

/// One compiled source of a copy.
struct Unit {
    src: PathBuf,
    obj: PathBuf,
    size: u64,
    obj_size: u64,
}

/// One copy of the tree in the target.
struct CopyJobs {
    makefiles: Vec<(PathBuf, u64)>,
    units: Vec<Unit>,
    output: PathBuf,
}

/// The whole benchmark on one worker.
pub struct Phases {
    /// Target directories, parents first (each copy's root, then its
    /// subdirectories).
    dirs: Vec<PathBuf>,
    files: Vec<FileJob>,
    copies: Vec<CopyJobs>,
    cost_ns_per_byte: f64,
    cold: bool,
    buf: Vec<u8>,
    phases: Vec<PhaseStats>,
}

/// The name of copy `k` (0-based) under the target.
pub fn copy_name(k: usize) -> String {
    format!("copy{}", k + 1)
}

impl Phases {
    /// Andrew over `plan` read from `src`, copied `scale` times into
    /// `dst/copy1`, `dst/copy2`, ... (`dst` exists, the copies do not).
    pub fn new(
        plan: &Plan,
        src: &Path,
        dst: &Path,
        scale: usize,
        cost_ns_per_byte: f64,
        cold: bool,
    ) -> Phases {
        let mut dirs = Vec::with_capacity(scale * (plan.dirs.len() + 1));
        let mut files = Vec::with_capacity(scale * plan.files.len());
        let mut copies = Vec::with_capacity(scale);
        for k in 0..scale {
            let root = dst.join(copy_name(k));
            dirs.push(root.clone());
            dirs.extend(plan.dirs.iter().map(|d| root.join(d)));
            let mut c = CopyJobs {
                makefiles: Vec::new(),
                units: Vec::new(),
                output: root.join(OUTPUT),
            };
            for f in &plan.files {
                let to = root.join(&f.rel);
                match f.kind {
                    FileKind::Makefile => c.makefiles.push((to.clone(), f.size)),
                    FileKind::Source => {
                        let mut obj = to.clone().into_os_string();
                        obj.push(".o");
                        c.units.push(Unit {
                            src: to.clone(),
                            obj: obj.into(),
                            size: f.size,
                            obj_size: object_size(f.size),
                        });
                    }
                    _ => {}
                }
                files.push(FileJob {
                    src: src.join(&f.rel),
                    dst: to,
                    size: f.size,
                });
            }
            copies.push(c);
        }
        Phases {
            dirs,
            files,
            copies,
            cost_ns_per_byte,
            cold,
            buf: vec![0; BUF],
            phases: Vec::new(),
        }
    }

    /// Read `size` bytes of the open file `f`, in calls of at most
    /// [`BUF`]; a file that ends early is an error.
    fn read_all(
        buf: &mut [u8],
        ph: &mut PhaseStats,
        ctx: &mut Ctx,
        f: &mut File,
        size: u64,
        path: &Path,
    ) -> Result<()> {
        in_calls(size, buf.len(), |n, left| {
            let t0 = now_ns();
            let got = loop {
                match f.read(&mut buf[..n]) {
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    r => break r,
                }
            }
            .with_context(|| format!("reading {}", path.display()))?;
            ph.op(ctx, OpKind::Read, t0, got as u64);
            if got == 0 {
                anyhow::bail!("{} ended {left} bytes early", path.display());
            }
            Ok(got)
        })
    }

    /// Write `size` bytes (from `buf`, repeated) to `f`.
    fn write_n(
        buf: &[u8],
        ph: &mut PhaseStats,
        ctx: &mut Ctx,
        f: &mut File,
        size: u64,
        path: &Path,
    ) -> Result<()> {
        in_calls(size, buf.len(), |n, _| {
            let t0 = now_ns();
            f.write_all(&buf[..n])
                .with_context(|| format!("writing {}", path.display()))?;
            ph.op(ctx, OpKind::Write, t0, n as u64);
            Ok(n)
        })
    }

    fn open(ph: &mut PhaseStats, ctx: &mut Ctx, p: &Path) -> Result<File> {
        let t0 = now_ns();
        let f = File::open(p).with_context(|| format!("opening {}", p.display()))?;
        ph.op(ctx, OpKind::Open, t0, 0);
        Ok(f)
    }

    fn create(ph: &mut PhaseStats, ctx: &mut Ctx, p: &Path) -> Result<File> {
        let t0 = now_ns();
        let f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o644)
            .open(p)
            .with_context(|| format!("creating {}", p.display()))?;
        ph.op(ctx, OpKind::Create, t0, 0);
        Ok(f)
    }

    fn close(ph: &mut PhaseStats, ctx: &mut Ctx, f: File) {
        let t0 = now_ns();
        drop(f);
        ph.op(ctx, OpKind::Close, t0, 0);
    }

    /// Run phase `i`: false when it was stopped.
    fn phase(&mut self, i: usize, ctx: &mut Ctx) -> Result<bool> {
        let mut ph = PhaseStats::new(PHASES[i]);
        let (w0, c0) = (now_ns(), thread_cpu_ns());
        let r = match i {
            0 => self.make_dir(&mut ph, ctx),
            1 => self.copy(&mut ph, ctx),
            2 => self.scan_dir(&mut ph, ctx),
            3 => self.read_all_files(&mut ph, ctx),
            _ => self.make(&mut ph, ctx),
        };
        ph.wall_ns = now_ns().saturating_sub(w0);
        ph.cpu_ns = thread_cpu_ns().saturating_sub(c0);
        ph.complete = matches!(r, Ok(true));
        self.phases.push(ph);
        r
    }

    fn make_dir(&mut self, ph: &mut PhaseStats, ctx: &mut Ctx) -> Result<bool> {
        each(ctx, &self.dirs, |ctx, d| {
            let t0 = now_ns();
            std::fs::create_dir(d).with_context(|| format!("mkdir {}", d.display()))?;
            ph.op(ctx, OpKind::Mkdir, t0, 0);
            Ok(true)
        })
    }

    fn copy(&mut self, ph: &mut PhaseStats, ctx: &mut Ctx) -> Result<bool> {
        let Phases { files, buf, .. } = self;
        each(ctx, files, |ctx, j| {
            let mut from = Self::open(ph, ctx, &j.src)?;
            let mut to = Self::create(ph, ctx, &j.dst)?;
            let mut left = j.size;
            while left > 0 {
                let n = left.min(buf.len() as u64);
                Self::read_all(buf, ph, ctx, &mut from, n, &j.src)?;
                Self::write_n(buf, ph, ctx, &mut to, n, &j.dst)?;
                left -= n;
            }
            Self::close(ph, ctx, from);
            Self::close(ph, ctx, to);
            Ok(true)
        })
    }

    /// `--cold`: untimed, every copied file written back and dropped
    /// from the page cache.
    fn drop_copy(&self) -> Result<()> {
        use std::os::fd::AsRawFd;
        for j in &self.files {
            let f = File::open(&j.dst)?;
            f.sync_data()?;
            // SAFETY: a valid open descriptor; advice has no memory effects.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
        Ok(())
    }

    fn scan_dir(&mut self, ph: &mut PhaseStats, ctx: &mut Ctx) -> Result<bool> {
        let listed = each(ctx, &self.dirs, |ctx, d| {
            let t0 = now_ns();
            let mut n = 0u64;
            for e in std::fs::read_dir(d).with_context(|| format!("listing {}", d.display()))? {
                e.with_context(|| format!("listing {}", d.display()))?;
                n += 1;
            }
            std::hint::black_box(n);
            ph.op(ctx, OpKind::Readdir, t0, 0);
            Ok(true)
        })?;
        if !listed {
            return Ok(false);
        }
        each(ctx, &self.files, |ctx, j| {
            let t0 = now_ns();
            let m =
                std::fs::metadata(&j.dst).with_context(|| format!("stat {}", j.dst.display()))?;
            ph.op(ctx, OpKind::Stat, t0, 0);
            if m.len() != j.size {
                anyhow::bail!(
                    "{} holds {} bytes, not the {} copied",
                    j.dst.display(),
                    m.len(),
                    j.size
                );
            }
            Ok(true)
        })
    }

    fn read_all_files(&mut self, ph: &mut PhaseStats, ctx: &mut Ctx) -> Result<bool> {
        let Phases { files, buf, .. } = self;
        each(ctx, files, |ctx, j| {
            Self::slurp(buf, ph, ctx, &j.dst, j.size)?;
            Ok(true)
        })
    }

    /// Read a whole file of `size` bytes: open, read, close.
    fn slurp(
        buf: &mut [u8],
        ph: &mut PhaseStats,
        ctx: &mut Ctx,
        p: &Path,
        size: u64,
    ) -> Result<()> {
        let mut f = Self::open(ph, ctx, p)?;
        Self::read_all(buf, ph, ctx, &mut f, size, p)?;
        Self::close(ph, ctx, f);
        Ok(())
    }

    /// Make a file of `size` bytes: create, write, close.
    fn emit(buf: &[u8], ph: &mut PhaseStats, ctx: &mut Ctx, p: &Path, size: u64) -> Result<()> {
        let mut f = Self::create(ph, ctx, p)?;
        Self::write_n(buf, ph, ctx, &mut f, size, p)?;
        Self::close(ph, ctx, f);
        Ok(())
    }

    fn make(&mut self, ph: &mut PhaseStats, ctx: &mut Ctx) -> Result<bool> {
        let Phases {
            copies,
            buf,
            cost_ns_per_byte,
            ..
        } = self;
        for c in copies.iter() {
            let read = each(ctx, &c.makefiles, |ctx, (m, size)| {
                Self::slurp(buf, ph, ctx, m, *size)?;
                Ok(true)
            })?;
            if !read {
                return Ok(false);
            }
            let compiled = each(ctx, &c.units, |ctx, u| {
                Self::slurp(buf, ph, ctx, &u.src, u.size)?;
                let want = (u.size as f64 * *cost_ns_per_byte).round() as u64;
                if want > 0 {
                    let t0 = now_ns();
                    let stop = ctx.flags().0;
                    burn(want, || stop.load(std::sync::atomic::Ordering::Relaxed));
                    ph.op(ctx, OpKind::Cpu, t0, 0);
                    if ctx.stopped() {
                        return Ok(false);
                    }
                }
                // the object: the source's bytes, cut to its size
                Self::emit(buf, ph, ctx, &u.obj, u.obj_size)?;
                Ok(true)
            })?;
            if !compiled {
                return Ok(false);
            }
            // link: every object in, one output out
            let mut out_size = 0;
            let linked = each(ctx, &c.units, |ctx, u| {
                Self::slurp(buf, ph, ctx, &u.obj, u.obj_size)?;
                out_size += u.obj_size;
                Ok(true)
            })?;
            if !linked {
                return Ok(false);
            }
            Self::emit(buf, ph, ctx, &c.output, out_size)?;
        }
        Ok(true)
    }
}

/// Move `size` bytes in calls of at most `max`: `call(n, left)` moves up
/// to `n` of the `left` bytes and says how many it moved.
fn in_calls(
    size: u64,
    max: usize,
    mut call: impl FnMut(usize, u64) -> Result<usize>,
) -> Result<()> {
    let mut left = size;
    while left > 0 {
        let n = left.min(max as u64) as usize;
        left -= call(n, left)? as u64;
    }
    Ok(())
}

/// Do `f` to each of `items`, one transaction each, while the run goes on;
/// `f` says whether it did its item to the end (false: the run stopped in
/// it). Whether every item was done.
fn each<T>(
    ctx: &mut Ctx,
    items: &[T],
    mut f: impl FnMut(&mut Ctx, &T) -> Result<bool>,
) -> Result<bool> {
    let mut done = 0;
    ctx.transact(|ctx| {
        let Some(item) = items.get(done) else {
            return Ok(false);
        };
        if f(ctx, item)? {
            done += 1;
        }
        Ok(true)
    })?;
    Ok(done == items.len())
}

impl Worker for Phases {
    fn kinds(&self) -> &[OpKind] {
        KINDS
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        for i in 0..PHASES.len() {
            if !self.phase(i, ctx)? {
                break;
            }
            if i == 1 && self.cold {
                self.drop_copy()
                    .context("--cold: dropping the copy from the page cache")?;
            }
        }
        Ok(())
    }

    fn finish(&mut self) -> serde_json::Value {
        serde_json::to_value(&self.phases).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::{self, NoProgress, StopRule};

    #[test]
    fn the_burn_honours_the_cpu_cost_within_ten_percent() {
        for want in [2_000_000u64, 20_000_000] {
            let c0 = thread_cpu_ns();
            let used = burn(want, || false);
            let measured = thread_cpu_ns() - c0;
            assert!(used >= want, "{used} < {want}");
            let r = measured as f64 / want as f64;
            assert!(
                (1.0..1.1).contains(&r),
                "{want} ns asked, {measured} ns used"
            );
        }
        // a stop ends it early
        let used = burn(10_000_000_000, || true);
        assert!(used < 100_000_000, "{used}");
    }

    fn walk(root: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        let mut v: Vec<_> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        for p in v {
            if p.is_dir() {
                out.push((p.clone(), Vec::new()));
                walk(&p, out);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }

    #[test]
    fn the_copy_is_faithful_and_the_phases_issue_the_planned_operations() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        std::fs::create_dir_all(src.join("a/b")).unwrap();
        std::fs::write(src.join("Makefile"), b"all: x\n").unwrap();
        std::fs::write(src.join("a/x.c"), vec![b'x'; 100_001]).unwrap();
        std::fs::write(src.join("a/b/y.h"), b"#define Y 1\n").unwrap();
        std::fs::write(src.join("a/b/z.c"), b"int z;\n").unwrap();
        std::fs::write(src.join("a/empty"), b"").unwrap();
        let plan = Plan::scan(&src).unwrap();
        let dst = d.path().join("dst");
        std::fs::create_dir(&dst).unwrap();
        let w = Phases::new(&plan, &src, &dst, 2, 0.5, true);
        let o = runner::run(StopRule::default(), vec![w], &NoProgress);
        assert!(o.complete, "{:?}", o.error);
        let phases = o.records::<Vec<PhaseStats>>().remove(0).unwrap();
        assert_eq!(phases.len(), 5);
        assert!(phases.iter().all(|p| p.complete));
        // each copy holds the source tree, byte for byte, and what Make made
        let (mut want, mut got) = (Vec::new(), Vec::new());
        walk(&src, &mut want);
        for k in 0..2 {
            let root = dst.join(copy_name(k));
            got.clear();
            walk(&root, &mut got);
            let made = ["a/x.c.o", "a/b/z.c.o", OUTPUT];
            let copied: Vec<_> = got
                .iter()
                .filter(|(p, _)| !made.iter().any(|m| p.ends_with(m)))
                .map(|(p, c)| (p.strip_prefix(&root).unwrap().to_path_buf(), c.clone()))
                .collect();
            let orig: Vec<_> = want
                .iter()
                .map(|(p, c)| (p.strip_prefix(&src).unwrap().to_path_buf(), c.clone()))
                .collect();
            assert_eq!(copied, orig);
            assert_eq!(
                std::fs::metadata(root.join("a/x.c.o")).unwrap().len(),
                50_001
            );
            assert_eq!(std::fs::metadata(root.join(OUTPUT)).unwrap().len(), 50_005);
        }
        // the counts, from the plan: 5 files (100 027 B), 2 sources, 2 dirs
        let (n, files, bytes) = (2u64, 5u64, 100_027u64);
        let dirs = n * 3;
        let p = &phases;
        assert_eq!(
            (p[0].calls.mkdir, p[0].calls.create, p[0].io_ns > 0),
            (dirs, 0, true)
        );
        assert_eq!(
            (
                p[1].calls.open,
                p[1].calls.create,
                p[1].calls.close,
                p[1].calls.bytes_read,
                p[1].calls.bytes_written
            ),
            (n * files, n * files, 2 * n * files, n * bytes, n * bytes)
        );
        // x.c takes two reads (64 KiB + the rest), the empty file none
        assert_eq!(p[1].calls.reads, n * 5);
        assert_eq!(
            (p[2].calls.readdir, p[2].calls.stat, p[2].calls.reads),
            (dirs, n * files, 0)
        );
        assert_eq!(
            (p[3].calls.open, p[3].calls.close, p[3].calls.bytes_read),
            (n * files, n * files, n * bytes)
        );
        // the Makefile, the sources, the objects; the objects and the output
        assert_eq!(p[4].calls.bytes_read, n * (7 + 100_008 + 50_005));
        assert_eq!(p[4].calls.bytes_written, n * 2 * 50_005);
        assert_eq!((p[4].calls.create, p[4].calls.cpu_ops), (n * 3, n * 2));
        assert!(p[4].burn_ns >= n * 50_004);
        assert!(p[4].cpu_ns >= p[4].burn_ns / 2);
    }
}
