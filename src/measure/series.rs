//! Throughput over time: per-second buckets of ops and bytes.

/// Ops and bytes completed in each whole second since the start of
/// measurement. Buckets are reserved ahead (an hour's worth), so adding does
/// not allocate during a timed run shorter than that.
#[derive(Clone, Debug, Default)]
pub struct TimeSeries {
    ops: Vec<u64>,
    bytes: Vec<u64>,
    /// The bucket being filled and where it ends: spares a division per op.
    cur: usize,
    cur_start: u64,
    cur_end: u64,
}

impl PartialEq for TimeSeries {
    fn eq(&self, other: &Self) -> bool {
        self.ops == other.ops && self.bytes == other.bytes
    }
}

pub const INTERVAL_NS: u64 = 1_000_000_000;

impl TimeSeries {
    pub fn with_capacity(seconds: usize) -> Self {
        TimeSeries {
            ops: Vec::with_capacity(seconds),
            bytes: Vec::with_capacity(seconds),
            ..Default::default()
        }
    }

    #[inline]
    pub fn add(&mut self, at_ns: u64, ops: u64, bytes: u64) {
        if at_ns < self.cur_start || at_ns >= self.cur_end {
            self.seek(at_ns);
        }
        self.ops[self.cur] += ops;
        self.bytes[self.cur] += bytes;
    }

    #[cold]
    fn seek(&mut self, at_ns: u64) {
        let i = (at_ns / INTERVAL_NS) as usize;
        if i >= self.ops.len() {
            self.ops.resize(i + 1, 0);
            self.bytes.resize(i + 1, 0);
        }
        self.cur = i;
        self.cur_start = i as u64 * INTERVAL_NS;
        self.cur_end = self.cur_start + INTERVAL_NS;
    }

    pub fn merge(&mut self, other: &TimeSeries) {
        self.merge_at(other, 0);
    }

    /// Add `other` as if it had started `offset_ns` after this series did
    /// (runs laid end to end: a suite's phases).
    pub fn merge_at(&mut self, other: &TimeSeries, offset_ns: u64) {
        for (i, (&o, &b)) in other.ops.iter().zip(other.bytes.iter()).enumerate() {
            self.add(offset_ns + i as u64 * INTERVAL_NS, o, b);
        }
    }

    pub fn clear(&mut self) {
        self.ops.clear();
        self.bytes.clear();
        (self.cur, self.cur_start, self.cur_end) = (0, 0, 0);
    }

    pub fn ops(&self) -> &[u64] {
        &self.ops
    }

    pub fn bytes(&self) -> &[u64] {
        &self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_by_whole_seconds() {
        let mut t = TimeSeries::with_capacity(4);
        t.add(0, 1, 10);
        t.add(999_999_999, 1, 10);
        t.add(2_500_000_000, 1, 5);
        assert_eq!(t.ops(), &[2, 0, 1]);
        assert_eq!(t.bytes(), &[20, 0, 5]);
        let mut u = TimeSeries::default();
        u.add(1_000_000_000, 4, 4);
        u.merge(&t);
        assert_eq!(u.ops(), &[2, 4, 1]);
    }
}
