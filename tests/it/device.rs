//! `--device`: run, scientific and iozone on a raw block device, a loop
//! device over a file in a temporary directory. The loop-device tests need
//! root and loop support (and mkfs.ext4 and mount for two of them);
//! without them they print why and pass.

use crate::common::*;
use serde_json::Value;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A loop device over an image of `size` bytes in a temporary directory,
/// detached (and unmounted) when dropped, whatever the test did.
pub(crate) struct LoopDev {
    pub(crate) dev: String,
    pub(crate) image: PathBuf,
    mnt: Option<PathBuf>,
    dir: tempfile::TempDir,
}

impl LoopDev {
    /// A new one, or `None` (having printed why) where this machine cannot
    /// make one.
    pub(crate) fn new(test: &str, bytes: u64, tools: &[&str]) -> Option<LoopDev> {
        if let Err(why) = ready(tools) {
            println!("skipped {test}: {why}");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("image");
        let f = std::fs::File::create(&image).unwrap();
        f.set_len(bytes).unwrap();
        drop(f);
        // two tests may ask for a free device at once: try again
        for _ in 0..5 {
            let out = Command::new("losetup")
                .args(["-f", "--show", p(&image)])
                .output()
                .unwrap();
            if out.status.success() {
                let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
                return Some(LoopDev {
                    dev,
                    image,
                    mnt: None,
                    dir,
                });
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        println!("skipped {test}: losetup could not attach a loop device");
        None
    }

    /// Put an ext4 file system on the device.
    fn mkfs(&self) {
        sh("mkfs.ext4", &["-q", "-F", &self.dev]);
    }

    /// Mount the device's file system in the temporary directory.
    fn mount(&mut self) {
        let mnt = self.dir.path().join("mnt");
        std::fs::create_dir(&mnt).unwrap();
        sh("mount", &[&self.dev, p(&mnt)]);
        self.mnt = Some(mnt);
    }

    pub(crate) fn image_bytes(&self) -> Vec<u8> {
        std::fs::read(&self.image).unwrap()
    }

    /// The device node is still a block device, and the image directory
    /// holds only the image (and the mount point, when there was one).
    pub(crate) fn assert_intact(&self) {
        let md = std::fs::metadata(&self.dev).unwrap();
        assert!(md.file_type().is_block_device(), "{} went", self.dev);
        let mut left = tree(self.dir.path());
        left.retain(|e| !e.starts_with("mnt"));
        assert_eq!(left, ["image"]);
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        if let Some(m) = &self.mnt {
            let _ = Command::new("umount").arg(m).output();
        }
        let _ = Command::new("losetup").args(["-d", &self.dev]).output();
    }
}

/// What a loop-device test needs, or why it cannot run.
fn ready(tools: &[&str]) -> Result<(), String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Err("not root".into());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Err("no loop devices (/dev/loop-control)".into());
    }
    for tool in ["losetup"].iter().chain(tools) {
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

fn sh(cmd: &str, args: &[&str]) {
    let out = Command::new(cmd).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Run `args` in a fresh [`work_dir`] with `--json -`: the result and the
/// report; the directory is left as it was.
fn json_in_workdir(args: &[&str]) -> (Value, String) {
    let wd = work_dir();
    let out = iogauge()
        .current_dir(wd.path())
        .args(args)
        .args(["--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "iogauge {args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_untouched(wd.path());
    (v, stderr)
}

/// The result's device record names `l`'s device, of `bytes`.
fn assert_device_record(v: &Value, l: &LoopDev, bytes: u64, writes: bool) {
    let d = get(v, "environment.block_device");
    assert_eq!(str_at(d, "path"), l.dev);
    assert_eq!(u64_at(d, "bytes"), bytes);
    assert_eq!(u64_at(d, "logical_block_bytes"), 512);
    assert!(u64_at(d, "physical_block_bytes") >= 512);
    assert_eq!(str_at(d, "backing_file"), p(&l.image));
    assert_eq!(get(d, "writes").as_bool(), Some(writes));
    assert!(get(d, "rotational").is_boolean());
    assert!(str_at(d, "dev").starts_with("7:"), "{d}");
    assert_eq!(str_at(v, "environment.device"), l.dev);
    assert_eq!(str_at(v, "environment.fs_type"), "");
}

#[test]
fn what_is_not_a_block_device_is_refused_with_the_flag_to_use() {
    let wd = work_dir();
    let f = wd.path().join("keep");
    let e = assert_usage_error(&["run", "--device", p(&f), "--read-frac", "1"]);
    assert!(
        e.contains("is a regular file") && e.contains("--file"),
        "{e}"
    );
    let e = assert_usage_error(&["run", "--device", p(wd.path()), "--read-frac", "1"]);
    assert!(e.contains("is a directory") && e.contains("--dir"), "{e}");
    let e = assert_usage_error(&["scientific", "--device", "/dev/null"]);
    assert!(e.contains("is not a block device"), "{e}");
    let e = assert_usage_error(&["iozone", "-i", "1", "--device", p(&wd.path().join("no"))]);
    assert!(e.contains("does not exist"), "{e}");
    // the flags that place files do not go with a device
    assert_usage_error(&["run", "--device", "/dev/null", "--file", p(&f)]);
    assert_usage_error(&["run", "--allow-destroy", "--read-frac", "1"]);
    assert_untouched(wd.path());
}

#[test]
fn a_read_run_on_a_device_reads_it_and_records_it() {
    let Some(l) = LoopDev::new("device read run", 8 << 20, &[]) else {
        return;
    };
    let before = l.image_bytes();
    let (v, report) = json_in_workdir(&[
        "run",
        "--device",
        &l.dev,
        "--read-frac",
        "1",
        "--size-mean",
        "4k",
        "--size-cv",
        "0",
        "--ops",
        "300",
    ]);
    check_result(&v);
    crate::schema::assert_valid("run --device", &v);
    assert_eq!(op_count(&v, "read"), 300);
    assert_device_record(&v, &l, 8 << 20, false);
    assert_eq!(u64_at(&v, "config.workload.unique_bytes"), 8 << 20);
    assert_eq!(str_at(&v, "config.user_file.path"), l.dev);
    assert!(
        report.contains("the given device") && report.contains("on block device"),
        "{report}"
    );
    assert_eq!(l.image_bytes(), before, "a read run changed the device");
    // --direct: O_DIRECT on the device, in whole logical blocks
    let (v, _) = json_in_workdir(&[
        "run",
        "--device",
        &l.dev,
        "--read-frac",
        "1",
        "--unique-bytes",
        "1M",
        "--direct",
        "--ops",
        "50",
    ]);
    assert_eq!(op_count(&v, "read"), 50);
    assert_eq!(u64_at(&v, "config.workload.unique_bytes"), 1 << 20);
    l.assert_intact();
    // more than the device holds
    let e = assert_usage_error(&[
        "run",
        "--device",
        &l.dev,
        "--read-frac",
        "1",
        "--unique-bytes",
        "9M",
    ]);
    assert!(e.contains("larger than --device"), "{e}");
}

#[test]
fn writing_a_device_needs_allow_destroy() {
    let Some(l) = LoopDev::new("device write", 8 << 20, &[]) else {
        return;
    };
    let before = l.image_bytes();
    let e = assert_usage_error(&["run", "--device", &l.dev, "--ops", "10"]);
    assert!(
        e.contains("destroys everything on it (8.00 MiB)")
            && e.contains("--allow-destroy")
            && e.contains("--read-frac 1"),
        "{e}"
    );
    let e = assert_usage_error(&["run", "--device", &l.dev, "--verify", "--allow-destroy"]);
    assert!(e.contains("--verify on --device"), "{e}");
    assert_eq!(l.image_bytes(), before, "a refused run wrote");
    let (v, _) = json_in_workdir(&[
        "run",
        "--device",
        &l.dev,
        "--allow-destroy",
        "--read-frac",
        "0",
        "--size-mean",
        "64k",
        "--size-cv",
        "0",
        "--ops",
        "40",
        "--fsync",
        "end",
    ]);
    assert_eq!(op_count(&v, "write"), 40);
    assert_device_record(&v, &l, 8 << 20, true);
    assert_ne!(l.image_bytes(), before, "the writes reached the device");
    l.assert_intact();
}

#[test]
fn a_file_system_signature_is_refused_unless_forced() {
    let Some(l) = LoopDev::new("device ext4 signature", 16 << 20, &["mkfs.ext4"]) else {
        return;
    };
    l.mkfs();
    let args = ["run", "--device", &l.dev, "--allow-destroy", "--ops", "20"];
    let e = assert_usage_error(&args);
    assert!(
        e.contains("holds an ext4 file system signature") && e.contains("--force"),
        "{e}"
    );
    // reading hurts nothing: it runs, and says what the device holds
    let (v, report) =
        json_in_workdir(&["run", "--device", &l.dev, "--read-frac", "1", "--ops", "20"]);
    assert!(
        report.contains("holds an ext4 file system signature; the run only reads it"),
        "{report}"
    );
    crate::schema::assert_valid("run --device (notes)", &v);
    let notes = get(&v, "environment.block_device.notes");
    assert_eq!(notes[0], "holds an ext4 file system signature");
    let (v, report) = json_in_workdir(&[&args[..], &["--force"]].concat());
    assert!(report.contains("writing anyway (--force)"), "{report}");
    assert_eq!(op_count(&v, "read") + op_count(&v, "write"), 20);
    l.assert_intact();
}

#[test]
fn a_mounted_device_is_refused_for_writes_and_read_with_a_note() {
    let Some(mut l) = LoopDev::new(
        "mounted device",
        16 << 20,
        &["mkfs.ext4", "mount", "umount"],
    ) else {
        return;
    };
    l.mkfs();
    l.mount();
    let e = assert_usage_error(&["run", "--device", &l.dev, "--allow-destroy", "--ops", "5"]);
    assert!(e.contains("is mounted at") && e.contains("--force"), "{e}");
    let e = assert_usage_error(&[
        "scientific",
        "--device",
        &l.dev,
        "--allow-destroy",
        "--size",
        "1M",
    ]);
    assert!(e.contains("is mounted at"), "{e}");
    let (_, report) =
        json_in_workdir(&["run", "--device", &l.dev, "--read-frac", "1", "--ops", "20"]);
    assert!(
        report.contains("is mounted at") && report.contains("the run only reads it"),
        "{report}"
    );
    l.assert_intact();
}

#[test]
fn scientific_on_a_device_writes_then_reads_and_checks_it() {
    let Some(l) = LoopDev::new("scientific on a device", 8 << 20, &[]) else {
        return;
    };
    let e = assert_usage_error(&["scientific", "--device", &l.dev, "--size", "1M"]);
    assert!(
        e.contains("--allow-destroy") && e.contains("--phase read"),
        "{e}"
    );
    let e = assert_usage_error(&[
        "scientific",
        "--device",
        &l.dev,
        "--phase",
        "read",
        "--verify",
    ]);
    assert!(e.contains("--phase both"), "{e}");
    let (v, report) = json_in_workdir(&[
        "scientific",
        "--device",
        &l.dev,
        "--allow-destroy",
        "--size",
        "4M",
        "--request",
        "64k",
        "--direct",
        "--verify",
    ]);
    check_result(&v);
    crate::schema::assert_valid("scientific --device", &v);
    assert_device_record(&v, &l, 8 << 20, true);
    assert_eq!(op_count(&v, "write"), 64);
    assert_eq!(op_count(&v, "read"), 64);
    assert_eq!(u64_at(&v, "verify.mismatches"), 0);
    assert_eq!(u64_at(&v, "verify.units_checked"), 1024);
    assert!(report.contains("device /dev/loop"), "{report}");
    // a read phase alone reads the whole device by default
    let before = l.image_bytes();
    let (v, _) = json_in_workdir(&[
        "scientific",
        "--device",
        &l.dev,
        "--phase",
        "read",
        "--request",
        "1M",
    ]);
    assert_eq!(u64_at(&v, "metrics.size_bytes"), 8 << 20);
    assert_eq!(op_count(&v, "read"), 8);
    assert_eq!(l.image_bytes(), before);
    l.assert_intact();
}

#[test]
fn iozone_on_a_device_runs_its_tests_there() {
    let Some(l) = LoopDev::new("iozone on a device", 8 << 20, &[]) else {
        return;
    };
    let e = assert_usage_error(&["iozone", "-i", "0", "-s", "1m", "--device", &l.dev]);
    assert!(e.contains("--allow-destroy") && e.contains("-i 1"), "{e}");
    let e = assert_usage_error(&[
        "iozone", "-t", "2", "-i", "1", "-s", "1m", "--device", &l.dev,
    ]);
    assert!(e.contains("throughput mode"), "{e}");
    let e = assert_usage_error(&["iozone", "-i", "1", "-s", "16m", "--device", &l.dev]);
    assert!(e.contains("less than the largest file"), "{e}");
    let e = assert_usage_error(&[
        "iozone", "-i", "1", "-s", "1m", "-f", "x", "--device", &l.dev,
    ]);
    assert!(e.contains("drop -f"), "{e}");
    let (v, report) = json_in_workdir(&[
        "iozone",
        "-i",
        "0",
        "-i",
        "1",
        "-i",
        "2",
        "-s",
        "2m",
        "-r",
        "64k",
        "--device",
        &l.dev,
        "--allow-destroy",
    ]);
    check_result(&v);
    crate::schema::assert_valid("iozone --device", &v);
    assert_device_record(&v, &l, 8 << 20, true);
    assert!(op_count(&v, "write") >= 64, "{v}");
    assert!(report.contains("on block device /dev/loop"), "{report}");
    l.assert_intact();
    // the tests that read read what the device holds, and change nothing
    let before = l.image_bytes();
    let (v, _) = json_in_workdir(&[
        "iozone", "-i", "1", "-i", "3", "-s", "1m", "-r", "64k", "-I", "--device", &l.dev,
    ]);
    assert_device_record(&v, &l, 8 << 20, false);
    assert_eq!(op_count(&v, "write"), 0);
    assert!(op_count(&v, "read") >= 48, "{v}");
    assert_eq!(l.image_bytes(), before);
    l.assert_intact();
}

/// The mmap engine maps a device as a file of the device's size (its
/// metadata says 0 bytes): reads move their bytes and writes inside the
/// device go through, on run, scientific and iozone, where on files the
/// latter two refuse mmap (their files grow).
#[test]
fn mmap_maps_a_device_at_its_size() {
    let Some(l) = LoopDev::new("device mmap", 8 << 20, &[]) else {
        return;
    };
    let before = l.image_bytes();
    let (v, _) = json_in_workdir(&[
        "run",
        "--device",
        &l.dev,
        "--engine",
        "mmap",
        "--allow-destroy",
        "--read-frac",
        "0.5",
        "--size-mean",
        "4k",
        "--size-cv",
        "0",
        "--ops",
        "200",
    ]);
    let (reads, writes) = (op_count(&v, "read"), op_count(&v, "write"));
    assert_eq!(reads + writes, 200);
    assert_eq!(u64_at(&v, "summary.bytes_read"), reads * 4096);
    assert_eq!(u64_at(&v, "summary.bytes_written"), writes * 4096);
    assert_ne!(l.image_bytes(), before, "the writes reached the device");
    let (v, _) = json_in_workdir(&[
        "scientific",
        "--device",
        &l.dev,
        "--engine",
        "mmap",
        "--allow-destroy",
        "--size",
        "2M",
        "--request",
        "64K",
    ]);
    assert_eq!(u64_at(&v, "summary.bytes_written"), 2 << 20);
    assert_eq!(u64_at(&v, "summary.bytes_read"), 2 << 20);
    let (v, _) = json_in_workdir(&[
        "iozone",
        "--device",
        &l.dev,
        "--engine",
        "mmap",
        "--allow-destroy",
        "-s",
        "1m",
        "-r",
        "64k",
        "-i",
        "0",
        "-i",
        "1",
    ]);
    assert!(u64_at(&v, "summary.bytes_read") >= 1 << 20, "{v}");
    l.assert_intact();
}

/// fio jobs name a device with filename=/dev/…: read it whole without a
/// size, and write it only with --allow-destroy; nothing is made or removed.
#[test]
fn fio_jobs_read_a_device_and_write_it_only_when_allowed() {
    let Some(l) = LoopDev::new("fio on a device", 8 << 20, &[]) else {
        return;
    };
    let before = l.image_bytes();
    let dir = work_dir();
    let run = |args: &[&str]| {
        iogauge()
            .current_dir(dir.path())
            .arg("fio")
            .args(args)
            .output()
            .unwrap()
    };
    let name = format!("--filename={}", l.dev);
    let out = run(&[
        "--output-format=json",
        "--name=r",
        &name,
        "--rw=read",
        "--bs=64k",
        "--direct=1",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["jobs"][0]["read"]["total_ios"], 128,
        "8 MiB in 64 KiB reads"
    );
    assert_eq!(l.image_bytes(), before, "a read job wrote");
    let out = run(&["--name=w", &name, "--rw=randwrite", "--size=1m"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--allow-destroy") && err.lines().count() == 1,
        "{err}"
    );
    assert_eq!(l.image_bytes(), before, "a refused job wrote");
    let out = run(&[
        "--allow-destroy",
        "--name=w",
        &name,
        "--rw=randwrite",
        "--size=1m",
        "--direct=1",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(l.image_bytes(), before, "the writes reached the device");
    assert_untouched(dir.path());
    l.assert_intact();
}
