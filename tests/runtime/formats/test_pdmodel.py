"""Program <-> ProgramDesc: reading real Paddle files, the writer recipe (FORMATS.md §3, §10),
round trips of control-flow programs, the reader's tolerance (§8) and its errors."""
import pathlib

import numpy as np
import pytest

import runtime
from runtime import static
from runtime.formats import proto
from runtime.formats.errors import ModelFormatError
from runtime.formats.pdmodel import (OP_VERSION_MAP, desc_to_program, parse_program, program_to_desc,
                                     serialize_program)

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "paddle-3.3.1"


def desc_of(model):
    pd = proto.ProgramDesc()
    pd.ParseFromString((FIXTURES / model / "model.pdmodel").read_bytes())
    return pd


def attrs_of(od):
    return {a.name: (proto.ATTR_TYPE_NAME[a.type], a) for a in od.attrs}


@pytest.fixture
def static_mode():
    runtime.enable_static()
    try:
        yield
    finally:
        runtime.disable_static()


# -- reading real files -------------------------------------------------------------------------------

def test_read_zoo():
    program, feeds, fetches = desc_to_program(desc_of("zoo"), "zoo.pdmodel")
    assert feeds == ["img"] and fetches == ["softmax_0.tmp_0", "tmp_2"]
    gb = program.global_block()
    assert [op.type for op in gb.ops][:4] == ["conv2d", "reshape2", "elementwise_add", "relu"]
    assert "feed" not in gb.vars and "fetch" not in gb.vars
    pool = gb.ops[4]
    assert pool.attrs["pooling_type"] == "max" and pool.attrs["ksize"] == [2, 2] and pool.attrs["use_cudnn"] is True
    assert gb.ops[0].callstack == []   # jit.save's op_callstack is on the feed op only here
    assert gb.vars["img"].is_data and gb.vars["img"].need_check_feed and gb.vars["img"].shape == [-1, 1, 8, 8]
    assert gb.vars["conv2d_0.w_0"].persistable and gb.vars["mean_1.tmp_0"].shape == []
    program.verify()


def test_read_control_flow_sub_blocks():
    program, feeds, fetches = desc_to_program(desc_of("control_flow"))
    gb = program.global_block()
    types = [op.type for op in gb.ops]
    assert types[5:10] == ["conditional_block", "logical_not", "conditional_block", "cast", "select_input"]
    assert program.num_blocks == 4
    cb = gb.ops[5]
    assert cb.attrs["sub_block"] == 1 and cb.attrs["is_scalar_condition"] is True
    w = gb.ops[-1]
    assert w.type == "while" and w.attrs["sub_block"] == 3 and program.blocks[3].ops[-1].type == "assign"
    assert gb.vars["_generated_var_1"].type == 11   # STEP_SCOPES
    assert fetches == ["_generated_var_4"]


def test_feed_order_follows_col():
    program, feeds, _ = desc_to_program(desc_of("two_inputs_bn"))
    assert feeds == ["x", "y"]   # the file has feed(col=1, y) first, then feed(col=0, x)
    bn = program.global_block().ops[0]
    assert bn.attrs["is_test"] is True and bn.attrs["momentum"] == pytest.approx(0.9)
    assert bn.outputs["MeanOut"] == bn.inputs["Mean"]


def test_feed_order_without_col_is_reversed_op_order():
    pd = desc_of("two_inputs_bn")
    for od in pd.blocks[0].ops:
        if od.type == "feed":
            del od.attrs[:]
    _, feeds, _ = desc_to_program(pd)
    assert feeds == ["x", "y"]   # as paddle.jit.load: feed ops reversed


def test_assign_value_scalars_read():
    program, _, _ = desc_to_program(desc_of("assign_value_concat"))
    av = [op for op in program.global_block().ops if op.type == "assign_value"][0]
    assert av.attrs["values"] == [1.5, 2.5, 3.5, 4.5] and av.attrs["shape"] == [4]


@pytest.mark.parametrize("model", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()))
def test_real_files_round_trip_through_our_writer(model):
    p1, feeds, fetches = desc_to_program(desc_of(model))
    data = serialize_program(p1, feeds, fetches)
    p2, feeds2, fetches2 = parse_program(data)
    assert (feeds2, fetches2) == (feeds, fetches)
    assert str(p2) == str(p1)
    assert serialize_program(p2, feeds2, fetches2) == data


# -- the writer recipe -----------------------------------------------------------------------------------

def two_input_program():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        y = static.data("y", [None, 4], "float32")
        h = static.nn.fc(x, 4)
        z = runtime.reshape(h + y, [-1, 2, 2])
        c = runtime.full([2], 3, "int64")
        t = runtime.to_tensor(np.array([1.5, 2.5], np.float32))
    return main, startup, (x, y), (z, c, t)


def test_writer_layout(static_mode):
    main, _, (x, y), outs = two_input_program()
    pd = program_to_desc(main, ["x", "y"], [o.name for o in outs])
    b0 = pd.blocks[0]
    assert (b0.idx, b0.parent_idx) == (0, -1) and not b0.HasField("forward_block_idx")
    names = [v.name for v in b0.vars]
    assert names[-2:] == ["feed", "fetch"] and names[:-2] == sorted(names[:-2])
    holders = {v.name: v for v in b0.vars if v.name in ("feed", "fetch")}
    assert holders["feed"].type.type == 9 and holders["fetch"].type.type == 10
    assert holders["feed"].persistable and not holders["feed"].type.HasField("dense_tensor")
    ops = list(b0.ops)
    assert [o.type for o in ops[:2]] == ["feed", "feed"]
    assert [attrs_of(o)["col"][1].i for o in ops[:2]] == [1, 0]   # descending col
    assert ops[0].outputs[0].arguments == ["y"] and ops[1].inputs[0].arguments == ["feed"]
    assert [o.type for o in ops[-3:]] == ["fetch"] * 3
    assert [attrs_of(o)["col"][1].i for o in ops[-3:]] == [0, 1, 2]
    assert pd.version.version == 3003001
    assert [(p.op_name, p.op_version.version) for p in pd.op_version_map.pair] == OP_VERSION_MAP
    w = [v for v in b0.vars if v.persistable and v.name not in ("feed", "fetch")]
    assert w and all(v.type.dense_tensor.tensor.data_type == 5 for v in w)
    assert all(not v.type.dense_tensor.HasField("legacy_lod_level") for v in w)
    xd = [v for v in b0.vars if v.name == "x"][0]
    assert list(xd.type.dense_tensor.tensor.dims) == [-1, 4]


def test_writer_attr_types_come_from_the_schema(static_mode):
    main, _, _, outs = two_input_program()
    pd = program_to_desc(main, ["x", "y"], [o.name for o in outs])
    by_type = {}
    for od in pd.blocks[0].ops:
        by_type.setdefault(od.type, attrs_of(od))
    assert by_type["fill_constant"]["shape"][0] == "LONGS"
    assert list(by_type["fill_constant"]["shape"][1].longs) == [2]
    assert by_type["fill_constant"]["str_value"][1].s == "3"
    assert by_type["reshape2"]["shape"][0] == "INTS"
    assert by_type["elementwise_add"]["axis"][0] == "INT"
    assert by_type["mul"]["x_num_col_dims"][0] == "INT"
    av = by_type["assign_value"]["values"]
    assert av[0] == "SCALARS" and [(s.type, s.r) for s in av[1].scalars] == [(3, 1.5), (3, 2.5)]
    assert by_type["feed"]["col"][0] == "INT"
    # common attrs: role and the user's call site
    assert by_type["reshape2"]["op_role"][1].i == 0
    assert "test_pdmodel.py" in by_type["reshape2"]["op_callstack"][1].strings[0]
    # slots and attrs sorted by name, empty dispensable slots kept (as Paddle writes them)
    for od in pd.blocks[0].ops:
        assert [a.name for a in od.attrs] == sorted(a.name for a in od.attrs)
        assert [v.parameter for v in od.inputs] == sorted(v.parameter for v in od.inputs)
    rs = [od for od in pd.blocks[0].ops if od.type == "reshape2"][0]
    assert {v.parameter: list(v.arguments) for v in rs.inputs}["Shape"] == []


def cf_program():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        y = static.nn.fc(x, 3)
        out = static.nn.cond(runtime.mean(y) > 0, lambda: y * 2.0, lambda: runtime.nn.functional.relu(y - 1.0))
        i = runtime.zeros([1], "int64")
        n = runtime.full([1], 3, "int64")

        def body(i, o):
            o2 = static.nn.cond(runtime.sum(o) > 100.0, lambda: o * 0.5, lambda: o + 1.0)
            return [i + 1, o2]
        _, out2 = static.nn.while_loop(lambda i, o: i < n, body, [i, out])
    main.verify()
    return main, startup, x, out2


def test_control_flow_program_round_trips(static_mode):
    main, startup, x, out = cf_program()
    data = serialize_program(main, ["x"], [out.name])
    pd = proto.ProgramDesc()
    pd.ParseFromString(data)
    assert [b.parent_idx for b in pd.blocks] == [-1, 0, 0, 0, 3, 3]
    cb = [od for od in pd.blocks[0].ops if od.type == "conditional_block"][0]
    assert attrs_of(cb)["sub_block"][0] == "BLOCK" and attrs_of(cb)["sub_block"][1].block_idx == 1
    scope_var = [v for v in pd.blocks[0].vars if v.name == cb.outputs[-1].arguments[0]][0]
    assert scope_var.type.type == 11 and not scope_var.type.HasField("dense_tensor")
    loaded, feeds, fetches = parse_program(data)
    main_sorted = main.clone()
    for blk in main_sorted.blocks:
        blk.vars = dict(sorted(blk.vars.items()))
    assert str(loaded) == str(main_sorted)
    exe = static.Executor()
    scope = static.Scope()
    exe.run(startup, scope=scope)
    for xv in (np.full((2, 3), 5.0, np.float32), np.full((2, 3), -5.0, np.float32)):
        want = exe.run(main, feed={"x": xv}, fetch_list=[out], scope=scope)[0]
        got = exe.run(loaded, feed={"x": xv}, fetch_list=fetches, scope=scope)[0]
        np.testing.assert_array_equal(got, want)


def test_persistable_var_in_sub_block_is_written_to_block_0(static_mode):
    main, _, _, out = cf_program()
    main.blocks[1].create_var(name="stray_w", shape=[2], dtype="float32", persistable=True)
    pd = program_to_desc(main, ["x"], [out.name])
    assert "stray_w" in [v.name for v in pd.blocks[0].vars]
    assert "stray_w" not in [v.name for v in pd.blocks[1].vars]


def test_float_attrs_read_back_as_written(static_mode):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        y = runtime.scale(x, scale=0.1, bias=-2.5)
        z = runtime.nn.functional.leaky_relu(y)
    loaded, _, _ = parse_program(serialize_program(main, ["x"], [z.name]))
    sc = [op for op in loaded.global_block().ops if op.type == "scale"][0]
    assert sc.attrs["scale"] == 0.1 and sc.attrs["bias"] == -2.5   # not 0.10000000149011612
    lr = [op for op in loaded.global_block().ops if op.type == "leaky_relu"][0]
    assert lr.attrs["alpha"] == main.global_block().ops[-1].attrs["alpha"]


def test_writer_errors(static_mode):
    main, _, _, outs = two_input_program()
    with pytest.raises(ValueError, match="feed variable 'nope'"):
        program_to_desc(main, ["nope"], [])
    with pytest.raises(ValueError, match="fetch variable 'nope'"):
        program_to_desc(main, ["x"], ["nope"])
    main.global_block().create_var(name="feed", shape=[1])
    with pytest.raises(ValueError, match="reserves for its feed/fetch holders"):
        program_to_desc(main, ["x"], [])


# -- tolerance -----------------------------------------------------------------------------------------

def _linear_relu():
    return desc_of("linear_relu")


def _op(pd, type_):
    return [od for od in pd.blocks[0].ops if od.type == type_][0]


def test_missing_attrs_take_schema_defaults_and_unknown_attrs_are_dropped():
    pd = _linear_relu()
    mm = _op(pd, "matmul_v2")
    keep = [a for a in mm.attrs if a.name not in ("trans_x", "trans_y")]
    del mm.attrs[:]
    mm.attrs.extend(keep)
    mm.attrs.add(name="use_mkldnn_whatever", type=proto.ATTR_TYPE["BOOLEAN"], b=True)
    program, _, _ = desc_to_program(pd)
    op = [o for o in program.global_block().ops if o.type == "matmul_v2"][0]
    assert op.attrs == {"trans_x": False, "trans_y": False}


def test_compatible_attr_types_are_converted():
    pd = _linear_relu()
    add = _op(pd, "elementwise_add")
    for a in add.attrs:
        if a.name == "axis":
            a.type, a.l = proto.ATTR_TYPE["LONG"], -1
            a.ClearField("i")
    program, _, _ = desc_to_program(pd)
    assert [o for o in program.global_block().ops if o.type == "elementwise_add"][0].attrs["axis"] == -1


def test_legacy_assign_value_attrs():
    pd = desc_of("assign_value_concat")
    av = _op(pd, "assign_value")
    keep = [a for a in av.attrs if a.name != "values"]
    del av.attrs[:]
    av.attrs.extend(keep)
    av.attrs.add(name="fp32_values", type=proto.ATTR_TYPE["FLOATS"], floats=[1.5, 2.5, 3.5, 4.5])
    program, _, _ = desc_to_program(pd)
    op = [o for o in program.global_block().ops if o.type == "assign_value"][0]
    assert op.attrs["values"] == [1.5, 2.5, 3.5, 4.5]


def test_no_version_fields():
    pd = _linear_relu()
    pd.ClearField("version")
    pd.ClearField("op_version_map")
    program, feeds, _ = desc_to_program(pd)
    assert feeds == ["x"]


# -- errors ---------------------------------------------------------------------------------------------

def _raises(pd, match):
    with pytest.raises(ModelFormatError, match=match) as e:
        desc_to_program(pd, "m.pdmodel")
    assert str(e.value).startswith("m.pdmodel: ")


def test_unknown_op_type_is_named():
    pd = _linear_relu()
    _op(pd, "relu").type = "frobnicate"
    _raises(pd, "unknown op type 'frobnicate'")


def test_missing_var_desc():
    pd = _linear_relu()
    _op(pd, "relu").outputs[0].arguments[0] = "ghost"
    _raises(pd, "variable 'ghost' .* has no VarDesc")


def test_incompatible_attr_type():
    pd = _linear_relu()
    for a in _op(pd, "elementwise_add").attrs:
        if a.name == "axis":
            a.type, a.s = proto.ATTR_TYPE["STRING"], "x"
    _raises(pd, "attribute 'axis' has type STRING, but the op declares INT")


def test_bad_blocks():
    pd = _linear_relu()
    pd.blocks[0].idx = 3
    _raises(pd, "block 0 says it is block 3")
    pd = desc_of("control_flow")
    pd.blocks[2].parent_idx = 7
    _raises(pd, "invalid parent_idx 7")
    pd = desc_of("control_flow")
    for a in _op(pd, "while").attrs:
        if a.name == "sub_block":
            a.block_idx = 9
    _raises(pd, "sub-block 9, which does not exist")
    pd = desc_of("control_flow")
    w = _op(pd, "while")
    keep = [a for a in w.attrs if a.name != "sub_block"]
    del w.attrs[:]
    w.attrs.extend(keep)
    _raises(pd, "required attribute 'sub_block' is missing")


def test_bad_feed_fetch():
    pd = desc_of("two_inputs_bn")
    for od in pd.blocks[0].ops:
        if od.type == "feed":
            for a in od.attrs:
                if a.name == "col":
                    a.i = 5
    _raises(pd, "col attributes")
    pd = _linear_relu()
    _op(pd, "fetch").inputs[0].arguments[0] = "nothing"
    _raises(pd, "fetch target 'nothing' has no VarDesc")


def test_unsupported_var_kind_and_dtype():
    pd = _linear_relu()
    pd.blocks[0].vars[0].type.type = proto.VAR_TYPE["READER"]
    _raises(pd, "unsupported variable kind READER")
    pd = _linear_relu()
    pd.blocks[0].vars[0].type.dense_tensor.tensor.data_type = proto.VAR_TYPE["BF16"]
    _raises(pd, "unsupported data type BF16")


def test_inconsistent_program_fails_verification():
    pd = _linear_relu()
    for v in pd.blocks[0].vars:
        if v.name == "relu_0.tmp_0":
            del v.type.dense_tensor.tensor.dims[:]
            v.type.dense_tensor.tensor.dims.extend([7, 7, 7])
    _raises(pd, "(?s)inconsistent.*relu.*shape \\[7, 7, 7\\]")


def test_not_a_protobuf():
    with pytest.raises(ModelFormatError, match="not a valid ProgramDesc"):
        parse_program(b"\xff\xff\xff", "m.pdmodel")
    with pytest.raises(ModelFormatError, match="lacks required fields"):
        parse_program(b"\x0a\x00", "m.pdmodel")
    with pytest.raises(ModelFormatError, match="no blocks"):
        parse_program(b"", "m.pdmodel")


def test_negative_dims_below_minus_one_read_as_unknown():
    # Paddle's infer-shape writes e.g. instance_norm's SavedMean as [-4] (-1 batch * 4 channels)
    pd = desc_of("zoo")
    for vd in pd.blocks[0].vars:
        if vd.name == "img":
            vd.type.dense_tensor.tensor.dims[:] = [-4, 1, 8, 8]
    program, _, _ = desc_to_program(pd)
    assert program.global_block().vars["img"].shape == [-1, 1, 8, 8]
