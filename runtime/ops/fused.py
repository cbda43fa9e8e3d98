"""Fused ops the graph passes (runtime/static/passes) put into compiled Programs.

``fused_gemm_epilogue`` (Paddle's op: X @ Y + Bias, then an activation), ``fused_elementwise_chain``
(a chain of elementwise/activation ops as one kernel that reuses its buffer with ``out=``) and
``folded_constant`` (a value computed at compile time). Every kernel computes exactly what the
ops it replaces compute: it calls their kernels or the same numpy ufuncs, only writing into a
buffer it owns instead of allocating a new one. The passes only put them into the clone of a
Program that is compiled, never into a Program that is differentiated, so none has a gradient.
"""
from __future__ import annotations

import base64
import functools
import itertools
import json

import numpy as np

from .elementwise import align
from .registry import Meta, lookup, register
from .zeros import FAST_DTYPES, relu_inplace


def _inplace(ufunc, a, b, out):
    """``ufunc(a, b)`` written into ``out`` (an operand the caller owns) when that gives exactly the
    value and dtype a fresh result would have; else a fresh result."""
    if type(out) is np.ndarray:
        try:
            # casting="no": only succeeds when no operand needs a cast, i.e. the result dtype is out's
            return ufunc(a, b, out=out, casting="no")
        except (TypeError, ValueError):   # other dtype, broadcasting beyond out, read-only
            pass
    return ufunc(a, b)


# -- fused_gemm_epilogue -----------------------------------------------------------------------------

_ACTIVATIONS = ("none", "relu", "gelu")


def _make_gemm(trans_x=False, trans_y=False, activation="none", **_):
    """The kernel with attrs bound: the matmul_v2 kernel, then the epilogue in its result's buffer."""
    if activation not in _ACTIVATIONS:
        raise ValueError(f"fused_gemm_epilogue: activation must be one of {_ACTIVATIONS}, got {activation!r}")
    mm = lookup("matmul_v2").bind({"trans_x": trans_x, "trans_y": trans_y})
    gelu = lookup("gelu").bind({"approximate": False})
    relu = activation == "relu"
    add, maximum, dot = np.add, np.maximum, np.dot
    plain = not trans_x and not trans_y

    def gemm(x, y, bias):
        # 2-D operands of one dtype (every Linear): np.dot straight away, the bias added in place
        # (same dtype, so nothing is cast); anything else takes the general kernels
        if plain and x.ndim == 2 and y.ndim == 2 and x.dtype is y.dtype and x.shape[1] == y.shape[0]:
            out = dot(x, y)
        else:
            out = mm(x, y)
        if out.dtype is bias.dtype and bias.ndim <= out.ndim:
            try:       # ValueError: bias would broadcast beyond out
                add(out, bias, out=out)
            except ValueError:
                out = add(out, bias)
        else:
            out = add(out, bias)
        if relu:
            if out.__class__ is np.ndarray and out.dtype in FAST_DTYPES and out.flags.writeable:
                relu_inplace(out)       # maximum(out, 0, out=out) against a zero array (zeros.py): same bits
            else:
                out = maximum(out, 0)
        elif activation == "gelu":
            out = gelu(out)
        return out
    return gemm


def _gemm_epilogue(x, y, bias, trans_x=False, trans_y=False, activation="none", **_):
    return _make_gemm(trans_x, trans_y, activation)(x, y, bias)


def _gemm_epilogue_meta(x, y, bias, trans_x=False, trans_y=False, activation="none", **_):
    mm = lookup("matmul_v2").infer_meta(x, y, trans_x=trans_x, trans_y=trans_y)
    out = lookup("elementwise_add").infer_meta(mm, bias, axis=-1)
    if activation == "gelu":
        out = lookup("gelu").infer_meta(out, approximate=False)
    return out, Meta((-1,), np.dtype(np.uint8))


register("fused_gemm_epilogue", ["X", "Y", "Bias"], ["Out", "ReserveSpace?(intermediate)"],
         {"trans_x": ("BOOLEAN", False), "trans_y": ("BOOLEAN", False), "activation": ("STRING", "none")},
         kernel=_gemm_epilogue, make_kernel=_make_gemm, infer_meta=_gemm_epilogue_meta, differentiable=(),
         internal=True)


# -- fused_elementwise_chain -------------------------------------------------------------------------
# ``steps`` is JSON: [[op type, {attrs}, [refs]], ...]; a ref k >= 0 is input X[k], -1 the result of
# the previous step (each step after the first reads it exactly once). ``inplace`` >= 0: input
# X[inplace] dies at this op and the first step may write its result into it.

# binary ops that are exactly one numpy ufunc with numpy broadcasting (axis -1)
BINARY_UFUNCS = {"elementwise_add": np.add, "elementwise_sub": np.subtract, "elementwise_mul": np.multiply,
                 "elementwise_max": np.maximum, "elementwise_min": np.minimum}
# unary ops that are ``ufunc(x, operand)`` / ``ufunc(x)`` for inputs of their own dtype
UNARY_UFUNCS = {"relu": (np.maximum, 0), "tanh": (np.tanh, None)}
# every step type a chain may hold: ops whose kernels return a new array (never a view of an input)
CHAIN_OPS = frozenset(BINARY_UFUNCS) | frozenset(UNARY_UFUNCS) | frozenset(
    {"elementwise_div", "sigmoid", "exp", "scale", "gelu", "silu"})


def parse_steps(steps):
    """The steps of a chain, checked: known chain op types, attrs a dict of plain values, refs ints
    (ValueError otherwise; passes write this attribute, but code generation must not trust it)."""
    try:
        parsed = json.loads(steps)
        out = []
        for t, a, r in parsed:
            if t not in CHAIN_OPS or not isinstance(a, dict) or not isinstance(r, list):
                raise ValueError
            if not all(type(x) is int and -1 <= x < 4096 for x in r):
                raise ValueError
            if not all(isinstance(v, (bool, int, float, str)) or v is None for v in a.values()):
                raise ValueError
            if "axis" in a and type(a["axis"]) is not int:
                raise ValueError
            out.append((t, dict(a), list(r)))
        return out
    except (TypeError, ValueError) as e:
        raise ValueError(f"fused_elementwise_chain: malformed 'steps' attribute {steps[:80]!r}") from e


def dump_steps(steps):
    return json.dumps([[t, a, r] for t, a, r in steps], sort_keys=True)


def _scale_inplace(t, kernel, scale, bias):
    """The scale kernel for float arrays (bias_after_scale): ``t * scale + bias`` into ``t``."""
    if type(t) is np.ndarray and t.dtype.kind == "f" and t.flags.writeable:
        np.multiply(t, scale, out=t)
        if bias:
            t += bias
        return t
    return kernel(t)


def _emit_inplace(lines, ufunc, operands, own):
    """``t = ufunc(operands)`` written into ``own`` when exact (see ``_inplace``), inline: no call."""
    lines.append("    try:")
    lines.append(f"        t = {ufunc}({operands}, out={own}, casting='no')")
    lines.append("    except (TypeError, ValueError):")   # not an array, other dtype, broadcast, read-only
    lines.append(f"        t = {ufunc}({operands})")


_chain_ids = itertools.count()


@functools.lru_cache(maxsize=512)
def _make_chain(steps, inplace=-1):
    parsed = parse_steps(steps)
    inplace = int(inplace)
    n_in = 1 + max((r for _, _, refs in parsed for r in refs), default=-1)
    g = {"np": np, "_inplace": _inplace, "_scale_inplace": _scale_inplace, "_align": align}
    xs = [f"x{k}" for k in range(n_in)]
    lines = ["def chain(X):", f"    {', '.join(xs) + ',' if xs else '_'} = X"]
    for i, (typ, attrs, refs) in enumerate(parsed):
        opdef = lookup(typ)
        args = ["t" if r == -1 else f"x{r}" for r in refs]
        # the buffer this step may write into: the previous result, or the input that dies here
        own = "t" if i > 0 else (f"x{inplace}" if inplace >= 0 and inplace in refs else None)
        k = f"k{i}"
        g[k] = opdef.bind(attrs)
        if own is not None and typ in BINARY_UFUNCS and len(args) == 2:
            g[f"u{i}"] = BINARY_UFUNCS[typ]
            axis = int(attrs.get("axis", -1))
            g[f"a{i}"] = axis      # values are globals: nothing from the attribute becomes source text
            operands = f"{args[0]}, {args[1]}" if axis == -1 else \
                f"*_align({args[0]}, {args[1]}, a{i})"   # Paddle's legacy axis, as the kernel aligns
            _emit_inplace(lines, f"u{i}", operands, own)
        elif own is not None and typ in UNARY_UFUNCS:
            uf, operand = UNARY_UFUNCS[typ]
            g[f"u{i}"] = uf
            if operand is None:
                lines.append(f"    t = u{i}({own}, out={own}, casting='no') if type({own}) is np.ndarray "
                             f"and {own}.dtype.kind == 'f' and {own}.flags.writeable else {k}({args[0]})")
            else:
                _emit_inplace(lines, f"u{i}", f"{args[0]}, {operand!r}", own)
        elif own is not None and typ == "scale" and attrs.get("bias_after_scale", True) and len(refs) == 1:
            g[f"s{i}"], g[f"b{i}"] = float(attrs.get("scale", 1.0)), float(attrs.get("bias", 0.0))
            lines.append(f"    t = _scale_inplace({own}, {k}, s{i}, b{i})")
        else:
            lines.append(f"    t = {k}({', '.join(args)})")
    lines.append("    return t")
    exec(compile("\n".join(lines) + "\n", f"<fused_elementwise_chain #{next(_chain_ids)}>", "exec"), g)
    fn = g["chain"]
    fn.source = "\n".join(lines)
    return fn


def _chain(xs, steps="[]", inplace=-1, **_):
    return _make_chain(steps, inplace)(xs)


def _chain_meta(xs, steps="[]", inplace=-1, **_):
    t = None
    for typ, attrs, refs in parse_steps(steps):
        opdef = lookup(typ)
        full = opdef.full_attrs(attrs)
        args = [t if r == -1 else xs[r] for r in refs]
        args += [None] * (len(opdef.inputs) - len(args))
        t = opdef.infer_meta(*args, **full)
    return t


def _make_chain_kernel(steps="[]", inplace=-1, **_):
    return _make_chain(steps, inplace)


register("fused_elementwise_chain", ["X[]"], ["Out"], {"steps": ("STRING", "[]"), "inplace": ("INT", -1)},
         kernel=_chain, infer_meta=_chain_meta, make_kernel=_make_chain_kernel, differentiable=(), internal=True)


# -- folded_constant ---------------------------------------------------------------------------------

def encode_constant(array):
    """The attrs of a ``folded_constant`` op holding ``array``."""
    a = np.array(array, order="C")   # (ascontiguousarray would make a 0-D array 1-D)
    return {"dtype": a.dtype.str, "shape": [int(d) for d in a.shape],
            "data": base64.b64encode(a.tobytes()).decode("ascii")}


def _decode(dtype, shape, data):
    dt = np.dtype(dtype)
    if dt.kind not in "biufc" or dt.hasobject:   # never object pointers from bytes
        raise ValueError(f"folded_constant: dtype {dtype!r} is not a plain numeric dtype")
    raw = base64.b64decode(data, validate=True)
    shape = [int(d) for d in shape]
    if any(d < 0 for d in shape) or int(np.prod(shape, dtype=object)) * dt.itemsize != len(raw):
        raise ValueError(f"folded_constant: {len(raw)} bytes do not hold a {dt} array of shape {shape}")
    a = np.frombuffer(raw, dtype=dt).reshape(shape).copy()
    a.flags.writeable = False   # shared by every run: nothing may write into it
    return a


def _constant(dtype="<f4", shape=[], data="", **_):
    return _decode(dtype, shape, data)


def _make_constant(dtype="<f4", shape=[], data="", **_):
    a = _decode(dtype, shape, data)
    return lambda: a


register("folded_constant", [], ["Out"], {"dtype": ("STRING", "<f4"), "shape": ("INTS", []), "data": ("STRING", "")},
         kernel=_constant, make_kernel=_make_constant, differentiable=(), internal=True,
         infer_meta=lambda dtype="<f4", shape=[], **_: Meta(tuple(shape), np.dtype(dtype)))
