//! The NFS version 2 operations, the operation mixes and the choosers that
//! turn uniform random numbers into operations and transfer sizes.
//!
//! # The mixes
//!
//! | op       | nhfsstone (default) | SFS 2.0, NFS v2 |
//! |----------|--------------------:|----------------:|
//! | getattr  | 13 | 26 |
//! | setattr  |  1 |  1 |
//! | lookup   | 34 | 36 |
//! | readlink |  8 |  7 |
//! | read     | 22 | 14 |
//! | write    | 15 |  7 |
//! | create   |  2 |  1 |
//! | remove   |  1 |  1 |
//! | readdir  |  3 |  6 |
//! | fsstat   |  1 |  1 |
//! | others   |  0 |  0 |
//!
//! The first column is the `Mix[]` table of nhfsstone 1.22 (Legato, 1990;
//! shipped in nfs-utils as `utils/nhfsstone/nhfsstone.c`), its "software
//! development mix for server with about 50/50 mix of diskless and diskful
//! clients running SunOS 4.0". LADDIS grew out of nhfsstone and is taken to
//! run the same mix by default. The second column is the `nfsv2_Ops[]`
//! table of SPEC SFS 2.0's `sfs_2_ops.c` (workload 162.nfsv2).
//!
//! # Choosing
//!
//! [`Mix::choose`] maps a uniform `u64` onto `[0, total)` by a 128-bit
//! multiply (`u * total >> 64`) and returns the first operation whose
//! cumulative weight exceeds it, so each operation is picked with
//! probability `weight / total` (to within `total / 2^64`), the same
//! number always gives the same operation, and no operation with weight 0
//! is ever picked. nhfsstone instead steered towards its mix by comparing
//! the kernel's NFS call counters with the wanted percentages; with local
//! calls there are no such counters, so iogauge draws each op from the
//! mix directly.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// The NFS version 2 procedures, in protocol order (procedure numbers 0
/// to 17, RFC 1094), which is also the order of nhfsstone's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NfsOp {
    Null,
    GetAttr,
    SetAttr,
    Root,
    Lookup,
    ReadLink,
    Read,
    WrCache,
    Write,
    Create,
    Remove,
    Rename,
    Link,
    Symlink,
    Mkdir,
    Rmdir,
    ReadDir,
    FsStat,
}

/// Number of NFS version 2 procedures.
pub const NOPS: usize = 18;

impl NfsOp {
    /// Every operation, in protocol order; `ALL[op.index()] == op`.
    pub const ALL: [NfsOp; NOPS] = [
        NfsOp::Null,
        NfsOp::GetAttr,
        NfsOp::SetAttr,
        NfsOp::Root,
        NfsOp::Lookup,
        NfsOp::ReadLink,
        NfsOp::Read,
        NfsOp::WrCache,
        NfsOp::Write,
        NfsOp::Create,
        NfsOp::Remove,
        NfsOp::Rename,
        NfsOp::Link,
        NfsOp::Symlink,
        NfsOp::Mkdir,
        NfsOp::Rmdir,
        NfsOp::ReadDir,
        NfsOp::FsStat,
    ];

    /// The NFS version 2 procedure number (0 for null … 17 for fsstat).
    pub fn index(self) -> usize {
        self as usize
    }

    /// nhfsstone's name for the operation, as used in mix files and reports.
    pub fn name(self) -> &'static str {
        match self {
            NfsOp::Null => "null",
            NfsOp::GetAttr => "getattr",
            NfsOp::SetAttr => "setattr",
            NfsOp::Root => "root",
            NfsOp::Lookup => "lookup",
            NfsOp::ReadLink => "readlink",
            NfsOp::Read => "read",
            NfsOp::WrCache => "wrcache",
            NfsOp::Write => "write",
            NfsOp::Create => "create",
            NfsOp::Remove => "remove",
            NfsOp::Rename => "rename",
            NfsOp::Link => "link",
            NfsOp::Symlink => "symlink",
            NfsOp::Mkdir => "mkdir",
            NfsOp::Rmdir => "rmdir",
            NfsOp::ReadDir => "readdir",
            NfsOp::FsStat => "fsstat",
        }
    }

    /// The operation named `name` (nhfsstone's names, exact and lower case).
    pub fn from_name(name: &str) -> Option<NfsOp> {
        NfsOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether a local system call stands for this operation. `null`,
    /// `root` and `wrcache` have none (nhfsstone reports the last two as
    /// failures too), so a mix that gives them weight cannot be run locally.
    pub fn has_local_call(self) -> bool {
        !matches!(self, NfsOp::Null | NfsOp::Root | NfsOp::WrCache)
    }

    /// The local call that stands for the operation, in words. These follow
    /// the calls nhfsstone makes to produce each NFS procedure on a client.
    pub fn local_call(self) -> &'static str {
        match self {
            NfsOp::Null => "none: no local equivalent (an RPC ping)",
            NfsOp::GetAttr => "fstat(2) of an open file",
            NfsOp::SetAttr => "chmod(2)/utimes(2) of a file",
            NfsOp::Root => "none: no local equivalent (obsolete in NFS v2)",
            NfsOp::Lookup => "stat(2) of a path",
            NfsOp::ReadLink => "readlink(2) of a symbolic link",
            NfsOp::Read => "read(2) of a file",
            NfsOp::WrCache => "none: no local equivalent (never used in NFS v2)",
            NfsOp::Write => "write(2) to a file; a share of writes append (APPEND_SHARE)",
            NfsOp::Create => "open(2) with O_CREAT|O_TRUNC",
            NfsOp::Remove => "unlink(2)",
            NfsOp::Rename => "rename(2)",
            NfsOp::Link => "link(2)",
            NfsOp::Symlink => "symlink(2)",
            NfsOp::Mkdir => "mkdir(2)",
            NfsOp::Rmdir => "rmdir(2)",
            NfsOp::ReadDir => "readdir(3) through a whole directory",
            NfsOp::FsStat => "statvfs(3) of the file system",
        }
    }
}

impl fmt::Display for NfsOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An operation mix: a whole-number percentage for each NFS operation,
/// summing to 100, with the cumulative table that [`Mix::choose`] walks.
///
/// Invariants: the weights sum to [`Mix::TOTAL`]; `cumulative[i]` is the
/// sum of `weights[..=i]`. A mix is written as its name and weights, and
/// read back only if they sum to the total.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawMix")]
pub struct Mix {
    name: String,
    weights: [u32; NOPS],
    #[serde(skip_serializing)]
    cumulative: [u32; NOPS],
}

/// A [`Mix`] as read, before its weights are checked.
#[derive(Deserialize)]
struct RawMix {
    name: String,
    weights: [u32; NOPS],
}

impl TryFrom<RawMix> for Mix {
    type Error = String;
    fn try_from(r: RawMix) -> Result<Mix, String> {
        let total: u64 = r.weights.iter().map(|&w| u64::from(w)).sum();
        if total != u64::from(Mix::TOTAL) {
            return Err(format!(
                "the mix {}'s percentages add up to {total}, not {}",
                r.name,
                Mix::TOTAL
            ));
        }
        Ok(Mix::new(r.name, r.weights))
    }
}

/// The built-in mixes, as the module docs' table: each operation, its
/// percentage in nhfsstone's mix and in SPEC SFS 2.0's; the others are 0.
const BUILT_IN: [(NfsOp, u32, u32); 10] = [
    (NfsOp::GetAttr, 13, 26),
    (NfsOp::SetAttr, 1, 1),
    (NfsOp::Lookup, 34, 36),
    (NfsOp::ReadLink, 8, 7),
    (NfsOp::Read, 22, 14),
    (NfsOp::Write, 15, 7),
    (NfsOp::Create, 2, 1),
    (NfsOp::Remove, 1, 1),
    (NfsOp::ReadDir, 3, 6),
    (NfsOp::FsStat, 1, 1),
];

/// Where the mix called `name` ([`Mix::name`]) comes from, for a
/// report's header: LADDIS (SPEC SFS 1.0) used nhfsstone's mix; `sfs2` is
/// SPEC SFS 2.0's; any other mix is the user's file.
pub fn origin(name: &str) -> String {
    match name {
        "nhfsstone" => "SPEC SFS 1.0 workload, nhfsstone's mix".to_string(),
        "sfs2" => "SPEC SFS 2.0's NFS v2 mix".to_string(),
        file => format!("mix from {file}"),
    }
}

impl Mix {
    /// What the weights of every mix add up to: they are percentages.
    pub const TOTAL: u32 = 100;

    fn new(name: impl Into<String>, weights: [u32; NOPS]) -> Mix {
        let mut cumulative = [0; NOPS];
        let mut sum = 0;
        for (c, w) in cumulative.iter_mut().zip(weights) {
            sum += w;
            *c = sum;
        }
        assert_eq!(sum, Mix::TOTAL, "a mix must sum to 100 %");
        Mix {
            name: name.into(),
            weights,
            cumulative,
        }
    }

    /// nhfsstone's software-development mix, the default (module docs).
    pub fn nhfsstone() -> Mix {
        Mix::built_in("nhfsstone", |(_, nhfsstone, _)| nhfsstone)
    }

    /// SPEC SFS 2.0's NFS version 2 mix (module docs).
    pub fn sfs2() -> Mix {
        Mix::built_in("sfs2", |(_, _, sfs2)| sfs2)
    }

    /// The built-in mix `name`, its column of [`BUILT_IN`] picked by `column`.
    fn built_in(name: &str, column: fn((NfsOp, u32, u32)) -> u32) -> Mix {
        let mut weights = [0; NOPS];
        for &row in &BUILT_IN {
            weights[row.0.index()] = column(row);
        }
        Mix::new(name, weights)
    }

    /// Reads a mix file: one `name percent` pair a line (`lookup 34`; a
    /// trailing `%` is allowed), operations named as [`NfsOp::name`], `#`
    /// starting a comment, blank lines ignored, operations left out at 0.
    /// The percentages are whole numbers and must add up to exactly 100.
    /// `source` names the file in errors, which read `FILE:LINE: …`; an
    /// error about the total points at the last line of the file. The mix
    /// is named after `source`.
    pub fn parse(text: &str, source: &Path) -> Result<Mix, MixError> {
        let err = |line: usize, kind: MixErrorKind| MixError {
            path: source.to_path_buf(),
            line,
            kind,
        };
        let mut weights = [0u32; NOPS];
        let mut seen = [0usize; NOPS];
        let mut last_line = 0;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            last_line = line_no;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let mut fields = content.split_whitespace();
            let (Some(name), Some(number), None) = (fields.next(), fields.next(), fields.next())
            else {
                return Err(err(line_no, MixErrorKind::Syntax(content.to_string())));
            };
            let op = NfsOp::from_name(name)
                .ok_or_else(|| err(line_no, MixErrorKind::UnknownOp(name.to_string())))?;
            let digits = number.strip_suffix('%').unwrap_or(number);
            let pct: u32 = match digits.parse() {
                Ok(p) => p,
                Err(_) if digits.parse::<i64>().is_ok_and(|n| n < 0) => {
                    return Err(err(line_no, MixErrorKind::Negative(op, number.to_string())));
                }
                Err(_) => {
                    return Err(err(
                        line_no,
                        MixErrorKind::BadNumber(op, number.to_string()),
                    ));
                }
            };
            if seen[op.index()] != 0 {
                return Err(err(line_no, MixErrorKind::Duplicate(op, seen[op.index()])));
            }
            seen[op.index()] = line_no;
            weights[op.index()] = pct;
        }
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        if total != u64::from(Mix::TOTAL) {
            return Err(err(last_line, MixErrorKind::Total(total)));
        }
        Ok(Mix::new(source.display().to_string(), weights))
    }

    /// The mix's name: `nhfsstone`, `sfs2`, or the file it was read from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The percentage given to `op`.
    pub fn weight(&self, op: NfsOp) -> u32 {
        self.weights[op.index()]
    }

    /// All percentages, indexed by [`NfsOp::index`].
    pub fn weights(&self) -> &[u32; NOPS] {
        &self.weights
    }

    /// The fraction of operations that should be `op` (0.0 to 1.0).
    pub fn share(&self, op: NfsOp) -> f64 {
        f64::from(self.weight(op)) / f64::from(Mix::TOTAL)
    }

    /// Maps a uniform random `u64` to an operation, each with probability
    /// equal to its [`share`](Mix::share). Deterministic, allocation-free.
    pub fn choose(&self, u: u64) -> NfsOp {
        let x = ((u128::from(u) * u128::from(Mix::TOTAL)) >> 64) as u32;
        // x < TOTAL == cumulative[NOPS - 1], so some entry exceeds it.
        let i = self
            .cumulative
            .iter()
            .position(|&c| c > x)
            .unwrap_or(NOPS - 1);
        NfsOp::ALL[i]
    }
}

/// A mix file error, pointing at its line: displays as `FILE:LINE: …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MixError {
    pub path: PathBuf,
    pub line: usize,
    pub kind: MixErrorKind,
}

/// What was wrong with a mix file line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MixErrorKind {
    /// Not a `name percent` pair; holds the line's text.
    Syntax(String),
    /// Not one of nhfsstone's 18 operation names.
    UnknownOp(String),
    /// The percentage is not a whole number.
    BadNumber(NfsOp, String),
    /// The percentage is below zero.
    Negative(NfsOp, String),
    /// The operation was already given, on the line held here.
    Duplicate(NfsOp, usize),
    /// The percentages add up to this instead of 100.
    Total(u64),
}

impl fmt::Display for MixError {
    /// One line: the file's text in it escaped ([`crate::error::shown`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::error::{shown, shown_path};
        write!(f, "{}:{}: ", shown_path(&self.path), self.line)?;
        match &self.kind {
            MixErrorKind::Syntax(text) => write!(
                f,
                "expected an operation and its percentage, such as `lookup 34`, found `{}`",
                crate::error::shown_start(text, 80)
            ),
            MixErrorKind::UnknownOp(name) => {
                write!(
                    f,
                    "unknown operation `{}`; known operations are ",
                    shown(name)
                )?;
                for (i, op) in NfsOp::ALL.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{op}")?;
                }
                Ok(())
            }
            MixErrorKind::BadNumber(op, text) => write!(
                f,
                "bad percentage `{}` for {op}; give a whole number from 0 to 100",
                shown(text)
            ),
            MixErrorKind::Negative(op, text) => write!(
                f,
                "negative percentage `{}` for {op}; give a whole number from 0 to 100",
                shown(text)
            ),
            MixErrorKind::Duplicate(op, first) => write!(
                f,
                "{op} is given twice (first on line {first}); give each operation once"
            ),
            MixErrorKind::Total(total) => write!(
                f,
                "the percentages add up to {total}, not 100; adjust them so they sum to 100"
            ),
        }
    }
}

impl std::error::Error for MixError {}

/// The I/O block size: the largest transfer, 8 KiB (NFS v2's usual
/// `rsize`/`wsize`, and SFS's `DEFAULT_KB_PER_BLOCK` of 8).
pub const BLOCK_BYTES: u32 = 8 * 1024;

/// The fragment sizes that make up the other half of the transfers.
pub const FRAGMENT_BYTES: [u32; 3] = [1024, 2 * 1024, 4 * 1024];

/// Maps a uniform random `u64` to a read or write transfer size, following
/// LADDIS's default as Chen and Patterson describe it ("half of all I/O
/// requests are done in 8-kB blocks and half are done in fragments of 1, 2,
/// or 4 kB"): the top bit picks block or fragment, and the other 63 bits
/// pick 1, 2 or 4 KiB in equal thirds. So 8 KiB has probability 1/2 and
/// each fragment size 1/6 (to within 2^-63). KB is taken as 1024 bytes,
/// the unit NFS transfer sizes are counted in.
///
/// SFS 2.0 replaced this with separate read and write tables of multi-block
/// transfers (1 to 135 KB); that is not modelled here.
pub fn transfer_size(u: u64) -> u32 {
    if u >> 63 == 0 {
        BLOCK_BYTES
    } else {
        let rest = u & (u64::MAX >> 1);
        let third = ((u128::from(rest) * 3) >> 63) as usize;
        FRAGMENT_BYTES[third]
    }
}

/// The share of writes that append to a file rather than overwrite it:
/// LADDIS's "% of writes that append" parameter. The default, 70 %, is
/// `DEFAULT_APPEND` ("% of writes that append") in the `sfs_c_def.h` of
/// SPEC SFS 2.0, the LADDIS code base's successor; SFS 1.0's own value
/// could not be checked and is taken to be the same. nhfsstone has no such
/// parameter: each of its writes seeks to offset 0 and rewrites the file.
pub const APPEND_SHARE: f64 = 0.70;

/// Bytes of file set per NFS op/s of throughput: 540 MB per 100 ops/s, with
/// MB = 2^20 bytes, so 5.4 × 2^20 per op/s. The 540-per-100 rule is LADDIS's
/// as Chen and Patterson state it; SFS 1.0's own wording was not at hand.
/// The binary MB follows the SFS code, which writes its successor rule
/// (SFS 2.0's 10 MB per op/s, `DEFAULT_BYTES_PER_OP`) as `10*1024*1024`.
pub const FILESET_BYTES_PER_100_OPS: u64 = 540 * 1024 * 1024;

/// The file-set size, in bytes, that a claimed throughput of `ops_per_s`
/// NFS operations per second requires ([`FILESET_BYTES_PER_100_OPS`] per
/// 100 ops/s), rounded up to a whole byte; 0 for zero, negative or NaN.
pub fn fileset_bytes(ops_per_s: f64) -> u64 {
    // `as` saturates: NaN and negatives give 0, overflow gives u64::MAX.
    (ops_per_s * FILESET_BYTES_PER_100_OPS as f64 / 100.0).ceil() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::{Rng, SeedableRng};

    const DRAWS: usize = 10_000;

    fn assert_shares(mix: &Mix, seed: u64) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut counts = [0usize; NOPS];
        for _ in 0..DRAWS {
            counts[mix.choose(rng.next_u64()).index()] += 1;
        }
        for op in NfsOp::ALL {
            let got = counts[op.index()] as f64 / DRAWS as f64;
            let want = mix.share(op);
            assert!(
                (got - want).abs() <= 0.01,
                "{}: {op} drawn {got:.4}, want {want:.2}",
                mix.name()
            );
            if want == 0.0 {
                assert_eq!(counts[op.index()], 0, "{}: {op} has weight 0", mix.name());
            }
        }
    }

    #[test]
    fn ops_are_in_protocol_order_with_unique_names() {
        for (i, op) in NfsOp::ALL.into_iter().enumerate() {
            assert_eq!(op.index(), i);
            assert_eq!(NfsOp::from_name(op.name()), Some(op));
            assert!(!op.local_call().is_empty());
            assert_eq!(op.has_local_call(), !op.local_call().starts_with("none"));
        }
        assert_eq!(NfsOp::from_name("LOOKUP"), None);
    }

    #[test]
    fn builtin_tables_match_their_sources() {
        let n = Mix::nhfsstone();
        let want_n = [0, 13, 1, 0, 34, 8, 22, 0, 15, 2, 1, 0, 0, 0, 0, 0, 3, 1];
        assert_eq!(n.weights(), &want_n);
        let s = Mix::sfs2();
        let want_s = [0, 26, 1, 0, 36, 7, 14, 0, 7, 1, 1, 0, 0, 0, 0, 0, 6, 1];
        assert_eq!(s.weights(), &want_s);
        for mix in [n, s] {
            assert_eq!(mix.weights().iter().sum::<u32>(), 100);
            let shares: f64 = NfsOp::ALL.iter().map(|&op| mix.share(op)).sum();
            assert!((shares - 1.0).abs() < 1e-12);
            // A local run needs a local call for every op it draws.
            for op in NfsOp::ALL {
                assert!(op.has_local_call() || mix.weight(op) == 0);
            }
        }
    }

    #[test]
    fn choose_follows_nhfsstone_mix() {
        assert_shares(&Mix::nhfsstone(), 1);
    }

    #[test]
    fn choose_follows_sfs2_mix() {
        assert_shares(&Mix::sfs2(), 2);
    }

    #[test]
    fn only_nhfsstones_mix_is_called_sfs_1_0() {
        assert!(origin(Mix::nhfsstone().name()).contains("SFS 1.0"));
        assert_eq!(origin(Mix::sfs2().name()), "SPEC SFS 2.0's NFS v2 mix");
        assert!(!origin(Mix::sfs2().name()).contains("1.0"));
        let file = Mix::new("my.mix", Mix::nhfsstone().weights);
        assert_eq!(origin(file.name()), "mix from my.mix");
    }

    #[test]
    fn choose_follows_parsed_mix() {
        let text = "# metadata heavy\nlookup 50\ngetattr 20 # fstat\n\nmkdir 5%\nrmdir 5\nrename 10\nwrite 10\n";
        let mix = Mix::parse(text, Path::new("meta.mix")).unwrap();
        assert_eq!(mix.name(), "meta.mix");
        assert_eq!(mix.weight(NfsOp::Mkdir), 5);
        assert_eq!(mix.weight(NfsOp::Read), 0);
        assert_shares(&mix, 3);
    }

    #[test]
    fn choose_is_deterministic_and_covers_the_edges() {
        let mix = Mix::nhfsstone();
        // The first op with weight is getattr; the last is fsstat.
        assert_eq!(mix.choose(0), NfsOp::GetAttr);
        assert_eq!(mix.choose(u64::MAX), NfsOp::FsStat);
        for u in [0, 1, 12345, u64::MAX / 3, u64::MAX] {
            assert_eq!(mix.choose(u), mix.choose(u));
        }
        // 100 equal slices of the u64 range land on the table's ops in turn.
        let step = u64::MAX / 100 + 1;
        let mut counts = [0u32; NOPS];
        for k in 0..100u64 {
            counts[mix.choose(k * step).index()] += 1;
        }
        assert_eq!(&counts, mix.weights());
    }

    fn parse_err(text: &str) -> String {
        Mix::parse(text, Path::new("jobs/x.mix"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn mix_file_errors_name_file_and_line() {
        let e = parse_err("lookup 50\n# c\nfetch 50\n");
        assert!(
            e.contains("null, getattr,") && e.ends_with("readdir, fsstat"),
            "{e}"
        );
        for (text, begins) in [
            (
                "lookup 50\n# c\nfetch 50\n",
                "jobs/x.mix:3: unknown operation `fetch`; known",
            ),
            (
                "lookup 50\nread lots\n",
                "jobs/x.mix:2: bad percentage `lots` for read",
            ),
            (
                "lookup 50.5\n",
                "jobs/x.mix:1: bad percentage `50.5` for lookup",
            ),
            (
                "lookup 110\n\nread -10\n",
                "jobs/x.mix:3: negative percentage `-10` for read",
            ),
            ("", "jobs/x.mix:0: the percentages add up to 0,"),
            (
                "lookup\n",
                "jobs/x.mix:1: expected an operation and its percentage",
            ),
            ("lookup 50 50\n", "jobs/x.mix:1: expected"),
        ] {
            let e = parse_err(text);
            assert!(e.starts_with(begins), "{text:?}: {e}");
        }
        for (text, whole) in [
            (
                "lookup 50\nread 25\nlookup 25\n",
                "jobs/x.mix:3: lookup is given twice (first on line 1); give each operation once",
            ),
            (
                "lookup 50\nread 25\n# end\n",
                "jobs/x.mix:3: the percentages add up to 75, not 100; adjust them so they sum to 100",
            ),
        ] {
            assert_eq!(parse_err(text), whole);
        }

        let err = Mix::parse("lookup x\n", Path::new("m")).unwrap_err();
        assert_eq!(err.line, 1);
        assert_eq!(err.kind, MixErrorKind::BadNumber(NfsOp::Lookup, "x".into()));
    }

    #[test]
    fn builtin_mixes_round_trip_through_a_mix_file() {
        for mix in [Mix::nhfsstone(), Mix::sfs2()] {
            let text: String = NfsOp::ALL
                .iter()
                .map(|&op| format!("{} {}\n", op, mix.weight(op)))
                .collect();
            let back = Mix::parse(&text, Path::new("t")).unwrap();
            assert_eq!(back.weights(), mix.weights());
        }
    }

    #[test]
    fn transfer_sizes_split_half_blocks_and_thirds_of_fragments() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let (mut block, mut frag) = (0usize, [0usize; 3]);
        for _ in 0..DRAWS {
            match transfer_size(rng.next_u64()) {
                BLOCK_BYTES => block += 1,
                1024 => frag[0] += 1,
                2048 => frag[1] += 1,
                4096 => frag[2] += 1,
                other => panic!("unexpected size {other}"),
            }
        }
        let share = |n: usize| n as f64 / DRAWS as f64;
        assert!((share(block) - 0.5).abs() <= 0.01, "8 KiB {}", share(block));
        for (i, &n) in frag.iter().enumerate() {
            assert!(
                (share(n) - 1.0 / 6.0).abs() <= 0.01,
                "{} B: {}",
                FRAGMENT_BYTES[i],
                share(n)
            );
            let of_fragments = n as f64 / (DRAWS - block) as f64;
            assert!((of_fragments - 1.0 / 3.0).abs() <= 0.02, "{of_fragments}");
        }
        // The edges of each range.
        assert_eq!(transfer_size(0), BLOCK_BYTES);
        assert_eq!(transfer_size(u64::MAX >> 1), BLOCK_BYTES);
        assert_eq!(transfer_size(1 << 63), 1024);
        assert_eq!(transfer_size(u64::MAX), 4096);
        assert_eq!(transfer_size((1 << 63) | (u64::MAX >> 2)), 2048);
    }

    #[test]
    fn fileset_scales_540_mb_per_100_ops() {
        assert_eq!(fileset_bytes(100.0), 540 * 1024 * 1024);
        assert_eq!(fileset_bytes(200.0), 2 * 540 * 1024 * 1024);
        assert_eq!(fileset_bytes(1.0), 5_662_311); // 5.4 × 2^20 = 5 662 310.4, rounded up
        assert_eq!(fileset_bytes(0.0), 0);
        assert_eq!(fileset_bytes(-5.0), 0);
        assert_eq!(fileset_bytes(f64::NAN), 0);
    }

    #[test]
    fn append_share_is_a_fraction() {
        assert!((0.0..=1.0).contains(&APPEND_SHARE));
    }
}
