//! How much an `iogauge fio` job moves: `size`, `loops` and `io_size`,
//! regions that are not a whole number of blocks, skips, several files.
//! Every figure expected is what fio 3.33 moved for the same job
//! (`io_bytes` and `total_ios` of its JSON).

use crate::common::*;
use serde_json::Value;

/// `iogauge fio --name=x ARGS --output-format=json` in a fresh
/// directory: bytes and requests of all directions.
fn moved(args: &str) -> (u64, u64) {
    let dir = work_dir();
    let mut a = vec!["--name=x", "--output-format=json"];
    a.extend(args.split_whitespace());
    let (code, out, err) = fio_in(dir.path(), &a);
    assert_eq!(code, 0, "{args}: {err}");
    assert_eq!(tree(dir.path()), tree(work_dir().path()), "{args}");
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let j = &v["jobs"][0];
    let sum = |k: &str| -> u64 {
        ["read", "write", "trim"]
            .iter()
            .map(|d| j[d][k].as_u64().unwrap())
            .sum()
    };
    (sum("io_bytes"), sum("total_ios"))
}

#[test]
fn jobs_move_what_fio_moves() {
    for (args, want) in [
        // io_size past size: passes repeat until it is moved (loops
        // count only while under it); below size, loops times it
        (
            "--ioengine=null --size=64k --rw=randread --io_size=256k",
            (262144, 64),
        ),
        (
            "--ioengine=null --size=64k --rw=randread --io_size=256k --loops=3",
            (262144, 64),
        ),
        (
            "--ioengine=null --size=64k --rw=randread --io_size=32k --loops=3",
            (98304, 24),
        ),
        (
            "--ioengine=null --size=64k --rw=randread --io_size=50%",
            (32768, 8),
        ),
        // the last request is whole, past the bytes asked for
        (
            "--ioengine=null --size=64k --rw=randread --io_size=20k --bs=8k",
            (24576, 3),
        ),
        (
            "--ioengine=null --size=64k --rw=read --io_size=100k --bs=8k",
            (106496, 13),
        ),
        // a region's tail shorter than a block is left alone
        ("--ioengine=psync --size=20k --rw=read --bs=8k", (16384, 2)),
        (
            "--ioengine=psync --size=20k --rw=randread --bs=8k",
            (16384, 2),
        ),
        // an alignment below the block does not make a tail fit
        (
            "--ioengine=null --size=20k --rw=read --bs=8k --ba=512",
            (16384, 2),
        ),
        (
            "--ioengine=psync --size=20k --rw=write --bs=8k --loops=3",
            (49152, 6),
        ),
        (
            "--ioengine=psync --size=64k --rw=read --nrfiles=3 --bs=8k",
            (49152, 6),
        ),
        (
            "--ioengine=psync --size=64k --rw=randread --nrfiles=3 --bs=8k",
            (49152, 6),
        ),
        (
            "--ioengine=psync --size=64k --rw=read --nrfiles=3 --bs=8k --io_size=64k",
            (65536, 8),
        ),
        // a skipping stream wraps at the file's end within the pass
        (
            "--ioengine=psync --size=64k --rw=read:4k --loops=2",
            (131072, 32),
        ),
        (
            "--ioengine=psync --size=64k --rw=read:12k --bs=8k",
            (24576, 3),
        ),
    ] {
        assert_eq!(moved(args), want, "{args}");
    }
}

/// io_size with a verify phase is refused (the phase checks one pass);
/// gtod_reduce and a profile's option are taken with a note each.
#[test]
fn io_size_with_verify_is_refused_and_notes_are_given() {
    let dir = work_dir();
    let job = "[j]\nrw=write\nsize=64k\nverify=crc32c\nio_size=128k\n";
    std::fs::write(dir.path().join("t.fio"), job).unwrap();
    let (code, _, err) = fio_in(dir.path(), &["t.fio"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("iogauge: t.fio:5: io_size=131072 with verify"),
        "{err}"
    );
    let job = "[global]\nthreads=1\n[j]\nioengine=null\nsize=64k\ngtod_reduce=1\n";
    std::fs::write(dir.path().join("t.fio"), job).unwrap();
    let (code, out, err) = fio_in(dir.path(), &["t.fio"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("read: IOPS="), "{out}");
    assert!(
        err.contains("t.fio:6: gtod_reduce: iogauge measures every latency"),
        "{err}"
    );
    assert!(
        err.contains("t.fio:2: threads is an option of fio's built-in profiles"),
        "{err}"
    );
    std::fs::remove_file(dir.path().join("t.fio")).unwrap();
    assert_eq!(tree(dir.path()), tree(work_dir().path()));
}

/// `ba` aligns random offsets (here to 4 KiB under 512-byte requests,
/// without the random map: with it, refused), and
/// `random_generator=lfsr` visits each block once per pass, also with
/// `norandommap` (with a note).
#[test]
fn blockalign_aligns_random_offsets_and_lfsr_keeps_the_map() {
    let dir = work_dir();
    let offsets = |extra: &str| -> Vec<u64> {
        let job = format!(
            "[j]\nioengine=null\nrw=randread\nsize=256k\nwrite_lat_log=x\nlog_offset=1\n{extra}"
        );
        std::fs::write(dir.path().join("t.fio"), job).unwrap();
        let (code, _, err) = fio_in(dir.path(), &["t.fio"]);
        assert_eq!(code, 0, "{extra}: {err}");
        let text = std::fs::read_to_string(dir.path().join("x_lat.1.log")).unwrap();
        for f in ["t.fio", "x_lat.1.log", "x_clat.1.log", "x_slat.1.log"] {
            std::fs::remove_file(dir.path().join(f)).unwrap();
        }
        text.lines()
            .map(|l| l.split(", ").nth(4).unwrap().parse().unwrap())
            .collect()
    };
    let plain = offsets("bs=512\n");
    assert!(
        plain.iter().any(|o| o % 4096 != 0),
        "512-byte blocks: {plain:?}"
    );
    let aligned = offsets("bs=512\nba=4k\nnorandommap\n");
    assert!(!aligned.is_empty());
    assert!(aligned.iter().all(|o| o % 4096 == 0), "{aligned:?}");
    std::fs::write(
        dir.path().join("t.fio"),
        "[j]\nioengine=null\nrw=randread\nsize=256k\nbs=512\nba=4k\n",
    )
    .unwrap();
    let (code, _, err) = fio_in(dir.path(), &["t.fio"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("iogauge: t.fio:6: ba other than the smallest block"),
        "{err}"
    );
    std::fs::remove_file(dir.path().join("t.fio")).unwrap();
    let mut lfsr = offsets("bs=4k\nnorandommap\nrandom_generator=lfsr\n");
    lfsr.sort_unstable();
    assert_eq!(lfsr, (0..64).map(|b| b * 4096).collect::<Vec<u64>>());
    assert_eq!(tree(dir.path()), tree(work_dir().path()));
}
