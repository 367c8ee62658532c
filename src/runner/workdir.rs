//! The work directory guard: every run works inside a directory it made and
//! removes exactly that directory when it ends, however it ends (normal end,
//! error, Ctrl-C: the guard is dropped on every path out of a command).

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

use crate::cli::UsageError;

#[derive(Debug)]
pub struct WorkDir {
    path: PathBuf,
    keep: bool,
}

impl WorkDir {
    /// Make `parent/iogauge-<tag>-<pid>-<n>`. `parent` must be an existing,
    /// writable directory.
    pub fn create(parent: &Path, tag: &str) -> Result<WorkDir> {
        let md = std::fs::metadata(parent)
            .map_err(|e| UsageError::new(format!("--dir {}: {e}", parent.display())))?;
        if !md.is_dir() {
            return Err(
                UsageError::new(format!("--dir {} is not a directory", parent.display())).into(),
            );
        }
        let pid = std::process::id();
        for n in 0..1000 {
            let path = parent.join(format!("iogauge-{tag}-{pid}-{n}"));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(WorkDir { path, keep: false }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                // the user named this directory: any refusal is theirs to fix
                Err(e) => {
                    return Err(UsageError::new(format!(
                        "--dir {} is not writable (cannot create a work directory in it: {e})",
                        parent.display()
                    ))
                    .into());
                }
            }
        }
        anyhow::bail!(
            "cannot find a free work directory name in {}",
            parent.display()
        )
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Leave the directory in place when dropped (for `--keep`).
    pub fn keep(&mut self) {
        self.keep = true;
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.keep {
            return;
        }
        if let Err(e) = std::fs::remove_dir_all(&self.path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            eprintln!("iogauge: could not remove {}: {e}", self.path.display());
        }
    }
}

/// Refuse to start when `dir`'s file system has less than `need` bytes free
/// (with 1 % or 16 MiB of slack, whichever is larger).
pub fn ensure_space(dir: &Path, need: u64) -> Result<()> {
    let free = crate::env::free_bytes(dir)
        .with_context(|| format!("cannot read the free space of {}", dir.display()))?;
    let want = need + (need / 100).max(16 << 20);
    if free < want {
        return Err(UsageError::new(format!(
            "not enough space in {}: the run needs {} and {} is free; use a smaller data size or another --dir",
            dir.display(),
            crate::workload::units::fmt_bytes(want),
            crate::workload::units::fmt_bytes(free)
        ))
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_only_what_it_made() {
        let parent = tempfile::tempdir().unwrap();
        std::fs::write(parent.path().join("theirs"), b"x").unwrap();
        let p = {
            let w = WorkDir::create(parent.path(), "t").unwrap();
            std::fs::write(w.path().join("ours"), b"y").unwrap();
            w.path().to_path_buf()
        };
        assert!(!p.exists());
        assert!(parent.path().join("theirs").exists());
    }

    #[test]
    fn missing_parent_is_a_usage_error() {
        let e = WorkDir::create(Path::new("/nonexistent/x"), "t").unwrap_err();
        assert!(e.downcast_ref::<UsageError>().is_some());
    }

    #[test]
    fn space_check_refuses_the_impossible() {
        let e = ensure_space(Path::new("."), u64::MAX / 4).unwrap_err();
        assert!(e.to_string().contains("not enough space"), "{e}");
        ensure_space(Path::new("."), 1).unwrap();
    }
}
