//! `iogauge worker`: one worker process of a run, started by iogauge itself
//! (the runner's process mode), never by hand. The table below says which
//! worker each kind of run builds from its payload.

use super::common::Status;
use crate::runner::Worker;
use anyhow::Result;

/// A worker a run may start as a process: its kind, and how it is built
/// from the run's payload for worker `index`.
type Build = fn(&[u8], usize) -> Result<Box<dyn Worker>>;

const KINDS: &[(&str, Build)] = &[
    (crate::runner::generic::GENERIC_KIND, |p, i| {
        Ok(Box::new(crate::runner::generic::GenericPlan::worker(p, i)?))
    }),
    (crate::suites::iobench::PROCESS_KIND, |p, i| {
        Ok(Box::new(crate::suites::iobench::process_worker(p, i)?))
    }),
    (crate::suites::bonnie::PROCESS_KIND, |p, i| {
        Ok(Box::new(crate::suites::bonnie::process_worker(p, i)?))
    }),
    (crate::suites::sdet::PROCESS_KIND, |p, i| {
        Ok(Box::new(crate::suites::sdet::process_worker(p, i)?))
    }),
    (crate::suites::iozone::throughput::PROCESS_KIND, |p, i| {
        Ok(Box::new(crate::suites::iozone::throughput::process_worker(
            p, i,
        )?))
    }),
];

/// A service a run may start beside its workers, and what it runs with the
/// descriptor it inherits.
type Serve = fn(std::os::fd::RawFd) -> Result<()>;

const SERVICES: &[(&str, Serve)] = &[(crate::suites::iobench::SERVICE, |fd| {
    crate::suites::iobench::serve(fd)
})];

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
            let Some((_, serve)) = SERVICES.iter().find(|(k, _)| k == name) else {
                anyhow::bail!("no service named '{name}'");
            };
            serve(self.fd)?;
            return Ok(Status::Done);
        }
        let index = self.index.unwrap_or_default();
        let Some(report) = self.report_fd else {
            anyhow::bail!("a worker needs --report-fd");
        };
        let build = |kind: &str, payload: &[u8], index: usize| -> Result<Box<dyn Worker>> {
            match KINDS.iter().find(|(k, _)| *k == kind) {
                Some((_, b)) => b(payload, index),
                None => anyhow::bail!("no worker of kind '{kind}'"),
            }
        };
        let ok = crate::runner::procs::child(self.fd, report, index, &build)?;
        Ok(if ok { Status::Done } else { Status::Failed })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn kinds_are_unique() {
        let mut k: Vec<&str> = super::KINDS.iter().map(|(k, _)| *k).collect();
        k.sort();
        k.dedup();
        assert_eq!(k.len(), super::KINDS.len());
    }
}
