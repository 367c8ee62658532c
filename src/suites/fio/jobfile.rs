//! fio's job files and command-line jobs, read as fio reads them
//! (init.c `__parse_jobs_ini` and `parse_cmd_line`, options.c
//! `fio_options_parse`), into typed [`Job`]s.
//!
//! A file is lines. Everything from the first `;` or `#` of a line is a
//! comment; blank lines are skipped; white space around a line is
//! dropped. A line `[name]` starts a section; sections whose name starts
//! with `global` hold options for every job defined after them (several
//! may appear, each adding to the ones before, and they carry over into
//! the job files that follow). Any other section is a job. Inside a
//! section, each line is `option=value` or an option alone, and
//! `include FILE` reads FILE's lines (options only, no sections) as if
//! they were written there, FILE relative to the including file.
//!
//! In an option of a file, `${VAR}` becomes the environment variable's
//! value (empty when it is not set, as fio does), then `$ncpus`,
//! `$pagesize` and `$mb_memory` become the machine's figures; when one of
//! those was replaced and the value has `+ - * /` in it, the value is
//! computed in whole numbers as fio has `bc` compute it. A value that
//! starts with `(` is an expression of fio's own grammar (value.rs).
//!
//! On the command line, `--name=NAME` starts a job; the options before the
//! first `--name` (or after `--name=global`) are global. Command-line jobs
//! come first, then the files' jobs, as in fio. Every job file after the
//! first starts with a `stonewall` (its first job waits for all before).

use super::job::{self, COMMAND_LINE, Job, NotTaken, Place};
use crate::error::shown;
use std::path::{Path, PathBuf};

/// The longest line fio reads whole (its `OPT_LEN_MAX`).
pub const MAX_LINE: usize = 8191;

/// The most jobs (clones included) fio runs (its `REAL_MAX_JOBS`).
pub const MAX_JOBS: usize = 4096;

/// How deep `include` may nest.
pub const MAX_INCLUDE_DEPTH: usize = 16;

/// The machine's figures for `$ncpus`, `$pagesize`, `$mb_memory`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Machine {
    pub ncpus: u64,
    pub pagesize: u64,
    pub mb_memory: u64,
}

impl Machine {
    /// This machine, as fio asks it: CPUs configured, the page size, the
    /// physical memory in MiB.
    pub fn this() -> Machine {
        // SAFETY: sysconf reads system figures and has no preconditions.
        let (cpus, pages) = unsafe {
            (
                libc::sysconf(libc::_SC_NPROCESSORS_CONF),
                libc::sysconf(libc::_SC_PHYS_PAGES),
            )
        };
        let pagesize = rustix::param::page_size() as u64;
        Machine {
            ncpus: u64::try_from(cpus).unwrap_or(1).max(1),
            pagesize,
            mb_memory: u64::try_from(pages).unwrap_or(0) * pagesize / (1024 * 1024),
        }
    }
}

/// How to read the jobs.
pub struct Settings<'a> {
    /// `--section`: only these jobs (global sections are always read).
    pub sections: Vec<String>,
    /// List the fio options iogauge does not support instead of refusing.
    pub ignore_unsupported: bool,
    /// The environment, for `${VAR}`.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    pub machine: Machine,
    /// Reads a file's bytes (the file system, or a test's files).
    pub read: &'a dyn Fn(&Path) -> std::io::Result<Vec<u8>>,
}

/// An option left out with `--ignore-unsupported`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Ignored {
    /// The job it was given to (`global` for a global section).
    pub job: String,
    /// As written: `name=value` or `name`.
    pub option: String,
    pub at: Place,
}

/// The jobs, in the order fio runs and reports them.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Parsed {
    pub jobs: Vec<Job>,
    pub ignored: Vec<Ignored>,
    /// Each job file's sections as read, for fio's `--showcmd`: the
    /// file, and per section its name (`None`: a global one) and its
    /// options as written (`name` or `name=value`, after substitution).
    #[serde(skip)]
    pub files: Vec<(String, Vec<ReadSection>)>,
}

/// A section of a job file as read: its name (`None`: global) and options.
pub type ReadSection = (Option<String>, Vec<String>);

/// One `name[=value]` of a section, after substitution.
#[derive(Clone, Debug)]
struct Opt {
    name: String,
    value: Option<String>,
    at: Place,
}

impl Opt {
    fn text(&self) -> String {
        match &self.value {
            Some(v) => format!("{}={v}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Where the reader is: the global options so far, the jobs made, the
/// group being filled.
struct Reader<'a> {
    s: &'a Settings<'a>,
    /// Each global section's options, in order.
    globals: Vec<Vec<Opt>>,
    jobs: Vec<Job>,
    ignored: Vec<Ignored>,
    files: Vec<(String, Vec<ReadSection>)>,
    group: u32,
    prev_group_jobs: u32,
}

/// Read the command-line jobs `args` (fio's `--option=value` or `--flag`
/// words, each with its position on the command line), then each job file
/// of `files`.
pub fn parse(args: &[(usize, String)], files: &[PathBuf], s: &Settings) -> Result<Parsed, String> {
    let mut r = Reader {
        s,
        globals: Vec::new(),
        jobs: Vec::new(),
        ignored: Vec::new(),
        files: Vec::new(),
        group: 0,
        prev_group_jobs: 0,
    };
    r.command_line(args).map_err(|e| shown(&e))?;
    for (i, f) in files.iter().enumerate() {
        r.file(f, i > 0).map_err(|e| shown(&e))?;
    }
    Ok(Parsed {
        jobs: r.jobs,
        ignored: r.ignored,
        files: r.files,
    })
}

/// A line as fio keeps it: from the first `;` or `#` on dropped, white
/// space and control characters around it removed.
pub fn strip_line(line: &str) -> &str {
    let cut = line.find([';', '#']).map_or(line, |i| &line[..i]);
    cut.trim_matches(|c: char| c.is_whitespace() || c.is_control())
}

impl Reader<'_> {
    fn command_line(&mut self, args: &[(usize, String)]) -> Result<(), String> {
        // the section being filled: None = global
        let mut current: Option<(String, Place, Vec<Opt>)> = None;
        let mut global: Vec<Opt> = Vec::new();
        let mut skipping = false;
        for (pos, a) in args {
            let at = Place {
                file: COMMAND_LINE.into(),
                line: *pos,
            };
            let Some(body) = a.strip_prefix("--") else {
                return Err(format!("{at}: '{a}' is not a fio option (--name=value)"));
            };
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (body.to_string(), None),
            };
            if name == "name" {
                let Some(v) = value.filter(|v| !v.is_empty()) else {
                    return Err(format!("{at}: --name needs a job name"));
                };
                if let Some((n, p, opts)) = current.take() {
                    self.add_section(&n, p, opts, false)?;
                }
                if !global.is_empty() {
                    self.add_global(std::mem::take(&mut global))?;
                }
                skipping = !v.starts_with("global") && self.skip(&v);
                if !v.starts_with("global") && !skipping {
                    current = Some((v, at, Vec::new()));
                }
                continue;
            }
            if skipping {
                continue;
            }
            let opt = Opt { name, value, at };
            match &mut current {
                Some((_, _, opts)) => opts.push(opt),
                None => global.push(opt),
            }
        }
        if let Some((n, p, opts)) = current.take() {
            self.add_section(&n, p, opts, false)?;
        }
        if !global.is_empty() {
            self.add_global(global)?;
        }
        Ok(())
    }

    fn skip(&self, name: &str) -> bool {
        !self.s.sections.is_empty()
            && !name.starts_with("global")
            && !self.s.sections.iter().any(|s| s == name)
    }

    fn file(&mut self, path: &Path, stonewall: bool) -> Result<(), String> {
        let shown_path = path.display().to_string();
        let bytes = (self.s.read)(path)
            .map_err(|e| format!("{shown_path}: cannot read the job file: {e}"))?;
        let mut stonewall = stonewall;
        let mut current: Option<(String, Place, Vec<Opt>, bool)> = None;
        let mut skipping = false;
        let mut stack = vec![(canonical(path), shown_path.clone())];
        self.files.push((shown_path.clone(), Vec::new()));
        for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let at = Place {
                file: shown_path.clone(),
                line: n + 1,
            };
            let line = line_text(raw, &at)?;
            let p = strip_line(line);
            if p.is_empty() {
                continue;
            }
            if p.starts_with('[') {
                if let Some((name, place, opts, global)) = current.take() {
                    self.end_section(&name, place, opts, global, &mut stonewall)?;
                }
                let name = section_name(p).ok_or_else(|| {
                    format!("{at}: a section header is [name], at most 255 characters")
                })?;
                skipping = self.skip(name);
                if !skipping {
                    current = Some((name.to_string(), at, Vec::new(), name.starts_with("global")));
                }
                continue;
            }
            if skipping {
                continue;
            }
            let Some((_, _, opts, _)) = &mut current else {
                return Err(format!(
                    "{at}: '{}' is outside of a [section]; a job file starts with [global] or [jobname]",
                    shown_start(p)
                ));
            };
            if let Some(inc) = include_target(p) {
                self.include(path, inc, &at, opts, &mut stack)?;
                continue;
            }
            opts.push(self.option(p, at)?);
        }
        if let Some((name, place, opts, global)) = current.take() {
            self.end_section(&name, place, opts, global, &mut stonewall)?;
        }
        Ok(())
    }

    fn end_section(
        &mut self,
        name: &str,
        at: Place,
        opts: Vec<Opt>,
        global: bool,
        stonewall: &mut bool,
    ) -> Result<(), String> {
        if let Some((_, sections)) = self.files.last_mut() {
            let texts = opts.iter().map(Opt::text).collect();
            sections.push(((!global).then(|| name.to_string()), texts));
        }
        if global {
            return self.add_global(opts);
        }
        let first = std::mem::take(stonewall);
        self.add_section(name, at, opts, first)
    }

    /// `include`'s file: its lines are options of the section; it may
    /// include others, not itself or one including it.
    fn include(
        &mut self,
        from: &Path,
        name: &str,
        at: &Place,
        opts: &mut Vec<Opt>,
        stack: &mut Vec<(PathBuf, String)>,
    ) -> Result<(), String> {
        let name_path = Path::new(name);
        // relative to the including file; where no such file is there, as
        // given (fio tries both, the other way round)
        let beside = match from.parent() {
            Some(d) if name_path.is_relative() => d.join(name_path),
            _ => name_path.to_path_buf(),
        };
        let (path, bytes) = match (self.s.read)(&beside) {
            Ok(b) => (beside, b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && beside != name_path => {
                match (self.s.read)(name_path) {
                    Ok(b) => (name_path.to_path_buf(), b),
                    Err(_) => {
                        return Err(format!(
                            "{at}: cannot read the included file {}: {e}",
                            beside.display()
                        ));
                    }
                }
            }
            Err(e) => {
                return Err(format!(
                    "{at}: cannot read the included file {}: {e}",
                    beside.display()
                ));
            }
        };
        let key = canonical(&path);
        if stack.iter().any(|(k, _)| *k == key) {
            return Err(format!(
                "{at}: include {name} includes itself (through {})",
                stack
                    .iter()
                    .map(|(_, shown)| shown.as_str())
                    .collect::<Vec<_>>()
                    .join(" → ")
            ));
        }
        if stack.len() > MAX_INCLUDE_DEPTH {
            return Err(format!(
                "{at}: includes nest more than {MAX_INCLUDE_DEPTH} deep"
            ));
        }
        let shown_path = path.display().to_string();
        stack.push((key, shown_path.clone()));
        for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let at = Place {
                file: shown_path.clone(),
                line: n + 1,
            };
            let p = strip_line(line_text(raw, &at)?);
            if p.is_empty() {
                continue;
            }
            if p.starts_with('[') {
                return Err(format!(
                    "{at}: an included file holds options only, no [section]"
                ));
            }
            if let Some(inc) = include_target(p) {
                self.include(&path, inc, &at, opts, stack)?;
                continue;
            }
            opts.push(self.option(p, at)?);
        }
        stack.pop();
        Ok(())
    }

    /// One option line of a file, after fio's substitutions.
    fn option(&self, line: &str, at: Place) -> Result<Opt, String> {
        let subst = substitute_env(line, self.s.env);
        let subst = keywords(&subst, &self.s.machine).map_err(|e| format!("{at}: {e}"))?;
        let (name, value) = match subst.split_once('=') {
            Some((n, v)) => (strip_line(n).to_string(), Some(v.to_string())),
            None => (subst.trim().to_string(), None),
        };
        Ok(Opt { name, value, at })
    }

    /// A global section: its options apply to every job after it. They are
    /// checked now, as fio does.
    fn add_global(&mut self, opts: Vec<Opt>) -> Result<(), String> {
        let mut probe = Job::new(
            "global",
            opts.first().map_or_else(no_place, |o| o.at.clone()),
        );
        // `name` in a global section names no job: each job's own name
        // (its section) replaces it, as in fio
        let kept: Vec<Opt> = self
            .apply_all(&mut probe, &opts, "global")?
            .into_iter()
            .filter(|o| o.name != "name")
            .collect();
        self.globals.push(kept);
        Ok(())
    }

    /// A job section (or `--name`): fio's defaults, the global options so
    /// far, its own; then its numjobs clones.
    fn add_section(
        &mut self,
        name: &str,
        at: Place,
        opts: Vec<Opt>,
        first_of_file: bool,
    ) -> Result<(), String> {
        let mut j = Job::new(name, at.clone());
        for g in self.globals.clone() {
            self.apply_all(&mut j, &g, name)?;
        }
        self.apply_all(&mut j, &opts, name)?;
        self.foreign_engine_options(&mut j)?;
        if first_of_file && !j.stonewall {
            j.stonewall = true;
            j.origin.insert(
                "stonewall",
                (
                    at.clone(),
                    "the first job of a job file after the first".into(),
                ),
            );
        }
        // wait_for names one job defined before this one
        if let Some(w) = &j.wait_for {
            let place = j.origin.get("wait_for").map_or(at.clone(), |o| o.0.clone());
            if w == &j.name {
                return Err(format!(
                    "{place}: wait_for: a job cannot wait for itself ({w})"
                ));
            }
            let n = self
                .jobs
                .iter()
                .filter(|x| x.clone == 0 && &x.name == w)
                .count();
            if n == 0 {
                return Err(format!(
                    "{place}: wait_for: no job named '{w}' is defined before this one"
                ));
            }
            if n > 1 {
                return Err(format!(
                    "{place}: wait_for: several jobs are named '{w}'; give them distinct names"
                ));
            }
        }
        let total = self.jobs.len() + j.numjobs as usize;
        if total > MAX_JOBS {
            let place = j.origin.get("numjobs").map_or(at.clone(), |o| o.0.clone());
            return Err(format!(
                "{place}: {total} jobs in all; fio and iogauge run at most {MAX_JOBS}"
            ));
        }
        // fio adds the job, then its clones from the last down to 1
        let n = j.numjobs;
        let mut clones = vec![j.clone()];
        for k in (1..n).rev() {
            let mut c = j.clone();
            c.clone = k;
            c.stonewall = false;
            c.new_group = false;
            c.origin.remove("stonewall");
            c.origin.remove("new_group");
            clones.push(c);
        }
        for mut c in clones {
            if (c.stonewall || c.new_group) && self.prev_group_jobs > 0 {
                self.prev_group_jobs = 0;
                self.group += 1;
            }
            c.group = self.group;
            self.prev_group_jobs += 1;
            self.jobs.push(c);
        }
        Ok(())
    }

    /// Refuse the options of another engine than the job's (pvsync2's
    /// `hipri` on a psync job), or leave them out and list them with
    /// `--ignore-unsupported`, as any option iogauge does not support.
    fn foreign_engine_options(&mut self, j: &mut Job) -> Result<(), String> {
        for (name, at, text) in j.foreign_engine_options() {
            if !self.s.ignore_unsupported {
                return Err(format!(
                    "{at}: fio option '{name}' is not supported by iogauge with ioengine={} (it is taken for {}) (--ignore-unsupported lists it and goes on)",
                    j.ioengine.name(),
                    job::ENGINE_OWN
                        .iter()
                        .filter(|o| o.0 == name)
                        .map(|o| o.1.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            let i = Ignored {
                job: j.name.clone(),
                option: text,
                at,
            };
            if !self.ignored.contains(&i) {
                self.ignored.push(i);
            }
            j.unset_engine_option(name);
        }
        Ok(())
    }

    /// Apply `opts` to `j`, `kb_base` first (fio sorts it before the
    /// others); returns the options applied (without the ignored ones).
    fn apply_all(&mut self, j: &mut Job, opts: &[Opt], job: &str) -> Result<Vec<Opt>, String> {
        let mut kept = Vec::new();
        let (kb, rest): (Vec<&Opt>, Vec<&Opt>) = opts.iter().partition(|o| o.name == "kb_base");
        for o in kb.into_iter().chain(rest) {
            if o.name == "name" {
                match o.value.as_deref().map(str::trim) {
                    Some(v) if !v.is_empty() => j.name = v.to_string(),
                    _ => return Err(format!("{}: name needs a value", o.at)),
                }
                kept.push(o.clone());
                continue;
            }
            match job::classify(&o.name) {
                Ok(_) => {
                    j.apply(&o.name, o.value.as_deref(), &o.at)
                        .map_err(|e| format!("{}: {}: {e}", o.at, o.name))?;
                    kept.push(o.clone());
                }
                Err(NotTaken::Unsupported) if self.s.ignore_unsupported => {
                    let i = Ignored {
                        job: job.to_string(),
                        option: o.text(),
                        at: o.at.clone(),
                    };
                    if !self.ignored.contains(&i) {
                        self.ignored.push(i);
                    }
                }
                Err(NotTaken::Unsupported) => {
                    return Err(format!(
                        "{}: fio option '{}' is not supported by iogauge (--ignore-unsupported lists it and goes on)",
                        o.at, o.name
                    ));
                }
                Err(NotTaken::Unknown) => {
                    return Err(format!("{}: unknown fio option '{}'", o.at, o.name));
                }
            }
        }
        Ok(kept)
    }
}

fn no_place() -> Place {
    Place {
        file: String::new(),
        line: 0,
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// A line's text: UTF-8, at most [`MAX_LINE`] bytes.
fn line_text<'a>(raw: &'a [u8], at: &Place) -> Result<&'a str, String> {
    if raw.len() > MAX_LINE {
        return Err(format!(
            "{at}: a line of {} bytes; fio reads at most {MAX_LINE}",
            raw.len()
        ));
    }
    std::str::from_utf8(raw).map_err(|_| format!("{at}: not UTF-8 text"))
}

fn shown_start(s: &str) -> String {
    crate::error::shown_start(s, 60)
}

/// `[name]`'s name: not empty, at most 255 characters (fio's limit).
fn section_name(p: &str) -> Option<&str> {
    let name = p.strip_prefix('[')?.strip_suffix(']')?;
    (!name.is_empty() && name.len() <= 255).then_some(name)
}

/// `include FILE`'s file.
fn include_target(p: &str) -> Option<&str> {
    let rest = p.strip_prefix("include")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let f = rest.trim();
    (!f.is_empty()).then_some(f)
}

/// `${VAR}` replaced by the variable's value, or by nothing when it is
/// not set (fio's `fio_option_dup_subs`); `${}` stays as written.
pub fn substitute_env(s: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) if j > 0 => {
                if let Some(v) = env(&after[..j]) {
                    out.push_str(&v);
                }
                rest = &after[j + 1..];
            }
            _ => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// fio's reserved words replaced, and the value computed when one was
/// and it has arithmetic (fio's `fio_keyword_replace` and `bc_calc`).
pub fn keywords(s: &str, m: &Machine) -> Result<String, String> {
    let words = [
        ("$pagesize", m.pagesize),
        ("$mb_memory", m.mb_memory),
        ("$ncpus", m.ncpus),
    ];
    let mut out = s.to_string();
    let mut replaced = false;
    for (w, v) in words {
        if out.contains(w) {
            out = out.replace(w, &v.to_string());
            replaced = true;
        }
    }
    if !replaced || !out.contains(['+', '-', '*', '/']) || out.contains('\'') {
        return Ok(out);
    }
    let Some((name, value)) = out.split_once('=') else {
        return Ok(out);
    };
    let n = bc(value).map_err(|e| format!("{name}: fio has bc compute '{value}', which {e}"))?;
    Ok(format!("{name}={n}"))
}

/// Whole-number arithmetic as `bc` does it (scale 0): `+ - * / % ^`,
/// parentheses, unary minus; anything else is an error.
pub fn bc(s: &str) -> Result<i128, String> {
    let toks: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    let mut p = Bc {
        t: &toks,
        i: 0,
        depth: 0,
    };
    let v = p.sum()?;
    if p.i != toks.len() {
        return Err("bc cannot read (no units, only numbers and + - * / % ^)".into());
    }
    Ok(v)
}

struct Bc<'a> {
    t: &'a [char],
    i: usize,
    depth: u32,
}

impl Bc<'_> {
    fn peek(&self) -> Option<char> {
        self.t.get(self.i).copied()
    }
    fn err() -> String {
        "bc cannot read (no units, only numbers and + - * / % ^)".into()
    }
    fn big() -> String {
        "is too large".into()
    }
    fn sum(&mut self) -> Result<i128, String> {
        let mut v = self.product()?;
        while let Some(c @ ('+' | '-')) = self.peek() {
            self.i += 1;
            let r = self.product()?;
            v = if c == '+' {
                v.checked_add(r)
            } else {
                v.checked_sub(r)
            }
            .ok_or_else(Self::big)?;
        }
        Ok(v)
    }
    fn product(&mut self) -> Result<i128, String> {
        let mut v = self.power()?;
        while let Some(c @ ('*' | '/' | '%')) = self.peek() {
            self.i += 1;
            let r = self.power()?;
            v = match c {
                '*' => v.checked_mul(r).ok_or_else(Self::big)?,
                _ if r == 0 => return Err("divides by zero".into()),
                '/' => v / r,
                _ => v % r,
            };
        }
        Ok(v)
    }
    fn power(&mut self) -> Result<i128, String> {
        let b = self.unary()?;
        if self.peek() == Some('^') {
            self.i += 1;
            let e = self.power()?;
            if e < 0 {
                return Ok(0);
            }
            let e = u32::try_from(e).map_err(|_| Self::big())?;
            return b.checked_pow(e).ok_or_else(Self::big);
        }
        Ok(b)
    }
    fn unary(&mut self) -> Result<i128, String> {
        self.depth += 1;
        if self.depth > 200 {
            return Err("nests too deeply".into());
        }
        let r = match self.peek() {
            Some('-') => {
                self.i += 1;
                Ok(-self.unary()?)
            }
            Some('(') => {
                self.i += 1;
                let v = self.sum()?;
                if self.peek() != Some(')') {
                    return Err(Self::err());
                }
                self.i += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.i;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.i += 1;
                }
                let s: String = self.t[start..self.i].iter().collect();
                s.parse::<i128>().map_err(|_| Self::big())
            }
            _ => Err(Self::err()),
        };
        self.depth -= 1;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::fio::job::{IoEngine, RwKind};
    use std::collections::HashMap;

    const M: Machine = Machine {
        ncpus: 4,
        pagesize: 4096,
        mb_memory: 8000,
    };

    fn run(files: &[(&str, &str)], args: &[&str], env: &[(&str, &str)]) -> Result<Parsed, String> {
        run_with(files, args, env, &[], false)
    }

    fn run_with(
        files: &[(&str, &str)],
        args: &[&str],
        env: &[(&str, &str)],
        sections: &[&str],
        ignore: bool,
    ) -> Result<Parsed, String> {
        let fs: HashMap<PathBuf, Vec<u8>> = files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.as_bytes().to_vec()))
            .collect();
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let read = |p: &Path| {
            fs.get(p)
                .cloned()
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
        };
        let getenv = |k: &str| env.get(k).cloned();
        let s = Settings {
            sections: sections.iter().map(|s| s.to_string()).collect(),
            ignore_unsupported: ignore,
            env: &getenv,
            machine: M,
            read: &read,
        };
        let args: Vec<(usize, String)> = args
            .iter()
            .enumerate()
            .map(|(i, s)| (i + 1, s.to_string()))
            .collect();
        // the first files are the job files; the rest only included
        let jobs: Vec<PathBuf> = files
            .iter()
            .filter(|(p, _)| p.ends_with(".fio"))
            .map(|(p, _)| PathBuf::from(p))
            .collect();
        parse(&args, &jobs, &s)
    }

    #[test]
    fn sections_globals_and_comments() {
        let p = run(
            &[(
                "d/a.fio",
                "; a comment\n# another\n\n[global]\nbs=8k ; inline\nioengine=libaio\n\
                 [one]\nrw=randread\n[global]\nbs=16k\n[two]\n  iodepth = 4 \n",
            )],
            &[],
            &[],
        )
        .unwrap();
        assert_eq!(p.jobs.len(), 2);
        let (a, b) = (&p.jobs[0], &p.jobs[1]);
        assert_eq!(
            (a.name.as_str(), a.bs.read, a.ioengine),
            ("one", 8192, IoEngine::Libaio)
        );
        assert_eq!(a.rw.kind, RwKind::RandRead);
        // the second global applies to the jobs after it only
        assert_eq!((b.name.as_str(), b.bs.read, b.iodepth), ("two", 16384, 4));
        assert_eq!(a.origin["bs"].0.to_string(), "d/a.fio:5");
        assert_eq!(b.origin["bs"].0.to_string(), "d/a.fio:10");
        assert_eq!(b.origin["iodepth"].0.to_string(), "d/a.fio:12");
        assert_eq!(a.at.to_string(), "d/a.fio:7");
    }

    #[test]
    fn errors_name_the_place() {
        let e = run(&[("a.fio", "[j]\nbs=4k\ncpumask=0xf\n")], &[], &[]).unwrap_err();
        assert!(
            e.starts_with("a.fio:3: fio option 'cpumask' is not supported by iogauge"),
            "{e}"
        );
        let e = run(&[("a.fio", "[j]\nblocksz=4k\n")], &[], &[]).unwrap_err();
        assert_eq!(e, "a.fio:2: unknown fio option 'blocksz'");
        let e = run(&[("a.fio", "bs=4k\n[j]\n")], &[], &[]).unwrap_err();
        assert!(
            e.starts_with("a.fio:1: 'bs=4k' is outside of a [section]"),
            "{e}"
        );
        let e = run(&[("a.fio", "[j]\n\nbs=4q\n")], &[], &[]).unwrap_err();
        assert!(e.starts_with("a.fio:3: bs: '4q'"), "{e}");
        let e = run(&[("a.fio", "[j\n")], &[], &[]).unwrap_err();
        assert!(e.starts_with("a.fio:1: a section header"), "{e}");
        let e = run(&[("a.fio", "[j]\nbs=\u{1b}[2J\n")], &[], &[]).unwrap_err();
        assert!(!e.contains('\u{1b}'), "{e}");
        let bad = [("a.fio", "[j]\n")];
        let mut fs = bad.to_vec();
        let long = format!("[j]\nbs={}\n", "1".repeat(9000));
        fs[0].1 = &long;
        assert!(
            run(&fs, &[], &[])
                .unwrap_err()
                .starts_with("a.fio:2: a line of")
        );
    }

    #[test]
    fn ignore_unsupported_lists_them() {
        let p = run_with(
            &[(
                "a.fio",
                "[global]\nsqthread_poll\n[j]\ncpumask=0xf\nbs=8k\n",
            )],
            &[],
            &[],
            &[],
            true,
        )
        .unwrap();
        assert_eq!(p.jobs[0].bs.read, 8192);
        let got: Vec<String> = p
            .ignored
            .iter()
            .map(|i| format!("{} {} {}", i.job, i.option, i.at))
            .collect();
        assert_eq!(
            got,
            vec!["global sqthread_poll a.fio:2", "j cpumask=0xf a.fio:4"]
        );
        // another engine's option is left out and listed too; with its
        // engine it is taken
        let two = "[global]\nhipri\nnowait=1\n[a]\n[b]\nioengine=pvsync2\n";
        let p = run_with(&[("a.fio", two)], &[], &[], &[], true).unwrap();
        let got: Vec<String> = p
            .ignored
            .iter()
            .map(|i| format!("{} {} {}", i.job, i.option, i.at))
            .collect();
        assert_eq!(got, vec!["a hipri a.fio:2", "a nowait=1 a.fio:3"]);
        assert!(!p.jobs[0].hipri && !p.jobs[0].nowait);
        assert!(p.jobs[1].hipri && p.jobs[1].nowait);
        let e = run_with(&[("a.fio", two)], &[], &[], &[], false).unwrap_err();
        assert!(
            e.starts_with("a.fio:2: fio option 'hipri' is not supported by iogauge with ioengine=psync (it is taken for pvsync2)"),
            "{e}"
        );
        // unknown names are refused all the same
        assert!(run_with(&[("a.fio", "[j]\nxyz=1\n")], &[], &[], &[], true).is_err());
    }

    #[test]
    fn includes() {
        let p = run(
            &[
                (
                    "d/a.fio",
                    "[global]\ninclude g.inc\n[j]\nrw=write\ninclude sub/j.inc\n",
                ),
                ("d/g.inc", "bs=8k\n"),
                ("d/sub/j.inc", "iodepth=8\ninclude k.inc\n"),
                ("d/sub/k.inc", "numjobs=2\n"),
            ],
            &[],
            &[],
        )
        .unwrap();
        assert_eq!(p.jobs.len(), 2);
        assert_eq!((p.jobs[0].bs.read, p.jobs[0].iodepth), (8192, 8));
        assert_eq!(p.jobs[0].origin["numjobs"].0.to_string(), "d/sub/k.inc:1");
        let e = run(
            &[
                ("d/a.fio", "[j]\ninclude a.inc\n"),
                ("d/a.inc", "include a.inc\n"),
            ],
            &[],
            &[],
        )
        .unwrap_err();
        assert!(
            e.starts_with("d/a.inc:1: include a.inc includes itself"),
            "{e}"
        );
        let e = run(
            &[("d/a.fio", "[j]\ninclude b.inc\n"), ("d/b.inc", "[x]\n")],
            &[],
            &[],
        )
        .unwrap_err();
        assert!(
            e.starts_with("d/b.inc:1: an included file holds options only"),
            "{e}"
        );
        let e = run(&[("d/a.fio", "[j]\ninclude none.inc\n")], &[], &[]).unwrap_err();
        assert!(
            e.starts_with("d/a.fio:2: cannot read the included file d/none.inc"),
            "{e}"
        );
    }

    #[test]
    fn environment_and_keywords() {
        let p = run(
            &[(
                "a.fio",
                "[j]\nsize=${SIZE}\nnumjobs=$ncpus\nbs=$pagesize\nfilename=/t/${UNSET}x\niodepth=$ncpus*2\n",
            )],
            &[],
            &[("SIZE", "64m")],
        )
        .unwrap();
        let j = &p.jobs[0];
        assert_eq!(
            j.size,
            Some(crate::suites::fio::value::SizeOrPct::Bytes(64 << 20))
        );
        assert_eq!(j.numjobs, 4);
        assert_eq!(j.bs.read, 4096);
        assert_eq!(j.filename.as_deref(), Some("/t/x"));
        assert_eq!(j.iodepth, 8);
        assert_eq!(p.jobs.len(), 4);
        // bc reads no units
        let e = run(&[("a.fio", "[j]\nsize=$mb_memory*2m\n")], &[], &[]).unwrap_err();
        assert!(e.contains("bc"), "{e}");
        assert_eq!(bc("2+3*4").unwrap(), 14);
        assert_eq!(bc("(2+3)*4").unwrap(), 20);
        assert_eq!(bc("2^10").unwrap(), 1024);
        assert_eq!(bc("7/2").unwrap(), 3);
        assert_eq!(bc("-3+1").unwrap(), -2);
        assert!(bc("1/0").is_err());
        assert_eq!(substitute_env("a${}b${X", &|_| None), "a${}b${X");
    }

    #[test]
    fn clones_groups_and_waits() {
        let p = run(
            &[(
                "a.fio",
                "[a]\nnumjobs=3\n[b]\n[c]\nstonewall\n[d]\nnew_group\nwait_for=a\n[e]\n",
            )],
            &[],
            &[],
        )
        .unwrap();
        let got: Vec<(String, u32, u32)> = p
            .jobs
            .iter()
            .map(|j| (j.name.clone(), j.clone, j.group))
            .collect();
        let want: Vec<(String, u32, u32)> = [
            ("a", 0, 0),
            ("a", 2, 0),
            ("a", 1, 0),
            ("b", 0, 0),
            ("c", 0, 1),
            ("d", 0, 2),
            ("e", 0, 2),
        ]
        .iter()
        .map(|(n, c, g)| (n.to_string(), *c, *g))
        .collect();
        assert_eq!(got, want);
        assert_eq!(p.jobs[1].file_names(), vec!["a.2.0"]);
        let e = run(&[("a.fio", "[a]\nwait_for=b\n[b]\n")], &[], &[]).unwrap_err();
        assert!(e.starts_with("a.fio:2: wait_for: no job named 'b'"), "{e}");
        let e = run(&[("a.fio", "[a]\nwait_for=a\n")], &[], &[]).unwrap_err();
        assert!(e.contains("cannot wait for itself"), "{e}");
        let e = run(&[("a.fio", "[a]\nnumjobs=5000\n")], &[], &[]).unwrap_err();
        assert!(e.starts_with("a.fio:2: 5000 jobs"), "{e}");
    }

    #[test]
    fn several_files_and_the_command_line() {
        let p = run(
            &[
                ("a.fio", "[a]\n[b]\n"),
                ("b.fio", "[global]\nbs=8k\n[c]\n[d]\n"),
            ],
            &[
                "--bs=2k",
                "--name=x",
                "--rw=randwrite",
                "--time_based",
                "--name=y",
            ],
            &[],
        )
        .unwrap();
        let names: Vec<&str> = p.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["x", "y", "a", "b", "c", "d"]);
        // the command line's global options reach the files' jobs
        assert_eq!(p.jobs[2].bs.read, 2048);
        assert_eq!(p.jobs[4].bs.read, 8192);
        assert!(p.jobs[0].time_based);
        assert_eq!(p.jobs[0].rw.kind, RwKind::RandWrite);
        assert_eq!(
            p.jobs[0].origin["rw"].0.to_string(),
            "command line, argument 3"
        );
        // each job file after the first starts with a stonewall
        assert!(!p.jobs[2].stonewall);
        assert!(p.jobs[4].stonewall && !p.jobs[5].stonewall);
        assert_eq!(p.jobs[4].group, 1);
        let e = run(&[], &["--name=x", "--bogus=1"], &[]).unwrap_err();
        assert_eq!(e, "command line, argument 2: unknown fio option 'bogus'");
    }

    #[test]
    fn sections_can_be_chosen() {
        let p = run_with(
            &[("a.fio", "[global]\nbs=8k\n[a]\n[b]\nbogus=1\n[c]\n")],
            &["--name=b2"],
            &[],
            &["a", "c"],
            false,
        )
        .unwrap();
        let names: Vec<&str> = p.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(p.jobs[0].bs.read, 8192);
    }

    #[test]
    fn a_global_section_name_is_a_prefix_and_name_renames() {
        let p = run(&[("a.fio", "[global-x]\nbs=8k\n[j]\nname=k\n")], &[], &[]).unwrap();
        assert_eq!(p.jobs.len(), 1);
        assert_eq!((p.jobs[0].name.as_str(), p.jobs[0].bs.read), ("k", 8192));
    }

    #[test]
    fn lines_are_stripped_as_fio_does() {
        assert_eq!(strip_line("  bs=4k ; x # y"), "bs=4k");
        assert_eq!(strip_line("bs=4k\r"), "bs=4k");
        assert_eq!(strip_line("# bs"), "");
        assert_eq!(strip_line("filename=/a#b"), "filename=/a");
    }
}
