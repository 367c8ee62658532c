//! TPC-B at one load point (`iogauge scale tpcb`): the load is its
//! terminals, or the transactions per second offered.

use super::report;
use super::run::{self as tpcb, Options, Report};
use crate::measure::LatencySummary;
use crate::measure::curve::{Load, Sample};
use crate::suites::load::{LoadPoint, Measured, Rep, Units, sample};
use crate::suites::survey::with_bar;
use anyhow::Result;

/// What TPC-B's throughput counts.
pub const UNITS: Units = Units {
    unit_name: "transaction",
    unit: "tx/s",
};

/// TPC-B as its command's flags give it, `duration` one repetition's
/// length; each repetition sets the terminals or the rate, and the seeds.
pub struct TpcbPoint(pub Options);

impl LoadPoint for TpcbPoint {
    fn units(&self) -> Units {
        UNITS
    }

    fn queues(&self, _max: u16) -> Result<(), String> {
        Err("reads each record, changes it and writes it back under its lock before the next, as TPC-B's profile goes: one request in flight per terminal; raise the terminals instead".into())
    }

    fn measure(&self, r: &Rep) -> Result<Measured> {
        let load = r.load;
        let mut o = self.0.clone();
        // each repetition its own transactions and arrival schedule
        o.seed = r.seed(o.seed);
        o.pace = r.pace(o.pace);
        if let Load::Closed(n) = load {
            o.terminals = n;
        }
        let label = format!("tpcb {}", load.label());
        let rep = with_bar(r.bars, &label, Some(o.duration), None, |p| tpcb::run(&o, p))?;
        if rep.sums.as_ref().is_some_and(|s| !s.consistent()) {
            anyhow::bail!(
                "tpcb at {}: the database is inconsistent after the run",
                load.label()
            );
        }
        Ok((sample_of(&rep), rep.result))
    }

    fn note(&self, tps: f64) -> Option<String> {
        report::sizing_note(self.0.tps_scale, tps)
    }
}

/// A sample from a TPC-B run: its transactions' response times.
pub fn sample_of(rep: &Report) -> Sample {
    let f = &rep.figures;
    let lat = LatencySummary {
        mean: f.mean_response_s * 1e9,
        p90: (f.p90_response_s * 1e9) as u64,
        p99: (f.p99_response_s * 1e9) as u64,
        ..Default::default()
    };
    sample(&rep.result, f.tps, f.transactions, &lat)
}
