"""The numpy floor: each workload written once by hand in plain numpy (float32, lean temporaries).

``make(model, cfg, weights, inputs)`` returns a Floor with ``run()`` (one timed call: the
inference output, or one training step: forward, backward, SGD update of its own weight copy
returning the loss) and for training workloads ``grads()`` (loss and gradients by parameter
name, in Paddle's layouts) used to check the frameworks.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

_GELU_C = np.float32(np.sqrt(2.0 / np.pi))


def _softmax_(z):
    """Softmax over the last axis, in place."""
    z -= z.max(axis=-1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=-1, keepdims=True)
    return z


_ZEROS = {}


def _relu_(a):
    """ReLU in place, against a zero array of a's shape: numpy 2.4's maximum against the scalar 0 runs
    a 4-5x slower loop (dy2st's kernels do the same since issue 17's third round: the floor keeps the
    best plain-numpy form)."""
    z = _ZEROS.get((a.shape, a.dtype))
    if z is None:
        z = _ZEROS[(a.shape, a.dtype)] = np.zeros(a.shape, a.dtype)
    return np.maximum(a, z, out=a)


def _sigmoid_(z):
    np.negative(z, out=z)
    np.exp(z, out=z)
    z += 1.0
    np.reciprocal(z, out=z)
    return z


def _layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    var = np.einsum("...i,...i->...", xc, xc)[..., None] / np.float32(x.shape[-1])
    var += eps
    np.sqrt(var, out=var)
    xc /= var
    xc *= w
    xc += b
    return xc


def _gelu_tanh(x):
    t = x * x
    t *= 0.044715
    t += 1.0
    t *= x
    t *= _GELU_C
    np.tanh(t, out=t)
    t += 1.0
    t *= x
    t *= 0.5
    return t


class Floor:
    def __init__(self, run, grads=None, params=None):
        self.run = run
        self.grads = grads
        self.params = params


# ----------------------------------------------------------------------------- inference

def _mlp(w, x, softmax=True):
    w1, b1, w2, b2 = w["fc1.weight"], w["fc1.bias"], w["fc2.weight"], w["fc2.bias"]

    def run():
        h = x @ w1
        h += b1
        _relu_(h)
        o = h @ w2
        o += b2
        return _softmax_(o) if softmax else o
    return run


def _control_flow(w, x):
    w1, b1, w2, b2 = w["fc1.weight"], w["fc1.bias"], w["fc2.weight"], w["fc2.bias"]

    def run():
        h = x @ w1
        h += b1
        _relu_(h)
        if h.mean() > 0.5:
            h *= 2.0
        else:
            h -= 1.0
        for _ in range(3):
            h = np.tanh(h) + h * np.float32(0.5)
        o = h @ w2
        o += b2
        return o
    return run


def _lstm(w, x, hidden):
    W, b = w["gates.weight"], w["gates.bias"]
    T, B, n_in = x.shape
    H = hidden

    def run():
        xh = np.zeros((B, n_in + H), np.float32)   # [x_t, h] without a concat per step
        c = np.zeros((B, H), np.float32)
        out = np.empty((T, B, H), np.float32)
        for t in range(T):
            xh[:, :n_in] = x[t]
            z = xh @ W
            z += b
            _sigmoid_(z[:, :2 * H])
            _sigmoid_(z[:, 3 * H:])
            np.tanh(z[:, 2 * H:3 * H], out=z[:, 2 * H:3 * H])
            c *= z[:, H:2 * H]
            c += z[:, :H] * z[:, 2 * H:3 * H]
            h = out[t]
            np.tanh(c, out=h)
            h *= z[:, 3 * H:]
            xh[:, n_in:] = h
        return out
    return run


def _conv(x, w, b, pad, keep=False):
    """NCHW convolution (stride 1): patches [N, C*k*k, OH*OW] from a strided view (one copy), then
    one batched GEMM W[O, C*k*k] @ patches that lands directly in NCHW. Returns (out, patches
    if ``keep`` else None): freeing the patches at once lets the allocator reuse their pages
    (holding them made every call fault in fresh pages, ~3x slower on LeNet)."""
    n, c = x.shape[:2]
    o, _, k, _ = w.shape
    if pad:
        x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = sliding_window_view(x, (k, k), axis=(2, 3))            # [N, C, OH, OW, k, k], a view
    oh, ow = win.shape[2:4]
    cols = win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * k * k, oh * ow)
    out = w.reshape(o, -1) @ cols
    out += b[:, None]
    return out.reshape(n, o, oh, ow), (cols if keep else None)


def _pool2(x):
    """2x2 max pooling, stride 2, over the last two axes: the max of four strided views."""
    return np.maximum(np.maximum(x[..., 0::2, 0::2], x[..., 0::2, 1::2]),
                      np.maximum(x[..., 1::2, 0::2], x[..., 1::2, 1::2]))


def _pool2_back(r, pooled, d):
    """Route ``d`` to the positions holding each window's max (ties: the first, as Paddle)."""
    out = np.zeros_like(r)
    taken = np.zeros(pooled.shape, bool)
    for a in (0, 1):
        for b in (0, 1):
            hit = r[..., a::2, b::2] == pooled
            hit &= ~taken
            taken |= hit
            out[..., a::2, b::2] = d * hit
    return out


class _LeNet:
    """LeNet-5 in NCHW; each convolution is one batched GEMM over strided patch views."""

    def __init__(self, w, prefix=""):
        self.w = w
        self.p = prefix

    def forward(self, x, keep=False):
        p, w = self.p, self.w
        n = x.shape[0]
        r1, cols1 = _conv(x, w[p + "conv1.weight"], w[p + "conv1.bias"], 2, keep)
        _relu_(r1)
        p1 = _pool2(r1)                                              # [N, 6, 14, 14]
        r2, cols2 = _conv(p1, w[p + "conv2.weight"], w[p + "conv2.bias"], 0, keep)
        _relu_(r2)
        p2 = _pool2(r2)                                              # [N, 16, 5, 5]
        f = p2.reshape(n, 400)
        a1 = f @ w[p + "fc1.weight"]
        a1 += w[p + "fc1.bias"]
        _relu_(a1)
        a2 = a1 @ w[p + "fc2.weight"]
        a2 += w[p + "fc2.bias"]
        _relu_(a2)
        z = a2 @ w[p + "fc3.weight"]
        z += w[p + "fc3.bias"]
        if keep:
            return z, (cols1, r1, p1, cols2, r2, p2, f, a1, a2)
        return z

    def backward(self, dz, saved):
        p, w = self.p, self.w
        cols1, r1, p1, cols2, r2, p2, f, a1, a2 = saved
        n = dz.shape[0]
        g = {p + "fc3.weight": a2.T @ dz, p + "fc3.bias": dz.sum(0)}
        d = dz @ w[p + "fc3.weight"].T
        d *= a2 > 0
        g[p + "fc2.weight"] = a1.T @ d
        g[p + "fc2.bias"] = d.sum(0)
        d = d @ w[p + "fc2.weight"].T
        d *= a1 > 0
        g[p + "fc1.weight"] = f.T @ d
        g[p + "fc1.bias"] = d.sum(0)
        d = (d @ w[p + "fc1.weight"].T).reshape(n, 16, 5, 5)
        d2 = _pool2_back(r2, p2, d)
        d2 *= r2 > 0
        d2m = d2.reshape(n, 16, 100)
        g[p + "conv2.weight"] = (d2m @ cols2.transpose(0, 2, 1)).sum(0).reshape(16, 6, 5, 5)
        g[p + "conv2.bias"] = d2m.sum(axis=(0, 2))
        dcols = (w[p + "conv2.weight"].reshape(16, 150).T @ d2m).reshape(n, 6, 5, 5, 10, 10)
        dp1 = np.zeros((n, 6, 14, 14), np.float32)
        for i in range(5):
            for j in range(5):
                dp1[:, :, i:i + 10, j:j + 10] += dcols[:, :, i, j]
        d1 = _pool2_back(r1, p1, dp1)
        d1 *= r1 > 0
        d1m = d1.reshape(n, 6, 784)
        g[p + "conv1.weight"] = (d1m @ cols1.transpose(0, 2, 1)).sum(0).reshape(6, 1, 5, 5)
        g[p + "conv1.bias"] = d1m.sum(axis=(0, 2))
        return g


def _transformer(w, x, heads):
    B, S, D = x.shape
    dh = D // heads
    scale = np.float32(dh ** -0.5)
    x2 = x.reshape(B * S, D)

    def proj(name, a):
        y = a @ w[name + ".weight"]
        y += w[name + ".bias"]
        return y

    def run():
        q = proj("q", x2).reshape(B, S, heads, dh).transpose(0, 2, 1, 3)
        k = proj("k", x2).reshape(B, S, heads, dh).transpose(0, 2, 3, 1)
        v = proj("v", x2).reshape(B, S, heads, dh).transpose(0, 2, 1, 3)
        att = q @ k
        att *= scale
        _softmax_(att)
        ctx = (att @ v).transpose(0, 2, 1, 3).reshape(B * S, D)
        h = proj("o", ctx)
        h += x2
        h = _layer_norm(h, w["norm1.weight"], w["norm1.bias"])
        f = proj("ff2", _gelu_tanh(proj("ff1", h)))
        f += h
        return _layer_norm(f, w["norm2.weight"], w["norm2.bias"]).reshape(B, S, D)
    return run


# ----------------------------------------------------------------------------- training

def _ce_loss_grad(z, label):
    """Mean softmax cross-entropy over the batch and its gradient w.r.t. the logits."""
    n = z.shape[0]
    lab = label.reshape(-1)
    p = _softmax_(z.copy())
    loss = -np.log(p[np.arange(n), lab]).mean(dtype=np.float64)
    p[np.arange(n), lab] -= 1.0
    p /= np.float32(n)
    return np.float32(loss), p


def _train_mlp(w, x, label, lr):
    pre = "net."

    def grads():
        w1, b1, w2, b2 = (w[pre + k] for k in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"))
        h = x @ w1
        h += b1
        _relu_(h)
        z = h @ w2
        z += b2
        loss, dz = _ce_loss_grad(z, label)
        dh = dz @ w2.T
        dh *= h > 0
        return loss, {pre + "fc1.weight": x.T @ dh, pre + "fc1.bias": dh.sum(0),
                      pre + "fc2.weight": h.T @ dz, pre + "fc2.bias": dz.sum(0)}
    return grads


def _train_lenet(w, x, label, lr):
    net = _LeNet(w, "net.")

    def grads():
        z, saved = net.forward(x, keep=True)
        loss, dz = _ce_loss_grad(z, label)
        return loss, net.backward(dz, saved)
    return grads


def _sgd_step(w, grads_fn, lr):
    lr = np.float32(lr)

    def run():
        loss, g = grads_fn()
        for k, gk in g.items():
            gk *= lr
            w[k] -= gk
        return loss
    return run


def make(model, cfg, weights, inputs, lr=0.01):
    """A Floor for one workload; it owns a copy of ``weights`` (training updates it)."""
    w = {k: v.copy() for k, v in weights.items()}
    x = inputs["x"]
    if model == "mlp":
        return Floor(_mlp(w, x), params=w)
    if model == "control_flow":
        return Floor(_control_flow(w, x), params=w)
    if model == "lstm":
        return Floor(_lstm(w, x, cfg["hidden"]), params=w)
    if model == "lenet":
        net = _LeNet(w)
        return Floor(lambda: net.forward(x), params=w)
    if model == "transformer":
        return Floor(_transformer(w, x, cfg["heads"]), params=w)
    if model in ("train_mlp", "train_lenet"):
        g = (_train_mlp if model == "train_mlp" else _train_lenet)(w, x, inputs["label"], lr)
        return Floor(_sgd_step(w, g, lr), grads=g, params=w)
    raise KeyError(model)
