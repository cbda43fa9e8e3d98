"""RNN cells and sequence layers against numpy references (Paddle's gate layouts), gradients to parameters."""
import numpy as np
import pytest

import runtime as paddle

nn = paddle.nn
rng = np.random.default_rng(1)


def T(a, grad=False):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


def sig(v):
    return 1 / (1 + np.exp(-v))


def lstm_ref(x, h, c, wi, wh, bi, bh):
    gates = x @ wi.T + bi + h @ wh.T + bh
    i, f, g, o = np.split(gates, 4, axis=-1)
    c2 = sig(f) * c + sig(i) * np.tanh(g)
    return sig(o) * np.tanh(c2), c2


def gru_ref(x, h, wi, wh, bi, bh):
    xr, xz, xc = np.split(x @ wi.T + bi, 3, axis=-1)
    hr, hz, hc = np.split(h @ wh.T + bh, 3, axis=-1)
    r, z = sig(xr + hr), sig(xz + hz)
    cand = np.tanh(xc + r * hc)
    return (h - cand) * z + cand


def rnn_ref(x, h, wi, wh, bi, bh, act=np.tanh):
    return act(x @ wi.T + bi + h @ wh.T + bh)


def params(cell):
    return [p.numpy().astype(np.float64) for p in (cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)]


def numeric_param_grads(fn, arrays, eps=1e-6):
    """d fn(*arrays) / d arrays by central differences (fn returns a scalar)."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(*a.shape):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            g[idx] = (fn(*plus) - fn(*minus)) / (2 * eps)
        grads.append(g)
    return grads


def test_cell_shapes_names_and_repr():
    lstm = nn.LSTMCell(3, 4)
    assert [(n, p.shape) for n, p in lstm.named_parameters()] == [
        ("weight_ih", [16, 3]), ("weight_hh", [16, 4]), ("bias_ih", [16]), ("bias_hh", [16])]
    assert nn.GRUCell(3, 4).weight_ih.shape == [12, 3]
    assert nn.SimpleRNNCell(3, 4).weight_hh.shape == [4, 4]
    assert lstm.state_shape == ((4,), (4,)) and nn.GRUCell(3, 4).state_shape == (4,)
    assert repr(lstm) == "LSTMCell(3, 4)" and repr(nn.GRUCell(3, 4)) == "GRUCell(3, 4)"
    assert repr(nn.SimpleRNNCell(3, 4, activation="relu")) == "SimpleRNNCell(3, 4, activation=relu)"
    assert nn.LSTMCell(3, 4, bias_ih_attr=False).bias_ih is None
    with pytest.raises(ValueError, match="activation must be 'tanh' or 'relu'"):
        nn.SimpleRNNCell(3, 4, activation="gelu")
    with pytest.raises(ValueError, match="hidden_size must be a positive int"):
        nn.GRUCell(3, 0)


def test_lstm_cell_forward_default_states_and_grads():
    cell = nn.LSTMCell(3, 2).to(dtype="float64")
    x = rng.standard_normal((2, 3))
    h0, c0 = rng.standard_normal((2, 2)), rng.standard_normal((2, 2))
    wi, wh, bi, bh = params(cell)
    y, (h, c) = cell(T(x), (T(h0), T(c0)))
    hr, cr = lstm_ref(x, h0, c0, wi, wh, bi, bh)
    np.testing.assert_allclose(h.numpy(), hr, rtol=1e-10)
    np.testing.assert_allclose(c.numpy(), cr, rtol=1e-10)
    np.testing.assert_array_equal(y.numpy(), h.numpy())
    y0, (h_0, c_0) = cell(T(x))                       # states default to zeros
    np.testing.assert_allclose(h_0.numpy(), lstm_ref(x, 0 * h0, 0 * c0, wi, wh, bi, bh)[0], rtol=1e-10)
    gh, gc = rng.standard_normal((2, 2)), rng.standard_normal((2, 2))
    y, (h, c) = cell(T(x), (T(h0), T(c0)))
    ((h * T(gh)).sum() + (c * T(gc)).sum()).backward()

    def loss(wi, wh, bi, bh):
        hh, cc = lstm_ref(x, h0, c0, wi, wh, bi, bh)
        return (hh * gh).sum() + (cc * gc).sum()

    for p, num in zip((cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh),
                      numeric_param_grads(loss, [wi, wh, bi, bh])):
        np.testing.assert_allclose(p.grad.numpy(), num, rtol=1e-6, atol=1e-8)


def test_gru_cell_forward_and_grads():
    cell = nn.GRUCell(3, 2).to(dtype="float64")
    x, h0 = rng.standard_normal((2, 3)), rng.standard_normal((2, 2))
    wi, wh, bi, bh = params(cell)
    y, h = cell(T(x), T(h0))
    np.testing.assert_allclose(h.numpy(), gru_ref(x, h0, wi, wh, bi, bh), rtol=1e-10)
    assert y is h or np.array_equal(y.numpy(), h.numpy())
    g = rng.standard_normal((2, 2))
    (h * T(g)).sum().backward()
    nums = numeric_param_grads(lambda *w: (gru_ref(x, h0, *w) * g).sum(), [wi, wh, bi, bh])
    for p, num in zip((cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh), nums):
        np.testing.assert_allclose(p.grad.numpy(), num, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_simple_rnn_cell(activation):
    cell = nn.SimpleRNNCell(3, 4, activation=activation).to(dtype="float64")
    x, h0 = rng.standard_normal((2, 3)), rng.standard_normal((2, 4))
    act = np.tanh if activation == "tanh" else (lambda v: np.maximum(v, 0))
    y, h = cell(T(x), T(h0))
    np.testing.assert_allclose(h.numpy(), rnn_ref(x, h0, *params(cell), act=act), rtol=1e-10)
    xt = T(x, grad=True)
    cell(xt, T(h0))[0].sum().backward()
    assert xt.grad.shape == [2, 3] and cell.weight_ih.grad is not None


def _run_ref(step, xs, state, lengths=None, reverse=False):
    """Reference loop over time: xs [B, T, I]; states freeze after each sample's length."""
    steps = xs.shape[1]
    outs = [None] * steps
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    for t in order:
        out, new = step(xs[:, t], state)
        if lengths is not None:
            m = (t < lengths).astype(np.float64)[:, None]
            new = tuple(m * n + (1 - m) * s for n, s in zip(new, state))
        state = new
        outs[t] = out
    return np.stack(outs, 1), state


def test_rnn_wrapper_with_sequence_length_and_reverse():
    cell = nn.LSTMCell(3, 2).to(dtype="float64")
    rnn = nn.RNN(cell)
    wi, wh, bi, bh = params(cell)
    xs = rng.standard_normal((2, 5, 3))

    def step(x, st):
        h, c = lstm_ref(x, st[0], st[1], wi, wh, bi, bh)
        return h, (h, c)

    zero = (np.zeros((2, 2)), np.zeros((2, 2)))
    out, (h, c) = rnn(T(xs))
    ro, (rh, rc) = _run_ref(step, xs, zero)
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-10)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-10)
    lengths = np.array([5, 2], np.int64)
    out, (h, c) = rnn(T(xs), sequence_length=T(lengths))
    ro, (rh, rc) = _run_ref(step, xs, zero, lengths)
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-10)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-10)
    np.testing.assert_allclose(c.numpy(), rc, rtol=1e-10)
    rev = nn.RNN(cell, is_reverse=True)
    out, (h, c) = rev(T(xs), sequence_length=T(lengths))
    ro, (rh, rc) = _run_ref(step, xs, zero, lengths, reverse=True)
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-10)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-10)
    tm = nn.RNN(cell, time_major=True)
    out, _ = tm(T(xs.transpose(1, 0, 2)))
    np.testing.assert_allclose(out.numpy(), _run_ref(step, xs, zero)[0].transpose(1, 0, 2), rtol=1e-10)
    assert repr(rnn) == "RNN(\n  (cell): LSTMCell(3, 2)\n)"


def test_birnn():
    fw, bw = nn.GRUCell(3, 2).to(dtype="float64"), nn.GRUCell(3, 2).to(dtype="float64")
    bi = nn.BiRNN(fw, bw)
    xs = rng.standard_normal((2, 4, 3))
    pf, pb = params(fw), params(bw)
    zero = (np.zeros((2, 2)),)

    def step(p):
        return lambda x, st: (gru_ref(x, st[0], *p), (gru_ref(x, st[0], *p),))

    out, (sf, sb) = bi(T(xs))
    of, (hf,) = _run_ref(step(pf), xs, zero)
    ob, (hb,) = _run_ref(step(pb), xs, zero, reverse=True)
    np.testing.assert_allclose(out.numpy(), np.concatenate([of, ob], -1), rtol=1e-10)
    np.testing.assert_allclose(sf.numpy(), hf, rtol=1e-10)
    np.testing.assert_allclose(sb.numpy(), hb, rtol=1e-10)
    assert repr(nn.BiRNN(nn.SimpleRNNCell(3, 4), nn.GRUCell(3, 4))) == \
        "BiRNN(\n  (cell_fw): SimpleRNNCell(3, 4)\n  (cell_bw): GRUCell(3, 4)\n)"


def test_multilayer_lstm_bidirectional():
    lstm = nn.LSTM(3, 2, num_layers=2, direction="bidirect").to(dtype="float64")
    names = [n for n, _ in lstm.named_parameters()]
    assert names[:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    assert names[4] == "weight_ih_l0_reverse" and len(names) == 16
    assert lstm.weight_ih_l1.shape == [8, 4]
    assert "0.cell_fw.weight_ih" in lstm.state_dict() and "weight_ih_l0" in lstm.state_dict()
    xs = rng.standard_normal((2, 3, 3))
    out, (h, c) = lstm(T(xs))
    assert out.shape == [2, 3, 4] and h.shape == [4, 2, 2] and c.shape == [4, 2, 2]
    zero = (np.zeros((2, 2)), np.zeros((2, 2)))
    x = xs
    hs, cs = [], []
    for layer in range(2):
        outs = []
        for d, suffix in enumerate(["", "_reverse"]):
            p = [getattr(lstm, f"{n}_l{layer}{suffix}").numpy() for n in ("weight_ih", "weight_hh", "bias_ih",
                                                                           "bias_hh")]

            def step(xt, st, p=p):
                hh, cc = lstm_ref(xt, st[0], st[1], *p)
                return hh, (hh, cc)

            o, (hh, cc) = _run_ref(step, x, zero, reverse=d == 1)
            outs.append(o)
            hs.append(hh)
            cs.append(cc)
        x = np.concatenate(outs, -1)
    np.testing.assert_allclose(out.numpy(), x, rtol=1e-9)
    np.testing.assert_allclose(h.numpy(), np.stack(hs), rtol=1e-9)
    np.testing.assert_allclose(c.numpy(), np.stack(cs), rtol=1e-9)
    out.sum().backward()
    assert all(p.grad is not None for p in lstm.parameters())
    assert repr(nn.LSTM(3, 4, time_major=True, dropout=0.1)) == \
        "LSTM(3, 4, time_major=True, dropout=0.1\n  (0): RNN(\n    (cell): LSTMCell(3, 4)\n  )\n)"


def test_gru_and_simple_rnn_with_initial_states():
    gru = nn.GRU(3, 2).to(dtype="float64")
    xs = rng.standard_normal((2, 4, 3))
    h0 = rng.standard_normal((1, 2, 2))
    out, h = gru(T(xs), T(h0))
    p = [getattr(gru, f"{n}_l0").numpy() for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    ro, (rh,) = _run_ref(lambda x, st: (gru_ref(x, st[0], *p), (gru_ref(x, st[0], *p),)), xs, (h0[0],))
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-10)
    np.testing.assert_allclose(h.numpy(), rh[None], rtol=1e-10)
    srnn = nn.SimpleRNN(3, 4, num_layers=2)
    out, h = srnn(T(xs.astype(np.float32)))
    assert out.shape == [2, 4, 4] and h.shape == [2, 2, 4]
    assert repr(nn.SimpleRNN(3, 4)) == "SimpleRNN(3, 4\n  (0): RNN(\n    (cell): SimpleRNNCell(3, 4)\n  )\n)"
    with pytest.raises(ValueError, match="direction should be forward or bidirect"):
        nn.GRU(3, 2, direction="backward")


def test_lstm_cell_projection():
    cell = nn.LSTMCell(3, 4, proj_size=2).to(dtype="float64")
    assert cell.weight_hh.shape == [16, 2] and cell.weight_ho.shape == [4, 2]
    assert cell.state_shape == ((2,), (4,))
    x, h0, c0 = rng.standard_normal((2, 3)), rng.standard_normal((2, 2)), rng.standard_normal((2, 4))
    wi, wh, bi, bh = params(cell)
    _, (h, c) = cell(T(x), (T(h0), T(c0)))
    hr, cr = lstm_ref(x, h0, c0, wi, wh, bi, bh)
    np.testing.assert_allclose(h.numpy(), hr @ cell.weight_ho.numpy(), rtol=1e-10)
    np.testing.assert_allclose(c.numpy(), cr, rtol=1e-10)
    _, (h, c) = cell(T(x))
    assert h.shape == [2, 2] and c.shape == [2, 4]
    out, (hn, cn) = nn.LSTM(3, 4, proj_size=2)(T(x[:, None].astype(np.float32)))
    assert out.shape == [2, 1, 2] and hn.shape == [1, 2, 2] and cn.shape == [1, 2, 4]


@pytest.mark.parametrize("make", [lambda: nn.GRU(3, 2, num_layers=2), lambda: nn.LSTM(3, 2, direction="bidirect"),
                                  lambda: nn.SimpleRNN(3, 2, time_major=True)])
def test_rnn_layers_zero_outputs_after_sequence_length(make):
    # Paddle's fused rnn op (LSTM/GRU/SimpleRNN) writes zeros past each sample's length, while the
    # states and the valid steps equal a run on the truncated sequence (checked with Paddle 3.3.1)
    paddle.seed(3)
    m = make()
    xs = rng.standard_normal((2, 4, 3)).astype(np.float32)
    lengths = np.array([4, 2], np.int64)
    feed = xs.transpose(1, 0, 2) if m.time_major else xs
    out, _ = m(T(feed), sequence_length=T(lengths))
    out = out.numpy().transpose(1, 0, 2) if m.time_major else out.numpy()
    assert np.all(out[1, 2:] == 0) and np.all(out[1, :2] != 0)
    one = xs[1:2, :2]                        # sample 1 cut to its length
    short, _ = m(T(one.transpose(1, 0, 2) if m.time_major else one))
    short = short.numpy().transpose(1, 0, 2) if m.time_major else short.numpy()
    np.testing.assert_allclose(out[1, :2], short[0], rtol=1e-5, atol=1e-6)
