//! How many requests a worker kept in flight: counted at each issue, in
//! fio's buckets (1, 2, 4, 8, 16, 32, 64 and more), with the deepest seen.

use serde::{Deserialize, Serialize};

/// The bucket bounds: a count `n` falls in the first bucket whose bound is
/// at least `n` (the last takes everything above 32).
pub const BOUNDS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// In-flight counts seen at each issue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Depths {
    /// Issues that found this many in flight (the new one counted), per
    /// bucket of [`BOUNDS`].
    pub issues: [u64; 7],
    /// The most in flight at once.
    pub max: u32,
}

impl Depths {
    /// One issue with `n` requests in flight (itself included).
    #[inline(always)]
    pub fn record(&mut self, n: u32) {
        // the first bound ≥ n is 2^ceil(log2 n)
        let b = (32 - n.saturating_sub(1).leading_zeros()) as usize;
        self.issues[b.min(BOUNDS.len() - 1)] += 1;
        self.max = self.max.max(n);
    }

    pub fn merge(&mut self, o: &Depths) {
        for (a, b) in self.issues.iter_mut().zip(o.issues) {
            *a += b;
        }
        self.max = self.max.max(o.max);
    }

    pub fn total(&self) -> u64 {
        self.issues.iter().sum()
    }

    /// The mean number in flight at an issue, from the buckets' bounds
    /// (what fio's "IO depths" line shows); 0 with no issues.
    pub fn mean_bound(&self) -> f64 {
        let n = self.total();
        if n == 0 {
            return 0.0;
        }
        let s: f64 = self
            .issues
            .iter()
            .zip(BOUNDS)
            .map(|(&c, b)| c as f64 * f64::from(b))
            .sum();
        s / n as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_fall_in_fios_buckets() {
        let mut d = Depths::default();
        for n in [1, 2, 3, 4, 5, 32, 33, 64, 200] {
            d.record(n);
        }
        assert_eq!(d.issues, [1, 1, 2, 1, 0, 1, 3]);
        assert_eq!(d.max, 200);
        let mut e = Depths::default();
        e.record(7);
        e.merge(&d);
        assert_eq!(e.issues, [1, 1, 2, 2, 0, 1, 3]);
        assert_eq!((e.max, e.total()), (200, 10));
        let mut one = Depths::default();
        one.record(32);
        one.record(16);
        assert_eq!(one.mean_bound(), 24.0);
        assert_eq!(Depths::default().mean_bound(), 0.0);
    }
}
