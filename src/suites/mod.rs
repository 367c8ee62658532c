//! The classic benchmarks, one folder each: configuration, generator, and
//! the report their users know.

pub mod iostone;

pub mod andrew;
pub mod benchmark;
pub mod bonnie;
pub mod classic;
pub mod curve;
pub mod ffsb;
pub mod iobench;
pub mod iozone;
pub mod laddis;
pub mod postmark;
pub mod scientific;
pub mod sdet;
pub mod tpcb;

pub use benchmark::{BENCHMARKS, Benchmark};

/// Told a classic benchmark's progress lines as they happen, from the
/// thread that started the run: bonnie's stderr lines, FFSB's set-up and
/// timing lines (`creating new fileset <loc>`, `fs setup took N secs`,
/// `Starting Actual Benchmark At: …`).
pub trait Tell {
    fn say(&self, _line: &str) {}
}

/// A [`Tell`] that says nothing.
pub struct Quiet;
impl Tell for Quiet {}
