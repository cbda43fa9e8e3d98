"""Special functions in numpy float64, written here because there is no scipy: digamma, Hurwitz zeta
(for polygamma), lgamma, the regularized incomplete gamma functions, erfinv, and the modified Bessel
functions I0/I1 (plain and exponentially scaled). Each takes and returns float64 arrays and gives
IEEE special values (poles, infinities, NaN) the way Paddle 3.3.1's CPU kernels do (measured)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

_EPS = np.finfo(np.float64).eps


def _bernoulli_even(count):
    """B_2, B_4, ..., B_2count as exact fractions (Akiyama-Tanigawa)."""
    n_max = 2 * count
    a = [Fraction(0)] * (n_max + 1)
    out = {}
    for m in range(n_max + 1):
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out[m] = a[0]
    return [out[2 * k] for k in range(1, count + 1)]


_B2K = _bernoulli_even(14)
# digamma's asymptotic series: psi(y) ~ ln y - 1/(2y) - sum_k B_2k / (2k y^2k)
_PSI_COEF = [float(b / (2 * k)) for k, b in enumerate(_B2K[:8], start=1)]
# Euler-Maclaurin tail of the Hurwitz zeta function: (2j)! / B_2j, j = 1..12
_ZETA_A = [float(Fraction(math.factorial(2 * j)) / b) for j, b in enumerate(_B2K[:12], start=1)]


# -- digamma -------------------------------------------------------------------------------------

def digamma(x):
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        neg = x <= 0
        # reflection psi(x) = psi(1 - x) - pi / tan(pi x) for x <= 0 (exact at half-integers: 0)
        r = x - np.round(x)
        refl = np.where(np.abs(r) == 0.5, 0.0, math.pi / np.tan(math.pi * r))
        y = np.where(neg, 1.0 - x, x)
        acc = np.zeros_like(y)
        for _ in range(10):          # recurrence psi(y) = psi(y + 1) - 1/y up to y >= 10
            small = y < 10.0
            if not small.any():
                break
            acc = np.where(small, acc - 1.0 / y, acc)
            y = np.where(small, y + 1.0, y)
        inv2 = 1.0 / (y * y)
        series = np.zeros_like(y)
        for c in reversed(_PSI_COEF):
            series = (series + c) * inv2
        res = np.log(y) - 0.5 / y - series + acc
        res = np.where(neg, res - refl, res)
        out[...] = res
        out[(x == 0) & ~np.signbit(x)] = -np.inf
        out[(x == 0) & np.signbit(x)] = np.inf
        out[neg & (x == np.floor(x)) & (x != 0)] = np.nan
        out[x == np.inf] = np.inf
    return out


# -- Hurwitz zeta and polygamma ------------------------------------------------------------------

def hurwitz_zeta(s, q):
    """zeta(s, q) = sum_k (q + k)^-s for a real s > 1 (Euler-Maclaurin after the terms up to q + k > 9)."""
    q = np.asarray(q, dtype=np.float64)
    s = float(s)
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == np.floor(q))          # includes -inf
        bad = np.isnan(q) | (q == np.inf)
        ok = ~(pole | bad)
        a = np.where(ok, q, 2.0)
        total = a ** -s
        i = 0
        while True:
            need = (a <= 9.0) | (i < 9)
            if not need.any():
                break
            a = np.where(need, a + 1.0, a)
            total = total + np.where(need, a ** -s, 0.0)
            i += 1
        b = a ** -s
        total = total + b * a / (s - 1.0) - 0.5 * b
        fac, k = 1.0, 0.0
        for coef in _ZETA_A:
            fac *= s + k
            b = b / a
            total = total + fac * b / coef
            k += 1.0
            fac *= s + k
            b = b / a
            k += 1.0
        out = np.where(ok, total, 0.0)
        out = np.where(pole, np.inf, out)
        out = np.where(bad, np.nan, out)
    return out


def polygamma(n, x):
    """psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1."""
    n = int(n)
    if n == 0:
        return digamma(x)
    sign = 1.0 if n % 2 else -1.0
    with np.errstate(all="ignore"):
        return sign * math.exp(math.lgamma(n + 1.0)) * hurwitz_zeta(n + 1, x)


# -- lgamma --------------------------------------------------------------------------------------

def _lgamma_scalar(v):
    if v != v:
        return v
    if math.isinf(v):
        return math.inf
    if v <= 0 and v == math.floor(v):
        return math.inf          # poles (and -inf), as C's lgamma
    return math.lgamma(v)


_lgamma_vec = np.frompyfunc(_lgamma_scalar, 1, 1)


def lgamma(x):
    x = np.asarray(x, dtype=np.float64)
    return np.asarray(_lgamma_vec(x), dtype=np.float64).reshape(x.shape)


# -- regularized incomplete gamma ----------------------------------------------------------------

_MAX_ITER = 5000


def _log_prefactor(a, x):
    return a * np.log(x) - x - lgamma(a)


def _igam_series(a, x):
    """P(a, x) by its power series (for x < a or x < 1)."""
    term = np.ones_like(x)
    total = np.ones_like(x)
    r = a.copy()
    for _ in range(_MAX_ITER):
        r = r + 1.0
        term = term * x / r
        total = total + term
        if np.all(np.abs(term) <= np.abs(total) * _EPS * 0.5):
            break
    return total * np.exp(_log_prefactor(a, x)) / a


def _igamc_cfrac(a, x):
    """Q(a, x) by its continued fraction (modified Lentz), for x >= max(a, 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = np.full_like(x, 1.0 / tiny)
    d = 1.0 / b
    h = d.copy()
    for i in range(1, _MAX_ITER):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1.0) <= _EPS):
            break
    return h * np.exp(_log_prefactor(a, x))


def gammaincc(a, x):
    """The regularized upper incomplete gamma Q(a, x); 1 where a <= 0 or x <= 0 (as Paddle's kernel)."""
    a, x = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
    out = np.ones(a.shape, dtype=np.float64)
    with np.errstate(all="ignore"):
        nan = np.isnan(a) | np.isnan(x)
        inside = (a > 0) & (x > 0) & ~nan
        series = inside & ((x < 1.0) | (x < a))
        frac = inside & ~series
        if series.any():
            out[series] = 1.0 - _igam_series(a[series], x[series])
        if frac.any():
            xa, xx = a[frac], x[frac]
            res = np.zeros_like(xx)
            fin = np.isfinite(xx)
            if fin.any():
                res[fin] = _igamc_cfrac(xa[fin], xx[fin])
            out[frac] = res
        out[nan] = np.nan
    return out


def gammaincc_dx(a, x):
    """d Q(a, x) / dx = -x^(a-1) e^-x / Gamma(a)."""
    with np.errstate(all="ignore"):
        return -np.exp((a - 1.0) * np.log(x) - x - lgamma(a))


# -- erfinv --------------------------------------------------------------------------------------

_erf = np.frompyfunc(math.erf, 1, 1)
_erfc = np.frompyfunc(math.erfc, 1, 1)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _erfinv_guess(y):
    """Giles' single-precision approximation of erfinv, a start for Newton's method."""
    w = -np.log((1.0 - y) * (1.0 + y))
    central = w < 5.0
    wc = w - 2.5
    p = np.full_like(y, 2.81022636e-08)
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p = c + p * wc
    wt = np.sqrt(np.where(central, 5.0, w)) - 3.0
    q = np.full_like(y, -0.000200214257)
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        q = c + q * wt
    return np.where(central, p, q) * y


def erfinv(y):
    """erf^-1(y); +-inf at and beyond +-1 (as Paddle's kernel), NaN for NaN."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(all="ignore"):
        # Paddle computes erfinv(y) as ndtri((y + 1) / 2) / sqrt(2): y takes the rounding of y + 1
        # (erfinv(1e-20) is 0 there); invert exactly what it inverts, so the two agree to ~1e-15
        y = np.where(np.isfinite(y), (y + 1.0) - 1.0, y)
        ay = np.abs(y)
        inner = ay < 1.0
        a = np.where(inner, ay, 0.5)
        x = _erfinv_guess(a)
        tail = a > 0.5
        comp = 1.0 - a                      # exact for a in [0.5, 1] (Sterbenz)
        for _ in range(3):
            deriv = _TWO_OVER_SQRT_PI * np.exp(-x * x)
            # residual in erfc form near 1, where erf(x) has no digits left to compare
            resid = np.where(tail, comp - np.asarray(_erfc(x), dtype=np.float64),
                             np.asarray(_erf(x), dtype=np.float64) - a)
            x = x - resid / deriv
        out = np.copysign(x, y)
        out = np.where(inner, out, np.copysign(np.inf, y))
        out = np.where(np.isnan(y), np.nan, out)
        out = np.where(y == 0, y, out)
    return out


# -- modified Bessel functions I0, I1 ------------------------------------------------------------

_ASYMPTOTIC_FROM = 30.0


def _bessel_series(x, order):
    """I_order(x) (order 0 or 1) by its power series; every term is positive, so no cancellation."""
    h = 0.5 * x
    h2 = h * h
    term = np.ones_like(x) if order == 0 else h.copy()
    total = term.copy()
    for k in range(1, 200):
        term = term * h2 / (k * (k + order))
        total = total + term
        if np.all(term <= total * _EPS * 0.25):
            break
    return total


def _bessel_scaled_asymptotic(x, order):
    """e^-x I_order(x) for large x: 1/sqrt(2 pi x) sum_k (-1)^k prod_j (4 n^2 - (2j-1)^2) / (k! (8x)^k)."""
    mu = 4.0 * order * order
    term = np.ones_like(x)
    total = term.copy()
    prev = np.full_like(x, np.inf)
    for k in range(1, 60):
        term = term * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        shrinking = np.abs(term) < prev        # stop each element where the series starts to diverge
        total = total + np.where(shrinking, term, 0.0)
        prev = np.where(shrinking, np.abs(term), 0.0)
        if not shrinking.any() or np.all(np.abs(term) <= np.abs(total) * _EPS * 0.25):
            break
    return total / np.sqrt(2.0 * math.pi * x)


def _bessel_scaled(x, order):
    """e^-|x| I_order(|x|) for |x| (non-negative input)."""
    out = np.empty_like(x)
    small = x < _ASYMPTOTIC_FROM
    if small.any():
        xs = x[small]
        out[small] = _bessel_series(xs, order) * np.exp(-xs)
    if (~small).any():
        out[~small] = _bessel_scaled_asymptotic(x[~small], order)
    return out


def i0e(x):
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        fin = np.isfinite(ax)
        out = np.where(np.isnan(x), np.nan, 0.0)     # +-inf -> 0
        out[fin] = _bessel_scaled(ax[fin], 0)
    return out


def i0(x):
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        fin = np.isfinite(ax)
        out = np.full_like(x, np.nan)                 # +-inf -> nan (as Paddle's Chebyshev kernel)
        small = fin & (ax < _ASYMPTOTIC_FROM)
        out[small] = _bessel_series(ax[small], 0)
        big = fin & ~small
        out[big] = _bessel_scaled_asymptotic(ax[big], 0) * np.exp(ax[big])
    return out


def i1e(x):
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        fin = np.isfinite(ax)
        out = np.where(np.isnan(x), np.nan, np.copysign(0.0, x))
        out[fin] = np.copysign(_bessel_scaled(ax[fin], 1), x[fin])
    return out


def i1(x):
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        fin = np.isfinite(ax)
        out = np.full_like(x, np.nan)
        small = fin & (ax < _ASYMPTOTIC_FROM)
        out[small] = np.copysign(_bessel_series(ax[small], 1), x[small])
        big = fin & ~small
        out[big] = np.copysign(_bessel_scaled_asymptotic(ax[big], 1) * np.exp(ax[big]), x[big])
    return out
