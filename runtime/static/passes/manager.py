"""The pass manager: ``optimize(program, feed_names, fetch_names)`` returns an optimized CLONE.

The user's Program (what jit.save writes, what concrete_program shows) is never changed.
Passes run in the fixed order of ``PASSES``; which ones run is ``DEFAULT`` unless the
environment variable ``DY2ST_PASSES`` says otherwise: ``0`` / ``none`` (no pass: the Program is
compiled as built), ``all`` (every pass), or a comma-separated list of names (``dce,cse``).
With ``DY2ST_VERIFY_PASSES=1`` (on in the test suite) the verifier runs after every pass and
names the pass that broke the Program.
"""
from __future__ import annotations

import os

from ..verify import ProgramVerifyError, verify_program
from . import constant_fold, cse, dce, fuse_conv, fuse_elementwise, fuse_gemm, inplace, noop
from . import fuse_split_unary

# name -> run(program, feed_names, fetch_names) -> number of changes; in the order they run
PASSES = {
    "dce": dce.run,
    "constant_fold": constant_fold.run,
    "cse": cse.run,
    "noop": noop.run,
    "fuse_gemm": fuse_gemm.run,
    "fuse_conv": fuse_conv.run,
    "fuse_split_unary": fuse_split_unary.run,   # before fuse_elementwise: it chains the unary ops away
    "fuse_elementwise": fuse_elementwise.run,
    "inplace": inplace.run,
}
ALL = tuple(PASSES)
# On by default: what benchmarks/passes.py measured to pay (see its docstring). fuse_gemm was the
# only pass faster on (nearly) every workload, by 0.3-1.3 %, for +0.05-0.5 ms of compile time
# (plus the clone: ~2.5 ms for the 170-op LSTM). constant_fold, cse and noop find (almost) nothing
# in the traced models and fuse_elementwise / inplace gave no gain above the +-1 % noise, each
# costing compile time: they stay off by default (DY2ST_PASSES=all turns every pass on).
# fuse_conv (conv + eval batch_norm [+ residual] [+ relu/relu6], conv + bias [+ relu], batch_norm + relu):
# 0.88-0.97x the time without it on ResNet-18/50, MobileNet v1/v2, DenseNet-121, Inception v3 at batch 2 and
# 0.89-0.93x on ResNet-50 / MobileNet v1/v2 at batch 16 (benchmarks/conv_profile.py --ab, one process);
# VGG / AlexNet even within the noise. Compile time: +5-15 ms on ResNet-50.
# fuse_split_unary (one sigmoid on the gates instead of three on split views): 0.91-0.92x on the unrolled
# LSTM (benchmarks/passes.py and interleaved A/B; 32 steps), 0.94x on the same LSTM as a while loop (time
# dimension unknown), no change elsewhere (a scan for split ops); compile time +2.6 ms on the LSTM.
DEFAULT = ("dce", "fuse_gemm", "fuse_conv", "fuse_split_unary")


def enabled_passes(passes=None):
    """The pass names to run: ``passes`` if given, else from ``DY2ST_PASSES``, else DEFAULT."""
    if passes is None:
        spec = os.environ.get("DY2ST_PASSES")
        if spec is None:
            return DEFAULT
        spec = spec.strip().lower()
        if spec in ("0", "none", "off", "false", ""):
            return ()
        if spec in ("all", "1", "on", "true"):
            return ALL
        passes = [p.strip() for p in spec.split(",") if p.strip()]
    unknown = [p for p in passes if p not in PASSES]
    if unknown:
        raise ValueError(f"DY2ST_PASSES: unknown pass(es) {unknown}; the passes are {list(PASSES)}")
    return tuple(p for p in PASSES if p in passes)


def _verify_on():
    return os.environ.get("DY2ST_VERIFY_PASSES", "") not in ("", "0")


def _reads_defined(program, feed_names):
    """Every kernel op of the global block reads values that exist: a program that does not
    compiles unchanged, so the error names the op the user wrote (not a fused one)."""
    from ...ops.registry import lookup
    block = program.global_block()
    defined = set(feed_names) | set(program._eager_bindings)
    defined.update(n for blk in program.blocks for n, v in blk.vars.items() if v.persistable)
    for op in block.ops:
        if lookup(op.type).interpret is None and not all(n in defined for n in op.input_arg_names):
            return False
        defined.update(op.output_arg_names)
    return True


def optimize(program, feed_names=(), fetch_names=(), passes=None, stats=None):
    """A clone of ``program`` with the enabled passes applied (``program`` itself when none is).

    ``stats``: an optional dict that receives pass name -> number of changes."""
    names = enabled_passes(passes)
    if not names or not _reads_defined(program, feed_names):
        return program
    feed_names, fetch_names = tuple(feed_names), tuple(fetch_names)
    prog = program.clone()
    done = set()
    verify = _verify_on()
    if verify:
        try:
            verify_program(prog)
        except ProgramVerifyError:
            verify = False       # malformed as built: a later failure would not be the passes' fault
    dirty = False
    for name in names + (("dce",) if "dce" in names else ()):
        if name == "dce" and not dirty and name in done:
            continue
        changed = PASSES[name](prog, feed_names, fetch_names)
        if stats is not None:
            stats[name] = stats.get(name, 0) + changed
        done.add(name)
        # constant folding leaves the ops that computed the constants unread: drop them before the
        # fusions count readers; the other passes remove what they replace, so one dce at the end does
        dirty = (dirty or bool(changed)) and name != "dce"
        if name == "constant_fold" and changed and "dce" in names:
            dce.run(prog, feed_names, fetch_names)
            dirty = False
        if verify and changed:
            try:
                verify_program(prog)
            except ProgramVerifyError as e:
                raise ProgramVerifyError(f"after graph pass '{name}': {e}") from None
    return prog
