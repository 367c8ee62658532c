//! Sdet (SPEC SDM, 1991): a software-development environment's throughput.
//!
//! Sdet runs N *scripts* at once; each script is a list of user commands
//! in random order taken from software development: editing, text
//! formatting, compiling, creating and deleting files, and miscellaneous
//! UNIX utilities. It raises N until the system's throughput, the scripts
//! completed per hour, stops rising, and reports that maximum beside the
//! graph of throughput against concurrency (Chen & Patterson 1993: the
//! DECstation peaked at five scripts, with 10–22 % of its time in I/O).
//!
//! SPEC's scripts and utilities are not public: [`script`] holds iogauge's
//! model of them (the command mix, a script's draw, a compiler's CPU
//! burn); [`run`] measures one concurrency; [`curve`] runs the curve over
//! concurrencies (through the load-curve search of `iogauge scale`) and
//! renders it.

pub mod curve;
pub mod run;
pub mod script;
pub mod survey;

pub use run::PROCESS_KIND;

use crate::report::RunResult;

/// Sdet, typed: its curve as asked, its figures and its report.
pub struct Sdet;

impl crate::suites::Benchmark for Sdet {
    const NAME: &'static str = "sdet";
    type Plan = curve::CurvePlan;
    type Figures = curve::CurveFigures;
    fn classic(
        plan: &curve::CurvePlan,
        figures: &curve::CurveFigures,
        result: &RunResult,
    ) -> String {
        curve::render(plan, figures, result)
    }
}
