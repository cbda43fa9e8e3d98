"""Programs that index tensor arrays (``arr[-1]``, ``arr[i]`` with a 0-D tensor ``i``, ``arr[i] = v``),
saved by our jit.save (legacy .pdmodel, None batch dim), load and run in real Paddle 3.3.1 with the
values our jit.load gives (one Paddle subprocess). The forms themselves are compared with Paddle in
tests/dy2st/conformance/test_tensor_array_index.py."""
import json

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


def arrays_read_and_written(x, i):
    zero = paddle.zeros(shape=[1], dtype="int64")
    arr = paddle.tensor.create_array(dtype="float32")
    for k in range(3):
        arr = paddle.tensor.array_write(x * (k + 1.0), zero + k, array=arr)
    arr[1] = paddle.tanh(x)
    arr[3] = x - 1.0                   # an append
    return arr[i] + arr[-1] * 2.0, arr[-3]


def array_in_a_tensor_loop(x, n, i):
    arr = paddle.tensor.create_array(dtype="float32")
    k = paddle.zeros([1], "int64")
    while k < n:
        # (written in place: `arr = array_write(...)` here makes arr a loop variable, which the while
        # lowering's final assign turns into a stacked tensor; see the helper's report)
        paddle.tensor.array_write(x * paddle.cast(k + 1, "float32"), k, array=arr)
        k = k + 1
    return arr[i] - arr[-1]


SAVED = [
    ("arrays_read_and_written", arrays_read_and_written,
     {"x": ([None, 4], "float32"), "i": ([], "int64")}, {"i": np.array(-2, np.int64)}),
    ("array_in_a_tensor_loop", array_in_a_tensor_loop,
     {"x": ([None, 4], "float32"), "n": ([1], "int64"), "i": ([], "int64")},
     {"n": np.array([4], np.int64), "i": np.array(1, np.int64)}),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    from .paddle_runner import CHECK_MODELS, run_paddle
    workdir = tmp_path_factory.mktemp("tensor_array_index")
    x = np.random.RandomState(3).uniform(-1, 1, (5, 4)).astype("float32")
    entries, ours = [], {}
    for name, fn, specs, data in SAVED:
        sf = paddle.jit.to_static(fn, input_spec=[InputSpec(s, d, n) for n, (s, d) in specs.items()])
        prefix = str(workdir / name)
        paddle.jit.save(sf, prefix)
        ins = [x if n == "x" else data[n] for n in specs]
        outs = paddle.jit.load(prefix)(*[paddle.to_tensor(a) for a in ins])
        ours[name] = [o.numpy() for o in (outs if isinstance(outs, (list, tuple)) else [outs])]
        paths = []
        for k, a in enumerate(ins):
            paths.append(str(workdir / f"{name}.in{k}.npy"))
            np.save(paths[-1], a)
        entries.append({"name": name, "prefix": prefix, "inputs": paths, "feed_names": list(specs),
                        "loaders": ["jit", "static"]})
    (workdir / "manifest.json").write_text(json.dumps(entries))
    proc = run_paddle(CHECK_MODELS, workdir)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return ours, json.loads((workdir / "results.json").read_text()), x


def test_our_loaded_programs_compute_the_forms(results):
    ours, _, x = results
    t = [x * 1.0, x * 2.0, x * 3.0]
    t[1] = np.tanh(x)
    t.append(x - 1.0)
    np.testing.assert_allclose(ours["arrays_read_and_written"][0], t[2] + t[3] * 2.0, rtol=1e-6)
    np.testing.assert_allclose(ours["arrays_read_and_written"][1], t[1], rtol=1e-6)
    np.testing.assert_allclose(ours["array_in_a_tensor_loop"][0], x * 2.0 - x * 4.0, rtol=1e-6)


@pytest.mark.parametrize("name", [s[0] for s in SAVED])
def test_paddle_runs_our_saved_program(results, name):
    from .paddle_runner import assert_outputs_match
    ours, theirs, _ = results
    got = theirs[name]
    for loader in ("jit", "static"):
        assert f"{loader}_error" not in got, got.get(f"{loader}_error")
        assert_outputs_match(got[loader], ours[name], f"{name} via Paddle's {loader}")
