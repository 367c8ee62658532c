//! `iogauge laddis`: one load point of LADDIS (SPEC SFS 1.0), the NFS
//! operation mix run as local calls over a file set.

use super::common::{self, Status};
use super::progress;
use super::scale;
use crate::runner::StopRule;
use crate::suites::laddis::Laddis;
use crate::suites::laddis::load::LaddisPoint;
use crate::suites::laddis::mix::Mix;
use crate::suites::laddis::run::{self as laddis, DEFAULT_CLAIM, DEFAULT_FILESET, Options};
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// LADDIS (SPEC SFS 1.0, 1993) and nhfsstone: a fixed mix of NFS version 2
/// operations, each issued as the local system call a client turns into
/// it (lookup as stat, read as pread, ...), on a file set made untimed and
/// sized 5.4 MiB per NFS op/s claimed. Reports NFS ops/s, the average
/// response time against LADDIS's 50 ms limit, and a line per operation.
/// Point --dir at an NFS mount to load an NFS server through its client.
/// Under mpirun each rank is a client: --rate and the file set are the
/// server's, split between them; --procs is per client.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Load-generating processes (one thread each), every one with its own share of the file set; under mpirun, on each client (rank).
    #[arg(long, default_value = "4", value_name = "N", value_parser = common::count_arg, allow_hyphen_values = true)]
    pub procs: usize,
    /// How long the processes run (e.g. 10s, 2m; a plain number is seconds). Default 10s; under 'iogauge scale', each repetition of a point, default 2s.
    #[arg(long, value_name = "TIME", value_parser = common::duration_arg, allow_hyphen_values = true)]
    pub duration: Option<Duration>,
    /// The NFS ops/s the file set is sized for (5.4 MiB per op/s). Default: the --rate if given, else 10.
    #[arg(long, value_name = "OPS", value_parser = common::rate_arg, allow_hyphen_values = true)]
    pub claim: Option<f64>,
    /// on: the file set grows with --claim (LADDIS's rule); off: it is --fileset.
    #[arg(long, default_value = "on", value_name = "on|off", value_parser = common::on_off, action = clap::ArgAction::Set)]
    pub scaling: bool,
    /// The file set's size with --scaling off (e.g. 64M, 1G). Default: 64M.
    #[arg(long, value_name = "SIZE", value_parser = common::size_arg)]
    pub fileset: Option<u64>,
    /// The operation mix: nhfsstone (the default, taken as LADDIS's), sfs2 (SPEC SFS 2.0's NFS v2 mix), or a file of 'op percent' lines.
    #[arg(long, default_value = "nhfsstone", value_name = "NAME|FILE")]
    pub mix: String,
    /// Seed of the file sizes and of each process's draws (process k draws stream k).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    /// Parent of the run's work directory (created and removed by the run); any mounted directory, an NFS mount included.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub run: common::PointArgs,
    #[command(flatten)]
    pub cluster: common::ClusterArgs,
}

common::cmd!(run.out, {
    const LOAD_ABOUT: Option<&'static str> = Some(
        "LADDIS (its flags as 'iogauge laddis'); the load is its processes, or the NFS ops/s offered.",
    );
    fn load_point(self) -> Option<scale::Point> {
        let flags = scale::PointFlags {
            args: self.run.clone(),
            depth: 1,
            workers: ("--procs", 4, self.procs),
            inputs: self.inputs(),
        };
        let point = self.cluster.apply().and_then(|()| self.point());
        Some(scale::Point::new(flags, point))
    }
});

/// The mix `--mix` names: a built-in one, or a mix file.
pub fn mix_arg(s: &str) -> Result<Mix> {
    match s {
        "nhfsstone" => Ok(Mix::nhfsstone()),
        "sfs2" => Ok(Mix::sfs2()),
        _ => {
            let path = Path::new(s);
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => crate::usage!(
                    "--mix {s}: not nhfsstone or sfs2, and no mix file can be read there ({})",
                    crate::runner::workdir::io_reason(&e)
                ),
            };
            Mix::parse(&text, path).map_err(|e| crate::error::UsageError::new(e.to_string()).into())
        }
    }
}

impl Args {
    /// LADDIS at a load point.
    fn point(&self) -> Result<LaddisPoint> {
        Ok(LaddisPoint {
            options: self.options()?,
            duration: scale::repetition(self.duration),
            pace: self.run.load.pace_uncapped(self.seed, "laddis")?,
            claim_given: self.claim.is_some(),
        })
    }

    /// The files the run reads: a mix file.
    pub fn inputs(&self) -> common::Paths {
        let mut paths = common::Paths::new();
        if !matches!(self.mix.as_str(), "nhfsstone" | "sfs2") {
            paths.input(format!("the mix file {}", self.mix), Path::new(&self.mix));
        }
        paths
    }

    pub fn options(&self) -> Result<Options> {
        if self.scaling && self.fileset.is_some() {
            crate::usage!(
                "--fileset needs --scaling off; with scaling on the file set is 5.4 MiB per op/s of --claim"
            );
        }
        if self.duration.is_some_and(|d| d.is_zero()) {
            crate::usage!("--duration must be longer than 0");
        }
        Ok(Options {
            procs: self.procs,
            spread: None,
            claim: self.claim.or(self.run.load.rate).unwrap_or(DEFAULT_CLAIM),
            fileset: (!self.scaling).then(|| self.fileset.unwrap_or(DEFAULT_FILESET)),
            mix: mix_arg(&self.mix)?,
            seed: self.seed,
            dir: self.dir.clone(),
        })
    }
}

pub fn main(a: Args) -> Result<Status> {
    a.run.out.check_with(&mut a.inputs())?;
    a.cluster.apply()?;
    let o = a.options()?;
    o.check().map_err(crate::error::UsageError)?;
    let duration = a.duration.unwrap_or(Duration::from_secs(10));
    let rule = StopRule {
        duration: Some(duration),
        pace: a.run.load.pace_uncapped(a.seed, "laddis")?,
        ..Default::default()
    };
    if a.run.check.check {
        laddis::check(&o, &rule)?;
        return Ok(common::checked(&format!(
            "iogauge laddis, mix {}",
            o.mix.name()
        )));
    }
    let rep = progress::with_bar("laddis", Some(duration), None, a.run.out.progress(), |p| {
        laddis::run(&o, rule, p)
    })?;
    common::finish_with::<Laddis>(&a.run.out, &rep.result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixes_are_named_or_read_from_a_file() {
        assert_eq!(mix_arg("nhfsstone").unwrap(), Mix::nhfsstone());
        assert_eq!(mix_arg("sfs2").unwrap(), Mix::sfs2());
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("m.mix");
        std::fs::write(&f, "lookup 60\nread 40\n").unwrap();
        assert_eq!(
            mix_arg(f.to_str().unwrap())
                .unwrap()
                .weight(crate::suites::laddis::mix::NfsOp::Read),
            40
        );
        std::fs::write(&f, "lookup 60\nread forty\n").unwrap();
        let e = mix_arg(f.to_str().unwrap()).unwrap_err();
        assert!(crate::error::is_usage(&e));
        assert!(e.to_string().contains("m.mix:2: bad percentage"), "{e}");
        let e = mix_arg("nosuch").unwrap_err();
        assert!(
            crate::error::is_usage(&e) && e.to_string().contains("--mix nosuch"),
            "{e}"
        );
    }
}
