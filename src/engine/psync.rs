//! `psync`: one pread(2) or pwrite(2) per operation.

use super::*;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;

pub const INFO: EngineInfo = EngineInfo {
    name: "psync",
    doc: "pread(2)/pwrite(2) at the operation's offset: one system call per operation (fio's psync)",
    caps: Caps {
        sync: true,
        queued: false,
        direct: true,
        fake: false,
        buffered: false,
        grows_files: true,
        ..Caps::NONE
    },
    make: |o| Ok(Box::new(Psync::new(o))),
};

pub struct Psync {
    files: FileTable<File>,
    bufs: Vec<AlignedBuf>,
    /// How data files are opened (O_DIRECT, O_NOATIME).
    mode: FileMode,
    datasync: bool,
}

impl Psync {
    fn new(o: &EngineOpts) -> Self {
        Psync {
            files: FileTable::default(),
            bufs: buffer::slots(o.slots, o.max_len, o.seed),
            mode: o.file_mode(),
            datasync: o.datasync,
        }
    }
}

/// fsync(2) or fdatasync(2).
pub(crate) fn sync_file(f: &File, datasync: bool) -> io::Result<usize> {
    if datasync {
        f.sync_data()?
    } else {
        f.sync_all()?
    }
    Ok(0)
}

impl Engine for Psync {
    fn info(&self) -> &'static EngineInfo {
        &INFO
    }

    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        let f = open_file_as(path, how, self.mode)?;
        Ok(self.files.insert(f, path))
    }

    fn close(&mut self, file: FileId) -> io::Result<()> {
        self.files.remove(file).map(drop)
    }

    #[inline]
    fn queue(&mut self, req: Req) -> io::Result<Queued> {
        let f = self.files.get(req.file)?;
        let buf = &mut self.bufs[req.slot as usize][..req.len as usize];
        let datasync = self.datasync;
        let c = match req.kind {
            OpKind::Read => timed(req, || f.read_at(buf, req.offset)),
            OpKind::Write | OpKind::Append => timed(req, || f.write_at(buf, req.offset)),
            OpKind::Fsync => timed(req, || sync_file(f, datasync)),
            OpKind::Trim => {
                let by = TrimBy::of(f)?;
                timed(req, || trim_fd(f.as_raw_fd(), by, req.offset, req.len))
            }
            k => return Err(unsupported(k)),
        };
        c.map(Queued::Done)
    }

    fn buf_mut(&mut self, slot: u16) -> &mut [u8] {
        &mut self.bufs[slot as usize]
    }

    fn path(&self, file: FileId) -> &Path {
        self.files.path(file)
    }
}

pub(crate) fn unsupported(k: OpKind) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!("this engine does not do '{}' as a data operation", k.name()),
    )
}
