//! The graphs, as SVG (plotters' SVG backend: text is left to the viewer,
//! no fonts needed): one per parameter per region in the style of Chen &
//! Patterson's Fig. 17, the uniqueBytes sweep with its regions, and the
//! predicted-against-measured scatter of Fig. 20.
//!
//! Sizes are drawn on a log2 axis (plotted as log2 of the value, labelled
//! with the value), fractions and process counts on a linear one. Error
//! bars are the 95 % confidence intervals of the measurements.

use super::model::{Model, Param, Point, Region};
use super::validate::Case;
use anyhow::{Result, anyhow};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

const W: u32 = 720;
const H: u32 = 460;

fn e<E: std::fmt::Debug>(x: E) -> anyhow::Error {
    anyhow!("cannot draw the graph: {x:?}")
}

/// The legend of every graph, boxed, at `at`.
fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    at: SeriesLabelPosition,
) -> Result<()> {
    chart
        .configure_series_labels()
        .position(at)
        .border_style(BLACK.mix(0.3))
        .background_style(WHITE.mix(0.9))
        .draw()
        .map_err(e)
}

/// The x coordinate a value is drawn at.
fn xc(p: Param, v: f64) -> f64 {
    match p {
        Param::UniqueBytes | Param::SizeMean => v.max(1.0).log2(),
        _ => v,
    }
}

fn x_label(p: Param, x: f64) -> String {
    match p {
        Param::UniqueBytes | Param::SizeMean => p.show(2f64.powf(x)),
        Param::ProcessNum => format!("{x:.0}"),
        _ => format!("{x:.2}"),
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
fn x_range(p: Param, xs: &[f64]) -> (f64, f64) {
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let pad = match p {
        Param::ReadFrac | Param::SeqFrac => 0.05,
        Param::ProcessNum => 0.3,
        _ => 0.3,
    };
    let (lo, hi) = if hi - lo < 1e-9 {
        (lo - 1.0, hi + 1.0)
    } else {
        (lo, hi)
    };
    (lo - pad, hi + pad)
}

/// One curve: throughput against `param`, the focal value marked.
pub fn curve_svg(
    path: &Path,
    title: &str,
    param: Param,
    points: &[Point],
    focal: f64,
) -> Result<()> {
    let pts: Vec<(f64, f64, f64)> = points
        .iter()
        .map(|q| {
            (
                xc(param, param.get(&q.workload)),
                q.mb_per_s,
                q.mb_per_s * q.rel_half_width.min(1.0),
            )
        })
        .collect();
    let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
    let (x0, x1) = x_range(param, &xs);
    let ymax = pts.iter().map(|p| p.1 + p.2).fold(0.0, f64::max).max(1e-6) * 1.12;
    let root = SVGBackend::new(path, (W, H)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 17))
        .margin(14)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1, 0.0..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(param.name())
        .y_desc("MB/s (reads + writes)")
        .x_label_formatter(&|x| x_label(param, *x))
        .y_label_formatter(&|y| y_label(*y))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;
    const BLUE_: RGBColor = RGBColor(31, 91, 170);
    let blue = BLUE_;
    chart
        .draw_series(LineSeries::new(
            pts.iter().map(|p| (p.0, p.1)),
            blue.stroke_width(2),
        ))
        .map_err(e)?;
    chart
        .draw_series(
            pts.iter().map(|p| {
                ErrorBar::new_vertical(p.0, (p.1 - p.2).max(0.0), p.1, p.1 + p.2, blue, 6)
            }),
        )
        .map_err(e)?;
    chart
        .draw_series(
            pts.iter()
                .map(|p| Circle::new((p.0, p.1), 4, blue.filled())),
        )
        .map_err(e)?;
    let fx = xc(param, focal);
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

/// The uniqueBytes sweep: boundaries as dashed lines, focal points in red.
pub fn sweep_svg(path: &Path, model: &Model) -> Result<()> {
    let pts: Vec<(f64, f64, f64)> = model
        .sweep
        .points
        .iter()
        .map(|q| {
            (
                (q.workload.unique_bytes as f64).log2(),
                q.mb_per_s.max(1e-6),
                q.rel_half_width.min(1.0),
            )
        })
        .collect();
    let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
    let (x0, x1) = x_range(Param::UniqueBytes, &xs);
    // log y: the sweep spans caches and devices
    let all_y = pts.iter().map(|p| p.1).chain(
        model
            .sweep_cross
            .iter()
            .flat_map(|c| c.curve.points.iter().map(|q| q.mb_per_s.max(1e-6))),
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
    let f = &model.sweep.fixed;
    let title = format!(
        "uniqueBytes (sizeMean {}, readFrac {}, seqFrac {}, processNum {})",
        Param::SizeMean.show(f.size_mean as f64),
        f.read_frac,
        f.seq_frac,
        f.process_num
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(14)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1, ly0..ly1)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("uniqueBytes")
        .y_desc("MB/s (log scale)")
        .x_label_formatter(&|x| x_label(Param::UniqueBytes, *x))
        .y_label_formatter(&|y| y_label(10f64.powf(*y)))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;
    const BLUE_: RGBColor = RGBColor(31, 91, 170);
    let blue = BLUE_;
    chart
        .draw_series(LineSeries::new(
            pts.iter().map(|p| (p.0, p.1.log10())),
            blue.stroke_width(2),
        ))
        .map_err(e)?;
    chart
        .draw_series(pts.iter().map(|p| {
            let (lo, hi) = (
                (p.1 * (1.0 - p.2)).max(1e-9).log10(),
                (p.1 * (1.0 + p.2)).log10(),
            );
            ErrorBar::new_vertical(p.0, lo, p.1.log10(), hi, blue, 6)
        }))
        .map_err(e)?;
    chart
        .draw_series(
            pts.iter()
                .map(|p| Circle::new((p.0, p.1.log10()), 4, blue.filled())),
        )
        .map_err(e)?;
    // the sweep again with only writers, only readers, a process per CPU
    // and large requests, as thin lines labelled at their right end
    for (c, colour) in model.sweep_cross.iter().zip([
        RGBColor(200, 90, 20),
        RGBColor(40, 150, 60),
        RGBColor(130, 60, 170),
        RGBColor(20, 140, 160),
    ]) {
        let line: Vec<(f64, f64)> = c
            .curve
            .points
            .iter()
            .map(|q| {
                (
                    (q.workload.unique_bytes as f64).log2(),
                    q.mb_per_s.max(1e-6).log10(),
                )
            })
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
                    format!("{} {}", c.across.name(), c.across.show(c.at)),
                    (x, y.clamp(ly0, ly1)),
                    style,
                )))
                .map_err(e)?;
        }
    }
    let grey = RGBColor(120, 120, 120);
    for (k, b) in model.boundaries.iter().enumerate() {
        let x = (b.unique_bytes as f64).log2();
        chart
            .draw_series(DashedLineSeries::new(
                vec![(x, ly0), (x, ly1)],
                6,
                4,
                grey.stroke_width(1),
            ))
            .map_err(e)?;
        // the label beside the line, on the side with room
        let right_half = x > (x0 + x1) / 2.0;
        let h = if right_half { HPos::Right } else { HPos::Left };
        let style = TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(h, VPos::Top));
        let dx = 0.01 * (x1 - x0) * if right_half { -1.0 } else { 1.0 };
        chart
            .draw_series(std::iter::once(Text::new(
                format!(
                    "{} {}",
                    b.label,
                    Param::UniqueBytes.show(b.unique_bytes as f64)
                ),
                (x + dx, ly1 - (0.02 + 0.05 * k as f64) * (ly1 - ly0)),
                style,
            )))
            .map_err(e)?;
    }
    let focal: Vec<(f64, f64)> = model
        .regions
        .iter()
        .filter_map(|r| {
            let fp = r.focal_point.as_ref()?;
            Some((
                (r.focal.unique_bytes as f64).log2(),
                fp.mb_per_s.max(1e-6).log10(),
            ))
        })
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

/// Predicted against measured, log–log, with the line of perfect
/// prediction and the single-number benchmarks as horizontal lines.
pub fn scatter_svg(
    path: &Path,
    title: &str,
    cases: &[Case],
    baselines: &[(String, f64)],
) -> Result<()> {
    let pts: Vec<(f64, f64, bool)> = cases
        .iter()
        .filter(|c| c.measured.mb_per_s > 0.0 && c.predicted_mb_per_s > 0.0)
        .map(|c| {
            (
                c.measured.mb_per_s.log10(),
                c.predicted_mb_per_s.log10(),
                c.in_transition,
            )
        })
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
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 17))
        .margin(14)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(lo..hi, lo..hi)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("measured MB/s (log scale)")
        .y_desc("predicted MB/s (log scale)")
        .x_label_formatter(&|x| y_label(10f64.powf(*x)))
        .y_label_formatter(&|y| y_label(10f64.powf(*y)))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(LineSeries::new(
            vec![(lo, lo), (hi, hi)],
            BLACK.stroke_width(1),
        ))
        .map_err(e)?
        .label("perfect prediction")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK));
    const BLUE_: RGBColor = RGBColor(31, 91, 170);
    let blue = BLUE_;
    chart
        .draw_series(
            pts.iter()
                .filter(|p| !p.2)
                .map(|p| Circle::new((p.0, p.1), 4, blue.filled())),
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
        chart
            .draw_series(DashedLineSeries::new(
                vec![(lo, y), (hi, y)],
                6,
                4,
                grey.stroke_width(1),
            ))
            .map_err(e)?;
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

/// The file name of a region's graph of `p`: `region-2-size_mean.svg`.
pub fn curve_file(r: &Region, p: Param) -> String {
    format!("region-{}-{}.svg", r.number, p.key())
}

/// Every graph of the model into `dir`; returns the file names.
pub fn model_graphs(dir: &Path, model: &Model) -> Result<Vec<String>> {
    let mut files = Vec::new();
    if !model.sweep.points.is_empty() {
        sweep_svg(&dir.join("unique_bytes.svg"), model)?;
        files.push("unique_bytes.svg".to_string());
    }
    for r in &model.regions {
        for c in &r.curves {
            if c.points.is_empty() {
                continue;
            }
            let name = curve_file(r, c.param);
            let f = &r.focal;
            let others: Vec<String> = Param::ALL
                .iter()
                .filter(|&&p| p != c.param)
                .map(|&p| format!("{} {}", p.name(), p.show(p.get(f))))
                .collect();
            let title = format!("region {}: {}", r.number, others.join(", "));
            curve_svg(&dir.join(&name), &title, c.param, &c.points, c.param.get(f))?;
            files.push(name);
        }
    }
    Ok(files)
}
