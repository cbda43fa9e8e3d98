"""The op types that ``tests/fixtures/paddle_op_protos.txt`` does not list yet (the optimizer updates
adadelta ... rprop and the auc metric) against real Paddle's protos in ``extra_op_protos.txt``
(regenerate with ``make_extra_op_protos.py``): slots with their flags, attribute types and defaults."""
import math
import pathlib

import pytest

from runtime.ops.registry import Slot, all_ops
from .test_schema import _default, parse_protos

PROTOS = parse_protos((pathlib.Path(__file__).parent / "extra_op_protos.txt").read_text())


def test_fixture_lists_the_ops():
    assert sorted(PROTOS) == sorted(["adadelta", "adamax", "asgd", "lamb", "nadam", "radam", "rprop", "auc"])


@pytest.mark.parametrize("op", sorted(PROTOS))
def test_op_schema_is_paddles(op):
    ours, theirs = all_ops()[op], PROTOS[op]
    assert [s.spec() for s in ours.inputs] == [Slot.parse(s).spec() for s in theirs["inputs"]]
    assert [s.spec() for s in ours.outputs] == [Slot.parse(s).spec() for s in theirs["outputs"]]
    assert set(ours.attrs) == set(theirs["attrs"])
    for name, (typ, default, _) in theirs["attrs"].items():
        assert ours.attrs[name][0] == typ, f"{op}.{name} type"
        d = _default(default)
        if d != "REQUIRED":
            mine = ours.attrs[name][1]
            assert (math.isclose(mine, d, rel_tol=1e-6) if isinstance(d, float) else mine == d), f"{op}.{name}"
