//! The generic workload at one load point (`iogauge scale run`): the load
//! is its workers, or the requests per second offered.

use crate::measure::curve::Load;
use crate::runner::{Pace, StopRule};
use crate::session::generic::{IoSetup, RunFigures, Target, run_generic};
use crate::suites::load::{LoadPoint, Measured, Rep, Units, sample_of};
use crate::suites::survey::with_bar;
use crate::workload::generic::GenericSpec;
use anyhow::Result;
use std::time::Duration;

/// The workload as its command's flags give it.
pub struct GenericPoint {
    pub spec: GenericSpec,
    pub setup: IoSetup,
    /// One repetition's length.
    pub duration: Duration,
    pub ramp: Option<Duration>,
    /// Its pace; each repetition sets the rate (open loop) and the seed.
    pub pace: Pace,
    /// Where each repetition does its I/O: in a work directory of its
    /// own, or on the user's file.
    pub target: Target,
    /// The workers run as processes of their own.
    pub processes: bool,
    /// Where the workers run and their memory goes.
    pub pin: crate::runner::pin::Pinning,
}

impl LoadPoint for GenericPoint {
    fn units(&self) -> Units {
        Units {
            unit_name: "request",
            unit: "req/s",
        }
    }

    fn queues(&self, max: u16) -> Result<(), String> {
        self.setup.spec().depth(max).check()
    }

    fn measure(&self, r: &Rep) -> Result<Measured> {
        let load = r.load;
        // each repetition its own request stream and arrival schedule
        let mut spec = self.spec.clone();
        spec.seed = r.seed(spec.seed);
        let mut setup = self.setup.clone();
        match load {
            Load::Closed(n) => spec.processes = n,
            Load::Depth(n) => {
                setup.iodepth = u16::try_from(n)?;
                // a batch never larger than the queue it fills
                setup.queue.batch = setup.queue.batch.min(setup.iodepth);
                setup.queue.batch_complete = setup.queue.batch_complete.min(setup.iodepth);
            }
            Load::Open(_) => {}
        }
        let rule = StopRule {
            duration: Some(self.duration),
            ramp: self.ramp,
            pace: r.pace(self.pace),
            pin: self.pin,
            ..Default::default()
        };
        let label = format!("run {}", load.label());
        let r = with_bar(r.bars, &label, rule.duration, None, |p| {
            run_generic(&spec, &setup, rule, &self.target, self.processes, p)
        })?;
        let throughput = r.figures::<RunFigures>()?.requests_per_s;
        // the requests: its reads and writes
        let completed = ["read", "write"]
            .iter()
            .filter_map(|k| r.ops.get(*k))
            .map(|o| o.count)
            .sum();
        Ok((sample_of(&r, throughput, completed), r))
    }
}
