"""``arr[i]`` and ``arr[i] = v`` on tensor arrays (paddle.tensor.create_array / array_write) in converted
code and in static Programs: reads at an int, a negative int or a 0-D int tensor (Paddle's
slice_array_dense), writes at an int or an int tensor (array_write, appending at the length), len(arr),
and the indices Paddle refuses. Eager (arrays are Python lists) vs converted, both backends, with
gradients; then the same forms against real Paddle 3.3.1 (PIR, its default) in one subprocess."""
import json
import sys
import textwrap

import numpy as np
import pytest

import dy2st as paddle

from .harness import Arg, BACKENDS, check, f32

X = f32(3, 4, seed=5)

FORMS = textwrap.dedent('''
    """Tensor array indexing forms run by both frameworks (a file, so to_static can read the source)."""
    import numpy as np

    paddle = None   # the framework under test, set by run()


    def build(x, n=3):
        zero = paddle.zeros(shape=[1], dtype="int64")
        arr = paddle.tensor.create_array(dtype="float32")
        for i in range(n):
            arr = paddle.tensor.array_write(x * (i + 1.0), zero + i, array=arr)
        return arr


    def read_int(x):
        arr = build(x)
        return arr[1] + arr[0]


    def read_negative(x):
        arr = build(x)
        return arr[-1] * 2.0 + arr[-3]


    def read_zero_d_tensor(x):
        arr = build(x)
        return arr[paddle.full([], 2, "int64")] + arr[paddle.full([], -2, "int32")] * 3.0


    def read_past_the_front(x):
        arr = build(x)
        return arr[-5] + arr[paddle.full([], -4, "int64")]   # Paddle clamps to element 0 (a list would raise)


    def read_slices(x):
        arr = build(x)
        a, b = arr[1:], arr[-3:paddle.full([], -1, "int64")]
        return a[0] + a[-1] + b[1] * 3.0, paddle.tensor.array_length(a) + paddle.tensor.array_length(b)


    def read_last_by_paddles_slice_rule(x):
        return build(x)[-1:0][0]   # Paddle: [-1:0] is the last element (a Python list: empty)


    def write_int_and_tensor(x):
        arr = build(x)
        arr[1] = paddle.tanh(x)
        arr[paddle.full([1], 2, "int64")] = x - 1.0   # (a [1] tensor: allowed for writes)
        return arr[1] + arr[2] * 2.0 + arr[0]


    def write_appends_at_the_length(x):
        arr = build(x)
        arr[3] = x * x
        return arr[3] + arr[-1], paddle.tensor.array_length(arr)


    def write_a_number(x):
        arr = build(x)
        arr[1] = 5.0
        return arr[1]


    def length(x):
        return paddle.to_tensor(len(build(x)))


    FORMS = [read_int, read_negative, read_zero_d_tensor, read_past_the_front, read_slices,
             read_last_by_paddles_slice_rule, write_int_and_tensor,
             write_appends_at_the_length, write_a_number, length]


    def _outputs(res):
        return list(res) if isinstance(res, (tuple, list)) else [res]


    def _grad(paddle_module, fn, x, convert):
        """The gradient of sum(outputs) with respect to x, None when there is none or the run fails."""
        t = paddle_module.to_tensor(x, stop_gradient=False)
        try:
            res = _outputs(paddle_module.jit.to_static(fn, full_graph=True)(t) if convert else fn(t))
            loss = sum(r.sum() for r in res if not getattr(r, "stop_gradient", True))   # (eager lengths: ints)
            loss.backward()
        except Exception:   # Paddle eager: a Python list indexed past its end, a float element...
            return None
        return None if t.grad is None else t.grad.numpy().tolist()


    def run(paddle_module, x, eager_grads):
        """{form.out<k>: [dtype, shape, values], form.grad: list or None} of the converted (AST) forms; the
        gradients of the sum of the outputs from eager runs (``eager_grads``: real Paddle, whose AST programs
        with tensor arrays cannot run backward) or from the converted ones (ours)."""
        globals()["paddle"] = paddle_module
        out = {}
        for fn in FORMS:
            t = paddle_module.to_tensor(x)
            for k, r in enumerate(_outputs(paddle_module.jit.to_static(fn, full_graph=True)(t))):
                out[f"{fn.__name__}.out{k}"] = [str(r.dtype).replace("paddle.", ""), list(r.shape),
                                                r.numpy().tolist()]
            out[f"{fn.__name__}.grad"] = _grad(paddle_module, fn, x, not eager_grads)
        return out
''')


@pytest.fixture(scope="module")
def forms(tmp_path_factory):
    d = tmp_path_factory.mktemp("tensor_array_index")
    (d / "array_index_forms.py").write_text(FORMS)
    sys.path.insert(0, str(d))
    try:
        import array_index_forms
        yield d, array_index_forms
    finally:
        sys.path.remove(str(d))
        sys.modules.pop("array_index_forms", None)


# -- eager (Python lists) vs converted --------------------------------------------------------------

def read_forms(x, k):
    zero = paddle.zeros(shape=[1], dtype="int64")
    arr = paddle.tensor.create_array(dtype="float32")
    for i in range(3):
        arr = paddle.tensor.array_write(x * (i + 1.0) + i, zero + i, array=arr)
    return arr[1] * 2.0 + arr[-1], arr[k] + arr[k - 1]


def write_forms(x, k):
    arr = paddle.tensor.create_array(dtype="float32", initialized_list=[x, x * 2.0])
    arr[k] = paddle.exp(x)           # k = 0 or 1 here: an overwrite
    arr = paddle.tensor.array_write(x * 3.0, paddle.full([1], 2, "int64"), arr)   # (eager lists: not arr[2])
    return arr[0] + arr[1] + arr[2], paddle.tensor.array_length(arr)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reads_match_eager_lists(backend):
    check(read_forms, [(X, Arg(np.array(0, np.int64))), (X, Arg(np.array(-1, np.int64)))], backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_match_eager_lists(backend):
    # (values only: the gradient of an overwritten element is checked against Paddle below)
    check(write_forms, [(X, Arg(np.array(1, np.int64))), (X, Arg(np.array(0, np.int64)))], backend, grad=False)


def test_static_program_reads_and_writes_in_place():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            x = paddle.static.data("x", [3, 4], "float32")
            arr = paddle.tensor.create_array("float32", [x, x + 1.0])
            arr[2] = x * 4.0                  # Variable.__setitem__ on an array: array_write, in place
            i = paddle.static.data("i", [], "int64")
            out = arr[i] + arr[-2]
        got, = paddle.static.Executor().run(main, feed={"x": X, "i": np.array(-1, np.int64)}, fetch_list=[out])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, X * 4.0 + X + 1.0, rtol=1e-6)


@pytest.mark.parametrize("index,error,match", [
    (slice(0, 4, 2), NotImplementedError, "step"),
    (None, NotImplementedError, "None"),
    (Ellipsis, NotImplementedError, "Ellipsis"),
    ((1, 0), TypeError, "tuple"),
    ([0, 1], IndexError, "advanced"),
    ("one_element_tensor", IndexError, r"shape \[1\]"),
    ("float_tensor", TypeError, "integers"),
], ids=["slice_step", "none", "ellipsis", "tuple", "list", "tensor_1", "float_tensor"])
def test_indices_paddle_refuses_are_refused_clearly(index, error, match):
    def fn(x):
        arr = paddle.tensor.create_array("float32", [x, x])
        i = {"one_element_tensor": paddle.full([1], 0, "int64"),
             "float_tensor": paddle.full([], 0.0, "float32")}.get(index, index) if isinstance(index, str) else index
        return arr[i]
    with pytest.raises(error, match=match):
        paddle.jit.to_static(fn)(paddle.to_tensor(X))


@pytest.mark.parametrize("index,error", [(-1, IndexError), (slice(0, 1), NotImplementedError),
                                         ((0, 1), NotImplementedError)], ids=["negative", "slice", "tuple"])
def test_writes_paddle_refuses_are_refused_clearly(index, error):
    # (Paddle aborts the process on a negative write index, and raises NotImplementedError for the others)
    def fn(x):
        arr = paddle.tensor.create_array("float32", [x, x])
        arr[index] = x
        return arr[0]
    with pytest.raises(error):
        paddle.jit.to_static(fn)(paddle.to_tensor(X))


def test_an_empty_slice_fails_at_run_time_as_in_paddle():
    def fn(x):
        arr = paddle.tensor.create_array("float32", [x, x, x])
        return paddle.tensor.array_length(arr[2:1])
    with pytest.raises(ValueError, match="must be true"):
        paddle.jit.to_static(fn)(paddle.to_tensor(X))


def test_reading_past_the_end_fails_at_run_time():
    def fn(x):
        arr = paddle.tensor.create_array("float32", [x, x])
        return arr[paddle.full([], 5, "int64")]
    with pytest.raises(IndexError, match="never written"):
        paddle.jit.to_static(fn)(paddle.to_tensor(X))


# -- against real Paddle ----------------------------------------------------------------------------

def test_forms_match_real_paddle(forms):
    workdir, module = forms
    from tests.interop.paddle_runner import run_paddle
    np.save(workdir / "x.npy", X)
    proc = run_paddle(textwrap.dedent('''
        import json, sys
        import numpy as np
        sys.path.insert(0, ".")
        import array_index_forms
        json.dump(array_index_forms.run(paddle, np.load("x.npy"), True), open("paddle.json", "w"))
    '''), workdir, default_flags=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ref = json.loads((workdir / "paddle.json").read_text())
    ours = module.run(paddle, X, False)
    assert sorted(ours) == sorted(ref)
    for key, want in ref.items():
        got = ours[key]
        if key.endswith(".grad"):
            if want is not None:   # (a form Paddle can differentiate eagerly)
                assert got is not None, f"{key}: Paddle gives a gradient, we none"
                np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, err_msg=key)
            continue
        assert got[:2] == want[:2], f"{key}: dtype/shape {got[:2]} != Paddle's {want[:2]}"
        np.testing.assert_allclose(np.asarray(got[2]), np.asarray(want[2]), rtol=1e-5, err_msg=key)
