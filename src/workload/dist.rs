//! Offset distributions for random requests, with fio's semantics
//! (`random_distribution=`; docs/run.md, "--distribution").
//!
//! A [`Dist`] is what the user wrote (parsed by [`parse`] from fio's string
//! syntax); a [`Sampler`] draws block numbers from it over a data set of `n`
//! blocks. The skewed generators compute what fio's do (its `lib/zipf.c`
//! and `lib/gauss.c`, and the zone tables of `io_u.c`): the same zeta
//! precompute, the same multiplicative hash that scatters ranks over the
//! blocks, the same 32-bit uniform draws, but from iogauge's PRNG, so one
//! seed gives one stream.
//!
//! - `random`: uniform.
//! - `zipf[:θ[:centre]]` (θ > 0, θ ≠ 1; default 1.1): rank k is drawn with
//!   weight 1/k^θ by Gray's approximation, then hashed onto a block.
//! - `pareto[:h[:centre]]` (0 < h < 1; default 0.2): rank (n−1)·u^(ln h/ln(1−h)).
//! - `normal[:σ[:centre]]` (0 ≤ σ < 100; default 0): the mean of 12 uniform
//!   draws, widened by a uniform deviation of σ % of the blocks.
//! - `zoned:a/s:a/s…`: a % of the requests go uniformly to the next s % of
//!   the blocks; `zoned_abs:a/SIZE:…` the same with absolute sizes.
//!   Either may be given per direction, `reads,writes[,trims]`.
//!
//! Without a centre, zipf and pareto rotate the hashed ranks by a random
//! offset drawn once per sampler (so each worker's hot blocks are its own,
//! as each fio job's are); with one, the rotation is centre·n. normal
//! rotates by (centre − ½)·n.

use super::{Prng, below};
use rand_xoshiro::rand_core::Rng;
use std::fmt;

/// fio's `GOLDEN_RATIO_64`: the multiplicative hash of `__hash_u64`.
const GOLDEN_RATIO_64: u64 = 0x61C8_8646_80B5_83EB;
/// fio caps the zeta precompute at 10 M terms.
const ZIPF_MAX_GEN: u64 = 10_000_000;
/// fio's `GAUSS_ITERS`.
const GAUSS_ITERS: u64 = 12;
/// fio's default zipf θ and pareto h.
const DEF_ZIPF: f64 = 1.1;
const DEF_PARETO: f64 = 0.2;
/// fio's `ZONESPLIT_MAX`.
const ZONES_MAX: usize = 256;

/// One zone of a zoned distribution: `access` % of the requests go to
/// `size` (per cent of the data set for `zoned`, bytes for `zoned_abs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zone {
    pub access: u32,
    pub size: u64,
}

/// A distribution of random offsets, as the user wrote it.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Dist {
    #[default]
    Random,
    Zipf {
        theta: f64,
        center: Option<f64>,
    },
    Pareto {
        h: f64,
        center: Option<f64>,
    },
    Normal {
        dev: f64,
        center: Option<f64>,
    },
    /// Per direction (read, write, trim); an empty list is uniform.
    Zoned {
        absolute: bool,
        zones: [Vec<Zone>; 3],
    },
}

/// The direction of a request, as zoned distributions tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Read = 0,
    Write = 1,
    Trim = 2,
}

impl Dist {
    /// Plain `random`, the default.
    pub fn is_random(&self) -> bool {
        *self == Dist::Random
    }

    pub fn is_uniform(&self) -> bool {
        match self {
            Dist::Random => true,
            Dist::Zoned { zones, .. } => zones.iter().all(Vec::is_empty),
            _ => false,
        }
    }
}

/// The canonical form, which [`parse`] reads back to the same value.
impl fmt::Display for Dist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let centred = |f: &mut fmt::Formatter<'_>, name: &str, v: f64, c: &Option<f64>| match c {
            Some(c) => write!(f, "{name}:{v}:{c}"),
            None => write!(f, "{name}:{v}"),
        };
        match self {
            Dist::Random => write!(f, "random"),
            Dist::Zipf { theta, center } => centred(f, "zipf", *theta, center),
            Dist::Pareto { h, center } => centred(f, "pareto", *h, center),
            Dist::Normal { dev, center } => centred(f, "normal", *dev, center),
            Dist::Zoned { absolute, zones } => {
                write!(f, "{}:", if *absolute { "zoned_abs" } else { "zoned" })?;
                let set = |z: &Vec<Zone>| {
                    z.iter()
                        .map(|z| format!("{}/{}", z.access, z.size))
                        .collect::<Vec<_>>()
                        .join(":")
                };
                if zones[0] == zones[1] && zones[1] == zones[2] {
                    write!(f, "{}", set(&zones[0]))
                } else if zones[1] == zones[2] {
                    write!(f, "{},{}", set(&zones[0]), set(&zones[1]))
                } else {
                    write!(
                        f,
                        "{},{},{}",
                        set(&zones[0]),
                        set(&zones[1]),
                        set(&zones[2])
                    )
                }
            }
        }
    }
}

impl serde::Serialize for Dist {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Dist {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse(&s).map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for Dist {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "distribution".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Distribution of random offsets in fio's random_distribution syntax: random, zipf:θ[:centre], pareto:h[:centre], normal:σ[:centre], zoned:a/s:…, zoned_abs:a/SIZE:….",
            "type": "string"
        })
    }
}

/// Read fio's `random_distribution` syntax (see the module doc). The
/// error is one line naming what is wrong.
pub fn parse(s: &str) -> Result<Dist, String> {
    let t = s.trim();
    let (name, rest) = match t.split_once(':') {
        Some((n, r)) => (n.trim(), Some(r.trim())),
        None => (t, None),
    };
    let shown = crate::error::shown_start(t, 60);
    match name {
        "random" => match rest {
            None => Ok(Dist::Random),
            Some(_) => Err(format!(
                "distribution '{shown}': random (uniform) takes no parameter"
            )),
        },
        "zipf" | "pareto" | "normal" => {
            let (v, center) = match rest {
                None => (None, None),
                Some(r) => {
                    let (v, c) = match r.split_once(':') {
                        Some((v, c)) => (v, Some(c)),
                        None => (r, None),
                    };
                    let num = |x: &str, what: &str| -> Result<f64, String> {
                        x.trim()
                            .parse::<f64>()
                            .ok()
                            .filter(|v| v.is_finite())
                            .ok_or_else(|| {
                                format!(
                                    "distribution '{shown}': {what} '{}' is not a number",
                                    x.trim()
                                )
                            })
                    };
                    let v = num(v, "the parameter")?;
                    let c = c.map(|c| num(c, "the centre")).transpose()?;
                    (Some(v), c)
                }
            };
            if let Some(c) = center
                && !(0.0..=1.0).contains(&c)
            {
                return Err(format!(
                    "distribution '{shown}': the centre {c} must be between 0 and 1"
                ));
            }
            match name {
                "zipf" => {
                    let theta = v.unwrap_or(DEF_ZIPF);
                    if theta == 1.0 {
                        return Err(format!(
                            "distribution '{shown}': zipf θ must differ from 1 (fio's approximation divides by 1 − θ)"
                        ));
                    }
                    if theta <= 0.0 {
                        return Err(format!(
                            "distribution '{shown}': zipf θ must be positive (0 is uniform: use random)"
                        ));
                    }
                    Ok(Dist::Zipf { theta, center })
                }
                "pareto" => {
                    let h = v.unwrap_or(DEF_PARETO);
                    if !(h > 0.0 && h < 1.0) {
                        return Err(format!(
                            "distribution '{shown}': pareto h must be between 0 and 1 (exclusive), not {h}"
                        ));
                    }
                    Ok(Dist::Pareto { h, center })
                }
                _ => {
                    let dev = v.unwrap_or(0.0);
                    if !(0.0..100.0).contains(&dev) {
                        return Err(format!(
                            "distribution '{shown}': normal deviation is a percentage from 0 to below 100, not {dev}"
                        ));
                    }
                    Ok(Dist::Normal { dev, center })
                }
            }
        }
        "zoned" | "zoned_abs" => {
            let absolute = name == "zoned_abs";
            let rest = rest.unwrap_or("");
            if rest.is_empty() {
                return Err(format!(
                    "distribution '{shown}': {name} needs zones, e.g. {name}:{}",
                    if absolute {
                        "60/1G:40/4G"
                    } else {
                        "60/10:30/20:10/70"
                    }
                ));
            }
            let sets: Vec<&str> = rest.split(',').collect();
            if sets.len() > 3 {
                return Err(format!(
                    "distribution '{shown}': at most three zone sets (reads,writes,trims)"
                ));
            }
            let mut parsed = Vec::with_capacity(3);
            for set in &sets {
                parsed.push(
                    zone_set(set.trim(), absolute)
                        .map_err(|e| format!("distribution '{shown}': {e}"))?,
                );
            }
            // as fio: one set for all; two are reads and writes (trims as writes)
            let zones = match parsed.len() {
                1 => [parsed[0].clone(), parsed[0].clone(), parsed[0].clone()],
                2 => [parsed[0].clone(), parsed[1].clone(), parsed[1].clone()],
                _ => [parsed[0].clone(), parsed[1].clone(), parsed[2].clone()],
            };
            if zones.iter().all(Vec::is_empty) {
                return Err(format!(
                    "distribution '{shown}': {name} needs at least one zone"
                ));
            }
            Ok(Dist::Zoned { absolute, zones })
        }
        "sequence" => Err(format!(
            "distribution '{shown}': fio's sequence distribution is not supported"
        )),
        _ => Err(format!(
            "distribution '{shown}': unknown name '{name}' (random, zipf, pareto, normal, zoned, zoned_abs)"
        )),
    }
}

/// One direction's zones, `a/s:a/s…`, checked as fio checks them: access
/// shares sum to exactly 100, sizes (per cent) to at most 100; a zone
/// without a size (per cent) shares what the others leave.
fn zone_set(s: &str, absolute: bool) -> Result<Vec<Zone>, String> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    let mut zones = Vec::new();
    let mut missing = Vec::new();
    for (i, z) in s.split(':').enumerate() {
        let z = z.trim();
        if z.is_empty() {
            return Err(format!("zone {} is empty", i + 1));
        }
        if zones.len() == ZONES_MAX {
            return Err(format!("more than {ZONES_MAX} zones"));
        }
        let (a, size) = match z.split_once('/') {
            Some((a, s)) => (a.trim(), Some(s.trim())),
            None => (z, None),
        };
        let access: u32 = a.parse().ok().filter(|a| *a <= 100).ok_or_else(|| {
            format!("zone '{z}': the access share '{a}' is not a whole percentage (0 to 100)")
        })?;
        // `a/` with nothing after the slash is a zone without a size, as
        // fio's atoi of the empty text gives 0, "missing"
        let size = size.filter(|sz| !sz.is_empty() || absolute);
        let size = match (size, absolute) {
            (None, false) => {
                missing.push(zones.len());
                0
            }
            (None, true) => {
                return Err(format!("zone '{z}': zoned_abs needs a size (access/SIZE)"));
            }
            (Some(sz), false) => {
                let v: u64 = sz.parse().ok().filter(|v| *v <= 100).ok_or_else(|| {
                    format!("zone '{z}': the size '{sz}' is not a whole percentage (0 to 100)")
                })?;
                if v == 0 {
                    missing.push(zones.len());
                }
                v
            }
            (Some(sz), true) => {
                let v = crate::units::parse_size(sz).map_err(|e| format!("zone '{z}': {e}"))?;
                if v == 0 {
                    return Err(format!("zone '{z}': a zone must have a size"));
                }
                v
            }
        };
        zones.push(Zone { access, size });
    }
    let access: u32 = zones.iter().map(|z| z.access).sum();
    if access != 100 {
        return Err(format!(
            "the zones' access shares add up to {access} %, not 100 %"
        ));
    }
    if !absolute {
        let given: u64 = zones.iter().map(|z| z.size).sum();
        if given > 100 {
            return Err(format!(
                "the zones' sizes add up to {given} %, more than 100 %"
            ));
        }
        if !missing.is_empty() {
            let share = (100 - given) / missing.len() as u64;
            if share == 0 {
                return Err("the zones without a size are left no share of the data set".into());
            }
            for i in missing {
                zones[i].size = share;
            }
        }
    }
    Ok(zones)
}

/// fio's `__rand` of its 32-bit generators: a uniform u32.
#[inline]
fn rand32(r: &mut Prng) -> u32 {
    (r.next_u64() >> 32) as u32
}

#[inline]
fn hash(v: u64) -> u64 {
    v.wrapping_mul(GOLDEN_RATIO_64)
}

/// One row of a zone table: the blocks [start, start + len).
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u64,
    len: u64,
}

#[derive(Clone, Debug)]
enum Kind {
    Uniform,
    Zipf {
        theta: f64,
        zetan: f64,
        zeta2: f64,
        off: u64,
    },
    Pareto {
        pow: f64,
        off: u64,
    },
    Gauss {
        stddev: u32,
        off: u64,
    },
    /// Per direction, the span of each of the 100 access percentiles (as
    /// fio's `zone_state_index`); None is uniform.
    Zoned(Box<[Option<Vec<Span>>; 3]>),
}

/// Draws block numbers in [0, n) from a [`Dist`].
#[derive(Clone, Debug)]
pub struct Sampler {
    n: u64,
    kind: Kind,
}

impl Sampler {
    /// A sampler over `n` blocks of `block` bytes; `rng` gives the random
    /// rotation of zipf and pareto (one draw). Zoned sizes larger than the
    /// data set are refused.
    pub fn new(dist: &Dist, n: u64, block: u64, rng: &mut Prng) -> Result<Sampler, String> {
        if n == 0 || block == 0 {
            return Err("the data set holds no block to draw".into());
        }
        let rotation = |rng: &mut Prng, center: &Option<f64>| match center {
            Some(c) => (n as f64 * c) as u64,
            None => u64::from(rand32(rng)),
        };
        let kind = match dist {
            Dist::Random => Kind::Uniform,
            Dist::Zipf { theta, center } => {
                let off = rotation(rng, center);
                let zetan = (0..n.min(ZIPF_MAX_GEN))
                    .map(|i| (1.0 / (i + 1) as f64).powf(*theta))
                    .sum();
                Kind::Zipf {
                    theta: *theta,
                    zetan,
                    zeta2: 1.0f64.powf(*theta) + 0.5f64.powf(*theta),
                    off,
                }
            }
            Dist::Pareto { h, center } => Kind::Pareto {
                off: rotation(rng, center),
                pow: h.ln() / (1.0 - h).ln(),
            },
            Dist::Normal { dev, center } => {
                let mut stddev = 0u64;
                if *dev != 0.0 {
                    stddev = ((n as f64 * dev) / 100.0).ceil() as u64;
                    stddev = stddev.min(n / 2);
                }
                let off = match center {
                    None => 0,
                    Some(c) => (n as f64 * (c - 0.5)) as i64 as u64,
                };
                Kind::Gauss {
                    stddev: u32::try_from(stddev).unwrap_or(u32::MAX),
                    off,
                }
            }
            Dist::Zoned { absolute, zones } => {
                let mut tables: [Option<Vec<Span>>; 3] = [None, None, None];
                for (d, set) in zones.iter().enumerate() {
                    if set.is_empty() {
                        continue;
                    }
                    if *absolute {
                        let total: u64 = set.iter().map(|z| z.size).sum();
                        if total > n.saturating_mul(block) {
                            return Err(format!(
                                "distribution zoned_abs: the zones hold {}, more than the {} of the data set",
                                crate::units::fmt_bytes(total),
                                crate::units::fmt_bytes(n.saturating_mul(block))
                            ));
                        }
                    }
                    let mut rows = Vec::with_capacity(100);
                    let mut prev = 0u64;
                    for z in set {
                        let end = prev + z.size;
                        let span = if *absolute {
                            let (s, e) = (prev / block, end / block);
                            Span {
                                start: s.min(n - 1),
                                len: (e - s).max(1),
                            }
                        } else {
                            let s = prev * n / 100;
                            Span {
                                start: s.min(n - 1),
                                len: (n * z.size / 100).max(1),
                            }
                        };
                        rows.extend(std::iter::repeat_n(span, z.access as usize));
                        prev = end;
                    }
                    tables[d] = Some(rows);
                }
                Kind::Zoned(Box::new(tables))
            }
        };
        Ok(Sampler { n, kind })
    }

    /// Blocks in the data set.
    pub fn blocks(&self) -> u64 {
        self.n
    }

    /// The next block, for a request in direction `dir`.
    #[inline]
    pub fn next(&mut self, rng: &mut Prng, dir: Dir) -> u64 {
        let n = self.n;
        match &self.kind {
            Kind::Uniform => below(rng, n),
            Kind::Zipf {
                theta,
                zetan,
                zeta2,
                off,
            } => {
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                let u = f64::from(rand32(rng)) / f64::from(u32::MAX);
                let z = u * zetan;
                let val = if z < 1.0 {
                    1
                } else if z < 1.0 + 0.5f64.powf(*theta) {
                    2
                } else {
                    1 + (n as f64 * (eta * u - eta + 1.0).powf(alpha)) as u64
                };
                hash(val - 1).wrapping_add(*off) % n
            }
            Kind::Pareto { pow, off } => {
                let u = f64::from(rand32(rng)) / f64::from(u32::MAX);
                let r = ((n - 1) as f64 * u.powf(*pow)) as u64;
                hash(r).wrapping_add(*off) % n
            }
            Kind::Gauss { stddev, off } => {
                let mut sum = 0u64;
                for _ in 0..GAUSS_ITERS {
                    sum += u64::from(rand32(rng)) % (n + 1);
                }
                sum = sum.div_ceil(GAUSS_ITERS);
                if *stddev != 0 {
                    let r = rand32(rng);
                    let vr = (f64::from(*stddev) * (f64::from(r) / 4_294_967_296.0)) as i64;
                    let mut dev = vr - i64::from(*stddev / 2);
                    while dev != 0 && sum.wrapping_add(dev as u64) >= n {
                        dev /= 2;
                    }
                    sum = sum.wrapping_add(dev as u64);
                }
                hash(sum).wrapping_add(*off) % n
            }
            Kind::Zoned(tables) => match &tables[dir as usize] {
                None => below(rng, n),
                Some(rows) => {
                    // fio's rand_between(1, 100)
                    let v = (100.0 * (f64::from(rand32(rng)) / 4_294_967_296.0)) as usize;
                    let s = rows[v.min(rows.len() - 1)];
                    (s.start + below(rng, s.len)).min(n - 1)
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::worker_rng;

    /// fio-genzipf's table: n draws over n blocks, the hit blocks sorted
    /// by hits, cut into 100 rows; the cumulative share of the first
    /// `rows` rows, in per cent.
    fn genzipf_top(dist: &str, n: u64, rows: &[usize]) -> Vec<f64> {
        let mut rng = worker_rng(7, 0);
        let mut s = Sampler::new(&parse(dist).unwrap(), n, 4096, &mut rng).unwrap();
        let mut hits = vec![0u32; n as usize];
        for _ in 0..n {
            hits[s.next(&mut rng, Dir::Read) as usize] += 1;
        }
        let mut hit: Vec<u32> = hits.into_iter().filter(|h| *h > 0).collect();
        hit.sort_unstable_by(|a, b| b.cmp(a));
        let step = (hit.len() - 1) / 100 + 1;
        rows.iter()
            .map(|r| {
                let k = (r * step).min(hit.len());
                hit[..k].iter().map(|h| f64::from(*h)).sum::<f64>() * 100.0 / n as f64
            })
            .collect()
    }

    /// `fio-genzipf -t T -i V -g 1 -b 4096 -o 100` (fio 3.x), the Sum %
    /// column at rows 1, 5, 10, 25 and 50.
    #[test]
    fn hit_shares_match_fio_genzipf_within_one_percent() {
        let n = (1u64 << 30) / 4096;
        let rows = [1, 5, 10, 25, 50];
        for (dist, fio) in [
            ("zipf:1.2", [77.15, 85.71, 88.78, 92.54, 95.30]),
            ("zipf:0.8", [28.32, 42.87, 51.55, 66.03, 80.29]),
            ("pareto:0.2", [45.11, 57.06, 63.56, 74.47, 84.56]),
            ("normal:0", [3.27, 13.32, 23.73, 48.20, 76.12]),
            ("normal:10", [3.30, 13.50, 23.95, 48.00, 75.96]),
        ] {
            let got = genzipf_top(dist, n, &rows);
            for (g, f) in got.iter().zip(fio) {
                assert!((g - f).abs() <= 1.0, "{dist}: {got:?} vs fio {fio:?}");
            }
        }
    }

    #[test]
    fn zipf_matches_fio_arithmetic() {
        // n = 100, θ = 1.2, centre 0: fio's zetan and the ranks of u
        let mut rng = worker_rng(1, 0);
        let s = Sampler::new(&parse("zipf:1.2:0").unwrap(), 100, 1, &mut rng).unwrap();
        let Kind::Zipf {
            zetan, zeta2, off, ..
        } = s.kind
        else {
            panic!()
        };
        let want: f64 = (1..=100).map(|i| (i as f64).powf(-1.2)).sum();
        assert!((zetan - want).abs() < 1e-12);
        assert!((zeta2 - (1.0 + 0.5f64.powf(1.2))).abs() < 1e-15);
        assert_eq!(off, 0);
        // rank 1 (hash of 0 is 0) is block 0: at least its 1/zetan of the
        // draws (other ranks may hash there too)
        let mut rng = worker_rng(3, 0);
        let mut s = s;
        let hits0 = (0..10_000)
            .filter(|_| s.next(&mut rng, Dir::Read) == 0)
            .count();
        let p1 = 1.0 / want;
        assert!(hits0 as f64 / 1e4 > p1 - 0.02, "{hits0} vs {p1}");
        // the second rank lands where fio's hash puts it
        assert_eq!(hash(1).wrapping_add(0) % 100, GOLDEN_RATIO_64 % 100);
    }

    #[test]
    fn pareto_and_centre_follow_fio() {
        // centre c rotates by c·n; with h = 0.1 the power is ln 0.1/ln 0.9
        // = 21.85, and rank 0 (block c·n) takes u < 0.001^(1/21.85) = 72.9 %
        let mut rng = worker_rng(1, 0);
        let mut s = Sampler::new(&parse("pareto:0.1:0.25").unwrap(), 1000, 1, &mut rng).unwrap();
        let at = (0..100_000)
            .filter(|_| s.next(&mut rng, Dir::Write) == 250)
            .count();
        assert!((at as f64 / 1e5 - 0.729).abs() < 0.01, "{at}");
        let Kind::Pareto { pow, .. } = s.kind else {
            panic!()
        };
        assert!((pow - 0.1f64.ln() / 0.9f64.ln()).abs() < 1e-15);
    }

    #[test]
    fn zoned_puts_the_shares_in_their_zones() {
        let n = 1000;
        let mut rng = worker_rng(5, 0);
        let d = parse("zoned:60/10:30/20:8/30:2/40").unwrap();
        let mut s = Sampler::new(&d, n, 4096, &mut rng).unwrap();
        let mut zone = [0u32; 4];
        let draws = 200_000;
        for _ in 0..draws {
            let b = s.next(&mut rng, Dir::Read);
            zone[match b {
                0..100 => 0,
                100..300 => 1,
                300..600 => 2,
                _ => 3,
            }] += 1;
        }
        for (got, want) in zone.iter().zip([0.60, 0.30, 0.08, 0.02]) {
            let g = f64::from(*got) / f64::from(draws);
            assert!((g - want).abs() < 0.005, "{zone:?}");
        }
        // absolute: 4 KiB blocks, 90 % to the first 40 KiB (10 blocks)
        let d = parse("zoned_abs:90/40K:10/400K").unwrap();
        let mut s = Sampler::new(&d, n, 4096, &mut rng).unwrap();
        let low = (0..100_000)
            .filter(|_| s.next(&mut rng, Dir::Read) < 10)
            .count();
        assert!((low as f64 / 1e5 - 0.9).abs() < 0.005, "{low}");
        assert!(s.next(&mut rng, Dir::Read) < 110);
        // too large for the data set
        let d = parse("zoned_abs:50/4M:50/1M").unwrap();
        let e = Sampler::new(&d, n, 4096, &mut rng).unwrap_err();
        assert!(e.contains("more than"), "{e}");
    }

    #[test]
    fn zoned_per_direction() {
        let d = parse("zoned:100/10,100/50:0/50").unwrap();
        let Dist::Zoned { zones, .. } = &d else {
            panic!()
        };
        assert_eq!(
            zones[0],
            [Zone {
                access: 100,
                size: 10
            }]
        );
        assert_eq!(zones[1], zones[2]);
        let mut rng = worker_rng(5, 0);
        let mut s = Sampler::new(&d, 100, 1, &mut rng).unwrap();
        assert!((0..1000).all(|_| s.next(&mut rng, Dir::Read) < 10));
        assert!((0..1000).all(|_| s.next(&mut rng, Dir::Write) < 50));
        // an empty set is uniform for its direction
        let d = parse("zoned:,100/10").unwrap();
        let mut s = Sampler::new(&d, 100, 1, &mut rng).unwrap();
        assert!((0..1000).any(|_| s.next(&mut rng, Dir::Read) >= 10));
        assert!((0..1000).all(|_| s.next(&mut rng, Dir::Write) < 10));
    }

    #[test]
    fn parse_reads_fios_syntax_and_prints_it_back() {
        for (s, want) in [
            ("random", Dist::Random),
            (
                "zipf",
                Dist::Zipf {
                    theta: 1.1,
                    center: None,
                },
            ),
            (
                "zipf:1.2",
                Dist::Zipf {
                    theta: 1.2,
                    center: None,
                },
            ),
            (
                " zipf:1.2:0.3 ",
                Dist::Zipf {
                    theta: 1.2,
                    center: Some(0.3),
                },
            ),
            (
                "zipf:0.8",
                Dist::Zipf {
                    theta: 0.8,
                    center: None,
                },
            ),
            (
                "pareto",
                Dist::Pareto {
                    h: 0.2,
                    center: None,
                },
            ),
            (
                "pareto:0.3:1",
                Dist::Pareto {
                    h: 0.3,
                    center: Some(1.0),
                },
            ),
            (
                "normal",
                Dist::Normal {
                    dev: 0.0,
                    center: None,
                },
            ),
            (
                "normal:5:0.5",
                Dist::Normal {
                    dev: 5.0,
                    center: Some(0.5),
                },
            ),
        ] {
            let d = parse(s).unwrap();
            assert_eq!(d, want, "{s}");
            assert_eq!(parse(&d.to_string()).unwrap(), d);
        }
        // sizes left out share the rest
        let d = parse("zoned:50/10:30:20").unwrap();
        let Dist::Zoned {
            absolute: false,
            zones,
        } = &d
        else {
            panic!()
        };
        assert_eq!(
            zones[0].iter().map(|z| z.size).collect::<Vec<_>>(),
            [10, 45, 45]
        );
        assert_eq!(d.to_string(), "zoned:50/10:30/45:20/45");
        // so does a size left empty after its slash (fio's examples/rand-zones.fio)
        assert_eq!(
            parse("zoned:50/5:30/15:20/").unwrap().to_string(),
            "zoned:50/5:30/15:20/80"
        );
        let d = parse("zoned_abs:60/20G:30/100G:10/500g").unwrap();
        let Dist::Zoned {
            absolute: true,
            zones,
        } = &d
        else {
            panic!()
        };
        assert_eq!(
            zones[0][1],
            Zone {
                access: 30,
                size: 100 << 30
            }
        );
        assert_eq!(parse(&d.to_string()).unwrap(), d);
        let d = parse("zoned:100/10,50/50:50/50,100/100").unwrap();
        assert_eq!(parse(&d.to_string()).unwrap(), d);
        // JSON is the string
        let j = serde_json::to_string(&parse("zipf:1.2").unwrap()).unwrap();
        assert_eq!(j, "\"zipf:1.2\"");
        assert_eq!(
            serde_json::from_str::<Dist>(&j).unwrap(),
            parse("zipf:1.2").unwrap()
        );
    }

    #[test]
    fn parse_refuses_what_fio_refuses_in_one_line() {
        for (s, says) in [
            ("zipff:1.2", "unknown name"),
            ("", "unknown name"),
            ("zipf:1", "differ from 1"),
            ("zipf:1.0", "differ from 1"),
            ("zipf:0", "positive"),
            ("zipf:-1", "positive"),
            ("zipf:x", "not a number"),
            ("zipf:1.2:1.5", "between 0 and 1"),
            ("zipf:1.2:nan", "not a number"),
            ("pareto:1", "between 0 and 1"),
            ("pareto:0", "between 0 and 1"),
            ("normal:100", "percentage"),
            ("normal:-1", "percentage"),
            ("random:3", "no parameter"),
            ("zoned:60/10:30/20", "add up to 90"),
            ("zoned:60/10:50/20", "add up to 110"),
            ("zoned:60/80:40/30", "more than 100"),
            ("zoned:60/10::40/30", "empty"),
            ("zoned:x/10", "whole percentage"),
            ("zoned:60/101:40", "whole percentage"),
            ("zoned", "needs zones"),
            ("zoned_abs:60:40/1G", "needs a size"),
            ("zoned_abs:60/1Q:40/1G", "not a size"),
            ("zoned_abs:60/0:40/1G", "must have a size"),
            ("zoned:100/10,100/10,100/10,100/10", "at most three"),
            ("zoned:,", "at least one zone"),
            ("sequence:1,2", "not supported"),
        ] {
            let e = parse(s).unwrap_err();
            assert!(e.contains(says), "{s}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn tiny_data_sets_do_not_hang_or_leave_the_range() {
        let mut rng = worker_rng(1, 0);
        for d in [
            "zipf:1.2",
            "pareto:0.5",
            "normal:0",
            "normal:99",
            "zoned:50/1:50/99",
            "zipf:0.5:1",
        ] {
            for n in [1, 2, 3, 7] {
                let mut s = Sampler::new(&parse(d).unwrap(), n, 512, &mut rng).unwrap();
                assert!(
                    (0..2000).all(|_| s.next(&mut rng, Dir::Write) < n),
                    "{d} {n}"
                );
            }
        }
    }
}
