//! The self-scaling benchmark's graphs (Chen & Patterson): throughput
//! against one parameter of the five-parameter workload in the style of
//! their Fig. 17, the uniqueBytes sweep with its regions, and the
//! predicted-against-measured scatter of Fig. 20.
//!
//! Sizes are drawn on a log2 axis (plotted as log2 of the value, labelled
//! with the value), fractions and process counts on a linear one. Error
//! bars are the 95 % confidence intervals of the measurements.

use super::{BLUE_, GREY_, boxed_legend};
use crate::units::short_bytes;
use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

const W: u32 = 720;
const H: u32 = 460;

/// A graph's chart: both axes linear in what is drawn (logs taken before).
type Chart<'a> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// How a parameter's values are drawn along x.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Sizes in bytes: log2, labelled with the size (`16 KiB`).
    Bytes,
    /// Fractions of 0 … 1: linear, labelled with two decimals.
    Fraction,
    /// Counts (processes): linear, labelled whole.
    Count,
}

/// One measured point: x (the parameter's value), the throughput, and the
/// relative half-width of its 95 % confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mark {
    pub x: f64,
    pub mb_per_s: f64,
    pub rel_half_width: f64,
}

/// The uniqueBytes sweep as drawn: x is uniqueBytes, in bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sweep {
    pub title: String,
    pub points: Vec<Mark>,
    /// The sweep again at another value of a second parameter: its label
    /// (`readFrac 1`) and its (uniqueBytes, MB/s) points.
    pub again: Vec<(String, Vec<(f64, f64)>)>,
    /// Each boundary: its uniqueBytes and label.
    pub boundaries: Vec<(f64, String)>,
    /// Each region's focal point: its uniqueBytes and MB/s.
    pub focal: Vec<(f64, f64)>,
}

/// A workload both measured and predicted (MB/s), and whether it lies in a
/// thrashing zone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Predicted {
    pub measured: f64,
    pub predicted: f64,
    pub in_transition: bool,
}

fn e<E: std::fmt::Debug>(x: E) -> anyhow::Error {
    anyhow!("cannot draw the graph: {x:?}")
}

/// The chart of a graph on `root`: its title in `title_pt`, the margins
/// and label areas every graph has.
fn chart<'a>(
    root: &DrawingArea<SVGBackend<'a>, Shift>,
    title: &str,
    title_pt: u32,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
) -> Result<Chart<'a>> {
    ChartBuilder::on(root)
        .caption(title, ("sans-serif", title_pt))
        .margin(14)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(x, y)
        .map_err(e)
}

/// The axes of a graph: their names and how their ticks are labelled, no
/// light grid lines.
fn axes(
    chart: &mut Chart<'_>,
    x_desc: &str,
    y_desc: &str,
    x_label: &dyn Fn(&f64) -> String,
    y_label: &dyn Fn(&f64) -> String,
) -> Result<()> {
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(x_label)
        .y_label_formatter(y_label)
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)
}

/// The legend of every graph, boxed, at `at`.
fn legend(chart: &mut Chart<'_>, at: SeriesLabelPosition) -> Result<()> {
    boxed_legend(chart, at).draw().map_err(e)
}

/// A thin dashed line from `a` to `b`: a boundary or a baseline.
fn dashed(chart: &mut Chart<'_>, a: (f64, f64), b: (f64, f64), colour: RGBColor) -> Result<()> {
    chart
        .draw_series(DashedLineSeries::new(
            vec![a, b],
            6,
            4,
            colour.stroke_width(1),
        ))
        .map_err(e)?;
    Ok(())
}

/// The x coordinate a value is drawn at.
fn xc(s: Scale, v: f64) -> f64 {
    match s {
        Scale::Bytes => v.max(1.0).log2(),
        _ => v,
    }
}

fn x_label(s: Scale, x: f64) -> String {
    match s {
        Scale::Bytes => short_bytes(2f64.powf(x).round() as u64),
        Scale::Count => format!("{x:.0}"),
        Scale::Fraction => format!("{x:.2}"),
    }
}

fn y_label(y: f64) -> String {
    if y >= 100.0 || y == 0.0 {
        format!("{y:.0}")
    } else if y >= 1.0 {
        format!("{y:.1}")
    } else {
        format!("{y:.3}")
    }
}

/// The x range of a curve, with a margin.
fn x_range(s: Scale, xs: &[f64]) -> (f64, f64) {
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let pad = match s {
        Scale::Fraction => 0.05,
        _ => 0.3,
    };
    let (lo, hi) = if hi - lo < 1e-9 {
        (lo - 1.0, hi + 1.0)
    } else {
        (lo, hi)
    };
    (lo - pad, hi + pad)
}

/// One curve: throughput against a parameter (named `name`, drawn on
/// `scale`), the point at the focal value `focal` marked.
pub fn curve_svg(
    path: &Path,
    title: &str,
    name: &str,
    scale: Scale,
    points: &[Mark],
    focal: f64,
) -> Result<()> {
    let pts: Vec<(f64, f64, f64)> = points
        .iter()
        .map(|q| {
            (
                xc(scale, q.x),
                q.mb_per_s,
                q.mb_per_s * q.rel_half_width.min(1.0),
            )
        })
        .collect();
    let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
    let (x0, x1) = x_range(scale, &xs);
    let ymax = pts.iter().map(|p| p.1 + p.2).fold(0.0, f64::max).max(1e-6) * 1.12;
    let root = SVGBackend::new(path, (W, H)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let mut chart = chart(&root, title, 17, x0..x1, 0.0..ymax)?;
    axes(
        &mut chart,
        name,
        "MB/s (reads + writes)",
        &|x| x_label(scale, *x),
        &|y| y_label(*y),
    )?;
    chart
        .draw_series(LineSeries::new(
            pts.iter().map(|p| (p.0, p.1)),
            BLUE_.stroke_width(2),
        ))
        .map_err(e)?;
    chart
        .draw_series(
            pts.iter().map(|p| {
                ErrorBar::new_vertical(p.0, (p.1 - p.2).max(0.0), p.1, p.1 + p.2, BLUE_, 6)
            }),
        )
        .map_err(e)?;
    chart
        .draw_series(
            pts.iter()
                .map(|p| Circle::new((p.0, p.1), 4, BLUE_.filled())),
        )
        .map_err(e)?;
    let fx = xc(scale, focal);
    if let Some(fp) = pts.iter().find(|p| (p.0 - fx).abs() < 1e-9) {
        chart
            .draw_series(std::iter::once(Circle::new(
                (fp.0, fp.1),
                7,
                RED.stroke_width(2),
            )))
            .map_err(e)?
            .label("focal point")
            .legend(|(x, y)| Circle::new((x + 8, y), 5, RED.stroke_width(2)));
        legend(&mut chart, SeriesLabelPosition::LowerRight)?;
    }
    root.present().map_err(e)?;
    Ok(())
}

/// The uniqueBytes sweep on a log scale (it spans caches and devices):
/// boundaries as dashed lines, focal points in red, the sweep again at
/// other values as thin lines labelled at their right end.
pub fn sweep_svg(path: &Path, sweep: &Sweep) -> Result<()> {
    let pts: Vec<(f64, f64, f64)> = sweep
        .points
        .iter()
        .map(|q| (q.x.log2(), q.mb_per_s.max(1e-6), q.rel_half_width.min(1.0)))
        .collect();
    let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
    let (x0, x1) = x_range(Scale::Bytes, &xs);
    let all_y = pts.iter().map(|p| p.1).chain(
        sweep
            .again
            .iter()
            .flat_map(|(_, line)| line.iter().map(|q| q.1.max(1e-6))),
    );
    let ymin = all_y.clone().fold(f64::INFINITY, f64::min);
    let ymax = all_y.fold(0.0, f64::max);
    let (ly0, ly1) = if ymin.is_finite() && ymax > 0.0 {
        (ymin.log10() - 0.15, ymax.log10() + 0.15)
    } else {
        (0.0, 1.0)
    };
    let root = SVGBackend::new(path, (W, H)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let mut chart = chart(&root, &sweep.title, 16, x0..x1, ly0..ly1)?;
    axes(
        &mut chart,
        "uniqueBytes",
        "MB/s (log scale)",
        &|x| x_label(Scale::Bytes, *x),
        &|y| y_label(10f64.powf(*y)),
    )?;
    chart
        .draw_series(LineSeries::new(
            pts.iter().map(|p| (p.0, p.1.log10())),
            BLUE_.stroke_width(2),
        ))
        .map_err(e)?;
    chart
        .draw_series(pts.iter().map(|p| {
            let (lo, hi) = (
                (p.1 * (1.0 - p.2)).max(1e-9).log10(),
                (p.1 * (1.0 + p.2)).log10(),
            );
            ErrorBar::new_vertical(p.0, lo, p.1.log10(), hi, BLUE_, 6)
        }))
        .map_err(e)?;
    chart
        .draw_series(
            pts.iter()
                .map(|p| Circle::new((p.0, p.1.log10()), 4, BLUE_.filled())),
        )
        .map_err(e)?;
    sweep_again(&mut chart, &sweep.again, (ly0, ly1))?;
    sweep_boundaries(&mut chart, &sweep.boundaries, (x0, x1), (ly0, ly1))?;
    let focal: Vec<(f64, f64)> = sweep
        .focal
        .iter()
        .map(|&(u, mb)| (u.log2(), mb.max(1e-6).log10()))
        .collect();
    if !focal.is_empty() {
        chart
            .draw_series(
                focal
                    .iter()
                    .map(|&(x, y)| TriangleMarker::new((x, y), 7, RED.filled())),
            )
            .map_err(e)?
            .label("focal point of a region (its own focal values)")
            .legend(|(x, y)| TriangleMarker::new((x + 8, y), 5, RED.filled()));
        legend(&mut chart, SeriesLabelPosition::LowerLeft)?;
    }
    root.present().map_err(e)?;
    Ok(())
}

/// The sweep again with only writers, only readers, a process per CPU and
/// large requests (`again`), as thin lines labelled at their right end
/// (kept inside `ly`, the y range).
fn sweep_again(
    chart: &mut Chart<'_>,
    again: &[(String, Vec<(f64, f64)>)],
    (ly0, ly1): (f64, f64),
) -> Result<()> {
    for ((name, points), colour) in again.iter().zip([
        RGBColor(200, 90, 20),
        RGBColor(40, 150, 60),
        RGBColor(130, 60, 170),
        RGBColor(20, 140, 160),
    ]) {
        let line: Vec<(f64, f64)> = points
            .iter()
            .map(|&(u, mb)| (u.log2(), mb.max(1e-6).log10()))
            .collect();
        chart
            .draw_series(LineSeries::new(line.clone(), colour.stroke_width(1)))
            .map_err(e)?;
        if let Some(&(x, y)) = line.last() {
            let style = TextStyle::from(("sans-serif", 11).into_font())
                .color(&colour)
                .pos(Pos::new(HPos::Right, VPos::Bottom));
            chart
                .draw_series(std::iter::once(Text::new(
                    name.clone(),
                    (x, y.clamp(ly0, ly1)),
                    style,
                )))
                .map_err(e)?;
        }
    }
    Ok(())
}

/// The boundaries (uniqueBytes, label) as dashed vertical lines, each
/// labelled beside it on the side with room (`x`, `ly`: the ranges).
fn sweep_boundaries(
    chart: &mut Chart<'_>,
    boundaries: &[(f64, String)],
    (x0, x1): (f64, f64),
    (ly0, ly1): (f64, f64),
) -> Result<()> {
    for (k, (u, label)) in boundaries.iter().enumerate() {
        let x = u.log2();
        dashed(chart, (x, ly0), (x, ly1), GREY_)?;
        let right_half = x > (x0 + x1) / 2.0;
        let h = if right_half { HPos::Right } else { HPos::Left };
        let style = TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(h, VPos::Top));
        let dx = 0.01 * (x1 - x0) * if right_half { -1.0 } else { 1.0 };
        chart
            .draw_series(std::iter::once(Text::new(
                label.clone(),
                (x + dx, ly1 - (0.02 + 0.05 * k as f64) * (ly1 - ly0)),
                style,
            )))
            .map_err(e)?;
    }
    Ok(())
}

/// Predicted against measured, log–log, with the line of perfect
/// prediction and the single-number benchmarks (`baselines`: name, MB/s)
/// as horizontal lines.
pub fn scatter_svg(
    path: &Path,
    title: &str,
    cases: &[Predicted],
    baselines: &[(String, f64)],
) -> Result<()> {
    let pts: Vec<(f64, f64, bool)> = cases
        .iter()
        .filter(|c| c.measured > 0.0 && c.predicted > 0.0)
        .map(|c| (c.measured.log10(), c.predicted.log10(), c.in_transition))
        .collect();
    let mut all: Vec<f64> = pts.iter().flat_map(|p| [p.0, p.1]).collect();
    all.extend(baselines.iter().filter(|b| b.1 > 0.0).map(|b| b.1.log10()));
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() {
        (lo - 0.1, hi + 0.1)
    } else {
        (0.0, 1.0)
    };
    let root = SVGBackend::new(path, (W, W)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let mut chart = chart(&root, title, 17, lo..hi, lo..hi)?;
    axes(
        &mut chart,
        "measured MB/s (log scale)",
        "predicted MB/s (log scale)",
        &|x| y_label(10f64.powf(*x)),
        &|y| y_label(10f64.powf(*y)),
    )?;
    chart
        .draw_series(LineSeries::new(
            vec![(lo, lo), (hi, hi)],
            BLACK.stroke_width(1),
        ))
        .map_err(e)?
        .label("perfect prediction")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK));
    chart
        .draw_series(
            pts.iter()
                .filter(|p| !p.2)
                .map(|p| Circle::new((p.0, p.1), 4, BLUE_.filled())),
        )
        .map_err(e)?
        .label("workload")
        .legend(|(x, y)| Circle::new((x + 8, y), 4, BLUE_.filled()));
    if pts.iter().any(|p| p.2) {
        chart
            .draw_series(
                pts.iter()
                    .filter(|p| p.2)
                    .map(|p| Cross::new((p.0, p.1), 5, RED.stroke_width(2))),
            )
            .map_err(e)?
            .label("workload in a thrashing zone")
            .legend(|(x, y)| Cross::new((x + 8, y), 4, RED.stroke_width(2)));
    }
    let grey = RGBColor(110, 110, 110);
    for (name, mb) in baselines.iter().filter(|b| b.1 > 0.0) {
        let y = mb.log10();
        dashed(&mut chart, (lo, y), (hi, y), grey)?;
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{name}: {} MB/s", y_label(*mb)),
                (lo + 0.02 * (hi - lo), y + 0.01 * (hi - lo)),
                ("sans-serif", 12),
            )))
            .map_err(e)?;
    }
    legend(&mut chart, SeriesLabelPosition::LowerRight)?;
    root.present().map_err(e)?;
    Ok(())
}
