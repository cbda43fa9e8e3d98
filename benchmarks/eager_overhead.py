"""Eager-mode overhead: dy2st ops against the same computation in plain numpy, in one process.

    python benchmarks/eager_overhead.py [--repeats 15] [--min-time 0.02] [--json results.json] [--check]

Cases (float32):
  add       ``a + b`` on 1-element tensors: pure per-op overhead.       target ratio <= 5x
  mlp       784-256-10 MLP forward at batch 1 (matmul, add, relu, matmul, add) through
            paddle.matmul / paddle.add / nn.functional.relu, weights as plain tensors
            (inference: nothing to record).                                target ratio <= 1.5x
  mlp_tape  the same forward with weights that need gradients, so every op is recorded
            on the autograd tape (informational, no target).

Each repeat times numpy and dy2st back to back (interleaved, alternating which goes first)
over the same number of calls; the report is the median over repeats of ns per call for
each side and of the per-repeat ratio dy2st / numpy. ``--check`` exits with status 1 when a
target is missed; without it the script only reports.
"""
from __future__ import annotations

import argparse
import json
import operator
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import runtime as paddle  # noqa: E402
import runtime.nn.functional as F  # noqa: E402

TARGETS = {"add": 5.0, "mlp": 1.5, "mlp_tape": None}

# paddle.matmul is the functional the MLP should use; until the linalg API provides it, the
# `@` operator (the same matmul_v2 op, one run_op call) stands in and the report says so.
if hasattr(paddle, "matmul"):
    _matmul, MATMUL_API = paddle.matmul, "paddle.matmul"
else:
    _matmul, MATMUL_API = operator.matmul, "@ operator (paddle.matmul not available)"


def _add_case():
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal([1]).astype(np.float32)
    b_np = rng.standard_normal([1]).astype(np.float32)
    a, b = paddle.to_tensor(a_np), paddle.to_tensor(b_np)

    def add_np():
        return a_np + b_np

    def add_eager():
        return a + b

    return add_np, add_eager


def _mlp_arrays():
    rng = np.random.default_rng(1)
    x = rng.standard_normal([1, 784]).astype(np.float32)
    w1 = (rng.standard_normal([784, 256]) * 0.05).astype(np.float32)
    b1 = (rng.standard_normal([256]) * 0.05).astype(np.float32)
    w2 = (rng.standard_normal([256, 10]) * 0.05).astype(np.float32)
    b2 = (rng.standard_normal([10]) * 0.05).astype(np.float32)
    return x, w1, b1, w2, b2


def _mlp_case(needs_grad):
    x_np, w1_np, b1_np, w2_np, b2_np = _mlp_arrays()
    x = paddle.to_tensor(x_np)
    w1, b1, w2, b2 = (paddle.to_tensor(v, stop_gradient=not needs_grad) for v in (w1_np, b1_np, w2_np, b2_np))

    def mlp_np():
        h = np.maximum(x_np @ w1_np + b1_np, 0)
        return h @ w2_np + b2_np

    def mlp_eager():
        h = F.relu(paddle.add(_matmul(x, w1), b1))
        return paddle.add(_matmul(h, w2), b2)

    return mlp_np, mlp_eager


CASES = {"add": _add_case, "mlp": lambda: _mlp_case(False), "mlp_tape": lambda: _mlp_case(True)}


def make_case(name):
    np_fn, eager_fn = CASES[name]()
    # The two sides must compute the same thing, or the comparison means nothing.
    np.testing.assert_allclose(eager_fn().numpy(), np_fn(), rtol=1e-4, atol=1e-5)
    return np_fn, eager_fn


def _time_calls(fn, number):
    t0 = time.perf_counter_ns()
    for _ in range(number):
        fn()
    return (time.perf_counter_ns() - t0) / number


def calibrate(fn, min_time):
    """Calls per timing so one timing of the slower side lasts about ``min_time`` seconds."""
    number = 1
    while True:
        per_call = _time_calls(fn, number)
        if per_call * number >= min_time * 1e9 or number >= 1 << 22:
            return max(1, int(min_time * 1e9 / max(per_call, 1.0)))
        number *= 4


def bench(np_fn, eager_fn, repeats, min_time):
    for _ in range(3):  # warm caches and lazy imports on both sides
        np_fn()
        eager_fn()
    number = calibrate(eager_fn, min_time)
    np_ns, eager_ns, ratios = [], [], []
    for r in range(repeats):
        if r % 2 == 0:
            n = _time_calls(np_fn, number)
            e = _time_calls(eager_fn, number)
        else:
            e = _time_calls(eager_fn, number)
            n = _time_calls(np_fn, number)
        np_ns.append(n)
        eager_ns.append(e)
        ratios.append(e / n)
    return {
        "numpy_ns": statistics.median(np_ns),
        "eager_ns": statistics.median(eager_ns),
        "ratio": statistics.median(ratios),
        "calls_per_timing": number,
        "repeats": repeats,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description="dy2st eager overhead against numpy")
    parser.add_argument("--repeats", type=int, default=15, help="timings per side and case (median is reported)")
    parser.add_argument("--min-time", type=float, default=0.02,
                        help="seconds one timing of the eager side should last (sets calls per timing)")
    parser.add_argument("--cases", default="add,mlp,mlp_tape", help="comma-separated subset of add,mlp,mlp_tape")
    parser.add_argument("--json", metavar="PATH", help="also write the results to PATH as JSON")
    parser.add_argument("--check", action="store_true", help="exit with status 1 if a target ratio is missed")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")

    wanted = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in wanted if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {unknown}; choose from {sorted(CASES)}")

    results = {}
    if any(c.startswith("mlp") for c in wanted):
        print(f"mlp matmul through: {MATMUL_API}")
    print(f"{'case':<10} {'numpy ns/call':>14} {'dy2st ns/call':>14} {'ratio':>8} {'target':>8}")
    missed = []
    for name in wanted:
        np_fn, eager_fn = make_case(name)
        res = bench(np_fn, eager_fn, args.repeats, args.min_time)
        target = TARGETS[name]
        res["target"] = target
        res["meets_target"] = None if target is None else res["ratio"] <= target
        if res["meets_target"] is False:
            missed.append(name)
        results[name] = res
        tgt = "-" if target is None else f"<={target:g}x"
        flag = "" if res["meets_target"] is not False else "  MISSED"
        print(f"{name:<10} {res['numpy_ns']:>14.0f} {res['eager_ns']:>14.0f} {res['ratio']:>7.2f}x {tgt:>8}{flag}")

    if args.json:
        payload = {
            "benchmark": "eager_overhead",
            "python": platform.python_version(),
            "numpy": np.__version__,
            "machine": platform.machine(),
            "cpu_count": os.cpu_count(),
            "min_time": args.min_time,
            "matmul_api": MATMUL_API,
            "results": results,
        }
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(payload, f, indent=2)
        os.replace(tmp, args.json)
        print(f"results written to {args.json}")
    if args.check and missed:
        print(f"targets missed: {', '.join(missed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
