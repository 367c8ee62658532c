//! Heatmaps of the auto-mode grid, as SVG: the picture IOzone users draw
//! by hand with gnuplot from the `-R`/`-b` surface data, one per test
//! column.
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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::report::{Column, Table};

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
const BAR_STEPS: u32 = 64;

// Font sizes as plotters takes them; its SVG backend writes size / 1.24.
const TITLE_PT: f64 = 19.0;
const LABEL_PT: f64 = 15.0;
const TICK_PT: f64 = 14.0;
const VALUE_PT: f64 = 13.0;

/// The colour of `t` in 0..=1 on the viridis scale (clamped; NaN is 0).
fn colour(t: f64) -> (u8, u8, u8) {
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

/// The column's name in file names: `write`, `random-read`.
fn slug(c: Column) -> String {
    c.name().replace('_', "-")
}

/// The file [`write_heatmaps`] writes for `c`: `iozone-random-read.svg`.
pub fn file_name(c: Column) -> String {
    format!("iozone-{}.svg", slug(c))
}

/// The title of `c`'s heatmap: `IOzone Writer report — <suffix>` (no dash
/// when the suffix is empty).
fn title(c: Column, suffix: &str) -> String {
    if suffix.is_empty() {
        format!("IOzone {}", c.title())
    } else {
        format!("IOzone {} — {suffix}", c.title())
    }
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
struct Grid {
    /// Record sizes, kB, increasing: the x axis.
    reclens: Vec<u64>,
    /// File sizes, kB, increasing: the y axis.
    kbs: Vec<u64>,
    /// `cells[i][j]`: file size `kbs[i]`, record size `reclens[j]`.
    cells: Vec<Vec<Option<u64>>>,
}

impl Grid {
    fn new(table: &Table, c: Column) -> Grid {
        let mut at: BTreeMap<(u64, u64), Option<u64>> = BTreeMap::new();
        for r in &table.rows {
            let v = r.values.get(&c).copied();
            let e = at.entry((r.kb, r.reclen_kb)).or_insert(v);
            *e = e.or(v);
        }
        let mut kbs: Vec<u64> = at.keys().map(|k| k.0).collect();
        let mut reclens: Vec<u64> = at.keys().map(|k| k.1).collect();
        for v in [&mut kbs, &mut reclens] {
            v.sort_unstable();
            v.dedup();
        }
        let cells = kbs
            .iter()
            .map(|&kb| {
                reclens
                    .iter()
                    .map(|&rl| at.get(&(kb, rl)).copied().flatten())
                    .collect()
            })
            .collect();
        Grid {
            reclens,
            kbs,
            cells,
        }
    }

    /// The smallest and largest figure, if any.
    fn range(&self) -> Option<(u64, u64)> {
        let all = self.cells.iter().flatten().flatten().copied();
        Some((all.clone().min()?, all.max()?))
    }

    fn has_gaps(&self) -> bool {
        self.cells.iter().flatten().any(Option::is_none)
    }
}

fn rgb((r, g, b): (u8, u8, u8)) -> RGBColor {
    RGBColor(r, g, b)
}

fn font(pt: f64, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", pt).into_font()).pos(Pos::new(h, v))
}

/// The heatmap of `c` as an SVG document (see the module notes).
pub fn heatmap_svg(table: &Table, c: Column, title_suffix: &str) -> Result<String, String> {
    let grid = Grid::new(table, c);
    let (nx, ny) = (grid.reclens.len() as u32, grid.kbs.len() as u32);
    let cw = CELL_W.max(MIN_GRID_W / nx.max(1));
    let ch = CELL_H.max(MIN_GRID_H / ny.max(1));
    let (gw, gh) = (cw * nx.max(1), ch * ny.max(1));
    let title = title(c, title_suffix);
    let width = (LEFT + gw + RIGHT).max(text_w(&title, TITLE_PT) + 40);
    let height = TOP + gh + BOTTOM;
    let (x0, y0) = (LEFT as i32, TOP as i32);
    let (gw, gh, cw, ch) = (gw as i32, gh as i32, cw as i32, ch as i32);
    let range = grid.range();

    let mut svg = String::new();
    {
        let err =
            |e: &dyn std::fmt::Display| format!("cannot draw the heatmap of {}: {e}", c.name());
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        root.draw_text(
            &title,
            &font(TITLE_PT, HPos::Center, VPos::Top),
            (width as i32 / 2, 14),
        )
        .map_err(|e| err(&e))?;

        // the cells, small files at the bottom
        for (i, row) in grid.cells.iter().enumerate() {
            let y = y0 + gh - (i as i32 + 1) * ch;
            for (j, v) in row.iter().enumerate() {
                let x = x0 + j as i32 * cw;
                let fill = match (v, range) {
                    (Some(v), Some((lo, hi))) => colour(fraction(*v, lo, hi)),
                    _ => (NOT_MEASURED.0, NOT_MEASURED.1, NOT_MEASURED.2),
                };
                root.draw(&Rectangle::new(
                    [(x + 1, y + 1), (x + cw - 1, y + ch - 1)],
                    rgb(fill).filled(),
                ))
                .map_err(|e| err(&e))?;
                if let Some(v) = v {
                    let text = abbrev(*v);
                    if fits(&text, VALUE_PT, cw as u32 - 2, ch as u32 - 2) {
                        let ink = ink(fill);
                        let style = font(VALUE_PT, HPos::Center, VPos::Center).color(&ink);
                        root.draw_text(&text, &style, (x + cw / 2, y + ch / 2))
                            .map_err(|e| err(&e))?;
                    }
                }
            }
        }

        // the axes: a tick and a label per size
        let axis = AXIS.stroke_width(1);
        let line = |a: (i32, i32), b: (i32, i32)| PathElement::new(vec![a, b], axis);
        root.draw(&line((x0, y0 + gh), (x0 + gw, y0 + gh)))
            .map_err(|e| err(&e))?;
        root.draw(&line((x0, y0), (x0, y0 + gh)))
            .map_err(|e| err(&e))?;
        let tick = font(TICK_PT, HPos::Center, VPos::Top);
        for (j, rl) in grid.reclens.iter().enumerate() {
            let x = x0 + j as i32 * cw + cw / 2;
            root.draw(&line((x, y0 + gh), (x, y0 + gh + 4)))
                .map_err(|e| err(&e))?;
            root.draw_text(&size_tick(*rl), &tick, (x, y0 + gh + 7))
                .map_err(|e| err(&e))?;
        }
        let tick = font(TICK_PT, HPos::Right, VPos::Center);
        for (i, kb) in grid.kbs.iter().enumerate() {
            let y = y0 + gh - i as i32 * ch - ch / 2;
            root.draw(&line((x0 - 4, y), (x0, y)))
                .map_err(|e| err(&e))?;
            root.draw_text(&size_tick(*kb), &tick, (x0 - 7, y))
                .map_err(|e| err(&e))?;
        }
        root.draw_text(
            "record size (kB)",
            &font(LABEL_PT, HPos::Center, VPos::Top),
            (x0 + gw / 2, y0 + gh + 32),
        )
        .map_err(|e| err(&e))?;
        let y_desc = TextStyle::from(
            ("sans-serif", LABEL_PT)
                .into_font()
                .transform(FontTransform::Rotate270),
        )
        .pos(Pos::new(HPos::Center, VPos::Top));
        root.draw_text("file size (kB)", &y_desc, (16, y0 + gh / 2))
            .map_err(|e| err(&e))?;

        // the colour bar: the unit above, max at the top, min at the bottom
        let bx = x0 + gw + BAR_GAP as i32;
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
            ))
            .map_err(|e| err(&e))?;
        }
        root.draw(&Rectangle::new(
            [(bx, y0), (bx + BAR_W as i32, y0 + gh)],
            AXIS.stroke_width(1),
        ))
        .map_err(|e| err(&e))?;
        root.draw_text(
            table.units.label(),
            &font(TICK_PT, HPos::Left, VPos::Bottom),
            (bx, y0 - 6),
        )
        .map_err(|e| err(&e))?;
        let side = font(TICK_PT, HPos::Left, VPos::Center);
        let lx = bx + BAR_W as i32 + 6;
        match range {
            Some((lo, hi)) => {
                root.draw_text(&format!("{} (max)", abbrev(hi)), &side, (lx, y0 + 6))
                    .map_err(|e| err(&e))?;
                root.draw_text(&format!("{} (min)", abbrev(lo)), &side, (lx, y0 + gh - 6))
                    .map_err(|e| err(&e))?;
            }
            None => {
                root.draw_text("no figures", &side, (lx, y0 + gh / 2))
                    .map_err(|e| err(&e))?;
            }
        }
        if grid.has_gaps() {
            let y = y0 + gh + 12;
            root.draw(&Rectangle::new(
                [(bx, y), (bx + BAR_W as i32, y + 12)],
                NOT_MEASURED.filled(),
            ))
            .map_err(|e| err(&e))?;
            root.draw_text("not measured", &side, (lx, y + 6))
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

/// Writes one heatmap for each of the table's [`Table::sections`] that
/// has figures (not the re-tests dropped by `-+n`) into `dir` (created if
/// missing), named by [`file_name`]
/// (`iozone-write.svg`, `iozone-random-read.svg`, …), and returns their
/// paths in report order. The title of each is `IOzone <column title> —
/// <title_suffix>`.
pub fn write_heatmaps(
    dir: &Path,
    table: &Table,
    title_suffix: &str,
) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| {
        format!(
            "cannot create the directory {} for the heatmaps: {e}",
            dir.display()
        )
    })?;
    let mut paths = Vec::new();
    let measured = |c: &Column| {
        table
            .rows
            .iter()
            .any(|r| r.values.get(c).is_some_and(|v| *v > 0))
    };
    for c in table.sections().into_iter().filter(measured) {
        let svg = heatmap_svg(table, c, title_suffix)?;
        let path = dir.join(file_name(c));
        crate::report::export::write_file(&path, svg.as_bytes())
            .map_err(|e| format!("cannot write the heatmap {}: {e}", path.display()))?;
        paths.push(path);
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::iozone::report::{Row, Units};

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
    fn file_names_are_unique_slugs() {
        assert_eq!(file_name(Column::Write), "iozone-write.svg");
        assert_eq!(file_name(Column::RandRead), "iozone-random-read.svg");
        assert_eq!(file_name(Column::RecRewrite), "iozone-record-rewrite.svg");
        let names: std::collections::BTreeSet<_> = Column::ALL.into_iter().map(file_name).collect();
        assert_eq!(names.len(), Column::ALL.len());
        for n in names {
            assert!(
                n.chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-' || c == '.'),
                "{n}"
            );
        }
        assert_eq!(title(Column::Write, ""), "IOzone Writer report");
    }

    #[test]
    fn text_fits_only_wide_enough_cells() {
        assert!(fits("1.2M", VALUE_PT, CELL_W - 2, CELL_H - 2));
        assert!(fits("999k", VALUE_PT, CELL_W - 2, CELL_H - 2));
        assert!(!fits("1.2M", VALUE_PT, 20, CELL_H));
        assert!(!fits("1.2M", VALUE_PT, CELL_W, 10));
    }

    /// 3 file sizes × 4 record sizes; 256 kB past the crossover skips
    /// 4 kB records; write and rewrite.
    fn auto_table() -> Table {
        let mut rows = Vec::new();
        for (i, kb) in [64u64, 128, 256].into_iter().enumerate() {
            for (j, rl) in [4u64, 8, 16, 32].into_iter().enumerate() {
                let r = Row::new(kb, rl);
                rows.push(if kb == 256 && rl == 4 {
                    r
                } else {
                    let w = 300_000 + 100_000 * (4 * i + j) as u64;
                    r.with(Column::Write, w).with(Column::Rewrite, w + 50_000)
                });
            }
        }
        rows[11] = rows[11].clone().with(Column::Write, 1_834_567);
        Table {
            reclens_kb: vec![4, 8, 16, 32],
            rows,
            selected: Column::for_test(0),
            extended: false,
            units: Units::KbPerSec,
        }
    }

    #[test]
    fn grid_follows_the_sizes() {
        let g = Grid::new(&auto_table(), Column::Write);
        assert_eq!(g.kbs, vec![64, 128, 256]);
        assert_eq!(g.reclens, vec![4, 8, 16, 32]);
        assert_eq!(g.cells[0][0], Some(300_000));
        assert_eq!(g.cells[1][2], Some(900_000));
        assert_eq!(g.cells[2][0], None);
        assert_eq!(g.cells[2][3], Some(1_834_567));
        assert_eq!(g.range(), Some((300_000, 1_834_567)));
        assert!(g.has_gaps());
        // a record size absent from a file size is a gap too
        let mut t = auto_table();
        t.rows.retain(|r| !(r.kb == 64 && r.reclen_kb == 32));
        assert_eq!(Grid::new(&t, Column::Write).cells[0][3], None);
    }

    #[test]
    fn writes_one_heatmap_per_section() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("plots/iozone");
        let paths = write_heatmaps(&dir, &auto_table(), "test disk").unwrap();
        assert_eq!(
            paths,
            vec![dir.join("iozone-write.svg"), dir.join("iozone-rewrite.svg")]
        );
        for (p, title, value) in [
            (&paths[0], "IOzone Writer report — test disk", "1.8M"),
            (&paths[1], "IOzone Re-writer report — test disk", "850k"),
        ] {
            let svg = std::fs::read_to_string(p).unwrap();
            assert!(svg.starts_with("<svg"), "{}", &svg[..60]);
            assert!(svg.trim_end().ends_with("</svg>"));
            // the background, 12 cells, the colour bar's steps and outline,
            // the grey swatch
            let rects = 1 + 12 + BAR_STEPS as usize + 1 + 1;
            assert_eq!(svg.matches("<rect").count(), rects, "{p:?}");
            assert!(svg.contains(title), "{p:?}");
            assert!(svg.contains(&format!(">\n{value}\n</text>")), "{p:?}");
            for label in ["record size (kB)", "file size (kB)", "kBytes/sec", "256"] {
                assert!(svg.contains(label), "{label} in {p:?}");
            }
            // one grey cell and the "not measured" swatch
            assert_eq!(svg.matches("fill=\"#DDDDDD\"").count(), 2, "{p:?}");
            // 11 figures, the skipped cell unlabelled
            let figures = svg.matches("font-size=\"10.4").count();
            assert_eq!(figures, 11, "{p:?}");
        }
    }

    #[test]
    fn single_mode_makes_a_one_cell_map() {
        let t = Table {
            rows: vec![Row::new(512, 4).with(Column::Read, 42)],
            selected: vec![Column::Read],
            units: Units::MicrosPerOp,
            ..Default::default()
        };
        let tmp = tempfile::tempdir().unwrap();
        let paths = write_heatmaps(tmp.path(), &t, "one").unwrap();
        assert_eq!(paths, vec![tmp.path().join("iozone-read.svg")]);
        let svg = std::fs::read_to_string(&paths[0]).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains(">\n42\n</text>"));
        assert!(svg.contains("microseconds/op"));
        assert!(svg.contains("42 (max)") && svg.contains("42 (min)"));
        assert!(!svg.contains("not measured"));
        let (r, g, b) = colour(0.5);
        assert!(svg.contains(&format!("fill=\"#{r:02X}{g:02X}{b:02X}\"")));
    }

    #[test]
    fn a_column_without_figures_is_all_grey() {
        let mut t = auto_table();
        for r in &mut t.rows {
            r.values.remove(&Column::Rewrite);
        }
        let svg = heatmap_svg(&t, Column::Rewrite, "").unwrap();
        assert!(svg.contains("no figures"));
        assert!(svg.contains(">\nIOzone Re-writer report\n</text>"));
        let empty = heatmap_svg(&Table::default(), Column::Write, "x").unwrap();
        assert!(empty.starts_with("<svg") && empty.contains("no figures"));
    }

    #[test]
    fn unwritable_directory_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("a-file");
        std::fs::write(&file, "").unwrap();
        let err = write_heatmaps(&file.join("sub"), &auto_table(), "").unwrap_err();
        assert!(err.starts_with("cannot create the directory "), "{err}");
        assert!(!err.contains('\n'));
    }
}
