//! `iogauge completions SHELL` and `iogauge man`: the shell's completion
//! script and the manual pages, both made from the command table
//! ([`super::command`]), so they list exactly the commands and flags the
//! parser takes.

use super::common::Status;
use crate::error::UsageError;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::PathBuf;

/// Print a completion script for SHELL on stdout.
#[derive(clap::Args, Debug)]
pub struct Completions {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

impl super::Cmd for Completions {
    fn main(self) -> Result<Status> {
        let mut cmd = super::visible_command();
        let mut out = Vec::new();
        clap_complete::generate(self.shell, &mut cmd, "iogauge", &mut out);
        write_stdout(&out)?;
        Ok(Status::Done)
    }
}

/// Print a manual page (roff) on stdout, or write every command's page.
#[derive(clap::Args, Debug)]
pub struct Man {
    /// The command whose page to print (default: iogauge's own page).
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
    /// Write every page to DIR instead (iogauge.1, iogauge-run.1, …; DIR must exist).
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
}

impl super::Cmd for Man {
    fn main(self) -> Result<Status> {
        let top = super::visible_command();
        if let Some(dir) = &self.dir {
            if !dir.is_dir() {
                return Err(UsageError::new(format!(
                    "--dir {}: not a directory",
                    crate::error::shown(&dir.display().to_string())
                ))
                .into());
            }
            for (name, page) in pages(&top)? {
                let path = dir.join(format!("{name}.1"));
                crate::report::export::write_file(&path, &page)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            return Ok(Status::Done);
        }
        let page = match &self.command {
            None => render(&top)?,
            Some(name) => {
                let sub = visible(&top)
                    .find(|c| c.get_name() == name)
                    .ok_or_else(|| {
                        UsageError::new(format!(
                            "'{}' is not a command of iogauge (see 'iogauge --help')",
                            crate::error::shown(name)
                        ))
                    })?;
                render(&sub_page(sub))?
            }
        };
        write_stdout(&page)?;
        Ok(Status::Done)
    }
}

/// The commands a user sees (not the hidden worker).
fn visible(top: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    top.get_subcommands().filter(|c| !c.is_hide_set())
}

/// A subcommand as its own page: named `iogauge-NAME`, with the version.
fn sub_page(sub: &clap::Command) -> clap::Command {
    let name = format!("iogauge-{}", sub.get_name());
    sub.clone()
        .name(name.clone())
        .bin_name(format!("iogauge {}", sub.get_name()))
        .display_name(name)
        .version(super::LONG_VERSION)
}

/// Every page: iogauge's, then one per visible command, with its file name.
fn pages(top: &clap::Command) -> Result<Vec<(String, Vec<u8>)>> {
    let mut v = vec![("iogauge".to_string(), render(top)?)];
    for sub in visible(top) {
        let page = sub_page(sub);
        v.push((page.get_name().to_string(), render(&page)?));
    }
    Ok(v)
}

fn render(cmd: &clap::Command) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut out)
        .context("cannot render the manual page")?;
    Ok(out)
}

fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|_| out.flush())
        .context("cannot write to stdout")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// iogauge's page names every command a user sees, and no hidden one;
    /// each command's page is its own, with its flags.
    #[test]
    fn pages_come_from_the_table() {
        let top = super::super::visible_command();
        let main = String::from_utf8(render(&top).unwrap()).unwrap();
        assert!(main.contains(".SH NAME") && main.contains(".SH SYNOPSIS"));
        for e in super::super::COMMANDS {
            let named = main.contains(&format!("iogauge\\-{}", e.name))
                || main.contains(&format!("iogauge-{}", e.name));
            assert_eq!(named, e.kind != super::super::Kind::Hidden, "{}", e.name);
        }
        let all = pages(&top).unwrap();
        assert_eq!(
            all.len(),
            1 + super::super::COMMANDS
                .iter()
                .filter(|e| e.kind != super::super::Kind::Hidden)
                .count()
        );
        let run = all.iter().find(|(n, _)| n == "iogauge-run").unwrap();
        let run = String::from_utf8(run.1.clone()).unwrap();
        assert!(run.contains("\\-\\-duration"), "{run}");
    }
}
