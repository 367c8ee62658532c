//! Exporters: one trait, one table ([`EXPORTERS`]), over one document type
//! ([`Document`]): a single result, or a collection of results (several
//! PostMark runs, an IOBENCH spectrum, a survey) with its own schema name.
//!
//! A command writes its document as soon as a run ends, so a later failure
//! never loses an earlier result. Adding a format is one file here, one
//! line of the table, and one flag in `cli/common.rs`.

use super::{Collection, RunResult};
use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

/// What an exporter writes.
#[derive(Clone, Copy, Debug)]
pub enum Document<'a> {
    Run(&'a RunResult),
    Collection(&'a Collection),
}

impl<'a> From<&'a RunResult> for Document<'a> {
    fn from(r: &'a RunResult) -> Self {
        Document::Run(r)
    }
}

impl<'a> From<&'a Collection> for Document<'a> {
    fn from(c: &'a Collection) -> Self {
        Document::Collection(c)
    }
}

impl Document<'_> {
    /// Each run in the document, with its label (empty for a single run).
    pub fn runs(&self) -> Vec<(&str, &RunResult)> {
        match self {
            Document::Run(r) => vec![("", r)],
            Document::Collection(c) => c
                .entries
                .iter()
                .map(|e| (e.name.as_str(), &e.result))
                .collect(),
        }
    }
}

/// Turns a document into bytes.
pub trait Exporter: Sync {
    /// The format's name, also its flag (`--json`, `--csv`).
    fn name(&self) -> &'static str;
    fn serialize(&self, doc: &Document) -> Result<Vec<u8>>;
}

/// Every format iogauge writes.
pub const EXPORTERS: &[&dyn Exporter] = &[
    &Json,
    &Csv,
    &super::fio::exporter::FioText,
    &super::fio::exporter::FioJson,
];

pub fn find(name: &str) -> Option<&'static dyn Exporter> {
    EXPORTERS.iter().copied().find(|e| e.name() == name)
}

/// Write `doc` with `e` to `path` (`-`: stdout), whole (see [`write_file`]).
pub fn write(e: &dyn Exporter, doc: &Document, path: &Path) -> Result<()> {
    if capture(doc)? {
        return Ok(());
    }
    settle_provisional(path);
    let bytes = e.serialize(doc)?;
    emit(path, &bytes, e.name())
}

/// The provisional result: where `--json` goes, and whether the file
/// there is still the provisional document (not yet replaced by a real
/// one). See [`write_provisional`].
#[derive(Debug)]
struct Provisional {
    path: std::path::PathBuf,
    /// Written and not yet replaced.
    pending: bool,
    /// A real document was written: later runs of the command (phases,
    /// series) write no provisional one over it.
    settled: bool,
}

static PROVISIONAL: std::sync::Mutex<Option<Provisional>> = std::sync::Mutex::new(None);

/// What a provisional result says until the real one replaces it.
pub const KILLED_CAUSE: &str = "the run was killed before it ended (SIGKILL, power loss or the out-of-memory killer): no figures";

/// A command that writes `--json path` (not stdout) is about to run: its
/// first run writes a provisional result there before it lays out its files
/// ([`write_provisional`]).
pub fn expect_provisional(path: &Path) {
    if path.as_os_str() == "-" {
        return;
    }
    if let Ok(mut p) = PROVISIONAL.lock() {
        *p = Some(Provisional {
            path: path.to_path_buf(),
            pending: false,
            settled: false,
        });
    }
}

/// Write `result` as a provisional document, `complete: false` with
/// [`KILLED_CAUSE`]: a process killed with SIGKILL runs no code, so the
/// file must say so before the run starts. The real document replaces it
/// (atomically, [`write_file`]) however the run ends, unless the process
/// is killed. Best effort: a provisional file that cannot be written is
/// not an error (the real one will say why).
pub fn write_provisional(result: &RunResult) {
    let Ok(mut guard) = PROVISIONAL.lock() else {
        return;
    };
    let Some(p) = guard.as_mut().filter(|p| !p.settled && !p.pending) else {
        return;
    };
    let mut r = result.clone();
    r.complete = false;
    r.error = Some(KILLED_CAUSE.to_string());
    let Ok(bytes) = Json.serialize(&Document::Run(&r)) else {
        return;
    };
    if write_file(&p.path, &bytes).is_ok() {
        p.pending = true;
    }
}

/// A real document goes to `path`: the provisional one there is replaced.
fn settle_provisional(path: &Path) {
    if let Ok(mut guard) = PROVISIONAL.lock()
        && let Some(p) = guard.as_mut().filter(|p| p.path == path)
    {
        p.pending = false;
        p.settled = true;
    }
}

/// The command has ended: a provisional result nothing replaced (the
/// command was refused after its set-up began) is removed, so that no file
/// claims a run was killed when it was not.
pub fn end_provisional() {
    let Some(p) = PROVISIONAL.lock().ok().and_then(|mut g| g.take()) else {
        return;
    };
    if p.pending {
        let _ = std::fs::remove_file(&p.path);
    }
}

/// Capture mode (`--repeat`): while on, [`write`] keeps the document it is
/// given (the last one, as JSON) instead of writing it, so that one run of
/// a series can be gathered into the series' own document. `None`: off;
/// `Some(None)`: on, nothing written yet.
static CAPTURE: std::sync::Mutex<Option<Option<serde_json::Value>>> = std::sync::Mutex::new(None);

/// Start capturing result documents ([`CAPTURE`]), forgetting any kept.
pub fn capture_begin() {
    if let Ok(mut c) = CAPTURE.lock() {
        *c = Some(None);
    }
}

/// Stop capturing; the last document written since [`capture_begin`].
pub fn capture_end() -> Option<serde_json::Value> {
    CAPTURE.lock().ok().and_then(|mut c| c.take()).flatten()
}

/// Keep `doc` when capturing; whether it was kept (then write nothing).
pub fn capture(doc: &Document) -> Result<bool> {
    let Ok(mut c) = CAPTURE.lock() else {
        return Ok(false);
    };
    let Some(slot) = c.as_mut() else {
        return Ok(false);
    };
    *slot = Some(
        match doc {
            Document::Run(r) => serde_json::to_value(r),
            Document::Collection(c) => serde_json::to_value(c),
        }
        .context("cannot serialise the result")?,
    );
    Ok(true)
}

/// Whether result documents are being captured.
pub fn capturing() -> bool {
    CAPTURE.lock().is_ok_and(|c| c.is_some())
}

/// Whether this process writes no result or figure file: an MPI rank other
/// than 0, whose share rank 0 writes with the job's result.
static MUTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Write no result or figure file from now on ([`MUTED`]).
pub fn mute() {
    MUTED.store(true, std::sync::atomic::Ordering::Relaxed);
}

fn muted() -> bool {
    MUTED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether a result written to stdout is one line of JSON: live status
/// lines (`--status-interval`) share stdout, and every line must be JSON.
static COMPACT_STDOUT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Write results to stdout as one line of JSON from now on
/// ([`COMPACT_STDOUT`]).
pub fn compact_stdout() {
    COMPACT_STDOUT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Write `bytes`, the `what` result, to `path`, or to stdout when `path`
/// is `-`; a file whole (see [`write_file`]).
pub fn emit(path: &Path, bytes: &[u8], what: &str) -> Result<()> {
    if path == Path::new("-") {
        // beside live status lines, the result is one more line of JSON
        let compact;
        let bytes = match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(v) if COMPACT_STDOUT.load(std::sync::atomic::Ordering::Relaxed) => {
                compact = format!("{v}\n");
                compact.as_bytes()
            }
            _ => bytes,
        };
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)
            .and_then(|_| out.flush())
            .with_context(|| format!("cannot write the {what} result to stdout"))?;
        return Ok(());
    }
    write_file(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// Write `bytes` to `path` under a temporary name beside it, then rename:
/// a reader never sees half a file, and a failed write leaves no partial
/// one. Every result, report and figure file iogauge writes goes through
/// here; the caller names the file in its error. A path that is already
/// something other than a plain file (`/dev/null`, a pipe, a symbolic
/// link) is written through, never replaced.
pub fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // an MPI job's result and figures are rank 0's to write
    if muted() {
        return Ok(());
    }
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
        return std::fs::write(path, bytes);
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

/// The canonical form: pretty JSON of the document as it is.
pub struct Json;

impl Exporter for Json {
    fn name(&self) -> &'static str {
        "json"
    }

    fn serialize(&self, doc: &Document) -> Result<Vec<u8>> {
        let mut v = match doc {
            Document::Run(r) => serde_json::to_vec_pretty(r),
            Document::Collection(c) => serde_json::to_vec_pretty(c),
        }
        .context("cannot serialise the result")?;
        v.push(b'\n');
        Ok(v)
    }
}

/// One row per op kind per run. The columns are fixed (see [`CSV_COLUMNS`]),
/// then one `metric.NAME` column per numeric headline metric found in any
/// run of the document, in name order.
pub struct Csv;

/// The fixed columns of the CSV export, in order.
pub const CSV_COLUMNS: &[&str] = &[
    "run",
    "benchmark",
    "started_at",
    "complete",
    "elapsed_s",
    "workers",
    "ops_per_s",
    "read_bytes_per_s",
    "write_bytes_per_s",
    "io_time_fraction",
    "cpu_user_s",
    "cpu_sys_s",
    "op",
    "count",
    "bytes",
    "lat_mean_ns",
    "lat_stddev_ns",
    "lat_min_ns",
    "lat_p50_ns",
    "lat_p90_ns",
    "lat_p95_ns",
    "lat_p99_ns",
    "lat_p999_ns",
    "lat_p9999_ns",
    "lat_max_ns",
    "warnings",
];

/// A CSV field: quoted when it holds a comma, quote or line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

impl Exporter for Csv {
    fn name(&self) -> &'static str {
        "csv"
    }

    fn serialize(&self, doc: &Document) -> Result<Vec<u8>> {
        let runs = doc.runs();
        let mut metrics: Vec<&str> = runs
            .iter()
            .flat_map(|(_, r)| r.metrics.iter())
            .filter(|(_, v)| v.is_number())
            .map(|(k, _)| k.as_str())
            .collect();
        metrics.sort_unstable();
        metrics.dedup();
        let mut out = String::new();
        let header: Vec<String> = CSV_COLUMNS
            .iter()
            .map(|c| c.to_string())
            .chain(metrics.iter().map(|m| format!("metric.{m}")))
            .collect();
        out += &header.join(",");
        out.push('\n');
        for (label, r) in runs {
            let s = &r.summary;
            let head = [
                field(label),
                field(&r.benchmark),
                field(&r.started_at),
                r.complete.to_string(),
                r.elapsed_s.to_string(),
                s.workers.to_string(),
                s.ops_per_s.to_string(),
                s.read_bytes_per_s.to_string(),
                s.write_bytes_per_s.to_string(),
                s.io_time_fraction.to_string(),
                s.cpu_user_s.to_string(),
                s.cpu_sys_s.to_string(),
            ];
            // the run's warning codes, `;` between them
            let warnings = field(
                &r.warnings
                    .iter()
                    .map(|w| w.code.as_str())
                    .collect::<Vec<_>>()
                    .join(";"),
            );
            let tail: Vec<String> = metrics
                .iter()
                .map(|m| {
                    r.metrics
                        .get(*m)
                        .filter(|v| v.is_number())
                        .map(|v| v.to_string())
                        .unwrap_or_default()
                })
                .collect();
            // a run without ops still gets one row, for its headline figures
            let empty = super::OpSummary::default();
            let ops: Vec<(&str, &super::OpSummary)> = if r.ops.is_empty() {
                vec![("", &empty)]
            } else {
                r.ops.iter().map(|(k, v)| (k.as_str(), v)).collect()
            };
            for (op, o) in ops {
                let l = &o.latency_ns;
                let row: Vec<String> = head
                    .iter()
                    .cloned()
                    .chain([
                        field(op),
                        o.count.to_string(),
                        o.bytes.to_string(),
                        l.mean.to_string(),
                        l.stddev.to_string(),
                        l.min.to_string(),
                        l.p50.to_string(),
                        l.p90.to_string(),
                        l.p95.to_string(),
                        l.p99.to_string(),
                        l.p999.to_string(),
                        l.p9999.to_string(),
                        l.max.to_string(),
                        warnings.clone(),
                    ])
                    .chain(tail.iter().cloned())
                    .collect();
                out += &row.join(",");
                out.push('\n');
            }
        }
        Ok(out.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Entry, OpSummary};

    fn run(name: &str, tps: f64) -> RunResult {
        let mut r = RunResult::new(name, serde_json::json!({}), Default::default(), "t".into());
        r.ops.insert(
            "read".into(),
            OpSummary {
                count: 3,
                bytes: 12,
                ..Default::default()
            },
        );
        r.ops.insert("write".into(), OpSummary::default());
        r.metric("transactions_per_s", tps);
        r.metric("note", "text metrics are not columns");
        r
    }

    #[test]
    fn the_table_has_unique_names() {
        let mut n: Vec<_> = EXPORTERS.iter().map(|e| e.name()).collect();
        n.dedup();
        assert_eq!(n.len(), EXPORTERS.len());
        assert!(find("json").is_some() && find("csv").is_some() && find("xml").is_none());
    }

    #[test]
    fn csv_has_a_row_per_op_kind_per_run() {
        let c = Collection::new(
            "iogauge/test/v1",
            vec![
                Entry::new("first, quoted", run("a", 1.5)),
                Entry::new("second", run("b", 2.0)),
            ],
        );
        let text = String::from_utf8(Csv.serialize(&Document::from(&c)).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 4, "{text}");
        let header: Vec<&str> = lines[0].split(',').collect();
        assert_eq!(&header[..CSV_COLUMNS.len()], CSV_COLUMNS);
        assert_eq!(header[CSV_COLUMNS.len()..], ["metric.transactions_per_s"]);
        assert!(lines[1].starts_with("\"first, quoted\",a,"), "{}", lines[1]);
        assert!(lines[1].contains(",read,3,12,"), "{}", lines[1]);
        assert!(
            lines[4].starts_with("second,b,") && lines[4].ends_with(",2.0"),
            "{}",
            lines[4]
        );
    }

    #[test]
    fn json_round_trips() {
        let r = run("a", 1.0);
        let bytes = Json.serialize(&Document::from(&r)).unwrap();
        let back: RunResult = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn files_are_written_whole() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.csv");
        let r = run("a", 1.0);
        write(&Csv, &Document::from(&r), &p).unwrap();
        assert!(
            std::fs::read_to_string(&p)
                .unwrap()
                .starts_with("run,benchmark,")
        );
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    /// A device or a link is written through: `--json /dev/null` must not
    /// replace /dev/null with a file, nor a link with a copy.
    #[test]
    fn what_is_not_a_plain_file_is_written_through() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.json");
        let link = d.path().join("link.json");
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_file(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        write_file(Path::new("/dev/null"), b"x").unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 2);
    }
}
