"""Hand-made hostile pickles against the restricted unpickler: each one a fault measured on the
previous (``pickle.Unpickler``-based) loader, or a close relative. Every case must fail with a
`ModelFormatError` naming the file, quickly and without allocating what the file claims."""
import codecs
import collections
import pickle
import struct
import tracemalloc

import numpy as np
import pytest

from runtime.formats.errors import ModelFormatError, UnsafePickleError
from runtime.formats.safe_pickle import MAX_DEPTH, MAX_KEY_ITEMS, MAX_SAME_HASH, safe_loads

P2 = b"\x80\x02"
NDARRAY = b"cnumpy\nndarray\n"
RECONSTRUCT = b"cnumpy.core.multiarray\n_reconstruct\n"
DTYPE = b"cnumpy\ndtype\n"


def uni(s: str) -> bytes:
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def binbytes(b: bytes) -> bytes:
    return b"B" + struct.pack("<I", len(b)) + b


def long1(n: int) -> bytes:
    b = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(b)]) + b


def dtype(descr: str, order=None) -> bytes:
    """numpy.dtype(descr, False, True) and BUILD with the plain state numpy writes."""
    if order is None:
        order = "|" if descr in ("b1", "i1", "u1") else "<"
    state = b"(K\x03" + uni(order) + b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00t"
    return DTYPE + uni(descr) + b"\x89\x88\x87R" + state + b"b"


def array(shape_ops: bytes, descr: str, data: bytes) -> bytes:
    """_reconstruct(ndarray, (0,), b'b') then BUILD (1, shape, dtype, False, data); shape_ops pushes the shape."""
    return (RECONSTRUCT + NDARRAY + b"K\x00\x85" + binbytes(b"b") + b"\x87R"
            + b"(K\x01" + shape_ops + dtype(descr) + b"\x89" + binbytes(data) + b"tb")


def load(data, **kw):
    return safe_loads(data, path="f.pdparams", **kw)


def refused(data, match, error=ModelFormatError):
    with pytest.raises(error, match=match) as e:
        load(data)
    assert str(e.value).startswith("f.pdparams: "), e.value
    return e.value


def test_the_array_helper_builds_what_numpy_would():
    got = load(P2 + array(b"K\x02K\x03\x86", "f4", np.arange(6, dtype="<f4").tobytes()) + b".")
    np.testing.assert_array_equal(got, np.arange(6, dtype=np.float32).reshape(2, 3))
    assert got.flags.writeable


# -- cycles, depth, size ---------------------------------------------------------------------------------

@pytest.mark.parametrize("data", [P2 + b"]q\x00h\x00a.",                      # L = [L]
                                  P2 + b"}q\x00K\x01h\x00s.",                  # D = {1: D}
                                  P2 + b"]q\x00h\x00\x85q\x01a.",              # L = [(L,)]
                                  P2 + b"]q\x00(h\x00h\x00e."])                # L = [L, L]
def test_reference_cycles_are_refused(data):
    refused(data, "contains itself", UnsafePickleError)


def test_deep_nesting_is_refused_without_recursion_error():
    n = 300_000
    refused(P2 + b"]" * n + b"a" * (n - 1) + b".", f"nested more than {MAX_DEPTH} levels")
    refused(P2 + b")" + b"\x85" * n + b".", f"nested more than {MAX_DEPTH} levels")


def test_nesting_up_to_the_limit_loads():
    depth = MAX_DEPTH - 1
    got = load(P2 + b"]" * depth + b"a" * (depth - 1) + b".")
    for _ in range(depth - 1):
        got = got[0]
    assert got == []


def test_a_deep_tuple_as_a_dict_key_is_refused_before_hashing():
    # hashing a tuple nested 300,000 levels deep recurses in C and can crash the process
    refused(P2 + b"}" + b")" + b"\x85" * 300_000 + b"Ns.", "nested more than")


def test_big_tuple_keys_are_refused():
    # Python recomputes a tuple's hash at every insert: one 100,000-item key inserted 300,000 times (a
    # 1 MB file) is 3e10 steps
    key = b"(" + b"K\x01" * (MAX_KEY_ITEMS + 1) + b"tq\x00"
    refused(P2 + b"}" + key + b"Ns.", f"more than {MAX_KEY_ITEMS} items")
    nested = b"(" + b"(" + b"K\x01" * 600 + b"t" + b"(" + b"K\x02" * 600 + b"tt"
    refused(P2 + b"\x8f(" + nested + b"\x90.", f"more than {MAX_KEY_ITEMS} items")
    ok = b"(" + b"K\x01" * MAX_KEY_ITEMS + b"tq\x00"
    assert len(load(P2 + b"}" + ok + b"Ns" + b"h\x00Ns" * 10 + b".")) == 1   # the same key, inserted 11 times


def test_shared_references_cannot_expand_exponentially():
    # x0 = []; x(k+1) = [xk, xk]: 60 levels of 2 references each describe 2**60 paths
    body = b"]q\x00"
    for k in range(60):
        body += b"(h" + bytes([k]) + b"h" + bytes([k]) + b"lq" + bytes([k + 1])
    refused(P2 + body + b".", "more than .* nodes")


def test_hash_flooding_keys_are_refused():
    # ints that are equal modulo 2**61 - 1 share one hash: every insert would probe every other
    keys = b"".join(long1(k * (2 ** 61 - 1)) + b"N" for k in range(1, MAX_SAME_HASH + 2))
    refused(P2 + b"}(" + keys + b"u.", "share a hash value")
    refused(b"\x80\x04\x8f(" + keys.replace(b"N", b"") + b"\x90.", "share a hash value")
    ok = b"".join(long1(k * (2 ** 61 - 1)) + b"N" for k in range(1, MAX_SAME_HASH))
    assert len(load(P2 + b"}(" + ok + b"u.")) == MAX_SAME_HASH - 1


# -- allocations from thin air -----------------------------------------------------------------------------

HUGE = [
    pytest.param(b"\x80\x04\x8e" + struct.pack("<Q", 5 << 30) + b"x" * 10 + b".", id="BINBYTES8"),
    pytest.param(b"\x80\x05\x96" + struct.pack("<Q", 5 << 30) + b"x" * 10 + b".", id="BYTEARRAY8"),
    pytest.param(b"\x80\x04\x8d" + struct.pack("<Q", 5 << 30) + b"x" * 10 + b".", id="BINUNICODE8"),
    pytest.param(b"\x80\x04\x95" + struct.pack("<Q", 5 << 30) + b"N.", id="FRAME"),
    pytest.param(P2 + b"\x8b" + struct.pack("<i", 2 ** 31 - 1) + b"x.", id="LONG4"),
    pytest.param(P2 + b"T" + struct.pack("<i", 2 ** 31 - 1) + b"x.", id="BINSTRING"),
]


@pytest.mark.parametrize("data", HUGE)
def test_claimed_lengths_are_checked_before_allocating(data):
    tracemalloc.start()
    try:
        refused(data, "bytes left|longer than")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 << 20, peak


def test_a_huge_memo_index_allocates_nothing_in_proportion():
    # LONG_BINPUT 0xfffffff0 made the C unpickler grow its memo array to 2 x that index (64 GB)
    tracemalloc.start()
    try:
        assert load(P2 + b"Nr\xf0\xff\xff\xff0j\xf0\xff\xff\xff.") is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 << 20, peak


def test_reconstruct_with_a_huge_shape_is_refused():
    # numpy's _reconstruct(ndarray, (2**29,), dtype) allocated the shape at once: 86 bytes -> a 4 GB
    # float64 array of uninitialised memory
    data = P2 + RECONSTRUCT + NDARRAY + b"J\x00\x00\x00\x20\x85" + dtype("f8") + b"\x87R."
    assert len(data) < 120
    refused(data, "empty placeholder", UnsafePickleError)


def test_an_array_without_its_state_is_refused():
    # _reconstruct alone gives an array whose content was never written (uninitialised memory)
    refused(P2 + RECONSTRUCT + NDARRAY + b"K\x00\x85" + binbytes(b"b") + b"\x87R.", "never gives its data")


@pytest.mark.parametrize("shape_ops,data,match", [
    (b"J\x00\x00\x00\x20\x85", b"", "needs 2147483648 bytes of data, but the file holds 0"),
    (b"K\x02K\x03\x86", b"\x00" * 20, "needs 24 bytes"),
    (b"K\x02K\x03\x86", b"\x00" * 28, "needs 24 bytes"),
    (long1(2 ** 70) + b"\x85", b"", "not a size between 0 and 2"),
    (b"J\xff\xff\xff\xff\x85", b"", "not a size between 0 and 2"),
    (b"(" + b"K\x01" * 40 + b"t", b"\x00" * 4, "at most 32"),
])
def test_array_state_must_be_backed_by_its_bytes(shape_ops, data, match):
    refused(P2 + array(shape_ops, "f4", data) + b".", match, UnsafePickleError)


@pytest.mark.parametrize("descr", ["O8", "V8", "M8", "m8", "f16", "c32", "U0", "S0", "i3", "<f4,<i4"])
def test_dtypes_other_than_numbers_and_strings_are_refused(descr):
    refused(P2 + dtype(descr) + b".", "refusing numpy.dtype", UnsafePickleError)


def test_structured_dtype_state_is_refused():
    # a V8 dtype is refused by name; a numeric one with fields in its state is refused at BUILD
    state = b"(K\x03" + uni("|") + b"N(" + uni("a") + b"tq\x00}q\x01K\x08K\x01K\x00tb"
    refused(P2 + DTYPE + uni("f8") + b"\x89\x88\x87R" + state + b".", "structured", UnsafePickleError)


def test_scalars_are_checked():
    ok = P2 + b"cnumpy.core.multiarray\nscalar\n" + dtype("f4") + binbytes(np.float32(2.5).tobytes()) + b"\x86R."
    assert load(ok) == np.float32(2.5)
    short = ok.replace(binbytes(np.float32(2.5).tobytes()), binbytes(b"\x00\x00"))
    refused(short, "needs 4 bytes", UnsafePickleError)
    obj = P2 + b"cnumpy.core.multiarray\nscalar\n" + dtype("O8") + b"N\x86R."
    refused(obj, "refusing numpy.dtype", UnsafePickleError)


def test_frombuffer_counts_are_checked():
    fb = b"\x80\x05cnumpy._core.numeric\n_frombuffer\n"
    good = fb + b"(" + binbytes(b"\x00" * 24) + dtype("f8") + b"K\x03\x85" + uni("C") + b"tR."
    assert load(good).tolist() == [0.0, 0.0, 0.0]
    refused(good.replace(b"K\x03\x85", b"K\x04\x85"), "needs 32 bytes", UnsafePickleError)
    refused(good.replace(uni("C"), uni("K")), "memory order", UnsafePickleError)


def test_bool_arrays_hold_only_0_and_1():
    refused(P2 + array(b"K\x02\x85", "b1", b"\x01\x07") + b".", "bool array holds bytes other than 0 and 1")


@pytest.mark.parametrize("call", [
    b"c__builtin__\nbytearray\nJ\x00\x00\x00\x40\x85R.",          # bytearray(1 GiB)
    b"c__builtin__\nbytearray\n" + uni("x") + uni("utf-32") + b"\x86R.",
    b"c_codecs\nencode\n" + uni("x") + uni("zlib") + b"\x86R.",
    b"c__builtin__\nlist\n" + binbytes(b"x" * 100) + b"\x85R.",   # list(bytes): 8 bytes per byte
    b"c__builtin__\ncomplex\n" + long1(2 ** 2000) + b"\x85R.",     # OverflowError in complex()
    b"c__builtin__\nslice\n]\x85R.",
    b"c__builtin__\ndict\n" + b"]K\x01a\x85R.",
    b"cnumpy\nndarray\nK\x03\x85R.",                              # ndarray((3,)): uninitialised
])
def test_allowed_globals_check_their_arguments(call):
    refused(P2 + call, r"refusing|not a number|only|numpy.ndarray|not \(key, value\)", UnsafePickleError)


def test_copies_cannot_amplify_memory():
    # a 1 MB list copied by list(x) 10,000 times would be 80 GB of pointers
    big = b"]q\x00(" + b"N" * 1_000_000 + b"e"
    copies = b"(" + b"c__builtin__\nlist\nh\x00\x85R" * 10_000 + b"l"
    refused(P2 + big + copies + b".", "more than .* MiB")


def test_empty_containers_cannot_amplify_memory():
    # one opcode byte each, ~64 bytes of Python object each: bounded by the memory budget
    e = refused(P2 + b"(" + b"}" * 3_000_000 + b"l.", "MiB")
    assert isinstance(e, UnsafePickleError)


def test_a_big_plain_list_within_the_budget_loads():
    n = 200_000
    assert load(pickle.dumps(list(range(n)), protocol=4)) == list(range(n))


# -- no allow-listed object can be changed -----------------------------------------------------------------

@pytest.mark.parametrize("target", [b"c_codecs\nencode\n", b"c__builtin__\nbytearray\n", b"ccollections\nOrderedDict\n",
                                    b"cnumpy\ndtype\n", b"cnumpy.core.multiarray\nscalar\n"])
def test_build_on_an_allowed_global_is_refused(target):
    # BUILD with a dict state sets attributes: __defaults__ of an allow-listed function changed it for
    # the rest of the process
    state = b"N}" + uni("__defaults__") + uni("rot13") + uni("strict") + b"\x86s\x86"
    refused(P2 + target + state + b"b.", "refusing BUILD", UnsafePickleError)
    assert codecs.encode("x", "latin1") == b"x"


@pytest.mark.parametrize("inst", [b"}", b"]", b"ccollections\nOrderedDict\n)R", b")", b"K\x01", uni("s")])
def test_build_on_plain_objects_is_refused(inst):
    refused(P2 + inst + b"}" + uni("a") + b"K\x01sb.", "refusing BUILD", UnsafePickleError)


def test_dtype_state_cannot_change_a_shared_dtype():
    # dtype('f8', False, False) is numpy's cached float64; ours is always a private copy
    big_endian = b"(K\x03" + uni(">") + b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb"
    data = P2 + DTYPE + uni("f8") + b"\x89\x89\x87R" + big_endian + b"."
    got = load(data)
    assert got == np.dtype(">f8") and np.dtype("f8").byteorder == "="
    twice = data[:-1] + b"(K\x03" + uni("<") + b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb."
    refused(twice, "a second time", UnsafePickleError)


def test_build_on_a_finished_array_is_refused():
    arr = array(b"K\x01\x85", "f4", b"\x00" * 4)
    again = b"(K\x01K\x02\x85" + dtype("f4") + b"\x89" + binbytes(b"\x00" * 8) + b"tb"
    refused(P2 + arr + again + b".", "refusing BUILD", UnsafePickleError)


def test_a_global_itself_is_not_data():
    refused(P2 + b"c__builtin__\nlist\n.", "stores the global __builtin__.list itself", UnsafePickleError)
    refused(pickle.dumps(collections.OrderedDict, protocol=2), "itself", UnsafePickleError)


# -- whatever the bytes: one error type -------------------------------------------------------------------

@pytest.mark.parametrize("data", [
    b"", b".", b"\x80\x06N.", b"(((", b"\x80\x02a.", b"\x80\x021.", b"\x80\x02h\x05.", b"\x80\x02Iabc\n.",
    b"\x80\x02L" + b"9" * 5000 + b"\n.", b"\x80\x02Fnan?\n.", b"\x80\x02S'abc\n.", b"\x80\x02V\\u12\n.",
    b"\x80\x02X\x02\x00\x00\x00\xff\xfe.", b"\x80\x02(K\x01d.", b"\x80\x02}K\x01s.", b"\x80\x02]Ns.",
    b"\x80\x02\x8f(]\x90.", b"\x80\x02NNR.", b"\x80\x02\xff", b"\x80\x02cos\nsystem\n.", b"\x80\x02Q.",
    b"\x80\x02\x82\x01.", b"\x80\x05\x97.", b"\x80\x02c\xff\xfe\n\x01\n.", b"\x80\x02K\x01K\x02\x93.",
])
def test_malformed_pickles_raise_model_format_error(data):
    with pytest.raises(ModelFormatError) as e:
        load(data)
    assert str(e.value).startswith("f.pdparams: ")
