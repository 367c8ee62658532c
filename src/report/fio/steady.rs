//! fio's steady-state verdict as its reports show it (the detection is
//! the fio suite's): the criterion and the window's samples.

use serde::{Deserialize, Serialize};

/// What is sampled and judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SsMetric {
    Iops,
    Bw,
}

/// fio's `steadystate=`: metric, criterion and limit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SsCriterion {
    pub metric: SsMetric,
    /// The least-squares slope, instead of the largest deviation.
    pub slope: bool,
    /// The limit: a percentage of the window's mean when `pct`, else in
    /// the metric's unit (IOPS, or bytes per second).
    pub limit: f64,
    pub pct: bool,
}

impl Default for SsCriterion {
    /// fio's default, `iops_slope:0.01%`.
    fn default() -> SsCriterion {
        SsCriterion {
            metric: SsMetric::Iops,
            slope: true,
            limit: 0.01,
            pct: true,
        }
    }
}

impl SsCriterion {
    /// fio's name of the criterion with its limit, as its JSON's `ss`
    /// holds it: `iops:10.000000%`.
    pub fn fio_form(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            self.metric_name(),
            if self.slope { "_slope" } else { "" },
            self.limit as f32,
            if self.pct { "%" } else { "" }
        )
    }

    fn metric_name(&self) -> &'static str {
        match self.metric {
            SsMetric::Iops => "iops",
            SsMetric::Bw => "bw",
        }
    }
}

/// What the detector found, for fio's report (`steadystate` in its JSON,
/// the `steadystate :` line of its normal output).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SsReport {
    pub criterion: SsCriterion,
    /// `ss_dur` in seconds.
    pub duration_s: u64,
    pub attained: bool,
    /// The last criterion judged (percent of the mean when the limit is
    /// one), 0 before the window first filled.
    pub value: f64,
    pub max_deviation: f64,
    pub slope: f64,
    /// The window's samples, oldest first (IOPS, bytes per second); the
    /// slots not filled yet are 0, as in fio.
    pub iops: Vec<u64>,
    pub bw: Vec<u64>,
    /// The job's `kb_base`, for the bandwidth in fio's normal output.
    pub kb_base: u64,
}

impl SsReport {
    /// fio's `steadystate_data_mean`: the sum over the whole window's
    /// slots over their count (integer division).
    pub fn iops_mean(&self) -> u64 {
        mean_of(&self.iops)
    }

    pub fn bw_mean(&self) -> u64 {
        mean_of(&self.bw)
    }
}

fn mean_of(v: &[u64]) -> u64 {
    if v.is_empty() {
        0
    } else {
        v.iter().sum::<u64>() / v.len() as u64
    }
}
