"""The ``dy2st`` command: convert, export, inspect, run and onnx (see `dy2st.cli.main`)."""
from .main import main  # noqa: F401

__all__ = ["main"]
