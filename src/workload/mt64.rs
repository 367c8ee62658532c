//! MT19937-64, the 64-bit Mersenne Twister (Matsumoto & Nishimura, 2004),
//! as IOzone draws its random record order with it: `init_by_array64` of
//! the key {0x12345, 0x23456, 0x34567, 0x45678}, then `genrand64_int64`.

const NN: usize = 312;
const MM: usize = 156;
const MATRIX_A: u64 = 0xB502_6F5A_A966_19E9;
/// The most significant 33 bits.
const UM: u64 = 0xFFFF_FFFF_8000_0000;
/// The least significant 31 bits.
const LM: u64 = 0x7FFF_FFFF;

/// The generator's state.
#[derive(Clone)]
pub struct Mt64 {
    mt: Box<[u64; NN]>,
    mti: usize,
}

impl Mt64 {
    /// Seeded with one number (`init_genrand64`).
    pub fn new(seed: u64) -> Mt64 {
        let mut mt = Box::new([0u64; NN]);
        mt[0] = seed;
        for i in 1..NN {
            mt[i] = 6_364_136_223_846_793_005u64
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 62))
                .wrapping_add(i as u64);
        }
        Mt64 { mt, mti: NN }
    }

    /// Seeded with a key (`init_by_array64`).
    pub fn from_key(key: &[u64]) -> Mt64 {
        let mut g = Mt64::new(19_650_218);
        let mt = &mut g.mt;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..NN.max(key.len()) {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 62);
            mt[i] = (mt[i] ^ prev.wrapping_mul(3_935_559_000_370_003_845))
                .wrapping_add(key.get(j).copied().unwrap_or(0))
                .wrapping_add(j as u64);
            i += 1;
            j += 1;
            if i >= NN {
                mt[0] = mt[NN - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..NN - 1 {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 62);
            mt[i] = (mt[i] ^ prev.wrapping_mul(2_862_933_555_777_941_757)).wrapping_sub(i as u64);
            i += 1;
            if i >= NN {
                mt[0] = mt[NN - 1];
                i = 1;
            }
        }
        mt[0] = 1 << 63;
        g
    }

    /// IOzone's generator: the key {0x12345, 0x23456, 0x34567, 0x45678}.
    pub fn iozone() -> Mt64 {
        Mt64::from_key(&[0x12345, 0x23456, 0x34567, 0x45678])
    }

    fn twist(&mut self) {
        let mt = &mut self.mt;
        let mag = |x: u64| if x & 1 == 1 { MATRIX_A } else { 0 };
        for i in 0..NN {
            let x = (mt[i] & UM) | (mt[(i + 1) % NN] & LM);
            mt[i] = mt[(i + MM) % NN] ^ (x >> 1) ^ mag(x);
        }
        self.mti = 0;
    }

    /// The next number in [0, 2^64) (`genrand64_int64`).
    pub fn next_u64(&mut self) -> u64 {
        if self.mti >= NN {
            self.twist();
        }
        let mut x = self.mt[self.mti];
        self.mti += 1;
        x ^= (x >> 29) & 0x5555_5555_5555_5555;
        x ^= (x << 17) & 0x71D6_7FFF_EDA6_0000;
        x ^= (x << 37) & 0xFFF7_EEE0_0000_0000;
        x ^= x >> 43;
        x
    }
}

/// IOzone's random record order: a Fisher–Yates shuffle of `0..n`,
/// drawing `genrand64_int64() mod (i+1)` from the last record down, so
/// each record is visited once.
pub fn iozone_permutation(n: u64) -> Vec<u64> {
    let mut g = Mt64::iozone();
    let mut v: Vec<u64> = (0..n).collect();
    for i in (0..n).rev() {
        let j = g.next_u64() % (i + 1);
        v.swap(i as usize, j as usize);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference outputs for the key {0x12345, 0x23456, 0x34567,
    /// 0x45678}: the first five and the 1001st.
    #[test]
    fn matches_the_reference_outputs() {
        let mut g = Mt64::iozone();
        let first: Vec<u64> = (0..5).map(|_| g.next_u64()).collect();
        assert_eq!(
            first,
            [
                7_266_447_313_870_364_031,
                4_946_485_549_665_804_864,
                16_945_909_448_695_747_420,
                16_394_063_075_524_226_720,
                4_873_882_236_456_199_058,
            ]
        );
        for _ in 5..1000 {
            g.next_u64();
        }
        assert_eq!(g.next_u64(), 6_502_851_865_663_952_933);
    }

    /// IOzone 3.489's shuffle of 16 records, as its C code produces it.
    #[test]
    fn iozone_shuffles_records_as_iozone_does() {
        assert_eq!(
            iozone_permutation(16),
            [1, 5, 7, 13, 10, 6, 0, 8, 14, 3, 11, 2, 4, 12, 9, 15]
        );
        let mut p = iozone_permutation(1000);
        p.sort_unstable();
        assert_eq!(p, (0..1000).collect::<Vec<_>>());
    }
}
