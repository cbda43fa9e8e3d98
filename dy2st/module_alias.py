"""Paddle's module paths under the runtime packages: ``import dy2st.nn.functional.loss`` gives the module
``runtime.nn.functional.loss`` itself.

``dy2st.nn``, ``dy2st.nn.functional`` ... are aliases of runtime's packages (sys.modules entries made in
dy2st/__init__.py). Python would import a submodule of such an alias from the package's folder as a SECOND
copy named ``dy2st.nn.functional.loss``, whose relative imports (``from ...dispatch import run_op``) then
look for ``dy2st.dispatch`` and fail. This finder answers first, for any ``dy2st.<parent>.<leaf>`` whose
parent is a runtime module: it imports ``runtime.<parent>.<leaf>`` and registers that same module object
under the dy2st name, so Paddle's deep paths (``paddle.nn.functional.common``, ``paddle.nn.layer.conv``,
``paddle.optimizer.lr``) import and hold the classes and functions the rest of the package uses.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["install"]


class _AliasLoader(importlib.abc.Loader):
    """Hands back an already imported module (its name, spec and loader stay the runtime ones)."""

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class _RuntimeSubmoduleFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("dy2st."):
            return None
        parent_name, _, leaf = fullname.rpartition(".")
        parent = sys.modules.get(parent_name)
        real_parent = getattr(parent, "__name__", "")
        if parent is None or not (real_parent == "runtime" or real_parent.startswith("runtime.")):
            return None          # a dy2st package of its own (static, jit, base ...): ordinary import
        target_name = f"{real_parent}.{leaf}"
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as e:
            if e.name == target_name:
                return None      # no such runtime module: the ordinary "No module named" error follows
            raise
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module),
                                               is_package=hasattr(module, "__path__"))


_FINDER = _RuntimeSubmoduleFinder()


def _register_loaded():
    """Alias every runtime module ALREADY imported under an aliased parent. A package may bind a function
    over its submodule's name (runtime.amp's ``auto_cast`` function hides the ``auto_cast`` module); Python
    sets the parent's attribute to the module each time it loads a NEW module name, which would replace the
    function — but never for a name already in ``sys.modules``, so these are registered up front."""
    for name in sorted((n for n in list(sys.modules) if n.startswith("runtime.")), key=lambda n: n.count(".")):
        parent, _, leaf = name.rpartition(".")
        alias_parent = "dy2st" + parent[len("runtime"):]
        if sys.modules.get(alias_parent) is sys.modules.get(parent) is not None:
            sys.modules.setdefault(f"{alias_parent}.{leaf}", sys.modules[name])


def install():
    """Put the finder first on ``sys.meta_path`` (once) and alias the runtime modules loaded so far."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    _register_loaded()
