//! fio's "Disk stats" and `disk_util`: the counters of the device a
//! directory is on, from /proc/diskstats, before and after a run. Only a
//! block device has them: a directory on tmpfs, overlayfs or NFS gets none
//! (fio prints none there either).

use super::DiskUtil;
use std::path::Path;
use std::time::Instant;

/// One device's line of /proc/diskstats (the fields fio reads).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub name: String,
    pub read_ios: u64,
    pub read_merges: u64,
    pub read_ticks: u64,
    pub write_ios: u64,
    pub write_merges: u64,
    pub write_ticks: u64,
    /// Milliseconds the device had I/O in flight.
    pub io_ticks: u64,
    /// Weighted milliseconds (in flight × time).
    pub time_in_queue: u64,
}

/// `name`'s line in the text of /proc/diskstats.
pub fn parse(text: &str, name: &str) -> Option<Counters> {
    text.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 14 || f[2] != name {
            return None;
        }
        let n = |i: usize| f[i].parse::<u64>().ok();
        Some(Counters {
            name: name.to_string(),
            read_ios: n(3)?,
            read_merges: n(4)?,
            read_ticks: n(6)?,
            write_ios: n(7)?,
            write_merges: n(8)?,
            write_ticks: n(10)?,
            io_ticks: n(12)?,
            time_in_queue: n(13)?,
        })
    })
}

/// The block device `path` is on (the whole disk for a partition), by its
/// kernel name: `vda`, `nvme0n1`. `None` where there is none.
pub fn device_of(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).ok()?.dev();
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let sys = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    let disk = if sys.join("partition").exists() {
        sys.parent()?.to_path_buf()
    } else {
        sys
    };
    Some(disk.file_name()?.to_string_lossy().into_owned())
}

/// The counters of a device at the start of a run.
#[derive(Clone, Debug)]
pub struct Watch {
    before: Counters,
    start: Instant,
}

impl Watch {
    /// Start watching the device under `dir`; `None` when it has none.
    pub fn start(dir: &Path) -> Option<Watch> {
        let name = device_of(dir)?;
        let text = std::fs::read_to_string("/proc/diskstats").ok()?;
        Some(Watch {
            before: parse(&text, &name)?,
            start: Instant::now(),
        })
    }

    /// What the device did since [`Watch::start`].
    pub fn finish(&self) -> Option<DiskUtil> {
        let text = std::fs::read_to_string("/proc/diskstats").ok()?;
        let after = parse(&text, &self.before.name)?;
        let ms = self.start.elapsed().as_millis() as u64;
        Some(delta(&self.before, &after, ms))
    }
}

/// fio's figures between two readings `ms` milliseconds apart: counts
/// and ticks as differences, util as the busy share of the time (≤ 100).
pub fn delta(a: &Counters, b: &Counters, ms: u64) -> DiskUtil {
    let busy = b.io_ticks.saturating_sub(a.io_ticks);
    DiskUtil {
        name: b.name.clone(),
        read_ios: b.read_ios.saturating_sub(a.read_ios),
        write_ios: b.write_ios.saturating_sub(a.write_ios),
        read_merges: b.read_merges.saturating_sub(a.read_merges),
        write_merges: b.write_merges.saturating_sub(a.write_merges),
        read_ticks: b.read_ticks.saturating_sub(a.read_ticks),
        write_ticks: b.write_ticks.saturating_sub(a.write_ticks),
        in_queue: b.time_in_queue.saturating_sub(a.time_in_queue),
        util: if ms == 0 {
            0.0
        } else {
            (busy as f64 * 100.0 / ms as f64).min(100.0)
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "   7       0 loop0 5518 73 450016 799 21627 18989 5153822 23126 0 8216 29188 30 0 1867806 120 4003 5142
 254       0 vda 1000 10 8000 200 500 5 4000 300 0 400 520 0 0 0 0 0 0
 254       1 vda1 900 9 7000 190 400 4 3000 280 0 380 500
";
    const B: &str = " 254       0 vda 1600 10 12800 290 800 7 6400 700 1 900 1010 0 0 0 0 0 0
";

    #[test]
    fn parses_and_subtracts_as_fio() {
        let a = parse(A, "vda").unwrap();
        assert_eq!(
            (
                a.read_ios,
                a.read_merges,
                a.read_ticks,
                a.write_ios,
                a.write_merges
            ),
            (1000, 10, 200, 500, 5)
        );
        assert_eq!(
            (a.write_ticks, a.io_ticks, a.time_in_queue),
            (300, 400, 520)
        );
        assert!(parse(A, "vdb").is_none());
        assert_eq!(parse(A, "vda1").unwrap().read_ios, 900);
        let b = parse(B, "vda").unwrap();
        let d = delta(&a, &b, 1000);
        assert_eq!((d.read_ios, d.write_ios, d.write_merges), (600, 300, 2));
        assert_eq!((d.read_ticks, d.write_ticks, d.in_queue), (90, 400, 490));
        assert_eq!(d.util, 50.0);
        assert_eq!(delta(&a, &b, 100).util, 100.0);
    }

    #[test]
    fn a_directory_in_memory_has_no_disk() {
        // /proc is no block device
        assert!(device_of(Path::new("/proc")).is_none());
    }
}
