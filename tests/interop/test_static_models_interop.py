"""Static Programs built with our static API and saved by our save_inference_model load in real
Paddle 3.3.1 (paddle.jit.load, the inference predictor, static.load_inference_model) and give the
outputs our executor gives (<= 1e-5 relative). All models run in one Paddle subprocess."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.nn import functional as F

from runtime.formats.model_io import load_model

from .paddle_runner import assert_outputs_match, check_models

rng = np.random.default_rng(42)


def rand(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


# Each builder runs under program_guard and returns (feed vars, fetch vars, [input sets], setup)
# where setup(scope) may overwrite parameter values after the startup program ran.

def linear_relu():
    x = static.data("x", [None, 4], "float32")
    return [x], [static.nn.fc(x, 3, activation="relu")], [[rand(5, 4)]]


def matmul_add_relu():
    x = static.data("x", [None, 4], "float32")
    w = static.create_parameter([4, 3], "float32")
    b = static.create_parameter([3], "float32", default_initializer=paddle.nn.initializer.Constant(0.25))
    return [x], [F.relu(paddle.matmul(x, w) + b)], [[rand(5, 4)]]


def mlp():
    x = static.data("x", [None, 6], "float32")
    h = static.nn.fc(x, 16, activation="tanh")
    h = static.nn.fc(h, 8, activation="relu")
    return [x], [F.softmax(static.nn.fc(h, 4))], [[rand(3, 6)]]


def lenet():
    x = static.data("img", [None, 1, 12, 12], "float32")
    h = F.relu(paddle.nn.Conv2D(1, 4, 3, padding=1)(x))
    h = F.max_pool2d(h, 2, 2)
    h = F.relu(paddle.nn.Conv2D(4, 6, 3)(h))
    h = F.avg_pool2d(h, 2, 2)
    h = paddle.flatten(h, 1)
    h = paddle.nn.Linear(24, 10)(h)
    return [x], [F.softmax(h)], [[rand(2, 1, 12, 12)]]


def cond_if_else():
    x = static.data("x", [None, 4], "float32")
    y = static.nn.fc(x, 4)
    out = static.nn.cond(paddle.mean(y) > 0, lambda: y * 2.0, lambda: F.relu(y) - 1.0)
    pos, neg = np.full((2, 4), 3.0, np.float32), np.full((2, 4), -3.0, np.float32)
    return [x], [out], [[pos], [neg]]


def while_loop():
    x = static.data("x", [None, 3], "float32")
    i = paddle.zeros([1], "int64")
    n = paddle.full([1], 4, "int64")
    _, y = static.nn.while_loop(lambda i, y: i < n, lambda i, y: [i + 1, y * 0.5 + 1.0], [i, x])
    return [x], [y], [[rand(2, 3)]]


def cond_and_while():
    x = static.data("x", [None, 4], "float32")
    y = static.nn.fc(x, 4)
    y = static.nn.cond(paddle.sum(y) > 0, lambda: y + 10.0, lambda: y - 10.0)
    i = paddle.zeros([1], "int64")
    n = paddle.full([1], 3, "int64")

    def body(i, y):
        return [i + 1, static.nn.cond(paddle.mean(y) > 5.0, lambda: y - 1.0, lambda: y * 1.5)]
    _, y = static.nn.while_loop(lambda i, y: i < n, body, [i, y])
    return [x], [y], [[np.full((2, 4), 2.0, np.float32)], [np.full((2, 4), -2.0, np.float32)]]


def batch_norm_eval():
    x = static.data("x", [None, 4], "float32")
    bn = paddle.nn.BatchNorm1D(4)
    out = bn(x)

    def setup(scope):
        scope.vars[bn._mean.name] = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
        scope.vars[bn._variance.name] = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
        scope.vars[bn.weight.name] = np.array([1.0, 0.5, 2.0, -1.0], np.float32)
        scope.vars[bn.bias.name] = np.array([0.0, 0.1, -0.1, 0.2], np.float32)
    return [x], [out], [[rand(3, 4)]], setup


def two_inputs():
    x = static.data("x", [None, 4], "float32")
    y = static.data("y", [None, 3], "float32")
    h = static.nn.fc(x, 3)
    return [x, y], [h - y * 2.0, paddle.sum(h, axis=1)], [[rand(2, 4), rand(2, 3)]]


def parameterless():
    x = static.data("x", [None, 3], "float32")
    c = paddle.to_tensor(np.array([1.5, -2.0, 0.5], np.float32))
    y = paddle.concat([x * 3.0 + 1.0, paddle.transpose(paddle.transpose(x, [1, 0]), [1, 0]) + c], axis=0)
    return [x], [F.sigmoid(y)], [[rand(2, 3)]]


def transformer_block():
    """One post-norm encoder block: multi-head self-attention and a GELU feed-forward."""
    d, heads, seq = 8, 2, 5
    x = static.data("x", [None, seq, d], "float32")
    q, k, v = (paddle.nn.Linear(d, d)(x) for _ in range(3))

    def split(t):
        return paddle.transpose(paddle.reshape(t, [-1, seq, heads, d // heads]), [0, 2, 1, 3])
    q, k, v = split(q), split(k), split(v)
    att = F.softmax(paddle.matmul(q, k, transpose_y=True) * (1.0 / np.sqrt(d // heads)), axis=-1)
    o = paddle.reshape(paddle.transpose(paddle.matmul(att, v), [0, 2, 1, 3]), [-1, seq, d])
    h = paddle.nn.LayerNorm(d)(x + paddle.nn.Linear(d, d)(o))
    ff = paddle.nn.Linear(16, d)(F.gelu(paddle.nn.Linear(d, 16)(h)))
    return [x], [paddle.nn.LayerNorm(d)(h + ff)], [[rand(2, seq, d)]]


MODELS = {f.__name__: f for f in (linear_relu, matmul_add_relu, mlp, lenet, cond_if_else, while_loop,
                                  cond_and_while, batch_norm_eval, two_inputs, parameterless, transformer_block)}


def build_and_save(name, builder, work):
    """Build, run the startup program, compute our outputs and save; returns manifest entries."""
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        scope = static.Scope()
        with static.program_guard(main, startup):
            res = builder()
        feeds, fetches, input_sets = res[:3]
        main.verify()
        exe = static.Executor()
        with static.scope_guard(scope):
            exe.run(startup)
            if len(res) > 3:
                res[3](scope)
            prefix = work / name / "model"
            static.save_inference_model(str(prefix), feeds, fetches, exe, program=main)
            test_prog = main.clone(for_test=True)
            saved_fetches = load_model(prefix).fetch_names   # a fetched input is fetched from a copy
            entries = []
            for k, ins in enumerate(input_sets):
                ours = exe.run(test_prog, feed={v.name: a for v, a in zip(feeds, ins)}, fetch_list=fetches)
                entries.append({"name": f"{name}-{k}", "prefix": prefix, "inputs": ins,
                                "feed_names": [v.name for v in feeds], "ours": ours,
                                "fetch_names": saved_fetches})
        return entries
    finally:
        paddle.disable_static()


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    work = tmp_path_factory.mktemp("static_models")
    paddle.seed(7)
    manifest = []
    for name, builder in MODELS.items():
        manifest.extend(build_and_save(name, builder, work))
    return {m["name"]: m for m in manifest}, check_models(manifest, work)


def test_both_branches_are_exercised(results):
    entries, _ = results
    a, b = entries["cond_if_else-0"]["ours"][0], entries["cond_if_else-1"]["ours"][0]
    assert not np.allclose(a, b)


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("loader", ["jit", "predictor", "static"])
def test_paddle_loads_our_model(model, loader, results):
    entries, got = results
    for name in sorted(n for n in entries if n.rsplit("-", 1)[0] == model):
        r = got[name]
        assert f"{loader}_error" not in r, f"{name}: Paddle's {loader} failed:\n{r[f'{loader}_error']}"
        assert_outputs_match(r[loader], entries[name]["ours"], f"{name} via Paddle {loader}")
        if loader == "predictor":
            assert r["predictor_names"] == entries[name]["fetch_names"]
        if loader == "static":
            assert r["static_feeds"] == entries[name]["feed_names"]


def test_while_loop_var_overwritten_before_read_loads_in_paddles_jit_loader(tmp_path):
    """A loop variable the body overwrites before reading it is still an input of the while op: Paddle's
    jit.load path takes the loop state from X and failed with 'Tensor holds no memory' without it."""
    import dy2st as paddle
    from .paddle_runner import assert_outputs_match, check_models

    class M(paddle.nn.Layer):
        def forward(self, h):
            i = paddle.full([1], 0, "int64")
            z = paddle.zeros_like(h)

            def body(i, h, z):
                h2 = h * 2.0
                return [i + 1, h2, h2 + 1.0]          # z is written, never read
            i, h, z = paddle.static.nn.while_loop(lambda i, h, z: i < 3, body, [i, h, z])
            return h                                  # z is not read after the loop either

    h0 = np.arange(6, dtype="float32").reshape(2, 3)
    net = M()
    spec = [paddle.static.InputSpec([None, 3], "float32", "h")]
    sf = paddle.jit.to_static(net, input_spec=spec)
    want = sf(paddle.to_tensor(h0)).numpy()
    prefix = tmp_path / "overwritten"
    paddle.jit.save(sf, str(prefix), input_spec=spec)
    got = check_models([{"name": "m", "prefix": prefix, "inputs": [h0], "feed_names": ["h"],
                         "loaders": ("jit", "predictor", "static")}], tmp_path)["m"]
    for loader in ("jit", "predictor", "static"):
        assert f"{loader}_error" not in got, got.get(f"{loader}_error")
        assert_outputs_match(got[loader], [want], f"Paddle's {loader}")
