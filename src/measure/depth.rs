//! How many requests a worker kept in flight: counted at each issue, in
//! fio's buckets (1, 2–3, 4–7, 8–15, 16–31, 32–63, 64 and more, each named
//! by its lowest count), with the deepest seen.

use serde::{Deserialize, Serialize};

/// The buckets' lowest counts: a count `n` falls in the last bucket whose
/// bound is at most `n` (1, 2–3, 4–7, …, 64 and more), as fio's
/// `io_u_mark_depth`.
pub const BOUNDS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// In-flight counts seen at each issue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Depths {
    /// Issues that found this many in flight (the new one counted), per
    /// bucket of [`BOUNDS`].
    pub issues: [u64; 7],
    /// The most in flight at once.
    pub max: u32,
    /// Submissions (a commit of queued requests to the kernel) per count
    /// submitted at once, in fio's `io_u_submit` buckets: 0, 1–4, 5–8,
    /// 9–16, 17–32, 33–64, more. Counted only where requests are queued.
    #[serde(default)]
    pub submits: [u64; 7],
    /// Waits for completions per count reaped at once, in the same buckets
    /// (fio's `io_u_complete`): a wait that came back empty counts in 0.
    #[serde(default)]
    pub completes: [u64; 7],
}

/// fio's bucket of a count submitted or reaped at once (`__io_u_mark_map`).
#[inline]
pub fn batch_bucket(n: usize) -> usize {
    match n {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

impl Depths {
    /// One issue with `n` requests in flight (itself included).
    #[inline(always)]
    pub fn record(&mut self, n: u32) {
        // the last bound ≤ n is 2^floor(log2 n)
        let b = (31 - n.max(1).leading_zeros()) as usize;
        self.issues[b.min(BOUNDS.len() - 1)] += 1;
        self.max = self.max.max(n);
    }

    /// One submission of `n` queued requests.
    #[inline]
    pub fn record_submit(&mut self, n: usize) {
        self.submits[batch_bucket(n)] += 1;
    }

    /// One wait for completions that brought `n` back.
    #[inline]
    pub fn record_complete(&mut self, n: usize) {
        self.completes[batch_bucket(n)] += 1;
    }

    pub fn merge(&mut self, o: &Depths) {
        for (a, b) in self.issues.iter_mut().zip(o.issues) {
            *a += b;
        }
        for (a, b) in self.submits.iter_mut().zip(o.submits) {
            *a += b;
        }
        for (a, b) in self.completes.iter_mut().zip(o.completes) {
            *a += b;
        }
        self.max = self.max.max(o.max);
    }

    pub fn total(&self) -> u64 {
        self.issues.iter().sum()
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
        // fio: 1 | 2–3 | 4–7 | 8–15 | 16–31 | 32–63 | 64+
        assert_eq!(d.issues, [1, 2, 2, 0, 0, 2, 2]);
        assert_eq!(d.max, 200);
        let mut e = Depths::default();
        e.record(7);
        e.merge(&d);
        assert_eq!(e.issues, [1, 2, 3, 0, 0, 2, 2]);
        assert_eq!((e.max, e.total()), (200, 10));
    }

    #[test]
    fn batches_fall_in_fios_submit_buckets() {
        let mut d = Depths::default();
        for n in [0, 1, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65, 1000] {
            d.record_submit(n);
            d.record_complete(n);
        }
        assert_eq!(d.submits, [1, 2, 2, 2, 2, 2, 2]);
        let mut e = Depths::default();
        e.record_complete(3);
        e.merge(&d);
        assert_eq!(e.completes, [1, 3, 2, 2, 2, 2, 2]);
        assert_eq!(e.submits, d.submits);
    }
}
