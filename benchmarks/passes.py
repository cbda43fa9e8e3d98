"""Graph passes: compiled static Programs with passes off vs on, in one process, interleaved.

    python3 benchmarks/passes.py [--repeats 15] [--min-time 0.02] [--json out.json] [--workloads mlp1,lenet]

Workloads (float32 inference; each the Program ``paddle.jit.to_static`` traces for the model; the
models are the issue-7 suite's, benchmarks/suite/workloads.py; the findings below were measured
when this script had its own copies with a 128-wide ReLU FFN in the transformer):
  mlp1 / mlp64   784-256-10 MLP with softmax at batch 1 / 64
  lenet          LeNet-5 at batch 32 on 28x28
  transformer    Transformer encoder block (d_model 64, 4 heads, seq 32, batch 8)
  lstm           hand-written LSTM over time (T 32, batch 4, input 32, hidden 128), unrolled

For each workload the Program is compiled once with no pass (``passes=()``), once with the
default passes and once per single pass (that pass + dce), and the generated functions are
called directly (no executor overhead, so the ratios show only what the passes change). Each of
``--repeats`` rounds times every variant over the same number of calls, rotating which goes
first; the report gives the median ns per call of each variant and the median of the per-round
ratios to the no-pass variant (< 1: the pass pays). Compile time (optimize + codegen) is the
median of 5 compilations. Outputs of every variant are checked equal to the no-pass output first.

Findings (2 cores, OMP_NUM_THREADS=1, two runs on a quiet machine, 11-15 rounds; noise about
+-1 %), ratio on/off with only fuse_gemm (+dce): mlp1 0.993 / 0.997, mlp64 0.994 / 0.997, lenet
1.003 / 1.004, transformer 0.990 / 0.994, lstm 0.996 / 0.987; constant_fold, cse, noop,
fuse_elementwise and inplace: every ratio within 0.99-1.02, no sign of a gain. The models are
bound by BLAS / convolution kernels; the elementwise work the fusions save is a few % of a call.
Compile time (optimize + codegen) grows by 0.1-1 ms for the small models and by ~8-14 ms for
the unrolled LSTM (170 ops; 2.5 ms of it the clone). So only dce + fuse_gemm are on by default
(runtime/static/passes/manager.py DEFAULT); DY2ST_PASSES=all runs every pass.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dy2st as paddle  # noqa: E402
from runtime.static.codegen import compile_program  # noqa: E402
from runtime.static.passes import ALL, DEFAULT  # noqa: E402
from runtime.static.scope import global_scope  # noqa: E402
from suite import load_workloads  # noqa: E402


# the models of the issue-7 suite (benchmarks/suite/workloads.py), so both benchmarks time the same code
_W = load_workloads(paddle)

WORKLOADS = {
    "mlp1": (_W.MLP, [1, 784]),
    "mlp64": (_W.MLP, [64, 784]),
    "lenet": (_W.LeNet5, [32, 1, 28, 28]),
    "transformer": (_W.EncoderBlock, [8, 32, 64]),
    "lstm": (_W.LSTM, [32, 4, 32]),
}


def traced_program(name, scale=1):
    """(program, feed name, fetch names, input array) of the workload's to_static forward."""
    cls, shape = WORKLOADS[name]
    paddle.seed(0)
    layer = cls()
    layer.eval()
    shape = list(shape)
    shape[0 if name != "lstm" else 1] = max(1, shape[0 if name != "lstm" else 1] // scale)
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    static = paddle.jit.to_static(layer)
    with paddle.no_grad():
        static(paddle.to_tensor(x))
    cp = static.forward.concrete_program
    return cp.main_program, cp.inputs[0].name, tuple(v.name for v in cp.outputs), x


def variants():
    out = {"off": (), "default": DEFAULT}
    for p in ALL:
        if p != "dce":
            out[p] = ("dce", p) if p != "inplace" else ("dce", "fuse_gemm", "fuse_elementwise", "inplace")
    return out


def _time_calls(fn, number):
    t0 = time.perf_counter_ns()
    for _ in range(number):
        fn()
    return (time.perf_counter_ns() - t0) / number


def bench_workload(name, repeats, min_time, scale=1):
    program, feed_name, fetch, x = traced_program(name, scale)
    scope, bindings = global_scope().vars, program._eager_bindings
    feed = {feed_name: x}
    calls, compile_ms = {}, {}
    for vname, passes in variants().items():
        times = []
        for _ in range(5 if repeats > 1 else 1):
            t0 = time.perf_counter()
            c = compile_program(program, (feed_name,), fetch, passes=passes)
            times.append((time.perf_counter() - t0) * 1e3)
        compile_ms[vname] = statistics.median(times)
        calls[vname] = (lambda fn=c.fn: fn(feed, scope, bindings))
    ref = calls["off"]()
    for vname, fn in calls.items():
        for a, b in zip(fn(), ref):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7, err_msg=f"{name}/{vname}")
        fn()
    per_call = _time_calls(calls["off"], 3) or 1.0
    number = max(1, int(min_time * 1e9 / per_call))
    names = list(calls)
    ns = {v: [] for v in names}
    ratios = {v: [] for v in names}
    for r in range(repeats):
        order = names[r % len(names):] + names[:r % len(names)]
        got = {v: _time_calls(calls[v], number) for v in order}
        for v in names:
            ns[v].append(got[v])
            ratios[v].append(got[v] / got["off"])
    return {v: {"ns": statistics.median(ns[v]), "ratio": statistics.median(ratios[v]),
                "compile_ms": compile_ms[v]} for v in names} | {"_calls_per_timing": number}


def main(argv=None):
    parser = argparse.ArgumentParser(description="compiled Programs with graph passes off vs on")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--min-time", type=float, default=0.02)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--scale", type=int, default=1, help="divide batch sizes by this (smoke tests)")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    results = {}
    for name in args.workloads.split(","):
        results[name] = bench_workload(name, args.repeats, args.min_time, args.scale)
    vnames = list(variants())
    print(f"{'workload':<12} {'off us':>9} {'on us':>9} {'on/off':>7} | ratio to off with only one pass (+dce):")
    print(f"{'':<12} {'':>9} {'':>9} {'':>7} | " + " ".join(f"{v:>16}" for v in vnames[2:]))
    for name, res in results.items():
        print(f"{name:<12} {res['off']['ns'] / 1e3:>9.1f} {res['default']['ns'] / 1e3:>9.1f} "
              f"{res['default']['ratio']:>7.3f} | " + " ".join(f"{res[v]['ratio']:>16.3f}" for v in vnames[2:]))
    print("\ncompile ms (optimize + codegen):")
    for name, res in results.items():
        print(f"{name:<12} off {res['off']['compile_ms']:.2f}  default {res['default']['compile_ms']:.2f}  " +
              "  ".join(f"{v} {res[v]['compile_ms']:.2f}" for v in vnames[2:]))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"results": results, "python": platform.python_version(), "numpy": np.__version__,
                       "cpus": os.cpu_count(), "default_passes": list(DEFAULT)}, fh, indent=1)
    return results


if __name__ == "__main__":
    main()
