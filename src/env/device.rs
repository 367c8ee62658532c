//! Raw block devices (`--device PATH`, fio's `filename=/dev/…`): what a
//! run may do to one, checked before anything touches it.
//!
//! [`check`] is the one entry point. It opens the device as the run will
//! (read-only, or read-write when the run writes), asks the kernel its size
//! (`BLKGETSIZE64`) and its logical and physical block sizes (`BLKSSZGET`,
//! `BLKPBSZGET`: the logical one is what O_DIRECT requests must be
//! multiples of), and reads its model and whether it spins from sysfs.
//!
//! A run that writes is refused unless the user acknowledged the loss
//! (`allow_destroy`), and then still refused, unless `force`, when the
//! device is in use or holds something:
//!
//! ```text
//!   mounted          its major:minor (or one of its partitions', or of a
//!                    device stacked on it) in /proc/self/mountinfo, or its
//!                    path as a mount's source
//!   swap             it (or a partition of it) in /proc/swaps
//!   held             a holder in /sys/class/block/NAME/holders (LVM,
//!                    device-mapper, md), or open(O_EXCL) answers EBUSY
//!   signature        a file system, volume or partition table in its first
//!                    256 KiB: ext2/3/4, xfs, btrfs, vfat, ntfs, iso9660,
//!                    swap, LVM2 PV, LUKS, zfs label, GPT, MBR ([`signature`])
//! ```
//!
//! A run that only reads hurts nothing: none of these refuses it, and each
//! one that applies is kept as a note (the run says it reads a mounted
//! device, say).

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What the run will do to the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// The run writes to it.
    pub write: bool,
    /// The user acknowledged that writing destroys what the device holds
    /// (`--allow-destroy`).
    pub allow_destroy: bool,
    /// Write even to a device in use or holding a signature (`--force`).
    pub force: bool,
    /// The run opens it with O_DIRECT.
    pub direct: bool,
}

impl Access {
    /// A run that only reads.
    pub const READ: Access = Access {
        write: false,
        allow_destroy: false,
        force: false,
        direct: false,
    };
}

/// A block device a run works on, as [`check`] found it: recorded in the
/// result's `environment.block_device`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BlockDevice {
    /// Its canonical path (`/dev/loop0`, not `/dev/disk/by-id/…`).
    pub path: PathBuf,
    /// Its size in bytes (BLKGETSIZE64).
    pub bytes: u64,
    /// Logical block size (BLKSSZGET): the unit of O_DIRECT offsets and
    /// lengths.
    pub logical_block_bytes: u32,
    /// Physical block size (BLKPBSZGET): the unit below which the device
    /// writes read-modify-write.
    pub physical_block_bytes: u32,
    /// Its device number, `MAJOR:MINOR`.
    pub dev: String,
    /// The model the device reports (sysfs `device/model`, of the whole
    /// disk for a partition); empty when sysfs has none (loop, dm).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub model: String,
    /// Whether it spins (sysfs `queue/rotational`); absent when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotational: Option<bool>,
    /// The file a loop device reads and writes (sysfs `loop/backing_file`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backing_file: Option<String>,
    /// The run wrote to it.
    pub writes: bool,
    /// What it held or how it was in use, for a run that read it anyway or
    /// wrote with `--force`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl BlockDevice {
    /// One line for reports: path, size, block sizes, model.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{} ({}, {} B logical / {} B physical blocks",
            crate::error::shown_path(&self.path),
            crate::units::fmt_bytes(self.bytes),
            self.logical_block_bytes,
            self.physical_block_bytes
        );
        if !self.model.is_empty() {
            s += &format!(", {}", self.model);
        }
        match self.rotational {
            Some(true) => s += ", rotational",
            Some(false) => s += ", non-rotational",
            None => {}
        }
        s += if self.writes {
            ", written"
        } else {
            ", read-only"
        };
        s.push(')');
        s
    }

    /// Whether `align` bytes suit O_DIRECT on this device.
    pub fn direct_fits(&self, align: u64) -> bool {
        align.is_multiple_of(u64::from(self.logical_block_bytes.max(1)))
    }
}

/// Why a device cannot be used as asked: one line, without the flag's name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Missing, no block device, or it does not open or answer as asked.
    #[error("{0}")]
    Unusable(String),
    /// The run writes and the user did not pass `allow_destroy`: says what
    /// would be destroyed.
    #[error("{0}")]
    Destroy(String),
    /// The run writes to a device that is in use or holds a signature, and
    /// the user did not pass `force`.
    #[error("{0}")]
    InUse(String),
}

/// BLKGETSIZE64: `_IOR(0x12, 114, size_t)`, the size in bytes.
const BLKGETSIZE64: rustix::ioctl::Opcode = rustix::ioctl::opcode::read::<usize>(0x12, 114);

/// How many bytes of the device's head [`signature`] looks at: btrfs's
/// super block sits at 64 KiB, ZFS's first label fills 256 KiB.
pub const HEAD_BYTES: usize = 256 << 10;

/// Check `path` as a run that does `access` would use it, and describe
/// it. A refusal is one line without the flag's name (the caller puts
/// `--device PATH: ` or `filename=…: ` before it, and after a
/// [`Refusal::Destroy`] the way to run reads only). Nothing is
/// written; the device is opened, read (its first [`HEAD_BYTES`]) and
/// closed.
///
/// Refused: a path that is missing or no block device (a regular file or
/// a directory is pointed to `--file`/`--dir`); a device that does not
/// open as asked (O_DIRECT included); and when `access.write`, a run
/// without `allow_destroy` (the line says what would be destroyed), then,
/// without `force`, a device mounted, used as swap, held, or holding a
/// signature.
pub fn check(path: &Path, access: Access) -> Result<BlockDevice, Refusal> {
    use Refusal::{Destroy, InUse, Unusable};
    let md = fs::metadata(path).map_err(|e| {
        Unusable(match e.kind() {
            std::io::ErrorKind::NotFound => "does not exist".to_string(),
            _ => crate::error::io_reason(&e),
        })
    })?;
    let kind = md.file_type();
    if kind.is_file() {
        return Err(Unusable(
            "is a regular file, not a block device; use --file to run on a file".to_string(),
        ));
    }
    if kind.is_dir() {
        return Err(Unusable(
            "is a directory, not a block device; use --dir to run in a directory".to_string(),
        ));
    }
    if !kind.is_block_device() {
        return Err(Unusable("is not a block device".to_string()));
    }
    let canonical = fs::canonicalize(path).map_err(|e| Unusable(crate::error::io_reason(&e)))?;
    let rdev = md.rdev();
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    let mut how = fs::OpenOptions::new();
    how.read(true).custom_flags(libc::O_CLOEXEC);
    let file = how.open(path).map_err(|e| {
        Unusable(format!(
            "cannot be opened for reading ({})",
            crate::error::io_reason(&e)
        ))
    })?;
    let bytes = {
        // SAFETY: BLKGETSIZE64 writes one u64 (size_t on 64-bit Linux;
        // the kernel writes a u64 whatever the word size).
        let ctl = unsafe { rustix::ioctl::Getter::<BLKGETSIZE64, u64>::new() };
        // SAFETY: the opcode and its output type match, as above.
        unsafe { rustix::ioctl::ioctl(&file, ctl) }
            .map_err(|e| Unusable(format!("BLKGETSIZE64 failed ({e})")))?
    };
    let logical = rustix::fs::ioctl_blksszget(&file)
        .map_err(|e| Unusable(format!("BLKSSZGET failed ({e})")))?;
    let physical = rustix::fs::ioctl_blkpbszget(&file).unwrap_or(logical);
    if bytes == 0 {
        return Err(Unusable(
            "has no bytes (an empty loop device or a drive without a medium)".to_string(),
        ));
    }
    let head = read_head(&file, bytes);
    drop(file);
    let sys = sysfs_dir(major, minor);
    let mut dev = BlockDevice {
        path: canonical.clone(),
        bytes,
        logical_block_bytes: logical,
        physical_block_bytes: physical,
        dev: format!("{major}:{minor}"),
        model: sys.as_deref().map(model).unwrap_or_default(),
        rotational: sys.as_deref().and_then(rotational),
        backing_file: sys.as_deref().and_then(|d| {
            let t = fs::read_to_string(d.join("loop/backing_file")).ok()?;
            Some(t.trim().to_string()).filter(|t| !t.is_empty())
        }),
        writes: access.write,
        notes: Vec::new(),
    };
    // what the device holds and how it is used: refusals for a writer
    let found = signature(&head);
    let family = sys.as_deref().map(family).unwrap_or_default();
    let mut in_use = Vec::new();
    let mounts: Vec<String> = crate::env::mounts()
        .iter()
        .filter(|m| {
            family.iter().any(|f| f.dev == (m.major, m.minor))
                || (m.source.starts_with("/dev/")
                    && fs::canonicalize(&m.source)
                        .is_ok_and(|s| s == canonical || family.iter().any(|f| f.node == s)))
        })
        .map(|m| m.mount_point.clone())
        .collect();
    if !mounts.is_empty() {
        in_use.push(format!("is mounted at {}", mounts.join(", ")));
    }
    let swaps = swaps_on(&canonical, &family);
    if !swaps.is_empty() {
        in_use.push(format!("is in use as swap ({})", swaps.join(", ")));
    }
    let holders: Vec<String> = family.iter().flat_map(|f| f.holders.clone()).collect();
    if !holders.is_empty() {
        in_use.push(format!(
            "is held by {} (device-mapper, LVM or md)",
            holders.join(", ")
        ));
    }
    if in_use.is_empty() && access.write && exclusively_held(path) {
        in_use.push("is held open exclusively by another program (open O_EXCL: EBUSY)".into());
    }
    let what = match found {
        Some(s) => format!("the {s} on it"),
        None => "everything on it".to_string(),
    };
    if access.write && !access.allow_destroy {
        return Err(Destroy(format!(
            "the run writes to it, which destroys {what} ({}); pass --allow-destroy to acknowledge",
            crate::units::fmt_bytes(bytes)
        )));
    }
    if let Some(why) = in_use.first()
        && access.write
        && !access.force
    {
        return Err(InUse(format!(
            "{why}; writing would corrupt what uses it. Stop that use first, or pass --force"
        )));
    }
    if let Some(s) = found {
        let note = format!("holds {s} signature");
        if access.write && !access.force {
            return Err(InUse(format!(
                "{note} in its first blocks; the run would destroy it. Wipe it first (wipefs -a), or pass --force"
            )));
        }
        dev.notes.push(note);
    }
    dev.notes.extend(in_use);
    // the descriptors the engines open: O_DIRECT, read-write
    let mut how = fs::OpenOptions::new();
    how.read(true)
        .write(access.write)
        .custom_flags(libc::O_CLOEXEC | if access.direct { libc::O_DIRECT } else { 0 });
    how.open(path).map_err(|e| {
        Unusable(match e.raw_os_error() {
            Some(libc::EINVAL) if access.direct => "refuses O_DIRECT; drop --direct".to_string(),
            _ => format!(
                "cannot be opened for {} ({})",
                if access.write {
                    "reading and writing"
                } else {
                    "reading"
                },
                crate::error::io_reason(&e)
            ),
        })
    })?;
    Ok(dev)
}

/// The first [`HEAD_BYTES`] of the device (fewer when it is smaller, or
/// when a read fails: what was read is what is checked).
fn read_head(file: &fs::File, bytes: u64) -> Vec<u8> {
    use std::os::unix::fs::FileExt;
    let want = (HEAD_BYTES as u64).min(bytes) as usize;
    let mut head = vec![0u8; want];
    let mut got = 0;
    while got < want {
        match file.read_at(&mut head[got..], got as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    head.truncate(got);
    head
}

/// Whether another program holds the device open with O_EXCL (a mounted
/// file system, md, dm, swap, mkfs at work): our own O_EXCL open then
/// fails with EBUSY. Opened read-only and closed at once.
fn exclusively_held(path: &Path) -> bool {
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL | libc::O_CLOEXEC)
        .open(path)
        .is_err_and(|e| e.raw_os_error() == Some(libc::EBUSY))
}

/// The device's sysfs directory, `/sys/dev/block/MAJ:MIN` resolved.
fn sysfs_dir(major: u32, minor: u32) -> Option<PathBuf> {
    fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()
}

/// The whole disk's directory of a partition's (`…/sda/sda1` → `…/sda`),
/// else the directory itself.
fn disk_dir(dir: &Path) -> &Path {
    match dir.parent() {
        Some(p) if dir.join("partition").exists() => p,
        _ => dir,
    }
}

fn model(dir: &Path) -> String {
    fs::read_to_string(disk_dir(dir).join("device/model"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn rotational(dir: &Path) -> Option<bool> {
    match fs::read_to_string(disk_dir(dir).join("queue/rotational"))
        .ok()?
        .trim()
    {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    }
}

/// A device of the family a write would reach: the device, its
/// partitions, and what is stacked on them (holders, recursively).
#[derive(Clone, Debug)]
struct Member {
    dev: (u32, u32),
    /// Its `/dev` node (by kernel name).
    node: PathBuf,
    /// The kernel names of what holds it.
    holders: Vec<String>,
}

/// The device behind `dir` and its partitions (sysfs subdirectories with a
/// `partition` file), and every device stacked on them (`holders/`).
fn family(dir: &Path) -> Vec<Member> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.path().join("partition").exists() {
                todo.push(e.path());
            }
        }
    }
    while let Some(d) = todo.pop() {
        if out.len() > 256 {
            break;
        }
        let Some(dev) = fs::read_to_string(d.join("dev"))
            .ok()
            .and_then(|t| parse_dev(&t))
        else {
            continue;
        };
        if out.iter().any(|m: &Member| m.dev == dev) {
            continue;
        }
        let name = d
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut holders = Vec::new();
        if let Ok(rd) = fs::read_dir(d.join("holders")) {
            for e in rd.flatten() {
                holders.push(e.file_name().to_string_lossy().into_owned());
                if let Ok(h) = fs::canonicalize(e.path()) {
                    todo.push(h);
                }
            }
        }
        out.push(Member {
            dev,
            node: Path::new("/dev").join(&name),
            holders,
        });
    }
    out
}

/// `MAJ:MIN\n` → (MAJ, MIN).
fn parse_dev(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The entries of /proc/swaps on the device or a member of its family.
fn swaps_on(canonical: &Path, family: &[Member]) -> Vec<String> {
    let text = fs::read_to_string("/proc/swaps").unwrap_or_default();
    parse_swaps(&text)
        .into_iter()
        .filter(|name| {
            let p = fs::canonicalize(name).unwrap_or_else(|_| PathBuf::from(name));
            p == canonical
                || family.iter().any(|m| m.node == p)
                || fs::metadata(&p).is_ok_and(|md| {
                    md.file_type().is_block_device()
                        && family
                            .iter()
                            .any(|m| m.dev == (libc::major(md.rdev()), libc::minor(md.rdev())))
                })
        })
        .collect()
}

/// The file names of /proc/swaps (its header line left out; `\040` is a
/// space).
pub fn parse_swaps(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(|n| n.replace("\\040", " "))
        .collect()
}

/// The file system, volume or partition table whose signature starts the
/// device, as `head` (its first bytes, up to [`HEAD_BYTES`]) shows it:
/// `"an ext4 file system"`, `"a GPT partition table"`, …; `None` when the
/// head holds none of those iogauge knows. The order matters: a FAT or
/// NTFS boot sector and a GPT's protective MBR end in 0x55AA too, so the
/// MBR is the last resort.
pub fn signature(head: &[u8]) -> Option<&'static str> {
    let at = |off: usize, magic: &[u8]| head.get(off..off + magic.len()) == Some(magic);
    let u32le = |off: usize| {
        head.get(off..off + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if at(0, b"LUKS\xba\xbe") {
        return Some("a LUKS encrypted volume");
    }
    // LVM2: "LABELONE" in one of the first four sectors, "LVM2 001" 24 on
    if (0..4).any(|s| at(s * 512, b"LABELONE") && at(s * 512 + 24, b"LVM2 001")) {
        return Some("an LVM2 physical volume");
    }
    if at(0, b"XFSB") {
        return Some("an xfs file system");
    }
    if at(3, b"NTFS    ") {
        return Some("an ntfs file system");
    }
    if at(510, &[0x55, 0xAA]) && (at(54, b"FAT1") || at(82, b"FAT32   ")) {
        return Some("a vfat file system");
    }
    // ext2/3/4: the super block at 1024, magic 0xEF53 at 0x38 in it
    if at(1024 + 0x38, &[0x53, 0xEF]) {
        let compat = u32le(1024 + 0x5C).unwrap_or(0);
        let incompat = u32le(1024 + 0x60).unwrap_or(0);
        const HAS_JOURNAL: u32 = 0x4;
        // extents, 64bit, flex_bg: ext4's own
        const EXT4_INCOMPAT: u32 = 0x40 | 0x80 | 0x200;
        return Some(if incompat & EXT4_INCOMPAT != 0 {
            "an ext4 file system"
        } else if compat & HAS_JOURNAL != 0 {
            "an ext3 file system"
        } else {
            "an ext2 file system"
        });
    }
    if at(0x10040, b"_BHRfS_M") {
        return Some("a btrfs file system");
    }
    if at(0x8001, b"CD001") {
        return Some("an iso9660 file system");
    }
    for page in [4096usize, 8192, 16384, 65536] {
        if at(page - 10, b"SWAPSPACE2") || at(page - 10, b"SWAP-SPACE") {
            return Some("a swap area");
        }
    }
    // ZFS: label 0's uberblock array (128 KiB into the label), each
    // uberblock at least 1 KiB, starting with 0x00bab10c in either order
    let magic = 0x00ba_b10c_u64;
    if (0..128).any(|k| {
        let off = (128 << 10) + k * 1024;
        at(off, &magic.to_le_bytes()) || at(off, &magic.to_be_bytes())
    }) {
        return Some("a zfs label");
    }
    if at(512, b"EFI PART") || at(4096, b"EFI PART") {
        return Some("a GPT partition table");
    }
    if at(510, &[0x55, 0xAA]) {
        return Some("an MBR partition table (0x55AA)");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(off: usize, bytes: &[u8]) -> Vec<u8> {
        let mut h = vec![0u8; HEAD_BYTES];
        h[off..off + bytes.len()].copy_from_slice(bytes);
        h
    }

    #[test]
    fn each_signature_is_named() {
        assert_eq!(signature(&vec![0u8; HEAD_BYTES]), None);
        assert_eq!(signature(&[]), None);
        assert_eq!(
            signature(&with(0, b"LUKS\xba\xbe\0\x02")),
            Some("a LUKS encrypted volume")
        );
        let mut lvm = with(512, b"LABELONE");
        lvm[512 + 24..512 + 32].copy_from_slice(b"LVM2 001");
        assert_eq!(signature(&lvm), Some("an LVM2 physical volume"));
        // LABELONE alone is not LVM
        assert_eq!(signature(&with(512, b"LABELONE")), None);
        assert_eq!(signature(&with(0, b"XFSB")), Some("an xfs file system"));
        let mut ntfs = with(3, b"NTFS    ");
        ntfs[510..512].copy_from_slice(&[0x55, 0xAA]);
        assert_eq!(signature(&ntfs), Some("an ntfs file system"));
        for (off, tag) in [(54, &b"FAT16   "[..]), (54, b"FAT12   "), (82, b"FAT32   ")] {
            let mut fat = with(off, tag);
            fat[510..512].copy_from_slice(&[0x55, 0xAA]);
            assert_eq!(signature(&fat), Some("a vfat file system"), "{off}");
        }
        assert_eq!(
            signature(&with(0x10040, b"_BHRfS_M")),
            Some("a btrfs file system")
        );
        assert_eq!(
            signature(&with(0x8001, b"CD001")),
            Some("an iso9660 file system")
        );
        assert_eq!(signature(&with(4086, b"SWAPSPACE2")), Some("a swap area"));
        assert_eq!(signature(&with(65526, b"SWAP-SPACE")), Some("a swap area"));
        let zfs = with((128 << 10) + 5 * 1024, &0x00ba_b10c_u64.to_le_bytes());
        assert_eq!(signature(&zfs), Some("a zfs label"));
        let zfs_be = with(128 << 10, &0x00ba_b10c_u64.to_be_bytes());
        assert_eq!(signature(&zfs_be), Some("a zfs label"));
        let mut gpt = with(512, b"EFI PART");
        gpt[510..512].copy_from_slice(&[0x55, 0xAA]);
        assert_eq!(signature(&gpt), Some("a GPT partition table"));
        assert_eq!(
            signature(&with(4096, b"EFI PART")),
            Some("a GPT partition table")
        );
        assert_eq!(
            signature(&with(510, &[0x55, 0xAA])),
            Some("an MBR partition table (0x55AA)")
        );
    }

    #[test]
    fn ext_versions_by_their_features() {
        let sb = |compat: u32, incompat: u32| {
            let mut h = with(1024 + 0x38, &[0x53, 0xEF]);
            h[1024 + 0x5C..1024 + 0x60].copy_from_slice(&compat.to_le_bytes());
            h[1024 + 0x60..1024 + 0x64].copy_from_slice(&incompat.to_le_bytes());
            h
        };
        assert_eq!(signature(&sb(0, 0x2)), Some("an ext2 file system"));
        assert_eq!(signature(&sb(0x4, 0x2)), Some("an ext3 file system"));
        assert_eq!(signature(&sb(0x4, 0x2c2)), Some("an ext4 file system"));
        // a head cut short holds only what it holds
        assert_eq!(
            signature(&sb(0x4, 0x2c2)[..1100]),
            Some("an ext2 file system")
        );
        assert_eq!(signature(&sb(0, 0)[..1000]), None);
    }

    #[test]
    fn swaps_and_device_numbers_parse() {
        let t = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/sda2                               partition\t8388604\t\t0\t\t-2\n/swap\\040file file 1 0 -3\n";
        assert_eq!(parse_swaps(t), ["/dev/sda2", "/swap file"]);
        assert!(parse_swaps("Filename Type Size Used Priority\n").is_empty());
        assert_eq!(parse_dev("7:0\n"), Some((7, 0)));
        assert_eq!(parse_dev("259:12"), Some((259, 12)));
        assert_eq!(parse_dev("x"), None);
    }

    #[test]
    fn what_is_not_a_device_is_refused_with_the_flag_to_use() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        fs::write(&f, b"x").unwrap();
        let why = |p: &Path| check(p, Access::READ).unwrap_err().to_string();
        assert!(why(&f).contains("--file"));
        assert!(why(d.path()).contains("--dir"));
        assert_eq!(why(&d.path().join("none")), "does not exist");
        assert_eq!(why(Path::new("/dev/null")), "is not a block device");
    }

    #[test]
    fn a_description_names_size_blocks_and_model() {
        let d = BlockDevice {
            path: "/dev/sdz".into(),
            bytes: 1 << 30,
            logical_block_bytes: 512,
            physical_block_bytes: 4096,
            dev: "8:0".into(),
            model: "QEMU HARDDISK".into(),
            rotational: Some(true),
            ..Default::default()
        };
        assert_eq!(
            d.describe(),
            "/dev/sdz (1.00 GiB, 512 B logical / 4096 B physical blocks, QEMU HARDDISK, rotational, read-only)"
        );
        assert!(d.direct_fits(4096));
        assert!(d.direct_fits(512));
        assert!(!d.direct_fits(256));
    }
}
