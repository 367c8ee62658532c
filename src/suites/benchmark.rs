//! The benchmark table: what the rest of iogauge needs of each benchmark
//! beyond its own command. A worker process finds here how to build its
//! worker from the run's payload, so a benchmark that starts processes
//! adds its kinds to its own entry and nothing else.

use crate::runner::Worker;
use anyhow::Result;
use std::os::fd::RawFd;

/// Builds worker `index` of a run from the run's payload.
pub type Build = fn(&[u8], usize) -> Result<Box<dyn Worker>>;

/// A worker a benchmark may start as a process: its kind (named in the
/// run's process spec) and how it is built.
pub struct ProcessKind {
    pub kind: &'static str,
    pub build: Build,
}

/// A service a benchmark starts beside its workers (IOBENCH's ioserver),
/// run with the descriptor it inherits.
pub struct Service {
    pub name: &'static str,
    pub serve: fn(RawFd) -> Result<()>,
}

/// One benchmark.
pub struct Benchmark {
    /// Its command's name (`iogauge NAME`) and its results' `benchmark`.
    pub name: &'static str,
    /// The workers it may run as processes.
    pub processes: &'static [ProcessKind],
    /// The services it may start.
    pub services: &'static [Service],
}

const fn plain(name: &'static str) -> Benchmark {
    Benchmark {
        name,
        processes: &[],
        services: &[],
    }
}

/// Every benchmark, in the order of the command table.
pub const BENCHMARKS: &[Benchmark] = &[
    Benchmark {
        name: "run",
        processes: &[ProcessKind {
            kind: crate::runner::generic::GENERIC_KIND,
            build: |p, i| Ok(Box::new(crate::runner::generic::GenericPlan::worker(p, i)?)),
        }],
        services: &[],
    },
    plain("iostone"),
    plain("postmark"),
    Benchmark {
        name: "iobench",
        processes: &[ProcessKind {
            kind: super::iobench::PROCESS_KIND,
            build: |p, i| Ok(Box::new(super::iobench::process_worker(p, i)?)),
        }],
        services: &[Service {
            name: super::iobench::SERVICE,
            serve: super::iobench::serve,
        }],
    },
    Benchmark {
        name: "bonnie",
        processes: &[ProcessKind {
            kind: super::bonnie::PROCESS_KIND,
            build: |p, i| Ok(Box::new(super::bonnie::process_worker(p, i)?)),
        }],
        services: &[],
    },
    Benchmark {
        name: "iozone",
        processes: &[ProcessKind {
            kind: super::iozone::throughput::PROCESS_KIND,
            build: |p, i| Ok(Box::new(super::iozone::throughput::process_worker(p, i)?)),
        }],
        services: &[],
    },
    plain("ffsb"),
    plain("scientific"),
    plain("tpcb"),
    plain("laddis"),
    plain("andrew"),
    Benchmark {
        name: "sdet",
        processes: &[ProcessKind {
            kind: super::sdet::PROCESS_KIND,
            build: |p, i| Ok(Box::new(super::sdet::process_worker(p, i)?)),
        }],
        services: &[],
    },
    plain("selfscale"),
];

/// The benchmark called `name`.
pub fn find(name: &str) -> Option<&'static Benchmark> {
    BENCHMARKS.iter().find(|b| b.name == name)
}

/// The process kind called `kind`, whichever benchmark has it.
pub fn process_kind(kind: &str) -> Option<&'static ProcessKind> {
    BENCHMARKS
        .iter()
        .flat_map(|b| b.processes)
        .find(|p| p.kind == kind)
}

/// The service called `name`, whichever benchmark has it.
pub fn service(name: &str) -> Option<&'static Service> {
    BENCHMARKS
        .iter()
        .flat_map(|b| b.services)
        .find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_kinds_and_services_are_unique() {
        let mut names: Vec<&str> = BENCHMARKS.iter().map(|b| b.name).collect();
        let mut kinds: Vec<&str> = BENCHMARKS
            .iter()
            .flat_map(|b| b.processes.iter().map(|p| p.kind))
            .chain(
                BENCHMARKS
                    .iter()
                    .flat_map(|b| b.services.iter().map(|s| s.name)),
            )
            .collect();
        for v in [&mut names, &mut kinds] {
            let n = v.len();
            v.sort_unstable();
            v.dedup();
            assert_eq!(v.len(), n, "{v:?}");
        }
        assert!(process_kind("iobench-user").is_some());
        assert!(process_kind("nope").is_none());
        assert_eq!(find("bonnie").unwrap().processes.len(), 1);
    }
}
