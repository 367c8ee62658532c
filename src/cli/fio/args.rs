//! The words after `iogauge fio`, sorted as fio's `parse_cmd_line` sorts
//! them: fio's program options (its `l_opts[]` table, [`PROGRAM`]),
//! iogauge's own flags, job options (`--name=… --rw=…`) and job files.
//!
//! fio reads its command line with `getopt_long_only`: a long option may
//! come with one dash or two, a required value may follow as the next
//! word (`--eta never`) while an optional one must be joined
//! (`--append-terse=x`), and each program option has a one-letter form
//! (`-v`, `-m`, `-o FILE`, `-ofile`). Every entry of fio's table is here,
//! either run or refused with its reason; none of them reaches the job
//! parser, which would call it an unknown job option.

use super::OutputFormat;
use crate::error::shown;
use crate::suites::fio::job;
use crate::suites::fio::value::{self, TimeUnit};
use std::path::PathBuf;
use std::time::Duration;

/// How getopt takes an option's value (fio's `has_arg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// `no_argument`.
    Nothing,
    /// `required_argument`: `--opt=value` or `--opt value`.
    Value,
    /// `optional_argument`: only `--opt=value` (or `-xvalue`) gives one.
    Maybe,
}

/// What iogauge does with one of fio's program options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Does {
    /// Runs it; the text says how (docs/fio.md's table).
    Runs(&'static str),
    /// Refuses it (exit 2); the text says why.
    Refuses(&'static str),
}

/// One entry of fio's `l_opts[]` (init.c).
#[derive(Clone, Copy, Debug)]
pub struct ProgramOption {
    pub name: &'static str,
    /// The letter of its short form (`val & 0xff` in fio's table).
    pub short: char,
    pub takes: Takes,
    pub does: Does,
}

const fn opt(name: &'static str, short: char, takes: Takes, does: Does) -> ProgramOption {
    ProgramOption {
        name,
        short,
        takes,
        does,
    }
}

use Does::{Refuses, Runs};
use Takes::{Maybe, Nothing, Value};

/// fio's program options, in the order of its `l_opts[]` (fio 3.33).
pub const PROGRAM: &[ProgramOption] = &[
    opt("output", 'o', Value, Runs("the report goes to the file")),
    opt(
        "latency-log",
        'l',
        Value,
        Refuses(
            "fio itself refuses it (deprecated); give the job option write_lat_log=NAME instead",
        ),
    ),
    opt(
        "bandwidth-log",
        'b',
        Maybe,
        Refuses(
            "fio's aggregate bandwidth log of all jobs together (agg_bw.log) is not written by iogauge; give each job write_bw_log=NAME",
        ),
    ),
    opt(
        "minimal",
        'm',
        Nothing,
        Runs("the terse format only (as --output-format=terse)"),
    ),
    opt(
        "output-format",
        'F',
        Value,
        Runs("normal, json, json+, terse (also named minimal or csv), comma-separated"),
    ),
    opt(
        "append-terse",
        'f',
        Maybe,
        Runs(
            "adds the terse format to the others (fio ignores a value given to it; so does iogauge)",
        ),
    ),
    opt(
        "version",
        'v',
        Nothing,
        Runs("prints iogauge's version (iogauge-X.Y.Z, as its reports name it) and stops"),
    ),
    opt(
        "help",
        'h',
        Nothing,
        Runs("prints iogauge fio's help and stops"),
    ),
    opt(
        "cmdhelp",
        'c',
        Maybe,
        Runs(
            "without a value or with `all`: the job options iogauge runs; with a name: whether iogauge runs it",
        ),
    ),
    opt(
        "enghelp",
        'i',
        Maybe,
        Runs(
            "without a value: the engines iogauge runs; with an engine: whether iogauge runs it and the engine options it takes",
        ),
    ),
    opt(
        "showcmd",
        's',
        Nothing,
        Runs("prints each job file as one fio command line and stops, as fio does"),
    ),
    opt(
        "readonly",
        'r',
        Nothing,
        Runs("a job that writes or trims is refused before anything runs"),
    ),
    opt(
        "eta",
        'e',
        Value,
        Runs(
            "auto: the progress bar on a terminal; always: progress lines even when stderr is no terminal; never: no progress",
        ),
    ),
    opt(
        "eta-interval",
        'O',
        Value,
        Runs("how often the progress updates (at least 250 ms, as fio)"),
    ),
    opt(
        "eta-newline",
        'E',
        Value,
        Runs(
            "progress as lines: a new line every so often (as fio's, which keeps one every so often)",
        ),
    ),
    opt(
        "debug",
        'd',
        Value,
        Refuses(
            "it traces fio's own internals (process, file, io, mem, blktrace, …), which iogauge does not have; --parse-only shows each job as iogauge resolved it",
        ),
    ),
    opt(
        "parse-only",
        'P',
        Nothing,
        Runs("reads the jobs, prints each one resolved and stops"),
    ),
    opt(
        "section",
        'x',
        Value,
        Runs("runs only the named jobs (repeatable)"),
    ),
    opt(
        "inflate-log",
        'X',
        Value,
        Refuses("iogauge writes no compressed logs (log_compression), so it has none to inflate"),
    ),
    opt(
        "alloc-size",
        'a',
        Value,
        Runs(
            "checked (KiB, as fio); iogauge's workers are threads with their state on the heap, so there is no shared-memory pool to size, and a note says so",
        ),
    ),
    opt(
        "profile",
        'p',
        Value,
        Refuses(
            "fio's built-in profiles (tiobench, act) are not run; write their jobs out as a job file",
        ),
    ),
    opt(
        "warnings-fatal",
        'w',
        Nothing,
        Runs("the notes iogauge prints about the jobs before a run stop it instead (exit 2)"),
    ),
    opt(
        "max-jobs",
        'j',
        Value,
        Runs("a run of more jobs (numjobs clones included) is refused"),
    ),
    opt(
        "terse-version",
        'V',
        Value,
        Runs("the terse format's version: 2, 3 (the default), 4 or 5"),
    ),
    opt(
        "server",
        'S',
        Maybe,
        Refuses(
            "fio's client/server mode is not part of iogauge; run iogauge on the machine to measure",
        ),
    ),
    opt(
        "server-internal",
        'N',
        Value,
        Refuses("fio's Windows server service is not part of iogauge"),
    ),
    opt(
        "daemonize",
        'D',
        Value,
        Refuses("it belongs to fio's server (--server), which iogauge does not have"),
    ),
    opt(
        "client",
        'C',
        Value,
        Refuses(
            "fio's client/server mode is not part of iogauge; run iogauge on the machine to measure",
        ),
    ),
    opt(
        "remote-config",
        'R',
        Value,
        Refuses("it sends a job file to fio's servers (--client), which iogauge does not have"),
    ),
    opt(
        "cpuclock-test",
        'T',
        Nothing,
        Refuses(
            "iogauge times with clock_gettime(CLOCK_MONOTONIC), not the CPU's cycle counter, so there is no CPU clock to test",
        ),
    ),
    opt(
        "crctest",
        'G',
        Maybe,
        Refuses("a speed test of fio's checksum code, not of storage; iogauge has no such test"),
    ),
    opt(
        "memcpytest",
        'M',
        Maybe,
        Refuses("a speed test of memory copies, not of storage; iogauge has no such test"),
    ),
    opt(
        "idle-prof",
        'I',
        Value,
        Refuses(
            "fio's idleness profiling (a calibrated idle thread per CPU) is not measured by iogauge; its report gives usr/sys CPU per job",
        ),
    ),
    opt(
        "status-interval",
        'L',
        Value,
        Refuses(
            "fio prints its whole report (latencies, percentiles) every interval; iogauge's workers publish only op and byte counts while they run, so it cannot (--eta-newline prints progress lines)",
        ),
    ),
    opt(
        "trigger-file",
        'W',
        Value,
        Refuses("fio's triggers (run a command when a file appears) are not part of iogauge"),
    ),
    opt(
        "trigger-timeout",
        'B',
        Value,
        Refuses("fio's triggers (run a command after a time) are not part of iogauge"),
    ),
    opt(
        "trigger",
        'H',
        Value,
        Refuses("fio's triggers (a command to run when one fires) are not part of iogauge"),
    ),
    opt(
        "trigger-remote",
        'J',
        Value,
        Refuses(
            "fio's remote triggers belong to its client/server mode, which iogauge does not have",
        ),
    ),
    opt(
        "aux-path",
        'K',
        Value,
        Runs(
            "checked to be a directory; fio puts its verify state files there, and iogauge writes none (verify_state_save is not supported), so a note says nothing goes there",
        ),
    ),
    opt(
        "merge-blktrace-only",
        'A',
        Nothing,
        Refuses(
            "iogauge does not replay or merge blktrace files (read_iolog, merge_blktrace_file)",
        ),
    ),
];

/// fio's program option named `name`.
pub fn program(name: &str) -> Option<&'static ProgramOption> {
    PROGRAM.iter().find(|o| o.name == name)
}

fn program_short(c: char) -> Option<&'static ProgramOption> {
    PROGRAM.iter().find(|o| o.short == c)
}

/// iogauge's own flags that may come anywhere among the words (the
/// flags of `iogauge fio` that fio's table does not hold).
const OWN_FLAGS: &[&str] = &[
    "ignore-unsupported",
    "allow-write",
    "allow-destroy",
    "force",
    "keep-files",
    "check",
];
const OWN_VALUED: &[&str] = &["json"];

/// `--eta`: when progress shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Eta {
    /// On a terminal only (fio's default).
    #[default]
    Auto,
    Always,
    Never,
}

/// Something to print instead of running (`--version`, `--help`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Info {
    Version,
    Help,
    CmdHelp(Option<String>),
    EngHelp(Option<String>),
}

/// The trailing arguments sorted: iogauge's flags, fio's program options,
/// the job files, the job options (each with its position, as
/// `--opt=value`).
#[derive(Debug, Default, PartialEq)]
pub struct Split {
    pub files: Vec<PathBuf>,
    pub options: Vec<(usize, String)>,
    pub parse_only: bool,
    pub ignore_unsupported: bool,
    /// The formats asked for here, in order.
    pub output_format: Vec<OutputFormat>,
    /// Whether `--output-format` or `--minimal` set the formats anew (fio
    /// replaces them; `--append-terse` only adds).
    pub formats_reset: bool,
    pub output: Option<PathBuf>,
    pub sections: Vec<String>,
    pub json: Option<PathBuf>,
    pub allow_write: bool,
    pub allow_destroy: bool,
    pub force: bool,
    pub keep_files: bool,
    pub check: bool,
    pub terse_version: Option<u8>,
    pub readonly: bool,
    pub eta: Eta,
    pub eta_interval: Option<Duration>,
    pub eta_newline: Option<Duration>,
    pub showcmd: bool,
    pub max_jobs: Option<u64>,
    pub warnings_fatal: bool,
    /// `--alloc-size`, KiB.
    pub alloc_size: Option<u64>,
    pub aux_path: Option<PathBuf>,
    /// The first of `--version`, `--help`, `--cmdhelp`, `--enghelp`.
    pub info: Option<Info>,
}

/// One of fio's `--output-format` names (fio's `parse_output_format`).
pub fn output_format(s: &str) -> Result<OutputFormat, String> {
    match s.trim() {
        "normal" => Ok(OutputFormat::Normal),
        "json" => Ok(OutputFormat::Json),
        "json+" => Ok(OutputFormat::JsonPlus),
        "terse" | "minimal" | "csv" => Ok(OutputFormat::Terse),
        t => Err(format!(
            "'{}' is not an output format (normal, json, json+, terse)",
            shown(t)
        )),
    }
}

/// A time of fio's `check_str_time(…, is_seconds=1)` (seconds without a
/// unit), whole milliseconds.
fn millis(name: &str, v: &str) -> Result<u64, String> {
    let ns = value::time_ns(v, TimeUnit::Seconds).map_err(|e| format!("--{name}: {e}"))?;
    Ok(ns / 1_000_000)
}

fn whole(name: &str, v: &str) -> Result<u64, String> {
    let t = v.trim();
    t.parse::<u64>()
        .map_err(|_| format!("--{name}: '{}' is not a whole number", shown(t)))
}

/// A word of the command line read as a long option (`--name[=value]`, or
/// with one dash as getopt_long_only reads it): its name and joined value.
fn long_of(body: &str) -> (&str, Option<String>) {
    match body.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (body, None),
    }
}

impl Split {
    /// Apply fio's program option `o` with its value.
    fn program(&mut self, o: &ProgramOption, v: Option<String>) -> Result<(), String> {
        let name = o.name;
        if let Refuses(why) = o.does {
            return Err(format!(
                "--{name} is a fio command-line option iogauge does not run: {why}"
            ));
        }
        let val = || v.clone().unwrap_or_default();
        match name {
            "output" => self.output = Some(PathBuf::from(val())),
            "minimal" => {
                self.output_format = vec![OutputFormat::Terse];
                self.formats_reset = true;
            }
            "output-format" => {
                self.output_format.clear();
                for f in val().split(',') {
                    let f = output_format(f)?;
                    if !self.output_format.contains(&f) {
                        self.output_format.push(f);
                    }
                }
                self.formats_reset = true;
            }
            "append-terse" => {
                if !self.output_format.contains(&OutputFormat::Terse) {
                    self.output_format.push(OutputFormat::Terse);
                }
            }
            "version" => {
                self.info.get_or_insert(Info::Version);
            }
            "help" => {
                self.info.get_or_insert(Info::Help);
            }
            "cmdhelp" => {
                self.info.get_or_insert(Info::CmdHelp(v));
            }
            "enghelp" => {
                self.info.get_or_insert(Info::EngHelp(v));
            }
            "showcmd" => self.showcmd = true,
            "readonly" => self.readonly = true,
            "eta" => {
                self.eta = match val().as_str() {
                    "auto" => Eta::Auto,
                    "always" => Eta::Always,
                    "never" => Eta::Never,
                    t => {
                        return Err(format!(
                            "--eta: '{}' is not one of auto, always, never",
                            shown(t)
                        ));
                    }
                }
            }
            "eta-interval" => {
                let ms = millis(name, &val())?;
                if ms < 250 {
                    return Err(format!(
                        "--eta-interval: {ms} ms is too short (250 ms at least, as fio)"
                    ));
                }
                self.eta_interval = Some(Duration::from_millis(ms));
            }
            "eta-newline" => {
                let ms = millis(name, &val())?;
                if ms == 0 {
                    return Err("--eta-newline: the time is too short (1 ms at least)".into());
                }
                self.eta_newline = Some(Duration::from_millis(ms));
            }
            "parse-only" => self.parse_only = true,
            "section" => {
                let s = val();
                if s == "global" {
                    return Err("--section: global cannot be the only section (fio refuses it too); name a job".into());
                }
                self.sections.push(s);
            }
            "alloc-size" => {
                let kib = whole(name, &val())?;
                if kib == 0 {
                    return Err("--alloc-size: give the pool's size in KiB, more than 0".into());
                }
                self.alloc_size = Some(kib);
            }
            "warnings-fatal" => self.warnings_fatal = true,
            "max-jobs" => {
                let n = whole(name, &val())?;
                if n == 0 {
                    return Err("--max-jobs: give at least 1".into());
                }
                self.max_jobs = Some(n);
            }
            "terse-version" => {
                let t = val();
                self.terse_version = Some(match t.trim() {
                    "2" => 2,
                    "3" => 3,
                    "4" => 4,
                    "5" => 5,
                    _ => {
                        return Err(format!(
                            "--terse-version: '{}' is not a terse version (2, 3, 4 or 5)",
                            shown(&t)
                        ));
                    }
                });
            }
            "aux-path" => self.aux_path = Some(PathBuf::from(val())),
            _ => unreachable!("every program option iogauge runs is matched: {name}"),
        }
        Ok(())
    }

    fn own(&mut self, name: &str) {
        match name {
            "ignore-unsupported" => self.ignore_unsupported = true,
            "allow-write" => self.allow_write = true,
            "allow-destroy" => self.allow_destroy = true,
            "force" => self.force = true,
            "keep-files" => self.keep_files = true,
            _ => self.check = true,
        }
    }
}

/// Sort `rest` (its first word at position `first` of the command line)
/// as fio's getopt does.
pub fn split(rest: &[String], first: usize) -> Result<Split, String> {
    let mut s = Split::default();
    let mut i = 0;
    while i < rest.len() {
        let pos = first + i;
        let a = &rest[i];
        i += 1;
        if a.is_empty() {
            return Err(format!("argument {pos} is empty; a job file is needed"));
        }
        // a job file: a word without a dash, or `-` alone
        if !a.starts_with('-') || a == "-" {
            s.files.push(PathBuf::from(a));
            continue;
        }
        let two = a.starts_with("--");
        let body = if two { &a[2..] } else { &a[1..] };
        let (name, inline) = long_of(body);
        let long_known = program(name).is_some()
            || OWN_FLAGS.contains(&name)
            || OWN_VALUED.contains(&name)
            || job::canonical(name).is_some();
        if !two && !long_known {
            // one dash and no long option of that name: fio's letters
            short_options(&mut s, body, pos, rest, &mut i)?;
            continue;
        }
        if let Some(o) = program(name) {
            let v = match (o.takes, inline) {
                (Nothing, Some(_)) => {
                    return Err(format!("--{name} takes no value"));
                }
                (Nothing, None) | (Maybe, None) => None,
                (_, Some(v)) => Some(v),
                (Value, None) if i < rest.len() => {
                    i += 1;
                    Some(rest[i - 1].clone())
                }
                (Value, None) => return Err(format!("--{name} needs a value")),
            };
            if o.takes == Value && v.as_deref().is_some_and(str::is_empty) {
                return Err(format!("--{name} needs a value"));
            }
            s.program(o, v)?;
            continue;
        }
        if OWN_FLAGS.contains(&name) {
            if inline.is_some() {
                return Err(format!("--{name} takes no value"));
            }
            s.own(name);
            continue;
        }
        if OWN_VALUED.contains(&name) {
            let v = match inline {
                Some(v) => v,
                None if i < rest.len() => {
                    i += 1;
                    rest[i - 1].clone()
                }
                None => return Err(format!("--{name} needs a path")),
            };
            s.json = Some(PathBuf::from(v));
            continue;
        }
        // a job option; `--opt value` only for the options iogauge takes
        // that are no flags (others need `--opt=value`)
        let joined = match inline {
            None if job::canonical(name).is_some()
                && !job::is_flag(name)
                && i < rest.len()
                && !rest[i].starts_with('-') =>
            {
                i += 1;
                format!("--{name}={}", rest[i - 1])
            }
            None => format!("--{name}"),
            Some(v) => format!("--{name}={v}"),
        };
        s.options.push((pos, joined));
    }
    Ok(s)
}

/// `-xyz`: fio's one-letter options, several joined where they take no
/// value; a value follows joined (`-ofile`) or, when required, as the next
/// word (`-o file`).
fn short_options(
    s: &mut Split,
    body: &str,
    pos: usize,
    rest: &[String],
    i: &mut usize,
) -> Result<(), String> {
    for (at, c) in body.char_indices() {
        let Some(o) = program_short(c) else {
            return Err(format!(
                "argument {pos}: '-{}' is neither a fio option nor a job file (fio's one-letter options: -{})",
                shown(body),
                PROGRAM.iter().map(|o| o.short).collect::<String>()
            ));
        };
        let tail = &body[at + c.len_utf8()..];
        match o.takes {
            Nothing => {
                s.program(o, None)?;
                continue;
            }
            Maybe => s.program(o, (!tail.is_empty()).then(|| tail.to_string()))?,
            Value => {
                let v = if !tail.is_empty() {
                    tail.to_string()
                } else if *i < rest.len() {
                    *i += 1;
                    rest[*i - 1].clone()
                } else {
                    return Err(format!("-{c} (--{}) needs a value", o.name));
                };
                s.program(o, Some(v))?;
            }
        }
        break;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    /// fio 3.33's `l_opts[]` (init.c; `inflate-log` with zlib,
    /// `server-internal` on Windows): name, letter, has_arg (0 none, 1
    /// required, 2 optional).
    const FIO_L_OPTS: &[(&str, char, u8)] = &[
        ("output", 'o', 1),
        ("latency-log", 'l', 1),
        ("bandwidth-log", 'b', 2),
        ("minimal", 'm', 0),
        ("output-format", 'F', 1),
        ("append-terse", 'f', 2),
        ("version", 'v', 0),
        ("help", 'h', 0),
        ("cmdhelp", 'c', 2),
        ("enghelp", 'i', 2),
        ("showcmd", 's', 0),
        ("readonly", 'r', 0),
        ("eta", 'e', 1),
        ("eta-interval", 'O', 1),
        ("eta-newline", 'E', 1),
        ("debug", 'd', 1),
        ("parse-only", 'P', 0),
        ("section", 'x', 1),
        ("inflate-log", 'X', 1),
        ("alloc-size", 'a', 1),
        ("profile", 'p', 1),
        ("warnings-fatal", 'w', 0),
        ("max-jobs", 'j', 1),
        ("terse-version", 'V', 1),
        ("server", 'S', 2),
        ("server-internal", 'N', 1),
        ("daemonize", 'D', 1),
        ("client", 'C', 1),
        ("remote-config", 'R', 1),
        ("cpuclock-test", 'T', 0),
        ("crctest", 'G', 2),
        ("memcpytest", 'M', 2),
        ("idle-prof", 'I', 1),
        ("status-interval", 'L', 1),
        ("trigger-file", 'W', 1),
        ("trigger-timeout", 'B', 1),
        ("trigger", 'H', 1),
        ("trigger-remote", 'J', 1),
        ("aux-path", 'K', 1),
        ("merge-blktrace-only", 'A', 0),
    ];

    #[test]
    fn the_table_is_fios_table() {
        assert_eq!(PROGRAM.len(), FIO_L_OPTS.len());
        for (o, (name, c, arg)) in PROGRAM.iter().zip(FIO_L_OPTS) {
            assert_eq!(o.name, *name);
            assert_eq!(o.short, *c, "{name}");
            let takes = [Nothing, Value, Maybe][*arg as usize];
            assert_eq!(o.takes, takes, "{name}");
            // no job option has a program option's name
            assert!(job::canonical(name).is_none(), "{name}");
        }
        let mut letters: Vec<char> = PROGRAM.iter().map(|o| o.short).collect();
        letters.sort();
        letters.dedup();
        assert_eq!(letters.len(), PROGRAM.len(), "letters are unique");
    }

    #[test]
    fn every_program_option_is_in_the_docs_table() {
        let doc = include_str!("../../../docs/fio.md");
        let table = &doc[doc.find("## fio's command-line options").unwrap()..];
        for o in PROGRAM {
            assert!(
                table.contains(&format!("`--{}", o.name)),
                "docs/fio.md has no row for --{}",
                o.name
            );
        }
    }

    #[test]
    fn every_run_option_is_handled_and_every_refused_one_says_why() {
        for o in PROGRAM {
            let v = match o.takes {
                Nothing => None,
                _ => Some(
                    match o.name {
                        "output-format" => "terse",
                        "eta" => "never",
                        "terse-version" => "3",
                        "section" => "a",
                        "eta-interval" | "eta-newline" => "1",
                        "alloc-size" | "max-jobs" => "8",
                        _ => "x",
                    }
                    .to_string(),
                ),
            };
            let r = Split::default().program(o, v);
            match o.does {
                Runs(how) => {
                    assert!(r.is_ok(), "{}: {r:?}", o.name);
                    assert!(!how.is_empty());
                }
                Refuses(why) => {
                    let e = r.unwrap_err();
                    assert!(e.starts_with(&format!("--{} is a fio command-line option", o.name)));
                    assert!(e.ends_with(why));
                }
            }
        }
    }

    #[test]
    fn the_trailing_words_are_sorted_as_getopt_would() {
        let s = split(
            &v(&[
                "a.fio",
                "--rw",
                "randread",
                "--parse-only",
                "--output-format=json,normal",
                "--section",
                "x",
                "--time_based",
                "b.fio",
                "--hipri",
                "c.fio",
                "--json=-",
            ]),
            2,
        )
        .unwrap();
        assert_eq!(
            s.files,
            vec![PathBuf::from("a.fio"), "b.fio".into(), "c.fio".into()]
        );
        assert_eq!(
            s.options,
            vec![
                (3, "--rw=randread".to_string()),
                (9, "--time_based".to_string()),
                (11, "--hipri".to_string())
            ]
        );
        assert!(s.parse_only);
        assert_eq!(
            s.output_format,
            vec![OutputFormat::Json, OutputFormat::Normal]
        );
        assert_eq!(s.sections, vec!["x"]);
        assert_eq!(s.json, Some(PathBuf::from("-")));
        assert!(split(&v(&["--output-format=xml"]), 1).is_err());
        assert!(split(&v(&["--section"]), 1).is_err());
        assert!(split(&v(&["--parse-only=1"]), 1).is_err());
    }

    #[test]
    fn program_options_come_anywhere_in_either_form() {
        let s = split(
            &v(&[
                "--name=t",
                "--eta-newline=2",
                "-rw=read",
                "--eta",
                "never",
                "-m",
                "--terse-version",
                "5",
                "--readonly",
                "-ofile.txt",
                "-x",
                "t",
                "-rs",
            ]),
            2,
        )
        .unwrap();
        assert_eq!(
            s.options,
            vec![(2, "--name=t".to_string()), (4, "--rw=read".to_string())]
        );
        assert_eq!(s.eta_newline, Some(Duration::from_secs(2)));
        assert_eq!(s.eta, Eta::Never);
        assert_eq!(s.output_format, vec![OutputFormat::Terse]);
        assert!(s.formats_reset && s.readonly && s.showcmd);
        assert_eq!(s.terse_version, Some(5));
        assert_eq!(s.output, Some(PathBuf::from("file.txt")));
        assert_eq!(s.sections, vec!["t"]);
        // --append-terse adds; --output-format replaces what came before
        let s = split(&v(&["--append-terse", "--output-format=json"]), 2).unwrap();
        assert_eq!(s.output_format, vec![OutputFormat::Json]);
        let s = split(&v(&["--output-format=json", "--append-terse"]), 2).unwrap();
        assert_eq!(
            s.output_format,
            vec![OutputFormat::Json, OutputFormat::Terse]
        );
        let s = split(&v(&["--output-format=csv,minimal"]), 2).unwrap();
        assert_eq!(s.output_format, vec![OutputFormat::Terse]);
        // an optional value must be joined: the next word is a job file
        let s = split(&v(&["--cmdhelp", "x.fio"]), 2).unwrap();
        assert_eq!(s.info, Some(Info::CmdHelp(None)));
        assert_eq!(s.files, vec![PathBuf::from("x.fio")]);
        let s = split(&v(&["-cbs"]), 2).unwrap();
        assert_eq!(s.info, Some(Info::CmdHelp(Some("bs".into()))));
        assert_eq!(split(&v(&["-v"]), 2).unwrap().info, Some(Info::Version));
        assert_eq!(
            split(&v(&["--eta-interval=500ms"]), 2)
                .unwrap()
                .eta_interval,
            Some(Duration::from_millis(500))
        );
    }

    #[test]
    fn bad_program_options_say_what_is_wrong() {
        let e = |a: &[&str]| split(&v(a), 2).unwrap_err();
        assert_eq!(e(&["--minimal=1"]), "--minimal takes no value");
        assert_eq!(e(&["--eta"]), "--eta needs a value");
        assert!(e(&["--eta=sometimes"]).contains("auto, always, never"));
        assert!(e(&["--terse-version=6"]).contains("2, 3, 4 or 5"));
        assert!(e(&["--eta-interval=100ms"]).contains("too short"));
        assert!(e(&["--section=global"]).contains("global"));
        assert!(e(&["--max-jobs=0"]).contains("at least 1"));
        assert!(e(&["-Z"]).contains("neither a fio option nor a job file"));
        assert!(e(&["-o"]).contains("needs a value"));
        assert!(e(&["--server"]).contains("client/server"));
        assert!(e(&["-S"]).contains("client/server"));
        assert!(
            e(&["--status-interval", "10"])
                .starts_with("--status-interval is a fio command-line option iogauge does not run")
        );
    }
}
