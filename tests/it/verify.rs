//! `--verify`, `--keep` and `--verify-only`: every unit written is
//! checkable, every read is checked, and a kept file set damaged behind
//! iogauge's back is found unit by unit, each with its kind and offset.

use crate::common::*;
use iogauge::verify::{Pattern, Stamp};
use serde_json::Value;
use std::collections::BTreeMap;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

const UNIT: u64 = 8192;

/// The one work directory a `--keep` run left in `parent`.
fn kept(parent: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("iogauge-run-")
        })
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

/// `iogauge run --verify-only dir --json -`: its JSON and exit code.
fn verify_only(dir: &Path) -> (Value, Option<i32>, String) {
    let out = iogauge()
        .args(["run", "--verify-only", p(dir), "--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (v, out.status.code(), stderr)
}

/// Every file's bytes, to show that a check changed nothing.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Goal (a): a file set written with `--verify --keep` at depth, then
/// damaged behind iogauge's back six ways; `--verify-only` finds each
/// damaged unit, with its kind and offset, and nothing else.
#[test]
fn every_injected_corruption_is_found_with_its_kind_and_offset() {
    let d = work_dir();
    let (v, _) = run_json(&[
        "run",
        "--dir",
        p(d.path()),
        "--verify",
        "--keep",
        "--verify-interval",
        "8K",
        "--unique-bytes",
        "2M",
        "--files",
        "2",
        "--size-mean",
        "16K",
        "--engine",
        "io_uring",
        "--iodepth",
        "32",
        "--ops",
        "3000",
        "--read-frac",
        "0.5",
    ]);
    assert_eq!(u64_at(&v, "verify.mismatches"), 0);
    assert!(u64_at(&v, "verify.units_checked") > 1000, "{}", v["verify"]);
    assert!(u64_at(&v, "verify.units_written") > 1000);
    let dir = kept(d.path());
    assert_eq!(str_at(&v, "verify.kept"), p(&dir));

    // a clean check first: every unit checked, none wrong, exit 0
    let before = contents(&dir);
    let (clean, code, _) = verify_only(&dir);
    assert_eq!(code, Some(0));
    assert_eq!(u64_at(&clean, "verify.mismatches"), 0);
    let units = 2 * (1 << 20) / UNIT;
    let n = &clean["verify"]["not_checked"];
    assert_eq!(
        u64_at(&clean, "verify.units_checked") + n["raced"].as_u64().unwrap(),
        units
    );
    assert_eq!(contents(&dir), before, "--verify-only changed the files");

    // the next run in the same place leaves the kept set alone (its owner
    // is gone, but the manifest says it was kept on purpose)
    let out = iogauge()
        .args([
            "run",
            "--dir",
            p(d.path()),
            "--ops",
            "100",
            "--unique-bytes",
            "1M",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(kept(d.path()), dir);
    assert_eq!(contents(&dir), before, "the next run touched the kept set");

    // the units' generations, from the manifest
    let m: Value =
        serde_json::from_slice(&std::fs::read(dir.join("iogauge-verify.json")).unwrap()).unwrap();
    let seed = m["seed"].as_u64().unwrap();
    let mut gens: BTreeMap<(u64, u64), (u64, u64)> = BTreeMap::new();
    for w in m["written"].as_array().unwrap() {
        let w: Vec<u64> = w
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        gens.insert((w[0], w[1]), (w[2], w[3]));
    }
    // units written once or more, settled to one generation
    let settled: Vec<(u64, u64, u64)> = gens
        .iter()
        .filter(|(_, (lo, hi))| lo == hi && *hi >= 1)
        .map(|(&(f, o), &(_, hi))| (f, o, hi))
        .collect();
    assert!(settled.len() >= 6, "{} settled units", settled.len());
    let pattern = Pattern::new(seed, UNIT as usize);
    let owner = |o: u64| {
        let share = m["geometry"]["share"].as_u64().unwrap();
        (o / share) as u32
    };
    let unit_of = |f: u64, o: u64, g: u64| {
        pattern.expected(&Stamp {
            file: f,
            offset: o,
            generation: g,
            writer: owner(o),
            seed,
        })
    };
    let file = |f: u64| {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(dir.join(format!("data.{f}")))
            .unwrap()
    };
    let read = |f: u64, o: u64| {
        let mut b = vec![0u8; UNIT as usize];
        file(f).read_exact_at(&mut b, o).unwrap();
        b
    };
    let write = |f: u64, o: u64, b: &[u8]| file(f).write_all_at(b, o).unwrap();
    // six settled units, spread over the list
    let pick: Vec<(u64, u64, u64)> = (0..6)
        .map(|i| settled[i * (settled.len() - 1) / 5])
        .collect();
    let mut want: BTreeMap<(u64, u64), &str> = BTreeMap::new();

    // 1. three bits flipped
    let (f, o, _) = pick[0];
    let mut b = read(f, o);
    b[100] ^= 0x01;
    b[5000] ^= 0x80;
    b[8000] ^= 0x10;
    write(f, o, &b);
    want.insert((f, o), "bit_flip");
    // 2. torn: the second 4 KiB half from the write before
    let (f, o, g) = pick[1];
    let old = unit_of(f, o, g - 1);
    write(f, o + 4096, &old[4096..]);
    want.insert((f, o), "torn");
    // 3. stale: the whole unit of the write before
    let (f, o, g) = pick[2];
    write(f, o, &unit_of(f, o, g - 1));
    want.insert((f, o), "stale");
    // 4. misdirected: another unit's bytes at this offset
    let (f, o, _) = pick[3];
    let (fo, oo, _) = pick[5];
    write(f, o, &read(fo, oo));
    want.insert((f, o), "misdirected");
    // 5. random bytes
    let (f, o, _) = pick[4];
    let noise: Vec<u8> = (0..UNIT).map(|i| ((i * 2654435761) >> 13) as u8).collect();
    write(f, o, &noise);
    want.insert((f, o), "foreign");
    // 6. zeros (pick[5] itself, after it was copied)
    let (f, o, _) = pick[5];
    write(f, o, &vec![0u8; UNIT as usize]);
    want.insert((f, o), "lost");

    let (v, code, stderr) = verify_only(&dir);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("6 unit(s)"), "{stderr}");
    check_result(&v);
    assert_eq!(u64_at(&v, "verify.mismatches"), 6, "{}", v["verify"]);
    let mut found: BTreeMap<(u64, u64), String> = BTreeMap::new();
    for m in v["verify"]["first"].as_array().unwrap() {
        found.insert(
            (m["file"].as_u64().unwrap(), m["offset"].as_u64().unwrap()),
            m["kind"].as_str().unwrap().to_string(),
        );
    }
    let want: BTreeMap<(u64, u64), String> =
        want.into_iter().map(|(k, v)| (k, v.to_string())).collect();
    assert_eq!(found, want);
    for k in [
        "bit_flip",
        "torn",
        "stale",
        "misdirected",
        "foreign",
        "lost",
    ] {
        assert_eq!(u64_at(&v, &format!("verify.by_kind.{k}")), 1, "{k}");
    }
}

/// A directory without a manifest is refused in one line, and nothing in
/// it is touched.
#[test]
fn verify_only_refuses_a_directory_without_a_manifest() {
    let d = work_dir();
    let line = assert_usage_error(&["run", "--verify-only", p(d.path())]);
    assert!(line.contains("holds no iogauge-verify.json"), "{line}");
    assert_untouched(d.path());
    let line = assert_usage_error(&["run", "--verify-only", "/nonexistent/x"]);
    assert!(line.contains("is not a directory"), "{line}");
}

/// What `--verify` cannot check soundly is refused in one line.
#[test]
fn what_verify_cannot_check_is_refused() {
    let d = work_dir();
    let dir = p(d.path());
    for (args, says) in [
        (vec!["--verify-interval", "1536"], "powers of two"),
        (vec!["--verify-interval", "100"], "multiple of 512"),
        (vec!["--engine", "null"], "does no I/O"),
        (vec!["-p", "64", "--unique-bytes", "64K"], "its own 1/64"),
    ] {
        let mut a = vec!["run", "--dir", dir, "--verify", "--ops", "10"];
        a.extend(args);
        let line = assert_usage_error(&a);
        assert!(line.contains(says), "{a:?}: {line}");
    }
    // --keep and --verify-fatal only mean something with --verify
    let out = iogauge()
        .args(["run", "--dir", dir, "--keep", "--ops", "10"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_untouched(d.path());
}

/// A small xorshift, so that the randomized runs are the same every time.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len() as u64) as usize]
    }
}

/// Goal (b), short: randomized runs at depth 32 (engine, O_DIRECT or not,
/// sizes, read and sequential fractions, workers as threads or processes,
/// seeds) never report a mismatch; bench/verify.sh runs 1,000.
#[test]
fn randomized_runs_at_depth_find_no_false_positives() {
    let d = work_dir();
    let mut r = Rng(0x5eed_1234_abcd);
    let mut checked = 0;
    for i in 0..20 {
        let engine = r.pick(&["psync", "io_uring", "libaio"]);
        let direct = r.below(2) == 1;
        let unit = r.pick(&["4K", "4K", "8K", "16K"]);
        let size = r.pick(&["4K", "16K", "64K"]);
        let rf = r.pick(&["0", "0.3", "0.5", "0.9"]);
        let sf = r.pick(&["0", "0.5", "1"]);
        let workers = (1 + r.below(3)).to_string();
        let how = r.pick(&["threads", "processes"]);
        let seed = (1 + r.below(1000)).to_string();
        let depth = if engine == "psync" { "1" } else { "32" };
        let mut a = vec![
            "run",
            "--dir",
            p(d.path()),
            "--verify",
            "--verify-interval",
            unit,
            "--unique-bytes",
            "1M",
            "--size-mean",
            size,
            "--read-frac",
            rf,
            "--seq-frac",
            sf,
            "-p",
            &workers,
            "--workers-as",
            how,
            "--seed",
            &seed,
            "--engine",
            engine,
            "--iodepth",
            depth,
            "--ops",
            "1500",
            "-q",
        ];
        if direct {
            a.push("--direct");
        }
        let (v, stderr) = run_json(&a);
        assert_eq!(
            u64_at(&v, "verify.mismatches"),
            0,
            "run {i} {a:?}: {}\n{stderr}",
            v["verify"]
        );
        checked += u64_at(&v, "verify.units_checked");
        assert_untouched(d.path());
    }
    assert!(checked > 10_000, "{checked} units checked in all");
}

/// `scientific --verify`: the write phase is made of checked units and the
/// read phase checks every one of them, at depth, and the read-only phase
/// checks the layout's.
#[test]
fn scientific_checks_every_unit_it_wrote() {
    let d = work_dir();
    let (v, text) = run_json(&[
        "scientific",
        "--dir",
        p(d.path()),
        "--verify",
        "--size",
        "4M",
        "--request",
        "64K",
        "--engine",
        "io_uring",
        "--iodepth",
        "32",
    ]);
    check_result(&v);
    let units = (4 << 20) / 4096;
    assert_eq!(u64_at(&v, "verify.units_written"), units);
    assert_eq!(u64_at(&v, "verify.units_checked"), units);
    assert_eq!(u64_at(&v, "verify.mismatches"), 0);
    assert!(
        text.contains("Verify\n  unit 4096 B: 1024 written, 1024 checked, 0 mismatched"),
        "{text}"
    );
    let (v, _) = run_json(&[
        "scientific",
        "--dir",
        p(d.path()),
        "--verify",
        "--size",
        "1M",
        "--phase",
        "read",
    ]);
    assert_eq!(u64_at(&v, "verify.units_checked"), 256);
    assert_untouched(d.path());
    let line = assert_usage_error(&[
        "scientific",
        "--dir",
        p(d.path()),
        "--verify",
        "--size",
        "1M",
        "--request",
        "1000",
    ]);
    assert!(line.contains("whole units"), "{line}");
}

#[test]
fn iozone_checks_every_record_of_every_pass() {
    let d = work_dir();
    // write, rewrite, read, reread, random read and write, backwards,
    // record rewrite, stride, fread, pwrite and pread with their re-tests;
    // --verify after IOzone's flags, as users put long options
    let (v, text) = run_json(&[
        "iozone",
        "--dir",
        p(d.path()),
        "-i",
        "0",
        "-i",
        "1",
        "-i",
        "2",
        "-i",
        "3",
        "-i",
        "4",
        "-i",
        "5",
        "-i",
        "7",
        "-i",
        "9",
        "-i",
        "10",
        "-E",
        "-s",
        "1m",
        "-r",
        "64k",
        "--verify",
    ]);
    check_result(&v);
    let units = (1 << 20) / 4096;
    // six write passes (write, rewrite, random write, record rewrite,
    // pwrite, repwrite) and nine read passes, every record whole
    assert_eq!(u64_at(&v, "verify.units_written"), 6 * units);
    assert_eq!(u64_at(&v, "verify.units_checked"), 9 * units);
    assert_eq!(u64_at(&v, "verify.mismatches"), 0);
    assert_eq!(u64_at(&v, "metrics.verify_units_checked"), 9 * units);
    assert!(
        text.contains("Verify\n  unit 4096 B: 1536 written, 2304 checked, 0 mismatched"),
        "{text}"
    );
    // at depth, O_DIRECT, with a unit of 8 KiB and the layout's file
    let (v, _) = run_json(&[
        "iozone",
        "--dir",
        p(d.path()),
        "-i",
        "1",
        "-i",
        "2",
        "-s",
        "1m",
        "-r",
        "16k",
        "-I",
        "-k",
        "8",
        "--verify",
        "--verify-interval",
        "8k",
    ]);
    assert_eq!(
        u64_at(&v, "verify.units_written"),
        2 * 128,
        "layout and random write"
    );
    assert_eq!(u64_at(&v, "verify.units_checked"), 3 * 128);
    assert_untouched(d.path());
    for (args, says) in [
        (&["-a"][..], "with -a, name the tests"),
        (&["-i", "0", "-i", "6", "-s", "1m"][..], "leave out -i 6"),
        (&["-t", "2", "-i", "0", "-s", "1m"][..], "throughput mode"),
        (
            &["-i", "0", "-s", "1m", "-r", "2k"][..],
            "whole number of --verify-interval",
        ),
    ] {
        let mut a = vec!["iozone", "--dir", p(d.path())];
        a.extend_from_slice(args);
        a.push("--verify");
        let line = assert_usage_error(&a);
        assert!(line.contains(says), "{args:?}: {line}");
    }
    assert_untouched(d.path());
}
