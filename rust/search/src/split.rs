//! What a split is, as a policy: a family of binary tests over the equivalence classes
//! ("groups") of the dataset, each sending a group left or right, with a description
//! (feature, threshold) for the tree. The dependency-graph search and the depth-two
//! kernel are generic over it. Two families: one test per 0/1 column (right when the
//! column is 1), and one per threshold of a numeric column ([`Thresholds`], issue 12).

use treeopt_core::bitset::{and_into, and_not_into, for_each_one};
use treeopt_core::{BinaryDataset, Groups, NumericDataset, Tree};

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
    /// Calls `f` with every split sending group `g` right, ascending.
    fn for_each_right(&self, g: usize, f: impl FnMut(u32));
    /// The splits sending group `g` right as a stored list, when the family keeps one
    /// per group (0/1 columns). The pairwise-count depth-two kernel needs these lists;
    /// thresholds (whose pairs grow with the square of the thresholds) have none and go
    /// to the sweep kernel instead ([`SplitFamily::as_thresholds`]).
    fn right_list(&self, g: usize) -> Option<&[u32]>;
    /// Every group's [`SplitFamily::right_list`] at once, as compressed rows (group `g`'s
    /// splits are `lists[starts[g]..starts[g + 1]]`), when the family stores them so.
    #[inline]
    fn right_lists(&self) -> Option<(&[u32], &[u32])> {
        None
    }
    /// The groups split `s` sends right, as a bit vector over the groups, when the
    /// family keeps one per split (0/1 columns).
    #[inline]
    fn right_words(&self, _s: usize) -> Option<&[u64]> {
        None
    }
    /// True when split `s` sends group `g` right.
    fn goes_right(&self, g: usize, s: usize) -> bool;
    /// The feature and threshold of split `s`.
    fn describe(&self, s: usize) -> SplitDescription;
    /// Writes the part of capture set `set` that split `s` sends right (`right`) or left.
    fn partition(&self, set: &[u64], s: usize, right: bool, out: &mut [u64]);
    /// True when split `s - 1` sends right every group split `s` sends right (thresholds
    /// of one column, ascending): the two then part a subproblem identically when they
    /// send as many of its groups right, and the search considers only the first.
    #[inline]
    fn nested_in_previous(&self, _s: usize) -> bool {
        false
    }
    /// Calls `f` with the last split sending group `g` right in every run of nested
    /// splits (see [`SplitFamily::nested_in_previous`]) where it goes right at all: in
    /// such a run a group's right splits are the first ones, so sums over the groups a
    /// split sends right can be added once per run and then summed from each run's end.
    /// Without nesting, every split sending `g` right.
    #[inline]
    fn for_each_last_right(&self, g: usize, f: impl FnMut(u32)) {
        self.for_each_right(g, f)
    }
    /// The last split of the run of nested splits starting at split `first` that sends
    /// group `g` right, if any (see [`SplitFamily::for_each_last_right`]). Without
    /// nesting the run is `first` alone.
    #[inline]
    fn last_right_in(&self, g: usize, first: usize) -> Option<u32> {
        self.goes_right(g, first).then_some(first as u32)
    }
    /// The family as thresholds of numeric columns, when it is: subproblems with two
    /// levels left then go to the sorted-order sweep kernel ([`crate::sweep`]).
    #[inline]
    fn as_thresholds(&self) -> Option<&Thresholds<'_>> {
        None
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
    fn for_each_right(&self, g: usize, mut f: impl FnMut(u32)) {
        for &s in self.data.ones_of(g) {
            f(s);
        }
    }
    #[inline]
    fn right_list(&self, g: usize) -> Option<&[u32]> {
        Some(self.data.ones_of(g))
    }
    #[inline]
    fn right_lists(&self) -> Option<(&[u32], &[u32])> {
        Some(self.data.ones_lists())
    }
    #[inline]
    fn right_words(&self, s: usize) -> Option<&[u64]> {
        Some(self.data.feature_words(s))
    }
    #[inline]
    fn goes_right(&self, g: usize, s: usize) -> bool {
        self.data.feature_of(g, s) == 1
    }
    fn describe(&self, s: usize) -> SplitDescription {
        SplitDescription { feature: s, threshold: 0.5 }
    }
    #[inline]
    fn partition(&self, set: &[u64], s: usize, right: bool, out: &mut [u64]) {
        if right {
            and_into(out, set, self.data.feature_words(s));
        } else {
            and_not_into(out, set, self.data.feature_words(s));
        }
    }
}

/// One split per threshold of a numeric column: column `j`'s threshold `t` sends right
/// the groups whose rank in `j` is above `t` (value above the midpoint of the column's
/// distinct values `t` and `t + 1`). Splits are numbered column by column, thresholds
/// ascending, so those of a column are nested and a group's right splits form one run
/// per column: nothing is stored per (group, threshold). Within a subproblem the search
/// keeps the first of the thresholds that part it alike ([`SplitFamily::nested_in_previous`]),
/// so the candidates are exactly the cuts between consecutive distinct values present
/// in it; [`Thresholds::threshold_in`] gives the midpoint of those values.
pub struct Thresholds<'a> {
    data: &'a NumericDataset,
    /// Per column, the number of its first split (and the total at the end).
    start: Vec<u32>,
    /// Per split, its column.
    column: Vec<u32>,
}

impl<'a> Thresholds<'a> {
    pub fn new(data: &'a NumericDataset) -> Self {
        let mut start = Vec::with_capacity(data.n_columns() + 1);
        let mut column = Vec::new();
        start.push(0);
        for j in 0..data.n_columns() {
            column.extend(std::iter::repeat(j as u32).take(data.n_thresholds(j)));
            start.push(column.len() as u32);
        }
        Thresholds { data, start, column }
    }

    /// Column and threshold index of split `s`.
    #[inline]
    pub fn locate(&self, s: usize) -> (usize, u32) {
        let j = self.column[s] as usize;
        (j, s as u32 - self.start[j])
    }

    /// The numeric dataset the splits are thresholds of.
    #[inline]
    pub(crate) fn numeric(&self) -> &'a NumericDataset {
        self.data
    }

    /// The split of column `j`'s threshold `t` (left: rank at most `t`).
    #[inline]
    pub(crate) fn split_of(&self, j: usize, t: u32) -> u32 {
        self.start[j] + t
    }

    /// [`Thresholds::threshold_in`] for a split `s` that is the first of its partition
    /// of a set (so the set holds its column's value of rank `t`, `s`'s own index), given
    /// `above`: the first split of the column from `s` on after which the set holds the
    /// next value (that value has rank one more than `above`'s index).
    pub fn threshold_between(&self, s: usize, above: usize) -> f64 {
        let ((j, t), (_, u)) = (self.locate(s), self.locate(above));
        let d = self.data.distinct(j);
        midpoint(d[t as usize], d[u as usize + 1])
    }

    /// The midpoint between the largest value of split `s`'s column sent left and the
    /// smallest sent right among the groups of `set` (the split must part `set`).
    pub fn threshold_in(&self, set: &[u64], s: usize) -> f64 {
        let (j, t) = self.locate(s);
        let (mut below, mut above) = (0u32, u32::MAX);
        for_each_one(set, |g| {
            let r = self.data.rank(g, j);
            if r > t {
                above = above.min(r);
            } else {
                below = below.max(r);
            }
        });
        let d = self.data.distinct(j);
        midpoint(d[below as usize], d[above as usize])
    }

    /// The (column, threshold) of every split node of `tree` (found by a search over
    /// this family), thresholds being the midpoints within the rows each node captures;
    /// `None` for leaves.
    pub fn describe_tree(&self, tree: &Tree) -> Vec<Option<SplitDescription>> {
        let mut out = vec![None; tree.nodes.len()];
        if tree.nodes.is_empty() {
            return out;
        }
        let words = self.data.words();
        let mut stack = vec![(0usize, self.data.all_groups().words().to_vec())];
        while let Some((i, set)) = stack.pop() {
            let node = &tree.nodes[i];
            if let Some(s) = node.feature {
                out[i] = Some(SplitDescription { feature: self.locate(s).0, threshold: self.threshold_in(&set, s) });
                let (mut l, mut r) = (vec![0u64; words], vec![0u64; words]);
                self.partition(&set, s, false, &mut l);
                self.partition(&set, s, true, &mut r);
                stack.push((node.left, l));
                stack.push((node.right, r));
            }
        }
        out
    }
}

/// A number in `[a, b)` halfway between `a < b` (or `a` where rounding leaves none).
fn midpoint(a: f64, b: f64) -> f64 {
    let m = a / 2.0 + b / 2.0;
    if m >= a && m < b { m } else { a }
}

impl SplitFamily for Thresholds<'_> {
    #[inline]
    fn n_splits(&self) -> usize {
        self.column.len()
    }
    #[inline]
    fn for_each_right(&self, g: usize, mut f: impl FnMut(u32)) {
        for (j, &r) in self.data.ranks_of(g).iter().enumerate() {
            let s = self.start[j];
            for t in 0..r {
                f(s + t);
            }
        }
    }
    #[inline]
    fn right_list(&self, _g: usize) -> Option<&[u32]> {
        None
    }
    #[inline]
    fn goes_right(&self, g: usize, s: usize) -> bool {
        let (j, t) = self.locate(s);
        self.data.rank(g, j) > t
    }
    fn describe(&self, s: usize) -> SplitDescription {
        let (j, t) = self.locate(s);
        let d = self.data.distinct(j);
        SplitDescription { feature: j, threshold: midpoint(d[t as usize], d[t as usize + 1]) }
    }
    fn partition(&self, set: &[u64], s: usize, right: bool, out: &mut [u64]) {
        let (j, t) = self.locate(s);
        for (wi, (o, &w)) in out.iter_mut().zip(set).enumerate() {
            let (mut rest, mut kept) = (w, w);
            while rest != 0 {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if (self.data.rank(wi * 64 + b, j) > t) != right {
                    kept &= !(1u64 << b);
                }
            }
            *o = kept;
        }
    }
    #[inline]
    fn nested_in_previous(&self, s: usize) -> bool {
        s > 0 && self.column[s] == self.column[s - 1]
    }
    #[inline]
    fn for_each_last_right(&self, g: usize, mut f: impl FnMut(u32)) {
        for (j, &r) in self.data.ranks_of(g).iter().enumerate() {
            if r > 0 {
                f(self.start[j] + r - 1);
            }
        }
    }
    #[inline]
    fn last_right_in(&self, g: usize, first: usize) -> Option<u32> {
        let j = self.column[first] as usize;
        debug_assert_eq!(self.start[j] as usize, first, "a run of thresholds starts at its column's first");
        let r = self.data.rank(g, j);
        (r > 0).then(|| self.start[j] + r - 1)
    }
    #[inline]
    fn as_thresholds(&self) -> Option<&Thresholds<'_>> {
        Some(self)
    }
}

/// What one search works on: the packed data, the objective and the split family.
pub(crate) struct Task<'a, O, S> {
    pub data: &'a Groups,
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
        assert_eq!(splits.right_list(0), Some(&[1u32, 2][..]));
        assert_eq!(splits.right_list(2), Some(&[] as &[u32]));
        let mut seen = Vec::new();
        splits.for_each_right(1, |s| seen.push(s));
        assert_eq!(seen, [0, 2]);
        assert!(splits.goes_right(1, 0) && !splits.goes_right(0, 0));
        assert_eq!(splits.describe(1), SplitDescription { feature: 1, threshold: 0.5 });
        let mut out = [0u64];
        splits.partition(&[0b110], 2, true, &mut out);
        assert_eq!(out, [0b010]);
        splits.partition(&[0b110], 2, false, &mut out);
        assert_eq!(out, [0b100]);
    }

    #[test]
    fn thresholds_split_between_distinct_values() {
        // Groups 0..4; column 0 values 1, 5, 2, 5 (distinct 1, 2, 5); column 1 is 0/1;
        // column 2 constant.
        let x = [1.0, 0.0, 7.0, 5.0, 1.0, 7.0, 2.0, 1.0, 7.0, 5.0, 0.0, 7.0];
        let data = NumericDataset::new(&x, 4, 3, &[0, 1, 0, 1], 2, None).unwrap();
        let splits = Thresholds::new(&data);
        assert_eq!(splits.n_splits(), 3);
        assert_eq!((splits.locate(1), splits.locate(2)), ((0, 1), (1, 0)));
        assert_eq!(splits.describe(0), SplitDescription { feature: 0, threshold: 1.5 });
        assert_eq!(splits.describe(1), SplitDescription { feature: 0, threshold: 3.5 });
        assert_eq!(splits.describe(2), SplitDescription { feature: 1, threshold: 0.5 });
        let right = |g: usize| {
            let mut v = Vec::new();
            splits.for_each_right(g, |s| v.push(s));
            v
        };
        let last = |g: usize| {
            let mut v = Vec::new();
            splits.for_each_last_right(g, |s| v.push(s));
            v
        };
        assert_eq!((right(0), right(1), right(2)), (vec![], vec![0, 1, 2], vec![0, 2]));
        assert_eq!((last(0), last(1), last(2), last(3)), (vec![], vec![1, 2], vec![0, 2], vec![1]));
        assert!(splits.right_list(0).is_none());
        assert!(splits.goes_right(2, 0) && !splits.goes_right(2, 1) && splits.goes_right(3, 1));
        assert!(!splits.nested_in_previous(0) && splits.nested_in_previous(1) && !splits.nested_in_previous(2));
        let mut out = [0u64];
        splits.partition(&[0b1101], 1, true, &mut out);
        assert_eq!(out, [0b1000]);
        splits.partition(&[0b1101], 1, false, &mut out);
        assert_eq!(out, [0b0101]);
        // Without group 2 (value 2), threshold 1 of column 0 cuts between 1 and 5.
        assert_eq!(splits.threshold_in(&[0b1011], 0), 3.0);
        assert_eq!(splits.threshold_in(&[0b1011], 1), 3.0);
        assert_eq!(splits.threshold_in(&[0b1111], 1), 3.5);
        assert_eq!(midpoint(f64::MAX / 2.0 * 1.5, f64::MAX), f64::MAX / 2.0 * 1.5 / 2.0 + f64::MAX / 2.0);
    }
}
