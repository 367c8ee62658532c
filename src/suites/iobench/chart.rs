//! The spectrum chart: MB of data processed per run, as the paper's
//! Figures 3–5 plot it (one bar per run, in run order), with the runs'
//! parameters in the caption. SVG through plotters (no fonts needed).

use plotters::prelude::*;

/// One bar: the run's label (its varied parameters) and its MB.
pub struct Bar {
    pub label: String,
    pub mb: f64,
}

/// The chart as an SVG document.
pub fn spectrum_svg(title: &str, bars: &[Bar]) -> Result<String, String> {
    let mut svg = String::new();
    {
        let width = (160 + 40 * bars.len() as u32).clamp(480, 2400);
        let root = SVGBackend::with_string(&mut svg, (width, 420)).into_drawing_area();
        let err = |e: &dyn std::fmt::Display| format!("cannot draw the spectrum chart: {e}");
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let top = bars.iter().map(|b| b.mb).fold(0.0f64, f64::max).max(1e-3) * 1.1;
        // segments 1..=n, one per run (at least two: plotters needs a range)
        let n = bars.len().max(2) as u32;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d((1u32..n).into_segmented(), 0f64..top)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("run")
            .y_desc("MB of data processed")
            .draw()
            .map_err(|e| err(&e))?;
        chart
            .draw_series(bars.iter().enumerate().map(|(i, b)| {
                let x = i as u32 + 1;
                let mut r = Rectangle::new(
                    [
                        (SegmentValue::Exact(x), 0.0),
                        (SegmentValue::Exact(x + 1), b.mb),
                    ],
                    BLUE.mix(0.6).filled(),
                );
                r.set_margin(0, 0, 4, 4);
                r
            }))
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    // the runs' parameters, one <title> per bar would need element ids; a
    // plain list after the drawing keeps the file self-describing
    let mut legend = String::from("<!-- runs:\n");
    for (i, b) in bars.iter().enumerate() {
        legend.push_str(&format!(
            "  {} {} MB={:.3}\n",
            i + 1,
            b.label.replace("--", "-"),
            b.mb
        ));
    }
    legend.push_str("-->\n");
    Ok(svg + &legend)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_one_bar_per_run() {
        let bars: Vec<Bar> = (0..6)
            .map(|i| Bar {
                label: format!("FILES={}", 4 << (i % 3)),
                mb: i as f64 * 1.5,
            })
            .collect();
        let svg = spectrum_svg("IOBENCH spectrum", &bars).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..60]);
        assert!(svg.contains("IOBENCH spectrum"));
        assert!(svg.contains("6 FILES=16 MB=7.500"));
        assert!(svg.matches("<rect").count() >= 6);
    }
}
