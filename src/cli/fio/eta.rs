//! What `iogauge fio` shows while jobs run: fio's `--eta`,
//! `--eta-interval` and `--eta-newline`, on stderr (stdout holds the
//! report).
//!
//! - `--eta=never`: nothing.
//! - `--eta=auto` (the default) alone: the progress bar, on a terminal only.
//! - `--eta-interval` or `--eta-newline`: fio's way, a status line
//!   rewritten in place every interval (1 s unless `--eta-interval`) and
//!   kept, a new one begun, every `--eta-newline`; on a terminal only,
//!   unless `--eta=always`. Where stderr is no terminal there is nothing
//!   to rewrite: each line is written whole, every `--eta-newline` (or
//!   every interval without it).

use super::Eta;
use crate::runner::Progress;
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Duration;

/// fio's default `eta_interval_msec`.
const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// How progress shows.
pub enum Shows {
    Nothing,
    Bar,
    Lines(Lines),
}

impl Shows {
    pub fn of(eta: Eta, interval: Option<Duration>, newline: Option<Duration>) -> Shows {
        let terminal = std::io::stderr().is_terminal();
        Shows::decide(eta, interval, newline, terminal)
    }

    fn decide(
        eta: Eta,
        interval: Option<Duration>,
        newline: Option<Duration>,
        terminal: bool,
    ) -> Shows {
        let lines = interval.is_some() || newline.is_some() || eta == Eta::Always;
        match eta {
            Eta::Never => Shows::Nothing,
            Eta::Auto if !terminal => Shows::Nothing,
            _ if !lines => Shows::Bar,
            _ => Shows::Lines(Lines {
                every: interval.unwrap_or(DEFAULT_INTERVAL),
                newline,
                terminal,
                state: Mutex::new(State::default()),
            }),
        }
    }
}

/// fio-style status lines.
pub struct Lines {
    every: Duration,
    newline: Option<Duration>,
    terminal: bool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The elapsed time of the last line written, and its ops.
    last: Option<(Duration, u64)>,
    /// The elapsed time of the last kept line.
    kept: Duration,
    /// What is being done before the timed phase.
    what: String,
    /// A line written in place and not ended yet (its length).
    open: usize,
    /// The run's elapsed time restarts with each stage: the time of the
    /// stages before, and the last elapsed time seen.
    before: Duration,
    seen: Duration,
}

impl Lines {
    /// The text of a line at `t` with `ops` done, `rate` per second.
    fn text(&self, t: Duration, ops: u64, rate: f64, what: &str) -> String {
        crate::report::fio::text::eta_line(t.as_secs(), ops, rate, what)
    }

    /// The line at `t`: rewritten in place, or kept (`keep`).
    fn line(&self, st: &mut State, t: Duration, ops: u64, keep: bool) -> Option<String> {
        let rate = match st.last {
            Some((t0, o0)) if t > t0 => ops.saturating_sub(o0) as f64 / (t - t0).as_secs_f64(),
            _ if t > Duration::ZERO => ops as f64 / t.as_secs_f64(),
            _ => 0.0,
        };
        let text = self.text(t, ops, rate, &st.what);
        st.last = Some((t, ops));
        if !self.terminal {
            return Some(format!("{text}\n"));
        }
        let pad = st.open.saturating_sub(text.len());
        let mut out = format!("\r{text}{}", " ".repeat(pad));
        if keep {
            out.push('\n');
            st.open = 0;
        } else {
            st.open = text.len();
        }
        Some(out)
    }

    fn step(&self, st: &mut State, t: Duration, ops: u64) -> Option<String> {
        let due = |every: Duration, since: Duration| t >= since + every;
        let last_t = st.last.map_or(Duration::ZERO, |l| l.0);
        let keep = self.newline.is_some_and(|n| due(n, st.kept));
        if keep {
            st.kept = t;
        }
        if self.terminal {
            if keep || due(self.every, last_t) || st.last.is_none() {
                return self.line(st, t, ops, keep);
            }
            return None;
        }
        // no terminal: only whole lines, each kept
        let every = self.newline.unwrap_or(self.every);
        if keep || (self.newline.is_none() && due(every, last_t)) {
            return self.line(st, t, ops, true);
        }
        None
    }
}

fn write_err(s: &str) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_all(s.as_bytes()).and_then(|_| e.flush());
}

impl Progress for Lines {
    fn status(&self, what: &str) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        st.what = what.to_string();
    }

    fn tick(&self, done_ops: u64, elapsed: Duration) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if elapsed < st.seen {
            // a new stage: its clock starts again, the line's goes on
            let seen = st.seen;
            st.before += seen;
            st.last = None;
        }
        st.seen = elapsed;
        st.what.clear();
        let t = st.before + elapsed;
        if let Some(s) = self.step(&mut st, t, done_ops) {
            write_err(&s);
        }
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        if st.open > 0 {
            write_err("\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(interval: u64, newline: Option<u64>, terminal: bool) -> Lines {
        match Shows::decide(
            Eta::Always,
            Some(Duration::from_millis(interval)),
            newline.map(Duration::from_millis),
            terminal,
        ) {
            Shows::Lines(l) => l,
            _ => panic!("lines expected"),
        }
    }

    #[test]
    fn what_shows_follows_eta() {
        let d = Some(Duration::from_secs(1));
        assert!(matches!(
            Shows::decide(Eta::Never, None, d, true),
            Shows::Nothing
        ));
        assert!(matches!(
            Shows::decide(Eta::Auto, None, None, true),
            Shows::Bar
        ));
        assert!(matches!(
            Shows::decide(Eta::Auto, None, d, false),
            Shows::Nothing
        ));
        assert!(matches!(
            Shows::decide(Eta::Auto, None, d, true),
            Shows::Lines(_)
        ));
        assert!(matches!(
            Shows::decide(Eta::Always, None, None, false),
            Shows::Lines(_)
        ));
    }

    /// Ticks every 100 ms for `secs`, what was written at each.
    fn run(l: &Lines, secs: u64) -> Vec<(u64, String)> {
        let mut st = State::default();
        let mut out = Vec::new();
        for i in 1..=secs * 10 {
            let t = Duration::from_millis(i * 100);
            if let Some(s) = l.step(&mut st, t, i * 50) {
                out.push((i * 100, s));
            }
        }
        out
    }

    #[test]
    fn without_a_terminal_each_newline_period_gives_one_line() {
        let out = run(&lines(1000, Some(2000), false), 6);
        let at: Vec<u64> = out.iter().map(|o| o.0).collect();
        assert_eq!(at, vec![2000, 4000, 6000]);
        assert_eq!(out[0].1, "fio: [00m:02s] 1000 I/Os, 500 IOPS\n");
        let out = run(&lines(500, None, false), 2);
        assert_eq!(out.len(), 4);
    }

    #[test]
    fn on_a_terminal_the_line_is_rewritten_and_kept_every_newline() {
        let out = run(&lines(1000, Some(3000), true), 6);
        let at: Vec<u64> = out.iter().map(|o| o.0).collect();
        assert_eq!(at, vec![100, 1100, 2100, 3000, 4000, 5000, 6000]);
        assert!(out[0].1.starts_with('\r') && !out[0].1.ends_with('\n'));
        assert!(out[3].1.ends_with('\n'));
        assert!(out[6].1.ends_with('\n'));
    }
}
