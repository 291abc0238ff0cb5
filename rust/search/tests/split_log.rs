//! The split log for Rashomon sets (issue 20): every logged (subproblem, split) brackets
//! the exhaustive oracle's best tree rooted at that split, every split of the root is
//! logged, and logging changes nothing in the result.

mod common;

use common::{instance_with, oracle, Instance};
use proptest::prelude::*;
use std::collections::HashMap;
use treeopt_search::{solve_gosdt, GosdtConfig, NoMonitor, Status};

/// The dataset's group of every row: distinct feature vectors numbered by first
/// occurrence (all weights are positive).
fn groups(inst: &Instance) -> Vec<usize> {
    let mut ids: HashMap<&[u8], usize> = HashMap::new();
    (0..inst.rows)
        .map(|i| {
            let next = ids.len();
            *ids.entry(&inst.x[i * inst.features..(i + 1) * inst.features]).or_insert(next)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn logged_splits_bracket_the_oracle(
        inst in instance_with(16, 5, 2..=3),
        reg in prop_oneof![Just(0.0), Just(0.005), 0.0f64..0.03],
        depth in prop_oneof![Just(None), (1usize..6).prop_map(Some)],
    ) {
        let data = inst.data();
        let total = inst.total();
        let plain = GosdtConfig { regularization: reg, max_depth: depth, ..Default::default() };
        let logged = GosdtConfig { record_splits: true, ..plain.clone() };
        let a = solve_gosdt(&data, &plain, &mut NoMonitor).unwrap();
        let b = solve_gosdt(&data, &logged, &mut NoMonitor).unwrap();
        prop_assert!(a.splits.is_none());
        prop_assert_eq!(&a.tree, &b.tree);
        prop_assert_eq!(a.objective, b.objective);
        prop_assert_eq!(b.status, Status::Optimal);
        let splits = b.splits.unwrap();
        let group = groups(&inst);
        let mut memo = HashMap::new();
        let all_groups = data.all_groups();
        let mut root_features = vec![];
        for s in &splits {
            let rows: Vec<usize> = (0..inst.rows).filter(|&i| s.capture[group[i] / 64] >> (group[i] % 64) & 1 == 1).collect();
            let (l, r): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&i| inst.x[i * inst.features + s.feature] == 0);
            prop_assert!(!l.is_empty() && !r.is_empty(), "a logged split leaves a side empty");
            let d = s.depth.map(|d| d - 1);
            let best = (oracle(&inst, reg * total, l, d, &mut memo) + oracle(&inst, reg * total, r, d, &mut memo)) / total;
            prop_assert!(s.lower_bound <= best + 1e-9, "lower bound {} above the best tree {} at this split", s.lower_bound, best);
            prop_assert!(best <= s.upper_bound + 1e-9, "upper bound {} below the best tree {} at this split", s.upper_bound, best);
            if s.capture.as_slice() == all_groups.words() {
                root_features.push(s.feature);
            }
        }
        // The root, unless closed as a leaf at once, logs every feature that splits it.
        if !splits.is_empty() && depth.map_or(true, |d| d > 2) {
            let separating: Vec<usize> = (0..inst.features)
                .filter(|&j| {
                    let ones = (0..inst.rows).filter(|&i| inst.x[i * inst.features + j] == 1).count();
                    ones > 0 && ones < inst.rows
                })
                .collect();
            root_features.sort_unstable();
            prop_assert_eq!(root_features, separating);
        }
    }
}
