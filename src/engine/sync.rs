//! `sync`: lseek(2) then read(2) or write(2), as the classic C benchmarks do.
//!
//! The lseek is left out when the file offset is already where the operation
//! starts, as a C program reading a file through in pieces after one lseek
//! does (IOStone C/II); a random access almost never lands there.

use super::psync::{sync_file, unsupported};
use super::*;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;

pub const INFO: EngineInfo = EngineInfo {
    name: "sync",
    doc: "lseek(2) then read(2)/write(2), as IOStone, Bonnie and IOBENCH issue them (fio's sync): two system calls per operation, one where the file offset is already at the operation's start (sequential access)",
    caps: Caps {
        sync: true,
        queued: false,
        direct: true,
        fake: false,
        buffered: false,
        grows_files: true,
        ..Caps::NONE
    },
    make: |o| Ok(Box::new(Sync::new(o))),
};

pub struct Sync {
    files: FileTable<(File, u64)>,
    bufs: Vec<AlignedBuf>,
    /// How data files are opened (O_DIRECT, O_NOATIME).
    mode: FileMode,
    datasync: bool,
}

impl Sync {
    fn new(o: &EngineOpts) -> Self {
        Sync {
            files: FileTable::default(),
            bufs: buffer::slots(o.slots, o.max_len, o.seed),
            mode: o.file_mode(),
            datasync: o.datasync,
        }
    }
}

impl Engine for Sync {
    fn info(&self) -> &'static EngineInfo {
        &INFO
    }

    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        let f = open_file_as(path, how, self.mode)?;
        Ok(self.files.insert((f, 0), path))
    }

    fn close(&mut self, file: FileId) -> io::Result<()> {
        self.files.remove(file).map(drop)
    }

    #[inline]
    fn queue(&mut self, req: Req) -> io::Result<Queued> {
        let (f, pos) = self.files.get(req.file)?;
        let buf = &mut self.bufs[req.slot as usize][..req.len as usize];
        let datasync = self.datasync;
        let c = match req.kind {
            OpKind::Read => timed(req, || {
                // unknown until the call succeeds
                if std::mem::replace(pos, u64::MAX) != req.offset {
                    f.seek(SeekFrom::Start(req.offset))?;
                }
                let n = f.read(buf)?;
                *pos = req.offset + n as u64;
                Ok(n)
            }),
            OpKind::Write => timed(req, || {
                // unknown until the call succeeds
                if std::mem::replace(pos, u64::MAX) != req.offset {
                    f.seek(SeekFrom::Start(req.offset))?;
                }
                let n = f.write(buf)?;
                *pos = req.offset + n as u64;
                Ok(n)
            }),
            // an append writes where the file ends
            OpKind::Append => timed(req, || {
                *pos = u64::MAX;
                let end = f.seek(SeekFrom::End(0))?;
                let n = f.write(buf)?;
                *pos = end + n as u64;
                Ok(n)
            }),
            OpKind::Fsync => timed(req, || sync_file(f, datasync)),
            // no file position moves: a discard at the request's range
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
