"""Where converted vision models spend their time: seconds per op type (and inside convolutions).

Every registered kernel is wrapped with a timer BEFORE the model is converted (the generated code
binds the kernels at compile time), so the table covers exactly what a converted eval forward runs.
Convolution types are split by shape class (1x1 / 3x3 / depthwise / grouped / other) and their
helpers (``_pad_zero`` padding copy, ``_cols`` im2col copy, ``_group_matmul`` GEMM, the direct depthwise
forward of runtime/ops/conv_depthwise.py) are timed too.

    python benchmarks/conv_profile.py                              # resnet50, mobilenet_v1, densenet121 @ 16
    python benchmarks/conv_profile.py --models resnet18 --batch 2 --rounds 3
    python benchmarks/conv_profile.py --ab dce,fuse_gemm dce,fuse_gemm,fuse_conv --rounds 9

``--depthwise`` times the direct depthwise kernels (runtime/ops/conv_depthwise.py) against the im2col path
on MobileNet v1/v2 layer shapes (forward, input gradient + filter gradient), best of ``--rounds``.

``--ab-depthwise`` times one converted model with the direct depthwise kernels and with the im2col path
they replaced (``conv_depthwise.is_depthwise`` patched off), beside real Paddle's ``to_static`` of the
same weights, rounds interleaved; prints medians, ratios and the outputs' largest relative difference.

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
    from runtime.ops import conv_depthwise
    conv_depthwise.forward = timed(lambda a, k: "  conv_depthwise.forward (direct)", conv_depthwise.forward)


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


DEPTHWISE_SHAPES = [  # (channels, input side, stride) of MobileNet v1 / v2 3x3 depthwise layers
    (32, 112, 1), (64, 112, 2), (128, 56, 1), (128, 56, 2), (256, 28, 1), (256, 28, 2), (512, 14, 1),
    (1024, 7, 1), (96, 112, 2), (144, 56, 1), (144, 56, 2), (192, 28, 1), (384, 14, 1), (960, 7, 1)]


def depthwise_table(batches, rounds):
    from runtime.ops import conv, conv_depthwise

    def best(fn, *args):
        fn(*args)
        times = []
        for _ in range(rounds):
            t = time.perf_counter()
            fn(*args)
            times.append(time.perf_counter() - t)
        return min(times) * 1e3

    print(f"# load {os.getloadavg()[0]:.2f}; ms, best of {rounds}")
    print("| batch | C | side | stride | fwd im2col | fwd direct | grads im2col | grads direct | chosen fwd |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    rng = np.random.default_rng(0)
    real = conv_depthwise.is_depthwise
    for n in batches:
        for c, side, s in DEPTHWISE_SHAPES:
            x = rng.standard_normal((n, c, side, side)).astype(np.float32)
            w = rng.standard_normal((c, 1, 3, 3)).astype(np.float32)
            args = (x, w, [s, s], [1, 1], "EXPLICIT", [1, 1], c)
            dout = rng.standard_normal(conv._conv2d(*args).shape).astype(np.float32)
            wanted = conv_depthwise.direct_wanted
            try:
                conv_depthwise.direct_wanted = lambda xs, ws, groups, *_: real(xs, ws, groups)
                fwd_d = best(conv._conv2d, *args)
                bwd_d = best(conv._conv2d_grad, x, w, dout, *args[2:])
                conv_depthwise.is_depthwise = conv_depthwise.direct_wanted = lambda *a: False
                fwd_i = best(conv._conv2d, *args)
                bwd_i = best(conv._conv2d_grad, x, w, dout, *args[2:])
            finally:
                conv_depthwise.direct_wanted = wanted
                conv_depthwise.is_depthwise = real
            o = -(-side // s)
            chosen = "direct" if conv_depthwise.direct_wanted(x.shape, w.shape, c, o, o) else "im2col"
            print(f"| {n} | {c} | {side} | {s} | {fwd_i:.2f} | {fwd_d:.2f} | {bwd_i:.2f} | {bwd_d:.2f} | {chosen} |",
                  flush=True)


def ab_depthwise(name, batch, rounds):
    """Converted ``name`` with direct depthwise kernels vs im2col vs Paddle, interleaved; one table row."""
    import dy2st
    from runtime.ops import conv_depthwise
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from vision_models import build_dy2st, build_paddle, run_dy2st, run_paddle
    side = SIDES.get(name, 224)
    x = np.random.default_rng(0).standard_normal((batch, 3, side, side)).astype("float32")
    real = conv_depthwise.is_depthwise
    ours, state = build_dy2st(name)
    theirs = build_paddle(name, state)
    t = time.perf_counter()
    out_new = run_dy2st(ours, x)
    first = {"direct": time.perf_counter() - t}
    t = time.perf_counter()
    out_paddle = run_paddle(theirs, x)
    first["paddle"] = time.perf_counter() - t

    def im2col(net, x):
        conv_depthwise.is_depthwise = lambda *a: False
        try:
            return run_dy2st(net, x)
        finally:
            conv_depthwise.is_depthwise = real
    cols = {"direct": (run_dy2st, ours), "im2col": (im2col, ours), "paddle": (run_paddle, theirs)}
    out_old = im2col(ours, x)
    times = {k: [] for k in cols}
    for r in range(rounds):
        for k in (list(cols) if r % 2 == 0 else list(cols)[::-1]):
            fn, net = cols[k]
            t = time.perf_counter()
            fn(net, x)
            times[k].append(time.perf_counter() - t)
    med = {k: statistics.median(v) for k, v in times.items()}
    scale = max(float(np.abs(out_paddle).max()), 1e-30)
    print(f"| {name} | {batch} | {med['im2col'] * 1e3:.1f} | {med['direct'] * 1e3:.1f} | {med['paddle'] * 1e3:.1f} | "
          f"{med['direct'] / med['im2col']:.2f} | {med['im2col'] / med['paddle']:.2f} | "
          f"{med['direct'] / med['paddle']:.2f} | "
          f"{first['direct'] / first['paddle']:.2f} | {float(np.abs(out_new - out_old).max()) / scale:.1e} | "
          f"{float(np.abs(out_new - out_paddle).max()) / scale:.1e} |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="resnet50,mobilenet_v1,densenet121")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--batches", default="2,16", help="batch sizes of --ab-depthwise")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ab", nargs=2, metavar=("OLD", "NEW"), default=None,
                    help="compare two DY2ST_PASSES sets instead of profiling")
    ap.add_argument("--depthwise", action="store_true",
                    help="time the direct depthwise kernels against im2col on MobileNet layer shapes")
    ap.add_argument("--ab-depthwise", action="store_true",
                    help="time converted models with the direct depthwise kernels vs im2col vs Paddle")
    args = ap.parse_args(argv)
    if args.ab_depthwise:
        print(f"# load {os.getloadavg()[0]:.2f}; ms per forward, median of {args.rounds} interleaved rounds")
        print("| model | batch | im2col ms | direct ms | Paddle ms | direct / im2col | im2col / Paddle | "
              "direct / Paddle | first call direct / Paddle | rel diff direct vs im2col | rel diff vs Paddle |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name in args.models.split(","):
            for b in str(args.batches).split(","):
                ab_depthwise(name, int(b), args.rounds)
        return
    if args.depthwise:
        depthwise_table([args.batch], args.rounds)
        return
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
