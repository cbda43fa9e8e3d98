"""paddle.utils: unique_name and small helpers."""
from .. import unique_name  # noqa: F401
