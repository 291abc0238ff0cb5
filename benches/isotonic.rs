//! Criterion benchmark of the tree-structured isotonic solver (forward + backward) on a
//! batch of n = 512 rows and a depth-6 tree (127 nodes), the setting of issue 6:
//! `cargo bench --bench isotonic`.
//!
//! Two kinds of scores: `latent`, the min-path scores of a latent tree with random linear
//! splits on random inputs (what `treeopt.LatentTreeClassifier` feeds the kernel), and
//! `iid`, independent N(0, 1) scores that violate the tree order everywhere and make the
//! solver pool many groups.
//!
//! A second group, `tree_pav_worst`, times the adversarial regime of deep trees and small
//! batches with heavy pooling (depth 12 with n = 8, depth 10 with n = 64): `chain` scores
//! (a root with no mass above nodes that all score alike, so the root's group absorbs
//! every node one at a time, top down) and `drift` scores (N(0, 1) plus depth, so groups
//! pool bottom up): `cargo bench --bench isotonic -- worst`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use treeopt_isotonic::{nodes_for_depth, TreePav};

/// xorshift64* with Box-Muller normals: deterministic inputs without extra crates.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// Scores of a latent tree: q_root = 1/2, q_child = min(q_parent, -+ s_parent) with
/// s = x . w_t + b_t for standard normal x (10 features) and w.
fn latent_scores(n: usize, depth: usize, rng: &mut Rng) -> Vec<f64> {
    let t_count = nodes_for_depth(depth).unwrap();
    let d = 10;
    let w: Vec<f64> = (0..t_count * d).map(|_| rng.normal() / (d as f64).sqrt()).collect();
    let b: Vec<f64> = (0..t_count).map(|_| 0.1 * rng.normal()).collect();
    let mut q = vec![0.0f64; n * t_count];
    for i in 0..n {
        let x: Vec<f64> = (0..d).map(|_| rng.normal()).collect();
        let row = &mut q[i * t_count..(i + 1) * t_count];
        row[0] = 0.5;
        for t in 1..t_count {
            let p = (t - 1) / 2;
            let s: f64 = (0..d).map(|j| x[j] * w[p * d + j]).sum::<f64>() + b[p];
            let side = if t % 2 == 1 { -s } else { s };
            row[t] = row[p].min(side);
        }
    }
    q
}

/// Scores that make the root's group absorb the whole tree one node at a time, top down:
/// the root's values are all <= 0 (v = q + 1/2) and every other node has the same column
/// of values (one N(0.3, 0.2^2) draw per row), so every node alone has the same value and
/// the root's group, dragged down by the root, always has a smaller one.
fn chain_scores(n: usize, depth: usize, rng: &mut Rng) -> Vec<f64> {
    let t_count = nodes_for_depth(depth).unwrap();
    let mut q = vec![0.0f64; n * t_count];
    for i in 0..n {
        let r = 0.3 + 0.2 * rng.normal();
        for t in 0..t_count {
            q[i * t_count + t] = if t == 0 { -1.0 } else { r };
        }
    }
    q
}

/// N(0, 1) scores plus the node's depth: children beat their parents, groups pool bottom up.
fn drift_scores(n: usize, depth: usize, rng: &mut Rng) -> Vec<f64> {
    let t_count = nodes_for_depth(depth).unwrap();
    (0..n * t_count)
        .map(|k| rng.normal() + ((k % t_count + 1).ilog2() as f64))
        .collect()
}

fn bench_worst_case(c: &mut Criterion) {
    let lam = 1.0;
    let mut group = c.benchmark_group("tree_pav_worst");
    group.sample_size(10);
    for (depth, n) in [(12usize, 8usize), (10, 64)] {
        let t_count = nodes_for_depth(depth).unwrap();
        let mut rng = Rng(0x0bad_cafe_f00d_0001 ^ (depth as u64) << 32 ^ n as u64);
        let inputs = [("chain", chain_scores(n, depth, &mut rng)), ("drift", drift_scores(n, depth, &mut rng))];
        let grad_z: Vec<f64> = (0..n * t_count).map(|_| rng.normal()).collect();
        let grad_a: Vec<f64> = (0..t_count).map(|_| rng.normal()).collect();
        for (name, q) in &inputs {
            let mut pav = TreePav::new();
            let mut a = vec![0.0; t_count];
            let mut z = vec![0.0; n * t_count];
            let mut grad_q = vec![0.0; n * t_count];
            let id = BenchmarkId::new(format!("forward+backward/d{depth}_n{n}"), name);
            group.bench_with_input(id, q, |bench, q| {
                bench.iter(|| {
                    pav.forward(q, n, t_count, lam, &mut a, &mut z).unwrap();
                    pav.backward(q, &grad_a, &grad_z, &mut grad_q).unwrap();
                })
            });
            eprintln!(
                "d{depth} n{n} {name}: {} groups of {t_count} nodes after pooling, {} on the treap path",
                pav.n_groups(),
                pav.n_treap_groups()
            );
        }
    }
    group.finish();
}

fn bench_isotonic(c: &mut Criterion) {
    let (n, depth, lam) = (512, 6, 1.0);
    let t_count = nodes_for_depth(depth).unwrap();
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let inputs = [
        ("latent", latent_scores(n, depth, &mut rng)),
        ("iid", (0..n * t_count).map(|_| rng.normal()).collect::<Vec<f64>>()),
    ];
    let grad_z: Vec<f64> = (0..n * t_count).map(|_| rng.normal()).collect();
    let grad_a: Vec<f64> = (0..t_count).map(|_| rng.normal()).collect();
    let mut group = c.benchmark_group("tree_pav_n512_d6");
    for (name, q) in &inputs {
        let mut pav = TreePav::new();
        let mut a = vec![0.0; t_count];
        let mut z = vec![0.0; n * t_count];
        let mut grad_q = vec![0.0; n * t_count];
        group.bench_with_input(BenchmarkId::new("forward", name), q, |bench, q| {
            bench.iter(|| pav.forward(q, n, t_count, lam, &mut a, &mut z).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("forward+backward", name), q, |bench, q| {
            bench.iter(|| {
                pav.forward(q, n, t_count, lam, &mut a, &mut z).unwrap();
                pav.backward(q, &grad_a, &grad_z, &mut grad_q).unwrap();
            })
        });
        eprintln!("{name}: {} groups after pooling, {} on the treap path", pav.n_groups(), pav.n_treap_groups());
    }
    group.finish();
}

criterion_group!(benches, bench_isotonic, bench_worst_case);
criterion_main!(benches);
