//! Fixed-length bitsets stored as `u64` words, plus slice-level kernels the solvers use
//! on borrowed words without allocating.

/// Number of `u64` words needed for `len` bits.
#[inline]
pub fn words_for(len: usize) -> usize {
    len.div_ceil(64)
}

/// `out = a & b`, word by word.
#[inline]
pub fn and_into(out: &mut [u64], a: &[u64], b: &[u64]) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = x & y;
    }
}

/// `out = a & !b`, word by word.
#[inline]
pub fn and_not_into(out: &mut [u64], a: &[u64], b: &[u64]) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = x & !y;
    }
}

/// Number of set bits in `words`.
#[inline]
pub fn popcount(words: &[u64]) -> usize {
    words.iter().map(|w| w.count_ones() as usize).sum()
}

/// True when no bit is set.
#[inline]
pub fn is_empty(words: &[u64]) -> bool {
    words.iter().all(|&w| w == 0)
}

/// Calls `f` with the index of every set bit, in increasing order.
#[inline]
pub fn for_each_one(words: &[u64], mut f: impl FnMut(usize)) {
    for (i, &word) in words.iter().enumerate() {
        let mut w = word;
        while w != 0 {
            let bit = w.trailing_zeros() as usize;
            f(i * 64 + bit);
            w &= w - 1;
        }
    }
}

/// Runs `f` compiled with the population-count instruction where the CPU has it (`f` is
/// inlined into a function with it enabled), else as is: the x86-64 baseline counts the
/// bits of a word in a dozen instructions.
#[inline(always)]
pub fn with_popcount<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        #[target_feature(enable = "popcnt")]
        fn popcnt<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        // SAFETY: the CPU has the instruction, checked just above.
        return unsafe { popcnt(f) };
    }
    f()
}

/// Proof that the CPU extracts bits by a mask in one instruction (BMI2's `pext`), handed
/// out only by [`with_bit_extract`].
#[derive(Clone, Copy, Debug)]
pub struct BitExtract(());

impl BitExtract {
    /// The bits of `x` at the positions set in `mask`, packed into the low bits in order.
    #[inline(always)]
    pub fn extract(self, x: u64, mask: u64) -> u64 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `BitExtract` exists only where the CPU has BMI2 (`with_bit_extract`).
        unsafe {
            std::arch::x86_64::_pext_u64(x, mask)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = self;
            extract_bits(x, mask)
        }
    }
}

/// The bits of `x` at the positions set in `mask`, packed into the low bits in order
/// (what [`BitExtract::extract`] computes in one instruction), bit by bit.
pub fn extract_bits(x: u64, mask: u64) -> u64 {
    let (mut out, mut m, mut i) = (0u64, mask, 0);
    while m != 0 {
        let bit = m.trailing_zeros();
        out |= ((x >> bit) & 1) << i;
        i += 1;
        m &= m - 1;
    }
    out
}

/// True when `pext` takes a cycle or so: BMI2 present, and not an AMD CPU before Zen 3
/// (family 0x19), which microcodes it at tens to hundreds of cycles.
#[cfg(target_arch = "x86_64")]
fn fast_pext() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    static KNOWN: AtomicU8 = AtomicU8::new(0);
    match KNOWN.load(Ordering::Relaxed) {
        1 => return false,
        2 => return true,
        _ => {}
    }
    let fast = std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("popcnt") && {
        let (vendor, signature) = (std::arch::x86_64::__cpuid(0), std::arch::x86_64::__cpuid(1));
        let amd = vendor.ebx == u32::from_le_bytes(*b"Auth");
        let family = ((signature.eax >> 8) & 0xf) + if (signature.eax >> 8) & 0xf == 0xf { (signature.eax >> 20) & 0xff } else { 0 };
        !amd || family >= 0x19
    };
    KNOWN.store(if fast { 2 } else { 1 }, Ordering::Relaxed);
    fast
}

/// Runs `f` compiled with population counts and bit extraction, given a [`BitExtract`],
/// where the CPU has both and extraction is fast; else as [`with_popcount`], given `None`.
#[inline(always)]
pub fn with_bit_extract<R>(f: impl FnOnce(Option<BitExtract>) -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if fast_pext() {
        #[target_feature(enable = "popcnt,bmi2")]
        fn bmi2<R>(f: impl FnOnce(Option<BitExtract>) -> R) -> R {
            f(Some(BitExtract(())))
        }
        // SAFETY: the CPU has both, checked just above.
        return unsafe { bmi2(f) };
    }
    with_popcount(|| f(None))
}

/// For rows of `m` words each (`rows`, row-major) and a column `i < m`: adds to
/// `counts[j - i]`, for every column `j` in `i..m`, the population count of
/// `row[i] & row[j]` summed over the rows (`counts` holds `m - i` counts). The pair
/// counts of the depth-two kernel's triangle, one root column at a time: with AVX-512's
/// vector population count (detected at run time) eight columns per instruction,
/// else word by word.
#[inline(always)]
pub fn add_pair_counts(rows: &[u64], m: usize, i: usize, counts: &mut [u32]) {
    debug_assert!(i < m && counts.len() == m - i && rows.len() % m == 0);
    #[cfg(target_arch = "x86_64")]
    if vector_popcount() {
        // SAFETY: the CPU has AVX-512F and VPOPCNTDQ, checked just above.
        unsafe { add_pair_counts_avx512(rows, m, i, counts) };
        return;
    }
    add_pair_counts_words(rows, m, i, counts);
}

/// [`add_pair_counts`] word by word.
#[inline(always)]
pub fn add_pair_counts_words(rows: &[u64], m: usize, i: usize, counts: &mut [u32]) {
    for row in rows.chunks_exact(m) {
        let a = row[i];
        if a != 0 {
            for (n, b) in counts.iter_mut().zip(&row[i..]) {
                *n += (a & b).count_ones();
            }
        }
    }
}

/// For rows of `m` words each (`rows`, row-major): adds `weight` times the population
/// count of `row[i] & row[j]`, summed over the rows, to the sum of every pair `i <= j`
/// of the upper triangle with its diagonal kept row by row in `sums` (row `i` holds the
/// pairs `(i, j)` for `j = i..m`): the depth-two kernel's triangle of one value plane.
/// Each sum takes `s += weight * n as f64` for its count `n` (the same floating-point
/// operations on either path); a column with no bit in any row adds nothing. With
/// AVX-512's vector population count (detected at run time) eight pairs per instruction
/// and no scratch, else pair by pair through `counts`.
#[inline(always)]
pub fn add_pair_sums(rows: &[u64], m: usize, weight: f64, sums: &mut [f64], counts: &mut Vec<u32>) {
    debug_assert!(rows.len() % m.max(1) == 0 && sums.len() >= m * (m + 1) / 2);
    #[cfg(target_arch = "x86_64")]
    if vector_popcount() {
        // SAFETY: the CPU has AVX-512F and VPOPCNTDQ, checked just above.
        unsafe { add_pair_sums_avx512(rows, m, weight, sums) };
        return;
    }
    add_pair_sums_words(rows, m, weight, sums, counts);
}

/// [`add_pair_sums`] pair by pair.
#[inline(always)]
pub fn add_pair_sums_words(rows: &[u64], m: usize, weight: f64, sums: &mut [f64], counts: &mut Vec<u32>) {
    counts.resize(m, 0);
    let mut start = 0;
    for i in 0..m {
        let counts = &mut counts[i..m];
        counts.fill(0);
        add_pair_counts_words(rows, m, i, counts);
        // The diagonal is the column's own count: none, no pair either.
        if counts[0] != 0 {
            for (s, &n) in sums[start..start + m - i].iter_mut().zip(counts.iter()) {
                *s += weight * n as f64;
            }
        }
        start += m - i;
    }
}

/// Blocks of eight columns [`add_pair_sums_avx512`] and [`add_pair_counts_avx512`] count
/// in one pass over the rows at most: each row's root word is loaded and broadcast once
/// for all of them.
#[cfg(target_arch = "x86_64")]
const BLOCKS: usize = 4;

/// [`add_pair_sums`] eight pairs at a time: per row `i` of the triangle and up to
/// [`BLOCKS`] blocks of eight columns `j`, the counts summed in vectors
/// ([`block_pair_counts`]), then converted, scaled and added to each block's eight sums
/// in vectors (masked past the row's end). Every count is below 2^31 (a row of
/// `rows.len() / m` words), so the conversion through 32-bit integers is exact, and the
/// products and sums round as the scalar ones do.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512 VPOPCNTDQ ([`vector_popcount`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn add_pair_sums_avx512(rows: &[u64], m: usize, weight: f64, sums: &mut [f64]) {
    use std::arch::x86_64::*;
    let w = _mm512_set1_pd(weight);
    let mut start = 0;
    for i in 0..m {
        let len = m - i;
        let mut j = 0;
        while j < len {
            // SAFETY: the CPU has the features (this function's contract); the blocks'
            // lanes lie within row i's columns i + j .. m.
            let (blocks, counted) = unsafe { pair_blocks(rows, m, i, i + j, len - j) };
            let Some(acc) = counted else {
                // Column i has no bit: no pair of row i has any.
                break;
            };
            for (b, (mask, acc)) in acc.into_iter().take(blocks).enumerate() {
                let counts = _mm512_cvtepi32_pd(_mm512_cvtepi64_epi32(acc));
                // SAFETY: sums start + j + 8b .. are pairs (i, i + j + 8b ..) of row i,
                // within the triangle; the masked-off lanes are neither read nor written.
                unsafe {
                    let at = sums.as_mut_ptr().add(start + j + 8 * b);
                    let s = _mm512_maskz_loadu_pd(mask, at);
                    _mm512_mask_storeu_pd(at, mask, _mm512_add_pd(s, _mm512_mul_pd(w, counts)));
                }
            }
            j += 8 * blocks;
        }
        start += len;
    }
}

/// The next blocks of eight columns `j..` of root column `i` when `left` columns are
/// left: as many as they fill, up to [`BLOCKS`], counted in one pass over the rows
/// ([`block_pair_counts`]). Returns how many, and per block its lane mask and counts;
/// `None` when column `i` has no bit in any row.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512 VPOPCNTDQ, and `j + left <= m`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
#[inline]
unsafe fn pair_blocks(rows: &[u64], m: usize, i: usize, j: usize, left: usize) -> (usize, Option<[(std::arch::x86_64::__mmask8, std::arch::x86_64::__m512i); BLOCKS]>) {
    use std::arch::x86_64::*;
    let masks = lane_masks(left);
    let blocks = left.div_ceil(8).min(BLOCKS);
    let mut out = [(0, _mm512_setzero_si512()); BLOCKS];
    // SAFETY (all three): the lanes of the first `B` masks lie within the row (the
    // caller's contract).
    let any = match blocks {
        1 => unsafe { block_pair_counts::<1>(rows, m, i, j, masks, &mut out) },
        2 => unsafe { block_pair_counts::<2>(rows, m, i, j, masks, &mut out) },
        _ => unsafe { block_pair_counts::<BLOCKS>(rows, m, i, j, masks, &mut out) },
    };
    (blocks, (any != 0).then_some(out))
}

/// The lane masks of the next [`BLOCKS`] blocks of eight when `left` lanes are left
/// (empty past them).
#[cfg(target_arch = "x86_64")]
#[inline]
fn lane_masks(left: usize) -> [std::arch::x86_64::__mmask8; BLOCKS] {
    std::array::from_fn(|b| {
        let lanes = left.saturating_sub(8 * b).min(8);
        if lanes == 8 {
            0xff
        } else {
            (1u8 << lanes) - 1
        }
    })
}

/// For rows of `m` words each (`rows`, row-major), the rows `at` and a word per such row
/// (`words`): adds to `counts[f]`, for every column `f`, the population count of
/// `rows[at[r]][f] & words[r]` summed over `r`: the per-column sums of a set's groups
/// from the groups' bits kept word by word. With AVX-512's vector population count
/// (detected at run time) eight columns per instruction, else word by word.
pub fn add_row_counts(rows: &[u64], m: usize, at: &[u32], words: &[u64], counts: &mut [u32]) {
    debug_assert!(at.len() == words.len() && counts.len() == m);
    #[cfg(target_arch = "x86_64")]
    if vector_popcount() {
        // SAFETY: the CPU has AVX-512F and VPOPCNTDQ, checked just above.
        unsafe { add_row_counts_avx512(rows, m, at, words, counts) };
        return;
    }
    with_popcount(
        #[inline(always)]
        || {
            for (&r, &s) in at.iter().zip(words) {
                for (n, x) in counts.iter_mut().zip(&rows[r as usize * m..(r as usize + 1) * m]) {
                    *n += (x & s).count_ones();
                }
            }
        },
    )
}

/// [`add_row_counts`], [`BLOCKS`] blocks of eight columns per pass over the rows.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512 VPOPCNTDQ ([`vector_popcount`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn add_row_counts_avx512(rows: &[u64], m: usize, at: &[u32], words: &[u64], counts: &mut [u32]) {
    use std::arch::x86_64::*;
    let mut f = 0;
    while f < m {
        let masks = lane_masks(m - f);
        let mut acc = [_mm512_setzero_si512(); BLOCKS];
        for (&r, &s) in at.iter().zip(words) {
            let s = _mm512_set1_epi64(s as i64);
            let row = &rows[r as usize * m..(r as usize + 1) * m];
            for (b, acc) in acc.iter_mut().enumerate() {
                // SAFETY: the lanes of masks[b] lie within the row (columns f + 8b .. m);
                // a block past the row's end has none, and nothing is read for it (the
                // address is only formed).
                let x = unsafe { _mm512_maskz_loadu_epi64(masks[b], row.as_ptr().wrapping_add(f + 8 * b) as *const i64) };
                *acc = _mm512_add_epi64(*acc, _mm512_popcnt_epi64(_mm512_and_si512(s, x)));
            }
        }
        for (b, &acc) in acc.iter().enumerate().take((m - f).div_ceil(8)) {
            add_lanes(acc, &mut counts[f + 8 * b..m.min(f + 8 * b + 8)]);
        }
        f += 8 * BLOCKS;
    }
}

/// The population count of `a & !b & mask` (three slices of one length): with AVX-512's
/// vector population count (detected at run time) eight words per instruction, else
/// word by word.
pub fn count_and_not(a: &[u64], b: &[u64], mask: &[u64]) -> u64 {
    debug_assert!(a.len() == b.len() && a.len() == mask.len());
    #[cfg(target_arch = "x86_64")]
    if vector_popcount() {
        // SAFETY: the CPU has AVX-512F and VPOPCNTDQ, checked just above.
        return unsafe { count_and_not_avx512(a, b, mask) };
    }
    with_popcount(
        #[inline(always)]
        || a.iter().zip(b).zip(mask).map(|((a, b), x)| (a & !b & x).count_ones() as u64).sum(),
    )
}

/// [`count_and_not`] eight words at a time (the last block masked).
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512 VPOPCNTDQ ([`vector_popcount`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn count_and_not_avx512(a: &[u64], b: &[u64], mask: &[u64]) -> u64 {
    use std::arch::x86_64::*;
    let mut acc = _mm512_setzero_si512();
    let mut i = 0;
    while i < a.len() {
        let [k, ..] = lane_masks(a.len() - i);
        // SAFETY: lanes i .. i + lanes lie within the three slices; the masked-off lanes
        // are not read.
        let (x, y, z) = unsafe { (_mm512_maskz_loadu_epi64(k, a.as_ptr().add(i) as *const i64), _mm512_maskz_loadu_epi64(k, b.as_ptr().add(i) as *const i64), _mm512_maskz_loadu_epi64(k, mask.as_ptr().add(i) as *const i64)) };
        acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_and_si512(_mm512_andnot_si512(y, x), z)));
        i += 8;
    }
    _mm512_reduce_add_epi64(acc) as u64
}

/// Over the rows (of `m` words each), the population counts of `row[i] & row[j + 8b + l]`
/// summed per block `b < B` and lane `l` of `masks[b]`, into `out[b]` (with the mask);
/// returns the OR of the rows' `row[i]` (zero: column `i` has no bit, so none of its
/// pairs has any).
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512 VPOPCNTDQ, and the lanes of the first `B`
/// masks must lie within a row (`j + 8b + lanes <= m`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
#[inline]
unsafe fn block_pair_counts<const B: usize>(rows: &[u64], m: usize, i: usize, j: usize, masks: [std::arch::x86_64::__mmask8; BLOCKS], out: &mut [(std::arch::x86_64::__mmask8, std::arch::x86_64::__m512i); BLOCKS]) -> u64 {
    use std::arch::x86_64::*;
    let mut acc = [_mm512_setzero_si512(); B];
    let mut any = 0u64;
    for row in rows.chunks_exact(m) {
        let a = row[i];
        any |= a;
        if a != 0 {
            let a = _mm512_set1_epi64(a as i64);
            for (b, acc) in acc.iter_mut().enumerate() {
                // SAFETY: the lanes of masks[b] lie within the row (the caller's
                // contract); the masked-off lanes are not read.
                let x = unsafe { _mm512_maskz_loadu_epi64(masks[b], row.as_ptr().add(j + 8 * b) as *const i64) };
                *acc = _mm512_add_epi64(*acc, _mm512_popcnt_epi64(_mm512_and_si512(a, x)));
            }
        }
    }
    for (b, acc) in acc.into_iter().enumerate() {
        out[b] = (masks[b], acc);
    }
    any
}

/// Adds the first `counts.len()` (at most eight) lanes of `acc` to `counts`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn add_lanes(acc: std::arch::x86_64::__m512i, counts: &mut [u32]) {
    use std::arch::x86_64::*;
    let mut out = [0u64; 8];
    // SAFETY: `out` holds eight words.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr() as *mut __m512i, acc) };
    for (n, &x) in counts.iter_mut().zip(&out) {
        *n += x as u32;
    }
}

/// [`add_pair_counts`] eight columns at a time, several blocks per pass over the rows
/// ([`pair_blocks`]).
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512 VPOPCNTDQ ([`vector_popcount`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn add_pair_counts_avx512(rows: &[u64], m: usize, i: usize, counts: &mut [u32]) {
    let len = m - i;
    let mut j = 0;
    while j < len {
        // SAFETY: the CPU has the features (this function's contract); i + len = m.
        let (blocks, counted) = unsafe { pair_blocks(rows, m, i, i + j, len - j) };
        if let Some(acc) = counted {
            for (b, (_, acc)) in acc.into_iter().take(blocks).enumerate() {
                add_lanes(acc, &mut counts[j + 8 * b..len.min(j + 8 * b + 8)]);
            }
        }
        j += 8 * blocks;
    }
}

/// For columns of `words` words each (`columns`, column-major) and a set of as many
/// words: adds to `counts[f]` the population count of column `f` and the set, for every
/// column. With AVX-512's vector population count (detected at run time) eight words per
/// instruction, else word by word.
pub fn add_column_counts(columns: &[u64], set: &[u64], counts: &mut [u32]) {
    let words = set.len();
    debug_assert!(columns.len() == words * counts.len());
    #[cfg(target_arch = "x86_64")]
    if vector_popcount() {
        // SAFETY: the CPU has AVX-512F and VPOPCNTDQ, checked just above.
        unsafe { add_column_counts_avx512(columns, set, counts) };
        return;
    }
    with_popcount(
        #[inline(always)]
        || {
            for (n, column) in counts.iter_mut().zip(columns.chunks_exact(words.max(1))) {
                *n += column.iter().zip(set).map(|(x, s)| (x & s).count_ones()).sum::<u32>();
            }
        },
    )
}

/// [`add_column_counts`] eight words at a time (the last block masked).
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512 VPOPCNTDQ ([`vector_popcount`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn add_column_counts_avx512(columns: &[u64], set: &[u64], counts: &mut [u32]) {
    use std::arch::x86_64::*;
    let words = set.len();
    for (f, n) in counts.iter_mut().enumerate() {
        let column = &columns[f * words..(f + 1) * words];
        let mut acc = _mm512_setzero_si512();
        let mut i = 0;
        while i < words {
            let [mask, ..] = lane_masks(words - i);
            // SAFETY: lanes i .. i + lanes lie within both slices; the masked-off lanes
            // are not read.
            let (a, b) = unsafe { (_mm512_maskz_loadu_epi64(mask, column.as_ptr().add(i) as *const i64), _mm512_maskz_loadu_epi64(mask, set.as_ptr().add(i) as *const i64)) };
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_and_si512(a, b)));
            i += 8;
        }
        *n += _mm512_reduce_add_epi64(acc) as u32;
    }
}

/// True when the CPU counts the bits of eight words in one instruction (AVX-512F with
/// VPOPCNTDQ); never off x86-64.
#[cfg(not(target_arch = "x86_64"))]
pub fn vector_popcount() -> bool {
    false
}

/// True when the CPU counts the bits of eight words in one instruction (AVX-512F with
/// VPOPCNTDQ); detected once.
#[cfg(target_arch = "x86_64")]
pub fn vector_popcount() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    static KNOWN: AtomicU8 = AtomicU8::new(0);
    match KNOWN.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let has = std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vpopcntdq");
            KNOWN.store(if has { 2 } else { 1 }, Ordering::Relaxed);
            has
        }
    }
}

/// An owned bitset of a fixed number of bits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bitset {
    words: Vec<u64>,
    len: usize,
}

impl Bitset {
    /// All bits clear.
    pub fn new(len: usize) -> Self {
        Bitset { words: vec![0; words_for(len)], len }
    }

    /// All `len` bits set.
    pub fn full(len: usize) -> Self {
        let mut b = Bitset { words: vec![!0u64; words_for(len)], len };
        b.clear_tail();
        b
    }

    /// Builds a bitset from its words; bits at or past `len` must be clear.
    pub fn from_words(words: Vec<u64>, len: usize) -> Self {
        assert_eq!(words.len(), words_for(len), "word count does not match length");
        let mut b = Bitset { words, len };
        b.clear_tail();
        b
    }

    fn clear_tail(&mut self) {
        let rem = self.len % 64;
        if rem != 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << rem) - 1;
            }
        }
    }

    /// Number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a zero-length bitset.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The underlying words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Bit `i`.
    pub fn get(&self, i: usize) -> bool {
        assert!(i < self.len, "bit index out of range");
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    /// Sets bit `i` to `value`.
    pub fn set(&mut self, i: usize, value: bool) {
        assert!(i < self.len, "bit index out of range");
        let mask = 1u64 << (i % 64);
        if value {
            self.words[i / 64] |= mask;
        } else {
            self.words[i / 64] &= !mask;
        }
    }

    /// Number of set bits.
    pub fn count(&self) -> usize {
        popcount(&self.words)
    }

    /// True when no bit is set.
    pub fn none(&self) -> bool {
        is_empty(&self.words)
    }

    /// `self & other`.
    pub fn and(&self, other: &Bitset) -> Bitset {
        assert_eq!(self.len, other.len);
        let mut out = Bitset::new(self.len);
        and_into(&mut out.words, &self.words, &other.words);
        out
    }

    /// `self & !other`.
    pub fn and_not(&self, other: &Bitset) -> Bitset {
        assert_eq!(self.len, other.len);
        let mut out = Bitset::new(self.len);
        and_not_into(&mut out.words, &self.words, &other.words);
        out
    }

    /// Indices of the set bits, increasing.
    pub fn ones(&self) -> Vec<usize> {
        let mut v = Vec::with_capacity(self.count());
        for_each_one(&self.words, |i| v.push(i));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bit_extraction_packs_the_masked_bits_in_order() {
        // The definition, bit by bit, against the software extraction and (where the CPU
        // has it) the instruction, on words of every density.
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            s
        };
        for round in 0..2000 {
            let (x, mut mask) = (next(), next());
            for _ in 0..round % 4 {
                mask &= next();
            }
            let mask = if round % 7 == 0 { !mask } else { mask };
            let want = (0..64).filter(|b| mask >> b & 1 == 1).enumerate().fold(0u64, |out, (i, b)| out | ((x >> b & 1) << i));
            assert_eq!(extract_bits(x, mask), want, "{x:#x} {mask:#x}");
            with_bit_extract(|e| {
                if let Some(e) = e {
                    assert_eq!(e.extract(x, mask), want, "{x:#x} {mask:#x}");
                }
            });
        }
        assert_eq!(extract_bits(u64::MAX, 0), 0);
        assert_eq!(extract_bits(u64::MAX, u64::MAX), u64::MAX);
    }

    fn from_bools(bits: &[bool]) -> Bitset {
        let mut b = Bitset::new(bits.len());
        for (i, &x) in bits.iter().enumerate() {
            b.set(i, x);
        }
        b
    }

    /// A xorshift generator of test words from `state`.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    #[test]
    fn pair_counts_are_the_word_by_word_counts() {
        // Every width up to two blocks of eight and past, every root column, rows with
        // zero words (skipped) and full ones; the vector path where the CPU has it.
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for m in 1..=19 {
            for n_rows in [1, 2, 5] {
                let rows: Vec<u64> = (0..m * n_rows).map(|_| match next() % 4 { 0 => 0, 1 => u64::MAX, _ => next() }).collect();
                for i in 0..m {
                    let (mut got, mut want) = (vec![3u32; m - i], vec![3u32; m - i]);
                    add_pair_counts(&rows, m, i, &mut got);
                    for row in rows.chunks_exact(m) {
                        for j in i..m {
                            want[j - i] += (row[i] & row[j]).count_ones();
                        }
                    }
                    assert_eq!(got, want, "m {m}, rows {n_rows}, column {i}");
                    let mut words = vec![3u32; m - i];
                    add_pair_counts_words(&rows, m, i, &mut words);
                    assert_eq!(words, want);
                }
            }
        }
    }

    #[test]
    fn column_counts_are_the_word_by_word_counts() {
        // Widths across a block of eight and past it, zero and full words, counts added to.
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for words in [1, 3, 8, 9, 17] {
            for m in [1, 2, 5] {
                let columns: Vec<u64> = (0..m * words).map(|_| match next() % 4 { 0 => 0, 1 => u64::MAX, _ => next() }).collect();
                let set: Vec<u64> = (0..words).map(|_| next()).collect();
                let mut got = vec![7u32; m];
                add_column_counts(&columns, &set, &mut got);
                let want: Vec<u32> = columns.chunks_exact(words).map(|c| 7 + c.iter().zip(&set).map(|(x, s)| (x & s).count_ones()).sum::<u32>()).collect();
                assert_eq!(got, want, "words {words}, columns {m}");
            }
        }
    }

    #[test]
    fn row_counts_and_and_not_counts_are_the_word_by_word_counts() {
        let mut next = xorshift(0x6a09_e667_f3bc_c908);
        for m in [1, 7, 8, 9, 33, 41] {
            let rows: Vec<u64> = (0..6 * m).map(|_| match next() % 4 { 0 => 0, 1 => u64::MAX, _ => next() }).collect();
            let at = [5u32, 0, 3, 3];
            let words: Vec<u64> = (0..at.len()).map(|_| next()).collect();
            let mut got = vec![2u32; m];
            add_row_counts(&rows, m, &at, &words, &mut got);
            let mut want = vec![2u32; m];
            for (&r, &s) in at.iter().zip(&words) {
                for f in 0..m {
                    want[f] += (rows[r as usize * m + f] & s).count_ones();
                }
            }
            assert_eq!(got, want, "columns {m}");
        }
        for len in [1, 5, 8, 9, 17, 151] {
            let (a, b, x): (Vec<u64>, Vec<u64>, Vec<u64>) = ((0..len).map(|_| next()).collect(), (0..len).map(|_| next()).collect(), (0..len).map(|_| next()).collect());
            let want: u64 = (0..len).map(|i| (a[i] & !b[i] & x[i]).count_ones() as u64).sum();
            assert_eq!(count_and_not(&a, &b, &x), want, "words {len}");
        }
    }

    #[test]
    fn pair_sums_are_the_scaled_pair_counts() {
        // Every width up to two blocks of eight and past, columns with no bit in any row
        // (whose pairs stay as they were), sums added to, the vector path where the CPU
        // has it; the same bits as summing the counts one by one.
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for m in 1..=19 {
            for n_rows in [1, 2, 5] {
                let rows: Vec<u64> = (0..m * n_rows).map(|k| if k % m == 2 { 0 } else { match next() % 4 { 0 => 0, 1 => u64::MAX, _ => next() } }).collect();
                for weight in [1.0, 8.0, 0.375] {
                    let before: Vec<f64> = (0..m * (m + 1) / 2).map(|k| (k % 7) as f64 * 0.1).collect();
                    let mut want = before.clone();
                    let mut start = 0;
                    for i in 0..m {
                        for j in i..m {
                            let n: u32 = rows.chunks_exact(m).map(|row| (row[i] & row[j]).count_ones()).sum();
                            if rows.chunks_exact(m).any(|row| row[i] != 0) {
                                want[start + j - i] += weight * n as f64;
                            }
                        }
                        start += m - i;
                    }
                    let mut got = before.clone();
                    add_pair_sums(&rows, m, weight, &mut got, &mut Vec::new());
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&got), bits(&want), "m {m}, rows {n_rows}, weight {weight}");
                    let mut words = before.clone();
                    add_pair_sums_words(&rows, m, weight, &mut words, &mut vec![5; 3]);
                    assert_eq!(bits(&words), bits(&want), "m {m}, rows {n_rows}, weight {weight}");
                }
            }
        }
    }

    #[test]
    fn full_clears_the_tail() {
        let b = Bitset::full(70);
        assert_eq!(b.count(), 70);
        assert_eq!(b.words()[1], (1u64 << 6) - 1);
    }

    proptest! {
        #[test]
        fn word_ops_match_bool_ops(pairs in proptest::collection::vec((any::<bool>(), any::<bool>()), 0..300)) {
            let a: Vec<bool> = pairs.iter().map(|p| p.0).collect();
            let b: Vec<bool> = pairs.iter().map(|p| p.1).collect();
            let (ba, bb) = (from_bools(&a), from_bools(&b));
            let and = ba.and(&bb);
            let and_not = ba.and_not(&bb);
            for i in 0..a.len() {
                prop_assert_eq!(and.get(i), a[i] && b[i]);
                prop_assert_eq!(and_not.get(i), a[i] && !b[i]);
            }
            prop_assert_eq!(ba.count(), a.iter().filter(|&&x| x).count());
            let ones: Vec<usize> = (0..a.len()).filter(|&i| a[i]).collect();
            prop_assert_eq!(ba.ones(), ones);
            prop_assert_eq!(ba.none(), !a.iter().any(|&x| x));
        }
    }
}
