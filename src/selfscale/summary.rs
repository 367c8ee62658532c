//! The text summary of a model, in the style of Chen & Patterson §IX-B1b:
//! what the regions are, where the caches end, and what each parameter does
//! in each region.

use super::model::{Boundary, CrossCurve, Curve, Param, Point, Region, short_bytes};
use super::result::{Figures, Plan};
use crate::report::RunResult;
use std::fmt::Write;

/// MB/s of curve `c` at its parameter's value `v`, where measured.
fn value_at(c: &Curve, v: f64) -> Option<f64> {
    c.points
        .iter()
        .find(|q| (c.param.get(&q.workload) - v).abs() < 1e-9)
        .map(|q| q.mb_per_s)
}

fn at(r: &Region, p: Param, v: f64) -> Option<f64> {
    value_at(r.curve(p)?, v)
}

/// Each region's throughput at `p` = 1 over its throughput at `p` = 0,
/// where both were measured and the latter is above zero.
fn one_against_zero<'a>(regions: &[&'a Region], p: Param) -> Vec<(&'a Region, f64)> {
    regions
        .iter()
        .filter_map(|r| {
            let (zero, one) = (at(r, p, 0.0)?, at(r, p, 1.0)?);
            (zero > 0.0).then(|| (*r, one / zero))
        })
        .collect()
}

fn ends(r: &Region, p: Param) -> Option<(&Point, &Point)> {
    let c = r.curve(p)?;
    Some((c.points.first()?, c.points.last()?))
}

/// How a region is called in sentences (`b`: the model's boundaries).
pub fn region_name(b: &[Boundary], r: &Region) -> String {
    let fc = b.iter().find(|b| b.label == "effective file cache size");
    let dc = b.iter().find(|b| b.label == "effective device cache size");
    let cpu = b.iter().rfind(|b| b.label == "effective CPU cache size");
    let name = if let Some(b) = fc {
        if r.number > b.below {
            "on the device"
        } else if r.number == b.below {
            "in the file cache"
        } else if cpu.is_some_and(|c| r.number <= c.below) {
            "in the CPU caches"
        } else {
            "in the file cache, small data sets"
        }
    } else if let Some(b) = dc {
        if r.number > b.below {
            "on the device"
        } else {
            "in the device's cache"
        }
    } else if cpu.is_some_and(|c| r.number <= c.below) {
        "in the CPU caches"
    } else {
        ""
    };
    if name.is_empty() {
        format!("in region {}", r.number)
    } else {
        format!("{name} (region {})", r.number)
    }
}

/// `in the file cache (region 2, 1.8×)`
fn region_with(m: &[Boundary], r: &Region, detail: &str) -> String {
    let n = region_name(m, r);
    match n.strip_suffix(')') {
        Some(head) if n.contains("(region") => format!("{head}, {detail})"),
        _ => format!("{n} ({detail})"),
    }
}

fn times(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.0}×")
    } else {
        format!("{x:.1}×")
    }
}

/// The sentences of "what it learned" about `regions` and the
/// boundaries `m` between them.
pub fn findings(regions: &[Region], m: &[Boundary]) -> Vec<String> {
    let mut out = Vec::new();
    let regions: Vec<&Region> = regions.iter().filter(|r| r.focal_point.is_some()).collect();
    cliffs(m, &mut out);
    request_size(m, &regions, &mut out);
    reads_and_writes(m, &regions, &mut out);
    concurrency(m, &regions, &mut out);
    sequentiality(m, &regions, &mut out);
    small_requests(m, &regions, &mut out);
    out
}

/// A sentence per cliff: where it is and how much slower beyond it.
fn cliffs(m: &[Boundary], out: &mut Vec<String>) {
    for b in m.iter().filter(|b| b.cliff) {
        let slower = b.upper_mb_per_s / b.lower_mb_per_s.max(1e-9);
        let what = if b.label == "effective file cache size" {
            "applications whose data are larger go to the device".to_string()
        } else {
            format!(
                "beyond it throughput falls from region {} to {}",
                b.below, b.above
            )
        };
        out.push(format!(
            "{} is {}: {what}, {} slower ({:.0} → {:.0} MB/s).",
            capitalise(&b.label),
            short_bytes(b.unique_bytes),
            times(slower),
            b.upper_mb_per_s,
            b.lower_mb_per_s
        ));
    }
}

/// What request size does, in the region where it helps most and least.
fn request_size(m: &[Boundary], regions: &[&Region], out: &mut Vec<String>) {
    let sizes: Vec<(&Region, f64, u64, u64)> = regions
        .iter()
        .filter_map(|r| {
            let (a, b) = ends(r, Param::SizeMean)?;
            (a.mb_per_s > 0.0).then(|| {
                (
                    *r,
                    b.mb_per_s / a.mb_per_s,
                    a.workload.size_mean,
                    b.workload.size_mean,
                )
            })
        })
        .collect();
    if !sizes.is_empty() {
        let hi = sizes.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        let lo = sizes.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        let span = |s: &(&Region, f64, u64, u64)| {
            format!(
                "{} → {}: {}",
                short_bytes(s.2),
                short_bytes(s.3),
                times(s.1)
            )
        };
        if hi.1 < 1.25 && lo.1 > 0.8 {
            out.push(format!("Request size hardly matters ({}).", span(hi)));
        } else if sizes.len() == 1 || (hi.1 / lo.1) < 1.25 {
            let verb = if hi.1 >= 1.0 { "help" } else { "hurt" };
            out.push(format!("Larger requests {verb} ({}).", span(hi)));
        } else {
            out.push(format!(
                "Larger requests help more {} than {}.",
                region_with(m, hi.0, &span(hi)),
                region_with(m, lo.0, &span(lo))
            ));
        }
    }
}

/// Reads against writes (readFrac 1 against 0) in each region.
fn reads_and_writes(m: &[Boundary], regions: &[&Region], out: &mut Vec<String>) {
    let rw = one_against_zero(regions, Param::ReadFrac);
    let class = |x: f64| {
        if x > 1.1 {
            "reads are faster than writes"
        } else if x < 1.0 / 1.1 {
            "writes are faster than reads"
        } else {
            "reads and writes are about as fast"
        }
    };
    let list = |v: &[(&Region, f64)], what: &str| {
        v.iter()
            .map(|(r, x)| format!("{} region {}", times(*x), r.number))
            .collect::<Vec<_>>()
            .join(", ")
            + what
    };
    if !rw.is_empty() {
        let first = class(rw[0].1);
        if rw.iter().all(|x| class(x.1) == first) {
            let every = if rw.len() > 1 { " in every region" } else { "" };
            out.push(format!(
                "{}{every} (readFrac 1 against 0: {}).",
                capitalise(first),
                list(&rw, "")
            ));
        } else {
            let parts: Vec<String> = rw
                .iter()
                .map(|(r, x)| format!("{} {}", class(*x), region_with(m, r, &times(*x))))
                .collect();
            out.push(format!("{}.", capitalise(&parts.join("; "))));
        }
    }
}

/// What more processes give in each region.
fn concurrency(m: &[Boundary], regions: &[&Region], out: &mut Vec<String>) {
    let pn: Vec<(&Region, f64, u32)> = regions
        .iter()
        .filter_map(|r| {
            let c = r.curve(Param::ProcessNum)?;
            let one = c.points.first()?.mb_per_s;
            let best = c
                .points
                .iter()
                .max_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s))?;
            (one > 0.0).then(|| (*r, best.mb_per_s / one, best.workload.process_num))
        })
        .collect();
    for (r, x, p) in &pn {
        if *x < 1.1 {
            out.push(format!(
                "Increasing concurrency does not improve performance {}.",
                region_with(
                    m,
                    r,
                    &format!("the best processNum gives {} of one process", times(*x))
                )
            ));
        } else {
            out.push(format!(
                "Concurrency helps {}.",
                region_with(
                    m,
                    r,
                    &format!("processNum {p} gives {} of one process", times(*x))
                )
            ));
        }
    }
}

/// Where sequentiality helps (seqFrac 1 against 0) and where little.
fn sequentiality(m: &[Boundary], regions: &[&Region], out: &mut Vec<String>) {
    let sq = one_against_zero(regions, Param::SeqFrac);
    let helps: Vec<&(&Region, f64)> = sq.iter().filter(|x| x.1 >= 1.2).collect();
    let little: Vec<&(&Region, f64)> = sq.iter().filter(|x| x.1 < 1.2).collect();
    let names = |v: &[&(&Region, f64)]| {
        v.iter()
            .map(|(r, x)| region_with(m, r, &times(*x)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (helps.is_empty(), little.is_empty()) {
        (false, false) => out.push(format!(
            "Sequentiality offers substantial benefit {} but little {} (seqFrac 1 against 0).",
            names(&helps),
            names(&little)
        )),
        (false, true) => out.push(format!(
            "Sequentiality helps {} (seqFrac 1 against 0).",
            names(&helps)
        )),
        (true, false) => out.push(format!(
            "Sequentiality offers little benefit {} (seqFrac 1 against 0).",
            names(&little)
        )),
        (true, true) => {}
    }
}

/// readFrac and seqFrac with small requests (the curves measured again at
/// a small sizeMean), where they act by more than a quarter otherwise.
fn small_requests(m: &[Boundary], regions: &[&Region], out: &mut Vec<String>) {
    for (p, what) in [
        (Param::SeqFrac, "Sequentiality"),
        (Param::ReadFrac, "Reading rather than writing"),
    ] {
        let mut parts = Vec::new();
        for r in regions {
            let Some(c) = r
                .cross
                .iter()
                .find(|c| c.across == Param::SizeMean && c.curve.param == p)
            else {
                continue;
            };
            let (Some(a), Some(b), Some(fa), Some(fb)) = (
                value_at(&c.curve, 0.0),
                value_at(&c.curve, 1.0),
                at(r, p, 0.0),
                at(r, p, 1.0),
            ) else {
                continue;
            };
            if a <= 0.0 || fa <= 0.0 {
                continue;
            }
            let (small, focal) = (b / a, fb / fa);
            if small / focal > 1.25 || small / focal < 0.8 {
                parts.push(region_with(
                    m,
                    r,
                    &format!(
                        "{} at {}, {} at {}",
                        times(small),
                        short_bytes(c.at as u64),
                        times(focal),
                        short_bytes(r.focal.size_mean)
                    ),
                ));
            }
        }
        if !parts.is_empty() {
            out.push(format!(
                "{what} acts differently on small requests {} ({} 1 against 0).",
                parts.join(", "),
                p.name()
            ));
        }
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn pct(x: f64) -> String {
    format!("±{:.1}%", x * 100.0)
}

/// The summary of a result (summary.txt and stdout), with or without the
/// set-up lines (`figures.setup`, which a caller that showed them as the
/// run began leaves out).
pub fn render_with(plan: &Plan, f: &Figures, r: &RunResult, with_setup: bool) -> String {
    let mut s = String::new();
    heading(&mut s, plan, r, if with_setup { &f.setup } else { &[] });
    sweep_table(&mut s, &f.sweep, &f.sweep_cross);
    regions_list(&mut s, &f.region_details);
    boundaries_list(&mut s, &f.boundaries);
    let learned = findings(&f.region_details, &f.boundaries);
    if !learned.is_empty() {
        let _ = writeln!(s, "\nWhat it learned:");
        for l in learned {
            let _ = writeln!(s, "- {l}");
        }
    }
    curves_list(&mut s, &f.region_details);
    precision_line(&mut s, f);
    if !f.notes.is_empty() {
        let _ = writeln!(s, "notes:");
        for n in &f.notes {
            let _ = writeln!(s, "  {n}");
        }
    }
    if !f.files.is_empty() {
        let _ = writeln!(s, "files: {}", f.files.join(", "));
    }
    s
}

/// What was measured on what, the set-up lines shown, whether the run
/// finished, and how requests were made.
fn heading(s: &mut String, plan: &Plan, r: &RunResult, setup_lines: &[String]) {
    let env = &r.environment;
    let _ = writeln!(
        s,
        "iogauge selfscale of {} ({} on {}, {}): {} CPUs{}, {} memory, kernel {}",
        env.target_dir,
        env.fs_type,
        env.device,
        env.mount_options,
        env.cpus,
        if env.cpu_caches.is_empty() {
            String::new()
        } else {
            format!(" ({})", env.cpu_caches)
        },
        short_bytes(env.memory_bytes),
        env.kernel
    );
    for l in setup_lines {
        let _ = writeln!(s, "{l}");
    }
    if !r.complete {
        let _ = writeln!(
            s,
            "\nINCOMPLETE: the run stopped before it finished; what follows is what it measured."
        );
    }
    let _ = writeln!(
        s,
        "requests: sizes and offsets aligned to {} B; {}{}",
        plan.settings.align,
        plan.settings.engine,
        if plan.settings.direct {
            ", O_DIRECT"
        } else {
            ""
        }
    );
}

/// The uniqueBytes sweep, a line per point, with the sweep again at other
/// readFracs and processNums (interactions) as more columns.
fn sweep_table(s: &mut String, sweep: &Curve, sweep_cross: &[CrossCurve]) {
    let f = &sweep.fixed;
    let _ = writeln!(
        s,
        "\nuniqueBytes sweep (sizeMean {}, readFrac {}, seqFrac {}, processNum {}):",
        Param::SizeMean.show(f.size_mean as f64),
        f.read_frac,
        f.seq_frac,
        f.process_num
    );
    let mut head = format!("  {:>12} {:>10} {:>8}", "uniqueBytes", "MB/s", "95% CI");
    for c in sweep_cross {
        head += &format!(
            " {:>19}",
            format!("{} {} MB/s", c.across.name(), c.across.show(c.at))
        );
    }
    let _ = writeln!(s, "{head}");
    for p in &sweep.points {
        let u = p.workload.unique_bytes;
        let mut line = format!(
            "  {:>12} {:>10.1} {:>8}",
            short_bytes(u),
            p.mb_per_s,
            pct(p.rel_half_width)
        );
        for c in sweep_cross {
            match c.curve.points.iter().find(|q| q.workload.unique_bytes == u) {
                Some(q) => line += &format!(" {:>19.1}", q.mb_per_s),
                None => line += &format!(" {:>19}", "-"),
            }
        }
        if !p.converged {
            line += " (time cap)";
        }
        let _ = writeln!(s, "{}", line.trim_end());
    }
}

/// Each region: its span, its focal vector and the focal workload's
/// repeated measurements.
fn regions_list(s: &mut String, regions: &[Region]) {
    if !regions.is_empty() {
        let _ = writeln!(s, "\nregions:");
    }
    for r in regions {
        let fp = r.focal_point.as_ref();
        let _ = writeln!(
            s,
            "  {}: uniqueBytes {} … {} (level {:.0} MB/s; used for {} … {})",
            r.number,
            short_bytes(r.lo_bytes),
            short_bytes(r.hi_bytes),
            r.level_mb_per_s,
            short_bytes(r.from_bytes),
            short_bytes(r.to_bytes)
        );
        let _ = writeln!(
            s,
            "     focal vector: {}{}",
            r.focal.describe(),
            match fp {
                Some(p) => format!(
                    " → {:.1} MB/s, {:.0} IO/s; {}",
                    p.mb_per_s,
                    p.iops,
                    if r.stable {
                        format!("settled after {} round(s)", r.rounds)
                    } else {
                        format!("not settled after {} rounds", r.rounds)
                    }
                ),
                None => " (not measured: the run stopped)".into(),
            }
        );
        if r.focal_repeats.len() >= 2 {
            let reps: Vec<String> = r.focal_repeats.iter().map(|x| format!("{x:.1}")).collect();
            let (lo, hi) = r
                .focal_repeats
                .iter()
                .fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
            let _ = writeln!(
                s,
                "     the focal workload, measured with each curve: {} MB/s (spread {:.1} %)",
                reps.join(", "),
                if lo > 0.0 {
                    (hi / lo - 1.0) * 100.0
                } else {
                    0.0
                }
            );
        }
    }
}

/// Each boundary: where it is, its name and the thrashing zone of a cliff.
fn boundaries_list(s: &mut String, boundaries: &[Boundary]) {
    if !boundaries.is_empty() {
        let _ = writeln!(s, "\nboundaries:");
    }
    for b in boundaries {
        let _ = writeln!(
            s,
            "  region {} → {}: {} {} ({:.0} → {:.0} MB/s{})",
            b.below,
            b.above,
            b.label,
            short_bytes(b.unique_bytes),
            b.upper_mb_per_s,
            b.lower_mb_per_s,
            if b.cliff {
                format!(
                    "; thrashing between {} and {}",
                    short_bytes(b.transition[0]),
                    short_bytes(b.transition[1])
                )
            } else {
                String::new()
            }
        );
    }
}

/// Each region's curves, point by point, and the curves measured again at
/// another value of a second parameter.
fn curves_list(s: &mut String, regions: &[Region]) {
    if regions.iter().any(|r| !r.curves.is_empty()) {
        let _ = writeln!(s, "\ncurves (MB/s, ± the 95 % confidence interval):");
    }
    let points = |c: &Curve| -> String {
        let pts: Vec<String> = c
            .points
            .iter()
            .map(|p| {
                format!(
                    "{} {:.1} ({}{})",
                    c.param.show(c.param.get(&p.workload)),
                    p.mb_per_s,
                    pct(p.rel_half_width),
                    if p.converged { "" } else { ", cap" }
                )
            })
            .collect();
        pts.join(" | ")
    };
    for r in regions {
        for c in &r.curves {
            let _ = writeln!(
                s,
                "  region {} {:<10} {}",
                r.number,
                c.param.name(),
                points(c)
            );
        }
        for c in &r.cross {
            let _ = writeln!(
                s,
                "  region {} {:<10} at {} {}: {}",
                r.number,
                c.curve.param.name(),
                c.across.name(),
                c.across.show(c.at),
                points(&c.curve)
            );
        }
    }
}

/// How many points, how long, how precise, how many hit the time cap.
fn precision_line(s: &mut String, f: &Figures) {
    let _ = writeln!(
        s,
        "\nprecision: {} points measured ({:.0} s of measurement, {:.0} s in all); median {}; {} stopped at the time cap{}",
        f.points,
        f.measured_s,
        f.total_s,
        pct(f.median_rel_half_width),
        f.points_at_time_cap,
        match f.worst_at_time_cap {
            Some(w) => format!(" (worst {})", pct(w)),
            None => String::new(),
        }
    );
}
