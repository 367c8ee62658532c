//! LADDIS at one load point (`iogauge scale laddis`): the load is its
//! processes, or the NFS ops/s offered.

use super::run::{self as laddis, Options};
use crate::measure::curve::Load;
use crate::runner::{Pace, StopRule};
use crate::suites::load::{LoadPoint, Measured, Rep, Units, sample_of};
use crate::suites::survey::with_bar;
use anyhow::Result;
use std::time::Duration;

/// LADDIS as its command's flags give it.
pub struct LaddisPoint {
    pub options: Options,
    /// One repetition's length.
    pub duration: Duration,
    /// Its pace; each repetition sets the rate (open loop) and the seed.
    pub pace: Pace,
    /// The claim was given: the file set does not follow an open loop's rate.
    pub claim_given: bool,
}

impl LoadPoint for LaddisPoint {
    fn units(&self) -> Units {
        Units {
            unit_name: "NFS operation",
            unit: "ops/s",
        }
    }

    fn check(&self) -> Result<()> {
        self.options.check().map_err(crate::error::UsageError)?;
        Ok(())
    }

    fn measure(&self, r: &Rep) -> Result<Measured> {
        let load = r.load;
        let mut o = self.options.clone();
        // each repetition its own operations and arrival schedule
        o.seed = r.seed(o.seed);
        let mut pace = Pace {
            seed: r.arrivals(),
            ..self.pace
        };
        match load {
            Load::Closed(n) => o.procs = n,
            Load::Open(r) => {
                pace.rate = Some(r);
                // LADDIS's rule: the file set grows with the load asked
                if !self.claim_given {
                    o.claim = r;
                }
            }
        }
        let rule = StopRule {
            duration: Some(self.duration),
            pace,
            ..Default::default()
        };
        let label = format!("laddis {}", load.label());
        let rep = with_bar(r.bars, &label, rule.duration, None, |p| {
            laddis::run(&o, rule, p)
        })?;
        let f = &rep.figures;
        Ok((
            sample_of(&rep.result, f.nfs_ops_per_s, f.nfs_ops),
            rep.result,
        ))
    }
}
