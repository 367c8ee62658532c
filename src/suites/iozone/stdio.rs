//! The stdio stream of IOzone's fwrite tests, as glibc runs a stream whose
//! buffer is one record (IOzone's `setvbuf(stream, buf, _IOFBF, reclen)`):
//! with the buffer empty, a record goes straight out from the caller's
//! memory; the next is copied into the buffer; the one after writes the
//! buffer out and then goes straight out itself. One write(2) of a record
//! per record in all, half of them after a copy. Unbuffered (IOzone's
//! `_IONBF` under `-I` in throughput mode), every record goes straight out.
//!
//! The caller's record is the engine's slot 0, which does not change
//! during a pass, so the buffered copy is written from the same slot.

use std::io;

use crate::engine::{FileId, Req};
use crate::runner::Io;

/// One fwrite stream over a file, from offset 0.
pub(super) struct Stream {
    buf: Vec<u8>,
    /// The buffer holds a record not yet written.
    held: bool,
    /// The stream is in write mode (glibc's first fwrite switches it
    /// without copying).
    putting: bool,
    unbuffered: bool,
    /// The stream's file position.
    pos: u64,
}

impl Stream {
    /// A stream whose buffer is one record of `reclen` bytes. The buffer
    /// is written now (untimed), so no page fault of its first use falls
    /// inside a timed pass.
    pub(super) fn new(reclen: u32, unbuffered: bool) -> Stream {
        Stream {
            buf: vec![0x5a; reclen as usize],
            held: false,
            putting: false,
            unbuffered,
            pos: 0,
        }
    }

    /// The file position the stream has written up to.
    #[cfg(test)]
    pub(super) fn pos(&self) -> u64 {
        self.pos
    }

    /// One write(2) of a record at the stream's position.
    #[inline]
    fn write_out(&mut self, e: &mut Io, f: FileId, n: u32) -> io::Result<()> {
        let req = Req::write(f, self.pos, n);
        let c = e.exec(req)?;
        if c.bytes != u64::from(n) {
            // the rest, to learn why (a full disk says so then)
            e.finish_write(req, c.bytes)?;
        }
        self.pos += u64::from(n);
        Ok(())
    }

    /// fwrite(3) of one record of `n` bytes (the stream's record size).
    #[inline]
    pub(super) fn fwrite(&mut self, e: &mut Io, f: FileId, n: u32) -> io::Result<()> {
        if !self.unbuffered && self.putting && !self.held {
            let len = n as usize;
            self.buf[..len].copy_from_slice(&e.buf_mut(0)[..len]);
            self.held = true;
            return Ok(());
        }
        self.fflush(e, f, n)?;
        self.putting = true;
        self.write_out(e, f, n)
    }

    /// fflush(3): the held record, if any, goes out.
    pub(super) fn fflush(&mut self, e: &mut Io, f: FileId, n: u32) -> io::Result<()> {
        if self.held {
            self.held = false;
            self.write_out(e, f, n)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Choice, OpenHow};

    /// Buffered: straight out, copied, then buffer and record out; the
    /// last held record goes at fflush. Unbuffered: every record out.
    #[test]
    fn records_go_out_as_glibc_sends_them() {
        let dir = tempfile::tempdir().unwrap();
        for (unbuffered, expect) in [(false, [1, 1, 3, 3]), (true, [1, 2, 3, 4])] {
            let mut e = Io::test(Choice::SYNC, 64 << 10);
            let path = dir.path().join(format!("f{unbuffered}"));
            let f = e.open(&path, OpenHow::CREATE).unwrap();
            let mut s = Stream::new(4096, unbuffered);
            let mut outs = Vec::new();
            for _ in 0..4 {
                s.fwrite(&mut e, f, 4096).unwrap();
                outs.push(s.pos() / 4096);
            }
            assert_eq!(outs, expect, "unbuffered: {unbuffered}");
            s.fflush(&mut e, f, 4096).unwrap();
            assert_eq!(s.pos(), 4 * 4096);
            e.close(f).unwrap();
            assert_eq!(std::fs::metadata(&path).unwrap().len(), 4 * 4096);
        }
    }
}
