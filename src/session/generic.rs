//! The generic worker: drive a generator through an engine. Lay out and
//! prefill the files (untimed), then one [`GenericWorker`] per process
//! issues the request stream of Chen & Patterson's workload through its own
//! engine. Used by `iogauge run`, the survey and the self-scaling benchmark.
//! `iogauge run --file` works on a file the user names instead
//! ([`UserFile`]): nothing is laid out, and the file is never truncated,
//! renamed or removed.

use crate::engine::{Access, Choice, EngineSpec, FileId, FsyncPolicy, OpenHow, QueueOpts, Req};
use crate::error::{UsageError, shown_path};
use crate::measure::{LatencySummary, OpKind, WorkerStats};
use crate::report::RunResult;
use crate::runner::pace::Pace;
use crate::runner::{self, Ctx, Io, Progress, Source, StopRule, Worker};
use crate::session::Setup;
use crate::session::verified::{CheckedSource, journal_sync};
use crate::verify::Pattern;
use crate::verify::crash::{Head, Journal};
use crate::verify::track::{Geometry, Manifest, Section, Tracker, WorkerReport};
use crate::workload::generic::{Generator, GenericSpec};
use anyhow::{Context, Result};
use serde::Serialize;
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// How the I/O is done, beside what it is (the spec).
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct IoSetup {
    pub engine: Choice,
    pub direct: bool,
    /// Requests each worker keeps in flight.
    #[serde(default = "one_in_flight", skip_serializing_if = "is_one")]
    pub iodepth: u16,
    /// How a queued engine submits and reaps (its flags).
    #[serde(default, skip_serializing_if = "QueueOpts::is_default")]
    pub queue: QueueOpts,
    pub fsync: FsyncPolicy,
    pub fdatasync: bool,
    /// Drop the files from the page cache after prefill (posix_fadvise
    /// DONTNEED), so the run starts cold.
    pub cold: bool,
    /// Open the data files with O_NOATIME.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub noatime: bool,
}

/// The depth a serialised iodepth takes when absent (and is left out at).
pub(crate) fn one_in_flight() -> u16 {
    1
}

pub(crate) fn is_one(d: &u16) -> bool {
    *d == 1
}

impl IoSetup {
    fn fake(&self) -> bool {
        self.engine.is_fake()
    }

    /// The engine every worker is made with.
    pub fn spec(&self) -> EngineSpec {
        EngineSpec::new(self.engine)
            .direct(self.direct)
            .depth(self.iodepth)
            .queue(self.queue)
            .datasync(self.fdatasync)
            .noatime(self.noatime)
    }
}

/// Largest request the workload draws: sizes are clipped at
/// 16·max(1, cv²)·mean (the gamma tail beyond is below 1e-6 for cv ≤ 2),
/// and at the file size.
pub fn max_request(spec: &GenericSpec) -> u64 {
    let cap = spec.size_mean as f64 * 16.0 * spec.size_cv.powi(2).max(1.0);
    let cap = (cap as u64).max(spec.align);
    let cap = cap - cap % spec.align;
    cap.min(spec.file_size())
}

impl GenericSpec {
    /// The spec with request sizes clipped as [`max_request`] says.
    fn clipped(&self) -> Result<crate::workload::sizes::SizeDist, String> {
        crate::workload::sizes::SizeDist::new(
            self.size_mean,
            self.size_cv,
            self.align,
            max_request(self),
        )
    }
}

/// A file the user named (`iogauge run --file`): the run reads it where it
/// is, as fio reads its `--filename`, so that both tools can read the same
/// bytes. It is never laid out, truncated, renamed or removed, and written
/// only when the user allowed it.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct UserFile {
    /// Its canonical path.
    pub path: PathBuf,
    /// Its size when the run checked it: every request stays below it.
    pub bytes: u64,
    /// The user allowed writes (`--allow-write`); without, the workers
    /// open it read-only.
    pub writes: bool,
    /// It is a raw block device (`--device`), as checked: `path` is the
    /// device and `bytes` its size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<crate::env::device::BlockDevice>,
}

impl UserFile {
    /// Check the file `path` names as a run would use it: an existing,
    /// non-empty regular file on a file system that holds data, which opens
    /// read-only (read-write with `writes`) and, with `direct`, with
    /// O_DIRECT. Each refusal is one line naming the file and the cause.
    pub fn check(path: &Path, writes: bool, direct: bool) -> Result<UserFile> {
        let refuse = |why: String| -> anyhow::Error {
            UsageError::new(format!("--file {}: {why}", shown_path(path))).into()
        };
        let md = std::fs::metadata(path).map_err(|e| {
            refuse(match e.kind() {
                std::io::ErrorKind::NotFound => "does not exist".to_string(),
                _ => crate::runner::workdir::io_reason(&e),
            })
        })?;
        let kind = md.file_type();
        if kind.is_dir() {
            return Err(refuse(
                "is a directory; name a regular file (or drop --file, and the run lays out its own files in --dir)".into(),
            ));
        }
        if kind.is_block_device() {
            return Err(refuse(
                "is a block device; run takes a regular file on a file system, not a device".into(),
            ));
        }
        if !kind.is_file() {
            return Err(refuse("is not a regular file".into()));
        }
        if let Some(t) = crate::runner::workdir::pseudo_fs(path) {
            return Err(refuse(format!(
                "is on {t}, a pseudo file system that holds no data; name a file on a real file system"
            )));
        }
        if md.len() == 0 {
            return Err(refuse(
                "is empty; name a file that holds the bytes to read".into(),
            ));
        }
        let mut how = std::fs::OpenOptions::new();
        how.read(true).write(writes);
        if direct {
            how.custom_flags(libc::O_DIRECT);
        }
        if let Err(e) = how.open(path) {
            return Err(refuse(match e.raw_os_error() {
                Some(libc::EINVAL) if direct => {
                    "its file system refuses O_DIRECT; drop --direct".to_string()
                }
                _ => format!(
                    "cannot be opened for {} ({})",
                    if writes {
                        "reading and writing"
                    } else {
                        "reading"
                    },
                    crate::runner::workdir::io_reason(&e)
                ),
            }));
        }
        let path = std::fs::canonicalize(path)
            .map_err(|e| refuse(crate::runner::workdir::io_reason(&e)))?;
        Ok(UserFile {
            path,
            bytes: md.len(),
            writes,
            device: None,
        })
    }

    /// The block device `dev` ([`crate::env::device::check`] passed it)
    /// as the run's one file.
    pub fn on_device(dev: crate::env::device::BlockDevice) -> UserFile {
        UserFile {
            path: dev.path.clone(),
            bytes: dev.bytes,
            writes: dev.writes,
            device: Some(dev),
        }
    }

    /// The flag that named it, for messages: `--file` or `--device`.
    pub fn flag(&self) -> &'static str {
        if self.device.is_some() {
            "--device"
        } else {
            "--file"
        }
    }
}

/// Where the generic workload does its I/O.
#[derive(Clone, Debug)]
pub enum Target {
    /// Files laid out in a new work directory under this parent, removed
    /// at the end.
    Layout(PathBuf),
    /// The user's file, used as it is.
    File(UserFile),
    /// One file shared by the ranks of an MPI job (`--shared-file`), in
    /// rank 0's work directory under this parent (see [`layout_shared`]).
    Shared(PathBuf),
}

impl Target {
    /// The user's file, if the run is on one.
    pub fn file(&self) -> Option<&UserFile> {
        match self {
            Target::File(f) => Some(f),
            Target::Layout(_) | Target::Shared(_) => None,
        }
    }
}

/// Create and fill the files of `spec` in `dir` (untimed). Returns the paths,
/// or `None` when Ctrl-C arrived meanwhile.
pub fn layout(spec: &GenericSpec, setup: &IoSetup, dir: &Path) -> Result<Option<Vec<PathBuf>>> {
    let paths: Vec<PathBuf> = (0..spec.files)
        .map(|i| dir.join(format!("data.{i}")))
        .collect();
    if setup.fake() {
        return Ok(Some(paths));
    }
    const CHUNK: usize = 1 << 20;
    let mut buf = vec![0u8; CHUNK];
    crate::data::fill_random(&mut buf, spec.seed);
    let size = spec.file_size();
    let mut chunk_no = 0u64;
    for p in &paths {
        let Some(f) = fill_file(p, size, &mut buf, &mut chunk_no)? else {
            return Ok(None);
        };
        if setup.cold {
            // SAFETY: a valid open descriptor; advice has no memory effects.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
    }
    Ok(Some(paths))
}

/// The shared file of `--shared-file`, IOR's segmented N-to-1 layout: rank
/// 0 creates `shared` in its work directory, R·U bytes long (R ranks, U the
/// unique bytes), and hands its path to the others; rank r fills its own
/// region [r·U, (r+1)·U), and its requests stay in it ([`region`]). The
/// file goes with rank 0's work directory, after its phase, which ends only
/// once every rank's workers have returned and closed it. `None` when
/// Ctrl-C arrived meanwhile.
pub fn layout_shared(spec: &GenericSpec, setup: &IoSetup, dir: &Path) -> Result<Option<PathBuf>> {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::os::unix::fs::FileExt;
    let ranks = crate::cluster::ranks() as u64;
    let start = region(spec);
    let size = spec.file_size();
    let mut made = Vec::new();
    if crate::cluster::is_root() {
        let p = dir.join("shared");
        if !setup.fake() {
            let f = std::fs::File::create(&p)
                .with_context(|| format!("cannot create {}", p.display()))?;
            f.set_len(size * ranks)
                .with_context(|| format!("cannot size {}", p.display()))?;
        }
        made = p.into_os_string().into_vec();
    }
    let path = PathBuf::from(std::ffi::OsStr::from_bytes(&crate::cluster::share(made)));
    if setup.fake() {
        return Ok(Some(path));
    }
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open the shared file {}", path.display()))?;
    const CHUNK: usize = 1 << 20;
    let mut buf = vec![0u8; CHUNK];
    crate::data::fill_random(&mut buf, spec.seed);
    // chunk numbers go on from the regions before, so no two blocks are alike
    let mut chunk_no = start / CHUNK as u64;
    let mut at = 0;
    while at < size {
        if runner::signals::interrupted() {
            return Ok(None);
        }
        stamp_chunk(&mut buf, chunk_no);
        chunk_no += 1;
        let n = (size - at).min(CHUNK as u64) as usize;
        f.write_all_at(&buf[..n], start + at)
            .with_context(|| format!("cannot write {}", path.display()))?;
        at += n as u64;
    }
    f.sync_all()
        .with_context(|| format!("cannot fsync {}", path.display()))?;
    if setup.cold {
        // SAFETY: a valid open descriptor; advice has no memory effects.
        unsafe {
            libc::posix_fadvise(
                f.as_raw_fd(),
                start as i64,
                size as i64,
                libc::POSIX_FADV_DONTNEED,
            )
        };
    }
    Ok(Some(path))
}

/// Where this rank's region of the shared file begins: rank r's is r·U.
pub fn region(spec: &GenericSpec) -> u64 {
    crate::cluster::rank() as u64 * spec.file_size()
}

/// Stamp each 4 KiB block of `buf` with `chunk_no`, so that no two blocks
/// of a layout are alike.
pub fn stamp_chunk(buf: &mut [u8], chunk_no: u64) {
    for blk in buf.chunks_mut(4096) {
        blk[8..16].copy_from_slice(&chunk_no.to_le_bytes());
    }
}

/// Write a new file of `size` bytes from `buf` (incompressible data), each
/// 4 KiB block stamped with the number of its `buf`-sized chunk, counted on
/// in `chunk_no` across files so that no two blocks are alike; then sync
/// it (untimed). `None` when Ctrl-C arrived meanwhile.
pub fn fill_file(
    path: &Path,
    size: u64,
    buf: &mut [u8],
    chunk_no: &mut u64,
) -> Result<Option<std::fs::File>> {
    let mut f =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut left = size;
    while left > 0 {
        if runner::signals::interrupted() {
            return Ok(None);
        }
        stamp_chunk(buf, *chunk_no);
        *chunk_no += 1;
        let n = left.min(buf.len() as u64) as usize;
        f.write_all(&buf[..n])
            .with_context(|| format!("cannot write {}", path.display()))?;
        left -= n as u64;
    }
    f.sync_all()
        .with_context(|| format!("cannot fsync {}", path.display()))?;
    Ok(Some(f))
}

/// What every worker of the generic workload is built from: the
/// workload, the I/O set-up and the laid-out files.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct GenericPlan {
    pub spec: GenericSpec,
    pub setup: IoSetup,
    pub paths: Vec<PathBuf>,
    /// How the workers open the files: the user's file without
    /// `--allow-write` is opened read-only.
    pub read_only: bool,
    /// Where the workers' region of the file begins (this rank's, in a
    /// shared file; 0 otherwise): every offset drawn is moved by it.
    #[serde(default)]
    pub base: u64,
    /// `--verify`: every write made of checked units, every read checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyPlan>,
}

/// What `--verify` asks of a run of the generic workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct VerifyPlan {
    /// Bytes per checked unit (`--verify-interval`).
    pub unit: u64,
    /// Stop at the first mismatch (`--verify-fatal`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fatal: bool,
    /// Keep the files and a manifest of them (`--keep`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep: bool,
    /// `--verify-crash`: a journal of what every sync made durable, and a
    /// head that keeps a killed run's directory for `--verify-only`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub crash: bool,
}

impl VerifyPlan {
    /// How the files are shared out: each of the P workers owns the same
    /// slice of every file, `share` bytes (a whole number of --align
    /// blocks), and the spec one worker's generator draws from (its slice
    /// of each file as if it were the whole file).
    pub fn slice(&self, spec: &GenericSpec) -> Result<(GenericSpec, Geometry), String> {
        if spec.trim_frac > 0.0 {
            // the tracker would expect a trimmed unit's last pattern back
            return Err(format!(
                "--verify with --trim-frac {}: the checker does not know that trimmed blocks read as zeros; verify without trims",
                spec.trim_frac
            ));
        }
        let p = spec.processes as u64;
        let per = spec.file_size() / p;
        let share = per - per % spec.align;
        if share < spec.align || share < self.unit {
            return Err(format!(
                "--verify: each of the {p} workers owns its own 1/{p} of every file, and {} per file leaves less than one {}-byte block each; give more --unique-bytes or fewer --processes",
                crate::units::fmt_bytes(spec.file_size()),
                spec.align.max(self.unit)
            ));
        }
        let slice = GenericSpec {
            unique_bytes: share * u64::from(spec.files),
            ..spec.clone()
        };
        let geo = Geometry {
            unit: self.unit,
            files: spec.files,
            file_size: spec.file_size(),
            workers: spec.processes as u32,
            share,
        };
        Ok((slice, geo))
    }
}

impl runner::Workers for GenericRun {
    const KIND: &'static str = "run";
    type Payload = GenericPlan;
    type Worker = GenericWorker;
    fn workers(p: &GenericPlan, range: std::ops::Range<usize>) -> Result<Vec<GenericWorker>> {
        range
            .map(|i| {
                let how = if p.read_only {
                    OpenHow::READ
                } else {
                    OpenHow::READ_WRITE
                };
                if let Some(v) = &p.verify {
                    return GenericWorker::verified(&p.spec, &p.setup, &p.paths, how, i, v);
                }
                let mut w = GenericWorker::new(&p.spec, &p.setup, &p.paths, how, i)?;
                w.stream.base = p.base;
                Ok(w)
            })
            .collect()
    }
}

/// One process of the generic workload.
pub struct GenericWorker {
    io: Io,
    files: Vec<FileId>,
    stream: Stream,
    fsync: FsyncPolicy,
    /// `--verify`: what the worker knows of the units it owns, and whether
    /// it hands them back for the manifest (`--keep`).
    verify: Option<(Box<Tracker>, bool)>,
    /// `--verify-crash`: the worker's journal, and the unit.
    journal: Option<(Journal, u64)>,
    /// Some requests trim.
    trims: bool,
}

/// The workload's requests, as the driver asks for them.
struct Stream {
    generator: Generator,
    files: Vec<FileId>,
    every: Option<u64>,
    writes: u64,
    /// The sync owed to the last write (every Nth).
    owed: Option<Req>,
    /// Added to every offset: the start of the workers' region.
    base: u64,
}

impl Source for Stream {
    #[inline(always)]
    fn next(&mut self) -> Option<Req> {
        let r = self.generator.next_request();
        let file = self.files[r.file as usize];
        if let (OpKind::Write, Some(n)) = (r.kind, self.every) {
            self.writes += 1;
            if self.writes.is_multiple_of(n) {
                self.owed = Some(Req::fsync(file));
            }
        }
        Some(Req {
            kind: r.kind,
            file,
            offset: r.offset + self.base,
            len: r.len as u32,
            slot: 0,
        })
    }

    #[inline(always)]
    fn owed(&mut self) -> Option<Req> {
        self.owed.take()
    }
}

impl GenericWorker {
    pub fn new(
        spec: &GenericSpec,
        setup: &IoSetup,
        paths: &[PathBuf],
        how: OpenHow,
        index: usize,
    ) -> Result<Self> {
        let max = max_request(spec) as usize;
        let engine = setup.spec().access(Access::of_seq_frac(spec.seq_frac));
        let mut io = Io::new(&engine, 1, max, spec.seed ^ index as u64)?;
        let mut files = Vec::with_capacity(paths.len());
        for p in paths {
            files.push(io.open(p, how).context("cannot open")?);
        }
        let mut generator = Generator::new(spec, index).map_err(UsageError)?;
        generator.set_sizes(spec.clipped().map_err(UsageError)?);
        let every = match setup.fsync {
            FsyncPolicy::Every(n) => Some(n),
            _ => None,
        };
        Ok(GenericWorker {
            io,
            stream: Stream {
                generator,
                files: files.clone(),
                every,
                writes: 0,
                owed: None,
                base: 0,
            },
            files,
            fsync: setup.fsync,
            verify: None,
            journal: None,
            trims: spec.trim_frac > 0.0,
        })
    }

    /// Worker `index` of a run with `--verify`: it reads and writes only
    /// its own slice of every file ([`VerifyPlan::slice`]).
    pub fn verified(
        spec: &GenericSpec,
        setup: &IoSetup,
        paths: &[PathBuf],
        how: OpenHow,
        index: usize,
        v: &VerifyPlan,
    ) -> Result<Self> {
        let (slice, geo) = v.slice(spec).map_err(UsageError)?;
        let mut w = GenericWorker::new(&slice, setup, paths, how, index)?;
        w.stream.base = index as u64 * geo.share;
        let pattern = Pattern::new(spec.seed, v.unit as usize);
        let slots = usize::from(setup.iodepth.max(1));
        let mut tracker = Tracker::new(geo, pattern, index as u32, &w.files, slots, v.fatal);
        if v.crash {
            tracker.track_durable();
            let dir = paths
                .first()
                .and_then(|p| p.parent())
                .context("--verify-crash: no file to journal")?;
            w.journal = Some((Journal::create(dir, index as u32)?, v.unit));
        }
        w.verify = Some((Box::new(tracker), v.keep));
        Ok(w)
    }
}

impl Worker for GenericWorker {
    fn kinds(&self) -> &[OpKind] {
        if self.trims {
            &[OpKind::Read, OpKind::Write, OpKind::Trim, OpKind::Fsync]
        } else {
            &[OpKind::Read, OpKind::Write, OpKind::Fsync]
        }
    }

    /// Its engine's data files are all it holds.
    fn own_fd_table(&self) -> bool {
        true
    }

    fn engine_mode(&self) -> Option<String> {
        self.io.mode()
    }

    fn finish(&mut self) -> serde_json::Value {
        match &self.verify {
            Some((t, keep)) => {
                serde_json::to_value(WorkerReport::of(t, *keep)).unwrap_or(serde_json::Value::Null)
            }
            None => serde_json::Value::Null,
        }
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        match &mut self.verify {
            Some((t, _)) => self.io.drive(
                ctx,
                &mut CheckedSource {
                    inner: &mut self.stream,
                    tracker: t,
                    journal: self.journal.as_mut(),
                },
            )?,
            None => self.io.drive(ctx, &mut self.stream)?,
        }
        if self.fsync == FsyncPolicy::End && !runner::signals::interrupted() {
            for &f in &self.files {
                let req = Req::fsync(f);
                if let Some((t, _)) = &mut self.verify {
                    t.fill(&req, &mut []);
                }
                let c = self.io.exec_named(req)?;
                ctx.record(&c);
                if let Some((t, _)) = &mut self.verify {
                    t.done(&c);
                    journal_sync(t, self.journal.as_mut(), &c)?;
                }
            }
        }
        Ok(())
    }
}

/// Check a run of the generic workload as [`run_generic`] does before it
/// makes anything (`iogauge run --check`).
pub fn check_generic(
    spec: &GenericSpec,
    setup: &IoSetup,
    target: &Target,
    processes: bool,
) -> Result<()> {
    checks(spec, setup, target)?;
    places(spec, setup, target, processes).check()
}

/// What a run refuses of the workload and the engine, and of the user's
/// file: a workload that would reach past its end or write it unasked.
fn checks(spec: &GenericSpec, setup: &IoSetup, target: &Target) -> Result<()> {
    spec.validate().map_err(UsageError)?;
    spec.clipped().map_err(UsageError)?;
    setup.spec().check().map_err(UsageError)?;
    if matches!(target, Target::Shared(_)) && spec.files != 1 {
        crate::usage!(
            "--files {}: with --shared-file the ranks share one file; drop --files",
            spec.files
        );
    }
    if let Target::File(f) = target {
        let name = format!("{} {}", f.flag(), shown_path(&f.path));
        let what = if f.device.is_some() { "device" } else { "file" };
        if spec.files != 1 {
            crate::usage!(
                "--files {}: a run on {name} has that one {what}; drop --files",
                spec.files
            );
        }
        if spec.unique_bytes > f.bytes {
            crate::usage!(
                "--unique-bytes {} is larger than {name} ({}): requests stay inside the {what}; give at most its size or drop --unique-bytes",
                crate::units::fmt_bytes(spec.unique_bytes),
                crate::units::fmt_bytes(f.bytes)
            );
        }
        if let Some(d) = &f.device
            && setup.direct
            && !d.direct_fits(spec.align)
        {
            crate::usage!(
                "--direct: --align {} is not a multiple of {name}'s logical block size ({} B); O_DIRECT requests must be whole blocks",
                spec.align,
                d.logical_block_bytes
            );
        }
        if spec.read_frac < 1.0 && !f.writes {
            if f.device.is_some() {
                crate::usage!(
                    "--read-frac {} would write to {name} and destroy what it holds; give --read-frac 1, or --allow-destroy",
                    spec.read_frac
                );
            }
            crate::usage!(
                "--read-frac {} would write to {name}, which is yours; give --read-frac 1, or --allow-write to let the run overwrite its bytes",
                spec.read_frac
            );
        }
    }
    Ok(())
}

/// The run's set-up: its data, workers and files.
fn places(spec: &GenericSpec, setup: &IoSetup, target: &Target, processes: bool) -> Setup {
    match target {
        Target::Layout(parent) | Target::Shared(parent) => Setup::new("run", parent)
            .data(spec.total_bytes())
            .entries(u64::from(spec.files)),
        Target::File(f) => match &f.device {
            Some(d) => Setup::on_device("run", d),
            None => Setup::on_file("run", &f.path),
        },
    }
    .fake(setup.fake())
    .workers(spec.processes, u64::from(spec.files), processes)
}

/// Lay out, run and measure the generic workload in a new work directory
/// under the target's parent, or on the user's file; everything the run
/// created is gone when this returns, and the user's file is still there.
pub fn run_generic(
    spec: &GenericSpec,
    setup: &IoSetup,
    rule: StopRule,
    target: &Target,
    processes: bool,
    progress: &dyn Progress,
) -> Result<RunResult> {
    run_generic_verified(spec, setup, rule, target, processes, progress, None)
}

/// The unit of `--verify-interval`, as requests can be made of it: a
/// power of two from 512 B to 1 MiB.
pub fn check_interval(unit: u64) -> Result<()> {
    crate::verify::check_unit(unit).map_err(|e| UsageError(format!("--verify-interval: {e}")))?;
    if !unit.is_power_of_two() {
        crate::usage!(
            "--verify-interval {unit} B: requests are aligned to powers of two, so the interval must be one (512 B, 4 KiB, 64 KiB, …)"
        );
    }
    Ok(())
}

/// What `--verify` refuses: what it cannot check soundly.
pub fn check_verify(
    spec: &GenericSpec,
    setup: &IoSetup,
    target: &Target,
    v: &VerifyPlan,
) -> Result<()> {
    crate::verify::check_unit(v.unit).map_err(|e| UsageError(format!("--verify-interval: {e}")))?;
    if !v.unit.is_power_of_two() {
        crate::usage!(
            "--verify-interval {} B: requests are aligned to powers of two, so the interval must be one (512 B, 4 KiB, 64 KiB, …)",
            v.unit
        );
    }
    if setup.fake() {
        crate::usage!(
            "--verify: engine '{}' does no I/O, so there is nothing to check; use psync, io_uring or libaio",
            setup.engine
        );
    }
    match target {
        Target::File(f) if f.device.is_some() => crate::usage!(
            "--verify on --device: what the device holds before the run is unknown (nothing is laid out on it), so no read could be checked; drop --verify, or use 'iogauge scientific --device … --verify', which writes every unit before it reads"
        ),
        Target::File(_) => crate::usage!(
            "--verify writes and checks files it lays out itself; drop --file (or --verify)"
        ),
        Target::Shared(_) => crate::usage!(
            "--verify gives every unit one writer, which a file shared by the ranks cannot; drop --shared-file (or --verify)"
        ),
        Target::Layout(_) => {}
    }
    if !spec.align.is_multiple_of(v.unit) {
        crate::usage!(
            "--verify: --align {} is not a multiple of --verify-interval {}; requests must be whole units",
            spec.align,
            v.unit
        );
    }
    v.slice(spec).map_err(UsageError)?;
    if v.crash && setup.fsync == FsyncPolicy::Never {
        crate::usage!(
            "--verify-crash judges only the writes a sync made durable, and --fsync is never: add --fsync every=N (or --fsync end)"
        );
    }
    Ok(())
}

/// [`run_generic`], with `--verify` when `verify` says so: the layout is
/// made of checked units (generation 0), every write of the run of the
/// next generations, and every read is checked; the result gets a
/// `verify` section; with `--keep` the work directory stays, with a
/// manifest of what each unit must hold.
pub fn run_generic_verified(
    spec: &GenericSpec,
    setup: &IoSetup,
    rule: StopRule,
    target: &Target,
    processes: bool,
    progress: &dyn Progress,
    verify: Option<VerifyPlan>,
) -> Result<RunResult> {
    checks(spec, setup, target)?;
    if let Some(v) = &verify {
        check_verify(spec, setup, target, v)?;
    }
    let config = RunPlan {
        workload: spec.clone(),
        io: setup.clone(),
        duration_s: rule.duration.map(|d| d.as_secs_f64()),
        ops: rule.ops,
        ramp_s: rule.ramp.map(|d| d.as_secs_f64()),
        max_request_bytes: max_request(spec),
        workers_as: if processes { "processes" } else { "threads" }.into(),
        pace: rule.pace,
        user_file: target.file().cloned(),
        shared_file: matches!(target, Target::Shared(_)),
        verify,
        pinning: rule.pin.is_set().then_some(rule.pin),
    };
    let plan = places(spec, setup, target, processes).config(config);
    let mut session = plan.begin()?;
    if verify.is_some_and(|v| v.keep) {
        session.keep_dir();
    }
    let mut base = 0;
    let (paths, read_only) = match target {
        Target::File(f) => {
            if setup.cold && !setup.fake() {
                drop_cached(&f.path)?;
            }
            (vec![f.path.clone()], !f.writes)
        }
        Target::Layout(_) => {
            if !setup.fake() {
                progress.status(&format!(
                    "laying out {} (untimed)",
                    crate::units::fmt_bytes(spec.total_bytes())
                ));
            }
            let laid = match &verify {
                Some(v) => layout_verified(spec, setup, session.dir(), v)?,
                None => layout(spec, setup, session.dir())?,
            };
            let Some(paths) = laid else {
                // nothing measured: the figures of no request
                let mut result = session.interrupted();
                result.set_figures(&figures(&result, &WorkerStats::default()));
                return Ok(result);
            };
            if let Some(v) = verify.filter(|v| v.crash) {
                crash_head(spec, setup, session.dir(), &v)?;
            }
            (paths, false)
        }
        Target::Shared(_) => {
            if !setup.fake() {
                progress.status(&format!(
                    "filling this rank's {} of the shared file (untimed)",
                    crate::units::fmt_bytes(spec.file_size())
                ));
            }
            let Some(path) = layout_shared(spec, setup, session.dir())? else {
                let mut result = session.interrupted();
                result.set_figures(&figures(&result, &WorkerStats::default()));
                return Ok(result);
            };
            base = region(spec);
            (vec![path], false)
        }
    };
    let payload = GenericPlan {
        spec: spec.clone(),
        setup: setup.clone(),
        paths,
        read_only,
        base,
        verify,
    };
    // a run on the user's --file has no work directory (and no --verify)
    let dir = verify.map(|_| session.dir().to_path_buf());
    let (mut result, outcome) = session.run_workers::<GenericRun>(
        rule,
        &payload,
        spec.processes,
        runner::Placement::of(processes),
        progress,
    )?;
    result.set_figures(&figures(&result, &outcome.stats));
    if let (Some(v), Some(dir)) = (&verify, &dir) {
        result.verify = Some(gather_verified(spec, v, dir, &outcome.extras)?);
    }
    Ok(result)
}

/// The workers' verify reports as one section; with `--keep`, the
/// manifest written beside the files.
fn gather_verified(
    spec: &GenericSpec,
    v: &VerifyPlan,
    dir: &Path,
    extras: &[serde_json::Value],
) -> Result<Section> {
    let mut section = Section::new(v.unit);
    let mut written = Vec::new();
    let mut unknown = Vec::new();
    let mut lost_workers = Vec::new();
    for (i, x) in extras.iter().enumerate() {
        // a worker that died sends nothing: what it owned is unknown
        let Ok(r) = serde_json::from_value::<WorkerReport>(x.clone()) else {
            lost_workers.push(i as u32);
            continue;
        };
        section.merge(&r.counts);
        written.extend(r.written);
        unknown.extend(r.unknown);
    }
    if v.keep {
        let (_, geo) = v.slice(spec).map_err(UsageError)?;
        let m = Manifest {
            format: crate::verify::track::MANIFEST_FORMAT.into(),
            seed: spec.seed,
            geometry: geo,
            files: (0..spec.files).map(|i| format!("data.{i}")).collect(),
            written,
            unknown,
            lost_workers,
            run: section.clone(),
        };
        m.write(dir)?;
        section.kept = Some(shown_path(dir));
    }
    Ok(section)
}

/// `--verify-crash`: the head of the work directory, written once the
/// layout is synced and before any worker starts; from now on the
/// directory is evidence a killed run leaves for `--verify-only`.
fn crash_head(spec: &GenericSpec, setup: &IoSetup, dir: &Path, v: &VerifyPlan) -> Result<()> {
    let (_, geo) = v.slice(spec).map_err(UsageError)?;
    Head {
        format: crate::verify::crash::HEAD_FORMAT.into(),
        seed: spec.seed,
        unit: geo.unit,
        files: (0..spec.files).map(|i| format!("data.{i}")).collect(),
        file_size: geo.file_size,
        workers: geo.workers,
        share: geo.share,
        sync: format!(
            "{}{}",
            match setup.fsync {
                FsyncPolicy::Never => "never".to_string(),
                FsyncPolicy::End => "end".to_string(),
                FsyncPolicy::Every(n) => format!("every={n}"),
            },
            if setup.fdatasync { " (fdatasync)" } else { "" }
        ),
        layout_synced: true,
    }
    .write(dir)
}

/// [`layout`] for `--verify`: every unit of every file written by
/// [`Pattern::write_units`] as generation 0, by the worker that owns it.
pub fn layout_verified(
    spec: &GenericSpec,
    setup: &IoSetup,
    dir: &Path,
    v: &VerifyPlan,
) -> Result<Option<Vec<PathBuf>>> {
    let (_, geo) = v.slice(spec).map_err(UsageError)?;
    let pattern = Pattern::new(spec.seed, v.unit as usize);
    let mut paths = Vec::with_capacity(spec.files as usize);
    for i in 0..spec.files {
        let p = dir.join(format!("data.{i}"));
        let Some(f) = crate::session::verified::write_file(&p, u64::from(i), &geo, &pattern)?
        else {
            return Ok(None);
        };
        if setup.cold {
            // SAFETY: a valid open descriptor; advice has no memory effects.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
        paths.push(p);
    }
    Ok(Some(paths))
}

/// Drop the user's file from the page cache (`--cold`), opened read-only:
/// posix_fadvise DONTNEED leaves its bytes and times as they are.
fn drop_cached(path: &Path) -> Result<()> {
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    // SAFETY: a valid open descriptor; advice has no memory effects.
    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    Ok(())
}

/// The figures of a run from what its workers measured.
fn figures(result: &RunResult, stats: &WorkerStats) -> RunFigures {
    // reads and writes together: the requests of the workload
    let (service, response) =
        stats.combined(|k| matches!(k, OpKind::Read | OpKind::Write | OpKind::Trim));
    let mean = stats
        .kinds()
        .filter(|(k, _)| k.direction().is_some())
        .fold((0u64, 0u64), |(n, b), (_, s)| (n + s.count, b + s.bytes));
    RunFigures {
        requests_per_s: service.count as f64 / result.elapsed_s.max(1e-9),
        request_latency_ns: service.summary(),
        request_response_ns: (response.count > 0).then(|| response.summary()),
        mean_request_bytes: (mean.0 > 0).then(|| mean.1 as f64 / mean.0 as f64),
        mb_per_s: (result.summary.read_bytes_per_s + result.summary.write_bytes_per_s) / 1e6,
        iops: result.summary.ops_per_s,
        not_to_disk: None,
    }
}

/// The generic workload (`iogauge run`), typed: its plan, its figures and
/// its report.
pub struct GenericRun;

/// What a result of `iogauge run` holds in `config`.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct RunPlan {
    /// The five parameters and the rest of the request stream.
    pub workload: GenericSpec,
    /// How the I/O is done.
    pub io: IoSetup,
    /// How long the run measures (null: until `ops`).
    pub duration_s: Option<f64>,
    /// The reads and writes it stops after (null: after `duration_s`).
    pub ops: Option<u64>,
    /// How long it runs first without counting.
    pub ramp_s: Option<f64>,
    /// The largest request the workload draws.
    pub max_request_bytes: u64,
    /// `threads` or `processes`.
    pub workers_as: String,
    /// When requests are issued.
    pub pace: Pace,
    /// The user's file the run worked on (`--file`), in place of files it
    /// laid out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_file: Option<UserFile>,
    /// The ranks of an MPI job shared one file (`--shared-file`), rank r
    /// in bytes [r·U, (r+1)·U) of it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shared_file: bool,
    /// `--verify`: the unit, and whether a mismatch stops the run and the
    /// files are kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyPlan>,
    /// `--cpus-allowed`, `--numa-node`: the CPUs the workers were given,
    /// how they share them, and their memory policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinning: Option<crate::runner::pin::Pinning>,
}

/// The generic workload's figures.
#[derive(Clone, Debug, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[schemars(rename = "runFigures")]
pub struct RunFigures {
    /// Reads and writes completed per second of the run (1/s).
    pub requests_per_s: f64,
    /// Service time of the reads and writes together, from issue to
    /// completion (ns).
    #[schemars(with = "Latency")]
    pub request_latency_ns: LatencySummary,
    /// Open loop: response time of the reads and writes, from each one's
    /// intended start to its completion (ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Latency>")]
    pub request_response_ns: Option<LatencySummary>,
    /// Mean bytes per read or write (B); absent when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_request_bytes: Option<f64>,
    /// Bytes read and written per second, in MB/s (10^6 B/s).
    pub mb_per_s: f64,
    /// Operations per second, fsyncs included (1/s; `summary.ops_per_s`).
    pub iops: f64,
    /// The survey's rows: why the O_DIRECT I/O did not reach a disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_to_disk: Option<String>,
}

/// A [`LatencySummary`] in the figures' schema: the result schema's own
/// definition of a latency summary, by reference.
struct Latency;

impl schemars::JsonSchema for Latency {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "latency".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "$ref": "#/$defs/latency" })
    }
}

/// A one-line description of a generic workload, on the user's `file` if
/// it ran on one.
pub fn describe(spec: &GenericSpec, setup: &IoSetup, file: Option<&UserFile>) -> String {
    use crate::units::fmt_bytes;
    let files = match file {
        Some(f) => format!(
            "the given {} {} ({})",
            if f.device.is_some() { "device" } else { "file" },
            shown_path(&f.path),
            match (f.writes, f.device.is_some()) {
                (true, true) => "writes allowed: its contents are destroyed",
                (true, false) => "writes allowed",
                (false, _) => "read-only",
            }
        ),
        None => format!(
            "{} file{}",
            spec.files,
            if spec.files == 1 { "" } else { "s" }
        ),
    };
    format!(
        "uniqueBytes {} in {files}, sizeMean {} (cv {}), readFrac {}{}, seqFrac {}{}, processNum {}; engine {}{}",
        fmt_bytes(spec.unique_bytes),
        fmt_bytes(spec.size_mean),
        spec.size_cv,
        spec.read_frac,
        if spec.trim_frac > 0.0 {
            format!(", trimFrac {}", spec.trim_frac)
        } else {
            String::new()
        },
        spec.seq_frac,
        if spec.distribution.is_random() {
            String::new()
        } else {
            format!(" (random offsets {})", spec.distribution)
        },
        spec.processes,
        setup.engine,
        if setup.direct { ", O_DIRECT" } else { "" }
    )
}
