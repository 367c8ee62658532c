//! The bytes iogauge writes: incompressible fill, so that no file system or
//! device can elide or compress what a benchmark writes. Below every layer
//! that writes data (engines, layouts, suites).
//!
//! Also the fills fio's buffer options ask for (suites::fio::buffers
//! decides which, per write): a pattern repeated from the buffer's start
//! (fio's `cpy_pattern`), a share of each chunk left compressible (fio's
//! `__fill_random_buf_percentage`), and the few stores per 512-byte sector
//! that make every write unique (fio's `small_content_scramble`).

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

/// Fill `buf` with `pattern` repeated from its start (fio's
/// `cpy_pattern`); an empty pattern leaves it alone.
pub fn fill_pattern(buf: &mut [u8], pattern: &[u8]) {
    if pattern.is_empty() || buf.is_empty() {
        return;
    }
    let n = pattern.len().min(buf.len());
    buf[..n].copy_from_slice(&pattern[..n]);
    // double the filled part until the buffer is full
    let mut done = n;
    while done < buf.len() {
        let k = done.min(buf.len() - done);
        buf.copy_within(..k, done);
        done += k;
    }
}

/// fio's `__fill_random_buf_percentage` with `segment` = the buffer's
/// chunk: `buf` cut in chunks of `segment` bytes, each chunk
/// `segment·(100−pct)/100` random bytes (from `seed` and the chunk's
/// number) and the rest zeros, or `pattern` from the start of that rest
/// when one is given. `pct` 100: all zeros (or the pattern).
pub fn fill_percentage(buf: &mut [u8], seed: u64, pct: u32, segment: usize, pattern: &[u8]) {
    let pct = pct.min(100) as usize;
    let segment = segment.max(1);
    for (i, chunk) in buf.chunks_mut(segment).enumerate() {
        let random = (segment * (100 - pct) / 100).min(chunk.len());
        let (r, rest) = chunk.split_at_mut(random);
        if !r.is_empty() {
            let mut g = Xoshiro256PlusPlus::seed_from_u64(mix(seed, i as u64));
            g.fill_bytes(r);
        }
        if pattern.is_empty() {
            rest.fill(0);
        } else {
            fill_pattern(rest, pattern);
        }
    }
}

/// A 64-bit mix of two words (splitmix64's finaliser): distinct inputs,
/// unrelated outputs.
#[inline]
pub fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// fio's `small_content_scramble`: in each whole 512-byte sector of `buf`
/// (a write at file offset `offset`), the sector's offset goes in one of
/// its eight 64-byte lines (which one: `stamp[0]` and the offset pick)
/// and the two words of `stamp` at bytes 48..64, where fio puts the
/// write's issue time. Three stores per sector: two writes of a job never
/// carry the same sector when their offsets or stamps differ.
#[inline]
pub fn scramble(buf: &mut [u8], offset: u64, stamp: [u64; 2]) {
    let line = (((stamp[0] ^ (offset >> 9)) & 7) as usize) << 6;
    let (a, b) = (stamp[0].to_le_bytes(), stamp[1].to_le_bytes());
    let mut off = offset;
    for s in buf.chunks_exact_mut(512) {
        s[48..56].copy_from_slice(&a);
        s[56..64].copy_from_slice(&b);
        s[line..line + 8].copy_from_slice(&off.to_le_bytes());
        off = off.wrapping_add(512);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_repeats_from_the_buffer_start() {
        let mut b = [0u8; 11];
        fill_pattern(&mut b, &[1, 2, 3, 4]);
        assert_eq!(b, [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3]);
        let mut b = [9u8; 3];
        fill_pattern(&mut b, &[1, 2, 3, 4, 5]);
        assert_eq!(b, [1, 2, 3]);
    }

    #[test]
    fn a_percentage_fill_leaves_that_share_of_each_chunk_compressible() {
        let mut b = vec![0xffu8; 4096];
        fill_percentage(&mut b, 7, 25, 512, &[]);
        for c in b.chunks(512) {
            // 384 random bytes, then 128 zeros
            assert!(c[..384].iter().filter(|&&x| x == 0).count() < 16);
            assert!(c[384..].iter().all(|&x| x == 0));
        }
        // each chunk its own random bytes
        assert_ne!(b[..384], b[512..896]);
        // the compressible part takes the pattern, from its own start
        fill_percentage(&mut b, 7, 50, 512, b"ab");
        assert_eq!(&b[256..260], b"abab");
        assert_eq!(&b[768..772], b"abab");
        // the same seed, the same bytes
        let mut c = vec![0u8; 4096];
        fill_percentage(&mut c, 7, 50, 512, b"ab");
        assert_eq!(b, c);
        fill_percentage(&mut c, 100, 100, 512, &[]);
        assert!(c.iter().all(|&x| x == 0));
    }

    #[test]
    fn scrambling_stamps_every_sector_with_its_offset() {
        let mut b = vec![0u8; 2048 + 100];
        scramble(&mut b, 8192, [3, 4]);
        let line = (((3 ^ (8192 >> 9)) & 7) as usize) << 6;
        for (i, s) in b.chunks_exact(512).enumerate() {
            let at = |o: usize| u64::from_le_bytes(s[o..o + 8].try_into().unwrap());
            assert_eq!(at(line), 8192 + 512 * i as u64);
            assert_eq!((at(48), at(56)), (3, 4));
        }
        // the tail shorter than a sector is left alone
        assert!(b[2048..].iter().all(|&x| x == 0));
    }

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
