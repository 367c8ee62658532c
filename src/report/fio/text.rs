//! fio's normal text report (`show_thread_status_normal`, `show_ddir_status`,
//! `show_clat_percentiles`, `show_latencies`, `show_group_stats` in fio 3.33's
//! stat.c), line for line.

use super::num::{Unit, fixed, num2str};
use super::steady::{SsMetric, SsReport};
use super::{DirReport, DiskUtil, FioJobReport, LatStat, ReportOpts, Unified, ctime};
use std::fmt::Write;

/// The figures of one reporting group, per direction (fio's
/// `group_run_stats`).
#[derive(Clone, Debug, Default)]
pub struct Group {
    pub id: u32,
    /// Bytes moved, per read, write, trim.
    pub iobytes: [u64; 3],
    /// Aggregate bandwidth, bytes/s: the bytes over the longest runtime.
    pub agg: [u64; 3],
    pub min_bw: [u64; 3],
    pub max_bw: [u64; 3],
    pub min_run: [u64; 3],
    pub max_run: [u64; 3],
    /// The report options of the group's first job (fio's
    /// `group_run_stats` takes them from it): figures, units, `MIXED`.
    pub opts: ReportOpts,
}

impl Group {
    /// Group `id` of `jobs` (fio's `__show_run_stats` sums).
    pub fn of(id: u32, jobs: &[&FioJobReport]) -> Group {
        let mut g = Group {
            id,
            min_bw: [u64::MAX; 3],
            opts: jobs.first().map(|j| j.opts.clone()).unwrap_or_default(),
            ..Default::default()
        };
        for j in jobs {
            for (i, d) in j.dirs().into_iter().enumerate() {
                let Some(d) = d.filter(|d| d.runtime_ms > 0) else {
                    continue;
                };
                if d.runtime_ms < g.min_run[i] || g.min_run[i] == 0 {
                    g.min_run[i] = d.runtime_ms;
                }
                g.max_run[i] = g.max_run[i].max(d.runtime_ms);
                let bw = d.bw_bytes();
                g.min_bw[i] = g.min_bw[i].min(bw);
                g.max_bw[i] = g.max_bw[i].max(bw);
                g.iobytes[i] += d.io_bytes;
            }
        }
        for i in 0..3 {
            if g.max_run[i] > 0 {
                g.agg[i] = (g.iobytes[i] as u128 * 1000 / g.max_run[i] as u128) as u64;
            } else {
                g.min_bw[i] = 0;
            }
        }
        g
    }

    /// A job's share of the group's bandwidth, percent (fio's
    /// `convert_agg_kbytes_percent`, capped at 100).
    pub fn share(&self, dir: usize, mean_kib: f64) -> f64 {
        if self.agg[dir] > 1024 {
            (mean_kib * 100.0 / (self.agg[dir] as f64 / 1024.0)).min(100.0)
        } else {
            100.0
        }
    }
}

/// The groups of `jobs`, in order of first appearance.
pub fn groups(jobs: &[FioJobReport]) -> Vec<(Group, Vec<&FioJobReport>)> {
    let mut ids: Vec<u32> = Vec::new();
    for j in jobs {
        if !ids.contains(&j.groupid) {
            ids.push(j.groupid);
        }
    }
    ids.into_iter()
        .map(|id| {
            let members: Vec<&FioJobReport> = jobs.iter().filter(|j| j.groupid == id).collect();
            (Group::of(id, &members), members)
        })
        .collect()
}

/// The lines fio prints before a run: each job's set-up, the version and
/// how many workers start.
pub fn header(jobs: &[FioJobReport], version: &str) -> String {
    let mut out = String::new();
    for j in jobs {
        let b = |v: u64| num2str(v, j.opts.sig_figs, 1, true, Unit::Byte);
        let _ = writeln!(
            out,
            "{}: (g={}): rw={}, bs=(R) {}-{}, (W) {}-{}, (T) {}-{}, ioengine={}, iodepth={}",
            j.name,
            j.groupid,
            j.rw,
            b(j.bs[0].0),
            b(j.bs[0].1),
            b(j.bs[1].0),
            b(j.bs[1].1),
            b(j.bs[2].0),
            b(j.bs[2].1),
            j.ioengine,
            j.iodepth
        );
    }
    let _ = writeln!(out, "{version}");
    let n: u32 = jobs.iter().map(|j| j.members).sum();
    let _ = writeln!(out, "Starting {n} thread{}", if n > 1 { "s" } else { "" });
    out
}

/// The whole report after a run: each job, each group's summary, and the
/// disk figures where they were measured.
pub fn render(jobs: &[FioJobReport], disks: &[DiskUtil]) -> String {
    let mut out = String::new();
    let groups = groups(jobs);
    if jobs.iter().any(|j| j.did_io() || !j.opts.stats) {
        out.push('\n');
    }
    for (g, members) in &groups {
        for j in members {
            job(&mut out, j, g);
        }
    }
    for (g, _) in &groups {
        group(&mut out, g);
    }
    if !disks.is_empty() {
        let _ = writeln!(out, "\nDisk stats (read/write):");
        for d in disks {
            let _ = writeln!(
                out,
                "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={}%",
                d.name,
                d.read_ios,
                d.write_ios,
                d.read_merges,
                d.write_merges,
                d.read_ticks,
                d.write_ticks,
                d.in_queue,
                fixed(d.util, 2)
            );
        }
    }
    out
}

/// One job (fio's `show_thread_status_normal`).
pub fn job(out: &mut String, j: &FioJobReport, g: &Group) {
    if !j.did_io() {
        return;
    }
    let when = ctime(j.ended_ms / 1000);
    match (&j.error, &j.error_text) {
        (0, _) => {
            let _ = writeln!(
                out,
                "{}: (groupid={}, jobs={}): err= 0: pid={}: {when}",
                j.name, j.groupid, j.members, j.pid
            );
        }
        (e, t) => {
            let _ = writeln!(
                out,
                "{}: (groupid={}, jobs={}): err={e:2} ({}): pid={}: {when}",
                j.name,
                j.groupid,
                j.members,
                t.as_deref().unwrap_or(""),
                j.pid
            );
        }
    }
    let mixed = j.opts.unified == Unified::Mixed;
    for (i, d) in j.dirs().into_iter().enumerate() {
        if let Some(d) = d.filter(|d| d.io_bytes > 0) {
            let name = if mixed { "mixed" } else { DIR_NAMES[i] };
            ddir(out, i, name, d, g, &j.opts);
        }
    }
    // fio's show_mixed_ddir_status: the sum, as a read of the group
    if let Some(d) = j.mixed.as_ref().filter(|d| d.io_bytes > 0) {
        ddir(out, 0, "mixed", d, g, &j.opts);
    }
    let (n, u, m) = j.latency_buckets();
    lat_lines(out, &n, &RANGES[..10], "nsec");
    lat_lines(out, &u, &RANGES[..10], "usec");
    lat_lines(out, &m, &RANGES, "msec");
    if let Some(s) = j.sync.as_ref().filter(|s| s.n > 0) {
        let _ = writeln!(out, "  fsync/fdatasync/sync_file_range:");
        display_lat(out, "sync", s);
        if let Some(p) = s.percentiles_of(&j.opts.percentiles) {
            percentiles(out, "sync", &p, j.opts.precision);
        }
    }
    let _ = writeln!(
        out,
        "  cpu          : usr={}%, sys={}%, ctx={}, majf={}, minf={}",
        fixed(j.usr_cpu(), 2),
        fixed(j.sys_cpu(), 2),
        j.ctx,
        j.majf,
        j.minf
    );
    let d = j.depth_dist();
    let _ = writeln!(
        out,
        "  IO depths    : 1={}%, 2={}%, 4={}%, 8={}%, 16={}%, 32={}%, >=64={}%",
        fixed(d[0], 1),
        fixed(d[1], 1),
        fixed(d[2], 1),
        fixed(d[3], 1),
        fixed(d[4], 1),
        fixed(d[5], 1),
        fixed(d[6], 1)
    );
    let (sub, comp) = j.batch_dists();
    for (what, s) in [("submit    ", sub), ("complete  ", comp)] {
        let _ = writeln!(
            out,
            "     {what}: 0={}%, 4={}%, 8={}%, 16={}%, 32={}%, 64={}%, >=64={}%",
            fixed(s[0], 1),
            fixed(s[1], 1),
            fixed(s[2], 1),
            fixed(s[3], 1),
            fixed(s[4], 1),
            fixed(s[5], 1),
            fixed(s[6], 1)
        );
    }
    let ios = |d: Option<&DirReport>| d.map_or(0, |d| d.total_ios);
    let [r, w, t] = j.dirs();
    let _ = writeln!(
        out,
        "     issued rwts: total={},{},{},{} short=0,0,0,0 dropped=0,0,0,0",
        ios(r),
        ios(w),
        ios(t),
        j.sync.as_ref().map_or(0, |s| s.n)
    );
    let _ = writeln!(
        out,
        "     latency   : target=0, window=0, percentile=100.00%, depth={}",
        j.iodepth
    );
    if let Some(ss) = &j.steadystate {
        steadystate(out, ss, &j.opts);
    }
}

/// fio's `show_ss_normal`: the window's mean bandwidth (in `kb_base`
/// units, shown with both prefixes as fio shows it), its mean IOPS and
/// the last criterion.
fn steadystate(out: &mut String, ss: &SsReport, o: &ReportOpts) {
    let (sig, unit) = (o.sig_figs, rate_unit(o));
    let kb = ss.kb_base.max(1);
    let pow2 = kb.is_power_of_two();
    let bw = ss.bw_mean() / kb;
    let _ = writeln!(
        out,
        "  steadystate  : attained={}, bw={} ({}), iops={}, {}{}={:.3}{}",
        if ss.attained { "yes" } else { "no" },
        num2str(bw, sig, kb, pow2, unit),
        num2str(bw, sig, kb, !pow2, unit),
        num2str(ss.iops_mean(), sig, 1, false, Unit::None),
        match ss.criterion.metric {
            SsMetric::Iops => "iops",
            SsMetric::Bw => "bw",
        },
        if ss.criterion.slope {
            " slope"
        } else {
            " mean dev"
        },
        ss.value,
        if ss.criterion.pct { "%" } else { "" }
    );
}

const DIR_NAMES: [&str; 3] = ["read", "write", "trim"];
const RANGES: [&str; 12] = [
    "2=", "4=", "10=", "20=", "50=", "100=", "250=", "500=", "750=", "1000=", "2000=", ">=2000=",
];

/// The unit of rates: bytes, or bits with `unit_base=1`.
fn rate_unit(o: &ReportOpts) -> Unit {
    if o.bits {
        Unit::BitPerSec
    } else {
        Unit::BytePerSec
    }
}

/// One direction of a job (fio's `show_ddir_status`), shown as `name`.
fn ddir(out: &mut String, i: usize, name: &str, d: &DirReport, g: &Group, o: &ReportOpts) {
    if d.runtime_ms == 0 {
        return;
    }
    let bw = d.bw_bytes();
    let iops = (1000 * d.total_ios as u128 / d.runtime_ms as u128) as u64;
    let sig = o.sig_figs;
    let _ = writeln!(
        out,
        "  {}: IOPS={}, BW={} ({})({}/{}msec){}",
        name,
        num2str(iops, sig, 1, false, Unit::None),
        num2str(bw, sig, 1, true, rate_unit(o)),
        num2str(bw, sig, 1, false, rate_unit(o)),
        num2str(d.io_bytes, sig, 1, true, Unit::Byte),
        d.runtime_ms,
        if name == "write" {
            "; 0 zone resets"
        } else {
            ""
        }
    );
    if let Some(s) = d.slat.as_ref().filter(|s| s.n > 0) {
        display_lat(out, "slat", s);
    }
    if let Some(c) = d.clat.as_ref().filter(|c| c.n > 0) {
        display_lat(out, "clat", c);
    }
    if d.lat.n > 0 {
        display_lat(out, " lat", &d.lat);
    }
    for (of, src) in d.percentile_blocks(o) {
        if let Some(p) = src.percentiles_of(&o.percentiles) {
            percentiles(out, of.name(), &p, o.precision);
        }
    }
    if let Some((min, max, mean, dev)) = moments(&d.bw_samples) {
        let share = g.share(i, mean);
        // fio truncates min and max to integers (KiB/s) before scaling
        let (mut min, mut max, mut mean, mut dev) = (min.trunc(), max.trunc(), mean, dev);
        let mut unit = if o.bits { "Kibit" } else { "KiB" };
        if o.bits {
            (min, max, mean, dev) = (min * 8.0, max * 8.0, mean * 8.0, dev * 8.0);
        }
        if mean > 1024.0 * 1024.0 {
            (min, max, mean, dev) = (min / 1024.0, max / 1024.0, mean / 1024.0, dev / 1024.0);
            unit = if o.bits { "Mibit" } else { "MiB" };
        }
        let _ = writeln!(
            out,
            "   bw ({unit:>5}/s): min={:5}, max={:5}, per={}%, avg={:>5}, stdev={:>5}, samples={}",
            min as u64,
            max as u64,
            fixed(share, 2),
            fixed(mean, 2),
            fixed(dev, 2),
            d.bw_samples.len()
        );
    }
    if let Some((min, max, mean, dev)) = moments(&d.iops_samples) {
        let _ = writeln!(
            out,
            "   iops        : min={:5}, max={:5}, avg={:>5}, stdev={:>5}, samples={}",
            min as u64,
            max as u64,
            fixed(mean, 2),
            fixed(dev, 2),
            d.iops_samples.len()
        );
    }
}

/// Min, max, mean and sample standard deviation of samples (fio's
/// `calc_lat` over its `bw_stat`/`iops_stat`); `None` without samples.
pub fn moments(xs: &[f64]) -> Option<(f64, f64, f64, f64)> {
    if xs.is_empty() {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let dev = if xs.len() > 1 {
        (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(0.0, f64::max);
    Some((min, max, mean, dev))
}

/// A latency line (fio's `display_lat`): ns, or µs / ms when the figures
/// are large enough (`nsec_to_usec`, `nsec_to_msec`).
fn display_lat(out: &mut String, name: &str, s: &LatStat) {
    let (mut min, mut max, mut mean, mut dev) = (s.min, s.max, s.mean, s.stddev);
    let base = if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
        (min, max, mean, dev) = (min / 1_000_000, max / 1_000_000, mean / 1e6, dev / 1e6);
        "(msec)"
    } else if min > 2000 && max > 99_999 && dev > 1000.0 {
        (min, max, mean, dev) = (min / 1000, max / 1000, mean / 1e3, dev / 1e3);
        "(usec)"
    } else {
        "(nsec)"
    };
    let _ = writeln!(
        out,
        "    {name} {base}: min={}, max={}, avg={:>5}, stdev={:>5}",
        num2str(min, 6, 1, false, Unit::None),
        num2str(max, 6, 1, false, Unit::None),
        fixed(mean, 2),
        fixed(dev, 2)
    );
}

/// The percentile block (fio's `show_clat_percentiles`), each name with
/// `precision` digits after the point (2 for fio's default list).
pub fn percentiles(out: &mut String, pre: &str, p: &[(f64, u64)], precision: usize) {
    let minv = p.iter().map(|x| x.1).min().unwrap_or(0);
    let maxv = p.iter().map(|x| x.1).max().unwrap_or(0);
    let (scale, divisor, unit) = if minv > 2_000_000 && maxv > 99_999_999 {
        (2, 1_000_000u64, "msec")
    } else if minv > 2000 && maxv > 99_999 {
        (1, 1000, "usec")
    } else {
        (0, 1, "nsec")
    };
    let _ = write!(out, "    {pre} percentiles ({unit}):\n     |");
    let q = maxv / divisor;
    let width = 5.max(if q == 0 { 0 } else { q.ilog10() as usize + 1 });
    let per_line = (80 - 7) / (precision + 10 + width);
    for (j, &(pct, v)) in p.iter().enumerate() {
        if j != 0 && j % per_line == 0 {
            out.push_str("     |");
        }
        let last = j == p.len() - 1;
        let mut v = v;
        for _ in 0..scale {
            v = v.div_ceil(1000);
        }
        let _ = write!(
            out,
            " {:>w$}th=[{v:>width$}]{}",
            fixed(pct, precision),
            if last { '\n' } else { ',' },
            w = precision + 3
        );
        if last {
            break;
        }
        if j % per_line == per_line - 1 {
            out.push('\n');
        }
    }
}

/// fio's `show_lat`: the buckets that have any, five to a line.
fn lat_lines(out: &mut String, shares: &[f64], ranges: &[&str], unit: &str) {
    let mut line = 0;
    let mut shown = false;
    for (s, r) in shares.iter().zip(ranges) {
        if *s <= 0.0 {
            continue;
        }
        if line == 0 {
            if shown {
                out.push('\n');
            }
            let _ = write!(out, "  lat ({unit})   : ");
        } else {
            out.push_str(", ");
        }
        shown = true;
        let _ = write!(out, "{r}{}%", fixed(*s, 2));
        line += 1;
        if line == 5 {
            line = 0;
        }
    }
    if shown {
        out.push('\n');
    }
}

/// One group's summary (fio's `show_group_stats`).
pub fn group(out: &mut String, g: &Group) {
    const NAMES: [&str; 3] = ["   READ", "  WRITE", "   TRIM"];
    let _ = writeln!(out, "\nRun status group {} (all jobs):", g.id);
    let line =
        |out: &mut String, name: &str, io: u64, agg: u64, bw: (u64, u64), run: (u64, u64)| {
            let sig = g.opts.sig_figs;
            let b = |v: u64, p2: bool| num2str(v, sig, 1, p2, rate_unit(&g.opts));
            let _ = writeln!(
                out,
                "{}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
                name,
                b(agg, true),
                b(agg, false),
                b(bw.0, true),
                b(bw.1, true),
                b(bw.0, false),
                b(bw.1, false),
                num2str(io, sig, 1, true, Unit::Byte),
                num2str(io, sig, 1, false, Unit::Byte),
                run.0,
                run.1
            );
        };
    let mixed = g.opts.unified == Unified::Mixed;
    for (i, name) in NAMES.iter().enumerate() {
        if g.max_run[i] == 0 {
            continue;
        }
        line(
            out,
            if mixed { "  MIXED" } else { name },
            g.iobytes[i],
            g.agg[i],
            (g.min_bw[i], g.max_bw[i]),
            (g.min_run[i], g.max_run[i]),
        );
    }
    // fio's show_mixed_group_stats: the directions' figures together
    if g.opts.unified == Unified::Both {
        let ran: Vec<usize> = (0..3).filter(|&i| g.max_run[i] > 0).collect();
        if !ran.is_empty() {
            let sum = |f: &[u64; 3]| ran.iter().map(|&i| f[i]).sum::<u64>();
            let lo = |f: &[u64; 3]| ran.iter().map(|&i| f[i]).min().unwrap_or(0);
            let hi = |f: &[u64; 3]| ran.iter().map(|&i| f[i]).max().unwrap_or(0);
            line(
                out,
                "  MIXED",
                sum(&g.iobytes),
                sum(&g.agg),
                (lo(&g.min_bw), hi(&g.max_bw)),
                (lo(&g.min_run), hi(&g.max_run)),
            );
        }
    }
}

/// fio's progress line (`--eta=always`, `--eta-newline`) at `s` seconds
/// with `ops` done at `rate` per second, and what is being done before
/// the timed phase, if anything.
pub fn eta_line(s: u64, ops: u64, rate: f64, what: &str) -> String {
    let mut l = format!(
        "fio: [{:02}m:{:02}s] {ops} I/Os, {rate:.0} IOPS",
        s / 60,
        s % 60
    );
    if !what.is_empty() {
        l.push_str(&format!(" ({what})"));
    }
    l
}
