//! `--verify-crash`: a durable journal of what each sync made durable, and
//! the check of a directory a crash left behind.
//!
//! A run with `--verify-crash` writes, in its work directory:
//! - a head, [`HEAD`] (JSON), once the layout is written and synced and
//!   before any worker starts: the seed, unit, files and how they are
//!   shared out. It is also the marker that says "this directory is
//!   evidence: keep it until it has been verified".
//! - one journal per worker, [`journal_name`]: after each of the worker's
//!   fsync/fdatasync completes, one write of the ranges of units that sync
//!   covered (every write of that file that completed before the sync was
//!   issued, with the generations it may have left), then an fdatasync of
//!   the journal. A record is only ever written after the sync it
//!   describes has returned, so every record that reads back whole is a
//!   true claim, wherever it is in the file.
//!
//! ```text
//! record (56 bytes, little-endian)
//! byte  0 magic "iogj"    4 writer (u32)   8 record number (u64, from 1)
//!      16 file (u32)     20 units (u32)   24 first unit's offset (u64)
//!      32 lo (u64)       40 hi (u64)      48 zero (u32)  52 CRC-32C (u32)
//! ```
//!
//! Each record says: units `offset, offset + unit, …` (`units` of them) of
//! `file` each hold one of generations `lo..=hi` or a newer one. The CRC
//! is taken over the record with its own four bytes as zeros; a record cut
//! by the crash (or zeros past the journal's end) fails it and is ignored.
//! The journal is grown by about 1 MiB of real zeros at a time, so that
//! most fdatasyncs of it flush one block and no metadata.

use super::{Mismatch, Pattern, SECTOR, Stamp, Want};
use anyhow::{Context, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The head of a `--verify-crash` directory: its presence marks the
/// directory as one to keep until it is verified.
pub const HEAD: &str = "iogauge-crash.json";

/// The head's format name.
pub const HEAD_FORMAT: &str = "iogauge-crash/1";

/// Bytes per journal record.
pub const RECORD: usize = 56;

const MAGIC: [u8; 4] = *b"iogj";
const CRC_AT: usize = 52;
/// The journal grows by this many bytes of zeros (whole records).
const GROW: u64 = (RECORD * 18_725) as u64;
/// How many generations past the newest journaled one a unit torn by the
/// crash may mix (writes made after its last sync).
const MIX_AHEAD: u64 = 8;

/// Worker `writer`'s journal in a `--verify-crash` directory.
pub fn journal_name(writer: u32) -> String {
    format!("iogauge-crash.{writer}.journal")
}

/// Whether `dir` was made by a run with `--verify-crash` (it holds a head).
pub fn is_crash_dir(dir: &Path) -> bool {
    dir.join(HEAD).is_file()
}

/// What a `--verify-crash` directory holds and how it was written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    pub format: String,
    pub seed: u64,
    /// Bytes per unit.
    pub unit: u64,
    /// The data files, by number, relative to the directory.
    pub files: Vec<String>,
    /// Bytes in each file.
    pub file_size: u64,
    /// Workers; worker w owns bytes [w·share, (w+1)·share) of every file
    /// (the tail past workers·share is the last worker's).
    pub workers: u32,
    pub share: u64,
    /// The sync policy of the run (as `--fsync` took it).
    pub sync: String,
    /// The layout (generation 0 of every unit) was synced before the head
    /// was written.
    pub layout_synced: bool,
}

impl Head {
    /// The worker that owns (wrote) byte `offset` of a file.
    pub fn owner(&self, offset: u64) -> u32 {
        if self.share == 0 {
            return 0;
        }
        ((offset / self.share) as u32).min(self.workers.saturating_sub(1))
    }

    /// Write the head into `dir` durably: a temporary file, synced,
    /// renamed, and the directory synced.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let tmp = dir.join(format!("{HEAD}.tmp"));
        let text = serde_json::to_string_pretty(self)? + "\n";
        let f = File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        f.write_all_at(text.as_bytes(), 0)
            .and_then(|()| f.sync_all())
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        let path = dir.join(HEAD);
        std::fs::rename(&tmp, &path)
            .with_context(|| format!("cannot rename {} to {HEAD}", tmp.display()))?;
        sync_dir(dir)
    }

    /// The head of `dir`, checked.
    pub fn read(dir: &Path) -> Result<Head> {
        let path = dir.join(HEAD);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let h: Head = serde_json::from_str(&text).map_err(|e| {
            crate::error::UsageError(format!(
                "{}: not a --verify-crash head ({e})",
                crate::error::shown_path(&path)
            ))
        })?;
        if h.format != HEAD_FORMAT {
            crate::usage!(
                "{}: format '{}' is not {HEAD_FORMAT}; verify it with the iogauge that wrote it",
                crate::error::shown_path(&path),
                crate::error::shown(&h.format)
            );
        }
        if super::check_unit(h.unit).is_err()
            || !h.file_size.is_multiple_of(h.unit)
            || h.workers == 0
            || !h.share.is_multiple_of(h.unit)
            || h.files.iter().any(|f| f.contains('/') || f == "..")
        {
            crate::usage!(
                "{}: its unit, file size, workers or file names do not fit together; it was not written by iogauge",
                crate::error::shown_path(&path)
            );
        }
        Ok(h)
    }
}

/// Make the names in `dir` durable.
fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("cannot sync the directory {}", dir.display()))
}

/// Units `offset, offset + unit, …` (`units` of them) of `file`, each
/// holding one of generations `lo..=hi` (or a newer one) once the sync that
/// covered them returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub file: u32,
    pub offset: u64,
    pub units: u32,
    pub lo: u64,
    pub hi: u64,
}

/// The ranges of a sync's units `(file, offset, lo, hi)`: sorted, and
/// neighbours with the same generations joined, so a sequential stream
/// makes one record per sync.
pub fn ranges(unit: u64, mut units: Vec<(u32, u64, u64, u64)>) -> Vec<Range> {
    units.sort_unstable();
    let mut out: Vec<Range> = Vec::new();
    for (file, offset, lo, hi) in units {
        if let Some(r) = out.last_mut()
            && r.file == file
            && r.lo == lo
            && r.hi == hi
            && r.units < u32::MAX
            && r.offset + u64::from(r.units) * unit == offset
        {
            r.units += 1;
            continue;
        }
        out.push(Range {
            file,
            offset,
            units: 1,
            lo,
            hi,
        });
    }
    out
}

fn encode(r: &Range, writer: u32, seq: u64, out: &mut [u8]) {
    out[0..4].copy_from_slice(&MAGIC);
    out[4..8].copy_from_slice(&writer.to_le_bytes());
    out[8..16].copy_from_slice(&seq.to_le_bytes());
    out[16..20].copy_from_slice(&r.file.to_le_bytes());
    out[20..24].copy_from_slice(&r.units.to_le_bytes());
    out[24..32].copy_from_slice(&r.offset.to_le_bytes());
    out[32..40].copy_from_slice(&r.lo.to_le_bytes());
    out[40..48].copy_from_slice(&r.hi.to_le_bytes());
    out[48..56].fill(0);
    let crc = crc32c::crc32c(out);
    out[CRC_AT..CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
}

/// A record read back, if it is whole and its writer's.
fn decode(b: &[u8], writer: u32) -> Option<(u64, Range)> {
    if b.len() != RECORD || b[0..4] != MAGIC {
        return None;
    }
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
    let mut z = [0u8; RECORD];
    z.copy_from_slice(b);
    z[CRC_AT..].fill(0);
    if crc32c::crc32c(&z) != u32_at(CRC_AT) || u32_at(4) != writer || u32_at(48) != 0 {
        return None;
    }
    let r = Range {
        file: u32_at(16),
        units: u32_at(20),
        offset: u64_at(24),
        lo: u64_at(32),
        hi: u64_at(40),
    };
    (r.units > 0 && r.lo <= r.hi).then_some((u64_at(8), r))
}

/// One worker's journal, appended after each sync.
pub struct Journal {
    file: File,
    path: PathBuf,
    writer: u32,
    /// Records written so far (the last record's number).
    seq: u64,
    /// Where the next record goes.
    at: u64,
    /// Bytes of zeros written ahead (the file's length).
    len: u64,
    buf: Vec<u8>,
    /// Appends (each one write and one fdatasync).
    pub appends: u64,
}

impl Journal {
    /// Make worker `writer`'s journal in `dir` (it must not exist), its
    /// name durable.
    pub fn create(dir: &Path, writer: u32) -> Result<Journal> {
        let path = dir.join(journal_name(writer));
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(|| {
                format!(
                    "--verify-crash: cannot create the journal {}",
                    path.display()
                )
            })?;
        let mut j = Journal {
            file,
            path,
            writer,
            seq: 0,
            at: 0,
            len: 0,
            buf: Vec::new(),
            appends: 0,
        };
        j.grow(GROW)?;
        j.sync()?;
        sync_dir(dir)?;
        Ok(j)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.seq
    }

    fn grow(&mut self, need: u64) -> Result<()> {
        let to = (self.at + need).div_ceil(GROW) * GROW;
        if to <= self.len {
            return Ok(());
        }
        let zeros = vec![0u8; (to - self.len) as usize];
        self.file.write_all_at(&zeros, self.len).with_context(|| {
            format!(
                "--verify-crash: cannot grow the journal {}",
                self.path.display()
            )
        })?;
        self.len = to;
        Ok(())
    }

    fn sync(&self) -> Result<()> {
        rustix::fs::fdatasync(&self.file)
            .map_err(std::io::Error::from)
            .with_context(|| {
                format!(
                    "--verify-crash: cannot sync the journal {}",
                    self.path.display()
                )
            })
    }

    /// Record durably that a sync which has returned covered `ranges`: one
    /// write, then an fdatasync of the journal. Nothing to record, nothing
    /// done.
    pub fn append(&mut self, ranges: &[Range]) -> Result<()> {
        if ranges.is_empty() {
            return Ok(());
        }
        let n = ranges.len() * RECORD;
        self.buf.resize(n, 0);
        for (r, out) in ranges.iter().zip(self.buf.chunks_exact_mut(RECORD)) {
            self.seq += 1;
            encode(r, self.writer, self.seq, out);
        }
        self.grow(n as u64)?;
        self.file
            .write_all_at(&self.buf, self.at)
            .with_context(|| {
                format!(
                    "--verify-crash: cannot write the journal {}",
                    self.path.display()
                )
            })?;
        self.at += n as u64;
        self.appends += 1;
        self.sync()
    }
}

/// What a journal holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JournalRead {
    pub ranges: Vec<Range>,
    /// Records that read back whole.
    pub records: u64,
    /// Records that did not (cut by the crash), ignored.
    pub torn: u64,
}

/// Read worker `writer`'s journal: every whole record, and how many were
/// not whole (zeros past its end are neither).
pub fn read_journal(bytes: &[u8], writer: u32) -> JournalRead {
    let mut r = JournalRead::default();
    for rec in bytes.chunks(RECORD) {
        if rec.iter().all(|&b| b == 0) {
            continue;
        }
        match decode(rec, writer) {
            Some((_, range)) => {
                r.records += 1;
                r.ranges.push(range);
            }
            None => r.torn += 1,
        }
    }
    r
}

/// What the check of a crash directory found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CrashSummary {
    /// Journal records that read back whole.
    pub journal_records: u64,
    /// Journal records cut by the crash (ignored).
    pub journal_torn: u64,
    /// Units a sync during the run covered: each judged against the newest
    /// generation a sync covered.
    pub units_synced: u64,
    /// Units no sync of the run covered, judged against the layout (synced
    /// before the run began).
    pub units_laid_out: u64,
    /// Judged units that hold what was synced, or a newer intact write.
    pub units_intact: u64,
    /// Of those, units holding a write newer than any sync covered:
    /// written after their last sync (the newer write is not judged).
    pub units_not_synced: u64,
    /// Units torn by the crash between what was synced and a later write
    /// no sync covered: not judged.
    pub units_torn_unsynced: u64,
    /// Units that do not hold what a completed sync made durable.
    pub lost_after_fsync: u64,
}

impl CrashSummary {
    /// The text report's lines.
    pub fn render(&self) -> String {
        format!(
            "  --verify-crash: {} journal record(s) ({} cut by the crash, ignored); {} unit(s) synced during the run, {} judged against the layout's sync\n  \
             {} intact ({} written after their last sync: not synced, not judged), {} torn in a write after their last sync (not judged), {} lost after fsync\n",
            self.journal_records,
            self.journal_torn,
            self.units_synced,
            self.units_laid_out,
            self.units_intact,
            self.units_not_synced,
            self.units_torn_unsynced,
            self.lost_after_fsync
        )
    }
}

/// The claim on one unit: the oldest generation that may be there, and the
/// newest a sync covered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Claim {
    lo: u64,
    hi: u64,
    /// Covered by a sync during the run (not only the layout's).
    synced: bool,
}

/// Check every unit of the crash directory `dir` against its journals,
/// change nothing. Each unit lost after fsync goes to `lost` (its kind as
/// `--verify` names it); the counts are returned. Bytes read go to
/// `read_bytes`.
pub fn verify_dir(
    dir: &Path,
    mut lost: impl FnMut(Mismatch),
    read_bytes: &mut u64,
) -> Result<CrashSummary> {
    let head = Head::read(dir)?;
    let mut s = CrashSummary::default();
    let per_file = (head.file_size / head.unit) as usize;
    // per unit: [lo, hi] of the newest claim, 8 bytes (0.2 % of the data
    // at 4 KiB units); hi 0 is the layout's claim (a sync of the run
    // covers only units written, generation 1 on), NONE no claim at all
    const NONE: [u32; 2] = [u32::MAX, 0];
    let layout = if head.layout_synced { [0, 0] } else { NONE };
    let mut claims = vec![vec![layout; per_file]; head.files.len()];
    for w in 0..head.workers {
        let path = dir.join(journal_name(w));
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            // a worker killed before it made its journal synced nothing
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let j = read_journal(&bytes, w);
        s.journal_records += j.records;
        s.journal_torn += j.torn;
        for r in j.ranges {
            let first = r.offset / head.unit;
            let fits = (r.file as usize) < claims.len()
                && r.offset.is_multiple_of(head.unit)
                && first + u64::from(r.units) <= per_file as u64
                && r.hi < u64::from(u32::MAX);
            if !fits {
                crate::usage!(
                    "{}: a record names file {} units {}..{} generation {}, which the head's {} file(s) of {} unit(s) cannot hold; the directory was changed behind iogauge's back",
                    crate::error::shown_path(&path),
                    r.file,
                    first,
                    first + u64::from(r.units),
                    r.hi,
                    head.files.len(),
                    per_file
                );
            }
            let file = &mut claims[r.file as usize];
            for c in &mut file[first as usize..first as usize + r.units as usize] {
                let lo = if *c == NONE { 0 } else { c[0] };
                *c = [lo.max(r.lo as u32), c[1].max(r.hi as u32)];
            }
        }
    }
    let pattern = Pattern::new(head.seed, head.unit as usize);
    let unit = head.unit as usize;
    let chunk = unit * ((1usize << 20) / unit).max(1);
    let mut buf = vec![0u8; chunk];
    for (fi, name) in head.files.iter().enumerate() {
        let path = dir.join(name);
        let mut f = File::open(&path).with_context(|| format!("cannot open {}", path.display()))?;
        let mut at = 0usize;
        while at < per_file {
            let n = (per_file - at).min(chunk / unit);
            let want = n * unit;
            let got = read_full(&mut f, &mut buf[..want])
                .with_context(|| format!("cannot read {}", path.display()))?;
            *read_bytes += got as u64;
            // past the end of a file cut short: zeros, as a lost write
            buf[got..want].fill(0);
            for (k, u) in buf[..want].chunks_exact(unit).enumerate() {
                let [lo, hi] = claims[fi][at + k];
                if lo == u32::MAX {
                    continue;
                }
                let c = Claim {
                    lo: u64::from(lo),
                    hi: u64::from(hi),
                    synced: hi > 0,
                };
                let offset = ((at + k) * unit) as u64;
                if c.synced {
                    s.units_synced += 1;
                } else {
                    s.units_laid_out += 1;
                }
                judge(&pattern, &head, fi as u64, offset, c, u, &mut s, &mut lost);
            }
            at += n;
        }
    }
    Ok(s)
}

/// Judge one unit against its claim.
#[allow(clippy::too_many_arguments)]
fn judge(
    pattern: &Pattern,
    head: &Head,
    file: u64,
    offset: u64,
    c: Claim,
    u: &[u8],
    s: &mut CrashSummary,
    lost: &mut impl FnMut(Mismatch),
) {
    let found = super::header(u).map(|h| (h.unit, h.stamp));
    if let Some((unit, st)) = found
        && unit == pattern.unit()
        && st.file == file
        && st.offset == offset
        && st.seed == pattern.seed()
        && st.generation >= c.lo
        && super::crc_ok(u)
    {
        s.units_intact += 1;
        if st.generation > c.hi {
            s.units_not_synced += 1;
        }
        return;
    }
    let writer = head.owner(offset);
    let want = Want {
        file,
        offset,
        generations: c.lo..=c.hi,
        writer,
    };
    if u.iter().all(|&b| b == 0) {
        s.lost_after_fsync += 1;
        lost(pattern.classify(u, &want));
        return;
    }
    // torn by the crash: every sector from a synced generation or a later
    // one (a write after the last sync, in flight or not yet written back)
    let newest = found
        .filter(|(_, st)| st.file == file && st.offset == offset && st.seed == pattern.seed())
        .map_or(c.hi, |(_, st)| st.generation.max(c.hi));
    let ahead = Want {
        file,
        offset,
        generations: c.lo..=newest.saturating_add(MIX_AHEAD).min(c.lo + 64),
        writer,
    };
    if mixed(pattern, u, &ahead) {
        s.units_torn_unsynced += 1;
        return;
    }
    s.lost_after_fsync += 1;
    lost(pattern.classify(u, &want));
}

/// Whether every sector of `u` is the same sector of some generation
/// `want` accepts, and more than one generation is among them.
fn mixed(pattern: &Pattern, u: &[u8], want: &Want) -> bool {
    let units: Vec<Vec<u8>> = want
        .generations
        .clone()
        .map(|g| {
            pattern.expected(&Stamp {
                file: want.file,
                offset: want.offset,
                generation: g,
                writer: want.writer,
                seed: pattern.seed(),
            })
        })
        .collect();
    u.chunks(SECTOR).enumerate().all(|(i, s)| {
        units
            .iter()
            .any(|x| &x[i * SECTOR..i * SECTOR + s.len()] == s)
    })
}

/// Read until `buf` is full or the file ends; the bytes read.
fn read_full(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match f.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::Kind;

    const U: u64 = 4096;

    #[test]
    fn a_sequential_sync_is_one_range() {
        let units = (0..8).rev().map(|i| (0, 100 * U + i * U, 3, 3)).collect();
        assert_eq!(
            ranges(U, units),
            vec![Range {
                file: 0,
                offset: 100 * U,
                units: 8,
                lo: 3,
                hi: 3
            }]
        );
    }

    #[test]
    fn ranges_break_at_gaps_files_and_generations() {
        let units = vec![
            (0, 0, 1, 1),
            (0, U, 1, 1),
            (0, 3 * U, 1, 1),
            (0, 4 * U, 2, 2),
            (0, 5 * U, 1, 2),
            (1, 6 * U, 1, 2),
        ];
        let r = ranges(U, units);
        let short: Vec<_> = r
            .iter()
            .map(|r| (r.file, r.offset / U, r.units, r.lo, r.hi))
            .collect();
        assert_eq!(
            short,
            vec![
                (0, 0, 2, 1, 1),
                (0, 3, 1, 1, 1),
                (0, 4, 1, 2, 2),
                (0, 5, 1, 1, 2),
                (1, 6, 1, 1, 2)
            ]
        );
        assert!(ranges(U, Vec::new()).is_empty());
    }

    #[test]
    fn records_round_trip_and_a_cut_one_is_ignored() {
        let r = Range {
            file: 2,
            offset: 7 * U,
            units: 9,
            lo: 4,
            hi: 5,
        };
        let mut b = [0u8; RECORD];
        encode(&r, 3, 11, &mut b);
        assert_eq!(decode(&b, 3), Some((11, r)));
        // the CRC is CRC-32C of the record with its field as zeros
        let mut z = b;
        z[CRC_AT..].fill(0);
        assert_eq!(
            u32::from_le_bytes(b[CRC_AT..].try_into().unwrap()),
            crc32c::crc32c(&z)
        );
        // another worker's record, a flipped bit, a cut record
        assert_eq!(decode(&b, 2), None);
        for i in 0..RECORD {
            let mut x = b;
            x[i] ^= 0x20;
            assert_eq!(decode(&x, 3), None, "flip at byte {i}");
        }
        let mut j = b.to_vec();
        j.extend_from_slice(&b);
        j.extend_from_slice(&b[..30]);
        j.resize(j.len() + RECORD * 3 - 30, 0);
        let mut cut = b;
        cut[20..].fill(0);
        j.extend_from_slice(&cut);
        let read = read_journal(&j, 3);
        assert_eq!((read.records, read.torn, read.ranges.len()), (2, 2, 2));
    }

    #[test]
    fn the_journal_appends_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::create(dir.path(), 1).unwrap();
        let len0 = std::fs::metadata(j.path()).unwrap().len();
        assert_eq!(len0, GROW);
        j.append(&[]).unwrap();
        assert_eq!(j.appends, 0);
        let r = |o: u64, g: u64| Range {
            file: 0,
            offset: o * U,
            units: 1,
            lo: g,
            hi: g,
        };
        j.append(&[r(0, 1), r(2, 1)]).unwrap();
        j.append(&[r(0, 2)]).unwrap();
        // past one growth: the file grows by whole records
        let many: Vec<Range> = (0..20_000).map(|i| r(i, 1)).collect();
        j.append(&many).unwrap();
        assert_eq!((j.appends, j.records()), (3, 20_003));
        let bytes = std::fs::read(j.path()).unwrap();
        assert_eq!(bytes.len() as u64, 2 * GROW);
        let read = read_journal(&bytes, 1);
        assert_eq!((read.records, read.torn), (20_003, 0));
        assert_eq!(read.ranges[2], r(0, 2));
        // a second journal of the same worker is refused
        assert!(Journal::create(dir.path(), 1).is_err());
    }

    fn head(files: usize, units: u64, workers: u32) -> Head {
        Head {
            format: HEAD_FORMAT.into(),
            seed: 5,
            unit: U,
            files: (0..files).map(|i| format!("data.{i}")).collect(),
            file_size: units * U,
            workers,
            share: units / u64::from(workers) * U,
            sync: "every=4".into(),
            layout_synced: true,
        }
    }

    /// A crash directory: files of generation `gen(file, unit)`, the head,
    /// and one journal with `synced`.
    fn crash_dir(h: &Head, g: impl Fn(u64, u64) -> u64, synced: &[Range]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let p = Pattern::new(h.seed, U as usize);
        for (i, name) in h.files.iter().enumerate() {
            let mut buf = vec![0u8; h.file_size as usize];
            for (k, u) in buf.chunks_exact_mut(U as usize).enumerate() {
                let offset = k as u64 * U;
                p.write(
                    u,
                    &Stamp {
                        file: i as u64,
                        offset,
                        generation: g(i as u64, k as u64),
                        writer: h.owner(offset),
                        seed: h.seed,
                    },
                );
            }
            std::fs::write(dir.path().join(name), buf).unwrap();
        }
        h.write(dir.path()).unwrap();
        let mut j = Journal::create(dir.path(), 0).unwrap();
        j.append(synced).unwrap();
        dir
    }

    fn check(dir: &Path) -> (CrashSummary, Vec<Mismatch>) {
        let mut lost = Vec::new();
        let mut read = 0;
        let s = verify_dir(dir, |m| lost.push(m), &mut read).unwrap();
        (s, lost)
    }

    fn put(dir: &Path, h: &Head, file: u64, unit: u64, generation: u64) {
        let p = Pattern::new(h.seed, U as usize);
        let u = p.expected(&Stamp {
            file,
            offset: unit * U,
            generation,
            writer: h.owner(unit * U),
            seed: h.seed,
        });
        let f = File::options()
            .write(true)
            .open(dir.join(&h.files[file as usize]))
            .unwrap();
        f.write_all_at(&u, unit * U).unwrap();
    }

    #[test]
    fn synced_units_intact_and_newer_ones_are_fine() {
        let h = head(2, 16, 1);
        // units 0..4 of file 0 synced at generation 2, unit 4 at 1; unit 4
        // then written again (3) after its sync; unit 8 written, never synced
        let synced = [
            Range {
                file: 0,
                offset: 0,
                units: 4,
                lo: 2,
                hi: 2,
            },
            Range {
                file: 0,
                offset: 4 * U,
                units: 1,
                lo: 1,
                hi: 1,
            },
        ];
        let dir = crash_dir(
            &h,
            |f, k| match (f, k) {
                (0, 0..4) => 2,
                (0, 4) => 3,
                (0, 8) => 1,
                _ => 0,
            },
            &synced,
        );
        let (s, lost) = check(dir.path());
        assert!(lost.is_empty(), "{lost:?}");
        assert_eq!(s.journal_records, 2);
        assert_eq!((s.units_synced, s.units_laid_out), (5, 27));
        assert_eq!((s.units_intact, s.units_not_synced), (32, 2));
        assert_eq!(s.lost_after_fsync, 0);
    }

    #[test]
    fn an_older_generation_zeros_or_damage_are_lost_after_fsync() {
        let h = head(1, 16, 2);
        let synced = [Range {
            file: 0,
            offset: 0,
            units: 16,
            lo: 3,
            hi: 3,
        }];
        let dir = crash_dir(&h, |_, _| 3, &synced);
        // the negative control: an older generation behind iogauge's back
        put(dir.path(), &h, 0, 5, 2);
        // zeros, and a unit that belongs elsewhere
        let f = File::options()
            .write(true)
            .open(dir.path().join("data.0"))
            .unwrap();
        f.write_all_at(&vec![0u8; U as usize], 9 * U).unwrap();
        put(dir.path(), &h, 0, 1, 3);
        let (s, lost) = check(dir.path());
        assert_eq!(s.lost_after_fsync, 2);
        assert_eq!(
            lost.iter()
                .map(|m| (m.kind, m.offset / U))
                .collect::<Vec<_>>(),
            vec![(Kind::Stale, 5), (Kind::Lost, 9)]
        );
        // unit 9 belongs to worker 1: its payload is keyed by it
        assert_eq!(h.owner(9 * U), 1);
    }

    #[test]
    fn a_unit_torn_by_a_later_unsynced_write_is_not_judged() {
        let h = head(1, 8, 1);
        let synced = [Range {
            file: 0,
            offset: 0,
            units: 8,
            lo: 2,
            hi: 2,
        }];
        let dir = crash_dir(&h, |_, _| 2, &synced);
        // unit 3: its first half from generation 3 (no sync covered it)
        let p = Pattern::new(h.seed, U as usize);
        let new = p.expected(&Stamp {
            file: 0,
            offset: 3 * U,
            generation: 3,
            writer: 0,
            seed: h.seed,
        });
        let f = File::options()
            .write(true)
            .open(dir.path().join("data.0"))
            .unwrap();
        f.write_all_at(&new[..2048], 3 * U).unwrap();
        // unit 6: torn between generations 1 and 2: the synced one is gone
        let old = p.expected(&Stamp {
            generation: 1,
            offset: 6 * U,
            ..Stamp {
                file: 0,
                offset: 0,
                generation: 0,
                writer: 0,
                seed: h.seed,
            }
        });
        f.write_all_at(&old[2048..], 6 * U + 2048).unwrap();
        let (s, lost) = check(dir.path());
        assert_eq!((s.units_torn_unsynced, s.lost_after_fsync), (1, 1));
        assert_eq!((lost[0].kind, lost[0].offset), (Kind::Torn, 6 * U));
    }

    #[test]
    fn a_file_cut_short_and_a_bad_head_are_named() {
        let h = head(1, 8, 1);
        let dir = crash_dir(&h, |_, _| 0, &[]);
        let f = File::options()
            .write(true)
            .open(dir.path().join("data.0"))
            .unwrap();
        f.set_len(6 * U).unwrap();
        let (s, lost) = check(dir.path());
        assert_eq!((s.units_laid_out, s.lost_after_fsync), (8, 2));
        assert!(lost.iter().all(|m| m.kind == Kind::Lost));
        std::fs::write(dir.path().join(HEAD), "{\"format\":\"x\"}").unwrap();
        let e = verify_dir(dir.path(), |_| {}, &mut 0).unwrap_err();
        assert!(e.to_string().contains("not a --verify-crash head"), "{e}");
    }
}
