"""``paddle.jit.dy2static.utils``: helpers Paddle's converted code and tests use.

``UndefinedVar`` (a name not defined on every path), ``saw`` (its check), ``ast_to_source_code``,
``func_to_source_code``, ``Dygraph2StaticException`` (our `Dy2StaticError`: conversion failed), and
the Backend / CUDA-graph names, whose CINN and CUDA parts have no meaning here.
"""
from __future__ import annotations

import ast
import contextlib
import enum
import functools
import inspect
import linecache
import textwrap

import gast

from ...errors import Dy2StaticError as Dygraph2StaticException  # noqa: F401
from ...undefined import UndefinedVar, is_undefined, undefined_name
from .ast_utils import ast_to_source_code  # noqa: F401

__all__ = ["UndefinedVar", "saw", "ast_to_source_code", "ast_to_func", "func_to_source_code",
           "Dygraph2StaticException", "Backend", "CUDAGraphState", "is_paddle_func", "as_not_paddle_func", "type_name",
           "cinn_is_available", "cinn_is_enabled", "backend_guard", "GetterSetterHelper", "ORIGIN_INFO"]

ORIGIN_INFO = "Original information of source code for ast node."   # the attribute origin_info attaches


def saw(x):
    """``x``, unless it is an UndefinedVar: then UnboundLocalError naming the variable."""
    if is_undefined(x):
        raise UnboundLocalError(f"local variable '{undefined_name(x)}' should be created before using it.")
    return x


def func_to_source_code(function, dedent=True):
    """The source of a function or method, comment lines blanked (so line numbers stay)."""
    if isinstance(function, functools.partial):
        function = function.func
    if not (inspect.isfunction(function) or inspect.ismethod(function)):
        raise TypeError(f"The type of 'function' should be a function or method, but received "
                        f"{type(function).__name__}.")
    lines, _ = inspect.getsourcelines(function)
    source = "".join(line if not line.lstrip().startswith("#") else "\n" for line in lines)
    return textwrap.dedent(source) if dedent else source


def ast_to_func(ast_root, dyfunc, delete_on_exit=True):
    """Compile ``ast_root`` (a gast or ast module holding the definition of ``dyfunc``) into a function
    that sees ``dyfunc``'s globals and closure values; returns ``(function, source file name)``. The
    source is registered with linecache (no file is written)."""
    bad_root = not isinstance(ast_root, (gast.AST, ast.AST))
    if not (inspect.isfunction(dyfunc) or inspect.ismethod(dyfunc)):
        # checked first, with Python's message (Paddle reads the function's closure before anything else)
        also = (f"; also, the type of ast_root should be gast.AST or ast.AST, but received {type(ast_root)}"
                if bad_root else "")
        raise TypeError(f"{dyfunc!r} is not a Python function{also}")
    if bad_root:
        raise TypeError(f"Type of ast_root should be gast.AST or ast.AST, but received {type(ast_root)}.")
    source = ast_to_source_code(ast_root)
    name = getattr(dyfunc, "__name__", "function")
    filename = f"<dy2st ast_to_func {name} {id(ast_root):x}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    target = dyfunc.__func__ if inspect.ismethod(dyfunc) else dyfunc
    namespace = dict(target.__globals__)
    if target.__closure__:
        for var, cell in zip(target.__code__.co_freevars, target.__closure__):
            try:
                namespace[var] = cell.cell_contents
            except ValueError:      # a cell not filled yet
                pass
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name], filename


def as_not_paddle_func(path):
    """Paddle's switch to convert one of its own functions as user code: which calls are converted
    is not configurable here (framework functions run as they are; calls of the sublayers of
    Sequential / LayerList and user Layers are converted), so this raises NotImplementedError."""
    raise NotImplementedError(f"paddle.jit.dy2static.utils.as_not_paddle_func({path!r}): dy2st does not convert "
                              "framework functions; layer containers already convert the calls of their sublayers")


def type_name(v):
    return type(v).__name__


def is_paddle_func(func, ignore_white_list=True):
    """Whether ``func`` is part of the framework (converted code calls it as it is)."""
    from ...call_conversion import _is_library
    return bool(_is_library(func))


class Backend(enum.Enum):
    """to_static backends: ``PHI`` (ours: the executor) and ``CINN`` (Paddle's compiler, not here)."""
    CINN = "CINN"
    PHI = "PHI"

    @staticmethod
    def from_arg(arg):
        if isinstance(arg, Backend):
            arg = arg.value
        if arg is None or (isinstance(arg, str) and arg.upper() == "PHI"):
            return Backend.PHI
        if isinstance(arg, str) and arg.upper() == "CINN":
            raise NotImplementedError("backend='CINN': Paddle's CINN compiler is not part of dy2st; "
                                      "Programs run on dy2st's own executor (backend=None)")
        raise ValueError(f"Unknown backend {arg}. Only support 'CINN' or None for PHI.")

    def is_cinn(self):
        return self is Backend.CINN

    def is_phi(self):
        return self is Backend.PHI


class CUDAGraphState(enum.IntEnum):
    """Paddle's CUDA-graph capture states; there is no CUDA here, the names exist for imports."""
    DISABLE = 0
    WARMUP = 1
    CAPTURE = 2
    REPLAY = 3


def cinn_is_available():
    """False: Paddle's CINN compiler is not part of dy2st."""
    return False


def cinn_is_enabled(build_strategy, backend):
    return False


@contextlib.contextmanager
def backend_guard(backend):
    """Run the block for ``backend``: the executor's (PHI, None) needs nothing; CINN raises."""
    Backend.from_arg(backend)
    yield


class GetterSetterHelper:
    """Reads and writes a group of variables through one getter/setter pair by name.

    ``getter()`` returns the current values of the sorted union of ``name_lists`` (loop variables plus
    push/pop names in Paddle's converted while/cond code); ``setter(values)`` stores a full new list.
    ``get(names)`` picks values by name, ``set(names, values)`` replaces some of them and writes back.
    """

    def __init__(self, getter_func, setter_func, *name_lists):
        union = []
        for names in name_lists:
            for name in names or ():
                if name not in union:
                    union.append(name)
        self._union = sorted(union)
        self.getter = getter_func
        self.setter = setter_func
        self.name2id = {name: i for i, name in enumerate(self._union)}

    def union(self):
        return self._union

    def _check(self, names):
        for name in names:
            if name not in self.name2id:
                raise AssertionError(f"GetterSetterHelper: the name `{name}` is not in the name union set "
                                     f"{list(self.name2id)}; pass it in one of the name lists at construction")

    def get(self, names):
        names = names or []
        values = self.getter()
        if values is None:
            return ()
        self._check(names)
        return tuple(values[self.name2id[n]] for n in names)

    def set(self, names, values):
        names = names or []
        values = values or []
        current = self.getter()
        if current is None:
            return
        self._check(names)
        current = list(current)
        for name, value in zip(names, values):
            current[self.name2id[name]] = value
        self.setter(current)
