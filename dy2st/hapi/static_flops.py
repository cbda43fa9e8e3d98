"""FLOPs of a static ``Program`` counted op by op as Paddle's ``static_flops`` counts them (conv2d,
depthwise_conv2d, pool2d, mul/matmul, batch_norm, elementwise ops; the batch dim is left out), and the
``Table`` both flops counters print."""
from __future__ import annotations

import numpy as np

__all__ = []


class Table:
    """A text table: ``add_row`` then ``print_table`` (columns centred, widened to their longest cell)."""

    def __init__(self, table_heads):
        self.table_heads = table_heads
        self.table_len = [len(h) for h in table_heads]
        self.data = []
        self.col_num = len(table_heads)

    def add_row(self, row_str):
        if not isinstance(row_str, list):
            print("The row_str should be a list")
        if len(row_str) != self.col_num:
            print(f"The length of row data should be equal the length of table heads, but the data: {len(row_str)} "
                  f"is not equal table heads {self.col_num}")
        for i in range(self.col_num):
            self.table_len[i] = max(self.table_len[i], len(str(row_str[i])))
        self.data.append(row_str)

    def print_row(self, row):
        print("".join("|" + str(row[i]).center(self.table_len[i] + 2) for i in range(self.col_num)) + "|")

    def print_shelf(self):
        print("".join("+" + "-" * (n + 2) for n in self.table_len) + "+")

    def print_table(self):
        self.print_shelf()
        self.print_row(self.table_heads)
        self.print_shelf()
        for row in self.data:
            self.print_row(row)
        self.print_shelf()


def _var(program, name):
    for block in program.blocks:
        if block.has_var(name):
            return block.var(name)
    return None


def _shape(program, op, slot, outputs=False):
    names = op.output(slot) if outputs else (op.input(slot) if slot in op.input_names else [])
    return list(_var(program, names[0]).shape) if names else None


def _op_flops(program, op):
    """``(flops, parameter name)`` of one op; 0 for ops Paddle does not count."""
    kind = op.type
    if kind in ("conv2d", "depthwise_conv2d"):
        filt = _shape(program, op, "Filter")
        bias = 1 if (op.input("Bias") if "Bias" in op.input_names else []) else 0
        out = _shape(program, op, "Output", outputs=True)
        return abs(np.prod(out[1:]) * (np.prod(filt[1:]) + bias)), op.input("Filter")[0]
    if kind == "pool2d":
        x, out = _shape(program, op, "X"), _shape(program, op, "Out", outputs=True)
        kernel = np.array(x[2:]) // np.array(out[2:])
        return abs((np.prod(kernel) + 1) * np.prod(out[1:])), ""
    if kind in ("mul", "matmul"):
        y, out = _shape(program, op, "Y"), _shape(program, op, "Out", outputs=True)
        return abs(y[0] * np.prod(out[1:])), op.input("Y")[0]
    if kind == "batch_norm":
        return abs(2 * np.prod(_shape(program, op, "Y", outputs=True)[1:])), ""
    if kind.startswith("element"):
        return abs(np.prod(_shape(program, op, "X")[1:])), ""
    return 0, ""


def static_flops(program, print_detail=False):
    """Total FLOPs of every op of every block of ``program``."""
    total = 0
    table = Table(["OP Type", "Param name", "Flops"])
    for block in program.blocks:
        for op in block.ops:
            flops, param = _op_flops(program, op)
            total += flops
            if flops != 0:
                table.add_row([op.type, param, flops])
    if print_detail:
        table.print_table()
    return total
