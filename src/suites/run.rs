//! The generic workload (`iogauge run`) in the benchmark table: its plan
//! and figures are the session's generic types, its report one line of
//! the workload and iogauge's tables.

pub mod load;
pub mod survey;

use crate::report::RunResult;
use crate::session::generic::{GenericRun, RunFigures, RunPlan, describe};

impl super::Benchmark for GenericRun {
    const NAME: &'static str = "run";
    type Plan = RunPlan;
    type Figures = RunFigures;
    fn classic(plan: &RunPlan, _: &RunFigures, result: &RunResult) -> String {
        let cap = if plan.pace.cap.is_none() {
            String::new()
        } else {
            format!("  bandwidth cap: {}\n", plan.pace.cap.describe())
        };
        format!(
            "iogauge run: {}\n{cap}{}",
            describe(&plan.workload, &plan.io, plan.user_file.as_ref()),
            crate::report::text::render(result)
        )
    }
}
