//! iogauge: a storage and file-system benchmark suite.
//!
//! Every benchmark is a generator of file-system operations run by workers
//! ([`runner`]) through an engine ([`engine`]), timed by one measurement core
//! ([`measure`]) and rendered by a report ([`report`]). docs/architecture.md gives the layers
//! and the three tables (engines, benchmarks, exporters).

pub mod cli;
pub mod cluster;
pub mod data;
pub mod engine;
pub mod env;
pub mod error;
#[cfg(test)]
mod fuzz;
pub mod measure;
pub mod report;
pub mod runner;
pub mod selfscale;
pub mod session;
pub mod suites;
pub mod units;
pub mod verify;
pub mod workload;
