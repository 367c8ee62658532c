//! Live figures of a running phase: status lines on stdout every
//! `--status-interval`, and steady-state detection (`--steady-state`).
//!
//! The command line sets them once for the process ([`set`]); every timed
//! phase ([`super::run_workers`]) then runs with a [`Live`] watch beside
//! the benchmark's, polled by the controlling loop with the ops and bytes
//! the workers published. It samples those counters: every interval for a
//! status line, every second for the steady-state detector, which stops
//! the phase as its deadline would once steady state is reached.

use super::{Done, StopRule, Watch};
use crate::measure::clock::now_ns;
use crate::measure::steady::{self, Detector, Event, Settings};
pub use crate::measure::steady::{PhaseVerdict, SteadyState};
use serde::Serialize;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// What the command line asked for.
#[derive(Clone, Debug)]
pub struct Opts {
    /// The benchmark's name, in each status line.
    pub benchmark: &'static str,
    /// Every this long, a status line on stdout.
    pub status: Option<Duration>,
    pub steady: Option<Settings>,
}

static OPTS: OnceLock<Opts> = OnceLock::new();
/// Timed phases begun so far in this process.
static PHASES: AtomicUsize = AtomicUsize::new(0);
/// Each phase's steady-state verdict, in order, until taken.
static VERDICTS: Mutex<Vec<PhaseVerdict>> = Mutex::new(Vec::new());

/// Give every timed phase of this process a live watch with `opts`.
pub fn set(opts: Opts) {
    let _ = OPTS.set(opts);
}

/// The verdicts of the phases run since the last call, with the settings:
/// `None` without `--steady-state`.
pub fn take_verdict() -> Option<SteadyState> {
    let set = OPTS.get()?.steady?;
    let phases = std::mem::take(&mut *VERDICTS.lock().unwrap_or_else(|p| p.into_inner()));
    let (limit, limit_percent) = match set.spec.limit {
        steady::Limit::Percent(v) => (v, true),
        steady::Limit::Absolute(v) => (v, false),
    };
    Some(SteadyState {
        spec: set.spec.to_string(),
        metric: set.spec.metric,
        criterion: set.spec.criterion,
        limit,
        limit_percent,
        window_s: set.window_s,
        ramp_s: set.ramp_s,
        hold: set.hold,
        phases,
    })
}

/// The live watch of one timed phase: `None` when nothing is asked for.
/// A steady-state detector needs a phase that runs for a duration.
pub(crate) fn begin(rule: &StopRule) -> anyhow::Result<Option<Live>> {
    let Some(o) = OPTS.get() else {
        return Ok(None);
    };
    if o.status.is_none() && o.steady.is_none() {
        return Ok(None);
    }
    if o.steady.is_some() && rule.duration.is_none() {
        crate::usage!(
            "--steady-state needs a run with a duration: {}'s timed phase runs to an amount of work (give --duration where the benchmark takes it)",
            o.benchmark
        );
    }
    let phase = PHASES.fetch_add(1, Ordering::Relaxed) + 1;
    Ok(Some(Live {
        opts: o,
        phase,
        state: Mutex::new(State {
            detector: o.steady.map(Detector::new),
            stopped: false,
            status_last: (0, Done::default()),
            status_next: 1,
            second_last: (0, Done::default()),
            seconds: 0,
        }),
    }))
}

pub(crate) struct Live {
    opts: &'static Opts,
    phase: usize,
    state: Mutex<State>,
}

struct State {
    detector: Option<Detector>,
    /// Whether the detector stopped the phase.
    stopped: bool,
    /// The last status line's time (ns after t0) and counts.
    status_last: (u64, Done),
    /// The number of the next status line.
    status_next: u64,
    /// The last second's sample: its time (ns after t0) and counts.
    second_last: (u64, Done),
    seconds: u64,
}

const SECOND: u64 = 1_000_000_000;

impl Watch for Live {
    fn polled(&self) -> bool {
        true
    }

    fn poll_done(&self, done: Done) -> bool {
        let t0 = super::last_t0();
        let now = now_ns();
        if now < t0 {
            // the ramp: nothing is counted yet
            return false;
        }
        let t = now - t0;
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(every) = self.opts.status {
            let every = every.as_nanos().max(1) as u64;
            if t >= st.status_next * every {
                let (t_last, d_last) = st.status_last;
                self.status_line(t, done, t - t_last, d_last);
                st.status_last = (t, done);
                st.status_next = t / every + 1;
            }
        }
        if st.detector.is_some() && t >= (st.seconds + 1) * SECOND && !st.stopped {
            let (t_last, d_last) = st.second_last;
            let dt = (t - t_last) as f64 / 1e9;
            let metric = self.opts.steady.map(|s| s.spec.metric);
            let x = match metric {
                Some(steady::Metric::Bw) => done.bytes.saturating_sub(d_last.bytes) as f64 / dt,
                _ => done.ops.saturating_sub(d_last.ops) as f64 / dt,
            };
            st.second_last = (t, done);
            st.seconds += 1;
            let det = st.detector.as_mut().expect("checked");
            let before = det.events().len();
            let stop = det.push(x);
            let news: Vec<Event> = det.events()[before..].to_vec();
            if self.opts.status.is_some() {
                for e in &news {
                    self.event_line(e);
                }
            }
            if stop {
                st.stopped = true;
            }
        }
        st.stopped
    }
}

impl Live {
    fn status_line(&self, t: u64, done: Done, dt: u64, before: Done) {
        let secs = dt as f64 / 1e9;
        let rate = |a: u64, b: u64| {
            if secs > 0.0 {
                a.saturating_sub(b) as f64 / secs
            } else {
                0.0
            }
        };
        emit(&StatusLine {
            kind: "status",
            benchmark: self.opts.benchmark,
            phase: self.phase,
            t_s: round3(t as f64 / 1e9),
            ops: done.ops,
            bytes: done.bytes,
            ops_per_s: round3(rate(done.ops, before.ops)),
            bytes_per_s: round3(rate(done.bytes, before.bytes)),
        });
    }

    fn event_line(&self, e: &Event) {
        emit(&EventLine {
            kind: "steady_state",
            benchmark: self.opts.benchmark,
            phase: self.phase,
            event: e,
        });
    }
}

impl Drop for Live {
    /// The phase is over: keep its verdict for the result.
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        let Some(det) = &st.detector else { return };
        let v = PhaseVerdict {
            phase: self.phase,
            attained: det
                .events()
                .iter()
                .any(|e| matches!(e, Event::Reached { .. })),
            steady_at_end: det.steady(),
            stopped_run: st.stopped,
            seconds: det.seen(),
            last_criterion: det.last_criterion().filter(|c| c.is_finite()),
            events: det.events().to_vec(),
        };
        VERDICTS.lock().unwrap_or_else(|p| p.into_inner()).push(v);
    }
}

/// A status line: the phase's ops and bytes so far (measured phase only),
/// and their rates over the interval since the last line.
#[derive(Serialize)]
struct StatusLine {
    #[serde(rename = "type")]
    kind: &'static str,
    benchmark: &'static str,
    phase: usize,
    t_s: f64,
    ops: u64,
    bytes: u64,
    ops_per_s: f64,
    bytes_per_s: f64,
}

/// A steady-state change, as a line among the status lines.
#[derive(Serialize)]
struct EventLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    benchmark: &'static str,
    phase: usize,
    #[serde(flatten)]
    event: &'a Event,
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// One JSON line on stdout, flushed (a reader sees it at once); a closed
/// stdout is not the run's failure.
fn emit(v: &impl Serialize) {
    let Ok(line) = serde_json::to_string(v) else {
        return;
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}").and_then(|_| out.flush());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/result-schema.json holds the `steady_state` section as the
    /// types say; `IOGAUGE_BLESS=1` writes it.
    #[test]
    fn the_result_schema_holds_the_steady_state_section() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/result-schema.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut settings = schemars::generate::SchemaSettings::draft2020_12();
        settings.definitions_path = "/$defs/steady_state/$defs".into();
        let mut g = settings.into_generator();
        let root = g.subschema_for::<SteadyState>();
        let mut def = serde_json::json!({
            "description": "--steady-state: the criterion, and each timed phase's verdict (when steady state was reached, and left with --steady-state-hold). Absent without the flag.",
            "$defs": g.take_definitions(true),
        });
        def["$ref"] = serde_json::to_value(&root).unwrap()["$ref"].clone();
        doc["$defs"]["steady_state"] = def;
        doc["$defs"]["result"]["properties"]["steady_state"] = serde_json::json!({
            "$ref": "#/$defs/steady_state",
            "description": "--steady-state only: each timed phase's verdict."
        });
        if std::env::var_os("IOGAUGE_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
            return;
        }
        let have: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(
            have == doc,
            "docs/result-schema.json does not hold the steady_state section as the types say (IOGAUGE_BLESS=1 cargo test --release --lib the_result_schema rewrites it)"
        );
    }

    #[test]
    fn a_verdict_reads_as_one_line_per_phase() {
        let v = SteadyState {
            spec: "iops:20%".into(),
            metric: steady::Metric::Iops,
            criterion: steady::Criterion::Range,
            limit: 20.0,
            limit_percent: true,
            window_s: 10,
            ramp_s: 0,
            hold: true,
            phases: vec![PhaseVerdict {
                phase: 1,
                attained: true,
                steady_at_end: false,
                stopped_run: false,
                seconds: 40,
                last_criterion: Some(30.0),
                events: vec![
                    Event::Reached {
                        t_s: 10,
                        mean: 1000.0,
                        criterion: 1.5,
                    },
                    Event::Left {
                        t_s: 35,
                        level: 1000.0,
                        mean: 750.0,
                    },
                ],
            }],
        };
        let s = v.describe();
        assert_eq!(s.lines().count(), 1, "{s}");
        assert!(
            s.starts_with("Steady state (iops:20%, window 10 s): reached at 10 s"),
            "{s}"
        );
        assert!(s.contains("left at 35 s"), "{s}");
        assert!(s.contains("NOT steady at the end"), "{s}");
    }
}
