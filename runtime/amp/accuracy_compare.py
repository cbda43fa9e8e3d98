"""``paddle.amp.accuracy_compare``: read the tensor checker's dumps (``[PRECISION]`` lines in ``worker_*`` files).

`parse_lines` / `parse_log` read the dump format Paddle's checker writes (and dy2st's, which writes the
same lines: see runtime/amp/debugging.py) into `TensorInfo` records. `compare_accuracy` is Paddle's
fp32-vs-fp16 comparison into an Excel workbook: Paddle needs the third-party ``xlsxwriter`` for it and
dy2st does not reproduce that workbook's layout, so it raises a clear error instead of writing an
approximation.
"""
from __future__ import annotations

import os

import numpy as np

_FIELDS = {"op": ("op_type", str), "device": ("device", str), "tensor": ("tensor_name", str),
           "dtype": ("dtype", str), "numel": ("numel", np.int64), "max": ("max_value", np.float32),
           "min": ("min_value", np.float32), "mean": ("mean_value", np.float32), "num_inf": ("has_inf", int),
           "num_nan": ("has_nan", int), "num_zero": ("num_zero", np.int64)}


class TensorInfo:
    """One ``[PRECISION]`` line: op type, tensor name, dtype, numel, max/min/mean, inf/nan/zero counts."""

    def __init__(self):
        for attr, _ in _FIELDS.values():
            setattr(self, attr, None)

    def key(self):
        return f"{self.op_type}/{self.tensor_name}"

    def init_from_string(self, line):
        """Fill the fields from ``key=value`` words of ``line`` (brackets and commas ignored)."""
        for frag in line.strip().split(" "):
            words = frag.replace("[", "").replace("]", "").replace(",", "").split("=")
            field = _FIELDS.get(words[0])
            if field is not None and len(words) == 2:
                try:
                    setattr(self, field[0], field[1](words[1]))
                except ValueError:
                    print(f"!! Error parsing {line}")
        return self

    def __repr__(self):
        return (f"[TensorInfo] device={self.device}, op_type={self.op_type}, tensor_name={self.tensor_name}, "
                f"dtype={self.dtype}, numel={self.numel}, num_inf={self.has_inf}, num_nan={self.has_nan}, "
                f"num_zero={self.num_zero}, max_value={self.max_value}, min_value={self.min_value}, "
                f"mean_value={self.mean_value}")


def parse_lines(lines, specified_op_list=None):
    """The `TensorInfo` of every ``[PRECISION]`` line (only of ``specified_op_list``'s ops when given)."""
    infos = []
    for line in lines:
        if "[PRECISION]" in line:
            info = TensorInfo().init_from_string(line)
            if specified_op_list is None or info.op_type in specified_op_list:
                infos.append(info)
    return infos


def parse_log(log_dir, filename, specified_op_list=None):
    """``(infos, has_tensor_name)`` of ``log_dir/filename``; ``(None, False)`` when the file is missing."""
    if log_dir is None or filename is None:
        return None
    path = os.path.join(log_dir, filename)
    try:
        with open(path) as f:
            infos = parse_lines(f.readlines(), specified_op_list)
    except FileNotFoundError:
        print("the file ", path, "is not found")
        return None, False
    return infos, any(i.tensor_name for i in infos)


def compare_accuracy(dump_path, another_dump_path, output_filename, loss_scale=1, dump_all_tensors=False):
    """Paddle's Excel comparison of two dumps: not reproduced here (see the module docstring)."""
    try:
        import xlsxwriter  # noqa: F401
    except ImportError:
        raise ImportError("paddle.amp.debugging.compare_accuracy writes an Excel workbook with the third-party "
                          "package xlsxwriter, which is not installed (Paddle asks for "
                          "'pip install xlsxwriter==3.0.9')") from None
    raise NotImplementedError(
        "paddle.amp.debugging.compare_accuracy: dy2st reads the dumps (runtime.amp.accuracy_compare.parse_log) "
        f"but does not write Paddle's comparison workbook {output_filename!r}; compare the parsed TensorInfo "
        "records instead")
