//! fio's JSON (`--output-format=json`, and `json+` with the histogram
//! bins): the same keys, in the same order, with the same JSON types (fio
//! writes its floats with six decimals, so `0.000000` stays a float).

use super::num::fixed;
use super::steady::SsReport;
use super::text::{Group, groups, moments};
use super::{
    DirReport, DiskUtil, FioJobReport, LatStat, PercentilesOf, ReportOpts, Unified, ctime,
};
use std::fmt::Write;

/// A JSON value that keeps its keys' order and writes numbers as fio does.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Int(i128),
    Float(f64),
    Str(String),
    Obj(Vec<(String, Node)>),
    Arr(Vec<Node>),
}

fn int(v: impl Into<i128>) -> Node {
    Node::Int(v.into())
}

fn obj(pairs: Vec<(&str, Node)>) -> Node {
    Node::Obj(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

impl Node {
    /// fio's layout: two spaces a level, `"key" : value`.
    pub fn write(&self, out: &mut String, level: usize) {
        match self {
            Node::Int(v) => {
                let _ = write!(out, "{v}");
            }
            Node::Float(v) => out.push_str(&fixed(*v, 6)),
            Node::Str(s) => out.push_str(&serde_json::Value::String(s.clone()).to_string()),
            Node::Obj(pairs) => {
                out.push_str("{\n");
                for (i, (k, v)) in pairs.iter().enumerate() {
                    indent(out, level + 1);
                    let _ = write!(out, "{} : ", serde_json::Value::String(k.clone()));
                    v.write(out, level + 1);
                    out.push_str(if i + 1 < pairs.len() { ",\n" } else { "\n" });
                }
                indent(out, level);
                out.push('}');
            }
            Node::Arr(items) => {
                out.push_str("[\n");
                for (i, v) in items.iter().enumerate() {
                    indent(out, level + 1);
                    v.write(out, level + 1);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                indent(out, level);
                out.push(']');
            }
        }
    }
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// What the document says beside the jobs.
#[derive(Clone, Debug, Default)]
pub struct Doc<'a> {
    /// Goes in `fio version`.
    pub version: &'a str,
    /// `global options`, when there are any.
    pub global: &'a [(String, String)],
    /// `json+`: each latency's histogram as `bins`.
    pub plus: bool,
    pub disks: &'a [DiskUtil],
}

/// The whole document for `jobs`.
pub fn render(jobs: &[FioJobReport], doc: &Doc) -> String {
    let mut out = String::new();
    tree(jobs, doc).write(&mut out, 0);
    out.push('\n');
    out
}

/// The document as a tree (what [`render`] writes).
pub fn tree(jobs: &[FioJobReport], doc: &Doc) -> Node {
    let ended = jobs.iter().map(|j| j.ended_ms).max().unwrap_or(0);
    let mut top = vec![
        ("fio version", Node::Str(doc.version.into())),
        ("timestamp", int(ended / 1000)),
        ("timestamp_ms", int(ended)),
        ("time", Node::Str(ctime(ended / 1000))),
    ];
    if !doc.global.is_empty() {
        top.push(("global options", options(doc.global)));
    }
    let gs = groups(jobs);
    let group_of = |id: u32| gs.iter().find(|(g, _)| g.id == id).map(|(g, _)| g);
    let list = jobs
        .iter()
        .map(|j| {
            job(
                j,
                group_of(j.groupid).expect("every job is in its group"),
                doc.plus,
            )
        })
        .collect();
    top.push(("jobs", Node::Arr(list)));
    if !doc.disks.is_empty() {
        top.push((
            "disk_util",
            Node::Arr(
                doc.disks
                    .iter()
                    .map(|d| {
                        obj(vec![
                            ("name", Node::Str(d.name.clone())),
                            ("read_ios", int(d.read_ios)),
                            ("write_ios", int(d.write_ios)),
                            ("read_merges", int(d.read_merges)),
                            ("write_merges", int(d.write_merges)),
                            ("read_ticks", int(d.read_ticks)),
                            ("write_ticks", int(d.write_ticks)),
                            ("in_queue", int(d.in_queue)),
                            ("util", Node::Float(d.util)),
                        ])
                    })
                    .collect(),
            ),
        ));
    }
    obj(top)
}

fn options(opts: &[(String, String)]) -> Node {
    Node::Obj(
        opts.iter()
            .map(|(k, v)| (k.clone(), Node::Str(v.clone())))
            .collect(),
    )
}

fn job(j: &FioJobReport, g: &Group, plus: bool) -> Node {
    let elapsed_s = j.runtime_ms.div_ceil(1000);
    if !j.opts.stats {
        return unkept(elapsed_s, plus);
    }
    let o = &j.opts;
    let mut v = vec![
        ("jobname", Node::Str(j.name.clone())),
        ("groupid", int(j.groupid)),
        ("error", int(j.error)),
        ("eta", int(0)),
        ("elapsed", int(elapsed_s)),
    ];
    if !j.options.is_empty() {
        v.push(("job options", options(&j.options)));
    }
    if o.unified == Unified::Mixed {
        // the sum alone, and no sync (fio's add_ddir_status_json)
        v.push(("mixed", ddir(j.dirs()[0], g, 0, o, plus)));
    } else {
        for (i, name) in ["read", "write", "trim"].into_iter().enumerate() {
            let d = j.dirs()[i];
            v.push((name, ddir(d, g, i, o, plus)));
        }
        let sync = j.sync.clone().unwrap_or_default();
        let p = (o.clat_percentiles || o.lat_percentiles).then_some(&o.percentiles[..]);
        v.push((
            "sync",
            obj(vec![
                ("total_ios", int(sync.n)),
                ("lat_ns", lat(&sync, p, plus)),
            ]),
        ));
        if o.unified == Unified::Both {
            v.push(("mixed", ddir(j.mixed.as_ref(), g, 0, o, plus)));
        }
    }
    v.push(("job_runtime", int(j.runtime_ms)));
    v.push(("usr_cpu", Node::Float(j.usr_cpu())));
    v.push(("sys_cpu", Node::Float(j.sys_cpu())));
    v.push(("ctx", int(j.ctx)));
    v.push(("majf", int(j.majf)));
    v.push(("minf", int(j.minf)));
    let d = j.depth_dist();
    let level = ["1", "2", "4", "8", "16", "32", ">=64"];
    v.push(("iodepth_level", shares(&level, &d)));
    let (s, c) = j.batch_dists();
    let sub = ["0", "4", "8", "16", "32", "64", ">=64"];
    v.push(("iodepth_submit", shares(&sub, &s)));
    v.push(("iodepth_complete", shares(&sub, &c)));
    let (n, u, m) = j.latency_buckets();
    let r = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    v.push(("latency_ns", shares(&r[..10], &n)));
    v.push(("latency_us", shares(&r[..10], &u)));
    v.push(("latency_ms", shares(&r, &m)));
    v.push(("latency_depth", int(j.iodepth)));
    v.push(("latency_target", int(0)));
    v.push(("latency_percentile", Node::Float(100.0)));
    v.push(("latency_window", int(0)));
    if let Some(ss) = &j.steadystate {
        v.push(("steadystate", steadystate(ss)));
    }
    obj(v)
}

/// fio's `steadystate` object: the criterion, whether it was attained,
/// and the window's samples.
fn steadystate(ss: &SsReport) -> Node {
    let ints = |v: &[u64]| Node::Arr(v.iter().map(|x| int(*x)).collect());
    let pct = if ss.criterion.pct { "%" } else { "" };
    obj(vec![
        ("ss", Node::Str(ss.criterion.fio_form())),
        ("duration", int(ss.duration_s)),
        ("attained", int(i32::from(ss.attained))),
        (
            "criterion",
            Node::Str(format!("{:.6}{pct}", ss.value as f32)),
        ),
        ("max_deviation", Node::Float(ss.max_deviation)),
        ("slope", Node::Float(ss.slope)),
        (
            "data",
            obj(vec![
                ("bw_mean", int(ss.bw_mean())),
                ("iops_mean", int(ss.iops_mean())),
                ("iops", ints(&ss.iops)),
                ("bw", ints(&ss.bw)),
            ]),
        ),
    ])
}

/// A job with `stats=0`: fio lists a thread's figures it never filled
/// (no name, group -1, eta `INT_MAX`), everything at zero.
fn unkept(elapsed_s: u64, plus: bool) -> Node {
    let g = Group::default();
    let o = ReportOpts::default();
    let mut v = vec![
        ("groupid", int(u32::MAX)),
        ("error", int(0)),
        ("eta", int(i32::MAX)),
        ("elapsed", int(elapsed_s)),
    ];
    for (i, name) in ["read", "write", "trim"].into_iter().enumerate() {
        v.push((name, ddir(None, &g, i, &o, plus)));
    }
    let none = LatStat::default();
    v.push((
        "sync",
        obj(vec![
            ("total_ios", int(0)),
            ("lat_ns", lat(&none, None, plus)),
        ]),
    ));
    v.push(("job_runtime", int(0)));
    v.push(("usr_cpu", Node::Float(0.0)));
    v.push(("sys_cpu", Node::Float(0.0)));
    for k in ["ctx", "majf", "minf"] {
        v.push((k, int(0)));
    }
    let level = ["1", "2", "4", "8", "16", "32", ">=64"];
    let sub = ["0", "4", "8", "16", "32", "64", ">=64"];
    v.push(("iodepth_level", shares(&level, &[0.0; 7])));
    v.push(("iodepth_submit", shares(&sub, &[0.0; 7])));
    v.push(("iodepth_complete", shares(&sub, &[0.0; 7])));
    let r = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    v.push(("latency_ns", shares(&r[..10], &[0.0; 10])));
    v.push(("latency_us", shares(&r[..10], &[0.0; 10])));
    v.push(("latency_ms", shares(&r, &[0.0; 12])));
    obj(v)
}

fn shares(keys: &[&str], vals: &[f64]) -> Node {
    Node::Obj(
        keys.iter()
            .zip(vals)
            .map(|(k, v)| (k.to_string(), Node::Float(*v)))
            .collect(),
    )
}

/// fio's `add_ddir_status_json`: a direction that did nothing keeps every
/// key, at zero.
fn ddir(d: Option<&DirReport>, g: &Group, i: usize, o: &ReportOpts, plus: bool) -> Node {
    let empty = DirReport::default();
    let d = d.unwrap_or(&empty);
    let bw_bytes = d.bw_bytes();
    let blocks = d.percentile_blocks(o);
    let has = |w: PercentilesOf| {
        blocks
            .iter()
            .any(|(of, _)| *of == w)
            .then_some(&o.percentiles[..])
    };
    let none = LatStat::default();
    let mut v = vec![
        ("io_bytes", int(d.io_bytes)),
        ("io_kbytes", int(d.io_bytes >> 10)),
        ("bw_bytes", int(bw_bytes)),
        ("bw", int(bw_bytes / 1024)),
        ("iops", Node::Float(d.iops())),
        ("runtime", int(d.runtime_ms)),
        ("total_ios", int(d.total_ios)),
        ("short_ios", int(0)),
        ("drop_ios", int(0)),
        (
            "slat_ns",
            lat(
                d.slat.as_ref().unwrap_or(&none),
                has(PercentilesOf::Slat),
                plus,
            ),
        ),
        (
            "clat_ns",
            lat(
                d.clat.as_ref().unwrap_or(&none),
                has(PercentilesOf::Clat),
                plus,
            ),
        ),
        ("lat_ns", lat(&d.lat, has(PercentilesOf::Lat), plus)),
    ];
    let (min, max, mean, dev, agg) = match moments(&d.bw_samples) {
        Some((min, max, mean, dev)) => (min, max, mean, dev, g.share(i, mean)),
        None => (0.0, 0.0, 0.0, 0.0, 0.0),
    };
    v.push(("bw_min", int(min as u64)));
    v.push(("bw_max", int(max as u64)));
    v.push(("bw_agg", Node::Float(agg)));
    v.push(("bw_mean", Node::Float(mean)));
    v.push(("bw_dev", Node::Float(dev)));
    v.push(("bw_samples", int(d.bw_samples.len() as u64)));
    let (min, max, mean, dev) = moments(&d.iops_samples).unwrap_or_default();
    v.push(("iops_min", int(min as u64)));
    v.push(("iops_max", int(max as u64)));
    v.push(("iops_mean", Node::Float(mean)));
    v.push(("iops_stddev", Node::Float(dev)));
    v.push(("iops_samples", int(d.iops_samples.len() as u64)));
    obj(v)
}

/// fio's `add_ddir_lat_json`: min, max, mean, stddev, N, and the
/// percentiles of `list` (and `bins` for json+) when this is a latency
/// they are shown for.
fn lat(s: &LatStat, list: Option<&[f64]>, plus: bool) -> Node {
    let mut v = vec![
        ("min", int(s.min)),
        ("max", int(s.max)),
        ("mean", Node::Float(s.mean)),
        ("stddev", Node::Float(s.stddev)),
        ("N", int(s.n)),
    ];
    if let Some(list) = list
        && s.n > 0
        && let Some(p) = s.percentiles_of(list)
    {
        v.push((
            "percentile",
            Node::Obj(
                p.iter()
                    .map(|(q, x)| (format!("{q:.6}"), int(*x)))
                    .collect(),
            ),
        ));
        if plus && let Some(h) = &s.hist {
            // bucket values clamped to the exact extremes can meet: add them
            let mut bins: Vec<(u64, u64)> = Vec::new();
            for b in h.iter_recorded() {
                let at = h
                    .highest_equivalent(b.value_iterated_to())
                    .clamp(s.min.min(s.max), s.max);
                match bins.last_mut() {
                    Some((v, c)) if *v == at => *c += b.count_at_value(),
                    _ => bins.push((at, b.count_at_value())),
                }
            }
            let bins = bins
                .into_iter()
                .map(|(at, c)| (at.to_string(), int(c)))
                .collect();
            v.push(("bins", Node::Obj(bins)));
        }
    }
    obj(v)
}
