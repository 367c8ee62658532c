//! FFSB 6.0-rc2, the Flexible Filesystem Benchmark (IBM, 2001–2008), driven
//! by its own profile files.
//!
//! A profile names file systems (directories), how to fill each before the
//! run (a file set of `num_files` files in `num_dirs` directories, sizes
//! drawn from a range or from weighted sizes, optionally after aging the
//! file system to a target utilisation), and thread groups that run a
//! weighted mix of fifteen operations for `time` seconds.
//!
//! [`profile`] is what a profile says; [`parse`] reads one as FFSB does,
//! with file:line in every error; [`bench`] builds the file sets, ages,
//! and runs the thread groups into [`results`]; [`report`] prints FFSB's
//! report.

pub mod bench;
pub mod figures;
pub mod parse;
pub mod profile;
pub mod report;
pub mod results;
pub mod survey;
