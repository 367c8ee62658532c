//! IOzone 3.489's command line, parsed into a validated [`Config`].
//!
//! IOzone reads its flags with getopt(3): single letters, booleans bundled
//! (`-az`, `-Rb out.xls`), a value attached or in the next argument
//! (`-s64m`, `-s 64m`), and an extension letter after `+` (`-+n`, `-+p 50`)
//! whose value, if any, is the next argument (here it may also be attached,
//! `-+x4`, which IOzone would misread). clap cannot express
//! `-+x 2` or `-az` next to `-a` taking no value, so this is a small hand
//! parser over the argument list. The flags it knows are one table,
//! [`FLAGS`], which also makes the list printed with an unknown flag.
//!
//! Long options (`--json`, `--plot DIR`, …) are iogauge's own: they are
//! not interpreted here but handed back in [`Parsed::passthrough`], each
//! with the argument after it when that argument does not start with `-`
//! (IOzone takes no positional arguments, so nothing else can own it).
//! `--` ends IOzone's flags; it and everything after it are passed through.
//!
//! Values follow IOzone: sizes are in kB unless suffixed `k`, `m` or `g`
//! (either case). Where IOzone silently replaces nonsense (`-s 0` becomes
//! 512 kB, `-t 0` eight children, `-i 99` test 0) this parser refuses it
//! with a one-line message instead; where IOzone silently clamps a sensible
//! value (`-n` to at least 4 kB and the page size, `-+p` to 1..=100) it
//! clamps the same way.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::grid;
use crate::units::{SizeError, SizeSyntax};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Default file size (IOzone's `KILOBYTES`), kB.
pub const DEFAULT_FILE_KB: u64 = 512;
/// Default record size when `-r` is absent, kB.
pub const DEFAULT_RECORD_KB: u64 = 4;
/// Largest record (IOzone's `MAXBUFFERSIZE`, 16 MiB), kB. IOzone's
/// smallest, 128 B, cannot be asked for: `-r` counts whole kB.
pub const MAX_RECORD_KB: u64 = 16 * 1024;
/// Default stride of the stride-read test, in records (`-j`).
pub const DEFAULT_STRIDE: u64 = 17;
/// Most children in throughput mode (IOzone's `MAXSTREAMS`).
pub const MAX_STREAMS: u32 = 1024;
/// Default test file (`-f`).
pub const DEFAULT_FILE: &str = "iozone.tmp";

/// One of IOzone's tests, numbered as `-i` numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Test {
    /// `-i 0` write / rewrite.
    Write = 0,
    /// `-i 1` read / reread.
    Read = 1,
    /// `-i 2` random read / random write.
    RandomRw = 2,
    /// `-i 3` read backwards.
    Backwards = 3,
    /// `-i 4` record rewrite.
    RecordRewrite = 4,
    /// `-i 5` stride read (`-j`).
    StrideRead = 5,
    /// `-i 6` fwrite / re-fwrite.
    Fwrite = 6,
    /// `-i 7` fread / re-fread.
    Fread = 7,
    /// `-i 8` random mix (`-+p`); throughput mode only.
    RandomMix = 8,
    /// `-i 9` pwrite / re-pwrite (`-E`).
    Pwrite = 9,
    /// `-i 10` pread / re-pread (`-E`).
    Pread = 10,
    /// `-i 11` pwritev / re-pwritev (`-E`, not in throughput mode).
    Pwritev = 11,
    /// `-i 12` preadv / re-preadv (`-E`, not in throughput mode).
    Preadv = 12,
}

impl Test {
    /// Every test, in IOzone's order.
    pub const ALL: [Test; 13] = [
        Test::Write,
        Test::Read,
        Test::RandomRw,
        Test::Backwards,
        Test::RecordRewrite,
        Test::StrideRead,
        Test::Fwrite,
        Test::Fread,
        Test::RandomMix,
        Test::Pwrite,
        Test::Pread,
        Test::Pwritev,
        Test::Preadv,
    ];

    /// IOzone's number for the test (`-i N`).
    pub fn number(self) -> u8 {
        self as u8
    }

    /// The test numbered `n`, if there is one.
    pub fn from_number(n: u64) -> Option<Test> {
        usize::try_from(n)
            .ok()
            .and_then(|i| Test::ALL.get(i).copied())
    }

    /// A short name for messages, e.g. "random read/write".
    pub fn name(self) -> &'static str {
        match self {
            Test::Write => "write/rewrite",
            Test::Read => "read/reread",
            Test::RandomRw => "random read/write",
            Test::Backwards => "read backwards",
            Test::RecordRewrite => "record rewrite",
            Test::StrideRead => "stride read",
            Test::Fwrite => "fwrite/refwrite",
            Test::Fread => "fread/refread",
            Test::RandomMix => "random mix",
            Test::Pwrite => "pwrite/repwrite",
            Test::Pread => "pread/repread",
            Test::Pwritev => "pwritev/repwritev",
            Test::Preadv => "preadv/repreadv",
        }
    }

    /// Whether IOzone runs the test only with `-E` (tests 9–12).
    pub fn needs_extended(self) -> bool {
        self >= Test::Pwrite
    }
}

/// What the figures count (`-O`, `-N`; kB/s otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "iozoneUnits")]
pub enum Unit {
    /// kB/s, IOzone's default.
    #[serde(rename = "kB/s")]
    KbPerSec,
    /// Operations per second (`-O`).
    #[serde(rename = "ops/s")]
    OpsPerSec,
    /// Microseconds per operation (`-N`).
    #[serde(rename = "us/op")]
    UsPerOp,
}

/// How IOzone runs, decided by the flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "iozoneMode")]
pub enum Mode {
    /// One file size and one record size.
    Single,
    /// A grid of file and record sizes (`-a`, `-A`, several `-s` or `-r`).
    Auto,
    /// N children at once (`-t`, `-l`/`-u`).
    Throughput,
}

/// A validated IOzone configuration, IOzone's defaults filled in. In a
/// result's `config` its tests are numbers, and three keys are named as
/// IOzone names them (`crossover`, `o_sync`, `units`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Selected tests, ascending, no duplicates (`-i`; without it 0–8, or
    /// 0–12 with `-E`; `-A` keeps only 0 and 1).
    #[serde(with = "test_numbers")]
    pub tests: Vec<Test>,
    /// Whether `-i` or `-A` chose the tests (IOzone then prints only their
    /// Excel tables).
    pub tests_given: bool,
    /// `-E`: tests 9 and 10 (pwrite, pread) are among the defaults, and
    /// 11 and 12 (the vectored ones) may be asked for.
    pub extended: bool,
    /// `-+n`: no re-tests (the second figure of each pair is 0).
    pub no_retest: bool,
    /// Auto mode: `-a`, `-A`, or several `-s` or `-r`.
    pub auto: bool,
    /// `-s` values in kB, in the order given (empty: 512 kB, or the auto range).
    pub file_kb: Vec<u64>,
    /// `-r` values in kB, in the order given (empty: 4 kB, or the auto range).
    pub record_kb: Vec<u64>,
    /// `-n`: smallest file in auto mode, kB, clamped as IOzone does.
    pub min_file_kb: Option<u64>,
    /// `-g`: largest file in auto mode, kB.
    pub max_file_kb: Option<u64>,
    /// `-y`: smallest record in auto mode, kB.
    pub min_record_kb: Option<u64>,
    /// `-q`: largest record in auto mode, kB.
    pub max_record_kb: Option<u64>,
    /// `-z` (or `-A`): no crossover; small records on big files too.
    #[serde(rename = "crossover", with = "negated")]
    pub no_crossover: bool,
    /// `-+x`: the factor between successive file and record sizes (2).
    pub multiplier: u64,
    /// `-e`: fsync/fflush inside the timing.
    pub include_flush: bool,
    /// `-c`: close inside the timing.
    pub include_close: bool,
    /// `-I`: O_DIRECT.
    pub direct: bool,
    /// `-o`: O_SYNC.
    #[serde(rename = "o_sync")]
    pub sync: bool,
    /// `-w`: keep the test files.
    pub keep_files: bool,
    /// `-p`: purge the processor cache before each test. As in IOzone, an
    /// `-a` or `-A` given after `-p` turns it off again.
    pub purge: bool,
    /// `-U`: unmount and remount this mount point between tests.
    pub remount: Option<PathBuf>,
    /// `-f`: the test file outside throughput mode.
    pub file: PathBuf,
    /// Children counts to run, in order: the `-t` values, or `-l`..=`-u`.
    /// Empty outside throughput mode.
    pub children: Vec<u32>,
    /// `-T`: threads instead of processes.
    pub threads: bool,
    /// `-F`: one file name per child (else `iozone.DUMMY.<i>`).
    pub child_files: Vec<PathBuf>,
    /// Stonewalling on (`-x` turns it off).
    pub stonewall: bool,
    /// `-C`: a line per child.
    pub per_child: bool,
    /// `-d`: microseconds between releasing successive children.
    pub stagger_us: u64,
    /// `-+p`: percentage of random-mix children that read (1–100).
    pub read_pct: Option<u32>,
    /// `-j`: stride of the stride-read test, in records.
    pub stride: u64,
    /// `-R` (or `-b`, which implies it): Excel-style text report.
    pub excel: bool,
    /// `-b`: Excel workbook file.
    pub workbook: Option<PathBuf>,
    /// `-O`, `-N`.
    #[serde(rename = "units")]
    pub unit: Unit,
    /// `-+u`: CPU utilisation.
    pub cpu_util: bool,
    /// `-H N` or `-k N`: asynchronous I/O, N requests in flight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub async_io: Option<AsyncIo>,
    /// `--device`: `file` is a raw block device, used as it is: never
    /// unlinked, created or laid out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub device: bool,
}

/// IOzone's asynchronous I/O (`-H N`, `-k N`): the passes that IOzone
/// runs through its POSIX AIO library go through a queued engine at depth
/// N here (docs/iozone.md says which, and what differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AsyncIo {
    /// Requests in flight (IOzone's `depth`).
    pub depth: u16,
    /// `-k` was given: IOzone's no-copy form (iogauge copies in neither).
    pub no_copy: bool,
}

impl AsyncIo {
    /// The flag as given: `-H 8` or `-k 8`.
    pub fn flag(&self) -> String {
        format!("-{} {}", if self.no_copy { "k" } else { "H" }, self.depth)
    }
}

/// [`Config::tests`] as their `-i` numbers.
mod test_numbers {
    use super::Test;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(tests: &[Test], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(tests.iter().map(|t| t.number()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Test>, D::Error> {
        let numbers = Vec::<u8>::deserialize(d)?;
        Ok(numbers
            .into_iter()
            .filter_map(|n| Test::from_number(u64::from(n)))
            .collect())
    }
}

/// A flag kept as its opposite ([`Config::no_crossover`] as `crossover`).
mod negated {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(b: &bool, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(!*b)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        bool::deserialize(d).map(|b| !b)
    }
}

impl Default for Config {
    /// IOzone run without flags: every test 0–8 once on a 512 kB file in
    /// 4 kB records.
    fn default() -> Config {
        Config {
            tests: default_tests(false),
            tests_given: false,
            extended: false,
            no_retest: false,
            auto: false,
            file_kb: Vec::new(),
            record_kb: Vec::new(),
            min_file_kb: None,
            max_file_kb: None,
            min_record_kb: None,
            max_record_kb: None,
            no_crossover: false,
            multiplier: grid::MULTIPLIER,
            include_flush: false,
            include_close: false,
            direct: false,
            sync: false,
            keep_files: false,
            purge: false,
            remount: None,
            file: PathBuf::from(DEFAULT_FILE),
            children: Vec::new(),
            threads: false,
            child_files: Vec::new(),
            stonewall: true,
            per_child: false,
            stagger_us: 0,
            read_pct: None,
            stride: DEFAULT_STRIDE,
            excel: false,
            workbook: None,
            unit: Unit::KbPerSec,
            cpu_util: false,
            async_io: None,
            device: false,
        }
    }
}

impl Config {
    /// Single, auto or throughput.
    pub fn mode(&self) -> Mode {
        if !self.children.is_empty() {
            Mode::Throughput
        } else if self.auto {
            Mode::Auto
        } else {
            Mode::Single
        }
    }

    /// The file size outside auto mode (per child in throughput mode), kB.
    pub fn single_file_kb(&self) -> u64 {
        self.file_kb.first().copied().unwrap_or(DEFAULT_FILE_KB)
    }

    /// The record size outside auto mode, kB.
    pub fn single_record_kb(&self) -> u64 {
        self.record_kb.first().copied().unwrap_or(DEFAULT_RECORD_KB)
    }

    /// The selected tests that produce figures in this mode: the random
    /// mix (-i 8) only in throughput mode (elsewhere IOzone accepts it and
    /// does nothing), the vectored tests (-i 11, 12) only outside it.
    pub fn tests_to_run(&self) -> Vec<Test> {
        let throughput = self.mode() == Mode::Throughput;
        self.tests
            .iter()
            .copied()
            .filter(|t| match t {
                Test::RandomMix => throughput,
                Test::Pwritev | Test::Preadv => !throughput,
                _ => true,
            })
            .collect()
    }

    /// The largest number of children run at once (0 outside throughput mode).
    pub fn max_children(&self) -> u32 {
        self.children.iter().copied().max().unwrap_or(0)
    }

    /// Child `i`'s file: its `-F` name, else IOzone's `iozone.DUMMY.<i>`.
    pub fn child_file(&self, i: usize) -> PathBuf {
        match self.child_files.get(i) {
            Some(p) => p.clone(),
            None => PathBuf::from(format!("iozone.DUMMY.{i}")),
        }
    }
}

/// The tests IOzone runs when no `-i` is given: with `-E`, up to pread,
/// as IOzone 3.489 built for Linux (without HAVE_PREADV) runs them; the
/// vectored tests only when `-i 11` or `-i 12` asks.
fn default_tests(extended: bool) -> Vec<Test> {
    let last = if extended {
        Test::Pread
    } else {
        Test::RandomMix
    };
    Test::ALL.into_iter().filter(|t| *t <= last).collect()
}

/// The parse result: the configuration and the long options left for the
/// caller, in their order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The validated configuration.
    pub config: Config,
    /// `--name`, `--name=value`, `--name value` tokens, and `--` with
    /// everything after it.
    pub passthrough: Vec<String>,
}

/// One IOzone flag iogauge accepts.
#[derive(Debug, Clone, Copy)]
pub struct Flag {
    /// The letter after `-`, or `+` and the letter (`"a"`, `"+n"`).
    pub name: &'static str,
    /// The value's name if the flag takes one.
    pub value: Option<&'static str>,
    /// One line of help, IOzone's meaning.
    pub help: &'static str,
}

/// Every IOzone flag iogauge accepts; anything else is refused by name.
pub const FLAGS: &[Flag] = &[
    flag(
        "a",
        None,
        "auto mode: file sizes 64 kB..512 MB, records 4 kB..16 MB",
    ),
    flag(
        "A",
        None,
        "auto mode without crossover, tests 0 and 1 only (-az -i 0 -i 1)",
    ),
    flag("b", Some("FILE"), "write an Excel workbook (implies -R)"),
    flag("c", None, "include close in the timing"),
    flag("C", None, "show each child's transfer in throughput mode"),
    flag(
        "d",
        Some("US"),
        "microseconds between releasing successive children",
    ),
    flag("e", None, "include fsync/fflush in the timing"),
    flag(
        "E",
        None,
        "add the pwrite/pread tests (-i 9, 10); -i 11, 12 then add pwritev/preadv",
    ),
    flag("f", Some("FILE"), "test file (default iozone.tmp)"),
    flag(
        "F",
        Some("FILE..."),
        "one file per child in throughput mode",
    ),
    flag("g", Some("SIZE"), "largest file in auto mode"),
    flag(
        "H",
        Some("N"),
        "asynchronous I/O, N requests in flight (io_uring, else libaio)",
    ),
    flag("i", Some("N"), "run test N (0..12); repeatable"),
    flag("I", None, "O_DIRECT"),
    flag(
        "j",
        Some("N"),
        "stride of the stride-read test, in records (17)",
    ),
    flag(
        "k",
        Some("N"),
        "asynchronous I/O without copies, N in flight (as -H here)",
    ),
    flag("l", Some("N"), "fewest children in throughput mode"),
    flag("n", Some("SIZE"), "smallest file in auto mode"),
    flag("N", None, "report microseconds per operation"),
    flag("o", None, "O_SYNC"),
    flag("O", None, "report operations per second"),
    flag(
        "p",
        None,
        "purge the processor cache before each record (untimed)",
    ),
    flag("q", Some("SIZE"), "largest record in auto mode"),
    flag(
        "r",
        Some("SIZE"),
        "record size (4 kB); repeatable, several form a list",
    ),
    flag("R", None, "Excel-style text report"),
    flag(
        "s",
        Some("SIZE"),
        "file size (512 kB); repeatable, several form a list",
    ),
    flag(
        "t",
        Some("N"),
        "throughput mode with N children; repeatable",
    ),
    flag("T", None, "threads instead of processes in throughput mode"),
    flag("u", Some("N"), "most children in throughput mode"),
    flag("U", Some("MOUNTPOINT"), "unmount and remount between tests"),
    flag("w", None, "keep the test files"),
    flag("x", None, "no stonewalling in throughput mode"),
    flag("y", Some("SIZE"), "smallest record in auto mode"),
    flag("z", None, "no crossover: small records on big files too"),
    flag("+n", None, "no re-tests"),
    flag(
        "+p",
        Some("PCT"),
        "percentage of random-mix children that read",
    ),
    flag("+u", None, "CPU utilisation"),
    flag("+x", Some("N"), "auto-mode multiplier between sizes (2)"),
];

const fn flag(name: &'static str, value: Option<&'static str>, help: &'static str) -> Flag {
    Flag { name, value, help }
}

fn lookup(name: &str) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.name == name)
}

/// The supported flags, for error messages: "-a -A -b ... -+x".
pub fn supported_list() -> String {
    FLAGS
        .iter()
        .map(|f| format!("-{}", f.name))
        .collect::<Vec<_>>()
        .join(" ")
}

fn unsupported(name: &str) -> String {
    let hint = match name {
        "h" => " (for help use --help)",
        "v" => " (for the version use --version)",
        _ => "",
    };
    format!(
        "unsupported IOzone flag -{name}{hint}; iogauge iozone takes {}",
        supported_list()
    )
}

/// Parses IOzone's flags; see the module doc for the syntax.
pub fn parse(args: &[String]) -> Result<Parsed, String> {
    parse_with_page_size(args, rustix::param::page_size() as u64)
}

/// [`parse`] with the page size given (IOzone clamps `-n` to it).
pub fn parse_with_page_size(args: &[String], page_bytes: u64) -> Result<Parsed, String> {
    let mut raw = Raw::default();
    let mut passthrough = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            passthrough.extend(args[i - 1..].iter().cloned());
            break;
        }
        if arg.starts_with("--") {
            passthrough.push(arg.clone());
            if !arg.contains('=')
                && let Some(next) = args.get(i).filter(|a| !a.starts_with('-') || *a == "-")
            {
                passthrough.push(next.clone());
                i += 1;
            }
            continue;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            return Err(format!(
                "unexpected argument '{arg}': IOzone takes only flags, e.g. -s 64m"
            ));
        };
        for (at, c) in cluster.char_indices() {
            let rest = &cluster[at + c.len_utf8()..];
            if c == '+' {
                // getopt's "+:": the extension letter is the rest of this
                // argument, or the next argument when nothing follows '+'.
                let ext = if rest.is_empty() {
                    let next = args.get(i).ok_or("-+ needs a letter, e.g. -+n")?;
                    i += 1;
                    next.as_str()
                } else {
                    rest
                };
                let mut ext_chars = ext.chars();
                let letter = ext_chars.next().ok_or("-+ needs a letter, e.g. -+n")?;
                let name = format!("+{letter}");
                let after = ext_chars.as_str();
                let spec = lookup(&name).ok_or_else(|| unsupported(&name))?;
                let value = if spec.value.is_some() {
                    Some(take_value(spec, after, args, &mut i)?)
                } else if after.is_empty() {
                    None
                } else {
                    return Err(format!(
                        "-{name} takes no value, but '{after}' follows it in '{arg}'"
                    ));
                };
                raw.apply(spec, value.as_deref())?;
                break;
            }
            let mut buf = [0u8; 4];
            let name: &str = c.encode_utf8(&mut buf);
            let spec = lookup(name).ok_or_else(|| unsupported(name))?;
            if spec.value.is_none() {
                raw.apply(spec, None)?;
                continue;
            }
            let value = take_value(spec, rest, args, &mut i)?;
            raw.apply(spec, Some(&value))?;
            if spec.name == "F" {
                while let Some(next) = args.get(i).filter(|a| !a.starts_with('-')) {
                    raw.child_files.push(next.clone());
                    i += 1;
                }
            }
            break;
        }
    }
    let config = raw.finish(page_bytes / 1024)?;
    Ok(Parsed {
        config,
        passthrough,
    })
}

/// The value of `spec`: `attached` if not empty, else the next argument
/// (taken even if it starts with '-', as getopt does).
fn take_value(
    spec: &Flag,
    attached: &str,
    args: &[String],
    i: &mut usize,
) -> Result<String, String> {
    if !attached.is_empty() {
        return Ok(attached.to_string());
    }
    match args.get(*i) {
        Some(v) => {
            *i += 1;
            Ok(v.clone())
        }
        None => Err(format!(
            "-{} needs a value: -{} {}",
            spec.name,
            spec.name,
            spec.value.unwrap_or("VALUE")
        )),
    }
}

/// A size as IOzone reads it: kB, or with a k, m or g suffix (any case);
/// at most iogauge's largest size ([`crate::units::MAX_SIZE`]).
pub fn size_kb(s: &str) -> Result<u64, String> {
    const IOZONE: SizeSyntax = SizeSyntax {
        suffixes: &[(&["", "k"], 1), (&["m"], 1 << 10), (&["g"], 1 << 20)],
        fractions: false,
        max: crate::units::MAX_SIZE / 1024,
    };
    match IOZONE.parse(s) {
        Ok(0) => Err(format!("'{s}' is zero")),
        Ok(kb) => Ok(kb),
        Err(SizeError::NoNumber | SizeError::Suffix(_)) => Err(format!(
            "'{s}' is not a size: a whole number of kB, or with k, m or g"
        )),
        Err(SizeError::Overflow) => Err(format!("'{s}' is too large")),
        Err(SizeError::TooLarge | SizeError::NotWhole) => Err(format!(
            "'{s}' is larger than the largest size iogauge takes, 1 EiB"
        )),
    }
}

fn whole(s: &str) -> Result<u64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{s}' is not a whole number"));
    }
    s.parse().map_err(|_| format!("'{s}' is too large"))
}

fn streams(s: &str) -> Result<u32, String> {
    match whole(s)? {
        n @ 1..=1024 => Ok(n as u32),
        _ => Err(format!("'{s}' must be 1 to {MAX_STREAMS}")),
    }
}

/// The flags as given, before IOzone's rules combine them.
#[derive(Default)]
struct Raw {
    tests: BTreeSet<Test>,
    auto: bool,
    rw_only: bool,
    no_cross: bool,
    s: Vec<u64>,
    r: Vec<u64>,
    n: Option<u64>,
    g: Option<u64>,
    y: Option<u64>,
    q: Option<u64>,
    multiplier: Option<u64>,
    flush: bool,
    close: bool,
    direct: bool,
    sync: bool,
    keep: bool,
    purge: bool,
    remount: Option<String>,
    file: Option<String>,
    t: Vec<u32>,
    l: Option<u32>,
    u: Option<u32>,
    threads: bool,
    f_given: bool,
    child_files: Vec<String>,
    no_stonewall: bool,
    per_child: bool,
    stagger: Option<u64>,
    pct: Option<u32>,
    stride: Option<u64>,
    excel: bool,
    workbook: Option<String>,
    ops: bool,
    usec: bool,
    cpu: bool,
    extended: bool,
    no_retest: bool,
    async_depth: Option<u16>,
    no_copy: bool,
}

impl Raw {
    /// Records one flag; `value` is `Some` exactly when the flag takes one.
    fn apply(&mut self, spec: &Flag, value: Option<&str>) -> Result<(), String> {
        let v = value.unwrap_or("");
        let name = spec.name;
        let ctx = |e: String| format!("-{name} {v}: {e}");
        match name {
            "a" | "A" => {
                self.auto = true;
                self.purge = false;
                if name == "A" {
                    self.rw_only = true;
                    self.no_cross = true;
                    self.tests.insert(Test::Write);
                    self.tests.insert(Test::Read);
                }
            }
            "b" => {
                self.excel = true;
                self.workbook = Some(v.to_string());
            }
            "c" => self.close = true,
            "C" => self.per_child = true,
            "d" => {
                let us = whole(v).map_err(ctx)?;
                crate::units::seconds(us as f64 / 1e6)
                    .map_err(|e| ctx(format!("{us} microseconds {e}")))?;
                self.stagger = Some(us);
            }
            "e" => self.flush = true,
            "E" => self.extended = true,
            "f" => self.file = Some(v.to_string()),
            "F" => {
                if self.f_given {
                    return Err("-F is given twice; list every child's file after one -F".into());
                }
                self.f_given = true;
                self.child_files.push(v.to_string());
            }
            "g" => self.g = Some(size_kb(v).map_err(ctx)?),
            "i" => {
                let n = whole(v).map_err(ctx)?;
                let t = Test::from_number(n).ok_or_else(|| {
                    ctx("IOzone's tests are 0 to 12 (see -i in IOzone's help)".into())
                })?;
                self.tests.insert(t);
            }
            "H" | "k" => {
                let max = crate::engine::MAX_DEPTH;
                match whole(v).map_err(ctx)? {
                    n @ 1.. if n <= u64::from(max) => self.async_depth = Some(n as u16),
                    _ => return Err(ctx(format!("give 1 to {max} requests in flight"))),
                }
                self.no_copy |= name == "k";
            }
            "I" => self.direct = true,
            "j" => match whole(v).map_err(ctx)? {
                0 => return Err(ctx("the stride must be at least 1 record".into())),
                n => self.stride = Some(n),
            },
            "l" => self.l = Some(streams(v).map_err(ctx)?),
            "n" => self.n = Some(size_kb(v).map_err(ctx)?),
            "N" => self.usec = true,
            "o" => self.sync = true,
            "O" => self.ops = true,
            "p" => self.purge = true,
            "q" => self.q = Some(record(v).map_err(ctx)?),
            "r" => self.r.push(record(v).map_err(ctx)?),
            "R" => self.excel = true,
            "s" => self.s.push(size_kb(v).map_err(ctx)?),
            "t" => self.t.push(streams(v).map_err(ctx)?),
            "T" => self.threads = true,
            "u" => self.u = Some(streams(v).map_err(ctx)?),
            "U" => self.remount = Some(v.to_string()),
            "w" => self.keep = true,
            "x" => self.no_stonewall = true,
            "y" => self.y = Some(record(v).map_err(ctx)?),
            "z" => self.no_cross = true,
            "+n" => self.no_retest = true,
            "+p" => match whole(v).map_err(ctx)? {
                // IOzone raises 0 to 1.
                p @ 0..=100 => self.pct = Some(p.max(1) as u32),
                _ => return Err(ctx("the read percentage must be 0 to 100".into())),
            },
            "+u" => self.cpu = true,
            "+x" => match whole(v).map_err(ctx)? {
                m @ 2.. => self.multiplier = Some(m),
                _ => return Err(ctx("the multiplier must be at least 2".into())),
            },
            _ => return Err(unsupported(name)),
        }
        Ok(())
    }

    /// Applies IOzone's rules across flags and fills in the defaults.
    fn finish(self, page_kb: u64) -> Result<Config, String> {
        let throughput = !self.t.is_empty() || self.l.is_some() || self.u.is_some();
        let auto = self.auto || self.s.len() > 1 || self.r.len() > 1;

        if !self.extended
            && let Some(t) = self.tests.iter().find(|t| t.needs_extended())
        {
            return Err(format!(
                "-i {} ({}) runs only with -E, as in IOzone; add -E",
                t.number(),
                t.name()
            ));
        }
        if self.ops && self.usec {
            return Err("-O (operations/s) and -N (µs/operation) exclude each other".into());
        }
        increasing("-s", &self.s)?;
        increasing("-r", &self.r)?;

        let children = self.children(throughput)?;
        let tests = self.tests();
        if let Some(d) = self.async_depth {
            let flag = if self.no_copy { "-k" } else { "-H" };
            if throughput {
                return Err(format!(
                    "{flag} {d}: iogauge queues the passes of single and auto mode; throughput mode's children still issue one request at a time"
                ));
            }
            if self.purge {
                return Err(format!(
                    "{flag} {d} and -p: -p evicts the one record's buffer before each operation; at depth the records in flight have buffers of their own"
                ));
            }
        }

        let config = Config {
            tests,
            tests_given: !self.tests.is_empty(),
            extended: self.extended,
            no_retest: self.no_retest,
            auto,
            file_kb: self.s,
            record_kb: self.r,
            // IOzone raises -n to 4 kB (RECLEN_START) and the page size, -g to 4 kB.
            min_file_kb: self.n.map(|n| n.max(grid::AUTO_MIN_RECORD_KB).max(page_kb)),
            max_file_kb: self.g.map(|g| g.max(grid::AUTO_MIN_RECORD_KB)),
            min_record_kb: self.y,
            max_record_kb: self.q,
            no_crossover: self.no_cross,
            multiplier: self.multiplier.unwrap_or(grid::MULTIPLIER),
            include_flush: self.flush,
            include_close: self.close,
            direct: self.direct,
            sync: self.sync,
            keep_files: self.keep,
            purge: self.purge,
            remount: self.remount.map(PathBuf::from),
            file: PathBuf::from(self.file.unwrap_or_else(|| DEFAULT_FILE.into())),
            children,
            threads: self.threads,
            child_files: self.child_files.into_iter().map(PathBuf::from).collect(),
            stonewall: !self.no_stonewall,
            per_child: self.per_child,
            stagger_us: self.stagger.unwrap_or(0),
            read_pct: self.pct,
            stride: self.stride.unwrap_or(DEFAULT_STRIDE),
            excel: self.excel,
            workbook: self.workbook.map(PathBuf::from),
            unit: if self.usec {
                Unit::UsPerOp
            } else if self.ops {
                Unit::OpsPerSec
            } else {
                Unit::KbPerSec
            },
            cpu_util: self.cpu,
            async_io: self.async_depth.map(|depth| AsyncIo {
                depth,
                no_copy: self.no_copy,
            }),
            device: false,
        };
        check_sizes(&config)?;
        Ok(config)
    }

    /// Throughput mode's children (none outside it), once what does not
    /// mix with it is refused.
    fn children(&self, throughput: bool) -> Result<Vec<u32>, String> {
        if !throughput {
            if self.f_given {
                return Err(
                    "-F names one file per child and needs -t N (or -l/-u); use -f FILE for one process"
                        .into(),
                );
            }
            return Ok(Vec::new());
        }
        if !self.t.is_empty() && (self.l.is_some() || self.u.is_some()) {
            return Err("give either -t N (repeatable) or -l MIN -u MAX, not both".into());
        }
        let auto_flag = [
            (self.auto, "-a/-A"),
            (self.n.is_some(), "-n"),
            (self.g.is_some(), "-g"),
            (self.y.is_some(), "-y"),
            (self.q.is_some(), "-q"),
            (self.s.len() > 1, "several -s"),
            (self.r.len() > 1, "several -r"),
        ]
        .into_iter()
        .find(|(given, _)| *given);
        if let Some((_, what)) = auto_flag {
            return Err(format!(
                "throughput mode (-t, -l, -u) cannot be mixed with auto-mode flags ({what}), as in IOzone"
            ));
        }
        if self.file.is_some() {
            return Err(
                "-f names one process's file; in throughput mode name each child's file with -F"
                    .into(),
            );
        }
        if self.remount.is_some() {
            return Err("throughput mode cannot unmount and remount (-U), as in IOzone".into());
        }
        if self.usec {
            return Err(
                "-N (µs/operation) is not supported in throughput mode, as in IOzone; use -O"
                    .into(),
            );
        }
        if let Some(t) = self
            .tests
            .iter()
            .find(|t| matches!(t, Test::Pwritev | Test::Preadv))
        {
            return Err(format!(
                "-i {} ({}) does not run in throughput mode, as in IOzone",
                t.number(),
                t.name()
            ));
        }
        let children: Vec<u32> = if self.t.is_empty() {
            let lo = self.l.unwrap_or(1);
            let hi = self.u.unwrap_or(lo);
            if lo > hi {
                return Err(format!("-l {lo} is more than -u {hi}"));
            }
            (lo..=hi).collect()
        } else {
            self.t.clone()
        };
        let most = children.iter().copied().max().unwrap_or(0) as usize;
        if self.f_given && self.child_files.len() != most {
            return Err(format!(
                "-F names {} file(s) but throughput mode runs up to {most} children; give one name per child",
                self.child_files.len()
            ));
        }
        Ok(children)
    }

    /// The tests to run: the defaults when none is given; with -A only
    /// the first two whatever -i adds.
    fn tests(&self) -> Vec<Test> {
        if self.tests.is_empty() {
            default_tests(self.extended)
        } else if self.rw_only {
            // -A runs only the first two tests whatever -i adds.
            self.tests
                .iter()
                .copied()
                .filter(|t| *t <= Test::Read)
                .collect()
        } else {
            self.tests.iter().copied().collect()
        }
    }
}

/// A record size: a size no larger than [`MAX_RECORD_KB`].
fn record(v: &str) -> Result<u64, String> {
    let kb = size_kb(v)?;
    if kb > MAX_RECORD_KB {
        return Err(format!(
            "a record may be at most {MAX_RECORD_KB} kB (16 MB, IOzone's largest buffer)"
        ));
    }
    Ok(kb)
}

/// Several `-s` or `-r` values must rise: IOzone walks such a list taking
/// the next value larger than the last, so a smaller one would be skipped.
fn increasing(flag: &str, values: &[u64]) -> Result<(), String> {
    match values.windows(2).find(|w| w[1] <= w[0]) {
        Some(w) => Err(format!(
            "{flag} values must rise ({} kB then {} kB): IOzone would skip {} kB",
            w[0], w[1], w[1]
        )),
        None => Ok(()),
    }
}

/// File against record sizes, per mode.
fn check_sizes(cfg: &Config) -> Result<(), String> {
    let has_range = [
        cfg.min_file_kb,
        cfg.max_file_kb,
        cfg.min_record_kb,
        cfg.max_record_kb,
    ]
    .iter()
    .any(Option::is_some);
    if cfg.mode() != Mode::Auto {
        if has_range {
            return Err("-n, -g, -y and -q set auto-mode ranges; add -a".into());
        }
        let (file, rec) = (cfg.single_file_kb(), cfg.single_record_kb());
        if rec > file {
            return Err(format!(
                "the record size, {rec} kB, is larger than the file, {file} kB; lower -r or raise -s"
            ));
        }
        return Ok(());
    }
    if !cfg.file_kb.is_empty() && (cfg.min_file_kb.is_some() || cfg.max_file_kb.is_some()) {
        return Err(
            "-s sets the file sizes and -n/-g the auto-mode range; give one or the other".into(),
        );
    }
    if !cfg.record_kb.is_empty() && (cfg.min_record_kb.is_some() || cfg.max_record_kb.is_some()) {
        return Err(
            "-r sets the record sizes and -y/-q the auto-mode range; give one or the other".into(),
        );
    }
    if cfg.file_kb.is_empty() {
        let lo = cfg.min_file_kb.unwrap_or(grid::AUTO_MIN_FILE_KB);
        let hi = cfg.max_file_kb.unwrap_or(grid::AUTO_MAX_FILE_KB);
        if lo > hi {
            return Err(format!(
                "the smallest file, {lo} kB (-n), is more than the largest, {hi} kB (-g)"
            ));
        }
    }
    if cfg.record_kb.is_empty() {
        let lo = cfg.min_record_kb.unwrap_or(grid::AUTO_MIN_RECORD_KB);
        let hi = cfg.max_record_kb.unwrap_or(grid::AUTO_MAX_RECORD_KB);
        if lo > hi {
            return Err(format!(
                "the smallest record, {lo} kB (-y), is more than the largest, {hi} kB (-q)"
            ));
        }
    }
    // IOzone's own check in auto mode: the first record against the first file.
    let (files, records) = (grid::file_sizes(cfg), grid::record_sizes(cfg));
    if let (Some(f), Some(r)) = (files.first(), records.first())
        && r > f
    {
        return Err(format!(
            "the smallest record, {r} kB, is larger than the smallest file, {f} kB; raise -n or -s, or lower -y or -r"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn ok(line: &str) -> Config {
        match parse_with_page_size(&args(line), 4096) {
            Ok(p) => p.config,
            Err(e) => panic!("{line}: {e}"),
        }
    }

    fn err(line: &str) -> String {
        match parse_with_page_size(&args(line), 4096) {
            Ok(p) => panic!("{line}: accepted as {:?}", p.config),
            Err(e) => e,
        }
    }

    #[test]
    fn h_and_k_ask_for_asynchronous_io_at_a_depth() {
        let at = |depth, no_copy| Some(AsyncIo { depth, no_copy });
        assert_eq!(ok("-H 8").async_io, at(8, false));
        assert_eq!(ok("-k4 -i 0").async_io, at(4, true));
        // the last depth given holds; -k anywhere is the no-copy form
        assert_eq!(ok("-k 4 -H 16").async_io, at(16, true));
        assert_eq!(ok("-a").async_io, None);
        assert!(
            err("-H 0").starts_with("-H 0: give 1 to 4096"),
            "{}",
            err("-H 0")
        );
        assert!(err("-k x").starts_with("-k x:"), "{}", err("-k x"));
        assert!(err("-H 8 -t 2").contains("throughput mode"));
        assert!(err("-H 8 -p").contains("-p evicts"));
    }

    #[test]
    fn no_flags_are_iozone_defaults() {
        let c = ok("");
        assert_eq!(c, Config::default());
        assert_eq!(c.mode(), Mode::Single);
        assert_eq!((c.single_file_kb(), c.single_record_kb()), (512, 4));
        assert_eq!(c.tests.len(), 9);
        assert_eq!(c.file, PathBuf::from("iozone.tmp"));
        assert_eq!(c.stride, 17);
        assert!(c.stonewall);
        // -i 8 is selected but does nothing outside throughput mode.
        assert!(!c.tests_to_run().contains(&Test::RandomMix));
        // -E: up to pread, as IOzone 3.489 built for Linux runs them
        assert_eq!(
            ok("-E").tests,
            Test::ALL
                .into_iter()
                .filter(|t| *t <= Test::Pread)
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn every_flag_in_the_table_is_handled() {
        for f in FLAGS {
            let mut raw = Raw::default();
            let value = f.value.map(|_| match f.name {
                "b" | "f" | "F" | "U" => "x",
                "+x" => "3",
                _ => "1",
            });
            assert_eq!(raw.apply(f, value), Ok(()), "-{}", f.name);
            assert!(!f.help.is_empty());
        }
        let mut names: Vec<_> = FLAGS.iter().map(|f| f.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FLAGS.len(), "duplicate flag names");
    }

    #[test]
    fn boolean_flags_set_their_field() {
        type Check = fn(&Config) -> bool;
        let table: &[(&str, Check)] = &[
            ("-e", |c| c.include_flush),
            ("-c", |c| c.include_close),
            ("-I", |c| c.direct),
            ("-o", |c| c.sync),
            ("-w", |c| c.keep_files),
            ("-p", |c| c.purge),
            ("-R", |c| c.excel),
            ("-E", |c| c.extended),
            ("-O", |c| c.unit == Unit::OpsPerSec),
            ("-N", |c| c.unit == Unit::UsPerOp),
            ("-+n", |c| c.no_retest),
            ("-+u", |c| c.cpu_util),
            ("-a", |c| c.auto),
            ("-az", |c| c.auto && c.no_crossover),
            ("-t 2 -T", |c| c.threads),
            ("-t 2 -x", |c| !c.stonewall),
            ("-t 2 -C", |c| c.per_child),
            ("-a -z", |c| c.no_crossover),
        ];
        for (line, check) in table {
            assert!(check(&ok(line)), "{line}");
            assert!(!check(&ok("")), "{line} default");
        }
    }

    #[test]
    fn values_attached_separate_and_bundled() {
        for line in [
            "-s64m -r4k",
            "-s 64m -r 4k",
            "-s 65536 -r 4",
            "-s 64M -r 4K",
        ] {
            let c = ok(line);
            assert_eq!(
                (c.file_kb.clone(), c.record_kb.clone()),
                (vec![65536], vec![4]),
                "{line}"
            );
        }
        assert_eq!(ok("-s 1g").file_kb, vec![1 << 20]);
        assert_eq!(ok("-i0 -i 1").tests, vec![Test::Write, Test::Read]);
        let c = ok("-Rb out.xls");
        assert!(c.excel);
        assert_eq!(c.workbook, Some(PathBuf::from("out.xls")));
        assert_eq!(ok("-Rbout.xls").workbook, Some(PathBuf::from("out.xls")));
        // -b implies -R, as in IOzone.
        assert!(ok("-b w.xls").excel);
        let c = ok("-aezi0");
        assert!(c.auto && c.include_flush && c.no_crossover);
        assert_eq!(c.tests, vec![Test::Write]);
        // The value of a flag is the next argument even if it starts with '-'.
        assert!(err("-s -5").contains("-s -5:"));
        assert_eq!(ok("-f /tmp/x").file, PathBuf::from("/tmp/x"));
        assert_eq!(ok("-U /mnt/t").remount, Some(PathBuf::from("/mnt/t")));
    }

    #[test]
    fn plus_flags() {
        let c = ok("-+n -+u -+p 30 -t 4");
        assert!(c.no_retest && c.cpu_util);
        assert_eq!(c.read_pct, Some(30));
        assert_eq!(ok("-+p 0").read_pct, Some(1), "IOzone raises 0 to 1");
        assert_eq!(ok("-+p 100").read_pct, Some(100));
        assert_eq!(ok("-a -+x 4").multiplier, 4);
        assert_eq!(ok("-a -+x4").multiplier, 4);
        assert!(ok("-+ n").no_retest, "getopt reads '+' then its letter");
        assert!(ok("-a+n").no_retest);
        assert!(err("-+p 101").contains("0 to 100"));
        assert!(err("-+x 1").contains("at least 2"));
        assert!(err("-+p").contains("-+p needs a value"));
        assert!(err("-+nu").contains("takes no value"));
        assert!(err("-+").contains("needs a letter"));
    }

    #[test]
    fn tests_are_a_sorted_set() {
        let c = ok("-i 2 -i 0 -i 2 -i 1");
        assert_eq!(c.tests, vec![Test::Write, Test::Read, Test::RandomRw]);
        assert!(c.tests_given);
        assert_eq!(ok("-E -i 0 -i 12").tests, vec![Test::Write, Test::Preadv]);
        assert_eq!(Test::from_number(5), Some(Test::StrideRead));
        assert_eq!(Test::from_number(13), None);
        for (n, t) in Test::ALL.iter().enumerate() {
            assert_eq!(t.number() as usize, n);
        }
    }

    #[test]
    fn dash_a_upper_is_az_with_write_and_read_only() {
        let c = ok("-A");
        assert!(c.auto && c.no_crossover && c.tests_given);
        assert_eq!(c.tests, vec![Test::Write, Test::Read]);
        assert_eq!(ok("-A -i 2").tests, vec![Test::Write, Test::Read]);
    }

    #[test]
    fn later_auto_flag_cancels_purge_as_in_iozone() {
        assert!(!ok("-p -a").purge);
        assert!(ok("-a -p").purge);
    }

    #[test]
    fn several_sizes_imply_auto_mode() {
        let c = ok("-s 1m -s 4m");
        assert_eq!(c.mode(), Mode::Auto);
        assert_eq!(c.file_kb, vec![1024, 4096]);
        assert_eq!(ok("-r 4 -r 64").mode(), Mode::Auto);
        assert_eq!(ok("-s 1m -r 64").mode(), Mode::Single);
    }

    #[test]
    fn auto_ranges() {
        let c = ok("-a -n 1m -g 64m -y 8k -q 1m");
        assert_eq!(
            (
                c.min_file_kb,
                c.max_file_kb,
                c.min_record_kb,
                c.max_record_kb
            ),
            (Some(1024), Some(65536), Some(8), Some(1024))
        );
        // IOzone raises -n to 4 kB and the page size, -g to 4 kB.
        assert_eq!(ok("-a -n 1 -g 64m").min_file_kb, Some(4));
        assert_eq!(
            parse_with_page_size(&args("-a -n 1 -g 64m"), 65536).map(|p| p.config.min_file_kb),
            Ok(Some(64))
        );
        assert_eq!(ok("-a -g 1 -y 1 -n 1").max_file_kb, Some(4));
    }

    #[test]
    fn throughput_mode() {
        let c = ok("-t 4 -s 1m -r 64k -T -i 0 -i 8 -+p 25");
        assert_eq!(c.mode(), Mode::Throughput);
        assert_eq!(c.children, vec![4]);
        assert_eq!(c.max_children(), 4);
        assert_eq!(c.tests_to_run(), vec![Test::Write, Test::RandomMix]);
        assert_eq!(c.child_file(3), PathBuf::from("iozone.DUMMY.3"));
        assert_eq!(ok("-t 1 -t 4 -t 2").children, vec![1, 4, 2]);
        assert_eq!(ok("-l 2 -u 4").children, vec![2, 3, 4]);
        assert_eq!(ok("-l 3").children, vec![3]);
        assert_eq!(ok("-u 3").children, vec![1, 2, 3]);
        let c = ok("-t 3 -F a b c -d 50");
        assert_eq!(
            c.child_files,
            vec![PathBuf::from("a"), "b".into(), "c".into()]
        );
        assert_eq!(c.child_file(1), PathBuf::from("b"));
        assert_eq!(c.stagger_us, 50);
        // -F before -t is accepted; the names stop at the next flag.
        assert_eq!(ok("-F a b -t 2 -i 0").child_files.len(), 2);
        assert_eq!(ok("-t 2 -Fa b").child_files.len(), 2);
        assert_eq!(ok("-l 1 -u 2 -F a b").child_files.len(), 2);
        // With -E the vectored tests are not run in throughput mode.
        assert!(!ok("-t 2 -E").tests_to_run().contains(&Test::Pwritev));
        assert!(!ok("-E").tests_to_run().contains(&Test::Pwritev));
        assert!(ok("-E -i 0 -i 11").tests_to_run().contains(&Test::Pwritev));
    }

    #[test]
    fn passthrough_long_options() {
        let p = parse_with_page_size(
            &args("-a --json --plot out -i 0 --engine=psync --dir /d -+n"),
            4096,
        )
        .unwrap();
        assert_eq!(
            p.passthrough,
            args("--json --plot out --engine=psync --dir /d")
        );
        assert!(p.config.auto && p.config.no_retest);
        assert_eq!(p.config.tests, vec![Test::Write]);
        // '-' (stdout) is a value, not a flag
        let p = parse_with_page_size(&args("-a --json - -i 1"), 4096).unwrap();
        assert_eq!(p.passthrough, args("--json -"));
        assert_eq!(p.config.tests, vec![Test::Read]);
        let p = parse_with_page_size(&args("-s 1m -- -k 4"), 4096).unwrap();
        assert_eq!(p.passthrough, args("-- -k 4"));
    }

    #[test]
    fn sizes() {
        assert_eq!(size_kb("512"), Ok(512));
        assert_eq!(size_kb("4k"), Ok(4));
        assert_eq!(size_kb("3M"), Ok(3072));
        assert_eq!(size_kb("2g"), Ok(2 << 20));
        for bad in [
            "",
            "0",
            "0m",
            "-1",
            "1.5m",
            "64mb",
            "k",
            "12x",
            "99999999999999999999",
            "18014398509481984g",
        ] {
            assert!(size_kb(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn refusals_name_the_problem() {
        let table: &[(&str, &str)] = &[
            ("-B", "unsupported IOzone flag -B;"),
            ("-Q", "unsupported IOzone flag -Q;"),
            ("-M", "unsupported IOzone flag -M;"),
            ("-Z", "unsupported IOzone flag -Z;"),
            ("-+m file", "unsupported IOzone flag -+m;"),
            ("-az -m", "unsupported IOzone flag -m;"),
            ("-h", "--help"),
            ("-é", "unsupported IOzone flag -é;"),
            ("foo", "unexpected argument 'foo'"),
            ("-", "unexpected argument '-'"),
            ("-s", "-s needs a value"),
            ("-s 0", "-s 0: '0' is zero"),
            ("-s junk", "-s junk: 'junk' is not a size"),
            ("-r 32m", "at most 16384 kB"),
            ("-a -q 32m", "at most 16384 kB"),
            ("-r 0", "-r 0:"),
            ("-i 13", "tests are 0 to 12"),
            ("-i x", "not a whole number"),
            ("-i -1", "not a whole number"),
            ("-i 9", "-i 9 (pwrite/repwrite) runs only with -E"),
            ("-i 11", "only with -E"),
            ("-j 0", "at least 1 record"),
            ("-d -3", "not a whole number"),
            ("-t 0", "1 to 1024"),
            ("-t 1025", "1 to 1024"),
            ("-l 4 -u 2", "-l 4 is more than -u 2"),
            ("-t 2 -l 1", "not both"),
            ("-t 2 -a", "auto-mode flags (-a/-A)"),
            ("-t 2 -A", "auto-mode flags (-a/-A)"),
            ("-t 2 -n 1m", "auto-mode flags (-n)"),
            ("-t 2 -s 1m -s 2m", "auto-mode flags (several -s)"),
            ("-t 2 -r 4 -r 8", "auto-mode flags (several -r)"),
            ("-t 2 -f x", "-F"),
            ("-t 2 -U /mnt", "-U"),
            ("-t 2 -N", "-N"),
            ("-t 2 -E -i 11", "does not run in throughput mode"),
            (
                "-t 3 -F a b",
                "-F names 2 file(s) but throughput mode runs up to 3",
            ),
            ("-t 1 -F a b", "-F names 2 file(s)"),
            ("-t 2 -F a -F b", "-F is given twice"),
            ("-F a", "needs -t N"),
            ("-a -F a", "needs -t N"),
            ("-O -N", "exclude each other"),
            ("-s 4m -s 1m", "-s values must rise"),
            ("-r 8 -r 8", "-r values must rise"),
            ("-n 1m", "add -a"),
            ("-q 1m", "add -a"),
            ("-s 4 -r 64", "larger than the file"),
            ("-t 2 -s 4 -r 64", "larger than the file"),
            ("-a -s 1m -n 64", "give one or the other"),
            ("-a -r 64 -y 4", "give one or the other"),
            (
                "-a -n 64m -g 1m",
                "smallest file, 65536 kB (-n), is more than the largest, 1024 kB",
            ),
            ("-a -n 1g", "is more than the largest, 524288 kB (-g)"),
            (
                "-a -g 32k",
                "smallest file, 64 kB (-n), is more than the largest, 32 kB",
            ),
            ("-a -y 1m -q 64k", "is more than the largest"),
            ("-a -q 2k", "is more than the largest"),
            (
                "-a -y 128k",
                "smallest record, 128 kB, is larger than the smallest file, 64 kB",
            ),
            ("-a -r 1m", "larger than the smallest file"),
            ("-s 4k -s 64k -r 8k -r 16k", "larger than the smallest file"),
        ];
        for (line, want) in table {
            let e = err(line);
            assert!(e.contains(want), "{line}: {e}");
            assert!(!e.contains('\n'), "{line}: one line");
        }
        assert!(err("-B").contains("-a -A -b"));
        assert!(err("-B").ends_with("-+p -+u -+x"));
    }
}
