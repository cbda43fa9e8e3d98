"""Every registered op that Paddle also has must match Paddle's op protos exactly:
slot names and flags, and every non-extra attribute's name, type and default.
(``.pdmodel`` writing depends on it: a wrong attribute type can abort real Paddle.)"""
import math
import pathlib
import re

import pytest

from runtime.ops.registry import Slot, all_ops

PROTOS = pathlib.Path(__file__).parents[2] / "fixtures" / "paddle_op_protos.txt"


def parse_protos(text):
    ops, cur = {}, None
    for line in text.splitlines():
        if line.startswith("### "):
            cur = {"inputs": [], "outputs": [], "attrs": {}}
            ops[line.split()[1]] = cur
        elif line.strip().startswith("inputs :"):
            cur["inputs"] = [s.strip() for s in line.split(":", 1)[1].split(",") if s.strip()]
        elif line.strip().startswith("outputs:"):
            cur["outputs"] = [s.strip() for s in line.split(":", 1)[1].split(",") if s.strip()]
        elif re.match(r"^\s+\w+: [A-Z0-9]+ = ", line):
            m = re.match(r"^\s+(\w+): ([A-Z0-9]+) = (.*)$", line)
            name, typ, rest = m.groups()
            extra = "EXTRA" in rest
            default = rest.split(" EXTRA")[0]
            cur["attrs"][name] = (typ, default, extra)
    return ops


PADDLE = parse_protos(PROTOS.read_text())
OURS = {t: d for t, d in all_ops().items() if t in PADDLE}


def _default(text):
    if text == "'<no default: REQUIRED>'":
        return "REQUIRED"
    try:
        return eval(text, {"inf": math.inf, "nan": math.nan})  # protos file is our own fixture
    except Exception:
        return text


def test_fixture_parses():
    assert len(PADDLE) > 130 and PADDLE["elementwise_add"]["attrs"]["axis"][0] == "INT"


@pytest.mark.parametrize("op", sorted(OURS))
def test_slots_match(op):
    ours = OURS[op]
    theirs = PADDLE[op]
    assert [s.name for s in ours.inputs] == [Slot.parse(s).name for s in theirs["inputs"]], f"{op} input slots"
    for a, b in zip(ours.inputs, (Slot.parse(s) for s in theirs["inputs"])):
        assert a.duplicable == b.duplicable, f"{op}.{a.name} duplicable"
    assert [s.name for s in ours.outputs] == [Slot.parse(s).name for s in theirs["outputs"]], f"{op} output slots"
    for a, b in zip(ours.outputs, (Slot.parse(s) for s in theirs["outputs"])):
        assert a.duplicable == b.duplicable, f"{op}.{a.name} duplicable"


@pytest.mark.parametrize("op", sorted(OURS))
def test_attrs_match(op):
    ours = OURS[op].attrs
    for name, (typ, default, extra) in PADDLE[op]["attrs"].items():
        if extra:
            continue
        assert name in ours, f"{op} lacks attr {name} ({typ})"
        assert ours[name][0] == typ, f"{op}.{name}: type {ours[name][0]} but Paddle declares {typ}"
        d = _default(default)
        if d == "REQUIRED":
            continue
        mine = ours[name][1]
        if isinstance(d, float):
            assert isinstance(mine, (int, float)) and math.isclose(mine, d, rel_tol=1e-6), f"{op}.{name} default"
        else:
            assert mine == d or (isinstance(d, list) and list(mine) == d), f"{op}.{name}: default {mine!r} vs {d!r}"
    for name in ours:
        assert name in PADDLE[op]["attrs"], f"{op}: attr {name} is not in Paddle's protos"
