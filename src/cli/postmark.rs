//! `iogauge postmark [FILE]`: PostMark 1.53 and its command language.

use super::common::{OutputArgs, Status};
use crate::suites::postmark::exec::ExecOptions;
use crate::suites::postmark::interp::{self, Input, StdSink, StdinInput};
use anyhow::Result;
use std::path::PathBuf;

/// PostMark 1.53 (Katcher, NetApp 1997): a pool of small files created,
/// read, appended and deleted at random, as a mail or news server does.
/// Speaks PostMark's command language (`set number 1000`, `run`, `show`,
/// `help`, `quit`, ...): FILE first (or ./.pmrc), then commands from
/// standard input, with the pm> prompt on a terminal. Every count and byte
/// of the report equals PostMark 1.53's for the same configuration; after
/// it come iogauge's exact times, latencies and CPU. Runs work in a
/// directory of their own inside each `set location` (default: the current
/// directory) and remove it. See docs/postmark.md.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A PostMark configuration file to execute first (default: ./.pmrc if it exists).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Run N independent PostMark streams at once, each with its own pool, directory and seed (seed + k); reports the aggregate and each stream.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: u32,
    /// I/O engine instead of the one 'set buffering' selects (buffered for true, sync for false): psync, sync, buffered or null.
    #[arg(long, value_name = "NAME")]
    pub engine: Option<String>,
    #[command(flatten)]
    pub out: OutputArgs,
}

pub fn main(a: Args) -> Result<Status> {
    a.out.check()?;
    if let Some(e) = &a.engine
        && crate::engine::find(e).is_none()
    {
        crate::usage!(
            "unknown engine '{e}'; the engines are: {}",
            crate::engine::names()
        );
    }
    let sink = StdSink {
        quiet: a.out.quiet,
        json_on_stdout: a.out.json_on_stdout(),
    };
    let exec = ExecOptions {
        threads: a.threads as usize,
        engine: a.engine.clone(),
    };
    let mut stdin = || Box::new(StdinInput::new()) as Box<dyn Input>;
    let end = interp::session(
        a.file.as_deref(),
        &sink,
        exec,
        a.out.json.clone(),
        &mut stdin,
    )?;
    if end.interrupted {
        if end.runs > 0 && a.out.json.is_some() {
            eprintln!("iogauge: interrupted; the partial result was written");
        } else {
            eprintln!("iogauge: interrupted");
        }
        return Ok(Status::Interrupted);
    }
    if end.failed {
        return Ok(Status::Failed);
    }
    if end.rejected > 0 {
        crate::usage!(
            "{} command{} of the session {} refused (see the messages above)",
            end.rejected,
            if end.rejected == 1 { "" } else { "s" },
            if end.rejected == 1 { "was" } else { "were" }
        );
    }
    Ok(Status::Done)
}
