"""``paddle.utils.try_import``: import an optional dependency, or fail with the pip command that installs it."""
from __future__ import annotations

import importlib

__all__ = ["try_import"]

# import names whose pip distribution is called otherwise
_PIP_NAMES = {"cv2": "opencv-python", "PIL": "Pillow", "sklearn": "scikit-learn", "yaml": "pyyaml"}


def try_import(module_name, err_msg=None):
    """The module ``module_name``; an ImportError that says how to install it when it is missing
    (``err_msg`` replaces the message)."""
    if not isinstance(module_name, str) or not module_name:
        raise TypeError(f"try_import(): module_name must be a non-empty str, got {module_name!r}")
    top = module_name.split(".")[0]
    install_name = _PIP_NAMES.get(top, top)
    try:
        return importlib.import_module(module_name)
    except ImportError:
        if err_msg is None:
            err_msg = (f"Failed importing {module_name}. This likely means that some paddle modules "
                       "require additional dependencies that have to be "
                       f"manually installed (usually with `pip install {install_name}`). ")
        raise ImportError(err_msg) from None
