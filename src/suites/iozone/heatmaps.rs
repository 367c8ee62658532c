//! The heatmaps of an IOzone table: one per test column with figures,
//! each drawn by [`crate::report::plot::heatmap`] from the column's file
//! size × record size grid, named by the column.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::report::{Column, Table};
use crate::report::plot::heatmap::{self, Grid};

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

/// Column `c`'s figures on the file size × record size grid: one column
/// per record size present in the table and one row per file size, both
/// in increasing order.
fn grid(table: &Table, c: Column) -> Grid {
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

/// The heatmap of `c` as an SVG document, titled `IOzone <column title> —
/// <title_suffix>`.
pub fn heatmap_svg(table: &Table, c: Column, title_suffix: &str) -> Result<String, String> {
    heatmap::svg(
        &grid(table, c),
        &title(c, title_suffix),
        table.units.label(),
        c.name(),
    )
}

/// Writes one heatmap for each of the table's [`Table::sections`] that
/// has figures (not the re-tests dropped by `-+n`) into `dir` (created if
/// missing), named by [`file_name`]
/// (`iozone-write.svg`, `iozone-random-read.svg`, …), and returns their
/// paths in report order. The title of each is `IOzone <column title> —
/// <title_suffix>`.
/// The tests a heatmap is drawn of: those with a figure above 0.
pub fn drawn(table: &Table) -> Vec<Column> {
    let measured = |c: &Column| {
        table
            .rows
            .iter()
            .any(|r| r.values.get(c).is_some_and(|v| *v > 0))
    };
    table.sections().into_iter().filter(measured).collect()
}

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
    for c in drawn(table) {
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
    use crate::report::plot::heatmap::{BAR_STEPS, colour};
    use crate::suites::iozone::report::{Row, Units};

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
        let g = grid(&auto_table(), Column::Write);
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
        assert_eq!(grid(&t, Column::Write).cells[0][3], None);
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
