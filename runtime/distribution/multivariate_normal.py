"""The MultivariateNormal distribution (covariance, precision or Cholesky-factor parameterisation)."""
from __future__ import annotations

import math

import runtime as paddle

from .distribution import Distribution, dtype_name, noise_shape


def _swap_last(x):
    perm = list(range(len(x.shape)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return x.transpose(perm)


def precision_to_scale_tril(P):
    """The lower Cholesky factor of P^-1, without inverting P: flip, Cholesky, flip back, triangular solve."""
    Lf = paddle.linalg.cholesky(paddle.flip(P, (-2, -1)))
    L_inv = _swap_last(paddle.flip(Lf, (-2, -1)))
    Id = paddle.eye(P.shape[-1], dtype=P.dtype)
    return paddle.linalg.triangular_solve(L_inv, Id, upper=False)


def batch_mahalanobis(bL, bx):
    """x^T (L L^T)^-1 x for batched lower-triangular L and vectors x (batch shapes broadcast)."""
    batch = list(paddle.broadcast_shape(list(bL.shape[:-2]), list(bx.shape[:-1])))
    n = bx.shape[-1]
    L = bL.expand(batch + [n, n]) if list(bL.shape[:-2]) != batch else bL
    x = bx.expand(batch + [n]) if list(bx.shape[:-1]) != batch else bx
    sol = paddle.linalg.triangular_solve(L, x.unsqueeze(-1), upper=False)
    return sol.squeeze(-1).pow(2).sum(-1)


class MultivariateNormal(Distribution):
    """MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril): exactly one matrix."""

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        self.dtype = paddle.get_default_dtype()
        if isinstance(loc, (float, int)):
            loc = paddle.to_tensor([loc], dtype=self.dtype)
        else:
            self.dtype = dtype_name(loc.dtype)
        if loc.dim() < 1:
            loc = loc.reshape((1,))
        self.covariance_matrix = None
        self.precision_matrix = None
        self.scale_tril = None
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError('Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.')
        given = scale_tril if scale_tril is not None else (
            covariance_matrix if covariance_matrix is not None else precision_matrix)
        what = 'scale_tril matrix' if scale_tril is not None else (
            'covariance_matrix' if covariance_matrix is not None else 'precision_matrix')
        if given.dim() < 2:
            raise ValueError(f'{what} must be at least two-dimensional, with optional leading batch dimensions')
        given = paddle.cast(given, dtype=self.dtype)
        batch_shape = tuple(paddle.broadcast_shape(list(given.shape[:-2]), list(loc.shape[:-1])))
        if -1 in batch_shape:   # a static dimension unknown until run time: broadcast by adding zeros
            expanded = given + paddle.zeros_like(loc).unsqueeze(-1)
        else:
            expanded = given.expand([*batch_shape, given.shape[-2], given.shape[-1]])
        if scale_tril is not None:
            self.scale_tril = expanded
            self._unbroadcasted_scale_tril = given
        elif covariance_matrix is not None:
            self.covariance_matrix = expanded
            self._unbroadcasted_scale_tril = paddle.linalg.cholesky(given)
        else:
            self.precision_matrix = expanded
            self._unbroadcasted_scale_tril = precision_to_scale_tril(given)
        self.loc = loc + paddle.zeros_like(given[..., 0]) if -1 in batch_shape else loc.expand([*batch_shape, -1])
        super().__init__(batch_shape, self.loc.shape[-1:])

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return paddle.square(self._unbroadcasted_scale_tril).sum(-1).expand(
            list(self._batch_shape + self._event_shape))

    def sample(self, shape=()):
        with paddle.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """loc + L eps with eps standard normal."""
        if not isinstance(shape, (list, tuple)):
            raise TypeError('sample shape must be Sequence object.')
        eps = paddle.randn(noise_shape(self.loc, tuple(shape)), dtype=self.dtype)
        return self.loc + paddle.matmul(self._unbroadcasted_scale_tril, eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self, L):
        return L.diagonal(axis1=-2, axis2=-1).log().sum(-1)

    def log_prob(self, value):
        value = paddle.cast(value, dtype=self.dtype)
        M = batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det(
            self._unbroadcasted_scale_tril)

    def prob(self, value):
        return paddle.exp(self.log_prob(value))

    def entropy(self):
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det(
            self._unbroadcasted_scale_tril)
        return H if len(self._batch_shape) == 0 else H.expand(list(self._batch_shape))

    def kl_divergence(self, other):
        if self._batch_shape != other._batch_shape and self._event_shape != other._event_shape:
            raise ValueError('KL divergence of two Multivariate Normal distributions should share the same '
                             '`batch_shape` and `event_shape`.')
        L1, L2 = self._unbroadcasted_scale_tril, other._unbroadcasted_scale_tril
        cov1 = paddle.matmul(L1, _swap_last(L1))
        cov2 = paddle.matmul(L2, _swap_last(L2))
        expectation = paddle.linalg.solve(cov2, cov1).diagonal(axis1=-2, axis2=-1).sum(-1)
        expectation = expectation + batch_mahalanobis(L2, self.loc - other.loc)
        return self._half_log_det(L2) - self._half_log_det(L1) + 0.5 * (expectation - self._event_shape[0])
