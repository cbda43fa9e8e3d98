"""The chi-squared distribution: Gamma(df / 2, 1 / 2)."""
from __future__ import annotations

import runtime as paddle

from ..api._helpers import is_var
from ..framework import in_dynamic_mode
from .distribution import dtype_name
from .gamma import Gamma

__all__ = ['Chi2']


class Chi2(Gamma):
    """Chi2(df) with ``df`` > 0 degrees of freedom."""

    def __init__(self, df):
        if not in_dynamic_mode() and not isinstance(df, float) and not is_var(df):
            raise TypeError(f"The type of 'df' in Chi2 must be float or Tensor, but received {type(df)}.")
        if self._validate_args(df):
            self.df = df
            self.dtype = dtype_name(df.dtype)
        else:
            [self.df] = self._to_tensor(df)
            self.dtype = paddle.get_default_dtype()
        self.rate = paddle.full_like(self.df, 0.5)
        if in_dynamic_mode() and not bool(paddle.all(self.df > 0)):
            raise ValueError('The arg of `df` must be positive.')
        super().__init__(self.df * 0.5, self.rate)
