"""Where converted vision models spend their time: seconds per op type (and inside convolutions).

Every registered kernel is wrapped with a timer BEFORE the model is converted (the generated code
binds the kernels at compile time), so the table covers exactly what a converted eval forward runs.
Convolution types are split by shape class (1x1 / 3x3 / depthwise / grouped / other) and their
helpers (``_pad_zero`` padding copy, ``_cols`` im2col copy, ``_group_matmul`` GEMM) are timed too.

    python benchmarks/conv_profile.py                              # resnet50, mobilenet_v1, densenet121 @ 16
    python benchmarks/conv_profile.py --models resnet18 --batch 2 --rounds 3
    python benchmarks/conv_profile.py --ab dce,fuse_gemm dce,fuse_gemm,fuse_conv --rounds 9

``--ab OLD NEW`` times instead two converted copies of each model (same weights) compiled with the
``DY2ST_PASSES`` sets OLD and NEW, alternating round by round in this one process, and prints the
medians, minima, their ratios NEW / OLD and the largest relative difference of the outputs.
"""
from __future__ import annotations

import argparse
import collections
import functools
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

SIDES = {"inception_v3": 299}
TOTALS = collections.defaultdict(lambda: [0.0, 0])


def _conv_class(args, kwargs):
    x, w = args[0], args[1]
    M, Cg, kh, kw = w.shape
    groups = kwargs.get("groups", 1)
    if groups > 1:
        return "depthwise" if Cg == 1 else "grouped"
    strides = tuple(kwargs.get("strides", (1, 1)))
    return f"{kh}x{kw}" + ("/s1" if strides == (1, 1) else "/s2+")


def install(totals):
    """Wrap every kernel and the convolution helpers; ``totals[key] = [seconds, calls]``."""
    from runtime.ops import conv
    from runtime.ops.registry import all_ops

    def timed(key_fn, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                slot = totals[key_fn(args, kwargs)]
                slot[0] += time.perf_counter() - t
                slot[1] += 1
        return wrapper

    for name, opdef in all_ops().items():
        if opdef.kernel is None:
            continue
        if name in ("conv2d", "depthwise_conv2d", "fused_conv2d_bn"):
            key = (lambda n: (lambda a, k: f"{n}[{_conv_class(a, k)}]"))(name)
        else:
            key = (lambda n: (lambda a, k: n))(name)
        opdef.kernel = timed(key, opdef.kernel)
    for helper in ("_pad_zero", "_cols", "_group_matmul"):
        if hasattr(conv, helper):
            setattr(conv, helper, timed((lambda h: (lambda a, k: f"  conv.{h}"))(helper), getattr(conv, helper)))


def profile(name, batch, rounds):
    import dy2st
    totals = TOTALS
    totals.clear()
    dy2st.seed(0)
    net = getattr(dy2st.vision.models, name)()
    net.eval()
    net = dy2st.jit.to_static(net)
    side = SIDES.get(name, 224)
    x = dy2st.to_tensor(np.random.default_rng(0).standard_normal((batch, 3, side, side)).astype("float32"))
    with dy2st.no_grad():
        net(x)
        totals.clear()
        t = time.perf_counter()
        for _ in range(rounds):
            net(x)
        wall = (time.perf_counter() - t) / rounds
    print(f"\n## {name} batch {batch}: {wall * 1e3:.1f} ms per forward")
    print("| op | ms/forward | % | calls/forward |")
    print("|---|---:|---:|---:|")
    kernel_total = sum(v[0] for k, v in totals.items() if not k.startswith("  "))
    for k, (sec, calls) in sorted(totals.items(), key=lambda kv: -kv[1][0]):
        print(f"| {k} | {sec / rounds * 1e3:.2f} | {100 * sec / rounds / wall:.1f} | {calls // rounds} |")
    print(f"| (outside kernels) | {(wall - kernel_total / rounds) * 1e3:.2f} | "
          f"{100 * (1 - kernel_total / rounds / wall):.1f} | |")


def _first(out):
    while isinstance(out, (list, tuple)):
        out = out[0]
    return out


def ab(name, batch, rounds, old, new):
    """Median / min seconds of two converted copies compiled with pass sets ``old`` and ``new``."""
    import dy2st
    side = SIDES.get(name, 224)
    x = dy2st.to_tensor(np.random.default_rng(0).standard_normal((batch, 3, side, side)).astype("float32"))
    nets, outs, state = {}, {}, None
    saved = os.environ.get("DY2ST_PASSES")
    try:
        for key, spec in (("old", old), ("new", new)):
            dy2st.seed(0)
            net = getattr(dy2st.vision.models, name)()
            net.eval()
            if state is None:
                state = net.state_dict()
            else:
                net.set_state_dict(state)
            os.environ["DY2ST_PASSES"] = spec          # read when the first call compiles
            nets[key] = dy2st.jit.to_static(net)
            with dy2st.no_grad():
                outs[key] = _first(nets[key](x)).numpy()
    finally:
        if saved is None:
            os.environ.pop("DY2ST_PASSES", None)
        else:
            os.environ["DY2ST_PASSES"] = saved
    times = {"old": [], "new": []}
    with dy2st.no_grad():
        for _ in range(rounds):
            for key in times:
                t = time.perf_counter()
                nets[key](x)
                times[key].append(time.perf_counter() - t)
    diff = float(np.abs(outs["old"] - outs["new"]).max() / max(float(np.abs(outs["old"]).max()), 1e-30))
    med = {k: statistics.median(v) for k, v in times.items()}
    low = {k: min(v) for k, v in times.items()}
    print(f"| {name} | {batch} | {med['old'] * 1e3:.1f} | {med['new'] * 1e3:.1f} | {med['new'] / med['old']:.3f} | "
          f"{low['new'] / low['old']:.3f} | {diff:.1e} |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="resnet50,mobilenet_v1,densenet121")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ab", nargs=2, metavar=("OLD", "NEW"), default=None,
                    help="compare two DY2ST_PASSES sets instead of profiling")
    args = ap.parse_args(argv)
    if args.ab:
        print(f"# passes OLD={args.ab[0]} NEW={args.ab[1]}; load {os.getloadavg()[0]:.2f}")
        print("| model | batch | OLD ms (median) | NEW ms (median) | NEW / OLD median | NEW / OLD min | max rel diff |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name in args.models.split(","):
            ab(name, args.batch, args.rounds, *args.ab)
        return
    install(TOTALS)
    for name in args.models.split(","):
        profile(name, args.batch, args.rounds)


if __name__ == "__main__":
    main()
