//! `mmap`: the file is mapped into memory and each request is a memcpy(3)
//! to or from the mapping (fio's engines/mmap.c).
//!
//! As fio's engine, it maps a whole file the first time a request reaches
//! it, and where that fails (address space) a window of [`WINDOW`] bytes
//! from the request's page, moved when a request falls outside it. It
//! advises the kernel of the access pattern with madvise(2) as fio does
//! (MADV_SEQUENTIAL for a sequential workload, MADV_RANDOM for a random
//! one, nothing for a mix). An fsync is msync(MS_SYNC) of the mapping. A
//! trim punches a hole (BLKDISCARD on a block device), after which the
//! mapped pages read as zeros.
//!
//! A mapping cannot grow its file: a read past the end is short (as
//! pread(2) is) and a write past the end is refused, where fio's engine
//! would take a SIGBUS; the engine's [`Caps::grows_files`] is false, so
//! workloads that grow files refuse it before they start. A block device
//! is mapped as a file of its size. Its latency is the copy, page faults included:
//! the first touch of a page reads it in (or allocates it) inside the
//! request's time.

use super::psync::unsupported;
use super::*;
use std::os::fd::AsRawFd;

pub const INFO: EngineInfo = EngineInfo {
    name: "mmap",
    doc: "memcpy(3) to and from the file mapped with mmap(2); fsync is msync(MS_SYNC) (fio's mmap)",
    caps: Caps {
        sync: true,
        ..Caps::NONE
    },
    make: |o| Ok(Box::new(Mmap::new(o))),
};

/// The window mapped where a whole file cannot be: fio's MMAP_TOTAL_SZ.
const WINDOW: u64 = 1 << 30;

/// The page size mappings start on.
fn page() -> u64 {
    // SAFETY: sysconf has no memory effects.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 { p as u64 } else { 4096 }
}

/// The bytes `f` holds: its length, or a block device's size (whose
/// metadata says 0), found by seeking to its end; the engine keeps no
/// file position, so the seek moves nothing it uses.
fn size_of(f: &File) -> io::Result<u64> {
    use std::io::Seek;
    use std::os::unix::fs::FileTypeExt;
    let md = f.metadata()?;
    if md.file_type().is_block_device() {
        let mut f = f;
        return f.seek(io::SeekFrom::End(0));
    }
    Ok(md.len())
}

/// One open file and what of it is mapped.
struct Mapped {
    file: File,
    /// The file's size when last looked at (open, or a window moved).
    size: u64,
    writable: bool,
    /// The mapping: its start, its offset in the file and its length;
    /// null when nothing is mapped.
    ptr: *mut u8,
    off: u64,
    len: usize,
}

// SAFETY: the mapping belongs to this value alone (as a Vec's buffer);
// it is unmapped once, in `unmap`.
unsafe impl Send for Mapped {}

impl Mapped {
    fn unmap(&mut self) {
        if !self.ptr.is_null() {
            // SAFETY: ptr/len come from one successful mmap, unmapped once.
            unsafe { libc::munmap(self.ptr.cast(), self.len) };
            self.ptr = std::ptr::null_mut();
            self.len = 0;
        }
    }

    /// Map `len` bytes at `off` (page-aligned).
    fn map(&mut self, off: u64, len: usize, access: Access) -> io::Result<()> {
        self.unmap();
        let prot = if self.writable {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        };
        // SAFETY: a fresh shared mapping of a descriptor we hold open, of
        // a non-zero length; nothing aliases it.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_SHARED,
                self.file.as_raw_fd(),
                off as libc::off_t,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let advice = match access {
            Access::Normal => None,
            Access::Sequential => Some(libc::MADV_SEQUENTIAL),
            Access::Random => Some(libc::MADV_RANDOM),
        };
        if let Some(a) = advice {
            // SAFETY: advice on the mapping just made; it changes no data.
            unsafe { libc::madvise(p, len, a) };
        }
        self.ptr = p.cast();
        self.off = off;
        self.len = len;
        Ok(())
    }

    /// The mapped bytes `[offset, offset + len)`, mapping them first (the
    /// whole file, or a window where that fails).
    fn window(&mut self, offset: u64, len: usize, access: Access) -> io::Result<*mut u8> {
        let end = offset + len as u64;
        let covers =
            |m: &Mapped| !m.ptr.is_null() && offset >= m.off && end <= m.off + m.len as u64;
        if !covers(self) {
            self.size = size_of(&self.file)?;
            // fio's: the whole file first, a window where that fails
            let whole = usize::try_from(self.size)
                .map_err(|_| io::Error::from_raw_os_error(libc::ENOMEM))
                .and_then(|n| self.map(0, n, access));
            if whole.is_err() || !covers(self) {
                let start = offset - offset % page();
                let n = WINDOW.max(end - start).min(self.size.saturating_sub(start));
                if n < end - start {
                    return Err(io::Error::from_raw_os_error(libc::ENXIO));
                }
                self.map(start, n as usize, access)?;
            }
        }
        // SAFETY: [offset, end) lies inside the mapping (checked above).
        Ok(unsafe { self.ptr.add((offset - self.off) as usize) })
    }

    /// The file's size, looked at again when `end` reaches past what was
    /// last seen (another writer may have grown it).
    fn size_for(&mut self, end: u64) -> io::Result<u64> {
        if end > self.size {
            self.size = size_of(&self.file)?;
        }
        Ok(self.size)
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        self.unmap();
    }
}

pub struct Mmap {
    files: FileTable<Mapped>,
    bufs: Vec<AlignedBuf>,
    mode: FileMode,
    access: Access,
}

impl Mmap {
    fn new(o: &EngineOpts) -> Self {
        Mmap {
            files: FileTable::default(),
            bufs: buffer::slots(o.slots, o.max_len, o.seed),
            mode: o.file_mode(),
            access: o.access,
        }
    }

    fn copy(&mut self, req: Req) -> io::Result<usize> {
        let access = self.access;
        let m = self.files.get(req.file)?;
        let len = req.len as usize;
        let buf = &mut self.bufs[req.slot as usize][..len];
        match req.kind {
            OpKind::Read => {
                // a read past the end is short, as pread's
                let size = m.size_for(req.offset + len as u64)?;
                let n = size.saturating_sub(req.offset).min(len as u64) as usize;
                if n == 0 {
                    return Ok(0);
                }
                let src = m.window(req.offset, n, access)?;
                // SAFETY: `src` holds n mapped bytes (window), `buf` n
                // bytes of our own; they do not overlap.
                unsafe { std::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), n) };
                Ok(n)
            }
            OpKind::Write => {
                if !m.writable {
                    return Err(io::Error::from_raw_os_error(libc::EBADF));
                }
                let size = m.size_for(req.offset + len as u64)?;
                if req.offset + len as u64 > size {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!(
                            "the mmap engine writes inside a file only: {len} B at offset {} reach past its end ({size} B); a mapping cannot grow its file (lay it out first, as fio does)",
                            req.offset
                        ),
                    ));
                }
                let dst = m.window(req.offset, len, access)?;
                // SAFETY: `dst` holds len mapped, writable bytes; `buf`
                // is ours; they do not overlap.
                unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), dst, len) };
                Ok(len)
            }
            k => Err(unsupported(k)),
        }
    }
}

impl Engine for Mmap {
    fn info(&self) -> &'static EngineInfo {
        &INFO
    }

    fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        if how.append {
            return Err(unsupported(OpKind::Append));
        }
        // a shared writable mapping needs the file open for reading too
        let writable = how.write;
        let how = OpenHow { read: true, ..how };
        let file = open_file_as(path, how, self.mode)?;
        let size = size_of(&file)?;
        let m = Mapped {
            file,
            size,
            writable,
            ptr: std::ptr::null_mut(),
            off: 0,
            len: 0,
        };
        Ok(self.files.insert(m, path))
    }

    fn close(&mut self, file: FileId) -> io::Result<()> {
        self.files.remove(file).map(drop)
    }

    fn queue(&mut self, req: Req) -> io::Result<Queued> {
        let c = match req.kind {
            OpKind::Read | OpKind::Write => {
                let me = &mut *self;
                timed(req, || me.copy(req))
            }
            // fio's: msync of what is mapped (nothing mapped, nothing dirty)
            OpKind::Fsync => {
                let m = self.files.get(req.file)?;
                let (ptr, len) = (m.ptr, m.len);
                timed(req, || {
                    if ptr.is_null() {
                        return Ok(0);
                    }
                    // SAFETY: ptr/len are the file's live mapping.
                    if unsafe { libc::msync(ptr.cast(), len, libc::MS_SYNC) } < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    Ok(0)
                })
            }
            OpKind::Trim => {
                let m = self.files.get(req.file)?;
                let by = TrimBy::of(&m.file)?;
                let fd = m.file.as_raw_fd();
                timed(req, || trim_fd(fd, by, req.offset, req.len))
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
