//! LADDIS mix files: `operation percent` lines naming the eighteen NFS
//! operations, percentages that add up to 100 (most inputs) or miss it by
//! a little or a lot (32-bit limits, negative, `%` suffix, fractions),
//! operations repeated or unknown, a third field, `#` comments anywhere.

use super::{Target, Verdict, file_refusal, gap, junk, number_near};
use crate::suites::laddis::mix::{Mix, NfsOp};
use proptest::prelude::*;
use std::path::Path;

pub const TARGET: Target = Target {
    name: "laddis-mix",
    ext: "mix",
    generate,
    check,
};

fn op() -> BoxedStrategy<String> {
    prop_oneof![
        10 => prop::sample::select(NfsOp::ALL.iter().map(|o| o.name()).collect::<Vec<_>>())
            .prop_map(String::from),
        1 => prop::sample::select(vec!["LOOKUP", "lookups", "nfs", ""]).prop_map(String::from),
    ]
    .boxed()
}

/// A mix whose percentages add up to 100: cut points in 0..=100.
fn exact() -> BoxedStrategy<Vec<(String, String)>> {
    (
        prop::collection::vec(0u32..=100, 0..8),
        prop::collection::vec(op(), 9),
    )
        .prop_map(|(mut cuts, ops)| {
            cuts.push(0);
            cuts.push(100);
            cuts.sort();
            cuts.windows(2)
                .zip(ops)
                .map(|(w, op)| (op, (w[1] - w[0]).to_string()))
                .collect()
        })
        .boxed()
}

/// A line of a mix file from an operation and its percentage.
fn line((op, pct): (String, String)) -> BoxedStrategy<String> {
    (
        gap(),
        0u8..14,
        number_near(&[0, 1, 100, u64::from(u32::MAX)]),
        junk(),
    )
        .prop_map(move |(g, form, n, j)| match form {
            0 => format!("{op}{g}{pct}%"),
            1 => format!("{op}{g}{pct} # a note"),
            2 => format!("  {op}{g}{pct}  "),
            3 => format!("{op}{g}{n}"),
            4 => format!("{op}{g}{pct} extra"),
            5 => format!("{op}{g}-{pct}"),
            6 => format!("{op}{g}{pct}.5"),
            7 => format!("{op}{g}{j}"),
            8 => format!("# {op} {pct}"),
            _ => format!("{op}{g}{pct}"),
        })
        .boxed()
}

fn generate() -> BoxedStrategy<Vec<u8>> {
    exact()
        .prop_flat_map(|pairs| {
            let lines: Vec<BoxedStrategy<String>> = pairs.into_iter().map(line).collect();
            (lines, any::<prop::sample::Index>(), 0u8..4)
        })
        .prop_flat_map(|(mut lines, at, dup)| {
            if dup == 0 && !lines.is_empty() {
                let i = at.index(lines.len());
                lines.insert(i, lines[i].clone());
            }
            if dup == 1 {
                lines.push(String::new());
            }
            super::join_lines(lines)
        })
        .boxed()
}

fn check(input: &[u8]) -> Result<Verdict, String> {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(Verdict::Refused);
    };
    let mix = match Mix::parse(text, Path::new(super::FILE)) {
        Err(e) => return file_refusal(&e.to_string(), text),
        Ok(m) => m,
    };
    let total: u64 = mix.weights().iter().map(|&w| u64::from(w)).sum();
    if total != u64::from(Mix::TOTAL) {
        return Err(format!("accepted a mix of {total} %"));
    }
    // every draw lands on an operation with a weight
    for u in [0, 1, u64::MAX / 2, u64::MAX - 1, u64::MAX] {
        let op = mix.choose(u);
        if mix.weight(op) == 0 {
            return Err(format!("draw {u} chose {op}, of weight 0"));
        }
    }
    // written back as a mix file, read back the same
    let written: String = NfsOp::ALL
        .iter()
        .filter(|o| mix.weight(**o) > 0)
        .map(|o| format!("{} {}\n", o.name(), mix.weight(*o)))
        .collect();
    let back = Mix::parse(&written, Path::new(super::FILE))
        .map_err(|e| format!("written back, refused: {e}"))?;
    if back != mix {
        return Err(format!("written back and read as {back:?}, not {mix:?}"));
    }
    let json = serde_json::to_string(&mix).map_err(|e| e.to_string())?;
    let again: Mix = serde_json::from_str(&json).map_err(|e| format!("{e}: {json}"))?;
    if again != mix {
        return Err(format!("JSON read back as {again:?}, not {mix:?}"));
    }
    Ok(Verdict::Accepted)
}
