//! The multiply-xor hash the solvers' tables share: one [`mix`] step per word, then the
//! murmur3 [`finalize`] (hashbrown reads both the low and the top bits of a hash).

/// The multiplier of [`mix`] (the golden ratio's 64-bit fraction).
pub const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// Folds the word `w` into the running hash `h`.
#[inline]
pub fn mix(h: u64, w: u64) -> u64 {
    let h = (h ^ w).wrapping_mul(K);
    h ^ (h >> 32)
}

/// murmur3's finaliser: spreads every bit of `h` over the whole word.
#[inline]
pub fn finalize(h: u64) -> u64 {
    let h = (h ^ (h >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}
