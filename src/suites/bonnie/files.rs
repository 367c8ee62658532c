//! bonnie++'s small-file tests (`-n num[:max[:min[:ndirs[:chunk]]]]`):
//! create, stat and delete num×1024 files, first in directory order
//! (names led by their number, stat and delete walk readdir), then in
//! random order (names ending in their number, stat and delete in a
//! shuffled order).
//!
//! A name is the file's number in 10 hex digits plus 0–12 random
//! characters of `[a-z0-9A-Z]`. With several directories the names go to
//! `00000/`, `00001/`… in turn, n/ndirs + 1 to a directory. A create opens
//! with O_CREAT|O_EXCL and writes the file's size (`min + rand mod
//! (max−min+1)`, or max) in chunks; `-1` as max makes hard links to the
//! first file, `-2` symbolic links. A stat also reads a file's data. The
//! create and delete tests end with a sync of the file system, timed
//! (bonnie++ syncs every file system: iogauge only the one under test).

use super::{FileTests, Measured, Options, Rand, Test, max_latency, process_cpu, run_phase};
use crate::engine::{FileId, OpenHow, Req};
use crate::measure::OpKind;
use crate::measure::clock::now_ns;
use crate::runner::{Ctx, Io, Tx, Worker};
use anyhow::{Context, Result, bail};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

const RAND_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

const FILE_KINDS: &[OpKind] = &[
    OpKind::Create,
    OpKind::Write,
    OpKind::Stat,
    OpKind::Read,
    OpKind::Delete,
    OpKind::Fsync,
];

/// One copy's directory of small files.
struct FileSet {
    dir: PathBuf,
    /// Names under `dir` ("00003/00000000a5xyz" with several directories).
    names: Vec<String>,
    /// The directory of each name.
    dir_of: Vec<u32>,
    sizes: Vec<u32>,
    /// Open directories, for fsync with -b.
    dir_fds: Vec<OwnedFd>,
}

pub(super) struct FileSets {
    sets: Vec<FileSet>,
    /// The engine of each set's files.
    engines: Vec<Io>,
    cfg: Option<FileTests>,
    sync: bool,
    fake: bool,
}

impl FileSets {
    pub fn new(o: &Options, work: &Path) -> Result<FileSets> {
        let pid = std::process::id();
        let mut sets = Vec::new();
        let mut engines = Vec::new();
        if let Some(f) = o.files {
            for i in 0..o.concurrency {
                let name = if o.concurrency > 1 {
                    format!("Bonnie.{pid}.{i}.d")
                } else {
                    format!("Bonnie.{pid}.d")
                };
                sets.push(FileSet {
                    dir: work.join(name),
                    names: Vec::new(),
                    dir_of: Vec::new(),
                    sizes: Vec::new(),
                    dir_fds: Vec::new(),
                });
                engines.push(super::io::make_io(o.engine, false, f.chunk as usize)?);
            }
        }
        Ok(FileSets {
            sets,
            engines,
            cfg: o.files,
            sync: o.sync_writes,
            fake: o.engine.is_fake(),
        })
    }

    /// Run one of the six tests on every copy at once.
    pub fn run(
        &mut self,
        test: Test,
        rand: &mut Rand,
    ) -> Result<(Measured, Option<anyhow::Error>, bool)> {
        let Some(cfg) = self.cfg else {
            bail!("internal error: file tests without -n");
        };
        for set in &mut self.sets {
            match test {
                Test::SeqCreate | Test::RanCreate => {
                    set.prepare(&cfg, rand, test == Test::RanCreate, self.sync, self.fake)?
                }
                Test::RanStat | Test::RanDel => set.shuffle(rand),
                _ => {}
            }
        }
        let (sync, fake) = (self.sync, self.fake);
        let workers: Vec<FileWorker> = self
            .sets
            .iter_mut()
            .zip(&mut self.engines)
            .map(|(set, engine)| FileWorker {
                engine,
                files: Files {
                    set,
                    cfg,
                    test,
                    sync,
                    fake,
                    latency: 0,
                    path: PathBuf::new(),
                },
            })
            .collect();
        let kind = match test {
            Test::SeqCreate | Test::RanCreate => OpKind::Create,
            Test::SeqStat | Test::RanStat => OpKind::Stat,
            _ => OpKind::Delete,
        };
        let work: super::WorkOf = match kind {
            OpKind::Create => |o| o.stats.kind(OpKind::Create).map_or(0, |k| k.count),
            OpKind::Stat => |o| o.stats.kind(OpKind::Stat).map_or(0, |k| k.count),
            _ => |o| o.stats.kind(OpKind::Delete).map_or(0, |k| k.count),
        };
        Ok(run_phase(workers, work, process_cpu, max_latency))
    }
}

impl FileSet {
    /// Before a create (untimed): the names, the sizes, the directories.
    fn prepare(
        &mut self,
        cfg: &FileTests,
        rand: &mut Rand,
        random: bool,
        sync: bool,
        fake: bool,
    ) -> Result<()> {
        (self.names, self.dir_of) = make_names(cfg, rand, random);
        let range = if cfg.max > 0 { cfg.max - cfg.min } else { 0 };
        self.sizes = (0..self.names.len())
            .map(|_| {
                if range > 0 {
                    (cfg.min + i64::from(rand.num()) % (range + 1)) as u32
                } else {
                    cfg.max.max(0) as u32
                }
            })
            .collect();
        self.dir_fds.clear();
        if fake {
            return Ok(());
        }
        let mkdir = |p: &Path| {
            std::fs::create_dir(p).with_context(|| format!("Can't make directory {}", p.display()))
        };
        mkdir(&self.dir)?;
        for d in &self.subdirs(cfg) {
            if cfg.dirs > 1 {
                mkdir(d)?;
            }
            if sync {
                let fd = rustix::fs::open(
                    d,
                    rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY,
                    rustix::fs::Mode::empty(),
                )
                .with_context(|| format!("Can't get directory handle {}", d.display()))?;
                self.dir_fds.push(fd);
            }
        }
        Ok(())
    }

    /// bonnie++'s random_sort: swap each name with a random one.
    fn shuffle(&mut self, rand: &mut Rand) {
        let n = self.names.len();
        for i in 0..n {
            let j = rand.num() as usize % n;
            self.names.swap(i, j);
            self.dir_of.swap(i, j);
        }
    }

    fn subdirs(&self, cfg: &FileTests) -> Vec<PathBuf> {
        if cfg.dirs > 1 {
            (0..cfg.dirs)
                .map(|i| self.dir.join(format!("{i:05}")))
                .collect()
        } else {
            vec![self.dir.clone()]
        }
    }
}

/// bonnie++'s names: for each file its number (10 hex digits) and 0–12
/// random characters, number first in sequential order, last in random
/// order; with several directories, `n/ndirs + 1` names to each in turn.
fn make_names(cfg: &FileTests, rand: &mut Rand, random: bool) -> (Vec<String>, Vec<u32>) {
    let n = cfg.count() as usize;
    let per_dir = n / cfg.dirs as usize;
    let (mut in_dir, mut dir) = (0usize, 0u32);
    let mut names = Vec::with_capacity(n);
    let mut dir_of = Vec::with_capacity(n);
    for i in 0..n {
        let len = rand.num() as usize % 13;
        let extra: String = (0..len)
            .map(|_| RAND_CHARS[rand.num() as usize % RAND_CHARS.len()] as char)
            .collect();
        let mut name = if cfg.dirs > 1 {
            format!("{dir:05}/")
        } else {
            String::new()
        };
        if random {
            name += &format!("{extra}{i:010x}");
        } else {
            name += &format!("{i:010x}{extra}");
        }
        names.push(name);
        dir_of.push(dir);
        in_dir += 1;
        if in_dir > per_dir {
            in_dir = 0;
            dir += 1;
        }
    }
    (names, dir_of)
}

/// A test of one copy's small files: its engine, and the rest apart so
/// that a transaction can borrow both.
struct FileWorker<'a> {
    engine: &'a mut Io,
    files: Files<'a>,
}

/// What a test does to one copy's files, and its longest unit so far.
struct Files<'a> {
    set: &'a mut FileSet,
    cfg: FileTests,
    test: Test,
    sync: bool,
    fake: bool,
    latency: u64,
    /// A file's full path, rebuilt in place for each file (no allocation
    /// per file in the timed loop).
    path: PathBuf,
}

impl Files<'_> {
    fn note(&mut self, t: u64) {
        self.latency = self.latency.max(now_ns() - t);
    }

    fn timed<T>(
        ctx: &mut Ctx,
        kind: OpKind,
        bytes: u64,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let t = now_ns();
        let r = f()?;
        let done = now_ns();
        ctx.record_op(kind, done - t, bytes, done);
        Ok(r)
    }

    fn sync_dir(&mut self, ctx: &mut Ctx, dir: u32) -> Result<()> {
        if self.sync && !self.fake {
            let fd = &self.set.dir_fds[dir as usize];
            Self::timed(ctx, OpKind::Fsync, 0, || {
                rustix::fs::fsync(fd).context("Can't sync directory")
            })?;
        }
        Ok(())
    }

    /// The full path of file `i`, in the worker's reused buffer: give it
    /// back with `self.path = path` when done.
    fn full_path(&mut self, i: usize) -> PathBuf {
        let mut p = std::mem::take(&mut self.path);
        let s = p.as_mut_os_string();
        s.clear();
        s.push(self.set.dir.as_os_str());
        s.push("/");
        s.push(&self.set.names[i]);
        p
    }

    fn create_one(&mut self, tx: &mut Tx, i: usize) -> Result<()> {
        let path = self.full_path(i);
        let r = self.create_at(tx, i, &path);
        self.path = path;
        r
    }

    fn create_at(&mut self, tx: &mut Tx, i: usize, path: &Path) -> Result<()> {
        if self.cfg.max < 0 && i > 0 {
            // a hard link to the first file, or a symbolic link to its name
            let first = self.set.dir.join(&self.set.names[0]);
            let hard = self.cfg.max == -1;
            if !self.fake {
                Self::timed(tx.ctx, OpKind::Create, 0, || {
                    if hard {
                        std::fs::hard_link(&first, path)
                    } else {
                        let target = self.set.names[0].rsplit('/').next().unwrap_or("");
                        std::os::unix::fs::symlink(target, path)
                    }
                    .with_context(|| format!("Can't create link {}", path.display()))
                })?;
            } else {
                tx.ctx.record_op(OpKind::Create, 0, 0, now_ns());
            }
            return self.sync_dir(tx.ctx, self.set.dir_of[i]);
        }
        let how = OpenHow {
            write: true,
            create: true,
            ..OpenHow::default()
        };
        let fid = Self::timed(tx.ctx, OpKind::Create, 0, || {
            tx.io.open(path, how).context("Can't create file")
        })?;
        let size = if self.cfg.max > 0 {
            self.set.sizes[i]
        } else {
            0
        };
        let chunk = self.cfg.chunk;
        let mut off = 0u64;
        while off < u64::from(size) {
            let n = chunk.min(size - off as u32);
            let req = Req::write(fid, off, n);
            let c = tx
                .exec_unrecorded(req)
                .with_context(|| format!("Can't write data to {}", path.display()))?;
            tx.ctx.record(&c);
            if c.bytes != u64::from(n) {
                tx.io
                    .finish_write(req, c.bytes)
                    .with_context(|| format!("Can't write data to {}", path.display()))?;
            }
            off += u64::from(n);
        }
        if self.sync {
            let c = tx
                .exec_unrecorded(Req::fsync(fid))
                .with_context(|| format!("Can't sync file {}", path.display()))?;
            tx.ctx.record(&c);
            self.sync_dir(tx.ctx, self.set.dir_of[i])?;
        }
        tx.io
            .close(fid)
            .with_context(|| format!("closing {}", path.display()))
    }

    /// Do `f` to every file in the order of the names, one transaction
    /// each, each one's time a unit of the latency; false when the run
    /// was stopped.
    fn each(
        &mut self,
        io: &mut Io,
        ctx: &mut Ctx,
        mut f: impl FnMut(&mut Self, &mut Tx, usize) -> Result<()>,
    ) -> Result<bool> {
        let n = self.set.names.len();
        let mut i = 0;
        io.transact(ctx, &mut |tx: &mut Tx| {
            if i == n {
                return Ok(false);
            }
            let t = now_ns();
            f(self, tx, i)?;
            self.note(t);
            i += 1;
            Ok(true)
        })?;
        Ok(i == n)
    }

    fn create(&mut self, io: &mut Io, ctx: &mut Ctx) -> Result<()> {
        if self.each(io, ctx, Self::create_one)? {
            self.sync_fs()?;
        }
        Ok(())
    }

    fn sync_fs(&self) -> Result<()> {
        if self.fake {
            return Ok(());
        }
        let d = Self::open_dir(self.set.dir.parent().unwrap_or(&self.set.dir))?;
        rustix::fs::syncfs(d.as_fd()).context("sync of the file system")?;
        Ok(())
    }

    /// stat a file and read its data, as bonnie++'s stat_file.
    fn stat_one(&mut self, tx: &mut Tx, dir: &OwnedFd, dir_path: &Path, name: &str) -> Result<()> {
        let st = Self::timed(tx.ctx, OpKind::Stat, 0, || {
            rustix::fs::statat(dir, name, rustix::fs::AtFlags::empty())
                .with_context(|| format!("Can't stat file {}", dir_path.join(name).display()))
        })?;
        let size = st.st_size.max(0) as u64;
        if size == 0 {
            return Ok(());
        }
        let path = dir_path.join(name);
        let fid: FileId = tx
            .io
            .open(&path, OpenHow::READ)
            .context("Can't open file")?;
        let chunk = u64::from(self.cfg.chunk);
        let mut off = 0;
        while off < size {
            let n = chunk.min(size - off);
            let c = tx.exec_unrecorded(Req::read(fid, off, n as u32))?;
            tx.ctx.record(&c);
            if c.bytes != n {
                bail!("Can't read data of {}", path.display());
            }
            off += n;
        }
        tx.io.close(fid)?;
        Ok(())
    }

    fn open_dir(p: &Path) -> Result<OwnedFd> {
        rustix::fs::open(
            p,
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY,
            rustix::fs::Mode::empty(),
        )
        .with_context(|| format!("Can't open directory {}", p.display()))
    }

    /// Stat (or delete) every file in directory order, each directory in turn.
    fn walk(&mut self, io: &mut Io, ctx: &mut Ctx, delete: bool) -> Result<()> {
        let n = self.set.names.len();
        let mut count = 0usize;
        if self.fake {
            // no directory to read: the names in their order
            self.each(io, ctx, |w, tx, i| {
                if delete {
                    w.delete_one(tx, i)
                } else {
                    tx.ctx.record_op(OpKind::Stat, 0, 0, now_ns());
                    Ok(())
                }
            })?;
            return Ok(());
        }
        for (d, dir) in self.set.subdirs(&self.cfg).into_iter().enumerate() {
            let fd = Self::open_dir(&dir)?;
            let mut entries = std::fs::read_dir(&dir)
                .with_context(|| format!("Can't open directory {}", dir.display()))?;
            // one entry a transaction (one that is no file's does nothing)
            let mut read_all = false;
            io.transact(ctx, &mut |tx: &mut Tx| {
                let t = now_ns();
                let Some(e) = entries.next() else {
                    read_all = true;
                    return Ok(false);
                };
                let e = e.with_context(|| format!("reading directory {}", dir.display()))?;
                let name = e.file_name();
                let Some(name) = name.to_str() else {
                    return Ok(true);
                };
                if name.starts_with('.') {
                    return Ok(true);
                }
                if delete {
                    let path = dir.join(name);
                    Self::timed(tx.ctx, OpKind::Delete, 0, || {
                        tx.io
                            .unlink(&path)
                            .with_context(|| format!("Can't delete file {}", path.display()))
                    })?;
                    self.sync_dir(tx.ctx, d as u32)?;
                } else {
                    self.stat_one(tx, &fd, &dir, name)?;
                }
                count += 1;
                self.note(t);
                Ok(true)
            })?;
            if !read_all {
                return Ok(());
            }
            if delete && self.cfg.dirs > 1 {
                std::fs::remove_dir(&dir).with_context(|| format!("rmdir {}", dir.display()))?;
            }
        }
        if count != n {
            bail!("Expected {n} files but only got {count}");
        }
        if delete {
            self.remove_top()?;
        }
        Ok(())
    }

    fn delete_one(&mut self, tx: &mut Tx, i: usize) -> Result<()> {
        let path = self.full_path(i);
        let r = Self::timed(tx.ctx, OpKind::Delete, 0, || {
            tx.io
                .unlink(&path)
                .with_context(|| format!("Can't delete file {}", path.display()))
        });
        self.path = path;
        r?;
        self.sync_dir(tx.ctx, self.set.dir_of[i])
    }

    fn remove_top(&mut self) -> Result<()> {
        if self.fake {
            return Ok(());
        }
        self.set.dir_fds.clear();
        std::fs::remove_dir(&self.set.dir)
            .with_context(|| format!("rmdir {}", self.set.dir.display()))?;
        self.sync_fs()
    }

    /// Stat every file in the (shuffled) order of the names.
    fn stat_random(&mut self, io: &mut Io, ctx: &mut Ctx) -> Result<()> {
        if self.fake {
            return self.walk(io, ctx, false);
        }
        let dir = self.set.dir.clone();
        let fd = Self::open_dir(&dir)?;
        // the names stay put while each is stat'ed (no copy in the loop)
        let names = std::mem::take(&mut self.set.names);
        let r = self.each_name(io, ctx, &names, |w, tx, name| {
            w.stat_one(tx, &fd, &dir, name)
        });
        self.set.names = names;
        r
    }

    fn each_name(
        &mut self,
        io: &mut Io,
        ctx: &mut Ctx,
        names: &[String],
        mut f: impl FnMut(&mut Self, &mut Tx, &str) -> Result<()>,
    ) -> Result<()> {
        let mut names = names.iter();
        io.transact(ctx, &mut |tx: &mut Tx| {
            let Some(name) = names.next() else {
                return Ok(false);
            };
            let t = now_ns();
            f(self, tx, name)?;
            self.note(t);
            Ok(true)
        })
    }

    /// Delete every file in the (shuffled) order of the names.
    fn delete_random(&mut self, io: &mut Io, ctx: &mut Ctx) -> Result<()> {
        if !self.each(io, ctx, Self::delete_one)? {
            return Ok(());
        }
        if !self.fake && self.cfg.dirs > 1 {
            for d in self.set.subdirs(&self.cfg) {
                std::fs::remove_dir(&d).with_context(|| format!("rmdir {}", d.display()))?;
            }
        }
        self.remove_top()
    }
}

impl Worker for FileWorker<'_> {
    fn kinds(&self) -> &[OpKind] {
        FILE_KINDS
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let FileWorker { engine, files } = self;
        let io = &mut **engine;
        match files.test {
            Test::SeqCreate | Test::RanCreate => files.create(io, ctx),
            Test::SeqStat => files.walk(io, ctx, false),
            Test::SeqDel => files.walk(io, ctx, true),
            Test::RanStat => files.stat_random(io, ctx),
            Test::RanDel => files.delete_random(io, ctx),
            t => bail!("internal error: {} is not a file test", t.title()),
        }
    }

    fn finish(&mut self) -> serde_json::Value {
        super::Slowest::record(self.files.latency)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::bonnie::Seed;

    fn cfg(num: u32, dirs: u32) -> FileTests {
        FileTests {
            num,
            max: 0,
            min: 0,
            dirs,
            chunk: 8192,
        }
    }

    #[test]
    fn names_follow_bonnie_pp() {
        let seed = Seed::Num(12345);
        let mut r = Rand::new(&seed);
        let (names, dirs) = make_names(&cfg(1, 1), &mut r, false);
        assert_eq!(names.len(), 1024);
        assert!(dirs.iter().all(|&d| d == 0));
        // the first name: its number, then as many random characters as
        // the first draw mod 13 says, each drawn from the 62
        let mut check = crate::workload::bsd_random::BsdRandom::new(12345);
        let len = check.next() as usize % 13;
        let extra: String = (0..len)
            .map(|_| RAND_CHARS[check.next() as usize % 62] as char)
            .collect();
        assert_eq!(names[0], format!("0000000000{extra}"));
        assert!(names[1].starts_with("0000000001"));
        let (rnames, _) = make_names(&cfg(1, 1), &mut r, true);
        assert!(rnames[5].ends_with("0000000005"));
        let mut sorted = rnames.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 1024, "names are unique");
    }

    #[test]
    fn names_spread_over_directories_as_bonnie_pp_does() {
        let seed = Seed::Num(1);
        let (names, dirs) = make_names(&cfg(1, 4), &mut Rand::new(&seed), false);
        // 1024/4 = 256, and a directory takes 257 before the next
        assert_eq!(dirs.iter().filter(|&&d| d == 0).count(), 257);
        assert_eq!(dirs.iter().filter(|&&d| d == 3).count(), 1024 - 3 * 257);
        assert!(names[0].starts_with("00000/"));
        assert!(names[1023].starts_with("00003/"));
    }
}
