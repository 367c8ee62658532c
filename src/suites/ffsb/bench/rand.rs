//! FFSB's random numbers (its `rand.c`), which decide its operation stream.
//!
//! FFSB does not draw fresh random numbers: each thread reads a buffer of
//! random bytes once (20480 bytes for a benchmark thread, 2048 for the
//! building of a file set), takes them one at a time, and starts again
//! from the first byte when it has used the last. A number below `m` is
//! made of as few bytes as `m` needs (one byte for `m` < 256, two below
//! 65536, …), little-endian, taken modulo `m`. That modulo is biased: with
//! one byte and `m` = 30, the values 0–15 come from nine byte values each
//! and 16–29 from eight, so an operation whose share of the weights falls
//! in the low values runs more often than its weight says (read at
//! 14/30 = 46.7 % of the weights runs 126/256 = 49.2 % of the time).
//!
//! iogauge keeps all of it, the bytes' reuse and the order in which a
//! thread uses them (operation, file system, file, directory, size,
//! offsets), so that a profile's operations come in FFSB's shares; only
//! the bytes come from `--seed` instead of `/dev/urandom`.

use rand_xoshiro::rand_core::Rng;

use crate::workload::Prng;

/// The bytes of a benchmark thread (FFSB: `MAX_RANDBUF_SIZE` × 2).
pub(super) const THREAD_BYTES: usize = 20480;
/// The bytes of a file set's building (FFSB: `MIN_RANDBUF_SIZE` × 2).
pub(super) const BUILD_BYTES: usize = 2048;

/// One thread's buffer of random bytes, used in a cycle.
pub(crate) struct RandBytes {
    bytes: Box<[u8]>,
    next: usize,
}

impl RandBytes {
    /// `len` bytes (at least one) from `rng`.
    pub fn new(rng: &mut Prng, len: usize) -> RandBytes {
        let mut bytes = vec![0u8; len.max(1)].into_boxed_slice();
        rng.fill_bytes(&mut bytes);
        RandBytes { bytes, next: 0 }
    }

    /// Given bytes, for tests.
    #[cfg(test)]
    pub fn from_bytes(bytes: &[u8]) -> RandBytes {
        assert!(!bytes.is_empty());
        RandBytes {
            bytes: bytes.into(),
            next: 0,
        }
    }

    /// The next byte; after the last, the first again.
    #[inline]
    fn byte(&mut self) -> u8 {
        if self.next >= self.bytes.len() {
            self.next = 0;
        }
        let b = self.bytes[self.next];
        self.next += 1;
        b
    }

    /// FFSB's `getrandom(m)`: 0 for `m` ≤ 1 (no byte used); else as many
    /// bytes as `m` needs, little-endian, modulo `m`.
    #[inline]
    pub fn below(&mut self, m: u32) -> u32 {
        if m <= 1 {
            return 0;
        }
        let n = match m {
            0..=0xFF => 1,
            0x100..=0xFFFF => 2,
            0x1_0000..=0xFF_FFFF => 3,
            _ => 4,
        };
        let mut v = 0u32;
        for i in 0..n {
            v |= u32::from(self.byte()) << (8 * i);
        }
        v % m
    }

    /// FFSB's `getllrandom(m)`: 0 for 0, [`RandBytes::below`] for `m` that
    /// fits 32 bits; above that, two 32-bit words (8 bytes) modulo `m`.
    /// (FFSB on a 64-bit machine cuts such an `m` to its low 32 bits,
    /// which keeps offsets in a file larger than 4 GiB near its start;
    /// iogauge draws over the whole range.)
    #[inline]
    pub fn below64(&mut self, m: u64) -> u64 {
        if m == 0 {
            return 0;
        }
        if let Ok(m32) = u32::try_from(m) {
            return u64::from(self.below(m32));
        }
        let mut word = || {
            let mut v = 0u32;
            for i in 0..4 {
                v |= u32::from(self.byte()) << (8 * i);
            }
            u64::from(v)
        };
        let high = word();
        let low = word();
        ((high << 32) | low) % m
    }
}

/// How often each value below `m` comes out of [`RandBytes::below`] over
/// all the values its bytes can take (`m` < 65536): the exact shares of
/// FFSB's draw, for the tests and for what the docs say of its bias.
#[cfg(test)]
pub(super) fn frequencies(m: u32) -> Vec<u64> {
    assert!((2..0x1_0000).contains(&m));
    let span: u64 = if m < 0x100 { 0x100 } else { 0x1_0000 };
    let m64 = u64::from(m);
    (0..m64)
        .map(|v| span / m64 + u64::from(v < span % m64))
        .collect()
}
