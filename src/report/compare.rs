//! `iogauge compare`'s text: the two sides, one row per metric (change,
//! test, verdict), and what was not judged or failed.

use super::repeats::{Better, fmt_num, fmt_pct, table};
use serde::Serialize;
use std::fmt::Write;

/// One side of a comparison, as the report names it.
pub struct Side<'a> {
    /// The files, as given.
    pub label: &'a str,
    /// The benchmark and what identifies its configuration.
    pub identity: &'a str,
    /// How many runs the side holds.
    pub runs: usize,
}

/// One line of the comparison.
#[derive(Debug, Serialize, Clone)]
pub struct Row {
    pub metric: String,
    pub better: Better,
    pub throughput: bool,
    pub n_base: usize,
    pub n_new: usize,
    pub base: f64,
    pub new: f64,
    pub change_pct: Option<f64>,
    /// `welch`, `block-bootstrap`, or `none`.
    pub method: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// The interval of new − base (bootstrap).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_high: Option<f64>,
    pub significant: bool,
    /// faster, slower, higher, lower, no significant change, not judged
    pub verdict: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The comparison as text: which runs, the table, and the lines under it.
pub fn render(
    base: &Side,
    new: &Side,
    confidence: f64,
    fail_if_slower: Option<f64>,
    rows: &[Row],
    failed: &[&str],
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "base: {} ({}, {} run(s))",
        base.label, base.identity, base.runs
    );
    let _ = writeln!(
        s,
        "new:  {} ({}, {} run(s))",
        new.label, new.identity, new.runs
    );
    let _ = writeln!(s, "confidence {} %\n", fmt_pct(confidence * 100.0));
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            let test = match r.method {
                "welch" => format!("welch p={:.3}", r.p_value.unwrap_or(f64::NAN)),
                "block-bootstrap" => match (r.diff_low, r.diff_high) {
                    (Some(l), Some(h)) if r.base != 0.0 => format!(
                        "bootstrap {:+.1}..{:+.1} %",
                        l / r.base.abs() * 100.0,
                        h / r.base.abs() * 100.0
                    ),
                    (Some(l), Some(h)) => format!("bootstrap {}..{}", fmt_num(l), fmt_num(h)),
                    _ => "bootstrap".into(),
                },
                _ => "-".into(),
            };
            [
                r.metric.clone(),
                fmt_num(r.base),
                fmt_num(r.new),
                r.change_pct.map_or("-".into(), |c| format!("{c:+.2} %")),
                test,
                r.verdict.clone(),
            ]
        })
        .collect();
    s += &table(
        &["metric", "base", "new", "change", "test", "verdict"],
        &cells,
    );
    let mut notes: Vec<&str> = rows.iter().filter_map(|r| r.note.as_deref()).collect();
    notes.dedup();
    for n in notes {
        let _ = writeln!(s, "not judged: {n}");
    }
    if let Some(limit) = fail_if_slower {
        if failed.is_empty() {
            let _ = writeln!(
                s,
                "\nno metric significantly slower by more than {} %",
                fmt_pct(limit)
            );
        } else {
            for m in failed {
                let r = rows.iter().find(|r| r.metric == *m).expect("a failed row");
                let _ = writeln!(
                    s,
                    "\nFAIL: {m} is slower by {:.2} % (more than --fail-if-slower {} %)",
                    r.change_pct.unwrap_or(0.0).abs(),
                    fmt_pct(limit)
                );
            }
        }
    }
    s
}
