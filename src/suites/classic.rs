//! The lines that end several classic reports, written once.

use crate::report::{RunResult, text};

/// The note under an interrupted run's figures (empty otherwise), from
/// the result alone (cut short without an error), so that `iogauge show`
/// prints it as the run did.
pub fn interrupted_note(r: &RunResult) -> &'static str {
    if !r.complete && r.error.is_none() {
        "note: interrupted; the figures cover what ran\n"
    } else {
        ""
    }
}

/// The end of a report: the note if the run was interrupted, then
/// `iogauge details: <details>` and iogauge's own tables of the run.
pub fn close(s: &mut String, r: &RunResult, details: &str) {
    *s += interrupted_note(r);
    *s += "\niogauge details: ";
    *s += details;
    s.push('\n');
    *s += &text::render(r);
}
