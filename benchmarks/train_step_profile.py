"""Per-phase profile of a converted training step (issue 17): where the time of
``loss = net(x, label); loss.backward(); opt.step(); opt.clear_grad()`` goes.

    python benchmarks/train_step_profile.py                      # train_mlp and train_lenet, SGD
    python benchmarks/train_step_profile.py --workloads train_mlp --opt adam --cprofile

Phases (median µs per step over ``--steps`` steps): ``forward`` (the converted call, of which
``fwd_fn`` is the compiled forward function), ``backward`` (``loss.backward()``, of which ``bwd_fn`` is
the compiled backward function; the rest is tape/engine and gradient accumulation), ``step``
(``opt.step()``) and ``clear`` (``opt.clear_grad()``), beside the numpy floor of the suite measured in
the same process. ``--cprofile`` prints the top functions of a cProfile run of the same loop.

Findings (issue 17; 2-core EPYC shared with other jobs, load 2-5, medians of 400 steps, µs):

    train_mlp, SGD            before (000d0e2)           after
    ratio to the floor        1.80-1.86x                 1.22-1.23x
    forward (compiled fn)     286 (267) + 19 call        282 (264) + 18 call
    backward (compiled fn)    560 (500) + 60 engine      299 (275) + 24 engine
    step / clear_grad         69 / 18                    45 / 2
    train_lenet ratio         0.86-0.87x                 0.78-0.79x

- The compiled backward computed the gradient of the data batch (the first matmul's / convolution's
  X@GRAD, pruned by the static backward but still computed by the grad kernel): a third of the MLP's
  backward. runtime/static/partial_grads.py gives codegen kernels that skip pruned outputs.
- Engine work: one tape node, but the generic engine walk, a ones tensor, a zeros_like per parameter
  in clear_grad() and an ``old + g`` per parameter; now a direct call (dy2st/partial_program.py
  ``_fast_backward``), read-only shared zero views from clear_grad() and fresh gradients stored as
  they are.
- step(): run_op per parameter; now direct kernel calls (SGD/Momentum) and one flat update per
  bucket of parameters (Adam/AdamW, runtime/optimizer/multi_tensor.py), same bits.
- Left (train_mlp, after): the compiled functions are ~55 µs above the floor's forward + backward,
  ~25 of them in the cross-entropy kernels (softmax_with_cross_entropy + its grad + reduce_mean +
  its grad ~39 µs against the floor's 14: take/put_along_axis, label validation run twice, a
  zeros_like that is thrown away, runtime/ops/loss.py); Python around the call ~12, backward ~14,
  step ~14 (4 parameters).
- Round three (issue 17): the cross-entropy + mean pair and its grads run as one fused op each
  (dy2st/training_fusion.py, on the compiled clone; 27 -> 15 µs, the floor's 14), the bias-add grads
  read the output gradient's shape so the forward fuses matmul + bias + relu, gradients unshared by
  reference count are stored without a copy; Python around the call 11 -> 8 µs, backward 19 -> 10,
  step 7 -> 4. At load 0.7: train_mlp 1.16x the floor (forward fn 149 + call 13, backward fn 145 +
  engine 15, step 42 = the floor's SGD). Left: the call and engine's ~28 µs of Python, relu_grad and
  the bias grads as new arrays where the floor works in place.

Why this profile said 0.78x for train_lenet while the suite said 1.46x (issue 17, round two): the
floor, not our step, moved. The hand-written floor allocates and frees multi-MiB arrays every step
(im2col patches, ``np.pad``, ``zeros_like``); with glibc's adaptive malloc thresholds that memory
goes back to the OS and is faulted in again: 1,180-1,760 minor page faults and 2.4-3.3 ms of system
time per step (of 6-7.5 ms) measured here at load 5, while our step (scratch buffers) takes 0-11
faults. How many faults depends on the process's allocation history (what ran before, how the
steps interleave) and a fault's cost on the machine's load: this profile ran at load 2-5, the suite
at 0.9. With the thresholds fixed (``mallopt``; run_suite.py's ``steady_malloc``, now the default of
both scripts, ``--malloc-default`` restores glibc's) the floor takes 0 faults and the two methods
agree: at load 5-7, one BLAS thread, train_lenet CPU per step floor 3.27-3.48 ms, ours 3.72-3.76 ms
(1.08-1.14x), wall ratio 1.17 in blocks of 5 steps and 1.35 alternating step by step. The
``faults`` line below prints both sides' page faults and system time per step.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dy2st as paddle  # noqa: E402
from run_suite import steady_malloc  # noqa: E402
from suite import load_workloads, numpy_floor, spec  # noqa: E402


class _Timed:
    """Wraps a compiled program's ``fn`` to add its wall time to ``acc[key]``."""

    def __init__(self, fn, acc, key):
        self.fn, self.acc, self.key = fn, acc, key

    def __call__(self, *a):
        t = time.perf_counter()
        try:
            return self.fn(*a)
        finally:
            self.acc[self.key] += time.perf_counter() - t


def _instrument(net, acc):
    """Wrap the compiled forward/backward functions of every gradient plan of the converted forward."""
    from dy2st.partial_program import _LIVE
    for pp in list(_LIVE.values()):
        for plan in pp._plans.values():
            if plan is None:
                continue
            for which, key in ((plan.fwd, "fwd_fn"), (plan.bwd, "bwd_fn")):
                if not isinstance(which.fn, _Timed):
                    which.fn = _Timed(which.fn, acc, key)


def _optimizer(name, params):
    opt = paddle.optimizer
    if name == "sgd":
        return opt.SGD(learning_rate=spec.LR, parameters=params)
    if name == "momentum":
        return opt.Momentum(learning_rate=spec.LR, parameters=params)
    if name == "adam":
        return opt.Adam(learning_rate=1e-3, parameters=params)
    if name == "adamw":
        return opt.AdamW(learning_rate=1e-3, parameters=params)
    raise SystemExit(f"unknown optimizer {name!r}")


def _faults(fn, n):
    """(minor page faults, µs of system CPU) per call of ``fn`` over ``n`` calls."""
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(n):
        fn()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    return (r1.ru_minflt - r0.ru_minflt) / n, (r1.ru_stime - r0.ru_stime) / n * 1e6


def profile(name, steps, opt_name, use_cprofile):
    model, kind, cfg, shapes = spec.resolve(name)
    weights = spec.make_weights(model, cfg)
    inputs = spec.make_inputs(shapes, spec.n_classes(model, cfg))
    wl = load_workloads(paddle, "dy2st")
    net = wl.build(model, cfg)
    net.set_state_dict({k: paddle.to_tensor(v) for k, v in weights.items()})
    net.train()
    net = paddle.jit.to_static(net, full_graph=True)
    x, label = paddle.to_tensor(inputs["x"]), paddle.to_tensor(inputs["label"])
    opt = _optimizer(opt_name, net.parameters())
    for _ in range(3):
        loss = net(x, label)
        loss.backward()
        opt.step()
        opt.clear_grad()
    acc = {"fwd_fn": 0.0, "bwd_fn": 0.0}
    _instrument(net, acc)
    rows = {k: [] for k in ("total", "forward", "fwd_fn", "backward", "bwd_fn", "step", "clear")}
    pc = time.perf_counter
    fl = numpy_floor.make(model, cfg, weights, inputs, spec.LR)
    ft, fg = [], []
    for _ in range(steps):
        # the floor's step and ours alternate, so a busy machine slows both alike
        t0 = pc()
        fl.run()
        t1 = pc()
        fl.grads()          # the floor's forward + backward alone (its weights are not updated)
        fg.append(pc() - t1)
        ft.append(t1 - t0)
        acc["fwd_fn"] = acc["bwd_fn"] = 0.0
        t0 = pc()
        loss = net(x, label)
        t1 = pc()
        loss.backward()
        t2 = pc()
        opt.step()
        t3 = pc()
        opt.clear_grad()
        t4 = pc()
        for k, v in (("total", t4 - t0), ("forward", t1 - t0), ("backward", t2 - t1), ("step", t3 - t2),
                     ("clear", t4 - t3), ("fwd_fn", acc["fwd_fn"]), ("bwd_fn", acc["bwd_fn"])):
            rows[k].append(v)
    med = {k: float(np.median(v)) * 1e6 for k, v in rows.items()}
    floor = float(np.median(ft)) * 1e6
    ratio = float(np.median(np.array(rows["total"]) / np.array(ft)))
    print(f"{name} ({opt_name}, {steps} steps): floor {floor:.1f} µs; converted step {med['total']:.1f} µs "
          f"(median of per-step ratios {ratio:.2f}x floor)")
    fgm = float(np.median(fg)) * 1e6
    print(f"  floor: forward + backward {fgm:8.1f}, SGD update {floor - fgm:7.1f}; ours: compiled forward + "
          f"backward {med['fwd_fn'] + med['bwd_fn']:8.1f}")
    print(f"  forward  {med['forward']:8.1f}   of which compiled fn {med['fwd_fn']:8.1f}   "
          f"call overhead {med['forward'] - med['fwd_fn']:7.1f}")
    print(f"  backward {med['backward']:8.1f}   of which compiled fn {med['bwd_fn']:8.1f}   "
          f"engine + accumulation {med['backward'] - med['bwd_fn']:7.1f}")
    print(f"  step     {med['step']:8.1f}")
    print(f"  clear    {med['clear']:8.1f}")
    fl_faults = _faults(fl.run, 30)

    def ours_step():
        net(x, label).backward()
        opt.step()
        opt.clear_grad()
    our_faults = _faults(ours_step, 30)
    print(f"  faults   floor {fl_faults[0]:.0f} page faults + {fl_faults[1]:.0f} µs system time per step; "
          f"ours {our_faults[0]:.0f} + {our_faults[1]:.0f} µs")
    if use_cprofile:
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(steps):
            loss = net(x, label)
            loss.backward()
            opt.step()
            opt.clear_grad()
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(25)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", default="train_mlp,train_lenet")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--opt", default="sgd", help="sgd, momentum, adam or adamw")
    ap.add_argument("--cprofile", action="store_true")
    ap.add_argument("--malloc-default", action="store_true", help="keep glibc's adaptive malloc thresholds")
    args = ap.parse_args(argv)
    note = None if args.malloc_default else steady_malloc()
    print(f"load {os.getloadavg()[0]:.2f}; {note or 'glibc malloc defaults'}")
    for name in args.workloads.split(","):
        profile(name, args.steps, args.opt, args.cprofile)


if __name__ == "__main__":
    main()
