//! Property tests of the tree-structured PAV solver: an optimality (KKT) certificate of
//! the forward pass that does not use the algorithm, a from-scratch reference PAV,
//! finite differences of the backward pass, determinism and the absence of allocations
//! after warm-up.

use proptest::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::mem::MaybeUninit;
use treeopt_isotonic::{nodes_for_depth, Pooling, TreePav, UninitOutput};

// ---------------------------------------------------------------- counting allocator

/// Counts the allocations of the current thread (tests run on several threads).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCATIONS.with(|c| c.get())
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

// ---------------------------------------------------------------- problems

#[derive(Debug, Clone)]
struct Problem {
    q: Vec<f64>,
    n: usize,
    t: usize,
    lam: f64,
}

/// Random problems: depth 0-4, 1-40 rows, lam from 1e-3 to 1e3 (and exactly 0), scores
/// drawn on a coarse grid (ties) or continuously, inside and outside [-1/2, 1/2].
fn problem() -> impl Strategy<Value = Problem> {
    (
        0usize..=4,
        1usize..=40,
        prop_oneof![Just(0.0), (-3.0f64..3.0).prop_map(|e| 10f64.powf(e))],
        any::<bool>(),
    )
        .prop_flat_map(|(depth, n, lam, grid)| {
            let t = nodes_for_depth(depth).unwrap();
            let value = if grid {
                (-6i32..=6).prop_map(|k| k as f64 * 0.25).boxed()
            } else {
                (-2.0f64..2.0).boxed()
            };
            proptest::collection::vec(value, n * t).prop_map(move |q| Problem { q, n, t, lam })
        })
}

/// A xorshift64 stream from `seed`: its top 53 bits per draw, as a float.
fn xorshift53(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64
    }
}

/// N(0, 1) draws from `seed` (Box-Muller over uniforms in (0, 1) from [`xorshift53`]).
fn normals(seed: u64) -> impl FnMut() -> f64 {
    let mut bits = xorshift53(seed);
    let mut uniform = move || (bits() + 0.5) / (1u64 << 53) as f64;
    move || {
        let (u, v) = (uniform(), uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// Larger batches (the regime of the estimators, where the solver drops most values
/// before sorting and sorts a column's lower part only when its node is pooled): depth
/// 0-6, 100-600 rows, normal scores shifted so that some trees pool a lot, lam from 1e-3
/// to 1e3 (and exactly 0).
fn large_problem() -> impl Strategy<Value = Problem> {
    (
        0usize..=6,
        100usize..=600,
        prop_oneof![Just(0.0), (-3.0f64..3.0).prop_map(|e| 10f64.powf(e))],
        -1.0f64..1.0,
        any::<u64>(),
    )
        .prop_map(|(depth, n, lam, drift, seed)| {
            let t = nodes_for_depth(depth).unwrap();
            let mut normal = normals(seed);
            // drift > 0: deeper nodes score higher than their parents (much pooling)
            let q = (0..n * t).map(|k| normal() + drift * ((k % t + 1) as f64).log2()).collect();
            Problem { q, n, t, lam }
        })
}

/// Deep trees, small batches, heavy pooling: the regime where pooled groups gather many
/// columns (the solver then merges their runs and compacts its run arena, and a group
/// whose Newton search runs out of its work account moves to a treap). Depth 5-8, 1-6
/// rows, lam from 1e-2 to 1e2 (and exactly 0), three kinds of scores: `chain` (the
/// root's values <= 0 above nodes that all share one column of values, so the root's
/// group absorbs the tree one node at a time, with ties between nodes everywhere),
/// `drift` (N(0, 1) plus depth: children beat parents, groups pool bottom up) and
/// `grid` (drift rounded to a 0.25 grid: ties within and between columns).
fn deep_problem() -> impl Strategy<Value = Problem> {
    (
        5usize..=8,
        1usize..=6,
        prop_oneof![Just(0.0), (-2.0f64..2.0).prop_map(|e| 10f64.powf(e))],
        0u8..3,
        any::<u64>(),
    )
        .prop_map(|(depth, n, lam, kind, seed)| {
            let t = nodes_for_depth(depth).unwrap();
            let mut normal = normals(seed);
            let level = |k: usize| ((k % t + 1) as f64).log2().floor();
            let q: Vec<f64> = match kind {
                0 => {
                    let rows: Vec<f64> = (0..n).map(|_| 0.3 + 0.2 * normal()).collect();
                    (0..n * t).map(|k| if k % t == 0 { -1.0 } else { rows[k / t] }).collect()
                }
                1 => (0..n * t).map(|k| normal() + 0.3 * level(k)).collect(),
                _ => (0..n * t).map(|k| ((normal() + 0.3 * level(k)) * 4.0).round() / 4.0).collect(),
            };
            Problem { q, n, t, lam }
        })
}

fn solve(p: &Problem, pav: &mut TreePav) -> (Vec<f64>, Vec<f64>) {
    let mut a = vec![0.0; p.t];
    let mut z = vec![0.0; p.n * p.t];
    pav.forward(&p.q, p.n, p.t, p.lam, &mut a, &mut z).unwrap();
    (a, z)
}

/// Derivative of the unconstrained node objective g_t(a) = lam a^2/2 + sum_i (v_it - a)_+^2 / 2.
fn node_derivative(p: &Problem, t: usize, a: f64) -> f64 {
    let mut d = p.lam * a;
    for i in 0..p.n {
        let v = p.q[i * p.t + t] + 0.5;
        if v > a {
            d -= v - a;
        }
    }
    d
}

/// Reference PAV written from the paper with no cleverness: every pooling re-sorts the
/// whole group and walks Proposition 2 from the top; the largest violator is found by a
/// full scan. Returns the unclipped node values.
fn reference_values(p: &Problem) -> Vec<f64> {
    let t_count = p.t;
    let solve_group = |members: &[usize]| -> f64 {
        let mut vals: Vec<f64> = members
            .iter()
            .flat_map(|&t| (0..p.n).map(move |i| p.q[i * t_count + t] + 0.5))
            .collect();
        vals.sort_by(|x, y| y.partial_cmp(x).unwrap());
        let c = p.lam * members.len() as f64;
        let mut s = 0.0;
        for (k, &v) in vals.iter().enumerate() {
            if k > 0 || c > 0.0 {
                let a = s / (c + k as f64);
                if a > v {
                    return a;
                }
            }
            s += v;
        }
        s / (c + vals.len() as f64)
    };
    let mut color: Vec<usize> = (0..t_count).collect();
    let mut value: Vec<f64> = (0..t_count).map(|t| solve_group(&[t])).collect();
    loop {
        let mut best: Option<usize> = None;
        for t in 1..t_count {
            let pt = (t - 1) / 2;
            if value[t] > value[pt]
                && match best {
                    None => true,
                    Some(b) => value[t] > value[b],
                }
            {
                best = Some(t);
            }
        }
        let Some(t) = best else { break };
        let (from, to) = (color[t], color[(t - 1) / 2]);
        for c in color.iter_mut() {
            if *c == from {
                *c = to;
            }
        }
        let members: Vec<usize> = (0..t_count).filter(|&u| color[u] == to).collect();
        let v = solve_group(&members);
        for &u in &members {
            value[u] = v;
        }
    }
    value
}

fn scale(p: &Problem) -> f64 {
    1.0 + p.lam + p.q.iter().map(|x| (x + 0.5).abs()).sum::<f64>()
}

/// KKT certificate of the unconstrained tree-isotonic problem for the unclipped values
/// r (multipliers of the edges computed bottom-up), then a = clip(r, 0, 1) and
/// z = clip(q + 1/2, 0, a).
fn check_kkt(p: &Problem) -> Result<(), TestCaseError> {
    let mut pav = TreePav::new();
    let (a, z) = solve(p, &mut pav);
    let r: Vec<f64> = (0..p.t).map(|t| pav.node_info(t).unwrap().value).collect();
    let tol = 1e-9 * scale(p);
    let mut mu = vec![0.0; p.t]; // multiplier of the edge (t, parent(t))
    for t in (0..p.t).rev() {
        let children: f64 = [2 * t + 1, 2 * t + 2].iter().filter(|&&c| c < p.t).map(|&c| mu[c]).sum();
        mu[t] = children - node_derivative(p, t, r[t]);
        if t > 0 {
            let pt = (t - 1) / 2;
            prop_assert!(r[t] <= r[pt], "order violated at {t}: {} > {}", r[t], r[pt]);
            prop_assert!(mu[t] >= -tol, "negative multiplier {} at {t}", mu[t]);
            if r[t] < r[pt] {
                prop_assert!(mu[t].abs() <= tol, "inactive edge {t} has multiplier {}", mu[t]);
            }
        }
    }
    prop_assert!(mu[0].abs() <= tol, "root stationarity {}", mu[0]);
    for t in 0..p.t {
        prop_assert_eq!(a[t], r[t].clamp(0.0, 1.0));
        for i in 0..p.n {
            let v = p.q[i * p.t + t] + 0.5;
            prop_assert_eq!(z[i * p.t + t], v.clamp(0.0, a[t]));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The KKT certificate of `check_kkt`.
    #[test]
    fn forward_satisfies_the_kkt_conditions(p in problem()) {
        check_kkt(&p)?;
    }

    /// The same values as a plain from-scratch implementation of Algorithm 1.
    #[test]
    fn forward_matches_the_reference_pav(p in problem()) {
        let mut pav = TreePav::new();
        solve(&p, &mut pav);
        let reference = reference_values(&p);
        for (t, expected) in reference.iter().enumerate() {
            let ours = pav.node_info(t).unwrap().value;
            prop_assert!((ours - expected).abs() <= 1e-12 * scale(&p), "node {t}: {ours} vs {expected}");
        }
    }

    /// Support sets are exactly the values >= the group value (Proposition 2).
    #[test]
    fn supports_are_the_values_above_the_group_value(p in problem()) {
        let mut pav = TreePav::new();
        solve(&p, &mut pav);
        for t in 0..p.t {
            let info = pav.node_info(t).unwrap();
            let total: usize = (0..p.t).filter(|&u| pav.node_info(u).unwrap().group == info.group)
                .map(|u| pav.node_info(u).unwrap().support_rows.len()).sum();
            let size = (0..p.t).filter(|&u| pav.node_info(u).unwrap().group == info.group).count();
            prop_assert!((info.denominator - (p.lam * size as f64 + total as f64)).abs() < 1e-9);
            for i in 0..p.n {
                let v = p.q[i * p.t + t] + 0.5;
                let inside = info.support_rows.contains(&(i as u32));
                if v > info.value + 1e-12 && (p.lam == 0.0 || v > 0.0) {
                    prop_assert!(inside, "row {i} node {t}: v = {v} > a = {} but not in the support", info.value);
                }
                if v < info.value - 1e-12 {
                    prop_assert!(!inside, "row {i} node {t}: v = {v} < a = {} but in the support", info.value);
                }
            }
        }
    }

    /// Backward pass = central finite differences of L = <ga, a> + <gz, z>, away from
    /// kinks (the groups, supports and z-branches must not change within +-eps).
    #[test]
    fn backward_matches_finite_differences(
        p in problem().prop_filter("continuous", |p| p.lam > 0.0),
        seed in any::<u64>(),
    ) {
        let mut bits = xorshift53(seed);
        let mut next = move || bits() / (1u64 << 53) as f64 * 2.0 - 1.0;
        // continuous scores only: jitter the grid
        let q: Vec<f64> = p.q.iter().map(|&x| x + 1e-3 * next()).collect();
        let p = Problem { q, ..p };
        let ga: Vec<f64> = (0..p.t).map(|_| next()).collect();
        let gz: Vec<f64> = (0..p.n * p.t).map(|_| next()).collect();
        let dir: Vec<f64> = (0..p.n * p.t).map(|_| next()).collect();
        let mut pav = TreePav::new();
        solve(&p, &mut pav);
        let mut grad_q = vec![0.0; p.n * p.t];
        pav.backward(&p.q, &ga, &gz, &mut grad_q).unwrap();
        let analytic: f64 = grad_q.iter().zip(&dir).map(|(g, d)| g * d).sum();

        let eps = 1e-7;
        let signature = |pav: &TreePav, z: &[f64], a: &[f64]| -> Vec<(usize, Vec<u32>, u8)> {
            (0..p.t).flat_map(|t| {
                let info = pav.node_info(t).unwrap();
                let mut rows = info.support_rows.to_vec();
                rows.sort();
                let clip = if info.value <= 0.0 { 0 } else if info.value >= 1.0 { 2 } else { 1 };
                let mut out = vec![(info.group, rows, clip)];
                for i in 0..p.n {
                    let zi = z[i * p.t + t];
                    out.push((i, vec![], if zi == a[t] { 3 } else if zi == 0.0 { 4 } else { 5 }));
                }
                out
            }).collect()
        };
        let (a0, z0) = solve(&p, &mut pav);
        let base = signature(&pav, &z0, &a0);
        let loss = |sign: f64, pav: &mut TreePav| -> Option<f64> {
            let q: Vec<f64> = p.q.iter().zip(&dir).map(|(x, d)| x + sign * eps * d).collect();
            let (a, z) = solve(&Problem { q, ..p.clone() }, pav);
            if signature(pav, &z, &a) != base {
                return None;
            }
            Some(ga.iter().zip(&a).map(|(g, x)| g * x).sum::<f64>() + gz.iter().zip(&z).map(|(g, x)| g * x).sum::<f64>())
        };
        let (Some(plus), Some(minus)) = (loss(1.0, &mut pav), loss(-1.0, &mut pav)) else {
            return Ok(()); // a kink within eps: finite differences are not defined there
        };
        let numeric = (plus - minus) / (2.0 * eps);
        prop_assert!((numeric - analytic).abs() <= 1e-5 * (1.0 + analytic.abs()), "fd {numeric} vs backward {analytic}");
    }

    /// Same input, same output, bit for bit, whatever the solver solved before.
    #[test]
    fn forward_and_backward_are_deterministic(p in problem(), other in problem()) {
        let mut fresh = TreePav::new();
        let (a1, z1) = solve(&p, &mut fresh);
        let mut reused = TreePav::new();
        solve(&other, &mut reused);
        let (a2, z2) = solve(&p, &mut reused);
        prop_assert_eq!(a1.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), a2.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        prop_assert_eq!(z1.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), z2.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        let ga = vec![0.5; p.t];
        let gz: Vec<f64> = (0..p.n * p.t).map(|k| (k % 7) as f64 - 3.0).collect();
        let (mut g1, mut g2) = (vec![0.0; p.n * p.t], vec![0.0; p.n * p.t]);
        fresh.backward(&p.q, &ga, &gz, &mut g1).unwrap();
        reused.backward(&p.q, &ga, &gz, &mut g2).unwrap();
        prop_assert_eq!(g1.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), g2.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    }
}

proptest! {
    // fewer cases: the reference re-sorts whole groups at every pooling
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The same certificate, and the same values as the reference, on larger batches.
    #[test]
    fn large_batches_satisfy_the_kkt_conditions_and_match_the_reference(p in large_problem()) {
        check_kkt(&p)?;
        let mut pav = TreePav::new();
        solve(&p, &mut pav);
        for (t, expected) in reference_values(&p).iter().enumerate() {
            let ours = pav.node_info(t).unwrap().value;
            prop_assert!((ours - expected).abs() <= 1e-12 * scale(&p), "node {t}: {ours} vs {expected}");
        }
    }
}

proptest! {
    // fewer cases: the reference re-sorts whole groups at every pooling
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Deep trees and small batches with heavy pooling, solved on the default path (runs
    /// and Newton, with the work account) and with every pooled group forced onto the
    /// treap path (work factor 0): both give the reference's values, supports that are
    /// exactly the values above the group value, and the same gradients.
    #[test]
    fn deep_trees_match_the_reference_on_both_paths(p in deep_problem()) {
        check_kkt(&p)?;
        let reference = reference_values(&p);
        let ga: Vec<f64> = (0..p.t).map(|t| ((t * 37) % 11) as f64 - 5.0).collect();
        let gz: Vec<f64> = (0..p.n * p.t).map(|k| ((k * 13) % 7) as f64 - 3.0).collect();
        let mut grads = Vec::new();
        for factor in [None, Some(0)] {
            let mut pav = TreePav::new();
            // the runs, Newton and treap machinery is the violator heap's
            pav.set_pooling(Pooling::Violators);
            if let Some(f) = factor {
                pav.set_work_factor(f);
            }
            let (a, z) = solve(&p, &mut pav);
            for (t, expected) in reference.iter().enumerate() {
                let info = pav.node_info(t).unwrap();
                prop_assert!((info.value - expected).abs() <= 1e-12 * scale(&p), "{factor:?} node {t}: {} vs {expected}", info.value);
                prop_assert_eq!(a[t], info.value.clamp(0.0, 1.0));
                for i in 0..p.n {
                    let v = p.q[i * p.t + t] + 0.5;
                    prop_assert_eq!(z[i * p.t + t], v.clamp(0.0, a[t]));
                    let inside = info.support_rows.contains(&(i as u32));
                    if v > info.value + 1e-12 && (p.lam == 0.0 || v > 0.0) {
                        prop_assert!(inside, "{factor:?} row {i} node {t}: v = {v} > a = {}, not in the support", info.value);
                    }
                    if v < info.value - 1e-12 {
                        prop_assert!(!inside, "{factor:?} row {i} node {t}: v = {v} < a = {}, in the support", info.value);
                    }
                }
            }
            if factor == Some(0) && pav.n_groups() < p.t {
                prop_assert!(pav.n_treap_groups() > 0, "work factor 0 pooled without a treap");
            }
            let mut gq = vec![0.0; p.n * p.t];
            pav.backward(&p.q, &ga, &gz, &mut gq).unwrap();
            grads.push(gq);
        }
        // same supports up to ties exactly at the group value, where the paths may round
        // differently: compare only away from them
        let near_tie = (0..p.t).any(|t| {
            let r = reference[t];
            (0..p.n).any(|i| (p.q[i * p.t + t] + 0.5 - r).abs() <= 1e-9 * scale(&p))
        });
        if !near_tie {
            for (k, (x, y)) in grads[0].iter().zip(&grads[1]).enumerate() {
                prop_assert!((x - y).abs() <= 1e-9 * (1.0 + x.abs()), "gradient {k}: {x} vs {y}");
            }
        }
    }
}

/// Forward and backward with the nodes pooled one way (and, bottom up, a budget of
/// merges that may run out): node values, `z`, `dL/dq` and each node's group, value,
/// denominator and support rows.
#[allow(clippy::type_complexity)]
fn solve_pooled(p: &Problem, pooling: Pooling, merge_copies: Option<u64>) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<(usize, f64, f64, Vec<u32>)>) {
    let mut pav = TreePav::new();
    pav.set_pooling(pooling);
    if let Some(copies) = merge_copies {
        pav.set_merge_copies(copies);
    }
    let (a, z) = solve(p, &mut pav);
    let info = (0..p.t)
        .map(|t| {
            let i = pav.node_info(t).unwrap();
            (i.group, i.value, i.denominator, i.support_rows.to_vec())
        })
        .collect();
    let ga: Vec<f64> = (0..p.t).map(|t| ((t * 37) % 11) as f64 - 5.0).collect();
    let gz: Vec<f64> = (0..p.n * p.t).map(|k| ((k * 13) % 7) as f64 - 3.0).collect();
    let mut gq = vec![0.0; p.n * p.t];
    pav.backward(&p.q, &ga, &gz, &mut gq).unwrap();
    (a, z, gq, info)
}

/// Problems for comparing the two ways of pooling: depth 0-7, 1-70 rows (both sides of
/// `BOTTOM_UP_ROWS`), `lam > 0` (1 and 1/2 exactly, which make exact ties between a
/// group's value and its scores, or 10^-3 to 10^2), scores continuous, on a coarse grid (ties) or drifting
/// with depth (pooling bottom up across many levels).
fn pooling_problem() -> impl Strategy<Value = Problem> {
    (0usize..=7, 1usize..=70, prop_oneof![Just(1.0), Just(0.5), (-3.0f64..2.0).prop_map(|e| 10f64.powf(e))], 0u8..3, any::<u64>())
        .prop_map(|(depth, n, lam, kind, seed)| {
            let t = nodes_for_depth(depth).unwrap();
            let mut normal = normals(seed);
            let q = (0..n * t)
                .map(|k| {
                    let x = normal();
                    match kind {
                        0 => x,
                        1 => (4.0 * x).round() / 8.0,
                        _ => 0.3 * x + 0.15 * ((k % t) + 1).ilog2() as f64 - 0.4,
                    }
                })
                .collect();
            Problem { q, n, t, lam }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Bottom-up pooling gives what the violator heap gives: node values and `z` to
    /// 1e-12, and the same groups, denominators, supports and (to 1e-12) gradients,
    /// except where two adjacent groups end with exactly equal values (then either may
    /// pool them: another Clarke gradient), which only ties in the scores make. With a
    /// merge budget of 0 to 3 copies per slot (the default or none at all when the
    /// budget is `None`), bottom-up pooling stops at some node, possibly in the middle
    /// of its pooling, and the violator heap continues from its groups.
    #[test]
    fn bottom_up_pooling_matches_the_violator_heap(p in pooling_problem(), copies in prop_oneof![Just(None), (0u64..4).prop_map(Some)]) {
        let (a0, z0, g0, info0) = solve_pooled(&p, Pooling::Violators, None);
        let (a1, z1, g1, info1) = solve_pooled(&p, Pooling::BottomUp, copies);
        let tol = 1e-12 * scale(&p);
        for (x, y) in a0.iter().zip(&a1).chain(z0.iter().zip(&z1)) {
            prop_assert!((x - y).abs() <= tol, "{x} vs {y}");
        }
        for t in 0..p.t {
            prop_assert!((info0[t].1 - info1[t].1).abs() <= tol, "node {t}: value {} vs {}", info0[t].1, info1[t].1);
        }
        let adjacent_tie = |info: &[(usize, f64, f64, Vec<u32>)]| {
            (1..p.t).any(|t| info[t].0 == t && info[info[(t - 1) / 2].0].1 == info[t].1)
        };
        let same_groups = info0.iter().zip(&info1).all(|(x, y)| (x.0, x.2, &x.3) == (y.0, y.2, &y.3));
        if !same_groups {
            prop_assert!(adjacent_tie(&info0) && adjacent_tie(&info1), "groups differ without a tie");
        } else {
            for (k, (x, y)) in g0.iter().zip(&g1).enumerate() {
                prop_assert!((x - y).abs() <= 1e-12 * (1.0 + x.abs()), "gradient {k}: {x} vs {y}");
            }
        }
    }
}

/// A chain that the root's group absorbs node by node (the root has no candidate, every
/// other node the same scores) overdraws the merge budget of bottom-up pooling in the
/// middle of the root's pooling, and the violator heap pools the rest from there: the
/// violator heap's solution, the same group, denominators and supports, and values,
/// `z` and gradients to 1e-12 (the group's sums are added in another order).
#[test]
fn bottom_up_pooling_past_its_budget_gives_the_violator_heaps_solution() {
    for (depth, n) in [(8, 1), (6, 3)] {
        let t = nodes_for_depth(depth).unwrap();
        let q = (0..n * t).map(|k| if k % t == 0 { -1.0 } else { 0.3 + 0.01 * (k / t) as f64 }).collect();
        let p = Problem { q, n, t, lam: 1.0 };
        let (a0, z0, g0, info0) = solve_pooled(&p, Pooling::Violators, None);
        let (a1, z1, g1, info1) = solve_pooled(&p, Pooling::BottomUp, None);
        assert_eq!(info0.iter().filter(|x| x.0 == 0).count(), t, "the root's group holds every node");
        let close = |x: &[f64], y: &[f64]| x.len() == y.len() && x.iter().zip(y).all(|(x, y)| (x - y).abs() <= 1e-12 * (1.0 + x.abs()));
        assert!(close(&a0, &a1) && close(&z0, &z1) && close(&g0, &g1), "values, z or gradients differ");
        for (x, y) in info0.iter().zip(&info1) {
            assert_eq!((x.0, x.2, &x.3), (y.0, y.2, &y.3), "groups, denominators or supports differ");
            assert!((x.1 - y.1).abs() <= 1e-12, "group values {} vs {}", x.1, y.1);
        }
    }
}

/// The next uniform in [0, 1) of a 64-bit linear congruential stream (Knuth's MMIX
/// constants), advancing `state`.
fn lcg(state: &mut u64) -> f64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*state >> 11) as f64 / (1u64 << 53) as f64
}

/// The scores and buffers of forward and backward passes over `n` rows of a tree of
/// the given depth (`t` nodes), with fixed gradients, so that a test can run passes
/// without allocating itself.
struct Passes {
    n: usize,
    t: usize,
    q: Vec<f64>,
    a: Vec<f64>,
    z: Vec<f64>,
    grad_q: Vec<f64>,
    grad_a: Vec<f64>,
    grad_z: Vec<f64>,
}

impl Passes {
    fn new(n: usize, depth: usize) -> Self {
        let t = nodes_for_depth(depth).unwrap();
        let (q, a, z, grad_q) = (vec![0.0; n * t], vec![0.0; t], vec![0.0; n * t], vec![0.0; n * t]);
        Passes { n, t, q, a, z, grad_q, grad_a: vec![1.0; t], grad_z: vec![0.5; n * t] }
    }

    /// One forward and one backward pass of `pav` on the scores `q`.
    fn run(&mut self, pav: &mut TreePav, lam: f64) {
        pav.forward(&self.q, self.n, self.t, lam, &mut self.a, &mut self.z).unwrap();
        pav.backward(&self.q, &self.grad_a, &self.grad_z, &mut self.grad_q).unwrap();
    }
}

#[test]
fn no_allocation_after_warm_up() {
    let (mut pav, mut passes) = (TreePav::new(), Passes::new(64, 5));
    let mut state = 12345u64;
    let mut refill = |q: &mut [f64]| q.iter_mut().for_each(|x| *x = lcg(&mut state) * 3.0 - 1.5);
    // warm-up on the largest problem of this shape: every value a candidate (equal
    // scores and lam = 0), so that every buffer sized by the candidates is at its most
    passes.q.fill(0.25);
    passes.run(&mut pav, 0.0);
    let before = allocations();
    for round in 0..20 {
        refill(&mut passes.q);
        passes.run(&mut pav, [0.0, 0.01, 1.0, 100.0][round % 4]);
    }
    let after = allocations();
    assert_eq!(after - before, 0, "forward/backward allocated after warm-up");
}

#[test]
fn no_allocation_after_warm_up_on_deep_trees() {
    // deep tree, small batch, heavy pooling (merged runs, arena compactions), on the
    // default path and with every pooled group on the treap path
    let (n, depth) = (4, 9);
    let t = nodes_for_depth(depth).unwrap();
    let mut state = 777u64;
    let mut refill = |q: &mut [f64], chain: bool| {
        for i in 0..n {
            let row = 0.2 + 0.4 * lcg(&mut state);
            for j in 0..t {
                let noise = lcg(&mut state) - 0.5;
                let level = ((j + 1) as f64).log2().floor();
                q[i * t + j] = match (chain, j) {
                    (true, 0) => -1.0,
                    (true, _) => row,
                    (false, _) => noise + 0.3 * level,
                };
            }
        }
    };
    for factor in [None, Some(0)] {
        let (mut pav, mut passes) = (TreePav::new(), Passes::new(n, depth));
        if let Some(f) = factor {
            pav.set_work_factor(f);
        }
        refill(&mut passes.q, true);
        passes.run(&mut pav, 0.0);
        let before = allocations();
        for round in 0..12 {
            refill(&mut passes.q, round % 2 == 0);
            let lam = [0.0, 0.01, 1.0, 100.0][round % 4];
            passes.run(&mut pav, lam);
            if lam > 0.0 {
                assert!(pav.n_groups() < t / 2, "{factor:?} round {round}: too little pooling to test");
            }
        }
        let after = allocations();
        assert_eq!(after - before, 0, "{factor:?}: forward/backward allocated after warm-up");
    }
}

/// `z` and `dL/dq` of a solved problem computed value by value from the node values and
/// the groups' supports (`pav.node_info`), with the gradients to `a` added up row by
/// row in the order of the rows, as the passes do.
fn direct_outputs(p: &Problem, pav: &TreePav, ga: &[f64], gz: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (n, t) = (p.n, p.t);
    let a: Vec<f64> = (0..t).map(|u| pav.node_info(u).unwrap().value.clamp(0.0, 1.0)).collect();
    let (mut z, mut gq, mut ga_eff) = (vec![0.0; n * t], vec![0.0; n * t], ga.to_vec());
    for i in 0..n {
        for u in 0..t {
            let (v, g) = (p.q[i * t + u] + 0.5, gz[i * t + u]);
            z[i * t + u] = v.min(a[u]).max(0.0);
            gq[i * t + u] = if v > 0.0 && v < a[u] { g } else { 0.0 };
            ga_eff[u] += (if v >= a[u] { g } else { 0.0 }) + 0.0;
        }
    }
    for top in 0..t {
        let info = pav.node_info(top).unwrap();
        if info.group != top || !(info.value > 0.0 && info.value < 1.0) {
            continue;
        }
        let members: Vec<usize> = (0..t).filter(|&u| pav.node_info(u).unwrap().group == top).collect();
        let coef = members.iter().map(|&u| ga_eff[u]).sum::<f64>() / info.denominator;
        for &u in &members {
            for &i in pav.node_info(u).unwrap().support_rows {
                gq[i as usize * t + u] += coef;
            }
        }
    }
    (z, gq)
}

/// Problems with up to 300 rows of up to 255 nodes, so that the passes that write `z`
/// and `dL/dq` in tiles of whole rows meet tiles of one and of many rows and a last
/// tile of fewer rows.
fn tiled_problem() -> impl Strategy<Value = Problem> {
    (0usize..=7, 1usize..=300, (-2.0f64..2.0).prop_map(|e| 10f64.powf(e)), any::<u64>()).prop_map(|(depth, n, lam, seed)| {
        let t = nodes_for_depth(depth).unwrap();
        let mut normal = normals(seed);
        Problem { q: (0..n * t).map(|_| normal()).collect(), n, t, lam }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// `z` and `dL/dq` are those of `direct_outputs` (to rounding: the gradient to a
    /// group's value sums its members' gradients in another order), whichever kind of
    /// output they are written to (a slice, a vector, memory without values).
    #[test]
    fn outputs_match_a_value_by_value_computation(p in tiled_problem(), seed in any::<u64>()) {
        let (n, t) = (p.n, p.t);
        let mut normal = normals(seed);
        let ga: Vec<f64> = (0..t).map(|_| normal()).collect();
        let gz: Vec<f64> = (0..n * t).map(|_| normal()).collect();
        let mut pav = TreePav::new();
        let (_, z) = solve(&p, &mut pav);
        let mut gq = vec![0.0; n * t];
        pav.backward(&p.q, &ga, &gz, &mut gq[..]).unwrap();
        let (z_direct, gq_direct) = direct_outputs(&p, &pav, &ga, &gz);
        prop_assert_eq!(&z, &z_direct);
        for (k, (x, y)) in gq.iter().zip(&gq_direct).enumerate() {
            prop_assert!((x - y).abs() <= 1e-12 * (1.0 + y.abs()), "value {k}: {x} vs {y}");
        }
        // a vector and memory without values get the same bits as the slice
        let (mut a_v, mut z_v, mut gq_v) = (vec![0.0; t], Vec::new(), Vec::new());
        pav.forward(&p.q, n, t, p.lam, &mut a_v, &mut z_v).unwrap();
        pav.backward(&p.q, &ga, &gz, &mut gq_v).unwrap();
        prop_assert_eq!(&z_v, &z);
        prop_assert_eq!(&gq_v, &gq);
        let mut z_mem = vec![MaybeUninit::<f64>::uninit(); n * t];
        let mut gq_mem = vec![MaybeUninit::<f64>::uninit(); n * t];
        let mut z_out = UninitOutput::new(&mut z_mem);
        pav.forward(&p.q, n, t, p.lam, &mut a_v, &mut z_out).unwrap();
        prop_assert!(z_out.is_filled());
        let mut gq_out = UninitOutput::new(&mut gq_mem);
        pav.backward(&p.q, &ga, &gz, &mut gq_out).unwrap();
        prop_assert!(gq_out.is_filled());
        // SAFETY: both were filled (checked just above)
        let (z_m, gq_m): (Vec<f64>, Vec<f64>) = unsafe {
            (z_mem.iter().map(|x| x.assume_init()).collect(), gq_mem.iter().map(|x| x.assume_init()).collect())
        };
        prop_assert_eq!(&z_m, &z);
        prop_assert_eq!(&gq_m, &gq);
    }
}

/// A solver that frees its forward-only buffers after each forward pass (held memory
/// limit 0) gives what a fresh solver gives, forward, backward and node by node, over
/// changing shapes and scores with few or many candidates, and then holds at most about
/// 16 bytes a value of the largest batch so far (plus a few hundred per node), where a
/// solver without a limit holds more on scores with many candidates.
#[test]
fn a_solver_past_its_held_memory_keeps_only_the_backward_state() {
    let mut state = 4242u64;
    let mut lean = TreePav::new();
    lean.set_max_held_bytes(0);
    let (mut most_values, mut most_nodes, mut most_rows) = (0, 0, 0);
    for (round, (n, depth, lam)) in [(64, 5, 1.0), (300, 6, 100.0), (17, 3, 0.0), (300, 6, 0.01), (5, 8, 1.0)].into_iter().enumerate() {
        let t = nodes_for_depth(depth).unwrap();
        let q: Vec<f64> = (0..n * t).map(|k| lcg(&mut state) * 3.0 - 1.0 + 0.3 * ((k % t + 1).ilog2() as f64)).collect();
        let ga: Vec<f64> = (0..t).map(|_| lcg(&mut state) - 0.5).collect();
        let gz: Vec<f64> = (0..n * t).map(|_| lcg(&mut state) - 0.5).collect();
        let mut fresh = TreePav::new();
        let mut outs = Vec::new();
        for pav in [&mut fresh, &mut lean] {
            let (mut a, mut z, mut gq) = (vec![0.0; t], vec![0.0; n * t], vec![0.0; n * t]);
            pav.forward(&q, n, t, lam, &mut a, &mut z).unwrap();
            let info: Vec<_> = (0..t).map(|u| pav.node_info(u).unwrap()).map(|i| (i.group, i.value, i.denominator, i.support_rows.to_vec())).collect();
            assert!(pav.is_solved_for(&q, n, t, lam));
            // another value at the place of the largest score: another problem
            let mut other = q.clone();
            let top = (0..n * t).max_by(|&i, &j| q[i].total_cmp(&q[j])).unwrap();
            other[top] += 0.25;
            assert!(!pav.is_solved_for(&other, n, t, lam));
            assert!(pav.backward_at(&q, n, t, lam, &ga, &gz, &mut gq).unwrap());
            outs.push((a, z, gq, info));
        }
        assert!(outs[0] == outs[1], "round {round}: results differ");
        (most_values, most_nodes, most_rows) = (most_values.max(n * t), most_nodes.max(t), most_rows.max(n));
        let most = 16 * most_values + 512 * most_nodes + 64 * most_rows + 4096;
        assert!(lean.held_bytes() <= most, "round {round}: {} bytes held, at most {most}", lean.held_bytes());
        assert!(fresh.held_bytes() <= TreePav::bytes_needed(n, t).unwrap());
        if round == 1 {
            assert!(fresh.held_bytes() > most, "many candidates: {} bytes", fresh.held_bytes());
        }
    }
}
