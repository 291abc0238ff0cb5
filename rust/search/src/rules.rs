//! The leaf-closing rules shared by the dependency-graph search ([`crate::graph`]) and
//! the depth-two kernel ([`crate::depth2`]): from a node's summed statistics, its
//! equivalent-points floor and its rows, the cost of closing it as a leaf, the bounds of
//! the best tree below it and whether a split can pay off at all.

use treeopt_core::dataset::leaf_loss;

/// The leaf-closing rules every subproblem is judged by.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rules {
    /// Penalty per leaf in weight units.
    pub penalty: f64,
    /// Minimum rows per leaf.
    pub min_support: f64,
}

/// Bounds of one side of a candidate split, known right after the parent's pass.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Side {
    pub leaf_cost: f64,
    /// Search bound (guessed when guessing).
    pub lb: f64,
    /// Proven bound.
    pub proven: f64,
    /// Closed as a leaf without search (no depth left, or no split can pay off).
    pub terminal: bool,
}

/// Bounds of a node with these class totals, minority (equivalent-points) weight, rows
/// and, when guessing, the weight the reference model misclassifies in it.
#[inline]
pub(crate) fn side(totals: &[f64], minority: f64, reference: Option<f64>, rows: f64, depth: u32, rules: &Rules) -> Side {
    let penalty = rules.penalty;
    let loss = leaf_loss(totals).0;
    let leaf_cost = loss + penalty;
    // Leaf support and incremental accuracy: a split can gain at most loss - minority and
    // costs at least one more penalty; and both children need the minimum support.
    let mut proven_terminal = depth == 0 || loss - minority <= penalty || rows < 2.0 * rules.min_support;
    let mut proven = if proven_terminal { leaf_cost } else { minority + 2.0 * penalty };
    if !proven_terminal && totals.len() > 2 {
        // With three or more classes, each leaf serving one class bounds a split tree too.
        proven = split_bound(totals, minority, penalty, depth);
        if proven >= leaf_cost {
            (proven_terminal, proven) = (true, leaf_cost);
        }
    }
    match reference {
        None => Side { leaf_cost, lb: proven, proven, terminal: proven_terminal },
        Some(r) => {
            // Paper §4.3 step 1: a leaf within one penalty of the guess is taken as solved.
            let terminal = proven_terminal || loss - r <= penalty;
            let lb = if terminal { leaf_cost } else { proven.max(r + penalty) };
            Side { leaf_cost, lb, proven, terminal }
        }
    }
}

/// Least cost of any split tree of a node with these class totals (three or more
/// classes): a tree with `L >= 2` leaves misclassifies at least the equivalent-points
/// weight `minority`, and at least all but the `L` largest class totals (each leaf
/// predicts one class), and pays `L` penalties; `L <= 2^depth`. With many classes and a
/// penalty above a class's share this proves a leaf optimal at once.
fn split_bound(totals: &[f64], minority: f64, penalty: f64, depth: u32) -> f64 {
    let mut sorted: Vec<f64> = totals.to_vec();
    sorted.sort_unstable_by(|a, b| b.total_cmp(a));
    let max_leaves = if depth >= 63 { usize::MAX } else { 1usize << depth };
    let total: f64 = sorted.iter().sum();
    let mut covered = sorted[0];
    let mut best = f64::INFINITY;
    for (l, &t) in sorted.iter().enumerate().skip(1) {
        let leaves = l + 1;
        if leaves > max_leaves {
            break;
        }
        covered += t;
        let missed = (total - covered).max(0.0);
        best = best.min(missed.max(minority) + penalty * leaves as f64);
        if missed <= minority {
            break; // more leaves only add penalties
        }
    }
    if best.is_finite() { best } else { minority + 2.0 * penalty }
}

