//! A benchmark at one load point: the hook by which `iogauge scale` runs
//! a benchmark at rising load. A benchmark whose command makes one joins
//! scale's workloads without an edit to scale; scale names none of them.

use super::survey::Bars;
use crate::measure::LatencySummary;
use crate::measure::curve::{Load, Sample};
use crate::report::RunResult;
use crate::runner::Pace;
use anyhow::Result;

/// One repetition of a workload at one load: the sample and its result.
pub type Measured = (Sample, RunResult);

/// One repetition of a point: its load, and the seeds that give it a
/// request stream and an open loop's schedule of its own.
pub struct Rep {
    /// This process's load: under mpirun, this rank's part of `job`.
    pub load: Load,
    /// The point's load, across the ranks of an MPI job (else `load`):
    /// for a benchmark that shares out a job's load itself (LADDIS).
    pub job: Load,
    /// The repetition's number at its point (0 first).
    pub rep: usize,
    pub arrivals_seed: u64,
    /// How its progress bar is drawn; `None`: none.
    pub bars: Option<Bars>,
}

impl Rep {
    /// The workload's seed `seed`, moved on for this repetition.
    pub fn seed(&self, seed: u64) -> u64 {
        seed.wrapping_add(self.rep as u64)
    }

    /// The open loop's schedule seed of this repetition.
    pub fn arrivals(&self) -> u64 {
        self.seed(self.arrivals_seed)
    }

    /// `pace` for this repetition: its own arrival schedule and, in an
    /// open loop, the load's rate.
    pub fn pace(&self, pace: Pace) -> Pace {
        let rate = match self.load {
            Load::Open(r) => Some(r),
            Load::Closed(_) | Load::Depth(_) => pace.rate,
        };
        Pace {
            seed: self.arrivals(),
            rate,
            ..pace
        }
    }
}

/// Rank `rank` of `ranks`'s part of a job-wide load: workers shared out,
/// the remainder to the low ranks (each rank has one at least when the
/// load is the ranks or more); an open loop's rate split evenly; a queue
/// depth, which is each worker's, as it is.
pub fn share(load: Load, rank: usize, ranks: usize) -> Load {
    let ranks = ranks.max(1);
    match load {
        Load::Closed(n) => Load::Closed(n / ranks + usize::from(rank < n % ranks)),
        Load::Open(rate) => Load::Open(rate / ranks as f64),
        Load::Depth(d) => Load::Depth(d),
    }
}

/// What a load point's throughput counts.
pub struct Units {
    /// What the throughput counts, singular (for messages): `request`.
    pub unit_name: &'static str,
    /// The unit of throughput: `req/s`.
    pub unit: &'static str,
}

/// A benchmark at one load point: what `scale` needs of it, made by its
/// command from its flags.
pub trait LoadPoint {
    /// What its throughput counts.
    fn units(&self) -> Units;
    /// Its own refusals, once, before anything is measured.
    fn check(&self) -> Result<()> {
        Ok(())
    }
    /// Whether each worker can keep up to `max` requests in flight, as
    /// scale's depth axis asks (its load [`Load::Depth`]); `Err` says why
    /// not, in words that follow the benchmark's name.
    fn queues(&self, max: u16) -> Result<(), String>;
    /// One repetition (`r`) at its load.
    fn measure(&self, r: &Rep) -> Result<Measured>;
    /// A line about the chosen point's throughput, where the benchmark has
    /// one to say (TPC-B's sizing rule).
    fn note(&self, _throughput: f64) -> Option<String> {
        None
    }
}

/// The response times of a result's requests (from the intended start in
/// an open loop), as `run` and `laddis` put them in their metrics.
fn request_times(r: &RunResult) -> LatencySummary {
    r.metrics
        .get("request_response_ns")
        .or(r.metrics.get("request_latency_ns"))
        .and_then(|v| serde_json::from_value::<LatencySummary>(v.clone()).ok())
        .unwrap_or_default()
}

/// A sample from a result whose requests' times are in its metrics
/// (`run`, `laddis`), `completed` requests in all.
pub fn sample_of(r: &RunResult, throughput: f64, completed: u64) -> Sample {
    sample(r, throughput, completed, &request_times(r))
}

/// A sample from a repetition's result, which completed `completed` units.
pub fn sample(r: &RunResult, throughput: f64, completed: u64, lat: &LatencySummary) -> Sample {
    let ol = r.summary.open_loop.as_ref();
    Sample {
        throughput,
        completed,
        mean_s: lat.mean / 1e9,
        p90_s: lat.p90 as f64 / 1e9,
        p99_s: lat.p99 as f64 / 1e9,
        io_time_fraction: r.summary.io_time_fraction,
        cpu_util: r.summary.cpu_util,
        issued: ol.map_or(0, |o| o.issued),
        missed: ol.map_or(0, |o| o.missed),
        issued_per_s: ol.map_or(0.0, |o| o.rate_issued),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_is_shared_out_between_the_ranks() {
        let parts = |l: Load| (0..4).map(|r| share(l, r, 4)).collect::<Vec<_>>();
        let closed: Vec<usize> = parts(Load::Closed(6))
            .into_iter()
            .map(|l| l.value() as usize)
            .collect();
        assert_eq!(closed, [2, 2, 1, 1]);
        assert_eq!(parts(Load::Open(100.0)), [Load::Open(25.0); 4]);
        assert_eq!(parts(Load::Depth(8)), [Load::Depth(8); 4]);
        assert_eq!(share(Load::Closed(5), 0, 1), Load::Closed(5));
    }
}
