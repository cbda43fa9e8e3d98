"""Real vision models, converted, against real Paddle's to_static (and torchvision when importable).

Each model of ``paddle.vision.models`` is built in dy2st and in real Paddle 3.3.1 (both import in one
process: dy2st never registers itself as ``paddle``), given the SAME weights (dy2st's state_dict copied
into Paddle's), put in eval mode and converted with ``to_static``. Rounds interleave the frameworks
(dy2st, Paddle, [torch], dy2st, Paddle, ...) so a busy machine slows every column alike; the report
gives the median seconds per call and the ratio dy2st / Paddle (target <= 1.0), plus the largest
relative difference of the outputs (the same weights must give the same numbers).

    python benchmarks/vision_models.py                          # every model, batch 2 and 16
    python benchmarks/vision_models.py --models resnet18,alexnet --batches 2 --rounds 5
    python benchmarks/vision_models.py --json out.json
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

MODELS = {            # name: (constructor in paddle.vision.models, input side)
    "resnet18": ("resnet18", 224), "resnet50": ("resnet50", 224), "mobilenet_v1": ("mobilenet_v1", 224),
    "mobilenet_v2": ("mobilenet_v2", 224), "densenet121": ("densenet121", 224), "alexnet": ("alexnet", 224),
    "googlenet": ("googlenet", 224), "inception_v3": ("inception_v3", 299), "vgg11": ("vgg11", 224),
}


def _first(out):
    while isinstance(out, (list, tuple)):
        out = out[0]
    return out


def build_dy2st(name):
    import dy2st
    dy2st.seed(0)
    net = getattr(dy2st.vision.models, MODELS[name][0])()
    net.eval()
    state = {k: v.numpy() for k, v in net.state_dict().items()}
    return dy2st.jit.to_static(net), state


def build_paddle(name, state):
    import paddle
    net = getattr(paddle.vision.models, MODELS[name][0])()
    net.set_state_dict({k: paddle.to_tensor(v) for k, v in state.items()})
    net.eval()
    return paddle.jit.to_static(net, full_graph=True)


def run_dy2st(net, x):
    import dy2st
    with dy2st.no_grad():
        return _first(net(dy2st.to_tensor(x))).numpy()


def run_paddle(net, x):
    import paddle
    with paddle.no_grad():
        return _first(net(paddle.to_tensor(x))).numpy()


def measure(name, batch, rounds):
    rng = np.random.default_rng(0)
    side = MODELS[name][1]
    x = rng.standard_normal((batch, 3, side, side)).astype("float32")
    ours, state = build_dy2st(name)
    theirs = build_paddle(name, state)
    columns = {"dy2st": (ours, run_dy2st), "paddle": (theirs, run_paddle)}
    outs, first = {}, {}
    for col, (net, run) in columns.items():      # first call: conversion + first run
        t = time.perf_counter()
        outs[col] = run(net, x)
        first[col] = time.perf_counter() - t
        run(net, x)                              # warm
    times = {col: [] for col in columns}
    for _ in range(rounds):
        for col, (net, run) in columns.items():
            t = time.perf_counter()
            run(net, x)
            times[col].append(time.perf_counter() - t)
    ref = outs["paddle"]
    err = float(np.abs(outs["dy2st"] - ref).max() / max(float(np.abs(ref).max()), 1e-30))
    med = {col: statistics.median(v) for col, v in times.items()}
    return {"model": name, "batch": batch, "median_s": med, "first_call_s": first,
            "ratio_vs_paddle": med["dy2st"] / med["paddle"], "max_rel_diff": err}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--batches", default="2,16")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    rows = []
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {platform.machine()} {os.cpu_count()} CPUs, load {load:.2f}, python {platform.python_version()}, "
          f"numpy {np.__version__}, DY2ST_BLAS_THREADS={os.environ.get('DY2ST_BLAS_THREADS', 'auto')}")
    print("| model | batch | dy2st s/call | Paddle s/call | dy2st / Paddle | first call dy2st / Paddle | max rel diff |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in args.models.split(","):
        for batch in (int(b) for b in args.batches.split(",")):
            r = measure(name, batch, args.rounds)
            rows.append(r)
            m, f = r["median_s"], r["first_call_s"]
            print(f"| {name} | {batch} | {m['dy2st']:.4f} | {m['paddle']:.4f} | {r['ratio_vs_paddle']:.2f} | "
                  f"{f['dy2st'] / f['paddle']:.2f} | {r['max_rel_diff']:.1e} |", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"load": load, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
