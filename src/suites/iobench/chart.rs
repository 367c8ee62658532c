//! The spectrum's figures (Wolman & Olson 1989, Figures 2–5), from what
//! `--spectrum ... --json` wrote: each run's parameters and figures, read
//! from its result, for [`crate::report::plot::spectrum`] to draw.
//!
//! CP utilisation of a run is (`metrics.cp_seconds` +
//! `metrics.server_cp_seconds`, when there is one) / (`elapsed_s` ×
//! `environment.cpus`) × 100: the share of the machine's processors the
//! benchmark's processes used during the timed phase.
//!
//! Several spectra (one per system) overlay as series; their runs are
//! matched by position and must have the same parameters.

use crate::report::plot::spectrum::{self, Measured, Params, RunFig};
pub use crate::report::plot::spectrum::{Figure, Series};
use crate::suites::iobench::config::num;
use serde_json::Value;

/// The schema of the collection `--spectrum ... --json` writes.
pub const SCHEMA: &str = "iogauge/iobench-spectrum/v1";

/// Where a run's parameter is read (below the result's `config`), its
/// keyword, and its name on an axis. The profile's panels come in this
/// order: the paper's three first.
const PARAMS: [(&str, &str, &str); 12] = [
    ("FILES", "parameters.files", "files"),
    ("USERS", "parameters.users", "users"),
    ("WORK", "parameters.work", "work load (CP)"),
    ("RECLEN", "parameters.reclen", "record length (bytes)"),
    ("NRECS", "parameters.nrecs", "records per file"),
    ("READS", "parameters.reads", "reads per transaction"),
    ("WRITES", "parameters.writes", "writes per transaction"),
    ("LOCKS", "parameters.locks", "locks per file"),
    ("SLEEP", "parameters.sleep", "lock sleep (s)"),
    ("DURATION", "duration_s", "duration (s)"),
    ("START", "parameters.start", "start delay (min)"),
    ("END", "parameters.end", "end delay (min)"),
];
const RECLEN: usize = 3;
/// The parameters two spectra must share to be overlaid: all but the start
/// and end delays, which do not change what is measured.
const COMPARED: usize = 10;
/// The profile when nothing varies: the paper's three panels.
const PAPERS_PANELS: [usize; 3] = [0, 1, 2];

/// CP utilisation in percent: CPU seconds over the processors' seconds.
pub fn cp_utilisation(cp_s: f64, server_cp_s: f64, elapsed_s: f64, cpus: f64) -> f64 {
    (cp_s + server_cp_s) / (elapsed_s * cpus) * 100.0
}

/// The number at `path` (dot-separated) below `v`.
fn number(v: &Value, path: &str) -> Option<f64> {
    path.split('.')
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite())
}

/// A spectrum collection (`iogauge/iobench-spectrum/v1`, as `--spectrum
/// ... --json` writes it) as a series named `name`. The error says what is
/// missing, for a message that names the file.
pub fn series_of(name: &str, doc: &Value) -> Result<Series, String> {
    const HOW: &str = "--chart reads what 'iogauge iobench --spectrum ... --json FILE' writes";
    match doc.get("schema").and_then(Value::as_str) {
        Some(SCHEMA) => {}
        Some(other) => return Err(format!("the schema is {other}, not {SCHEMA} ({HOW})")),
        None => return Err(format!("not a {SCHEMA} document: no schema ({HOW})")),
    }
    let Some(entries) = doc.get("entries").and_then(Value::as_array) else {
        return Err("no entries: the spectrum holds no runs".into());
    };
    if entries.is_empty() {
        return Err("no entries: the spectrum holds no runs".into());
    }
    let mut runs = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let label = e
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let run = format!("run {} ({label})", i + 1);
        let r = e
            .get("result")
            .ok_or_else(|| format!("{run} has no result"))?;
        let need = |path: &str| number(r, path).ok_or_else(|| format!("{run} has no {path}"));
        // a run that failed in its set-up measured nothing to draw
        if r.get("error").is_some_and(Value::is_string)
            && number(r, "metrics.mb_processed").is_none()
        {
            continue;
        }
        let mut params = Vec::new();
        for (_, at, _) in PARAMS {
            params.push(need(&format!("config.{at}"))?);
        }
        let mb = need("metrics.mb_processed")?;
        let cp = need("metrics.cp_seconds")?;
        let server = number(r, "metrics.server_cp_seconds").unwrap_or(0.0);
        let elapsed = need("elapsed_s")?;
        let cpus = need("environment.cpus")?;
        let complete = r.get("complete").and_then(Value::as_bool) == Some(true)
            && r.get("error").is_none_or(Value::is_null);
        let measured = if complete {
            if cpus < 1.0 {
                return Err(format!(
                    "{run}: environment.cpus is {cpus}: the CP utilisation needs the number of processors"
                ));
            }
            if elapsed <= 0.0 {
                return Err(format!(
                    "{run}: elapsed_s is {elapsed}: the CP utilisation needs the run's time"
                ));
            }
            Some(Measured {
                mb,
                cp_util: cp_utilisation(cp, server, elapsed, cpus),
            })
        } else {
            None
        };
        runs.push(RunFig {
            label,
            params,
            measured,
        });
    }
    if runs.iter().all(|r| r.measured.is_none()) {
        return Err("no run completed: there is nothing to draw".into());
    }
    Ok(Series {
        name: name.to_string(),
        runs,
    })
}

/// Refuse series whose runs differ: run k of each must have the same
/// parameters (START and END aside). A shorter series (an interrupted
/// spectrum) is compared over its runs.
pub fn same_runs(series: &[Series]) -> Result<(), String> {
    let Some(first) = series.first() else {
        return Ok(());
    };
    for s in &series[1..] {
        for (k, (a, b)) in first.runs.iter().zip(&s.runs).enumerate() {
            let differs = (0..COMPARED).find(|&p| a.params[p] != b.params[p]);
            if let Some(p) = differs {
                let key = PARAMS[p].0;
                return Err(format!(
                    "run {} differs: {key} = {} in {} ({}) but {} in {} ({}); --chart overlays spectra of the same runs",
                    k + 1,
                    num(a.params[p]),
                    first.name,
                    a.label,
                    num(b.params[p]),
                    s.name,
                    b.label
                ));
            }
        }
    }
    Ok(())
}

/// Figure 2 and Figures 3–5 for the series (runs matched by position; see
/// [`same_runs`]): `iobench-profile.svg`, then `iobench-results.svg`, or
/// `iobench-results-reclen<B>.svg` per record length when it varies.
pub fn figures(series: &[Series]) -> Result<Vec<Figure>, String> {
    let names = PARAMS.map(|p| p.2);
    let params = Params {
        names: &names,
        reclen: RECLEN,
        unvarying: &PAPERS_PANELS,
    };
    spectrum::figures(series, &params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A spectrum document as `--spectrum ... --json` writes it, reduced to
    /// what the figures read: one entry per (RECLEN, FILES, USERS, MB,
    /// CP seconds), 10 s each on 4 processors.
    fn doc(runs: &[(u32, u32, u32, f64, f64)]) -> Value {
        let entries: Vec<Value> = runs
            .iter()
            .map(|&(reclen, files, users, mb, cp)| {
                json!({
                    "name": format!("RECLEN={reclen} FILES={files} USERS={users}"),
                    "figure": mb,
                    "unit": "MB",
                    "result": {
                        "schema": "iogauge/result/v1",
                        "complete": true,
                        "elapsed_s": 10.0,
                        "environment": {"cpus": 4},
                        "config": {
                            "duration_s": 10.0,
                            "parameters": {
                                "run": "0", "users": users, "files": files, "nrecs": 1024,
                                "reclen": reclen, "reads": 1, "writes": 1, "locks": 1000,
                                "sleep": 0.0, "start": 0.0, "end": 1.0, "duration": 1.0,
                                "work": 0, "paths": {}
                            }
                        },
                        "metrics": {"mb_processed": mb, "cp_seconds": cp}
                    }
                })
            })
            .collect();
        json!({"schema": SCHEMA, "complete": true, "spectrum": [], "entries": entries})
    }

    /// The paper's eight (files, users) pairs at one record length.
    fn eight(reclen: u32, scale: f64) -> Vec<(u32, u32, u32, f64, f64)> {
        [
            (4, 50),
            (4, 100),
            (8, 50),
            (8, 100),
            (8, 150),
            (8, 200),
            (16, 50),
            (16, 100),
        ]
        .iter()
        .enumerate()
        .map(|(i, &(f, u))| (reclen, f, u, scale * (i + 1) as f64, 4.0 * (i + 1) as f64))
        .collect()
    }

    /// Whether the SVG has a text element holding exactly `t`.
    fn text(svg: &str, t: &str) -> bool {
        svg.contains(&format!(">\n{t}\n</text>"))
    }

    /// The document part of an SVG, before the trailing comment.
    fn body(svg: &str) -> &str {
        svg.split("<!--").next().unwrap().trim_end()
    }

    #[test]
    fn cp_utilisation_is_cpu_over_the_processors_time() {
        assert_eq!(cp_utilisation(10.0, 0.0, 10.0, 4.0), 25.0);
        assert_eq!(cp_utilisation(10.0, 10.0, 10.0, 4.0), 50.0);
        let s = series_of("a", &doc(&eight(2048, 1.0))).unwrap();
        // run 3: 12 CP seconds over 10 s on 4 processors
        assert_eq!(s.runs[2].measured.unwrap().cp_util, 30.0);
        // a server's CP time counts too
        let mut d = doc(&eight(2048, 1.0));
        d["entries"][2]["result"]["metrics"]["server_cp_seconds"] = json!(8.0);
        let s = series_of("a", &d).unwrap();
        assert_eq!(s.runs[2].measured.unwrap().cp_util, 50.0);
        assert_eq!(s.runs[2].params[0], 8.0, "FILES");
        assert_eq!(s.runs[2].params[1], 50.0, "USERS");
    }

    #[test]
    fn one_spectrum_draws_a_profile_and_one_results_figure() {
        let s = series_of("sysA", &doc(&eight(2048, 1.5))).unwrap();
        let figs = figures(&[s]).unwrap();
        let names: Vec<&str> = figs.iter().map(|f| f.file_name.as_str()).collect();
        assert_eq!(names, ["iobench-profile.svg", "iobench-results.svg"]);
        for f in &figs {
            assert!(f.svg.starts_with("<svg"), "{}", f.file_name);
            assert!(body(&f.svg).ends_with("</svg>"), "{}", f.file_name);
            assert!(f.svg.trim_end().ends_with("-->"), "{}", f.file_name);
            let comment = &f.svg[f.svg.find("<!--").unwrap() + 4..];
            assert!(!comment.trim_end().trim_end_matches("-->").contains("--"));
        }
        // the profile: files and users vary, 8 points each
        let p = &figs[0].svg;
        assert!(text(p, "files") && text(p, "users"), "{p}");
        assert!(!p.contains("work load"), "WORK does not vary");
        assert_eq!(p.matches("<circle").count(), 16);
        assert!(p.contains("  8 RECLEN=2048 FILES=16 USERS=100\n"));
        // the results: two panels, one point per run in each
        let r = &figs[1].svg;
        assert!(r.contains("MB of data processed") && r.contains("CP utilisation (%)"));
        assert_eq!(r.matches("<circle").count(), 16);
        assert!(r.contains("IOBENCH results per run: sysA"));
        assert!(
            r.contains(
                "  3 (run 3 of the spectrum) RECLEN=2048 FILES=8 USERS=50: sysA MB=4.500 CP=30.0%\n"
            ),
            "{r}"
        );
        assert!(r.contains("sysA MB=12.000 CP=80.0%"));
        // the CP axis goes to 100 %
        assert!(text(body(r), "100"), "{r}");
    }

    #[test]
    fn the_papers_nothing_varies_profile_and_cp_over_100() {
        // one run: the profile shows the paper's three panels, flat
        let mut d = doc(&[(2048, 4, 50, 3.0, 48.0)]);
        let s = series_of("x", &d).unwrap();
        let figs = figures(&[s]).unwrap();
        let p = &figs[0].svg;
        assert!(text(p, "files") && text(p, "users") && text(p, "work load (CP)"));
        assert_eq!(p.matches("<circle").count(), 3);
        // 120 %: the axis reaches it (accounting errors happen)
        assert!(figs[1].svg.contains("CP=120.0%"));
        d["entries"][0]["result"]["complete"] = json!(false);
        let e = series_of("x", &d).unwrap_err();
        assert!(e.contains("no run completed"), "{e}");
    }

    #[test]
    fn record_lengths_get_a_figure_each_and_share_a_profile() {
        let mut runs = eight(2048, 1.0);
        runs.extend(eight(4096, 2.0));
        runs.extend(eight(8192, 4.0));
        let a = series_of("A", &doc(&runs)).unwrap();
        let b = series_of("B", &doc(&runs)).unwrap();
        let figs = figures(&[a, b]).unwrap();
        let names: Vec<&str> = figs.iter().map(|f| f.file_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "iobench-profile.svg",
                "iobench-results-reclen2048.svg",
                "iobench-results-reclen4096.svg",
                "iobench-results-reclen8192.svg"
            ]
        );
        // one profile line of 8 runs: record length is the figures' split
        let p = &figs[0].svg;
        assert_eq!(p.matches("<circle").count(), 16);
        assert!(!p.contains("record length"), "RECLEN is not a panel");
        assert!(p.contains("8 runs for each RECLEN (2048, 4096, 8192)"));
        for f in &figs[1..] {
            // 8 runs × 2 series × 2 panels, and a legend naming both
            assert_eq!(f.svg.matches("<circle").count(), 32, "{}", f.file_name);
            assert!(text(&f.svg, "A") && text(&f.svg, "B"));
        }
        assert!(figs[2].svg.contains("  1 (run 9 of the spectrum) RECLEN=4096 FILES=4 USERS=50: A MB=2.000 CP=10.0%; B MB=2.000"));
        // distinct colours
        assert!(figs[1].svg.contains("#1F5BAA") && figs[1].svg.contains("#C8281E"));
    }

    #[test]
    fn profiles_that_differ_get_a_line_each() {
        let mut runs = eight(2048, 1.0);
        let mut other = eight(4096, 1.0);
        other.reverse();
        runs.extend(other);
        let s = series_of("A", &doc(&runs)).unwrap();
        let figs = figures(&[s]).unwrap();
        let p = &figs[0].svg;
        assert_eq!(p.matches("<circle").count(), 32, "2 lines × 2 panels × 8");
        assert!(p.contains("RECLEN = 2048") && p.contains("RECLEN = 4096"));
    }

    #[test]
    fn incomplete_runs_are_not_drawn() {
        let mut d = doc(&eight(2048, 1.0));
        d["entries"][3]["result"]["complete"] = json!(false);
        d["entries"][5]["result"]["error"] = json!("disk full");
        let s = series_of("A", &d).unwrap();
        assert!(s.runs[3].measured.is_none() && s.runs[5].measured.is_none());
        let figs = figures(&[s]).unwrap();
        assert_eq!(figs[1].svg.matches("<circle").count(), 12);
        assert!(figs[1].svg.contains("A not completed"));
        // the profile shows every run that ran
        assert_eq!(figs[0].svg.matches("<circle").count(), 16);
    }

    #[test]
    fn spectra_of_other_runs_are_refused() {
        let a = series_of("A", &doc(&eight(2048, 1.0))).unwrap();
        let mut runs = eight(2048, 1.0);
        runs[4].2 = 175;
        let b = series_of("B", &doc(&runs)).unwrap();
        let e = same_runs(&[a.clone(), b]).unwrap_err();
        assert_eq!(
            e,
            "run 5 differs: USERS = 150 in A (RECLEN=2048 FILES=8 USERS=150) but 175 in B (RECLEN=2048 FILES=8 USERS=175); --chart overlays spectra of the same runs"
        );
        // a shorter spectrum (interrupted) is compared over its runs
        let short = series_of("C", &doc(&eight(2048, 2.0)[..3])).unwrap();
        same_runs(&[a.clone(), short.clone()]).unwrap();
        let figs = figures(&[short, a]).unwrap();
        assert_eq!(figs[1].svg.matches("<circle").count(), 2 * (3 + 8));
        // the same runs with another start delay are the same runs
        let mut d = doc(&eight(2048, 1.0));
        d["entries"][0]["result"]["config"]["parameters"]["start"] = json!(2.0);
        let b = series_of("B", &d).unwrap();
        same_runs(&[series_of("A", &doc(&eight(2048, 1.0))).unwrap(), b]).unwrap();
    }

    #[test]
    fn bad_documents_say_what_is_wrong() {
        let cases: Vec<(Value, &str)> = vec![
            (
                json!({"schema": "iogauge/result/v1"}),
                "the schema is iogauge/result/v1, not iogauge/iobench-spectrum/v1",
            ),
            (
                json!([1, 2]),
                "not a iogauge/iobench-spectrum/v1 document: no schema",
            ),
            (json!({"schema": SCHEMA, "entries": []}), "no entries"),
            (json!({"schema": SCHEMA}), "no entries"),
        ];
        for (d, want) in cases {
            let e = series_of("x", &d).unwrap_err();
            assert!(e.starts_with(want), "{e}");
        }
        for (path, want) in [
            (
                "metrics.cp_seconds",
                "(RECLEN=2048 FILES=4 USERS=100) has no metrics.cp_seconds",
            ),
            ("metrics.mb_processed", "has no metrics.mb_processed"),
            ("environment.cpus", "has no environment.cpus"),
            ("config.parameters.users", "has no config.parameters.users"),
            ("elapsed_s", "has no elapsed_s"),
        ] {
            let mut d = doc(&eight(2048, 1.0));
            let (parent, key) = path.rsplit_once('.').unwrap_or(("", path));
            let r = &mut d["entries"][1]["result"];
            let target = parent
                .split('.')
                .filter(|k| !k.is_empty())
                .fold(r, |v, k| &mut v[k]);
            target.as_object_mut().unwrap().remove(key);
            let e = series_of("x", &d).unwrap_err();
            assert!(e.starts_with("run 2 (") && e.ends_with(want), "{path}: {e}");
        }
        let mut d = doc(&eight(2048, 1.0));
        d["entries"][0]["result"]["environment"]["cpus"] = json!(0);
        assert!(
            series_of("x", &d)
                .unwrap_err()
                .contains("environment.cpus is 0")
        );
    }
}
