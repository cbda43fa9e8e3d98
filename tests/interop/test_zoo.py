"""Realistic models (zoo_models.py) run in dy2st and in real Paddle 3.3.1 on identical weights and
inputs: (a) our eager outputs and parameter gradients equal Paddle's; (b) our to_static equals our
eager (outputs and gradients); (c) a model saved by our jit.save loads in Paddle's paddle.jit.load
with our outputs; (d) a model saved by Paddle's to_static + jit.save loads in our paddle.jit.load
with Paddle's outputs (skipped where Paddle itself cannot write a legacy .pdmodel, see PADDLE_LEGACY_BUGS);
(e) a few AdamW steps on some models give Paddle's parameters, eager and to_static. All Paddle work
happens in one subprocess."""
import pathlib
import traceback
import zlib

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec

from . import zoo_models as Z
from .paddle_runner import run_paddle

HERE = pathlib.Path(__file__).resolve().parent
CASES = sorted(Z.CASES)
XFAIL = {}   # (case, check) -> reason: known gaps, strict xfails
# Paddle 3.3.1's own failures when tracing with FLAGS_enable_pir_api=0 (the only mode that writes the
# .pdmodel files we read): tensor methods and several functions are bound to PIR-only ops ("must be
# Value, but got Variable"), nn.LSTM/GRU fail with "Unknown place type", and F.scaled_dot_product_attention
# calls query.shape.numel() (a tuple in legacy programs).
PADDLE_LEGACY_BUGS = ("must be Value, but got", "Unknown place type", "'tuple' object has no attribute 'numel'",
                      # legacy jit.save looks parameters up by names that models built earlier in the same
                      # process can shift: which model hits it depends on the order (a -k subset changes it)
                      "state_var_dict[param_or_buffer.name]")


def case_inputs(name):
    return Z.CASES[name][1](np.random.default_rng(zlib.crc32(name.encode())))


def specs(name):
    return [InputSpec(shape, dtype, f"in{k}") for k, (shape, dtype) in enumerate(Z.CASES[name][2])]


def run_once(model, inputs):
    """(outputs, {param name: grad}) of one forward/backward."""
    outs = Z.flatten_outputs(model(*[paddle.to_tensor(a) for a in inputs]))
    loss = Z.scalar_loss(outs)
    grads = {}
    if loss is not None:
        loss.backward()
        grads = {k: p.grad.numpy() for k, p in model.named_parameters() if p.grad is not None}
        model.clear_gradients()
    return [o.numpy() for o in outs], grads


def fresh(name, state):
    make, _, _, train = Z.CASES[name]
    m = make()
    m.set_state_dict({k: paddle.to_tensor(v) for k, v in state.items()})
    m.train() if train else m.eval()
    return m


PADDLE_SCRIPT = r"""
import sys, os, json, traceback
import numpy as np
os.environ["ZOO_BACKEND"] = "paddle"
sys.path.insert(0, ZOO_DIR)
import zoo_models as Z
from paddle.static import InputSpec

def save(path, arrays):
    np.savez(path, *[np.asarray(a) for a in arrays])

def run_once(model, inputs):
    outs = Z.flatten_outputs(model(*[paddle.to_tensor(a) for a in inputs]))
    loss = Z.scalar_loss(outs)
    grads = {}
    if loss is not None:
        loss.backward()
        grads = {k: p.grad.numpy() for k, p in model.named_parameters() if p.grad is not None}
        model.clear_gradients()
    return [o.numpy() for o in outs], grads

report = {}
for name in NAMES:
    make, _, spec, train = Z.CASES[name]
    d = os.path.join(WORK, name)
    ins = [np.load(os.path.join(d, f"in{k}.npy")) for k in range(len(spec))]
    state = dict(np.load(os.path.join(d, "state.npz")))
    r = report[name] = {}
    def fresh():
        m = make()
        r["state_keys"] = sorted(m.state_dict().keys())
        m.set_state_dict({k: paddle.to_tensor(v) for k, v in state.items()})
        m.train() if train else m.eval()
        return m
    try:
        m = fresh()
        outs, grads = run_once(m, ins)
        save(os.path.join(d, "pd_eager.npz"), outs)
        np.savez(os.path.join(d, "pd_grads.npz"), **grads)
    except Exception:
        r["eager_error"] = traceback.format_exc()[-2500:]
    try:
        loaded = paddle.jit.load(os.path.join(d, "ours", "model"))
        loaded.eval()
        save(os.path.join(d, "pd_loads_ours.npz"),
             [o.numpy() for o in Z.flatten_outputs(loaded(*[paddle.to_tensor(a) for a in ins]))])
    except Exception:
        r["load_error"] = traceback.format_exc()[-2500:]
    try:
        m = fresh()
        sm = paddle.jit.to_static(m, input_spec=[InputSpec(s, t, f"in{k}") for k, (s, t) in enumerate(spec)],
                                  full_graph=True)
        if train:
            sm(*[paddle.to_tensor(a) for a in ins])   # the same BatchNorm statistics update as ours
        sm.eval()
        outs = [o.numpy() for o in Z.flatten_outputs(sm(*[paddle.to_tensor(a) for a in ins]))]
        paddle.jit.save(sm, os.path.join(d, "theirs", "model"))
        save(os.path.join(d, "pd_static_eval.npz"), outs)
    except Exception:
        r["save_error"] = traceback.format_exc()[-2500:]
for name in TRAIN:
    make, _, spec, train = Z.CASES[name]
    d = os.path.join(WORK, name)
    ins = [paddle.to_tensor(np.load(os.path.join(d, f"in{k}.npy"))) for k in range(len(spec))]
    state = dict(np.load(os.path.join(d, "state.npz")))
    try:
        m = make()
        m.set_state_dict({k: paddle.to_tensor(v) for k, v in state.items()})
        m.train()
        opt, sched = Z.make_optimizer(m.parameters())
        for _ in range(Z.TRAIN_STEPS):
            loss = Z.scalar_loss(Z.flatten_outputs(m(*ins)))
            loss.backward()
            opt.step()
            opt.clear_grad()
            sched.step()
        np.savez(os.path.join(d, "pd_trained.npz"), **{k: v.numpy() for k, v in m.state_dict().items()})
    except Exception:
        report[name]["train_error"] = traceback.format_exc()[-2500:]
json.dump(report, open(os.path.join(WORK, "report.json"), "w"))
"""


# Paddle 3's default mode: to_static + jit.save writes a PIR .json program (the "theirs_pir" files)
PADDLE_PIR_SCRIPT = r"""
import sys, os, json, traceback
import numpy as np
sys.path.insert(0, ZOO_DIR)
os.environ["ZOO_BACKEND"] = "paddle"
import zoo_models as Z
from paddle.static import InputSpec
assert paddle.get_flags("FLAGS_enable_pir_api")["FLAGS_enable_pir_api"]
report = {}
for name in NAMES:
    make, _, spec, train = Z.CASES[name]
    d = os.path.join(WORK, name)
    ins = [np.load(os.path.join(d, f"in{k}.npy")) for k in range(len(spec))]
    state = dict(np.load(os.path.join(d, "state.npz")))
    try:
        m = make()
        m.set_state_dict({k: paddle.to_tensor(v) for k, v in state.items()})
        m.train() if train else m.eval()
        sm = paddle.jit.to_static(m, input_spec=[InputSpec(s, t, f"in{k}") for k, (s, t) in enumerate(spec)],
                                  full_graph=True)
        if train:
            sm(*[paddle.to_tensor(a) for a in ins])
        sm.eval()
        outs = [o.numpy() for o in Z.flatten_outputs(sm(*[paddle.to_tensor(a) for a in ins]))]
        paddle.jit.save(sm, os.path.join(d, "theirs_pir", "model"))
        np.savez(os.path.join(d, "pd_static_eval_pir.npz"), *outs)
        report[name] = ""
    except Exception:
        report[name] = traceback.format_exc()[-2500:]
json.dump(report, open(os.path.join(WORK, "report_pir.json"), "w"))
"""


def npz_list(path):
    with np.load(path) as z:
        return [z[f"arr_{k}"] for k in range(len(z.files))]


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    import json
    work = tmp_path_factory.mktemp("zoo")
    ours = {}
    for name in CASES:
        d = work / name
        d.mkdir()
        r = ours[name] = {}
        make = Z.CASES[name][0]
        ins = case_inputs(name)
        for k, a in enumerate(ins):
            np.save(d / f"in{k}.npy", a)
        paddle.seed(zlib.crc32(name.encode()) % 1000)
        state = {k: v.numpy() for k, v in make().state_dict().items()}
        np.savez(d / "state.npz", **state)
        r["state_keys"] = sorted(state)
        try:
            r["eager"], r["grads"] = run_once(fresh(name, state), ins)
        except Exception:
            r["eager_error"] = traceback.format_exc()
        try:
            sm = paddle.jit.to_static(fresh(name, state))
            r["static"], r["static_grads"] = run_once(sm, ins)
            sm.eval()
            r["static_eval"] = [o.numpy() for o in Z.flatten_outputs(sm(*[paddle.to_tensor(a) for a in ins]))]
            paddle.jit.save(sm, str(d / "ours" / "model"), input_spec=specs(name))
        except Exception:
            r["static_error"] = traceback.format_exc()
    for name in Z.TRAIN_CASES:
        state = dict(np.load(work / name / "state.npz"))
        ins = case_inputs(name)
        for mode in ("eager", "static"):
            try:
                m = fresh(name, state)
                m.train()
                step = paddle.jit.to_static(m) if mode == "static" else m
                opt, sched = Z.make_optimizer(m.parameters())
                for _ in range(Z.TRAIN_STEPS):
                    loss = Z.scalar_loss(Z.flatten_outputs(step(*[paddle.to_tensor(a) for a in ins])))
                    loss.backward()
                    opt.step()
                    opt.clear_grad()
                    sched.step()
                ours[name][f"trained_{mode}"] = {k: v.numpy() for k, v in m.state_dict().items()}
            except Exception:
                ours[name][f"train_error_{mode}"] = traceback.format_exc()
    code = (f"ZOO_DIR = {str(HERE)!r}\nWORK = {str(work)!r}\nNAMES = {CASES!r}\nTRAIN = {list(Z.TRAIN_CASES)!r}\n"
            + PADDLE_SCRIPT)
    proc = run_paddle(code, work)
    if proc.returncode != 0 or not (work / "report.json").exists():
        raise AssertionError(f"the Paddle subprocess failed (status {proc.returncode}):\n{proc.stderr[-5000:]}")
    report = json.loads((work / "report.json").read_text())
    # what Paddle's legacy IR cannot save, Paddle 3's default (PIR) mode usually can: save those so, too
    pir_names = [n for n in CASES if any(s in report[n].get("save_error", "") for s in PADDLE_LEGACY_BUGS)]
    if pir_names:
        code = (f"ZOO_DIR = {str(HERE)!r}\nWORK = {str(work)!r}\nNAMES = {pir_names!r}\n" + PADDLE_PIR_SCRIPT)
        proc = run_paddle(code, work, default_flags=True)
        if proc.returncode != 0 or not (work / "report_pir.json").exists():
            raise AssertionError(f"the Paddle (PIR) subprocess failed (status {proc.returncode}):\n"
                                 f"{proc.stderr[-5000:]}")
        for name, err in json.loads((work / "report_pir.json").read_text()).items():
            report[name]["pir_save_error"] = err
    return work, ours, report


def close(got, want, what, tol=1e-5):
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"{what}: output {k} has shape {g.shape}, expected {w.shape}"
        assert g.dtype == w.dtype, f"{what}: output {k} has dtype {g.dtype}, expected {w.dtype}"
        if w.dtype == np.bool_ or np.issubdtype(w.dtype, np.integer):
            np.testing.assert_array_equal(g, w, err_msg=f"{what}: output {k}")
            continue
        scale = max(float(np.max(np.abs(w))) if w.size else 0.0, 1.0)
        err = float(np.max(np.abs(g.astype(np.float64) - w))) if w.size else 0.0
        assert err <= tol * scale, f"{what}: output {k} differs by {err:.3g} (scale {scale:.3g})"


def grads_close(got, want, what, tol=1e-5):
    assert sorted(got) == sorted(want), f"{what}: gradients for {sorted(got)}, expected {sorted(want)}"
    for k in sorted(want):
        close([got[k]], [want[k]], f"{what}: grad of {k}", tol)


def params(check):
    """The case names, a strict xfail on the (case, check) pairs listed in XFAIL."""
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=XFAIL[(n, check)]))
            if (n, check) in XFAIL else n for n in CASES]


def _need(r, key, what):
    for err in ("eager_error", "static_error", "load_error", "save_error"):
        if err in r and key in (err, "*"):
            raise AssertionError(f"{what}:\n{r[err]}")


@pytest.mark.parametrize("name", params("eager"))
def test_eager_matches_paddle(name, zoo):
    work, ours, report = zoo
    o, p = ours[name], report[name]
    assert "eager_error" not in o, o.get("eager_error")
    assert "eager_error" not in p, p.get("eager_error")
    assert o["state_keys"] == p["state_keys"]
    close(o["eager"], npz_list(work / name / "pd_eager.npz"), f"{name} eager vs Paddle")
    with np.load(work / name / "pd_grads.npz") as z:
        grads_close(o["grads"], dict(z), f"{name} eager vs Paddle", tol=1e-4)


@pytest.mark.parametrize("name", params("to_static"))
def test_to_static_matches_eager(name, zoo):
    _, ours, _ = zoo
    o = ours[name]
    assert "eager_error" not in o, o.get("eager_error")
    assert "static_error" not in o, o.get("static_error")
    close(o["static"], o["eager"], f"{name} to_static vs eager")
    if Z.CASES[name][3]:   # eval-mode to_static runs the inference program: no gradients (as in Paddle)
        grads_close(o["static_grads"], o["grads"], f"{name} to_static vs eager")


@pytest.mark.parametrize("name", params("paddle_loads_ours"))
def test_paddle_loads_our_jit_save(name, zoo):
    work, ours, report = zoo
    o, p = ours[name], report[name]
    assert "static_error" not in o, o.get("static_error")
    assert "load_error" not in p, p.get("load_error")
    close(npz_list(work / name / "pd_loads_ours.npz"), o["static_eval"], f"{name}: Paddle's jit.load of ours")


@pytest.mark.parametrize("name", params("we_load_paddles"))
def test_we_load_paddles_jit_save(name, zoo):
    work, _, report = zoo
    p = report[name]
    err = p.get("save_error", "")
    theirs, want_file = "theirs", "pd_static_eval.npz"
    if any(s in err for s in PADDLE_LEGACY_BUGS):
        # Paddle 3.3.1's legacy-IR to_static cannot save this model: load its default (PIR) files instead
        pir_err = p.get("pir_save_error")
        if pir_err:
            pytest.skip("expected, not a dy2st fault: real Paddle 3.3.1 cannot to_static + jit.save this model in "
                        "either format, so there is no Paddle-written file to load. Paddle said: "
                        + [ln for ln in pir_err.splitlines() if ln.strip()][-1].strip()[:160])
        theirs, want_file = "theirs_pir", "pd_static_eval_pir.npz"
    else:
        assert not err, err
    want = npz_list(work / name / want_file)
    layer = paddle.jit.load(str(work / name / theirs / "model"))
    layer.eval()
    got = Z.flatten_outputs(layer(*[paddle.to_tensor(a) for a in case_inputs(name)]))
    close([g.numpy() for g in got], want, f"{name}: our jit.load of Paddle's")


@pytest.mark.parametrize("name", Z.TRAIN_CASES)
@pytest.mark.parametrize("mode", ["eager", "static"])
def test_training_steps_match_paddle(name, mode, zoo):
    """A few AdamW steps (weight decay, global-norm clipping, StepDecay) give Paddle's parameters."""
    work, ours, report = zoo
    o, p = ours[name], report[name]
    assert f"train_error_{mode}" not in o, o.get(f"train_error_{mode}")
    assert "train_error" not in p, p.get("train_error")
    with np.load(work / name / "pd_trained.npz") as z:
        want = dict(z)
    grads_close(o[f"trained_{mode}"], want, f"{name} after {Z.TRAIN_STEPS} steps ({mode})", tol=1e-4)
