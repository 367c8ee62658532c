//! `iogauge fio` with `verify=`: a writing job reads back every block it
//! wrote after its writes (the reads counted as fio counts them), finds a
//! unit changed behind its back (exit code 3, with the file, offset and
//! kind), and refuses at its line what it cannot honour.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// Run job text `job` in `dir` with fio's JSON on stdout and iogauge's
/// result in `r.json`; (fio's JSON, iogauge's result).
fn run(dir: &Path, job: &str) -> (Value, Value) {
    std::fs::write(dir.join("t.fio"), job).unwrap();
    let (code, out, err) = fio_in(dir, &["--output-format=json", "--json=r.json", "t.fio"]);
    assert_eq!(code, 0, "{err}\n{out}");
    let fio: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let ours: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    std::fs::remove_file(dir.join("t.fio")).unwrap();
    std::fs::remove_file(dir.join("r.json")).unwrap();
    (fio, ours)
}

fn bytes(j: &Value, dir: &str) -> u64 {
    j[dir]["io_bytes"].as_u64().unwrap()
}

/// Every block written is read back once in the verify phase: the job's
/// read bytes are its written bytes, every unit is checked, none is
/// wrong, and nothing is left behind.
fn assert_verified(extra: &str) {
    let dir = work_dir();
    let (fio, ours) = run(
        dir.path(),
        &format!("[w]\nsize=1m\nverify=crc32c\n{extra}\n"),
    );
    let j = &fio["jobs"][0];
    assert_eq!(bytes(j, "write"), 1 << 20, "{extra}: {j}");
    assert_eq!(bytes(j, "read"), 1 << 20, "{extra}: {j}");
    assert!(j["read"]["runtime"].as_u64().unwrap() >= 1);
    let v = &ours["entries"][0]["result"]["verify"];
    let unit = v["unit_bytes"].as_u64().unwrap();
    assert_eq!(
        v["units_written"].as_u64().unwrap(),
        (1 << 20) / unit,
        "{v}"
    );
    assert_eq!(
        v["units_checked"].as_u64().unwrap(),
        (1 << 20) / unit,
        "{v}"
    );
    assert_eq!(v["mismatches"], 0, "{v}");
    assert_untouched(dir.path());
}

#[test]
fn a_buffered_random_write_is_read_back_whole() {
    assert_verified("rw=randwrite\nbs=4k");
}

#[test]
fn a_sequential_write_with_loops_verifies_each_pass() {
    let dir = work_dir();
    let (fio, ours) = run(
        dir.path(),
        "[w]\nrw=write\nbs=64k\nsize=512k\nloops=3\nverify=md5\n",
    );
    let j = &fio["jobs"][0];
    assert_eq!(bytes(j, "write"), 3 << 19);
    assert_eq!(bytes(j, "read"), 3 << 19);
    let v = &ours["entries"][0]["result"]["verify"];
    assert_eq!(v["unit_bytes"], 65536);
    assert_eq!(v["units_checked"], 24);
}

#[test]
fn io_uring_at_depth_8_direct_verifies() {
    assert_verified("rw=randwrite\nbs=4k\nioengine=io_uring\niodepth=8\ndirect=1");
}

#[test]
fn libaio_at_depth_4_direct_with_mixed_block_sizes_verifies() {
    assert_verified(
        "rw=randwrite\nbssplit=4k/50:16k/50\nioengine=libaio\niodepth=4\ndirect=1\nverify_interval=4k",
    );
}

/// A mixed job's own reads are not checked; its verify phase reads back
/// what it wrote, and fio counts both in `read`.
#[test]
fn a_mixed_job_reads_back_what_it_wrote() {
    let dir = work_dir();
    let (fio, ours) = run(
        dir.path(),
        "[m]\nrw=randrw\nrwmixread=50\nsize=1m\nverify=sha256\n",
    );
    let j = &fio["jobs"][0];
    let (r, w) = (bytes(j, "read"), bytes(j, "write"));
    assert!(w > 0 && w < 1 << 20, "{j}");
    // the job moved 1 MiB in all (1 MiB - w read), then read its w back
    assert_eq!(r, 1 << 20, "{j}");
    let v = &ours["entries"][0]["result"]["verify"];
    assert_eq!(v["units_checked"].as_u64().unwrap() * 4096, w, "{v}");
}

/// Without the random map writes land on earlier ones: each block is read
/// back once, from the newest write (fio's sorted io_hist).
#[test]
fn norandommap_reads_each_block_back_once() {
    let dir = work_dir();
    let (fio, ours) = run(
        dir.path(),
        "[w]\nrw=randwrite\nnorandommap\nsize=1m\nverify=crc32c\n",
    );
    let j = &fio["jobs"][0];
    assert_eq!(bytes(j, "write"), 1 << 20);
    let read = bytes(j, "read");
    assert!(read < 1 << 20 && read > 0, "{j}");
    let v = &ours["entries"][0]["result"]["verify"];
    assert_eq!(v["units_checked"].as_u64().unwrap() * 4096, read);
    assert_eq!(v["mismatches"], 0);
}

/// A unit changed between the run that wrote it (do_verify=0, files kept)
/// and verify_only: exit code 3, the file, offset and kind on stderr, the
/// verify block in the text and the JSON result.
#[test]
fn verify_only_finds_units_changed_behind_its_back() {
    let dir = work_dir();
    let d = dir.path();
    let job = "[w]\nrw=randwrite\nsize=256k\nverify=crc32c\n";
    std::fs::write(d.join("a.fio"), format!("{job}do_verify=0\n")).unwrap();
    let (code, _, err) = fio_in(d, &["--keep-files", "a.fio"]);
    assert_eq!(code, 0, "{err}");
    let data = d.join("w.0.0");
    // the same job, checking what it wrote: all good
    std::fs::write(d.join("b.fio"), format!("{job}verify_only=1\n")).unwrap();
    let (code, out, err) = fio_in(d, &["b.fio"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("64 checked, 0 mismatched"), "{out}");
    // a bit flipped at 8 KiB + 100, zeros at 40 KiB
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[8192 + 100] ^= 4;
    bytes[40960..45056].fill(0);
    std::fs::write(&data, &bytes).unwrap();
    let (code, out, err) = fio_in(d, &["--json=r.json", "b.fio"]);
    assert_eq!(code, 3, "{err}\n{out}");
    let path = std::fs::canonicalize(&data).unwrap();
    let shown = path.display().to_string();
    assert!(
        err.contains(&format!(
            "verify: bit_flip at file {shown} offset 8192, length 4096"
        )) || err.contains("verify: bit_flip at file w.0.0 offset 8192, length 4096"),
        "{err}"
    );
    assert!(err.contains("verify: lost at file"), "{err}");
    assert!(err.contains("offset 40960, length 4096"), "{err}");
    assert!(err.contains("found 2 unit(s)"), "{err}");
    assert!(out.contains("Verify (w)"), "{out}");
    assert!(out.contains("by kind: bit_flip 1, lost 1"), "{out}");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    let v = &r["entries"][0]["result"]["verify"];
    assert_eq!(v["mismatches"], 2, "{v}");
    assert_eq!(v["by_kind"]["lost"], 1);
    // verify_fatal stops at the first
    std::fs::write(
        d.join("b.fio"),
        format!("{job}verify_only=1\nverify_fatal=1\n"),
    )
    .unwrap();
    let (code, out, err) = fio_in(d, &["b.fio"]);
    assert_eq!(code, 3, "{err}");
    assert!(out.contains("1 mismatched"), "{out}");
    assert!(err.contains("stopped at the first, verify_fatal"), "{err}");
    // the user's file is left as it is
    assert_eq!(std::fs::read(&data).unwrap(), bytes);
}

/// What cannot be honoured is refused at its line, exit code 2.
#[test]
fn what_verify_cannot_honour_is_refused_at_its_line() {
    let dir = work_dir();
    for (extra, line, says) in [
        ("rw=read", 3, "does not write"),
        ("rw=randwrite\nverify_offset=512", 5, "verify_offset"),
        ("rw=randwrite\nverify_backlog=16", 5, "verify_backlog"),
        ("rw=randwrite\nverify_pattern=0xff", 5, "verify_pattern"),
        ("rw=write\nioengine=null", 5, "keeps no data"),
        ("rw=write\nbs=2m\nsize=4m", 5, "verify interval"),
        ("rw=write\nnumjobs=2\nfilename=x", 5, "multiple writers"),
    ] {
        std::fs::write(
            dir.path().join("t.fio"),
            format!("[j]\nsize=1m\nverify=crc32c\n{extra}\n"),
        )
        .unwrap();
        let (code, out, err) = fio_in(dir.path(), &["t.fio"]);
        assert_eq!(code, 2, "{extra}: {err}{out}");
        assert!(
            err.starts_with(&format!("iogauge: t.fio:{line}: ")) && err.contains(says),
            "{extra}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    std::fs::remove_file(dir.path().join("t.fio")).unwrap();
    assert_untouched(dir.path());
}
