//! Focal values and the grids the curves are measured on (docs/selfscale.md).
//!
//! - uniqueBytes: the geometric middle of the region's plateau;
//! - sizeMean and processNum: the smallest grid value whose throughput
//!   reaches 75 % of the curve's maximum ("workloads must perform reasonably
//!   well and be practical");
//! - readFrac and seqFrac: 0.5.
//!
//! sizeMean and processNum depend on each other, so the two are iterated
//! (see `explore`): the sizeMean curve at the current processNum gives a
//! sizeMean, the processNum curve at that sizeMean gives a processNum, until
//! neither moves (at most three rounds).

/// The fraction of the maximum a focal value must reach.
pub const FOCAL_FRACTION: f64 = 0.75;

/// The smallest x whose y reaches `frac` of the largest y; `None` for an
/// empty curve. `xy` need not be sorted.
pub fn at_fraction_of_max(xy: &[(f64, f64)], frac: f64) -> Option<f64> {
    let max = xy.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    if !max.is_finite() {
        return None;
    }
    xy.iter()
        .filter(|p| p.1 >= frac * max)
        .map(|p| p.0)
        .min_by(f64::total_cmp)
}

/// The geometric middle of [lo, hi], rounded down to a multiple of `align`
/// (and at least `align`).
pub fn geometric_middle(lo: u64, hi: u64, align: u64) -> u64 {
    let m = ((lo as f64) * (hi as f64)).sqrt() as u64;
    let align = align.max(1);
    (m - m % align).max(align)
}

/// Round to a multiple of `align`, at least `align`.
pub fn round_to(x: f64, align: u64) -> u64 {
    let align = align.max(1);
    let u = (x / align as f64).round().max(1.0) as u64;
    u * align
}

/// The sizeMean grid: 512 B, 4 KiB, then ×4 up to 4 MiB (quick: ×8 up to
/// 2 MiB), from `align` up, clipped to `max`. At least three values remain
/// when the unclipped grid allows.
pub fn size_grid(align: u64, max: u64, quick: bool) -> Vec<u64> {
    let full: Vec<u64> = if quick {
        vec![512, 4 << 10, 32 << 10, 256 << 10, 2 << 20]
    } else {
        vec![
            512,
            4 << 10,
            16 << 10,
            64 << 10,
            256 << 10,
            1 << 20,
            4 << 20,
        ]
    };
    let full: Vec<u64> = full.into_iter().filter(|&s| s >= align).collect();
    let full = if full.is_empty() { vec![align] } else { full };
    let within: Vec<u64> = full.iter().copied().filter(|&s| s <= max).collect();
    if within.len() >= 3 || within.len() == full.len() {
        within
    } else {
        full.into_iter().take(3).collect()
    }
}

/// The processNum grid: 1, 2, 3, 4, 6, 8, 12, 16, … up to `max` (which is
/// always included); quick: 1, 2, 4, …, `max`.
pub fn proc_grid(max: u32, quick: bool) -> Vec<u32> {
    let max = max.max(1);
    let mut v: Vec<u32> = Vec::new();
    let mut k = 1u32;
    while k < max {
        v.push(k);
        if !quick && k >= 2 {
            let mid = k + k / 2;
            if mid < max {
                v.push(mid);
            }
        }
        k *= 2;
    }
    v.push(max);
    v.dedup();
    v
}

/// The readFrac and seqFrac grid (always holds the focal 0.5).
pub fn frac_grid(quick: bool) -> Vec<f64> {
    if quick {
        vec![0.0, 0.5, 1.0]
    } else {
        vec![0.0, 0.25, 0.5, 0.75, 1.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn focal_is_the_smallest_value_reaching_three_quarters_of_the_maximum() {
        // a saturating size curve: 75 % of 400 is 300, first reached at 64K
        let xy = [
            (512.0, 20.0),
            (4096.0, 120.0),
            (16384.0, 250.0),
            (65536.0, 310.0),
            (262144.0, 390.0),
            (1048576.0, 400.0),
        ];
        assert_eq!(at_fraction_of_max(&xy, FOCAL_FRACTION), Some(65536.0));
        // a falling curve (contention): the first value is the best
        let xy = [(1.0, 100.0), (2.0, 90.0), (4.0, 60.0)];
        assert_eq!(at_fraction_of_max(&xy, FOCAL_FRACTION), Some(1.0));
        // order does not matter
        let xy = [(4.0, 100.0), (1.0, 50.0), (2.0, 80.0)];
        assert_eq!(at_fraction_of_max(&xy, FOCAL_FRACTION), Some(2.0));
        assert_eq!(at_fraction_of_max(&[], FOCAL_FRACTION), None);
    }

    #[test]
    fn geometric_middles() {
        assert_eq!(geometric_middle(1 << 20, 16 << 20, 512), 4 << 20);
        assert_eq!(geometric_middle(2 << 30, 4 << 30, 1 << 20), 2896 << 20);
        assert_eq!(geometric_middle(1, 1, 512), 512);
    }

    #[test]
    fn grids() {
        assert_eq!(proc_grid(8, false), [1, 2, 3, 4, 6, 8]);
        assert_eq!(proc_grid(8, true), [1, 2, 4, 8]);
        assert_eq!(proc_grid(1, false), [1]);
        assert_eq!(proc_grid(6, false), [1, 2, 3, 4, 6]);
        let g = size_grid(512, 4 << 20, false);
        assert_eq!(g.len(), 7);
        assert!(g.contains(&(16 << 10)));
        assert_eq!(size_grid(4096, 4 << 20, false)[0], 4096);
        // clipped to 256 KiB
        assert_eq!(size_grid(512, 256 << 10, false).last(), Some(&(256 << 10)));
        // never fewer than three
        assert_eq!(size_grid(512, 1024, false).len(), 3);
        assert!(frac_grid(true).contains(&0.5) && frac_grid(false).contains(&0.5));
    }
}
