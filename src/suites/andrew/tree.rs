//! The tree Andrew copies: a generated one shaped like CMU's (70 files,
//! 200 KiB, a top directory and five subdirectories of C sources and
//! headers, a Makefile), or a real tree scanned from `--tree DIR`.
//!
//! The generated tree's shape is fixed; `--seed` draws its file sizes and
//! contents:
//!
//! ```text
//!   ./        Makefile, README, config.h, andrew.h, version.h   (5 files)
//!   lib/ util/ io/ net/ cmd/   9 .c sources and 4 .h headers each (65)
//! ```
//!
//! Sizes are log-normal (σ = 0.7) around a median by kind (source 3600 B,
//! header 1400 B, Makefile 2500 B, README 1800 B), clamped to 256 B –
//! 24 KiB, then scaled so that the tree holds exactly 204 800 B.

use crate::workload::{Prng, unit_f64, worker_rng};
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Bytes in the generated tree.
pub const TREE_BYTES: u64 = 204_800;
/// The generated tree's subdirectories.
pub const SUBDIRS: [&str; 5] = ["lib", "util", "io", "net", "cmd"];
/// Sources and headers in each subdirectory.
pub const SOURCES_PER_DIR: usize = 9;
pub const HEADERS_PER_DIR: usize = 4;
/// Most files a `--tree` may hold.
pub const MAX_FILES: usize = 1_000_000;

/// What a file is to the Make phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FileKind {
    /// Compiled: `.c`, `.cc`, `.cpp`, `.cxx`.
    Source,
    /// `.h`, `.hh`, `.hpp`.
    Header,
    /// Read by the Make phase before compiling: `Makefile`, `makefile`,
    /// `GNUmakefile`.
    Makefile,
    /// Copied, scanned and read, not compiled.
    Other,
}

impl FileKind {
    /// The kind of a file named `name`.
    pub fn of(name: &str) -> FileKind {
        if matches!(name, "Makefile" | "makefile" | "GNUmakefile") {
            return FileKind::Makefile;
        }
        match name.rsplit_once('.').map(|(_, x)| x) {
            Some("c" | "cc" | "cpp" | "cxx") => FileKind::Source,
            Some("h" | "hh" | "hpp") => FileKind::Header,
            _ => FileKind::Other,
        }
    }
}

/// One file of the tree, relative to its root.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanFile {
    pub rel: PathBuf,
    pub size: u64,
    pub kind: FileKind,
}

/// A tree: its subdirectories (relative, parents before children; the root
/// is not listed) and files.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub dirs: Vec<PathBuf>,
    pub files: Vec<PlanFile>,
    /// What a scan skipped (special files, broken symlinks).
    pub notes: Vec<String>,
}

/// The object a source compiles to: half its size, rounded up.
pub fn object_size(source: u64) -> u64 {
    source.div_ceil(2)
}

impl Plan {
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }

    fn of_kind(&self, k: FileKind) -> impl Iterator<Item = &PlanFile> {
        self.files.iter().filter(move |f| f.kind == k)
    }

    pub fn sources(&self) -> usize {
        self.of_kind(FileKind::Source).count()
    }

    pub fn source_bytes(&self) -> u64 {
        self.of_kind(FileKind::Source).map(|f| f.size).sum()
    }

    pub fn makefiles(&self) -> usize {
        self.of_kind(FileKind::Makefile).count()
    }

    pub fn makefile_bytes(&self) -> u64 {
        self.of_kind(FileKind::Makefile).map(|f| f.size).sum()
    }

    /// Bytes of all objects (and so of the linked output).
    pub fn object_bytes(&self) -> u64 {
        self.of_kind(FileKind::Source)
            .map(|f| object_size(f.size))
            .sum()
    }

    /// The generated tree for `seed`.
    pub fn generated(seed: u64) -> Plan {
        let mut rng = worker_rng(seed, 0);
        let mut files = Vec::with_capacity(70);
        let mut add = |rel: PathBuf, kind: FileKind, median: f64, rng: &mut Prng| {
            let size = (median * (0.7 * normal(rng)).exp()).clamp(256.0, 24_576.0);
            files.push(PlanFile {
                rel,
                size: size as u64,
                kind,
            });
        };
        add("Makefile".into(), FileKind::Makefile, 2500.0, &mut rng);
        add("README".into(), FileKind::Other, 1800.0, &mut rng);
        for h in ["config.h", "andrew.h", "version.h"] {
            add(h.into(), FileKind::Header, 1400.0, &mut rng);
        }
        for d in SUBDIRS {
            for i in 0..SOURCES_PER_DIR {
                let rel = Path::new(d).join(format!("{d}{i}.c"));
                add(rel, FileKind::Source, 3600.0, &mut rng);
            }
            for i in 0..HEADERS_PER_DIR {
                let rel = Path::new(d).join(format!("{d}{i}.h"));
                add(rel, FileKind::Header, 1400.0, &mut rng);
            }
        }
        // scale to exactly TREE_BYTES; the largest file takes the rounding
        let drawn: u64 = files.iter().map(|f| f.size).sum();
        let k = TREE_BYTES as f64 / drawn as f64;
        for f in &mut files {
            f.size = ((f.size as f64 * k) as u64).max(64);
        }
        let sum: i64 = files.iter().map(|f| f.size as i64).sum();
        if let Some(big) = files.iter_mut().max_by_key(|f| f.size) {
            big.size = (big.size as i64 + TREE_BYTES as i64 - sum) as u64;
        }
        Plan {
            dirs: SUBDIRS.iter().map(PathBuf::from).collect(),
            files,
            notes: Vec::new(),
        }
    }

    /// Write the tree under `root` (which exists): every directory, every
    /// file with its deterministic contents.
    pub fn write(&self, seed: u64, root: &Path) -> anyhow::Result<()> {
        use anyhow::Context;
        for d in &self.dirs {
            let p = root.join(d);
            std::fs::create_dir(&p).with_context(|| format!("cannot create {}", p.display()))?;
        }
        let mut buf = Vec::new();
        for (i, f) in self.files.iter().enumerate() {
            contents(seed, i, f, &mut buf);
            let p = root.join(&f.rel);
            std::fs::write(&p, &buf).with_context(|| format!("cannot write {}", p.display()))?;
        }
        Ok(())
    }

    /// Scan a real tree (`--tree DIR`), only reading it. Symlinks are
    /// followed; a symlink back to a directory being scanned is refused
    /// (a loop); special files and broken symlinks are skipped with a
    /// note. The error is one line naming `--tree`.
    pub fn scan(root: &Path) -> Result<Plan, String> {
        let shown = root.display();
        let m = std::fs::metadata(root).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("--tree {shown}: no such directory"),
            _ => format!("--tree {shown}: {e}"),
        })?;
        if !m.is_dir() {
            return Err(format!("--tree {shown}: not a directory"));
        }
        let mut plan = Plan::default();
        let mut ancestors = vec![(m.dev(), m.ino())];
        scan_dir(root, Path::new(""), &mut ancestors, &mut plan)?;
        if plan.files.is_empty() {
            return Err(format!("--tree {shown}: holds no regular file to copy"));
        }
        Ok(plan)
    }
}

fn scan_dir(
    root: &Path,
    rel: &Path,
    ancestors: &mut Vec<(u64, u64)>,
    plan: &mut Plan,
) -> Result<(), String> {
    let here = root.join(rel);
    let err =
        |p: &Path, e: std::io::Error| format!("--tree {}: {}: {e}", root.display(), p.display());
    let mut names: Vec<_> = std::fs::read_dir(&here)
        .map_err(|e| err(&here, e))?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<Result<_, _>>()
        .map_err(|e| err(&here, e))?;
    names.sort();
    for name in names {
        let path = here.join(&name);
        let r = rel.join(&name);
        let lm = std::fs::symlink_metadata(&path).map_err(|e| err(&path, e))?;
        let m = if lm.file_type().is_symlink() {
            match std::fs::metadata(&path) {
                Ok(m) => m,
                Err(_) => {
                    plan.notes
                        .push(format!("skipped {}: a broken symlink", r.display()));
                    continue;
                }
            }
        } else {
            lm
        };
        let t = m.file_type();
        if t.is_dir() {
            let id = (m.dev(), m.ino());
            if ancestors.contains(&id) {
                return Err(format!(
                    "--tree {}: {} is a symlink loop (it leads back to a directory above it)",
                    root.display(),
                    r.display()
                ));
            }
            plan.dirs.push(r.clone());
            ancestors.push(id);
            scan_dir(root, &r, ancestors, plan)?;
            ancestors.pop();
        } else if t.is_file() {
            if plan.files.len() >= MAX_FILES {
                return Err(format!(
                    "--tree {}: more than {MAX_FILES} files",
                    root.display()
                ));
            }
            plan.files.push(PlanFile {
                kind: FileKind::of(&name.to_string_lossy()),
                rel: r,
                size: m.len(),
            });
        } else {
            let what = if t.is_fifo() {
                "a FIFO"
            } else if t.is_socket() {
                "a socket"
            } else if t.is_char_device() {
                "a character device"
            } else if t.is_block_device() {
                "a block device"
            } else {
                "not a regular file"
            };
            plan.notes.push(format!("skipped {}: {what}", r.display()));
        }
    }
    Ok(())
}

/// A standard normal draw (Box-Muller).
fn normal(r: &mut Prng) -> f64 {
    let u = unit_f64(r).max(1e-300);
    let v = unit_f64(r);
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// The contents of file `index` of a generated tree: C-like text of
/// exactly `f.size` bytes, ending in a newline.
pub fn contents(seed: u64, index: usize, f: &PlanFile, buf: &mut Vec<u8>) {
    let mut r = worker_rng(seed ^ 0x616e_6472_6577, index);
    let n = |r: &mut Prng, k: u64| crate::workload::below(r, k);
    buf.clear();
    let name = f.rel.display();
    let size = f.size as usize;
    match f.kind {
        FileKind::Makefile => {
            let _ = writeln!(
                buf,
                "# Makefile of the Andrew tree (iogauge)\nCC = cc\nCFLAGS = -O\n"
            );
            while buf.len() < size {
                let d = SUBDIRS[n(&mut r, 5) as usize];
                let i = n(&mut r, SOURCES_PER_DIR as u64);
                let _ = writeln!(
                    buf,
                    "{d}/{d}{i}.o: {d}/{d}{i}.c andrew.h\n\t$(CC) $(CFLAGS) -c -o $@ {d}/{d}{i}.c\n"
                );
            }
        }
        FileKind::Other => {
            let _ = writeln!(buf, "The Andrew benchmark's tree, as iogauge makes it.\n");
            while buf.len() < size {
                let _ = writeln!(
                    buf,
                    "Module {} keeps {} records of {} bytes.",
                    n(&mut r, 100),
                    n(&mut r, 10_000),
                    n(&mut r, 512)
                );
            }
        }
        FileKind::Header => {
            let _ = writeln!(buf, "/* {name} */\n#pragma once\n");
            while buf.len() < size {
                let k = n(&mut r, 1000);
                let _ = match n(&mut r, 3) {
                    0 => writeln!(buf, "#define LIMIT_{k} {}", n(&mut r, 65_536)),
                    1 => writeln!(
                        buf,
                        "struct rec_{k} {{ int id; long off_{k}; char tag[{}]; }};",
                        1 + n(&mut r, 64)
                    ),
                    _ => writeln!(buf, "extern int fn_{k}(int a, int b);"),
                };
            }
        }
        FileKind::Source => {
            let _ = writeln!(buf, "/* {name} */\n#include \"andrew.h\"\n");
            while buf.len() < size {
                let k = n(&mut r, 1000);
                let _ = writeln!(
                    buf,
                    "int fn_{k}(int a, int b)\n{{\n\tint x = a * {} + b;\n\tif (x > {})\n\t\tx -= b;\n\treturn x;\n}}\n",
                    n(&mut r, 100),
                    n(&mut r, 10_000)
                );
            }
        }
    }
    buf.truncate(size);
    if let Some(last) = buf.last_mut() {
        *last = b'\n';
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_tree_has_andrews_shape() {
        let p = Plan::generated(1);
        assert_eq!(p.files.len(), 70);
        assert_eq!(p.dirs.len(), 5);
        assert_eq!(p.bytes(), TREE_BYTES);
        assert_eq!(p.sources(), 45);
        assert_eq!(p.makefiles(), 1);
        assert!(p.files.iter().all(|f| f.size >= 64), "{p:?}");
        // the seed draws sizes; the same seed gives the same tree
        assert_eq!(p, Plan::generated(1));
        assert_ne!(p, Plan::generated(2));
    }

    #[test]
    fn contents_are_deterministic_text_of_the_planned_size() {
        let p = Plan::generated(7);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (i, f) in p.files.iter().enumerate() {
            contents(7, i, f, &mut a);
            contents(7, i, f, &mut b);
            assert_eq!(a.len() as u64, f.size);
            assert_eq!(a, b);
            assert!(a.is_ascii() && a.ends_with(b"\n"));
        }
    }

    #[test]
    fn a_scan_follows_symlinks_skips_special_files_and_refuses_loops() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("t");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("Makefile"), b"all:\n").unwrap();
        std::fs::write(root.join("a/x.c"), b"int x;\n").unwrap();
        std::fs::write(root.join("a/b/y.h"), b"#define Y\n").unwrap();
        std::os::unix::fs::symlink("x.c", root.join("a/link.c")).unwrap();
        std::os::unix::fs::symlink("nowhere", root.join("broken")).unwrap();
        let fifo = std::ffi::CString::new(root.join("pipe").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let p = Plan::scan(&root).unwrap();
        let rels: Vec<_> = p
            .files
            .iter()
            .map(|f| f.rel.display().to_string())
            .collect();
        assert_eq!(rels, ["Makefile", "a/b/y.h", "a/link.c", "a/x.c"]);
        assert_eq!(p.dirs, [PathBuf::from("a"), PathBuf::from("a/b")]);
        assert_eq!(p.sources(), 2);
        assert_eq!(p.notes.len(), 2, "{:?}", p.notes);
        // a loop
        std::os::unix::fs::symlink("..", root.join("a/b/up")).unwrap();
        let e = Plan::scan(&root).unwrap_err();
        assert!(e.contains("loop"), "{e}");
        // missing, a file, empty
        assert!(
            Plan::scan(&d.path().join("no"))
                .unwrap_err()
                .contains("no such")
        );
        let e = Plan::scan(&root.join("Makefile")).unwrap_err();
        assert!(e.contains("not a directory"), "{e}");
        std::fs::create_dir(d.path().join("empty")).unwrap();
        assert!(Plan::scan(&d.path().join("empty")).is_err());
    }
}
