//! Rashomon sets (issue 21): every tree whose cost is within a bound of the optimum, as
//! an and/or graph of subproblems, never a list of trees.
//!
//! A node of the graph is a subproblem (a capture set of groups and the depth left)
//! together with every tree of it that costs at most the node's budget, kept as *levels*:
//! the distinct costs, ascending, each with its number of trees and the *ways* to reach
//! it (a leaf predicting one class, or a split whose left child reaches one of its levels
//! and whose right child another). Counting, indexing by cost, prediction and feature
//! usage are then dynamic programmes over the levels.
//!
//! The graph is explored with the dependency-graph search of [`crate::graph`] as its
//! oracle: before a split's children are built, the search proves each child's optimum
//! within what the budget leaves (memoised in its store, where the search for the
//! optimum already proved most of them), and each child is built with the parent's budget
//! less the *optimum* of its sibling. So a node is built only when at least one tree
//! through it is a member of the set, and with exactly the budget its members need.
//!
//! The set is defined literally: every split sends at least one row (and at least the
//! minimum support) each way, one split per distinct partition of the node's rows (for
//! numeric columns the threshold is the midpoint of the values around the cut within the
//! node), a leaf may predict any class, and the depth is at most the limit.

use crate::budget::{Limits, Monitor};
use crate::graph::{search_depth, GosdtConfig, Solver};
use crate::objective::{stats_totals, Misclassification};
use crate::rules::{Rules, Side};
use crate::depth2::listed_features;
use crate::split::{SplitFamily, Task, Thresholds, ZeroOneColumns};
use crate::store::Store;
use crate::Status;
use treeopt_core::bitset::with_popcount;
use treeopt_core::{BinaryDataset, Error, Groups, NumericDataset};

/// Objectives within this of the bound count as within it (rounding of float sums).
pub const TOLERANCE: f64 = 1e-9;

/// How far above the optimum a member of the set may be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RashomonBound {
    /// Objective at most `(1 + b) x` optimum.
    Multiplicative(f64),
    /// Objective at most optimum `+ b`.
    Additive(f64),
}

/// What defines a Rashomon set: GOSDT's objective (misclassified weight / total weight +
/// `regularization` x leaves), the trees' depth limit and minimum rows per leaf, the
/// bound, and the limits of the search.
#[derive(Clone, Debug)]
pub struct RashomonConfig {
    /// Penalty per leaf, as a fraction of the total weight.
    pub regularization: f64,
    /// Maximum depth (a single leaf has depth 0); `None`: no limit.
    pub max_depth: Option<usize>,
    /// Minimum rows in every leaf (0 and 1: no minimum).
    pub min_samples_leaf: usize,
    /// How far above the optimum members may be.
    pub bound: RashomonBound,
    /// Time and memory limits of the whole build (a stopped build returns an error: a
    /// partial set would not be the Rashomon set).
    pub limits: Limits,
}

/// Why a Rashomon set could not be built.
#[derive(Clone, Debug, PartialEq)]
pub enum RashomonError {
    /// A limit or the monitor stopped the build.
    Stopped(Status),
    /// Bad input, or a set of more than 2^128 trees.
    Invalid(String),
}

impl From<Error> for RashomonError {
    fn from(e: Error) -> Self {
        RashomonError::Invalid(e.to_string())
    }
}

/// A way marks a leaf with this in `column`.
const LEAF_WAY: u32 = u32::MAX;

/// One way to reach a level of a node: a leaf (`column == LEAF_WAY`) predicting `label`,
/// or a split `x[column] <= threshold` whose left child reaches its level `left_level`
/// and right child its level `right_level`; `count` trees.
#[derive(Clone, Copy, Debug)]
struct Way {
    count: u128,
    column: u32,
    label: u32,
    threshold: f64,
    left: u32,
    left_level: u32,
    right: u32,
    right_level: u32,
}

/// One distinct cost of a node's trees: `count` trees, reached by the node's ways
/// `previous level's end..end`.
#[derive(Clone, Copy, Debug)]
struct Level {
    cost: f64,
    count: u128,
    end: u32,
}

/// A subproblem's trees costing at most `budget`.
#[derive(Clone, Debug, Default)]
struct GraphNode {
    budget: f64,
    levels: Vec<Level>,
    ways: Vec<Way>,
    /// Index of its first level among all the graph's levels (for memo tables).
    first_level: u32,
}

impl GraphNode {
    fn ways_of(&self, level: usize) -> &[Way] {
        let start = if level == 0 { 0 } else { self.levels[level - 1].end as usize };
        &self.ways[start..self.levels[level].end as usize]
    }
}

/// One node of a tree of the set, in preorder: a split (`column` is `Some`) with its
/// children's positions, or a leaf predicting class `label`.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeRecord {
    pub column: Option<usize>,
    pub threshold: f64,
    pub left: usize,
    pub right: usize,
    pub label: usize,
}

/// The Rashomon set of a problem as an and/or graph (see the module documentation).
/// Costs are in weight units (misclassified weight + penalty x leaves); divide by
/// [`RashomonGraph::total_weight`] for objectives.
#[derive(Clone, Debug)]
pub struct RashomonGraph {
    nodes: Vec<GraphNode>,
    root: u32,
    /// Levels of the root within the bound (a prefix of its levels).
    root_levels: usize,
    total_weight: f64,
    optimal_objective: f64,
    objective_bound: f64,
    n_classes: usize,
    n_columns: usize,
    total_levels: usize,
}

/// Builds the Rashomon set of 0/1 columns (one split per column, threshold 0.5).
pub fn rashomon_set<M: Monitor>(data: &BinaryDataset, config: &RashomonConfig, monitor: &mut M) -> Result<RashomonGraph, RashomonError> {
    build_family(data, ZeroOneColumns::new(data), data.n_features(), config, KernelScreen::Estimated, monitor)
}

/// Builds the Rashomon set of numeric columns (a split at every midpoint between
/// consecutive distinct values of the rows a node holds).
pub fn rashomon_set_numeric<M: Monitor>(data: &NumericDataset, config: &RashomonConfig, monitor: &mut M) -> Result<RashomonGraph, RashomonError> {
    build_family(data, Thresholds::new(data), data.n_columns(), config, KernelScreen::Estimated, monitor)
}

/// When a node with two levels left bounds its splits by a pass of the depth-two kernel
/// before summing their pair rows ([`Builder::depth_two_ways`]).
#[derive(Clone, Copy, Debug, PartialEq)]
enum KernelScreen {
    /// Where [`PairBuffers::kernel_screen_pays`] estimates it cheaper.
    Estimated,
    /// Always (the tests compare both ways).
    #[cfg_attr(not(test), allow(dead_code))]
    Always,
}

fn build_family<M: Monitor, S: SplitFamily>(data: &Groups, splits: S, n_columns: usize, config: &RashomonConfig, screen: KernelScreen, monitor: &mut M) -> Result<RashomonGraph, RashomonError> {
    let reg = config.regularization;
    if !reg.is_finite() || reg < 0.0 {
        return Err(RashomonError::Invalid(format!("regularization must be a finite number >= 0, got {reg}")));
    }
    let b = match config.bound {
        RashomonBound::Multiplicative(b) | RashomonBound::Additive(b) => b,
    };
    if !b.is_finite() || b < 0.0 {
        return Err(RashomonError::Invalid(format!("the Rashomon bound must be a finite number >= 0, got {b}")));
    }
    if data.n_groups() == 0 {
        return Err(RashomonError::Invalid("no rows of positive weight".into()));
    }
    let search = GosdtConfig {
        regularization: reg,
        max_depth: config.max_depth,
        min_samples_leaf: config.min_samples_leaf,
        limits: config.limits.clone(),
        ..Default::default()
    };
    let depth = search_depth(config.max_depth, splits.n_splits());
    let mut solver = Solver::new(data, Misclassification::new(data), splits, &search, None, monitor);
    let total = data.total_weight();
    let all = data.all_groups();
    let optimum = solver.optimum_within(all.words(), depth, f64::INFINITY).map_err(RashomonError::Stopped)?;
    let optimum = optimum.expect("every subproblem has a finite optimum") / total;
    let objective_bound = match config.bound {
        RashomonBound::Multiplicative(b) => optimum * (1.0 + b),
        RashomonBound::Additive(b) => optimum + b,
    };
    let budget = (objective_bound + TOLERANCE) * total;
    let mut builder = Builder {
        index: Store::new(data.words(), config.limits.memory_limit),
        nodes: Vec::with_capacity(64),
        node_of: Vec::with_capacity(64),
        spare_ways: Vec::new(),
        tol: TOLERANCE * total.max(1.0),
        memory_limit: config.limits.memory_limit.unwrap_or(usize::MAX),
        node_bytes: 0,
        pairs: PairBuffers::default(),
        screen,
        solver,
    };
    let root = builder.build(all.words(), depth, budget)?;
    let mut nodes = builder.nodes;
    let mut total_levels = 0;
    for node in &mut nodes {
        node.first_level = total_levels as u32;
        total_levels += node.levels.len();
    }
    let root_levels = nodes[root as usize].levels.iter().take_while(|l| l.cost <= budget).count();
    Ok(RashomonGraph {
        nodes,
        root,
        root_levels,
        total_weight: total,
        optimal_objective: optimum,
        objective_bound,
        n_classes: data.n_classes(),
        n_columns,
        total_levels,
    })
}

/// Rules out thresholds near one whose split is proved to cost more than the limit.
///
/// Moving a threshold of a column moves the rows between the two thresholds from one
/// side to the other. The side that gains rows costs at least what it did (its best
/// tree, with any split that no longer parts its rows closed, serves the smaller set),
/// and the side that loses them at least its old cost less their weight (its best tree
/// serves the larger set, misclassifying at most the rows added). So the best tree
/// splitting on the new threshold costs at least the old split's proven cost less the
/// weight moved, as in ConTree's neighbourhood bound; with a minimum leaf size above
/// one a closed split may leave too few rows, so the bound is used only without one.
/// To make the proofs reach far, the sides' optima are then asked for exactly (with no
/// budget) where that costs about what a bounded search does: sides of one or two
/// levels (a stump pass, the sweep kernel).
struct NeighbourBound {
    on: bool,
    /// The sides' optima are asked for without a budget.
    exact: bool,
    limit: f64,
    /// Rounding room: a threshold is ruled out only past it.
    margin: f64,
    /// The last proof: its column, the weight its split sends right, and by how much its
    /// cost exceeds the limit.
    proof: Option<(u32, f64, f64)>,
}

impl NeighbourBound {
    fn new(on: bool, below: u32, limit: f64, margin: f64) -> Self {
        NeighbourBound { on, exact: on && below <= 2, limit, margin, proof: None }
    }

    /// The budget to ask a side's optimum with: none when optima are asked exactly.
    fn budget(&self, budget: f64) -> f64 {
        if self.exact {
            f64::INFINITY
        } else {
            budget
        }
    }

    /// True when the split of `column` sending `right_weight` right is proved to cost
    /// more than the limit by the last proof on that column.
    fn rules_out(&self, column: u32, right_weight: f64) -> bool {
        matches!(self.proof, Some((c, w, excess)) if c == column && (w - right_weight).abs() < excess - self.margin)
    }

    /// Records that the split of `column` sending `right_weight` right costs at least
    /// `cost` (kept when it reaches further than the proof held).
    fn note(&mut self, column: u32, right_weight: f64, cost: f64) {
        let excess = cost - self.limit;
        if !self.on || !(excess > self.margin) {
            return;
        }
        let reach = match self.proof {
            Some((c, w, e)) if c == column => e - (w - right_weight).abs(),
            _ => f64::NEG_INFINITY,
        };
        if excess >= reach {
            self.proof = Some((column, right_weight, excess));
        }
    }
}

/// The build of the graph: the search as oracle, an index of the nodes built by
/// (capture set, depth) in a store of the search's kind, and the nodes.
struct Builder<'a, 'm, M: Monitor, S: SplitFamily> {
    solver: Solver<'a, 'm, M, Misclassification<'a>, S>,
    index: Store,
    nodes: Vec<GraphNode>,
    /// The node each record of `index` stands for now (a rebuild that would change
    /// levels the built nodes refer to makes a new node: [`Builder::finish`]).
    node_of: Vec<u32>,
    tol: f64,
    memory_limit: usize,
    /// Bytes the nodes' levels and ways hold.
    node_bytes: usize,
    /// The pairwise sums of the last node with two levels left ([`PairTable`]).
    pairs: PairBuffers,
    screen: KernelScreen,
    /// Emptied buffers of ways, reused by the nodes built next (one per node being
    /// built at a time: a node's ways grew from nothing, and their allocations were a
    /// tenth of a small fit's instructions).
    spare_ways: Vec<Vec<(f64, Way)>>,
}

impl<M: Monitor, S: SplitFamily> Builder<'_, '_, M, S> {
    /// A lower bound on the trees of the side `set` of a split (bounds `side` from the
    /// parent's pass), raised by what the search's store has proved about it.
    fn lower_bound(&self, set: &[u64], side: Side, depth: u32) -> f64 {
        if side.terminal {
            return side.leaf_cost;
        }
        self.solver.known_lower_bound(set, depth).map_or(side.lb, |k| k.max(side.lb))
    }

    /// The optimum of the side `set` of a split when it is at most `budget`: a side the
    /// leaf-closing rules closed costs its leaf, the others are asked of the search.
    fn optimum(&mut self, set: &[u64], side: Side, depth: u32, budget: f64) -> Result<Option<f64>, RashomonError> {
        if side.terminal {
            return Ok((side.leaf_cost <= budget).then_some(side.leaf_cost));
        }
        self.solver.optimum_within(set, depth, budget).map_err(RashomonError::Stopped)
    }

    /// The node of `set` with `depth` levels left holding every tree that costs at most
    /// `budget` (up to the tolerance).
    fn build(&mut self, set: &[u64], depth: u32, budget: f64) -> Result<u32, RashomonError> {
        let key = match self.slot(set, depth, budget)? {
            Slot::Built(id) => return Ok(id),
            Slot::ToBuild(key) => key,
        };
        let limit = budget + self.tol;
        let data = self.solver.task().data;
        let rules = self.solver.rules();
        let mut ways = self.spare_ways.pop().unwrap_or_default();
        let pairs = depth == 2 && self.pairs_fit();
        if pairs {
            self.sum_singles(set);
        }
        let mut rows = 0.0;
        if pairs && self.pairs.exact_totals() {
            // The table's totals are the set's class weights and rows, summed alike: no
            // second pass over the set (car_evaluation d4: 3 % of the fit).
            let (total, c) = (self.pairs.table().total(), data.n_classes());
            leaf_ways(&total[..c], rules.penalty, limit, &mut ways);
            rows = total[c];
        } else {
            let mut totals = Sums::zeros(data.n_classes());
            stats_totals(&self.solver.task().obj, set, &mut totals);
            leaf_ways(&totals, rules.penalty, limit, &mut ways);
            if depth > 0 {
                treeopt_core::bitset::for_each_one(set, |g| rows += data.group_rows(g) as f64);
            }
        }
        if pairs && rows >= 2.0 * rules.min_support {
            self.depth_two_ways(set, budget, &mut ways)?;
        } else if depth == 1 && rows >= 2.0 * rules.min_support && self.solver.task().splits.as_thresholds().is_some() {
            self.stump_ways(set, limit, &mut ways);
        } else if depth > 0 && rows >= 2.0 * rules.min_support {
            let below = if depth == u32::MAX { depth } else { depth - 1 };
            let sides = self.solver.split_sides(set, depth).map_err(RashomonError::Stopped)?;
            let (mut left, mut right) = (vec![0u64; set.len()], vec![0u64; set.len()]);
            let mut near = NeighbourBound::new(self.solver.task().splits.as_thresholds().is_some() && rules.min_support <= 1.0, below, limit, self.tol);
            for s in sides {
                let column = match self.solver.task().splits.as_thresholds() {
                    Some(th) => th.locate(s.split as usize).0 as u32,
                    None => s.split,
                };
                if near.rules_out(column, s.right_weight) {
                    continue;
                }
                if s.left.lb + s.right.lb > limit {
                    near.note(column, s.right_weight, s.left.lb + s.right.lb);
                    continue;
                }
                let splits = &self.solver.task().splits;
                splits.partition(set, s.split as usize, false, &mut left);
                splits.partition(set, s.split as usize, true, &mut right);
                let (left_lb, right_lb) = (self.lower_bound(&left, s.left, below), self.lower_bound(&right, s.right, below));
                if left_lb + right_lb > limit {
                    near.note(column, s.right_weight, left_lb + right_lb);
                    continue;
                }
                // The side with the larger bound first: when the pair fails, it is the one
                // more likely to fail, and the other is never searched.
                let right_first = right_lb > left_lb;
                let ((a, a_side), (b, b_side, b_lb)) = if right_first { ((&right, s.right), (&left, s.left, left_lb)) } else { ((&left, s.left), (&right, s.right, right_lb)) };
                let Some(a_opt) = self.optimum(a, a_side, below, near.budget(limit - b_lb))? else {
                    near.note(column, s.right_weight, self.lower_bound(a, a_side, below) + b_lb);
                    continue;
                };
                if a_opt > limit - b_lb {
                    near.note(column, s.right_weight, a_opt + b_lb);
                    continue;
                }
                let Some(b_opt) = self.optimum(b, b_side, below, near.budget(limit - a_opt))? else {
                    near.note(column, s.right_weight, a_opt + self.lower_bound(b, b_side, below));
                    continue;
                };
                if b_opt > limit - a_opt {
                    near.note(column, s.right_weight, a_opt + b_opt);
                    continue;
                }
                let (left_opt, right_opt) = if right_first { (b_opt, a_opt) } else { (a_opt, b_opt) };
                let left_node = self.build(&left, below, budget - right_opt + self.tol)?;
                let right_node = self.build(&right, below, budget - left_opt + self.tol)?;
                let threshold = match self.solver.task().splits.as_thresholds() {
                    Some(th) => th.threshold_in(set, s.split as usize),
                    None => 0.5,
                };
                self.combine(&mut ways, column, threshold, left_node, right_node, limit)?;
            }
        }
        self.finish(key, budget, ways)
    }

    /// The ways of the stumps of `set` (thresholds, one level left) that cost at most
    /// `limit`, their leaves as leaf children ([`LEAF_CHILD`]), from one pass over every
    /// threshold ([`Solver::stump_sums`]): no child set is parted, summed or indexed
    /// (magic's 172k raw thresholds, bound 0.5 %: those were two thirds of the fit).
    fn stump_ways(&mut self, set: &[u64], limit: f64, ways: &mut Vec<(f64, Way)>) {
        let (c, penalty) = (self.solver.task().data.n_classes(), self.solver.rules().penalty);
        // Per stump that fits: its split and the split above it, then its left and right
        // class sums.
        let mut fitting: Vec<f64> = Vec::new();
        let mut splits: Vec<(u32, u32)> = Vec::new();
        self.solver.stump_sums(set, |_, split, left, _, right, _, above| {
            let best = |x: &[f64]| x.iter().sum::<f64>() - x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b)) + penalty;
            if best(left) + best(right) <= limit {
                splits.push((split, above));
                fitting.extend_from_slice(left);
                fitting.extend_from_slice(right);
            }
        });
        let th = self.solver.task().splits.as_thresholds().expect("stumps of thresholds");
        for (&(split, above), sums) in splits.iter().zip(fitting.chunks_exact(2 * c)) {
            let (lo, hi) = sums.split_at(c);
            let (lw, hw): (f64, f64) = (lo.iter().sum(), hi.iter().sum());
            let (column, threshold) = (th.locate(split as usize).0 as u32, th.threshold_between(split as usize, above as usize));
            debug_assert_eq!(threshold.to_bits(), th.threshold_in(set, split as usize).to_bits());
            for kl in 0..c {
                for kr in 0..c {
                    let cost = (lw - lo[kl] + penalty) + (hw - hi[kr] + penalty);
                    if cost <= limit {
                        let way = Way { count: 1, column, label: 0, threshold, left: LEAF_CHILD, left_level: kl as u32, right: LEAF_CHILD, right_level: kr as u32 };
                        ways.push((cost, way));
                    }
                }
            }
        }
    }

    /// The node of `(set, depth)`: already built for at least `budget`, or to be
    /// (re)built (a new node is added to the index).
    fn slot(&mut self, set: &[u64], depth: u32, budget: f64) -> Result<Slot, RashomonError> {
        let key = match self.index.find(set, depth) {
            Some(key) if self.nodes[self.node_of[key as usize] as usize].budget >= budget => return Ok(Slot::Built(self.node_of[key as usize])),
            Some(key) => key,
            None => {
                let key = self.index.insert(set, depth, 0.0, 0.0, 0.0).ok_or(RashomonError::Stopped(Status::MemoryLimit))?;
                debug_assert_eq!(key as usize, self.node_of.len());
                self.node_of.push(self.nodes.len() as u32);
                self.nodes.push(GraphNode::default());
                key
            }
        };
        match self.solver.check_stop() {
            Some(status) => Err(RashomonError::Stopped(status)),
            None => Ok(Slot::ToBuild(key)),
        }
    }

    /// The ways of a split on `column` whose children are the nodes `left` and `right`:
    /// every pair of their levels costing at most `limit`.
    fn combine(&self, ways: &mut Vec<(f64, Way)>, column: u32, threshold: f64, left: u32, right: u32, limit: f64) -> Result<(), RashomonError> {
        let (ln, rn) = (&self.nodes[left as usize], &self.nodes[right as usize]);
        let right_min = rn.levels.first().map_or(f64::INFINITY, |l| l.cost);
        for (li, l) in ln.levels.iter().enumerate() {
            if l.cost + right_min > limit {
                break;
            }
            for (ri, r) in rn.levels.iter().enumerate() {
                let cost = l.cost + r.cost;
                if cost > limit {
                    break;
                }
                let count = l.count.checked_mul(r.count).ok_or_else(too_many)?;
                ways.push((cost, Way { count, column, label: 0, threshold, left, left_level: li as u32, right, right_level: ri as u32 }));
            }
        }
        Ok(())
    }

    /// Stores the node of record `key` built for `budget` with its ways (levels are the
    /// distinct costs ascending, and within one the ways in the order found) and returns
    /// its index. A rebuild for a larger budget replaces the record's node in place when
    /// the old node's levels stay the first levels, with the same costs and counts; the
    /// nodes built on it refer to them by position. When they do not (a side reached
    /// once by the search's sums and once by the pairwise table's population counts can
    /// get its costs with other roundings), the new levels go to a new node and the old
    /// one stays as its parents saw it.
    fn finish(&mut self, key: u32, budget: f64, mut ways: Vec<(f64, Way)>) -> Result<u32, RashomonError> {
        ways.sort_by(|a, b| a.0.total_cmp(&b.0));
        let distinct = ways.windows(2).filter(|p| p[0].0 != p[1].0).count() + !ways.is_empty() as usize;
        let mut levels: Vec<Level> = Vec::with_capacity(distinct);
        for (i, (cost, way)) in ways.iter().enumerate() {
            match levels.last_mut() {
                Some(l) if l.cost == *cost => {
                    l.count = l.count.checked_add(way.count).ok_or_else(too_many)?;
                    l.end = i as u32 + 1;
                }
                _ => levels.push(Level { cost: *cost, count: way.count, end: i as u32 + 1 }),
            }
        }
        let bytes = |levels: usize, ways: usize| levels * std::mem::size_of::<Level>() + ways * std::mem::size_of::<Way>();
        let mut id = self.node_of[key as usize];
        let old = &self.nodes[id as usize].levels;
        let kept = old.len() <= levels.len() && old.iter().zip(&levels).all(|(a, b)| a.cost.to_bits() == b.cost.to_bits() && a.count == b.count);
        if !kept {
            id = self.nodes.len() as u32;
            self.node_of[key as usize] = id;
            self.nodes.push(GraphNode::default());
        }
        let node = &mut self.nodes[id as usize];
        self.node_bytes = self.node_bytes + bytes(levels.len(), ways.len()) - bytes(node.levels.len(), node.ways.len());
        *node = GraphNode { budget, levels, ways: ways.iter().map(|(_, w)| *w).collect(), first_level: 0 };
        ways.clear();
        self.spare_ways.push(ways);
        // Without a memory limit nothing is counted (the count walks every buffer of the
        // search: 3 % of a small fit).
        if self.memory_limit != usize::MAX && self.node_bytes + self.index.bytes() + self.solver.bytes() + self.pairs.bytes() > self.memory_limit {
            return Err(RashomonError::Stopped(Status::MemoryLimit));
        }
        Ok(id)
    }

    /// True when a node with two levels left is built from pairwise sums: 0/1 columns
    /// (each group lists the columns it has at 1), few enough for a square table.
    fn pairs_fit(&self) -> bool {
        let splits = &self.solver.task().splits;
        self.solver.task().data.n_groups() > 0 && splits.right_list(0).is_some() && splits.n_splits() <= MAX_PAIR_COLUMNS
    }

    /// Sums the groups of `set` into the pairwise table without rows
    /// ([`PairBuffers::sum_singles`]).
    fn sum_singles(&mut self, set: &[u64]) {
        if self.pairs.listed_start.is_empty() {
            // The search's kernel counts the same way: its lists, copied, cost less than
            // building them again (car_evaluation d4: 0.44 M instructions).
            if let Some((flipped, start, listed)) = self.solver.kernel_lists() {
                (self.pairs.flipped, self.pairs.listed_start, self.pairs.listed) = (flipped.to_vec(), start.to_vec(), listed.to_vec());
            }
        }
        self.pairs.sum_singles(self.solver.task(), set);
    }

    /// The split ways of the node `set` with two levels left, whose sums without rows
    /// the pairwise table holds ([`Builder::sum_singles`]). The search's pass over
    /// the set's splits bounds each split's sides; the splits whose bounds fit the budget
    /// are then scored from one pass of pairwise sums ([`PairTable`]), which gives their
    /// sides, each side's optimum over its leaves and stumps, and the stumps themselves,
    /// so no side needs a search. The sides within the budget become nodes of one level
    /// ([`Builder::stump_node`]).
    fn depth_two_ways(&mut self, set: &[u64], budget: f64, ways: &mut Vec<(f64, Way)>) -> Result<(), RashomonError> {
        let limit = budget + self.tol;
        // The sides' bounds (leaf, equivalent points, largest classes: those of the
        // search's pass over the splits, [`Solver::split_sides`]) from the table's sums
        // per column, which cost a population count per word of row bits where the
        // search's pass adds every group's class weights to each of its columns (half
        // the set builder's instructions on coupon_carryout and broward d3). The sums
        // are added in another order: the tolerance keeps a split whose bound meets the
        // limit up to rounding.
        let rules = self.solver.rules();
        let mut screened: Vec<u32> = {
            let (table, obj) = (self.pairs.table(), &self.solver.task().obj);
            (0..table.m as u32).filter(|&f| table.sides_bound(f as usize, obj, &rules).is_some_and(|lb| lb <= limit + self.tol)).collect()
        };
        if screened.is_empty() {
            return Ok(());
        }
        // The depth-two kernel's pass bounds every split's best tree far more tightly than
        // the sides' bounds (coupon_carryout d3: 11,693 splits passed those, 4 fit), and
        // where many splits pass them it costs less than their pair rows. Its sums are
        // added in another order: the tolerance keeps a split that meets the limit up to
        // rounding.
        let (m, c) = (self.solver.task().splits.n_splits(), self.solver.task().data.n_classes());
        let groups = set.iter().map(|w| w.count_ones() as usize).sum();
        if self.screen == KernelScreen::Always || self.pairs.kernel_screen_pays(groups, screened.len(), m, c) {
            if let Some(bounds) = self.solver.depth_two_split_bounds(set).map_err(RashomonError::Stopped)? {
                let mut lower = vec![f64::NEG_INFINITY; m];
                for (split, lb) in bounds {
                    lower[split as usize] = lb;
                }
                screened.retain(|&f| lower[f as usize] <= limit + self.tol);
            }
        }
        let table = self.pairs.sum_rows(self.solver.task(), set, &screened);
        let mut fitting: Vec<(u32, f64, f64)> = Vec::new();
        for &f in &screened {
            let (lo, ro) = (table.stump_optimum(f as usize, false, &rules), table.stump_optimum(f as usize, true, &rules));
            if lo + ro <= limit {
                fitting.push((f, lo, ro));
            }
        }
        let (mut left, mut right) = (vec![0u64; set.len()], vec![0u64; set.len()]);
        for (f, left_opt, right_opt) in fitting {
            let splits = &self.solver.task().splits;
            splits.partition(set, f as usize, false, &mut left);
            splits.partition(set, f as usize, true, &mut right);
            let left_node = self.stump_node(&left, f as usize, false, budget - right_opt + self.tol)?;
            let right_node = self.stump_node(&right, f as usize, true, budget - left_opt + self.tol)?;
            self.combine(ways, f, 0.5, left_node, right_node, limit)?;
        }
        Ok(())
    }

    /// The node of one level left of the side `right` of split `f` of the set whose
    /// pairwise sums `self.pairs` holds (`set` is that side): its leaves and stumps within
    /// `budget`, the stumps' leaves as leaf children ([`LEAF_CHILD`]).
    fn stump_node(&mut self, set: &[u64], f: usize, right: bool, budget: f64) -> Result<u32, RashomonError> {
        let key = match self.slot(set, 1, budget)? {
            Slot::Built(id) => return Ok(id),
            Slot::ToBuild(key) => key,
        };
        let limit = budget + self.tol;
        let rules = self.solver.rules();
        let table = self.pairs.table();
        let (m, c) = (table.m, table.c);
        let side = table.side(f, right);
        let mut ways = self.spare_ways.pop().unwrap_or_default();
        leaf_ways(&side[..c], rules.penalty, limit, &mut ways);
        if side[c] >= 2.0 * rules.min_support {
            let (mut lo, mut hi) = (Sums::zeros(c + 1), Sums::zeros(c + 1));
            for h in 0..m {
                table.cells(f, right, h, &mut lo, &mut hi);
                if lo[c] < rules.min_support || hi[c] < rules.min_support {
                    continue;
                }
                let (lw, hw): (f64, f64) = (lo[..c].iter().sum(), hi[..c].iter().sum());
                for kl in 0..c {
                    for kr in 0..c {
                        let cost = (lw - lo[kl] + rules.penalty) + (hw - hi[kr] + rules.penalty);
                        if cost <= limit {
                            let way = Way { count: 1, column: h as u32, label: 0, threshold: 0.5, left: LEAF_CHILD, left_level: kl as u32, right: LEAF_CHILD, right_level: kr as u32 };
                            ways.push((cost, way));
                        }
                    }
                }
            }
        }
        self.finish(key, budget, ways)
    }
}

/// Columns up to which nodes with two levels left are built from a square table of
/// pairwise sums (beyond, the table would outgrow the work it saves).
const MAX_PAIR_COLUMNS: usize = 512;

/// A child reference of a way that is a leaf, predicting the class its level names.
const LEAF_CHILD: u32 = u32::MAX;

/// What [`Builder::slot`] found: a node built for the budget (its index), or the
/// record of the index whose node is to be built ([`Builder::finish`]).
enum Slot {
    Built(u32),
    ToBuild(u32),
}

/// Adds to `ways` the leaf ways of a node with class weights `totals`: one per class
/// costing at most `limit`.
fn leaf_ways(totals: &[f64], penalty: f64, limit: f64, ways: &mut Vec<(f64, Way)>) {
    let weight: f64 = totals.iter().sum();
    for (k, &w) in totals.iter().enumerate() {
        let cost = weight - w + penalty;
        if cost <= limit {
            ways.push((cost, Way { count: 1, column: LEAF_WAY, label: k as u32, threshold: 0.0, left: 0, left_level: 0, right: 0, right_level: 0 }));
        }
    }
}

/// Classes up to which [`Sums`] stay on the stack (with the rows, one more value).
const INLINE_CLASSES: usize = 7;

/// A few sums (per class, and the rows), on the stack up to [`INLINE_CLASSES`] classes:
/// a node's totals and a table side's sums are read at every node and screened split,
/// and a vector each cost an allocation and its release.
enum Sums {
    Inline([f64; INLINE_CLASSES + 1], usize),
    Heap(Vec<f64>),
}

impl Sums {
    /// `n` zeros.
    fn zeros(n: usize) -> Sums {
        if n <= INLINE_CLASSES + 1 {
            Sums::Inline([0.0; INLINE_CLASSES + 1], n)
        } else {
            Sums::Heap(vec![0.0; n])
        }
    }

    /// The `n` values `value(0), value(1), ...`.
    fn from_fn(n: usize, value: impl Fn(usize) -> f64) -> Sums {
        let mut sums = Sums::zeros(n);
        for (k, x) in sums.iter_mut().enumerate() {
            *x = value(k);
        }
        sums
    }
}

impl std::ops::Deref for Sums {
    type Target = [f64];
    #[inline]
    fn deref(&self) -> &[f64] {
        match self {
            Sums::Inline(values, n) => &values[..*n],
            Sums::Heap(values) => values,
        }
    }
}

impl std::ops::DerefMut for Sums {
    #[inline]
    fn deref_mut(&mut self) -> &mut [f64] {
        match self {
            Sums::Inline(values, n) => &mut values[..*n],
            Sums::Heap(values) => values,
        }
    }
}

/// The buffers of the last [`PairTable`] summed, reused from node to node.
#[derive(Default)]
struct PairBuffers {
    /// The set's totals, then per column its counted sums, then the rows of the screened
    /// columns (see [`PairTable`]).
    sums: Vec<f64>,
    /// The set's equivalent-points floor, then per column that of its counted groups.
    minority: Vec<f64>,
    /// Per column, the index of its row in `sums`, or [`NO_ROW`].
    row_of: Vec<u32>,
    /// The depth-two kernel's polarity and per-group lists of counted columns
    /// ([`listed_features`]), built at the first table.
    flipped: Vec<bool>,
    listed_start: Vec<u32>,
    listed: Vec<u32>,
    /// The rows as bits, when the dataset's weights allow counting them ([`RowBits`]).
    row_bits: Option<RowBits>,
    /// Over the dataset's groups, the mean length of their lists and of its square (what
    /// a group adds to a row, and to the depth-two kernel's pair sums).
    mean_listed: f64,
    mean_square_listed: f64,
    m: usize,
    c: usize,
    /// The lists (given or built), the row bits and the means are ready.
    prepared: bool,
}

/// The dataset's rows as bit vectors, for datasets whose rows weigh alike (every
/// group's class weights are whole multiples of one `unit` weight, adding up to its rows
/// times it): a sum over the rows of a set is then `unit` x a population count, which
/// costs a few word operations per 64 rows where the groups' sums cost a float addition
/// per group and channel. Rows are laid out class by class, each class from a word
/// boundary, so a class's share of a bit vector is a range of its words: one population
/// count per word gives every class's sum, with no mask per class.
struct RowBits {
    unit: f64,
    words: usize,
    /// Per class, the range of words holding its rows: `class_start[k]..class_start[k + 1]`.
    class_start: Vec<usize>,
    /// Per group and class (`g * c + k`), the first of the group's rows of that class and
    /// their number.
    first_row: Vec<u32>,
    rows_of: Vec<u32>,
    /// The row of each group, when every group is one row (data with no two rows
    /// alike): a set's rows are then one bit per group, not a range per class.
    group_row: Option<Vec<u32>>,
    /// Per column, the rows at the value it is counted at ([`PairTable`]).
    counted: Vec<u64>,
    /// The rows outside their group's largest class (the first, on ties): their count
    /// in a set is its equivalent-points floor in rows.
    minor: Vec<u64>,
    /// Scratch: the rows of the current set, those of them in `minor`, and those of
    /// the set and one column.
    set: Vec<u64>,
    set_minor: Vec<u64>,
    both: Vec<u64>,
    /// Scratch: the words of a bit vector of rows that are not zero ([`Live::note`]).
    live: Live,
}

/// The words of a bit vector of rows that are not zero, class by class: a set deep in
/// the tree holds few rows, and its counts then skip the empty words.
#[derive(Default)]
struct Live {
    words: Vec<u32>,
    /// Per class, the range `start[k]..start[k + 1]` of `words` in its word range.
    start: Vec<usize>,
}

impl Live {
    /// Notes the words of `bits` that are not zero; true when they are few enough (at
    /// most half) for [`Live::count`] to pay over counting every word.
    fn note(&mut self, class_start: &[usize], bits: &[u64]) -> bool {
        self.words.clear();
        self.start.clear();
        self.start.push(0);
        for k in 0..class_start.len() - 1 {
            for w in class_start[k]..class_start[k + 1] {
                if bits[w] != 0 {
                    self.words.push(w as u32);
                }
            }
            self.start.push(self.words.len());
        }
        2 * self.words.len() <= bits.len()
    }

    /// [`count_rows`] of `among & other` over the noted words, where `among` is zero
    /// elsewhere.
    #[inline(always)]
    fn count(&self, unit: f64, among: &[u64], other: &[u64], cell: &mut [f64]) {
        let c = self.start.len() - 1;
        let mut all = 0u64;
        for k in 0..c {
            let n: u64 = self.words[self.start[k]..self.start[k + 1]].iter().map(|&w| (among[w as usize] & other[w as usize]).count_ones() as u64).sum();
            cell[k] = n as f64 * unit;
            all += n;
        }
        cell[c] = all as f64;
    }

    /// The rows of `among & other` over the noted words, where `among` is zero elsewhere.
    #[inline(always)]
    fn count_all(&self, among: &[u64], other: &[u64]) -> u64 {
        self.words.iter().map(|&w| (among[w as usize] & other[w as usize]).count_ones() as u64).sum()
    }
}

/// Words of row bits up to which [`RowBits`] are built (beyond, the float sums serve).
const MAX_ROW_BIT_WORDS: usize = 1 << 22;

/// The row-bit layout of classes holding `class_rows` rows: each class's first word (and
/// the total at the end) and the words in all, or `None` when there are none or the `m`
/// columns' bits would pass [`MAX_ROW_BIT_WORDS`].
fn class_words(class_rows: &[usize], m: usize) -> Option<(Vec<usize>, usize)> {
    let mut class_start = vec![0usize];
    for rows in class_rows {
        class_start.push(class_start.last().expect("starts at 0") + rows.div_ceil(64));
    }
    let words = class_start[class_rows.len()];
    (words != 0 && (m + 2) * words <= MAX_ROW_BIT_WORDS).then_some((class_start, words))
}

impl RowBits {
    /// The row bits of `data`, or `None` when its rows do not weigh alike or the bits
    /// would be too many.
    fn new(data: &Groups, m: usize, listed_start: &[u32], listed: &[u32]) -> Option<RowBits> {
        let n = data.n_groups();
        if n == 0 {
            return None;
        }
        let unit = data.class_weights(0).iter().sum::<f64>() / data.group_rows(0) as f64;
        if !(unit > 0.0) || !unit.is_finite() {
            return None;
        }
        if (0..n).all(|g| data.group_rows(g) == 1) {
            return RowBits::one_row_groups(data, m, unit, listed_start, listed);
        }
        RowBits::by_ranges(data, m, unit, listed_start, listed)
    }

    /// [`RowBits::new`] for any groups: each group's rows of a class are a range.
    fn by_ranges(data: &Groups, m: usize, unit: f64, listed_start: &[u32], listed: &[u32]) -> Option<RowBits> {
        let (n, c) = (data.n_groups(), data.n_classes());
        let mut rows_of = Vec::with_capacity(n * c);
        let mut class_rows = vec![0usize; c];
        for g in 0..n {
            let mut group_rows = 0;
            for (k, &w) in data.class_weights(g).iter().enumerate() {
                // A group has rows of few of the classes: no conversion for the others.
                if w == 0.0 {
                    rows_of.push(0);
                    continue;
                }
                // The nearest whole number of units (`w` is finite and positive):
                // truncating `q + 0.5` gives it without the libm call `round` is on the
                // x86-64 baseline (car_evaluation: 6,912 calls, 2 % of a depth-two fit).
                // Where the two differ (`q` within an ulp of a half), `w` is no whole
                // number of units either way.
                // Unit weights (every row weighing one) need no division.
                let count = if unit == 1.0 { ((w + 0.5) as u64) as f64 } else { ((w / unit + 0.5) as u64) as f64 };
                if count * unit != w {
                    return None;
                }
                rows_of.push(count as u32);
                class_rows[k] += count as usize;
                group_rows += count as usize;
            }
            if group_rows != data.group_rows(g) as usize {
                return None;
            }
        }
        let (class_start, words) = class_words(&class_rows, m)?;
        let mut next: Vec<usize> = class_start[..c].iter().map(|w| w * 64).collect();
        let mut first_row = Vec::with_capacity(n * c);
        let mut counted = vec![0; m * words];
        let mut minor = vec![0; words];
        for g in 0..n {
            let group = &rows_of[g * c..(g + 1) * c];
            let top = (0..c).fold(0, |t, k| if group[k] > group[t] { k } else { t });
            let counted_in = &listed[listed_start[g] as usize..listed_start[g + 1] as usize];
            for k in 0..c {
                let (start, count) = (next[k], group[k] as usize);
                first_row.push(start as u32);
                // A group has rows of few of the classes (of one, when its rows are one).
                if count == 0 {
                    continue;
                }
                next[k] += count;
                if k != top {
                    set_range(&mut minor, start, start + count);
                }
                if count == 1 {
                    // One row: one bit per column it is counted in (most groups of
                    // data with few duplicate rows; car_evaluation: all 1,728).
                    let (word, bit) = (start / 64, 1u64 << (start % 64));
                    for &f in counted_in {
                        counted[f as usize * words + word] |= bit;
                    }
                } else {
                    for &f in counted_in {
                        set_range(&mut counted[f as usize * words..(f as usize + 1) * words], start, start + count);
                    }
                }
            }
        }
        let one_row = (0..n).all(|g| data.group_rows(g) == 1);
        let group_row = one_row.then(|| (0..n).map(|g| (0..c).find(|&k| rows_of[g * c + k] == 1).map_or(0, |k| first_row[g * c + k])).collect());
        Some(RowBits { unit, words, class_start, first_row, rows_of, group_row, counted, minor, set: vec![0; words], set_minor: vec![0; words], both: vec![0; words], live: Live::default() })
    }

    /// [`RowBits::new`] when every group is one row (data with no two rows alike: the
    /// general layout's per-class conversions and ranges were 0.6 M of car_evaluation
    /// d2's 3.2 M instructions, 1,728 groups of 4 classes): a group's
    /// row is the next of its class, it has no row outside its largest class, and a
    /// set's rows are one bit per group. The rows weigh alike when every group weighs
    /// `unit` (a row holds one class, so a group's other class weights are zero).
    fn one_row_groups(data: &Groups, m: usize, unit: f64, listed_start: &[u32], listed: &[u32]) -> Option<RowBits> {
        let (n, c) = (data.n_groups(), data.n_classes());
        // Written in place, not pushed (a `push` keeps the length in memory, a
        // store-to-load chain through every group).
        let mut class = vec![0u32; n];
        let mut class_rows = vec![0usize; c];
        for (g, class) in class.iter_mut().enumerate() {
            let w = data.class_weights(g);
            let k = w.iter().position(|&x| x != 0.0)?;
            if w[k] != unit {
                return None;
            }
            *class = k as u32;
            class_rows[k] += 1;
        }
        let (class_start, words) = class_words(&class_rows, m)?;
        let mut next: Vec<usize> = class_start[..c].iter().map(|w| w * 64).collect();
        let mut counted = vec![0; m * words];
        let mut group_row = vec![0u32; n];
        for (g, (&k, row)) in class.iter().zip(group_row.iter_mut()).enumerate() {
            let r = next[k as usize];
            next[k as usize] += 1;
            *row = r as u32;
            let (word, bit) = (r / 64, 1u64 << (r % 64));
            for &f in &listed[listed_start[g] as usize..listed_start[g + 1] as usize] {
                counted[f as usize * words + word] |= bit;
            }
        }
        let group_row = Some(group_row);
        Some(RowBits { unit, words, class_start, first_row: Vec::new(), rows_of: Vec::new(), group_row, counted, minor: vec![0; words], set: vec![0; words], set_minor: vec![0; words], both: vec![0; words], live: Live::default() })
    }

    fn bytes(&self) -> usize {
        (self.counted.len() + self.minor.len() + self.set.len() + self.set_minor.len() + self.both.len() + self.class_start.len() + self.live.start.capacity()) * 8 + (self.first_row.len() + self.rows_of.len() + self.group_row.as_ref().map_or(0, Vec::len) + self.live.words.capacity()) * 4
    }

    /// Fills the table sums `total` and `single` and the floors `minority` (see
    /// [`PairBuffers::sum_singles`]) of the groups of `set` by counting rows, and keeps
    /// the set's rows for [`RowBits::rows`].
    fn singles(&mut self, data: &Groups, set: &[u64], total: &mut [f64], single: &mut [f64], minority: &mut [f64]) {
        with_popcount(
            #[inline(always)]
            || self.singles_body(data, set, total, single, minority),
        )
    }

    #[inline(always)]
    fn singles_body(&mut self, data: &Groups, set: &[u64], total: &mut [f64], single: &mut [f64], minority: &mut [f64]) {
        let (words, c, unit) = (self.words, data.n_classes(), self.unit);
        let m = single.len() / (c + 1);
        self.set.fill(0);
        if let Some(group_row) = &self.group_row {
            let rows = &mut self.set;
            treeopt_core::bitset::for_each_one(set, |g| {
                let r = group_row[g] as usize;
                rows[r / 64] |= 1 << (r % 64);
            });
        } else {
            treeopt_core::bitset::for_each_one(set, |g| {
                for k in 0..c {
                    let start = self.first_row[g * c + k] as usize;
                    set_range(&mut self.set, start, start + self.rows_of[g * c + k] as usize);
                }
            });
        }
        for ((sm, s), x) in self.set_minor.iter_mut().zip(&self.set).zip(&self.minor) {
            *sm = s & x;
        }
        count_rows(&self.class_start, unit, &self.set, None, total);
        minority[0] = self.set_minor.iter().map(|a| a.count_ones() as u64).sum::<u64>() as f64 * unit;
        if self.live.note(&self.class_start, &self.set) {
            for f in 0..m {
                let column = &self.counted[f * words..(f + 1) * words];
                self.live.count(unit, &self.set, column, &mut single[f * (c + 1)..(f + 1) * (c + 1)]);
                minority[1 + f] = self.live.count_all(&self.set_minor, column) as f64 * unit;
            }
            return;
        }
        for f in 0..m {
            let column = &self.counted[f * words..(f + 1) * words];
            count_rows(&self.class_start, unit, &self.set, Some(column), &mut single[f * (c + 1)..(f + 1) * (c + 1)]);
            minority[1 + f] = self.set_minor.iter().zip(column).map(|(a, b)| (a & b).count_ones() as u64).sum::<u64>() as f64 * unit;
        }
    }

    /// Fills the table's `rows` (see [`PairTable`]) of the set [`RowBits::singles`] last
    /// counted.
    fn rows(&mut self, c: usize, row_of: &[u32], screened: &[u32], rows: &mut [f64]) {
        with_popcount(
            #[inline(always)]
            || self.rows_body(c, row_of, screened, rows),
        )
    }

    #[inline(always)]
    fn rows_body(&mut self, c: usize, row_of: &[u32], screened: &[u32], rows: &mut [f64]) {
        let (words, unit) = (self.words, self.unit);
        let m = self.counted.len() / words;
        for &f in screened {
            let f = f as usize;
            // The rows of the set counted in `f`.
            for ((b, s), x) in self.both.iter_mut().zip(&self.set).zip(&self.counted[f * words..(f + 1) * words]) {
                *b = s & x;
            }
            let r = row_of[f] as usize;
            let row = &mut rows[r * m * (c + 1)..(r + 1) * m * (c + 1)];
            if self.live.note(&self.class_start, &self.both) {
                for (h, cell) in row.chunks_exact_mut(c + 1).enumerate() {
                    self.live.count(unit, &self.both, &self.counted[h * words..(h + 1) * words], cell);
                }
                continue;
            }
            for (h, cell) in row.chunks_exact_mut(c + 1).enumerate() {
                count_rows(&self.class_start, unit, &self.both, Some(&self.counted[h * words..(h + 1) * words]), cell);
            }
        }
    }
}

/// Writes into `cell` the sums, per class (`unit` x rows) and in rows, of the rows of
/// `among` (and of `other`), whose classes lie in the word ranges of `class_start`.
#[inline(always)]
fn count_rows(class_start: &[usize], unit: f64, among: &[u64], other: Option<&[u64]>, cell: &mut [f64]) {
    let c = class_start.len() - 1;
    let mut all = 0u64;
    for k in 0..c {
        let range = class_start[k]..class_start[k + 1];
        let n: u64 = match other {
            None => among[range].iter().map(|a| a.count_ones() as u64).sum(),
            Some(o) => among[range.clone()].iter().zip(&o[range]).map(|(a, b)| (a & b).count_ones() as u64).sum(),
        };
        cell[k] = n as f64 * unit;
        all += n;
    }
    cell[c] = all as f64;
}

/// Sets the bits `start..end` of `bits`.
fn set_range(bits: &mut [u64], start: usize, end: usize) {
    // A word at a time (a group of many rows sets whole words); one row, one bit.
    if end == start + 1 {
        bits[start / 64] |= 1 << (start % 64);
        return;
    }
    let mut i = start;
    while i < end {
        let (word, bit) = (i / 64, i % 64);
        let n = (end - i).min(64 - bit);
        bits[word] |= (u64::MAX >> (64 - n)) << bit;
        i += n;
    }
}

impl PairBuffers {
    fn bytes(&self) -> usize {
        (self.sums.capacity() + self.minority.capacity()) * 8 + (self.row_of.capacity() + self.listed_start.capacity() + self.listed.capacity()) * 4 + self.flipped.capacity() + self.row_bits.as_ref().map_or(0, RowBits::bytes)
    }

    /// True when the table's totals equal the sums [`stats_totals`] adds over the groups:
    /// added group by group alike, or counted in rows of weight one (whole numbers, below
    /// 2^53, are added exactly in any order).
    fn exact_totals(&self) -> bool {
        self.row_bits.as_ref().map_or(true, |bits| bits.unit == 1.0)
    }

    /// Builds the lists of counted columns and the row bits at the first call.
    fn prepare<O: crate::objective::Objective, S: SplitFamily>(&mut self, task: &Task<O, S>) {
        if self.prepared {
            return;
        }
        self.prepared = true;
        if self.listed_start.is_empty() {
            (self.flipped, self.listed_start, self.listed) = listed_features(task);
        }
        self.row_bits = RowBits::new(task.data, task.splits.n_splits(), &self.listed_start, &self.listed);
        let lengths = self.listed_start.windows(2).map(|w| (w[1] - w[0]) as f64);
        let groups = (self.listed_start.len() - 1).max(1) as f64;
        (self.mean_listed, self.mean_square_listed) = lengths.fold((0.0, 0.0), |(a, b), l| (a + l / groups, b + l * l / groups));
    }

    /// True when bounding a node's splits by one pass of the depth-two kernel
    /// ([`Solver::depth_two_split_bounds`]) is estimated to cost less than the pair rows
    /// of its `screened` splits, for a node of `groups` groups over `m` columns and `c`
    /// classes. In instructions (callgrind, on the bench's 0/1 instances): a pair row
    /// costs per column a fixed part (its cell and the column's stump) and per word of
    /// row bits a few (the float path: per listed entry of the node's groups); the
    /// kernel a fixed part (selection, its pass over the roots) and per pair sum added.
    fn kernel_screen_pays(&self, groups: usize, screened: usize, m: usize, c: usize) -> bool {
        const ROW_CELL: f64 = 120.0;
        const PER_WORD: f64 = 5.0;
        const KERNEL_FIXED: f64 = 100_000.0;
        const PER_PAIR_SUM: f64 = 4.0;
        let groups = groups as f64;
        let words = self.row_bits.as_ref().map_or(groups * self.mean_listed / m.max(1) as f64, |bits| bits.words as f64);
        let rows = screened as f64 * m as f64 * (ROW_CELL + PER_WORD * words);
        let kernel = KERNEL_FIXED + PER_PAIR_SUM * groups * self.mean_square_listed / 2.0 * c as f64;
        kernel < rows
    }

    /// The table the buffers hold.
    fn table(&self) -> PairTable<'_> {
        PairTable { sums: &self.sums, minority: &self.minority, row_of: &self.row_of, flipped: &self.flipped, m: self.m, c: self.c }
    }

    /// Sums the groups of `set` into a table without rows: its totals, per column its
    /// counted sums, and the floors (see [`PairTable`]).
    fn sum_singles<O: crate::objective::Objective, S: SplitFamily>(&mut self, task: &Task<O, S>, set: &[u64]) {
        let (data, m, c) = (task.data, task.splits.n_splits(), task.data.n_classes());
        self.prepare(task);
        let ch = c + 1;
        self.row_of.clear();
        self.row_of.resize(m, NO_ROW);
        self.sums.clear();
        self.sums.resize((1 + m) * ch, 0.0);
        self.minority.clear();
        self.minority.resize(1 + m, 0.0);
        (self.m, self.c) = (m, c);
        let (total, single) = self.sums.split_at_mut(ch);
        if let Some(bits) = self.row_bits.as_mut() {
            bits.singles(data, set, total, single, &mut self.minority);
            return;
        }
        let (start, listed, minority) = (&self.listed_start, &self.listed, &mut self.minority);
        treeopt_core::bitset::for_each_one(set, |g| {
            let (w, n, floor) = (data.class_weights(g), data.group_rows(g) as f64, task.obj.group_floor(g));
            let add = |cell: &mut [f64]| {
                for (s, x) in cell.iter_mut().zip(w) {
                    *s += x;
                }
                cell[c] += n;
            };
            add(total);
            minority[0] += floor;
            for &f in &listed[start[g] as usize..start[g + 1] as usize] {
                add(&mut single[f as usize * ch..(f as usize + 1) * ch]);
                minority[1 + f as usize] += floor;
            }
        });
    }

    /// Adds to the table [`PairBuffers::sum_singles`] summed over `set` a row for each
    /// column of `screened`, and returns it.
    fn sum_rows<O: crate::objective::Objective, S: SplitFamily>(&mut self, task: &Task<O, S>, set: &[u64], screened: &[u32]) -> PairTable<'_> {
        let (data, m, c) = (task.data, self.m, self.c);
        let ch = c + 1;
        for (r, &f) in screened.iter().enumerate() {
            self.row_of[f as usize] = r as u32;
        }
        self.sums.resize((1 + m + screened.len() * m) * ch, 0.0);
        let rows = &mut self.sums[(1 + m) * ch..];
        let (start, listed, row_of) = (&self.listed_start, &self.listed, &self.row_of);
        if let Some(bits) = self.row_bits.as_mut() {
            bits.rows(c, row_of, screened, rows);
            return self.table();
        }
        treeopt_core::bitset::for_each_one(set, |g| {
            let (w, n) = (data.class_weights(g), data.group_rows(g) as f64);
            let counted = &listed[start[g] as usize..start[g + 1] as usize];
            for &f in counted {
                let r = row_of[f as usize];
                if r != NO_ROW {
                    let row = &mut rows[r as usize * m * ch..(r as usize + 1) * m * ch];
                    for &h in counted {
                        let cell = &mut row[h as usize * ch..(h as usize + 1) * ch];
                        for (s, x) in cell.iter_mut().zip(w) {
                            *s += x;
                        }
                        cell[c] += n;
                    }
                }
            }
        });
        self.table()
    }
}

/// A column with no row in a [`PairTable`].
const NO_ROW: u32 = u32::MAX;

/// Sums of a set's groups (class weights and rows: `c + 1` channels) for a node with two
/// levels left. Each column is *counted* at its value that is rarer among the dataset's
/// groups (1, or 0 for the columns the depth-two kernel flips), so a group adds only to
/// the columns it is counted in: the set's totals; per column, the sums of the groups
/// counted in it; and per screened column (a *row*), for every column, the sums of the
/// groups counted in both. The sums of any two values of a screened column and another
/// follow by inclusion and exclusion.
struct PairTable<'p> {
    sums: &'p [f64],
    minority: &'p [f64],
    row_of: &'p [u32],
    flipped: &'p [bool],
    m: usize,
    c: usize,
}

impl<'p> PairTable<'p> {
    fn total(&self) -> &'p [f64] {
        &self.sums[..self.c + 1]
    }

    /// The sums of the groups counted in column `f`.
    fn counted(&self, f: usize) -> &[f64] {
        let ch = self.c + 1;
        &self.sums[(1 + f) * ch..(2 + f) * ch]
    }

    /// True when the side `right` (at 1) of column `f` is the value it is counted at.
    fn is_counted(&self, f: usize, right: bool) -> bool {
        right != self.flipped[f]
    }

    /// The sums of the side (`right`: at 1) of split `f`.
    fn side(&self, f: usize, right: bool) -> Sums {
        let (counted, total) = (self.counted(f), self.total());
        if self.is_counted(f, right) {
            Sums::from_fn(counted.len(), |k| counted[k])
        } else {
            Sums::from_fn(counted.len(), |k| total[k] - counted[k])
        }
    }

    /// The lower bound the search's pass gives a tree splitting first on `f` (the sum
    /// of its sides' bounds with one level left, [`crate::rules::side`]), or `None`
    /// when a side of `f` holds fewer rows than the minimum support (or none).
    fn sides_bound(&self, f: usize, obj: &Misclassification, rules: &Rules) -> Option<f64> {
        let c = self.c;
        let (left, right) = (self.side(f, false), self.side(f, true));
        if left[c] == 0.0 || right[c] == 0.0 || left[c] < rules.min_support || right[c] < rules.min_support {
            return None;
        }
        let counted = self.minority[1 + f];
        let (right_floor, left_floor) = if self.is_counted(f, true) { (counted, self.minority[0] - counted) } else { (self.minority[0] - counted, counted) };
        let bound = |s: &[f64], floor: f64| crate::rules::side(obj, &s[..c], floor, None, s[c], 1, rules).lb;
        Some(bound(&left, left_floor) + bound(&right, right_floor))
    }

    /// The sums of the two sides (`low`: at 0 in `h`, `high`: at 1) of split `h` within
    /// the side `right` of the screened split `f`.
    fn cells(&self, f: usize, right: bool, h: usize, low: &mut [f64], high: &mut [f64]) {
        let ch = self.c + 1;
        let r = self.row_of[f] as usize;
        debug_assert!(r != NO_ROW as usize, "split {f} has no row");
        let base = (1 + self.m + r * self.m + h) * ch;
        let both = &self.sums[base..base + ch];
        let (cf, chh, total) = (self.counted(f), self.counted(h), self.total());
        let f_counted = self.is_counted(f, right);
        // `h_counted` is the side of `h` counted; the other is the rest of `f`'s side.
        let (h_counted, h_rest) = if self.is_counted(h, true) { (&mut *high, &mut *low) } else { (&mut *low, &mut *high) };
        for k in 0..ch {
            if f_counted {
                h_counted[k] = both[k];
                h_rest[k] = cf[k] - both[k];
            } else {
                h_counted[k] = chh[k] - both[k];
                h_rest[k] = (total[k] - cf[k]) - h_counted[k];
            }
        }
    }

    /// The optimal cost of the side `right` of the screened split `f` with one level
    /// left: its best leaf or its best stump (each leaf at least `min_support` rows).
    fn stump_optimum(&self, f: usize, right: bool, rules: &Rules) -> f64 {
        let (c, ch, penalty) = (self.c, self.c + 1, rules.penalty);
        let best_leaf = |s: &[f64]| s[..c].iter().sum::<f64>() - s[..c].iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b)) + penalty;
        let side = self.side(f, right);
        let mut best = best_leaf(&side);
        if side[c] < 2.0 * rules.min_support {
            return best;
        }
        // Within the side, the part of each split `h` at the value `h` is counted at, and
        // the rest of the side (a stump costs the same with its leaves swapped).
        let f_counted = self.is_counted(f, right);
        let row_start = (1 + self.m + self.row_of[f] as usize * self.m) * ch;
        let row = &self.sums[row_start..row_start + self.m * ch];
        let counted = &self.sums[ch..(1 + self.m) * ch];
        for (both, counted_h) in row.chunks_exact(ch).zip(counted.chunks_exact(ch)) {
            let part = |k: usize| if f_counted { both[k] } else { counted_h[k] - both[k] };
            let (part_rows, rest_rows) = (part(c), side[c] - part(c));
            if part_rows < rules.min_support || rest_rows < rules.min_support {
                continue;
            }
            let (mut part_sum, mut part_max, mut rest_sum, mut rest_max) = (0.0, f64::NEG_INFINITY, 0.0, f64::NEG_INFINITY);
            for k in 0..c {
                let (a, b) = (part(k), side[k] - part(k));
                part_sum += a;
                part_max = part_max.max(a);
                rest_sum += b;
                rest_max = rest_max.max(b);
            }
            best = best.min((part_sum - part_max + penalty) + (rest_sum - rest_max + penalty));
        }
        best
    }
}

fn too_many() -> RashomonError {
    RashomonError::Invalid("the Rashomon set holds more than 2^128 trees; shrink it (smaller bound or depth, larger regularization)".into())
}

impl RashomonGraph {
    /// Total weight of the training rows (costs / total weight = objectives).
    pub fn total_weight(&self) -> f64 {
        self.total_weight
    }

    /// The optimal objective (proved by the search).
    pub fn optimal_objective(&self) -> f64 {
        self.optimal_objective
    }

    /// The largest objective a member may have.
    pub fn objective_bound(&self) -> f64 {
        self.objective_bound
    }

    /// Nodes of the graph (subproblems kept).
    pub fn n_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// The members' distinct costs, ascending, each with its number of trees.
    pub fn levels(&self) -> Vec<(f64, u128)> {
        self.nodes[self.root as usize].levels[..self.root_levels].iter().map(|l| (l.cost, l.count)).collect()
    }

    /// Tree `index` (in the order of the level's ways) of the members costing level
    /// `level`'s cost, in preorder.
    pub fn tree(&self, level: usize, index: u128) -> Result<Vec<TreeRecord>, RashomonError> {
        if level >= self.root_levels || index >= self.nodes[self.root as usize].levels[level].count {
            return Err(RashomonError::Invalid(format!("no tree {index} at level {level}")));
        }
        let mut out = Vec::new();
        self.nth(self.root, level, index, &mut out);
        Ok(out)
    }

    /// The number of trees of level `level` of `node` (1 for a leaf child).
    fn count_of(&self, node: u32, level: u32) -> u128 {
        if node == LEAF_CHILD {
            1
        } else {
            self.nodes[node as usize].levels[level as usize].count
        }
    }

    fn nth(&self, node: u32, level: usize, mut index: u128, out: &mut Vec<TreeRecord>) -> usize {
        let at = out.len();
        if node == LEAF_CHILD {
            out.push(TreeRecord { column: None, threshold: 0.0, left: 0, right: 0, label: level });
            return at;
        }
        let n = &self.nodes[node as usize];
        for w in n.ways_of(level) {
            if index >= w.count {
                index -= w.count;
                continue;
            }
            if w.column == LEAF_WAY {
                out.push(TreeRecord { column: None, threshold: 0.0, left: 0, right: 0, label: w.label as usize });
                return at;
            }
            out.push(TreeRecord { column: Some(w.column as usize), threshold: w.threshold, left: 0, right: 0, label: 0 });
            let right_count = self.count_of(w.right, w.right_level);
            let left = self.nth(w.left, w.left_level as usize, index / right_count, out);
            let right = self.nth(w.right, w.right_level as usize, index % right_count, out);
            (out[at].left, out[at].right) = (left, right);
            return at;
        }
        unreachable!("index within the level's count")
    }

    /// Per row of the row-major matrix `x` (`n_columns` columns), how many members
    /// predict each class (row-major `rows x n_classes`, as floats: counts beyond 2^53
    /// keep only their leading digits).
    pub fn votes(&self, x: &[f64]) -> Vec<f64> {
        let (m, k) = (self.n_columns.max(1), self.n_classes);
        let rows = x.len() / m;
        let mut out = vec![0.0; rows * k];
        let mut memo = vec![0.0; self.total_levels * k];
        let mut stamp = vec![u32::MAX; self.total_levels];
        for (i, row) in x.chunks(m).enumerate().take(rows) {
            for level in 0..self.root_levels {
                self.level_votes(self.root, level, row, i as u32, &mut memo, &mut stamp);
                let at = (self.nodes[self.root as usize].first_level as usize + level) * k;
                for c in 0..k {
                    out[i * k + c] += memo[at + c];
                }
            }
        }
        out
    }

    fn level_votes(&self, node: u32, level: usize, row: &[f64], stamp_of_row: u32, memo: &mut [f64], stamp: &mut [u32]) {
        let n = &self.nodes[node as usize];
        let at = n.first_level as usize + level;
        if stamp[at] == stamp_of_row {
            return;
        }
        let k = self.n_classes;
        let mut votes = vec![0.0; k];
        for w in n.ways_of(level) {
            if w.column == LEAF_WAY {
                votes[w.label as usize] += w.count as f64;
                continue;
            }
            let (child, child_level, other) = if row[w.column as usize] <= w.threshold {
                (w.left, w.left_level, self.count_of(w.right, w.right_level))
            } else {
                (w.right, w.right_level, self.count_of(w.left, w.left_level))
            };
            if child == LEAF_CHILD {
                votes[child_level as usize] += other as f64;
                continue;
            }
            self.level_votes(child, child_level as usize, row, stamp_of_row, memo, stamp);
            let c_at = (self.nodes[child as usize].first_level as usize + child_level as usize) * k;
            for c in 0..k {
                votes[c] += memo[c_at + c] * other as f64;
            }
        }
        memo[at * k..(at + 1) * k].copy_from_slice(&votes);
        stamp[at] = stamp_of_row;
    }

    /// Per column, how many members never split on it.
    pub fn unused(&self) -> Vec<u128> {
        let mut memo = vec![None; self.total_levels];
        (0..self.n_columns)
            .map(|j| {
                memo.fill(None);
                (0..self.root_levels).map(|level| self.level_unused(self.root, level, j as u32, &mut memo)).sum()
            })
            .collect()
    }

    fn level_unused(&self, node: u32, level: usize, column: u32, memo: &mut [Option<u128>]) -> u128 {
        if node == LEAF_CHILD {
            return 1;
        }
        let n = &self.nodes[node as usize];
        let at = n.first_level as usize + level;
        if let Some(unused) = memo[at] {
            return unused;
        }
        let mut unused = 0u128;
        for w in n.ways_of(level) {
            if w.column == LEAF_WAY {
                unused += w.count;
            } else if w.column != column {
                unused += self.level_unused(w.left, w.left_level as usize, column, memo) * self.level_unused(w.right, w.right_level as usize, column, memo);
            }
        }
        memo[at] = Some(unused);
        unused
    }
}

/// The little-endian byte form of a graph ([`RashomonGraph::to_bytes`]), read back.
struct Reader<'b> {
    bytes: &'b [u8],
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], RashomonError> {
        if self.bytes.len() < N {
            return Err(RashomonError::Invalid("truncated Rashomon graph bytes".into()));
        }
        let (head, rest) = self.bytes.split_at(N);
        self.bytes = rest;
        Ok(head.try_into().expect("N bytes"))
    }
    fn u32(&mut self) -> Result<u32, RashomonError> {
        self.take::<4>().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Result<u64, RashomonError> {
        self.take::<8>().map(u64::from_le_bytes)
    }
    fn u128(&mut self) -> Result<u128, RashomonError> {
        self.take::<16>().map(u128::from_le_bytes)
    }
    fn f64(&mut self) -> Result<f64, RashomonError> {
        self.take::<8>().map(f64::from_le_bytes)
    }
}

impl RashomonGraph {
    /// The graph as bytes (for pickling), read back by [`RashomonGraph::from_bytes`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for v in [self.root as u64, self.root_levels as u64, self.n_classes as u64, self.n_columns as u64, self.nodes.len() as u64] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [self.total_weight, self.optimal_objective, self.objective_bound] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for n in &self.nodes {
            out.extend_from_slice(&n.budget.to_le_bytes());
            out.extend_from_slice(&(n.levels.len() as u32).to_le_bytes());
            out.extend_from_slice(&(n.ways.len() as u32).to_le_bytes());
            for l in &n.levels {
                out.extend_from_slice(&l.cost.to_le_bytes());
                out.extend_from_slice(&l.count.to_le_bytes());
                out.extend_from_slice(&l.end.to_le_bytes());
            }
            for w in &n.ways {
                out.extend_from_slice(&w.count.to_le_bytes());
                out.extend_from_slice(&w.threshold.to_le_bytes());
                for v in [w.column, w.label, w.left, w.left_level, w.right, w.right_level] {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        out
    }

    /// Reads a graph written by [`RashomonGraph::to_bytes`], checking that every index
    /// it holds points inside it.
    pub fn from_bytes(bytes: &[u8]) -> Result<RashomonGraph, RashomonError> {
        let mut r = Reader { bytes };
        let (root, root_levels, n_classes, n_columns, n_nodes) = (r.u64()? as u32, r.u64()? as usize, r.u64()? as usize, r.u64()? as usize, r.u64()? as usize);
        let (total_weight, optimal_objective, objective_bound) = (r.f64()?, r.f64()?, r.f64()?);
        let mut nodes = Vec::new();
        let mut total_levels = 0usize;
        for _ in 0..n_nodes.min(bytes.len()) {
            let budget = r.f64()?;
            let (n_levels, n_ways) = (r.u32()? as usize, r.u32()? as usize);
            let mut levels = Vec::new();
            for _ in 0..n_levels {
                levels.push(Level { cost: r.f64()?, count: r.u128()?, end: r.u32()? });
            }
            let mut ways = Vec::new();
            for _ in 0..n_ways {
                let (count, threshold) = (r.u128()?, r.f64()?);
                let (column, label, left, left_level, right, right_level) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?);
                ways.push(Way { count, column, label, threshold, left, left_level, right, right_level });
            }
            nodes.push(GraphNode { budget, levels, ways, first_level: total_levels as u32 });
            total_levels += n_levels;
        }
        let bad = || RashomonError::Invalid("inconsistent Rashomon graph bytes".into());
        let level_ok = |node: u32, level: u32| {
            if node == LEAF_CHILD {
                (level as usize) < n_classes
            } else {
                nodes.get(node as usize).is_some_and(|n: &GraphNode| (level as usize) < n.levels.len())
            }
        };
        for n in &nodes {
            let mut start = 0;
            for l in &n.levels {
                if (l.end as usize) < start || l.end as usize > n.ways.len() {
                    return Err(bad());
                }
                start = l.end as usize;
            }
            for w in &n.ways {
                let split_ok = w.column == LEAF_WAY && (w.label as usize) < n_classes
                    || (w.column as usize) < n_columns && level_ok(w.left, w.left_level) && level_ok(w.right, w.right_level);
                if !split_ok {
                    return Err(bad());
                }
            }
        }
        if nodes.len() != n_nodes || !r.bytes.is_empty() || nodes.get(root as usize).map_or(true, |n| root_levels > n.levels.len()) {
            return Err(bad());
        }
        Ok(RashomonGraph { nodes, root, root_levels, total_weight, optimal_objective, objective_bound, n_classes, n_columns, total_levels })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::NoMonitor;
    use crate::testing::{brute, random, random_rows};
    use treeopt_core::BinaryDataset;

    #[test]
    fn set_range_sets_the_bits_of_the_range() {
        // Word by word, as the definition bit by bit, on ranges within a word, across
        // several, of whole words and empty.
        for start in 0..200 {
            for len in [0, 1, 2, 5, 63, 64, 65, 127, 128, 129, 190] {
                let end = (start + len).min(256);
                let mut bits = vec![0u64; 4];
                bits[3] = 1 << 63;
                set_range(&mut bits, start, end);
                let mut want = vec![0u64; 4];
                want[3] = 1 << 63;
                for i in start..end {
                    want[i / 64] |= 1 << (i % 64);
                }
                assert_eq!(bits, want, "{start}..{end}");
            }
        }
    }

    /// The row bits of groups of one row each are laid out as the general layout lays
    /// them out (the same class ranges, rows per column, rows outside their group's
    /// largest class and row of each group), or both refuse; on random 0/1 problems
    /// with no two rows alike, unweighted, weighted alike and weighted unevenly.
    #[test]
    fn one_row_groups_have_the_general_row_bits() {
        let mut compared = 0;
        for seed in 0..60u64 {
            let (rows, m, classes) = (10 + (seed % 40) as usize, 7 + (seed % 5) as usize, 2 + (seed % 3) as usize);
            let (x, y, _) = random_rows(rows, m, classes, seed + 5);
            // The distinct rows only, each once.
            let mut seen = std::collections::HashSet::new();
            let (mut xs, mut ys) = (Vec::new(), Vec::new());
            for (row, &label) in x.chunks(m).zip(&y) {
                if seen.insert(row.to_vec()) {
                    xs.extend_from_slice(row);
                    ys.push(label);
                }
            }
            let n = ys.len();
            let weights: Vec<f64> = match seed % 3 {
                0 => vec![1.0; n],
                1 => vec![2.5; n],
                _ => (0..n).map(|i| 1.0 + (i % 2) as f64).collect(),
            };
            let data = BinaryDataset::new(&xs, n, m, &ys, classes, Some(&weights)).unwrap();
            assert!((0..data.n_groups()).all(|g| data.group_rows(g) == 1));
            let task = crate::split::Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let (_, start, listed) = listed_features(&task);
            let unit = data.class_weights(0).iter().sum::<f64>();
            let (fast, general) = (RowBits::one_row_groups(&data, m, unit, &start, &listed), RowBits::by_ranges(&data, m, unit, &start, &listed));
            assert_eq!(fast.is_some(), general.is_some(), "seed {seed}");
            if let (Some(a), Some(b)) = (fast, general) {
                assert_eq!((a.words, &a.class_start, &a.counted, &a.minor, &a.group_row), (b.words, &b.class_start, &b.counted, &b.minor, &b.group_row), "seed {seed}");
                compared += 1;
            }
        }
        assert!(compared >= 30, "{compared}");
    }

    /// The table's bound on the trees of two levels splitting first on a column
    /// ([`PairTable::sides_bound`], from its per-column sums and floors) is the one the
    /// search's pass over the splits gives ([`Solver::split_sides`]): the same columns
    /// (each side non-empty and with the minimum support) and the same bound up to
    /// rounding; and it is at most the optimum of those trees by brute force. On random
    /// subsets of random 0/1 problems, rows of one weight (the table counts row bits)
    /// and of varied weights (it sums groups), two to four classes.
    #[test]
    fn the_table_bounds_each_split_as_the_search_pass() {
        let mut bounded = 0;
        for seed in 0..120u64 {
            let (rows, m, classes) = (15 + (seed % 30) as usize, 2 + (seed % 7) as usize, 2 + (seed % 3) as usize);
            let (x, y, w) = random_rows(rows, m, classes, seed + 11);
            let data = if seed % 2 == 0 { BinaryDataset::new(&x, rows, m, &y, classes, Some(&w)).unwrap() } else { BinaryDataset::new(&x, rows, m, &y, classes, None).unwrap() };
            let config = GosdtConfig {
                regularization: [0.0, 0.01, 0.05, 0.2][(seed / 2 % 4) as usize],
                max_depth: Some(2),
                min_samples_leaf: 1 + (seed / 8 % 3) as usize,
                ..Default::default()
            };
            let mut monitor = NoMonitor;
            let mut solver = Solver::new(&data, Misclassification::new(&data), ZeroOneColumns::new(&data), &config, None, &mut monitor);
            let (obj, rules) = (Misclassification::new(&data), solver.rules());
            let mut pairs = PairBuffers::default();
            let mut s = seed;
            for trial in 0..4 {
                // All the groups, then random subsets of about two thirds of them.
                let mut set = vec![0u64; data.words()];
                let mut groups = Vec::new();
                for g in 0..data.n_groups() {
                    s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    if trial == 0 || (s >> 33) % 3 != 0 {
                        set[g / 64] |= 1 << (g % 64);
                        groups.push(g);
                    }
                }
                if groups.is_empty() {
                    continue;
                }
                let want: Vec<(u32, f64)> = solver.split_sides(&set, 2).unwrap().iter().map(|s| (s.split, s.left.lb + s.right.lb)).collect();
                pairs.sum_singles(solver.task(), &set);
                let table = pairs.table();
                let got: Vec<(u32, f64)> = (0..m as u32).filter_map(|f| table.sides_bound(f as usize, &obj, &rules).map(|b| (f, b))).collect();
                assert_eq!(got.len(), want.len(), "seed {seed} trial {trial}: {got:?} against {want:?}");
                for (&(f, b), &(wf, wb)) in got.iter().zip(&want) {
                    assert_eq!(f, wf, "seed {seed} trial {trial}");
                    assert!((b - wb).abs() <= 1e-9 * (1.0 + wb.abs()), "seed {seed} trial {trial} split {f}: {b} against {wb}");
                    let (left, right): (Vec<usize>, Vec<usize>) = groups.iter().partition(|&&g| data.feature_of(g, f as usize) == 0);
                    let (p, ms) = (rules.penalty, rules.min_support);
                    let best = brute(&obj, &data, &left, Some(1), p, ms) + brute(&obj, &data, &right, Some(1), p, ms);
                    assert!(b <= best + 1e-9, "seed {seed} trial {trial} split {f}: bound {b} above the optimum {best}");
                    bounded += (b > 4.0 * p + 1e-9 && b > 0.0) as usize;
                }
            }
        }
        // The floors and class bounds do bound beyond the penalties.
        assert!(bounded > 100, "{bounded}");
    }

    /// Bounding the splits of nodes with two levels left by the depth-two kernel leaves
    /// the set as it is: the same costs, counts and trees as without it (which the
    /// brute-force oracle of `tests/rashomon_oracle.rs` checks), on random 0/1 problems
    /// with weights, minimum supports and both bound types.
    #[test]
    fn the_kernel_screen_keeps_every_tree() {
        for seed in 0..160u64 {
            let classes = 2 + (seed % 2) as usize;
            let data = random(20 + (seed % 40) as usize, 3 + (seed % 6) as usize, classes, seed + 3);
            let b = [0.0, 0.05, 0.3, 1.0][(seed % 4) as usize];
            let config = RashomonConfig {
                regularization: [0.0, 0.01, 0.05, 0.1][(seed / 4 % 4) as usize],
                max_depth: Some(2 + (seed % 3) as usize),
                min_samples_leaf: 1 + (seed / 16 % 2) as usize,
                bound: if seed % 2 == 0 { RashomonBound::Multiplicative(b) } else { RashomonBound::Additive(b / 4.0) },
                limits: Limits::default(),
            };
            let build = |screen| build_family(&data, ZeroOneColumns::new(&data), data.n_features(), &config, screen, &mut NoMonitor).unwrap();
            let (estimated, always) = (build(KernelScreen::Estimated), build(KernelScreen::Always));
            assert_eq!(estimated.levels(), always.levels(), "seed {seed}");
            assert_eq!(estimated.optimal_objective(), always.optimal_objective(), "seed {seed}");
            for (level, &(_, count)) in estimated.levels().iter().enumerate() {
                for i in 0..count.min(50) {
                    assert_eq!(estimated.tree(level, i).unwrap(), always.tree(level, i).unwrap(), "seed {seed}, level {level}, tree {i}");
                }
            }
        }
    }
}
