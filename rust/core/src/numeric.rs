//! The numeric dataset: every column kept once, as its sorted distinct values and, per
//! equivalence class of rows ("group", see [`Groups`]), the rank of its value among them
//! — not one bitset per threshold. Rows with identical value vectors are merged into
//! groups exactly as the binary dataset merges identical 0/1 rows, so the search keeps
//! working on bitsets over groups and the equivalent-points bound keeps holding. Memory
//! is O(rows x columns): a rank and a sorted position per (group, column), at most one
//! distinct value per (group, column), and the group table.
//!
//! The thresholds of column `j` are the midpoints between consecutive distinct values;
//! threshold `t` (0-based) sends a group right when its rank is above `t`. A 0/1 column
//! has one threshold (0.5), a constant column none.

use crate::dataset::{check_matrix, Groups};
use crate::error::Result;

/// A numeric feature matrix with labels and weights, packed for the solvers.
#[derive(Clone, Debug)]
pub struct NumericDataset {
    groups: Groups,
    n_columns: usize,
    /// Per column, its distinct values (over rows of positive weight), ascending, in CSR.
    values_start: Vec<u32>,
    values: Vec<f64>,
    /// `n_groups * n_columns` ranks, group-major: the index of the group's value among
    /// its column's distinct values.
    ranks: Vec<u32>,
    /// `n_columns * n_groups` groups, column-major: each column's groups sorted by value
    /// (ties by group index).
    order: Vec<u32>,
}

impl std::ops::Deref for NumericDataset {
    type Target = Groups;
    #[inline]
    fn deref(&self) -> &Groups {
        &self.groups
    }
}

/// A key whose unsigned order is the numeric order of the finite `v` (`-0.0` must have
/// been read as `0.0`): the sign bit flipped for positives, every bit for negatives.
#[inline]
fn sort_key(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// A row of finite numbers as a grouping key, borrowed from the matrix: rows are equal
/// when their numbers are (`-0.0` equals `0.0`), hashed by the numbers' bit patterns
/// with `-0.0` read as `0.0`.
struct RowKey<'a>(&'a [f64]);

impl RowKey<'_> {
    #[inline]
    fn bits(v: f64) -> u64 {
        if v == 0.0 { 0 } else { v.to_bits() }
    }
}

impl PartialEq for RowKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len() && self.0.iter().zip(other.0).all(|(&a, &b)| Self::bits(a) == Self::bits(b))
    }
}

impl Eq for RowKey<'_> {}

impl std::hash::Hash for RowKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for &v in self.0 {
            state.write_u64(Self::bits(v));
        }
    }
}

impl NumericDataset {
    /// Packs a row-major matrix of finite numbers (`n_rows * n_columns`), class indices
    /// in `0..n_classes` and optional non-negative weights. Rows of zero weight are
    /// dropped; `-0.0` counts as `0.0`. NaN and infinite values are an error.
    pub fn new(
        x: &[f64],
        n_rows: usize,
        n_columns: usize,
        labels: &[u32],
        n_classes: usize,
        weights: Option<&[f64]>,
    ) -> Result<Self> {
        check_matrix(x, n_rows, n_columns, |v| !v.is_finite(), "features must be finite numbers (impute or drop NaN and inf first)")?;
        // The rows themselves are the grouping keys (borrowed: no copy of the matrix).
        let key = |i: usize| RowKey(&x[i * n_columns..(i + 1) * n_columns]);
        let (groups, first_row) = Groups::build(n_rows, n_rows.saturating_mul(n_columns), labels, n_classes, weights, key)?;
        let n_groups = groups.n_groups();
        let value = |g: usize, j: usize| {
            let v = x[first_row[g] * n_columns + j];
            if v == 0.0 { 0.0 } else { v }
        };
        let mut values_start = Vec::with_capacity(n_columns + 1);
        let mut values = Vec::new();
        let mut ranks = vec![0u32; n_groups * n_columns];
        let mut order = Vec::with_capacity(n_columns * n_groups);
        values_start.push(0);
        // Per column, (order-preserving key of the value, group) pairs sorted as integers:
        // contiguous and branch-free to compare, unlike values read across rows.
        let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(n_groups);
        for j in 0..n_columns {
            keyed.clear();
            keyed.extend((0..n_groups).map(|g| (sort_key(value(g, j)), g as u32)));
            keyed.sort_unstable();
            order.extend(keyed.iter().map(|&(_, g)| g));
            for &(_, g) in keyed.iter() {
                let v = value(g as usize, j);
                if values.len() == values_start[j] as usize || *values.last().unwrap() != v {
                    values.push(v);
                }
                ranks[g as usize * n_columns + j] = (values.len() - 1 - values_start[j] as usize) as u32;
            }
            values_start.push(values.len() as u32);
        }
        Ok(NumericDataset { groups, n_columns, values_start, values, ranks, order })
    }

    /// The equivalence classes and their weights.
    pub fn groups(&self) -> &Groups {
        &self.groups
    }
    /// Number of numeric columns.
    pub fn n_columns(&self) -> usize {
        self.n_columns
    }
    /// The distinct values of column `j`, ascending.
    #[inline]
    pub fn distinct(&self, j: usize) -> &[f64] {
        &self.values[self.values_start[j] as usize..self.values_start[j + 1] as usize]
    }
    /// Number of thresholds of column `j` (its distinct values less one; none if constant).
    #[inline]
    pub fn n_thresholds(&self, j: usize) -> usize {
        self.distinct(j).len().saturating_sub(1)
    }
    /// The ranks of group `g` in every column (index among the column's distinct values).
    #[inline]
    pub fn ranks_of(&self, g: usize) -> &[u32] {
        &self.ranks[g * self.n_columns..(g + 1) * self.n_columns]
    }
    /// Rank of group `g`'s value in column `j`.
    #[inline]
    pub fn rank(&self, g: usize, j: usize) -> u32 {
        self.ranks[g * self.n_columns + j]
    }
    /// Value of column `j` in group `g`.
    #[inline]
    pub fn value(&self, g: usize, j: usize) -> f64 {
        self.distinct(j)[self.rank(g, j) as usize]
    }
    /// The groups sorted by their value in column `j` (ties by group index).
    #[inline]
    pub fn sorted(&self, j: usize) -> &[u32] {
        let n = self.groups.n_groups();
        &self.order[j * n..(j + 1) * n]
    }
    /// Bytes held by the column data (besides the group table).
    pub fn bytes(&self) -> usize {
        8 * self.values.capacity() + 4 * (self.values_start.capacity() + self.ranks.capacity() + self.order.capacity())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_keys_order_like_the_numbers() {
        let v = [f64::MIN, -1e300, -2.5, -1.0, -f64::MIN_POSITIVE, -1e-310, 0.0, 1e-310, f64::MIN_POSITIVE, 0.5, 1.0, 3.0, 1e300, f64::MAX];
        for (a, b) in v.iter().zip(&v[1..]) {
            assert!(sort_key(*a) < sort_key(*b), "{a} < {b}");
        }
    }

    #[test]
    fn columns_are_kept_once_sorted_with_ranks() {
        // Rows 0 and 2 are identical and merge; row 3 has zero weight and is dropped.
        let x = [3.0, 1.0, -0.0, 1.0, 3.0, 1.0, 9.0, 9.0, 0.0, 0.0];
        let y = [0, 1, 1, 0, 1];
        let w = [1.0, 2.0, 0.5, 0.0, 1.0];
        let d = NumericDataset::new(&x, 5, 2, &y, 2, Some(&w)).unwrap();
        assert_eq!(d.n_groups(), 3);
        assert_eq!(d.class_weights(0), &[1.0, 0.5]);
        assert_eq!(d.group_rows(0), 2);
        assert_eq!(d.group_of_row(3), None);
        assert_eq!(d.distinct(0), &[0.0, 3.0]);
        assert_eq!(d.distinct(1), &[0.0, 1.0]);
        assert_eq!(d.n_thresholds(0), 1);
        assert_eq!(d.ranks_of(0), &[1, 1]);
        assert_eq!(d.ranks_of(1), &[0, 1]);
        assert_eq!(d.ranks_of(2), &[0, 0]);
        assert_eq!(d.value(1, 0), 0.0);
        assert_eq!(d.sorted(0), &[1, 2, 0]);
        assert_eq!(d.sorted(1), &[2, 0, 1]);
    }

    #[test]
    fn rows_merge_when_their_numbers_are_equal() {
        // -0.0 and 0.0 are one number: rows 0 and 1 merge; rows 2 and 3 hold the same
        // numbers in other columns and stay apart; so do 1.0 and the next float.
        let x = [-0.0, 2.0, 0.0, 2.0, 1.0, 2.0, 2.0, 1.0, 1.0 + f64::EPSILON, 2.0];
        let d = NumericDataset::new(&x, 5, 2, &[0, 1, 0, 1, 1], 2, None).unwrap();
        assert_eq!(d.n_groups(), 4);
        assert_eq!(d.group_of_row(0), d.group_of_row(1));
        assert_eq!(d.class_weights(d.group_of_row(0).unwrap()), &[1.0, 1.0]);
        assert_ne!(d.group_of_row(2), d.group_of_row(3));
        assert_ne!(d.group_of_row(2), d.group_of_row(4));
    }

    #[test]
    fn constant_columns_have_no_threshold_and_bad_input_is_an_error() {
        let d = NumericDataset::new(&[2.5, 2.5], 2, 1, &[0, 1], 2, None).unwrap();
        assert_eq!((d.n_groups(), d.n_thresholds(0)), (1, 0));
        let err = NumericDataset::new(&[f64::NAN], 1, 1, &[0], 2, None).unwrap_err();
        assert!(err.to_string().contains("finite"), "{err}");
        assert!(NumericDataset::new(&[f64::INFINITY], 1, 1, &[0], 2, None).is_err());
        assert!(NumericDataset::new(&[1.0], 1, 2, &[0], 2, None).is_err());
        assert!(NumericDataset::new(&[1.0], 1, 1, &[3], 2, None).is_err());
        assert!(NumericDataset::new(&[], 0, 1, &[], 2, None).is_err());
    }
}
