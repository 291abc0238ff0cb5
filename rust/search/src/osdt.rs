//! OSDT: optimal sparse decision trees by branch and bound over leaf sets (Hu, Rudin and
//! Seltzer, NeurIPS 2019: Algorithm 1, sections 3–4, appendices B–G).
//!
//! Objective, the same as GOSDT's so the two solvers cross-check each other:
//! R(d) = weighted misclassification / total weight + λ × leaves. Binary classification
//! only. Internally every quantity is in weight units (λ becomes the penalty λ·W).
//!
//! # Search
//!
//! A tree is its set of leaves; a leaf is a clause (a conjunction of `feature = value`
//! tests, stored in canonical order, sorted by feature) with the bit-vector of the
//! equivalence classes of rows it captures. A queue entry is a tree `d` whose leaves are
//! split into `d_un` (never split again) and `d_split`. Expanding an entry splits every
//! leaf of `d_split` on every combination of features (as the authors' implementation
//! does, appendix G.4), evaluates the objective of each child tree (the incumbent R^c is
//! updated when a child beats it) and queues the child once for every non-empty subset
//! of its new leaves chosen as its `d_split`; the new leaves not chosen join `d_un`.
//! So every leaf made at step k has exactly k clauses, and a leaf set alone determines
//! which of its leaves may still be split: two trees with the same leaves (a permutation
//! of each other, or the same leaves reached through different splits) are
//! interchangeable (Corollary E.1). The queue order is one of the scheduling policies of
//! appendix G.2; ties go to the entry queued first (to the last one for depth first).
//!
//! # Bounds (each can be switched off for ablation, see [`Bounds`])
//!
//! * `hierarchical` (Thm 3.1): b(d_un) = ℓ(d_un) + λH ≤ R(d') for every descendant d'.
//! * `lookahead` (Lemma 3.2, for several split leaves at once): every child splits all
//!   of `d_split`, so it has |d_split| more leaves: adds λ·|d_split|.
//! * `equivalent_points` (Thm B.2): rows with identical features but different labels
//!   captured by `d_split` are misclassified by every descendant: adds b0(d_split).
//!   An entry is pruned, when queued and when taken from the queue, if the sum of the
//!   enabled terms reaches R^c.
//! * `support` (Thm 3.3, in the form of the authors' implementation): a leaf that
//!   misclassifies at most λ — every leaf of support at most 2λ does, since a binary
//!   leaf misclassifies at most half its support — is never split.
//! * `incremental_accuracy` (Thm 3.4): when splitting a leaf gains at most λ, one of its
//!   two new leaves must be split further: only such `d_split` subsets are queued.
//! * `accurate_support` (Thm 3.5): a split making a leaf that classifies at most λ of
//!   the data correctly is never made (the feature is dead in that leaf, appendix G.1).
//! * `leaf_count_apriori` (Cor C.2 via Thm C.1): no tree with more than
//!   ⌊R⁰/λ⌋ leaves, R⁰ the objective of the initial incumbent (at most 1/2 + λ).
//! * `leaf_count_parent` (Thm C.3): the children of a tree d have at most
//!   H + ⌊(R^c − b(d_un))/λ⌋ leaves.
//! * `permutation` (Corollary E.1): a tree cache keyed by the canonical leaf set; a
//!   child whose leaf set was already generated is skipped.
//!
//! Leaves live in a leaf cache keyed by their canonical clause set (appendix G.3), which
//! computes each leaf's capture set, loss, support, equivalent-points bound and the
//! features it may be split on once.
//!
//! # Soundness with ties and rounding
//!
//! Theorems 3.3–3.5 and the tree cache are proved here for an optimal tree with the
//! fewest leaves, for which each of them holds strictly (merging two sibling leaves, or
//! replacing a subtree by a leaf, never helps such a tree), so pruning on equality is
//! sound and keeps at least one optimal tree reachable. Two statements of appendix C are
//! one off as printed and are used in their corrected form: Cor C.2's ⌊1/(2λ)⌋ would
//! exclude the optimal stump at λ = 0.3 on balanced, separable data, so the bound is
//! Thm C.1's ⌊R⁰/λ⌋; Thm C.3's strict `<` becomes `≤` (a child with exactly
//! ⌊(R^c − b)/λ⌋ more leaves can still beat R^c). Divisions that feed a floor carry a
//! 1e-9 slack, so rounding can only make them weaker. The objective of the returned tree
//! is recomputed from the data.
//!
//! # Anytime
//!
//! The incumbent starts as the better of the single leaf and the caller's warm-start
//! tree. A time limit, the memory limit (bytes held by the queue, the leaf cache and the
//! tree store) or the monitor stops the search; the incumbent is returned with a proven
//! lower bound: the smallest b(d_un) + b0(d_split) + λ|d_split| over the entries still
//! queued (and the entry being expanded), or R^c itself when the queue is exhausted.

use crate::budget::{Budget, Limits, Monitor, Progress};
use crate::{SearchResult, Stats, Status};
use hashbrown::HashTable;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use treeopt_core::bitset::{and_into, and_not_into, for_each_one, words_for};
use treeopt_core::{hash, BinaryDataset, Error, Node, Result, Tree};

/// Slack added before flooring a ratio of objective quantities (see the module notes).
const SLACK: f64 = 1e-9;

/// The scheduling policy: which queued tree is expanded next (appendix G.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Policy {
    /// CORELS' curiosity: b(d_un) divided by the fraction of the data `d_un` captures.
    #[default]
    Curiosity,
    /// The lower bound b(d_un).
    LowerBound,
    /// The objective of the tree.
    Objective,
    /// First in, first out.
    BreadthFirst,
    /// Last in, first out.
    DepthFirst,
}

impl Policy {
    /// The names accepted by [`Policy::from_name`], in declaration order.
    pub const NAMES: [&'static str; 5] = ["curiosity", "lower_bound", "objective", "breadth_first", "depth_first"];

    /// The policy called `name` (one of [`Policy::NAMES`]).
    pub fn from_name(name: &str) -> Result<Self> {
        Ok(match name {
            "curiosity" => Policy::Curiosity,
            "lower_bound" => Policy::LowerBound,
            "objective" => Policy::Objective,
            "breadth_first" => Policy::BreadthFirst,
            "depth_first" => Policy::DepthFirst,
            _ => {
                return Err(Error::new(format!(
                    "unknown OSDT policy {name:?}; use one of {}",
                    Policy::NAMES.join(", ")
                )))
            }
        })
    }

    /// The name of the policy.
    pub fn as_str(self) -> &'static str {
        Policy::NAMES[self as usize]
    }
}

/// The bounds of the paper, each of which may be switched off for ablation. Every subset
/// gives the same optimal objective; the bounds only prune.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Hierarchical objective lower bound b(d_un) (Thm 3.1).
    pub hierarchical: bool,
    /// One-step look-ahead: λ per leaf of `d_split` (Lemma 3.2).
    pub lookahead: bool,
    /// Equivalent-points bound b0(d_split) (Thm B.2).
    pub equivalent_points: bool,
    /// Lower bound on node support: leaves misclassifying at most λ are not split (Thm 3.3).
    pub support: bool,
    /// Lower bound on incremental classification accuracy (Thm 3.4).
    pub incremental_accuracy: bool,
    /// Leaf accurate support: no leaf classifies at most λ correctly (Thm 3.5).
    pub accurate_support: bool,
    /// A-priori upper bound on the number of leaves (Thm C.1 / Cor C.2).
    pub leaf_count_apriori: bool,
    /// Parent-specific upper bound on the number of leaves (Thm C.3).
    pub leaf_count_parent: bool,
    /// Leaf-permutation symmetry through the tree cache (Corollary E.1).
    pub permutation: bool,
}

impl Bounds {
    /// Every bound on (the default).
    pub const ALL: Bounds = Bounds {
        hierarchical: true,
        lookahead: true,
        equivalent_points: true,
        support: true,
        incremental_accuracy: true,
        accurate_support: true,
        leaf_count_apriori: true,
        leaf_count_parent: true,
        permutation: true,
    };

    /// Every bound off: the search enumerates every tree (small problems only).
    pub const NONE: Bounds = Bounds {
        hierarchical: false,
        lookahead: false,
        equivalent_points: false,
        support: false,
        incremental_accuracy: false,
        accurate_support: false,
        leaf_count_apriori: false,
        leaf_count_parent: false,
        permutation: false,
    };

    /// The names of the bounds, as used by [`Bounds::without`].
    pub const NAMES: [&'static str; 9] = [
        "hierarchical",
        "lookahead",
        "equivalent_points",
        "support",
        "incremental_accuracy",
        "accurate_support",
        "leaf_count_apriori",
        "leaf_count_parent",
        "permutation",
    ];

    fn flag(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "hierarchical" => &mut self.hierarchical,
            "lookahead" => &mut self.lookahead,
            "equivalent_points" => &mut self.equivalent_points,
            "support" => &mut self.support,
            "incremental_accuracy" => &mut self.incremental_accuracy,
            "accurate_support" => &mut self.accurate_support,
            "leaf_count_apriori" => &mut self.leaf_count_apriori,
            "leaf_count_parent" => &mut self.leaf_count_parent,
            "permutation" => &mut self.permutation,
            _ => return None,
        })
    }

    /// These bounds with the one called `name` (one of [`Bounds::NAMES`]) switched off.
    pub fn without(mut self, name: &str) -> Result<Self> {
        match self.flag(name) {
            Some(f) => {
                *f = false;
                Ok(self)
            }
            None => Err(Error::new(format!(
                "unknown OSDT bound {name:?}; the bounds are {}",
                Bounds::NAMES.join(", ")
            ))),
        }
    }

    /// Whether the bound called `name` is on (`None` for an unknown name).
    pub fn is_on(&self, name: &str) -> Option<bool> {
        let mut copy = *self;
        copy.flag(name).map(|f| *f)
    }
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds::ALL
    }
}

/// Parameters of an OSDT search.
#[derive(Clone, Debug)]
pub struct OsdtConfig {
    /// Penalty per leaf, as a fraction of the total weight (λ of the paper).
    pub regularization: f64,
    /// Scheduling policy of the queue.
    pub policy: Policy,
    /// Which bounds are on.
    pub bounds: Bounds,
    /// An initial incumbent (d⁰ of Algorithm 1), e.g. a CART tree, over the same 0/1
    /// features: its objective starts R^c. Only `feature`, `left` (value 0) and `right`
    /// (value 1) of its nodes are read; the class weights are recomputed from the data.
    pub warm_start: Option<Tree>,
    /// Time and memory limits; the memory limit counts the bytes of the queue and caches.
    pub limits: Limits,
}

impl Default for OsdtConfig {
    fn default() -> Self {
        OsdtConfig {
            regularization: 0.01,
            policy: Policy::Curiosity,
            bounds: Bounds::ALL,
            warm_start: None,
            limits: Limits::default(),
        }
    }
}

/// OSDT's own counters (those of the paper's Table 2 among them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OsdtStats {
    /// Trees (a leaf set with an admissible `d_split`) whose lower bound was computed:
    /// the "#trees evaluated" of the paper's Table 2. The authors' implementation queues
    /// every such tree and bounds it when it leaves the queue; this one bounds it before
    /// queueing it, so only the survivors are queued (`trees_queued`).
    pub trees_evaluated: u64,
    /// Trees entered in the queue.
    pub trees_queued: u64,
    /// `trees_evaluated` when the returned tree was found (0: the initial incumbent).
    pub trees_to_optimum: u64,
    /// Seconds from the start to finding the returned tree (0: the initial incumbent).
    pub time_to_optimum: f64,
    /// Distinct child trees whose objective was computed.
    pub leaf_sets: u64,
    /// Distinct leaves in the leaf cache.
    pub leaves: u64,
    /// Queue entries expanded (taken from the queue and not pruned).
    pub expansions: u64,
    /// Largest number of queued entries.
    pub peak_queue: u64,
    /// Largest number of bytes held by the queue, the leaf cache and the tree store.
    pub peak_bytes: u64,
}

/// What [`solve`] returns: the shared [`SearchResult`] and OSDT's counters.
#[derive(Clone, Debug)]
pub struct OsdtResult {
    /// Best tree, its objective, the certified lower bound, the status and the shared
    /// statistics (`subproblems` = distinct child trees evaluated, `memory_bytes` = bytes
    /// held at the end).
    pub result: SearchResult,
    /// OSDT's counters.
    pub stats: OsdtStats,
    /// Objective of the warm-start tree, when one was given.
    pub warm_start_objective: Option<f64>,
}

/// Checks that `tree` is a proper binary tree rooted at node 0 over the dataset's
/// features and returns it with every node's class weights taken from the data.
fn prepare_warm_start(tree: &Tree, data: &BinaryDataset) -> Result<Tree> {
    let n = tree.nodes.len();
    if n == 0 {
        return Err(Error::new("the warm-start tree has no nodes"));
    }
    let mut parents = vec![0u32; n];
    for (i, node) in tree.nodes.iter().enumerate() {
        if let Some(f) = node.feature {
            if f >= data.n_features() {
                return Err(Error::new(format!(
                    "warm-start node {i} tests feature {f} but the data has {} features",
                    data.n_features()
                )));
            }
            for c in [node.left, node.right] {
                if c == 0 || c >= n {
                    return Err(Error::new(format!("warm-start node {i} has child index {c} out of range 1..{n}")));
                }
                parents[c] += 1;
            }
        }
    }
    if let Some(i) = (1..n).find(|&i| parents[i] != 1) {
        return Err(Error::new(format!(
            "warm-start node {i} has {} parents; every node but the root needs exactly one",
            parents[i]
        )));
    }
    // One parent each and n - 1 child links: a tree exactly when every node is reachable.
    let mut seen = vec![false; n];
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        if seen[i] {
            return Err(Error::new("the warm-start tree contains a cycle"));
        }
        seen[i] = true;
        if tree.nodes[i].feature.is_some() {
            stack.push(tree.nodes[i].left);
            stack.push(tree.nodes[i].right);
        }
    }
    if let Some(i) = seen.iter().position(|&s| !s) {
        return Err(Error::new(format!("warm-start node {i} is not reachable from the root")));
    }
    let c = data.n_classes();
    let mut out = tree.clone();
    for node in &mut out.nodes {
        node.value = vec![0.0; c];
    }
    for g in 0..data.n_groups() {
        let mut i = 0;
        loop {
            for (t, w) in out.nodes[i].value.iter_mut().zip(data.class_weights(g)) {
                *t += w;
            }
            match out.nodes[i].feature {
                None => break,
                Some(f) => i = if data.feature_of(g, f) == 1 { out.nodes[i].right } else { out.nodes[i].left },
            }
        }
    }
    Ok(out)
}

/// Hash of a sequence of `u32` codes (leaf clauses or leaf ids).
#[inline]
fn hash_u32s(key: &[u32]) -> u64 {
    let mut h = (key.len() as u64 ^ 0x243F_6A88_85A3_08D3).wrapping_mul(hash::K);
    for &x in key {
        h = (h ^ x as u64).wrapping_mul(hash::K);
        h ^= h >> 29;
    }
    hash::finalize(h)
}

/// Bytes of a hashbrown table of `u32` with this capacity (as in `store.rs`).
fn table_bytes(capacity: usize) -> usize {
    capacity.saturating_mul(8).div_ceil(7).max(1).next_power_of_two() * 5
}

/// Makes room in `v` for `extra` more elements, growing by at most the bytes in `room`
/// (doubling when it can) and taking them off `room`. False when it cannot.
fn reserve<T>(v: &mut Vec<T>, extra: usize, room: &mut usize) -> bool {
    let free = v.capacity() - v.len();
    if free >= extra {
        return true;
    }
    let size = std::mem::size_of::<T>().max(1);
    let need = extra - free;
    let add = v.capacity().max(16).max(need).min(*room / size);
    if add < need || v.try_reserve_exact(v.capacity() + add - v.len()).is_err() {
        return false;
    }
    *room = room.saturating_sub(add * size);
    true
}

/// Per-leaf statistics, in weight units.
#[derive(Clone, Copy, Debug)]
struct Leaf {
    /// Misclassified weight (majority label).
    loss: f64,
    /// Weight captured.
    support: f64,
    /// Equivalent-points bound: weight of the minority labels of the captured classes.
    b0: f64,
    /// Number of clauses (= the step of the search that made the leaf).
    depth: u32,
    /// Not dead (support bound) and at least one feature left to split on.
    splittable: bool,
}

/// The leaf cache (appendix G.3): leaves keyed by their canonical clause set, with their
/// capture sets, statistics and the features they may be split on.
struct LeafCache {
    /// Words per capture set (over the equivalence classes).
    gw: usize,
    /// Words per feature set.
    fw: usize,
    info: Vec<Leaf>,
    hashes: Vec<u64>,
    clause_start: Vec<u64>,
    /// Clause codes `2 * feature + value`, sorted by feature, leaf after leaf.
    clauses: Vec<u32>,
    capture: Vec<u64>,
    /// Features each leaf may be split on: both sides non-empty and, with the accurate
    /// support bound, both sides classifying more than λ correctly.
    valid: Vec<u64>,
    table: HashTable<u32>,
}

impl LeafCache {
    fn new(gw: usize, fw: usize) -> Self {
        LeafCache {
            gw,
            fw,
            info: Vec::new(),
            hashes: Vec::new(),
            clause_start: vec![0],
            clauses: Vec::new(),
            capture: Vec::new(),
            valid: Vec::new(),
            table: HashTable::new(),
        }
    }

    #[inline]
    fn clauses(&self, id: u32) -> &[u32] {
        let i = id as usize;
        &self.clauses[self.clause_start[i] as usize..self.clause_start[i + 1] as usize]
    }

    #[inline]
    fn capture(&self, id: u32) -> &[u64] {
        let s = id as usize * self.gw;
        &self.capture[s..s + self.gw]
    }

    #[inline]
    fn valid(&self, id: u32) -> &[u64] {
        let s = id as usize * self.fw;
        &self.valid[s..s + self.fw]
    }

    #[inline]
    fn get(&self, id: u32) -> &Leaf {
        &self.info[id as usize]
    }

    fn find(&self, key: &[u32], hash: u64) -> Option<u32> {
        self.table
            .find(hash, |&id| self.hashes[id as usize] == hash && self.clauses(id) == key)
            .copied()
    }

    fn bytes(&self) -> usize {
        self.info.capacity() * std::mem::size_of::<Leaf>()
            + self.hashes.capacity() * 8
            + self.clause_start.capacity() * 8
            + self.clauses.capacity() * 4
            + self.capture.capacity() * 8
            + self.valid.capacity() * 8
            + table_bytes(self.table.capacity())
    }

    /// Adds a leaf (absent from the cache) within `room` bytes; `None` when it does not fit.
    fn insert(&mut self, key: &[u32], hash: u64, leaf: Leaf, capture: &[u64], valid: &[u64], room: &mut usize) -> Option<u32> {
        let ok = reserve(&mut self.info, 1, room)
            && reserve(&mut self.hashes, 1, room)
            && reserve(&mut self.clause_start, 1, room)
            && reserve(&mut self.clauses, key.len(), room)
            && reserve(&mut self.capture, self.gw, room)
            && reserve(&mut self.valid, self.fw, room);
        if !ok || self.info.len() >= u32::MAX as usize {
            return None;
        }
        if self.table.len() == self.table.capacity() {
            let grow = table_bytes(self.table.capacity() * 2 + 1);
            let hashes = &self.hashes;
            if grow > *room || self.table.try_reserve(1, |&i| hashes[i as usize]).is_err() {
                return None;
            }
            *room -= grow;
        }
        let id = self.info.len() as u32;
        self.info.push(leaf);
        self.hashes.push(hash);
        self.clauses.extend_from_slice(key);
        self.clause_start.push(self.clauses.len() as u64);
        self.capture.extend_from_slice(capture);
        self.valid.extend_from_slice(valid);
        let hashes = &self.hashes;
        self.table.insert_unique(hash, id, |&i| hashes[i as usize]);
        Some(id)
    }
}

/// A leaf set: the leaf ids in increasing order (its canonical key).
struct TreeRec {
    leaves: Box<[u32]>,
    hash: u64,
    /// Step of the search that made it: its new leaves (the ones that may be split)
    /// are those with this many clauses.
    depth: u32,
    /// Number of new leaves.
    n_new: u32,
    /// Queue entries referring to it.
    refs: u32,
}

/// The leaf sets the queue refers to; with the permutation bound, also the tree cache
/// of every leaf set ever generated.
struct TreeStore {
    recs: Vec<TreeRec>,
    table: HashTable<u32>,
    free: Vec<u32>,
    /// Heap bytes of the leaf lists (with an allocator header each).
    list_bytes: usize,
    /// Keep every leaf set and look children up (Corollary E.1).
    cache: bool,
}

impl TreeStore {
    fn find(&self, key: &[u32], hash: u64) -> Option<u32> {
        self.table
            .find(hash, |&id| {
                let r = &self.recs[id as usize];
                r.hash == hash && &*r.leaves == key
            })
            .copied()
    }

    fn bytes(&self) -> usize {
        self.recs.capacity() * std::mem::size_of::<TreeRec>()
            + self.list_bytes
            + self.free.capacity() * 4
            + table_bytes(self.table.capacity())
    }

    fn insert(&mut self, key: &[u32], hash: u64, depth: u32, n_new: u32, room: &mut usize) -> Option<u32> {
        let list = key.len() * 4 + 16;
        if list > *room {
            return None;
        }
        *room -= list;
        let rec = TreeRec { leaves: key.into(), hash, depth, n_new, refs: 0 };
        let id = match self.free.pop() {
            Some(id) => {
                self.recs[id as usize] = rec;
                id
            }
            None => {
                if !reserve(&mut self.recs, 1, room) || self.recs.len() >= u32::MAX as usize {
                    return None;
                }
                self.recs.push(rec);
                (self.recs.len() - 1) as u32
            }
        };
        self.list_bytes += list;
        if self.cache {
            if self.table.len() == self.table.capacity() {
                let grow = table_bytes(self.table.capacity() * 2 + 1);
                let recs = &self.recs;
                if grow > *room || self.table.try_reserve(1, |&i| recs[i as usize].hash).is_err() {
                    return None;
                }
                *room -= grow;
            }
            let recs = &self.recs;
            self.table.insert_unique(hash, id, |&i| recs[i as usize].hash);
        }
        Some(id)
    }

    /// Drops one queue reference; without the cache, frees the leaf set at the last one.
    fn release(&mut self, id: u32) {
        let r = &mut self.recs[id as usize];
        r.refs -= 1;
        if r.refs == 0 && !self.cache {
            self.list_bytes -= r.leaves.len() * 4 + 16;
            r.leaves = Box::new([]);
            self.free.push(id);
        }
    }
}

/// A queued tree: a leaf set and the subset of its new leaves to split (`mask`, bit p
/// for the p-th new leaf in id order; an index into the big-mask slab when the leaf
/// set has more than 64 new leaves).
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: f64,
    order: u64,
    tree: u32,
    mask: u64,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// `BinaryHeap` pops the largest: the smallest key, then the smallest order, is largest.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.total_cmp(&self.key).then(other.order.cmp(&self.order))
    }
}

/// Sums over a tree's leaves for a given `d_split`, in weight units.
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    /// ℓ(d_un) + λ·H: the hierarchical lower bound b(d_un).
    b: f64,
    /// Equivalent-points bound of `d_split`.
    b0: f64,
    /// Weight captured by `d_un`.
    support_un: f64,
    /// |d_split|.
    n_split: usize,
}

/// The best tree known.
enum Incumbent {
    Leaves(Vec<u32>),
    WarmStart,
}

/// Scratch space of the `d_split` enumeration of a child.
#[derive(Default)]
struct MaskScratch {
    avail: Vec<u64>,
    sub: Vec<u64>,
    needs: Vec<(usize, usize)>,
}

/// Scratch space of the leaf computation.
struct LeafScratch {
    right: Vec<[f64; 2]>,
    right_groups: Vec<u32>,
    capture: Vec<u64>,
    valid: Vec<u64>,
    key: Vec<u32>,
}

/// One way to split a leaf of `d_split`: its two halves and their contributions to
/// (0) the pruning sum of the enabled hierarchical / equivalent-points / look-ahead
/// terms, least over keeping or splitting each half; (1) the same for Thm C.3's
/// b(d_un) + λ|d_split|; (2) the objective.
struct Opt {
    children: (u32, u32),
    terms: [f64; 3],
}

/// The fixed context of one expansion's walk over feature combinations.
struct Walk<'w> {
    un: &'w [u32],
    split: &'w [u32],
    depth: u32,
    /// ℓ(d_un) + λH' when the hierarchical term is on, else 0.
    base_a: f64,
    /// ℓ(d_un) + λH' of every child.
    base: f64,
    /// Skip combinations by the enabled pruning terms (look-ahead on).
    use_a: bool,
    /// Skip combinations by Thm C.3 (look-ahead and C.3 on).
    use_c: bool,
    /// The a-priori leaf bound excludes every `d_split` of every child (look-ahead on):
    /// skip combinations whose child cannot beat R^c.
    apriori_kills: bool,
    opts: &'w [Vec<Opt>],
    /// Least remaining term sums from each split leaf on.
    rest: &'w [[f64; 3]],
}

struct Search<'a, 'm, M: Monitor> {
    data: &'a BinaryDataset,
    /// λ in weight units.
    pen: f64,
    total: f64,
    /// Rows of positive weight (for curiosity when `d_un` is empty, as the authors do).
    rows: f64,
    bounds: Bounds,
    policy: Policy,
    max_leaves: usize,
    limit: usize,
    budget: Budget<'m, M>,
    stopped: Option<Status>,
    leaves: LeafCache,
    trees: TreeStore,
    heap: BinaryHeap<Entry>,
    big: Vec<Vec<u64>>,
    big_free: Vec<u32>,
    big_bytes: usize,
    seq: u64,
    rc: f64,
    incumbent: Incumbent,
    stats: OsdtStats,
    work: u64,
    /// A proven lower bound (weight units) refreshed from time to time for the monitor.
    reported_lb: f64,
    next_lb_refresh: f64,
    /// Seconds per queued entry of the last [`Search::queue_bound`] pass: the final
    /// bound costs one more pass, which must fit before the time limit.
    bound_seconds_per_entry: f64,
    /// Full bound of the entry whose expansion a stop interrupted.
    expanding_bound: Option<f64>,
    scratch: LeafScratch,
    masks: MaskScratch,
}

impl<'a, 'm, M: Monitor> Search<'a, 'm, M> {
    /// Bytes held by the queue, the leaf cache and the tree store.
    fn bytes(&self) -> usize {
        self.leaves.bytes() + self.trees.bytes() + self.heap.capacity() * std::mem::size_of::<Entry>() + self.big_bytes
    }

    fn room(&self) -> usize {
        if self.limit == usize::MAX {
            usize::MAX
        } else {
            self.limit.saturating_sub(self.bytes())
        }
    }

    fn note_bytes(&mut self) {
        let b = self.bytes() as u64;
        if b > self.stats.peak_bytes {
            self.stats.peak_bytes = b;
        }
    }

    fn out_of_memory(&mut self) {
        if self.stopped.is_none() {
            self.stopped = Some(Status::MemoryLimit);
        }
    }

    /// Checks the clock and the monitor; true when the search must stop.
    fn poll(&mut self) -> bool {
        if self.stopped.is_some() {
            return true;
        }
        let (lb, obj, n) = (self.reported_lb.min(self.rc) / self.total, self.rc / self.total, self.stats.trees_evaluated);
        if let Some(s) = self.budget.poll(|elapsed| Progress { elapsed, lower_bound: lb, objective: obj, subproblems: n }) {
            self.stopped = Some(s);
        }
        self.stopped.is_some()
    }

    /// Counts a unit of work and polls every 1024 of them.
    #[inline]
    fn tick(&mut self) -> bool {
        self.work += 1;
        if self.work & 1023 == 0 {
            self.poll()
        } else {
            self.stopped.is_some()
        }
    }

    /// Statistics of the leaf whose capture set is in `scratch.capture`, and the features
    /// it may be split on (into `scratch.valid`).
    fn compute_leaf(&mut self, depth: u32) -> Leaf {
        let data = self.data;
        let s = &mut self.scratch;
        s.right.iter_mut().for_each(|r| *r = [0.0; 2]);
        s.right_groups.iter_mut().for_each(|r| *r = 0);
        let (mut t0, mut t1, mut b0, mut n) = (0.0, 0.0, 0.0, 0u32);
        let (right, right_groups) = (&mut s.right, &mut s.right_groups);
        for_each_one(&s.capture, |g| {
            let cw = data.class_weights(g);
            let (a, b) = (cw[0], cw.get(1).copied().unwrap_or(0.0));
            t0 += a;
            t1 += b;
            b0 += data.group_minority(g);
            n += 1;
            for &f in data.ones_of(g) {
                let r = &mut right[f as usize];
                r[0] += a;
                r[1] += b;
                right_groups[f as usize] += 1;
            }
        });
        let loss = if t1 > t0 { t0 } else { t1 };
        s.valid.iter_mut().for_each(|w| *w = 0);
        for f in 0..data.n_features() {
            let rg = s.right_groups[f];
            if rg == 0 || rg == n {
                continue; // one side empty: never useful
            }
            if self.bounds.accurate_support {
                let r = s.right[f];
                let correct_right = r[0].max(r[1]);
                let correct_left = (t0 - r[0]).max(t1 - r[1]);
                if correct_right <= self.pen || correct_left <= self.pen {
                    continue; // Thm 3.5: the feature is dead in this leaf
                }
            }
            s.valid[f / 64] |= 1u64 << (f % 64);
        }
        let dead = self.bounds.support && loss <= self.pen;
        let splittable = !dead && s.valid.iter().any(|&w| w != 0);
        Leaf { loss, support: t0 + t1, b0, depth, splittable }
    }

    /// Adds the leaf with clauses `scratch.key` and capture `scratch.capture`.
    fn add_leaf(&mut self, hash: u64, depth: u32) -> Option<u32> {
        let leaf = self.compute_leaf(depth);
        let mut room = self.room();
        let s = &self.scratch;
        let id = self.leaves.insert(&s.key, hash, leaf, &s.capture, &s.valid, &mut room);
        match id {
            Some(id) => {
                self.stats.leaves += 1;
                self.note_bytes();
                Some(id)
            }
            None => {
                self.out_of_memory();
                None
            }
        }
    }

    /// The leaf `parent ∧ (feature = value)`, from the leaf cache or computed.
    fn child_leaf(&mut self, parent: u32, feature: u32, value: bool) -> Option<u32> {
        let code = 2 * feature + value as u32;
        let pc = self.leaves.clauses(parent);
        let pos = pc.partition_point(|&c| c < code);
        let key = &mut self.scratch.key;
        key.clear();
        key.extend_from_slice(&pc[..pos]);
        key.push(code);
        key.extend_from_slice(&pc[pos..]);
        let hash = hash_u32s(key);
        if let Some(id) = self.leaves.find(key, hash) {
            return Some(id);
        }
        let fw = self.data.feature_words(feature as usize);
        let pcap = self.leaves.capture(parent);
        if value {
            and_into(&mut self.scratch.capture, pcap, fw);
        } else {
            and_not_into(&mut self.scratch.capture, pcap, fw);
        }
        let depth = self.leaves.get(parent).depth + 1;
        self.add_leaf(hash, depth)
    }

    /// b(d_un), b0(d_split), the support of d_un and |d_split| of the leaf set `leaves`
    /// (made at step `depth`) with the new leaves in `mask` split. Summed in the order of
    /// the leaf set, the same whenever an entry is bounded. Optionally lists d_un and
    /// d_split.
    fn sums(&self, leaves: &[u32], depth: u32, mask: &[u64], mut lists: Option<(&mut Vec<u32>, &mut Vec<u32>)>) -> Sums {
        let (mut loss, mut b0, mut support, mut n_split) = (0.0, 0.0, 0.0, 0usize);
        let mut new_leaves = 0usize;
        for &l in leaves {
            let leaf = self.leaves.get(l);
            let mut split = false;
            if leaf.depth == depth {
                split = mask[new_leaves / 64] >> (new_leaves % 64) & 1 == 1;
                new_leaves += 1;
            }
            if split {
                b0 += leaf.b0;
                n_split += 1;
            } else {
                loss += leaf.loss;
                support += leaf.support;
            }
            if let Some((un, sp)) = lists.as_mut() {
                if split {
                    sp.push(l);
                } else {
                    un.push(l);
                }
            }
        }
        Sums { b: loss + self.pen * leaves.len() as f64, b0, support_un: support, n_split }
    }

    /// Whether the bounds that are on exclude every descendant of a tree with these sums
    /// and `h` leaves.
    fn pruned(&self, s: &Sums, h: usize) -> bool {
        let bd = &self.bounds;
        if bd.leaf_count_apriori && h + s.n_split > self.max_leaves {
            return true;
        }
        if bd.hierarchical || bd.equivalent_points || bd.lookahead {
            let mut lb = 0.0;
            if bd.hierarchical {
                lb += s.b;
            }
            if bd.equivalent_points {
                lb += s.b0;
            }
            if bd.lookahead {
                lb += self.pen * s.n_split as f64;
            }
            if lb >= self.rc {
                return true;
            }
        }
        if bd.leaf_count_parent && self.pen > 0.0 {
            // Thm C.3: children of d have at most H + ⌊(R^c − b(d_un))/λ⌋ leaves.
            let room = ((self.rc - s.b) / self.pen + SLACK).floor();
            if s.n_split as f64 > room {
                return true;
            }
        }
        false
    }

    /// The lower bound every descendant of an entry obeys (all bounds together).
    #[inline]
    fn full_bound(&self, s: &Sums) -> f64 {
        s.b + s.b0 + self.pen * s.n_split as f64
    }

    /// The queue key of an entry.
    fn priority(&self, s: &Sums, objective: f64) -> f64 {
        match self.policy {
            Policy::Curiosity => {
                let supp = if s.support_un > 0.0 { s.support_un / self.total } else { 0.01 / self.rows };
                (s.b / self.total) / supp
            }
            Policy::LowerBound => s.b / self.total,
            Policy::Objective => objective / self.total,
            Policy::BreadthFirst | Policy::DepthFirst => 0.0,
        }
    }

    /// Queues tree `tree` with `mask` (words); false when memory ran out.
    fn push(&mut self, tree: u32, mask: &[u64], key: f64) -> bool {
        let mut room = self.room();
        let stored = if mask.len() == 1 {
            mask[0]
        } else {
            let bytes = mask.len() * 8 + 24;
            if bytes > room {
                self.out_of_memory();
                return false;
            }
            room -= bytes;
            self.big_bytes += bytes;
            match self.big_free.pop() {
                Some(i) => {
                    self.big[i as usize] = mask.to_vec();
                    i as u64
                }
                None => {
                    if !reserve(&mut self.big, 1, &mut room) {
                        self.out_of_memory();
                        return false;
                    }
                    self.big.push(mask.to_vec());
                    (self.big.len() - 1) as u64
                }
            }
        };
        if self.heap.len() == self.heap.capacity() {
            let size = std::mem::size_of::<Entry>();
            let need = 1;
            let add = self.heap.capacity().max(16).min(room / size);
            if add < need || self.heap.try_reserve_exact(add).is_err() {
                self.out_of_memory();
                return false;
            }
        }
        self.seq += 1;
        let order = if self.policy == Policy::DepthFirst { u64::MAX - self.seq } else { self.seq };
        self.heap.push(Entry { key, order, tree, mask: stored });
        self.trees.recs[tree as usize].refs += 1;
        if self.heap.len() as u64 > self.stats.peak_queue {
            self.stats.peak_queue = self.heap.len() as u64;
        }
        self.note_bytes();
        true
    }

    fn add_tree(&mut self, key: &[u32], hash: u64, depth: u32, n_new: u32) -> Option<u32> {
        let mut room = self.room();
        let id = self.trees.insert(key, hash, depth, n_new, &mut room);
        if id.is_none() {
            self.out_of_memory();
        } else {
            self.note_bytes();
        }
        id
    }

    /// Evaluates the child tree `un ∪ new` (made at step `depth`) of the expansion of
    /// `split` (new[2i], new[2i+1] are the halves of split[i]) and queues it with every
    /// admissible `d_split`.
    fn consider_child(&mut self, un: &[u32], split: &[u32], new: &[u32], depth: u32, key: &mut Vec<u32>, sorted_new: &mut Vec<u32>) {
        let mut bufs = std::mem::take(&mut self.masks);
        self.consider_child_with(un, split, new, depth, key, sorted_new, &mut bufs);
        self.masks = bufs;
    }

    #[allow(clippy::too_many_arguments)]
    fn consider_child_with(
        &mut self,
        un: &[u32],
        split: &[u32],
        new: &[u32],
        depth: u32,
        key: &mut Vec<u32>,
        sorted_new: &mut Vec<u32>,
        bufs: &mut MaskScratch,
    ) {
        sorted_new.clear();
        sorted_new.extend_from_slice(new);
        sorted_new.sort_unstable();
        key.clear();
        let (mut i, mut j) = (0, 0);
        while i < un.len() || j < sorted_new.len() {
            if j == sorted_new.len() || (i < un.len() && un[i] < sorted_new[j]) {
                key.push(un[i]);
                i += 1;
            } else {
                key.push(sorted_new[j]);
                j += 1;
            }
        }
        let hash = hash_u32s(key);
        let k = new.len();
        let mut tree = None;
        if self.bounds.permutation {
            if self.trees.find(key, hash).is_some() {
                return; // Corollary E.1: this leaf set was generated already
            }
            match self.add_tree(key, hash, depth, k as u32) {
                Some(id) => tree = Some(id),
                None => return,
            }
        }
        self.stats.leaf_sets += 1;
        let h = key.len();
        let objective = key.iter().map(|&l| self.leaves.get(l).loss).sum::<f64>() + self.pen * h as f64;
        if objective < self.rc {
            self.rc = objective;
            self.incumbent = Incumbent::Leaves(key.clone());
            self.stats.trees_to_optimum = self.stats.trees_evaluated;
            self.stats.time_to_optimum = self.budget.elapsed();
        }

        // Which new leaves may be split, and Thm 3.4's "split one of these two" sets.
        let words = words_for(k);
        let MaskScratch { avail, sub, needs } = bufs;
        avail.clear();
        avail.resize(words, 0);
        for (p, &l) in sorted_new.iter().enumerate() {
            if self.leaves.get(l).splittable {
                avail[p / 64] |= 1u64 << (p % 64);
            }
        }
        if avail.iter().all(|&w| w == 0) {
            return;
        }
        needs.clear();
        if self.bounds.incremental_accuracy {
            for (s, &parent) in split.iter().enumerate() {
                let (a, b) = (new[2 * s], new[2 * s + 1]);
                let gain = self.leaves.get(parent).loss - self.leaves.get(a).loss - self.leaves.get(b).loss;
                if gain <= self.pen {
                    let pa = sorted_new.binary_search(&a).unwrap_or(0);
                    let pb = sorted_new.binary_search(&b).unwrap_or(0);
                    let bit = |p: usize| avail[p / 64] >> (p % 64) & 1 == 1;
                    if !bit(pa) && !bit(pb) {
                        return; // neither half can be split: no admissible d_split
                    }
                    needs.push((pa, pb));
                }
            }
        }

        // Every non-empty subset of the splittable new leaves, largest first.
        sub.clear();
        sub.extend_from_slice(avail);
        loop {
            let has = |p: usize| sub[p / 64] >> (p % 64) & 1 == 1;
            if needs.iter().all(|&(a, b)| has(a) || has(b)) {
                let sums = self.sums(key, depth, sub, None);
                self.stats.trees_evaluated += 1;
                if !self.pruned(&sums, h) {
                    let id = match tree {
                        Some(id) => id,
                        None => match self.add_tree(key, hash, depth, k as u32) {
                            Some(id) => {
                                tree = Some(id);
                                id
                            }
                            None => return,
                        },
                    };
                    let prio = self.priority(&sums, objective);
                    if !self.push(id, sub, prio) {
                        return;
                    }
                    self.stats.trees_queued += 1;
                }
            }
            if self.tick() {
                return;
            }
            // sub = (sub - 1) & avail over the words; stop after the empty set.
            let mut borrow = true;
            for (w, &a) in sub.iter_mut().zip(avail.iter()) {
                if borrow {
                    let (v, under) = w.overflowing_sub(1);
                    *w = v;
                    borrow = under;
                }
                *w &= a;
            }
            if sub.iter().all(|&w| w == 0) {
                break;
            }
        }
    }

    /// Contributions of a new leaf to the separable lower bounds of [`Opt`].
    #[inline]
    fn leaf_terms(&self, l: u32) -> [f64; 3] {
        let leaf = self.leaves.get(l);
        let bd = &self.bounds;
        let keep = if bd.hierarchical { leaf.loss } else { 0.0 };
        let split = (if bd.equivalent_points { leaf.b0 } else { 0.0 }) + (if bd.lookahead { self.pen } else { 0.0 });
        if leaf.splittable {
            [keep.min(split), leaf.loss.min(self.pen), leaf.loss]
        } else {
            [keep, leaf.loss, leaf.loss]
        }
    }

    /// Expands an entry: splits every leaf of `split` on every combination of features
    /// (appendix G.4). With the look-ahead on, it is also applied to each combination
    /// before its child is built: a child matters only if it beats R^c or one of its
    /// `d_split` survives the bounds that are on, and its objective and the least value
    /// of each of those bounds over its `d_split` subsets are sums over the split leaves,
    /// so the product of features is walked by branch and bound on those sums and a
    /// combination is skipped exactly when its child could neither beat R^c nor be
    /// queued. Without the look-ahead every child is built and bounded on its own.
    fn expand(&mut self, un: &[u32], split: &[u32], depth: u32) {
        let mut opts: Vec<Vec<Opt>> = Vec::with_capacity(split.len());
        for &p in split {
            let valid: Vec<u64> = self.leaves.valid(p).to_vec();
            let mut list = Vec::new();
            let mut fail = false;
            for_each_one(&valid, |f| {
                // A child leaf costs a pass over the rows and the features: on wide data
                // the clock and Ctrl-C are polled for each one.
                if fail || self.poll() {
                    fail = true;
                    return;
                }
                match (self.child_leaf(p, f as u32, false), self.child_leaf(p, f as u32, true)) {
                    (Some(a), Some(b)) => {
                        let (ta, tb) = (self.leaf_terms(a), self.leaf_terms(b));
                        list.push(Opt { children: (a, b), terms: [ta[0] + tb[0], ta[1] + tb[1], ta[2] + tb[2]] });
                    }
                    _ => fail = true,
                }
            });
            if fail || list.is_empty() {
                return; // stopped or out of memory (split leaves always have a feature to split on)
            }
            // Smallest hierarchical/look-ahead/equivalent-points sum first; ties by feature.
            list.sort_by(|x, y| x.terms[0].total_cmp(&y.terms[0]));
            opts.push(list);
        }
        let s = split.len();
        let mut rest = vec![[0.0f64; 3]; s + 1];
        for i in (0..s).rev() {
            let next = rest[i + 1];
            for (t, r) in rest[i].iter_mut().enumerate() {
                *r = next[t] + opts[i].iter().map(|o| o.terms[t]).fold(f64::INFINITY, f64::min);
            }
        }
        let h = un.len() + 2 * s;
        let loss_un: f64 = un.iter().map(|&l| self.leaves.get(l).loss).sum();
        let base = loss_un + self.pen * h as f64;
        let bd = self.bounds;
        let walk = Walk {
            un,
            split,
            depth: depth + 1,
            base_a: if bd.hierarchical { base } else { 0.0 },
            base,
            use_a: bd.lookahead,
            use_c: bd.lookahead && bd.leaf_count_parent && self.pen > 0.0,
            apriori_kills: bd.lookahead && bd.leaf_count_apriori && h + 1 > self.max_leaves,
            opts: &opts,
            rest: &rest,
        };
        let mut new = Vec::with_capacity(2 * s);
        let (mut key, mut sorted_new) = (Vec::new(), Vec::new());
        self.walk(&walk, 0, [0.0; 3], &mut new, &mut key, &mut sorted_new);
    }

    /// Whether every completion of a partial combination with these sums (the least
    /// remaining sums added) is skipped; the second flag says the reason is the sorted
    /// term, so the later options of the same leaf are skipped as well.
    #[inline]
    fn hopeless(&self, w: &Walk, sums: [f64; 3]) -> (bool, bool) {
        if w.use_a && w.base_a + sums[0] >= self.rc {
            return (true, true);
        }
        if w.use_c && w.base + sums[1] > self.rc + SLACK * self.pen {
            return (true, false);
        }
        if w.apriori_kills && w.base + sums[2] >= self.rc {
            return (true, false);
        }
        (false, false)
    }

    fn walk(&mut self, w: &Walk, i: usize, partial: [f64; 3], new: &mut Vec<u32>, key: &mut Vec<u32>, sorted_new: &mut Vec<u32>) {
        if i == w.opts.len() {
            self.consider_child(w.un, w.split, new, w.depth, key, sorted_new);
            return;
        }
        for o in &w.opts[i] {
            let sums = [
                partial[0] + o.terms[0] + w.rest[i + 1][0],
                partial[1] + o.terms[1] + w.rest[i + 1][1],
                partial[2] + o.terms[2] + w.rest[i + 1][2],
            ];
            let (skip, rest_too) = self.hopeless(w, sums);
            if skip {
                if rest_too {
                    break;
                }
                continue;
            }
            new.push(o.children.0);
            new.push(o.children.1);
            let next = [partial[0] + o.terms[0], partial[1] + o.terms[1], partial[2] + o.terms[2]];
            self.walk(w, i + 1, next, new, key, sorted_new);
            new.truncate(new.len() - 2);
            if self.stopped.is_some() || self.tick() {
                return;
            }
        }
    }

    /// The entry's tree, d_un and d_split; frees the entry's big mask.
    fn decode(&mut self, e: &Entry, un: &mut Vec<u32>, split: &mut Vec<u32>) -> (Sums, u32, usize) {
        un.clear();
        split.clear();
        let rec = &self.trees.recs[e.tree as usize];
        let (depth, h) = (rec.depth, rec.leaves.len());
        let inline = [e.mask];
        let mask: &[u64] = if rec.n_new as usize <= 64 { &inline } else { &self.big[e.mask as usize] };
        let sums = self.sums(&rec.leaves, depth, mask, Some((un, split)));
        if rec.n_new as usize > 64 {
            self.big_bytes -= self.big[e.mask as usize].len() * 8 + 24;
            self.big[e.mask as usize] = Vec::new();
            self.big_free.push(e.mask as u32);
        }
        (sums, depth, h)
    }

    /// The smallest full bound over the queued entries (weight units).
    fn queue_bound(&self) -> f64 {
        let mut lb = f64::INFINITY;
        for e in self.heap.iter() {
            let rec = &self.trees.recs[e.tree as usize];
            let inline = [e.mask];
            let mask: &[u64] = if rec.n_new as usize <= 64 { &inline } else { &self.big[e.mask as usize] };
            let s = self.sums(&rec.leaves, rec.depth, mask, None);
            lb = lb.min(self.full_bound(&s));
        }
        lb
    }

    /// Refreshes the bound shown to the monitor (and the cost estimate of a pass), at
    /// most four times a second and never more than a tenth of the time.
    fn refresh_reported_bound(&mut self) {
        let now = self.budget.elapsed();
        if now < self.next_lb_refresh {
            return;
        }
        if self.bound_pass_seconds() * 3.0 > self.budget.time_left().unwrap_or(f64::INFINITY) {
            return; // the final pass is near: no refresh that would delay it
        }
        self.reported_lb = self.queue_bound();
        let after = self.budget.elapsed();
        self.bound_seconds_per_entry = (after - now) / self.heap.len().max(1) as f64;
        self.next_lb_refresh = after + (10.0 * (after - now)).max(0.25);
    }

    /// Estimated seconds of a [`Search::queue_bound`] pass over the queue as it is now.
    fn bound_pass_seconds(&self) -> f64 {
        self.bound_seconds_per_entry * self.heap.len() as f64
    }

    /// Stops the search (time limit) when the final bound pass would not fit in the
    /// time left, so that the whole search, its proven bound included, ends on time.
    fn stop_for_final_bound(&mut self) -> bool {
        let left = self.budget.time_left().unwrap_or(f64::INFINITY);
        if self.stopped.is_none() && 1.5 * self.bound_pass_seconds() >= left {
            self.stopped = Some(Status::TimeLimit);
        }
        self.stopped.is_some()
    }

    fn run(&mut self) {
        let (mut un, mut split) = (Vec::new(), Vec::new());
        let mut pops = 0u64;
        while let Some(e) = self.heap.pop() {
            pops += 1;
            // (`work` also counts inside expansions, so the queue keeps its own count)
            // (an expansion may queue thousands of trees: both checks look at the clock)
            if self.tick() || (pops & 15 == 0 && self.stop_for_final_bound()) {
                self.heap.push(e);
                break;
            }
            if pops & 15 == 0 {
                self.refresh_reported_bound();
            }
            let (sums, depth, h) = self.decode(&e, &mut un, &mut split);
            self.trees.release(e.tree);
            if self.pruned(&sums, h) {
                continue;
            }
            self.stats.expansions += 1;
            self.expand(&un, &split, depth);
            if self.stopped.is_some() {
                // The entry was not fully expanded: its bound still covers what is left.
                let b = self.full_bound(&sums);
                self.reported_lb = self.reported_lb.min(b);
                self.expanding_bound = Some(b);
                break;
            }
        }
    }
}

/// Rebuilds a tree from a leaf set: at every node, the lowest feature tested by all of
/// its leaves splits them (such a feature exists for every leaf set made by splits).
fn build_tree(data: &BinaryDataset, sets: Vec<Vec<u32>>, capture: &[u64], tree: &mut Tree) -> Result<usize> {
    let idx = tree.nodes.len();
    let mut class_weights = vec![0.0; data.n_classes()];
    data.class_totals(capture, &mut class_weights);
    tree.nodes.push(Node { feature: None, left: 0, right: 0, value: class_weights });
    if sets.len() <= 1 {
        return Ok(idx);
    }
    let internal = || Error::new("internal error: an OSDT leaf set does not form a tree; please report it");
    let f = (0..data.n_features() as u32)
        .find(|&f| sets.iter().all(|s| s.iter().any(|&c| c / 2 == f)))
        .ok_or_else(internal)?;
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for mut s in sets {
        let pos = s.iter().position(|&c| c / 2 == f).ok_or_else(internal)?;
        let value = s.remove(pos) & 1;
        if value == 1 {
            right.push(s);
        } else {
            left.push(s);
        }
    }
    if left.is_empty() || right.is_empty() {
        return Err(internal());
    }
    let fw = data.feature_words(f as usize);
    let (mut lcap, mut rcap) = (vec![0u64; capture.len()], vec![0u64; capture.len()]);
    and_not_into(&mut lcap, capture, fw);
    and_into(&mut rcap, capture, fw);
    let l = build_tree(data, left, &lcap, tree)?;
    let r = build_tree(data, right, &rcap, tree)?;
    let node = &mut tree.nodes[idx];
    node.feature = Some(f as usize);
    node.left = l;
    node.right = r;
    Ok(idx)
}

/// Finds the tree minimising misclassified weight / total weight + λ × leaves by OSDT's
/// branch and bound. On a limit or a stop request the best tree found (never worse than
/// the warm start) is returned with its status and a proven lower bound.
///
/// Errors: more than two classes (use GOSDT), a bad regularization or warm-start tree.
pub fn solve<M: Monitor>(data: &BinaryDataset, config: &OsdtConfig, monitor: &mut M) -> Result<OsdtResult> {
    let reg = config.regularization;
    if !reg.is_finite() || reg < 0.0 {
        return Err(Error::new(format!("regularization must be a finite number >= 0, got {reg}")));
    }
    if data.n_classes() > 2 {
        return Err(Error::new(format!(
            "OSDT handles binary classification only and this target has {} classes; \
             use GOSDTClassifier (treeopt_search::solve_gosdt), which handles any number of classes",
            data.n_classes()
        )));
    }
    let warm = match &config.warm_start {
        Some(t) => Some(prepare_warm_start(t, data)?),
        None => None,
    };
    let total = data.total_weight();
    let pen = reg * total;
    let rows: f64 = (0..data.n_groups()).map(|g| data.group_rows(g) as f64).sum();
    let m = data.n_features();
    let (gw, fw) = (data.words(), words_for(m).max(1));
    let mut search = Search {
        data,
        pen,
        total,
        rows,
        bounds: config.bounds,
        policy: config.policy,
        max_leaves: usize::MAX,
        limit: config.limits.memory_limit.unwrap_or(usize::MAX),
        budget: Budget::new(&config.limits, monitor),
        stopped: None,
        leaves: LeafCache::new(gw, fw),
        trees: TreeStore {
            recs: Vec::new(),
            table: HashTable::new(),
            free: Vec::new(),
            list_bytes: 0,
            cache: config.bounds.permutation,
        },
        heap: BinaryHeap::new(),
        big: Vec::new(),
        big_free: Vec::new(),
        big_bytes: 0,
        seq: 0,
        rc: f64::INFINITY,
        incumbent: Incumbent::Leaves(Vec::new()),
        stats: OsdtStats::default(),
        work: 0,
        reported_lb: 0.0,
        next_lb_refresh: 0.05,
        bound_seconds_per_entry: 0.0,
        expanding_bound: None,
        masks: MaskScratch::default(),
        scratch: LeafScratch {
            right: vec![[0.0; 2]; m],
            right_groups: vec![0; m],
            capture: data.all_groups().words().to_vec(),
            valid: vec![0; fw],
            key: Vec::new(),
        },
    };

    // The root leaf is the first incumbent; the warm start replaces it when better.
    let root = search.add_leaf(hash_u32s(&[]), 0);
    let warm_loss = warm.as_ref().map(|w| w.loss(data) + pen * w.n_leaves() as f64);
    let warm_objective = warm_loss.map(|obj| obj / total);
    if let Some(root) = root {
        let leaf = *search.leaves.get(root);
        search.rc = leaf.loss + pen;
        search.incumbent = Incumbent::Leaves(vec![root]);
        if let Some(obj) = warm_loss {
            if obj < search.rc {
                search.rc = obj;
                search.incumbent = Incumbent::WarmStart;
            }
        }
        if config.bounds.leaf_count_apriori && pen > 0.0 {
            // Thm C.1 with the initial incumbent R⁰ (Cor C.2: R⁰ <= 1/2 + λ).
            let cap = (search.rc / pen + SLACK).floor();
            search.max_leaves = if cap < usize::MAX as f64 { cap as usize } else { usize::MAX };
        }
        // Any tree but the root leaf has >= 2 leaves and loses at least b0 of the root.
        search.reported_lb = if leaf.splittable { (leaf.b0 + 2.0 * pen).min(search.rc) } else { search.rc };
        if leaf.splittable {
            let root_sums = Sums { b: pen, b0: leaf.b0, support_un: 0.0, n_split: 1 };
            if !search.pruned(&root_sums, 1) {
                if let Some(id) = search.add_tree(&[root], hash_u32s(&[root]), 0, 1) {
                    // The root is expanded first whatever the policy.
                    if search.push(id, &[1], f64::NEG_INFINITY) {
                        search.run();
                    }
                }
            }
        }
    } else {
        // Out of memory before the root leaf existed: the warm start (when better than
        // the single leaf, see below) is still the answer, never worse than it.
        search.out_of_memory();
        if warm.is_some() {
            search.incumbent = Incumbent::WarmStart;
        }
    }

    // The certificate: the incumbent is optimal once nothing is left to explore.
    let exhausted = search.stopped.is_none() && search.heap.is_empty();
    let mut lb = search.rc;
    if !exhausted {
        lb = lb.min(search.queue_bound());
        if let Some(b) = search.expanding_bound {
            lb = lb.min(b);
        }
        if root.is_none() {
            lb = 0.0;
        }
    }
    let single_leaf = || -> Result<Tree> {
        let mut t = Tree::default();
        build_tree(data, vec![Vec::new()], data.all_groups().words(), &mut t)?;
        Ok(t)
    };
    let tree = match (&search.incumbent, &warm) {
        (Incumbent::WarmStart, Some(w)) if root.is_none() => {
            let leaf = single_leaf()?;
            if leaf.objective(data, reg) < w.objective(data, reg) {
                leaf
            } else {
                w.clone()
            }
        }
        (Incumbent::WarmStart, Some(w)) => w.clone(),
        (Incumbent::Leaves(leaves), _) if !leaves.is_empty() => {
            let sets: Vec<Vec<u32>> = leaves.iter().map(|&l| search.leaves.clauses(l).to_vec()).collect();
            let mut t = Tree::default();
            build_tree(data, sets, data.all_groups().words(), &mut t)?;
            t
        }
        // Out of memory before the root leaf existed: return the single leaf.
        _ => single_leaf()?,
    };
    let objective = tree.objective(data, reg);
    let (status, lower_bound) = if exhausted {
        (Status::Optimal, objective)
    } else {
        (search.stopped.unwrap_or(Status::Interrupted), (lb / total).min(objective))
    };
    let mut stats = search.stats.clone();
    stats.peak_bytes = stats.peak_bytes.max(search.bytes() as u64);
    Ok(OsdtResult {
        result: SearchResult {
            labels: tree.nodes.iter().map(Node::prediction).collect(),
            splits: None,
            tree,
            objective,
            lower_bound,
            guessed_lower_bound: None,
            status,
            stats: Stats {
                subproblems: stats.leaf_sets,
                expansions: stats.expansions,
                seconds: search.budget.elapsed(),
                memory_bytes: search.bytes() as u64,
                ..Default::default()
            },
        },
        stats,
        warm_start_objective: warm_objective,
    })
}
