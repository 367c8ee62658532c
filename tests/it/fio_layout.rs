//! `iogauge fio` laying out the files it creates as fio does
//! (`fallocate`, `overwrite`, `create_fsync`) and advising the page cache
//! as fio does (`invalidate`, `fadvise_hint`).

use crate::common::*;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;

/// Run `job` with --keep-files in `dir`; the bytes the kept file `f`
/// has allocated (st_blocks) and its length.
fn kept(dir: &Path, job: &str) -> (u64, u64) {
    std::fs::write(dir.join("t.fio"), job).unwrap();
    let (code, _, err) = fio_in(dir, &["--keep-files", "t.fio"]);
    assert_eq!(code, 0, "{job}: {err}");
    let md = std::fs::metadata(dir.join("f")).unwrap();
    std::fs::remove_file(dir.join("f")).unwrap();
    std::fs::remove_file(dir.join("t.fio")).unwrap();
    (md.blocks() * 512, md.len())
}

/// A written file is allocated up front by default (fallocate(2), fio's
/// `native`), left sparse with `none`, and filled before the job with
/// `overwrite=1`. The job itself writes about one block (one I/O per
/// second for a second), so what is allocated is the layout's.
#[test]
fn written_files_are_allocated_as_fallocate_says() {
    let dir = work_dir();
    let job = |extra: &str| {
        format!(
            "[j]\nfilename=f\nrw=randwrite\nbs=4k\nsize=1m\nrate_iops=1\ntime_based\nruntime=1\n{extra}"
        )
    };
    let (blocks, len) = kept(dir.path(), &job(""));
    assert_eq!(len, 1 << 20);
    assert!(
        blocks >= 1 << 20,
        "fallocate=native: {blocks} bytes allocated"
    );
    let (blocks, len) = kept(dir.path(), &job("fallocate=none\n"));
    assert_eq!(len, 1 << 20);
    assert!(
        blocks <= 64 << 10,
        "fallocate=none: {blocks} bytes allocated"
    );
    let (blocks, _) = kept(dir.path(), &job("fallocate=none\noverwrite=1\n"));
    assert!(blocks >= 1 << 20, "overwrite=1: {blocks} bytes allocated");
    let (blocks, _) = kept(dir.path(), &job("fallocate=posix\n"));
    assert!(
        blocks >= 1 << 20,
        "fallocate=posix: {blocks} bytes allocated"
    );
    assert_eq!(tree(dir.path()), tree(work_dir().path()));
}

/// The fadvise calls of a buffered random read under strace: RANDOM on
/// open and DONTNEED before the stage by default; none of them with
/// `fadvise_hint=0` and `invalidate=0`; SEQUENTIAL with
/// `fadvise_hint=sequential`.
#[test]
fn fadvise_hint_and_invalidate_are_fios() {
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!("skipped: no strace");
        return;
    }
    let dir = work_dir();
    let bin = assert_cmd::cargo::cargo_bin("iogauge");
    let advice = |extra: &str| -> String {
        let job = format!("[j]\nfilename=f\nrw=randread\nbs=4k\nsize=64k\n{extra}");
        std::fs::write(dir.path().join("t.fio"), job).unwrap();
        let out = Command::new("strace")
            .args(["-f", "-qq", "-e", "trace=fadvise64", "-o", "trace"])
            .arg(&bin)
            .args(["fio", "t.fio"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let t = std::fs::read_to_string(dir.path().join("trace")).unwrap();
        std::fs::remove_file(dir.path().join("trace")).unwrap();
        std::fs::remove_file(dir.path().join("t.fio")).unwrap();
        t
    };
    let t = advice("");
    assert!(t.contains("POSIX_FADV_RANDOM"), "{t}");
    assert!(t.contains("POSIX_FADV_DONTNEED"), "{t}");
    let t = advice("fadvise_hint=0\ninvalidate=0\n");
    assert!(!t.contains("POSIX_FADV_RANDOM"), "{t}");
    assert!(!t.contains("POSIX_FADV_DONTNEED"), "{t}");
    let t = advice("fadvise_hint=sequential\n");
    assert!(t.contains("POSIX_FADV_SEQUENTIAL"), "{t}");
    assert!(!t.contains("POSIX_FADV_RANDOM"), "{t}");
    assert_eq!(tree(dir.path()), tree(work_dir().path()));
}

/// Values fio would not take, and a hint the mmap engine cannot follow,
/// are refused at their line.
#[test]
fn bad_layout_values_are_refused_at_their_line() {
    let dir = work_dir();
    for (line, want) in [
        ("fallocate=maybe", "t.fio:4: "),
        ("fadvise_hint=noreuse", "t.fio:4: "),
        ("invalidate=x", "t.fio:4: "),
        ("fadvise_hint=sequential\nioengine=mmap", "t.fio:4: "),
    ] {
        let job = format!("[j]\nrw=randread\nsize=64k\n{line}\n");
        std::fs::write(dir.path().join("t.fio"), &job).unwrap();
        let (code, _, err) = fio_in(dir.path(), &["t.fio"]);
        assert_eq!(code, 2, "{job}: {err}");
        assert!(err.starts_with(&format!("iogauge: {want}")), "{job}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    std::fs::remove_file(dir.path().join("t.fio")).unwrap();
    assert_eq!(tree(dir.path()), tree(work_dir().path()));
}
