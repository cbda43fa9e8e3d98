"""Runs every `OpCase` row of every ``cases_*.py`` table; fails when an op has no row."""
import importlib
import pathlib

import pytest

from runtime.ops.registry import all_ops
from .op_harness import check_forward, check_grad, check_infer_meta, check_kernel_defaults

_HERE = pathlib.Path(__file__).parent
CASES = []
for _path in sorted(_HERE.glob("cases_*.py")):
    CASES.extend(importlib.import_module(f"{__package__}.{_path.stem}").CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_forward(case):
    check_forward(case)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_infer_meta(case):
    check_infer_meta(case)


@pytest.mark.parametrize("case", [c for c in CASES if c.check_grad], ids=[c.id for c in CASES if c.check_grad])
def test_grad(case):
    check_grad(case)


def _grad_ops_of(op):
    return {t for t in all_ops() if t == op + "_grad"}


def test_every_op_has_a_row():
    covered = {c.op for c in CASES}
    # a *_grad op is covered by the gradient check of its forward op
    covered |= {c.op + "_grad" for c in CASES if c.check_grad}
    # ops that run sub-blocks (conditional_block, while) have no meaning as a single kernel
    # call; tests/runtime/static/test_control_flow.py exercises them inside Programs
    covered |= {t for t, d in all_ops().items() if any(typ == "BLOCK" for typ, _ in d.attrs.values())}
    missing = sorted(set(all_ops()) - covered)
    assert not missing, f"registered ops without a table row: {missing}"


def test_every_differentiable_op_has_a_grad_check():
    checked = {c.op for c in CASES if check_grad.__name__ and c.check_grad}
    missing = sorted(t for t, d in all_ops().items()
                     if d.grad is not None and not t.endswith("_grad") and t not in checked)
    assert not missing, f"differentiable ops never grad-checked: {missing}"


@pytest.mark.parametrize("op", sorted(all_ops()))
def test_kernel_defaults_match_schema(op):
    check_kernel_defaults(all_ops()[op])
