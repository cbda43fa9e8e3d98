"""framework.proto built at run time: byte-identical re-serialization of real files, field
numbers and encodings from FORMATS.md §2-§4, required fields, and the private descriptor pool."""
import pathlib

import pytest
from google.protobuf import descriptor_pool

from runtime.formats import proto

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "paddle-3.3.1"
MODELS = sorted(p for p in FIXTURES.glob("*/model.pdmodel"))


@pytest.mark.parametrize("path", MODELS, ids=[p.parent.name for p in MODELS])
def test_real_pdmodel_reserializes_byte_identical(path):
    data = path.read_bytes()
    pd = proto.ProgramDesc()
    pd.ParseFromString(data)
    assert pd.IsInitialized()
    assert pd.SerializeToString() == data
    assert pd.version.version == 3003001
    assert len(pd.op_version_map.pair) == 76


def test_linear_relu_header_bytes():
    data = (FIXTURES / "linear_relu" / "model.pdmodel").read_bytes()
    # blocks (field 1, LEN), then BlockDesc.idx = 0 and parent_idx = -1 as a 10-byte varint
    assert data[0] == 0x0A
    pd = proto.ProgramDesc()
    pd.ParseFromString(data)
    block = pd.blocks[0].SerializeToString()
    assert block[:13] == bytes.fromhex("0800" "10ffffffffffffffffff01")
    # the version field written by Paddle 3.3.1
    assert bytes.fromhex("2205 08f9a4b701") in data


def test_field_numbers_follow_framework_proto():
    f = proto.OpDesc.DESCRIPTOR.fields_by_name
    assert (f["type"].number, f["inputs"].number, f["outputs"].number, f["attrs"].number) == (3, 1, 2, 4)
    a = proto.OpDesc.DESCRIPTOR.nested_types_by_name["Attr"].fields_by_name
    assert a["block_idx"].number == 12 and a["l"].number == 13 and a["scalars"].number == 21
    assert proto.VarType.DESCRIPTOR.fields_by_name["dense_tensor"].number == 3
    assert proto.BlockDesc.DESCRIPTOR.fields_by_name["forward_block_idx"].default_value == -1
    assert proto.ATTR_TYPE["SCALARS"] == 17 and proto.VAR_TYPE["DENSE_TENSOR"] == 7
    assert proto.VAR_TYPE["STEP_SCOPES"] == 11 and proto.VAR_TYPE["FP32"] == 5


def test_tensor_desc_encoding_matches_the_params_file():
    # FORMATS §5: TensorDesc{FP32, dims=[4, 3]} is 08 05 10 04 10 03 (dims unpacked)
    assert proto.TensorDesc(data_type=5, dims=[4, 3]).SerializeToString() == bytes.fromhex("080510041003")


def test_required_fields_are_enforced():
    od = proto.OpDesc()
    od.inputs.add(parameter="X", arguments=["x"])
    with pytest.raises(Exception, match="type"):
        od.SerializeToString()
    t = proto.TensorDesc()
    t.ParseFromString(bytes.fromhex("1003"))   # dims only: parses but is not initialized
    assert not t.IsInitialized()


def test_private_pool_leaves_the_default_pool_alone():
    with pytest.raises(KeyError):
        descriptor_pool.Default().FindFileByName("paddle/fluid/framework/framework.proto")
    assert proto.POOL.FindMessageTypeByName("paddle.framework.proto.ProgramDesc") is proto.ProgramDesc.DESCRIPTOR


def test_scalar_and_attr_messages():
    a = proto.OpDesc.Attr(name="values", type=proto.ATTR_TYPE["SCALARS"])
    s = a.scalars.add(type=proto.Scalar.FLOAT64, r=1.5)
    assert s.r == 1.5
    back = proto.OpDesc.Attr()
    back.ParseFromString(a.SerializeToString())
    assert back.scalars[0].type == proto.Scalar.FLOAT64 and back.scalars[0].r == 1.5
