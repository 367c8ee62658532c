//! What a verifying worker knows of every unit it owns: the generation
//! each must hold, which writes are in flight, and what its reads found.
//!
//! Soundness at depth (no false positives):
//! - Every unit has one writer. Under `--verify`, worker w of P owns the
//!   w-th of P equal slices of every file ([`Geometry`]) and reads and
//!   writes only there, so no other worker can change a unit under it.
//! - A unit's state is the newest generation issued (`hi`), the oldest
//!   that may still be there (`lo = hi - span`), the writes of it in
//!   flight, and the sequence number of the last write issued or
//!   completed there (`touch`). A write is given the next generation when
//!   it is issued. If no other write of the unit is in flight then, only
//!   that generation can be there once it completes (`span` 0); if others
//!   are, completion order is not issue order, and any generation of the
//!   writes that overlapped may be there afterwards (`span` grows) until a
//!   write alone settles it.
//! - A read is judged only if no write of its unit was in flight at any
//!   moment between its issue and its completion: the unit's `touch` is
//!   older than the read's issue and nothing is in flight. Otherwise it is
//!   counted as "not checked: raced with a write in flight" (with O_DIRECT
//!   such a read may legally return a mix of old and new sectors).
//! - A unit that two writes raced for may hold a mix of their sectors;
//!   such a unit that fails its check but is made only of sectors of the
//!   accepted generations is counted as raced too, not as a mismatch.
//! - A read that comes back short checks the whole units it holds; the
//!   rest are "not checked: short read".
//!
//! Memory: 16 bytes per unit (0.4 % of the data at 4 KiB units), plus 8
//! bytes per buffer slot.

use super::{Kind, Mismatch, Pattern, Want};
use crate::engine::{Completion, FileId, Req};
use crate::measure::OpKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Mismatches kept in full in a result (all are counted).
pub const KEEP_FIRST: usize = 20;

/// The file a run with `--keep` leaves in its work directory; a directory
/// holding it is a kept file set, not an abandoned work directory.
pub const MANIFEST: &str = "iogauge-verify.json";

/// The manifest's format name.
pub const MANIFEST_FORMAT: &str = "iogauge-verify/1";

/// Whether `dir` is a file set kept by `--keep` (it holds a manifest) or
/// left by a `--verify-crash` run (it holds a crash head): a run that
/// cleans up abandoned work directories leaves it alone.
pub fn is_kept(dir: &Path) -> bool {
    dir.join(MANIFEST).is_file() || super::crash::is_crash_dir(dir)
}

/// How a verified file set is cut up: units, files, and which worker owns
/// which slice of every file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry {
    /// Bytes per unit (the verify interval).
    pub unit: u64,
    pub files: u32,
    /// Bytes in each file (a whole number of units).
    pub file_size: u64,
    pub workers: u32,
    /// Bytes of every file each worker owns: worker w owns
    /// [w·share, (w+1)·share); the tail past workers·share is the last
    /// worker's (prefilled, never touched by the run).
    pub share: u64,
}

impl Geometry {
    /// The worker that owns byte `offset` of a file.
    #[inline]
    pub fn owner(&self, offset: u64) -> u32 {
        if self.share == 0 {
            return 0;
        }
        ((offset / self.share) as u32).min(self.workers.saturating_sub(1))
    }
}

/// Units not checked, and why.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NotChecked {
    /// Read while a write of the unit was in flight (or after two writes
    /// raced for it, holding a legal mix of both).
    pub raced: u64,
    /// Past the end of a read that came back short.
    pub short_read: u64,
    /// `--verify-only`: a write of the unit was still in flight when the
    /// run stopped, so what it holds is not known.
    pub unknown: u64,
}

/// Mismatches of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct KindCounts {
    /// A few bits differ from the expected unit.
    pub bit_flip: u64,
    /// Some sectors hold the newest write, the rest the write before it.
    pub torn: u64,
    /// A whole unit of an older generation: the newest write was lost.
    pub stale: u64,
    /// Zeros where a unit was written.
    pub lost: u64,
    /// A whole unit that belongs at another offset or file.
    pub misdirected: u64,
    /// A whole unit of a generation newer than any written there.
    pub future: u64,
    /// Bytes that are not iogauge's, or another run's unit.
    pub foreign: u64,
    /// iogauge's header, damaged beyond the kinds above.
    pub corrupt: u64,
}

impl KindCounts {
    pub fn get(&self, k: Kind) -> u64 {
        *self.slot(k)
    }

    fn slot(&self, k: Kind) -> &u64 {
        match k {
            Kind::BitFlip => &self.bit_flip,
            Kind::Torn => &self.torn,
            Kind::Stale => &self.stale,
            Kind::Lost => &self.lost,
            Kind::Misdirected => &self.misdirected,
            Kind::Future => &self.future,
            Kind::Foreign => &self.foreign,
            Kind::Corrupt => &self.corrupt,
        }
    }

    fn add(&mut self, k: Kind, n: u64) {
        let v = match k {
            Kind::BitFlip => &mut self.bit_flip,
            Kind::Torn => &mut self.torn,
            Kind::Stale => &mut self.stale,
            Kind::Lost => &mut self.lost,
            Kind::Misdirected => &mut self.misdirected,
            Kind::Future => &mut self.future,
            Kind::Foreign => &mut self.foreign,
            Kind::Corrupt => &mut self.corrupt,
        };
        *v += n;
    }
}

/// The `verify` section of a result: what `--verify` or `--verify-only`
/// wrote and checked, and every mismatch it found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Section {
    /// Bytes per unit (the verify interval).
    pub unit_bytes: u64,
    /// Units written by completed writes (the prefill not counted).
    pub units_written: u64,
    /// Units read back and checked.
    pub units_checked: u64,
    /// Units read back but not checked, by cause.
    pub not_checked: NotChecked,
    /// Units that failed their check.
    pub mismatches: u64,
    /// The mismatches by kind.
    pub by_kind: KindCounts,
    /// The first mismatches in full (at most 20; all are counted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub first: Vec<Mismatch>,
    /// `--verify-fatal`: the run stopped at the first mismatch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stopped_at_first: bool,
    /// `--keep`: the directory that holds the files and their manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
    /// `--verify-only` of a directory a killed `--verify-crash` run left:
    /// what its journals claimed and what was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash: Option<super::crash::CrashSummary>,
}

impl Section {
    pub fn new(unit: u64) -> Section {
        Section {
            unit_bytes: unit,
            ..Default::default()
        }
    }

    /// Count a mismatch, keeping it in full among the first.
    pub fn mismatch(&mut self, m: Mismatch) {
        self.mismatches += 1;
        self.by_kind.add(m.kind, 1);
        if self.first.len() < KEEP_FIRST {
            self.first.push(m);
        }
    }

    /// Add another worker's counts.
    pub fn merge(&mut self, o: &Section) {
        self.units_written += o.units_written;
        self.units_checked += o.units_checked;
        self.not_checked.raced += o.not_checked.raced;
        self.not_checked.short_read += o.not_checked.short_read;
        self.not_checked.unknown += o.not_checked.unknown;
        self.mismatches += o.mismatches;
        for k in Kind::ALL {
            self.by_kind.add(k, o.by_kind.get(k));
        }
        for m in &o.first {
            if self.first.len() < KEEP_FIRST {
                self.first.push(m.clone());
            }
        }
        self.stopped_at_first |= o.stopped_at_first;
    }

    /// The text report's block: counts, then each mismatch kept on a line.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut s = String::from("\nVerify\n");
        let _ = writeln!(
            s,
            "  unit {} B: {} written, {} checked, {} mismatched",
            self.unit_bytes, self.units_written, self.units_checked, self.mismatches
        );
        let n = &self.not_checked;
        if n.raced + n.short_read + n.unknown > 0 {
            let _ = writeln!(
                s,
                "  not checked: {} raced with a write in flight, {} past a short read, {} unknown (a write in flight when the run stopped)",
                n.raced, n.short_read, n.unknown
            );
            let read = self.units_checked + n.raced + n.short_read;
            if read > 0 {
                let _ = writeln!(
                    s,
                    "  judged: {:.1} % of the units read",
                    100.0 * self.units_checked as f64 / read as f64
                );
            }
        }
        if let Some(c) = &self.crash {
            s.push_str(&c.render());
        }
        if self.mismatches > 0 {
            let kinds: Vec<String> = Kind::ALL
                .iter()
                .filter(|&&k| self.by_kind.get(k) > 0)
                .map(|&k| format!("{k} {}", self.by_kind.get(k)))
                .collect();
            let _ = writeln!(s, "  by kind: {}", kinds.join(", "));
            let lost = if self.crash.is_some() {
                "lost after fsync: "
            } else {
                ""
            };
            for m in &self.first {
                let _ = writeln!(s, "  {lost}{m}");
            }
            if self.mismatches > self.first.len() as u64 {
                let _ = writeln!(
                    s,
                    "  … and {} more (all counted above)",
                    self.mismatches - self.first.len() as u64
                );
            }
        }
        if self.stopped_at_first {
            s.push_str("  stopped at the first mismatch (--verify-fatal)\n");
        }
        if let Some(k) = &self.kept {
            let _ = writeln!(s, "  kept in {k} (iogauge run --verify-only {k})");
        }
        s
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct UnitState {
    /// The write sequence number of the last write issued or completed.
    touch: u64,
    /// The newest generation issued.
    hi: u32,
    /// hi − the oldest generation that may be there.
    span: u16,
    /// Writes of the unit in flight.
    inflight: u16,
}

/// Units an fsync made durable: each holds one of generations lo..=hi
/// (every write of it that completed before the sync was issued; a later
/// write not synced may have landed too).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Durable {
    pub file: u32,
    pub offset: u64,
    pub lo: u64,
    pub hi: u64,
}

/// What one worker knows of the units it owns.
pub struct Tracker {
    pattern: Pattern,
    geo: Geometry,
    writer: u32,
    /// The first byte of every file this worker owns.
    base: u64,
    /// Units this worker owns in each file.
    per_file: u64,
    state: Vec<UnitState>,
    /// File index of each FileId (by its number).
    file_of: Vec<u32>,
    seq: u64,
    /// The write sequence number when the read in each slot was issued.
    read_seq: Vec<u64>,
    fatal: bool,
    pub counts: Section,
    durable: Option<DurableLog>,
}

/// The writes each sync covers (only when asked for: `--verify-crash`).
struct DurableLog {
    /// Per file: units written since its last sync was issued.
    dirty: Vec<Vec<u32>>,
    marked: Vec<bool>,
    /// Per slot: the units the sync in it covers.
    pending: Vec<Vec<Durable>>,
    /// Made durable by syncs that completed, not yet taken.
    done: Vec<Durable>,
}

impl Tracker {
    /// Worker `writer`'s tracker over `geo`, with `slots` buffer slots; its
    /// files' ids in file order.
    pub fn new(
        geo: Geometry,
        pattern: Pattern,
        writer: u32,
        files: &[FileId],
        slots: usize,
        fatal: bool,
    ) -> Tracker {
        let per_file = geo.share / geo.unit;
        let mut t = Tracker {
            counts: Section::new(geo.unit),
            pattern,
            geo,
            writer,
            base: u64::from(writer) * geo.share,
            per_file,
            state: vec![UnitState::default(); (per_file * u64::from(geo.files)) as usize],
            file_of: Vec::new(),
            seq: 0,
            read_seq: vec![0; slots.max(1)],
            fatal,
            durable: None,
        };
        t.bind(files);
        t
    }

    /// The files' ids, in file order, after they were opened again (a
    /// benchmark that opens its file anew for each pass: IOzone).
    pub fn bind(&mut self, files: &[FileId]) {
        self.file_of.clear();
        for (i, f) in files.iter().enumerate() {
            let n = f.0 as usize;
            if self.file_of.len() <= n {
                self.file_of.resize(n + 1, u32::MAX);
            }
            self.file_of[n] = i as u32;
        }
    }

    /// Every unit at generation `g` (a phase that reads what an earlier
    /// phase wrote once).
    pub fn set_all(&mut self, g: u32) {
        for st in &mut self.state {
            st.hi = g;
        }
    }

    /// Keep the units each completed sync made durable ([`Tracker::take_durable`]).
    pub fn track_durable(&mut self) {
        let files = self.geo.files as usize;
        self.durable = Some(DurableLog {
            dirty: vec![Vec::new(); files],
            marked: vec![false; self.state.len()],
            pending: vec![Vec::new(); self.read_seq.len()],
            done: Vec::new(),
        });
    }

    /// The units made durable by the syncs completed since the last call.
    pub fn take_durable(&mut self) -> Vec<Durable> {
        self.durable
            .as_mut()
            .map(|d| std::mem::take(&mut d.done))
            .unwrap_or_default()
    }

    #[inline]
    fn file(&self, id: FileId) -> u32 {
        self.file_of[id.0 as usize]
    }

    /// The state index of the unit at `offset` of file `file`.
    #[inline]
    fn index(&self, file: u32, offset: u64) -> usize {
        debug_assert!(offset >= self.base && offset < self.base + self.geo.share);
        (u64::from(file) * self.per_file + (offset - self.base) / self.geo.unit) as usize
    }

    fn slot(&mut self, slot: u16) -> usize {
        let s = usize::from(slot);
        if s >= self.read_seq.len() {
            self.read_seq.resize(s + 1, 0);
            if let Some(d) = &mut self.durable {
                d.pending.resize(s + 1, Vec::new());
            }
        }
        s
    }

    /// A request is about to be issued: a write gets the next generation
    /// of each unit and its buffer is made of them; a read notes when it
    /// went out; a sync notes the writes it covers.
    #[inline]
    pub fn fill(&mut self, req: &Req, buf: &mut [u8]) {
        let slot = self.slot(req.slot);
        match req.kind {
            OpKind::Write => {
                let file = self.file(req.file);
                let unit = self.geo.unit as usize;
                self.seq += 1;
                let first = self.index(file, req.offset);
                let len = req.len as usize;
                for (i, u) in buf[..len].chunks_exact_mut(unit).enumerate() {
                    let st = &mut self.state[first + i];
                    if st.inflight == 0 {
                        st.span = 0;
                    } else {
                        st.span = st.span.saturating_add(1);
                    }
                    st.hi += 1;
                    st.inflight += 1;
                    st.touch = self.seq;
                    let stamp = super::Stamp {
                        file: u64::from(file),
                        offset: req.offset + (i * unit) as u64,
                        generation: u64::from(st.hi),
                        writer: self.writer,
                        seed: self.pattern.seed(),
                    };
                    self.pattern.write(u, &stamp);
                    if let Some(d) = &mut self.durable
                        && !d.marked[first + i]
                    {
                        d.marked[first + i] = true;
                        d.dirty[file as usize].push((first + i) as u32);
                    }
                }
            }
            OpKind::Read => self.read_seq[slot] = self.seq,
            OpKind::Fsync => {
                let file = self.file(req.file);
                let per_file = self.per_file as usize;
                let (base, unit) = (self.base, self.geo.unit);
                if let Some(d) = &mut self.durable {
                    let units = std::mem::take(&mut d.dirty[file as usize]);
                    let covered = &mut d.pending[slot];
                    covered.clear();
                    for i in units {
                        d.marked[i as usize] = false;
                        let st = self.state[i as usize];
                        covered.push(Durable {
                            file,
                            offset: base + (i as usize % per_file) as u64 * unit,
                            lo: u64::from(st.hi - u32::from(st.span)),
                            hi: u64::from(st.hi),
                        });
                    }
                }
            }
            _ => {}
        }
    }

    /// A request completed (whole: the driver finishes short writes).
    #[inline]
    pub fn done(&mut self, c: &Completion) {
        match c.req.kind {
            OpKind::Write => {
                let file = self.file(c.req.file);
                let first = self.index(file, c.req.offset);
                let n = c.req.len as usize / self.geo.unit as usize;
                self.seq += 1;
                for st in &mut self.state[first..first + n] {
                    st.inflight -= 1;
                    st.touch = self.seq;
                }
                self.counts.units_written += n as u64;
            }
            OpKind::Fsync => {
                let slot = self.slot(c.req.slot);
                if let Some(d) = &mut self.durable {
                    let covered = std::mem::take(&mut d.pending[slot]);
                    d.done.extend(covered);
                }
            }
            _ => {}
        }
    }

    /// Check what a completed read brought back (`buf`, the whole slot).
    #[inline]
    pub fn check(&mut self, c: &Completion, buf: &[u8]) -> anyhow::Result<()> {
        let unit = self.geo.unit as usize;
        let file = self.file(c.req.file);
        let first = self.index(file, c.req.offset);
        let issued = self.read_seq[usize::from(c.req.slot)];
        let asked = c.req.len as usize / unit;
        let got = (c.bytes as usize).min(c.req.len as usize) / unit;
        self.counts.not_checked.short_read += (asked - got) as u64;
        for (i, u) in buf[..got * unit].chunks_exact(unit).enumerate() {
            let st = self.state[first + i];
            if st.inflight > 0 || st.touch > issued {
                self.counts.not_checked.raced += 1;
                continue;
            }
            let want = Want {
                file: u64::from(file),
                offset: c.req.offset + (i * unit) as u64,
                generations: u64::from(st.hi - u32::from(st.span))..=u64::from(st.hi),
                writer: self.writer,
            };
            match self.pattern.check(u, &want) {
                Ok(_) => self.counts.units_checked += 1,
                Err(m) => self.bad(u, &want, *m)?,
            }
        }
        Ok(())
    }

    #[cold]
    fn bad(&mut self, u: &[u8], want: &Want, m: Mismatch) -> anyhow::Result<()> {
        if want.generations.start() != want.generations.end() && self.pattern.is_mix(u, want) {
            self.counts.not_checked.raced += 1;
            return Ok(());
        }
        self.counts.units_checked += 1;
        let line = m.to_string();
        self.counts.mismatch(m);
        if self.fatal {
            self.counts.stopped_at_first = true;
            anyhow::bail!("verify: {line} (--verify-fatal stops at the first mismatch)");
        }
        Ok(())
    }

    /// Every unit this worker wrote (generation above 0), as the manifest
    /// lists them; `unknown` for a write still in flight.
    pub fn written(&self) -> Vec<(Durable, bool)> {
        let per_file = self.per_file as usize;
        self.state
            .iter()
            .enumerate()
            .filter(|(_, st)| st.hi > 0)
            .map(|(i, st)| {
                (
                    Durable {
                        file: (i / per_file) as u32,
                        offset: self.base + (i % per_file) as u64 * self.geo.unit,
                        lo: u64::from(st.hi - u32::from(st.span)),
                        hi: u64::from(st.hi),
                    },
                    st.inflight > 0,
                )
            })
            .collect()
    }
}

/// What a worker hands back after a run with `--verify`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WorkerReport {
    pub counts: Section,
    /// With `--keep`: the units it wrote, `[file, offset, lo, hi]`.
    #[serde(default)]
    pub written: Vec<(u32, u64, u64, u64)>,
    /// With `--keep`: units whose last write was in flight at the end.
    #[serde(default)]
    pub unknown: Vec<(u32, u64, u64, u64)>,
}

impl WorkerReport {
    pub fn of(t: &Tracker, keep: bool) -> WorkerReport {
        let mut r = WorkerReport {
            counts: t.counts.clone(),
            ..Default::default()
        };
        if keep {
            for (d, unknown) in t.written() {
                let row = (d.file, d.offset, d.lo, d.hi);
                if unknown {
                    r.unknown.push(row);
                } else {
                    r.written.push(row);
                }
            }
        }
        r
    }
}

/// The manifest of a kept file set: enough to check every unit again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// "iogauge-verify/1".
    pub format: String,
    pub seed: u64,
    pub geometry: Geometry,
    /// The files' names in the directory, in file-number order.
    pub files: Vec<String>,
    /// Units written after the prefill: `[file, offset, lo, hi]`, each
    /// holding one of generations lo..=hi; every unit not listed holds
    /// generation 0.
    pub written: Vec<(u32, u64, u64, u64)>,
    /// Units whose last write was in flight when the run stopped: not
    /// checked.
    pub unknown: Vec<(u32, u64, u64, u64)>,
    /// Workers that handed nothing back (a killed process): what their
    /// slices hold is not known, and not checked.
    #[serde(default)]
    pub lost_workers: Vec<u32>,
    /// The run's own counts, for the record.
    pub run: Section,
}

impl Manifest {
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let p = dir.join(MANIFEST);
        let text = serde_json::to_string(self)?;
        std::fs::write(&p, text + "\n")
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", p.display()))
    }

    /// The manifest in `dir`; a usage error (one line) when there is none
    /// or it is not one.
    pub fn read(dir: &Path) -> anyhow::Result<Manifest> {
        let shown = crate::error::shown_path(dir);
        let p = dir.join(MANIFEST);
        let text = match std::fs::read_to_string(&p) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => crate::usage!(
                "--verify-only {shown}: holds no {MANIFEST}; name a work directory kept by 'iogauge run --verify --keep'"
            ),
            Err(e) => crate::usage!(
                "--verify-only {shown}: cannot read its {MANIFEST} ({})",
                crate::error::io_reason(&e)
            ),
        };
        let m: Manifest = match serde_json::from_str(&text) {
            Ok(m) => m,
            Err(e) => crate::usage!("--verify-only {shown}: its {MANIFEST} is damaged ({e})"),
        };
        if m.format != MANIFEST_FORMAT {
            crate::usage!(
                "--verify-only {shown}: its {MANIFEST} is of format '{}', this iogauge reads '{MANIFEST_FORMAT}'",
                m.format
            );
        }
        let g = m.geometry;
        if super::check_unit(g.unit).is_err()
            || g.files as usize != m.files.len()
            || g.workers == 0
            || !g.file_size.is_multiple_of(g.unit)
            || m.files.iter().any(|f| f.contains('/') || f.is_empty())
        {
            crate::usage!("--verify-only {shown}: its {MANIFEST} does not describe a file set");
        }
        Ok(m)
    }
}

/// Check every unit of the file set kept in `dir` against its manifest,
/// reading only. The files are dropped from the page cache first, so that
/// what is checked comes from the medium.
pub fn verify_dir(dir: &Path) -> anyhow::Result<Section> {
    use std::collections::HashMap;
    use std::os::unix::fs::{FileExt, OpenOptionsExt};
    use std::os::unix::io::AsRawFd;
    let m = Manifest::read(dir)?;
    let g = m.geometry;
    let pattern = Pattern::new(m.seed, g.unit as usize);
    let mut written: HashMap<(u32, u64), (u64, u64, bool)> = HashMap::new();
    for &(f, o, lo, hi) in &m.written {
        written.insert((f, o), (lo, hi, false));
    }
    for &(f, o, lo, hi) in &m.unknown {
        written.insert((f, o), (lo, hi, true));
    }
    let mut s = Section::new(g.unit);
    const CHUNK: usize = 1 << 20;
    let unit = g.unit as usize;
    let chunk = unit * (CHUNK / unit).max(1);
    let mut buf = vec![0u8; chunk];
    for (i, name) in m.files.iter().enumerate() {
        let p = dir.join(name);
        let open = |noatime: bool| {
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(if noatime { libc::O_NOATIME } else { 0 })
                .open(&p)
        };
        let f = open(true).or_else(|_| open(false)).map_err(|e| {
            crate::error::UsageError::new(format!(
                "--verify-only {}: cannot open {name} ({})",
                crate::error::shown_path(dir),
                crate::error::io_reason(&e)
            ))
        })?;
        // SAFETY: a valid open descriptor; advice has no memory effects.
        unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        let mut at = 0u64;
        while at < g.file_size {
            let want_len = ((g.file_size - at) as usize).min(chunk);
            let mut got = 0;
            while got < want_len {
                match f.read_at(&mut buf[got..want_len], at + got as u64) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => anyhow::bail!("cannot read {}: {e}", p.display()),
                }
            }
            let whole = got / unit;
            s.not_checked.short_read += ((want_len - whole * unit) / unit) as u64;
            for (k, u) in buf[..whole * unit].chunks_exact(unit).enumerate() {
                let offset = at + (k * unit) as u64;
                let (lo, hi, unknown) = written
                    .get(&(i as u32, offset))
                    .copied()
                    .unwrap_or((0, 0, false));
                if unknown || m.lost_workers.contains(&g.owner(offset)) {
                    s.not_checked.unknown += 1;
                    continue;
                }
                let want = Want {
                    file: i as u64,
                    offset,
                    generations: lo..=hi,
                    writer: g.owner(offset),
                };
                match pattern.check(u, &want) {
                    Ok(_) => s.units_checked += 1,
                    Err(_) if lo != hi && pattern.is_mix(u, &want) => s.not_checked.raced += 1,
                    Err(mm) => {
                        s.units_checked += 1;
                        s.mismatch(*mm);
                    }
                }
            }
            if got < want_len {
                s.not_checked.short_read += (g.file_size - at - want_len as u64) / g.unit;
                break;
            }
            at += want_len as u64;
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Completion;

    const U: u64 = 4096;

    fn geo() -> Geometry {
        Geometry {
            unit: U,
            files: 1,
            file_size: 16 * U,
            workers: 2,
            share: 8 * U,
        }
    }

    #[test]
    fn the_text_says_what_share_of_the_units_read_was_judged() {
        let mut s = Section::new(U);
        s.units_written = 10;
        s.units_checked = 75;
        s.not_checked.raced = 20;
        s.not_checked.short_read = 5;
        let text = s.render();
        assert!(
            text.contains(
                "  not checked: 20 raced with a write in flight, 5 past a short read, 0 unknown"
            ),
            "{text}"
        );
        assert!(
            text.contains("  judged: 75.0 % of the units read\n"),
            "{text}"
        );
        // all judged: no line of either
        s.not_checked = NotChecked::default();
        assert!(!s.render().contains("judged"));
    }

    fn tracker(writer: u32) -> Tracker {
        Tracker::new(
            geo(),
            Pattern::new(3, U as usize),
            writer,
            &[FileId(0)],
            4,
            false,
        )
    }

    fn req(kind: OpKind, offset: u64, units: u32, slot: u16) -> Req {
        Req {
            kind,
            file: FileId(0),
            offset,
            len: units * U as u32,
            slot,
        }
    }

    fn done(r: Req) -> Completion {
        Completion {
            req: r,
            bytes: u64::from(r.len),
            lat_ns: 1,
            done_ns: 1,
            sub_ns: 0,
            err: 0,
        }
    }

    /// The unit of generation `g` at `offset`, as worker `w` writes it.
    fn unit(w: u32, offset: u64, g: u64) -> Vec<u8> {
        Pattern::new(3, U as usize).expected(&super::super::Stamp {
            file: 0,
            offset,
            generation: g,
            writer: w,
            seed: 3,
        })
    }

    #[test]
    fn the_owner_of_each_slice_and_the_tail() {
        let g = Geometry {
            file_size: 17 * U,
            ..geo()
        };
        assert_eq!(g.owner(0), 0);
        assert_eq!(g.owner(8 * U - 1), 0);
        assert_eq!(g.owner(8 * U), 1);
        assert_eq!(g.owner(16 * U), 1, "the tail is the last worker's");
    }

    #[test]
    fn a_write_then_a_read_checks_its_generation() {
        let mut t = tracker(1);
        let base = 8 * U;
        let w = req(OpKind::Write, base, 2, 0);
        let mut buf = vec![0u8; 2 * U as usize];
        t.fill(&w, &mut buf);
        assert_eq!(&buf[..U as usize], &unit(1, base, 1)[..]);
        t.done(&done(w));
        let r = req(OpKind::Read, base, 2, 1);
        t.fill(&r, &mut []);
        t.check(&done(r), &buf).unwrap();
        assert_eq!((t.counts.units_checked, t.counts.units_written), (2, 2));
        // generation 0 where nothing was written, as the layout made it
        let r = req(OpKind::Read, base + 2 * U, 1, 1);
        t.fill(&r, &mut []);
        t.check(&done(r), &unit(1, base + 2 * U, 0)).unwrap();
        assert_eq!(t.counts.units_checked, 3);
        // an older generation where the newer was written: stale
        t.check(&done(req(OpKind::Read, base, 1, 1)), &unit(1, base, 0))
            .unwrap();
        assert_eq!((t.counts.mismatches, t.counts.by_kind.stale), (1, 1));
        assert_eq!(t.counts.first[0].offset, base);
    }

    /// fio's #792 class: a read issued before a write of its unit and
    /// completed after it, or issued while one is in flight, is not judged.
    #[test]
    fn a_read_that_overlaps_a_write_in_flight_is_not_judged() {
        let mut t = tracker(0);
        let r = req(OpKind::Read, 0, 1, 1);
        t.fill(&r, &mut []);
        let w = req(OpKind::Write, 0, 1, 0);
        let mut buf = vec![0u8; U as usize];
        t.fill(&w, &mut buf);
        // the read completes first, with whatever bytes
        t.check(&done(r), &vec![0xAA; U as usize]).unwrap();
        t.done(&done(w));
        assert_eq!((t.counts.not_checked.raced, t.counts.mismatches), (1, 0));
        // issued while the write was in flight, completed after it: raced
        let w = req(OpKind::Write, 0, 1, 0);
        t.fill(&w, &mut buf);
        let r = req(OpKind::Read, 0, 1, 1);
        t.fill(&r, &mut []);
        t.done(&done(w));
        t.check(&done(r), &vec![0; U as usize]).unwrap();
        assert_eq!((t.counts.not_checked.raced, t.counts.mismatches), (2, 0));
    }

    /// Two writes of a unit in flight at once: afterwards either (or a mix
    /// of their sectors) is accepted, until a write alone settles it.
    #[test]
    fn two_writes_in_flight_accept_either_until_one_settles_it() {
        let mut t = tracker(0);
        let mut b1 = vec![0u8; U as usize];
        let mut b2 = vec![0u8; U as usize];
        let (w1, w2) = (req(OpKind::Write, 0, 1, 0), req(OpKind::Write, 0, 1, 1));
        t.fill(&w1, &mut b1);
        t.fill(&w2, &mut b2);
        // completion order is not issue order
        t.done(&done(w2));
        t.done(&done(w1));
        let r = req(OpKind::Read, 0, 1, 2);
        t.fill(&r, &mut []);
        t.check(&done(r), &b1).unwrap();
        t.check(&done(r), &b2).unwrap();
        let mut mix = b2.clone();
        mix[..2048].copy_from_slice(&b1[..2048]);
        t.check(&done(r), &mix).unwrap();
        assert_eq!(t.counts.units_checked, 2);
        assert_eq!((t.counts.not_checked.raced, t.counts.mismatches), (1, 0));
        // a third write alone: only it is accepted now
        let mut b3 = vec![0u8; U as usize];
        let w3 = req(OpKind::Write, 0, 1, 0);
        t.fill(&w3, &mut b3);
        t.done(&done(w3));
        let r = req(OpKind::Read, 0, 1, 2);
        t.fill(&r, &mut []);
        t.check(&done(r), &b3).unwrap();
        t.check(&done(r), &b2).unwrap();
        assert_eq!(t.counts.by_kind.stale, 1);
    }

    #[test]
    fn a_short_read_checks_the_units_it_holds() {
        let mut t = tracker(0);
        let r = req(OpKind::Read, 0, 3, 1);
        t.fill(&r, &mut []);
        let mut buf = unit(0, 0, 0);
        buf.extend(unit(0, U, 0));
        buf.resize(3 * U as usize, 0);
        let c = Completion {
            bytes: U + 100,
            ..done(r)
        };
        t.check(&c, &buf).unwrap();
        assert_eq!(t.counts.units_checked, 1);
        assert_eq!(t.counts.not_checked.short_read, 2);
    }

    #[test]
    fn fatal_stops_at_the_first_mismatch() {
        let mut t = Tracker::new(geo(), Pattern::new(3, U as usize), 0, &[FileId(0)], 4, true);
        let r = req(OpKind::Read, 0, 1, 1);
        t.fill(&r, &mut []);
        let e = t.check(&done(r), &vec![0; U as usize]).unwrap_err();
        assert!(
            e.to_string().starts_with("verify: lost: file 0 offset 0"),
            "{e}"
        );
        assert!(t.counts.stopped_at_first);
    }

    /// A sync covers the writes that completed before it was issued, with
    /// the generations they left.
    #[test]
    fn a_sync_reports_the_units_it_made_durable() {
        let mut t = tracker(0);
        t.track_durable();
        let mut buf = vec![0u8; 2 * U as usize];
        let w = req(OpKind::Write, U, 2, 0);
        t.fill(&w, &mut buf);
        t.done(&done(w));
        let w = req(OpKind::Write, U, 1, 0);
        t.fill(&w, &mut buf[..U as usize]);
        t.done(&done(w));
        let s = Req {
            kind: OpKind::Fsync,
            file: FileId(0),
            offset: 0,
            len: 0,
            slot: 1,
        };
        t.fill(&s, &mut []);
        assert!(t.take_durable().is_empty(), "not before it completes");
        t.done(&done(s));
        let d = t.take_durable();
        let d = |o| d.iter().find(|x| x.offset == o).copied().unwrap();
        assert_eq!((d(U).lo, d(U).hi), (2, 2));
        assert_eq!((d(2 * U).lo, d(2 * U).hi), (1, 1));
        // nothing written since: the next sync covers nothing
        t.fill(&s, &mut []);
        t.done(&done(s));
        assert!(t.take_durable().is_empty());
    }

    #[test]
    fn sections_merge_and_keep_the_first_twenty() {
        let p = Pattern::new(3, U as usize);
        let m = *p
            .check(
                &vec![0; U as usize],
                &Want {
                    file: 0,
                    offset: 0,
                    generations: 0..=0,
                    writer: 0,
                },
            )
            .unwrap_err();
        let mut a = Section::new(U);
        for _ in 0..15 {
            a.mismatch(m.clone());
        }
        let mut b = a.clone();
        b.units_checked = 7;
        a.merge(&b);
        assert_eq!((a.mismatches, a.by_kind.lost, a.first.len()), (30, 30, 20));
        assert_eq!(a.units_checked, 7);
        let text = a.render();
        assert!(
            text.contains("lost 30") && text.contains("and 10 more"),
            "{text}"
        );
    }
}

#[cfg(test)]
mod schema_tests {
    use super::*;

    /// docs/result-schema.json holds the `verify` section as the types say;
    /// `IOGAUGE_BLESS=1` writes it.
    #[test]
    fn the_result_schema_holds_the_verify_section() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/result-schema.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut settings = schemars::generate::SchemaSettings::draft2020_12();
        settings.definitions_path = "/$defs/verify/$defs".into();
        let mut g = settings.into_generator();
        let section = g.subschema_for::<Section>();
        doc["$defs"]["verify"] = serde_json::json!({
            "description": "The `verify` section of a result (--verify, --verify-only; docs/verify.md); written from the types that hold it.",
            "$defs": g.take_definitions(true),
        });
        doc["$defs"]["result"]["properties"]["verify"] = serde_json::to_value(&section).unwrap();
        if std::env::var_os("IOGAUGE_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
            return;
        }
        let have: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(
            have == doc,
            "docs/result-schema.json does not hold the verify section as the types say (IOGAUGE_BLESS=1 cargo test --release --lib the_result_schema rewrites it)"
        );
    }
}
