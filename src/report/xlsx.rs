//! The XLSX writer of [`Sheet`](super::sheet::Sheet) (feature `xlsx`):
//! rust_xlsxwriter, one worksheet.

use super::sheet::{Cell, Sheet};
use std::path::Path;

/// Whether this build writes workbooks.
pub const AVAILABLE: bool = true;

/// Writes `sheet` to `path` as XLSX.
pub fn save(sheet: &Sheet, path: &Path) -> Result<(), String> {
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet();
    for (row, col, cell) in sheet.cells() {
        match cell {
            Cell::Text(t) => ws.write_string(row, col, t).map(drop),
            Cell::Number(v) => ws.write_number(row, col, *v).map(drop),
        }
        .map_err(|e| e.to_string())?;
    }
    let bytes = wb.save_to_buffer().map_err(|e| e.to_string())?;
    super::export::write_file(path, &bytes).map_err(|e| e.to_string())
}
