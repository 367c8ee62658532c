//! IOBENCH's spectrum figures, as the paper draws them (Wolman & Olson
//! 1989, Figures 2–5), from the runs' parameters and figures (the suite
//! reads them from its JSON and names the parameters).
//!
//! ```text
//!  Figure 2, the run profile          Figures 3–5, the results
//!  files  │ ●─●─●─●─●─●─●─●           MB of data  │ ●─●   ●─●  ■ system A
//!         └─────────────── run         processed  │    ●─●     ■ system B
//!  users  │ ●─●─●─●─●─●─●─●                       └───────────── run
//!         └─────────────── run         CP util.   │ ●─●─●─●─●
//!  work   │ ●─●─●─●─●─●─●─●            (%)        └───────────── run
//!         └─────────────── run
//! ```
//!
//! **The profile** has one panel per parameter that varies from run to run
//! (files, users and work load in the paper), stacked, each a line with a
//! point per run against the run number. **The results** have two panels
//! sharing the run axis: the MB of data processed per run on top, the CP
//! utilisation below. When the record length varies, there is one results
//! figure per record length (the paper's Figures 3, 4 and 5, for 2048,
//! 4096 and 8192 bytes), its runs numbered 1… within it as the paper does,
//! and the profile is drawn over those numbers (one line per distinct
//! profile; record lengths that ran the same profile share one).
//!
//! The CP utilisation axis runs from 0 to 100, or to the highest value when
//! a run reports more (the paper saw that on its system A).
//!
//! Several spectra (one per system) overlay as series, each in a colour of
//! its own, with a legend of their names; their runs are matched by
//! position. A run that did not complete (Ctrl-C, a failure) is not drawn.
//!
//! What a reader (or a test) can count: the SVG backend writes one element
//! a line, and the only `<circle` elements are the points: one per run per
//! line of the profile's panels, one per completed run per series in each
//! panel of the results. Legend icons are squares. Each document ends with
//! `</svg>` and then an XML comment listing the runs and their figures.

use super::{BLUE_, GREEN_, RED_};
use crate::units::decimal as num;
use plotters::coord::Shift;
use plotters::prelude::*;

/// What the figures know of the runs' parameters.
#[derive(Clone, Copy, Debug)]
pub struct Params<'a> {
    /// Each parameter's name on an axis, in the order of [`RunFig::params`];
    /// the profile's panels come in this order.
    pub names: &'a [&'a str],
    /// The record length's place among them: its values split the results
    /// into a figure each.
    pub reclen: usize,
    /// The profile's panels when no parameter varies (the paper's three).
    pub unvarying: &'a [usize],
}

/// Point radius; the module's documentation counts on `<circle` for points.
const MARKER_R: i32 = 4;
const PALETTE: [RGBColor; 6] = [
    BLUE_,
    RED_,
    GREEN_,
    RGBColor(230, 130, 0),
    RGBColor(120, 60, 160),
    RGBColor(90, 90, 90),
];

/// What a completed run measured, as the results figures draw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// The paper's MB of data processed (`metrics.mb_processed`).
    pub mb: f64,
    /// CP utilisation in percent (see the module's documentation).
    pub cp_util: f64,
}

/// One run of a spectrum.
#[derive(Clone, Debug, PartialEq)]
pub struct RunFig {
    /// Its name in the spectrum: `FILES=4 USERS=50`.
    pub label: String,
    /// Its parameters, in the order of [`Params::names`].
    pub params: Vec<f64>,
    /// Its figures; `None` when the run did not complete (not drawn).
    pub measured: Option<Measured>,
}

/// One spectrum (one system): a series in the figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend's name: the JSON file's stem.
    pub name: String,
    pub runs: Vec<RunFig>,
}

/// One SVG document and the file name it goes to.
#[derive(Clone, Debug)]
pub struct Figure {
    pub file_name: String,
    pub svg: String,
}

/// Runs of the same record length, in order of their first run.
struct Group {
    reclen: f64,
    /// Indices of its runs among all runs.
    runs: Vec<usize>,
}

fn groups_of(runs: &[RunFig], reclen: usize) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let b = r.params[reclen];
        match groups.iter_mut().find(|g| g.reclen == b) {
            Some(g) => g.runs.push(i),
            None => groups.push(Group {
                reclen: b,
                runs: vec![i],
            }),
        }
    }
    groups
}

/// Figure 2 and Figures 3–5 for the series (runs matched by position),
/// their parameters named by `params`: `iobench-profile.svg`, then
/// `iobench-results.svg`, or `iobench-results-reclen<B>.svg` per record
/// length when it varies.
pub fn figures(series: &[Series], params: &Params) -> Result<Vec<Figure>, String> {
    let reference = series
        .iter()
        .max_by_key(|s| s.runs.len())
        .ok_or("no spectrum to draw")?;
    // the longest series first among equals: max_by_key keeps the last
    let reference = series
        .iter()
        .find(|s| s.runs.len() == reference.runs.len())
        .unwrap_or(reference);
    let groups = groups_of(&reference.runs, params.reclen);
    let mut out = vec![Figure {
        file_name: "iobench-profile.svg".into(),
        svg: profile_svg(&reference.runs, &groups, params)?,
    }];
    for g in &groups {
        let (file_name, title) = if groups.len() == 1 {
            (
                "iobench-results.svg".to_string(),
                "IOBENCH results per run".to_string(),
            )
        } else {
            let b = num(g.reclen);
            (
                format!("iobench-results-reclen{b}.svg"),
                format!("IOBENCH results per run, RECLEN = {b}"),
            )
        };
        out.push(Figure {
            file_name,
            svg: results_svg(&title, series, &reference.runs, &g.runs)?,
        });
    }
    Ok(out)
}

fn e<E: std::fmt::Debug>(x: E) -> String {
    format!("cannot draw the spectrum's figures: {x:?}")
}

/// `text` as an XML comment: `--` may not occur inside one.
fn comment(text: &str) -> String {
    let mut t = text.to_string();
    while t.contains("--") {
        t = t.replace("--", "-");
    }
    format!("<!-- {t}-->\n")
}

/// The width for `n` points along the run axis.
fn width_for(n: usize) -> u32 {
    (160 + 22 * n as u32).clamp(720, 2400)
}

/// Run numbers 1..=n on an integer axis with a margin each side.
fn run_axis(n: usize) -> std::ops::Range<i32> {
    0..n as i32 + 1
}

/// The legend's icon: a small square (legends hold no circles, so that
/// circles count points).
fn square_icon(c: RGBColor) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x + 2, y - 4), (x + 10, y + 4)], c.filled())
}

/// One panel: a line and a circle per point of each series, broken where a
/// point is missing. `lines` holds each series' colour, name and values.
#[allow(clippy::type_complexity)]
fn panel(
    area: &DrawingArea<SVGBackend, Shift>,
    caption: &str,
    n: usize,
    y: std::ops::Range<f64>,
    lines: &[(RGBColor, String, Vec<Option<f64>>)],
    legend: bool,
) -> Result<(), String> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 15))
        .margin(8)
        .margin_right(20)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(run_axis(n), y)
        .map_err(e)?;
    let labels = n.min(32) + 2;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(labels)
        .x_label_formatter(&|x| {
            if (1..=n as i32).contains(x) {
                x.to_string()
            } else {
                String::new()
            }
        })
        .x_desc("run")
        .y_label_formatter(&|v| num(*v))
        .draw()
        .map_err(e)?;
    for (colour, name, values) in lines {
        let colour = *colour;
        // one polyline per stretch of points without a gap
        let mut stretch: Vec<(i32, f64)> = Vec::new();
        let mut stretches = Vec::new();
        for (i, v) in values.iter().enumerate() {
            match v {
                Some(v) => stretch.push((i as i32 + 1, *v)),
                None if !stretch.is_empty() => stretches.push(std::mem::take(&mut stretch)),
                None => {}
            }
        }
        if !stretch.is_empty() {
            stretches.push(stretch);
        }
        for (k, s) in stretches.iter().enumerate() {
            let drawn = chart
                .draw_series(LineSeries::new(s.iter().copied(), colour.stroke_width(2)))
                .map_err(e)?;
            if k == 0 && legend {
                drawn.label(name.as_str()).legend(square_icon(colour));
            }
        }
        chart
            .draw_series(
                stretches
                    .iter()
                    .flatten()
                    .map(|&p| Circle::new(p, MARKER_R, colour.filled())),
            )
            .map_err(e)?;
    }
    if legend {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(e)?;
    }
    Ok(())
}

/// Figure 2: a panel per parameter that varies within a record length's
/// runs, over the run numbers of the results figures.
fn profile_svg(runs: &[RunFig], groups: &[Group], params: &Params) -> Result<String, String> {
    let varies = |p: usize| {
        groups.iter().any(|g| {
            g.runs
                .iter()
                .any(|&i| runs[i].params[p] != runs[g.runs[0]].params[p])
        })
    };
    let mut shown: Vec<usize> = (0..params.names.len()).filter(|&p| varies(p)).collect();
    if shown.is_empty() {
        shown = params.unvarying.to_vec();
    }
    // one line per distinct profile; record lengths that ran the same share it
    let mut lines: Vec<(Vec<Vec<f64>>, Vec<f64>)> = Vec::new();
    for g in groups {
        let seq: Vec<Vec<f64>> = g
            .runs
            .iter()
            .map(|&i| shown.iter().map(|&p| runs[i].params[p]).collect())
            .collect();
        match lines.iter_mut().find(|(s, _)| *s == seq) {
            Some((_, reclens)) => reclens.push(g.reclen),
            None => lines.push((seq, vec![g.reclen])),
        }
    }
    let n = groups.iter().map(|g| g.runs.len()).max().unwrap_or(1);
    let title = if groups.len() == 1 {
        format!("IOBENCH run profile: {n} runs")
    } else {
        let all: Vec<String> = groups.iter().map(|g| num(g.reclen)).collect();
        format!(
            "IOBENCH run profile: {n} runs for each RECLEN ({})",
            all.join(", ")
        )
    };
    let legend = lines.len() > 1;
    let mut svg = String::new();
    {
        let height = 60 + 200 * shown.len() as u32;
        let root = SVGBackend::with_string(&mut svg, (width_for(n), height)).into_drawing_area();
        root.fill(&WHITE).map_err(e)?;
        let root = root.titled(&title, ("sans-serif", 18)).map_err(e)?;
        let areas = root.split_evenly((shown.len(), 1));
        for (k, (&p, area)) in shown.iter().zip(&areas).enumerate() {
            let values = lines.iter().flat_map(|(s, _)| s.iter().map(|v| v[k]));
            let (lo, hi) = values.fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
            let hi = if hi > lo {
                hi + (hi - lo) * 0.15
            } else {
                lo + 1.0
            };
            let series: Vec<(RGBColor, String, Vec<Option<f64>>)> = lines
                .iter()
                .enumerate()
                .map(|(j, (seq, reclens))| {
                    let names: Vec<String> = reclens.iter().map(|b| num(*b)).collect();
                    (
                        PALETTE[j % PALETTE.len()],
                        format!("RECLEN = {}", names.join(", ")),
                        seq.iter().map(|v| Some(v[k])).collect(),
                    )
                })
                .collect();
            panel(area, params.names[p], n, lo..hi, &series, legend)?;
        }
        root.present().map_err(e)?;
    }
    let mut note = String::from("runs:\n");
    for (i, r) in runs.iter().enumerate() {
        note.push_str(&format!("  {} {}\n", i + 1, r.label));
    }
    Ok(svg + "\n" + &comment(&note))
}

/// Figures 3–5: MB of data processed on top, CP utilisation below, one
/// series per spectrum, over the runs `group` (indices into `runs`).
fn results_svg(
    title: &str,
    series: &[Series],
    runs: &[RunFig],
    group: &[usize],
) -> Result<String, String> {
    let n = group.len();
    let at = |s: &Series, i: usize| s.runs.get(i).and_then(|r| r.measured);
    let all = || {
        series
            .iter()
            .flat_map(move |s| group.iter().filter_map(move |&i| at(s, i)))
    };
    let top_mb = all().map(|m| m.mb).fold(0.0, f64::max);
    let top_mb = if top_mb > 0.0 { top_mb * 1.1 } else { 1.0 };
    let top_cp = all().map(|m| m.cp_util).fold(100.0, f64::max);
    let legend = series.len() > 1;
    let lines = |get: fn(Measured) -> f64| -> Vec<(RGBColor, String, Vec<Option<f64>>)> {
        series
            .iter()
            .enumerate()
            .map(|(j, s)| {
                (
                    PALETTE[j % PALETTE.len()],
                    s.name.clone(),
                    group.iter().map(|&i| at(s, i).map(get)).collect(),
                )
            })
            .collect()
    };
    let title = if legend {
        title.to_string()
    } else {
        format!("{title}: {}", series[0].name)
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width_for(n), 640)).into_drawing_area();
        root.fill(&WHITE).map_err(e)?;
        let root = root.titled(&title, ("sans-serif", 18)).map_err(e)?;
        let areas = root.split_evenly((2, 1));
        panel(
            &areas[0],
            "MB of data processed",
            n,
            0.0..top_mb,
            &lines(|m| m.mb),
            legend,
        )?;
        panel(
            &areas[1],
            "CP utilisation (%)",
            n,
            0.0..top_cp,
            &lines(|m| m.cp_util),
            false,
        )?;
        root.present().map_err(e)?;
    }
    let mut note = String::from("runs (MB of data processed, CP utilisation):\n");
    for (k, &i) in group.iter().enumerate() {
        let figures: Vec<String> = series
            .iter()
            .map(|s| match at(s, i) {
                Some(m) => format!("{} MB={:.3} CP={:.1}%", s.name, m.mb, m.cp_util),
                None => format!("{} not completed", s.name),
            })
            .collect();
        note.push_str(&format!(
            "  {} (run {} of the spectrum) {}: {}\n",
            k + 1,
            i + 1,
            runs[i].label,
            figures.join("; ")
        ));
    }
    Ok(svg + "\n" + &comment(&note))
}
