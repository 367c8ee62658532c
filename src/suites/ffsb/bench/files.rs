//! The file lists of a file system: the data files (`data/datafile<n>`,
//! spread over `data/datadir<k>/`), the aging fill files
//! (`data/fillfile<n>`) and the metadata directories (`meta/metafile<n>`).
//!
//! As in FFSB, a file's number is its index in the list; a deleted file
//! leaves a hole that the next create takes first, name and directory
//! included, so names never collide. The list is shared by every thread
//! that works on the file system. One mutex guards it, held only to pick a
//! file and mark it (never during I/O); each entry carries FFSB's
//! per-file read/write lock as a reader count and a writer flag: readers
//! (read, write, append, stat, open_close) share a file, a delete or a
//! rename has it alone, and a file being created is invisible until its
//! data is written. A reader therefore never meets a file that a delete
//! is removing, and a delete never takes the last file of the list.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

use super::rand::RandBytes;
use crate::suites::ffsb::profile::FileSystem;

/// One file (or directory) of a list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Entry {
    /// Exists (not a hole, not being removed).
    live: bool,
    /// Held alone: being created, deleted or renamed.
    writer: bool,
    readers: u32,
    /// 0: in the list's base directory; k + 1: in `datadir<k>`.
    dir: u32,
    /// `a`s appended by metaop's renames.
    renames: u32,
    /// Bytes, as written by iogauge (so no stat(2) is needed to know it).
    size: u64,
}

/// What a list holds, as plain data: what the set-up laid out travels
/// to the threads' payload as this.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListState {
    entries: Vec<Entry>,
    /// Numbers of removed entries, oldest first (FFSB's circular list).
    holes: VecDeque<u32>,
    live: u32,
    /// The `datadir<k>` that exist, in the order they were made.
    dirs: Vec<u32>,
    /// The next `datadir<k>` number createdir takes.
    next_dir: u32,
}

/// What an operation wants of the file it picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Want {
    /// Share it with other readers (FFSB's `choose_file_reader`).
    Read,
    /// Have it alone (a rename).
    Write,
    /// Have it alone and remove it from the list; never the last file.
    Delete,
    /// Have it alone and remove it, even the last (metaop's rmdir).
    Remove,
}

/// A picked entry: enough to name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Picked {
    pub idx: u32,
    pub dir: u32,
    pub renames: u32,
    pub size: u64,
}

/// The outcome of [`FileList::pick`].
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Pick {
    Got(Picked),
    /// The list holds no file at all.
    Empty,
    /// Nothing to do: a delete with one file left, or the run is stopping
    /// while every candidate is busy.
    Skip,
}

/// A shared list of files named `<base><prefix><n>`.
pub(super) struct FileList {
    /// `<location>/data/` or `<location>/meta/`, with the slash.
    base: Vec<u8>,
    prefix: &'static [u8],
    /// New files go to a random `datadir<k>` (the data list only).
    subdirs: bool,
    inner: Mutex<ListState>,
}

/// FFSB's names.
pub(super) const DATA_PREFIX: &str = "datafile";
pub(super) const FILL_PREFIX: &str = "fillfile";
pub(super) const META_PREFIX: &str = "metafile";
pub(super) const DIR_PREFIX: &str = "datadir";

impl FileList {
    /// An empty list of files `<base>/<prefix><n>`; with `subdirs`, new
    /// files are spread over `<base>/datadir<k>` and `<base>` itself.
    pub fn new(base: &std::path::Path, prefix: &'static str, subdirs: bool) -> FileList {
        use std::os::unix::ffi::OsStrExt;
        let mut b = base.as_os_str().as_bytes().to_vec();
        b.push(b'/');
        FileList {
            base: b,
            prefix: prefix.as_bytes(),
            subdirs,
            inner: Mutex::new(ListState::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, ListState> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The directory the list's files are in (`data/` or `meta/`).
    pub fn base(&self) -> &std::path::Path {
        use std::os::unix::ffi::OsStrExt;
        std::path::Path::new(std::ffi::OsStr::from_bytes(&self.base))
    }

    /// `datadir0..n` exist (made before the run).
    pub fn set_dirs(&self, n: u32) {
        let mut g = self.lock();
        g.dirs = (0..n).collect();
        g.next_dir = n;
    }

    /// What the list holds now.
    pub fn state(&self) -> ListState {
        self.lock().clone()
    }

    /// The list holds `state` (what [`FileList::state`] gave).
    pub fn restore(&self, state: ListState) {
        *self.lock() = state;
    }

    /// Files in the list.
    #[cfg(test)]
    pub fn live(&self) -> u32 {
        self.lock().live
    }

    /// Directories `datadir<k>` that exist.
    #[cfg(test)]
    pub fn dirs(&self) -> u32 {
        self.lock().dirs.len() as u32
    }

    /// The sizes of the files, by number (`None` for holes).
    #[cfg(test)]
    pub fn sizes(&self) -> Vec<Option<u64>> {
        self.lock()
            .entries
            .iter()
            .map(|e| e.live.then_some(e.size))
            .collect()
    }

    /// A new entry of `size` bytes, held alone until [`FileList::created`]:
    /// the oldest hole if there is one (its name and directory kept), else
    /// number `len` in a random directory.
    pub fn add(&self, rng: &mut RandBytes, size: u64) -> Picked {
        let mut guard = self.lock();
        let g = &mut *guard;
        g.live += 1;
        if let Some(i) = g.holes.pop_front() {
            let e = &mut g.entries[i as usize];
            *e = Entry {
                live: true,
                writer: true,
                readers: 0,
                size,
                ..*e
            };
            return picked(i, e);
        }
        let dir = if self.subdirs && !g.dirs.is_empty() {
            match rng.below(g.dirs.len() as u32 + 1) as usize {
                0 => 0,
                d => g.dirs[d - 1] + 1,
            }
        } else {
            0
        };
        let e = Entry {
            live: true,
            writer: true,
            readers: 0,
            dir,
            renames: 0,
            size,
        };
        g.entries.push(e);
        picked(g.entries.len() as u32 - 1, &e)
    }

    /// Number `n` already on disk (a reused file set), in `dir`.
    pub fn insert_existing(&self, n: u32, dir: u32, size: u64) {
        let mut g = self.lock();
        let n = n as usize;
        if g.entries.len() <= n {
            g.entries.resize(n + 1, Entry::default());
        }
        g.entries[n] = Entry {
            live: true,
            writer: false,
            readers: 0,
            dir,
            renames: 0,
            size,
        };
        g.live += 1;
    }

    /// After [`FileList::insert_existing`]: the missing numbers become
    /// holes, lowest first.
    pub fn seal(&self) {
        let mut g = self.lock();
        let holes: VecDeque<u32> = (0..g.entries.len() as u32)
            .filter(|&i| !g.entries[i as usize].live)
            .collect();
        g.holes = holes;
    }

    /// A random file for `want`, marked for it. Draws numbers until one is
    /// live, as FFSB does; when that one is busy the lock is let go and
    /// the pick starts over, until `give_up` says the run is stopping.
    pub fn pick(&self, rng: &mut RandBytes, want: Want, give_up: &dyn Fn() -> bool) -> Pick {
        loop {
            {
                let mut guard = self.lock();
                let g = &mut *guard;
                if g.live == 0 {
                    return Pick::Empty;
                }
                if want == Want::Delete && g.live <= 1 {
                    return Pick::Skip;
                }
                let n = g.entries.len() as u32;
                let idx = loop {
                    let i = rng.below(n) as usize;
                    if g.entries[i].live {
                        break i;
                    }
                };
                let e = &mut g.entries[idx];
                let free = match want {
                    Want::Read => !e.writer,
                    _ => !e.writer && e.readers == 0,
                };
                if free {
                    match want {
                        Want::Read => e.readers += 1,
                        _ => e.writer = true,
                    }
                    let p = picked(idx as u32, e);
                    if matches!(want, Want::Delete | Want::Remove) {
                        e.live = false;
                        g.live -= 1;
                    }
                    return Pick::Got(p);
                }
            }
            if give_up() {
                return Pick::Skip;
            }
            std::thread::yield_now();
        }
    }

    pub fn release_read(&self, idx: u32) {
        let mut g = self.lock();
        let e = &mut g.entries[idx as usize];
        e.readers = e.readers.saturating_sub(1);
    }

    /// An append added `bytes` (the file is held as a reader).
    pub fn grow(&self, idx: u32, bytes: u64) {
        self.lock().entries[idx as usize].size += bytes;
    }

    /// A new entry's file is written: `size` bytes; others may pick it.
    pub fn created(&self, idx: u32, size: u64) {
        let mut g = self.lock();
        let e = &mut g.entries[idx as usize];
        e.size = size;
        e.writer = false;
    }

    /// A new entry whose file could not be made goes back to the holes.
    pub fn abandon(&self, idx: u32) {
        let mut guard = self.lock();
        let g = &mut *guard;
        let e = &mut g.entries[idx as usize];
        if e.live {
            e.live = false;
            g.live -= 1;
        }
        e.writer = false;
        g.holes.push_back(idx);
    }

    /// A removed entry's file is gone: its number is a hole now.
    pub fn removed(&self, idx: u32) {
        let mut g = self.lock();
        g.entries[idx as usize].writer = false;
        g.holes.push_back(idx);
    }

    /// A held entry was renamed (one more `a`) and is let go.
    pub fn renamed(&self, idx: u32) {
        let mut g = self.lock();
        let e = &mut g.entries[idx as usize];
        e.renames += 1;
        e.writer = false;
    }

    /// A held entry is let go unchanged.
    pub fn release_write(&self, idx: u32) {
        self.lock().entries[idx as usize].writer = false;
    }

    /// The number createdir's new `datadir<k>` takes.
    pub fn reserve_dir(&self) -> u32 {
        let mut g = self.lock();
        g.next_dir += 1;
        g.next_dir - 1
    }

    /// `datadir<k>` exists: new files may go there. (FFSB counts the
    /// directory before it exists, and a create that picks it fails.)
    pub fn dir_ready(&self, k: u32) {
        self.lock().dirs.push(k);
    }

    /// The path of `p` into `buf` (cleared first), with `extra` more `a`s.
    pub fn path(&self, buf: &mut Vec<u8>, p: &Picked, extra: u32) {
        buf.clear();
        buf.extend_from_slice(&self.base);
        if p.dir > 0 {
            buf.extend_from_slice(DIR_PREFIX.as_bytes());
            crate::units::push_decimal(buf, p.dir - 1);
            buf.push(b'/');
        }
        buf.extend_from_slice(self.prefix);
        crate::units::push_decimal(buf, p.idx);
        for _ in 0..p.renames + extra {
            buf.push(b'a');
        }
    }

    /// The path of `datadir<k>` into `buf`.
    pub fn dir_path(&self, buf: &mut Vec<u8>, k: u32) {
        buf.clear();
        buf.extend_from_slice(&self.base);
        buf.extend_from_slice(DIR_PREFIX.as_bytes());
        crate::units::push_decimal(buf, k);
    }
}

fn picked(idx: u32, e: &Entry) -> Picked {
    Picked {
        idx,
        dir: e.dir,
        renames: e.renames,
        size: e.size,
    }
}

/// `name` is `<prefix><n>` with `n` written as iogauge writes it.
pub(super) fn number_of(name: &str, prefix: &str) -> Option<u32> {
    let digits = name.strip_prefix(prefix)?;
    let n: u32 = digits.parse().ok()?;
    (n.to_string() == digits).then_some(n)
}

/// How a file system sizes its files: FFSB's weighted sizes when the
/// profile has `size_weight`s, else uniform in `[min, max)` (`min` when
/// they are equal), in steps of 4 KiB under `directio` so that O_DIRECT
/// transfers stay aligned.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct SizeRule {
    weights: Vec<(u64, u32)>,
    sum: u64,
    min: u64,
    max: u64,
    step: u64,
}

impl SizeRule {
    pub fn of(fs: &FileSystem, directio: bool) -> SizeRule {
        SizeRule {
            weights: fs.size_weights.clone(),
            sum: fs.size_weights.iter().map(|w| u64::from(w.1)).sum(),
            min: fs.min_filesize,
            max: fs.max_filesize.max(fs.min_filesize),
            step: if directio { 4096 } else { 1 },
        }
    }

    /// The weighted sizes drawn from.
    pub fn weighted(&self) -> bool {
        !self.weights.is_empty()
    }

    /// A size, as FFSB draws it: `n = 1 + getrandom(Σweights)`, the
    /// weights walked from the last given to the first (FFSB keeps them
    /// in that order) until `n` fits; or `min + getllrandom(max − min)`.
    pub fn draw(&self, rng: &mut RandBytes) -> u64 {
        if self.sum > 0 {
            let mut n = 1 + rng.below64(self.sum);
            for &(size, w) in self.weights.iter().rev() {
                if n <= u64::from(w) {
                    return size;
                }
                n -= u64::from(w);
            }
            return self.weights.first().map_or(0, |w| w.0);
        }
        let range = self.max - self.min;
        self.min + rng.below64(range / self.step) * self.step
    }

    /// The smallest size a draw can give.
    pub fn smallest(&self) -> u64 {
        if self.weighted() {
            self.drawable().min().unwrap_or(0)
        } else {
            self.min
        }
    }

    /// The largest size a draw can give (or `max` itself, for bounds).
    pub fn largest(&self) -> u64 {
        if self.weighted() {
            self.drawable().max().unwrap_or(0)
        } else {
            self.max
        }
    }

    /// The weighted sizes a draw can give (those of a weight above 0).
    fn drawable(&self) -> impl Iterator<Item = u64> + '_ {
        self.weights.iter().filter(|w| w.1 > 0).map(|w| w.0)
    }
}

/// One file system while iogauge works on it.
pub(super) struct FsState {
    pub data: FileList,
    pub fill: FileList,
    pub meta: FileList,
    pub sizes: SizeRule,
}

impl FsState {
    pub fn new(fs: &FileSystem, directio: bool) -> FsState {
        let data = fs.location.join("data");
        FsState {
            data: FileList::new(&data, DATA_PREFIX, true),
            fill: FileList::new(&data, FILL_PREFIX, false),
            meta: FileList::new(&fs.location.join("meta"), META_PREFIX, false),
            sizes: SizeRule::of(fs, directio),
        }
    }
}
