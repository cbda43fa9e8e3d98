"""Differential test of the optimizers ASGD, Adadelta, Adamax, Lamb, NAdam, RAdam, Rprop and LBFGS against
real Paddle 3.3.1 (one subprocess for the module).

``CODE`` trains a small float32 MLP (fixed weights and data) with each optimizer under several argument
settings (weight_decay as float / L2Decay / L1Decay, a learning-rate scheduler, gradient clipping,
parameter groups) and records every parameter after every step, the state_dict keys and the final
accumulators. Paddle also saves its optimizer state after a few steps (``.pdopt``/``.pdparams`` via
paddle.save); our side loads those files into a fresh model and optimizer and must continue exactly as
Paddle did; and Paddle continues from state files we saved the same way, as we do.
"""
import textwrap

import numpy as np
import pytest

CODE = textwrap.dedent('''
    import numpy as np

    STEPS = 12
    RESUME_AT = 5

    RESUMES = (("resume_nadam", lambda O, ps: O.NAdam(0.02, parameters=ps)),
               ("resume_adamax", lambda O, ps: O.Adamax(0.02, parameters=ps)),
               ("resume_lamb", lambda O, ps: O.Lamb(0.02, parameters=ps)),
               ("resume_asgd", lambda O, ps: O.ASGD(0.05, batch_num=3, parameters=ps)))

    def save_states(paddle, ours_dir):
        """Ours, before Paddle runs: RESUME_AT steps of each RESUMES optimizer, saved with paddle.save."""
        net_cls, loss_of, _, _ = _net_and_loss(paddle)
        for tag, make in RESUMES:
            net = net_cls("ours_" + tag)
            opt = make(paddle.optimizer, net.parameters())
            for i in range(RESUME_AT):
                loss_of(net, i).backward()
                opt.step()
                opt.clear_grad()
            paddle.save(net.state_dict(), f"{ours_dir}/ours_{tag}.pdparams")
            paddle.save(opt.state_dict(), f"{ours_dir}/ours_{tag}.pdopt")

    def _net_and_loss(paddle):
        rng = np.random.default_rng(11)
        W1, B1 = rng.uniform(-0.8, 0.8, (4, 3)).astype("float32"), rng.uniform(-0.2, 0.2, (3,)).astype("float32")
        W2, B2 = rng.uniform(-0.8, 0.8, (3, 2)).astype("float32"), rng.uniform(-0.2, 0.2, (2,)).astype("float32")
        X = rng.uniform(-1, 1, (8, 4)).astype("float32")
        Y = rng.uniform(-1, 1, (8, 2)).astype("float32")

        class Net(paddle.nn.Layer):
            def __init__(self, tag, dtype="float32"):
                super().__init__()
                A = paddle.ParamAttr
                self.fc1 = paddle.nn.Linear(4, 3, weight_attr=A(name=tag + "_w1"), bias_attr=A(name=tag + "_b1"))
                self.fc2 = paddle.nn.Linear(3, 2, weight_attr=A(name=tag + "_w2"), bias_attr=A(name=tag + "_b2"))
                for p, v in ((self.fc1.weight, W1), (self.fc1.bias, B1), (self.fc2.weight, W2), (self.fc2.bias, B2)):
                    p.set_value(v.astype(dtype))

            def forward(self, x):
                return self.fc2(paddle.tanh(self.fc1(x)))

        def loss_of(net, i):
            x = paddle.to_tensor(X * (1.0 + 0.1 * (i % 3)))
            return ((net(x) - paddle.to_tensor(Y)) ** 2).mean()
        return Net, loss_of, X, Y

    def compute(paddle, resume_dir=None, ours_dir="."):
        Net, loss_of, X, Y = _net_and_loss(paddle)
        O = paddle.optimizer
        R = paddle.regularizer
        out = {}

        def record(tag, step, net):
            for p in net.parameters():
                out[f"{tag}.s{step}.{p.name}"] = p.numpy()

        def configs():
            yield "asgd", lambda ps: O.ASGD(0.05, batch_num=3, parameters=ps)
            yield "asgd_wd", lambda ps: O.ASGD(0.05, batch_num=1, parameters=ps, weight_decay=0.01)
            yield "adadelta", lambda ps: O.Adadelta(1.0, parameters=ps)
            yield "adadelta_l1", lambda ps: O.Adadelta(0.5, epsilon=1e-5, rho=0.9, parameters=ps,
                                                      weight_decay=R.L1Decay(0.01))
            yield "adamax", lambda ps: O.Adamax(0.02, parameters=ps)
            yield "adamax_wd_sched", lambda ps: O.Adamax(O.lr.StepDecay(0.05, step_size=3, gamma=0.5),
                                                         beta1=0.8, beta2=0.99, parameters=ps, weight_decay=0.05)
            yield "lamb", lambda ps: O.Lamb(0.02, parameters=ps)
            yield "lamb_adapt", lambda ps: O.Lamb(0.02, lamb_weight_decay=0.0, always_adapt=True, parameters=ps,
                                                  grad_clip=paddle.nn.ClipGradByGlobalNorm(0.1))
            yield "lamb_exclude", lambda ps: O.Lamb(0.02, lamb_weight_decay=0.1, parameters=ps,
                                                    exclude_from_weight_decay_fn=lambda p: "_b" in p.name)
            yield "nadam", lambda ps: O.NAdam(0.02, parameters=ps)
            yield "nadam_l2_sched", lambda ps: O.NAdam(O.lr.ExponentialDecay(0.03, gamma=0.9), beta1=0.85,
                                                       momentum_decay=0.01, parameters=ps,
                                                       weight_decay=R.L2Decay(0.02))
            yield "radam", lambda ps: O.RAdam(0.02, parameters=ps)
            yield "radam_wd", lambda ps: O.RAdam(0.02, beta2=0.9, parameters=ps, weight_decay=0.05)
            yield "rprop", lambda ps: O.Rprop(0.01, parameters=ps)
            yield "rprop_args", lambda ps: O.Rprop(0.02, learning_rate_range=(1e-3, 0.03), etas=(0.4, 1.5),
                                                   parameters=ps, grad_clip=paddle.nn.ClipGradByValue(0.05))
            yield "groups_radam", lambda ps: O.RAdam(0.02, parameters=[
                {"params": ps[:2], "beta1": 0.8, "learning_rate": 0.5},
                {"params": ps[2:], "weight_decay": 0.1}])
            yield "groups_nadam", lambda ps: O.NAdam(0.02, parameters=[
                {"params": ps[:2]}, {"params": ps[2:], "beta2": 0.9, "learning_rate": 2.0}])
            yield "groups_adamax", lambda ps: O.Adamax(0.02, parameters=[
                {"params": ps[:2], "beta1": 0.7}, {"params": ps[2:], "beta2": 0.9, "epsilon": 1e-4}])
            yield "groups_lamb", lambda ps: O.Lamb(0.02, parameters=[
                {"params": ps[:2], "beta1": 0.8, "lamb_weight_decay": 0.1}, {"params": ps[2:], "beta2": 0.95}])
            yield "groups_adadelta", lambda ps: O.Adadelta(1.0, parameters=[
                {"params": ps[:2], "rho": 0.8}, {"params": ps[2:], "epsilon": 1e-4}])

        for tag, make in configs():
            net = Net(tag)
            opt = make(net.parameters())
            sched = opt._learning_rate if isinstance(opt._learning_rate, O.lr.LRScheduler) else None
            for i in range(STEPS):
                loss = loss_of(net, i)
                loss.backward()
                opt.step()
                opt.clear_grad()
                if sched is not None:
                    sched.step()
                record(tag, i, net)
            sd = opt.state_dict()
            out[tag + ".keys"] = np.array("|".join(k for k in sd))
            for k, v in sd.items():
                if hasattr(v, "numpy"):
                    out[f"{tag}.state.{k}"] = v.numpy()

        # LBFGS: closure-driven, with and without the strong-Wolfe line search. Its curvature pairs amplify
        # float32 rounding (BLAS summation order) step after step, so the long runs are in float64
        def net_of(tag, dtype):
            paddle.set_default_dtype(dtype)
            try:
                return Net(tag, dtype)
            finally:
                paddle.set_default_dtype("float32")

        for tag, dtype, steps, kw in (
                ("lbfgs", "float32", 2, dict(learning_rate=0.5, max_iter=2)),
                ("lbfgs64", "float64", 4, dict(learning_rate=0.5, max_iter=4)),
                ("lbfgs_wolfe64", "float64", 4, dict(learning_rate=1.0, max_iter=5, history_size=3,
                                                     line_search_fn="strong_wolfe"))):
            net = net_of(tag, dtype)
            opt = O.LBFGS(parameters=net.parameters(), **kw)
            x = paddle.to_tensor(X.astype(dtype))
            y = paddle.to_tensor(Y.astype(dtype))
            for i in range(steps):
                def closure():
                    opt.clear_grad()
                    loss = ((net(x) - y) ** 2).mean()
                    loss.backward()
                    return loss
                out[f"{tag}.loss{i}"] = np.asarray(float(opt.step(closure)), dtype="float64")
                record(tag, i, net)
            out[tag + ".func_evals"] = np.array(opt.state_dict()["state"]["func_evals"])

        # optimizer state written by Paddle after RESUME_AT steps continues identically in ours, and state
        # written by us (save_states, before Paddle runs) continues in Paddle as it does in ours
        for tag, make in RESUMES:
            net = Net(tag)
            opt = make(O, net.parameters())
            start = 0
            if resume_dir is not None:
                net.set_state_dict(paddle.load(f"{resume_dir}/{tag}.pdparams"))
                opt.set_state_dict(paddle.load(f"{resume_dir}/{tag}.pdopt"))
                start = RESUME_AT
            for i in range(start, STEPS):
                loss_of(net, i).backward()
                opt.step()
                opt.clear_grad()
                if resume_dir is None and i == RESUME_AT - 1:
                    paddle.save(net.state_dict(), f"{tag}.pdparams")
                    paddle.save(opt.state_dict(), f"{tag}.pdopt")
                if i >= RESUME_AT:
                    record(tag, i, net)
            net = Net("ours_" + tag)
            opt = make(O, net.parameters())
            net.set_state_dict(paddle.load(f"{ours_dir}/ours_{tag}.pdparams"))
            opt.set_state_dict(paddle.load(f"{ours_dir}/ours_{tag}.pdopt"))
            for i in range(RESUME_AT, STEPS):
                loss_of(net, i).backward()
                opt.step()
                opt.clear_grad()
                record("reverse_" + tag, i, net)

        def err(name, fn):
            try:
                fn()
                out["err." + name] = np.array("no error")
            except Exception as e:
                out["err." + name] = np.array(",".join(c.__name__ for c in type(e).__mro__))
        ps = Net("errs").parameters()
        err("asgd_batch", lambda: O.ASGD(0.1, batch_num=0, parameters=ps))
        err("adamax_beta", lambda: O.Adamax(0.1, beta1=1.0, parameters=ps))
        err("nadam_eps", lambda: O.NAdam(0.1, epsilon=-1.0, parameters=ps))
        err("radam_beta2", lambda: O.RAdam(0.1, beta2=1.5, parameters=ps))
        err("rprop_range", lambda: O.Rprop(0.1, learning_rate_range=(0.2, 1.0), parameters=ps))
        err("rprop_etas", lambda: O.Rprop(0.01, etas=(1.5, 1.2), parameters=ps))
        err("adadelta_rho", lambda: O.Adadelta(0.1, rho=None, parameters=ps))
        err("lbfgs_minimize", lambda: O.LBFGS(parameters=ps).minimize(None))
        return out
''')

PADDLE_MAIN = textwrap.dedent('''
    import json
    paddle.set_device("cpu")
    res = compute(paddle, ours_dir=".")
    np.savez("paddle_out.npz", **{k: v for k, v in res.items()})
    json.dump({k: str(v.dtype) for k, v in res.items()}, open("dtypes.json", "w"))
''')

# float32 training: both sides do float32 arithmetic in the same order; matmul gradients may round
# differently (BLAS summation order), so parameters agree to a few float32 ulps over 12 steps
TOL = 2e-6


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    import json
    from .paddle_runner import run_paddle
    work = tmp_path_factory.mktemp("optimizer")
    import dy2st
    ns = {}
    exec(compile(CODE, "<optimizer interop code>", "exec"), ns)
    ns["save_states"](dy2st, str(work))
    proc = run_paddle(CODE + PADDLE_MAIN, work)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = dict(np.load(work / "paddle_out.npz", allow_pickle=False))
    dtypes = json.loads((work / "dtypes.json").read_text())
    return ns["compute"](dy2st, resume_dir=str(work), ours_dir=str(work)), theirs, dtypes


def test_same_keys(both):
    ours, theirs, _ = both
    assert sorted(ours) == sorted(theirs)


@pytest.mark.parametrize("prefix", ["asgd", "adadelta", "adamax", "lamb", "nadam", "radam", "rprop", "groups",
                                    "lbfgs", "resume", "reverse", "err"])
def test_same_trajectories(both, prefix):
    from .paddle_runner import differences
    ours, theirs, dtypes = both
    keys = [k for k in theirs if k.startswith(prefix)]
    assert keys
    tol = {k: TOL for k in keys if dtypes[k] == "float32"}
    bad = differences({k: ours[k] for k in keys}, {k: theirs[k] for k in keys}, dtypes, tol, double_tol=1e-9)
    assert not bad, "differences from Paddle:\n" + "\n".join(bad[:20])
