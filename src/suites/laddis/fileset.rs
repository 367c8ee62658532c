//! The file set a LADDIS run works on: planned from its total size (free of
//! I/O, reproducible from the seed), then made untimed in the run's work
//! directory, one directory per load-generating process.
//!
//! # What SPEC SFS does, and what is kept
//!
//! The constants below are those of the SPEC SFS client (the LADDIS code
//! base as SPEC SFS 2.0 shipped it: `sfs_c_def.h`, `sfs_c_dat.c`,
//! `sfs_c_man.c`). SFS 1.0's own values were not at hand; they are taken to
//! be the same, as for [`APPEND_SHARE`](super::mix::APPEND_SHARE).
//!
//! - **File sizes**: `Default_file_size_dist` ([`FILE_SIZE_DIST`]): 33 % of
//!   the files are 1 KB, 21 % 2 KB, 13 % 4 KB, 10 % 8 KB, 8 % 16 KB, 5 %
//!   32 KB, 4 % 64 KB, 3 % 128 KB, 2 % 256 KB and 1 % 1 MB (KB = 1024
//!   bytes); 26.7 KiB on average. SFS divides the file-set size by that
//!   mean to get its number of files; iogauge draws sizes from the table
//!   until the process's share of the set is full, and cuts the last file
//!   to fit, so the set has exactly the size asked.
//! - **Working set**: reads and writes touch only `DEFAULT_ACCESS` = 10 %
//!   of the files ("io operations access a subset of the files", one more
//!   than 10 % per process); the other operations touch all of them.
//! - **Directories**: `DEFAULT_FILES_PER_DIR` = 30 files a directory.
//! - **Symbolic links**: `DEFAULT_NSYMLINKS` = 20 per client, shared out
//!   between its processes (one more each).
//! - **Non-I/O files**: 2 % of the I/O files, at least `DEFAULT_NFILES` =
//!   100 per client, shared out between the processes; half exist at the
//!   start (`RATIO_NON_IO_INIT` 0.5). Creates take a name that does not
//!   exist, removes one that does, so the set keeps its size.
//! - **Failed lookups**: `DEFAULT_FAILED_LOOKUP` = 35 % of lookups are of a
//!   name that does not exist.
//! - **Growth**: appends may grow the set by `DEFAULT_DELTA_FSS` = 10 %;
//!   past that, the file about to be appended to is first cut back to its
//!   starting length (untimed).
//!
//! Layout of process `p`'s share, under the work directory:
//!
//! ```text
//!   pNN/dNNNN/fNNNNN   the I/O files, 30 to a directory
//!   pNN/lNNN           symbolic links to I/O files
//!   pNN/nNNNN          non-I/O names (creates, removes, renames, links)
//!   pNN/eNNNN          empty-directory names (mkdir, rmdir)
//! ```

use crate::data::fill_random;
use crate::runner::signals;
use crate::workload::{Prng, worker_rng};
use anyhow::{Context, Result};
use rand_xoshiro::rand_core::Rng;
use std::ffi::CString;
use std::io::Write;
use std::ops::Range;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// SFS's file-size table: (cumulative percentage, size in KiB).
pub const FILE_SIZE_DIST: [(u32, u64); 10] = [
    (33, 1),
    (54, 2),
    (67, 4),
    (77, 8),
    (85, 16),
    (90, 32),
    (94, 64),
    (97, 128),
    (99, 256),
    (100, 1024),
];
/// Percentage of the I/O files that reads and writes touch.
pub const ACCESS_PERCENT: usize = 10;
/// I/O files a directory.
pub const FILES_PER_DIR: usize = 30;
/// Symbolic links per client (all processes together).
pub const SYMLINKS_PER_CLIENT: usize = 20;
/// Least non-I/O names per client.
pub const NON_IO_MIN: usize = 100;
/// Non-I/O names per 100 I/O files.
pub const NON_IO_PERCENT: usize = 2;
/// Percentage of lookups that are of a name that does not exist.
pub const FAILED_LOOKUP_PERCENT: u64 = 35;
/// How much appends may grow a process's share, in percent.
pub const DELTA_PERCENT: u64 = 10;
/// The smallest share of the set a process can have.
pub const MIN_BYTES_PER_PROC: u64 = 64 * 1024;

/// Floors of the files and of the working-set files of one process's
/// `share` of the set, known before the plan is drawn: half the expected
/// counts (a share large enough for the floors to matter draws so many
/// files that it never falls that far from the mean; the plan's own
/// counts are checked again once drawn).
pub fn floors(share: u64) -> (u64, u64) {
    let files = share / (2.0 * mean_file_size()) as u64;
    (files, files * ACCESS_PERCENT as u64 / 100)
}

/// The size of a file for a uniform `u64`, following [`FILE_SIZE_DIST`]:
/// the top of `u * 100` picks the percentile.
pub fn file_size(u: u64) -> u64 {
    let x = ((u128::from(u) * 100) >> 64) as u32;
    let kib = FILE_SIZE_DIST
        .iter()
        .find(|&&(cum, _)| cum > x)
        .map_or(FILE_SIZE_DIST[FILE_SIZE_DIST.len() - 1].1, |&(_, k)| k);
    kib * 1024
}

/// The mean of [`FILE_SIZE_DIST`], in bytes.
pub fn mean_file_size() -> f64 {
    let mut prev = 0;
    let mut sum = 0.0;
    for &(cum, kib) in &FILE_SIZE_DIST {
        sum += f64::from(cum - prev) * (kib * 1024) as f64;
        prev = cum;
    }
    sum / 100.0
}

/// One process's share of the set, as planned.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcPlan {
    /// The I/O files' sizes, in bytes.
    pub sizes: Vec<u64>,
    /// Indices of the I/O files reads and writes touch.
    pub working: Vec<usize>,
    pub dirs: usize,
    pub symlinks: usize,
    /// Non-I/O names; the even-numbered ones exist at the start.
    pub names: usize,
    /// Empty-directory names; the even-numbered ones exist at the start.
    pub empty_dirs: usize,
}

impl ProcPlan {
    pub fn bytes(&self) -> u64 {
        self.sizes.iter().sum()
    }
}

/// The whole set.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub procs: Vec<ProcPlan>,
}

impl Plan {
    pub fn bytes(&self) -> u64 {
        self.procs.iter().map(ProcPlan::bytes).sum()
    }
    pub fn files(&self) -> usize {
        self.procs.iter().map(|p| p.sizes.len()).sum()
    }
    pub fn working_files(&self) -> usize {
        self.procs.iter().map(|p| p.working.len()).sum()
    }
    /// The most working-set files of any process (each is held open).
    pub fn max_working(&self) -> usize {
        self.procs
            .iter()
            .map(|p| p.working.len())
            .max()
            .unwrap_or(0)
    }
    /// Names and directories besides the I/O files, all processes.
    pub fn other_entries(&self) -> usize {
        self.procs
            .iter()
            .map(|p| p.dirs + p.symlinks + p.names + p.empty_dirs + 1)
            .sum()
    }
}

/// Seed salt of the size draws, so they differ from the workers' streams.
const PLAN_SALT: u64 = 0x6c61_6464_6973_0001;

/// Plan a set of `total` bytes over `procs` processes (at least one; each
/// share at least one byte gives at least one file).
pub fn plan(total: u64, procs: usize, seed: u64) -> Plan {
    plan_client(total, procs.max(1), 0..procs.max(1), seed)
}

/// Plan one client's part of a server's set of `total` bytes shared out
/// over `all` processes: the client's are the server's processes `procs`
/// (each process's bytes and size draws are the same whichever client
/// runs it; the remainder of the division goes to the low processes, so
/// to the low clients). Links and non-I/O names are per client, as in SFS.
pub fn plan_client(total: u64, all: usize, procs: Range<usize>, seed: u64) -> Plan {
    let n = all.max(1) as u64;
    let here = procs.len().max(1);
    let mut out: Vec<ProcPlan> = procs
        .map(|i| {
            let share = total / n + u64::from((i as u64) < total % n);
            let mut rng: Prng = worker_rng(seed ^ PLAN_SALT, i);
            let mut sizes = Vec::new();
            let mut sum = 0u64;
            while sum < share {
                let s = file_size(rng.next_u64()).min(share - sum);
                sizes.push(s);
                sum += s;
            }
            let files = sizes.len();
            let w = (files * ACCESS_PERCENT / 100 + 1).min(files);
            // spread evenly over the files (their sizes are drawn at random)
            let working = (0..w).map(|k| k * files / w.max(1)).collect();
            ProcPlan {
                sizes,
                working,
                dirs: files / FILES_PER_DIR + 1,
                symlinks: SYMLINKS_PER_CLIENT / here + 1,
                names: 0,
                empty_dirs: 0,
            }
        })
        .collect();
    let files: usize = out.iter().map(|p| p.sizes.len()).sum();
    let non_io = (files * NON_IO_PERCENT / 100).max(NON_IO_MIN);
    for p in &mut out {
        p.names = non_io / here + 1;
        p.empty_dirs = p.dirs.max(2);
    }
    Plan { procs: out }
}

/// One process's share, made: the paths its operations use.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ProcSet {
    /// The process's directory.
    pub root: CString,
    pub files: Vec<CString>,
    pub sizes: Vec<u64>,
    pub working: Vec<usize>,
    pub dirs: Vec<CString>,
    /// One name per directory that does not exist (failed lookups).
    pub missing: Vec<CString>,
    pub symlinks: Vec<CString>,
    pub names: Vec<CString>,
    pub empty_dirs: Vec<CString>,
}

fn cpath(p: &Path) -> Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .with_context(|| format!("{}: a path with a NUL byte", p.display()))
}

/// Whether name `i` of a pool exists at the start (half of them do).
pub fn exists_at_start(i: usize) -> bool {
    i.is_multiple_of(2)
}

/// Make the planned set under `dir` (untimed): files filled with
/// incompressible bytes, then the file system synced. `None` when Ctrl-C
/// came meanwhile (what was made is left for the work directory's removal).
pub fn build(dir: &Path, plan: &Plan, seed: u64) -> Result<Option<Vec<ProcSet>>> {
    const CHUNK: usize = 1 << 20;
    let mut data = vec![0u8; CHUNK + 4096];
    fill_random(&mut data, seed ^ PLAN_SALT);
    let mut sets = Vec::with_capacity(plan.procs.len());
    let mut turn = 0usize;
    for (i, pp) in plan.procs.iter().enumerate() {
        let root = dir.join(format!("p{i:02}"));
        mkdir(&root)?;
        let dirs: Vec<PathBuf> = (0..pp.dirs)
            .map(|d| root.join(format!("d{d:04}")))
            .collect();
        for d in &dirs {
            mkdir(d)?;
        }
        let mut files = Vec::with_capacity(pp.sizes.len());
        for (j, &size) in pp.sizes.iter().enumerate() {
            if signals::interrupted() {
                return Ok(None);
            }
            let path = dirs[j / FILES_PER_DIR].join(format!("f{j:05}"));
            let mut f = std::fs::File::create(&path)
                .with_context(|| format!("creating {}", path.display()))?;
            let mut left = size as usize;
            while left > 0 {
                // a different window of the random bytes for each chunk
                turn = (turn + 1021) % 4096;
                let n = left.min(CHUNK);
                f.write_all(&data[turn..turn + n])
                    .with_context(|| format!("writing {}", path.display()))?;
                left -= n;
            }
            files.push(path);
        }
        let mut symlinks = Vec::with_capacity(pp.symlinks);
        for k in 0..pp.symlinks {
            let j = k * files.len() / pp.symlinks.max(1);
            let target = files[j].strip_prefix(&root).unwrap_or(&files[j]);
            let link = root.join(format!("l{k:03}"));
            std::os::unix::fs::symlink(target, &link)
                .with_context(|| format!("making the symbolic link {}", link.display()))?;
            symlinks.push(link);
        }
        let names: Vec<PathBuf> = (0..pp.names)
            .map(|k| root.join(format!("n{k:04}")))
            .collect();
        for (k, n) in names.iter().enumerate() {
            if exists_at_start(k) {
                std::fs::File::create(n).with_context(|| format!("creating {}", n.display()))?;
            }
        }
        let empty: Vec<PathBuf> = (0..pp.empty_dirs)
            .map(|k| root.join(format!("e{k:04}")))
            .collect();
        for (k, e) in empty.iter().enumerate() {
            if exists_at_start(k) {
                mkdir(e)?;
            }
        }
        let all = |v: &[PathBuf]| v.iter().map(|p| cpath(p)).collect::<Result<Vec<_>>>();
        sets.push(ProcSet {
            root: cpath(&root)?,
            files: all(&files)?,
            sizes: pp.sizes.clone(),
            working: pp.working.clone(),
            missing: all(&dirs.iter().map(|d| d.join("absent")).collect::<Vec<_>>())?,
            dirs: all(&dirs)?,
            symlinks: all(&symlinks)?,
            names: all(&names)?,
            empty_dirs: all(&empty)?,
        });
    }
    if signals::interrupted() {
        return Ok(None);
    }
    // the set's dirty pages are written before timing
    let d = std::fs::File::open(dir).with_context(|| format!("opening {}", dir.display()))?;
    rustix::fs::syncfs(&d).with_context(|| format!("syncing {}", dir.display()))?;
    Ok(Some(sets))
}

fn mkdir(p: &Path) -> Result<()> {
    std::fs::create_dir(p).with_context(|| format!("making the directory {}", p.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_xoshiro::rand_core::SeedableRng;

    #[test]
    fn file_sizes_follow_the_sfs_table() {
        let mut r = Prng::seed_from_u64(5);
        const N: usize = 100_000;
        let mut counts = std::collections::BTreeMap::new();
        for _ in 0..N {
            *counts.entry(file_size(r.next_u64())).or_insert(0usize) += 1;
        }
        let mut prev = 0;
        for &(cum, kib) in &FILE_SIZE_DIST {
            let want = f64::from(cum - prev) / 100.0;
            let got = counts.get(&(kib * 1024)).copied().unwrap_or(0) as f64 / N as f64;
            assert!((got - want).abs() < 0.005, "{kib} KiB: {got} vs {want}");
            prev = cum;
        }
        assert_eq!(counts.len(), FILE_SIZE_DIST.len());
        assert_eq!(file_size(0), 1024);
        assert_eq!(file_size(u64::MAX), 1024 * 1024);
        // 26.71 KiB on average
        assert!((mean_file_size() - 2671.0 * 1024.0 / 100.0).abs() < 1e-6);
    }

    #[test]
    fn a_plan_has_the_size_asked_and_sfs_proportions() {
        let total = 64 << 20;
        let p = plan(total, 4, 1);
        assert_eq!(p.bytes(), total);
        assert_eq!(p.procs.len(), 4);
        let files = p.files();
        // about total / 26.7 KiB files
        let expect = total as f64 / mean_file_size();
        assert!(
            (files as f64 / expect - 1.0).abs() < 0.15,
            "{files} vs {expect}"
        );
        for pp in &p.procs {
            assert_eq!(pp.bytes(), total / 4);
            let n = pp.sizes.len();
            assert_eq!(pp.working.len(), n / 10 + 1);
            assert!(pp.working.windows(2).all(|w| w[0] < w[1]));
            assert!(pp.working.iter().all(|&w| w < n));
            assert_eq!(pp.dirs, n / 30 + 1);
            assert_eq!(pp.symlinks, 6);
            assert_eq!(pp.names, (files * 2 / 100).max(NON_IO_MIN) / 4 + 1);
            assert!(pp.sizes.iter().all(|&s| s > 0 && s <= 1 << 20));
        }
        // reproducible from the seed, different for another
        assert_eq!(plan(total, 4, 1), p);
        assert_ne!(plan(total, 4, 2), p);
    }

    #[test]
    fn a_tiny_plan_still_has_a_file_each() {
        let p = plan(4097, 4, 1);
        assert_eq!(p.bytes(), 4097);
        for pp in &p.procs {
            assert!(!pp.sizes.is_empty());
            assert_eq!(pp.working.len(), 1);
            assert_eq!(pp.names, NON_IO_MIN / 4 + 1);
        }
    }

    /// Clients of 3, 2 and 2 processes plan the server's set between them:
    /// each process's files are those of the whole set's plan, the bytes
    /// add up, the remainder is on the low processes, and each client has
    /// its own links and non-I/O names.
    #[test]
    fn the_clients_parts_make_the_servers_set() {
        let (total, all) = (10_000_001, 7);
        let whole = plan(total, all, 5);
        let parts: Vec<Plan> = [0..3, 3..5, 5..7]
            .into_iter()
            .map(|r| plan_client(total, all, r, 5))
            .collect();
        assert_eq!(parts.iter().map(Plan::bytes).sum::<u64>(), total);
        let sizes = |p: &Plan| {
            p.procs
                .iter()
                .map(|pp| pp.sizes.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            parts.iter().flat_map(sizes).collect::<Vec<_>>(),
            sizes(&whole)
        );
        let per_proc: Vec<u64> = parts
            .iter()
            .flat_map(|p| p.procs.iter().map(ProcPlan::bytes))
            .collect();
        let base = total / all as u64;
        assert_eq!(per_proc[..4], [base + 1; 4]);
        assert_eq!(per_proc[4..], [base; 3]);
        assert_eq!(parts[0].procs[0].symlinks, SYMLINKS_PER_CLIENT / 3 + 1);
        assert_eq!(parts[1].procs[0].symlinks, SYMLINKS_PER_CLIENT / 2 + 1);
    }

    #[test]
    fn build_makes_the_planned_set() {
        let d = tempfile::tempdir().unwrap();
        let p = plan(2 << 20, 2, 3);
        let sets = build(d.path(), &p, 3).unwrap().unwrap();
        assert_eq!(sets.len(), 2);
        for (s, pp) in sets.iter().zip(&p.procs) {
            for (f, &size) in s.files.iter().zip(&pp.sizes) {
                let m = std::fs::metadata(f.to_str().unwrap()).unwrap();
                assert_eq!(m.len(), size);
            }
            for l in &s.symlinks {
                let path = Path::new(l.to_str().unwrap());
                assert!(std::fs::metadata(path).unwrap().is_file(), "{l:?}");
            }
            for m in &s.missing {
                assert!(!Path::new(m.to_str().unwrap()).exists());
            }
            for (k, n) in s.names.iter().enumerate() {
                assert_eq!(Path::new(n.to_str().unwrap()).exists(), exists_at_start(k));
            }
            for (k, e) in s.empty_dirs.iter().enumerate() {
                assert_eq!(Path::new(e.to_str().unwrap()).is_dir(), exists_at_start(k));
            }
        }
        // incompressible: a 1 KiB file is not all one byte
        let f = std::fs::read(sets[0].files[0].to_str().unwrap()).unwrap();
        assert!(f.iter().any(|&b| b != f[0]));
    }
}
