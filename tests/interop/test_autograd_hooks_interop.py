"""paddle.autograd.saved_tensors_hooks against real Paddle 3.3.1 (one subprocess): gradients with
value-preserving hooks (offload to numpy and back) on a small MLP, and with a value-changing unpack on
ops whose saved tensors are the same in both (multiply, matmul); the pack/unpack counts for those."""
import textwrap

import numpy as np

CODE = textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        out = {}
        rng = np.random.default_rng(5)
        A = rng.uniform(-1, 1, (3, 4))
        B = rng.uniform(-1, 1, (4, 2))

        def T(a, dt="float64"):
            return paddle.to_tensor(np.asarray(a, dtype=dt), stop_gradient=False)

        # 1. offloading hooks change nothing: an MLP's gradients
        for dt in ("float32", "float64"):
            x, w1, w2 = T(A, dt), T(B, dt), T(rng.uniform(-1, 1, (2, 3)), dt)
            with paddle.autograd.saved_tensors_hooks(lambda t: t.numpy(), lambda a: paddle.to_tensor(a)):
                h = paddle.tanh(paddle.matmul(x, w1))
                y = paddle.nn.functional.sigmoid(paddle.matmul(h, w2))
                loss = (y * y).mean()
            loss.backward()
            for name, t in (("x", x), ("w1", w1), ("w2", w2)):
                out[f"offload.{dt}.{name}"] = t.grad.numpy()
        # 2. unpack doubles the saved values: multiply and matmul save their inputs in both frameworks
        log = []

        def pack(t):
            log.append(1)
            return t.numpy()

        def unpack(a):
            log.append(2)
            return paddle.to_tensor(a * 2)
        a, b = T(A), T(B)
        with paddle.autograd.saved_tensors_hooks(pack, unpack):
            y = paddle.matmul(paddle.multiply(a, a), b)
        y.sum().backward()
        out["double.a"] = a.grad.numpy()
        out["double.b"] = b.grad.numpy()
        out["double.log"] = np.array(log)
        return out
''')

PADDLE_MAIN = textwrap.dedent('''
    import json
    paddle.set_device("cpu")
    res = compute(paddle)
    np.savez("paddle_out.npz", **res)
    json.dump({k: str(v.dtype) for k, v in res.items()}, open("dtypes.json", "w"))
''')


def test_same_gradients_as_paddle(tmp_path):
    from .paddle_runner import differential, differences
    ours, theirs, dtypes = differential(CODE, PADDLE_MAIN, tmp_path, "saved_tensors_hooks")
    assert sorted(ours) == sorted(theirs)
    bad = differences(ours, theirs, dtypes, {k: 1e-6 for k in theirs if dtypes[k] == "float32"})
    assert not bad, "differences from Paddle:\n" + "\n".join(bad)
    assert np.asarray(ours["double.log"]).tolist() == [1, 1, 1, 1, 2, 2, 2, 2]
