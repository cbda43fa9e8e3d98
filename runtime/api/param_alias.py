"""Paddle 3's keyword aliases for API parameters (``paddle.clip(input=x)``, ``cumsum(x, dim=1)``,
``SmoothL1Loss()(input, target=y)``), as Paddle's ``param_one_alias`` / ``param_two_alias`` decorators give.

    @param_alias(x="input", axis="dim")
    def cumsum(x, axis=None, dtype=None, name=None): ...

A call that passes the alias keyword (and not the canonical one) is forwarded under the canonical
name; positional calls go straight through. Passing both names raises a TypeError naming the two.
The wrapper keeps the function's signature, name and docstring, so `inspect` and the Tensor-method
table see the original parameters.

A Layer's ``forward`` is not wrapped (the compiler converts built-in forwards from their source):
`forward_alias` only records the aliases on it, and ``Layer.__call__`` renames the keywords with
`rename_kwargs` before calling the (possibly converted) forward.
"""
import functools
import inspect


def param_alias(**aliases):
    """Decorator: accept each ``alias`` keyword as the parameter ``canonical`` (``canonical="alias"``)."""
    pairs = tuple(aliases.items())

    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if kwargs:
                _rename(pairs, kwargs, func.__name__)
            return func(*args, **kwargs)

        wrapper._param_aliases = dict(getattr(func, "_param_aliases", {}), **aliases)
        # no __wrapped__: paddle.jit.to_static(paddle.clip) reads (and converts) this wrapper's own def,
        # which calls the original unconverted, as a library function
        del wrapper.__wrapped__
        try:
            wrapper.__signature__ = inspect.signature(func)
        except (TypeError, ValueError):
            pass
        return wrapper

    return decorate


def _rename(pairs, kwargs, fname):
    for canonical, alias in pairs:
        if alias in kwargs:
            if canonical in kwargs:
                raise TypeError(f"{fname}() got both '{canonical}' and its alias '{alias}'; pass only one of them")
            kwargs[canonical] = kwargs.pop(alias)


def forward_alias(**aliases):
    """Decorator for a Layer's ``forward``: record ``canonical="alias"`` pairs (the function is unchanged)."""
    def tag(func):
        func._param_aliases = dict(getattr(func, "_param_aliases", {}), **aliases)
        return func
    return tag


def rename_kwargs(layer, kwargs):
    """The keywords of a call of ``layer`` with the aliases its class's ``forward`` records renamed."""
    aliases = getattr(type(layer).forward, "_param_aliases", None)
    if aliases:
        kwargs = dict(kwargs)
        _rename(tuple(aliases.items()), kwargs, type(layer).__name__ + ".forward")
    return kwargs
