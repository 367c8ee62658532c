//! The bytes iogauge writes: incompressible fill, so that no file system or
//! device can elide or compress what a benchmark writes. Below every layer
//! that writes data (engines, layouts, suites).

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// Fill `buf` with incompressible bytes derived from `seed` (no run of
/// zeros that a file system or device could elide).
pub fn fill_random(buf: &mut [u8], seed: u64) {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x696f_6761_7567_6521);
    r.fill_bytes(buf);
    // make every 8th byte non-zero: no all-zero sector can occur
    for b in buf.iter_mut().step_by(8) {
        *b |= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_fill_is_incompressible() {
        let mut b = vec![0u8; 1 << 16];
        fill_random(&mut b, 3);
        assert!(b.chunks(512).all(|s| s.iter().any(|&x| x != 0)));
        let distinct = b.iter().collect::<std::collections::HashSet<_>>().len();
        assert_eq!(distinct, 256);
    }

    #[test]
    fn the_same_seed_fills_the_same_bytes() {
        let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
        fill_random(&mut a, 9);
        fill_random(&mut b, 9);
        assert_eq!(a, b);
        fill_random(&mut b, 10);
        assert_ne!(a, b);
    }
}
