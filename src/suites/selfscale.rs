//! The self-scaling benchmark in the benchmark table: its plan and
//! figures are selfscale's own types, its classic report its summary.

pub mod survey;

use crate::report::RunResult;
use crate::selfscale::result::{Figures, Plan, SelfScale};
use crate::selfscale::summary;

impl super::Benchmark for SelfScale {
    const NAME: &'static str = "selfscale";
    type Plan = Plan;
    type Figures = Figures;
    fn classic(plan: &Plan, figures: &Figures, result: &RunResult) -> String {
        summary::render_with(plan, figures, result, true)
    }
}
