//! What the queued engines' unit tests share: their options and files of
//! known bytes.

use super::EngineOpts;
use std::path::{Path, PathBuf};

/// Options of a queued engine with `depth` slots of 4 KiB.
pub fn opts(depth: u16, direct: bool) -> EngineOpts {
    EngineOpts {
        depth,
        slots: depth,
        max_len: 4096,
        direct,
        ..Default::default()
    }
}

/// A file named `data` in `dir` that holds `data`.
pub fn file_with(dir: &Path, data: &[u8]) -> PathBuf {
    let path = dir.join("data");
    std::fs::write(&path, data).unwrap();
    path
}
