"""paddle.incubate's operator functions against numpy references (gradients by finite differences)."""
import numpy as np
import pytest

import dy2st as paddle
from ._fd import numeric_grad

inc = paddle.incubate


def _softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_softmax_mask_fuse_values_and_grad():
    rng = np.random.default_rng(0)
    x, m, w = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((2, 1, 4, 5)), rng.standard_normal((2, 3, 4, 5))
    xt = paddle.to_tensor(x, stop_gradient=False)
    mt = paddle.to_tensor(m, stop_gradient=False)
    out = inc.softmax_mask_fuse(xt, mt)
    np.testing.assert_allclose(out.numpy(), _softmax(x + m), rtol=1e-12)
    (out * paddle.to_tensor(w)).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), numeric_grad(lambda a: (_softmax(a + m) * w).sum(), x), atol=1e-7)
    assert mt.grad is None          # the mask is a constant, as in Paddle's kernel
    with pytest.raises(ValueError, match="4D"):
        inc.softmax_mask_fuse(xt[0], mt[0])
    with pytest.raises(NotImplementedError, match="only supports GPU"):
        inc.softmax_mask_fuse_upper_triangle(xt)


@pytest.mark.parametrize("reduction, ref", [("sum", np.sum), ("mean", np.mean), ("none", lambda a: a),
                                            (0, np.sum), (1, np.mean), (2, lambda a: a)])
def test_identity_loss(reduction, ref):
    a = np.arange(12.0).reshape(3, 4) / 7
    t = paddle.to_tensor(a, stop_gradient=False)
    out = inc.identity_loss(t, reduction)
    np.testing.assert_allclose(out.numpy(), ref(a))
    out.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), numeric_grad(lambda v: np.sum(ref(v)), a), atol=1e-8)


def test_identity_loss_errors():
    with pytest.raises(TypeError, match="Unsupported reduction"):
        inc.identity_loss(paddle.ones([2]), "avg")
    with pytest.raises(ValueError, match="reduction should be 0, 1 and 2"):
        inc.identity_loss(paddle.ones([2]), 3)
    with pytest.raises(RuntimeError, match="float32 and float64"):
        inc.identity_loss(paddle.ones([2], dtype="int32"), "sum")


def test_graph_send_recv_and_segments():
    x = np.arange(15.0).reshape(5, 3) - 4
    src, dst = np.array([0, 1, 2, 0, 4]), np.array([1, 2, 1, 0, 0])
    ref = np.zeros_like(x)
    np.add.at(ref, dst, x[src])
    out = inc.graph_send_recv(paddle.to_tensor(x), paddle.to_tensor(src), paddle.to_tensor(dst), "sum")
    np.testing.assert_allclose(out.numpy(), ref)
    out = inc.graph_send_recv(paddle.to_tensor(x), paddle.to_tensor(src), paddle.to_tensor(dst), "max",
                              out_size=4)
    assert out.shape == [4, 3]
    np.testing.assert_allclose(out.numpy()[1], np.maximum(x[0], x[2]))
    with pytest.raises(ValueError, match="pool_type"):
        inc.graph_send_recv(paddle.to_tensor(x), paddle.to_tensor(src), paddle.to_tensor(dst), "prod")
    seg = paddle.to_tensor(np.array([0, 0, 1, 1, 1]))
    np.testing.assert_allclose(inc.segment_mean(paddle.to_tensor(x), seg).numpy(),
                               np.stack([x[:2].mean(0), x[2:].mean(0)]))
    np.testing.assert_allclose(inc.segment_min(paddle.to_tensor(x), seg).numpy(),
                               np.stack([x[:2].min(0), x[2:].min(0)]))


ROW = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
COLPTR = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])


def _t(a):
    return paddle.to_tensor(np.asarray(a, dtype=np.int64))


def test_sample_neighbors_all_and_reindex():
    nodes = [0, 8, 1, 2]
    neigh, cnt = inc.graph_sample_neighbors(_t(ROW), _t(COLPTR), _t(nodes))      # sample_size=-1: all
    assert neigh.numpy().tolist() == [3, 7, 9, 7, 0, 9, 1] and cnt.numpy().tolist() == [2, 2, 2, 1]
    with pytest.raises(ValueError, match="eids"):
        inc.graph_sample_neighbors(_t(ROW), _t(COLPTR), _t(nodes), return_eids=True)
    src, dst, out_nodes = inc.graph_reindex(_t(nodes), neigh, cnt)
    assert out_nodes.numpy().tolist() == [0, 8, 1, 2, 3, 7, 9]
    assert src.numpy().tolist() == [4, 5, 6, 5, 0, 6, 2] and dst.numpy().tolist() == [0, 0, 1, 1, 2, 2, 3]


def test_khop_two_hops_by_hand():
    # hop 1 from [5, 0]: 5 -> {9, 3}, 0 -> {3, 7}; frontier = {3, 7, 9} minus hop 1's nodes, sorted; hop 2 samples
    # its first 2 nodes (Paddle's kernel samples len(input_nodes) per hop): 3 -> {4}, 7 -> {}
    src, dst, index, reindexed = inc.graph_khop_sampler(_t(ROW), _t(COLPTR), _t([5, 0]), [5, 5])
    assert index.numpy().tolist() == [5, 0, 3, 7, 9, 4]
    assert reindexed.numpy().tolist() == [0, 1]
    edges = list(zip(index.numpy()[src.numpy().ravel()].tolist(), index.numpy()[dst.numpy().ravel()].tolist()))
    assert edges == [(9, 5), (3, 5), (3, 0), (7, 0), (4, 3)]
    assert src.shape == [5, 1] and dst.shape == [5, 1]


def test_khop_refuses_what_paddle_leaves_undefined():
    with pytest.raises(ValueError, match="frontier"):
        inc.graph_khop_sampler(_t(ROW), _t(COLPTR), _t([0, 8, 1, 2]), [5, 5])
    with pytest.raises(ValueError, match="sorted_eid"):
        inc.graph_khop_sampler(_t(ROW), _t(COLPTR), _t([0]), [2], return_eids=True)
    with pytest.raises(ValueError, match="should not be 0"):
        inc.graph_khop_sampler(_t(ROW), _t(COLPTR), _t(np.zeros(0)), [2])


def test_khop_sampling_draws_subsets():
    paddle.seed(1)
    src, dst, index, _ = inc.graph_khop_sampler(_t(ROW), _t(COLPTR), _t([0, 5, 8]), [1])
    assert src.shape == [3, 1]
    picked = index.numpy()[src.numpy().ravel()].tolist()
    assert picked[0] in (3, 7) and picked[1] in (9, 3) and picked[2] in (9, 7)


def test_inference_decorator_runs_without_tape():
    calls = []

    @inc.inference
    def f(x):
        calls.append(1)
        return paddle.tanh(x) * 2
    x = paddle.to_tensor(np.array([0.5, -1.0]), stop_gradient=False)
    y = f(x)
    np.testing.assert_allclose(y.numpy(), np.tanh([0.5, -1.0]) * 2)
    assert y.stop_gradient and inc.inference(f) is f
    layer = paddle.nn.Linear(2, 3)
    assert inc.inference(layer) is layer and layer(paddle.ones([1, 2])).stop_gradient
    with pytest.raises(NotImplementedError, match="precision_mode"):
        inc.inference(precision_mode="float16")
    with pytest.raises(NotImplementedError, match="TensorRT"):
        inc.inference(with_trt=True)


def test_cc_is_gpu_only():
    with pytest.raises(RuntimeError, match="ap_trivial_fusion_begin"):
        inc.cc.fuse.matmul(paddle.ones([2, 3]), paddle.ones([3, 2]), lambda t: t + 1)
    with pytest.raises(RuntimeError, match="cuda"):
        inc.cc.compile(lambda x: x)


def test_softmax_mask_fuse_static_program():
    rng = np.random.default_rng(2)
    xv, mv = rng.standard_normal((1, 2, 3, 4)), rng.standard_normal((1, 1, 3, 4))
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [1, 2, 3, 4], "float64")
            m = paddle.static.data("m", [1, 1, 3, 4], "float64")
            x.stop_gradient = m.stop_gradient = False
            y = inc.softmax_mask_fuse(x, m)
            gx, gm = paddle.static.gradients([y * y], [x, m])
        assert gm is None           # no gradient for the mask, as in eager mode and Paddle's kernel
        exe = paddle.static.Executor()
        exe.run(start)
        out, gxv = exe.run(main, feed={"x": xv, "m": mv}, fetch_list=[y, gx])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(out, _softmax(xv + mv), rtol=1e-12)
    np.testing.assert_allclose(gxv, numeric_grad(lambda a: (_softmax(a + mv) ** 2).sum(), xv), atol=1e-7)
