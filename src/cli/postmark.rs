//! `iogauge postmark [FILE]`: PostMark 1.53 and its command language.

use super::common::{OutputArgs, Status};
use super::survey::{Ctx, Row};
use crate::engine::Choice;
use crate::suites::postmark::config::{Config, Location};
use crate::suites::postmark::exec::{self, ExecOptions};
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
/// directory, or --dir) and remove it. See docs/postmark.md.
#[derive(clap::Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct Args {
    /// A PostMark configuration file to execute first (default: ./.pmrc if it exists).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Run N independent PostMark streams at once, each with its own pool, directory and seed (seed + k); reports the aggregate and each stream.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: u32,
    /// The location when the session sets none (PostMark's own default is the current directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// I/O engine instead of the one 'set buffering' selects.
    #[arg(long, value_name = "NAME", value_parser = Choice::parse)]
    pub engine: Option<Choice>,
    #[command(flatten)]
    pub out: OutputArgs,
}

impl super::Cmd for Args {
    const DEFAULT_ENGINE: Option<&'static str> =
        Some("buffered with 'set buffering true', sync with false (the default)");
    fn main(self) -> Result<Status> {
        main(self)
    }
}

pub fn main(a: Args) -> Result<Status> {
    a.out.check()?;
    if let Some(d) = &a.dir {
        crate::runner::workdir::check_dir(d)
            .map_err(|e| crate::error::UsageError::new(e.at(&format!("--dir {}", d.display()))))?;
    }
    let sink = StdSink {
        quiet: a.out.quiet,
        json_on_stdout: a.out.result_on_stdout(),
    };
    let exec = ExecOptions {
        threads: a.threads as usize,
        engine: a.engine,
        default_location: a.dir.clone(),
    };
    let outputs = a
        .out
        .targets()
        .into_iter()
        .map(|(e, p)| (e, p.to_path_buf()))
        .collect();
    let mut stdin = || Box::new(StdinInput::new()) as Box<dyn Input>;
    let end = interp::session(a.file.as_deref(), &sink, exec, outputs, &mut stdin)?;
    if end.interrupted {
        super::common::interrupted_line(end.runs > 0 && a.out.any());
        return Ok(Status::Interrupted);
    }
    if end.failed {
        return Ok(Status::Failed);
    }
    if end.rejected > 0 {
        crate::usage!(
            "{} command{} of the session {} refused{}",
            end.rejected,
            if end.rejected == 1 { "" } else { "s" },
            if end.rejected == 1 { "was" } else { "were" },
            if a.out.quiet {
                " (--quiet hid PostMark's replies; run without it to see them)"
            } else {
                " (see the messages above)"
            }
        );
    }
    Ok(Status::Done)
}

/// PostMark 1.53's defaults (500 files, 500 transactions) in the surveyed
/// directory.
pub fn survey(ctx: &Ctx, emit: &mut dyn FnMut(Row)) -> Result<()> {
    let cfg = Config {
        locations: vec![Location {
            path: ctx.dir.display().to_string(),
            weight: 1,
        }],
        ..Default::default()
    };
    let r = exec::measure(&cfg, &ExecOptions::default())?;
    emit(Row::metric(
        "postmark (1.53 defaults)",
        "transactions_per_s",
        "tx/s",
        r,
    ));
    Ok(())
}
