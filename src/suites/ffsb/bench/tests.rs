use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::files::{FileList, Pick, SizeRule, Want};
use super::rand::{self, RandBytes};
use super::setup::{Usage, bytes_to_reach};
use super::thread::{Chooser, range_ns};
use super::*;
use crate::measure::OpKind;
use crate::runner::{NoProgress, Progress};
use crate::suites::ffsb::profile::{FileSystem, Op, Stats, Syscall, ThreadGroup};
use crate::suites::ffsb::results::CallStats;
use crate::workload::worker_rng;

fn filesystem(loc: &Path) -> FileSystem {
    FileSystem {
        line: 3,
        location: loc.to_path_buf(),
        num_files: 12,
        num_dirs: 3,
        min_filesize: 8 << 10,
        max_filesize: 32 << 10,
        ..FileSystem::default()
    }
}

fn group(weights: &[(Op, u32)]) -> ThreadGroup {
    let mut w = [0u32; 15];
    for &(op, n) in weights {
        w[op.index()] = n;
    }
    ThreadGroup {
        line: 20,
        num_threads: 1,
        weights: w,
        read_size: 8 << 10,
        read_blocksize: 4096,
        write_size: 8 << 10,
        write_blocksize: 4096,
        ..ThreadGroup::default()
    }
}

/// Two new directories `a` and `b` in `dir`.
fn two_dirs(dir: &Path) -> (PathBuf, PathBuf) {
    let (a, b) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir(&a).unwrap();
    std::fs::create_dir(&b).unwrap();
    (a, b)
}

fn profile(fss: Vec<FileSystem>, tgs: Vec<ThreadGroup>, time: u32) -> Profile {
    Profile {
        source: PathBuf::new(),
        time,
        directio: false,
        alignio: false,
        bufferio: false,
        verbose: false,
        callout: None,
        filesystems: fss,
        threadgroups: tgs,
        warnings: Vec::new(),
    }
}

/// Keeps what it is told; on "Setup complete" it also lists the files
/// of `watch` (the set is removed right after).
#[derive(Default)]
struct Log {
    lines: Mutex<Vec<String>>,
    watch: Option<PathBuf>,
    seen: Mutex<Option<Tree>>,
}

impl Progress for Log {
    fn say(&self, line: &str) {
        self.lines.lock().unwrap().push(line.to_string());
        if line == "Setup complete, exiting"
            && let Some(w) = &self.watch
        {
            *self.seen.lock().unwrap() = Some(tree(w));
        }
    }
}

impl Log {
    fn watching(loc: &Path) -> Log {
        Log {
            watch: Some(loc.to_path_buf()),
            ..Default::default()
        }
    }

    fn said(&self, what: &str) -> bool {
        self.lines.lock().unwrap().iter().any(|l| l.contains(what))
    }
}

/// A file set on disk: files (path under data/ → size) and directories.
#[derive(Debug, Default, PartialEq)]
struct Tree {
    files: BTreeMap<String, u64>,
    dirs: Vec<String>,
    meta: usize,
}

fn tree(loc: &Path) -> Tree {
    let mut t = Tree::default();
    let data = loc.join("data");
    for e in std::fs::read_dir(&data).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let m = e.metadata().unwrap();
        if m.is_dir() {
            t.dirs.push(name.clone());
            for f in std::fs::read_dir(e.path()).unwrap().flatten() {
                let fname = f.file_name().to_string_lossy().into_owned();
                t.files
                    .insert(format!("{name}/{fname}"), f.metadata().unwrap().len());
            }
        } else {
            t.files.insert(name, m.len());
        }
    }
    t.dirs.sort();
    t.meta = std::fs::read_dir(loc.join("meta")).unwrap().count();
    t
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Random bytes from a seed, as a thread has them.
fn bytes(seed: u64, len: usize) -> RandBytes {
    RandBytes::new(&mut worker_rng(seed, 0), len)
}

/// FFSB's getrandom on known bytes: as many bytes as the modulus needs,
/// little-endian, modulo; none for 0 and 1; the bytes used again from the
/// first when the last is gone; getllrandom above 32 bits takes two words.
#[test]
fn ffsbs_draw_on_known_bytes() {
    let mut r = RandBytes::from_bytes(&[200, 0x34, 0x12, 0x56, 0x34, 0x12, 9]);
    assert_eq!(r.below(1), 0, "no byte for m = 1");
    assert_eq!(r.below(0), 0);
    assert_eq!(r.below(30), 200 % 30); // one byte: 20
    assert_eq!(r.below(1000), 0x1234 % 1000); // two bytes: 660
    assert_eq!(r.below(0x10_0000), 0x2_3456); // three bytes, 0x12_3456 % 2^20
    assert_eq!(r.below(7), 9 % 7);
    // the bytes again, from the first (255 is the largest one-byte m)
    assert_eq!(r.below(255), 200);
    assert_eq!(r.below64(0), 0);
    assert_eq!(r.below64(3000), 0x1234 - 3000);
    let mut r = RandBytes::from_bytes(&[1, 0, 0, 0, 2, 0, 0, 0]);
    let m = 3 << 32;
    assert_eq!(r.below64(m), ((1u64 << 32) | 2) % m);
    // four bytes for a modulus of 2^24 and more
    let mut r = RandBytes::from_bytes(&[0xFF, 0xFF, 0xFF, 0x7F]);
    assert_eq!(r.below(0x1000_0000), 0x7FFF_FFFF % 0x1000_0000);
}

/// The operation's share is FFSB's, not the weight's: every one of the
/// 256 byte values chooses once, and the low ones (below 256 mod Σ) are
/// one more of each value. Weights read 14, write 6, create 5, stat 5
/// (Σ 30): 256 = 8·30 + 16, so 0–15 take 9 bytes each, 16–29 eight;
/// read (n 1–14) 126/256, write (15–20) 50, create 40, stat 40. FFSB
/// 6.0-rc2 ran read 48.7–49.6 %, write 19.2–19.8 %, create 15.6–15.9 %,
/// stat 15.3–15.7 % of its operations on this mix (three runs).
#[test]
fn operations_come_in_ffsbs_shares() {
    let tg = group(&[
        (Op::Read, 14),
        (Op::Write, 6),
        (Op::Create, 5),
        (Op::Stat, 5),
    ]);
    let chooser = Chooser::new(&tg);
    let all: Vec<u8> = (0..=255).collect();
    let mut r = RandBytes::from_bytes(&all);
    let mut counts = [0u32; 15];
    for _ in 0..256 {
        counts[chooser.pick(&mut r).index()] += 1;
    }
    let got = |op: Op| counts[op.index()];
    assert_eq!(
        [
            got(Op::Read),
            got(Op::Write),
            got(Op::Create),
            got(Op::Stat)
        ],
        [126, 50, 40, 40]
    );
    assert_eq!(counts.iter().sum::<u32>(), 256);
    // the same from frequencies(), by the walk over the weights
    let f = rand::frequencies(30);
    assert_eq!(f[..14].iter().sum::<u64>(), 126);
    assert_eq!(f[14..20].iter().sum::<u64>(), 50);
    // from a seeded buffer, used over and over as FFSB uses it: the same
    // shares, within the sampling of one buffer
    let mut r = bytes(42, rand::THREAD_BYTES);
    let n = 200_000;
    let mut counts = [0u32; 15];
    for _ in 0..n {
        counts[chooser.pick(&mut r).index()] += 1;
    }
    let share = |op: Op| f64::from(counts[op.index()]) / f64::from(n);
    assert!(
        (share(Op::Read) - 126.0 / 256.0).abs() < 0.015,
        "{counts:?}"
    );
    assert!(
        (share(Op::Create) - 40.0 / 256.0).abs() < 0.015,
        "{counts:?}"
    );
    // one weight: always that op, and no byte used (Σ = 1)
    let only = Chooser::new(&group(&[(Op::Stat, 1)]));
    let mut r = RandBytes::from_bytes(&[7, 8]);
    assert!((0..100).all(|_| only.pick(&mut r) == Op::Stat));
    assert_eq!(r.below(255), 7);
    // weights of 0 never run
    let tg = group(&[(Op::Read, 0), (Op::ReadAll, 3), (Op::Delete, 2)]);
    let c = Chooser::new(&tg);
    let mut r = bytes(3, 4096);
    assert!((0..5000).all(|_| matches!(c.pick(&mut r), Op::ReadAll | Op::Delete)));
}

#[test]
fn sizes_follow_the_rule() {
    let dir = tempfile::tempdir().unwrap();
    let mut fs = filesystem(dir.path());
    let mut rng = bytes(1, rand::BUILD_BYTES);
    let rule = SizeRule::of(&fs, false);
    for _ in 0..1000 {
        let s = rule.draw(&mut rng);
        assert!((8 << 10..32 << 10).contains(&s), "{s}");
    }
    // with directio, sizes stay on 4 KiB
    let rule = SizeRule::of(&fs, true);
    assert!((0..1000).all(|_| rule.draw(&mut rng).is_multiple_of(4096)));
    fs.max_filesize = fs.min_filesize;
    let rule = SizeRule::of(&fs, false);
    assert!((0..100).all(|_| rule.draw(&mut rng) == 8 << 10));
    // weighted sizes are walked from the last given (FFSB keeps them
    // reversed): Σ 4 is one byte, n = 1 + byte % 4; n 1–3 is 64 KiB
    fs.size_weights = vec![(4096, 1), (65536, 3), (1 << 20, 0)];
    let rule = SizeRule::of(&fs, false);
    let mut r = RandBytes::from_bytes(&[0, 1, 2, 3, 4, 7]);
    let got: Vec<u64> = (0..6).map(|_| rule.draw(&mut r)).collect();
    assert_eq!(got, [65536, 65536, 65536, 4096, 65536, 4096]);
    let mut big = 0;
    for _ in 0..4000 {
        match rule.draw(&mut rng) {
            4096 => {}
            65536 => big += 1,
            s => panic!("size {s} is not a weighted size"),
        }
    }
    assert!((2800..3200).contains(&big), "{big}");
    assert_eq!((rule.smallest(), rule.largest()), (4096, 65536));
}

#[test]
fn desired_util_is_a_fraction() {
    // 1000 blocks of 4 KiB, all free: 2 % is 20 blocks
    let empty = Usage {
        blocks: 1000,
        bfree: 1000,
        bavail: 1000,
        frsize: 4096,
    };
    assert_eq!(bytes_to_reach(0.02, &empty), 20 * 4096);
    let used = Usage {
        bfree: 990,
        bavail: 990,
        ..empty
    };
    assert_eq!(bytes_to_reach(0.02, &used), 10 * 4096);
    assert_eq!(bytes_to_reach(0.005, &used), 0, "already above");
    assert!((used.util() - 0.01).abs() < 1e-12);
}

#[test]
fn msec_ranges_count_the_first_match_in_ns() {
    assert_eq!(range_ns((0.01, 0.5)), (10_000, 500_000));
    let ranges = [
        range_ns((0.0, 0.01)),
        range_ns((0.01, 1.0)),
        range_ns((0.0, 10.0)),
    ];
    let mut c = CallStats::new(ranges.len());
    for ns in [0, 10_000, 10_001, 1_000_000, 1_000_001, 20_000_000] {
        c.record(ns, &ranges);
    }
    // both ends inclusive, the first range that holds it wins
    assert_eq!(c.buckets, [2, 2, 1]);
    assert_eq!((c.calls, c.min_ns, c.max_ns), (6, 0, 20_000_000));
    assert_eq!(
        c.total_ns,
        10_000 + 10_001 + 1_000_000 + 1_000_001 + 20_000_000
    );
}

#[test]
fn file_lists_reuse_holes_and_keep_the_last_file() {
    let dir = tempfile::tempdir().unwrap();
    let l = FileList::new(&dir.path().join("data"), "datafile", true);
    l.set_dirs(2);
    let mut rng = bytes(5, 64);
    let never = || false;
    let a = l.add(&mut rng, 10);
    // a file being created is nobody's to pick
    assert_eq!(l.pick(&mut rng, Want::Read, &|| true), Pick::Skip);
    l.created(a.idx, 10);
    let b = l.add(&mut rng, 20);
    l.created(b.idx, 20);
    assert_eq!(l.live(), 2);
    let Pick::Got(d) = l.pick(&mut rng, Want::Delete, &never) else {
        panic!("a delete with two files")
    };
    assert_eq!(
        l.pick(&mut rng, Want::Delete, &never),
        Pick::Skip,
        "never the last"
    );
    l.removed(d.idx);
    // the hole is taken first, with its name
    let c = l.add(&mut rng, 30);
    assert_eq!((c.idx, c.dir), (d.idx, d.dir));
    let (mut p1, mut p2) = (Vec::new(), Vec::new());
    l.path(&mut p1, &c, 0);
    l.path(&mut p2, &d, 0);
    assert_eq!(p1, p2);
    let s = String::from_utf8(p1).unwrap();
    assert!(s.contains("/data/") && s.contains("datafile"), "{s}");
    // a reader keeps a delete away
    l.created(c.idx, 30);
    let Pick::Got(r) = l.pick(&mut rng, Want::Read, &never) else {
        panic!()
    };
    let other = l.sizes().iter().flatten().count();
    assert_eq!(other, 2);
    let busy = || true;
    for _ in 0..50 {
        if let Pick::Got(x) = l.pick(&mut rng, Want::Delete, &busy) {
            assert_ne!(x.idx, r.idx, "a file being read is not deleted");
            l.removed(x.idx);
            break;
        }
    }
    l.release_read(r.idx);
    assert_eq!(l.dirs(), 2);
    let empty = FileList::new(dir.path(), "metafile", false);
    assert_eq!(empty.pick(&mut rng, Want::Read, &never), Pick::Empty);
}

#[test]
fn the_file_set_is_what_the_profile_asks_and_goes_at_the_end() {
    let parent = tempfile::tempdir().unwrap();
    // a location that does not exist: refused, as every missing directory
    let loc = parent.path().join("fs0");
    let p = profile(vec![filesystem(&loc)], vec![], 0);
    let e = check(&Options::new(p.clone())).unwrap_err();
    assert!(
        e.ends_with(&format!(
            "location {} does not exist; make the directory first, or give --location DIR",
            loc.display()
        )),
        "{e}"
    );
    assert!(entries(parent.path()).is_empty());
    // one the run makes (--location DIR with several file systems): made,
    // and removed at the end
    let mut made = p.clone();
    made.filesystems[0].run_makes_location = true;
    let log = Log::watching(&loc);
    let out = run(&Options::new(made), &log).unwrap();
    assert!(out.complete && out.error.is_none(), "{:?}", out.error);
    let t = log.seen.lock().unwrap().take().expect("the set was seen");
    assert_eq!(t.files.len(), 12);
    assert_eq!(t.dirs, ["datadir0", "datadir1", "datadir2"]);
    assert_eq!(t.meta, 0);
    for (name, size) in &t.files {
        let base = name.rsplit('/').next().unwrap();
        assert!(base.starts_with("datafile"), "{name}");
        assert!((8 << 10..32 << 10).contains(size), "{name}: {size}");
    }
    let s = &out.setup[0];
    assert_eq!(s.files, 12);
    assert_eq!(s.bytes, t.files.values().sum::<u64>());
    assert!(!s.reused);
    assert!(log.said(&format!("creating new fileset {}", loc.display())));
    assert!(log.said("fs setup took 0 secs"));
    assert!(!loc.exists(), "the location iogauge made is gone");
    assert!(entries(parent.path()).is_empty());

    // weighted sizes, in a location that exists and keeps what else it holds
    std::fs::create_dir(&loc).unwrap();
    std::fs::write(loc.join("theirs"), b"x").unwrap();
    let mut fs = filesystem(&loc);
    fs.size_weights = vec![(4096, 1), (12288, 1)];
    let log = Log::watching(&loc);
    run(&Options::new(profile(vec![fs], vec![], 0)), &log).unwrap();
    let t = log.seen.lock().unwrap().take().unwrap();
    assert!(t.files.values().all(|&s| s == 4096 || s == 12288), "{t:?}");
    assert_eq!(entries(&loc), ["theirs"]);
}

#[test]
fn reuse_takes_a_matching_set_and_rebuilds_another() {
    let dir = tempfile::tempdir().unwrap();
    let loc = dir.path().to_path_buf();
    let mut fs = filesystem(&loc);
    fs.reuse = true;
    let o = Options::new(profile(vec![fs.clone()], vec![], 0));
    let first = run(&o, &NoProgress).unwrap();
    assert!(first.complete && !first.setup[0].reused);
    // reuse=1 keeps it
    let before = tree(&loc);
    assert_eq!(before.files.len(), 12);
    assert!(loc.join(MARKER).is_file());
    let log = Log::default();
    let again = run(&o, &log).unwrap();
    assert!(again.setup[0].reused, "{:?}", log.lines.lock().unwrap());
    assert_eq!(again.setup[0].files, 12);
    assert!(log.said("checking existing fs"));
    assert_eq!(tree(&loc), before, "taken as it was");
    // another number of files: rebuilt
    let mut other = fs.clone();
    other.num_files = 5;
    let log = Log::default();
    let rebuilt = run(&Options::new(profile(vec![other], vec![], 0)), &log).unwrap();
    assert!(!rebuilt.setup[0].reused);
    assert!(
        log.said("recreating new fileset"),
        "{:?}",
        log.lines.lock().unwrap()
    );
    assert_eq!(tree(&loc).files.len(), 5);
    // a file of a foreign name beside the marker (issue 33: a stale marker
    // let the next run delete every file in data/): refused, and kept
    std::fs::write(loc.join("data/stray"), b"x").unwrap();
    std::fs::write(loc.join("data/datadir0/notes"), b"y").unwrap();
    let mut five = fs.clone();
    five.num_files = 5;
    for reuse in [true, false] {
        five.reuse = reuse;
        let o = Options::new(profile(vec![five.clone()], vec![], 0));
        let e = check(&o).unwrap_err();
        assert!(e.contains("was not made by iogauge ffsb"), "{e}");
        assert!(crate::error::is_usage(&run(&o, &NoProgress).unwrap_err()));
        assert_eq!(std::fs::read(loc.join("data/stray")).unwrap(), b"x");
        std::fs::remove_file(loc.join("data/stray")).unwrap();
        let e = check(&o).unwrap_err();
        assert!(e.contains("datadir0/notes was not made"), "{e}");
        std::fs::write(loc.join("data/stray"), b"x").unwrap();
    }
    std::fs::remove_file(loc.join("data/stray")).unwrap();
    std::fs::remove_file(loc.join("data/datadir0/notes")).unwrap();
    five.reuse = true;
    // meta not empty: rebuilt
    std::fs::create_dir(loc.join("meta/metafile0")).unwrap();
    let r = run(
        &Options::new(profile(vec![five.clone()], vec![], 0)),
        &NoProgress,
    )
    .unwrap();
    assert!(!r.setup[0].reused);
    // reuse=0: everything goes
    five.reuse = false;
    run(&Options::new(profile(vec![five], vec![], 0)), &NoProgress).unwrap();
    assert!(entries(&loc).is_empty(), "{:?}", entries(&loc));
}

/// Puts a file of the user's into `data/` while the set is there.
struct Intruder(PathBuf);
impl Progress for Intruder {
    fn say(&self, line: &str) {
        if line == "Setup complete, exiting" {
            std::fs::write(self.0.join("data/theirs"), b"mine").unwrap();
            std::fs::write(self.0.join("data/datadir1/theirs"), b"mine").unwrap();
        }
    }
}

#[test]
fn what_appears_in_data_during_a_run_is_left_with_the_marker() {
    let dir = tempfile::tempdir().unwrap();
    let loc = dir.path();
    let out = run(
        &Options::new(profile(vec![filesystem(loc)], vec![], 0)),
        &Intruder(loc.to_path_buf()),
    )
    .unwrap();
    let e = out.error.expect("what was left is named");
    assert!(e.contains("iogauge ffsb did not make it"), "{e}");
    assert!(!out.complete);
    // iogauge's files went; the user's stay, with what holds them
    assert_eq!(std::fs::read(loc.join("data/theirs")).unwrap(), b"mine");
    assert_eq!(
        std::fs::read(loc.join("data/datadir1/theirs")).unwrap(),
        b"mine"
    );
    assert_eq!(entries(&loc.join("data")), ["datadir1", "theirs"]);
    assert_eq!(entries(&loc.join("data/datadir1")), ["theirs"]);
    assert!(loc.join(MARKER).is_file() && !loc.join("meta").exists());
    // the next run refuses the location until they are moved
    let o = Options::new(profile(vec![filesystem(loc)], vec![], 0));
    assert!(
        check(&o)
            .unwrap_err()
            .contains("was not made by iogauge ffsb")
    );
}

#[test]
fn a_foreign_data_directory_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let loc = dir.path();
    std::fs::create_dir(loc.join("data")).unwrap();
    std::fs::write(loc.join("data/precious"), b"keep me").unwrap();
    let o = Options::new(profile(vec![filesystem(loc)], vec![], 0));
    let e = check(&o).unwrap_err();
    assert_eq!(
        e,
        format!(
            "{}/data exists and was not made by iogauge ffsb; remove it or use another location",
            loc.display()
        )
    );
    let e = run(&o, &NoProgress).unwrap_err();
    assert!(crate::error::is_usage(&e));
    assert_eq!(entries(&loc.join("data")), ["precious"]);
    assert!(!loc.join("meta").exists() && !loc.join(MARKER).exists());
    // meta too
    std::fs::remove_dir_all(loc.join("data")).unwrap();
    std::fs::create_dir(loc.join("meta")).unwrap();
    assert!(check(&o).unwrap_err().contains("/meta exists"));
}

#[test]
fn refusals_name_their_cause() {
    let dir = tempfile::tempdir().unwrap();
    let fs = filesystem(dir.path());
    let refuse = |fs: FileSystem, tg: ThreadGroup, want: &str| {
        let mut o = Options::new(profile(vec![fs], vec![tg], 1));
        o.allow_aging = true;
        let e = check(&o).unwrap_err();
        assert!(e.contains(want), "{e} (wanted: {want})");
        assert!(!e.contains('\n'), "one line: {e}");
    };
    let reads = group(&[(Op::Read, 1)]);
    refuse(
        fs.clone(),
        ThreadGroup {
            read_size: 64 << 10,
            ..reads.clone()
        },
        "read_size 65536 is larger than the smallest file",
    );
    refuse(
        fs.clone(),
        ThreadGroup {
            read_blocksize: 0,
            ..reads.clone()
        },
        "need read_blocksize",
    );
    refuse(fs.clone(), group(&[]), "every operation's weight is 0");
    refuse(
        fs.clone(),
        ThreadGroup {
            bindfs: Some("/nowhere".into()),
            ..reads.clone()
        },
        "bindfs=/nowhere",
    );
    let mut direct = Options::new(profile(vec![fs.clone()], vec![reads.clone()], 1));
    direct.profile.directio = true;
    assert!(check(&direct).is_ok(), "{:?}", check(&direct));
    direct.profile.filesystems[0].min_filesize = 12000;
    assert!(check(&direct).unwrap_err().contains("multiple of 4096"));
    direct.profile.filesystems[0].min_filesize = 8192;
    direct.engine = Choice::BUFFERED;
    assert!(check(&direct).unwrap_err().contains("O_DIRECT"));
    let mut fake = Options::new(profile(vec![fs.clone()], vec![reads.clone()], 1));
    fake.engine = Choice::NULL;
    assert!(check(&fake).unwrap_err().contains("does no I/O"));
    // aging needs --allow-aging, a group of its own, and only filling ops
    let mut aged = fs.clone();
    aged.agefs = true;
    aged.desired_util = 0.9999;
    aged.age_group = Some(group(&[(Op::Create, 1), (Op::Read, 1)]));
    let o = Options::new(profile(vec![aged.clone()], vec![reads.clone()], 1));
    assert_eq!(
        check(&o).unwrap_err(),
        format!(
            "{}: agefs=1 fills the file system to desired_util; give --allow-aging if iogauge may fill it",
            dir.path().display()
        )
    );
    refuse(
        aged.clone(),
        reads.clone(),
        "read_weight=1; aging runs only",
    );
    aged.age_group = Some(group(&[(Op::Delete, 1)]));
    refuse(aged, reads.clone(), "would never fill");
    refuse(
        fs.clone(),
        ThreadGroup {
            read_skip: true,
            read_skipsize: 16 << 10,
            ..reads.clone()
        },
        "read_skip reads 8192 bytes over 24576 bytes",
    );
    refuse(
        FileSystem {
            num_files: u32::MAX,
            max_filesize: 1 << 30,
            ..fs.clone()
        },
        reads.clone(),
        "not enough space",
    );
    // two file systems in one place
    let o = Options::new(profile(vec![fs.clone(), fs.clone()], vec![reads], 1));
    assert!(check(&o).unwrap_err().contains("each needs its own"));
}

#[test]
fn aging_beyond_max_age_bytes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let u = Usage::of(dir.path()).unwrap();
    // 1 % more than now needs far more than 1 MiB on any real disk
    let target = u.util() + 0.01;
    if target >= 0.99 || bytes_to_reach(target, &u) <= 1 << 20 {
        eprintln!("skipped: the file system of the temporary directory is too full or too small");
        return;
    }
    let mut fs = filesystem(dir.path());
    fs.agefs = true;
    fs.desired_util = target;
    fs.age_group = Some(group(&[(Op::Create, 1)]));
    let mut o = Options::new(profile(vec![fs], vec![], 0));
    o.allow_aging = true;
    o.max_age_bytes = 1 << 20;
    let e = check(&o).unwrap_err();
    assert!(
        e.starts_with(&format!("aging {} to ", dir.path().display()))
            && e.ends_with("more than --max-age-bytes 1048576"),
        "{e}"
    );
    assert!(entries(dir.path()).is_empty());
}

fn all_ops_group() -> ThreadGroup {
    let mut tg = group(&Op::ALL.map(|op| (op, 1)));
    tg.num_threads = 2;
    tg.stats = Some(Stats {
        enable_stats: true,
        enable_range: true,
        ignore: vec![Syscall::Lseek],
        ranges_ms: vec![(0.0, 0.1), (0.1, 10_000.0)],
    });
    tg
}

#[test]
fn a_short_run_of_every_op_counts_consistently() {
    let dir = tempfile::tempdir().unwrap();
    let loc = dir.path().join("fs");
    std::fs::create_dir(&loc).unwrap();
    let mut fs = filesystem(&loc);
    fs.num_files = 40;
    fs.size_weights = vec![(8 << 10, 1), (16 << 10, 1), (32 << 10, 1)];
    let mut o = Options::new(profile(vec![fs], vec![all_ops_group()], 1));
    o.seed = 7;
    let log = Log::default();
    let t = Instant::now();
    let out = run(&o, &log).unwrap();
    let wall = t.elapsed();
    assert!(out.complete, "{:?}", out.error);
    assert!(out.error.is_none() && !out.interrupted);
    // ends within 1 s of `time` (a loaded 2-core machine gets slack)
    assert!(
        out.elapsed >= Duration::from_millis(990) && out.elapsed < Duration::from_secs(2),
        "{:?}",
        out.elapsed
    );
    assert!(wall < Duration::from_secs(6), "{wall:?}");
    for line in [
        "Syncing()...",
        "Starting Actual Benchmark At: ",
        "FFSB benchmark finished   at: ",
    ] {
        assert!(log.said(line), "{line}: {:?}", log.lines.lock().unwrap());
    }
    let g = &out.groups[0];
    assert_eq!(g.threads, 2);
    tallies_agree(g);
    calls_agree(g);
    kinds_agree(&out, g);
    assert!(out.cpu.user + out.cpu.sys > Duration::ZERO);
    assert!(
        entries(&loc).is_empty(),
        "everything removed: {:?}",
        entries(&loc)
    );
}

/// The operations that move data (reads, writes, appends, creates).
const DATA_OPS: [Op; 10] = [
    Op::Read,
    Op::ReadAll,
    Op::Write,
    Op::WriteFsync,
    Op::WriteAll,
    Op::WriteAllFsync,
    Op::Append,
    Op::AppendFsync,
    Op::Create,
    Op::CreateFsync,
];

/// Calls (FFSB's transactions) of `ops`, all together.
fn transactions(g: &GroupResult, ops: &[Op]) -> u64 {
    ops.iter().map(|&op| g.op(op).transactions).sum()
}

/// Times `ops` ran, all together.
fn invocations(g: &GroupResult, ops: &[Op]) -> u64 {
    ops.iter().map(|&op| g.op(op).invocations).sum()
}

/// Each operation's tally of a run of every op: its calls, bytes and
/// latencies agree with what it does.
fn tallies_agree(g: &GroupResult) {
    // with hundreds of operations, each of the fifteen ran (a machine so
    // loaded that fewer ran proves nothing here)
    let ran = invocations(g, &Op::ALL);
    for op in Op::ALL {
        let t = g.op(op);
        assert!(t.invocations > 0 || ran < 300, "{} never ran", op.name());
        assert_eq!(t.latency.count, t.invocations, "{}", op.name());
        if DATA_OPS.contains(&op) {
            assert!(t.transactions >= t.invocations, "{}", op.name());
            // every file is a whole number of 4 KiB blocks: full blocks only
            let bytes = t.read_bytes + t.write_bytes;
            assert_eq!(bytes, t.transactions * 4096, "{}", op.name());
        } else {
            assert_eq!(t.transactions, t.invocations, "{}", op.name());
            assert_eq!(t.read_bytes + t.write_bytes, 0, "{}", op.name());
        }
    }
    assert_eq!(g.op(Op::Read).read_bytes, g.op(Op::Read).invocations * 8192);
    assert_eq!(
        g.op(Op::Append).write_bytes,
        g.op(Op::Append).invocations * 8192
    );
}

/// The `[stats]` calls of a run of every op agree with the tallies.
fn calls_agree(g: &GroupResult) {
    let reads = transactions(g, &[Op::Read, Op::ReadAll]);
    let writes = transactions(g, &DATA_OPS[2..]);
    assert_eq!(g.calls[&Syscall::Read].calls, reads);
    assert_eq!(g.calls[&Syscall::Write].calls, writes);
    assert_eq!(
        g.calls[&Syscall::Unlink].calls,
        g.op(Op::Delete).invocations
    );
    assert_eq!(g.calls[&Syscall::Stat].calls, g.op(Op::Stat).invocations);
    assert_eq!(
        g.calls[&Syscall::Create].calls,
        invocations(g, &[Op::Create, Op::CreateFsync])
    );
    assert!(!g.calls.contains_key(&Syscall::Lseek));
    for c in g.calls.values() {
        assert_eq!(
            c.buckets.iter().sum::<u64>(),
            c.calls,
            "every call in a range"
        );
        assert!(c.min_ns <= c.max_ns && c.total_ns >= c.max_ns);
    }
    // every open and every create is closed
    assert_eq!(
        g.calls[&Syscall::Open].calls + g.calls[&Syscall::Create].calls,
        g.calls[&Syscall::Close].calls
    );
}

/// iogauge's op kinds of a run of every op agree with the tallies.
fn kinds_agree(out: &Outcome, g: &GroupResult) {
    let k = |kind| out.stats.kind(kind).map_or(0, |s| s.count);
    assert_eq!(k(OpKind::Read), transactions(g, &[Op::Read, Op::ReadAll]));
    assert_eq!(
        k(OpKind::Write) + k(OpKind::Append),
        transactions(g, &DATA_OPS[2..])
    );
    assert_eq!(
        k(OpKind::Fsync),
        invocations(
            g,
            &[
                Op::WriteFsync,
                Op::WriteAllFsync,
                Op::AppendFsync,
                Op::CreateFsync
            ]
        )
    );
    assert_eq!(k(OpKind::Rename), g.op(Op::MetaOp).invocations);
}

#[test]
fn op_delay_is_cut_short_by_the_end_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut tg = group(&[(Op::Stat, 1)]);
    tg.op_delay_ms = 5_000;
    let o = Options::new(profile(vec![filesystem(dir.path())], vec![tg], 1));
    let t = Instant::now();
    let out = run(&o, &NoProgress).unwrap();
    assert!(out.complete, "{:?}", out.error);
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert_eq!(out.groups[0].op(Op::Stat).invocations, 1);
    assert!(entries(dir.path()).is_empty());
}

/// A file system of [`filesystem`] on a tmpfs of `size`; `None` where
/// mounting is not allowed.
fn on_tmpfs(size: &str) -> Option<(Tmpfs, FileSystem)> {
    let mnt = Tmpfs::mount(size)?;
    let fs = filesystem(mnt.path());
    Some((mnt, fs))
}

/// A tmpfs of `size` mounted on a temporary directory, unmounted when
/// dropped; `None` (and a printed reason) where mounting is not allowed.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().ok()?;
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("skipped: cannot mount a tmpfs (needs root)");
            return None;
        }
        Some(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

#[test]
fn aging_fills_a_file_system_to_desired_util() {
    let Some((mnt, mut fs)) = on_tmpfs("64m") else {
        return;
    };
    let loc = fs.location.clone();
    fs.num_files = 0;
    fs.agefs = true;
    fs.desired_util = 0.5;
    fs.min_filesize = 128 << 10;
    fs.max_filesize = 128 << 10;
    let mut ag = group(&[(Op::Create, 2), (Op::Append, 2), (Op::Delete, 1)]);
    ag.num_threads = 2;
    ag.write_size = 64 << 10;
    ag.write_blocksize = 64 << 10;
    fs.age_group = Some(ag);
    let mut o = Options::new(profile(vec![fs], vec![], 0));
    o.allow_aging = true;
    // more than aging may write: refused before anything is written
    o.max_age_bytes = 1 << 20;
    let e = check(&o).unwrap_err();
    assert!(
        e.starts_with(&format!("aging {} to 50 % needs ", loc.display()))
            && e.ends_with(" bytes, more than --max-age-bytes 1048576"),
        "{e}"
    );
    assert!(entries(mnt.path()).is_empty());
    o.max_age_bytes = DEFAULT_MAX_AGE_BYTES;
    let log = Log::default();
    let out = run(&o, &log).unwrap();
    assert!(out.complete, "{:?}", out.error);
    let s = &out.setup[0];
    assert!(
        (s.util_after - 0.5).abs() <= 0.02,
        "reached {} (before {})",
        s.util_after,
        s.util_before
    );
    assert!(s.aged_bytes >= 30 << 20, "{}", s.aged_bytes);
    assert!(log.said("aging fs "), "{:?}", log.lines.lock().unwrap());
    assert!(entries(mnt.path()).is_empty(), "{:?}", entries(mnt.path()));
}

#[test]
fn out_of_space_stops_the_run_cleanly() {
    let Some((mnt, mut fs)) = on_tmpfs("8m") else {
        return;
    };
    fs.num_files = 4;
    let mut tg = group(&[(Op::Create, 1)]);
    tg.num_threads = 2;
    tg.write_blocksize = 64 << 10;
    let mut big = fs.clone();
    big.min_filesize = 1 << 20;
    big.max_filesize = 1 << 20;
    // the creates of the run fill the 8 MiB
    let o = Options::new(profile(vec![big], vec![tg], 2));
    let t = Instant::now();
    let out = run(&o, &NoProgress).unwrap();
    let e = out.error.clone().expect("an error");
    assert!(e.contains("out of space"), "{e}");
    assert!(!out.complete);
    assert!(t.elapsed() < Duration::from_secs(3));
    assert!(out.groups[0].op(Op::Create).invocations > 0);
    assert!(entries(mnt.path()).is_empty(), "{:?}", entries(mnt.path()));
}

#[test]
fn random_skip_and_bound_groups_do_what_they_say() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_dirs(dir.path());
    let fss: Vec<FileSystem> = [&a, &b]
        .iter()
        .map(|loc| FileSystem {
            num_files: 8,
            min_filesize: 32 << 10,
            max_filesize: 64 << 10,
            reuse: true,
            ..filesystem(loc)
        })
        .collect();
    // creates only on b
    let creates = ThreadGroup {
        bindfs: Some(b.clone()),
        ..group(&[(Op::Create, 1)])
    };
    // random reads and writes on a
    let random = ThreadGroup {
        bindfs: Some(a.clone()),
        read_random: true,
        write_random: true,
        read_size: 16 << 10,
        write_size: 12 << 10,
        ..group(&[(Op::Read, 1), (Op::Write, 1)])
    };
    // strided reads on a: 2 blocks 4 KiB apart, then 1000 bytes
    let skip = ThreadGroup {
        bindfs: Some(a.clone()),
        read_skip: true,
        read_skipsize: 4096,
        read_size: 8192 + 1000,
        ..group(&[(Op::Read, 1)])
    };
    let mut p = profile(fss, vec![creates, random, skip], 1);
    p.alignio = true;
    let out = run(&Options::new(p), &NoProgress).unwrap();
    assert!(out.complete, "{:?}", out.error);
    // reuse=1 keeps the sets: a has its 8 files, b gained the creates
    assert_eq!(tree(&a).files.len(), 8);
    let created = out.groups[0].op(Op::Create).invocations;
    assert!(created > 0);
    assert_eq!(tree(&b).files.len() as u64, 8 + created);
    let r = out.groups[1].op(Op::Read);
    assert!(r.invocations > 0);
    assert_eq!(r.transactions, r.invocations * 4);
    assert_eq!(r.read_bytes, r.transactions * 4096);
    let w = out.groups[1].op(Op::Write);
    assert_eq!(w.transactions, w.invocations * 3);
    assert_eq!(w.write_bytes, w.transactions * 4096);
    let s = out.groups[2].op(Op::Read);
    assert!(s.invocations > 0);
    assert_eq!(s.transactions, s.invocations * 3);
    assert_eq!(s.read_bytes, s.invocations * (8192 + 1000));
}

/// Each thread's counters of a run of `plan`'s threads, `ops` each, and
/// the run's op kinds with their counts.
fn run_plan(plan: &ThreadPlan, ops: u64) -> (Vec<GroupResult>, Vec<(OpKind, u64)>) {
    use crate::runner::Workers;
    let threads = <crate::suites::ffsb::figures::Ffsb as Workers>::workers(plan, 0..4).unwrap();
    let rule = StopRule {
        ops: Some(ops * 4),
        ..Default::default()
    };
    let out = runner::run(rule, threads, &NoProgress);
    assert!(out.complete, "{:?}", out.error);
    let counts = OpKind::ALL
        .iter()
        .filter_map(|&k| out.stats.kind(k).map(|s| (k, s.count)))
        .collect();
    let records = out.records::<GroupResult>().into_iter().map(Option::unwrap);
    (records.collect(), counts)
}

#[test]
fn threads_built_from_the_payload_after_serde_do_what_the_run_does() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_dirs(dir.path());
    // operations that leave the file sets as they are, so two runs agree
    let mut tg = group(&[
        (Op::Read, 3),
        (Op::ReadAll, 1),
        (Op::Write, 2),
        (Op::WriteAll, 1),
        (Op::Stat, 2),
        (Op::OpenClose, 1),
    ]);
    tg.num_threads = 2;
    let bound = ThreadGroup {
        bindfs: Some(b.clone()),
        ..tg.clone()
    };
    let mut o = Options::new(profile(
        vec![filesystem(&a), filesystem(&b)],
        vec![tg, bound],
        1,
    ));
    o.seed = 11;
    let states: Vec<files::FsState> = (o.profile.filesystems.iter())
        .map(|fs| files::FsState::new(fs, false))
        .collect();
    let mut places = setup::Places::default();
    for (i, st) in states.iter().enumerate() {
        assert!(setup::prepare(&o, i, st, &mut places, &NoProgress).is_ok());
    }
    let plan = ThreadPlan {
        setting: o.setting(),
        data: states.iter().map(|st| st.data.state()).collect(),
    };
    let json = serde_json::to_string(&plan).unwrap();
    let back: ThreadPlan = serde_json::from_str(&json).unwrap();
    assert_eq!(serde_json::to_string(&back).unwrap(), json);
    assert_eq!(back.data, plan.data);
    let (threads, kinds) = run_plan(&plan, 50);
    let (threads_back, kinds_back) = run_plan(&back, 50);
    assert_eq!(kinds, kinds_back);
    assert!(kinds.iter().any(|&(k, n)| k == OpKind::Write && n > 0));
    let figures = |g: &GroupResult| {
        g.ops
            .iter()
            .map(|t| (t.invocations, t.transactions, t.read_bytes, t.write_bytes))
            .collect::<Vec<_>>()
    };
    assert_eq!(threads.len(), 4);
    for (t, u) in threads.iter().zip(&threads_back) {
        assert!(t.ops.iter().map(|o| o.invocations).sum::<u64>() > 0);
        assert_eq!(figures(t), figures(u));
    }
}

#[test]
fn aging_threads_built_from_the_payload_after_serde_share_one_count() {
    use crate::runner::{NoWatch, Placement};
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    let mut ag = group(&[(Op::Create, 1)]);
    ag.num_threads = 2;
    ag.write_blocksize = 16 << 10;
    let fs = FileSystem {
        agefs: true,
        // never reached: aging stops at its limit
        desired_util: 0.999,
        min_filesize: 64 << 10,
        max_filesize: 64 << 10,
        age_group: Some(ag),
        ..filesystem(dir.path())
    };
    let plan = AgePlan {
        setting: Options::new(profile(vec![fs], vec![], 0)).setting(),
        fs: 0,
        max_bytes: 1 << 20,
        written: 0,
        fill: files::ListState::default(),
    };
    let json = serde_json::to_string(&plan).unwrap();
    let back: AgePlan = serde_json::from_str(&json).unwrap();
    assert_eq!(serde_json::to_string(&back).unwrap(), json);
    let r = runner::run_workers::<Aging>(
        StopRule::default(),
        &back,
        2,
        Placement::Threads,
        &NoProgress,
        &NoWatch,
    )
    .unwrap();
    assert!(r.complete, "{:?}", r.error);
    let ends: Vec<thread::AgeEnd> = r.records().into_iter().map(Option::unwrap).collect();
    assert_eq!(ends.len(), 2);
    // the threads stop on the count both add to: 17 files of 64 KiB, and
    // at most the other thread's file in progress
    for e in &ends {
        assert!(e.over && e.failed.is_none(), "{e:?}");
        assert!(
            e.written > 1 << 20 && e.written <= 18 << 16,
            "{}",
            e.written
        );
    }
    let files = entries(&dir.path().join("data"));
    assert_eq!(
        files.len() as u64,
        r.stats.kind(OpKind::Create).unwrap().count
    );
}
