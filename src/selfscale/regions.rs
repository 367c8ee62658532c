//! Performance regions of the uniqueBytes sweep, and the boundaries
//! between them (docs/selfscale.md).
//!
//! The sweep is geometric (each point a constant factor above the last), so
//! a plateau is a run of points whose throughput barely changes and a cache
//! boundary is a *cliff*: a step that falls much further than the others.
//!
//! ```text
//!  MB/s
//!  9000 ●─●─●                        plateau (or gentle ramp): one region
//!            ●─●─●─●                 …still the same region
//!                     ●              cliff: a transition point
//!                        ●─●─●       the next region
//!       1M            512M 1G 2G 4G  uniqueBytes (log)
//! ```
//!
//! 1. Steps: s_i = |ln(T_i / T_{i+1})| between neighbouring sweep points.
//! 2. A step is a cliff candidate when it exceeds the curve's *typical* step
//!    (the median of all s_i) by more than ln(1 / (1 − tol)), i.e. when it
//!    falls (or rises) by more than `tol` beyond what the curve does anyway.
//!    On a flat curve this is the simple rule "split at drops of more than
//!    20 %"; on a machine whose cached throughput ramps down 20–30 % per
//!    doubling (writes into a growing page cache do), the ramp is not taken
//!    for a boundary.
//! 3. Candidates are taken largest first. A split is kept when both end
//!    segments keep at least two points and at most `max_regions` segments of
//!    two or more points result. A single point between two cliffs is a
//!    transition point (the thrashing zone), not a region.
//! 4. A region whose throughput still spans more than `span_max` (a long
//!    ramp) is split at its largest step while regions are left, where both
//!    halves keep two points and span at most span^¾ (a ramp, not one odd
//!    point at an end); such a split has no thrashing zone.
//!
//! The boundary between two regions separated by a cliff is the uniqueBytes
//! where the curve crosses the level L = max(T_hi / 2, √(T_hi · T_lo)),
//! T_hi being the last point of the faster region and T_lo the first of the
//! slower one: halfway down on a log scale, but never further than to half.
//! It is the middle of the transition (Chen & Patterson's "effective file
//! cache size is 21 MB" lies between their focal points 12 and 42 MB, near
//! their geometric mean, 22 MB). With hit ratio h = C/U,
//! T = 1 / (h/T_c + (1 − h)/T_d) is half of T_c when 1 − h ≈ T_d / T_c: a
//! few percent past the cache size C when the cache is much faster than
//! what lies behind it. The sweep is bisected where the level is crossed
//! ([`bracket_of_crossing`]), and the crossing is interpolated on log–log
//! scales between
//! the two sweep points that bracket it.

use std::collections::BTreeSet;

/// A run of sweep points: indices `first..=last`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub first: usize,
    pub last: usize,
}

impl Span {
    pub fn len(&self) -> usize {
        self.last + 1 - self.first
    }

    pub fn is_empty(&self) -> bool {
        false
    }
}

/// The regions of a sweep, and for each pair of neighbours whether a cliff
/// (true) or a ramp split (false) separates them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    pub regions: Vec<Span>,
    pub cliffs: Vec<bool>,
}

/// The median of `v` (0 for an empty slice).
pub fn median(v: &[f64]) -> f64 {
    percentile(v, 0.5)
}

/// The q-quantile of `v` by linear interpolation between order statistics
/// (type 7, as R and numpy default); 0 for an empty slice.
pub fn percentile(v: &[f64], q: f64) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    if s.is_empty() {
        return 0.0;
    }
    s.sort_by(f64::total_cmp);
    let h = (s.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    s[lo] + (s[hi] - s[lo]) * (h - lo as f64)
}

/// Segments of `0..n` cut after each index in `breaks`.
fn segments(n: usize, breaks: &BTreeSet<usize>) -> Vec<Span> {
    let mut out = Vec::new();
    let mut first = 0;
    for &b in breaks {
        out.push(Span { first, last: b });
        first = b + 1;
    }
    if n > 0 {
        out.push(Span { first, last: n - 1 });
    }
    out
}

fn acceptable(n: usize, breaks: &BTreeSet<usize>, max_regions: usize) -> bool {
    let segs = segments(n, breaks);
    let ends_ok =
        segs.first().is_some_and(|s| s.len() >= 2) && segs.last().is_some_and(|s| s.len() >= 2);
    ends_ok && segs.iter().filter(|s| s.len() >= 2).count() <= max_regions
}

/// A region must differ from its neighbour by more than this, and by more
/// than the two levels' confidence intervals, to count as one.
pub const LEVEL_STEP: f64 = 0.15;
/// The most transition points a gradual step may take between plateaus.
const MAX_TRANSITION: usize = 3;

/// Find the regions of a sweep whose throughputs (sorted by uniqueBytes,
/// geometrically spaced) are `t`, with relative confidence half-widths `hw`
/// (empty or shorter: taken as 0). See the module documentation.
pub fn detect(t: &[f64], hw: &[f64], tol: f64, span_max: f64, max_regions: usize) -> Split {
    let n = t.len();
    let max_regions = max_regions.max(1);
    if n < 4 {
        // too few points to tell a plateau from a cliff
        return Split {
            regions: if n == 0 {
                vec![]
            } else {
                vec![Span {
                    first: 0,
                    last: n - 1,
                }]
            },
            cliffs: vec![],
        };
    }
    let step = |i: usize| (t[i].max(1e-12) / t[i + 1].max(1e-12)).ln().abs();
    let steps: Vec<f64> = (0..n - 1).map(step).collect();
    let threshold = median(&steps) + (1.0 / (1.0 - tol.clamp(0.0, 0.99))).ln();
    let mut cliffs = sharp_cliffs(n, &steps, threshold, max_regions);
    // transition points between regions: neither region's
    let mut skip: BTreeSet<usize> = BTreeSet::new();
    gradual_steps(t, hw, &steps, &mut cliffs, &mut skip, max_regions);
    let ramps = ramp_splits(t, &steps, &cliffs, &skip, span_max, max_regions);
    let all: BTreeSet<usize> = cliffs.union(&ramps).copied().collect();
    let regions = regions_of(n, &all, &skip);
    let cliff_between = regions
        .windows(2)
        .map(|w| cliffs.range(w[0].last..w[1].first).next().is_some())
        .collect();
    Split {
        regions,
        cliffs: cliff_between,
    }
}

/// The regions between the cuts `cuts` of `n` points: those of two points
/// or more that are not all transition points (`skip`).
fn regions_of(n: usize, cuts: &BTreeSet<usize>, skip: &BTreeSet<usize>) -> Vec<Span> {
    segments(n, cuts)
        .into_iter()
        .filter(|s| s.len() >= 2 && !(s.first..=s.last).all(|i| skip.contains(&i)))
        .collect()
}

/// The steps larger than `threshold`, largest first, each kept when the
/// regions it leaves are still acceptable.
fn sharp_cliffs(n: usize, steps: &[f64], threshold: f64, max_regions: usize) -> BTreeSet<usize> {
    let mut cand: Vec<usize> = (0..n - 1).filter(|&i| steps[i] > threshold).collect();
    cand.sort_by(|&a, &b| steps[b].total_cmp(&steps[a]).then(a.cmp(&b)));
    let mut cliffs = BTreeSet::new();
    for i in cand {
        let mut trial = cliffs.clone();
        trial.insert(i);
        if acceptable(n, &trial, max_regions) {
            cliffs = trial;
        }
    }
    cliffs
}

/// Gradual steps: two plateaus whose levels differ, however gently the
/// curve goes from one to the other, added to `cliffs` (the points between
/// them to `skip`) while regions are left.
fn gradual_steps(
    t: &[f64],
    hw: &[f64],
    steps: &[f64],
    cliffs: &mut BTreeSet<usize>,
    skip: &mut BTreeSet<usize>,
    max_regions: usize,
) {
    let n = t.len();
    while regions_of(n, cliffs, skip).len() < max_regions {
        let typical = median(steps);
        let Some((a, b)) = regions_of(n, cliffs, skip)
            .iter()
            .filter_map(|r| gradual_step(t, hw, *r, typical))
            .max_by(|x, y| x.2.total_cmp(&y.2))
            .map(|(a, b, _)| (a, b))
        else {
            break;
        };
        cliffs.insert(a);
        if b > a + 1 {
            cliffs.insert(b - 1);
            skip.extend(a + 1..b);
        }
    }
}

/// How far the throughputs of `s` span: the largest over the smallest.
fn span_of(t: &[f64], s: &Span) -> f64 {
    let (lo, hi) = t[s.first..=s.last]
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    hi / lo.max(1e-12)
}

/// Long ramps: the cuts that split, while regions are left, the widest
/// region spanning more than `span_max` at its largest inner step.
fn ramp_splits(
    t: &[f64],
    steps: &[f64],
    cliffs: &BTreeSet<usize>,
    skip: &BTreeSet<usize>,
    span_max: f64,
    max_regions: usize,
) -> BTreeSet<usize> {
    let mut ramps = BTreeSet::new();
    loop {
        let all: BTreeSet<usize> = cliffs.union(&ramps).copied().collect();
        let regions = regions_of(t.len(), &all, skip);
        if regions.len() >= max_regions {
            break;
        }
        let widest = regions
            .iter()
            .filter(|s| s.len() >= 4 && span_of(t, s) > span_max)
            .max_by(|a, b| span_of(t, a).total_cmp(&span_of(t, b)));
        let Some(s) = widest else { break };
        // both halves keep two points (cut after first+1 ..= last-2) and
        // each spans clearly less (at most span^¾: a ramp, not one odd
        // point at an end); among those cuts, the largest step
        let whole = span_of(t, s);
        let cut = (s.first + 1..=s.last - 2)
            .filter(|&c| {
                let l = span_of(
                    t,
                    &Span {
                        first: s.first,
                        last: c,
                    },
                );
                let r = span_of(
                    t,
                    &Span {
                        first: c + 1,
                        last: s.last,
                    },
                );
                l.max(r) <= whole.powf(0.75)
            })
            .max_by(|&a, &b| steps[a].total_cmp(&steps[b]).then(b.cmp(&a)));
        match cut {
            Some(c) => {
                ramps.insert(c);
            }
            None => break,
        }
    }
    ramps
}

/// The best gradual step inside region `r`: a plateau of two or three
/// points ending at `a`, at most [`MAX_TRANSITION`] points between, and a
/// plateau of two or three points starting at `b`, each flat (within 5 %
/// or twice its confidence interval), the transition monotone, and the
/// levels apart by more than [`LEVEL_STEP`], more than their confidence
/// intervals, and more than the curve's typical step (`typical`, in ln)
/// would take them over that distance. Returns (a, b, ln of the level
/// ratio beyond the typical drift).
fn gradual_step(t: &[f64], hw: &[f64], r: Span, typical: f64) -> Option<(usize, usize, f64)> {
    let h = |i: usize| hw.get(i).copied().unwrap_or(0.0).max(0.0);
    let level = |lo: usize, hi: usize| median(&t[lo..=hi]).max(1e-12);
    let flat = |lo: usize, hi: usize| {
        let (mn, mx) = t[lo..=hi]
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
        let noise = (lo..=hi).map(h).fold(0.0, f64::max);
        mx / mn.max(1e-12) <= 1.0 + (2.0 * noise).max(0.05)
    };
    let mut best: Option<(usize, usize, f64)> = None;
    for a in r.first + 1..r.last {
        for gap in 0..=MAX_TRANSITION {
            let b = a + 1 + gap;
            if b + 1 > r.last {
                break;
            }
            // the plateaus on either side: three points where there are
            // three, else two
            let head = if a >= r.first + 2 && flat(a - 2, a) {
                a - 2
            } else {
                a - 1
            };
            let tail = if b + 2 <= r.last && flat(b, b + 2) {
                b + 2
            } else {
                b + 1
            };
            if !flat(head, a) || !flat(b, tail) {
                continue;
            }
            let (l1, l2) = (level(head, a), level(b, tail));
            let d = (l1 / l2).ln().abs();
            let ci = (head..=a).map(h).fold(0.0, f64::max) + (b..=tail).map(h).fold(0.0, f64::max);
            let down = l1 > l2;
            let monotone = (a..b).all(|i| (t[i] >= t[i + 1]) == down);
            let beyond = d - (gap + 1) as f64 * typical;
            if monotone
                && d > (1.0 / (1.0 - LEVEL_STEP)).ln()
                && d > (1.0 + ci).ln()
                && beyond > (1.0 / (1.0 - LEVEL_STEP)).ln()
                && best.is_none_or(|x| beyond > x.2)
            {
                best = Some((a, b, beyond));
            }
        }
    }
    best
}

/// The level whose crossing marks the boundary: halfway down on a log
/// scale from `t_hi` to `t_lo`, but at most half of `t_hi`.
pub fn boundary_level(t_hi: f64, t_lo: f64) -> f64 {
    (t_hi / 2.0).max((t_hi * t_lo).sqrt())
}

/// The bracketing pair of `pts` (sorted by u, between `u_hi` and `u_lo`
/// inclusive) where the throughput first falls below `level`.
fn bracket(
    pts: &[(f64, f64)],
    u_hi: f64,
    u_lo: f64,
    level: f64,
) -> Option<((f64, f64), (f64, f64))> {
    let inside: Vec<(f64, f64)> = pts
        .iter()
        .copied()
        .filter(|&(u, _)| u >= u_hi && u <= u_lo)
        .collect();
    inside
        .windows(2)
        .find(|w| w[0].1 >= level && w[1].1 < level)
        .map(|w| (w[0], w[1]))
}

/// Where the curve `pts` (sorted by uniqueBytes) crosses the boundary level
/// between `u_hi` (the last point of the faster region, throughput `t_hi`)
/// and `u_lo` (the first of the slower one, `t_lo`); log–log interpolation.
/// Without a clean crossing, the geometric middle of the two.
pub fn crossing(pts: &[(f64, f64)], u_hi: f64, t_hi: f64, u_lo: f64, t_lo: f64) -> f64 {
    let level = boundary_level(t_hi, t_lo);
    match bracket(pts, u_hi, u_lo, level) {
        Some(((ua, ta), (ub, tb))) if ta > 0.0 && tb > 0.0 && ta > tb => {
            let f = (ta / level).ln() / (ta / tb).ln();
            ua * (ub / ua).powf(f)
        }
        _ => (u_hi * u_lo).sqrt(),
    }
}

/// The two neighbouring points of `pts` (sorted by u, between `u_hi` and
/// `u_lo` inclusive) that bracket the boundary level's crossing, to bisect
/// next; `None` without a crossing.
pub fn bracket_of_crossing(
    pts: &[(f64, f64)],
    u_hi: f64,
    t_hi: f64,
    u_lo: f64,
    t_lo: f64,
) -> Option<(f64, f64)> {
    let level = boundary_level(t_hi, t_lo);
    bracket(pts, u_hi, u_lo, level).map(|(a, b)| (a.0, b.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(first: usize, last: usize) -> Span {
        Span { first, last }
    }

    /// A deterministic ±`amp` noise sequence.
    fn noise(i: usize, amp: f64) -> f64 {
        let x = ((i as f64 + 1.0) * 12.9898).sin() * 43758.5453;
        1.0 + amp * (2.0 * (x - x.floor()) - 1.0)
    }

    #[test]
    fn a_step_gives_two_plateaus_and_the_boundary_at_the_halving_point() {
        // 1 MiB … 512 MiB, factor 2: 1000 MB/s up to 16 MiB, 100 from 32 MiB
        let u: Vec<f64> = (0..10).map(|i| (1u64 << (20 + i)) as f64).collect();
        let t: Vec<f64> = (0..10)
            .map(|i| if i <= 4 { 1000.0 } else { 100.0 })
            .collect();
        let s = detect(&t, &[], 0.2, 4.0, 3);
        assert_eq!(s.regions, [span(0, 4), span(5, 9)]);
        assert_eq!(s.cliffs, [true]);
        let pts: Vec<(f64, f64)> = u.iter().copied().zip(t.iter().copied()).collect();
        // L = max(500, 316) = 500: ln 2 / ln 10 of the way from 16 to 32 MiB
        let b = crossing(&pts, u[4], 1000.0, u[5], 100.0);
        let want = u[4] * 2f64.powf(2f64.ln() / 10f64.ln());
        assert!((b / want - 1.0).abs() < 1e-12, "{b} vs {want}");
        // the crossing lies between 16 and 32 MiB: that is what to bisect
        assert_eq!(
            bracket_of_crossing(&pts, u[4], 1000.0, u[5], 100.0),
            Some((u[4], u[5]))
        );
        // a gentle ramp, then the fall: the first crossing of the level
        let pts = [
            (1.0, 1000.0),
            (2.0, 700.0),
            (2.2, 690.0),
            (2.4, 300.0),
            (4.0, 100.0),
        ];
        assert_eq!(
            bracket_of_crossing(&pts, 1.0, 1000.0, 4.0, 100.0),
            Some((2.2, 2.4))
        );
        assert_eq!(
            bracket_of_crossing(&[(1.0, 5.0), (2.0, 6.0)], 1.0, 5.0, 2.0, 6.0),
            None
        );
    }

    #[test]
    fn a_noisy_flat_curve_and_a_gentle_noisy_ramp_are_one_region() {
        let flat: Vec<f64> = (0..12).map(|i| 500.0 * noise(i, 0.05)).collect();
        assert_eq!(detect(&flat, &[], 0.2, 4.0, 3).regions, [span(0, 11)]);
        // -10 % per step ± 5 %: 0.9^11 = 0.31, a span of 3.2 < 4
        let ramp: Vec<f64> = (0..12)
            .map(|i| 1000.0 * 0.9f64.powi(i as i32) * noise(i, 0.05))
            .collect();
        let s = detect(&ramp, &[], 0.2, 4.0, 3);
        assert_eq!(s.regions, [span(0, 11)]);
        assert!(s.cliffs.is_empty());
    }

    #[test]
    fn a_steep_ramp_is_split_where_it_falls_most() {
        // -20 % per step (typical), a slightly larger step after point 5
        let mut t = vec![1000.0];
        for i in 1..12 {
            let f = if i == 6 { 0.7 } else { 0.8 };
            t.push(t[i - 1] * f);
        }
        let s = detect(&t, &[], 0.2, 4.0, 3);
        // 0.7 is not 20 % beyond the typical 0.8: no cliff; but the span,
        // 1/(0.8^10·0.7) = 13, is split at the largest step (after point 5),
        // which leaves two halves of span 0.8^-5 = 3.1 < 4
        assert_eq!(s.regions, [span(0, 5), span(6, 11)]);
        assert_eq!(s.cliffs, [false]);
        // a wider limit keeps it whole
        assert_eq!(detect(&t, &[], 0.2, 20.0, 3).regions, [span(0, 11)]);
    }

    #[test]
    fn a_three_level_curve_with_a_transition_point() {
        // 2000 (1–8 MiB), 1000 (16–64 MiB, a 50 % drop), then a transition
        // point (300) and a device plateau at 50
        let t = [
            2000.0, 2010.0, 1990.0, 2000.0, 1000.0, 1010.0, 990.0, 300.0, 50.0, 52.0, 49.0,
        ];
        let s = detect(&t, &[], 0.2, 4.0, 3);
        assert_eq!(s.regions, [span(0, 3), span(4, 6), span(8, 10)]);
        assert_eq!(s.cliffs, [true, true]);
        // at most two regions: the smaller cliff goes
        let s = detect(&t, &[], 0.2, 4.0, 2);
        assert_eq!(s.regions, [span(0, 6), span(8, 10)]);
    }

    #[test]
    fn a_lone_point_at_either_end_is_never_a_region() {
        let t = [100.0, 100.0, 101.0, 99.0, 100.0, 20.0];
        assert_eq!(detect(&t, &[], 0.2, 4.0, 3).regions, [span(0, 5)]);
        let t = [500.0, 100.0, 100.0, 101.0, 99.0, 100.0];
        assert_eq!(detect(&t, &[], 0.2, 4.0, 3).regions, [span(0, 5)]);
    }

    /// A 40 % step taken gently over three doublings, between two plateaus:
    /// two regions, in full and in quick sweeps; a flat noisy curve: one.
    #[test]
    fn a_gradual_step_between_plateaus_is_two_regions() {
        // tmpfs: 8.0 GB/s in the CPU caches (1–4 MiB), 4.8 from 32 MiB
        let full: Vec<f64> = [8.0, 8.05, 7.95, 7.0, 6.0, 4.8, 4.85, 4.78, 4.82, 4.8]
            .iter()
            .enumerate()
            .map(|(i, x)| x * noise(i, 0.01))
            .collect();
        let s = detect(&full, &[0.02; 10], 0.2, 4.0, 3);
        assert_eq!(s.regions, [span(0, 2), span(5, 9)], "{s:?}");
        assert_eq!(s.cliffs, [true]);
        // --quick: every other point (factor 4), and at most two regions
        let quick: Vec<f64> = full.iter().step_by(2).copied().collect();
        let s = detect(&quick, &[0.03; 5], 0.2, 4.0, 2);
        assert_eq!(s.regions.len(), 2, "{quick:?}: {s:?}");
        // the levels must differ by more than their confidence intervals
        let s = detect(&full, &[0.4; 10], 0.2, 4.0, 3);
        assert_eq!(s.regions.len(), 1, "{s:?}");
        // flat, noisy (±4 %): one region
        let flat: Vec<f64> = (0..12).map(|i| 5000.0 * noise(i + 7, 0.04)).collect();
        assert_eq!(
            detect(&flat, &[0.03; 12], 0.2, 4.0, 3).regions,
            [span(0, 11)]
        );
        // a 10 % difference is not a region, however clean
        let small = [8.0, 8.0, 8.0, 7.6, 7.2, 7.2, 7.2, 7.2];
        assert_eq!(detect(&small, &[], 0.2, 4.0, 3).regions.len(), 1);
    }

    #[test]
    fn percentiles() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.75), 4.0);
        assert_eq!(median(&[]), 0.0);
    }
}
