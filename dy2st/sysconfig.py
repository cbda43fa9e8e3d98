"""``paddle.sysconfig``: where the package's C headers and libraries would be, for building C++ extensions.

dy2st is pure Python (numpy kernels): it ships no headers or shared libraries, so these return the paths
inside the installed package where Paddle keeps them (``<package>/include``, ``<package>/libs``), which do
not exist here; a C++ extension build against them fails with a missing-header error.
"""
from __future__ import annotations

import os

__all__ = ["get_include", "get_lib"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def get_include():
    """The directory of the package's C header files (``<package>/include``)."""
    return os.path.join(_PACKAGE_DIR, "include")


def get_lib():
    """The directory of the package's shared libraries (``<package>/libs``)."""
    return os.path.join(_PACKAGE_DIR, "libs")
