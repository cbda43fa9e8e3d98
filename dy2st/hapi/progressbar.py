"""``paddle.hapi.progressbar.ProgressBar``: the step counter, bar, metrics and ETA that fit/evaluate print.

On a terminal (verbose=1) one line is redrawn in place with ``\\r``; when the output is a pipe or a
file every update is a plain line of its own (Paddle redraws in place whenever ``posix`` is loaded,
which leaves backspaces and carriage returns in log files: here only a real terminal, Jupyter or
PyCharm gets the live bar).
"""
from __future__ import annotations

import os
import shutil
import sys
import time

import numpy as np

__all__ = []


def _format_value(v):
    """A metric value as Paddle prints it: 4 decimals, or scientific notation for tiny values."""
    if isinstance(v, np.ndarray) and v.size == 1 and v.dtype in (np.float32, np.float64):
        v = v.item()
    if isinstance(v, (float, np.floating)):
        return f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"
    return f" {v}"


def _format_values(values):
    out = ""
    for key, val in values:
        out += f" - {key}:"
        for v in (val if isinstance(val, list) else [val]):
            out += _format_value(v)
    return out


def _format_eta(seconds):
    if seconds > 3600:
        return f"{seconds // 3600}:{(seconds % 3600) // 60:02}:{seconds % 60:02}"
    if seconds > 60:
        return f"{seconds // 60}:{seconds % 60:02}"
    return f"{seconds}s"


class ProgressBar:
    """``ProgressBar(num=None, width=30, verbose=1, start=True, file=sys.stdout, name='step')``.

    ``update(current_num, values)`` shows step ``current_num`` of ``num`` with ``values``, a list of
    ``(name, value or list of values)``. verbose=1: a bar with ETA; verbose=2 or 3: one line per update.
    """

    def __init__(self, num=None, width=30, verbose=1, start=True, file=None, name="step"):
        if isinstance(num, int) and num <= 0:
            raise TypeError("num should be None or integer (> 0)")
        self._num = num
        self._width = min(width, self._get_max_width())
        self._total_width = 0
        self._verbose = verbose
        self.file = sys.stdout if file is None else file
        self._values = {}
        self._values_order = []
        self._start = time.time() if start else None
        self._last_update = 0
        self.name = name
        self._dynamic_display = ((hasattr(self.file, "isatty") and self.file.isatty())
                                 or "ipykernel" in sys.modules or "PYCHARM_HOSTED" in os.environ)

    @staticmethod
    def _get_max_width():
        columns = shutil.get_terminal_size().columns
        columns = columns if columns > 0 else 80
        return min(int(columns * 0.6), columns - 50)

    def start(self):
        self.file.flush()
        self._start = time.time()

    def _time_per_unit(self, now, current_num):
        if self._start is None:
            self._start = now
        return (now - self._start) / current_num if current_num else 0

    def _speed(self, time_per_unit):
        if time_per_unit >= 1 or time_per_unit == 0:
            return f" - {time_per_unit:.0f}s/{self.name}"
        if time_per_unit >= 1e-3:
            return f" - {time_per_unit * 1e3:.0f}ms/{self.name}"
        return f" - {time_per_unit * 1e6:.0f}us/{self.name}"

    def _counter(self, current_num):
        digits = int(np.log10(self._num)) + 1
        return f"{self.name} {current_num:{digits}d}/{self._num}"

    def _bar(self, current_num):
        if self._num is None:
            return f"{self.name} {current_num:3}"
        filled = int(self._width * float(current_num) / self._num)
        bar = self._counter(current_num) + " ["
        if filled > 0:
            bar += "=" * (filled - 1) + (">" if current_num < self._num else "=")
        return bar + "." * (self._width - filled) + "]"

    def update(self, current_num, values=()):
        """Show step ``current_num`` with ``values`` (a list of ``(name, value)`` pairs)."""
        now = time.time()
        values = list(values)
        time_per_unit = self._time_per_unit(now, current_num)
        speed = self._speed(time_per_unit)
        out = self.file
        if self._verbose == 1:
            previous_width = self._total_width
            if self._dynamic_display:
                out.write("\b" * previous_width + "\r")
            bar = self._bar(current_num)
            info = _format_values(values)
            if self._num is not None and current_num < self._num:
                info += " - ETA: " + _format_eta(int(time_per_unit * (self._num - current_num)))
            info += speed
            self._total_width = len(bar) + len(info)
            if self._dynamic_display:
                # blank out what is left of a longer previous line
                info += " " * max(0, previous_width - self._total_width)
                if self._num is None or current_num >= self._num:
                    info += "\n"
            else:
                info += "\n"
            out.write(bar + info)
            out.flush()
            self._last_update = now
        elif self._verbose in (2, 3):
            count = self._counter(current_num) if self._num else f"{self.name} {current_num:3}"
            out.write(count + _format_values(values) + speed + "\n")
            out.flush()
