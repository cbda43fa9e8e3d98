"""Per-framework set-up of one workload: the timed callables ("columns") and their outputs.

An adapter's ``setup(name, tiny, weights, inputs)`` returns ``{column: Column}``. A column
holds the zero-argument function one timed call runs, the context every timing loop runs in
(no_grad for inference), the outputs used to check it against the numpy floor (``out`` for
inference; ``loss`` and ``grad:<param>`` in Paddle's layouts for training, computed from the
initial weights), and for converted columns the first-call time (conversion + first run of a
fresh instance; for training the first forward + backward). A column that failed to build
holds the error instead.
"""
from __future__ import annotations

import contextlib
import os
import time
import traceback
import warnings

import numpy as np

from . import load_workloads, numpy_floor, spec


class Column:
    def __init__(self, fn=None, ctx=None, outputs=None, first_call_s=None, error=None, warnings=()):
        self.fn, self.ctx, self.outputs = fn, ctx, outputs or {}
        self.first_call_s, self.error, self.warnings = first_call_s, error, list(warnings)
        self.number = None
        self.keep = None   # objects the column needs alive (models, optimizers)


def describe_error(exc):
    """'Type: message' plus the innermost frames (file:line), for the report."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = [f"{os.path.relpath(f.filename) if f.filename.startswith('/') else f.filename}:{f.lineno} in {f.name}"
             for f in frames[-4:]]
    msg = f"{type(exc).__name__}: {str(exc).strip()[:400]}"
    return msg + ("\n    at " + "\n    at ".join(where) if where else "")


def _guard(build):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            col = build()
        except Exception as exc:  # a failing framework must not stop the other columns
            col = Column(error=describe_error(exc))
    col.warnings += sorted({f"{w.category.__name__}: {str(w.message)[:200]}" for w in caught})
    return col


def _rel_err(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape:
        return float("inf")
    scale = max(float(np.abs(b).max()) if b.size else 0.0, 1e-30)
    return float(np.abs(a - b).max() / scale) if b.size else 0.0


def compare(outputs, reference):
    """Largest relative error (max |a-b| / max |ref|) over the reference's keys."""
    missing = [k for k in reference if k not in outputs]
    if missing:
        return float("inf")
    return max((_rel_err(outputs[k], reference[k]) for k in reference), default=0.0)


class FloorAdapter:
    """The hand-written numpy floor."""

    name = "numpy"

    def setup(self, name, tiny, weights, inputs):
        model, kind, cfg, _ = spec.resolve(name, tiny)

        def build():
            fl = numpy_floor.make(model, cfg, weights, inputs, spec.LR)
            if kind == "infer":
                col = Column(fl.run, outputs={"out": fl.run().copy()})
            else:
                loss, g = fl.grads()
                outs = {"loss": np.float32(loss), **{f"grad:{k}": v.copy() for k, v in g.items()}}
                col = Column(fl.run, outputs=outs)
                fl.run()
            col.keep = fl
            return col
        return {"floor": _guard(build)}


class PaddleAdapter:
    """dy2st or real PaddlePaddle: the same workload source, eager and to_static(full_graph=True)."""

    def __init__(self, paddle_module, tag):
        self.paddle = paddle_module
        self.tag = tag
        self.models = load_workloads(paddle_module, tag)

    def _model(self, model, cfg, weights, kind):
        paddle = self.paddle
        m = self.models.build(model, cfg)
        sd = m.state_dict()
        if sorted(sd) != sorted(weights):
            raise ValueError(f"model parameters {sorted(sd)} != suite weights {sorted(weights)}")
        m.set_state_dict({k: paddle.to_tensor(v) for k, v in weights.items()})
        m.eval() if kind == "infer" else m.train()
        return m

    def _grads(self, m):
        out = {f"grad:{n}": p.grad.numpy().copy() for n, p in m.named_parameters() if p.grad is not None}
        m.clear_gradients()
        return out

    def _column(self, m, kind, tensors, first_call_s=None, first_out=None):
        paddle = self.paddle
        if kind == "infer":
            x = tensors["x"]
            if first_out is None:
                with paddle.no_grad():
                    first_out = m(x)
            col = Column(lambda: m(x), paddle.no_grad, {"out": first_out.numpy().copy()}, first_call_s)
            col.keep = m
            return col
        x, label = tensors["x"], tensors["label"]
        if first_out is None:
            first_out = m(x, label)
            first_out.backward()
        outs = {"loss": np.float32(first_out.numpy()), **self._grads(m)}
        opt = paddle.optimizer.SGD(learning_rate=spec.LR, parameters=m.parameters())

        def step():
            loss = m(x, label)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        col = Column(step, None, outs, first_call_s)
        col.keep = (m, opt)
        return col

    def setup(self, name, tiny, weights, inputs):
        paddle = self.paddle
        model, kind, cfg, _ = spec.resolve(name, tiny)
        tensors = {k: paddle.to_tensor(v) for k, v in inputs.items()}

        def eager():
            return self._column(self._model(model, cfg, weights, kind), kind, tensors)

        def converted():
            m = self._model(model, cfg, weights, kind)
            t0 = time.perf_counter()
            m = paddle.jit.to_static(m, full_graph=True)
            if kind == "infer":
                with paddle.no_grad():
                    out = m(tensors["x"])
                out.numpy()
            else:
                out = m(tensors["x"], tensors["label"])
                out.backward()
            first = time.perf_counter() - t0
            return self._column(m, kind, tensors, first, out)

        return {"eager": _guard(eager), "static": _guard(converted)}


class TorchAdapter:
    """PyTorch eager and torch.jit.script (separately written models, same weights)."""

    def __init__(self):
        import torch
        from . import torch_models
        self.torch, self.tm = torch, torch_models

    def _model(self, model, cfg, weights, kind):
        m = self.tm.build(model, cfg)
        lin = self.tm.load_weights(m, weights)
        m.eval() if kind == "infer" else m.train()
        return m, lin

    def setup(self, name, tiny, weights, inputs):
        torch = self.torch
        model, kind, cfg, _ = spec.resolve(name, tiny)
        x = torch.from_numpy(inputs["x"].copy())
        label = torch.from_numpy(inputs["label"].reshape(-1).copy()) if "label" in inputs else None

        def column(m, lin, first_call_s=None, first_out=None):
            if kind == "infer":
                if first_out is None:
                    with torch.no_grad():
                        first_out = m(x)
                col = Column(lambda: m(x), torch.no_grad, {"out": first_out.numpy().copy()}, first_call_s)
                col.keep = m
                return col
            if first_out is None:
                first_out = m(x, label)
                first_out.backward()
            outs = {"loss": np.float32(first_out.detach().numpy())}
            for n, p in m.named_parameters():
                g = p.grad.numpy()
                outs[f"grad:{n}"] = (g.T if n in lin else g).copy()
            m.zero_grad()
            opt = torch.optim.SGD(m.parameters(), lr=spec.LR)

            def step():
                opt.zero_grad()
                loss = m(x, label)
                loss.backward()
                opt.step()
                return loss
            col = Column(step, None, outs, first_call_s)
            col.keep = (m, opt)
            return col

        def eager():
            return column(*self._model(model, cfg, weights, kind))

        def scripted():
            m, lin = self._model(model, cfg, weights, kind)
            t0 = time.perf_counter()
            sm = torch.jit.script(m)
            if kind == "infer":
                with torch.no_grad():
                    out = sm(x)
            else:
                out = sm(x, label)
                out.backward()
            first = time.perf_counter() - t0
            return column(sm, lin, first, out)

        return {"eager": _guard(eager), "script": _guard(scripted)}


def peak_memory(paddle_module, batch=256, seed=0):
    """tracemalloc peak (bytes) around one LeNet inference call: floor, dy2st eager, dy2st converted.

    numpy reports its data allocations to tracemalloc, so array buffers are counted. Each
    side is called once untraced first (warm caches, conversion) and then once traced.
    """
    import tracemalloc
    mw = spec.MEMORY_WORKLOAD
    inputs = dict(mw["inputs"])
    inputs["x"] = [batch] + inputs["x"][1:]
    weights = spec.make_weights(mw["model"], mw["cfg"], seed)
    arrays = spec.make_inputs(inputs)
    paddle = paddle_module
    models = load_workloads(paddle)
    results, outputs = {}, {}

    def model():
        m = models.build(mw["model"], mw["cfg"])
        m.set_state_dict({k: paddle.to_tensor(v) for k, v in weights.items()})
        m.eval()
        return m

    fl = numpy_floor.make(mw["model"], mw["cfg"], weights, arrays)
    x = paddle.to_tensor(arrays["x"])
    sides = {"floor": (fl.run, contextlib.nullcontext), "eager": (model(), paddle.no_grad),
             "static": (paddle.jit.to_static(model(), full_graph=True), paddle.no_grad)}
    for side, (fn, ctx) in sides.items():
        call = fn if side == "floor" else (lambda fn=fn: fn(x))
        try:
            with ctx():
                out = call()
                del out
                tracemalloc.start()
                tracemalloc.reset_peak()
                base = tracemalloc.get_traced_memory()[0]
                out = call()
                peak = tracemalloc.get_traced_memory()[1] - base
                tracemalloc.stop()
            outputs[side] = out if side == "floor" else out.numpy()
            results[side] = {"peak_bytes": int(peak)}
        except Exception as exc:
            if tracemalloc.is_tracing():
                tracemalloc.stop()
            results[side] = {"error": describe_error(exc)}
    for side in ("eager", "static"):
        if side in outputs and "floor" in outputs:
            results[side]["rel_err"] = _rel_err(outputs[side], outputs["floor"])
    return results
