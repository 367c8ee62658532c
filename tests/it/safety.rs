//! Issue 33, "every file safe": checksummed sentinel files around and
//! inside the places a run works in, and every way a name could escape
//! (`..`, an absolute path, a symbolic link, a dangling one, a file that
//! exists, the same path twice, an output on an input or inside a
//! directory the run removes) tried on every command that takes a name.
//! Each must be refused with exit 2 before anything is written, and every
//! sentinel must be as it was, byte for byte.

use crate::common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The sentinel tree: `T/` holds the user's files, `T/D` is `--dir`,
/// `T/loc` a location (FFSB, PostMark) with a stale FFSB marker beside a
/// `data/` of the user's.
struct Field {
    t: tempfile::TempDir,
}

impl Field {
    fn new() -> Field {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        let w = |rel: &str, text: &str| {
            let p = r.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w("notes.txt", "precious\n");
        w("a", "a's data\n");
        w("b", "b's data\n");
        w("D/notes.txt", "precious in --dir\n");
        w("D/a", "a in --dir\n");
        w("D/b", "b in --dir\n");
        w("D/sub/inner", "inner\n");
        w("loc/notes.txt", "beside the file set\n");
        w("loc/.iogauge-ffsb", "a marker left by a killed run\n");
        w("loc/data/notes.txt", "the user's, in data/\n");
        w("loc/data/datafile0", "a file the killed run made\n");
        w("loc2/keep", "an empty location but for this\n");
        w("tree/src.c", "int main() { return 0; }\n");
        w("seeds", "\0\0\0\x01\0\0\0\x02");
        w("mix", "read 100\n");
        w("model.json", "{}\n");
        w(
            "p.ffsb",
            "time=1\n[filesystem0]\n location=/nonexistent/x\n num_files=2\n min_filesize=4k\n max_filesize=4k\n[end0]\n[threadgroup0]\n num_threads=1\n stat_weight=1\n[end0]\n",
        );
        std::os::unix::fs::symlink(r, r.join("D/link")).unwrap();
        std::os::unix::fs::symlink(r.join("never"), r.join("dangling")).unwrap();
        Field { t }
    }

    fn path(&self, rel: &str) -> String {
        self.t.path().join(rel).to_str().unwrap().to_string()
    }

    /// Every entry under `T` with what it is: a file's bytes (a checksum
    /// that misses nothing), a link's target, or a directory.
    fn snapshot(&self) -> BTreeMap<PathBuf, String> {
        fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                let rel = p.strip_prefix(root).unwrap().to_path_buf();
                let t = e.file_type().unwrap();
                let what = if t.is_symlink() {
                    format!("-> {}", std::fs::read_link(&p).unwrap().display())
                } else if t.is_dir() {
                    walk(root, &p, out);
                    "dir".to_string()
                } else {
                    format!("{:?}", std::fs::read(&p).unwrap())
                };
                out.insert(rel, what);
            }
        }
        let mut out = BTreeMap::new();
        walk(self.t.path(), self.t.path(), &mut out);
        out
    }

    /// Write a file of the test's (a control or configuration file).
    fn put(&self, rel: &str, text: &str) -> String {
        std::fs::write(self.t.path().join(rel), text).unwrap();
        self.path(rel)
    }
}

/// `iogauge ARGS` in `T` must exit 2 with one line naming `says`, and
/// leave every sentinel as it was. PostMark prints its banner first, so
/// for it only the last line counts.
fn refused(f: &Field, args: &[&str], says: &str) {
    let before = f.snapshot();
    let out = iogauge()
        .current_dir(f.t.path())
        .args(args)
        .env_remove("FILE0")
        .env_remove("FILE1")
        .env_remove("FILES")
        .write_stdin("quit\n")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "iogauge {args:?} was not refused: {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    let lines: Vec<&str> = err.lines().collect();
    if args[0] != "postmark" {
        assert_eq!(lines.len(), 1, "iogauge {args:?}: {err}");
    }
    assert!(
        lines.iter().any(|l| l.contains(says)),
        "iogauge {args:?}: expected '{says}' in: {err}"
    );
    assert_eq!(f.snapshot(), before, "iogauge {args:?} touched a sentinel");
}

#[test]
fn names_that_escape_are_refused_and_every_sentinel_is_intact() {
    let f = Field::new();
    let d = f.path("D");
    let io = ["iozone", "-s", "64k", "-r", "4k", "-i", "0", "--dir", &d];
    let with = |extra: &[&str]| -> Vec<String> {
        io.iter()
            .chain(extra)
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    };
    let notes = f.path("notes.txt");
    let dangling = f.path("dangling");
    for (extra, says) in [
        (&["-f", "../notes.txt"][..], "'..' climbs out"),
        (&["-f", "./../notes.txt"][..], "'..' climbs out"),
        (&["-t", "2", "-F", "../a", "../b"][..], "'..' climbs out"),
        (&["-f", &notes][..], "an absolute name"),
        (
            &["-f", &notes, "--allow-outside"][..],
            "a file is there already",
        ),
        (
            &["-f", &dangling, "--allow-outside"][..],
            "dangling symbolic link",
        ),
        (&["-f", "link/notes.txt"][..], "holds no subdirectory"),
        (&["-f", "sub/inner"][..], "holds no subdirectory"),
        (&["-t", "2", "-F", "x", "./x"][..], "the same file as -F x"),
        (
            &["--json", "r", "--csv", "./r"][..],
            "the same file as --json r",
        ),
    ] {
        let args = with(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&f, &args, says);
    }

    // IOBENCH: FILEk in a control file (its file:line named)
    for (line, extra, says) in [
        (
            "FILE0 = ../notes.txt;",
            &[][..],
            "ctl:2: FILE0 = ../notes.txt: '..' climbs out",
        ),
        (&format!("FILE0 = {notes};"), &[][..], "an absolute name"),
        (
            &format!("FILE0 = {notes};"),
            &["--allow-outside"][..],
            "--allow-existing",
        ),
        (
            &format!("FILE0 = {dangling};"),
            &["--allow-outside"][..],
            "dangling",
        ),
        ("FILE0 = link/notes.txt;", &[][..], "holds no subdirectory"),
        (
            "FILE0 = x; FILE1 = ./x;",
            &[][..],
            "the same file as ctl:2: FILE0 = x",
        ),
        (
            "FILE0 = FILE1;",
            &[][..],
            "the same file as file 1's default name",
        ),
    ] {
        let ctl = f.put(
            "ctl",
            &format!("FILES = 2; NRECS = 8; RECLEN = 512;\n{line}\n"),
        );
        let mut args = vec![
            "iobench",
            "ctl",
            "--threads",
            "--duration",
            "0.1s",
            "--dir",
            &d,
        ];
        args.extend_from_slice(extra);
        refused(&f, &args, says);
        std::fs::remove_file(ctl).unwrap();
    }
    let ctl = f.put("ctl", "FILES = 1;\n");
    refused(
        &f,
        &["iobench", "ctl", "--dir", &d, "-o", "ctl"],
        "-o ctl: is the control file",
    );
    refused(
        &f,
        &["iobench", "ctl", "--dir", &d, "-o", "r", "-s", "./r"],
        "-s ./r: the same file as -o r",
    );
    std::fs::remove_file(ctl).unwrap();

    // FFSB: a missing profile location, a stale marker beside the user's
    // files, an output inside data/ (removed at the end) or on the profile
    let prof = f.path("p.ffsb");
    refused(&f, &["ffsb", &prof], "does not exist");
    refused(
        &f,
        &["ffsb", &prof, "--location", &f.path("nothing")],
        "does not exist",
    );
    refused(
        &f,
        &["ffsb", &prof, "--location", &f.path("loc")],
        "notes.txt was not made by iogauge ffsb",
    );
    let inside = f.path("loc/data/r.json");
    refused(
        &f,
        &[
            "ffsb",
            &prof,
            "--location",
            &f.path("loc"),
            "--json",
            &inside,
        ],
        "which the run removes at its end",
    );
    refused(
        &f,
        &[
            "ffsb",
            &prof,
            "--location",
            &f.path("loc2"),
            "--json",
            &prof,
        ],
        "is the profile",
    );

    // PostMark: a missing location; run FILE on the configuration file
    let pm = f.put(
        "c.pmrc",
        &format!(
            "set location {}\nset number 5\nrun\nquit\n",
            f.path("nothing")
        ),
    );
    refused(&f, &["postmark", &pm], "does not exist");
    let pm = f.put("c.pmrc", &format!("set location {d}\nrun c.pmrc\nquit\n"));
    refused(&f, &["postmark", &pm], "is the configuration file");
    std::fs::remove_file(pm).unwrap();

    // inputs that an output would overwrite, and a tree the run reads
    refused(
        &f,
        &["bonnie", "-d", &d, "-Z", "seeds", "--json", "seeds"],
        "is -Z seeds",
    );
    refused(
        &f,
        &["laddis", "--dir", &d, "--mix", "mix", "--csv", "mix"],
        "is the mix file",
    );
    refused(
        &f,
        &[
            "andrew",
            "--dir",
            &d,
            "--tree",
            "tree",
            "--json",
            "tree/src.c",
        ],
        "is a file in --tree tree",
    );
    refused(
        &f,
        &["predict", "model.json", "--json", "model.json"],
        "is the model",
    );
}

/// `--json X --csv X` (issue 33, item 4): the same path twice, for every
/// command that takes both.
#[test]
fn two_outputs_on_one_path_are_refused_by_every_command() {
    let f = Field::new();
    let d = f.path("D");
    let prof = f.path("p.ffsb");
    let loc2 = f.path("loc2");
    for cmd in [
        &["run", "--dir", &d][..],
        &["iostone", "--dir", &d],
        &["postmark", "--dir", &d],
        &["iobench", "--dir", &d],
        &["bonnie", "-d", &d],
        &["iozone", "-i", "0", "-s", "64k", "--dir", &d],
        &["ffsb", &prof, "--location", &loc2],
        &["scientific", "--dir", &d],
        &["tpcb", "--dir", &d],
        &["laddis", "--dir", &d],
        &["andrew", "--dir", &d],
        &["sdet", "--dir", &d],
        &["scale", "run", "--dir", &d],
        &["selfscale", &d],
        &["survey", &d],
    ] {
        let mut args = cmd.to_vec();
        args.extend_from_slice(&["--json", "out", "--csv", "./out"]);
        refused(&f, &args, "the same file as --json out");
    }
    // the hard link of a file is that file
    std::fs::write(f.t.path().join("r"), b"").unwrap();
    std::fs::hard_link(f.t.path().join("r"), f.t.path().join("r2")).unwrap();
    refused(
        &f,
        &["run", "--dir", &d, "--json", "r", "--csv", "r2"],
        "the same file",
    );
    refused(
        &f,
        &["sdet", "--dir", &d, "--json", "r.svg", "--plot", "r.svg"],
        "the same file as --plot r.svg",
    );
}
