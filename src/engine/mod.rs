//! Engines: how operations reach the kernel.
//!
//! One trait, [`Engine`], and one table, [`ENGINES`]. Data operations go
//! through fio's queue → reap model: [`Engine::queue`] either completes the
//! operation at once (synchronous engines return `Some(Completion)`) or takes
//! it into flight (a queued engine such as io_uring returns `None`), and
//! [`Engine::reap`] collects finished ones. Callers written against this model
//! drive any engine at any depth; [`Engine::exec`] is the shorthand for one
//! operation at a time.
//!
//! Each engine owns its I/O buffers: `depth` slots of `max_len` bytes,
//! page-aligned (O_DIRECT needs that), filled with incompressible bytes when
//! the engine is made. An operation names its slot, so buffers outlive the
//! operation as queued engines require.

mod buffer;
mod buffered;
mod null;
mod psync;
mod sync;

pub use buffer::AlignedBuf;

use crate::measure::OpKind;
use crate::measure::clock::now_ns;
use serde::Serialize;
use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// A file opened through an engine: an index into its file table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId(pub u32);

/// How to open a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenHow {
    pub read: bool,
    pub write: bool,
    pub create: bool,
    pub truncate: bool,
    pub append: bool,
    /// O_SYNC: each write returns once its data and metadata are on the
    /// device (IOzone's `-o`).
    pub sync: bool,
}

impl OpenHow {
    pub const READ: OpenHow = OpenHow {
        read: true,
        write: false,
        create: false,
        truncate: false,
        append: false,
        sync: false,
    };
    pub const READ_WRITE: OpenHow = OpenHow {
        read: true,
        write: true,
        create: false,
        truncate: false,
        append: false,
        sync: false,
    };
    pub const CREATE: OpenHow = OpenHow {
        read: true,
        write: true,
        create: true,
        truncate: true,
        append: false,
        sync: false,
    };
}

/// One data operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Req {
    pub kind: OpKind,
    pub file: FileId,
    pub offset: u64,
    pub len: u32,
    /// Which buffer slot to read into or write from (`0..depth`).
    pub slot: u16,
}

impl Req {
    pub fn read(file: FileId, offset: u64, len: u32) -> Req {
        Req {
            kind: OpKind::Read,
            file,
            offset,
            len,
            slot: 0,
        }
    }

    pub fn write(file: FileId, offset: u64, len: u32) -> Req {
        Req {
            kind: OpKind::Write,
            ..Req::read(file, offset, len)
        }
    }

    pub fn fsync(file: FileId) -> Req {
        Req {
            kind: OpKind::Fsync,
            ..Req::read(file, 0, 0)
        }
    }
}

/// A finished operation and how long it took.
#[derive(Clone, Copy, Debug)]
pub struct Completion {
    pub req: Req,
    /// Bytes transferred (may be short at end of file).
    pub bytes: u64,
    pub lat_ns: u64,
    /// When it finished, on [`crate::measure::clock::now_ns`]'s clock.
    pub done_ns: u64,
}

/// What an engine can do; checked before a run starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Caps {
    /// Completes every operation inside `queue`.
    pub sync: bool,
    /// Can open files with O_DIRECT.
    pub direct: bool,
    /// Does no I/O at all (for measuring iogauge itself).
    pub fake: bool,
    /// Keeps a user-space buffer (stdio-like): `fsync` flushes it first.
    pub buffered: bool,
}

/// How the engine is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineOpts {
    /// Open data files with O_DIRECT.
    pub direct: bool,
    /// Operations in flight at once (1 for synchronous engines).
    pub depth: u16,
    /// Largest transfer; each buffer slot holds this many bytes.
    pub max_len: usize,
    /// Use fdatasync(2) where an Fsync op asks for a sync.
    pub datasync: bool,
    /// Seed for the buffer contents.
    pub seed: u64,
}

impl Default for EngineOpts {
    fn default() -> Self {
        EngineOpts {
            direct: false,
            depth: 1,
            max_len: 64 << 10,
            datasync: false,
            seed: 0,
        }
    }
}

/// When to call fsync(2) (or fdatasync(2) with --fdatasync).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FsyncPolicy {
    Never,
    /// Once per file when the worker finishes (timed, inside the run).
    End,
    /// After every N writes of a worker, on the file just written.
    Every(u64),
}

pub fn parse_fsync(s: &str) -> Result<FsyncPolicy, String> {
    match s {
        "never" => Ok(FsyncPolicy::Never),
        "end" => Ok(FsyncPolicy::End),
        _ => match s.strip_prefix("every=").map(str::parse::<u64>) {
            Some(Ok(n)) if n > 0 => Ok(FsyncPolicy::Every(n)),
            _ => Err(format!(
                "'{s}' is not an fsync policy: use never, end or every=N (N ≥ 1)"
            )),
        },
    }
}

/// Alignment for O_DIRECT buffers, offsets and lengths.
pub const DIRECT_ALIGN: usize = 4096;

pub trait Engine: Send {
    fn info(&self) -> &'static EngineInfo;

    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId>;

    /// Close a file (a buffered engine flushes it first).
    fn close(&mut self, file: FileId) -> io::Result<()>;

    /// Start one data operation. `Some` when it completed at once.
    fn queue(&mut self, req: Req) -> io::Result<Option<Completion>>;

    /// Submit what `queue` took (a no-op for synchronous engines).
    fn commit(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// Wait for at least `min` queued operations and append them to `out`.
    fn reap(&mut self, _min: usize, _out: &mut Vec<Completion>) -> io::Result<usize> {
        Ok(0)
    }

    /// The buffer of `slot`, to fill before a write or inspect after a read.
    fn buf_mut(&mut self, slot: u16) -> &mut [u8];

    /// Remove a file. Engines that do no I/O do nothing.
    fn unlink(&mut self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }

    /// The path a file was opened with, for error messages.
    fn path(&self, file: FileId) -> &Path;

    /// Run one operation to completion.
    fn exec(&mut self, req: Req) -> io::Result<Completion> {
        if let Some(c) = self.queue(req)? {
            return Ok(c);
        }
        self.commit()?;
        let mut out = Vec::with_capacity(1);
        self.reap(1, &mut out)?;
        out.pop()
            .ok_or_else(|| io::Error::other("engine reaped no completion"))
    }
}

/// Why a write came back short. The system takes part of a write when the
/// disk fills (or a quota or a size limit is reached) and gives the reason
/// only to the next call: write the rest of `req` (`done` bytes of it
/// went) until a call fails or the write is whole. `Err` is the real cause
/// (ENOSPC, EDQUOT, EFBIG), `Ok` a write finished in more calls. The
/// buffer of `req.slot` is as it was, afterwards.
#[cold]
pub fn finish_write(engine: &mut dyn Engine, req: Req, done: u64) -> io::Result<()> {
    let len = req.len as usize;
    let data = engine.buf_mut(req.slot)[..len].to_vec();
    let mut done = done as usize;
    let r = loop {
        if done >= len {
            break Ok(());
        }
        let rest = &data[done..];
        engine.buf_mut(req.slot)[..rest.len()].copy_from_slice(rest);
        let next = Req {
            offset: req.offset + done as u64,
            len: rest.len() as u32,
            ..req
        };
        match engine.exec(next) {
            Ok(c) if c.bytes == 0 => {
                break Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    format!("the system took {done} of {len} bytes, then none, and gave no error"),
                ));
            }
            Ok(c) => done += c.bytes as usize,
            Err(e) => break Err(e),
        }
    };
    engine.buf_mut(req.slot)[..len].copy_from_slice(&data);
    r
}

/// An entry of the engine table.
pub struct EngineInfo {
    pub name: &'static str,
    pub doc: &'static str,
    pub caps: Caps,
    pub make: fn(&EngineOpts) -> io::Result<Box<dyn Engine>>,
}

/// Every engine iogauge has.
pub const ENGINES: &[EngineInfo] = &[psync::INFO, sync::INFO, buffered::INFO, null::INFO];

fn find(name: &str) -> Option<&'static EngineInfo> {
    ENGINES.iter().find(|e| e.name == name)
}

/// The names of all engines, for help and error messages.
pub fn names() -> String {
    ENGINES
        .iter()
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// An engine of the table, chosen once (by the command line, a control
/// file or a model) and passed around typed: nothing after the choice
/// looks a name up again. Serialises as its name.
#[derive(Clone, Copy)]
pub struct Choice(&'static EngineInfo);

impl Choice {
    pub const PSYNC: Choice = Choice(&ENGINES[0]);
    pub const SYNC: Choice = Choice(&ENGINES[1]);
    pub const BUFFERED: Choice = Choice(&ENGINES[2]);
    pub const NULL: Choice = Choice(&ENGINES[3]);

    /// The engine called `name`; the one place that knows the names.
    pub fn parse(name: &str) -> Result<Choice, String> {
        find(name.trim())
            .map(Choice)
            .ok_or_else(|| format!("unknown engine '{name}'; the engines are: {}", names()))
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    pub fn info(self) -> &'static EngineInfo {
        self.0
    }

    pub fn caps(self) -> Caps {
        self.0.caps
    }

    /// Does no I/O at all (needs no space, touches no file).
    pub fn is_fake(self) -> bool {
        self.0.caps.fake
    }

    /// Check that the engine can do what `opts` asks, without making it.
    pub fn check(self, opts: &EngineOpts) -> Result<(), String> {
        let (name, caps) = (self.0.name, self.0.caps);
        // (extra slots of a synchronous engine are buffers, not depth)
        if opts.direct && !caps.direct {
            return Err(format!(
                "engine '{name}' cannot do O_DIRECT I/O; use psync or sync with --direct"
            ));
        }
        Ok(())
    }

    /// Make the engine with `opts`, checking its capabilities first.
    pub fn make(self, opts: &EngineOpts) -> Result<Box<dyn Engine>, String> {
        self.check(opts)?;
        (self.0.make)(opts).map_err(|e| format!("cannot set up engine '{}': {e}", self.0.name))
    }
}

impl PartialEq for Choice {
    fn eq(&self, other: &Choice) -> bool {
        self.0.name == other.0.name
    }
}
impl Eq for Choice {}

impl std::fmt::Debug for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

impl std::fmt::Display for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

impl Serialize for Choice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name)
    }
}

impl<'de> serde::Deserialize<'de> for Choice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Choice, D::Error> {
        let name = String::deserialize(d)?;
        Choice::parse(&name).map_err(serde::de::Error::custom)
    }
}

/// Open a real file for a kernel-backed engine.
pub(crate) fn open_file(path: &Path, how: OpenHow, direct: bool) -> io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(how.read)
        .write(how.write || how.append)
        .create(how.create)
        .truncate(how.truncate)
        .append(how.append)
        .mode(0o644);
    let mut flags = 0;
    if direct {
        flags |= libc::O_DIRECT;
    }
    if how.sync {
        flags |= libc::O_SYNC;
    }
    o.custom_flags(flags);
    o.open(path).map_err(|e| {
        if direct && e.raw_os_error() == Some(libc::EINVAL) {
            io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "the file system holding {} refuses O_DIRECT (as tmpfs did before Linux 6.6); run without --direct or pick another --dir",
                    path.display()
                ),
            )
        } else {
            io::Error::new(e.kind(), format!("{}: {e}", path.display()))
        }
    })
}

/// A table of open files shared by the kernel-backed engines. A slot's
/// path buffer is kept when its file closes and reused by the next open, so
/// opening and closing files one after another (PostMark) allocates nothing.
pub(crate) struct FileTable<T> {
    files: Vec<Option<T>>,
    paths: Vec<PathBuf>,
    free: Vec<u32>,
}

impl<T> Default for FileTable<T> {
    fn default() -> Self {
        FileTable {
            files: Vec::new(),
            paths: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> FileTable<T> {
    pub fn insert(&mut self, f: T, path: &Path) -> FileId {
        if let Some(i) = self.free.pop() {
            self.files[i as usize] = Some(f);
            let p = self.paths[i as usize].as_mut_os_string();
            p.clear();
            p.push(path.as_os_str());
            FileId(i)
        } else {
            self.files.push(Some(f));
            self.paths.push(path.to_path_buf());
            FileId(self.files.len() as u32 - 1)
        }
    }

    #[inline]
    pub fn get(&mut self, id: FileId) -> io::Result<&mut T> {
        match self.files.get_mut(id.0 as usize) {
            Some(Some(f)) => Ok(f),
            _ => Err(bad_file(id)),
        }
    }

    pub fn remove(&mut self, id: FileId) -> io::Result<T> {
        match self.files.get_mut(id.0 as usize).and_then(Option::take) {
            Some(f) => {
                self.free.push(id.0);
                Ok(f)
            }
            None => Err(bad_file(id)),
        }
    }

    pub fn path(&self, id: FileId) -> &Path {
        match self.files.get(id.0 as usize) {
            Some(Some(_)) => &self.paths[id.0 as usize],
            _ => Path::new("?"),
        }
    }
}

fn bad_file(id: FileId) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("file id {} is not open", id.0),
    )
}

thread_local! {
    /// Set by [`untimed`]: the engines on this thread skip their clock reads.
    static UNTIMED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` with per-operation timing off on this thread: the engines then
/// complete operations with `lat_ns` and `done_ns` 0 instead of reading the
/// clock before and after each. For callers that time whole sequences of
/// operations themselves (PostMark times each file from open to close), so
/// that the clock reads are neither a cost nor inside their measurement.
pub fn untimed<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            UNTIMED.set(self.0);
        }
    }
    let _restore = Restore(UNTIMED.replace(true));
    f()
}

/// Time one synchronous call and wrap its result as a completion.
#[inline]
pub(crate) fn timed(req: Req, f: impl FnOnce() -> io::Result<usize>) -> io::Result<Completion> {
    if UNTIMED.get() {
        return Ok(Completion {
            req,
            bytes: f()? as u64,
            lat_ns: 0,
            done_ns: 0,
        });
    }
    let t0 = now_ns();
    let n = f()?;
    let done_ns = now_ns();
    Ok(Completion {
        req,
        bytes: n as u64,
        lat_ns: done_ns - t0,
        done_ns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fsync_policies() {
        assert_eq!(parse_fsync("never"), Ok(FsyncPolicy::Never));
        assert_eq!(parse_fsync("end"), Ok(FsyncPolicy::End));
        assert_eq!(parse_fsync("every=16"), Ok(FsyncPolicy::Every(16)));
        for bad in ["every=0", "every=x", "always", ""] {
            assert!(parse_fsync(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn engine_table_is_sound() {
        let mut names: Vec<_> = ENGINES.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ENGINES.len(), "engine names are unique");
        for e in ENGINES {
            assert!(!e.doc.is_empty(), "{} has docs", e.name);
            let eng = (e.make)(&EngineOpts::default()).unwrap();
            assert_eq!(eng.info().name, e.name);
        }
    }

    #[test]
    fn capability_checks_refuse_what_an_engine_cannot_do() {
        let direct = EngineOpts {
            direct: true,
            ..Default::default()
        };
        assert!(
            make("buffered", &direct)
                .err()
                .unwrap()
                .contains("O_DIRECT")
        );
        assert!(
            make("nope", &EngineOpts::default())
                .err()
                .unwrap()
                .contains("psync")
        );
        // the table's names parse; the engines are listed in the refusal
        for e in ENGINES {
            assert_eq!(Choice::parse(e.name).unwrap().name(), e.name);
        }
        assert_eq!(serde_json::to_string(&Choice::SYNC).unwrap(), "\"sync\"");
        let back: Choice = serde_json::from_str("\"null\"").unwrap();
        assert!(back.is_fake() && back == Choice::NULL);
        assert!(serde_json::from_str::<Choice>("\"nope\"").is_err());
    }

    fn make(name: &str, o: &EngineOpts) -> Result<Box<dyn Engine>, String> {
        Choice::parse(name)?.make(o)
    }

    /// Every kernel-backed engine writes and reads back the same bytes.
    #[test]
    fn engines_round_trip_data() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["psync", "sync", "buffered"] {
            let mut e = make(name, &EngineOpts::default()).unwrap();
            let path = dir.path().join(name);
            let f = e.open(&path, OpenHow::CREATE).unwrap();
            let pattern: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 3) as u8).collect();
            e.buf_mut(0)[..8192].copy_from_slice(&pattern);
            assert_eq!(e.exec(Req::write(f, 0, 8192)).unwrap().bytes, 8192);
            assert_eq!(e.exec(Req::write(f, 8192, 100)).unwrap().bytes, 100);
            e.exec(Req::fsync(f)).unwrap();
            e.buf_mut(0).fill(0);
            let c = e.exec(Req::read(f, 4096, 4096)).unwrap();
            assert_eq!(c.bytes, 4096);
            assert_eq!(&e.buf_mut(0)[..4096], &pattern[4096..8192], "{name}");
            // a read past the end is short, not an error
            assert_eq!(
                e.exec(Req::read(f, 8192, 4096)).unwrap().bytes,
                100,
                "{name}"
            );
            e.close(f).unwrap();
            assert_eq!(std::fs::metadata(&path).unwrap().len(), 8292, "{name}");
        }
    }

    #[test]
    fn untimed_operations_read_no_clock() {
        let mut e = make("null", &EngineOpts::default()).unwrap();
        let f = e.open(Path::new("x"), OpenHow::CREATE).unwrap();
        let c = untimed(|| e.exec(Req::write(f, 0, 100)).unwrap());
        assert_eq!((c.bytes, c.lat_ns, c.done_ns), (100, 0, 0));
        // timing is back after the closure
        assert!(e.exec(Req::write(f, 0, 100)).unwrap().done_ns > 0);
    }

    #[test]
    fn null_engine_touches_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = make("null", &EngineOpts::default()).unwrap();
        let f = e.open(&dir.path().join("x"), OpenHow::CREATE).unwrap();
        assert_eq!(e.exec(Req::write(f, 0, 4096)).unwrap().bytes, 4096);
        e.close(f).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

/// For tests: an engine that hands each request to `f` before `inner` gets
/// it. `f` may look at it, change it, or refuse it with an error.
#[cfg(test)]
pub struct Intercept<F> {
    pub inner: Box<dyn Engine>,
    pub f: F,
}

#[cfg(test)]
impl<F: FnMut(Req) -> io::Result<Req> + Send> Engine for Intercept<F> {
    fn info(&self) -> &'static EngineInfo {
        self.inner.info()
    }
    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        self.inner.open(path, how)
    }
    fn close(&mut self, file: FileId) -> io::Result<()> {
        self.inner.close(file)
    }
    fn queue(&mut self, req: Req) -> io::Result<Option<Completion>> {
        let req = (self.f)(req)?;
        self.inner.queue(req)
    }
    fn buf_mut(&mut self, slot: u16) -> &mut [u8] {
        self.inner.buf_mut(slot)
    }
    fn unlink(&mut self, path: &Path) -> io::Result<()> {
        self.inner.unlink(path)
    }
    fn path(&self, file: FileId) -> &Path {
        self.inner.path(file)
    }
}

#[cfg(test)]
mod finish_write_tests {
    use super::*;

    /// An engine that takes 18 bytes of the first write, then refuses
    /// every call with `then` (or passes them on).
    fn short(then: Option<i32>) -> (tempfile::TempDir, Box<dyn Engine>, FileId) {
        let d = tempfile::tempdir().unwrap();
        let inner = Choice::PSYNC
            .make(&EngineOpts {
                max_len: 4096,
                ..Default::default()
            })
            .unwrap();
        let mut calls = 0;
        let mut e: Box<dyn Engine> = Box::new(Intercept {
            inner,
            f: move |mut req: Req| {
                calls += 1;
                match (calls, then) {
                    (1, _) => req.len = 18,
                    (_, Some(errno)) => return Err(io::Error::from_raw_os_error(errno)),
                    _ => {}
                }
                Ok(req)
            },
        });
        let f = e.open(&d.path().join("f"), OpenHow::CREATE).unwrap();
        (d, e, f)
    }

    #[test]
    fn a_short_write_is_named_by_the_next_calls_error() {
        let (_d, mut e, f) = short(Some(libc::ENOSPC));
        let req = Req::write(f, 0, 50);
        let c = e.exec(req).unwrap();
        assert_eq!(c.bytes, 18);
        let err = finish_write(e.as_mut(), req, c.bytes).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOSPC));
    }

    #[test]
    fn a_short_write_finished_by_more_calls_is_whole() {
        let (d, mut e, f) = short(None);
        for (i, b) in e.buf_mut(0)[..50].iter_mut().enumerate() {
            *b = i as u8;
        }
        let req = Req::write(f, 0, 50);
        let c = e.exec(req).unwrap();
        finish_write(e.as_mut(), req, c.bytes).unwrap();
        let want: Vec<u8> = (0..50).collect();
        assert_eq!(std::fs::read(d.path().join("f")).unwrap(), want);
        // the caller's buffer is as it was
        assert_eq!(&e.buf_mut(0)[..50], &want[..]);
    }
}
