//! `--rate-bytes`, `--trim-frac` and the `mmap` engine: the cap holds, a
//! trim is its own row, mmap moves the right bytes, and what cannot be
//! done is refused in one line.

use crate::common::*;

#[test]
fn a_bandwidth_cap_holds_on_the_null_engine() {
    let d = work_dir();
    // 64 KiB requests at 50 MiB/s: 800 a second, far below what the null
    // engine does, so the cap alone sets the pace
    let (v, _) = run_json(&[
        "run",
        "--dir",
        p(d.path()),
        "--engine",
        "null",
        "--unique-bytes",
        "64M",
        "--size-mean",
        "64K",
        "--size-cv",
        "0",
        "--duration",
        "1s",
        "--rate-bytes",
        "50M",
    ]);
    let s = &v["summary"];
    let bps = s["read_bytes_per_s"].as_f64().unwrap() + s["write_bytes_per_s"].as_f64().unwrap();
    let ratio = bps / f64::from(50u32 << 20);
    assert!((0.95..=1.02).contains(&ratio), "{ratio}: {v}");
    assert_untouched(d.path());
}

#[test]
fn trims_are_their_own_row_and_mmap_moves_the_right_bytes() {
    let d = work_dir();
    let (v, text) = run_json(&[
        "run",
        "--dir",
        p(d.path()),
        "--unique-bytes",
        "4M",
        "--read-frac",
        "0.3",
        "--trim-frac",
        "0.3",
        "--duration",
        "0.3s",
    ]);
    assert!(u64_at(&v, "ops.trim.count") > 0, "{v}");
    assert!(u64_at(&v, "ops.read.count") > 0 && u64_at(&v, "ops.write.count") > 0);
    assert!(text.contains("trim"), "{text}");
    let (v, _) = run_json(&[
        "run",
        "--dir",
        p(d.path()),
        "--engine",
        "mmap",
        "--unique-bytes",
        "4M",
        "--verify",
        "--duration",
        "0.3s",
    ]);
    assert!(u64_at(&v, "verify.units_checked") > 0, "{v}");
    assert!(u64_at(&v, "verify.units_written") > 0, "{v}");
    assert_eq!(u64_at(&v, "verify.mismatches"), 0);
    assert_untouched(d.path());
    for (args, says) in [
        (&["--engine", "mmap", "--direct"][..], "O_DIRECT"),
        (
            &["--read-frac", "0.5", "--trim-frac", "0.8"][..],
            "more than 1",
        ),
        (&["--trim-frac", "0.2", "--verify"][..], "trim"),
        (&["--rate", "100", "--rate-bytes", "1M"][..], "rate"),
    ] {
        let mut a = vec!["run", "--dir", p(d.path())];
        a.extend_from_slice(args);
        let line = assert_usage_error(&a);
        assert!(line.contains(says), "{args:?}: {line}");
    }
    let line = assert_usage_error(&["tpcb", "--dir", p(d.path()), "--rate-bytes", "1M"]);
    assert!(line.contains("--rate-bytes: tpcb"), "{line}");
    assert_untouched(d.path());
}

/// A cap far above what the storage does is not binding: the run
/// completes, records and prints the cap, and its throughput is that of the
/// same run uncapped (within a loose bound: the machine is shared).
#[test]
fn a_cap_far_above_the_storage_is_not_binding() {
    let d = work_dir();
    let args = [
        "run",
        "--dir",
        p(d.path()),
        "--engine",
        "psync",
        "--unique-bytes",
        "8M",
        "--size-mean",
        "4K",
        "--size-cv",
        "0",
        "--duration",
        "1s",
    ];
    let (free, free_text) = run_json(&args);
    let mut capped_args = args.to_vec();
    capped_args.extend_from_slice(&["--rate-bytes", "100G"]);
    let (capped, text) = run_json(&capped_args);
    assert_eq!(get(&capped, "complete"), &serde_json::json!(true));
    assert_eq!(
        f64_at(&capped, "config.pace.cap.total"),
        100.0 * f64::from(1u32 << 30)
    );
    assert_eq!(str_at(&capped, "config.pace.cap.process"), "linear");
    assert!(
        text.contains("bandwidth cap: 100.00 GiB/s of reads, writes and trims together (all workers together, linear)"),
        "{text}"
    );
    // the uncapped run records no cap and prints none
    assert!(free["config"]["pace"].get("cap").is_none(), "{free}");
    assert!(!free_text.contains("bandwidth cap"), "{free_text}");
    let bps = |v: &serde_json::Value| {
        f64_at(v, "summary.read_bytes_per_s") + f64_at(v, "summary.write_bytes_per_s")
    };
    let ratio = bps(&capped) / bps(&free);
    assert!(
        ratio >= 0.5,
        "capped at 100G/s: {:.0} B/s, uncapped {:.0} B/s",
        bps(&capped),
        bps(&free)
    );
    // far below 100 GiB/s: the cap cannot have set the figure
    assert!(bps(&capped) < 50.0 * f64::from(1u32 << 30));
    assert_untouched(d.path());
}

/// `--rate-bytes R,W` caps each direction on its own: on the null engine,
/// half reads and half writes of 4 KiB, the direction with the lower cap
/// runs at its cap, the other at most at its own, and together they move
/// about twice the lower cap (a total cap of the lower figure would hold
/// them to it). Linear and poisson, one worker and two.
#[test]
fn per_direction_caps_hold_each_direction() {
    let d = work_dir();
    let mib = f64::from(1u32 << 20);
    for (cap, extra) in [
        ("8M,2M", &[][..]),
        ("2M,8M", &[][..]),
        ("2M,8M", &["--rate-process", "poisson"][..]),
        ("8M,2M", &["-p", "2"][..]),
    ] {
        let mut args = vec![
            "run",
            "--dir",
            p(d.path()),
            "--engine",
            "null",
            "--unique-bytes",
            "64M",
            "--size-mean",
            "4K",
            "--size-cv",
            "0",
            "--read-frac",
            "0.5",
            "--duration",
            "1s",
            "--rate-bytes",
            cap,
        ];
        args.extend_from_slice(extra);
        let (v, _) = run_json(&args);
        let (r_cap, w_cap) = if cap == "8M,2M" {
            (8.0 * mib, 2.0 * mib)
        } else {
            (2.0 * mib, 8.0 * mib)
        };
        assert_eq!(f64_at(&v, "config.pace.cap.read"), r_cap);
        assert_eq!(f64_at(&v, "config.pace.cap.write"), w_cap);
        let r = f64_at(&v, "summary.read_bytes_per_s");
        let w = f64_at(&v, "summary.write_bytes_per_s");
        let (low, low_cap, high, high_cap) = if r_cap < w_cap {
            (r, r_cap, w, w_cap)
        } else {
            (w, w_cap, r, r_cap)
        };
        let why = format!("{cap} {extra:?}: read {r:.0} B/s, write {w:.0} B/s");
        assert!((0.85..=1.03).contains(&(low / low_cap)), "{why}");
        assert!(high <= high_cap * 1.03, "{why}");
        assert!((1.6..=2.4).contains(&((r + w) / low_cap)), "{why}");
    }
    assert_untouched(d.path());
}

/// Trims on a raw device (a loop device over a file of a known pattern):
/// `run --device --trim-frac 0.5 --read-frac 0.5` records its trims, and,
/// where the loop driver discards, the trimmed ranges read back as zeros
/// and nothing else changed (the run wrote nothing).
#[test]
fn trims_on_a_device_are_recorded_and_read_back_as_zeros() {
    use crate::device::LoopDev;
    let Some(l) = LoopDev::new("trims_on_a_device", 16 << 20, &[]) else {
        return;
    };
    const FILL: u8 = 0xA5;
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&l.dev)
            .unwrap();
        f.write_all(&vec![FILL; 16 << 20]).unwrap();
        f.sync_all().unwrap();
    }
    let (v, text) = run_json(&[
        "run",
        "--device",
        &l.dev,
        "--allow-destroy",
        "--unique-bytes",
        "8M",
        "--size-mean",
        "64K",
        "--size-cv",
        "0",
        "--align",
        "4K",
        "--trim-frac",
        "0.5",
        "--read-frac",
        "0.5",
        "--ops",
        "200",
    ]);
    let trims = u64_at(&v, "ops.trim.count");
    let trimmed = u64_at(&v, "ops.trim.bytes");
    assert!(trims > 50 && trims < 150, "{trims} of 200: {v}");
    assert_eq!(trimmed, trims * 65536);
    assert_eq!(op_count(&v, "write"), 0);
    assert_eq!(f64_at(&v, "config.workload.trim_frac"), 0.5);
    assert!(text.contains("trim"), "{text}");
    l.assert_intact();
    let image = l.image_bytes();
    // nothing but trims changed the device: every byte is the fill or 0
    assert!(image.iter().all(|&b| b == FILL || b == 0));
    let name = l.dev.trim_start_matches("/dev/");
    let max = std::fs::read_to_string(format!("/sys/block/{name}/queue/discard_max_bytes"))
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(0);
    if max == 0 {
        println!(
            "skipped the zeros check: {} does not discard (discard_max_bytes 0)",
            l.dev
        );
        return;
    }
    let zeros = image.iter().filter(|&&b| b == 0).count() as u64;
    assert!(zeros > 0, "{trims} trims of {trimmed} B left no zeros");
    assert!(zeros <= trimmed, "{zeros} zero bytes, {trimmed} trimmed");
    // trims are whole 4 KiB blocks: so are the zeros, and only in the
    // first 8 MiB (--unique-bytes)
    for (i, block) in image.chunks(4096).enumerate() {
        let z = block.iter().filter(|&&b| b == 0).count();
        assert!(z == 0 || z == 4096, "block {i}: {z} zero bytes");
        assert!(z == 0 || i < 2048, "block {i} is past --unique-bytes");
    }
}

/// Every command whose files grow refuses an engine that cannot grow them
/// (mmap), in one line naming what grows, before it makes anything.
#[test]
fn commands_whose_files_grow_refuse_mmap() {
    let d = work_dir();
    let dir = p(d.path());
    let cfg = tempfile::tempdir().unwrap();
    let pm = cfg.path().join("pm.cfg");
    std::fs::write(&pm, format!("set location {dir}\nrun\nquit\n")).unwrap();
    let ffsb =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ffsb/webserver.ffsb");
    let cases: [(Vec<&str>, &str); 9] = [
        (vec!["postmark", p(&pm)], "PostMark's creates and appends"),
        (vec!["iostone", "--dir", dir], "IOStone writes its files"),
        (vec!["bonnie", "-d", dir, "-s", "2", "-r", "0"], "(-s)"),
        (
            vec![
                "bonnie", "--flavor", "bonnie++", "-d", dir, "-s", "0", "-n", "1:100", "-r", "0",
            ],
            "small-file tests write up to 100 B",
        ),
        (
            vec!["iozone", "--dir", dir, "-s", "64k", "-r", "4k", "-i", "0"],
            "IOzone's write test",
        ),
        (
            vec!["iozone", "--dir", dir, "-s", "64k", "-r", "4k", "-t", "2"],
            "IOzone's write test",
        ),
        (
            vec![
                "scientific",
                "--dir",
                dir,
                "--size",
                "1M",
                "--request",
                "64K",
            ],
            "the write phase",
        ),
        (vec!["tpcb", "--dir", dir], "TPC-B's history file"),
        (
            vec!["ffsb", p(&ffsb), "--location", dir],
            "FFSB's creates and appends",
        ),
    ];
    for (mut args, says) in cases {
        args.extend_from_slice(&["--engine", "mmap"]);
        let line = assert_usage_error(&args);
        assert!(
            line.contains("engine 'mmap' cannot write past the end of a file")
                && line.contains(says),
            "{args:?}: {line}"
        );
        assert_untouched(d.path());
    }
}

/// Where nothing grows a file, mmap runs: bonnie++'s small-file tests of
/// empty files, scientific's read phase over a file laid out first.
#[test]
fn mmap_runs_where_no_file_grows() {
    let d = work_dir();
    let dir = p(d.path());
    let (v, _) = run_json(&[
        "bonnie", "--flavor", "bonnie++", "--engine", "mmap", "-d", dir, "-s", "0", "-n", "1:0",
        "-r", "0",
    ]);
    assert_eq!(get(&v, "complete"), &serde_json::json!(true));
    let (v, _) = run_json(&[
        "scientific",
        "--engine",
        "mmap",
        "--dir",
        dir,
        "--size",
        "4M",
        "--request",
        "64K",
        "--phase",
        "read",
    ]);
    assert_eq!(u64_at(&v, "summary.bytes_read"), 4 << 20);
    assert_untouched(d.path());
}
