//! `null`: does no I/O. Every operation completes at once with the bytes
//! asked for; what it measures is iogauge's own cost per operation.

use super::*;

pub const INFO: EngineInfo = EngineInfo {
    name: "null",
    doc: "does no I/O and touches no file: measures iogauge's own overhead per operation (fio's null)",
    caps: Caps {
        sync: true,
        queued: false,
        direct: true,
        fake: true,
        buffered: false,
        grows_files: true,
        ..Caps::NONE
    },
    make: |o| Ok(Box::new(Null::new(o))),
};

pub struct Null {
    files: FileTable<()>,
    buf: AlignedBuf,
}

impl Null {
    fn new(o: &EngineOpts) -> Self {
        Null {
            files: FileTable::default(),
            buf: AlignedBuf::new(o.max_len),
        }
    }
}

impl Engine for Null {
    fn info(&self) -> &'static EngineInfo {
        &INFO
    }

    fn open(&mut self, path: &Path, _how: OpenHow) -> io::Result<FileId> {
        Ok(self.files.insert((), path))
    }

    fn close(&mut self, file: FileId) -> io::Result<()> {
        self.files.remove(file)
    }

    #[inline]
    fn queue(&mut self, req: Req) -> io::Result<Queued> {
        timed(req, || Ok(std::hint::black_box(req.len as usize))).map(Queued::Done)
    }

    fn buf_mut(&mut self, _slot: u16) -> &mut [u8] {
        &mut self.buf
    }

    fn unlink(&mut self, _path: &Path) -> io::Result<()> {
        Ok(())
    }

    fn path(&self, file: FileId) -> &Path {
        self.files.path(file)
    }
}
