"""Table rows for logit, atan2, copysign, elementwise_heaviside / fmax / fmin, nextafter, the bit
shifts, logspace, trace, mv, addmm, baddbmm, kthvalue and nanmedian (plain-loop numpy references)."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(62)
R = lambda *s: rng.standard_normal(s)  # noqa: E731
U = rng.uniform(0.05, 0.95, (3, 4))
A, B = R(3, 4), R(4)
NANS = np.array([[1.0, np.nan, 3.0, 2.0], [np.nan] * 4, [5.0, 1.5, 1.0, 4.0]])


def _trace_ref(Input, offset=0, axis1=0, axis2=1, **_):
    m = np.moveaxis(Input, (axis1, axis2), (-2, -1))
    out = np.zeros(m.shape[:-2])
    for pos in np.ndindex(*m.shape[:-2]):
        out[pos] = sum(m[pos][i, i + offset] for i in range(m.shape[-2]) if 0 <= i + offset < m.shape[-1])
    return out.astype(Input.dtype)


def _mm_ref(Input, X, Y, Beta=1.0, Alpha=1.0, **_):
    prod = np.zeros(X.shape[:-1] + (Y.shape[-1],))
    for pos in np.ndindex(*prod.shape):
        prod[pos] = sum(X[pos[:-1] + (k,)] * Y[pos[:-2] + (k, pos[-1])] for k in range(X.shape[-1]))
    return Beta * Input + Alpha * prod


def _kth_ref(X, k=1, axis=-1, keepdim=False, **_):
    order = np.argsort(X, axis=axis, kind="stable")
    idx = np.take(order, [k - 1], axis=axis)
    val = np.take_along_axis(X, idx, axis=axis)
    return (val, idx) if keepdim else (np.squeeze(val, axis), np.squeeze(idx, axis))


def _nanmedian_ref(X, axis=(), keepdim=True, mode="avg", **_):
    rows = X.reshape(-1, X.shape[-1]) if axis == [1] else X.reshape(1, -1)
    vals, idxs = [], []
    for row in rows:
        good = [i for i in np.argsort(row, kind="stable") if not np.isnan(row[i])]
        if not good:
            vals.append(np.nan)
            idxs.append([-1, -1])
            continue
        lo, hi = good[(len(good) - 1) // 2], good[len(good) // 2]
        vals.append(row[lo] if mode == "min" else (row[lo] + row[hi]) / 2)
        idxs.append([lo, hi])
    vals, idxs = np.array(vals), np.array(idxs)
    if axis == [1]:
        shape = (X.shape[0], 1) if keepdim else (X.shape[0],)
    else:
        shape = (1, 1) if keepdim else ()
    return vals.reshape(shape), (idxs.reshape(shape + (2,)) if mode == "avg" else idxs[:, 0].reshape(shape))


def _shift_ref(left, arithmetic=True):
    def ref(x, y, is_arithmetic=True, **_):
        bits = x.dtype.itemsize * 8
        out = np.zeros(np.broadcast_shapes(x.shape, y.shape), x.dtype)
        for pos in np.ndindex(*out.shape):
            a, s = int(np.broadcast_to(x, out.shape)[pos]), int(np.broadcast_to(y, out.shape)[pos])
            if not 0 <= s < bits:
                v = -1 if (not left and is_arithmetic and a < 0) else 0
            elif left:
                v = (a << s) & ((1 << bits) - 1)
            elif is_arithmetic:
                v = a >> s
            else:
                v = (a % (1 << bits)) >> s
            v %= 1 << bits
            out[pos] = np.array(v, np.uint64).astype(f"u{x.dtype.itemsize}").view(x.dtype)
        return out
    return ref


def _logspace_ref(Start, Stop, Num, Base, dtype=None, **_):
    d = {2: np.int32, 3: np.int64, 5: np.float32, 6: np.float64}[dtype]
    a, b, base = (float(np.asarray(v).astype(d)[0]) for v in (Start, Stop, Base))
    return (base ** np.linspace(a, b, int(Num[0]))).astype(d)


CASES = [
    OpCase("logit", {"X": U}, lambda X, **_: np.log(X / (1 - X)), attrs={"eps": 0.0}),
    OpCase("logit", {"X": np.array([[0.001, 0.3, 0.7, 0.9995]])},
           lambda X, eps, **_: np.log(np.clip(X, eps, 1 - eps) / (1 - np.clip(X, eps, 1 - eps))),
           attrs={"eps": 0.01}, name="eps"),
    OpCase("atan2", {"X1": A, "X2": R(3, 1)}, lambda X1, X2, **_: np.arctan2(X1, X2)),
    OpCase("atan2", {"X1": np.array([1, -2, 3], np.int32), "X2": np.array([2, 2, -1], np.int32)},
           lambda X1, X2, **_: np.arctan2(X1.astype(np.float32), X2.astype(np.float32)).astype(np.float64),
           name="int32"),
    OpCase("copysign", {"x": A, "y": R(4)}, lambda x, y, **_: np.copysign(x, y)),
    OpCase("copysign", {"x": np.array([1, -2, 3], np.int64), "y": np.array([-1, 5, -0], np.int64)},
           lambda x, y, **_: np.array([-1, 2, 3]), name="int64"),
    OpCase("elementwise_heaviside", {"X": np.array([[-1.5, 0.0, 2.0], [0.0, 3.0, -0.2]]), "Y": R(2, 3)},
           lambda X, Y, **_: np.where(X == 0, Y, (X > 0).astype(float)), grad=("Y",)),
    OpCase("elementwise_fmax", {"X": A, "Y": B}, lambda X, Y, **_: np.maximum(X, Y)),
    OpCase("elementwise_fmax", {"X": np.array([np.nan, 1.0, np.nan]), "Y": np.array([2.0, np.nan, np.nan])},
           lambda X, Y, **_: np.array([2.0, 1.0, np.nan]), name="nan", check_grad=False),
    OpCase("elementwise_fmin", {"X": A, "Y": B}, lambda X, Y, **_: np.minimum(X, Y)),
    OpCase("elementwise_fmin", {"X": np.array([4, 1, 7], np.int32), "Y": np.array([2, 5, 7], np.int32)},
           lambda X, Y, **_: np.array([2, 1, 7], np.int32), name="int32"),
    OpCase("nextafter", {"x": A, "y": B}, lambda x, y, **_: np.array(
        [[float(np.nextafter(a, b)) for a, b in zip(row, B)] for row in A])),
    OpCase("bitwise_left_shift", {"x": np.array([1, -3, 64, 5], np.int8), "y": np.array([1, 2, 1, 8], np.int8)},
           _shift_ref(True)),
    OpCase("bitwise_right_shift", {"x": np.array([[1, -3, -128, 5]], np.int32),
                                   "y": np.array([[1, 2, 33, -1]], np.int32)}, _shift_ref(False)),
    OpCase("bitwise_right_shift", {"x": np.array([1, -3, -128, 5], np.int8), "y": np.array([1, 2, 1, 8], np.int8)},
           _shift_ref(False), attrs={"is_arithmetic": False}, name="logical"),
    OpCase("logspace", {"Start": np.array([-1.5]), "Stop": np.array([3.7]), "Num": np.array([7], np.int32),
                        "Base": np.array([2.5])}, _logspace_ref, attrs={"dtype": 6}, rtol=1e-13),
    OpCase("logspace", {"Start": np.array([0.5]), "Stop": np.array([3.0]), "Num": np.array([5], np.int32),
                        "Base": np.array([3.3])}, lambda **_: np.array([1, 2, 5, 11, 27]), attrs={"dtype": 3},
           name="int64"),
    OpCase("trace", {"Input": R(3, 4)}, _trace_ref),
    OpCase("trace", {"Input": R(2, 3, 4)}, _trace_ref, attrs={"offset": 1, "axis1": -1, "axis2": 0}, name="3d"),
    OpCase("trace", {"Input": np.arange(12).reshape(3, 4)}, _trace_ref, attrs={"offset": -1}, name="int"),
    OpCase("mv", {"X": A, "Vec": B}, lambda X, Vec, **_: np.array([sum(r * Vec) for r in X])),
    OpCase("addmm", {"Input": R(4), "X": R(2, 3), "Y": R(3, 4)}, _mm_ref, attrs={"Beta": 0.5, "Alpha": 2.0}),
    OpCase("baddbmm", {"Input": R(1, 2, 1), "X": R(3, 2, 3), "Y": R(3, 3, 4)}, _mm_ref,
           attrs={"Beta": -1.0, "Alpha": 0.5}),
    OpCase("kthvalue", {"X": R(3, 5)}, _kth_ref, attrs={"k": 2}),
    OpCase("kthvalue", {"X": R(4, 3)}, _kth_ref, attrs={"k": 3, "axis": 0, "keepdim": True}, name="axis0_keep"),
    OpCase("nanmedian", {"X": NANS}, _nanmedian_ref, attrs={"axis": [1], "keepdim": False}, check_grad=False),
    OpCase("nanmedian", {"X": NANS}, _nanmedian_ref, attrs={"axis": [1], "mode": "min"}, name="min",
           check_grad=False),
    OpCase("nanmedian", {"X": R(3, 4)}, _nanmedian_ref, attrs={"axis": [1]}, name="grad"),
    OpCase("nanmedian", {"X": R(3, 3)}, _nanmedian_ref, attrs={"mode": "min", "keepdim": False}, name="all_min"),
]
