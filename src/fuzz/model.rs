//! The selfscale model file: a real model (built from a synthetic device
//! by the explorer, as `selfscale` builds one) as its JSON tree, with one
//! to four of its values changed where the schema has them: numbers to
//! their limits (0, -1, 2^53 + 1, 2^64, 1e308, 1e-308), strings emptied or
//! given control characters, lists emptied, cut or doubled, keys removed
//! or added, a value of another type; sometimes the schema name changed.
//! An accepted model must predict finite figures for the workloads at the
//! corners and middle of its ranges.

use super::{Target, Verdict, refusal};
use crate::selfscale::model::{Model, Workload};
use proptest::prelude::*;
use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;

pub const TARGET: Target = Target {
    name: "model",
    ext: "json",
    generate,
    check,
};

/// The model every input starts from, as JSON.
fn seed() -> &'static Value {
    static SEED: OnceLock<Value> = OnceLock::new();
    SEED.get_or_init(|| {
        let m = crate::selfscale::tests::build(crate::selfscale::tests::separable);
        serde_json::to_value(&m).expect("a model serialises")
    })
}

/// The paths of every value in `v` (object keys and list indices).
fn paths(v: &Value, at: &mut Vec<Vec<PathStep>>, here: &mut Vec<PathStep>) {
    at.push(here.clone());
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                here.push(PathStep::Key(k.clone()));
                paths(x, at, here);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(PathStep::Index(i));
                paths(x, at, here);
                here.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn get_mut<'a>(v: &'a mut Value, path: &[PathStep]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, s| match s {
        PathStep::Key(k) => v.get_mut(k.as_str()),
        PathStep::Index(i) => v.get_mut(*i),
    })
}

const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "0.5",
    "-0.5",
    "9007199254740993",
    "18446744073709551615",
    "18446744073709551616",
    "4294967296",
    "1e308",
    "-1e308",
    "1e-308",
    "1e300",
    "-0.0",
];

/// One change to the value at a path.
fn change(v: &mut Value, op: u8, pick: usize) {
    let number = |i: usize| -> Value { serde_json::from_str(NUMBERS[i % NUMBERS.len()]).unwrap() };
    let text = [
        "",
        "\u{1b}[2J",
        "x\ny",
        "\u{2028}",
        "iogauge/result/v1",
        "nan",
    ];
    *v = match (op % 6, &*v) {
        (0..=2, Value::Number(_)) => number(pick),
        (0 | 1, Value::String(_)) => Value::String(text[pick % text.len()].into()),
        (0 | 1, Value::Array(a)) if !a.is_empty() => match pick % 3 {
            0 => Value::Array(Vec::new()),
            1 => Value::Array(a[..a.len() / 2].to_vec()),
            _ => Value::Array(a.iter().chain(a).cloned().collect()),
        },
        (0 | 1, Value::Object(o)) if !o.is_empty() => {
            let mut o = o.clone();
            let k = o.keys().nth(pick % o.len()).unwrap().clone();
            if pick.is_multiple_of(2) {
                o.remove(&k);
            } else {
                o.insert("unknown_key".into(), Value::Bool(true));
            }
            Value::Object(o)
        }
        (0..=2, Value::Bool(b)) => Value::Bool(!b),
        (3, _) => Value::Null,
        (4, _) => number(pick),
        _ => [
            Value::Array(Vec::new()),
            Value::String("x".into()),
            serde_json::json!({}),
        ][pick % 3]
            .clone(),
    };
}

fn generate() -> BoxedStrategy<Vec<u8>> {
    let changes = prop::collection::vec((any::<prop::sample::Index>(), 0u8..6, 0usize..64), 1..5);
    (changes, any::<bool>())
        .prop_map(|(changes, pretty)| {
            let mut v = seed().clone();
            for (at, op, pick) in changes {
                let mut all = Vec::new();
                paths(&v, &mut all, &mut Vec::new());
                // the root itself only rarely: most changes go inside
                let path = &all[1 + at.index(all.len() - 1)];
                if let Some(x) = get_mut(&mut v, path) {
                    change(x, op, pick);
                }
            }
            if pretty {
                serde_json::to_vec_pretty(&v).unwrap()
            } else {
                serde_json::to_vec(&v).unwrap()
            }
        })
        .boxed()
}

/// The workloads a prediction is asked for: the corners and middle of
/// the model's ranges, and each region's focal point.
fn workloads(m: &Model) -> Vec<Workload> {
    let r = &m.ranges;
    let mut out = Vec::new();
    for k in 0..3 {
        let pick_u = |a: [u64; 2]| match k {
            0 => a[0],
            1 => a[1],
            _ => a[0] / 2 + a[1] / 2,
        };
        let pick_f = |a: [f64; 2]| match k {
            0 => a[0],
            1 => a[1],
            _ => (a[0] + a[1]) / 2.0,
        };
        out.push(Workload {
            unique_bytes: pick_u(r.unique_bytes),
            size_mean: pick_u(r.size_mean),
            read_frac: pick_f(r.read_frac),
            seq_frac: pick_f(r.seq_frac),
            process_num: match k {
                0 => r.process_num[0],
                1 => r.process_num[1],
                _ => r.process_num[0] / 2 + r.process_num[1] / 2,
            }
            .max(1),
        });
    }
    out.extend(m.regions.iter().map(|r| r.focal));
    out
}

fn check(input: &[u8]) -> Result<Verdict, String> {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(Verdict::Refused);
    };
    let m = match Model::parse(text, Path::new(super::FILE)) {
        Err(e) => return refusal(&e.to_string(), Some(super::FILE)),
        Ok(m) => m,
    };
    // `predict` asks for each workload as the command does
    let mut verdict = Verdict::Accepted;
    for w in workloads(&m) {
        let _ = m.ranges.extrapolations(&w);
        match m.prediction(&w) {
            Ok(p) if p.mb_per_s.is_finite() && p.iops.is_finite() => {}
            Ok(p) => {
                return Err(format!(
                    "predicts {} MB/s, {} IO/s for {w:?}",
                    p.mb_per_s, p.iops
                ));
            }
            Err(e) => {
                refusal(&crate::error::shown(&e), None)?;
                verdict = Verdict::Refused;
            }
        }
    }
    Ok(verdict)
}
