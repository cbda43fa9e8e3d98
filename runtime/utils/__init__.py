"""paddle.utils: unique_name and small helpers."""
from .. import unique_name  # noqa: F401
from . import download  # noqa: F401,E402
