//! `iogauge andrew`: the Andrew benchmark, as Chen & Patterson ran it.

use super::common::{self, OutputArgs, Status};
use super::progress;
use crate::suites::andrew::{self, DEFAULT_CPU_NS_PER_BYTE, Options};
use anyhow::Result;
use std::path::PathBuf;

/// The Andrew benchmark (CMU, 1987): copy a small source tree (70 files,
/// 200 KiB, in a top directory and five subdirectories: generated, or
/// --tree DIR), stat and read the copy, then "compile" it (read each
/// source, burn a CPU cost per byte, write an object, link). Reports Chen &
/// Patterson's copy phase (MakeDir, Copy, ScanDir, ReadAll) and compile
/// phase (Make): seconds and the share of them spent in I/O.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Copy this directory tree instead of the generated one (it is only read: never written, chmod'ed or touched).
    #[arg(long, value_name = "DIR")]
    pub tree: Option<PathBuf>,
    /// Copies of the tree, side by side (the original tree fits in any cache; more copies, more data).
    #[arg(long, default_value = "1", value_name = "N", value_parser = common::count_arg, allow_hyphen_values = true)]
    pub scale: usize,
    /// Seed of the generated tree's file sizes and contents.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    /// CPU time the Make phase burns per byte of each source it compiles, in ns of the thread's CPU clock (default 1000: about 1 MB of source per CPU second, a compiler on a current core).
    #[arg(long, default_value_t = DEFAULT_CPU_NS_PER_BYTE, value_name = "NS", value_parser = ns_arg, allow_hyphen_values = true)]
    pub cpu_ns_per_byte: f64,
    /// Start from an empty cache: drop the source tree from the page cache before the Copy phase, and the copy after it (posix_fadvise DONTNEED, untimed).
    #[arg(long)]
    pub cold: bool,
    /// Parent of the run's work directory (created and removed by the run).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub out: OutputArgs,
}

common::cmd!(out);

fn ns_arg(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Ok(v) => Err(format!("must be 0 or more, not {v}")),
        Err(_) => Err(format!("'{s}' is not a number")),
    }
}

impl Args {
    pub fn options(&self) -> Options {
        Options {
            tree: self.tree.clone(),
            scale: self.scale,
            seed: self.seed,
            cpu_ns_per_byte: self.cpu_ns_per_byte,
            cold: self.cold,
            dir: self.dir.clone(),
        }
    }
}

pub fn main(a: Args) -> Result<Status> {
    let mut paths = common::Paths::new();
    if let Some(t) = &a.tree {
        paths.input_tree(format!("--tree {}", t.display()), t);
    }
    a.out.check_with(&mut paths)?;
    let o = a.options();
    o.check().map_err(crate::error::UsageError)?;
    let rep = progress::with_bar("andrew", None, None, a.out.progress(), |p| {
        andrew::run(&o, p)
    })?;
    common::finish_with::<andrew::Andrew>(&a.out, &rep.result)
}
