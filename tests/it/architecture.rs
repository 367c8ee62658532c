//! The layers of docs/architecture.md, enforced: a module may import only
//! from the layers the table below allows. The test reads every source
//! file under src/ and finds the crate's top-level modules it names
//! (`crate::x`, `use crate::{x, y::z}`), so a new import from a layer above
//! fails here with the file and the line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each top-level module and the modules it may import (besides itself).
fn allowed() -> BTreeMap<&'static str, Vec<&'static str>> {
    let base = ["error", "units", "data"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        base.iter().chain(extra.iter()).copied().collect()
    };
    let mut m = BTreeMap::new();
    m.insert("error", vec![]);
    // units shows the text of a value it refuses through error::shown
    m.insert("units", vec!["error"]);
    m.insert("data", vec![]);
    // --verify: the block format, the per-unit tracker of a worker's
    // requests and completions, the crash journal; plain data for the result
    m.insert("verify", with(&["engine", "measure"]));
    m.insert("measure", with(&[]));
    m.insert("env", with(&[]));
    m.insert("engine", with(&["measure"]));
    // the result's verify section is the verify module's plain data
    m.insert("report", with(&["measure", "env", "verify"]));
    m.insert("workload", with(&["engine", "measure"]));
    // the runner runs workers; it knows no workload and no result
    m.insert("runner", with(&["engine", "measure", "env"]));
    // an MPI job: the runner's phases across ranks, merged into plain data
    // the report holds
    m.insert(
        "cluster",
        with(&["runner", "engine", "measure", "env", "report"]),
    );
    // the run path: the runner's outcome into a result, and the generic
    // workload's workers
    m.insert(
        "session",
        with(&[
            "cluster", "runner", "engine", "measure", "workload", "report", "env", "verify",
        ]),
    );
    // the benchmark table lists selfscale too
    m.insert(
        "suites",
        with(&[
            "selfscale",
            "session",
            "cluster",
            "runner",
            "engine",
            "measure",
            "workload",
            "report",
            "env",
            "verify",
        ]),
    );
    m.insert(
        "selfscale",
        with(&[
            "session", "cluster", "runner", "engine", "measure", "workload", "report", "env",
        ]),
    );
    // test code: the structure-aware fuzz of the parsers it reaches
    m.insert("fuzz", with(&["suites", "selfscale"]));
    m.insert(
        "cli",
        with(&[
            "session",
            "cluster",
            "runner",
            "engine",
            "measure",
            "workload",
            "report",
            "env",
            "verify",
            "suites",
            "selfscale",
        ]),
    );
    m
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The crate modules a line names: `crate::x` and each name of
/// `use crate::{x, y::z, ...}` (the braces may span lines: `text` is the
/// rest of the file from this line on).
fn named(text: &str) -> Vec<String> {
    let mut v = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        // `$crate::` (macros) and identifiers ending in "crate" are not paths of ours
        let before = rest[..at].chars().last();
        let after = &rest[at + "crate::".len()..];
        rest = after;
        if before.is_some_and(|c| c == '$' || c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = after.strip_prefix('{') {
            // the group's own closing brace, past nested ones
            let mut d = 0i32;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    d += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    d < 0
                })
                .map_or(group.len(), |(i, _)| i);
            // top-level names of the group: split at commas outside nested braces
            let mut depth = 0;
            let mut item = String::new();
            for c in group[..end].chars().chain(std::iter::once(',')) {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        let name: String = item
                            .trim()
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        if !name.is_empty() {
                            v.push(name);
                        }
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
        } else {
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                v.push(name);
            }
        }
    }
    v
}

#[test]
fn no_module_imports_from_a_layer_above_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let rules = allowed();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let layer = first.trim_end_matches(".rs").to_string();
        if layer == "lib" || layer == "main" {
            continue;
        }
        let allow = rules.get(layer.as_str()).unwrap_or_else(|| {
            panic!("src/{layer} is in no layer: add it to this test and to docs/architecture.md")
        });
        let text = std::fs::read_to_string(f).unwrap();
        for (no, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if !code.contains("crate::") {
                continue;
            }
            // a `use crate::{` group may continue on the next lines
            let from = text
                .lines()
                .skip(no)
                .take(40)
                .collect::<Vec<_>>()
                .join("\n");
            let scope = if code.contains("crate::{") {
                from.as_str()
            } else {
                code
            };
            for m in named(scope) {
                seen += 1;
                if m != layer && !allow.contains(&m.as_str()) && rules.contains_key(m.as_str()) {
                    wrong.push(format!(
                        "src/{}:{}: {layer} imports {m}",
                        rel.display(),
                        no + 1
                    ));
                }
            }
        }
    }
    assert!(
        seen > 100,
        "the scan found only {seen} imports: is it reading src/?"
    );
    assert!(
        wrong.is_empty(),
        "imports from a layer above:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scanner_finds_paths_and_groups() {
    assert_eq!(named("use crate::engine::{Choice, Req};"), ["engine"]);
    assert_eq!(
        named("use crate::{cli, report::{RunResult, x}, units};"),
        ["cli", "report", "units"]
    );
    assert_eq!(
        named("let x = crate::runner::signals::interrupted();"),
        ["runner"]
    );
    assert!(named("$crate::error::UsageError").is_empty());
}

/// The crates built without optimisation (Cargo.toml's
/// `[profile.release.package]`) are the tests' own: none is reachable from
/// a normal or build dependency of iogauge in Cargo.lock, so the benchmark
/// itself is never built slower.
#[test]
fn only_test_crates_are_built_without_optimisation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap();
    // the sections of Cargo.toml: name → its `key = …` lines' keys
    let mut section = String::new();
    let mut normal = Vec::new();
    let mut unoptimised = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.trim_matches(|c| c == '[' || c == ']').to_string();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().to_string();
        match section.as_str() {
            "dependencies" | "build-dependencies" => normal.push(key),
            "profile.release.package" if value.contains("opt-level = 0") => unoptimised.push(key),
            _ => {}
        }
    }
    assert!(!unoptimised.is_empty(), "the override table was not found");
    // Cargo.lock: each package's dependencies (names; "name version" when ambiguous)
    let mut deps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for block in lock.split("[[package]]").skip(1) {
        let name = block
            .lines()
            .find_map(|l| l.strip_prefix("name = "))
            .unwrap()
            .trim_matches('"')
            .to_string();
        let list = block
            .split_once("dependencies = [")
            .map(|(_, rest)| rest.split(']').next().unwrap())
            .unwrap_or("");
        let names = list
            .split(',')
            .map(|d| d.trim().trim_matches('"'))
            .filter(|d| !d.is_empty())
            .map(|d| d.split(' ').next().unwrap().to_string());
        deps.entry(name).or_default().extend(names);
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = normal;
    // bindgen runs in mpi-sys's build script: Cargo builds build scripts
    // and what they pull in without optimisation whatever this table says
    let build_tools = ["bindgen"];
    while let Some(n) = todo.pop() {
        if build_tools.contains(&n.as_str()) {
            continue;
        }
        if seen.insert(n.clone()) {
            todo.extend(deps.get(&n).cloned().unwrap_or_default());
        }
    }
    for u in &unoptimised {
        assert!(
            deps.contains_key(u),
            "{u} is in [profile.release.package] but not in Cargo.lock"
        );
        assert!(
            !seen.contains(u),
            "{u} is built without optimisation but the benchmark depends on it"
        );
    }
}

/// The non-test part of a source file: everything before its first
/// `#[cfg(test)]` module (tests may build engines of their own).
fn non_test(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod ") {
        Some(i) => &text[..i],
        None => text,
    }
}

/// The non-test lines of src/ outside the folders `allowed` that name one
/// of `banned` (not in a comment), as `src/FILE:LINE: WORD`.
fn banned_lines(allowed: &[&str], banned: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut bad = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if allowed.iter().any(|a| rel.starts_with(a)) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in non_test(&text).lines().enumerate() {
            for b in banned {
                if line.contains(b) && !line.trim_start().starts_with("//") {
                    bad.push(format!("src/{rel}:{}: {b}", n + 1));
                }
            }
        }
    }
    bad
}

/// Issue 34: the runner makes every engine (from an `EngineSpec`, in
/// `runner::Io`) and owns the issue loop. Outside engine/ and runner/ no
/// code names the engine trait object, the options an engine is made with,
/// or issues a request through an engine directly.
#[test]
fn only_the_runner_makes_engines_and_issues_requests() {
    let bad = banned_lines(
        &["engine/", "runner/"],
        &[
            "EngineOpts",
            "dyn Engine",
            "engine::finish_write",
            "Engine::exec",
        ],
    );
    assert!(
        bad.is_empty(),
        "engines outside the runner:\n{}",
        bad.join("\n")
    );
}

/// Issue 34: the runner owns the issue loop. No code outside runner/ asks
/// whether to issue another request (`keep_going`, `next_request`,
/// `may_issue`): a benchmark gives a request source (`Io::drive`) or its
/// transactions (`Io::transact`), and the runner's loop asks.
#[test]
fn only_the_runner_loops_over_requests() {
    let bad = banned_lines(
        &["runner/"],
        &["ctx.keep_going()", "ctx.next_request()", "ctx.may_issue("],
    );
    assert!(
        bad.is_empty(),
        "issue loops outside the runner:\n{}",
        bad.join("\n")
    );
}

/// Files of src/cli/ that may still format figures, and why.
const CLI_REPORTS_YET_TO_MOVE: &[(&str, &str)] = &[
    (
        "scale.rs",
        "its curve report moves with its workloads into the benchmark table",
    ),
    ("selfscale.rs", "the self-scaling benchmark's own command"),
    (
        "survey.rs",
        "the survey's scorecard is the command's own text",
    ),
    ("progress.rs", "the progress bar's seconds"),
];

/// Format strings of src/cli/ that are not a report: the help's lists.
const CLI_HELP_FORMATS: &[(&str, &str)] = &[
    ("engines.rs", "{:<width$}"),
    ("mod.rs", "{:<width$}"),
    ("iozone.rs", "{name:<14}"),
];

/// The string literals of a line of code (`"…"`, escapes kept as
/// written; a literal that goes on past the line ends with it).
fn literals(line: &str) -> Vec<String> {
    let mut v = Vec::new();
    let mut cur: Option<String> = None;
    let mut chars = line
        .replace("'\"'", "' '")
        .chars()
        .collect::<Vec<_>>()
        .into_iter();
    while let Some(c) = chars.next() {
        match (&mut cur, c) {
            (None, '"') => cur = Some(String::new()),
            (None, _) => {}
            (Some(s), '\\') => {
                s.push(c);
                s.extend(chars.next());
            }
            (Some(_), '"') => v.extend(cur.take()),
            (Some(s), _) => s.push(c),
        }
    }
    v.extend(cur);
    v
}

/// What in `text` (a file of src/cli/ named `name`) is report text: a
/// string that sets a width or a precision (`{:>10}`, `{x:.1}`: the marks
/// of a table's column or a figure's digits) or that holds a report's
/// `iogauge details:` or `note:` line. The file's tests (from its
/// `#[cfg(test)] mod tests` on) are not looked at.
fn report_text_in(name: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((no, line)) = lines.next() {
        if line == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|(_, l)| l.starts_with("mod tests"))
        {
            break;
        }
        if line.trim_start().starts_with("//") {
            continue;
        }
        let mut why = Vec::new();
        for lit in literals(line) {
            if lit.contains("iogauge details:")
                || lit.starts_with("note:")
                || lit.contains("\\nnote:")
            {
                why.push("a report's line".to_string());
            }
            // each `{…}` of the string: a width or precision after its ':'
            for spec in lit.split('{').skip(1).filter_map(|s| s.split_once('}')) {
                let Some((_, format)) = spec.0.split_once(':') else {
                    continue;
                };
                let sized = format.contains('.')
                    || format
                        .trim_start_matches(['<', '>', '^'])
                        .starts_with(|c: char| c.is_ascii_alphanumeric());
                let whole = format!("{{{}}}", spec.0);
                let help = CLI_HELP_FORMATS
                    .iter()
                    .any(|(f, s)| *f == name && *s == whole);
                // `{:?}` and `{:#?}` show a value, they size nothing
                if sized && !help && !format.ends_with('?') {
                    why.push(format!("the format {whole}"));
                }
            }
        }
        if !why.is_empty() {
            found.push(format!("src/cli/{name}:{}: {}", no + 1, why.join(", ")));
        }
    }
    found
}

/// cli/ turns flags into a plan, runs the suite and writes what it gives:
/// a suite renders its own report (its `report` module), so a table or a
/// figure formatted in cli/ is a report that has crept back.
#[test]
fn cli_holds_no_report_text() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    files.sort();
    assert!(files.len() > 10, "src/cli/ has only {} files", files.len());
    let mut found = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        if CLI_REPORTS_YET_TO_MOVE.iter().any(|(n, _)| *n == name) {
            continue;
        }
        found.extend(report_text_in(&name, &std::fs::read_to_string(f).unwrap()));
    }
    assert!(
        found.is_empty(),
        "report text in cli/ (render it in the suite's report module):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_report_text_rule_finds_tables_figures_and_notes() {
    // lines of TPC-B's report as cli/tpcb.rs once wrote them
    let old = r#"
        "  tps:                 {:.1} ({} transactions in {:.2} s)",
            "  {range:<12} {:>10}  {:>5.1} %",
    s += "note: --commit-sync off: commits were not durable, which TPC-B does not allow\n";
        "\niogauge details: tpcb, engine {}, {} terminals for {:?}, seed {}, history {}",
"#;
    let found = report_text_in("tpcb.rs", old);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found[1].contains("{range:<12}") && found[1].contains("{:>10}"));
    // what cli/ still formats: a flag's value, a path, a count
    let fine = r#"
        crate::usage!("--duration {t:?}: give at least 1s");
        paths.output(format!("--plot {}", p.display()), p);
        let label = format!("DIR {}", crate::error::shown_path(&a.dir));
        let ok = unsafe { libc::getpwnam(name.as_ptr()) };
"#;
    assert_eq!(report_text_in("mod.rs", fine), Vec::<String>::new());
    // the help's flag list is help in iozone.rs only
    let help = r#"        let _ = writeln!(s, "  {name:<14} {}", f.help);"#;
    assert_eq!(report_text_in("iozone.rs", help), Vec::<String>::new());
    assert_eq!(report_text_in("tpcb.rs", help).len(), 1);
}
