//! The README's examples name only input files that ship with iogauge, and
//! every shipped input file passes `--check`.

use crate::common::*;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The extensions of the input files iogauge reads.
const INPUTS: &[&str] = &[".pmrc", ".ctl", ".ffsb", ".spectrum", ".mix"];

/// Each `iogauge …` line inside the README's code blocks, as tokens.
fn readme_commands() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut inside = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            inside = !inside;
            continue;
        }
        if !inside {
            continue;
        }
        // `… | iogauge postmark`, `iogauge …`
        if let Some(at) = line.find("iogauge ") {
            let command = line[at..].split('#').next().unwrap();
            lines.push(command.split_whitespace().map(str::to_string).collect());
        }
    }
    lines
}

#[test]
fn the_readme_names_only_shipped_input_files() {
    let commands = readme_commands();
    assert!(commands.len() > 40, "{} examples found", commands.len());
    let mut inputs = 0;
    for c in &commands {
        // the file a command reads first, where it takes one
        let first = c.get(2).filter(|t| !t.starts_with('-'));
        let reads_a_file = ["postmark", "iobench", "ffsb"].contains(&c[1].as_str());
        for (i, t) in c.iter().enumerate() {
            let input = INPUTS.iter().any(|e| t.ends_with(e)) || (reads_a_file && i == 2);
            if !input || (i == 2 && first.is_none()) {
                continue;
            }
            inputs += 1;
            assert!(
                root().join(t).is_file(),
                "the README runs `{}` with {t}, which iogauge does not ship",
                c.join(" ")
            );
        }
    }
    assert!(inputs >= 8, "{inputs} input files named");
}

/// Every file under examples/ is read and checked as a run would read it.
#[test]
fn every_shipped_input_file_passes_check() {
    let dir = work_dir();
    let d = p(dir.path());
    let mut checked = 0;
    for sub in ["postmark", "iobench", "ffsb"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples").join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|f| f.extension().is_some_and(|e| e != "md"))
            .collect();
        files.sort();
        for f in &files {
            let f = p(f);
            let args: Vec<&str> = match sub {
                "postmark" => vec!["postmark", f, "--dir", d],
                "ffsb" => vec!["ffsb", f, "--location", d, "--allow-aging"],
                _ if f.ends_with(".ctl") => vec!["iobench", f, "--dir", d, "--ignore-env"],
                _ => vec!["iobench", "--spectrum", f, "--dir", d],
            };
            let out = iogauge()
                .args(&args)
                .arg("--check")
                .write_stdin("")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                String::from_utf8_lossy(&out.stdout).ends_with("checked; nothing was run\n"),
                "{args:?}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 12, "{checked} files checked");
    assert_untouched(Path::new(d));
}

/// Issue 35: every benchmark's page says whether a queue depth applies to
/// it and why, in a section of its own.
#[test]
fn every_benchmark_page_says_whether_depth_applies() {
    use iogauge::cli::{COMMANDS, Kind};
    let pages: Vec<&str> = COMMANDS
        .iter()
        .filter(|e| e.kind == Kind::Benchmark || ["survey", "scale"].contains(&e.name))
        .filter_map(|e| e.doc)
        .collect();
    assert!(pages.len() >= 15, "{pages:?}");
    for page in pages {
        let text = std::fs::read_to_string(root().join(page)).unwrap();
        let section = text
            .split("\n## Queue depth")
            .nth(1)
            .unwrap_or_else(|| panic!("{page} has no 'Queue depth' section"));
        let first = section.trim_start_matches(|c| c != '\n').trim_start();
        assert!(
            first.starts_with("Applies") || first.starts_with("Does not apply"),
            "{page}: the section starts by saying whether depth applies: {first:.60}"
        );
    }
}
