//! fio's verify (`verify=`): a job that writes has every block it wrote
//! read back and checked after its write phase, as fio's `do_verify`
//! does, with iogauge's checked units on disk (crate::verify) in place of
//! fio's own verify headers (docs/fio.md, "Verify").
//!
//! - **What is written.** Every write of the job is made of units of the
//!   verify interval, each with iogauge's 64-byte header and CRC-32C,
//!   whatever checksum `verify=` names. A unit's header names its place
//!   in the job's part of the file (the region's file number in the job
//!   and the offset from the region's start) and the pattern seed is the
//!   job's (`randseed` and its name): another job's unit is foreign.
//! - **What is read back.** fio's `io_hist`: every write is logged when it
//!   is issued ([`Hist::log`]); in written order, or, where writes may
//!   overlap (`norandommap`, `rw=rand…:N`, `rw=write:N`), sorted by file
//!   and offset with an older write that a newer one overlaps dropped
//!   whole (fio's rb tree, `log_io_piece`). After each pass of the writes
//!   (a loop; under `time_based`, each `size` bytes), the files are synced,
//!   their pages dropped, and the log is read back in that order and
//!   emptied; the reads count in the job's read figures, the phase in its
//!   read runtime, as fio's `update_runtime(td, …, DDIR_READ)`.
//! - **What is checked.** A [`Tracker`] knows the generation every unit
//!   must hold, so a stale, lost, torn, misdirected or flipped unit is told
//!   apart (crate::verify::Kind).

use super::job::{IoEngine, Job};
use super::plan::{BsDraw, FileEntry, JobPlan, Origin, Plan, dirs_of, place};
use super::run::FioSource;
use crate::engine::{Completion, FileId, Req};
use crate::measure::OpKind;
use crate::measure::clock::now_ns;
use crate::runner::{self, Ctx, Io, Source};
use crate::verify::Pattern;
use crate::verify::track::{Geometry, KEEP_FIRST, Section, Tracker};
use std::collections::{BTreeMap, VecDeque};
use std::os::unix::io::AsRawFd;

/// A job's verify, decided by the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifySpec {
    /// Bytes per checked unit (fio's verify interval).
    pub unit: u64,
    /// Run the verify phase (`do_verify`); without it the writes are made
    /// of checked units only (for a later `verify_only`).
    pub phase: bool,
    /// `verify_only`: write nothing, replay the writes, check them.
    pub only: bool,
    /// `verify_fatal`: stop at the first wrong unit.
    pub fatal: bool,
    /// fio's io_hist as a tree: sorted by file and offset, overlaps
    /// dropped; otherwise a list in written order.
    pub sorted: bool,
    /// The seed of the units' payload.
    pub seed: u64,
    /// `verify=pattern`: the job writes `verify_pattern` (no header) and
    /// checks it byte for byte.
    pub pattern: bool,
}

fn refuse(job: &Job, opt: &str, why: impl std::fmt::Display) -> String {
    format!("{}: {why}", place(job, opt))
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// fio's verify interval (init.c, `fixup_options`): the smallest write
/// block (the smallest read block when that is smaller and given), a
/// factor of the smallest and largest write block, else their gcd.
pub fn interval(asked: u64, min_w: u64, max_w: u64, min_r: Option<u64>) -> u64 {
    let mut vi = asked;
    if max_w != min_w && vi == 0 {
        vi = min_w;
    }
    if vi > min_w {
        vi = min_w;
    } else if let Some(r) = min_r
        && vi > r
    {
        vi = r;
    }
    if vi == 0 || !min_w.is_multiple_of(vi) || !max_w.is_multiple_of(vi) {
        vi = gcd(min_w, max_w);
    }
    vi
}

/// A 64-bit FNV-1a of `s` (stable across runs and builds).
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The verify of job `j` (its block sizes, regions, bytes per pass and
/// seed as planned), or a refusal at the option's line.
pub fn spec(
    j: &Job,
    bs: &[BsDraw; 3],
    regions: &[super::plan::Region],
    io_size: u64,
    seed: u64,
    random_map: bool,
) -> Result<Option<VerifySpec>, String> {
    let vp = j.buffers.verify_pattern.is_some();
    if vp && j.verify != "pattern" {
        return Err(refuse(
            j,
            "verify_pattern",
            if j.verify == "0" || j.verify == "pattern_hdr" {
                "verify_pattern without verify=pattern makes fio write its own verify header in each block (verify=pattern_hdr), which iogauge does not write; give verify=pattern (the pattern alone, checked byte for byte)".to_string()
            } else {
                format!(
                    "verify_pattern with verify={}: iogauge's checked units carry their own bytes, not the pattern; give verify=pattern (the pattern alone, checked byte for byte)",
                    j.verify
                )
            },
        ));
    }
    if j.verify == "0" {
        if j.verify_only {
            return Err(refuse(
                j,
                "verify_only",
                "verify_only needs a verify method: give verify=crc32c (or another)",
            ));
        }
        return Ok(None);
    }
    let d = dirs_of(j.rw.kind, j.rwmixread);
    if !d[1] {
        return Err(refuse(
            j,
            "verify",
            format!(
                "verify={} on a job that does not write is not supported: fio checks its own headers in whatever it reads, iogauge's units carry a generation only their writer knows; give verify= to the job that writes (its verify phase reads every block back), or give it verify_only=1 to check what an earlier run of it wrote",
                j.verify
            ),
        ));
    }
    if d[2] {
        return Err(refuse(j, "rw", "verify with trims is not supported"));
    }
    match j.verify.as_str() {
        "pattern" if !vp => {
            return Err(refuse(
                j,
                "verify",
                "verify=pattern needs verify_pattern= (the bytes to write and check)",
            ));
        }
        "pattern_hdr" => {
            return Err(refuse(
                j,
                "verify",
                "verify=pattern_hdr is not supported: iogauge does not write fio's verify header; give verify=pattern with verify_pattern= (the pattern alone), or a checksum (crc32c, md5, …)",
            ));
        }
        "null" => {
            return Err(refuse(
                j,
                "verify",
                "verify=null (read back without checking) is not supported; give a checksum (crc32c, md5, …)",
            ));
        }
        _ => {}
    }
    if j.ioengine == IoEngine::Null {
        return Err(refuse(
            j,
            "ioengine",
            "verify with ioengine=null: the null engine keeps no data to check",
        ));
    }
    if j.verify_offset != 0 {
        return Err(refuse(
            j,
            "verify_offset",
            "verify_offset other than 0 is not supported: iogauge's unit header is at the unit's start",
        ));
    }
    if j.verify_backlog != 0 || j.verify_backlog_batch != 0 {
        return Err(refuse(
            j,
            if j.verify_backlog != 0 {
                "verify_backlog"
            } else {
                "verify_backlog_batch"
            },
            "verify_backlog is not supported: iogauge verifies after each pass of the writes (fio's default)",
        ));
    }
    if j.verify_only && !j.do_verify {
        return Err(refuse(
            j,
            "do_verify",
            "verify_only with do_verify=0 checks nothing",
        ));
    }
    if j.verify_only && !j.randrepeat {
        return Err(refuse(
            j,
            "randrepeat",
            "verify_only replays the job's writes: it needs randrepeat=1 (the same offsets as the run that wrote)",
        ));
    }
    let bs_opt = if j.bssplit.is_some() {
        "bssplit"
    } else if j.bsrange.is_some() {
        "bsrange"
    } else {
        "bs"
    };
    let (min_w, max_w) = (bs[1].min(), bs[1].max());
    let unit = interval(j.verify_interval, min_w, max_w, d[0].then(|| bs[0].min()));
    let vi_opt = if j.verify_interval != 0 {
        "verify_interval"
    } else {
        bs_opt
    };
    // the pattern is checked byte for byte: any unit will do
    let checked = if vp {
        Ok(0)
    } else {
        crate::verify::check_unit(unit)
    };
    checked.map_err(|e| {
        refuse(
            j,
            vi_opt,
            format!("{e} (fio's verify interval here: {unit} B; give verify_interval=)"),
        )
    })?;
    let sizes: Vec<u64> = match &bs[1] {
        BsDraw::Fixed(b) => vec![*b],
        BsDraw::Split(v) => v.iter().map(|s| s.0).collect(),
        BsDraw::Range(lo, hi) if lo.is_power_of_two() => vec![*lo, *hi],
        BsDraw::Range(..) => {
            return Err(refuse(
                j,
                "bsrange",
                "verify with a bsrange whose smallest block is not a power of two is not supported (its sizes are not whole units)",
            ));
        }
    };
    let random = j.rw.kind.is_random();
    // the random map's block: the smallest request of any direction
    let map_unit = (0..3)
        .filter(|&x| d[x])
        .map(|x| bs[x].min())
        .min()
        .unwrap_or(min_w);
    if let Some(b) = sizes.iter().find(|b| !b.is_multiple_of(unit)) {
        return Err(refuse(
            j,
            bs_opt,
            format!("a write of {b} B is not a whole number of {unit}-byte verify units"),
        ));
    }
    if random && random_map && !map_unit.is_multiple_of(unit) {
        return Err(refuse(
            j,
            bs_opt,
            format!(
                "random offsets fall on {map_unit}-byte blocks, not on the {unit}-byte verify units"
            ),
        ));
    }
    if let Some(r) = regions.iter().find(|r| !r.len.is_multiple_of(unit)) {
        return Err(refuse(
            j,
            if j.filesize.is_some() {
                "filesize"
            } else {
                "size"
            },
            format!(
                "the job's part of a file is {} B, not a whole number of {unit}-byte verify units",
                r.len
            ),
        ));
    }
    if !io_size.is_multiple_of(unit) {
        return Err(refuse(
            j,
            "size",
            format!("size={io_size} is not a whole number of {unit}-byte verify units"),
        ));
    }
    if !j.rw.seq_add.unsigned_abs().is_multiple_of(unit) {
        return Err(refuse(
            j,
            "rw",
            format!(
                "a skip of {} B is not a whole number of {unit}-byte verify units",
                j.rw.seq_add
            ),
        ));
    }
    // fio_offset_overlap_risk(): writes may land on earlier ones (iogauge
    // draws skewed distributions without the map: the same)
    let sorted = (random && (j.norandommap || !random_map)) || j.rw.seq_nr > 1 || j.rw.seq_add != 0;
    Ok(Some(VerifySpec {
        unit,
        phase: j.do_verify,
        only: j.verify_only,
        fatal: j.verify_fatal,
        sorted,
        seed: seed ^ fnv(&j.name) ^ (u64::from(j.clone) << 32) ^ 0x6669_6f76,
        pattern: vp,
    }))
}

/// Refuse a verified job that another job of its stage writes beside: it
/// would find the other's blocks (fio warns: "multiple writers may
/// overwrite blocks that belong to other jobs").
pub fn check_stages(stages: &[Vec<JobPlan>], files: &[FileEntry]) -> Result<(), String> {
    for st in stages {
        for a in st.iter().filter(|p| p.verify.is_some()) {
            for b in st.iter().filter(|b| b.index != a.index) {
                let bd = b.dirs();
                if !(bd[1] || bd[2]) || b.verify.is_some_and(|v| v.only) {
                    continue;
                }
                for ra in &a.regions {
                    for rb in &b.regions {
                        if ra.file == rb.file
                            && ra.start < rb.start + rb.len
                            && rb.start < ra.start + ra.len
                        {
                            let opt = if a.job.name == b.job.name {
                                "numjobs"
                            } else {
                                "filename"
                            };
                            return Err(refuse(
                                &a.job,
                                opt,
                                format!(
                                    "verify: {} also writes in {} where job {} checks what it wrote (fio warns: multiple writers may overwrite blocks that belong to other jobs); give each job its own part (offset_increment=, offset=) or a stonewall",
                                    if b.job.clone == 0 {
                                        format!("job {}", b.job.name)
                                    } else {
                                        format!("clone {} of job {}", b.job.clone, b.job.name)
                                    },
                                    crate::error::shown_path(&files[ra.file].path),
                                    a.job.name,
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// One logged write: the job's region (file) number, the offset in the
/// region, the length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub file: u32,
    pub off: u64,
    pub len: u64,
}

/// fio's io_hist: the writes to read back.
#[derive(Debug, Default)]
pub struct Hist {
    sorted: bool,
    list: VecDeque<Piece>,
    /// (file, offset) → length; no two overlap.
    tree: BTreeMap<(u32, u64), u64>,
}

impl Hist {
    pub fn new(sorted: bool) -> Hist {
        Hist {
            sorted,
            ..Default::default()
        }
    }

    /// Log a write as it is issued; sorted, any logged write it overlaps
    /// is dropped whole (fio's `log_io_piece`).
    pub fn log(&mut self, p: Piece) {
        if !self.sorted {
            self.list.push_back(p);
            return;
        }
        let end = p.off + p.len;
        // the one before it may reach into it
        if let Some((&(f, o), &l)) = self.tree.range(..(p.file, p.off)).next_back()
            && f == p.file
            && o + l > p.off
        {
            self.tree.remove(&(f, o));
        }
        let after: Vec<(u32, u64)> = self
            .tree
            .range((p.file, p.off)..(p.file, end))
            .map(|(k, _)| *k)
            .collect();
        for k in after {
            self.tree.remove(&k);
        }
        self.tree.insert((p.file, p.off), p.len);
    }

    /// The next write to read back.
    pub fn pop(&mut self) -> Option<Piece> {
        if self.sorted {
            self.tree
                .pop_first()
                .map(|((file, off), len)| Piece { file, off, len })
        } else {
            self.list.pop_front()
        }
    }

    pub fn clear(&mut self) {
        self.list.clear();
        self.tree.clear();
    }

    pub fn len(&self) -> usize {
        self.list.len() + self.tree.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a job's verify hands back.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct JobVerify {
    pub section: Section,
    /// One line per mismatch kept (fio's `verify: …` lines).
    pub lines: Vec<String>,
}

/// One job's verify state: its tracker, log and files.
pub struct Checker {
    pub spec: VerifySpec,
    tracker: Tracker,
    hist: Hist,
    /// Per region: its file's id, start, path and number in the plan.
    ids: Vec<FileId>,
    starts: Vec<u64>,
    paths: Vec<String>,
    plan_file: Vec<u64>,
    /// A region's number by its id's number.
    region_of: Vec<u32>,
    /// Descriptors to drop the regions' pages by (buffered only).
    cache: Vec<Option<std::fs::File>>,
    lines: Vec<String>,
    stop: bool,
    /// Time in write and verify phases (clock ns, after the ramp).
    pub write_ns: u64,
    pub verify_ns: u64,
    /// `verify=pattern`: what is written and checked in place of units.
    vpat: Option<super::buffers::Pattern>,
}

impl Checker {
    pub fn new(p: &JobPlan, plan: &Plan, ids: &[FileId], spec: VerifySpec) -> Checker {
        let share = p.regions.iter().map(|r| r.len).max().unwrap_or(spec.unit);
        let geo = Geometry {
            unit: spec.unit,
            files: p.regions.len() as u32,
            file_size: share,
            workers: 1,
            share,
        };
        let pattern = Pattern::new(spec.seed, spec.unit as usize);
        let slots = usize::from(p.engine.depth.max(1));
        let tracker = Tracker::new(geo, pattern, 0, ids, slots, false);
        let mut region_of = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let n = id.0 as usize;
            if region_of.len() <= n {
                region_of.resize(n + 1, u32::MAX);
            }
            region_of[n] = i as u32;
        }
        let cache = p
            .regions
            .iter()
            .map(|r| {
                let f = &plan.files[r.file];
                if p.engine.direct || matches!(f.origin, Origin::Device(_)) {
                    None
                } else {
                    std::fs::File::open(&f.path).ok()
                }
            })
            .collect();
        Checker {
            spec,
            tracker,
            hist: Hist::new(spec.sorted),
            ids: ids.to_vec(),
            starts: p.regions.iter().map(|r| r.start).collect(),
            paths: p
                .regions
                .iter()
                .map(|r| crate::error::shown_path(&plan.files[r.file].path))
                .collect(),
            plan_file: p.regions.iter().map(|r| r.file as u64).collect(),
            region_of,
            cache,
            lines: Vec::new(),
            stop: false,
            write_ns: 0,
            verify_ns: 0,
            vpat: if spec.pattern {
                p.job.buffers.verify_pattern.clone()
            } else {
                None
            },
        }
    }

    #[inline]
    fn region(&self, id: FileId) -> usize {
        self.region_of[id.0 as usize] as usize
    }

    /// `req` with its offset in its region (the tracker's).
    #[inline]
    fn rel(&self, req: &Req) -> Req {
        Req {
            offset: req.offset - self.starts[self.region(req.file)],
            ..*req
        }
    }

    /// A write is about to be issued: its units, and its log entry.
    #[inline]
    fn fill_write(&mut self, req: &Req, buf: &mut [u8]) {
        let rel = self.rel(req);
        match &self.vpat {
            // fio's fill_verify_pattern: %o is the write's file offset
            Some(p) => p.fill(&mut buf[..req.len as usize], req.offset),
            None => self.tracker.fill(&rel, buf),
        }
        if self.spec.phase {
            self.hist.log(Piece {
                file: self.region(req.file) as u32,
                off: rel.offset,
                len: u64::from(req.len),
            });
        }
    }

    /// Check a verify read; a wrong unit gets its line (and stops the job
    /// under `verify_fatal`).
    fn check(&mut self, c: &Completion, buf: &[u8]) -> anyhow::Result<()> {
        if self.vpat.is_some() {
            self.check_pattern(c, buf);
            return Ok(());
        }
        let before = self.tracker.counts.mismatches;
        let kept = self.tracker.counts.first.len();
        let rel = Completion {
            req: self.rel(&c.req),
            ..*c
        };
        self.tracker.check(&rel, buf)?;
        if self.tracker.counts.mismatches == before {
            return Ok(());
        }
        let region = self.region(c.req.file);
        let n = self.starts.len() as u64;
        for m in &mut self.tracker.counts.first[kept..] {
            // the unit's place in the plan's files, as the report names it
            m.file = self.plan_file[region];
            m.offset += self.starts[region];
            if let Some(f) = m.found.as_mut()
                && f.seed == self.spec.seed
                && f.file < n
            {
                f.offset += self.starts[f.file as usize];
                f.file = self.plan_file[f.file as usize];
            }
            if self.lines.len() < KEEP_FIRST {
                // the mismatch's own line less its place, named here
                let whole = m.to_string();
                let head = format!("{}: file {} offset {}: ", m.kind, m.file, m.offset);
                let what = whole.strip_prefix(&head).unwrap_or(&whole);
                self.lines.push(format!(
                    "verify: {} at file {} offset {}, length {} (requested block: offset={}, length={}): {what}",
                    m.kind, self.paths[region], m.offset, self.spec.unit, c.req.offset, c.req.len
                ));
            }
        }
        if self.spec.fatal {
            self.stop = true;
            self.tracker.counts.stopped_at_first = true;
        }
        Ok(())
    }

    /// A write completed: its units count as written.
    fn written(&mut self, c: &Completion) {
        if self.vpat.is_some() {
            self.tracker.counts.units_written += u64::from(c.req.len) / self.spec.unit;
            return;
        }
        let rel = Completion {
            req: self.rel(&c.req),
            ..*c
        };
        self.tracker.done(&rel);
    }

    /// A verify read (or the buffer before it, `poison`) against the
    /// pattern: each unit of the read compared byte for byte with what the
    /// write at that offset wrote (fio's `verify_io_u_pattern`).
    fn check_pattern(&mut self, c: &Completion, buf: &[u8]) {
        let Some(p) = &self.vpat else { return };
        let unit = self.spec.unit as usize;
        let len = c.req.len as usize;
        let mut want = vec![0u8; len];
        p.fill(&mut want, c.req.offset);
        let got = (c.bytes as usize).min(len) / unit;
        let counts = &mut self.tracker.counts;
        counts.not_checked.short_read += ((len / unit) - got) as u64;
        let region = self.region_of[c.req.file.0 as usize] as usize;
        for (i, (u, w)) in buf[..got * unit]
            .chunks_exact(unit)
            .zip(want.chunks_exact(unit))
            .enumerate()
        {
            counts.units_checked += 1;
            if u == w {
                continue;
            }
            let bad: Vec<usize> = (0..unit).filter(|&k| u[k] != w[k]).collect();
            let bits: u32 = bad.iter().map(|&k| (u[k] ^ w[k]).count_ones()).sum();
            let kind = if u.iter().all(|&x| x == 0) {
                crate::verify::Kind::Lost
            } else {
                crate::verify::Kind::BitFlip
            };
            let offset = c.req.offset + (i * unit) as u64;
            if self.lines.len() < KEEP_FIRST {
                self.lines.push(format!(
                    "verify: {kind} at file {} offset {offset}, length {unit} (requested block: offset={}, length={}): expected verify_pattern {}, found {} byte(s) that differ ({bits} bit(s)), the first at byte {}",
                    self.paths[region],
                    c.req.offset,
                    c.req.len,
                    p.text,
                    bad.len(),
                    bad[0]
                ));
            }
            // counted by kind; the line above says where and what (the
            // units' generations of a Mismatch do not apply to a pattern)
            counts.mismatches += 1;
            match kind {
                crate::verify::Kind::Lost => counts.by_kind.lost += 1,
                _ => counts.by_kind.bit_flip += 1,
            }
            if self.spec.fatal {
                self.stop = true;
                counts.stopped_at_first = true;
                return;
            }
        }
    }

    /// The dry run of `verify_only`: the pass's writes drawn, tracked and
    /// logged, nothing issued.
    fn dry_run(&mut self, src: &mut FioSource, scratch: &mut [u8]) -> u64 {
        let written = self.tracker.counts.units_written;
        let mut bytes = 0;
        while let Some(req) = src.next() {
            let _ = src.owed();
            if req.kind != OpKind::Write {
                continue;
            }
            self.fill_write(&req, scratch);
            self.written(&Completion::sync(req, u64::from(req.len), 0, 0));
            bytes += u64::from(req.len);
        }
        self.tracker.counts.units_written = written;
        bytes
    }

    /// Sync the files and drop their pages, so the reads come from the
    /// device (fio's do_verify: `fio_io_sync`, `file_invalidate_cache`).
    fn settle(&mut self, io: &mut Io) -> anyhow::Result<()> {
        for (i, &id) in self.ids.iter().enumerate() {
            if !self.spec.only {
                io.exec_named(Req::fsync(id))?;
            }
            if let Some(f) = &self.cache[i] {
                // SAFETY: advice on an open descriptor; a failure leaves
                // the pages cached, nothing else.
                unsafe {
                    libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
                }
            }
        }
        Ok(())
    }

    /// What the job's verify found.
    pub fn report(&self) -> JobVerify {
        JobVerify {
            section: self.tracker.counts.clone(),
            lines: self.lines.clone(),
        }
    }
}

/// The write phase's source: the job's requests, each write made of
/// checked units and logged.
struct Writes<'a> {
    src: &'a mut FioSource,
    c: &'a mut Checker,
    bytes: u64,
}

impl Source for Writes<'_> {
    const FILLS: bool = true;

    #[inline]
    fn next(&mut self) -> Option<Req> {
        self.src.next()
    }

    #[inline]
    fn owed(&mut self) -> Option<Req> {
        self.src.owed()
    }

    #[inline]
    fn fill(&mut self, req: &Req, buf: &mut [u8]) {
        if req.kind == OpKind::Write {
            self.c.fill_write(req, buf);
        }
    }

    #[inline]
    fn done(&mut self, c: &Completion) -> anyhow::Result<()> {
        if c.req.kind == OpKind::Write {
            self.c.written(c);
            self.bytes += c.bytes;
        }
        self.src.done(c)
    }
}

/// The verify phase's source: the logged writes read back and checked.
struct Reads<'a> {
    c: &'a mut Checker,
    deadline: Option<u64>,
}

impl Source for Reads<'_> {
    const FILLS: bool = true;
    const CHECKS: bool = true;

    #[inline]
    fn next(&mut self) -> Option<Req> {
        if self.c.stop || self.deadline.is_some_and(|d| now_ns() >= d) {
            return None;
        }
        let p = self.c.hist.pop()?;
        Some(Req {
            kind: OpKind::Read,
            file: self.c.ids[p.file as usize],
            offset: self.c.starts[p.file as usize] + p.off,
            len: p.len as u32,
            slot: 0,
        })
    }

    #[inline]
    fn fill(&mut self, req: &Req, buf: &mut [u8]) {
        match &self.c.vpat {
            // what a read that brings nothing leaves: never the pattern
            Some(p) => {
                let b = &mut buf[..req.len as usize];
                p.fill(b, req.offset);
                b.iter_mut().for_each(|x| *x = !*x);
            }
            None => {
                let rel = self.c.rel(req);
                self.c.tracker.fill(&rel, buf);
            }
        }
    }

    #[inline]
    fn check(&mut self, c: &Completion, buf: &[u8]) -> anyhow::Result<()> {
        self.c.check(c, buf)
    }
}

/// Run a verified job: pass after pass, its writes, then (with
/// `do_verify`) the verify phase, until its bytes, its runtime or the
/// stage's end. `t0` is the end of the ramp.
pub fn run_job(
    io: &mut Io,
    ctx: &mut Ctx,
    src: &mut FioSource,
    c: &mut Checker,
    t0: u64,
    max_len: usize,
) -> anyhow::Result<()> {
    let since = |from: u64| now_ns().saturating_sub(from.max(t0));
    if !c.spec.phase {
        // the writes are made of units for a later verify_only; no phase
        let w0 = now_ns();
        let r = io.drive(
            ctx,
            &mut Writes {
                src,
                c: &mut *c,
                bytes: 0,
            },
        );
        c.write_ns += since(w0);
        return r;
    }
    src.stop_at_pass_end = true;
    let mut scratch = if c.spec.only {
        vec![0u8; max_len]
    } else {
        Vec::new()
    };
    let mut first = true;
    loop {
        if !first {
            src.begin_pass();
            c.hist.clear();
        }
        first = false;
        let w0 = now_ns();
        let wrote = if c.spec.only {
            c.dry_run(src, &mut scratch)
        } else {
            let mut w = Writes {
                src: &mut *src,
                c: &mut *c,
                bytes: 0,
            };
            io.drive(ctx, &mut w)?;
            let b = w.bytes;
            c.write_ns += since(w0);
            b
        };
        // a pass cut short by the runtime is not verified (fio: the job
        // is terminated)
        if ctx.stopped() || src.past_deadline() || runner::signals::interrupted() || wrote == 0 {
            return Ok(());
        }
        let v0 = now_ns();
        c.settle(io)?;
        let deadline = src.deadline;
        io.drive(
            ctx,
            &mut Reads {
                c: &mut *c,
                deadline,
            },
        )?;
        c.verify_ns += since(v0);
        if c.stop || ctx.stopped() || src.past_deadline() || src.budget_done() {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_is_fios() {
        // the write block by default
        assert_eq!(interval(0, 4096, 4096, None), 4096);
        // a smaller one asked for is kept when it divides the blocks
        assert_eq!(interval(512, 4096, 4096, None), 512);
        // never more than the smallest write
        assert_eq!(interval(8192, 4096, 4096, None), 4096);
        // nor than the smallest read, when the job reads
        assert_eq!(interval(0, 4096, 65536, Some(1024)), 1024);
        assert_eq!(interval(4096, 8192, 8192, Some(2048)), 2048);
        // variable writes: the smallest, or the gcd when it does not divide
        assert_eq!(interval(0, 4096, 65536, None), 4096);
        assert_eq!(interval(3072, 4096, 8192, None), 4096);
        assert_eq!(interval(0, 8192, 12288, None), 8192 / 2);
    }

    #[test]
    fn the_list_keeps_written_order() {
        let mut h = Hist::new(false);
        for (off, len) in [(8192, 4096), (0, 4096), (8192, 4096)] {
            h.log(Piece { file: 0, off, len });
        }
        let offs: Vec<u64> = std::iter::from_fn(|| h.pop()).map(|p| p.off).collect();
        assert_eq!(offs, vec![8192, 0, 8192]);
    }

    /// The tree is sorted by file and offset; a write that overlaps a
    /// logged one drops it whole (fio's log_io_piece).
    #[test]
    fn the_tree_sorts_and_drops_what_is_overwritten() {
        let mut h = Hist::new(true);
        let p = |file, off, len| Piece { file, off, len };
        h.log(p(1, 0, 4096));
        h.log(p(0, 16384, 8192)); // 16k..24k
        h.log(p(0, 0, 4096));
        h.log(p(0, 20480, 4096)); // overlaps 16k..24k: that one goes
        h.log(p(0, 4096, 12288)); // 4k..16k: touches nothing
        h.log(p(0, 0, 4096)); // the same block again
        assert_eq!(h.len(), 4);
        let got: Vec<Piece> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(
            got,
            vec![
                p(0, 0, 4096),
                p(0, 4096, 12288),
                p(0, 20480, 4096),
                p(1, 0, 4096)
            ]
        );
        // a long write drops every piece under it, and the one reaching in
        let mut h = Hist::new(true);
        for off in [0u64, 4096, 8192, 12288] {
            h.log(p(0, off, 4096));
        }
        h.log(p(0, 2048, 8192));
        let got: Vec<Piece> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(got, vec![p(0, 2048, 8192), p(0, 12288, 4096)]);
    }
}
