//! Heatmaps of IOzone's auto-mode grid, as SVG: the picture IOzone users
//! draw by hand with gnuplot from the `-R`/`-b` surface data, one per test
//! column (the suite picks the columns, names the files and fills the
//! [`Grid`]).
//!
//! ```text
//!  file size (kB)      IOzone Writer report — <suffix>
//!        512M ┃ ░░░ ░░░ ▓▓▓ ▓▓▓ ▓▓▓      kBytes/sec
//!          …  ┃ ▒▒▒ ▓▓▓ ▓▓▓ ▓▓▓ ▓▓▓        ▇ 1.9M   (max)
//!         128 ┃ ▒▒▒ ▒▒▒ ▒▒▒ ▒▒▒            ▆
//!          64 ┃ ▒▒▒ ▒▒▒ ▒▒▒                ▁ 310k   (min)
//!             ┗━━━━━━━━━━━━━━━━━━━━━━      □ not measured
//!                4   8   16  32  …
//!                  record size (kB)
//! ```
//!
//! One column per record size present in the table and one row per file
//! size, both in increasing order (small files at the bottom), so that the
//! powers of two IOzone steps through sit on a log2 scale with one cell
//! each. Each measured cell is filled with the colour of its figure on a
//! linear scale from the column's minimum to its maximum (viridis: dark
//! violet for the minimum, yellow for the maximum; the same for every unit,
//! so in microseconds/op mode yellow is the slowest), and carries the
//! figure, abbreviated (`850k`, `1.2M`), when it fits. Cells that were not
//! measured (placeholders past the crossover, a test without a figure, a
//! record longer than the file) are grey and unlabelled.
//!
//! Size ticks are in kB below 1024 and then in IOzone's own `-s`/`-r`
//! notation: `1M` is 1024 kB, `1G` is 1024 MB. Figures are abbreviated in
//! thousands (`k`, `M`, `G`: 10^3, 10^6, 10^9), as they are counts of
//! kB/s, ops/s or µs.
//!
//! plotters' SVG backend writes the text as `<text>` elements and leaves
//! the fonts to the viewer, so the widths used to decide what fits are
//! estimates (0.6 em a character, the width of digits in common sans-serif
//! fonts).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// matplotlib's viridis, every 32nd of its 256 entries (0, 32, …, 224,
/// 255), taken as evenly spaced and interpolated linearly in between.
const VIRIDIS: [(u8, u8, u8); 9] = [
    (0x44, 0x01, 0x54),
    (0x47, 0x2d, 0x7b),
    (0x3b, 0x52, 0x8b),
    (0x2c, 0x72, 0x8e),
    (0x21, 0x91, 0x8c),
    (0x28, 0xae, 0x80),
    (0x5e, 0xc9, 0x62),
    (0xad, 0xdc, 0x30),
    (0xfd, 0xe7, 0x25),
];

/// The fill of cells without a figure.
const NOT_MEASURED: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);
const AXIS: RGBColor = RGBColor(0x44, 0x44, 0x44);

// Layout, in pixels.
const CELL_W: u32 = 64;
const CELL_H: u32 = 30;
/// Small grids (single mode's one cell) are stretched to at least this.
const MIN_GRID_W: u32 = 320;
const MIN_GRID_H: u32 = 180;
const LEFT: u32 = 96;
const TOP: u32 = 64;
const BOTTOM: u32 = 64;
const RIGHT: u32 = 160;
const BAR_GAP: u32 = 24;
const BAR_W: u32 = 18;
/// The colour bar's steps (the tests count its rectangles).
pub const BAR_STEPS: u32 = 64;

// Font sizes as plotters takes them; its SVG backend writes size / 1.24.
const TITLE_PT: f64 = 19.0;
const LABEL_PT: f64 = 15.0;
const TICK_PT: f64 = 14.0;
const VALUE_PT: f64 = 13.0;

/// The colour of `t` in 0..=1 on the viridis scale (clamped; NaN is 0).
pub fn colour(t: f64) -> (u8, u8, u8) {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let x = t * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Text readable on `bg`: black on light colours, white on dark ones (by
/// Rec. 709 luma of the sRGB values).
fn ink((r, g, b): (u8, u8, u8)) -> RGBColor {
    let luma = 0.2126 * r as f64 + 0.7152 * g as f64 + 0.0722 * b as f64;
    if luma > 0.5 * 255.0 { BLACK } else { WHITE }
}

/// Where `v` falls between `lo` and `hi` (the middle when they are equal).
fn fraction(v: u64, lo: u64, hi: u64) -> f64 {
    if hi <= lo {
        0.5
    } else {
        (v.saturating_sub(lo)) as f64 / (hi - lo) as f64
    }
}

/// A figure in at most 3 significant digits: `999`, `1k`, `9.5k`, `10k`,
/// `850k`, `1.2M` (thousands, millions, …).
fn abbrev(v: u64) -> String {
    if v < 1000 {
        return v.to_string();
    }
    let mut x = v as f64;
    for s in ["k", "M", "G", "T", "P"] {
        x /= 1000.0;
        if x < 9.95 {
            let d = format!("{x:.1}");
            return d.strip_suffix(".0").unwrap_or(&d).to_string() + s;
        }
        if x < 999.5 {
            return format!("{x:.0}{s}");
        }
    }
    format!("{:.0}E", x / 1000.0)
}

/// A size tick, the size given in kB: `64`, `512`, `1M` (1024 kB), `2G`;
/// sizes that are not whole MB or GB stay in kB.
fn size_tick(kb: u64) -> String {
    const UNITS: [&str; 4] = ["", "M", "G", "T"];
    let (v, i) = crate::units::whole_units(kb, UNITS.len() - 1);
    format!("{v}{}", UNITS[i])
}

/// An estimate of the width in pixels of `text` at plotters size `pt`.
fn text_w(text: &str, pt: f64) -> u32 {
    (text.chars().count() as f64 * 0.6 * pt / 1.24).ceil() as u32
}

/// Whether `text` fits in a `w`×`h` cell with 2 px to spare on each side.
fn fits(text: &str, pt: f64, w: u32, h: u32) -> bool {
    text_w(text, pt) + 4 <= w && (pt / 1.24).ceil() as u32 + 4 <= h
}

/// One column's figures on the file size × record size grid.
#[derive(Debug, PartialEq)]
pub struct Grid {
    /// Record sizes, kB, increasing: the x axis.
    pub reclens: Vec<u64>,
    /// File sizes, kB, increasing: the y axis.
    pub kbs: Vec<u64>,
    /// `cells[i][j]`: file size `kbs[i]`, record size `reclens[j]`.
    pub cells: Vec<Vec<Option<u64>>>,
}

impl Grid {
    /// The smallest and largest figure, if any.
    pub fn range(&self) -> Option<(u64, u64)> {
        let all = self.cells.iter().flatten().flatten().copied();
        Some((all.clone().min()?, all.max()?))
    }

    pub fn has_gaps(&self) -> bool {
        self.cells.iter().flatten().any(Option::is_none)
    }
}

fn rgb((r, g, b): (u8, u8, u8)) -> RGBColor {
    RGBColor(r, g, b)
}

fn font(pt: f64, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", pt).into_font()).pos(Pos::new(h, v))
}

/// Where the grid lies in the picture: its top-left corner, its size and a
/// cell's, in pixels.
struct Layout {
    x0: i32,
    y0: i32,
    gw: i32,
    gh: i32,
    cw: i32,
    ch: i32,
}

/// The picture being drawn, and what drawing on it may fail with.
type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type Drawn = Result<(), DrawingAreaErrorKind<std::io::Error>>;

/// The heatmap of `grid` as an SVG document (see the module notes), titled
/// `title`, its figures in `unit`; `name` names the column in errors.
pub fn svg(grid: &Grid, title: &str, unit: &str, name: &str) -> Result<String, String> {
    let (nx, ny) = (grid.reclens.len() as u32, grid.kbs.len() as u32);
    let cw = CELL_W.max(MIN_GRID_W / nx.max(1));
    let ch = CELL_H.max(MIN_GRID_H / ny.max(1));
    let (gw, gh) = (cw * nx.max(1), ch * ny.max(1));
    let width = (LEFT + gw + RIGHT).max(text_w(title, TITLE_PT) + 40);
    let height = TOP + gh + BOTTOM;
    let l = Layout {
        x0: LEFT as i32,
        y0: TOP as i32,
        gw: gw as i32,
        gh: gh as i32,
        cw: cw as i32,
        ch: ch as i32,
    };
    let mut svg = String::new();
    {
        let err = |e: DrawingAreaErrorKind<std::io::Error>| {
            format!("cannot draw the heatmap of {name}: {e}")
        };
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        root.draw_text(
            title,
            &font(TITLE_PT, HPos::Center, VPos::Top),
            (width as i32 / 2, 14),
        )
        .map_err(err)?;
        draw_cells(&root, grid, &l).map_err(err)?;
        draw_axes(&root, grid, &l).map_err(err)?;
        draw_bar(&root, grid, &l, unit).map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The cells, small files at the bottom: each coloured by its figure and
/// labelled with it where it fits; grey where nothing was measured.
fn draw_cells(root: &Area, grid: &Grid, l: &Layout) -> Drawn {
    let range = grid.range();
    for (i, row) in grid.cells.iter().enumerate() {
        let y = l.y0 + l.gh - (i as i32 + 1) * l.ch;
        for (j, v) in row.iter().enumerate() {
            let x = l.x0 + j as i32 * l.cw;
            let fill = match (v, range) {
                (Some(v), Some((lo, hi))) => colour(fraction(*v, lo, hi)),
                _ => (NOT_MEASURED.0, NOT_MEASURED.1, NOT_MEASURED.2),
            };
            root.draw(&Rectangle::new(
                [(x + 1, y + 1), (x + l.cw - 1, y + l.ch - 1)],
                rgb(fill).filled(),
            ))?;
            if let Some(v) = v {
                let text = abbrev(*v);
                if fits(&text, VALUE_PT, l.cw as u32 - 2, l.ch as u32 - 2) {
                    let ink = ink(fill);
                    let style = font(VALUE_PT, HPos::Center, VPos::Center).color(&ink);
                    root.draw_text(&text, &style, (x + l.cw / 2, y + l.ch / 2))?;
                }
            }
        }
    }
    Ok(())
}

/// The axes: a tick and a label per size, and the axes' names.
fn draw_axes(root: &Area, grid: &Grid, l: &Layout) -> Drawn {
    let (x0, y0, gw, gh, cw, ch) = (l.x0, l.y0, l.gw, l.gh, l.cw, l.ch);
    let axis = AXIS.stroke_width(1);
    let line = |a: (i32, i32), b: (i32, i32)| PathElement::new(vec![a, b], axis);
    root.draw(&line((x0, y0 + gh), (x0 + gw, y0 + gh)))?;
    root.draw(&line((x0, y0), (x0, y0 + gh)))?;
    let tick = font(TICK_PT, HPos::Center, VPos::Top);
    for (j, rl) in grid.reclens.iter().enumerate() {
        let x = x0 + j as i32 * cw + cw / 2;
        root.draw(&line((x, y0 + gh), (x, y0 + gh + 4)))?;
        root.draw_text(&size_tick(*rl), &tick, (x, y0 + gh + 7))?;
    }
    let tick = font(TICK_PT, HPos::Right, VPos::Center);
    for (i, kb) in grid.kbs.iter().enumerate() {
        let y = y0 + gh - i as i32 * ch - ch / 2;
        root.draw(&line((x0 - 4, y), (x0, y)))?;
        root.draw_text(&size_tick(*kb), &tick, (x0 - 7, y))?;
    }
    root.draw_text(
        "record size (kB)",
        &font(LABEL_PT, HPos::Center, VPos::Top),
        (x0 + gw / 2, y0 + gh + 32),
    )?;
    let y_desc = TextStyle::from(
        ("sans-serif", LABEL_PT)
            .into_font()
            .transform(FontTransform::Rotate270),
    )
    .pos(Pos::new(HPos::Center, VPos::Top));
    root.draw_text("file size (kB)", &y_desc, (16, y0 + gh / 2))
}

/// The colour bar: `unit` above, max at the top, min at the bottom, and a
/// grey swatch for the cells not measured when there are any.
fn draw_bar(root: &Area, grid: &Grid, l: &Layout, unit: &str) -> Drawn {
    let (y0, gh) = (l.y0, l.gh);
    let range = grid.range();
    let bx = l.x0 + l.gw + BAR_GAP as i32;
    let steps = BAR_STEPS as i32;
    for k in 0..steps {
        let top = y0 + gh * k / steps;
        let bottom = y0 + gh * (k + 1) / steps;
        let t = 1.0 - (k as f64 + 0.5) / steps as f64;
        let fill = if range.is_some() {
            rgb(colour(t))
        } else {
            NOT_MEASURED
        };
        root.draw(&Rectangle::new(
            [(bx, top), (bx + BAR_W as i32, bottom)],
            fill.filled(),
        ))?;
    }
    root.draw(&Rectangle::new(
        [(bx, y0), (bx + BAR_W as i32, y0 + gh)],
        AXIS.stroke_width(1),
    ))?;
    root.draw_text(unit, &font(TICK_PT, HPos::Left, VPos::Bottom), (bx, y0 - 6))?;
    let side = font(TICK_PT, HPos::Left, VPos::Center);
    let lx = bx + BAR_W as i32 + 6;
    match range {
        Some((lo, hi)) => {
            root.draw_text(&format!("{} (max)", abbrev(hi)), &side, (lx, y0 + 6))?;
            root.draw_text(&format!("{} (min)", abbrev(lo)), &side, (lx, y0 + gh - 6))?;
        }
        None => {
            root.draw_text("no figures", &side, (lx, y0 + gh / 2))?;
        }
    }
    if grid.has_gaps() {
        let y = y0 + gh + 12;
        root.draw(&Rectangle::new(
            [(bx, y), (bx + BAR_W as i32, y + 12)],
            NOT_MEASURED.filled(),
        ))?;
        root.draw_text("not measured", &side, (lx, y + 6))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_ends_and_middle() {
        assert_eq!(colour(0.0), (68, 1, 84));
        assert_eq!(colour(0.5), (33, 145, 140));
        assert_eq!(colour(1.0), (253, 231, 37));
        // halfway between the first two stops
        assert_eq!(colour(1.0 / 16.0), (70, 23, 104));
        assert_eq!(colour(-1.0), colour(0.0));
        assert_eq!(colour(2.0), colour(1.0));
        assert_eq!(colour(f64::NAN), colour(0.0));
        assert_eq!(ink(colour(0.0)), WHITE);
        assert_eq!(ink(colour(0.5)), WHITE);
        assert_eq!(ink(colour(1.0)), BLACK);
    }

    #[test]
    fn fractions_of_the_range() {
        assert_eq!(fraction(10, 10, 30), 0.0);
        assert_eq!(fraction(20, 10, 30), 0.5);
        assert_eq!(fraction(30, 10, 30), 1.0);
        assert_eq!(fraction(7, 7, 7), 0.5);
    }

    #[test]
    fn figures_are_abbreviated() {
        let cases = [
            (0, "0"),
            (999, "999"),
            (1000, "1k"),
            (1234, "1.2k"),
            (9960, "10k"),
            (12_345, "12k"),
            (850_000, "850k"),
            (999_999, "1M"),
            (1_234_567, "1.2M"),
            (45_600_000, "46M"),
            (7_000_000_000, "7G"),
            (u64::MAX, "18E"),
        ];
        for (v, s) in cases {
            assert_eq!(abbrev(v), s, "{v}");
        }
    }

    #[test]
    fn size_ticks() {
        let cases = [
            (4, "4"),
            (64, "64"),
            (512, "512"),
            (1024, "1M"),
            (16384, "16M"),
            (524_288, "512M"),
            (1_048_576, "1G"),
            (4 << 20, "4G"),
            (1 << 30, "1T"),
            (1536, "1536"),
            (1000, "1000"),
        ];
        for (kb, s) in cases {
            assert_eq!(size_tick(kb), s, "{kb}");
        }
    }

    #[test]
    fn text_fits_only_wide_enough_cells() {
        assert!(fits("1.2M", VALUE_PT, CELL_W - 2, CELL_H - 2));
        assert!(fits("999k", VALUE_PT, CELL_W - 2, CELL_H - 2));
        assert!(!fits("1.2M", VALUE_PT, 20, CELL_H));
        assert!(!fits("1.2M", VALUE_PT, CELL_W, 10));
    }
}
