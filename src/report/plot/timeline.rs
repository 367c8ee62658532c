//! Throughput over time, as SVG: ops/s on top, MB/s below, one step per
//! interval of the run's time series (a dip or a cliff shows as a step,
//! not smoothed away).
//!
//! ```text
//!  ops/s │▔▔▔▔▔▔▔▔▔▔▔▔▔▔▁▁▁▁▁▁▁▁▁▁
//!        └────────────────────────── s
//!  MB/s  │▔▔▔▔▔▔▔▔▔▔▔▔▔▔▁▁▁▁▁▁▁▁▁▁
//!        └────────────────────────── s
//! ```
//!
//! The caller gives each interval's rate already divided by the time the
//! interval covered (the last one is usually partial). A panel whose rates
//! are all zero (MB/s of a metadata benchmark) is left out.

use super::{BLUE_, GREEN_};
use anyhow::{Result, anyhow, bail};
use plotters::coord::Shift;
use plotters::prelude::*;

const W: u32 = 760;
const PANEL_H: u32 = 220;

/// One interval: its start and end (seconds into the run), ops/s and MB/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub from_s: f64,
    pub to_s: f64,
    pub ops_per_s: f64,
    pub mb_per_s: f64,
}

fn e<E: std::fmt::Debug>(x: E) -> anyhow::Error {
    anyhow!("cannot draw the throughput over time: {x:?}")
}

/// The steps as an SVG document titled `title`; an error when there is no
/// interval or a figure is not finite.
pub fn svg(steps: &[Step], title: &str) -> Result<String> {
    if steps.is_empty() {
        bail!("no interval to draw");
    }
    if steps.iter().any(|s| {
        ![s.from_s, s.to_s, s.ops_per_s, s.mb_per_s]
            .iter()
            .all(|v| v.is_finite() && *v >= 0.0)
    }) {
        bail!("an interval's figures are not finite");
    }
    let ops: Vec<(f64, f64, f64)> = steps
        .iter()
        .map(|s| (s.from_s, s.to_s, s.ops_per_s))
        .collect();
    let mbs: Vec<(f64, f64, f64)> = steps
        .iter()
        .map(|s| (s.from_s, s.to_s, s.mb_per_s))
        .collect();
    // each panel: its name, its (from, to, rate) steps, its colour
    type Panel<'a> = (&'a str, Vec<(f64, f64, f64)>, RGBColor);
    let mut panels: Vec<Panel> = Vec::new();
    for (name, v, c) in [("ops/s", ops, BLUE_), ("MB/s", mbs, GREEN_)] {
        if v.iter().any(|q| q.2 > 0.0) {
            panels.push((name, v, c));
        }
    }
    if panels.is_empty() {
        panels.push((
            "ops/s",
            steps.iter().map(|s| (s.from_s, s.to_s, 0.0)).collect(),
            BLUE_,
        ));
    }
    let end = steps.iter().map(|s| s.to_s).fold(0.0, f64::max).max(1e-9);
    let h = 30 + PANEL_H * panels.len() as u32;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (W, h)).into_drawing_area();
        root.fill(&WHITE).map_err(e)?;
        let root = root.titled(title, ("sans-serif", 16)).map_err(e)?;
        let areas = root.split_evenly((panels.len(), 1));
        for (area, (name, v, c)) in areas.iter().zip(&panels) {
            panel(area, name, v, *c, end)?;
        }
        root.present().map_err(e)?;
    }
    Ok(out)
}

fn panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    name: &str,
    steps: &[(f64, f64, f64)],
    c: RGBColor,
    end: f64,
) -> Result<()> {
    let top = steps.iter().map(|q| q.2).fold(0.0, f64::max);
    let y1 = if top > 0.0 { top * 1.15 } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..end, 0.0..y1)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc(name)
        .y_label_formatter(&|y| short(*y))
        .x_label_formatter(&|x| short(*x))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .draw()
        .map_err(e)?;
    // one path of steps: flat over each interval, vertical between them
    let path: Vec<(f64, f64)> = steps
        .iter()
        .flat_map(|&(a, b, v)| [(a, v), (b, v)])
        .collect();
    let mut area = path.clone();
    area.push((path.last().map_or(0.0, |p| p.0), 0.0));
    area.push((path.first().map_or(0.0, |p| p.0), 0.0));
    chart
        .draw_series(std::iter::once(Polygon::new(area, c.mix(0.15).filled())))
        .map_err(e)?;
    chart
        .draw_series(LineSeries::new(path, c.stroke_width(2)))
        .map_err(e)?;
    Ok(())
}

/// An axis figure, three significant digits at most: `1200`, `45.5`,
/// `0.25`, `1.2M`.
fn short(v: f64) -> String {
    let a = v.abs();
    let s = if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    let s = s.replace(".0M", "M");
    if s.contains('.') && !s.ends_with('M') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps() -> Vec<Step> {
        vec![
            Step {
                from_s: 0.0,
                to_s: 1.0,
                ops_per_s: 100.0,
                mb_per_s: 0.4,
            },
            Step {
                from_s: 1.0,
                to_s: 1.5,
                ops_per_s: 80.0,
                mb_per_s: 0.3,
            },
        ]
    }

    #[test]
    fn two_panels_and_none_for_zero_rates() {
        let s = svg(&steps(), "t").unwrap();
        assert!(s.contains("ops/s") && s.contains("MB/s"), "{s}");
        let mut no_bytes = steps();
        for q in &mut no_bytes {
            q.mb_per_s = 0.0;
        }
        let s = svg(&no_bytes, "t").unwrap();
        assert!(s.contains("ops/s") && !s.contains("MB/s"));
        assert!(svg(&[], "t").is_err());
        let mut bad = steps();
        bad[0].ops_per_s = f64::INFINITY;
        assert!(svg(&bad, "t").is_err());
    }

    #[test]
    fn short_figures() {
        assert_eq!(short(1_234_567.0), "1.2M");
        assert_eq!(short(45_000.0), "45k");
        assert_eq!(short(0.25), "0.25");
        assert_eq!(short(0.5), "0.5");
        assert_eq!(short(1.5), "1.5");
        assert_eq!(short(2.0), "2");
        assert_eq!(short(0.0), "0");
    }
}
