//! The leaf-closing rules shared by the dependency-graph search ([`crate::graph`]) and
//! the depth-two kernel ([`crate::depth2`]): from a node's summed statistics, its
//! equivalent-points floor and its rows, the cost of closing it as a leaf, the bounds of
//! the best tree below it and whether a split can pay off at all.

use crate::objective::Objective;

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

/// Bounds of a node with these summed statistics (`totals`), equivalent-points floor
/// (`minority`), rows and, when guessing, the weight the reference model loses in it.
#[inline]
pub(crate) fn side<O: Objective>(obj: &O, totals: &[f64], minority: f64, reference: Option<f64>, rows: f64, depth: u32, rules: &Rules) -> Side {
    let penalty = rules.penalty;
    let loss = obj.leaf_loss(totals);
    let leaf_cost = loss + penalty;
    // Leaf support and incremental accuracy: a split can gain at most loss - minority and
    // costs at least one more penalty; and both children need the minimum support.
    let mut proven_terminal = depth == 0 || loss - minority <= penalty || rows < 2.0 * rules.min_support;
    let mut proven = if proven_terminal { leaf_cost } else { minority + 2.0 * penalty };
    if !proven_terminal {
        if let Some(bound) = obj.split_bound(totals, minority, penalty, depth) {
            proven = bound;
            if proven >= leaf_cost {
                (proven_terminal, proven) = (true, leaf_cost);
            }
        }
    }
    match reference {
        None => Side { leaf_cost, lb: proven, proven, terminal: proven_terminal },
        Some(r) => {
            // Paper §4.3 step 1: a leaf within one penalty of the guess is taken as solved.
            // Up to rounding: the search and the tree's extraction sum `loss` and `r` in
            // different orders, and must agree on which nodes are leaves.
            let terminal = proven_terminal || loss - r <= penalty + 1e-9 * (loss.abs() + r.abs());
            let lb = if terminal { leaf_cost } else { proven.max(r + penalty) };
            Side { leaf_cost, lb, proven, terminal }
        }
    }
}
