"""Tests of the tree-structured isotonic solver (``treeopt.isotonic``, Rust kernel).

* the forward pass against a generic QP solver (OSQP, with its active-set polishing) on
  problem (3) itself, with ``z`` and ``a`` as variables, on 320 random problems;
* the backward pass against central finite differences away from kinks, and against the
  Jacobian formula of section 3.2 built from the groups and support sets;
* the support sets against Proposition 2 recomputed from scratch;
* bad input, determinism, and the optional PyTorch layer.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from treeopt.isotonic import TreePAV, tree_depth, tree_pav, tree_pav_backward

osqp = pytest.importorskip("osqp", reason="the generic QP reference needs `pip install osqp`")


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #
def parents(n_nodes):
    return (np.arange(1, n_nodes) - 1) // 2


def random_problem(rng):
    """Depth 1-4, n 1-64, lam log-uniform in [1e-3, 1e3]; scores continuous or on a
    coarse grid (ties), from a wide range (outside [-1/2, 1/2] too), sometimes with
    the tree structure of a latent tree (child <= parent)."""
    depth = int(rng.integers(1, 5))
    n = int(rng.integers(1, 65))
    t = 2 ** (depth + 1) - 1
    lam = float(10 ** rng.uniform(-3, 3))
    kind = rng.integers(3)
    if kind == 0:
        q = rng.uniform(-1.5, 1.5, size=(n, t))
    elif kind == 1:  # ties
        q = rng.integers(-6, 7, size=(n, t)) * 0.25
    else:  # latent-tree structure: q_child = min(q_parent, +-s)
        q = np.empty((n, t))
        q[:, 0] = 0.5
        s = rng.normal(size=(n, t))
        for c in range(1, t):
            p = (c - 1) // 2
            q[:, c] = np.minimum(q[:, p], -s[:, p] if c % 2 else s[:, p])
    return q, lam


def qp_reference(q, lam):
    """Problem (3) solved by OSQP: variables x = [a (T); z (n*T, row-major)],
    constraints a_t <= a_parent(t), z_it <= a_t, 0 <= a <= 1, z >= 0."""
    n, t = q.shape
    m = n * t
    nv = t + m
    P = sp.diags(np.concatenate([np.full(t, lam), np.ones(m)])).tocsc()
    c = np.concatenate([np.zeros(t), -(q.ravel() + 0.5)])
    k = np.arange(t - 1)
    order = sp.csr_matrix(
        (np.r_[np.ones(t - 1), -np.ones(t - 1)], (np.r_[k, k], np.r_[k + 1, parents(t)])), shape=(t - 1, nv)
    )
    zi = np.arange(m)
    cap = sp.csr_matrix((np.r_[np.ones(m), -np.ones(m)], (np.r_[zi, zi], np.r_[t + zi, zi % t])), shape=(m, nv))
    A = sp.vstack([order, cap, sp.eye(nv, format="csr")]).tocsc()
    lower = np.r_[np.full(t - 1 + m, -np.inf), np.zeros(nv)]
    upper = np.r_[np.zeros(t - 1 + m), np.ones(t), np.full(m, np.inf)]
    solver = osqp.OSQP()
    solver.setup(P, c, A, lower, upper, eps_abs=1e-10, eps_rel=1e-10, polishing=True,
                 max_iter=200000, verbose=False)
    res = solver.solve(raise_error=True)
    assert res.info.status == "solved", res.info.status
    return res.x[:t], res.x[t:].reshape(n, t)


def objective(q, lam, a, z):
    return 0.5 * lam * np.sum(a**2) + 0.5 * np.sum((z - q - 0.5) ** 2)


# --------------------------------------------------------------------------- #
# forward pass
# --------------------------------------------------------------------------- #
def test_forward_equals_a_generic_qp_solver_on_320_problems():
    rng = np.random.default_rng(20210706)
    worst = 0.0
    for k in range(320):
        q, lam = random_problem(rng)
        a, z = tree_pav(q, lam)
        a_ref, z_ref = qp_reference(q, lam)
        err = max(np.abs(a - a_ref).max(), np.abs(z - z_ref).max())
        worst = max(worst, err)
        assert err <= 1e-6, f"problem {k}: depth {tree_depth(q.shape[1])}, n {q.shape[0]}, lam {lam:.3g}: error {err:.2e}"
        # exactly feasible, and not worse than the (1e-10-feasible) reference
        assert np.all(a[1:] <= a[parents(q.shape[1])]) and np.all((0 <= a) & (a <= 1))
        assert np.all((0 <= z) & (z <= a))
        ours, ref = objective(q, lam, a, z), objective(q, lam, a_ref, z_ref)
        assert ours <= ref + 1e-8 * (1 + abs(ref))
    print(f"320 problems, largest deviation from the QP solver {worst:.2e}")


@pytest.mark.parametrize("kind", ["iid", "drift"])
@pytest.mark.parametrize("lam", [0.0, 0.01, 1.0, 100.0])
def test_large_batches_satisfy_the_optimality_conditions(kind, lam):
    # The benchmark's size (n = 512, depth 6), where the solver drops most values before
    # sorting and sorts the rest of a column only when its node is pooled: a KKT
    # certificate of the tree-isotonic problem for the unclipped values r (edge
    # multipliers computed bottom-up), and the supports of Proposition 2.
    rng = np.random.default_rng(17)
    n, t = 512, 127
    q = rng.normal(size=(n, t))
    if kind == "drift":  # deeper nodes score higher than their parents: much pooling
        q += 0.5 * np.log2(np.arange(1, t + 1))
    groups = check_optimality(q, lam)
    if kind == "drift":
        assert len(groups) < 0.6 * t  # the pooling path was exercised


@pytest.mark.parametrize("kind", ["chain", "drift"])
@pytest.mark.parametrize("n, depth", [(1, 12), (8, 12), (64, 10)])
@pytest.mark.parametrize("lam", [0.01, 1.0])
def test_deep_trees_with_heavy_pooling_satisfy_the_optimality_conditions(kind, n, depth, lam):
    # Small batches under deep trees, where pooled groups gather hundreds of columns (the
    # solver's runs are merged and its worst-case guard can hand groups to a treap).
    # chain: the root has no mass and every other node the same column, so the root's
    # group absorbs the tree one node at a time; drift: groups pool bottom up.
    rng = np.random.default_rng(depth * 100 + n)
    t = 2 ** (depth + 1) - 1
    if kind == "chain":
        q = np.repeat(0.3 + 0.2 * rng.normal(size=(n, 1)), t, axis=1)
        q[:, 0] = -1.0
    else:
        q = rng.normal(size=(n, t)) + np.floor(np.log2(np.arange(1, t + 1)))
    groups = check_optimality(q, lam)
    assert len(groups) < (0.05 if kind == "chain" else 0.5) * t


def check_optimality(q, lam):
    """KKT certificate, clipping and Proposition 2 supports of one forward pass; returns
    the group ids."""
    n, t = q.shape
    solver = TreePAV()
    a, z = solver.forward(q, lam)
    info = solver.info()
    r, v = info["value"], q + 0.5
    par = parents(t)
    assert np.all(r[1:] <= r[par])
    # g_t'(r_t) = lam r_t - sum_i (v_it - r_t)_+ ; mu_t = sum over children mu - g_t'(r_t)
    deriv = lam * r - np.clip(v - r, 0, None).sum(axis=0)
    mu = np.zeros(t)
    for node in range(t - 1, -1, -1):
        kids = [c for c in (2 * node + 1, 2 * node + 2) if c < t]
        mu[node] = mu[kids].sum() - deriv[node]
    tol = 1e-9 * (1 + lam + np.abs(v).sum())
    assert mu[1:].min() >= -tol
    assert np.abs(mu[1:][r[1:] < r[par]]).max(initial=0) <= tol
    assert abs(mu[0]) <= tol
    np.testing.assert_array_equal(a, np.clip(r, 0, 1))
    np.testing.assert_array_equal(z, np.clip(v, 0, a))
    # supports: the values >= the group value (and > 0 when lam > 0)
    expected = (v >= r) & ((v > 0) | (lam == 0))
    assert np.array_equal(info["support"], expected)
    groups, sizes = np.unique(info["group"], return_counts=True)
    k = np.bincount(info["group"], weights=expected.sum(axis=0), minlength=t)
    np.testing.assert_allclose(info["denominator"], lam * sizes[np.searchsorted(groups, info["group"])]
                               + k[info["group"]], rtol=1e-15)
    return groups


def test_forward_closed_forms():
    # a single node: Proposition 2 by hand. v = [1.0, 0.6, 0.2], lam = 1:
    # k=1: a = 1/2 <= 0.6; k=2: a = 1.6/3 > 0.2  ->  a = 1.6/3
    a, z = tree_pav(np.array([[0.5], [0.1], [-0.3]]), 1.0)
    assert a[0] == pytest.approx(1.6 / 3, abs=1e-15)
    np.testing.assert_allclose(z[:, 0], [1.6 / 3, 1.6 / 3, 0.2], atol=1e-15)
    # lam = 0 and all scores far below -1/2: nothing reaches the node, a = 0
    a, z = tree_pav(np.full((4, 3), -3.0), 0.0)
    assert np.all(a == 0) and np.all(z == 0)
    # a child with more mass than its parent is pooled with it
    a, _ = tree_pav(np.array([[-0.4, 0.5, -2.0]]), 0.5)
    assert a[0] == a[1] == pytest.approx(0.5) and a[2] == 0


def test_supports_follow_proposition_2():
    rng = np.random.default_rng(3)
    for _ in range(60):
        q, lam = random_problem(rng)
        solver = TreePAV()
        a, _ = solver.forward(q, lam)
        info = solver.info()
        v = q + 0.5
        for g in np.unique(info["group"]):
            members = np.flatnonzero(info["group"] == g)
            value = info["value"][members[0]]
            assert np.all(info["value"][members] == value)
            # S(k*) = the values of the group that are >= a(k*), recomputed here
            vals = np.sort(v[:, members].ravel())[::-1]
            c = lam * len(members)
            k = 0
            while k < len(vals) and not (k + c > 0 and vals[:k].sum() / (c + k) > vals[k]):
                k += 1
            assert value == pytest.approx(vals[:k].sum() / (c + k) if c + k > 0 else 0.0, rel=1e-12, abs=1e-12)
            support = info["support"][:, members]
            assert support.sum() == k
            inside, outside = v[:, members][support], v[:, members][~support]
            if inside.size and outside.size:
                assert inside.min() >= outside.max()
            assert np.all(info["denominator"][members] == pytest.approx(c + k))
            assert np.all(a[members] == np.clip(value, 0, 1))


def test_latent_tree_scores_need_no_pooling():
    # child scores never exceed their parent's: every node is its own group
    rng = np.random.default_rng(5)
    q = np.empty((50, 15))
    q[:, 0] = 0.5
    s = rng.normal(size=(50, 15))
    for c in range(1, 15):
        p = (c - 1) // 2
        q[:, c] = np.minimum(q[:, p], -s[:, p] if c % 2 else s[:, p])
    solver = TreePAV()
    solver.forward(q, 1.0)
    assert np.array_equal(solver.info()["group"], np.arange(15))


# --------------------------------------------------------------------------- #
# backward pass
# --------------------------------------------------------------------------- #
def loss(q, lam, ga, gz):
    a, z = tree_pav(q, lam)
    return ga @ a + np.sum(gz * z)


def structure(q, lam):
    """Everything that fixes the local form of the map: groups, supports, clip
    regions of a, and which branch of clip each z is on."""
    solver = TreePAV()
    a, z = solver.forward(q, lam)
    info = solver.info()
    v = q + 0.5
    branch = np.where(v >= a, 2, np.where(v > 0, 1, 0))
    clip = np.where(info["value"] <= 0, 0, np.where(info["value"] >= 1, 2, 1))
    return (info["group"].tolist(), info["support"].tolist(), clip.tolist(), branch.tolist())


def test_backward_equals_finite_differences():
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(200):
        q, lam = random_problem(rng)
        q = q + 1e-3 * rng.uniform(-1, 1, size=q.shape)  # off the grid of ties
        n, t = q.shape
        ga, gz = rng.normal(size=t), rng.normal(size=(n, t))
        direction = rng.normal(size=(n, t))
        eps = 1e-7
        base = structure(q, lam)
        if structure(q + eps * direction, lam) != base or structure(q - eps * direction, lam) != base:
            continue  # a kink within eps
        numeric = (loss(q + eps * direction, lam, ga, gz) - loss(q - eps * direction, lam, ga, gz)) / (2 * eps)
        analytic = np.sum(tree_pav_backward(q, lam, ga, gz) * direction)
        assert numeric == pytest.approx(analytic, rel=1e-5, abs=1e-5)
        checked += 1
    assert checked >= 150, f"only {checked} problems away from kinks"


def jacobian_formula(q, lam):
    """Section 3.2: da_t/dq_(i,t') = 1/(lam|G| + k*) if 0 < a_t < 1 and (i, t') in S(k*)
    of t's group G; dz_it/dq_it = 1 where 0 < q+1/2 < a_t; dz_it/da_t = 1 where
    q + 1/2 >= a_t. Returns (J_a, J_z) with respect to q flattened row-major."""
    solver = TreePAV()
    a, _ = solver.forward(q, lam)
    info = solver.info()
    n, t = q.shape
    J_a = np.zeros((t, n * t))
    for node in range(t):
        if 0 < a[node] < 1:
            same = info["group"] == info["group"][node]
            mask = info["support"] & same[None, :]
            J_a[node, mask.ravel()] = 1.0 / info["denominator"][node]
    v = (q + 0.5).ravel()
    cols = np.tile(np.arange(t), n)
    J_z = np.diag(((v > 0) & (v < a[cols])).astype(float))
    on_a = v >= a[cols]
    J_z[on_a] += J_a[cols[on_a]]
    return J_a, J_z


def test_backward_equals_the_jacobian_formula_and_finite_differences():
    rng = np.random.default_rng(17)
    for _ in range(40):
        q, lam = random_problem(rng)
        q = q[:8] + 1e-3 * rng.uniform(-1, 1, size=q[:8].shape)
        n, t = q.shape
        J_a, J_z = jacobian_formula(q, lam)
        solver = TreePAV()
        solver.forward(q, lam)
        for _ in range(3):  # vector-Jacobian products
            ga, gz = rng.normal(size=t), rng.normal(size=(n, t))
            expected = J_a.T @ ga + J_z.T @ gz.ravel()
            np.testing.assert_allclose(solver.backward(ga, gz).ravel(), expected, atol=1e-12)
        # the formula itself against finite differences, column by column
        eps = 1e-7
        base = structure(q, lam)
        for col in range(n * t):
            e = np.zeros(n * t)
            e[col] = eps
            qp, qm = q + e.reshape(n, t), q - e.reshape(n, t)
            if structure(qp, lam) != base or structure(qm, lam) != base:
                continue
            (ap, zp), (am, zm) = tree_pav(qp, lam), tree_pav(qm, lam)
            np.testing.assert_allclose((ap - am) / (2 * eps), J_a[:, col], atol=1e-6)
            np.testing.assert_allclose((zp - zm).ravel() / (2 * eps), J_z[:, col], atol=1e-6)


def test_backward_defaults_and_determinism():
    rng = np.random.default_rng(2)
    q, lam = rng.normal(size=(30, 15)), 0.7
    solver = TreePAV()
    a1, z1 = solver.forward(q, lam)
    g1 = solver.backward(grad_z=np.ones((30, 15)))
    np.testing.assert_array_equal(g1, tree_pav_backward(q, lam, np.zeros(15), np.ones((30, 15))))
    assert np.all(solver.backward() == 0)
    other = TreePAV()
    other.forward(rng.normal(size=(7, 63)), 3.0)  # a different size in between
    a2, z2 = other.forward(q, lam)
    assert a1.tobytes() == a2.tobytes() and z1.tobytes() == z2.tobytes()
    assert other.backward(grad_z=np.ones((30, 15))).tobytes() == g1.tobytes()


# --------------------------------------------------------------------------- #
# the public functions' per-thread solver
# --------------------------------------------------------------------------- #
def fresh_solution(q, lam, grad_a, grad_z):
    solver = TreePAV()
    a, z = solver.forward(q, lam)
    return a, z, solver.backward(grad_a, grad_z)


def changing_problems(rng, count):
    """Shapes that grow and shrink (depth 0-6, 1-600 rows), lam 0 to 100, ties, with
    the same q twice in a row now and then."""
    q = None
    for k in range(count):
        if q is None or k % 5 != 4:
            depth, n = int(rng.integers(0, 7)), int(rng.integers(1, 600))
            t = 2 ** (depth + 1) - 1
            q = rng.normal(size=(n, t)) if k % 3 else np.round(rng.normal(size=(n, t)), 1)
        lam = float(rng.choice([0.0, 0.01, 1.0, 100.0]))
        yield q, lam, rng.normal(size=q.shape[1]), rng.normal(size=q.shape)


def check_public_calls(seed, count):
    rng = np.random.default_rng(seed)
    for q, lam, ga, gz in changing_problems(rng, count):
        a_ref, z_ref, g_ref = fresh_solution(q, lam, ga, gz)
        a, z = tree_pav(q, lam)
        g = tree_pav_backward(q, lam, ga, gz)  # reuses the forward pass above
        assert a.tobytes() == a_ref.tobytes() and z.tobytes() == z_ref.tobytes()
        assert g.tobytes() == g_ref.tobytes()
        # a backward pass without the forward pass before it solves again
        other_lam = lam + 0.5
        g_other = tree_pav_backward(q, other_lam, ga, gz)
        assert g_other.tobytes() == fresh_solution(q, other_lam, ga, gz)[2].tobytes()


def test_public_functions_equal_a_fresh_solver_on_changing_shapes():
    check_public_calls(seed=11, count=60)


def test_backward_after_an_in_place_change_of_q_solves_again():
    rng = np.random.default_rng(12)
    q = rng.normal(size=(40, 31))
    ga, gz = rng.normal(size=31), rng.normal(size=(40, 31))
    tree_pav(q, 1.0)
    q[17, 3] += 0.25  # same array object, new values
    q[0, 0] = -q[0, 0]
    assert tree_pav_backward(q, 1.0, ga, gz).tobytes() == fresh_solution(q, 1.0, ga, gz)[2].tobytes()


def test_backward_after_changes_below_or_above_the_cut_is_the_gradient_at_the_new_q():
    # tree_pav_backward reuses the last forward pass when q makes the same problem (the
    # same values at or above the solver's cut); any other change solves again. Either
    # way the gradient is the one at the q it is given.
    rng = np.random.default_rng(14)
    for k in range(40):
        depth, n = int(rng.integers(0, 6)), int(rng.integers(1, 300))
        t = 2 ** (depth + 1) - 1
        q = rng.normal(size=(n, t))
        lam = float(rng.choice([0.0, 0.01, 1.0, 100.0]))
        ga, gz = rng.normal(size=t), rng.normal(size=(n, t))
        tree_pav(q, lam)
        rows, cols = rng.integers(0, n, size=3), rng.integers(0, t, size=3)
        q[rows, cols] = rng.choice([-20.0, -0.7, 0.0, 3.0], size=3)  # in place
        g = tree_pav_backward(q, lam, ga, gz)
        np.testing.assert_allclose(g, fresh_solution(q, lam, ga, gz)[2], rtol=0, atol=1e-12)


def test_batches_above_the_cache_limit_use_their_own_solver(monkeypatch):
    import treeopt.isotonic as iso

    rng = np.random.default_rng(13)
    small = rng.normal(size=(5, 7))
    tree_pav(small, 1.0)
    cached = iso._thread.solver
    monkeypatch.setattr(iso, "CACHED_MAX_VALUES", 100)
    q, ga, gz = rng.normal(size=(50, 15)), rng.normal(size=15), rng.normal(size=(50, 15))
    a_ref, z_ref, g_ref = fresh_solution(q, 0.3, ga, gz)
    a, z = tree_pav(q, 0.3)
    assert a.tobytes() == a_ref.tobytes() and z.tobytes() == z_ref.tobytes()
    assert tree_pav_backward(q, 0.3, ga, gz).tobytes() == g_ref.tobytes()
    assert iso._thread.solver is cached and cached._shape == small.shape


def test_the_thread_solver_past_its_memory_limit_frees_its_forward_buffers(monkeypatch):
    # a new thread's solver with a held-memory limit of 0 frees what only the forward
    # pass uses after each one: the same results, the backward pass still reuses the
    # forward state, and it holds less than a solver without the limit
    import threading

    import treeopt.isotonic as iso

    monkeypatch.setattr(iso, "CACHED_MAX_BYTES", 0)
    rng = np.random.default_rng(31)
    out = {}

    def run():
        for n, t, lam in [(300, 63, 100.0), (40, 15, 0.5), (300, 63, 1.0)]:
            q, ga, gz = rng.normal(size=(n, t)), rng.normal(size=t), rng.normal(size=(n, t))
            a_ref, z_ref, g_ref = fresh_solution(q, lam, ga, gz)
            a, z = tree_pav(q, lam)
            solver = iso._thread.solver._solver
            assert solver.backward_checked(q, lam, ga, gz, iso.CACHED_MAX_VALUES) is not None  # no second solve
            g = tree_pav_backward(q, lam, ga, gz)
            assert a.tobytes() == a_ref.tobytes() and z.tobytes() == z_ref.tobytes() and g.tobytes() == g_ref.tobytes()
        unlimited = TreePAV()
        unlimited.forward(np.random.default_rng(31).normal(size=(300, 63)), 100.0)
        out["held"] = (solver.held_bytes(), unlimited._solver.held_bytes())

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    limited, unlimited = out["held"]
    assert limited < unlimited / 2, (limited, unlimited)


def test_large_outputs_reuse_freed_memory_and_never_memory_in_use():
    # z and dL/dq of 2**15 values or more are lent from a pool of freed outputs: every
    # result must be a fresh solver's, and an output (or a view of it) that is still
    # alive must never be written by a later call
    rng = np.random.default_rng(29)
    kept = []
    for k in range(12):
        n = [512, 300, 512][k % 3]
        q, ga, gz = rng.normal(size=(n, 127)), rng.normal(size=127), rng.normal(size=(n, 127))
        a_ref, z_ref, g_ref = fresh_solution(q, 1.0, ga, gz)
        a, z = tree_pav(q, 1.0)
        g = tree_pav_backward(q, 1.0, ga, gz)
        assert z.flags.c_contiguous and z.flags.writeable and g.flags.c_contiguous and g.flags.writeable
        assert z.tobytes() == z_ref.tobytes() and g.tobytes() == g_ref.tobytes()
        if k % 4 == 0:
            kept.append((z[1:], z_ref[1:].copy(), g, g_ref))
        del z, g
    for z_view, z_ref, g, g_ref in kept:
        assert z_view.tobytes() == z_ref.tobytes() and g.tobytes() == g_ref.tobytes()


def test_public_functions_are_thread_safe():
    from concurrent.futures import ThreadPoolExecutor

    # each thread interleaves its own changing shapes with the others' (the solver runs
    # without the GIL), and every result must equal a fresh solver's
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(check_public_calls, range(20, 28), [25] * 8))


# --------------------------------------------------------------------------- #
# bad input
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    "q, lam, message",
    [
        (np.zeros((3, 4)), 1.0, "complete binary tree"),
        (np.zeros((0, 3)), 1.0, "no rows"),
        (np.zeros(3), 1.0, "2-D"),
        (np.array([[0.0, np.nan, 0.0]]), 1.0, "finite"),
        (np.array([[0.0, np.inf, 0.0]]), 1.0, "finite"),
        (np.zeros((2, 3)), -1.0, "lam"),
        (np.zeros((2, 3)), float("nan"), "lam"),
        (np.zeros((2, 3)), float("inf"), "lam"),
        ([["a", "b", "c"]], 1.0, "numeric"),
    ],
)
def test_bad_input_is_a_clear_value_error(q, lam, message):
    with pytest.raises(ValueError, match=message):
        tree_pav(q, lam)


def test_bad_calls_are_clear_errors():
    with pytest.raises(TypeError, match="lam"):
        tree_pav(np.zeros((2, 3)), "1")
    solver = TreePAV()
    with pytest.raises(ValueError, match="forward"):
        solver.backward()
    with pytest.raises(ValueError, match="forward"):
        solver.info()
    solver.forward(np.zeros((2, 3)), 1.0)
    with pytest.raises(ValueError, match="grad_a"):
        solver.backward(grad_a=np.zeros(4))
    with pytest.raises(ValueError, match="grad_z"):
        solver.backward(grad_z=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="finite"):
        solver.backward(grad_z=np.full((2, 3), np.nan))
    with pytest.raises(TypeError, match="pickled"):
        pickle.dumps(solver)
    with pytest.raises(ValueError, match="depth"):
        tree_depth(6)
    assert tree_depth(1) == 0 and tree_depth(127) == 6


def test_public_fast_path_checks_and_solves_as_the_converting_path():
    # float64 C-contiguous scores and a float lam go straight to the solver, which checks
    # them; anything else is converted first: both paths give the same bits and errors
    rng = np.random.default_rng(5)
    q, ga, gz = rng.normal(size=(6, 15)), rng.normal(size=15), rng.normal(size=(6, 15))
    a_ref, z_ref, g_ref = fresh_solution(q, 1.0, ga, gz)
    for q_in, lam in ((q, 1.0), (q.tolist(), 1), (np.asfortranarray(q), np.float64(1.0))):
        a, z = tree_pav(q_in, lam)
        assert a.tobytes() == a_ref.tobytes() and z.tobytes() == z_ref.tobytes()
        g = tree_pav_backward(q_in, lam, ga.tolist(), np.asfortranarray(gz))
        assert g.tobytes() == g_ref.tobytes()
        assert tree_pav_backward(q_in, lam, ga, gz).tobytes() == g_ref.tobytes()
    tree_pav(q, 1.0)
    with pytest.raises(ValueError, match="grad_a"):
        tree_pav_backward(q, 1.0, np.zeros(16), None)
    with pytest.raises(ValueError, match="grad_z"):
        tree_pav_backward(q, 1.0, None, np.zeros((5, 15)))
    with pytest.raises(ValueError, match="finite"):
        tree_pav_backward(q, 1.0, np.full(15, np.inf), None)
    with pytest.raises(TypeError, match="lam"):
        tree_pav(q, True)


def test_non_contiguous_and_integer_input():
    q = np.arange(42, dtype=np.int64).reshape(6, 7) % 5 - 2
    a1, z1 = tree_pav(q, 0.5)
    a2, z2 = tree_pav(np.asfortranarray(q.astype(float)), 0.5)
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(z1, z2)


# --------------------------------------------------------------------------- #
# optional PyTorch layer
# --------------------------------------------------------------------------- #
def test_torch_layer_gradcheck():
    torch = pytest.importorskip("torch")
    from treeopt.torch import LatentTreeLayer, latent_tree_pav

    gen = torch.Generator().manual_seed(0)
    q = (torch.rand(12, 15, generator=gen, dtype=torch.float64) * 3 - 1.5).requires_grad_()
    a, z = LatentTreeLayer.apply(q, 0.3)
    a_np, z_np = tree_pav(q.detach().numpy(), 0.3)
    np.testing.assert_array_equal(a.detach().numpy(), a_np)
    np.testing.assert_array_equal(z.detach().numpy(), z_np)
    assert torch.autograd.gradcheck(lambda x: latent_tree_pav(x, 0.3), (q,), eps=1e-7, atol=1e-5)
    # only z used: grad_a arrives as None or zeros
    q.grad = None
    latent_tree_pav(q, 0.3)[1][:, 7:].sum().backward()
    expected = tree_pav_backward(q.detach().numpy(), 0.3, None, np.r_[np.zeros(7), np.ones(8)] * np.ones((12, 1)))
    np.testing.assert_allclose(q.grad.numpy(), expected, atol=1e-12)
    # float32 in, float32 out
    a32, z32 = latent_tree_pav(q.detach().float(), 0.3)
    assert a32.dtype == torch.float32 and z32.shape == (12, 15)
