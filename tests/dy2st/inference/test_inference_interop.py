"""Differential test of paddle.inference against real Paddle 3.3.1 (in a subprocess).

One predictor script (``CODE``) runs once with real Paddle and once with ``import dy2st as paddle`` on
the same files: real Paddle's fixtures (legacy ``.pdmodel`` and PIR ``.json``) and models this package
saves in both formats. Compared: input/output names, handle shapes and types before and after data,
every output (handle and ``run(list)`` forms) in value, dtype and shape, and the exception classes of
the common mistakes (unknown input name, a list given to copy_from_cpu, a missing model file, data of
the wrong dtype), the enums, ``get_num_bytes_of_data_type`` and ``_get_phi_kernel_name`` of every op type we
register. Real Paddle runs the script twice: legacy executor (``FLAGS_enable_pir_api`` off) and its default
PIR mode. Paddle prints no logs (``disable_glog_info``)."""
import json
import textwrap

import numpy as np
import pytest

from tests.interop.paddle_runner import differences, differential

from .models import paddle_fixtures, save_two_heads, two_heads_inputs

CODE = textwrap.dedent('''
    import json
    import numpy as np

    def compute(paddle):
        if PADDLE_PIR_MODE and paddle.__name__ == "paddle":
            paddle.set_flags({"FLAGS_enable_pir_api": True})    # real Paddle's default mode (PIR executor)
        inference = paddle.inference
        models = json.load(open(MODELS_JSON))
        out = {}

        def err(key, fn):
            try:
                fn()
                out["err." + key] = np.array("no error")
            except Exception as e:
                out["err." + key] = np.array(",".join(k.__name__ for k in type(e).__mro__))

        def config(m):
            c = inference.Config(m["model"], m["params"])
            c.disable_glog_info()
            c.switch_ir_optim(m["ir_optim"])
            return c

        for m in models:
            tag = m["name"]
            ins = [np.load(p) for p in m["inputs"]]
            pred = inference.create_predictor(config(m))
            names_in, names_out = pred.get_input_names(), pred.get_output_names()
            out[tag + ".input_names"] = np.array(names_in)
            out[tag + ".output_names"] = np.array(names_out)
            h = pred.get_input_handle(names_in[0])
            out[tag + ".in0.shape_before"] = np.array(h.shape())
            out[tag + ".in0.type_before"] = np.array(str(h.type()))
            for name, a in zip(names_in, ins):
                h = pred.get_input_handle(name)
                h.reshape(list(a.shape))
                h.copy_from_cpu(a)
                out[tag + "." + name + ".shape_after"] = np.array(h.shape())
            pred.run()
            for k, name in enumerate(names_out):
                o = pred.get_output_handle(name)
                out[f"{tag}.out{k}"] = o.copy_to_cpu()
                out[f"{tag}.out{k}.shape"] = np.array(o.shape())
                out[f"{tag}.out{k}.type"] = np.array(str(o.type()))
            listed = pred.clone().run([paddle.to_tensor(a) for a in ins])
            for k, t in enumerate(listed):
                out[f"{tag}.list{k}"] = t.numpy()
            out[tag + ".list_kind"] = np.array(type(listed[0]).__name__)

        m = models[0]
        pred = inference.create_predictor(config(m))
        err("unknown_input", lambda: pred.get_input_handle("no_such_input"))
        err("unknown_output", lambda: pred.get_output_handle("no_such_output"))
        err("copy_list", lambda: pred.get_input_handle(pred.get_input_names()[0]).copy_from_cpu([[1.0]]))
        err("missing_file", lambda: inference.create_predictor(
            inference.Config(m["model"] + ".missing.pdmodel", m["params"] + ".missing")))

        def wrong_dtype():
            for name, p in zip(pred.get_input_names(), m["inputs"]):
                pred.get_input_handle(name).copy_from_cpu(np.load(p).astype("float64"))
            pred.run()
        err("wrong_dtype_run", wrong_dtype)
        used = config(m)
        inference.create_predictor(used)
        err("config_reuse", lambda: inference.create_predictor(used))

        # the module's small functions and enums
        for t in OP_TYPES:
            out["phi_kernel." + t] = np.array(inference._get_phi_kernel_name(t))
        D = inference.DataType
        out["num_bytes"] = np.array([inference.get_num_bytes_of_data_type(d) for d in (D.FLOAT32, D.INT64, D.INT32,
                                                                                      D.UINT8)])
        for enum in (inference.DataType, inference.PlaceType, inference.PrecisionType):
            members = sorted(enum.__members__.items(), key=lambda kv: int(kv[1]))
            out["enum." + type(members[0][1]).__name__] = np.array([f"{k}={int(v)}:{v}" for k, v in members])
        out["trt_versions"] = np.array([inference.get_trt_compile_version(), inference.get_trt_runtime_version()])
        return out
''')

PADDLE_MAIN = textwrap.dedent('''
    res = compute(paddle)
    np.savez("paddle_out.npz", **res)
    json.dump({k: str(np.asarray(v).dtype) for k, v in res.items()}, open("dtypes.json", "w"))
''')


@pytest.fixture(scope="module", params=["legacy", "pir"], ids=["paddle_legacy_ir", "paddle_pir_mode"])
def both(tmp_path_factory, request):
    """Real Paddle runs the script with FLAGS_enable_pir_api off (the legacy executor) and on (Paddle 3's
    default: programs run as PIR); ours runs it once per mode too (the flag changes nothing here)."""
    work = tmp_path_factory.mktemp("inference_interop")
    models = []
    for k, (name, prefix, ins, _) in enumerate(paddle_fixtures()):
        ext = ".json" if name.startswith("pir_") else ".pdmodel"
        paths = []
        for i, a in enumerate(ins):
            p = work / f"{name}.in{i}.npy"
            np.save(p, a)
            paths.append(str(p))
        params = prefix + ".pdiparams" if name != "assign_value_concat" else ""
        models.append({"name": name, "model": prefix + ext, "params": params, "inputs": paths,
                       "ir_optim": k % 2 == 0})
    for pir in (False, True):
        prefix = str(work / ("ours_pir" if pir else "ours_pdmodel"))
        save_two_heads(prefix, pir=pir)
        paths = []
        for i, a in enumerate(two_heads_inputs(3)):
            p = work / f"{prefix}.in{i}.npy"
            np.save(p, a)
            paths.append(str(p))
        models.append({"name": prefix.rsplit("/", 1)[1], "model": prefix + (".json" if pir else ".pdmodel"),
                       "params": prefix + ".pdiparams", "inputs": paths, "ir_optim": True})
    (work / "models.json").write_text(json.dumps(models))
    from runtime.ops.registry import all_ops
    code = (f"MODELS_JSON = {str(work / 'models.json')!r}\nOP_TYPES = {sorted(all_ops())!r}\n"
            f"PADDLE_PIR_MODE = {request.param == 'pir'}\n" + CODE)
    return differential(code, PADDLE_MAIN, work, "inference")


def test_same_names_shapes_types_and_outputs(both):
    ours, theirs, dtypes = both
    assert set(ours) == set(theirs), sorted(set(ours) ^ set(theirs))
    keys = [k for k in theirs if not k.startswith("phi_kernel.")]
    bad = differences({k: ours[k] for k in keys}, {k: theirs[k] for k in keys}, dtypes, double_tol=1e-9)
    assert not bad, "\n".join(bad)


def test_phi_kernel_names(both):
    """``_get_phi_kernel_name`` of every op type in our registry, as Paddle names the kernel."""
    ours, theirs, _ = both
    bad = [f"{k[len('phi_kernel.'):]}: {ours[k]} vs Paddle {theirs[k]}" for k in theirs
           if k.startswith("phi_kernel.") and str(ours[k]) != str(theirs[k])]
    assert not bad, ("legacy op types whose phi kernel name differs (add them to _PHI_NAMES in "
                     "dy2st/inference/utils.py): " + "; ".join(bad))


def test_every_model_was_compared(both):
    ours, theirs, _ = both
    names = {k.split(".")[0] for k in theirs if k.endswith(".output_names")}
    assert len(names) == len(paddle_fixtures()) + 2
    assert str(theirs["err.unknown_input"]).startswith("RuntimeError")
    assert str(theirs["err.copy_list"]).startswith("TypeError")


def test_every_paddle_method_exists(tmp_path):
    """Each public method of Paddle's Config, Predictor, Tensor, PredictorPool and XpuConfig exists here."""
    from tests.interop.paddle_runner import run_paddle
    import dy2st
    code = textwrap.dedent('''
        import json
        from paddle import inference as I
        json.dump({c: [n for n in dir(getattr(I, c)) if not n.startswith("_")]
                   for c in ("Config", "Predictor", "Tensor", "PredictorPool", "XpuConfig")}, open("methods.json", "w"))
    ''')
    proc = run_paddle(code, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads((tmp_path / "methods.json").read_text())
    missing = {}
    for cls, names in theirs.items():
        ours = getattr(dy2st.inference, cls)
        ours = ours() if cls == "XpuConfig" else ours
        missing[cls] = [n for n in names if not hasattr(ours, n)]
    assert not any(missing.values()), missing
    assert len(theirs["Config"]) > 100
