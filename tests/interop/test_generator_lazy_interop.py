"""Differential test, against real Paddle 3.3.1 in one subprocess, of ``paddle.Generator`` (seeding, saved
states replaying a sequence, the multi-state index API, bad seeds), ``paddle.LazyGuard`` (parameters whose
initializer runs at ``param.initialize()``, once), ``Tensor.stft`` / ``Tensor.istft`` and
``Tensor.top_p_sampling`` (no CPU kernel in Paddle: the exception type is compared). Generators' raw bits
differ by design (numpy PCG64 here), so sequences are compared through equalities, not values.
"""
import textwrap

import pytest

from .diff_prelude import PADDLE_MAIN, assert_same_as_paddle, with_helpers
from .paddle_runner import differential

CODE = with_helpers(textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        out = {}
        h = diff_helpers(paddle, out, lists="flat")
        T, put, err = h.T, h.put, h.err

        # -- paddle.Generator
        g = paddle.Generator()
        put("gen.manual_seed_returns_generator", np.array(type(g.manual_seed(5)) is type(g)))
        put("gen.initial_seed", np.array(g.initial_seed(), dtype=np.uint64))
        a1, a2 = g.random(), g.random()
        g.manual_seed(5)
        put("gen.reseed_replays", np.array([g.random() == a1, g.random() == a2]))
        s = g.get_state()
        b1, b2 = g.random(), g.random()
        put("gen.state_current_seed", np.array(s.current_seed(), dtype=np.uint64))
        g.set_state(s)
        put("gen.set_state_replays", np.array([g.random() == b1, g.random() == b2]))
        new = g.seed()
        put("gen.seed_is_initial", np.array([new == g.initial_seed(), 0 <= new < 2 ** 64]))
        g.manual_seed(7)
        s7 = g.get_state()
        c1 = g.random()
        put("gen.state_index0", np.array(g.get_state_index()))
        put("gen.register_returns", np.array(g.register_state_index(s7)))
        put("gen.state_index_after_register", np.array(g.get_state_index()))
        put("gen.registered_replays", np.array(g.random() == c1))
        c2 = g.random()
        g.set_state_index(0)
        g.manual_seed(7)
        g.random()
        put("gen.index0_independent", np.array(g.random() == c2))
        d = paddle.seed(11)
        put("gen.seed_returns_generator", np.array([type(d) is type(g), d.initial_seed() == 11]))
        st = d.get_state()
        r1 = paddle.rand([3]).numpy()
        d.set_state(st)
        put("gen.default_state_replays_rand", np.array((paddle.rand([3]).numpy() == r1).all()))
        d.manual_seed(11)
        put("gen.default_manual_seed_replays_rand", np.array((paddle.rand([3]).numpy() == r1).all()))
        err("err.gen.negative_seed", lambda: paddle.Generator().manual_seed(-1))
        err("err.gen.float_seed", lambda: paddle.Generator().manual_seed(1.5))

        # -- paddle.LazyGuard
        C = paddle.nn.initializer.Constant
        with paddle.LazyGuard():
            q = paddle.create_parameter([2, 3], "float32", default_initializer=C(0.5))
            lin = paddle.nn.Linear(3, 2, weight_attr=paddle.ParamAttr(initializer=C(0.25)),
                                   bias_attr=paddle.ParamAttr(initializer=C(1.5)))
        put("lazy.shape", np.array(list(q.shape)))
        put("lazy.dtype", np.array(str(q.dtype)))
        put("lazy.initialized_before", np.array([q._is_initialized(), lin.weight._is_initialized(),
                                                 lin.bias._is_initialized()]))
        q.initialize()
        put("lazy.value", q)
        put("lazy.initialized_after", np.array(q._is_initialized()))
        err("err.lazy.initialize_twice", q.initialize)
        for p in lin.parameters():
            p.initialize()
        put("lazy.linear_forward", lin(T(np.ones((1, 3)), "float32")))
        eager = paddle.create_parameter([2], "float32")
        put("lazy.eager_initialized", np.array(eager._is_initialized()))
        err("err.lazy.initialize_eager_param", eager.initialize)

        # -- Tensor.stft / Tensor.istft / Tensor.top_p_sampling
        sig = T(np.sin(np.arange(256) * 0.3) + 0.1 * np.cos(np.arange(256) * 1.7), "float64")
        spec = sig.stft(64, hop_length=16)
        put("stft.method", spec)
        put("stft.method_window", sig.stft(32, window=paddle.audio.functional.get_window("hann", 32,
                                                                                            dtype="float64")))
        put("istft.method", spec.istft(64, hop_length=16, length=256))
        probs = paddle.nn.functional.softmax(T(np.arange(10.0).reshape(2, 5), "float32"))
        err("err.top_p_sampling.cpu", lambda: probs.top_p_sampling(paddle.full([2, 1], 0.8)))
        paddle.enable_static()
        try:
            with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
                xs = paddle.static.data("x", [2, 5], "float32")
                ps = paddle.static.data("ps", [2, 1], "float32")
                err("err.static.top_p_sampling.cpu", lambda: xs.top_p_sampling(ps))
        finally:
            paddle.disable_static()
        return out
'''))


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """Paddle runs with its default flags (PIR static mode), then ours."""
    return differential(CODE, PADDLE_MAIN, tmp_path_factory.mktemp("generator_lazy"), "generator / LazyGuard",
                        default_flags=True)


def test_same_results_and_errors(both):
    assert_same_as_paddle(*both)
