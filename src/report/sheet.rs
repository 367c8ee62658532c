//! A worksheet as plain data: labels and numbers by row and column, built
//! by a benchmark's report code and written as an XLSX workbook by
//! [`Sheet::save_xlsx`]. The writer is an optional feature (`xlsx`, on by
//! default): without it the sheet is still built and tested, and saving
//! says that the writer is not compiled in.

use std::collections::BTreeMap;
use std::path::Path;

/// One cell's content.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    Number(f64),
}

/// One worksheet: cells by (row, column), both from 0 (A1 is (0, 0)).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sheet {
    cells: BTreeMap<(u32, u16), Cell>,
}

/// Columns and rows a worksheet can hold (Excel's limits).
const MAX_ROWS: usize = 1 << 20;
const MAX_COLS: usize = 1 << 14;

fn at(row: usize, col: usize) -> Result<(u32, u16), String> {
    if row >= MAX_ROWS {
        return Err(format!("too many rows for a worksheet ({row})"));
    }
    if col >= MAX_COLS {
        return Err(format!("too many columns for a worksheet ({col})"));
    }
    Ok((row as u32, col as u16))
}

impl Sheet {
    pub fn new() -> Sheet {
        Sheet::default()
    }

    /// Text at (`row`, `col`).
    pub fn label(&mut self, row: usize, col: usize, text: &str) -> Result<(), String> {
        self.cells
            .insert(at(row, col)?, Cell::Text(text.to_string()));
        Ok(())
    }

    /// A number at (`row`, `col`).
    pub fn number(&mut self, row: usize, col: usize, v: f64) -> Result<(), String> {
        self.cells.insert(at(row, col)?, Cell::Number(v));
        Ok(())
    }

    /// The content of (`row`, `col`), if any.
    pub fn get(&self, row: u32, col: u16) -> Option<&Cell> {
        self.cells.get(&(row, col))
    }

    /// Every cell with content, by row then column.
    pub fn cells(&self) -> impl Iterator<Item = (u32, u16, &Cell)> {
        self.cells.iter().map(|(&(r, c), v)| (r, c, v))
    }

    /// The last row and the last column that hold something.
    pub fn end(&self) -> Option<(u32, u16)> {
        let row = self.cells.keys().map(|k| k.0).max()?;
        let col = self.cells.keys().map(|k| k.1).max()?;
        Some((row, col))
    }

    /// Writes the sheet as an XLSX workbook of one sheet, `Sheet1`, to
    /// `path`, whatever its extension. The message of an error is one line.
    pub fn save_xlsx(&self, path: &Path) -> Result<(), String> {
        super::xlsx::save(self, path)
            .map_err(|e| format!("cannot write the workbook {}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_end() {
        let mut s = Sheet::new();
        assert_eq!(s.end(), None);
        s.label(0, 0, "a").unwrap();
        s.number(3, 2, 1.5).unwrap();
        assert_eq!(s.get(0, 0), Some(&Cell::Text("a".into())));
        assert_eq!(s.get(3, 2), Some(&Cell::Number(1.5)));
        assert_eq!(s.get(1, 1), None);
        assert_eq!(s.end(), Some((3, 2)));
        assert!(s.number(MAX_ROWS, 0, 1.0).unwrap_err().contains("rows"));
        assert!(s.number(0, MAX_COLS, 1.0).unwrap_err().contains("columns"));
    }
}
