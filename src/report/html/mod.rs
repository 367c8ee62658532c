//! One self-contained HTML page of results (`iogauge report`): inline CSS
//! and inline SVG, no script, nothing fetched, so it can be mailed or
//! attached to a ticket and opens the same anywhere.
//!
//! ```text
//!  iogauge report ─ inputs, when made
//!  ┌ runs side by side (several runs): one row a run, one column a
//!  │ headline figure, each cell coloured by its rank in its column
//!  └
//!  ┌ a run: state, headline figures, the benchmark's own figures,
//!  │ warnings and steady state, latency percentiles per op kind,
//!  │ throughput over time, the benchmark's graphs, its classic report,
//!  │ each op kind's latencies, the environment
//!  └ … one per run (each entry of a collection is a run)
//! ```
//!
//! The page is built from plain data ([`Doc`], [`Run`]): the caller reads
//! the documents and adds what only the benchmarks know (their classic
//! text and their own graphs); this module draws what every result has.

pub mod fio;
pub mod rank;

use crate::measure::LatencySummary;
use crate::measure::curve::{Curve, Stat};
use crate::report::RunResult;
use crate::report::plot::{curve, latency, timeline};
use hdrhistogram::Histogram;
use rank::Better;
use serde_json::Value;
use std::fmt::Write as _;

/// A graph a benchmark draws of its result, as an SVG document.
#[derive(Clone, Debug)]
pub struct Figure {
    pub title: String,
    pub svg: String,
}

/// One run on the page.
#[derive(Clone, Debug)]
pub struct Run {
    /// `file.json`, or `file.json: entry` for an entry of a collection.
    pub label: String,
    pub result: RunResult,
    /// The result as read, for fields this build does not know
    /// (`warnings`, `steady_state`): shown when present.
    pub raw: Value,
    /// The benchmark's classic report (`Err`: why there is none; `None`:
    /// the tool that wrote it has none, fio).
    pub classic: Option<Result<String, String>>,
    /// The benchmark's own graphs.
    pub figures: Vec<Figure>,
}

/// One input document: a result, a collection, fio's output.
#[derive(Clone, Debug)]
pub struct Doc {
    /// The file it was read from.
    pub file: String,
    /// What it is: `iogauge result`, `collection iogauge/postmark/v1`,
    /// `fio-3.33 JSON output`.
    pub kind: String,
    /// A collection's state, when it is one: complete, and why not.
    pub collection: Option<(bool, Option<String>)>,
    /// Graphs of the whole document (an IOBENCH spectrum).
    pub figures: Vec<Figure>,
    pub runs: Vec<Run>,
}

/// The page: a title and the documents in the order given.
#[derive(Clone, Debug)]
pub struct Page {
    pub title: String,
    pub docs: Vec<Doc>,
}

/// HTML-escaped text.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

/// A figure with three significant digits (more before the point),
/// thousands separated by thin spaces: `12 345`, `45.6`, `0.0123`.
pub fn fig(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let a = v.abs();
    if a >= 1000.0 {
        let s = format!("{:.0}", a);
        let mut out = String::new();
        for (i, ch) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push('\u{2009}');
            }
            out.push(ch);
        }
        return if v < 0.0 { format!("-{out}") } else { out };
    }
    if a == 0.0 {
        return "0".into();
    }
    let decimals = (2 - a.log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Latency of all op kinds together: mean, p50, p99, p99.9 (ns). The
/// percentiles come from the kinds' histograms added together; without a
/// histogram for every kind, from the kind with the most ops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overall {
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    /// Whether the percentiles are of every op (else of the busiest kind).
    pub merged: bool,
}

pub fn overall(r: &RunResult) -> Option<Overall> {
    let kinds: Vec<_> = r.ops.values().filter(|o| o.count > 0).collect();
    let n: u64 = kinds.iter().map(|o| o.count).sum();
    if n == 0 {
        return None;
    }
    let mean = kinds
        .iter()
        .map(|o| o.latency_ns.mean * o.count as f64)
        .sum::<f64>()
        / n as f64;
    // auto-resizing: the kinds' histograms may cover different ranges
    let mut merged = Histogram::<u64>::new(3).ok();
    for o in &kinds {
        let added = match (o.latency_histogram(), &mut merged) {
            (Some(Ok(h)), Some(m)) => m.add(&h).is_ok(),
            _ => false,
        };
        if !added {
            merged = None;
        }
    }
    if let Some(h) = merged.filter(|h| !h.is_empty()) {
        let q = |x| h.value_at_quantile(x) as f64;
        return Some(Overall {
            mean,
            p50: q(0.5),
            p99: q(0.99),
            p999: q(0.999),
            merged: true,
        });
    }
    let busiest = kinds.iter().max_by_key(|o| o.count)?;
    let l = &busiest.latency_ns;
    Some(Overall {
        mean,
        p50: l.p50 as f64,
        p99: l.p99 as f64,
        p999: l.p999 as f64,
        merged: kinds.len() == 1,
    })
}

/// One op kind's percentile curve: from its histogram, every twentieth of
/// a nine down to one op in the run, then the maximum; without a
/// histogram, the summary's percentiles (those its count supports).
pub fn percentile_points(
    count: u64,
    l: &LatencySummary,
    h: Option<&Histogram<u64>>,
) -> Vec<(f64, f64)> {
    let depth = (count.max(1) as f64).log10().clamp(1.0, 7.0);
    if let Some(h) = h.filter(|h| !h.is_empty()) {
        let steps = (depth * 20.0).floor() as usize;
        let mut v: Vec<(f64, f64)> = (0..=steps)
            .map(|i| {
                let q = 1.0 - 10f64.powf(-(i as f64) / 20.0);
                (q * 100.0, h.value_at_quantile(q) as f64)
            })
            .collect();
        v.push((100.0, h.max() as f64));
        return v;
    }
    let mut v = vec![(0.0, l.min as f64)];
    for (p, x) in [
        (50.0, l.p50),
        (90.0, l.p90),
        (95.0, l.p95),
        (99.0, l.p99),
        (99.9, l.p999),
        (99.99, l.p9999),
    ] {
        if latency::nines(p, 9.0) <= depth + 1e-9 && x > 0 {
            v.push((p, x as f64));
        }
    }
    v.push((100.0, l.max as f64));
    v
}

/// The time series as steps of ops/s and MB/s, the last (partial)
/// interval divided by the time it covered.
pub fn steps(r: &RunResult) -> Vec<timeline::Step> {
    let s = &r.timeseries;
    let n = s.ops.len().max(s.bytes.len());
    if n == 0 || s.interval_s <= 0.0 {
        return Vec::new();
    }
    (0..n)
        .map(|i| {
            let from = i as f64 * s.interval_s;
            let len = if i + 1 == n && s.last_interval_s > 0.0 {
                s.last_interval_s
            } else {
                s.interval_s
            };
            let ops = s.ops.get(i).copied().unwrap_or(0) as f64;
            let bytes = s.bytes.get(i).copied().unwrap_or(0) as f64;
            timeline::Step {
                from_s: from,
                to_s: from + len,
                ops_per_s: ops / len,
                mb_per_s: bytes / len / 1e6,
            }
        })
        .collect()
}

/// Reads a column's figure of a run.
type Pick = Box<dyn Fn(&Run) -> Option<f64>>;

/// A column of the table across runs.
struct Column {
    name: String,
    /// `None`: shown, not coloured (no better way).
    better: Option<Better>,
    value: Pick,
    show: fn(f64) -> String,
}

fn ms(ns: f64) -> String {
    latency::duration_label(ns)
}

fn mbs(b: f64) -> String {
    fig(b / 1e6)
}

fn share(x: f64) -> String {
    if x.is_finite() {
        format!("{:.2}", x)
    } else {
        "–".into()
    }
}

/// Which way a benchmark's own figure is better, by its name: times,
/// latencies and response times lower, the rest higher.
pub fn better_by_name(key: &str) -> Better {
    let k = key.to_ascii_lowercase();
    let lower = [
        "_ns", "_us", "_ms", "_s", "latency", "response", "seconds", "time",
    ];
    let per = ["per_s", "per_hour", "per_min"];
    if per.iter().any(|p| k.ends_with(p)) {
        return Better::Higher;
    }
    if lower
        .iter()
        .any(|p| k.ends_with(p) || k.contains(&format!("{p}_")))
    {
        Better::Lower
    } else {
        Better::Higher
    }
}

/// The benchmark's scalar figures (numbers at the top of `metrics`).
fn own_figures(r: &RunResult) -> Vec<(&str, f64)> {
    r.metrics
        .iter()
        .filter_map(|(k, v)| Some((k.as_str(), v.as_f64()?)))
        .filter(|(_, v)| v.is_finite())
        .collect()
}

fn columns(runs: &[&Run]) -> Vec<Column> {
    let mut c: Vec<Column> = vec![
        Column {
            name: "ops/s".into(),
            better: Some(Better::Higher),
            value: Box::new(|r| Some(r.result.summary.ops_per_s)),
            show: fig,
        },
        Column {
            name: "read MB/s".into(),
            better: Some(Better::Higher),
            value: Box::new(|r| {
                Some(r.result.summary.read_bytes_per_s).filter(|_| r.result.summary.bytes_read > 0)
            }),
            show: mbs,
        },
        Column {
            name: "write MB/s".into(),
            better: Some(Better::Higher),
            value: Box::new(|r| {
                Some(r.result.summary.write_bytes_per_s)
                    .filter(|_| r.result.summary.bytes_written > 0)
            }),
            show: mbs,
        },
        Column {
            name: "latency mean".into(),
            better: Some(Better::Lower),
            value: Box::new(|r| overall(&r.result).map(|o| o.mean)),
            show: ms,
        },
        Column {
            name: "p50".into(),
            better: Some(Better::Lower),
            value: Box::new(|r| overall(&r.result).map(|o| o.p50)),
            show: ms,
        },
        Column {
            name: "p99".into(),
            better: Some(Better::Lower),
            value: Box::new(|r| overall(&r.result).map(|o| o.p99)),
            show: ms,
        },
        Column {
            name: "p99.9".into(),
            better: Some(Better::Lower),
            value: Box::new(|r| overall(&r.result).map(|o| o.p999)),
            show: ms,
        },
        Column {
            name: "CPU util".into(),
            better: Some(Better::Lower),
            value: Box::new(|r| Some(r.result.summary.cpu_util)),
            show: share,
        },
        Column {
            name: "I/O share".into(),
            better: None,
            value: Box::new(|r| Some(r.result.summary.io_time_fraction).filter(|x| x.is_finite())),
            show: share,
        },
        Column {
            name: "elapsed s".into(),
            better: None,
            value: Box::new(|r| Some(r.result.elapsed_s)),
            show: fig,
        },
    ];
    // the benchmarks' own figures that at least two runs share
    let mut keys: Vec<String> = Vec::new();
    for r in runs {
        for (k, _) in own_figures(&r.result) {
            if !keys.iter().any(|x| x == k) {
                keys.push(k.to_string());
            }
        }
    }
    for k in keys {
        let n = runs
            .iter()
            .filter(|r| r.result.metrics.get(&k).and_then(Value::as_f64).is_some())
            .count();
        if n >= 2 {
            let key = k.clone();
            c.push(Column {
                better: Some(better_by_name(&k)),
                name: k,
                value: Box::new(move |r| r.result.metrics.get(&key).and_then(Value::as_f64)),
                show: fig,
            });
        }
    }
    c
}

const CSS: &str = r#"
:root{--fg:#1d2330;--mute:#5b6476;--line:#dde1e8;--bg:#f6f7f9;--ok:#1f7a3d;--bad:#b3261e;--accent:#1f5baa}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
header.top{background:#1d2330;color:#fff;padding:18px 28px}
header.top h1{margin:0 0 4px;font-size:22px;font-weight:600}
header.top p{margin:0;color:#c9cfdb;font-size:13px}
main{max-width:1220px;margin:0 auto;padding:18px 28px 40px}
h2{font-size:19px;margin:0 0 6px}
h3{font-size:15px;margin:22px 0 8px;color:var(--mute);text-transform:uppercase;letter-spacing:.04em}
section.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:18px 22px;margin:18px 0;box-shadow:0 1px 2px rgba(0,0,0,.04)}
nav.toc ol{margin:6px 0 0;padding-left:22px;columns:2}
a{color:var(--accent)}
.state{display:inline-block;padding:1px 9px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;vertical-align:middle;margin-left:8px}
.state.ok{background:var(--ok)}.state.bad{background:var(--bad)}
.sub{color:var(--mute);font-size:13px;margin:0 0 10px}
.error{background:#fdecea;border:1px solid #f3b8b3;color:#7a1c15;padding:8px 12px;border-radius:6px;margin:10px 0}
.headline{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px;margin:12px 0}
.headline div{border:1px solid var(--line);border-radius:6px;padding:8px 10px;background:#fbfcfd}
.headline b{display:block;font-size:20px;font-weight:600;font-variant-numeric:tabular-nums}
.headline span{color:var(--mute);font-size:12px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--line);padding:4px 9px;text-align:right;white-space:nowrap}
th{background:#eef1f5;font-weight:600}
td.l,th.l{text-align:left}
.scroll{overflow-x:auto}
dl.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:0 18px;margin:6px 0}
dl.figures div{display:flex;justify-content:space-between;border-bottom:1px solid var(--line);padding:3px 2px}
dl.figures dt{color:var(--mute)}dl.figures dd{margin:0;font-variant-numeric:tabular-nums}
table.compare{font-size:13px}
table.kv td:first-child{text-align:left;color:var(--mute)}
table.kv td{text-align:left;white-space:normal}
figure.chart{margin:10px 0;display:inline-block;vertical-align:top;max-width:100%}
figure.chart svg{max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px;background:#fff}
figure.chart figcaption{color:var(--mute);font-size:12px}
pre.classic,pre.config{background:#0f1420;color:#e4e8ef;padding:12px 14px;border-radius:6px;overflow:auto;font:12px/1.35 ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;max-height:640px}
ul.warn{margin:6px 0;padding-left:20px}ul.warn li{color:#7a4b00}
ul.warn code{background:#fff4d6;padding:0 4px;border-radius:3px}
.note{color:var(--mute);font-size:12px}
details summary{cursor:pointer;color:var(--accent)}
"#;

/// The page as HTML.
pub fn render(page: &Page) -> String {
    let runs: Vec<&Run> = page.docs.iter().flat_map(|d| &d.runs).collect();
    let mut h = String::with_capacity(64 * 1024);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"iogauge {}\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        esc(crate::report::VERSION),
        esc(&page.title)
    );
    let files: Vec<String> = page.docs.iter().map(|d| esc(&d.file)).collect();
    let _ = write!(
        h,
        "<header class=\"top\"><h1>{}</h1><p>{} run{} from {} · made by iogauge {} (commit {}) at {}</p></header>\n<main>\n",
        esc(&page.title),
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        files.join(", "),
        esc(crate::report::VERSION),
        esc(crate::report::COMMIT),
        esc(&crate::report::now_rfc3339())
    );
    if runs.len() > 1 {
        comparison(&mut h, &runs);
    }
    let mut n = 0;
    for d in &page.docs {
        if d.collection.is_some() || !d.figures.is_empty() {
            doc_header(&mut h, d);
        }
        for r in &d.runs {
            n += 1;
            run_section(&mut h, r, n);
        }
    }
    h.push_str("</main>\n</body>\n</html>\n");
    h
}

fn comparison(h: &mut String, runs: &[&Run]) {
    let cols = columns(runs);
    h.push_str("<section class=\"card\" id=\"compare\">\n<h2>Runs side by side</h2>\n");
    h.push_str("<p class=\"sub\">Each cell is coloured by its rank in its column: best green, worst red (lower is better for latency, time and CPU; the I/O share and elapsed time are not ranked). Latency is over all op kinds.</p>\n<div class=\"scroll\"><table class=\"compare\">\n<thead><tr><th class=\"l\">run</th><th class=\"l\">benchmark</th><th class=\"l\">state</th>");
    for c in &cols {
        let _ = write!(h, "<th>{}</th>", esc(&c.name));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    let values: Vec<Vec<Option<f64>>> = cols
        .iter()
        .map(|c| {
            runs.iter()
                .map(|r| (c.value)(r).filter(|v| v.is_finite()))
                .collect()
        })
        .collect();
    let colours: Vec<Vec<Option<String>>> = cols
        .iter()
        .zip(&values)
        .map(|(c, v)| match c.better {
            Some(b) => rank::colours(v, b),
            None => vec![None; v.len()],
        })
        .collect();
    for (i, r) in runs.iter().enumerate() {
        let _ = write!(
            h,
            "<tr><td class=\"l\"><a href=\"#run-{}\">{}</a></td><td class=\"l\">{}</td><td class=\"l\">{}</td>",
            i + 1,
            esc(&r.label),
            esc(&benchmark_name(&r.result)),
            if r.result.complete {
                "complete"
            } else {
                "failed"
            }
        );
        for (ci, c) in cols.iter().enumerate() {
            match (values[ci][i], &colours[ci][i]) {
                (Some(v), Some(bg)) => {
                    let _ = write!(h, "<td style=\"background:{bg}\">{}</td>", (c.show)(v));
                }
                (Some(v), None) => {
                    let _ = write!(h, "<td>{}</td>", (c.show)(v));
                }
                (None, _) => h.push_str("<td>–</td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n</section>\n");
}

fn benchmark_name(r: &RunResult) -> String {
    if r.tool.name == "fio" {
        format!("fio {}", r.tool.version)
    } else {
        r.benchmark.clone()
    }
}

fn doc_header(h: &mut String, d: &Doc) {
    let _ = writeln!(
        h,
        "<section class=\"card doc\"><h2>{}</h2><p class=\"sub\">{} · {} run{}</p>",
        esc(&d.file),
        esc(&d.kind),
        d.runs.len(),
        if d.runs.len() == 1 { "" } else { "s" }
    );
    if let Some((complete, error)) = &d.collection
        && !complete
    {
        let _ = writeln!(
            h,
            "<div class=\"error\">The collection is incomplete{}</div>",
            error
                .as_ref()
                .map(|e| format!(": {}", esc(e)))
                .unwrap_or_default()
        );
    }
    charts(h, &d.figures);
    h.push_str("</section>\n");
}

fn charts(h: &mut String, figures: &[Figure]) {
    for f in figures {
        let _ = writeln!(
            h,
            "<figure class=\"chart\">{}<figcaption>{}</figcaption></figure>",
            inline_svg(&f.svg),
            esc(&f.title)
        );
    }
}

/// An SVG document as an element of the page: no XML declaration, and a
/// viewBox so that it scales with the page.
pub fn inline_svg(svg: &str) -> String {
    let s = svg.trim_start();
    let s = match s.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map_or(rest, |x| x.1).trim_start(),
        None => s,
    };
    let Some(open_end) = s.find('>') else {
        return s.to_string();
    };
    let open = &s[..open_end];
    if open.contains("viewBox") {
        return s.to_string();
    }
    let attr = |name: &str| -> Option<f64> {
        let at = open.find(&format!(" {name}=\""))? + name.len() + 3;
        open[at..].split('"').next()?.parse().ok()
    };
    match (attr("width"), attr("height")) {
        (Some(w), Some(hh)) => format!("{} viewBox=\"0 0 {w} {hh}\"{}", open, &s[open_end..]),
        _ => s.to_string(),
    }
}

fn card(h: &mut String, value: &str, what: &str) {
    let _ = write!(h, "<div><b>{value}</b><span>{}</span></div>", esc(what));
}

fn run_section(h: &mut String, run: &Run, n: usize) {
    let r = &run.result;
    let _ = write!(
        h,
        "<section class=\"card run\" id=\"run-{n}\">\n<h2>{}<span class=\"state {}\">{}</span></h2>\n",
        esc(&run.label),
        if r.complete { "ok" } else { "bad" },
        if r.complete { "complete" } else { "failed" }
    );
    let _ = writeln!(
        h,
        "<p class=\"sub\">{} · {} {} · started {} · {} s · {} worker{}{}</p>",
        esc(&benchmark_name(r)),
        esc(&r.tool.name),
        esc(&r.tool.version),
        esc(if r.started_at.is_empty() {
            "–"
        } else {
            &r.started_at
        }),
        fig(r.elapsed_s),
        r.summary.workers,
        if r.summary.workers == 1 { "" } else { "s" },
        r.engine
            .as_ref()
            .map(|e| format!(" · engine: {}", esc(&e.describe())))
            .unwrap_or_default()
    );
    if let Some(e) = &r.error {
        let _ = writeln!(h, "<div class=\"error\">{}</div>", esc(e));
    }
    // headline figures
    let s = &r.summary;
    h.push_str("<div class=\"headline\">");
    card(h, &fig(s.ops_per_s), "ops/s");
    if s.bytes_read > 0 {
        card(h, &fig(s.read_bytes_per_s / 1e6), "read MB/s");
    }
    if s.bytes_written > 0 {
        card(h, &fig(s.write_bytes_per_s / 1e6), "write MB/s");
    }
    if let Some(o) = overall(r) {
        let of = if o.merged { "" } else { " (busiest kind)" };
        card(h, &ms(o.mean), "latency mean");
        card(h, &ms(o.p50), &format!("latency p50{of}"));
        card(h, &ms(o.p99), &format!("latency p99{of}"));
    }
    card(h, &share(s.io_time_fraction), "I/O share of time");
    card(h, &share(s.cpu_util), "CPU (cores busy)");
    card(h, &fig(s.ops as f64), "ops");
    h.push_str("</div>\n");
    let own = own_figures(r);
    if !own.is_empty() {
        let _ = write!(
            h,
            "<h3>{}'s figures</h3><dl class=\"figures\">",
            esc(&benchmark_name(r))
        );
        for (k, v) in own {
            let _ = write!(h, "<div><dt>{}</dt><dd>{}</dd></div>", esc(k), fig(v));
        }
        h.push_str("</dl>\n");
    }
    warnings(h, &run.raw);
    steady_state(h, &run.raw);
    // graphs
    let mut figs: Vec<Figure> = Vec::new();
    let lines: Vec<latency::Line> = r
        .ops
        .iter()
        .filter(|(_, o)| o.count > 0)
        .map(|(k, o)| {
            let hist = o.latency_histogram().and_then(Result::ok);
            latency::Line {
                name: format!("{k} ({} ops)", fig(o.count as f64)),
                points: percentile_points(o.count, &o.latency_ns, hist.as_ref()),
            }
        })
        .collect();
    let from_hist = r
        .ops
        .values()
        .filter(|o| o.count > 0)
        .all(|o| o.histogram.is_some());
    if let Ok(svg) = latency::svg(&lines, "latency by percentile, per op kind") {
        figs.push(Figure {
            title: if from_hist {
                "Latency percentiles per op kind, from each kind's full histogram.".into()
            } else {
                "Latency percentiles per op kind, from the result's summary percentiles (it holds no histogram).".into()
            },
            svg,
        });
    }
    let st = steps(r);
    match timeline::svg(&st, "throughput over time") {
        Ok(svg) => figs.push(Figure {
            title: format!(
                "Throughput per {} s interval{}.",
                fig(r.timeseries.interval_s),
                if st.len() > 1 && r.timeseries.last_interval_s > 0.0 {
                    "; the last, partial, interval divided by the time it covered"
                } else {
                    ""
                }
            ),
            svg,
        }),
        Err(_) if r.tool.name == "fio" => {}
        Err(_) => {}
    }
    if let Some(f) = curve_figure(r) {
        figs.push(f);
    }
    figs.extend(run.figures.iter().cloned());
    if !figs.is_empty() {
        h.push_str("<h3>Graphs</h3>\n");
        charts(h, &figs);
    }
    if r.timeseries.ops.is_empty() && r.tool.name == "fio" {
        h.push_str("<p class=\"note\">fio's JSON holds no time series (fio writes one only to its log files).</p>\n");
    }
    // the classic report
    match &run.classic {
        Some(Ok(text)) => {
            let _ = write!(
                h,
                "<h3>{}'s report</h3>\n<pre class=\"classic\">{}</pre>\n",
                esc(&r.benchmark),
                esc(text)
            );
        }
        Some(Err(why)) => {
            let _ = writeln!(h, "<p class=\"note\">No classic report: {}</p>", esc(why));
        }
        None => {}
    }
    op_table(h, r);
    environment(h, r);
    if !r.config.is_null() {
        let _ = writeln!(
            h,
            "<details><summary>configuration</summary><pre class=\"config\">{}</pre></details>",
            esc(&serde_json::to_string_pretty(&r.config).unwrap_or_default())
        );
    }
    h.push_str("</section>\n");
}

/// A throughput-versus-response-time curve in `metrics.curve` (scale,
/// sdet), drawn as their `--plot` draws it.
fn curve_figure(r: &RunResult) -> Option<Figure> {
    let c: Curve = serde_json::from_value(r.metrics.get("curve")?.clone()).ok()?;
    if c.points.is_empty() {
        return None;
    }
    let unit = r
        .metrics
        .get("unit")
        .and_then(Value::as_str)
        .unwrap_or("ops/s");
    let stat = c.constraint.map_or(Stat::Mean, |k| k.stat);
    let svg = curve::svg(&c, &format!("iogauge {}", r.benchmark), unit, stat).ok()?;
    Some(Figure {
        title: format!(
            "Load curve: throughput ({unit}) against response time, and against the load."
        ),
        svg,
    })
}

fn warnings(h: &mut String, raw: &Value) {
    let Some(list) = raw.get("warnings").and_then(Value::as_array) else {
        return;
    };
    if list.is_empty() {
        return;
    }
    h.push_str("<h3>Warnings</h3><ul class=\"warn\">");
    for w in list {
        let code = w.get("code").and_then(Value::as_str).unwrap_or("");
        let msg = w
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| w.to_string());
        let _ = write!(h, "<li><code>{}</code> {}</li>", esc(code), esc(&msg));
    }
    h.push_str("</ul>\n");
}

fn steady_state(h: &mut String, raw: &Value) {
    let Some(ss) = raw.get("steady_state").filter(|v| !v.is_null()) else {
        return;
    };
    h.push_str("<h3>Steady state</h3>");
    match ss.as_object() {
        Some(m) => {
            h.push_str("<table class=\"kv steady\">");
            for (k, v) in m {
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.as_f64().map_or(n.to_string(), fig),
                    other => other.to_string(),
                };
                let _ = write!(h, "<tr><td>{}</td><td>{}</td></tr>", esc(k), esc(&text));
            }
            h.push_str("</table>\n");
        }
        None => {
            let _ = write!(h, "<p>{}</p>", esc(&ss.to_string()));
        }
    }
}

fn op_table(h: &mut String, r: &RunResult) {
    let kinds: Vec<_> = r.ops.iter().filter(|(_, o)| o.count > 0).collect();
    if kinds.is_empty() {
        return;
    }
    h.push_str("<h3>Latency per op kind</h3><div class=\"scroll\"><table class=\"ops\"><thead><tr><th class=\"l\">op</th><th>count</th><th>MB</th><th>mean</th><th>min</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>p99.99</th><th>max</th></tr></thead><tbody>");
    for (k, o) in kinds {
        let l = &o.latency_ns;
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td>",
            esc(k),
            fig(o.count as f64),
            fig(o.bytes as f64 / 1e6)
        );
        for v in [
            l.mean,
            l.min as f64,
            l.p50 as f64,
            l.p90 as f64,
            l.p99 as f64,
            l.p999 as f64,
            l.p9999 as f64,
            l.max as f64,
        ] {
            let _ = write!(h, "<td>{}</td>", ms(v));
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table></div>\n");
}

fn environment(h: &mut String, r: &RunResult) {
    let e = &r.environment;
    let cpu = match (e.cpu_model.is_empty(), e.cpus) {
        (true, 0) => String::new(),
        (false, 0) => e.cpu_model.clone(),
        (true, n) => format!("{n} CPUs"),
        (false, n) => format!("{} × {n}", e.cpu_model),
    };
    let mem = if e.memory_bytes > 0 {
        format!("{:.1} GiB", e.memory_bytes as f64 / (1u64 << 30) as f64)
    } else {
        String::new()
    };
    let rows = [
        (
            "machine",
            format!("{} {}", e.hostname, e.arch).trim().to_string(),
        ),
        ("OS", e.os.clone()),
        ("kernel", e.kernel.clone()),
        ("CPU", cpu),
        ("caches", e.cpu_caches.clone()),
        ("memory", mem),
        ("file system", e.fs_type.clone()),
        ("mount point", e.mount_point.clone()),
        ("mount options", e.mount_options.clone()),
        ("device", e.device.clone()),
        ("I/O scheduler", e.io_scheduler.clone()),
        ("directory", e.target_dir.clone()),
        ("clock source", e.clocksource.clone()),
    ];
    let rows: Vec<_> = rows.iter().filter(|(_, v)| !v.is_empty()).collect();
    if rows.is_empty() {
        return;
    }
    h.push_str("<h3>Environment</h3><table class=\"kv env\">");
    for (k, v) in rows {
        let _ = write!(h, "<tr><td>{k}</td><td>{}</td></tr>", esc(v));
    }
    h.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_read_well() {
        assert_eq!(fig(1234567.0), "1\u{2009}234\u{2009}567");
        assert_eq!(fig(999.4), "999");
        assert_eq!(fig(45.67), "45.7");
        assert_eq!(fig(0.012345), "0.0123");
        assert_eq!(fig(0.0), "0");
        assert_eq!(fig(f64::NAN), "–");
        assert_eq!(
            esc("<a href='x'>&</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;"
        );
    }

    #[test]
    fn figure_names_say_which_way_is_better() {
        assert_eq!(better_by_name("transactions_per_s"), Better::Higher);
        assert_eq!(better_by_name("iostones_per_s"), Better::Higher);
        assert_eq!(better_by_name("scripts_per_hour"), Better::Higher);
        assert_eq!(better_by_name("mean_response_s"), Better::Lower);
        assert_eq!(better_by_name("read_iops"), Better::Higher);
        assert_eq!(better_by_name("elapsed_s"), Better::Lower);
        assert_eq!(better_by_name("latency_ns_p99"), Better::Lower);
    }

    /// The last interval is divided by the time it covered, the others by
    /// the interval.
    #[test]
    fn the_last_partial_interval_is_scaled() {
        let mut r = RunResult::default();
        r.timeseries.interval_s = 1.0;
        r.timeseries.ops = vec![100, 100, 25];
        r.timeseries.bytes = vec![1_000_000, 2_000_000, 250_000];
        r.timeseries.last_interval_s = 0.25;
        let s = steps(&r);
        assert_eq!(s.len(), 3);
        assert_eq!(s[1].ops_per_s, 100.0);
        assert_eq!(s[1].mb_per_s, 2.0);
        assert_eq!(s[2].ops_per_s, 100.0);
        assert_eq!(s[2].mb_per_s, 1.0);
        assert_eq!((s[2].from_s, s[2].to_s), (2.0, 2.25));
    }

    /// From the histogram: down to one op in the run, then the maximum;
    /// from the summary: only the percentiles the count supports.
    #[test]
    fn percentile_points_from_histogram_or_summary() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 1_000_000_000, 3).unwrap();
        for v in 1..=1000u64 {
            h.record(v * 1000).unwrap();
        }
        let l = LatencySummary::default();
        let p = percentile_points(1000, &l, Some(&h));
        assert_eq!(p.len(), 3 * 20 + 2);
        assert_eq!(p[0], (0.0, 1000.0));
        assert!((p[20].0 - 90.0).abs() < 1e-9);
        assert_eq!(p.last().unwrap().0, 100.0);
        assert!(p.last().unwrap().1 >= 1_000_000.0);
        let l = LatencySummary {
            min: 1,
            p50: 5,
            p90: 9,
            p95: 10,
            p99: 20,
            p999: 30,
            p9999: 40,
            max: 50,
            ..Default::default()
        };
        let p = percentile_points(150, &l, None);
        let ps: Vec<f64> = p.iter().map(|q| q.0).collect();
        assert_eq!(ps, vec![0.0, 50.0, 90.0, 95.0, 99.0, 100.0]);
    }

    #[test]
    fn an_svg_gets_a_viewbox_and_loses_its_declaration() {
        let s = inline_svg(
            "<?xml version=\"1.0\"?>\n<svg width=\"760\" height=\"400\" xmlns=\"x\"><g/></svg>",
        );
        assert!(
            s.starts_with("<svg width=\"760\" height=\"400\" xmlns=\"x\" viewBox=\"0 0 760 400\">"),
            "{s}"
        );
        let t = "<svg viewBox=\"0 0 1 1\"></svg>";
        assert_eq!(inline_svg(t), t);
    }
}
