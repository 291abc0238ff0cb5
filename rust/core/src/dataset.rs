//! The packed binary dataset: rows with identical 0/1 feature vectors are merged into
//! equivalence classes ("groups", [`Groups`]) carrying per-class weights, and every
//! feature becomes one bitset over the groups. Solvers work on sets of groups only.

use crate::bitset::{words_for, Bitset};
use crate::error::{Error, Result};
use crate::hash;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast hasher for the grouping keys (rows of feature values): the solvers' shared
/// multiply-xor hash ([`crate::hash`]) per eight bytes. The standard SipHash cost more
/// than half the packing of a small dataset (car_evaluation: 1,728 rows of 15 bytes,
/// 1.3 M of the dataset's 2.1 M instructions). Not keyed: the keys are the caller's own
/// data.
#[derive(Default, Clone, Copy)]
pub(crate) struct RowHasher(u64);

impl Hasher for RowHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.0 = hash::mix(self.0, u64::from_le_bytes(c.try_into().expect("eight bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut tail = [0u8; 8];
            tail[..rest.len()].copy_from_slice(rest);
            // The tail's length is mixed in, so that trailing zero bytes still count.
            self.0 = hash::mix(self.0, u64::from_le_bytes(tail) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u64(&mut self, w: u64) {
        self.0 = hash::mix(self.0, w);
    }

    #[inline]
    fn write_usize(&mut self, w: usize) {
        self.0 = hash::mix(self.0, w as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        hash::finalize(self.0)
    }
}

/// Rows merged into equivalence classes ("groups") of identical feature vectors, with
/// per-class weights: what the solvers work on whatever the feature type. The 0/1
/// ([`BinaryDataset`]) and numeric ([`crate::NumericDataset`]) datasets both hold one.
#[derive(Clone, Debug)]
pub struct Groups {
    n_rows: usize,
    n_classes: usize,
    n_groups: usize,
    words: usize,
    /// `n_groups * n_classes` weights, group-major.
    class_weights: Vec<f64>,
    /// Total weight of each group.
    group_weight: Vec<f64>,
    /// Number of input rows merged into each group.
    group_rows: Vec<u32>,
    /// Weight of each group that no tree can classify correctly (all but its top class).
    group_minority: Vec<f64>,
    /// Group of each input row (`u32::MAX` for rows of zero weight, which are dropped).
    row_group: Vec<u32>,
    total_weight: f64,
    /// Every row of positive weight weighs exactly one: the class weights are row
    /// counts (whole numbers below 2^32), which the solvers need not check.
    counts_only: bool,
}

impl Groups {
    /// Checks labels and weights (`n_cells` feature values were given) and merges the
    /// rows of positive weight whose keys are equal, numbering groups by first occurrence
    /// (deterministic). Returns the groups and the first row of each.
    pub(crate) fn build<K: std::hash::Hash + Eq>(
        n_rows: usize,
        n_cells: usize,
        labels: &[u32],
        n_classes: usize,
        weights: Option<&[f64]>,
        key: impl Fn(usize) -> K,
    ) -> Result<(Self, Vec<usize>)> {
        Groups::build_by(n_rows, n_cells, labels, n_classes, weights, |row_group, first_row| {
            // Room for the groups of a small dataset from the start (growing the index by
            // doubling rehashed it eight times on car_evaluation's 1,728 rows, 1 % of a
            // Rashomon fit); a large one grows from there.
            let room = n_rows.min(1 << 12);
            let mut index: HashMap<K, u32, BuildHasherDefault<RowHasher>> = HashMap::with_capacity_and_hasher(room, Default::default());
            for i in (0..n_rows).filter(|&i| kept(weights, i)) {
                let next = first_row.len() as u32;
                row_group[i] = *index.entry(key(i)).or_insert_with(|| {
                    first_row.push(i);
                    next
                });
            }
        })
    }

    /// [`Groups::build`] for keys of one word each (rows of up to 64 0/1 columns, packed
    /// into bits), grouped by a table of open addressing over the groups' first rows: a
    /// hash, a load and a compare per row, where the general index's entry cost several
    /// times that (car_evaluation: 1,728 rows, each its own group).
    pub(crate) fn build_words(
        n_rows: usize,
        n_cells: usize,
        labels: &[u32],
        n_classes: usize,
        weights: Option<&[f64]>,
        keys: &[u64],
    ) -> Result<(Self, Vec<usize>)> {
        Groups::build_by(n_rows, n_cells, labels, n_classes, weights, |row_group, first_row| {
            // Slots for twice the groups at least (grown as they come, from room for a
            // small dataset's); a slot holds a group, or `u32::MAX` when free.
            let mut bits = (2 * n_rows.min(1 << 12)).next_power_of_two().max(16).trailing_zeros();
            let mut table = vec![u32::MAX; 1 << bits];
            let slot = |key: u64, bits: u32| (hash::finalize(key.wrapping_mul(hash::K)) >> (64 - bits)) as usize;
            for i in (0..n_rows).filter(|&i| kept(weights, i)) {
                let key = keys[i];
                let mask = (1usize << bits) - 1;
                let mut s = slot(key, bits);
                let g = loop {
                    let g = table[s];
                    if g == u32::MAX {
                        table[s] = first_row.len() as u32;
                        first_row.push(i);
                        break table[s];
                    }
                    if keys[first_row[g as usize]] == key {
                        break g;
                    }
                    s = (s + 1) & mask;
                };
                row_group[i] = g;
                if 2 * first_row.len() > table.len() {
                    // Half full: twice the slots, the groups placed again.
                    bits += 1;
                    table = vec![u32::MAX; 1 << bits];
                    let mask = (1usize << bits) - 1;
                    for (g, &r) in first_row.iter().enumerate() {
                        let mut s = slot(keys[r], bits);
                        while table[s] != u32::MAX {
                            s = (s + 1) & mask;
                        }
                        table[s] = g as u32;
                    }
                }
            }
        })
    }

    /// The checks and tables of [`Groups::build`] around `group`, which writes the group
    /// of each row of positive weight into `row_group` (`u32::MAX` before) and the first
    /// row of each new group into `first_row`, numbering groups by first occurrence.
    fn build_by(
        n_rows: usize,
        n_cells: usize,
        labels: &[u32],
        n_classes: usize,
        weights: Option<&[f64]>,
        group: impl FnOnce(&mut [u32], &mut Vec<usize>),
    ) -> Result<(Self, Vec<usize>)> {
        if n_rows == 0 {
            return Err(Error::new("the dataset has no rows; pass at least one sample"));
        }
        if labels.len() != n_rows {
            return Err(Error::new(format!(
                "{} labels for {} rows; pass one label per row",
                labels.len(),
                n_rows
            )));
        }
        if n_rows >= u32::MAX as usize || n_cells >= u32::MAX as usize {
            return Err(Error::new(format!(
                "{n_rows} rows and {n_cells} cells is more than this solver handles (4.2e9 cells); \
                 subsample the rows or select features first"
            )));
        }
        if n_classes == 0 {
            return Err(Error::new("at least one class is needed"));
        }
        if let Some(w) = weights {
            if w.len() != n_rows {
                return Err(Error::new(format!(
                    "{} sample weights for {} rows; pass one weight per row",
                    w.len(),
                    n_rows
                )));
            }
        }
        if let Some(pos) = labels.iter().position(|&c| c as usize >= n_classes) {
            return Err(Error::new(format!(
                "label {} of row {} is not below the number of classes {}",
                labels[pos], pos, n_classes
            )));
        }
        let weight_of = |i: usize| weights.map_or(1.0, |w| w[i]);
        // Without weights every row weighs one: nothing to check, and the total is the
        // number of rows (a sum of ones, exact).
        let (mut total_weight, mut counts_only) = (n_rows as f64, true);
        if let Some(ws) = weights {
            // One pass with no branch per row: the first bad weight is looked for only
            // when there is one (to name it).
            let (mut total, mut valid, mut ones) = (0.0, true, true);
            for &w in ws {
                total += w;
                valid &= (w >= 0.0) & (w < f64::INFINITY);
                ones &= (w == 1.0) | (w == 0.0);
            }
            if !valid {
                let (i, w) = ws.iter().enumerate().find(|(_, w)| !(**w >= 0.0 && **w < f64::INFINITY)).expect("a bad weight");
                return Err(Error::new(format!(
                    "sample weight {w} of row {i} is negative or not finite; weights must be finite and >= 0"
                )));
            }
            (total_weight, counts_only) = (total, ones);
        }
        if !(total_weight > 0.0) || !total_weight.is_finite() {
            return Err(Error::new(
                "the sample weights sum to zero (or overflow); give some rows a positive weight",
            ));
        }
        let mut first_row = Vec::with_capacity(n_rows.min(1 << 12));
        let mut row_group = vec![u32::MAX; n_rows];
        // First the group of each row, then (their number known) the per-group tables in
        // one allocation each and a second pass adding the rows up: growing them group by
        // group cost a call to `memset` per new group (car_evaluation: every row).
        group(&mut row_group, &mut first_row);
        let n_groups = first_row.len();
        let mut class_weights = vec![0.0f64; n_groups * n_classes];
        let mut group_rows = vec![0u32; n_groups];
        // Rows are added in their order, as before: the same sums to the last bit.
        for (i, (&g, &label)) in row_group.iter().zip(labels).enumerate() {
            if g != u32::MAX {
                group_rows[g as usize] += 1;
                class_weights[g as usize * n_classes + label as usize] += weight_of(i);
            }
        }
        // Written through iterators, not pushed: a `push` keeps the length in memory, a
        // store-to-load chain through every group.
        let (mut group_weight, mut group_minority) = (vec![0.0f64; n_groups], vec![0.0f64; n_groups]);
        for ((cw, total), minority) in class_weights.chunks_exact(n_classes).zip(&mut group_weight).zip(&mut group_minority) {
            *total = cw.iter().sum();
            // The weights are finite and not negative: a comparison, not `f64::max` (whose
            // NaN handling cost more than the sum).
            *minority = *total - cw.iter().fold(0.0, |t, &w| if w > t { w } else { t });
        }
        let groups = Groups {
            n_rows,
            n_classes,
            n_groups,
            counts_only,
            words: words_for(n_groups),
            class_weights,
            group_weight,
            group_rows,
            group_minority,
            row_group,
            total_weight,
        };
        Ok((groups, first_row))
    }

    /// Number of rows given (including zero-weight rows).
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }
    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }
    /// Number of equivalence classes (distinct feature vectors of positive weight).
    pub fn n_groups(&self) -> usize {
        self.n_groups
    }
    /// Words per bitset over the groups.
    pub fn words(&self) -> usize {
        self.words
    }
    /// True when every row of positive weight weighs exactly one (no weights given, or
    /// weights of 0 and 1 only): every class weight is then a row count, a whole number
    /// below 2^32.
    pub fn counts_only(&self) -> bool {
        self.counts_only
    }
    /// Sum of all sample weights.
    pub fn total_weight(&self) -> f64 {
        self.total_weight
    }
    /// Per-class weights of group `g`.
    #[inline]
    pub fn class_weights(&self, g: usize) -> &[f64] {
        &self.class_weights[g * self.n_classes..(g + 1) * self.n_classes]
    }
    /// Total weight of group `g`.
    #[inline]
    pub fn group_weight(&self, g: usize) -> f64 {
        self.group_weight[g]
    }
    /// Number of input rows (of positive weight) in group `g`.
    #[inline]
    pub fn group_rows(&self, g: usize) -> u32 {
        self.group_rows[g]
    }
    /// Weight of group `g` outside its majority class: misclassified by any tree.
    #[inline]
    pub fn group_minority(&self, g: usize) -> f64 {
        self.group_minority[g]
    }
    /// Group of input row `i` (`None` for a row of zero weight).
    #[inline]
    pub fn group_of_row(&self, i: usize) -> Option<usize> {
        (self.row_group[i] != u32::MAX).then_some(self.row_group[i] as usize)
    }
    /// The set of all groups.
    pub fn all_groups(&self) -> Bitset {
        Bitset::full(self.n_groups)
    }

    /// Adds up a per-row quantity (one value per input row) by group; rows of zero
    /// weight are ignored.
    pub fn sum_by_group(&self, per_row: &[f64]) -> Result<Vec<f64>> {
        if per_row.len() != self.n_rows {
            return Err(Error::new(format!(
                "{} per-row values for {} rows; pass one value per row",
                per_row.len(),
                self.n_rows
            )));
        }
        let mut sums = vec![0.0; self.n_groups];
        for (&g, &v) in self.row_group.iter().zip(per_row) {
            if g != u32::MAX {
                sums[g as usize] += v;
            }
        }
        Ok(sums)
    }

    /// Sums the per-class weights of the groups in `set` into `out` (length `n_classes`).
    pub fn class_totals(&self, set: &[u64], out: &mut [f64]) {
        out.iter_mut().for_each(|x| *x = 0.0);
        crate::bitset::for_each_one(set, |g| {
            for (o, w) in out.iter_mut().zip(self.class_weights(g)) {
                *o += w;
            }
        });
    }
}

/// True when row `i` has a positive weight (every row, without weights): rows of zero
/// weight are dropped.
#[inline]
fn kept(weights: Option<&[f64]>, i: usize) -> bool {
    weights.map_or(true, |w| w[i] != 0.0)
}

/// A 0/1 feature matrix with labels and weights, packed for the solvers: its groups
/// (reached through `Deref`) and one bitset over them per feature.
#[derive(Clone, Debug)]
pub struct BinaryDataset {
    groups: Groups,
    n_features: usize,
    /// `n_features * words` words: bit g of feature j is set when group g has feature j = 1.
    feature_bits: Vec<u64>,
    /// CSR lists of the features equal to 1 in each group.
    ones_start: Vec<u32>,
    ones: Vec<u32>,
    /// The feature vector of each group, `n_groups * n_features`.
    group_features: Vec<u8>,
}

impl std::ops::Deref for BinaryDataset {
    type Target = Groups;
    #[inline]
    fn deref(&self) -> &Groups {
        &self.groups
    }
}

/// Checks a row-major `n_rows x n_columns` feature matrix: its length, and that no
/// value is `bad`; the error names the first bad value's row and column and says what
/// `must` hold.
pub(crate) fn check_matrix<T: std::fmt::Display>(
    x: &[T],
    n_rows: usize,
    n_columns: usize,
    bad: impl Fn(&T) -> bool,
    must: &str,
) -> Result<()> {
    if n_rows > 0 && x.len() != n_rows * n_columns {
        return Err(Error::new(format!(
            "feature buffer holds {} values but {n_rows} rows x {n_columns} columns were announced",
            x.len()
        )));
    }
    match x.iter().position(bad) {
        Some(pos) => Err(Error::new(format!(
            "row {}, column {} is {}; {must}",
            pos / n_columns.max(1),
            pos % n_columns.max(1),
            x[pos]
        ))),
        None => Ok(()),
    }
}

impl BinaryDataset {
    /// Packs a row-major 0/1 matrix (`n_rows * n_features` bytes), class indices in
    /// `0..n_classes` and optional non-negative weights. Rows of zero weight are dropped.
    pub fn new(
        features: &[u8],
        n_rows: usize,
        n_features: usize,
        labels: &[u32],
        n_classes: usize,
        weights: Option<&[f64]>,
    ) -> Result<Self> {
        // The OR of all the bytes is at most 1 exactly when every value is 0 or 1: eight
        // bytes at a time, where finding the first bad value tests byte by byte (done
        // only to name it).
        if !zero_one(features) || (n_rows > 0 && features.len() != n_rows * n_features) {
            check_matrix(features, n_rows, n_features, |&v| v > 1, "features must be 0 or 1 (binarize them first)")?;
        }
        // Each row packed into words of bits (the grouping keys: one hash and compare per
        // word, where the bytes cost one per eight columns and a longer compare; car_evaluation:
        // 1,728 rows of 15 columns, 1.1 M instructions for the bytes, 0.2 M packed).
        let row_words = n_features.div_ceil(64).max(1);
        let mut packed = vec![0u64; n_rows.saturating_mul(row_words)];
        if row_words == 1 && n_features > 0 {
            // One word a row: no iteration over a row's words (38 instructions a row of
            // car_evaluation went to the two nested iterators).
            for (word, row) in packed.iter_mut().zip(features.chunks_exact(n_features)) {
                *word = pack_bits(row);
            }
        } else if n_features > 0 {
            for (bits, row) in packed.chunks_exact_mut(row_words).zip(features.chunks_exact(n_features)) {
                for (word, chunk) in bits.iter_mut().zip(row.chunks(64)) {
                    *word = pack_bits(chunk);
                }
            }
        }
        let key = |i: usize| &packed[i * row_words..(i + 1) * row_words];
        let cells = n_rows.saturating_mul(n_features);
        // Up to 64 columns a row is one word: a key of one word hashes and compares in an
        // instruction or two, where a slice's goes through its length and a memcmp.
        let (groups, first_row) = if row_words == 1 {
            Groups::build_words(n_rows, cells, labels, n_classes, weights, &packed)?
        } else {
            Groups::build(n_rows, cells, labels, n_classes, weights, key)?
        };
        let (n_groups, words) = (groups.n_groups, groups.words);
        let row = |i: usize| &features[i * n_features..(i + 1) * n_features];
        // When every row is its own group, in order (no two rows alike, none of zero
        // weight), the groups' feature vectors are the matrix: one copy, where a copy per
        // group costs a call to `memcpy` each.
        let in_order = n_groups == n_rows && first_row.iter().enumerate().all(|(g, &i)| g == i);
        let mut group_features = if in_order { features[..n_rows * n_features].to_vec() } else { Vec::with_capacity(n_groups * n_features) };
        let mut feature_bits = vec![0u64; n_features * words];
        let mut ones_start = Vec::with_capacity(n_groups + 1);
        // Counted with the population-count instruction where the CPU has it (the
        // x86-64 baseline's software count was 38 instructions a row).
        let n_ones = crate::bitset::with_popcount(
            #[inline(always)]
            || match row_words {
                1 => first_row.iter().map(|&i| packed[i].count_ones() as usize).sum(),
                _ => first_row.iter().map(|&i| key(i).iter().map(|w| w.count_ones() as usize).sum::<usize>()).sum(),
            },
        );
        // Written at a running index kept in a register: `push` kept the length in
        // memory, a store-to-load chain through every one (car_evaluation: ~10 k).
        let mut ones = vec![0u32; n_ones];
        let mut at = 0usize;
        ones_start.push(0);
        for (g, &i) in first_row.iter().enumerate() {
            if !in_order {
                group_features.extend_from_slice(row(i));
            }
            // The features at 1, ascending: the set bits of the packed row (of its one
            // word up to 64 columns, read with no slice of it).
            let row_bits = if row_words == 1 { std::slice::from_ref(&packed[i]) } else { key(i) };
            let bit = 1u64 << (g % 64);
            for (wi, &word) in row_bits.iter().enumerate() {
                let mut w = word;
                while w != 0 {
                    let j = wi * 64 + w.trailing_zeros() as usize;
                    feature_bits[j * words + g / 64] |= bit;
                    ones[at] = j as u32;
                    at += 1;
                    w &= w - 1;
                }
            }
            ones_start.push(at as u32);
        }
        Ok(BinaryDataset { groups, n_features, feature_bits, ones_start, ones, group_features })
    }

    /// The equivalence classes and their weights.
    pub fn groups(&self) -> &Groups {
        &self.groups
    }
    /// Number of 0/1 features.
    pub fn n_features(&self) -> usize {
        self.n_features
    }
    /// The groups whose feature `j` is 1, as words.
    #[inline]
    pub fn feature_words(&self, j: usize) -> &[u64] {
        &self.feature_bits[j * self.groups.words..(j + 1) * self.groups.words]
    }
    /// The features equal to 1 in group `g`.
    #[inline]
    pub fn ones_of(&self, g: usize) -> &[u32] {
        &self.ones[self.ones_start[g] as usize..self.ones_start[g + 1] as usize]
    }
    /// Every group's [`BinaryDataset::ones_of`], as compressed rows: group `g`'s features
    /// at 1 are `ones[starts[g]..starts[g + 1]]`. Returns `(starts, ones)`.
    pub fn ones_lists(&self) -> (&[u32], &[u32]) {
        (&self.ones_start, &self.ones)
    }
    /// Value of feature `j` in group `g`.
    #[inline]
    pub fn feature_of(&self, g: usize, j: usize) -> u8 {
        self.group_features[g * self.n_features + j]
    }
}

/// True when every byte is 0 or 1: the OR of the bytes, eight in a word (a fold byte by
/// byte cost four instructions a byte, 0.1 M on car_evaluation's 25,920).
pub fn zero_one(bytes: &[u8]) -> bool {
    let mut words = bytes.chunks_exact(8);
    let any = (&mut words).fold(0u64, |a, w| a | u64::from_le_bytes(w.try_into().expect("eight bytes")));
    let rest = words.remainder().iter().fold(0u8, |a, &b| a | b);
    any & 0xFEFE_FEFE_FEFE_FEFE == 0 && rest <= 1
}

/// The bytes of `chunk` (at most 64, each 0 or 1) as the bits of a word, byte `j` at
/// bit `j`: eight bytes at a time, by a multiplication that gathers their low bits into
/// the top byte (byte `i` lands at bit `56 + i`; the other partial products fall at
/// distinct bits below 56, so no carry reaches the top byte).
/// The last bytes (fewer than eight) are read as the top of the last eight bytes of the
/// chunk, shifted down (a chunk shorter than eight is assembled byte by byte): copying
/// them into a word first cost a call to `memcpy` per row.
#[inline]
fn pack_bits(chunk: &[u8]) -> u64 {
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let gather = |bytes: u64| bytes.wrapping_mul(GATHER) >> 56;
    let (n, full) = (chunk.len(), chunk.len() / 8);
    let mut word = 0u64;
    for c in 0..full {
        let bytes: [u8; 8] = chunk[8 * c..8 * c + 8].try_into().expect("eight bytes");
        word |= gather(u64::from_le_bytes(bytes)) << (8 * c);
    }
    let rest = n % 8;
    if rest > 0 {
        let tail = if n >= 8 {
            let last: [u8; 8] = chunk[n - 8..].try_into().expect("eight bytes");
            u64::from_le_bytes(last) >> (8 * (8 - rest))
        } else {
            chunk.iter().enumerate().fold(0u64, |t, (j, &b)| t | (b as u64) << (8 * j))
        };
        word |= gather(tail) << (8 * full);
    }
    word
}

/// True when `v` is a whole number (`v.fract() == 0.0`), without the call to `trunc`
/// the x86-64 baseline makes for `fract` (the setup of a fit tests every group's
/// weights: car_evaluation, 10,368 calls, about 1 % of a Rashomon fit).
#[inline]
pub fn is_whole(v: f64) -> bool {
    // From 2^52 on every finite double is whole; below, a round trip through i64 is exact.
    if v.abs() < 4_503_599_627_370_496.0 {
        v == (v as i64) as f64
    } else {
        v.is_finite()
    }
}

/// Misclassified weight of a leaf with these class totals, and the class it predicts
/// (the heaviest; ties go to the lowest class index).
#[inline]
pub fn leaf_loss(class_totals: &[f64]) -> (f64, usize) {
    // The heaviest weight is kept beside its class: a caller that wants only the loss
    // then needs no indexed load (the depth-two kernel's inner loop).
    let (mut best, mut top) = (0, class_totals[0]);
    let mut total = 0.0;
    for (c, &w) in class_totals.iter().enumerate() {
        total += w;
        if w > top {
            (best, top) = (c, w);
        }
    }
    (total - top, best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_bits_are_the_bytes() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..=64 {
            for _ in 0..20 {
                let bytes: Vec<u8> = (0..len).map(|_| {
                    s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (s >> 63) as u8
                }).collect();
                let expected = bytes.iter().enumerate().fold(0u64, |w, (j, &v)| w | (v as u64) << j);
                assert_eq!(pack_bits(&bytes), expected, "{bytes:?}");
            }
        }
    }

    #[test]
    fn wide_rows_merge_like_narrow_ones() {
        // 70 columns (two words a row): rows equal but for column 66 are different groups.
        let mut x = vec![0u8; 3 * 70];
        x[3] = 1;
        x[70 + 3] = 1;
        x[70 + 66] = 1;
        x[140 + 3] = 1;
        let d = BinaryDataset::new(&x, 3, 70, &[0, 1, 1], 2, None).unwrap();
        assert_eq!(d.n_groups(), 2);
        assert_eq!(d.class_weights(0), &[1.0, 1.0]);
        assert_eq!(d.ones_of(0), &[3]);
        assert_eq!(d.ones_of(1), &[3, 66]);
        assert_eq!(d.feature_words(66), &[0b10]);
        assert!(BinaryDataset::new(&[0, 1, 2, 0], 2, 2, &[0, 1], 2, None).unwrap_err().to_string().contains("row 1, column 0"));
    }

    /// Keys of one word grouped by the open-addressing table give the groups the
    /// general index gives (numbered by first occurrence, rows of zero weight dropped),
    /// with few and many duplicates and past the table's growth (more than 4,096 groups).
    #[test]
    fn word_keys_group_as_the_general_index() {
        let mut s = 0x853c_49e6_748f_ea9bu64;
        for (n, bits) in [(1usize, 3u32), (50, 2), (300, 6), (5000, 20), (12000, 13), (20000, 40)] {
            let mut next = || {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                s >> 11
            };
            let keys: Vec<u64> = (0..n).map(|_| next() & ((1u64 << bits) - 1)).collect();
            let labels: Vec<u32> = (0..n).map(|_| (next() % 3) as u32).collect();
            let weights: Vec<f64> = (0..n).map(|_| [0.0, 1.0, 2.5][(next() % 3) as usize]).collect();
            for w in [None, Some(&weights[..])] {
                if w.is_some_and(|w| w.iter().all(|&x| x == 0.0)) {
                    continue;
                }
                let (a, first_a) = Groups::build(n, n, &labels, 3, w, |i| keys[i]).unwrap();
                let (b, first_b) = Groups::build_words(n, n, &labels, 3, w, &keys).unwrap();
                assert_eq!(first_a, first_b, "{n} rows of {bits} bits");
                assert_eq!((&a.row_group, &a.class_weights, &a.group_rows, &a.group_minority), (&b.row_group, &b.class_weights, &b.group_rows, &b.group_minority));
                assert_eq!((a.total_weight.to_bits(), a.counts_only), (b.total_weight.to_bits(), b.counts_only));
            }
        }
    }

    #[test]
    fn is_whole_is_a_zero_fraction() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut values = vec![0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, 1e-300, 4_503_599_627_370_495.5, 4_503_599_627_370_496.0, 9.0e15, 1e300, -1e300, f64::MAX, f64::MIN, f64::MIN_POSITIVE, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 65535.0, 65536.0, 65535.999];
        for _ in 0..20_000 {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            values.push(f64::from_bits(s));
            values.push((s >> 40) as f64 / [1.0, 2.0, 4.0, 3.0][(s & 3) as usize]);
        }
        for v in values {
            assert_eq!(is_whole(v), v.fract() == 0.0, "{v:e}");
        }
    }

    #[test]
    fn identical_rows_merge_with_weights() {
        let x = [0, 1, 0, 1, 1, 1, 0, 1];
        let y = [0, 1, 1, 0];
        let w = [1.0, 2.0, 0.5, 0.0];
        let d = BinaryDataset::new(&x, 4, 2, &y, 2, Some(&w)).unwrap();
        assert_eq!(d.n_groups(), 2);
        assert_eq!(d.class_weights(0), &[1.0, 2.0]);
        assert_eq!(d.class_weights(1), &[0.0, 0.5]);
        assert_eq!(d.group_minority(0), 1.0);
        assert_eq!((d.group_rows(0), d.group_rows(1)), (2, 1));
        assert_eq!(d.total_weight(), 3.5);
        assert!(!d.counts_only());
        let ones = BinaryDataset::new(&x, 4, 2, &y, 2, Some(&[1.0, 1.0, 0.0, 1.0])).unwrap();
        assert!(ones.counts_only());
        assert_eq!((ones.total_weight(), ones.class_weights(0)), (3.0, &[2.0, 1.0][..]));
        assert!(BinaryDataset::new(&x, 4, 2, &y, 2, None).unwrap().counts_only());
        assert_eq!(d.feature_words(0), &[0b10]);
        assert_eq!(d.feature_words(1), &[0b11]);
        assert_eq!(d.ones_of(1), &[0, 1]);
        assert_eq!(d.sum_by_group(&[1.0, 2.0, 4.0, 8.0]).unwrap(), vec![3.0, 4.0]);
        assert!(d.sum_by_group(&[1.0]).is_err());
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(BinaryDataset::new(&[2], 1, 1, &[0], 2, None).is_err());
        assert!(BinaryDataset::new(&[1], 1, 1, &[2], 2, None).is_err());
        assert!(BinaryDataset::new(&[1], 1, 1, &[0], 2, Some(&[-1.0])).is_err());
        assert!(BinaryDataset::new(&[1], 1, 1, &[0], 2, Some(&[0.0])).is_err());
        assert!(BinaryDataset::new(&[], 0, 1, &[], 2, None).is_err());
    }

    #[test]
    fn leaf_loss_ties_go_to_the_lowest_class() {
        assert_eq!(leaf_loss(&[2.0, 2.0, 1.0]), (3.0, 0));
        assert_eq!(leaf_loss(&[1.0, 3.0]), (1.0, 1));
    }
}
