//! The work directory guard: every run works inside a directory it made and
//! removes exactly that directory when it ends, however it ends (normal end,
//! error, Ctrl-C: the guard is dropped on every path out of a command).
//!
//! Before a run writes, the place is checked for what can make it fail at
//! once, and the message names the real cause: a directory that is missing,
//! not a directory, on a pseudo or read-only file system, not writable, or
//! too small for the data plus the reserve ([`reserve`]).

use std::path::{Path, PathBuf};

use crate::units::fmt_bytes;

/// Why a place cannot hold a run. `cli` shows it as bad usage (exit 2);
/// PostMark words it as PostMark does.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The directory cannot be used at all; `reason` says why.
    #[error("{} {reason}", path.display())]
    Unusable { path: PathBuf, reason: String },
    /// Too little free space for the data and the reserve.
    #[error(
        "{}: not enough space: the data needs {} and the reserve {} more (2 % + 1 MiB, for the file system's own metadata and a margin so that the run never fills it), {} in all, and {} is free; {}",
        path.display(),
        fmt_bytes(*data),
        fmt_bytes(reserve(*data)),
        fmt_bytes(data + reserve(*data)),
        fmt_bytes(*free),
        if data > free { "use a smaller data size or another directory" } else { "the data alone would fit: free some space or use another directory" }
    )]
    NoSpace { path: PathBuf, data: u64, free: u64 },
}

impl SetupError {
    fn unusable(path: &Path, reason: impl Into<String>) -> Self {
        SetupError::Unusable {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    /// The message with the place named as the user named it (`--dir
    /// /x`, `location '/x'`) instead of the bare path.
    pub fn at(&self, place: &str) -> String {
        match self {
            SetupError::Unusable { reason, .. } => format!("{place} {reason}"),
            SetupError::NoSpace { path, .. } => {
                let text = self.to_string();
                let shown = path.display().to_string();
                let rest = text.strip_prefix(&shown).unwrap_or(&text);
                // a place named with its colon ("cannot use location 'x':")
                let rest = match place.ends_with(':') {
                    true => rest.strip_prefix(':').unwrap_or(rest),
                    false => rest,
                };
                format!("{place}{rest}")
            }
        }
    }
}

/// The free space a run leaves beside `data` bytes: 2 % of the data (block
/// maps, extent trees, directories and inodes take about 1 % on ext4 and
/// XFS) plus 1 MiB, so that a run never fills a file system to the brim.
pub fn reserve(data: u64) -> u64 {
    data / 50 + (1 << 20)
}

/// File systems that hold no data: a run there is a mistake.
const PSEUDO: &[&str] = &[
    "proc",
    "sysfs",
    "devpts",
    "cgroup",
    "cgroup2",
    "debugfs",
    "tracefs",
    "securityfs",
    "pstore",
    "bpf",
    "configfs",
    "fusectl",
    "mqueue",
    "hugetlbfs",
    "binfmt_misc",
    "efivarfs",
];

/// The type of the pseudo file system (proc, sysfs, ...) holding `path`,
/// if it is on one.
pub fn pseudo_fs(path: &Path) -> Option<String> {
    crate::env::mount_for(path)
        .map(|m| m.fs_type)
        .filter(|t| PSEUDO.contains(&t.as_str()))
}

/// Check that `dir` is a directory a run can write in, naming the cause
/// when it is not.
pub fn check_dir(dir: &Path) -> Result<(), SetupError> {
    check_dir_on(dir, crate::env::mount_for(dir).as_ref())
}

/// [`check_dir`] with the mount of `dir` already looked up.
pub fn check_dir_on(dir: &Path, mount: Option<&crate::env::MountInfo>) -> Result<(), SetupError> {
    let md = std::fs::metadata(dir).map_err(|e| {
        SetupError::unusable(
            dir,
            match e.kind() {
                std::io::ErrorKind::NotFound => "does not exist".to_string(),
                _ => io_reason(&e),
            },
        )
    })?;
    if !md.is_dir() {
        return Err(SetupError::unusable(dir, "is not a directory"));
    }
    if let Some(t) = mount
        .map(|m| m.fs_type.clone())
        .filter(|t| PSEUDO.contains(&t.as_str()))
    {
        return Err(SetupError::unusable(
            dir,
            format!(
                "is on {t}, a pseudo file system that holds no data; name a directory on a real file system"
            ),
        ));
    }
    if let Ok(st) = rustix::fs::statvfs(dir)
        && st.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY)
    {
        return Err(SetupError::unusable(
            dir,
            "is on a read-only file system; name a writable directory",
        ));
    }
    if let Err(e) = rustix::fs::access(
        dir,
        rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK,
    ) {
        return Err(SetupError::unusable(
            dir,
            format!("is not writable ({})", io_reason(&std::io::Error::from(e))),
        ));
    }
    Ok(())
}

/// Check that `dir`'s file system has an inode for each of the `entries`
/// files, directories and links a run makes, where it counts them (btrfs
/// and some others report none and make inodes as they go).
pub fn check_inodes(dir: &Path, entries: u64) -> Result<(), SetupError> {
    let Ok(st) = rustix::fs::statvfs(dir) else {
        return Ok(());
    };
    if st.f_files == 0 || entries <= st.f_favail {
        return Ok(());
    }
    Err(SetupError::unusable(
        dir,
        format!(
            "has {} free inodes, and the run makes {entries} files and directories; use fewer files or another directory",
            st.f_favail
        ),
    ))
}

/// Check that `dir`'s file system has room for `data` bytes and the
/// [`reserve`].
pub fn check_space(dir: &Path, data: u64) -> Result<(), SetupError> {
    let free = crate::env::free_bytes(dir).map_err(|e| {
        SetupError::unusable(
            dir,
            format!("cannot read its free space ({})", io_reason(&e)),
        )
    })?;
    if free < data.saturating_add(reserve(data)) {
        return Err(SetupError::NoSpace {
            path: dir.to_path_buf(),
            data,
            free,
        });
    }
    Ok(())
}

pub use crate::error::io_reason;

/// What an MPI rank's work directories carry after their tag:
/// `<job>r<rank>-`.
static RANK_TAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Where the first work directory of this process was made.
static FIRST_PARENT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Name this process's work directories as an MPI rank's (`tag`:
/// `<job>r<rank>-`), so that ranks sharing a directory never collide and
/// each directory says whose it is.
pub fn set_rank_tag(tag: String) {
    let _ = RANK_TAG.set(tag);
}

/// The parent of the first work directory this process made: an MPI
/// job's shared directory.
pub fn first_parent() -> Option<&'static Path> {
    FIRST_PARENT.get().map(PathBuf::as_path)
}

#[derive(Debug)]
pub struct WorkDir {
    path: PathBuf,
    keep: bool,
}

impl WorkDir {
    /// Make `parent/iogauge-<tag>-<pid>-<n>`. `parent` must be an existing,
    /// writable directory.
    pub fn create(parent: &Path, tag: &str) -> Result<WorkDir, SetupError> {
        check_dir(parent)?;
        clear_dead(parent);
        let pid = std::process::id();
        // an MPI rank's: iogauge-<tag>-<job>r<rank>-<pid>-<n>
        let rank = RANK_TAG.get().map_or("", String::as_str);
        for n in 0..1000 {
            let path = parent.join(format!("iogauge-{tag}-{rank}{pid}-{n}"));
            match std::fs::create_dir(&path) {
                Ok(()) => {
                    let _ = FIRST_PARENT.set(parent.to_path_buf());
                    // best effort: a directory without its marker is
                    // only never cleared by a later run
                    let _ = std::fs::write(path.join(MARKER), Owner::me().to_text());
                    return Ok(WorkDir { path, keep: false });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                // the user named this directory: any refusal is theirs to fix
                Err(e) => {
                    return Err(SetupError::unusable(
                        parent,
                        format!(
                            "is not writable (cannot create a work directory in it: {})",
                            io_reason(&e)
                        ),
                    ));
                }
            }
        }
        Err(SetupError::unusable(
            parent,
            "holds 1000 work directories of this process already; remove old ones",
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Leave the directory in place when dropped (for `--keep`).
    pub fn keep(&mut self) {
        self.keep = true;
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.keep {
            return;
        }
        if let Err(e) = std::fs::remove_dir_all(&self.path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            LEFT_BEHIND.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            eprintln!(
                "iogauge: could not remove {}",
                left_behind_text(&self.path, &e)
            );
        }
    }
}

/// Work directories this process could not remove.
static LEFT_BEHIND: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many work directories this process could not remove (each was
/// named on stderr): a command that otherwise succeeded then exits 1.
pub fn left_behind() -> usize {
    LEFT_BEHIND.load(std::sync::atomic::Ordering::Relaxed)
}

/// `dir`, which `e` kept from being removed, and what is still in it.
fn left_behind_text(dir: &Path, e: &std::io::Error) -> String {
    let mut left = Vec::new();
    collect_left(dir, dir, &mut left);
    let shown = match left.len() {
        0 => String::new(),
        n => {
            let some: Vec<String> = left.iter().take(5).cloned().collect();
            let more = if n > 5 {
                format!(" and {} more", n - 5)
            } else {
                String::new()
            };
            format!("; still there: {}{more}", some.join(", "))
        }
    };
    format!(
        "the work directory {} ({}){shown}; remove it by hand",
        dir.display(),
        io_reason(e)
    )
}

/// What is left under `dir` (relative to `root`), leaves first: files and
/// empty directories, never following links.
fn collect_left(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            collect_left(root, &p, out);
        } else if e.file_name() != MARKER {
            out.push(p.strip_prefix(root).unwrap_or(&p).display().to_string());
        }
    }
}

/// The file in every work directory that says which process owns it.
pub const MARKER: &str = ".iogauge-owner";

/// Files that mark a work directory as kept on purpose: a file set of
/// `--verify --keep` (its manifest) and the directory of a `--verify-crash`
/// run (its head), which the next run must leave for `--verify-only`.
/// (The verify module names the same files; a test checks they agree.)
pub const KEPT: [&str; 2] = ["iogauge-verify.json", "iogauge-crash.json"];

/// The process that made a work directory: what its [`MARKER`] holds. A
/// pid alone can be reused; with its start time (clock ticks after boot,
/// field 22 of /proc/PID/stat) and the boot it was measured in, it names
/// one process for good. The host keeps a directory shared over the
/// network from being judged by another machine's processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub host: String,
    pub boot: String,
    pub pid: u32,
    pub start: u64,
}

const MARKER_HEAD: &str = "iogauge work directory";

impl Owner {
    /// This process.
    pub fn me() -> Owner {
        let pid = std::process::id();
        Owner {
            host: host(),
            boot: boot_id(),
            pid,
            start: start_ticks(pid).unwrap_or(0),
        }
    }

    pub fn to_text(&self) -> String {
        format!(
            "{MARKER_HEAD}\nhost {}\nboot {}\npid {}\nstart {}\n",
            self.host, self.boot, self.pid, self.start
        )
    }

    /// A marker's text, or `None` where it is not one iogauge wrote.
    pub fn parse(text: &str) -> Option<Owner> {
        let mut lines = text.lines();
        if lines.next()? != MARKER_HEAD {
            return None;
        }
        let mut field = |key: &str| {
            lines
                .next()?
                .strip_prefix(key)?
                .strip_prefix(' ')
                .map(str::to_string)
        };
        let host = field("host")?;
        let boot = field("boot")?;
        let pid = field("pid")?.parse().ok()?;
        let start = field("start")?.parse().ok()?;
        Some(Owner {
            host,
            boot,
            pid,
            start,
        })
    }

    /// Whether the owner has ended, as seen from this machine: `None` when
    /// it cannot be told (another host's directory).
    pub fn dead(&self) -> Option<bool> {
        if self.host != host() {
            return None;
        }
        if self.boot != boot_id() {
            return Some(true);
        }
        Some(start_ticks(self.pid) != Some(self.start))
    }
}

/// Field 22 of /proc/PID/stat: when the process started, in clock ticks
/// after boot; `None` when there is no such process (or it is a zombie's
/// last trace, which has no start to compare).
pub fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_start_ticks(&stat)
}

/// The start time in a /proc/PID/stat line: after the command name in
/// parentheses (which may hold spaces and parentheses itself), the 20th
/// field; a dead process (state Z or X) has none.
fn parse_start_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    if matches!(fields.first(), Some(&"Z") | Some(&"X")) {
        return None;
    }
    fields.get(19)?.parse().ok()
}

fn host() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Remove the work directories in `parent` left by iogauge processes that
/// have died (killed with SIGKILL, by the out-of-memory killer, or by a
/// power loss), one line each: only directories named as iogauge names
/// them that hold a [`MARKER`] naming a dead owner. A live owner's, another
/// machine's, and everything else are left alone.
pub fn clear_dead(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        if !name.to_str().is_some_and(|n| n.starts_with("iogauge-"))
            || !e.file_type().is_ok_and(|t| t.is_dir())
        {
            continue;
        }
        let dir = e.path();
        if KEPT.iter().any(|k| dir.join(k).exists()) {
            continue;
        }
        let Some(owner) = std::fs::read_to_string(dir.join(MARKER))
            .ok()
            .and_then(|t| Owner::parse(&t))
        else {
            continue;
        };
        if owner.dead() != Some(true) {
            continue;
        }
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => eprintln!(
                "iogauge: removed {}, left by an earlier run (pid {}) that was killed before it could clean up",
                dir.display(),
                owner.pid
            ),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => eprintln!(
                "iogauge: could not remove {}, left by an earlier run (pid {}) that was killed: {}",
                dir.display(),
                owner.pid,
                io_reason(&err)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_time_is_read_past_any_command_name() {
        // fields 3..: state ppid pgrp session tty tpgid flags minflt
        // cminflt majflt cmajflt utime stime cutime cstime priority nice
        // threads itrealvalue starttime
        let tail = "S 1 1 1 0 -1 4194560 10 0 0 0 5 6 0 0 20 0 1 0 8812345 1000 20";
        assert_eq!(
            parse_start_ticks(&format!("42 (iogauge) {tail}")),
            Some(8812345)
        );
        assert_eq!(
            parse_start_ticks(&format!("42 (a) b) (c d) {tail}")),
            Some(8812345)
        );
        let zombie = tail.replacen('S', "Z", 1);
        assert_eq!(parse_start_ticks(&format!("42 (x) {zombie}")), None);
        assert_eq!(parse_start_ticks("42 (x) S 1"), None);
        assert_eq!(parse_start_ticks("garbage"), None);
        let me = start_ticks(std::process::id()).unwrap();
        assert!(me > 0);
    }

    #[test]
    fn a_marker_round_trips_and_names_a_live_or_dead_owner() {
        let me = Owner::me();
        assert_eq!(Owner::parse(&me.to_text()), Some(me.clone()));
        assert_eq!(me.dead(), Some(false));
        // the same pid, started at another time: reused
        let reused = Owner {
            start: me.start + 1,
            ..me.clone()
        };
        assert_eq!(reused.dead(), Some(true));
        // another boot
        let rebooted = Owner {
            boot: "x".into(),
            ..me.clone()
        };
        assert_eq!(rebooted.dead(), Some(true));
        // another machine's: cannot be told
        let elsewhere = Owner {
            host: format!("{}-not", me.host),
            start: 1,
            ..me.clone()
        };
        assert_eq!(elsewhere.dead(), None);
        for bad in [
            "",
            "hello\n",
            "iogauge work directory\nhost h\n",
            &me.to_text().replace("pid ", "pid x"),
        ] {
            assert_eq!(Owner::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn only_dead_owners_marked_directories_are_cleared() {
        let parent = tempfile::tempdir().unwrap();
        let p = parent.path();
        let dead = Owner {
            start: Owner::me().start + 7,
            ..Owner::me()
        };
        let mk = |name: &str, marker: Option<String>| {
            std::fs::create_dir(p.join(name)).unwrap();
            std::fs::write(p.join(name).join("data"), b"x").unwrap();
            if let Some(m) = marker {
                std::fs::write(p.join(name).join(MARKER), m).unwrap();
            }
        };
        mk("iogauge-run-1-0", Some(dead.to_text()));
        mk("iogauge-run-2-0", Some(Owner::me().to_text()));
        mk("iogauge-run-3-0", None);
        mk("iogauge-run-4-0", Some("not a marker".into()));
        mk("theirs", Some(dead.to_text()));
        std::fs::write(p.join("iogauge-file"), dead.to_text()).unwrap();
        clear_dead(p);
        assert!(!p.join("iogauge-run-1-0").exists());
        for kept in [
            "iogauge-run-2-0",
            "iogauge-run-3-0",
            "iogauge-run-4-0",
            "theirs",
            "iogauge-file",
        ] {
            assert!(p.join(kept).exists(), "{kept}");
        }
    }

    #[test]
    fn removes_only_what_it_made() {
        let parent = tempfile::tempdir().unwrap();
        std::fs::write(parent.path().join("theirs"), b"x").unwrap();
        let p = {
            let w = WorkDir::create(parent.path(), "t").unwrap();
            std::fs::write(w.path().join("ours"), b"y").unwrap();
            w.path().to_path_buf()
        };
        assert!(!p.exists());
        assert!(parent.path().join("theirs").exists());
    }

    #[test]
    fn each_unusable_place_names_its_cause() {
        let e = WorkDir::create(Path::new("/nonexistent/x"), "t").unwrap_err();
        assert!(e.to_string().ends_with("does not exist"), "{e}");
        let e = check_dir(Path::new("/proc")).unwrap_err();
        assert!(e.to_string().contains("pseudo file system"), "{e}");
        let e = check_dir(Path::new("/proc/self/status")).unwrap_err();
        assert!(e.to_string().contains("not a directory"), "{e}");
    }

    #[test]
    fn the_reserve_is_small_and_explained() {
        assert_eq!(reserve(0), 1 << 20);
        assert_eq!(reserve(100 << 20), (2 << 20) + (1 << 20));
        // 1 MiB of data needs about 2 MiB in all: a 10 MiB file system holds it
        assert!((1u64 << 20) + reserve(1 << 20) < 10 << 20);
        let e = check_space(Path::new("."), u64::MAX / 4).unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("not enough space") && s.contains("reserve"),
            "{s}"
        );
        assert!(s.contains("use a smaller data size"), "{s}");
        check_space(Path::new("."), 1).unwrap();
        // when the data fits but the reserve does not, a smaller size is no advice
        let free = crate::env::free_bytes(Path::new(".")).unwrap();
        let s = check_space(Path::new("."), free - 1)
            .unwrap_err()
            .to_string();
        assert!(s.contains("the data alone would fit"), "{s}");
    }
}
