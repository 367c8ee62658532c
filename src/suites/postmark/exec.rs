//! The PostMark executor: performs a [`Plan`] on disk through an engine,
//! times every operation, and turns the run into PostMark's report and a
//! [`RunResult`].
//!
//! A run works only inside directories it creates: for every `set location`
//! entry (or the current directory when there is none) one work directory
//! `LOCATION/iogauge-postmark-<pid>-<n>/` ([`WorkDir`]), which takes the
//! place of the location in PostMark's file names (`<work>/[s<k>/]<number>`)
//! and is removed with everything in it when the run ends, however it ends.
//!
//! Each stream is one [`runner::Worker`], built from a [`Streams`] payload
//! (the configuration, the engine, the stream's directories, which the
//! untimed [`prepare`] makes): it walks its plan op by op, prints
//! PostMark's progress output (stream 0 only), and records the latency of
//! every create, read, append and delete (open to close) and of every whole
//! transaction, on the nanosecond clock. File names are built in one
//! reusable buffer; the data written is PostMark's text source, block `k`
//! of a write from source offset `k·write_block`, copied into the engine's
//! buffer slot when the slot does not hold it already.
//!
//! Buffered mode (`set buffering true`) uses the `buffered` engine (C's
//! stdio: `fopen "w"` / `"r"` / `"a"`, whole-buffer system calls);
//! `set buffering false` uses `sync` (`open`, `read(2)`/`write(2)`, no lseek
//! for sequential transfers). Appends go through files opened with
//! `O_APPEND`: the kernel puts the data at the end, so no lseek is issued.
//!
//! PostMark counts the bytes it means to transfer; when a transfer fails or
//! falls short (out of space), every byte count of the run (PostMark's
//! report, iogauge's additions, the result) is what was really read and
//! written instead, the size of a file a failed write left being taken from
//! the file system, and iogauge's additions say that the run failed.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::mem::ManuallyDrop;
use std::ops::Range;
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::engine::{Choice, EngineSpec, FileId, OpenHow, Req};
use crate::measure::clock::now_ns;
use crate::measure::{Direction, OpKind};
use crate::report::RunResult;
use crate::runner::workdir::io_reason;
use crate::runner::{
    self, Ctx, Io, NoProgress, NoWatch, Placement, StopRule, Transactions, Tx, Worker,
};
use crate::session::{Session, Setup};
use crate::suites::postmark::config::Config;
use crate::suites::postmark::plan::{Clock, FileRef, Op, Plan, RunSummary};
use crate::suites::postmark::report::ReportTimes;
use crate::suites::postmark::{Counts, Figures, PostMark, Rates, StreamFigures};

/// The op kinds a PostMark stream records.
pub const KINDS: [OpKind; 5] = [
    OpKind::Create,
    OpKind::Read,
    OpKind::Append,
    OpKind::Delete,
    OpKind::Transaction,
];

/// How a run is done, beyond PostMark's own configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecOptions {
    /// Independent PostMark streams run at once (1 = PostMark itself).
    pub threads: usize,
    /// Engine instead of the one `set buffering` selects.
    pub engine: Option<Choice>,
    /// Where runs go when the configuration sets no location (`--dir`;
    /// PostMark's own default is the current directory).
    pub default_location: Option<PathBuf>,
    /// `--check`: each `run` is checked ([`check`]), not performed; no
    /// file is written and no `!` command run.
    pub check_only: bool,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            threads: 1,
            engine: None,
            default_location: None,
            check_only: false,
        }
    }
}

impl ExecOptions {
    /// The engine a run of `cfg` uses: `buffered` for `set buffering true`,
    /// `sync` for `false`, unless overridden.
    pub fn engine(&self, cfg: &Config) -> Choice {
        match self.engine {
            Some(e) => e,
            None if cfg.buffered => Choice::BUFFERED,
            None => Choice::SYNC,
        }
    }
}

/// A run that could not start because of what it was asked to do (a
/// location that is missing or not writable, no space, a configuration the
/// simulator refuses). The text is a PostMark-style `Error: ...` line.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// The seed of stream `k`: the configured seed for stream 0, then the next
/// seeds in turn (wrapping within 1..=2^31-1, PostMark's valid seeds).
pub fn stream_seed(base: i32, k: usize) -> i32 {
    let span = i64::from(i32::MAX);
    ((i64::from(base) - 1 + k as i64) % span + 1) as i32
}

/// The configuration stream `k` runs: `cfg` with its own seed.
pub fn stream_config(cfg: &Config, k: usize) -> Config {
    Config {
        seed: stream_seed(cfg.seed, k),
        ..cfg.clone()
    }
}

/// A clock reading at one of PostMark's four `time()` points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// The monotonic clock, in ns.
    pub ns: u64,
    /// `time()`: whole seconds since the epoch, as PostMark reads them.
    pub secs: i64,
}

impl Mark {
    fn now() -> Mark {
        // SAFETY: time(NULL) only returns the current time.
        let secs = unsafe { libc::time(std::ptr::null_mut()) } as i64;
        Mark { ns: now_ns(), secs }
    }
}

/// What one stream did: what its worker hands back when it finishes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StreamReport {
    /// Stream number (0-based).
    pub stream: usize,
    /// Its seed.
    pub seed: i32,
    /// PostMark's counters.
    pub summary: RunSummary,
    /// t0..t3 (`None` for the points the stream did not reach).
    pub marks: [Option<Mark>; 4],
    /// The plan ran to its end (not stopped by a signal or an error).
    pub finished: bool,
    /// Opens, removes, reads and writes that failed.
    pub io_errors: u64,
    /// The first of them.
    pub first_error: Option<String>,
    /// One of them was "No space left on device" (or "Disk quota exceeded").
    pub out_of_space: bool,
    /// The bytes PostMark meant to write (and read); `summary` holds those
    /// really written, which are fewer when writes failed.
    pub planned_bytes_written: u64,
    pub planned_bytes_read: u64,
}

impl StreamReport {
    fn all_marks(&self) -> Option<[Mark; 4]> {
        let [a, b, c, d] = self.marks;
        Some([a?, b?, c?, d?])
    }
}

/// Exact phase lengths in seconds, from the nanosecond clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Phases {
    /// t3 - t0: creation, transactions and deletion.
    pub elapsed_s: f64,
    /// t1 - t0: the initial creations.
    pub creation_s: f64,
    /// t2 - t1: the transactions.
    pub transactions_s: f64,
    /// t3 - t2: the final deletions.
    pub deletion_s: f64,
}

impl Phases {
    fn from_marks(m: &[Mark; 4]) -> Phases {
        let s = |a: Mark, b: Mark| a.ns.saturating_sub(b.ns) as f64 / 1e9;
        Phases {
            elapsed_s: s(m[3], m[0]),
            creation_s: s(m[1], m[0]),
            transactions_s: s(m[2], m[1]),
            deletion_s: s(m[3], m[2]),
        }
    }
}

/// Everything one `run` produced.
#[derive(Debug)]
pub struct RunOutput {
    /// The result (`--json`), from which the report is rendered.
    pub result: RunResult,
    /// Each stream.
    pub streams: Vec<StreamReport>,
    /// PostMark's counters over all streams (stream 0's alone with one stream).
    pub summary: RunSummary,
    /// A signal stopped the run.
    pub interrupted: bool,
}

/// Run `cfg` once, silently, and return its result: the entry point for
/// `iogauge survey`. Locations must exist and be writable (set one with
/// `set location` or `cfg.locations`; none means the current directory).
/// Problems with the request are [`crate::error::UsageError`]s.
pub fn measure(cfg: &Config, opts: &ExecOptions) -> Result<RunResult> {
    match run(cfg, opts, None) {
        Ok(out) => Ok(out.result),
        Err(e) => match e.downcast::<Refused>() {
            Ok(r) => Err(crate::error::UsageError::new(format!("postmark: {}", r.0)).into()),
            Err(e) => Err(e),
        },
    }
}

/// Check a `run` of `cfg` as [`run`] does before it starts (the
/// configuration, the memory of the file tables, each location and its
/// space), and do nothing: `iogauge postmark --check`.
pub fn check(cfg: &Config, opts: &ExecOptions) -> Result<()> {
    setup_of(cfg, opts)?.check().map_err(refused)
}

/// A set-up refusal as PostMark's `Error: ...` line.
fn refused(e: anyhow::Error) -> anyhow::Error {
    match e.downcast::<crate::error::UsageError>() {
        Ok(u) => anyhow::Error::new(Refused(u.0)),
        Err(e) => e,
    }
}

/// What the simulator refuses, then the run's set-up: its locations, each
/// with its share of the space.
fn setup_of(cfg: &Config, opts: &ExecOptions) -> Result<Setup> {
    let threads = opts.threads.max(1);
    let engine = opts.engine(cfg);
    Plan::check(cfg).map_err(|e| Refused(format!("Error: {e}")))?;
    let table = Plan::memory(cfg).saturating_mul(threads as u64);
    let avail = crate::env::mem_available();
    if avail > 0 && table > avail / 2 {
        return Err(Refused(format!(
            "Error: the file table{} of {} files and the text source take {} of memory, more than half of the {} available; use a smaller 'set number' or 'set size'",
            if threads > 1 { "s" } else { "" },
            cfg.number,
            crate::units::fmt_bytes(table),
            crate::units::fmt_bytes(avail)
        ))
        .into());
    }
    let parents: Vec<(String, PathBuf)> = if cfg.locations.is_empty() {
        match &opts.default_location {
            Some(d) => vec![(d.display().to_string(), d.clone())],
            None => vec![(".".to_string(), PathBuf::from("."))],
        }
    } else {
        cfg.locations
            .iter()
            .map(|l| (l.path.clone(), PathBuf::from(&l.path)))
            .collect()
    };
    // each location gets its share of the files, by weight
    let need = space_needed(cfg).saturating_mul(threads as u64);
    let total_weight: i64 = cfg.locations.iter().map(|l| i64::from(l.weight)).sum();
    let share = |i: usize| match cfg.locations.get(i) {
        Some(l) if total_weight > 0 => {
            (need as f64 * f64::from(l.weight) / total_weight as f64).ceil() as u64
        }
        _ => need,
    };
    let label = |name: &str| {
        format!(
            "Error: cannot use location '{}':",
            crate::error::shown(name)
        )
    };
    let mut setup = Setup::new("postmark", &parents[0].1)
        .label(&label(&parents[0].0))
        .data(share(0))
        .fake(engine.is_fake())
        .workers(threads, 1, false);
    for (i, (name, p)) in parents.iter().enumerate().skip(1) {
        setup = setup.also_workdir(p, &label(name), share(i));
    }
    Ok(setup)
}

/// What every stream of a run is built from: PostMark's variables, the
/// engine, each stream's directories (made by [`prepare`]), and where
/// stream 0 prints PostMark's progress output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Streams {
    /// The run's configuration; stream `k` runs it with its own seed
    /// ([`stream_config`]).
    pub config: Config,
    pub engine: Choice,
    /// Stream `k`'s roots: its directory in each location, in `set
    /// location` order.
    pub roots: Vec<Vec<PathBuf>>,
    /// The descriptor stream 0 writes its progress output to (`Creating
    /// files...Done`, the dots), open for the whole run (a worker process
    /// must inherit it); `None` for a silent run.
    pub say: Option<RawFd>,
    /// The job's number of this payload's stream 0: under MPI, rank r's
    /// streams are r·T … r·T+T−1 of the job's R·T (seeds, reports), as
    /// `--threads R·T` would number them on one machine; 0 otherwise.
    #[serde(default)]
    pub first: usize,
}

/// Each stream is built alone from the payload: streams share nothing.
impl runner::Workers for PostMark {
    const KIND: &'static str = "postmark";
    type Payload = Streams;
    type Worker = Stream;
    fn workers(p: &Streams, range: Range<usize>) -> Result<Vec<Stream>> {
        let layout = Layout::of(&p.config);
        range.map(|k| Stream::of(p, &layout, k)).collect()
    }
}

/// Perform one `run` of `cfg`. Stream 0 writes PostMark's progress output
/// (`Creating files...Done`, the dots, ...) to the descriptor `say`. The
/// report is not printed: it is in the returned [`RunOutput`].
pub fn run(cfg: &Config, opts: &ExecOptions, say: Option<RawFd>) -> Result<RunOutput> {
    let threads = opts.threads.max(1);
    let engine = opts.engine(cfg);
    let setup = setup_of(cfg, opts)?;
    let mut session = setup.begin().map_err(refused)?;
    let work_dirs = work_dirs(&session);
    let streams = prepare(cfg, engine, &work_dirs, threads, say)?;
    let mut outcome = runner::run_workers::<PostMark>(
        StopRule::default(),
        &streams,
        threads,
        Placement::Threads,
        &NoProgress,
        &NoWatch,
    )?;

    // rank 0 of an MPI job reports the job's streams, every rank's
    let streams = stream_reports(&outcome, cfg, threads * crate::cluster::merged_ranks());
    let summary = aggregate_summary(&streams);
    let marks = aggregate_marks(&streams);
    let finished = streams.iter().all(|s| s.finished);
    let interrupted = outcome.interrupted;
    if let Some(m) = &marks {
        // The result's elapsed time is PostMark's: t0 to t3.
        outcome.elapsed = Duration::from_nanos(m[3].ns.saturating_sub(m[0].ns));
    }
    let plan = super::Plan {
        config: cfg.clone(),
        threads,
        engine,
        work_dirs: work_dirs.iter().map(|p| p.display().to_string()).collect(),
    };
    session.result_mut().config = serde_json::to_value(&plan).unwrap_or_default();
    let mut result = session.finish(&outcome);
    fix_write_bytes(&mut result, &outcome);
    if result.error.is_none() {
        result.error = run_error(&streams, &summary);
    }
    result.complete = !interrupted && finished && result.error.is_none();
    // PostMark prints its report when every stream reached its end
    let report = marks.filter(|_| finished && !interrupted);
    result.set_figures(&figures(&streams, &summary, marks, report));

    Ok(RunOutput {
        result,
        streams,
        summary,
        interrupted,
    })
}

/// The session's work directories, as PostMark names them: relative to
/// the cwd when no location is set, as PostMark's are.
fn work_dirs(session: &Session) -> Vec<PathBuf> {
    session
        .dirs()
        .iter()
        .map(|p| p.strip_prefix(".").unwrap_or(p).to_path_buf())
        .collect()
}

/// The untimed prepare: each stream's directories in the work directories,
/// and what the streams are built from. PostMark's own file set is created
/// by the streams, timed as PostMark times it.
fn prepare(
    cfg: &Config,
    engine: Choice,
    work_dirs: &[PathBuf],
    threads: usize,
    say: Option<RawFd>,
) -> Result<Streams> {
    Ok(Streams {
        config: cfg.clone(),
        engine,
        roots: stream_roots(work_dirs, threads)?,
        say,
        first: crate::cluster::rank() * threads,
    })
}

/// Each stream's roots: the work directories, or a directory per stream in
/// each.
fn stream_roots(work_dirs: &[PathBuf], threads: usize) -> Result<Vec<Vec<PathBuf>>> {
    let mut roots: Vec<Vec<PathBuf>> = Vec::with_capacity(threads);
    for k in 0..threads {
        let mut r = Vec::with_capacity(work_dirs.len());
        for w in work_dirs {
            if threads == 1 {
                r.push(w.clone());
            } else {
                let d = w.join(format!("stream{k}"));
                std::fs::create_dir(&d).map_err(|e| {
                    anyhow::anyhow!("cannot create the stream directory {}: {e}", d.display())
                })?;
                r.push(d);
            }
        }
        roots.push(r);
    }
    Ok(roots)
}

/// What each stream handed back; a stream that never reported (its worker
/// never ran, or failed) did nothing of its plan.
fn stream_reports(outcome: &runner::Outcome, cfg: &Config, threads: usize) -> Vec<StreamReport> {
    let mut records = outcome.records::<StreamReport>().into_iter();
    (0..threads)
        .map(|k| {
            records.next().flatten().unwrap_or_else(|| StreamReport {
                stream: k,
                seed: stream_seed(cfg.seed, k),
                summary: Plan::new(&stream_config(cfg, k))
                    .map(|p| *p.summary())
                    .expect("the plan was made before"),
                marks: [None; 4],
                finished: false,
                io_errors: 0,
                first_error: None,
                out_of_space: false,
                planned_bytes_written: 0,
                planned_bytes_read: 0,
            })
        })
        .collect()
}

/// Why a run failed though the session saw no error: I/O errors, or out
/// of files.
fn run_error(streams: &[StreamReport], summary: &RunSummary) -> Option<String> {
    let io_errors: u64 = streams.iter().map(|s| s.io_errors).sum();
    let out_of_space = streams.iter().any(|s| s.out_of_space);
    if let Some(first) = streams.iter().find_map(|s| s.first_error.clone()) {
        Some(format!(
            "{}{io_errors} I/O error(s); the first: {first}",
            if out_of_space { "out of space: " } else { "" }
        ))
    } else if summary.out_of_files {
        Some(
            "out of files: for this workload, either increase the number of files or decrease the number of transactions"
                .into(),
        )
    } else {
        None
    }
}

/// The run's figures: PostMark's counters over all streams, the rates over
/// the phases (`marks`), and what PostMark's report divides when it prints
/// one (`report`: the marks of a run that reached its end).
fn figures(
    streams: &[StreamReport],
    summary: &RunSummary,
    marks: Option<[Mark; 4]>,
    report: Option<[Mark; 4]>,
) -> Figures {
    Figures {
        counts: Counts::of(summary),
        transactions: summary.transactions,
        transactions_done: summary.transactions_done,
        out_of_files: summary.out_of_files,
        rates: marks.map(|m| rates(summary, &Phases::from_marks(&m))),
        streams: (streams.len() > 1).then(|| streams.iter().map(stream_figures).collect()),
        io_errors: streams.iter().map(|s| s.io_errors).sum(),
        out_of_space: streams.iter().any(|s| s.out_of_space),
        planned_bytes_written: streams.iter().map(|s| s.planned_bytes_written).sum(),
        report: report.map(|m| super::ReportFigures {
            bytes_read: summary.bytes_read,
            bytes_written: summary.bytes_written,
            times: ReportTimes::from_timestamps(m[0].secs, m[1].secs, m[2].secs, m[3].secs),
        }),
    }
}

/// The largest single transfer of a run: a read is at most one read block,
/// a write at most one write block, and neither is ever longer than H.
fn max_transfer(cfg: &Config) -> usize {
    let longest = cfg.read_block.max(cfg.write_block).min(cfg.size_high);
    longest.max(1) as usize
}

/// How the engine's buffer slots hold the data. PostMark writes block `k`
/// of every write from offset `k·write_block` of its text source; when the
/// blocks of the longest write fit in a few slots, slot `k` holds source
/// block `k` for the whole run and reads use one more slot, so no byte is
/// copied before a write. Otherwise (tiny write blocks, huge files) one
/// slot serves all, and each block is copied into it before its write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    /// Bytes per slot: the longest transfer.
    slot_len: usize,
    /// Slots holding source blocks (0: copy each block into slot 0).
    source_blocks: usize,
}

/// Slots at most, and bytes at most, for the copy-free layout.
const MAX_SOURCE_SLOTS: usize = 1024;
const MAX_SOURCE_BYTES: usize = 64 << 20;

impl Layout {
    fn of(cfg: &Config) -> Layout {
        let slot_len = max_transfer(cfg);
        let wb = cfg.write_block.max(1) as usize;
        // writes are shorter than H: blocks 0..=(H-1)/wb
        let blocks = (cfg.size_high.max(1) as usize - 1) / wb + 1;
        let per_slot = slot_len.max(4096).next_multiple_of(4096);
        let fits = blocks < MAX_SOURCE_SLOTS && (blocks + 1) * per_slot <= MAX_SOURCE_BYTES;
        Layout {
            slot_len,
            source_blocks: if fits { blocks } else { 0 },
        }
    }

    /// Buffer slots the engine needs.
    fn slots(&self) -> u16 {
        (self.source_blocks + 1) as u16
    }

    /// The slot reads go to.
    fn read_slot(&self) -> u16 {
        self.source_blocks as u16
    }

    /// Fill the source slots of `engine`.
    fn load(&self, engine: &mut Io, source: &[u8], write_block: usize) {
        for k in 0..self.source_blocks {
            let off = k * write_block;
            let take = write_block.min(source.len() - off).min(self.slot_len);
            engine.buf_mut(k as u16)[..take].copy_from_slice(&source[off..off + take]);
        }
    }
}

/// The engine of stream `k`, its slots loaded with the text source.
fn stream_engine(
    engine: Choice,
    layout: &Layout,
    cfg: &Config,
    plan: &Plan,
    k: usize,
) -> Result<Io> {
    // One operation in flight: PostMark's stream is ordered (a file is
    // created, written, read and deleted in the order drawn). The slots
    // only hold the source blocks.
    let mut engine = Io::new(
        &EngineSpec::new(engine),
        layout.slots(),
        layout.slot_len,
        k as u64,
    )?;
    layout.load(&mut engine, plan.source(), cfg.write_block.max(1) as usize);
    Ok(engine)
}

/// What a run may need on disk at most, per stream: the initial pool at its
/// largest (N files of up to H bytes, each taking whole 4 KiB blocks).
pub fn space_needed(cfg: &Config) -> u64 {
    let per_file = (cfg.size_high.max(1) as u64).next_multiple_of(4096);
    cfg.number.max(0) as u64 * per_file
}

/// Builds PostMark's file names under the stream's roots in one reusable
/// buffer: `<root>/[s<k>/]<number>`.
struct Names {
    roots: Vec<Vec<u8>>,
    buf: Vec<u8>,
}

impl Names {
    fn new(roots: &[PathBuf]) -> Names {
        let roots: Vec<Vec<u8>> = roots
            .iter()
            .map(|r| {
                let mut v = r.as_os_str().as_bytes().to_vec();
                v.push(b'/');
                v
            })
            .collect();
        let longest = roots.iter().map(Vec::len).max().unwrap_or(0);
        Names {
            roots,
            buf: Vec::with_capacity(longest + 32),
        }
    }

    #[inline]
    fn path(&mut self, f: FileRef) -> &Path {
        self.buf.clear();
        let root = f.location.unwrap_or(0) as usize;
        self.buf.extend_from_slice(&self.roots[root]);
        if let Some(s) = f.subdir {
            self.buf.push(b's');
            crate::units::push_decimal(&mut self.buf, s);
            self.buf.push(b'/');
        }
        crate::units::push_decimal(&mut self.buf, f.number);
        Path::new(OsStr::from_bytes(&self.buf))
    }
}

/// One PostMark stream: its engine and its walk through its plan.
pub struct Stream {
    engine: Io,
    walk: Walk,
}

/// A stream's walk through its plan (its file names, roots and counters):
/// everything of a stream but its engine, which the runner lends to each
/// transaction.
struct Walk {
    index: usize,
    seed: i32,
    plan: Plan,
    names: Names,
    roots: Vec<PathBuf>,
    read_block: usize,
    write_block: usize,
    layout: Layout,
    create_how: OpenHow,
    append_how: OpenHow,
    /// Source offset of the block slot 0 holds (`usize::MAX`: none).
    slot_src: usize,
    /// Where PostMark's progress output goes (stream 0's, when shown).
    say: Option<ManuallyDrop<File>>,
    marks: [Option<Mark>; 4],
    io_errors: u64,
    first_error: Option<String>,
    out_of_space: bool,
    /// The real sizes of the files (by number) that differ from the plan's,
    /// because a write to them failed or fell short.
    short_files: HashMap<u32, u64>,
    /// When the transaction under way began (its time runs from the end of
    /// the one before, or from a phase mark or a progress dot).
    tx_start: u64,
    /// Whether the plan ran to its end, once the walk ended itself (the
    /// plan was over, or the run stopped between two ops).
    finished: Option<bool>,
    /// What the stream did, once its walk is over.
    ended: Option<StreamReport>,
}

/// Wrote a file: what the engine took, whether that fell short or an error
/// came, and the clock at the close.
struct Written {
    bytes: u64,
    short: bool,
    done: u64,
}

/// The transfers of `size` bytes in `block`-byte pieces: `(offset, length)`
/// of whole blocks, then the remainder, which may be 0 bytes (PostMark's
/// `read_file` and `write_blocks` loops).
fn pieces(size: usize, block: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..=size / block).map(move |k| {
        let off = k * block;
        (off, (size - off).min(block))
    })
}

/// Whether `op` belongs to a transaction that goes on after it (its read or
/// append, its create or delete; [`Op::TransactionEnd`] closes it).
fn within_transaction(op: Op) -> bool {
    matches!(
        op,
        Op::Read { .. }
            | Op::Append { .. }
            | Op::Create { initial: false, .. }
            | Op::Delete {
                final_phase: false,
                ..
            }
    )
}

impl Stream {
    /// Stream `k` of `p`: its plan, and its engine with its slots loaded.
    fn of(p: &Streams, layout: &Layout, k: usize) -> Result<Stream> {
        let roots = p
            .roots
            .get(k)
            .with_context(|| format!("no stream {k} in the postmark payload"))?;
        let job_k = p.first + k;
        let cfg = stream_config(&p.config, job_k);
        let plan = Plan::new(&cfg).map_err(|e| Refused(format!("Error: {e}")))?;
        let engine = stream_engine(p.engine, layout, &cfg, &plan, job_k)?;
        let say = p.say.filter(|_| job_k == 0);
        Ok(Stream::new(job_k, &cfg, plan, engine, roots, say))
    }

    fn new(
        index: usize,
        cfg: &Config,
        plan: Plan,
        engine: Io,
        roots: &[PathBuf],
        say: Option<RawFd>,
    ) -> Self {
        // fopen "w" / open(O_RDWR|O_CREAT, 0644); fopen "a" / open(O_RDWR|O_APPEND)
        let (create_how, append_how) = if engine.info().caps.buffered {
            (
                OpenHow {
                    read: false,
                    ..OpenHow::CREATE
                },
                OpenHow {
                    append: true,
                    create: true,
                    ..OpenHow::default()
                },
            )
        } else {
            (
                OpenHow {
                    create: true,
                    ..OpenHow::READ_WRITE
                },
                OpenHow {
                    append: true,
                    ..OpenHow::READ
                },
            )
        };
        let walk = Walk {
            index,
            seed: cfg.seed,
            plan,
            names: Names::new(roots),
            roots: roots.to_vec(),
            read_block: cfg.read_block.max(1) as usize,
            write_block: cfg.write_block.max(1) as usize,
            layout: Layout::of(cfg),
            create_how,
            append_how,
            slot_src: usize::MAX,
            // SAFETY: the payload's descriptor is open for the whole run;
            // ManuallyDrop leaves it open after.
            say: say.map(|fd| ManuallyDrop::new(unsafe { File::from_raw_fd(fd) })),
            marks: [None; 4],
            io_errors: 0,
            first_error: None,
            out_of_space: false,
            short_files: HashMap::new(),
            tx_start: 0,
            finished: None,
            ended: None,
        };
        Stream { engine, walk }
    }
}

impl Walk {
    /// Print `text` at once; a closed output (`| head`) must not stop the
    /// run half-way, so errors are ignored.
    fn say(&mut self, text: &str) {
        if let (Some(out), false) = (&mut self.say, text.is_empty()) {
            let _ = out.write_all(text.as_bytes());
        }
    }

    #[cold]
    fn io_error(&mut self, what: String, e: &std::io::Error) {
        if matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) {
            self.out_of_space = true;
        }
        self.io_errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some(what);
        }
    }

    /// PostMark's message for a failed open or remove, with the real path.
    #[cold]
    fn open_failed(&mut self, what: &str, file: FileRef, e: std::io::Error) {
        let path = self.names.path(file).display().to_string();
        let msg = match what {
            "delete" => format!("Error: Cannot delete '{path}'"),
            w => format!("Error: cannot open '{path}' for {w}"),
        };
        eprintln!("{msg}");
        self.io_error(format!("{msg}: {}", io_reason(&e)), &e);
        self.plan.fail_last();
    }

    /// Write `size` bytes of the text source from offset 0: whole write
    /// blocks, then the remainder (possibly 0 bytes), as `write_blocks` and
    /// `fwrite_blocks` do. Returns the bytes the engine took.
    #[inline]
    fn write_blocks(&mut self, io: &mut Io, fid: FileId, size: usize) -> u64 {
        let wb = self.write_block;
        let mut done = 0;
        for (k, (off, n)) in pieces(size, wb).enumerate() {
            let slot = if self.layout.source_blocks > 0 {
                k as u16
            } else {
                if n > 0 && self.slot_src != off {
                    let src = self.plan.source();
                    let take = wb.min(src.len() - off).min(self.layout.slot_len);
                    io.buf_mut(0)[..take].copy_from_slice(&src[off..off + take]);
                    self.slot_src = off;
                }
                0
            };
            let req = Req {
                slot,
                ..Req::write(fid, off as u64, n as u32)
            };
            match io.exec(req) {
                Ok(c) => done += c.bytes,
                Err(e) => self.io_error(
                    format!("writing {}: {}", io.path(fid).display(), io_reason(&e)),
                    &e,
                ),
            }
        }
        done
    }

    /// Open `file` as `how`, write `bytes` bytes of the text source to it
    /// and close it.
    #[inline]
    fn write_file(
        &mut self,
        io: &mut Io,
        file: FileRef,
        how: OpenHow,
        bytes: u32,
    ) -> std::io::Result<Written> {
        let fid = io.open(self.names.path(file), how)?;
        let errors = self.io_errors;
        let n = self.write_blocks(io, fid, bytes as usize);
        self.close(io, fid, file);
        Ok(Written {
            done: now_ns(),
            bytes: n,
            short: n != u64::from(bytes) || self.io_errors != errors,
        })
    }

    #[inline]
    fn close(&mut self, io: &mut Io, fid: FileId, file: FileRef) {
        if let Err(e) = io.close(fid) {
            let path = self.names.path(file).display().to_string();
            self.io_error(format!("closing {path}: {}", io_reason(&e)), &e);
        }
    }

    #[inline]
    fn create(&mut self, tx: &mut Tx, file: FileRef, size: u32) {
        let t = now_ns();
        match self.write_file(tx.io, file, self.create_how, size) {
            Ok(w) => {
                let bytes = if w.short {
                    self.on_disk(file, 0, w.bytes)
                } else {
                    w.bytes
                };
                tx.ctx.record_op(OpKind::Create, w.done - t, bytes, w.done);
            }
            Err(e) => self.open_failed("writing", file, e),
        }
    }

    #[inline]
    fn read(&mut self, tx: &mut Tx, file: FileRef, size: u32) {
        let t = now_ns();
        let path = self.names.path(file);
        match tx.io.open(path, OpenHow::READ) {
            Ok(fid) => {
                let slot = self.layout.read_slot();
                if slot == 0 {
                    self.slot_src = usize::MAX;
                }
                let mut bytes = 0;
                for (off, n) in pieces(size as usize, self.read_block) {
                    let req = Req {
                        slot,
                        ..Req::read(fid, off as u64, n as u32)
                    };
                    match tx.io.exec(req) {
                        Ok(c) => bytes += c.bytes,
                        Err(e) => self.io_error(
                            format!(
                                "reading {} at byte {off}: {}",
                                tx.io.path(fid).display(),
                                io_reason(&e)
                            ),
                            &e,
                        ),
                    }
                }
                self.close(tx.io, fid, file);
                let done = now_ns();
                tx.ctx.record_op(OpKind::Read, done - t, bytes, done);
            }
            Err(e) => self.open_failed("reading", file, e),
        }
    }

    #[inline]
    fn append(&mut self, tx: &mut Tx, file: FileRef, size: u32, bytes: u32) {
        let t = now_ns();
        // O_APPEND: the kernel writes at the end; offsets count from 0 so
        // that the engine issues no lseek.
        match self.write_file(tx.io, file, self.append_how, bytes) {
            Ok(w) => {
                let known = (!self.short_files.is_empty())
                    .then(|| self.short_files.get(&file.number).copied())
                    .flatten();
                let mut n = w.bytes;
                if w.short {
                    n = self.on_disk(file, known.unwrap_or(u64::from(size)), n);
                } else if let Some(was) = known {
                    self.short_files.insert(file.number, was + n);
                }
                tx.ctx.record_op(OpKind::Append, w.done - t, n, w.done);
            }
            Err(e) => self.open_failed("append", file, e),
        }
    }

    #[inline]
    fn delete(&mut self, tx: &mut Tx, file: FileRef) {
        let t = now_ns();
        let path = self.names.path(file);
        match tx.io.unlink(path) {
            Ok(()) => {
                let done = now_ns();
                if !self.short_files.is_empty() {
                    self.short_files.remove(&file.number);
                }
                tx.ctx.record_op(OpKind::Delete, done - t, 0, done);
            }
            Err(e) => self.open_failed("delete", file, e),
        }
    }

    /// After a write to `file` failed or fell short: how many bytes it
    /// really gained, from its size on disk now and its size `before` (a
    /// buffered engine may have taken bytes that its close then failed to
    /// write). The size is remembered while it differs from the plan's.
    /// `taken` (what the engine reported) when the file cannot be looked at.
    #[cold]
    fn on_disk(&mut self, file: FileRef, before: u64, taken: u64) -> u64 {
        match std::fs::symlink_metadata(self.names.path(file)) {
            Ok(m) => {
                self.short_files.insert(file.number, m.len());
                m.len().saturating_sub(before)
            }
            Err(_) => taken,
        }
    }

    /// `mkdir s0..s{count-1}` (0700) in every root, errors ignored.
    fn make_subdirs(&self, count: u32) {
        let mut b = std::fs::DirBuilder::new();
        b.mode(0o700);
        for r in &self.roots {
            for i in 0..count {
                let _ = b.create(r.join(format!("s{i}")));
            }
        }
    }

    /// `rmdir` them in the same order, errors ignored.
    fn remove_subdirs(&self, count: u32) {
        for r in &self.roots {
            for i in 0..count {
                let _ = std::fs::remove_dir(r.join(format!("s{i}")));
            }
        }
    }

    fn mark(&mut self, c: Clock) {
        let i = match c {
            Clock::Start => 0,
            Clock::TransactionsStart => 1,
            Clock::TransactionsEnd => 2,
            Clock::End => 3,
        };
        self.marks[i] = Some(Mark::now());
    }

    /// Do one op of the plan.
    fn perform(&mut self, tx: &mut Tx, op: Op) {
        match op {
            Op::Create { file, size, .. } => self.create(tx, file, size),
            Op::Read { file, size, .. } => self.read(tx, file, size),
            Op::Append {
                file, size, bytes, ..
            } => self.append(tx, file, size, bytes),
            Op::Delete { file, .. } => self.delete(tx, file),
            Op::TransactionEnd { dot, .. } => {
                let now = now_ns();
                tx.ctx
                    .record_op(OpKind::Transaction, now - self.tx_start, 0, now);
                self.tx_start = now;
                if dot {
                    self.say(".");
                    self.tx_start = now_ns();
                }
            }
            _ => {
                // PostMark reads t0 and t2 before printing, t1 and t3 after.
                let clock = op.clock();
                if let Some(c @ (Clock::Start | Clock::TransactionsEnd)) = clock {
                    self.mark(c);
                }
                self.say(op.output_before());
                match op {
                    Op::CreateSubdirectories { count } => self.make_subdirs(count),
                    Op::DeleteSubdirectories { count } => self.remove_subdirs(count),
                    _ => {}
                }
                self.say(op.output_after());
                if let Some(c @ (Clock::TransactionsStart | Clock::End)) = clock {
                    self.mark(c);
                    self.tx_start = now_ns();
                }
            }
        }
    }

    /// Write the stream's report down, once the walk is over.
    fn report(&mut self, ctx: &Ctx) {
        let finished = match self.finished {
            Some(f) => f,
            // The runner stopped the run between two transactions. PostMark's
            // loop draws the next op before it looks at the stop (and the
            // plan counts an op when the next is drawn): draw it too; the
            // plan was finished if there was none.
            None => self.plan.next().is_none(),
        };
        let planned = *self.plan.summary();
        self.ended = Some(StreamReport {
            stream: self.index,
            seed: self.seed,
            // the bytes really moved: what each op recorded (after a
            // failure, what the file system says it holds)
            summary: real_bytes(
                planned,
                ctx.stats.bytes(Direction::Read),
                ctx.stats.bytes(Direction::Write),
            ),
            planned_bytes_written: planned.bytes_written_exact,
            planned_bytes_read: planned.bytes_read_exact,
            marks: self.marks,
            finished,
            io_errors: self.io_errors,
            first_error: self.first_error.take(),
            out_of_space: self.out_of_space,
        });
    }
}

impl Transactions for Walk {
    /// One PostMark transaction (its read or append, its create or delete,
    /// its end), or one op outside the transactions: an initial creation, a
    /// final deletion, a phase's start or end.
    fn next(&mut self, tx: &mut Tx) -> Result<bool> {
        loop {
            let Some(op) = self.plan.next() else {
                self.finished = Some(true);
                return Ok(false);
            };
            // PostMark's loop looks at the stop before each op, inside a
            // transaction too
            if tx.ctx.stopped() {
                self.finished = Some(false);
                return Ok(false);
            }
            self.perform(tx, op);
            if !within_transaction(op) {
                return Ok(true);
            }
        }
    }
}

impl Worker for Stream {
    fn kinds(&self) -> &[OpKind] {
        &KINDS
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let Stream { engine, walk } = self;
        // Each file operation is timed whole (open to close): the engine's
        // own clock reads around every block would only add to it.
        crate::engine::untimed(|| {
            // One transaction at a time, one request in flight (depth 1):
            // PostMark's stream is ordered (a file is created, written, read
            // and deleted in the order drawn).
            walk.tx_start = now_ns();
            engine.transact(ctx, walk)?;
            walk.report(ctx);
            Ok(())
        })
    }

    /// The stream's [`StreamReport`] (null when its walk never ended).
    fn finish(&mut self) -> serde_json::Value {
        self.walk
            .ended
            .take()
            .and_then(|r| serde_json::to_value(r).ok())
            .unwrap_or_default()
    }
}

/// PostMark's counters with the bytes really read and written. They are
/// PostMark's own unless a transfer failed or fell short (out of space):
/// then every figure, PostMark's report included, counts what was really
/// done, not what the plan meant to do.
fn real_bytes(mut s: RunSummary, read: u64, written: u64) -> RunSummary {
    if s.bytes_read_exact != read {
        s.bytes_read_exact = read;
        s.bytes_read = read as f32;
    }
    if s.bytes_written_exact != written {
        s.bytes_written_exact = written;
        s.bytes_written = written as f32;
    }
    s
}

/// PostMark's counters summed over the streams.
fn aggregate_summary(streams: &[StreamReport]) -> RunSummary {
    let mut s = streams[0].summary;
    for o in &streams[1..] {
        let t = &o.summary;
        s.base_files += t.base_files;
        s.transactions += t.transactions;
        s.files_created += t.files_created;
        s.files_read += t.files_read;
        s.files_appended += t.files_appended;
        s.files_deleted += t.files_deleted;
        s.deleted_alone += t.deleted_alone;
        s.bytes_read_exact += t.bytes_read_exact;
        s.bytes_written_exact += t.bytes_written_exact;
        s.transactions_done += t.transactions_done;
        s.out_of_files |= t.out_of_files;
    }
    if streams.len() > 1 {
        s.bytes_read = s.bytes_read_exact as f32;
        s.bytes_written = s.bytes_written_exact as f32;
    }
    s
}

/// The phases over all streams: each starts when the first stream enters
/// it and ends when the last leaves it.
fn aggregate_marks(streams: &[StreamReport]) -> Option<[Mark; 4]> {
    let all: Vec<[Mark; 4]> = streams
        .iter()
        .map(StreamReport::all_marks)
        .collect::<Option<_>>()?;
    let first = |i: usize| {
        all.iter()
            .map(|m| m[i])
            .min_by_key(|m| m.ns)
            .unwrap_or_default()
    };
    let last = |i: usize| {
        all.iter()
            .map(|m| m[i])
            .max_by_key(|m| m.ns)
            .unwrap_or_default()
    };
    Some([first(0), last(1), last(2), last(3)])
}

/// `with_outcome` counts the bytes of writes and appends; a create writes too.
fn fix_write_bytes(result: &mut RunResult, outcome: &runner::Outcome) {
    let written: u64 = [OpKind::Create, OpKind::Append]
        .iter()
        .filter_map(|&k| outcome.stats.kind(k))
        .map(|k| k.bytes)
        .sum();
    result.summary.bytes_written = written;
    result.summary.write_bytes_per_s = if result.elapsed_s > 0.0 {
        written as f64 / result.elapsed_s
    } else {
        0.0
    };
}

fn per_s(n: f64, secs: f64) -> f64 {
    if secs > 0.0 { n / secs } else { 0.0 }
}

/// The exact times of a run and the rates over them.
fn rates(s: &RunSummary, p: &Phases) -> Rates {
    let tx = p.transactions_s;
    let created = f64::from(s.files_created);
    let base = f64::from(s.base_files);
    let deleted = f64::from(s.files_deleted);
    let alone = f64::from(s.deleted_alone);
    Rates {
        elapsed_s: p.elapsed_s,
        creation_s: p.creation_s,
        transactions_s: tx,
        deletion_s: p.deletion_s,
        transactions_per_s: per_s(f64::from(s.transactions_done), tx),
        files_created_per_s: per_s(created, p.elapsed_s),
        creation_files_per_s: per_s(base, p.creation_s),
        mixed_creation_files_per_s: per_s(created - base, tx),
        files_read_per_s: per_s(f64::from(s.files_read), tx),
        files_appended_per_s: per_s(f64::from(s.files_appended), tx),
        files_deleted_per_s: per_s(deleted, p.elapsed_s),
        deletion_files_per_s: per_s(alone, p.deletion_s),
        mixed_deletion_files_per_s: per_s(deleted - alone, tx),
        read_bytes_per_s: per_s(s.bytes_read_exact as f64, p.elapsed_s),
        write_bytes_per_s: per_s(s.bytes_written_exact as f64, p.elapsed_s),
    }
}

fn stream_figures(st: &StreamReport) -> StreamFigures {
    let s = &st.summary;
    let phases = st.all_marks().map(|m| Phases::from_marks(&m));
    StreamFigures {
        stream: st.stream,
        seed: st.seed,
        complete: st.finished && st.io_errors == 0 && !s.out_of_files,
        io_errors: st.io_errors,
        out_of_space: st.out_of_space,
        out_of_files: s.out_of_files,
        transactions_done: s.transactions_done,
        counts: Counts::of(s),
        elapsed_s: phases.map(|p| p.elapsed_s),
        creation_s: phases.map(|p| p.creation_s),
        transactions_s: phases.map(|p| p.transactions_s),
        deletion_s: phases.map(|p| p.deletion_s),
        transactions_per_s: phases.map(|p| per_s(f64::from(s.transactions_done), p.transactions_s)),
        creation_files_per_s: phases.map(|p| per_s(f64::from(s.base_files), p.creation_s)),
        deletion_files_per_s: phases.map(|p| per_s(f64::from(s.deleted_alone), p.deletion_s)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::postmark::command::parse_line;
    use crate::suites::postmark::config::Location;
    use crate::suites::postmark::plan::simulate;

    fn cfg(dir: &Path, lines: &[&str]) -> Config {
        let mut c = Config::default();
        for l in lines {
            parse_line(l).unwrap().apply(&mut c).unwrap();
        }
        c.locations = vec![Location {
            path: dir.display().to_string(),
            weight: 1,
        }];
        c
    }

    /// Run `lines` with `opts` in a new directory, which the run must leave
    /// empty.
    fn run_lines(lines: &[&str], opts: ExecOptions) -> (Config, RunOutput) {
        let dir = tempfile::tempdir().unwrap();
        let c = cfg(dir.path(), lines);
        let out = run(&c, &opts, None).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        (c, out)
    }

    fn on(engine: Choice) -> ExecOptions {
        ExecOptions {
            engine: Some(engine),
            ..Default::default()
        }
    }

    fn metric(r: &RunResult, name: &str) -> serde_json::Value {
        r.metrics.get(name).cloned().unwrap_or_default()
    }

    #[test]
    fn names_are_built_in_place() {
        let mut n = Names::new(&[PathBuf::from("/w/a"), PathBuf::from("b")]);
        let f = |location, subdir, number| FileRef {
            number,
            location,
            subdir,
        };
        assert_eq!(n.path(f(None, None, 17)), Path::new("/w/a/17"));
        assert_eq!(
            n.path(f(Some(1), Some(0), 4_000_000_000)),
            Path::new("b/s0/4000000000")
        );
        let cap = n.buf.capacity();
        assert_eq!(n.path(f(Some(0), Some(12), 0)), Path::new("/w/a/s12/0"));
        assert_eq!(n.buf.capacity(), cap, "no reallocation");
    }

    /// The streams' payload survives JSON, and each stream built alone
    /// from it, as a worker process builds it, does what it does among
    /// the threads: its plan, op for op.
    #[test]
    fn streams_are_built_from_the_payload() {
        let dir = tempfile::tempdir().unwrap();
        let c = cfg(
            dir.path(),
            &[
                "set number 20",
                "set transactions 50",
                "set subdirectories 2",
            ],
        );
        let work = [dir.path().to_path_buf()];
        let streams = prepare(&c, Choice::SYNC, &work, 2, None).unwrap();
        let bytes = serde_json::to_vec(&streams).unwrap();
        assert_eq!(serde_json::from_slice::<Streams>(&bytes).unwrap(), streams);
        let threads = runner::run_workers::<PostMark>(
            StopRule::default(),
            &streams,
            2,
            Placement::Threads,
            &NoProgress,
            &NoWatch,
        )
        .unwrap();
        let together = stream_reports(&threads, &c, 2);
        let count = |s: &crate::measure::WorkerStats, k| s.kind(k).map_or(0, |k| k.count);
        for (k, among) in together.iter().enumerate() {
            let w = runner::workers::build::<PostMark>(&bytes, k).unwrap();
            let alone = runner::run(StopRule::default(), vec![w], &NoProgress);
            let report = stream_reports(&alone, &stream_config(&c, k), 1).remove(0);
            let sim = simulate(&stream_config(&c, k)).unwrap();
            assert!(report.finished && among.finished);
            assert_eq!((report.stream, report.seed), (k, 42 + k as i32));
            assert_eq!(report.summary, sim);
            assert_eq!(among.summary, sim);
            for kind in KINDS {
                assert_eq!(
                    count(&alone.stats, kind),
                    count(&threads.per_worker[k], kind),
                    "stream {k} {kind:?}"
                );
            }
        }
        assert!(runner::workers::build::<PostMark>(&bytes, 2).is_err());
    }

    #[test]
    fn stream_seeds() {
        assert_eq!(stream_seed(42, 0), 42);
        assert_eq!(stream_seed(42, 3), 45);
        assert_eq!(stream_seed(i32::MAX, 0), i32::MAX);
        assert_eq!(stream_seed(i32::MAX, 1), 1);
        assert_eq!(stream_seed(i32::MAX - 1, 2), 1);
    }

    #[test]
    fn a_run_performs_the_plan_and_leaves_nothing() {
        for buffering in ["set buffering true", "set buffering false"] {
            let (c, out) = run_lines(
                &[
                    "set number 20",
                    "set transactions 50",
                    "set size 500 2000",
                    "set subdirectories 3",
                    buffering,
                ],
                ExecOptions::default(),
            );
            let sim = simulate(&c).unwrap();
            assert_eq!(out.summary, sim);
            assert!(out.result.complete, "{:?}", out.result.error);
            let r = &out.result;
            let count = |k: &str| r.ops.get(k).map_or(0, |o| o.count);
            assert_eq!(count("create"), sim.files_created as u64);
            assert_eq!(count("read"), sim.files_read as u64);
            assert_eq!(count("append"), sim.files_appended as u64);
            assert_eq!(count("delete"), sim.files_deleted as u64);
            assert_eq!(count("transaction"), 50);
            assert_eq!(r.summary.bytes_read, sim.bytes_read_exact);
            assert_eq!(r.summary.bytes_written, sim.bytes_written_exact);
            assert_eq!(metric(r, "bytes_written"), sim.bytes_written_exact);
            let (report, _) = crate::suites::postmark::reports(r).unwrap();
            assert!(report.starts_with("Time:\n"));
        }
    }

    /// The files hold PostMark's bytes: block k of a write comes from
    /// source offset k·write_block.
    #[test]
    fn files_hold_the_text_source() {
        let dir = tempfile::tempdir().unwrap();
        // write 100: one slot per source block; write 2: 1500 blocks, one
        // slot that each block is copied into
        for (engine, write) in [
            ("buffered", "set write 100"),
            ("sync", "set write 100"),
            ("psync", "set write 100"),
            ("buffered", "set write 2"),
            ("sync", "set write 2"),
        ] {
            let c = cfg(dir.path(), &["set number 3", "set size 1000 3000", write]);
            let layout = Layout::of(&c);
            assert_eq!(layout.source_blocks > 0, write.ends_with("100"), "{write}");
            let plan = Plan::new(&c).unwrap();
            let roots = vec![dir.path().to_path_buf()];
            let choice = Choice::parse(engine).unwrap();
            let eng = stream_engine(choice, &layout, &c, &plan, 0).unwrap();
            let Stream {
                engine: mut io,
                walk: mut s,
            } = Stream::new(0, &c, plan, eng, &roots, None);
            let source = s.plan.source().to_vec();
            // the initial creations only
            let mut creates = Vec::new();
            while let Some(op) = s.plan.next() {
                if let Op::Create { file, size, .. } = op {
                    let path = s.names.path(file).to_path_buf();
                    let fid = io.open(&path, s.create_how).unwrap();
                    s.write_blocks(&mut io, fid, size as usize);
                    s.close(&mut io, fid, file);
                    creates.push((path, size));
                }
                if matches!(op, Op::BeginTransactions) {
                    break;
                }
            }
            assert_eq!(creates.len(), 3);
            for (path, size) in creates {
                let data = std::fs::read(&path).unwrap();
                assert_eq!(data, &source[..size as usize], "{engine} {write}");
                std::fs::remove_file(path).unwrap();
            }
        }
    }

    /// Blocks larger than the files, and odd sizes, with every engine.
    #[test]
    fn blocks_larger_than_files() {
        for engine in ["buffered", "sync", "psync"] {
            let (c, out) = run_lines(
                &[
                    "set number 20",
                    "set transactions 100",
                    "set size 5000 9000",
                    "set read 100000",
                    "set write 70000",
                ],
                on(Choice::parse(engine).unwrap()),
            );
            assert!(out.result.complete, "{engine}: {:?}", out.result.error);
            assert_eq!(out.summary, simulate(&c).unwrap());
            assert_eq!(out.result.summary.bytes_read, out.summary.bytes_read_exact);
        }
    }

    #[test]
    fn missing_and_unusable_locations_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = cfg(dir.path(), &["set number 5", "set transactions 10"]);
        c.locations[0].path = dir.path().join("missing").display().to_string();
        let e = run(&c, &ExecOptions::default(), None).unwrap_err();
        let msg = e.downcast_ref::<Refused>().unwrap().to_string();
        assert!(msg.starts_with("Error: cannot use location '"), "{msg}");
        assert!(msg.ends_with("missing': does not exist"), "{msg}");
        std::fs::write(dir.path().join("file"), b"x").unwrap();
        c.locations[0].path = dir.path().join("file").display().to_string();
        let e = run(&c, &ExecOptions::default(), None).unwrap_err();
        assert!(e.to_string().ends_with("is not a directory"), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // too small for the pool: one colon after the name (issue 33: '::')
        let mut big = cfg(
            dir.path(),
            &["set number 1000000", "set size 1000000 1000000"],
        );
        big.locations[0].path = dir.path().display().to_string();
        let e = run(&big, &ExecOptions::default(), None).unwrap_err();
        let msg = e.downcast_ref::<Refused>().unwrap().to_string();
        assert!(
            msg.contains("': not enough space") && !msg.contains("::"),
            "{msg}"
        );
        // the survey's entry point: a usage error
        let e = measure(&c, &ExecOptions::default()).unwrap_err();
        assert!(e.downcast_ref::<crate::error::UsageError>().is_some());
    }

    #[test]
    fn threads_run_independent_streams() {
        let (c, out) = run_lines(
            &[
                "set number 30",
                "set transactions 100",
                "set subdirectories 2",
            ],
            ExecOptions {
                threads: 3,
                ..Default::default()
            },
        );
        assert!(out.result.complete);
        assert_eq!(out.streams.len(), 3);
        let mut created = 0;
        for (k, st) in out.streams.iter().enumerate() {
            let sim = simulate(&stream_config(&c, k)).unwrap();
            assert_eq!(st.summary, sim, "stream {k}");
            assert_eq!(st.seed, 42 + k as i32);
            created += sim.files_created;
        }
        assert_eq!(out.summary.files_created, created);
        assert_eq!(out.summary.transactions, 300);
        assert_eq!(out.result.ops["transaction"].count, 300);
        let list = metric(&out.result, "streams");
        assert_eq!(list.as_array().unwrap().len(), 3);
        let (_, additions) = crate::suites::postmark::reports(&out.result).unwrap();
        assert!(additions.contains("\n  stream "));
    }

    #[test]
    fn out_of_files_is_reported_and_has_no_postmark_report() {
        let (_, out) = run_lines(
            &[
                "set number 30",
                "set transactions 1000",
                "set bias read -1",
                "set bias create 0",
            ],
            ExecOptions::default(),
        );
        assert!(out.summary.out_of_files);
        assert!(
            crate::suites::postmark::reports(&out.result)
                .unwrap()
                .0
                .is_empty()
        );
        assert!(!out.result.complete);
        assert!(
            out.result
                .error
                .as_deref()
                .unwrap()
                .starts_with("out of files")
        );
    }

    #[test]
    fn the_null_engine_touches_no_file() {
        let (c, out) = run_lines(&["set number 50", "set transactions 100"], on(Choice::NULL));
        assert_eq!(out.summary, simulate(&c).unwrap());
        assert!(out.result.complete);
    }
}
