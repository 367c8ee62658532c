//! The runner of IOzone 3.489's single and auto modes: for each file and
//! record size of [`grid::runs`], the selected tests, each pass timed as
//! IOzone times it, into a [`Table`] of IOzone's figures and, per column,
//! iogauge's latency statistics.
//!
//! Each pass is one [`runner::run`] of one worker: the file is opened
//! before the timer starts (untimed), the worker's loop issues one
//! operation per record, and with `-e` the fsync, with `-c` the close,
//! fall inside the timing. Otherwise, as IOzone does, the file is synced
//! and closed after the timer stops. The figure is IOzone's: bytes over
//! seconds, in kB (`>> 10`) and rounded down; `-O` records per second;
//! `-N` microseconds per record.
//!
//! How each test reaches the kernel, as IOzone 3.489's Linux build does:
//! - write, rewrite, read, reread, random read and write, read backwards,
//!   record rewrite, stride read: lseek(2) and read(2)/write(2), through
//!   the engine the caller chooses ([`DEFAULT_ENGINE`] is IOzone's). The
//!   write pass makes a new file (the old one unlinked, then created
//!   before the timer) so block allocation is inside its timing.
//! - fwrite and fread: IOzone gives its stream a buffer of one record
//!   (`setvbuf(stream, buf, _IOFBF, reclen)`). glibc then writes one
//!   record out of every two straight from the caller's memory and copies
//!   the other into the stream buffer, which the next call writes out;
//!   it reads each record straight into the caller's memory. [`Fwrite`]
//!   does the same over the chosen engine (one write(2) of a record per
//!   record, half of them after a copy); fread is one read(2) per record.
//!   fopen(3) takes neither `-I` nor `-o`, so neither applies to them, and
//!   `-e` adds fflush and fsync to fwrite but only fflush to fread, which
//!   with an empty buffer issues no system call.
//! - pwrite and pread: pwrite(2)/pread(2) through the `psync` engine.
//! - pwritev and preadv (`-i 11`, `-i 12`): not compiled in IOzone
//!   3.489's Linux build (no HAVE_PREADV), whose code is HP-UX's, with an
//!   offset per vector. Here each call moves 16 records (fewer when the
//!   file or 16 MB is smaller) with one pwritev(2)/preadv(2); as in
//!   IOzone, 16 distinct records are drawn from MT19937-64 for each call
//!   (`create_list`) and the first gives the offset. Linux's calls are
//!   contiguous, so the records go to consecutive places from there; a
//!   start that would run past the file's end is pulled back so that the
//!   vector ends at the end (IOzone's Linux code, had it compiled, would
//!   grow the file and fail its reads). These two use the file directly
//!   (the engines have no vectored operation), and need a real engine.
//!
//! Around the passes, as IOzone 3.489 does in single and auto mode:
//! - `-U MOUNTPOINT`: before every pass of every test (IOzone's
//!   `purge_buffer_cache` at the top of each test's pass loop), untimed,
//!   the file system is unmounted and mounted again ([`Remount`]), so the
//!   pass finds none of the file in the page cache; a read pass then
//!   opens the file and reads its record 0 (untimed) as IOzone does.
//!   [`check_remount`] refuses a mount point that cannot work before any
//!   work; a remount that fails mid-run stops the run with the reason
//!   (the cell's file is still removed when the file system is mounted).
//! - `-p`: IOzone's `purgeit` before every record's operation, and
//!   before each record of a vector ([`CACHE_BYTES`],
//!   [`CACHE_LINE_BYTES`]): reads, a cache line apart, the part of a
//!   cache-sized region that maps onto the record's buffer, so that the
//!   operation copies from or into a buffer the cache no longer holds.
//! - `-+u`: each pass's CPU utilization, IOzone's `cpu_util`: the
//!   process's user + system time over the pass's wall time, in %
//!   (under getrusage's resolution the CPU time counts 0, and the wall
//!   time is at least the CPU time), kept in [`Row::cpu`] for the `-R`
//!   and `-b` reports' CPU sections.
//!
//! Where iogauge differs, and why:
//! - Without `-i 0` IOzone has no file for the other tests (it fails);
//!   iogauge writes the file untimed at the start of each cell.
//! - IOzone subtracts its timer's resolution from each time; iogauge's
//!   clock counts nanoseconds and subtracts nothing.
//! - IOzone reads backwards twice and reports the first pass only;
//!   iogauge reads once. Random read and write run even with `-+n`, as in
//!   IOzone.
//! - The read test's untimed first read (IOzone primes its caches with
//!   record 0, then seeks back) goes through a second descriptor, so the
//!   timed descriptor starts at offset 0 without a seek.
//! - `-p`: IOzone's purge runs inside its timing and is counted in its
//!   figures; iogauge times each purge and takes that time out of the
//!   pass's, so that a figure is the operations' own, on a cold buffer
//!   (two clock reads per record, only with `-p`). IOzone's purge reads
//!   malloc(3) memory it never writes, which Linux maps to its one shared
//!   zero page, so the lines it reads are those of a single page;
//!   iogauge writes its region before the run, so they are the region's.
//! - `-+u`: IOzone's CPU and wall times span the whole pass, the remount,
//!   open and untimed fsync and close included; iogauge's span the timed
//!   part, the part its figure counts.
//! - `-U`: IOzone runs `umount` and `mount` through system(3) (the
//!   mount point must be in /etc/fstab), retries the umount for hours
//!   and ignores a failed mount; iogauge calls umount2(2) and mount(2)
//!   with the source, type, flags and options /proc/self/mountinfo shows,
//!   retries for about 3 s, and stops on a failure.
//!
//! Latency: per column, the passes of every cell merged into one
//! [`WorkerStats`]. Per cell the table already holds the figures; a
//! latency distribution per cell would be 21 histograms for each of up to
//! 150 cells, for percentiles that mostly echo the figure. Merged, they
//! tell what an operation of each test costs over the grid (the time
//! series overlays the passes, each from its own start).

use std::collections::BTreeMap;
use std::io::{self, IoSlice, IoSliceMut};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};

use super::flags::{Config, Mode, Test, Unit};
use super::grid;
use super::offsets;
use super::remount::Remount;
use super::report::{self, Column, Row, Table, Units};
use super::stdio::Stream;
use super::throughput::{Need, make_io};
use crate::engine::{self, AlignedBuf, Choice, Completion, EngineSpec, FileId, OpenHow, Req};
use crate::measure::clock::now_ns;
use crate::measure::{CpuTimes, OpKind, WorkerStats};
use crate::runner::Io;
use crate::runner::{self, Ctx, NoProgress, StopRule, Tx, Worker, signals};
use crate::session::generic::VerifyPlan;
use crate::session::verified::CheckedSource;
use crate::verify::Pattern;
use crate::verify::track::{Geometry, Section, Tracker};
use crate::workload::mt64::Mt64;

/// The engine of IOzone's lseek + read/write tests.
pub const DEFAULT_ENGINE: Choice = Choice::SYNC;

/// Records per vectored call (IOzone's `PVECMAX`).
const PVECMAX: usize = 16;

/// Largest vectored transfer (IOzone's `MAXBUFFERSIZE`).
const MAX_VECTOR_BYTES: u64 = super::flags::MAX_RECORD_KB * 1024;

/// The processor cache `-p` purges, bytes (IOzone's `MY_CACHE_SIZE`;
/// iogauge does not take IOzone's `-S`).
pub const CACHE_BYTES: usize = 1 << 20;

/// The cache line `-p` steps by, bytes (IOzone's `MY_CACHE_LINE_SIZE`;
/// iogauge does not take IOzone's `-L`).
pub const CACHE_LINE_BYTES: usize = 32;

/// What a run of single or auto mode measured.
#[derive(Debug, Default)]
pub struct Outcome {
    /// IOzone's figures, one row per cell that ran (crossover placeholders
    /// included, as [`Table`] wants them).
    pub table: Table,
    /// Per column, the latency statistics of its passes over the grid.
    pub stats: BTreeMap<Column, WorkerStats>,
    /// Every cell ran to its end.
    pub complete: bool,
    /// Ctrl-C or SIGTERM stopped the run (the table holds what was
    /// measured before; the pass it cut short has no figure).
    pub interrupted: bool,
    /// The error that stopped the run, if one did.
    pub error: Option<String>,
    /// `-p`: how many times the processor cache was purged (once before
    /// each record, or each record of a vector).
    pub purges: u64,
    /// `-U`: how many times the mount point was unmounted and mounted
    /// again (once before each pass).
    pub remounts: u64,
    /// Per column, the timed part of its passes added up (`-p`'s purges
    /// taken out) and the CPU time over them.
    pub timed: BTreeMap<Column, (Duration, CpuTimes)>,
    /// How the engine of the passes was set up (io_uring's ring under
    /// `-H`/`-k`), from the first pass that says.
    pub engine_mode: Option<String>,
    /// `--verify`: what was written and checked over every cell.
    pub verify: Option<Section>,
}

/// Which engine a test uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// lseek + read/write (tests 0–5): the chosen engine, `-I` applies.
    Main,
    /// fwrite/fread (tests 6, 7): the chosen engine, never O_DIRECT.
    Stdio,
    /// pwrite/pread (tests 9, 10): `psync` (the chosen engine if it is
    /// fake), `-I` applies.
    Positional,
}

/// Runs the tests of `config` (single or auto mode) on `config.file`
/// inside `dir`, with `engine` for the lseek + read/write and stdio tests.
/// `progress` hears, untimed, which cell and test start.
///
/// An error before the first pass (throughput mode, an engine that cannot
/// be made, a fake engine with the vectored tests, a `-U` mount point that
/// [`check_remount`] refuses) is returned as `Err`; one during the run
/// (a failed remount included) ends it with what was measured and
/// [`Outcome::error`] set.
pub fn run(
    config: &Config,
    dir: &Path,
    engine: Choice,
    progress: &dyn Fn(&str),
) -> Result<Outcome> {
    run_live(config, dir, engine, None, None, progress, &mut |_| {})
}

/// [`run`], handing each cell's row to `on_row` as soon as the cell is
/// done (IOzone prints its table a line at a time). With `-H`/`-k` the
/// lseek + read/write tests run on `queued` at the config's depth. With
/// `verify` (`--verify`, refused where [`check_verify`] says) every
/// record written is made of checked units and every record read is
/// checked.
pub fn run_live(
    config: &Config,
    dir: &Path,
    engine: Choice,
    queued: Option<Choice>,
    verify: Option<VerifyPlan>,
    progress: &dyn Fn(&str),
    on_row: &mut dyn FnMut(&Row),
) -> Result<Outcome> {
    if let Some(v) = &verify {
        check_verify(config, engine, v).map_err(|e| anyhow!(e))?;
    }
    let fake = engine.is_fake();
    let mut make = |role: Role, need: Need| match (role, queued, config.async_io) {
        (Role::Main, Some(q), Some(a)) => make_queued(q, a.depth, need),
        _ => make_io(engine, role, need),
    };
    run_with(config, dir, fake, verify, &mut make, progress, on_row)
}

/// The pattern seed of `--verify` (IOzone's run has no seed of its own).
const VERIFY_SEED: u64 = 0x10_2011e;

/// What `--verify` cannot check in an IOzone run, refused before it
/// starts: the message names what to change.
pub fn check_verify(config: &Config, engine: Choice, v: &VerifyPlan) -> Result<(), String> {
    if v.keep {
        return Err("--keep: iozone removes its files (IOzone's -w keeps them); keep a verified file set with 'iogauge run --verify --keep'".into());
    }
    if v.crash {
        return Err("--verify-crash works on 'iogauge run' only; use --verify here".into());
    }
    if engine.is_fake() {
        return Err(format!(
            "--verify: engine '{}' does no I/O, so there is nothing to check",
            engine.name()
        ));
    }
    if config.mode() == Mode::Throughput {
        return Err("--verify: throughput mode (-t) is not verified yet; run the same tests without -t, or verify with 'iogauge run --verify -p N'".into());
    }
    for t in config.tests_to_run() {
        if let Test::Fwrite | Test::Pwritev | Test::Preadv = t {
            return Err(format!(
                "--verify: test {} ({}) writes or reads through buffers of its own, which are not verified; {}",
                t.number(),
                t.name(),
                if config.mode() == Mode::Auto {
                    "with -a, name the tests to run (e.g. -a -i 0 -i 1 -i 2 -i 3 -i 4 -i 5 -i 7 -i 9 -i 10)".to_string()
                } else {
                    format!("leave out -i {}", t.number())
                }
            ));
        }
    }
    for rec_kb in grid::runs(config)
        .iter()
        .flat_map(|r| r.records_kb.iter().copied())
    {
        if (rec_kb * 1024) % v.unit != 0 {
            return Err(format!(
                "--verify: records of {rec_kb} kB are not a whole number of --verify-interval units ({} B); give a smaller --verify-interval or larger records (-r, -y)",
                v.unit
            ));
        }
    }
    Ok(())
}

/// The engine of the asynchronous passes (`-H`/`-k`): `choice` keeping
/// `depth` requests in flight.
fn make_queued(choice: Choice, depth: u16, need: Need) -> Result<Io> {
    let spec = EngineSpec::new(choice).direct(need.direct).depth(depth);
    Ok(Io::new(&spec, depth, need.max_len, 0)?)
}

/// Checks, before any work, that `-U MOUNTPOINT` can unmount and mount
/// again the file system the test file (`config.file` in `dir`) is on:
/// root, a real mount point of a block device that holds the test file,
/// not the root file system nor that of the current directory or of
/// iogauge's executable, nothing mounted under it, not mounted elsewhere
/// too. `Ok` without `-U`. The message names the problem and the fix.
pub fn check_remount(config: &Config, dir: &Path) -> Result<(), String> {
    match &config.remount {
        Some(m) => Remount::prepare(m, &dir.join(&config.file)).map(drop),
        None => Ok(()),
    }
}

/// An engine maker: the role and the options.
type Make<'a> = dyn FnMut(Role, Need) -> Result<Io> + 'a;

/// [`run`] with the engines made by `make` (tests wrap them).
fn run_with(
    config: &Config,
    dir: &Path,
    fake: bool,
    verify: Option<VerifyPlan>,
    make: &mut Make,
    progress: &dyn Fn(&str),
    on_row: &mut dyn FnMut(&Row),
) -> Result<Outcome> {
    if config.mode() == Mode::Throughput {
        bail!("internal error: the single/auto runner was given throughput mode");
    }
    let tests = config.tests_to_run();
    let vectored = tests
        .iter()
        .any(|t| matches!(t, Test::Pwritev | Test::Preadv));
    if vectored && fake {
        bail!("pwritev/preadv (-i 11, -i 12) need a real engine: they use the file directly");
    }
    let rows = grid::runs(config);
    let max_record = rows
        .iter()
        .flat_map(|r| r.records_kb.iter().copied())
        .max()
        .unwrap_or(super::flags::DEFAULT_RECORD_KB);
    let max_len = usize::try_from(max_record * 1024)
        .ok()
        .filter(|n| u32::try_from(*n).is_ok())
        .ok_or_else(|| anyhow!("record of {max_record} kB is too large"))?;
    let opts = |direct| Need { direct, max_len };
    let uses = |f: &dyn Fn(&Test) -> bool| tests.iter().any(f);
    let main = make(Role::Main, opts(config.direct))?;
    let stdio = if uses(&|t| matches!(t, Test::Fwrite | Test::Fread)) {
        Some(make(Role::Stdio, opts(false))?)
    } else {
        None
    };
    let positional = if uses(&|t| matches!(t, Test::Pwrite | Test::Pread)) {
        Some(make(Role::Positional, opts(config.direct))?)
    } else {
        None
    };
    let path = dir.join(&config.file);
    let remount = match &config.remount {
        Some(m) => Some(Remount::prepare(m, &path).map_err(|e| anyhow!(e))?),
        None => None,
    };
    let mut r = Runner {
        cfg: config,
        path,
        fake,
        main,
        stdio,
        positional,
        vbuf: None,
        purge: config.purge.then(Purge::new),
        remount,
        cpu_res_s: if config.cpu_util {
            report::cpu_resolution()
        } else {
            0.0
        },
        out: Outcome {
            table: table_of(config),
            verify: verify.map(|v| Section::new(v.unit)),
            ..Outcome::default()
        },
        verify,
        tracker: None,
        progress,
        on_row,
    };
    r.all(&rows, &tests);
    r.out.purges = r.purge.as_ref().map_or(0, |p| p.count);
    r.out.remounts = r.remount.as_ref().map_or(0, Remount::count);
    let mut out = r.out;
    out.interrupted |= signals::interrupted();
    out.complete = !out.interrupted && out.error.is_none();
    Ok(out)
}

/// The table's layout: columns, units, header record sizes.
pub(super) fn table_of(cfg: &Config) -> Table {
    let selected = cfg
        .tests
        .iter()
        .flat_map(|t| Column::for_test(t.number()))
        .collect();
    Table {
        reclens_kb: if cfg.mode() == Mode::Auto {
            grid::record_sizes(cfg)
        } else {
            Vec::new()
        },
        rows: Vec::new(),
        selected,
        extended: cfg.extended,
        units: match cfg.unit {
            Unit::KbPerSec => Units::KbPerSec,
            Unit::OpsPerSec => Units::OpsPerSec,
            Unit::UsPerOp => Units::MicrosPerOp,
        },
    }
}

/// IOzone's figure for `ops` records of `bytes` in all, timed `ns`.
pub fn figure(unit: Unit, bytes: u64, ops: u64, ns: u64) -> u64 {
    let secs = ns.max(1) as f64 / 1e9;
    match unit {
        Unit::KbPerSec => ((bytes as f64 / secs) as u64) >> 10,
        Unit::OpsPerSec => (ops as f64 / secs) as u64,
        Unit::UsPerOp => (1e6 * secs / ops.max(1) as f64) as u64,
    }
}

/// Where the records of a pass go, in order.
#[derive(Clone, Copy)]
enum Order<'a> {
    /// 0, 1, 2, …
    Seq,
    /// The last record first ([`offsets::backwards`]).
    Back,
    /// Record 0 every time ([`offsets::record_rewrite`]).
    First,
    /// A list worked out before the pass (random, stride).
    List(&'a [u64]),
}

impl Order<'_> {
    #[inline]
    fn at(&self, i: u64, numrecs: u64) -> u64 {
        match self {
            Order::Seq => i,
            Order::Back => numrecs - 1 - i,
            Order::First => 0,
            Order::List(l) => l[i as usize],
        }
    }
}

/// One cell: the file's path, the record and the file's records.
#[derive(Clone, Copy)]
pub(super) struct Cell<'a> {
    pub path: &'a Path,
    pub reclen: u32,
    pub numrecs: u64,
}

impl Cell<'_> {
    fn bytes(&self) -> u64 {
        self.numrecs * u64::from(self.reclen)
    }

    /// An error of a pass of `col` on this cell's file.
    fn fail(&self, col: Column, what: &str, e: io::Error) -> anyhow::Error {
        anyhow!("{}: {what} {}: {e}", col.name(), self.path.display())
    }
}

/// Open for reading and writing, created if missing, never truncated
/// (the tests that rewrite records in place).
const CREATE_RW: OpenHow = OpenHow {
    truncate: false,
    ..OpenHow::CREATE
};

/// What IOzone does around a pass's loop.
#[derive(Clone, Copy)]
struct Plan {
    how: OpenHow,
    /// fsync before the timer (IOzone does for most tests).
    pre_fsync: bool,
    kind: OpKind,
    /// `-e`: fsync inside the timing.
    flush: bool,
    /// `-c`: close inside the timing.
    close: bool,
    /// fsync after the timer, before the untimed close.
    post_fsync: bool,
    /// IOzone's untimed read of record 0 first (read and reread), through
    /// a descriptor of its own.
    prime: bool,
    /// `-H`/`-k`: the records go through the engine's queue, its depth in
    /// flight (IOzone's asynchronous passes).
    queued: bool,
}

struct Runner<'a> {
    cfg: &'a Config,
    path: PathBuf,
    fake: bool,
    main: Io,
    stdio: Option<Io>,
    positional: Option<Io>,
    /// The vectored tests' records.
    vbuf: Option<AlignedBuf>,
    /// `-p`: the memory that evicts each record's buffer from the cache.
    purge: Option<Purge>,
    /// `-U`: the mount to cycle before each pass.
    remount: Option<Remount>,
    /// `-+u`: CPU times below this are taken as 0 (IOzone's
    /// `cputime_res`).
    cpu_res_s: f64,
    out: Outcome,
    /// `--verify`: the plan, and what is known of every unit of the
    /// cell's file (a new tracker for each cell).
    verify: Option<VerifyPlan>,
    tracker: Option<Box<Tracker>>,
    progress: &'a dyn Fn(&str),
    on_row: &'a mut dyn FnMut(&Row),
}

/// Whether the run goes on after a pass.
type Flow = std::ops::ControlFlow<()>;

/// Return from the enclosing function when a pass says stop.
macro_rules! go {
    ($e:expr) => {
        if $e.is_break() {
            return Flow::Break(());
        }
    };
}

impl Runner<'_> {
    fn all(&mut self, rows: &[grid::Row], tests: &[Test]) {
        let header = grid::record_sizes(self.cfg);
        for row in rows {
            for i in 0..row.skipped_cells {
                let reclen = header.get(i).copied().unwrap_or(0);
                self.out.table.rows.push(Row::new(row.file_kb, reclen));
            }
            for &rec_kb in &row.records_kb {
                let mut cells = Row::new(row.file_kb, rec_kb);
                let flow = self.cell(row.file_kb, rec_kb, tests, &mut cells);
                if !cells.values.is_empty() {
                    (self.on_row)(&cells);
                    self.out.table.rows.push(cells);
                }
                if flow.is_break() {
                    return;
                }
            }
        }
    }

    fn stop(&mut self, e: anyhow::Error) -> Flow {
        self.out.error = Some(crate::error::cause(&e));
        Flow::Break(())
    }

    /// One file size and record size: every selected test, then the file
    /// removed unless `-w`.
    fn cell(&mut self, file_kb: u64, rec_kb: u64, tests: &[Test], row: &mut Row) -> Flow {
        let reclen = (rec_kb * 1024) as u32;
        let numrecs = file_kb * 1024 / u64::from(reclen);
        if numrecs == 0 {
            return self.stop(anyhow!(
                "a record of {rec_kb} kB does not fit a file of {file_kb} kB"
            ));
        }
        let path = self.path.clone();
        let cell = Cell {
            path: &path,
            reclen,
            numrecs,
        };
        if !self.fake {
            // IOzone: sync(); sync(); before each cell
            rustix::fs::sync();
        }
        self.tracker = self.verify.map(|v| {
            let geo = Geometry {
                unit: v.unit,
                files: 1,
                file_size: cell.bytes(),
                workers: 1,
                share: cell.bytes(),
            };
            let pattern = Pattern::new(VERIFY_SEED, v.unit as usize);
            let slots = self.cfg.async_io.map_or(1, |a| usize::from(a.depth));
            Box::new(Tracker::new(geo, pattern, 0, &[], slots, v.fatal))
        });
        let mut flow = Flow::Continue(());
        // a device holds its bytes already: its tests read what is there
        if !tests.contains(&Test::Write) && !self.cfg.device {
            (self.progress)(&format!(
                "{file_kb} kB file, {rec_kb} kB records: writing the file (untimed)"
            ));
            if let Err(e) = layout(&mut self.main, cell, self.tracker.as_deref_mut()) {
                flow = self.stop(e);
            }
        }
        if flow.is_continue() {
            for &t in tests {
                if signals::interrupted() {
                    self.out.interrupted = true;
                    flow = Flow::Break(());
                    break;
                }
                (self.progress)(&format!(
                    "{file_kb} kB file, {rec_kb} kB records: {}",
                    t.name()
                ));
                flow = self.test(t, cell, row);
                if flow.is_break() {
                    break;
                }
            }
        }
        if let (Some(t), Some(all)) = (self.tracker.take(), self.out.verify.as_mut()) {
            all.merge(&t.counts);
        }
        if !self.cfg.keep_files && !self.cfg.device {
            match self.main.unlink(cell.path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound && flow.is_continue() => {
                    return self.stop(anyhow!("cannot remove {}: {e}", cell.path.display()));
                }
                _ => {}
            }
        }
        flow
    }

    /// One test: its pass and, unless `-+n`, the re-test's.
    fn test(&mut self, t: Test, c: Cell, row: &mut Row) -> Flow {
        let w = self.plan(self.synced(OpenHow::READ_WRITE), true, OpKind::Write);
        let r = self.plan(OpenHow::READ, true, OpKind::Read);
        let (main, stdio, positional) = (Role::Main, Role::Stdio, Role::Positional);
        match t {
            Test::Write => self.write(c, w, row),
            Test::Read => {
                let p = Plan { prime: true, ..r };
                self.with_retest([Column::Read, Column::Reread], |me, col| {
                    me.pass(main, col, c, p, Order::Seq, row)
                })
            }
            Test::RandomRw => self.random_rw(c, row),
            Test::Backwards => self.pass(main, Column::BkwdRead, c, r, Order::Back, row),
            Test::RecordRewrite => {
                let p = self.plan(self.synced(CREATE_RW), true, OpKind::Write);
                self.pass(main, Column::RecRewrite, c, p, Order::First, row)
            }
            Test::StrideRead => {
                let order = Order::List(&offsets::stride(c.numrecs, self.cfg.stride));
                self.pass(main, Column::StrideRead, c, r, order, row)
            }
            Test::Fwrite => self.with_retest([Column::Fwrite, Column::Frewrite], |me, col| {
                me.fwrite(col, c, row)
            }),
            Test::Fread => {
                // fopen "r"; fflush with -e issues nothing; fclose
                let p = Plan {
                    flush: false,
                    post_fsync: false,
                    ..r
                };
                self.with_retest([Column::Fread, Column::Freread], |me, col| {
                    me.pass(stdio, col, c, p, Order::Seq, row)
                })
            }
            Test::RandomMix => Flow::Continue(()),
            Test::Pwrite => {
                let first = self.plan(self.synced(CREATE_RW), true, OpKind::Write);
                self.with_retest([Column::Pwrite, Column::Repwrite], |me, col| {
                    let p = if col == Column::Pwrite { first } else { w };
                    me.pass(positional, col, c, p, Order::Seq, row)
                })
            }
            Test::Pread => {
                let p = self.plan(OpenHow::READ, false, OpKind::Read);
                self.with_retest([Column::Pread, Column::Repread], |me, col| {
                    me.pass(positional, col, c, p, Order::Seq, row)
                })
            }
            Test::Pwritev => self.with_retest([Column::Pwritev, Column::Repwritev], |me, col| {
                me.vectored(col, c, true, row)
            }),
            Test::Preadv => self.with_retest([Column::Preadv, Column::Repreadv], |me, col| {
                me.vectored(col, c, false, row)
            }),
        }
    }

    /// Write and rewrite: the file removed first, so that the write
    /// creates it (`rewrite` is the rewrite's plan).
    fn write(&mut self, c: Cell, rewrite: Plan, row: &mut Row) -> Flow {
        // a device is never unlinked (O_TRUNC leaves one alone)
        if !self.cfg.device
            && let Err(e) = self.main.unlink(c.path)
            && e.kind() != io::ErrorKind::NotFound
        {
            return self.stop(anyhow!("cannot remove {}: {e}", c.path.display()));
        }
        let first = Plan {
            how: self.synced(OpenHow::CREATE),
            ..rewrite
        };
        self.with_retest([Column::Write, Column::Rewrite], |me, col| {
            let p = if col == Column::Write { first } else { rewrite };
            me.pass(Role::Main, col, c, p, Order::Seq, row)
        })
    }

    /// Random read, then random write, over the same random order.
    fn random_rw(&mut self, c: Cell, row: &mut Row) -> Flow {
        let order = Order::List(&offsets::random(c.numrecs));
        let how = self.synced(CREATE_RW);
        // IOzone's random reads ask its library for no read-ahead
        // (stride 0): one request at a time, as here
        let rr = Plan {
            queued: false,
            ..self.plan(how, false, OpKind::Read)
        };
        go!(self.pass(Role::Main, Column::RandRead, c, rr, order, row));
        let rw = self.plan(how, false, OpKind::Write);
        self.pass(Role::Main, Column::RandWrite, c, rw, order, row)
    }

    /// `how` with O_SYNC where the run asks for it (`-o`).
    fn synced(&self, how: OpenHow) -> OpenHow {
        OpenHow {
            sync: self.cfg.sync,
            // a device is opened as it is
            create: how.create && !self.cfg.device,
            truncate: how.truncate && !self.cfg.device,
            ..how
        }
    }

    /// A pass's plan, with the run's `-e`, `-c` and `-H`/`-k`.
    fn plan(&self, how: OpenHow, pre_fsync: bool, kind: OpKind) -> Plan {
        Plan {
            how,
            pre_fsync,
            kind,
            flush: self.cfg.include_flush,
            close: self.cfg.include_close,
            post_fsync: true,
            prime: false,
            // IOzone's lseek + read/write tests go through its AIO library
            // (random reads, which it gives no read-ahead, are set apart
            // in `random_rw`)
            queued: self.cfg.async_io.is_some(),
        }
    }

    /// `pass` of the first of `cols` and, unless `-+n`, of the second
    /// (the re-test).
    fn with_retest(
        &mut self,
        cols: [Column; 2],
        mut pass: impl FnMut(&mut Self, Column) -> Flow,
    ) -> Flow {
        go!(pass(self, cols[0]));
        if !self.cfg.no_retest {
            go!(pass(self, cols[1]));
        }
        Flow::Continue(())
    }

    /// What IOzone does before each pass, untimed: with `-U`, unmount
    /// and mount the file system again (no file of the run is open
    /// between passes). Also starts the pass's purge time at 0.
    fn between(&mut self) -> Result<()> {
        if let Some(p) = self.purge.as_mut() {
            p.pass_ns = 0;
        }
        if let Some(m) = self.remount.as_mut() {
            m.cycle().map_err(|e| anyhow!(e))?;
        }
        Ok(())
    }

    /// Keep a pass's outcome: its figure in the row (the time of `-p`'s
    /// purges taken out), with `-+u` its CPU utilization, its stats under
    /// its column. Stops the run on an error or Ctrl-C.
    fn keep(&mut self, col: Column, c: Cell, o: runner::Outcome, row: &mut Row) -> Flow {
        if let Some(e) = o.error {
            return self.stop(e);
        }
        if o.interrupted || !o.complete {
            self.out.interrupted = true;
            return Flow::Break(());
        }
        let wall_ns = u64::try_from(o.elapsed.as_nanos()).unwrap_or(u64::MAX);
        let purged = self.purge.as_ref().map_or(0, |p| p.pass_ns);
        let ns = wall_ns.saturating_sub(purged);
        row.values
            .insert(col, figure(self.cfg.unit, c.bytes(), c.numrecs, ns));
        if self.cfg.cpu_util {
            // IOzone: CPU under its resolution counts 0, and the wall
            // time is at least the CPU time
            let mut cpu = (o.cpu.user + o.cpu.sys).as_secs_f64();
            if cpu < self.cpu_res_s {
                cpu = 0.0;
            }
            let wall = o.elapsed.as_secs_f64().max(cpu);
            // at most 100 %, also when cpu / wall rounds above it
            row.cpu.insert(col, report::cpu_util(cpu, wall).min(100.0));
        }
        self.out.stats.entry(col).or_default().merge(&o.stats);
        let t = self.out.timed.entry(col).or_default();
        t.0 += Duration::from_nanos(ns);
        t.1.user += o.cpu.user;
        t.1.sys += o.cpu.sys;
        t.1.max_rss_kib = t.1.max_rss_kib.max(o.cpu.max_rss_kib);
        Flow::Continue(())
    }

    /// One pass of an engine test: open (untimed), the timed loop, then
    /// what IOzone does after the timer.
    fn pass(
        &mut self,
        role: Role,
        col: Column,
        c: Cell,
        p: Plan,
        order: Order,
        row: &mut Row,
    ) -> Flow {
        let r = self.try_pass(role, col, c, p, order);
        self.finish(col, c, r, row)
    }

    /// Keep what a pass ended with ([`Runner::keep`]), or stop at its
    /// error: of the run, or of what came after the timer.
    fn finish(
        &mut self,
        col: Column,
        c: Cell,
        r: Result<(runner::Outcome, Result<()>)>,
        row: &mut Row,
    ) -> Flow {
        match r {
            Err(e) => self.stop(e),
            Ok((o, after)) => {
                if self.out.engine_mode.is_none() {
                    self.out.engine_mode = o.engine_modes.iter().flatten().next().cloned();
                }
                if let Err(e) = after
                    && o.error.is_none()
                {
                    return self.stop(e);
                }
                self.keep(col, c, o, row)
            }
        }
    }

    fn try_pass(
        &mut self,
        role: Role,
        col: Column,
        c: Cell,
        p: Plan,
        order: Order,
    ) -> Result<(runner::Outcome, Result<()>)> {
        self.between()?;
        let e = match role {
            Role::Main => Some(&mut self.main),
            Role::Stdio => self.stdio.as_mut(),
            Role::Positional => self.positional.as_mut(),
        };
        let engine = e
            .map(|b| b as &mut Io)
            .ok_or_else(|| anyhow!("internal error: no {role:?} engine"))?;
        if p.prime {
            prime(engine, c)?;
        }
        let file = engine
            .open(c.path, p.how)
            .with_context(|| format!("{}: cannot open", col.name()))?;
        if let Some(t) = self.tracker.as_deref_mut() {
            t.bind(&[file]);
        }
        let tracker = self.tracker.as_deref_mut();
        if p.pre_fsync
            && let Err(e) = engine::untimed(|| engine.exec(Req::fsync(file)))
        {
            let _ = engine.close(file);
            return Err(anyhow!("{}: fsync {}: {e}", col.name(), c.path.display()));
        }
        let buf = engine.buf_mut(0).as_ptr() as usize;
        let mut w = Pass {
            engine,
            file,
            open: true,
            col,
            plan: Plan {
                // stdio and pread/pwrite are not IOzone's asynchronous tests
                queued: p.queued && role == Role::Main,
                ..p
            },
            order,
            cell: c,
            purge: self.purge.as_mut(),
            buf,
            tracker,
        };
        let o = runner::run(StopRule::default(), vec![ByRef(&mut w)], &NoProgress);
        let after = w.finish_untimed();
        Ok((o, after))
    }

    /// One fwrite pass through a stream with a buffer of one record.
    fn fwrite(&mut self, col: Column, c: Cell, row: &mut Row) -> Flow {
        let r = self.try_fwrite(col, c);
        self.finish(col, c, r, row)
    }

    fn try_fwrite(&mut self, col: Column, c: Cell) -> Result<(runner::Outcome, Result<()>)> {
        self.between()?;
        let cfg = self.cfg;
        let stream = Stream::new(c.reclen, false);
        let Some(engine) = self.stdio.as_mut() else {
            bail!("internal error: no stdio engine");
        };
        // fopen "r+" (or "w+" when there is no file): no truncation
        let how = OpenHow {
            truncate: false,
            ..OpenHow::CREATE
        };
        let file = match engine.open(c.path, how) {
            Ok(f) => f,
            // the engine's error names the file
            Err(e) => bail!("{}: cannot open {e}", col.name()),
        };
        if let Err(e) = engine::untimed(|| engine.exec(Req::fsync(file))) {
            let _ = engine.close(file);
            bail!("{}: fsync {}: {e}", col.name(), c.path.display());
        }
        let buf = engine.buf_mut(0).as_ptr() as usize;
        let mut w = Fwrite {
            engine,
            file,
            open: true,
            col,
            cell: c,
            purge: self.purge.as_mut(),
            buf,
            stream,
            flush: cfg.include_flush,
            close: cfg.include_close,
        };
        let o = runner::run(StopRule::default(), vec![ByRef(&mut w)], &NoProgress);
        let after = w.finish_untimed();
        Ok((o, after))
    }

    /// One pwritev or preadv pass.
    fn vectored(&mut self, col: Column, c: Cell, write: bool, row: &mut Row) -> Flow {
        let r = self.try_vectored(col, c, write);
        self.finish(col, c, r, row)
    }

    fn try_vectored(
        &mut self,
        col: Column,
        c: Cell,
        write: bool,
    ) -> Result<(runner::Outcome, Result<()>)> {
        self.between()?;
        let cfg = self.cfg;
        let reclen = u64::from(c.reclen);
        let numvecs = (PVECMAX as u64)
            .min(c.numrecs)
            .min(MAX_VECTOR_BYTES / reclen)
            .max(1);
        let need = (numvecs * reclen) as usize;
        if self.vbuf.as_ref().is_some_and(|b| b.len() < need) {
            self.vbuf = None;
        }
        let buf = self.vbuf.get_or_insert_with(|| AlignedBuf::random(need, 0));
        // pwritev and preadv use the file directly (no engine has them),
        // opened as the engines open theirs
        let how = OpenHow {
            read: true,
            write,
            create: write,
            truncate: false,
            append: false,
            sync: cfg.sync && write,
        };
        let file = match engine::open_file(c.path, how, cfg.direct) {
            Ok(f) => f,
            Err(e) => bail!("{}: cannot open {e}", col.name()),
        };
        let mut w = Vectored {
            io: &mut self.main,
            file: Some(file),
            purge: self.purge.as_mut(),
            buf: &mut buf[..need],
            write,
            col,
            cell: c,
            numvecs,
            rng: Mt64::iozone(),
            flush: cfg.include_flush,
            close: cfg.include_close,
        };
        let o = runner::run(StopRule::default(), vec![ByRef(&mut w)], &NoProgress);
        let after = w.finish_untimed();
        Ok((o, after))
    }
}

/// A worker borrowed, so its state (is the file still open?) outlives
/// the run.
struct ByRef<'a, W>(&'a mut W);

impl<W: Worker> Worker for ByRef<'_, W> {
    fn kinds(&self) -> &[OpKind] {
        self.0.kinds()
    }
    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        self.0.run(ctx)
    }
    fn engine_mode(&self) -> Option<String> {
        self.0.engine_mode()
    }
}

/// What a pass records: its reads or writes, `-e`'s fsync, `-c`'s close.
pub(super) fn pass_kinds(write: bool) -> &'static [OpKind] {
    if write {
        &[OpKind::Write, OpKind::Fsync, OpKind::Close]
    } else {
        &[OpKind::Read, OpKind::Fsync, OpKind::Close]
    }
}

/// Write the cell's file untimed, for tests run without `-i 0` (with
/// `--verify`, of checked units).
fn layout(e: &mut Io, c: Cell, tracker: Option<&mut Tracker>) -> Result<()> {
    match e.unlink(c.path) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => {
            bail!("writing {} (untimed): unlink: {err}", c.path.display())
        }
        _ => {}
    }
    write_untimed(e, c, OpenHow::CREATE, tracker)
}

/// Open the cell's file `how`, write its records (with a tracker, made of
/// its checked units), fsync and close it, all untimed.
pub(super) fn write_untimed(
    e: &mut Io,
    c: Cell,
    how: OpenHow,
    mut tracker: Option<&mut Tracker>,
) -> Result<()> {
    let ctx = |what: &str, err: io::Error| {
        anyhow!("writing {} (untimed): {what}: {err}", c.path.display())
    };
    let f = e.open(c.path, how).map_err(|err| ctx("open", err))?;
    if let Some(t) = tracker.as_deref_mut() {
        t.bind(&[f]);
    }
    let r = engine::untimed(|| -> Result<()> {
        for i in 0..c.numrecs {
            let off = i * u64::from(c.reclen);
            let req = Req::write(f, off, c.reclen);
            if let Some(t) = tracker.as_deref_mut() {
                t.fill(&req, e.buf_mut(0));
            }
            let done = e.exec(req).map_err(|err| ctx("write", err))?;
            if done.bytes != u64::from(c.reclen) {
                e.finish_write(req, done.bytes)
                    .map_err(|err| ctx("write", err))?;
            }
            if let Some(t) = tracker.as_deref_mut() {
                t.done(&done);
            }
        }
        e.exec(Req::fsync(f)).map_err(|err| ctx("fsync", err))?;
        Ok(())
    });
    let closed = e.close(f).map_err(|err| ctx("close", err));
    r.and(closed)
}

/// IOzone's untimed first read of record 0 before a read pass, through
/// a descriptor of its own.
fn prime(e: &mut Io, c: Cell) -> Result<()> {
    let f = e.open(c.path, OpenHow::READ).context("read: cannot open")?;
    let r = engine::untimed(|| e.exec(Req::read(f, 0, c.reclen)));
    let closed = e.close(f);
    let got = r.with_context(|| format!("read: reading {}", c.path.display()))?;
    closed.with_context(|| format!("read: closing {}", c.path.display()))?;
    if got.bytes != u64::from(c.reclen) {
        bail!(
            "read: {} holds less than one record of {} bytes",
            c.path.display(),
            c.reclen
        );
    }
    Ok(())
}

/// `-p`: IOzone's `purgeit`. Before each record's operation IOzone reads,
/// one cache line apart, the part of a cache-sized region that maps to
/// the same cache sets as the record's buffer (up to a record, at most
/// the cache), so that the buffer is no longer in a direct-mapped,
/// virtually indexed data cache when the operation copies it.
struct Purge {
    /// Three cache sizes (IOzone's `alloc_pbuf`), filled so that every
    /// page is memory of its own rather than the kernel's shared zero
    /// page, which IOzone's untouched malloc(3) memory reads as.
    mem: Vec<u8>,
    /// Where the cache-aligned part of `mem` starts (two cache sizes
    /// follow it).
    base: usize,
    /// Time spent purging in the current pass, ns (taken out of the
    /// pass's time).
    pass_ns: u64,
    /// Records purged in the whole run.
    count: u64,
}

impl Purge {
    fn new() -> Purge {
        let mem = vec![1u8; 3 * CACHE_BYTES];
        let addr = mem.as_ptr() as usize;
        let base = (CACHE_BYTES - addr % CACHE_BYTES) % CACHE_BYTES;
        Purge {
            mem,
            base,
            pass_ns: 0,
            count: 0,
        }
    }

    /// Evicts the record buffer at address `buf` of `len` bytes, timing
    /// itself so that the pass can leave the time out.
    #[inline]
    fn evict(&mut self, buf: usize, len: u32) {
        let t = now_ns();
        let lines = (len as usize / CACHE_LINE_BYTES).min(CACHE_BYTES / CACHE_LINE_BYTES);
        let mut at = self.base + (buf & (CACHE_BYTES - 1));
        let mut x = 0u8;
        for _ in 0..lines {
            x = x.wrapping_add(std::hint::black_box(self.mem[at]));
            at += CACHE_LINE_BYTES;
        }
        std::hint::black_box(x);
        self.count += 1;
        self.pass_ns += now_ns() - t;
    }
}

/// A pass of one operation per record through an engine.
struct Pass<'a> {
    engine: &'a mut Io,
    file: FileId,
    open: bool,
    col: Column,
    plan: Plan,
    order: Order<'a>,
    cell: Cell<'a>,
    /// `-p`: evict the record buffer before each operation.
    purge: Option<&'a mut Purge>,
    /// The engine's record buffer (slot 0), for the purge.
    buf: usize,
    /// `--verify`: records written are made of checked units, records
    /// read are checked.
    tracker: Option<&'a mut Tracker>,
}

impl Pass<'_> {
    fn fail(&self, what: &str, e: io::Error) -> anyhow::Error {
        self.cell.fail(self.col, what, e)
    }

    /// After the timer: fsync (unless the plan says not) and close, if the
    /// pass left the file open.
    fn finish_untimed(&mut self) -> Result<()> {
        if !self.open {
            return Ok(());
        }
        self.open = false;
        let (engine, file) = (&mut *self.engine, self.file);
        let synced = if self.plan.post_fsync {
            engine::untimed(|| engine.exec(Req::fsync(file))).map(drop)
        } else {
            Ok(())
        };
        let closed = engine.close(file);
        synced.map_err(|e| self.fail("fsync", e))?;
        closed.map_err(|e| self.fail("closing", e))
    }
}

/// `-e` and `-c`, inside the timing: fsync and close, each recorded.
fn flush_close(
    ctx: &mut Ctx,
    engine: &mut Io,
    file: FileId,
    flush: bool,
    close: bool,
    open: &mut bool,
) -> io::Result<()> {
    if flush {
        let c = engine.exec(Req::fsync(file))?;
        ctx.record(&c);
    }
    if close {
        timed_op(ctx, OpKind::Close, || {
            *open = false;
            engine.close(file)
        })?;
    }
    Ok(())
}

/// Times `f` and, if it succeeds, records it as one `kind` op of no bytes.
fn timed_op<T, E>(
    ctx: &mut Ctx,
    kind: OpKind,
    f: impl FnOnce() -> std::result::Result<T, E>,
) -> std::result::Result<T, E> {
    let t = now_ns();
    let r = f()?;
    let done = now_ns();
    ctx.record_op(kind, done - t, 0, done);
    Ok(r)
}

impl Worker for Pass<'_> {
    fn kinds(&self) -> &[OpKind] {
        pass_kinds(self.plan.kind != OpKind::Read)
    }

    fn engine_mode(&self) -> Option<String> {
        self.engine.mode()
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let Pass {
            engine,
            file,
            open,
            col,
            plan,
            order,
            cell,
            purge,
            buf,
            tracker,
        } = self;
        let Cell {
            reclen, numrecs, ..
        } = *cell;
        let mut req = Req {
            kind: plan.kind,
            file: *file,
            offset: 0,
            len: reclen,
            slot: 0,
        };
        if plan.queued {
            let mut records = Records {
                req,
                order: *order,
                numrecs,
                issued: 0,
                col: *col,
                cell: *cell,
            };
            match tracker.as_deref_mut() {
                Some(t) => engine.drive(
                    ctx,
                    &mut CheckedSource {
                        inner: &mut records,
                        tracker: t,
                        journal: None,
                    },
                )?,
                None => engine.drive(ctx, &mut records)?,
            }
            if records.issued < numrecs {
                // stopped
                return Ok(());
            }
            return flush_close(ctx, engine, *file, plan.flush, plan.close, open)
                .map_err(|e| cell.fail(*col, "fsync/close", e));
        }
        // a transaction is one record; the pass is timed whole
        let mut i = 0;
        engine.transact(ctx, &mut |tx: &mut Tx| {
            if i == numrecs {
                return Ok(false);
            }
            req.offset = order.at(i, numrecs) * u64::from(reclen);
            i += 1;
            if let Some(p) = purge.as_deref_mut() {
                p.evict(*buf, reclen);
            }
            if let Some(t) = tracker.as_deref_mut() {
                t.fill(&req, tx.io.buf_mut(0));
            }
            let c = match tx.exec_unrecorded(req) {
                Ok(c) => c,
                Err(e) => {
                    let what = if req.kind == OpKind::Read {
                        "reading"
                    } else {
                        "writing"
                    };
                    return Err(cell.fail(*col, what, e));
                }
            };
            tx.ctx.record(&c);
            if c.bytes != u64::from(reclen) {
                if req.kind == OpKind::Read {
                    bail!(
                        "{}: {} of {reclen} bytes at offset {} of {} (short read)",
                        col.name(),
                        c.bytes,
                        req.offset,
                        cell.path.display(),
                    );
                }
                // the rest, to learn why (a full disk says so then)
                tx.io
                    .finish_write(req, c.bytes)
                    .map_err(|e| cell.fail(*col, "writing", e))?;
            }
            if let Some(t) = tracker.as_deref_mut() {
                t.done(&c);
                if req.kind == OpKind::Read {
                    t.check(&c, tx.io.buf_mut(0))?;
                }
            }
            Ok(true)
        })?;
        if i < numrecs {
            // stopped
            return Ok(());
        }
        flush_close(ctx, engine, *file, plan.flush, plan.close, open)
            .map_err(|e| cell.fail(*col, "fsync/close", e))
    }
}

/// The records of a queued pass (`-H`/`-k`), in the pass's order, for the
/// runner's driver to keep its depth of them in flight.
struct Records<'a> {
    req: Req,
    order: Order<'a>,
    numrecs: u64,
    /// Records handed out so far.
    issued: u64,
    col: Column,
    cell: Cell<'a>,
}

impl runner::Source for Records<'_> {
    fn next(&mut self) -> Option<Req> {
        if self.issued == self.numrecs {
            return None;
        }
        let at = self.order.at(self.issued, self.numrecs);
        self.issued += 1;
        Some(Req {
            offset: at * u64::from(self.req.len),
            ..self.req
        })
    }

    /// A read short of its record is an error, as in the one-at-a-time
    /// pass (the driver finishes short writes itself).
    fn done(&mut self, c: &Completion) -> Result<()> {
        if c.req.kind == OpKind::Read && c.bytes != u64::from(c.req.len) {
            bail!(
                "{}: {} of {} bytes at offset {} of {} (short read)",
                self.col.name(),
                c.bytes,
                c.req.len,
                c.req.offset,
                self.cell.path.display(),
            );
        }
        Ok(())
    }
}

/// fwrite(3) of every record through a stream whose buffer is one record,
/// as glibc runs it: with the buffer empty a record goes straight out
/// with one write(2); the next is copied into the buffer; the one after
/// writes the buffer out, then goes straight out itself; and so on.
struct Fwrite<'a> {
    engine: &'a mut Io,
    file: FileId,
    open: bool,
    col: Column,
    cell: Cell<'a>,
    /// `-p`: evict the caller's record (`buf`) before each fwrite.
    purge: Option<&'a mut Purge>,
    buf: usize,
    /// The stdio stream.
    stream: Stream,
    flush: bool,
    close: bool,
}

impl Fwrite<'_> {
    fn fail(&self, what: &str, e: io::Error) -> anyhow::Error {
        self.cell.fail(self.col, what, e)
    }

    fn fflush(&mut self) -> io::Result<()> {
        self.stream.fflush(self.engine, self.file, self.cell.reclen)
    }

    /// After the timer: fflush, fsync, fclose.
    fn finish_untimed(&mut self) -> Result<()> {
        if !self.open {
            return Ok(());
        }
        self.open = false;
        let flushed = engine::untimed(|| self.fflush());
        let (engine, file) = (&mut *self.engine, self.file);
        let synced = engine::untimed(|| engine.exec(Req::fsync(file))).map(drop);
        let closed = engine.close(file);
        flushed.map_err(|e| self.fail("writing", e))?;
        synced.map_err(|e| self.fail("fsync", e))?;
        closed.map_err(|e| self.fail("closing", e))
    }
}

impl Worker for Fwrite<'_> {
    fn kinds(&self) -> &[OpKind] {
        pass_kinds(true)
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let Fwrite {
            engine,
            file,
            col,
            cell,
            purge,
            buf,
            stream,
            flush,
            ..
        } = &mut *self;
        let (reclen, numrecs, file) = (cell.reclen, cell.numrecs, *file);
        let writing = |e: io::Error| cell.fail(*col, "writing", e);
        // each fwrite timed whole: the engine reads no clock inside it
        engine::untimed(|| -> Result<()> {
            // a transaction is one fwrite; the pass is timed whole
            let mut i = 0;
            engine.transact(ctx, &mut |tx: &mut Tx| {
                if i == numrecs {
                    return Ok(false);
                }
                i += 1;
                if let Some(p) = purge.as_deref_mut() {
                    p.evict(*buf, reclen);
                }
                let t = now_ns();
                stream.fwrite(tx.io, file, reclen).map_err(writing)?;
                tx.record_since(OpKind::Write, t, u64::from(reclen));
                Ok(true)
            })?;
            if i == numrecs && *flush {
                timed_op(ctx, OpKind::Fsync, || {
                    stream.fflush(engine, file, reclen)?;
                    engine.exec(Req::fsync(file))
                })
                .map_err(writing)?;
            }
            Ok(())
        })?;
        if self.close {
            timed_op(ctx, OpKind::Close, || {
                self.open = false;
                let r = engine::untimed(|| self.fflush());
                let closed = self.engine.close(self.file);
                r.and(closed)
            })
            .map_err(|e| self.fail("closing", e))?;
        }
        Ok(())
    }
}

/// A pwritev or preadv pass: vectors of `numvecs` records.
struct Vectored<'a> {
    /// The engine whose transactions the runner loops over; pwritev and
    /// preadv themselves go to `file` (no engine has them).
    io: &'a mut Io,
    file: Option<std::fs::File>,
    /// `-p`: evict each record of a vector before the call.
    purge: Option<&'a mut Purge>,
    buf: &'a mut [u8],
    write: bool,
    col: Column,
    cell: Cell<'a>,
    numvecs: u64,
    rng: Mt64,
    flush: bool,
    close: bool,
}

/// IOzone's `create_list`: `min(16, numrecs)` distinct records, drawn
/// from `rng`.
fn create_list(rng: &mut Mt64, list: &mut [u64; PVECMAX], numrecs: u64) {
    let n = (PVECMAX as u64).min(numrecs) as usize;
    let mut j = 0;
    while j < n {
        let r = rng.next_u64() % numrecs;
        if !list[..j].contains(&r) {
            list[j] = r;
            j += 1;
        }
    }
}

impl Vectored<'_> {
    fn fail(&self, what: &str, e: io::Error) -> anyhow::Error {
        self.cell.fail(self.col, what, e)
    }

    fn finish_untimed(&mut self) -> Result<()> {
        match self.file.take() {
            Some(f) => f.sync_all().map_err(|e| self.fail("fsync", e)),
            None => Ok(()),
        }
    }
}

/// pwritev or preadv of the first `nv` records of `buf`, each `reclen`
/// bytes, at `offset` of `file`.
#[inline]
fn vector_call(
    file: Option<&std::fs::File>,
    buf: &mut [u8],
    reclen: u32,
    write: bool,
    nv: usize,
    offset: u64,
) -> io::Result<usize> {
    let Some(f) = file else {
        return Err(io::Error::other("the file is closed"));
    };
    let r = reclen as usize;
    if write {
        let iov: [IoSlice; PVECMAX] = std::array::from_fn(|k| {
            IoSlice::new(if k < nv {
                &buf[k * r..(k + 1) * r]
            } else {
                &[]
            })
        });
        Ok(rustix::io::pwritev(f, &iov[..nv], offset)?)
    } else {
        let mut chunks = buf[..nv * r].chunks_mut(r);
        let mut iov: [IoSliceMut; PVECMAX] =
            std::array::from_fn(|_| IoSliceMut::new(chunks.next().unwrap_or_default()));
        Ok(rustix::io::preadv(f, &mut iov[..nv], offset)?)
    }
}

impl Worker for Vectored<'_> {
    fn kinds(&self) -> &[OpKind] {
        pass_kinds(self.write)
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let Vectored {
            io,
            file,
            purge,
            buf,
            write,
            col,
            cell,
            numvecs,
            rng,
            ..
        } = &mut *self;
        let (reclen, numrecs, write) = (cell.reclen, cell.numrecs, *write);
        let len = u64::from(reclen);
        let kind = if write { OpKind::Write } else { OpKind::Read };
        let mut list = [0u64; PVECMAX];
        let mut nv = *numvecs;
        // a transaction is one call of a vector; the pass is timed whole
        let mut i = 0;
        io.transact(ctx, &mut |tx: &mut Tx| {
            if i >= numrecs {
                return Ok(false);
            }
            nv = nv.min(numrecs - i);
            create_list(rng, &mut list, numrecs);
            let offset = list[0].min(numrecs - nv) * len;
            if let Some(p) = purge.as_deref_mut() {
                let at = buf.as_ptr() as usize;
                for k in 0..nv as usize {
                    p.evict(at + k * reclen as usize, reclen);
                }
            }
            let t = now_ns();
            let r = vector_call(file.as_ref(), buf, reclen, write, nv as usize, offset);
            let done = now_ns();
            let what = if write { "writing" } else { "reading" };
            let got = r.map_err(|e| cell.fail(*col, what, e))?;
            tx.ctx.record_op(kind, done - t, got as u64, done);
            if got as u64 != nv * len {
                bail!(
                    "{}: moved {got} of {} bytes at offset {offset} of {}",
                    col.name(),
                    nv * len,
                    cell.path.display()
                );
            }
            i += nv;
            Ok(true)
        })?;
        if i < numrecs {
            // stopped
            return Ok(());
        }
        if self.flush {
            timed_op(ctx, OpKind::Fsync, || match self.file.as_ref() {
                Some(f) => f.sync_all(),
                None => Ok(()),
            })
            .map_err(|e| self.fail("fsync", e))?;
        }
        if self.close {
            timed_op(ctx, OpKind::Close, || -> io::Result<()> {
                drop(self.file.take());
                Ok(())
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{FileCall, Intercept};
    use crate::suites::iozone::flags::parse_with_page_size;
    use std::sync::{Arc, Mutex};

    /// What a logged engine was asked to do.
    #[derive(Clone, Debug, PartialEq)]
    enum Ev {
        Open(Role, OpenHow),
        Close(Role),
        Unlink(Role),
        Op(Role, OpKind, u64, u32),
    }

    type Log = Arc<Mutex<Vec<Ev>>>;

    fn config(line: &str) -> Config {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse_with_page_size(&args, 4096)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .config
    }

    struct Ran {
        out: Outcome,
        log: Vec<Ev>,
        dir: tempfile::TempDir,
    }

    /// Runs `line` in a temporary directory on logged engines (sync,
    /// psync as `run` picks them).
    fn run_logged(line: &str) -> Ran {
        let cfg = config(line);
        let dir = tempfile::tempdir().unwrap();
        let log: Log = Arc::default();
        // every call of each role's engine, logged before it is done
        let mut make = |role: Role, need: Need| -> Result<Io> {
            let (ops, files) = (Arc::clone(&log), Arc::clone(&log));
            Ok(make_io(Choice::SYNC, role, need)?.wrap(move |inner| {
                Box::new(
                    Intercept::new(inner, move |req: Req| {
                        let ev = Ev::Op(role, req.kind, req.offset, req.len);
                        ops.lock().unwrap().push(ev);
                        Ok(req)
                    })
                    .files(move |call| {
                        files.lock().unwrap().push(match call {
                            FileCall::Open(_, how) => Ev::Open(role, how),
                            FileCall::Close(_) => Ev::Close(role),
                            FileCall::Unlink(_) => Ev::Unlink(role),
                        })
                    }),
                )
            }))
        };
        let out = run_with(
            &cfg,
            dir.path(),
            false,
            None,
            &mut make,
            &|_| {},
            &mut |_| {},
        )
        .unwrap();
        assert!(out.complete, "{line}: {:?}", out.error);
        let log = log.lock().unwrap().clone();
        Ran { out, log, dir }
    }

    /// The data operations of `kind` by `role`, as (offset in records, len).
    fn ops(log: &[Ev], role: Role, kind: OpKind) -> Vec<u64> {
        log.iter()
            .filter_map(|e| match e {
                Ev::Op(r, k, off, len) if *r == role && *k == kind => {
                    assert_eq!(*len, 4096);
                    Some(off / 4096)
                }
                _ => None,
            })
            .collect()
    }

    /// The log split at each open of the file (the prime read's open
    /// counts too); an unlink goes with the open after it.
    fn segments(log: &[Ev]) -> Vec<Vec<Ev>> {
        let mut out: Vec<Vec<Ev>> = Vec::new();
        for e in log {
            let opened = |seg: &Vec<Ev>| seg.iter().any(|e| matches!(e, Ev::Open(..)));
            if out
                .last()
                .is_none_or(|seg| matches!(e, Ev::Open(..)) && opened(seg))
            {
                out.push(Vec::new());
            }
            if let Some(last) = out.last_mut() {
                last.push(e.clone());
            }
        }
        out
    }

    fn count(out: &Outcome, col: Column, kind: OpKind) -> u64 {
        out.stats
            .get(&col)
            .and_then(|s| s.kind(kind))
            .map_or(0, |k| k.count)
    }

    const SMALL: &str = "-s 64k -r 4k";

    /// `--verify` through every engine path of a pass (one at a time,
    /// and -H's queue): a write the device drops is found stale, a read
    /// it sends to the wrong record is found misdirected, each at its
    /// offset, and nothing else is reported.
    #[test]
    fn verify_finds_a_lost_write_and_a_misdirected_read() {
        use crate::verify::Kind;
        for line in ["-i 0 -i 1 -s 256k -r 16k", "-i 0 -i 1 -s 256k -r 16k -H 4"] {
            let cfg = config(line);
            let dir = tempfile::tempdir().unwrap();
            let plan = VerifyPlan {
                unit: 4096,
                fatal: false,
                keep: false,
                crash: false,
            };
            let writes = Arc::new(Mutex::new(0u32));
            let mut make = |role: Role, need: Need| -> Result<Io> {
                let writes = Arc::clone(&writes);
                let io = match (role, cfg.async_io) {
                    (Role::Main, Some(a)) => make_queued(Choice::LIBAIO, a.depth, need)?,
                    _ => make_io(Choice::SYNC, role, need)?,
                };
                Ok(io.wrap(move |inner| {
                    Box::new(Intercept::new(inner, move |mut req: Req| {
                        match req.kind {
                            OpKind::Write => {
                                let mut n = writes.lock().unwrap();
                                *n += 1;
                                // the rewrite's record 3 never reaches the
                                // disk: the file keeps the write pass's
                                if *n == 16 + 4 {
                                    req.kind = OpKind::Read;
                                }
                            }
                            // the reread's record 9 comes from record 10
                            OpKind::Read if req.offset == 9 * 16384 => {
                                let n = writes.lock().unwrap();
                                if *n == 32 {
                                    drop(n);
                                    req.offset = 10 * 16384;
                                }
                            }
                            _ => {}
                        }
                        Ok(req)
                    }))
                }))
            };
            let out = run_with(
                &cfg,
                dir.path(),
                false,
                Some(plan),
                &mut make,
                &|_| {},
                &mut |_| {},
            )
            .unwrap();
            assert!(out.complete, "{line}: {:?}", out.error);
            let v = out.verify.unwrap();
            assert_eq!(v.units_written, 2 * 64, "{line}");
            // four units of record 3 stale in the read and the reread, four
            // of record 9 misdirected in one of them
            assert_eq!(v.by_kind.get(Kind::Stale), 8, "{line}: {v:?}");
            assert!(v.by_kind.get(Kind::Misdirected) >= 4, "{line}: {v:?}");
            for m in &v.first {
                let rec = m.offset / 16384;
                match m.kind {
                    Kind::Stale => assert_eq!(rec, 3, "{line}: {m}"),
                    Kind::Misdirected => assert_eq!(rec, 9, "{line}: {m}"),
                    _ => panic!("{line}: {m}"),
                }
            }
        }
    }

    #[test]
    fn write_and_rewrite_issue_a_write_per_record() {
        let r = run_logged(&format!("-i 0 {SMALL}"));
        for col in [Column::Write, Column::Rewrite] {
            assert_eq!(count(&r.out, col, OpKind::Write), 16, "{col:?}");
            assert_eq!(count(&r.out, col, OpKind::Fsync), 0, "no -e");
        }
        let seq: Vec<u64> = (0..16).chain(0..16).collect();
        assert_eq!(ops(&r.log, Role::Main, OpKind::Write), seq);
        // a new file for write (unlinked, created), the same one for rewrite
        assert_eq!(r.log[0], Ev::Unlink(Role::Main));
        let opens: Vec<&Ev> = r.log.iter().filter(|e| matches!(e, Ev::Open(..))).collect();
        assert_eq!(opens.len(), 2);
        assert_eq!(*opens[0], Ev::Open(Role::Main, OpenHow::CREATE));
        assert_eq!(*opens[1], Ev::Open(Role::Main, OpenHow::READ_WRITE));
        let t = &r.out.table;
        assert_eq!(t.rows.len(), 1);
        assert_eq!((t.rows[0].kb, t.rows[0].reclen_kb), (64, 4));
        assert!(t.rows[0].cell(Column::Write) > 0);
        assert!(t.rows[0].cell(Column::Rewrite) > 0);
        assert_eq!(t.selected, vec![Column::Write, Column::Rewrite]);
        // the file is gone after the cell
        assert_eq!(std::fs::read_dir(r.dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn read_backwards_goes_from_the_last_record_to_the_first() {
        let r = run_logged(&format!("-i 3 {SMALL}"));
        let segs = segments(&r.log);
        // the untimed layout, then the pass
        assert_eq!(segs.len(), 2);
        assert_eq!(
            ops(&segs[0], Role::Main, OpKind::Write),
            (0..16).collect::<Vec<_>>()
        );
        assert_eq!(
            ops(&segs[1], Role::Main, OpKind::Read),
            (0..16).rev().collect::<Vec<_>>()
        );
        assert_eq!(count(&r.out, Column::BkwdRead, OpKind::Read), 16);
        assert!(r.out.table.rows[0].cell(Column::BkwdRead) > 0);
    }

    #[test]
    fn record_rewrite_writes_record_zero_each_time() {
        let r = run_logged(&format!("-i 0 -i 4 {SMALL}"));
        let segs = segments(&r.log);
        assert_eq!(segs.len(), 3);
        assert_eq!(ops(&segs[2], Role::Main, OpKind::Write), vec![0; 16]);
        assert_eq!(count(&r.out, Column::RecRewrite, OpKind::Write), 16);
    }

    #[test]
    fn stride_read_follows_the_stride() {
        let r = run_logged(&format!("-i 0 -i 5 -j 3 {SMALL}"));
        let segs = segments(&r.log);
        let got = ops(&segs[2], Role::Main, OpKind::Read);
        assert_eq!(got, offsets::stride(16, 3));
        assert_eq!(&got[..6], [0, 3, 6, 9, 12, 1]);
    }

    #[test]
    fn random_read_and_write_share_iozones_order() {
        let r = run_logged(&format!("-i 0 -i 2 {SMALL}"));
        let segs = segments(&r.log);
        assert_eq!(segs.len(), 4);
        let want = offsets::random(16);
        assert_eq!(ops(&segs[2], Role::Main, OpKind::Read), want);
        assert_eq!(ops(&segs[3], Role::Main, OpKind::Write), want);
        let mut sorted = want.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..16).collect::<Vec<_>>());
    }

    #[test]
    fn read_and_reread_read_every_record_after_an_untimed_first_read() {
        let r = run_logged(&format!("-i 0 -i 1 {SMALL}"));
        let segs = segments(&r.log);
        // write, rewrite, prime, read, prime, reread
        assert_eq!(segs.len(), 6);
        for prime in [&segs[2], &segs[4]] {
            assert_eq!(ops(prime, Role::Main, OpKind::Read), vec![0]);
        }
        for pass in [&segs[3], &segs[5]] {
            assert_eq!(
                ops(pass, Role::Main, OpKind::Read),
                (0..16).collect::<Vec<_>>()
            );
        }
        assert_eq!(count(&r.out, Column::Read, OpKind::Read), 16);
        assert_eq!(count(&r.out, Column::Reread, OpKind::Read), 16);
    }

    #[test]
    fn pwrite_and_pread_go_through_the_positional_engine() {
        let r = run_logged(&format!("-E -i 0 -i 9 -i 10 {SMALL}"));
        let seq: Vec<u64> = (0..16).chain(0..16).collect();
        assert_eq!(ops(&r.log, Role::Positional, OpKind::Write), seq);
        assert_eq!(ops(&r.log, Role::Positional, OpKind::Read), seq);
        for col in [
            Column::Pwrite,
            Column::Repwrite,
            Column::Pread,
            Column::Repread,
        ] {
            assert!(r.out.table.rows[0].cell(col) > 0, "{col:?}");
        }
        assert_eq!(count(&r.out, Column::Pread, OpKind::Read), 16);
    }

    #[test]
    fn dash_e_adds_one_fsync_per_pass_and_dash_c_a_close() {
        let r = run_logged(&format!("-i 0 -i 1 -i 6 -e -c {SMALL}"));
        for col in [
            Column::Write,
            Column::Rewrite,
            Column::Read,
            Column::Reread,
            Column::Fwrite,
            Column::Frewrite,
        ] {
            assert_eq!(count(&r.out, col, OpKind::Fsync), 1, "{col:?}");
            assert_eq!(count(&r.out, col, OpKind::Close), 1, "{col:?}");
        }
        let r = run_logged(&format!("-i 0 {SMALL}"));
        assert_eq!(count(&r.out, Column::Write, OpKind::Fsync), 0);
        assert_eq!(count(&r.out, Column::Write, OpKind::Close), 0);
    }

    #[test]
    fn fwrite_writes_each_record_once_in_order() {
        let r = run_logged(&format!("-i 6 -i 7 {SMALL}"));
        let seq: Vec<u64> = (0..16).chain(0..16).collect();
        assert_eq!(ops(&r.log, Role::Stdio, OpKind::Write), seq);
        assert_eq!(ops(&r.log, Role::Stdio, OpKind::Read), seq);
        for col in [Column::Fwrite, Column::Frewrite] {
            assert_eq!(count(&r.out, col, OpKind::Write), 16, "{col:?}");
        }
        for col in [Column::Fread, Column::Freread] {
            assert_eq!(count(&r.out, col, OpKind::Read), 16, "{col:?}");
        }
        // how the stream sends its records: stdio.rs's tests
    }

    #[test]
    fn no_retests_leave_the_re_columns_at_zero() {
        let r = run_logged(&format!("-i 0 -i 1 -i 2 -+n {SMALL}"));
        let row = &r.out.table.rows[0];
        for col in [
            Column::Write,
            Column::Read,
            Column::RandRead,
            Column::RandWrite,
        ] {
            assert!(row.cell(col) > 0, "{col:?}");
        }
        for col in [Column::Rewrite, Column::Reread] {
            assert_eq!(row.cell(col), 0, "{col:?}");
            assert!(!r.out.stats.contains_key(&col));
        }
        assert_eq!(ops(&r.log, Role::Main, OpKind::Write).len(), 16 + 16);
        let text = crate::suites::iozone::report::text_table(&r.out.table);
        assert!(text.lines().nth(2).unwrap().contains(" 0"));
    }

    #[test]
    fn auto_mode_runs_every_cell_of_the_grid() {
        let r = run_logged("-a -n 64k -g 256k -y 16k -q 64k -i 0 -i 1");
        let t = &r.out.table;
        let cells: Vec<(u64, u64)> = t.rows.iter().map(|r| (r.kb, r.reclen_kb)).collect();
        let mut want = Vec::new();
        for kb in [64, 128, 256] {
            for rec in [16, 32, 64] {
                want.push((kb, rec));
            }
        }
        assert_eq!(cells, want);
        assert_eq!(t.reclens_kb, vec![16, 32, 64]);
        assert!(t.rows.iter().all(|r| r.values.len() == 4));
        // records per pass: kb / rec; merged over the grid per column
        let writes: u64 = want.iter().map(|(kb, rec)| kb / rec).sum();
        assert_eq!(count(&r.out, Column::Write, OpKind::Write), writes);
        assert_eq!(count(&r.out, Column::Reread, OpKind::Read), writes);
        assert_eq!(std::fs::read_dir(r.dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn keep_files_leaves_the_last_file() {
        let r = run_logged("-i 0 -w -s 128k -r 16k");
        let f = r.dir.path().join("iozone.tmp");
        assert_eq!(std::fs::metadata(f).unwrap().len(), 128 * 1024);
    }

    #[test]
    fn vectored_tests_move_sixteen_records_a_call() {
        let r = run_logged(&format!("-E -i 0 -i 11 -i 12 -w {SMALL}"));
        for col in [Column::Pwritev, Column::Repwritev] {
            assert_eq!(count(&r.out, col, OpKind::Write), 1, "{col:?}");
        }
        for col in [Column::Preadv, Column::Repreadv] {
            assert_eq!(count(&r.out, col, OpKind::Read), 1, "{col:?}");
            assert!(r.out.table.rows[0].cell(col) > 0);
        }
        let f = r.dir.path().join("iozone.tmp");
        assert_eq!(std::fs::metadata(f).unwrap().len(), 64 * 1024);
        // 128 kB in 4 kB records: 2 calls of 16 distinct records each
        let r = run_logged("-E -i 0 -i 12 -+n -s 128k -r 4k");
        assert_eq!(count(&r.out, Column::Preadv, OpKind::Read), 2);
        let mut rng = Mt64::iozone();
        let mut list = [0; PVECMAX];
        create_list(&mut rng, &mut list, 20);
        let mut s = list.to_vec();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), 16);
    }

    #[test]
    fn the_null_engine_runs_every_test_without_files() {
        let cfg = config(&format!("-E {SMALL}"));
        let cfg = Config {
            tests: cfg
                .tests
                .into_iter()
                .filter(|t| !matches!(t, Test::Pwritev | Test::Preadv))
                .collect(),
            ..cfg
        };
        let dir = tempfile::tempdir().unwrap();
        let out = run(&cfg, dir.path(), Choice::NULL, &|_| {}).unwrap();
        assert!(out.complete, "{:?}", out.error);
        assert_eq!(out.table.rows[0].values.len(), 17, "all but the vectored");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let vectored = config(&format!("-E -i 11 {SMALL}"));
        assert!(run(&vectored, dir.path(), Choice::NULL, &|_| {}).is_err());
    }

    #[test]
    fn purge_runs_before_each_record_and_leaves_the_engine_calls_alone() {
        let line = "-E -i 0 -i 1 -i 6 -i 11 -s 64k -r 4k";
        let plain = run_logged(line);
        let purged = run_logged(&format!("{line} -p"));
        assert_eq!(plain.out.purges, 0);
        // write, rewrite, read, reread, fwrite, refwrite: 16 records each;
        // pwritev, repwritev: one vector of the 16 records each
        assert_eq!(purged.out.purges, 8 * 16);
        assert_eq!(plain.log, purged.log, "the engines see the same calls");
        for col in [Column::Write, Column::Reread, Column::Frewrite] {
            assert_eq!(
                count(&purged.out, col, OpKind::Write) + count(&purged.out, col, OpKind::Read),
                16
            );
            assert!(purged.out.table.rows[0].cell(col) > 0, "{col:?}");
        }
        // the region is cache-aligned, and the largest record (more
        // than the cache) at the worst address stays inside it
        let mut p = Purge::new();
        assert_eq!((p.mem.as_ptr() as usize + p.base) % CACHE_BYTES, 0);
        assert!(p.base + 2 * CACHE_BYTES <= p.mem.len());
        p.evict(usize::MAX, 16 << 20);
        assert_eq!(p.count, 1);
    }

    #[test]
    fn plus_u_keeps_each_pass_cpu_utilization() {
        let r = run_logged(&format!("-i 0 -i 1 -+n -+u {SMALL}"));
        let row = &r.out.table.rows[0];
        for col in [Column::Write, Column::Read] {
            let pct = row.cpu_cell(col);
            assert!((0.0..=100.0).contains(&pct), "{col:?}: {pct}");
            assert!(row.cpu.contains_key(&col));
        }
        // no re-tests: nothing measured, the sections show 0
        assert!(!row.cpu.contains_key(&Column::Rewrite));
        assert!(r.out.table.has_cpu());
        let text = report::excel_text(&r.out.table);
        assert!(
            text.contains("\n\"Reader CPU utilization report (Zero values should be ignored)\"\n")
        );
        assert!(
            text.contains("\"64\"     0.00\n"),
            "the rewrite's 0: {text}"
        );
        let r = run_logged(&format!("-i 0 {SMALL}"));
        assert!(r.out.table.rows[0].cpu.is_empty());
        assert!(!r.out.table.has_cpu());
    }

    /// A loop device with an ext4 file system mounted on a temporary
    /// directory; unmounted and detached when dropped, however the test
    /// ends.
    struct LoopMount {
        dir: tempfile::TempDir,
        dev: Option<String>,
        mounted: bool,
    }

    impl LoopMount {
        fn mnt(&self) -> PathBuf {
            self.dir.path().join("mnt")
        }

        /// `None` (with the reason printed) when the test cannot run here.
        fn new() -> Option<LoopMount> {
            if !rustix::process::geteuid().is_root() {
                eprintln!("skipped: -U needs root");
                return None;
            }
            let have = |tool: &str| {
                std::process::Command::new(tool)
                    .arg("--version")
                    .output()
                    .is_ok()
            };
            if !have("losetup") || !have("mkfs.ext4") {
                eprintln!("skipped: losetup or mkfs.ext4 is missing");
                return None;
            }
            let mut m = LoopMount {
                dir: tempfile::tempdir().unwrap(),
                dev: None,
                mounted: false,
            };
            let img = m.dir.path().join("img");
            std::fs::File::create(&img)
                .unwrap()
                .set_len(64 << 20)
                .unwrap();
            let out = std::process::Command::new("losetup")
                .args(["-f", "--show"])
                .arg(&img)
                .output()
                .unwrap();
            if !out.status.success() {
                eprintln!(
                    "skipped: losetup: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
                return None;
            }
            let dev = String::from_utf8(out.stdout).unwrap().trim().to_string();
            m.dev = Some(dev.clone());
            let st = std::process::Command::new("mkfs.ext4")
                .args(["-q", "-F", &dev])
                .status()
                .unwrap();
            assert!(st.success(), "mkfs.ext4 {dev}");
            std::fs::create_dir(m.mnt()).unwrap();
            let c = |s: &str| std::ffi::CString::new(s).unwrap();
            let target = c(m.mnt().to_str().unwrap());
            // SAFETY: NUL-terminated strings alive across the call; no data.
            let r = unsafe {
                libc::mount(
                    c(&dev).as_ptr(),
                    target.as_ptr(),
                    c("ext4").as_ptr(),
                    0,
                    std::ptr::null(),
                )
            };
            assert_eq!(r, 0, "mount: {}", io::Error::last_os_error());
            m.mounted = true;
            Some(m)
        }
    }

    impl Drop for LoopMount {
        fn drop(&mut self) {
            if self.mounted {
                let t = std::ffi::CString::new(self.mnt().to_str().unwrap()).unwrap();
                // SAFETY: a NUL-terminated path alive across the calls.
                unsafe {
                    if libc::umount2(t.as_ptr(), 0) != 0 {
                        libc::umount2(t.as_ptr(), libc::MNT_DETACH);
                    }
                }
            }
            if let Some(dev) = &self.dev {
                let _ = std::process::Command::new("losetup")
                    .args(["-d", dev])
                    .status();
            }
        }
    }

    /// The ext4 superblock's mount count (`s_mnt_count`, which every
    /// read-write mount raises), read from the device.
    fn ext4_mount_count(dev: &str) -> u16 {
        use std::os::unix::fs::FileExt;
        let f = std::fs::File::open(dev).unwrap();
        let mut sb = [0u8; 0x3a];
        f.read_exact_at(&mut sb, 1024).unwrap();
        assert_eq!(
            u16::from_le_bytes([sb[0x38], sb[0x39]]),
            0xef53,
            "ext4 magic"
        );
        u16::from_le_bytes([sb[0x34], sb[0x35]])
    }

    #[test]
    fn dash_u_remounts_a_real_file_system_before_each_pass() {
        let Some(m) = LoopMount::new() else {
            return;
        };
        let mnt = m.mnt();
        let work = mnt.join("work");
        std::fs::create_dir(&work).unwrap();
        let cfg = config(&format!(
            "-s 256k -r 4k -i 0 -i 1 -U {}",
            mnt.to_str().unwrap()
        ));
        assert_eq!(check_remount(&cfg, &work), Ok(()));
        let e = check_remount(&cfg, m.dir.path()).unwrap_err();
        assert!(e.contains("not on that file system"), "{e}");
        let dev = m.dev.clone().unwrap();
        let before = ext4_mount_count(&dev);
        let out = run(&cfg, &work, Choice::SYNC, &|_| {}).unwrap();
        assert!(out.complete, "{:?}", out.error);
        assert_eq!(out.remounts, 4, "write, rewrite, read, reread");
        // mounted again 4 times (mount IDs are no proof: the kernel
        // hands a new mount the ID the old one freed)
        assert_eq!(ext4_mount_count(&dev), before + 4);
        let row = &out.table.rows[0];
        assert_eq!((row.kb, row.reclen_kb), (256, 4));
        for col in [Column::Write, Column::Rewrite, Column::Read, Column::Reread] {
            assert!(row.cell(col) > 0, "{col:?}");
            assert_eq!(
                count(&out, col, OpKind::Write) + count(&out, col, OpKind::Read),
                64
            );
        }
        let text = crate::suites::iozone::report::text_table(&out.table);
        assert_eq!(text.lines().count(), 3);
        // the file went with the cell, on the file system mounted again
        assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);

        // a file held open keeps the file system busy: the remount before
        // the read pass fails, the run stops with the reason, and the file
        // written for the read is still removed
        let held = std::fs::File::create(work.join("held")).unwrap();
        let cfg = config(&format!("-s 256k -r 4k -i 1 -U {}", mnt.to_str().unwrap()));
        let out = run(&cfg, &work, Choice::SYNC, &|_| {}).unwrap();
        drop(held);
        assert!(!out.complete);
        let e = out.error.unwrap_or_default();
        assert!(
            e.contains("cannot unmount") && e.contains("still mounted"),
            "{e}"
        );
        assert_eq!(out.remounts, 0);
        assert!(out.table.rows.is_empty());
        let left: Vec<_> = std::fs::read_dir(&work)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["held"]);
    }

    #[test]
    fn figures_are_iozones() {
        let s = 1_000_000_000;
        assert_eq!(figure(Unit::KbPerSec, 1 << 20, 256, s), 1024);
        assert_eq!(figure(Unit::KbPerSec, 1 << 20, 256, 2 * s), 512);
        assert_eq!(
            figure(Unit::KbPerSec, 1023, 1, s),
            0,
            "rounded down after >> 10"
        );
        assert_eq!(figure(Unit::OpsPerSec, 1 << 20, 256, s), 256);
        assert_eq!(figure(Unit::UsPerOp, 1 << 20, 256, s), 3906);
        assert!(
            figure(Unit::KbPerSec, 1 << 20, 256, 0) > 0,
            "no division by zero"
        );
        let r = run_logged(&format!("-i 0 -O {SMALL}"));
        assert_eq!(r.out.table.units, Units::OpsPerSec);
    }
}
