"""Bad PIR ``.json`` programs: corrupt, truncated, deeply nested, huge numbers, hostile names and a
seeded fuzz over the real fixtures. Every one loads (a verified program) or raises one
`ModelFormatError` naming the file; ``load_model``'s last-resort conversion of unexpected
exceptions is switched off, so each error must come from a real check.

DY2ST_FUZZ_CASES=<n> sets the number of fuzz cases per fixture (default 60).
"""
import copy
import json
import os
import pathlib

import numpy as np
import pytest

from runtime.formats import model_io, pir_json
from runtime.formats.errors import ModelFormatError
from runtime.formats.model_io import load_model_from_bytes

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "paddle-3.3.1-pir"
MODELS = sorted(p.name for p in FIXTURES.iterdir() if (p / "model.json").exists())
N = int(os.environ.get("DY2ST_FUZZ_CASES", "60"))
PATH = "/models/m.json"


@pytest.fixture(autouse=True)
def strict(monkeypatch):
    monkeypatch.setattr(model_io, "_CATCH_ALL", False)


def files(model):
    d = FIXTURES / model
    return (d / "model.json").read_bytes(), (d / "model.pdiparams").read_bytes()


def load(data, params=None):
    return load_model_from_bytes(data, params, model_path=PATH, params_path="/models/m.pdiparams")


def expect_error(data, params=None, match=None):
    with pytest.raises(ModelFormatError) as e:
        load(data, params)
    assert PATH in str(e.value) or "/models/m.pdiparams" in str(e.value)
    if match:
        assert match in str(e.value), str(e.value)
    return e.value


def doc(model="mlp"):
    return json.loads(files(model)[0])


def dump(d):
    return json.dumps(d).encode()


def test_fixture_loads_unchanged():
    data, params = files("mlp")
    assert load(data, params).feed_names == ["x"]


@pytest.mark.parametrize("data", [b"", b"{", b"[]", b"null", b"{}", b'{"base_code": 1}', b"\xff\xfe{}",
                                  b'{"base_code": {"magic": "onnx", "version": 1}, "program": {}}',
                                  b'{"base_code": {"magic": "pir", "version": 4}, "program": {"regions": []}}'])
def test_not_a_program(data):
    expect_error(data)


def test_truncated_everywhere():
    data, params = files("tensor_if")
    for cut in range(0, len(data), max(1, len(data) // 97)):
        expect_error(data[:cut], params)


def test_deep_nesting_is_refused_before_parsing(monkeypatch):
    calls = []
    monkeypatch.setattr(pir_json.json, "loads", lambda *a, **k: calls.append(1))
    for opener, closer in ((b"[", b"]"), (b"{\"a\":", b"}")):
        deep = opener * 100000 + b"1" + closer * 100000
        e = expect_error(deep)
        assert "levels deep" in str(e)
    assert not calls


def test_nesting_just_within_the_bound_parses_or_fails_cleanly():
    deep = b"[" * pir_json.MAX_DEPTH + b"]" * pir_json.MAX_DEPTH
    expect_error(deep, match="JSON object")


def test_brackets_inside_strings_do_not_count():
    d = doc()
    d["program"]["regions"][0]["blocks"][0]["ops"][0]["A"][3] += "[" * 1000
    assert pir_json._max_depth(dump(d)) < 30


def test_too_large(monkeypatch):
    monkeypatch.setattr(pir_json, "MAX_JSON_BYTES", 100)
    expect_error(files("mlp")[0], match="bytes")


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity", b"1" * 5000, b"-" + b"9" * 100])
def test_hostile_numbers(literal):
    text = files("mlp")[0].replace(b'"version": 4', b'"version": ' + literal)
    expect_error(text)


def _ops(d):
    return d["program"]["regions"][0]["blocks"][0]["ops"]


@pytest.mark.parametrize("edit", [
    lambda d: _ops(d)[0].update({"A": [0, 1, 1]}),                               # parameter: 3 attrs
    lambda d: _ops(d)[0]["A"].__setitem__(3, 12),                                # parameter name not a string
    lambda d: _ops(d)[0]["A"].__setitem__(3, ""),                                # empty name
    lambda d: _ops(d)[0]["A"].__setitem__(3, "x" * 100000),                      # absurd name
    lambda d: _ops(d)[1]["A"].__setitem__(3, _ops(d)[0]["A"][3]),                # duplicate parameter
    lambda d: _ops(d)[0]["O"]["TT"]["D"].__setitem__(1, [10 ** 18]),             # huge dim
    lambda d: _ops(d)[0]["O"]["TT"]["D"].__setitem__(1, [1] * 100),              # huge rank
    lambda d: _ops(d)[0]["O"]["TT"]["D"].__setitem__(0, {"#": "0.t_str"}),       # unknown dtype
    lambda d: _ops(d)[0]["O"]["TT"].update({"#": "0.t_evil"}),                   # unknown type
    lambda d: _ops(d)[5].update({"I": [{"%": 999}]}),                           # undefined operand
    lambda d: _ops(d)[5].update({"I": [{"%": "5"}]}),                           # operand id not int
    lambda d: _ops(d)[5].update({"I": [{"%": 0}, {"%": 0}]}),                   # absent required operand
    lambda d: _ops(d)[5].update({"#": "9.matmul"}),                             # unknown dialect
    lambda d: _ops(d)[5].update({"#": "1.__import__('os').system('x')"}),       # hostile op name
    lambda d: _ops(d)[5]["A"][0]["AT"].update({"#": "0.a_evil"}),               # unknown attribute kind
    lambda d: _ops(d)[5]["A"][0]["AT"].update({"D": "yes"}),                    # wrong attribute value type
    lambda d: _ops(d)[4]["A"][0]["AT"].update({"D": "feed"}),                   # reserved input name
    lambda d: _ops(d)[4]["A"][0]["AT"].update({"D": _ops(d)[0]["A"][3]}),       # input named like a parameter
    lambda d: _ops(d).pop(),                                                    # no fetch
    lambda d: _ops(d)[-1]["A"][1]["AT"].update({"D": 7}),                       # bad fetch col
    lambda d: _ops(d).insert(0, _ops(d)[-1]),                                   # fetch before its value exists
    lambda d: _ops(d).__setitem__(5, [1, 2]),                                   # op is not an object
    lambda d: d["program"]["regions"][0]["blocks"].append({"#": "b", "ops": []}),
    lambda d: _ops(d)[5].update({"regions": [{"blocks": [{"ops": [{"#": "2.yield"}]}]}]}),   # region on matmul
])
def test_malformed_programs(edit):
    d = doc()
    edit(d)
    expect_error(dump(d), files("mlp")[1])


def test_if_region_malformed():
    d = doc("tensor_if")
    if_op = [o for o in _ops(d) if o["#"] == "1.if"][0]
    if_op["regions"][1]["blocks"][0]["ops"].pop()   # the else branch loses its yield
    expect_error(dump(d), files("tensor_if")[1], match="yield")
    d = doc("tensor_if")
    if_op = [o for o in _ops(d) if o["#"] == "1.if"][0]
    if_op["regions"].pop()
    expect_error(dump(d), files("tensor_if")[1], match="region")


def test_while_body_value_does_not_leak_out():
    d = doc("tensor_while")
    while_op = [o for o in _ops(d) if o["#"] == "1.while"][0]
    body = while_op["regions"][0]["blocks"][0]["ops"]
    inner = [o for o in body if o["#"] == "1.scale"][0]["O"][0]["%"]
    _ops(d)[-1]["I"] = [{"%": inner}]      # fetch a value defined inside the loop body
    expect_error(dump(d), files("tensor_while")[1])


def mutate(data, rng):
    b = bytearray(data)
    kind = rng.integers(5)
    if kind == 0:        # flip bits
        for _ in range(rng.integers(1, 4)):
            i = rng.integers(len(b))
            b[i] ^= 1 << rng.integers(8)
    elif kind == 1:      # change a digit
        digits = [i for i, c in enumerate(b) if 48 <= c <= 57]
        i = digits[rng.integers(len(digits))]
        b[i] = 48 + (b[i] - 48 + rng.integers(1, 10)) % 10
    elif kind == 2:      # swap two JSON tokens of the same kind
        text = bytes(b)
        q = [i for i, c in enumerate(text) if c == 34]
        i, j = sorted(rng.choice(len(q) // 2, 2, replace=False) * 2)
        a0, a1, b0, b1 = q[i], q[i + 1] + 1, q[j], q[j + 1] + 1
        b = bytearray(text[:a0] + text[b0:b1] + text[a1:b0] + text[a0:a1] + text[b1:])
    elif kind == 3:      # delete a span
        i = rng.integers(len(b))
        del b[i:i + rng.integers(1, 40)]
    else:                # duplicate a span
        i = rng.integers(len(b))
        b[i:i] = b[i:i + rng.integers(1, 200)]
    return bytes(b)


def _edit_structure(d, rng):
    """A structural edit: drop, duplicate or retype a random node of the JSON tree."""
    nodes = []

    def walk(o):
        if isinstance(o, dict):
            for k in list(o):
                nodes.append((o, k))
                walk(o[k])
        elif isinstance(o, list):
            for k in range(len(o)):
                nodes.append((o, k))
                walk(o[k])
    walk(d)
    parent, key = nodes[rng.integers(len(nodes))]
    choice = rng.integers(4)
    if choice == 0:
        if isinstance(parent, dict):
            del parent[key]
        else:
            parent.pop(key)
    elif choice == 1:
        parent[key] = [None, True, -1, 2 ** 70, "", {}, [], 1.5e308][rng.integers(8)]
    elif choice == 2:
        parent[key] = copy.deepcopy(nodes[rng.integers(len(nodes))][0])
    else:
        parent[key] = {"#": "1.if", "D": [parent[key]]}
    return d


@pytest.mark.parametrize("model", MODELS)
def test_fuzz(model):
    rng = np.random.default_rng(1234 + MODELS.index(model))
    data, params = files(model)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(N):
        bad = mutate(data, rng) if rng.integers(2) else dump(_edit_structure(json.loads(data), rng))
        try:
            loaded = load(bad, params)
        except ModelFormatError as e:
            assert PATH in str(e) or "m.pdiparams" in str(e)
            outcomes["error"] += 1
        else:
            loaded.program.verify()
            outcomes["ok"] += 1
    assert outcomes["error"] > 0


def test_hostile_names_stay_data(tmp_path, monkeypatch):
    """Names from the file are only variable names: code-like input and parameter names run unchanged."""
    import dy2st as paddle
    monkeypatch.setattr(model_io, "_CATCH_ALL", True)
    d = doc()
    evil_in = "x'); __import__('os').system('touch PWNED') #\n\"\\"
    evil_param = "__builtins__.open('/tmp/PWNED','w') or w"
    params = _ops(d)
    old = params[0]["A"][3]
    params[0]["A"][3] = evil_param
    _ops(d)[4]["A"][0]["AT"]["D"] = evil_in
    (tmp_path / "m.json").write_bytes(dump(d))
    # the parameters are stored sorted by name: re-store them in the new order
    loaded = load_model_from_bytes(files("mlp")[0], files("mlp")[1])
    values = dict(loaded.params)
    values[evil_param] = values.pop(old)
    from runtime.formats.pdiparams import params_to_bytes
    (tmp_path / "m.pdiparams").write_bytes(params_to_bytes(values))
    monkeypatch.chdir(tmp_path)
    layer = paddle.jit.load(str(tmp_path / "m"))
    assert evil_in in layer._feed_names
    x = np.load(FIXTURES / "mlp" / "case0_in0.npy")
    np.testing.assert_allclose(layer(paddle.to_tensor(x)).numpy(), np.load(FIXTURES / "mlp" / "case0_out0.npy"),
                               rtol=1e-5, atol=1e-6)
    assert not (tmp_path / "PWNED").exists() and not os.path.exists("/tmp/PWNED")
