"""The LKJ distribution over Cholesky factors of correlation matrices (onion and C-vine samplers)."""
from __future__ import annotations

import math

import numpy as np

import runtime as paddle

from ..api._helpers import is_var
from ..framework import in_dynamic_mode
from .beta import Beta
from .distribution import Distribution, dtype_name

__all__ = ['LKJCholesky']


def mvlgamma(a, p):
    """The multivariate log-gamma function of dimension ``p``, elementwise in ``a``."""
    j = paddle.arange(1, p + 1, dtype=a.dtype)
    return p * (p - 1) / 4 * math.log(math.pi) + paddle.sum(paddle.lgamma(a.unsqueeze(-1) + (1 - j) / 2), axis=-1)


def _strict_tril_gather_index(dim):
    """For a dim x dim matrix: index into [vec..., 0] of each entry (row-major strict lower part, else the 0)."""
    m = dim * (dim - 1) // 2
    index = np.full((dim, dim), m, dtype='int64')
    rows, cols = np.tril_indices(dim, -1)
    index[rows, cols] = np.arange(m)
    return index.reshape(-1)


def vec_to_tril_matrix(vec, dim):
    """[..., dim*(dim-1)/2] strictly-lower-triangular entries (row-major) as [..., dim, dim] matrices."""
    padded = paddle.concat([vec, paddle.zeros(list(vec.shape[:-1]) + [1], dtype=vec.dtype)], axis=-1)
    index = paddle.to_tensor(_strict_tril_gather_index(dim))
    return paddle.gather(padded, index, axis=-1 if vec.dim() == 1 else vec.dim() - 1).reshape(
        list(vec.shape[:-1]) + [dim, dim])


class LKJCholesky(Distribution):
    """LKJCholesky(dim, concentration, sample_method): density of L with L L^T a correlation matrix,
    proportional to det(L L^T)^(concentration - 1)."""

    def __init__(self, dim=2, concentration=1.0, sample_method='onion'):
        if not in_dynamic_mode():
            if not isinstance(dim, int) and not is_var(dim):
                raise TypeError(f"The type of 'dim' in LKJCholesky must be int, but received {type(dim)}.")
        if self._validate_args(concentration):
            self.concentration = concentration
            self.dtype = dtype_name(concentration.dtype)
        else:
            [self.concentration] = self._to_tensor(concentration)
            self.dtype = paddle.get_default_dtype()
        self.dim = dim
        if not self.dim >= 2:
            raise ValueError(f'Expected dim greater than or equal to 2. Found dim={dim}.')
        if not isinstance(self.dim, int):
            raise TypeError(f'Expected dim to be an integer. Found dim={dim}.')
        if in_dynamic_mode() and not bool(paddle.all(self.concentration > 0)):
            raise ValueError('The arg of `concentration` must be positive.')
        self.sample_method = sample_method
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = paddle.arange(self.dim - 1, dtype=self.concentration.dtype)
        if sample_method == 'onion':
            offset = paddle.concat([paddle.zeros((1,), dtype=offset.dtype), offset])
            self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        elif sample_method == 'cvine':
            # entry (i, j), i > j, of the partial-correlation matrix has concentration marginal - j/2
            cols = np.tril_indices(self.dim, -1)[1].astype(dtype_name(self.concentration.dtype))
            beta_conc = marginal_conc.unsqueeze(-1) - 0.5 * paddle.to_tensor(cols)
            self._beta = Beta(beta_conc, beta_conc)
        else:
            raise ValueError("`method` should be one of 'cvine' or 'onion'.")
        super().__init__(self.concentration.shape, (dim, dim))

    def _onion(self, sample_shape):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u = paddle.randn(list(self._extend_shape(sample_shape)), dtype=y.dtype).tril(-1)
        # row 0 is all zeros; its normalisation would be 0/0, so divide by 1 there
        norm = u.norm(axis=-1, keepdim=True)
        u = u / paddle.where(norm > 0, norm, paddle.ones_like(norm))
        w = paddle.sqrt(y) * u
        tiny = float(np.finfo(dtype_name(w.dtype)).tiny)
        diag = paddle.clip(1 - paddle.sum(w ** 2, axis=-1), min=tiny).sqrt()
        return w + paddle.diag_embed(diag)

    def _cvine(self, sample_shape):
        m = self.dim * (self.dim - 1) // 2
        # Beta.sample squeezes a trailing axis of size 1 (dim 2): restore the [..., m] layout
        partial = (2 * self._beta.sample(sample_shape) - 1).reshape(
            list(sample_shape) + list(self.concentration.shape) + [m])
        partial = vec_to_tril_matrix(partial, self.dim)
        tiny = float(np.finfo(dtype_name(partial.dtype)).tiny)
        r = paddle.clip(partial, min=-1 + tiny, max=1 - tiny)
        z1m_cumprod_sqrt = paddle.cumprod(paddle.sqrt(1 - r ** 2), dim=-1)
        pad = [0, 0] * (z1m_cumprod_sqrt.ndim - 1) + [1, 0]
        shifted = paddle.nn.functional.pad(z1m_cumprod_sqrt[..., :-1], pad=pad, mode='constant', value=1.0)
        r = r + paddle.eye(self.dim, self.dim, dtype=r.dtype)
        return r * shifted

    def sample(self, sample_shape=()):
        """Lower-triangular Cholesky factors of shape ``sample_shape + batch_shape + [dim, dim]``."""
        if not isinstance(sample_shape, (list, tuple)):
            raise TypeError('sample shape must be Sequence object.')
        sample_shape = tuple(sample_shape)
        with paddle.no_grad():
            res = self._onion(sample_shape) if self.sample_method == 'onion' else self._cvine(sample_shape)
        return res.reshape(list(sample_shape) + list(self.concentration.shape) + [self.dim, self.dim])

    def log_prob(self, value):
        diag_elems = paddle.diagonal(value, offset=0, axis1=-1, axis2=-2)[..., 1:]
        order = paddle.arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = paddle.sum(order * paddle.log(diag_elems), axis=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalize_term = 0.5 * dm1 * math.log(math.pi) + mvlgamma(alpha - 0.5, dm1) - paddle.lgamma(alpha) * dm1
        return unnormalized - normalize_term
