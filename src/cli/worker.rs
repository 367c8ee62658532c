//! `iogauge worker`: one worker process of a run, started by iogauge itself
//! (the runner's process mode), never by hand. The benchmark table
//! (`suites::BENCHMARKS`) says which worker each kind of run builds from its
//! payload, and which services a run may start.

use super::common::Status;
use crate::runner::Worker;
use anyhow::Result;

/// One worker process of a run (started by iogauge, not by hand).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Descriptor of the run's shared region, inherited from the parent.
    #[arg(long, value_name = "FD")]
    pub fd: i32,
    /// Which worker this process is (0-based).
    #[arg(long, value_name = "N", required_unless_present = "service")]
    pub index: Option<usize>,
    /// Write end of the pipe the worker's report goes down to the parent.
    #[arg(long, value_name = "FD", requires = "index")]
    pub report_fd: Option<i32>,
    /// Run this service of the run instead of a worker (IOBENCH's ioserver).
    #[arg(long, value_name = "NAME", conflicts_with = "index")]
    pub service: Option<String>,
}

impl super::Cmd for Args {
    fn main(self) -> Result<Status> {
        if let Some(name) = &self.service {
            crate::runner::procs::ignore_terminal_signals();
            let Some(s) = crate::suites::benchmark::service(name) else {
                anyhow::bail!("no service named '{name}'");
            };
            (s.serve)(self.fd)?;
            return Ok(Status::Done);
        }
        let index = self.index.unwrap_or_default();
        let Some(report) = self.report_fd else {
            anyhow::bail!("a worker needs --report-fd");
        };
        let build = |kind: &str, payload: &[u8], index: usize| -> Result<Box<dyn Worker>> {
            match crate::suites::benchmark::process_kind(kind) {
                Some(p) => (p.build)(payload, index),
                None => anyhow::bail!("no worker of kind '{kind}'"),
            }
        };
        let ok = crate::runner::procs::child(self.fd, report, index, &build)?;
        Ok(if ok { Status::Done } else { Status::Failed })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{COMMANDS, Kind};

    /// The command table's benchmarks and the benchmark table are the same
    /// list, in the same order.
    #[test]
    fn every_benchmark_command_has_its_entry_in_the_benchmark_table() {
        let commands: Vec<&str> = COMMANDS
            .iter()
            .filter(|e| e.kind == Kind::Benchmark)
            .map(|e| e.name)
            .collect();
        let table: Vec<&str> = crate::suites::BENCHMARKS.iter().map(|b| b.name).collect();
        assert_eq!(commands, table);
    }
}
