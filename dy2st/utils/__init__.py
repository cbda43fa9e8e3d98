"""``paddle.utils``: ``try_import``, ``deprecated``, ``run_check``, ``require_version``, ``unique_name``,
``download``, ``dlpack``, the nested-structure helpers (``flatten``, ``map_structure``,
``pack_sequence_as`` ... from `layers_utils`), ``environments`` and ``gast`` (the AST library
Paddle's dy2st code and tests use, here the installed ``gast`` package itself).

Re-exports `runtime.utils`: ``dy2st.utils.download is runtime.utils.download``.
"""
from __future__ import annotations

import types as _types

import gast  # noqa: F401

import runtime.utils as _impl

globals().update({k: v for k, v in vars(_impl).items() if not k.startswith("_")})

from . import dlpack, environments, unique_name  # noqa: F401,E402
from .deprecated import deprecated  # noqa: E402
from .install_check import require_version, run_check  # noqa: E402
from .lazy_import import try_import  # noqa: E402
from .environments import strtobool  # noqa: E402,F401
from .layers_utils import (  # noqa: E402,F401
    assert_same_structure, check_shape, convert_shape_to_list, convert_to_list, copy_mutable_vars, flatten,
    hold_mutable_vars, is_same_shape, is_sequence, map_structure, pack_sequence_as, padding_to_same_structure,
    to_sequence)

__all__ = sorted({*(k for k, v in vars(_impl).items()
                    if not k.startswith("_") and not isinstance(v, _types.ModuleType)),
                  "unique_name", "download", "environments", "gast", "dlpack",
                  "deprecated", "run_check", "require_version", "try_import"})
