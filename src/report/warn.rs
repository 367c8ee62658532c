//! Warnings: what makes a result say less than it seems to, found once
//! when the result is filled ([`assess`]) and kept in it (`warnings`), so
//! every report of it (the text after the classic report, `iogauge show`,
//! the survey's scorecard, the JSON and the CSV) says the same.
//!
//! | code | when |
//! | --- | --- |
//! | `fits_page_cache` | the run was not O_DIRECT and the data it touches fits the memory the page cache could hold; or its files are on tmpfs or ramfs, O_DIRECT or not |
//! | `direct_refused` | O_DIRECT was asked and the file system refused it: the run stopped |
//! | `direct_fallback` | O_DIRECT was wanted and refused, and the run went through the page cache instead (the survey) |
//! | `cpu_bound` | under half of the workers' time was in I/O calls, for a benchmark that does no computation of its own |
//! | `short_run` | the measured phase lasted under 1 s |
//! | `busy_machine` | other processes kept CPUs busy, or a hypervisor stole time, while the run was measured |

use super::RunResult;
use crate::measure::machine::MachineLoad;
use crate::units::fmt_bytes;
use serde::{Deserialize, Serialize};

/// One warning: a stable code for programs, a line for people.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Warning {
    /// Stable name of the case: `fits_page_cache`, `direct_refused`,
    /// `direct_fallback`, `cpu_bound`, `short_run`, `busy_machine`.
    pub code: String,
    /// One line that says what was seen, with its numbers, and what to do.
    pub message: String,
}

impl Warning {
    pub fn new(code: &str, message: impl Into<String>) -> Warning {
        Warning {
            code: code.to_string(),
            message: message.into(),
        }
    }
}

/// The data a run touches and the memory the page cache could hold when
/// it began.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WorkingSet {
    /// Bytes of file data the run reads or writes (its files' sizes).
    pub bytes: u64,
    /// Memory the page cache could take when the run began: the system's
    /// available memory (`MemAvailable`), or less where the run's control
    /// group caps its memory.
    pub cache_bytes: u64,
    /// The file system keeps files in memory (tmpfs, ramfs).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_memory: bool,
}

/// A run shorter than this is flagged: at a few hundred milliseconds, the
/// start and end of the workers and the first, cold requests are a
/// visible part of every figure.
pub const SHORT_RUN_S: f64 = 1.0;
/// Below this share of the workers' time in I/O calls, the run measured
/// its own computation more than the storage (Chen & Patterson).
pub const CPU_BOUND_IO_FRACTION: f64 = 0.5;
/// Other processes' CPU, in cores kept busy, at or above which the machine
/// was busy: half a core is several times what writeback threads take.
pub const BUSY_OTHER_CORES: f64 = 0.5;
/// ... and at least this share of the machine's CPUs.
pub const BUSY_OTHER_SHARE: f64 = 0.1;
/// Share of CPU time stolen by the hypervisor at or above which the
/// machine was busy.
pub const BUSY_STEAL_SHARE: f64 = 0.05;
/// Busy-machine figures over less wall time than this are too coarse
/// (`/proc/stat` counts in 10 ms ticks) to say anything.
pub const BUSY_MIN_WALL_S: f64 = 0.25;

/// Whether the run bypassed the page cache: its configuration asks for
/// O_DIRECT (`direct`, `o_direct`) or uncached I/O (`uncached`) anywhere.
pub fn config_is_direct(config: &serde_json::Value) -> bool {
    match config {
        serde_json::Value::Object(m) => m.iter().any(|(k, v)| {
            (matches!(k.as_str(), "direct" | "o_direct" | "uncached") && *v == true)
                || config_is_direct(v)
        }),
        serde_json::Value::Array(v) => v.iter().any(config_is_direct),
        _ => false,
    }
}

/// Every warning that applies to `r`, in a fixed order. Warnings already
/// in `r` that this cannot find again (`direct_refused`,
/// `direct_fallback`: said by whoever saw the refusal) are kept.
pub fn assess(r: &RunResult) -> Vec<Warning> {
    let mut w: Vec<Warning> = r
        .warnings
        .iter()
        .filter(|w| matches!(w.code.as_str(), "direct_refused" | "direct_fallback"))
        .cloned()
        .collect();
    let measured = r.summary.ops > 0 && r.elapsed_s > 0.0;
    if let Some(ws) = &r.working_set
        && measured
    {
        // O_DIRECT on tmpfs still reads memory
        if ws.in_memory {
            w.push(Warning::new(
                "fits_page_cache",
                format!(
                    "the files are on {}, which keeps them in memory: these figures are memory's, not a disk's; use a directory on a disk",
                    if r.environment.fs_type.is_empty() {
                        "a memory file system"
                    } else {
                        &r.environment.fs_type
                    }
                ),
            ));
        } else if ws.bytes > 0
            && ws.cache_bytes > 0
            && ws.bytes <= ws.cache_bytes
            && !config_is_direct(&r.config)
        {
            w.push(Warning::new(
                "fits_page_cache",
                format!(
                    "the run's {} of data fit in the page cache ({} of memory was available): reads may have come from memory, not the disk; use --direct or data larger than memory",
                    fmt_bytes(ws.bytes),
                    fmt_bytes(ws.cache_bytes)
                ),
            ));
        }
    }
    let io_ops = r.ops.keys().any(|k| k != "cpu");
    let computes = r.ops.contains_key("cpu");
    if measured && io_ops && !computes && r.summary.io_time_fraction < CPU_BOUND_IO_FRACTION {
        w.push(Warning::new(
            "cpu_bound",
            format!(
                "the workers spent {:.0}% of their time in I/O calls (io_time_fraction {:.2}, under {CPU_BOUND_IO_FRACTION}): the figures measure iogauge and the CPU more than the storage",
                r.summary.io_time_fraction * 100.0,
                r.summary.io_time_fraction
            ),
        ));
    }
    if measured && r.elapsed_s < SHORT_RUN_S {
        w.push(Warning::new(
            "short_run",
            format!(
                "the measured phase lasted {:.3} s, under {SHORT_RUN_S} s: start-up and the first requests weigh on every figure; run longer",
                r.elapsed_s
            ),
        ));
    }
    if let Some(m) = &r.summary.machine
        && let Some(b) = busy(m)
    {
        w.push(b);
    }
    w
}

/// The busy-machine warning, when the figures say so.
pub fn busy(m: &MachineLoad) -> Option<Warning> {
    if m.is_empty() || m.wall_s < BUSY_MIN_WALL_S {
        return None;
    }
    let cpus = m.cpus();
    let others = m.others_cores();
    let steal = m.steal_share();
    let mut why = Vec::new();
    if others >= BUSY_OTHER_CORES && others >= BUSY_OTHER_SHARE * cpus {
        why.push(format!(
            "other processes kept {others:.1} of {cpus:.0} CPUs busy"
        ));
    }
    if steal >= BUSY_STEAL_SHARE {
        why.push(format!(
            "the hypervisor stole {:.0}% of the CPU time",
            steal * 100.0
        ));
    }
    if why.is_empty() {
        return None;
    }
    Some(Warning::new(
        "busy_machine",
        format!(
            "the machine was busy while the run was measured: {} (load average {:.2}); figures may be lower and noisier than on an idle machine",
            why.join(", and "),
            m.load_avg
        ),
    ))
}

/// The text of `r`'s warnings: one `warning:` line each, nothing when
/// there is none. Goes after the classic report, on its stream.
pub fn render(r: &RunResult) -> String {
    render_list(&r.warnings)
}

/// [`render`] of a list.
pub fn render_list(w: &[Warning]) -> String {
    w.iter()
        .map(|w| format!("warning: {} ({})\n", w.message, w.code))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(elapsed_s: f64, io: f64) -> RunResult {
        let mut r = RunResult {
            elapsed_s,
            ..Default::default()
        };
        r.summary.ops = 100;
        r.summary.io_time_fraction = io;
        r.ops.insert("read".into(), Default::default());
        r
    }

    fn codes(r: &RunResult) -> Vec<String> {
        assess(r).into_iter().map(|w| w.code).collect()
    }

    #[test]
    fn short_and_cpu_bound_runs_by_their_thresholds() {
        assert!(codes(&measured(2.0, 0.9)).is_empty());
        assert_eq!(codes(&measured(0.999, 0.9)), ["short_run"]);
        assert_eq!(codes(&measured(1.0, 0.49)), ["cpu_bound"]);
        assert!(codes(&measured(1.0, 0.5)).is_empty());
        // nothing measured: nothing to warn of
        let mut none = measured(0.1, 0.0);
        none.summary.ops = 0;
        assert!(codes(&none).is_empty());
        // a benchmark that computes by design is not CPU-bound by mistake
        let mut cpu = measured(2.0, 0.1);
        cpu.ops.insert("cpu".into(), Default::default());
        assert!(codes(&cpu).is_empty());
        let w = &assess(&measured(0.1234, 0.25))[0];
        assert!(
            w.message.contains("25%") && w.message.contains("0.25"),
            "{w:?}"
        );
        let w = &assess(&measured(0.1234, 0.9))[0];
        assert!(w.message.contains("0.123 s"), "{w:?}");
    }

    #[test]
    fn the_page_cache_warning_needs_a_working_set_that_fits_and_no_o_direct() {
        let mut r = measured(2.0, 0.9);
        assert!(codes(&r).is_empty(), "no working set said: no warning");
        r.working_set = Some(WorkingSet {
            bytes: 1 << 20,
            cache_bytes: 1 << 30,
            in_memory: false,
        });
        let w = assess(&r);
        assert_eq!(w[0].code, "fits_page_cache");
        assert!(
            w[0].message.contains("1.00 MiB") && w[0].message.contains("1.00 GiB"),
            "{w:?}"
        );
        r.working_set.as_mut().unwrap().bytes = 2 << 30;
        assert!(codes(&r).is_empty());
        r.working_set.as_mut().unwrap().in_memory = true;
        assert_eq!(codes(&r), ["fits_page_cache"]);
        r.config = serde_json::json!({"engine": "psync", "io": {"direct": true}});
        assert_eq!(
            codes(&r),
            ["fits_page_cache"],
            "tmpfs is memory, O_DIRECT or not"
        );
        r.working_set.as_mut().unwrap().in_memory = false;
        r.working_set.as_mut().unwrap().bytes = 1 << 20;
        assert!(codes(&r).is_empty());
        r.config = serde_json::json!({"direct": false, "o_direct": false});
        assert_eq!(codes(&r), ["fits_page_cache"]);
        assert!(config_is_direct(&serde_json::json!([{"uncached": true}])));
    }

    #[test]
    fn a_busy_machine_by_other_processes_or_steal() {
        let idle = MachineLoad {
            wall_s: 2.0,
            capacity_s: 4.0,
            busy_s: 1.2,
            own_s: 1.0,
            steal_s: 0.0,
            load_avg: 1.0,
        };
        assert_eq!(busy(&idle), None);
        let others = MachineLoad {
            busy_s: 3.0,
            ..idle.clone()
        };
        let w = busy(&others).unwrap();
        assert_eq!(w.code, "busy_machine");
        assert!(w.message.contains("1.0 of 2 CPUs"), "{w:?}");
        let stolen = MachineLoad {
            steal_s: 0.4,
            ..idle.clone()
        };
        assert!(busy(&stolen).unwrap().message.contains("stole 10%"));
        // too short to tell
        let short = MachineLoad {
            wall_s: 0.1,
            ..others.clone()
        };
        assert_eq!(busy(&short), None);
        // half a core of 64 is not busy
        let big = MachineLoad {
            capacity_s: 128.0,
            busy_s: 2.2,
            ..idle
        };
        assert_eq!(busy(&big), None);
        let mut r = measured(2.0, 0.9);
        r.summary.machine = Some(others);
        assert_eq!(codes(&r), ["busy_machine"]);
    }

    #[test]
    fn refusals_said_elsewhere_are_kept_and_lines_are_labelled() {
        let mut r = measured(2.0, 0.9);
        r.warnings = vec![
            Warning::new("direct_fallback", "x"),
            Warning::new("short_run", "stale"),
        ];
        assert_eq!(codes(&r), ["direct_fallback"]);
        assert_eq!(
            render_list(&[Warning::new("short_run", "it was short")]),
            "warning: it was short (short_run)\n"
        );
        assert_eq!(render(&RunResult::default()), "");
    }
}

#[cfg(test)]
mod schema_tests {
    use super::*;

    /// docs/result-schema.json holds the warnings, the working set and
    /// the machine's load as the types say; `IOGAUGE_BLESS=1` writes them.
    #[test]
    fn the_result_schema_holds_the_warnings() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/result-schema.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut settings = schemars::generate::SchemaSettings::draft2020_12();
        settings.definitions_path = "/$defs/warnings/$defs".into();
        let mut g = settings.into_generator();
        let warning = g.subschema_for::<Warning>();
        let working_set = g.subschema_for::<WorkingSet>();
        let machine = g.subschema_for::<MachineLoad>();
        doc["$defs"]["warnings"] = serde_json::json!({
            "description": "A result's warnings (what makes its figures say less than they seem to), the data it touched against the page cache, and how busy the machine was; written from the types that hold them.",
            "$defs": g.take_definitions(true),
        });
        doc["$defs"]["result"]["properties"]["warnings"] = serde_json::json!({
            "description": "Absent when there is none.",
            "type": "array",
            "items": warning,
        });
        doc["$defs"]["result"]["properties"]["working_set"] =
            serde_json::to_value(&working_set).unwrap();
        doc["$defs"]["summary"]["properties"]["machine"] = serde_json::to_value(&machine).unwrap();
        if std::env::var_os("IOGAUGE_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
            return;
        }
        let have: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(
            have == doc,
            "docs/result-schema.json does not hold the warnings as the types say (IOGAUGE_BLESS=1 cargo test --release --lib the_result_schema rewrites it)"
        );
    }
}
