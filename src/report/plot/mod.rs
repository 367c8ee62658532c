//! The graphs, as SVG through plotters' SVG backend (text is left to the
//! viewer, no fonts needed). Each module draws one kind of graph from plain
//! data of its own, so that the report knows nothing of the suites that
//! measured it: [`curve`] the throughput-versus-response-time curve,
//! [`workload`] the self-scaling benchmark's curves, sweep and scatter,
//! [`heatmap`] IOzone's grid of figures, [`spectrum`] IOBENCH's run
//! profile and results, [`latency`] latency percentile curves and
//! [`timeline`] throughput over time (both for `iogauge report`).

pub mod curve;
pub mod heatmap;
pub mod latency;
pub mod spectrum;
pub mod timeline;
pub mod workload;

use plotters::chart::SeriesLabelStyle;
use plotters::prelude::*;

/// The colours the graphs share (plotters' own `BLUE`, `RED` … are the
/// pure ones): points and their lines, what broke the constraint, fits and
/// the best point, references.
pub const BLUE_: RGBColor = RGBColor(31, 91, 170);
pub const RED_: RGBColor = RGBColor(200, 40, 30);
pub const GREEN_: RGBColor = RGBColor(20, 130, 60);
pub const GREY_: RGBColor = RGBColor(120, 120, 120);

/// A chart's legend at `at`, boxed: a faint border on a nearly opaque
/// white background. The caller may set more (the font) before drawing it.
pub fn boxed_legend<'a, 'b, DB, X, Y>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    at: SeriesLabelPosition,
) -> SeriesLabelStyle<'a, 'b, DB, Cartesian2d<X, Y>>
where
    DB: DrawingBackend + 'a,
    X: Ranged,
    Y: Ranged,
{
    let mut style = chart.configure_series_labels();
    style
        .position(at)
        .border_style(BLACK.mix(0.3))
        .background_style(WHITE.mix(0.9));
    style
}
