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
//! Every error names where the bad text is: `file:line: ...` for control
//! files, `environment variable KEY=value: ...` for the environment.

use serde::Serialize;
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
const MAX_MINUTES: f64 = 100_000.0;

/// Where a value came from, for error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Default,
    Env,
    /// A control file and a 1-based line.
    File(PathBuf, usize),
    /// `--spectrum` on the command line.
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
#[derive(Clone, Debug, PartialEq, Serialize)]
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
    /// FILEk given (k < FILES): where file k lives instead of the work directory.
    pub paths: BTreeMap<u32, String>,
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

/// A number as typed: `1`, `0.5`, `-1` (at most 3 decimals).
pub fn num(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
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
    match key {
        "RUN" => Kind::Text,
        "USERS" => Kind::Int {
            min: 1,
            max: MAX_USERS,
        },
        "FILES" => Kind::Int {
            min: 1,
            max: MAX_FILES,
        },
        "NRECS" => Kind::Int {
            min: 1,
            max: 1 << 40,
        },
        "RECLEN" => Kind::Int {
            min: 1,
            max: MAX_RECLEN,
        },
        "READS" => Kind::Int {
            min: 1,
            max: MAX_READS,
        },
        "WRITES" => Kind::Int {
            min: 0,
            max: MAX_READS,
        },
        "LOCKS" => Kind::Int {
            min: 1,
            max: 1 << 40,
        },
        "WORK" => Kind::Int {
            min: 0,
            max: 1_000_000_000,
        },
        "SLEEP" => Kind::Real {
            positive: false,
            minus_one: true,
        },
        "START" | "END" => Kind::Real {
            positive: false,
            minus_one: false,
        },
        "DURATION" => Kind::Real {
            positive: true,
            minus_one: false,
        },
        _ => Kind::Path,
    }
}

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
            if n > MAX_MINUTES {
                return Err(format!("{}: must be at most {MAX_MINUTES}", a.place()));
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
        paths: set
            .iter()
            .filter_map(|(k, a)| {
                let n: u32 = k.strip_prefix("FILE")?.parse().ok()?;
                Some((n, a.value.clone()))
            })
            .filter(|(n, _)| *n < int("FILES") as u32)
            .collect(),
    };
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
    Ok(cfg)
}

/// The real environment.
pub fn real_env(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

/// Parse one `--spectrum` item `KEY=v1,v2,...` into its assignments.
pub fn spectrum_item(item: &str) -> Result<Vec<Assignment>, String> {
    let Some((k, vals)) = item.split_once('=') else {
        return Err(format!(
            "--spectrum '{item}': expected KEY=v1,v2,... (a control file goes before --spectrum)"
        ));
    };
    let Some(key) = keyword(k.trim()).filter(|k| !k.starts_with("FILE") || k == "FILES") else {
        return Err(format!(
            "--spectrum '{item}': '{}' is not a keyword that takes numbers (USERS, FILES, NRECS, RECLEN, READS, WRITES, LOCKS, SLEEP, WORK, START, END, DURATION, RUN)",
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
        out.push(a);
    }
    Ok(out)
}

/// The cross product of spectrum items, first item varying slowest.
pub fn cross_product(items: &[Vec<Assignment>]) -> Vec<Vec<Assignment>> {
    let mut runs: Vec<Vec<Assignment>> = vec![Vec::new()];
    for values in items {
        let mut next = Vec::with_capacity(runs.len() * values.len());
        for r in &runs {
            for v in values {
                let mut x = r.clone();
                x.push(v.clone());
                next.push(x);
            }
        }
        runs = next;
    }
    runs
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

    #[test]
    fn defaults_are_the_papers() {
        let c = Config::default();
        assert_eq!(c.run, "0");
        assert_eq!(
            (c.users, c.files, c.nrecs, c.reclen, c.reads, c.writes),
            (4, 4, 1024, 2048, 1, 1)
        );
        assert_eq!(
            (c.locks, c.sleep, c.start, c.end, c.duration),
            (1000, 0.0, 0.0, 1.0, 1.0)
        );
        assert_eq!(c.work, 0);
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
            (c.users, c.files, c.nrecs, c.reclen, c.reads, c.writes),
            (8, 3, 10000, 1024, 4, 2)
        );
        assert_eq!(
            (c.locks, c.sleep, c.start, c.end, c.duration),
            (10000, 2.0, 0.5, 0.0, 5.0)
        );
        assert_eq!(c.work, 50);
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
        let e = cfg("USERS = 0;").unwrap_err();
        assert!(e.contains("between 1 and"), "{e}");
        let e = cfg("USERS = -3;").unwrap_err();
        assert!(e.contains("between 1 and"), "{e}");
        let e = cfg("SLEEP = -2;").unwrap_err();
        assert!(e.contains("-1 (no locking)"), "{e}");
        let e = cfg("DURATION = 0;").unwrap_err();
        assert!(e.contains("more than 0"), "{e}");
        let e = cfg("FI LES = 3;").unwrap_err();
        assert!(e.starts_with("ctl:1: unknown keyword 'FI'"), "{e}");
        let e = cfg("FILES 3;").unwrap_err();
        assert!(e.starts_with("ctl:1: expected '=' after 'FILES'"), "{e}");
        let e = cfg("FILES = ;").unwrap_err();
        assert!(e.contains("has no value"), "{e}");
        let e = cfg("= 3;").unwrap_err();
        assert!(e.contains("expected a keyword"), "{e}");
        let e = cfg("@").unwrap_err();
        assert!(e.contains("'@' must be followed"), "{e}");
        let e = cfg("FILES = 2; FILE0 = a; FILE1 = a;").unwrap_err();
        assert!(e.contains("same file"), "{e}");
        let e = cfg("FILES = 100000; LOCKS = 1000;").unwrap_err();
        assert!(e.contains("lock table"), "{e}");
        assert!(cfg("FILE01 = x;").unwrap_err().contains("unknown keyword"));
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
            resolve(&parse("USERS = 9;").unwrap(), &env, &o)
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

    #[test]
    fn spectrum_is_a_cross_product() {
        let items: Vec<_> = ["FILES=4,8,16", "USERS=50,100", "WORK=0,50"]
            .iter()
            .map(|s| spectrum_item(s).unwrap())
            .collect();
        let runs = cross_product(&items);
        assert_eq!(runs.len(), 12);
        let show = |r: &Vec<Assignment>| {
            r.iter()
                .map(|a| a.value.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(show(&runs[0]), "4 50 0");
        assert_eq!(show(&runs[1]), "4 50 50");
        assert_eq!(show(&runs[11]), "16 100 50");
        assert!(spectrum_item("USERS").is_err());
        assert!(
            spectrum_item("USERS=1,x")
                .unwrap_err()
                .contains("not a whole number")
        );
        assert!(spectrum_item("FILE0=a").is_err());
        assert!(spectrum_item("BOGUS=1").is_err());
    }

    #[test]
    fn numbers_print_as_typed() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(-1.0), "-1");
        assert_eq!(num(1.0 / 3.0), "0.333");
    }
}
