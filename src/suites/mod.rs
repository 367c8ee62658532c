//! The classic benchmarks, one folder each: configuration, generator, and
//! the report their users know.

pub mod iostone;

pub mod andrew;
pub mod benchmark;
pub mod bonnie;
pub mod classic;
pub mod curve;
pub mod ffsb;
pub mod fio;
pub mod iobench;
pub mod iozone;
pub mod laddis;
pub mod load;
pub mod postmark;
pub mod queued;
pub mod run;
pub mod scientific;
pub mod sdet;
mod selfscale;
pub mod survey;
pub mod tpcb;

pub use benchmark::{BENCHMARKS, Benchmark, Entry};
