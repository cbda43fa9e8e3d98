"""Nothing read from a model file becomes code: real Paddle fixtures rewritten with hostile text.

Every variable name, every op's ``op_callstack`` and stray attribute strings are replaced with
text that would run Python if it reached generated source (newlines, quotes, triple quotes,
backslashes, NUL bytes, keywords, names that Python's NFKC folding makes equal). The model must
still load and give the fixture's reference outputs through ``jit.load``, ``load_inference_model``
+ the compiled executor and the ``dy2st run`` command, or fail with a clean ``ModelFormatError``,
and the marker file the payload would create never appears. The compiled executor used to write
``op_callstack`` into its generated source as a comment: a newline ended the comment.
"""
import os
import pathlib
import pickle
import subprocess
import sys

import numpy as np
import pytest

import dy2st as paddle
from runtime.formats import proto
from runtime.formats.errors import ModelFormatError

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "paddle-3.3.1"
ROOT = pathlib.Path(__file__).resolve().parents[3]


def _payload(marker):
    # each ends a comment / string / line of generated source if pasted into it
    code = f"open({str(marker)!r}, 'w').write('pwned')"
    return [
        f"x\n{code}\n#",
        f"x\n    {code}\n    #",                   # indented as a statement of the generated function
        f"x\r\n{code}\r\n",
        f'x"""\n{code}\n"""',
        f"x'\n{code}\n'",
        f"x\\\n{code}",
        f"x\x00{code}",
        f"x\x0c\x0b{code}",
        "lambda", "None", "def", "__import__",
    ]


def _rename_all(desc, fn):
    """Rename every variable of ``desc`` (VarDescs and op arguments) with ``fn``."""
    for blk in desc.blocks:
        for v in blk.vars:
            v.name = fn(v.name)
        for op in blk.ops:
            for slot in list(op.inputs) + list(op.outputs):
                slot.arguments[:] = [fn(a) for a in slot.arguments]


def _set_callstacks(desc, texts):
    for blk in desc.blocks:
        for i, op in enumerate(blk.ops):
            for a in op.attrs:
                if a.name == "op_callstack":
                    break
            else:
                a = op.attrs.add()
                a.name = "op_callstack"
                a.type = proto.ATTR_TYPE["STRINGS"]
            # as Paddle writes it ('  File "f.py", line 3, in fn' then the source line), and raw
            a.strings[:] = [f'  File "model.py", line 1, in f\n    {texts[0]}', texts[0]] if i % 2 else \
                [f'  File "{texts[0]}", line 1, in f\n    {texts[0]}', texts[0]]
            stray = op.attrs.add()        # an attribute no op declares: dropped by the reader
            stray.name = texts[0]
            stray.type = proto.ATTR_TYPE["STRING"]
            stray.s = texts[0]


def _write_hostile(src_dir, dst_prefix, rename, marker, payload_index=0):
    """The fixture in ``src_dir`` with names mapped by ``rename`` and hostile call stacks."""
    desc = proto.ProgramDesc()
    desc.ParseFromString((src_dir / "model.pdmodel").read_bytes())
    _rename_all(desc, rename)
    _set_callstacks(desc, [_payload(marker)[payload_index]])
    pathlib.Path(str(dst_prefix) + ".pdmodel").write_bytes(desc.SerializeToString())
    # persistables keep their relative (sorted) order under a common prefix: the .pdiparams
    # stream needs no change; the info pickle gets the new keys
    pathlib.Path(str(dst_prefix) + ".pdiparams").write_bytes((src_dir / "model.pdiparams").read_bytes())
    with open(src_dir / "model.pdiparams.info", "rb") as f:
        info = pickle.load(f)   # our own fixture, trusted
    info = {rename(k): dict(v, structured_name=rename(v.get("structured_name", k))) for k, v in info.items()}
    pathlib.Path(str(dst_prefix) + ".pdiparams.info").write_bytes(pickle.dumps(info, protocol=2))


def _prefix_rename(prefix):
    return lambda n: n if n in ("feed", "fetch") else prefix + n


def _nfkc_rename(src_dir):
    """Names that differ as strings but are the same Python identifier after NFKC folding
    (persistables keep theirs: the .pdiparams stream is in their sorted order)."""
    desc = proto.ProgramDesc()
    desc.ParseFromString((src_dir / "model.pdmodel").read_bytes())
    keep = {v.name for blk in desc.blocks for v in blk.vars if v.persistable}
    table = {}

    def rename(n):
        if n in ("feed", "fetch") or n in keep:
            return n
        if n not in table:
            k = len(table)
            table[n] = ("\ufb01x" if k % 2 else "fix") + "_" * (k // 2)   # 'ﬁx' folds to 'fix'
        return table[n]
    return rename


CASES = [("linear_relu", "prefix"), ("control_flow", "prefix"), ("control_flow", "nfkc"), ("zoo", "prefix")]


def _references(d):
    ins = [np.load(d / "model.ref_in.npy")]
    outs = sorted(p for p in os.listdir(d) if p.startswith("model.ref_out") and "neg" not in p)
    return ins, [np.load(d / p) for p in outs]


@pytest.mark.parametrize("model,how", CASES)
@pytest.mark.parametrize("payload_index", range(len(_payload("m"))))
def test_hostile_model_loads_and_runs_without_running_its_text(tmp_path, model, how, payload_index):
    marker = tmp_path / "MARKER"
    d = FIXTURES / model
    if how == "prefix":
        rename = _prefix_rename(_payload(marker)[payload_index])
    elif payload_index:
        pytest.skip("one NFKC case is enough")
    else:
        rename = _nfkc_rename(d)
    prefix = tmp_path / "m"
    _write_hostile(d, prefix, rename, marker, payload_index)
    ins, refs = _references(d)

    layer = paddle.jit.load(str(prefix))
    got = layer(*[paddle.to_tensor(a) for a in ins])
    got = got if isinstance(got, (list, tuple)) else [got]
    for g, r in zip(got, refs):
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-5, atol=1e-6)

    paddle.enable_static()
    try:
        exe = paddle.static.Executor()
        program, feeds, fetches = paddle.static.load_inference_model(str(prefix), exe)
        outs = exe.run(program, feed=dict(zip(feeds, ins)), fetch_list=fetches)
        for g, r in zip(outs, refs):
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
        # the listing people read shows the hostile text escaped, on one line per statement
        listing = exe.code(program, feeds, [f.name for f in fetches])
        compile(listing, "<listing>", "exec")
    finally:
        paddle.disable_static()
    assert not marker.exists()


def test_hostile_model_through_the_command_line(tmp_path):
    marker = tmp_path / "MARKER"
    d = FIXTURES / "control_flow"
    prefix = tmp_path / "m"
    _write_hostile(d, prefix, _prefix_rename(_payload(marker)[0]), marker)
    ins, refs = _references(d)
    np.save(tmp_path / "x.npy", ins[0])
    desc = proto.ProgramDesc()
    desc.ParseFromString(pathlib.Path(str(prefix) + ".pdmodel").read_bytes())
    feed_name = next(op.outputs[0].arguments[0] for op in desc.blocks[0].ops if op.type == "feed")
    proc = subprocess.run([sys.executable, "-m", "dy2st", "run", str(prefix), "--input",
                           f"{feed_name}={tmp_path / 'x.npy'}", "--output", str(tmp_path / "out")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    # a name with a newline cannot be given on the command line as name=FILE; either way no code runs
    assert proc.returncode in (0, 1, 2), proc.stderr
    assert "Traceback" not in proc.stderr
    assert not marker.exists()


@pytest.mark.parametrize("bad_type", ["relu\nopen('x','w')", "relu\x00", "fused_elementwise_chain",
                                      "folded_constant", "py_func"])
def test_op_types_from_a_file_are_never_trusted(tmp_path, bad_type):
    d = FIXTURES / "linear_relu"
    desc = proto.ProgramDesc()
    desc.ParseFromString((d / "model.pdmodel").read_bytes())
    victim = next(op for op in desc.blocks[0].ops if op.type not in ("feed", "fetch"))
    victim.type = bad_type
    prefix = tmp_path / "m"
    pathlib.Path(str(prefix) + ".pdmodel").write_bytes(desc.SerializeToString())
    for ext in ("pdiparams", "pdiparams.info"):
        pathlib.Path(f"{prefix}.{ext}").write_bytes((d / f"model.{ext}").read_bytes())
    with pytest.raises(ModelFormatError) as ei:
        paddle.jit.load(str(prefix))
    assert "m.pdmodel" in str(ei.value)


def test_fused_chain_steps_are_validated_before_code_generation():
    """The internal fused op builds code from its ``steps`` attribute: it must reject anything but
    its own well-formed steps (here an ``axis`` that is Python source)."""
    from runtime.ops.fused import _make_chain
    evil = '[["elementwise_add", {"axis": "__import__(\'os\')"}, [0, 1]]]'
    with pytest.raises(ValueError, match="malformed"):
        _make_chain(evil, -1)
    with pytest.raises(ValueError, match="malformed"):
        _make_chain('[["elementwise_add", {}, ["0\\n1"]]]', -1)
