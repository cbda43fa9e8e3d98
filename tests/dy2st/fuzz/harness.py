"""Run generated programs eagerly and converted, and compare outputs and gradients.

`load(programs)` writes a batch of `generator.Program` sources to one temporary .py file and
imports it (``inspect.getsource`` then reads the real file). `check(program, fn)` runs one
program on several inputs taking different paths: the eager run is the oracle; the
``to_static`` run (compiled back end, through `PartialProgram`, with gradients) and the same
traced Program run forward by ``Executor(backend="interpreter")`` must match it.
"""
from __future__ import annotations

import atexit
import importlib.util
import itertools
import os
import shutil
import signal
import sys
import tempfile
import traceback

import numpy as np

import dy2st as paddle
from runtime.static.control_flow import flatten

RTOL, ATOL = 1e-5, 1e-6
_batch = itertools.count()
_tmpdir = None


class Failure:
    def __init__(self, program, inputs, kind, message):
        self.program, self.inputs, self.kind, self.message = program, inputs, kind, message

    def __repr__(self):
        return (f"--- {self.kind} in {self.program.name} (shape {self.program.shape} {self.program.dtype}, "
                f"m shape {self.program.m_shape}) inputs {self.inputs}\n{self.program.source}{self.message}")


def load(programs):
    """Import the programs' sources as one module; returns {name: function}."""
    global _tmpdir
    if _tmpdir is None:
        _tmpdir = tempfile.mkdtemp(prefix="dy2st_fuzz_")
        atexit.register(shutil.rmtree, _tmpdir, True)
    k = next(_batch)
    modname = f"dy2st_fuzz_batch_{os.getpid()}_{k}"
    path = os.path.join(_tmpdir, modname + ".py")
    with open(path, "w") as fh:
        fh.write("import dy2st as paddle\n\n\n")
        for p in programs:
            fh.write(p.source)
            fh.write("\n\n")
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    return {p.name: getattr(mod, p.name) for p in programs}


def input_sets(program, rng, n_python=2, n_tensor=3):
    """[(n, flag, [(x, y, m), ...]), ...]: Python args select the trace, tensor values the path."""
    out = []
    py = [(0, False), (1, True), (2, False), (3, True), (2, True)]
    rng.shuffle(py)
    for n, flag in py[:n_python]:
        arrays = []
        for j in range(n_tensor):
            scale = (0.3, 2.0, 1.0, 0.7)[j % 4]
            shift = (0.0, 0.4, -0.6, 0.2)[j % 4]
            x = (rng.uniform(-1, 1, program.shape) * scale + shift).astype(program.dtype)
            y = (rng.uniform(-1, 1, program.shape) * scale - shift).astype(program.dtype)
            mv = rng.integers(0, 4)
            m = np.array(mv if not program.m_shape else [mv], dtype=np.int64)
            arrays.append((x, y, m))
        out.append((n, flag, arrays))
    return out


def _tensors(x, y, m):
    return (paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(y, stop_gradient=False),
            paddle.to_tensor(m))


def _run(fn, x, y, m, n, flag):
    xt, yt, mt = _tensors(x, y, m)
    out = fn(xt, yt, mt, n, flag)
    leaves = [o for o in flatten(out)]
    loss = None
    for o in leaves:
        if isinstance(o, paddle.Tensor) and not o.stop_gradient:
            loss = o.sum() if loss is None else loss + o.sum()
    if loss is not None:
        loss.backward()
    grads = [g.numpy() if g is not None else np.zeros_like(a) for g, a in ((xt.grad, x), (yt.grad, y))]
    return leaves, grads


def _compare(a, b, what):
    a = [np.asarray(v.numpy() if isinstance(v, paddle.Tensor) else v) for v in a]
    b = [np.asarray(v.numpy() if isinstance(v, paddle.Tensor) else v) for v in b]
    if len(a) != len(b):
        raise AssertionError(f"{what}: {len(a)} values eagerly, {len(b)} converted")
    for i, (u, v) in enumerate(zip(a, b)):
        if u.shape != v.shape:
            raise AssertionError(f"{what}[{i}]: shape {list(u.shape)} eagerly, {list(v.shape)} converted")
        if u.dtype != v.dtype:
            raise AssertionError(f"{what}[{i}]: dtype {u.dtype} eagerly, {v.dtype} converted")
        np.testing.assert_allclose(v, u, rtol=RTOL, atol=ATOL, err_msg=f"{what}[{i}]")


class _Timeout(Exception):
    pass


def _alarm(*_):
    raise _Timeout("timed out (an endless loop?)")


def check(program, fn, rng, interpreter=True, timeout=None, n_python=2, n_tensor=3):
    """Failures (a list) of ``program`` (its function ``fn``) over a few input sets."""
    return _check(program, fn, input_sets(program, rng, n_python, n_tensor), interpreter, timeout)


def check_one(program, fn, where, interpreter=True, timeout=None):
    """Failures of ``program`` on the one input ``where`` (a `Failure.inputs` dict)."""
    x = np.asarray(where["x"], dtype=program.dtype).reshape(program.shape)
    y = np.asarray(where["y"], dtype=program.dtype).reshape(program.shape)
    m = np.asarray(where["m"], dtype=np.int64)
    return _check(program, fn, [(where["n"], where["flag"], [(x, y, m)])], interpreter, timeout)


known = []      # (program name, known issue) skipped checks, for the summaries
# runs where eager Python raised UnboundLocalError (a name bound on some paths only) and the converted
# function failed as it should, and all runs compared
stats = {"unbound": 0, "runs": 0}


NEVER_BOUND = ("a p<k> name no traced path binds (Python control flow skipped its binding), read under a "
               "tensor condition eager Python did not take: refused at conversion (as Paddle does)")


def _never_bound_read(e):
    """The conversion refused a generated ``p<k>`` name that no traced path binds, read in a tensor branch
    (both branches are traced): the documented refusal, which Paddle shares (TypeError at conversion)."""
    import re
    msg = str(e).splitlines()[0] if str(e) else ""
    return (isinstance(e, UnboundLocalError) and re.search(r"local variable 'p\d+' is referenced before", msg)) \
        or (type(e).__name__ == "ArgumentTypeError" and "got UndefinedVar" in msg)


def _is_unbound_error(e):
    """The converted function's error for a name read where this run did not bind it: raised while
    tracing (an UnboundLocalError) or by the staged check when the Program runs."""
    return isinstance(e, UnboundLocalError) or str(e).startswith("UnboundLocalError at ")


def _check(program, fn, sets, interpreter, timeout):
    failures = []
    if timeout:
        old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for n, flag, arrays in sets:
            sf = paddle.jit.to_static(fn)
            for x, y, m in arrays:
                where = {"n": n, "flag": flag, "x": x.tolist(), "y": y.tolist(), "m": m.tolist()}
                if timeout:
                    signal.alarm(timeout)
                try:
                    stats["runs"] += 1
                    try:
                        e_out, e_grads = _run(fn, x, y, m, n, flag)
                    except UnboundLocalError as e:
                        # a name bound on some paths only, read where this run did not bind it
                        try:
                            _run(sf, x, y, m, n, flag)
                        except Exception as s_err:
                            if _is_unbound_error(s_err):
                                stats["unbound"] += 1
                                continue
                            failures.append(Failure(program, where, "converted run (eager: unbound name)",
                                                    f"eagerly UnboundLocalError: {e}; converted "
                                                    f"{type(s_err).__name__}: {s_err}"))
                            return failures
                        failures.append(Failure(program, where, "converted run (eager: unbound name)",
                                                f"eagerly UnboundLocalError: {e}; the converted run returned a "
                                                "value"))
                        return failures
                    except Exception as e:
                        failures.append(Failure(program, where, "invalid program (eager run failed)",
                                                f"{type(e).__name__}: {e}"))
                        continue
                    stage = "converted run"
                    try:
                        s_out, s_grads = _run(sf, x, y, m, n, flag)
                        stage = "converted outputs"
                        _compare(e_out, s_out, "outputs")
                        stage = "converted gradients"
                        _compare(e_grads, s_grads, "grad")
                        if interpreter:
                            stage = "interpreter run"
                            i_out = _interpret(sf, x, y, m)
                            stage = "interpreter outputs"
                            _compare([o for o in e_out if isinstance(o, paddle.Tensor)], i_out, "outputs")
                    except _Timeout:
                        raise
                    except Exception as e:
                        if stage == "converted run" and _never_bound_read(e):
                            known.append((program.name, NEVER_BOUND))
                            return failures
                        tb = traceback.format_exc(limit=-3) if not isinstance(e, AssertionError) else ""
                        failures.append(Failure(program, where, stage, f"{type(e).__name__}: {e}\n{tb}"))
                        return failures     # one failure per program is enough
                finally:
                    if timeout:
                        signal.alarm(0)
    except _Timeout as e:
        failures.append(Failure(program, {}, "timeout", str(e)))
    finally:
        if timeout:
            signal.signal(signal.SIGALRM, old)
    return failures


def _interpret(sf, x, y, m):
    """The last traced Program run forward by the interpreter back end."""
    cp = sf.concrete_program
    exe = paddle.static.Executor(backend="interpreter")
    feed = {v.name: a for v, a in zip(cp.inputs, (x, y, m))}
    return exe.run(cp.main_program, feed=feed, fetch_list=list(cp.outputs)) if cp.outputs else []
