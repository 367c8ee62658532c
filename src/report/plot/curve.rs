//! The throughput-versus-response-time curve as SVG (plotters' SVG
//! backend: text is left to the viewer, no fonts needed).
//!
//! ```text
//!  X (tx/s)   load panel          R (ms)   main panel
//!    │      ▲                       │                  ● N=32   red: broke
//!    │    ■───■  ── USL fit X(N)    │- - - - - - - - ◎ - p90 ≤ 50 ms
//!    │  ■   ┆   ▲ predicted N*      │             ● N=16 ◎ best (ring)
//!    │■     ┆                       │  ●──●──●──●
//!    └───────────── N                └────────────────── X (tx/s)
//! ```
//!
//! The main panel (on the right) is Chen & Patterson's Fig. 2: the
//! throughput of each load point on x, its response time on y (the chosen
//! statistic of the point's mean sample: mean, p90 or p99, in µs, ms or s
//! as suits the range, on a log axis when the response times span more
//! than two decades, as open loops near saturation do). The points are
//! joined in load order, each labelled with its load (`N=4`, `200/s`),
//! with a horizontal error bar where the throughput has a confidence
//! interval. Points that broke the constraint or saturated (an open loop
//! that could not keep the offered rate) are red, the others blue. The
//! constraint, when it bounds the statistic drawn, is a dashed horizontal
//! line labelled `p90 ≤ 2 s`; the best point (the highest throughput
//! under the constraint, or the peak without one) carries a larger ring
//! and its figure.
//!
//! The load panel (on the left) draws throughput against the load: the
//! concurrency N of a closed loop or the offered rate of an open loop,
//! with vertical confidence-interval bars. A closed loop's Universal
//! Scalability Law fit, when there is one, is drawn over 1 … 1.5 × the
//! largest N measured, with σ, κ and the predicted peak N*, X* in the
//! legend and N* marked by a triangle when it falls on the graph; an open
//! loop gets the line throughput = offered rate for reference. The panel
//! is drawn when there is a fit or at least two points; a lone point gets
//! the main panel alone.
//!
//! What a reader (or a test) can count: the SVG backend writes one element
//! a line, and the only `<circle` elements are the main panel's markers —
//! exactly one `<circle … r="5" …/>` per point (filled blue, or red for a
//! point that broke the constraint or saturated) and one unfilled
//! `<circle … r="10" …/>` ring around the best point when there is one.
//! The load panel's markers are squares (`<rect`), the N* marker a
//! triangle (`<polygon`), and the legends' icons are squares, lines and a
//! triangle.

use super::{BLUE_, GREEN_, GREY_, RED_, boxed_legend};
use crate::measure::curve::{Constraint, Curve, Load, Point, Stat, UslFit};
use crate::measure::usl::Usl;
use anyhow::{Context, Result, anyhow, bail};
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// Height of the figure, and widths of its panels.
const H: u32 = 520;
const LOAD_W: u32 = 540;
const MAIN_W: u32 = 720;

/// Radius of a point's marker and of the best point's ring (the tests and
/// the module's documentation count on them).
const MARKER_R: i32 = 5;
const RING_R: i32 = 10;

fn e<E: std::fmt::Debug>(x: E) -> anyhow::Error {
    anyhow!("cannot draw the curve: {x:?}")
}

/// The curve as an SVG document: the load panel on the left (see the
/// module's documentation for when) and the throughput-versus-response-time
/// panel on the right. `unit` names the throughput (`tx/s`, `ops/s`);
/// `stat` picks the response time drawn.
///
/// An error, never a panic, for a curve that cannot be drawn: no points, a
/// throughput or response time that is negative or not finite, a best or
/// peak index past the points.
pub fn svg(curve: &Curve, title: &str, unit: &str, stat: Stat) -> Result<String> {
    check(curve, stat)?;
    let load_panel = curve.points.len() >= 2 || curve.usl.is_some();
    let width = if load_panel { LOAD_W + MAIN_W } else { MAIN_W };
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, H)).into_drawing_area();
        root.fill(&WHITE).map_err(e)?;
        let root = root.titled(title, ("sans-serif", 18)).map_err(e)?;
        if load_panel {
            let (left, right) = root.split_horizontally(LOAD_W);
            draw_load(&left, curve, unit)?;
            draw_main(&right, curve, unit, stat)?;
        } else {
            draw_main(&root, curve, unit, stat)?;
        }
        root.present().map_err(e)?;
    }
    Ok(out)
}

/// [`svg`] written to `path`.
pub fn write(path: &Path, curve: &Curve, title: &str, unit: &str, stat: Stat) -> Result<()> {
    let text = svg(curve, title, unit, stat)
        .with_context(|| format!("cannot draw the curve graph {}", path.display()))?;
    crate::report::export::write_file(path, text.as_bytes())
        .with_context(|| format!("cannot write the curve graph {}", path.display()))
}

/// What makes a curve undrawable, as an error.
fn check(curve: &Curve, stat: Stat) -> Result<()> {
    let n = curve.points.len();
    if n == 0 {
        bail!("the curve has no points to draw");
    }
    for p in &curve.points {
        let (x, r) = (p.mean.throughput, p.mean.response(stat));
        if !(x.is_finite() && x >= 0.0) {
            bail!("the point {} has a throughput of {x}", p.load.label());
        }
        if !(r.is_finite() && r >= 0.0) {
            bail!(
                "the point {} has a {} response time of {r} s",
                p.load.label(),
                stat.name()
            );
        }
        if !p.load.value().is_finite() {
            bail!("a point has a load of {}", p.load.value());
        }
    }
    for (what, i) in [("best", curve.best), ("peak", curve.peak)] {
        if let Some(i) = i.filter(|&i| i >= n) {
            bail!("the {what} point is number {i} of only {n} points");
        }
    }
    Ok(())
}

/// A figure with three significant digits or so: `1234`, `56.7`, `0.0123`.
fn num(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || !a.is_finite() {
        return if a == 0.0 { "0".into() } else { format!("{v}") };
    }
    let s = if a >= 100.0 {
        format!("{v:.0}")
    } else {
        let decimals = (2 - a.log10().floor() as i32).clamp(0, 12) as usize;
        format!("{v:.decimals$}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A model parameter: three significant digits, in scientific notation
/// when small (κ is often 1e-4).
fn param(v: f64) -> String {
    if v != 0.0 && v.abs() < 1e-3 {
        format!("{v:.2e}")
    } else {
        num(v)
    }
}

/// The unit response times are shown in, and seconds' factor to it.
fn time_unit(max_s: f64) -> (&'static str, f64) {
    if max_s >= 1.0 {
        ("s", 1.0)
    } else if max_s >= 1e-3 || max_s == 0.0 {
        ("ms", 1e3)
    } else {
        ("µs", 1e6)
    }
}

/// `p90 ≤ 2 s`, `mean ≤ 50 ms`.
fn constraint_label(stat: Stat, limit_s: f64) -> String {
    let (u, f) = time_unit(limit_s);
    format!("{} ≤ {} {u}", stat.name(), num(limit_s * f))
}

/// Whether the point is drawn red: it broke the constraint or saturated.
fn bad(p: &Point) -> bool {
    p.meets == Some(false) || p.saturated
}

fn colour(p: &Point) -> RGBColor {
    if bad(p) { RED_ } else { BLUE_ }
}

/// The legend's icon for a kind of marker: a small square (legends hold no
/// circles, so that circles count points).
fn square_icon(c: RGBColor) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x + 3, y - 4), (x + 11, y + 4)], c.filled())
}

fn line_icon(c: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
}

/// The name of the red markers in the legend, if any is red.
fn bad_label(points: &[Point]) -> Option<&'static str> {
    let broke = points.iter().any(|p| p.meets == Some(false));
    let saturated = points.iter().any(|p| p.saturated);
    match (broke, saturated) {
        (true, true) => Some("broke the constraint or saturated"),
        (true, false) => Some("broke the constraint"),
        (false, true) => Some("saturated: offered rate not kept"),
        (false, false) => None,
    }
}

fn legend<'a, DB: DrawingBackend + 'a, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    at: SeriesLabelPosition,
) -> Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    boxed_legend(chart, at)
        .label_font(("sans-serif", 12))
        .draw()
        .map_err(e)
}

/// An error bar: from, to, colour.
type Bar = ((f64, f64), (f64, f64), RGBColor);

/// The throughput's confidence interval of a point, when it has a finite
/// one (clipped at zero).
fn ci_range(p: &Point) -> Option<(f64, f64)> {
    let ci = p.throughput_ci?;
    let (lo, hi) = (ci.low(), ci.high());
    (lo.is_finite() && hi.is_finite()).then_some((lo.max(0.0), hi))
}

/// Error bars with a cap at each end, drawn as lines only (plotters' own
/// `ErrorBar` adds a circle at the mean, which would spoil the count of
/// circles).
fn error_bars<'a, DB, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    bars: &[Bar],
    vertical: bool,
) -> Result<()>
where
    DB: DrawingBackend + 'a,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    chart
        .draw_series(
            bars.iter()
                .map(|&(a, b, c)| PathElement::new(vec![a, b], c.stroke_width(1))),
        )
        .map_err(e)?;
    let cap: [(i32, i32); 2] = if vertical {
        [(-4, 0), (4, 0)]
    } else {
        [(0, -4), (0, 4)]
    };
    chart
        .draw_series(bars.iter().flat_map(|&(a, b, c)| {
            [a, b].map(|at| EmptyElement::at(at) + PathElement::new(cap, c.stroke_width(1)))
        }))
        .map_err(e)?;
    Ok(())
}

/// The highest throughput of the points, the tops of their finite
/// confidence intervals included (0 for none).
fn highest_throughput(pts: &[Point]) -> f64 {
    pts.iter()
        .map(|p| {
            let hi = p.throughput_ci.map_or(0.0, |ci| ci.high());
            p.mean.throughput.max(if hi.is_finite() { hi } else { 0.0 })
        })
        .fold(0.0, f64::max)
}

/// The indices of the points in increasing load.
fn load_order(points: &[Point]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[a].load.value().total_cmp(&points[b].load.value()));
    order
}

/// What the main panel draws, worked out before its axes are chosen.
struct Main<'c> {
    curve: &'c Curve,
    unit: &'c str,
    stat: Stat,
    constraint: Option<Constraint>,
    /// Response times in the unit shown.
    resp: Vec<f64>,
    time_unit: &'static str,
    /// Seconds to the unit shown.
    scale: f64,
    log: bool,
    x1: f64,
}

/// The main panel: response time against throughput, on a log axis when
/// the response times span more than two decades.
fn draw_main(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    curve: &Curve,
    unit: &str,
    stat: Stat,
) -> Result<()> {
    let pts = &curve.points;
    let constraint = curve
        .constraint
        .filter(|c| c.stat == stat && c.limit_s.is_finite() && c.limit_s > 0.0);
    let mut span: Vec<f64> = pts.iter().map(|p| p.mean.response(stat)).collect();
    span.extend(constraint.map(|c| c.limit_s));
    let max_s = span.iter().copied().fold(0.0, f64::max);
    let min_s = span.iter().copied().fold(f64::INFINITY, f64::min);
    let (time_unit, scale) = time_unit(max_s);
    // log when every response time is positive and they span two decades
    let log = min_s > 0.0 && max_s / min_s > 100.0;
    let x_hi = highest_throughput(pts);
    let m = Main {
        curve,
        unit,
        stat,
        constraint,
        resp: pts.iter().map(|p| p.mean.response(stat) * scale).collect(),
        time_unit,
        scale,
        log,
        x1: if x_hi > 0.0 { x_hi * 1.12 } else { 1.0 },
    };
    let (lo, hi) = (min_s * scale, max_s * scale);
    if log {
        let pad = 10f64.powf(0.15);
        let y: LogCoord<f64> = (lo / pad..hi * pad).log_scale().into();
        draw_main_in(area, y, &m)
    } else {
        let y1 = if hi > 0.0 { hi * 1.12 } else { 1.0 };
        let y: RangedCoordf64 = (0.0..y1).into();
        draw_main_in(area, y, &m)
    }
}

fn draw_main_in<Y>(area: &DrawingArea<SVGBackend<'_>, Shift>, y: Y, m: &Main) -> Result<()>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let (pts, unit, x1) = (&m.curve.points, m.unit, m.x1);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("{} response time against throughput", m.stat.name()),
            ("sans-serif", 15),
        )
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..x1, y)
        .map_err(e)?;
    let y_desc = format!(
        "{} response time ({}{})",
        m.stat.name(),
        m.time_unit,
        if m.log { ", log scale" } else { "" }
    );
    chart
        .configure_mesh()
        .x_desc(format!("throughput ({unit})"))
        .y_desc(y_desc)
        .x_label_formatter(&|x| num(*x))
        .y_label_formatter(&|y| num(*y))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;

    let xy = |i: usize| (pts[i].mean.throughput, m.resp[i]);
    let order = load_order(pts);
    chart
        .draw_series(LineSeries::new(
            order.iter().map(|&i| xy(i)),
            BLUE_.mix(0.6).stroke_width(1),
        ))
        .map_err(e)?;
    // horizontal error bars: the throughput's confidence interval
    let bars: Vec<Bar> = pts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let (lo, hi) = ci_range(p)?;
            let y = xy(i).1;
            Some(((lo, y), (hi, y), colour(p)))
        })
        .collect();
    error_bars(&mut chart, &bars, false)?;
    if let Some(c) = m.constraint {
        draw_constraint(&mut chart, c, m.scale, x1)?;
    }
    // one filled circle per point, its load beside it
    let marker = |i: usize, p: &Point| {
        EmptyElement::at(xy(i))
            + Circle::new((0, 0), MARKER_R, colour(p).filled())
            + Text::new(p.load.label(), (7, -16), ("sans-serif", 11))
    };
    chart
        .draw_series(
            pts.iter()
                .enumerate()
                .filter(|(_, p)| !bad(p))
                .map(|(i, p)| marker(i, p)),
        )
        .map_err(e)?
        .label("load point (load beside it)")
        .legend(square_icon(BLUE_));
    let red = chart
        .draw_series(
            pts.iter()
                .enumerate()
                .filter(|(_, p)| bad(p))
                .map(|(i, p)| marker(i, p)),
        )
        .map_err(e)?;
    if let Some(l) = bad_label(pts) {
        red.label(l).legend(square_icon(RED_));
    }
    if let Some(b) = m.curve.best {
        draw_best(&mut chart, m, b)?;
    }
    legend(&mut chart, SeriesLabelPosition::LowerRight)
}

/// The load panel: throughput against concurrency or offered rate.
fn draw_load(area: &DrawingArea<SVGBackend<'_>, Shift>, curve: &Curve, unit: &str) -> Result<()> {
    let pts = &curve.points;
    let closed = pts.iter().all(|p| matches!(p.load, Load::Closed(_)));
    let depth = pts.iter().all(|p| matches!(p.load, Load::Depth(_)));
    let open = pts.iter().all(|p| matches!(p.load, Load::Open(_)));
    let fit = curve.usl.as_ref().filter(|_| closed || depth);
    let law = fit.and_then(|f| f.law());
    let load_hi = pts.iter().map(|p| p.load.value()).fold(0.0, f64::max);
    let (usl_line, x1, y1) = load_axes(pts, open, law, load_hi);
    let (caption, x_desc) = if closed {
        ("throughput against concurrency", "concurrency N (workers)")
    } else if depth {
        (
            "throughput against queue depth",
            "queue depth QD (requests in flight per worker)",
        )
    } else if open {
        (
            "throughput against offered rate",
            "offered rate (requests/s)",
        )
    } else {
        ("throughput against load", "load (workers or requests/s)")
    };

    let mut chart: LoadChart<'_> = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 15))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..x1, 0.0..y1)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(format!("throughput ({unit})"))
        .x_label_formatter(&|x| num(*x))
        .y_label_formatter(&|y| num(*y))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;

    if open {
        chart
            .draw_series(DashedLineSeries::new(
                vec![(0.0, 0.0), (x1, y1)],
                8,
                5,
                GREY_.stroke_width(1),
            ))
            .map_err(e)?
            .label("throughput = offered rate")
            .legend(line_icon(GREY_));
    }
    if let (Some(f), Some(l)) = (fit, law) {
        draw_fit(&mut chart, f, l, usl_line, (x1, y1), unit)?;
    }

    let order = load_order(pts);
    chart
        .draw_series(LineSeries::new(
            order
                .iter()
                .map(|&i| (pts[i].load.value(), pts[i].mean.throughput)),
            BLUE_.mix(0.6).stroke_width(1),
        ))
        .map_err(e)?;
    let bars: Vec<Bar> = pts
        .iter()
        .filter_map(|p| {
            let (lo, hi) = ci_range(p)?;
            let x = p.load.value();
            Some(((x, lo), (x, hi), colour(p)))
        })
        .collect();
    error_bars(&mut chart, &bars, true)?;
    let square = |p: &Point| {
        EmptyElement::at((p.load.value(), p.mean.throughput))
            + Rectangle::new([(-4, -4), (4, 4)], colour(p).filled())
    };
    chart
        .draw_series(pts.iter().filter(|p| !bad(p)).map(square))
        .map_err(e)?
        .label("measured (bar: confidence interval)")
        .legend(square_icon(BLUE_));
    let red = chart
        .draw_series(pts.iter().filter(|p| bad(p)).map(square))
        .map_err(e)?;
    if let Some(l) = bad_label(pts) {
        red.label(l).legend(square_icon(RED_));
    }
    // above y = x in an open loop, under the falling fit in a closed one
    let at = if open {
        SeriesLabelPosition::UpperLeft
    } else {
        SeriesLabelPosition::LowerRight
    };
    legend(&mut chart, at)
}

/// The constraint `c` as a dashed line across the main panel (`scale`:
/// seconds to the unit shown, `x1`: the panel's right end), labelled at its
/// left end.
fn draw_constraint<'a, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, Y>>,
    c: Constraint,
    scale: f64,
    x1: f64,
) -> Result<()>
where
    Y: Ranged<ValueType = f64>,
{
    let y = c.limit_s * scale;
    let label = constraint_label(c.stat, c.limit_s);
    chart
        .draw_series(DashedLineSeries::new(
            vec![(0.0, y), (x1, y)],
            8,
            5,
            GREY_.stroke_width(2),
        ))
        .map_err(e)?
        .label(format!("constraint {label}"))
        .legend(line_icon(GREY_));
    // at the left end, where the response times are usually low
    let style = TextStyle::from(("sans-serif", 12).into_font())
        .color(&GREY_)
        .pos(Pos::new(HPos::Left, VPos::Bottom));
    chart
        .draw_series(std::iter::once(
            EmptyElement::at((0.0, y)) + Text::new(label, (6, -3), style),
        ))
        .map_err(e)?;
    Ok(())
}

/// The best point `b`: a ring around its marker and its throughput beside
/// it.
fn draw_best<'a, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, Y>>,
    m: &Main,
    b: usize,
) -> Result<()>
where
    Y: Ranged<ValueType = f64>,
{
    let (pts, unit, x1) = (&m.curve.points, m.unit, m.x1);
    let what = if m.curve.constraint.is_some() {
        "max under constraint"
    } else {
        "peak"
    };
    let text = format!("{what}: {} {unit}", num(pts[b].mean.throughput));
    // below the ring, towards the middle of the panel
    let right_half = (pts[b].mean.throughput, m.resp[b]).0 > x1 / 2.0;
    let (h, dx) = if right_half {
        (HPos::Right, -8)
    } else {
        (HPos::Left, 8)
    };
    let style = TextStyle::from(("sans-serif", 12).into_font())
        .color(&GREEN_)
        .pos(Pos::new(h, VPos::Top));
    chart
        .draw_series(std::iter::once(
            EmptyElement::at((pts[b].mean.throughput, m.resp[b]))
                + Circle::new((0, 0), RING_R, GREEN_.stroke_width(2))
                + Text::new(text, (dx, 10), style),
        ))
        .map_err(e)?;
    Ok(())
}

/// The load panel's fitted law over 1 … 1.5 × the largest load `load_hi`
/// (closed loops with a law only) and the panel's x and y ends: an open
/// loop's square (the line throughput = offered rate is its diagonal), a
/// closed loop's up to the fit's range and its highest throughput.
fn load_axes(
    pts: &[Point],
    open: bool,
    law: Option<Usl>,
    load_hi: f64,
) -> (Vec<(f64, f64)>, f64, f64) {
    let thr_hi = highest_throughput(pts);

    // the fitted law over 1 … 1.5 × the largest N
    let n_hi = (load_hi * 1.5).max(2.0);
    let usl_line: Vec<(f64, f64)> = law
        .map(|l| {
            (0..=200)
                .map(|k| 1.0 + (n_hi - 1.0) * k as f64 / 200.0)
                .map(|n| (n, l.throughput(n)))
                .filter(|p| p.1.is_finite())
                .collect()
        })
        .unwrap_or_default();
    let usl_hi = usl_line.iter().map(|p| p.1).fold(0.0, f64::max);

    let (x1, y1) = if open {
        let m = load_hi.max(thr_hi);
        let m = if m > 0.0 { m * 1.12 } else { 1.0 };
        (m, m)
    } else {
        let x1 = if law.is_some() {
            n_hi
        } else if load_hi > 0.0 {
            load_hi * 1.12
        } else {
            1.0
        };
        let y = thr_hi.max(usl_hi);
        (x1, if y > 0.0 { y * 1.12 } else { 1.0 })
    };
    (usl_line, x1, y1)
}

/// The load panel's chart.
type LoadChart<'a> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A closed loop's Universal Scalability Law fit `f` (law `l`) drawn as
/// `line`, with σ, κ and R² in the legend and the predicted peak N*, X*
/// marked when it falls inside `ends` (x, y).
fn draw_fit(
    chart: &mut LoadChart<'_>,
    f: &UslFit,
    l: Usl,
    line: Vec<(f64, f64)>,
    ends: (f64, f64),
    unit: &str,
) -> Result<()> {
    let (x1, y1) = ends;
    chart
        .draw_series(LineSeries::new(line, GREEN_.stroke_width(2)))
        .map_err(e)?
        .label(format!(
            "USL fit: σ = {}, κ = {}, R² = {}",
            param(f.sigma),
            param(f.kappa),
            num(f.r_squared)
        ))
        .legend(line_icon(GREEN_));
    let peak = f
        .peak_concurrency
        .or_else(|| l.peak_concurrency())
        .filter(|n| n.is_finite() && *n > 0.0);
    match peak {
        Some(ns) => {
            let xs = f
                .peak_throughput
                .filter(|x| x.is_finite())
                .unwrap_or_else(|| l.throughput(ns));
            let on_graph = ns <= x1 && xs.is_finite() && xs >= 0.0 && xs <= y1;
            let label = format!(
                "predicted peak: N* = {}, X* = {} {unit}{}",
                num(ns),
                num(xs),
                if on_graph { "" } else { " (off the graph)" }
            );
            if on_graph {
                chart
                    .draw_series(DashedLineSeries::new(
                        vec![(ns, 0.0), (ns, xs)],
                        4,
                        4,
                        GREEN_.stroke_width(1),
                    ))
                    .map_err(e)?;
            }
            chart
                .draw_series(on_graph.then(|| TriangleMarker::new((ns, xs), 7, GREEN_.filled())))
                .map_err(e)?
                .label(label)
                .legend(|(x, y)| TriangleMarker::new((x + 7, y), 5, GREEN_.filled()));
        }
        None => {
            chart
                .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())
                .map_err(e)?
                .label("no predicted peak (κ = 0 or σ ≥ 1)")
                .legend(line_icon(WHITE));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::curve::{Sample, UslFit};
    use crate::measure::interval::Interval;
    use crate::measure::usl::Usl;

    fn point(load: Load, throughput: f64, mean_s: f64, half_width: f64) -> Point {
        let mean = Sample {
            throughput,
            mean_s,
            p90_s: 2.0 * mean_s,
            p99_s: 4.0 * mean_s,
            io_time_fraction: 0.9,
            ..Default::default()
        };
        Point {
            load,
            reps: vec![mean.clone(); 3],
            mean,
            throughput_ci: (half_width > 0.0).then_some(Interval {
                mean: throughput,
                half_width,
                n: 3,
            }),
            meets: None,
            saturated: false,
            why: "step".into(),
        }
    }

    fn curve(points: Vec<Point>) -> Curve {
        Curve {
            points,
            constraint: None,
            peak: None,
            best: None,
            stopped: "test".into(),
            usl: None,
        }
    }

    /// The point markers of radius `r`: one `<circle` element a line.
    fn circles(svg: &str, r: i32) -> Vec<&str> {
        let attr = format!(" r=\"{r}\" ");
        svg.lines()
            .filter(|l| l.trim_start().starts_with("<circle") && l.contains(&attr))
            .collect()
    }

    /// Every tag opened is closed, in order; the document is one `<svg>`.
    fn well_formed(svg: &str) {
        assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
        let mut stack: Vec<&str> = Vec::new();
        let mut rest = svg;
        let mut tags = 0;
        while let Some(at) = rest.find('<') {
            let end = rest[at..].find('>').expect("an unclosed tag") + at;
            let tag = &rest[at + 1..end];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop(), Some(name.trim()), "mismatched </{name}>");
            } else if !tag.ends_with('/') {
                stack.push(tag.split_whitespace().next().unwrap());
            }
            tags += 1;
            rest = &rest[end + 1..];
            if stack.is_empty() {
                break;
            }
        }
        assert!(stack.is_empty(), "unclosed: {stack:?}");
        assert!(tags > 1);
        assert!(rest.trim().is_empty(), "text after </svg>: {rest}");
    }

    /// Six closed-loop points on a USL with a peak near N = 22, p90 ≤ 50
    /// ms broken by the last.
    fn closed_curve() -> Curve {
        let law = Usl::new(100.0, 0.05, 0.002).unwrap();
        let points: Vec<Point> = [1, 2, 4, 8, 16, 32]
            .iter()
            .map(|&n| {
                let x = law.throughput(n as f64);
                let mut p = point(Load::Closed(n), x, n as f64 / x, 0.03 * x);
                p.meets = Some(p.mean.p90_s <= 0.05);
                p
            })
            .collect();
        assert_eq!(points.iter().filter(|p| p.meets == Some(false)).count(), 1);
        Curve {
            points,
            constraint: Some(Constraint {
                stat: Stat::P90,
                limit_s: 0.05,
            }),
            peak: Some(4),
            best: Some(4),
            stopped: "throughput fell".into(),
            usl: Some(UslFit {
                lambda: law.lambda,
                sigma: law.sigma,
                kappa: law.kappa,
                peak_concurrency: law.peak_concurrency(),
                peak_throughput: law.peak_throughput(),
                rmse: 0.0,
                r_squared: 1.0,
                max_rel_error: 0.0,
                repetitions: 6,
                concurrencies: 6,
            }),
        }
    }

    #[test]
    fn closed_loop_curve_has_a_marker_per_point_the_constraint_and_the_best_ring() {
        let c = closed_curve();
        let svg = svg(&c, "closed loop", "tx/s", Stat::P90).unwrap();
        well_formed(&svg);
        // every circle is a point's marker or the best point's ring
        assert_eq!(svg.matches("<circle").count(), 7);
        assert_eq!(circles(&svg, MARKER_R).len(), 6);
        let red = format!("fill=\"#{:02X}{:02X}{:02X}\"", RED_.0, RED_.1, RED_.2);
        let reds: Vec<_> = circles(&svg, MARKER_R)
            .into_iter()
            .filter(|l| l.contains(&red))
            .collect();
        assert_eq!(reds.len(), 1, "the point that broke the constraint");
        let ring = circles(&svg, RING_R);
        assert_eq!(ring.len(), 1);
        assert!(ring[0].contains("fill=\"none\""), "{}", ring[0]);
        for n in [1, 2, 4, 8, 16, 32] {
            assert!(svg.contains(&format!(">\nN={n}\n<")), "N={n}");
        }
        assert!(svg.contains("p90 ≤ 50 ms"));
        assert!(svg.contains("max under constraint: 717 tx/s"));
        assert!(svg.contains("p90 response time (ms)"));
        assert!(!svg.contains("log scale"));
        // the load panel: the fit, its peak marked
        assert!(svg.contains("throughput against concurrency"));
        assert!(svg.contains("USL fit: σ = 0.05, κ = 0.002, R² = 1"));
        assert!(svg.contains("predicted peak: N* = 21.8, X* = 740 tx/s"));
        assert!(!svg.contains("off the graph"));
        assert_eq!(svg.matches("<polygon").count(), 2, "N* and its legend icon");
    }

    #[test]
    fn a_constraint_on_another_statistic_draws_no_line() {
        let c = closed_curve();
        let svg = svg(&c, "closed loop", "tx/s", Stat::Mean).unwrap();
        well_formed(&svg);
        assert_eq!(circles(&svg, MARKER_R).len(), 6);
        assert!(!svg.contains("≤"));
        assert!(svg.contains("mean response time (ms)"));
        // the best point is still the best under the constraint
        assert!(svg.contains("max under constraint"));
    }

    #[test]
    fn open_loop_curve_marks_the_saturated_point_on_a_log_axis() {
        let rates = [100.0, 200.0, 400.0, 800.0, 1600.0];
        let mut points: Vec<Point> = rates
            .iter()
            .map(|&r| point(Load::Open(r), r, 1e-3 / (1.0 - r / 1000.0), 0.0))
            .take(4)
            .collect();
        let mut sat = point(Load::Open(1600.0), 950.0, 3.0, 40.0);
        sat.saturated = true;
        points.push(sat);
        let mut c = curve(points);
        c.peak = Some(4);
        c.best = Some(4);
        let svg = svg(&c, "open loop", "ops/s", Stat::P99).unwrap();
        well_formed(&svg);
        assert_eq!(circles(&svg, MARKER_R).len(), 5);
        let red = format!("fill=\"#{:02X}{:02X}{:02X}\"", RED_.0, RED_.1, RED_.2);
        let reds = circles(&svg, MARKER_R)
            .into_iter()
            .filter(|l| l.contains(&red))
            .count();
        assert_eq!(reds, 1);
        assert_eq!(circles(&svg, RING_R).len(), 1);
        assert!(svg.contains("peak: 950 ops/s"));
        assert!(svg.contains("p99 response time (s, log scale)"));
        assert!(svg.contains("saturated: offered rate not kept"));
        assert!(svg.contains("throughput against offered rate"));
        assert!(svg.contains("throughput = offered rate"));
        for l in ["100/s", "200/s", "400/s", "800/s", "1600/s"] {
            assert!(svg.contains(&format!(">\n{l}\n<")), "{l}");
        }
        assert!(!svg.contains("USL"));
    }

    #[test]
    fn an_empty_curve_is_an_error() {
        let err = svg(&curve(vec![]), "t", "tx/s", Stat::Mean).unwrap_err();
        assert!(err.to_string().contains("no points"), "{err}");
    }

    #[test]
    fn a_single_point_gets_the_main_panel_alone() {
        let mut c = curve(vec![point(Load::Closed(1), 120.0, 0.008, 0.0)]);
        c.best = Some(0);
        let svg = svg(&c, "one", "tx/s", Stat::Mean).unwrap();
        well_formed(&svg);
        assert_eq!(circles(&svg, MARKER_R).len(), 1);
        assert_eq!(circles(&svg, RING_R).len(), 1);
        assert!(!svg.contains("throughput against concurrency"));
        assert!(svg.contains(&format!("width=\"{MAIN_W}\"")));
    }

    #[test]
    fn degenerate_curves_draw_without_panicking() {
        let same = curve(
            (1..=3)
                .map(|n| point(Load::Closed(n), 100.0 * n as f64, 0.01, 0.0))
                .collect(),
        );
        let zeros = curve(
            (1..=3)
                .map(|n| point(Load::Closed(n), 0.0, 0.0, 0.0))
                .collect(),
        );
        let mut nan_ci = point(Load::Open(5.0), 5.0, 0.002, 0.0);
        nan_ci.throughput_ci = Some(Interval {
            mean: 5.0,
            half_width: f64::NAN,
            n: 2,
        });
        let odd = curve(vec![nan_ci, point(Load::Open(0.5), 0.5, 1e-7, 0.0)]);
        // a fit with no peak, and one whose parameters make no law
        let mut flat = closed_curve();
        let u = flat.usl.as_mut().unwrap();
        u.kappa = 0.0;
        u.peak_concurrency = None;
        u.peak_throughput = None;
        let mut broken = closed_curve();
        broken.usl.as_mut().unwrap().lambda = -1.0;
        // a peak far beyond the points
        let mut far = closed_curve();
        far.usl.as_mut().unwrap().peak_concurrency = Some(1e6);
        for (c, n) in [
            (&same, 3),
            (&zeros, 3),
            (&odd, 2),
            (&flat, 6),
            (&broken, 6),
            (&far, 6),
        ] {
            for stat in [Stat::Mean, Stat::P90, Stat::P99] {
                let svg = svg(c, "degenerate", "tx/s", stat).unwrap();
                well_formed(&svg);
                assert_eq!(circles(&svg, MARKER_R).len(), n);
            }
        }
        let flat_svg = svg(&flat, "t", "tx/s", Stat::P90).unwrap();
        assert!(flat_svg.contains("no predicted peak"));
        let far_svg = svg(&far, "t", "tx/s", Stat::P90).unwrap();
        assert!(far_svg.contains("(off the graph)"));
        assert!(
            !svg(&broken, "t", "tx/s", Stat::P90)
                .unwrap()
                .contains("USL")
        );
    }

    #[test]
    fn undrawable_figures_are_errors() {
        let bad = |p: Point| svg(&curve(vec![p]), "t", "tx/s", Stat::P90).unwrap_err();
        let err = bad(point(Load::Closed(2), f64::NAN, 0.01, 0.0));
        assert!(
            err.to_string().contains("N=2 has a throughput of NaN"),
            "{err}"
        );
        let err = bad(point(Load::Open(10.0), 10.0, -1.0, 0.0));
        assert!(err.to_string().contains("p90 response time"), "{err}");
        let mut c = curve(vec![point(Load::Closed(1), 1.0, 0.01, 0.0)]);
        c.best = Some(3);
        let err = svg(&c, "t", "tx/s", Stat::Mean).unwrap_err();
        assert!(err.to_string().contains("best point"), "{err}");
    }

    #[test]
    fn write_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let ok = dir.path().join("curve.svg");
        write(&ok, &closed_curve(), "t", "tx/s", Stat::P90).unwrap();
        assert!(std::fs::read_to_string(&ok).unwrap().starts_with("<svg"));
        let missing = dir.path().join("no/such/dir/curve.svg");
        let err = write(&missing, &closed_curve(), "t", "tx/s", Stat::P90).unwrap_err();
        assert!(err.to_string().contains(&missing.display().to_string()));
        let err = write(&ok, &curve(vec![]), "t", "tx/s", Stat::P90).unwrap_err();
        assert!(err.to_string().contains("curve.svg"), "{err}");
    }

    #[test]
    fn figures_and_labels() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(1234.4), "1234");
        assert_eq!(num(56.78), "56.8");
        assert_eq!(num(2.0), "2");
        assert_eq!(num(0.012345), "0.0123");
        assert_eq!(param(0.00012), "1.20e-4");
        assert_eq!(param(0.05), "0.05");
        assert_eq!(constraint_label(Stat::P90, 2.0), "p90 ≤ 2 s");
        assert_eq!(constraint_label(Stat::Mean, 0.05), "mean ≤ 50 ms");
        assert_eq!(time_unit(0.0005), ("µs", 1e6));
    }
}
