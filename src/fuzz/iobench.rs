//! IOBENCH control files (free-form `KEYWORD = value;` with `@` switches)
//! and spectrum files (one run a line of `KEY=value` settings, `#`
//! comments): the thirteen keywords and `FILEk` in any case, each value
//! at and around its range (`USERS` 1..=100000, `NRECS` × `RECLEN` ≤ 2^50,
//! the lock table, minutes up to 30 days, `SLEEP` -1), `;` missing or
//! doubled, white space and line ends anywhere, keywords a spectrum may
//! not set, one keyword twice on a line.

use super::{Target, Verdict, file_refusal, gap, junk, lines_of, number_near, real, refusal};
use crate::suites::iobench::config::{
    Assignment, Config, KEYWORDS, MAX_FILES, MAX_LOCK_WORDS, MAX_READS, MAX_RECLEN, MAX_USERS,
    parse_spectrum_text, parse_text, resolve,
};
use proptest::prelude::*;
use std::path::Path;

pub const CONTROL: Target = Target {
    name: "iobench-control",
    ext: "ctl",
    generate: control,
    check: check_control,
};

pub const SPECTRUM: Target = Target {
    name: "iobench-spectrum",
    ext: "spectrum",
    generate: spectrum,
    check: check_spectrum,
};

/// A keyword as typed: the real ones (sometimes in lower case), FILEk,
/// and the near misses.
fn key() -> BoxedStrategy<String> {
    let names: Vec<&str> = KEYWORDS.iter().map(|k| k.0).collect();
    prop_oneof![
        8 => prop::sample::select(names).prop_map(String::from),
        1 => prop::sample::select(KEYWORDS.iter().map(|k| k.0).collect::<Vec<_>>())
            .prop_map(|k| k.to_lowercase()),
        2 => (0u32..12).prop_map(|k| format!("FILE{k}")),
        1 => prop::sample::select(vec!["FILE", "FILE01", "FILEX", "FILE9999999", "USER", "NREC"])
            .prop_map(String::from),
    ]
    .boxed()
}

/// A value fit for `key`, or near it.
fn value(key: &str) -> BoxedStrategy<String> {
    let minutes = 30 * 24 * 60;
    match key.to_ascii_uppercase().as_str() {
        "RUN" => prop_oneof![Just("r1".to_string()), "[a-z0-9,.]{1,8}", junk()].boxed(),
        "SLEEP" | "START" | "END" | "DURATION" => prop_oneof![
            6 => (0u32..100).prop_map(|n| format!("{}", f64::from(n) / 10.0)),
            3 => real(),
            2 => prop::sample::select(vec!["0", "-1", "1", "0.001", "43200", "43201", "2592000", "2592001", "-2"])
                .prop_map(String::from),
            1 => number_near(&[minutes, minutes * 60]),
        ]
        .boxed(),
        k if k.starts_with("FILE") && k != "FILES" => {
            prop_oneof![Just("f".to_string()), "[a-z/._]{1,10}", junk()].boxed()
        }
        _ => prop_oneof![
            6 => (1u32..64).prop_map(|n| n.to_string()),
            4 => number_near(&[1, 2, 4, 16, MAX_USERS, MAX_RECLEN, MAX_READS, MAX_LOCK_WORDS, 1 << 40, 1_000_000_000]),
            1 => real(),
            1 => junk(),
        ]
        .boxed(),
    }
}

/// `KEY = value;` with white space and line ends where the grammar allows
/// them, sometimes without its `;`, with two, or without a value.
fn assignment() -> BoxedStrategy<String> {
    key()
        .prop_flat_map(|k| (Just(k.clone()), value(&k), gap(), gap(), 0u8..24))
        .prop_map(|(k, v, g1, g2, form)| match form {
            0 => format!("{k}{g1}={g2}{v}"),
            1 => format!("{k}{g1}={g2};"),
            2 => format!("{k}{g1}{v};"),
            3 => format!("{k}{g1}=\n{g2}{v}\n;"),
            4 => format!("{k}{g1}={g2}{v};;"),
            5 => format!("@{v}"),
            _ => format!("{k}{g1}={g2}{v};"),
        })
        .boxed()
}

fn control() -> BoxedStrategy<Vec<u8>> {
    let line = prop::collection::vec(assignment(), 1..4)
        .prop_map(|v| v.join(" "))
        .boxed();
    lines_of(line, 16)
}

/// `KEY=value` as a spectrum file writes it, and its near misses.
fn setting() -> BoxedStrategy<String> {
    key()
        .prop_flat_map(|k| (Just(k.clone()), value(&k), 0u8..30))
        .prop_map(|(k, v, form)| match form {
            0 if k == "RUN" => format!("{k}={v},{v}"),
            1 => format!("{k} = {v}"),
            2 => format!("{k}="),
            3 => format!("={v}"),
            4 => format!("{k}={v};"),
            5 => format!("# {k}={v}"),
            _ => format!("{k}={v}"),
        })
        .boxed()
}

fn spectrum() -> BoxedStrategy<Vec<u8>> {
    let line = (prop::collection::vec(setting(), 0..3), gap())
        .prop_map(|(v, g)| v.join(if g.is_empty() { " " } else { g }))
        .boxed();
    lines_of(line, 6)
}

/// The bounds a resolved configuration keeps (`config.rs`'s ranges).
fn within(c: &Config) -> Result<(), String> {
    let month = crate::units::MAX_DURATION.as_secs_f64();
    let ok = (1..=MAX_USERS).contains(&u64::from(c.users))
        && (1..=MAX_FILES).contains(&u64::from(c.files))
        && c.nrecs >= 1
        && (1..=MAX_RECLEN).contains(&u64::from(c.reclen))
        && (1..=MAX_READS).contains(&u64::from(c.reads))
        && c.writes <= c.reads
        && c.nrecs
            .checked_mul(u64::from(c.reclen))
            .is_some_and(|b| b <= 1 << 50)
        && (!c.locking() || c.effective_locks() * u64::from(c.files) <= MAX_LOCK_WORDS)
        && (c.sleep == -1.0 || (0.0..=month).contains(&c.sleep))
        && [c.start, c.end, c.duration]
            .iter()
            .all(|m| (0.0..=month / 60.0).contains(m))
        && c.duration > 0.0
        && c.paths.keys().all(|k| *k < c.files);
    if !ok {
        return Err(format!("accepted out of bounds: {c:?}"));
    }
    Ok(())
}

/// A refusal of `resolve`: names the file's line when it comes from it.
fn resolve_refusal(msg: &str, text: &str) -> Result<Verdict, String> {
    let shown = crate::error::shown(msg);
    if shown.contains(super::FILE) {
        file_refusal(&shown, text)
    } else {
        refusal(&shown, Some("default "))
    }
}

/// `cfg` written back as a control file (every keyword, full precision)
/// must read back as the same configuration.
fn round_trip(cfg: &Config) -> Result<(), String> {
    let mut text = String::new();
    for (k, _, _) in KEYWORDS {
        let v = match k {
            "SLEEP" => cfg.sleep.to_string(),
            "START" => cfg.start.to_string(),
            "END" => cfg.end.to_string(),
            "DURATION" => cfg.duration.to_string(),
            _ => cfg.value_of(k),
        };
        text.push_str(&format!("{k} = {v};\n"));
    }
    for (k, p) in &cfg.paths {
        text.push_str(&format!("FILE{k} = {p};\n"));
    }
    let mut out = Vec::new();
    parse_text(&text, Path::new("back"), &mut out)
        .map_err(|e| format!("written back, refused: {e}\n{text}"))?;
    let back = resolve(&out, &|_| None, &[]).map_err(|e| format!("written back, refused: {e}"))?;
    let strip = |c: &Config| Config {
        path_origins: Default::default(),
        ..c.clone()
    };
    if strip(&back) != strip(cfg) {
        return Err(format!("written back and read as {back:?}, not {cfg:?}"));
    }
    let json = serde_json::to_string(cfg).map_err(|e| e.to_string())?;
    let again: Config = serde_json::from_str(&json).map_err(|e| format!("{e}: {json}"))?;
    if strip(&again) != strip(cfg) {
        return Err(format!("JSON read back as {again:?}, not {cfg:?}"));
    }
    Ok(())
}

fn check_control(input: &[u8]) -> Result<Verdict, String> {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(Verdict::Refused);
    };
    let mut out = Vec::new();
    match parse_text(text, Path::new(super::FILE), &mut out) {
        Err(e) => return file_refusal(&crate::error::shown(&e), text),
        Ok(Some((target, line))) => {
            if target.as_os_str().is_empty() || line == 0 || line > text.split('\n').count() {
                return Err(format!("a switch to {target:?} at line {line}"));
            }
        }
        Ok(None) => {}
    }
    match resolve(&out, &|_| None, &[]) {
        Err(e) => resolve_refusal(&e, text),
        Ok(cfg) => {
            within(&cfg)?;
            round_trip(&cfg)?;
            Ok(Verdict::Accepted)
        }
    }
}

fn check_spectrum(input: &[u8]) -> Result<Verdict, String> {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(Verdict::Refused);
    };
    let runs = match parse_spectrum_text(text, Path::new(super::FILE)) {
        Ok(r) => r,
        Err(e) if e.starts_with(&format!("{}: no runs", super::FILE)) => {
            return refusal(&crate::error::shown(&e), Some(super::FILE));
        }
        Err(e) => return file_refusal(&crate::error::shown(&e), text),
    };
    let mut verdict = Verdict::Accepted;
    for run in &runs {
        let overrides: Vec<Assignment> = run.clone();
        match resolve(&[], &|_| None, &overrides) {
            Err(e) => {
                resolve_refusal(&e, text)?;
                verdict = Verdict::Refused;
            }
            Ok(cfg) => {
                within(&cfg)?;
                round_trip(&cfg)?;
            }
        }
    }
    Ok(verdict)
}
