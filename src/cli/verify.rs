//! The flags of `--verify` that every verifying benchmark shares, and
//! `--verify-only DIR`: a kept file set checked again.

use super::common::{self, OutputArgs, Status};
use crate::report::{RunResult, now_rfc3339};
use crate::session::generic::VerifyPlan;
use anyhow::Result;
use std::path::Path;

/// Data verification (docs/verify.md).
#[derive(clap::Args, Debug, Clone, Default)]
#[command(group(clap::ArgGroup::new("verifying").multiple(true).args(["verify", "verify_crash"])))]
pub struct VerifyArgs {
    /// Write every unit with a header and a CRC-32C, and check every unit read back; a run that finds a wrong unit exits with code 3 (docs/verify.md).
    #[arg(long, help_heading = "Verification")]
    pub verify: bool,
    /// Bytes per checked unit (default 4K; a power of two from 512 to 1M); requests and offsets become whole units (--align is raised to it).
    #[arg(long, value_name = "SIZE", value_parser = common::size_arg, requires = "verifying", help_heading = "Verification")]
    pub verify_interval: Option<u64>,
    /// Stop at the first wrong unit (by default the run goes on to its end and counts them all).
    #[arg(long, requires = "verifying", help_heading = "Verification")]
    pub verify_fatal: bool,
    /// Keep the work directory, its files and a manifest of what every unit holds, for a later --verify-only.
    #[arg(long, requires = "verifying", help_heading = "Verification")]
    pub keep: bool,
    /// --verify, and after every --fsync a durable journal of what it made durable: a run killed mid-way leaves its directory for --verify-only, which reports every synced unit lost (docs/verify.md).
    #[arg(long, help_heading = "Verification")]
    pub verify_crash: bool,
}

impl VerifyArgs {
    /// The unit of --verify-interval, 4 KiB by default.
    pub fn unit(&self) -> u64 {
        self.verify_interval.unwrap_or(4096)
    }

    /// Whether the run verifies: --verify, or --verify-crash (which
    /// implies it).
    pub fn on(&self) -> bool {
        self.verify || self.verify_crash
    }

    /// The plan, when --verify or --verify-crash.
    pub fn plan(&self) -> Option<VerifyPlan> {
        self.on().then(|| VerifyPlan {
            unit: self.unit(),
            fatal: self.verify_fatal,
            keep: self.keep,
            crash: self.verify_crash,
        })
    }

    /// Refuse an interval `--verify` cannot use, before anything else
    /// looks at the alignment it raises.
    pub fn check(&self) -> Result<()> {
        if self.verify {
            crate::session::generic::check_interval(self.unit())?;
        }
        Ok(())
    }

    /// The alignment requests need: raised to the unit under --verify.
    pub fn align(&self, align: u64) -> u64 {
        if self.on() {
            align.max(self.unit())
        } else {
            align
        }
    }
}

/// `--verify-only DIR`: check every unit of the file set kept in `dir`
/// against its manifest, change nothing, and report as a run does.
pub fn verify_only(dir: &Path, out: &OutputArgs) -> Result<Status> {
    if !dir.is_dir() {
        crate::usage!(
            "--verify-only {}: is not a directory; name a work directory kept by 'iogauge run --verify --keep' or left by a killed 'iogauge run --verify-crash'",
            crate::error::shown_path(dir)
        );
    }
    let started = now_rfc3339();
    let t0 = std::time::Instant::now();
    // a kept file set has a manifest of every unit; a directory a killed
    // --verify-crash run left has only its journals (a run that ended
    // removed it, or wrote a manifest with --keep)
    let crash = !dir.join(crate::verify::track::MANIFEST).is_file()
        && crate::verify::crash::is_crash_dir(dir);
    let section = if crash {
        crash_section(dir)?
    } else {
        crate::verify::track::verify_dir(dir)?
    };
    let config = serde_json::json!({ "verify_only": crate::error::shown_path(dir) });
    let env = crate::env::detect_on(dir, crate::env::mount_for(dir));
    let mut result = RunResult::new("verify", config, env, started);
    result.elapsed_s = t0.elapsed().as_secs_f64();
    result.complete = true;
    // one reader: this process
    result.summary.workers = 1;
    add_metrics(&mut result, &section);
    result.verify = Some(section);
    let report = format!(
        "iogauge run --verify-only {}\n",
        crate::error::shown_path(dir)
    );
    common::finish(out, &result, &report)
}

/// The `verify` section of `--verify-only` on a directory a killed
/// `--verify-crash` run left: every unit a sync covered (or the layout's
/// sync) judged against its journal; units lost after fsync are the
/// mismatches.
fn crash_section(dir: &Path) -> Result<crate::verify::track::Section> {
    let head = crate::verify::crash::Head::read(dir)?;
    let mut s = crate::verify::track::Section::new(head.unit);
    let c = crate::verify::crash::verify_dir(dir, |m| s.mismatch(m), &mut 0)?;
    s.units_checked = c.units_synced + c.units_laid_out - c.units_torn_unsynced;
    s.not_checked.unknown = c.units_torn_unsynced;
    s.crash = Some(c);
    Ok(s)
}

/// The verify counts as headline metrics (`metric.verify_*` columns of the
/// CSV).
pub fn add_metrics(result: &mut RunResult, s: &crate::verify::track::Section) {
    let n = &s.not_checked;
    for (k, v) in [
        ("verify_units_written", s.units_written),
        ("verify_units_checked", s.units_checked),
        (
            "verify_units_not_checked",
            n.raced + n.short_read + n.unknown,
        ),
        ("verify_mismatches", s.mismatches),
    ] {
        result.metrics.insert(k.into(), v.into());
    }
    if let Some(c) = &s.crash {
        for (k, v) in [
            ("verify_crash_journal_records", c.journal_records),
            ("verify_crash_units_synced", c.units_synced),
            ("verify_crash_lost_after_fsync", c.lost_after_fsync),
        ] {
            result.metrics.insert(k.into(), v.into());
        }
    }
}
