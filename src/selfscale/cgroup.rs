//! A memory cgroup that bounds the page cache of the benchmark, so that the
//! device region is reached without writing more than the machine's memory.
//!
//! iogauge creates a child of the memory cgroup it runs in (never of the
//! root, never outside its own subtree), sets the limit, and moves the
//! whole process (every thread) into it; page cache that the process reads
//! or writes afterwards is charged to the child and reclaimed at the limit.
//! When the guard is dropped (normal end, error, Ctrl-C), the process moves
//! back and the child is removed. A child left behind by a process that
//! died (a second Ctrl-C ends the process at once) is removed the next time.
//!
//! - cgroup v2: the child's `memory.max`. The memory controller must be
//!   enabled in the current cgroup's `cgroup.subtree_control`; iogauge does
//!   not change that file (it belongs to whoever manages the cgroup).
//! - cgroup v1: the child's `memory.limit_in_bytes` in the memory
//!   hierarchy.

use crate::env::MountInfo;
use std::path::{Path, PathBuf};

/// Which interface bounds the memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    V1,
    V2,
}

impl Version {
    pub fn via(self) -> &'static str {
        match self {
            Version::V1 => "cgroup v1 memory.limit_in_bytes",
            Version::V2 => "cgroup v2 memory.max",
        }
    }
}

/// What the probe found: the cgroup to create children in, or why none.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub found: Option<(Version, PathBuf)>,
    /// One reason per interface that cannot be used.
    pub why_not: Vec<String>,
}

impl Probe {
    pub fn reason(&self) -> String {
        if self.why_not.is_empty() {
            "no cgroup file system is mounted".into()
        } else {
            self.why_not.join("; ")
        }
    }
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

/// (hierarchy line's controllers, path) from /proc/self/cgroup.
fn own_cgroups() -> Vec<(String, String)> {
    read(Path::new("/proc/self/cgroup"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let mut it = l.splitn(3, ':');
            let _id = it.next()?;
            let ctl = it.next()?.to_string();
            let path = it.next()?.to_string();
            Some((ctl, path))
        })
        .collect()
}

fn writable(dir: &Path) -> bool {
    rustix::fs::access(dir, rustix::fs::Access::WRITE_OK).is_ok()
}

/// Find a memory cgroup this process may create a child in: v2 where its
/// memory controller is delegated, v1 otherwise.
pub fn probe() -> Probe {
    let mounts = crate::env::mounts();
    let own = own_cgroups();
    let mut why_not = Vec::new();
    for version in [Version::V2, Version::V1] {
        let (found, who) = match version {
            Version::V2 => (
                v2(mounts, &own),
                ("cgroup v2", "run as root or in a delegated cgroup"),
            ),
            Version::V1 => (v1(mounts, &own), ("cgroup v1", "run as root")),
        };
        let found = found.and_then(|dir| {
            if writable(&dir) {
                Ok(dir)
            } else {
                Err(format!(
                    "{}: {} is not writable ({})",
                    who.0,
                    dir.display(),
                    who.1
                ))
            }
        });
        match found {
            Ok(dir) => {
                return Probe {
                    found: Some((version, dir)),
                    why_not,
                };
            }
            Err(e) => why_not.push(e),
        }
    }
    Probe {
        found: None,
        why_not,
    }
}

/// The directory of this process's cgroup (`rel`, from /proc/self/cgroup)
/// under the hierarchy mounted at `mount_point`; "/" when not listed.
fn own_dir(mount_point: &str, rel: Option<&String>) -> PathBuf {
    let rel = rel.map_or("/", |r| r.as_str());
    Path::new(mount_point).join(rel.trim_start_matches('/'))
}

/// This process's v2 cgroup, where its children may have the memory
/// controller; or why not.
fn v2(mounts: &[MountInfo], own: &[(String, String)]) -> Result<PathBuf, String> {
    let m = mounts
        .iter()
        .find(|m| m.fs_type == "cgroup2")
        .ok_or("cgroup v2 is not mounted")?;
    let dir = own_dir(
        &m.mount_point,
        own.iter().find(|(c, _)| c.is_empty()).map(|(_, p)| p),
    );
    let has =
        |f: &str| read(&dir.join(f)).is_some_and(|s| s.split_whitespace().any(|c| c == "memory"));
    if !has("cgroup.controllers") {
        Err(format!(
            "cgroup v2 at {} has no memory controller",
            dir.display()
        ))
    } else if !has("cgroup.subtree_control") {
        Err(format!(
            "cgroup v2: the memory controller is not enabled for children of {} (its cgroup.subtree_control; run iogauge in a cgroup with memory delegated, e.g. systemd-run --scope -p Delegate=yes)",
            dir.display()
        ))
    } else {
        Ok(dir)
    }
}

/// This process's v1 memory cgroup, where a child may be limited; or why
/// not.
fn v1(mounts: &[MountInfo], own: &[(String, String)]) -> Result<PathBuf, String> {
    let m = mounts
        .iter()
        .find(|m| m.fs_type == "cgroup" && m.super_options.split(',').any(|o| o == "memory"))
        .ok_or("cgroup v1 has no memory hierarchy mounted")?;
    let dir = own_dir(
        &m.mount_point,
        own.iter()
            .find(|(c, _)| c.split(',').any(|x| x == "memory"))
            .map(|(_, p)| p),
    );
    if !dir.join("memory.limit_in_bytes").exists() {
        Err(format!(
            "cgroup v1: {} has no memory.limit_in_bytes",
            dir.display()
        ))
    } else {
        Ok(dir)
    }
}

/// Remove children named `iogauge-<pid>` whose process is gone (empty by
/// then; the kernel refuses to remove a cgroup that still has tasks).
fn remove_stale(parent: &Path) {
    let Ok(rd) = std::fs::read_dir(parent) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("iogauge-")
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

/// The process inside a memory cgroup; leaving it (drop) moves the process
/// back and removes the cgroup.
#[derive(Debug)]
pub struct MemoryCgroup {
    version: Version,
    parent: PathBuf,
    dir: PathBuf,
    limit: u64,
    moved: bool,
}

impl MemoryCgroup {
    /// Create the child cgroup with `limit` bytes and move this process in.
    pub fn enter(limit: u64) -> Result<MemoryCgroup, String> {
        let probe = probe();
        let Some((version, parent)) = probe.found.clone() else {
            return Err(format!("cannot bound the page cache: {}", probe.reason()));
        };
        remove_stale(&parent);
        let pid = std::process::id();
        let dir = parent.join(format!("iogauge-{pid}"));
        if let Err(e) = std::fs::create_dir(&dir) {
            return Err(format!(
                "cannot create the memory cgroup {}: {e}",
                dir.display()
            ));
        }
        let mut g = MemoryCgroup {
            version,
            parent,
            dir,
            limit,
            moved: false,
        };
        let file = match version {
            Version::V1 => "memory.limit_in_bytes",
            Version::V2 => "memory.max",
        };
        if let Err(e) = std::fs::write(g.dir.join(file), limit.to_string()) {
            return Err(format!("cannot set {} of {}: {e}", file, g.dir.display()));
        }
        let set = read(&g.dir.join(file))
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or(0);
        if set == 0 || set > limit {
            return Err(format!(
                "{} of {} reads {set} after writing {limit}",
                file,
                g.dir.display()
            ));
        }
        g.limit = set;
        if let Err(e) = std::fs::write(g.dir.join("cgroup.procs"), pid.to_string()) {
            return Err(format!("cannot move iogauge into {}: {e}", g.dir.display()));
        }
        g.moved = true;
        let name = format!("iogauge-{pid}");
        let inside = own_cgroups().iter().any(|(c, p)| {
            let ours = match version {
                Version::V1 => c.split(',').any(|x| x == "memory"),
                Version::V2 => c.is_empty(),
            };
            ours && p.ends_with(&name)
        });
        if !inside {
            return Err(format!(
                "moved iogauge into {}, but /proc/self/cgroup does not show it",
                g.dir.display()
            ));
        }
        Ok(g)
    }

    pub fn version(&self) -> Version {
        self.version
    }

    /// The limit as the kernel holds it (rounded to pages).
    pub fn limit(&self) -> u64 {
        self.limit
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The most memory the cgroup held (v1 max_usage_in_bytes, v2 memory.peak).
    pub fn peak(&self) -> Option<u64> {
        let f = match self.version {
            Version::V1 => "memory.max_usage_in_bytes",
            Version::V2 => "memory.peak",
        };
        read(&self.dir.join(f)).and_then(|s| s.trim().parse().ok())
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        if self.moved {
            let pid = std::process::id().to_string();
            if let Err(e) = std::fs::write(self.parent.join("cgroup.procs"), &pid) {
                eprintln!(
                    "iogauge: could not move back out of {}: {e}",
                    self.dir.display()
                );
            }
        }
        // the last threads may take a moment to leave
        for i in 0..50 {
            match std::fs::remove_dir(&self.dir) {
                Ok(()) => return,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
                Err(e) if i == 49 => {
                    eprintln!("iogauge: could not remove {}: {e}", self.dir.display());
                }
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_says_something_either_way() {
        let p = probe();
        assert!(p.found.is_some() || !p.reason().is_empty());
    }
}
