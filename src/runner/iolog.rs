//! fio's per-I/O logs (`write_lat_log`, `write_bw_log`, `write_iops_log`,
//! `log_avg_msec`), in fio's own text format so that fio's tools
//! (`tools/fiologparser.py`, `fio_generate_plots`) and fio-plot read them.
//!
//! A worker whose [`crate::runner::Worker::io_log`] gives a [`LogSpec`]
//! gets an [`IoLog`] that the runner feeds at every recorded completion of
//! a data request (read, write, trim) of the measured phase: the ramp is
//! not logged, as fio's logs start after `ramp_time`. Everything stays in
//! memory until the run is over; the files are written after it, untimed
//! ([`write`]).
//!
//! Each line is, as fio 3.33 writes it by default:
//!
//! ```text
//! time (ms), value, data direction, block size (B), [offset (B),] priority
//! ```
//!
//! with the offset only under `log_offset` and a priority of 0 (iogauge
//! sets no I/O priority). Time runs from the end of the ramp. The value
//! is, per log:
//!
//! | log  | one line per I/O (`log_avg_msec=0`)      | per window (`log_avg_msec=N`)          |
//! |------|------------------------------------------|----------------------------------------|
//! | lat  | issue to completion, ns                  | mean (or max) of the window's, ns      |
//! | clat | lat minus slat, ns                       | mean (or max), ns                      |
//! | slat | issue to the kernel's acceptance, ns     | mean (or max), ns                      |
//! | bw   | bytes × 10⁶ / clat (fio's formula)       | bytes of the window / its length, KiB/s|
//! | iops | 1                                        | I/Os of the window / its length, per s |
//!
//! Windows are `[k·N, (k+1)·N)` ms of the measured phase; a line per data
//! direction that completed an I/O in the window, stamped with the window's
//! end, block size and offset 0. The last window, cut short by the end of
//! the run, is stamped with the end and its rates are over its own length.
//! A synchronous engine has no submission latency: its slat log is empty,
//! as fio's is.

use crate::engine::{Completion, SUB_NONE};
use crate::measure::OpKind;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Which logs one worker writes, fio's options by their names. The files
/// are `PREFIX_lat.N.log`, `PREFIX_clat.N.log`, `PREFIX_slat.N.log` (from
/// `lat`), `PREFIX_bw.N.log` and `PREFIX_iops.N.log`; without `per_job`,
/// `PREFIX_lat.log` and so on, shared by every job that names the prefix.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogSpec {
    /// `write_lat_log`: the prefix of the lat, clat and slat logs.
    pub lat: Option<PathBuf>,
    /// `write_bw_log`: the prefix of the bandwidth log.
    pub bw: Option<PathBuf>,
    /// `write_iops_log`: the prefix of the IOPS log.
    pub iops: Option<PathBuf>,
    /// `log_avg_msec`: 0 for a line per I/O, else the window in ms.
    pub avg_msec: u64,
    /// `log_max_value`: a window's maximum instead of its mean (latency
    /// logs; a window's rate is one value).
    pub max_value: bool,
    /// `log_offset`: each line holds the request's offset too.
    pub offset: bool,
    /// `per_job_logs`: the job's number is in the file names (fio's
    /// default).
    pub per_job: bool,
    /// The job's number `N` in the file names, from 1 (fio's
    /// `thread_number`).
    pub job_no: u32,
}

/// One of fio's logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogKind {
    Lat,
    Clat,
    Slat,
    Bw,
    Iops,
}

impl LogKind {
    pub const ALL: [LogKind; 5] = [
        LogKind::Lat,
        LogKind::Clat,
        LogKind::Slat,
        LogKind::Bw,
        LogKind::Iops,
    ];

    /// fio's name for it, as in the file name.
    pub fn name(self) -> &'static str {
        match self {
            LogKind::Lat => "lat",
            LogKind::Clat => "clat",
            LogKind::Slat => "slat",
            LogKind::Bw => "bw",
            LogKind::Iops => "iops",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl LogSpec {
    /// A spec asking for the logs of `lat`, `bw` and `iops` (prefixes),
    /// with fio's defaults otherwise, for job 1.
    pub fn new(lat: Option<PathBuf>, bw: Option<PathBuf>, iops: Option<PathBuf>) -> LogSpec {
        LogSpec {
            lat,
            bw,
            iops,
            avg_msec: 0,
            max_value: false,
            offset: false,
            per_job: true,
            job_no: 1,
        }
    }

    /// Whether any log is asked for.
    pub fn any(&self) -> bool {
        self.lat.is_some() || self.bw.is_some() || self.iops.is_some()
    }

    /// The same logs, for job `job_no`.
    pub fn for_job(&self, job_no: u32) -> LogSpec {
        LogSpec {
            job_no,
            ..self.clone()
        }
    }

    /// The prefix of log `kind`, if it is asked for.
    fn prefix(&self, kind: LogKind) -> Option<&Path> {
        match kind {
            LogKind::Lat | LogKind::Clat | LogKind::Slat => self.lat.as_deref(),
            LogKind::Bw => self.bw.as_deref(),
            LogKind::Iops => self.iops.as_deref(),
        }
    }

    /// The file of log `kind` as fio names it: `PREFIX_kind.N.log`, or
    /// `PREFIX_kind.log` without `per_job`.
    pub fn path(&self, kind: LogKind) -> Option<PathBuf> {
        let p = self.prefix(kind)?;
        let mut name = p.as_os_str().to_owned();
        if self.per_job {
            name.push(format!("_{}.{}.log", kind.name(), self.job_no));
        } else {
            name.push(format!("_{}.log", kind.name()));
        }
        Some(PathBuf::from(name))
    }

    /// Every file this spec writes, with its log.
    pub fn files(&self) -> Vec<(LogKind, PathBuf)> {
        LogKind::ALL
            .iter()
            .filter_map(|&k| self.path(k).map(|p| (k, p)))
            .collect()
    }
}

/// fio's data direction of an op kind: 0 read, 1 write, 2 trim; `None`
/// for what fio does not log (syncs, metadata).
#[inline(always)]
fn ddir(kind: OpKind) -> Option<u8> {
    match kind {
        OpKind::Read => Some(0),
        OpKind::Write => Some(1),
        OpKind::Trim => Some(2),
        _ => None,
    }
}

/// One data request as logged (one line per I/O).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rec {
    /// Completion, ns after the start of measurement.
    at_ns: u64,
    lat_ns: u64,
    /// [`SUB_NONE`] when the engine does not see the submission.
    sub_ns: u64,
    offset: u64,
    bytes: u32,
    ddir: u8,
}

impl Rec {
    fn clat_ns(&self) -> u64 {
        if self.sub_ns == SUB_NONE {
            self.lat_ns
        } else {
            self.lat_ns.saturating_sub(self.sub_ns)
        }
    }
}

/// One line of a log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    pub ms: u64,
    pub value: u64,
    pub ddir: u8,
    pub bs: u64,
    pub offset: u64,
}

impl Line {
    /// The line as fio 3.33 prints it (`log_prio` off: the priority is
    /// whether it is real-time, 0 here), with the offset under
    /// `log_offset`.
    pub fn format(&self, offset: bool, out: &mut impl Write) -> std::io::Result<()> {
        if offset {
            writeln!(
                out,
                "{}, {}, {}, {}, {}, 0",
                self.ms, self.value, self.ddir, self.bs, self.offset
            )
        } else {
            writeln!(
                out,
                "{}, {}, {}, {}, 0",
                self.ms, self.value, self.ddir, self.bs
            )
        }
    }
}

/// A latency's sum, count and maximum over a window.
#[derive(Clone, Copy, Debug, Default)]
struct Sum {
    n: u64,
    sum: u128,
    max: u64,
}

impl Sum {
    #[inline(always)]
    fn add(&mut self, v: u64) {
        self.n += 1;
        self.sum += u128::from(v);
        self.max = self.max.max(v);
    }

    /// The mean rounded half up (fio adds 0.5 and truncates), or the max.
    fn value(&self, max: bool) -> Option<u64> {
        match self.n {
            0 => None,
            _ if max => Some(self.max),
            n => Some(((self.sum + u128::from(n) / 2) / u128::from(n)) as u64),
        }
    }
}

/// One data direction's I/O in the current window.
#[derive(Clone, Copy, Debug, Default)]
struct Acc {
    n: u64,
    bytes: u64,
    lat: Sum,
    clat: Sum,
    slat: Sum,
}

/// The windowed logs (`log_avg_msec` > 0): what the current window holds,
/// and the lines of the windows closed.
#[derive(Debug)]
struct Windows {
    width_ns: u64,
    /// The current window's number (`k` of `[k·width, (k+1)·width)`).
    index: u64,
    acc: [Acc; 3],
    lines: [Vec<Line>; 5],
}

impl Windows {
    fn new(avg_msec: u64) -> Windows {
        Windows {
            width_ns: avg_msec.saturating_mul(1_000_000),
            index: 0,
            acc: [Acc::default(); 3],
            lines: Default::default(),
        }
    }

    #[inline]
    fn add(&mut self, r: &Rec, max: bool) {
        let w = r.at_ns / self.width_ns;
        if w > self.index {
            let end = self.index.saturating_add(1).saturating_mul(self.width_ns);
            self.close(end, self.width_ns, max);
            self.index = w;
        }
        let a = &mut self.acc[usize::from(r.ddir)];
        a.n += 1;
        a.bytes += u64::from(r.bytes);
        a.lat.add(r.lat_ns);
        a.clat.add(r.clat_ns());
        if r.sub_ns != SUB_NONE {
            a.slat.add(r.sub_ns);
        }
    }

    /// Close the current window, which ended at `end_ns` and lasted
    /// `len_ns`: a line per direction that did I/O in it, in each log.
    fn close(&mut self, end_ns: u64, len_ns: u64, max: bool) {
        let ms = end_ns / 1_000_000;
        for (d, a) in self.acc.iter_mut().enumerate() {
            if a.n == 0 {
                continue;
            }
            let line = |value| Line {
                ms,
                value,
                ddir: d as u8,
                bs: 0,
                offset: 0,
            };
            for (k, s) in [
                (LogKind::Lat, a.lat),
                (LogKind::Clat, a.clat),
                (LogKind::Slat, a.slat),
            ] {
                if let Some(v) = s.value(max) {
                    self.lines[k.index()].push(line(v));
                }
            }
            if len_ns > 0 {
                let per_s = |x: u64| (u128::from(x) * 1_000_000_000 / u128::from(len_ns)) as u64;
                let kib =
                    (u128::from(a.bytes) * 1_000_000_000 / (u128::from(len_ns) * 1024)) as u64;
                self.lines[LogKind::Bw.index()].push(line(kib));
                self.lines[LogKind::Iops.index()].push(line(per_s(a.n)));
            }
            *a = Acc::default();
        }
    }

    /// The run ended `end_ns` after the start of measurement: close the
    /// window under way, whole or cut short.
    fn finish(&mut self, end_ns: u64, max: bool) {
        let start = self.index.saturating_mul(self.width_ns);
        let full = start.saturating_add(self.width_ns);
        if end_ns >= full {
            self.close(full, self.width_ns, max);
        } else {
            self.close(end_ns.max(start), end_ns.saturating_sub(start), max);
        }
    }
}

/// Records, in chunks that are never moved once made: growing costs an
/// allocation, never a copy of what is there.
const CHUNK: usize = 1 << 16;

/// One worker's logs while it runs: its requests (one line per I/O), or
/// its windows' lines so far (`log_avg_msec`).
#[derive(Debug)]
pub struct IoLog {
    spec: LogSpec,
    recs: Vec<Vec<Rec>>,
    windows: Option<Box<Windows>>,
    /// When the worker's measured phase ended (ns after its start), once
    /// finished.
    end_ns: Option<u64>,
}

impl IoLog {
    /// The logs of `spec`, room made for `expect` requests (at most a
    /// chunk) so that the first ones do not allocate.
    pub fn new(spec: LogSpec, expect: u64) -> IoLog {
        let windows = (spec.avg_msec > 0).then(|| Box::new(Windows::new(spec.avg_msec)));
        let recs = if windows.is_none() {
            vec![Vec::with_capacity(expect.clamp(1, CHUNK as u64) as usize)]
        } else {
            Vec::new()
        };
        IoLog {
            spec,
            recs,
            windows,
            end_ns: None,
        }
    }

    pub fn spec(&self) -> &LogSpec {
        &self.spec
    }

    /// A completion `at_ns` after the start of measurement, `n` requests
    /// alike (each logged).
    #[inline]
    pub fn record(&mut self, c: &Completion, n: u64, at_ns: u64) {
        let Some(ddir) = ddir(c.req.kind) else {
            return;
        };
        let r = Rec {
            at_ns,
            lat_ns: c.lat_ns,
            sub_ns: c.sub_ns,
            offset: c.req.offset,
            bytes: u32::try_from(c.bytes).unwrap_or(u32::MAX),
            ddir,
        };
        for _ in 0..n {
            self.push(r);
        }
    }

    #[inline]
    fn push(&mut self, r: Rec) {
        if let Some(w) = &mut self.windows {
            w.add(&r, self.spec.max_value);
            return;
        }
        match self.recs.last_mut() {
            Some(v) if v.len() < v.capacity() => v.push(r),
            _ => self.grow(r),
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, r: Rec) {
        let mut v = Vec::with_capacity(CHUNK);
        v.push(r);
        self.recs.push(v);
    }

    /// The worker's measured phase ended `end_ns` after its start (`None`:
    /// it never left the ramp): close the last window.
    pub fn finish(&mut self, end_ns: Option<u64>) {
        if self.end_ns.is_some() {
            return;
        }
        let end = end_ns.unwrap_or(0);
        if let Some(w) = &mut self.windows
            && end_ns.is_some()
        {
            w.finish(end, self.spec.max_value);
        }
        self.end_ns = Some(end);
    }

    /// Requests logged one by one (0 with windows).
    pub fn requests(&self) -> usize {
        self.recs.iter().map(Vec::len).sum()
    }

    /// The lines of log `kind`, in the order they are written.
    pub fn lines(&self, kind: LogKind) -> Vec<Line> {
        if let Some(w) = &self.windows {
            return w.lines[kind.index()].clone();
        }
        let mut out = Vec::with_capacity(self.requests());
        for r in self.recs.iter().flatten() {
            let value = match kind {
                LogKind::Lat => r.lat_ns,
                LogKind::Clat => r.clat_ns(),
                LogKind::Slat if r.sub_ns == SUB_NONE => continue,
                LogKind::Slat => r.sub_ns,
                // fio's per-I/O "bandwidth": bytes × 10⁶ / clat ns, 0
                // for an I/O that took no time
                LogKind::Bw => match r.clat_ns() {
                    0 => 0,
                    ns => (u128::from(r.bytes) * 1_000_000 / u128::from(ns)) as u64,
                },
                LogKind::Iops => 1,
            };
            out.push(Line {
                ms: r.at_ns / 1_000_000,
                value,
                ddir: r.ddir,
                bs: u64::from(r.bytes),
                offset: r.offset,
            });
        }
        out
    }

    /// Write log `kind` to `out`; the number of lines.
    pub fn write_to(&self, kind: LogKind, out: &mut impl Write) -> std::io::Result<u64> {
        let lines = self.lines(kind);
        for l in &lines {
            l.format(self.spec.offset, out)?;
        }
        Ok(lines.len() as u64)
    }
}

/// A log file written (kept in the measurement layer, which the result
/// documents read).
pub use crate::measure::IoLogFile as Written;

/// Write every file of `logs`, each job's in turn: a file shared by
/// several jobs (no `per_job`) holds each job's lines one job after the
/// other, in the order of `logs`. Files are made anew.
pub fn write(logs: &[IoLog]) -> Result<Vec<Written>> {
    let mut files: Vec<(PathBuf, LogKind, Vec<&IoLog>)> = Vec::new();
    for l in logs {
        for (kind, path) in l.spec.files() {
            match files.iter_mut().find(|(p, _, _)| *p == path) {
                Some((_, _, v)) => v.push(l),
                None => files.push((path, kind, vec![l])),
            }
        }
    }
    let mut out = Vec::with_capacity(files.len());
    for (path, kind, jobs) in files {
        let f = std::fs::File::create(&path)
            .with_context(|| format!("cannot create the log {}", path.display()))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
        let mut lines = 0;
        for l in jobs {
            lines += l
                .write_to(kind, &mut w)
                .with_context(|| format!("cannot write the log {}", path.display()))?;
        }
        w.flush()
            .with_context(|| format!("cannot write the log {}", path.display()))?;
        out.push(Written {
            path: path.display().to_string(),
            log: kind.name().to_string(),
            lines,
        });
    }
    Ok(out)
}

/// The logs asked for every worker of every run from now on (`iogauge
/// run`'s flags): worker `i` writes job `job_no + i`'s files.
static PLAN: Mutex<Option<LogSpec>> = Mutex::new(None);
/// The logs of the workers that finished, to be written.
static DONE: Mutex<Vec<IoLog>> = Mutex::new(Vec::new());

/// Have every worker of every run from now on keep the logs of `spec`
/// (worker `i` as job `spec.job_no + i`), unless its
/// [`crate::runner::Worker::io_log`] says otherwise.
pub fn enable(spec: LogSpec) {
    *PLAN.lock().unwrap_or_else(|p| p.into_inner()) = spec.any().then_some(spec);
}

/// The logs [`enable`] asked of worker `index`, if any.
pub fn planned(index: usize) -> Option<LogSpec> {
    let plan = PLAN.lock().unwrap_or_else(|p| p.into_inner());
    let s = plan.as_ref()?;
    let n = u32::try_from(index).unwrap_or(u32::MAX);
    Some(s.for_job(s.job_no.saturating_add(n)))
}

/// Keep a worker's finished logs until [`take`].
pub(crate) fn keep(log: IoLog) {
    DONE.lock().unwrap_or_else(|p| p.into_inner()).push(log);
}

/// The logs of the workers that finished since the last call, by job
/// number.
pub fn take() -> Vec<IoLog> {
    let mut v = std::mem::take(&mut *DONE.lock().unwrap_or_else(|p| p.into_inner()));
    v.sort_by_key(|l| l.spec.job_no);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{FileId, Req};

    fn comp(kind: OpKind, offset: u64, len: u32, lat: u64, sub: u64) -> Completion {
        Completion {
            req: Req {
                kind,
                file: FileId(0),
                offset,
                len,
                slot: 0,
            },
            bytes: u64::from(len),
            lat_ns: lat,
            done_ns: 0,
            sub_ns: sub,
            err: 0,
        }
    }

    fn text(log: &IoLog, kind: LogKind) -> String {
        let mut v = Vec::new();
        log.write_to(kind, &mut v).unwrap();
        String::from_utf8(v).unwrap()
    }

    fn spec(avg: u64) -> LogSpec {
        LogSpec {
            avg_msec: avg,
            ..LogSpec::new(Some("a".into()), Some("b".into()), Some("c".into()))
        }
    }

    #[test]
    fn file_names_are_fios() {
        let s = LogSpec::new(Some("x/p".into()), None, Some("q".into())).for_job(3);
        let names: Vec<String> = s
            .files()
            .into_iter()
            .map(|(k, p)| format!("{}={}", k.name(), p.display()))
            .collect();
        assert_eq!(
            names,
            [
                "lat=x/p_lat.3.log",
                "clat=x/p_clat.3.log",
                "slat=x/p_slat.3.log",
                "iops=q_iops.3.log"
            ]
        );
        let shared = LogSpec {
            per_job: false,
            ..s
        };
        assert_eq!(shared.path(LogKind::Iops).unwrap(), Path::new("q_iops.log"));
        assert_eq!(shared.path(LogKind::Bw), None);
    }

    #[test]
    fn lines_are_formatted_as_fio_3_33_writes_them() {
        let l = Line {
            ms: 12,
            value: 3456,
            ddir: 1,
            bs: 4096,
            offset: 8192,
        };
        let mut v = Vec::new();
        l.format(false, &mut v).unwrap();
        l.format(true, &mut v).unwrap();
        assert_eq!(
            String::from_utf8(v).unwrap(),
            "12, 3456, 1, 4096, 0\n12, 3456, 1, 4096, 8192, 0\n"
        );
    }

    #[test]
    fn one_line_per_io_with_each_logs_value() {
        let mut log = IoLog::new(spec(0), 4);
        // a read at 1.5 ms: 20 µs in all, 5 µs to submit
        log.record(&comp(OpKind::Read, 4096, 4096, 20_000, 5_000), 1, 1_500_000);
        // a write at 2.9 ms, synchronous: no submission time
        log.record(
            &comp(OpKind::Write, 0, 8192, 1_000_000, SUB_NONE),
            1,
            2_900_000,
        );
        // syncs and metadata are not logged
        log.record(&comp(OpKind::Fsync, 0, 0, 7, SUB_NONE), 1, 3_000_000);
        // a trim, twice alike
        log.record(&comp(OpKind::Trim, 65536, 512, 3, 1), 2, 3_000_000);
        log.finish(Some(3_100_000));
        assert_eq!(
            text(&log, LogKind::Lat),
            "1, 20000, 0, 4096, 0\n2, 1000000, 1, 8192, 0\n3, 3, 2, 512, 0\n3, 3, 2, 512, 0\n"
        );
        assert_eq!(
            text(&log, LogKind::Clat),
            "1, 15000, 0, 4096, 0\n2, 1000000, 1, 8192, 0\n3, 2, 2, 512, 0\n3, 2, 2, 512, 0\n"
        );
        assert_eq!(
            text(&log, LogKind::Slat),
            "1, 5000, 0, 4096, 0\n3, 1, 2, 512, 0\n3, 1, 2, 512, 0\n"
        );
        // 4096 B in 15 µs: 4096e6/15000 = 273066; 8192e6/1e6 = 8192
        assert_eq!(
            text(&log, LogKind::Bw),
            "1, 273066, 0, 4096, 0\n2, 8192, 1, 8192, 0\n3, 256000000, 2, 512, 0\n3, 256000000, 2, 512, 0\n"
        );
        assert_eq!(
            text(&log, LogKind::Iops),
            "1, 1, 0, 4096, 0\n2, 1, 1, 8192, 0\n3, 1, 2, 512, 0\n3, 1, 2, 512, 0\n"
        );
        let with_offset = IoLog {
            spec: LogSpec {
                offset: true,
                ..spec(0)
            },
            ..log
        };
        assert!(text(&with_offset, LogKind::Lat).starts_with(
            "1, 20000, 0, 4096, 4096, 0\n2, 1000000, 1, 8192, 0, 0\n3, 3, 2, 512, 65536, 0\n"
        ));
    }

    #[test]
    fn windows_hold_means_and_rates_per_direction() {
        let mut log = IoLog::new(spec(100), 0);
        let r = |lat| comp(OpKind::Read, 0, 4096, lat, SUB_NONE);
        let w = |lat| comp(OpKind::Write, 0, 1024, lat, 10);
        // window [0, 100 ms): reads of 10 and 21 µs (mean 15.5 → 16), a write
        log.record(&r(10_000), 1, 1_000_000);
        log.record(&w(300), 1, 50_000_000);
        log.record(&r(21_000), 1, 99_999_999);
        // [100, 200): nothing; [200, 300): one read
        log.record(&r(5_000), 1, 250_000_000);
        // the run ends at 340 ms: [300, 340) holds two writes
        log.record(&w(100), 1, 310_000_000);
        log.record(&w(201), 1, 330_000_000);
        log.finish(Some(340_000_000));
        assert_eq!(
            text(&log, LogKind::Lat),
            "100, 15500, 0, 0, 0\n100, 300, 1, 0, 0\n300, 5000, 0, 0, 0\n340, 151, 1, 0, 0\n"
        );
        assert_eq!(
            text(&log, LogKind::Slat),
            "100, 10, 1, 0, 0\n340, 10, 1, 0, 0\n"
        );
        assert_eq!(
            text(&log, LogKind::Clat),
            "100, 15500, 0, 0, 0\n100, 290, 1, 0, 0\n300, 5000, 0, 0, 0\n340, 141, 1, 0, 0\n"
        );
        // 8 KiB in 0.1 s = 80 KiB/s; 1 KiB: 10; 4 KiB: 40; 2 KiB in 40 ms: 50
        assert_eq!(
            text(&log, LogKind::Bw),
            "100, 80, 0, 0, 0\n100, 10, 1, 0, 0\n300, 40, 0, 0, 0\n340, 50, 1, 0, 0\n"
        );
        assert_eq!(
            text(&log, LogKind::Iops),
            "100, 20, 0, 0, 0\n100, 10, 1, 0, 0\n300, 10, 0, 0, 0\n340, 50, 1, 0, 0\n"
        );
        assert_eq!(log.requests(), 0, "windows keep no request");
    }

    #[test]
    fn the_mean_rounds_half_up_and_max_value_takes_the_max() {
        let mut s = Sum::default();
        for v in [1, 2] {
            s.add(v);
        }
        assert_eq!(s.value(false), Some(2)); // 1.5 → 2, as fio's + 0.5
        s.add(2);
        assert_eq!(s.value(false), Some(2)); // 1.67 → 2
        assert_eq!(s.value(true), Some(2));
        assert_eq!(Sum::default().value(false), None);
        let mut log = IoLog::new(
            LogSpec {
                max_value: true,
                ..spec(10)
            },
            0,
        );
        for lat in [5, 50, 7] {
            log.record(&comp(OpKind::Read, 0, 512, lat, SUB_NONE), 1, 1_000_000);
        }
        log.finish(Some(10_000_000));
        assert_eq!(text(&log, LogKind::Lat), "10, 50, 0, 0, 0\n");
    }

    #[test]
    fn a_run_that_ends_on_a_window_boundary_adds_no_empty_window() {
        let mut log = IoLog::new(spec(100), 0);
        log.record(&comp(OpKind::Read, 0, 1024, 1, SUB_NONE), 1, 99_000_000);
        log.finish(Some(250_000_000));
        assert_eq!(text(&log, LogKind::Iops), "100, 10, 0, 0, 0\n");
        // a run that never left its ramp logs nothing
        let mut none = IoLog::new(spec(100), 0);
        none.finish(None);
        assert_eq!(text(&none, LogKind::Lat), "");
    }

    #[test]
    fn records_past_a_chunk_are_all_kept_in_order() {
        let mut log = IoLog::new(spec(0), 10);
        let n = CHUNK as u64 + 20;
        for i in 0..n {
            log.record(&comp(OpKind::Read, i, 512, i, SUB_NONE), 1, i * 1000);
        }
        assert_eq!(log.requests() as u64, n);
        let lines = log.lines(LogKind::Lat);
        assert!(lines.iter().enumerate().all(|(i, l)| l.value == i as u64));
    }

    #[test]
    fn shared_files_hold_each_job_in_turn() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("j");
        let s = LogSpec {
            per_job: false,
            ..LogSpec::new(None, None, Some(prefix.clone()))
        };
        let mut a = IoLog::new(s.for_job(1), 1);
        a.record(&comp(OpKind::Read, 0, 512, 1, SUB_NONE), 1, 0);
        let mut b = IoLog::new(s.for_job(2), 1);
        b.record(&comp(OpKind::Write, 0, 512, 1, SUB_NONE), 1, 1_000_000);
        let w = write(&[a, b]).unwrap();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].lines, 2);
        assert_eq!(w[0].log, "iops");
        let text = std::fs::read_to_string(dir.path().join("j_iops.log")).unwrap();
        assert_eq!(text, "0, 1, 0, 512, 0\n1, 1, 1, 512, 0\n");
    }
}
