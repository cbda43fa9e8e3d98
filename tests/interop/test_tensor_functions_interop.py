"""Differential test of the extra top-level functions, Tensor methods and torch-style aliases
against real Paddle 3.3.1 (run in a subprocess): unique ... vander, the aliases (cat, clamp, div,
permute ...), and topk / argsort / sort tie order on many tie-heavy inputs. Values, dtypes,
shapes, gradients where Paddle has them, and the exception type of bad calls are compared.
"""
import textwrap

import pytest

from .diff_prelude import PADDLE_MAIN, assert_same_as_paddle, with_helpers

CODE = with_helpers(textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        rng = np.random.default_rng(16)
        out = {}
        T, put, grad, err, _ = diff_helpers(paddle, out)

        def r(*s):
            return rng.uniform(-1, 1, s)

        D = np.array([[2, 1, 3], [3, 0, 1], [2, 1, 3]])
        X = r(3, 4)
        # -- unique / unique_consecutive / mode
        put("unique", paddle.unique(T(D, "int64")))
        put("unique.all", paddle.unique(T(D, "int64"), True, True, True))
        put("unique.axis0", paddle.unique(T(D, "float32"), return_index=True, return_inverse=True,
                                          return_counts=True, axis=0))
        put("unique.axis1_int32", paddle.unique(T(D, "int32"), return_inverse=True, axis=1, dtype="int32"))
        put("unique.method", T([3.5, 1.0, 3.5]).unique(return_counts=True))
        put("unique_consecutive", paddle.unique_consecutive(T([1, 1, 2, 2, 3, 1, 1, 2], "int64"), True, True))
        put("unique_consecutive.axis", paddle.unique_consecutive(T(D[[0, 0, 1, 2, 2]], "float32"),
                                                                 return_inverse=True, return_counts=True, axis=0))
        put("unique_consecutive.method", T([1.0, 1.0, 2.0]).unique_consecutive())
        M = rng.integers(0, 4, (5, 23)).astype("float64")
        put("mode", paddle.mode(T(M)))
        put("mode.axis0_keep", paddle.mode(T(M[:, :7], "int64"), axis=0, keepdim=True))
        put("mode.method", T([[1.0, 2, 2, 3, 3], [5, 5, 1, 1, 0]]).mode())
        grad("mode", lambda a: paddle.mode(a)[0], X)
        # -- counting and binning
        put("bincount", paddle.bincount(T([1, 2, 1, 4], "int64")))
        put("bincount.w32", paddle.bincount(T([1, 2, 1, 4], "int32"), weights=T([1, 2, 3, 4], "float32"), minlength=7))
        put("bincount.wint", paddle.bincount(T([1, 2, 1, 4], "int64"), weights=T([1, 2, 3, 4], "int64")))
        put("bincount.method", T([0, 0, 3], "int64").bincount())
        H = np.array([1.0, 2, 1, 4, 5, 2.5])
        put("histogram", paddle.histogram(T(H, "float32")))
        put("histogram.bins", paddle.histogram(T(H), bins=4))
        put("histogram.range", paddle.histogram(T(H), bins=4, min=0, max=3))
        put("histogram.weight", paddle.histogram(T(H, "float32"), bins=3, weight=T(np.arange(6), "float32")))
        put("histogram.density64", paddle.histogram(T(H), bins=3, density=True))
        put("histogram.int", paddle.histogram(T([1, 2, 1, 4], "int64"), bins=4))
        put("histogram.const", paddle.histogram(T([1.0, 1, 1]), bins=4))
        put("histogram.method", T(H).histogram(bins=2))
        S = T([1.0, 3, 5, 7, 9])
        V = T([[3.0, 6, 9], [0, 10, 5]])
        put("searchsorted", paddle.searchsorted(S, V))
        put("searchsorted.right32", paddle.searchsorted(S, V, out_int32=True, right=True))
        put("searchsorted.rows", paddle.searchsorted(T([[1, 3, 5], [2, 4, 6]], "int64"), T([[3, 7], [2, 2]], "int64")))
        put("bucketize", paddle.bucketize(V, S))
        put("bucketize.method", V.bucketize(S, right=True))
        # -- math
        put("kron", paddle.kron(T(r(2, 3)), T(r(3, 2))))
        put("kron.ranks", paddle.kron(T([1, 2], "int64"), T([[1, 1], [2, 3]], "int64")))
        grad("kron", paddle.kron, r(2, 3), r(2, 2))
        put("diff", paddle.diff(T([1, 4, 9, 16], "int64")))
        put("diff.n2", paddle.diff(T(X), n=2))
        put("diff.axis0_pre_app", paddle.diff(T(X), axis=0, prepend=T(r(1, 4)), append=T(r(2, 4))))
        put("diff.bool", paddle.diff(T([True, False, False, True], "bool")))
        put("diff.method", T(X).diff())
        grad("diff", lambda a: paddle.diff(a, n=2, axis=0), r(4, 3))
        N = np.array([np.nan, np.inf, -np.inf, 1.5])
        put("nan_to_num", paddle.nan_to_num(T(N, "float32")))
        put("nan_to_num.args", paddle.nan_to_num(T(N), nan=1.0, posinf=2.0, neginf=-3.0))
        put("nan_to_num.method", T(N).nan_to_num(posinf=9.0))
        grad("nan_to_num", paddle.nan_to_num, X)
        put("outer", paddle.outer(T(r(3)), T(r(2, 2))))
        put("outer.int", paddle.outer(T([1, 2], "int64"), T([3, 4, 5], "int64")))
        grad("outer", paddle.outer, r(3), r(4))
        put("ger", paddle.ger(T(r(2)), T(r(3))))
        put("inner", paddle.inner(T(r(2, 3)), T(r(4, 3))))
        put("inner.scalar", paddle.inner(T(r(2, 3)), T(2.0)))
        grad("inner", paddle.inner, r(2, 3), r(4, 3))
        put("tensordot", paddle.tensordot(T(r(2, 3, 4)), T(r(3, 4, 5))))
        put("tensordot.1", paddle.tensordot(T(r(2, 3)), T(r(3, 4)), axes=1))
        put("tensordot.lists", paddle.tensordot(T(r(2, 3, 4)), T(r(4, 2, 5)), axes=[[0, 2], [1, 0]]))
        put("tensordot.0", paddle.tensordot(T(r(2)), T(r(3)), axes=0))
        grad("tensordot", lambda a, b: paddle.tensordot(a, b, axes=[[1], [0]]), r(2, 3), r(3, 2))
        Q = r(4, 5)
        for interp in ("linear", "lower", "higher", "nearest", "midpoint"):
            put(f"quantile.{interp}", paddle.quantile(T(Q), [0.1, 0.5, 0.75], axis=1, interpolation=interp))
        put("quantile.all", paddle.quantile(T(Q, "float32"), 0.3))
        put("quantile.keep", paddle.quantile(T(Q), 0.5, axis=[0, 1], keepdim=True))
        put("quantile.axis0", T(Q).quantile(0.25, axis=0))
        QN = Q.copy()
        QN[1, 2] = np.nan
        put("quantile.nan", paddle.quantile(T(QN), 0.5, axis=1))
        put("nanquantile", paddle.nanquantile(T(QN), [0.2, 0.5], axis=1))
        put("nanquantile.method", T(QN).nanquantile(0.4))
        grad("quantile", lambda a: paddle.quantile(a, [0.3, 0.6], axis=1), Q)
        put("lerp", paddle.lerp(T(r(2, 3)), T(r(3)), 0.25))
        put("lerp.tensor_w", paddle.lerp(T(r(2, 3)), T(r(2, 3)), T(r(2, 1))))
        put("lerp.method", T([1.0, 2]).lerp(T([3.0, 6]), 0.5))
        grad("lerp", paddle.lerp, r(2, 3), r(3), r(2, 1))
        put("logcumsumexp", paddle.logcumsumexp(T(X)))
        put("logcumsumexp.axis0", paddle.logcumsumexp(T(X, "float32"), axis=0))
        put("logcumsumexp.method", T(X).logcumsumexp(axis=1))
        put("logcumsumexp.dtype", paddle.logcumsumexp(T(X, "float32"), axis=1, dtype="float64"))
        grad("logcumsumexp", lambda a: paddle.logcumsumexp(a, axis=1), X)
        C = np.array([[1.0, 3, 3, 2, 0], [4, 4, 0, 5, 5]])
        put("cummax", paddle.cummax(T(C), axis=1))
        put("cummax.flat", paddle.cummax(T(C, "int64")))
        put("cummax.int32", paddle.cummax(T(C), axis=0, dtype="int32"))
        put("cummin", paddle.cummin(T(C), axis=-1))
        put("cummin.method", T(C).cummin(axis=0))
        grad("cummax", lambda a: paddle.cummax(a, axis=1)[0], X)
        grad("cummin", lambda a: paddle.cummin(a, axis=0)[0], X)
        RN = r(3, 4) * 2
        put("renorm", paddle.renorm(T(RN), 2.0, 0, 1.0))
        put("renorm.p1", paddle.renorm(T(RN, "float32"), 1.0, 1, 1.5))
        put("renorm.method", T(RN).renorm(3.0, -1, 1.0))
        grad("renorm", lambda a: paddle.renorm(a, 2.0, 0, 1.0), RN)
        # -- creation and indexing
        put("diag_embed", paddle.diag_embed(T(r(2, 3))))
        put("diag_embed.offset", paddle.diag_embed(T(r(2, 3)), offset=-1, dim1=0, dim2=2))
        put("diag_embed.method", T(r(3)).diag_embed(offset=1))
        # Paddle defines no gradient for diag_embed (the input's grad stays None)
        IDX = T([0, 2, 0], "int64")
        put("index_add", paddle.index_add(T(r(4, 3)), IDX, 0, T(r(3, 3))))
        put("index_add.axis1", paddle.index_add(T(r(2, 4)), T([3, 1], "int32"), 1, T(r(2, 2))))
        put("index_add.method", T(r(4, 3)).index_add(IDX, 0, T(r(3, 3))))
        grad("index_add", lambda a, b: paddle.index_add(a, IDX, 0, b), r(4, 3), r(3, 3))
        put("index_fill", paddle.index_fill(T(r(3, 3)), T([0, 2], "int64"), 0, -1.0))
        put("index_fill.int", paddle.index_fill(T(D, "int64"), T([1], "int64"), 1, 7))
        put("index_fill.method", T(r(2, 3)).index_fill(T([2], "int64"), 1, 0.5))
        grad("index_fill", lambda a: paddle.index_fill(a, T([1], "int64"), 1, 2.0), r(2, 3))
        MK = np.array([[True, False, True], [False, True, True]])
        put("masked_scatter", paddle.masked_scatter(T(r(2, 3)), T(MK, "bool"), T(r(8))))
        put("masked_scatter.bcast", paddle.masked_scatter(T(r(2, 3)), T([True, False, True], "bool"), T(r(2, 3))))
        put("masked_scatter.method", T(r(2, 3)).masked_scatter(T(MK, "bool"), T(r(4))))
        grad("masked_scatter", lambda a, b: paddle.masked_scatter(a, T(MK, "bool"), b), r(2, 3), r(5))
        TK = T([[1, 2], [3, 4]], "int64")
        put("take", paddle.take(TK, T([0, 3, -1], "int64")))
        put("take.wrap", paddle.take(TK, T([[5, -6]], "int64"), mode="wrap"))
        put("take.clip", paddle.take(TK, T([5, -6], "int64"), mode="clip"))
        put("take.method", T(r(2, 3)).take(T([1, 4], "int64")))
        grad("take", lambda a: paddle.take(a, T([0, 4, 4, -1], "int64")), r(2, 3))
        put("reverse", paddle.reverse(T(r(2, 3)), [0, 1]))
        put("reverse.method", T(r(2, 3)).reverse(1))
        R3 = r(2, 3, 4)
        for k in (-1, 0, 1, 2, 3, 5):
            put(f"rot90.{k}", paddle.rot90(T(R3), k=k))
        put("rot90.axes", paddle.rot90(T(R3), 1, axes=[1, 2]))
        put("rot90.method", T(R3).rot90(axes=[2, 0]))
        grad("rot90", lambda a: paddle.rot90(a, 1, [0, 2]), R3)
        put("tril_indices", paddle.tril_indices(4, 3, -1))
        put("tril_indices.wide", paddle.tril_indices(3, 5, 2, "int32"))
        put("triu_indices", paddle.triu_indices(3, 4, 1))
        put("triu_indices.square", paddle.triu_indices(4, dtype="int32"))
        put("cartesian_prod", paddle.cartesian_prod([T([1, 2], "int64"), T([3, 4, 5], "int64")]))
        put("cartesian_prod.3", paddle.cartesian_prod([T(r(2)), T(r(1)), T(r(3))]))
        put("cartesian_prod.1", paddle.cartesian_prod([T(r(3))]))
        put("combinations", paddle.combinations(T([1, 2, 3, 4], "int64")))
        put("combinations.r3", paddle.combinations(T(r(4)), r=3))
        put("combinations.repl", paddle.combinations(T(r(3)), with_replacement=True))
        put("combinations.method", T(r(3)).combinations(r=1))
        grad("combinations", lambda a: paddle.combinations(a), r(4))
        put("vander", paddle.vander(T(r(3))))
        put("vander.n_inc", paddle.vander(T([1, 2, 3], "int64"), n=4, increasing=True))
        put("vander.method", T(r(2)).vander(3))
        grad("vander", lambda a: paddle.vander(a, 3), r(3))
        put("histogram_bin_edges", paddle.histogram_bin_edges(T(H, "float32"), bins=4))
        put("histogram_bin_edges.range64", paddle.histogram_bin_edges(T(H), 3, 0, 2))
        put("histogram_bin_edges.int", T([1, 2, 9], "int64").histogram_bin_edges(bins=2))
        HD = r(2, 5, 3)
        put("histogramdd", paddle.histogramdd(T(HD)))
        put("histogramdd.ranges_density", paddle.histogramdd(T(HD, "float32"), bins=[2, 3, 4],
                                                             ranges=[-1, 1, -0.5, 0.5, 0, 1], density=True))
        put("histogramdd.edges_weights", paddle.histogramdd(T(HD[0, :, :2]), bins=(T([-1, 0, 1.0]), T([-1, 0.5, 1])),
                                                            weights=T(rng.uniform(0, 1, 5))))
        put("histogramdd.method", T(HD).histogramdd(bins=2, density=True))
        inc = T([3.0], "float32")
        put("increment", paddle.increment(inc, 2.0))
        put("increment.self", inc)
        put("increment.method", T([1], "int64").increment())
        IP = (T([0, 2, 0], "int64"), T([1, 0, 1], "int64"))
        put("index_put", paddle.index_put(T(r(3, 2)), IP, T([1.0, 2.0, 3.0])))
        put("index_put.acc", paddle.index_put(T(r(3, 2)), IP, T([1.0, 2.0, 3.0]), accumulate=True))
        put("index_put.method", T(r(3, 2)).index_put((T([1], "int64"),), T([5.0, 6.0])))
        grad("index_put", lambda a, b: paddle.index_put(a, IP, b, accumulate=True), r(3, 2), r(3))
        lw = T(r(3))
        lw.lerp_(T(r(3)), 0.5)
        put("lerp_", lw)
        rw = T(RN)
        rw.renorm_(2.0, 1, 0.5)
        put("renorm_", rw)
        # -- torch-style aliases
        A, B = r(2, 3), r(2, 3) + 2
        put("cat", paddle.cat([T(A), T(B)], axis=1))
        put("concatenate", paddle.concatenate([T(A), T(B)]))
        put("clamp", paddle.clamp(T(A), -0.5, 0.5))
        put("clamp.method", T(A).clamp(min=0.0))
        put("div", paddle.div(T(A), T(B)))
        put("div.floor", paddle.div(T(A * 4), T(B), rounding_mode="floor"))
        put("div.trunc", T(A * 4).div(T(B), rounding_mode="trunc"))
        put("div.int", paddle.div(T([7, -7], "int64"), T([2, 2], "int64")))
        for nm in ("eq", "ne", "ge", "gt", "le", "lt"):
            put(nm, getattr(paddle, nm)(T(A), T(A[::-1])))
            put(nm + ".method", getattr(T(A), nm)(T(A[::-1])))
        put("sub", paddle.sub(T(A), T(B)))
        put("sub.alpha", paddle.sub(T(A), T(B), alpha=2))
        put("sub.method", T(A).sub(T(B)))
        put("mul", paddle.mul(T(A), T(B)))
        put("mul.method", T(A).mul(T(B)))
        put("swapdims", paddle.swapdims(T(A), [1, 0]))
        put("take_along_dim", paddle.take_along_dim(T(A), T([[0], [2]], "int64"), 1))
        put("permute", paddle.permute(T(R3), [2, 0, 1]))
        put("permute.varargs", T(R3).permute(1, 2, 0))
        put("permute.list", T(R3).permute([1, 0, 2]))
        put("from_numpy", paddle.from_numpy(np.arange(3, dtype="int32")))
        put("true_divide", paddle.true_divide(T([1, 2], "int64"), T([2, 2], "int64")))
        put("negative", paddle.negative(T(A)))
        paddle.manual_seed(5)
        put("manual_seed", np.asarray(list(paddle.rand([1]).shape)))
        # -- topk / argsort / sort tie order (Paddle's CPU kernels: nth_element / partial_sort / std::sort)
        for trial in range(40):
            n = int(rng.integers(2, 150))
            k = int(rng.integers(1, n + 1)) if trial % 3 else max(1, n // 70)
            a = rng.integers(0, int(rng.integers(1, 5)), (3, n)).astype("float32")
            if trial % 4 == 0:
                a[rng.random(a.shape) < 0.2] = np.nan
            largest, srt = bool(trial % 2), trial % 5 != 0
            put(f"ties.topk.{trial}", paddle.topk(T(a, "float32"), k, largest=largest, sorted=srt)[1])
            put(f"ties.argsort.{trial}", paddle.argsort(T(a, "float32"), descending=bool(trial % 2)))
            put(f"ties.sort_stable.{trial}", paddle.argsort(T(a, "float32"), descending=bool(trial % 3), stable=True))
        ti = rng.integers(0, 3, (20, 4, 3))
        put("ties.topk.axis0", paddle.topk(T(ti, "int64"), 5, axis=0))
        put("ties.argsort.axis1", paddle.argsort(T(rng.integers(0, 2, (2, 40, 3)), "int32"), axis=1))
        put("ties.sort.axis0", paddle.sort(T(ti, "int64"), axis=0, descending=True))
        put("ties.issue", paddle.topk(T([[1, 1, 0, 1], [2, 2, 2, 1]], "int64"), k=2))
        # -- errors
        err("err.bincount_negative", lambda: paddle.bincount(T([-1, 2], "int64")).numpy())
        err("err.histogram_range", lambda: paddle.histogram(T(H), bins=3, min=3, max=1).numpy())
        err("err.quantile_q", lambda: paddle.quantile(T(Q), 1.5))
        err("err.quantile_interp", lambda: paddle.quantile(T(Q), 0.5, interpolation="cubic"))
        err("err.take_mode", lambda: paddle.take(TK, T([0], "int64"), mode="x"))
        err("err.rot90_axes", lambda: paddle.rot90(T(R3), axes=[0, 0]))
        err("err.bucketize_2d", lambda: paddle.bucketize(V, V))
        err("err.cummax_dtype", lambda: paddle.cummax(T(C), dtype="float32"))
        put("combinations.r0", paddle.combinations(T(r(3)), r=0))
        put("combinations.r_gt_n", paddle.combinations(T(r(3)), r=4))
        return out
'''))


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    from .paddle_runner import differential
    return differential(CODE, PADDLE_MAIN, tmp_path_factory.mktemp("tensor_functions"), "tensor functions")


def test_same_results(both):
    ours, theirs, dtypes = both
    assert_same_as_paddle(ours, theirs, dtypes, double_tol=1e-9)


def _saved_model_outputs(x, w):
    """One output per Paddle op type added here (plus top_k_v2 / argsort with ties), saved to .pdmodel."""
    import dy2st as paddle
    from runtime.dispatch import run_op
    ties = paddle.round(x * 2.0)
    ids = paddle.cast(paddle.abs(ties[0]), "int64")
    return [paddle.unique(ties, return_index=True, return_inverse=True, return_counts=True)[2],
            paddle.unique_consecutive(paddle.flatten(ties), return_counts=True)[1], paddle.mode(ties)[1],
            paddle.kron(x, w), paddle.bincount(ids, minlength=4), paddle.histogram(x, bins=5, min=-1.0, max=1.0),
            paddle.searchsorted(paddle.sort(w[0]), x), paddle.logcumsumexp(x, axis=1), paddle.cummax(x, axis=0)[1],
            paddle.cummin(x, axis=1)[0], paddle.diag_embed(w, 1), paddle.index_add(x, ids[:2], 1, x[:, :2]),
            paddle.lerp(x, x * 3.0, 0.25), paddle.renorm(x, 2.0, 0, 0.5), run_op("reverse", x, axis=[0, 1]),
            paddle.tril_indices(4, 3, -1), paddle.triu_indices(3, 4, 1), paddle.topk(ties, 2)[1],
            paddle.argsort(paddle.concat([ties] * 6, axis=1))]


def test_paddle_loads_our_saved_program(tmp_path):
    """Real Paddle loads and runs a program with each new op type, with the results we compute."""
    import numpy as np
    from .paddle_runner import paddle_runs_our_program
    rng = np.random.default_rng(9)
    xv, wv = rng.uniform(-1.5, 1.5, (3, 4)), rng.uniform(-1, 1, (1, 3))
    paddle_runs_our_program(_saved_model_outputs, {"x": xv, "w": wv}, tmp_path,
                            "tensor-function program", loaders=("static",))
