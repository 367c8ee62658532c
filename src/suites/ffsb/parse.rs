//! Reads FFSB 6.0 profile files into a [`Profile`], as FFSB's `parser.c`
//! reads them, but refusing what FFSB silently misreads; every error names
//! the file and the line.
//!
//! # The grammar
//!
//! A profile is read line by line. `#` starts a comment, on a line of its
//! own or after an option; blank lines do not count. An option is
//! `name=value`, and all white space is removed from the line before it is
//! matched (`num_files = 20` is `num_files=20`). Two options are written
//! with spaces instead and may be repeated, each line adding one item:
//! `size_weight SIZE WEIGHT` and `msec_range MIN MAX` (and `ignore=CALL`
//! may be repeated too). Option names are lower case.
//!
//! Sections are opened by `[filesystem]`, `[threadgroup]` and `[stats]`
//! and closed by `[end]`, which closes the innermost open one; digits after
//! the name are ignored (`[filesystem0]` … `[end0]`). A `[filesystem]` may
//! hold one `[threadgroup]`, the mix that ages it (`agefs=1`); a
//! `[threadgroup]` may hold one `[stats]`. Everything outside a section is a
//! global option. The options of each scope are [`GLOBAL_OPTIONS`],
//! [`FILESYSTEM_OPTIONS`], [`THREADGROUP_OPTIONS`] and [`STATS_OPTIONS`], in
//! FFSB's order (`parser.h`).
//!
//! Sizes are a whole number with an optional suffix `K`/`KB`, `M`/`MB`,
//! `G`/`GB` in any case, powers of 1024. Booleans are 0 or 1. Fractions
//! (`desired_util`, `init_util`) are between 0 and 1: 0.02 is 2 %.
//!
//! # Where iogauge is stricter than FFSB
//!
//! FFSB accepts a number of mistakes and runs something else than was
//! meant; iogauge refuses them, so that every profile it accepts means what
//! it says:
//!
//! - an unknown size suffix (`4x`, `4B`, FFSB: size 0), text after a number
//!   (`4.5k`, FFSB: 4 KiB; `1e3`, FFSB: 1), a negative number, a value that
//!   does not fit (FFSB truncates to 32 bits);
//! - an option given twice in one section (FFSB keeps the last);
//! - a section with no `[end]` (FFSB closes it at the end of the file), an
//!   `[end]` with nothing open, `[stats]` outside a thread group, a second
//!   nested `[threadgroup]` or `[stats]` (FFSB ignores them), a section name
//!   with more than digits after it (`[end of filesystem]` opens a file
//!   system in FFSB);
//! - an `ignore=` that names no system call (FFSB warns, then ignores
//!   whichever call an uninitialised variable holds);
//! - a thread group without `num_threads` (FFSB crashes), an aging thread
//!   group of 0 threads (FFSB's aging would never end), a `*_fsync` weight without
//!   `write_blocksize` (FFSB divides by zero when the operation runs),
//!   `min_filesize` above `max_filesize` without size weights (FFSB's
//!   `max - min` wraps round and it draws sizes of up to 4 GiB), size
//!   weights that add up to 0;
//! - two file systems with the same location (their file sets would clobber
//!   each other), options beside `clone=` (FFSB ignores them).
//!
//! Two things go the other way. The deprecated options `num_filesystems`,
//! `num_threadgroups` and `fsync_file` are accepted with FFSB's warning,
//! kept in [`Profile::warnings`] (FFSB 6.0-rc2 prints the warning and then
//! stops with `ERROR!!! Unknow option`). And `callout` keeps the spaces
//! inside its command (FFSB joins `callout=sync; date` into `sync;date`).
//!
//! # Defaults
//!
//! As in FFSB, an option not given is 0 or off (`time=0` only builds the
//! file sets), but for `create_blocksize` and `age_blocksize`, 4096 (also
//! when given as 0), and `num_threads`, which a thread group must give.
//!
//! # Aging groups and clones
//!
//! The aging `[threadgroup]` of a file system is checked like the others
//! only with `agefs=1`; with `agefs=0` FFSB never reads it, and it is kept
//! unchecked in [`FileSystem::age_group`].
//!
//! `clone=LOC` copies every setting of the file system at `LOC` but its
//! location (and its aging group when the clone has none of its own); the
//! one it names may come before or after it, and may itself be a clone.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::profile::{FileSystem, Op, Profile, Stats, Syscall, ThreadGroup};
use crate::units::{SizeError, SizeSyntax};

/// A profile that could not be read, or a mistake in it. Its `Display` is
/// one line: `cannot read FILE: …`, or `FILE:LINE: what is wrong`.
#[derive(Debug)]
#[non_exhaustive]
pub enum ParseError {
    /// The file could not be read.
    Read { path: PathBuf, err: std::io::Error },
    /// A mistake at `line` (1-based) of `path`.
    At {
        path: PathBuf,
        line: usize,
        msg: String,
    },
}

impl ParseError {
    /// The profile's path.
    pub fn path(&self) -> &Path {
        match self {
            ParseError::Read { path, .. } | ParseError::At { path, .. } => path,
        }
    }

    /// The line of the mistake (none for a reading error).
    pub fn line(&self) -> Option<usize> {
        match self {
            ParseError::Read { .. } => None,
            ParseError::At { line, .. } => Some(*line),
        }
    }
}

impl fmt::Display for ParseError {
    /// One line: the profile's text in it escaped ([`crate::error::shown`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::error::{shown, shown_path};
        match self {
            ParseError::Read { path, err } => {
                write!(f, "cannot read {}: {err}", shown_path(path))
            }
            ParseError::At { path, line, msg } => {
                write!(f, "{}:{line}: {}", shown_path(path), shown(msg))
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// Reads and parses the profile at `path`.
pub fn load(path: &Path) -> Result<Profile, ParseError> {
    let text = std::fs::read_to_string(path).map_err(|err| ParseError::Read {
        path: path.to_path_buf(),
        err,
    })?;
    parse(&text, path)
}

/// Parses the text of a profile; `source` is the file it came from, for
/// the messages and [`Profile::source`].
pub fn parse(text: &str, source: &Path) -> Result<Profile, ParseError> {
    let mut p = Parser {
        source,
        global: Draft::new(0, Profile::empty(source)),
        stack: Vec::new(),
        filesystems: Vec::new(),
        threadgroups: Vec::new(),
        last_line: 1,
    };
    for (i, raw) in text.lines().enumerate() {
        p.last_line = i + 1;
        let line = match raw.find('#') {
            Some(c) => &raw[..c],
            None => raw,
        }
        .trim();
        if line.is_empty() {
            continue;
        }
        p.line(line, i + 1)?;
    }
    p.finish()
}

/// Where an option may be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    FileSystem,
    ThreadGroup,
    Stats,
}

impl Scope {
    pub const ALL: [Scope; 4] = [
        Scope::Global,
        Scope::FileSystem,
        Scope::ThreadGroup,
        Scope::Stats,
    ];

    /// The options of the scope, in FFSB's order.
    pub fn options(self) -> &'static [OptionSpec] {
        match self {
            Scope::Global => GLOBAL_OPTIONS,
            Scope::FileSystem => FILESYSTEM_OPTIONS,
            Scope::ThreadGroup => THREADGROUP_OPTIONS,
            Scope::Stats => STATS_OPTIONS,
        }
    }

    /// How messages name it.
    pub fn label(self) -> &'static str {
        match self {
            Scope::Global => "the global options (outside any section)",
            Scope::FileSystem => "[filesystem]",
            Scope::ThreadGroup => "[threadgroup]",
            Scope::Stats => "[stats]",
        }
    }

    fn find(self, name: &str) -> Option<&'static OptionSpec> {
        self.options().iter().find(|o| o.name == name)
    }
}

/// What an option's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole number that fits in 32 bits.
    U32,
    /// 0 or 1.
    Bool,
    /// A fraction between 0 and 1.
    Fraction,
    /// A size (suffix K, M, G) that fits in 32 bits.
    Size32,
    /// A size (suffix K, M, G).
    Size64,
    /// A directory (white space removed, as FFSB does).
    Path,
    /// A shell command (the rest of the line, inner spaces kept).
    Command,
    /// The weight of an operation (a 32-bit whole number).
    Weight(Op),
    /// `size_weight SIZE WEIGHT`, repeatable.
    SizeWeight,
    /// `msec_range MIN MAX` in milliseconds, repeatable.
    Range,
    /// `ignore=CALL`, repeatable.
    Syscall,
}

impl Kind {
    /// Written `name a b` rather than `name=value`.
    fn spaced(self) -> bool {
        matches!(self, Kind::SizeWeight | Kind::Range)
    }

    /// May be given more than once, each adding an item.
    pub fn repeats(self) -> bool {
        matches!(self, Kind::SizeWeight | Kind::Range | Kind::Syscall)
    }
}

/// One option of a profile.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: Kind,
    /// Accepted with FFSB's warning and without effect.
    pub deprecated: bool,
    pub help: &'static str,
}

const fn opt(name: &'static str, kind: Kind, help: &'static str) -> OptionSpec {
    OptionSpec {
        name,
        kind,
        deprecated: false,
        help,
    }
}

/// An operation's weight, `<op>_weight` (see [`Op::name`]).
const fn weight(name: &'static str, op: Op) -> OptionSpec {
    opt(
        name,
        Kind::Weight(op),
        "the operation's weight in the group's mix",
    )
}

const fn old(name: &'static str, kind: Kind) -> OptionSpec {
    OptionSpec {
        name,
        kind,
        deprecated: true,
        help: "deprecated: accepted with a warning, without effect",
    }
}

/// The options outside any section (`parser.h` GLOBAL_OPTIONS).
#[rustfmt::skip]
pub const GLOBAL_OPTIONS: &[OptionSpec] = &[
    old("num_filesystems", Kind::U32),
    old("num_threadgroups", Kind::U32),
    opt("verbose", Kind::Bool, "accepted, without effect"),
    opt("time", Kind::U32, "seconds the thread groups run (0: only build the file sets)"),
    opt("directio", Kind::Bool, "O_DIRECT on every benchmark open (implies alignio)"),
    opt("bufferio", Kind::Bool, "accepted; never implemented"),
    opt("alignio", Kind::Bool, "random offsets aligned to 4 KiB"),
    opt("callout", Kind::Command, "shell command run and waited for before the run"),
];

/// The options of `[filesystem]` (`parser.h` FILESYSTEM_OPTIONS).
#[rustfmt::skip]
pub const FILESYSTEM_OPTIONS: &[OptionSpec] = &[
    opt("location", Kind::Path, "directory holding the file set (required)"),
    opt("num_files", Kind::U32, "files created before the run"),
    opt("num_dirs", Kind::U32, "subdirectories of the file set"),
    opt("reuse", Kind::Bool, "keep a matching file set from an earlier run"),
    opt("min_filesize", Kind::Size64, "smallest initial file"),
    opt("max_filesize", Kind::Size64, "largest initial file"),
    opt("create_blocksize", Kind::Size32, "write size of the initial files (4096)"),
    opt("age_blocksize", Kind::Size32, "write size of the aging fill files (4096)"),
    opt("desired_util", Kind::Fraction, "aging stops at this utilisation (0.02 = 2 %)"),
    opt("agefs", Kind::Bool, "age with the nested [threadgroup] first"),
    opt("size_weight", Kind::SizeWeight, "`size_weight SIZE WEIGHT`: file sizes drawn by weight"),
    opt("init_util", Kind::Fraction, "create files until this utilisation"),
    opt("init_size", Kind::Size64, "create files until this many bytes"),
    opt("clone", Kind::Path, "copy the settings of the file system at that location"),
];

/// The options of `[threadgroup]` (`parser.h` THREADGROUP_OPTIONS).
#[rustfmt::skip]
pub const THREADGROUP_OPTIONS: &[OptionSpec] = &[
    opt("bindfs", Kind::Path, "work only in the file system at that location"),
    opt("num_threads", Kind::U32, "threads of the group (required)"),
    weight("read_weight", Op::Read),
    weight("readall_weight", Op::ReadAll),
    opt("read_random", Kind::Bool, "read blocks at random offsets"),
    opt("read_skip", Kind::Bool, "skip read_skipsize after each block read"),
    opt("read_size", Kind::Size64, "bytes read by one read"),
    opt("read_blocksize", Kind::Size32, "size of one read(2)"),
    opt("read_skipsize", Kind::Size32, "bytes skipped with read_skip"),
    weight("write_weight", Op::Write),
    weight("write_fsync_weight", Op::WriteFsync),
    opt("write_random", Kind::Bool, "write blocks at random offsets"),
    old("fsync_file", Kind::Bool),
    opt("write_size", Kind::Size64, "bytes written by one write or append"),
    opt("write_blocksize", Kind::Size32, "size of one write(2)"),
    weight("create_weight", Op::Create),
    weight("create_fsync_weight", Op::CreateFsync),
    weight("delete_weight", Op::Delete),
    weight("append_weight", Op::Append),
    weight("append_fsync_weight", Op::AppendFsync),
    weight("metaop_weight", Op::MetaOp),
    weight("createdir_weight", Op::CreateDir),
    opt("op_delay", Kind::U32, "milliseconds slept after each operation"),
    weight("stat_weight", Op::Stat),
    weight("writeall_weight", Op::WriteAll),
    weight("writeall_fsync_weight", Op::WriteAllFsync),
    weight("open_close_weight", Op::OpenClose),
];

/// The options of `[stats]` (`parser.h` STATS_OPTIONS).
#[rustfmt::skip]
pub const STATS_OPTIONS: &[OptionSpec] = &[
    opt("enable_stats", Kind::Bool, "time the system calls"),
    opt("enable_range", Kind::Bool, "count the calls in msec_range buckets"),
    opt("ignore", Kind::Syscall, "a system call not to time (open, read, …)"),
    opt("msec_range", Kind::Range, "`msec_range MIN MAX`: a latency bucket in milliseconds"),
];

/// The sections (`[name]` or `[name<digits>]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    FileSystem,
    ThreadGroup,
    Stats,
    End,
}

impl Section {
    fn label(self) -> &'static str {
        match self {
            Section::FileSystem => "[filesystem]",
            Section::ThreadGroup => "[threadgroup]",
            Section::Stats => "[stats]",
            Section::End => "[end]",
        }
    }
}

/// A value as read, before it is stored.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    U32(u32),
    Bool(bool),
    Fraction(f64),
    Size32(u32),
    Size64(u64),
    Text(String),
    SizeWeight(u64, u32),
    Range(f64, f64),
    Syscall(Syscall),
}

/// A section being read: what it sets, the line of each option and its
/// nested section (`C`).
#[derive(Debug)]
struct Draft<T, C = ()> {
    /// Line of its header.
    line: usize,
    item: T,
    /// First line of each option given.
    seen: HashMap<&'static str, usize>,
    child: Option<C>,
}

/// A thread group being read; its child is the line of its `[stats]`
/// (whose settings go straight into [`ThreadGroup::stats`]).
type GroupDraft = Draft<ThreadGroup, usize>;
/// A file system being read; its child is its aging thread group.
type FsDraft = Draft<FileSystem, GroupDraft>;

impl<T, C> Draft<T, C> {
    fn new(line: usize, item: T) -> Draft<T, C> {
        Draft {
            line,
            item,
            seen: HashMap::new(),
            child: None,
        }
    }

    /// The line of option `name`, or the header's when not given.
    fn at(&self, name: &str) -> usize {
        self.seen.get(name).copied().unwrap_or(self.line)
    }

    fn given(&self, name: &str) -> bool {
        self.seen.contains_key(name)
    }
}

/// An open section.
#[derive(Debug)]
enum Open {
    Fs(Box<FsDraft>),
    Group(GroupDraft),
    Stats(Draft<Stats>),
}

impl Open {
    fn scope(&self) -> Scope {
        match self {
            Open::Fs(_) => Scope::FileSystem,
            Open::Group(_) => Scope::ThreadGroup,
            Open::Stats(_) => Scope::Stats,
        }
    }

    fn line(&self) -> usize {
        match self {
            Open::Fs(d) => d.line,
            Open::Group(d) => d.line,
            Open::Stats(d) => d.line,
        }
    }

    fn section(&self) -> Section {
        match self {
            Open::Fs(_) => Section::FileSystem,
            Open::Group(_) => Section::ThreadGroup,
            Open::Stats(_) => Section::Stats,
        }
    }
}

struct Parser<'a> {
    source: &'a Path,
    global: Draft<Profile>,
    stack: Vec<Open>,
    filesystems: Vec<FsDraft>,
    threadgroups: Vec<GroupDraft>,
    last_line: usize,
}

impl Profile {
    fn empty(source: &Path) -> Profile {
        Profile {
            source: source.to_path_buf(),
            time: 0,
            directio: false,
            alignio: false,
            bufferio: false,
            verbose: false,
            callout: None,
            filesystems: Vec::new(),
            threadgroups: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

impl Parser<'_> {
    fn err(&self, line: usize, msg: impl Into<String>) -> ParseError {
        ParseError::At {
            path: self.source.to_path_buf(),
            line,
            msg: msg.into(),
        }
    }

    /// One line, comment removed and trimmed, not empty.
    fn line(&mut self, line: &str, n: usize) -> Result<(), ParseError> {
        if line.starts_with('[') {
            let section = section(line).map_err(|m| self.err(n, m))?;
            return self.section(section, n);
        }
        let scope = self.stack.last().map_or(Scope::Global, Open::scope);
        let (spec, value) = read_option(line, scope).map_err(|m| self.err(n, m))?;
        let seen = match self.stack.last_mut() {
            None => &mut self.global.seen,
            Some(Open::Fs(d)) => &mut d.seen,
            Some(Open::Group(d)) => &mut d.seen,
            Some(Open::Stats(d)) => &mut d.seen,
        };
        if let Some(&first) = seen.get(spec.name)
            && !spec.kind.repeats()
            && !spec.deprecated
        {
            return Err(self.err(
                n,
                format!(
                    "`{}` given twice (first at line {first}); give it once in {}",
                    spec.name,
                    scope.label()
                ),
            ));
        }
        seen.entry(spec.name).or_insert(n);
        if spec.deprecated {
            self.global.item.warnings.push(format!(
                "WARNING: The \"{}\" option is deprecated!!!",
                spec.name
            ));
        }
        match self.stack.last_mut() {
            None => set_global(&mut self.global.item, spec.name, value),
            Some(Open::Fs(d)) => set_filesystem(&mut d.item, spec.name, value),
            Some(Open::Group(d)) => set_threadgroup(&mut d.item, spec.name, value),
            Some(Open::Stats(d)) => set_stats(&mut d.item, spec.name, value),
        }
        Ok(())
    }

    fn section(&mut self, section: Section, n: usize) -> Result<(), ParseError> {
        let inside = self.stack.last().map(|o| (o.section(), o.line()));
        let nested_in = |what: Section, (outer, line): (Section, usize)| {
            format!(
                "{} cannot be inside {} (opened at line {line}); close that with [end] first",
                what.label(),
                outer.label()
            )
        };
        match section {
            Section::End => {
                let Some(open) = self.stack.pop() else {
                    return Err(self.err(
                        n,
                        "[end] with no open section to close \
                         (there is one [end] too many, or a header is missing)",
                    ));
                };
                self.close(open);
            }
            Section::FileSystem => {
                if let Some(outer) = inside {
                    return Err(self.err(n, nested_in(section, outer)));
                }
                let fs = FileSystem {
                    line: n,
                    ..FileSystem::default()
                };
                self.stack.push(Open::Fs(Box::new(Draft::new(n, fs))));
            }
            Section::ThreadGroup => {
                match self.stack.last() {
                    None => {}
                    Some(Open::Fs(d)) => {
                        if let Some(first) = &d.child {
                            return Err(self.err(
                                n,
                                format!(
                                    "a second [threadgroup] in the [filesystem] of line {} \
                                     (the first is at line {}); a file system has one aging \
                                     thread group",
                                    d.line, first.line
                                ),
                            ));
                        }
                    }
                    Some(_) => return Err(self.err(n, nested_in(section, inside.unwrap()))),
                }
                let tg = ThreadGroup {
                    line: n,
                    ..ThreadGroup::default()
                };
                self.stack.push(Open::Group(Draft::new(n, tg)));
            }
            Section::Stats => {
                match self.stack.last() {
                    Some(Open::Group(d)) => {
                        if let Some(first) = d.child {
                            return Err(self.err(
                                n,
                                format!(
                                    "a second [stats] in the [threadgroup] of line {} \
                                     (the first is at line {first}); a thread group has one [stats]",
                                    d.line
                                ),
                            ));
                        }
                    }
                    Some(_) => return Err(self.err(n, nested_in(section, inside.unwrap()))),
                    None => {
                        return Err(self.err(
                            n,
                            "[stats] outside a [threadgroup]; put it inside the \
                             [threadgroup] … [end] whose calls it times",
                        ));
                    }
                }
                self.stack
                    .push(Open::Stats(Draft::new(n, Stats::default())));
            }
        }
        Ok(())
    }

    /// Attaches a section just closed by `[end]` to where it belongs.
    fn close(&mut self, open: Open) {
        match (open, self.stack.last_mut()) {
            (Open::Fs(d), None) => self.filesystems.push(*d),
            (Open::Group(d), None) => self.threadgroups.push(d),
            (Open::Group(d), Some(Open::Fs(fs))) => fs.child = Some(d),
            (Open::Stats(d), Some(Open::Group(tg))) => {
                tg.item.stats = Some(d.item);
                tg.child = Some(d.line);
            }
            _ => unreachable!("sections are only opened where they may be"),
        }
    }

    fn finish(mut self) -> Result<Profile, ParseError> {
        if let Some(open) = self.stack.last() {
            return Err(self.err(
                open.line(),
                format!(
                    "{} has no [end] before the end of the file \
                     (each [filesystem], [threadgroup] and [stats] is closed by its own [end])",
                    open.section().label()
                ),
            ));
        }
        if self.filesystems.is_empty() {
            return Err(self.err(
                self.last_line,
                "the profile has no [filesystem]; FFSB needs at least one \
                 ([filesystem] location=DIR … [end])",
            ));
        }
        let time = self.global.item.time;
        if let Err(e) = crate::units::seconds(f64::from(time)) {
            return Err(self.err(self.global.at("time"), format!("time={time} seconds {e}")));
        }
        if time > 0 && self.threadgroups.is_empty() {
            return Err(self.err(
                self.global.at("time"),
                format!(
                    "time={time} but the profile has no [threadgroup] to run; \
                     add one, or set time=0 to only build the file sets"
                ),
            ));
        }

        let filesystems = std::mem::take(&mut self.filesystems);
        let locations = self.check_locations(&filesystems)?;
        let mut built = Vec::with_capacity(filesystems.len());
        for d in &filesystems {
            if d.item.clone_of.is_none() {
                built.push(Some(self.filesystem(d, &locations)?));
            } else {
                built.push(None);
            }
        }
        for (i, d) in filesystems.iter().enumerate() {
            if d.item.clone_of.is_some() {
                built[i] = Some(self.clone_fs(i, &filesystems, &built, &locations)?);
            }
        }

        let groups = std::mem::take(&mut self.threadgroups);
        let mut threadgroups = Vec::with_capacity(groups.len());
        for d in &groups {
            threadgroups.push(self.threadgroup(d, &locations, false)?);
        }

        let mut profile = self.global.item;
        profile.filesystems = built.into_iter().map(Option::unwrap).collect();
        profile.threadgroups = threadgroups;
        Ok(profile)
    }

    /// Every file system has a location, and no two the same one.
    fn check_locations(&self, fss: &[FsDraft]) -> Result<Vec<PathBuf>, ParseError> {
        let mut locations: Vec<PathBuf> = Vec::with_capacity(fss.len());
        for d in fss {
            if !d.given("location") {
                return Err(self.err(
                    d.line,
                    "[filesystem] has no location; give the directory it works in \
                     (location=/mnt/ffsb)",
                ));
            }
            let loc = &d.item.location;
            if let Some(j) = locations.iter().position(|l| l == loc) {
                return Err(self.err(
                    d.at("location"),
                    format!(
                        "location {} is already the location of the [filesystem] at line {}; \
                         two file systems cannot share a directory",
                        loc.display(),
                        fss[j].line
                    ),
                ));
            }
            locations.push(loc.clone());
        }
        Ok(locations)
    }

    /// A file system that is not a clone, checked.
    fn filesystem(&self, d: &FsDraft, locations: &[PathBuf]) -> Result<FileSystem, ParseError> {
        let fs = &d.item;
        if fs.size_weights.is_empty() {
            if fs.min_filesize > fs.max_filesize {
                return Err(self.err(
                    d.at("min_filesize"),
                    format!(
                        "min_filesize ({}) is larger than max_filesize ({}); \
                         files are drawn between the two",
                        fs.min_filesize, fs.max_filesize
                    ),
                ));
            }
        } else if fs.size_weights.iter().all(|(_, w)| *w == 0) {
            return Err(self.err(
                d.at("size_weight"),
                "the size_weight weights add up to 0; give at least one a weight above 0",
            ));
        }
        let mut out = fs.clone();
        out.age_group = self.age_group(d, fs.agefs, fs.reuse, fs.desired_util, locations)?;
        Ok(out)
    }

    /// The aging thread group nested in `d`, checked when `agefs` is on
    /// (FFSB ignores it otherwise).
    fn age_group(
        &self,
        d: &FsDraft,
        agefs: bool,
        reuse: bool,
        desired_util: f64,
        locations: &[PathBuf],
    ) -> Result<Option<ThreadGroup>, ParseError> {
        let nested = d.child.as_ref();
        if !agefs {
            return Ok(nested.map(|g| g.item.clone()));
        }
        let agefs_line = d.at("agefs");
        if reuse {
            return Err(self.err(
                agefs_line,
                "agefs=1 and reuse=1 together: an aged file system cannot be reused; \
                 set one of them to 0",
            ));
        }
        if !(desired_util > 0.0 && desired_util < 1.0) {
            let line = if d.given("desired_util") {
                d.at("desired_util")
            } else {
                agefs_line
            };
            return Err(self.err(
                line,
                format!(
                    "agefs=1 needs desired_util, the utilisation aging stops at, a fraction \
                     above 0 and below 1 (0.02 = 2 %), not {desired_util}"
                ),
            ));
        }
        let Some(g) = nested else {
            return Err(self.err(
                agefs_line,
                "agefs=1 but this [filesystem] has no [threadgroup] … [end] inside it \
                 to age it with",
            ));
        };
        let tg = self.threadgroup(g, locations, true)?;
        Ok(Some(tg))
    }

    /// A clone: the settings of the file system it names (followed through
    /// clones of clones), its own location and aging group.
    fn clone_fs(
        &self,
        i: usize,
        fss: &[FsDraft],
        built: &[Option<FileSystem>],
        locations: &[PathBuf],
    ) -> Result<FileSystem, ParseError> {
        let d = &fss[i];
        let clone_line = d.at("clone");
        if let Some((name, line)) = d
            .seen
            .iter()
            .filter(|(k, _)| !matches!(**k, "location" | "clone"))
            .min_by_key(|(_, l)| **l)
        {
            return Err(self.err(
                *line,
                format!(
                    "{name} cannot be given beside clone (line {clone_line}): a clone takes \
                     every setting but location from the file system it names"
                ),
            ));
        }
        // Follow clone=… to a file system that is not a clone; the first
        // aging group met on the way is the clone's.
        let mut j = i;
        let mut visited = vec![i];
        let mut age_from = d.child.is_some().then_some(i);
        while let Some(target) = &fss[j].item.clone_of {
            let line = fss[j].at("clone");
            j = lookup(locations, target, "clone").map_err(|m| self.err(line, m))?;
            if visited.contains(&j) {
                return Err(self.err(
                    clone_line,
                    format!(
                        "clone={}: the clones go round in a circle; one of them must \
                         give its settings",
                        d.item.clone_of.as_ref().unwrap().display()
                    ),
                ));
            }
            visited.push(j);
            if age_from.is_none() && fss[j].child.is_some() {
                age_from = Some(j);
            }
        }
        let base = built[j]
            .as_ref()
            .expect("file systems that are not clones are built first");
        let mut fs = base.clone();
        fs.line = d.line;
        fs.location = d.item.location.clone();
        fs.clone_of = d.item.clone_of.clone();
        // (When the base ages, it has an aging group: `age_from` is set.)
        fs.age_group = match age_from {
            Some(k) if k != j => {
                self.age_group(&fss[k], base.agefs, false, base.desired_util, locations)?
            }
            _ => base.age_group.clone(),
        };
        Ok(fs)
    }

    /// A thread group, checked as FFSB's `verify_tg` does (and more).
    fn threadgroup(
        &self,
        d: &GroupDraft,
        locations: &[PathBuf],
        aging: bool,
    ) -> Result<ThreadGroup, ParseError> {
        let tg = &d.item;
        if !d.given("num_threads") {
            return Err(self.err(
                d.line,
                "[threadgroup] has no num_threads; give how many threads run it \
                 (num_threads=4)",
            ));
        }
        if aging && tg.num_threads == 0 {
            return Err(self.err(
                d.at("num_threads"),
                "an aging thread group needs at least one thread (num_threads=0 would never \
                 fill the file system)",
            ));
        }
        if let Err(e) = crate::units::seconds(f64::from(tg.op_delay_ms) / 1e3) {
            return Err(self.err(
                d.at("op_delay"),
                format!("op_delay={} milliseconds {e}", tg.op_delay_ms),
            ));
        }
        let total = tg.total_weight();
        if total == 0 {
            return Err(self.err(
                d.line,
                "the [threadgroup] has no weighted operation; give at least one \
                 <op>_weight a value above 0 (read_weight=1)",
            ));
        }
        if total > u64::from(u32::MAX) {
            return Err(self.err(
                d.line,
                format!("the weights add up to {total}, more than 4294967295"),
            ));
        }
        for op in Op::ALL {
            let w = tg.weight(op);
            if w == 0 {
                continue;
            }
            let needs = match op {
                Op::Read | Op::ReadAll if tg.read_blocksize == 0 => "read_blocksize",
                Op::Write
                | Op::Create
                | Op::Append
                | Op::WriteAll
                | Op::WriteAllFsync
                | Op::WriteFsync
                | Op::CreateFsync
                | Op::AppendFsync
                    if tg.write_blocksize == 0 =>
                {
                    "write_blocksize"
                }
                _ => continue,
            };
            let name = format!("{}_weight", op.name());
            return Err(self.err(
                d.at(&name),
                format!(
                    "{name}={w} needs {needs}: the operation moves data in pieces of that \
                     size; give {needs}=SIZE in this [threadgroup] (or weight 0)"
                ),
            ));
        }
        if tg.read_random && tg.read_skip {
            return Err(self.err(
                d.at("read_skip"),
                "read_random=1 and read_skip=1 together; a read is either random or skipping",
            ));
        }
        if tg.read_skip && tg.read_skipsize == 0 {
            return Err(self.err(
                d.at("read_skip"),
                "read_skip=1 needs read_skipsize, the bytes skipped after each block \
                 (read_skipsize=4k)",
            ));
        }
        if let Some(b) = &tg.bindfs {
            lookup(locations, b, "bindfs").map_err(|m| self.err(d.at("bindfs"), m))?;
        }
        Ok(tg.clone())
    }
}

/// The index of the file system at `loc`, or a message for `what=loc`
/// saying which locations there are.
fn lookup(locations: &[PathBuf], loc: &Path, what: &str) -> Result<usize, String> {
    locations.iter().position(|l| l == loc).ok_or_else(|| {
        let known: Vec<String> = locations.iter().map(|l| l.display().to_string()).collect();
        format!(
            "{what}={}: no [filesystem] has that location; the locations are: {}",
            loc.display(),
            known.join(", ")
        )
    })
}

/// Reads a `[...]` header.
fn section(line: &str) -> Result<Section, String> {
    let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
        return Err(format!(
            "'{line}' is not a section header: expected [filesystem], [threadgroup], \
             [stats] or [end], alone on the line"
        ));
    };
    let name = inner.trim().trim_end_matches(|c: char| c.is_ascii_digit());
    Ok(match name {
        "filesystem" => Section::FileSystem,
        "threadgroup" => Section::ThreadGroup,
        "stats" => Section::Stats,
        "end" => Section::End,
        _ => {
            let hint = match name.to_ascii_lowercase().as_str() {
                "filesystem" | "threadgroup" | "stats" | "end" => " (section names are lower case)",
                _ => "",
            };
            return Err(format!(
                "unknown section '{line}'{hint}; the sections are [filesystem], \
                 [threadgroup], [stats] and [end], digits may follow the name ([filesystem0])"
            ));
        }
    })
}

/// Reads an option line of `scope`.
fn read_option(line: &str, scope: Scope) -> Result<(&'static OptionSpec, Value), String> {
    let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    let eq = squeezed.find('=');
    let name = match eq {
        Some(e) => &squeezed[..e],
        None => line.split_whitespace().next().unwrap_or(""),
    };
    let Some(spec) = scope.find(name) else {
        return Err(unknown(line, name, scope));
    };
    if spec.kind.spaced() {
        if eq.is_some() {
            return Err(format!(
                "'{line}': {} is written with spaces, not '=' ({})",
                spec.name,
                spaced_form(spec.kind)
            ));
        }
        let args: Vec<&str> = line.split_whitespace().skip(1).collect();
        return spaced(spec, &args).map(|v| (spec, v));
    }
    let Some(e) = eq else {
        return Err(format!("'{line}': {name} needs a value, as {name}=VALUE"));
    };
    let value = if spec.kind == Kind::Command {
        line.split_once('=')
            .map_or("", |(_, v)| v)
            .trim()
            .to_string()
    } else {
        squeezed[e + 1..].to_string()
    };
    if value.is_empty() {
        return Err(format!("'{line}': {name} needs a value after '='"));
    }
    let v = scalar(spec, &value).map_err(|m| format!("{name}={value}: {m}"))?;
    Ok((spec, v))
}

fn spaced_form(kind: Kind) -> &'static str {
    match kind {
        Kind::SizeWeight => "`size_weight SIZE WEIGHT`, e.g. `size_weight 4k 33`",
        _ => "`msec_range MIN MAX` in milliseconds, e.g. `msec_range 0.5 1.0`",
    }
}

/// The message for a name that is not an option of `scope`.
fn unknown(line: &str, name: &str, scope: Scope) -> String {
    if let Some(other) = Scope::ALL
        .into_iter()
        .find(|s| *s != scope && s.find(name).is_some())
    {
        let owner = match other {
            Scope::Global => "a global option (it goes outside any section)".to_string(),
            s => format!("a {} option", s.label()),
        };
        return format!("'{line}': {name} is {owner}, not one of {}", scope.label());
    }
    if let Some(spec) = scope.find(&name.to_ascii_lowercase()) {
        return format!(
            "unknown option '{line}' in {}: option names are lower case ('{}')",
            scope.label(),
            spec.name
        );
    }
    let names: Vec<&str> = scope.options().iter().map(|o| o.name).collect();
    format!(
        "unknown option '{line}' in {}; the options there are: {}",
        scope.label(),
        names.join(", ")
    )
}

/// The value of a `name=value` option.
fn scalar(spec: &OptionSpec, v: &str) -> Result<Value, String> {
    Ok(match spec.kind {
        Kind::U32 | Kind::Weight(_) => Value::U32(whole32(v)?),
        Kind::Bool => match whole(v)? {
            0 => Value::Bool(false),
            1 => Value::Bool(true),
            _ => return Err("a boolean must be 0 or 1".into()),
        },
        Kind::Fraction => {
            let f = number(v)?;
            if !(0.0..=1.0).contains(&f) {
                return Err(format!(
                    "{f} is not a fraction: give a value between 0 and 1 (0.02 = 2 %)"
                ));
            }
            Value::Fraction(f)
        }
        Kind::Size32 => {
            let s = size(v)?;
            Value::Size32(u32::try_from(s).map_err(|_| {
                format!("{s} bytes does not fit in 32 bits (at most 4294967295, just under 4G)")
            })?)
        }
        Kind::Size64 => Value::Size64(size(v)?),
        Kind::Path | Kind::Command => Value::Text(v.to_string()),
        Kind::Syscall => Value::Syscall(syscall(v)?),
        Kind::SizeWeight | Kind::Range => unreachable!("spaced options are read by `spaced`"),
    })
}

/// The value of `size_weight` or `msec_range`.
fn spaced(spec: &OptionSpec, args: &[&str]) -> Result<Value, String> {
    let form = spaced_form(spec.kind);
    let [a, b] = args else {
        return Err(format!(
            "{} takes two values, got {}: {form}",
            spec.name,
            args.len()
        ));
    };
    let at = |m: String| format!("{} {a} {b}: {m}", spec.name);
    match spec.kind {
        Kind::SizeWeight => Ok(Value::SizeWeight(
            size(a).map_err(at)?,
            whole32(b).map_err(at)?,
        )),
        _ => {
            let lo = number(a).map_err(at)?;
            let hi = number(b).map_err(at)?;
            if lo < 0.0 || lo > hi {
                return Err(at(format!(
                    "a range goes from MIN ≥ 0 to MAX ≥ MIN milliseconds ({form})"
                )));
            }
            Ok(Value::Range(lo, hi))
        }
    }
}

/// A whole decimal number (digits only).
fn whole(v: &str) -> Result<u64, String> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{v}' is not a whole number (digits only)"));
    }
    v.parse()
        .map_err(|_| format!("{v} is too large (at most {})", u64::MAX))
}

fn whole32(v: &str) -> Result<u32, String> {
    let n = whole(v)?;
    u32::try_from(n).map_err(|_| format!("{n} does not fit in 32 bits (at most 4294967295)"))
}

/// A finite decimal number.
fn number(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(f),
        _ => Err(format!("'{v}' is not a number")),
    }
}

/// A size: a whole number with an optional K/KB, M/MB, G/GB suffix in any
/// case, powers of 1024 (FFSB's syntax), at most [`crate::units::MAX_SIZE`].
fn size(v: &str) -> Result<u64, String> {
    const FFSB: SizeSyntax = SizeSyntax {
        suffixes: &[
            (&[""], 1),
            (&["k", "kb"], 1 << 10),
            (&["m", "mb"], 1 << 20),
            (&["g", "gb"], 1 << 30),
        ],
        fractions: false,
        max: crate::units::MAX_SIZE,
    };
    FFSB.parse(v).map_err(|e| match e {
        SizeError::NoNumber => {
            format!("'{v}' is not a size: a whole number, optionally followed by K, M or G")
        }
        SizeError::Suffix(suffix) => format!(
            "unknown size suffix '{suffix}' in '{v}'; use K, KB, M, MB, G or GB \
             (powers of 1024) or none for bytes"
        ),
        SizeError::Overflow => format!("{v} is too large for a size"),
        SizeError::TooLarge | SizeError::NotWhole => {
            format!("{v} is larger than the largest size iogauge takes, 1 EiB")
        }
    })
}

/// FFSB's match of `ignore=`: the value starts with a call's name, in any
/// case (`strncasecmp(name, value, strlen(name))`), first in table order.
fn syscall(v: &str) -> Result<Syscall, String> {
    Syscall::ALL
        .into_iter()
        .find(|s| {
            let name = s.name();
            v.len() >= name.len()
                && v.as_bytes()[..name.len()].eq_ignore_ascii_case(name.as_bytes())
        })
        .ok_or_else(|| {
            let names: Vec<&str> = Syscall::ALL.iter().map(|s| s.name()).collect();
            format!(
                "'{v}' names no system call; the calls are: {}",
                names.join(", ")
            )
        })
}

fn set_global(p: &mut Profile, name: &str, v: Value) {
    match (name, v) {
        ("num_filesystems" | "num_threadgroups", Value::U32(_)) => {}
        ("verbose", Value::Bool(b)) => p.verbose = b,
        ("time", Value::U32(n)) => p.time = n,
        ("directio", Value::Bool(b)) => p.directio = b,
        ("bufferio", Value::Bool(b)) => p.bufferio = b,
        ("alignio", Value::Bool(b)) => p.alignio = b,
        ("callout", Value::Text(s)) => p.callout = Some(s),
        (name, v) => unreachable!("no global option {name} = {v:?}"),
    }
}

fn set_filesystem(fs: &mut FileSystem, name: &str, v: Value) {
    match (name, v) {
        ("location", Value::Text(s)) => fs.location = PathBuf::from(s),
        ("num_files", Value::U32(n)) => fs.num_files = n,
        ("num_dirs", Value::U32(n)) => fs.num_dirs = n,
        ("reuse", Value::Bool(b)) => fs.reuse = b,
        ("min_filesize", Value::Size64(n)) => fs.min_filesize = n,
        ("max_filesize", Value::Size64(n)) => fs.max_filesize = n,
        // 0 is FFSB's "not given": the default stays.
        ("create_blocksize", Value::Size32(n)) => {
            if n > 0 {
                fs.create_blocksize = n;
            }
        }
        ("age_blocksize", Value::Size32(n)) => {
            if n > 0 {
                fs.age_blocksize = n;
            }
        }
        ("desired_util", Value::Fraction(f)) => fs.desired_util = f,
        ("agefs", Value::Bool(b)) => fs.agefs = b,
        ("size_weight", Value::SizeWeight(s, w)) => fs.size_weights.push((s, w)),
        ("init_util", Value::Fraction(f)) => fs.init_util = f,
        ("init_size", Value::Size64(n)) => fs.init_size = n,
        ("clone", Value::Text(s)) => fs.clone_of = Some(PathBuf::from(s)),
        (name, v) => unreachable!("no [filesystem] option {name} = {v:?}"),
    }
}

fn set_threadgroup(tg: &mut ThreadGroup, name: &str, v: Value) {
    if let Some(OptionSpec {
        kind: Kind::Weight(op),
        ..
    }) = Scope::ThreadGroup.find(name)
    {
        let Value::U32(w) = v else {
            unreachable!("a weight is a number")
        };
        tg.weights[op.index()] = w;
        return;
    }
    match (name, v) {
        ("bindfs", Value::Text(s)) => tg.bindfs = Some(PathBuf::from(s)),
        ("num_threads", Value::U32(n)) => tg.num_threads = n,
        ("read_random", Value::Bool(b)) => tg.read_random = b,
        ("read_skip", Value::Bool(b)) => tg.read_skip = b,
        ("read_size", Value::Size64(n)) => tg.read_size = n,
        ("read_blocksize", Value::Size32(n)) => tg.read_blocksize = n,
        ("read_skipsize", Value::Size32(n)) => tg.read_skipsize = n,
        ("write_random", Value::Bool(b)) => tg.write_random = b,
        ("fsync_file", Value::Bool(b)) => tg.fsync_file = b,
        ("write_size", Value::Size64(n)) => tg.write_size = n,
        ("write_blocksize", Value::Size32(n)) => tg.write_blocksize = n,
        ("op_delay", Value::U32(n)) => tg.op_delay_ms = n,
        (name, v) => unreachable!("no [threadgroup] option {name} = {v:?}"),
    }
}

fn set_stats(st: &mut Stats, name: &str, v: Value) {
    match (name, v) {
        ("enable_stats", Value::Bool(b)) => st.enable_stats = b,
        ("enable_range", Value::Bool(b)) => st.enable_range = b,
        ("ignore", Value::Syscall(s)) => {
            if !st.ignore.contains(&s) {
                st.ignore.push(s);
            }
        }
        ("msec_range", Value::Range(a, b)) => st.ranges_ms.push((a, b)),
        (name, v) => unreachable!("no [stats] option {name} = {v:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KI: u64 = 1024;
    const MI: u64 = 1024 * 1024;

    fn parse_str(text: &str) -> Result<Profile, ParseError> {
        parse(text, Path::new("p.ffsb"))
    }

    fn ok(text: &str) -> Profile {
        parse_str(text).unwrap_or_else(|e| panic!("{e}\n--- profile:\n{text}"))
    }

    fn example(name: &str) -> Profile {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/ffsb")
            .join(name);
        load(&path).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A file system and a thread group around `fs` and `tg` lines.
    fn profile(fs: &str, tg: &str) -> String {
        format!(
            "time=1\n[filesystem]\nlocation=/mnt/a\n{fs}\n[end]\n\
             [threadgroup]\nnum_threads=1\n{tg}\n[end]\n"
        )
    }

    const READS: &str = "read_weight=1\nread_blocksize=4k";

    #[test]
    fn every_shipped_profile_parses() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ffsb");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".ffsb"))
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "database.ffsb",
                "fileserver.ffsb",
                "mailserver.ffsb",
                "profile_everything.ffsb",
                "slides-example1.ffsb",
                "slides-example2.ffsb",
                "webserver.ffsb",
            ]
        );
        for n in &names {
            let p = example(n);
            assert!(p.warnings.is_empty(), "{n}: {:?}", p.warnings);
            assert!(
                !p.filesystems.is_empty() && !p.threadgroups.is_empty(),
                "{n}"
            );
        }
    }

    #[test]
    fn slides_examples() {
        let p = example("slides-example1.ffsb");
        assert_eq!(p.time, 200);
        assert!(!p.directio);
        let fs = &p.filesystems[0];
        assert_eq!(fs.location, Path::new("/media/4GB"));
        assert_eq!((fs.num_files, fs.num_dirs), (1, 1));
        assert_eq!((fs.min_filesize, fs.max_filesize), (64 * MI, 64 * MI));
        assert_eq!(fs.create_blocksize, 4096);
        assert_eq!(p.threadgroups.len(), 2);
        let (w, r) = (&p.threadgroups[0], &p.threadgroups[1]);
        // A weight of 0 needs no block size: the writer has no read_blocksize.
        assert_eq!((w.weight(Op::Write), w.weight(Op::Read)), (1, 0));
        assert_eq!(
            (w.write_blocksize, w.write_size, w.read_blocksize),
            (4096, 64 * MI, 0)
        );
        assert_eq!((r.weight(Op::Write), r.weight(Op::Read)), (0, 1));
        assert_eq!(
            (r.read_blocksize, r.read_size, r.write_blocksize),
            (4096, 64 * MI, 0)
        );
        assert_eq!(w.line, 23);

        let p = example("slides-example2.ffsb");
        assert_eq!(p.time, 300);
        assert_eq!(p.filesystems[0].num_files, 2);
        let tg = &p.threadgroups[0];
        assert_eq!(tg.num_threads, 2);
        assert_eq!((tg.weight(Op::Read), tg.weight(Op::Write)), (2, 1));
        assert_eq!(tg.total_weight(), 3);
    }

    #[test]
    fn profile_everything() {
        let p = example("profile_everything.ffsb");
        assert_eq!((p.time, p.directio), (10, false));
        assert_eq!(p.filesystems.len(), 1);
        let fs = &p.filesystems[0];
        assert_eq!(fs.location, Path::new("/mnt/test1"));
        assert_eq!((fs.num_dirs, fs.num_files), (100, 0));
        assert_eq!(fs.init_size, 100 * MI);
        assert_eq!(fs.desired_util, 0.005);
        assert!(!fs.agefs);
        assert_eq!(
            fs.size_weights,
            [
                (4 * KI, 33),
                (8 * KI, 21),
                (16 * KI, 13),
                (32 * KI, 10),
                (64 * KI, 8),
                (128 * KI, 5),
                (256 * KI, 4),
                (512 * KI, 3),
                (8 * MI, 2),
                (32 * MI, 1),
            ]
        );
        // The aging group is kept although agefs=0.
        let age = fs.age_group.as_ref().expect("nested [threadgroup]");
        assert_eq!(age.num_threads, 10);
        assert_eq!((age.write_size, age.write_blocksize), (400, 1024));
        assert_eq!(
            (
                age.weight(Op::Create),
                age.weight(Op::Append),
                age.weight(Op::Delete)
            ),
            (10, 10, 1)
        );
        assert_eq!(age.total_weight(), 21);

        assert_eq!(p.threadgroups.len(), 1);
        let tg = &p.threadgroups[0];
        assert_eq!(tg.num_threads, 4);
        let ones = [
            Op::Append,
            Op::AppendFsync,
            Op::Stat,
            Op::Create,
            Op::CreateFsync,
            Op::Delete,
            Op::ReadAll,
            Op::WriteAll,
            Op::WriteAllFsync,
            Op::OpenClose,
        ];
        for op in Op::ALL {
            let want = u32::from(ones.contains(&op));
            assert_eq!(tg.weight(op), want, "{}", op.name());
        }
        assert_eq!((tg.read_random, tg.write_random), (false, false));
        assert_eq!((tg.write_size, tg.write_blocksize), (40 * KI, 4096));
        assert_eq!((tg.read_size, tg.read_blocksize), (40 * KI, 4096));
        assert_eq!(tg.op_delay_ms, 0);
        let st = tg.stats.as_ref().expect("[stats]");
        assert!(st.enable_stats && !st.enable_range);
        assert!(st.ignore.is_empty());
        assert_eq!(st.ranges_ms.len(), 15);
        assert_eq!(st.ranges_ms[0], (0.0, 0.01));
        assert_eq!(st.ranges_ms[1], (0.01, 0.02));
        assert_eq!(st.ranges_ms[13], (5.0, 10.0));
        assert_eq!(st.ranges_ms[14], (10.0, 10000.0));
        assert!(st.ranges_ms.windows(2).all(|w| w[0].1 == w[1].0));
    }

    #[test]
    fn realistic_profiles() {
        let p = example("mailserver.ffsb");
        assert_eq!(p.time, 60);
        let fs = &p.filesystems[0];
        assert_eq!(
            (fs.num_files, fs.num_dirs, fs.size_weights.len()),
            (800, 0, 6)
        );
        assert_eq!(fs.size_weights.iter().map(|w| w.1).sum::<u32>(), 100);
        let tg = &p.threadgroups[0];
        assert_eq!(tg.num_threads, 16);
        assert_eq!(
            [Op::Delete, Op::CreateFsync, Op::ReadAll, Op::AppendFsync].map(|o| tg.weight(o)),
            [1, 1, 2, 1]
        );
        assert_eq!(tg.total_weight(), 5);

        let p = example("fileserver.ffsb");
        let fs = &p.filesystems[0];
        assert_eq!((fs.num_files, fs.num_dirs), (800, 50));
        assert_eq!(fs.size_weights[3], (128 * KI, 31));
        let tg = &p.threadgroups[0];
        assert_eq!(tg.num_threads, 50);
        for op in [Op::Create, Op::Append, Op::ReadAll, Op::Delete, Op::Stat] {
            assert_eq!(tg.weight(op), 1);
        }
        assert_eq!(tg.total_weight(), 5);

        let p = example("webserver.ffsb");
        let tg = &p.threadgroups[0];
        assert_eq!(p.filesystems[0].num_files, 1000);
        assert_eq!(
            (
                tg.num_threads,
                tg.weight(Op::ReadAll),
                tg.weight(Op::Append)
            ),
            (100, 10, 1)
        );

        let p = example("database.ffsb");
        assert!(p.alignio && !p.directio);
        assert_eq!(p.filesystems.len(), 2);
        assert_eq!(p.filesystems[1].location, Path::new("/mnt/ffsb/log"));
        assert_eq!(p.filesystems[0].min_filesize, 10 * MI);
        assert_eq!(p.threadgroups.len(), 3);
        let [r, w, l] = &p.threadgroups[..] else {
            unreachable!()
        };
        assert_eq!(r.bindfs.as_deref(), Some(Path::new("/mnt/ffsb/data")));
        assert!(r.read_random && r.weight(Op::Read) == 1 && r.read_blocksize == 2048);
        assert!(w.write_random && w.weight(Op::WriteFsync) == 1 && w.write_size == 2048);
        assert_eq!(l.bindfs.as_deref(), Some(Path::new("/mnt/ffsb/log")));
        assert_eq!(l.write_blocksize, 256 * 1024);
    }

    /// Each profile is refused with one line that starts with its place
    /// and says what is wrong.
    fn refused(cases: Vec<(&str, String, &str, &str)>) {
        for (what, text, prefix, phrase) in cases {
            let e = parse_str(&text).expect_err(what).to_string();
            assert!(e.starts_with(prefix), "{what}: {e}");
            assert!(e.contains(phrase), "{what}: {e}");
            assert!(!e.contains('\n'), "{what}: {e}");
        }
    }

    /// Sections: opened, closed and nested as FFSB's are, each what it needs.
    #[test]
    fn sections_are_opened_closed_and_nested_as_ffsb_does() {
        refused(vec![
            (
                "missing [end]",
                "[filesystem]\nlocation=/a\n[threadgroup]\nnum_threads=1\n[end]\n".into(),
                "p.ffsb:1: ",
                "[filesystem] has no [end]",
            ),
            (
                "[end] too many",
                format!("{}[end]\n", profile("", READS)),
                "p.ffsb:11: ",
                "[end] with no open section",
            ),
            (
                "duplicate nested [threadgroup]",
                "[filesystem]\nlocation=/a\n[threadgroup]\nnum_threads=1\nread_weight=1\n\
                 read_blocksize=1\n[end]\n[threadgroup1]\n[end]\n[end]\n"
                    .into(),
                "p.ffsb:8: ",
                "a second [threadgroup] in the [filesystem] of line 1 (the first is at line 3)",
            ),
            (
                "duplicate [stats]",
                profile("", "read_weight=1\nread_blocksize=1\n[stats]\n[end]\n[stats]\n[end]"),
                "p.ffsb:12: ",
                "a second [stats] in the [threadgroup] of line 6 (the first is at line 10)",
            ),
            (
                "[stats] outside a thread group",
                "[stats]\n[end]\n".into(),
                "p.ffsb:1: ",
                "[stats] outside a [threadgroup]",
            ),
            (
                "[filesystem] in [filesystem]",
                "[filesystem]\nlocation=/a\n[filesystem]\n".into(),
                "p.ffsb:3: ",
                "[filesystem] cannot be inside [filesystem] (opened at line 1)",
            ),
            (
                "unknown section",
                "[filesystem_a]\n".into(),
                "p.ffsb:1: ",
                "unknown section '[filesystem_a]'",
            ),
            (
                "upper-case section",
                "[FileSystem]\n".into(),
                "p.ffsb:1: ",
                "section names are lower case",
            ),
            (
                "no location",
                "[filesystem]\nnum_files=1\n[end]\n".into(),
                "p.ffsb:1: ",
                "[filesystem] has no location",
            ),
            (
                "no num_threads",
                "[filesystem]\nlocation=/a\n[end]\n[threadgroup]\nread_weight=1\nread_blocksize=1\n[end]\n".into(),
                "p.ffsb:4: ",
                "[threadgroup] has no num_threads",
            ),
            (
                "no filesystem",
                "time=0\n\n".into(),
                "p.ffsb:2: ",
                "the profile has no [filesystem]",
            ),
        ]);
    }

    /// Option lines: known names in their scope, once each, in FFSB's syntax.
    #[test]
    fn options_are_written_as_ffsb_writes_them() {
        refused(vec![
            (
                "unknown key",
                profile("num_file=3", READS),
                "p.ffsb:4: ",
                "unknown option 'num_file=3' in [filesystem]; the options there are: location, num_files,",
            ),
            (
                "option of another scope",
                profile("time=3", READS),
                "p.ffsb:4: ",
                "time is a global option",
            ),
            (
                "duplicate option",
                profile("num_files=3\nnum_dirs=1\nnum_files = 4", READS),
                "p.ffsb:6: ",
                "`num_files` given twice (first at line 4)",
            ),
            (
                "upper-case option",
                profile("Size_weight 4k 1", READS),
                "p.ffsb:4: ",
                "option names are lower case ('size_weight')",
            ),
            (
                "size_weight with =",
                profile("size_weight=4k 1", READS),
                "p.ffsb:4: ",
                "size_weight is written with spaces, not '='",
            ),
            (
                "size_weight with three values",
                profile("size_weight 4 k 1", READS),
                "p.ffsb:4: ",
                "size_weight takes two values, got 3",
            ),
            (
                "a value missing",
                profile("num_files=", READS),
                "p.ffsb:4: ",
                "num_files needs a value after '='",
            ),
            (
                "no '='",
                profile("num_files 3", READS),
                "p.ffsb:4: ",
                "num_files needs a value, as num_files=VALUE",
            ),
        ]);
    }

    /// Values: sizes, booleans, numbers, fractions, system calls and ranges.
    #[test]
    fn values_are_of_their_kind() {
        refused(vec![
            (
                "bad size suffix",
                profile("max_filesize=4x", READS),
                "p.ffsb:4: ",
                "unknown size suffix 'x' in '4x'",
            ),
            (
                "B is no suffix",
                profile("", "read_weight=1\nread_blocksize=512B"),
                "p.ffsb:9: ",
                "unknown size suffix 'B'",
            ),
            (
                "a boolean of 2",
                profile("reuse=2", READS),
                "p.ffsb:4: ",
                "reuse=2: a boolean must be 0 or 1",
            ),
            (
                "u32 overflow",
                profile("num_files=4294967296", READS),
                "p.ffsb:4: ",
                "does not fit in 32 bits",
            ),
            (
                "size32 overflow",
                profile("create_blocksize=4g", READS),
                "p.ffsb:4: ",
                "does not fit in 32 bits",
            ),
            (
                "trailing text after a number",
                profile("", "read_weight=1x\nread_blocksize=4k"),
                "p.ffsb:8: ",
                "'1x' is not a whole number",
            ),
            (
                "desired_util 20 (not a fraction)",
                profile("desired_util=20", READS),
                "p.ffsb:4: ",
                "desired_util=20: 20 is not a fraction",
            ),
            (
                "init_util above 1",
                profile("init_util=1.5", READS),
                "p.ffsb:4: ",
                "1.5 is not a fraction",
            ),
            (
                "read_skip is a boolean",
                profile("", "read_skip=4"),
                "p.ffsb:8: ",
                "a boolean must be 0 or 1",
            ),
            (
                "unknown system call",
                profile(
                    "",
                    "read_weight=1\nread_blocksize=1\n[stats]\nignore=creat\n[end]",
                ),
                "p.ffsb:11: ",
                "'creat' names no system call; the calls are: open, read,",
            ),
            (
                "msec_range backwards",
                profile(
                    "",
                    "read_weight=1\nread_blocksize=1\n[stats]\nmsec_range 2 1\n[end]",
                ),
                "p.ffsb:11: ",
                "msec_range 2 1: a range goes from MIN",
            ),
        ]);
    }

    /// Thread groups: each weighted operation has its size, and the read options agree.
    #[test]
    fn thread_groups_weigh_operations_they_can_do() {
        refused(vec![
            (
                "weight without a size",
                profile("", "write_weight=2\nread_weight=1\nread_blocksize=4k"),
                "p.ffsb:8: ",
                "write_weight=2 needs write_blocksize",
            ),
            (
                "read weight without a size",
                profile("", "readall_weight=1"),
                "p.ffsb:8: ",
                "readall_weight=1 needs read_blocksize",
            ),
            (
                "fsync weight without a size",
                profile("", "append_fsync_weight=1"),
                "p.ffsb:8: ",
                "append_fsync_weight=1 needs write_blocksize",
            ),
            (
                "no weight",
                profile("", "read_blocksize=4k"),
                "p.ffsb:6: ",
                "no weighted operation",
            ),
            (
                "read_random and read_skip",
                profile(
                    "",
                    "read_weight=1\nread_blocksize=4k\nread_random=1\nread_skip=1\nread_skipsize=4k",
                ),
                "p.ffsb:11: ",
                "read_random=1 and read_skip=1 together",
            ),
            (
                "read_skip without read_skipsize",
                profile("", "read_weight=1\nread_blocksize=4k\nread_skip=1"),
                "p.ffsb:10: ",
                "read_skip=1 needs read_skipsize",
            ),
            (
                "min above max",
                profile("min_filesize=8k\nmax_filesize=4k", READS),
                "p.ffsb:4: ",
                "min_filesize (8192) is larger than max_filesize (4096)",
            ),
        ]);
    }

    /// Across file systems: locations, clones, binding, aging and the run time.
    #[test]
    fn file_systems_refer_to_each_other_soundly() {
        refused(vec![
            (
                "bindfs to an unknown location",
                profile("", "bindfs=/mnt/b\nread_weight=1\nread_blocksize=4k"),
                "p.ffsb:8: ",
                "bindfs=/mnt/b: no [filesystem] has that location; the locations are: /mnt/a",
            ),
            (
                "clone of an unknown location",
                format!(
                    "{}[filesystem]\nlocation=/mnt/c\nclone=/mnt/b\n[end]\n",
                    profile("", READS)
                ),
                "p.ffsb:13: ",
                "clone=/mnt/b: no [filesystem] has that location",
            ),
            (
                "clone with its own settings",
                format!(
                    "{}[filesystem]\nlocation=/mnt/c\nnum_dirs=3\nclone=/mnt/a\n[end]\n",
                    profile("", READS)
                ),
                "p.ffsb:13: ",
                "num_dirs cannot be given beside clone (line 14)",
            ),
            (
                "clones in a circle",
                "[filesystem]\nlocation=/a\nclone=/b\n[end]\n\
                 [filesystem]\nlocation=/b\nclone=/a\n[end]\n"
                    .into(),
                "p.ffsb:3: ",
                "the clones go round in a circle",
            ),
            (
                "two file systems in one place",
                "[filesystem]\nlocation=/a\n[end]\n[filesystem]\nlocation = /a\n[end]\n".into(),
                "p.ffsb:5: ",
                "location /a is already the location of the [filesystem] at line 1",
            ),
            (
                "agefs without a nested thread group",
                profile("agefs=1\ndesired_util=0.02", READS),
                "p.ffsb:4: ",
                "agefs=1 but this [filesystem] has no [threadgroup]",
            ),
            (
                "agefs without desired_util",
                profile("agefs=1\n[threadgroup]\nnum_threads=1\n[end]", READS),
                "p.ffsb:4: ",
                "agefs=1 needs desired_util",
            ),
            (
                "agefs and reuse",
                profile("reuse=1\nagefs=1\ndesired_util=0.5", READS),
                "p.ffsb:5: ",
                "agefs=1 and reuse=1 together",
            ),
            (
                "the aging group is checked",
                profile(
                    "agefs=1\ndesired_util=0.5\n[threadgroup]\nnum_threads=1\ncreate_weight=1\n[end]",
                    READS,
                ),
                "p.ffsb:8: ",
                "create_weight=1 needs write_blocksize",
            ),
            (
                "time without a thread group",
                "time=5\n[filesystem]\nlocation=/a\n[end]\n".into(),
                "p.ffsb:1: ",
                "time=5 but the profile has no [threadgroup]",
            ),
        ]);
    }

    /// A profile FFSB 6.0-rc2 accepts (run with it), with what it allows:
    /// spaces and unmatched digits in headers, an unused aging group
    /// without num_threads, sizes min > max beside size weights, 0 weights
    /// without sizes, a group of 0 threads, global options last.
    #[test]
    fn what_ffsb_accepts_is_accepted() {
        let text = "[ filesystem3 ]\n\
                    location = /a\nnum_files = 2\nmin_filesize = 8k\nmax_filesize = 4k\n\
                    size_weight 4k 1\nagefs = 0\n\
                    [threadgroup]\nwrite_weight = 1\n[end]\n\
                    [end7]\n\
                    [filesystem]\nlocation=/b\nclone=/a\n[end]\n\
                    [threadgroup]\nnum_threads = 0\nbindfs = /b\nread_weight = 1\n\
                    read_blocksize = 4k\nread_skip = 1\nread_skipsize = 4k\n\
                    write_weight = 0\ncreate_weight = 0\n\
                    [stats]\nenable_stats = 1\nignore = closed\nignore = LSEEK\n[end]\n\
                    [end]\n\
                    verbose = 1\nbufferio = 1\ntime = 0\n";
        let p = ok(text);
        assert!(p.verbose && p.bufferio);
        let [a, b] = &p.filesystems[..] else { panic!() };
        assert_eq!(a.age_group.as_ref().unwrap().weight(Op::Write), 1);
        assert_eq!((b.num_files, &b.size_weights), (2, &a.size_weights));
        let tg = &p.threadgroups[0];
        assert_eq!(tg.num_threads, 0);
        assert!(tg.read_skip && tg.read_skipsize == 4096);
        assert_eq!(
            tg.stats.as_ref().unwrap().ignore,
            [Syscall::Close, Syscall::Lseek]
        );
    }

    #[test]
    fn reading_errors_name_the_file() {
        let e = load(Path::new("/nonexistent/p.ffsb")).unwrap_err();
        assert!(e.line().is_none());
        assert!(
            e.to_string()
                .starts_with("cannot read /nonexistent/p.ffsb: "),
            "{e}"
        );
    }

    #[test]
    fn white_space_comments_and_section_digits() {
        let text = "# a comment\n\
                    \ttime = 0 # trailing\n\
                    \n\
                    [filesystem0]   # the first\n\
                    \tlocation\t=\t/mnt/a  # where\n\
                    \tnum_files = 20 # c\n\
                    \tmin_filesize =\t4 k\n\
                    \tsize_weight\t4k\t33  # tabs\n\
                    \tsize_weight 1m 1\n\
                    [ end0 ]\n\
                    [threadgroup12]\n\
                    \tnum_threads=1\n\
                    \tread_weight = 1\n\
                    \tread_blocksize = 4KB\n\
                    [end]\n";
        let p = ok(text);
        let fs = &p.filesystems[0];
        assert_eq!(fs.line, 4);
        assert_eq!(fs.location, Path::new("/mnt/a"));
        assert_eq!(fs.num_files, 20);
        assert_eq!(fs.min_filesize, 4096);
        assert_eq!(fs.size_weights, [(4096, 33), (MI, 1)]);
        assert_eq!(p.threadgroups[0].line, 11);
        assert_eq!(p.threadgroups[0].read_blocksize, 4096);
        // CRLF line ends.
        let p = ok(&text.replace('\n', "\r\n"));
        assert_eq!(p.filesystems[0].num_files, 20);
        // Paths lose their white space, as in FFSB; a callout keeps it.
        let p = ok("callout = sync; echo  go # c\n[filesystem]\nlocation=/mnt/my dir\n[end]\n");
        assert_eq!(p.callout.as_deref(), Some("sync; echo  go"));
        assert_eq!(p.filesystems[0].location, Path::new("/mnt/mydir"));
    }

    #[test]
    fn sizes() {
        for (s, want) in [
            ("4k", 4096),
            ("4K", 4096),
            ("4KB", 4096),
            ("4kb", 4096),
            ("4Kb", 4096),
            ("1m", MI),
            ("1MB", MI),
            ("2G", 2 << 30),
            ("2gb", 2 << 30),
            ("4096", 4096),
            ("0", 0),
            ("7", 7),
            ("16g", 16 << 30),
        ] {
            assert_eq!(size(s), Ok(want), "{s}");
        }
        for s in [
            "4x",
            "4B",
            "4T",
            "k",
            "",
            "1.5m",
            "-1",
            "4kk",
            "18446744073709551615k",
        ] {
            assert!(size(s).is_err(), "{s} should be refused");
        }
        let p = ok(&profile(
            "max_filesize=2G\nmin_filesize=1m\ninit_size=3g",
            READS,
        ));
        let fs = &p.filesystems[0];
        assert_eq!(
            (fs.min_filesize, fs.max_filesize, fs.init_size),
            (MI, 2 << 30, 3 << 30)
        );
    }

    #[test]
    fn deprecated_options_warn_as_ffsb() {
        let text = format!(
            "num_filesystems=1\nnum_threadgroups = 1\n{}",
            profile("", "fsync_file=1\nread_weight=1\nread_blocksize=4k")
        );
        let p = ok(&text);
        assert_eq!(
            p.warnings,
            [
                "WARNING: The \"num_filesystems\" option is deprecated!!!",
                "WARNING: The \"num_threadgroups\" option is deprecated!!!",
                "WARNING: The \"fsync_file\" option is deprecated!!!",
            ]
        );
        assert!(p.threadgroups[0].fsync_file);
    }

    #[test]
    fn defaults_are_ffsbs() {
        let p = ok("[filesystem]\nlocation=/a\ncreate_blocksize=0\n[end]\n");
        assert_eq!(p.time, 0);
        assert!(p.threadgroups.is_empty());
        let fs = &p.filesystems[0];
        assert_eq!((fs.create_blocksize, fs.age_blocksize), (4096, 4096));
        assert_eq!(
            (fs.num_files, fs.num_dirs, fs.min_filesize, fs.max_filesize),
            (0, 0, 0, 0)
        );
        assert!(fs.age_group.is_none() && fs.clone_of.is_none());
        let p = ok(&profile("", READS));
        let tg = &p.threadgroups[0];
        assert_eq!((tg.read_size, tg.write_size, tg.op_delay_ms), (0, 0, 0));
        assert!(tg.bindfs.is_none() && tg.stats.is_none());
    }

    #[test]
    fn stats_ignore_matches_as_ffsb() {
        let p = ok(&profile(
            "",
            "read_weight=1\nread_blocksize=1\n[stats]\nenable_stats=1\nignore=CLOSE\n\
             ignore = readdir\nignore=statfs\nignore=close\nmsec_range 0 1\nmsec_range\t1 2\n[end]",
        ));
        let st = p.threadgroups[0].stats.as_ref().unwrap();
        assert_eq!(st.ignore, [Syscall::Close, Syscall::Read, Syscall::Stat]);
        assert_eq!(st.ranges_ms, [(0.0, 1.0), (1.0, 2.0)]);
    }

    #[test]
    fn clones_copy_all_but_the_location() {
        let text = "[filesystem]\nlocation=/c\nclone=/b\n[end]\n\
                    [filesystem]\nlocation=/a\nnum_files=7\nnum_dirs=2\nsize_weight 4k 1\n\
                    agefs=1\ndesired_util=0.5\n[threadgroup]\nnum_threads=1\ndelete_weight=1\n[end]\n[end]\n\
                    [filesystem]\nlocation=/b\nclone=/a\n[end]\n";
        let p = ok(text);
        let [c, a, b] = &p.filesystems[..] else {
            panic!()
        };
        for fs in [c, b] {
            assert_eq!((fs.num_files, fs.num_dirs), (7, 2));
            assert_eq!(fs.size_weights, a.size_weights);
            assert!(fs.agefs);
            assert_eq!(fs.age_group, a.age_group);
        }
        assert_eq!(
            (c.location.to_str(), c.clone_of.as_deref()),
            (Some("/c"), Some(Path::new("/b")))
        );
        assert_eq!((c.line, b.line), (1, 17));
    }

    #[test]
    fn relocate() {
        let mut p = ok(&profile(
            "",
            "bindfs=/mnt/a\nread_weight=1\nread_blocksize=1",
        ));
        p.relocate(Path::new("/tmp/x"));
        assert_eq!(p.filesystems[0].location, Path::new("/tmp/x"));
        assert_eq!(
            p.threadgroups[0].bindfs.as_deref(),
            Some(Path::new("/tmp/x"))
        );

        let mut p = example("database.ffsb");
        p.relocate(Path::new("/tmp/x"));
        let locs: Vec<&Path> = p.filesystems.iter().map(|f| f.location.as_path()).collect();
        assert_eq!(locs, [Path::new("/tmp/x/fs0"), Path::new("/tmp/x/fs1")]);
        let binds: Vec<&Path> = p
            .threadgroups
            .iter()
            .map(|t| t.bindfs.as_deref().unwrap())
            .collect();
        assert_eq!(
            binds,
            [
                Path::new("/tmp/x/fs0"),
                Path::new("/tmp/x/fs0"),
                Path::new("/tmp/x/fs1")
            ]
        );

        let mut p =
            ok("[filesystem]\nlocation=/a\n[end]\n[filesystem]\nlocation=/b\nclone=/a\n[end]\n");
        p.relocate(Path::new("d"));
        assert_eq!(
            p.filesystems[1].clone_of.as_deref(),
            Some(Path::new("d/fs0"))
        );
    }

    #[test]
    fn option_tables() {
        // Every operation has its weight option, named after it.
        for op in Op::ALL {
            let name = format!("{}_weight", op.name());
            let spec = Scope::ThreadGroup.find(&name).expect(&name);
            assert_eq!(spec.kind, Kind::Weight(op));
        }
        let weights = THREADGROUP_OPTIONS
            .iter()
            .filter(|o| matches!(o.kind, Kind::Weight(_)))
            .count();
        assert_eq!(weights, Op::ALL.len());
        // Names are unique across all scopes and have help; every option
        // has a setter (a line of each parses in its scope).
        let mut all: Vec<&str> = Vec::new();
        for scope in Scope::ALL {
            for o in scope.options() {
                assert!(!all.contains(&o.name), "{} twice", o.name);
                assert!(!o.help.is_empty(), "{}", o.name);
                all.push(o.name);
                let line = match o.kind {
                    Kind::SizeWeight => format!("{} 4k 1", o.name),
                    Kind::Range => format!("{} 0 1", o.name),
                    Kind::Syscall => format!("{}=open", o.name),
                    Kind::Path => format!("{}=/mnt/a", o.name),
                    Kind::Fraction => format!("{}=0.5", o.name),
                    _ => format!("{}=1", o.name),
                };
                let (spec, value) = read_option(&line, scope).unwrap();
                match scope {
                    Scope::Global => {
                        set_global(&mut Profile::empty(Path::new("p")), spec.name, value)
                    }
                    Scope::FileSystem => {
                        set_filesystem(&mut FileSystem::default(), spec.name, value)
                    }
                    Scope::ThreadGroup => {
                        set_threadgroup(&mut ThreadGroup::default(), spec.name, value)
                    }
                    Scope::Stats => set_stats(&mut Stats::default(), spec.name, value),
                }
            }
        }
        assert_eq!(all.len(), 8 + 14 + 27 + 4);
    }
}
