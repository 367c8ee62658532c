//! IOzone 3.489 (William Norcott, Don Capps), driven by IOzone's own flags.
//!
//! IOzone times a fixed list of access patterns (write/rewrite, read/reread,
//! random, backwards, record rewrite, stride, stdio, pread/pwrite and the
//! vectored variants) over one file per run. It runs one file and record
//! size, a grid of them in auto mode (`-a`, with IOzone's crossover that
//! skips small records on big files) or, in throughput mode (`-t`), the same
//! phases in N concurrent children with stonewalling.
//!
//! [`flags`] turns IOzone's command line into a validated [`flags::Config`];
//! [`grid`] expands it into the file and record sizes auto mode visits;
//! [`offsets`] gives the record order of each test; [`run`] runs single and
//! auto mode through the engines, with [`remount`] unmounting and
//! mounting again `-U`'s file system between passes; [`throughput`] runs
//! throughput mode's phases in child processes or threads; [`report`]
//! prints and writes IOzone's reports, from its preamble to the `-R` and
//! `-b` reports, and [`heatmaps`] draws the grid as heatmaps. [`exec`] is the
//! whole run as `iogauge iozone` makes it: work directory, run, result;
//! [`figures`] types that result and renders IOzone's report from it.

pub mod details;
pub mod exec;
pub mod figures;
pub mod flags;
pub mod grid;
pub mod heatmaps;
pub mod offsets;
pub mod remount;
pub mod report;
pub mod run;
mod stdio;
pub mod survey;
pub mod throughput;
