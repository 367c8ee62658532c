//! `buffered`: a user-space buffered stream per file, as C's stdio gives
//! PostMark's buffered mode and Bonnie's putc/getc phases.
//!
//! Like glibc's `FILE`, each open file has one buffer of the file system's
//! block size (st_blksize). Small reads are served from the buffer and refill
//! it with one read(2) of a whole buffer; small writes collect in it and go
//! out with one write(2) when it fills, on a seek elsewhere, on fsync and on
//! close. A transfer at least as large as the buffer, with the buffer empty,
//! goes straight to the kernel (glibc's `_IO_file_xsgetn`/`xsputn` do the
//! same). A one-byte operation is a `getc`/`putc`.

use super::psync::{sync_file, unsupported};
use super::*;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;

pub const INFO: EngineInfo = EngineInfo {
    name: "buffered",
    doc: "a stdio-like buffered stream per file (buffer = st_blksize): small operations cost a memcpy, the kernel sees whole buffers (C's fread/fwrite/getc/putc)",
    caps: Caps {
        sync: true,
        queued: false,
        direct: false,
        fake: false,
        buffered: true,
        grows_files: true,
        ..Caps::NONE
    },
    make: |o| Ok(Box::new(Buffered::new(o))),
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Idle,
    /// `buf[..len]` holds the file's bytes from `start`.
    Reading,
    /// `buf[..len]` must go to the file at `start`.
    Writing,
}

struct Stream {
    file: File,
    buf: Vec<u8>,
    mode: Mode,
    start: u64,
    len: usize,
    /// Where the kernel's file offset is, to skip needless lseeks.
    kpos: u64,
}

impl Stream {
    fn seek_kernel(&mut self, to: u64) -> io::Result<()> {
        if self.kpos != to {
            self.file.seek(SeekFrom::Start(to))?;
            self.kpos = to;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.mode == Mode::Writing && self.len > 0 {
            self.seek_kernel(self.start)?;
            self.file.write_all(&self.buf[..self.len])?;
            self.kpos += self.len as u64;
        }
        self.mode = Mode::Idle;
        self.len = 0;
        Ok(())
    }

    fn read(&mut self, off: u64, out: &mut [u8]) -> io::Result<usize> {
        if self.mode == Mode::Writing {
            self.flush()?;
        }
        let mut done = 0;
        let mut pos = off;
        while done < out.len() {
            let in_buf = self.mode == Mode::Reading
                && pos >= self.start
                && pos < self.start + self.len as u64;
            if in_buf {
                let i = (pos - self.start) as usize;
                let n = (self.len - i).min(out.len() - done);
                out[done..done + n].copy_from_slice(&self.buf[i..i + n]);
                done += n;
                pos += n as u64;
                continue;
            }
            let want = out.len() - done;
            self.seek_kernel(pos)?;
            if want >= self.buf.len() {
                // large transfer: straight into the caller's memory, whole buffers
                let direct = want - want % self.buf.len();
                let n = self.file.read(&mut out[done..done + direct])?;
                self.kpos += n as u64;
                self.mode = Mode::Idle;
                self.len = 0;
                done += n;
                pos += n as u64;
                if n < direct {
                    break;
                }
                continue;
            }
            let n = self.file.read(&mut self.buf)?;
            self.kpos += n as u64;
            self.mode = Mode::Reading;
            self.start = pos;
            self.len = n;
            if n == 0 {
                break;
            }
        }
        Ok(done)
    }

    fn write(&mut self, off: u64, data: &[u8]) -> io::Result<usize> {
        let contiguous = self.mode == Mode::Writing && off == self.start + self.len as u64;
        if !contiguous {
            self.flush()?;
        }
        let mut done = 0;
        let mut pos = off;
        while done < data.len() {
            if self.mode != Mode::Writing {
                if data.len() - done >= self.buf.len() {
                    self.seek_kernel(pos)?;
                    self.file.write_all(&data[done..])?;
                    self.kpos += (data.len() - done) as u64;
                    return Ok(data.len());
                }
                self.mode = Mode::Writing;
                self.start = pos;
                self.len = 0;
            }
            let n = (self.buf.len() - self.len).min(data.len() - done);
            self.buf[self.len..self.len + n].copy_from_slice(&data[done..done + n]);
            self.len += n;
            done += n;
            pos += n as u64;
            if self.len == self.buf.len() {
                self.flush()?;
            }
        }
        Ok(done)
    }

    /// Where the file ends, counting bytes still in the buffer.
    fn end(&mut self) -> io::Result<u64> {
        let on_disk = self.file.metadata()?.len();
        Ok(match self.mode {
            Mode::Writing => on_disk.max(self.start + self.len as u64),
            _ => on_disk,
        })
    }
}

pub struct Buffered {
    files: FileTable<Stream>,
    bufs: Vec<AlignedBuf>,
    datasync: bool,
    /// Stream buffers of closed files, reused by the next opens (a run
    /// that opens and closes files one after another allocates nothing).
    spare: Vec<Vec<u8>>,
}

/// Stream buffers kept for reuse at most.
const SPARE_BUFFERS: usize = 16;

impl Buffered {
    fn new(o: &EngineOpts) -> Self {
        Buffered {
            files: FileTable::default(),
            bufs: buffer::slots(o.slots, o.max_len, o.seed),
            datasync: o.datasync,
            spare: Vec::new(),
        }
    }

    fn stream_buffer(&mut self, len: usize) -> Vec<u8> {
        match self.spare.iter().rposition(|b| b.len() == len) {
            Some(i) => self.spare.swap_remove(i),
            None => vec![0; len],
        }
    }
}

impl Engine for Buffered {
    fn info(&self) -> &'static EngineInfo {
        &INFO
    }

    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        let file = open_file(path, how, false)?;
        // fstat(2), as glibc sizes a FILE's buffer (statx asks for more)
        let blksize = rustix::fs::fstat(&file)?.st_blksize.clamp(512, 1 << 20) as usize;
        let s = Stream {
            file,
            buf: self.stream_buffer(blksize),
            mode: Mode::Idle,
            start: 0,
            len: 0,
            kpos: 0,
        };
        Ok(self.files.insert(s, path))
    }

    fn close(&mut self, file: FileId) -> io::Result<()> {
        let mut s = self.files.remove(file)?;
        let r = s.flush();
        if self.spare.len() < SPARE_BUFFERS {
            self.spare.push(std::mem::take(&mut s.buf));
        }
        r
    }

    #[inline]
    fn queue(&mut self, req: Req) -> io::Result<Queued> {
        let s = self.files.get(req.file)?;
        let buf = &mut self.bufs[req.slot as usize][..req.len as usize];
        let datasync = self.datasync;
        let c = match req.kind {
            OpKind::Read => timed(req, || s.read(req.offset, buf)),
            OpKind::Write => timed(req, || s.write(req.offset, buf)),
            OpKind::Append => timed(req, || {
                let end = s.end()?;
                s.write(end, buf)
            }),
            OpKind::Fsync => timed(req, || {
                s.flush()?;
                sync_file(&s.file, datasync)
            }),
            // what the buffer holds goes to the file first, so that no
            // later flush writes over the hole
            OpKind::Trim => {
                let by = TrimBy::of(&s.file)?;
                timed(req, || {
                    s.flush()?;
                    trim_fd(s.file.as_raw_fd(), by, req.offset, req.len)
                })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The buffered engine with file `name` created in a new directory.
    fn created(name: &str) -> (tempfile::TempDir, Box<dyn Engine>, FileId) {
        let dir = tempfile::tempdir().unwrap();
        let mut e = super::Choice::BUFFERED
            .make(&EngineOpts::default())
            .unwrap();
        let f = e.open(&dir.path().join(name), OpenHow::CREATE).unwrap();
        (dir, e, f)
    }

    /// Byte-at-a-time writes and reads (putc/getc) reach the kernel as whole buffers
    /// and give back what was written.
    #[test]
    fn per_character_stream() {
        let (dir, mut e, f) = created("c");
        for i in 0..10_000u64 {
            e.buf_mut(0)[0] = (i % 251) as u8;
            e.exec(Req::write(f, i, 1)).unwrap();
        }
        for i in 0..10_000u64 {
            assert_eq!(e.exec(Req::read(f, i, 1)).unwrap().bytes, 1);
            assert_eq!(e.buf_mut(0)[0], (i % 251) as u8, "byte {i}");
        }
        assert_eq!(e.exec(Req::read(f, 10_000, 1)).unwrap().bytes, 0);
        // rewrite in the middle, then read across the seam
        e.buf_mut(0)[..3].copy_from_slice(b"xyz");
        e.exec(Req::write(f, 5000, 3)).unwrap();
        e.exec(Req::read(f, 4999, 5)).unwrap();
        assert_eq!(
            &e.buf_mut(0)[..5],
            &[(4999 % 251) as u8, b'x', b'y', b'z', (5003 % 251) as u8]
        );
        e.close(f).unwrap();
        assert_eq!(
            std::fs::metadata(dir.path().join("c")).unwrap().len(),
            10_000
        );
    }

    /// Opening and closing files one after another reuses one stream
    /// buffer and one path buffer.
    #[test]
    fn reopening_reuses_buffers() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = Buffered::new(&EngineOpts::default());
        let mut seen = None;
        for i in 0..5 {
            let p = dir.path().join(format!("f{i}"));
            let f = e.open(&p, OpenHow::CREATE).unwrap();
            assert_eq!(e.path(f), p);
            let buf = e.files.get(f).unwrap().buf.as_ptr();
            assert_eq!(*seen.get_or_insert(buf), buf, "open {i}");
            e.close(f).unwrap();
        }
        assert_eq!(e.spare.len(), 1);
    }

    #[test]
    fn append_goes_to_the_end() {
        let (dir, mut e, f) = created("a");
        let mut req = Req::write(f, 0, 100);
        e.exec(req).unwrap();
        req.kind = OpKind::Append;
        e.exec(req).unwrap();
        e.exec(req).unwrap();
        e.close(f).unwrap();
        assert_eq!(std::fs::metadata(dir.path().join("a")).unwrap().len(), 300);
    }
}
