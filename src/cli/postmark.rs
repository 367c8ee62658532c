//! `iogauge postmark [FILE]`: PostMark 1.53 and its command language.

use super::common::{OutputArgs, Status};
use crate::engine::Choice;
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
    /// Only check: execute FILE's commands without running anything ('run' checks the configuration, its locations and their space; '!' is skipped; no file is written; standard input is not read); exit 0, or 2 when a command was refused.
    #[arg(long)]
    pub check: bool,
    #[command(flatten)]
    pub cluster: super::common::ClusterArgs,
}

impl super::Cmd for Args {
    const DEFAULT_ENGINE: Option<&'static str> =
        Some("buffered with 'set buffering true', sync with false (the default)");
    // PostMark's creates and appends grow files: not mmap
    const ENGINES: Option<&'static [Choice]> = Some(&[
        Choice::PSYNC,
        Choice::SYNC,
        Choice::BUFFERED,
        Choice::NULL,
        Choice::NULLQ,
        Choice::IO_URING,
        Choice::LIBAIO,
        Choice::PVSYNC,
        Choice::PVSYNC2,
    ]);
    fn main(self) -> Result<Status> {
        main(self)
    }
    fn output(&self) -> Option<OutputArgs> {
        Some(self.out.clone())
    }
}

/// Refuse an engine PostMark cannot run on, in one line: its creates and
/// appends grow files.
pub(super) fn check_engine(c: Choice) -> Result<(), String> {
    c.check_grows(
        "PostMark's creates and appends grow files",
        "sync or buffered (as 'set buffering' picks), or psync",
    )
}

pub fn main(a: Args) -> Result<Status> {
    a.out.check()?;
    if let Some(e) = a.engine {
        check_engine(e).map_err(crate::error::UsageError)?;
    }
    a.cluster.apply()?;
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
        check_only: a.check,
    };
    let outputs = a
        .out
        .targets()
        .into_iter()
        .map(|(e, p)| (e, p.to_path_buf()))
        .collect();
    let mut stdin = || Box::new(StdinInput::new()) as Box<dyn Input>;
    // the session writes its own result files; the log goes beside them
    a.out.start_hist_log()?;
    let end = interp::session(a.file.as_deref(), &sink, exec, outputs, &mut stdin);
    if !a.check {
        let logged = a.out.write_hist_log();
        if end.is_ok() {
            logged?;
        }
    }
    let end = end?;
    if end.interrupted {
        super::common::interrupted_line(end.runs > 0 && a.out.any());
        return Ok(Status::Interrupted);
    }
    if end.failed {
        return Ok(Status::Failed);
    }
    if end.rejected > 0 {
        crate::usage!("{}", refused(end.rejected, &end.unknown, a.out.quiet));
    }
    if a.check {
        let what = a
            .file
            .as_deref()
            .map_or_else(|| "iogauge postmark".into(), |f| f.display().to_string());
        return Ok(super::common::checked(&what));
    }
    Ok(Status::Done)
}

/// The closing line of a session that refused commands. The replies were
/// printed where they happened, but PostMark answers an unknown command
/// with `Eh?` on stdout, which `--quiet` hides: under `--quiet` the line
/// names those commands itself (up to three).
fn refused(rejected: usize, unknown: &[String], quiet: bool) -> String {
    let plural = |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    let head = format!(
        "{rejected} command{} of the session {} refused",
        plural(rejected, "", "s"),
        plural(rejected, "was", "were")
    );
    if !quiet || unknown.is_empty() {
        return format!("{head} (see the messages above)");
    }
    let shown = unknown.len().min(3);
    let mut list = unknown[..shown].join(", ");
    if unknown.len() > shown {
        list += &format!(" and {} more", unknown.len() - shown);
    } else if shown > 1 {
        let last = list.rfind(", ").unwrap_or(0);
        list.replace_range(last..last + 2, " and ");
    }
    let others = rejected.saturating_sub(unknown.len());
    format!(
        "{head}: {list} {} ('help' lists the commands; --quiet hid PostMark's 'Eh?'){}",
        plural(
            unknown.len(),
            "is not a PostMark command",
            "are not PostMark commands"
        ),
        if others > 0 {
            format!(
                "; the message{} of the other {others} {} above",
                plural(others, "", "s"),
                plural(others, "is", "are")
            )
        } else {
            String::new()
        }
    )
}

#[cfg(test)]
mod tests {
    use super::refused;

    #[test]
    fn the_closing_line_names_what_quiet_hid() {
        let u = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            refused(1, &u(&["'frob'"]), false),
            "1 command of the session was refused (see the messages above)"
        );
        assert_eq!(
            refused(2, &[], true),
            "2 commands of the session were refused (see the messages above)"
        );
        assert_eq!(
            refused(1, &u(&["'frob'"]), true),
            "1 command of the session was refused: 'frob' is not a PostMark command ('help' lists the commands; --quiet hid PostMark's 'Eh?')"
        );
        assert_eq!(
            refused(3, &u(&["'a'", "'b' (t.pmrc:2)"]), true),
            "3 commands of the session were refused: 'a' and 'b' (t.pmrc:2) are not PostMark commands ('help' lists the commands; --quiet hid PostMark's 'Eh?'); the message of the other 1 is above"
        );
        assert_eq!(
            refused(5, &u(&["'a'", "'b'", "'c'", "'d'", "'e'"]), true),
            "5 commands of the session were refused: 'a', 'b', 'c' and 2 more are not PostMark commands ('help' lists the commands; --quiet hid PostMark's 'Eh?')"
        );
    }
}
