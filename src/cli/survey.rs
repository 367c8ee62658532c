//! `iogauge survey`: a short form of every benchmark iogauge has, and a
//! one-page scorecard.

use super::common::Status;
use super::iostone;
use crate::engine::FsyncPolicy;
use crate::report::{RunResult, Tool, now_rfc3339, write_json};
use crate::runner::{StopRule, signals};
use crate::suites::iostone::Variant;
use crate::workload::exec::{IoSetup, run_generic};
use crate::workload::generic::GenericSpec;
use anyhow::Result;
use serde::Serialize;
use std::fmt::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Measure the directory with a short form of every benchmark: the generic
/// workload at a few telling points (cached random reads, Chen & Patterson's
/// focal mix, a sequential write with fsync, O_DIRECT random reads) and
/// IOStone C/1 and C/II. Prints a scorecard; writes every result to the JSON.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The directory to measure (the runs work in a subdirectory they remove).
    #[arg(default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    /// Keep the whole survey under a minute (2 s per workload instead of 10 s, smaller files).
    #[arg(long)]
    pub quick: bool,
    /// Where to write the survey's JSON ('-' for stdout).
    #[arg(long, default_value = "survey.json", value_name = "PATH")]
    pub json: PathBuf,
    /// Print no scorecard.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Serialize)]
struct Entry {
    name: String,
    figure: f64,
    unit: String,
    result: RunResult,
}

#[derive(Serialize)]
struct Survey {
    schema: &'static str,
    tool: Tool,
    started_at: String,
    quick: bool,
    complete: bool,
    environment: crate::env::Environment,
    entries: Vec<Entry>,
    /// The model the short self-scaling pass wrote (for `iogauge predict`).
    selfscale_model: Option<String>,
}

/// Where the survey's self-scaling pass writes its model and graphs: beside
/// the survey's JSON (`survey.json` → `survey-selfscale/`).
fn selfscale_dir(json: &std::path::Path) -> PathBuf {
    if json.as_os_str() == "-" {
        return PathBuf::from("survey-selfscale");
    }
    let stem = json
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("survey");
    json.with_file_name(format!("{stem}-selfscale"))
}

struct Point {
    name: &'static str,
    spec: GenericSpec,
    setup: IoSetup,
}

fn points(quick: bool, direct_ok: bool) -> Vec<Point> {
    let scale = if quick { 1 } else { 2 };
    let spec = |unique: u64, mean: u64, cv: f64, read: f64, seq: f64, align: u64| GenericSpec {
        unique_bytes: unique * scale,
        size_mean: mean,
        size_cv: cv,
        read_frac: read,
        seq_frac: seq,
        processes: 1,
        files: 1,
        align,
        seed: 1,
    };
    let setup = |direct: bool, fsync: FsyncPolicy| IoSetup {
        engine: "psync".into(),
        direct,
        fsync,
        fdatasync: false,
        cold: false,
    };
    let mut v = vec![
        Point {
            name: "cached 4 KiB random read",
            spec: spec(128 << 20, 4096, 0.0, 1.0, 0.0, 4096),
            setup: setup(false, FsyncPolicy::Never),
        },
        Point {
            name: "focal mix (20K, r.5, s.5)",
            spec: spec(32 << 20, 20 << 10, 1.0, 0.5, 0.5, 512),
            setup: setup(false, FsyncPolicy::Never),
        },
    ];
    if !direct_ok {
        v.push(Point {
            name: "1 MiB seq. write, fsync/16 MiB",
            spec: spec(256 << 20, 1 << 20, 0.0, 0.0, 1.0, 4096),
            setup: setup(false, FsyncPolicy::Every(16)),
        });
    } else {
        v.push(Point {
            name: "O_DIRECT 1 MiB sequential write",
            spec: spec(256 << 20, 1 << 20, 0.0, 0.0, 1.0, 4096),
            setup: setup(true, FsyncPolicy::Never),
        });
        v.push(Point {
            name: "O_DIRECT 4 KiB random read",
            spec: spec(128 << 20, 4096, 0.0, 1.0, 0.0, 4096),
            setup: setup(true, FsyncPolicy::Never),
        });
    }
    v
}

pub fn main(a: Args) -> Result<Status> {
    let md = std::fs::metadata(&a.dir)
        .map_err(|e| super::UsageError::new(format!("{}: {e}", a.dir.display())))?;
    if !md.is_dir() {
        crate::usage!("{} is not a directory", a.dir.display());
    }
    let per = Duration::from_secs(if a.quick { 2 } else { 10 });
    let direct_ok = crate::env::supports_direct(&a.dir).unwrap_or(false);
    let environment = crate::env::detect(&a.dir);
    let mut survey = Survey {
        schema: "iogauge/survey/v1",
        tool: Tool::default(),
        started_at: now_rfc3339(),
        quick: a.quick,
        complete: true,
        environment,
        entries: Vec::new(),
        selfscale_model: None,
    };
    let say = |s: &str| {
        if !a.quiet {
            if a.json.as_os_str() == "-" {
                eprint!("{s}")
            } else {
                print!("{s}")
            }
        }
    };
    let env = &survey.environment;
    say(&format!(
        "iogauge survey of {} ({} on {}, {}){}\n\n  {:<34} {:>22} {:>10} {:>10} {:>6}\n",
        env.target_dir,
        env.fs_type,
        env.device,
        env.mount_options,
        if a.quick { ", quick" } else { "" },
        "benchmark",
        "figure",
        "p50",
        "p99",
        "io%"
    ));
    let mut failed = false;
    let mut add = |survey: &mut Survey, name: String, figure: f64, unit: &str, r: RunResult| {
        let lat = r
            .ops
            .get("read")
            .or_else(|| r.ops.get("write"))
            .or_else(|| r.ops.values().next());
        let (p50, p99) = lat.map_or((0.0, 0.0), |o| {
            (o.latency_ns.p50 as f64, o.latency_ns.p99 as f64)
        });
        let mut line = String::new();
        let _ = writeln!(
            line,
            "  {:<34} {:>22} {:>10} {:>10} {:>5.0}%{}",
            name,
            format!("{} {unit}", human(figure)),
            crate::workload::units::fmt_ns(p50),
            crate::workload::units::fmt_ns(p99),
            r.summary.io_time_fraction * 100.0,
            if r.complete { "" } else { "  (incomplete)" }
        );
        say(&line);
        failed |= r.error.is_some();
        survey.complete &= r.complete;
        survey.entries.push(Entry {
            name,
            figure,
            unit: unit.into(),
            result: r,
        });
    };
    for p in points(a.quick, direct_ok) {
        if signals::interrupted() {
            break;
        }
        let rule = StopRule {
            duration: Some(per),
            ..Default::default()
        };
        let show = !a.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
        let bar = super::progress::Bar::new(p.name, Some(per), None, show);
        let r = run_generic(&p.spec, &p.setup, rule, &a.dir, super::progress::sink(&bar))?;
        drop(bar);
        let (fig, unit) = if p.spec.size_mean >= 1 << 20 {
            (
                (r.summary.read_bytes_per_s + r.summary.write_bytes_per_s) / 1e6,
                "MB/s",
            )
        } else {
            (r.summary.ops_per_s, "IO/s")
        };
        add(&mut survey, format!("run: {}", p.name), fig, unit, r);
    }
    for variant in [Variant::C1, Variant::C2] {
        if signals::interrupted() {
            break;
        }
        let args = iostone::Args {
            variant,
            seeding: iostone::Seeding::Srandom,
            scale: 1,
            dir: a.dir.clone(),
            engine: super::EngineArgs {
                engine: None,
                direct: false,
                fsync: FsyncPolicy::Never,
                fdatasync: false,
            },
            out: super::OutputArgs {
                json: None,
                quiet: true,
            },
        };
        let r = iostone::measure(&args)?;
        let fig = r
            .metrics
            .get("iostones_per_s")
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        let name = match variant {
            Variant::C1 => "iostone C/1",
            Variant::C2 => "iostone C/II",
        };
        add(&mut survey, name.into(), fig, "iostones/s", r);
    }
    if !signals::interrupted() {
        // PostMark 1.53's defaults (500 files, 500 transactions), in DIR
        let cfg = crate::suites::postmark::config::Config {
            locations: vec![crate::suites::postmark::config::Location {
                path: a.dir.display().to_string(),
                weight: 1,
            }],
            ..Default::default()
        };
        let opts = crate::suites::postmark::exec::ExecOptions::default();
        let r = crate::suites::postmark::exec::measure(&cfg, &opts)?;
        let fig = r
            .metrics
            .get("transactions_per_s")
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        add(
            &mut survey,
            "postmark (1.53 defaults)".into(),
            fig,
            "tx/s",
            r,
        );
    }
    if !signals::interrupted() {
        // IOBENCH's defaults, users as processes, for a short while
        let cfg = crate::suites::iobench::Config::default();
        let mode = crate::suites::iobench::Mode::Processes;
        let r = crate::suites::iobench::run_for(&cfg, mode, per, &a.dir)?;
        let fig = r
            .metrics
            .get("transactions_per_s")
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        add(&mut survey, "iobench (defaults)".into(), fig, "tx/s", r);
    }
    if !signals::interrupted() {
        // a short self-scaling pass: regions, focal point, curves
        let out = selfscale_dir(&a.json);
        let pass = crate::selfscale::short_pass(&a.dir, &out, a.quick, &crate::selfscale::Quiet)?;
        let fig = pass.result.summary.read_bytes_per_s + pass.result.summary.write_bytes_per_s;
        say(&format!("  {} (model in {})\n", pass.line, out.display()));
        survey.selfscale_model = Some(pass.model_path.display().to_string());
        let complete = pass.complete;
        add(
            &mut survey,
            "selfscale (short pass)".into(),
            fig / 1e6,
            "MB/s",
            pass.result,
        );
        survey.complete &= complete;
    }
    if signals::interrupted() {
        survey.complete = false;
    }
    write_json(&a.json, &survey)?;
    if a.json.as_os_str() != "-" {
        say(&format!("\nwrote {}\n", a.json.display()));
    }
    Ok(if signals::interrupted() {
        Status::Interrupted
    } else if failed {
        Status::Failed
    } else {
        Status::Done
    })
}

/// 691234 → "691k", 1.2e8 → "120M", 812.3 → "812".
fn human(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2}G", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e4 {
        format!("{:.0}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}
