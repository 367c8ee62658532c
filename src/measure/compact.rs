//! A compact latency record, for runs of a thousand workers (IOBENCH's
//! users).
//!
//! The measurement core's histograms (HDR, 1 ns … 1 h, 3 digits) take about
//! 270 KB each; five op kinds for 1000 users would be 1.3 GB. Each worker
//! keeps instead, per op kind, the exact moments (count, sum, sum of
//! squares, min, max: mean, stddev, min and max stay exact) and a
//! log-linear histogram of 64 buckets per power of two (2368 `u32`
//! counters, 9.5 KB). After the run the workers' buckets are added together
//! ([`KindSum`]) and poured into one [`KindStats`] at each bucket's middle,
//! clamped to the exact min and max, so a percentile is off by at most half
//! a bucket: 0.8 % of the value (plus HDR's 0.1 %). Values below 64 ns are
//! exact.

use super::{KindStats, Moments};
use serde::{Deserialize, Serialize};

const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;
/// Powers of two covered: values up to 2^42 ns (73 minutes); longer ones
/// fall in the last bucket (their exact value is in `max`).
const TOP_BIT: u32 = 42;
pub const BUCKETS: usize = (SUB + (TOP_BIT - SUB_BITS) as u64 * SUB) as usize;

#[inline]
fn index(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let e = 63 - v.leading_zeros();
    if e >= TOP_BIT {
        return BUCKETS - 1;
    }
    let shift = e - SUB_BITS;
    (SUB + (e - SUB_BITS) as u64 * SUB + ((v >> shift) & (SUB - 1))) as usize
}

/// The range [lo, hi] of values bucket `i` holds.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, i);
    }
    let e = (i - SUB) / SUB + SUB_BITS as u64;
    let sub = (i - SUB) % SUB;
    let shift = e - SUB_BITS as u64;
    let lo = (1u64 << e) + (sub << shift);
    (lo, lo + (1u64 << shift) - 1)
}

/// Exact moments and bucketed latencies of one op kind of one user.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KindRec {
    pub count: u64,
    pub bytes: u64,
    pub sum_ns: u128,
    pub sumsq_ns: u128,
    pub min_ns: u64,
    pub max_ns: u64,
    #[serde(with = "sparse")]
    counts: Vec<u32>,
    /// Buckets that overflowed a `u32`: each entry adds 2^32 to its bucket.
    spill: Vec<u32>,
}

impl Default for KindRec {
    fn default() -> Self {
        Self::new()
    }
}

impl KindRec {
    pub fn new() -> Self {
        KindRec {
            count: 0,
            bytes: 0,
            sum_ns: 0,
            sumsq_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            counts: vec![0; BUCKETS],
            spill: Vec::with_capacity(4),
        }
    }

    #[inline]
    pub fn record(&mut self, lat_ns: u64, bytes: u64) {
        self.count += 1;
        self.bytes += bytes;
        self.sum_ns += lat_ns as u128;
        self.sumsq_ns += lat_ns as u128 * lat_ns as u128;
        self.min_ns = self.min_ns.min(lat_ns);
        self.max_ns = self.max_ns.max(lat_ns);
        let i = index(lat_ns);
        let c = &mut self.counts[i];
        if *c == u32::MAX {
            self.overflow(i);
        } else {
            *c += 1;
        }
    }

    #[cold]
    fn overflow(&mut self, i: usize) {
        self.counts[i] = 0;
        self.spill.push(i as u32);
    }

    pub fn mean_ns(&self) -> f64 {
        self.moments().mean_ns()
    }

    pub fn stddev_ns(&self) -> f64 {
        self.moments().stddev_ns()
    }

    fn moments(&self) -> Moments {
        Moments {
            count: self.count,
            sum: self.sum_ns,
            sumsq: self.sumsq_ns,
        }
    }
}

/// Many users' records of one kind added together (u64 buckets), turned
/// into a measurement-core [`KindStats`] once.
#[derive(Clone, Debug)]
pub struct KindSum {
    pub count: u64,
    pub bytes: u64,
    pub sum_ns: u128,
    pub sumsq_ns: u128,
    pub min_ns: u64,
    pub max_ns: u64,
    counts: Vec<u64>,
}

impl Default for KindSum {
    fn default() -> Self {
        KindSum {
            count: 0,
            bytes: 0,
            sum_ns: 0,
            sumsq_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            counts: vec![0; BUCKETS],
        }
    }
}

impl KindSum {
    pub fn add(&mut self, r: &KindRec) {
        self.count += r.count;
        self.bytes += r.bytes;
        self.sum_ns += r.sum_ns;
        self.sumsq_ns += r.sumsq_ns;
        self.min_ns = self.min_ns.min(r.min_ns);
        self.max_ns = self.max_ns.max(r.max_ns);
        for (a, &b) in self.counts.iter_mut().zip(&r.counts) {
            *a += b as u64;
        }
        for &i in &r.spill {
            self.counts[i as usize] += 1 << 32;
        }
    }

    pub fn to_kind_stats(&self) -> KindStats {
        let mut k = KindStats::new();
        k.count = self.count;
        k.bytes = self.bytes;
        k.sum_ns = self.sum_ns;
        k.sumsq_ns = self.sumsq_ns;
        k.min_ns = self.min_ns;
        k.max_ns = self.max_ns;
        for (i, &c) in self.counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let (lo, hi) = bounds(i);
            let mid = (lo + (hi - lo) / 2).clamp(self.min_ns, self.max_ns);
            k.record_hist_n(mid, c);
        }
        k
    }
}

/// Buckets travel (process users → controller) as `[index, count]` pairs of
/// the non-empty ones.
mod sparse {
    use super::BUCKETS;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &[u32], s: S) -> Result<S::Ok, S::Error> {
        let pairs: Vec<(u32, u32)> = v
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| (i as u32, *c))
            .collect();
        pairs.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        let pairs: Vec<(u32, u32)> = Vec::deserialize(d)?;
        let mut v = vec![0u32; BUCKETS];
        for (i, c) in pairs {
            let slot = v
                .get_mut(i as usize)
                .ok_or_else(|| serde::de::Error::custom("bucket index out of range"))?;
            *slot = c;
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_range() {
        let mut next = 0u64;
        for i in 0..BUCKETS {
            let (lo, hi) = bounds(i);
            assert_eq!(lo, next, "bucket {i}");
            assert!(hi >= lo);
            assert_eq!(index(lo), i);
            assert_eq!(index(hi), i);
            // at most 1/64 of the value wide
            assert!(
                (hi - lo) as f64 <= lo as f64 / 64.0,
                "bucket {i}: {lo}..{hi}"
            );
            next = hi + 1;
        }
        assert_eq!(next, 1 << TOP_BIT);
        assert_eq!(index(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn percentiles_within_a_percent_and_moments_exact() {
        let mut st = 11u64;
        let mut r = KindRec::new();
        let mut raw = Vec::new();
        let mut exact = KindStats::new();
        for _ in 0..50_000 {
            st = st
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (st >> 11) as f64 / (1u64 << 53) as f64;
            let v = (50.0 * (1e6f64).powf(u)) as u64;
            raw.push(v);
            r.record(v, 10);
            exact.record(v, 10);
        }
        let mut sum = KindSum::default();
        sum.add(&r);
        let k = sum.to_kind_stats();
        raw.sort_unstable();
        for q in [50.0, 90.0, 99.0, 99.9] {
            let want = raw[((q / 100.0) * raw.len() as f64).ceil() as usize - 1] as f64;
            let got = k.percentile_ns(q) as f64;
            assert!(
                (got - want).abs() <= want * 0.009 + 1.0,
                "p{q}: {got} vs {want}"
            );
        }
        assert_eq!(k.summary().mean, exact.summary().mean);
        assert_eq!(k.summary().stddev, exact.summary().stddev);
        assert_eq!(
            (k.min_ns, k.max_ns, k.count, k.bytes),
            (exact.min_ns, exact.max_ns, 50_000, 500_000)
        );
        assert!((r.mean_ns() - exact.mean_ns()).abs() < 1e-9);
        assert!((r.stddev_ns() - exact.stddev_ns()).abs() < 1e-6);
    }

    #[test]
    fn percentiles_stay_inside_min_and_max() {
        let mut r = KindRec::new();
        for _ in 0..10 {
            r.record(995, 0);
        }
        let mut s = KindSum::default();
        s.add(&r);
        let k = s.to_kind_stats();
        assert!(k.percentile_ns(99.99) as f64 <= 995.0 * 1.001 + 1.0);
        assert!(k.percentile_ns(50.0) as f64 >= 995.0 / 1.001 - 1.0);
    }

    #[test]
    fn sparse_serialisation_round_trips() {
        let mut r = KindRec::new();
        for v in [1u64, 100, 100, 1 << 30] {
            r.record(v, 1);
        }
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.len() < 300, "{text}");
        let back: KindRec = serde_json::from_str(&text).unwrap();
        assert_eq!(back.counts, r.counts);
        assert_eq!(back.sum_ns, r.sum_ns);
    }

    #[test]
    fn overflowing_buckets_spill() {
        let mut r = KindRec::new();
        r.counts[index(7)] = u32::MAX;
        r.record(7, 0);
        r.record(7, 0);
        let mut s = KindSum::default();
        s.add(&r);
        assert_eq!(s.counts[index(7)], (1u64 << 32) + 1);
    }
}
