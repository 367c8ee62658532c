//! IOzone flag lines: every letter of [`FLAGS`] (and letters it does not
//! take), bundled (`-az`, `-Rb out`) or alone, values attached or in the
//! next argument, `-+` extensions with their letter attached or next,
//! sizes in kB or with k/m/g around the record and file limits, child
//! counts around 1024, test numbers 0..=12 and beyond, `-F` with its file
//! list, iogauge's own long options and `--`.

use super::{Target, Verdict, args_bytes, args_of, junk, number_near, refusal};
use crate::suites::iozone::flags::{
    Config, FLAGS, MAX_RECORD_KB, MAX_STREAMS, parse_with_page_size,
};
use crate::suites::iozone::grid;
use proptest::prelude::*;

pub const TARGET: Target = Target {
    name: "iozone",
    ext: "args.json",
    generate,
    check,
};

/// A value for flag `name`.
fn value(name: &str) -> BoxedStrategy<String> {
    let sizes = || {
        (
            number_near(&[1, 4, 64, MAX_RECORD_KB, 1 << 30, 1 << 50]),
            prop::sample::select(vec!["", "", "k", "m", "g", "K", "M", "G", "t", "kb"]),
        )
            .prop_map(|(n, s)| format!("{n}{s}"))
    };
    match name {
        "s" | "r" | "n" | "g" | "y" | "q" => prop_oneof![6 => sizes(), 1 => junk()].boxed(),
        "i" => prop_oneof![(0u32..14).prop_map(|n| n.to_string()), number_near(&[12])].boxed(),
        "t" | "l" | "u" => number_near(&[1, 2, u64::from(MAX_STREAMS)]),
        "+p" => number_near(&[0, 1, 50, 100]),
        "+x" => number_near(&[0, 1, 2, 16]),
        "H" | "k" => number_near(&[0, 1, 32, u64::from(u16::MAX)]),
        "j" | "d" => number_near(&[0, 1, 17, u64::from(u32::MAX)]),
        "f" | "b" | "U" | "F" => prop_oneof![
            Just("f1".to_string()),
            Just("-".to_string()),
            "[a-z/._]{1,10}",
            junk(),
        ]
        .boxed(),
        _ => junk(),
    }
}

/// One or more arguments: a flag and its value as the grammar allows.
fn flag() -> BoxedStrategy<Vec<String>> {
    let letters: Vec<&'static str> = FLAGS.iter().map(|f| f.name).collect();
    let known = prop::sample::select(letters).prop_flat_map(|name| {
        let spec = FLAGS.iter().find(|f| f.name == name).unwrap();
        let takes = spec.value.is_some();
        (Just(name), value(name), 0u8..6, Just(takes))
    });
    let booleans: Vec<&'static str> = FLAGS
        .iter()
        .filter(|f| f.value.is_none() && !f.name.starts_with('+'))
        .map(|f| f.name)
        .collect();
    prop_oneof![
        10 => known.prop_map(|(name, v, form, takes)| {
            let ext = name.strip_prefix('+');
            match (takes, form, ext) {
                (false, 0, _) => vec![format!("-{name}{v}")],
                (false, _, _) => vec![format!("-{name}")],
                (true, 0, None) => vec![format!("-{name}{v}")],
                (true, 1, _) => vec![format!("-{name}")],
                (true, 2, Some(l)) => vec!["-+".to_string(), format!("{l}{v}")],
                (true, 3, Some(l)) => vec!["-+".to_string(), l.to_string(), v],
                (true, 4, _) if name == "F" => vec!["-F".to_string(), v, "f2".to_string(), "f3".to_string()],
                _ => vec![format!("-{name}"), v],
            }
        }),
        2 => prop::collection::vec(prop::sample::select(booleans), 1..4)
            .prop_map(|b| vec![format!("-{}", b.concat())]),
        1 => prop::sample::select(vec!["-Rb", "-az", "-h", "-v", "-Q", "-+", "-+z", "-", "--", "x", "-é"])
            .prop_map(|s| vec![s.to_string()]),
        1 => prop::sample::select(vec!["--json", "--settle=1", "--dir", "--engine=null"])
            .prop_map(|s| vec![s.to_string(), "out".to_string()]),
    ]
    .boxed()
}

fn generate() -> BoxedStrategy<Vec<u8>> {
    prop::collection::vec(flag(), 0..8)
        .prop_map(|v| args_bytes(&v.concat()))
        .boxed()
}

fn within(c: &Config) -> Result<(), String> {
    let max_kb = crate::units::MAX_SIZE / 1024;
    let ok = c
        .record_kb
        .iter()
        .all(|&r| (1..=MAX_RECORD_KB).contains(&r))
        && c.file_kb.iter().all(|&f| (1..=max_kb).contains(&f))
        && c.children.iter().all(|&n| (1..=MAX_STREAMS).contains(&n))
        && c.read_pct.is_none_or(|p| (1..=100).contains(&p))
        && c.multiplier >= 2
        && c.async_io.is_none_or(|a| a.depth >= 1);
    if !ok {
        return Err(format!("accepted out of bounds: {c:?}"));
    }
    Ok(())
}

fn check(input: &[u8]) -> Result<Verdict, String> {
    let args = args_of(input);
    match parse_with_page_size(&args, 4096) {
        Err(e) => refusal(&crate::error::shown(&e), None),
        Ok(p) => {
            within(&p.config)?;
            // the runs the configuration makes: a grid of bounded size
            let runs = grid::runs(&p.config);
            if runs.len() > 100_000 {
                return Err(format!("{} runs from one flag line", runs.len()));
            }
            let json = serde_json::to_string(&p.config).map_err(|e| e.to_string())?;
            let back: Config = serde_json::from_str(&json).map_err(|e| format!("{e}: {json}"))?;
            if back != p.config {
                return Err(format!("JSON read back as {back:?}, not {:?}", p.config));
            }
            Ok(Verdict::Accepted)
        }
    }
}
