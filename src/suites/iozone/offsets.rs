//! Where each of IOzone's tests puts its records, as IOzone 3.489 moves
//! its file offset: the record numbers of one pass, in order. (The
//! sequential tests are 0, 1, 2, …; the others are below.)

use crate::workload::mt64::iozone_permutation;

/// Read backwards: the last record first, then each one before it (IOzone
/// seeks to the end less one record, then back two records after each
/// read).
pub fn backwards(numrecs: u64) -> impl Iterator<Item = u64> {
    (0..numrecs).rev()
}

/// Record rewrite: the same record, the first, written `numrecs` times.
pub fn record_rewrite(numrecs: u64) -> impl Iterator<Item = u64> {
    std::iter::repeat_n(0, numrecs as usize)
}

/// Random read and random write: each record once, in IOzone's shuffled
/// order (the same order for both passes).
pub fn random(numrecs: u64) -> Vec<u64> {
    iozone_permutation(numrecs)
}

/// Stride read (`-j stride`, 17 by default): read a record, jump `stride`
/// records ahead of it; when the next jump would reach the last record or
/// beyond, wrap to record `wraps mod numrecs` (record 0 when the file has
/// no more records than the stride). `numrecs` reads in all.
pub fn stride(numrecs: u64, stride: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(numrecs as usize);
    let mut pos = 0u64;
    let mut wraps = 0u64;
    for _ in 0..numrecs {
        out.push(pos);
        // IOzone: current_position + stride·reclen >= numrecs·reclen − reclen,
        // with current_position already past the record just read
        let after = pos + 1;
        if after + stride >= numrecs.saturating_sub(1) {
            wraps += 1;
            pos = if numrecs <= stride {
                0
            } else {
                wraps % numrecs
            };
        } else {
            pos = after + stride - 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backwards_ends_at_the_first_record() {
        assert_eq!(backwards(4).collect::<Vec<_>>(), [3, 2, 1, 0]);
    }

    #[test]
    fn record_rewrite_writes_record_zero_each_time() {
        assert_eq!(record_rewrite(3).collect::<Vec<_>>(), [0, 0, 0]);
    }

    #[test]
    fn stride_jumps_and_wraps_as_iozone_does() {
        // 64 records, stride 17: 0, 17, 34, 51 (the next jump would pass
        // the last record), then 1, 18, 35, 52, 2, …
        let s = stride(64, 17);
        assert_eq!(s.len(), 64);
        assert_eq!(&s[..9], [0, 17, 34, 51, 1, 18, 35, 52, 2]);
        // a file no longer than the stride reads record 0 over and over
        assert_eq!(stride(8, 17), [0; 8]);
        // stride 1 reads every record in turn until the end comes near
        assert_eq!(&stride(10, 1)[..4], [0, 1, 2, 3]);
    }

    #[test]
    fn random_visits_every_record_once() {
        let mut r = random(100);
        r.sort_unstable();
        assert_eq!(r, (0..100).collect::<Vec<_>>());
    }
}
