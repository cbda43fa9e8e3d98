"""Static-graph executor overhead: the compiled executor against the interpreter, eager and numpy.

    python benchmarks/static_overhead.py [--repeats 15] [--min-time 0.02] [--cases call] [--clock cpu]
                                         [--json results.json]

Cases (float32):
  ops10   a 10-op program on 1-element tensors (feed x, 10 elementwise ops, fetch the result):
          nearly all of a run is executor overhead. Reported per run, with numpy doing the
          same 10 operations as the reference.
  mlp     784-256-10 MLP forward at batch 1 (matmul, add, relu, matmul, add) as a Program
          run by Executor.run, against the same forward in eager mode and in numpy.
  loop    a while_loop of 3 iterations on a [4] tensor whose body holds a cond (both branches
          taken over the run): control flow compiled inline ("compiled") against the same
          compiled code running the control-flow ops through their interpret fallback
          ("compiled_interp"), the interpreter and numpy.
  call    the to_static call path (issue 17): ``x + 1`` on a [1] tensor converted as a function and as
          a Layer (eval mode: nothing needs gradients), against the compiled function called directly
          and numpy's ``a + 1``: ``function - compiled_fn`` is what StaticFunction and PartialProgram
          add per call, ``layer - function`` what Layer.__call__ adds.

Each repeat times every side back to back over the same number of calls (interleaved, the
order rotated each repeat); the report is the median ns per call of each side and the
median of the per-repeat ratios.
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

import runtime as paddle  # noqa: E402
import runtime.nn.functional as F  # noqa: E402
from runtime import static  # noqa: E402
from runtime.static.codegen import compile_program  # noqa: E402
from runtime.static.executor import Executor  # noqa: E402


def _ops10():
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal([1]).astype(np.float32)
    c_np = rng.standard_normal([1]).astype(np.float32)
    c = paddle.to_tensor(c_np)
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [1], "float32")
            h = x
            for i in range(10):
                h = h + c if i % 2 == 0 else h * c
        main.verify()
    finally:
        paddle.disable_static()
    assert len(main.global_block().ops) == 10

    def numpy_side():
        h = x_np
        for i in range(10):
            h = h + c_np if i % 2 == 0 else h * c_np
        return h

    sides = {"numpy": numpy_side}
    for backend in ("compiled", "interpreter"):
        exe = static.Executor(backend=backend)
        sides[backend] = (lambda exe=exe: exe.run(main, feed={"x": x_np}, fetch_list=[h])[0])
    return sides


def _mlp():
    rng = np.random.default_rng(1)
    x_np = rng.standard_normal([1, 784]).astype(np.float32)
    w1_np = (rng.standard_normal([784, 256]) * 0.05).astype(np.float32)
    b1_np = (rng.standard_normal([256]) * 0.05).astype(np.float32)
    w2_np = (rng.standard_normal([256, 10]) * 0.05).astype(np.float32)
    b2_np = (rng.standard_normal([10]) * 0.05).astype(np.float32)
    x = paddle.to_tensor(x_np)
    w1, b1, w2, b2 = (paddle.to_tensor(v) for v in (w1_np, b1_np, w2_np, b2_np))

    def forward(inp):
        h = F.relu(paddle.add(paddle.matmul(inp, w1), b1))
        return paddle.add(paddle.matmul(h, w2), b2)

    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            out = forward(static.data("x", [1, 784], "float32"))
        main.verify()
    finally:
        paddle.disable_static()

    def numpy_side():
        return np.maximum(x_np @ w1_np + b1_np, 0) @ w2_np + b2_np

    sides = {"numpy": numpy_side, "eager": lambda: forward(x).numpy()}
    for backend in ("compiled", "interpreter"):
        exe = static.Executor(backend=backend)
        sides[backend] = (lambda exe=exe: exe.run(main, feed={"x": x_np}, fetch_list=[out])[0])
    return sides


class _InterpretControlFlow(Executor):
    """The compiled back end with control-flow ops left to their interpret (the old slow path)."""

    def _compiled(self, program, feed_names, fetch_names):
        key = (program.id, program.version, feed_names, fetch_names)
        c = self._cache.get(key)
        if c is None:
            c = self._cache[key] = compile_program(program, feed_names, fetch_names, inline_control_flow=False)
        return c


def _loop():
    rng = np.random.default_rng(2)
    x_np = rng.standard_normal([4]).astype(np.float32)
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [4], "float32")

            def body(i, y):
                y = static.nn.cond(paddle.sum(y) > 0, lambda: y * 0.5 - 1.0, lambda: y + 2.0)
                return [i + 1, y]
            _, out = static.nn.while_loop(lambda i, y: i < 3, body, [paddle.zeros([1], "int64"), x])
        main.verify()
    finally:
        paddle.disable_static()

    def numpy_side():
        y = x_np
        for _ in range(3):
            y = y * np.float32(0.5) - np.float32(1.0) if y.sum() > 0 else y + np.float32(2.0)
        return y

    sides = {"numpy": numpy_side}
    for name, exe in (("compiled", static.Executor(backend="compiled")), ("compiled_interp", _InterpretControlFlow()),
                      ("interpreter", static.Executor(backend="interpreter"))):
        sides[name] = (lambda exe=exe: exe.run(main, feed={"x": x_np}, fetch_list=[out])[0])
    return sides


def _add_one(x):
    return x + 1.0


def _call():
    """The to_static call path: a converted one-op function and a converted one-op Layer, against the
    compiled function called directly and numpy. Both in eval mode (gradients on, nothing needs them:
    the inference path, as under no_grad, without the context manager's own cost)."""
    import dy2st
    from runtime.static.scope import _global_scope

    class AddOne(dy2st.nn.Layer):
        def forward(self, x):
            return x + 1.0

    x_np = np.ones([1], np.float32)
    x = paddle.to_tensor(x_np)
    fn = dy2st.jit.to_static(_add_one, full_graph=True)
    fn.eval()
    layer = dy2st.jit.to_static(AddOne(), full_graph=True)
    layer.eval()
    fn(x)
    layer(x)
    pp = fn._cache._last.runner
    feed, scope, bindings, compiled = {pp._feed_names[0]: x_np}, _global_scope[0].vars, pp._bindings, pp._fn
    one = np.float32(1.0)
    return {"numpy": lambda: x_np + one, "compiled_fn": lambda: compiled(feed, scope, bindings)[0],
            "function": lambda: fn(x), "layer": lambda: layer(x)}


CASES = {"ops10": _ops10, "mlp": _mlp, "loop": _loop, "call": _call}
RATIOS = {"ops10": [("compiled", "numpy"), ("interpreter", "numpy"), ("interpreter", "compiled")],
          "mlp": [("compiled", "eager"), ("interpreter", "eager"), ("interpreter", "compiled"),
                  ("compiled", "numpy")],
          "loop": [("compiled", "numpy"), ("compiled_interp", "compiled"), ("interpreter", "compiled"),
                   ("interpreter", "compiled_interp")],
          "call": [("function", "numpy"), ("layer", "numpy"), ("function", "compiled_fn"), ("layer", "function")]}


_clock = time.perf_counter      # --clock cpu: this thread's CPU time (other processes' load moves it less)


def _time(fn, n):
    t0 = _clock()
    for _ in range(n):
        fn()
    return (_clock() - t0) / n * 1e9


def bench(name, repeats, min_time):
    sides = CASES[name]()
    ref = sides["numpy"]()
    for s, fn in sides.items():
        np.testing.assert_allclose(np.asarray(fn()), ref, rtol=1e-4, atol=1e-5, err_msg=f"{name}/{s}")
    slow = max(sides, key=lambda s: _time(sides[s], 20))
    n = 1
    while _time(sides[slow], n) * n / 1e9 < min_time:
        n *= 2
    names = list(sides)
    per = {s: [] for s in names}
    for r in range(repeats):
        order = names[r % len(names):] + names[:r % len(names)]
        for s in order:
            per[s].append(_time(sides[s], n))
    res = {"calls_per_timing": n, "repeats": repeats,
           "ns": {s: statistics.median(v) for s, v in per.items()}, "ratios": {}}
    for a, b in RATIOS[name]:
        res["ratios"][f"{a}/{b}"] = statistics.median(x / y for x, y in zip(per[a], per[b]))
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--min-time", type=float, default=0.02)
    ap.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall: perf_counter (default); cpu: thread CPU time, steadier on a busy machine")
    args = ap.parse_args(argv)
    global _clock
    _clock = time.thread_time if args.clock == "cpu" else time.perf_counter
    results = {}
    for name in args.cases:
        results[name] = r = bench(name, args.repeats, args.min_time)
        print(f"\n{name}  ({r['calls_per_timing']} calls x {r['repeats']} repeats)")
        print(f"  {'side':<16}{'ns/call':>12}")
        for s, v in r["ns"].items():
            print(f"  {s:<16}{v:>12.0f}")
        print(f"  {'ratio':<32}{'median':>8}")
        for k, v in r["ratios"].items():
            print(f"  {k:<32}{v:>8.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cases": results, "python": platform.python_version(), "numpy": np.__version__,
                       "cpus": os.cpu_count()}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
