//! The progress bar on stderr (only when stderr is a terminal).

use crate::runner::Progress;
use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// A bar over the measured phase: by time when the run has a duration,
/// by ops when it has an op budget, a spinner otherwise.
pub struct Bar {
    bar: ProgressBar,
    by_time: bool,
}

impl Bar {
    pub fn new(
        label: &str,
        duration: Option<Duration>,
        ops: Option<u64>,
        enabled: bool,
    ) -> Option<Bar> {
        if !enabled {
            return None;
        }
        let (bar, by_time) = match (duration, ops) {
            (Some(d), _) => (ProgressBar::new(d.as_millis() as u64), true),
            (None, Some(n)) => (ProgressBar::new(n), false),
            (None, None) => (ProgressBar::new_spinner(), false),
        };
        let tmpl = if by_time {
            "{prefix} [{bar:30}] {elapsed}/{duration} {msg}"
        } else {
            "{prefix} [{bar:30}] {pos}/{len} ops {msg}"
        };
        bar.set_style(
            ProgressStyle::with_template(tmpl)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(label.to_string());
        Some(Bar { bar, by_time })
    }
}

impl Progress for Bar {
    fn tick(&self, done_ops: u64, elapsed: Duration) {
        if self.by_time {
            self.bar.set_position(elapsed.as_millis() as u64);
            self.bar.set_message(format!("{done_ops} ops"));
        } else {
            self.bar.set_position(done_ops);
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// The bar as a runner progress sink, or a silent one.
pub fn sink(bar: &Option<Bar>) -> &dyn Progress {
    match bar {
        Some(b) => b,
        None => &crate::runner::NoProgress,
    }
}
