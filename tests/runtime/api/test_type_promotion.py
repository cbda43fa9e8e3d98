"""Binary-op dtype promotion (eager and static) against a table measured on real Paddle 3.3.1.

The tables EAGER and SCALARS below were recorded by running every combination in real
PaddlePaddle 3.3.1 (eager mode, CPU); runtime/ops/promotion.py implements the rules.
"""
import numpy as np
import pytest

import runtime as paddle
from runtime.ops.promotion import result_dtype

# Measured on real PaddlePaddle 3.3.1 (eager, CPU): the result dtype of `x <op> y` for x, y of each
# dtype and shape ([2], [1] or 0-D []).  Rows: x's dtype; columns: y's dtype, in DTYPES order.
# TE = TypeError ("Type promotion only support calculations between floating-point numbers ...").
# 'X*' = Paddle chose dtype X but has no CPU kernel for the op in X (its NotFound error names X).
EAGER = {
    ("mul", "2", "2"): """
        b     TE    TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    u8*   TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    i8*   TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    i16*  TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("mul", "2", "1"): """
        b     TE    TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    u8*   TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    i8*   TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    i16*  TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("mul", "2", "0d"): """
        b     u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        u8*   u8*   u8*   u8*   u8*   u8*   f16*  f32   f64   c64   c128
        i8*   i8*   i8*   i8*   i8*   i8*   f16*  f32   f64   c64   c128
        i16*  i16*  i16*  i16*  i16*  i16*  f16*  f32   f64   c64   c128
        i32   i32   i32   i32   i32   i32   f16*  f32   f64   c64   c128
        i64   i64   i64   i64   i64   i64   f16*  f32   f64   c64   c128
        f16*  f16*  f16*  f16*  f16*  f16*  f16*  f16*  f16*  c64   c128
        f32   f32   f32   f32   f32   f32   f32   f32   f32   c64   c128
        f64   f64   f64   f64   f64   f64   f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c64
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("mul", "0d", "2"): """
        b     u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        u8*   u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        i8*   u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        i16*  u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        i32   u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        i64   u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        f16*  f16*  f16*  f16*  f16*  f16*  f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f64   f64   f64   f64   f64   f64   f16*  f32   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c64   c128
    """,
    ("mul", "0d", "0d"): """
        b     u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        u8*   u8*   i16*  i16*  i32   i64   f16*  f32   f64   c64   c128
        i8*   i16*  i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        i16*  i16*  i16*  i16*  i32   i64   f16*  f32   f64   c64   c128
        i32   i32   i32   i32   i32   i64   f16*  f32   f64   c64   c128
        i64   i64   i64   i64   i64   i64   f16*  f32   f64   c64   c128
        f16*  f16*  f16*  f16*  f16*  f16*  f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f32   f32   f64   c64   c128
        f64   f64   f64   f64   f64   f64   f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("sub", "2", "2"): """
        b*    TE    TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    u8*   TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    i8*   TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    i16   TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("sub", "2", "1"): """
        b*    TE    TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    u8*   TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    i8*   TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    i16   TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("sub", "2", "0d"): """
        b*    u8*   i8*   i16   i32   i64   f16*  f32   f64   c64   c128
        u8*   u8*   u8*   u8*   u8*   u8*   f16*  f32   f64   c64   c128
        i8*   i8*   i8*   i8*   i8*   i8*   f16*  f32   f64   c64   c128
        i16   i16   i16   i16   i16   i16   f16*  f32   f64   c64   c128
        i32   i32   i32   i32   i32   i32   f16*  f32   f64   c64   c128
        i64   i64   i64   i64   i64   i64   f16*  f32   f64   c64   c128
        f16*  f16*  f16*  f16*  f16*  f16*  f16*  f16*  f16*  c64   c128
        f32   f32   f32   f32   f32   f32   f32   f32   f32   c64   c128
        f64   f64   f64   f64   f64   f64   f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c64
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("sub", "0d", "2"): """
        b*    u8*   i8*   i16   i32   i64   f16*  f32   f64   c64   c128
        u8*   u8*   i8*   i16   i32   i64   f16*  f32   f64   c64   c128
        i8*   u8*   i8*   i16   i32   i64   f16*  f32   f64   c64   c128
        i16   u8*   i8*   i16   i32   i64   f16*  f32   f64   c64   c128
        i32   u8*   i8*   i16   i32   i64   f16*  f32   f64   c64   c128
        i64   u8*   i8*   i16   i32   i64   f16*  f32   f64   c64   c128
        f16*  f16*  f16*  f16*  f16*  f16*  f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f64   f64   f64   f64   f64   f64   f16*  f32   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c64   c128
    """,
    ("sub", "0d", "0d"): """
        b*    u8*   i8*   i16   i32   i64   f16*  f32   f64   c64   c128
        u8*   u8*   i16   i16   i32   i64   f16*  f32   f64   c64   c128
        i8*   i16   i8*   i16   i32   i64   f16*  f32   f64   c64   c128
        i16   i16   i16   i16   i32   i64   f16*  f32   f64   c64   c128
        i32   i32   i32   i32   i32   i64   f16*  f32   f64   c64   c128
        i64   i64   i64   i64   i64   i64   f16*  f32   f64   c64   c128
        f16*  f16*  f16*  f16*  f16*  f16*  f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f32   f32   f64   c64   c128
        f64   f64   f64   f64   f64   f64   f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("div", "2", "2"): """
        b     TE    TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    f32   TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    f32   TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    f32   TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    f32   TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    f32   TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("div", "2", "1"): """
        b     TE    TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    f32   TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    f32   TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    f32   TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    f32   TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    f32   TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("div", "2", "0d"): """
        b     f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f16*  f16*  f16*  f16*  f16*  f16*  f16*  f16*  f16*  c64   c128
        f32   f32   f32   f32   f32   f32   f32   f32   f32   c64   c128
        f64   f64   f64   f64   f64   f64   f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c64
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("div", "0d", "2"): """
        b     f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f16*  f16*  f16*  f16*  f16*  f16*  f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f64   f64   f64   f64   f64   f64   f16*  f32   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c64   c128
    """,
    ("div", "0d", "0d"): """
        b     f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f16*  f16*  f16*  f16*  f16*  f16*  f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f32   f32   f64   c64   c128
        f64   f64   f64   f64   f64   f64   f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("floordiv", "2", "2"): """
        b*    TE    TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    u8    TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    i8    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    i16   TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    TE    f16   f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128* c128*
        c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c128* c64*  c128*
        c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c128*
    """,
    ("floordiv", "2", "1"): """
        b*    TE    TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    u8    TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    i8    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    i16   TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    TE    f16   f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128* c128*
        c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c128* c64*  c128*
        c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c128*
    """,
    ("floordiv", "2", "0d"): """
        b*    u8    i8    i16   i32   i64   f16   f32   f64   c64*  c128*
        u8    u8    i16   i16   i32   i64   f16   f32   f64   c64*  c128*
        i8    i16   i8    i16   i32   i64   f16   f32   f64   c64*  c128*
        i16   i16   i16   i16   i32   i64   f16   f32   f64   c64*  c128*
        i32   i32   i32   i32   i32   i64   f16   f32   f64   c64*  c128*
        i64   i64   i64   i64   i64   i64   f16   f32   f64   c64*  c128*
        f16   f16   f16   f16   f16   f16   f16   f32   f64   c64*  c128*
        f32   f32   f32   f32   f32   f32   f32   f32   f64   c64*  c128*
        f64   f64   f64   f64   f64   f64   f64   f64   f64   c128* c128*
        c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c128* c64*  c128*
        c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c128*
    """,
    ("floordiv", "0d", "2"): """
        b*    u8    i8    i16   i32   i64   f16   f32   f64   c64*  c128*
        u8    u8    i16   i16   i32   i64   f16   f32   f64   c64*  c128*
        i8    i16   i8    i16   i32   i64   f16   f32   f64   c64*  c128*
        i16   i16   i16   i16   i32   i64   f16   f32   f64   c64*  c128*
        i32   i32   i32   i32   i32   i64   f16   f32   f64   c64*  c128*
        i64   i64   i64   i64   i64   i64   f16   f32   f64   c64*  c128*
        f16   f16   f16   f16   f16   f16   f16   f32   f64   c64*  c128*
        f32   f32   f32   f32   f32   f32   f32   f32   f64   c64*  c128*
        f64   f64   f64   f64   f64   f64   f64   f64   f64   c128* c128*
        c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c128* c64*  c128*
        c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c128*
    """,
    ("floordiv", "0d", "0d"): """
        b*    u8    i8    i16   i32   i64   f16   f32   f64   c64*  c128*
        u8    u8    i16   i16   i32   i64   f16   f32   f64   c64*  c128*
        i8    i16   i8    i16   i32   i64   f16   f32   f64   c64*  c128*
        i16   i16   i16   i16   i32   i64   f16   f32   f64   c64*  c128*
        i32   i32   i32   i32   i32   i64   f16   f32   f64   c64*  c128*
        i64   i64   i64   i64   i64   i64   f16   f32   f64   c64*  c128*
        f16   f16   f16   f16   f16   f16   f16   f32   f64   c64*  c128*
        f32   f32   f32   f32   f32   f32   f32   f32   f64   c64*  c128*
        f64   f64   f64   f64   f64   f64   f64   f64   f64   c128* c128*
        c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c128* c64*  c128*
        c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c128*
    """,
    ("pow", "2", "2"): """
        b*    TE    TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    u8*   TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    i8*   TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    i16*  TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("pow", "2", "1"): """
        b*    TE    TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    u8*   TE    TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    i8*   TE    TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    i16*  TE    TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64   c128
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64   c128
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("pow", "2", "0d"): """
        b*    u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        u8*   u8*   u8*   u8*   u8*   u8*   f16*  f32   f64   c64   c128
        i8*   i8*   i8*   i8*   i8*   i8*   f16*  f32   f64   c64   c128
        i16*  i16*  i16*  i16*  i16*  i16*  f16*  f32   f64   c64   c128
        i32   i32   i32   i32   i32   i32   f16*  f32   f64   c64   c128
        i64   i64   i64   i64   i64   i64   f16*  f32   f64   c64   c128
        f16*  f16*  f16*  f16*  f16*  f16*  f16*  f16*  f16*  c64   c128
        f32   f32   f32   f32   f32   f32   f32   f32   f32   c64   c128
        f64   f64   f64   f64   f64   f64   f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c64
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("pow", "0d", "2"): """
        b*    u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        u8*   u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        i8*   u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        i16*  u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        i32   u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        i64   u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        f16*  f16*  f16*  f16*  f16*  f16*  f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        f64   f64   f64   f64   f64   f64   f16*  f32   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c64   c128
    """,
    ("pow", "0d", "0d"): """
        b*    u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        u8*   u8*   i16*  i16*  i32   i64   f16*  f32   f64   c64   c128
        i8*   i16*  i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        i16*  i16*  i16*  i16*  i32   i64   f16*  f32   f64   c64   c128
        i32   i32   i32   i32   i32   i64   f16*  f32   f64   c64   c128
        i64   i64   i64   i64   i64   i64   f16*  f32   f64   c64   c128
        f16*  f16*  f16*  f16*  f16*  f16*  f16*  f32   f64   c64   c128
        f32   f32   f32   f32   f32   f32   f32   f32   f64   c64   c128
        f64   f64   f64   f64   f64   f64   f64   f64   f64   c128  c128
        c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
    """,
    ("max", "2", "2"): """
        b*    TE    TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    u8*   TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    i8*   TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    i16*  TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128* c128*
        c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c128* c64*  c128*
        c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c128*
    """,
    ("max", "2", "1"): """
        b*    TE    TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    u8*   TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    i8*   TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    i16*  TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128* c128*
        c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c128* c64*  c128*
        c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c128*
    """,
    ("max", "2", "0d"): """
        b*    TE    TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    u8*   TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    i8*   TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    i16*  TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128* c128*
        c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c128* c64*  c128*
        c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c128*
    """,
    ("max", "0d", "2"): """
        b*    TE    TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    u8*   TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    i8*   TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    i16*  TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128* c128*
        c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c128* c64*  c128*
        c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c128*
    """,
    ("max", "0d", "0d"): """
        b*    TE    TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    u8*   TE    TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    i8*   TE    TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    i16*  TE    TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    i32   TE    TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    i64   TE    TE    TE    c64*  c128*
        TE    TE    TE    TE    TE    TE    f16*  f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f32   f32   f64   c64*  c128*
        TE    TE    TE    TE    TE    TE    f64   f64   f64   c128* c128*
        c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c128* c64*  c128*
        c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c128*
    """,
    ("lt", "2", "2"): """
        b     TE    TE    TE    TE    TE    TE    TE    TE    b     b
        TE    b     TE    TE    TE    TE    TE    TE    TE    b     b
        TE    TE    b     TE    TE    TE    TE    TE    TE    b     b
        TE    TE    TE    b     TE    TE    TE    TE    TE    b     b
        TE    TE    TE    TE    b     TE    TE    TE    TE    b     b
        TE    TE    TE    TE    TE    b     TE    TE    TE    b     b
        TE    TE    TE    TE    TE    TE    b     b     b     b     b
        TE    TE    TE    TE    TE    TE    b     b     b     b     b
        TE    TE    TE    TE    TE    TE    b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
    """,
    ("lt", "2", "1"): """
        b     TE    TE    TE    TE    TE    TE    TE    TE    b     b
        TE    b     TE    TE    TE    TE    TE    TE    TE    b     b
        TE    TE    b     TE    TE    TE    TE    TE    TE    b     b
        TE    TE    TE    b     TE    TE    TE    TE    TE    b     b
        TE    TE    TE    TE    b     TE    TE    TE    TE    b     b
        TE    TE    TE    TE    TE    b     TE    TE    TE    b     b
        TE    TE    TE    TE    TE    TE    b     b     b     b     b
        TE    TE    TE    TE    TE    TE    b     b     b     b     b
        TE    TE    TE    TE    TE    TE    b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
    """,
    ("lt", "2", "0d"): """
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
    """,
    ("lt", "0d", "2"): """
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
    """,
    ("lt", "0d", "0d"): """
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
        b     b     b     b     b     b     b     b     b     b     b
    """,
}

# Measured on real PaddlePaddle 3.3.1 (eager): `x <op> scalar` (r-ops: `scalar <op> x`) for x of shape [2]
# and each dtype (columns, DTYPES order), one row per Python/numpy scalar.
SCALARS = {
    "mul": """
        True   b     u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        2      i64   u8    i8    i16   i32   i64   f16   f32   f64   c64   c128
        2.5    f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
        1j     c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        np.f64 f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
        np.i64 b     u8    i8    i16   i32   i64   f16   f32   f64   c64   c128
        np.f32 b     u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        np.i32 b     u8    i8    i16   i32   i64   f16   f32   f64   c64   c128
    """,
    "rmul": """
        True   b     u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        2      i64   u8    i8    i16   i32   i64   f16   f32   f64   c64   c128
        2.5    f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
        1j     c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        np.f64 f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
        np.i64 b     u8    i8    i16   i32   i64   f16   f32   f64   c64   c128
        np.f32 b     u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        np.i32 b     u8    i8    i16   i32   i64   f16   f32   f64   c64   c128
    """,
    "add": """
        True   b     u8    i8    i16   i32   i64   f16*  f32   f64   c64   c128
        2      i64   u8    i8    i16   i32   i64   f16   f32   f64   c64   c128
        2.5    f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
        1j     c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        np.f64 f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
        np.i64 b     u8    i8    i16   i32   i64   f16   f32   f64   c64   c128
        np.f32 b     u8    i8    i16   i32   i64   f16*  f32   f64   c64   c128
        np.i32 b     u8    i8    i16   i32   i64   f16   f32   f64   c64   c128
    """,
    "rsub": """
        True   b*    u8*   i8*   i16   i32   i64   f16*  f32   f64   c64   c128
        2      i64   u8    i8    i16   i32   i64   f16   f32   f64   c64   c128
        2.5    f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
        1j     c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        np.f64 f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
        np.i64 b     u8    i8    i16   i32   i64   f16   f32   f64   c64   c128
        np.f32 b*    u8*   i8*   i16   i32   i64   f16*  f32   f64   c64   c128
        np.i32 b     u8    i8    i16   i32   i64   f16   f32   f64   c64   c128
    """,
    "div": """
        True   b     f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        2      f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
        2.5    f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
        1j     c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        np.f64 f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
        np.i64 f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
        np.f32 b     f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        np.i32 f32   f32   f32   f32   f32   f32   f16   f32   f64   c64   c128
    """,
    "rdiv": """
        True   b     f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        2      f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        2.5    f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        1j     c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        np.f64 f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        np.i64 f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        np.f32 b     f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        np.i32 f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
    """,
    "floordiv": """
        True   b*    u8    i8    i16   i32   i64   f16   f32   f64   c64*  c128*
        2      i64   u8    i8    i16   i32   i64   f16   f32   f64   c64*  c128*
        2.5    f32   f32   f32   f32   f32   f32   f16   f32   f64   c64*  c128*
        1j     c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c128* c64*  c128*
        np.f64 f32   f32   f32   f32   f32   f32   f16   f32   f64   c64*  c128*
        np.i64 b*    u8    i8    i16   i32   i64   f16   f32   f64   c64*  c128*
        np.f32 b*    u8    i8    i16   i32   i64   f16   f32   f64   c64*  c128*
        np.i32 b*    u8    i8    i16   i32   i64   f16   f32   f64   c64*  c128*
    """,
    "pow": """
        True   b*    u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        2      i64   u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        2.5    f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        1j     c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        np.f64 f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        np.i64 b*    u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        np.f32 b*    u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        np.i32 b*    u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
    """,
    "rpow": """
        True   b*    u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        2      i64   u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        2.5    f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        1j     c64   c64   c64   c64   c64   c64   c64   c64   c128  c64   c128
        np.f64 f32   f32   f32   f32   f32   f32   f16*  f32   f64   c64   c128
        np.i64 b*    u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        np.f32 b*    u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
        np.i32 b*    u8*   i8*   i16*  i32   i64   f16*  f32   f64   c64   c128
    """,
    "lt": """
        True   b     b     b     b     b     b     b     b     b     b     b
        2      b     b     b     b     b     b     b     b     b     b     b
        2.5    b     b     b     b     b     b     b     b     b     b     b
        1j     b     b     b     b     b     b     b     b     b     b     b
        np.f64 b     b     b     b     b     b     b     b     b     b     b
        np.i64 b     b     b     b     b     b     b     b     b     b     b
        np.f32 b     b     b     b     b     b     b     b     b     b     b
        np.i32 b     b     b     b     b     b     b     b     b     b     b
    """,
}


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
          "complex128"]
ABBR = {"b": "bool", "u8": "uint8", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
        "f16": "float16", "f32": "float32", "f64": "float64", "c64": "complex64", "c128": "complex128"}
OP_TYPES = {"mul": "elementwise_mul", "sub": "elementwise_sub", "div": "elementwise_div",
            "floordiv": "elementwise_floordiv", "pow": "elementwise_pow", "max": "elementwise_max",
            "lt": "less_than"}
OPERATORS = {"mul": lambda a, b: a * b, "sub": lambda a, b: a - b, "div": lambda a, b: a / b,
             "floordiv": lambda a, b: a // b, "pow": lambda a, b: a ** b, "max": lambda a, b: paddle.maximum(a, b),
             "lt": lambda a, b: a < b}
SHAPES = {"2": [2], "1": [1], "0d": []}
PROMO_MSG = "Type promotion only support calculations between floating-point numbers"


def _parse(table):
    return [line.split() for line in table.strip().splitlines()]


def _expand():
    """(op, dx, sx, dy, sy, expected, has_cpu_kernel) for every measured entry."""
    rows = []
    for (op, sx, sy), table in EAGER.items():
        for dx, line in zip(DTYPES, _parse(table)):
            for dy, tok in zip(DTYPES, line):
                kernel = not tok.endswith("*")
                tok = tok.rstrip("*")
                want = "TE" if tok == "TE" else ("bool" if op == "lt" else ABBR[tok])
                rows.append((op, dx, sx, dy, sy, want, kernel))
    return rows


def _id(r):
    return "-".join(r[:5])


ROWS = _expand()
RUNNABLE = [r for r in ROWS if r[6]]


def _ones(dtype, shape):
    return paddle.ones(shape, dtype="float32").astype(dtype)


def test_table_is_complete():
    assert len(ROWS) == 7 * 5 * len(DTYPES) ** 2


@pytest.mark.parametrize("op", sorted(OP_TYPES))
def test_rule_matches_every_measured_entry(op):
    """The rule function against all entries, including those Paddle has no CPU kernel for."""
    for _, dx, sx, dy, sy, want, _k in (r for r in ROWS if r[0] == op):
        args = (OP_TYPES[op], np.dtype(dx), len(SHAPES[sx]), np.dtype(dy), len(SHAPES[sy]))
        if want == "TE":
            with pytest.raises(TypeError, match=PROMO_MSG):
                result_dtype(*args)
        else:
            got = "bool" if op == "lt" else np.dtype(result_dtype(*args)).name
            assert got == want, (op, dx, sx, dy, sy)


@pytest.mark.parametrize("op", sorted(OP_TYPES))
def test_eager_operators_match_paddle(op):
    for _, dx, sx, dy, sy, want, _k in (r for r in RUNNABLE if r[0] == op):
        x, y = _ones(dx, SHAPES[sx]), _ones(dy, SHAPES[sy])
        if want == "TE":
            with pytest.raises(TypeError, match=PROMO_MSG):
                OPERATORS[op](x, y)
        else:
            out = OPERATORS[op](x, y)
            assert out.dtype.name == want, (op, dx, sx, dy, sy)
            assert out._data.dtype == np.dtype(want)


@pytest.mark.parametrize("fn", ["add", "multiply", "subtract", "divide"])
def test_functional_api_follows_the_same_rule(fn):
    f = getattr(paddle, fn)
    op = {"add": "sub", "multiply": "mul", "subtract": "sub", "divide": "div"}[fn]  # add's table equals sub's
    for _, dx, sx, dy, sy, want, _k in (r for r in RUNNABLE if r[0] == op and "bool" not in (r[1], r[3])):
        x, y = _ones(dx, SHAPES[sx]), _ones(dy, SHAPES[sy])
        if want == "TE":
            with pytest.raises(TypeError, match=PROMO_MSG):
                f(x, y)
        else:
            assert f(x, y).dtype.name == want, (fn, dx, sx, dy, sy)


def test_brief_examples():
    x = paddle.ones([2], dtype="float32")
    assert (x * paddle.ones([2], dtype="float64")).dtype == paddle.float64
    assert (x * paddle.to_tensor(3, dtype="int64")).dtype == paddle.float32       # 0-D acts like a scalar
    np.testing.assert_allclose((x * paddle.to_tensor(3, dtype="int64")).numpy(), [3, 3])
    for other in (paddle.ones([2], dtype="int64"), paddle.ones([1], dtype="int32")):
        for f in (lambda a, b: a * b, lambda a, b: a + b, paddle.add, paddle.multiply):
            with pytest.raises(TypeError, match=PROMO_MSG + ".*x: float32, y: int"):
                f(x, other)


def test_default_dtype_does_not_change_integer_results():
    a = paddle.to_tensor([1, 2], dtype="int32")
    paddle.set_default_dtype("float64")
    try:   # measured: int / int and int * 2.5 stay float32 with a float64 default
        assert (a / a).dtype == paddle.float32
        assert (a * 2.5).dtype == paddle.float32
        assert (paddle.to_tensor(3) / paddle.to_tensor(2)).dtype == paddle.float32
    finally:
        paddle.set_default_dtype("float32")


def test_0d_cast_wraps_like_paddle():
    a = paddle.to_tensor([1, 2], dtype="int32")
    np.testing.assert_array_equal((a + paddle.to_tensor(2 ** 40)).numpy(), [1, 2])   # measured: [1 2]


def test_mixed_dtype_gradients_keep_input_dtypes():
    x = paddle.ones([2], dtype="float32")
    y = paddle.ones([2], dtype="float64")
    x.stop_gradient = y.stop_gradient = False
    (x * y).sum().backward()
    assert x.grad.dtype == paddle.float32 and y.grad.dtype == paddle.float64
    x = paddle.ones([2], dtype="float32")
    s = paddle.to_tensor(3.0, dtype="float64")
    x.stop_gradient = s.stop_gradient = False
    z = x * s
    assert z.dtype == paddle.float32
    z.sum().backward()
    assert x.grad.dtype == paddle.float32 and s.grad.dtype == paddle.float64 and s.grad.shape == []
    np.testing.assert_allclose(s.grad.numpy(), 2.0)
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


# -- Python and numpy scalars ------------------------------------------------------------------
SCALAR_VALUES = {"True": True, "2": 2, "2.5": 2.5, "1j": 1j, "np.f64": np.float64(2.5), "np.i64": np.int64(2),
                 "np.f32": np.float32(2.5), "np.i32": np.int32(2)}
SCALAR_OPS = {"mul": lambda x, s: x * s, "rmul": lambda x, s: s * x, "add": lambda x, s: x + s,
              "rsub": lambda x, s: s - x, "div": lambda x, s: x / s, "rdiv": lambda x, s: s / x,
              "floordiv": lambda x, s: x // s, "pow": lambda x, s: x ** s, "rpow": lambda x, s: s ** x,
              "lt": lambda x, s: x < s}
# Known deviations (Paddle runs these through a bool `scale` kernel that numpy has no match for):
# bool tensor -/÷ numpy integer scalar.
SCALAR_SKIP = {(op, s, "bool") for op in ("rsub", "div", "rdiv") for s in ("np.i64", "np.i32")}


def _scalar_rows():
    rows = []
    for op, table in SCALARS.items():
        for line in _parse(table):
            for dx, tok in zip(DTYPES, line[1:]):
                if not tok.endswith("*") and (op, line[0], dx) not in SCALAR_SKIP:
                    rows.append((op, line[0], dx, "bool" if op == "lt" else ABBR[tok]))
    return rows


@pytest.mark.parametrize("op", sorted(SCALARS))
def test_python_and_numpy_scalars_match_paddle(op):
    for _, sname, dx, want in (r for r in _scalar_rows() if r[0] == op):
        if op == "floordiv" and sname == "1j":
            continue
        got = SCALAR_OPS[op](_ones(dx, [2]), SCALAR_VALUES[sname])
        assert isinstance(got, paddle.Tensor), (op, sname, dx)
        assert got.dtype.name == want, (op, sname, dx)


# -- static programs ---------------------------------------------------------------------------
def _build(fn, *specs):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        ins = [paddle.static.data(f"v{i}", shape, dtype) for i, (dtype, shape) in enumerate(specs)]
        out = fn(*ins)
    return main, out


@pytest.fixture
def static_mode():
    paddle.enable_static()
    yield
    paddle.disable_static()


@pytest.mark.parametrize("op", ["mul", "div", "floordiv", "max", "lt"])
def test_static_builder_follows_the_table(op, static_mode):
    for _, dx, sx, dy, sy, want, _k in (r for r in RUNNABLE if r[0] == op):
        if want == "TE":
            with pytest.raises(TypeError, match=PROMO_MSG):
                _build(OPERATORS[op], (dx, SHAPES[sx]), (dy, SHAPES[sy]))
            continue
        main, out = _build(OPERATORS[op], (dx, SHAPES[sx]), (dy, SHAPES[sy]))
        assert out.dtype.name == want, (op, dx, sx, dy, sy)
        types = [o.type for o in main.global_block().ops]
        if dx != dy and (sx == "0d" or sy == "0d") and op != "max":
            assert "cast" in types, (op, dx, sx, dy, sy, types)
        elif not (op == "div" and want == "float32" and dx == dy):
            assert "cast" not in types, (op, dx, sx, dy, sy, types)


# Measured on Paddle 3.3.1 with FLAGS_enable_pir_api=0: the ops of `x <op> y` in a static Program and the
# dtype the executor returns. Two shaped floats go to elementwise_mul uncast (the kernel promotes at
# run time); a 0-D operand of another dtype gets an explicit cast; integer `/` casts both to float32.
STATIC_PROGRAMS = [
    (("float32", [2]), ("float64", [2]), lambda a, b: a * b, ["elementwise_mul"], "float64"),
    (("float32", [2]), ("float64", []), lambda a, b: a * b, ["cast", "elementwise_mul"], "float32"),
    (("float32", [2]), ("int64", []), lambda a, b: a * b, ["cast", "elementwise_mul"], "float32"),
    (("int32", [2]), ("float32", []), lambda a, b: a * b, ["cast", "elementwise_mul"], "float32"),
    (("float16", [2]), ("float32", [2]), lambda a, b: a * b, ["elementwise_mul"], "float32"),
    (("int64", []), ("int32", []), lambda a, b: a * b, ["cast", "elementwise_mul"], "int64"),
    (("int32", [2]), ("int32", [2]), lambda a, b: a / b, ["cast", "cast", "elementwise_div"], "float32"),
    (("int32", [2]), None, lambda a: a < 2.5, ["cast", "fill_constant", "less_than"], "bool"),
    (("float32", [2]), None, lambda a: a * 2, ["scale"], "float32"),
]


@pytest.mark.parametrize("case", range(len(STATIC_PROGRAMS)))
def test_static_programs_hold_paddles_ops(case, static_mode):
    xs, ys, fn, ops, run_dtype = STATIC_PROGRAMS[case]
    specs = [xs] if ys is None else [xs, ys]
    main, out = _build(fn, *specs)
    assert [o.type for o in main.global_block().ops] == ops
    feed = {f"v{i}": np.ones(shape, dtype) for i, (dtype, shape) in enumerate(specs)}
    res, = paddle.static.Executor().run(main, feed=feed, fetch_list=[out])
    assert np.asarray(res).dtype == np.dtype(run_dtype)


def test_static_mismatch_raises_at_build(static_mode):
    with pytest.raises(TypeError, match=PROMO_MSG + ".*x: float32, y: int32"):
        _build(lambda a, b: a * b, ("float32", [2]), ("int32", [2]))
