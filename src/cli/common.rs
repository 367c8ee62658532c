//! Flags shared by several commands, and how a finished run is presented.

use super::UsageError;
use crate::engine::{self, DIRECT_ALIGN, EngineOpts, FsyncPolicy, parse_fsync};
use crate::report::{RunResult, write_json};
use crate::workload::units;
use anyhow::Result;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;

/// How a command ended, for the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Done,
    /// The run failed (I/O error, out of space) after writing what it had.
    Failed,
    /// Ctrl-C or SIGTERM, after cleaning up and writing the partial result.
    Interrupted,
}

#[derive(clap::Args, Debug, Clone)]
pub struct OutputArgs {
    /// Write the result as JSON to PATH ('-' for stdout; the text report then goes to stderr).
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Print no report (errors still go to stderr; --json is still written).
    #[arg(long, short)]
    pub quiet: bool,
}

impl OutputArgs {
    /// Print `text` where the report goes (stdout, or stderr under `--json -`).
    pub fn say(&self, text: &str) {
        if self.quiet {
            return;
        }
        if self.json_on_stdout() {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }

    pub fn json_on_stdout(&self) -> bool {
        self.json.as_deref() == Some(std::path::Path::new("-"))
    }

    /// Whether to draw a progress bar (stderr is a terminal and not --quiet).
    pub fn progress(&self) -> bool {
        use std::io::IsTerminal;
        !self.quiet && std::io::stderr().is_terminal()
    }

    /// Refuse a --json path whose directory does not exist, before the run.
    pub fn check(&self) -> Result<()> {
        if let Some(p) = &self.json
            && p.as_os_str() != "-"
        {
            let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
            if let Some(d) = parent
                && !d.is_dir()
            {
                crate::usage!(
                    "--json {}: the directory {} does not exist",
                    p.display(),
                    d.display()
                );
            }
            if p.is_dir() {
                crate::usage!("--json {} is a directory; name a file", p.display());
            }
        }
        Ok(())
    }

    /// Write the JSON result if asked.
    pub fn write(&self, value: &impl Serialize) -> Result<()> {
        match &self.json {
            Some(p) => write_json(p, value),
            None => Ok(()),
        }
    }
}

#[derive(clap::Args, Debug, Clone)]
pub struct EngineArgs {
    /// I/O engine: psync, sync, buffered or null ('iogauge engines' describes each). Default: psync for run, sync for iostone.
    #[arg(long, value_name = "NAME")]
    pub engine: Option<String>,
    /// Open data files with O_DIRECT: page-aligned buffers, offsets and sizes aligned to 4 KiB.
    #[arg(long)]
    pub direct: bool,
    /// When to sync written data: never, end (each file once at the end, timed) or every=N (after every N writes).
    #[arg(long, default_value = "never", value_name = "POLICY", value_parser = parse_fsync)]
    pub fsync: FsyncPolicy,
    /// Use fdatasync(2) instead of fsync(2) for --fsync.
    #[arg(long)]
    pub fdatasync: bool,
}

impl EngineArgs {
    pub fn name<'a>(&'a self, default: &'a str) -> &'a str {
        self.engine.as_deref().unwrap_or(default)
    }

    /// Check that the engine exists and can do what was asked.
    pub fn check(&self, default: &str) -> Result<()> {
        engine::make(self.name(default), &self.opts(4096, 0)).map_err(UsageError)?;
        Ok(())
    }

    pub fn opts(&self, max_len: usize, seed: u64) -> EngineOpts {
        EngineOpts {
            direct: self.direct,
            depth: 1,
            max_len,
            datasync: self.fdatasync,
            seed,
        }
    }

    /// The alignment requests must keep: 4 KiB under O_DIRECT.
    pub fn min_align(&self) -> u64 {
        if self.direct { DIRECT_ALIGN as u64 } else { 1 }
    }

    pub fn make(
        &self,
        default: &str,
        max_len: usize,
        seed: u64,
    ) -> Result<Box<dyn engine::Engine>> {
        Ok(engine::make(self.name(default), &self.opts(max_len, seed)).map_err(UsageError)?)
    }

    pub fn is_fake(&self, default: &str) -> bool {
        engine::find(self.name(default)).is_some_and(|e| e.caps.fake)
    }
}

pub fn size_arg(s: &str) -> Result<u64, String> {
    units::parse_size(s)
}

pub fn duration_arg(s: &str) -> Result<Duration, String> {
    units::parse_duration(s)
}

pub fn fraction_arg(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a fraction between 0 and 1")),
    }
}

/// Print the report, write the JSON, and turn the result into a status.
pub fn finish(out: &OutputArgs, result: &RunResult, report: &str) -> Result<Status> {
    out.say(report);
    out.write(result)?;
    if let Some(e) = &result.error {
        eprintln!("iogauge: {e}");
        return Ok(Status::Failed);
    }
    if !result.complete {
        eprintln!("iogauge: interrupted; the partial result was written");
        return Ok(Status::Interrupted);
    }
    Ok(Status::Done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions() {
        assert_eq!(fraction_arg("0.25"), Ok(0.25));
        assert_eq!(fraction_arg("1"), Ok(1.0));
        assert!(fraction_arg("1.5").is_err());
        assert!(fraction_arg("-0.1").is_err());
        assert!(fraction_arg("NaN").is_err());
    }
}
