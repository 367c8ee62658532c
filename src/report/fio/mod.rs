//! fio's output: its normal text report and its JSON (`--output-format=json`
//! and `json+`), from what iogauge measured.
//!
//! One [`FioJobReport`] holds what fio prints for a job (or a reporting
//! group with `group_reporting`): per direction the bytes, I/O count,
//! runtime, latencies (slat, clat, lat) with their histograms, and the
//! bandwidth and IOPS samples; CPU, queue depths and the error. It is built
//! from a runner's [`Outcome`] ([`FioJobReport::from_stats`]) or from a
//! result document already written ([`FioJobReport::from_result`]);
//! [`text::render`] and [`json::render`] lay out a list of them as fio does,
//! group summaries included.
//!
//! Nothing here makes up a figure: what iogauge does not measure keeps the
//! value fio itself gives a figure it did not collect (0, N=0, no
//! percentiles), and docs/fio-output.md lists each such key.

pub mod disk;
pub mod exporter;
pub mod json;
pub mod num;
pub mod steady;
pub mod terse;
pub mod text;

use crate::measure::{KindStats, OpKind, Outcome, WorkerStats, depth::Depths};
use crate::report::{LatencySummary, OpSummary, RunResult};
use hdrhistogram::Histogram;

/// fio's default `percentile_list`.
pub const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// How fio's report options shape a job's report (fio's `percentile_list`,
/// `clat_percentiles`, `lat_percentiles`, `slat_percentiles`,
/// `unified_rw_reporting`, `disable_lat`/`disable_clat`/`disable_slat`,
/// `stats`, `significant_figures`, `bwavgtime`, `iopsavgtime` and
/// `unit_base`). The default is fio's.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportOpts {
    /// The percentiles shown, sorted (at most 20; empty: none).
    pub percentiles: Vec<f64>,
    /// Digits after the point of each percentile's name in the text.
    pub precision: usize,
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    pub slat_percentiles: bool,
    pub unified: Unified,
    pub disable_lat: bool,
    pub disable_clat: bool,
    pub disable_slat: bool,
    /// `stats=0`: the job's figures are not kept at all.
    pub stats: bool,
    /// Significant figures of the normal output's sizes, rates and IOPS.
    pub sig_figs: usize,
    /// Bandwidth and IOPS sampling periods, ms (multiples of 1000: the
    /// runner's series counts whole seconds).
    pub bw_avg_ms: u64,
    pub iops_avg_ms: u64,
    /// Rates in bits rather than bytes (`unit_base=1`).
    pub bits: bool,
}

/// fio's `unified_rw_reporting`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unified {
    /// Each direction on its own (`none`, `0`).
    #[default]
    Split,
    /// The directions summed into one, `mixed` (`mixed`, `1`).
    Mixed,
    /// Each direction, then the sum (`both`).
    Both,
}

impl Default for ReportOpts {
    fn default() -> Self {
        ReportOpts {
            percentiles: PERCENTILES.to_vec(),
            precision: 2,
            clat_percentiles: true,
            lat_percentiles: false,
            slat_percentiles: false,
            unified: Unified::Split,
            disable_lat: false,
            disable_clat: false,
            disable_slat: false,
            stats: true,
            sig_figs: 4,
            bw_avg_ms: 1000,
            iops_avg_ms: 1000,
            bits: false,
        }
    }
}

/// Latency figures as fio keeps them (`struct io_stat`): min, max, mean,
/// and the *sample* standard deviation (n − 1, as fio's `calc_lat`), in ns;
/// with the histogram when iogauge kept one.
#[derive(Clone, Debug, Default)]
pub struct LatStat {
    pub n: u64,
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    /// Every sample (HDR, 3 significant digits), for percentiles.
    pub hist: Option<Histogram<u64>>,
    /// Percentiles given rather than computed from `hist` (a report read
    /// back from fio's own JSON).
    pub given_percentiles: Option<Vec<(f64, u64)>>,
}

/// Sample standard deviation from a population one over `n` samples.
fn sample_sd(pop: f64, n: u64) -> f64 {
    if n < 2 {
        0.0
    } else {
        pop * (n as f64 / (n as f64 - 1.0)).sqrt()
    }
}

impl LatStat {
    pub fn of_kind(k: &KindStats) -> LatStat {
        let s = k.summary();
        LatStat {
            n: k.count,
            min: s.min,
            max: s.max,
            mean: s.mean,
            stddev: sample_sd(s.stddev, k.count),
            hist: (k.count > 0).then(|| k.hist.clone()),
            given_percentiles: None,
        }
    }

    fn of_summary(n: u64, s: &LatencySummary, hist: Option<Histogram<u64>>) -> LatStat {
        LatStat {
            n,
            min: s.min,
            max: s.max,
            mean: s.mean,
            stddev: sample_sd(s.stddev, n),
            hist,
            given_percentiles: None,
        }
    }

    /// The `p`th percentile (0–100) from the histogram, bounded by the
    /// exact min and max; `None` without a histogram or samples.
    pub fn percentile(&self, p: f64) -> Option<u64> {
        let h = self.hist.as_ref().filter(|_| self.n > 0)?;
        let v = h.value_at_quantile(p / 100.0);
        Some(v.clamp(self.min.min(self.max), self.max))
    }

    /// fio's default percentiles, or nothing without a histogram.
    pub fn percentiles(&self) -> Option<Vec<(f64, u64)>> {
        self.percentiles_of(&PERCENTILES)
    }

    /// The percentiles of `list` (sorted, as `percentile_list` gives
    /// them), or nothing without a histogram or with an empty list.
    pub fn percentiles_of(&self, list: &[f64]) -> Option<Vec<(f64, u64)>> {
        if let Some(p) = &self.given_percentiles {
            return Some(p.clone());
        }
        if list.is_empty() {
            return None;
        }
        list.iter()
            .map(|&p| self.percentile(p).map(|v| (p, v)))
            .collect()
    }

    /// Whether percentiles can be had: a histogram or given ones.
    pub fn kept(&self) -> bool {
        self.n > 0 && (self.hist.is_some() || self.given_percentiles.is_some())
    }

    /// The figures of `a` and `b` together (histograms added; the
    /// variance pooled), as fio's `sum_stat` merges two directions.
    pub fn merged(a: &LatStat, b: &LatStat) -> LatStat {
        if a.n == 0 {
            return b.clone();
        }
        if b.n == 0 {
            return a.clone();
        }
        let n = a.n + b.n;
        let mean = (a.mean * a.n as f64 + b.mean * b.n as f64) / n as f64;
        // back to sums of squares about each mean (sample sd: n − 1)
        let ss = |s: &LatStat| s.stddev.powi(2) * (s.n as f64 - 1.0).max(0.0);
        let (da, db) = (a.mean - mean, b.mean - mean);
        let total = ss(a) + ss(b) + a.n as f64 * da * da + b.n as f64 * db * db;
        let hist = match (&a.hist, &b.hist) {
            (Some(x), Some(y)) => {
                let mut h = x.clone();
                h.add(y).ok().map(|()| h)
            }
            _ => None,
        };
        LatStat {
            n,
            min: a.min.min(b.min),
            max: a.max.max(b.max),
            mean,
            stddev: if n > 1 {
                (total / (n as f64 - 1.0)).sqrt()
            } else {
                0.0
            },
            hist,
            given_percentiles: None,
        }
    }
}

/// Whose histogram the percentiles come from: fio's `clat_percentiles`
/// (the default), `lat_percentiles` or `slat_percentiles`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PercentilesOf {
    Slat,
    Clat,
    Lat,
}

impl PercentilesOf {
    /// The name fio gives the block: `clat percentiles (nsec):`.
    pub fn name(self) -> &'static str {
        match self {
            PercentilesOf::Slat => "slat",
            PercentilesOf::Clat => "clat",
            PercentilesOf::Lat => "lat",
        }
    }
}

/// One direction (read, write, trim) of a job.
#[derive(Clone, Debug, Default)]
pub struct DirReport {
    pub io_bytes: u64,
    pub total_ios: u64,
    /// Milliseconds the job ran this direction (fio's `runtime[ddir]`).
    pub runtime_ms: u64,
    /// Submission latency: only for queued engines.
    pub slat: Option<LatStat>,
    /// Completion latency (for synchronous engines, the call).
    pub clat: Option<LatStat>,
    /// Total latency, issue to completion.
    pub lat: LatStat,
    /// Bandwidth samples, KiB/s, one per interval (empty: not sampled).
    pub bw_samples: Vec<f64>,
    /// IOPS samples, one per interval.
    pub iops_samples: Vec<f64>,
}

impl DirReport {
    /// Bytes per second over the runtime (fio's integer division).
    pub fn bw_bytes(&self) -> u64 {
        if self.runtime_ms == 0 {
            0
        } else {
            (1000 * self.io_bytes as u128 / self.runtime_ms as u128) as u64
        }
    }

    pub fn iops(&self) -> f64 {
        if self.runtime_ms == 0 {
            0.0
        } else {
            1000.0 * self.total_ios as f64 / self.runtime_ms as f64
        }
    }

    /// The percentile blocks fio shows for this direction under `o`, in
    /// its order (slat, clat, lat): each latency whose percentiles are
    /// asked for and that has samples. A completion latency without a
    /// histogram (a result document of a queued engine keeps only the
    /// total latency's) gives way to the total latency's, under `lat`.
    pub fn percentile_blocks(&self, o: &ReportOpts) -> Vec<(PercentilesOf, &LatStat)> {
        let mut out = Vec::new();
        if o.percentiles.is_empty() {
            return out;
        }
        if o.slat_percentiles
            && let Some(s) = self.slat.as_ref().filter(|s| s.kept())
        {
            out.push((PercentilesOf::Slat, s));
        }
        let clat = self.clat.as_ref().filter(|c| c.kept());
        if o.clat_percentiles {
            match clat {
                Some(c) => out.push((PercentilesOf::Clat, c)),
                None if !o.lat_percentiles && self.clat.is_some() && self.lat.kept() => {
                    out.push((PercentilesOf::Lat, &self.lat));
                }
                None => {}
            }
        }
        if o.lat_percentiles && self.lat.kept() {
            out.push((PercentilesOf::Lat, &self.lat));
        }
        out
    }

    /// The histogram the percentiles and latency buckets come from.
    pub fn percentile_source(&self) -> (PercentilesOf, Option<&LatStat>) {
        let kept = |s: &LatStat| s.hist.is_some() || s.given_percentiles.is_some();
        match &self.clat {
            Some(c) if kept(c) => (PercentilesOf::Clat, Some(c)),
            _ if kept(&self.lat) => (PercentilesOf::Lat, Some(&self.lat)),
            _ => (PercentilesOf::Clat, None),
        }
    }
}

/// How requests reached the engine: one per call (sync engines) or
/// through a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submission {
    /// One request per call: each submit and each completion carries one
    /// I/O, known by construction.
    OnePerCall,
    /// A queue: how many each submit and reap carried is not measured.
    Queued,
}

/// A device's figures over the run, from /proc/diskstats (fio's "Disk
/// stats" and `disk_util`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiskUtil {
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    pub read_ticks: u64,
    pub write_ticks: u64,
    pub in_queue: u64,
    /// Share of the run's time the device was busy, percent.
    pub util: f64,
}

/// What fio reports for one job, or one reporting group with
/// `group_reporting`.
#[derive(Clone, Debug)]
pub struct FioJobReport {
    pub name: String,
    pub groupid: u32,
    /// Workers the report covers (fio's `jobs=`).
    pub members: u32,
    /// The options as given, in order (fio's `job options`).
    pub options: Vec<(String, String)>,
    /// fio's `rw=` (read, randwrite, randrw, …).
    pub rw: String,
    /// Smallest and largest request, per read, write, trim (bytes).
    pub bs: [(u64, u64); 3],
    pub ioengine: String,
    pub iodepth: u32,
    pub read: Option<DirReport>,
    pub write: Option<DirReport>,
    pub trim: Option<DirReport>,
    /// The directions summed (`unified_rw_reporting=both`; with `mixed`
    /// the sum stands in `read` and the others are `None`).
    pub mixed: Option<DirReport>,
    /// The report options the job gave.
    pub opts: ReportOpts,
    /// fsync / fdatasync calls.
    pub sync: Option<LatStat>,
    /// The job's run time, ms (fio's `job_runtime`).
    pub runtime_ms: u64,
    pub usr_cpu_ms: f64,
    pub sys_cpu_ms: f64,
    /// Context switches, major and minor page faults (fio's `ctx`,
    /// `majf`, `minf`) of the job's threads.
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
    /// In-flight counts at each issue; `None`: not counted.
    pub depths: Option<Depths>,
    pub submission: Submission,
    /// 0, or the errno of the failure (fio's `err=`), with its text.
    pub error: i32,
    pub error_text: Option<String>,
    /// Unix time (ms) the job ended, for `time` and the job line.
    pub ended_ms: u64,
    pub pid: u32,
    /// fio's steady-state detection, when the job asked for it.
    pub steadystate: Option<steady::SsReport>,
    /// The job's `description` (the terse line's last field).
    pub description: Option<String>,
}

/// The op kinds that make up each fio direction, by name (so a kind added
/// later, such as trim, is picked up where it exists).
const DIRS: [&[&str]; 3] = [&["read"], &["write", "append"], &["trim"]];
const SYNC_KINDS: [&str; 2] = ["fsync", "fdatasync"];

fn kinds_named(names: &[&str]) -> Vec<OpKind> {
    OpKind::ALL
        .into_iter()
        .filter(|k| names.contains(&k.name()))
        .collect()
}

fn merged<'a>(it: impl Iterator<Item = &'a KindStats>) -> Option<KindStats> {
    let mut out: Option<KindStats> = None;
    for k in it {
        out.get_or_insert_with(KindStats::new).merge(k);
    }
    out.filter(|k| k.count > 0)
}

impl FioJobReport {
    /// An empty report with the job's identity and options; directions
    /// and figures come from [`FioJobReport::from_stats`] or
    /// [`FioJobReport::from_result`].
    pub fn new(name: &str, groupid: u32, rw: &str, ioengine: &str, iodepth: u32) -> Self {
        FioJobReport {
            name: name.into(),
            groupid,
            members: 1,
            options: Vec::new(),
            rw: rw.into(),
            bs: [(0, 0); 3],
            ioengine: ioengine.into(),
            iodepth,
            read: None,
            write: None,
            trim: None,
            mixed: None,
            opts: ReportOpts::default(),
            sync: None,
            runtime_ms: 0,
            usr_cpu_ms: 0.0,
            sys_cpu_ms: 0.0,
            ctx: 0,
            majf: 0,
            minf: 0,
            depths: None,
            submission: Submission::OnePerCall,
            error: 0,
            error_text: None,
            steadystate: None,
            ended_ms: now_ms(),
            pid: std::process::id(),
            description: None,
        }
    }

    /// Fill the figures from the merged stats of the workers the report
    /// covers (`members` of them), which ran for `elapsed` with `cpu`.
    pub fn from_stats(
        mut self,
        st: &WorkerStats,
        members: usize,
        elapsed: std::time::Duration,
        cpu: &crate::measure::CpuTimes,
    ) -> Self {
        // fio rounds a runtime up to the millisecond (update_runtime)
        let runtime_ms = (elapsed.as_micros() as u64).div_ceil(1000);
        self.members = members.max(1) as u32;
        self.runtime_ms = runtime_ms;
        self.usr_cpu_ms = cpu.user.as_secs_f64() * 1000.0;
        self.sys_cpu_ms = cpu.sys.as_secs_f64() * 1000.0;
        (self.ctx, self.majf, self.minf) = (cpu.ctx_switches, cpu.major_faults, cpu.minor_faults);
        let queued = OpKind::ALL.iter().any(|&k| st.submission(k).is_some());
        self.submission = if queued {
            Submission::Queued
        } else {
            Submission::OnePerCall
        };
        // one data direction alone: the time series is that direction's
        let io_kinds: Vec<OpKind> = st
            .kinds()
            .filter(|(k, _)| k.is_io())
            .map(|(k, _)| k)
            .collect();
        let full_secs = (elapsed.as_nanos() / 1_000_000_000) as usize;
        let every = self.opts.sample_secs();
        let mut dirs: [Option<DirReport>; 3] = Default::default();
        for (slot, names) in dirs.iter_mut().zip(DIRS) {
            let kinds = kinds_named(names);
            let Some(total) = merged(kinds.iter().filter_map(|&k| st.kind(k))) else {
                continue;
            };
            let sub = merged(kinds.iter().filter_map(|&k| st.submission(k)));
            let comp = merged(kinds.iter().filter_map(|&k| st.completion(k)));
            let alone = io_kinds.iter().all(|k| kinds.contains(k));
            let (bw, iops) = if alone {
                samples(st.series.bytes(), st.series.ops(), full_secs, every)
            } else {
                (Vec::new(), Vec::new())
            };
            let lat = LatStat::of_kind(&total);
            *slot = Some(DirReport {
                io_bytes: total.bytes,
                total_ios: total.count,
                runtime_ms,
                slat: sub.as_ref().map(LatStat::of_kind),
                clat: Some(match &comp {
                    Some(c) => LatStat::of_kind(c),
                    None => lat.clone(),
                }),
                lat,
                bw_samples: bw,
                iops_samples: iops,
            });
        }
        let [r, w, t] = dirs;
        (self.read, self.write, self.trim) = (r, w, t);
        self.sync = merged(kinds_named(&SYNC_KINDS).iter().filter_map(|&k| st.kind(k)))
            .as_ref()
            .map(LatStat::of_kind);
        self.depths = Some(st.depths);
        self.ended_ms = now_ms();
        let all = samples(st.series.bytes(), st.series.ops(), full_secs, every);
        self.shaped(all)
    }

    /// The report as its options shape it: the latencies fio would not
    /// keep dropped, the directions summed for `unified_rw_reporting`,
    /// nothing at all with `stats=0`. `all` is the bandwidth and IOPS
    /// samples of every direction together (those of the sum).
    fn shaped(mut self, all: (Vec<f64>, Vec<f64>)) -> Self {
        let o = self.opts.clone();
        if !o.stats {
            (self.read, self.write, self.trim, self.sync) = (None, None, None, None);
            self.depths = None;
            return self;
        }
        for d in [&mut self.read, &mut self.write, &mut self.trim]
            .into_iter()
            .flatten()
        {
            if o.disable_slat {
                d.slat = None;
            }
            if o.disable_clat {
                d.clat = None;
            }
            if o.disable_lat {
                d.lat = LatStat::default();
            }
        }
        if o.disable_clat {
            self.sync = None;
        }
        if o.unified != Unified::Split {
            let m = DirReport::sum(&self.dirs(), all);
            match o.unified {
                Unified::Mixed => {
                    (self.read, self.write, self.trim) = (m, None, None);
                }
                _ => self.mixed = m,
            }
        }
        self
    }

    /// [`FioJobReport::from_stats`] over a whole run.
    pub fn from_outcome(self, o: &Outcome) -> Self {
        let mut r = self.from_stats(&o.stats, o.workers, o.elapsed, &o.cpu);
        if let Some(e) = &o.error {
            r.error = errno_of(e);
            r.error_text = Some(crate::error::cause(e));
        }
        r
    }

    /// Fill the figures from a result document (`--json`): the latency
    /// histograms kept there (the total latency's) give the percentiles.
    pub fn from_result(mut self, r: &RunResult) -> Self {
        let runtime_ms = ((r.elapsed_s * 1e6) as u64).div_ceil(1000);
        self.runtime_ms = runtime_ms;
        self.members = r.summary.workers.max(1) as u32;
        self.usr_cpu_ms = r.summary.cpu_user_s * 1000.0;
        self.sys_cpu_ms = r.summary.cpu_sys_s * 1000.0;
        (self.ctx, self.majf, self.minf) = (
            r.summary.ctx_switches,
            r.summary.major_faults,
            r.summary.minor_faults,
        );
        let queued = r.ops.values().any(|o| o.submission_ns.is_some());
        self.submission = if queued {
            Submission::Queued
        } else {
            Submission::OnePerCall
        };
        let io_names: Vec<&str> = r
            .ops
            .keys()
            .map(String::as_str)
            .filter(|n| OpKind::ALL.iter().any(|k| k.name() == *n && k.is_io()))
            .collect();
        let full_secs = (r.elapsed_s.max(0.0)) as usize;
        let every = self.opts.sample_secs();
        let mut dirs: [Option<DirReport>; 3] = Default::default();
        for (slot, names) in dirs.iter_mut().zip(DIRS) {
            let ops: Vec<&OpSummary> = names.iter().filter_map(|n| r.ops.get(*n)).collect();
            let Some(d) = dir_of_summaries(&ops, runtime_ms) else {
                continue;
            };
            let alone = io_names.iter().all(|n| names.contains(n));
            let (bw, iops) = if alone {
                samples(&r.timeseries.bytes, &r.timeseries.ops, full_secs, every)
            } else {
                (Vec::new(), Vec::new())
            };
            *slot = Some(DirReport {
                bw_samples: bw,
                iops_samples: iops,
                ..d
            });
        }
        let [rd, wr, tr] = dirs;
        (self.read, self.write, self.trim) = (rd, wr, tr);
        let sync: Vec<&OpSummary> = SYNC_KINDS.iter().filter_map(|n| r.ops.get(*n)).collect();
        self.sync = dir_of_summaries(&sync, runtime_ms).map(|d| d.lat);
        // a queue that never held more than one, or none: one in flight
        self.depths = Some(match &r.summary.io_depth {
            Some(d) => {
                let total = self.ios_total();
                let mut x = Depths {
                    max: d.max,
                    submits: d.submit.unwrap_or_default(),
                    completes: d.complete.unwrap_or_default(),
                    ..Default::default()
                };
                for b in &d.buckets {
                    if let Some(i) = crate::measure::depth::BOUNDS
                        .iter()
                        .position(|&v| v == b.depth)
                    {
                        x.issues[i] = (b.share * total as f64).round() as u64;
                    }
                }
                x
            }
            None => Depths {
                issues: [self.ios_total(), 0, 0, 0, 0, 0, 0],
                max: 1,
                ..Default::default()
            },
        });
        if r.error.is_some() && !r.complete {
            self.error = libc::EINTR;
            self.error_text = r.error.clone();
        }
        let all = samples(&r.timeseries.bytes, &r.timeseries.ops, full_secs, every);
        self.shaped(all)
    }

    /// Reads, writes and trims issued.
    pub fn ios_total(&self) -> u64 {
        self.dirs().iter().flatten().map(|d| d.total_ios).sum()
    }

    pub fn dirs(&self) -> [Option<&DirReport>; 3] {
        [self.read.as_ref(), self.write.as_ref(), self.trim.as_ref()]
    }

    /// Whether fio would print the job: it moved bytes or issued I/O.
    pub fn did_io(&self) -> bool {
        self.dirs()
            .iter()
            .flatten()
            .any(|d| d.io_bytes > 0 || d.total_ios > 0)
    }

    pub fn usr_cpu(&self) -> f64 {
        pct(self.usr_cpu_ms, self.runtime_ms)
    }

    pub fn sys_cpu(&self) -> f64 {
        pct(self.sys_cpu_ms, self.runtime_ms)
    }

    /// fio's `io_u_map` shares, percent (`stat_calc_dist`), all zero when
    /// nothing was counted.
    pub fn depth_dist(&self) -> [f64; 7] {
        let issues = match &self.depths {
            Some(d) if d.total() > 0 => d.issues,
            // one request per call and no count kept: one in flight each
            _ if self.submission == Submission::OnePerCall => [self.ios_total(), 0, 0, 0, 0, 0, 0],
            _ => [0; 7],
        };
        dist(&issues)
    }

    /// fio's `io_u_submit` and `io_u_complete` shares, percent of the
    /// calls: with one request per call every submit and reap carries one
    /// (fio's "4" bucket, 1 to 4); with a queue, the batches the runner
    /// counted at each commit and each wait for completions (all zero
    /// only where none were counted, as in a result written before they
    /// were).
    pub fn batch_dists(&self) -> ([f64; 7], [f64; 7]) {
        match (self.submission, &self.depths) {
            (Submission::OnePerCall, _) if self.ios_total() > 0 => {
                let one = dist(&[0, self.ios_total(), 0, 0, 0, 0, 0]);
                (one, one)
            }
            (Submission::Queued, Some(d)) => (dist(&d.submits), dist(&d.completes)),
            _ => ([0.0; 7], [0.0; 7]),
        }
    }

    /// The share of I/Os (reads, writes, trims) per latency bucket, fio's
    /// `io_u_lat_n`, `_u`, `_m` (percent; ≥ 0.01 for a bucket that has
    /// any), from the completion latencies.
    pub fn latency_buckets(&self) -> ([f64; 10], [f64; 10], [f64; 12]) {
        let mut n = [0u64; 10];
        let mut u = [0u64; 10];
        let mut m = [0u64; 12];
        let total = self.ios_total();
        // fio counts them with the completion latency: not without it
        let dirs = if self.opts.disable_clat {
            [None; 3]
        } else {
            self.dirs()
        };
        for d in dirs.into_iter().flatten() {
            let (_, Some(src)) = d.percentile_source() else {
                continue;
            };
            let Some(h) = &src.hist else { continue };
            for v in h.iter_recorded() {
                let ns = h.highest_equivalent(v.value_iterated_to());
                let ns = ns.clamp(src.min.min(src.max), src.max);
                let c = v.count_since_last_iteration();
                if ns < 1000 {
                    n[lat_idx(ns)] += c;
                } else if ns < 1_000_000 {
                    u[lat_idx(ns / 1000)] += c;
                } else {
                    let ms = ns / 1_000_000;
                    let i = if ms >= 2000 {
                        11
                    } else if ms >= 1000 {
                        10
                    } else {
                        lat_idx(ms)
                    };
                    m[i] += c;
                }
            }
        }
        let share = |c: u64| {
            if total == 0 {
                0.0
            } else {
                let s = 100.0 * c as f64 / total as f64;
                if s < 0.01 && c > 0 { 0.01 } else { s }
            }
        };
        (n.map(share), u.map(share), m.map(share))
    }
}

/// fio's bucket of a value below 1000 in its unit: 0–1, 2–3, 4–9, 10–19,
/// 20–49, 50–99, 100–249, 250–499, 500–749, 750–999.
fn lat_idx(v: u64) -> usize {
    match v {
        0..=1 => 0,
        2..=3 => 1,
        4..=9 => 2,
        10..=19 => 3,
        20..=49 => 4,
        50..=99 => 5,
        100..=249 => 6,
        250..=499 => 7,
        500..=749 => 8,
        _ => 9,
    }
}

fn dist(map: &[u64; 7]) -> [f64; 7] {
    let total: u64 = map.iter().sum();
    map.map(|c| {
        if total == 0 {
            0.0
        } else {
            let s = 100.0 * c as f64 / total as f64;
            if s < 0.1 && c > 0 { 0.1 } else { s }
        }
    })
}

fn pct(ms: f64, runtime_ms: u64) -> f64 {
    if runtime_ms == 0 {
        0.0
    } else {
        ms * 100.0 / runtime_ms as f64
    }
}

/// Samples of bandwidth (KiB/s) and IOPS, one per period of `every.0`
/// (bandwidth) and `every.1` (IOPS) whole seconds of the run (a last
/// period cut short left out, as fio leaves out a sample period that did
/// not end): fio's `bwavgtime` and `iopsavgtime`.
fn samples(
    bytes: &[u64],
    ops: &[u64],
    full_secs: usize,
    every: (usize, usize),
) -> (Vec<f64>, Vec<f64>) {
    let n = full_secs.min(bytes.len()).min(ops.len());
    let per = |xs: &[u64], k: usize, unit: u64| -> Vec<f64> {
        let k = k.max(1);
        xs[..n]
            .chunks_exact(k)
            .map(|c| (c.iter().sum::<u64>() / k as u64 / unit) as f64)
            .collect()
    };
    (per(bytes, every.0, 1024), per(ops, every.1, 1))
}

impl ReportOpts {
    /// The bandwidth and IOPS sampling periods in whole seconds.
    pub fn sample_secs(&self) -> (usize, usize) {
        let s = |ms: u64| ((ms / 1000).max(1)) as usize;
        (s(self.bw_avg_ms), s(self.iops_avg_ms))
    }
}

impl DirReport {
    /// The directions of `dirs` summed into one (fio's `mixed`): bytes and
    /// I/Os added, the longest runtime, latencies merged; `all` gives the
    /// bandwidth and IOPS samples of the whole job. `None` when no
    /// direction ran.
    pub fn sum(dirs: &[Option<&DirReport>], all: (Vec<f64>, Vec<f64>)) -> Option<DirReport> {
        let live: Vec<&DirReport> = dirs.iter().flatten().copied().collect();
        if live.is_empty() {
            return None;
        }
        let lat = |f: fn(&DirReport) -> Option<&LatStat>| {
            live.iter()
                .filter_map(|d| f(d))
                .fold(None, |acc: Option<LatStat>, s| {
                    Some(match acc {
                        None => s.clone(),
                        Some(a) => LatStat::merged(&a, s),
                    })
                })
        };
        Some(DirReport {
            io_bytes: live.iter().map(|d| d.io_bytes).sum(),
            total_ios: live.iter().map(|d| d.total_ios).sum(),
            runtime_ms: live.iter().map(|d| d.runtime_ms).max().unwrap_or(0),
            slat: lat(|d| d.slat.as_ref()),
            clat: lat(|d| d.clat.as_ref()),
            lat: lat(|d| Some(&d.lat)).unwrap_or_default(),
            bw_samples: all.0,
            iops_samples: all.1,
        })
    }
}

/// One direction from the op summaries of a result document.
fn dir_of_summaries(ops: &[&OpSummary], runtime_ms: u64) -> Option<DirReport> {
    let live: Vec<&&OpSummary> = ops.iter().filter(|o| o.count > 0).collect();
    let first = live.first()?;
    let count: u64 = live.iter().map(|o| o.count).sum();
    let bytes: u64 = live.iter().map(|o| o.bytes).sum();
    // several kinds in one direction (write and append): merge exactly
    // where the histograms allow it, else the one kind's summary
    let hist = if live.len() == 1 {
        first.latency_histogram().and_then(Result::ok)
    } else {
        let mut acc: Option<Histogram<u64>> = None;
        for o in &live {
            if let Some(Ok(h)) = o.latency_histogram() {
                match &mut acc {
                    Some(a) => {
                        let _ = a.add(&h);
                    }
                    None => acc = Some(h),
                }
            }
        }
        acc
    };
    let lat = if live.len() == 1 {
        LatStat::of_summary(count, &first.latency_ns, hist)
    } else {
        let mean = live
            .iter()
            .map(|o| o.latency_ns.mean * o.count as f64)
            .sum::<f64>()
            / count as f64;
        // pooled population variance: Σ n_i (σ_i² + (μ_i − μ)²) / n
        let var = live
            .iter()
            .map(|o| {
                let d = o.latency_ns.mean - mean;
                o.count as f64 * (o.latency_ns.stddev.powi(2) + d * d)
            })
            .sum::<f64>()
            / count as f64;
        LatStat {
            n: count,
            min: live.iter().map(|o| o.latency_ns.min).min().unwrap_or(0),
            max: live.iter().map(|o| o.latency_ns.max).max().unwrap_or(0),
            mean,
            stddev: sample_sd(var.sqrt(), count),
            hist,
            given_percentiles: None,
        }
    };
    let one = |f: fn(&OpSummary) -> Option<&LatencySummary>| {
        (live.len() == 1)
            .then(|| f(first))
            .flatten()
            .map(|s| LatStat::of_summary(count, s, None))
    };
    let slat = one(|o| o.submission_ns.as_ref());
    let clat = match one(|o| o.completion_ns.as_ref()) {
        Some(c) => Some(c),
        // one request per call: the call is the completion latency
        None if slat.is_none() => Some(lat.clone()),
        None => None,
    };
    Some(DirReport {
        io_bytes: bytes,
        total_ios: count,
        runtime_ms,
        slat,
        clat,
        lat,
        bw_samples: Vec::new(),
        iops_samples: Vec::new(),
    })
}

/// The errno behind a failure, where there is one (else EIO, as fio
/// reports an I/O error it has no number for).
pub fn errno_of(e: &anyhow::Error) -> i32 {
    e.chain()
        .find_map(|c| c.downcast_ref::<std::io::Error>())
        .and_then(std::io::Error::raw_os_error)
        .unwrap_or(libc::EIO)
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A Unix time (s) as C's `ctime` writes it, in UTC:
/// `Fri Nov 27 00:19:30 2026`.
pub fn ctime(secs: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // days since 1970-01-01 to a civil date (Hinnant's algorithm)
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS[(days % 7) as usize],
        MONTHS[(m - 1) as usize],
        d,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        y
    )
}

/// fio's `rw=` for a share of reads and of sequential requests.
pub fn rw_name(read_frac: f64, seq_frac: f64) -> &'static str {
    let seq = seq_frac >= 1.0;
    match (read_frac >= 1.0, read_frac <= 0.0, seq) {
        (true, _, true) => "read",
        (true, _, false) => "randread",
        (_, true, true) => "write",
        (_, true, false) => "randwrite",
        (_, _, true) => "rw",
        (_, _, false) => "randrw",
    }
}

#[cfg(test)]
mod golden;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctime_is_cs() {
        assert_eq!(ctime(1_795_738_770), "Fri Nov 27 00:19:30 2026");
        assert_eq!(ctime(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime(951_782_400), "Tue Feb 29 00:00:00 2000");
    }

    #[test]
    fn latency_buckets_follow_fios_bounds() {
        for (v, i) in [
            (0, 0),
            (1, 0),
            (2, 1),
            (3, 1),
            (4, 2),
            (9, 2),
            (10, 3),
            (19, 3),
        ] {
            assert_eq!(lat_idx(v), i, "{v}");
        }
        for (v, i) in [
            (20, 4),
            (49, 4),
            (50, 5),
            (100, 6),
            (250, 7),
            (500, 8),
            (750, 9),
            (999, 9),
        ] {
            assert_eq!(lat_idx(v), i, "{v}");
        }
        let mut st = WorkerStats::new(&[OpKind::Read]);
        // 2 at 1 ns, 1 at 3 µs, 1 at 1.5 ms, 1 at 2.5 s
        for lat in [1, 1, 3_000, 1_500_000, 2_500_000_000] {
            st.record(OpKind::Read, lat, 4096, 0);
        }
        let cpu = crate::measure::CpuTimes::default();
        let r = FioJobReport::new("x", 0, "read", "psync", 1).from_stats(
            &st,
            1,
            std::time::Duration::from_secs(3),
            &cpu,
        );
        let (n, u, m) = r.latency_buckets();
        assert_eq!(n[0], 40.0);
        assert_eq!(u[1], 20.0);
        assert_eq!(m[0], 20.0);
        assert_eq!(m[11], 20.0);
        assert_eq!(n.iter().chain(&u).chain(&m).sum::<f64>(), 100.0);
    }

    #[test]
    fn depth_and_submit_shares_as_fio_counts_them() {
        assert_eq!(dist(&[999, 1, 0, 0, 0, 0, 0000])[1], 0.1);
        assert_eq!(dist(&[0; 7]), [0.0; 7]);
        let mut r = FioJobReport::new("x", 0, "read", "psync", 1);
        r.read = Some(DirReport {
            total_ios: 10,
            ..Default::default()
        });
        r.depths = Some(Depths::default());
        assert_eq!(r.depth_dist()[0], 100.0);
        assert_eq!(r.batch_dists().0[1], 100.0);
        assert_eq!(r.batch_dists().1[1], 100.0);
        r.submission = Submission::Queued;
        assert_eq!(r.depth_dist(), [0.0; 7]);
        assert_eq!(r.batch_dists(), ([0.0; 7], [0.0; 7]));
        // a queue: 3 commits of 1 and one of 8; 2 waits of 1, one of 10
        let mut d = Depths::default();
        for n in [1, 1, 1, 8] {
            d.record_submit(n);
        }
        for n in [1, 1, 10] {
            d.record_complete(n);
        }
        r.depths = Some(d);
        let (sub, comp) = r.batch_dists();
        assert_eq!(sub, [0.0, 75.0, 25.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(comp[1], 200.0 / 3.0);
        assert_eq!(comp[3], 100.0 / 3.0);
    }

    #[test]
    fn stddev_is_fios_sample_one() {
        let mut k = KindStats::new();
        for v in [1000, 3000] {
            k.record(v, 0);
        }
        let s = LatStat::of_kind(&k);
        // population sd 1000, sample sd 1414.2…
        assert!(
            (s.stddev - 2f64.sqrt() * 1000.0).abs() < 1e-6,
            "{}",
            s.stddev
        );
        assert_eq!((s.min, s.max, s.mean), (1000, 3000, 2000.0));
    }

    #[test]
    fn samples_per_period_of_whole_seconds() {
        let bytes = [1024, 3072, 2048, 4096, 9999];
        let ops = [1, 3, 2, 4, 9];
        // four whole seconds, the fifth cut short
        let (bw, io) = samples(&bytes, &ops, 4, (1, 1));
        assert_eq!(bw, [1.0, 3.0, 2.0, 4.0]);
        assert_eq!(io, [1.0, 3.0, 2.0, 4.0]);
        let (bw, io) = samples(&bytes, &ops, 4, (2, 3));
        assert_eq!(bw, [2.0, 3.0]);
        assert_eq!(io, [2.0]);
    }

    #[test]
    fn directions_sum_as_fios_mixed() {
        let mut st = WorkerStats::new(&[OpKind::Read, OpKind::Write]);
        for lat in [100, 300] {
            st.record(OpKind::Read, lat, 4096, 0);
        }
        st.record(OpKind::Write, 1100, 8192, 0);
        let cpu = crate::measure::CpuTimes::default();
        let run = |u: Unified| {
            let mut r = FioJobReport::new("x", 0, "randrw", "psync", 1);
            r.opts.unified = u;
            r.from_stats(&st, 1, std::time::Duration::from_millis(10), &cpu)
        };
        let m = run(Unified::Mixed);
        assert!(m.write.is_none() && m.trim.is_none() && m.mixed.is_none());
        let d = m.read.as_ref().unwrap();
        assert_eq!((d.total_ios, d.io_bytes, d.lat.n), (3, 16384, 3));
        assert_eq!((d.lat.min, d.lat.max), (100, 1100));
        assert_eq!(d.lat.mean, 500.0);
        // sample sd of 100, 300, 1100: sqrt(280000)
        assert!(
            (d.lat.stddev - 280_000f64.sqrt()).abs() < 1e-6,
            "{}",
            d.lat.stddev
        );
        assert_eq!(d.lat.percentile(50.0), Some(300));
        let b = run(Unified::Both);
        assert_eq!(b.read.as_ref().unwrap().total_ios, 2);
        assert_eq!(b.mixed.as_ref().unwrap().total_ios, 3);
        let mut r = FioJobReport::new("x", 0, "randrw", "psync", 1);
        r.opts.stats = false;
        let r = r.from_stats(&st, 1, std::time::Duration::from_millis(10), &cpu);
        assert!(!r.did_io() && r.sync.is_none());
    }

    #[test]
    fn disabled_latencies_are_dropped() {
        let mut st = WorkerStats::new(&[OpKind::Read]);
        st.record(OpKind::Read, 500, 4096, 0);
        let cpu = crate::measure::CpuTimes::default();
        let mut r = FioJobReport::new("x", 0, "read", "psync", 1);
        r.opts.disable_clat = true;
        r.opts.disable_lat = true;
        let r = r.from_stats(&st, 1, std::time::Duration::from_millis(1), &cpu);
        let d = r.read.as_ref().unwrap();
        assert!(d.clat.is_none() && d.lat.n == 0);
        assert!(d.percentile_blocks(&r.opts).is_empty());
        let (n, _, _) = r.latency_buckets();
        assert_eq!(n, [0.0; 10]);
    }

    #[test]
    fn rw_names() {
        assert_eq!(rw_name(1.0, 0.0), "randread");
        assert_eq!(rw_name(0.0, 1.0), "write");
        assert_eq!(rw_name(0.5, 0.5), "randrw");
        assert_eq!(rw_name(0.5, 1.0), "rw");
    }
}
