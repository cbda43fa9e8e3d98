"""Shared helpers of the sparse tests: float64 finite differences of a sparse input's values."""
import numpy as np

import dy2st as paddle


def coo(a, sparse_dim=None, grad=False):
    x = paddle.to_tensor(np.asarray(a, np.float64)).to_sparse_coo(np.ndim(a) if sparse_dim is None else sparse_dim)
    x.stop_gradient = not grad
    return x


def csr(a, grad=False):
    x = paddle.to_tensor(np.asarray(a, np.float64)).to_sparse_csr()
    x.stop_gradient = not grad
    return x


def weighted_loss(out, seed=3):
    """sum(values * fixed random weights): a scalar whose gradient checks every output entry."""
    vals = out.values() if out.is_sparse() else out
    w = np.random.default_rng(seed).standard_normal(vals.shape)
    return (vals * paddle.to_tensor(w)).sum()


def check_values_grad(make_input, fn, eps=1e-6, tol=1e-6, params=()):
    """Compare the analytic gradient of ``weighted_loss(fn(x))`` w.r.t. x's values (and the dense
    ``params``) with central differences in float64."""
    x = make_input()
    x.stop_gradient = False
    weighted_loss(fn(x)).backward()
    analytic = [x.grad.values().numpy().copy()] + [p.grad.numpy().copy() for p in params]
    base = x.values().numpy().copy()

    def loss_at(values=None):
        y = make_input()
        if values is not None:
            y.values()._data[...] = values
        with paddle.no_grad():
            return float(weighted_loss(fn(y)).numpy())

    numeric = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        up, down = base.copy(), base.copy()
        up[i] += eps
        down[i] -= eps
        numeric[i] = (loss_at(up) - loss_at(down)) / (2 * eps)
    np.testing.assert_allclose(analytic[0], numeric, rtol=tol, atol=tol, err_msg="gradient of the values")
    for k, p in enumerate(params):
        arr = p._data            # the parameter's storage: perturbed in place
        numeric = np.zeros_like(arr)
        for i in np.ndindex(arr.shape):
            orig = arr[i]
            arr[i] = orig + eps
            up = loss_at()
            arr[i] = orig - eps
            down = loss_at()
            arr[i] = orig
            numeric[i] = (up - down) / (2 * eps)
        np.testing.assert_allclose(analytic[k + 1], numeric, rtol=tol, atol=tol, err_msg=f"gradient of param {k}")
