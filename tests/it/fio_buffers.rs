//! `iogauge fio` and what a job writes: fio's buffer options
//! (`zero_buffers`, `buffer_pattern`, `buffer_compress_percentage`,
//! `dedupe_percentage`, `scramble_buffers`) and `verify=pattern` with
//! `verify_pattern`. Each test writes a small file and reads its bytes.

use crate::common::*;
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

/// Run `iogauge fio` on `args` in `dir`, the data file `d` kept; its bytes.
fn written(dir: &Path, args: &[&str]) -> Vec<u8> {
    let mut all = vec![
        "--name=w",
        "--rw=write",
        "--bs=4k",
        "--size=1m",
        "--filename=d",
        "--keep-files",
    ];
    all.extend_from_slice(args);
    let (code, out, err) = fio_in(dir, &all);
    assert_eq!(code, 0, "{args:?}: {err}\n{out}");
    let b = std::fs::read(dir.join("d")).unwrap();
    std::fs::remove_file(dir.join("d")).unwrap();
    assert_eq!(b.len(), 1 << 20);
    b
}

/// Distinct 4 KiB blocks of `b`.
fn distinct(b: &[u8]) -> usize {
    b.chunks(4096).collect::<HashSet<_>>().len()
}

/// What `gzip -6` makes of `b`, as a share of `b`.
fn deflate_ratio(b: &[u8]) -> f64 {
    let mut gz = std::process::Command::new("gzip")
        .arg("-6c")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("gzip runs");
    let mut stdin = gz.stdin.take().unwrap();
    let data = b.to_vec();
    let feed = std::thread::spawn(move || stdin.write_all(&data).unwrap());
    let out = gz.wait_with_output().unwrap();
    feed.join().unwrap();
    assert!(out.status.success());
    out.stdout.len() as f64 / b.len() as f64
}

/// fio's default scrambles each write: no two 4 KiB blocks of a job are
/// equal (each 512-byte sector carries its offset), where
/// `scramble_buffers=0` writes the same buffer again and again.
#[test]
fn by_default_no_two_blocks_are_equal() {
    let dir = work_dir();
    let b = written(dir.path(), &[]);
    assert_eq!(distinct(&b), 256);
    // each sector holds its own offset, little-endian, in one of its lines
    for (i, s) in b.chunks(512).enumerate().take(64) {
        let off = (i as u64 * 512).to_le_bytes();
        assert!(s.chunks(64).any(|l| l[..8] == off), "sector {i}");
    }
    // at depth 8 through io_uring as well
    let b = written(dir.path(), &["--ioengine=io_uring", "--iodepth=8"]);
    assert_eq!(distinct(&b), 256);
    let b = written(dir.path(), &["--scramble_buffers=0"]);
    assert_eq!(distinct(&b), 1);
    assert_untouched(dir.path());
}

#[test]
fn zero_buffers_writes_zeros() {
    let dir = work_dir();
    let b = written(dir.path(), &["--zero_buffers"]);
    assert!(b.iter().all(|&x| x == 0));
    // 100 % compressible is zero buffers, as in fio
    let b = written(dir.path(), &["--buffer_compress_percentage=100"]);
    assert!(b.iter().all(|&x| x == 0));
    // a job that reads too writes zeros (a read's bytes are not written back)
    let b = written(
        dir.path(),
        &["--rw=randrw", "--zero_buffers", "--overwrite=1"],
    );
    assert!(b.chunks(4096).filter(|c| c.iter().all(|&x| x == 0)).count() > 64);
    assert_untouched(dir.path());
}

/// fio's pattern forms concatenated, repeated from each write's start.
#[test]
fn buffer_pattern_is_written_from_each_block_start() {
    let dir = work_dir();
    let b = written(
        dir.path(),
        &["--bs=1000", "--buffer_pattern=0xdeadface\"abcd\"-12"],
    );
    let pat = [
        0xde, 0xad, 0xfa, 0xce, b'a', b'b', b'c', b'd', 0xf4, 0xff, 0xff, 0xff,
    ];
    // whole blocks: the 576 bytes past the last do not hold a write
    for (i, block) in b[..1_048_000].chunks(1000).enumerate() {
        for (k, &x) in block.iter().enumerate() {
            assert_eq!(x, pat[k % 12], "block {i} byte {k}");
        }
    }
    assert_untouched(dir.path());
}

/// The share asked for is left compressible (within loose bounds of what
/// fio 3.33 writes for the same job: 0.51 of the file after DEFLATE at
/// 50 %), and the pattern fills the compressible part.
#[test]
fn buffer_compress_percentage_is_roughly_the_share_deflate_removes() {
    let dir = work_dir();
    for pct in [25u32, 50, 75] {
        let b = written(
            dir.path(),
            &[&format!("--buffer_compress_percentage={pct}")],
        );
        let r = deflate_ratio(&b);
        let want = f64::from(100 - pct) / 100.0;
        assert!((r - want).abs() < 0.08, "{pct} %: ratio {r}");
        assert_eq!(distinct(&b), 256);
    }
    let b = written(
        dir.path(),
        &[
            "--buffer_compress_percentage=50",
            "--buffer_compress_chunk=4k",
            "--buffer_pattern=0x33",
        ],
    );
    for block in b.chunks(4096) {
        assert!(block[2048..].iter().all(|&x| x == 0x33));
        assert!(block[..2048].iter().filter(|&&x| x == 0x33).count() < 64);
    }
    assert_untouched(dir.path());
}

/// A share of writes repeat another's bytes whole: fio 3.33 writes 118 of
/// 256 distinct blocks for this job.
#[test]
fn dedupe_percentage_repeats_that_share_of_blocks() {
    let dir = work_dir();
    for mode in ["repeat", "working_set"] {
        let b = written(
            dir.path(),
            &["--dedupe_percentage=50", &format!("--dedupe_mode={mode}")],
        );
        let n = distinct(&b);
        assert!((90..=165).contains(&n), "{mode}: {n} distinct of 256");
    }
    let b = written(dir.path(), &["--dedupe_percentage=100"]);
    assert_eq!(distinct(&b), 1);
    assert_untouched(dir.path());
}

/// verify=pattern writes verify_pattern (`%o`: the write's offset) and
/// checks it back; a byte changed behind its back is found.
#[test]
fn verify_pattern_is_written_and_checked() {
    let dir = work_dir();
    let d = dir.path();
    let job = "[w]\nrw=randwrite\nbs=4k\nsize=64k\nfilename=d\nverify=pattern\nverify_pattern=0xaa%o\"ab\"\n";
    std::fs::write(d.join("a.fio"), job).unwrap();
    let (code, out, err) = fio_in(d, &["--keep-files", "a.fio"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("16 checked, 0 mismatched"), "{out}");
    let mut bytes = std::fs::read(d.join("d")).unwrap();
    for (i, block) in bytes.chunks(4096).enumerate() {
        let mut pat = vec![0xaa];
        pat.extend_from_slice(&(i as u64 * 4096).to_le_bytes());
        pat.extend_from_slice(b"ab");
        for (k, &x) in block.iter().enumerate() {
            assert_eq!(x, pat[k % 11], "block {i} byte {k}");
        }
    }
    bytes[8192 + 5] ^= 1;
    std::fs::write(d.join("d"), &bytes).unwrap();
    std::fs::write(d.join("b.fio"), format!("{job}verify_only=1\n")).unwrap();
    let (code, out, err) = fio_in(d, &["b.fio"]);
    assert_eq!(code, 3, "{err}\n{out}");
    assert!(out.contains("16 checked, 1 mismatched"), "{out}");
    assert!(
        err.contains("verify: bit_flip at file") && err.contains("offset 8192, length 4096"),
        "{err}"
    );
    std::fs::remove_file(d.join("d")).unwrap();
    std::fs::remove_file(d.join("a.fio")).unwrap();
    std::fs::remove_file(d.join("b.fio")).unwrap();
    assert_untouched(d);
}

/// What cannot be honoured is refused at its line, exit code 2.
#[test]
fn what_cannot_be_written_as_asked_is_refused_at_its_line() {
    let dir = work_dir();
    for (extra, says) in [
        ("verify=crc32c\nverify_pattern=0xff", "give verify=pattern"),
        ("verify_pattern=0xff", "pattern_hdr"),
        ("verify=pattern", "needs verify_pattern"),
        ("verify=pattern_hdr\nverify_pattern=1", "pattern_hdr"),
        ("buffer_pattern=%o", "verify_pattern only"),
        ("buffer_pattern=\"ab", "not closed"),
        ("buffer_pattern=zz", "not a number"),
        ("buffer_compress_percentage=101", "percentage"),
        ("dedupe_mode=random", "repeat or working_set"),
        (
            "dedupe_percentage=50\ndedupe_mode=working_set\nnrfiles=2",
            "one file per job",
        ),
    ] {
        std::fs::write(
            dir.path().join("t.fio"),
            format!("[j]\nrw=write\nsize=1m\n{extra}\n"),
        )
        .unwrap();
        let (code, out, err) = fio_in(dir.path(), &["t.fio"]);
        assert_eq!(code, 2, "{extra}: {err}{out}");
        assert!(
            err.starts_with("iogauge: t.fio:") && err.contains(says),
            "{extra}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    std::fs::remove_file(dir.path().join("t.fio")).unwrap();
    assert_untouched(dir.path());
}
