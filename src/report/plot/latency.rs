//! Latency percentile curves, as HdrHistogram's plots draw them: one line
//! per op kind, the percentile on a "nines" axis, the latency up the side.
//!
//! ```text
//!  latency (log)
//!   10 ms ┤                                   ╭─ write
//!    1 ms ┤                         ╭─────────╯
//!  100 µs ┤────────────────────────╯     ╭──── read
//!   10 µs ┤━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╯
//!         └──────┬───────┬───────┬───────┬──
//!               90%     99%    99.9%  99.99%
//! ```
//!
//! The x axis is the number of nines, −log10(1 − p/100): 0 is the
//! minimum (0 %), 1 is 90 %, 2 is 99 %, 3 is 99.9 %, so that the tail,
//! where storage latencies differ, takes as much room as the body. The
//! axis ends at the whole number of nines past the deepest percentile
//! given, where the maximum (100 %) is drawn, labelled `max`. The y
//! axis is logarithmic (latencies of one run easily span three decades),
//! labelled in ns, µs, ms or s.
//!
//! What a reader (or a test) can count: the only `<polyline` elements of
//! stroke width 2 are the lines, in the order given, each followed later by
//! its legend icon (axes and ticks are drawn 1 wide).

use super::{BLUE_, GREEN_, GREY_, RED_, boxed_legend};
use anyhow::{Result, anyhow, bail};
use plotters::prelude::*;

/// One op kind's curve: (percentile 0 … 100, latency in ns) in increasing
/// percentile.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

const W: u32 = 760;
const H: u32 = 400;

/// The colours of successive lines.
pub const PALETTE: [RGBColor; 6] = [
    BLUE_,
    RED_,
    GREEN_,
    RGBColor(200, 120, 0),
    RGBColor(120, 60, 160),
    GREY_,
];

fn e<E: std::fmt::Debug>(x: E) -> anyhow::Error {
    anyhow!("cannot draw the latency percentiles: {x:?}")
}

/// The position of percentile `p` (0 … 100) on the nines axis; 100 has no
/// finite position and is put at `cap`.
pub fn nines(p: f64, cap: f64) -> f64 {
    let rest = 1.0 - p / 100.0;
    if rest <= 0.0 {
        cap
    } else {
        (-rest.log10()).min(cap)
    }
}

/// `90%`, `99.9%` for a whole number of nines (`0%` for none).
pub fn nines_label(x: f64) -> String {
    let n = x.round() as i32;
    if n <= 0 {
        return "0%".into();
    }
    let p = 100.0 - 100.0 * 10f64.powi(-n);
    let decimals = (n - 2).max(0) as usize;
    format!("{p:.decimals$}%")
}

/// A latency in ns, in the unit that suits it, two or three significant
/// digits: `850 ns`, `1.2 µs`, `35 ms`, `2.1 s`.
pub fn duration_label(ns: f64) -> String {
    let (v, u) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    let s = if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s} {u}")
}

/// The curves as an SVG document. An error, never a panic, when there is
/// nothing to draw or a latency is not a positive finite number.
pub fn svg(lines: &[Line], title: &str) -> Result<String> {
    let lines: Vec<&Line> = lines.iter().filter(|l| !l.points.is_empty()).collect();
    if lines.is_empty() {
        bail!("no latency to draw");
    }
    if lines
        .iter()
        .flat_map(|l| &l.points)
        .any(|&(p, v)| !p.is_finite() || !(0.0..=100.0).contains(&p) || !v.is_finite() || v < 0.0)
    {
        bail!("a percentile or latency out of range");
    }
    // the deepest percentile short of 100 sets the axis; 100 % sits one
    // step further
    let deepest = lines
        .iter()
        .flat_map(|l| &l.points)
        .filter(|q| q.0 < 100.0)
        .map(|q| nines(q.0, 9.0))
        .fold(1.0, f64::max);
    let cap = (deepest.ceil()).clamp(1.0, 9.0);
    let xy = |&(p, v): &(f64, f64)| (nines(p, cap), v.max(1.0).log10());
    let ys: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(xy))
        .map(|q| q.1)
        .collect();
    let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (y0, y1) = if hi - lo < 1.0 {
        let mid = (hi + lo) / 2.0;
        (mid - 0.6, mid + 0.6)
    } else {
        (lo - 0.1, hi + 0.1)
    };
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (W, H)).into_drawing_area();
        root.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .margin_right(30)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..cap + 0.05, y0..y1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_labels((cap as usize) * 2 + 1)
            .x_label_formatter(&|x| {
                if (x - cap).abs() < 1e-6 {
                    "max".into()
                } else if (x - x.round()).abs() < 1e-6 {
                    nines_label(*x)
                } else {
                    String::new()
                }
            })
            .y_labels(8)
            .y_label_formatter(&|y| duration_label(10f64.powf(*y)))
            .x_desc("percentile")
            .y_desc("latency (log scale)")
            .light_line_style(WHITE.mix(0.0))
            .bold_line_style(BLACK.mix(0.08))
            .draw()
            .map_err(e)?;
        for (i, l) in lines.iter().enumerate() {
            let c = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(l.points.iter().map(xy), c.stroke_width(2)))
                .map_err(e)?
                .label(l.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
        }
        boxed_legend(&mut chart, SeriesLabelPosition::UpperLeft)
            .label_font(("sans-serif", 13))
            .draw()
            .map_err(e)?;
        root.present().map_err(e)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nines_put_the_tail_at_whole_numbers() {
        assert_eq!(nines(0.0, 5.0), 0.0);
        assert!((nines(90.0, 5.0) - 1.0).abs() < 1e-12);
        assert!((nines(99.9, 5.0) - 3.0).abs() < 1e-9);
        assert_eq!(nines(100.0, 5.0), 5.0);
        assert_eq!(nines(99.9999999, 4.0), 4.0);
        assert_eq!(nines_label(0.0), "0%");
        assert_eq!(nines_label(1.0), "90%");
        assert_eq!(nines_label(2.0), "99%");
        assert_eq!(nines_label(3.0), "99.9%");
        assert_eq!(nines_label(5.0), "99.999%");
    }

    #[test]
    fn durations_take_their_unit() {
        assert_eq!(duration_label(850.0), "850 ns");
        assert_eq!(duration_label(1_234.0), "1.23 µs");
        assert_eq!(duration_label(35_000_000.0), "35 ms");
        assert_eq!(duration_label(2_100_000_000.0), "2.1 s");
    }

    #[test]
    fn one_polyline_per_line_and_errors_not_panics() {
        let l = |n: &str, k: f64| Line {
            name: n.into(),
            points: vec![
                (0.0, 1e3 * k),
                (90.0, 2e3 * k),
                (99.0, 5e4 * k),
                (100.0, 1e6 * k),
            ],
        };
        let s = svg(&[l("read", 1.0), l("write", 3.0)], "t").unwrap();
        let wide = s
            .lines()
            .filter(|l| l.contains("<polyline") && l.contains("stroke-width=\"2\""))
            .count();
        assert_eq!(wide, 4, "two lines and their legend icons: {s}");
        // two nines deep: 90 % and 99 %, whose place the maximum takes
        assert!(s.contains("\n90%\n") && s.contains("\nmax\n"), "{s}");
        assert!(s.contains("\nread\n") && s.contains("\nwrite\n"), "{s}");
        assert!(svg(&[], "t").is_err());
        let bad = Line {
            name: "x".into(),
            points: vec![(0.0, f64::NAN)],
        };
        assert!(svg(&[bad], "t").is_err());
    }
}
