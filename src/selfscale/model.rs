//! The self-scaling model: every measured point with its precision, the
//! uniqueBytes sweep, the regions with their focal vectors and curves, the
//! boundaries between regions, two-parameter corrections, and what the
//! measurements ran on. Written as `model.json`; `iogauge predict` reads it.

use crate::env::Environment;
use crate::report::Tool;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const MODEL_SCHEMA: &str = "iogauge/selfscale-model/v1";

/// One of Chen & Patterson's five workload parameters.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[schemars(rename = "selfscaleParam")]
#[serde(rename_all = "snake_case")]
pub enum Param {
    UniqueBytes,
    SizeMean,
    ReadFrac,
    SeqFrac,
    ProcessNum,
}

impl Param {
    pub const ALL: [Param; 5] = [
        Param::UniqueBytes,
        Param::SizeMean,
        Param::ReadFrac,
        Param::SeqFrac,
        Param::ProcessNum,
    ];
    /// The parameters with one curve per region (uniqueBytes has the sweep).
    pub const CURVES: [Param; 4] = [
        Param::SizeMean,
        Param::ReadFrac,
        Param::SeqFrac,
        Param::ProcessNum,
    ];

    /// The paper's name: `uniqueBytes`, `sizeMean`, ...
    pub fn name(self) -> &'static str {
        match self {
            Param::UniqueBytes => "uniqueBytes",
            Param::SizeMean => "sizeMean",
            Param::ReadFrac => "readFrac",
            Param::SeqFrac => "seqFrac",
            Param::ProcessNum => "processNum",
        }
    }

    /// The JSON key and file-name part: `unique_bytes`, `size_mean`, ...
    pub fn key(self) -> &'static str {
        match self {
            Param::UniqueBytes => "unique_bytes",
            Param::SizeMean => "size_mean",
            Param::ReadFrac => "read_frac",
            Param::SeqFrac => "seq_frac",
            Param::ProcessNum => "process_num",
        }
    }

    /// Accepts `uniqueBytes`, `unique_bytes`, `unique-bytes` (any case),
    /// and `processes` for processNum.
    pub fn parse(s: &str) -> Option<Param> {
        let k: String = s
            .trim()
            .chars()
            .filter(|c| *c != '_' && *c != '-')
            .collect::<String>()
            .to_ascii_lowercase();
        match k.as_str() {
            "uniquebytes" => Some(Param::UniqueBytes),
            "sizemean" => Some(Param::SizeMean),
            "readfrac" => Some(Param::ReadFrac),
            "seqfrac" => Some(Param::SeqFrac),
            "processnum" | "processes" => Some(Param::ProcessNum),
            _ => None,
        }
    }

    /// Sizes and counts are interpolated on a log scale, fractions linearly.
    pub fn is_log(self) -> bool {
        matches!(
            self,
            Param::UniqueBytes | Param::SizeMean | Param::ProcessNum
        )
    }

    /// The coordinate curves are interpolated in: log2 for sizes and counts.
    pub fn coord(self, v: f64) -> f64 {
        if self.is_log() {
            v.max(1e-300).log2()
        } else {
            v
        }
    }

    pub fn get(self, w: &Workload) -> f64 {
        match self {
            Param::UniqueBytes => w.unique_bytes as f64,
            Param::SizeMean => w.size_mean as f64,
            Param::ReadFrac => w.read_frac,
            Param::SeqFrac => w.seq_frac,
            Param::ProcessNum => w.process_num as f64,
        }
    }

    /// `w` with this parameter set to `v` (rounded for the integer ones).
    pub fn with(self, w: &Workload, v: f64) -> Workload {
        let mut w = *w;
        match self {
            Param::UniqueBytes => w.unique_bytes = v.round().max(1.0) as u64,
            Param::SizeMean => w.size_mean = v.round().max(1.0) as u64,
            Param::ReadFrac => w.read_frac = v,
            Param::SeqFrac => w.seq_frac = v,
            Param::ProcessNum => w.process_num = v.round().max(1.0) as u32,
        }
        w
    }

    /// A value of this parameter as people read it: `16 KiB`, `0.5`, `4`.
    pub fn show(self, v: f64) -> String {
        match self {
            Param::UniqueBytes | Param::SizeMean => short_bytes(v.round() as u64),
            Param::ReadFrac | Param::SeqFrac => format!("{}", (v * 1000.0).round() / 1000.0),
            Param::ProcessNum => format!("{}", v.round() as u64),
        }
    }
}

pub use crate::units::short_bytes;

/// One workload: a value for each of the five parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "selfscaleWorkload")]
pub struct Workload {
    /// Bytes of data the workload touches (the file's size).
    pub unique_bytes: u64,
    /// Mean request size, bytes.
    pub size_mean: u64,
    /// Fraction of requests that are reads, 0 to 1.
    pub read_frac: f64,
    /// Fraction of requests that follow the previous one, 0 to 1.
    pub seq_frac: f64,
    /// Processes issuing requests at once.
    pub process_num: u32,
}

impl Workload {
    /// A key that identifies the workload exactly (for reusing measurements).
    pub fn key(&self) -> (u64, u64, u64, u64, u32) {
        (
            self.unique_bytes,
            self.size_mean,
            self.read_frac.to_bits(),
            self.seq_frac.to_bits(),
            self.process_num,
        )
    }

    /// `uniqueBytes=64 MiB, sizeMean=16 KiB, readFrac=0.5, seqFrac=0.5, processNum=1`
    pub fn describe(&self) -> String {
        Param::ALL
            .iter()
            .map(|p| format!("{}={}", p.name(), p.show(p.get(self))))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The form `--workload` and the CSV take: `uniqueBytes=64M,...`.
    pub fn to_arg(&self) -> String {
        format!(
            "uniqueBytes={},sizeMean={},readFrac={},seqFrac={},processNum={}",
            self.unique_bytes, self.size_mean, self.read_frac, self.seq_frac, self.process_num
        )
    }
}

/// One measured workload and how precisely it was measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "selfscalePoint")]
pub struct Point {
    /// What was measured.
    pub workload: Workload,
    /// Reads plus writes, 10^6 bytes per second.
    pub mb_per_s: f64,
    /// Reads plus writes per second.
    pub iops: f64,
    /// Reads, 10^6 bytes per second.
    pub read_mb_per_s: f64,
    /// Writes, 10^6 bytes per second.
    pub write_mb_per_s: f64,
    /// The mean size of the requests issued (sizes are clipped at the file size).
    pub mean_request_bytes: f64,
    /// Half-width of the 95 % confidence interval of the throughput, over
    /// the per-batch samples, divided by the estimate.
    pub rel_half_width: f64,
    /// Measured batches (the warm-up batch is not counted).
    pub batches: u32,
    /// Measured seconds (without the warm-up batch).
    pub seconds: f64,
    /// The precision target was reached before the time cap.
    pub converged: bool,
}

/// Throughput against one parameter, the others held at `fixed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "selfscaleCurve")]
pub struct Curve {
    /// The parameter that varies.
    pub param: Param,
    /// The values of the other parameters (this parameter's own entry is
    /// the focal value).
    pub fixed: Workload,
    /// Sorted by this parameter's value.
    pub points: Vec<Point>,
}

impl Curve {
    pub fn new(param: Param, fixed: Workload) -> Self {
        Curve {
            param,
            fixed,
            points: Vec::new(),
        }
    }

    pub fn sort(&mut self) {
        let p = self.param;
        self.points
            .sort_by(|a, b| p.get(&a.workload).total_cmp(&p.get(&b.workload)));
    }

    /// (value, MB/s) pairs, sorted.
    pub fn xy(&self) -> Vec<(f64, f64)> {
        self.points
            .iter()
            .map(|q| (self.param.get(&q.workload), q.mb_per_s))
            .collect()
    }
}

/// A performance region: a plateau (or a gentle ramp) of the uniqueBytes
/// sweep, with its focal vector and one curve per other parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "selfscaleRegion")]
pub struct Region {
    /// 1, 2, ... from small to large uniqueBytes.
    pub number: usize,
    /// First sweep point of the plateau (uniqueBytes).
    pub lo_bytes: u64,
    /// Last sweep point of the plateau (uniqueBytes).
    pub hi_bytes: u64,
    /// Median throughput of the plateau's sweep points.
    pub level_mb_per_s: f64,
    /// Workloads with uniqueBytes in [from_bytes, to_bytes] use this region.
    pub from_bytes: u64,
    /// See `from_bytes`.
    pub to_bytes: u64,
    /// The focal vector: the workload the curves vary one parameter of.
    pub focal: Workload,
    /// T(F): the mean of the focal workload's measurements in the four
    /// curves (each curve is measured afresh and measures F first and
    /// last), with the confidence interval of those repeats as its
    /// precision.
    pub focal_point: Option<Point>,
    /// The eight measurements of the focal workload (MB/s): first and last
    /// of the sizeMean, readFrac, seqFrac and processNum curves. Their
    /// spread shows how much the machine drifted while the region was
    /// measured.
    #[serde(default)]
    pub focal_repeats: Vec<f64>,
    /// Rounds of the focal-point iteration.
    pub rounds: u32,
    /// Whether the focal-point iteration settled.
    pub stable: bool,
    /// sizeMean, readFrac, seqFrac, processNum (those measured so far).
    pub curves: Vec<Curve>,
    /// Curves measured again at other values of a second parameter, where
    /// two parameters interact: the processNum curve at readFrac 0 and 1
    /// (writers share the file and its lock; readers do not).
    #[serde(default)]
    pub cross: Vec<CrossCurve>,
}

/// A region's curve of one parameter measured with a second parameter
/// (`across`) at `at` instead of its focal value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "selfscaleCrossCurve")]
pub struct CrossCurve {
    /// The second parameter.
    pub across: Param,
    /// Its value for this curve.
    pub at: f64,
    /// The curve measured there.
    pub curve: Curve,
}

/// What the model's own validation found: the error to expect of a
/// prediction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expected {
    pub workloads: usize,
    pub median_error: f64,
    pub p75_error: f64,
    /// The same workloads measured twice: the machine's own spread.
    pub repeatability_error: f64,
    /// Whether the figures are after `--refine`'s corrections.
    pub refined: bool,
}

impl Region {
    pub fn curve(&self, p: Param) -> Option<&Curve> {
        self.curves.iter().find(|c| c.param == p)
    }
}

/// Where one region ends and the next begins.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "selfscaleBoundary")]
pub struct Boundary {
    /// The region below (its number).
    pub below: usize,
    /// The region above (its number).
    pub above: usize,
    /// The uniqueBytes where throughput has fallen halfway (geometrically,
    /// at most to half) from the last point of the region below to the
    /// first of the region above (see `regions`); for a ramp split, the
    /// geometric middle of those two points.
    pub unique_bytes: u64,
    /// "effective file cache size", "effective CPU cache size", ...
    pub label: String,
    /// A cliff between plateaus (true) or a split of a long ramp (false).
    pub cliff: bool,
    /// Throughput at the last point of the region below, MB/s.
    pub upper_mb_per_s: f64,
    /// Throughput at the first point of the region above, MB/s.
    pub lower_mb_per_s: f64,
    /// The thrashing zone of a cliff: uniqueBytes strictly between these
    /// two values (the last point of the region below and the first of the
    /// region above).
    pub transition: [u64; 2],
}

/// A two-parameter correction in one quadrant of one region (`--refine`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Correction {
    pub region: usize,
    pub params: [Param; 2],
    /// The side of the focal value, -1 or +1, for each parameter.
    pub quadrant: [i8; 2],
    /// The corner measured: both parameters at the ends of their ranges.
    pub corner: Workload,
    pub measured: Point,
    /// What the model predicted at the corner before this correction.
    pub predicted_mb_per_s: f64,
    pub predicted_iops: f64,
    /// ln(measured / predicted) at the corner, for MB/s and IOPS.
    pub log_factor: f64,
    pub log_factor_iops: f64,
}

/// How the points were measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub engine: String,
    pub direct: bool,
    /// Requests each worker kept in flight (absent: 1).
    #[serde(
        default = "crate::session::generic::one_in_flight",
        skip_serializing_if = "crate::session::generic::is_one"
    )]
    pub iodepth: u16,
    /// The queued engine's flags (absent: none).
    #[serde(default, skip_serializing_if = "crate::engine::QueueOpts::is_default")]
    pub queue: crate::engine::QueueOpts,
    /// never or every=N.
    pub fsync: String,
    pub fdatasync: bool,
    pub size_cv: f64,
    pub seed: u64,
    pub align: u64,
    /// Where random requests went (an extension of the method; absent:
    /// uniform, as the method has it).
    #[serde(
        default,
        skip_serializing_if = "crate::workload::dist::Dist::is_random"
    )]
    pub distribution: crate::workload::dist::Dist,
    /// The page-cache bound, when the workers ran in a memory cgroup.
    pub memory_limit: Option<u64>,
    /// "cgroup v2 memory.max", "cgroup v1 memory.limit_in_bytes" or none.
    pub memory_limit_via: Option<String>,
    pub quick: bool,
    /// Target relative half-width of the 95 % confidence interval.
    pub precision: f64,
    /// Time cap of one point, and the length of one batch.
    pub point_time_s: f64,
    pub batch_s: f64,
    pub max_regions: usize,
    /// Relative drop (beyond the curve's typical step) that splits plateaus.
    pub tolerance: f64,
    /// The directory measured.
    pub dir: String,
}

/// The space the model covers; validation draws from it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ranges {
    pub unique_bytes: [u64; 2],
    pub size_mean: [u64; 2],
    pub read_frac: [f64; 2],
    pub seq_frac: [f64; 2],
    pub process_num: [u32; 2],
}

impl Ranges {
    /// The measured range of `p`, as (low, high).
    pub fn of(&self, p: Param) -> (f64, f64) {
        match p {
            Param::UniqueBytes => (self.unique_bytes[0] as f64, self.unique_bytes[1] as f64),
            Param::SizeMean => (self.size_mean[0] as f64, self.size_mean[1] as f64),
            Param::ReadFrac => (self.read_frac[0], self.read_frac[1]),
            Param::SeqFrac => (self.seq_frac[0], self.seq_frac[1]),
            Param::ProcessNum => (
                f64::from(self.process_num[0]),
                f64::from(self.process_num[1]),
            ),
        }
    }

    /// One warning per parameter of `w` outside the measured range, with
    /// how far outside: there the model only holds its curves at their last
    /// measured values, so the prediction is an extrapolation.
    pub fn extrapolations(&self, w: &Workload) -> Vec<String> {
        Param::ALL
            .iter()
            .filter_map(|&p| {
                let v = p.get(w);
                let (lo, hi) = self.of(p);
                let (edge, side) = if v < lo {
                    (lo, "below the smallest")
                } else if v > hi {
                    (hi, "above the largest")
                } else {
                    return None;
                };
                let by = if p.is_log() && v > 0.0 && edge > 0.0 {
                    let f = if v > edge { v / edge } else { edge / v };
                    format!("{f:.1}×")
                } else {
                    format!("{:.2}", (v - edge).abs())
                };
                Some(format!(
                    "{} {} is {by} {side} measured value ({}; the model measured {} … {}): the prediction extrapolates, holding the curves at their last measured values",
                    p.name(),
                    p.show(v),
                    p.show(edge),
                    p.show(lo),
                    p.show(hi)
                ))
            })
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Model {
    pub schema: String,
    pub tool: Tool,
    /// False when the run was interrupted or failed part-way.
    pub complete: bool,
    pub started_at: String,
    pub elapsed_s: f64,
    pub environment: Environment,
    pub settings: Settings,
    pub ranges: Ranges,
    /// The uniqueBytes sweep (the other parameters at `sweep.fixed`),
    /// including the points added to locate the boundaries.
    pub sweep: Curve,
    /// The sweep again with readFrac at 0 and 1 (where the cache holds the
    /// data only partly, writers and readers fall at different sizes), at
    /// the sweep's uniqueBytes; empty without interactions.
    #[serde(default)]
    pub sweep_cross: Vec<CrossCurve>,
    pub regions: Vec<Region>,
    pub boundaries: Vec<Boundary>,
    #[serde(default)]
    pub corrections: Vec<Correction>,
    /// Every measurement, in the order taken.
    pub points: Vec<Point>,
    #[serde(default)]
    pub notes: Vec<String>,
    /// The expected error, once the model was validated (`--validate`).
    #[serde(default)]
    pub validation: Option<Expected>,
}

impl Model {
    pub fn new(
        environment: Environment,
        settings: Settings,
        ranges: Ranges,
        start: Workload,
    ) -> Self {
        Model {
            schema: MODEL_SCHEMA.into(),
            tool: Tool::default(),
            complete: false,
            started_at: crate::report::now_rfc3339(),
            elapsed_s: 0.0,
            environment,
            settings,
            ranges,
            sweep: Curve::new(Param::UniqueBytes, start),
            sweep_cross: Vec::new(),
            regions: Vec::new(),
            boundaries: Vec::new(),
            corrections: Vec::new(),
            points: Vec::new(),
            notes: Vec::new(),
            validation: None,
        }
    }

    /// Whether the model can predict: at least one region with its focal
    /// point measured.
    pub fn usable(&self) -> bool {
        self.regions.iter().any(|r| r.focal_point.is_some())
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        let mut text = serde_json::to_string_pretty(self).context("cannot serialise the model")?;
        text.push('\n');
        crate::report::export::write_file(path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
    }

    /// Read a model file; a file that is not one is a usage error (exit 2).
    pub fn load(path: &Path) -> Result<Model> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            crate::error::UsageError::new(format!("cannot read the model {}: {e}", path.display()))
        })?;
        Model::parse(&text, path)
    }

    /// A model file's text (`path` names it in errors): as [`Model::load`].
    pub fn parse(text: &str, path: &Path) -> Result<Model> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            crate::error::UsageError::new(format!("{}: not JSON ({e})", path.display()))
        })?;
        if v.get("schema").and_then(|s| s.as_str()) != Some(MODEL_SCHEMA) {
            crate::usage!(
                "{} is not a selfscale model (its schema is not {MODEL_SCHEMA}); use the model.json that 'iogauge selfscale' wrote",
                path.display()
            );
        }
        let m: Model = serde_json::from_value(v).map_err(|e| {
            crate::error::UsageError::new(format!("{}: a damaged model ({e})", path.display()))
        })?;
        if !m.usable() {
            crate::usage!(
                "{} holds no measured region (the run that wrote it stopped too early); run 'iogauge selfscale' again",
                path.display()
            );
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn param_names_parse_back() {
        for p in Param::ALL {
            assert_eq!(Param::parse(p.name()), Some(p));
            assert_eq!(Param::parse(p.key()), Some(p));
            assert_eq!(
                Param::parse(&p.key().replace('_', "-").to_uppercase()),
                Some(p)
            );
        }
        assert_eq!(Param::parse("processes"), Some(Param::ProcessNum));
        assert_eq!(Param::parse("size"), None);
    }

    #[test]
    fn short_bytes_trims_zeros() {
        assert_eq!(short_bytes(16 << 10), "16 KiB");
        assert_eq!(short_bytes(512), "512 B");
        assert_eq!(short_bytes(3 << 29), "1.5 GiB");
        assert_eq!(short_bytes(1 << 30), "1 GiB");
    }
}
