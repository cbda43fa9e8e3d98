"""Table rows for the special-function ops: digamma, polygamma, lgamma, gammaln, gammaincc, erfinv,
i0, i0e, i1, i1e. References are independent of the kernels: math.lgamma and its finite differences,
direct sums with an integral tail, bisection on math.erf, and 50-digit Decimal power series."""
import math
from decimal import Decimal, getcontext

import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(61)
POS = rng.uniform(0.2, 6.0, (2, 5))
MIXED = np.array([[-2.5, -0.7, 0.3, 1.0, 2.2], [4.5, 9.0, 12.5, 0.05, 31.0]])


def _vec(f):
    return lambda a: np.vectorize(f, otypes=[np.float64])(a)


def _digamma_ref(X, **_):
    # central difference of math.lgamma: psi(x) = d/dx log|Gamma(x)|
    h = 1e-5
    return _vec(lambda v: (math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h))(X)


def _polygamma_ref(x, n, **_):
    """(-1)^(n+1) n! sum_k (x + k)^-(n+1), summed to N then an Euler-Maclaurin integral tail."""
    def one(v):
        N = 2000
        s = sum((v + k) ** -(n + 1) for k in range(N))
        a = v + N
        s += a ** -n / n + 0.5 * a ** -(n + 1) + (n + 1) / 12 * a ** -(n + 2)
        return (-1) ** (n + 1) * math.factorial(n) * s
    return _vec(one)(x)


def _erfinv_ref(X, **_):
    def one(y):
        lo, hi = -6.0, 6.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if math.erf(mid) < y:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)
    return _vec(one)(X)


getcontext().prec = 50


def _bessel(order, v):
    if v == 0:
        return 1.0 if order == 0 else 0.0
    x = Decimal(abs(v))
    h = x / 2
    term = h ** order / math.factorial(order)
    total, k = term, 1
    while term > total * Decimal(10) ** -40 or k < 5:
        term = term * h * h / (k * (k + order))
        total += term
        k += 1
    return float(total) * (1 if v >= 0 or order == 0 else -1)


def _i_ref(order, scaled):
    def ref(x, **_):
        return _vec(lambda v: _bessel(order, v) * (math.exp(-abs(v)) if scaled else 1.0))(x)
    return ref


def _gammaincc_ref(x, y, **_):
    """1 - P(a, z), P by its power series summed in 50 digits: z^a e^-z sum_k z^k / Gamma(a + k + 1)."""
    def one(a, z):
        pref = Decimal(math.exp(a * math.log(z) - z - math.lgamma(a + 1)))
        term, total, k = Decimal(1), Decimal(1), 1
        zd, ad = Decimal(z), Decimal(a)
        while term > total * Decimal(10) ** -35:
            term = term * zd / (ad + k)
            total += term
            k += 1
        return float(1 - pref * total)
    return np.vectorize(one, otypes=[np.float64])(*np.broadcast_arrays(x, y))


CASES = [
    OpCase("digamma", {"X": MIXED}, _digamma_ref, rtol=1e-7, atol=1e-8),
    OpCase("digamma", {"X": np.array([1, 2, 7], np.int32)},
           lambda X, **_: _digamma_ref(X.astype(np.float64)).astype(np.float32), name="int32"),
    OpCase("lgamma", {"X": MIXED}, lambda X, **_: _vec(math.lgamma)(X), rtol=1e-12),
    OpCase("lgamma", {"X": np.array([[0.5, 3.0]], np.float32)},
           lambda X, **_: _vec(math.lgamma)(X.astype(np.float64)).astype(np.float32), name="float32",
           check_grad=False),
    OpCase("gammaln", {"x": POS}, lambda x, **_: _vec(math.lgamma)(x), rtol=1e-12),
    OpCase("polygamma", {"x": POS}, lambda x, n, **_: _polygamma_ref(x, n), attrs={"n": 1}, rtol=1e-10),
    OpCase("polygamma", {"x": MIXED}, lambda x, n, **_: _polygamma_ref(x, n), attrs={"n": 3}, name="n3_negative",
           rtol=1e-9, check_grad=False),
    OpCase("polygamma", {"x": POS + 1}, lambda x, n, **_: _polygamma_ref(x, n), attrs={"n": 3}, name="n3", rtol=1e-9),
    OpCase("erfinv", {"X": np.array([[-0.95, -0.3, 0.0], [0.1, 0.6, 0.999]])}, _erfinv_ref, rtol=1e-12, atol=1e-14),
    OpCase("i0", {"x": MIXED}, _i_ref(0, False), rtol=1e-13, name="wide", check_grad=False),
    OpCase("i0", {"x": MIXED / 4}, _i_ref(0, False), rtol=1e-13),
    OpCase("i0e", {"x": MIXED}, _i_ref(0, True), rtol=1e-13),
    OpCase("i1", {"x": MIXED}, _i_ref(1, False), rtol=1e-13, name="wide", check_grad=False),
    OpCase("i1", {"x": MIXED / 4}, _i_ref(1, False), rtol=1e-13),
    OpCase("i1e", {"x": MIXED}, _i_ref(1, True), rtol=1e-13),
    OpCase("i0", {"x": np.array([0, 3, -4], np.int64)},
           lambda x, **_: _i_ref(0, False)(x.astype(np.float64)).astype(np.float32), name="int64"),
    OpCase("gammaincc", {"x": np.array([[0.5, 1.0, 2.0], [3.5, 10.0, 40.0]]),
                         "y": np.array([[0.3, 2.0, 1.5], [5.0, 9.0, 38.0]])}, _gammaincc_ref, rtol=1e-11,
           atol=1e-14, grad=("y",)),
]
