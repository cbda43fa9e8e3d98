"""Strip the decorators of the function being converted.

Before::

    @paddle.jit.to_static(input_spec=[...])
    def forward(self, x): ...

After::

    def forward(self, x): ...

The decorators already ran when the user's module was imported (to_static made the
StaticFunction that is converting this code); re-applying them would convert twice.
"""
from __future__ import annotations


def transform(fn_node, ctx):
    fn_node.decorator_list = []
    return fn_node
