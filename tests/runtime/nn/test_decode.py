"""BeamSearchDecoder and dynamic_decode (runtime/nn/decode.py) against a plain-numpy beam search, plus
dynamic_decode's bookkeeping for decoders that do not track their own finished flags."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn

V, H, B, K = 7, 5, 3, 3      # vocab, hidden, batch, beam
END = 1


class Cell(nn.Layer):
    """h' = tanh(E[token] + h W); logits come from output_fn."""

    def __init__(self, E, W):
        super().__init__()
        self.E = paddle.to_tensor(E)
        self.W = paddle.to_tensor(W)

    def forward(self, tokens, h):
        h2 = paddle.tanh(paddle.gather(self.E, tokens) + paddle.matmul(h, self.W))
        return h2, h2


def _log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def numpy_beam_search(E, W, O, h0, start, end, beam, max_step_num):
    """Paddle's beam-search rules written per batch entry with Python lists."""
    outs_ids, outs_parents, outs_scores = [], [], []
    lp = np.tile([0.0] + [-1e9] * (beam - 1), (h0.shape[0], 1))
    h = np.repeat(h0[:, None], beam, 1)
    tok = np.full((h0.shape[0], beam), start)
    fin = np.zeros((h0.shape[0], beam), bool)
    lengths = np.zeros((h0.shape[0], beam), np.int64)
    step = 0
    while not fin.all():
        h_new = np.tanh(E[tok] + h @ W)
        logp = _log_softmax(h_new @ O)
        noend = np.full(logp.shape[-1], -1e9)
        noend[end] = 0.0
        logp = np.where(fin[..., None], noend, logp)
        total = (lp[..., None] + logp).reshape(h0.shape[0], -1)
        idx = np.argsort(-total, axis=1, kind="stable")[:, :beam]
        parent, token = idx // logp.shape[-1], idx % logp.shape[-1]
        rows = np.arange(h0.shape[0])[:, None]
        lp = np.take_along_axis(total, idx, 1)
        h = h_new[rows, parent]
        lengths = lengths[rows, parent] + ~fin[rows, parent]
        fin = fin[rows, parent] | (token == end)
        tok = token
        outs_ids.append(token)
        outs_parents.append(parent)
        outs_scores.append(lp)
        step += 1
        if step > max_step_num:
            break
    ids, parents = np.array(outs_ids), np.array(outs_parents)
    # backtrack the parents from the last step
    full = np.empty_like(ids)
    cur = np.tile(np.arange(beam), (h0.shape[0], 1))
    for t in range(len(ids) - 1, -1, -1):
        full[t] = np.take_along_axis(ids[t], cur, 1)
        cur = np.take_along_axis(parents[t], cur, 1)
    return full.transpose(1, 0, 2), lp, fin, lengths, h


@pytest.fixture
def float64_default():
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    yield
    paddle.set_default_dtype(old)


@pytest.mark.parametrize("max_step_num", [2, 9])
def test_beam_search_matches_numpy(float64_default, max_step_num):
    rng = np.random.default_rng(max_step_num)
    E, W, O = rng.standard_normal((V, H)), rng.standard_normal((H, H)), rng.standard_normal((H, V)) * 2
    O[:, END] += 0.8          # make ending likely, so beams finish at different steps
    h0 = rng.standard_normal((B, H))
    proj = nn.Linear(H, V, bias_attr=False)
    proj.weight.set_value(O)
    dec = nn.BeamSearchDecoder(Cell(E, W), start_token=0, end_token=END, beam_size=K, output_fn=proj)
    ids, states, lens = nn.dynamic_decode(dec, inits=paddle.to_tensor(h0), max_step_num=max_step_num,
                                          return_length=True)
    ref_ids, lp, fin, lengths, h = numpy_beam_search(E, W, O, h0, 0, END, K, max_step_num)
    np.testing.assert_array_equal(ids.numpy(), ref_ids)
    np.testing.assert_allclose(states.log_probs.numpy(), lp, rtol=1e-10)
    np.testing.assert_array_equal(states.finished.numpy(), fin)
    np.testing.assert_array_equal(states.lengths.numpy(), lengths)
    np.testing.assert_array_equal(lens.numpy(), lengths)
    np.testing.assert_allclose(states.cell_states.numpy(), h, rtol=1e-10)
    assert ids.dtype == paddle.int64 and ids.shape[0] == B and ids.shape[2] == K
    # time-major output is the same tensor transposed
    tm, _ = nn.dynamic_decode(dec, inits=paddle.to_tensor(h0), max_step_num=max_step_num, output_time_major=True)
    np.testing.assert_array_equal(tm.numpy(), ref_ids.transpose(1, 0, 2))


def test_tile_beam_merge_with_batch():
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3))
    out = nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 2).numpy()
    np.testing.assert_array_equal(out, np.repeat(np.arange(6.0).reshape(2, 3), 2, axis=0))


class Countdown(paddle.nn.decode.Decoder):
    """Entry b emits its remaining count and finishes when it reaches 0; the state counts steps."""

    def __init__(self, starts):
        self.starts = starts

    def initialize(self, inits):
        return (paddle.to_tensor(self.starts), {"steps": paddle.zeros([len(self.starts), 1], "float32")},
                paddle.to_tensor(np.zeros(len(self.starts), bool)))

    def step(self, time, inputs, states, **kwargs):
        nxt = inputs - 1
        return nxt, {"steps": states["steps"] + 1}, nxt, paddle.less_equal(nxt, paddle.zeros_like(nxt))


@pytest.mark.parametrize("impute", [False, True])
def test_decoder_without_own_finished_tracking(impute):
    """Numbers measured in Paddle 3.3.1: its eager loop writes the new finished flags before counting
    lengths and imputing states (the finishing step is not counted); its static (PIR) loop uses the
    flags from before the step."""
    starts = np.array([2, 4, 1], np.int64)
    outs, states, lens = nn.dynamic_decode(Countdown(starts), impute_finished=impute, return_length=True)
    assert outs.numpy().tolist() == [[1, 0, -1, -2], [3, 2, 1, 0], [0, -1, -2, -3]]
    assert lens.numpy().tolist() == [1, 3, 0]
    assert states["steps"].numpy().ravel().tolist() == ([1, 3, 0] if impute else [4, 4, 4])

    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [3], "int64")
            outs, states, lens = nn.dynamic_decode(StaticCountdown(), inits=x, impute_finished=impute,
                                                   return_length=True)
        got = paddle.static.Executor().run(main, feed={"x": starts}, fetch_list=[outs, states["steps"], lens])
    finally:
        paddle.disable_static()
    assert got[0].tolist() == [[1, 0, -1, -2], [3, 2, 1, 0], [0, -1, -2, -3]]
    assert got[2].tolist() == [2, 4, 1]
    assert got[1].ravel().tolist() == ([2, 4, 1] if impute else [4, 4, 4])


class StaticCountdown(Countdown):
    """Countdown whose initial ids come from the (static) input."""

    def __init__(self):
        pass

    def initialize(self, inits):
        return inits, {"steps": paddle.zeros([3, 1], "float32")}, paddle.cast(paddle.zeros_like(inits), "bool")


def test_max_step_num():
    outs, _ = nn.dynamic_decode(Countdown(np.array([9], np.int64)), max_step_num=2)
    assert outs.shape == [1, 3]          # max_step_num + 1 steps, as in Paddle


def _beam_setup(seed):
    rng = np.random.default_rng(seed)
    E, W, O = rng.standard_normal((V, H)), rng.standard_normal((H, H)), rng.standard_normal((H, V)) * 2
    O[:, END] += 0.8
    proj = nn.Linear(H, V, bias_attr=False)
    proj.weight.set_value(O)
    dec = nn.BeamSearchDecoder(Cell(E, W), start_token=0, end_token=END, beam_size=K, output_fn=proj)
    return dec, rng.standard_normal((B, H)), (E, W, O)


@pytest.mark.parametrize("max_step_num", [None, 3])
def test_dynamic_decode_in_a_static_program(float64_default, max_step_num):
    """The while-op version gives the eager results, for a batch size unknown when the Program is built."""
    dec, h0, (E, W, O) = _beam_setup(4)
    eager = nn.dynamic_decode(dec, inits=paddle.to_tensor(h0), max_step_num=max_step_num, return_length=True)
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            h = paddle.static.data("h", [None, H], "float64")
            ids, states, lens = nn.dynamic_decode(dec, inits=h, max_step_num=max_step_num, return_length=True,
                                                  is_test=True)
            fetch = [ids, states.log_probs, states.finished, lens]
        assert "while" in [op.type for op in main.global_block().ops]
        got = paddle.static.Executor().run(main, feed={"h": h0}, fetch_list=fetch)
    finally:
        paddle.disable_static()
    ids_e, st_e, lens_e = eager
    np.testing.assert_array_equal(got[0], ids_e.numpy())
    np.testing.assert_allclose(got[1], st_e.log_probs.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(got[2], st_e.finished.numpy())
    np.testing.assert_array_equal(got[3], lens_e.numpy())


def test_dynamic_decode_under_to_static(float64_default):
    dec, h0, _ = _beam_setup(5)

    class Searcher(nn.Layer):
        def __init__(self):
            super().__init__()
            self.dec = dec

        def forward(self, h):
            ids, _ = nn.dynamic_decode(self.dec, inits=h, max_step_num=5)
            return ids

    net = Searcher()
    eager = net(paddle.to_tensor(h0)).numpy()
    static_net = paddle.jit.to_static(net, input_spec=[paddle.static.InputSpec([None, H], "float64")])
    np.testing.assert_array_equal(static_net(paddle.to_tensor(h0)).numpy(), eager)
