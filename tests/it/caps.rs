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
