//! Keys of subproblems over thresholds of numeric columns by their *box*: per column a
//! path constrains, the interval `[lo, hi]` of ranks its groups may have. A subproblem
//! is the set of groups inside its box (the root's box constrains nothing), so equal
//! boxes capture equal sets and a box identifies its subproblem exactly; a box takes
//! a few words where the capture bit-vector takes one bit per group (fico at depth 4:
//! 3 words against 164).
//!
//! Boxes are canonical as far as is cheap: constraints sorted by column, intersected
//! along the path, and each interval shrunk to the least and greatest rank the captured
//! groups have in it (which keeps the same groups inside, and makes paths that differ
//! only by thresholds no group lies between meet on one key). Two different boxes can
//! still capture the same groups (constraints on different columns): the subproblem is
//! then stored, and solved, twice — never a wrong answer.
//!
//! A constraint is packed in one word, `(column + 1, lo, hi)`, when the bits fit, else
//! in two; unused slots are zero.

use treeopt_core::bitset::for_each_one;
use treeopt_core::NumericDataset;

#[cfg(test)]
thread_local! {
    /// Tests: box keys even where they are not narrower than the bit-vectors (small
    /// instances, which the exhaustive oracle can check).
    pub(crate) static ALWAYS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Most constraints a box holds: deeper limits keep the capture bit-vector as key.
pub(crate) const MAX_SLOTS: usize = 16;

/// One constraint: column, least and greatest rank.
type Constraint = (u32, u32, u32);

/// The box codec of one search: slots (the depth of its root, at most the number of
/// columns) and the packing of a constraint.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoxKeys {
    slots: usize,
    /// Two words per constraint (column; lo and hi as 32-bit halves).
    wide: bool,
    /// Bits of a rank in the one-word packing.
    bits: u32,
}

impl BoxKeys {
    /// The codec for a search over `data` whose root has `depth` levels left: a record
    /// has at least one level left (with none, a node is a leaf), so the path to it
    /// holds at most `depth - 1` splits, its box at most as many constraints. `None`
    /// when that is beyond [`MAX_SLOTS`] or a box would take as many words as the
    /// capture bit-vector.
    pub(crate) fn new(data: &NumericDataset, depth: u32) -> Option<Self> {
        let slots = (depth.saturating_sub(1) as usize).min(data.n_columns());
        let top = (0..data.n_columns()).map(|j| data.n_thresholds(j) as u64).max().unwrap_or(0);
        let bits = (64 - top.leading_zeros()).max(1);
        let column_bits = 64 - (data.n_columns() as u64).leading_zeros();
        let wide = column_bits + 2 * bits > 64;
        let keys = BoxKeys { slots, wide, bits };
        let narrower = keys.words() < data.words();
        #[cfg(test)]
        let narrower = narrower || ALWAYS.with(|a| a.get());
        (slots <= MAX_SLOTS && narrower).then_some(keys)
    }

    /// Words of a key.
    #[inline]
    pub(crate) fn words(&self) -> usize {
        self.slots * (1 + self.wide as usize)
    }

    /// The constraints of `key`, in column order, into `out`; returns how many.
    #[inline]
    fn read(&self, key: &[u64], out: &mut [Constraint; MAX_SLOTS]) -> usize {
        let mut n = 0;
        for i in 0..self.slots {
            let c = if self.wide {
                let (a, b) = (key[2 * i], key[2 * i + 1]);
                if a == 0 {
                    break;
                }
                ((a - 1) as u32, (b >> 32) as u32, b as u32)
            } else {
                let a = key[i];
                if a == 0 {
                    break;
                }
                let mask = (1u64 << self.bits) - 1;
                (((a >> (2 * self.bits)) - 1) as u32, ((a >> self.bits) & mask) as u32, (a & mask) as u32)
            };
            out[n] = c;
            n += 1;
        }
        n
    }

    /// Writes `cs` (in column order) as a key.
    #[inline]
    fn write(&self, cs: &[Constraint], key: &mut [u64]) {
        key.fill(0);
        for (i, &(j, lo, hi)) in cs.iter().enumerate() {
            if self.wide {
                key[2 * i] = j as u64 + 1;
                key[2 * i + 1] = (lo as u64) << 32 | hi as u64;
            } else {
                key[i] = (j as u64 + 1) << (2 * self.bits) | (lo as u64) << self.bits | hi as u64;
            }
        }
    }

    /// The key of the child of the subproblem keyed `parent` on the side (`right`) of
    /// column `j`'s threshold `t`, whose groups are `set`. The child must have a level
    /// left (its box then fits the slots).
    pub(crate) fn child(&self, data: &NumericDataset, parent: &[u64], j: usize, t: u32, right: bool, set: &[u64], out: &mut [u64]) {
        let mut cs = [(0, 0, 0); MAX_SLOTS];
        let mut n = self.read(parent, &mut cs);
        debug_assert!(n < self.slots || cs[..n].iter().any(|c| c.0 == j as u32), "a box past its slots");
        let j32 = j as u32;
        let at = cs[..n].partition_point(|c| c.0 < j32);
        if at == n || cs[at].0 != j32 {
            cs.copy_within(at..n, at + 1);
            cs[at] = (j32, 0, data.n_thresholds(j) as u32);
            n += 1;
        }
        let c = &mut cs[at];
        if right {
            c.1 = c.1.max(t + 1);
        } else {
            c.2 = c.2.min(t);
        }
        // Shrink every interval to the ranks the groups have in it.
        let mut seen = [(u32::MAX, 0u32); MAX_SLOTS];
        for_each_one(set, |g| {
            let ranks = data.ranks_of(g);
            for (s, c) in seen[..n].iter_mut().zip(&cs[..n]) {
                let r = ranks[c.0 as usize];
                s.0 = s.0.min(r);
                s.1 = s.1.max(r);
            }
        });
        for (c, s) in cs[..n].iter_mut().zip(&seen[..n]) {
            if s.0 <= s.1 {
                (c.1, c.2) = *s;
            }
        }
        self.write(&cs[..n], out);
    }

    /// The groups inside the box `key`, as a bit-vector over the groups.
    pub(crate) fn set_of(&self, data: &NumericDataset, key: &[u64], out: &mut [u64]) {
        let mut cs = [(0, 0, 0); MAX_SLOTS];
        let n = self.read(key, &mut cs);
        out.fill(0);
        if n == 0 {
            let g = data.n_groups();
            out[..g / 64].fill(u64::MAX);
            if g % 64 != 0 {
                out[g / 64] = (1u64 << (g % 64)) - 1;
            }
            return;
        }
        // The groups of the narrowest interval, in its column's sorted order, each
        // checked against the other constraints.
        let slice = |&(j, lo, hi): &Constraint| {
            let order = data.sorted(j as usize);
            let a = order.partition_point(|&g| data.rank(g as usize, j as usize) < lo);
            let b = order.partition_point(|&g| data.rank(g as usize, j as usize) <= hi);
            &order[a..b]
        };
        let (k, groups) = cs[..n].iter().map(slice).enumerate().min_by_key(|(_, s)| s.len()).expect("a constraint");
        for &g in groups {
            let ranks = data.ranks_of(g as usize);
            let inside = cs[..n].iter().enumerate().all(|(i, &(j, lo, hi))| i == k || (lo..=hi).contains(&ranks[j as usize]));
            if inside {
                out[g as usize / 64] |= 1 << (g % 64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::{SplitFamily, Thresholds};
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn data(rows: &[[f64; 3]]) -> NumericDataset {
        let x: Vec<f64> = rows.iter().flatten().copied().collect();
        let y: Vec<u32> = (0..rows.len() as u32).map(|i| i % 2).collect();
        NumericDataset::new(&x, rows.len(), 3, &y, 2, None).unwrap()
    }

    /// Every path of up to three splits: the box's groups are the path's, and a box is
    /// never shared by two different sets.
    #[test]
    fn a_box_captures_exactly_the_groups_of_its_path() {
        let rows: Vec<[f64; 3]> = (0..400).map(|i| [(i * 7 % 11) as f64, (i % 5) as f64, (i * 3 % 13) as f64 / 2.0]).collect();
        let d = data(&rows);
        let th = Thresholds::new(&d);
        let keys = BoxKeys::new(&d, 4).expect("boxes are narrower than the bit-vectors here");
        let w = d.words();
        let mut by_key = std::collections::HashMap::<Vec<u64>, Vec<u64>>::new();
        let mut stack = vec![(d.all_groups().words().to_vec(), vec![0u64; keys.words()], 0)];
        while let Some((set, key, depth)) = stack.pop() {
            let mut back = vec![0u64; w];
            keys.set_of(&d, &key, &mut back);
            assert_eq!(back, set, "key {key:?}");
            assert_eq!(by_key.entry(key.clone()).or_insert_with(|| set.clone()), &set);
            if depth == 3 {
                continue;
            }
            for s in 0..th.n_splits() {
                for right in [false, true] {
                    let mut child = vec![0u64; w];
                    th.partition(&set, s, right, &mut child);
                    if child.iter().all(|&x| x == 0) || child == set {
                        continue;
                    }
                    let (j, t) = th.locate(s);
                    let mut ck = vec![0u64; keys.words()];
                    keys.child(&d, &key, j, t, right, &child, &mut ck);
                    stack.push((child, ck, depth + 1));
                }
            }
        }
        assert!(by_key.len() > 100);
    }

    /// A small numeric problem whose columns tie a lot and repeat one another (a copy of
    /// column 0, reversed or coarsened), so that different paths, on different columns
    /// or thresholds, reach the same rows: different boxes keying one set.
    #[derive(Debug, Clone)]
    struct Instance {
        x: Vec<f64>,
        y: Vec<u32>,
        w: Vec<f64>,
        rows: usize,
        columns: usize,
        classes: usize,
    }

    fn instance() -> impl Strategy<Value = Instance> {
        (1usize..=24, 1usize..=4, 2usize..=3, 2u32..=5).prop_flat_map(|(rows, columns, classes, levels)| {
            (
                proptest::collection::vec(0..levels, rows * columns),
                proptest::collection::vec(0u8..4, columns),
                proptest::collection::vec(0u32..classes as u32, rows),
                proptest::collection::vec(prop_oneof![Just(1.0), 0.1f64..5.0], rows),
            )
                .prop_map(move |(v, kinds, y, w)| {
                    let mut x: Vec<f64> = v.iter().map(|&v| v as f64).collect();
                    for i in 0..rows {
                        let first = x[i * columns];
                        for (j, &kind) in kinds.iter().enumerate().skip(1) {
                            match kind {
                                1 => x[i * columns + j] = -first,
                                2 => x[i * columns + j] = (first / 2.0).floor(),
                                _ => {}
                            }
                        }
                    }
                    Instance { x, y, w, rows, columns, classes }
                })
        })
    }

    impl Instance {
        fn leaf_loss(&self, rows: &[usize]) -> f64 {
            let mut totals = vec![0.0; self.classes];
            for &r in rows {
                totals[self.y[r] as usize] += self.w[r];
            }
            totals.iter().sum::<f64>() - totals.iter().cloned().fold(0.0, f64::max)
        }

        /// Least cost over every (column, midpoint) tree of depth at most `depth` on `rows`,
        /// leaves of at least `support` rows (exhaustive, memoised by row set).
        fn oracle(&self, penalty: f64, rows: Vec<usize>, depth: usize, support: usize, memo: &mut HashMap<(Vec<usize>, usize), f64>) -> f64 {
            if let Some(&v) = memo.get(&(rows.clone(), depth)) {
                return v;
            }
            let mut best = self.leaf_loss(&rows) + penalty;
            if depth > 0 {
                for j in 0..self.columns {
                    let value = |i: usize| self.x[i * self.columns + j];
                    let mut present: Vec<f64> = rows.iter().map(|&i| value(i)).collect();
                    present.sort_by(f64::total_cmp);
                    present.dedup();
                    for p in present.windows(2) {
                        let (l, r): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&i| value(i) <= (p[0] + p[1]) / 2.0);
                        if l.len() >= support && r.len() >= support {
                            best = best.min(self.oracle(penalty, l, depth - 1, support, memo) + self.oracle(penalty, r, depth - 1, support, memo));
                        }
                    }
                }
            }
            memo.insert((rows, depth), best);
            best
        }
    }

    /// DL8.5 on numeric columns with the store keyed by boxes: the oracle's objective,
    /// proven, and the objective of the same search keyed by capture bit-vectors, on
    /// instances where many boxes capture the same rows (ties, repeated columns), depth
    /// 1 to 4. Most cases must be searched with boxes (a depth limit below the number
    /// of thresholds).
    #[test]
    fn box_keys_match_the_oracle_where_boxes_collide() {
        let boxed_cases = std::cell::Cell::new(0);
        let strategy = (instance(), prop_oneof![Just(0.0), Just(0.01), 0.0f64..0.05], 1usize..=4, 1usize..=2);
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(400));
        let outcome = runner.run(&strategy, |(inst, reg, depth, min_samples_leaf)| {
            let data = NumericDataset::new(&inst.x, inst.rows, inst.columns, &inst.y, inst.classes, Some(&inst.w)).unwrap();
            let config = crate::Dl85Config { max_depth: depth, min_samples_leaf, regularization: reg, ..Default::default() };
            let total: f64 = inst.w.iter().sum();
            let want = inst.oracle(reg * total, (0..inst.rows).collect(), depth, min_samples_leaf, &mut HashMap::new()) / total;
            ALWAYS.with(|a| a.set(true));
            let limited = crate::graph::search_depth(Some(depth), Thresholds::new(&data).n_splits()) != u32::MAX;
            if limited && BoxKeys::new(&data, depth as u32).is_some() {
                boxed_cases.set(boxed_cases.get() + 1);
            }
            let res = crate::solve_dl85_numeric(&data, &config, &mut crate::NoMonitor);
            ALWAYS.with(|a| a.set(false));
            let res = res.unwrap();
            prop_assert_eq!(res.status, crate::Status::Optimal);
            prop_assert!((res.objective - want).abs() < 1e-9, "boxes {} oracle {}", res.objective, want);
            let bits = crate::solve_dl85_numeric(&data, &config, &mut crate::NoMonitor).unwrap();
            prop_assert!((bits.objective - res.objective).abs() < 1e-9, "bit-vectors {} boxes {}", bits.objective, res.objective);
            prop_assert!(res.tree.depth() <= depth);
            Ok(())
        });
        if let Err(e) = outcome {
            panic!("{e}");
        }
        assert!(boxed_cases.get() >= 200, "only {} of 400 cases searched with boxes", boxed_cases.get());
    }
}
