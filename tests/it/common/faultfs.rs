//! A FUSE file system of the tests' own that fails chosen operations with a
//! chosen errno: a passthrough over a temporary directory (the kernel here
//! has no device-mapper, so no dm-flakey or dm-error), mounted in the test
//! process (a background session of the `fuser` crate, mounted with
//! mount(2) directly: we are root, and no fusermount is needed).
//!
//! A [`Fault`] names the operation (read, write, fsync, flush, open,
//! create, unlink, mkdir, rmdir, rename), the errno, how many calls of it
//! to let through first, and optionally a byte offset (the first read or
//! write that covers it fails) or a part of the file's name. Faults can be
//! armed and cleared while mounted ([`FaultFs::arm`], [`FaultFs::clear`]).
//!
//! Every file is opened with FOPEN_DIRECT_IO, so that each read and write
//! of the program reaches this file system (none is served from or
//! deferred in the page cache) and its error is the program's.

use fuser::{
    Config, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo,
    LockOwner, MountOption, OpenFlags, RenameFlags, ReplyAttr, ReplyCreate, ReplyData,
    ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, Request, TimeOrNow,
    WriteFlags,
};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// An operation a [`Fault`] can fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Read,
    Write,
    Fsync,
    Flush,
    Open,
    Create,
    Unlink,
    Mkdir,
    Rmdir,
    Rename,
}

/// One injected failure.
#[derive(Clone, Debug)]
pub struct Fault {
    pub op: Op,
    pub errno: i32,
    /// Calls of `op` (that match `name` and `offset`) let through first.
    pub after: u64,
    /// Only a read or write that covers this byte offset.
    pub offset: Option<u64>,
    /// Only files whose name contains this.
    pub name: Option<String>,
    /// Every matching call from then on fails (else only the first).
    pub sticky: bool,
}

impl Fault {
    /// `op` fails with `errno` at its first call from now on, and every
    /// call after it.
    pub fn new(op: Op, errno: i32) -> Fault {
        Fault {
            op,
            errno,
            after: 0,
            offset: None,
            name: None,
            sticky: true,
        }
    }

    pub fn after(mut self, n: u64) -> Fault {
        self.after = n;
        self
    }

    pub fn at_offset(mut self, at: u64) -> Fault {
        self.offset = Some(at);
        self
    }

    pub fn named(mut self, part: &str) -> Fault {
        self.name = Some(part.to_string());
        self
    }
}

/// The armed faults, their counts, and the calls seen of each operation.
#[derive(Default)]
struct Faults {
    armed: Vec<(Fault, u64, bool)>,
    calls: HashMap<Op, u64>,
    injected: u64,
}

impl Faults {
    /// The errno `op` on `path` (covering `range`) fails with, if any.
    fn check(&mut self, op: Op, path: &Path, range: Option<(u64, u64)>) -> Option<Errno> {
        *self.calls.entry(op).or_default() += 1;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        for (f, seen, fired) in &mut self.armed {
            if f.op != op
                || (*fired && !f.sticky)
                || f.name
                    .as_ref()
                    .is_some_and(|part| !name.as_ref().is_some_and(|n| n.contains(part)))
            {
                continue;
            }
            if let (Some(at), Some((off, len))) = (f.offset, range)
                && !(off <= at && at < off + len)
            {
                continue;
            }
            if *seen < f.after {
                *seen += 1;
                continue;
            }
            *fired = true;
            self.injected += 1;
            return Some(Errno::from_i32(f.errno));
        }
        None
    }
}

/// The file system's state: inode numbers by path (both ways), open files.
struct State {
    paths: HashMap<u64, PathBuf>,
    inos: HashMap<PathBuf, u64>,
    next_ino: u64,
    files: HashMap<u64, File>,
    next_fh: u64,
}

pub struct Passthrough {
    root: PathBuf,
    state: Mutex<State>,
    faults: Arc<Mutex<Faults>>,
}

const TTL: Duration = Duration::ZERO;

fn errno(e: std::io::Error) -> Errno {
    Errno::from_i32(e.raw_os_error().unwrap_or(libc::EIO))
}

fn kind_of(t: std::fs::FileType) -> FileType {
    if t.is_dir() {
        FileType::Directory
    } else if t.is_symlink() {
        FileType::Symlink
    } else {
        FileType::RegularFile
    }
}

fn time(secs: i64, nsecs: i64) -> std::time::SystemTime {
    std::time::UNIX_EPOCH + Duration::new(secs.max(0) as u64, nsecs.clamp(0, 999_999_999) as u32)
}

impl Passthrough {
    fn path(&self, ino: INodeNo) -> Result<PathBuf, Errno> {
        let s = self.state.lock().unwrap();
        s.paths.get(&ino.0).cloned().ok_or(Errno::ENOENT)
    }

    /// The path of an open file, for the faults keyed on names; an open
    /// file that was unlinked since (bonnie++ unlinks what its seekers
    /// still use) has none, and its handle still works.
    fn open_path(&self, ino: INodeNo) -> Result<PathBuf, Errno> {
        Ok(self.path(ino).unwrap_or_default())
    }

    fn ino(&self, path: &Path) -> u64 {
        let mut s = self.state.lock().unwrap();
        if let Some(&i) = s.inos.get(path) {
            return i;
        }
        let i = s.next_ino;
        s.next_ino += 1;
        s.paths.insert(i, path.to_path_buf());
        s.inos.insert(path.to_path_buf(), i);
        i
    }

    fn forget_path(&self, path: &Path) {
        let mut s = self.state.lock().unwrap();
        if let Some(i) = s.inos.remove(path) {
            s.paths.remove(&i);
        }
    }

    fn attr(&self, path: &Path) -> Result<FileAttr, Errno> {
        let md = std::fs::symlink_metadata(path).map_err(errno)?;
        Ok(FileAttr {
            ino: INodeNo(self.ino(path)),
            size: md.len(),
            blocks: md.blocks(),
            atime: time(md.atime(), md.atime_nsec()),
            mtime: time(md.mtime(), md.mtime_nsec()),
            ctime: time(md.ctime(), md.ctime_nsec()),
            crtime: time(md.ctime(), md.ctime_nsec()),
            kind: kind_of(md.file_type()),
            perm: (md.mode() & 0o7777) as u16,
            nlink: md.nlink() as u32,
            uid: md.uid(),
            gid: md.gid(),
            rdev: md.rdev() as u32,
            blksize: 4096,
            flags: 0,
        })
    }

    fn fault(&self, op: Op, path: &Path, range: Option<(u64, u64)>) -> Option<Errno> {
        self.faults.lock().unwrap().check(op, path, range)
    }

    fn child(&self, parent: INodeNo, name: &OsStr) -> Result<PathBuf, Errno> {
        Ok(self.path(parent)?.join(name))
    }

    fn file(&self, fh: FileHandle) -> Result<File, Errno> {
        let s = self.state.lock().unwrap();
        s.files
            .get(&fh.0)
            .ok_or(Errno::EBADF)?
            .try_clone()
            .map_err(errno)
    }

    fn keep(&self, f: File) -> FileHandle {
        let mut s = self.state.lock().unwrap();
        let fh = s.next_fh;
        s.next_fh += 1;
        s.files.insert(fh, f);
        FileHandle(fh)
    }
}

/// The open(2) options of `flags` (access mode, append, truncate).
fn options(flags: i32) -> std::fs::OpenOptions {
    let mut o = std::fs::OpenOptions::new();
    match flags & libc::O_ACCMODE {
        libc::O_RDONLY => o.read(true),
        libc::O_WRONLY => o.write(true),
        _ => o.read(true).write(true),
    };
    // O_DIRECT is ours to serve (FOPEN_DIRECT_IO); the backing file is
    // used through the page cache
    o.custom_flags(flags & (libc::O_APPEND | libc::O_TRUNC | libc::O_SYNC | libc::O_DSYNC));
    o
}

impl Filesystem for Passthrough {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match self.child(parent, name).and_then(|p| self.attr(&p)) {
            Ok(a) => reply.entry(&TTL, &a, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.path(ino).and_then(|p| self.attr(&p)) {
            Ok(a) => reply.attr(&TTL, &a),
            Err(e) => reply.error(e),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<std::time::SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<std::time::SystemTime>,
        _chgtime: Option<std::time::SystemTime>,
        _bkuptime: Option<std::time::SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        let r = self.path(ino).and_then(|p| {
            if let Some(m) = mode {
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(m & 0o7777))
                    .map_err(errno)?;
            }
            if let Some(s) = size {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&p)
                    .and_then(|f| f.set_len(s))
                    .map_err(errno)?;
            }
            self.attr(&p)
        });
        match r {
            Ok(a) => reply.attr(&TTL, &a),
            Err(e) => reply.error(e),
        }
    }

    fn mkdir(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        _umask: u32,
        reply: ReplyEntry,
    ) {
        let r = self.child(parent, name).and_then(|p| {
            if let Some(e) = self.fault(Op::Mkdir, &p, None) {
                return Err(e);
            }
            std::fs::create_dir(&p).map_err(errno)?;
            let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode & 0o7777));
            self.attr(&p)
        });
        match r {
            Ok(a) => reply.entry(&TTL, &a, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let r = self.child(parent, name).and_then(|p| {
            if let Some(e) = self.fault(Op::Unlink, &p, None) {
                return Err(e);
            }
            std::fs::remove_file(&p).map_err(errno)?;
            self.forget_path(&p);
            Ok(())
        });
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let r = self.child(parent, name).and_then(|p| {
            if let Some(e) = self.fault(Op::Rmdir, &p, None) {
                return Err(e);
            }
            std::fs::remove_dir(&p).map_err(errno)?;
            self.forget_path(&p);
            Ok(())
        });
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        _flags: RenameFlags,
        reply: ReplyEmpty,
    ) {
        let r = (|| {
            let from = self.child(parent, name)?;
            let to = self.child(newparent, newname)?;
            if let Some(e) = self.fault(Op::Rename, &from, None) {
                return Err(e);
            }
            std::fs::rename(&from, &to).map_err(errno)?;
            // the moved entry and everything under it take their new paths
            let mut s = self.state.lock().unwrap();
            if let Some(i) = s.inos.remove(&to) {
                s.paths.remove(&i);
            }
            let moved: Vec<(PathBuf, u64)> = s
                .inos
                .iter()
                .filter(|(p, _)| p.starts_with(&from))
                .map(|(p, i)| (p.clone(), *i))
                .collect();
            for (p, i) in moved {
                let q = to.join(p.strip_prefix(&from).unwrap());
                s.inos.remove(&p);
                s.inos.insert(q.clone(), i);
                s.paths.insert(i, q);
            }
            Ok(())
        })();
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        let r = self.path(ino).and_then(|p| {
            if let Some(e) = self.fault(Op::Open, &p, None) {
                return Err(e);
            }
            options(flags.0).open(&p).map_err(errno)
        });
        match r {
            Ok(f) => reply.opened(self.keep(f), FopenFlags::FOPEN_DIRECT_IO),
            Err(e) => reply.error(e),
        }
    }

    fn create(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        _umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        let r = self.child(parent, name).and_then(|p| {
            if let Some(e) = self.fault(Op::Create, &p, None) {
                return Err(e);
            }
            let mut o = options(flags);
            o.create(true).mode(mode & 0o7777);
            if flags & libc::O_EXCL != 0 {
                o.create_new(true);
            }
            // a file opened write-only is still created readable here
            let f = o.open(&p).map_err(errno)?;
            Ok((f, self.attr(&p)?))
        });
        match r {
            Ok((f, a)) => reply.created(
                &TTL,
                &a,
                Generation(0),
                self.keep(f),
                FopenFlags::FOPEN_DIRECT_IO,
            ),
            Err(e) => reply.error(e),
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let r = self.open_path(ino).and_then(|p| {
            if let Some(e) = self.fault(Op::Read, &p, Some((offset, u64::from(size)))) {
                return Err(e);
            }
            let f = self.file(fh)?;
            let mut buf = vec![0u8; size as usize];
            let mut got = 0;
            while got < buf.len() {
                match f.read_at(&mut buf[got..], offset + got as u64) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) => return Err(errno(e)),
                }
            }
            buf.truncate(got);
            Ok(buf)
        });
        match r {
            Ok(b) => reply.data(&b),
            Err(e) => reply.error(e),
        }
    }

    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        let r = self.open_path(ino).and_then(|p| {
            if let Some(e) = self.fault(Op::Write, &p, Some((offset, data.len() as u64))) {
                return Err(e);
            }
            self.file(fh)?.write_all_at(data, offset).map_err(errno)
        });
        match r {
            Ok(()) => reply.written(data.len() as u32),
            Err(e) => reply.error(e),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        match self.open_path(ino).map(|p| self.fault(Op::Flush, &p, None)) {
            Ok(Some(e)) | Err(e) => reply.error(e),
            Ok(None) => reply.ok(),
        }
    }

    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        self.state.lock().unwrap().files.remove(&fh.0);
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        datasync: bool,
        reply: ReplyEmpty,
    ) {
        let r = self.open_path(ino).and_then(|p| {
            if let Some(e) = self.fault(Op::Fsync, &p, None) {
                return Err(e);
            }
            let f = self.file(fh)?;
            match datasync {
                true => f.sync_data(),
                false => f.sync_all(),
            }
            .map_err(errno)
        });
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn opendir(&self, _req: &Request, _ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        reply.opened(FileHandle(0), FopenFlags::empty());
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let dir = match self.path(ino) {
            Ok(p) => p,
            Err(e) => return reply.error(e),
        };
        let entries = match std::fs::read_dir(&dir) {
            Ok(r) => r,
            Err(e) => return reply.error(errno(e)),
        };
        let mut all: Vec<(u64, FileType, std::ffi::OsString)> = vec![
            (ino.0, FileType::Directory, ".".into()),
            (ino.0, FileType::Directory, "..".into()),
        ];
        for e in entries.flatten() {
            let Ok(t) = e.file_type() else { continue };
            all.push((self.ino(&e.path()), kind_of(t), e.file_name()));
        }
        for (i, (ino, kind, name)) in all.into_iter().enumerate().skip(offset as usize) {
            if reply.add(INodeNo(ino), (i + 1) as u64, kind, &name) {
                break;
            }
        }
        reply.ok();
    }

    fn fsyncdir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        match rustix::fs::statvfs(&self.root) {
            Ok(s) => reply.statfs(
                s.f_blocks,
                s.f_bfree,
                s.f_bavail,
                s.f_files,
                s.f_ffree,
                s.f_bsize as u32,
                255,
                s.f_frsize as u32,
            ),
            Err(e) => reply.error(Errno::from_i32(e.raw_os_error())),
        }
    }

    fn fallocate(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        use std::os::fd::AsRawFd;
        let r = self.path(ino).and_then(|p| {
            if let Some(e) = self.fault(Op::Write, &p, Some((offset, length))) {
                return Err(e);
            }
            let f = self.file(fh)?;
            // SAFETY: a valid descriptor; plain system call.
            let rc = unsafe { libc::fallocate(f.as_raw_fd(), mode, offset as i64, length as i64) };
            match rc {
                0 => Ok(()),
                _ => Err(errno(std::io::Error::last_os_error())),
            }
        });
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }
}

/// A mounted [`Passthrough`] over a temporary directory, unmounted when
/// dropped.
pub struct FaultFs {
    // dropped first: unmounted before the directories go
    session: Option<fuser::BackgroundSession>,
    faults: Arc<Mutex<Faults>>,
    mnt: PathBuf,
    backing: PathBuf,
    _dir: tempfile::TempDir,
}

impl FaultFs {
    /// Mount one, or why it cannot be mounted here (not root, no
    /// /dev/fuse, mount refused).
    pub fn new() -> Result<FaultFs, String> {
        if !super::is_root() {
            return Err("mounting a FUSE file system with mount(2) needs root".into());
        }
        if !Path::new("/dev/fuse").exists() {
            return Err("/dev/fuse is missing".into());
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let (mnt, backing) = (dir.path().join("mnt"), dir.path().join("backing"));
        for d in [&mnt, &backing] {
            std::fs::create_dir(d).map_err(|e| e.to_string())?;
        }
        let faults = Arc::new(Mutex::new(Faults::default()));
        let mut state = State {
            paths: HashMap::new(),
            inos: HashMap::new(),
            next_ino: 2,
            files: HashMap::new(),
            next_fh: 1,
        };
        state.paths.insert(1, backing.clone());
        state.inos.insert(backing.clone(), 1);
        let fs = Passthrough {
            root: backing.clone(),
            state: Mutex::new(state),
            faults: Arc::clone(&faults),
        };
        let mut config = Config::default();
        config.mount_options = vec![
            MountOption::FSName("iogauge-faultfs".into()),
            MountOption::Subtype("faultfs".into()),
        ];
        let session = fuser::spawn_mount(fs, &mnt, &config)
            .map_err(|e| format!("cannot mount the FUSE file system: {e}"))?;
        Ok(FaultFs {
            session: Some(session),
            faults,
            mnt,
            backing,
            _dir: dir,
        })
    }

    /// The mount point.
    pub fn path(&self) -> &Path {
        &self.mnt
    }

    /// Fail what `f` says from now on (beside faults already armed).
    pub fn arm(&self, f: Fault) {
        self.faults.lock().unwrap().armed.push((f, 0, false));
    }

    /// Disarm every fault and forget the counts.
    pub fn clear(&self) {
        let mut g = self.faults.lock().unwrap();
        g.armed.clear();
        g.calls.clear();
    }

    /// How many calls failed on purpose since the last [`FaultFs::clear`]
    /// (or ever).
    pub fn injected(&self) -> u64 {
        self.faults.lock().unwrap().injected
    }

    /// How many calls of `op` were made since the last clear.
    pub fn calls(&self, op: Op) -> u64 {
        self.faults
            .lock()
            .unwrap()
            .calls
            .get(&op)
            .copied()
            .unwrap_or(0)
    }

    /// What is in the backing directory (relative names, recursively,
    /// hidden files too): what a run left behind.
    pub fn left(&self) -> Vec<String> {
        super::tree(&self.backing)
    }
}

impl Drop for FaultFs {
    fn drop(&mut self) {
        if let Some(s) = self.session.take() {
            drop(s);
        }
        // a mount a hung session kept is taken away lazily
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.mnt)
            .stderr(std::process::Stdio::null())
            .status();
    }
}

/// A [`FaultFs`], or skip the test with the reason.
#[macro_export]
macro_rules! fault_fs {
    ($test:expr) => {
        match $crate::common::faultfs::FaultFs::new() {
            Ok(fs) => fs,
            Err(why) => {
                eprintln!("SKIPPED {}: {why}", $test);
                return;
            }
        }
    };
}
