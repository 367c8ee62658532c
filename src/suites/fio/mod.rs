//! fio (Jens Axboe's flexible I/O tester): its job files and command-line
//! jobs, read as fio reads them into typed jobs ([`job::Job`]), with each
//! value's place for later errors. docs/fio.md says what is taken, how
//! each option maps, and what is refused.

pub mod buffers;
pub mod job;
pub mod jobfile;
pub mod names;
pub mod plan;
pub mod run;
pub mod show;
pub mod steady;
pub mod value;
pub mod verify;

pub use job::{Job, Place};
pub use jobfile::{Parsed, Settings, parse};
