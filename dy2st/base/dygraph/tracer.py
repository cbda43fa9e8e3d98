"""``paddle.base.dygraph.tracer.Tracer``: the eager-mode tracer object ``base.framework._dygraph_tracer()``
returns (None in static mode).

Eager ops run through `runtime.dispatch.run_op` here, so the tracer holds no op state; it exposes what
Paddle code reads from it: unique names for eager temporaries (one counter for every key, as Paddle's),
``_has_grad`` (whether ops record gradients, the switch ``paddle.no_grad`` turns off), the expected place
and the train/eval flag.
"""
from __future__ import annotations

import itertools

from runtime.device import CPUPlace
from runtime.framework import state

__all__ = ["Tracer"]


class Tracer:
    def __init__(self):
        self._names = itertools.count()
        self._train_mode = True

    def _generate_unique_name(self, key="dygraph_tmp"):
        return f"{key}_{next(self._names)}"

    @property
    def _has_grad(self):
        return state.grad_enabled

    @_has_grad.setter
    def _has_grad(self, value):
        state.grad_enabled = bool(value)

    @property
    def _expected_place(self):
        return CPUPlace()

    def train_mode(self):
        self._train_mode = True

    def eval_mode(self):
        self._train_mode = False


_TRACER = Tracer()


def current_tracer():
    """The tracer in eager mode, None while building a static Program (Paddle's ``_dygraph_tracer()``)."""
    return None if state.static else _TRACER
