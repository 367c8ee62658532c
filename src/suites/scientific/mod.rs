//! Chen & Patterson's "scientific" workloads (Storage Performance — Metrics
//! and Benchmarks, 1993): a large file written sequentially in large
//! requests, then read back the same way. The figure of each is MB/s.
//!
//! One work directory, one file, two timed phases in this order:
//!
//! - **write**: a new file (created empty before timing) is written from
//!   offset 0 to its end in requests of `request` bytes; by default one
//!   fsync at the end is timed with it, so the figure covers the data
//!   reaching the disk, not only the page cache.
//! - **read**: the same file is read from offset 0 to its end in the same
//!   requests. When the write phase did not run (`--phase read`), the file
//!   is laid out before timing.
//!
//! Between the phases (untimed) the cache is put in the state the report
//! names: `cold` (sync, then drop the page cache: root only), `direct`
//! (O_DIRECT: the page cache is not used) or `warm` (neither: the read
//! finds the file just written in memory).
//!
//! A size that is not a multiple of the request size ends with one short
//! request ([`split`]): the file is exactly `size` bytes.
//!
//! Each phase is one run of the runner; the result merges them
//! ([`merge`]): counts, bytes and histograms add, elapsed time and CPU are
//! the sums of the timed phases, and the read phase's time series follows
//! the write phase's. The per-phase figures are in `metrics.phases`.

pub mod report;
pub mod survey;

use crate::engine::{Choice, Completion, EngineSpec, FileId, OpenHow, QueueOpts, Req};
use crate::error::UsageError;
use crate::measure::{CpuTimes, LatencySummary, OpKind, Outcome, WorkerStats};
use crate::report::{OpSummary, RunResult, Series, Summary, now_rfc3339};
use crate::runner::{self, Ctx, Io, Placement, Progress, Source, StopRule, Worker};
use crate::session::Setup;
use crate::session::generic::{is_one, one_in_flight};
use crate::session::verified::CheckedSource;
use crate::units::fmt_bytes;
use crate::verify::Pattern;
use crate::verify::track::{Geometry, Section, Tracker, WorkerReport};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The file of the workload: 100 MiB (the paper's "100 MB", in the binary
/// megabytes of the programs of its time).
pub const DEFAULT_SIZE: u64 = 100 << 20;
/// The request: 128 KiB.
pub const DEFAULT_REQUEST: u64 = 128 << 10;
/// Largest request: it is one buffer held in memory.
pub const MAX_REQUEST: u64 = 1 << 30;
/// The control file that drops the page cache.
pub const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";
/// The data file's name in the work directory.
const FILE_NAME: &str = "scientific.dat";

/// Which phases a run times (`--phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Phases {
    /// The large-file write only.
    Write,
    /// The large-file read only (the file is laid out before timing).
    Read,
    /// The write, then the read of the file it wrote.
    Both,
}

impl Phases {
    /// The run of `phase` alone.
    pub fn of(phase: Phase) -> Phases {
        match phase {
            Phase::Write => Phases::Write,
            Phase::Read => Phases::Read,
        }
    }

    /// The timed phases, in the order they run.
    pub fn list(self) -> &'static [Phase] {
        match self {
            Phases::Write => &[Phase::Write],
            Phases::Read => &[Phase::Read],
            Phases::Both => &[Phase::Write, Phase::Read],
        }
    }
}

/// One timed phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Write,
    Read,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Write => "write",
            Phase::Read => "read",
        }
    }

    /// The classic name of the workload.
    pub fn title(self) -> &'static str {
        match self {
            Phase::Write => "Large file write",
            Phase::Read => "Large file read",
        }
    }

    fn kind(self) -> OpKind {
        match self {
            Phase::Write => OpKind::Write,
            Phase::Read => OpKind::Read,
        }
    }
}

/// The page cache's part in the figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "scientificCache")]
pub enum Cache {
    /// The page cache was dropped before each phase (sync, then 3 into
    /// /proc/sys/vm/drop_caches): the read comes from the device.
    Cold,
    /// O_DIRECT: the page cache is bypassed.
    Direct,
    /// Neither: the read finds the file in the page cache.
    Warm,
}

impl Cache {
    pub fn of(direct: bool, drop_caches: bool) -> Cache {
        if direct {
            Cache::Direct
        } else if drop_caches {
            Cache::Cold
        } else {
            Cache::Warm
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Cache::Cold => "cold",
            Cache::Direct => "direct",
            Cache::Warm => "warm",
        }
    }
}

/// One run as asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// Bytes of the file.
    pub size: u64,
    /// Bytes per request (the last one may be shorter).
    pub request: u64,
    pub phases: Phases,
    /// Parent of the work directory.
    pub dir: PathBuf,
    pub engine: Choice,
    pub direct: bool,
    /// Requests in flight at once (the supercomputer codes of the paper
    /// kept several asynchronous requests going).
    pub iodepth: u16,
    /// How a queued engine submits and reaps (its flags).
    pub queue: QueueOpts,
    /// Time one fsync at the end of the write phase.
    pub fsync: bool,
    /// Sync and drop the page cache before each phase.
    pub drop_caches: bool,
    /// `--verify`: the write phase made of checked units, the read phase
    /// checked (docs/verify.md).
    pub verify: Option<crate::session::generic::VerifyPlan>,
    /// `--device`: the raw block device the phases run on, from its first
    /// byte, in place of a file in a work directory (`dir` unused).
    pub device: Option<crate::env::device::BlockDevice>,
}

impl Options {
    /// The paper's workload in `dir`: 100 MiB in 128 KiB requests, write
    /// then read, psync, fsync timed, warm cache.
    pub fn new(dir: &Path) -> Options {
        Options {
            size: DEFAULT_SIZE,
            request: DEFAULT_REQUEST,
            phases: Phases::Both,
            dir: dir.to_path_buf(),
            engine: Choice::PSYNC,
            direct: false,
            iodepth: 1,
            queue: QueueOpts::default(),
            fsync: true,
            drop_caches: false,
            verify: None,
            device: None,
        }
    }

    /// Refuse sizes the workload cannot run, with the flag to change.
    pub fn check(&self) -> Result<(), String> {
        let (size, request) = (self.size, self.request);
        if size == 0 {
            return Err("--size 0: the file must hold at least one byte".into());
        }
        if request == 0 {
            return Err("--request 0: a request must move at least one byte".into());
        }
        if request > size {
            return Err(format!(
                "--request {} is larger than --size {}: a request cannot be larger than the file",
                fmt_bytes(request),
                fmt_bytes(size)
            ));
        }
        if request > MAX_REQUEST {
            return Err(format!(
                "--request {}: at most {} (the request is one buffer in memory)",
                fmt_bytes(request),
                fmt_bytes(MAX_REQUEST)
            ));
        }
        if let Some(v) = &self.verify {
            if v.keep {
                return Err("--keep: scientific removes its file at the end; keep a file set with 'iogauge run --verify --keep'".into());
            }
            if self.engine.is_fake() {
                return Err(format!(
                    "--verify: engine '{}' does no I/O, so there is nothing to check; use psync, io_uring or libaio",
                    self.engine
                ));
            }
            if !size.is_multiple_of(v.unit) || !request.is_multiple_of(v.unit) {
                return Err(format!(
                    "--verify: --size {} and --request {} must be whole units of --verify-interval {}",
                    fmt_bytes(size),
                    fmt_bytes(request),
                    fmt_bytes(v.unit)
                ));
            }
        }
        if let Some(d) = &self.device {
            let name = crate::error::shown_path(&d.path);
            if size > d.bytes {
                return Err(format!(
                    "--size {} is larger than --device {name} ({}): give at most its size, or drop --size",
                    fmt_bytes(size),
                    fmt_bytes(d.bytes)
                ));
            }
            if self.phases.list().contains(&Phase::Write) && !d.writes {
                return Err(format!(
                    "--phase {}: the write phase would write to --device {name} and destroy what it holds; pass --allow-destroy, or --phase read",
                    if self.phases == Phases::Both {
                        "both"
                    } else {
                        "write"
                    }
                ));
            }
            if self.verify.is_some() && self.phases == Phases::Read {
                return Err(format!(
                    "--verify --phase read on --device {name}: what the device holds was not written by iogauge, so no unit can be checked; use --phase both, whose write phase writes every unit the read phase checks"
                ));
            }
            if self.direct && !(d.direct_fits(request) && d.direct_fits(size)) {
                return Err(format!(
                    "--direct: --size and --request must be multiples of --device {name}'s logical block size ({} B)",
                    d.logical_block_bytes
                ));
            }
        }
        // on a device the write phase writes inside it; on a file it
        // writes the file from empty
        if self.device.is_none() && self.phases.list().contains(&Phase::Write) {
            self.engine.check_grows(
                "the write phase writes its file from empty",
                "psync, or --phase read (the file is laid out first), or --device",
            )?;
        }
        let spec = self.spec();
        spec.aligned("--direct: --size", size)?;
        spec.aligned("--direct: --request", request)?;
        spec.check()
    }

    pub fn cache(&self) -> Cache {
        Cache::of(self.direct, self.drop_caches)
    }

    /// The run's plan: the result's `config`.
    pub fn plan(&self) -> Plan {
        let (requests, last) = split(self.size, self.request);
        Plan {
            size_bytes: self.size,
            request_bytes: self.request,
            requests,
            last_request_bytes: last,
            phase: self.phases,
            engine: self.engine,
            direct: self.direct,
            fsync: self.fsync,
            drop_caches: self.drop_caches,
            cache: self.cache(),
            iodepth: self.iodepth,
            verify: self.verify,
        }
    }

    /// What `phase`'s worker on the file at `path` is built from.
    pub fn payload(&self, phase: Phase, path: &Path) -> Payload {
        Payload {
            spec: self.spec(),
            phase,
            path: path.to_path_buf(),
            device: self.device.is_some(),
            size: self.size,
            request: self.request,
            fsync: self.fsync,
            verify: self.verify.map(|v| VerifyPhase {
                plan: v,
                // the read phase after the write phase reads generation 1
                generation: u32::from(phase == Phase::Read && self.phases != Phases::Read),
            }),
        }
    }

    /// The engine of each phase.
    pub fn spec(&self) -> EngineSpec {
        EngineSpec::new(self.engine)
            .direct(self.direct)
            .depth(self.iodepth)
            .queue(self.queue)
    }
}

/// How a file of `size` bytes is cut into requests of `request` bytes:
/// the number of requests and the length of the last one. A size that is
/// not a multiple of the request ends with one shorter request, so the
/// file is exactly `size` bytes. `request` must be at least 1.
pub fn split(size: u64, request: u64) -> (u64, u64) {
    let whole = size / request;
    match size % request {
        0 => (whole, if whole == 0 { 0 } else { request }),
        rest => (whole + 1, rest),
    }
}

/// Decimal megabytes (10^6 B) per second, as storage people quote them.
pub fn mb_per_s(bytes: u64, elapsed_s: f64) -> f64 {
    if elapsed_s > 0.0 {
        bytes as f64 / 1e6 / elapsed_s
    } else {
        0.0
    }
}

/// Why `--drop-caches` cannot be done, for a process of effective user
/// `euid` that may (`writable`) or may not write the control file; `None`
/// when it can.
pub fn drop_caches_refusal(euid: u32, writable: bool) -> Option<String> {
    if euid != 0 {
        return Some(format!(
            "--drop-caches needs root (it writes {DROP_CACHES}); without root, --direct reads past the page cache"
        ));
    }
    if !writable {
        return Some(format!(
            "--drop-caches: {DROP_CACHES} is not writable here (a container?); --direct reads past the page cache"
        ));
    }
    None
}

/// Whether this process may drop the page cache: `Err` says why not.
pub fn check_drop_caches() -> Result<(), UsageError> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let euid = unsafe { libc::geteuid() };
    let writable = rustix::fs::access(DROP_CACHES, rustix::fs::Access::WRITE_OK).is_ok();
    match drop_caches_refusal(euid, writable) {
        Some(why) => Err(UsageError::new(why)),
        None => Ok(()),
    }
}

/// Write dirty data back, then drop the clean page cache, dentries and
/// inodes (untimed, between phases).
fn drop_caches() -> Result<()> {
    // SAFETY: sync(2) has no preconditions and cannot fail.
    unsafe { libc::sync() };
    std::fs::write(DROP_CACHES, "3").with_context(|| format!("cannot write 3 to {DROP_CACHES}"))
}

/// Lay out the file for a read without a write phase (untimed): `size`
/// bytes of incompressible data, synced. `None` when Ctrl-C arrived.
fn layout(path: &Path, size: u64) -> Result<Option<()>> {
    let mut buf = vec![0u8; 1 << 20];
    crate::data::fill_random(&mut buf, 0x5c1e);
    Ok(crate::session::generic::fill_file(path, size, &mut buf, &mut 0)?.map(|_| ()))
}

/// The seed of the unit pattern under `--verify` (the workload has none).
const VERIFY_SEED: u64 = 0x5c1e;

const WRITE_KINDS: &[OpKind] = &[OpKind::Write, OpKind::Fsync];
const READ_KINDS: &[OpKind] = &[OpKind::Read];

/// One phase: the file from offset 0 to its end in requests of `request`
/// bytes (up to the depth in flight), then (writes, when asked) one fsync.
pub struct Sequential {
    io: Io,
    file: FileId,
    phase: Phase,
    size: u64,
    fsync: bool,
    stream: Stream,
    /// `--verify`: what the phase knows of every unit.
    tracker: Option<Box<Tracker>>,
}

/// The phase's requests, in file order.
struct Stream {
    kind: OpKind,
    file: FileId,
    size: u64,
    request: u64,
    /// The next request's offset.
    next: u64,
    /// Bytes whose requests completed.
    done: u64,
    path: PathBuf,
}

impl Source for Stream {
    #[inline]
    fn next(&mut self) -> Option<Req> {
        if self.next >= self.size {
            return None;
        }
        let len = (self.size - self.next).min(self.request) as u32;
        let req = Req {
            kind: self.kind,
            file: self.file,
            offset: self.next,
            len,
            slot: 0,
        };
        self.next += u64::from(len);
        Some(req)
    }

    fn done(&mut self, c: &Completion) -> Result<()> {
        if c.bytes != u64::from(c.req.len) {
            anyhow::bail!(
                "short {}: {} of {} B at offset {} in {}",
                c.req.kind.name(),
                c.bytes,
                c.req.len,
                c.req.offset,
                self.path.display()
            );
        }
        self.done += c.bytes;
        Ok(())
    }
}

/// What a phase's one worker is built from: the engine, the phase and the
/// file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Payload {
    pub spec: EngineSpec,
    pub phase: Phase,
    pub path: PathBuf,
    /// `path` is a raw block device: opened as it is, never created.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub device: bool,
    pub size: u64,
    pub request: u64,
    /// Time one fsync at the end (the write phase).
    pub fsync: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyPhase>,
}

/// `--verify` in one phase: the plan, and the generation every unit holds
/// when the phase starts (0 as laid out, 1 once the write phase wrote it).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct VerifyPhase {
    pub plan: crate::session::generic::VerifyPlan,
    pub generation: u32,
}

impl VerifyPhase {
    /// The file as one worker's: one file, every unit its own.
    fn geometry(&self, size: u64) -> Geometry {
        Geometry {
            unit: self.plan.unit,
            files: 1,
            file_size: size,
            workers: 1,
            share: size,
        }
    }
}

/// Each phase has one worker, which shares nothing.
impl runner::Workers for Scientific {
    const KIND: &'static str = "scientific";
    type Payload = Payload;
    type Worker = Sequential;
    fn workers(p: &Payload, range: std::ops::Range<usize>) -> Result<Vec<Sequential>> {
        anyhow::ensure!(
            range.end <= 1,
            "a scientific phase has one worker, not {}",
            range.end
        );
        range.map(|_| Sequential::new(p)).collect()
    }
}

impl Sequential {
    /// Open the file (untimed): the write phase creates it (the work
    /// directory is new, so the file is too), the read phase opens it.
    pub fn new(p: &Payload) -> Result<Sequential> {
        let mut io = Io::new(&p.spec, 1, p.request as usize, 0)?;
        let how = match p.phase {
            // a device is there already: O_WRONLY, no O_CREAT or O_TRUNC
            Phase::Write if p.device => OpenHow::WRITE_ONLY,
            Phase::Write => OpenHow::CREATE,
            Phase::Read => OpenHow::READ,
        };
        let file = io.open(&p.path, how).context("cannot open")?;
        let tracker = p.verify.map(|v| {
            let pattern = Pattern::new(VERIFY_SEED, v.plan.unit as usize);
            let slots = usize::from(p.spec.depth.max(1));
            let mut t = Tracker::new(v.geometry(p.size), pattern, 0, &[file], slots, v.plan.fatal);
            t.set_all(v.generation);
            Box::new(t)
        });
        Ok(Sequential {
            tracker,
            io,
            file,
            phase: p.phase,
            size: p.size,
            fsync: p.fsync && p.phase == Phase::Write,
            stream: Stream {
                kind: p.phase.kind(),
                file,
                size: p.size,
                request: p.request,
                next: 0,
                done: 0,
                path: p.path.clone(),
            },
        })
    }
}

impl Worker for Sequential {
    fn kinds(&self) -> &[OpKind] {
        match self.phase {
            Phase::Write => WRITE_KINDS,
            Phase::Read => READ_KINDS,
        }
    }

    fn engine_mode(&self) -> Option<String> {
        self.io.mode()
    }

    fn finish(&mut self) -> serde_json::Value {
        match &self.tracker {
            Some(t) => {
                serde_json::to_value(WorkerReport::of(t, false)).unwrap_or(serde_json::Value::Null)
            }
            None => serde_json::Value::Null,
        }
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        match &mut self.tracker {
            Some(t) => self.io.drive(
                ctx,
                &mut CheckedSource {
                    inner: &mut self.stream,
                    tracker: t,
                    journal: None,
                },
            )?,
            None => self.io.drive(ctx, &mut self.stream)?,
        }
        // the whole file written: its data to the disk, timed
        if self.fsync && self.stream.done == self.size {
            let c = self.io.exec_named(Req::fsync(self.file))?;
            ctx.record(&c);
        }
        Ok(())
    }
}

/// One timed phase and its own result: a scientific result of that phase
/// alone (its plan names the phase, its figures are the phase's), which
/// the survey gives as the phase's row.
pub struct PhaseResult {
    pub phase: Phase,
    /// The phase's MB/s (10^6 B/s) over its elapsed time.
    pub mb_per_s: f64,
    pub result: RunResult,
}

/// What a run gives: the merged result (the document `--json` writes) and
/// each phase's own, in the order they ran. A phase that did not run
/// (Ctrl-C or an error before it) has none.
pub struct Report {
    pub result: RunResult,
    pub phases: Vec<PhaseResult>,
}

/// Run the workload as `o` says. Nothing is left behind.
pub fn run(o: &Options, progress: &dyn Progress) -> Result<Report> {
    o.check().map_err(UsageError)?;
    if o.drop_caches {
        check_drop_caches()?;
    }
    let fake = o.engine.is_fake();
    let config = o.plan();
    let setup = match &o.device {
        Some(d) => Setup::on_device("scientific", d),
        None => Setup::new("scientific", &o.dir).data(o.size),
    }
    .fake(fake)
    .workers(1, 1, false)
    .config(&config);
    let session = setup.begin()?;
    let path = match &o.device {
        Some(d) => d.path.clone(),
        None => session.dir().join(FILE_NAME),
    };
    // a device's read phase reads what the device holds: no layout
    if o.phases == Phases::Read && !fake && o.device.is_none() {
        progress.status(&format!("laying out {} (untimed)", fmt_bytes(o.size)));
        let laid = match o.payload(Phase::Read, &path).verify {
            Some(v) => crate::session::verified::write_file(
                &path,
                0,
                &v.geometry(o.size),
                &Pattern::new(VERIFY_SEED, v.plan.unit as usize),
            )?
            .map(|_| ()),
            None => layout(&path, o.size)?,
        };
        if laid.is_none() {
            let mut result = session.interrupted();
            result.set_figures(&figures(o, &[]));
            return Ok(Report {
                result,
                phases: Vec::new(),
            });
        }
    }
    let mut phases = Vec::new();
    let mut outcomes = Vec::new();
    let mut verified = o.verify.map(|v| Section::new(v.unit));
    let mut cut_short = false;
    for &phase in o.phases.list() {
        if runner::signals::interrupted() || outcomes.iter().any(|done: &Outcome| !done.complete) {
            cut_short = true;
            break;
        }
        if o.drop_caches && !fake {
            progress.status("sync and drop the page cache (untimed)");
            drop_caches()?;
        }
        progress.status(&format!("{} phase", phase.name()));
        let payload = o.payload(phase, &path);
        let started = now_rfc3339();
        let outcome = runner::run_workers::<Scientific>(
            StopRule::default(),
            &payload,
            1,
            Placement::Threads,
            progress,
            &runner::NoWatch,
        )?;
        let alone = Options {
            phases: Phases::of(phase),
            ..o.clone()
        };
        let mut r = RunResult::new(
            "scientific",
            alone.plan(),
            session.environment().clone(),
            started,
        )
        .with_outcome(&outcome);
        if let Some(all) = &mut verified {
            let mut own = Section::new(all.unit_bytes);
            for x in &outcome.extras {
                if let Ok(w) = serde_json::from_value::<WorkerReport>(x.clone()) {
                    own.merge(&w.counts);
                }
            }
            all.merge(&own);
            r.verify = Some(own);
        }
        let bytes = if phase == Phase::Write {
            r.summary.bytes_written
        } else {
            r.summary.bytes_read
        };
        let mut p = PhaseResult {
            phase,
            mb_per_s: mb_per_s(bytes, r.elapsed_s),
            result: r,
        };
        let own = figures(&alone, std::slice::from_ref(&p));
        p.result.set_figures(&own);
        phases.push(p);
        outcomes.push(outcome);
    }
    let mut merged = merge(outcomes);
    if cut_short {
        merged.complete = false;
    }
    let mut result = session.finish(&merged);
    result.set_figures(&figures(o, &phases));
    result.verify = verified;
    Ok(Report { result, phases })
}

/// The figures of a run of `o` whose timed phases were `phases`.
pub fn figures(o: &Options, phases: &[PhaseResult]) -> Figures {
    let (requests, _) = split(o.size, o.request);
    let phase = |which: Phase| phases.iter().find(|p| p.phase == which);
    Figures {
        cache: o.cache(),
        size_bytes: o.size,
        request_bytes: o.request,
        requests,
        write_fsync: o.fsync,
        write_mb_per_s: phase(Phase::Write).map(|p| p.mb_per_s),
        read_mb_per_s: phase(Phase::Read).map(|p| p.mb_per_s),
        phases: PhaseFiguresByName {
            write: phase(Phase::Write).map(phase_figures),
            read: phase(Phase::Read).map(phase_figures),
        },
        interrupted: runner::signals::interrupted(),
    }
}

/// What a scientific result's `config` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    pub size_bytes: u64,
    pub request_bytes: u64,
    /// Requests per phase, the last one perhaps shorter.
    pub requests: u64,
    pub last_request_bytes: u64,
    pub phase: Phases,
    pub engine: Choice,
    pub direct: bool,
    /// One fsync at the end of the write phase is timed.
    pub fsync: bool,
    pub drop_caches: bool,
    pub cache: Cache,
    /// Requests in flight (absent for 1).
    #[serde(default = "one_in_flight", skip_serializing_if = "is_one")]
    pub iodepth: u16,
    /// `--verify`: the unit, and whether a mismatch stops the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<crate::session::generic::VerifyPlan>,
}

/// The scientific workloads' figures.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "scientificFigures")]
pub struct Figures {
    /// The page cache's part: cold, direct or warm.
    pub cache: Cache,
    /// Bytes of the file (B).
    pub size_bytes: u64,
    /// Bytes per request (B).
    pub request_bytes: u64,
    /// Requests per phase.
    pub requests: u64,
    /// The write phase timed a final fsync.
    pub write_fsync: bool,
    /// Large file write, in MB/s (10^6 B/s); absent when it did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_mb_per_s: Option<f64>,
    /// Large file read, in MB/s (10^6 B/s); absent when it did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_mb_per_s: Option<f64>,
    /// Each phase that ran, on its own.
    pub phases: PhaseFiguresByName,
    /// A signal (Ctrl-C, SIGTERM) stopped the run.
    pub interrupted: bool,
}

/// The phases that ran, by name.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "scientificPhases")]
pub struct PhaseFiguresByName {
    /// The write phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<PhaseFigures>,
    /// The read phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<PhaseFigures>,
}

impl PhaseFiguresByName {
    /// The phase called `phase`, if it ran.
    pub fn get(&self, phase: Phase) -> Option<&PhaseFigures> {
        match phase {
            Phase::Write => self.write.as_ref(),
            Phase::Read => self.read.as_ref(),
        }
    }
}

/// What `metrics.phases.<phase>` holds: one phase on its own.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "scientificPhase")]
pub struct PhaseFigures {
    /// The phase ran to its end.
    pub complete: bool,
    /// Why it stopped early (absent when it did not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When it started (RFC 3339).
    pub started_at: String,
    /// Its elapsed time (s).
    pub elapsed_s: f64,
    /// Requests of its data op done.
    pub requests: u64,
    /// Bytes they moved (B).
    pub bytes: u64,
    /// Its figure, in MB/s (10^6 B/s).
    pub mb_per_s: f64,
    /// Its share of time inside I/O calls.
    pub io_time_fraction: f64,
    /// User CPU (s).
    pub cpu_user_s: f64,
    /// System CPU (s).
    pub cpu_sys_s: f64,
    /// Latency of one request (ns).
    #[schemars(with = "LatencyRef")]
    pub latency_ns: LatencySummary,
    /// The timed fsync at the end of the write phase, when there was one (ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsync_ns: Option<u64>,
    /// Its summary, as a result's.
    #[schemars(with = "SummaryRef")]
    pub summary: Summary,
    /// Its op kinds, as a result's.
    #[schemars(with = "OpsRef")]
    pub ops: BTreeMap<String, OpSummary>,
    /// Its operations in each second.
    pub ops_per_second: Vec<u64>,
}

impl PhaseFigures {
    /// The phase as a result of its own, for the report's tables.
    pub fn result(&self) -> RunResult {
        RunResult {
            complete: self.complete,
            error: self.error.clone(),
            elapsed_s: self.elapsed_s,
            summary: self.summary.clone(),
            ops: self.ops.clone(),
            timeseries: Series {
                ops: self.ops_per_second.clone(),
                ..Default::default()
            },
            ..Default::default()
        }
    }
}

/// Types of the result schema's own, by reference: the figures point at
/// the definitions the rest of a result uses.
macro_rules! schema_ref {
    ($name:ident, $schema:tt) => {
        struct $name;

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn inline_schema() -> bool {
                true
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!($schema)
            }
        }
    };
}

schema_ref!(LatencyRef, { "$ref": "#/$defs/latency" });
schema_ref!(SummaryRef, { "$ref": "#/$defs/summary" });
schema_ref!(OpsRef, {
    "type": "object",
    "additionalProperties": { "$ref": "#/$defs/opSummary" }
});

fn phase_figures(p: &PhaseResult) -> PhaseFigures {
    let r = &p.result;
    let data = r.ops.get(p.phase.name());
    PhaseFigures {
        complete: r.complete,
        error: r.error.clone(),
        started_at: r.started_at.clone(),
        elapsed_s: r.elapsed_s,
        requests: data.map_or(0, |o| o.count),
        bytes: data.map_or(0, |o| o.bytes),
        mb_per_s: p.mb_per_s,
        io_time_fraction: r.summary.io_time_fraction,
        cpu_user_s: r.summary.cpu_user_s,
        cpu_sys_s: r.summary.cpu_sys_s,
        latency_ns: data.map(|o| o.latency_ns.clone()).unwrap_or_default(),
        fsync_ns: r.ops.get("fsync").map(|o| o.latency_ns.max),
        summary: r.summary.clone(),
        ops: r.ops.clone(),
        ops_per_second: r.timeseries.ops.clone(),
    }
}

/// The scientific workloads, typed: their plan, figures and report.
pub struct Scientific;

impl crate::suites::Benchmark for Scientific {
    const NAME: &'static str = "scientific";
    type Plan = Plan;
    type Figures = Figures;
    fn classic(plan: &Plan, figures: &Figures, result: &RunResult) -> String {
        report::render(plan, figures, result)
    }
}

/// The phases' outcomes as one: counts, bytes and histograms add; elapsed
/// and CPU time are the sums of the timed phases (the untimed work between
/// them is left out); each phase's time series follows the one before it,
/// shifted by its elapsed time. Complete when every phase is.
pub fn merge(parts: Vec<Outcome>) -> Outcome {
    let mut stats = WorkerStats::default();
    let mut elapsed = Duration::ZERO;
    let mut cpu = CpuTimes::default();
    let mut complete = true;
    let mut interrupted = false;
    let mut error = None;
    let mut failure = None;
    let (mut workers, mut worker_ns) = (1, 0u128);
    let mut engine_modes = Vec::new();
    let mut machine = crate::measure::machine::MachineLoad::default();
    for p in parts {
        machine.add(&p.machine);
        if engine_modes.is_empty() {
            engine_modes = p.engine_modes;
        }
        stats.merge_at(&p.stats, elapsed.as_nanos() as u64);
        workers = workers.max(p.workers);
        worker_ns += p.elapsed.as_nanos() * p.workers.max(1) as u128;
        elapsed += p.elapsed;
        cpu.user += p.cpu.user;
        cpu.sys += p.cpu.sys;
        cpu.max_rss_kib = cpu.max_rss_kib.max(p.cpu.max_rss_kib);
        complete &= p.complete;
        interrupted |= p.interrupted;
        if error.is_none() {
            failure = p.failures.into_iter().flatten().next();
            error = p.error;
        }
    }
    Outcome {
        stats,
        per_worker: Vec::new(),
        workers,
        worker_ns,
        elapsed,
        cpu,
        complete,
        interrupted,
        error,
        extras: vec![serde_json::Value::Null],
        failures: vec![failure],
        engine_modes,
        pinned: Vec::new(),
        machine,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_splits_into_whole_requests_and_one_short_one() {
        assert_eq!(split(100 << 20, 128 << 10), (800, 128 << 10));
        assert_eq!(split(4 << 20, 128 << 10), (32, 128 << 10));
        assert_eq!(split((1 << 20) + 4096, 128 << 10), (9, 4096));
        assert_eq!(split(1, 1), (1, 1));
        assert_eq!(split(5, 10), (1, 5));
        assert_eq!(split(0, 10), (0, 0));
    }

    #[test]
    fn workers_built_from_the_serialized_payloads_do_what_a_run_does() {
        let d = tempfile::tempdir().unwrap();
        let o = Options {
            size: (1 << 20) + 4096,
            ..Options::new(d.path())
        };
        let path = d.path().join(FILE_NAME);
        let ran = tempfile::tempdir().unwrap();
        let rep = run(
            &Options {
                dir: ran.path().to_path_buf(),
                ..o.clone()
            },
            &runner::NoProgress,
        )
        .unwrap();
        for (&phase, p) in o.phases.list().iter().zip(&rep.phases) {
            let bytes = serde_json::to_vec(&o.payload(phase, &path)).unwrap();
            let w = runner::workers::build::<Scientific>(&bytes, 0).unwrap();
            let alone = runner::run(StopRule::default(), vec![w], &runner::NoProgress);
            assert!(alone.complete, "{:?}", alone.error);
            for k in [OpKind::Write, OpKind::Fsync, OpKind::Read] {
                let n = alone.stats.kind(k).map_or(0, |s| s.count);
                let want = p.result.ops.get(k.name()).map_or(0, |s| s.count);
                assert_eq!(n, want, "{phase:?} {k:?}");
            }
        }
        assert_eq!(rep.result.ops["read"].count, 9);
        assert_eq!(rep.result.ops["fsync"].count, 1);
    }

    #[test]
    fn mb_per_s_is_decimal() {
        assert_eq!(mb_per_s(100_000_000, 2.0), 50.0);
        assert_eq!(mb_per_s(100 << 20, 1.0), 104.857_6);
        assert_eq!(mb_per_s(1, 0.0), 0.0);
    }

    #[test]
    fn bad_sizes_are_refused_with_the_flag_to_change() {
        let dir = Path::new(".");
        let with = |size, request, direct| Options {
            size,
            request,
            direct,
            ..Options::new(dir)
        };
        assert!(Options::new(dir).check().is_ok());
        assert!(with(0, 4096, false).check().unwrap_err().contains("--size"));
        assert!(
            with(4096, 0, false)
                .check()
                .unwrap_err()
                .contains("--request")
        );
        let e = with(4096, 8192, false).check().unwrap_err();
        assert!(e.contains("larger than --size"), "{e}");
        let e = with(4 << 30, 2 << 30, false).check().unwrap_err();
        assert!(e.contains("at most"), "{e}");
        // any sizes without O_DIRECT, whole 4 KiB blocks with it
        assert!(with(1_000_000, 100_000, false).check().is_ok());
        let e = with(1_000_000, 4096, true).check().unwrap_err();
        assert!(e.contains("--size") && e.contains("O_DIRECT"), "{e}");
        assert!(with(1 << 20, 100_000, true).check().is_err());
        assert!(with(1 << 20, 128 << 10, true).check().is_ok());
    }

    #[test]
    fn the_cache_state_follows_the_flags() {
        assert_eq!(Cache::of(false, false), Cache::Warm);
        assert_eq!(Cache::of(false, true), Cache::Cold);
        assert_eq!(Cache::of(true, false), Cache::Direct);
        assert_eq!(Cache::of(true, true), Cache::Direct);
        assert_eq!(serde_json::to_value(Cache::Cold).unwrap(), "cold");
    }

    #[test]
    fn dropping_caches_needs_root_and_a_writable_control_file() {
        assert!(drop_caches_refusal(0, true).is_none());
        let e = drop_caches_refusal(1000, true).unwrap();
        assert!(e.contains("root") && e.contains("--direct"), "{e}");
        let e = drop_caches_refusal(0, false).unwrap();
        assert!(e.contains("not writable") && e.contains("--direct"), "{e}");
        for e in [
            drop_caches_refusal(1000, false),
            drop_caches_refusal(0, false),
        ] {
            assert!(!e.unwrap().contains('\n'));
        }
    }

    fn outcome(kind: OpKind, n: u64, elapsed_ms: u64, at_ms: u64) -> Outcome {
        let mut s = WorkerStats::new(&[kind]);
        for i in 0..n {
            s.record(kind, 1000 + i, 4096, at_ms * 1_000_000);
        }
        Outcome {
            stats: s,
            per_worker: Vec::new(),
            workers: 1,
            worker_ns: 0,
            elapsed: Duration::from_millis(elapsed_ms),
            cpu: CpuTimes {
                user: Duration::from_millis(1),
                sys: Duration::from_millis(2),
                max_rss_kib: 10,
                ..Default::default()
            },
            complete: true,
            interrupted: false,
            error: None,
            extras: vec![serde_json::Value::Null],
            failures: vec![None],
            engine_modes: Vec::new(),
            pinned: Vec::new(),
            machine: Default::default(),
        }
    }

    #[test]
    fn phases_merge_without_double_counting() {
        let w = outcome(OpKind::Write, 10, 1500, 1200);
        let r = outcome(OpKind::Read, 4, 300, 100);
        let m = merge(vec![w, r]);
        assert!(m.complete);
        assert_eq!(m.elapsed, Duration::from_millis(1800));
        assert_eq!(m.cpu.user, Duration::from_millis(2));
        assert_eq!(m.cpu.sys, Duration::from_millis(4));
        assert_eq!(m.stats.kind(OpKind::Write).unwrap().count, 10);
        assert_eq!(m.stats.kind(OpKind::Read).unwrap().count, 4);
        assert_eq!(m.stats.total_ops(), 14);
        let io: u128 =
            (0..10).map(|i| 1000 + i).sum::<u128>() + (0..4).map(|i| 1000 + i).sum::<u128>();
        assert_eq!(m.stats.io_ns, io);
        // the reads (at 0.1 s of their phase) land after the writes' 1.5 s
        assert_eq!(m.stats.series.ops(), &[0, 14]);
        let r = outcome(OpKind::Read, 4, 300, 100);
        let m = merge(vec![outcome(OpKind::Write, 2, 2500, 100), r]);
        assert_eq!(m.stats.series.ops(), &[2, 0, 4]);
        // a phase cut short makes the whole incomplete
        let mut cut = outcome(OpKind::Write, 1, 10, 0);
        cut.complete = false;
        cut.interrupted = true;
        let m = merge(vec![cut]);
        assert!(!m.complete && m.interrupted);
    }
}
