//! `iogauge report`'s page in a real browser: headless Chromium lays it
//! out, a checking script appended to a copy of the page measures the key
//! elements and records script errors and console errors into the DOM,
//! and `--dump-dom` hands them back. A screenshot of the page is kept at
//! target/report-screenshot.png for a person to look at.
//!
//! Skipped, with the reason printed, where /usr/bin/chromium is absent
//! (`.ci/run` installs it).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";

/// Goes first in <head>: every error and console error from then on.
const CATCH: &str = r#"<script>
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push('error: ' + e.message); });
(function () {
  var orig = console.error;
  console.error = function () {
    window.__errors.push('console: ' + Array.prototype.join.call(arguments, ' '));
    return orig.apply(console, arguments);
  };
})();
</script>"#;

/// Goes last in <body>: each key element's box, into <pre id="check">.
const CHECK: &str = r#"<script>
(function () {
  var out = { elements: [], errors: window.__errors, overflow: 0 };
  function box(sel) {
    document.querySelectorAll(sel).forEach(function (el, i) {
      var r = el.getBoundingClientRect();
      var st = getComputedStyle(el);
      out.elements.push({ sel: sel, i: i, w: r.width, h: r.height,
        visible: st.visibility !== 'hidden' && st.display !== 'none' && r.width > 0 && r.height > 0 });
    });
  }
  ['header.top h1', '.headline', 'pre.classic', 'figure.chart svg', '#compare table',
   'table.ops', 'table.env'].forEach(box);
  out.overflow = document.documentElement.scrollWidth - window.innerWidth;
  var pre = document.createElement('pre');
  pre.id = 'check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"#;

/// Run chromium with `args`, killed after a minute; its stdout.
fn chromium(args: &[&str], profile: &Path) -> String {
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            child.wait().ok();
            panic!("chromium did not finish in a minute");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap()
}

#[test]
fn the_page_shows_its_key_elements_in_chromium() {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("skipped: {CHROMIUM} is absent (apt-get install chromium)");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let files = crate::report::inputs(d.path());
    let page_path = d.path().join("report.html");
    let page = crate::report::report(&files, &page_path);

    // the screenshot, of the page as written
    let shot: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("report-screenshot.png");
    let _ = std::fs::remove_file(&shot);
    let url = format!("file://{}", page_path.display());
    chromium(
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,4000",
            &url,
        ],
        &d.path().join("profile1"),
    );
    assert!(
        std::fs::metadata(&shot).is_ok_and(|m| m.len() > 10_000),
        "no screenshot at {}",
        shot.display()
    );
    eprintln!("screenshot: {}", shot.display());

    // a copy with the checking scripts, laid out and dumped
    let checked = page
        .replacen("<head>", &format!("<head>\n{CATCH}"), 1)
        .replacen("</body>", &format!("{CHECK}\n</body>"), 1);
    let checked_path = d.path().join("checked.html");
    std::fs::write(&checked_path, checked).unwrap();
    let dom = chromium(
        &[
            "--window-size=1280,900",
            "--dump-dom",
            &format!("file://{}", checked_path.display()),
        ],
        &d.path().join("profile2"),
    );
    let at = dom
        .find("<pre id=\"check\">")
        .expect("the checking script ran")
        + 16;
    let json = &dom[at..at + dom[at..].find("</pre>").unwrap()];
    let json = json
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["errors"],
        serde_json::json!([]),
        "script or console errors"
    );
    assert!(
        v["overflow"].as_f64().unwrap() <= 0.0,
        "the page is wider than the window: {}",
        v["overflow"]
    );
    let els = v["elements"].as_array().unwrap();
    let count = |sel: &str| els.iter().filter(|e| e["sel"] == sel).count();
    for e in els {
        assert_eq!(e["visible"], true, "not visible: {e}");
    }
    for e in els.iter().filter(|e| e["sel"] == "figure.chart svg") {
        assert!(
            e["w"].as_f64().unwrap() >= 300.0,
            "a chart too small to read: {e}"
        );
    }
    // 6 runs: a headline each; 4 classic reports (fio has none); a
    // latency curve each and throughput over time for the 4 iogauge runs
    assert_eq!(count("header.top h1"), 1);
    assert_eq!(count(".headline"), 6);
    assert_eq!(count("pre.classic"), 4);
    assert_eq!(count("figure.chart svg"), 6 + 4);
    assert_eq!(count("#compare table"), 1);
    assert_eq!(count("table.ops"), 6);
    assert_eq!(count("table.env"), 6);
}
