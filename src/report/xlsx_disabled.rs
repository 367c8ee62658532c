//! Stand-in for the XLSX writer when iogauge is built without the `xlsx`
//! feature: the sheets are still built, saving them says why it cannot.

use super::sheet::Sheet;
use std::path::Path;

/// Whether this build writes workbooks.
pub const AVAILABLE: bool = false;

pub fn save(_sheet: &Sheet, _path: &Path) -> Result<(), String> {
    Err(NOT_COMPILED.into())
}

/// Why there is no workbook.
pub const NOT_COMPILED: &str =
    "the XLSX writer is not compiled in (build iogauge with the 'xlsx' feature, on by default)";
