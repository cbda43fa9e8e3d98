"""paddle.static's file and metric names against real Paddle 3.3.1 (legacy static mode, one subprocess):
``static.save``/``static.load``/``load_program_state``/``set_program_state`` both ways, ``serialize_*`` /
``deserialize_*`` bytes both ways, and the ``auc`` / ``ctr_metric_bundle`` metrics run for run.

``BUILD`` makes the same small program on either side (named parameters, Adam, fixed initial values set
with ``set_program_state``). We train 2 steps and save first; Paddle then trains its own copy 2 steps,
saves it, continues 2 steps, loads *our* files into a fresh program and continues 2 steps from them, and
runs our serialized program; finally we load Paddle's files the same ways. Every continuation must
give the same parameters. Paddle also runs our saved *training* programs, one per new optimizer op
(adadelta, adamax, lamb, nadam, radam, rprop, and asgd's gather/scatter ring), from the saved state.
"""
import textwrap

import numpy as np
import pytest

BUILD = textwrap.dedent('''
    import numpy as np

    RNG = np.random.default_rng(21)
    INIT = {"sv_w": RNG.uniform(-1, 1, (3, 2)).astype("float32"), "sv_b": RNG.uniform(-1, 1, (2,)).astype("float32")}
    XS = [RNG.uniform(-1, 1, (4, 3)).astype("float32") for _ in range(6)]
    PRED = [RNG.uniform(0, 1, (7, 1)).astype("float32") for _ in range(4)]
    LABELS = [RNG.integers(0, 2, (7, 1)).astype("int64") for _ in range(4)]

    def build(paddle):
        main, startup = paddle.static.Program(), paddle.static.Program()
        # fresh name counters: the learning-rate variable is learning_rate_0 in every build, on both sides
        with paddle.utils.unique_name.guard(), fresh_optimizer_names(paddle), \
                paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 3], "float32")
            lin = paddle.nn.Linear(3, 2, weight_attr=paddle.ParamAttr(name="sv_w"),
                                   bias_attr=paddle.ParamAttr(name="sv_b"))
            out = lin(x)
            loss = paddle.mean(out * out)
            paddle.optimizer.Adam(0.05).minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        return main, exe, x, out, loss

    def fresh_optimizer_names(paddle):
        import contextlib
        if not paddle.__name__.startswith("dy2st"):
            return contextlib.nullcontext()
        import collections, itertools
        from runtime.optimizer import optimizer as base

        @contextlib.contextmanager
        def swap():
            saved = base._name_counters
            base._name_counters = collections.defaultdict(itertools.count)
            try:
                yield
            finally:
                base._name_counters = saved
        return swap()

    def train(paddle, main, exe, loss, steps):
        losses = np.array([np.asarray(exe.run(main, feed={"x": XS[i]}, fetch_list=[loss])[0]).reshape(())
                           for i in steps], dtype="float32")
        sc = paddle.static.global_scope()
        return losses, {n: _value(sc, n) for n in ("sv_w", "sv_b")}

    def _value(scope, name):
        v = scope.find_var(name) if hasattr(scope, "find_var") else None
        return np.array(v.get_tensor()) if v is not None else np.array(scope.vars[name])

    OPTIMIZERS = {"adadelta": lambda O: O.Adadelta(0.5), "adamax": lambda O: O.Adamax(0.05),
                  "lamb": lambda O: O.Lamb(0.05), "nadam": lambda O: O.NAdam(0.05), "radam": lambda O: O.RAdam(0.05),
                  "rprop": lambda O: O.Rprop(0.01), "asgd": lambda O: O.ASGD(0.05, batch_num=2)}

    def save_training_programs(paddle):
        """Ours: one training step with each optimizer, paddle.static.save, 3 more steps -> final weights."""
        final = {}
        for kind, make in OPTIMIZERS.items():
            with paddle.static.scope_guard(paddle.static.Scope()):
                main, startup = paddle.static.Program(), paddle.static.Program()
                with paddle.static.program_guard(main, startup):
                    x = paddle.static.data("x", [None, 3], "float32")
                    lin = paddle.nn.Linear(3, 2, weight_attr=paddle.ParamAttr(name=f"o_{kind}_w"),
                                           bias_attr=paddle.ParamAttr(name=f"o_{kind}_b"))
                    y = lin(x)
                    loss = paddle.mean(y * y)
                    make(paddle.optimizer).minimize(loss)
                exe = paddle.static.Executor(paddle.CPUPlace())
                exe.run(startup)
                paddle.static.set_program_state(main, {f"o_{kind}_w": INIT["sv_w"], f"o_{kind}_b": INIT["sv_b"]})
                for i in range(4):
                    exe.run(main, feed={"x": XS[i]}, fetch_list=[loss])
                    if i == 0:
                        paddle.static.save(main, f"opt_{kind}/model")
                final[f"opt.{kind}"] = np.array(paddle.static.global_scope().vars[f"o_{kind}_w"])
        return final

    def run_training_programs(paddle):
        """Paddle: our saved training program (with our update ops) and state, run for the same 3 steps."""
        final = {}
        for kind in OPTIMIZERS:
            with paddle.static.scope_guard(paddle.static.Scope()):
                prog = paddle.static.Program.parse_from_string(open(f"opt_{kind}/model.pdmodel", "rb").read())
                exe = paddle.static.Executor(paddle.CPUPlace())
                scope = paddle.static.global_scope()
                for k, v in paddle.static.load_program_state(f"opt_{kind}/model").items():
                    scope.var(k).get_tensor().set(v, paddle.CPUPlace())
                for i in range(1, 4):
                    exe.run(prog, feed={"x": XS[i]})
                final[f"opt.{kind}"] = np.array(scope.find_var(f"o_{kind}_w").get_tensor())
        return final

    def metrics(paddle):
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            p = paddle.static.data("p", [None, 2], "float32")
            y = paddle.static.data("y", [None, 1], "int64")
            a, ba, stats = paddle.static.auc(p, y, num_thresholds=10, slide_steps=2)
            a2, ba2, _ = paddle.static.auc(p, y)
            q = paddle.static.data("q", [None, 1], "float32")
            lab = paddle.static.data("lab", [None, 1], "float32")
            ctr = paddle.static.ctr_metric_bundle(q, lab)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        out = {}
        for i in range(4):
            feed = {"p": np.concatenate([1 - PRED[i], PRED[i]], 1), "y": LABELS[i], "q": PRED[i],
                    "lab": LABELS[i].astype("float32")}
            res = exe.run(main, feed=feed, fetch_list=[a, ba, a2, ba2] + list(stats) + list(ctr))
            for j, r in enumerate(res):
                out[f"metric.run{i}.{j}"] = np.asarray(r)
        return out
''')

PADDLE_MAIN = textwrap.dedent('''
    import json
    paddle.enable_static()
    res = {}
    # A: Paddle's own run, saved after 2 steps, then 2 more steps
    main, exe, x, out, loss = build(paddle)
    paddle.static.set_program_state(main, INIT)
    train(paddle, main, exe, loss, range(2))
    paddle.static.save(main, "pd/model")
    paddle.static.save_to_file("pd.program", paddle.static.serialize_program([x], [out], program=main))
    paddle.static.save_to_file("pd.params", paddle.static.serialize_persistables([x], [out], exe, program=main))
    losses, params = train(paddle, main, exe, loss, range(2, 4))
    res.update({"A.loss": np.array(losses), "A.w": params["sv_w"], "A.b": params["sv_b"]})
    res["A.state_keys"] = np.array("|".join(sorted(paddle.static.load_program_state("pd/model"))))
    # B: our files loaded into a fresh Paddle program continue like Paddle's own
    with paddle.static.scope_guard(paddle.static.Scope()):
        main, exe, x, out, loss = build(paddle)
        paddle.static.load(main, "ours/model", exe)
        losses, params = train(paddle, main, exe, loss, range(2, 4))
        res.update({"B.loss": np.array(losses), "B.w": params["sv_w"], "B.b": params["sv_b"]})
        st = paddle.static.load_program_state("ours/model.pdparams")
        res["B.state_keys"] = np.array("|".join(sorted(st)))
    # C: our serialized program and persistables, run by Paddle
    with paddle.static.scope_guard(paddle.static.Scope()):
        prog = paddle.static.deserialize_program(paddle.static.load_from_file("ours.program"))
        paddle.static.deserialize_persistables(prog, paddle.static.load_from_file("ours.params"), exe)
        feed_name = [op for op in prog.global_block().ops if op.type == "feed"][0].output("Out")[0]
        fetch_name = [op for op in prog.global_block().ops if op.type == "fetch"][0].input("X")[0]
        res["C.out"] = np.asarray(exe.run(prog, feed={feed_name: XS[5]}, fetch_list=[fetch_name])[0])
    res.update(metrics(paddle))
    res.update(run_training_programs(paddle))
    np.savez("paddle_out.npz", **res)
    json.dump({k: str(v.dtype) for k, v in res.items()}, open("dtypes.json", "w"))
''')


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    import json
    import os
    import dy2st as paddle
    from .paddle_runner import run_paddle
    work = tmp_path_factory.mktemp("static_names")
    ns = {}
    exec(compile(BUILD, "<static names interop code>", "exec"), ns)
    cwd = os.getcwd()
    ours = {}
    paddle.enable_static()
    try:
        os.chdir(work)
        with paddle.static.scope_guard(paddle.static.Scope()):
            main, exe, x, out, loss = ns["build"](paddle)
            paddle.static.set_program_state(main, ns["INIT"])
            ns["train"](paddle, main, exe, loss, range(2))
            paddle.static.save(main, "ours/model")
            paddle.static.save_to_file("ours.program", paddle.static.serialize_program([x], [out], program=main))
            paddle.static.save_to_file("ours.params",
                                       paddle.static.serialize_persistables([x], [out], exe, program=main))
            ours["C.out"] = np.asarray(exe.run(main.clone(for_test=True), feed={"x": ns["XS"][5]},
                                               fetch_list=[out])[0])
            losses, params = ns["train"](paddle, main, exe, loss, range(2, 4))
            ours.update({"A.loss": np.array(losses), "A.w": params["sv_w"], "A.b": params["sv_b"]})
        ours.update(ns["save_training_programs"](paddle))
        proc = run_paddle(BUILD + PADDLE_MAIN, work)
        assert proc.returncode == 0, proc.stderr[-3000:]
        theirs = dict(np.load(work / "paddle_out.npz", allow_pickle=False))
        dtypes = json.loads((work / "dtypes.json").read_text())
        with paddle.static.scope_guard(paddle.static.Scope()):
            main, exe, x, out, loss = ns["build"](paddle)
            paddle.static.load(main, "pd/model", exe)
            losses, params = ns["train"](paddle, main, exe, loss, range(2, 4))
            ours.update({"B.loss": np.array(losses), "B.w": params["sv_w"], "B.b": params["sv_b"]})
            ours["A.state_keys"] = np.array("|".join(sorted(paddle.static.load_program_state("pd/model"))))
            st = paddle.static.load_program_state("ours/model.pdparams")
            ours["B.state_keys"] = np.array("|".join(sorted(st)))
        with paddle.static.scope_guard(paddle.static.Scope()):
            prog = paddle.static.deserialize_program(paddle.static.load_from_file("pd.program"))
            paddle.static.deserialize_persistables(prog, paddle.static.load_from_file("pd.params"), exe)
            pd_c = np.asarray(exe.run(prog, feed={"x": ns["XS"][5]}, fetch_list=[prog._normalized_io[1][0]])[0])
        ours.update(ns["metrics"](paddle))
    finally:
        os.chdir(cwd)
        paddle.disable_static()
    return ours, theirs, dtypes, pd_c


def test_same_results(both):
    from .paddle_runner import differences
    ours, theirs, dtypes, _ = both
    assert sorted(ours) == sorted(theirs)
    bad = differences(ours, theirs, dtypes, {k: 1e-6 for k in theirs if dtypes[k] == "float32"})
    assert not bad, "differences from Paddle:\n" + "\n".join(bad)


def test_files_load_across(both):
    """Paddle continuing from our files, and we from Paddle's, match Paddle's uninterrupted run."""
    ours, theirs, _, pd_c = both
    for k in ("loss", "w", "b"):
        np.testing.assert_allclose(theirs[f"B.{k}"], theirs[f"A.{k}"], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(ours[f"B.{k}"], theirs[f"A.{k}"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(pd_c, theirs["C.out"], rtol=1e-6, atol=1e-6)
