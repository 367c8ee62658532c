//! What a self-scaling run's result holds, typed: its settings and ranges
//! in `config`, the model's figures in `metrics`, enough to print its
//! summary again (`iogauge show`).

use super::model::{Boundary, CrossCurve, Curve, Model, Ranges, Region, Settings, Workload};
use super::regions::median;
use crate::report::RunResult;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The self-scaling benchmark, typed: its plan, its figures and its
/// summary (the `suites::Benchmark` impl is the command's, in
/// cli/selfscale.rs: this layer does not import `suites`).
pub struct SelfScale;

/// What a self-scaling result's `config` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// How the points were measured (as in model.json).
    pub settings: Settings,
    /// The space the model covers.
    pub ranges: Ranges,
}

/// A region's focal vector and what it measured.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "selfscaleFocal")]
pub struct Focal {
    /// The region's number.
    pub region: usize,
    /// The focal vector.
    pub workload: Workload,
    /// Reads plus writes at the focal vector, 10^6 bytes per second (null
    /// when the run stopped before measuring it).
    pub mb_per_s: Option<f64>,
    /// Reads plus writes per second at the focal vector (null likewise).
    pub iops: Option<f64>,
}

/// The self-scaling model's figures: its headline numbers, and the sweep,
/// regions and curves its summary shows.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "selfscaleFigures")]
pub struct Figures {
    /// The model file the run wrote (its path).
    pub model: String,
    /// How many performance regions the sweep found.
    pub regions: usize,
    /// How many points were measured.
    pub points: usize,
    /// The median over the points of the 95 % confidence interval's
    /// half-width, as a fraction of the estimate.
    pub median_rel_half_width: f64,
    /// How many points stopped at the time cap before reaching the
    /// precision target.
    pub points_at_time_cap: usize,
    /// The effective file cache size, bytes (where the sweep found it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_file_cache_bytes: Option<u64>,
    /// Where each region ends and the next begins.
    pub boundaries: Vec<Boundary>,
    /// Each region's focal vector and its throughput.
    pub focal: Vec<Focal>,
    /// The uniqueBytes sweep, the boundaries' bisection points included.
    pub sweep: Curve,
    /// The sweep again at other values of a second parameter (empty
    /// without interactions).
    pub sweep_cross: Vec<CrossCurve>,
    /// Each region as measured: its span, level, focal vector and curves.
    pub region_details: Vec<Region>,
    /// The set-up lines: what the run picked and why, as it began.
    pub setup: Vec<String>,
    /// What the run noted beyond its set-up lines.
    pub notes: Vec<String>,
    /// Seconds the points were measured (warm-up batches left out).
    pub measured_s: f64,
    /// Seconds the whole run took.
    pub total_s: f64,
    /// The widest half-width of a point stopped at the time cap, as a
    /// fraction of its estimate (where one was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst_at_time_cap: Option<f64>,
    /// The files written into the output directory.
    pub files: Vec<String>,
}

impl Figures {
    /// The figures of model `m`, saved at `model_file` with `files`;
    /// `setup`: the set-up lines of its run.
    pub fn of(m: &Model, model_file: &Path, setup: &[String], files: &[String]) -> Figures {
        let capped = m.points.iter().filter(|p| !p.converged);
        Figures {
            model: model_file.display().to_string(),
            regions: m.regions.len(),
            points: m.points.len(),
            median_rel_half_width: median(
                &m.points
                    .iter()
                    .map(|p| p.rel_half_width)
                    .collect::<Vec<_>>(),
            ),
            points_at_time_cap: capped.clone().count(),
            effective_file_cache_bytes: m
                .boundaries
                .iter()
                .find(|b| b.label == "effective file cache size")
                .map(|b| b.unique_bytes),
            boundaries: m.boundaries.clone(),
            focal: m
                .regions
                .iter()
                .map(|g| Focal {
                    region: g.number,
                    workload: g.focal,
                    mb_per_s: g.focal_point.as_ref().map(|p| p.mb_per_s),
                    iops: g.focal_point.as_ref().map(|p| p.iops),
                })
                .collect(),
            sweep: m.sweep.clone(),
            sweep_cross: m.sweep_cross.clone(),
            region_details: m.regions.clone(),
            setup: setup.to_vec(),
            notes: m
                .notes
                .iter()
                .filter(|n| !setup.contains(n))
                .cloned()
                .collect(),
            measured_s: m.points.iter().map(|p| p.seconds).sum(),
            total_s: m.elapsed_s,
            worst_at_time_cap: capped.map(|p| p.rel_half_width).reduce(f64::max),
            files: files.to_vec(),
        }
    }
}

/// The summary of a self-scaling result, its plan and figures read back
/// from it, as `iogauge show` reads them: with or without the set-up
/// lines (see [`super::summary::render_with`]).
pub fn summary_of(r: &RunResult, with_setup: bool) -> Result<String> {
    let plan: Plan = serde_json::from_value(r.config.clone())
        .context("its config is not a selfscale configuration")?;
    let figures: Figures = r
        .figures()
        .context("its metrics are not selfscale's figures")?;
    Ok(super::summary::render_with(&plan, &figures, r, with_setup))
}
