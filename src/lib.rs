//! iogauge: a storage and file-system benchmark suite.
//!
//! Every benchmark is a generator of file-system operations run by workers
//! ([`runner`]) through an engine ([`engine`]), timed by one measurement core
//! ([`measure`]) and rendered by a report ([`report`]). See ARCHITECTURE.md.

pub mod cli;
pub mod engine;
pub mod env;
pub mod measure;
pub mod report;
pub mod runner;
pub mod selfscale;
pub mod suites;
pub mod workload;
