//! What a run ran on: host, kernel, CPU, memory, and — above all — the file
//! system, its mount options and the device under the target directory.
//!
//! A storage result is meaningless without this context. The same workload
//! gives numbers an order of magnitude apart on ext4 versus tmpfs, with or
//! without `data=journal`, `sync`, `noatime` or `discard`, on a virtio disk
//! versus NVMe, with `mq-deadline` versus `none`, or with a `tsc` versus a
//! `hpet` clock source timing every operation. [`detect`] records all of it in
//! the `environment` part of the result schema (docs/result-schema.json), so
//! two results can be compared honestly, or shown not to be comparable.
//!
//! Detection never fails: whatever cannot be read stays empty (or zero). The
//! helpers [`free_bytes`] and [`supports_direct`] let a run check, before it
//! writes, that it has room and that the `direct` engine can work there.

pub mod device;

use std::ffi::CStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use rustix::fs::{Mode, OFlags};
use serde::{Deserialize, Serialize};

/// The machine and storage a run measured (the result's `environment`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Environment {
    /// Host name (`uname` nodename).
    pub hostname: String,
    /// `PRETTY_NAME` of `/etc/os-release`.
    pub os: String,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// Machine architecture of the running kernel (`uname -m`).
    pub arch: String,
    /// CPU model name from `/proc/cpuinfo`.
    pub cpu_model: String,
    /// Available parallelism (respects affinity and cgroup quotas); 0 if unknown.
    pub cpus: usize,
    /// `MemTotal` of `/proc/meminfo`, in bytes.
    pub memory_bytes: u64,
    /// The first CPU's data and unified caches, first level first, e.g.
    /// `L1d 48 KiB, L2 2 MiB, L3 260 MiB`; empty if sysfs does not say.
    /// What lies between them is where throughput steps (a self-scaling
    /// model's regions), and a VM moved to another host may have other ones.
    pub cpu_caches: String,
    /// Size of the last-level cache in bytes (the last of `cpu_caches`); 0
    /// if unknown.
    pub llc_bytes: u64,
    /// File system type of the mount holding the target, e.g. `ext4`.
    pub fs_type: String,
    /// Per-mount options then super-block options, as in mountinfo, each
    /// option once (e.g. `rw,relatime,discard`).
    pub mount_options: String,
    /// Mount point holding the target.
    pub mount_point: String,
    /// Mount source, e.g. `/dev/vda`.
    pub device: String,
    /// Canonical target directory.
    pub target_dir: String,
    /// Current kernel clock source, e.g. `tsc`; empty if absent.
    pub clocksource: String,
    /// Active I/O scheduler of the backing block device (e.g. `mq-deadline`,
    /// `none`); empty if there is no block device (tmpfs, NFS, ...).
    pub io_scheduler: String,
    /// The raw block device the run worked on (`--device`), in place of a
    /// file system: then `fs_type`, `mount_*` and `target_dir` are empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_device: Option<device::BlockDevice>,
}

/// One line of `/proc/self/mountinfo`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MountInfo {
    /// Mount point, unescaped (`\040` becomes a space).
    pub mount_point: String,
    /// File system type, e.g. `ext4`, `tmpfs`, `fuse.sshfs`.
    pub fs_type: String,
    /// Mount source, unescaped, e.g. `/dev/vda`, `tmpfs`, `server:/export`.
    pub source: String,
    /// Per-mount options, e.g. `rw,relatime`.
    pub mount_options: String,
    /// Super-block options, e.g. `rw,discard`.
    pub super_options: String,
    /// Major device number (`st_dev`) of the mounted file system.
    pub major: u32,
    /// Minor device number (`st_dev`) of the mounted file system.
    pub minor: u32,
}

impl MountInfo {
    /// Per-mount options followed by super-block options, each once, in order.
    pub fn all_options(&self) -> String {
        let mut seen: Vec<&str> = Vec::new();
        for opt in self
            .mount_options
            .split(',')
            .chain(self.super_options.split(','))
        {
            if !opt.is_empty() && !seen.contains(&opt) {
                seen.push(opt);
            }
        }
        seen.join(",")
    }
}

/// Describe the machine and the storage under `target`.
///
/// Never fails: fields that cannot be determined stay empty. `target` need
/// not exist yet; its nearest existing ancestor decides the mount.
pub fn detect(target: &Path) -> Environment {
    detect_on(target, mount_for(target))
}

/// [`detect`] with the mount of `target` already looked up (it costs a read
/// of /proc/self/mountinfo).
pub fn detect_on(target: &Path, mount: Option<MountInfo>) -> Environment {
    let uts = rustix::system::uname();
    let machine = lossy(uts.machine());
    let mut env = Environment {
        hostname: lossy(uts.nodename()),
        os: os_pretty_name(),
        kernel: lossy(uts.release()),
        arch: if machine.is_empty() {
            std::env::consts::ARCH.to_string()
        } else {
            machine
        },
        cpu_model: cpu_model(),
        cpus: std::thread::available_parallelism().map_or(0, |n| n.get()),
        memory_bytes: mem_total(),
        clocksource: read_trimmed(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        ),
        ..Environment::default()
    };
    (env.cpu_caches, env.llc_bytes) = cpu_caches();
    if let Some((canonical, _)) = resolve(target) {
        env.target_dir = canonical.to_string_lossy().into_owned();
    }
    if let Some(m) = mount {
        env.fs_type = m.fs_type.clone();
        env.mount_options = m.all_options();
        env.mount_point = m.mount_point.clone();
        env.device = m.source.clone();
        env.io_scheduler = io_scheduler(&m);
    }
    env
}

/// [`detect`] for a run on the raw block device `dev`: the machine, the
/// device as its source and its scheduler, no file system.
pub fn detect_device(dev: &device::BlockDevice) -> Environment {
    let mut env = detect_on(&dev.path, None);
    env.target_dir.clear();
    env.device = dev.path.to_string_lossy().into_owned();
    let (major, minor) = dev
        .dev
        .split_once(':')
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .unwrap_or((0, 0));
    env.io_scheduler = io_scheduler(&MountInfo {
        source: env.device.clone(),
        major,
        minor,
        ..MountInfo::default()
    });
    env.block_device = Some(dev.clone());
    env
}

/// The mountinfo entry that holds `path`: match by `st_dev` (major:minor)
/// against `/proc/self/mountinfo`, preferring the longest mount point that
/// is a prefix of the canonical path.
///
/// If `path` does not exist, its nearest existing ancestor is used. When no
/// entry has the same device (btrfs subvolumes, some overlay set-ups), the
/// longest covering mount point wins regardless of device. Among equally
/// long candidates (stacked mounts) the last mounted, the visible one, wins.
pub fn mount_for(path: &Path) -> Option<MountInfo> {
    let (_, existing) = resolve(path)?;
    let st = rustix::fs::stat(&existing).ok()?;
    pick_mount(
        mounts(),
        &existing,
        rustix::fs::major(st.st_dev),
        rustix::fs::minor(st.st_dev),
    )
}

/// This process's mounts, read from `/proc/self/mountinfo` on the first call
/// and kept: a run looks up several paths' mounts (checks, environment,
/// device counters), and a short run such as PostMark's defaults spends a
/// visible share of its time on the reads. iogauge mounts nothing that these
/// lookups could miss (IOzone's -U mounts the same device at the same place,
/// and reads the table afresh itself). Empty when the file cannot be read.
pub fn mounts() -> &'static [MountInfo] {
    static MOUNTS: OnceLock<Vec<MountInfo>> = OnceLock::new();
    MOUNTS.get_or_init(|| {
        fs::read_to_string("/proc/self/mountinfo")
            .map(|text| parse_mountinfo(&text))
            .unwrap_or_default()
    })
}

/// Parse the text of `/proc/<pid>/mountinfo` (see proc(5)). Octal escapes
/// (`\040` space, `\011` tab, `\012` newline, `\134` backslash) in the mount
/// point and source are decoded; option strings are kept as written.
/// Malformed lines are skipped.
pub fn parse_mountinfo(text: &str) -> Vec<MountInfo> {
    text.lines().filter_map(parse_mountinfo_line).collect()
}

/// Free bytes available to an unprivileged writer (statvfs `f_bavail * f_frsize`).
pub fn free_bytes(path: &Path) -> io::Result<u64> {
    let st = rustix::fs::statvfs(path)?;
    Ok(st.f_bavail.saturating_mul(block_unit(&st)))
}

/// The unit of statvfs's block counts: `f_frsize`, or `f_bsize` where the
/// file system leaves it 0.
pub fn block_unit(st: &rustix::fs::StatVfs) -> u64 {
    if st.f_frsize != 0 {
        st.f_frsize
    } else {
        st.f_bsize
    }
}

/// Whether the file system accepts `O_DIRECT`: create a temporary file in
/// `dir` with `O_DIRECT`, then remove it at once. Returns `Ok(false)` on
/// `EINVAL`, the file system's refusal (the kernel may already have created
/// the file by then; it is removed too). Other errors (no such directory,
/// permission denied, ...) are returned.
///
/// This checks the open only; a few file systems accept the flag at open and
/// reject unaligned or all direct transfers later.
pub fn supports_direct(dir: &Path) -> io::Result<bool> {
    static SEQ: AtomicU32 = AtomicU32::new(0);
    let pid = rustix::process::getpid().as_raw_nonzero().get();
    let flags = OFlags::CREATE
        | OFlags::EXCL
        | OFlags::WRONLY
        | OFlags::DIRECT
        | OFlags::CLOEXEC
        | OFlags::NOFOLLOW;
    for _ in 0..64 {
        let seq = SEQ.fetch_add(1, Ordering::Relaxed);
        let name = dir.join(format!(".iogauge-odirect-{pid}-{seq}"));
        match rustix::fs::open(&name, flags, Mode::RUSR | Mode::WUSR) {
            Ok(fd) => {
                let removed = fs::remove_file(&name);
                drop(fd);
                removed?;
                return Ok(true);
            }
            Err(rustix::io::Errno::INVAL) => {
                remove_if_present(&name)?;
                return Ok(false);
            }
            Err(rustix::io::Errno::EXIST) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "could not find a free temporary name in {} to probe O_DIRECT",
            dir.display()
        ),
    ))
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// `(canonical path, nearest existing ancestor canonicalized)`: the target
/// made absolute, with its existing part resolved and the rest appended.
fn resolve(path: &Path) -> Option<(PathBuf, PathBuf)> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    for ancestor in abs.ancestors() {
        if let Ok(existing) = fs::canonicalize(ancestor) {
            let rest = abs.strip_prefix(ancestor).ok()?;
            let full = if rest.as_os_str().is_empty() {
                existing.clone()
            } else {
                existing.join(rest)
            };
            return Some((full, existing));
        }
    }
    None
}

/// Choose the entry for a canonical `path` on device `major:minor`.
fn pick_mount(mounts: &[MountInfo], path: &Path, major: u32, minor: u32) -> Option<MountInfo> {
    let best = |same_dev: bool| {
        mounts
            .iter()
            .filter(|m| !same_dev || (m.major, m.minor) == (major, minor))
            .filter(|m| path.starts_with(&m.mount_point))
            // max_by_key keeps the last of equal keys: the most recent mount.
            .max_by_key(|m| m.mount_point.len())
            .cloned()
    };
    best(true).or_else(|| best(false))
}

fn parse_mountinfo_line(line: &str) -> Option<MountInfo> {
    // Split on single spaces: an empty field (e.g. an empty source) must not
    // shift the ones after it.
    let fields: Vec<&str> = line.trim_end_matches(['\r', '\n']).split(' ').collect();
    let sep = 6 + fields.get(6..)?.iter().position(|f| *f == "-")?;
    let (major, minor) = fields[2].split_once(':')?;
    Some(MountInfo {
        mount_point: unescape(fields[4]),
        fs_type: unescape(fields.get(sep + 1)?),
        source: fields
            .get(sep + 2)
            .map_or_else(String::new, |s| unescape(s)),
        mount_options: fields[5].to_string(),
        super_options: fields.get(sep + 3).map_or("", |s| s).to_string(),
        major: major.parse().ok()?,
        minor: minor.parse().ok()?,
    })
}

/// Decode the kernel's `\ooo` octal escapes; anything else is kept as is.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = |j: usize| matches!(b.get(j), Some(b'0'..=b'7'));
        if b[i] == b'\\'
            && matches!(b.get(i + 1), Some(b'0'..=b'3'))
            && octal(i + 2)
            && octal(i + 3)
        {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn lossy(s: &CStr) -> String {
    s.to_string_lossy().into_owned()
}

fn read_trimmed(path: impl AsRef<Path>) -> String {
    fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn os_pretty_name() -> String {
    let text = fs::read_to_string("/etc/os-release")
        .or_else(|_| fs::read_to_string("/usr/lib/os-release"))
        .unwrap_or_default();
    os_release_value(&text, "PRETTY_NAME")
        .or_else(|| os_release_value(&text, "NAME"))
        .unwrap_or_default()
}

/// The value of `key` in os-release(5) text, unquoted.
fn os_release_value(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (k, v) = line.trim().split_once('=')?;
        (k == key).then(|| unquote(v.trim()))
    })
}

/// Strip shell-style single or double quotes, decoding backslash escapes
/// inside double quotes.
fn unquote(v: &str) -> String {
    if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') {
        return v[1..v.len() - 1].to_string();
    }
    let inner = if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        &v[1..v.len() - 1]
    } else {
        v
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn cpu_model() -> String {
    // The first CPU's record says it. Reading the whole file makes the
    // kernel sample every CPU's clock (an interrupt to each, slow in a
    // VM), so the first 4 KiB come first and the rest only if needed.
    use std::io::Read;
    let mut head = Vec::with_capacity(4096);
    if let Ok(f) = fs::File::open("/proc/cpuinfo") {
        let _ = f.take(4096).read_to_end(&mut head);
    }
    cpu_model_in(&String::from_utf8_lossy(&head))
        .or_else(|| cpu_model_in(&fs::read_to_string("/proc/cpuinfo").ok()?))
        .unwrap_or_default()
}

/// The CPU model named in the text of /proc/cpuinfo.
fn cpu_model_in(text: &str) -> Option<String> {
    // x86 and most others say "model name"; older ARM "Processor", MIPS
    // "cpu model", POWER "cpu", some ARM boards only "Hardware".
    ["model name", "Processor", "cpu model", "cpu", "Hardware"]
        .iter()
        .find_map(|want| {
            text.lines().find_map(|line| {
                let (k, v) = line.split_once(':')?;
                (k.trim() == *want && !v.trim().is_empty()).then(|| v.trim().to_string())
            })
        })
}

/// The first CPU's caches from sysfs: the description and the last
/// level's size (see [`Environment::cpu_caches`]).
fn cpu_caches() -> (String, u64) {
    let base = Path::new("/sys/devices/system/cpu/cpu0/cache");
    let Ok(dir) = fs::read_dir(base) else {
        return (String::new(), 0);
    };
    let entries: Vec<(String, String, String)> = dir
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("index"))
        .map(|e| {
            let p = e.path();
            (
                read_trimmed(p.join("level")),
                read_trimmed(p.join("type")),
                read_trimmed(p.join("size")),
            )
        })
        .collect();
    caches_from(&entries)
}

/// [`cpu_caches`] from (level, type, size) as sysfs spells them
/// (`1`, `Data`, `48K`): instruction caches and unreadable entries left out.
fn caches_from(entries: &[(String, String, String)]) -> (String, u64) {
    let mut c: Vec<(u32, &str, u64)> = entries
        .iter()
        .filter_map(|(level, kind, size)| {
            let level: u32 = level.parse().ok()?;
            let kind = match kind.as_str() {
                "Data" => "d",
                "Unified" => "",
                _ => return None,
            };
            let bytes = crate::units::parse_size(size).ok().filter(|&b| b > 0)?;
            Some((level, kind, bytes))
        })
        .collect();
    c.sort_unstable();
    c.dedup();
    let text = c
        .iter()
        .map(|(l, k, b)| format!("L{l}{k} {}", crate::units::short_bytes(*b)))
        .collect::<Vec<_>>()
        .join(", ");
    (text, c.last().map_or(0, |x| x.2))
}

/// Installed memory (`MemTotal`), in bytes; 0 when unknown.
pub fn mem_total() -> u64 {
    meminfo("MemTotal:")
}

/// Memory available for new use without swapping (`MemAvailable`), in
/// bytes; 0 when unknown.
pub fn mem_available() -> u64 {
    meminfo("MemAvailable:")
}

/// Memory the page cache could take now: available memory
/// (`MemAvailable`), or the memory limit of this process's control group
/// where that is lower (cgroup v2 `memory.max`, v1
/// `memory.limit_in_bytes`); 0 when unknown.
pub fn cache_room() -> u64 {
    let avail = mem_available();
    let text = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    match cgroup_memory_files(&text)
        .into_iter()
        .filter_map(|f| cgroup_limit(&fs::read_to_string(f).ok()?))
        .min()
    {
        Some(limit) if avail == 0 || limit < avail => limit,
        _ => avail,
    }
}

/// The files that may hold this process's memory limit, from
/// `/proc/self/cgroup`: the v2 group's `memory.max` and the v1 memory
/// group's `memory.limit_in_bytes` (at its path, and at the root of the
/// hierarchy, which a container sees as its own group).
fn cgroup_memory_files(proc_cgroup: &str) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for line in proc_cgroup.lines() {
        let mut f = line.splitn(3, ':');
        let (Some(_), Some(ctrl), Some(path)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let path = path.trim_start_matches('/');
        if ctrl.is_empty() {
            v.push(Path::new("/sys/fs/cgroup").join(path).join("memory.max"));
        } else if ctrl.split(',').any(|c| c == "memory") {
            let root = Path::new("/sys/fs/cgroup/memory");
            v.push(root.join(path).join("memory.limit_in_bytes"));
            v.push(root.join("memory.limit_in_bytes"));
        }
    }
    v
}

/// A cgroup memory limit file's value in bytes; `None` for no limit
/// (`max`, or v1's page-rounded 2^63).
fn cgroup_limit(text: &str) -> Option<u64> {
    let n: u64 = text.trim().parse().ok()?;
    (n < 1 << 60).then_some(n)
}

fn meminfo(key: &str) -> u64 {
    let text = fs::read_to_string("/proc/meminfo").unwrap_or_default();
    text.lines()
        .find_map(|line| {
            let rest = line.strip_prefix(key)?;
            let kib: u64 = rest.split_whitespace().next()?.parse().ok()?;
            Some(kib.saturating_mul(1024))
        })
        .unwrap_or(0)
}

/// Bytes a block device read and wrote since it appeared (its `stat` in
/// sysfs, in 512-byte sectors). The whole device's: other processes' I/O
/// at the same time counts too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceIo {
    pub read_bytes: u64,
    pub written_bytes: u64,
}

impl DeviceIo {
    /// What moved between `earlier` and `self`.
    pub fn since(&self, earlier: &DeviceIo) -> DeviceIo {
        DeviceIo {
            read_bytes: self.read_bytes.saturating_sub(earlier.read_bytes),
            written_bytes: self.written_bytes.saturating_sub(earlier.written_bytes),
        }
    }
}

/// The I/O counters of the block device under `path` (its partition's, when
/// it is on one); `None` when no block device holds it (tmpfs, a network
/// or FUSE file system) or sysfs does not say.
pub fn device_io(path: &Path) -> Option<DeviceIo> {
    let m = mount_for(path)?;
    block_sysfs(&m)
        .into_iter()
        .find_map(|d| fs::read_to_string(d.join("stat")).ok())
        .and_then(|t| parse_block_stat(&t))
}

/// `read_ios read_merges read_sectors read_ticks write_ios write_merges
/// write_sectors ...` (the kernel's Documentation/block/stat.rst).
fn parse_block_stat(text: &str) -> Option<DeviceIo> {
    let f: Vec<u64> = text
        .split_whitespace()
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    Some(DeviceIo {
        read_bytes: f.get(2)? * 512,
        written_bytes: f.get(6)? * 512,
    })
}

/// The sysfs directories that may describe the block device behind `m`:
/// `/sys/dev/block/MAJ:MIN` (a real device number), then the source's
/// kernel name under `/sys/class/block/` (btrfs and others report an
/// anonymous device number of their own).
fn block_sysfs(m: &MountInfo) -> Vec<PathBuf> {
    let mut candidates = Vec::new();
    if m.major != 0 {
        candidates.push(PathBuf::from(format!(
            "/sys/dev/block/{}:{}",
            m.major, m.minor
        )));
    }
    if m.source.starts_with("/dev/") {
        // Resolves /dev/mapper/x, /dev/disk/by-uuid/... to the kernel name.
        let dev = fs::canonicalize(&m.source).unwrap_or_else(|_| PathBuf::from(&m.source));
        if let Some(name) = dev.file_name() {
            candidates.push(Path::new("/sys/class/block").join(name));
        }
    }
    candidates
        .into_iter()
        .filter_map(|c| fs::canonicalize(c).ok())
        .collect()
}

/// The active scheduler of the block device behind `m`: via
/// `/sys/dev/block/MAJ:MIN`, else via the source's name under
/// `/sys/class/block/`; a partition uses its parent disk's queue.
fn io_scheduler(m: &MountInfo) -> String {
    for dir in block_sysfs(m) {
        for d in [Some(dir.as_path()), dir.parent()].into_iter().flatten() {
            if let Ok(text) = fs::read_to_string(d.join("queue/scheduler")) {
                return active_scheduler(&text);
            }
        }
    }
    String::new()
}

/// `none [mq-deadline] kyber` → `mq-deadline`; a lone `none` → `none`.
fn active_scheduler(text: &str) -> String {
    let text = text.trim();
    match (text.find('['), text.find(']')) {
        (Some(a), Some(b)) if a < b => text[a + 1..b].to_string(),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cgroup_memory_limits_are_found_and_read() {
        let v2 = cgroup_memory_files("0::/user.slice/a\n");
        assert_eq!(
            v2,
            [PathBuf::from("/sys/fs/cgroup/user.slice/a/memory.max")]
        );
        let v1 = cgroup_memory_files("4:memory:/x/y\n3:cpuset:/\n1:cpu,cpuacct:/\n");
        assert_eq!(
            v1,
            [
                PathBuf::from("/sys/fs/cgroup/memory/x/y/memory.limit_in_bytes"),
                PathBuf::from("/sys/fs/cgroup/memory/memory.limit_in_bytes")
            ]
        );
        assert!(cgroup_memory_files("garbage\n").is_empty());
        assert_eq!(cgroup_limit("max\n"), None);
        assert_eq!(cgroup_limit("9223372036854771712\n"), None);
        assert_eq!(cgroup_limit("1073741824\n"), Some(1 << 30));
        assert!(cache_room() > 0);
    }

    #[test]
    fn cpu_model_from_each_layout() {
        let x86 = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t\t: fpu\n";
        assert_eq!(
            cpu_model_in(x86).as_deref(),
            Some("Intel(R) Xeon(R) Processor")
        );
        let power =
            "processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\nclock\t\t: 2300MHz\n";
        assert_eq!(
            cpu_model_in(power).as_deref(),
            Some("POWER9 (raw), altivec supported")
        );
        let arm = "processor\t: 0\nBogoMIPS\t: 38.40\n\nHardware\t: BCM2835\n";
        assert_eq!(cpu_model_in(arm).as_deref(), Some("BCM2835"));
        assert_eq!(cpu_model_in("processor\t: 0\nmodel name\t:\n"), None);
        // this machine's, read as iogauge reads it
        assert!(!cpu_model().is_empty() || !std::path::Path::new("/proc/cpuinfo").exists());
    }

    #[test]
    fn cpu_caches_from_sysfs_entries() {
        let e = |l: &str, t: &str, s: &str| (l.to_string(), t.to_string(), s.to_string());
        // this machine's, in sysfs's directory order
        let vm = [
            e("1", "Data", "48K"),
            e("1", "Instruction", "32K"),
            e("2", "Unified", "2048K"),
            e("3", "Unified", "266240K"),
        ];
        assert_eq!(
            caches_from(&vm),
            ("L1d 48 KiB, L2 2 MiB, L3 260 MiB".to_string(), 266240 << 10)
        );
        // out of order, an unreadable size, no L3, 1.5 MiB
        let odd = [
            e("2", "Unified", "1536K"),
            e("1", "Data", "32K"),
            e("3", "Unified", ""),
        ];
        assert_eq!(
            caches_from(&odd),
            ("L1d 32 KiB, L2 1.5 MiB".to_string(), 1536 << 10)
        );
        assert_eq!(caches_from(&[]), (String::new(), 0));
        // read as iogauge reads it: a last level when there are caches
        let (text, llc) = cpu_caches();
        assert_eq!(text.is_empty(), llc == 0);
    }

    const SAMPLE: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime shared:1 master:2 - ext4 /dev/vda rw,discard,resuid=65534
36 27 98:0 /mnt1 /mnt/my\\040disk rw,noatime master:1 - ext3 /dev/my\\040dev rw,errors=continue
25 24 0:23 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw,size=24684096k
30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=1024k
this line is not mountinfo
31 27 0:40 / /empty\\134src rw - fuse.x  rw
";

    #[test]
    fn parses_sample() {
        let m = parse_mountinfo(SAMPLE);
        assert_eq!(m.len(), 6, "{m:#?}");
        // (mount point, type, source, mount options, super options); an
        // empty source does not shift the super options
        let want = [
            ("/proc", "proc", "proc", "rw,relatime", "rw"),
            (
                "/",
                "ext4",
                "/dev/vda",
                "rw,relatime",
                "rw,discard,resuid=65534",
            ),
            (
                "/mnt/my disk",
                "ext3",
                "/dev/my dev",
                "rw,noatime",
                "rw,errors=continue",
            ),
            (
                "/dev/shm",
                "tmpfs",
                "tmpfs",
                "rw,nosuid,nodev",
                "rw,size=24684096k",
            ),
            ("/dev/shm", "tmpfs", "tmpfs", "rw,relatime", "rw,size=1024k"),
            ("/empty\\src", "fuse.x", "", "rw", "rw"),
        ];
        for (got, want) in m.iter().zip(want) {
            let got = (
                got.mount_point.as_str(),
                got.fs_type.as_str(),
                got.source.as_str(),
                got.mount_options.as_str(),
                got.super_options.as_str(),
            );
            assert_eq!(got, want);
        }
        assert_eq!((m[1].major, m[1].minor), (254, 0));
        assert_eq!(m[1].all_options(), "rw,relatime,discard,resuid=65534");
        assert_eq!((m[2].major, m[2].minor), (98, 0));
    }

    #[test]
    fn unescapes_only_octal() {
        assert_eq!(unescape("a\\040b\\011c\\012d\\134e"), "a b\tc\nd\\e");
        assert_eq!(unescape("x\\9y\\04"), "x\\9y\\04");
        assert_eq!(unescape(""), "");
    }

    #[test]
    fn picks_by_device_then_longest_then_latest() {
        let m = parse_mountinfo(SAMPLE);
        // Stacked /dev/shm: the device decides.
        let p = pick_mount(&m, Path::new("/dev/shm/x"), 0, 27).unwrap();
        assert_eq!(p.super_options, "rw,size=1024k");
        let p = pick_mount(&m, Path::new("/dev/shm/x"), 0, 23).unwrap();
        assert_eq!(p.super_options, "rw,size=24684096k");
        // Unknown device: longest covering mount point, latest of equals.
        let p = pick_mount(&m, Path::new("/dev/shm"), 9, 9).unwrap();
        assert_eq!((p.major, p.minor), (0, 27));
        // Prefix is by component, not by string.
        let p = pick_mount(&m, Path::new("/mnt/my disk2"), 254, 0).unwrap();
        assert_eq!(p.mount_point, "/");
        let p = pick_mount(&m, Path::new("/mnt/my disk/a"), 98, 0).unwrap();
        assert_eq!(p.fs_type, "ext3");
    }

    #[test]
    fn unquotes_os_release() {
        let text =
            "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian \\\"12\\\"\"\nID=debian\nX='a b'\n";
        assert_eq!(
            os_release_value(text, "PRETTY_NAME").unwrap(),
            "Debian \"12\""
        );
        assert_eq!(os_release_value(text, "ID").unwrap(), "debian");
        assert_eq!(os_release_value(text, "X").unwrap(), "a b");
        assert!(os_release_value(text, "VERSION").is_none());
    }

    #[test]
    fn reads_active_scheduler() {
        assert_eq!(
            active_scheduler("none [mq-deadline] kyber bfq\n"),
            "mq-deadline"
        );
        assert_eq!(active_scheduler("[none] mq-deadline\n"), "none");
        assert_eq!(active_scheduler("none\n"), "none");
    }

    #[test]
    fn mount_for_root() {
        let m = mount_for(Path::new("/")).expect("mount for /");
        assert_eq!(m.mount_point, "/");
        assert!(!m.fs_type.is_empty());
        let st = rustix::fs::stat("/").unwrap();
        assert_eq!(
            (m.major, m.minor),
            (rustix::fs::major(st.st_dev), rustix::fs::minor(st.st_dev))
        );
    }

    #[test]
    fn mount_for_dev_shm_is_tmpfs() {
        if !Path::new("/dev/shm").is_dir() {
            return;
        }
        let m = mount_for(Path::new("/dev/shm")).expect("mount for /dev/shm");
        assert_eq!(m.fs_type, "tmpfs");
        assert_eq!(m.mount_point, "/dev/shm");
        let st = rustix::fs::stat("/dev/shm").unwrap();
        assert_eq!(
            (m.major, m.minor),
            (rustix::fs::major(st.st_dev), rustix::fs::minor(st.st_dev))
        );
        // A path that does not exist yet resolves through its ancestor.
        let m = mount_for(Path::new("/dev/shm/iogauge-no-such/dir")).unwrap();
        assert_eq!(m.fs_type, "tmpfs");
    }

    #[test]
    fn device_counters_exist_for_a_block_device_and_not_for_tmpfs() {
        assert_eq!(
            parse_block_stat("  10 0 24 3  7 1 16 9 0 4 12 0 0 0 0"),
            Some(DeviceIo {
                read_bytes: 24 * 512,
                written_bytes: 16 * 512
            })
        );
        assert_eq!(parse_block_stat("1 2"), None);
        if mount_for(Path::new("/dev/shm")).is_some_and(|m| m.fs_type == "tmpfs") {
            assert_eq!(device_io(Path::new("/dev/shm")), None);
        }
        // the root of a machine with a disk under it
        let root = mount_for(Path::new("/")).unwrap();
        if root.source.starts_with("/dev/") {
            let a = device_io(Path::new("/")).expect("counters of the root's device");
            let b = device_io(Path::new("/")).unwrap();
            assert!(b.read_bytes >= a.read_bytes && b.written_bytes >= a.written_bytes);
        } else {
            println!("skipped: / is on {}, not a block device", root.source);
        }
    }

    #[test]
    fn detect_current_dir() {
        let env = detect(Path::new("."));
        assert!(!env.kernel.is_empty());
        assert!(!env.hostname.is_empty());
        assert!(!env.arch.is_empty());
        assert!(env.cpus >= 1);
        assert!(env.memory_bytes > 0);
        assert!(!env.fs_type.is_empty());
        assert!(!env.mount_point.is_empty());
        let cwd = fs::canonicalize(".").unwrap();
        assert_eq!(env.target_dir, cwd.to_string_lossy());
        assert!(cwd.starts_with(&env.mount_point));
        let json = serde_json::to_string(&env).unwrap();
        let back: Environment = serde_json::from_str(&json).unwrap();
        assert_eq!(back, env);
        // Missing fields (older results) deserialize to empty.
        let old: Environment = serde_json::from_str(r#"{"kernel":"6.1"}"#).unwrap();
        assert_eq!(old.kernel, "6.1");
        assert_eq!(old.cpus, 0);
    }

    #[test]
    fn detect_missing_target_uses_ancestor() {
        let env = detect(Path::new("/tmp/iogauge-env-no-such/sub"));
        assert_eq!(
            env.target_dir,
            Path::new(&fs::canonicalize("/tmp").unwrap())
                .join("iogauge-env-no-such/sub")
                .to_string_lossy()
        );
        assert!(!env.fs_type.is_empty());
    }

    #[test]
    fn free_bytes_positive() {
        assert!(free_bytes(Path::new(".")).unwrap() > 0);
        assert!(free_bytes(Path::new("/iogauge-env-no-such")).is_err());
    }

    fn leftovers(dir: &Path) -> usize {
        let prefix = format!(".iogauge-odirect-{}-", std::process::id());
        fs::read_dir(dir)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            })
            .count()
    }

    fn kernel_at_least(major: u32, minor: u32) -> bool {
        let release = lossy(rustix::system::uname().release());
        let mut parts = release
            .split(|c: char| !c.is_ascii_digit())
            .map(|p| p.parse::<u32>().unwrap_or(0));
        let v = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        v >= (major, minor)
    }

    #[test]
    fn direct_on_tmpfs() {
        let shm = Path::new("/dev/shm");
        if mount_for(shm).is_none_or(|m| m.fs_type != "tmpfs") {
            return;
        }
        // tmpfs rejected O_DIRECT with EINVAL until Linux 6.6, which added
        // trivial direct I/O support to shmem.
        assert_eq!(supports_direct(shm).unwrap(), kernel_at_least(6, 6));
        assert_eq!(leftovers(shm), 0);
    }

    #[test]
    fn direct_on_tmp() {
        let tmp = Path::new("/tmp");
        let direct = supports_direct(tmp).unwrap();
        if mount_for(tmp).is_some_and(|m| matches!(m.fs_type.as_str(), "ext4" | "xfs" | "btrfs")) {
            assert!(direct);
        }
        assert_eq!(leftovers(tmp), 0);
    }

    #[test]
    fn direct_on_missing_dir_is_error() {
        let err = supports_direct(Path::new("/iogauge-env-no-such")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
