//! `iogauge show RESULT.json`: a saved result's classic report again.

use super::common::Status;
use crate::error::shown;
use anyhow::Result;
use std::path::PathBuf;

/// Print the report a benchmark printed when it ran, from the result it
/// saved with --json: the same text, from the same figures. A document of
/// several results (a PostMark session, bonnie's runs, an IOBENCH
/// spectrum) shows each in turn under its name; a survey shows its
/// scorecard.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A result written by --json ('-' reads standard input).
    #[arg(value_name = "RESULT.json")]
    pub file: PathBuf,
}

impl super::Cmd for Args {
    fn main(self) -> Result<Status> {
        let name = shown(&self.file.display().to_string());
        let text = if self.file.as_os_str() == "-" {
            std::io::read_to_string(std::io::stdin())
                .map_err(|e| crate::error::UsageError::new(format!("standard input: {e}")))?
        } else {
            std::fs::read_to_string(&self.file)
                .map_err(|e| crate::error::UsageError::new(format!("{name}: {e}")))?
        };
        let doc: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| crate::error::UsageError::new(format!("{name}: not JSON ({e})")))?;
        // a run with --steady-state printed its verdict after the report
        let steady = serde_json::from_value::<crate::measure::steady::SteadyState>(
            doc["steady_state"].clone(),
        )
        .ok();
        let verify = doc["verify"].clone();
        let report = if doc["schema"] == "iogauge/survey/v1" {
            serde_json::from_value(doc)
                .map_err(anyhow::Error::from)
                .and_then(|c| super::survey::scorecard(&c))
        } else if doc["schema"] == crate::report::repeats::SCHEMA {
            super::repeat::show(doc)
        } else {
            crate::suites::benchmark::show(doc)
        }
        .map_err(|e| crate::error::UsageError::new(format!("{name}: {e:#}")))?;
        print!("{report}");
        if let Ok(v) = serde_json::from_value::<crate::verify::track::Section>(verify) {
            print!("{}", v.render());
        }
        if let Some(v) = steady {
            print!("{}", v.describe());
        }
        Ok(Status::Done)
    }
}
