//! What a split is, as a policy: a family of binary tests over the equivalence classes
//! ("groups") of the dataset, each sending a group left or right, with a description
//! (feature, threshold) for the tree. The dependency-graph search and the depth-two
//! kernel are generic over it. Today's family is one test per 0/1 column (right when the
//! column is 1); thresholds on numeric columns (issue 12) are another.

use treeopt_core::bitset::{and_into, and_not_into};
use treeopt_core::BinaryDataset;

/// How a split is shown in the tree: rows with `feature <= threshold` go left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitDescription {
    pub feature: usize,
    pub threshold: f64,
}

/// A family of binary splits over the groups of a dataset, numbered `0..n_splits()`.
pub trait SplitFamily {
    /// Number of candidate splits.
    fn n_splits(&self) -> usize;
    /// The splits sending group `g` right, ascending.
    fn right_of(&self, g: usize) -> &[u32];
    /// The groups split `s` sends right, as bitset words over the groups.
    fn right_words(&self, s: usize) -> &[u64];
    /// True when split `s` sends group `g` right.
    fn goes_right(&self, g: usize, s: usize) -> bool;
    /// The feature and threshold of split `s`.
    fn describe(&self, s: usize) -> SplitDescription;
    /// Writes the part of capture set `set` that split `s` sends right (`right`) or left.
    #[inline]
    fn partition(&self, set: &[u64], s: usize, right: bool, out: &mut [u64]) {
        if right {
            and_into(out, set, self.right_words(s));
        } else {
            and_not_into(out, set, self.right_words(s));
        }
    }
}

/// One split per 0/1 column: right when the column is 1 (threshold 0.5).
pub struct ZeroOneColumns<'a> {
    data: &'a BinaryDataset,
}

impl<'a> ZeroOneColumns<'a> {
    pub fn new(data: &'a BinaryDataset) -> Self {
        ZeroOneColumns { data }
    }
}

impl SplitFamily for ZeroOneColumns<'_> {
    #[inline]
    fn n_splits(&self) -> usize {
        self.data.n_features()
    }
    #[inline]
    fn right_of(&self, g: usize) -> &[u32] {
        self.data.ones_of(g)
    }
    #[inline]
    fn right_words(&self, s: usize) -> &[u64] {
        self.data.feature_words(s)
    }
    #[inline]
    fn goes_right(&self, g: usize, s: usize) -> bool {
        self.data.feature_of(g, s) == 1
    }
    fn describe(&self, s: usize) -> SplitDescription {
        SplitDescription { feature: s, threshold: 0.5 }
    }
}

/// What one search works on: the packed data, the objective and the split family.
pub(crate) struct Task<'a, O, S> {
    pub data: &'a BinaryDataset,
    pub obj: O,
    pub splits: S,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_one_columns_split_on_the_ones() {
        // Groups: [0, 1, 1], [1, 0, 1], [0, 0, 0].
        let x = [0, 1, 1, 1, 0, 1, 0, 0, 0];
        let data = BinaryDataset::new(&x, 3, 3, &[0, 1, 0], 2, None).unwrap();
        let splits = ZeroOneColumns::new(&data);
        assert_eq!(splits.n_splits(), 3);
        assert_eq!(splits.right_of(0), &[1, 2]);
        assert_eq!(splits.right_of(2), &[] as &[u32]);
        assert_eq!(splits.right_words(2), &[0b011]);
        assert!(splits.goes_right(1, 0) && !splits.goes_right(0, 0));
        assert_eq!(splits.describe(1), SplitDescription { feature: 1, threshold: 0.5 });
        let mut out = [0u64];
        splits.partition(&[0b110], 2, true, &mut out);
        assert_eq!(out, [0b010]);
        splits.partition(&[0b110], 2, false, &mut out);
        assert_eq!(out, [0b100]);
    }
}
