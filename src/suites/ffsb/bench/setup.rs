//! Before the run: the checks, the file sets (new or reused), aging; and
//! after it, the cleanup.
//!
//! iogauge removes only what it made. FFSB starts each file system with
//! `rm -rf <location>/data <location>/meta`; iogauge writes a marker,
//! `<location>/.iogauge-ffsb`, before it makes `data/` and `meta/`, and
//! refuses a location whose `data/` or `meta/` has no marker beside it.
//! Even beside its marker (left by a killed run, or kept by `reuse=1`) it
//! removes only the names it gives ([`ours`]): `data/datafile<n>`,
//! `data/fillfile<n>`, `data/datadir<k>/datafile<n>` and
//! `meta/metafile<n>[a…]`; a location holding anything else there is
//! refused before anything is written, and what appears there during a
//! run is left, with `data/`, `meta/` and the marker around it.
//!
//! A location must exist, as every directory a user names; only the
//! `DIR/fs<i>` of `--location DIR` with several file systems are made by
//! the run (and removed at its end if empty then).

use std::ffi::OsStr;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::Options;
use super::files::{
    DATA_PREFIX, DIR_PREFIX, FILL_PREFIX, FsState, META_PREFIX, SizeRule, number_of,
};
use super::rand::{BUILD_BYTES, RandBytes};
use super::thread::{AgeCtl, AgeEnd};
use super::workers::{AgePlan, Aging};
use crate::engine::{AlignedBuf, EngineSpec};
use crate::runner::Progress;
use crate::runner::workdir::{check_dir, io_reason, reserve};
use crate::runner::{self, NoProgress, NoWatch, Placement, StopRule, signals};
use crate::suites::ffsb::profile::{FileSystem, Op, Profile, ThreadGroup};
use crate::suites::ffsb::results::FsSetup;
use crate::units::fmt_bytes;
use crate::workload::worker_rng;

/// The marker iogauge leaves beside the `data/` and `meta/` it makes.
pub const MARKER: &str = ".iogauge-ffsb";

/// Salts that give the file-set builds and the fill files PRNG streams
/// of their own (the aging threads': [`super::workers::AGE_SALT`]).
const BUILD_SALT: u64 = 0x4255_494c_4446_5342;
const FILL_SALT: u64 = 0x4649_4c4c_4649_4c45;

/// A file system's blocks, from statvfs(2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Usage {
    pub blocks: u64,
    pub bfree: u64,
    pub bavail: u64,
    pub frsize: u64,
}

impl Usage {
    pub fn of(path: &Path) -> io::Result<Usage> {
        let st = rustix::fs::statvfs(path)?;
        Ok(Usage {
            blocks: st.f_blocks,
            bfree: st.f_bfree,
            bavail: st.f_bavail,
            frsize: crate::env::block_unit(&st),
        })
    }

    /// FFSB's utilisation: `(f_blocks − f_bfree) / f_blocks`.
    pub fn util(&self) -> f64 {
        if self.blocks == 0 {
            return 0.0;
        }
        self.blocks.saturating_sub(self.bfree) as f64 / self.blocks as f64
    }

    pub fn used_bytes(&self) -> u64 {
        self.blocks.saturating_sub(self.bfree) * self.frsize
    }

    pub fn avail_bytes(&self) -> u64 {
        self.bavail * self.frsize
    }

    /// As if `bytes` more were free (a file set about to be removed).
    fn freed(&self, bytes: u64) -> Usage {
        let blocks = bytes.div_ceil(self.frsize.max(1));
        Usage {
            bfree: (self.bfree + blocks).min(self.blocks),
            bavail: self.bavail + blocks,
            ..*self
        }
    }
}

/// Bytes to write until the utilisation reaches `util` (a fraction:
/// 0.02 is 2 %): `util·f_blocks·f_frsize − (f_blocks − f_bfree)·f_frsize`.
pub(super) fn bytes_to_reach(util: f64, u: &Usage) -> u64 {
    let target = (util * u.blocks as f64 * u.frsize as f64).ceil();
    (target as u64).saturating_sub(u.used_bytes())
}

/// A fraction as a percentage without needless digits: 0.02 → `2`.
fn percent(f: f64) -> String {
    let s = format!("{:.2}", f * 100.0);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Where a profile line is, for messages: `file:line` or `line N`.
fn at(p: &Profile, line: usize) -> String {
    if p.source.as_os_str().is_empty() {
        format!("line {line}")
    } else {
        format!("{}:{line}", p.source.display())
    }
}

/// The index of the file system `bindfs` names.
pub(super) fn bound_fs(p: &Profile, tg: &ThreadGroup) -> Option<usize> {
    let b = tg.bindfs.as_ref()?;
    p.filesystems
        .iter()
        .position(|fs| same_place(&fs.location, b))
}

fn same_place(a: &Path, b: &Path) -> bool {
    let norm = |p: &Path| {
        std::fs::canonicalize(p)
            .or_else(|_| std::path::absolute(p))
            .unwrap_or_else(|_| p.to_path_buf())
            .components()
            .collect::<PathBuf>()
    };
    a == b || norm(a) == norm(b)
}

/// Bytes a directory tree takes on disk (its blocks).
fn tree_bytes(dir: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => m.blocks() * 512 + tree_bytes(&e.path()),
            Ok(m) => m.blocks() * 512,
            Err(_) => 0,
        })
        .sum()
}

const WRITE_OPS: [Op; 8] = [
    Op::Write,
    Op::WriteFsync,
    Op::Create,
    Op::CreateFsync,
    Op::Append,
    Op::AppendFsync,
    Op::WriteAll,
    Op::WriteAllFsync,
];

/// directio=1: the sizes a thread group's operations move must be whole
/// O_DIRECT blocks (those of the operations it does).
fn group_aligned(tg: &ThreadGroup, here: &str, reads: bool, writes: bool) -> Result<(), String> {
    let w = |op: Op| tg.weight(op) > 0;
    let direct = EngineSpec::new(crate::engine::Choice::PSYNC).direct(true);
    let checks = [
        ("read_blocksize", u64::from(tg.read_blocksize), reads),
        ("read_size", tg.read_size, w(Op::Read)),
        (
            "read_skipsize",
            u64::from(tg.read_skipsize),
            w(Op::Read) && tg.read_skip,
        ),
        ("write_blocksize", u64::from(tg.write_blocksize), writes),
        (
            "write_size",
            tg.write_size,
            [Op::Write, Op::WriteFsync, Op::Append, Op::AppendFsync]
                .iter()
                .any(|&op| w(op)),
        ),
    ];
    for (name, v, used) in checks {
        if used {
            direct.aligned(&format!("{here}: directio=1: {name}"), v)?;
        }
    }
    Ok(())
}

/// directio=1: a file set's sizes must be whole O_DIRECT blocks.
fn sizes_aligned(fs: &FileSystem, here: &str) -> Result<(), String> {
    let direct = EngineSpec::new(crate::engine::Choice::PSYNC).direct(true);
    let shown = fs.location.display();
    let mut sizes: Vec<(&str, u64)> = fs
        .size_weights
        .iter()
        .map(|w| ("size_weight", w.0))
        .collect();
    if sizes.is_empty() {
        sizes = vec![
            ("min_filesize", fs.min_filesize),
            ("max_filesize", fs.max_filesize),
        ];
    }
    for (name, v) in &sizes {
        direct.aligned(
            &format!("{here}: directio=1: the file sizes of {shown}: {name}"),
            *v,
        )?;
    }
    Ok(())
}

/// What a thread group may not ask for: FFSB would crash or misbehave.
fn check_group(
    p: &Profile,
    tg: &ThreadGroup,
    what: &str,
    reach: &[&FileSystem],
) -> Result<(), String> {
    let here = format!("{}: {what}", at(p, tg.line));
    let w = |op: Op| tg.weight(op) > 0;
    if tg.num_threads == 0 {
        return Err(format!("{here}: num_threads is 0; give it 1 or more"));
    }
    if tg.total_weight() == 0 {
        return Err(format!(
            "{here}: every operation's weight is 0; give at least one a weight"
        ));
    }
    let reads = w(Op::Read) || w(Op::ReadAll);
    let writes = WRITE_OPS.iter().any(|&op| w(op));
    if reads && tg.read_blocksize == 0 {
        return Err(format!(
            "{here}: read and readall need read_blocksize (it is 0)"
        ));
    }
    if writes && tg.write_blocksize == 0 {
        return Err(format!(
            "{here}: write, create, append and writeall need write_blocksize (it is 0)"
        ));
    }
    if p.directio {
        group_aligned(tg, &here, reads, writes)?;
    }
    for fs in reach {
        let smallest = SizeRule::of(fs, p.directio).smallest();
        let loc = fs.location.display();
        if w(Op::Read) {
            if tg.read_random && u64::from(tg.read_blocksize) > smallest {
                return Err(format!(
                    "{here}: read_random reads blocks of {} bytes, but files of {loc} can be as small as {smallest} bytes (FFSB reads past their end and stops); lower read_blocksize or raise the file sizes",
                    tg.read_blocksize
                ));
            }
            if tg.read_skip && !tg.read_random && tg.read_blocksize > 0 {
                let (bs, skip) = (u64::from(tg.read_blocksize), u64::from(tg.read_skipsize));
                let (n, last) = (tg.read_size / bs, tg.read_size % bs);
                let span = if last > 0 {
                    n * (bs + skip) + last
                } else {
                    (n * (bs + skip)).saturating_sub(skip)
                };
                if span > smallest {
                    return Err(format!(
                        "{here}: read_skip reads {} bytes over {span} bytes of a file, but files of {loc} can be as small as {smallest} bytes (FFSB stops); lower read_size or read_skipsize, or raise the file sizes",
                        tg.read_size
                    ));
                }
            }
            if !tg.read_random && !tg.read_skip && tg.read_size > smallest {
                return Err(format!(
                    "{here}: read_size {} is larger than the smallest file of {loc} ({smallest} bytes), where FFSB stops on an assertion; lower read_size or raise the file sizes",
                    tg.read_size
                ));
            }
        }
        if w(Op::Write) || w(Op::WriteFsync) {
            if tg.write_random && u64::from(tg.write_blocksize) > smallest {
                return Err(format!(
                    "{here}: write_random writes blocks of {} bytes, but files of {loc} can be as small as {smallest} bytes; lower write_blocksize or raise the file sizes",
                    tg.write_blocksize
                ));
            }
            if !tg.write_random && tg.write_size > smallest {
                return Err(format!(
                    "{here}: write_size {} is larger than the smallest file of {loc} ({smallest} bytes), where FFSB stops on an assertion; lower write_size or raise the file sizes",
                    tg.write_size
                ));
            }
        }
    }
    Ok(())
}

/// Every refusal, before anything is written.
pub(super) fn check(o: &Options) -> Result<(), String> {
    let p = &o.profile;
    if o.engine.is_fake() {
        return Err(format!(
            "engine '{}' does no I/O, but FFSB's file sets and metadata operations need real files; use psync, sync or buffered",
            o.engine
        ));
    }
    o.engine.check_grows(
        "FFSB's creates and appends grow files",
        "psync, sync or buffered",
    )?;
    if p.directio {
        EngineSpec::new(o.engine)
            .direct(true)
            .check()
            .map_err(|e| format!("directio=1 asks for O_DIRECT: {e}"))?;
    }
    if p.filesystems.is_empty() {
        return Err("the profile has no [filesystem]; FFSB needs at least one".into());
    }
    if p.time > 0 && p.threadgroups.is_empty() {
        return Err(
            "the profile has no [threadgroup] to run; add one, or set time=0 to only build the file sets"
                .into(),
        );
    }
    for (i, a) in p.filesystems.iter().enumerate() {
        if let Some(b) = p.filesystems[..i]
            .iter()
            .find(|b| same_place(&a.location, &b.location))
        {
            return Err(format!(
                "{}: location {} is the location of the [filesystem] at line {} too; each needs its own",
                at(p, a.line),
                a.location.display(),
                b.line
            ));
        }
    }
    for (g, tg) in p.threadgroups.iter().enumerate() {
        let reach: Vec<&FileSystem> = match (&tg.bindfs, bound_fs(p, tg)) {
            (None, _) => p.filesystems.iter().collect(),
            (Some(_), Some(i)) => vec![&p.filesystems[i]],
            (Some(b), None) => {
                return Err(format!(
                    "{}: thread group {g}: bindfs={} names no [filesystem] location of the profile",
                    at(p, tg.line),
                    b.display()
                ));
            }
        };
        check_group(p, tg, &format!("thread group {g}"), &reach)?;
    }
    // the space each file system's device must have: (device, place, bytes, free)
    let mut need: Vec<(u64, String, u64, u64)> = Vec::new();
    for fs in &p.filesystems {
        let (dev, bytes, free) = check_fs(o, fs)?;
        match need.iter_mut().find(|n| n.0 == dev) {
            Some(n) => n.2 += bytes,
            None => need.push((dev, fs.location.display().to_string(), bytes, free)),
        }
    }
    for (_, place, bytes, free) in need {
        if bytes.saturating_add(reserve(bytes)) > free {
            return Err(format!(
                "{place}: not enough space: the file set needs {} and a reserve of {} (2 % + 1 MiB), and {} is free; use fewer or smaller files, or another location",
                fmt_bytes(bytes),
                fmt_bytes(reserve(bytes)),
                fmt_bytes(free)
            ));
        }
    }
    let threads: usize = p.threadgroups.iter().map(|t| t.num_threads as usize).sum();
    runner::limits::check(threads, 1, false).map_err(|e| e.0)?;
    Ok(())
}

/// One file system's checks; returns its device, the bytes its set-up
/// writes at most, and the space it may use.
fn check_fs(o: &Options, fs: &FileSystem) -> Result<(u64, u64, u64), String> {
    let p = &o.profile;
    let loc = &fs.location;
    let shown = loc.display();
    let here = at(p, fs.line);
    let base = base_of(fs, &here)?;
    check_dir(&base).map_err(|e| e.to_string())?;
    let marked = check_marker(loc)?;
    let largest = check_sizes(p, fs, &here)?;
    let usage = Usage::of(&base).map_err(|e| {
        format!(
            "{shown}: cannot read its file system's usage: {}",
            io_reason(&e)
        )
    })?;
    // an old set of iogauge's is removed before the new one is made
    let old = if marked {
        tree_bytes(&loc.join("data")) + tree_bytes(&loc.join("meta"))
    } else {
        0
    };
    let usage = usage.freed(old);
    let dev = std::fs::metadata(&base).map_or(0, |m| m.dev());
    let mut bytes = if fs.num_files > 0 {
        u64::from(fs.num_files) * largest
    } else if fs.init_size > 0 {
        fs.init_size + largest
    } else if fs.init_util > 0.0 {
        bytes_to_reach(fs.init_util, &usage) + largest
    } else {
        0
    };
    if fs.agefs {
        bytes += check_aging(o, fs, largest, &usage)?;
    }
    Ok((dev, bytes, usage.avail_bytes()))
}

/// The directory the file system's set goes in, which must exist: its
/// location, or the parent the run makes it in.
fn base_of(fs: &FileSystem, here: &str) -> Result<PathBuf, String> {
    let loc = &fs.location;
    match std::fs::metadata(loc) {
        Ok(m) if m.is_dir() => Ok(loc.clone()),
        Ok(_) => Err(format!(
            "{here}: location {} is not a directory",
            loc.display()
        )),
        Err(_) if fs.run_makes_location => {
            // DIR/fs<i> of --location DIR: made by the run, in DIR
            Ok(crate::runner::names::dir_of(loc).to_path_buf())
        }
        Err(e) => Err(format!(
            "{here}: location {} {}; make the directory first, or give --location DIR",
            loc.display(),
            match e.kind() {
                io::ErrorKind::NotFound => "does not exist".to_string(),
                _ => io_reason(&e),
            }
        )),
    }
}

/// Refuses a `data/` or `meta/` at `loc` that iogauge did not make, and
/// anything but the file set's names in one it did; returns whether `loc`
/// holds iogauge's marker (an old set, removed before the new one).
fn check_marker(loc: &Path) -> Result<bool, String> {
    let marked = loc.join(MARKER).is_file();
    for sub in ["data", "meta"] {
        if !marked && std::fs::symlink_metadata(loc.join(sub)).is_ok() {
            return Err(format!(
                "{}/{sub} exists and was not made by iogauge ffsb; remove it or use another location",
                loc.display()
            ));
        }
    }
    if marked && let Some(f) = foreign(loc) {
        return Err(format!(
            "{} was not made by iogauge ffsb: beside its marker {}, data/ and meta/ hold only the file set's names, and iogauge removes only those; move it away or use another location",
            f.display(),
            loc.join(MARKER).display()
        ));
    }
    Ok(marked)
}

/// The file sizes' and the initial fill's checks; returns the largest
/// file, in whole 4 KiB blocks.
fn check_sizes(p: &Profile, fs: &FileSystem, here: &str) -> Result<u64, String> {
    let shown = fs.location.display();
    if !fs.size_weights.is_empty() && fs.size_weights.iter().all(|w| w.1 == 0) {
        return Err(format!("{here}: every size_weight of {shown} is 0"));
    }
    if fs.size_weights.is_empty() && fs.min_filesize > fs.max_filesize {
        return Err(format!(
            "{here}: min_filesize {} of {shown} is larger than max_filesize {}",
            fs.min_filesize, fs.max_filesize
        ));
    }
    if fs.create_blocksize == 0 || fs.age_blocksize == 0 {
        return Err(format!(
            "{here}: create_blocksize and age_blocksize of {shown} must not be 0"
        ));
    }
    if p.directio {
        sizes_aligned(fs, here)?;
    }
    let largest = SizeRule::of(fs, p.directio)
        .largest()
        .next_multiple_of(4096);
    if fs.num_files == 0 && (fs.init_size > 0 || fs.init_util > 0.0) && largest == 0 {
        return Err(format!(
            "{here}: the files of {shown} are all 0 bytes, so init_size or init_util would never be reached"
        ));
    }
    if !(0.0..1.0).contains(&fs.init_util) {
        return Err(format!(
            "{here}: init_util {} of {shown} is not a fraction below 1 (0.02 is 2 %)",
            fs.init_util
        ));
    }
    Ok(largest)
}

/// The checks of `agefs=1`; returns the bytes aging writes to reach
/// `desired_util` from `usage`. `largest` is the largest file (0: creates
/// write nothing).
fn check_aging(o: &Options, fs: &FileSystem, largest: u64, usage: &Usage) -> Result<u64, String> {
    let p = &o.profile;
    let shown = fs.location.display();
    let here = at(p, fs.line);
    if !o.allow_aging {
        return Err(format!(
            "{shown}: agefs=1 fills the file system to desired_util; give --allow-aging if iogauge may fill it"
        ));
    }
    let Some(ag) = &fs.age_group else {
        return Err(format!(
            "{here}: agefs=1 needs a [threadgroup] inside the [filesystem] of {shown}: the operations that age it"
        ));
    };
    let what = format!("the aging thread group of {shown}");
    check_group(p, ag, &what, &[fs])?;
    if let Some(op) = Op::ALL.iter().find(|&&op| ag.weight(op) > 0 && !op.ages()) {
        return Err(format!(
            "{}: {what} has {}_weight={}; aging runs only create, append, delete and their _fsync forms (FFSB has no files for the others while it ages)",
            at(p, ag.line),
            op.name(),
            ag.weight(*op)
        ));
    }
    let w = |op: Op| ag.weight(op) > 0;
    let creates = (w(Op::Create) || w(Op::CreateFsync)) && largest > 0;
    let appends = (w(Op::Append) || w(Op::AppendFsync)) && ag.write_size > 0;
    if !creates && !appends {
        return Err(format!(
            "{}: {what} creates no bytes and appends none, so it would never fill the file system",
            at(p, ag.line)
        ));
    }
    if !(fs.desired_util > 0.0 && fs.desired_util < 1.0) {
        return Err(format!(
            "{here}: desired_util {} of {shown} is not a fraction between 0 and 1 (0.02 is 2 %)",
            fs.desired_util
        ));
    }
    let age = bytes_to_reach(fs.desired_util, usage);
    if age > o.max_age_bytes {
        return Err(format!(
            "aging {shown} to {} % needs {age} bytes, more than --max-age-bytes {}",
            percent(fs.desired_util),
            o.max_age_bytes
        ));
    }
    Ok(age)
}

/// Whether `name`, in `data/` (`meta` false) or `meta/`, is a name iogauge
/// gives: `datafile<n>`, `fillfile<n>`, `datadir<k>` (a directory), and
/// in `meta/` `metafile<n>` with an `a` per rename (directories).
fn ours(name: &str, meta: bool, dir: bool) -> bool {
    if meta {
        return dir && number_of(name.trim_end_matches('a'), META_PREFIX).is_some();
    }
    if dir {
        return number_of(name, DIR_PREFIX).is_some();
    }
    number_of(name, DATA_PREFIX).is_some() || number_of(name, FILL_PREFIX).is_some()
}

/// The entries of `dir` with their kinds (symbolic links not followed);
/// nothing when it cannot be read.
fn listing(dir: &Path) -> Vec<(String, PathBuf, std::fs::FileType)> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    rd.flatten()
        .filter_map(|e| {
            let t = e.file_type().ok()?;
            Some((e.file_name().to_string_lossy().into_owned(), e.path(), t))
        })
        .collect()
}

/// The first thing in `loc`'s `data/` and `meta/` that iogauge ffsb does
/// not make (a name of another form, a symbolic link, a file where a
/// directory belongs), if there is one.
fn foreign(loc: &Path) -> Option<PathBuf> {
    for (sub, meta) in [("data", false), ("meta", true)] {
        let d = loc.join(sub);
        match std::fs::symlink_metadata(&d) {
            Err(_) => continue,
            Ok(m) if !m.is_dir() => return Some(d),
            Ok(_) => {}
        }
        for (name, path, t) in listing(&d) {
            let fits = !t.is_symlink() && (t.is_dir() || t.is_file());
            if !fits || !ours(&name, meta, t.is_dir()) {
                return Some(path);
            }
            if t.is_dir() {
                // datadir<k> holds data files; metafile<n> holds nothing
                let inner = listing(&path);
                let stray = inner
                    .into_iter()
                    .find(|(n, _, it)| meta || !it.is_file() || !ours(n, false, false));
                if let Some((_, p, _)) = stray {
                    return Some(p);
                }
            }
        }
    }
    None
}

/// Remove the file set iogauge made at `loc`: in `data/` and `meta/` only
/// the names it gives, then the two directories. What is not iogauge's
/// stays, and so do the directories holding it: the error names it.
fn remove_set(loc: &Path) -> Result<(), String> {
    let mut left: Option<PathBuf> = None;
    let mut failure: Option<String> = None;
    let rm = |failure: &mut Option<String>, r: io::Result<()>, p: &Path| match r {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            failure.get_or_insert_with(|| {
                format!("could not remove {}: {}", p.display(), io_reason(&e))
            });
        }
    };
    for (sub, meta) in [("data", false), ("meta", true)] {
        let d = loc.join(sub);
        match std::fs::symlink_metadata(&d) {
            Err(_) => continue,
            Ok(m) if !m.is_dir() => {
                left.get_or_insert(d);
                continue;
            }
            Ok(_) => {}
        }
        for (name, path, t) in listing(&d) {
            let fits = !t.is_symlink() && (t.is_dir() || t.is_file());
            if !fits || !ours(&name, meta, t.is_dir()) {
                left.get_or_insert(path);
                continue;
            }
            if t.is_file() {
                rm(&mut failure, std::fs::remove_file(&path), &path);
                continue;
            }
            if !meta {
                for (n, p, it) in listing(&path) {
                    if it.is_file() && ours(&n, false, false) {
                        rm(&mut failure, std::fs::remove_file(&p), &p);
                    } else {
                        left.get_or_insert(p);
                    }
                }
            }
            if std::fs::remove_dir(&path).is_err() && path.exists() {
                left.get_or_insert_with(|| {
                    listing(&path)
                        .into_iter()
                        .next()
                        .map_or(path.clone(), |(_, p, _)| p)
                });
            }
        }
        if std::fs::remove_dir(&d).is_err() && d.exists() && left.is_none() && failure.is_none() {
            left = Some(d);
        }
    }
    if let Some(f) = failure {
        return Err(f);
    }
    match left {
        Some(p) => Err(format!(
            "left {} and what holds it: iogauge ffsb did not make it, and removes only what it made",
            p.display()
        )),
        None => Ok(()),
    }
}

/// Why the set-up stopped.
pub(super) enum Halt {
    Interrupted,
    Failed(String),
}

/// What the run made at a location, and what to remove at its end.
pub(super) struct Place {
    loc: PathBuf,
    /// The location itself was made by this run.
    made_loc: bool,
    /// `reuse=1` and an earlier set was taken as it was.
    reused: bool,
    /// `reuse=1`: the set built is kept if the run ends well.
    keep_if_ok: bool,
}

/// Every place of the run; cleans up when dropped, however the run ends.
#[derive(Default)]
pub(super) struct Places {
    places: Vec<Place>,
    ok: bool,
    /// What could not be removed.
    pub errors: Vec<String>,
}

impl Places {
    /// The run ended well: the sets of `reuse=1` stay.
    pub fn ok(&mut self) {
        self.ok = true;
    }

    /// Remove what the run made (unless kept for `reuse`), and the
    /// locations it made if they are empty.
    pub fn clean(&mut self) {
        for p in std::mem::take(&mut self.places).iter().rev() {
            let keep = p.reused || (p.keep_if_ok && self.ok);
            let marker = p.loc.join(MARKER);
            if !keep && marker.is_file() {
                match remove_set(&p.loc) {
                    // the marker stays beside what is left of data/ and meta/
                    Err(e) => self.errors.push(e),
                    Ok(()) => {
                        if let Err(e) = std::fs::remove_file(&marker) {
                            self.errors.push(format!(
                                "could not remove {}: {}",
                                marker.display(),
                                io_reason(&e)
                            ));
                        }
                    }
                }
            }
            if p.made_loc {
                // only if empty: what others put there stays
                let _ = std::fs::remove_dir(&p.loc);
            }
        }
    }
}

impl Drop for Places {
    fn drop(&mut self) {
        self.clean();
        for e in &self.errors {
            eprintln!("iogauge: {e}");
        }
    }
}

/// Set up file system `idx`: reuse its set or build a new one (aging it
/// first with `agefs`).
pub(super) fn prepare(
    o: &Options,
    idx: usize,
    st: &FsState,
    places: &mut Places,
    tell: &dyn Progress,
) -> Result<FsSetup, (FsSetup, Halt)> {
    let fs = &o.profile.filesystems[idx];
    let started = Instant::now();
    let mut s = FsSetup {
        location: fs.location.clone(),
        ..Default::default()
    };
    let r = prepare_in(o, idx, st, places, tell, &mut s);
    s.secs = started.elapsed().as_secs_f64();
    match r {
        Ok(()) => Ok(s),
        Err(h) => Err((s, h)),
    }
}

fn prepare_in(
    o: &Options,
    idx: usize,
    st: &FsState,
    places: &mut Places,
    tell: &dyn Progress,
    s: &mut FsSetup,
) -> Result<(), Halt> {
    let fs = &o.profile.filesystems[idx];
    let loc = &fs.location;
    let shown = loc.display();
    let made_loc = fs.run_makes_location
        && match std::fs::create_dir(loc) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
            Err(e) => {
                return Err(Halt::Failed(format!(
                    "cannot create {shown}: {}",
                    io_reason(&e)
                )));
            }
        };
    places.places.push(Place {
        loc: loc.clone(),
        made_loc,
        reused: false,
        keep_if_ok: fs.reuse,
    });
    let util = || {
        Usage::of(loc).map(|u| u.util()).map_err(|e| {
            Halt::Failed(format!(
                "cannot read the utilisation of {shown}: {}",
                io_reason(&e)
            ))
        })
    };
    if fs.reuse {
        tell.say(&format!("checking existing fs: {shown}"));
        let why = if fs.agefs {
            "Aging and reusing the fileset are mutually exclusive".to_string()
        } else {
            match load_existing(fs, st) {
                Ok(n) => {
                    s.reused = true;
                    s.files = n;
                    s.util_before = util()?;
                    s.util_after = s.util_before;
                    if let Some(p) = places.places.last_mut() {
                        p.reused = true;
                    }
                    return Ok(());
                }
                Err(why) => why,
            }
        };
        tell.say(&why);
        tell.say("recreating new fileset");
    } else {
        tell.say(&format!("creating new fileset {shown}"));
    }
    fresh(fs, st)?;
    s.util_before = util()?;
    if fs.agefs {
        age(o, idx, st, s, tell)?;
    }
    build(o, idx, st, s)?;
    s.util_after = util()?;
    Ok(())
}

/// Remove an old set of iogauge's, write the marker, make `data/`,
/// `data/datadir<k>` and `meta/`.
fn fresh(fs: &FileSystem, st: &FsState) -> Result<(), Halt> {
    let loc = &fs.location;
    let marker = loc.join(MARKER);
    let failed = |what: &str, p: &Path, e: io::Error| {
        Halt::Failed(format!("cannot {what} {}: {}", p.display(), io_reason(&e)))
    };
    for sub in ["data", "meta"] {
        let d = loc.join(sub);
        if std::fs::symlink_metadata(&d).is_ok() && !marker.is_file() {
            return Err(Halt::Failed(format!(
                "{} exists and was not made by iogauge ffsb; remove it or use another location",
                d.display()
            )));
        }
    }
    if marker.is_file() {
        remove_set(loc).map_err(Halt::Failed)?;
    }
    std::fs::write(
        &marker,
        "made by iogauge ffsb: its runs remove data/ and meta/ beside this file\n",
    )
    .map_err(|e| failed("write", &marker, e))?;
    let data = loc.join("data");
    std::fs::create_dir(&data).map_err(|e| failed("create directory", &data, e))?;
    let mut buf = Vec::new();
    for k in 0..fs.num_dirs {
        st.data.dir_path(&mut buf, k);
        let d = Path::new(OsStr::from_bytes(&buf));
        std::fs::create_dir(d).map_err(|e| failed("create directory", d, e))?;
    }
    st.data.set_dirs(fs.num_dirs);
    let meta = loc.join("meta");
    std::fs::create_dir(&meta).map_err(|e| failed("create directory", &meta, e))?;
    Ok(())
}

/// Take an earlier set of iogauge's as it is, if it is exactly what the
/// profile asks for: `num_files` files `datafile<n>` in `data/` and its
/// `num_dirs` directories `datadir0..`, every size within the file
/// system's sizes, and `meta/` empty. Returns the number of files, or why
/// not.
fn load_existing(fs: &FileSystem, st: &FsState) -> Result<u64, String> {
    let loc = &fs.location;
    if !loc.join(MARKER).is_file() {
        return Err(format!(
            "no file set made by iogauge ffsb in {}",
            loc.display()
        ));
    }
    let data = loc.join("data");
    let list = |d: &Path| -> Result<Vec<(String, std::fs::Metadata)>, String> {
        let rd = std::fs::read_dir(d).map_err(|e| format!("{}: {}", d.display(), io_reason(&e)))?;
        let mut v = Vec::new();
        for e in rd {
            let e = e.map_err(|e| format!("{}: {}", d.display(), io_reason(&e)))?;
            let m = e
                .metadata()
                .map_err(|er| format!("{}: {}", e.path().display(), io_reason(&er)))?;
            let name = e.file_name().to_string_lossy().into_owned();
            v.push((name, m));
        }
        Ok(v)
    };
    let foreign =
        |d: &Path, name: &str| format!("{}/{name} is not one of the file set's names", d.display());
    let mut files: Vec<(u32, u32, u64)> = Vec::new();
    let mut dirs: Vec<u32> = Vec::new();
    for (name, m) in list(&data)? {
        if m.is_dir() {
            let k = number_of(&name, DIR_PREFIX).ok_or_else(|| foreign(&data, &name))?;
            dirs.push(k);
            let sub = data.join(&name);
            for (f, fm) in list(&sub)? {
                match number_of(&f, DATA_PREFIX) {
                    Some(n) if fm.is_file() => files.push((n, k + 1, fm.len())),
                    _ => return Err(foreign(&sub, &f)),
                }
            }
        } else {
            match number_of(&name, DATA_PREFIX) {
                Some(n) if m.is_file() => files.push((n, 0, m.len())),
                _ => return Err(foreign(&data, &name)),
            }
        }
    }
    dirs.sort_unstable();
    let want_dirs: Vec<u32> = (0..fs.num_dirs).collect();
    if files.len() != fs.num_files as usize || dirs != want_dirs {
        return Err(format!(
            "check_existing_fileset: number of files ({}) or directories ({}) don't match up",
            files.len(),
            dirs.len()
        ));
    }
    files.sort_unstable();
    if files.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err("check_existing_fileset: a file number appears twice".into());
    }
    let (lo, hi) = (st.sizes.smallest(), st.sizes.largest());
    if let Some(f) = files.iter().find(|f| f.2 < lo || f.2 > hi) {
        return Err(format!(
            "size {} bytes for file datafile{} is invalid",
            f.2, f.0
        ));
    }
    let meta = loc.join("meta");
    if !list(&meta)?.is_empty() {
        return Err("check_existing_fileset: meta directory isn't empty".into());
    }
    st.data.set_dirs(fs.num_dirs);
    for &(n, dir, size) in &files {
        st.data.insert_existing(n, dir, size);
    }
    st.data.seal();
    Ok(files.len() as u64)
}

/// Write one file of `size` bytes in blocks of `block.len()`.
fn write_file(path: &Path, size: u64, block: &[u8]) -> io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .open(path)?;
    let mut left = size;
    while left > 0 {
        let n = left.min(block.len() as u64) as usize;
        f.write_all(&block[..n])?;
        left -= n as u64;
    }
    Ok(())
}

fn write_failed(path: &[u8], e: &io::Error) -> Halt {
    let full = matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT));
    Halt::Failed(format!(
        "{}cannot write {}: {}",
        if full { "out of space: " } else { "" },
        Path::new(OsStr::from_bytes(path)).display(),
        io_reason(e)
    ))
}

/// The initial files, direct I/O off: `num_files` of them, or until
/// `init_size` bytes are written, or until the file system is `init_util`
/// full; sizes by the file system's rule, written in `create_blocksize`
/// writes.
fn build(o: &Options, idx: usize, st: &FsState, s: &mut FsSetup) -> Result<(), Halt> {
    let fs = &o.profile.filesystems[idx];
    let mut rng = RandBytes::new(&mut worker_rng(o.seed ^ BUILD_SALT, idx), BUILD_BYTES);
    let block = AlignedBuf::random(fs.create_blocksize as usize, o.seed ^ idx as u64);
    let block = &block[..fs.create_blocksize as usize];
    // init_util: a bound on the bytes, for a file system that never fills
    let bound = match Usage::of(&fs.location) {
        Ok(u) if fs.init_util > 0.0 => {
            bytes_to_reach(fs.init_util, &u) * 2 + st.sizes.largest() + (64 << 20)
        }
        _ => u64::MAX,
    };
    let mut path = Vec::new();
    let (mut files, mut bytes) = (0u64, 0u64);
    loop {
        let more = if fs.num_files > 0 {
            files < u64::from(fs.num_files)
        } else if fs.init_size > 0 {
            bytes < fs.init_size
        } else if fs.init_util > 0.0 {
            let u = Usage::of(&fs.location).map_err(|e| {
                Halt::Failed(format!(
                    "cannot read the utilisation of {}: {}",
                    fs.location.display(),
                    io_reason(&e)
                ))
            })?;
            u.util() < fs.init_util
        } else {
            false
        };
        if !more {
            break;
        }
        if signals::interrupted() {
            s.files = files;
            s.bytes = bytes;
            return Err(Halt::Interrupted);
        }
        if bytes > bound {
            return Err(Halt::Failed(format!(
                "{} did not reach init_util {} after {bytes} bytes",
                fs.location.display(),
                fs.init_util
            )));
        }
        let size = st.sizes.draw(&mut rng);
        let p = st.data.add(&mut rng, size);
        st.data.path(&mut path, &p, 0);
        if let Err(e) = write_file(Path::new(OsStr::from_bytes(&path)), size, block) {
            st.data.abandon(p.idx);
            s.files = files;
            s.bytes = bytes;
            return Err(write_failed(&path, &e));
        }
        st.data.created(p.idx, size);
        files += 1;
        bytes += size;
    }
    s.files = files;
    s.bytes = bytes;
    Ok(())
}

/// Age the file system: 10 fill files, then the aging thread group on
/// them until the utilisation reaches `desired_util`.
fn age(
    o: &Options,
    idx: usize,
    st: &FsState,
    s: &mut FsSetup,
    tell: &dyn Progress,
) -> Result<(), Halt> {
    let p = &o.profile;
    let fs = &p.filesystems[idx];
    let Some(tg) = fs.age_group.as_ref() else {
        return Ok(());
    };
    let shown = fs.location.display();
    tell.say(&format!(
        "aging fs {shown} from {:.2} to {:.2}",
        s.util_before, fs.desired_util
    ));
    // FFSB's 10 fill files: sizes by size_weight, else empty
    let mut rng = RandBytes::new(&mut worker_rng(o.seed ^ FILL_SALT, idx), BUILD_BYTES);
    let bs = fs.age_blocksize as usize;
    let block = AlignedBuf::random(bs, o.seed ^ FILL_SALT);
    let mut path = Vec::new();
    let mut written = 0;
    for _ in 0..10 {
        let size = if st.sizes.weighted() {
            st.sizes.draw(&mut rng)
        } else {
            0
        };
        let f = st.fill.add(&mut rng, size);
        st.fill.path(&mut path, &f, 0);
        if let Err(e) = write_file(Path::new(OsStr::from_bytes(&path)), size, &block[..bs]) {
            st.fill.abandon(f.idx);
            return Err(write_failed(&path, &e));
        }
        st.fill.created(f.idx, size);
        written += size;
    }
    let ctl = AgeCtl::new(&fs.location, fs.desired_util, o.max_age_bytes, written);
    let end = if ctl.poll() {
        ctl.end()
    } else {
        let plan = AgePlan {
            setting: o.setting(),
            fs: idx,
            max_bytes: o.max_age_bytes,
            written,
            fill: st.fill.state(),
        };
        let r = runner::run_workers::<Aging>(
            StopRule::default(),
            &plan,
            tg.num_threads as usize,
            Placement::Threads,
            &NoProgress,
            &NoWatch,
        )
        .map_err(|e| Halt::Failed(crate::error::cause(&e)))?;
        // the threads share one count: any of them tells it
        let end = r.records::<AgeEnd>().into_iter().flatten().next();
        let end = end.unwrap_or_else(|| AgeEnd {
            written,
            ..AgeEnd::default()
        });
        s.aged_bytes = end.written;
        if r.interrupted {
            return Err(Halt::Interrupted);
        }
        if let Some(e) = r.error {
            return Err(Halt::Failed(format!(
                "aging {shown}: {}",
                crate::error::cause(&e)
            )));
        }
        end
    };
    s.aged_bytes = end.written;
    if let Some(e) = end.failed {
        return Err(Halt::Failed(e));
    }
    if end.over {
        let now = Usage::of(&fs.location).map_or(0.0, |u| u.util());
        return Err(Halt::Failed(format!(
            "aging {shown} stopped after writing {} bytes (--max-age-bytes {}) at {} % of the {} % asked",
            s.aged_bytes,
            o.max_age_bytes,
            percent(now),
            percent(fs.desired_util)
        )));
    }
    Ok(())
}
