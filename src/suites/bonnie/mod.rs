//! Bonnie (Tim Bray, 1990–96: the version Chen & Patterson ran) and
//! bonnie++ 2.00a (Russell Coker), as two flavours of one benchmark.
//!
//! Both time a sequence of phases on one file: a write a character at a
//! time, a block write, a rewrite (read a chunk, dirty it, write it back),
//! a read a character at a time, a block read and random seeks by several
//! seekers fed tickets through a pipe; bonnie++ adds small-file tests
//! (create, stat and delete, in directory order and in random order).
//! Each phase is one run of the runner: it is timed from just before its
//! loop to just after its close, its CPU time is the process's (seekers:
//! each seeker's own), and every system call goes through an engine, so
//! iogauge's latency histograms sit beside the classic figures.
//!
//! | | Bonnie (default) | bonnie++ |
//! |---|---|---|
//! | chunk | 16 KiB | 8 KiB (`-s size:chunk`) |
//! | per-char I/O | a stdio-like stream, one refill or flush per chunk, over the whole file | one 1-byte read(2)/write(2) per byte, over 3 MiB (`-f`) |
//! | close | close(2) | fsync(2) then close(2), timed |
//! | seeks | 4000 over 3 processes | 8192 over 5 threads |
//! | order | putc, rewrite, block write, getc, block read, seeks | putc, block write, rewrite, getc, block read, seeks, file tests |

pub mod details;
mod files;
mod io;
pub mod report;
mod seeks;
pub mod survey;

pub use seeks::{PROCESS_KIND, Seekers};

use crate::engine::Choice;
use crate::measure::{CpuTimes, LatencySummary, OpKind, Outcome, WorkerStats};
use crate::report::RunResult;
use crate::runner::{self, Progress, StopRule, Worker};
use crate::session::Setup;
use crate::units::{SizeError, SizeSyntax};
use crate::workload::bsd_random::BsdRandom;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// 1 MiB, bonnie++'s unit of file size.
pub const MIB: u64 = 1 << 20;

/// Which program's rules.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, clap::ValueEnum,
)]
#[schemars(rename = "bonnieFlavor")]
pub enum Flavor {
    /// The original Bonnie (1996), as Chen & Patterson ran it.
    #[serde(rename = "bonnie")]
    #[value(name = "bonnie")]
    Bonnie,
    /// bonnie++ 2.00a.
    #[serde(rename = "bonnie++")]
    #[value(name = "bonnie++")]
    BonniePlusPlus,
}

impl Flavor {
    pub fn is_pp(self) -> bool {
        self == Flavor::BonniePlusPlus
    }
}

/// The twelve tests, in bonnie++'s order (its CSV and table columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    Putc,
    PutBlock,
    Rewrite,
    Getc,
    GetBlock,
    Seeks,
    SeqCreate,
    SeqStat,
    SeqDel,
    RanCreate,
    RanStat,
    RanDel,
}

impl Test {
    pub const ALL: [Test; 12] = [
        Test::Putc,
        Test::PutBlock,
        Test::Rewrite,
        Test::Getc,
        Test::GetBlock,
        Test::Seeks,
        Test::SeqCreate,
        Test::SeqStat,
        Test::SeqDel,
        Test::RanCreate,
        Test::RanStat,
        Test::RanDel,
    ];

    /// bonnie++'s CSV name of the test.
    pub fn name(self) -> &'static str {
        match self {
            Test::Putc => "putc",
            Test::PutBlock => "put_block",
            Test::Rewrite => "rewrite",
            Test::Getc => "getc",
            Test::GetBlock => "get_block",
            Test::Seeks => "seeks",
            Test::SeqCreate => "seq_create",
            Test::SeqStat => "seq_stat",
            Test::SeqDel => "seq_del",
            Test::RanCreate => "ran_create",
            Test::RanStat => "ran_stat",
            Test::RanDel => "ran_del",
        }
    }

    /// What the row of a report calls it.
    pub fn title(self) -> &'static str {
        match self {
            Test::Putc => "per-char write",
            Test::PutBlock => "block write",
            Test::Rewrite => "rewrite",
            Test::Getc => "per-char read",
            Test::GetBlock => "block read",
            Test::Seeks => "random seeks",
            Test::SeqCreate => "sequential create",
            Test::SeqStat => "sequential stat",
            Test::SeqDel => "sequential delete",
            Test::RanCreate => "random create",
            Test::RanStat => "random stat",
            Test::RanDel => "random delete",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// The unit of its rate.
    pub fn unit(self) -> &'static str {
        match self {
            Test::Seeks => "seeks/s",
            t if t >= Test::SeqCreate => "files/s",
            _ => "KiB/s",
        }
    }

    /// What the program prints on stderr as the test starts.
    fn start_line(self, flavor: Flavor) -> &'static str {
        match (self, flavor) {
            (Test::Putc, Flavor::Bonnie) => "Writing with putc()...",
            (Test::Putc, _) => "Writing a byte at a time...",
            (Test::PutBlock, _) => "Writing intelligently...",
            (Test::Rewrite, _) => "Rewriting...",
            (Test::Getc, Flavor::Bonnie) => "Reading with getc()...",
            (Test::Getc, _) => "Reading a byte at a time...",
            (Test::GetBlock, _) => "Reading intelligently...",
            (Test::Seeks, _) => "start 'em...",
            (Test::SeqCreate, _) => "Create files in sequential order...",
            (Test::SeqStat, _) => "Stat files in sequential order...",
            (Test::SeqDel, _) => "Delete files in sequential order...",
            (Test::RanCreate, _) => "Create files in random order...",
            (Test::RanStat, _) => "Stat files in random order...",
            (Test::RanDel, _) => "Delete files in random order...",
        }
    }
}

/// `-n num[:max[:min[:ndirs[:chunk]]]]`: the small-file tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileTests {
    /// Files, in units of 1024.
    pub num: u32,
    /// Largest file in bytes (0: empty files; -1: hard links; -2: symlinks).
    pub max: i64,
    pub min: i64,
    pub dirs: u32,
    /// Size of each write and read of a file's data.
    pub chunk: u32,
}

impl FileTests {
    pub fn count(&self) -> u64 {
        u64::from(self.num) * 1024
    }

    /// The most data the files hold at once.
    pub fn bytes(&self) -> u64 {
        self.count() * (self.max.max(0) as u64 + 4096)
    }
}

/// Where the random numbers come from (`-z seed`, `-Z file`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Seed {
    /// srand(seed): glibc's rand().
    Num(u32),
    /// Integers read from a file (network byte order), used in turn.
    File {
        path: PathBuf,
        #[serde(skip)]
        values: Vec<u32>,
    },
}

impl Seed {
    /// How the CSV line names it.
    pub fn label(&self) -> String {
        match self {
            Seed::Num(n) => n.to_string(),
            Seed::File { path, .. } => path.display().to_string(),
        }
    }

    /// Read `-Z FILE`: every 4 bytes one number (big-endian, made positive).
    pub fn from_file(path: &Path) -> Result<Seed, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("-Z {}: cannot read it: {e}", path.display()))?;
        let values: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]).unsigned_abs() & 0x7fff_ffff)
            .collect();
        if values.is_empty() {
            return Err(format!(
                "-Z {}: the file holds no 4-byte number",
                path.display()
            ));
        }
        Ok(Seed::File {
            path: path.to_path_buf(),
            values,
        })
    }
}

/// bonnie++'s generator: rand() after srand(seed), or a file's numbers.
pub struct Rand<'a> {
    src: RandSrc<'a>,
}

enum RandSrc<'a> {
    Glibc(BsdRandom),
    File(&'a [u32], usize),
}

impl<'a> Rand<'a> {
    pub fn new(seed: &'a Seed) -> Rand<'a> {
        Rand {
            src: match seed {
                Seed::Num(n) => RandSrc::Glibc(BsdRandom::new(*n)),
                Seed::File { values, .. } => RandSrc::File(values, 0),
            },
        }
    }

    /// The next number in [0, 2^31) (bonnie++'s getNum).
    pub fn num(&mut self) -> u32 {
        match &mut self.src {
            RandSrc::Glibc(r) => r.next(),
            RandSrc::File(v, i) => {
                let x = v[*i];
                *i = (*i + 1) % v.len();
                x
            }
        }
    }
}

/// What to run, and how its report is printed: a result's `config`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Options {
    pub flavor: Flavor,
    pub dir: PathBuf,
    /// File size in MiB (0: no file tests of the big file).
    pub size_mib: u64,
    pub chunk: u32,
    pub seeks: u32,
    pub seekers: u32,
    /// MiB written and read a character at a time (0: skip those tests).
    pub byte_io_mib: u64,
    pub files: Option<FileTests>,
    /// Copies run at once, each on its own file and directory.
    pub concurrency: u32,
    /// fsync after every write (and the directory after each create and delete).
    pub sync_writes: bool,
    /// O_DIRECT for the block tests, the rewrite and the seeks.
    pub direct: bool,
    pub engine: Choice,
    pub seed: Seed,
    pub machine: String,
    /// RAM in MiB the file size is checked against (0: no check).
    pub ram_mib: u64,
    /// Seekers as processes (Bonnie) rather than threads (bonnie++).
    pub seek_processes: bool,
    /// Bonnie's -html: its report is the HTML row, not the table.
    #[serde(default)]
    pub html: bool,
    /// `-x N`: the runs asked for, each reported by its CSV line alone
    /// (bonnie++) or Bonnie's table alone; none without -x.
    #[serde(default)]
    pub runs: Option<u32>,
}

impl Options {
    /// The defaults of `flavor`, before the command line: the size is
    /// bonnie++'s rule for `ram_mib` (see [`default_size_mib`]).
    pub fn new(flavor: Flavor, dir: &Path, ram_mib: u64) -> Options {
        let (chunk, seeks, seekers) = match flavor {
            Flavor::Bonnie => (16384, 4000, 3),
            Flavor::BonniePlusPlus => (8192, 8192, 5),
        };
        let size_mib = default_size_mib(ram_mib);
        Options {
            flavor,
            dir: dir.to_path_buf(),
            size_mib,
            chunk,
            seeks,
            seekers,
            byte_io_mib: if flavor.is_pp() { 3 } else { size_mib },
            files: None,
            concurrency: 1,
            sync_writes: false,
            direct: false,
            engine: Choice::SYNC,
            seed: Seed::Num(default_seed()),
            machine: hostname(),
            ram_mib,
            seek_processes: !flavor.is_pp(),
            html: false,
            runs: None,
        }
    }

    /// Bytes of the big file.
    pub fn file_bytes(&self) -> u64 {
        match self.flavor {
            // Bonnie rounds down to a whole chunk
            Flavor::Bonnie => self.size_mib * MIB / u64::from(self.chunk) * u64::from(self.chunk),
            Flavor::BonniePlusPlus => self.size_mib * MIB,
        }
    }

    pub fn chunks(&self) -> u64 {
        self.file_bytes() / u64::from(self.chunk)
    }

    /// Bytes the per-character tests move.
    pub fn byte_io_bytes(&self) -> u64 {
        match self.flavor {
            Flavor::Bonnie => self.file_bytes(),
            Flavor::BonniePlusPlus => self.byte_io_mib.min(self.size_mib) * MIB,
        }
    }

    /// The tests this configuration runs, in execution order.
    pub fn tests(&self) -> Vec<Test> {
        let mut v = Vec::new();
        if self.size_mib > 0 {
            let byte = self.byte_io_bytes() > 0;
            let mut order = Test::ALL[..6].to_vec();
            if !self.flavor.is_pp() {
                // Bonnie rewrites the file its per-char write made, before
                // its block write
                order.swap(1, 2);
            }
            v.extend(
                order
                    .into_iter()
                    .filter(|t| byte || !matches!(t, Test::Putc | Test::Getc)),
            );
        }
        if self.files.is_some() {
            v.extend(&Test::ALL[6..]);
        }
        v
    }

    /// Check what the flags alone can tell.
    pub fn check(&self) -> Result<(), String> {
        if self.flavor == Flavor::Bonnie && self.size_mib == 0 {
            return Err("-s must be at least 1 (MiB)".into());
        }
        if self.size_mib == 0 && self.files.is_none() {
            return Err(
                "nothing to do: -s 0 and no -n (give a file size, or -n for the small-file tests)"
                    .into(),
            );
        }
        if self.size_mib > 0 {
            self.engine
                .check_grows("Bonnie writes its file from empty (-s)", "sync or psync")?;
        }
        if let Some(f) = self.files.filter(|f| f.max > 0) {
            self.engine.check_grows(
                &format!(
                    "the small-file tests write up to {} B into each new file (-n)",
                    f.max
                ),
                "sync or psync, or -n NUM:0 for empty files",
            )?;
        }
        if self.direct {
            crate::engine::EngineSpec::new(self.engine)
                .direct(true)
                .aligned("-D: the chunk", u64::from(self.chunk))?;
        }
        if self.size_mib > 0 && self.chunks() == 0 {
            return Err("the file is smaller than one chunk".into());
        }
        if self.seekers == 0 {
            return Err("the seekers must be at least 1".into());
        }
        if self.flavor.is_pp()
            && self.ram_mib > 0
            && self.size_mib > 0
            && self.size_mib * u64::from(self.concurrency) < self.ram_mib * 2
        {
            return Err(format!(
                "File size should be double RAM for good results, RAM is {}M (give -r MiB to state the RAM, or -r 0 to skip this check)",
                self.ram_mib
            ));
        }
        Ok(())
    }

    /// What the seekers may be fed through one pipe (see `seeks`).
    fn workers(&self) -> usize {
        (self.concurrency as usize) * (self.seekers as usize).max(1)
    }
}

/// bonnie++'s file-size rule: twice RAM (at least 300 MiB), rounded up to
/// a whole GiB when more than half a GiB over one.
pub fn default_size_mib(ram_mib: u64) -> u64 {
    let mut size = 300u64.max(ram_mib * 2);
    if size % 1024 > 512 {
        size += 1024 - size % 1024;
    }
    size
}

/// bonnie++'s seed when none is given: pid XOR time.
pub fn default_seed() -> u32 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    (std::process::id() ^ t as u32) & 0x7fff_ffff
}

/// This machine's node name (bonnie++'s default for `-m`).
pub fn hostname() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// bonnie++'s `size_from_str`: a number with an optional suffix from
/// `units`, each letter 1024 times the one before it (`"gt"`: g = ×1024,
/// t = ×1024²).
pub fn size_from_str(s: &str, units: &str) -> Result<u64, String> {
    let s = s.trim();
    // bonnie++'s suffixes are ASCII letters
    let letters: Vec<&str> = (0..units.len()).map(|i| &units[i..i + 1]).collect();
    let mut suffixes: Vec<(&[&str], u64)> = vec![(&[""], 1)];
    suffixes.extend(
        letters
            .iter()
            .enumerate()
            .map(|(i, letter)| (std::slice::from_ref(letter), 1u64 << (10 * (i as u32 + 1)))),
    );
    let bonnie = SizeSyntax {
        suffixes: &suffixes,
        fractions: false,
        max: u64::MAX,
    };
    bonnie.parse(s).map_err(|e| match e {
        SizeError::NoNumber | SizeError::Overflow => format!("'{s}' is not a whole number"),
        SizeError::Suffix(_) => format!("'{s}': the suffix may be {}", letters.join(" or ")),
        SizeError::TooLarge | SizeError::NotWhole => format!("'{s}' is too large"),
    })
}

/// `-s size[:chunk[:seeks[:seekers]]]` (bonnie++); the size in MiB, `g`
/// and `t` suffixes allowed; the chunk a power of two from 256 B to 1 MiB.
pub fn parse_size_spec(s: &str) -> Result<SizeSpec, String> {
    let mut parts = s.split(':');
    let size = size_from_str(parts.next().unwrap_or(""), "gt")
        .map_err(|e| format!("-s {s}: the size {e}"))?;
    // MiB, within iogauge's largest size
    if size > crate::units::MAX_SIZE >> 20 {
        return Err(format!(
            "-s {s}: the size is larger than the largest size iogauge takes, 1 EiB"
        ));
    }
    let chunk = match parts.next().filter(|p| !p.is_empty()) {
        Some(c) => Some(chunk_size(c, "-s", s)?),
        None => None,
    };
    let seeks = match parts.next().filter(|p| !p.is_empty()) {
        Some(n) => {
            let n = size_from_str(n, "k").map_err(|e| format!("-s {s}: the seeks {e}"))?;
            if n == 0 || n > 1 << 30 {
                return Err(format!("-s {s}: the seeks must be 1 to 2^30"));
            }
            Some(n as u32)
        }
        None => None,
    };
    let seekers = match parts.next().filter(|p| !p.is_empty()) {
        Some(n) => {
            let n: u32 = n
                .parse()
                .map_err(|_| format!("-s {s}: the seekers '{n}' is not a whole number"))?;
            if !(1..=1000).contains(&n) {
                return Err(format!("-s {s}: the seekers must be 1 to 1000"));
            }
            Some(n)
        }
        None => None,
    };
    if parts.next().is_some() {
        return Err(format!(
            "-s {s}: at most four parts, size:chunk:seeks:seekers"
        ));
    }
    Ok(SizeSpec {
        size,
        chunk,
        seeks,
        seekers,
    })
}

/// What `-s` gives: the size in MiB and what it sets beside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeSpec {
    pub size: u64,
    pub chunk: Option<u32>,
    pub seeks: Option<u32>,
    pub seekers: Option<u32>,
}

fn chunk_size(c: &str, flag: &str, whole: &str) -> Result<u32, String> {
    let n = size_from_str(c, "km").map_err(|e| format!("{flag} {whole}: the chunk {e}"))?;
    if !(256..=MIB).contains(&n) || !n.is_power_of_two() {
        return Err(format!(
            "{flag} {whole}: the chunk must be a power of two from 256 to 1m, not {c}"
        ));
    }
    Ok(n as u32)
}

/// `-n num[:max[:min[:ndirs[:chunk]]]]`; `None` for `-n 0` (no file tests).
pub fn parse_file_tests(s: &str) -> Result<Option<FileTests>, String> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() > 5 {
        return Err(format!(
            "-n {s}: at most five parts, num:max:min:dirs:chunk"
        ));
    }
    let num = size_from_str(parts[0], "m").map_err(|e| format!("-n {s}: the number {e}"))?;
    if num > 1 << 20 {
        return Err(format!(
            "-n {s}: the number of files (in 1024s) must be at most 1048576"
        ));
    }
    let signed = |p: &str, what: &str| -> Result<i64, String> {
        match p {
            "-1" => Ok(-1),
            "-2" => Ok(-2),
            p => size_from_str(p, "kmg")
                .map(|n| n as i64)
                .map_err(|e| format!("-n {s}: the {what} {e}")),
        }
    };
    let max = match parts.get(1) {
        Some(p) => signed(p, "max size")?,
        None => 0,
    };
    let min = match parts.get(2) {
        Some(p) => signed(p, "min size")?,
        None => 0,
    };
    if max >= 0 && (min < 0 || max < min) {
        return Err(format!(
            "-n {s}: the max size {max} is smaller than the min size {min}"
        ));
    }
    if max < 0 && min != 0 {
        return Err(format!("-n {s}: links (max -1 or -2) take no min size"));
    }
    let dirs = match parts.get(3) {
        Some(p) => {
            let d = size_from_str(p, "k").map_err(|e| format!("-n {s}: the directories {e}"))?;
            if !(1..100_000).contains(&d) {
                return Err(format!("-n {s}: the directories must be 1 to 99999"));
            }
            d as u32
        }
        None => 1,
    };
    let chunk = match parts.get(4) {
        Some(p) => chunk_size(p, "-n", s)?,
        None => 8192,
    };
    Ok((num > 0).then_some(FileTests {
        num: num as u32,
        max,
        min,
        dirs,
        chunk,
    }))
}

/// One test as measured.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    pub elapsed: Duration,
    /// CPU the test used (peak RSS unused).
    pub cpu: CpuTimes,
    /// bonnie++'s latency: the longest single unit of work (a chunk, a
    /// seek, a file).
    pub latency: Duration,
    /// Bytes (I/O tests), seeks or files done, over all copies.
    pub work: u64,
    pub stats: WorkerStats,
    /// Workers (copies × seekers) whose I/O time the stats sum.
    pub workers: usize,
    /// When it began, from the start of the run.
    pub offset: Duration,
}

impl Measured {
    /// The test's rate in its unit ([`Test::unit`]).
    pub fn rate(&self, test: Test) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs <= 0.0 {
            return 0.0;
        }
        match test.unit() {
            "KiB/s" => self.work as f64 / 1024.0 / secs,
            _ => self.work as f64 / secs,
        }
    }

    /// CPU seconds, user and system.
    pub fn cpu_s(&self) -> f64 {
        self.cpu.user.as_secs_f64() + self.cpu.sys.as_secs_f64()
    }

    pub fn cpu_percent(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.cpu_s() / secs * 100.0
        } else {
            0.0
        }
    }

    pub fn io_time_fraction(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64() * self.workers.max(1) as f64;
        if secs > 0.0 {
            self.stats.io_ns as f64 / 1e9 / secs
        } else {
            0.0
        }
    }
}

/// A whole run: each test that ran, by [`Test::index`].
#[derive(Debug, Default)]
pub struct Results {
    pub tests: [Option<Measured>; 12],
}

impl Results {
    pub fn get(&self, t: Test) -> Option<&Measured> {
        self.tests[t.index()].as_ref()
    }
}

/// Run `o` once: one result, with the tests in `metrics` and the
/// classic figures beside iogauge's.
pub fn run(o: &Options, tell: &dyn Progress) -> Result<(RunResult, Results)> {
    let copies = u64::from(o.concurrency);
    let data = copies * (o.file_bytes() + o.files.map_or(0, |f| f.bytes()));
    let session = Setup::new("bonnie", &o.dir)
        .label(&format!("-d {}", o.dir.display()))
        .data(data)
        .fake(o.engine.is_fake())
        .workers(
            o.workers(),
            2 + u64::from(o.files.map_or(0, |f| f.dirs)),
            o.seek_processes,
        )
        .config(o)
        .begin()?;
    let run_start = std::time::Instant::now();
    let (results, failure, interrupted) = run_tests(o, session.dir(), run_start, tell)?;
    if interrupted || failure.is_some() {
        tell.say("\n");
    }
    let whole = combined(&results, run_start.elapsed(), failure, interrupted);
    let mut r = session.finish(&whole);
    r.set_figures(&Figures::of(o, &results));
    Ok((r, results))
}

/// Run the tests of `o` in order in `work`, each at its offset from
/// `run_start`, until one fails or Ctrl-C: what each measured, the error
/// that ended the run and whether Ctrl-C did.
fn run_tests(
    o: &Options,
    work: &Path,
    run_start: std::time::Instant,
    tell: &dyn Progress,
) -> Result<(Results, Option<anyhow::Error>, bool)> {
    let mut results = Results::default();
    let mut rand = Rand::new(&o.seed);
    let mut copies = io::Copies::new(o, work)?;
    let mut file_sets = files::FileSets::new(o, work)?;
    let (mut failure, mut interrupted) = (None, false);
    for test in o.tests() {
        if runner::signals::interrupted() {
            interrupted = true;
            break;
        }
        if test >= Test::SeqCreate {
            // the big file is gone before the small files come, as in bonnie++
            copies.remove();
        }
        tell.say(test.start_line(o.flavor));
        let offset = run_start.elapsed();
        let step = match test {
            Test::Seeks => seeks::run(o, &mut copies, &mut rand),
            t if t >= Test::SeqCreate => file_sets.run(t, &mut rand),
            t => copies.run(t),
        };
        let (mut m, outcome_err, stopped) = match step {
            Ok(x) => x,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        m.offset = offset;
        results.tests[test.index()] = Some(m);
        if let Some(e) = outcome_err {
            failure = Some(e);
            break;
        }
        if stopped {
            interrupted = true;
            break;
        }
        match test {
            Test::Seeks => tell.say(&format!("{}\n", "done...".repeat(o.workers()))),
            t if t >= Test::SeqCreate => tell.say("done.\n"),
            _ => tell.say("done\n"),
        }
    }
    copies.remove();
    Ok((results, failure, interrupted))
}

/// Bonnie and bonnie++, typed: the plan is the [`Options`], the figures
/// are [`Figures`], the report is what the command prints of a run.
pub struct Bonnie;

impl crate::suites::Benchmark for Bonnie {
    const NAME: &'static str = "bonnie";
    type Plan = Options;
    type Figures = Figures;
    fn classic(o: &Options, f: &Figures, r: &RunResult) -> String {
        let (text, csv) = details::printed(o, f, r);
        text + &csv
    }
}

/// A run's figures: the result's `metrics`. Each test that ran is under
/// its bonnie++ CSV name.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "bonnieFigures")]
pub struct Figures {
    /// Which program's rules: `bonnie` or `bonnie++`.
    pub flavor: Flavor,
    /// Bytes of the big file (Bonnie's rounded down to a whole chunk).
    pub file_size_bytes: u64,
    /// Copies run at once, each on its own file and directory.
    pub concurrency: u32,
    /// The seed of the random numbers, or the file they were read from.
    pub seed: String,
    /// Writing a character at a time, in KiB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub putc: Option<TestFigures>,
    /// Writing in chunks, in KiB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub put_block: Option<TestFigures>,
    /// Reading a chunk, dirtying it and writing it back, in KiB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<TestFigures>,
    /// Reading a character at a time, in KiB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub getc: Option<TestFigures>,
    /// Reading in chunks, in KiB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub get_block: Option<TestFigures>,
    /// Random reads (a tenth of them rewritten) by several seekers, in seeks/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeks: Option<TestFigures>,
    /// bonnie++: creating files in name order, in files/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq_create: Option<TestFigures>,
    /// bonnie++: stat of every file in directory order, in files/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq_stat: Option<TestFigures>,
    /// bonnie++: deleting files in directory order, in files/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq_del: Option<TestFigures>,
    /// bonnie++: creating files in random order, in files/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran_create: Option<TestFigures>,
    /// bonnie++: stat of the files in random order, in files/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran_stat: Option<TestFigures>,
    /// bonnie++: deleting the files in random order, in files/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran_del: Option<TestFigures>,
    /// The line printed when the page cache can hold the file (null otherwise).
    pub page_cache_note: Option<String>,
    /// The line on what -D covered (null without -D).
    pub direct_note: Option<String>,
    /// bonnie++'s CSV line of 50 fields (bonnie++ only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csv: Option<String>,
}

impl Figures {
    /// The figures of a run of `o` that measured `results`.
    fn of(o: &Options, results: &Results) -> Figures {
        let test = |t: Test| {
            results
                .get(t)
                .map(|m| TestFigures::of(t, m, io::uses_direct(o, t)))
        };
        let mut figures = Figures {
            flavor: o.flavor,
            file_size_bytes: o.file_bytes(),
            concurrency: o.concurrency,
            seed: o.seed.label(),
            putc: test(Test::Putc),
            put_block: test(Test::PutBlock),
            rewrite: test(Test::Rewrite),
            getc: test(Test::Getc),
            get_block: test(Test::GetBlock),
            seeks: test(Test::Seeks),
            seq_create: test(Test::SeqCreate),
            seq_stat: test(Test::SeqStat),
            seq_del: test(Test::SeqDel),
            ran_create: test(Test::RanCreate),
            ran_stat: test(Test::RanStat),
            ran_del: test(Test::RanDel),
            page_cache_note: page_cache_note(o),
            direct_note: direct_note(o),
            csv: None,
        };
        if o.flavor.is_pp() {
            figures.csv = Some(report::csv_line(o, &figures));
        }
        figures
    }

    /// Test `t`'s figures, if it ran.
    pub fn test(&self, t: Test) -> Option<&TestFigures> {
        match t {
            Test::Putc => &self.putc,
            Test::PutBlock => &self.put_block,
            Test::Rewrite => &self.rewrite,
            Test::Getc => &self.getc,
            Test::GetBlock => &self.get_block,
            Test::Seeks => &self.seeks,
            Test::SeqCreate => &self.seq_create,
            Test::SeqStat => &self.seq_stat,
            Test::SeqDel => &self.seq_del,
            Test::RanCreate => &self.ran_create,
            Test::RanStat => &self.ran_stat,
            Test::RanDel => &self.ran_del,
        }
        .as_ref()
    }
}

/// One test's figures: the classic ones (rate, CPU, latency) and
/// iogauge's.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "bonnieTest")]
pub struct TestFigures {
    /// The rate in `unit`, over all copies.
    pub rate: f64,
    /// `KiB/s` (1024 bytes a second), `seeks/s` or `files/s`.
    pub unit: String,
    /// Whether the test opened its file with O_DIRECT.
    pub o_direct: bool,
    /// CPU time (user and system) over the elapsed time, in percent.
    pub cpu_percent: f64,
    /// The test's time, in seconds.
    pub elapsed_s: f64,
    /// CPU time, user and system, in seconds.
    pub cpu_s: f64,
    /// Bytes (I/O tests), seeks or files done, over all copies.
    pub work: u64,
    /// Shorter than 0.5 s: bonnie++ prints `+++++` for it.
    pub under_min_time: bool,
    /// bonnie++'s latency: the longest single unit of work (a chunk, a
    /// seek, a file), in nanoseconds.
    pub latency_max_ns: u64,
    /// The share of the test's time its workers spent inside I/O calls (0 to 1).
    pub io_time_fraction: f64,
    /// Each op kind's count, bytes and latency, by its name.
    #[schemars(with = "BTreeMap<String, OpFigures>")]
    pub ops: BTreeMap<OpKind, OpFigures>,
}

impl TestFigures {
    /// The figures of test `t` as measured (`direct`: its file had O_DIRECT).
    pub fn of(t: Test, m: &Measured, direct: bool) -> TestFigures {
        TestFigures {
            rate: m.rate(t),
            unit: t.unit().into(),
            o_direct: direct,
            cpu_percent: m.cpu_percent(),
            elapsed_s: m.elapsed.as_secs_f64(),
            cpu_s: m.cpu_s(),
            work: m.work,
            under_min_time: m.elapsed.as_secs_f64() < report::MIN_TIME,
            latency_max_ns: m.latency.as_nanos() as u64,
            io_time_fraction: m.io_time_fraction(),
            ops: m
                .stats
                .kinds()
                .map(|(k, s)| {
                    (
                        k,
                        OpFigures {
                            count: s.count,
                            bytes: s.bytes,
                            latency_ns: s.summary(),
                        },
                    )
                })
                .collect(),
        }
    }
}

/// One op kind of a test.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "bonnieOps")]
pub struct OpFigures {
    /// Calls made.
    pub count: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// Their latency, in nanoseconds: mean, stddev, min, max and percentiles.
    #[schemars(with = "serde_json::Value")]
    pub latency_ns: LatencySummary,
}

/// The whole run's result narrowed to one test: its ops, time, CPU and
/// share of time in I/O (the survey's rows, one per test).
pub fn test_result(whole: &RunResult, m: &Measured) -> RunResult {
    let o = Outcome {
        stats: m.stats.clone(),
        per_worker: Vec::new(),
        workers: m.workers,
        worker_ns: 0,
        elapsed: m.elapsed,
        cpu: m.cpu,
        complete: whole.complete,
        interrupted: false,
        error: None,
        extras: Vec::new(),
        failures: Vec::new(),
        engine_modes: Vec::new(),
        pinned: Vec::new(),
        machine: Default::default(),
    };
    let mut r = whole.clone().with_outcome(&o);
    r.error.clone_from(&whole.error);
    r
}

/// One line when the page cache can hold the file: the figures are then
/// memory's, not the disk's.
pub fn page_cache_note(o: &Options) -> Option<String> {
    if o.size_mib == 0 || o.engine.is_fake() {
        return None;
    }
    let bytes = o.file_bytes() * u64::from(o.concurrency);
    let ram = crate::env::mem_total();
    if ram == 0 || bytes >= ram {
        return None;
    }
    let mut note = format!(
        "Note: the {} file{} fit{} in this machine's page cache ({} of RAM): ",
        crate::units::fmt_bytes(bytes),
        if o.concurrency > 1 { "s" } else { "" },
        if o.concurrency > 1 { "" } else { "s" },
        crate::units::fmt_bytes(ram)
    );
    if o.direct {
        note += "-D took the block write past it; the other tests ran through it, at memory speeds, \
                 not the disk's (use a file of twice RAM).";
    } else {
        note += "these are memory speeds, not the disk's (use a file of twice RAM).";
    }
    Some(note)
}

/// One line on what -D covered: the block write only, as in bonnie++
/// 2.00a, and where iogauge does what 2.00a cannot.
pub fn direct_note(o: &Options) -> Option<String> {
    if !o.direct || o.size_mib == 0 {
        return None;
    }
    let mut note = String::from(
        "Note: -D (O_DIRECT) covers the block write only, as in bonnie++ 2.00a: the rewrite, the \
         reads and the seeks open the file without it, through the page cache.",
    );
    if o.flavor.is_pp() && o.byte_io_bytes() > 0 {
        note += " bonnie++ 2.00a also opens the per-char write's file with O_DIRECT, and stops \
                 there (one-byte O_DIRECT writes are refused); iogauge wrote those bytes through \
                 the page cache (-f skips them).";
    }
    Some(note)
}

/// The whole run as one outcome: every test's ops, their time series laid
/// end to end, the CPU of the tests, the wall time of the run.
fn combined(
    r: &Results,
    wall: Duration,
    error: Option<anyhow::Error>,
    interrupted: bool,
) -> Outcome {
    let mut stats = WorkerStats::default();
    let (mut user, mut sys) = (Duration::ZERO, Duration::ZERO);
    let (mut workers, mut worker_ns) = (1, 0u128);
    for m in r.tests.iter().flatten() {
        stats.merge_at(&m.stats, m.offset.as_nanos() as u64);
        user += m.cpu.user;
        sys += m.cpu.sys;
        workers = workers.max(m.workers);
        worker_ns += m.elapsed.as_nanos() * m.workers.max(1) as u128;
    }
    Outcome {
        stats,
        per_worker: Vec::new(),
        workers,
        // the tests' own time, each with its own workers: the gaps
        // between tests (layout, sync) are no worker's time in I/O
        worker_ns: worker_ns.max(1),
        elapsed: wall,
        cpu: CpuTimes {
            user,
            sys,
            max_rss_kib: CpuTimes::now().max_rss_kib,
            ..Default::default()
        },
        complete: error.is_none() && !interrupted,
        interrupted,
        error,
        extras: Vec::new(),
        failures: Vec::new(),
        engine_modes: Vec::new(),
        pinned: Vec::new(),
        machine: Default::default(),
    }
}

/// How a test's work is counted from what its workers did: bytes moved,
/// seeks done, files handled.
pub(super) type WorkOf = fn(&Outcome) -> u64;

pub(super) fn bytes_written(o: &Outcome) -> u64 {
    o.stats.bytes(crate::measure::Direction::Write)
}

pub(super) fn bytes_read(o: &Outcome) -> u64 {
    o.stats.bytes(crate::measure::Direction::Read)
}

/// Run one test's workers; the measured test, the error that stopped it
/// and whether Ctrl-C did.
pub(super) fn run_phase<W: Worker>(
    workers: Vec<W>,
    work: WorkOf,
    cpu_of: impl FnOnce(&Outcome) -> CpuTimes,
    latency: impl FnOnce(&Outcome) -> Duration,
) -> (Measured, Option<anyhow::Error>, bool) {
    let n = workers.len();
    let o = runner::run(StopRule::default(), workers, &runner::NoProgress);
    measured(o, n, work, cpu_of, latency)
}

/// A test from what its `n` workers' run measured.
pub(super) fn measured(
    mut o: Outcome,
    n: usize,
    work: WorkOf,
    cpu_of: impl FnOnce(&Outcome) -> CpuTimes,
    latency: impl FnOnce(&Outcome) -> Duration,
) -> (Measured, Option<anyhow::Error>, bool) {
    let m = Measured {
        elapsed: o.elapsed,
        cpu: cpu_of(&o),
        latency: latency(&o),
        work: work(&o),
        stats: std::mem::take(&mut o.stats),
        workers: n,
        offset: Duration::ZERO,
    };
    (m, o.error.take(), o.interrupted)
}

/// The process's CPU over a test, as Bonnie's getrusage deltas give it.
pub(super) fn process_cpu(o: &Outcome) -> CpuTimes {
    o.cpu
}

/// What every worker of a test hands back: its longest unit (a seeker's
/// record holds it too).
#[derive(Serialize, Deserialize)]
pub(super) struct Slowest {
    pub latency_ns: u64,
}

impl Slowest {
    /// A worker's record of its longest unit, `latency_ns`.
    pub fn record(latency_ns: u64) -> serde_json::Value {
        serde_json::to_value(Slowest { latency_ns }).unwrap_or_default()
    }
}

/// The longest unit any worker reported.
pub(super) fn max_latency(o: &Outcome) -> Duration {
    Duration::from_nanos(
        o.records::<Slowest>()
            .into_iter()
            .flatten()
            .map(|s| s.latency_ns)
            .max()
            .unwrap_or(0),
    )
}

/// Op kinds the tests record.
pub(super) const IO_KINDS: &[OpKind] = &[OpKind::Read, OpKind::Write, OpKind::Fsync];

#[cfg(test)]
mod tests;
