//! `iogauge report`: one HTML page of saved results (a `run`, a PostMark
//! run, a collection, fio's JSON output), and what it refuses.

use crate::common::*;
use std::path::{Path, PathBuf};

const FIO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fio");

/// Results to report on, written into `dir`: a short `run`, one PostMark
/// run, a PostMark session of two runs (a collection); then fio's json+
/// and json fixtures.
pub fn inputs(dir: &Path) -> Vec<PathBuf> {
    let data = dir.join("data");
    std::fs::create_dir(&data).unwrap();
    let run = dir.join("run.json");
    let out = iogauge()
        .args(["run", "--unique-bytes", "1M", "--duration", "1.3s", "--dir"])
        .arg(&data)
        .arg("--json")
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pm = |name: &str, runs: &[u32]| {
        let mut script = format!("set location {}\nset number 50\n", data.display());
        for t in runs {
            script += &format!("set transactions {t}\nrun\n");
        }
        script += "quit\n";
        let rc = dir.join(format!("{name}.pmrc"));
        std::fs::write(&rc, script).unwrap();
        let json = dir.join(format!("{name}.json"));
        let out = iogauge()
            .arg("postmark")
            .arg(&rc)
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        json
    };
    let one = pm("postmark", &[300]);
    let session = pm("session", &[200, 400]);
    assert_eq!(
        std::fs::read_dir(&data).unwrap().count(),
        0,
        "runs leave nothing"
    );
    vec![
        run,
        one,
        session,
        Path::new(FIO).join("randrw-jsonplus.json"),
        Path::new(FIO).join("seqread.json"),
    ]
}

/// `iogauge report FILES -o OUT`; the page.
pub fn report(files: &[PathBuf], out: &Path) -> String {
    let o = iogauge()
        .arg("report")
        .args(files)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(o.stdout.is_empty() && stderr.is_empty(), "{stderr}");
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn report_holds_every_run_side_by_side() {
    let d = tempfile::tempdir().unwrap();
    let files = inputs(d.path());
    let page = report(&files, &d.path().join("all.html"));
    // one section per run: run, postmark, the session's 2, fio's 2
    assert_eq!(page.matches("<section class=\"card run\"").count(), 6);
    for label in [
        "run.json",
        "postmark.json",
        "session.json: run 1",
        "session.json: run 2",
        "randrw-jsonplus.json: randrw",
        "seqread.json: seqread",
    ] {
        assert!(page.contains(&format!(">{label}<")), "{label}");
    }
    // the table across runs: a row each, cells coloured by rank
    let table = &page[page.find("id=\"compare\"").unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    assert_eq!(table.matches("<tr><td class=\"l\">").count(), 6);
    assert!(table.contains("hsl(120, 70%, 78%)") && table.contains("hsl(0, 70%, 78%)"));
    // classic reports of the iogauge runs, by their own renderers
    assert_eq!(page.matches("<pre class=\"classic\">").count(), 4);
    assert!(
        page.contains("PostMark") || page.contains("Time:"),
        "postmark's report"
    );
    // a latency curve per run (fio's json+ from its bins, plain json from
    // its percentiles), throughput over time for the iogauge runs
    assert_eq!(
        page.matches("latency by percentile, per op kind").count(),
        6
    );
    assert_eq!(
        page.matches("from each kind&#39;s full histogram").count(),
        5
    );
    assert_eq!(
        page.matches("from the result&#39;s summary percentiles")
            .count(),
        1
    );
    assert_eq!(page.matches("\nthroughput over time\n").count(), 4);
    assert!(page.contains("fio's JSON holds no time series"));
    assert!(page.contains("<h3>Environment</h3>"));
    // self-contained: nothing fetched
    for bad in ["src=\"http", "href=\"http", "@import", "url(", "<link"] {
        assert!(!page.contains(bad), "{bad}");
    }
}

#[test]
fn one_run_is_under_a_megabyte() {
    let d = tempfile::tempdir().unwrap();
    let files = inputs(d.path());
    let out = d.path().join("one.html");
    let page = report(&files[..1], &out);
    let size = std::fs::metadata(&out).unwrap().len();
    assert!(size < 1_000_000, "{size} bytes");
    assert!(!page.contains("id=\"compare\""), "no table for one run");
    assert!(page.contains("<div class=\"headline\">"));
    assert!(page.contains("run's report"));
    // a fio run alone, under a title of its own, to standard output
    let o = iogauge()
        .arg("report")
        .arg(&files[3])
        .args(["-o", "-", "--title", "fio <baseline>"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let page = String::from_utf8(o.stdout).unwrap();
    assert!(page.contains("<title>fio &lt;baseline&gt;</title>"));
    assert!(page.contains("fio 3.33"));
    assert!(
        page.contains("\nread (") && page.contains("\nwrite ("),
        "{page}"
    );
}

#[test]
fn report_refuses_bad_input_and_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r.html");
    let o = |p: &Path| p.to_str().unwrap().to_string();
    let missing = d.path().join("missing.json");
    let line = assert_usage_error(&["report", &o(&missing), "-o", &o(&out)]);
    assert!(line.contains("missing.json"), "{line}");
    let bad = d.path().join("bad.json");
    std::fs::write(&bad, "not json").unwrap();
    let line = assert_usage_error(&["report", &o(&bad), "-o", &o(&out)]);
    assert!(line.contains("not JSON"), "{line}");
    std::fs::write(&bad, "{\"schema\": \"something/else\"}").unwrap();
    let line = assert_usage_error(&["report", &o(&bad), "-o", &o(&out)]);
    assert!(
        line.contains("not an iogauge result, collection or fio JSON output"),
        "{line}"
    );
    std::fs::write(&bad, "{\"fio version\": \"fio-3.33\", \"jobs\": 4}").unwrap();
    let line = assert_usage_error(&["report", &o(&bad), "-o", &o(&out)]);
    assert!(line.contains("jobs"), "{line}");
    let fio = Path::new(FIO).join("seqread.json");
    let line = assert_usage_error(&["report", &o(&fio), "-o", &o(&d.path().join("no/r.html"))]);
    assert!(line.contains("does not exist"), "{line}");
    let line = assert_usage_error(&["report", &o(&fio), "-o", &o(d.path())]);
    assert!(line.contains("is a directory"), "{line}");
    assert_usage_error(&["report", &o(&fio)]);
    // nothing written, no temporary left
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("bad.json")]);
    // a directory no one may create files in, even root: /proc
    let line = assert_usage_error(&["report", &o(&fio), "-o", "/proc/iogauge-report.html"]);
    assert!(line.contains("/proc/iogauge-report.html"), "{line}");
    // a directory that cannot be written (not as root, who may write anywhere)
    if !is_root() {
        let ro = d.path().join("ro");
        std::fs::create_dir(&ro).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        let line = assert_usage_error(&["report", &o(&fio), "-o", &o(&ro.join("r.html"))]);
        assert!(line.contains("r.html"), "{line}");
        assert_eq!(std::fs::read_dir(&ro).unwrap().count(), 0);
    }
}

/// A `--repeat` series is read too: each repetition is a run of the page,
/// named by its number, side by side in the table across runs.
#[test]
fn a_repeat_series_is_one_run_per_repetition() {
    let dir = tempfile::tempdir().unwrap();
    let data = work_dir();
    let json = dir.path().join("rep.json");
    let out = iogauge()
        .args(["run", "--engine", "null", "--ops", "20000", "--repeat", "3"])
        .args(["--dir", p(data.path()), "-q", "--json", p(&json)])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = report(&[json], &dir.path().join("rep.html"));
    for k in 1..=3 {
        assert!(page.contains(&format!("repeat {k}")), "repeat {k}");
    }
    assert!(!page.contains("repeat 4"));
    assert_untouched(data.path());
}
