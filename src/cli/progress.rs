//! The progress bar on stderr (only when stderr is a terminal).

use crate::runner::Progress;
use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// A bar over the measured phase: by time when the run has a duration,
/// by ops when it has an op budget, a spinner otherwise.
pub struct Bar {
    bar: ProgressBar,
    by_time: bool,
    total: Option<Duration>,
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
        // by time: the run's own clock and length (not indicatif's estimate,
        // which counts the untimed layout before the first tick)
        let tmpl = if by_time {
            "{prefix} [{bar:30}] {msg}"
        } else {
            "{prefix} [{bar:30}] {pos}/{len} ops {msg}"
        };
        bar.set_style(
            ProgressStyle::with_template(tmpl)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(label.to_string());
        Some(Bar {
            bar,
            by_time,
            total: duration,
        })
    }
}

impl Progress for Bar {
    fn status(&self, what: &str) {
        self.bar.set_message(what.to_string());
        self.bar.tick();
    }

    fn tick(&self, done_ops: u64, elapsed: Duration) {
        if self.by_time {
            self.bar.set_position(elapsed.as_millis() as u64);
            let total = self.total.unwrap_or_default().as_secs_f64();
            self.bar.set_message(format!(
                "{:.0}s/{total:.0}s  {done_ops} ops",
                elapsed.as_secs_f64().min(total)
            ));
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

/// Run `f` with a bar's progress sink (a silent one when not `enabled`);
/// the bar is gone when `f` returns.
pub fn with_bar<T>(
    label: &str,
    duration: Option<Duration>,
    ops: Option<u64>,
    enabled: bool,
    f: impl FnOnce(&dyn Progress) -> T,
) -> T {
    let bar = Bar::new(label, duration, ops, enabled);
    f(sink(&bar))
}
