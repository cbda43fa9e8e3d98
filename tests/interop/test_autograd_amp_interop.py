"""Differential test of paddle.autograd (PyLayer, jacobian, hessian) and paddle.amp against real Paddle 3.3.1.

PyLayer results and gradients, Jacobian/Hessian matrices and GradScaler's scale trajectory (with inf
gradients injected) run in one script through whichever module is ``paddle``. Paddle's CPU build disables
GradScaler ("can only be enabled on CUDAPlace ..."), so the Paddle side runs it with the place check
answering as a GPU would (and with a numpy-2 fix for the float() of its scale in its log line); the
scaling arithmetic itself is Paddle's CPU code. auto_cast's per-op dtypes:
Paddle's eager AMP is off on CPU, and its float16 kernels are missing there, so the oracle is Paddle's PIR
static AMP in bfloat16 (same rules and white/black lists as float16 for these ops), compared with our eager
float16 dtypes (bfloat16 read as float16).
"""
import json
import textwrap

import numpy as np
import pytest

from .paddle_runner import run_paddle

CODE = textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        PyLayer = paddle.autograd.PyLayer
        out = {}

        def T(a, grad=False, dt="float64"):
            return paddle.to_tensor(np.asarray(a, dtype=dt), stop_gradient=not grad)

        class Tanh(PyLayer):
            @staticmethod
            def forward(ctx, x, k=1.0):
                y = paddle.tanh(x) * k
                ctx.save_for_backward(y)
                ctx.k = k
                return y

            @staticmethod
            def backward(ctx, dy):
                y, = ctx.saved_tensor()
                return dy * (ctx.k - y * y / ctx.k)

        class Two(PyLayer):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(x, y)
                return x * y, x + y, 7

            @staticmethod
            def backward(ctx, g1, g2):
                x, y = ctx.saved_tensor()
                return g1 * y + g2 * 3, g1 * x

        class Nd(PyLayer):
            @staticmethod
            def forward(ctx, x):
                a, b = x * 2, x * 3
                ctx.mark_non_differentiable(a)
                return a, b

            @staticmethod
            def backward(ctx, ga, gb):
                return ga + gb * 5

        rng = np.random.default_rng(0)
        x = T(rng.standard_normal((2, 3)), grad=True)
        z = Tanh.apply(x, k=2.0)
        (z * z).sum().backward()
        out["pylayer.tanh"], out["pylayer.tanh.grad"] = z.numpy(), x.grad.numpy()
        a, b = T([1.0, 2.0], True), T([3.0, -1.0], True)
        p, s, seven = Two.apply(a, b)
        (p * 2 + s).sum().backward()
        out["pylayer.two.p"], out["pylayer.two.s"] = p.numpy(), s.numpy()
        out["pylayer.two.seven"] = np.asarray(seven)
        out["pylayer.two.grad_a"], out["pylayer.two.grad_b"] = a.grad.numpy(), b.grad.numpy()
        c = T([1.0, -2.0], True)
        na, nb = Nd.apply(c)
        (na + nb).sum().backward()
        out["pylayer.nd.stop_gradient"] = np.asarray([na.stop_gradient, nb.stop_gradient])
        out["pylayer.nd.grad"] = c.grad.numpy()
        d = T([0.5, 1.5], True)
        g, = paddle.grad(Tanh.apply(d).sum(), d, create_graph=True)
        out["pylayer.grad_create_graph"] = g.numpy()

        # jacobian / hessian
        xv = T([0.3, -0.7, 1.1], True)
        y = paddle.sin(xv) * xv.sum()
        J = paddle.autograd.jacobian(y, xv)
        out["jac.full"], out["jac.row1"], out["jac.col2"] = J[:].numpy(), J[1].numpy(), J[:, 2].numpy()
        out["jac.shape"] = np.asarray(J.shape)
        xb = T(rng.standard_normal((3, 2)), True)
        Jb = paddle.autograd.jacobian(paddle.concat([xb * xb, xb.sum(1, keepdim=True)], 1), xb, batch_axis=0)
        out["jac.batched"], out["jac.batched.shape"] = Jb[:].numpy(), np.asarray(Jb.shape)
        H = paddle.autograd.hessian((xv * xv * xv).sum() + xv[0] * xv[1], xv)
        out["hess.full"], out["hess.shape"] = H[:].numpy(), np.asarray(H.shape)
        hs = paddle.autograd.hessian((a * a).sum() * b.sum(), (a, b))
        out["hess.tuple01"], out["hess.tuple11"] = hs[0][1][:].numpy(), hs[1][1][:].numpy()

        # GradScaler: scale after every step, with inf gradients injected
        with paddle.amp.auto_cast():
            pass
        w = paddle.create_parameter([2], "float32", default_initializer=paddle.nn.initializer.Constant(1.5))
        opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=[w])
        scaler = paddle.amp.GradScaler(init_loss_scaling=64.0, incr_every_n_steps=2, decr_every_n_nan_or_inf=2)
        pattern = [0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0]
        scales, weights = [], []
        for i, bad in enumerate(pattern):
            loss = (w * w).sum() * (float("inf") if bad else 1.0)
            scaled = scaler.scale(loss)
            scaled.backward()
            if i % 3 == 2:
                scaler.minimize(opt, scaled)
            else:
                scaler.step(opt)
                scaler.update()
            opt.clear_grad()
            scales.append(float(scaler.state_dict()["scale"][0]))
            weights.append(w.numpy().copy())
        out["scaler.scales"] = np.asarray(scales)
        out["scaler.weights"] = np.asarray(weights)
        sd = scaler.state_dict()
        out["scaler.counts"] = np.asarray([sd["incr_count"], sd["decr_count"]])
        return out
''')

PADDLE_MAIN = textwrap.dedent('''
    import json, sys
    gs = sys.modules["paddle.amp.grad_scaler"]
    _real_tracer = gs._dygraph_tracer

    class _GpuPlace:        # GradScaler's place check answers as on a GPU; everything else is the real tracer
        def is_gpu_place(self): return True
        def is_xpu_place(self): return False
        def is_custom_place(self): return False

    class _Tracer:
        def __init__(self, t): object.__setattr__(self, "_t", t)
        def __getattr__(self, n): return _GpuPlace() if n == "_expected_place" else getattr(self._t, n)

    gs._dygraph_tracer = lambda: _Tracer(_real_tracer())
    # Paddle 3.3.1's scale decrease prints float(scale) of its shape-[1] scale, which its Tensor.__float__
    # refuses under numpy 2 (TypeError: only 0-dimensional arrays ...); give it the one element
    _float = paddle.Tensor.__float__
    paddle.Tensor.__float__ = lambda t: float(np.array(t).reshape(-1)[0]) if t.size == 1 else _float(t)
    paddle.set_device("cpu")
    res = compute(paddle)
    np.savez("paddle_out.npz", **{k: v for k, v in res.items()})
    json.dump({k: str(v.dtype) for k, v in res.items()}, open("dtypes.json", "w"))
''')


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    from .paddle_runner import differential
    return differential(CODE, PADDLE_MAIN, tmp_path_factory.mktemp("autograd_amp"), "autograd_amp")


def test_same_results(both):
    from .paddle_runner import differences
    ours, theirs, dtypes = both
    assert sorted(ours) == sorted(theirs)
    bad = differences(ours, theirs, dtypes, double_tol=1e-9)
    assert not bad, "differences from Paddle:\n" + "\n".join(bad)


def test_scale_trajectory_moves(both):
    """The compared trajectory really exercises increases and decreases (so the comparison means something)."""
    ours, _, _ = both
    steps = np.diff(np.concatenate([[64.0], ours["scaler.scales"]]))
    assert (steps > 0).any() and (steps < 0).any() and (steps == 0).any()


# the same small model under auto_cast: ops in Paddle's white list, black list and neither
DTYPE_OPS = textwrap.dedent('''
    def amp_ops(paddle, x, lin, labels):
        F = paddle.nn.functional
        y = lin(x)                              # matmul (white) + add with the float32 bias (promoted)
        m = paddle.matmul(x, x.T)               # white
        return {
            "linear": y, "matmul": m, "relu_of_matmul": F.relu(m), "tanh_of_matmul": paddle.tanh(m),
            "softmax": F.softmax(m), "exp": paddle.exp(m), "mixed_mul": m * paddle.ones([2, 2]),
            "sum_of_matmul": m.sum(),
            "mean_of_matmul": m.mean(), "layer_norm": F.layer_norm(m, [2]), "relu_of_linear": F.relu(y),
            "cross_entropy": F.cross_entropy(y, labels), "scale_of_matmul": m * 2.0 + 1.0,
        }
''')

PADDLE_DTYPES = DTYPE_OPS + textwrap.dedent('''
    import json
    paddle.enable_static()
    res = {}
    for level in ("O1", "OD"):
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [2, 3], "float32")
            labels = paddle.static.data("labels", [2, 1], "int64")
            lin = paddle.nn.Linear(3, 4)
            with paddle.amp.auto_cast(level=level, dtype="bfloat16"):
                outs = amp_ops(paddle, x, lin, labels)
        res[level] = {k: str(v.dtype).replace("paddle.", "") for k, v in outs.items()}
    json.dump(res, open("amp_dtypes.json", "w"))
''')


def test_auto_cast_dtypes_follow_paddles_rules(tmp_path):
    proc = run_paddle(PADDLE_DTYPES, tmp_path, default_flags=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads((tmp_path / "amp_dtypes.json").read_text())
    import dy2st as paddle
    ns = {}
    exec(DTYPE_OPS, ns)
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 3)).astype("float32"))
    labels = paddle.to_tensor(np.array([[1], [0]], dtype="int64"))
    lin = paddle.nn.Linear(3, 4)
    bad = []
    for level in ("O1", "OD"):
        with paddle.amp.auto_cast(level=level, dtype="float16"):
            outs = ns["amp_ops"](paddle, x, lin, labels)
        for k, v in outs.items():
            ours = str(v.dtype).replace("paddle.", "")
            want = theirs[level][k].replace("bfloat16", "float16")
            if ours != want:
                bad.append(f"{level} {k}: ours {ours}, Paddle {want}")
    assert not bad, "auto_cast dtypes differ from Paddle's:\n" + "\n".join(bad)
