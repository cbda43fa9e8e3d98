"""rand, randn, standard_normal, normal, uniform, randint(_like), randperm, bernoulli, multinomial,
rand_like/randn_like, Tensor.uniform_/normal_, and paddle.seed reproducibility."""
import numpy as np
import pytest

import runtime as paddle


def test_shapes_and_default_dtypes():
    assert paddle.rand([2, 3]).shape == [2, 3] and paddle.rand([2]).dtype == paddle.float32
    assert paddle.rand(4).shape == [4]
    assert paddle.rand([2], dtype="float64").dtype == paddle.float64
    assert paddle.randn([3]).dtype == paddle.float32 and paddle.standard_normal([2, 2]).shape == [2, 2]
    assert paddle.randint(5).shape == [1] and paddle.randint(5).dtype == paddle.int64
    assert paddle.randint(0, 5, [3], dtype="int32").dtype == paddle.int32
    assert paddle.randperm(4).dtype == paddle.int64 and paddle.randperm(4, "float32").dtype == paddle.float32
    assert paddle.uniform([2, 2]).shape == [2, 2]
    assert paddle.rand_like(paddle.ones([2], dtype="float64")).dtype == paddle.float64
    assert paddle.randn_like(paddle.ones([3, 1])).shape == [3, 1]


def test_seed_reproduces():
    paddle.seed(7)
    a = [paddle.rand([3]).numpy(), paddle.randn([3]).numpy(), paddle.randint(0, 100, [3]).numpy(),
         paddle.randperm(5).numpy()]
    paddle.seed(7)
    b = [paddle.rand([3]).numpy(), paddle.randn([3]).numpy(), paddle.randint(0, 100, [3]).numpy(),
         paddle.randperm(5).numpy()]
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    np.testing.assert_array_equal(paddle.uniform([4], seed=3).numpy(), paddle.uniform([4], seed=3).numpy())


def test_uniform_range_and_defaults():
    u = paddle.uniform([4000], min=-2.0, max=3.0).numpy()
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.15
    d = paddle.uniform([4000]).numpy()    # Paddle 3.3.1 defaults: min=0, max=1
    assert d.min() >= 0.0 and d.max() < 1.0
    r = paddle.rand([4000]).numpy()
    assert r.min() >= 0.0 and r.max() < 1.0 and abs(r.mean() - 0.5) < 0.05
    with pytest.raises(TypeError, match="dtype must be float16, float32 or float64, got int32"):
        paddle.rand([2], dtype="int32")


def test_normal():
    n = paddle.normal(2.0, 0.5, [5000]).numpy()
    assert abs(n.mean() - 2.0) < 0.05 and abs(n.std() - 0.5) < 0.05
    out = paddle.normal(paddle.to_tensor([0.0, 100.0]), 0.001)
    assert out.shape == [2] and abs(out.numpy()[1] - 100.0) < 0.1
    out = paddle.normal(0.0, paddle.to_tensor([[1e-4], [1e-4]]))
    assert out.shape == [2, 1] and np.all(np.abs(out.numpy()) < 0.01)
    with pytest.raises(ValueError, match="shape is required"):
        paddle.normal()


def test_randint():
    r = paddle.randint(-3, 5, [4000]).numpy()
    assert set(np.unique(r).tolist()) == set(range(-3, 5))
    assert set(np.unique(paddle.randint(3, shape=[500]).numpy()).tolist()) == {0, 1, 2}
    with pytest.raises(ValueError, match="low must be less than high"):
        paddle.randint(5, 5)
    with pytest.raises(TypeError, match="int32 or int64"):
        paddle.randint(0, 5, [2], dtype="float32")


def test_randperm_and_bernoulli_and_multinomial():
    assert sorted(paddle.randperm(20).tolist()) == list(range(20))
    p = paddle.to_tensor(np.tile([0.0, 1.0, 0.5], 1000).astype(np.float32))
    b = paddle.bernoulli(p).numpy()
    assert b.dtype == np.float32 and np.all(b[0::3] == 0) and np.all(b[1::3] == 1)
    assert abs(b[2::3].mean() - 0.5) < 0.06
    bp = paddle.bernoulli(paddle.zeros([3000]), p=0.25).numpy()
    assert abs(bp.mean() - 0.25) < 0.04
    m = paddle.multinomial(paddle.to_tensor([0.2, 0.0, 0.8]), 2000, replacement=True)
    assert m.dtype == paddle.int64 and m.shape == [2000]
    np.testing.assert_allclose(np.bincount(m.numpy(), minlength=3) / 2000, [0.2, 0.0, 0.8], atol=0.04)
    nr = paddle.multinomial(paddle.to_tensor([[0.5, 0.0, 0.5]]), 2).numpy()
    assert sorted(nr[0].tolist()) == [0, 2]


@pytest.mark.skipif("cast" not in paddle.ops.registry.all_ops(), reason="cast not registered yet")
def test_randint_like():
    r = paddle.randint_like(paddle.zeros([300]), 0, 3)
    assert r.dtype == paddle.float32 and set(np.unique(r.numpy()).tolist()) == {0.0, 1.0, 2.0}
    assert paddle.randint_like(paddle.zeros([2], dtype="int64"), 5).dtype == paddle.int64


def test_inplace_uniform_normal():
    x = paddle.zeros([1000])
    assert x.uniform_(-1.0, 1.0) is x
    assert x.numpy().min() >= -1.0 and x.numpy().max() < 1.0 and x.numpy().std() > 0.3
    x.normal_(5.0, 0.1)
    assert abs(x.numpy().mean() - 5.0) < 0.05 and x.dtype == paddle.float32
