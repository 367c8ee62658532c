//! `iogauge report RESULT.json… -o report.html`: saved results (and fio's
//! JSON output) as one self-contained HTML page.
//!
//! This file reads the documents and adds what only the benchmarks know:
//! each result's classic report (the benchmark's own renderer, as `iogauge
//! show` prints it), IOzone's heatmaps and an IOBENCH spectrum's figures;
//! [`crate::report::html`] draws the rest and lays out the page.

use super::common::Status;
use crate::error::{UsageError, shown};
use crate::report::html::{self, Doc, Figure, Page, Run};
use crate::report::{Collection, RunResult};
use anyhow::{Context, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Make one HTML page of saved results: each run's headline figures, its
/// classic report, latency percentile curves, throughput over time, the
/// benchmark's own graphs and the environment; with several runs, a table
/// of them side by side, each figure coloured by its rank.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Results written by --json (single results and collections), or fio's
    /// JSON output (--output-format=json or json+).
    #[arg(value_name = "RESULT.json", required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Where to write the page ('-': standard output).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "report.html",
        required = true
    )]
    pub output: PathBuf,
    /// The page's title. Default: "iogauge report".
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,
}

impl super::Cmd for Args {
    fn main(self) -> Result<Status> {
        check_output(&self.output)?;
        // runs are labelled by file name, unless two inputs share one
        let base = |f: &PathBuf| f.file_name().map(|n| n.to_string_lossy().into_owned());
        let mut names: Vec<Option<String>> = self.files.iter().map(base).collect();
        names.sort();
        let unique = names.windows(2).all(|w| w[0] != w[1]) && names.iter().all(Option::is_some);
        let mut docs = Vec::new();
        for f in &self.files {
            let label = match base(f) {
                Some(n) if unique => n,
                _ => f.display().to_string(),
            };
            docs.push(read_doc(f, &label)?);
        }
        let page = Page {
            title: self
                .title
                .clone()
                .unwrap_or_else(|| "iogauge report".into()),
            docs,
        };
        let text = html::render(&page);
        crate::report::export::emit(&self.output, text.as_bytes(), "HTML")
            .map_err(|e| UsageError::new(format!("{e:#}")))?;
        Ok(Status::Done)
    }
}

/// Refuse, before any work, an output that cannot be a file: a directory,
/// or a path whose directory does not exist.
fn check_output(out: &Path) -> Result<()> {
    if out == Path::new("-") {
        return Ok(());
    }
    let name = crate::error::shown_path(out);
    if out.is_dir() {
        crate::usage!("-o {name}: is a directory; give the HTML file's path");
    }
    let dir = crate::runner::names::dir_of(out);
    if !dir.is_dir() {
        crate::usage!(
            "-o {name}: the directory {} does not exist",
            crate::error::shown_path(dir)
        );
    }
    Ok(())
}

fn read_doc(path: &Path, label: &str) -> Result<Doc> {
    let name = crate::error::shown_path(path);
    let text =
        std::fs::read_to_string(path).map_err(|e| UsageError::new(format!("{name}: {e}")))?;
    let doc: Value = serde_json::from_str(&text)
        .map_err(|e| UsageError::new(format!("{name}: not JSON ({e})")))?;
    classify(&path.display().to_string(), label, doc)
        .map_err(|e| UsageError::new(format!("{name}: {e:#}")).into())
}

/// What the document is, and its runs.
fn classify(file: &str, label: &str, doc: Value) -> Result<Doc> {
    if html::fio::is_fio(&doc) {
        let version = doc["fio version"].as_str().unwrap_or("fio").to_string();
        let runs = html::fio::results(&doc)?
            .into_iter()
            .map(|(job, r)| Run {
                label: format!("{label}: {job}"),
                raw: Value::Null,
                result: r,
                classic: None,
                figures: Vec::new(),
            })
            .collect();
        return Ok(Doc {
            file: file.to_string(),
            kind: format!("{version} JSON output"),
            collection: None,
            figures: Vec::new(),
            runs,
        });
    }
    let schema = doc
        .get("schema")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if !schema.starts_with("iogauge/") {
        anyhow::bail!(
            "not an iogauge result, collection or fio JSON output (schema: {})",
            if schema.is_empty() {
                "none".to_string()
            } else {
                format!("'{}'", shown(&schema))
            }
        );
    }
    // --repeat's series: each repetition's document in turn, its runs
    // side by side in the table across runs
    if schema == crate::report::repeats::SCHEMA {
        let docs = doc["runs"].as_array().cloned().unwrap_or_default();
        if docs.is_empty() {
            anyhow::bail!("a --repeat series with no run");
        }
        let mut runs = Vec::new();
        for (i, mut d) in docs.into_iter().enumerate() {
            let k = d["index"].as_u64().unwrap_or(i as u64 + 1);
            let one = classify(file, &format!("{label}: repeat {k}"), d["document"].take())
                .with_context(|| format!("repeat {k}"))?;
            runs.extend(one.runs);
        }
        return Ok(Doc {
            file: file.to_string(),
            kind: format!("--repeat series of {} runs", runs.len()),
            collection: Some((
                doc["complete"].as_bool().unwrap_or(false),
                doc["error"].as_str().map(str::to_string),
            )),
            figures: Vec::new(),
            runs,
        });
    }
    if doc.get("entries").is_some() {
        let raws: Vec<Value> = doc["entries"]
            .as_array()
            .map(|v| v.iter().map(|e| e["result"].clone()).collect())
            .unwrap_or_default();
        // an IOBENCH spectrum (any other collection draws none)
        let figures = spectrum(file, &doc);
        let c: Collection = serde_json::from_value(doc)
            .map_err(|e| anyhow::anyhow!("not an iogauge collection of results ({e})"))?;
        let runs = c
            .entries
            .into_iter()
            .zip(raws)
            .map(|(e, raw)| run(format!("{label}: {}", e.name), e.result, raw))
            .collect();
        return Ok(Doc {
            file: file.to_string(),
            kind: format!("collection {schema}"),
            collection: Some((c.complete, c.error)),
            figures,
            runs,
        });
    }
    if doc.get("benchmark").is_none() {
        anyhow::bail!(
            "not an iogauge result or collection (schema '{}')",
            shown(&schema)
        );
    }
    let r: RunResult = serde_json::from_value(doc.clone())
        .map_err(|e| anyhow::anyhow!("not an iogauge result ({e})"))?;
    Ok(Doc {
        file: file.to_string(),
        kind: "iogauge result".into(),
        collection: None,
        figures: Vec::new(),
        runs: vec![run(label.to_string(), r, doc)],
    })
}

/// One iogauge result on the page: its classic report and its
/// benchmark's own graphs.
fn run(label: String, r: RunResult, raw: Value) -> Run {
    let classic = Some(crate::suites::benchmark::show_result(&r).map_err(|e| format!("{e:#}")));
    let figures = if r.benchmark == "iozone" {
        iozone_heatmaps(&r)
    } else {
        Vec::new()
    };
    Run {
        label,
        result: r,
        raw,
        classic,
        figures,
    }
}

/// IOzone's heatmaps, one per test measured (single and auto mode).
fn iozone_heatmaps(r: &RunResult) -> Vec<Figure> {
    use crate::suites::iozone::{figures, heatmaps};
    let (Ok(plan), Ok(f)) = (
        serde_json::from_value::<figures::Plan>(r.config.clone()),
        r.figures::<figures::Figures>(),
    ) else {
        return Vec::new();
    };
    if f.cells.is_none() {
        return Vec::new();
    }
    let table = f.table(&plan.config);
    heatmaps::drawn(&table)
        .into_iter()
        .filter_map(|c| {
            let svg = heatmaps::heatmap_svg(&table, c, &plan.command_line).ok()?;
            Some(Figure {
                title: format!("IOzone {}: file size × record size.", c.title()),
                svg,
            })
        })
        .collect()
}

/// An IOBENCH spectrum's figures (the run profile and the results).
fn spectrum(file: &str, doc: &Value) -> Vec<Figure> {
    use crate::suites::iobench;
    let Ok(series) = iobench::series_of(file, doc) else {
        return Vec::new();
    };
    iobench::figures(&[series])
        .map(|v| {
            v.into_iter()
                .map(|f| Figure {
                    title: format!("IOBENCH spectrum: {}", f.file_name.trim_end_matches(".svg")),
                    svg: f.svg,
                })
                .collect()
        })
        .unwrap_or_default()
}
