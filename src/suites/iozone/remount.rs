//! IOzone's `-U MOUNTPOINT`: unmount the file system and mount it again
//! before every pass, so that each pass starts with nothing of the file
//! in the page cache.
//!
//! IOzone 3.489 runs `umount MOUNTPOINT` and then `mount MOUNTPOINT`
//! through system(3) (`purge_buffer_cache`), which needs the mount point
//! in /etc/fstab, retries the umount up to 199 times with growing sleeps
//! (hours in all) and goes on whatever the mount answered. iogauge calls
//! umount2(2) and mount(2) itself with what /proc/self/mountinfo says of
//! the mount (source, type, flags, options), retries briefly, and stops
//! the run when either fails, saying how to mount the file system again
//! if it is left unmounted.
//!
//! [`Remount::prepare`] refuses, before any work, what cannot work or
//! would do harm: not root; a path that is not a mount point; a test
//! file elsewhere; the root file system, or the file system of the
//! current directory or of iogauge's own executable (busy, so the
//! umount fails); a source that is not a block device (unmounting a
//! tmpfs loses its files; a network file system needs more than
//! mount(2)); a bind mount of a subdirectory (mounting the source again
//! would mount the whole file system); other file systems mounted
//! under it; the same device mounted elsewhere too (its cache would
//! survive the umount, which would then mean nothing).

use std::ffi::{CString, OsString};
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rustix::fs::{AtFlags, CWD, StatxFlags};

/// One line of /proc/self/mountinfo (proc(5)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountEntry {
    /// The mount's ID (what statx(2) reports as `stx_mnt_id`).
    pub id: u64,
    /// The parent mount's ID.
    pub parent: u64,
    /// The device's major and minor numbers.
    pub dev: (u32, u32),
    /// The directory of the file system that is mounted here ("/" unless
    /// it is a bind mount of a subdirectory).
    pub root: PathBuf,
    /// Where it is mounted.
    pub mount_point: PathBuf,
    /// Per-mount options ("rw,nosuid,relatime").
    pub mount_opts: String,
    /// The optional fields ("shared:1", "master:2").
    pub optional: Vec<String>,
    /// The file system type ("ext4").
    pub fstype: String,
    /// The source ("/dev/loop0").
    pub source: String,
    /// Per-superblock options ("rw,errors=remount-ro").
    pub super_opts: String,
}

/// Decodes mountinfo's octal escapes (`\040` for a space, `\011`,
/// `\012`, `\134`).
fn unescape(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        if field[i] == b'\\'
            && i + 3 < field.len()
            && field[i + 1..i + 4]
                .iter()
                .all(|b| (b'0'..=b'7').contains(b))
        {
            let v = field[i + 1..i + 4]
                .iter()
                .fold(0u32, |acc, b| acc * 8 + u32::from(b - b'0'));
            out.push(v as u8);
            i += 4;
        } else {
            out.push(field[i]);
            i += 1;
        }
    }
    out
}

fn text(field: &[u8]) -> String {
    String::from_utf8_lossy(&unescape(field)).into_owned()
}

fn path(field: &[u8]) -> PathBuf {
    PathBuf::from(OsString::from_vec(unescape(field)))
}

/// Parses the text of /proc/self/mountinfo; malformed lines are skipped.
pub fn parse_mountinfo(raw: &[u8]) -> Vec<MountEntry> {
    raw.split(|b| *b == b'\n')
        .filter_map(|line| {
            let f: Vec<&[u8]> = line.split(|b| *b == b' ').collect();
            let dash = f.iter().position(|x| *x == b"-")?;
            if dash < 6 || f.len() < dash + 4 {
                return None;
            }
            let num = |x: &[u8]| std::str::from_utf8(x).ok()?.parse::<u64>().ok();
            let (major, minor) = std::str::from_utf8(f[2]).ok()?.split_once(':')?;
            Some(MountEntry {
                id: num(f[0])?,
                parent: num(f[1])?,
                dev: (major.parse().ok()?, minor.parse().ok()?),
                root: path(f[3]),
                mount_point: path(f[4]),
                mount_opts: text(f[5]),
                optional: f[6..dash].iter().map(|x| text(x)).collect(),
                fstype: text(f[dash + 1]),
                source: text(f[dash + 2]),
                super_opts: text(f[dash + 3]),
            })
        })
        .collect()
}

/// This process's mounts.
pub fn read_mountinfo() -> io::Result<Vec<MountEntry>> {
    Ok(parse_mountinfo(&std::fs::read("/proc/self/mountinfo")?))
}

/// The mount(2) flags and the data string that mount the file system
/// again as it is mounted now: per-mount options become flags (with
/// neither `noatime` nor `relatime`, atime is strict), and so do the
/// generic superblock options (`ro`, `sync`, `dirsync`, `lazytime`,
/// `mand`); the file system's own options are the data.
pub fn flags_and_data(mount_opts: &str, super_opts: &str) -> (libc::c_ulong, String) {
    let mut flags: libc::c_ulong = 0;
    let mut atime = false;
    for o in mount_opts.split(',') {
        flags |= match o {
            "ro" => libc::MS_RDONLY,
            "nosuid" => libc::MS_NOSUID,
            "nodev" => libc::MS_NODEV,
            "noexec" => libc::MS_NOEXEC,
            "noatime" => {
                atime = true;
                libc::MS_NOATIME
            }
            "relatime" => {
                atime = true;
                libc::MS_RELATIME
            }
            "nodiratime" => libc::MS_NODIRATIME,
            "nosymfollow" => libc::MS_NOSYMFOLLOW,
            _ => 0,
        };
    }
    if !atime {
        flags |= libc::MS_STRICTATIME;
    }
    let mut data = Vec::new();
    for o in super_opts.split(',').filter(|o| !o.is_empty()) {
        match o {
            "rw" => {}
            "ro" => flags |= libc::MS_RDONLY,
            "sync" => flags |= libc::MS_SYNCHRONOUS,
            "dirsync" => flags |= libc::MS_DIRSYNC,
            "lazytime" => flags |= libc::MS_LAZYTIME,
            "mand" => flags |= libc::MS_MANDLOCK,
            _ => data.push(o),
        }
    }
    (flags, data.join(","))
}

/// The mount ID of the file or directory at `p` (following symlinks),
/// if the kernel reports it (statx's STATX_MNT_ID, Linux 5.8).
fn mount_id(p: &Path) -> io::Result<Option<u64>> {
    let s = rustix::fs::statx(CWD, p, AtFlags::empty(), StatxFlags::MNT_ID)?;
    Ok(
        (StatxFlags::from_bits_retain(s.stx_mask) & StatxFlags::MNT_ID == StatxFlags::MNT_ID)
            .then_some(s.stx_mnt_id),
    )
}

/// Which of `mounts` holds `p`: its mount ID, else (older kernels) the
/// last mount whose mount point is the longest prefix of `p`.
fn mount_of<'m>(mounts: &'m [MountEntry], p: &Path) -> io::Result<Option<&'m MountEntry>> {
    if let Some(id) = mount_id(p)? {
        return Ok(mounts.iter().find(|m| m.id == id));
    }
    let canon = std::fs::canonicalize(p)?;
    Ok(mounts
        .iter()
        .filter(|m| canon.starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.as_os_str().len()))
}

fn cstring(what: &str, b: &[u8]) -> Result<CString, String> {
    CString::new(b).map_err(|_| format!("-U: the {what} holds a NUL byte"))
}

/// Tries of umount2(2) that fail with EBUSY, and of mount(2).
const UMOUNT_TRIES: u32 = 10;
const MOUNT_TRIES: u32 = 3;

/// A mount that [`Remount::cycle`] unmounts and mounts again.
#[derive(Debug)]
pub struct Remount {
    target: CString,
    source: CString,
    fstype: CString,
    flags: libc::c_ulong,
    data: CString,
    shown: PathBuf,
    /// Cycles done.
    count: u64,
}

impl Remount {
    /// Checks that `mountpoint` can be unmounted and mounted again under a
    /// run whose test file is `file`, and reads how it is mounted.
    pub fn prepare(mountpoint: &Path, file: &Path) -> Result<Remount, String> {
        let shown = mountpoint.display();
        if !rustix::process::geteuid().is_root() {
            return Err(format!(
                "-U {shown}: unmounting and mounting needs root; run as root or leave out -U"
            ));
        }
        let canon = std::fs::canonicalize(mountpoint)
            .map_err(|e| format!("-U {shown}: cannot resolve it: {e}"))?;
        let mounts =
            read_mountinfo().map_err(|e| format!("-U: cannot read /proc/self/mountinfo: {e}"))?;
        let m = mount_of(&mounts, &canon)
            .map_err(|e| format!("-U {shown}: {e}"))?
            .filter(|m| m.mount_point == canon)
            .ok_or_else(|| format!("-U {shown}: not a mount point"))?
            .clone();
        if m.mount_point == Path::new("/") {
            return Err(format!(
                "-U {shown}: this is the root file system, which cannot be unmounted; give the mount point of another file system"
            ));
        }
        let dir = crate::runner::names::dir_of(file);
        let on = |p: &Path| -> Result<bool, String> {
            Ok(mount_of(&mounts, p)
                .map_err(|e| format!("-U {shown}: {}: {e}", p.display()))?
                .is_some_and(|x| x.id == m.id))
        };
        if !on(dir)? {
            return Err(format!(
                "-U {shown}: the test file {} is not on that file system; put the test directory under {shown}",
                file.display()
            ));
        }
        if on(Path::new("."))? {
            return Err(format!(
                "-U {shown}: the current directory is on it, so it cannot be unmounted; run iogauge from another directory"
            ));
        }
        if on(Path::new("/proc/self/exe"))? {
            return Err(format!(
                "-U {shown}: iogauge's own executable is on it, so it cannot be unmounted; run a copy from elsewhere"
            ));
        }
        if m.root != Path::new("/") {
            return Err(format!(
                "-U {shown}: a bind mount of {} of {}; mounting {} again would mount the whole file system there",
                m.root.display(),
                m.source,
                m.source
            ));
        }
        if let Some(sub) = mounts.iter().find(|x| x.parent == m.id && x.id != m.id) {
            return Err(format!(
                "-U {shown}: {} is mounted under it; unmount that first",
                sub.mount_point.display()
            ));
        }
        if let Some(other) = mounts.iter().find(|x| x.dev == m.dev && x.id != m.id) {
            return Err(format!(
                "-U {shown}: its file system is also mounted on {}, so unmounting {shown} would not empty its cache",
                other.mount_point.display()
            ));
        }
        let block = std::fs::metadata(&m.source)
            .map(|md| md.file_type().is_block_device())
            .unwrap_or(false);
        if !block {
            return Err(format!(
                "-U {shown}: its source, {} ({}), is not a block device; iogauge remounts only file systems on a disk (a tmpfs would lose its files, a network file system needs more than mount(2))",
                m.source, m.fstype
            ));
        }
        let (flags, data) = flags_and_data(&m.mount_opts, &m.super_opts);
        Ok(Remount {
            target: cstring("mount point", canon.as_os_str().as_bytes())?,
            source: cstring("source", m.source.as_bytes())?,
            fstype: cstring("file system type", m.fstype.as_bytes())?,
            flags,
            data: cstring("mount options", data.as_bytes())?,
            shown: canon,
            count: 0,
        })
    }

    /// How many times it was unmounted and mounted again.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The mount(8) command that mounts it as it was, for messages.
    pub fn mount_command(&self) -> String {
        let data = self.data.to_string_lossy();
        let mut opts: Vec<&str> = Vec::new();
        for (bit, name) in [
            (libc::MS_RDONLY, "ro"),
            (libc::MS_NOSUID, "nosuid"),
            (libc::MS_NODEV, "nodev"),
            (libc::MS_NOEXEC, "noexec"),
            (libc::MS_NOATIME, "noatime"),
            (libc::MS_RELATIME, "relatime"),
            (libc::MS_STRICTATIME, "strictatime"),
            (libc::MS_NODIRATIME, "nodiratime"),
            (libc::MS_NOSYMFOLLOW, "nosymfollow"),
            (libc::MS_SYNCHRONOUS, "sync"),
            (libc::MS_DIRSYNC, "dirsync"),
            (libc::MS_LAZYTIME, "lazytime"),
            (libc::MS_MANDLOCK, "mand"),
        ] {
            if self.flags & bit != 0 {
                opts.push(name);
            }
        }
        if !data.is_empty() {
            opts.push(&data);
        }
        let o = if opts.is_empty() {
            String::new()
        } else {
            format!(" -o {}", opts.join(","))
        };
        format!(
            "mount -t {}{o} {} {}",
            self.fstype.to_string_lossy(),
            self.source.to_string_lossy(),
            self.shown.display()
        )
    }

    fn umount(&self) -> io::Result<()> {
        // SAFETY: `target` is a NUL-terminated path that lives across the call.
        let r = unsafe { libc::umount2(self.target.as_ptr(), 0) };
        if r == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    fn mount(&self) -> io::Result<()> {
        // SAFETY: every pointer is a NUL-terminated string owned by `self`
        // and alive across the call; the data is a text option string, as
        // mount(2) takes it for file systems on block devices.
        let r = unsafe {
            libc::mount(
                self.source.as_ptr(),
                self.target.as_ptr(),
                self.fstype.as_ptr(),
                self.flags,
                self.data.as_ptr().cast(),
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// Unmounts the file system and mounts it again as it was. No file on
    /// it may be open. On an error the message says whether it is still
    /// mounted and, if not, how to mount it.
    pub fn cycle(&mut self) -> Result<(), String> {
        let shown = self.shown.display();
        let mut tries = 0;
        loop {
            tries += 1;
            match self.umount() {
                Ok(()) => break,
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) && tries < UMOUNT_TRIES => {
                    std::thread::sleep(Duration::from_millis(50 * u64::from(tries)));
                }
                Err(e) => {
                    return Err(format!(
                        "-U: cannot unmount {shown}: {e} (it is still mounted; is something else using it?)"
                    ));
                }
            }
        }
        tries = 0;
        loop {
            tries += 1;
            match self.mount() {
                Ok(()) => break,
                Err(_) if tries < MOUNT_TRIES => {
                    std::thread::sleep(Duration::from_millis(100 * u64::from(tries)));
                }
                Err(e) => {
                    return Err(format!(
                        "-U: unmounted {shown} but cannot mount it again: {e}; it is not mounted now: mount it with `{}`",
                        self.mount_command()
                    ));
                }
            }
        }
        self.count += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &[u8] = b"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n\
25 24 0:23 / /dev/shm rw,nosuid,nodev shared:3 master:1 - tmpfs tmpfs rw,size=24684084k\n\
90 27 7:3 /sub /mnt/with\\040space ro,noatime - ext4 /dev/loop3 ro,errors=remount-ro,lazytime\n\
garbage line\n";

    #[test]
    fn mountinfo_lines_are_parsed_with_escapes_and_optional_fields() {
        let m = parse_mountinfo(SAMPLE);
        assert_eq!(m.len(), 3);
        assert_eq!(m[0].id, 27);
        assert_eq!(m[0].mount_point, Path::new("/"));
        assert_eq!(m[0].fstype, "ext4");
        assert_eq!(m[0].source, "/dev/vda");
        assert_eq!(m[1].optional, vec!["shared:3", "master:1"]);
        assert_eq!(m[1].super_opts, "rw,size=24684084k");
        assert_eq!(m[2].dev, (7, 3));
        assert_eq!(m[2].root, Path::new("/sub"));
        assert_eq!(m[2].mount_point, Path::new("/mnt/with space"));
        assert_eq!(unescape(b"a\\134b\\011c\\01"), b"a\\b\tc\\01");
    }

    #[test]
    fn options_become_flags_and_data() {
        let (f, d) = flags_and_data("rw,nosuid,nodev,relatime", "rw,errors=remount-ro");
        assert_eq!(f, libc::MS_NOSUID | libc::MS_NODEV | libc::MS_RELATIME);
        assert_eq!(d, "errors=remount-ro");
        let (f, d) = flags_and_data("ro,noatime", "ro,sync,lazytime,seclabel,data=ordered");
        assert_eq!(
            f,
            libc::MS_RDONLY | libc::MS_NOATIME | libc::MS_SYNCHRONOUS | libc::MS_LAZYTIME
        );
        assert_eq!(d, "seclabel,data=ordered");
        // neither noatime nor relatime: strict atime, which mount(2)
        // would otherwise replace with relatime
        let (f, d) = flags_and_data("rw", "rw");
        assert_eq!(f, libc::MS_STRICTATIME);
        assert_eq!(d, "");
    }

    #[test]
    fn refusals_say_why() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("iozone.tmp");
        let root = rustix::process::geteuid().is_root();
        let e = Remount::prepare(dir.path(), &file).unwrap_err();
        if root {
            assert!(e.contains("not a mount point"), "{e}");
            let e = Remount::prepare(Path::new("/"), &file).unwrap_err();
            assert!(e.contains("root file system"), "{e}");
            let e = Remount::prepare(Path::new("/no/such/dir"), &file).unwrap_err();
            assert!(e.contains("cannot resolve"), "{e}");
        } else {
            assert!(e.contains("needs root"), "{e}");
        }
        assert!(!e.contains('\n'));
    }
}
