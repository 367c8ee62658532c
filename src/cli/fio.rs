//! `iogauge fio [OPTIONS] [JOBFILE…] [--option=value …]`: fio's job files
//! and command-line jobs.
//!
//! clap takes iogauge's own flags and leaves everything else, job files
//! and fio's `--option=value` words alike, in one trailing list, which
//! [`split`] sorts as fio's getopt would (flags may come anywhere; words
//! without `--` are job files).

use super::common::Status;
use crate::error::{UsageError, shown};
use crate::suites::fio::job;
use crate::suites::fio::jobfile::{self, Machine, Settings};
use anyhow::Result;
use std::io::Write;
use std::path::PathBuf;

/// fio's job files (and fio's --name=… --rw=… command-line form), read as fio reads them: sections, [global], include, ${ENV}, $ncpus, size and time suffixes, expressions, stonewall, new_group, wait_for, numjobs. Every fio option iogauge does not run is named with its file:line and refused (or listed, with --ignore-unsupported).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Read the jobs, print each one resolved (every option, its value and where it came from) and stop. fio's --parse-only prints nothing; this one shows the parse.
    #[arg(long = "parse-only")]
    pub parse_only: bool,
    /// fio's output formats, comma-separated: normal, json, json+, terse.
    #[arg(long = "output-format", value_name = "FORMAT", default_value = "normal", value_parser = output_formats)]
    pub output_format: Vec<OutputFormat>,
    /// Write the report to FILE instead of standard output (fio's --output).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Run only the job NAME of the job files (repeat for more; global sections are always read).
    #[arg(long, value_name = "NAME")]
    pub section: Vec<String>,
    /// List the fio options iogauge does not support (with their file:line) and go on without them, instead of refusing the jobs.
    #[arg(long = "ignore-unsupported")]
    pub ignore_unsupported: bool,
    /// Write iogauge's own result as JSON to PATH; with --parse-only, the resolved jobs.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Job files, then fio options as --option=value (each --name=NAME starts a job; the options before the first --name are global).
    #[arg(
        value_name = "JOBFILE|--option=value",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub rest: Vec<String>,
}

/// One of fio's `--output-format`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum OutputFormat {
    #[serde(rename = "normal")]
    Normal,
    #[serde(rename = "json")]
    Json,
    #[serde(rename = "json+")]
    JsonPlus,
    #[serde(rename = "terse")]
    Terse,
}

fn output_format(s: &str) -> Result<OutputFormat, String> {
    match s.trim() {
        "normal" => Ok(OutputFormat::Normal),
        "json" => Ok(OutputFormat::Json),
        "json+" => Ok(OutputFormat::JsonPlus),
        "terse" => Ok(OutputFormat::Terse),
        t => Err(format!(
            "'{}' is not an output format (normal, json, json+, terse)",
            shown(t)
        )),
    }
}

/// `--output-format`'s list; clap collects one value per flag, and each
/// value may hold several, comma-separated.
fn output_formats(s: &str) -> Result<OutputFormat, String> {
    // the first of the list here; `split` reads the others again
    let mut it = s.split(',');
    let first = output_format(it.next().unwrap_or(""))?;
    for f in it {
        output_format(f)?;
    }
    Ok(first)
}

/// The trailing arguments sorted: iogauge's flags, the job files, fio's
/// options (each with its position, `--opt value` joined as `--opt=value`
/// for options iogauge takes).
#[derive(Debug, Default, PartialEq)]
pub struct Split {
    pub files: Vec<PathBuf>,
    pub options: Vec<(usize, String)>,
    pub parse_only: bool,
    pub ignore_unsupported: bool,
    pub output_format: Vec<OutputFormat>,
    pub output: Option<PathBuf>,
    pub sections: Vec<String>,
    pub json: Option<PathBuf>,
}

/// Sort `rest` (its first word at position `first`) as fio's getopt does.
pub fn split(rest: &[String], first: usize) -> Result<Split, String> {
    let mut s = Split::default();
    let mut i = 0;
    while i < rest.len() {
        let pos = first + i;
        let a = &rest[i];
        i += 1;
        let Some(body) = a.strip_prefix("--") else {
            if a.is_empty() {
                return Err(format!("argument {pos} is empty; a job file is needed"));
            }
            s.files.push(PathBuf::from(a));
            continue;
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None if i < rest.len() => {
                    i += 1;
                    Ok(rest[i - 1].clone())
                }
                None => Err(format!("--{name} needs {what}")),
            }
        };
        match name {
            "parse-only" | "ignore-unsupported" if inline.is_some() => {
                return Err(format!("--{name} takes no value"));
            }
            "parse-only" => s.parse_only = true,
            "ignore-unsupported" => s.ignore_unsupported = true,
            "output-format" => {
                for f in value("a format (normal, json, json+, terse)")?.split(',') {
                    s.output_format.push(output_format(f)?);
                }
            }
            "output" => s.output = Some(PathBuf::from(value("a file")?)),
            "section" => s.sections.push(value("a job name")?),
            "json" => s.json = Some(PathBuf::from(value("a path")?)),
            _ => {
                // `--opt value`: only for options iogauge takes, that are
                // no flags; others need `--opt=value`
                let joined = match inline {
                    None if job::canonical(name).is_some()
                        && !job::is_flag(name)
                        && i < rest.len()
                        && !rest[i].starts_with("--") =>
                    {
                        i += 1;
                        format!("--{name}={}", rest[i - 1])
                    }
                    _ => a.clone(),
                };
                s.options.push((pos, joined));
            }
        }
    }
    Ok(s)
}

impl super::Cmd for Args {
    fn main(self) -> Result<Status> {
        main(self)
    }
}

fn main(a: Args) -> Result<Status> {
    // the words clap took as its own flags come first on the command line;
    // the trailing list's position is counted after them
    // argument 1 is `fio`
    let first = std::env::args().count().saturating_sub(a.rest.len()).max(2);
    let mut s = split(&a.rest, first).map_err(UsageError::new)?;
    s.parse_only |= a.parse_only;
    s.ignore_unsupported |= a.ignore_unsupported;
    s.sections.extend(a.section);
    let formats: Vec<OutputFormat> = if s.output_format.is_empty() {
        a.output_format
    } else {
        s.output_format.clone()
    };
    let output = s.output.clone().or(a.output);
    let json = s.json.clone().or(a.json);
    if s.files.is_empty() && s.options.is_empty() {
        crate::usage!("no jobs: name a job file or give fio options (--name=job --rw=read …)");
    }
    let env = |k: &str| std::env::var(k).ok();
    let read = |p: &std::path::Path| std::fs::read(p);
    let settings = Settings {
        sections: s.sections.clone(),
        ignore_unsupported: s.ignore_unsupported,
        env: &env,
        machine: Machine::this(),
        read: &read,
    };
    let parsed = jobfile::parse(&s.options, &s.files, &settings).map_err(UsageError::new)?;
    if parsed.jobs.is_empty() {
        crate::usage!("no jobs to run: the job files define none (or --section chose none)");
    }
    if !s.parse_only {
        crate::usage!(
            "iogauge fio reads the jobs but does not run them yet; --parse-only shows them"
        );
    }
    let text = crate::suites::fio::show::parse_report(&parsed);
    match &output {
        Some(p) => std::fs::write(p, &text)
            .map_err(|e| UsageError::new(format!("{}: {e}", shown(&p.display().to_string()))))?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    if let Some(p) = &json {
        let doc = serde_json::json!({
            "schema": "iogauge/fio-parse/v1",
            "output_format": formats,
            "jobs": parsed.jobs,
            "ignored": parsed.ignored,
        });
        let body = serde_json::to_string_pretty(&doc)? + "\n";
        if p.as_os_str() == "-" {
            print!("{body}");
        } else {
            std::fs::write(p, body).map_err(|e| {
                UsageError::new(format!("{}: {e}", shown(&p.display().to_string())))
            })?;
        }
    }
    Ok(Status::Done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
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
}
