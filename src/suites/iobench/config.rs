//! IOBENCH's parameters: the keywords, their defaults, the control-file
//! language and the precedence control file > environment > default
//! (Wolman & Olson 1989, "Benchmark Parameters"; docs/iobench.md).
//!
//! A control file is free-form `KEYWORD = value;` assignments. White space is
//! ignored except inside a keyword or a value. A keyword whose first
//! character is `@` makes the rest of its line a pathname: the current file
//! is closed and input continues from that file (a switch, not a nested
//! include), so a chain of files that comes back to one already read is an
//! error (it would never end).
//!
//! A spectrum (`--spectrum`) is a cross product of items: lists
//! `KEY=v1,v2,...` and spectrum files, which hold one run per line as
//! white-space separated `KEY=value` settings (`#` starts a comment).
//!
//! Every error names where the bad text is: `file:line: ...` for control
//! and spectrum files, `environment variable KEY=value: ...` for the
//! environment.

pub use crate::units::decimal as num;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The keywords, what they set and their defaults, in the paper's order.
/// `FILE0`, `FILE1`, … (the pathname of file k) come on top.
pub const KEYWORDS: [(&str, &str, &str); 13] = [
    ("RUN", "identification of run", "0"),
    ("USERS", "U, number of users", "4"),
    ("FILES", "F, number of files", "4"),
    ("NRECS", "N, number of records in each file", "1024"),
    ("RECLEN", "B, bytes in each record", "2048"),
    ("READS", "R, reads per transaction", "1"),
    ("WRITES", "W, writes per transaction (W ≤ R)", "1"),
    ("LOCKS", "L, locks per file", "1000"),
    (
        "SLEEP",
        "S, lock sleep time in seconds (0 spins, -1 no locking)",
        "0",
    ),
    ("START", "DS, start delay in minutes", "0"),
    ("END", "DE, end delay in minutes", "1"),
    ("DURATION", "M, run duration in minutes", "1"),
    ("WORK", "CP, work parameter (CP·1000 loop iterations)", "0"),
];

/// Upper bounds that keep a run inside what one machine can hold.
pub const MAX_USERS: u64 = 100_000;
pub const MAX_FILES: u64 = 100_000;
pub const MAX_RECLEN: u64 = 64 << 20;
pub const MAX_READS: u64 = 1_000_000;
/// Lock words in shared memory (4 bytes each): FILES × min(LOCKS, NRECS).
pub const MAX_LOCK_WORDS: u64 = 1 << 24;

/// Where a value came from, for error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Default,
    Env,
    /// A control or spectrum file and a 1-based line.
    File(PathBuf, usize),
    /// A `--spectrum` list on the command line.
    Spectrum,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => write!(f, "default"),
            Origin::Env => write!(f, "environment"),
            Origin::File(p, l) => write!(f, "{}:{l}", p.display()),
            Origin::Spectrum => write!(f, "--spectrum"),
        }
    }
}

/// One `KEY = value` from a control file, the environment or --spectrum.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    /// Upper case: `USERS`, `FILE3`.
    pub key: String,
    pub value: String,
    pub origin: Origin,
}

impl Assignment {
    /// Where and what, as an error prefix: `ctl:3: USERS = abc` or
    /// `environment variable USERS=abc`.
    fn place(&self) -> String {
        match &self.origin {
            Origin::Env => format!("environment variable {}={}", self.key, self.value),
            Origin::Default => format!("default {} = {}", self.key, self.value),
            o => format!("{o}: {} = {}", self.key, self.value),
        }
    }
}

/// The run's parameters after defaults, environment and control file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// RUN: identification of the run (any word).
    pub run: String,
    /// USERS: U.
    pub users: u32,
    /// FILES: F.
    pub files: u32,
    /// NRECS: N records per file.
    pub nrecs: u64,
    /// RECLEN: B bytes per record.
    pub reclen: u32,
    /// READS: R per transaction.
    pub reads: u32,
    /// WRITES: W per transaction (the last W reads are followed by a write).
    pub writes: u32,
    /// LOCKS: L per file; record r takes lock r mod L.
    pub locks: u64,
    /// SLEEP: S seconds between tries on a busy lock; 0 spins; −1 no locking.
    pub sleep: f64,
    /// START: DS minutes between set-up and the timed phase.
    pub start: f64,
    /// END: DE minutes the controller allows after the duration (see docs).
    pub end: f64,
    /// DURATION: M minutes.
    pub duration: f64,
    /// WORK: CP; CP·1000 null-loop iterations per transaction.
    pub work: u64,
    /// FILEk given (k < FILES): the name of file k (see [`crate::runner::names`]).
    pub paths: BTreeMap<u32, String>,
    /// Where each FILEk was given, for messages (`ctl:3: FILE0 = x`).
    #[serde(skip)]
    pub path_origins: BTreeMap<u32, String>,
}

impl Default for Config {
    fn default() -> Self {
        resolve(&[], &|_| None, &[]).expect("the defaults are valid")
    }
}

impl Config {
    /// Lock words used per file: records beyond L share locks, locks beyond N
    /// are never taken.
    pub fn effective_locks(&self) -> u64 {
        self.locks.min(self.nrecs)
    }

    pub fn locking(&self) -> bool {
        self.sleep >= 0.0
    }

    /// Bytes of one file.
    pub fn file_bytes(&self) -> u64 {
        self.nrecs * self.reclen as u64
    }

    /// Null-loop iterations after each read: CP·1000 / R.
    pub fn work_per_read(&self) -> u64 {
        self.work * 1000 / self.reads as u64
    }

    /// The paper's MB of data: cycles·(R+W)·B / 10⁶.
    pub fn mb_of(&self, cycles: u64) -> f64 {
        cycles as f64 * (self.reads + self.writes) as f64 * self.reclen as f64 / 1e6
    }

    /// The value of a keyword as the results file prints it.
    pub fn value_of(&self, key: &str) -> String {
        match key {
            "RUN" => self.run.clone(),
            "USERS" => self.users.to_string(),
            "FILES" => self.files.to_string(),
            "NRECS" => self.nrecs.to_string(),
            "RECLEN" => self.reclen.to_string(),
            "READS" => self.reads.to_string(),
            "WRITES" => self.writes.to_string(),
            "LOCKS" => self.locks.to_string(),
            "SLEEP" => num(self.sleep),
            "START" => num(self.start),
            "END" => num(self.end),
            "DURATION" => num(self.duration),
            "WORK" => self.work.to_string(),
            _ => String::new(),
        }
    }
}

/// The canonical (upper-case) name of a keyword, or `None` if it is none.
pub fn keyword(word: &str) -> Option<String> {
    let up = word.to_ascii_uppercase();
    if KEYWORDS.iter().any(|(k, _, _)| *k == up) {
        return Some(up);
    }
    let digits = up.strip_prefix("FILE")?;
    // FILE0, FILE12; not FILE, FILE01 (one spelling per file) or FILEX
    let ok = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && digits.len() <= 6;
    ok.then_some(up)
}

fn known_keywords() -> String {
    let mut s: Vec<&str> = KEYWORDS.iter().map(|k| k.0).collect();
    s.push("FILE0, FILE1, …");
    s.join(", ")
}

/// Read a control file, following `@` switches. Checks every keyword and the
/// form of every value; the checks that involve two keywords come in
/// [`resolve`].
pub fn parse_control(path: &Path) -> Result<Vec<Assignment>, String> {
    let mut out = Vec::new();
    let mut visited: Vec<PathBuf> = Vec::new();
    let mut current = path.to_path_buf();
    let mut from: Option<(PathBuf, usize)> = None;
    loop {
        let text = std::fs::read_to_string(&current).map_err(|e| match &from {
            Some((f, l)) => format!(
                "{}:{l}: cannot read the control file {}: {e}",
                f.display(),
                current.display()
            ),
            None => format!("cannot read the control file {}: {e}", current.display()),
        })?;
        let canon = std::fs::canonicalize(&current).unwrap_or_else(|_| current.clone());
        if visited.contains(&canon) {
            let (f, l) = from.expect("only a switch revisits");
            return Err(format!(
                "{}:{l}: '@{}' switches back to a control file already read (an include loop)",
                f.display(),
                current.display()
            ));
        }
        visited.push(canon);
        match parse_text(&text, &current, &mut out)? {
            None => return Ok(out),
            Some((target, line)) => {
                // relative to the file that names it
                let base = current.parent().unwrap_or(Path::new(""));
                let next = base.join(&target);
                from = Some((current, line));
                current = next;
            }
        }
    }
}

/// Parse one file's text, appending its assignments. Returns the `@`
/// target (and its line) when the file switches to another.
pub fn parse_text(
    text: &str,
    file: &Path,
    out: &mut Vec<Assignment>,
) -> Result<Option<(PathBuf, usize)>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut line = 1;
    let at = |line: usize| format!("{}:{line}", file.display());
    let skip_ws = |i: &mut usize, line: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            if chars[*i] == '\n' {
                *line += 1;
            }
            *i += 1;
        }
    };
    let word = |i: &mut usize, stop: &[char]| -> String {
        let s = *i;
        while *i < chars.len() && !chars[*i].is_whitespace() && !stop.contains(&chars[*i]) {
            *i += 1;
        }
        chars[s..*i].iter().collect()
    };
    loop {
        skip_ws(&mut i, &mut line);
        if i >= chars.len() {
            return Ok(None);
        }
        if chars[i] == '@' {
            let rest: String = chars[i + 1..].iter().take_while(|&&c| c != '\n').collect();
            let target = rest.trim();
            if target.is_empty() {
                return Err(format!(
                    "{}: '@' must be followed by the pathname of a control file",
                    at(line)
                ));
            }
            return Ok(Some((PathBuf::from(target), line)));
        }
        let key_line = line;
        let key = word(&mut i, &['=', ';']);
        if key.is_empty() {
            return Err(format!(
                "{}: expected a keyword, found '{}'",
                at(line),
                chars[i]
            ));
        }
        let Some(canon) = keyword(&key) else {
            return Err(format!(
                "{}: unknown keyword '{key}' (the keywords are {})",
                at(key_line),
                known_keywords()
            ));
        };
        skip_ws(&mut i, &mut line);
        if i >= chars.len() || chars[i] != '=' {
            let found = match chars.get(i) {
                None => "the end of the file".to_string(),
                Some(c) => format!("'{}'", word_at(&chars, i, *c)),
            };
            return Err(format!(
                "{}: expected '=' after '{key}', found {found} (no spaces inside a keyword)",
                at(line)
            ));
        }
        i += 1;
        skip_ws(&mut i, &mut line);
        let value_line = line;
        let value = word(&mut i, &[';']);
        if value.is_empty() {
            return Err(format!("{}: '{key} =' has no value", at(value_line)));
        }
        let a = Assignment {
            key: canon,
            value,
            origin: Origin::File(file.to_path_buf(), value_line),
        };
        skip_ws(&mut i, &mut line);
        if i >= chars.len() || chars[i] != ';' {
            let what = if i >= chars.len() {
                "at the end of the file".to_string()
            } else {
                format!("before '{}'", word_at(&chars, i, chars[i]))
            };
            return Err(format!(
                "{}: missing ';' after '{key} = {}' {what} (every assignment ends with ';')",
                at(value_line),
                a.value
            ));
        }
        i += 1;
        check_value(&a)?;
        out.push(a);
    }
}

/// The word starting at `i`, for messages.
fn word_at(chars: &[char], i: usize, c: char) -> String {
    let w: String = chars[i..]
        .iter()
        .take_while(|c| !c.is_whitespace())
        .take(20)
        .collect();
    if w.is_empty() { c.to_string() } else { w }
}

/// The keywords' values as they are read from the environment.
pub fn env_assignments(get: &dyn Fn(&str) -> Option<String>, files: u32) -> Vec<Assignment> {
    let mut v = Vec::new();
    let mut push = |key: String| {
        if let Some(value) = get(&key) {
            v.push(Assignment {
                key,
                value: value.trim().to_string(),
                origin: Origin::Env,
            });
        }
    };
    for (k, _, _) in KEYWORDS {
        push(k.to_string());
    }
    for f in 0..files {
        push(format!("FILE{f}"));
    }
    v
}

/// Kinds of values.
enum Kind {
    Text,
    Int {
        min: u64,
        max: u64,
    },
    /// A number of minutes or seconds; `allow_minus_one` for SLEEP.
    Real {
        positive: bool,
        minus_one: bool,
    },
    Path,
}

fn kind_of(key: &str) -> Kind {
    if let Some(&(_, min, max)) = INTS.iter().find(|(k, ..)| *k == key) {
        return Kind::Int { min, max };
    }
    let real = |positive, minus_one| Kind::Real {
        positive,
        minus_one,
    };
    match key {
        "RUN" => Kind::Text,
        "SLEEP" => real(false, true),
        "START" | "END" => real(false, false),
        "DURATION" => real(true, false),
        _ => Kind::Path,
    }
}

/// The integer keywords and their ranges.
const INTS: [(&str, u64, u64); 8] = [
    ("USERS", 1, MAX_USERS),
    ("FILES", 1, MAX_FILES),
    ("NRECS", 1, 1 << 40),
    ("RECLEN", 1, MAX_RECLEN),
    ("READS", 1, MAX_READS),
    ("WRITES", 0, MAX_READS),
    ("LOCKS", 1, 1 << 40),
    ("WORK", 0, 1_000_000_000),
];

/// Check the form of one value (numbers where numbers are due, ranges).
pub fn check_value(a: &Assignment) -> Result<(), String> {
    let v = a.value.as_str();
    match kind_of(&a.key) {
        Kind::Text | Kind::Path => Ok(()),
        Kind::Int { min, max } => match v.parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(()),
            Ok(_) => Err(format!("{}: must be between {min} and {max}", a.place())),
            Err(_) if v.parse::<i64>().is_ok() => {
                Err(format!("{}: must be between {min} and {max}", a.place()))
            }
            Err(_) => Err(format!("{}: not a whole number", a.place())),
        },
        Kind::Real {
            positive,
            minus_one,
        } => {
            let n: f64 = match v.parse() {
                Ok(n) if f64::is_finite(n) => n,
                _ => return Err(format!("{}: not a number", a.place())),
            };
            if minus_one && n < 0.0 && n != -1.0 {
                return Err(format!(
                    "{}: must be 0 (spin), a positive number of seconds, or -1 (no locking)",
                    a.place()
                ));
            }
            if !minus_one && n < 0.0 {
                return Err(format!("{}: must not be negative", a.place()));
            }
            if positive && n <= 0.0 {
                return Err(format!("{}: must be more than 0", a.place()));
            }
            // SLEEP is seconds, the others minutes: each a time iogauge takes
            let (secs, unit) = if a.key == "SLEEP" {
                (n, "seconds")
            } else {
                (n * 60.0, "minutes")
            };
            if n > 0.0
                && let Err(e) = crate::units::seconds(secs)
            {
                return Err(format!("{}: {n} {unit} {e}", a.place()));
            }
            Ok(())
        }
    }
}

/// The parameters: each keyword takes its value from the last assignment
/// in `overrides` (--spectrum), else the last in `control`, else the
/// environment (`env`), else the default. Then the checks that involve more
/// than one keyword.
pub fn resolve(
    control: &[Assignment],
    env: &dyn Fn(&str) -> Option<String>,
    overrides: &[Assignment],
) -> Result<Config, String> {
    let set = assignments(control, env, overrides)?;
    let int = |k: &str| set[k].value.parse::<u64>().expect("checked");
    let real = |k: &str| set[k].value.parse::<f64>().expect("checked");
    let cfg = Config {
        run: set["RUN"].value.clone(),
        users: int("USERS") as u32,
        files: int("FILES") as u32,
        nrecs: int("NRECS"),
        reclen: int("RECLEN") as u32,
        reads: int("READS") as u32,
        writes: int("WRITES") as u32,
        locks: int("LOCKS"),
        sleep: real("SLEEP"),
        start: real("START"),
        end: real("END"),
        duration: real("DURATION"),
        work: int("WORK"),
        paths: file_paths(&set, int("FILES"), |a| a.value.clone()),
        path_origins: file_paths(&set, int("FILES"), Assignment::place),
    };
    check_together(&cfg, &set)?;
    Ok(cfg)
}

/// Each keyword's winning assignment: the default, then the environment,
/// the control file and the overrides, each checked on its own.
fn assignments(
    control: &[Assignment],
    env: &dyn Fn(&str) -> Option<String>,
    overrides: &[Assignment],
) -> Result<BTreeMap<String, Assignment>, String> {
    let mut set: BTreeMap<String, Assignment> = BTreeMap::new();
    for (k, _, d) in KEYWORDS {
        set.insert(
            k.to_string(),
            Assignment {
                key: k.to_string(),
                value: d.to_string(),
                origin: Origin::Default,
            },
        );
    }
    // the number of files decides which FILEk the environment is asked for
    let files_hint = overrides
        .iter()
        .chain(control)
        .rev()
        .find(|a| a.key == "FILES")
        .and_then(|a| a.value.parse::<u32>().ok())
        .or_else(|| env("FILES").and_then(|v| v.trim().parse().ok()))
        .unwrap_or(4)
        .min(MAX_FILES as u32);
    for a in env_assignments(env, files_hint) {
        check_value(&a)?;
        set.insert(a.key.clone(), a);
    }
    for a in control.iter().chain(overrides) {
        check_value(a)?;
        set.insert(a.key.clone(), a.clone());
    }
    Ok(set)
}

/// `what` of each FILEk assignment below FILE`files`, by k.
fn file_paths(
    set: &BTreeMap<String, Assignment>,
    files: u64,
    what: impl Fn(&Assignment) -> String,
) -> BTreeMap<u32, String> {
    set.iter()
        .filter_map(|(k, a)| {
            let n: u32 = k.strip_prefix("FILE")?.parse().ok()?;
            Some((n, what(a)))
        })
        .filter(|(n, _)| u64::from(*n) < files)
        .collect()
}

/// The checks that involve more than one keyword.
fn check_together(cfg: &Config, set: &BTreeMap<String, Assignment>) -> Result<(), String> {
    if cfg.writes > cfg.reads {
        return Err(format!(
            "{}: WRITES must not exceed READS = {} (W writes follow the last W of the R reads)",
            set["WRITES"].place(),
            cfg.reads
        ));
    }
    cfg.nrecs
        .checked_mul(cfg.reclen as u64)
        .filter(|b| *b <= 1 << 50)
        .ok_or_else(|| {
            format!(
                "{}: NRECS × RECLEN = {} × {} is too large for one file",
                set["NRECS"].place(),
                cfg.nrecs,
                cfg.reclen
            )
        })?;
    let words = cfg.effective_locks().saturating_mul(cfg.files as u64);
    if cfg.locking() && words > MAX_LOCK_WORDS {
        return Err(format!(
            "{}: FILES × min(LOCKS, NRECS) = {words} locks is more than the {MAX_LOCK_WORDS} the lock table holds",
            set["LOCKS"].place()
        ));
    }
    let mut seen: BTreeMap<&str, u32> = BTreeMap::new();
    for (k, p) in &cfg.paths {
        if let Some(other) = seen.insert(p.as_str(), *k) {
            return Err(format!(
                "{}: FILE{other} and FILE{k} name the same file",
                set[&format!("FILE{k}")].place()
            ));
        }
    }
    Ok(())
}

/// The real environment.
pub fn real_env(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

/// One `--spectrum` item: its alternatives, one of which each run takes.
/// An alternative is a group of assignments made together: a list
/// `USERS=50,100` gives one assignment per value, a spectrum file one group
/// per line (`FILES=4 USERS=50`).
pub type SpectrumItem = Vec<Vec<Assignment>>;

/// The keywords a spectrum may vary: all but the FILEk paths.
fn spectrum_keyword(word: &str) -> Option<String> {
    keyword(word).filter(|k| !k.starts_with("FILE") || k == "FILES")
}

const SPECTRUM_KEYWORDS: &str =
    "USERS, FILES, NRECS, RECLEN, READS, WRITES, LOCKS, SLEEP, WORK, START, END, DURATION, RUN";

/// Parse one `--spectrum` item. An item that names an existing file is a
/// spectrum file ([`parse_spectrum_file`]); otherwise an item with `=` is a
/// list `KEY=v1,v2,...`; anything else is an error.
pub fn spectrum_item(item: &str) -> Result<SpectrumItem, String> {
    if Path::new(item).exists() {
        return parse_spectrum_file(Path::new(item));
    }
    if !item.contains('=') {
        return Err(format!(
            "--spectrum '{item}': neither an existing spectrum file nor a KEY=v1,v2,... list (a control file goes before --spectrum)"
        ));
    }
    spectrum_list(item)
}

/// Parse a list `KEY=v1,v2,...`: one alternative per value.
pub fn spectrum_list(item: &str) -> Result<SpectrumItem, String> {
    let Some((k, vals)) = item.split_once('=') else {
        return Err(format!(
            "--spectrum '{item}': expected KEY=v1,v2,... (a control file goes before --spectrum)"
        ));
    };
    let Some(key) = spectrum_keyword(k.trim()) else {
        return Err(format!(
            "--spectrum '{item}': '{}' is not a keyword that takes numbers ({SPECTRUM_KEYWORDS})",
            k.trim()
        ));
    };
    let mut out = Vec::new();
    for v in vals.split(',') {
        let a = Assignment {
            key: key.clone(),
            value: v.trim().to_string(),
            origin: Origin::Spectrum,
        };
        if a.value.is_empty() {
            return Err(format!("--spectrum '{item}': an empty value"));
        }
        check_value(&a)?;
        out.push(vec![a]);
    }
    Ok(out)
}

/// Read a spectrum file: one run per line, each line white-space separated
/// `KEY=value` settings, `#` to the end of a line a comment, blank lines
/// ignored. Errors name the file and line.
pub fn parse_spectrum_file(path: &Path) -> Result<SpectrumItem, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the spectrum file {}: {e}", path.display()))?;
    parse_spectrum_text(&text, path)
}

/// [`parse_spectrum_file`] on text already read; `file` names it in errors.
pub fn parse_spectrum_text(text: &str, file: &Path) -> Result<SpectrumItem, String> {
    let mut runs = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let at = || format!("{}:{line}", file.display());
        let body = raw.split_once('#').map_or(raw, |(b, _)| b);
        if body.contains(';') {
            return Err(format!(
                "{}: ';' in a spectrum file: this looks like a control file, which goes before --spectrum (a spectrum file has one run per line: KEY=value KEY=value ...)",
                at()
            ));
        }
        let mut group: Vec<Assignment> = Vec::new();
        for token in body.split_whitespace() {
            let Some((k, v)) = token.split_once('=').filter(|(k, _)| !k.is_empty()) else {
                return Err(format!(
                    "{}: '{token}' is not KEY=value (one run per line: KEY=value KEY=value ..., no spaces around '=')",
                    at()
                ));
            };
            let Some(key) = spectrum_keyword(k) else {
                return Err(format!(
                    "{}: unknown keyword '{k}' (a spectrum file may set {SPECTRUM_KEYWORDS})",
                    at()
                ));
            };
            if v.is_empty() {
                return Err(format!("{}: '{token}' has no value", at()));
            }
            if v.contains(',') && key != "RUN" {
                return Err(format!(
                    "{}: '{token}': one value per keyword on a line (a line is one run; put the others on lines of their own)",
                    at()
                ));
            }
            if group.iter().any(|a| a.key == key) {
                return Err(format!(
                    "{}: {key} is set twice on one line (a line is one run)",
                    at()
                ));
            }
            let a = Assignment {
                key,
                value: v.to_string(),
                origin: Origin::File(file.to_path_buf(), line),
            };
            check_value(&a)?;
            group.push(a);
        }
        if !group.is_empty() {
            runs.push(group);
        }
    }
    if runs.is_empty() {
        return Err(format!(
            "{}: no runs (each line that is not blank or a comment is one run: KEY=value KEY=value ...)",
            file.display()
        ));
    }
    Ok(runs)
}

/// The cross product of spectrum items, the first item varying slowest.
/// Each run is the assignments of the alternatives it takes, in item order.
pub fn cross_product(items: &[SpectrumItem]) -> Vec<Vec<Assignment>> {
    let mut runs: Vec<Vec<Assignment>> = vec![Vec::new()];
    for alternatives in items {
        let mut next = Vec::with_capacity(runs.len() * alternatives.len());
        for r in &runs {
            for group in alternatives {
                let mut x = r.clone();
                x.extend(group.iter().cloned());
                next.push(x);
            }
        }
        runs = next;
    }
    runs
}

/// Refuse a run that sets one keyword twice (two items that both set it):
/// the later would silently win.
pub fn check_run(run: &[Assignment]) -> Result<(), String> {
    for (i, a) in run.iter().enumerate() {
        if let Some(b) = run[..i].iter().find(|b| b.key == a.key) {
            return Err(format!(
                "{}: {} is already set by {} in the same run (each keyword may come from one --spectrum item only)",
                a.place(),
                a.key,
                b.origin
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn parse(text: &str) -> Result<Vec<Assignment>, String> {
        let mut v = Vec::new();
        parse_text(text, Path::new("ctl"), &mut v)?;
        Ok(v)
    }

    fn cfg(text: &str) -> Result<Config, String> {
        resolve(&parse(text)?, &no_env, &[])
    }

    /// The numeric parameters, in the order of the paper's table.
    type Numbers = (u32, u32, u64, u32, u32, u32, u64, f64, f64, f64, f64, u64);

    fn numbers(c: &Config) -> Numbers {
        let Config {
            users,
            files,
            nrecs,
            reclen,
            reads,
            writes,
            locks,
            sleep,
            start,
            end,
            duration,
            work,
            ..
        } = *c;
        (
            users, files, nrecs, reclen, reads, writes, locks, sleep, start, end, duration, work,
        )
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = Config::default();
        assert_eq!(c.run, "0");
        assert_eq!(
            numbers(&c),
            (4, 4, 1024, 2048, 1, 1, 1000, 0.0, 0.0, 1.0, 1.0, 0)
        );
        assert!(c.paths.is_empty());
        assert_eq!(cfg("").unwrap(), c, "an empty control file is legal");
    }

    #[test]
    fn every_keyword_is_read() {
        let c = cfg("RUN = test-v1; USERS = 8; FILES = 3; NRECS = 10000; RECLEN = 1024;\n\
                     READS = 4; WRITES = 2; LOCKS = 10000; SLEEP = 2; START = 0.5; END = 0;\n\
                     DURATION = 5; WORK = 50; FILE0 = FILE0; FILE1 = /d21/FILE1; FILE2 = /d31/FILE3;")
        .unwrap();
        assert_eq!(c.run, "test-v1");
        assert_eq!(
            numbers(&c),
            (8, 3, 10000, 1024, 4, 2, 10000, 2.0, 0.5, 0.0, 5.0, 50)
        );
        assert_eq!(c.paths[&1], "/d21/FILE1");
        assert_eq!(c.paths.len(), 3);
        assert_eq!(c.work_per_read(), 12_500);
        assert!(!cfg("SLEEP = -1;").unwrap().locking());
    }

    #[test]
    fn white_space_is_free_form_and_keywords_any_case() {
        let a = cfg("FILES=16;RECLEN=4096;USERS=100;").unwrap();
        let b = cfg("  FILES =\n 16 ;\n\n\trecLEN\t=4096;users = 100 ;\n").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.files, 16);
        // later assignments win
        assert_eq!(cfg("USERS = 2; USERS = 3;").unwrap().users, 3);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let e = cfg("USERS = 2;\nUSER = 3;").unwrap_err();
        assert!(e.starts_with("ctl:2: unknown keyword 'USER'"), "{e}");
        let e = cfg("USERS = 2\nFILES = 3;").unwrap_err();
        assert!(e.starts_with("ctl:1: missing ';' after 'USERS = 2'"), "{e}");
        let e = cfg("USERS = 2;\nFILES = 3").unwrap_err();
        assert!(
            e.contains("ctl:2: missing ';'") && e.contains("end of the file"),
            "{e}"
        );
        let e = cfg("READS = 1;\n\nWRITES = 2;").unwrap_err();
        assert!(
            e.starts_with("ctl:3: WRITES = 2: WRITES must not exceed READS = 1"),
            "{e}"
        );
        let e = cfg("\nUSERS = many;").unwrap_err();
        assert_eq!(e, "ctl:2: USERS = many: not a whole number");
        let e = cfg("DURATION = soon;").unwrap_err();
        assert_eq!(e, "ctl:1: DURATION = soon: not a number");
        let e = cfg("FI LES = 3;").unwrap_err();
        assert!(e.starts_with("ctl:1: unknown keyword 'FI'"), "{e}");
        let e = cfg("FILES 3;").unwrap_err();
        assert!(e.starts_with("ctl:1: expected '=' after 'FILES'"), "{e}");
        for (text, says) in [
            ("USERS = 0;", "between 1 and"),
            ("USERS = -3;", "between 1 and"),
            ("SLEEP = -2;", "-1 (no locking)"),
            ("DURATION = 0;", "more than 0"),
            ("FILES = ;", "has no value"),
            ("= 3;", "expected a keyword"),
            ("@", "'@' must be followed"),
            ("FILES = 2; FILE0 = a; FILE1 = a;", "same file"),
            ("FILES = 100000; LOCKS = 1000;", "lock table"),
            ("FILE01 = x;", "unknown keyword"),
        ] {
            let e = cfg(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn file_paths_beyond_files_are_ignored() {
        let c = cfg("FILES = 2; FILE0 = a; FILE5 = b;").unwrap();
        assert_eq!(c.paths.len(), 1);
    }

    #[test]
    fn at_switches_input_and_loops_are_errors() {
        let d = tempfile::tempdir().unwrap();
        let p = |n: &str| d.path().join(n);
        std::fs::write(p("main"), "RECLEN = 2048; USERS = 200; @common\nUSERS = 1;").unwrap();
        std::fs::write(p("common"), "FILES = 2;\nFILE0 = /x/a; FILE1 = /y/b;\n").unwrap();
        let c = resolve(&parse_control(&p("main")).unwrap(), &no_env, &[]).unwrap();
        // the text after the switch in `main` is never read
        assert_eq!((c.users, c.files, c.reclen), (200, 2, 2048));
        assert_eq!(c.paths[&1], "/y/b");
        // errors in the secondary file name it
        std::fs::write(p("bad"), "@bad2").unwrap();
        std::fs::write(p("bad2"), "\nWORDS = 1;").unwrap();
        let e = parse_control(&p("bad")).unwrap_err();
        assert!(e.ends_with("bad2:2: unknown keyword 'WORDS' (the keywords are RUN, USERS, FILES, NRECS, RECLEN, READS, WRITES, LOCKS, SLEEP, START, END, DURATION, WORK, FILE0, FILE1, …)"), "{e}");
        // a loop a → b → a
        std::fs::write(p("a"), "USERS = 1; @b").unwrap();
        std::fs::write(p("b"), "FILES = 1;\n@a\n").unwrap();
        let e = parse_control(&p("a")).unwrap_err();
        assert!(e.contains("b:2: '@") && e.contains("include loop"), "{e}");
        // a file switching to itself
        std::fs::write(p("self"), "@self").unwrap();
        assert!(
            parse_control(&p("self"))
                .unwrap_err()
                .contains("include loop")
        );
        // a missing target names the line of the switch
        std::fs::write(p("m"), "USERS = 1;\n@nope").unwrap();
        let e = parse_control(&p("m")).unwrap_err();
        assert!(e.contains("m:2: cannot read the control file"), "{e}");
    }

    #[test]
    fn control_file_over_environment_over_defaults() {
        let env = |k: &str| match k {
            "USERS" => Some("7".to_string()),
            "FILES" => Some("3".to_string()),
            "FILE2" => Some("/env/f2".to_string()),
            "WORK" => Some("10".to_string()),
            _ => None,
        };
        let c = resolve(&parse("USERS = 9;").unwrap(), &env, &[]).unwrap();
        assert_eq!(c.users, 9, "control file over environment");
        assert_eq!(c.files, 3, "environment over default");
        assert_eq!(c.work, 10);
        assert_eq!(c.reclen, 2048, "default");
        assert_eq!(c.paths[&2], "/env/f2");
        // --spectrum over everything
        let o = spectrum_item("USERS=11").unwrap();
        assert_eq!(
            resolve(&parse("USERS = 9;").unwrap(), &env, &o[0])
                .unwrap()
                .users,
            11
        );
        // a bad environment value says so
        let bad = |k: &str| (k == "NRECS").then(|| "lots".to_string());
        let e = resolve(&[], &bad, &[]).unwrap_err();
        assert_eq!(e, "environment variable NRECS=lots: not a whole number");
        let e = resolve(&[], &|k| (k == "WRITES").then(|| "2".into()), &[]).unwrap_err();
        assert!(
            e.starts_with("environment variable WRITES=2: WRITES must not exceed"),
            "{e}"
        );
    }

    /// A run's values, space-separated, for comparisons.
    fn show(r: &[Assignment]) -> String {
        r.iter()
            .map(|a| a.value.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn spectrum_is_a_cross_product() {
        let items: Vec<_> = ["FILES=4,8,16", "USERS=50,100", "WORK=0,50"]
            .iter()
            .map(|s| spectrum_item(s).unwrap())
            .collect();
        let runs = cross_product(&items);
        assert_eq!(runs.len(), 12);
        assert_eq!(show(&runs[0]), "4 50 0");
        assert_eq!(show(&runs[1]), "4 50 50");
        assert_eq!(show(&runs[11]), "16 100 50");
        assert!(runs.iter().all(|r| check_run(r).is_ok()));
        for (item, why) in [
            (
                "USERS",
                "neither an existing spectrum file nor a KEY=v1,v2,... list",
            ),
            ("USERS=1,x", "not a whole number"),
            ("USERS=1,,2", "empty value"),
        ] {
            let e = spectrum_item(item).unwrap_err();
            assert!(e.contains(why), "{item}: {e}");
        }
        assert!(spectrum_item("FILE0=a").is_err());
        assert!(spectrum_item("BOGUS=1").is_err());
        // no items: one run with nothing set
        assert_eq!(cross_product(&[]), vec![Vec::<Assignment>::new()]);
    }

    fn spectrum_file(text: &str) -> Result<SpectrumItem, String> {
        parse_spectrum_text(text, Path::new("paper.spectrum"))
    }

    #[test]
    fn spectrum_files_have_one_run_per_line() {
        let runs = spectrum_file(
            "# the paper's pairs\n\nFILES=4 USERS=50   # run 1\n  files=4\tusers=100\n\n#\nFILES=8 USERS=50 RUN=x,y\n",
        )
        .unwrap();
        assert_eq!(runs.len(), 3);
        assert_eq!(show(&runs[0]), "4 50");
        assert_eq!(runs[1][1].key, "USERS", "keywords in any case");
        assert_eq!(show(&runs[2]), "8 50 x,y");
        assert_eq!(
            runs[2][0].origin,
            Origin::File(PathBuf::from("paper.spectrum"), 7)
        );
        // lines may set different keywords
        let runs = spectrum_file("USERS=2\nWORK=5 READS=3 WRITES=2\n").unwrap();
        assert_eq!(runs[1].len(), 3);
    }

    #[test]
    fn spectrum_file_errors_name_the_file_and_line() {
        let cases = [
            (
                "\n\nUSERS = x",
                "paper.spectrum:3: 'USERS' is not KEY=value",
            ),
            ("USERS=x", "paper.spectrum:1: USERS = x: not a whole number"),
            (
                "\n\nUSERS=x",
                "paper.spectrum:3: USERS = x: not a whole number",
            ),
            (
                "FILES=4\nUSER=50",
                "paper.spectrum:2: unknown keyword 'USER'",
            ),
            (
                "FILES=4 USERS50",
                "paper.spectrum:1: 'USERS50' is not KEY=value",
            ),
            ("=4", "paper.spectrum:1: '=4' is not KEY=value"),
            (
                "FILES=4 FILES=8",
                "paper.spectrum:1: FILES is set twice on one line",
            ),
            ("#\nFILES=", "paper.spectrum:2: 'FILES=' has no value"),
            (
                "USERS=50,100",
                "paper.spectrum:1: 'USERS=50,100': one value per keyword",
            ),
            ("FILE0=/x/a", "paper.spectrum:1: unknown keyword 'FILE0'"),
            (
                "DURATION=0",
                "paper.spectrum:1: DURATION = 0: must be more than 0",
            ),
            ("USERS = 2;", "paper.spectrum:1: ';' in a spectrum file"),
            ("# nothing\n\n   \n", "paper.spectrum: no runs"),
            ("", "paper.spectrum: no runs"),
        ];
        for (text, want) in cases {
            let e = spectrum_file(text).unwrap_err();
            assert!(e.starts_with(want), "{text:?}: {e}");
            assert!(!e.contains('\n'), "{text:?}: {e}");
        }
        // a combination that resolve refuses names the file and line
        let runs = spectrum_file("READS=2 WRITES=1\nREADS=1 WRITES=2\n").unwrap();
        let e = resolve(&[], &no_env, &runs[1]).unwrap_err();
        assert!(
            e.starts_with("paper.spectrum:2: WRITES = 2: WRITES must not exceed READS = 1"),
            "{e}"
        );
        // as does a keyword set by two items
        let items = [
            spectrum_file("USERS=5").unwrap(),
            spectrum_item("USERS=7").unwrap(),
        ];
        let run = &cross_product(&items)[0];
        let e = check_run(run).unwrap_err();
        assert_eq!(
            e,
            "--spectrum: USERS = 7: USERS is already set by paper.spectrum:1 in the same run (each keyword may come from one --spectrum item only)"
        );
        // a file that cannot be read
        let e = spectrum_item("/nonexistent/dir/paper.spectrum=1").unwrap_err();
        assert!(e.contains("is not a keyword"), "{e}");
        let e = parse_spectrum_file(Path::new("/nonexistent/paper.spectrum")).unwrap_err();
        assert!(
            e.starts_with("cannot read the spectrum file /nonexistent/paper.spectrum"),
            "{e}"
        );
    }

    #[test]
    fn an_existing_file_is_a_spectrum_file() {
        let d = tempfile::tempdir().unwrap();
        // a file whose name looks like a list is still a file
        let f = d.path().join("USERS=1,2");
        std::fs::write(&f, "USERS=3\nUSERS=4\n").unwrap();
        let item = spectrum_item(f.to_str().unwrap()).unwrap();
        assert_eq!(item.len(), 2);
        assert_eq!(item[1][0].value, "4");
        assert_eq!(item[1][0].origin, Origin::File(f.clone(), 2));
    }

    /// The shipped examples give the paper's 96 runs in the paper's order:
    /// record length slowest, then the work load, then the (files, users)
    /// pairs.
    #[test]
    fn the_papers_96_runs() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/iobench");
        let reclen = parse_spectrum_file(&dir.join("paper-reclen.spectrum")).unwrap();
        let pairs = parse_spectrum_file(&dir.join("paper.spectrum")).unwrap();
        let work = spectrum_item("WORK=0,50,100,200").unwrap();
        assert_eq!((reclen.len(), pairs.len()), (3, 8));
        let runs = cross_product(&[reclen, work, pairs]);
        assert_eq!(runs.len(), 96);
        let label = |i: usize| {
            runs[i - 1]
                .iter()
                .map(|a| format!("{}={}", a.key, a.value))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(label(1), "RECLEN=2048 NRECS=10240 WORK=0 FILES=4 USERS=50");
        assert_eq!(label(2), "RECLEN=2048 NRECS=10240 WORK=0 FILES=4 USERS=100");
        assert_eq!(label(6), "RECLEN=2048 NRECS=10240 WORK=0 FILES=8 USERS=200");
        assert_eq!(
            label(8),
            "RECLEN=2048 NRECS=10240 WORK=0 FILES=16 USERS=100"
        );
        assert_eq!(label(9), "RECLEN=2048 NRECS=10240 WORK=50 FILES=4 USERS=50");
        assert_eq!(
            label(32),
            "RECLEN=2048 NRECS=10240 WORK=200 FILES=16 USERS=100"
        );
        assert_eq!(label(33), "RECLEN=4096 NRECS=5120 WORK=0 FILES=4 USERS=50");
        assert_eq!(
            label(96),
            "RECLEN=8192 NRECS=2560 WORK=200 FILES=16 USERS=100"
        );
        let pairs: Vec<String> = runs[..8].iter().map(|r| show(&r[3..])).collect();
        assert_eq!(
            pairs,
            [
                "4 50", "4 100", "8 50", "8 100", "8 150", "8 200", "16 50", "16 100"
            ]
        );
        for r in &runs {
            check_run(r).unwrap();
            let c = resolve(&[], &no_env, r).unwrap();
            // 20 MB files (20 MiB: 10240 records of 2048 bytes)
            assert_eq!(c.file_bytes(), 20 << 20);
        }
    }

    #[test]
    fn numbers_print_as_typed() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(-1.0), "-1");
        assert_eq!(num(1.0 / 3.0), "0.333");
    }
}
