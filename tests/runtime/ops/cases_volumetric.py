"""Table rows for conv3d, conv3d_transpose, pool3d and max_pool3d_with_index.

The references loop over every output point: conv3d sums x[n, c, o*s - p + k*d] * w[m, c, k] over
the group's channels and the kernel (zero outside); conv3d_transpose adds x[n, c, i] * w[c, m, k]
into position i*s + k*d of the full output and crops the paddings; pooling takes Paddle's window
[i*s - p, min(i*s - p + k, n + p)) (adaptive: [floor(i*n/o), ceil((i+1)*n/o))) per axis and its
max (first one for the mask) or its average (exclusive: over the covered input elements).
"""
import itertools

import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(53)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


def _pads6(p):
    return [p[0], p[0], p[1], p[1], p[2], p[2]] if len(p) == 3 else list(p)


def _to_first(a, data_format):
    return np.moveaxis(a, -1, 1) if data_format in ("NDHWC", "NHWC") else a


def _to_last(a, data_format):
    return np.moveaxis(a, 1, -1) if data_format in ("NDHWC", "NHWC") else a


def conv3d_ref(Input, Filter, strides=(1, 1, 1), paddings=(0, 0, 0), dilations=(1, 1, 1), groups=1,
               data_format="NCDHW", **_):
    x = _to_first(Input, data_format)
    p = _pads6(paddings)
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[1]), (p[2], p[3]), (p[4], p[5])))
    N, C = x.shape[:2]
    M, Cg, *ks = Filter.shape
    outs = [(xp.shape[2 + i] - (dilations[i] * (ks[i] - 1) + 1)) // strides[i] + 1 for i in range(3)]
    out = np.zeros((N, M) + tuple(outs))
    for m in range(M):
        g = m // (M // groups)
        for pos in itertools.product(*[range(o) for o in outs]):
            for kk in itertools.product(*[range(k) for k in ks]):
                idx = tuple(pos[i] * strides[i] + kk[i] * dilations[i] for i in range(3))
                vals = xp[(slice(None), slice(g * Cg, (g + 1) * Cg)) + idx]
                out[(slice(None), m) + pos] += vals @ Filter[(m, slice(None)) + kk]
    return _to_last(out.astype(Input.dtype), data_format)


def conv3d_transpose_ref(Input, Filter, strides=(1, 1, 1), paddings=(0, 0, 0), output_padding=(), output_size=(),
                         dilations=(1, 1, 1), groups=1, data_format="NCHW", **_):
    x = _to_first(Input, data_format)
    p = _pads6(paddings)
    N, C, *sp = x.shape
    _, Mg, *ks = Filter.shape
    base = [(sp[i] - 1) * strides[i] + dilations[i] * (ks[i] - 1) + 1 for i in range(3)]
    full = np.zeros((N, Mg * groups) + tuple(b + 4 for b in base))
    for c in range(C):
        g = c // (C // groups)
        for pos in itertools.product(*[range(n) for n in sp]):
            for kk in itertools.product(*[range(k) for k in ks]):
                idx = tuple(pos[i] * strides[i] + kk[i] * dilations[i] for i in range(3))
                full[(slice(None), slice(g * Mg, (g + 1) * Mg)) + idx] += \
                    np.outer(x[(slice(None), c) + pos], Filter[(c, slice(None)) + kk])
    outs = [base[i] - p[2 * i] - p[2 * i + 1] for i in range(3)]
    if output_size:
        outs = list(output_size)
    elif output_padding:
        outs = [o + e for o, e in zip(outs, output_padding)]
    out = full[:, :, p[0]:p[0] + outs[0], p[2]:p[2] + outs[1], p[4]:p[4] + outs[2]]
    return _to_last(out.astype(Input.dtype), data_format)


def _windows(n, k, s, p_before, o, adaptive):
    if adaptive:
        return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]
    return [(i * s - p_before, min(i * s - p_before + k, n + p_before)) for i in range(o)]


def _pool_geometry(sp, ksize, strides, paddings, ceil_mode, adaptive, global_pooling):
    if global_pooling:
        return list(sp), [1, 1, 1], [0] * 6, [1, 1, 1], False
    p = [0] * 6 if adaptive else _pads6(paddings)
    if adaptive:
        return list(ksize), list(strides), p, list(ksize), True
    outs = [(sp[i] - ksize[i] + p[2 * i] + p[2 * i + 1] + (strides[i] - 1 if ceil_mode else 0)) // strides[i] + 1
            for i in range(3)]
    return list(ksize), list(strides), p, outs, False


def _pool(x, ksize, strides, paddings, ceil_mode, adaptive, global_pooling, kind, exclusive):
    N, C, *sp = x.shape
    ks, ss, p, outs, adaptive = _pool_geometry(sp, ksize, strides, paddings, ceil_mode, adaptive, global_pooling)
    wins = [_windows(sp[i], ks[i], ss[i], p[2 * i], outs[i], adaptive) for i in range(3)]
    out = np.zeros((N, C) + tuple(outs))
    mask = np.full((N, C) + tuple(outs), -1, dtype=np.int32)
    for pos in itertools.product(*[range(o) for o in outs]):
        bounds = [wins[i][pos[i]] for i in range(3)]
        clipped = [(max(a, 0), min(b, sp[i])) for i, (a, b) in enumerate(bounds)]
        block = x[(slice(None), slice(None)) + tuple(slice(a, b) for a, b in clipped)]
        if kind == "max":
            flat = block.reshape(N, C, -1)
            a = flat.argmax(axis=2)
            out[(slice(None), slice(None)) + pos] = flat.max(axis=2)
            dims = block.shape[2:]
            for n in range(N):
                for c in range(C):
                    d, h, w = np.unravel_index(a[n, c], dims)
                    mask[(n, c) + pos] = ((clipped[0][0] + d) * sp[1] + clipped[1][0] + h) * sp[2] + clipped[2][0] + w
        else:
            count = np.prod([b - a for a, b in (clipped if exclusive or adaptive else bounds)])
            out[(slice(None), slice(None)) + pos] = block.sum(axis=(2, 3, 4)) / count
    return out.astype(x.dtype), mask


def pool3d_ref(X, ksize=(), strides=(1, 1, 1), paddings=(0, 0, 0), ceil_mode=False, exclusive=True,
               data_format="NCDHW", pooling_type="", global_pooling=False, adaptive=False, **_):
    x = _to_first(X, data_format)
    out, _ = _pool(x, ksize, strides, paddings, ceil_mode, adaptive, global_pooling, pooling_type, exclusive)
    return _to_last(out, data_format)


def max_pool3d_index_ref(X, ksize=(), strides=(1, 1, 1), paddings=(0, 0, 0), global_pooling=False,
                         adaptive=False, ceil_mode=False, **_):
    return _pool(X, ksize, strides, paddings, ceil_mode, adaptive, global_pooling, "max", True)


def _conv(k, s=(1, 1, 1), p=(0, 0, 0), d=(1, 1, 1), g=1, fmt="NCDHW", **extra):
    return {"strides": list(s), "paddings": list(p), "dilations": list(d), "groups": g, "data_format": fmt, **extra}


def _p(ksize, kind, s=(1, 1, 1), p=(0, 0, 0), **extra):
    return {"ksize": list(ksize), "strides": list(s), "paddings": list(p), "pooling_type": kind, **extra}


CASES = [
    OpCase("conv3d", {"Input": r(1, 2, 3, 3, 4), "Filter": r(2, 2, 2, 2, 2)}, conv3d_ref, attrs=_conv(2)),
    OpCase("conv3d", {"Input": r(1, 4, 3, 4, 3), "Filter": r(4, 2, 2, 1, 2)}, conv3d_ref,
           name="groups_stride_pad6_dilation", attrs=_conv(2, s=(2, 1, 1), p=(1, 0, 0, 1, 1, 1), d=(1, 2, 1), g=2)),
    OpCase("conv3d", {"Input": r(1, 3, 2, 3, 2), "Filter": r(2, 2, 1, 2, 2)}, conv3d_ref, name="ndhwc",
           attrs=_conv(2, p=(0, 1, 0), fmt="NDHWC")),
    OpCase("conv3d", {"Input": r(2, 2, 4, 4, 4).astype(np.float32), "Filter": r(3, 2, 3, 3, 3).astype(np.float32)},
           conv3d_ref, name="float32", check_grad=False, rtol=1e-5, atol=1e-5, attrs=_conv(3, s=(2, 2, 2), p=(1, 1, 1))),
    OpCase("conv3d_transpose", {"Input": r(1, 2, 2, 3, 2), "Filter": r(2, 2, 2, 2, 1)}, conv3d_transpose_ref,
           attrs=_conv(2, fmt="NCHW")),
    OpCase("conv3d_transpose", {"Input": r(1, 4, 2, 2, 2), "Filter": r(4, 1, 2, 2, 3)}, conv3d_transpose_ref,
           name="groups_stride_pad_dilation_outpad",
           attrs=_conv(2, s=(2, 2, 1), p=(1, 0, 1), d=(1, 1, 2), g=2, fmt="NCHW", output_padding=[1, 0, 0])),
    OpCase("conv3d_transpose", {"Input": r(1, 2, 2, 2, 3), "Filter": r(3, 2, 2, 2, 2)}, conv3d_transpose_ref,
           name="nhwc_output_size", attrs=_conv(2, s=(2, 2, 2), fmt="NHWC", output_size=[5, 4, 4])),
    OpCase("pool3d", {"X": r(1, 2, 4, 4, 5)}, pool3d_ref, name="max", attrs=_p((2, 2, 2), "max", s=(2, 2, 2))),
    OpCase("pool3d", {"X": r(1, 2, 4, 4, 5)}, pool3d_ref, name="max_pad_ceil",
           attrs=_p((2, 3, 2), "max", s=(2, 2, 2), p=(1, 1, 0), ceil_mode=True)),
    OpCase("pool3d", {"X": r(1, 2, 3, 4, 4)}, pool3d_ref, name="avg_exclusive",
           attrs=_p((2, 2, 3), "avg", s=(1, 2, 2), p=(1, 0, 1))),
    OpCase("pool3d", {"X": r(1, 1, 3, 4, 4)}, pool3d_ref, name="avg_inclusive_pad6",
           attrs=_p((2, 2, 2), "avg", s=(2, 2, 2), p=(1, 0, 0, 1, 1, 1), exclusive=False)),
    OpCase("pool3d", {"X": r(1, 2, 5, 4, 3)}, pool3d_ref, name="adaptive_avg",
           attrs=_p((2, 3, 2), "avg", adaptive=True)),
    OpCase("pool3d", {"X": r(1, 2, 5, 3, 4)}, pool3d_ref, name="adaptive_max",
           attrs=_p((3, 2, 3), "max", adaptive=True)),
    OpCase("pool3d", {"X": r(2, 3, 2, 3, 2)}, pool3d_ref, name="global_avg",
           attrs=_p((1, 1, 1), "avg", global_pooling=True)),
    OpCase("pool3d", {"X": r(1, 3, 4, 2, 2)}, pool3d_ref, name="ndhwc_max",
           attrs=_p((2, 2, 2), "max", s=(2, 1, 1), data_format="NDHWC")),
    OpCase("max_pool3d_with_index", {"X": r(1, 2, 4, 4, 5)}, max_pool3d_index_ref,
           attrs={"ksize": [2, 2, 3], "strides": [2, 2, 2], "paddings": [0, 1, 1]}),
    OpCase("max_pool3d_with_index", {"X": r(1, 2, 5, 3, 4)}, max_pool3d_index_ref, name="adaptive",
           attrs={"ksize": [2, 2, 3], "adaptive": True}),
]
