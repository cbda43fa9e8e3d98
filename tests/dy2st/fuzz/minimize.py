"""Shrink a failing generated program: drop statements and unwrap compound ones while the same
kind of failure remains on the same input (delta debugging over the AST)."""
from __future__ import annotations

import ast
import copy

import numpy as np

from . import harness
from .generator import Program


def _fails(program, where, kind):
    try:
        fns = harness.load([program])
    except SyntaxError:
        return False
    fails = harness.check_one(program, fns[program.name], where, timeout=5)
    return any(f.kind == kind for f in fails)


def _blocks(tree):
    """Every statement list in the function (body, orelse of every compound statement), with
    the range of statements that may go (a while body's counter increment stays: without it the
    loop would not end; so does the function's final return)."""
    out = []
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            v = getattr(node, field, None)
            if isinstance(v, list) and v and isinstance(v[0], ast.stmt):
                first = 1 if isinstance(node, ast.While) and field == "body" else 0
                last = len(v) - 1 if isinstance(node, ast.FunctionDef) else len(v)   # keep the final return
                out.append((v, first, last))
    return out


def _candidates(src):
    tree = ast.parse(src)
    n_blocks = len(_blocks(tree))
    for b in range(n_blocks):
        blk, first, last = _blocks(ast.parse(src))[b]
        for i in range(first, last):
            # drop statement i
            t = ast.parse(src)
            blk = _blocks(t)[b][0]
            s = blk[i]
            if isinstance(s, ast.FunctionDef):
                continue
            del blk[i]
            if not blk:
                blk.append(ast.Pass())
            yield ast.unparse(t)
            # unwrap a compound statement: replace it by its body (or orelse)
            for field in ("body", "orelse"):
                t = ast.parse(src)
                blk = _blocks(t)[b][0]
                s = blk[i]
                inner = getattr(s, field, None)
                if isinstance(s, (ast.If, ast.For)) and inner:
                    blk[i:i + 1] = copy.deepcopy(inner)
                    yield ast.unparse(t)
            # simplify an if's test to True/False? keep the statement structure instead


def minimize(failure, max_rounds=50):
    """A smaller `Program` failing the same way on the same input."""
    prog, where, kind = failure.program, failure.inputs, failure.kind
    src = prog.source
    for _ in range(max_rounds):
        for cand in _candidates(src):
            p = Program(prog.name, cand + "\n", prog.shape, prog.dtype, prog.m_shape, prog.arity)
            if _fails(p, where, kind):
                src = cand + "\n"
                break
        else:
            break
    return Program(prog.name, src, prog.shape, prog.dtype, prog.m_shape, prog.arity)


def as_arrays(program, where):
    return (np.asarray(where["x"], dtype=program.dtype).reshape(program.shape),
            np.asarray(where["y"], dtype=program.dtype).reshape(program.shape),
            np.asarray(where["m"], dtype=np.int64))
