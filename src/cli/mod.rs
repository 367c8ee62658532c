//! The command line: one file per subcommand, the flags they share, and how
//! errors become exit codes (0 done; 1 the run failed; 2 bad usage or input;
//! 130 interrupted).

mod common;
mod iobench;
mod iostone;
mod postmark;
mod progress;
mod run;
mod selfscale;
mod survey;

pub use common::{EngineArgs, OutputArgs, Status};

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Bad usage or bad input: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl UsageError {
    pub fn new(msg: impl Into<String>) -> Self {
        UsageError(msg.into())
    }
}

/// Return early with a [`UsageError`].
#[macro_export]
macro_rules! usage {
    ($($t:tt)*) => { return Err($crate::cli::UsageError::new(format!($($t)*)).into()) };
}

const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("IOGAUGE_COMMIT"),
    ")"
);

/// iogauge: storage and file-system benchmarks you can trust.
///
/// Every command times each operation in nanoseconds into HDR histograms,
/// records CPU use, the share of time spent in I/O and throughput over time,
/// and the machine, file system and mount options it ran on. `--json PATH`
/// writes all of it; the text report goes to stdout.
#[derive(Parser, Debug)]
#[command(
    name = "iogauge",
    version = LONG_VERSION,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a short form of every benchmark and print a one-page scorecard.
    Survey(survey::Args),
    /// The generic workload: Chen & Patterson's five parameters.
    Run(run::Args),
    /// IOStone (Park & Lipton 1987; C/II 1990): random transfers of nine sizes.
    Iostone(iostone::Args),
    /// PostMark 1.53 (Katcher 1997): small-file create/read/append/delete, its command language and report.
    Postmark(postmark::Args),
    /// IOBENCH (Wolman & Olson 1989): multi-user transactions with locks and CPU work.
    Iobench(iobench::Args),
    /// One IOBENCH user process (started by `iogauge iobench`, not by hand).
    #[command(hide = true)]
    IobenchUser(iobench::UserArgs),
    /// Chen & Patterson's self-scaling benchmark: finds the performance regions and focal points by itself and models throughput.
    Selfscale(selfscale::Args),
    /// Predict the throughput of workloads from a selfscale model (the product of its single-parameter curves).
    Predict(selfscale::PredictArgs),
    /// List the I/O engines and what each does.
    Engines,
}

/// Parse the command line, run the command, map the outcome to an exit code.
pub fn main() -> ExitCode {
    crate::runner::signals::install();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = e.print();
                    ExitCode::SUCCESS
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    eprintln!(
                        "iogauge: a command is required: survey, run, iostone or engines (see 'iogauge --help')"
                    );
                    ExitCode::from(2)
                }
                _ => {
                    // one line: what is wrong (clap's first line, minus its prefix)
                    let text = e.to_string();
                    let first = text.lines().next().unwrap_or("bad usage");
                    let first = first.strip_prefix("error: ").unwrap_or(first);
                    eprintln!("iogauge: {first} (see 'iogauge --help')");
                    ExitCode::from(2)
                }
            };
        }
    };
    let result = match cli.command {
        Command::Survey(a) => survey::main(a),
        Command::Run(a) => run::main(a),
        Command::Iostone(a) => iostone::main(a),
        Command::Postmark(a) => postmark::main(a),
        Command::Iobench(a) => iobench::main(a),
        Command::IobenchUser(a) => iobench::user_main(a),
        Command::Selfscale(a) => selfscale::main(a),
        Command::Predict(a) => selfscale::predict_main(a),
        Command::Engines => {
            for e in crate::engine::ENGINES {
                println!("{:<10} {}", e.name, e.doc);
            }
            Ok(Status::Done)
        }
    };
    match result {
        Ok(Status::Done) => ExitCode::SUCCESS,
        Ok(Status::Failed) => ExitCode::from(1),
        Ok(Status::Interrupted) => ExitCode::from(130),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            let msg = format!("{e:#}").replace('\n', " ");
            eprintln!("iogauge: {msg}");
            if e.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// Every flag of every subcommand says what it does.
    #[test]
    fn every_flag_has_help() {
        for sub in Cli::command().get_subcommands() {
            for arg in sub.get_arguments() {
                if arg.get_id() == "help" || arg.get_id() == "version" {
                    continue;
                }
                assert!(
                    arg.get_help().is_some(),
                    "{} --{} has no help",
                    sub.get_name(),
                    arg.get_id()
                );
            }
        }
    }
}
