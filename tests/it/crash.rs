//! `--verify-crash`: a run killed mid-way, or whose device fails, leaves
//! a directory whose journal `--verify-only` checks every synced unit
//! against. The loop-device tests need root, losetup, mkfs.ext4 and
//! e2fsck; without them they print why and pass.

use crate::common::*;
use iogauge::verify::crash::{HEAD, Head, RECORD, journal_name};
use iogauge::verify::{Pattern, Stamp};
use serde_json::Value;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Start a `--verify-crash` run in `dir` that would last 30 s.
fn start(dir: &Path, extra: &[&str]) -> Child {
    Command::new(bin_path())
        .args([
            "run",
            "--dir",
            p(dir),
            "--verify-crash",
            "--fsync",
            "every=4",
        ])
        .args(["--unique-bytes", "8M", "--duration", "30s", "-q"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The run's work directory in `dir`, once its head is written and its
/// journals hold `records` records between them (at most 8 s).
fn wait_for_journal(dir: &Path, child: &mut Child, records: u64) -> PathBuf {
    let t = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            panic!("the run ended early: {s}");
        }
        if let Some(w) = run_dir(dir)
            && w.join(HEAD).is_file()
            && journal_records(&w) >= records
        {
            return w;
        }
        assert!(t.elapsed() < Duration::from_secs(8), "no journal records");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn run_dir(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("iogauge-run-"))
        })
}

/// Records written so far in every journal of `w` (non-zero records).
fn journal_records(w: &Path) -> u64 {
    (0..8)
        .filter_map(|i| std::fs::read(w.join(journal_name(i))).ok())
        .map(|b| {
            b.chunks(RECORD)
                .filter(|r| r.iter().any(|&x| x != 0))
                .count() as u64
        })
        .sum()
}

/// `--verify-only w --json -`: the exit code and the result.
fn verify_only(w: &Path) -> (i32, Value, String) {
    let out = iogauge()
        .args(["run", "--verify-only", p(w), "--json", "-", "-q"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}); stderr: {stderr}"));
    (out.status.code().unwrap_or(-1), v, stderr)
}

fn kill9(child: &mut Child) {
    child.kill().unwrap();
    let s = child.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&s),
        Some(9),
        "{s}"
    );
}

/// (a) SIGKILL of the main process mid-run, then `--verify-only`: the
/// directory is left, its journal has records, and no synced unit is lost
/// on a healthy file system.
#[test]
fn a_killed_run_leaves_a_directory_whose_synced_units_are_intact() {
    let dir = work_dir();
    let mut child = start(dir.path(), &["-p", "2", "--read-frac", "0.3"]);
    let w = wait_for_journal(dir.path(), &mut child, 1);
    std::thread::sleep(Duration::from_millis(700));
    kill9(&mut child);
    assert!(w.join(HEAD).is_file(), "the head stays");
    assert!(w.join(journal_name(0)).is_file() && w.join(journal_name(1)).is_file());
    let (code, v, stderr) = verify_only(&w);
    assert_eq!(code, 0, "{stderr}");
    let c = get(&v, "verify.crash");
    assert!(u64_at(c, "journal_records") > 0, "{c}");
    assert!(u64_at(c, "units_synced") > 0, "{c}");
    assert_eq!(u64_at(c, "lost_after_fsync"), 0, "{c}");
    assert_eq!(u64_at(&v, "verify.mismatches"), 0);
    crate::schema::assert_valid("run --verify-only (crash)", &v);
    // every unit of the 8 MiB file set is judged
    assert_eq!(
        u64_at(c, "units_synced") + u64_at(c, "units_laid_out"),
        8 << 20 >> 12
    );
    // --verify-only changes nothing: the directory is still there, whole
    assert!(w.join(HEAD).is_file());
    let (code, _, _) = verify_only(&w);
    assert_eq!(code, 0);
}

#[test]
fn verify_crash_needs_a_sync_policy() {
    let dir = work_dir();
    let line = assert_usage_error(&[
        "run",
        "--dir",
        p(dir.path()),
        "--verify-crash",
        "--unique-bytes",
        "1M",
        "--ops",
        "10",
    ]);
    assert!(line.contains("--fsync every=N"), "{line}");
    assert_untouched(dir.path());
}

#[test]
fn a_run_that_ends_removes_its_journal_with_its_directory() {
    let dir = work_dir();
    iogauge()
        .args([
            "run",
            "--dir",
            p(dir.path()),
            "--verify-crash",
            "--fsync",
            "end",
        ])
        .args(["--unique-bytes", "1M", "--ops", "100", "-q"])
        .assert()
        .success();
    assert_untouched(dir.path());
}

/// What a loop-device test needs, or why it cannot run.
fn loop_ready() -> Result<(), String> {
    if !is_root() {
        return Err("not root".into());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Err("no loop devices (/dev/loop-control)".into());
    }
    for tool in [
        "losetup",
        "mkfs.ext4",
        "e2fsck",
        "mount",
        "umount",
        "chattr",
    ] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            return Err(format!("{tool} is not installed"));
        }
    }
    Ok(())
}

fn sh(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// An ext4 file system on a loop device over a file, mounted; unmounted
/// and detached when dropped (whatever the test did to it).
struct Loop {
    image: PathBuf,
    mnt: PathBuf,
    dev: String,
}

impl Loop {
    fn new(image: &Path, mnt: &Path, mkfs: bool) -> Loop {
        if mkfs {
            sh("truncate", &["-s", "64M", p(image)]);
            sh("mkfs.ext4", &["-q", "-F", p(image)]);
        }
        let dev = sh("losetup", &["-f", "--show", p(image)]);
        std::fs::create_dir_all(mnt).unwrap();
        let l = Loop {
            image: image.into(),
            mnt: mnt.into(),
            dev,
        };
        sh("mount", &[&l.dev, p(mnt)]);
        l
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("chattr").args(["-i", p(&self.image)]).output();
        let _ = Command::new("umount").arg(p(&self.mnt)).output();
        let _ = Command::new("losetup").args(["-d", &self.dev]).output();
    }
}

/// A crash image, repaired as after a power cut (the file system's
/// journal replayed, the rest checked), mounted at `mnt`.
fn repair_and_mount(copy: &Path, mnt: &Path) -> Loop {
    // 0: clean, 1: errors corrected
    let s = Command::new("e2fsck")
        .args(["-fy", p(copy)])
        .output()
        .unwrap();
    assert!(matches!(s.status.code(), Some(0 | 1)), "e2fsck: {s:?}");
    Loop::new(copy, mnt, false)
}

/// (b) and (c): a crash image taken mid-run (the process stopped, the
/// loop's backing file copied: what the device had received), the run
/// then killed; on the copy, every synced unit is intact. Then one
/// journaled unit is put back to an older generation behind iogauge's
/// back, and `--verify-only` reports it as lost after fsync.
#[test]
fn a_crash_image_keeps_every_synced_unit_and_a_stale_one_is_found() {
    if let Err(why) = loop_ready() {
        println!("skipped: {why}");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let (image, copy) = (t.path().join("image"), t.path().join("copy"));
    let live = Loop::new(&image, &t.path().join("live"), true);
    let mut child = start(&live.mnt, &["--read-frac", "0.2"]);
    wait_for_journal(&live.mnt, &mut child, 20);
    // no sync completes while the image is copied: every journal record
    // in the copy describes a sync whose data the device already had
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGSTOP) };
    sh("cp", &["--sparse=always", p(&image), p(&copy)]);
    kill9(&mut child);
    drop(live);
    // the copy, as the device held it at the crash
    let crashed = repair_and_mount(&copy, &t.path().join("after"));
    let w = run_dir(&crashed.mnt).expect("the run's directory is on the image");
    let (code, v, stderr) = verify_only(&w);
    assert_eq!(code, 0, "{stderr}\n{v}");
    let c = get(&v, "verify.crash");
    assert!(u64_at(c, "journal_records") >= 20, "{c}");
    assert_eq!(u64_at(c, "lost_after_fsync"), 0, "{c}");

    // (c) the negative control: a journaled unit (synced at generation
    // lo ≥ 1) given generation lo - 1
    let head = Head::read(&w).unwrap();
    let journal = std::fs::read(w.join(journal_name(0))).unwrap();
    let rec = journal
        .chunks(RECORD)
        .filter(|r| r.iter().any(|&x| x != 0))
        .map(|r| {
            let u64_at = |i: usize| u64::from_le_bytes(r[i..i + 8].try_into().unwrap());
            let file = u32::from_le_bytes(r[16..20].try_into().unwrap());
            (file, u64_at(24), u64_at(32))
        })
        .filter(|&(_, _, lo)| lo >= 1)
        .max_by_key(|&(_, _, lo)| lo)
        .expect("a record of a sync during the run");
    let (file, offset, lo) = rec;
    // the unit may hold a newer generation still; any older than the
    // newest synced one is a loss
    let stale = Pattern::new(head.seed, head.unit as usize).expected(&Stamp {
        file: u64::from(file),
        offset,
        generation: lo - 1,
        writer: head.owner(offset),
        seed: head.seed,
    });
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(w.join(&head.files[file as usize]))
        .unwrap();
    f.write_all_at(&stale, offset).unwrap();
    f.sync_all().unwrap();
    drop(f);
    let (code, v, stderr) = verify_only(&w);
    assert_eq!(code, 3, "{stderr}\n{v}");
    assert_eq!(u64_at(&v, "verify.crash.lost_after_fsync"), 1);
    crate::schema::assert_valid("run --verify-only (crash, a unit lost)", &v);
    let m = &get(&v, "verify.first")[0];
    assert_eq!(str_at(m, "kind"), "stale", "{m}");
    assert_eq!(
        (u64_at(m, "file"), u64_at(m, "offset")),
        (u64::from(file), offset)
    );
    assert!(stderr.contains("1 unit(s)"), "{stderr}");
    let text = iogauge()
        .args(["run", "--verify-only", p(&w)])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(&format!(
            "lost after fsync: stale: file {file} offset {offset}: expected generation {lo}"
        )),
        "{text}"
    );
}

/// (b) the device fails under the run: its backing file made immutable,
/// every write the loop device passes on fails (EIO). The run stops with
/// the cause named; the image (what the device had taken before it
/// failed) keeps every unit the journal says was synced.
#[test]
fn a_failing_device_stops_the_run_and_the_synced_units_survive() {
    if let Err(why) = loop_ready() {
        println!("skipped: {why}");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let image = t.path().join("image");
    let live = Loop::new(&image, &t.path().join("live"), true);
    let mut child = start(&live.mnt, &[]);
    let w = wait_for_journal(&live.mnt, &mut child, 20);
    let name = w.file_name().unwrap().to_owned();
    sh("chattr", &["+i", p(&image)]);
    let status = wait_for(&mut child, Duration::from_secs(8));
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("Input/output error"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let copy = t.path().join("copy");
    sh("cp", &["--sparse=always", p(&image), p(&copy)]);
    drop(live);
    let after = repair_and_mount(&copy, &t.path().join("after"));
    let w = after.mnt.join(name);
    let (code, v, stderr) = verify_only(&w);
    assert_eq!(code, 0, "{stderr}\n{v}");
    assert!(u64_at(&v, "verify.crash.journal_records") >= 20);
    assert_eq!(u64_at(&v, "verify.crash.lost_after_fsync"), 0);
}
