//! The benchmark type and the benchmark table: what the rest of iogauge
//! needs of each benchmark beyond its own command.
//!
//! A benchmark says what its result holds, typed ([`Benchmark::Plan`] in
//! `config`, [`Benchmark::Figures`] in `metrics`, the figures in the JSON
//! Schema of results), and renders the report its users know from that
//! result, so the report a run prints and the one `iogauge show` prints
//! from its saved JSON are the same text. Its timed phase's workers are
//! built from a payload its untimed prepare made ([`runner::Workers`]); a
//! worker process finds here how to build its worker from that payload, so
//! a benchmark that starts processes adds its kinds to its own entry
//! ([`process`]) and nothing else.
//!
//! [`runner::Workers`]: crate::runner::Workers

use super::survey::Form;
use crate::report::RunResult;
use crate::runner::{Worker, Workers};
use anyhow::{Context, Result};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::os::fd::RawFd;

/// One benchmark, typed.
pub trait Benchmark {
    /// Its command's name (`iogauge NAME`) and its results' `benchmark`.
    const NAME: &'static str;
    /// The validated plan its command made of its flags and input files:
    /// the result's `config`.
    type Plan: Serialize + DeserializeOwned;
    /// Its headline figures and tables: the result's `metrics`, one key
    /// per field ([`RunResult::set_figures`]).
    type Figures: Serialize + DeserializeOwned + JsonSchema;
    /// The report its users know, from a result: what the command prints
    /// after a run, and `iogauge show` from the saved result.
    fn classic(plan: &Self::Plan, figures: &Self::Figures, result: &RunResult) -> String;
}

/// The classic report of a result of `B`, with its plan and figures read
/// back from the result.
pub fn classic_of<B: Benchmark>(r: &RunResult) -> Result<String> {
    let plan: B::Plan = serde_json::from_value(r.config.clone())
        .with_context(|| format!("its config is not a {} configuration", B::NAME))?;
    let figures: B::Figures = r
        .figures()
        .with_context(|| format!("its metrics are not {}'s figures", B::NAME))?;
    Ok(B::classic(&plan, &figures, r))
}

fn schema_of<B: Benchmark>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<B::Figures>()
}

/// What the table keeps of a typed benchmark.
pub struct Typed {
    /// Its classic report from a result ([`classic_of`]).
    pub show: fn(&RunResult) -> Result<String>,
    /// The schema of its figures (a reference into the generator's
    /// definitions).
    pub figures: fn(&mut SchemaGenerator) -> Schema,
}

/// The table's view of benchmark `B`.
pub const fn typed<B: Benchmark>() -> Option<Typed> {
    Some(Typed {
        show: classic_of::<B>,
        figures: schema_of::<B>,
    })
}

/// Builds worker `index` of a run from the run's payload.
pub type Build = fn(&[u8], usize) -> Result<Box<dyn Worker>>;

/// A worker a benchmark may start as a process: its kind (named in the
/// run's process spec) and how it is built.
pub struct ProcessKind {
    pub kind: &'static str,
    pub build: Build,
}

/// The table's line for workers of `W` run as processes: each child
/// builds its worker alone from the run's payload.
pub const fn process<W: Workers + 'static>() -> ProcessKind
where
    W::Worker: 'static,
{
    ProcessKind {
        kind: W::KIND,
        build: crate::runner::workers::build::<W>,
    }
}

/// A service a benchmark starts beside its workers (IOBENCH's ioserver),
/// run with the descriptor it inherits.
pub struct Service {
    pub name: &'static str,
    pub serve: fn(RawFd) -> Result<()>,
}

/// One line of the benchmark table.
pub struct Entry {
    /// Its command's name (`iogauge NAME`) and its results' `benchmark`.
    pub name: &'static str,
    /// The workers it may run as processes.
    pub processes: &'static [ProcessKind],
    /// The services it may start.
    pub services: &'static [Service],
    /// Its typed result and classic report ([`Benchmark`]).
    pub typed: Option<Typed>,
    /// Its short form in `iogauge survey`; `None`: not in the survey.
    pub survey: Option<Form>,
}

const fn plain(name: &'static str) -> Entry {
    Entry {
        name,
        processes: &[],
        services: &[],
        typed: None,
        survey: None,
    }
}

/// Every benchmark, in the order of the command table.
pub const BENCHMARKS: &[Entry] = &[
    Entry {
        name: "run",
        processes: &[process::<crate::session::generic::GenericRun>()],
        services: &[],
        survey: Some(super::run::survey::form),
        typed: typed::<crate::session::generic::GenericRun>(),
    },
    Entry {
        typed: typed::<super::iostone::IoStone>(),
        survey: Some(super::iostone::survey::form),
        ..plain("iostone")
    },
    Entry {
        processes: &[process::<super::postmark::PostMark>()],
        typed: typed::<super::postmark::PostMark>(),
        survey: Some(super::postmark::survey::form),
        ..plain("postmark")
    },
    Entry {
        name: "iobench",
        processes: &[process::<super::iobench::IoBench>()],
        services: &[Service {
            name: super::iobench::SERVICE,
            serve: super::iobench::serve,
        }],
        survey: Some(super::iobench::survey::form),
        typed: typed::<super::iobench::IoBench>(),
    },
    Entry {
        name: "bonnie",
        processes: &[process::<super::bonnie::Seekers>()],
        services: &[],
        survey: Some(super::bonnie::survey::form),
        typed: typed::<super::bonnie::Bonnie>(),
    },
    Entry {
        name: "iozone",
        processes: &[process::<super::iozone::throughput::Children>()],
        services: &[],
        survey: Some(super::iozone::survey::form),
        typed: typed::<super::iozone::figures::IoZone>(),
    },
    Entry {
        typed: typed::<super::ffsb::figures::Ffsb>(),
        survey: Some(super::ffsb::survey::form),
        ..plain("ffsb")
    },
    Entry {
        typed: typed::<super::scientific::Scientific>(),
        survey: Some(super::scientific::survey::form),
        ..plain("scientific")
    },
    Entry {
        typed: typed::<super::tpcb::run::Tpcb>(),
        survey: Some(super::tpcb::survey::form),
        ..plain("tpcb")
    },
    Entry {
        processes: &[process::<super::laddis::Laddis>()],
        typed: typed::<super::laddis::Laddis>(),
        survey: Some(super::laddis::survey::form),
        ..plain("laddis")
    },
    Entry {
        typed: typed::<super::andrew::Andrew>(),
        survey: Some(super::andrew::survey::form),
        ..plain("andrew")
    },
    Entry {
        name: "sdet",
        processes: &[process::<super::sdet::Sdet>()],
        services: &[],
        survey: Some(super::sdet::survey::form),
        typed: typed::<super::sdet::Sdet>(),
    },
    Entry {
        typed: typed::<crate::selfscale::SelfScale>(),
        survey: Some(super::selfscale::survey::form),
        ..plain("selfscale")
    },
];

/// The benchmark called `name`.
pub fn find(name: &str) -> Option<&'static Entry> {
    BENCHMARKS.iter().find(|b| b.name == name)
}

/// The survey form of the benchmark called `name`, for the command table
/// (a constant, hence the loop).
pub const fn survey_of(name: &str) -> Option<Form> {
    let mut i = 0;
    while i < BENCHMARKS.len() {
        if same(BENCHMARKS[i].name, name) {
            return BENCHMARKS[i].survey;
        }
        i += 1;
    }
    None
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The process kind called `kind`, whichever benchmark has it.
pub fn process_kind(kind: &str) -> Option<&'static ProcessKind> {
    BENCHMARKS
        .iter()
        .flat_map(|b| b.processes)
        .find(|p| p.kind == kind)
}

/// The service called `name`, whichever benchmark has it.
pub fn service(name: &str) -> Option<&'static Service> {
    BENCHMARKS
        .iter()
        .flat_map(|b| b.services)
        .find(|s| s.name == name)
}

/// The classic report of a saved result, or of each result of a
/// collection in turn under its name.
pub fn show(doc: serde_json::Value) -> Result<String> {
    if doc.get("entries").is_some() {
        let c: crate::report::Collection =
            serde_json::from_value(doc).context("not an iogauge collection of results")?;
        let mut out = String::new();
        for (i, e) in c.entries.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out += &format!("== {} ==\n", e.name);
            out += &show_result(&e.result).with_context(|| format!("entry '{}'", e.name))?;
            out += &crate::report::warn::render(&e.result);
        }
        return Ok(out);
    }
    let r: RunResult = serde_json::from_value(doc).context("not an iogauge result")?;
    // the warnings after the classic report, as the run printed them
    Ok(show_result(&r)? + &crate::report::warn::render(&r))
}

/// The classic report of one result, by its benchmark.
pub fn show_result(r: &RunResult) -> Result<String> {
    let Some(b) = find(&r.benchmark) else {
        anyhow::bail!(
            "'{}' is not a benchmark of iogauge",
            crate::error::shown(&r.benchmark)
        );
    };
    let Some(t) = &b.typed else {
        anyhow::bail!("{}'s results cannot be shown again yet", b.name);
    };
    (t.show)(r)
}

/// The JSON Schema of every typed benchmark's figures: the definitions,
/// kept in the schema file under `$defs/figures/$defs`, and for the
/// `result` definition one condition per benchmark: `metrics` of a
/// complete result whose `benchmark` is its name are its figures.
pub fn figures_schema() -> (
    serde_json::Map<String, serde_json::Value>,
    Vec<serde_json::Value>,
) {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.definitions_path = "/$defs/figures/$defs".into();
    let mut g = settings.into_generator();
    let mut conditions = Vec::new();
    for b in BENCHMARKS {
        let Some(t) = &b.typed else { continue };
        let figures = (t.figures)(&mut g);
        conditions.push(serde_json::json!({
            "if": {
                "properties": {
                    "benchmark": { "const": b.name },
                    "complete": { "const": true }
                },
                "required": ["benchmark", "complete"]
            },
            "then": { "properties": { "metrics": figures } }
        }));
    }
    (g.take_definitions(true), conditions)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/result-schema.json holds the schema of every typed
    /// benchmark's figures as the types say; `IOGAUGE_BLESS=1` writes it.
    #[test]
    fn the_result_schema_holds_every_benchmarks_figures() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/result-schema.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let (defs, conditions) = figures_schema();
        doc["$defs"]["figures"] = serde_json::json!({
            "description": "Each benchmark's figures (a result's metrics), written from the types that hold them.",
            "$defs": defs
        });
        doc["$defs"]["result"]["allOf"] = serde_json::Value::Array(conditions);
        let want = serde_json::to_string_pretty(&doc).unwrap() + "\n";
        if std::env::var_os("IOGAUGE_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(&path, &want).unwrap();
            return;
        }
        let have: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(
            have == doc,
            "docs/result-schema.json does not hold the figures as the types say (IOGAUGE_BLESS=1 cargo test --release --lib the_result_schema rewrites it)"
        );
    }

    /// Every benchmark's result is typed: `iogauge show` prints it again
    /// and the schema holds its figures.
    #[test]
    fn every_benchmark_is_typed() {
        let untyped: Vec<&str> = BENCHMARKS
            .iter()
            .filter(|b| b.typed.is_none())
            .map(|b| b.name)
            .collect();
        assert!(untyped.is_empty(), "untyped: {untyped:?}");
    }

    #[test]
    fn names_kinds_and_services_are_unique() {
        let mut names: Vec<&str> = BENCHMARKS.iter().map(|b| b.name).collect();
        let mut kinds: Vec<&str> = BENCHMARKS
            .iter()
            .flat_map(|b| b.processes.iter().map(|p| p.kind))
            .chain(
                BENCHMARKS
                    .iter()
                    .flat_map(|b| b.services.iter().map(|s| s.name)),
            )
            .collect();
        for v in [&mut names, &mut kinds] {
            let n = v.len();
            v.sort_unstable();
            v.dedup();
            assert_eq!(v.len(), n, "{v:?}");
        }
        assert!(process_kind("iobench-user").is_some());
        assert!(process_kind("nope").is_none());
        assert_eq!(find("bonnie").unwrap().processes.len(), 1);
    }
}
