//! `iogauge engines`: the engine table.

use super::common::Status;
use anyhow::Result;

/// List the I/O engines, what each does and what it can do.
#[derive(clap::Args, Debug)]
pub struct Args {}

impl super::Cmd for Args {
    fn main(self) -> Result<Status> {
        let width = crate::engine::ENGINES
            .iter()
            .map(|e| e.name.len())
            .max()
            .unwrap_or(0);
        for e in crate::engine::ENGINES {
            let mut can = vec![];
            if e.caps.direct {
                can.push("O_DIRECT");
            }
            if e.caps.fake {
                can.push("no I/O");
            }
            if e.caps.buffered {
                can.push("user-space buffer");
            }
            if !e.caps.grows_files {
                can.push("writes inside a file's size only");
            }
            let can = if can.is_empty() {
                String::new()
            } else {
                format!(" [{}]", can.join(", "))
            };
            println!("{:<width$}  {}{can}", e.name, e.doc);
        }
        Ok(Status::Done)
    }
}
