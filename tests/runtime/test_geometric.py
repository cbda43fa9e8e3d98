"""paddle.geometric against numpy references: segment reductions and message passing (values and finite-difference
gradients, including ties for max/min), reindexing, and neighbour sampling by its properties. Paddle's values:
tests/interop/test_module_surface_interop.py."""
import numpy as np
import pytest

import dy2st as paddle

G = paddle.geometric

_NP = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}


def _reference(values, index, n, op):
    out = np.zeros((n,) + values.shape[1:], values.dtype)
    for k in range(n):
        rows = values[index == k]
        if len(rows):
            out[k] = _NP[op](rows, axis=0)
    return out


def _fd_grad(fn, x, eps=1e-6):
    """Finite-difference gradient of sum(fn(x) * w) for a fixed random w."""
    w = np.random.default_rng(5).standard_normal(fn(x).shape)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = ((fn(x + d) * w).sum() - (fn(x - d) * w).sum()) / (2 * eps)
    return w, g


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_segment_reductions(op):
    rng = np.random.default_rng(0)
    data = rng.standard_normal((6, 3))
    seg = np.array([0, 0, 1, 3, 3, 3])
    fn = getattr(G, "segment_" + op)
    x = paddle.to_tensor(data, stop_gradient=False)
    res = fn(x, paddle.to_tensor(seg, "int32"))
    np.testing.assert_allclose(res.numpy(), _reference(data, seg, 4, op), rtol=1e-12)
    w, want = _fd_grad(lambda a: _reference(a, seg, 4, op), data)
    (res * paddle.to_tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6, atol=1e-8)


def test_segment_ties_and_errors():
    x = paddle.to_tensor([[1.0, 2.0], [1.0, 0.0]], stop_gradient=False)
    G.segment_max(x, paddle.to_tensor([0, 0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 1], [1, 0]])     # every row attaining the max
    np.testing.assert_array_equal(G.segment_mean(paddle.to_tensor([[1, 2], [4, 4]]), paddle.to_tensor([0, 0])).numpy(),
                                  [[2, 3]])                               # integer means truncate
    with pytest.raises(ValueError, match="sorted"):
        G.segment_sum(x, paddle.to_tensor([1, 0]))
    with pytest.raises(TypeError, match="int32 or int64"):
        G.segment_sum(x, paddle.to_tensor([0.0, 1.0]))


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_send_u_recv(op):
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((4, 3))
    src, dst = np.array([0, 1, 2, 0, 3]), np.array([1, 2, 1, 0, 0])
    x = paddle.to_tensor(xs, stop_gradient=False)
    res = G.send_u_recv(x, paddle.to_tensor(src), paddle.to_tensor(dst), reduce_op=op)
    np.testing.assert_allclose(res.numpy(), _reference(xs[src], dst, 4, op), rtol=1e-12)
    w, want = _fd_grad(lambda a: _reference(a[src], dst, 4, op), xs)
    (res * paddle.to_tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6, atol=1e-8)
    assert G.send_u_recv(x, paddle.to_tensor(src), paddle.to_tensor(dst), op, out_size=7).shape == [7, 3]


@pytest.mark.parametrize("mop", ["add", "sub", "mul", "div"])
def test_send_ue_recv_and_send_uv(mop):
    rng = np.random.default_rng(2)
    xs, es = rng.standard_normal((3, 2)), rng.uniform(0.5, 2.0, (4, 2))
    src, dst = np.array([0, 1, 2, 2]), np.array([1, 1, 0, 2])
    f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": lambda a, b: a / (b + 1e-12)}[mop]
    got = G.send_ue_recv(paddle.to_tensor(xs), paddle.to_tensor(es), paddle.to_tensor(src), paddle.to_tensor(dst),
                         mop, "sum")
    np.testing.assert_allclose(got.numpy(), _reference(f(xs[src], es), dst, 3, "sum"), rtol=1e-9)
    got = G.send_uv(paddle.to_tensor(xs), paddle.to_tensor(xs * 2 + 1), paddle.to_tensor(src), paddle.to_tensor(dst),
                    mop)
    np.testing.assert_allclose(got.numpy(), f(xs[src], (xs * 2 + 1)[dst]), rtol=1e-9)
    with pytest.raises(ValueError, match="message_op should be"):
        G.send_uv(paddle.to_tensor(xs), paddle.to_tensor(xs), paddle.to_tensor(src), paddle.to_tensor(dst), "pow")


def test_send_u_recv_sum_runs_in_a_static_program():
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [4, 2], "float64")
            src, dst = paddle.static.data("src", [-1], "int64"), paddle.static.data("dst", [-1], "int64")
            out = G.send_u_recv(x, src, dst, "mean")       # the number of edges is known only at run time
            with pytest.raises(NotImplementedError, match="dynamic mode"):
                G.send_u_recv(x, paddle.to_tensor(np.array([0])), paddle.to_tensor(np.array([1])), "max")
        xs = np.arange(8.0).reshape(4, 2)
        got = paddle.static.Executor().run(main, feed={"x": xs, "src": np.array([0, 1, 3]), "dst": np.array([1, 1, 0])},
                                           fetch_list=[out])[0]
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, [[6, 7], [1, 2], [0, 0], [0, 0]])


def test_reindex():
    x = paddle.to_tensor([0, 1, 2])
    src, dst, nodes = G.reindex_graph(x, paddle.to_tensor([8, 9, 0, 4, 7, 6, 7]), paddle.to_tensor([2, 3, 2], "int32"))
    assert src.numpy().tolist() == [3, 4, 0, 5, 6, 7, 6] and dst.numpy().tolist() == [0, 0, 1, 1, 1, 2, 2]
    assert nodes.numpy().tolist() == [0, 1, 2, 8, 9, 4, 7, 6]
    counts = [paddle.to_tensor([2, 3, 2], "int32"), paddle.to_tensor([1, 1, 1], "int32")]
    src, dst, nodes = G.reindex_heter_graph(x, [paddle.to_tensor([8, 9, 0, 4, 7, 6, 7]), paddle.to_tensor([0, 2, 3])],
                                            counts)
    assert src.numpy().tolist()[7:] == [0, 2, 8] and dst.numpy().tolist()[7:] == [0, 1, 2]
    assert nodes.numpy().tolist() == [0, 1, 2, 8, 9, 4, 7, 6, 3]
    with pytest.raises(ValueError, match="int32"):
        G.reindex_graph(x, paddle.to_tensor([1]), paddle.to_tensor([1, 0, 0]))


@pytest.mark.parametrize("weighted", [False, True])
def test_sampling_properties(weighted):
    row = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
    colptr = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
    query = np.array([0, 8, 5, 6, 2])
    weight = np.where(np.arange(13) == 9, 0.0, 1.0)       # edge 9 (a neighbour of node 6) is never drawn
    paddle.seed(11)
    args = (paddle.to_tensor(row), paddle.to_tensor(colptr))
    if weighted:
        nbr, count, eids = G.weighted_sample_neighbors(*args, paddle.to_tensor(weight, "float32"),
                                                       paddle.to_tensor(query), sample_size=1,
                                                       eids=paddle.arange(13), return_eids=True)
    else:
        nbr, count, eids = G.sample_neighbors(*args, paddle.to_tensor(query), sample_size=1, eids=paddle.arange(13),
                                              return_eids=True)
    assert count.dtype == paddle.int32 and nbr.dtype == paddle.int64
    assert count.numpy().tolist() == [1, 1, 1, 1, 1]
    for k, (q, e) in enumerate(zip(query, eids.numpy())):
        assert colptr[q] <= e < colptr[q + 1] and nbr.numpy()[k] == row[e]
    if weighted:
        assert eids.numpy()[3] == 10
    everything = G.sample_neighbors(*args, paddle.to_tensor(query), sample_size=-1)
    assert everything[1].numpy().tolist() == [2, 2, 2, 2, 1]
