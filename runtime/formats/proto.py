"""Paddle's framework.proto messages (ProgramDesc and friends), built at run time.

The schema is declared in code as a ``FileDescriptorProto`` and added to a private
``DescriptorPool`` (no protoc, no generated ``_pb2`` files), so it never clashes with a
``framework_pb2`` that an imported paddle has put in the default pool. Field names,
numbers, labels and defaults follow Paddle 3.3.1's ``framework.proto`` (FORMATS.md §2.1),
so serialized messages are byte-identical to Paddle's.
"""
from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = ["ProgramDesc", "BlockDesc", "VarDesc", "VarType", "TensorDesc", "OpDesc", "Scalar", "Complex",
           "Version", "OpVersionMap", "ATTR_TYPE", "ATTR_TYPE_NAME", "VAR_TYPE", "VAR_TYPE_NAME", "PACKAGE"]

PACKAGE = "paddle.framework.proto"
_F = descriptor_pb2.FieldDescriptorProto
_OPT, _REQ, _REP = _F.LABEL_OPTIONAL, _F.LABEL_REQUIRED, _F.LABEL_REPEATED
_SCALAR_TYPES = {"int32": _F.TYPE_INT32, "int64": _F.TYPE_INT64, "float": _F.TYPE_FLOAT, "double": _F.TYPE_DOUBLE,
                 "bool": _F.TYPE_BOOL, "string": _F.TYPE_STRING}

ATTR_TYPE_NAME = ("INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS", "BOOLEAN", "BOOLEANS", "BLOCK", "LONG",
                  "BLOCKS", "LONGS", "FLOAT64S", "VAR", "VARS", "FLOAT64", "SCALAR", "SCALARS")
ATTR_TYPE = {n: i for i, n in enumerate(ATTR_TYPE_NAME)}

VAR_TYPE = {
    "BOOL": 0, "INT16": 1, "INT32": 2, "INT64": 3, "FP16": 4, "FP32": 5, "FP64": 6, "SIZE_T": 19, "UINT8": 20,
    "INT8": 21, "BF16": 22, "COMPLEX64": 23, "COMPLEX128": 24, "FP8_E4M3FN": 32, "FP8_E5M2": 33, "UINT16": 36,
    "UINT32": 37, "UINT64": 38,
    "DENSE_TENSOR": 7, "SELECTED_ROWS": 8, "FEED_MINIBATCH": 9, "FETCH_LIST": 10, "STEP_SCOPES": 11,
    "LOD_RANK_TABLE": 12, "DENSE_TENSOR_ARRAY": 13, "PLACE_LIST": 14, "READER": 15, "RAW": 17, "TUPLE": 18,
    "STRING": 25, "STRINGS": 26, "VOCAB": 27, "FEED_LIST": 28, "PSTRING": 29, "SPARSE_COO": 30, "SPARSE_CSR": 31,
}
VAR_TYPE_NAME = {v: k for k, v in VAR_TYPE.items()}


def _field(msg, name, number, label, typ, default=None):
    """Add a field; ``typ`` is a scalar type name or a (dotted, package-relative) message/enum name."""
    kw = {}
    if typ in _SCALAR_TYPES:
        kw["type"] = _SCALAR_TYPES[typ]
    else:
        kind, ref = typ.split(":")
        kw["type"] = _F.TYPE_ENUM if kind == "enum" else _F.TYPE_MESSAGE
        kw["type_name"] = f".{PACKAGE}.{ref}"
    if default is not None:
        kw["default_value"] = default
    msg.field.add(name=name, number=number, label=label, **kw)


def _enum(parent, name, values):
    e = parent.enum_type.add(name=name)
    for k, v in values:
        e.value.add(name=k, number=v)


def _build_file() -> descriptor_pb2.FileDescriptorProto:
    fdp = descriptor_pb2.FileDescriptorProto(name="paddle/fluid/framework/framework.proto", package=PACKAGE,
                                             syntax="proto2")
    _enum(fdp, "AttrType", list(ATTR_TYPE.items()))

    m = fdp.message_type.add(name="Version")
    _field(m, "version", 1, _OPT, "int64", "0")

    m = fdp.message_type.add(name="Complex")
    _field(m, "r", 1, _REQ, "double")
    _field(m, "i", 2, _REQ, "double")

    m = fdp.message_type.add(name="Scalar")
    _enum(m, "Type", [("BOOLEAN", 1), ("LONG", 2), ("FLOAT64", 3), ("COMPLEX128", 4)])
    _field(m, "type", 1, _REQ, "enum:Scalar.Type")
    _field(m, "b", 2, _OPT, "bool")
    _field(m, "i", 3, _OPT, "int64")
    _field(m, "r", 4, _OPT, "double")
    _field(m, "c", 5, _OPT, "msg:Complex")

    m = fdp.message_type.add(name="OpDesc")
    a = m.nested_type.add(name="Attr")
    for name, num, label, typ in [
            ("name", 1, _REQ, "string"), ("type", 2, _REQ, "enum:AttrType"), ("i", 3, _OPT, "int32"),
            ("f", 4, _OPT, "float"), ("s", 5, _OPT, "string"), ("ints", 6, _REP, "int32"),
            ("floats", 7, _REP, "float"), ("strings", 8, _REP, "string"), ("b", 10, _OPT, "bool"),
            ("bools", 11, _REP, "bool"), ("block_idx", 12, _OPT, "int32"), ("l", 13, _OPT, "int64"),
            ("blocks_idx", 14, _REP, "int32"), ("longs", 15, _REP, "int64"), ("float64s", 16, _REP, "double"),
            ("var_name", 17, _OPT, "string"), ("vars_name", 18, _REP, "string"), ("float64", 19, _OPT, "double"),
            ("scalar", 20, _OPT, "msg:Scalar"), ("scalars", 21, _REP, "msg:Scalar")]:
        _field(a, name, num, label, typ)
    v = m.nested_type.add(name="Var")
    _field(v, "parameter", 1, _REQ, "string")
    _field(v, "arguments", 2, _REP, "string")
    _field(m, "type", 3, _REQ, "string")
    _field(m, "inputs", 1, _REP, "msg:OpDesc.Var")
    _field(m, "outputs", 2, _REP, "msg:OpDesc.Var")
    _field(m, "attrs", 4, _REP, "msg:OpDesc.Attr")
    _field(m, "is_target", 5, _OPT, "bool", "false")

    m = fdp.message_type.add(name="VarType")
    _enum(m, "Type", sorted(VAR_TYPE.items(), key=lambda kv: kv[1]))
    t = m.nested_type.add(name="TensorDesc")
    _field(t, "data_type", 1, _REQ, "enum:VarType.Type")
    _field(t, "dims", 2, _REP, "int64")
    for name in ("DenseTensorDesc", "DenseTensorArrayDesc"):
        d = m.nested_type.add(name=name)
        _field(d, "tensor", 1, _REQ, "msg:VarType.TensorDesc")
        _field(d, "legacy_lod_level", 2, _OPT, "int32", "0")
    r = m.nested_type.add(name="ReaderDesc")
    _field(r, "dense_tensor", 1, _REP, "msg:VarType.DenseTensorDesc")
    tu = m.nested_type.add(name="Tuple")
    _field(tu, "element_type", 1, _REP, "enum:VarType.Type")
    _field(m, "type", 1, _REQ, "enum:VarType.Type")
    _field(m, "selected_rows", 2, _OPT, "msg:VarType.TensorDesc")
    _field(m, "dense_tensor", 3, _OPT, "msg:VarType.DenseTensorDesc")
    _field(m, "tensor_array", 4, _OPT, "msg:VarType.DenseTensorArrayDesc")
    _field(m, "reader", 5, _OPT, "msg:VarType.ReaderDesc")
    _field(m, "tuple", 7, _OPT, "msg:VarType.Tuple")
    for name, num in (("string", 8), ("strings", 9), ("vocab", 10), ("sparse_coo", 11), ("sparse_csr", 12)):
        _field(m, name, num, _OPT, "msg:VarType.TensorDesc")

    m = fdp.message_type.add(name="VarDesc")
    a = m.nested_type.add(name="Attr")
    _field(a, "name", 1, _REQ, "string")
    _field(a, "type", 2, _REQ, "enum:AttrType")
    _field(a, "i", 3, _OPT, "int32")
    _field(a, "s", 4, _OPT, "string")
    _field(a, "ints", 5, _REP, "int32")
    _field(m, "name", 1, _REQ, "string")
    _field(m, "type", 2, _REQ, "msg:VarType")
    _field(m, "persistable", 3, _OPT, "bool", "false")
    _field(m, "need_check_feed", 4, _OPT, "bool", "false")
    _field(m, "is_parameter", 5, _OPT, "bool", "false")
    _field(m, "stop_gradient", 6, _OPT, "bool", "false")
    _field(m, "attrs", 7, _REP, "msg:VarDesc.Attr")

    m = fdp.message_type.add(name="BlockDesc")
    _field(m, "idx", 1, _REQ, "int32")
    _field(m, "parent_idx", 2, _REQ, "int32")
    _field(m, "vars", 3, _REP, "msg:VarDesc")
    _field(m, "ops", 4, _REP, "msg:OpDesc")
    _field(m, "forward_block_idx", 5, _OPT, "int32", "-1")

    m = fdp.message_type.add(name="OpVersion")
    _field(m, "version", 1, _REQ, "int32")
    m = fdp.message_type.add(name="OpVersionMap")
    p = m.nested_type.add(name="OpVersionPair")
    _field(p, "op_name", 1, _REQ, "string")
    _field(p, "op_version", 2, _REQ, "msg:OpVersion")
    _field(m, "pair", 1, _REP, "msg:OpVersionMap.OpVersionPair")

    m = fdp.message_type.add(name="ProgramDesc")
    for lo in (2, 3):
        m.reserved_range.add(start=lo, end=lo + 1)
    _field(m, "blocks", 1, _REP, "msg:BlockDesc")
    _field(m, "version", 4, _OPT, "msg:Version")
    _field(m, "op_version_map", 5, _OPT, "msg:OpVersionMap")
    return fdp


POOL = descriptor_pool.DescriptorPool()
POOL.Add(_build_file())


def _cls(name):
    desc = POOL.FindMessageTypeByName(f"{PACKAGE}.{name}")
    get = getattr(message_factory, "GetMessageClass", None)
    if get is not None:
        return get(desc)
    return message_factory.MessageFactory(POOL).GetPrototype(desc)   # protobuf < 4.22


ProgramDesc = _cls("ProgramDesc")
BlockDesc = _cls("BlockDesc")
VarDesc = _cls("VarDesc")
VarType = _cls("VarType")
TensorDesc = _cls("VarType.TensorDesc")
OpDesc = _cls("OpDesc")
Scalar = _cls("Scalar")
Complex = _cls("Complex")
Version = _cls("Version")
OpVersionMap = _cls("OpVersionMap")
