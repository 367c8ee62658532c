//! The verified path of a worker: a source whose writes are made of
//! checked units and whose reads are checked (`--verify`), journaling what
//! each sync made durable (`--verify-crash`); and the layout's verified
//! files.

use crate::engine::{Completion, Req};
use crate::measure::OpKind;
use crate::runner::{self, Source};
use crate::verify::Pattern;
use crate::verify::crash::Journal;
use crate::verify::track::{Geometry, Tracker};
use std::path::Path;

/// A source whose writes are made of checked units and whose reads are
/// checked: `inner`'s requests, with `tracker` filling and checking them.
/// Under `--verify-crash` it also journals what each sync made durable.
pub struct CheckedSource<'a, S> {
    pub inner: &'a mut S,
    pub tracker: &'a mut Tracker,
    /// `--verify-crash`: the worker's journal, and the unit.
    pub journal: Option<&'a mut (Journal, u64)>,
}

/// After a sync completed (`c`), record durably what it covered
/// (`--verify-crash`).
pub(crate) fn journal_sync(
    tracker: &mut Tracker,
    journal: Option<&mut (Journal, u64)>,
    c: &Completion,
) -> anyhow::Result<()> {
    if let Some((j, unit)) = journal
        && c.req.kind == OpKind::Fsync
    {
        let units = tracker
            .take_durable()
            .into_iter()
            .map(|d| (d.file, d.offset, d.lo, d.hi))
            .collect();
        j.append(&crate::verify::crash::ranges(*unit, units))?;
    }
    Ok(())
}

impl<S: Source> Source for CheckedSource<'_, S> {
    const FILLS: bool = true;
    const CHECKS: bool = true;

    #[inline(always)]
    fn next(&mut self) -> Option<Req> {
        self.inner.next()
    }

    #[inline(always)]
    fn owed(&mut self) -> Option<Req> {
        self.inner.owed()
    }

    #[inline]
    fn fill(&mut self, req: &Req, buf: &mut [u8]) {
        self.tracker.fill(req, buf);
    }

    #[inline]
    fn done(&mut self, c: &Completion) -> anyhow::Result<()> {
        self.tracker.done(c);
        journal_sync(self.tracker, self.journal.as_deref_mut(), c)?;
        self.inner.done(c)
    }

    #[inline]
    fn check(&mut self, c: &Completion, buf: &[u8]) -> anyhow::Result<()> {
        self.tracker.check(c, buf)
    }
}

/// Write a new file of `geo.file_size` bytes, every unit generation 0 of
/// the worker that owns it, and sync it (untimed). `None` when Ctrl-C
/// arrived meanwhile.
pub fn write_file(
    path: &Path,
    file: u64,
    geo: &Geometry,
    pattern: &Pattern,
) -> anyhow::Result<Option<std::fs::File>> {
    use anyhow::Context;
    use std::io::Write;
    let unit = geo.unit as usize;
    let chunk = unit * ((1usize << 20) / unit).max(1);
    let mut buf = vec![0u8; chunk];
    let mut f =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut at = 0u64;
    while at < geo.file_size {
        if runner::signals::interrupted() {
            return Ok(None);
        }
        let n = (geo.file_size - at).min(chunk as u64) as usize;
        for (k, u) in buf[..n].chunks_exact_mut(unit).enumerate() {
            let offset = at + (k * unit) as u64;
            pattern.write_units(u, file, offset, geo.owner(offset), |_| 0);
        }
        f.write_all(&buf[..n])
            .with_context(|| format!("cannot write {}", path.display()))?;
        at += n as u64;
    }
    f.sync_all()
        .with_context(|| format!("cannot fsync {}", path.display()))?;
    Ok(Some(f))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_runner_leaves_kept_directories_by_these_names() {
        // runner::workdir cannot import the verify module; it lists the names
        let names = [crate::verify::track::MANIFEST, crate::verify::crash::HEAD];
        assert_eq!(names, crate::runner::workdir::KEPT);
    }
}
