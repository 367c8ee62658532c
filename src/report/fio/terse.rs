//! fio's terse format (`--minimal`, `--output-format=terse`): one line of
//! `;`-separated fields per job (fio's `show_thread_status_terse_all`),
//! versions 2 to 5 (`--terse-version`, 3 by default).
//!
//! The fields, in fio's order (docs/fio-output.md names each one):
//!
//! ```text
//! 3;VERSION;NAME;GROUPID;ERROR            (version 2: 2;NAME;GROUPID;ERROR)
//! per direction: read, write, then trim (versions 2, 4, 5):
//!   KiB;BW KiB/s;IOPS;RUNTIME ms
//!   slat  min;max;mean;stddev (µs)
//!   clat  min;max;mean;stddev (µs)
//!   20 × P%=VALUE (µs; `0%=0` past the percentile list)
//!   lat   min;max;mean;stddev (µs)
//!   bw    min;max;share of the group %;mean;stddev (KiB/s)
//!   (version 5) bw samples; iops min;max;mean;stddev;samples
//! usr%;sys%;ctx;majf;minf
//! 7 × I/O depth share %  (1, 2, 4, 8, 16, 32, ≥64)
//! 10 × latency share % under 2, 4, 10, …, 1000 µs (the ns ones in the first)
//! 12 × latency share % under 2, 4, 10, …, 2000 ms, ≥2000 ms
//! (version ≥ 3) per disk: ;NAME;r_ios;w_ios;r_merge;w_merge;r_ticks;w_ticks;in_queue;util%
//! (with a description) ;DESCRIPTION
//! ```
//!
//! Each figure comes from the same [`FioJobReport`] the normal and JSON
//! reports print, so it is filled as fio fills it; what iogauge does not
//! measure (slat of a synchronous engine, bandwidth samples of a job
//! shorter than a second) is written as fio writes a figure it has no
//! samples for: zeros.

use super::num::fixed;
use super::text::{Group, groups, moments};
use super::{DirReport, DiskUtil, FioJobReport, LatStat, PERCENTILES};
use std::fmt::Write;

/// fio's `FIO_IO_U_LIST_MAX_LEN`: the percentile fields of a direction.
const PERCENTILE_FIELDS: usize = 20;

/// The terse versions fio writes.
pub const VERSIONS: [u8; 4] = [2, 3, 4, 5];

/// One line per job of `jobs`, in terse `version` (2 to 5), `fio_version`
/// in its second field (versions 3 to 5) and `disks` at the end of each.
pub fn render(jobs: &[FioJobReport], disks: &[DiskUtil], fio_version: &str, version: u8) -> String {
    assert!(VERSIONS.contains(&version), "terse version {version}");
    let gs = groups(jobs);
    let mut out = String::new();
    for j in jobs {
        let g = gs
            .iter()
            .find(|(g, _)| g.id == j.groupid)
            .map(|(g, _)| g)
            .expect("every job is in its group");
        line(&mut out, j, g, disks, fio_version, version);
    }
    out
}

fn line(
    out: &mut String,
    j: &FioJobReport,
    g: &Group,
    disks: &[DiskUtil],
    fio_version: &str,
    ver: u8,
) {
    if ver == 2 {
        let _ = write!(out, "2;{};{};{}", j.name, j.groupid, j.error);
    } else {
        let _ = write!(
            out,
            "{ver};{fio_version};{};{};{}",
            j.name, j.groupid, j.error
        );
    }
    let dirs = if ver == 3 { 2 } else { 3 };
    for (i, d) in j.dirs().into_iter().enumerate().take(dirs) {
        ddir(out, d, g, i, ver);
    }
    let _ = write!(
        out,
        ";{}%;{}%;{};{};{}",
        fixed(j.usr_cpu(), 6),
        fixed(j.sys_cpu(), 6),
        j.ctx,
        j.majf,
        j.minf
    );
    for v in j.depth_dist() {
        let _ = write!(out, ";{}%", fixed(v, 1));
    }
    let (_, mut u, m) = j.latency_buckets();
    // the ns buckets go into the first µs one, unrounded (fio's
    // stat_calc_lat_nu keeps the terse layout of before ns buckets)
    let total = j.ios_total();
    if total > 0 {
        u[0] += 100.0 * below_1us(j) as f64 / total as f64;
    }
    for v in u.iter().chain(&m) {
        let _ = write!(out, ";{}%", fixed(*v, 2));
    }
    if ver >= 3 {
        for d in disks {
            let _ = write!(
                out,
                ";{};{};{};{};{};{};{};{};{}%",
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
    if let Some(desc) = j.description.as_deref().filter(|d| !d.is_empty()) {
        if ver == 2 {
            out.push('\n');
        }
        let _ = write!(out, ";{desc}");
    }
    out.push('\n');
}

/// I/Os that completed in under a microsecond (fio's `io_u_lat_n`), from
/// the histograms the latency buckets come from.
fn below_1us(j: &FioJobReport) -> u64 {
    let mut n = 0;
    for d in j.dirs().into_iter().flatten() {
        let (_, Some(src)) = d.percentile_source() else {
            continue;
        };
        let Some(h) = &src.hist else { continue };
        for v in h.iter_recorded() {
            let ns = h
                .highest_equivalent(v.value_iterated_to())
                .clamp(src.min.min(src.max), src.max);
            if ns < 1000 {
                n += v.count_since_last_iteration();
            }
        }
    }
    n
}

/// min;max;mean;stddev in µs (fio's `calc_lat` of ns, each divided by
/// 1000: the integers truncated), zeros without samples.
fn lat_us(out: &mut String, s: Option<&LatStat>) {
    match s.filter(|s| s.n > 0) {
        Some(s) => {
            let _ = write!(
                out,
                ";{};{};{};{}",
                s.min / 1000,
                s.max / 1000,
                fixed(s.mean / 1000.0, 6),
                fixed(s.stddev / 1000.0, 6)
            );
        }
        None => out.push_str(";0;0;0.000000;0.000000"),
    }
}

fn ddir(out: &mut String, d: Option<&DirReport>, g: &Group, i: usize, ver: u8) {
    let empty = DirReport::default();
    let d = d.unwrap_or(&empty);
    let (bw, iops) = if d.runtime_ms > 0 {
        (
            (1000 * d.io_bytes as u128 / d.runtime_ms as u128 / 1024) as u64,
            (1000 * d.total_ios as u128 / d.runtime_ms as u128) as u64,
        )
    } else {
        (0, 0)
    };
    let _ = write!(out, ";{};{bw};{iops};{}", d.io_bytes >> 10, d.runtime_ms);
    lat_us(out, d.slat.as_ref());
    lat_us(out, d.clat.as_ref());
    let (_, src) = d.percentile_source();
    // without samples fio still names its list, each at 0
    let list: Vec<(f64, u64)> = match src.filter(|s| s.n > 0).and_then(LatStat::percentiles) {
        Some(p) => p,
        None => PERCENTILES.iter().map(|&p| (p, 0)).collect(),
    };
    for k in 0..PERCENTILE_FIELDS {
        match list.get(k) {
            Some((p, v)) => {
                let _ = write!(out, ";{}%={}", fixed(*p, 6), v / 1000);
            }
            None => out.push_str(";0%=0"),
        }
    }
    lat_us(out, Some(&d.lat));
    let bw_stat = moments(&d.bw_samples);
    match bw_stat {
        Some((min, max, mean, dev)) => {
            let _ = write!(
                out,
                ";{};{};{}%;{};{}",
                min as u64,
                max as u64,
                fixed(g.share(i, mean), 6),
                fixed(mean, 6),
                fixed(dev, 6)
            );
        }
        None => out.push_str(";0;0;0.000000%;0.000000;0.000000"),
    }
    if ver == 5 {
        let _ = write!(out, ";{}", d.bw_samples.len());
        match moments(&d.iops_samples) {
            Some((min, max, mean, dev)) => {
                let _ = write!(
                    out,
                    ";{};{};{};{};{}",
                    min as u64,
                    max as u64,
                    fixed(mean, 6),
                    fixed(dev, 6),
                    d.iops_samples.len()
                );
            }
            None => out.push_str(";0;0;0.000000;0.000000;0"),
        }
    }
}

/// The number of `;`-separated fields of a terse line of `version` with
/// `disks` disks and no description (fio's layout).
pub fn field_count(version: u8, disks: usize) -> usize {
    let per_dir = 4 + 4 + 4 + PERCENTILE_FIELDS + 4 + 5 + if version == 5 { 6 } else { 0 };
    let head = if version == 2 { 4 } else { 5 };
    let dirs = if version == 3 { 2 } else { 3 };
    let disk = if version >= 3 { 9 * disks } else { 0 };
    head + dirs * per_dir + 5 + 7 + 10 + 12 + disk
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{CpuTimes, OpKind, WorkerStats};
    use std::time::Duration;

    fn report() -> FioJobReport {
        let mut st = WorkerStats::new(&[OpKind::Read]);
        // 4 reads of 4 KiB: 500 ns, 1.5 µs, 3 µs, 2 ms
        for lat in [500, 1_500, 3_000, 2_000_000] {
            st.record(OpKind::Read, lat, 4096, 0);
        }
        let cpu = CpuTimes {
            user: Duration::from_millis(10),
            sys: Duration::from_millis(30),
            ctx_switches: 7,
            minor_faults: 11,
            ..Default::default()
        };
        FioJobReport::new("t", 0, "read", "psync", 1).from_stats(
            &st,
            1,
            Duration::from_millis(100),
            &cpu,
        )
    }

    #[test]
    fn a_line_has_fios_fields_in_fios_order() {
        let r = report();
        let line = render(std::slice::from_ref(&r), &[], "iogauge-x", 3);
        let f: Vec<&str> = line.trim_end().split(';').collect();
        assert_eq!(f.len(), field_count(3, 0));
        assert_eq!(&f[..5], &["3", "iogauge-x", "t", "0", "0"]);
        // 16 KiB in 100 ms: 160 KiB/s, 40 IOPS
        assert_eq!(&f[5..9], &["16", "160", "40", "100"]);
        // no slat for a call per I/O; clat = the call, in µs
        assert_eq!(&f[9..13], &["0", "0", "0.000000", "0.000000"]);
        assert_eq!(&f[13..15], &["0", "2000"]);
        assert_eq!(f[15], "501.250000");
        assert!(f[17].starts_with("1.000000%="));
        assert_eq!(&f[34..37], &["0%=0", "0%=0", "0%=0"]);
        // lat = clat here; no bandwidth samples in 100 ms
        assert_eq!(&f[37..39], &["0", "2000"]);
        assert_eq!(&f[41..46], &["0", "0", "0.000000%", "0.000000", "0.000000"]);
        // the write direction: nothing, the percentile list at 0
        assert_eq!(&f[46..50], &["0", "0", "0", "0"]);
        assert_eq!(f[58], "1.000000%=0");
        // cpu: 10 and 30 ms of 100
        let cpu = 46 + 41;
        assert_eq!(
            &f[cpu..cpu + 5],
            &["10.000000%", "30.000000%", "7", "0", "11"]
        );
        assert_eq!(f[cpu + 5], "100.0%");
        // µs buckets: <2 µs holds the 500 ns one and the 1.5 µs one
        assert_eq!(f[cpu + 12], "50.00%");
        assert_eq!(f[cpu + 13], "25.00%");
        // ms buckets: 2 ms is in "4"
        assert_eq!(f[cpu + 23], "25.00%");
    }

    #[test]
    fn versions_differ_as_fios() {
        let mut r = report();
        let disk = DiskUtil {
            name: "vda".into(),
            read_ios: 3,
            util: 12.5,
            ..Default::default()
        };
        for v in VERSIONS {
            let line = render(
                std::slice::from_ref(&r),
                std::slice::from_ref(&disk),
                "V",
                v,
            );
            let n = line.trim_end().split(';').count();
            assert_eq!(n, field_count(v, 1), "version {v}");
        }
        let two = render(std::slice::from_ref(&r), &[], "V", 2);
        assert!(two.starts_with("2;t;0;0;16;"));
        let three = render(
            std::slice::from_ref(&r),
            std::slice::from_ref(&disk),
            "V",
            3,
        );
        assert!(three.ends_with(";vda;3;0;0;0;0;0;0;12.50%\n"), "{three}");
        r.description = Some("a b".into());
        let d = render(std::slice::from_ref(&r), &[], "V", 3);
        assert!(d.ends_with(";a b\n"));
        let d2 = render(std::slice::from_ref(&r), &[], "V", 2);
        assert!(d2.ends_with("\n;a b\n"));
    }
}
