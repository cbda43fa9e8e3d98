"""Tracing cost against program length: trace + first call of a to_static function whose Python
``for`` loop unrolls into N steps, at several N, and how the time grows with N.

    python3 benchmarks/tracing.py                                  # default sizes and cases
    python3 benchmarks/tracing.py --sizes 1000,10000 --cases fn-train
    python3 benchmarks/tracing.py --cases all --json out.json
    python3 benchmarks/tracing.py --profile /tmp/prof              # also a cProfile dump per run

Cases (``<model>-<mode>``):
  fn        ``for _ in range(N): x = x * 1.0001 + 0.5`` in a to_static function (2 ops a step:
            two ``scale``)
  linear    a Layer whose forward applies ONE Linear(8, 8) and tanh N times (3 ops a step; one
            weight, N uses: its gradient sums N contributions)
  layers    a LayerList of N different Linear(8, 8) layers and tanh, each applied once (3 ops a
            step, 2N parameters)
  cond      ``if x.mean() > 0: x = x * 0.5 else: x = x + 1.0`` N times (8 ops a step in the
            global block, two sub-blocks; grad sub-blocks in training)
  mode ``eval``: first call under paddle.no_grad() (Layer in eval mode): trace, passes, codegen,
  Python's compile() of the generated function, one run. ``train``: first call with an input
  needing gradients (Layer in train mode) and ``.backward()`` of the output's sum: the above plus
  the backward Program (clone, append backward, verify, two compilations: forward with the saved
  values, backward) and one run of each.

``--no-gc`` pauses Python's cyclic garbage collector during the measured call (what pausing
it around tracing and compilation would give). Each (case, N) runs in a fresh Python process, so
no run pays for the memory or the caches of another. The report gives wall and CPU seconds (CPU
time is steadier on a shared machine), the time spent in the garbage collector, and against the
smallest N of the case: the size ratio, the CPU-time ratio, and their quotient (the cost per step
relative to the smallest size: ~1.0 is linear; quadratic tracing shows as a quotient growing
with N).

Findings (issue 12; 2 shared cores, Python 3.11, CPU seconds, N 1,000 -> 16,000). Before: 8x the
steps cost 44x (fn-eval), 52x (fn-train), 67x (linear-eval), 33x (linear-train); 4x the layers
of ``layers-train`` cost 16x. After the issue-12 fixes (backward, verify, passes, codegen's
name and feed bookkeeping, the saved-value list of partial_program): with the collector paused every case is linear (quotients
0.9-1.15 up to 16x); with it running, 16x the steps cost 20-25x (quotients 1.3-1.55), the excess
being the collector's full collections over a larger heap, which take 30-50 % of the time at
16,000 steps.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = ("fn-eval", "fn-train", "linear-eval", "linear-train")
EXTRA = ("layers-eval", "layers-train", "cond-eval", "cond-train")
DEFAULT_SIZES = (1000, 2000, 4000, 8000)


def _build(paddle, model, n):
    """The to_static callable for ``model`` unrolled ``n`` times (defined here: to_static reads source)."""
    if model == "fn":
        def fn(x):
            for _ in range(n):
                x = x * 1.0001 + 0.5
            return x
        return paddle.jit.to_static(fn)

    if model == "linear":
        class Repeat(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.fc = paddle.nn.Linear(8, 8)

            def forward(self, x):
                for _ in range(n):
                    x = paddle.tanh(self.fc(x))
                return x
        return paddle.jit.to_static(Repeat())

    if model == "layers":
        class Stack(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.fcs = paddle.nn.LayerList([paddle.nn.Linear(8, 8) for _ in range(n)])

            def forward(self, x):
                for fc in self.fcs:
                    x = paddle.tanh(fc(x))
                return x
        return paddle.jit.to_static(Stack())

    if model == "cond":
        def branchy(x):
            for _ in range(n):
                if x.mean() > 0:
                    x = x * 0.5
                else:
                    x = x + 1.0
            return x
        return paddle.jit.to_static(branchy)

    raise ValueError(f"unknown model '{model}'")


def run_one(case, n, profile_dir=None, no_gc=False):
    """Trace + first call of ``case`` at size ``n`` in this process; returns the measurements."""
    sys.path.insert(0, ROOT)
    import numpy as np

    import dy2st as paddle

    model, mode = case.split("-")
    f = _build(paddle, model, n)
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal([4, 8]).astype("float32"))
    train = mode == "train"
    if hasattr(f, "train"):
        f.train() if train else f.eval()
    x.stop_gradient = not train

    gc_time = [0.0, 0.0]

    def on_gc(phase, info):
        if phase == "start":
            gc_time[1] = time.perf_counter()
        else:
            gc_time[0] += time.perf_counter() - gc_time[1]

    prof = None
    if profile_dir:
        import cProfile
        prof = cProfile.Profile()
    gc.collect()
    gc.callbacks.append(on_gc)
    if no_gc:
        gc.disable()
    t0, c0 = time.perf_counter(), time.process_time()
    if prof:
        prof.enable()
    if train:
        y = f(x)
        y.sum().backward()
    else:
        with paddle.no_grad():
            y = f(x)
    if prof:
        prof.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    gc.enable()
    gc.callbacks.remove(on_gc)
    if prof:
        os.makedirs(profile_dir, exist_ok=True)
        prof.dump_stats(os.path.join(profile_dir, f"{case}_{n}.prof"))
    static_fn = f.forward if hasattr(f, "forward") and hasattr(f.forward, "main_program") else f
    ops = len(static_fn.main_program.global_block().ops)
    assert np.isfinite(y.numpy()).all() or model == "fn", "the traced program computed non-finite values"
    return {"case": case, "n": n, "ops": ops, "wall": wall, "cpu": cpu, "gc": gc_time[0]}


def _spawn(case, n, profile_dir, no_gc):
    cmd = [sys.executable, os.path.abspath(__file__), "--one", case, str(n)]
    if profile_dir:
        cmd += ["--profile", profile_dir]
    if no_gc:
        cmd.append("--no-gc")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONHASHSEED="0")).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                    help="comma-separated loop lengths (default %(default)s)")
    ap.add_argument("--cases", default=",".join(CASES),
                    help=f"comma-separated cases, or 'all' (default %(default)s; more: {','.join(EXTRA)})")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--profile", help="write a cProfile dump per run into this directory")
    ap.add_argument("--no-gc", action="store_true", help="pause the garbage collector during the measured call")
    ap.add_argument("--one", nargs=2, metavar=("CASE", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one[0], int(args.one[1]), args.profile, args.no_gc)))
        return 0
    sizes = sorted(int(s) for s in args.sizes.split(","))
    cases = CASES + EXTRA if args.cases == "all" else tuple(c.strip() for c in args.cases.split(","))
    for c in cases:
        if c not in CASES + EXTRA:
            ap.error(f"unknown case '{c}'; the cases are {', '.join(CASES + EXTRA)}")
    results = []
    print(f"{'case':<14}{'N':>7}{'ops':>8}{'wall s':>9}{'cpu s':>9}{'gc s':>8}"
          f"{'N ratio':>9}{'cpu ratio':>11}{'per step':>10}")
    for case in cases:
        base = None
        for n in sizes:
            r = _spawn(case, n, args.profile, args.no_gc)
            if base is None:
                base = r
            size_ratio = r["n"] / base["n"]
            cpu_ratio = r["cpu"] / base["cpu"]
            r["size_ratio"], r["cpu_ratio"], r["per_step"] = size_ratio, cpu_ratio, cpu_ratio / size_ratio
            results.append(r)
            print(f"{case:<14}{n:>7}{r['ops']:>8}{r['wall']:>9.3f}{r['cpu']:>9.3f}{r['gc']:>8.3f}"
                  f"{size_ratio:>9.1f}{cpu_ratio:>11.2f}{r['per_step']:>10.2f}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"python": sys.version.split()[0], "cpu_count": os.cpu_count(), "no_gc": args.no_gc,
                       "results": results}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
