"""First-call time of a converted workload, by phase, in fresh processes (issue 17).

    python benchmarks/first_call.py [--workload train_mlp] [--runs 5] [--no-paddle] [--json out.json]

Each run starts new interpreters, alternating dy2st and real Paddle, and reports for both: the import
(wall and CPU) and the first call as the suite times it (``to_static(model)`` plus the first forward,
and for training the first backward), after the workload's eager column has run (as in the suite,
which warms the process the same way). dy2st's first call is split into phases by wrapping the
functions that do them (CPU time of the calling thread, so another process's load moves the numbers
less): ``convert`` (source -> converted function), ``trace`` (the converted function run into a
Program, conversion included), ``backward`` (the static backward appended), ``codegen`` (Programs
compiled to Python functions, inside the next two), ``compile_forward`` (the forward-only function, for
inference), ``plan`` (backward + its compilations + program clones) and ``run`` (the rest: the kernels of
the first forward and backward, wrapping, the tape).

Imports run in two modes: ``source`` (no bytecode cache: what this environment does, as it sets
PYTHONDONTWRITEBYTECODE=1 on a fresh checkout) and ``bytecode`` (a cache written by a first run, in a
private PYTHONPYCACHEPREFIX so the checkout is not touched). Paddle's own modules keep their installed
bytecode in both. Medians over the runs; the ratio is ours / Paddle's of the first call.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, sys, time, functools
t_cpu, t_wall = time.process_time(), time.perf_counter()
sys.path.insert(0, {root!r} + "/benchmarks"); sys.path.insert(1, {root!r})
fw = {fw!r}
if fw == "dy2st":
    import dy2st as paddle
else:
    import paddle
imp_cpu, imp_wall = time.process_time() - t_cpu, time.perf_counter() - t_wall
from suite import spec
from suite.frameworks import PaddleAdapter
T = time.thread_time
acc = {{}}
if fw == "dy2st":
    import dy2st.static_function as SF, dy2st.partial_program as PP, dy2st.conversion as CV

    def wrap(owner, name, key):
        f = getattr(owner, name)

        @functools.wraps(f)
        def w(*a, **k):
            t = T()
            try:
                return f(*a, **k)
            finally:
                acc[key] = acc.get(key, 0.0) + T() - t
        setattr(owner, name, w)
    wrap(CV, "convert_function", "convert")
    wrap(SF.StaticFunction, "_trace", "trace")
    wrap(PP.PartialProgram, "_plan", "plan")
    wrap(PP, "_static_backward", "backward")
    wrap(PP, "_compile_program", "codegen")
    wrap(PP.PartialProgram, "_compile", "compile_forward")
name = {workload!r}
model, kind, cfg, shapes = spec.resolve(name)
weights = spec.make_weights(model, cfg)
inputs = spec.make_inputs(shapes, spec.n_classes(model, cfg))
ad = PaddleAdapter(paddle, fw)
tensors = {{k: paddle.to_tensor(v) for k, v in inputs.items()}}
ad._column(ad._model(model, cfg, weights, kind), kind, tensors)      # the eager column, as the suite
m = ad._model(model, cfg, weights, kind)
acc.clear()
c0, w0 = T(), time.perf_counter()
m = paddle.jit.to_static(m, full_graph=True)
if kind == "infer":
    with paddle.no_grad():
        out = m(tensors["x"])
    out.numpy()
else:
    out = m(tensors["x"], tensors["label"])
    out.backward()
first_cpu, first_wall = T() - c0, time.perf_counter() - w0
res = {{"import_cpu": imp_cpu, "import_wall": imp_wall, "first_cpu": first_cpu, "first_wall": first_wall}}
if acc:
    res.update({{"phase:" + k: v for k, v in acc.items()}})
    res["phase:run"] = first_cpu - acc.get("trace", 0.0) - acc.get("plan", 0.0) - acc.get("compile_forward", 0.0)
print("RESULT" + json.dumps(res))
"""


def run_child(fw, workload, env):
    code = CHILD.format(root=ROOT, fw=fw, workload=workload)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"{fw} run failed (status {proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(lines[-1][len("RESULT"):])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workload", default="train_mlp")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-paddle", action="store_true")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
        base["GLOG_minloglevel"] = "3"
        modes = {
            # an empty private cache that nothing writes: every dy2st module compiles from source
            "source": dict(base, PYTHONDONTWRITEBYTECODE="1", PYTHONPYCACHEPREFIX=os.path.join(tmp, "none")),
            "bytecode": dict(base, PYTHONPYCACHEPREFIX=os.path.join(tmp, "pyc")),
        }
        run_child("dy2st", args.workload, modes["bytecode"])        # writes the bytecode cache
        results = {m: {"dy2st": [], "paddle": []} for m in modes}
        for i in range(args.runs):
            for mode, env in modes.items():
                results[mode]["dy2st"].append(run_child("dy2st", args.workload, env))
                if not args.no_paddle and mode == "bytecode":      # (Paddle's modules: installed bytecode)
                    results[mode]["paddle"].append(run_child("paddle", args.workload, env))
        with open("/proc/loadavg") as f:
            load = f.read().split()[:3]
    summary = {}
    print(f"first call of {args.workload}: median of {args.runs} fresh processes each; load average {' '.join(load)}")
    for mode in modes:
        for fw in ("dy2st", "paddle"):
            rows = results[mode][fw]
            if not rows:
                continue
            med = {k: statistics.median(r[k] for r in rows) * 1e3 for k in rows[0]}
            summary[f"{mode}:{fw}"] = med
            phases = "  ".join(f"{k[6:]} {v:.2f}" for k, v in med.items() if k.startswith("phase:"))
            print(f"  {fw:6s} {mode:8s} import {med['import_wall']:7.0f} ms wall ({med['import_cpu']:6.0f} cpu)  "
                  f"first call {med['first_wall']:7.2f} ms wall ({med['first_cpu']:6.2f} cpu)  {phases}")
    p = summary.get("bytecode:paddle")
    if p:
        for mode in modes:
            d = summary[f"{mode}:dy2st"]
            print(f"  ours / Paddle, first call ({mode}): {d['first_wall'] / p['first_wall']:.3f} wall, "
                  f"{d['first_cpu'] / p['first_cpu']:.3f} cpu; import + first call: "
                  f"{(d['import_wall'] + d['first_wall']) / (p['import_wall'] + p['first_wall']):.3f} wall")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"summary": summary, "runs": results, "load": load}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
